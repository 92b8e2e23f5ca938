//! One actor task per table: it owns the game, the seats and the clocks, and is reached through
//! a cloneable [`TableHandle`].
//!
//! Five parts:
//! - this module: the handle, the table options, and creating or loading a table;
//! - `core`: the table rules without I/O: the state that events change, and the decisions that
//!   turn a message or a due timer into events (unit-tested without sockets or SQL);
//! - `actor`: the shell around the core: the run loop and its timers, connections and presence,
//!   the store write and the fan-out to the connections;
//! - [`clock`]: the clocks and the lag allowance;
//! - [`pgn`]: a table's PGN export.
//!
//! Every change is an [`Event`]. An action is checked against the state, turned into events and
//! applied to the live state in place; the events are then written to the database (events and
//! table row in one transaction), and only after that acknowledged and sent to the connections.
//! When the write fails, the state is rebuilt from the in-memory event log, so memory and store
//! never disagree. Bringing a table back after a restart replays its stored events through the
//! same `apply`, and so does bringing back an ended table whose actor was retired
//! ([`TableHandle::retire`]) to free memory.

pub(crate) mod actor;
pub mod clock;
pub(crate) mod core;
pub mod pgn;

use self::actor::{spawn, Command};
use self::core::TableState;
use crate::error::ServerError;
use crate::protocol::{
    ClientMessage, Event, SeatPlayer, ServerMessage, TableOptions, TableSummary,
};
use crate::store::{Fence, Store, TableRow};
use crate::variant::{AnyGame, RuleOptions};
use chuhe_rules::xiangqi::{DEFAULT_NO_CAPTURE_LIMIT, MAX_NO_CAPTURE_LIMIT};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// A person behind a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// The player's id.
    pub id: String,
    /// The display name.
    pub name: String,
    /// Whether the player has an account.
    pub account: bool,
}

/// Settings every table actor follows.
#[derive(Debug, Clone)]
pub struct TableSettings {
    /// How long a seated person may stay disconnected from a running game before losing by
    /// abandonment, and from an open table before losing the seat.
    pub grace: Duration,
    /// How long a seat of a timed game has for its first move before the game is aborted
    /// ([`crate::Settings::first_move`]).
    pub first_move: Duration,
    /// How long an ended table waits without any WebSocket connection before it reports
    /// [`TableNotice::Idle`].
    pub ended_grace: Duration,
    /// Where the actor reports what its owner may want to act on (the server's map of tables).
    pub notices: mpsc::UnboundedSender<TableNotice>,
    /// In a cluster: where the actor sends the table as listed after each stored change, for
    /// the lobby every node shows ([`crate::cluster`]).
    pub listing: Option<mpsc::UnboundedSender<TableSummary>>,
}

/// What a table actor reports to the owner of the tables, with the table's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableNotice {
    /// The game has just ended in play.
    Ended(String),
    /// The table has ended and has had no WebSocket connection for the ended grace period: it
    /// may be retired ([`TableHandle::retire`]).
    Idle(String),
    /// In a cluster: another node owns the table now (this node's write was fenced); the
    /// actor has stopped without writing.
    Lost(String),
    /// Every seat of the ended table `table` wants a rematch: the owner creates a table with
    /// these options and these players already seated ([`create_seated`]), then tells the old
    /// table its id ([`TableHandle::rematched`]).
    Rematch {
        /// The ended table.
        table: String,
        /// The new table's options (the old table's).
        options: TableOptions,
        /// Who sits where at the new table, per seat.
        seats: Vec<Option<SeatPlayer>>,
    },
}

/// The way to a table actor; cheap to clone.
#[derive(Debug, Clone)]
pub struct TableHandle {
    id: String,
    tx: mpsc::Sender<Command>,
    /// Set by the actor once the table has ended (it never goes back).
    ended: Arc<AtomicBool>,
    /// The table as listed, published by the actor after every stored change.
    listed: tokio::sync::watch::Receiver<TableSummary>,
}

