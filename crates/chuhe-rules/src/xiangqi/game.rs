//! A game of standard xiangqi: the position, the history the end-of-game rules need, and the
//! status after each move (`spec/xiangqi.md` §6).
//!
//! After every move, and once for the starting position, the rules are checked in the spec's
//! order: no legal move (checkmate or stalemate: the side to move loses), the third occurrence of
//! a position (verdict by [`super::judge`]), then the no-capture limit.

use super::judge;
use super::moves::{IllegalReason, Move, MoveList};
use super::position::Position;
use super::square::{Color, Piece, Square};
use crate::outcome::{EndReason, Outcome, Quit};
use std::fmt;
use std::sync::OnceLock;

/// The default no-capture limit in plies (`spec/xiangqi.md` §6.1).
pub const DEFAULT_NO_CAPTURE_LIMIT: u16 = 120;

/// The largest no-capture limit a table, the command line or the engine's `No Capture Limit`
/// option accepts, in plies: 1000 plies is a longer game than any in the records chuhe reads
/// (`data/`), and a larger value would only make a game endless in practice.
pub const MAX_NO_CAPTURE_LIMIT: u16 = 1000;

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

impl Status {
    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Ended(o) => Some(o),
        }
    }
}

/// What playing a move did ([`Game::play`]): the move, the piece it captured, and the status
/// after it. Its `Display` is the move's record text (ICCS, e.g. `h2e2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The move played.
    pub mv: Move,
    /// The piece taken on the target square, if any.
    pub captured: Option<Piece>,
    /// The status after the move.
    pub status: Status,
}

impl fmt::Display for Played {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.mv.fmt(f)
    }
}

/// Why a table ending ([`Game::resign`], [`Game::agree_draw`], ...) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndError {
    /// The game has already ended.
    GameOver,
}

impl fmt::Display for EndError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndError::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for EndError {}

/// One ply of the history: the move, whether it captured, and the key of the position after it
/// (16 bytes; the judge rebuilds the boards of a repetition cycle from these when it needs them).
#[derive(Debug, Clone, Copy)]
struct Ply {
    /// The move played.
    mv: Move,
    /// Whether it captured.
    capture: bool,
    /// The key of the position after it.
    key: u64,
}

/// A game: start position, moves, current position and status.
///
/// The history kept per ply is small (move, capture flag, position key); every piece also has an
/// identity, given at set-up in square order and carried along as it moves ([`Game::piece_id`]),
/// so that a perpetual chase is the chase of one and the same piece. Positions of past plies are
/// rebuilt on demand ([`Game::position_at`]).
///
/// ```
/// use chuhe_rules::outcome::{EndReason, Outcome, Side};
/// use chuhe_rules::xiangqi::{Color, Game, GameOptions, Position, Status};
/// let mut game = Game::new(Position::start(), GameOptions::default());
/// let played = game.play("h2e2".parse().unwrap()).unwrap();
/// assert_eq!(played.to_string(), "h2e2");
/// assert_eq!(played.status, Status::Ongoing);
/// assert_eq!(game.ply(), 1);
/// assert_eq!(game.side_to_move(), Color::Black);
/// assert_eq!(game.legal_moves().len(), 45);
/// game.resign(Color::Black).unwrap();
/// assert_eq!(
///     *game.status(),
///     Status::Ended(Outcome::win(Side::Red, EndReason::Resignation))
/// );
/// assert!(game.legal_moves().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    options: GameOptions,
    history: Vec<Ply>,
    /// The identity of the piece on each point ([`judge::NO_ID`] when empty).
    ids: judge::Ids,
    /// Every position from the start (index = ply), built on the first call of
    /// [`Game::position_at`] and kept up to date from then on.
    positions: OnceLock<Vec<Position>>,
    status: Status,
}

impl Game {
    /// A game from `start`; its status is evaluated at once (a start position can already be over).
    pub fn new(start: Position, options: GameOptions) -> Game {
        let ids = judge::initial_ids(&start.to_setup().board);
        let mut game = Game {
            position: start.clone(),
            start,
            options,
            history: Vec::new(),
            ids,
            positions: OnceLock::new(),
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

    /// The status after the last move or table ending.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The side to move in the current position.
    pub fn side_to_move(&self) -> Color {
        self.position.side_to_move()
    }

    /// The legal moves of the side to move, in generation order; empty once the game has ended.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.status == Status::Ongoing {
            self.position.legal_moves().iter().copied().collect()
        } else {
            Vec::new()
        }
    }

    /// The number of moves played from the start.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The moves played, in order.
    pub fn moves(&self) -> Vec<Move> {
        self.history.iter().map(|p| p.mv).collect()
    }

