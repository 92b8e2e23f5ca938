//! The table rules, with no I/O: a [`TableState`] that only events change ([`TableState::apply`]),
//! and the decisions that turn a message or a due timer into events ([`decide`], [`play`],
//! [`flag`], [`abandon`], [`vacate`]). Nothing here knows a socket, a database or a task: the
//! actor shell ([`super::actor`]) stores what the core decides and sends it out.
//!
//! A move is the one decision that cannot be written as events before it is played: its record
//! is known only once the game has played it (a banqi flip draws its piece then). So [`decide`]
//! answers a legal-looking move with [`Decision::Play`], and [`play`] plays it on the live state
//! in place, returning its `moved` event (and the `ended` event it causes) already applied. An
//! illegal move leaves the state unchanged.

use super::Person;
use crate::clock::Clocks;
use crate::computer;
use crate::error::ServerError;
use crate::protocol::{ClientMessage, Event, Phase, SeatPlayer, State, TableOptions, TableSummary};
use crate::store::TableRow;
use crate::variant::{AnyGame, AnyMove, MoveError};
use chuhe_rules::outcome::{EndReason, Outcome};
use std::time::Duration;
use tokio::time::Instant;

/// Everything that events change: options, phase, version, seats, game, clocks and draw offer.
#[derive(Debug)]
pub(crate) struct TableState {
    pub(crate) id: String,
    pub(crate) options: TableOptions,
    pub(crate) phase: Phase,
    /// The number of events applied.
    pub(crate) version: u64,
    pub(crate) seats: Vec<Option<SeatPlayer>>,
    pub(crate) game: AnyGame,
    pub(crate) clocks: Option<Clocks>,
    /// The seat with a pending draw offer.
    pub(crate) draw_offer: Option<usize>,
    /// When the table was created, milliseconds since the Unix epoch.
    pub(crate) created_ms: i64,
}

/// What a message asks of the table, once checked against its state.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// These events, in order (none: nothing changes).
    Events(Vec<Event>),
    /// Play this move for this seat with [`play`] (its record is known only once played).
    Play {
        /// The seat to move.
        seat: usize,
        /// The parsed move, not yet checked for legality.
        mv: AnyMove,
    },
}

impl TableState {
    /// A new table before its `created` event: no seat taken, the game at its start, clocks
    /// stopped at the initial time.
    pub(crate) fn new(id: String, options: TableOptions, created_ms: i64) -> TableState {
        let game = AnyGame::new(options.variant, super::rule_options(&options));
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

    /// The table that `events` (all of them, from `created`) build, every event applied at `at`.
    ///
    /// # Errors
    /// An event does not fit (corrupt data): its version and the reason.
    pub(crate) fn replay<'a>(
        id: String,
        options: TableOptions,
        created_ms: i64,
        events: impl IntoIterator<Item = &'a Event>,
        at: Instant,
    ) -> Result<TableState, (u64, String)> {
        let mut state = TableState::new(id, options, created_ms);
        for event in events {
            let version = state.version + 1;
            state.apply(event, at).map_err(|e| (version, e))?;
        }
        Ok(state)
    }

    /// The increment of the time control (zero when untimed).
    pub(crate) fn increment(&self) -> Duration {
        Duration::from_millis(self.options.time.map_or(0, |t| t.increment_ms))
    }