fn gone() -> ServerError {
    ServerError::TableClosed
}

/// Whether `e` is the error of a handle whose actor has stopped (retired or shut down):
/// [`ServerError::TableClosed`]. The table itself may still exist in the store, and a new
/// handle brings it back.
pub fn is_closed_error(e: &ServerError) -> bool {
    matches!(e, ServerError::TableClosed)
}

impl TableHandle {
    /// The table's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Registers a connection; its messages arrive on `out`. With `since`, the events after
    /// that version are sent first, then a state.
    ///
    /// # Errors
    /// `since` beyond the table's version, or the table is closed.
    pub async fn connect(
        &self,
        person: Option<Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
    ) -> Result<u64, ServerError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Command::Connect {
                person,
                since,
                out,
                reply,
            })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Unregisters a connection.
    pub async fn disconnect(&self, conn: u64) {
        let _ = self.tx.send(Command::Disconnect { conn }).await;
    }

    /// Handles one client message of a connection.
    ///
    /// # Errors
    /// Why the message was refused; nothing changed then.
    pub async fn message(&self, conn: u64, msg: ClientMessage) -> Result<(), ServerError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Command::Message { conn, msg, reply })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// The table as listed.
    ///
    /// # Errors
    /// The table is closed.
    pub async fn summary(&self) -> Result<TableSummary, ServerError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Command::Summary { reply })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())
    }

    /// The table as listed after its last stored change, without asking the actor (so a
    /// table whose actor is busy, say waiting for the database, never holds up the lobby).
    pub fn listed(&self) -> TableSummary {
        self.listed.borrow().clone()
    }

    /// Whether the game has started and not ended, as listed (for the metrics).
    pub(crate) fn is_running(&self) -> bool {
        self.listed.borrow().phase == crate::protocol::Phase::Running
    }

    /// Whether the table has ended (its `ended` event is stored).
    pub fn is_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Whether the actor has stopped: every request through this handle fails.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Stops the actor when the table has ended and no WebSocket is connected to it (an ended
    /// table has nothing to save: everything is in the store). Returns whether the actor is
    /// gone; `false` leaves it running as before.
    pub async fn retire(&self) -> bool {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Command::Retire { reply }).await.is_err() {
            return true;
        }
        rx.await.unwrap_or(true)
    }

    /// Tells the table that its agreed rematch has the table `table` (`Some`): a `rematched`
    /// event follows (its write tried again, with the same table, until stored); or that
    /// creating it failed (`None`): the rematch is asked for again a second later.
    pub async fn rematched(&self, table: Option<String>) {
        let _ = self.tx.send(Command::Rematched { table }).await;
    }

    /// Saves the clocks and stops the actor.
    pub async fn shutdown(&self) {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Command::Shutdown { reply }).await.is_ok() {
            let _ = rx.await;
        }
    }
}

