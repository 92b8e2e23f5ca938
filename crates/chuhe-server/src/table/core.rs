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
use crate::accounts::names::{check_text, TextError, TextKind};
use crate::error::ServerError;
use crate::protocol::{
    ClientMessage, Defeat, Event, Phase, Seat, SeatPlayer, State, TableOptions, TableSummary,
    Update, VersionedEvent, MAX_CHAT_CHARS, MAX_COMPUTER_LEVEL,
};
use crate::table::clock::Clocks;
use crate::table::variant::{AnyGame, AnyMove, MoveError};
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
    /// The version of the last event that changed the game, the turn, the seats or the phase
    /// ([`changes_position`]): a move chosen at any version from this one on answers the
    /// position as it is ([`TableState::answers_position`]). The events after it (offers,
    /// requests and their answers) leave the position and the turn as they were.
    pub(crate) position_version: u64,
    pub(crate) seats: Vec<Option<SeatPlayer>>,
    pub(crate) game: AnyGame,
    pub(crate) clocks: Option<Clocks>,
    /// The seat with a pending draw offer.
    pub(crate) draw_offer: Option<Seat>,
    /// The seat with a pending takeback request (people in an unrated xiangqi game).
    pub(crate) takeback_offer: Option<Seat>,
    /// When the table was created, milliseconds since the Unix epoch.
    pub(crate) created_ms: i64,
    /// After the end: the seats that want a rematch, ascending.
    pub(crate) rematch_offers: Vec<Seat>,
    /// The rematch's table, once agreed.
    pub(crate) rematch: Option<String>,
}

