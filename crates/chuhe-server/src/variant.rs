//! The games the server hosts, behind one enum per concept: [`Variant`], [`AnyGame`],
//! [`AnyMove`]. Each variant plugs in through one match arm per method; nothing else in the
//! server knows a rule.
//!
//! Seats are numbered from 0 in the variant's move order: xiangqi 0 = Red, 1 = Black.

use chuhe_rules::outcome::{EndReason, Outcome, Winner};
use chuhe_rules::xiangqi;
use serde::{Deserialize, Serialize};

/// A game of the family, as named on the wire (`"xiangqi"`, `"sanguo"`, `"banqi"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard xiangqi, two seats (Red, Black).
    Xiangqi,
    /// Three Kingdoms xiangqi, three seats (Shu, Wu, Wei).
    Sanguo,
    /// Banqi (dark chess), two seats.
    Banqi,
}

impl Variant {
    /// The lower-case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Xiangqi => "xiangqi",
            Variant::Sanguo => "sanguo",
            Variant::Banqi => "banqi",
        }
    }

    /// How many seats a table of this variant has.
    pub const fn seat_count(self) -> usize {
        match self {
            Variant::Xiangqi | Variant::Banqi => 2,
            Variant::Sanguo => 3,
        }
    }

    /// Whether this server build can host the variant (its rules are in `chuhe-rules`).
    pub const fn is_hosted(self) -> bool {
        matches!(self, Variant::Xiangqi)
    }

    /// Whether the players of this variant may agree to a draw (xiangqi and banqi).
    pub const fn has_draw_offers(self) -> bool {
        matches!(self, Variant::Xiangqi | Variant::Banqi)
    }
}

/// The options a table fixes for its game (the rule-related part of
/// [`crate::protocol::TableOptions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleOptions {
    /// Xiangqi: plies without capture before a draw (0 = off).
    pub no_capture_limit: u16,
    /// Sanguo: whether the flag-bearer rule is on.
    pub flag_bearers: bool,
}

/// A move of any variant, already parsed but not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyMove {
    /// A standard xiangqi move (ICCS, e.g. `h2e2`).
    Xiangqi(xiangqi::Move),
}

impl std::fmt::Display for AnyMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyMove::Xiangqi(m) => m.fmt(f),
        }
    }
}

/// The board as one seat (or a spectator) may see it, tagged by variant on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "variant", rename_all = "lowercase")]
pub enum BoardView {
    /// Standard xiangqi: everything is public.
    Xiangqi {
        /// The position after the last move, as FEN (`spec/xiangqi.md`).
        fen: String,
        /// The moves played from the start, ICCS.
        moves: Vec<String>,
    },
}

/// Why a move was refused: bad text, or not legal (with the rule it breaks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move of this variant.
    Syntax(String),
    /// The move is well formed but not legal here.
    Illegal(String),
}

/// A game of any variant, owned by one table actor.
#[derive(Debug, Clone)]
pub enum AnyGame {
    /// Standard xiangqi.
    Xiangqi(xiangqi::Game),
}

impl AnyGame {
    /// A new game of `variant` from its start position.
    ///
    /// # Errors
    /// The variant is not hosted by this build.
    pub fn new(variant: Variant, options: RuleOptions) -> Result<AnyGame, String> {
        match variant {
            Variant::Xiangqi => Ok(AnyGame::Xiangqi(xiangqi::Game::new(
                xiangqi::Position::start(),
                xiangqi::GameOptions {
                    no_capture_limit: options.no_capture_limit,
                    repetition: true,
                },
            ))),
            v => Err(format!("variant {} is not hosted yet", v.as_str())),
        }
    }

    /// The variant of this game.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Xiangqi(_) => Variant::Xiangqi,
        }
    }

    /// The seat whose turn it is (also while the game is over: the seat that would move).
    pub fn seat_to_move(&self) -> usize {
        match self {
            AnyGame::Xiangqi(g) => g.position().side_to_move().index(),
        }
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        match self {
            AnyGame::Xiangqi(g) => g.ply(),
        }
    }

    /// Parses a move text of this variant.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text is not a move of this variant.
    pub fn parse_move(&self, text: &str) -> Result<AnyMove, MoveError> {
        match self {
            AnyGame::Xiangqi(_) => text
                .parse::<xiangqi::Move>()
                .map(AnyMove::Xiangqi)
                .map_err(|e| MoveError::Syntax(e.to_string())),
        }
    }

    /// Plays a move for the seat to move, applying the end-of-game rules.
    ///
    /// # Errors
    /// [`MoveError::Illegal`] with the reason; the game is then unchanged.
    pub fn play(&mut self, mv: AnyMove) -> Result<(), MoveError> {
        match (self, mv) {
            (AnyGame::Xiangqi(g), AnyMove::Xiangqi(m)) => g
                .play(m)
                .map(|_| ())
                .map_err(|e| MoveError::Illegal(e.to_string())),
        }
    }

    /// The legal moves of the seat to move as wire texts, sorted bytewise; empty once over.
    pub fn legal_moves(&self) -> Vec<String> {
        match self {
            AnyGame::Xiangqi(g) => {
                if *g.status() != xiangqi::Status::Ongoing {
                    return Vec::new();
                }
                let mut list = g.position().legal_moves();
                list.sort_by_text();
                list.iter().map(|m| m.to_string()).collect()
            }
        }
    }

    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            AnyGame::Xiangqi(g) => match g.status() {
                xiangqi::Status::Ongoing => None,
                xiangqi::Status::Ended(o) => Some(o.clone()),
            },
        }
    }

    /// Ends the game from outside the board (resignation, timeout, agreement, ...).
    pub fn end(&mut self, outcome: Outcome) {
        match self {
            AnyGame::Xiangqi(g) => g.end(outcome),
        }
    }

    /// The board as `seat` may see it (`None`: a spectator). Hidden information (banqi) never
    /// enters a view.
    pub fn view(&self, _seat: Option<usize>) -> BoardView {
        match self {
            AnyGame::Xiangqi(g) => BoardView::Xiangqi {
                fen: g.position().to_string(),
                moves: g.moves().iter().map(|m| m.to_string()).collect(),
            },
        }
    }

    /// The side (or kingdom) a seat plays.
    pub fn seat_winner(&self, seat: usize) -> Winner {
        match self {
            AnyGame::Xiangqi(_) => {
                if seat == 0 {
                    Winner::Red
                } else {
                    Winner::Black
                }
            }
        }
    }

    /// The outcome when `seat` loses by `reason` outside the board (resignation, timeout,
    /// abandonment): in the two-player games the other seat wins.
    pub fn loss_of(&self, seat: usize, reason: EndReason) -> Outcome {
        match self {
            AnyGame::Xiangqi(_) => Outcome::win(self.seat_winner(1 - seat), reason),
        }
    }
}
