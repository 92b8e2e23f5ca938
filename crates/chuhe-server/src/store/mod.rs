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
//! the rated games that end, read and written in the transaction: [`RatedGame`]): the commit, and its fsync, is shared
//! by every table in the group, and a table's answer comes only after that commit, so an
//! acknowledged move is durable. While one group commits, the next one gathers; there is no
//! timer and no wait for a group to fill. Sessions, players and new tables are written by the
//! same writer, in the same transaction, before the table writes of the group (a taken account
//! name is refused without failing the group). The writer owns its
//! connection (no pool) and opens a new one after an error that may have broken it. A [`TableWrite`] names its table and its versions, so that idempotent retries by
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
//! key, and answers `Ok` for one that landed (`store/writer.rs`). When even that check fails,
//! the table actor reads its stored version before its next action and applies what landed.
//!
//! Every wait has a limit ([`StoreOptions`], 5 s by default): each statement (PostgreSQL's
//! `statement_timeout`, SQLite's `busy_timeout`), each transaction of the writer, each
//! caller's write, the pool's connections. The limits run on the wall clock (a runtime of their
//! own), not on the server's tokio clock, which tests pause. A caller past its limit gets
//! [`StoreError::Timeout`]; the players see "the database did not answer in time, try again".
//!
//! # One writer per database
//!
//! On PostgreSQL the store holds an advisory lock for its schema (keys
//! `(0x63687568, hashtext(current_schema()))`) on a connection of its own, for as long as it
//! is open: a second server on the same database is refused ([`StoreError::InUse`]). On SQLite
//! `chuhe serve` locks a file beside the database (its canonical path).
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
//! The store takes and gives typed values ([`Event`], [`TableOptions`], [`ClockSnapshot`],
//! [`FinishedGame`]) and keeps them as JSON texts (`serde_json`'s compact form) in its text
//! columns; the texts are the same as when the callers wrote them, so existing databases read.
//! The JSON texts are made by the caller, before the job reaches the writer.

mod checkpoint;
pub mod cluster;
mod faults;
mod writer;

use crate::protocol::{Event, FinishedGame, TableOptions};
use crate::table::clock::ClockSnapshot;
#[cfg(feature = "fault-injection")]
pub use faults::Fault;
#[cfg(not(feature = "fault-injection"))]
pub(crate) use faults::Fault;
use faults::{injected, Faults};
use futures_util::future::BoxFuture;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyConnection, AnyPool, ConnectOptions, Connection, Executor, Row};
use std::borrow::Cow;
use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, oneshot};
use writer::{FinishedRow, Job, PreparedTable, Single};

/// The migrations, embedded in the binary, applied in order at start-up.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "tables",
        include_str!("../../migrations/0001_tables.sql"),
    ),
    (
        2,
        "ratings",
        include_str!("../../migrations/0002_ratings.sql"),
    ),
    (
        3,
        "finished_games",
        include_str!("../../migrations/0003_finished_games.sql"),
    ),
    (
        4,
        "sessions_and_names",
        include_str!("../../migrations/0004_sessions_and_names.sql"),
    ),
    (
        5,
        "cluster",
        include_str!("../../migrations/0005_cluster.sql"),
    ),
    (
        6,
        "game_players",
        include_str!("../../migrations/0006_game_players.sql"),
    ),
    (
        7,
        "cluster_identity",
        include_str!("../../migrations/0007_cluster_identity.sql"),
    ),
];

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

