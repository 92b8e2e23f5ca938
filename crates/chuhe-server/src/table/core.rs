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

mod decide;

use super::Person;
use crate::error::ServerError;
use crate::protocol::{
    Event, PackedMoves, Phase, Seat, SeatPlayer, State, TableOptions, TableSummary, Update,
    VersionedEvent,
};
use crate::table::clock::Clocks;
use crate::variant::{AnyGame, AnyMove, MoveKey};
use chuhe_rules::outcome::Outcome;
use decide::defeat_of;
pub(crate) use decide::{
    abandon, changes_position, chat_line, decide, draw_offered_to_computer, first_move_deadline,
    first_move_missed, flag, is_rematch_agreed, move_or_flag, play, rematch_due, rematched, vacate,
    withdraw_rematch, Caller,
};
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
    /// Whether a move was ever taken back: the game is then past its first moves (no
    /// first-move timer: [`first_move_deadline`]).
    pub(crate) taken_back: bool,
    /// The seats that went berserk (`berserked`), ascending.
    pub(crate) berserks: Vec<Seat>,
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
    /// A new table before its `created` event: no seat taken, the game at its start (the
    /// variant's, or the position [`TableOptions::fen`] sets up), clocks stopped at the initial
    /// time.
    ///
    /// # Errors
    /// The options' FEN does not read (corrupt data: options are checked before they are
    /// stored).
    pub(crate) fn new(
        id: String,
        options: TableOptions,
        created_ms: i64,
    ) -> Result<TableState, String> {
        let game = super::start_game(&options).map_err(|e| format!("start position: {e}"))?;
        let seats = options.variant.seat_count();
        let clocks = options.time.map(|t| {
            Clocks::new(
                seats,
                Duration::from_millis(t.initial_ms),
                Duration::from_millis(t.increment_ms),
            )
        });
        Ok(TableState {
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
            taken_back: false,
            berserks: Vec::new(),
        })
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
        let mut state = TableState::new(id, options, created_ms).map_err(|e| (0, e))?;
        for event in events {
            let version = state.version + 1;
            state.apply(event, at).map_err(|e| (version, e))?;
        }
        Ok(state)
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
            Event::Berserked { seat } => {
                if seat.index() >= self.seats.len() {
                    return Err("bad seat".to_owned());
                }
                if !self.berserks.contains(seat) {
                    self.berserks.push(*seat);
                    self.berserks.sort_unstable();
                    let initial = self
                        .options
                        .time
                        .map(|t| Duration::from_millis(t.initial_ms));
                    if let (Some(c), Some(initial)) = (&mut self.clocks, initial) {
                        c.berserk(seat.index(), initial);
                    }
                }
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
        let mut game = super::start_game(&self.options).map_err(|e| e.to_string())?;
        for r in &records[..keep] {
            game.play_record(r).map_err(|e| e.to_string())?;
        }
        self.game = game;
        self.taken_back = true;
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
            berserks: self.berserks.clone(),
        }
    }

    /// The part of the update after `events` (just applied) that every connection shares, at
    /// `now`: no seat (`you` is `null`) and no legal moves, which [`TableState::update_for`]
    /// adds per seat. The board comes only after a takeback or a sanguo defeat, `connected` only
    /// after a seat changed.
    pub(crate) fn update(
        &self,
        events: Vec<VersionedEvent>,
        connected: Vec<bool>,
        now: Instant,
    ) -> Update {
        // A move is played by the receiver on its own board; the board is sent only where that
        // is not simple: a takeback, a sanguo defeat (docs/protocol.md, "Updates without the board, 2026-12-04").
        let with_board = events
            .iter()
            .any(|e| matches!(e.event, Event::TakenBack { .. } | Event::Defeated { .. }));
        let seated = events
            .iter()
            .any(|e| matches!(e.event, Event::Sat { .. } | Event::Stood { .. }));
        // After a move, its `clocks_ms` are the clocks (`Update::clocks_of`).
        let clocks = match events.last().map(|e| &e.event) {
            Some(Event::Moved {
                clocks_ms: Some(_), ..
            }) => None,
            _ => self.clocks.as_ref().map(|c| c.view(now)),
        };
        Update {
            version: self.version,
            events,
            you: None,
            phase: self.phase,
            to_move: self.to_move(),
            check: self.game.check_seats(),
            clocks,
            draw_offer: self.draw_offer,
            takeback_offer: self.takeback_offer,
            rematch_offers: self.rematch_offers.clone(),
            board: with_board.then(|| self.game.position_view()),
            connected: seated.then_some(connected),
            legal_moves: PackedMoves::default(),
            capture_moves: PackedMoves::default(),
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
            let keys = self.game.move_keys();
            update.legal_moves = PackedMoves::from_keys(keys.iter().copied());
            update.capture_moves =
                PackedMoves::from_keys(keys.iter().copied().filter(MoveKey::is_capture));
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
        if self.options.tournament.is_some() {
            return Err(ServerError::NotAllowed(
                "an arena game has no rematch: the tournament pairs you again".to_owned(),
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

#[cfg(test)]
mod tests;
