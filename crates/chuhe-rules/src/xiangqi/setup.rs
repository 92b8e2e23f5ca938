//! The parsed, unvalidated position ([`Setup`]) and FEN text in and out (`spec/xiangqi.md` §5).
//!
//! Input is lenient (§5.2): `r` for Red, `E`/`H` letters, adjacent digits added, missing counters.
//! Output is always the Pikafish form `<board> <w|b> - - <halfmove> <fullmove>` (§5.1). Syntax
//! errors stop at the first one, in the order of §5.3.

use super::square::{Color, Piece, Square};
use std::fmt;
use std::str::FromStr;

/// A board with side to move and counters, as read from text; not yet checked against the rules
/// of `spec/xiangqi.md` §5.4 (see [`super::Position::from_setup`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The piece on each point, indexed by [`Square::index`].
    pub board: [Option<Piece>; 90],
    /// The side to move.
    pub side: Color,
    /// Plies since the last capture (every other move adds one, soldier moves too).
    pub halfmove: u16,
    /// Move number, starting at 1 and increased after each Black move.
    pub fullmove: u16,
}

/// The FEN of the start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

impl Setup {
    /// An empty board, Red to move, counters 0 and 1.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 90],
            side: Color::Red,
            halfmove: 0,
            fullmove: 1,
        }
    }

    /// The start position of `spec/xiangqi.md` §2.
    pub fn start() -> Setup {
        START_FEN.parse().expect("the start FEN is valid")
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The board field of the FEN (ranks 9 down to 0, Pikafish letters).
    pub fn board_fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.board[rank * 9 + file] {
                    Some(p) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }
}

impl fmt::Display for Setup {
    /// The output FEN form of `spec/xiangqi.md` §5.1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Color::Red => 'w',
            Color::Black => 'b',
        };
        write!(
            f,
            "{} {} - - {} {}",
            self.board_fen(),
            side,
            self.halfmove,
            self.fullmove
        )
    }
}

/// The kinds of FEN syntax error (`spec/xiangqi.md` §5.3), one per reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenErrorKind {
    /// The board does not have exactly 10 ranks.
    BadRankCount,
    /// A rank does not add up to 9 points.
    BadRankLength,
    /// A board character that is neither a digit 1–9 nor an accepted piece letter.
    BadPieceLetter,
    /// The side field is not `w`, `r` or `b`.
    BadSide,
    /// Fields 3–4 not both `-`, a lone `-`, or more than 6 fields.
    BadField,
    /// A counter that is not plain decimal digits or exceeds 65535.
    BadCounters,
}

impl FenErrorKind {
    /// The machine word of the spec, e.g. `bad-rank-count`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FenErrorKind::BadRankCount => "bad-rank-count",
            FenErrorKind::BadRankLength => "bad-rank-length",
            FenErrorKind::BadPieceLetter => "bad-piece-letter",
            FenErrorKind::BadSide => "bad-side",
            FenErrorKind::BadField => "bad-field",
            FenErrorKind::BadCounters => "bad-counters",
        }
    }
}

impl fmt::Display for FenErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A FEN syntax error: its kind and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError {
    /// What was wrong.
    pub kind: FenErrorKind,
    /// Where and what, in words, e.g. `rank 0 has 8 points`.
    pub detail: String,
}

impl fmt::Display for FenError {
    /// `<kind>: <detail>`, e.g. `bad-piece-letter: 'G' in rank 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for FenError {}

fn err(kind: FenErrorKind, detail: impl Into<String>) -> FenError {
    FenError {
        kind,
        detail: detail.into(),
    }
}

fn parse_counter(text: &str, name: &str) -> Result<u16, FenError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(
            FenErrorKind::BadCounters,
            format!("{name} {text:?} is not a number"),
        ));
    }
    text.trim_start_matches('0')
        .parse::<u16>()
        .or_else(|e| {
            if text.bytes().all(|b| b == b'0') {
                Ok(0)
            } else {
                Err(e)
            }
        })
        .map_err(|_| {
            err(
                FenErrorKind::BadCounters,
                format!("{name} {text} exceeds 65535"),
            )
        })
}

impl FromStr for Setup {
    type Err = FenError;