/// The embedded migrations as a sqlx migration source.
#[derive(Debug, Clone, Copy)]
struct Embedded;

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, sqlx::error::BoxDynError>> {
        Box::pin(async {
            Ok(MIGRATIONS
                .iter()
                .map(|&(version, name, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(name),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Why the store failed. The server edge turns it into a
/// [`ServerError`](crate::error::ServerError): a taken name and an unknown cursor are the
/// client's mistakes, a bad database URL is a start-up setting, the rest are internal failures
/// that are logged with their cause and never sent.
#[derive(Debug)]
pub enum StoreError {
    /// The database URL names neither SQLite nor PostgreSQL.
    UnsupportedUrl(String),
    /// The database could not be opened.
    Open {
        /// The database URL.
        url: String,
        /// Why it could not be opened.
        source: sqlx::Error,
    },
    /// Applying the migrations failed.
    Migration(sqlx::migrate::MigrateError),
    /// A query failed.
    Database(sqlx::Error),
    /// A value does not write as JSON, or a stored JSON text does not read as its type.
    Json(serde_json::Error),
    /// An account of this name exists.
    NameTaken(String),
    /// No listed finished game has this table id (the `before` of a page of finished games).
    NoFinishedGame(String),
    /// More events were given than the table row's version counts.
    EventVersions {
        /// How many events were given.
        count: usize,
        /// The row's version, which the last event takes.
        last: u64,
    },
    /// The store's writer has stopped (the store was closed): nothing more is written.
    WriterStopped,
    /// The database did not answer within the store's time limit
    /// ([`StoreOptions::statement_timeout`]); whether a write landed is then resolved from the
    /// store (see the module documentation).
    Timeout(std::time::Duration),
    /// Another chuhe server holds this database (a PostgreSQL advisory lock taken at start-up
    /// and held for the life of the process).
    InUse(String),
    /// A fenced table write was refused: this node no longer owns the table (another node took
    /// it over with a higher epoch) or its own lease has lapsed ([`cluster`]). Nothing was
    /// written.
    Fenced(String),
    /// A cluster operation on a store that cannot hold a cluster (SQLite).
    NotClustered,
    /// This server no longer holds the PostgreSQL database: another `chuhe serve` (or a cluster
    /// node) started on it after this server's advisory lock ended, and this server's writes
    /// are refused from then on (see "One writer" in the module documentation). The server
    /// stops.
    Superseded(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::UnsupportedUrl(url) => write!(
                f,
                "unsupported database url {url:?}: use sqlite://FILE or postgres://..."
            ),
            StoreError::Open { url, source } => {
                write!(f, "cannot open database {url:?}: {source}")
            }
            StoreError::Migration(e) => write!(f, "migration: {e}"),
            StoreError::Database(e) => write!(f, "database: {e}"),
            StoreError::Json(e) => write!(f, "json: {e}"),
            StoreError::NameTaken(name) => write!(f, "the name {name:?} is taken"),
            StoreError::NoFinishedGame(id) => write!(f, "before: no finished game {id:?}"),
            StoreError::EventVersions { count, last } => {
                write!(f, "{count} events cannot end at version {last}")
            }
            StoreError::WriterStopped => write!(f, "the store's writer has stopped"),
            StoreError::Timeout(limit) => write!(
                f,
                "the database did not answer within {} ms",
                limit.as_millis()
            ),
            StoreError::InUse(what) => write!(f, "{what}"),
            StoreError::Fenced(table) => write!(
                f,
                "table {table}: this node no longer holds its lease (another node owns it)"
            ),
            StoreError::NotClustered => {
                f.write_str("a cluster needs PostgreSQL (SQLite is one server's database)")
            }
            StoreError::Superseded(why) => write!(f, "{why}"),
        }
    }
}

impl StoreError {
    /// Whether the failure is the database being away rather than a fault of the request or
    /// of the data: no answer within the time limit, a connection that could not be made or
    /// was cut, a pool without a free connection, a PostgreSQL server shutting down or not
    /// accepting connections (SQLSTATE classes 08, 53 and 57P), SQLite busy or locked. The
    /// client is told that the database is unavailable and to try again (nothing was stored).
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Timeout(_) | StoreError::WriterStopped => true,
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::Protocol(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed => true,
                sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                    code.starts_with("08")
                        || code.starts_with("53")
                        || code.starts_with("57P")
                        // SQLite's codes are numbers (PostgreSQL's SQLSTATEs have five
                        // characters): SQLITE_BUSY (5) and SQLITE_LOCKED (6), extended too
                        || (code.len() < 5
                            && matches!(code.parse::<u32>(), Ok(n) if matches!(n & 0xff, 5 | 6)))
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Open { source, .. } | StoreError::Database(source) => Some(source),
            StoreError::Migration(e) => Some(e),
            StoreError::Json(e) => Some(e),
            _ => None,
        }
    }
}

/// Two store errors are equal only when they are the same value: a failure has no meaningful
/// equality of its own, and this keeps [`ServerError`](crate::error::ServerError), which
/// shares one behind an `Arc`, comparable.
impl PartialEq for StoreError {
    fn eq(&self, other: &StoreError) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migration(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Json(e)
    }
}

/// A stored player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRow {
    /// The id.
    pub id: String,
    /// The display name.
    pub name: String,
    /// The argon2 PHC string (accounts only).
    pub password_hash: Option<String>,
}

/// A stored table row (the events hold the rest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// The id.
    pub id: String,
    /// What the table was created with (stored as JSON).
    pub options: TableOptions,
    /// `open`, `running` or `ended`.
    pub phase: String,
    /// The number of events.
    pub version: u64,
    /// The clocks when the row was saved (stored as JSON); `None` for an untimed table.
    pub clocks: Option<ClockSnapshot>,
    /// Hidden information (never sent; no variant needs it so far: banqi flips are drawn at
    /// flip time).
    pub secret: Option<String>,
    /// When the table was created, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// A player's rating in one variant, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    /// The player.
    pub player_id: String,
    /// The variant's wire name.
    pub variant: String,
    /// The Glicko-2 rating.
    pub rating: crate::accounts::rating::Rating,
    /// Rated games played in the variant.
    pub games: u64,
}

/// The result of a rated game, as the writer needs it to update the players' ratings in the
/// game's own transaction ([`TableWrite::rated`]).
///
/// The writer reads each player's current rating in that transaction (on PostgreSQL with a
/// row lock, `SELECT ... FOR UPDATE`, taken in the order of the player ids so that two nodes
/// never wait for each other; on SQLite the one writer is alone), applies one Glicko-2 rating
/// period ([`crate::accounts::rating::rate_game`]) and writes the new ratings with the game count raised
/// by one: games of one player that end at the same moment, on one server or on several
/// nodes, are each counted, one after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    /// The variant's wire name (`xiangqi`, `sanguo`, `banqi`).
    pub variant: String,
    /// The players' ids, in seat order (two, or three for sanguo; each person once).
    pub players: Vec<String>,
    /// Whether each player (same order) is among the winners; none for a draw.
    pub winners: Vec<bool>,
}

/// One table's write, as its actor hands it to the store's writer ([`Store::write`]): the
/// events, numbered so that the last one is `row.version`, the table row, and, when the events
/// end the game, its finished-game row and its rated result. All of it is committed together.
#[derive(Debug, Clone, PartialEq)]
pub struct TableWrite {
    /// The table row after the events (its `id` names the table, its `version` is the last
    /// event's).
    pub row: TableRow,
    /// The new events, in order (none to save the row alone).
    pub events: Vec<Event>,
    /// The result to rate, when the events end a rated game (the new ratings are computed
    /// from the stored ones in the write's transaction: [`RatedGame`]).
    pub rated: Option<RatedGame>,
    /// The finished-game row, when the events end the game.
    pub finished: Option<FinishedGame>,
}

impl TableWrite {
    /// The versions the events take: up to `row.version`, one each (empty when there are no
    /// events).
    ///
    /// # Errors
    /// [`StoreError::EventVersions`] when there are more events than `row.version`.
    pub fn versions(&self) -> Result<RangeInclusive<u64>, StoreError> {
        let first = first_version(self.row.version, self.events.len())?;
        Ok(first..=self.row.version)
    }

    /// Makes the JSON texts and the bound values (before the job reaches the writer).
    fn prepare(&self, now_ms: i64, fence: Option<&Fence>) -> Result<PreparedTable, StoreError> {
        let versions = self.versions()?;
        let events = versions
            .zip(&self.events)
            .map(|(v, e)| Ok((v as i64, serde_json::to_string(e)?)))
            .collect::<Result<_, StoreError>>()?;
        Ok(PreparedTable {
            id: self.row.id.clone(),
            phase: self.row.phase.clone(),
            version: self.row.version as i64,
            clocks: clocks_text(&self.row)?,
            events,
            finished: self.finished.as_ref().map(finished_row).transpose()?,
            rated: self.rated.clone(),
            now_ms,
            fence: fence.cloned(),
        })
    }
}

/// The ownership a cluster node claims for a table it writes: its node key and the table's
/// epoch when it took the table (see [`cluster`]). A fenced write is committed only while the
/// table row still holds this owner and epoch and the node's lease is unexpired, checked in the
/// write's own transaction; otherwise it fails with [`StoreError::Fenced`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The owner's node key (`cluster_nodes.node`).
    pub node: String,
    /// The table's `owner_epoch` when the node took it.
    pub epoch: i64,
}

