//! Moves in ICCS coordinates (`h2e2`), move lists, and the reasons a move is illegal.

use super::square::{Kind, Square};
use std::fmt;
use std::str::FromStr;

/// A move: from-square and to-square. Written in ICCS as four lower-case characters, `h2e2`
/// (`spec/xiangqi.md` §1). A `Move` is only a pair of squares; whether it is legal depends on a
/// [`super::Position`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square the piece leaves.
    pub from: Square,
    /// The square the piece goes to (capturing what stands there).
    pub to: Square,
}

impl Move {
    /// The move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

impl fmt::Display for Move {
    /// ICCS, e.g. `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// The error of reading move text that is not four ICCS characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseMoveError(pub String);

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a move: {:?} (expected ICCS such as h2e2)", self.0)
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Reads ICCS: two squares, files `a`–`i` in either case, ranks `0`–`9`.
    ///
    /// # Errors
    /// [`ParseMoveError`] for any other text (including ranks 1–10 such as `h10`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 4 || !s.is_ascii() {
            return Err(ParseMoveError(s.to_owned()));
        }
        let from = s[..2].parse().map_err(|_| ParseMoveError(s.to_owned()))?;
        let to = s[2..].parse().map_err(|_| ParseMoveError(s.to_owned()))?;
        Ok(Move { from, to })
    }
}

/// Capacity of a [`MoveList`]. No xiangqi position has more pseudo-legal moves (the most known is
/// below 130; the bound follows from the piece counts: 2 chariots × 17 + 2 cannons × 17 +
/// 2 horses × 8 + 5 soldiers × 3 + 2 elephants × 4 + 2 advisors × 4 + general × 4 = 119).
pub const MAX_MOVES: usize = 128;

/// A fixed-capacity list of moves, with no heap allocation.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        let a0 = Square::from_index_unchecked(0);
        MoveList {
            moves: [Move { from: a0, to: a0 }; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move.
    ///
    /// # Panics
    /// If the list already holds [`MAX_MOVES`] moves, which no legal position reaches.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// The number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for sorting).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    /// Keeps only the moves for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if keep(m) {
                self.moves[j] = m;
                j += 1;
            }
        }
        self.len = j;
    }

    /// Sorts bytewise by ICCS text (from-file, from-rank, to-file, to-rank), the order in which
    /// the CLI and `go perft` print moves.
    pub fn sort_by_text(&mut self) {
        self.as_mut_slice().sort_by_key(|m| {
            let (f, t) = (m.from, m.to);
            (f.file(), f.rank(), t.file(), t.rank())
        });
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl AsRef<[Move]> for MoveList {
    fn as_ref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.as_slice().iter().map(|m| m.to_string()))
            .finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Why a move is not legal in a position: the first rule of `spec/xiangqi.md` §3–§4 it breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalReason {
    /// The from-square is empty.
    NoPiece,
    /// The piece on the from-square belongs to the side not to move.
    NotYourPiece,
    /// The from-square and the to-square are the same.
    NullMove,
    /// The to-square holds a piece of the side to move.
    OwnPieceOnTarget,
    /// The piece cannot reach the target by its movement rule at all.
    BadShape(Kind),
    /// A general or advisor would leave its palace.
    LeavesPalace(Kind),
    /// An elephant would cross the river.
    ElephantCrossesRiver,
    /// The elephant's eye (the point between) is occupied.
    ElephantEyeBlocked,
    /// The horse's leg is occupied.
    HorseLegBlocked,
    /// A chariot's or a cannon's path holds a piece before the target.
    PathBlocked(Kind),
    /// A cannon capture without exactly one screen.
    CannonNeedsScreen,
    /// A soldier stepping backward.
    SoldierBackward,
    /// A soldier stepping sideways before it crossed the river.
    SoldierSidewaysBeforeRiver,
    /// The move would leave the mover's general attacked.
    LeavesGeneralInCheck,
    /// The move would leave the two generals facing each other on an open file.
    GeneralsFacing,
    /// The game has already ended; no move is legal.
    GameOver,
}

impl fmt::Display for IllegalReason {
    /// A short lower-case explanation, e.g. `cannon needs exactly one screen to capture`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::NoPiece => f.write_str("no piece on the from-square"),
            IllegalReason::NotYourPiece => {
                f.write_str("that piece belongs to the side not to move")
            }
            IllegalReason::NullMove => f.write_str("a move must change square"),
            IllegalReason::OwnPieceOnTarget => f.write_str("the target holds an own piece"),
            IllegalReason::BadShape(k) => write!(
                f,
                "{} {}",
                k.name(),
                match k {
                    Kind::General => "moves one point orthogonally",
                    Kind::Advisor => "moves one point diagonally",
                    Kind::Elephant => "moves exactly two points diagonally",
                    Kind::Horse => "moves one point orthogonally then one diagonally outward",
                    Kind::Chariot => "moves along a file or a rank",
                    Kind::Cannon => "moves along a file or a rank",
                    Kind::Soldier =>
                        "moves one point forward, or sideways after crossing the river",
                }
            ),
            IllegalReason::LeavesPalace(k) => write!(f, "{} cannot leave its palace", k.name()),
            IllegalReason::ElephantCrossesRiver => f.write_str("elephant cannot cross the river"),
            IllegalReason::ElephantEyeBlocked => f.write_str("elephant eye is blocked"),
            IllegalReason::HorseLegBlocked => f.write_str("horse leg is blocked"),
            IllegalReason::PathBlocked(k) => write!(f, "{} path is blocked", k.name()),
            IllegalReason::CannonNeedsScreen => {
                f.write_str("cannon needs exactly one screen to capture")
            }
            IllegalReason::SoldierBackward => f.write_str("soldier cannot move backward"),
            IllegalReason::SoldierSidewaysBeforeRiver => {
                f.write_str("soldier cannot move sideways before crossing the river")
            }
            IllegalReason::LeavesGeneralInCheck => f.write_str("own general would be in check"),
            IllegalReason::GeneralsFacing => f.write_str("the generals would face each other"),
            IllegalReason::GameOver => f.write_str("the game has ended"),
        }
    }
}

impl std::error::Error for IllegalReason {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iccs_round_trip() {
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(m.to_string(), "h2e2");
        assert_eq!("H2E2".parse::<Move>().unwrap(), m);
        assert_eq!(
            "h3e10".parse::<Move>().unwrap_err().to_string(),
            "not a move: \"h3e10\" (expected ICCS such as h2e2)"
        );
        assert!("h2-e2".parse::<Move>().is_err());
        assert!("炮二平五".parse::<Move>().is_err());
    }

    #[test]
    fn sort_is_bytewise() {
        let mut list = MoveList::new();
        for t in ["i0i1", "a0a1", "b9c7", "b2b9", "a3a4"] {
            list.push(t.parse().unwrap());
        }
        list.sort_by_text();
        let texts: Vec<String> = list.iter().map(|m| m.to_string()).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
    }
}
