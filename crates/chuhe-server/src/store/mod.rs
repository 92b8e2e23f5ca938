//! Storage through sqlx on SQLite or PostgreSQL (one schema, one set of queries, chosen by the
//! database URL). Every table event is written, with the table row, in a transaction that
//! commits before the event is sent to anybody.
//!
//! # One writer, group commit
//!
//! Each store has one write connection, owned by one task, the writer (`store/writer.rs`);
//! reads go to a pool of their own (4 connections on SQLite, 8 on PostgreSQL). Every write goes
//! through the writer: a caller hands it a job with a oneshot for the answer and awaits it. A
//! table actor hands it a [`TableWrite`] (its events, numbered up to the row's version, the
//! table row, and when the game ends its finished-game row and new ratings) through
//! [`Store::write`]. The writer takes every job that is pending, up to 256 table writes, and
//! commits the table writes in **one transaction** (multi-row `INSERT`s of the events and the
//! finished games, multi-row `UPDATE`s of the rows, up to 200 rows a statement; the ratings of
//! the rated games that end, read and written in the transaction: [`RatedGame`]): the commit, and
//! its fsync, is shared
//! by every table in the group, and a table's answer comes only after that commit, so an
//! acknowledged move is durable. While one group commits, the next one gathers; a group may
//! also wait a few milliseconds to fill while writes come fast ([`StoreOptions::commit_delay`]:
//! none by default, 5 ms in `chuhe serve`). Sessions, players and new tables are written by the
//! same writer, in the same transaction, before the table writes of the group (a taken account
//! name is refused without failing the group). On SQLite a group of moves alone (the usual
//! one) goes to sqlx's SQLite thread in two trips, `BEGIN IMMEDIATE` then its statements and
//! `COMMIT` as one text, instead of one trip per statement (`writer::write_moves`); its update
//! writes only the rows whose phase changes (or that are saved without an event), and the
//! other tables' last events hold their clocks, which [`Store::table`] reads when they are
//! newer than the row (`migrations/0013_event_clocks.sql`). The writer owns its
//! connection (no pool) and opens a new one after an error that may have broken it. A
//! [`TableWrite`] names its table and its versions, so that idempotent retries by
//! `(table, version)` and ownership fencing can be checked where it is committed.
//!
//! When a group's transaction fails (one table's write breaks a constraint, say an event of a
//! version already stored: the events' primary key is `(table_id, version)`), it is rolled back
//! and its writes are written again one by one, each in a transaction of its own, so only the
//! faulty one gets the error. A table appears at most once in a group.
//!
//! On SQLite, with one write connection and nothing else writing, `database is locked` cannot
//! happen: the database is in WAL mode (`journal_mode=WAL`), where readers never block the
//! writer nor it them, and the read connections are `query_only`. The write connection runs
//! `synchronous=FULL`: a commit returns once the write-ahead log is fsynced, so an acknowledged
//! move survives `kill -9` of the server and a power loss or OS crash too (NORMAL would survive
//! `kill -9` but could lose the last commits on power loss; with group commit the fsync is paid
//! once per group, not per move). sqlx's busy timeout (5 s) stays as a safety net. Foreign keys
//! are on, as sqlx sets them. On PostgreSQL the writer is one connection too, and commits
//! are durable by PostgreSQL's own default (`synchronous_commit=on`).
//!
//! # Failures
//!
//! A failed transaction may have committed all the same (the connection cut after `COMMIT`
//! was sent): the writer asks the store whether each write of it landed (by `(table, version)`
//! and the stored event's text) before trying it again, so a retry never meets its own primary
//! key, and answers `Ok` for one that landed (`store/writer.rs`). A write that failed before
//! `COMMIT` was sent gets its error (nothing was stored); one that may have committed and that
//! no check found gets [`StoreError::InDoubt`] (the wire's `in_doubt`), and the table actor
//! reads its stored version before its next action and applies what landed.
//!
//! Every wait has a limit ([`StoreOptions`], 5 s by default): each statement (PostgreSQL's
//! `statement_timeout`, SQLite's `busy_timeout`), each transaction of the writer, each
//! caller's write, the pool's connections. The limits run on the wall clock (a runtime of their
//! own), not on the server's tokio clock, which tests pause. A caller past its limit gets
//! [`StoreError::Timeout`]; the players see "the database did not answer in time, try again"
//! (or `in_doubt` when the time ran out while the write was committing).
//!
//! # One writer per database
//!
//! On PostgreSQL the store holds an advisory lock for its schema (keys
//! `(0x63687568, hashtext(current_schema()))`) on a connection of its own, for as long as it
//! is open: a second server on the same database is refused ([`StoreError::InUse`]). On SQLite
//! `chuhe serve` locks a file beside the database (its canonical path: [`lock_sqlite`]).
//!
//! A PostgreSQL session can end without its holder noticing (`pg_terminate_backend`, a
//! restart of the database, `idle_session_timeout`), and its advisory lock with it, so writes
//! do not depend on the lock. A single server takes a **writer epoch** at start
//! (`server_state.writer_epoch`, raised by one in a transaction that also finds no live
//! cluster node), and every transaction of its writer first reads the epoch with
//! `SELECT ... FOR SHARE`: once another server (or a cluster node, whose registration raises
//! the epoch too) has started, the old server's writes are refused
//! ([`StoreError::Superseded`]), and the row lock orders the two: a write that committed
//! before the newcomer raised the epoch is seen by it. The lock's session is checked every
//! [`LOCK_CHECK_EVERY`] (which also keeps it from looking idle); when it has ended, the lock is
//! taken again on a new connection if nobody took it and the epoch is still this server's,
//! and otherwise the store reports itself lost ([`Store::lost`]): `chuhe serve` then stops,
//! with an error, rather than serve tables it may no longer write.
//!
//! The store takes and gives typed values ([`Event`](crate::protocol::Event),
//! [`TableOptions`](crate::protocol::TableOptions),
//! [`ClockSnapshot`],
//! [`FinishedGame`](crate::protocol::FinishedGame)) and keeps them as JSON texts (`serde_json`'s
//! compact form) in its text
//! columns; the texts are the same as when the callers wrote them, so existing databases read.
//! The JSON texts are made by the caller, before the job reaches the writer.

