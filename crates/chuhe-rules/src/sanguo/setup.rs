//! The parsed, unvalidated position ([`Setup`]) and the one-line position text of
//! `spec/sanguo.md` §8.2, read and written in its single canonical spelling.

use super::board::{Kingdom, Point, POINTS};
use super::piece::{Kind, Piece};
use std::fmt;
use std::str::FromStr;

/// The start position text with flag bearers (the default table).
pub const START_TEXT: &str = "9/rP1rP1rP1rP1rP/1rC1rF1rF1rC1/9/rRrHrErArKrArErHrR,9/gP1gP1gP1gP1gP/1gC1gF1gF1gC1/9/gRgHgEgAgKgAgEgHgR,9/bP1bP1bP1bP1bP/1bC1bF1bF1bC1/9/bRbHbEbAbKbAbEbHbR R - - F 0";

/// The start position text without flag bearers.
pub const START_TEXT_NO_FLAGS: &str = "9/rP1rP1rP1rP1rP/1rC5rC1/9/rRrHrErArKrArErHrR,9/gP1gP1gP1gP1gP/1gC5gC1/9/gRgHgEgAgKgAgEgHgR,9/bP1bP1bP1bP1bP/1bC5bC1/9/bRbHbEbAbKbAbEbHbR R - - - 0";

/// The largest value of the quiet counter (`spec/sanguo.md` C12): the game ends when it is reached.
pub const QUIET_LIMIT: u16 = 180;

/// A board with the five other fields of the position text, as read; not yet checked against the
/// rules of §8.2 (see [`super::Position::from_setup`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The piece on each point, indexed by [`Point::index`].
    pub board: [Option<Piece>; POINTS],
    /// The kingdom to move.
    pub side: Kingdom,
    /// The kingdom that made the most recent move, `None` when unknown.
    pub last: Option<Kingdom>,
    /// Which kingdoms are defeated, indexed by [`Kingdom::index`].
    pub defeated: [bool; 3],
    /// Whether the table plays with flag bearers.
    pub flags: bool,
    /// Moves since the last capture or defeat (C12), 0…180.
    pub quiet: u16,
}

/// The error of reading a position text that is not in the canonical form of §8.2 (kind
/// `syntax`): what was wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError(pub String);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "syntax ({})", self.0)
    }
}

impl std::error::Error for SyntaxError {}

impl Setup {
    /// An empty board, Shu to move, no last mover, nobody defeated, the given flag option.
    pub fn empty(flags: bool) -> Setup {
        Setup {
            board: [None; POINTS],
            side: Kingdom::Shu,
            last: None,
            defeated: [false; 3],
            flags,
            quiet: 0,
        }
    }

    /// The start position of §4.3, with or without flag bearers.
    pub fn start(flags: bool) -> Setup {
        let mut s = Setup::empty(flags);
        let back = [
            Kind::Chariot,
            Kind::Horse,
            Kind::Elephant,
            Kind::Advisor,
            Kind::General,
            Kind::Advisor,
            Kind::Elephant,
            Kind::Horse,
            Kind::Chariot,
        ];
        for k in Kingdom::ALL {
            let mut put = |f: u8, r: u8, kind: Kind| {
                s.board[Point::new(k, f, r).index()] = Some(Piece::new(kind, k));
            };
            for (f, &kind) in back.iter().enumerate() {
                put(f as u8, 1, kind);
            }
            put(1, 3, Kind::Cannon);
            put(7, 3, Kind::Cannon);
            if flags {
                put(3, 3, Kind::FlagBearer);
                put(5, 3, Kind::FlagBearer);
            }
            for f in [0, 2, 4, 6, 8] {
                put(f, 4, Kind::Soldier);
            }
        }
        s
    }

    /// The piece on `p`.
    pub fn piece_at(&self, p: Point) -> Option<Piece> {
        self.board[p.index()]
    }

    /// The same position seen one kingdom on (§2.4): every point, owner, origin, the side to
    /// move, the last mover and the defeated set move to the next kingdom.
    pub fn rotated(&self) -> Setup {
        let mut board = [None; POINTS];
        for p in Point::all() {
            board[p.rotated().index()] = self.board[p.index()].map(Piece::rotated);
        }
        let mut defeated = [false; 3];
        for k in Kingdom::ALL {
            defeated[k.next().index()] = self.defeated[k.index()];
        }
        Setup {
            board,
            side: self.side.next(),
            last: self.last.map(Kingdom::next),
            defeated,
            flags: self.flags,
            quiet: self.quiet,
        }
    }

