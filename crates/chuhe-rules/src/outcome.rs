//! The end-of-game vocabulary shared by the three games.
//!
//! The reason words are the machine words of `spec/cli.md` (`replay --json`); clients translate
//! them for players. They live in one enum, [`EndReason`], so no other place spells them.

use std::fmt;
use std::str::FromStr;

/// A side or kingdom that can win: the two xiangqi and banqi sides and the three sanguo kingdoms.
///
/// Serialized as its lower-case name (`"red"`, `"black"`, `"shu"`, `"wu"`, `"wei"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Red (xiangqi, banqi): moves first in xiangqi.
    Red,
    /// Black (xiangqi, banqi).
    Black,
    /// Shu, the first kingdom to move in sanguo.
    Shu,
    /// Wu, the second kingdom.
    Wu,
    /// Wei, the third kingdom.
    Wei,
}

impl Side {
    /// The lower-case machine word: `red`, `black`, `shu`, `wu`, `wei`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Red => "red",
            Side::Black => "black",
            Side::Shu => "shu",
            Side::Wu => "wu",
            Side::Wei => "wei",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended: one word of the vocabulary of `spec/cli.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// The side to move is in check and has no legal move; it loses.
    Checkmate,
    /// The side to move is not in check and has no legal move; it loses (xiangqi rule).
    Stalemate,
    /// A player (sanguo kingdom, banqi side) has no legal move and is defeated.
    NoLegalMove,
    /// A general was captured (sanguo).
    GeneralCaptured,
    /// Every piece of a side was captured (banqi).
    AllCaptured,
    /// The third occurrence of a position where one side checked on every move; it loses.
    PerpetualCheck,
    /// The third occurrence of a position where one side chased one piece on every move; it loses.
    PerpetualChase,
    /// The third occurrence of a position without a losing verdict: a draw.
    ThreefoldRepetition,
    /// The no-capture limit was reached: a draw.
    NoCaptureLimit,
    /// Banqi: the limit of turns without a flip or a capture was reached: a draw.
    NoFlipNoCaptureLimit,
    /// A player resigned.
    Resignation,
    /// A player's clock ran out.
    Timeout,
    /// A player left or stayed disconnected past the grace period.
    Abandonment,
    /// The players agreed to a draw.
    Agreement,
    /// The game was abandoned before its first move; no result.
    Aborted,
}

impl EndReason {
    /// Every reason, in the order of `spec/cli.md`.
    pub const ALL: [EndReason; 15] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::NoLegalMove,
        EndReason::GeneralCaptured,
        EndReason::AllCaptured,
        EndReason::PerpetualCheck,
        EndReason::PerpetualChase,
        EndReason::ThreefoldRepetition,
        EndReason::NoCaptureLimit,
        EndReason::NoFlipNoCaptureLimit,
        EndReason::Resignation,
        EndReason::Timeout,
        EndReason::Abandonment,
        EndReason::Agreement,
        EndReason::Aborted,
    ];

    /// The machine word, e.g. `perpetual-check`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::NoLegalMove => "no-legal-move",
            EndReason::GeneralCaptured => "general-captured",
            EndReason::AllCaptured => "all-captured",
            EndReason::PerpetualCheck => "perpetual-check",
            EndReason::PerpetualChase => "perpetual-chase",
            EndReason::ThreefoldRepetition => "threefold-repetition",
            EndReason::NoCaptureLimit => "no-capture-limit",
            EndReason::NoFlipNoCaptureLimit => "no-flip-no-capture-limit",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::Abandonment => "abandonment",
            EndReason::Agreement => "agreement",
            EndReason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown reason word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownReason(pub String);

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown end reason: {:?}", self.0)
    }
}

impl std::error::Error for UnknownReason {}

impl FromStr for EndReason {
    type Err = UnknownReason;

    /// Parses a machine word, e.g. `"checkmate"`.
    ///
    /// # Errors
    /// [`UnknownReason`] for any text that is not one of the words.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownReason(s.to_owned()))
    }
}

/// How a player ends the game from the table rather than on the board (`spec/xiangqi.md` §6,
/// `spec/sanguo.md` C14, `spec/banqi.md` §2.3 table rules): the player loses, or in sanguo leaves
/// the other active kingdoms to share the victory. Each game's `ending_if`, `resign`, `time_out`
/// and `abandon` take or imply one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quit {
    /// The player resigned.
    Resignation,
    /// The player's clock ran out.
    Timeout,
    /// The player left or stayed disconnected past the table's limit.
    Abandonment,
}

impl Quit {
    /// The end reason of the shared vocabulary.
    ///
    /// ```
    /// use chuhe_rules::outcome::{EndReason, Quit};
    /// assert_eq!(Quit::Timeout.reason(), EndReason::Timeout);
    /// ```
    pub const fn reason(self) -> EndReason {
        match self {
            Quit::Resignation => EndReason::Resignation,
            Quit::Timeout => EndReason::Timeout,
            Quit::Abandonment => EndReason::Abandonment,
        }
    }

