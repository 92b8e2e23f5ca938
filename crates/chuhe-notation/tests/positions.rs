//! `data/positions.tsv` (the test positions of the real game records): every position loads,
//! its solution line replays, and the mate and stalemate claims hold on the final board.

use chuhe_notation::replay::{replay, ReplayOptions};
use chuhe_rules::outcome::EndReason;
use chuhe_rules::xiangqi::Position;

fn is_mate(pos: &Position) -> bool {
    !pos.has_legal_move() && pos.is_check()
}

#[test]
fn claims_hold_on_the_final_boards() {
    let path = format!("{}/../../data/positions.tsv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let records = chuhe_notation::tsv::read(&text).expect("games TSV layout");
    assert_eq!(records.len(), 200);
    let mut checked = [0usize; 5]; // mate-in-N, stalemate-in-1, terminal mate, terminal stalemate, others
    for rec in &records {
        let id = &rec.id;
        let r = replay(rec, ReplayOptions::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let kind = rec.tag("kind").expect("kind");
        let mover = r.start.side_to_move();
        let expected = rec.tag("expected_result").expect("expected_result");
        let winner_of = |won_by_mover: bool| {
            let red_won = (mover == chuhe_rules::xiangqi::Color::Red) == won_by_mover;
            if red_won {
                "1-0"
            } else {
                "0-1"
            }
        };
        let end = r.board_end.as_ref().map(|o| o.reason);
        match kind {
            k if k.starts_with("mate-in-") => {
                let n: usize = rec
                    .tag("mate_in")
                    .expect("mate_in")
                    .parse()
                    .expect("number");
                assert_eq!(end, Some(EndReason::Checkmate), "{id}: line ends in mate");
                // The side to move mates; mates in 1-3 were played exactly in 2N-1 plies.
                assert_eq!(r.moves.len() % 2, 1, "{id}");
                if n <= 3 {
                    assert_eq!(r.moves.len(), 2 * n - 1, "{id}");
                }
                assert_eq!(expected, winner_of(true), "{id}");
                if n == 1 {
                    let notes = rec.tag("notes").expect("notes");
                    let count: usize = notes
                        .trim_start_matches("mating moves in position: ")
                        .parse()
                        .expect("count");
                    let mating = r
                        .start
                        .legal_moves()
                        .iter()
                        .filter(|&&m| {
                            let mut p = r.start.clone();
                            p.play_unchecked(m);
                            is_mate(&p)
                        })
                        .count();
                    assert_eq!(mating, count, "{id}: mating moves");
                }
                checked[0] += 1;
            }
            "stalemate-in-1" => {
                assert_eq!(r.moves.len(), 1, "{id}");
                assert_eq!(end, Some(EndReason::Stalemate), "{id}");
                assert_eq!(expected, winner_of(true), "{id}");
                checked[1] += 1;
            }
            "terminal-checkmate" | "terminal-stalemate" => {
                assert!(r.moves.is_empty(), "{id}");
                let want = if kind == "terminal-checkmate" {
                    EndReason::Checkmate
                } else {
                    EndReason::Stalemate
                };
                assert_eq!(end, Some(want), "{id}");
                assert_eq!(expected, winner_of(false), "{id}");
                checked[if kind == "terminal-checkmate" { 2 } else { 3 }] += 1;
            }
            _ => checked[4] += 1,
        }
    }
    assert_eq!(checked, [126, 8, 15, 8, 43]);
}
