//! A game of Three Kingdoms xiangqi: the position, the moves, the defeats and the end-of-game
//! rules in the order of `spec/sanguo.md` C13, and the table rules of C14 (resignation, timeout,
//! abandonment, agreement) as methods, so a server only calls them.

use super::board::Kingdom;
use super::moves::{IllegalReason, Move};
use super::piece::Piece;
use super::position::{Defeat, Identity, Position};
use super::setup::QUIET_LIMIT;
use crate::outcome::{EndReason, Outcome, Quit};
use std::collections::HashMap;
use std::fmt;

/// Whether the game goes on, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The game is over.
    Ended(Outcome),
}

impl Status {
    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Ended(o) => Some(o),
        }
    }
}

/// A defeat during the game (§6.1): the ply after which it happened (0 = on loading the start
/// position) and the defeat itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefeatEvent {
    /// Number of moves played when it happened.
    pub ply: usize,
    /// Who was defeated, how, and who took over the army.
    pub defeat: Defeat,
}

/// What playing a move did ([`Game::play`]): the move, the piece it captured, the defeats it
/// caused (C7, C8; at most two) and the status after it. Its `Display` is the move's record text
/// (`Rh3-Rh4`, `Rh3xGb1`: `x` when it captured).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The move played.
    pub mv: Move,
    /// The piece taken on the target point, if any.
    pub captured: Option<Piece>,
    /// The defeats, in the order they happened.
    pub defeats: Vec<Defeat>,
    /// The status after the move.
    pub status: Status,
}

impl fmt::Display for Played {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.mv.text(self.captured.is_some()))
    }
}

/// Why a table ending ([`Game::resign`], [`Game::agree_draw`], ...) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndError {
    /// The game has already ended.
    GameOver,
    /// The kingdom is already defeated: its quitting changes nothing (C14).
    Defeated,
}

impl fmt::Display for EndError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndError::GameOver => f.write_str("the game is over"),
            EndError::Defeated => f.write_str("the kingdom is already defeated"),
        }
    }
}

impl std::error::Error for EndError {}

/// A game: start position, moves, current position, defeats and status.
///
/// ```
/// use chuhe_rules::sanguo::{Game, Kingdom, Position, Status};
/// use chuhe_rules::outcome::Side;
/// let mut game = Game::new(Position::start(true));
/// let played = game.play("Rh3-Rh4".parse().unwrap()).unwrap();
/// assert_eq!(played.to_string(), "Rh3-Rh4");
/// assert_eq!(game.ply(), 1);
/// assert_eq!(game.side_to_move(), Kingdom::Wu);
/// game.resign(Kingdom::Wu).unwrap();
/// match game.status() {
///     Status::Ended(o) => assert_eq!(o.winners, [Side::Shu, Side::Wei]),
///     Status::Ongoing => unreachable!(),
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    events: Vec<DefeatEvent>,
    seen: HashMap<Identity, u8>,
    status: Status,
}

impl Game {
    /// A game from a loaded position: C13 steps 2–5 are applied at once (a kingdom to move
    /// without a legal move is defeated, heir per C8), so the game may already be over.
    ///
    /// A loaded position with a single active kingdom is won by it with reason `no-legal-move`
    /// (the text does not record how the earlier defeats happened).
    pub fn new(start: Position) -> Game {
        let mut position = start.clone();
        let defeats = position.resolve_start();
        let mut game = Game {
            start,
            position,
            moves: Vec::new(),
            events: Vec::new(),
            seen: HashMap::new(),
            status: Status::Ongoing,
        };
        game.record(&defeats);
        game.status = game.evaluate(defeats.last().map(|d| d.reason));
        game
    }

    /// The position the game started from (before any defeat on loading).
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The status after the last move or table event.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Whether the game goes on.
    pub fn is_ongoing(&self) -> bool {
        self.status == Status::Ongoing
    }

    /// The kingdom to move in the current position.
    pub fn side_to_move(&self) -> Kingdom {
        self.position.side_to_move()
    }

    /// The number of moves played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every defeat so far, in order.
    pub fn defeats(&self) -> &[DefeatEvent] {
        &self.events
    }