mod accounts;
mod challenges;
mod checkpoint;
pub mod cluster;
mod deadline;
mod error;
mod faults;
mod games;
mod guard;
pub mod puzzles;
mod ratings;
mod rows;
mod tables;
mod tokens;
mod tournaments;
mod writer;

use accounts::{cleanup_job, index_name_skeletons};
pub use challenges::{person_id, Answerer, Challenge, CHALLENGE_MADE, MAX_PENDING};
pub use error::{redact_url, StoreError};
pub use games::finished_game_logs;
use guard::{claim_writer_epoch, superseded, take_advisory_lock, LockSlot, STARTUP_LOCK_KEY};
pub use guard::{lock_sqlite, sqlite_file};
pub use rows::{ClockSnapshot, Fence, PlayerRow, RatedGame, RatingRow, TableRow, TableWrite};
pub use tokens::{issue_token, IssuedToken, TokenOwner, TokenRow};
pub use tournaments::{TournamentRequest, TournamentRow, MAX_TOURNAMENTS_PER_DAY};

#[cfg(feature = "fault-injection")]
pub use faults::Fault;
#[cfg(not(feature = "fault-injection"))]
pub(crate) use faults::Fault;
use faults::{injected, Faults};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::Migrator;
use sqlx::{AnyConnection, AnyPool, Connection, Executor, Row};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, oneshot};
use writer::{Job, Single};

/// The kind of database a URL names: the one place that reads it (the store, the
/// single-server guard, `chuhe serve`'s cluster check and `chuhe backup` ask here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `sqlite:` or `sqlite://`: one server's database.
    Sqlite,
    /// `postgres:` or `postgresql:` (with or without `//`): one server's, or a cluster's.
    Postgres,
}

impl Backend {
    /// The kind of database of `url`, or `None` for any other URL.
    pub fn of(url: &str) -> Option<Backend> {
        if url.starts_with("sqlite:") {
            Some(Backend::Sqlite)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Some(Backend::Postgres)
        } else {
            None
        }
    }

    /// The rule of a cluster: its nodes share one PostgreSQL database (SQLite is one
    /// server's database).
    ///
    /// # Errors
    /// [`StoreError::NotClustered`] for any other URL.
    pub fn check_cluster(url: &str) -> Result<(), StoreError> {
        match Backend::of(url) {
            Some(Backend::Postgres) => Ok(()),
            _ => Err(StoreError::NotClustered),
        }
    }
}