/// What a message asks of the table, once checked against its state.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// These events, in order (none: nothing changes).
    Events(Vec<Event>),
    /// Play this move for this seat with [`play`] (its record is known only once played).
    Play {
        /// The seat to move.
        seat: Seat,
        /// The parsed move, not yet checked for legality.
        mv: AnyMove,
    },
    /// `seat` offers a draw to the computer at `computer`, which answers at once: the actor
    /// asks it ([`crate::computer::accepts_draw`]) and stores [`draw_offered_to_computer`]'s
    /// events.
    OfferToComputer {
        /// The seat that offers.
        seat: Seat,
        /// The computer's seat.
        computer: Seat,
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
            position_version: 0,
            seats: vec![None; seats],
            game,
            clocks,
            draw_offer: None,
            takeback_offer: None,
            created_ms,
            rematch_offers: Vec::new(),
            rematch: None,
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

    /// Applies one event at `at` and counts it in the version (and in the position's version
    /// when it changes the position: [`changes_position`]).
    ///
    /// # Errors
    /// Only for stored events that do not fit (corrupt data): a seat that does not exist, a
    /// move record that does not play. The state is then unchanged.
    pub(crate) fn apply(&mut self, event: &Event, at: Instant) -> Result<(), String> {
        self.apply_event(event, at)?;
        if changes_position(event) {
            self.position_version = self.version;
        }
        Ok(())
    }

    /// Whether a move chosen at `version` answers the position as it is: no event since then
    /// changed the game, the turn, the seats or the phase (a draw offer, a takeback request or
    /// their answers may have come in between), and `version` is not beyond the table's.
    pub(crate) fn answers_position(&self, version: u64) -> bool {
        (self.position_version..=self.version).contains(&version)
    }

    /// [`TableState::apply`] without the position's version.
    fn apply_event(&mut self, event: &Event, at: Instant) -> Result<(), String> {
        match event {
            Event::Created { .. } => {}
            Event::Sat { seat, player } => {
                *self.seats.get_mut(seat.index()).ok_or("bad seat")? = Some(player.clone());
            }
            Event::Stood { seat } => {
                *self.seats.get_mut(seat.index()).ok_or("bad seat")? = None;
            }
            Event::Started => {
                self.phase = Phase::Running;
                let first = self.game.seat_to_move();
                if let Some(c) = &mut self.clocks {
                    c.start(first.index(), at);
                }
            }
            Event::Moved { mv, clocks_ms, .. } => {
                self.game.play_record(mv).map_err(|e| e.to_string())?;
                self.after_move(clocks_ms.as_deref(), at);
                return Ok(());
            }
            Event::DrawOffered { seat } => self.draw_offer = Some(*seat),
            Event::DrawDeclined { .. } => self.draw_offer = None,
            Event::TakebackOffered { seat } => self.takeback_offer = Some(*seat),
            Event::TakebackDeclined { .. } => self.takeback_offer = None,
            Event::RematchOffered { seat } => {
                if !self.rematch_offers.contains(seat) {
                    self.rematch_offers.push(*seat);
                    self.rematch_offers.sort_unstable();
                }
            }
            Event::RematchDeclined { .. } => self.rematch_offers.clear(),
            Event::Rematched { table } => {
                self.rematch = Some(table.clone());
                self.rematch_offers.clear();
            }
            // the move before it has already defeated the kingdom in the game
            Event::Defeated { .. } => {}
            Event::TakenBack { plies } => {
                self.take_back(*plies, at)?;
                return Ok(());
            }
            Event::Ended {
                outcome,
                winner_seats,
                ..
            } => {
                self.end(outcome.clone(), winner_seats, at);
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
        self.takeback_offer = None;
        let next = self.game.seat_to_move();
        if let Some(c) = &mut self.clocks {
            c.stop_after_move(at);
            if let Some(ms) = clocks_ms {
                c.set_remaining_ms(ms);
            }
            if !over {
                c.start(next.index(), at);
            }
        }
        self.version += 1;
    }

    /// What a `taken_back` event changes: the game replayed without its last `plies` moves, the
    /// draw offer gone, the running clock stopped (charged) and the seat to move's started; the
    /// version counts the event.
    fn take_back(&mut self, plies: usize, at: Instant) -> Result<(), String> {
        let records = self.game.records();
        let keep = records
            .len()
            .checked_sub(plies)
            .ok_or("a takeback of more moves than were played")?;
        let mut game = AnyGame::new(self.options.variant, super::rule_options(&self.options));
        for r in &records[..keep] {
            game.play_record(r).map_err(|e| e.to_string())?;
        }
        self.game = game;
        self.draw_offer = None;
        self.takeback_offer = None;
        let next = self.game.seat_to_move();
        if let Some(c) = &mut self.clocks {
            c.stop(at);
            c.start(next.index(), at);
        }
        self.version += 1;
        Ok(())
    }

    /// What an `ended` event changes: the game's ending, the phase, the draw offer, the clocks
    /// (stopped, the running one charged); the version counts the event.
    fn end(&mut self, outcome: Outcome, winner_seats: &[Seat], at: Instant) {
        self.game.end(outcome, winner_seats.to_vec());
        self.phase = Phase::Ended;
        self.draw_offer = None;
        self.takeback_offer = None;
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

    /// The seat where `person` sits.
    pub(crate) fn seat_of(&self, person: &Person) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| matches!(s, Some(SeatPlayer::Person { id, .. }) if *id == person.id))
            .map(Seat::new)
    }

    /// The seat to move while the game runs.
    pub(crate) fn to_move(&self) -> Option<Seat> {
        (self.phase == Phase::Running).then(|| self.game.seat_to_move())
    }

    /// The computer's level at `seat`, when the computer sits there.
    pub(crate) fn computer_level(&self, seat: Seat) -> Option<u8> {
        match self.seats.get(seat.index()) {
            Some(Some(SeatPlayer::Computer { level })) => Some(*level),
            _ => None,
        }
    }

    /// Whether the absence of the person at `seat` counts (for the grace period): on an open
    /// table, and in a running game while the seat still plays.
    pub(crate) fn absence_counts(&self, seat: Seat) -> bool {
        match self.phase {
            Phase::Open => true,
            Phase::Running => self.game.is_active(seat),
            Phase::Ended => false,
        }
    }

    /// The table as `you` may see it at `now`; `connected` says per seat whether someone is
    /// connected for it (computers always are).
    pub(crate) fn view(&self, you: Option<Seat>, connected: Vec<bool>, now: Instant) -> State {
        let to_move = self.to_move();
        let ended = self.phase == Phase::Ended;
        let (legal_moves, capture_moves) = if you.is_some() && you == to_move {
            self.game.moves_and_captures()
        } else {
            (Vec::new(), Vec::new())
        };
        State {
            version: self.version,
            table: self.summary(),
            you,
            board: self.game.view(you),
            to_move,
            check: self.game.check_seats(),
            legal_moves,
            capture_moves,
            clocks: self.clocks.as_ref().map(|c| c.view(now)),
            draw_offers: self.options.variant.has_draw_offers(),
            draw_offer: self.draw_offer,
            takeback_offer: self.takeback_offer,
            abandon_ms: vec![None; self.seats.len()],
            connected,
            outcome: self.game.outcome().filter(|_| ended),
            winner_seats: if ended {
                self.game.winner_seats()
            } else {
                Vec::new()
            },
            defeats: self
                .game
                .as_sanguo()
                .map_or_else(Vec::new, |g| g.defeats().iter().map(defeat_of).collect()),
            rematch_offers: self.rematch_offers.clone(),
            rematch: self.rematch.clone(),
        }
    }

    /// The part of the update after `events` (just applied) that every connection shares, at
    /// `now`: no seat (`you` is `null`) and no legal moves, which [`TableState::update_for`]
    /// adds per seat. The board comes only after a move, `connected` only after a seat changed.
    pub(crate) fn update(
        &self,
        events: Vec<VersionedEvent>,
        connected: Vec<bool>,
        now: Instant,
    ) -> Update {
        let moved = events
            .iter()
            .any(|e| matches!(e.event, Event::Moved { .. } | Event::TakenBack { .. }));
        let seated = events
            .iter()
            .any(|e| matches!(e.event, Event::Sat { .. } | Event::Stood { .. }));
        Update {
            version: self.version,
            events,
            you: None,
            phase: self.phase,
            to_move: self.to_move(),
            check: self.game.check_seats(),
            clocks: self.clocks.as_ref().map(|c| c.view(now)),
            draw_offer: self.draw_offer,
            takeback_offer: self.takeback_offer,
            rematch_offers: self.rematch_offers.clone(),
            board: moved.then(|| self.game.position_view()),
            connected: seated.then_some(connected),
            legal_moves: Vec::new(),
            capture_moves: Vec::new(),
        }
    }

    /// The shared update `shared` as the connections of `you` receive it: with their seat, and
    /// the legal moves when that seat is to move.
    pub(crate) fn update_for(&self, shared: &Update, you: Seat) -> Update {
        let mut update = Update {
            you: Some(you),
            ..shared.clone()
        };
        if self.to_move() == Some(you) {
            (update.legal_moves, update.capture_moves) = self.game.moves_and_captures();
        }
        update
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

    /// A rematch may be offered or answered: the game has ended and no rematch was agreed yet
    /// (every seat wanting it is the agreement, before its table exists: nothing undoes it).
    fn rematch_open(&self) -> Result<(), ServerError> {
        if self.phase != Phase::Ended {
            return Err(ServerError::NotAllowed(
                "a rematch is for a game that has ended".to_owned(),
            ));
        }
        if self.rematch.is_some() || is_rematch_agreed(self) {
            return Err(ServerError::NotAllowed(
                "the rematch has already been agreed".to_owned(),
            ));
        }
        Ok(())
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

    fn free_seat(&self, seat: Seat) -> Result<(), ServerError> {
        match self.seats.get(seat.index()) {
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
    fn seat(&self, state: &TableState) -> Result<Seat, ServerError> {
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
        ClientMessage::Ping {} | ClientMessage::Sync { .. } => Ok(Decision::Events(Vec::new())),
        // the actor sends chat lines; they change nothing here
        ClientMessage::Chat { .. } => Ok(Decision::Events(Vec::new())),
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
            if !(1..=MAX_COMPUTER_LEVEL).contains(level) {
                return Err(ServerError::BadMessage(format!(
                    "level must be between 1 and {MAX_COMPUTER_LEVEL}"
                )));
            }
            state.free_seat(*seat)?;
            let player = SeatPlayer::Computer { level: *level };
            one(Event::Sat {
                seat: *seat,
                player,
            })
        }
        ClientMessage::Stand {} => {
            let seat = caller.seat(state)?;
            state.open()?;
            Ok(Decision::Events(leave(state, seat)))
        }
        ClientMessage::Start {} => {
            caller.seat(state)?;
            match state.phase {
                Phase::Open => {}
                Phase::Running => {
                    return Err(ServerError::NotAllowed(
                        "the game has already started".to_owned(),
                    ))
                }
                Phase::Ended => {
                    return Err(ServerError::NotAllowed("the game has ended".to_owned()))
                }
            }
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
            // A move that crossed an offer, a request or an answer still answers the position
            // (and withdraws what is pending); one that crossed a move, a takeback, the end...
            // answers a position that is gone.
            if !state.answers_position(*version) {
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
        ClientMessage::Resign {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            let (outcome, winners) = state
                .game
                .table_ending(seat, EndReason::Resignation)
                .ok_or_else(|| {
                    ServerError::NotAllowed("your side is already out of the game".to_owned())
                })?;
            one(ended(outcome, winners))
        }
        ClientMessage::OfferDraw {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s == seat => Err(ServerError::NotAllowed(
                    "you already offered a draw".to_owned(),
                )),
                // Both sides want a draw: the offer meets the other's.
                Some(_) => one(ended(Outcome::draw(EndReason::Agreement), Vec::new())),
                None => {
                    let offered = Event::DrawOffered { seat };
                    // the computer answers at once
                    let other = Seat::new(1 - seat.index().min(1));
                    if state.computer_level(other).is_none() {
                        return one(offered);
                    }
                    Ok(Decision::OfferToComputer {
                        seat,
                        computer: other,
                    })
                }
            }
        }
        ClientMessage::AcceptDraw {} | ClientMessage::DeclineDraw {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s != seat => one(if matches!(msg, ClientMessage::AcceptDraw {}) {
                    ended(Outcome::draw(EndReason::Agreement), Vec::new())
                } else {
                    Event::DrawDeclined { seat }
                }),
                _ => Err(ServerError::NotAllowed(
                    "there is no draw offer to answer".to_owned(),
                )),
            }
        }
        ClientMessage::Takeback {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            if state.game.as_xiangqi().is_none() {
                return Err(ServerError::NotAllowed(
                    "takebacks are for xiangqi games".to_owned(),
                ));
            }
            let others_computer = Seat::all(state.seats.len())
                .filter(|s| *s != seat)
                .all(|s| state.computer_level(s).is_some());
            // back to the caller's turn: its own last move, and the other's answer if any
            let plies = takeback_plies(state, seat);
            if state.game.ply() < plies {
                return Err(ServerError::NotAllowed(
                    "there is no move of yours to take back".to_owned(),
                ));
            }
            if others_computer {
                return one(Event::TakenBack { plies });
            }
            if state.options.rated {
                return Err(ServerError::NotAllowed(
                    "takebacks between people are for unrated games".to_owned(),
                ));
            }
            match state.takeback_offer {
                Some(s) if s == seat => Err(ServerError::NotAllowed(
                    "you already asked for a takeback".to_owned(),
                )),
                Some(_) => Err(ServerError::NotAllowed(
                    "answer the other takeback request first".to_owned(),
                )),
                None => one(Event::TakebackOffered { seat }),
            }
        }
        ClientMessage::AcceptTakeback {} | ClientMessage::DeclineTakeback {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            match state.takeback_offer {
                Some(asker) if asker != seat => {
                    one(if matches!(msg, ClientMessage::AcceptTakeback {}) {
                        Event::TakenBack {
                            plies: takeback_plies(state, asker),
                        }
                    } else {
                        Event::TakebackDeclined { seat }
                    })
                }
                _ => Err(ServerError::NotAllowed(
                    "there is no takeback request to answer".to_owned(),
                )),
            }
        }
        ClientMessage::OfferRematch {} | ClientMessage::AcceptRematch {} => {
            let seat = caller.seat(state)?;
            state.rematch_open()?;
            if state.rematch_offers.contains(&seat) {
                return Err(ServerError::NotAllowed(
                    "you already offered a rematch".to_owned(),
                ));
            }
            if matches!(msg, ClientMessage::AcceptRematch {}) && state.rematch_offers.is_empty() {
                return Err(ServerError::NotAllowed(
                    "there is no rematch offer to answer".to_owned(),
                ));
            }
            one(Event::RematchOffered { seat })
        }
        ClientMessage::DeclineRematch {} => {
            let seat = caller.seat(state)?;
            state.rematch_open()?;
            if state.rematch_offers.iter().all(|s| *s == seat) {
                return Err(ServerError::NotAllowed(
                    "there is no rematch offer to answer".to_owned(),
                ));
            }
            one(Event::RematchDeclined { seat })
        }
        ClientMessage::Abort {} => {
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

/// A chat line as the table sends it: trimmed, 1 … [`MAX_CHAT_CHARS`] characters, and by the
/// names' rules ([`check_text`] with [`TextKind::Chat`]) nothing that could break a line, hide
/// text or reorder it (emoji sequences pass).
///
/// # Errors
/// [`ServerError::BadMessage`] naming what is wrong; [`ServerError::Unauthorized`] without a
/// session.
pub(crate) fn chat_line(person: Option<&Person>, text: &str) -> Result<String, ServerError> {
    if person.is_none() {
        return Err(ServerError::Unauthorized(
            "chatting needs a session".to_owned(),
        ));
    }
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(ServerError::BadMessage("an empty chat line".to_owned()));
    }
    if chars > MAX_CHAT_CHARS {
        return Err(ServerError::BadMessage(format!(
            "a chat line has at most {MAX_CHAT_CHARS} characters"
        )));
    }
    match check_text(text, TextKind::Chat) {
        Ok(()) => Ok(text.to_owned()),
        Err(TextError::Control) => Err(ServerError::BadMessage(
            "a chat line has no control characters or line breaks".to_owned(),
        )),
        Err(TextError::Invisible) => Err(ServerError::BadMessage(
            "a chat line cannot contain invisible or direction-changing characters".to_owned(),
        )),
    }
}

/// The events of `seat`'s draw offer to the computer at `computer`: the offer, then the
/// agreed draw when the computer `accepts`, else its decline.
pub(crate) fn draw_offered_to_computer(seat: Seat, computer: Seat, accepts: bool) -> Vec<Event> {
    let answer = if accepts {
        ended(Outcome::draw(EndReason::Agreement), Vec::new())
    } else {
        Event::DrawDeclined { seat: computer }
    };
    vec![Event::DrawOffered { seat }, answer]
}

/// A move of `seat` (the seat to move) arriving at `now`: played, unless the seat's flag has
/// already fallen, in which case it loses on time whatever the move is.
pub(crate) fn move_or_flag(state: &TableState, seat: Seat, mv: AnyMove, now: Instant) -> Decision {
    match flag(state, seat, now) {
        Some(e) => Decision::Events(vec![e]),
        None => Decision::Play { seat, mv },
    }
}

/// Plays `mv` for `seat` on the live state at `at` and returns its `moved` event, followed by
/// a `defeated` event per sanguo kingdom the move defeated (`spec/sanguo.md` §6.1, in the order
/// they happened) and the `ended` event when the move ends the game; all already applied.
///
/// # Errors
/// [`ServerError::IllegalMove`] with the rule it breaks; the state is then unchanged.
pub(crate) fn play(
    state: &mut TableState,
    seat: Seat,
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
    let ply = state.game.ply();
    let mut events = vec![Event::Moved {
        seat,
        mv: record,
        ply,
        clocks_ms,
    }];
    for d in defeats_at(&state.game, ply) {
        state.version += 1;
        events.push(d);
    }
    if let Some(outcome) = state.game.outcome() {
        let winners = state.game.winner_seats();
        state.end(outcome.clone(), &winners, at);
        events.push(ended(outcome, winners));
    }
    state.position_version = state.version;
    Ok(events)
}

/// Whether `event` changes what a move answers: the game (a move, a sanguo defeat, a
/// takeback), the turn, the seats or the phase (created, sat, stood, started, ended). Offers,
/// requests and their answers (draw, takeback, rematch) and the rematch's table change none of
/// it: a move chosen before them still answers the same position. Chat lines and presence are
/// not events at all.
pub(crate) fn changes_position(event: &Event) -> bool {
    match event {
        Event::Created { .. }
        | Event::Sat { .. }
        | Event::Stood { .. }
        | Event::Started
        | Event::Moved { .. }
        | Event::Defeated { .. }
        | Event::TakenBack { .. }
        | Event::Ended { .. } => true,
        Event::DrawOffered { .. }
        | Event::DrawDeclined { .. }
        | Event::TakebackOffered { .. }
        | Event::TakebackDeclined { .. }
        | Event::RematchOffered { .. }
        | Event::RematchDeclined { .. }
        | Event::Rematched { .. } => false,
    }
}

/// The `defeated` events of the sanguo defeats that happened with move `ply` (none in the
/// other games).
fn defeats_at(game: &AnyGame, ply: usize) -> Vec<Event> {
    let Some(g) = game.as_sanguo() else {
        return Vec::new();
    };
    g.defeats()
        .iter()
        .filter(|d| d.ply == ply)
        .map(|d| {
            let d = defeat_of(d);
            Event::Defeated {
                seat: d.seat,
                reason: d.reason,
                heir: d.heir,
                ply: d.ply,
            }
        })
        .collect()
}

/// A defeat of the rules in the protocol's seats.
fn defeat_of(d: &chuhe_rules::sanguo::DefeatEvent) -> Defeat {
    Defeat {
        seat: Seat::new(d.defeat.kingdom.index()),
        reason: d.defeat.reason,
        heir: Seat::new(d.defeat.heir.index()),
        ply: d.ply,
    }
}

/// The `ended` event when `seat`'s flag has fallen by `now` (it is the running clock and its
/// deadline has passed), else `None`.
pub(crate) fn flag(state: &TableState, seat: Seat, now: Instant) -> Option<Event> {
    let (running, deadline) = state.clocks.as_ref()?.flag_deadline()?;
    if running != seat.index() || deadline > now || state.phase != Phase::Running {
        return None;
    }
    let (outcome, winners) = state.game.table_ending(seat, EndReason::Timeout)?;
    Some(ended(outcome, winners))
}

/// The `ended` event when the person at `seat` has been away from the running game for the
/// grace period, or `None` when that changes nothing (a defeated sanguo kingdom). A seat that
/// has not played its first move yet (every game starts with seat 0, then 1, then 2) aborts
/// the game instead, as lichess does: nobody loses and no rating changes.
pub(crate) fn abandon(state: &TableState, seat: Seat) -> Option<Event> {
    if state.phase != Phase::Running {
        return None;
    }
    if state.game.ply() <= seat.index() && state.game.is_active(seat) {
        return Some(ended(Outcome::draw(EndReason::Aborted), Vec::new()));
    }
    let (outcome, winners) = state.game.table_ending(seat, EndReason::Abandonment)?;
    Some(ended(outcome, winners))
}

/// The `stood` event freeing `seat` of an open table whose person has been away for the grace
/// period, or `None` once the game has started or the seat is free.
pub(crate) fn vacate(state: &TableState, seat: Seat) -> Vec<Event> {
    let taken = matches!(state.seats.get(seat.index()), Some(Some(_)));
    if state.phase == Phase::Open && taken {
        leave(state, seat)
    } else {
        Vec::new()
    }
}

/// The events of the person at `seat` leaving an open table: it stands, and when no other person
/// stays seated the computer seats stand too (nobody is left to play them, and the table would
/// wait in the lobby for ever with only the computer at it).
fn leave(state: &TableState, seat: Seat) -> Vec<Event> {
    let person_stays = Seat::all(state.seats.len()).any(|s| {
        s != seat
            && matches!(state.seats.get(s.index()), Some(Some(_)))
            && state.computer_level(s).is_none()
    });
    let mut events = vec![Event::Stood { seat }];
    if !person_stays {
        events.extend(
            Seat::all(state.seats.len())
                .filter(|&s| state.computer_level(s).is_some())
                .map(|s| Event::Stood { seat: s }),
        );
    }
    events
}

/// The `ended` event: the result text only when the outcome names the winners by colour (a
/// banqi seat that wins before the first flip has none).
pub(crate) fn ended(outcome: Outcome, winner_seats: Vec<Seat>) -> Event {
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

/// Whether the rematch is agreed and its table not made yet: the game has ended, no
/// `rematched` event yet, and every seat with a person wants it (the computer always does).
/// This is the one decision: from the `rematch_offered` event that completes it, nothing takes
/// it back (a late `decline_rematch` is refused, a seat leaving withdraws nothing), so the
/// table made for it is always the one its `rematched` event names.
pub(crate) fn is_rematch_agreed(state: &TableState) -> bool {
    state.phase == Phase::Ended
        && state.rematch.is_none()
        && !state.rematch_offers.is_empty()
        && Seat::all(state.seats.len()).all(|seat| {
            state.rematch_offers.contains(&seat) || state.computer_level(seat).is_some()
        })
}

/// The rematch to create once it is agreed ([`is_rematch_agreed`]): the table's options and
/// its players, each moved one seat on (the player at seat `s` sits at `(s + 1) % seats`:
/// xiangqi and banqi swap colours, sanguo turns the kingdoms). `None` while someone has not
/// agreed, before the end, and once the rematch has its table.
pub(crate) fn rematch_due(state: &TableState) -> Option<(TableOptions, Vec<Option<SeatPlayer>>)> {
    if !is_rematch_agreed(state) {
        return None;
    }
    let n = state.seats.len();
    let mut seats = vec![None; n];
    for (s, player) in state.seats.iter().enumerate() {
        seats[(s + 1) % n].clone_from(player);
    }
    Some((state.options.clone(), seats))
}

/// The `rematched` event once the agreed rematch's table `table` exists, or `None` when no
/// rematch is due (its `rematched` event is already stored).
pub(crate) fn rematched(state: &TableState, table: &str) -> Option<Event> {
    rematch_due(state).map(|_| Event::Rematched {
        table: table.to_owned(),
    })
}

/// The `rematch_declined` event withdrawing the rematch `seat` asked for, when its person has
/// left the table (its last connection closed) before the rematch was agreed; else `None`
/// (once agreed, the rematch stands: its table is made and the player finds it at this one).
pub(crate) fn withdraw_rematch(state: &TableState, seat: Seat) -> Option<Event> {
    let open = state.phase == Phase::Ended && state.rematch.is_none() && !is_rematch_agreed(state);
    (open && state.rematch_offers.contains(&seat)).then_some(Event::RematchDeclined { seat })
}

/// The seats of the indices that [`AnyGame`] answers with (winners, seats in check).
fn move_error_text(text: &str, e: MoveError) -> String {
    match e {
        MoveError::Syntax(m) => m.to_string(),
        MoveError::Illegal(reason) => format!("{text} ({reason})"),
    }
}

/// The moves a takeback for `seat` removes: its own last move, and the answer to it when the
/// other side has answered (it is `seat`'s turn again).
fn takeback_plies(state: &TableState, seat: Seat) -> usize {
    if state.to_move() == Some(seat) {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests;
