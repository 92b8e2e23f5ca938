//! Standard algebraic notation (SAN) as XBoard, Fairy-Stockfish (pyffish's `get_san_moves`) and
//! pychess write xiangqi moves: `Hc7`, `Che3`, `E5a3`, `Cxe7+`, `Pc6`, `c4`, `Rh10`.
//!
//! Syntax: an optional piece letter (`K` General, `A` Advisor, `E` or `B` Elephant, `H` or `N`
//! Horse, `R` Chariot, `C` Cannon, `P` Soldier; none means a Soldier), an optional source file
//! and/or rank (disambiguation), an optional capture mark `x` (or `:`, `-` between squares), the
//! target square in lower-case coordinates, and optional `+`, `#`, `!`, `?` marks. Files are
//! `a`–`i` from Red's left. Ranks are numbered 1–10 by Fairy-Stockfish and pychess and 0–9 by
//! XBoard; [`SanMove::resolve`] takes the numbering as an argument and [`rank_base_of`] tells it
//! from the text when a rank `10` or `0` appears.
//!
//! Meaning is given against a position: the legal moves of that piece kind to the target that
//! agree with the disambiguation. No legal move is `illegal`, several are `ambiguous`.

use crate::write::RankBase;
use chuhe_rules::xiangqi::{Kind, Move, Position};

/// A SAN move's syntax, not yet matched against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SanMove {
    /// The piece kind (a Soldier when the text names none).
    pub kind: Kind,
    /// The text names the piece with a letter (`Pc5`); `false` for XBoard's bare Soldier moves
    /// (`c4`, `cd5`, `cxd5`), where a move without a source file goes straight ahead.
    pub lettered: bool,
    /// Source file 0–8 (`a`–`i`) when the text gives one.
    pub from_file: Option<u8>,
    /// Source rank number as written (0–10) when the text gives one.
    pub from_rank: Option<u8>,
    /// The text marks a capture.
    pub capture: bool,
    /// Target file 0–8.
    pub to_file: u8,
    /// Target rank number as written (0–10).
    pub to_rank: u8,
}

/// A SAN piece letter's kind.
fn kind_of(c: char) -> Option<Kind> {
    Some(match c {
        'K' => Kind::General,
        'A' => Kind::Advisor,
        'E' | 'B' => Kind::Elephant,
        'H' | 'N' => Kind::Horse,
        'R' => Kind::Chariot,
        'C' => Kind::Cannon,
        'P' => Kind::Soldier,
        _ => return None,
    })
}

/// A rank number at the end of `s` (`0`–`9`, or `10`): the number and its length in bytes.
fn trailing_rank(s: &str) -> Option<(u8, usize)> {
    if s.ends_with("10") && s.len() >= 3 && s.as_bytes()[s.len() - 3].is_ascii_lowercase() {
        return Some((10, 2));
    }
    let d = *s.as_bytes().last()?;
    d.is_ascii_digit().then(|| (d - b'0', 1))
}

/// A file letter `a`–`i`.
fn file_of(c: u8) -> Option<u8> {
    (b'a'..=b'i').contains(&c).then(|| c - b'a')
}