    /// The way of quitting a reason names: `None` for a reason that is not a table ending by one
    /// player (checkmate, agreement, ...).
    ///
    /// ```
    /// use chuhe_rules::outcome::{EndReason, Quit};
    /// assert_eq!(Quit::from_reason(EndReason::Resignation), Some(Quit::Resignation));
    /// assert_eq!(Quit::from_reason(EndReason::Agreement), None);
    /// ```
    pub const fn from_reason(reason: EndReason) -> Option<Quit> {
        match reason {
            EndReason::Resignation => Some(Quit::Resignation),
            EndReason::Timeout => Some(Quit::Timeout),
            EndReason::Abandonment => Some(Quit::Abandonment),
            _ => None,
        }
    }
}

/// How a finished game ended: who won (none for a draw, two for a shared sanguo victory) and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Outcome {
    /// The winning sides or kingdoms; empty for a draw or an aborted game.
    pub winners: Vec<Side>,
    /// The rule that ended the game.
    pub reason: EndReason,
}

impl Outcome {
    /// A win for one side.
    pub fn win(winner: Side, reason: EndReason) -> Outcome {
        Outcome {
            winners: vec![winner],
            reason,
        }
    }

    /// A draw (no winners).
    pub fn draw(reason: EndReason) -> Outcome {
        Outcome {
            winners: Vec::new(),
            reason,
        }
    }

    /// The two-player result text: `1-0` (Red won), `0-1` (Black won), `1/2-1/2` (draw), or `None`
    /// when the winners are not one of Red and Black alone (sanguo, aborted games).
    pub fn result_text(&self) -> Option<&'static str> {
        match (self.winners.as_slice(), self.reason) {
            (_, EndReason::Aborted) => None,
            ([Side::Red], _) => Some("1-0"),
            ([Side::Black], _) => Some("0-1"),
            ([], _) => Some("1/2-1/2"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_words_round_trip() {
        for r in EndReason::ALL {
            assert_eq!(r.as_str().parse::<EndReason>(), Ok(r));
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", r.as_str())
            );
        }
        assert_eq!(
            "mate".parse::<EndReason>().unwrap_err().to_string(),
            "unknown end reason: \"mate\""
        );
    }

    #[test]
    fn result_texts() {
        assert_eq!(
            Outcome::win(Side::Red, EndReason::Checkmate).result_text(),
            Some("1-0")
        );
        assert_eq!(
            Outcome::win(Side::Black, EndReason::Stalemate).result_text(),
            Some("0-1")
        );
        assert_eq!(
            Outcome::draw(EndReason::Agreement).result_text(),
            Some("1/2-1/2")
        );
        assert_eq!(Outcome::draw(EndReason::Aborted).result_text(), None);
        let shared = Outcome {
            winners: vec![Side::Shu, Side::Wu],
            reason: EndReason::Resignation,
        };
        assert_eq!(shared.result_text(), None);
    }
}