    /// Applies one event at `at` and counts it in the version.
    ///
    /// # Errors
    /// Only for stored events that do not fit (corrupt data): a seat that does not exist, a
    /// move record that does not play. The state is then unchanged.
    pub(crate) fn apply(&mut self, event: &Event, at: Instant) -> Result<(), String> {
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
                self.game.play_record(mv)?;
                self.after_move(clocks_ms.as_deref(), at);
                return Ok(());
            }
            Event::DrawOffered { seat } => self.draw_offer = Some(*seat),
            Event::DrawDeclined { .. } => self.draw_offer = None,
            Event::Ended {
                outcome,
                winner_seats,
                ..
            } => {
                self.end(outcome.clone(), winner_seats.clone(), at);
                return Ok(());
            }
        }
        self.version += 1;
        Ok(())
    }

    /// What a `moved` event changes besides the game (already played): the draw offer goes,
    /// the mover's clock stops, the remaining times become `clocks_ms`, the next seat's clock
    /// starts unless the game is over; the version counts the event.
    fn after_move(&mut self, clocks_ms: Option<&[u64]>, at: Instant) {
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
        self.version += 1;
    }

    /// What an `ended` event changes: the game's ending, the phase, the draw offer, the clocks
    /// (stopped, the running one charged); the version counts the event.
    fn end(&mut self, outcome: Outcome, winner_seats: Vec<usize>, at: Instant) {
        self.game.end(outcome, winner_seats);
        self.phase = Phase::Ended;
        self.draw_offer = None;
        if let Some(c) = &mut self.clocks {
            c.stop(at);
        }
        self.version += 1;
    }

    /// The table as listed.
    pub(crate) fn summary(&self) -> TableSummary {
        TableSummary {
            id: self.id.clone(),
            options: self.options.clone(),
            phase: self.phase,
            seats: self.seats.clone(),
            version: self.version,
        }
    }

    /// The table's row in the store, the clocks charged up to `now`.
    pub(crate) fn row(&self, now: Instant) -> TableRow {
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

    /// The seat where `person` sits.
    pub(crate) fn seat_of(&self, person: &Person) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| matches!(s, Some(SeatPlayer::Person { id, .. }) if *id == person.id))
    }

    /// The seat to move while the game runs.
    pub(crate) fn to_move(&self) -> Option<usize> {
        (self.phase == Phase::Running).then(|| self.game.seat_to_move())
    }

    /// The computer's level at `seat`, when the computer sits there.
    pub(crate) fn computer_level(&self, seat: usize) -> Option<u8> {
        match self.seats.get(seat) {
            Some(Some(SeatPlayer::Computer { level })) => Some(*level),
            _ => None,
        }
    }

    /// Whether the absence of the person at `seat` counts (for the grace period): on an open
    /// table, and in a running game while the seat still plays.
    pub(crate) fn absence_counts(&self, seat: usize) -> bool {
        match self.phase {
            Phase::Open => true,
            Phase::Running => self.game.is_active(seat),
            Phase::Ended => false,
        }
    }

    /// The table as `you` may see it at `now`; `connected` says per seat whether someone is
    /// connected for it (computers always are).
    pub(crate) fn view(&self, you: Option<usize>, connected: Vec<bool>, now: Instant) -> State {
        let to_move = self.to_move();
        let ended = self.phase == Phase::Ended;
        State {
            version: self.version,
            table: self.summary(),
            you,
            board: self.game.view(you),
            to_move,
            check: self.game.check_seats(),
            legal_moves: if you.is_some() && you == to_move {
                self.game.legal_moves()
            } else {
                Vec::new()
            },
            clocks: self.clocks.as_ref().map(|c| c.view(now)),
            draw_offer: self.draw_offer,
            connected,
            outcome: self.game.outcome().filter(|_| ended),
            winner_seats: if ended {
                self.game.winner_seats()
            } else {
                Vec::new()
            },
        }
    }

    fn running(&self) -> Result<(), ServerError> {
        match self.phase {
            Phase::Running => Ok(()),
            Phase::Open => Err(ServerError::NotAllowed(
                "the game has not started".to_owned(),
            )),
            Phase::Ended => Err(ServerError::NotAllowed("the game has ended".to_owned())),
        }
    }

    fn open(&self) -> Result<(), ServerError> {
        match self.phase {
            Phase::Open => Ok(()),
            _ => Err(ServerError::NotAllowed(
                "seats change only before the start".to_owned(),
            )),
        }
    }

    fn draw_variant(&self) -> Result<(), ServerError> {
        if self.options.variant.has_draw_offers() {
            Ok(())
        } else {
            Err(ServerError::NotAllowed(
                "this game has no draw offers".to_owned(),
            ))
        }
    }

    fn free_seat(&self, seat: usize) -> Result<(), ServerError> {
        match self.seats.get(seat) {
            None => Err(ServerError::BadMessage(format!(
                "seat {seat} does not exist (seats 0 to {})",
                self.seats.len() - 1
            ))),
            Some(Some(_)) => Err(ServerError::Conflict(format!("seat {seat} is taken"))),
            Some(None) => Ok(()),
        }
    }
}