/// Checks table options and fills the defaults of the variant.
///
/// # Errors
/// [`ServerError::BadMessage`] naming the bad option.
pub fn check_options(mut options: TableOptions) -> Result<TableOptions, ServerError> {
    use crate::variant::Variant;
    if let Some(t) = options.time {
        if !(1_000..=10_800_000).contains(&t.initial_ms) {
            return Err(ServerError::BadMessage(
                "time.initial_ms must be between 1000 and 10800000".to_owned(),
            ));
        }
        if t.increment_ms > 600_000 {
            return Err(ServerError::BadMessage(
                "time.increment_ms must be at most 600000".to_owned(),
            ));
        }
    }
    match options.variant {
        Variant::Xiangqi => {
            if options.flag_bearers.is_some() {
                return Err(ServerError::BadMessage(
                    "flag_bearers is a sanguo option".to_owned(),
                ));
            }
            let limit = options.no_capture_limit.unwrap_or(DEFAULT_NO_CAPTURE_LIMIT);
            if limit > MAX_NO_CAPTURE_LIMIT {
                return Err(ServerError::BadMessage(format!(
                    "no_capture_limit must be at most {MAX_NO_CAPTURE_LIMIT}"
                )));
            }
            options.no_capture_limit = Some(limit);
            options.fen = check_start_fen(&options)?;
        }
        Variant::Sanguo => {
            if options.fen.is_some() {
                return Err(ServerError::BadMessage(
                    "fen is a xiangqi option".to_owned(),
                ));
            }
            if options.no_capture_limit.is_some() {
                return Err(ServerError::BadMessage(
                    "no_capture_limit is a xiangqi option".to_owned(),
                ));
            }
            options.flag_bearers = Some(options.flag_bearers.unwrap_or(true));
        }
        Variant::Banqi => {
            if options.no_capture_limit.is_some()
                || options.flag_bearers.is_some()
                || options.fen.is_some()
            {
                return Err(ServerError::BadMessage(
                    "banqi takes no rule options".to_owned(),
                ));
            }
        }
    }
    Ok(options)
}

/// Longest [`TableOptions::fen`] accepted, in bytes (a FEN is under 100).
pub const MAX_FEN_BYTES: usize = 512;

/// A xiangqi table's start position checked and normalised: `None` for the standard start
/// (absent, or a FEN of the standard start), else the FEN as the rules write it back.
///
/// # Errors
/// [`ServerError::BadMessage`]: `fen: ` and why the FEN does not read or breaks a rule (the
/// same words as `POST /api/analysis`), `fen: the game is already over in this position
/// (...)`, or a rated table from a set-up position.
fn check_start_fen(options: &TableOptions) -> Result<Option<String>, ServerError> {
    let Some(text) = options.fen.as_deref().map(str::trim) else {
        return Ok(None);
    };
    if text.len() > MAX_FEN_BYTES {
        return Err(ServerError::BadMessage(format!(
            "fen: a FEN has at most {MAX_FEN_BYTES} bytes"
        )));
    }
    let game = AnyGame::from_position(options.variant, text, rule_options(options))
        .map_err(|e| ServerError::BadMessage(format!("fen: {e}")))?;
    if let Some(outcome) = game.outcome() {
        return Err(ServerError::BadMessage(format!(
            "fen: the game is already over in this position ({})",
            outcome.reason.as_str()
        )));
    }
    let fen = game.snapshot().position;
    if fen == chuhe_rules::xiangqi::START_FEN {
        return Ok(None);
    }
    if options.rated {
        return Err(ServerError::BadMessage(
            "a game from a set-up position cannot be rated".to_owned(),
        ));
    }
    Ok(Some(fen))
}

/// The game a table starts with: its variant's start, or the position its options set up
/// ([`TableOptions::fen`], checked by [`check_options`] when the table was created).
///
/// # Errors
/// [`PositionTextError`](crate::variant::PositionTextError) when a stored FEN no longer reads
/// (corrupt data; a table's options are checked before they are stored).
pub fn start_game(options: &TableOptions) -> Result<AnyGame, crate::variant::PositionTextError> {
    match &options.fen {
        Some(fen) => AnyGame::from_position(options.variant, fen, rule_options(options)),
        None => Ok(AnyGame::new(options.variant, rule_options(options))),
    }
}

/// The rule options a table's options fix (defaults filled in). A xiangqi table that turns
/// the no-capture limit off (0) still plays under the longest one the rules allow,
/// [`MAX_NO_CAPTURE_LIMIT`] (1,000 plies, the `No Capture Limit` maximum of the engine
/// protocol): with at most 30 captures in a game, no game runs past 31,000 plies, so no table
/// grows without end. (Sanguo and banqi always end after 180 quiet plies.)
pub fn rule_options(options: &TableOptions) -> RuleOptions {
    let no_capture_limit = match options.no_capture_limit.unwrap_or(DEFAULT_NO_CAPTURE_LIMIT) {
        0 => MAX_NO_CAPTURE_LIMIT,
        n => n,
    };
    RuleOptions {
        no_capture_limit,
        flag_bearers: options.flag_bearers.unwrap_or(true),
    }
}