/// The migrations of `migrations/`, embedded in the binary by sqlx and applied in order at
/// start-up (each once: sqlx keeps the applied versions and their checksums in
/// `_sqlx_migrations`, and refuses a database whose applied migration was since changed).
static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How often the running server records that it is alive (`server_state.alive_ms`): after a
/// kill -9, the thinking time from a table's last write to at most this long before the crash
/// is charged on restart.
pub const ALIVE_EVERY: Duration = Duration::from_secs(5);

/// How often the session that holds a PostgreSQL store's advisory lock is checked (see "One
/// writer per database" in the module documentation).
pub const LOCK_CHECK_EVERY: Duration = Duration::from_secs(1);

/// A PostgreSQL connection idle for this long is pinged before it is used again (the write
/// connection and the pool's).
const IDLE_PING_AFTER: Duration = Duration::from_secs(1);

/// How often expired sessions and unused guests are removed (and once at start-up).
pub const CLEANUP_EVERY: Duration = Duration::from_secs(3600);

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Time limits of a store (see [`Store::connect_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// Longest wait for one statement, one transaction of the writer, or one caller's write or
    /// read (default 5 s). On PostgreSQL it is also the server-side `statement_timeout` of
    /// every connection; on SQLite it is the `busy_timeout` (the wait for a lock another
    /// process holds). A caller that waited this long gets [`StoreError::Timeout`].
    pub statement_timeout: Duration,
    /// Longest wait for a read connection from the pool, and for opening a connection
    /// (default 5 s).
    pub acquire_timeout: Duration,
    /// How long a session lasts after its last use (default 30 days; the expiry slides with
    /// use). Expired sessions are not found, and are removed with the guests that have none
    /// left, every [`CLEANUP_EVERY`].
    pub session_lifetime: Duration,
    /// Whether this store is one node of a cluster (PostgreSQL only; default `false`): it
    /// takes chuhe's advisory lock in shared mode (nodes share the database, a single server
    /// is refused while any node runs and the other way round), and leaves `alive_ms` to the
    /// node leases ([`cluster`]).
    pub cluster: bool,
    /// Longest wait of a group commit for more writes to join it before it commits (default
    /// 0: none; `chuhe serve` sets 5 ms, `--commit-delay-ms`). Each group pays one transaction
    /// and, on SQLite, one `fsync`; when writes come faster than one per `commit_delay`,
    /// waiting makes the groups larger and the processor time per write smaller, at the price
    /// of up to `commit_delay` more before each answer.
    /// A slower pace never waits (the writer counts its writes of the last second), as
    /// PostgreSQL's `commit_delay` waits only when `commit_siblings` others are active.
    pub commit_delay: Duration,
    /// SQLite: a checkpoint that leaves at least this many frames (pages) in the write-ahead
    /// log starts the log over (default 8,192, 32 MiB of 4 KiB pages; the checkpoint thread
    /// of `checkpoint.rs` says why). Ignored on PostgreSQL.
    pub wal_restart_frames: u32,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            statement_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(5),
            session_lifetime: Duration::from_secs(30 * 24 * 3600),
            cluster: false,
            commit_delay: Duration::ZERO,
            wal_restart_frames: checkpoint::RESTART_FRAMES,
        }
    }
}

/// A tokio runtime of its own, on a thread of its own, whose timers run on the wall clock, for
/// the store's periodic work (housekeeping, the lock's watcher): it must not run early when a
/// test pauses the server's clock (a paused clock jumps to the next timer whenever the runtime
/// waits, a database answer too). The time limits of single calls use [`deadline`] instead.
fn wall_timers() -> Option<&'static tokio::runtime::Handle> {
    static TIMERS: std::sync::OnceLock<Option<tokio::runtime::Handle>> = std::sync::OnceLock::new();
    TIMERS
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .ok()?;
            let handle = runtime.handle().clone();
            std::thread::Builder::new()
                .name("chuhe-store-timers".to_owned())
                .spawn(move || runtime.block_on(std::future::pending::<()>()))
                .ok()?;
            Some(handle)
        })
        .as_ref()
}

/// Runs `work`, or fails with [`StoreError::Timeout`] when it takes longer than `limit` of
/// wall-clock time (up to [`deadline::GRAIN`] more; without the deadline thread, `work` runs
/// without a limit).
pub(crate) async fn within<T>(
    limit: Duration,
    work: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let Some(fired) = deadline::after(limit) else {
        return work.await;
    };
    tokio::pin!(work);
    let result = tokio::select! {
        result = &mut work => result,
        Ok(()) = fired => Err(StoreError::Timeout(limit)),
    };
    match result {
        Err(StoreError::Database(e)) if is_timeout(&e) => Err(StoreError::Timeout(limit)),
        other => other,
    }
}

/// Whether a database error is a time limit reached: the pool's wait for a connection,
/// PostgreSQL's `statement_timeout` (57014, `query_canceled`) or `lock_timeout` (55P03), SQLite's
/// `busy_timeout` (`SQLITE_BUSY` and `SQLITE_LOCKED`, 5 and 6, with their extended codes).
fn is_timeout(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(db) => match db.code().as_deref() {
            Some("57014" | "55P03") => true,
            Some(code) => code.parse::<u32>().is_ok_and(|n| matches!(n & 0xff, 5 | 6)),
            None => false,
        },
        _ => false,
    }
}

/// The database: a pool of read connections and the writer task, which owns the one write
/// connection (see the module documentation). Clones share both.
#[derive(Debug, Clone)]
pub struct Store {
    /// Reads only (on SQLite the connections are `query_only`).
    pool: AnyPool,
    /// Jobs for the writer task, which owns the one write connection.
    jobs: mpsc::Sender<Job>,
    /// The time limits.
    options: StoreOptions,
    /// Whether the database is SQLite (else PostgreSQL).
    is_sqlite: bool,
    /// Faults for the writer to fake (tests only).
    #[cfg_attr(not(feature = "fault-injection"), allow(dead_code))]
    faults: Arc<Faults>,
    /// On PostgreSQL, the connection that holds the advisory lock of this database for the
    /// life of the store (closed by [`Store::close`]).
    lock: Arc<tokio::sync::Mutex<LockSlot>>,
    /// On a SQLite file, the thread that checkpoints its write-ahead log (stopped by
    /// [`Store::close`], or when the last clone is dropped).
    checkpointer: Arc<std::sync::Mutex<Option<checkpoint::Checkpointer>>>,
    /// The `alive_ms` a previous server left (0 or none after a clean stop).
    previous_alive_ms: i64,
    /// Set when a row-only write (a table's clocks saved at shutdown) failed: the stop is then
    /// not clean, and `alive_ms` is left for the next start to charge from.
    unsaved: Arc<std::sync::atomic::AtomicBool>,
    /// Why this store may no longer write, once it may not (`None` until then): shared with
    /// the writer and the lock's watcher ([`Store::lost`]).
    lost: Arc<tokio::sync::watch::Sender<Option<String>>>,
}

/// Adds `mode=rwc` to a SQLite URL that has no mode, so a missing file is created.
fn normalize_url(url: &str) -> String {
    if url.starts_with("sqlite:") && !url.contains("mode=") && !url.contains(":memory:") {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}mode=rwc")
    } else {
        url.to_owned()
    }
}

/// Begins a transaction that will write. On SQLite it takes the write lock at once (`BEGIN
/// IMMEDIATE`), waiting for it as long as the busy timeout lets: a deferred transaction that
/// has read cannot wait for the lock when it first writes, and fails at once
/// (`SQLITE_BUSY_SNAPSHOT`) when another connection wrote, or the checkpoint thread started
/// the log over (`checkpoint.rs`), since its read.
///
/// # Errors
/// The database's.
pub(super) async fn begin_write(
    conn: &mut AnyConnection,
    is_sqlite: bool,
) -> Result<sqlx::Transaction<'_, sqlx::Any>, sqlx::Error> {
    if is_sqlite {
        conn.begin_with("BEGIN IMMEDIATE").await
    } else {
        conn.begin().await
    }
}

/// The statements that set a new connection's time limit: PostgreSQL's `statement_timeout`,
/// SQLite's `busy_timeout`, in milliseconds.
///
/// On PostgreSQL the same limit is the connection's `idle_in_transaction_session_timeout`:
/// a transaction whose client went silent (the node stopped, or cut off by a partition that
/// also swallowed its connection's end) is ended by PostgreSQL after it, with its locks. Without
/// it such a transaction kept its uncommitted event rows until the server's TCP keepalive
/// noticed (hours), and every later owner's write of that table waited on them and failed:
/// the table was served but could take no move (scripts/faults found it: a node stopped, then
/// cut off from PostgreSQL, in the middle of its group commit).
fn timeout_statement(is_sqlite: bool, limit: Duration) -> String {
    let ms = limit.as_millis().clamp(1, i32::MAX as u128);
    if is_sqlite {
        format!("PRAGMA busy_timeout = {ms}")
    } else {
        format!("SET statement_timeout = {ms}; SET idle_in_transaction_session_timeout = {ms}")
    }
}

impl Store {
    /// The read pool's connections: all of them, and the idle ones (for the metrics).
    pub(crate) fn pool_connections(&self) -> (u32, usize) {
        (self.pool.size(), self.pool.num_idle())
    }

    /// Connects to `url` (`sqlite://FILE`, `postgres://...`) with the default time limits,
    /// as [`Store::connect_with`].
    ///
    /// # Errors
    /// As [`Store::connect_with`].
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::connect_with(url, StoreOptions::default()).await
    }

    /// Connects to `url` (`sqlite://FILE`, `postgres://...`), applies the migrations and starts
    /// the writer task (on the current tokio runtime); a SQLite file is created when missing
    /// and put in WAL mode. On PostgreSQL it first takes the database's advisory lock (per
    /// schema) on a connection of its own and holds it until [`Store::close`] or the end of
    /// the process: a second server on the same database is refused.
    ///
    /// # Errors
    /// A URL of another kind, a failed connection or a failed migration;
    /// [`StoreError::InUse`] when another server holds the PostgreSQL database. A database
    /// that does not answer within the limits, or whose connection breaks, while the store
    /// opens is [`StoreError::Open`] (the database cannot be opened now, as when it refuses
    /// the connection), never a bare [`StoreError::Timeout`].
    pub async fn connect_with(url: &str, options: StoreOptions) -> Result<Store, StoreError> {
        Store::open(url, options).await.map_err(|e| match e {
            StoreError::Timeout(limit) => StoreError::Open {
                url: url.to_owned(),
                source: sqlx::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "the database did not answer within {} ms",
                        limit.as_millis()
                    ),
                )),
            },
            StoreError::Database(
                source @ (sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::WorkerCrashed),
            ) => StoreError::Open {
                url: url.to_owned(),
                source,
            },
            e => e,
        })
    }

    /// [`Store::connect_with`] without its sorting of the errors.
    async fn open(url: &str, options: StoreOptions) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let Some(backend) = Backend::of(url) else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        let is_sqlite = backend == Backend::Sqlite;
        let open_error = |source| StoreError::Open {
            url: url.to_owned(),
            source,
        };
        if options.cluster {
            Backend::check_cluster(url)?;
        }
        let lock = if is_sqlite {
            None
        } else {
            Some(take_advisory_lock(url, options).await?)
        };
        let setup = timeout_statement(is_sqlite, options.statement_timeout);
        let faults = Arc::new(Faults::default());
        let mut writer = within(options.acquire_timeout, async {
            writer::Writer::open(
                &normalize_url(url),
                is_sqlite,
                setup.clone(),
                options.statement_timeout,
                faults.clone(),
            )
            .await
            .map_err(open_error)
        })
        .await?;
        let migrator = &MIGRATOR;
        let conn = writer.conn().await.map_err(open_error)?;
        if !is_sqlite {
            // Cluster nodes may start together: one at a time migrates and builds the index
            // of the names (`CREATE INDEX IF NOT EXISTS` is not safe against itself).
            sqlx::query("SELECT pg_advisory_lock($1, hashtext(current_schema()))")
                .bind(STARTUP_LOCK_KEY)
                .execute(&mut *conn)
                .await?;
        }
        let prepared = async {
            migrator.run(&mut *conn).await?;
            index_name_skeletons(&mut *conn).await?;
            let began = std::time::Instant::now();
            let loaded = puzzles::load_embedded(conn).await?;
            if loaded.read {
                tracing::info!(
                    rows = loaded.rows,
                    skipped = loaded.skipped,
                    added = loaded.inserted,
                    ms = began.elapsed().as_millis() as u64,
                    "puzzles loaded"
                );
            }
            Ok::<(), StoreError>(())
        }
        .await;
        if !is_sqlite {
            sqlx::query("SELECT pg_advisory_unlock($1, hashtext(current_schema()))")
                .bind(STARTUP_LOCK_KEY)
                .execute(&mut *conn)
                .await?;
        }
        prepared?;
        // A single server on PostgreSQL: the writer epoch that fences its writes.
        let epoch = if is_sqlite || options.cluster {
            None
        } else {
            Some(claim_writer_epoch(conn).await?)
        };
        let previous_alive_ms =
            sqlx::query("SELECT value FROM server_state WHERE name = 'alive_ms'")
                .fetch_optional(&mut *conn)
                .await?
                .map(|r| r.try_get::<i64, _>("value"))
                .transpose()?
                .unwrap_or(0);
        // No timers in the pool beyond the acquire timeout, and no ping before each use of a
        // busy connection: the server's clocks may run on a paused test clock, which jumps to
        // the next timer whenever the runtime waits (for a database answer too).
        let pool = AnyPoolOptions::new()
            .max_connections(if is_sqlite { 4 } else { 8 })
            .min_connections(if is_sqlite { 4 } else { 1 })
            .acquire_timeout(options.acquire_timeout)
            .idle_timeout(None)
            .max_lifetime(None)
            .test_before_acquire(false)
            // A connection left idle may have died with its session (a restart of PostgreSQL,
            // `idle_session_timeout`): pinged first, and replaced when it does not answer,
            // rather than failing the read. Busy connections are never pinged.
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    if !is_sqlite && meta.idle_for >= IDLE_PING_AFTER {
                        conn.ping().await?;
                    }
                    Ok(true)
                })
            })
            .after_connect(move |conn, _| {
                let setup = setup.clone();
                Box::pin(async move {
                    if is_sqlite {
                        // Every write goes through the writer: a read connection that tried
                        // one would fail at once rather than wait for a lock.
                        conn.execute("PRAGMA query_only = ON").await?;
                    }
                    conn.execute(sqlx::AssertSqlSafe(setup.as_str())).await?;
                    Ok(())
                })
            })
            .connect(&normalize_url(url))
            .await
            .map_err(open_error)?;
        let checkpointer = if is_sqlite && !url.contains(":memory:") {
            Some(
                checkpoint::Checkpointer::start(&normalize_url(url), options.wal_restart_frames)
                    .map_err(|e| open_error(sqlx::Error::Io(e)))?,
            )
        } else {
            None
        };
        let (lost, _) = tokio::sync::watch::channel(None);
        let lost = Arc::new(lost);
        writer.fence(epoch, lost.clone());
        let (jobs, received) = mpsc::channel(writer::MAX_GROUP * 4);
        tokio::spawn(writer::run(writer, received, options.commit_delay));
        let store = Store {
            pool,
            jobs,
            options,
            is_sqlite,
            faults,
            lock: Arc::new(tokio::sync::Mutex::new(LockSlot {
                conn: lock,
                closed: false,
            })),
            checkpointer: Arc::new(std::sync::Mutex::new(checkpointer)),
            previous_alive_ms,
            unsaved: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            lost,
        };
        store.start_housekeeping();
        if !is_sqlite {
            store.watch_lock(url.to_owned(), epoch);
        }
        Ok(store)
    }

    /// Why this store may no longer write, once that happens (`None` until then): its
    /// PostgreSQL lock ended and another server took the database ([`StoreError::Superseded`]).
    /// The receiver sees the change as it happens; a server stops when it does.
    pub fn lost(&self) -> tokio::sync::watch::Receiver<Option<String>> {
        self.lost.subscribe()
    }

    /// Gives the store up: from now on its writer refuses every write
    /// ([`StoreError::Superseded`] with `why`) and [`Store::lost`] reports `why` (the first
    /// reason given stays). A cluster node whose lease lapsed calls it: other nodes may own its
    /// tables already.
    pub fn give_up(&self, why: String) {
        self.lost.send_if_modified(|lost| {
            if lost.is_some() {
                return false;
            }
            *lost = Some(why);
            true
        });
    }

    /// Starts the store's periodic writes, on the wall-clock timers (so a paused test clock
    /// does not run them): `alive_ms` every [`ALIVE_EVERY`], the cleanup of expired sessions and
    /// unused guests at once and every [`CLEANUP_EVERY`]. They stop with the store's writer.
    fn start_housekeeping(&self) {
        let Some(timers) = wall_timers() else {
            tracing::warn!("no timer thread: sessions are not cleaned up");
            return;
        };
        // A weak sender: the store's writer still stops once every store is dropped.
        let weak = self.jobs.downgrade();
        let limit = self.options.statement_timeout;
        let lifetime = self.options.session_lifetime;
        let cluster = self.options.cluster;
        timers.spawn(async move {
            let mut since_cleanup = None::<std::time::Instant>;
            loop {
                let Some(jobs) = weak.upgrade() else { break };
                if since_cleanup.is_none_or(|t| t.elapsed() >= CLEANUP_EVERY) {
                    since_cleanup = Some(std::time::Instant::now());
                    match send_single(&jobs, limit, cleanup_job(lifetime)).await {
                        Ok(0) => {}
                        Ok(n) => {
                            tracing::info!(rows = n, "expired sessions and unused guests removed")
                        }
                        Err(StoreError::WriterStopped) => break,
                        Err(e) => tracing::warn!(error = %e, "session cleanup failed"),
                    }
                }
                // A cluster's nodes say they are alive in their leases (store/cluster.rs).
                if !cluster {
                    match send_single(&jobs, limit, Single::Alive { now_ms: now_ms() }).await {
                        Err(StoreError::WriterStopped) => break,
                        Err(e) => tracing::debug!(error = %e, "alive_ms not written"),
                        Ok(_) => {}
                    }
                }
                drop(jobs);
                tokio::time::sleep(ALIVE_EVERY).await;
            }
        });
    }

    /// Makes the writer fake `fault` on its next `times` transactions with table writes (or
    /// checks, for [`Fault::CheckFails`]), after the faults already queued. For tests of what
    /// follows a database failure: only built with the `fault-injection` feature (the crate's
    /// own tests turn it on).
    #[cfg(feature = "fault-injection")]
    pub fn inject_fault(&self, fault: Fault, times: usize) {
        if let Ok(mut queue) = self.faults.0.lock() {
            queue.extend(std::iter::repeat_n(fault, times));
        }
    }

    /// Whether the database answers a trivial query within the time limit (for the health
    /// check).
    ///
    /// # Errors
    /// Why it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.timed(async {
            sqlx::query("SELECT 1").fetch_one(&self.pool).await?;
            Ok(())
        })
        .await
    }

    /// Runs a read within the store's statement time limit.
    async fn timed<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        within(self.options.statement_timeout, work).await
    }

    /// Closes every connection: the reads' at once, the writer's once the jobs handed to it
    /// before are done; later writes fail with [`StoreError::WriterStopped`]. Unless a table's
    /// clocks failed to be saved, `alive_ms` is set to 0 first: a clean stop leaves nothing to
    /// charge at the next start.
    pub async fn close(&self) {
        // A clean stop (every table's clocks saved): nothing is left to charge at the next
        // start. Otherwise the last `alive_ms` stays, as after a crash.
        if !self.options.cluster && !self.unsaved.load(std::sync::atomic::Ordering::Acquire) {
            let _ = self.write_single(Single::Alive { now_ms: 0 }).await;
        }
        let checkpointer = self.checkpointer.lock().ok().and_then(|mut c| c.take());
        if let Some(mut checkpointer) = checkpointer {
            // Waits at most for the checkpoint in progress.
            let _ = tokio::task::spawn_blocking(move || checkpointer.stop()).await;
        }
        self.pool.close().await;
        let conn = {
            let mut slot = self.lock.lock().await;
            slot.closed = true;
            slot.conn.take()
        };
        if let Some(mut conn) = conn {
            // Released before the connection closes: PostgreSQL releases a closed session's
            // locks only as its backend exits, after the client has gone, and a server started
            // at once on the same database would find the lock still held (CI met it in
            // `bot_api`'s restart test).
            let _ = within(self.options.statement_timeout, async {
                sqlx::query("SELECT pg_advisory_unlock_all()")
                    .execute(&mut conn)
                    .await?;
                Ok(())
            })
            .await;
            let _ = conn.close().await;
        }
        let (answer, answered) = oneshot::channel();
        if self.jobs.send(Job::Close(answer)).await.is_ok() {
            let _ = answered.await;
        }
    }

    /// Hands a table write to the writer and waits until it is committed (durable), in one
    /// transaction with the other table writes pending at the time.
    ///
    /// # Errors
    /// More events than `write.row.version`, an event of a version already stored, a database
    /// failure (of this write: a group that fails is written again one table at a time), a
    /// stopped writer.
    pub async fn write(&self, write: &TableWrite) -> Result<(), StoreError> {
        self.write_fenced(write, None).await
    }

    /// As [`Store::write`], checked against `fence` when given (a cluster node's write: see
    /// [`Fence`]).
    ///
    /// # Errors
    /// As [`Store::write`]; [`StoreError::Fenced`] when the fence no longer holds.
    pub async fn write_fenced(
        &self,
        write: &TableWrite,
        fence: Option<&Fence>,
    ) -> Result<(), StoreError> {
        self.write_at(write, fence, now_ms()).await
    }

    /// As [`Store::write_fenced`], at `now_ms` by this process's clock (the tests step it).
    async fn write_at(
        &self,
        write: &TableWrite,
        fence: Option<&Fence>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let prepared = write.prepare(now_ms, fence)?;
        let (answer, answered) = oneshot::channel();
        let ticket = Arc::new(writer::Ticket::default());
        let job = Job::Table(prepared, answer, ticket.clone());
        hand_over(
            &self.jobs,
            self.options.statement_timeout,
            job,
            ticket,
            answered,
        )
        .await
    }

    /// Hands an ungrouped write to the writer and waits for the rows it affected.
    async fn write_single(&self, single: Single) -> Result<u64, StoreError> {
        send_single(&self.jobs, self.options.statement_timeout, single).await
    }

    /// Records that a table's clocks could not be saved at shutdown: the stop is not clean,
    /// and the next start charges the thinking time up to the last `alive_ms`.
    pub(crate) fn mark_unsaved(&self) {
        self.unsaved
            .store(true, std::sync::atomic::Ordering::Release);
    }
}

