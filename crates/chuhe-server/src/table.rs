//! One actor task per table: it owns the game, the seats and the clocks, and is reached through
//! a cloneable [`TableHandle`].
//!
//! Every change is an [`Event`]. An action is checked against the state, turned into events,
//! applied to a copy of the state, written to the database (events and table row in one
//! transaction) and only then made current and sent to the connections. Bringing a table back
//! after a restart replays its stored events through the same `apply`, and so does bringing back
//! an ended table whose actor was retired ([`TableHandle::retire`]) to free memory.

use crate::clock::{ClockSnapshot, Clocks};
use crate::computer;
use crate::error::ServerError;
use crate::protocol::{
    ClientMessage, Event, FinishedGame, Phase, SeatPlayer, ServerMessage, State, TableOptions,
    TableSummary,
};
use crate::rating::{rate_game, Rating};
use crate::store::{RatingRow, Store, TableRow};
use crate::variant::{AnyGame, AnyMove, MoveError, RuleOptions};
use chuhe_rules::outcome::{EndReason, Outcome};
use chuhe_rules::xiangqi::{DEFAULT_NO_CAPTURE_LIMIT, MAX_NO_CAPTURE_LIMIT};
use std::collections::HashMap;
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
    /// How long an ended table waits without any WebSocket connection before it reports
    /// [`TableNotice::Idle`].
    pub ended_grace: Duration,
    /// Where the actor reports what its owner may want to act on (the server's map of tables).
    pub notices: mpsc::UnboundedSender<TableNotice>,
}

/// What a table actor reports to the owner of the tables, with the table's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableNotice {
    /// The game has just ended in play.
    Ended(String),
    /// The table has ended and has had no WebSocket connection for the ended grace period: it
    /// may be retired ([`TableHandle::retire`]).
    Idle(String),
}

/// What a table actor is asked to do.
enum Command {
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
}

/// The way to a table actor; cheap to clone.
#[derive(Debug, Clone)]
pub struct TableHandle {
    id: String,
    tx: mpsc::Sender<Command>,
    /// Set by the actor once the table has ended (it never goes back).
    ended: Arc<AtomicBool>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Command")
    }
}

fn gone() -> ServerError {
    ServerError::NotFound("the table is closed".to_owned())
}

/// Whether `e` is the error of a handle whose actor has stopped (retired or shut down): the
/// table itself may still exist in the store, and a new handle brings it back.
pub fn is_closed_error(e: &ServerError) -> bool {
    *e == gone()
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
        }
        Variant::Sanguo => {
            if options.no_capture_limit.is_some() {
                return Err(ServerError::BadMessage(
                    "no_capture_limit is a xiangqi option".to_owned(),
                ));
            }
            options.flag_bearers = Some(options.flag_bearers.unwrap_or(true));
        }
        Variant::Banqi => {
            if options.no_capture_limit.is_some() || options.flag_bearers.is_some() {
                return Err(ServerError::BadMessage(
                    "banqi takes no rule options".to_owned(),
                ));
            }
        }
    }
    Ok(options)
}

/// The rule options a table's options fix (defaults filled in).
pub fn rule_options(options: &TableOptions) -> RuleOptions {
    RuleOptions {
        no_capture_limit: options.no_capture_limit.unwrap_or(DEFAULT_NO_CAPTURE_LIMIT),
        flag_bearers: options.flag_bearers.unwrap_or(true),
    }
}

/// Everything that events change; cloned, changed and stored before it becomes current.
#[derive(Debug, Clone)]
struct TableState {
    id: String,
    options: TableOptions,
    phase: Phase,
    version: u64,
    seats: Vec<Option<SeatPlayer>>,
    game: AnyGame,
    clocks: Option<Clocks>,
    draw_offer: Option<usize>,
    /// When the table was created, milliseconds since the Unix epoch.
    created_ms: i64,
}

