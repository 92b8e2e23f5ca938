//! The position text of `spec/banqi.md` §3.1, read into an unvalidated [`Setup`].
//!
//! ```text
//! <board> <turn> <pool> <quiet>
//! ```
//!
//! Only the exact grammar of the spec is accepted; every other spelling is a [`SyntaxError`].

use super::piece::{Piece, Pool, Square, FILES, RANKS, SQUARES};
use crate::xiangqi::Color;
use std::fmt;
use std::str::FromStr;

/// The largest value of the `quiet` counter a text may carry (`spec/banqi.md` §2.3): at 180 the
/// game is drawn.
pub const QUIET_LIMIT: u8 = 180;

/// One square of a parsed text. Its `Debug` output hides a pinned identity.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SetupSquare {
    /// A digit's worth of empty squares.
    Empty,
    /// A face-up piece (a letter).
    FaceUp(Piece),
    /// A face-down piece whose identity the text does not give (`?`): one of the pool.
    Unknown,
    /// A face-down piece with its identity (`(x)`): truth texts only.
    Pinned(Piece),
}

/// A parsed position text, not yet checked against the rules of `spec/banqi.md` §3.1 (piece
/// counts, pool size, turn). Validate it with [`super::Truth::from_setup`].
///
/// It may hold face-down identities, so its `Debug` output hides them.
#[derive(Clone, PartialEq, Eq)]
pub struct Setup {
    /// The 32 squares by [`Square::index`] (`a1` = 0 … `h4` = 31).
    pub squares: [SetupSquare; SQUARES],
    /// The colour to move, or `None` for `-` (no flip yet: seat 1 to move).
    pub turn: Option<Color>,
    /// The pieces under the `?` squares.
    pub pool: Pool,
    /// Turns since the last flip or capture (0 … 180).
    pub quiet: u8,
}

impl fmt::Debug for SetupSquare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupSquare::Empty => f.write_str("Empty"),
            SetupSquare::FaceUp(p) => write!(f, "FaceUp({p})"),
            SetupSquare::Unknown => f.write_str("Unknown"),
            SetupSquare::Pinned(_) => f.write_str("Pinned(hidden)"),
        }
    }
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pins = self
            .squares
            .iter()
            .filter(|s| matches!(s, SetupSquare::Pinned(_)))
            .count();
        f.debug_struct("Setup")
            .field("turn", &self.turn)
            .field("pool", &self.pool)
            .field("quiet", &self.quiet)
            .field("pinned_squares_hidden", &pins)
            .finish_non_exhaustive()
    }
}

/// A text that is not a banqi position text (kind `syntax` of `spec/banqi.md` §3.1): what was
/// wrong, in words, e.g. `rank 4 covers 9 squares`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where and what, in words.
    pub detail: String,
}

impl fmt::Display for SyntaxError {
    /// `syntax: <detail>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "syntax: {}", self.detail)
    }
}

impl std::error::Error for SyntaxError {}

fn err(detail: impl Into<String>) -> SyntaxError {
    SyntaxError {
        detail: detail.into(),
    }
}

/// Reads one rank (files `a` → `h`) into `out`.
fn parse_rank(text: &str, rank_name: u8, out: &mut [SetupSquare]) -> Result<(), SyntaxError> {
    let mut file = 0usize;
    let mut chars = text.chars();
    let mut previous_digit = false;
    let mut put = |file: &mut usize, sq: SetupSquare| -> Result<(), SyntaxError> {
        if *file >= FILES as usize {
            return Err(err(format!("rank {rank_name} covers more than 8 squares")));
        }
        out[*file] = sq;
        *file += 1;
        Ok(())
    };
    while let Some(c) = chars.next() {
        let digit = matches!(c, '1'..='8');
        match c {
            '1'..='8' => {
                if previous_digit {
                    return Err(err(format!("rank {rank_name} has two adjacent digits")));
                }
                for _ in 0..(c as u8 - b'0') {
                    put(&mut file, SetupSquare::Empty)?;
                }
            }
            '?' => put(&mut file, SetupSquare::Unknown)?,
            '(' => {
                let piece = chars.next().and_then(Piece::from_letter).ok_or_else(|| {
                    err(format!(
                        "rank {rank_name}: '(' must be followed by a piece letter"
                    ))
                })?;
                if chars.next() != Some(')') {
                    return Err(err(format!("rank {rank_name}: '({piece}' is not closed")));
                }
                put(&mut file, SetupSquare::Pinned(piece))?;
            }
            _ => match Piece::from_letter(c) {
                Some(p) => put(&mut file, SetupSquare::FaceUp(p))?,
                None => return Err(err(format!("bad character {c:?} in rank {rank_name}"))),
            },
        }
        previous_digit = digit;
    }
    if file != FILES as usize {
        return Err(err(format!(
            "rank {rank_name} covers {file} squares, not 8"
        )));
    }
    Ok(())
}

