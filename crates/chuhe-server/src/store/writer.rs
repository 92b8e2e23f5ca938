//! The store's writer: one task per store, the only user of the store's one write connection.
//! Callers hand it jobs through a channel, each with a oneshot for its result; it takes every
//! job that is pending (up to [`MAX_GROUP`]) and commits them in one transaction (the other
//! writes first, then the table writes with multi-row statements), then answers each caller.
//! When that transaction fails, it writes the same jobs again one by one, each in a
//! transaction of its own, so that only the faulty one gets an error.
//!
//! Each statement sent through sqlx's SQLite connection is a trip to that connection's thread
//! and back (two thread wake-ups, which cost more than the statements). A group of moves only
//! (no new table, player or session, no finished game, no rating) therefore goes on SQLite in
//! two trips: `BEGIN IMMEDIATE`, then its statements and `COMMIT` as one text
//! ([`write_moves`]); every other group, and every group on PostgreSQL, goes statement by
//! statement in a `sqlx` transaction.
//!
//! A failed transaction may still have committed (the connection cut after `COMMIT` was sent,
//! a time limit reached while the answer was on its way): before a write is tried again, and
//! after it failed again, the writer asks the store whether it landed. A table write with
//! events landed when the table row holds its version (events and row are written in one
//! transaction, and the events' primary key is `(table_id, version)`); a new player, session,
//! table or finished game when its row exists. A write that landed is answered `Ok`, so a
//! retry never meets the primary key of its own events.
//!
//! Each failed attempt is classified ([`Doubt`]): one that failed before `COMMIT` was sent
//! wrote nothing; one that failed at `COMMIT` or after may have committed. The caller gets the
//! error only when nothing of the write can be stored; a write that may be stored and that no
//! check found stored is answered [`StoreError::InDoubt`] (the client is told `in_doubt`, never
//! that its move was refused), and the table actor settles the question from the store before
//! its next action (`table/actor/commit.rs`).

mod sql;

use super::{injected, within, Fault, Faults, StoreError, IDLE_PING_AFTER};
use sql::{run_single, write_tables};
use sqlx::any::AnyConnectOptions;
use sqlx::{Any, AnyConnection, ConnectOptions, Connection, Executor, Row, Transaction};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// At most this many jobs are committed in one transaction.
pub(super) const MAX_GROUP: usize = 256;

/// At most this many rows in one multi-row statement (4 or 5 parameters each: far below
/// SQLite's 32,766 and PostgreSQL's 65,535 parameters per statement).
const ROWS_PER_STATEMENT: usize = 200;

/// A finished-game row, ready to bind.
#[derive(Debug)]
pub(super) struct FinishedRow {
    pub(super) table_id: String,
    pub(super) ended_ms: i64,
    pub(super) reason: &'static str,
    pub(super) summary: String,
    /// The variant word (`game_players.variant`).
    pub(super) variant: &'static str,
    /// The persons who played it (`game_players`), each once.
    pub(super) players: Vec<String>,
}

/// One table write with its JSON texts made (by the caller, so the writer only runs SQL).
#[derive(Debug)]
pub(super) struct PreparedTable {
    pub(super) id: String,
    pub(super) phase: String,
    pub(super) version: i64,
    pub(super) clocks: Option<String>,
    /// `(version, body)` in version order, the last at `version`.
    pub(super) events: Vec<(i64, String)>,
    pub(super) finished: Option<FinishedRow>,
    /// The result to rate (the new ratings are computed in the transaction).
    pub(super) rated: Option<super::RatedGame>,
    /// When it was handed over, milliseconds since the Unix epoch.
    pub(super) now_ms: i64,
    /// A cluster node's ownership, checked in the transaction (see `super::Fence`).
    pub(super) fence: Option<super::Fence>,
}

