//! What a seat sees of a board: the view a player or a spectator is sent ([`BoardView`]), the board
//! drawn with its pieces ([`BoardPosition`]), and a game's snapshot for a page that steps through
//! it ([`Snapshot`]).

use super::Seat;
use chuhe_rules::outcome::Side;
use chuhe_rules::{banqi, sanguo, xiangqi};
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
    /// Puts `position` (the board after a change that carried it: a takeback, or a sanguo
    /// defeat) into this view; the move list is not touched ([`BoardView::moves_mut`]).
    ///
    /// # Errors
    /// `position` is of another variant than the view: the view is unchanged.
    pub fn set_position(&mut self, position: &BoardPosition) -> Result<(), String> {
        match (self, position) {
            (BoardView::Xiangqi { fen, .. }, BoardPosition::Xiangqi { fen: next }) => {
                fen.clone_from(next);
            }
            (BoardView::Sanguo { position, .. }, BoardPosition::Sanguo { position: next }) => {
                position.clone_from(next);
            }
            (
                BoardView::Banqi {
                    view,
                    colors,
                    captured,
                    ..
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
            }
            _ => return Err("a board position of another variant".to_owned()),
        }
        Ok(())
    }

    /// The moves played from the start, whatever the variant.
    pub fn moves_mut(&mut self) -> &mut Vec<String> {
        match self {
            BoardView::Xiangqi { moves, .. }
            | BoardView::Sanguo { moves, .. }
            | BoardView::Banqi { moves, .. } => moves,
        }
    }
}

impl BoardView {
    /// Plays `record`, the move `seat` just made (a `moved` event's `move`), on this view by the
    /// rules, as a client does with an update that carries no board (`docs/protocol.md`,
    /// "Updates without the board, 2026-12-04"): xiangqi moves the piece, passes the turn and advances the FEN's
    /// counters; sanguo moves the piece, passes the turn to the next active kingdom and counts
    /// the quiet moves, and a captured General or a kingdom left without a legal move hands its
    /// army to its heir as the rules say; banqi reveals a flip's piece (named by the record),
    /// takes it from the pool, gives the seats their colours at the first flip, and adds a
    /// capture's piece to `captured`. The move list grows by `record`.
    ///
    /// # Errors
    /// The position text does not read, the record is not a move of the variant, or the rules
    /// refuse it there: the view is then unchanged.
    ///
    /// ```
    /// use chuhe_server::variant::{BoardView, Seat};
    ///
    /// let mut board = BoardView::Xiangqi {
    ///     fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1".to_owned(),
    ///     moves: Vec::new(),
    /// };
    /// board.play(Seat::new(0), "h2e2").unwrap();
    /// let BoardView::Xiangqi { fen, moves } = &board else { unreachable!() };
    /// assert_eq!(fen, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
    /// assert_eq!(moves, &["h2e2"]);
    /// ```
    pub fn play(&mut self, seat: Seat, record: &str) -> Result<(), String> {
        match self {
            BoardView::Xiangqi { fen, moves } => {
                let mut position = xiangqi::Position::from_fen(fen).map_err(|e| e.to_string())?;
                let m: xiangqi::Move = record
                    .parse()
                    .map_err(|e: xiangqi::ParseMoveError| e.to_string())?;
                position.play(m).map_err(|e| format!("{record}: {e}"))?;
                *fen = position.to_string();
                moves.push(record.to_owned());
            }
            BoardView::Sanguo { position, moves } => {
                let mut now = sanguo::Position::from_text(position).map_err(|e| e.to_string())?;
                let m: sanguo::Move = record
                    .parse()
                    .map_err(|e: sanguo::ParseMoveError| e.to_string())?;
                now.play(m).map_err(|e| format!("{record}: {e}"))?;
                *position = now.to_string();
                moves.push(record.to_owned());
            }
            BoardView::Banqi {
                view,
                moves,
                colors,
                captured,
            } => {
                let mut now: banqi::View = view
                    .parse()
                    .map_err(|e: banqi::ParsePositionError| e.to_string())?;
                let r: banqi::Record = record
                    .parse()
                    .map_err(|e: banqi::ParseActionError| e.to_string())?;
                now.play_recorded(r).map_err(|e| format!("{record}: {e}"))?;
                if let banqi::Record::Flip { piece, .. } = r {
                    if colors.iter().all(Option::is_none) {
                        let mine = piece.color();
                        for (i, c) in colors.iter_mut().enumerate() {
                            let colour = if i == seat.index() {
                                mine
                            } else {
                                mine.other()
                            };
                            *c = Some(colour.side());
                        }
                    }
                }
                *view = now.to_string();
                *captured = now.captured().to_string();
                moves.push(record.to_owned());
            }
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
