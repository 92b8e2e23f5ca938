//! The actor shell around the table core: one task per table that owns its [`TableState`],
//! runs its timers (flag, abandonment, vacated seats, idle ended tables), keeps its connections
//! and their presence, writes what the core decides to the store and only then acknowledges it
//! and sends it to every connection: a full state on connecting and on `sync`, and after every
//! change an [`Update`] (what changed, of a size that does not grow with the game).

mod commit;
mod connections;

use super::core::{self, Caller, Decision, TableState};
use super::{Person, TableHandle, TableNotice, TableSettings};
use crate::computer;
use crate::error::ServerError;
use crate::protocol::{ClientMessage, Event, Phase, Seat, SeatPlayer, ServerMessage, TableSummary};
use crate::store::{Fence, Store};
use crate::variant::AnyMove;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// What a table actor is asked to do.
pub(crate) enum Command {
    Connect {
        person: Option<Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
        reply: oneshot::Sender<Result<u64, ServerError>>,
    },
    Disconnect {
        conn: u64,
    },
    Message {
        conn: u64,
        msg: ClientMessage,
        reply: oneshot::Sender<Result<(), ServerError>>,
    },
    Summary {
        reply: oneshot::Sender<TableSummary>,
    },
    ComputerMoved {
        version: u64,
        mv: AnyMove,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
    Retire {
        reply: oneshot::Sender<bool>,
    },
    /// The agreed rematch's table, or `None` when creating it failed.
    Rematched {
        table: Option<String>,
    },
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Command")
    }
}

struct Connection {
    person: Option<Person>,
    out: mpsc::UnboundedSender<ServerMessage>,
}

/// Whether to keep connection `c` after a send to it (`sent`: whether it went out). A closed
/// connection goes; its person joins `left`, whose leaving [`Table::handle_left`] handles (its
/// `disconnect` may still be on the way, and then finds nothing).
fn keep(left: &mut Vec<Person>, c: &Connection, sent: bool) -> bool {
    if !sent {
        if let Some(p) = &c.person {
            if !left.iter().any(|q| q.id == p.id) {
                left.push(p.clone());
            }
        }
    }
    sent
}

/// The actor: the state plus what only lives in memory (connections, event log, timers).
struct Table {
    state: TableState,
    log: Vec<Event>,
    conns: HashMap<u64, Connection>,
    next_conn: u64,
    /// The persons of connections found closed while sending to them, whose leaving is still
    /// to be handled ([`Table::handle_left`]).
    left: Vec<Person>,
    /// Per seat, by [`Seat::index`]: since when its person has been away, while that counts.
    absent_since: Vec<Option<Instant>>,
    /// Since when the ended table has had no connection (`None` while live or watched).
    idle_since: Option<Instant>,
    /// Whether [`TableNotice::Idle`] was sent for the current `idle_since`.
    idle_reported: bool,
    /// When the spectator count goes to a crowd's connections ([`CROWD`]), if a change waits.
    spectators_due: Option<Instant>,
    /// Shared with the handles: set once the table has ended.
    ended: Arc<AtomicBool>,
    /// Shared with the handles: the table as listed, after its last stored change (the lobby
    /// reads it without asking the actor).
    listed: tokio::sync::watch::Sender<TableSummary>,
    /// The computer's search under way and the version it started for: aborted when the
    /// position moves on without it (a takeback, a resignation, the end), so a stale search
    /// leaves the line; kept through events that leave the position as it is (a draw offer and
    /// its answer: [`TableState::answers_position`]).
    thinking: Option<(u64, tokio::task::AbortHandle)>,
    /// Set when a write failed: it may have landed all the same (the connection cut after
    /// `COMMIT`, a time limit reached), so the stored version is read before the next action
    /// ([`Table::settle`]).
    unsure: bool,
    /// After a timer's write failed, no timer is acted on before this time (the timer stays
    /// due and is tried again then).
    retry_at: Option<Instant>,
    store: Store,
    settings: TableSettings,
    tx: mpsc::Sender<Command>,
    /// In a cluster: this node's claim on the table, checked by every write.
    fence: Option<Fence>,
    /// Set when a write was fenced: another node owns the table; the actor stops.
    lost: bool,
    /// What was last sent on [`TableSettings::listing`] (without the version: the lobby
    /// copy changes when the phase or the seats do).
    listed_last: Option<(Phase, Vec<Option<SeatPlayer>>)>,
    /// Whether the owner was asked for the agreed rematch's table ([`TableNotice::Rematch`]).
    rematch_asked: bool,
    /// The agreed rematch's table once made, until its `rematched` event is stored: a failed
    /// write records the same table again, never makes a second one.
    rematch_made: Option<String>,
    /// When to try the agreed rematch again after a failure (its table not made, or its
    /// `rematched` event not stored).
    rematch_retry_at: Option<Instant>,
}