/// A write other than a table's: in the group's transaction, before the table writes, in the
/// order received.
#[derive(Debug)]
pub(super) enum Single {
    /// A new table row (every column bound, in the order of the `INSERT`) and its first event.
    CreateTable {
        /// The cluster node that owns the new table (epoch 1), if any.
        owner: Option<String>,
        id: String,
        variant: &'static str,
        options: String,
        phase: String,
        version: i64,
        clocks: Option<String>,
        secret: Option<String>,
        created_ms: i64,
        first_event: String,
    },
    /// A player; refused when an account holds its name, or a name of the same skeleton key
    /// (`crate::accounts::names::skeleton_key`).
    Player {
        id: String,
        name: String,
        skeleton: String,
        password_hash: Option<String>,
        now_ms: i64,
    },
    /// A session by the digest of its token.
    Session {
        token: String,
        player_id: String,
        now_ms: i64,
    },
    /// The end of a session; answers how many rows went.
    EndSession { token: String },
    /// A session used at `now_ms` (its expiry slides).
    TouchSession { token: String, now_ms: i64 },
    /// Removes the sessions last used before `cutoff_ms` and the guests created before it that
    /// have no session left; answers how many rows went.
    Cleanup { cutoff_ms: i64 },
    /// The server's `alive_ms` (0 after a clean stop).
    Alive { now_ms: i64 },
    /// A personal API token, by the digest of its text; refused when the account holds
    /// `super::tokens::MAX_TOKENS_PER_ACCOUNT` live tokens.
    CreateToken {
        id: String,
        digest: String,
        player_id: String,
        description: String,
        scopes: String,
        now_ms: i64,
    },
    /// Revokes a token of an account; answers 1, or 0 when it has no such live token.
    RevokeToken {
        id: String,
        player_id: String,
        now_ms: i64,
    },
    /// A token used at `now_ms`.
    TouchToken { digest: String, now_ms: i64 },
    /// Makes an account a bot when it has no finished game; answers 1, or 0 when refused.
    MakeBot { player_id: String },
    /// A finished-game row added after the fact.
    Finished(FinishedRow),
    /// The `game_players` rows of a finished game stored before them.
    FinishedPlayers(FinishedRow),
    /// A new tournament; refused when its creator made
    /// `super::tournaments::MAX_TOURNAMENTS_PER_DAY` since `since_ms`.
    CreateTournament {
        row: Box<super::tournaments::TournamentRow>,
        /// The start of the creator's day for the daily limit; `None`: no limit, and a row of
        /// the same id already stored is kept (answers 0: a scheduled event made before).
        since_ms: Option<i64>,
    },
    /// A tournament's status and state at `version` (over an older version only), and the
    /// tables of its new games (`(game number, table id)`, kept when already stored).
    SaveTournament {
        id: String,
        status: String,
        state: String,
        version: i64,
        games: Vec<(i64, String)>,
        /// The ids of `tournament_requests` whose effect this state holds: removed in the
        /// same transaction (nothing is removed when the fence refuses the save).
        settled: Vec<String>,
        now_ms: i64,
        /// On a cluster, the owner's node key and epoch: nothing is written unless the row
        /// still names them and the node's lease runs (answers 0).
        fence: Option<(String, i64)>,
    },
    /// Removes requests of `tournament_requests` of the tournament `id` that changed nothing
    /// (refused, or already in effect); answers how many were removed.
    DropTournamentRequests { id: String, requests: Vec<String> },
    /// A new challenge (`created`); refused when its challenger has `most` challenges waiting.
    CreateChallenge {
        id: String,
        challenger_id: String,
        dest_id: String,
        options: String,
        color: String,
        challenger_seat: i64,
        created_ms: i64,
        expires_ms: i64,
        most: i64,
    },
    /// Moves a challenge from status `from` to `to` (with a decline reason's key), only for its
    /// challenger or its challenged account when given (not empty); `expiry` `Some(false)`:
    /// only before `expires_ms`, `Some(true)`: only after it. Answers 1, or 0 when refused.
    MoveChallenge {
        id: String,
        challenger: String,
        dest: String,
        from: &'static str,
        to: &'static str,
        reason: Option<String>,
        expiry: Option<bool>,
        now_ms: i64,
    },
    /// Keeps the waiting challenges of a challenger that expire before `until_ms` until then.
    KeepChallenges {
        challenger_id: String,
        until_ms: i64,
        now_ms: i64,
    },
    /// A player's result on a puzzle: the first one rates the player and the puzzle
    /// (`super::puzzles::rate_result`); answers 1 when rated, 0 for a later result.
    PuzzleResult {
        player_id: String,
        puzzle_id: String,
        win: bool,
        now_ms: i64,
    },
}

/// A job whose outcome is being checked.
#[derive(Clone, Copy)]
enum Pending<'a> {
    Table(&'a PreparedTable),
    Single(&'a Single),
}

/// Whether the writes of a failed attempt may be stored all the same. Ordered: the greater of
/// two attempts' doubts is the write's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Doubt {
    /// It failed before `COMMIT` was sent: nothing of it was written.
    Clear,
    /// It failed at `COMMIT` or after, with an answer from the database (an error, a lost
    /// answer): it is stored or not, as a check of the store finds.
    Checkable,
    /// It failed at `COMMIT` by the time limit or a cut connection: the database may still be
    /// committing it, so a check that does not find it does not settle it.
    Lingering,
}

/// An attempt's transaction that failed: why, and whether its writes may be stored.
#[derive(Debug)]
struct Failed {
    error: StoreError,
    doubt: Doubt,
}

impl Failed {
    /// A failure before `COMMIT` (or a refusal): nothing was written.
    fn clear(error: StoreError) -> Failed {
        Failed {
            error,
            doubt: Doubt::Clear,
        }
    }
}

/// Who has a job handed to the writer: still waiting in the queue, taken by the writer into a
/// transaction, or given up by its caller (whose time ran out) before the writer took it. The
/// one who moves it out of the queue first decides: a job given up is never written, so its
/// caller's time limit is a certain refusal; a job taken may be written.
#[derive(Debug, Default)]
pub(super) struct Ticket(AtomicU8);

/// [`Ticket`]'s states.
const QUEUED: u8 = 0;
const TAKEN: u8 = 1;
const GIVEN_UP: u8 = 2;

