//! Actions (`spec/banqi.md` §3.2): the live form a seat sends and `chuhe moves` prints
//! ([`Action`]: `flip c2`, `c2-c3`, `c2xc3`) and the recorded form of the move log and of
//! `chuhe replay` ([`Record`]: `c2=R`, `c2-c3`, `c2xc3`), and why an action is refused
//! ([`IllegalReason`]).

use super::piece::{Piece, Square};
use crate::xiangqi::Kind;
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// A turn as a seat requests it: flip a face-down piece, or move a face-up piece from one square
/// to another (a step to an empty square or a capture).
///
/// Text: `flip c2`, `c2-c3` (move), `c2xc3` (capture; a cannon capture names its landing square,
/// e.g. `a1xe1`). On input `-` and `x` are interchangeable: the two squares identify the action,
/// and [`super::View::check`] returns it with the right separator.
///
/// ```
/// use chuhe_rules::banqi::Action;
/// let a: Action = "flip c2".parse().unwrap();
/// assert_eq!(a.to_string(), "flip c2");
/// assert!("c2=R".parse::<Action>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Turn a face-down piece face up.
    Flip(Square),
    /// Step one square orthogonally to an empty square.
    Move {
        /// Where the piece stands.
        from: Square,
        /// The empty square it steps to.
        to: Square,
    },
    /// Capture a face-up enemy piece (step, or cannon jump over one screen).
    Capture {
        /// Where the capturing piece stands.
        from: Square,
        /// The captured piece's square, where the capturing piece lands.
        to: Square,
    },
}

impl Action {
    /// `(from, to)` for a move or capture, `None` for a flip.
    pub fn squares(self) -> Option<(Square, Square)> {
        match self {
            Action::Flip(_) => None,
            Action::Move { from, to } | Action::Capture { from, to } => Some((from, to)),
        }
    }

    /// Whether it is a flip or a capture (the actions that reset `quiet`).
    pub fn is_irreversible(self) -> bool {
        !matches!(self, Action::Move { .. })
    }

    /// Sorts actions bytewise by their text, the order `chuhe moves` prints them in.
    pub fn sort_by_text(actions: &mut [Action]) {
        actions.sort_unstable_by_key(|a| a.text_bytes());
    }

    /// The text's bytes (`flip c2`, `c2-c3`, `c2xc3`), padded with zero bytes to seven: they
    /// compare as the texts do, a text before any longer one it begins.
    pub const fn text_bytes(self) -> [u8; 7] {
        match self {
            Action::Flip(sq) => {
                let [f, r] = sq.name();
                [b'f', b'l', b'i', b'p', b' ', f, r]
            }
            Action::Move { from, to } | Action::Capture { from, to } => {
                let ([f1, r1], [f2, r2]) = (from.name(), to.name());
                let sep = if matches!(self, Action::Move { .. }) {
                    b'-'
                } else {
                    b'x'
                };
                [f1, r1, sep, f2, r2, 0, 0]
            }
        }
    }

    /// The text's characters: [`Action::text_bytes`] without the padding (letters, digits,
    /// space, `-` and `x`: ASCII).
    fn text_chars(self) -> impl Iterator<Item = char> {
        self.text_bytes()
            .into_iter()
            .take_while(|&b| b != 0)
            .map(char::from)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text_chars().try_for_each(|c| f.write_char(c))
    }
}

/// The recorded form of a turn: a flip carries the revealed piece, so a record replays with no
/// secret at all (`spec/banqi.md` §3.2, §4.1).
///
/// Text: `c2=R` (flip of `c2` revealed a red chariot), `c2-c3`, `c2xc3`.
///
/// ```
/// use chuhe_rules::banqi::Record;
/// let r: Record = "c2=R".parse().unwrap();
/// assert_eq!(r.to_string(), "c2=R");
/// assert_eq!(
///     "flip c2".parse::<Record>().unwrap_err().to_string(),
///     "bad action \"flip c2\": a recorded flip names the revealed piece, e.g. c2=R"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Record {
    /// A flip and the piece it revealed.
    Flip {
        /// The flipped square.
        square: Square,
        /// The revealed piece.
        piece: Piece,
    },
    /// A step to an empty square.
    Move {
        /// Where the piece stood.
        from: Square,
        /// Where it went.
        to: Square,
    },
    /// A capture.
    Capture {
        /// Where the capturing piece stood.
        from: Square,
        /// The captured piece's square.
        to: Square,
    },
}