impl SanMove {
    /// Parses SAN text; `None` when it is not SAN (see the module documentation). Pure
    /// coordinates such as `h2e2` are not SAN (they are read as ICCS).
    ///
    /// ```
    /// use chuhe_notation::san::SanMove;
    /// let m = SanMove::parse("Cxe7+").unwrap();
    /// assert!(m.capture);
    /// assert_eq!((m.to_file, m.to_rank), (4, 7));
    /// assert!(SanMove::parse("h2e2").is_none());
    /// assert!(SanMove::parse("C2.5").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<SanMove> {
        let t = text.trim().trim_end_matches(['+', '#', '!', '?']);
        if t.is_empty() || !t.is_ascii() {
            return None;
        }
        let first = t.chars().next()?;
        let (kind, lettered, rest) = match kind_of(first) {
            Some(k) => (k, true, &t[1..]),
            None => (Kind::Soldier, false, t),
        };
        let (to_rank, rank_len) = trailing_rank(rest)?;
        let rest = &rest[..rest.len() - rank_len];
        let to_file = file_of(*rest.as_bytes().last()?)?;
        let mut rest = &rest[..rest.len() - 1];
        let mut capture = false;
        let mut separated = false;
        if let Some(r) = rest.strip_suffix(['x', ':']) {
            capture = true;
            rest = r;
        } else if let Some(r) = rest.strip_suffix('-') {
            separated = true;
            rest = r;
        }
        let bytes = rest.as_bytes();
        let (from_file, rank_text) = match bytes.first() {
            Some(&c) if file_of(c).is_some() => (file_of(c), &rest[1..]),
            _ => (None, rest),
        };
        let from_rank = match rank_text {
            "" => None,
            "10" => Some(10),
            r if r.len() == 1 && r.as_bytes()[0].is_ascii_digit() => Some(r.as_bytes()[0] - b'0'),
            _ => return None,
        };
        // `h2e2` and `h2-e2` are coordinates, never SAN; so is a lone `-` without a source.
        if !lettered && from_file.is_some() && from_rank.is_some() && !capture {
            return None;
        }
        if separated && from_file.is_none() {
            return None;
        }
        Some(SanMove {
            kind,
            lettered,
            from_file,
            from_rank,
            capture,
            to_file,
            to_rank,
        })
    }

    /// The legal moves of `pos` this text can name when its ranks are numbered from `base`.
    pub fn candidates(&self, pos: &Position, base: RankBase) -> Vec<Move> {
        let rank = |n: u8| -> Option<i32> {
            match base {
                RankBase::Zero => (n <= 9).then_some(i32::from(n)),
                RankBase::One => (1..=10).contains(&n).then(|| i32::from(n) - 1),
            }
        };
        let Some(to_rank) = rank(self.to_rank) else {
            return Vec::new();
        };
        let from_rank = match self.from_rank {
            Some(n) => match rank(n) {
                Some(r) => Some(r),
                None => return Vec::new(),
            },
            None => None,
        };
        let mut found: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| {
                m.to.file() == i32::from(self.to_file)
                    && m.to.rank() == to_rank
                    && pos.piece_at(m.from).is_some_and(|p| p.kind == self.kind)
                    && self.from_file.is_none_or(|f| m.from.file() == i32::from(f))
                    && from_rank.is_none_or(|r| m.from.rank() == r)
                    && (!self.capture || pos.is_capture(m))
            })
            .collect();
        // XBoard writes a Soldier's move like a chess pawn's: only the target when it goes
        // straight ahead (`i4`), the source file first when it steps sideways (`hi4`, `hxi4`).
        // So bare text names the straight move when there is one (issue 27: `i4` for i5i4 was
        // called ambiguous beside the sideways h4i4); without one, every candidate stays.
        if !self.lettered
            && self.from_file.is_none()
            && self.from_rank.is_none()
            && found.len() > 1
            && found.iter().any(|m| m.from.file() == m.to.file())
        {
            found.retain(|m| m.from.file() == m.to.file());
        }
        found
    }

    /// The one legal move this text names with ranks numbered from `base`.
    ///
    /// # Errors
    /// [`SanError::Illegal`] when no legal move fits, [`SanError::Ambiguous`] with the candidates
    /// when several do.
    pub fn resolve(&self, pos: &Position, base: RankBase) -> Result<Move, SanError> {
        let mut found = self.candidates(pos, base);
        match found.len() {
            0 => Err(SanError::Illegal),
            1 => Ok(found[0]),
            _ => {
                found.sort_by_key(|m| m.to_string());
                Err(SanError::Ambiguous(found))
            }
        }
    }
}

/// Why SAN text names no single move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    /// No legal move fits.
    Illegal,
    /// Several legal moves fit (sorted by their ICCS text).
    Ambiguous(Vec<Move>),
}