    /// Reads FEN leniently (`spec/xiangqi.md` §5.2).
    ///
    /// # Errors
    /// The first [`FenError`] in the order of §5.3.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = text.split([' ', '\t']).filter(|f| !f.is_empty()).collect();
        let board_text = fields.first().copied().unwrap_or("");
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != 10 {
            return Err(err(
                FenErrorKind::BadRankCount,
                format!("the board has {} ranks, not 10", ranks.len()),
            ));
        }
        let mut setup = Setup::empty();
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 9 - i;
            for c in rank_text.chars() {
                if !matches!(c, '1'..='9') && Piece::from_fen_char(c).is_none() {
                    return Err(err(
                        FenErrorKind::BadPieceLetter,
                        format!("{c:?} in rank {rank}"),
                    ));
                }
            }
            let total: usize = rank_text
                .chars()
                .map(|c| c.to_digit(10).map_or(1, |d| d as usize))
                .sum();
            if total != 9 {
                return Err(err(
                    FenErrorKind::BadRankLength,
                    format!("rank {rank} has {total} points, not 9"),
                ));
            }
            let mut file = 0;
            for c in rank_text.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
                    setup.board[rank * 9 + file] = Piece::from_fen_char(c);
                    file += 1;
                }
            }
        }
        if let Some(side) = fields.get(1) {
            setup.side = match side.to_ascii_lowercase().as_str() {
                "w" | "r" => Color::Red,
                "b" => Color::Black,
                _ => {
                    return Err(err(
                        FenErrorKind::BadSide,
                        format!("{side:?} is not w, r or b"),
                    ))
                }
            };
        }
        if fields.len() == 3 || fields.len() > 6 {
            return Err(err(
                FenErrorKind::BadField,
                format!("{} fields (expected 1, 2, 4, 5 or 6)", fields.len()),
            ));
        }
        if fields.len() >= 4 && (fields[2] != "-" || fields[3] != "-") {
            return Err(err(
                FenErrorKind::BadField,
                format!(
                    "fields 3 and 4 are {:?} {:?}, expected - -",
                    fields[2], fields[3]
                ),
            ));
        }
        if let Some(h) = fields.get(4) {
            setup.halfmove = parse_counter(h, "halfmove")?;
        }
        if let Some(f) = fields.get(5) {
            setup.fullmove = parse_counter(f, "fullmove")?.max(1);
        }
        Ok(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START_BOARD: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

    fn kind(text: &str) -> FenErrorKind {
        text.parse::<Setup>().unwrap_err().kind
    }

    #[test]
    fn lenient_input_prints_the_pikafish_form() {
        for (input, output) in [
            (
                "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r",
                START_FEN,
            ),
            (START_BOARD, START_FEN),
            (
                &format!("{START_BOARD} b - - 5"),
                &format!("{START_BOARD} b - - 5 1"),
            ),
            (
                &format!("  {START_BOARD}\tW  - -  7 0 "),
                &format!("{START_BOARD} w - - 7 1"),
            ),
            (
                "rnbakabnr/9/1c5c1/p1p1p1p1p/45/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
                START_FEN,
            ),
        ] {
            assert_eq!(
                input.parse::<Setup>().unwrap().to_string(),
                output,
                "{input}"
            );
        }
    }

    #[test]
    fn syntax_errors_of_the_spec() {
        assert_eq!(
            kind("rnbakabnr/9/1c5c1/p1p1p1p1p/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            FenErrorKind::BadRankCount
        );
        assert_eq!(
            kind("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w"),
            FenErrorKind::BadRankLength
        );
        assert_eq!(
            kind("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBGKABNR w"),
            FenErrorKind::BadPieceLetter
        );
        assert_eq!(kind(&format!("{START_BOARD} x")), FenErrorKind::BadSide);
        assert_eq!(
            kind(&format!("{START_BOARD} w KQ - 0 1")),
            FenErrorKind::BadField
        );
        assert_eq!(
            kind(&format!("{START_BOARD} w 0 1")),
            FenErrorKind::BadField
        );
        assert_eq!(kind(&format!("{START_BOARD} w -")), FenErrorKind::BadField);
        assert_eq!(
            kind(&format!("{START_BOARD} w - - 0 1 9")),
            FenErrorKind::BadField
        );
        assert_eq!(
            kind(&format!("{START_BOARD} w - - -1 1")),
            FenErrorKind::BadCounters
        );
        assert_eq!(
            kind(&format!("{START_BOARD} w - - 65536 1")),
            FenErrorKind::BadCounters
        );
        assert_eq!(
            kind(&format!("{START_BOARD} w - - 0 +1")),
            FenErrorKind::BadCounters
        );
        assert_eq!(kind(""), FenErrorKind::BadRankCount);
        assert_eq!(
            kind("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR0"),
            FenErrorKind::BadPieceLetter
        );
        // A bad letter is reported before the rank's length.
        assert_eq!(
            kind("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRRG"),
            FenErrorKind::BadPieceLetter
        );
        assert_eq!(
            format!("{START_BOARD} w - - 70000")
                .parse::<Setup>()
                .unwrap_err()
                .to_string(),
            "bad-counters: halfmove 70000 exceeds 65535"
        );
        assert_eq!(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBGKABNR"
                .parse::<Setup>()
                .unwrap_err()
                .to_string(),
            "bad-piece-letter: 'G' in rank 0"
        );
    }

    #[test]
    fn counters() {
        let s: Setup = format!("{START_BOARD} w - - 00065535 007").parse().unwrap();
        assert_eq!((s.halfmove, s.fullmove), (65535, 7));
        let s: Setup = format!("{START_BOARD} w - - 000").parse().unwrap();
        assert_eq!((s.halfmove, s.fullmove), (0, 1));
    }
}
