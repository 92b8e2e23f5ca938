//! A game of banqi: the truth, the recorded actions, the repetition history, the seats' colours,
//! the status, and the random source that reveals flips (`spec/banqi.md` §2.3, §4.1).

use super::action::{Action, IllegalReason, Record};
use super::position::{PublicKey, Truth, View};
use crate::outcome::{EndReason, Outcome, Quit};
use crate::xiangqi::Color;
use rand::rngs::StdRng;
use std::fmt;

/// A seat at the table. Seat 1 ([`Seat::First`]) plays the first turn; its colour is the colour of
/// the piece it reveals then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Seat 1: flips first.
    First,
    /// Seat 2.
    Second,
}

impl Seat {
    /// 0 for [`Seat::First`], 1 for [`Seat::Second`].
    pub const fn index(self) -> usize {
        match self {
            Seat::First => 0,
            Seat::Second => 1,
        }
    }

    /// The seat of an index ([`Seat::index`]); `None` past 1.
    pub const fn from_index(i: usize) -> Option<Seat> {
        match i {
            0 => Some(Seat::First),
            1 => Some(Seat::Second),
            _ => None,
        }
    }

    /// The other seat.
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }
}

/// Whether the game goes on, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The game is over: winners (by colour) and reason.
    Ended(Outcome),
    /// A table ending (resignation, timeout, abandonment) before the first flip, when no colours
    /// exist yet: the other *seat* wins (`spec/banqi.md` §2.3, table rules).
    EndedBySeat {
        /// The winning seat.
        winner: Seat,
        /// `resignation`, `timeout` or `abandonment`.
        reason: EndReason,
    },
}

/// What playing a turn did ([`Game::play`], [`Game::play_recorded`]): its record (a flip with
/// the piece it revealed, which a server logs before anything reveals it) and the status after
/// it. Its `Display` is the record text (`c2=R`, `c2-c3`, `c2xc3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The record of the turn.
    pub record: Record,
    /// The status after the turn.
    pub status: Status,
}

impl Played {
    /// Whether the turn captured a piece.
    pub fn is_capture(&self) -> bool {
        matches!(self.record, Record::Capture { .. })
    }
}

impl fmt::Display for Played {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.record.fmt(f)
    }
}

/// Why a table ending ([`Game::resign`], …) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndError {
    /// The game has already ended.
    GameOver,
    /// Colours exist but the game does not know which seat holds which (it was loaded from a text
    /// with colours assigned and not told, see [`Game::with_first_seat`]).
    SeatColoursUnknown,
}

impl fmt::Display for EndError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndError::GameOver => f.write_str("the game is over"),
            EndError::SeatColoursUnknown => f.write_str("which seat holds which colour is unknown"),
        }
    }
}

impl std::error::Error for EndError {}

