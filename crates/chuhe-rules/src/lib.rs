//! The rules of the xiangqi family, with no I/O and no async.
//!
//! - [`xiangqi`]: standard xiangqi (Chinese chess) as `spec/xiangqi.md` defines it: squares, FEN,
//!   validation, legal moves, check, checkmate and stalemate, Zobrist keys.
//! - [`outcome`]: the shared end-of-game vocabulary ([`Outcome`], [`EndReason`]).
//! - [`perft`]: leaf counting over a game's legal-move tree.
//! - [`position_error`]: why a setup is not a valid position, one type for the three games.
//! - [`variant`]: the three games by name, with the facts a table takes from each ([`Variant`]).
//!
//! Data flows one way: text → [`xiangqi::Setup`] (parsed, unvalidated) →
//! [`xiangqi::Position`] (validated) → legal moves → play.
//!
//! The three games' `Game` types share one shape, by name and not by trait (board, seats and
//! move type differ): `play(mv) -> Result<Played, IllegalReason>` (each game's own `Played`: the
//! record text as its `Display`, what was captured, sanguo's defeats, the status after),
//! `legal_moves()`, `side_to_move()`, `status()`, the table endings `resign`, `time_out`,
//! `abandon` and `agree_draw` (`-> Result<&Status, EndError>`), and the pure
//! `ending_if(who, Quit) -> Option<Status>` that says what a table ending would be without
//! changing the game ([`xiangqi::Game`], [`sanguo::Game`], [`banqi::Game`]). Check is each
//! position's `checked_sides` / `checked_kingdoms`.
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
pub mod position_error;
pub mod sanguo;
pub mod variant;
pub mod xiangqi;

pub use outcome::{EndReason, Outcome, Quit, Side};
pub use position_error::PositionError;
pub use variant::Variant;
