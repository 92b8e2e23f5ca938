//! `POST /api/analysis`: what the rules say about a position given as text, after a few moves.
//! The web client's rules pages draw their diagrams from it, so that no diagram implements a
//! rule: the board view (the shape a table's `state` sends), the seat to move, its legal moves,
//! whether it is in check, and the outcome once the game has ended.
//!
//! No session is needed and nothing is stored. See `docs/protocol.md` ("Analysis").

use crate::edge::extract::JsonBody;
use crate::error::ServerError;
use crate::protocol::ErrorBody;
use crate::protocol::Seat;
use crate::variant::{AnyGame, BoardView, Illegal, MoveError, RuleOptions, Variant};
use axum::Json;
use chuhe_rules::outcome::{Outcome, Side};
use serde::{Deserialize, Serialize};

/// Most moves a request may play before the analysed position.
pub const MAX_MOVES: usize = 200;
/// Longest accepted position text, in bytes.
pub const MAX_POSITION_BYTES: usize = 512;

/// The body of `POST /api/analysis`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalysisRequest {
    /// The game.
    pub variant: Variant,
    /// The position text as `chuhe-rules` reads it (xiangqi FEN; sanguo position text; banqi
    /// view text); `null` or absent: the variant's start position (sanguo with flag bearers).
    #[serde(default)]
    pub position: Option<String>,
    /// Moves to play first, in the variant's live move text (`h2e2`, `Rh3-Rh4`, `c2xc3`,
    /// `flip c2`; a banqi flip may also be given in its recorded form `c2=R` to choose the piece
    /// it reveals). At most [`MAX_MOVES`].
    #[serde(default)]
    pub moves: Vec<String>,
}

/// The answer of `POST /api/analysis`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Analysis {
    /// The board after the moves, as a table's `state` sends it (its `moves` are the records of
    /// the moves played).
    pub board: BoardView,
    /// The seat to move (xiangqi 0 Red, 1 Black; sanguo 0 Shu, 1 Wu, 2 Wei; banqi: seat 0 holds
    /// the colour to move in the given position), `null` once the game has ended.
    pub to_move: Option<Seat>,
    /// The side or kingdom to move (`red`, `black`, `shu`, `wu`, `wei`); `null` once the game has
    /// ended and in banqi before the first flip.
    pub side: Option<Side>,
    /// The legal moves of the seat to move, sorted bytewise; empty once the game has ended.
    pub legal_moves: Vec<String>,
    /// The moves of `legal_moves` that capture a piece, sorted bytewise.
    pub capture_moves: Vec<String>,
    /// Whether the side to move is in check: its General is attacked (sanguo: attacked or
    /// facing another General, `spec/sanguo.md` C3, C4); always `false` in banqi, which has no
    /// check.
    pub in_check: bool,
    /// The points of every General in check, in seat order: the seats of a table's `check`
    /// ([`AnyGame::check_seats`]), so in xiangqi the General of the side to move when `in_check`,
    /// in sanguo possibly a kingdom that is not to move; empty in banqi.
    pub check: Vec<String>,
    /// How the game ended, `null` while it goes on.
    pub outcome: Option<Outcome>,
}