/// Who sends a message: the connection's person (`None` without a session) and, per seat,
/// whether someone is connected for it (computers always are; `start` needs every seat).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller<'a> {
    /// The person behind the connection.
    pub(crate) person: Option<&'a Person>,
    /// Per seat: whether a person is connected for it, or the computer sits there.
    pub(crate) connected: &'a [bool],
}

impl Caller<'_> {
    fn seat(&self, state: &TableState) -> Result<usize, ServerError> {
        let person = self.person.ok_or(ServerError::NotSeated)?;
        state.seat_of(person).ok_or(ServerError::NotSeated)
    }
}

/// Checks a client message against the table at `now` and says what it changes. `sync` and
/// `ping` concern the connection only and change nothing here.
///
/// # Errors
/// Why the message is refused; nothing may change then.
pub(crate) fn decide(
    state: &TableState,
    caller: Caller<'_>,
    msg: &ClientMessage,
    now: Instant,
) -> Result<Decision, ServerError> {
    let one = |e: Event| Ok(Decision::Events(vec![e]));
    match msg {
        ClientMessage::Ping | ClientMessage::Sync { .. } => Ok(Decision::Events(Vec::new())),
        ClientMessage::Sit { seat } => {
            let person = caller
                .person
                .ok_or_else(|| ServerError::Unauthorized("sitting needs a session".to_owned()))?;
            state.open()?;
            state.free_seat(*seat)?;
            if state.options.rated && !person.account {
                return Err(ServerError::Unauthorized(
                    "rated tables are for account holders".to_owned(),
                ));
            }
            if state.seat_of(person).is_some() {
                return Err(ServerError::Conflict(
                    "you already sit at this table".to_owned(),
                ));
            }
            let player = SeatPlayer::Person {
                id: person.id.clone(),
                name: person.name.clone(),
                account: person.account,
            };
            one(Event::Sat {
                seat: *seat,
                player,
            })
        }
        ClientMessage::SitComputer { seat, level } => {
            caller.seat(state)?;
            state.open()?;
            if state.options.rated {
                return Err(ServerError::NotAllowed(
                    "the computer does not play rated games".to_owned(),
                ));
            }
            if !(1..=computer::MAX_LEVEL).contains(level) {
                return Err(ServerError::BadMessage(format!(
                    "level must be between 1 and {}",
                    computer::MAX_LEVEL
                )));
            }
            state.free_seat(*seat)?;
            let player = SeatPlayer::Computer { level: *level };
            one(Event::Sat {
                seat: *seat,
                player,
            })
        }
        ClientMessage::Stand => {
            let seat = caller.seat(state)?;
            state.open()?;
            one(Event::Stood { seat })
        }
        ClientMessage::Start => {
            caller.seat(state)?;
            state.open()?;
            if state.seats.iter().any(Option::is_none) {
                return Err(ServerError::NotAllowed(
                    "every seat must be taken to start".to_owned(),
                ));
            }
            if !caller.connected.iter().all(|&c| c) {
                return Err(ServerError::NotReady);
            }
            one(Event::Started)
        }
        ClientMessage::Move { version, mv } => {
            let seat = caller.seat(state)?;
            state.running()?;
            if *version != state.version {
                return Err(ServerError::StaleVersion {
                    got: *version,
                    current: state.version,
                });
            }
            if state.to_move() != Some(seat) {
                return Err(ServerError::NotYourTurn);
            }
            let m = state
                .game
                .parse_move(mv)
                .map_err(|e| ServerError::IllegalMove(move_error_text(mv, e)))?;
            Ok(move_or_flag(state, seat, m, now))
        }
        ClientMessage::Resign => {
            let seat = caller.seat(state)?;
            state.running()?;
            let (outcome, seats) = state
                .game
                .table_ending(seat, EndReason::Resignation)
                .ok_or_else(|| {
                    ServerError::NotAllowed("your side is already out of the game".to_owned())
                })?;
            one(ended(outcome, seats))
        }
        ClientMessage::OfferDraw => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s == seat => Err(ServerError::NotAllowed(
                    "you already offered a draw".to_owned(),
                )),
                // Both sides want a draw: the offer meets the other's.
                Some(_) => one(ended(Outcome::draw(EndReason::Agreement), Vec::new())),
                None => one(Event::DrawOffered { seat }),
            }
        }
        ClientMessage::AcceptDraw | ClientMessage::DeclineDraw => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s != seat => one(if *msg == ClientMessage::AcceptDraw {
                    ended(Outcome::draw(EndReason::Agreement), Vec::new())
                } else {
                    Event::DrawDeclined { seat }
                }),
                _ => Err(ServerError::NotAllowed(
                    "there is no draw offer to answer".to_owned(),
                )),
            }
        }
        ClientMessage::Abort => {
            caller.seat(state)?;
            state.running()?;
            if state.game.ply() > 0 {
                return Err(ServerError::NotAllowed(
                    "a game can be aborted only before its first move".to_owned(),
                ));
            }
            one(ended(Outcome::draw(EndReason::Aborted), Vec::new()))
        }
    }
}

