//! A game of standard xiangqi: the position, the history the end-of-game rules need, and the
//! status after each move (`spec/xiangqi.md` §6).
//!
//! After every move, and once for the starting position, the rules are checked in the spec's
//! order: no legal move (checkmate or stalemate: the side to move loses), the third occurrence of
//! a position (verdict by [`super::judge`]), then the no-capture limit.

use super::judge;
use super::moves::{IllegalReason, Move};
use super::position::Position;
use crate::outcome::{EndReason, Outcome};

/// The default no-capture limit in plies (`spec/xiangqi.md` §6.1).
pub const DEFAULT_NO_CAPTURE_LIMIT: u16 = 120;

/// Table options that change how a game ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameOptions {
    /// Plies without a capture after which the game is drawn; 0 turns the rule off. Default 120.
    pub no_capture_limit: u16,
    /// Whether a third occurrence of a position ends the game (default true). Off for replaying
    /// records played under other rules (`chuhe records check` without `--rules chuhe`).
    pub repetition: bool,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            no_capture_limit: DEFAULT_NO_CAPTURE_LIMIT,
            repetition: true,
        }
    }
}

/// Whether the game goes on, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The game is over.
    Ended(Outcome),
}

/// One ply of the history: the move, the position key after it, and what the judge needs.
#[derive(Debug, Clone)]
pub(crate) struct Ply {
    /// The move played.
    pub(crate) mv: Move,
    /// Whether it captured.
    pub(crate) capture: bool,
    /// The key of the position after it.
    pub(crate) key: u64,
}

/// A game: start position, moves, current position and status.
///
/// ```
/// use chuhe_rules::xiangqi::{Game, GameOptions, Position, Status};
/// let mut game = Game::new(Position::start(), GameOptions::default());
/// game.play("h2e2".parse().unwrap()).unwrap();
/// assert_eq!(game.ply(), 1);
/// assert_eq!(*game.status(), Status::Ongoing);
/// ```
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    options: GameOptions,
    history: Vec<Ply>,
    /// Positions since the start, one per ply, for the judge (index 0 = start).
    positions: Vec<Position>,
    status: Status,
}

impl Game {
    /// A game from `start`; its status is evaluated at once (a start position can already be over).
    pub fn new(start: Position, options: GameOptions) -> Game {
        let mut game = Game {
            start: start.clone(),
            position: start.clone(),
            options,
            history: Vec::new(),
            positions: vec![start],
            status: Status::Ongoing,
        };
        game.status = game.evaluate();
        game
    }

    /// The starting position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The options the game was created with.
    pub fn options(&self) -> GameOptions {
        self.options
    }

    /// The status after the last move.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The number of moves played from the start.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The moves played, in order.
    pub fn moves(&self) -> Vec<Move> {
        self.history.iter().map(|p| p.mv).collect()
    }

    /// The position before ply `i + 1` (index 0 = start) up to the current one (index `ply()`).
    pub fn position_at(&self, ply: usize) -> Option<&Position> {
        self.positions.get(ply)
    }

    /// Plays a legal move and evaluates the end-of-game rules.
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] when the game has ended, or the reason the move is illegal; the
    /// game is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<&Status, IllegalReason> {
        if self.status != Status::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let capture = self.position.is_capture(m);
        self.position.play(m)?;
        self.history.push(Ply {
            mv: m,
            capture,
            key: self.position.key(),
        });
        self.positions.push(self.position.clone());
        self.status = self.evaluate();
        Ok(&self.status)
    }

    /// Ends the game from outside the board (resignation, timeout, abandonment, agreement).
    /// Ignored when the game has already ended.
    pub fn end(&mut self, outcome: Outcome) {
        if self.status == Status::Ongoing {
            self.status = Status::Ended(outcome);
        }
    }

    fn evaluate(&self) -> Status {
        let pos = &self.position;
        let us = pos.side_to_move();
        if !pos.has_legal_move() {
            let reason = if pos.is_check() {
                EndReason::Checkmate
            } else {
                EndReason::Stalemate
            };
            return Status::Ended(Outcome::win(us.other().winner(), reason));
        }
        if self.options.repetition {
            if let Some(outcome) = judge::repetition_verdict(&self.history, &self.positions) {
                return Status::Ended(outcome);
            }
        }
        let limit = self.options.no_capture_limit;
        if limit > 0 && pos.halfmove() >= limit {
            return Status::Ended(Outcome::draw(EndReason::NoCaptureLimit));
        }
        Status::Ongoing
    }
}
