//! The error of validating a parsed setup into a position, one type for the three games (as
//! shakmaty's `PositionError`): every failing kind of the game's own list, in its spec's order.
//!
//! Each game names its kinds ([`crate::xiangqi::ValidationKind`],
//! [`crate::sanguo::ValidationKind`], [`crate::banqi::ValidationKind`]) and calls
//! `PositionError<ThoseKinds>` its `PositionError`.
//!
//! ```
//! use chuhe_rules::xiangqi::{ParseFenError, Position, ValidationKind};
//! // Two red generals and the black one facing them on an open file.
//! let Err(ParseFenError::Invalid(e)) = "4k4/9/9/9/9/9/9/9/9/3KK4 w".parse::<Position>() else {
//!     panic!("an invalid position")
//! };
//! assert_eq!(e.primary(), ValidationKind::GeneralCount);
//! assert!(e.to_string().starts_with("general-count (each side must have exactly one general)"));
//! ```

use std::fmt;

/// One reason a setup is not a valid position: a game's `ValidationKind`.
pub trait Validation: Copy + fmt::Debug + Eq {
    /// The machine word of the spec, e.g. `general-count`.
    fn as_str(self) -> &'static str;
    /// The rule in words, e.g. `each side must have exactly one general`.
    fn rule(self) -> &'static str;
}

/// A setup that breaks one or more rules of its game's spec: every failing kind, in the spec's
/// order (never empty). The first is the *primary* kind, which one-line messages and the
/// machine words of errors (`kind_str`) name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionError<K> {
    /// The failing kinds, in order; at least one.
    pub kinds: Vec<K>,
    /// The first failure in words, e.g. `6 red soldiers (at most 5)`, when the game says more
    /// than the rule (banqi); `None` to print the primary kind's rule.
    pub detail: Option<String>,
}

impl<K: Validation> PositionError<K> {
    /// The error of the failing `kinds` (in the spec's order), without detail; `None` when
    /// `kinds` is empty (the setup is valid).
    pub fn of(kinds: Vec<K>) -> Option<PositionError<K>> {
        (!kinds.is_empty()).then_some(PositionError {
            kinds,
            detail: None,
        })
    }

    /// The first failing kind.
    ///
    /// # Panics
    ///
    /// When `kinds` is empty, which no error of the rules is.
    pub fn primary(&self) -> K {
        self.kinds[0]
    }
}

impl<K: Validation> fmt::Display for PositionError<K> {
    /// `<primary kind> (<rule>)`, or `<primary kind>: <detail>` with a detail, then any further
    /// kinds: e.g. `general-count (each side must have exactly one general); also
    /// generals-facing`, `piece-count: 6 red soldiers (at most 5); also pool-size`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.primary();
        match &self.detail {
            Some(detail) => write!(f, "{}: {}", p.as_str(), detail)?,
            None => write!(f, "{} ({})", p.as_str(), p.rule())?,
        }
        if self.kinds.len() > 1 {
            let rest: Vec<&str> = self.kinds[1..].iter().map(|k| k.as_str()).collect();
            write!(f, "; also {}", rest.join(", "))?;
        }
        Ok(())
    }
}

impl<K: Validation> std::error::Error for PositionError<K> {}
