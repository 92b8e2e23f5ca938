//! Reading a move's text against a position (`spec/notation.md` §6): normalise, check the
//! syntax, then render every legal move in every known spelling and match, tier by tier.
//!
//! Three separate errors: the text is no move at all (`invalid`), no legal move is written that
//! way (`illegal`), several are (`ambiguous`). The reader never guesses.

use crate::describe::{describe, op_target, Op};
use crate::san::{rank_base_of, SanError, SanMove};
use crate::spell::{
    for_each_chinese, for_each_wxf, other_makes_same_move, Dialect, Spell, ORDINALS,
};
use crate::write::RankBase;
use chuhe_rules::xiangqi::{Color, IllegalReason, Move, Position, Square};
use std::fmt;

/// How to read move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct ReadOptions {
    /// Rank numbers of coordinate text; [`RankBase::One`] only when the caller knows the text uses
    /// ranks 1–10 (never detected).
    pub rank_base: RankBase,
    /// The dialect whose spellings form tier 1 (§6 step 4). `None`: WXF official, or
    /// Fairy-Stockfish when the text uses `=`.
    pub dialect: Option<Dialect>,
    /// Rank numbers of SAN text ([`crate::san`]): Fairy-Stockfish and pychess number ranks
    /// 1–10, XBoard 0–9. `None`: told by the text when it names rank `10` or `0`, else both are
    /// tried and must not name different legal moves (replaying a record decides once per
    /// record, see [`crate::replay::replay`]).
    pub san_rank_base: Option<RankBase>,
}

/// At which tier of §6 step 3 a text matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Coordinates, WXF in the hinted (or official) dialect, or Chinese as chuhe writes it.
    Standard = 1,
    /// Another dialect, `B`/`N` letters, an omitted sideways operator, or another Chinese tandem
    /// spelling.
    Dialect = 2,
    /// Lenient: piece, plain from-file, operator and target, tandem markers ignored. Import
    /// reports flag such moves "non-standard".
    NonStandard = 3,
}

/// A move read from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMove {
    /// The legal move the text names.
    pub mv: Move,
    /// The tier at which it matched.
    pub tier: Tier,
}

/// The three kinds of [`ReadError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadErrorKind {
    /// The text is not move text in any notation.
    Invalid,
    /// No legal move is written that way.
    Illegal,
    /// Several legal moves are written that way.
    Ambiguous,
}

impl ReadErrorKind {
    /// The word: `invalid`, `illegal` or `ambiguous`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReadErrorKind::Invalid => "invalid",
            ReadErrorKind::Illegal => "illegal",
            ReadErrorKind::Ambiguous => "ambiguous",
        }
    }
}

/// Why a move text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The text matches no notation's syntax.
    Invalid {
        /// The text as given.
        text: String,
    },
    /// The text is well formed but names no legal move.
    Illegal {
        /// The text as given.
        text: String,
        /// For coordinate text, why that move is not legal.
        reason: Option<IllegalReason>,
    },
    /// Several legal moves match at the first tier that matches at all.
    Ambiguous {
        /// The text as given.
        text: String,
        /// The matching moves, sorted by ICCS text.
        candidates: Vec<Move>,
    },
}

