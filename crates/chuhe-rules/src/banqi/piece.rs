//! Squares, pieces, the capture matrix and the pool of unrevealed pieces (`spec/banqi.md` §1, §2.2).

use crate::xiangqi::{Color, Kind};
use rand::{CryptoRng, Rng, RngExt};
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// Files on the banqi board (`a` … `h`).
pub const FILES: u8 = 8;
/// Ranks on the banqi board (`1` … `4`).
pub const RANKS: u8 = 4;
/// Squares on the banqi board: 4 ranks × 8 files.
pub const SQUARES: usize = 32;

/// A square of the 4 × 8 board, `a1` … `h4` (`spec/banqi.md` §1).
///
/// Index = `(rank − 1) * 8 + file`, with file `a` = 0 and rank `1` at the bottom: `a1` = 0,
/// `h1` = 7, `a2` = 8, `h4` = 31. Names are absolute: both seats use the same ones.
///
/// ```
/// use chuhe_rules::banqi::Square;
/// let sq: Square = "c2".parse().unwrap();
/// assert_eq!((sq.file(), sq.rank(), sq.index()), (2, 1, 10));
/// assert_eq!(sq.to_string(), "c2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index (0 … 31), or `None`.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square at `file` (0 = `a` … 7 = `h`) and `rank` (0 = rank `1` … 3 = rank `4`), or `None`.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < FILES && rank < RANKS {
            Some(Square(rank * FILES + file))
        } else {
            None
        }
    }

    /// 0 … 31, see the type's documentation.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 (`a`) … 7 (`h`).
    pub const fn file(self) -> u8 {
        self.0 % FILES
    }

    /// 0 (rank `1`) … 3 (rank `4`).
    pub const fn rank(self) -> u8 {
        self.0 / FILES
    }

    /// The name's two bytes (file letter, rank digit, e.g. `c2`), as `Display` writes them.
    pub const fn name(self) -> [u8; 2] {
        [b'a' + self.file(), b'1' + self.rank()]
    }

    /// The neighbour one square away in `dir`, or `None` off the board.
    pub const fn step(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.delta();
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || r < 0 {
            None
        } else {
            Square::new(f as u8, r as u8)
        }
    }

    /// Every square, in index order (`a1`, `b1`, … `h4`).
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.name()
            .into_iter()
            .try_for_each(|b| f.write_char(char::from(b)))
    }
}

/// The error of reading a square name that is not `[a-h][1-4]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad square {:?}: expected a1 … h4", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Reads `[a-h][1-4]`, lower case only.
    ///
    /// # Errors
    /// [`ParseSquareError`] for anything else.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'4'] => Ok(Square((r - b'1') * FILES + (f - b'a'))),
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

/// The four orthogonal directions a banqi piece steps in and a cannon scans in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards rank 4.
    Up,
    /// Towards rank 1.
    Down,
    /// Towards file `a`.
    Left,
    /// Towards file `h`.
    Right,
}

impl Direction {
    /// The four directions.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// `(files, ranks)` moved by one step.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::Up => (0, 1),
            Direction::Down => (0, -1),
            Direction::Left => (-1, 0),
            Direction::Right => (1, 0),
        }
    }
}

/// The seven piece types in the canonical order of `spec/banqi.md` §3.1: general, advisor,
/// elephant, chariot, horse, cannon, soldier (a [`Piece`]'s index modulo 7 is its place here).
pub const CANONICAL_KINDS: [Kind; 7] = [
    Kind::General,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Chariot,
    Kind::Horse,
    Kind::Cannon,
    Kind::Soldier,
];

/// The 14 letters in canonical order: `K A E R H C P k a e r h c p`.
const LETTERS: [u8; 14] = *b"KAERHCPkaerhcp";

/// A banqi piece, the spec's *kind*: a colour and a type, written as one letter (upper case red,
/// lower case black: `K A E R H C P` = general, advisor, elephant, chariot, horse, cannon,
/// soldier).
///
/// Index 0 … 13 in the canonical order `K A E R H C P k a e r h c p` (`spec/banqi.md` §3.1).
///
/// ```
/// use chuhe_rules::banqi::Piece;
/// use chuhe_rules::xiangqi::{Color, Kind};
/// let p = Piece::from_letter('h').unwrap();
/// assert_eq!((p.color(), p.kind(), p.index()), (Color::Black, Kind::Horse, 11));
/// assert_eq!(p.name(), "black horse");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Piece({})", self.letter())
    }
}

impl Piece {
    /// The 14 pieces in canonical order.
    pub const ALL: [Piece; 14] = {
        let mut all = [Piece(0); 14];
        let mut i = 0;
        while i < 14 {
            all[i] = Piece(i as u8);
            i += 1;
        }
        all
    };

    /// The piece of `color` and `kind`.
    pub const fn new(color: Color, kind: Kind) -> Piece {
        let t = match kind {
            Kind::General => 0,
            Kind::Advisor => 1,
            Kind::Elephant => 2,
            Kind::Chariot => 3,
            Kind::Horse => 4,
            Kind::Cannon => 5,
            Kind::Soldier => 6,
        };
        Piece(color.index() as u8 * 7 + t)
    }