    /// The board field: three halves (Shu, Wu, Wei) of five ranks each, bank first.
    pub fn board_text(&self) -> String {
        let mut out = String::with_capacity(160);
        for k in Kingdom::ALL {
            if k != Kingdom::Shu {
                out.push(',');
            }
            for r in (1..=5).rev() {
                if r != 5 {
                    out.push('/');
                }
                let mut empty = 0u8;
                for f in 0..9 {
                    match self.board[Point::new(k, f, r).index()] {
                        Some(p) => {
                            if empty > 0 {
                                out.push((b'0' + empty) as char);
                                empty = 0;
                            }
                            out.push_str(&p.to_string());
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    out.push((b'0' + empty) as char);
                }
            }
        }
        out
    }
}

impl fmt::Display for Setup {
    /// The canonical position text of §8.2.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let defeated: String = Kingdom::ALL
            .iter()
            .filter(|k| self.defeated[k.index()])
            .map(|k| k.letter())
            .collect();
        write!(
            f,
            "{} {} {} {} {} {}",
            self.board_text(),
            self.side.letter(),
            self.last.map_or('-', Kingdom::letter),
            if defeated.is_empty() { "-" } else { &defeated },
            if self.flags { 'F' } else { '-' },
            self.quiet
        )
    }
}

fn parse_rank(
    text: &str,
    k: Kingdom,
    r: u8,
    board: &mut [Option<Piece>; POINTS],
) -> Result<(), SyntaxError> {
    let at = || format!("{} rank {r}", k.name());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut file = 0usize;
    let mut last_digit = false;
    while i < chars.len() {
        let c = chars[i];
        if let Some(d) = c.to_digit(10) {
            if d == 0 {
                return Err(SyntaxError(format!(
                    "{}: 0 is not a count of empty points",
                    at()
                )));
            }
            if last_digit {
                return Err(SyntaxError(format!("{}: two adjacent digits", at())));
            }
            file += d as usize;
            last_digit = true;
            i += 1;
        } else {
            let owner = Kingdom::from_owner_letter(c).ok_or_else(|| {
                SyntaxError(format!(
                    "{}: unexpected {c:?} (expected a digit or r, g, b)",
                    at()
                ))
            })?;
            let kind = chars
                .get(i + 1)
                .and_then(|&t| Kind::from_letter(t))
                .ok_or_else(|| {
                    SyntaxError(format!(
                        "{}: {c:?} must be followed by one of K A E H R C P F",
                        at()
                    ))
                })?;
            i += 2;
            let mut origin = owner;
            if chars.get(i) == Some(&'~') {
                origin = chars
                    .get(i + 1)
                    .and_then(|&o| Kingdom::from_owner_letter(o))
                    .ok_or_else(|| {
                        SyntaxError(format!("{}: '~' must be followed by r, g or b", at()))
                    })?;
                if origin == owner {
                    return Err(SyntaxError(format!(
                        "{}: origin ~{} equals the owner",
                        at(),
                        owner.owner_letter()
                    )));
                }
                i += 2;
            }
            if file >= 9 {
                return Err(SyntaxError(format!("{}: more than 9 points", at())));
            }
            board[Point::new(k, file as u8, r).index()] = Some(Piece {
                kind,
                owner,
                origin,
            });
            file += 1;
            last_digit = false;
        }
    }
    if file != 9 {
        return Err(SyntaxError(format!("{}: {file} points instead of 9", at())));
    }
    Ok(())
}

impl FromStr for Setup {
    type Err = SyntaxError;

