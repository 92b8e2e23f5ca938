//! Mate-in-N positions are solved: `go mate N` (capped at depth 2N + 9) reports exactly
//! `mate N`, and a mate-in-1 move mates.
//!
//! Data: `tests/data/engine-mates.tsv` (columns `id, fen, mate_in, solution`), the mate-in-1, 2
//! and 3 rows of `data/positions.tsv` (from the Chinese Chess Practical Dataset,
//! CC BY 4.0; each checked by Fairy-Stockfish 11.1 there).

use chuhe_engine::search::{Control, Limits, Score, Searcher, Settings};
use chuhe_engine::tt::Table;
use chuhe_rules::xiangqi::{Move, Position};

fn rows() -> Vec<(String, String, i32, String)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/engine-mates.tsv"
    ))
    .expect("tests/data/engine-mates.tsv");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_owned(),
                f[1].to_owned(),
                f[2].parse().unwrap(),
                f[3].to_owned(),
            )
        })
        .collect()
}

#[test]
fn mate_in_n_positions_are_solved() {
    let rows = rows();
    assert_eq!(rows.len(), 120);
    let tt = Table::new(16).unwrap();
    let mut failures = Vec::new();
    for (id, fen, n, _solution) in &rows {
        let pos = Position::from_fen(fen).unwrap();
        tt.clear();
        let ctl = Control::default();
        // `go mate N` with a depth cap: iterate until a mate in at most N moves is proven.
        let limits = Limits {
            mate: Some(*n as u32),
            depth: Some(2 * n + 9),
            ..Limits::default()
        };
        let mut s = Searcher::new(&pos, &[], &tt, &ctl, Settings::default(), limits);
        let out = s.run(&mut |_| {});
        let score = Score::from_internal(out.score);
        if score != Score::Mate(*n) {
            failures.push(format!("{id}: {score:?}, want mate {n}"));
            continue;
        }
        if *n == 1 {
            let mut after = pos.clone();
            let m: Move = out.best.unwrap();
            after.play(m).unwrap();
            if after.has_legal_move() {
                failures.push(format!("{id}: {m} does not mate"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
