//! What a seat sees of a board: the view a player or a spectator is sent ([`BoardView`]), the board
//! drawn with its pieces ([`BoardPosition`]), and a game's snapshot for a page that steps through
//! it ([`Snapshot`]).

use super::Seat;
use chuhe_rules::outcome::Side;
use serde::{Deserialize, Serialize};

/// The board as one seat (or a spectator) may see it, tagged by variant on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "variant", rename_all = "lowercase")]
pub enum BoardView {
    /// Standard xiangqi: everything is public.
    Xiangqi {
        /// The position after the last move, as FEN (`spec/xiangqi.md`).
        fen: String,
        /// The moves played from the start, ICCS.
        moves: Vec<String>,
    },
    /// Sanguo: everything is public.
    Sanguo {
        /// The position text of `spec/sanguo.md` §8.2.
        position: String,
        /// The moves played from the start (`Rh3-Rh4`, `Rh3xGb1`).
        moves: Vec<String>,
    },
    /// Banqi: the public view only; face-down pieces are `?` and only the pool of unrevealed
    /// pieces is known.
    Banqi {
        /// The view text of `spec/banqi.md` (board, side to move, pool, quiet count).
        view: String,
        /// The recorded turns from the start (`c2=R` flips with the revealed piece, `c2-c3`,
        /// `c2xc3`).
        moves: Vec<String>,
        /// Per seat, its colour once the first flip decided it.
        colors: Vec<Option<Side>>,
        /// The pieces captured so far, as the rules count them (the full set minus the pieces
        /// face up and face down): the pool text of `spec/banqi.md`, red letters first, each
        /// colour in rank order `K A E R H C P`, `-` when none.
        captured: String,
    },
}

/// The board after a move without its move list: what a live `update` carries (constant size,
/// whatever the ply), tagged by variant on the wire like [`BoardView`]. The receiver replaces the
/// fields of its [`BoardView`] with these and appends the `moved` event's move to its `moves`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "variant", rename_all = "lowercase")]
pub enum BoardPosition {
    /// Standard xiangqi.
    Xiangqi {
        /// The position after the move, as FEN (as [`BoardView::Xiangqi`]).
        fen: String,
    },
    /// Sanguo.
    Sanguo {
        /// The position text after the move (as [`BoardView::Sanguo`]).
        position: String,
    },
    /// Banqi: the public view only.
    Banqi {
        /// The public view text after the move (as [`BoardView::Banqi`]).
        view: String,
        /// Per seat, its colour once the first flip decided it.
        colors: Vec<Option<Side>>,
        /// The pieces captured so far (as [`BoardView::Banqi`]).
        captured: String,
    },
}

impl BoardView {
    /// Puts `position` (the board after `record`, the move just played) into this view.
    ///
    /// # Errors
    /// `position` is of another variant than the view: the view is unchanged.
    pub fn advance(&mut self, record: &str, position: &BoardPosition) -> Result<(), String> {
        match (self, position) {
            (BoardView::Xiangqi { fen, moves }, BoardPosition::Xiangqi { fen: next }) => {
                fen.clone_from(next);
                moves.push(record.to_owned());
            }
            (BoardView::Sanguo { position, moves }, BoardPosition::Sanguo { position: next }) => {
                position.clone_from(next);
                moves.push(record.to_owned());
            }
            (
                BoardView::Banqi {
                    view,
                    moves,
                    colors,
                    captured,
                },
                BoardPosition::Banqi {
                    view: next,
                    colors: next_colors,
                    captured: next_captured,
                },
            ) => {
                view.clone_from(next);
                colors.clone_from(next_colors);
                captured.clone_from(next_captured);
                moves.push(record.to_owned());
            }
            _ => return Err("a board position of another variant".to_owned()),
        }
        Ok(())
    }
}

/// One position of a game's record, as everyone may see it (`GET /api/tables/{id}/positions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Snapshot {
    /// The position text: xiangqi FEN, the sanguo position text, or the banqi public view text.
    pub position: String,
    /// The seats in check in this position (see [`super::AnyGame::check_seats`]).
    pub check: Vec<Seat>,
    /// Banqi: the captured pieces as in [`BoardView::Banqi`]; absent for the other variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<String>,
}