fn parse_turn(text: &str) -> Result<Option<Color>, SyntaxError> {
    match text {
        "r" => Ok(Some(Color::Red)),
        "b" => Ok(Some(Color::Black)),
        "-" => Ok(None),
        _ => Err(err(format!("bad turn {text:?}: expected r, b or -"))),
    }
}

fn parse_pool(text: &str) -> Result<Pool, SyntaxError> {
    let mut pool = Pool::EMPTY;
    if text == "-" {
        return Ok(pool);
    }
    if text.chars().count() > SQUARES {
        return Err(err("the pool lists more than 32 pieces"));
    }
    let mut last = 0usize;
    for c in text.chars() {
        let p =
            Piece::from_letter(c).ok_or_else(|| err(format!("bad character {c:?} in the pool")))?;
        if p.index() < last {
            return Err(err(format!(
                "the pool is not in canonical order (KAERHCPkaerhcp) at {c:?}"
            )));
        }
        last = p.index();
        pool.add(p);
    }
    if pool.is_empty() {
        return Err(err("empty pool: write - for none"));
    }
    Ok(pool)
}

fn parse_quiet(text: &str) -> Result<u8, SyntaxError> {
    let bytes = text.as_bytes();
    let shape_ok = text == "0"
        || (matches!(bytes.len(), 1..=3)
            && matches!(bytes[0], b'1'..=b'9')
            && bytes.iter().all(u8::is_ascii_digit));
    let bad = || {
        err(format!(
            "bad quiet counter {text:?}: expected 0 … 180 without leading zeros"
        ))
    };
    if !shape_ok {
        return Err(bad());
    }
    let value: u16 = text.parse().map_err(|_| bad())?;
    if value > QUIET_LIMIT as u16 {
        return Err(bad());
    }
    Ok(value as u8)
}

impl FromStr for Setup {
    type Err = SyntaxError;

