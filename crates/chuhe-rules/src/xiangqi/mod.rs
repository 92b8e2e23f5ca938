//! Standard xiangqi (`spec/xiangqi.md`): squares, bitboards, FEN, validation, legal moves, check,
//! checkmate and stalemate, Zobrist keys.
//!
//! ```
//! use chuhe_rules::xiangqi::{Move, Position};
//! let mut pos = Position::start();
//! let m: Move = "h2e2".parse().unwrap();
//! assert!(pos.is_legal(m));
//! pos.play(m).unwrap();
//! assert_eq!(pos.play("h2e2".parse().unwrap()).unwrap_err().to_string(), "no piece on the from-square");
//! ```

pub mod attacks;
pub mod bitboard;
pub mod game;
pub mod judge;
pub mod moves;
pub mod position;
pub mod setup;
pub mod square;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use game::{
    EndError, Game, GameOptions, Played, Status, DEFAULT_NO_CAPTURE_LIMIT, MAX_NO_CAPTURE_LIMIT,
};
pub use moves::{IllegalReason, Move, MoveList, ParseMoveError, MAX_MOVES};
pub use position::{ParseFenError, Position, PositionError, Undo, ValidationKind};
pub use setup::{FenError, FenErrorKind, Setup, START_FEN};
pub use square::{Color, Kind, ParseSquareError, Piece, Square};

/// Counts the leaves of the legal-move tree of depth `depth` below `pos` (perft): the crate's
/// one perft ([`crate::perft::perft`]).
///
/// With `bulk` the last ply is counted without playing its moves (bulk counting); without it
/// every leaf move is played and taken back (full make/unmake). Both give the same number.
/// `depth` 0 gives 1. `pos` is restored.
pub fn perft(pos: &mut Position, depth: u32, bulk: bool) -> u64 {
    crate::perft::perft(pos, depth, bulk)
}

/// Perft split by root move: `(move, leaves)` for every legal move, sorted bytewise by ICCS
/// ([`crate::perft::divide`]).
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut out = crate::perft::divide(pos, depth);
    out.sort_by_cached_key(|(m, _)| m.to_string());
    out
}
