//! The search's repetition verdicts agree with the rules crate's `Game`, ply by ply, on the rule
//! cases of `tests/data/xiangqi-repetition.tsv` (perpetual check, perpetual chase, draws) and on
//! the worked examples and clause cases of `tests/data/xiangqi-judge.tsv` (`spec/xiangqi.md` §6).
//!
//! Both sides call the same verdict (`chuhe_rules::xiangqi::judge`); what this checks is the
//! search's own part: which positions it keeps on its path, where a capture cuts it, which
//! window it judges at a third occurrence, and from whose view it reports the verdict.

use chuhe_engine::rules::{Path, Verdict};
use chuhe_rules::outcome::{EndReason, Side};
use chuhe_rules::xiangqi::{Color, Game, GameOptions, Move, Position, Status};

/// The rows of a TSV file under `tests/data/` (header, blank and `#` lines skipped).
fn rows(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// Replays `moves` from `fen` through `Game` and through the search's [`Path`] (judged as game
/// history, root at the last position) and checks that both agree at every ply. Returns whether
/// the game ended by a repetition rule.
fn agree(label: &str, fen: &str, moves: &str, options: GameOptions) -> bool {
    let start = Position::from_fen(fen).unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut game = Game::new(start.clone(), options);
    let mut pos = start;
    let mut path = Path::new(&pos);
    for m in moves.split_whitespace() {
        let m: Move = m.parse().unwrap_or_else(|e| panic!("{label}: {m}: {e}"));
        if game.play(m).is_err() {
            return false;
        }
        path.play(&mut pos, m);
        let ours = path.repetition(&pos, path.last());
        match game.status() {
            Status::Ongoing => assert_eq!(ours, None, "{label}"),
            Status::Ended(o) => {
                if !matches!(
                    o.reason,
                    EndReason::PerpetualCheck
                        | EndReason::PerpetualChase
                        | EndReason::ThreefoldRepetition
                ) {
                    return false;
                }
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
                assert_eq!(ours, Some(want), "{label}");
                return true;
            }
        }
    }
    false
}

#[test]
fn search_verdicts_match_the_rules() {
    let mut ended = 0;
    for f in rows("xiangqi-repetition.tsv") {
        ended += usize::from(agree(&f.join(" | "), &f[0], &f[1], GameOptions::default()));
    }
    assert_eq!(ended, 13);
}

#[test]
fn search_verdicts_match_the_worked_examples() {
    let mut ended = 0;
    for f in rows("xiangqi-judge.tsv") {
        let mut options = GameOptions::default();
        if let Some(v) = f[3].strip_prefix("no_capture_limit=") {
            options.no_capture_limit = v.parse().expect("plies");
        }
        ended += usize::from(agree(
            &format!("{} ({})", f[0], f[7]),
            &f[1],
            &f[2],
            options,
        ));
    }
    assert_eq!(
        ended, 31,
        "rows of xiangqi-judge.tsv that end by a repetition rule"
    );
}