/// The wait before a timer whose write failed is tried again.
const TIMER_RETRY: Duration = Duration::from_secs(1);

/// Above this many connections a table sends its spectator count at most once every
/// [`CROWD_EVERY`] (the first change arms a one-shot timer; none runs while the count does not
/// change): otherwise N watchers joining one table would cost N²/2 messages
/// (`docs/performance.md`, "Watchers, and 10,000 games on two nodes").
const CROWD: usize = 64;

/// How often, at most, a crowd's connections get the spectator count.
const CROWD_EVERY: Duration = Duration::from_secs(1);

pub(crate) fn spawn(
    state: TableState,
    log: Vec<Event>,
    store: Store,
    settings: TableSettings,
    fence: Option<Fence>,
) -> TableHandle {
    let (tx, rx) = mpsc::channel(64);
    let seats = state.seats.len();
    let now = Instant::now();
    // After a restart nobody is connected: every seated person of an open table or an active
    // seat of a running game gets the grace period.
    let absent_since = Seat::all(seats)
        .map(|s| {
            let person = matches!(state.seats[s.index()], Some(SeatPlayer::Person { .. }));
            (person && state.absence_counts(s)).then_some(now)
        })
        .collect();
    let ended = Arc::new(AtomicBool::new(state.phase == Phase::Ended));
    let (listed, listing) = tokio::sync::watch::channel(state.summary());
    let handle = TableHandle {
        id: state.id.clone(),
        tx: tx.clone(),
        ended: ended.clone(),
        listed: listing,
    };
    let table = Table {
        state,
        log,
        conns: HashMap::new(),
        next_conn: 1,
        left: Vec::new(),
        absent_since,
        idle_since: None,
        idle_reported: false,
        spectators_due: None,
        ended,
        listed,
        thinking: None,
        unsure: false,
        retry_at: None,
        store,
        settings,
        tx,
        fence,
        lost: false,
        listed_last: None,
        rematch_asked: false,
        rematch_made: None,
        rematch_retry_at: None,
    };
    let span = tracing::info_span!("table", id = %handle.id);
    tokio::spawn(tracing::Instrument::instrument(table.run(rx), span));
    handle
}

/// What a timer found due.
enum Due {
    Flag(Seat),
    /// The seat to move has not played its first move in time: the game is aborted.
    FirstMove(Seat),
    Abandoned(Seat),
    /// A seated person of an open table has been away for the grace period: the seat is freed.
    Vacated(Seat),
    /// The ended table has had no connection for the ended grace period.
    Idle,
    /// The agreed rematch failed (its table not made, or its `rematched` event not stored):
    /// the time to try again.
    Rematch,
}

impl Table {
    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        tracing::debug!(version = self.state.version, phase = ?self.state.phase, "table started");
        self.publish_listing();
        self.maybe_think();
        // a rematch agreed before a restart, whose table was not made yet
        self.ask_rematch();
        while !self.lost {
            self.handle_left().await;
            self.refresh_idle();
            let due = self.next_due();
            let sleep = async {
                match due {
                    Some((at, _)) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            let crowd_at = self.spectators_due;
            let crowd = async {
                match crowd_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    None => break,
                    Some(Command::Shutdown { reply }) => {
                        self.save_clocks().await;
                        self.release().await;
                        let _ = reply.send(());
                        break;
                    }
                    Some(Command::Retire { reply }) => {
                        let left = &mut self.left;
                        self.conns.retain(|_, c| keep(left, c, !c.out.is_closed()));
                        self.handle_left().await;
                        // An agreed rematch is made and recorded first.
                        let retired = self.state.phase == Phase::Ended
                            && self.conns.is_empty()
                            && core::rematch_due(&self.state).is_none();
                        let _ = reply.send(retired);
                        if retired {
                            break;
                        }
                        // Not now: a new idle period starts, with its own `Idle` notice.
                        self.idle_since = None;
                    }
                    Some(cmd) => self.handle(cmd).await,
                },
                () = sleep => {
                    if let Some((_, what)) = due {
                        self.on_due(what).await;
                    }
                }
                () = crowd => {
                    self.spectators_due = None;
                    let count = self.spectators();
                    self.send_all(&ServerMessage::Spectators { count });
                }
            }
        }
        tracing::debug!(version = self.state.version, "table stopped");
    }

