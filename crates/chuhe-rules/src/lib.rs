//! The rules of the xiangqi family, with no I/O and no async.
//!
//! - [`xiangqi`]: standard xiangqi (Chinese chess) as `spec/xiangqi.md` defines it: squares, FEN,
//!   validation, legal moves, check, checkmate and stalemate, Zobrist keys.
//! - [`outcome`]: the shared end-of-game vocabulary ([`Outcome`], [`EndReason`]).
//! - [`perft`]: leaf counting over a game's legal-move tree.
//! - [`variant`]: the three games by name, with the facts a table takes from each ([`Variant`]).
//!
//! Data flows one way: text → [`xiangqi::Setup`] (parsed, unvalidated) →
//! [`xiangqi::Position`] (validated) → legal moves → play.
//!
//! ```
//! use chuhe_rules::xiangqi::Position;
//! let pos = Position::start();
//! assert_eq!(pos.legal_moves().len(), 44);
//! ```
#![deny(missing_docs)]

pub mod banqi;
pub mod outcome;
pub mod perft;
pub mod sanguo;
pub mod variant;
pub mod xiangqi;

pub use outcome::{EndReason, Outcome, Quit, Side};
pub use variant::Variant;
