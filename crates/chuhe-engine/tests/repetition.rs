//! The search's repetition verdicts agree with the rules crate's, ply by ply, on the rule cases
//! of `tests/data/xiangqi-repetition.tsv` (perpetual check, perpetual chase, draws).

use chuhe_engine::rules::{Path, Verdict};
use chuhe_rules::outcome::{EndReason, Side};
use chuhe_rules::xiangqi::{Color, Game, GameOptions, Move, Position, Status};

#[test]
fn search_verdicts_match_the_rules() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/xiangqi-repetition.tsv"
    ))
    .expect("tests/data/xiangqi-repetition.tsv");
    let mut ended = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let start = Position::from_fen(f[0]).unwrap();
        let mut game = Game::new(start.clone(), GameOptions::default());
        let mut pos = start.clone();
        let mut path = Path::new(&pos);
        for m in f[1].split_whitespace() {
            let m: Move = m.parse().unwrap();
            if game.play(m).is_err() {
                break;
            }
            path.play(&mut pos, m);
            let ours = path.repetition(&pos, path.last());
            match game.status() {
                Status::Ongoing => assert_eq!(ours, None, "{line}"),
                Status::Ended(o) => {
                    assert!(matches!(
                        o.reason,
                        EndReason::PerpetualCheck
                            | EndReason::PerpetualChase
                            | EndReason::ThreefoldRepetition
                    ));
                    let stm = match pos.side_to_move() {
                        Color::Red => Side::Red,
                        Color::Black => Side::Black,
                    };
                    let want = if o.winners.is_empty() {
                        Verdict::Draw
                    } else if o.winners.contains(&stm) {
                        Verdict::Win
                    } else {
                        Verdict::Loss
                    };
                    assert_eq!(ours, Some(want), "{line}");
                    ended += 1;
                    break;
                }
            }
        }
    }
    assert_eq!(ended, 13);
}