    /// The position after `ply` moves (0 = the start, [`Game::ply`] = the current one); `None`
    /// past the current ply.
    ///
    /// The first call replays the game once (the game does not keep past positions until asked);
    /// later calls and moves keep the list up to date.
    pub fn position_at(&self, ply: usize) -> Option<&Position> {
        if ply > self.ply() {
            return None;
        }
        self.positions
            .get_or_init(|| {
                let mut pos = self.start.clone();
                let mut list = Vec::with_capacity(self.history.len() + 1);
                list.push(pos.clone());
                for p in &self.history {
                    pos.play_unchecked(p.mv);
                    list.push(pos.clone());
                }
                list
            })
            .get(ply)
    }

    /// The identity of the piece on `sq`, or `None` for an empty point. Identities are numbered
    /// 0, 1, 2 … in square order (a0, b0, … i9) when the game is set up, and each piece keeps its
    /// number as it moves (`spec/xiangqi.md` §6.2); a captured piece's number is not reused.
    pub fn piece_id(&self, sq: Square) -> Option<u8> {
        let id = self.ids[sq.index()];
        (id != judge::NO_ID).then_some(id)
    }

    /// Plays a legal move and evaluates the end-of-game rules (`spec/xiangqi.md` §6).
    ///
    /// # Errors
    /// [`IllegalReason::GameOver`] when the game has ended, or the reason the move is illegal; the
    /// game is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<Played, IllegalReason> {
        if self.status != Status::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let captured = self.position.piece_at(m.to);
        let capture = captured.is_some();
        self.position.play(m)?;
        self.history.push(Ply {
            mv: m,
            capture,
            key: self.position.key(),
        });
        judge::move_id(&mut self.ids, m);
        if let Some(list) = self.positions.get_mut() {
            list.push(self.position.clone());
        }
        self.status = self.evaluate();
        Ok(Played {
            mv: m,
            captured,
            status: self.status.clone(),
        })
    }

    /// Ends the game from outside the board (resignation, timeout, abandonment, agreement).
    /// Ignored when the game has already ended.
    pub fn end(&mut self, outcome: Outcome) {
        if self.status == Status::Ongoing {
            self.status = Status::Ended(outcome);
        }
    }

    /// What the game's status would be if `side` quit by `how`, without changing the game: the
    /// other side wins (`spec/xiangqi.md` §6, ends decided outside the board). `None` once the
    /// game has ended.
    ///
    /// ```
    /// use chuhe_rules::outcome::{EndReason, Outcome, Quit, Side};
    /// use chuhe_rules::xiangqi::{Color, Game, GameOptions, Position, Status};
    /// let game = Game::new(Position::start(), GameOptions::default());
    /// assert_eq!(
    ///     game.ending_if(Color::Red, Quit::Timeout),
    ///     Some(Status::Ended(Outcome::win(Side::Black, EndReason::Timeout)))
    /// );
    /// assert_eq!(*game.status(), Status::Ongoing);
    /// ```
    pub fn ending_if(&self, side: Color, how: Quit) -> Option<Status> {
        (self.status == Status::Ongoing)
            .then(|| Status::Ended(Outcome::win(side.other().side(), how.reason())))
    }

    /// `side` quits by `how` and loses ([`Game::ending_if`] applied).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has already ended.
    pub fn quit(&mut self, side: Color, how: Quit) -> Result<&Status, EndError> {
        self.status = self.ending_if(side, how).ok_or(EndError::GameOver)?;
        Ok(&self.status)
    }

    /// `side` resigns and loses (`resignation`).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has already ended.
    pub fn resign(&mut self, side: Color) -> Result<&Status, EndError> {
        self.quit(side, Quit::Resignation)
    }

    /// `side`'s clock ran out: it loses (`timeout`).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has already ended.
    pub fn time_out(&mut self, side: Color) -> Result<&Status, EndError> {
        self.quit(side, Quit::Timeout)
    }

    /// `side` left, or stayed disconnected past the table's limit: it loses (`abandonment`).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has already ended.
    pub fn abandon(&mut self, side: Color) -> Result<&Status, EndError> {
        self.quit(side, Quit::Abandonment)
    }

    /// Both sides agreed to a draw (`agreement`, `spec/xiangqi.md` §6).
    ///
    /// # Errors
    /// [`EndError::GameOver`] when the game has already ended.
    pub fn agree_draw(&mut self) -> Result<&Status, EndError> {
        if self.status != Status::Ongoing {
            return Err(EndError::GameOver);
        }
        self.status = Status::Ended(Outcome::draw(EndReason::Agreement));
        Ok(&self.status)
    }

    fn evaluate(&self) -> Status {
        let pos = &self.position;
        let us = pos.side_to_move();
        if !has_legal_move(pos) {
            let reason = if pos.is_check() {
                EndReason::Checkmate
            } else {
                EndReason::Stalemate
            };
            return Status::Ended(Outcome::win(us.other().side(), reason));
        }
        if self.options.repetition {
            if let Some(outcome) = self.repetition_verdict() {
                return Status::Ended(outcome);
            }
        }
        let limit = self.options.no_capture_limit;
        if limit > 0 && pos.halfmove() >= limit {
            return Status::Ended(Outcome::draw(EndReason::NoCaptureLimit));
        }
        Status::Ongoing
    }

    /// The key of the position after `ply` moves.
    fn key_at(&self, ply: usize) -> u64 {
        match ply {
            0 => self.start.key(),
            _ => self.history[ply - 1].key,
        }
    }

    /// The verdict when the current position occurs for the third time (§6.3), else `None`.
    ///
    /// Searches the keys back to the last capture (no earlier position can recur). On a third
    /// occurrence the boards of the first and second occurrence are rebuilt by taking the moves
    /// back from the current board (the cycle holds no capture), which also rules out a Zobrist
    /// collision, and the cycle is judged from the first occurrence with the pieces' identities.
    fn repetition_verdict(&self) -> Option<Outcome> {
        let now = self.ply();
        let key = self.position.key();
        let mut earlier = [0usize; 2];
        let mut found = 0;
        let mut ply = now;
        // Same side to move: only every second ply can match.
        while ply >= 2 && found < 2 {
            if self.history[ply - 1].capture || self.history[ply - 2].capture {
                break;
            }
            ply -= 2;
            if self.key_at(ply) == key {
                earlier[found] = ply;
                found += 1;
            }
        }
        if found < 2 {
            return None;
        }
        let (second, first) = (earlier[0], earlier[1]);
        // Take the cycle back on a copy of the board and of the identities.
        let current = self.position.to_setup().board;
        let mut board = current;
        let mut ids = self.ids;
        for p in (first..now).rev() {
            let m = self.history[p].mv;
            board[m.from.index()] = board[m.to.index()];
            board[m.to.index()] = None;
            ids[m.from.index()] = ids[m.to.index()];
            ids[m.to.index()] = judge::NO_ID;
            if p == second && board != current {
                return None;
            }
        }
        if board != current {
            return None;
        }
        let cycle: Vec<Move> = self.history[first..now].iter().map(|p| p.mv).collect();
        let start = judge::Board::from_squares(board, self.position.side_to_move());
        Some(judge::verdict(start, ids, &cycle))
    }
}