    /// The legal moves of the kingdom to move; empty when the game has ended.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_ongoing() {
            self.position.legal_moves()
        } else {
            Vec::new()
        }
    }

    /// Plays a legal move and applies C13: captures and defeats, turn passing, then one
    /// kingdom left (it wins), the 180-move rule, threefold repetition.
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] when the game has ended, or the reason the move is illegal;
    /// the game is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<Played, IllegalReason> {
        if !self.is_ongoing() {
            return Err(IllegalReason::GameOver);
        }
        let effect = self.position.play(m)?;
        self.moves.push(m);
        self.record(&effect.defeats);
        self.status = self.evaluate(effect.defeats.last().map(|d| d.reason));
        Ok(Played {
            mv: m,
            captured: effect.captured,
            defeats: effect.defeats,
            status: self.status.clone(),
        })
    }

    /// What the status would be if `kingdom` quit by `how` (C14), without changing the game: an
    /// active kingdom ends the game at once and the other active kingdoms win (one, or two
    /// sharing the victory). `None` when it would change nothing: a defeated kingdom, or a game
    /// already over.
    ///
    /// ```
    /// use chuhe_rules::outcome::{EndReason, Quit, Side};
    /// use chuhe_rules::sanguo::{Game, Kingdom, Position, Status};
    /// let game = Game::new(Position::start(true));
    /// let Some(Status::Ended(o)) = game.ending_if(Kingdom::Shu, Quit::Abandonment) else {
    ///     unreachable!()
    /// };
    /// assert_eq!(o.winners, [Side::Wu, Side::Wei]);
    /// assert_eq!(o.reason, EndReason::Abandonment);
    /// assert!(game.is_ongoing());
    /// ```
    pub fn ending_if(&self, kingdom: Kingdom, how: Quit) -> Option<Status> {
        self.quit_status(kingdom, how).ok()
    }

    fn quit_status(&self, kingdom: Kingdom, how: Quit) -> Result<Status, EndError> {
        if !self.is_ongoing() {
            return Err(EndError::GameOver);
        }
        if self.position.is_defeated(kingdom) {
            return Err(EndError::Defeated);
        }
        let winners = self
            .position
            .active()
            .into_iter()
            .filter(|&k| k != kingdom)
            .map(Kingdom::side)
            .collect();
        Ok(Status::Ended(Outcome {
            winners,
            reason: how.reason(),
        }))
    }

    /// `kingdom` quits by `how` ([`Game::ending_if`] applied).
    ///
    /// # Errors
    /// [`EndError::GameOver`] once the game has ended, [`EndError::Defeated`] for a defeated
    /// kingdom (which may leave freely); the game is then unchanged.
    pub fn quit(&mut self, kingdom: Kingdom, how: Quit) -> Result<&Status, EndError> {
        self.status = self.quit_status(kingdom, how)?;
        Ok(&self.status)
    }

    /// `kingdom` resigns ([`Game::quit`] with [`Quit::Resignation`]).
    ///
    /// # Errors
    /// As [`Game::quit`].
    pub fn resign(&mut self, kingdom: Kingdom) -> Result<&Status, EndError> {
        self.quit(kingdom, Quit::Resignation)
    }

    /// `kingdom`'s clock ran out ([`Game::quit`] with [`Quit::Timeout`]).
    ///
    /// # Errors
    /// As [`Game::quit`].
    pub fn time_out(&mut self, kingdom: Kingdom) -> Result<&Status, EndError> {
        self.quit(kingdom, Quit::Timeout)
    }

    /// `kingdom`'s player left the table or stayed disconnected past its limit ([`Game::quit`]
    /// with [`Quit::Abandonment`]).
    ///
    /// # Errors
    /// As [`Game::quit`].
    pub fn abandon(&mut self, kingdom: Kingdom) -> Result<&Status, EndError> {
        self.quit(kingdom, Quit::Abandonment)
    }

    /// Ends the game as a draw by agreement, which the table must have obtained from every
    /// active kingdom (C14).
    ///
    /// # Errors
    /// [`EndError::GameOver`] once the game has ended.
    pub fn agree_draw(&mut self) -> Result<&Status, EndError> {
        if !self.is_ongoing() {
            return Err(EndError::GameOver);
        }
        self.status = Status::Ended(Outcome::draw(EndReason::Agreement));
        Ok(&self.status)
    }

    fn record(&mut self, defeats: &[Defeat]) {
        let ply = self.moves.len();
        self.events
            .extend(defeats.iter().map(|&defeat| DefeatEvent { ply, defeat }));
        *self.seen.entry(self.position.identity()).or_insert(0) += 1;
    }

    /// C13 steps 3–5 on the current position; `last_defeat` is how the latest defeat of this
    /// step happened.
    fn evaluate(&self, last_defeat: Option<EndReason>) -> Status {
        let pos = &self.position;
        if pos.active_count() == 1 {
            let reason = last_defeat
                .or_else(|| self.events.last().map(|e| e.defeat.reason))
                .unwrap_or(EndReason::NoLegalMove);
            return Status::Ended(Outcome::win(pos.side_to_move().side(), reason));
        }
        if pos.quiet() >= QUIET_LIMIT {
            return Status::Ended(Outcome::draw(EndReason::NoCaptureLimit));
        }
        if self.seen.get(&pos.identity()).is_some_and(|&n| n >= 3) {
            return Status::Ended(Outcome::draw(EndReason::ThreefoldRepetition));
        }
        Status::Ongoing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Side;

    fn game(text: &str) -> Game {
        Game::new(Position::from_text(text).expect("a valid text"))
    }

    #[test]
    fn a_defeat_on_loading_is_an_event_of_ply_0() {
        // cases/sanguo.md TK-14 after `Bi1-Bi2`, with Shu still to move.
        let g = game("3gR1gR3/9/4gP4/9/4rK4,9/9/9/9/3gK5,9/9/9/8bR/3bK5 R B - - 41");
        assert_eq!(
            g.defeats(),
            [DefeatEvent {
                ply: 0,
                defeat: Defeat {
                    kingdom: Kingdom::Shu,
                    reason: EndReason::NoLegalMove,
                    heir: Kingdom::Wei
                }
            }]
        );
        assert_eq!(g.position().side_to_move(), Kingdom::Wu);
        assert_eq!(g.position().quiet(), 0);
        assert!(g.is_ongoing());
    }

    #[test]
    fn a_loaded_position_with_one_kingdom_is_over() {
        let mut g = game("9/9/9/9/3rK5,9/9/9/9/9,9/9/9/9/9 R - GB - 0");
        assert_eq!(
            *g.status(),
            Status::Ended(Outcome::win(Side::Shu, EndReason::NoLegalMove))
        );
        assert!(g.legal_moves().is_empty());
        assert_eq!(g.resign(Kingdom::Shu), Err(EndError::GameOver));
        assert_eq!(
            g.play("Rd1-Re1".parse().expect("a move")),
            Err(IllegalReason::GameOver)
        );
    }

    #[test]
    fn played_says_what_the_move_did() {
        let mut g = Game::new(Position::start(false));
        assert_eq!(g.side_to_move(), Kingdom::Shu);
        let p = g.play("Rh3xGb1".parse().expect("a move")).expect("legal");
        assert_eq!(p.to_string(), "Rh3xGb1");
        assert!(p.captured.is_some());
        assert!(p.defeats.is_empty());
        assert_eq!(p.status, Status::Ongoing);
        assert_eq!(g.side_to_move(), Kingdom::Wu);
        assert_eq!(
            g.ending_if(Kingdom::Wu, Quit::Timeout)
                .as_ref()
                .and_then(Status::outcome)
                .map(|o| o.winners.clone()),
            Some(vec![Side::Shu, Side::Wei])
        );
    }

    #[test]
    fn quiet_limit_on_loading_and_agreement() {
        let g = game("9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 180");
        assert_eq!(
            *g.status(),
            Status::Ended(Outcome::draw(EndReason::NoCaptureLimit))
        );
        let mut g = game("9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0");
        assert!(g.agree_draw().is_ok());
        assert_eq!(g.agree_draw(), Err(EndError::GameOver));
        assert_eq!(g.abandon(Kingdom::Wu), Err(EndError::GameOver));
        assert_eq!(
            *g.status(),
            Status::Ended(Outcome::draw(EndReason::Agreement))
        );
    }
}