impl TableState {
    fn new(id: String, options: TableOptions, created_ms: i64) -> TableState {
        let game = AnyGame::new(options.variant, rule_options(&options));
        let seats = options.variant.seat_count();
        let clocks = options.time.map(|t| {
            Clocks::new(
                seats,
                Duration::from_millis(t.initial_ms),
                Duration::from_millis(t.increment_ms),
            )
        });
        TableState {
            id,
            options,
            phase: Phase::Open,
            version: 0,
            seats: vec![None; seats],
            game,
            clocks,
            draw_offer: None,
            created_ms,
        }
    }

    fn increment(&self) -> Duration {
        Duration::from_millis(self.options.time.map_or(0, |t| t.increment_ms))
    }

    /// Applies one event at `at`. Errors only for stored events that do not fit (corrupt data).
    fn apply(&mut self, event: &Event, at: Instant) -> Result<(), String> {
        match event {
            Event::Created { .. } => {}
            Event::Sat { seat, player } => {
                *self.seats.get_mut(*seat).ok_or("bad seat")? = Some(player.clone());
            }
            Event::Stood { seat } => {
                *self.seats.get_mut(*seat).ok_or("bad seat")? = None;
            }
            Event::Started => {
                self.phase = Phase::Running;
                let first = self.game.seat_to_move();
                if let Some(c) = &mut self.clocks {
                    c.start(first, at);
                }
            }
            Event::Moved { mv, clocks_ms, .. } => {
                self.game.play_record(mv).map_err(|e| e.to_string())?;
                self.draw_offer = None;
                let over = self.game.outcome().is_some();
                let next = self.game.seat_to_move();
                if let Some(c) = &mut self.clocks {
                    c.stop_after_move(at);
                    if let Some(ms) = clocks_ms {
                        c.set_remaining_ms(ms);
                    }
                    if !over {
                        c.start(next, at);
                    }
                }
            }
            Event::DrawOffered { seat } => self.draw_offer = Some(*seat),
            Event::DrawDeclined { .. } => self.draw_offer = None,
            Event::Ended {
                outcome,
                winner_seats,
                ..
            } => {
                self.game.end(outcome.clone(), winner_seats.clone());
                self.phase = Phase::Ended;
                self.draw_offer = None;
                if let Some(c) = &mut self.clocks {
                    c.stop(at);
                }
            }
        }
        self.version += 1;
        Ok(())
    }

    fn summary(&self) -> TableSummary {
        TableSummary {
            id: self.id.clone(),
            options: self.options.clone(),
            phase: self.phase,
            seats: self.seats.clone(),
            version: self.version,
        }
    }

    fn row(&self, now: Instant) -> TableRow {
        TableRow {
            id: self.id.clone(),
            options: serde_json::to_string(&self.options).unwrap_or_default(),
            phase: self.phase.as_str().to_owned(),
            version: self.version,
            clocks: self
                .clocks
                .as_ref()
                .and_then(|c| serde_json::to_string(&c.snapshot(now)).ok()),
            secret: None,
            created_ms: self.created_ms,
        }
    }

    fn seat_of(&self, person: &Person) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| matches!(s, Some(SeatPlayer::Person { id, .. }) if *id == person.id))
    }

    fn to_move(&self) -> Option<usize> {
        (self.phase == Phase::Running).then(|| self.game.seat_to_move())
    }

    fn computer_level(&self, seat: usize) -> Option<u8> {
        match self.seats.get(seat) {
            Some(Some(SeatPlayer::Computer { level })) => Some(*level),
            _ => None,
        }
    }
}

struct Connection {
    person: Option<Person>,
    out: mpsc::UnboundedSender<ServerMessage>,
}

