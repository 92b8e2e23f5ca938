//! chuhe's standard-xiangqi engine and its text protocol front end (`spec/engine-protocol.md`).
//!
//! - [`search`]: iterative deepening alpha-beta (PVS) with a transposition table ([`tt`]),
//!   quiescence, pruning and reductions, the repetition rules of the game ([`rules`]), MultiPV
//!   and time management;
//! - [`eval`]: the hand-crafted evaluation, its weights all in [`weights`];
//! - [`movepick`]: move ordering;
//! - [`skill`]: weaker play (`Skill Level`, `UCI_Elo`);
//! - [`levels`], [`kit`], [`sanguo`], [`banqi`]: the levels 1–8 of the three games and the
//!   sanguo and banqi players with their shared search kit;
//! - [`uci`]: the UCI / UCCI session that `chuhe uci` connects to standard input and output;
//! - [`bench`]: the fixed positions of `chuhe bench` and its node signature.
#![deny(missing_docs)]

pub mod arena;
pub mod banqi;
pub mod bench;
pub mod eval;
pub mod kit;
pub mod levels;
pub mod movepick;
pub mod player;
pub mod puzzle;
pub mod rules;
pub mod sanguo;
pub mod search;
pub mod skill;
pub mod tt;
pub mod uci;
pub mod weights;

/// The engine's name and version as `id name` prints it.
pub const ENGINE_NAME: &str = concat!("chuhe ", env!("CARGO_PKG_VERSION"));
/// The `id author` line's text.
pub const ENGINE_AUTHOR: &str = "the chuhe developers";