/// Creates a table: stores it with its `created` event and starts its actor; in a cluster the
/// node `owner` holds it (epoch 1).
///
/// # Errors
/// Bad options, or the database failed.
pub async fn create(
    store: &Store,
    settings: TableSettings,
    id: String,
    options: TableOptions,
    owner: Option<&str>,
) -> Result<TableHandle, ServerError> {
    let seats = vec![None; options.variant.seat_count()];
    create_seated(store, settings, id, options, seats, owner).await
}

/// How a cluster node holds a table it loads: its fence, and the thinking time to charge
/// (after its previous owner died: [`crate::store::cluster::Ownership::uncharged`]).
#[derive(Debug, Clone)]
pub struct Held {
    /// The node's key and the table's epoch.
    pub fence: Fence,
    /// Thinking time before the previous owner died, charged to the seat to move.
    pub uncharged: Duration,
}

/// Creates a table with `seats` already taken (a rematch; none taken for [`create`]): stores
/// its `created` event and the `sat` events, then starts its actor, held by the cluster node
/// `owner` when given. The persons have the grace period to connect.
///
/// # Errors
/// Bad options, a seat list of the wrong length, or the database failed.
pub async fn create_seated(
    store: &Store,
    settings: TableSettings,
    id: String,
    options: TableOptions,
    seats: Vec<Option<SeatPlayer>>,
    owner: Option<&str>,
) -> Result<TableHandle, ServerError> {
    create_with(store, settings, id, options, seats, owner, false).await
}

/// As [`create_seated`] with every seat taken, and the game started at once (its `started`
/// event written with the `sat` events: the clocks and the first-move timer run from now): a
/// tournament's pairing, which nobody has to start.
///
/// # Errors
/// As [`create_seated`].
pub async fn create_started(
    store: &Store,
    settings: TableSettings,
    id: String,
    options: TableOptions,
    seats: Vec<Option<SeatPlayer>>,
    owner: Option<&str>,
) -> Result<TableHandle, ServerError> {
    create_with(store, settings, id, options, seats, owner, true).await
}

async fn create_with(
    store: &Store,
    settings: TableSettings,
    id: String,
    options: TableOptions,
    seats: Vec<Option<SeatPlayer>>,
    owner: Option<&str>,
    start: bool,
) -> Result<TableHandle, ServerError> {
    let options = check_options(options)?;
    if seats.len() != options.variant.seat_count() {
        return Err(ServerError::Internal(format!(
            "{} seats for a table of {}",
            seats.len(),
            options.variant.seat_count()
        )));
    }
    let mut state = TableState::new(id.clone(), options.clone(), crate::store::now_ms())
        .map_err(ServerError::Internal)?;
    let created = Event::Created { options };
    let now = Instant::now();
    state.apply(&created, now).map_err(ServerError::Internal)?;
    store
        .create_table_owned(&row_of(&state, now), &created, owner)
        .await?;
    let fence = owner.map(|node| Fence {
        node: node.to_owned(),
        epoch: 1,
    });
    let sat: Vec<Event> = seats
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.map(|player| Event::Sat {
                seat: crate::protocol::Seat::new(i),
                player,
            })
        })
        .collect();
    let mut sat = sat;
    if start && sat.len() == state.seats.len() {
        sat.push(Event::Started);
    }
    for e in &sat {
        state.apply(e, now).map_err(ServerError::Internal)?;
    }
    if !sat.is_empty() {
        store
            .write_fenced(
                &crate::store::TableWrite {
                    row: row_of(&state, now),
                    events: sat.clone(),
                    rated: None,
                    finished: None,
                },
                fence.as_ref(),
            )
            .await?;
    }
    let mut log = vec![created];
    log.extend(sat);
    Ok(spawn(state, log, store.clone(), settings, fence))
}

