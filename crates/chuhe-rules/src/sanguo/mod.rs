//! Three Kingdoms xiangqi (sanguo), three players on a 135-point board, as `spec/sanguo.md`
//! defines it: the joined board as a graph ([`board`]), pieces with owner and origin, position
//! text, legal moves against both rivals, defeats and army transfers, and the game with its
//! end-of-game and table rules.
//!
//! Data flows one way: text → [`Setup`] (parsed) → [`Position`] (validated) → legal moves →
//! play → [`Game`] (end-of-game rules).
//!
//! ```
//! use chuhe_rules::sanguo::{Move, Position};
//! let pos = Position::start(false);
//! let moves = pos.legal_moves();
//! assert_eq!(moves.len(), 44);
//! let m: Move = "Rh3xGb1".parse().unwrap();
//! assert!(moves.contains(&m));
//! assert_eq!(pos.move_text(m), "Rh3xGb1");
//! ```

pub mod board;
pub mod game;
pub mod moves;
pub mod piece;
pub mod position;
pub mod setup;
pub mod zobrist;

pub use crate::outcome::Quit;
pub use board::{graph, Graph, Kingdom, ParsePointError, Point, Ray, POINTS};
pub use game::{DefeatEvent, EndError, Game, Played, Status};
pub use moves::{IllegalReason, Move, ParseMoveError};
pub use piece::{Kind, Piece};
pub use position::{Defeat, Effect, Identity, ParseError, Position, PositionError, ValidationKind};
pub use setup::{Setup, SyntaxError, QUIET_LIMIT, START_TEXT, START_TEXT_NO_FLAGS};

/// Counts the leaves of the legal-move tree of depth `depth` below `pos` (`spec/sanguo.md` §7:
/// turn-start defeats included, draw rules ignored): the crate's one perft
/// ([`crate::perft::perft`]). `depth` 0 gives 1.
///
/// With `bulk` the last ply is counted without playing its moves; without it every leaf move is
/// played too. Both give the same number.
pub fn perft(pos: &Position, depth: u32, bulk: bool) -> u64 {
    crate::perft::perft(&mut pos.clone(), depth, bulk)
}

/// Perft split by root move: `(move text, leaves)` for every legal move, sorted bytewise by text
/// ([`crate::perft::divide`]).
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = crate::perft::divide(&mut pos.clone(), depth)
        .into_iter()
        .map(|(m, n)| (pos.move_text(m), n))
        .collect();
    out.sort();
    out
}