/// The route's handler: reads the body, answers the analysis.
///
/// # Errors
/// `bad_message` for an unreadable body, a bad position text or too many moves; `illegal_move`
/// for a move that does not read or is not legal (`illegal move: e9e7 at ply 2 (general moves
/// one point orthogonally)`).
#[utoipa::path(
    post,
    path = "/api/analysis",
    tag = "analysis",
    operation_id = "analysis",
    request_body = AnalysisRequest,
    responses(
        (status = 200, description = "What the rules say about the position after the moves", body = Analysis),
        (status = 400, description = "`bad_message`: an unreadable body, a bad position text or more than 200 moves", body = ErrorBody),
        (status = 400, description = "`illegal_move`: a move that does not read or is not legal", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn route(
    JsonBody(request): JsonBody<AnalysisRequest>,
) -> Result<Json<Analysis>, ServerError> {
    Ok(Json(analyse(&request)?))
}

/// Loads the position, plays the moves and describes the result.
///
/// # Errors
/// As [`route`].
pub fn analyse(request: &AnalysisRequest) -> Result<Analysis, ServerError> {
    if request.moves.len() > MAX_MOVES {
        return Err(ServerError::BadMessage(format!(
            "at most {MAX_MOVES} moves, got {}",
            request.moves.len()
        )));
    }
    let options = RuleOptions {
        no_capture_limit: chuhe_rules::xiangqi::DEFAULT_NO_CAPTURE_LIMIT,
        flag_bearers: true,
    };
    let mut game = match &request.position {
        None => AnyGame::new(request.variant, options),
        Some(text) if text.len() > MAX_POSITION_BYTES => {
            return Err(ServerError::BadMessage(format!(
                "a position text has at most {MAX_POSITION_BYTES} bytes"
            )))
        }
        Some(text) => AnyGame::from_position(request.variant, text.trim(), options)
            .map_err(|e| ServerError::BadMessage(format!("position: {e}")))?,
    };
    for (i, text) in request.moves.iter().enumerate() {
        let ply = i + 1;
        let why = if game.outcome().is_some() {
            Err(MoveError::Illegal(Illegal::Ended))
        } else if request.variant == Variant::Banqi && text.contains('=') {
            // a recorded flip, which names the piece it reveals
            game.play_record(text)
        } else {
            game.parse_move(text).and_then(|m| game.play(m)).map(drop)
        };
        why.map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
    }
    let outcome = game.outcome();
    let seat = game.seat_to_move();
    // The same check as a table's state (`AnyGame::check_seats`), as General points.
    let checked = game.check_seats();
    let (legal_moves, capture_moves) = game.moves_and_captures();
    Ok(Analysis {
        board: game.view(None),
        to_move: outcome.is_none().then_some(seat),
        side: if outcome.is_none() {
            game.seat_side(seat)
        } else {
            None
        },
        legal_moves,
        capture_moves,
        in_check: checked.contains(&seat),
        check: checked
            .iter()
            .filter_map(|&s| game.general_point(s))
            .collect(),
        outcome,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(variant: Variant, position: &str, moves: &[&str]) -> Result<Analysis, ServerError> {
        analyse(&AnalysisRequest {
            variant,
            position: Some(position.to_owned()),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        })
    }

    /// The targets of the piece on `from`, in the order of the legal moves.
    fn targets(a: &Analysis, from: &str) -> Vec<String> {
        a.legal_moves
            .iter()
            .filter_map(|m| {
                let (f, t) = if m.len() == 4 {
                    (&m[..2], &m[2..])
                } else {
                    m.split_once(['-', 'x'])?
                };
                (f == from).then(|| t.to_owned())
            })
            .collect()
    }

    #[test]
    fn a_horse_with_its_leg_blocked_loses_the_two_targets_beyond_it() {
        // Red horse e4, a Black soldier on its leg e5.
        let blocked = ask(Variant::Xiangqi, "5k3/9/9/9/4p4/4N4/9/9/9/3K5 w", &[]).unwrap();
        assert_eq!(
            targets(&blocked, "e4"),
            ["c3", "c5", "d2", "f2", "g3", "g5"]
        );
        let free = ask(Variant::Xiangqi, "5k3/9/9/9/9/4N4/9/9/9/3K5 w", &[]).unwrap();
        assert_eq!(
            targets(&free, "e4"),
            ["c3", "c5", "d2", "d6", "f2", "f6", "g3", "g5"]
        );
        assert_eq!(free.to_move, Some(Seat::new(0)));
        assert_eq!(free.side, Some(Side::Red));
        assert!(!free.in_check);
        assert_eq!(free.outcome, None);
    }

    #[test]
    fn the_cannon_captures_over_exactly_one_screen() {
        // Red cannon e2, Black chariot e7; a Red soldier on e5 is the screen.
        let screen = ask(Variant::Xiangqi, "5k3/9/4r4/9/4P4/9/9/4C4/9/3K5 w", &[]).unwrap();
        assert_eq!(
            targets(&screen, "e2"),
            ["a2", "b2", "c2", "d2", "e0", "e1", "e3", "e4", "e7", "f2", "g2", "h2", "i2"]
        );
        // the one capture, which the client marks as such
        assert_eq!(screen.capture_moves, ["e2e7"]);
        // The soldier moved aside to d5: the cannon slides up to e6 and captures nothing.
        let open = ask(Variant::Xiangqi, "5k3/9/4r4/9/3P5/9/9/4C4/9/3K5 w", &[]).unwrap();
        assert_eq!(
            targets(&open, "e2"),
            ["a2", "b2", "c2", "d2", "e0", "e1", "e3", "e4", "e5", "e6", "f2", "g2", "h2", "i2"]
        );
        assert!(open.capture_moves.is_empty());
    }

    #[test]
    fn two_screens_are_one_too_many_for_the_cannon() {
        let two = ask(Variant::Xiangqi, "5k3/9/4r4/4P4/4P4/9/9/4C4/9/3K5 w", &[]).unwrap();
        assert_eq!(
            targets(&two, "e2"),
            ["a2", "b2", "c2", "d2", "e0", "e1", "e3", "e4", "f2", "g2", "h2", "i2"]
        );
    }

    #[test]
    fn the_elephant_stays_on_its_side_and_an_eye_blocks_it() {
        // Red elephant c4: a6 and e6 lie over the river; a Black soldier on the eye d3.
        let blocked = ask(Variant::Xiangqi, "5k3/9/9/9/9/2B6/3p5/9/9/3K5 w", &[]).unwrap();
        assert_eq!(targets(&blocked, "c4"), ["a2"]);
        let free = ask(Variant::Xiangqi, "5k3/9/9/9/9/2B6/9/9/9/3K5 w", &[]).unwrap();
        assert_eq!(targets(&free, "c4"), ["a2", "e2"]);
    }

    #[test]
    fn a_general_may_not_step_onto_the_open_file_of_the_other() {
        let open = ask(Variant::Xiangqi, "4k4/9/9/9/9/9/9/9/9/3K5 w", &[]).unwrap();
        assert_eq!(open.legal_moves, ["d0d1"]);
        // spec/xiangqi.md §4: with a piece between them, d0e0 is legal.
        let shut = ask(Variant::Xiangqi, "4k4/9/9/9/9/4n4/9/9/9/3K5 w", &[]).unwrap();
        assert_eq!(shut.legal_moves, ["d0d1", "d0e0"]);
    }

    #[test]
    fn moves_are_played_first_and_check_and_mate_are_reported() {
        // spec/xiangqi.md E15: h0h9 mates.
        let a = ask(
            Variant::Xiangqi,
            "3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 119 70",
            &["h0h9"],
        )
        .unwrap();
        assert_eq!(
            a.board,
            BoardView::Xiangqi {
                fen: "3k3R1/1R7/9/9/9/9/9/9/9/4K4 b - - 120 70".to_owned(),
                moves: vec!["h0h9".to_owned()],
            }
        );
        assert!(a.in_check);
        assert_eq!(a.check, ["d9"]);
        assert_eq!(a.to_move, None);
        assert_eq!(a.side, None);
        assert!(a.legal_moves.is_empty());
        let o = a.outcome.unwrap();
        assert_eq!(o.winners, [Side::Red]);
        assert_eq!(o.reason, chuhe_rules::outcome::EndReason::Checkmate);
        // A check that is not mate.
        let c = ask(Variant::Xiangqi, "4k4/9/9/9/9/9/9/9/9/R2K5 w", &["a0a9"]).unwrap();
        assert!(c.in_check);
        assert_eq!(c.check, ["e9"]);
        assert_eq!(c.to_move, Some(Seat::new(1)));
        assert_eq!(c.legal_moves, ["e9e8"]);
    }

    #[test]
    fn bad_input_gets_a_clear_error() {
        let e = ask(
            Variant::Xiangqi,
            "4k4/9/9/9/9/9/9/9/9/3K5 w",
            &["d0d1", "e9e7"],
        )
        .unwrap_err();
        assert_eq!(
            e,
            ServerError::IllegalMove(
                "e9e7 at ply 2 (general moves one point orthogonally)".to_owned()
            )
        );
        let e = ask(Variant::Xiangqi, "4k4/9/9/9/9/9/9/9/9/3K5 w", &["d0"]).unwrap_err();
        assert!(
            matches!(&e, ServerError::IllegalMove(m) if m.contains(" at ply 1 (")),
            "{e:?}"
        );
        let e = ask(Variant::Xiangqi, "4k4/9/9/9/9/9/9/9/9/4K4 w", &[]).unwrap_err();
        assert_eq!(
            e,
            ServerError::BadMessage(
                "position: invalid position: generals-facing (the generals must not face each other)"
                    .to_owned()
            )
        );
        let e = ask(Variant::Sanguo, "nonsense", &[]).unwrap_err();
        assert!(
            matches!(&e, ServerError::BadMessage(m) if m.starts_with("position: ")),
            "{e:?}"
        );
        let e = ask(Variant::Banqi, &"?".repeat(600), &[]).unwrap_err();
        assert_eq!(
            e,
            ServerError::BadMessage("a position text has at most 512 bytes".to_owned())
        );
        let many = vec!["h2e2"; 201];
        let e = ask(Variant::Xiangqi, xiangqi_start(), &many).unwrap_err();
        assert_eq!(
            e,
            ServerError::BadMessage("at most 200 moves, got 201".to_owned())
        );
        // A move after the end.
        let e = ask(
            Variant::Xiangqi,
            "3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 119 70",
            &["h0h9", "d9e9"],
        )
        .unwrap_err();
        assert_eq!(
            e,
            ServerError::IllegalMove("d9e9 at ply 2 (the game has ended)".to_owned())
        );
    }

    fn xiangqi_start() -> &'static str {
        chuhe_rules::xiangqi::START_FEN
    }

    #[test]
    fn no_position_is_the_start_position() {
        let a = analyse(&AnalysisRequest {
            variant: Variant::Xiangqi,
            position: None,
            moves: vec![],
        })
        .unwrap();
        assert_eq!(a.legal_moves.len(), 44);
        let s = analyse(&AnalysisRequest {
            variant: Variant::Sanguo,
            position: None,
            moves: vec!["Rh3xGb1".to_owned()],
        })
        .unwrap();
        assert_eq!(s.to_move, Some(Seat::new(1)));
        assert_eq!(s.side, Some(Side::Wu));
    }

    #[test]
    fn sanguo_river_joins() {
        // Generals on Rd1 Gd1 Bd1; a Shu chariot on its own tip Re5: along its bank both ways,
        // back home, and down both neighbours' centre files through the triangle.
        let tip = ask(
            Variant::Sanguo,
            "4rR4/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
            &[],
        )
        .unwrap();
        let mut t = targets(&tip, "Re5");
        t.sort();
        let mut want = [
            "Ra5", "Rb5", "Rc5", "Rd5", "Rf5", "Rg5", "Rh5", "Ri5", "Re4", "Re3", "Re2", "Re1",
            "Ge5", "Ge4", "Ge3", "Ge2", "Ge1", "Be5", "Be4", "Be3", "Be2", "Be1",
        ];
        want.sort_unstable();
        assert_eq!(t, want);
        // spec/sanguo.md §4.2: a horse on Rd4 reaches Be5 and Bg5 through its leg Rd5.
        let horse = ask(
            Variant::Sanguo,
            "9/3rH5/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
            &[],
        )
        .unwrap();
        let mut h = targets(&horse, "Rd4");
        h.sort();
        assert_eq!(h, ["Be5", "Bg5", "Rb3", "Rb5", "Rc2", "Re2", "Rf3", "Rf5"]);
        // a Wei soldier on the leg Rd5
        let blocked = ask(
            Variant::Sanguo,
            "3bP5/3rH5/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
            &[],
        )
        .unwrap();
        let mut b = targets(&blocked, "Rd4");
        b.sort();
        assert_eq!(b, ["Rb3", "Rb5", "Rc2", "Re2", "Rf3", "Rf5"]);
        // A soldier on its own tip goes to either neighbouring tip.
        let soldier = ask(
            Variant::Sanguo,
            "4rP4/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
            &[],
        )
        .unwrap();
        assert_eq!(targets(&soldier, "Re5"), ["Be5", "Ge5"]);
        // spec/sanguo.md §4.2: a flag bearer on Rd3.
        let flag = ask(
            Variant::Sanguo,
            "9/9/3rF5/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - F 0",
            &[],
        )
        .unwrap();
        let mut f = targets(&flag, "Rd3");
        f.sort();
        assert_eq!(f, ["Be5", "Bg5", "Ra2", "Ra4", "Rg2", "Rg4"]);
        assert_eq!(blocked.to_move, Some(Seat::new(0)));
        assert_eq!(blocked.side, Some(Side::Shu));
    }

    #[test]
    fn sanguo_check_is_the_tables_check_facing_generals_included() {
        // Wu to move; Wu's and Wei's Generals face each other through the triangle (C4): both
        // are in check, as a table's `check` says ([1, 2]).
        let facing = "9/4rP4/9/9/4rK4,9/9/9/9/4gK4,9/9/9/9/4bK4 G R - - 0";
        let a = ask(Variant::Sanguo, facing, &[]).unwrap();
        assert!(a.in_check);
        assert_eq!(a.check, ["Ge1", "Be1"]);
        // Wei attacked by Shu's chariot while Wu is to move: marked, but Wu is not in check.
        let wei = "9/4rP4/9/9/4rK4,9/4gP4/9/9/4gK4,9/4bP4/4rR4/9/4bK4 G R - - 0";
        let a = ask(Variant::Sanguo, wei, &[]).unwrap();
        assert!(!a.in_check);
        assert_eq!(a.check, ["Be1"]);
    }

    #[test]
    fn banqi_captures_follow_the_ranks() {
        // Red soldier b3 next to Black's general c3; Red general d2 next to a Black soldier d3
        // and a Black advisor e2; Red cannon a1, a face-down screen c1, a Black chariot f1.
        let red = ask(Variant::Banqi, "8/1Pkp4/3Ka3/C1?2r2 r e 0", &[]).unwrap();
        assert_eq!(targets(&red, "b3"), ["a3", "b2", "b4", "c3"]);
        assert_eq!(targets(&red, "d2"), ["c2", "d1", "e2"]);
        assert_eq!(targets(&red, "a1"), ["a2", "b1", "f1"]);
        assert!(red.legal_moves.contains(&"b3xc3".to_owned()));
        assert!(red.legal_moves.contains(&"a1xf1".to_owned()));
        assert!(red.legal_moves.contains(&"flip c1".to_owned()));
        assert_eq!(red.capture_moves, ["a1xf1", "b3xc3", "d2xe2"]);
        assert_eq!(red.to_move, Some(Seat::new(0)));
        assert_eq!(red.side, Some(Side::Red));
        assert!(!red.in_check);
        let black = ask(Variant::Banqi, "8/1Pkp4/3Ka3/C1?2r2 b e 0", &[]).unwrap();
        // Black's general cannot take the soldier on b3; Black's soldier on d3 takes the general.
        assert_eq!(targets(&black, "c3"), ["c2", "c4"]);
        assert_eq!(targets(&black, "d3"), ["d4", "e3", "d2"]);
        // the soldier takes the general: Red has no general left, the game goes on
        let after = ask(Variant::Banqi, "8/1Pkp4/3Ka3/C1?2r2 b e 0", &["d3xd2"]).unwrap();
        match &after.board {
            BoardView::Banqi {
                view,
                moves,
                colors,
                captured,
            } => {
                assert_eq!(view, "8/1Pk5/3pa3/C1?2r2 r e 0");
                // the full set minus the pieces on the board and the face-down black elephant
                assert_eq!(captured, "KAAEERRHHCPPPPaerhhccpppp");
                assert_eq!(moves, &["d3xd2"]);
                assert_eq!(colors, &[Some(Side::Black), Some(Side::Red)]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(after.to_move, Some(Seat::new(1)));
        // a recorded flip chooses the revealed piece
        let flipped = ask(Variant::Banqi, "8/1Pkp4/3Ka3/C1?2r2 r e 0", &["c1=e"]).unwrap();
        match &flipped.board {
            BoardView::Banqi { view, .. } => assert_eq!(view, "8/1Pkp4/3Ka3/C1e2r2 b - 0"),
            other => panic!("{other:?}"),
        }
        let e = ask(Variant::Banqi, "8/1Pkp4/3Ka3/C1?2r2 r e 0", &["c1=R"]).unwrap_err();
        assert!(
            matches!(&e, ServerError::IllegalMove(m) if m.contains(" at ply 1 (")),
            "{e:?}"
        );
    }
}