    /// The piece with canonical index `index` (0 … 13), or `None`.
    pub const fn from_index(index: usize) -> Option<Piece> {
        if index < 14 {
            Some(Piece(index as u8))
        } else {
            None
        }
    }

    /// 0 … 13 in canonical order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Red for indices 0 … 6, Black for 7 … 13.
    pub const fn color(self) -> Color {
        if self.0 < 7 {
            Color::Red
        } else {
            Color::Black
        }
    }

    /// The piece type.
    pub const fn kind(self) -> Kind {
        CANONICAL_KINDS[(self.0 % 7) as usize]
    }

    /// The letter: `K A E R H C P` for red, `k a e r h c p` for black.
    pub const fn letter(self) -> char {
        LETTERS[self.0 as usize] as char
    }

    /// The piece of a letter, or `None` for any other character (banqi has no `B`/`N` spellings).
    pub fn from_letter(c: char) -> Option<Piece> {
        LETTERS
            .iter()
            .position(|&l| l as char == c)
            .map(|i| Piece(i as u8))
    }

    /// How many of this piece the full set holds: general 1, soldier 5, the others 2.
    pub const fn full_count(self) -> u8 {
        match self.kind() {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }

    /// Colour and type in words, e.g. `red chariot`.
    pub fn name(self) -> String {
        format!("{} {}", self.color().name(), self.kind().name())
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Whether a piece of type `attacker` may capture an enemy piece of type `target` by stepping onto
/// it (`spec/banqi.md` §2.2, Taiwan rules).
///
/// Rank order general > advisor > elephant > chariot > horse > soldier; a piece takes equal or
/// lower rank, except: the general cannot take a soldier, the soldier takes the general, the
/// soldier cannot take a cannon, and every stepping piece but the soldier takes a cannon. The
/// cannon never captures by stepping (it jumps, see [`super::View::legal_actions`]), so
/// `attacker == Cannon` gives `false`.
///
/// ```
/// use chuhe_rules::banqi::can_step_capture;
/// use chuhe_rules::xiangqi::Kind;
/// assert!(can_step_capture(Kind::Soldier, Kind::General));
/// assert!(!can_step_capture(Kind::General, Kind::Soldier));
/// assert!(!can_step_capture(Kind::Soldier, Kind::Cannon));
/// assert!(can_step_capture(Kind::Horse, Kind::Cannon));
/// ```
pub const fn can_step_capture(attacker: Kind, target: Kind) -> bool {
    const fn rank(k: Kind) -> u8 {
        match k {
            Kind::General => 5,
            Kind::Advisor => 4,
            Kind::Elephant => 3,
            Kind::Chariot => 2,
            Kind::Horse => 1,
            Kind::Cannon | Kind::Soldier => 0,
        }
    }
    match (attacker, target) {
        (Kind::Cannon, _) => false,
        (Kind::Soldier, Kind::General | Kind::Soldier) => true,
        (Kind::Soldier, _) => false,
        (Kind::General, Kind::Soldier) => false,
        (_, Kind::Cannon | Kind::Soldier) => true,
        (a, t) => rank(t) <= rank(a),
    }
}

/// A multiset of pieces: counts per piece, in canonical order. Used for the pool (the pieces
/// still face down, whose squares are unknown) and for captured pieces.
///
/// Written as its letters repeated by multiplicity in canonical order, or `-` when empty
/// (`spec/banqi.md` §3.1). It is public bookkeeping: every seat may know it.
///
/// ```
/// use chuhe_rules::banqi::Pool;
/// let pool = Pool::full();
/// assert_eq!(pool.len(), 32);
/// assert_eq!(pool.to_string(), "KAAEERRHHCCPPPPPkaaeerrhhccppppp");
/// assert_eq!(Pool::EMPTY.to_string(), "-");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pool {
    counts: [u8; 14],
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pool({self})")
    }
}

impl Pool {
    /// The empty multiset.
    pub const EMPTY: Pool = Pool { counts: [0; 14] };

    /// The full set of 32 pieces.
    pub fn full() -> Pool {
        let mut pool = Pool::EMPTY;
        for p in Piece::ALL {
            pool.counts[p.index()] = p.full_count();
        }
        pool
    }

    /// How many of `piece` it holds.
    pub const fn count(&self, piece: Piece) -> u8 {
        self.counts[piece.index()]
    }