impl Ticket {
    /// The writer takes the job: `false` when its caller gave it up (it is dropped unwritten).
    fn take(&self) -> bool {
        self.0
            .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// The caller gives the job up: `false` when the writer has taken it already (it may be
    /// written).
    pub(super) fn give_up(&self) -> bool {
        self.0
            .compare_exchange(QUEUED, GIVEN_UP, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// What the writer is handed.
#[derive(Debug)]
pub(super) enum Job {
    /// A table write, grouped with the others pending.
    Table(
        PreparedTable,
        oneshot::Sender<Result<(), StoreError>>,
        Arc<Ticket>,
    ),
    /// Any other write; answers the rows it affected.
    Single(
        Single,
        oneshot::Sender<Result<u64, StoreError>>,
        Arc<Ticket>,
    ),
    /// Stop after the jobs received before: close the connection, then answer.
    Close(oneshot::Sender<()>),
}

/// The one write connection, opened again after it broke.
#[derive(Debug)]
pub(super) struct Writer {
    options: AnyConnectOptions,
    is_sqlite: bool,
    /// The statement that sets a new connection's time limit.
    setup: String,
    /// The longest a transaction (or a check) may take before the connection is dropped.
    limit: Duration,
    faults: Arc<Faults>,
    conn: Option<AnyConnection>,
    /// When the connection was last used: one idle for `IDLE_PING_AFTER` is pinged before its
    /// next use (a database that restarted meanwhile left it dead), and opened again when it
    /// does not answer, instead of failing the write.
    last_used: std::time::Instant,
    /// A single server's writer epoch on PostgreSQL, checked in every transaction (see "One
    /// writer per database" in `store/mod.rs`).
    epoch: Option<i64>,
    /// Where the writer reports that the database was taken over (shared with the store).
    lost: Option<Arc<tokio::sync::watch::Sender<Option<String>>>>,
    /// Why the writer refuses every write, once the database was taken over.
    superseded: Option<String>,
}

impl Writer {
    /// Opens the write connection to `url` (with `mode=rwc` already added for SQLite).
    ///
    /// # Errors
    /// A bad URL or a failed connection.
    pub(super) async fn open(
        url: &str,
        is_sqlite: bool,
        setup: String,
        limit: Duration,
        faults: Arc<Faults>,
    ) -> Result<Writer, sqlx::Error> {
        let options: AnyConnectOptions = url.parse()?;
        let mut writer = Writer {
            options,
            is_sqlite,
            setup,
            limit,
            faults,
            conn: None,
            last_used: std::time::Instant::now(),
            epoch: None,
            lost: None,
            superseded: None,
        };
        writer.conn().await?;
        Ok(writer)
    }

    /// Fences every transaction by a single server's writer `epoch` (none: no fence) and
    /// reports a takeover to `lost`.
    pub(super) fn fence(
        &mut self,
        epoch: Option<i64>,
        lost: Arc<tokio::sync::watch::Sender<Option<String>>>,
    ) {
        self.epoch = epoch;
        self.lost = Some(lost);
    }

    /// The connection, opened (SQLite: in WAL mode, fsync at every commit) when there is none.
    pub(super) async fn conn(&mut self) -> Result<&mut AnyConnection, sqlx::Error> {
        if self.last_used.elapsed() >= IDLE_PING_AFTER {
            if let Some(conn) = self.conn.as_mut() {
                if let Err(e) = conn.ping().await {
                    tracing::info!(error = %e, "the idle write connection is gone: opening another");
                    self.conn = None;
                }
            }
        }
        self.last_used = std::time::Instant::now();
        if self.conn.is_none() {
            // No pool: a pool's acquire timeout would be a timer that a paused test clock
            // jumps to while the writer waits for the database.
            let mut conn = self.options.connect().await?;
            if self.is_sqlite {
                conn.execute("PRAGMA journal_mode = WAL").await?;
                conn.execute("PRAGMA synchronous = FULL").await?;
                // A statement that writes many rows keeps a statement journal (the pages
                // it changed, to undo it alone if it fails): `table_events`' foreign key
                // makes every multi-row insert of a group keep one. By default it spills to
                // a temporary file past 64 KiB, a `pwrite` per page; in memory it is a copy.
                // Measured at 5,000 games: 7 % of the server's processor time, 5 % of it in
                // those writes (docs/performance.md, "The statement journal").
                conn.execute("PRAGMA temp_store = MEMORY").await?;
                // Checkpoints run on a thread of their own (store/checkpoint.rs).
                for pragma in super::checkpoint::writer_pragmas() {
                    conn.execute(sqlx::AssertSqlSafe(pragma.as_str())).await?;
                }
            }
            conn.execute(sqlx::AssertSqlSafe(self.setup.as_str()))
                .await?;
            self.conn = Some(conn);
        }
        // Set just above.
        Ok(self.conn.as_mut().expect("a write connection"))
    }

    /// Forgets the connection after an error that may have broken it (the next job opens a
    /// new one).
    fn check<T>(&mut self, result: &Result<T, StoreError>) {
        if let Err(StoreError::Timeout(_)) = result {
            // Cut off in the middle of a statement: the connection's state is unknown.
            self.conn = None;
        }
        if let Err(StoreError::Database(e)) = result {
            if matches!(
                e,
                sqlx::Error::Io(_)
                    | sqlx::Error::Tls(_)
                    | sqlx::Error::Protocol(_)
                    | sqlx::Error::WorkerCrashed
                    | sqlx::Error::PoolClosed
            ) {
                self.conn = None;
            }
        }
    }

    async fn close(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.close().await;
        }
    }

    /// Everything in one transaction: the singles (in order), then the table writes. Answers
    /// the singles' results (a taken name is a result, not a failure of the group); a failure
    /// says whether the transaction may have committed all the same ([`Doubt`]).
    async fn group(
        &mut self,
        singles: &[Single],
        tables: &[PreparedTable],
    ) -> Result<Vec<Result<u64, StoreError>>, Failed> {
        if let Some(why) = &self.superseded {
            return Err(Failed::clear(StoreError::Superseded(why.clone())));
        }
        // The store was given up (a cluster node's lease lapsed, or the lock's watcher found
        // another server): nothing more is written.
        if let Some(why) = self.lost.as_ref().and_then(|l| l.borrow().clone()) {
            self.superseded = Some(why.clone());
            return Err(Failed::clear(StoreError::Superseded(why)));
        }
        let limit = self.limit;
        let faults = self.faults.clone();
        let epoch = self.epoch;
        let sqlite = self.is_sqlite;
        let began = std::time::Instant::now();
        // Set once `COMMIT` is sent: from then on a failure may have committed.
        let mut committing = false;
        // Set when a failed group of moves may have left its transaction open.
        let mut broken = false;
        let moves = self.is_sqlite && epoch.is_none() && singles.is_empty() && only_moves(tables);
        let result = within(limit, async {
            match self.conn().await {
                Ok(conn) if moves => {
                    write_moves(conn, tables, &faults, &mut committing, &mut broken).await
                }
                Ok(conn) => {
                    let tx = super::begin_write(conn, sqlite).await?;
                    write_group(tx, epoch, singles, tables, &faults, &mut committing).await
                }
                Err(e) => Err(e.into()),
            }
        })
        .await;
        if result.is_ok() {
            crate::telemetry::group_committed(singles.len() + tables.len(), began.elapsed());
        }
        self.check(&result);
        if broken {
            self.conn = None;
        }
        if let Err(StoreError::Superseded(why)) = &result {
            tracing::error!("{why}");
            self.superseded = Some(why.clone());
            if let Some(lost) = &self.lost {
                lost.send_replace(Some(why.clone()));
            }
        }
        result.map_err(|error| {
            let doubt = match &error {
                _ if !committing => Doubt::Clear,
                e if may_still_commit(e) => Doubt::Lingering,
                _ => Doubt::Checkable,
            };
            Failed { error, doubt }
        })
    }

    /// Whether a write that failed has landed after all: `Some(true)` when its rows are in the
    /// store, `None` when the store cannot tell (a row-only table write and the end of a
    /// session never count as landed: writing them again is harmless).
    async fn landed(&mut self, job: Pending<'_>) -> Option<bool> {
        if self.faults.take(Fault::CheckFails) {
            return None;
        }
        // A table write landed when its last event is stored, as this write has it (a stale
        // write of a version already taken by another event did not).
        let (sql, key, version, body) = match job {
            Pending::Table(w) => match w.events.last() {
                None => return Some(false),
                Some((v, body)) => (
                    "SELECT body AS v FROM table_events WHERE table_id = $1 AND version = $2",
                    w.id.as_str(),
                    *v,
                    Some(body.as_str()),
                ),
            },
            Pending::Single(Single::CreateTable { id, .. }) => (
                "SELECT id AS v FROM game_tables WHERE id = $1 AND $2 = $2",
                id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::Player { id, .. }) => (
                "SELECT id AS v FROM players WHERE id = $1 AND $2 = $2",
                id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::Session { token, .. }) => (
                "SELECT token AS v FROM sessions WHERE token = $1 AND $2 = $2",
                token.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::Finished(row)) => (
                "SELECT table_id AS v FROM finished_games WHERE table_id = $1 AND $2 = $2",
                row.table_id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::FinishedPlayers(row)) => (
                "SELECT table_id AS v FROM game_players WHERE table_id = $1 AND $2 = $2",
                row.table_id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::CreateToken { id, .. }) => (
                "SELECT id AS v FROM api_tokens WHERE id = $1 AND $2 = $2",
                id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::CreateChallenge { id, .. }) => (
                "SELECT id AS v FROM challenges WHERE id = $1 AND $2 = $2",
                id.as_str(),
                0,
                None,
            ),
            Pending::Single(Single::CreateTournament { row, .. }) => (
                "SELECT id AS v FROM tournaments WHERE id = $1 AND $2 = $2",
                row.id.as_str(),
                0,
                None,
            ),
            // A tournament's save landed when its row holds this state at this version (only
            // its owner saves it; the settled requests went in the same transaction).
            Pending::Single(Single::SaveTournament {
                id, state, version, ..
            }) => (
                "SELECT state AS v FROM tournaments WHERE id = $1 AND version = $2",
                id.as_str(),
                *version,
                Some(state.as_str()),
            ),
            Pending::Single(
                Single::DropTournamentRequests { .. }
                | Single::PuzzleResult { .. }
                | Single::MoveChallenge { .. }
                | Single::KeepChallenges { .. }
                | Single::EndSession { .. }
                | Single::RevokeToken { .. }
                | Single::TouchToken { .. }
                | Single::MakeBot { .. }
                | Single::TouchSession { .. }
                | Single::Cleanup { .. }
                | Single::Alive { .. },
            ) => return Some(false),
        };
        let limit = self.limit;
        let result = within(limit, async {
            let conn = self.conn().await?;
            let row = sqlx::query(sql)
                .bind(key)
                .bind(version)
                .fetch_optional(conn)
                .await?;
            Ok(match (row, body) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(r), Some(body)) => r.try_get::<String, _>("v")? == body,
            })
        })
        .await;
        self.check(&result);
        match result {
            Ok(landed) => Some(landed),
            Err(e) => {
                tracing::warn!(error = %e, "cannot tell whether a failed write landed");
                None
            }
        }
    }

    /// The answer to a write (`job`) whose attempts failed, the last with `error`, leaving
    /// `doubt`: `Ok` when the store holds it after all, the error when nothing of it can be
    /// stored, else [`StoreError::InDoubt`].
    async fn answer_failed(
        &mut self,
        job: Pending<'_>,
        error: StoreError,
        doubt: Doubt,
    ) -> Result<(), StoreError> {
        // Nothing of it was committed: no need to ask (the database may still be away).
        if doubt == Doubt::Clear {
            return Err(error);
        }
        match (self.landed(job).await, doubt) {
            (Some(true), _) => Ok(()),
            (Some(false), Doubt::Clear | Doubt::Checkable) | (None, Doubt::Clear) => Err(error),
            // Logged by whoever answers it (`ServerError::log`).
            (Some(false) | None, _) => Err(StoreError::InDoubt(Box::new(error))),
        }
    }

    /// Before a write is tried again after an attempt that left `doubt`: `true` when the store
    /// holds it already; else the doubt that remains (a check that does not find it settles a
    /// [`Doubt::Checkable`] one).
    async fn before_retry(&mut self, job: Pending<'_>, doubt: &mut Doubt) -> bool {
        if *doubt == Doubt::Clear {
            return false;
        }
        match self.landed(job).await {
            Some(true) => true,
            Some(false) if *doubt == Doubt::Checkable => {
                *doubt = Doubt::Clear;
                false
            }
            _ => false,
        }
    }

    /// One single alone, in its own transaction, after a failed attempt that left `before`: it
    /// is written only when it has not landed, and a failure that landed after all is a
    /// success.
    async fn single_alone(&mut self, single: &Single, before: Doubt) -> Result<u64, StoreError> {
        let mut doubt = before;
        if self.before_retry(Pending::Single(single), &mut doubt).await {
            return Ok(1);
        }
        match self.group(std::slice::from_ref(single), &[]).await {
            Ok(mut results) => results.pop().unwrap_or(Ok(0)),
            // Refused, not failed: nothing of it was written.
            Err(Failed {
                error: e @ StoreError::Superseded(_),
                ..
            }) => Err(e),
            Err(f) => self
                .answer_failed(Pending::Single(single), f.error, doubt.max(f.doubt))
                .await
                .map(|()| 1),
        }
    }

    /// One table write alone, in its own transaction, after a failed attempt that left
    /// `before`: written only when it has not landed, and a failure that landed after all is
    /// a success.
    async fn table_alone(
        &mut self,
        write: &PreparedTable,
        before: Doubt,
    ) -> Result<(), StoreError> {
        let mut doubt = before;
        if self.before_retry(Pending::Table(write), &mut doubt).await {
            return Ok(());
        }
        match self.group(&[], std::slice::from_ref(write)).await {
            Ok(_) => Ok(()),
            // Refused, not failed: nothing of this attempt was written (a table taken over is
            // read from the store by its new owner).
            Err(Failed {
                error: e @ (StoreError::Fenced(_) | StoreError::Superseded(_)),
                ..
            }) => Err(e),
            Err(f) => {
                self.answer_failed(Pending::Table(write), f.error, doubt.max(f.doubt))
                    .await
            }
        }
    }
}

/// Whether a failure at `COMMIT` may leave the database still committing: the time limit cut
/// the wait for its answer, or the connection was cut (the database may have read `COMMIT`
/// and go on with it).
fn may_still_commit(e: &StoreError) -> bool {
    match e {
        StoreError::Timeout(_) => true,
        StoreError::Database(e) => matches!(
            e,
            sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed
        ),
        _ => false,
    }
}

/// The writer's estimate of its own pace: the writes it took in the last whole second, to
/// decide whether waiting [`super::StoreOptions::commit_delay`] for a group to fill is worth it.
/// It reads the monotonic clock of the process, not tokio's (a test's paused clock does not
/// stop it).
struct Pace {
    since: std::time::Instant,
    this_second: u64,
    last_second: u64,
}

impl Pace {
    fn new() -> Pace {
        Pace {
            since: std::time::Instant::now(),
            this_second: 0,
            last_second: 0,
        }
    }

