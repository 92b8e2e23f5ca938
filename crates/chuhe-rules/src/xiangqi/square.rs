//! Squares, sides and pieces of standard xiangqi.
//!
//! Squares are the 90 points of the 9 × 10 board, indexed `rank * 9 + file` with file `a` = 0 and
//! rank 0 = Red's back rank (`spec/xiangqi.md` §1), written in ICCS as file letter + rank digit.

use std::fmt::{self, Write as _};
use std::str::FromStr;

/// One of the 90 points, `rank * 9 + file`: `a0` = 0, `e0` = 4, `i0` = 8, `a1` = 9, `e9` = 85,
/// `i9` = 89. Always in range (the constructors check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of points on the board.
    pub const COUNT: usize = 90;

    /// The square with this index, or `None` when `index >= 90`.
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < Self::COUNT {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `file` (0 = `a` … 8 = `i`) and `rank` (0 … 9), or `None` off the board.
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
            Some(Square((rank * 9 + file) as u8))
        } else {
            None
        }
    }

    /// The square at this index, for indices known to be below 90.
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < Self::COUNT);
        Square(index as u8)
    }

    /// The index `rank * 9 + file`, 0 … 89.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0 (`a`) … 8 (`i`), from Red's left.
    pub const fn file(self) -> i32 {
        (self.0 % 9) as i32
    }

    /// Rank 0 (Red's back rank) … 9 (Black's back rank).
    pub const fn rank(self) -> i32 {
        (self.0 / 9) as i32
    }

    /// The ICCS name's two ASCII bytes: file letter and rank digit, e.g. `e0`.
    pub const fn iccs(self) -> [u8; 2] {
        // file < 9 and rank < 10.
        [b'a' + self.0 % 9, b'0' + self.0 / 9]
    }

    /// The square `df` files and `dr` ranks away, or `None` off the board.
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::from_coords(self.file() + df, self.rank() + dr)
    }

    /// Every square in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..Self::COUNT as u8).map(Square)
    }

    /// The same point seen from the other side (file and rank mirrored): `a0` ↔ `i9`.
    pub const fn rotate(self) -> Square {
        Square(89 - self.0)
    }

    /// The square mirrored left to right: `a0` ↔ `i0`.
    pub const fn mirror_file(self) -> Square {
        Square((self.0 / 9) * 9 + (8 - self.0 % 9))
    }

    /// The square mirrored top to bottom: `a0` ↔ `a9`.
    pub const fn mirror_rank(self) -> Square {
        Square((9 - self.0 / 9) * 9 + self.0 % 9)
    }

    /// Whether this point is on `color`'s side of the river (Red: ranks 0–4, Black: ranks 5–9).
    pub const fn is_on_side_of(self, color: Color) -> bool {
        match color {
            Color::Red => self.rank() <= 4,
            Color::Black => self.rank() >= 5,
        }
    }

    /// Whether this point is inside `color`'s palace (files d–f, ranks 0–2 for Red, 7–9 for Black).
    pub const fn is_in_palace_of(self, color: Color) -> bool {
        let f = self.file();
        let r = self.rank();
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }
}

impl fmt::Display for Square {
    /// ICCS: file letter and rank digit, e.g. `e0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.iccs()
            .into_iter()
            .try_for_each(|b| f.write_char(char::from(b)))
    }
}

/// The error of reading a square that is not `a0` … `i9`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a square: {:?} (expected a file a-i and a rank 0-9)",
            self.0
        )
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Reads an ICCS square, file `a`–`i` (either case) and rank `0`–`9`.
    ///
    /// # Errors
    /// [`ParseSquareError`] for anything else.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [f, r] => {
                let f = f.to_ascii_lowercase();
                if (b'a'..=b'i').contains(&f) && r.is_ascii_digit() {
                    Ok(Square((r - b'0') * 9 + (f - b'a')))
                } else {
                    Err(ParseSquareError(s.to_owned()))
                }
            }
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

/// A side: Red moves first and starts on ranks 0–4; Black starts on ranks 5–9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Red, upper-case FEN letters, `w` in FEN.
    Red = 0,
    /// Black, lower-case FEN letters, `b` in FEN.
    Black = 1,
}

impl Color {
    /// Both sides, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The other side.
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// 0 for Red, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side of an index ([`Color::index`]): 0 Red, 1 Black, `None` past 1.
    pub const fn from_index(i: usize) -> Option<Color> {
        match i {
            0 => Some(Color::Red),
            1 => Some(Color::Black),
            _ => None,
        }
    }

    /// +1 rank for Red, −1 rank for Black (`spec/xiangqi.md` §1).
    pub const fn forward(self) -> i32 {
        match self {
            Color::Red => 1,
            Color::Black => -1,
        }
    }