/// The rank numbering a SAN text shows: [`RankBase::One`] when it names rank `10`,
/// [`RankBase::Zero`] when it names rank `0`, `None` for text that is not SAN or shows neither.
///
/// ```
/// use chuhe_notation::san::rank_base_of;
/// use chuhe_notation::RankBase;
/// assert_eq!(rank_base_of("Rh10"), Some(RankBase::One));
/// assert_eq!(rank_base_of("Hc0"), Some(RankBase::Zero));
/// assert_eq!(rank_base_of("Hc7"), None);
/// ```
pub fn rank_base_of(text: &str) -> Option<RankBase> {
    let m = SanMove::parse(text)?;
    let ranks = [Some(m.to_rank), m.from_rank];
    if ranks.contains(&Some(10)) {
        Some(RankBase::One)
    } else if ranks.contains(&Some(0)) {
        Some(RankBase::Zero)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn syntax() {
        let p = |t: &str| SanMove::parse(t);
        assert_eq!(
            p("E5a3"),
            Some(SanMove {
                kind: Kind::Elephant,
                lettered: true,
                from_file: None,
                from_rank: Some(5),
                capture: false,
                to_file: 0,
                to_rank: 3
            })
        );
        assert_eq!(
            p("Ra10xa1").map(|s| (s.from_rank, s.capture)),
            Some((Some(10), true))
        );
        assert_eq!(p("c4").map(|s| s.kind), Some(Kind::Soldier));
        assert_eq!(
            p("cxd4").map(|s| (s.from_file, s.capture)),
            Some((Some(2), true))
        );
        for bad in [
            "",
            "h2e2",
            "H2-E2",
            "C2.5",
            "炮二平五",
            "Xc4",
            "Hj7",
            "Hc11",
            "c",
            "-c4",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn meaning_in_both_numberings() {
        let pos = Position::start();
        let one = RankBase::One;
        let zero = RankBase::Zero;
        let r = |t: &str, b| SanMove::parse(t).unwrap().resolve(&pos, b);
        assert_eq!(r("Che3", one), Ok(m("h2e2")));
        assert_eq!(r("Hc3", one), Ok(m("b0c2")));
        assert_eq!(r("Hc2", zero), Ok(m("b0c2")));
        assert_eq!(r("Pc5", one), Ok(m("c3c4")));
        assert_eq!(r("c4", zero), Ok(m("c3c4")));
        assert_eq!(r("Cxh10", one), Ok(m("h2h9")));
        assert_eq!(
            r("Ce3", one),
            Err(SanError::Ambiguous(vec![m("b2e2"), m("h2e2")]))
        );
        assert_eq!(r("Hd3", one), Err(SanError::Illegal));
        assert_eq!(r("Rh10", zero), Err(SanError::Illegal));
    }

    /// Issue 27: XBoard's `i4` for a straight Soldier move reads as that move even when another
    /// Soldier could step sideways to the same point; text that does not tell them apart is
    /// still refused.
    #[test]
    fn bare_soldier_text_is_the_straight_move() {
        // Black Soldiers on i5 and h4 (across the river): both can reach i4.
        let pos = Position::from_fen("4k4/9/9/9/8p/7p1/9/9/9/3K5 b").unwrap();
        let r = |t: &str, b| SanMove::parse(t).unwrap().resolve(&pos, b);
        assert_eq!(r("i4", RankBase::Zero), Ok(m("i5i4")));
        assert_eq!(r("hi4", RankBase::Zero), Ok(m("h4i4")));
        assert_eq!(
            r("Pi4", RankBase::Zero),
            Err(SanError::Ambiguous(vec![m("h4i4"), m("i5i4")]))
        );
        // Red Soldiers on d6 and f6, none on e5: both step sideways to e6, none goes straight.
        let pos = Position::from_fen("3k5/9/9/3P1P3/9/9/9/9/9/4K4 w").unwrap();
        let r = |t: &str| SanMove::parse(t).unwrap().resolve(&pos, RankBase::Zero);
        assert_eq!(
            r("e6"),
            Err(SanError::Ambiguous(vec![m("d6e6"), m("f6e6")]))
        );
        assert_eq!(r("de6"), Ok(m("d6e6")));
    }
}