impl Record {
    /// The live action this record is the outcome of (a flip loses its revealed piece).
    pub fn action(self) -> Action {
        match self {
            Record::Flip { square, .. } => Action::Flip(square),
            Record::Move { from, to } => Action::Move { from, to },
            Record::Capture { from, to } => Action::Capture { from, to },
        }
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Record::Flip { square, piece } => write!(f, "{square}={}", piece.letter()),
            Record::Move { from, to } => write!(f, "{from}-{to}"),
            Record::Capture { from, to } => write!(f, "{from}x{to}"),
        }
    }
}

/// An action text that does not follow `spec/banqi.md` §3.2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseActionError {
    /// The text read.
    pub text: String,
    /// What is wrong with it, in words.
    pub detail: &'static str,
}

impl fmt::Display for ParseActionError {
    /// `bad action "<text>": <detail>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad action {:?}: {}", self.text, self.detail)
    }
}

impl std::error::Error for ParseActionError {}

fn bad(text: &str, detail: &'static str) -> ParseActionError {
    ParseActionError {
        text: text.to_owned(),
        detail,
    }
}

const SHAPES: &str = "expected flip SQ, SQ-SQ or SQxSQ";

/// Reads `SQ-SQ` or `SQxSQ`: `Some(Ok(..))` for either, `None` when the text has another shape.
fn parse_step(s: &str) -> Option<(Square, Square, bool)> {
    if s.len() != 5 || !s.is_char_boundary(2) || !s.is_char_boundary(3) {
        return None;
    }
    let from = s[..2].parse().ok()?;
    let to = s[3..].parse().ok()?;
    match &s[2..3] {
        "-" => Some((from, to, false)),
        "x" => Some((from, to, true)),
        _ => None,
    }
}

impl FromStr for Action {
    type Err = ParseActionError;

    /// Reads `flip SQ`, `SQ-SQ` or `SQxSQ`.
    ///
    /// # Errors
    /// [`ParseActionError`] for any other text, including a recorded flip (`c2=R`), which a live
    /// client must not send.
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        if let Some(sq) = s.strip_prefix("flip ") {
            return sq
                .parse()
                .map(Action::Flip)
                .map_err(|_| bad(s, "bad square after flip"));
        }
        if let Some((from, to, capture)) = parse_step(s) {
            return Ok(if capture {
                Action::Capture { from, to }
            } else {
                Action::Move { from, to }
            });
        }
        if s.contains('=') {
            return Err(bad(
                s,
                "a live flip names only the square, e.g. flip c2 (the server reveals the piece)",
            ));
        }
        Err(bad(s, SHAPES))
    }
}

impl FromStr for Record {
    type Err = ParseActionError;

    /// Reads `SQ=X`, `SQ-SQ` or `SQxSQ`.
    ///
    /// # Errors
    /// [`ParseActionError`] for any other text, including a bare flip (`flip c2`): a recorded game
    /// always carries its revealed pieces.
    fn from_str(s: &str) -> Result<Record, ParseActionError> {
        if let Some((from, to, capture)) = parse_step(s) {
            return Ok(if capture {
                Record::Capture { from, to }
            } else {
                Record::Move { from, to }
            });
        }
        if let Some((sq, letter)) = s.split_once('=') {
            let square = sq.parse().map_err(|_| bad(s, "bad square before ="))?;
            let mut chars = letter.chars();
            return match (chars.next().and_then(Piece::from_letter), chars.next()) {
                (Some(piece), None) => Ok(Record::Flip { square, piece }),
                _ => Err(bad(s, "expected one piece letter (KAERHCPkaerhcp) after =")),
            };
        }
        if s.starts_with("flip") {
            return Err(bad(
                s,
                "a recorded flip names the revealed piece, e.g. c2=R",
            ));
        }
        Err(bad(s, "expected SQ=X, SQ-SQ or SQxSQ"))
    }
}