    /// Counts `writes` taken now.
    fn note(&mut self, writes: usize) {
        let elapsed = self.since.elapsed();
        if elapsed >= Duration::from_secs(2) {
            // a quiet second in between: the pace is what this second brings
            self.last_second = 0;
            self.this_second = 0;
            self.since = std::time::Instant::now();
        } else if elapsed >= Duration::from_secs(1) {
            self.last_second = self.this_second;
            self.this_second = 0;
            self.since += Duration::from_secs(1);
        }
        self.this_second += writes as u64;
    }

    /// Whether at least one more write is expected within `delay` at the last second's pace
    /// (PostgreSQL's `commit_delay` waits likewise only when `commit_siblings` others are
    /// active), so a quiet server never waits.
    fn expects_more_within(&self, delay: Duration) -> bool {
        !delay.is_zero()
            && self.last_second.max(self.this_second) as f64 * delay.as_secs_f64() >= 1.0
    }
}

/// Waits up to `delay` for more jobs to join those `pending` (up to [`MAX_GROUP`]); ends at
/// once when a [`Job::Close`] is among them or every sender is gone.
async fn gather(jobs: &mut mpsc::Receiver<Job>, pending: &mut Vec<Job>, delay: Duration) {
    let until = tokio::time::Instant::now() + delay;
    while pending.len() < MAX_GROUP && !pending.iter().any(|j| matches!(j, Job::Close(_))) {
        let room = MAX_GROUP - pending.len();
        match tokio::time::timeout_at(until, jobs.recv_many(pending, room)).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// The writer's loop: runs until every sender of `jobs` is dropped or a [`Job::Close`]. With a
/// `commit_delay` above zero, a group whose first job comes while writes arrive faster than
/// one per `commit_delay` waits up to that long for more ([`gather`]); otherwise it takes what
/// is pending and commits at once.
pub(super) async fn run(mut writer: Writer, mut jobs: mpsc::Receiver<Job>, commit_delay: Duration) {
    let mut pace = Pace::new();
    let mut pending: Vec<Job> = Vec::with_capacity(MAX_GROUP);
    // A table's second write in one group waits for the next one (one row per table in a
    // multi-row update); an actor never has two writes pending, so this stays empty in practice.
    let mut later: Vec<Job> = Vec::new();
    loop {
        pending.append(&mut later);
        if pending.is_empty() {
            if jobs.recv_many(&mut pending, MAX_GROUP).await == 0 {
                break;
            }
            if pace.expects_more_within(commit_delay) {
                gather(&mut jobs, &mut pending, commit_delay).await;
            }
        } else {
            while pending.len() < MAX_GROUP {
                match jobs.try_recv() {
                    Ok(job) => pending.push(job),
                    Err(_) => break,
                }
            }
        }
        pace.note(pending.len());
        let mut round = Round::default();
        let mut ids = HashSet::new();
        let mut closed = None;
        for job in pending.drain(..) {
            match job {
                // Given up by its caller while it waited: never written.
                Job::Single(_, _, ticket) if !ticket.take() => {}
                Job::Single(single, answer, _) => {
                    round.singles.push(single);
                    round.single_answers.push(answer);
                }
                Job::Close(answer) => closed = Some(answer),
                Job::Table(write, answer, ticket) => {
                    if !ids.insert(write.id.clone()) {
                        later.push(Job::Table(write, answer, ticket));
                    } else if ticket.take() {
                        round.tables.push(write);
                        round.table_answers.push(answer);
                    }
                }
            }
        }
        commit_round(&mut writer, round).await;
        if let Some(answer) = closed {
            writer.close().await;
            let _ = answer.send(());
            break;
        }
    }
}

/// The jobs of one round.
#[derive(Default)]
struct Round {
    singles: Vec<Single>,
    single_answers: Vec<oneshot::Sender<Result<u64, StoreError>>>,
    tables: Vec<PreparedTable>,
    table_answers: Vec<oneshot::Sender<Result<(), StoreError>>>,
}

/// Commits a round in one transaction and answers each job; when that fails, writes the jobs
/// one by one, each in its own transaction, so only a faulty one gets an error.
async fn commit_round(writer: &mut Writer, round: Round) {
    let count = round.singles.len() + round.tables.len();
    if count == 0 {
        return;
    }
    // A single write is tried alone at once (nothing was tried before it).
    let mut before = Doubt::Clear;
    if count > 1 {
        match writer.group(&round.singles, &round.tables).await {
            Ok(results) => {
                for (answer, result) in round.single_answers.into_iter().zip(results) {
                    let _ = answer.send(result);
                }
                for answer in round.table_answers {
                    let _ = answer.send(Ok(()));
                }
                return;
            }
            Err(f) => {
                tracing::warn!(
                    writes = count,
                    error = %f.error,
                    "a group commit failed: writing its writes one by one"
                );
                before = f.doubt;
            }
        }
    }
    for (single, answer) in round.singles.iter().zip(round.single_answers) {
        let _ = answer.send(writer.single_alone(single, before).await);
    }
    for (write, answer) in round.tables.iter().zip(round.table_answers) {
        let _ = answer.send(writer.table_alone(write, before).await);
    }
}

/// Writes singles, then table writes, in the transaction `tx` (begun by [`super::begin_write`]);
/// returns each single's result, and sets `committing` once `COMMIT` is sent. A failed
/// transaction is rolled back at once: its row locks (a fenced table's row, say) must not wait
/// for the writer's next job while other nodes want those rows.
async fn write_group(
    mut tx: Transaction<'_, Any>,
    epoch: Option<i64>,
    singles: &[Single],
    tables: &[PreparedTable],
    faults: &Faults,
    committing: &mut bool,
) -> Result<Vec<Result<u64, StoreError>>, StoreError> {
    if let Some(mine) = epoch {
        // Shared: writers of one epoch never wait for each other, and a newcomer's raise of
        // the epoch waits for this transaction (it then sees what this one wrote).
        let found: Option<i64> =
            sqlx::query("SELECT value FROM server_state WHERE name = 'writer_epoch' FOR SHARE")
                .fetch_optional(&mut *tx)
                .await?
                .map(|r| r.try_get("value"))
                .transpose()?;
        if found != Some(mine) {
            let _ = tx.rollback().await;
            return Err(StoreError::Superseded(super::superseded(
                mine,
                found.unwrap_or(0),
            )));
        }
    }
    let results = match fill_group(&mut tx, singles, tables).await {
        Ok(results) => results,
        Err(e) => {
            let _ = tx.rollback().await;
            return Err(e);
        }
    };
    // Faults are faked on table writes only (the periodic writes of the store, sessions and
    // players never take a fault meant for a table), and `TournamentAnswerLost` on a
    // tournament's save.
    let faked = !tables.is_empty();
    if faked && faults.take(Fault::Outage) {
        // Dropped without COMMIT: rolled back.
        return Err(injected("the database went away before COMMIT"));
    }
    *committing = true;
    tx.commit().await?;
    if faked && faults.take(Fault::LostCommitAnswer) {
        return Err(injected("the connection was cut after COMMIT was sent"));
    }
    if singles
        .iter()
        .any(|s| matches!(s, Single::SaveTournament { .. }))
        && faults.take(Fault::TournamentAnswerLost)
    {
        return Err(injected(
            "the connection was cut after a tournament's COMMIT was sent",
        ));
    }
    Ok(results)
}

/// At most this many events in a group of moves written by [`write_moves`] (4 parameters
/// each, far below SQLite's 32,766 with the tables' 5 each).
const MOST_MOVE_EVENTS: usize = 1_000;

/// Whether a group of table writes is only moves: no cluster fence, no finished game, no
/// rating, and not too many events for one statement ([`write_moves`] writes those).
fn only_moves(tables: &[PreparedTable]) -> bool {
    !tables.is_empty()
        && tables
            .iter()
            .all(|w| w.fence.is_none() && w.finished.is_none() && w.rated.is_none())
        && tables.iter().map(|w| w.events.len()).sum::<usize>() <= MOST_MOVE_EVENTS
}

/// Writes a group of moves on SQLite ([`only_moves`]) in two trips to sqlx's SQLite thread
/// instead of four (`BEGIN IMMEDIATE`, which takes the write lock, then the events, the rows
/// and `COMMIT` in one text, see [`sql::sqlite_moves`]): each trip is two thread wake-ups, which cost more than the
/// statements. The same rows as [`write_group`]'s, in one transaction.
///
/// The statements stop at the first that fails: the writer then rolls back. When that
/// succeeds the transaction was still open, so nothing of it was committed (the failure is
/// [`Doubt::Clear`], as one before `COMMIT`); when it fails the transaction had ended (at
/// `COMMIT`, or rolled back by SQLite itself), so the group may be stored (`committing` stays
/// set), and the connection is dropped (`broken`) lest a transaction stay open on it.
async fn write_moves(
    conn: &mut AnyConnection,
    tables: &[PreparedTable],
    faults: &Faults,
    committing: &mut bool,
    broken: &mut bool,
) -> Result<Vec<Result<u64, StoreError>>, StoreError> {
    if faults.take(Fault::Outage) {
        // Nothing was sent: nothing written.
        return Err(injected("the database went away before COMMIT"));
    }
    let events: usize = tables.iter().map(|w| w.events.len()).sum();
    let sql = sql::sqlite_moves(events, tables.len());
    // The groups' texts come in a few sizes (`sql::padded_rows`), each prepared once and kept
    // (sqlx's statement cache, 100 texts), up to 64 rows a list; the rare larger ones are not
    // kept.
    let (padded_events, padded_tables) = (sql::padded_rows(events), sql::padded_rows(tables.len()));
    let keep = padded_events <= 64 && padded_tables <= 64;
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).persistent(keep);
    for w in tables {
        for (version, body) in &w.events {
            query = sql::bind_event_with_clocks(query, w, *version, body);
        }
    }
    for _ in events..padded_events {
        query = sql::bind_null_event(query);
    }
    for w in tables {
        query = sql::bind_moves_row(query, w);
    }
    for _ in tables.len()..padded_tables {
        query = sql::bind_null_row(query);
    }
    // The write lock first, in a trip of its own: a database held by another writer fails
    // the group here (or the time limit does), before anything of it is sent (`Doubt::Clear`).
    conn.execute("BEGIN IMMEDIATE").await?;
    // `COMMIT` goes in the same trip: from here a failure may have committed, unless the
    // rollback below finds the transaction still open.
    *committing = true;
    if let Err(e) = query.execute(&mut *conn).await {
        match conn.execute("ROLLBACK").await {
            Ok(_) => *committing = false,
            Err(_) => *broken = true,
        }
        return Err(e.into());
    }
    if faults.take(Fault::LostCommitAnswer) {
        return Err(injected("the connection was cut after COMMIT was sent"));
    }
    Ok(Vec::new())
}

/// The statements of a group, in its transaction.
async fn fill_group(
    tx: &mut Transaction<'_, Any>,
    singles: &[Single],
    tables: &[PreparedTable],
) -> Result<Vec<Result<u64, StoreError>>, StoreError> {
    let mut results = Vec::with_capacity(singles.len());
    for single in singles {
        match run_single(tx, single).await {
            // A refusal that wrote nothing: the transaction goes on.
            Err(e @ StoreError::NameTaken(_)) => results.push(Err(e)),
            Err(e) => return Err(e),
            Ok(n) => results.push(Ok(n)),
        }
    }
    if !tables.is_empty() {
        write_tables(tx, tables).await?;
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::sql::values;

    #[test]
    fn a_job_is_either_taken_or_given_up() {
        use super::Ticket;
        let taken = Ticket::default();
        assert!(taken.take());
        assert!(!taken.give_up(), "taken: it may be written");
        let given_up = Ticket::default();
        assert!(given_up.give_up());
        assert!(!given_up.take(), "given up: never written");
    }

    #[test]
    fn a_group_of_moves_binds_the_events_then_the_rows_in_order() {
        assert_eq!(
            super::sql::sqlite_moves(2, 1),
            "INSERT INTO table_events (table_id, version, body, created_ms, clocks) VALUES \
             (?, ?, ?, ?, ?), (?, ?, ?, ?, ?); UPDATE game_tables SET phase = v.column2, \
             version = v.column3, clocks = v.column4, updated_ms = v.column5 FROM (VALUES \
             (?, ?, ?, ?, ?, ?)) AS v WHERE game_tables.id = v.column1 \
             AND game_tables.version <= v.column3 \
             AND (v.column6 = 1 OR game_tables.phase <> v.column2); COMMIT"
        );
        assert_eq!(
            super::sql::sqlite_moves(0, 2),
            "UPDATE game_tables SET phase = v.column2, version = v.column3, \
             clocks = v.column4, updated_ms = v.column5 FROM (VALUES (?, ?, ?, ?, ?, ?), \
             (?, ?, ?, ?, ?, ?)) AS v WHERE game_tables.id = v.column1 \
             AND game_tables.version <= v.column3 \
             AND (v.column6 = 1 OR game_tables.phase <> v.column2); COMMIT"
        );
        // Past eight rows, the lists are padded to a few sizes.
        let sizes = [1, 8, 9, 12, 13, 17, 25, 33, 49, 1000].map(super::sql::padded_rows);
        assert_eq!(sizes, [1, 8, 12, 12, 16, 24, 32, 48, 64, 1024]);
        assert_eq!(
            super::sql::sqlite_moves(9, 1),
            format!(
                "INSERT INTO table_events (table_id, version, body, created_ms, clocks) SELECT \
                 column1, column2, column3, column4, column5 FROM (VALUES (?, ?, ?, ?, ?){}) \
                 WHERE column1 IS NOT NULL; UPDATE game_tables SET phase = v.column2, \
                 version = v.column3, clocks = v.column4, updated_ms = v.column5 FROM (VALUES \
                 (?, ?, ?, ?, ?, ?)) AS v WHERE game_tables.id = v.column1 \
                 AND game_tables.version <= v.column3 \
                 AND (v.column6 = 1 OR game_tables.phase <> v.column2); COMMIT",
                ", (?, ?, ?, ?, ?)".repeat(11)
            )
        );
    }

    #[test]
    fn the_pace_decides_whether_a_group_waits() {
        use super::Pace;
        use std::time::Duration;
        let mut pace = Pace::new();
        assert!(
            !pace.expects_more_within(Duration::from_millis(5)),
            "no write yet"
        );
        pace.note(150);
        // 150 a second: one more expected within 6.7 ms, not within 5 ms
        assert!(!pace.expects_more_within(Duration::from_millis(5)));
        assert!(pace.expects_more_within(Duration::from_millis(7)));
        pace.note(150);
        assert!(
            pace.expects_more_within(Duration::from_millis(5)),
            "300 a second"
        );
        assert!(
            !pace.expects_more_within(Duration::ZERO),
            "no delay: never waits"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_group_waits_until_its_delay_or_a_close() {
        use super::{gather, Job};
        use std::time::Duration;
        use tokio::sync::{mpsc, oneshot};
        use tokio::time::{sleep, Instant};
        // Nothing comes: the whole delay, then nothing more.
        let (jobs, mut received) = mpsc::channel::<Job>(8);
        let mut pending = Vec::new();
        let began = Instant::now();
        gather(&mut received, &mut pending, Duration::from_millis(10)).await;
        assert_eq!(began.elapsed(), Duration::from_millis(10));
        assert!(pending.is_empty());
        // A close 3 ms in: taken, and the wait ends there.
        let sender = jobs.clone();
        tokio::spawn(async move {
            sleep(Duration::from_millis(3)).await;
            let (answer, _) = oneshot::channel();
            let _ = sender.send(Job::Close(answer)).await;
        });
        let began = Instant::now();
        gather(&mut received, &mut pending, Duration::from_millis(10)).await;
        assert_eq!(began.elapsed(), Duration::from_millis(3));
        assert_eq!(pending.len(), 1);
        // Every sender gone: no wait at all.
        pending.clear();
        drop(jobs);
        let began = Instant::now();
        gather(&mut received, &mut pending, Duration::from_millis(10)).await;
        assert_eq!(began.elapsed(), Duration::ZERO);
    }

    #[test]
    fn values_number_the_parameters_row_by_row() {
        assert_eq!(values(1, 2), "($1, $2)");
        assert_eq!(values(2, 3), "($1, $2, $3), ($4, $5, $6)");
    }
}