    /// Reads a position text in the canonical form of §8.2 (any other spelling is refused).
    ///
    /// # Errors
    /// [`SyntaxError`] naming the first field or rank that is wrong.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = s.split(' ').collect();
        if fields.len() != 6 {
            return Err(SyntaxError(format!(
                "{} fields instead of 6 separated by single spaces",
                fields.len()
            )));
        }
        let mut setup = Setup::empty(false);
        let halves: Vec<&str> = fields[0].split(',').collect();
        if halves.len() != 3 {
            return Err(SyntaxError(format!(
                "board: {} halves instead of 3 separated by ','",
                halves.len()
            )));
        }
        for (k, half) in Kingdom::ALL.into_iter().zip(&halves) {
            let ranks: Vec<&str> = half.split('/').collect();
            if ranks.len() != 5 {
                return Err(SyntaxError(format!(
                    "{} half: {} ranks instead of 5 separated by '/'",
                    k.name(),
                    ranks.len()
                )));
            }
            for (i, rank) in ranks.iter().enumerate() {
                parse_rank(rank, k, 5 - i as u8, &mut setup.board)?;
            }
        }
        let one = |field: &str, name: &str| -> Result<char, SyntaxError> {
            let mut cs = field.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Ok(c),
                _ => Err(SyntaxError(format!("{name}: {field:?} is not one letter"))),
            }
        };
        setup.side = Kingdom::from_letter(one(fields[1], "side to move")?).ok_or_else(|| {
            SyntaxError(format!(
                "side to move: {:?} (expected R, G or B)",
                fields[1]
            ))
        })?;
        setup.last = match one(fields[2], "last mover")? {
            '-' => None,
            c => Some(Kingdom::from_letter(c).ok_or_else(|| {
                SyntaxError(format!(
                    "last mover: {:?} (expected R, G, B or -)",
                    fields[2]
                ))
            })?),
        };
        if fields[3] != "-" {
            let mut prev: Option<Kingdom> = None;
            let bad = || {
                SyntaxError(format!(
                    "defeated: {:?} (expected - or R, G, B in that order)",
                    fields[3]
                ))
            };
            if fields[3].is_empty() {
                return Err(bad());
            }
            for c in fields[3].chars() {
                let k = Kingdom::from_letter(c).ok_or_else(bad)?;
                if prev.is_some_and(|p| p >= k) {
                    return Err(bad());
                }
                setup.defeated[k.index()] = true;
                prev = Some(k);
            }
        }
        setup.flags = match fields[4] {
            "F" => true,
            "-" => false,
            other => {
                return Err(SyntaxError(format!("flags: {other:?} (expected F or -)")));
            }
        };
        let q = fields[5];
        let canonical = !q.is_empty()
            && q.len() <= 3
            && q.bytes().all(|b| b.is_ascii_digit())
            && (q == "0" || !q.starts_with('0'));
        setup.quiet = match q.parse::<u16>() {
            Ok(n) if canonical && n <= QUIET_LIMIT => n,
            _ => {
                return Err(SyntaxError(format!(
                    "quiet: {q:?} (expected 0 to 180 without leading zeros)"
                )))
            }
        };
        Ok(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_texts_round_trip() {
        for flags in [true, false] {
            let pos = super::super::Position::start(flags);
            let checked = super::super::Position::from_setup(Setup::start(flags));
            assert_eq!(checked.as_ref(), Ok(&pos));
        }
        assert_eq!(Setup::start(true).to_string(), START_TEXT);
        assert_eq!(Setup::start(false).to_string(), START_TEXT_NO_FLAGS);
        for t in [START_TEXT, START_TEXT_NO_FLAGS] {
            assert_eq!(t.parse::<Setup>().unwrap().to_string(), t);
        }
    }

    #[test]
    fn non_canonical_spellings_are_refused() {
        let good = "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0";
        assert!(good.parse::<Setup>().is_ok());
        let cases = [
            (
                "9/9/9/9/3rK41,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
                "syntax (shu rank 1: two adjacent digits)",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 00",
                "syntax (quiet: \"00\" (expected 0 to 180 without leading zeros))",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 181",
                "syntax (quiet: \"181\" (expected 0 to 180 without leading zeros))",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - GR - 0",
                "syntax (defeated: \"GR\" (expected - or R, G, B in that order))",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5  R - - - 0",
                "syntax (7 fields instead of 6 separated by single spaces)",
            ),
            (
                "9/9/9/9/3rK~r5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
                "syntax (shu rank 1: origin ~r equals the owner)",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK6 R - - - 0",
                "syntax (wei rank 1: 10 points instead of 9)",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5 R - - - 0",
                "syntax (board: 2 halves instead of 3 separated by ',')",
            ),
            (
                "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 r - - - 0",
                "syntax (side to move: \"r\" (expected R, G or B))",
            ),
        ];
        for (text, msg) in cases {
            assert_eq!(
                text.parse::<Setup>().unwrap_err().to_string(),
                msg,
                "{text}"
            );
        }
    }
}
