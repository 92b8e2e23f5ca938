//! Writing a move: ICCS (ranks 0–9, or 1–10 on request), WXF official and Chinese
//! (`spec/notation.md` §1, §3.2, §4, §5).

use crate::describe::{describe, Desc, Op};
use crate::spell::{chinese_marker, official};
use chuhe_rules::xiangqi::{Color, IllegalReason, Kind, Move, Position};
use std::fmt;

/// Which rank numbers coordinate text uses (`spec/notation.md` §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum RankBase {
    /// Ranks 0–9 (ICCS, UCCI, Pikafish): `h2e2`. The default.
    #[default]
    Zero,
    /// Ranks 1–10 (Fairy-Stockfish UCI): `h3e3`, `a10a9`. Only ever used when asked for.
    One,
}

/// The notations chuhe writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// ICCS coordinates, `h2e2` (in PGN the hyphen form `H2-E2`).
    Iccs,
    /// WXF official, `C2.5`.
    Wxf,
    /// Chinese, `炮二平五`.
    Chinese,
    /// Lower-case ICCS `h2e2` (ranks 0–9), the moves XBoard reads and writes; in PGN with a
    /// `[Variant "xiangqi"]` tag and no `Format` tag, the form XBoard 4.9 loads.
    Xboard,
}

/// How Chinese text is written (`spec/notation.md` §4.1–§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct ChineseStyle {
    /// Traditional characters (帥 傌 俥 進 後 …) instead of simplified ones.
    pub traditional: bool,
    /// Full-width digits for Black (`马８进７`) instead of ASCII ones.
    pub full_width_digits: bool,
}

/// The error of writing a move that is not legal in the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteError {
    /// The move.
    pub mv: Move,
    /// Why it is not legal.
    pub reason: IllegalReason,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write illegal move {} ({})", self.mv, self.reason)
    }
}

impl std::error::Error for WriteError {}

/// ICCS text of a move: `h2e2` with [`RankBase::Zero`], `h3e3` with [`RankBase::One`].
///
/// ```
/// use chuhe_notation::{write_iccs, RankBase};
/// let m = "b2b9".parse().unwrap();
/// assert_eq!(write_iccs(m, RankBase::Zero), "b2b9");
/// assert_eq!(write_iccs(m, RankBase::One), "b3b10");
/// ```
pub fn write_iccs(m: Move, base: RankBase) -> String {
    match base {
        RankBase::Zero => m.to_string(),
        RankBase::One => {
            let sq = |s: chuhe_rules::xiangqi::Square| {
                format!("{}{}", (b'a' + s.file() as u8) as char, s.rank() + 1)
            };
            format!("{}{}", sq(m.from), sq(m.to))
        }
    }
}

/// ICCS with a hyphen and upper-case files, as PGN with `[Format "ICCS"]` writes it: `H2-E2`.
pub fn write_iccs_hyphen(m: Move) -> String {
    let t = m.to_string().to_ascii_uppercase();
    format!("{}-{}", &t[..2], &t[2..])
}

fn checked(pos: &Position, m: Move) -> Result<Desc, WriteError> {
    if let Some(reason) = pos.illegal_reason(m) {
        return Err(WriteError { mv: m, reason });
    }
    describe(pos, m).ok_or(WriteError {
        mv: m,
        reason: IllegalReason::NoPiece,
    })
}

/// WXF official text of a legal move (`spec/notation.md` §3.2): `C2.5`, `R+.3`, `77.6`.
///
/// ```
/// use chuhe_notation::write_wxf;
/// use chuhe_rules::xiangqi::Position;
/// assert_eq!(write_wxf(&Position::start(), "h2e2".parse().unwrap()).unwrap(), "C2.5");
/// ```
///
/// # Errors
/// [`WriteError`] when the move is not legal in `pos`.
pub fn write_wxf(pos: &Position, m: Move) -> Result<String, WriteError> {
    let d = checked(pos, m)?;
    Ok(official(&d).as_slice().iter().collect())
}

fn piece_name(kind: Kind, side: Color, traditional: bool) -> char {
    match (kind, side, traditional) {
        (Kind::General, Color::Red, false) => '帅',
        (Kind::General, Color::Red, true) => '帥',
        (Kind::General, Color::Black, false) => '将',
        (Kind::General, Color::Black, true) => '將',
        (Kind::Advisor, Color::Red, _) => '仕',
        (Kind::Advisor, Color::Black, _) => '士',
        (Kind::Elephant, Color::Red, _) => '相',
        (Kind::Elephant, Color::Black, _) => '象',
        (Kind::Horse, _, false) => '马',
        (Kind::Horse, Color::Red, true) => '傌',
        (Kind::Horse, Color::Black, true) => '馬',
        (Kind::Chariot, _, false) => '车',
        (Kind::Chariot, Color::Red, true) => '俥',
        (Kind::Chariot, Color::Black, true) => '車',
        (Kind::Cannon, Color::Black, true) => '砲',
        (Kind::Cannon, _, _) => '炮',
        (Kind::Soldier, Color::Red, _) => '兵',
        (Kind::Soldier, Color::Black, _) => '卒',
    }
}

const RED_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

fn number(n: u8, side: Color, style: ChineseStyle) -> char {
    let n = n.clamp(1, 9);
    match side {
        Color::Red => RED_NUMERALS[n as usize - 1],
        Color::Black if style.full_width_digits => {
            char::from_u32('０' as u32 + n as u32).unwrap_or('?')
        }
        Color::Black => (b'0' + n) as char,
    }
}

/// Chinese text of a legal move (`spec/notation.md` §4): `炮二平五`, `马8进7`, `前车进一`.
///
/// ```
/// use chuhe_notation::{write_chinese, ChineseStyle};
/// use chuhe_rules::xiangqi::Position;
/// let pos = Position::start();
/// let m = "b0c2".parse().unwrap();
/// assert_eq!(write_chinese(&pos, m, ChineseStyle::default()).unwrap(), "马八进七");
/// let traditional = ChineseStyle { traditional: true, ..ChineseStyle::default() };
/// assert_eq!(write_chinese(&pos, m, traditional).unwrap(), "傌八進七");
/// ```
///
/// # Errors
/// [`WriteError`] when the move is not legal in `pos`.
pub fn write_chinese(pos: &Position, m: Move, style: ChineseStyle) -> Result<String, WriteError> {
    let d = checked(pos, m)?;
    let mut out = String::with_capacity(16);
    let piece = piece_name(d.kind, d.side, style.traditional);
    if d.is_tandem() {
        let marker = match chinese_marker(d.n, d.j) {
            '后' if style.traditional => '後',
            c => c,
        };
        out.push(marker);
        out.push(piece);
    } else {
        out.push(piece);
        out.push(number(d.file, d.side, style));
    }
    out.push(match (d.op, style.traditional) {
        (Op::Forward, true) => '進',
        (op, _) => op.chinese(),
    });
    out.push(number(d.target, d.side, style));
    Ok(out)
}

/// A legal move in one of the [`Notation`]s (ICCS as `h2e2`).
///
/// # Errors
/// [`WriteError`] when the move is not legal in `pos`.
pub fn write_move(
    pos: &Position,
    m: Move,
    notation: Notation,
    style: ChineseStyle,
) -> Result<String, WriteError> {
    match notation {
        Notation::Iccs | Notation::Xboard => match pos.illegal_reason(m) {
            Some(reason) => Err(WriteError { mv: m, reason }),
            None => Ok(m.to_string()),
        },
        Notation::Wxf => write_wxf(pos, m),
        Notation::Chinese => write_chinese(pos, m, style),
    }
}