/// A game of banqi with every end-of-game rule, in the order of `spec/banqi.md` §2.3:
/// all captured, no legal turn, 180 quiet turns, threefold repetition (checked after every turn
/// and once for the starting position).
///
/// Flips are revealed at flip time: a pinned square reveals its pin, any other face-down square a
/// piece drawn uniformly from the pool by a cryptographically secure generator seeded by the
/// operating system ([`Game::new`]). Each turn returns its [`Record`] (a flip with its revealed
/// piece), which a server writes to its move log before any message reveals it; replaying those
/// records from the start view rebuilds the game with no secret.
///
/// The game holds a random generator, so it is neither `Clone` (two copies would draw alike) nor
/// serialisable; its `Debug` output hides pins and the generator. Send [`Game::view`].
///
/// ```
/// use chuhe_rules::banqi::{Action, Game, Record, Status};
/// let mut game = Game::start();
/// assert_eq!(game.side_to_move(), None);
/// let played = game.play("flip c2".parse().unwrap()).unwrap();
/// assert!(matches!(played.record, Record::Flip { .. }));
/// assert_eq!(played.status, Status::Ongoing);
/// assert_eq!(game.view().pool().len(), 31);
/// assert_eq!(*game.status(), Status::Ongoing);
/// ```
pub struct Game {
    /// The public start: what a replay of the records begins from.
    start: View,
    position: Truth,
    records: Vec<Record>,
    /// Public keys since the last flip or capture, the current one last.
    stretch: Vec<PublicKey>,
    status: Status,
    first_seat: Option<Color>,
    rng: StdRng,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("position", &self.position)
            .field("ply", &self.records.len())
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl Game {
    /// A game from all 32 pieces face down.
    pub fn start() -> Game {
        Game::new(View::start().into())
    }

    /// A game from `start`, revealing flips with [`StdRng`] (ChaCha12, a cryptographically secure
    /// generator) seeded from the operating system's random source. The status is evaluated at
    /// once (a loaded position can already be over).
    pub fn new(start: Truth) -> Game {
        Game::with_rng(start, rand::make_rng())
    }

    /// A game from `start` revealing flips with the given generator. Tests seed it to make reveals
    /// repeatable; a live table must use [`Game::new`] (spec §4.1: OS-seeded generator only).
    pub fn with_rng(start: Truth, rng: StdRng) -> Game {
        let mut game = Game {
            start: start.view().clone(),
            stretch: vec![start.view().key()],
            position: start,
            records: Vec::new(),
            status: Status::Ongoing,
            first_seat: None,
            rng,
        };
        game.status = game.evaluate();
        game
    }

    /// Tells a game loaded with colours already assigned which colour seat 1 holds (a game from
    /// the start learns it from the first flip).
    pub fn with_first_seat(mut self, color: Color) -> Game {
        self.first_seat = Some(color);
        self
    }

    /// The view of the starting position: with [`Game::records`], everything needed to rebuild
    /// the game (crash recovery, archives) without any secret.
    pub fn start_view(&self) -> &View {
        &self.start
    }

    /// What every seat may know now.
    pub fn view(&self) -> &View {
        self.position.view()
    }

    /// The current truth (with any pins not yet flipped). Never send it: send [`Game::view`].
    pub fn truth(&self) -> &Truth {
        &self.position
    }

    /// The status after the last turn.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The number of turns played.
    pub fn ply(&self) -> usize {
        self.records.len()
    }

    /// The recorded turns, in order (public: flips carry the pieces they revealed).
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The colour `seat` holds, once known.
    pub fn seat_colour(&self, seat: Seat) -> Option<Color> {
        self.first_seat.map(|c| match seat {
            Seat::First => c,
            Seat::Second => c.other(),
        })
    }

    /// The colour to move; `None` before the first flip, when no colours exist yet.
    pub fn side_to_move(&self) -> Option<Color> {
        self.view().turn()
    }

    /// The seat to move: [`Seat::First`] before the first flip, then the seat holding the colour
    /// to move (the second seat when the seats' colours are unknown, see
    /// [`Game::with_first_seat`]).
    pub fn seat_to_move(&self) -> Seat {
        match self.view().turn() {
            Some(c) if self.seat_colour(Seat::First) != Some(c) => Seat::Second,
            _ => Seat::First,
        }
    }

    /// The legal actions of the side to move, sorted bytewise; none once the game has ended.
    pub fn legal_moves(&self) -> Vec<Action> {
        if self.status == Status::Ongoing {
            self.view().legal_actions()
        } else {
            Vec::new()
        }
    }

    /// Plays a live action (a flip draws its piece now) and evaluates the end-of-game rules.
    /// Returns the record to log before anything reveals it.
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] after the end, otherwise the reason of [`View::check`]; the
    /// game is then unchanged.
    pub fn play(&mut self, action: Action) -> Result<Played, IllegalReason> {
        if self.status != Status::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let turn_before = self.view().turn();
        let record = self.position.play(action, &mut self.rng)?;
        self.after(record, turn_before);
        Ok(Played {
            record,
            status: self.status.clone(),
        })
    }