    /// How many pieces it holds in all.
    pub fn len(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    /// Whether it holds no piece.
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// How many pieces of `color` it holds.
    pub fn count_color(&self, color: Color) -> usize {
        Piece::ALL
            .iter()
            .filter(|p| p.color() == color)
            .map(|&p| self.count(p) as usize)
            .sum()
    }

    /// Adds one `piece` (saturating at 255).
    pub fn add(&mut self, piece: Piece) {
        let c = &mut self.counts[piece.index()];
        *c = c.saturating_add(1);
    }

    /// Removes one `piece`; `false` (and no change) when it holds none.
    pub fn remove(&mut self, piece: Piece) -> bool {
        let c = &mut self.counts[piece.index()];
        if *c == 0 {
            false
        } else {
            *c -= 1;
            true
        }
    }

    /// The multiset difference `self − other`, or `None` when `other` holds a piece more often
    /// than `self`.
    pub fn checked_sub(&self, other: &Pool) -> Option<Pool> {
        let mut out = Pool::EMPTY;
        for i in 0..14 {
            out.counts[i] = self.counts[i].checked_sub(other.counts[i])?;
        }
        Some(out)
    }

    /// The piece at position `i` (0-based) when the pool is walked in canonical order with each
    /// piece repeated by its count, or `None` when `i ≥ len()`. This is the walk of
    /// `spec/banqi.md` §4.1 that turns a uniform index into a revealed piece.
    pub fn nth(&self, i: usize) -> Option<Piece> {
        let mut left = i;
        for p in Piece::ALL {
            let c = self.count(p) as usize;
            if left < c {
                return Some(p);
            }
            left -= c;
        }
        None
    }

    /// Draws one piece uniformly from the multiset and removes it (`spec/banqi.md` §4.1): `i` is a
    /// uniform integer in `[0, len)` from the unbiased range sampler of `rand`, and the piece is
    /// [`Pool::nth`]`(i)`. `None` (and no change) when the pool is empty.
    ///
    /// The generator must be cryptographically secure ([`CryptoRng`]); live games use one seeded
    /// by the operating system (see [`super::Game::new`]).
    pub fn draw<R: Rng + CryptoRng>(&mut self, rng: &mut R) -> Option<Piece> {
        let n = self.len();
        if n == 0 {
            return None;
        }
        let piece = self.nth(rng.random_range(0..n))?;
        self.remove(piece);
        Some(piece)
    }

    /// The pieces with their counts, in canonical order, skipping absent ones.
    pub fn iter(&self) -> impl Iterator<Item = (Piece, u8)> + '_ {
        Piece::ALL
            .into_iter()
            .map(|p| (p, self.count(p)))
            .filter(|&(_, c)| c > 0)
    }
}

impl fmt::Display for Pool {
    /// The letters in canonical order, each repeated by its count; `-` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for (p, c) in self.iter() {
            for _ in 0..c {
                write!(f, "{}", p.letter())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(Square::new(sq.file(), sq.rank()), Some(sq));
        }
        assert_eq!(Square::all().count(), 32);
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h4".parse::<Square>().unwrap().index(), 31);
        for bad in ["", "a0", "a5", "i1", "A1", "a10", "a"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
        let c2: Square = "c2".parse().unwrap();
        let around: Vec<String> = Direction::ALL
            .iter()
            .map(|&d| c2.step(d).map(|s| s.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(around, ["c3", "c1", "b2", "d2"]);
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(a1.step(Direction::Down), None);
        assert_eq!(a1.step(Direction::Left), None);
    }

    #[test]
    fn pieces_letters_and_order() {
        let letters: String = Piece::ALL.iter().map(|p| p.letter()).collect();
        assert_eq!(letters, "KAERHCPkaerhcp");
        for p in Piece::ALL {
            assert_eq!(Piece::from_letter(p.letter()), Some(p));
            assert_eq!(Piece::new(p.color(), p.kind()), p);
        }
        assert_eq!(Piece::from_letter('B'), None);
        assert_eq!(Piece::from_letter('N'), None);
        assert_eq!(Pool::full().count_color(Color::Red), 16);
    }

    /// The capture matrix of `spec/banqi.md` §2.2, row by row (attacker), columns K A E R H C P.
    #[test]
    fn capture_matrix_matches_the_spec_table() {
        let table = [
            (Kind::General, "✓✓✓✓✓✓–"),
            (Kind::Advisor, "–✓✓✓✓✓✓"),
            (Kind::Elephant, "––✓✓✓✓✓"),
            (Kind::Chariot, "–––✓✓✓✓"),
            (Kind::Horse, "––––✓✓✓"),
            (Kind::Soldier, "✓–––––✓"),
        ];
        for (attacker, row) in table {
            for (t, mark) in CANONICAL_KINDS.iter().zip(row.chars()) {
                assert_eq!(
                    can_step_capture(attacker, *t),
                    mark == '✓',
                    "{attacker:?} x {t:?}"
                );
            }
        }
        for t in CANONICAL_KINDS {
            assert!(!can_step_capture(Kind::Cannon, t));
        }
    }

    #[test]
    fn pool_walk_and_difference() {
        let pool = Pool::full();
        let walked: String = (0..32).map(|i| pool.nth(i).unwrap().letter()).collect();
        assert_eq!(walked, pool.to_string());
        assert_eq!(pool.nth(32), None);
        let mut one = Pool::EMPTY;
        one.add(Piece::from_letter('p').unwrap());
        assert_eq!(pool.checked_sub(&one).unwrap().len(), 31);
        assert_eq!(one.checked_sub(&pool), None);
        assert!(!Pool::EMPTY.clone().remove(Piece::ALL[0]));
    }
}