/// The actor: the state plus what only lives in memory (connections, event log, timers).
struct Table {
    state: TableState,
    log: Vec<Event>,
    conns: HashMap<u64, Connection>,
    next_conn: u64,
    absent_since: Vec<Option<Instant>>,
    /// Since when the ended table has had no connection (`None` while live or watched).
    idle_since: Option<Instant>,
    /// Whether [`TableNotice::Idle`] was sent for the current `idle_since`.
    idle_reported: bool,
    /// Shared with the handles: set once the table has ended.
    ended: Arc<AtomicBool>,
    thinking_for: Option<u64>,
    store: Store,
    settings: TableSettings,
    tx: mpsc::Sender<Command>,
}

/// Creates a table: stores it with its `created` event and starts its actor.
///
/// # Errors
/// Bad options, or the database failed.
pub async fn create(
    store: &Store,
    settings: TableSettings,
    id: String,
    options: TableOptions,
) -> Result<TableHandle, ServerError> {
    let options = check_options(options)?;
    let mut state = TableState::new(id.clone(), options.clone(), crate::store::now_ms());
    let created = Event::Created { options };
    let now = Instant::now();
    state.apply(&created, now).map_err(ServerError::Internal)?;
    let body = serde_json::to_string(&created)?;
    store
        .create_table(&state.row(now), state.options.variant.as_str(), &body)
        .await?;
    Ok(spawn(state, vec![created], store.clone(), settings))
}

/// Brings a stored table back: replays its events, restores its clocks from the snapshot and
/// starts its actor (the running clock restarts now; the time the server was down is not
/// charged).
///
/// # Errors
/// No such table, or its stored data do not replay.
pub async fn load(
    store: &Store,
    settings: TableSettings,
    id: &str,
) -> Result<TableHandle, ServerError> {
    let row = store
        .table(id)
        .await?
        .ok_or_else(|| ServerError::NotFound(format!("no table {id:?}")))?;
    let options: TableOptions = serde_json::from_str(&row.options)?;
    let mut state = TableState::new(row.id.clone(), options, row.created_ms);
    let now = Instant::now();
    let mut log = Vec::new();
    for (version, body) in store.events(id).await? {
        let event: Event = serde_json::from_str(&body)?;
        state.apply(&event, now).map_err(|e| {
            ServerError::Internal(format!("table {id} event {version} does not replay: {e}"))
        })?;
        log.push(event);
    }
    if state.version != row.version {
        return Err(ServerError::Internal(format!(
            "table {id}: {} events stored, row says {}",
            state.version, row.version
        )));
    }
    let increment = state.increment();
    if let (Some(c), Some(text)) = (&mut state.clocks, &row.clocks) {
        let snap: ClockSnapshot = serde_json::from_str(text)?;
        let running = c.running_seat();
        *c = Clocks::from_snapshot(&snap, increment);
        if let Some(seat) = running {
            c.start(seat, now);
        }
    }
    Ok(spawn(state, log, store.clone(), settings))
}

fn spawn(state: TableState, log: Vec<Event>, store: Store, settings: TableSettings) -> TableHandle {
    let (tx, rx) = mpsc::channel(64);
    let seats = state.seats.len();
    let now = Instant::now();
    // After a restart nobody is connected: every seated person of an open table or an active
    // seat of a running game gets the grace period.
    let absent_since = (0..seats)
        .map(|s| {
            let person = matches!(state.seats[s], Some(SeatPlayer::Person { .. }));
            let counts = match state.phase {
                Phase::Open => true,
                Phase::Running => state.game.is_active(s),
                Phase::Ended => false,
            };
            (person && counts).then_some(now)
        })
        .collect();
    let ended = Arc::new(AtomicBool::new(state.phase == Phase::Ended));
    let handle = TableHandle {
        id: state.id.clone(),
        tx: tx.clone(),
        ended: ended.clone(),
    };
    let table = Table {
        state,
        log,
        conns: HashMap::new(),
        next_conn: 1,
        absent_since,
        idle_since: None,
        idle_reported: false,
        ended,
        thinking_for: None,
        store,
        settings,
        tx,
    };
    tokio::spawn(table.run(rx));
    handle
}