    /// Publishes the table as listed to its handles after a stored change. A move changes the
    /// version alone, which is set in place: a new summary (the id, the options and the seats
    /// copied) only when the phase or the seats changed.
    fn update_listed(&mut self) {
        let state = &self.state;
        self.listed.send_modify(|listed| {
            if listed.phase == state.phase && listed.seats == state.seats {
                listed.version = state.version;
            } else {
                *listed = state.summary();
            }
        });
    }

    /// Sends the table as listed to the cluster's lobby when its phase or seats changed.
    fn publish_listing(&mut self) {
        let Some(listing) = &self.settings.listing else {
            return;
        };
        let changed = self
            .listed_last
            .as_ref()
            .is_none_or(|(phase, seats)| *phase != self.state.phase || *seats != self.state.seats);
        if changed {
            let _ = listing.send(self.state.summary());
            self.listed_last = Some((self.state.phase, self.state.seats.clone()));
        }
    }

    /// In a cluster, at a clean stop: hands the table over (the next node to ask takes it,
    /// charging nothing, as the clocks were just saved).
    async fn release(&mut self) {
        let Some(fence) = &self.fence else { return };
        if self.lost {
            return;
        }
        match self
            .store
            .release(&self.state.id, &fence.node, fence.epoch)
            .await
        {
            Ok(true) => tracing::debug!(table = %self.state.id, "table released"),
            Ok(false) => {
                tracing::debug!(table = %self.state.id, "table already taken by another node")
            }
            Err(e) => {
                tracing::warn!(table = %self.state.id, error = %e, "table not released: another node takes it once this node's lease lapses")
            }
        }
    }

    /// A write was fenced, or the store says another node owns the table: stop acting on it
    /// (the run loop ends; the connections close, and their clients reconnect to the owner).
    fn lose(&mut self) {
        if !self.lost {
            self.lost = true;
            tracing::warn!(table = %self.state.id, "another node owns this table now: dropped without writing");
            let _ = self
                .settings
                .notices
                .send(TableNotice::Lost(self.state.id.clone()));
        }
    }

    /// In a cluster, after a write failed: whether this node still owns the table (a failure
    /// that is not a fence may hide one, say a key taken by the new owner's event).
    async fn still_owned(&mut self) -> bool {
        let Some(fence) = &self.fence else {
            return true;
        };
        match self.store.ownership(&self.state.id).await {
            Ok(Some(o)) => {
                o.owner.as_deref() == Some(fence.node.as_str()) && o.epoch == fence.epoch
            }
            // Cannot tell: the next write's fence decides.
            _ => true,
        }
    }

    /// Starts or stops the idle time of an ended table: it runs while nobody is connected.
    fn refresh_idle(&mut self) {
        if self.state.phase == Phase::Ended && self.conns.is_empty() {
            if self.idle_since.is_none() {
                self.idle_since = Some(Instant::now());
                self.idle_reported = false;
            }
        } else {
            self.idle_since = None;
        }
    }

    fn next_due(&self) -> Option<(Instant, Due)> {
        let due = self.timer_due()?;
        match self.retry_at {
            Some(retry) if retry > due.0 => Some((retry, due.1)),
            _ => Some(due),
        }
    }

    fn timer_due(&self) -> Option<(Instant, Due)> {
        if self.state.phase == Phase::Ended {
            let idle = self
                .idle_since
                .filter(|_| !self.idle_reported)
                .map(|since| (since + self.settings.ended_grace, Due::Idle));
            return match (idle, self.rematch_retry_at) {
                (Some(idle), Some(retry)) if idle.0 <= retry => Some(idle),
                (_, Some(retry)) => Some((retry, Due::Rematch)),
                (idle, None) => idle,
            };
        }
        let open = self.state.phase == Phase::Open;
        let mut best: Option<(Instant, Due)> = self
            .state
            .clocks
            .as_ref()
            .and_then(|c| c.flag_deadline())
            .filter(|_| !open)
            .map(|(seat, at)| (at, Due::Flag(Seat::new(seat))));
        if let Some((seat, at)) = core::first_move_deadline(&self.state, self.settings.first_move) {
            if best.as_ref().is_none_or(|(b, _)| at < *b) {
                best = Some((at, Due::FirstMove(seat)));
            }
        }
        for (seat, since) in Seat::all(self.absent_since.len()).zip(&self.absent_since) {
            if let Some(since) = since {
                let at = *since + self.settings.grace;
                if best.as_ref().is_none_or(|(b, _)| at < *b) {
                    let due = if open {
                        Due::Vacated(seat)
                    } else {
                        Due::Abandoned(seat)
                    };
                    best = Some((at, due));
                }
            }
        }
        best
    }