/// Whether the side to move has a legal move, stopping at the first one found (the usual case
/// after one or two candidates), instead of counting them all.
fn has_legal_move(pos: &Position) -> bool {
    let mut list = MoveList::new();
    pos.candidate_moves(&mut list);
    list.iter().any(|&m| pos.is_legal(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Side;

    #[test]
    fn table_endings_agree_with_ending_if_and_stop_after_the_end() {
        for how in [Quit::Resignation, Quit::Timeout, Quit::Abandonment] {
            for side in Color::ALL {
                let mut game = Game::new(Position::start(), GameOptions::default());
                let foreseen = game.ending_if(side, how);
                assert_eq!(*game.status(), Status::Ongoing);
                let ended = match how {
                    Quit::Resignation => game.resign(side),
                    Quit::Timeout => game.time_out(side),
                    Quit::Abandonment => game.abandon(side),
                }
                .cloned();
                assert_eq!(ended.as_ref().ok(), foreseen.as_ref());
                assert_eq!(
                    ended,
                    Ok(Status::Ended(Outcome::win(
                        side.other().side(),
                        how.reason()
                    )))
                );
                assert_eq!(game.ending_if(side.other(), how), None);
                assert_eq!(game.agree_draw(), Err(EndError::GameOver));
                assert!(game.legal_moves().is_empty());
                assert_eq!(
                    game.play("h2e2".parse().unwrap()),
                    Err(IllegalReason::GameOver)
                );
            }
        }
    }

    #[test]
    fn played_says_what_the_move_did() {
        // spec/xiangqi.md E15: h0h9 takes nothing and mates.
        let pos: Position = "3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 119 70".parse().unwrap();
        let mut game = Game::new(pos, GameOptions::default());
        let played = game.play("h0h9".parse().unwrap()).unwrap();
        assert_eq!(played.to_string(), "h0h9");
        assert_eq!(played.captured, None);
        assert_eq!(
            played.status,
            Status::Ended(Outcome::win(Side::Red, EndReason::Checkmate))
        );
        assert_eq!(game.status().outcome(), played.status.outcome());
        // A capture names the piece taken.
        let mut game = Game::new(Position::start(), GameOptions::default());
        let played = game.play("b2b9".parse().unwrap()).unwrap();
        assert_eq!(played.captured.map(|p| p.fen_char()), Some('n'));
        assert_eq!(
            game.agree_draw().cloned(),
            Ok(Status::Ended(Outcome::draw(EndReason::Agreement)))
        );
    }
}