    /// Applies a recorded action (replay, crash recovery) and evaluates the end-of-game rules.
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] after the end, otherwise the reason of
    /// [`Truth::play_recorded`]; the game is then unchanged.
    pub fn play_recorded(&mut self, record: Record) -> Result<Played, IllegalReason> {
        if self.status != Status::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let turn_before = self.view().turn();
        self.position.play_recorded(record)?;
        self.after(record, turn_before);
        Ok(Played {
            record,
            status: self.status.clone(),
        })
    }

    fn after(&mut self, record: Record, turn_before: Option<Color>) {
        if let (None, Record::Flip { piece, .. }) = (turn_before, record) {
            // The first flip: its piece's colour is seat 1's.
            self.first_seat = Some(piece.color());
        }
        if !matches!(record, Record::Move { .. }) {
            self.stretch.clear();
        }
        self.stretch.push(self.view().key());
        self.records.push(record);
        self.status = self.evaluate();
    }

    fn evaluate(&self) -> Status {
        if let Some(outcome) = self.view().verdict() {
            return Status::Ended(outcome);
        }
        let now = self.view().key();
        if self.stretch.iter().filter(|&&k| k == now).count() >= 3 {
            return Status::Ended(Outcome::draw(EndReason::ThreefoldRepetition));
        }
        Status::Ongoing
    }

    /// What the status would be if `seat` quit by `how`, without changing the game: the seat
    /// loses; before the first flip, when no colours exist, the other seat wins
    /// ([`Status::EndedBySeat`], `spec/banqi.md` §2.3 table rules). `None` when the game has
    /// ended or the seats' colours are unknown ([`Game::quit`] says which).
    ///
    /// ```
    /// use chuhe_rules::banqi::{Game, Seat, Status};
    /// use chuhe_rules::outcome::{EndReason, Quit};
    /// let game = Game::start();
    /// assert_eq!(
    ///     game.ending_if(Seat::First, Quit::Resignation),
    ///     Some(Status::EndedBySeat { winner: Seat::Second, reason: EndReason::Resignation })
    /// );
    /// assert_eq!(*game.status(), Status::Ongoing);
    /// ```
    pub fn ending_if(&self, seat: Seat, how: Quit) -> Option<Status> {
        self.quit_status(seat, how.reason()).ok()
    }

    /// `seat` quits by `how` and loses ([`Game::ending_if`] applied).
    ///
    /// # Errors
    /// [`EndError`] when the game has ended or the seats' colours are unknown; the game is then
    /// unchanged.
    pub fn quit(&mut self, seat: Seat, how: Quit) -> Result<&Status, EndError> {
        self.lose(seat, how.reason())
    }

    /// `seat` resigns and loses (`resignation`).
    ///
    /// # Errors
    /// [`EndError`] when the game has ended or the seats' colours are unknown.
    pub fn resign(&mut self, seat: Seat) -> Result<&Status, EndError> {
        self.lose(seat, EndReason::Resignation)
    }

    /// `seat`'s clock ran out: it loses (`timeout`).
    ///
    /// # Errors
    /// As [`Game::resign`].
    pub fn time_out(&mut self, seat: Seat) -> Result<&Status, EndError> {
        self.lose(seat, EndReason::Timeout)
    }

    /// `seat` left, or stayed disconnected past the table's limit: it loses (`abandonment`).
    ///
    /// # Errors
    /// As [`Game::resign`].
    pub fn abandon(&mut self, seat: Seat) -> Result<&Status, EndError> {
        self.lose(seat, EndReason::Abandonment)
    }

    /// Both seats agreed to a draw (`agreement`).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has ended.
    pub fn agree_draw(&mut self) -> Result<&Status, EndError> {
        if self.status != Status::Ongoing {
            return Err(EndError::GameOver);
        }
        self.status = Status::Ended(Outcome::draw(EndReason::Agreement));
        Ok(&self.status)
    }

    fn lose(&mut self, seat: Seat, reason: EndReason) -> Result<&Status, EndError> {
        self.status = self.quit_status(seat, reason)?;
        Ok(&self.status)
    }

    fn quit_status(&self, seat: Seat, reason: EndReason) -> Result<Status, EndError> {
        if self.status != Status::Ongoing {
            return Err(EndError::GameOver);
        }
        match (self.view().turn(), self.seat_colour(seat)) {
            (None, _) => Ok(Status::EndedBySeat {
                winner: seat.other(),
                reason,
            }),
            (Some(_), Some(c)) => Ok(Status::Ended(Outcome::win(c.other().side(), reason))),
            (Some(_), None) => Err(EndError::SeatColoursUnknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Side;

    fn flip(game: &mut Game, text: &str) {
        game.play_recorded(text.parse().unwrap()).unwrap();
    }

    #[test]
    fn table_endings_before_the_first_flip_go_by_seat() {
        fn end(game: &mut Game, seat: Seat, reason: EndReason) -> Result<Status, EndError> {
            match reason {
                EndReason::Resignation => game.resign(seat).cloned(),
                EndReason::Timeout => game.time_out(seat).cloned(),
                _ => game.abandon(seat).cloned(),
            }
        }
        for reason in [
            EndReason::Resignation,
            EndReason::Timeout,
            EndReason::Abandonment,
        ] {
            let mut game = Game::start();
            let foreseen = game.ending_if(Seat::First, Quit::from_reason(reason).unwrap());
            assert_eq!(
                foreseen,
                Some(Status::EndedBySeat {
                    winner: Seat::Second,
                    reason
                })
            );
            assert_eq!(*game.status(), Status::Ongoing);
            assert_eq!(
                end(&mut game, Seat::First, reason),
                Ok(Status::EndedBySeat {
                    winner: Seat::Second,
                    reason
                })
            );
            assert_eq!(
                end(&mut game, Seat::Second, reason),
                Err(EndError::GameOver)
            );
            assert_eq!(
                game.play(Action::Flip("a1".parse().unwrap())),
                Err(IllegalReason::GameOver)
            );
            assert!(game.legal_moves().is_empty());
        }
    }

    #[test]
    fn table_endings_after_the_first_flip_go_by_colour() {
        // Seat 1 reveals a black piece: seat 1 is black, red moves next.
        let mut game = Game::start();
        flip(&mut game, "c2=k");
        assert_eq!(game.seat_colour(Seat::First), Some(Color::Black));
        assert_eq!(game.seat_colour(Seat::Second), Some(Color::Red));
        let mut a = Game::start();
        flip(&mut a, "c2=k");
        assert_eq!(
            a.time_out(Seat::First).cloned(),
            Ok(Status::Ended(Outcome::win(Side::Red, EndReason::Timeout)))
        );
        assert_eq!(
            game.abandon(Seat::Second).cloned(),
            Ok(Status::Ended(Outcome::win(
                Side::Black,
                EndReason::Abandonment
            )))
        );
        let mut b = Game::start();
        flip(&mut b, "a1=P");
        flip(&mut b, "a2=p");
        assert_eq!(
            b.agree_draw().cloned(),
            Ok(Status::Ended(Outcome::draw(EndReason::Agreement)))
        );
        assert_eq!(b.agree_draw(), Err(EndError::GameOver));
        assert_eq!(b.ply(), 2);
        assert_eq!(b.records()[1].to_string(), "a2=p");
    }

    #[test]
    fn loaded_games_need_to_be_told_the_seats() {
        let start: Truth = "8/8/3P4/3p4 r - 0".parse().unwrap();
        let mut game = Game::new(start.clone());
        assert_eq!(game.ending_if(Seat::First, Quit::Resignation), None);
        assert_eq!(game.resign(Seat::First), Err(EndError::SeatColoursUnknown));
        assert_eq!(*game.status(), Status::Ongoing);
        let mut game = Game::new(start).with_first_seat(Color::Black);
        assert_eq!(
            game.resign(Seat::First).cloned(),
            Ok(Status::Ended(Outcome::win(
                Side::Red,
                EndReason::Resignation
            )))
        );
    }

    #[test]
    fn a_loaded_position_is_judged_at_once() {
        let over = Game::new("8/8/8/3P4 b - 0".parse().unwrap());
        assert_eq!(
            *over.status(),
            Status::Ended(Outcome::win(Side::Red, EndReason::AllCaptured))
        );
        // A win beats the 180-turn draw of the same position.
        let stuck = Game::new("7K/8/R7/pR6 b - 180".parse().unwrap());
        assert_eq!(
            *stuck.status(),
            Status::Ended(Outcome::win(Side::Red, EndReason::NoLegalMove))
        );
        // Debug output names neither pins nor the generator state.
        let g = Game::new("8/8/8/(K)(p)6 r - 0".parse().unwrap());
        assert_eq!(
            format!("{g:?}"),
            "Game { position: Truth { view: \"8/8/8/??6 r Kp 0\", pinned_squares_hidden: 2 }, \
             ply: 0, status: Ongoing, .. }"
        );
    }
}