impl ReadError {
    /// Which of the three errors this is.
    pub fn kind(&self) -> ReadErrorKind {
        match self {
            ReadError::Invalid { .. } => ReadErrorKind::Invalid,
            ReadError::Illegal { .. } => ReadErrorKind::Illegal,
            ReadError::Ambiguous { .. } => ReadErrorKind::Ambiguous,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Invalid { text } => write!(f, "invalid move text {text:?}"),
            ReadError::Illegal { text, reason } => match reason {
                Some(r) => write!(f, "illegal move {text:?} ({r})"),
                None => write!(f, "illegal move {text:?} (no legal move matches)"),
            },
            ReadError::Ambiguous { text, candidates } => {
                write!(f, "ambiguous move {text:?} (")?;
                for (i, m) in candidates.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{m}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// Longest normalised text considered (longer text is invalid): `A10-A10` has seven.
const MAX_CHARS: usize = 8;

/// Normalised text (§6 step 1), whether it used `=`, and which styles its numbers used.
pub(crate) struct Normalised {
    pub(crate) text: Spell,
    pub(crate) equals: bool,
    /// A Chinese numeral stood where a number goes (after the first character).
    pub(crate) numerals: bool,
    /// A digit (ASCII or full-width) stood after the first character.
    pub(crate) digits: bool,
}

/// Maps one character to its normalised form: full-width to ASCII, upper case, traditional and
/// variant characters to the canonical ones, 上/下 to 进/退.
fn normalise_char(c: char) -> char {
    let c = match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    };
    let c = c.to_ascii_uppercase();
    match c {
        '帥' | '將' | '将' => '帅',
        '士' => '仕',
        '象' => '相',
        '傌' | '馬' | '碼' => '马',
        '俥' | '車' | '硨' => '车',
        '砲' | '包' => '炮',
        '卒' => '兵',
        '進' | '上' => '进',
        '下' => '退',
        '後' => '后',
        _ => c,
    }
}

const NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// Normalises move text (§6 step 1). `None` when it is empty or too long to be a move.
pub(crate) fn normalise(text: &str) -> Option<Normalised> {
    let mut out = Spell::new();
    let mut len = 0usize;
    let mut equals = false;
    let (mut numerals, mut digits) = (false, false);
    for c in text.chars() {
        if c.is_whitespace() {
            continue;
        }
        let mut c = normalise_char(c);
        if c == '=' {
            equals = true;
            c = '.';
        }
        // Numbers after the first character are digits, whichever numerals the text used.
        if len > 0 {
            if let Some(i) = NUMERALS.iter().position(|&n| n == c) {
                c = (b'1' + i as u8) as char;
                numerals = true;
            } else if c.is_ascii_digit() {
                digits = true;
            }
        }
        len += 1;
        if len > MAX_CHARS {
            return None;
        }
        out.push(c);
    }
    (len > 0).then_some(Normalised {
        text: out,
        equals,
        numerals,
        digits,
    })
}

/// The syntactic family of a normalised text (§6 step 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Coordinates(Move),
    Wxf,
    Chinese,
}

fn file_index(c: char) -> Option<i32> {
    ('A'..='I').contains(&c).then(|| c as i32 - 'A' as i32)
}

/// A square in coordinates at the start of `s`: its length in characters and the square.
fn coord_square(s: &[char], base: RankBase) -> Option<(usize, Square)> {
    let file = file_index(*s.first()?)?;
    let d = s.get(1)?.to_digit(10)? as i32;
    let (len, rank) = match base {
        RankBase::Zero => (2, d),
        RankBase::One => {
            if d == 1 && s.get(2) == Some(&'0') {
                (3, 9)
            } else if d == 0 {
                return None;
            } else {
                (2, d - 1)
            }
        }
    };
    Some((len, Square::from_coords(file, rank)?))
}

fn coordinates(s: &[char], base: RankBase) -> Option<Move> {
    let (a, from) = coord_square(s, base)?;
    let rest = &s[a..];
    let rest = rest.strip_prefix(&['-']).unwrap_or(rest);
    let (b, to) = coord_square(rest, base)?;
    (b == rest.len()).then_some(Move::new(from, to))
}

const WXF_LETTERS: &str = "KAEBHNRCP";
const WXF_MARKERS: &str = "+-.ABCDE";
const CHINESE_PIECES: &str = "帅仕相马车炮兵";
const CHINESE_MARKERS: &str = "前中后";

fn is_digit19(c: char) -> bool {
    ('1'..='9').contains(&c)
}

fn wxf_op(c: char) -> Option<Op> {
    match c {
        '+' => Some(Op::Forward),
        '-' => Some(Op::Backward),
        '.' => Some(Op::Sideways),
        _ => None,
    }
}

fn chinese_op(c: char) -> Option<Op> {
    match c {
        '进' => Some(Op::Forward),
        '退' => Some(Op::Backward),
        '平' => Some(Op::Sideways),
        _ => None,
    }
}

/// The family, operator and target of a normalised text, or `None` when it is invalid.
fn syntax(s: &[char], base: RankBase) -> Option<(Family, Op, u8)> {
    if let Some(m) = coordinates(s, base) {
        return Some((Family::Coordinates(m), Op::Sideways, 0));
    }
    let target = *s.last()?;
    if !is_digit19(target) {
        return None;
    }
    let target = target as u8 - b'0';
    // WXF family: prefix (2), optional operator, target.
    if s.len() == 3 || s.len() == 4 {
        let (p0, p1) = (s[0], s[1]);
        let letter = |c: char| WXF_LETTERS.contains(c);
        let marker = |c: char| WXF_MARKERS.contains(c);
        let prefix_ok = (letter(p0) && (is_digit19(p1) || marker(p1)))
            || (marker(p0) && letter(p1))
            || (is_digit19(p0) && (marker(p1) || is_digit19(p1)))
            || (p0 == '+' && p1 == '+')
            || (p0 == '-' && p1 == '-');
        let op = if s.len() == 4 {
            wxf_op(s[2])
        } else {
            Some(Op::Sideways)
        };
        if let (true, Some(op)) = (prefix_ok, op) {
            return Some((Family::Wxf, op, target));
        }
    }
    // Chinese family.
    let piece = |c: char| CHINESE_PIECES.contains(c);
    let marker = |c: char| CHINESE_MARKERS.contains(c) || ORDINALS.contains(&c);
    let op = chinese_op(*s.get(s.len().checked_sub(2)?)?)?;
    let ok = match s.len() {
        4 => {
            (piece(s[0]) && is_digit19(s[1])) || (marker(s[0]) && (piece(s[1]) || is_digit19(s[1])))
        }
        5 => marker(s[0]) && piece(s[1]) && is_digit19(s[2]),
        _ => false,
    };
    ok.then_some((Family::Chinese, op, target))
}

/// Reads one move's text in `pos` (`spec/notation.md` §6): coordinates (`h2e2`, `H2-E2`; ranks
/// 1–10 only with [`RankBase::One`]), WXF and its dialects (`C2.5`, `C2=5`, `N8+7`, `P..6`,
/// `17=6`), or Chinese (`炮二平五`, `马8进7`, `前車進一`), in any letter case, full-width or not.
///
/// ```
/// use chuhe_notation::{read_move, ReadErrorKind, ReadOptions};
/// use chuhe_rules::xiangqi::Position;
/// let pos = Position::start();
/// let opts = ReadOptions::default();
/// assert_eq!(read_move(&pos, "炮二平五", opts).unwrap().mv.to_string(), "h2e2");
/// assert_eq!(read_move(&pos, "C2=5", opts).unwrap().mv.to_string(), "h2e2");
/// assert_eq!(read_move(&pos, "C2+6", opts).unwrap_err().kind(), ReadErrorKind::Illegal);
/// ```
///
/// # Errors
/// [`ReadError::Invalid`] when the text matches no syntax, [`ReadError::Illegal`] when no legal
/// move is written so, [`ReadError::Ambiguous`] when several are at the first tier that matches.
pub fn read_move(pos: &Position, text: &str, options: ReadOptions) -> Result<ReadMove, ReadError> {
    let invalid = || ReadError::Invalid {
        text: text.to_owned(),
    };
    if let Some(san) = SanMove::parse(text) {
        return read_san(pos, text, &san, options.san_rank_base).map(|mv| ReadMove {
            mv,
            tier: Tier::Standard,
        });
    }
    let norm = normalise(text).ok_or_else(invalid)?;
    let s = norm.text.as_slice();
    let (family, op, target) = syntax(s, options.rank_base).ok_or_else(invalid)?;
    if let Family::Coordinates(m) = family {
        return match pos.illegal_reason(m) {
            None => Ok(ReadMove {
                mv: m,
                tier: Tier::Standard,
            }),
            Some(reason) => Err(ReadError::Illegal {
                text: text.to_owned(),
                reason: Some(reason),
            }),
        };
    }
    let primary = options.dialect.unwrap_or(if norm.equals {
        Dialect::FairyStockfish
    } else {
        Dialect::Official
    });
    let legal = pos.legal_moves();
    let mut best = 4u8;
    let mut found: Vec<Move> = Vec::new();
    for &m in &legal {
        let Some(piece) = pos.piece_at(m.from) else {
            continue;
        };
        if op_target(piece.color, piece.kind, m.from, m.to) != (op, target) {
            continue;
        }
        let Some(d) = describe(pos, m) else {
            continue;
        };
        let mut tier = 4u8;
        let mut check = |t: u8, spell: Spell| {
            if spell.as_slice() == s {
                tier = tier.min(t);
            }
            tier == 1
        };
        match family {
            Family::Wxf => {
                let other_same = d.k == 2 && other_makes_same_move(&legal, &d);
                for_each_wxf(&d, primary, other_same, &mut check);
            }
            _ => {
                for_each_chinese(&d, &mut check);
                // chuhe writes Red's numbers as numerals and Black's as digits; the other style
                // (or a mix) is a tier-2 spelling (§6 step 3).
                let other_style = match d.side {
                    Color::Red => norm.digits,
                    Color::Black => norm.numerals,
                };
                if other_style && tier == 1 {
                    tier = 2;
                }
            }
        }
        if tier < best {
            best = tier;
            found.clear();
        }
        if tier == best && tier < 4 {
            found.push(m);
        }
    }
    match found.len() {
        0 => Err(ReadError::Illegal {
            text: text.to_owned(),
            reason: None,
        }),
        1 => Ok(ReadMove {
            mv: found[0],
            tier: match best {
                1 => Tier::Standard,
                2 => Tier::Dialect,
                _ => Tier::NonStandard,
            },
        }),
        _ => {
            found.sort_by_key(|m| m.to_string());
            Err(ReadError::Ambiguous {
                text: text.to_owned(),
                candidates: found,
            })
        }
    }
}

/// A SAN move (`Hc7`, `Che3`, `c4`) in `pos`, its ranks numbered from `base` (see
/// [`ReadOptions::san_rank_base`]).
fn read_san(
    pos: &Position,
    text: &str,
    san: &SanMove,
    base: Option<RankBase>,
) -> Result<Move, ReadError> {
    let error = |e: SanError| match e {
        SanError::Illegal => ReadError::Illegal {
            text: text.to_owned(),
            reason: None,
        },
        SanError::Ambiguous(candidates) => ReadError::Ambiguous {
            text: text.to_owned(),
            candidates,
        },
    };
    if let Some(base) = base.or_else(|| rank_base_of(text)) {
        return san.resolve(pos, base).map_err(error);
    }
    match (
        san.resolve(pos, RankBase::One),
        san.resolve(pos, RankBase::Zero),
    ) {
        (Ok(a), Ok(b)) if a != b => {
            let mut candidates = vec![a, b];
            candidates.sort_by_key(|m| m.to_string());
            Err(error(SanError::Ambiguous(candidates)))
        }
        (Ok(m), _) | (_, Ok(m)) => Ok(m),
        // Several moves in one numbering and none in the other: ambiguous, not illegal.
        (Err(SanError::Illegal), Err(e)) | (Err(e), _) => Err(error(e)),
    }
}
