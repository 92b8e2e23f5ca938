//! Banqi (dark chess, Chinese dark chess) with Taiwan rules and the Computer Olympiad draw rules,
//! as `spec/banqi.md` defines it: a 4 × 8 board, 32 pieces that start face down, flips, rank
//! captures and cannon jumps, and hidden identities that stay hidden.
//!
//! - [`Setup`]: a parsed position text, unvalidated ([`text`]).
//! - [`Truth`]: a validated position that may know face-down identities in advance (tests,
//!   fixed deals). Not serialisable; its `Debug` hides the identities.
//! - [`View`]: what every seat may know; the only serialisable position. Legal actions,
//!   refusals and end-of-game checks are computed on it alone.
//! - [`Game`]: a truth, the recorded actions, repetition, table endings, and flips drawn at flip
//!   time from the pool with an OS-seeded cryptographic generator.
//! - [`Action`] (live: `flip c2`, `c2-c3`, `c2xc3`) and [`Record`] (logged: `c2=R`, …).
//!
//! ```
//! use chuhe_rules::banqi::{Truth, View};
//! let t: Truth = "8/3c4/2kKp3/3a4 r - 0".parse().unwrap();
//! let moves: Vec<String> = t.view().legal_actions().iter().map(|a| a.to_string()).collect();
//! assert_eq!(moves, ["d2xc2", "d2xd1", "d2xd3"]);
//! assert_eq!(View::start().legal_actions().len(), 32);
//! ```

pub mod action;
pub mod game;
pub mod piece;
pub mod position;
pub mod text;

pub use action::{Action, IllegalReason, ParseActionError, Record};
pub use game::{EndError, Game, Played, Seat, Status};
pub use piece::{
    can_step_capture, Direction, ParseSquareError, Piece, Pool, Square, CANONICAL_KINDS,
};
pub use position::{
    Cell, ParsePositionError, PositionError, PublicKey, Truth, ValidationKind, View,
};
pub use text::{Setup, SetupSquare, SyntaxError, QUIET_LIMIT};

/// The start position as a view text: 32 face-down pieces, the full pool, no colours yet.
pub const START_TEXT: &str =
    "????????/????????/????????/???????? - KAAEERRHHCCPPPPPkaaeerrhhccppppp 0";