/// The text column `column` of every row.
///
/// # Errors
/// A row without that column, or not a text.
fn texts(rows: &[AnyRow], column: &str) -> Result<Vec<String>, StoreError> {
    Ok(rows
        .iter()
        .map(|r| r.try_get::<String, _>(column))
        .collect::<Result<_, _>>()?)
}

/// Hands an ungrouped write to the writer through `jobs` and waits (up to `limit`) for the
/// rows it affected.
async fn send_single(
    jobs: &mpsc::Sender<Job>,
    limit: Duration,
    single: Single,
) -> Result<u64, StoreError> {
    let (answer, answered) = oneshot::channel();
    let ticket = Arc::new(writer::Ticket::default());
    let job = Job::Single(single, answer, ticket.clone());
    hand_over(jobs, limit, job, ticket, answered).await
}

/// How many more time limits a caller waits for the answer to a job the writer took before
/// the caller's limit: a failed group, the write alone, and a check whether it landed.
const TAKEN_WAIT: u32 = 3;

/// Hands `job` to the writer and waits up to `limit` for its answer. Past the limit, a job the
/// writer has not taken yet is given up (never written: the caller gets
/// [`StoreError::Timeout`]); one it has taken is waited for up to [`TAKEN_WAIT`] times as
/// long again (the writer bounds each of its attempts and checks by the same limit, and tells
/// a write that failed before `COMMIT` from one that may have committed), and past that it is
/// [`StoreError::InDoubt`].
async fn hand_over<T>(
    jobs: &mpsc::Sender<Job>,
    limit: Duration,
    job: Job,
    ticket: Arc<writer::Ticket>,
    mut answered: oneshot::Receiver<Result<T, StoreError>>,
) -> Result<T, StoreError> {
    // The writer's answer, inside the result of the wait (whose own error is the time limit,
    // or a writer that has stopped before taking the job).
    let first = within(limit, async {
        jobs.send(job)
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        Ok((&mut answered)
            .await
            .map_err(|_| StoreError::WriterStopped)
            .and_then(|answer| answer))
    })
    .await;
    match first {
        Ok(answer) => answer,
        Err(StoreError::Timeout(waited)) if !ticket.give_up() => {
            let again = within(limit * TAKEN_WAIT, async {
                Ok((&mut answered)
                    .await
                    .map_err(|_| StoreError::WriterStopped)
                    .and_then(|answer| answer))
            })
            .await;
            match again {
                Ok(answer) => answer,
                Err(_) => Err(StoreError::InDoubt(Box::new(StoreError::Timeout(waited)))),
            }
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests;
