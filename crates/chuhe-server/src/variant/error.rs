//! Why a move, a position text or a replay is refused: the errors of
//! [`AnyGame`](super::AnyGame), with the texts the players read.

use chuhe_rules::{banqi, sanguo, xiangqi};

/// Why a move (or a stored record) was refused: bad text, or not legal (with the rule it breaks).
/// Its `Display` is the rules' own message, which the server sends as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move of this variant.
    Syntax(SyntaxError),
    /// The move is well formed but not legal here.
    Illegal(Illegal),
}

/// A text that is not a move (or a record) of the game's variant: the rules' parse error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// Not an ICCS move (`h2e2`).
    Xiangqi(xiangqi::ParseMoveError),
    /// Not a sanguo move (`Rh3-Rh4`).
    Sanguo(sanguo::ParseMoveError),
    /// Not a banqi action (`flip c2`, `c2-c3`) or record (`c2=R`).
    Banqi(banqi::ParseActionError),
    /// A move parsed for another variant than the game's.
    OtherGame,
}

/// Why a well-formed move is not legal: the rules' reason, or a game the table already ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    /// The xiangqi rule it breaks.
    Xiangqi(xiangqi::IllegalReason),
    /// The sanguo rule it breaks.
    Sanguo(sanguo::IllegalReason),
    /// The banqi rule it breaks.
    Banqi(banqi::IllegalReason),
    /// The table ended the game (resignation, timeout, agreement, ...).
    Ended,
}

/// A position text that does not load: the rules' error for the variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionTextError {
    /// Not a valid xiangqi FEN.
    Xiangqi(xiangqi::ParseFenError),
    /// Not a valid sanguo position text.
    Sanguo(sanguo::ParseError),
    /// Not a valid banqi view text.
    Banqi(banqi::ParsePositionError),
}

/// A stored record that does not replay ([`super::AnyGame::replay`]): its ply (from 1), its text and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// The ply of the record, from 1.
    pub ply: usize,
    /// The record's text.
    pub record: String,
    /// Why it does not replay.
    pub error: MoveError,
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::Syntax(e) => e.fmt(f),
            MoveError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyntaxError::Xiangqi(e) => e.fmt(f),
            SyntaxError::Sanguo(e) => e.fmt(f),
            SyntaxError::Banqi(e) => e.fmt(f),
            SyntaxError::OtherGame => f.write_str("a move of another game"),
        }
    }
}

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Illegal::Xiangqi(e) => e.fmt(f),
            Illegal::Sanguo(e) => e.fmt(f),
            Illegal::Banqi(e) => e.fmt(f),
            Illegal::Ended => f.write_str("the game has ended"),
        }
    }
}

impl std::fmt::Display for PositionTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PositionTextError::Xiangqi(e) => e.fmt(f),
            PositionTextError::Sanguo(e) => e.fmt(f),
            PositionTextError::Banqi(e) => e.fmt(f),
        }
    }
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ReplayError { ply, record, error } = self;
        write!(f, "move {ply} ({record}) does not replay: {error}")
    }
}

impl std::error::Error for MoveError {}

impl std::error::Error for SyntaxError {}

impl std::error::Error for Illegal {}

impl std::error::Error for PositionTextError {}

impl std::error::Error for ReplayError {}

impl From<SyntaxError> for MoveError {
    fn from(e: SyntaxError) -> MoveError {
        MoveError::Syntax(e)
    }
}

impl From<Illegal> for MoveError {
    fn from(e: Illegal) -> MoveError {
        MoveError::Illegal(e)
    }
}