/// Brings a stored table back: replays its events, restores its clocks from the snapshot and
/// starts its actor (the running clock restarts now; the time the server was down is not
/// charged, the thinking time before a crash is: [`Store::uncharged_since_last_write`]). With
/// a running clock, the row is saved at once with the clocks as charged, so that a later crash
/// charges from this start, not from the last write before it.
///
/// # Errors
/// No such table, or its stored data do not replay.
pub async fn load(
    store: &Store,
    settings: TableSettings,
    id: &str,
    held: Option<Held>,
) -> Result<TableHandle, ServerError> {
    let row = store
        .table(id)
        .await?
        .ok_or_else(|| ServerError::NotFound(format!("no table {id:?}")))?;
    let mut state = TableState::new(row.id.clone(), row.options.clone(), row.created_ms)
        .map_err(|e| ServerError::Internal(format!("table {id}: {e}")))?;
    let now = Instant::now();
    let mut log = Vec::new();
    for (version, event) in store.events(id).await? {
        state.apply(&event, now).map_err(|e| {
            ServerError::Internal(format!("table {id} event {version} does not replay: {e}"))
        })?;
        log.push(event);
    }
    if state.version != row.version {
        // The event log is the truth (a row and its events are written in one transaction, so
        // this is damage from elsewhere, or from before that was so): start from the events
        // and repair the row rather than refuse to start.
        tracing::warn!(
            table = %id,
            events = state.version,
            row = row.version,
            "the table row's version disagrees with its events: repaired from the event log"
        );
        store
            .save_row_fenced(&row_of(&state, now), held.as_ref().map(|h| &h.fence))
            .await?;
    }
    if let (Some(c), Some(snap)) = (&mut state.clocks, row.clocks) {
        let running = c.running_seat();
        // each seat keeps its increment (a berserk seat has none)
        c.restore(&snap);
        if let Some(seat) = running {
            // After a kill -9 the snapshot is the last write's: the thinking time from then to
            // the crash (as far as the previous server recorded it was alive) is charged, as a
            // clean stop charges it when it saves the clocks.
            let uncharged = match &held {
                Some(h) => h.uncharged,
                None => store.uncharged_since_last_write(id).await?,
            };
            c.start(seat, now.checked_sub(uncharged).unwrap_or(now));
            // A new starting point for the running clock, stored before the table is served:
            // what was charged is in the snapshot, and the next crash or takeover charges from
            // now (the time the table had no live owner is never charged, however many
            // restarts follow each other).
            store
                .save_row_fenced(&row_of(&state, now), held.as_ref().map(|h| &h.fence))
                .await?;
        }
    }
    Ok(spawn(
        state,
        log,
        store.clone(),
        settings,
        held.map(|h| h.fence),
    ))
}

/// The table's row in the store, the clocks charged up to `now`.
pub(crate) fn row_of(state: &TableState, now: Instant) -> TableRow {
    TableRow {
        id: state.id.clone(),
        options: state.options.clone(),
        phase: state.phase.as_str().to_owned(),
        version: state.version,
        clocks: state.clocks.as_ref().map(|c| c.snapshot(now)),
        secret: None,
        created_ms: state.created_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Off" is the longest limit the rules allow; other limits are as asked.
    #[test]
    fn a_game_without_the_no_capture_limit_still_has_a_length_limit() {
        let options = |limit: Option<u16>| TableOptions {
            no_capture_limit: limit,
            ..serde_json::from_str(r#"{"variant":"xiangqi"}"#).unwrap()
        };
        assert_eq!(rule_options(&options(Some(0))).no_capture_limit, 1000);
        assert_eq!(rule_options(&options(Some(60))).no_capture_limit, 60);
        assert_eq!(rule_options(&options(None)).no_capture_limit, 120);
    }
}