macro_rules! serde_as_text {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_as_text!(Action);
serde_as_text!(Record);
pub(crate) use serde_as_text;

/// Why an action is refused. Every reason depends on public information only (`spec/banqi.md`
/// §4.2): a face-down piece is refused as a target because it is face down, never because of
/// what it hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The game has ended.
    GameOver,
    /// A flip of a square that holds no face-down piece.
    NotFaceDown,
    /// A move or capture before the first flip (no colours yet).
    NoColoursYet,
    /// The from-square is empty.
    EmptyFrom,
    /// The piece on the from-square is face down.
    FromFaceDown,
    /// The piece on the from-square belongs to the other colour.
    NotYourPiece,
    /// The two squares are not one orthogonal step apart (and not a cannon's line).
    NotOneStep,
    /// A cannon asked to move more than one square to an empty square.
    CannonSlide,
    /// The target square holds a face-down piece.
    TargetFaceDown,
    /// The target square holds a piece of the mover's colour.
    OwnTarget,
    /// A stepping piece may not capture that enemy piece (`attacker`, `target`).
    RankTooLow {
        /// The capturing piece's type.
        attacker: Kind,
        /// The target's type.
        target: Kind,
    },
    /// A cannon capture with a number of pieces between cannon and target other than one.
    CannonScreens {
        /// The pieces between cannon and target.
        between: u8,
    },
    /// A recorded flip revealed a piece that the pool does not hold.
    NotInPool(Piece),
    /// A recorded flip revealed another piece than the square's pinned identity (truth texts).
    PinMismatch,
    /// No unrevealed piece is left to draw (cannot happen in a validated position).
    PoolEmpty,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::GameOver => f.write_str("the game is over"),
            IllegalReason::NotFaceDown => f.write_str("no face-down piece on that square"),
            IllegalReason::NoColoursYet => {
                f.write_str("no colours yet: the first turn must be a flip")
            }
            IllegalReason::EmptyFrom => f.write_str("no piece on the from-square"),
            IllegalReason::FromFaceDown => f.write_str("the piece on the from-square is face down"),
            IllegalReason::NotYourPiece => {
                f.write_str("the piece on the from-square belongs to the other colour")
            }
            IllegalReason::NotOneStep => f.write_str("a piece moves one square orthogonally"),
            IllegalReason::CannonSlide => {
                f.write_str("a cannon moves one square when not capturing")
            }
            IllegalReason::TargetFaceDown => f.write_str("target is face down"),
            IllegalReason::OwnTarget => f.write_str("target is your own piece"),
            IllegalReason::RankTooLow { attacker, target } => {
                let (a, t) = (attacker.name(), target.name());
                write!(f, "{} {a} cannot capture {} {t}", article(a), article(t))
            }
            IllegalReason::CannonScreens { between: 0 } => {
                f.write_str("a cannon captures only by jumping exactly one piece (none between)")
            }
            IllegalReason::CannonScreens { between } => write!(
                f,
                "a cannon captures only by jumping exactly one piece ({between} between)"
            ),
            IllegalReason::NotInPool(p) => write!(f, "no {} is left in the pool", p.name()),
            IllegalReason::PinMismatch => {
                f.write_str("the revealed piece differs from the square's pinned piece")
            }
            IllegalReason::PoolEmpty => f.write_str("no unrevealed piece is left"),
        }
    }
}

impl std::error::Error for IllegalReason {}

/// `an` before a vowel (advisor, elephant), `a` otherwise.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip() {
        for t in ["flip a1", "flip h4", "c2-c3", "a1xe1"] {
            assert_eq!(t.parse::<Action>().unwrap().to_string(), t);
        }
        for t in ["c2=R", "h4=p", "c2-c3", "a1xe1"] {
            assert_eq!(t.parse::<Record>().unwrap().to_string(), t);
        }
        let rejected = [
            ("flip i1", "bad action \"flip i1\": bad square after flip"),
            ("c2c3", "bad action \"c2c3\": expected flip SQ, SQ-SQ or SQxSQ"),
            ("c2–c3", "bad action \"c2–c3\": expected flip SQ, SQ-SQ or SQxSQ"),
            ("C2-C3", "bad action \"C2-C3\": expected flip SQ, SQ-SQ or SQxSQ"),
            (
                "c2=R",
                "bad action \"c2=R\": a live flip names only the square, e.g. flip c2 (the server reveals the piece)",
            ),
        ];
        for (t, m) in rejected {
            assert_eq!(t.parse::<Action>().unwrap_err().to_string(), m);
        }
        let rejected = [
            (
                "c2=",
                "bad action \"c2=\": expected one piece letter (KAERHCPkaerhcp) after =",
            ),
            (
                "c2=RR",
                "bad action \"c2=RR\": expected one piece letter (KAERHCPkaerhcp) after =",
            ),
            (
                "c2=B",
                "bad action \"c2=B\": expected one piece letter (KAERHCPkaerhcp) after =",
            ),
            ("z2=R", "bad action \"z2=R\": bad square before ="),
            ("x", "bad action \"x\": expected SQ=X, SQ-SQ or SQxSQ"),
        ];
        for (t, m) in rejected {
            assert_eq!(t.parse::<Record>().unwrap_err().to_string(), m);
        }
    }
}