    /// Acts on a due timer. The timer is cleared only once its event is stored: when the write
    /// fails, it stays due and is tried again after [`TIMER_RETRY`], until it is recorded.
    async fn on_due(&mut self, due: Due) {
        if let Err(e) = self.settle().await {
            e.log();
            self.retry_at = Some(Instant::now() + TIMER_RETRY);
            return;
        }
        let now = Instant::now();
        let events = match due {
            Due::Flag(seat) => core::flag(&self.state, seat, now).map(|e| vec![e]),
            Due::FirstMove(seat) => {
                core::first_move_missed(&self.state, seat, now, self.settings.first_move)
                    .map(|e| vec![e])
            }
            Due::Abandoned(seat) => {
                if self.absent_since[seat.index()].is_none() {
                    return;
                }
                core::abandon(&self.state, seat).map(|e| vec![e])
            }
            Due::Vacated(seat) => {
                if self.absent_since[seat.index()].is_none() {
                    return;
                }
                Some(core::vacate(&self.state, seat)).filter(|e| !e.is_empty())
            }
            Due::Rematch => {
                self.rematch_retry_at = None;
                if self.rematch_made.is_some() {
                    self.record_rematch().await;
                } else {
                    self.ask_rematch();
                }
                return;
            }
            Due::Idle => {
                self.idle_reported = true;
                let _ = self
                    .settings
                    .notices
                    .send(TableNotice::Idle(self.state.id.clone()));
                return;
            }
        };
        if let Some(events) = events {
            match self.commit(Decision::Events(events), now).await {
                Ok(()) => {
                    self.retry_at = None;
                    if let Due::Abandoned(seat) = due {
                        self.absent_since[seat.index()] = None;
                    }
                }
                Err(e) => {
                    // The timer is still due: try again a little later.
                    e.log();
                    tracing::warn!(table = %self.state.id, "a timer's event was not stored: trying again");
                    self.retry_at = Some(Instant::now() + TIMER_RETRY);
                }
            }
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Connect {
                person,
                since,
                out,
                reply,
            } => {
                let _ = reply.send(self.connect(person, since, out));
            }
            Command::Disconnect { conn } => {
                if let Some(c) = self.conns.remove(&conn) {
                    if let Some(p) = c.person {
                        self.presence_changed(&p);
                        self.withdraw_rematch(&p).await;
                    }
                    self.send_spectators();
                }
            }
            Command::Message { conn, msg, reply } => {
                let result = match self.settle().await {
                    Ok(()) => self.message(conn, msg).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Command::Summary { reply } => {
                let _ = reply.send(self.state.summary());
            }
            Command::ComputerMoved { version, mv } => {
                // An answer sent just before its search was aborted leaves the newer search be.
                if self.thinking.as_ref().is_some_and(|(v, _)| *v == version) {
                    self.thinking = None;
                }
                if let Err(e) = self.settle().await {
                    e.log();
                } else if self.state.answers_position(version) {
                    if let Some(seat) = self.state.to_move() {
                        let now = Instant::now();
                        let decision = core::move_or_flag(&self.state, seat, mv, now);
                        if let Err(e) = self.commit(decision, now).await {
                            e.log();
                        }
                    }
                }
                self.maybe_think();
            }
            Command::Rematched { table } => {
                self.rematch_asked = false;
                match table {
                    Some(table) => {
                        self.rematch_made = Some(table);
                        self.record_rematch().await;
                    }
                    // Not made: asked for again a little later.
                    None => self.rematch_retry_at = Some(Instant::now() + TIMER_RETRY),
                }
            }
            Command::Shutdown { .. } | Command::Retire { .. } => {}
        }
    }

    /// Handles the leaving of the persons whose connections were found closed while sending
    /// ([`Table::left`]) as their `disconnect` would: the others are told (and the grace period
    /// starts), a rematch they asked for is withdrawn, the spectators are counted again.
    async fn handle_left(&mut self) {
        while !self.left.is_empty() {
            for p in std::mem::take(&mut self.left) {
                self.presence_changed(&p);
                self.withdraw_rematch(&p).await;
            }
            self.send_spectators();
        }
    }

    /// Withdraws the rematch that `person` asked for once none of its connections is left.
    async fn withdraw_rematch(&mut self, person: &Person) {
        let Some(seat) = self.state.seat_of(person) else {
            return;
        };
        if self.is_connected(seat) || self.settle().await.is_err() {
            return;
        }
        if let Some(event) = core::withdraw_rematch(&self.state, seat) {
            if let Err(e) = self
                .commit(Decision::Events(vec![event]), Instant::now())
                .await
            {
                e.log();
            }
        }
    }

    /// Stores the `rematched` event of the table made for the agreed rematch
    /// ([`Table::rematch_made`]); when the write fails, the same table is recorded again
    /// after [`TIMER_RETRY`].
    async fn record_rematch(&mut self) {
        let Some(table) = self.rematch_made.clone() else {
            return;
        };
        let now = Instant::now();
        let stored = match self.settle().await {
            Ok(()) => match core::rematched(&self.state, &table) {
                Some(event) => self.commit(Decision::Events(vec![event]), now).await,
                // Recorded already (a write reported as failed had landed).
                None => Ok(()),
            },
            Err(e) => Err(e),
        };
        match stored {
            Ok(()) => self.rematch_made = None,
            Err(e) => {
                e.log();
                tracing::warn!(table = %self.state.id, rematch = %table, "the rematch's table was not recorded: trying again");
                self.rematch_retry_at = Some(Instant::now() + TIMER_RETRY);
            }
        }
    }

    /// Asks the owner for the rematch's table once every seat wants it (once per agreement,
    /// and not while a table made for it waits to be recorded).
    fn ask_rematch(&mut self) {
        if self.rematch_asked || self.rematch_made.is_some() {
            return;
        }
        if let Some((options, seats)) = core::rematch_due(&self.state) {
            self.rematch_asked = true;
            let _ = self.settings.notices.send(TableNotice::Rematch {
                table: self.state.id.clone(),
                options,
                seats,
            });
        }
    }

    /// Starts the computer's search when a computer seat is to move. The search gets what it
    /// needs from the game ([`computer::Problem`]), not a copy of the game, and the share of its
    /// clock it may use ([`computer::clock_share`]). A search for an earlier position is
    /// aborted first: waiting in line, it leaves the line; already running, its answer is
    /// dropped. A search for the same position at an earlier version (a draw offer and its
    /// answer came in between) goes on.
    fn maybe_think(&mut self) {
        let version = self.state.version;
        if let Some((started_for, task)) = self.thinking.take() {
            if self.state.answers_position(started_for) {
                self.thinking = Some((started_for, task));
                return;
            }
            task.abort();
        }
        let Some(seat) = self.state.to_move() else {
            return;
        };
        let Some(level) = self.state.computer_level(seat) else {
            return;
        };
        let Some(problem) = computer::Problem::of(&self.state.game) else {
            return;
        };
        let clock = self.state.clocks.as_ref().map(|c| {
            computer::clock_share(
                c.remaining(seat.index(), Instant::now()),
                c.increment(seat.index()),
            )
        });
        let tx = self.tx.clone();
        let seed = rand::random();
        let task = tokio::spawn(async move {
            // On the bounded pool, answering after the pause at the earliest.
            if let Some(mv) = computer::think(problem, level, seed, clock).await {
                let _ = tx.send(Command::ComputerMoved { version, mv }).await;
            }
        });
        self.thinking = Some((version, task.abort_handle()));
    }

    async fn message(&mut self, conn: u64, msg: ClientMessage) -> Result<(), ServerError> {
        let at = Instant::now();
        match msg {
            ClientMessage::Ping {} => return Ok(()),
            ClientMessage::Chat { text } => return self.chat(conn, &text),
            ClientMessage::Sync { since } => {
                let c = self
                    .conns
                    .get(&conn)
                    .ok_or_else(|| ServerError::Internal("unknown connection".to_owned()))?;
                let since = since.unwrap_or(self.state.version);
                if since > self.state.version {
                    return Err(ServerError::BadMessage(format!(
                        "since {since} is beyond the table's version {}",
                        self.state.version
                    )));
                }
                self.replay(&c.out, since);
                let _ = c
                    .out
                    .send(ServerMessage::State(Box::new(self.view(c.person.as_ref()))));
                return Ok(());
            }
            _ => {}
        }
        let person = self.conns.get(&conn).and_then(|c| c.person.clone());
        let connected = self.connected();
        let caller = Caller {
            person: person.as_ref(),
            connected: &connected,
        };
        let decision = core::decide(&self.state, caller, &msg, at)?;
        self.commit(decision, at).await?;
        if let (ClientMessage::Sit { .. }, Some(p)) = (&msg, &person) {
            self.presence_changed(p);
        }
        if matches!(msg, ClientMessage::Sit { .. } | ClientMessage::Stand {}) {
            self.send_spectators();
        }
        Ok(())
    }
}
