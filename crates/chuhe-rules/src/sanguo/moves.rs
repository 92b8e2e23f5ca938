//! Moves and the move text of `spec/sanguo.md` §8.1, and why a move can be illegal.

use super::board::Point;
use super::piece::Kind;
use std::fmt;
use std::str::FromStr;

/// A move: a piece goes from one point to another (capturing what stands there). A move is
/// identified by its two points; the separator of the text is not part of it.
///
/// The text needs the board (`x` for a capture, `-` otherwise): see
/// [`super::Position::move_text`]. [`Move::text`] writes it with a given separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The point the piece leaves.
    pub from: Point,
    /// The point the piece goes to.
    pub to: Point,
}

impl Move {
    /// The move from `from` to `to`.
    pub const fn new(from: Point, to: Point) -> Move {
        Move { from, to }
    }

    /// The move text with `x` when `capture`, else `-`, e.g. `Ra1xRd1`, `Re1-Re2`.
    pub fn text(self, capture: bool) -> String {
        let mut out = String::with_capacity(7);
        self.push_text(capture, &mut out);
        out
    }

    /// Appends [`Move::text`] to `out`.
    ///
    /// ```
    /// use chuhe_rules::sanguo::Move;
    /// let m: Move = "Ra1-Rd1".parse().unwrap();
    /// let mut out = String::new();
    /// m.push_text(true, &mut out);
    /// assert_eq!(out, "Ra1xRd1");
    /// ```
    pub fn push_text(self, capture: bool, out: &mut String) {
        self.from.push_name(out);
        out.push(if capture { 'x' } else { '-' });
        self.to.push_name(out);
    }

    /// The same move one kingdom on (§2.4).
    pub const fn rotated(self) -> Move {
        Move {
            from: self.from.rotated(),
            to: self.to.rotated(),
        }
    }
}

/// The error of reading a move text that is not `<point><- or x><point>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseMoveError(pub String);

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a move: {:?} (expected such as Re1-Re2 or Ra1xRd1)",
            self.0
        )
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Reads `Re1-Re2` or `Ra1xRd1`; both separators are accepted whatever the board holds.
    ///
    /// # Errors
    /// [`ParseMoveError`] for any other spelling (lower-case kingdom letters, no separator,
    /// spaces).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseMoveError(s.to_owned());
        if s.len() != 7 || !s.is_ascii() {
            return Err(err());
        }
        if !matches!(s.as_bytes()[3], b'-' | b'x') {
            return Err(err());
        }
        let from: Point = s[..3].parse().map_err(|_| err())?;
        let to: Point = s[4..].parse().map_err(|_| err())?;
        Ok(Move { from, to })
    }
}

/// Why a move is not legal in a position: the first rule of `spec/sanguo.md` §4–§5 it breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalReason {
    /// The from-point is empty.
    NoPiece,
    /// The piece on the from-point belongs to another kingdom than the one to move.
    NotYourPiece,
    /// The from-point and the to-point are the same.
    NullMove,
    /// The to-point holds a piece of the kingdom to move.
    OwnPieceOnTarget,
    /// The piece cannot reach the target by its movement rule, even on an empty board.
    BadShape(Kind),
    /// A general or an advisor would leave its origin palace.
    LeavesPalace(Kind),
    /// An elephant would leave its origin half.
    ElephantCrossesRiver,
    /// The piece could reach the target on an empty board, but a point on its way (horse leg,
    /// elephant eye, flag-bearer steps, a line) is occupied.
    Blocked(Kind),
    /// A cannon capture without exactly one screen.
    CannonNeedsScreen,
    /// The move would leave the mover's general attacked.
    LeavesGeneralAttacked,
    /// The move would leave the mover's general facing another general on an open line.
    GeneralsFacing,
    /// Only one kingdom is left (or the game has ended): no move is legal.
    GameOver,
}

impl fmt::Display for IllegalReason {
    /// A short lower-case explanation, e.g. `horse leg is blocked`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::NoPiece => f.write_str("no piece on the from-point"),
            IllegalReason::NotYourPiece => {
                f.write_str("that piece belongs to another kingdom than the one to move")
            }
            IllegalReason::NullMove => f.write_str("a move must change point"),
            IllegalReason::OwnPieceOnTarget => f.write_str("the target holds an own piece"),
            IllegalReason::BadShape(k) => write!(
                f,
                "{} {}",
                k.name(),
                match k {
                    Kind::General => "moves one point orthogonally inside its palace",
                    Kind::Advisor => "moves one point diagonally inside its palace",
                    Kind::Elephant => "moves exactly two points diagonally",
                    Kind::Horse => "moves one point straight then one diagonally outward",
                    Kind::Chariot | Kind::Cannon => "moves along a line",
                    Kind::Soldier => {
                        "moves forward in its origin half, towards the back rank or sideways elsewhere"
                    }
                    Kind::FlagBearer => "moves two points straight then one diagonally outward",
                }
            ),
            IllegalReason::LeavesPalace(k) => write!(f, "{} cannot leave its palace", k.name()),
            IllegalReason::ElephantCrossesRiver => f.write_str("elephant cannot cross the river"),
            IllegalReason::Blocked(k) => write!(
                f,
                "{}",
                match k {
                    Kind::Horse => "horse leg is blocked",
                    Kind::Elephant => "elephant eye is blocked",
                    Kind::FlagBearer => "flag bearer path is blocked",
                    Kind::Cannon => "cannon path is blocked",
                    _ => "chariot path is blocked",
                }
            ),
            IllegalReason::CannonNeedsScreen => {
                f.write_str("cannon needs exactly one screen to capture")
            }
            IllegalReason::LeavesGeneralAttacked => f.write_str("own general would be attacked"),
            IllegalReason::GeneralsFacing => f.write_str("own general would face another general"),
            IllegalReason::GameOver => f.write_str("the game has ended"),
        }
    }
}

impl std::error::Error for IllegalReason {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_texts() {
        let m: Move = "Ra1-Rd1".parse().unwrap();
        assert_eq!("Ra1xRd1".parse::<Move>(), Ok(m));
        assert_eq!(m.text(true), "Ra1xRd1");
        assert_eq!(m.text(false), "Ra1-Rd1");
        for bad in [
            "ra1-rd1",
            "Ra1Rd1",
            "Ra1 Rd1",
            "Ra1-Rd1 ",
            "Ra1+Rd1",
            "Ra6-Rd1",
            "Ra1–Rd1",
        ] {
            assert_eq!(
                bad.parse::<Move>().unwrap_err().to_string(),
                format!("not a move: {bad:?} (expected such as Re1-Re2 or Ra1xRd1)")
            );
        }
    }
}