    /// The lower-case name, `red` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }

    /// The matching [`crate::outcome::Side`].
    pub const fn side(self) -> crate::outcome::Side {
        match self {
            Color::Red => crate::outcome::Side::Red,
            Color::Black => crate::outcome::Side::Black,
        }
    }
}

/// The seven kinds of xiangqi pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// General (帥/將), FEN `K`.
    General = 0,
    /// Advisor (仕/士), FEN `A`.
    Advisor = 1,
    /// Elephant (相/象), FEN `B` (also read: `E`).
    Elephant = 2,
    /// Horse (傌/馬), FEN `N` (also read: `H`).
    Horse = 3,
    /// Chariot (俥/車), FEN `R`.
    Chariot = 4,
    /// Cannon (炮/砲), FEN `C`.
    Cannon = 5,
    /// Soldier (兵/卒), FEN `P`.
    Soldier = 6,
}

impl Kind {
    /// All kinds, in FEN-table order.
    pub const ALL: [Kind; 7] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
    ];

    /// 0 … 6 in the order of [`Kind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many of this kind a side starts with (and may have at most, `spec/xiangqi.md` §5.4).
    pub const fn max_count(self) -> u32 {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }

    /// The upper-case FEN letter written in output (Pikafish letters): `K A B N R C P`.
    pub const fn fen_letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
        }
    }

    /// The lower-case English name, e.g. `horse`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
        }
    }

    /// The kind of a FEN letter of either case, accepting `E`/`H` as well (`spec/xiangqi.md` §5.2).
    pub const fn from_letter(c: char) -> Option<Kind> {
        match c.to_ascii_uppercase() {
            'K' => Some(Kind::General),
            'A' => Some(Kind::Advisor),
            'B' | 'E' => Some(Kind::Elephant),
            'N' | 'H' => Some(Kind::Horse),
            'R' => Some(Kind::Chariot),
            'C' => Some(Kind::Cannon),
            'P' => Some(Kind::Soldier),
            _ => None,
        }
    }
}

/// A piece: a side and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What piece.
    pub kind: Kind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// 0 … 13: `color * 7 + kind`, the index of Zobrist and piece-square tables.
    pub const fn index(self) -> usize {
        self.color.index() * 7 + self.kind.index()
    }

    /// The piece with this index (`0 … 13`), or `None`.
    pub const fn from_index(i: usize) -> Option<Piece> {
        if i >= 14 {
            return None;
        }
        let color = if i < 7 { Color::Red } else { Color::Black };
        Some(Piece {
            color,
            kind: Kind::ALL[i % 7],
        })
    }

    /// The FEN letter written in output: upper case for Red, lower case for Black.
    pub const fn fen_char(self) -> char {
        let c = self.kind.fen_letter();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// The piece of a FEN letter (`KABNRCP`, `E`, `H`; upper case Red, lower case Black).
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        match Kind::from_letter(c) {
            Some(kind) => {
                let color = if c.is_ascii_uppercase() {
                    Color::Red
                } else {
                    Color::Black
                };
                Some(Piece { color, kind })
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_indices_match_the_spec() {
        for (text, index) in [
            ("a0", 0),
            ("e0", 4),
            ("i0", 8),
            ("a1", 9),
            ("e9", 85),
            ("i9", 89),
        ] {
            let sq: Square = text.parse().unwrap();
            assert_eq!(sq.index(), index);
            assert_eq!(sq.to_string(), text);
        }
        assert_eq!(
            "j0".parse::<Square>().unwrap_err().to_string(),
            "not a square: \"j0\" (expected a file a-i and a rank 0-9)"
        );
        assert!("a10".parse::<Square>().is_err());
        assert!("".parse::<Square>().is_err());
    }

    #[test]
    fn palace_and_river() {
        let e1: Square = "e1".parse().unwrap();
        assert!(e1.is_in_palace_of(Color::Red));
        assert!(!e1.is_in_palace_of(Color::Black));
        let c4: Square = "c4".parse().unwrap();
        assert!(c4.is_on_side_of(Color::Red));
        assert!(!c4.offset(0, 1).unwrap().is_on_side_of(Color::Red));
    }

    #[test]
    fn piece_letters() {
        for i in 0..14 {
            let p = Piece::from_index(i).unwrap();
            assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
            assert_eq!(p.index(), i);
        }
        assert_eq!(
            Piece::from_fen_char('h'),
            Some(Piece::new(Color::Black, Kind::Horse))
        );
        assert_eq!(
            Piece::from_fen_char('E'),
            Some(Piece::new(Color::Red, Kind::Elephant))
        );
        assert_eq!(Piece::from_fen_char('Q'), None);
    }
}