/// A move of `seat` (the seat to move) arriving at `now`: played, unless the seat's flag has
/// already fallen, in which case it loses on time whatever the move is.
pub(crate) fn move_or_flag(state: &TableState, seat: usize, mv: AnyMove, now: Instant) -> Decision {
    match flag(state, seat, now) {
        Some(e) => Decision::Events(vec![e]),
        None => Decision::Play { seat, mv },
    }
}

/// Plays `mv` for `seat` on the live state at `at` and returns its `moved` event, followed by
/// the `ended` event when the move ends the game; both are already applied.
///
/// # Errors
/// [`ServerError::IllegalMove`] with the rule it breaks; the state is then unchanged.
pub(crate) fn play(
    state: &mut TableState,
    seat: usize,
    mv: AnyMove,
    at: Instant,
) -> Result<Vec<Event>, ServerError> {
    let record = state
        .game
        .play(mv)
        .map_err(|e| ServerError::IllegalMove(move_error_text(&mv.to_string(), e)))?;
    let clocks_ms = state.clocks.as_mut().map(|c| {
        c.stop_after_move(at);
        c.remaining_ms(at)
    });
    state.after_move(clocks_ms.as_deref(), at);
    let mut events = vec![Event::Moved {
        seat,
        mv: record,
        ply: state.game.ply(),
        clocks_ms,
    }];
    if let Some(outcome) = state.game.outcome() {
        let winners = state.game.winner_seats();
        state.end(outcome.clone(), winners.clone(), at);
        events.push(ended(outcome, winners));
    }
    Ok(events)
}

/// The `ended` event when `seat`'s flag has fallen by `now` (it is the running clock and its
/// deadline has passed), else `None`.
pub(crate) fn flag(state: &TableState, seat: usize, now: Instant) -> Option<Event> {
    let (running, deadline) = state.clocks.as_ref()?.flag_deadline()?;
    if running != seat || deadline > now || state.phase != Phase::Running {
        return None;
    }
    let (outcome, seats) = state.game.table_ending(seat, EndReason::Timeout)?;
    Some(ended(outcome, seats))
}

/// The `ended` event when the person at `seat` has been away from the running game for the
/// grace period, or `None` when that changes nothing (a defeated sanguo kingdom).
pub(crate) fn abandon(state: &TableState, seat: usize) -> Option<Event> {
    if state.phase != Phase::Running {
        return None;
    }
    let (outcome, seats) = state.game.table_ending(seat, EndReason::Abandonment)?;
    Some(ended(outcome, seats))
}

/// The `stood` event freeing `seat` of an open table whose person has been away for the grace
/// period, or `None` once the game has started or the seat is free.
pub(crate) fn vacate(state: &TableState, seat: usize) -> Option<Event> {
    let taken = matches!(state.seats.get(seat), Some(Some(_)));
    (state.phase == Phase::Open && taken).then_some(Event::Stood { seat })
}

/// The `ended` event: the result text only when the outcome names the winners by colour (a
/// banqi seat that wins before the first flip has none).
pub(crate) fn ended(outcome: Outcome, winner_seats: Vec<usize>) -> Event {
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
        MoveError::Syntax(m) => m,
        MoveError::Illegal(reason) => format!("{text} ({reason})"),
    }
}