/// What a timer found due.
enum Due {
    Flag(usize),
    Abandoned(usize),
    /// A seated person of an open table has been away for the grace period: the seat is freed.
    Vacated(usize),
    /// The ended table has had no connection for the ended grace period.
    Idle,
}

impl Table {
    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        self.maybe_think();
        loop {
            self.refresh_idle();
            let due = self.next_due();
            let sleep = async {
                match due {
                    Some((at, _)) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    None => break,
                    Some(Command::Shutdown { reply }) => {
                        self.save_clocks().await;
                        let _ = reply.send(());
                        break;
                    }
                    Some(Command::Retire { reply }) => {
                        self.conns.retain(|_, c| !c.out.is_closed());
                        let retired = self.state.phase == Phase::Ended && self.conns.is_empty();
                        let _ = reply.send(retired);
                        if retired {
                            break;
                        }
                    }
                    Some(cmd) => self.handle(cmd).await,
                },
                () = sleep => {
                    if let Some((_, what)) = due {
                        self.on_due(what).await;
                    }
                }
            }
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
        if self.state.phase == Phase::Ended {
            return self
                .idle_since
                .filter(|_| !self.idle_reported)
                .map(|since| (since + self.settings.ended_grace, Due::Idle));
        }
        let open = self.state.phase == Phase::Open;
        let mut best: Option<(Instant, Due)> = self
            .state
            .clocks
            .as_ref()
            .and_then(|c| c.flag_deadline())
            .filter(|_| !open)
            .map(|(seat, at)| (at, Due::Flag(seat)));
        for (seat, since) in self.absent_since.iter().enumerate() {
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

    async fn on_due(&mut self, due: Due) {
        let now = Instant::now();
        let ending = match due {
            Due::Flag(seat) => {
                let flagged = self.state.clocks.as_ref().and_then(|c| c.flag_deadline());
                match flagged {
                    Some((s, at)) if s == seat && at <= now => {
                        self.state.game.table_ending(seat, EndReason::Timeout)
                    }
                    _ => return,
                }
            }
            Due::Abandoned(seat) => {
                if self.absent_since[seat].is_none() {
                    return;
                }
                self.absent_since[seat] = None;
                self.state.game.table_ending(seat, EndReason::Abandonment)
            }
            Due::Vacated(seat) => {
                if self.absent_since[seat].is_none() || self.state.phase != Phase::Open {
                    return;
                }
                if let Err(e) = self.commit(vec![Event::Stood { seat }], now).await {
                    e.log();
                    tokio::time::sleep(Duration::from_secs(1)).await;
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
        if let Some((outcome, seats)) = ending {
            if let Err(e) = self.commit(vec![ended(outcome, seats)], now).await {
                // The ending is due again at once: wait a little before the next try.
                e.log();
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }

    async fn save_clocks(&self) {
        if self.state.clocks.is_some() && self.state.phase == Phase::Running {
            if let Err(e) = self.store.save_row(&self.state.row(Instant::now())).await {
                e.log();
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
                    }
                }
            }
            Command::Message { conn, msg, reply } => {
                let result = self.message(conn, msg).await;
                let _ = reply.send(result);
            }
            Command::Summary { reply } => {
                let _ = reply.send(self.state.summary());
            }
            Command::ComputerMoved { version, mv } => {
                self.thinking_for = None;
                if version == self.state.version {
                    if let Some(seat) = self.state.to_move() {
                        if let Err(e) = self.play(seat, mv, Instant::now()).await {
                            e.log();
                        }
                    }
                }
                self.maybe_think();
            }
            Command::Shutdown { .. } | Command::Retire { .. } => {}
        }
    }

    fn connect(
        &mut self,
        person: Option<Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
    ) -> Result<u64, ServerError> {
        if let Some(since) = since {
            if since > self.state.version {
                return Err(ServerError::BadMessage(format!(
                    "since {since} is beyond the table's version {}",
                    self.state.version
                )));
            }
            self.replay(&out, since);
        }
        let id = self.next_conn;
        self.next_conn += 1;
        let _ = out.send(ServerMessage::State(Box::new(self.view(person.as_ref()))));
        self.conns.insert(
            id,
            Connection {
                person: person.clone(),
                out,
            },
        );
        if let Some(p) = person {
            self.presence_changed(&p);
        }
        Ok(id)
    }

    fn replay(&self, out: &mpsc::UnboundedSender<ServerMessage>, since: u64) {
        for (i, event) in self.log.iter().enumerate().skip(since as usize) {
            let _ = out.send(ServerMessage::Event {
                version: i as u64 + 1,
                event: event.clone(),
            });
        }
    }

    fn is_connected(&self, seat: usize) -> bool {
        match &self.state.seats[seat] {
            Some(SeatPlayer::Computer { .. }) => true,
            Some(SeatPlayer::Person { id, .. }) => self
                .conns
                .values()
                .any(|c| c.person.as_ref().is_some_and(|p| p.id == *id)),
            None => false,
        }
    }

    /// Updates the grace timer of the person's seat and tells everybody.
    fn presence_changed(&mut self, person: &Person) {
        let Some(seat) = self.state.seat_of(person) else {
            return;
        };
        let connected = self.is_connected(seat);
        let was_absent = self.absent_since[seat].is_some();
        if connected {
            self.absent_since[seat] = None;
        } else if !was_absent
            && match self.state.phase {
                Phase::Open => true,
                Phase::Running => self.state.game.is_active(seat),
                Phase::Ended => false,
            }
        {
            self.absent_since[seat] = Some(Instant::now());
        }
        self.send_all(&ServerMessage::Presence { seat, connected });
    }

    fn send_all(&mut self, msg: &ServerMessage) {
        self.conns.retain(|_, c| c.out.send(msg.clone()).is_ok());
    }

    fn view(&self, person: Option<&Person>) -> State {
        let s = &self.state;
        let you = person.and_then(|p| s.seat_of(p));
        let to_move = s.to_move();
        let now = Instant::now();
        State {
            version: s.version,
            table: s.summary(),
            you,
            board: s.game.view(you),
            to_move,
            check: s.game.check_seats(),
            legal_moves: if you.is_some() && you == to_move {
                s.game.legal_moves()
            } else {
                Vec::new()
            },
            clocks: s.clocks.as_ref().map(|c| c.view(now)),
            draw_offer: s.draw_offer,
            connected: (0..s.seats.len()).map(|i| self.is_connected(i)).collect(),
            outcome: s.game.outcome().filter(|_| s.phase == Phase::Ended),
            winner_seats: if s.phase == Phase::Ended {
                s.game.winner_seats()
            } else {
                Vec::new()
            },
        }
    }

    /// Stores `events`, makes them current and sends them, each connection getting its view.
    async fn commit(&mut self, events: Vec<Event>, at: Instant) -> Result<(), ServerError> {
        let mut next = self.state.clone();
        let mut bodies = Vec::new();
        for e in &events {
            next.apply(e, at).map_err(ServerError::Internal)?;
            bodies.push((next.version, serde_json::to_string(e)?));
        }
        let ends = self.state.phase != Phase::Ended && next.phase == Phase::Ended;
        let ratings = if ends {
            self.ratings_after(&next).await?
        } else {
            Vec::new()
        };
        let finished = if ends {
            FinishedGame::from_events(
                &next.id,
                next.created_ms,
                crate::store::now_ms(),
                self.log.iter().chain(&events),
            )
        } else {
            None
        };
        self.store
            .append_events(&next.row(at), &bodies, &ratings, finished.as_ref())
            .await?;
        let first = self.state.version + 1;
        let started = self.state.phase == Phase::Open && next.phase == Phase::Running;
        self.state = next;
        // A freed seat has nobody to wait for.
        for (seat, s) in self.state.seats.iter().enumerate() {
            if s.is_none() {
                self.absent_since[seat] = None;
            }
        }
        if ends {
            self.absent_since.iter_mut().for_each(|a| *a = None);
            self.ended.store(true, Ordering::Release);
            let _ = self
                .settings
                .notices
                .send(TableNotice::Ended(self.state.id.clone()));
        }
        if started {
            // A seated person who is not connected when the game starts gets the grace period.
            let now = Instant::now();
            for seat in 0..self.state.seats.len() {
                if !self.is_connected(seat) && self.state.game.is_active(seat) {
                    self.absent_since[seat] = Some(now);
                }
            }
        }
        for (i, e) in events.iter().enumerate() {
            self.send_all(&ServerMessage::Event {
                version: first + i as u64,
                event: e.clone(),
            });
        }
        self.log.extend(events);
        let views: Vec<(u64, State)> = self
            .conns
            .iter()
            .map(|(id, c)| (*id, self.view(c.person.as_ref())))
            .collect();
        for (id, view) in views {
            if let Some(c) = self.conns.get(&id) {
                if c.out.send(ServerMessage::State(Box::new(view))).is_err() {
                    self.conns.remove(&id);
                }
            }
        }
        self.maybe_think();
        Ok(())
    }

    /// The new ratings of a rated game that `next` ends (none for an aborted game).
    async fn ratings_after(&self, next: &TableState) -> Result<Vec<RatingRow>, ServerError> {
        let aborted = next
            .game
            .outcome()
            .is_some_and(|o| o.reason == EndReason::Aborted);
        if !next.options.rated || aborted {
            return Ok(Vec::new());
        }
        let variant = next.options.variant.as_str();
        let mut before = Vec::new();
        for seat in &next.seats {
            match seat {
                Some(SeatPlayer::Person { id, .. }) => {
                    before.push(self.store.rating(id, variant).await?)
                }
                // Rated tables seat account holders only.
                _ => return Ok(Vec::new()),
            }
        }
        let winners = next.game.winner_seats();
        let won: Vec<bool> = (0..before.len()).map(|s| winners.contains(&s)).collect();
        let ratings: Vec<Rating> = before.iter().map(|r| r.rating).collect();
        Ok(rate_game(&ratings, &won)
            .into_iter()
            .zip(before)
            .map(|(rating, old)| RatingRow {
                rating,
                games: old.games + 1,
                ..old
            })
            .collect())
    }

    /// Starts the computer's search when a computer seat is to move.
    fn maybe_think(&mut self) {
        let Some(seat) = self.state.to_move() else {
            return;
        };
        let Some(level) = self.state.computer_level(seat) else {
            return;
        };
        let version = self.state.version;
        if self.thinking_for == Some(version) {
            return;
        }
        self.thinking_for = Some(version);
        let game = self.state.game.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let found = tokio::task::spawn_blocking(move || {
                computer::choose(&game, level, &mut rand::thread_rng())
            })
            .await;
            if let Ok(Some(mv)) = found {
                let _ = tx.send(Command::ComputerMoved { version, mv }).await;
            }
        });
    }

    fn seat_or_refuse(&self, conn: u64) -> Result<(usize, Person), ServerError> {
        let person = self
            .conns
            .get(&conn)
            .and_then(|c| c.person.clone())
            .ok_or(ServerError::NotSeated)?;
        let seat = self.state.seat_of(&person).ok_or(ServerError::NotSeated)?;
        Ok((seat, person))
    }

    fn running(&self) -> Result<(), ServerError> {
        match self.state.phase {
            Phase::Running => Ok(()),
            Phase::Open => Err(ServerError::NotAllowed(
                "the game has not started".to_owned(),
            )),
            Phase::Ended => Err(ServerError::NotAllowed("the game has ended".to_owned())),
        }
    }

    fn open(&self) -> Result<(), ServerError> {
        match self.state.phase {
            Phase::Open => Ok(()),
            _ => Err(ServerError::NotAllowed(
                "seats change only before the start".to_owned(),
            )),
        }
    }

    async fn message(&mut self, conn: u64, msg: ClientMessage) -> Result<(), ServerError> {
        let at = Instant::now();
        match msg {
            ClientMessage::Ping => Ok(()),
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
                Ok(())
            }
            ClientMessage::Sit { seat } => {
                let person = self
                    .conns
                    .get(&conn)
                    .and_then(|c| c.person.clone())
                    .ok_or_else(|| {
                        ServerError::Unauthorized("sitting needs a session".to_owned())
                    })?;
                self.open()?;
                self.free_seat(seat)?;
                if self.state.options.rated && !person.account {
                    return Err(ServerError::Unauthorized(
                        "rated tables are for account holders".to_owned(),
                    ));
                }
                if self.state.seat_of(&person).is_some() {
                    return Err(ServerError::Conflict(
                        "you already sit at this table".to_owned(),
                    ));
                }
                let player = SeatPlayer::Person {
                    id: person.id.clone(),
                    name: person.name.clone(),
                    account: person.account,
                };
                self.commit(vec![Event::Sat { seat, player }], at).await?;
                self.presence_changed(&person);
                Ok(())
            }
            ClientMessage::SitComputer { seat, level } => {
                self.seat_or_refuse(conn)?;
                self.open()?;
                if self.state.options.rated {
                    return Err(ServerError::NotAllowed(
                        "the computer does not play rated games".to_owned(),
                    ));
                }
                if !(1..=computer::MAX_LEVEL).contains(&level) {
                    return Err(ServerError::BadMessage(format!(
                        "level must be between 1 and {}",
                        computer::MAX_LEVEL
                    )));
                }
                self.free_seat(seat)?;
                let player = SeatPlayer::Computer { level };
                self.commit(vec![Event::Sat { seat, player }], at).await
            }
            ClientMessage::Stand => {
                let (seat, _) = self.seat_or_refuse(conn)?;
                self.open()?;
                self.commit(vec![Event::Stood { seat }], at).await
            }
            ClientMessage::Start => {
                self.seat_or_refuse(conn)?;
                self.open()?;
                if self.state.seats.iter().any(Option::is_none) {
                    return Err(ServerError::NotAllowed(
                        "every seat must be taken to start".to_owned(),
                    ));
                }
                if !(0..self.state.seats.len()).all(|seat| self.is_connected(seat)) {
                    return Err(ServerError::NotReady);
                }
                self.commit(vec![Event::Started], at).await
            }
            ClientMessage::Move { version, mv } => {
                let (seat, _) = self.seat_or_refuse(conn)?;
                self.running()?;
                if version != self.state.version {
                    return Err(ServerError::StaleVersion {
                        got: version,
                        current: self.state.version,
                    });
                }
                if self.state.to_move() != Some(seat) {
                    return Err(ServerError::NotYourTurn);
                }
                let m = self
                    .state
                    .game
                    .parse_move(&mv)
                    .map_err(|e| ServerError::IllegalMove(move_error_text(&mv, e)))?;
                self.play(seat, m, at).await
            }
            ClientMessage::Resign => {
                let (seat, _) = self.seat_or_refuse(conn)?;
                self.running()?;
                let (outcome, seats) = self
                    .state
                    .game
                    .table_ending(seat, EndReason::Resignation)
                    .ok_or_else(|| {
                    ServerError::NotAllowed("your side is already out of the game".to_owned())
                })?;
                self.commit(vec![ended(outcome, seats)], at).await
            }
            ClientMessage::OfferDraw => {
                let (seat, _) = self.seat_or_refuse(conn)?;
                self.running()?;
                self.draw_variant()?;
                match self.state.draw_offer {
                    Some(s) if s == seat => Err(ServerError::NotAllowed(
                        "you already offered a draw".to_owned(),
                    )),
                    Some(_) => {
                        let outcome = Outcome::draw(EndReason::Agreement);
                        self.commit(vec![ended(outcome, Vec::new())], at).await
                    }
                    None => self.commit(vec![Event::DrawOffered { seat }], at).await,
                }
            }
            ClientMessage::AcceptDraw | ClientMessage::DeclineDraw => {
                let (seat, _) = self.seat_or_refuse(conn)?;
                self.running()?;
                self.draw_variant()?;
                match self.state.draw_offer {
                    Some(s) if s != seat => {
                        let event = if msg == ClientMessage::AcceptDraw {
                            ended(Outcome::draw(EndReason::Agreement), Vec::new())
                        } else {
                            Event::DrawDeclined { seat }
                        };
                        self.commit(vec![event], at).await
                    }
                    _ => Err(ServerError::NotAllowed(
                        "there is no draw offer to answer".to_owned(),
                    )),
                }
            }
            ClientMessage::Abort => {
                self.seat_or_refuse(conn)?;
                self.running()?;
                if self.state.game.ply() > 0 {
                    return Err(ServerError::NotAllowed(
                        "a game can be aborted only before its first move".to_owned(),
                    ));
                }
                let outcome = Outcome::draw(EndReason::Aborted);
                self.commit(vec![ended(outcome, Vec::new())], at).await
            }
        }
    }

    fn draw_variant(&self) -> Result<(), ServerError> {
        if self.state.options.variant.has_draw_offers() {
            Ok(())
        } else {
            Err(ServerError::NotAllowed(
                "this game has no draw offers".to_owned(),
            ))
        }
    }

    fn free_seat(&self, seat: usize) -> Result<(), ServerError> {
        match self.state.seats.get(seat) {
            None => Err(ServerError::BadMessage(format!(
                "seat {seat} does not exist (seats 0 to {})",
                self.state.seats.len() - 1
            ))),
            Some(Some(_)) => Err(ServerError::Conflict(format!("seat {seat} is taken"))),
            Some(None) => Ok(()),
        }
    }

    /// Checks a move on a copy, charges the clock, and commits the move (and the end, if any).
    async fn play(&mut self, seat: usize, mv: AnyMove, at: Instant) -> Result<(), ServerError> {
        // A move that arrives after the flag fell loses on time, whatever it is.
        if let Some((s, deadline)) = self.state.clocks.as_ref().and_then(|c| c.flag_deadline()) {
            if s == seat && deadline <= at {
                if let Some((outcome, seats)) =
                    self.state.game.table_ending(seat, EndReason::Timeout)
                {
                    return self.commit(vec![ended(outcome, seats)], at).await;
                }
            }
        }
        let mut trial = self.state.game.clone();
        let record = trial
            .play(mv)
            .map_err(|e| ServerError::IllegalMove(move_error_text(&mv.to_string(), e)))?;
        let clocks_ms = self.state.clocks.as_ref().map(|c| {
            let mut c = c.clone();
            c.stop_after_move(at);
            c.remaining_ms(at)
        });
        let mut events = vec![Event::Moved {
            seat,
            mv: record,
            ply: trial.ply(),
            clocks_ms,
        }];
        if let Some(outcome) = trial.outcome() {
            events.push(ended(outcome, trial.winner_seats()));
        }
        self.commit(events, at).await
    }
}

/// The `ended` event: the result text only when the outcome names the winners by colour (a
/// banqi seat that wins before the first flip has none).
fn ended(outcome: Outcome, winner_seats: Vec<usize>) -> Event {
    let result = if outcome.winners.is_empty() && !winner_seats.is_empty() {
        None
    } else {
        outcome.result_text().map(str::to_owned)
    };
    Event::Ended {
        result,
        outcome,
        winner_seats,
    }
}

fn move_error_text(text: &str, e: MoveError) -> String {
    match e {
        MoveError::Syntax(m) => m.to_string(),
        MoveError::Illegal(reason) => format!("{text} ({reason})"),
    }
}