fn clocks_text(row: &TableRow) -> Result<Option<String>, StoreError> {
    Ok(row.clocks.as_ref().map(serde_json::to_string).transpose()?)
}

fn finished_row(game: &FinishedGame) -> Result<FinishedRow, StoreError> {
    Ok(FinishedRow {
        table_id: game.id.clone(),
        ended_ms: game.ended_ms,
        reason: game.outcome.reason.as_str(),
        summary: serde_json::to_string(game)?,
        variant: game.options.variant.as_str(),
        players: finished_players(game),
    })
}

/// The ids of the persons seated in a finished game, each once, in seat order.
fn finished_players(game: &FinishedGame) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for seat in game.seats.iter().flatten() {
        if let crate::protocol::SeatPlayer::Person { id, .. } = seat {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
    ids
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
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            statement_timeout: Duration::from_secs(5),
            acquire_timeout: Duration::from_secs(5),
            session_lifetime: Duration::from_secs(30 * 24 * 3600),
            cluster: false,
        }
    }
}

/// A tokio runtime of its own, on a thread of its own, whose timers run on the wall clock:
/// the store's time limits must not fire early when a test pauses the server's clock (a paused
/// clock jumps to the next timer whenever the runtime waits, a database answer too).
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
/// wall-clock time (without a timer thread, `work` runs without a limit).
pub(crate) async fn within<T>(
    limit: Duration,
    work: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let Some(timers) = wall_timers() else {
        return work.await;
    };
    let (fire, fired) = oneshot::channel::<()>();
    let timer = timers.spawn(async move {
        tokio::time::sleep(limit).await;
        let _ = fire.send(());
    });
    tokio::pin!(work);
    let result = tokio::select! {
        result = &mut work => result,
        Ok(()) = fired => Err(StoreError::Timeout(limit)),
    };
    timer.abort();
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

/// The connection that holds a PostgreSQL store's advisory lock, and whether the store was
/// closed (after which the lock is not taken again).
#[derive(Debug, Default)]
struct LockSlot {
    conn: Option<AnyConnection>,
    closed: bool,
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

/// The first key of chuhe's PostgreSQL advisory lock (`chuh` in ASCII); the second is the
/// hash of the schema, so that servers on different schemas of one database do not exclude
/// each other.
const ADVISORY_LOCK_KEY: i32 = 0x6368_7568;

/// The first key of the PostgreSQL advisory lock held while a starting server migrates the
/// schema and indexes the names (`chui` in ASCII), so that nodes starting together take turns.
const STARTUP_LOCK_KEY: i32 = 0x6368_7569;

/// The statements that set a new connection's time limit: PostgreSQL's `statement_timeout`,
/// SQLite's `busy_timeout`, in milliseconds.
fn timeout_statement(is_sqlite: bool, limit: Duration) -> String {
    let ms = limit.as_millis().clamp(1, i32::MAX as u128);
    if is_sqlite {
        format!("PRAGMA busy_timeout = {ms}")
    } else {
        format!("SET statement_timeout = {ms}")
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
    /// [`StoreError::InUse`] when another server holds the PostgreSQL database.
    pub async fn connect_with(url: &str, options: StoreOptions) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let is_sqlite = url.starts_with("sqlite:");
        if !is_sqlite && !url.starts_with("postgres:") && !url.starts_with("postgresql:") {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        }
        let open_error = |source| StoreError::Open {
            url: url.to_owned(),
            source,
        };
        if is_sqlite && options.cluster {
            return Err(StoreError::NotClustered);
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
        let migrator = Migrator::new(Embedded).await?;
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
            index_name_skeletons(conn).await
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
                    conn.execute(setup.as_str()).await?;
                    Ok(())
                })
            })
            .connect(&normalize_url(url))
            .await
            .map_err(open_error)?;
        let checkpointer = if is_sqlite && !url.contains(":memory:") {
            Some(
                checkpoint::Checkpointer::start(&normalize_url(url))
                    .map_err(|e| open_error(sqlx::Error::Io(e)))?,
            )
        } else {
            None
        };
        let (lost, _) = tokio::sync::watch::channel(None);
        let lost = Arc::new(lost);
        writer.fence(epoch, lost.clone());
        let (jobs, received) = mpsc::channel(writer::MAX_GROUP * 4);
        tokio::spawn(writer::run(writer, received));
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

    /// Checks the session that holds the advisory lock every [`LOCK_CHECK_EVERY`] (timed on the
    /// wall clock, the check itself on the current runtime, where the connection lives); when
    /// it has ended, takes the lock again on a new connection, or reports the store lost when
    /// another server holds it or the writer epoch (`epoch`, a single server's) moved on.
    fn watch_lock(&self, url: String, epoch: Option<i64>) {
        let Some(timers) = wall_timers() else {
            tracing::warn!("no timer thread: the database lock is not watched");
            return;
        };
        let (tick, mut ticks) = mpsc::channel::<()>(1);
        let weak = self.jobs.downgrade();
        timers.spawn(async move {
            loop {
                tokio::time::sleep(LOCK_CHECK_EVERY).await;
                // Ends with the store's writer (every store dropped) or the watcher.
                if weak.upgrade().is_none() || tick.send(()).await.is_err() {
                    break;
                }
            }
        });
        let lock = self.lock.clone();
        let lost = self.lost.clone();
        let options = self.options;
        tokio::spawn(async move {
            while ticks.recv().await.is_some() {
                let mut held = lock.lock().await;
                if held.closed || lost.borrow().is_some() {
                    break;
                }
                if let Some(conn) = held.conn.as_mut() {
                    let alive = within(options.statement_timeout, async {
                        sqlx::query("SELECT 1").execute(&mut *conn).await?;
                        Ok(())
                    })
                    .await;
                    match alive {
                        Ok(()) => continue,
                        Err(e) => {
                            tracing::error!(
                                error = %e,
                                "the PostgreSQL session that holds this server's advisory lock \
                                 has ended: taking the lock again"
                            );
                            held.conn = None;
                        }
                    }
                }
                match retake_lock(&url, options, epoch).await {
                    Ok(conn) => {
                        tracing::warn!("the database's advisory lock is held again");
                        held.conn = Some(conn);
                    }
                    Err(StoreError::Superseded(why)) => {
                        tracing::error!("{why}");
                        lost.send_replace(Some(why));
                        break;
                    }
                    // The database is away: the writes fail meanwhile; try at the next tick.
                    Err(e) => tracing::warn!(error = %e, "cannot take the database's lock yet"),
                }
            }
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

    /// Removes the sessions not used for [`StoreOptions::session_lifetime`] and the guests
    /// older than that with no session left; returns how many rows went.
    ///
    /// # Errors
    /// A database failure.
    pub async fn cleanup(&self) -> Result<u64, StoreError> {
        self.write_single(cleanup_job(self.options.session_lifetime))
            .await
    }

    /// The thinking time a kill -9 left uncharged on a table: from the table row's last write
    /// to the last `alive_ms` the previous server recorded (zero after a clean stop, which
    /// saves the clocks itself and leaves `alive_ms` at 0).
    ///
    /// # Errors
    /// A database failure.
    pub async fn uncharged_since_last_write(&self, table_id: &str) -> Result<Duration, StoreError> {
        if self.previous_alive_ms <= 0 {
            return Ok(Duration::ZERO);
        }
        let row = self
            .timed(async {
                Ok(
                    sqlx::query("SELECT updated_ms FROM game_tables WHERE id = $1")
                        .bind(table_id)
                        .fetch_optional(&self.pool)
                        .await?,
                )
            })
            .await?;
        let updated_ms: i64 = match row {
            Some(r) => r.try_get("updated_ms")?,
            None => return Ok(Duration::ZERO),
        };
        let ms = self.previous_alive_ms.saturating_sub(updated_ms).max(0);
        Ok(Duration::from_millis(ms as u64))
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
        if let Some(conn) = conn {
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
        let prepared = write.prepare(now_ms(), fence)?;
        let (answer, answered) = oneshot::channel();
        self.timed(async {
            self.jobs
                .send(Job::Table(prepared, answer))
                .await
                .map_err(|_| StoreError::WriterStopped)?;
            answered.await.map_err(|_| StoreError::WriterStopped)?
        })
        .await
    }

    /// Hands an ungrouped write to the writer and waits for the rows it affected.
    async fn write_single(&self, single: Single) -> Result<u64, StoreError> {
        send_single(&self.jobs, self.options.statement_timeout, single).await
    }

    /// Creates a player (a guest when `password_hash` is `None`).
    ///
    /// # Errors
    /// [`StoreError::NameTaken`] when an account of that name exists.
    pub async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        self.write_single(Single::Player {
            id: player.id.clone(),
            name: player.name.clone(),
            skeleton: crate::accounts::names::skeleton_key(&player.name),
            password_hash: player.password_hash.clone(),
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    fn player_of(row: &AnyRow) -> Result<PlayerRow, sqlx::Error> {
        Ok(PlayerRow {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            password_hash: row.try_get("password_hash")?,
        })
    }

    /// The account holder named `name`.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<PlayerRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, name, password_hash FROM players \
             WHERE name = $1 AND password_hash IS NOT NULL",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(Self::player_of).transpose()?)
    }

    /// Records a session for a player, by the digest of its token.
    pub async fn create_session(&self, token: &str, player_id: &str) -> Result<(), StoreError> {
        self.write_single(Single::Session {
            token: token.to_owned(),
            player_id: player_id.to_owned(),
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    /// Ends a session, by the digest of its token; returns whether one existed.
    pub async fn delete_session(&self, token: &str) -> Result<bool, StoreError> {
        let gone = self
            .write_single(Single::EndSession {
                token: token.to_owned(),
            })
            .await?;
        Ok(gone > 0)
    }

    /// The player behind a session, by the digest of its token, when the session was used
    /// within [`StoreOptions::session_lifetime`]; a use more than an hour (or half the
    /// lifetime) after the last recorded one is recorded, so the expiry slides.
    pub async fn player_by_session(&self, token: &str) -> Result<Option<PlayerRow>, StoreError> {
        let now = now_ms();
        let lifetime = i64::try_from(self.options.session_lifetime.as_millis()).unwrap_or(i64::MAX);
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT p.id, p.name, p.password_hash, s.last_used_ms FROM sessions s \
                     JOIN players p ON p.id = s.player_id \
                     WHERE s.token = $1 AND s.last_used_ms >= $2",
                )
                .bind(token)
                .bind(now.saturating_sub(lifetime))
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let last_used: i64 = row.try_get("last_used_ms")?;
        if now - last_used > (lifetime / 2).min(3_600_000) {
            // Not awaited: the request does not wait for the record of its own use.
            let (answer, _) = oneshot::channel();
            let _ = self.jobs.try_send(Job::Single(
                Single::TouchSession {
                    token: token.to_owned(),
                    now_ms: now,
                },
                answer,
            ));
        }
        Ok(Some(Self::player_of(&row)?))
    }

    /// The account holder whose name has the skeleton key of `name`
    /// ([`crate::accounts::names::skeleton_key`]): the same name, or one that reads the same.
    pub async fn account_by_skeleton(&self, name: &str) -> Result<Option<PlayerRow>, StoreError> {
        let key = crate::accounts::names::skeleton_key(name);
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT id, name, password_hash FROM players \
                     WHERE skeleton = $1 AND password_hash IS NOT NULL",
                )
                .bind(key)
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        Ok(row.as_ref().map(Self::player_of).transpose()?)
    }

    /// Creates a table with its first event (version `row.version`), in one transaction (the
    /// row's `created_ms` is stored as given).
    pub async fn create_table(
        &self,
        row: &TableRow,
        first_event: &Event,
    ) -> Result<(), StoreError> {
        self.create_table_owned(row, first_event, None).await
    }

    /// As [`Store::create_table`], owned by the cluster node `owner` (epoch 1) when given.
    ///
    /// # Errors
    /// A database failure.
    pub async fn create_table_owned(
        &self,
        row: &TableRow,
        first_event: &Event,
        owner: Option<&str>,
    ) -> Result<(), StoreError> {
        self.write_single(Single::CreateTable {
            owner: owner.map(str::to_owned),
            id: row.id.clone(),
            variant: row.options.variant.as_str(),
            options: serde_json::to_string(&row.options)?,
            phase: row.phase.clone(),
            version: row.version as i64,
            clocks: clocks_text(row)?,
            secret: row.secret.clone(),
            created_ms: row.created_ms,
            first_event: serde_json::to_string(first_event)?,
        })
        .await?;
        Ok(())
    }

    /// A player's ratings, one per variant played, sorted by variant.
    pub async fn ratings(&self, player_id: &str) -> Result<Vec<RatingRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT player_id, variant, rating, deviation, volatility, games FROM ratings \
             WHERE player_id = $1 ORDER BY variant",
        )
        .bind(player_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RatingRow {
                    player_id: r.try_get("player_id")?,
                    variant: r.try_get("variant")?,
                    rating: crate::accounts::rating::Rating {
                        rating: r.try_get("rating")?,
                        deviation: r.try_get("deviation")?,
                        volatility: r.try_get("volatility")?,
                    },
                    games: r.try_get::<i64, _>("games")?.max(0) as u64,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// A player's rating in one variant (the default for a first game) and games played.
    pub async fn rating(&self, player_id: &str, variant: &str) -> Result<RatingRow, StoreError> {
        Ok(self
            .ratings(player_id)
            .await?
            .into_iter()
            .find(|r| r.variant == variant)
            .unwrap_or_else(|| RatingRow {
                player_id: player_id.to_owned(),
                variant: variant.to_owned(),
                rating: crate::accounts::rating::Rating::default(),
                games: 0,
            }))
    }

    /// Adds the finished-game row of every ended table that has none (tables that ended
    /// before the `finished_games` migration), from its events; the end time is the row's last
    /// update. Returns how many were added.
    ///
    /// # Errors
    /// A database failure, or stored events that do not read.
    pub async fn add_missing_finished(&self) -> Result<usize, StoreError> {
        let rows = sqlx::query(
            "SELECT id, created_ms, updated_ms FROM game_tables g WHERE phase = 'ended' \
             AND NOT EXISTS (SELECT 1 FROM finished_games f WHERE f.table_id = g.id) \
             ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut added = 0;
        for r in &rows {
            let id: String = r.try_get("id")?;
            let created_ms: i64 = r.try_get("created_ms")?;
            let ended_ms: i64 = r.try_get("updated_ms")?;
            let events = self.event_log(&id).await?;
            let Some(game) = FinishedGame::from_events(&id, created_ms, ended_ms, &events) else {
                tracing::warn!(table = %id, "an ended table without an ended event");
                continue;
            };
            self.write_single(Single::Finished(finished_row(&game)?))
                .await?;
            added += 1;
        }
        Ok(added)
    }

    /// Adds the `game_players` rows of every finished game that has none (games finished
    /// before the `game_players` migration), from its stored summary. Returns how many games
    /// got them.
    ///
    /// # Errors
    /// A database failure, or a stored summary that does not read.
    pub async fn add_missing_players(&self) -> Result<usize, StoreError> {
        let rows = sqlx::query(
            "SELECT summary FROM finished_games f \
             WHERE NOT EXISTS (SELECT 1 FROM game_players p WHERE p.table_id = f.table_id) \
             ORDER BY table_id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut added = 0;
        for r in &rows {
            let text: String = r.try_get("summary")?;
            let game: FinishedGame = serde_json::from_str(&text)?;
            let row = finished_row(&game)?;
            if row.players.is_empty() {
                continue;
            }
            self.write_single(Single::FinishedPlayers(row)).await?;
            added += 1;
        }
        Ok(added)
    }

    /// Up to `limit` finished games (aborted ones left out), the most recently ended first;
    /// with `before` (a table id), only the games that ended before that one (ties in time by
    /// id, descending).
    ///
    /// # Errors
    /// [`StoreError::NoFinishedGame`] when `before` names no listed finished game; a database
    /// failure.
    pub async fn finished_games(
        &self,
        before: Option<&str>,
        limit: u32,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        let rows = match before {
            None => {
                sqlx::query(
                    "SELECT summary FROM finished_games WHERE reason <> 'aborted' \
                     ORDER BY ended_ms DESC, table_id DESC LIMIT $1",
                )
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
            Some(id) => {
                let cursor = sqlx::query(
                    "SELECT ended_ms FROM finished_games \
                     WHERE table_id = $1 AND reason <> 'aborted'",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
                let ended_ms: i64 = cursor.try_get("ended_ms")?;
                sqlx::query(
                    "SELECT summary FROM finished_games WHERE reason <> 'aborted' \
                     AND (ended_ms < $1 OR (ended_ms = $1 AND table_id < $2)) \
                     ORDER BY ended_ms DESC, table_id DESC LIMIT $3",
                )
                .bind(ended_ms)
                .bind(id)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
        };
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// Like [`Store::finished_games`], only the games that `player` (a player id) sat in and
    /// that were played in `variant` (its protocol word, `xiangqi`, `sanguo` or `banqi`), each
    /// filter when given. The filters match the stored summary's JSON text (`"kind":"person",
    /// "id":"…"` and `"options":{"variant":"…"`), so a filtered page reads the rows newest first
    /// until it has `limit` of them.
    ///
    /// # Errors
    /// [`StoreError::NoFinishedGame`] when `before` names no listed finished game; a database
    /// failure. The caller checks that `player` holds only id characters (no `%`, `_`, `"`).
    pub async fn finished_games_filtered(
        &self,
        before: Option<&str>,
        limit: u32,
        player: Option<&str>,
        variant: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        if let Some(p) = player {
            return self.finished_games_of(before, limit, p, variant).await;
        }
        let mut sql = String::from("SELECT summary FROM finished_games WHERE reason <> 'aborted'");
        let mut binds: Vec<String> = Vec::new();
        let mut cursor_ms = None;
        if let Some(id) = before {
            let cursor = sqlx::query(
                "SELECT ended_ms FROM finished_games WHERE table_id = $1 AND reason <> 'aborted'",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
            let ended_ms: i64 = cursor.try_get("ended_ms")?;
            sql.push_str(" AND (ended_ms < $1 OR (ended_ms = $1 AND table_id < $2))");
            cursor_ms = Some(ended_ms);
            binds.push(id.to_owned());
        }
        let mut n = if cursor_ms.is_some() { 3 } else { 1 };
        if let Some(p) = player {
            sql.push_str(&format!(" AND summary LIKE ${n}"));
            binds.push(format!("%\"kind\":\"person\",\"id\":\"{p}\"%"));
            n += 1;
        }
        if let Some(v) = variant {
            sql.push_str(&format!(" AND summary LIKE ${n}"));
            binds.push(format!("%\"options\":{{\"variant\":\"{v}\"%"));
            n += 1;
        }
        sql.push_str(&format!(
            " ORDER BY ended_ms DESC, table_id DESC LIMIT ${n}"
        ));
        let mut query = sqlx::query(&sql);
        if let Some(ms) = cursor_ms {
            query = query.bind(ms);
        }
        for b in &binds {
            query = query.bind(b.as_str());
        }
        let rows = query.bind(i64::from(limit)).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// [`Store::finished_games_filtered`] with a player: read through the `game_players`
    /// index, `(player_id, ended_ms, table_id)` or, with a variant,
    /// `(player_id, variant, ended_ms, table_id)`, newest first.
    async fn finished_games_of(
        &self,
        before: Option<&str>,
        limit: u32,
        player: &str,
        variant: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        let mut sql = String::from(
            "SELECT f.summary FROM game_players p JOIN finished_games f ON f.table_id = p.table_id \
             WHERE p.player_id = $1 AND f.reason <> 'aborted'",
        );
        let mut n = 2;
        if variant.is_some() {
            sql.push_str(&format!(" AND p.variant = ${n}"));
            n += 1;
        }
        let mut cursor = None;
        if let Some(id) = before {
            let row = sqlx::query(
                "SELECT ended_ms FROM finished_games WHERE table_id = $1 AND reason <> 'aborted'",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
            let ended_ms: i64 = row.try_get("ended_ms")?;
            sql.push_str(&format!(
                " AND (p.ended_ms < ${n} OR (p.ended_ms = ${n} AND p.table_id < ${}))",
                n + 1
            ));
            n += 2;
            cursor = Some((ended_ms, id));
        }
        sql.push_str(&format!(
            " ORDER BY p.ended_ms DESC, p.table_id DESC LIMIT ${n}"
        ));
        let mut query = sqlx::query(&sql).bind(player);
        if let Some(v) = variant {
            query = query.bind(v);
        }
        if let Some((ms, id)) = cursor {
            query = query.bind(ms).bind(id);
        }
        let rows = query.bind(i64::from(limit)).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// The query plan of [`Store::finished_games_filtered`] for a player (and a variant when
    /// given), as the database explains it, one line per step: to check that it reads the
    /// `game_players` index (on PostgreSQL with sequential scans discouraged, as for a table
    /// too big to read whole).
    ///
    /// # Errors
    /// A database failure.
    pub async fn explain_player_filter(&self, variant: bool) -> Result<String, StoreError> {
        let filter = if variant {
            " AND p.variant = 'xiangqi'"
        } else {
            ""
        };
        let select = format!(
            "SELECT f.summary FROM game_players p JOIN finished_games f ON f.table_id = p.table_id \
             WHERE p.player_id = 'x' AND f.reason <> 'aborted'{filter} \
             ORDER BY p.ended_ms DESC, p.table_id DESC LIMIT 20"
        );
        let mut conn = self.pool.acquire().await?;
        let sqlite = conn.backend_name() == "SQLite";
        let sql = if sqlite {
            format!("EXPLAIN QUERY PLAN {select}")
        } else {
            // a small table is read whole when that is cheaper: ask for the plan of a big one
            conn.execute("SET enable_seqscan = off").await?;
            format!("EXPLAIN {select}")
        };
        let rows = sqlx::query(&sql).fetch_all(&mut *conn).await?;
        let mut lines = Vec::new();
        for r in &rows {
            let line: String = if sqlite {
                r.try_get("detail")?
            } else {
                r.try_get(0)?
            };
            lines.push(line);
        }
        if !sqlite {
            conn.execute("RESET enable_seqscan").await?;
        }
        Ok(lines.join("\n"))
    }

    /// Records that a table's clocks could not be saved at shutdown: the stop is not clean,
    /// and the next start charges the thinking time up to the last `alive_ms`.
    pub(crate) fn mark_unsaved(&self) {
        self.unsaved
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Saves the table row alone (the clock snapshot at shutdown), as a [`TableWrite`] without
    /// events; a failure marks the stop as not clean (see [`Store::close`]).
    pub async fn save_row(&self, row: &TableRow) -> Result<(), StoreError> {
        self.save_row_fenced(row, None).await
    }

    /// As [`Store::save_row`], checked against `fence` when given.
    ///
    /// # Errors
    /// As [`Store::write_fenced`].
    pub async fn save_row_fenced(
        &self,
        row: &TableRow,
        fence: Option<&Fence>,
    ) -> Result<(), StoreError> {
        let result = self
            .write_fenced(
                &TableWrite {
                    row: row.clone(),
                    events: Vec::new(),
                    rated: None,
                    finished: None,
                },
                fence,
            )
            .await;
        if result.is_err() {
            self.mark_unsaved();
        }
        result
    }

    fn table_of(row: &AnyRow) -> Result<TableRow, StoreError> {
        let options: String = row.try_get("options")?;
        let clocks: Option<String> = row.try_get("clocks")?;
        Ok(TableRow {
            id: row.try_get("id")?,
            options: serde_json::from_str(&options)?,
            phase: row.try_get("phase")?,
            version: row.try_get::<i64, _>("version")?.max(0) as u64,
            clocks: clocks.as_deref().map(serde_json::from_str).transpose()?,
            secret: row.try_get("secret")?,
            created_ms: row.try_get("created_ms")?,
        })
    }

    /// One table row.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, options, phase, version, clocks, secret, created_ms \
             FROM game_tables WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::table_of).transpose()
    }

    /// The ids of the tables that are open or running (to bring back at start-up).
    pub async fn live_table_ids(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM game_tables WHERE phase <> 'ended' ORDER BY created_ms, id",
        )
        .fetch_all(&self.pool)
        .await?;
        texts(&rows, "id")
    }

    /// Every event of a table with its version, in version order (none for an unknown table).
    ///
    /// # Errors
    /// A database failure, or a stored event that does not read.
    pub async fn events(&self, table_id: &str) -> Result<Vec<(u64, Event)>, StoreError> {
        let rows = sqlx::query(
            "SELECT version, body FROM table_events WHERE table_id = $1 ORDER BY version",
        )
        .bind(table_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let body: String = r.try_get("body")?;
                Ok((
                    r.try_get::<i64, _>("version")?.max(0) as u64,
                    serde_json::from_str(&body)?,
                ))
            })
            .collect()
    }

    /// Every event of a table in version order, without the versions (none for an unknown
    /// table).
    ///
    /// # Errors
    /// As [`Store::events`].
    pub async fn event_log(&self, table_id: &str) -> Result<Vec<Event>, StoreError> {
        Ok(self
            .events(table_id)
            .await?
            .into_iter()
            .map(|(_, event)| event)
            .collect())
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
    within(limit, async {
        jobs.send(Job::Single(single, answer))
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        answered.await.map_err(|_| StoreError::WriterStopped)?
    })
    .await
}

/// The cleanup of the sessions unused for `lifetime`, and of the guests older than that
/// without a session.
fn cleanup_job(lifetime: Duration) -> Single {
    let lifetime = i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX);
    Single::Cleanup {
        cutoff_ms: now_ms().saturating_sub(lifetime),
    }
}

/// Fills the skeleton key of the accounts that have none (accounts made before the key was
/// stored), oldest first; an account whose key an older account holds keeps its name but gets
/// no key. Then makes the unique index of the accounts' keys (once).
///
/// # Errors
/// A database failure.
async fn index_name_skeletons(conn: &mut AnyConnection) -> Result<(), StoreError> {
    let rows = sqlx::query(
        "SELECT id, name FROM players WHERE password_hash IS NOT NULL AND skeleton IS NULL \
         ORDER BY created_ms, id",
    )
    .fetch_all(&mut *conn)
    .await?;
    if !rows.is_empty() {
        let mut tx = conn.begin().await?;
        let mut keyed = 0;
        for r in &rows {
            let id: String = r.try_get("id")?;
            let name: String = r.try_get("name")?;
            let key = crate::accounts::names::skeleton_key(&name);
            let taken = sqlx::query(
                "SELECT id FROM players WHERE skeleton = $1 AND password_hash IS NOT NULL",
            )
            .bind(key.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            if taken.is_some() {
                tracing::warn!(player = %id, name = %name, "an account's name reads as an older account's: it keeps its name without reserving it");
                continue;
            }
            sqlx::query("UPDATE players SET skeleton = $1 WHERE id = $2")
                .bind(key.as_str())
                .bind(id.as_str())
                .execute(&mut *tx)
                .await?;
            keyed += 1;
        }
        tx.commit().await?;
        tracing::info!(accounts = keyed, "account names reserved by their skeleton");
    }
    conn.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS players_account_skeleton ON players (skeleton) \
         WHERE password_hash IS NOT NULL",
    )
    .await?;
    Ok(())
}

/// Takes chuhe's advisory lock of the PostgreSQL database at `url` (for its current schema) on
/// a new connection, and returns that connection: the lock lasts as long as it stays open.
///
/// # Errors
/// [`StoreError::InUse`] when another session holds the lock; a failed connection.
async fn take_advisory_lock(url: &str, options: StoreOptions) -> Result<AnyConnection, StoreError> {
    let open_error = |source| StoreError::Open {
        url: url.to_owned(),
        source,
    };
    let connect_options: sqlx::any::AnyConnectOptions = url.parse().map_err(open_error)?;
    let mut conn = within(options.acquire_timeout, async {
        connect_options.connect().await.map_err(open_error)
    })
    .await?;
    // Cluster nodes share the lock; a single server holds it alone.
    let sql = if options.cluster {
        "SELECT pg_try_advisory_lock_shared($1, hashtext(current_schema())) AS locked, \
         current_database()::text AS db, current_schema()::text AS schema"
    } else {
        "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS locked, \
         current_database()::text AS db, current_schema()::text AS schema"
    };
    let row = within(options.statement_timeout, async {
        Ok(sqlx::query(sql)
            .bind(ADVISORY_LOCK_KEY)
            .fetch_one(&mut conn)
            .await?)
    })
    .await?;
    let locked: bool = row.try_get("locked")?;
    if !locked {
        let db: String = row.try_get("db")?;
        let schema: String = row.try_get("schema")?;
        let _ = conn.close().await;
        let holder = if options.cluster {
            "a chuhe serve that is not a cluster node (without --nats)"
        } else {
            "another chuhe serve or the nodes of a cluster"
        };
        return Err(StoreError::InUse(format!(
            "the database {db:?} (schema {schema:?}) is in use by {holder} \
             (it holds PostgreSQL advisory lock ({ADVISORY_LOCK_KEY}, hashtext({schema:?})))"
        )));
    }
    Ok(conn)
}

/// Takes the writer epoch of a single server on PostgreSQL: raises `server_state.writer_epoch`
/// by one and returns it, in a transaction that refuses to start while a cluster node's lease
/// runs (its registration raises the epoch too: see [`cluster`]).
///
/// # Errors
/// [`StoreError::InUse`] while cluster nodes run on the database; a database failure.
async fn claim_writer_epoch(conn: &mut AnyConnection) -> Result<i64, StoreError> {
    sqlx::query(
        "INSERT INTO server_state (name, value) VALUES ('writer_epoch', 0) \
         ON CONFLICT (name) DO NOTHING",
    )
    .execute(&mut *conn)
    .await?;
    let mut tx = conn.begin().await?;
    let epoch: i64 = sqlx::query(
        "UPDATE server_state SET value = value + 1 WHERE name = 'writer_epoch' RETURNING value",
    )
    .fetch_one(&mut *tx)
    .await?
    .try_get("value")?;
    let live: i64 = sqlx::query(&format!(
        "SELECT COUNT(*) AS n FROM cluster_nodes WHERE lease_until_ms > {}",
        cluster::DB_NOW_MS
    ))
    .fetch_one(&mut *tx)
    .await?
    .try_get("n")?;
    if live > 0 {
        tx.rollback().await?;
        return Err(StoreError::InUse(format!(
            "the database is in use by the nodes of a cluster ({live} live node leases): \
             start this server with --nats, or stop the nodes first"
        )));
    }
    tx.commit().await?;
    Ok(epoch)
}

/// Takes the advisory lock again after its session ended: on a new connection, and for a
/// single server only while the writer epoch is still `epoch` (nobody started on the database
/// meanwhile).
///
/// # Errors
/// [`StoreError::Superseded`] when another server holds the lock or took the epoch; a failed
/// connection (the database is away: try again later).
async fn retake_lock(
    url: &str,
    options: StoreOptions,
    epoch: Option<i64>,
) -> Result<AnyConnection, StoreError> {
    let mut conn = match take_advisory_lock(url, options).await {
        Ok(conn) => conn,
        Err(StoreError::InUse(holder)) => {
            return Err(StoreError::Superseded(format!(
                "this server lost the database: its advisory lock ended and {holder}; \
                 stopping (nothing more is written from here)"
            )))
        }
        Err(e) => return Err(e),
    };
    if let Some(mine) = epoch {
        let now: i64 = within(options.statement_timeout, async {
            Ok(
                sqlx::query("SELECT value FROM server_state WHERE name = 'writer_epoch'")
                    .fetch_one(&mut conn)
                    .await?
                    .try_get("value")?,
            )
        })
        .await?;
        if now != mine {
            let _ = conn.close().await;
            return Err(StoreError::Superseded(superseded(mine, now)));
        }
    }
    Ok(conn)
}

/// What a server that lost its database says: its writer epoch and the one found.
pub(crate) fn superseded(mine: i64, found: i64) -> String {
    format!(
        "this server lost the database: another chuhe serve or a cluster node started on it \
         after this server's advisory lock ended (writer epoch {found}, this server's {mine}); \
         stopping (nothing more is written from here)"
    )
}

/// The version of the first of `count` events whose last one is `last` (versions count from 1).
fn first_version(last: u64, count: usize) -> Result<u64, StoreError> {
    (last + 1)
        .checked_sub(count as u64)
        .filter(|&first| first >= 1)
        .ok_or(StoreError::EventVersions { count, last })
}

#[cfg(test)]
mod tests {
    use super::{first_version, normalize_url, now_ms, Store, TableRow, TableWrite};
    use crate::protocol::{Event, TableOptions};
    use crate::table::clock::ClockSnapshot;
    use sqlx::Row;

    const OPTIONS: &str = r#"{"variant":"xiangqi","time":null,"rated":true,"no_capture_limit":60,"flag_bearers":null}"#;
    const STARTED: &str = r#"{"kind":"started"}"#;
    const MOVED: &str =
        r#"{"kind":"moved","seat":0,"move":"h2e2","ply":1,"clocks_ms":[299000,300000]}"#;
    const CLOCKS: &str = r#"{"remaining_ms":[299000,300000],"quota_ms":[2000,1500]}"#;

    /// The writer never checkpoints (`wal_autocheckpoint = 0`): the schema and the first table
    /// reach the database file only through the checkpoint thread, within seconds, while the
    /// store is open (closing the last connection would checkpoint too, so it stays open).
    #[tokio::test]
    async fn the_checkpoint_thread_copies_the_log_into_the_database_file() {
        let path = std::env::temp_dir().join(format!(
            "chuhe-checkpoint-test-{}-{}.db",
            std::process::id(),
            now_ms()
        ));
        let store = Store::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
        let row = TableRow {
            id: "t1".to_owned(),
            options: options.clone(),
            phase: "open".to_owned(),
            version: 1,
            clocks: None,
            secret: None,
            created_ms: 5,
        };
        store
            .create_table(&row, &Event::Created { options })
            .await
            .unwrap();
        assert!(
            store.checkpointer.lock().unwrap().is_some(),
            "a SQLite file has a checkpoint thread"
        );
        // The pages of the schema and the row, copied by a passive checkpoint (SQLite's own
        // would wait for 1,000 pages of log).
        let mut copied = 0;
        for _ in 0..100 {
            copied = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if copied >= 4 * 4096 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(copied >= 4 * 4096, "the database file holds {copied} bytes");
        let listed: i64 = sqlx::query("SELECT COUNT(*) AS n FROM game_tables")
            .fetch_one(&store.pool)
            .await
            .unwrap()
            .get("n");
        assert_eq!(listed, 1);
        store.close().await;
        let _ = std::fs::remove_file(&path);
    }

    /// The texts in the database are the ones the callers wrote before the store took typed
    /// values, and they read back as the values that were written.
    #[tokio::test]
    async fn typed_values_round_trip_through_the_same_texts() {
        let path = std::env::temp_dir().join(format!(
            "chuhe-store-test-{}-{}.db",
            std::process::id(),
            now_ms()
        ));
        let store = Store::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
        let created = Event::Created {
            options: options.clone(),
        };
        let mut row = TableRow {
            id: "t1".to_owned(),
            options,
            phase: "open".to_owned(),
            version: 1,
            clocks: None,
            secret: None,
            created_ms: 5,
        };
        store.create_table(&row, &created).await.unwrap();
        let later: Vec<Event> = [STARTED, MOVED]
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        row.phase = "running".to_owned();
        row.version = 3;
        row.clocks = Some(serde_json::from_str::<ClockSnapshot>(CLOCKS).unwrap());
        store
            .write(&TableWrite {
                row: row.clone(),
                events: later.clone(),
                rated: None,
                finished: None,
            })
            .await
            .unwrap();

        let bodies: Vec<(i64, String)> = sqlx::query(
            "SELECT version, body FROM table_events WHERE table_id = $1 ORDER BY version",
        )
        .bind("t1")
        .fetch_all(&store.pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("version"), r.get("body")))
        .collect();
        let expected = [
            format!(r#"{{"kind":"created","options":{OPTIONS}}}"#),
            STARTED.to_owned(),
            MOVED.to_owned(),
        ];
        assert_eq!(bodies, (1..).zip(expected).collect::<Vec<(i64, String)>>());
        let stored = sqlx::query("SELECT variant, options, clocks FROM game_tables WHERE id = $1")
            .bind("t1")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(stored.get::<String, _>("variant"), "xiangqi");
        assert_eq!(stored.get::<String, _>("options"), OPTIONS);
        assert_eq!(
            stored.get::<Option<String>, _>("clocks").as_deref(),
            Some(CLOCKS)
        );

        assert_eq!(store.table("t1").await.unwrap(), Some(row));
        let mut all = vec![created];
        all.extend(later);
        assert_eq!(store.event_log("t1").await.unwrap(), all);
        assert_eq!(
            store
                .events("t1")
                .await
                .unwrap()
                .iter()
                .map(|(v, _)| *v)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        store.close().await;
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn appended_events_end_at_the_row_version() {
        assert_eq!(first_version(3, 2).ok(), Some(2));
        assert_eq!(first_version(3, 0).ok(), Some(4));
        assert!(first_version(1, 2).is_err());
    }

    #[test]
    fn sqlite_urls_get_create_mode() {
        assert_eq!(
            normalize_url("sqlite://chuhe.db"),
            "sqlite://chuhe.db?mode=rwc"
        );
        assert_eq!(
            normalize_url("sqlite://a.db?cache=shared"),
            "sqlite://a.db?cache=shared&mode=rwc"
        );
        assert_eq!(
            normalize_url("sqlite://a.db?mode=ro"),
            "sqlite://a.db?mode=ro"
        );
        assert_eq!(normalize_url("postgres://x/y"), "postgres://x/y");
    }
}