    /// Reads a position text exactly as `spec/banqi.md` §3.1 writes it: four fields separated by
    /// single spaces, nothing before or after.
    ///
    /// # Errors
    /// [`SyntaxError`] naming the first thing that breaks the grammar.
    fn from_str(s: &str) -> Result<Setup, SyntaxError> {
        let fields: Vec<&str> = s.split(' ').collect();
        if fields.len() != 4 || fields.iter().any(|f| f.is_empty()) {
            return Err(err(
                "expected 4 fields separated by single spaces: board turn pool quiet",
            ));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != RANKS as usize {
            return Err(err(format!(
                "the board has {} ranks, not 4 (separated by /)",
                ranks.len()
            )));
        }
        let mut squares = [SetupSquare::Empty; SQUARES];
        for (i, text) in ranks.iter().enumerate() {
            // The text lists rank 4 first.
            let rank = RANKS as usize - 1 - i;
            let start = rank * FILES as usize;
            parse_rank(
                text,
                rank as u8 + 1,
                &mut squares[start..start + FILES as usize],
            )?;
        }
        Ok(Setup {
            squares,
            turn: parse_turn(fields[1])?,
            pool: parse_pool(fields[2])?,
            quiet: parse_quiet(fields[3])?,
        })
    }
}

/// Writes a board in text form; `unknown` decides how a face-down square is written.
pub(crate) fn write_board(
    f: &mut impl fmt::Write,
    square: impl Fn(Square) -> SetupSquare,
) -> fmt::Result {
    for rank in (0..RANKS).rev() {
        let mut empty = 0;
        for file in 0..FILES {
            let Some(sq) = Square::new(file, rank) else {
                continue;
            };
            let s = square(sq);
            if s == SetupSquare::Empty {
                empty += 1;
                continue;
            }
            if empty > 0 {
                write!(f, "{empty}")?;
                empty = 0;
            }
            match s {
                SetupSquare::Empty => {}
                SetupSquare::FaceUp(p) => write!(f, "{}", p.letter())?,
                SetupSquare::Unknown => f.write_char('?')?,
                SetupSquare::Pinned(p) => write!(f, "({})", p.letter())?,
            }
        }
        if empty > 0 {
            write!(f, "{empty}")?;
        }
        if rank > 0 {
            f.write_char('/')?;
        }
    }
    Ok(())
}

/// The turn field: `r`, `b` or `-`.
pub(crate) fn turn_text(turn: Option<Color>) -> &'static str {
    match turn {
        Some(Color::Red) => "r",
        Some(Color::Black) => "b",
        None => "-",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syntax(text: &str) -> String {
        text.parse::<Setup>().unwrap_err().to_string()
    }

    #[test]
    fn rejects_other_spellings() {
        let cases = [
            (
                "8/8/8/8 r - 0 ",
                "syntax: expected 4 fields separated by single spaces: board turn pool quiet",
            ),
            (
                "8/8/8/8  r - 0",
                "syntax: expected 4 fields separated by single spaces: board turn pool quiet",
            ),
            (
                "8/8/8 r - 0",
                "syntax: the board has 3 ranks, not 4 (separated by /)",
            ),
            ("8/8/8/44 r - 0", "syntax: rank 1 has two adjacent digits"),
            ("9/8/8/8 r - 0", "syntax: bad character '9' in rank 4"),
            ("8/8/7/8 r - 0", "syntax: rank 2 covers 7 squares, not 8"),
            (
                "8/8/8/8K r - 0",
                "syntax: rank 1 covers more than 8 squares",
            ),
            ("8/8/8/7B r - 0", "syntax: bad character 'B' in rank 1"),
            ("8/8/8/7(K r - 0", "syntax: rank 1: '(K' is not closed"),
            (
                "8/8/8/7() r - 0",
                "syntax: rank 1: '(' must be followed by a piece letter",
            ),
            (
                "8/8/8/8 w - 0",
                "syntax: bad turn \"w\": expected r, b or -",
            ),
            (
                "8/8/8/7? r pK 0",
                "syntax: the pool is not in canonical order (KAERHCPkaerhcp) at 'K'",
            ),
            ("8/8/8/7? r X 0", "syntax: bad character 'X' in the pool"),
            (
                "8/8/8/8 r - 181",
                "syntax: bad quiet counter \"181\": expected 0 … 180 without leading zeros",
            ),
            (
                "8/8/8/8 r - 07",
                "syntax: bad quiet counter \"07\": expected 0 … 180 without leading zeros",
            ),
            (
                "8/8/8/8 r - -1",
                "syntax: bad quiet counter \"-1\": expected 0 … 180 without leading zeros",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(syntax(text), message, "{text}");
        }
        let too_long = format!("8/8/8/7? r {} 0", "p".repeat(33));
        assert_eq!(
            syntax(&too_long),
            "syntax: the pool lists more than 32 pieces"
        );
    }

    #[test]
    fn reads_all_square_forms() {
        let s: Setup = "(K)?2a3/8/8/8 r p 180".parse().unwrap();
        let k = Piece::from_letter('K').unwrap();
        let a = Piece::from_letter('a').unwrap();
        assert_eq!(s.squares[24], SetupSquare::Pinned(k));
        assert_eq!(s.squares[25], SetupSquare::Unknown);
        assert_eq!(s.squares[26], SetupSquare::Empty);
        assert_eq!(s.squares[28], SetupSquare::FaceUp(a));
        assert_eq!(s.quiet, 180);
        assert_eq!(s.pool.to_string(), "p");
        // Debug never shows the pinned identity.
        assert!(!format!("{s:?}").contains('K'));
    }
}
