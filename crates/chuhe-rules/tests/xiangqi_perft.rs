//! Every row of `tests/data/xiangqi-perft.tsv` (the perft suite) up to a node budget
//! that keeps `cargo test` short; the deeper rows run with `cargo test -- --ignored` and in the
//! benchmarks.

use chuhe_rules::xiangqi::{perft, Position};

/// Rows with more leaves than this run only under `--ignored`.
const NODE_BUDGET: u64 = 5_000_000;

struct Row {
    line: usize,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn rows() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/xiangqi-perft.tsv"
    );
    let text = std::fs::read_to_string(path).expect("tests/data/xiangqi-perft.tsv is readable");
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            cols.len() >= 3,
            "line {}: expected fen, depth, nodes",
            i + 1
        );
        rows.push(Row {
            line: i + 1,
            fen: cols[0].to_owned(),
            depth: cols[1].parse().expect("depth"),
            nodes: cols[2].parse().expect("nodes"),
        });
    }
    assert_eq!(rows.len(), 78, "the suite has 78 rows");
    rows
}

fn check(select: impl Fn(&Row) -> bool) -> usize {
    let mut checked = 0;
    for row in rows().iter().filter(|r| select(r)) {
        let mut pos =
            Position::from_fen(&row.fen).unwrap_or_else(|e| panic!("line {}: {e}", row.line));
        let bulk = perft(&mut pos, row.depth, true);
        assert_eq!(
            bulk, row.nodes,
            "line {}: perft {} of {}",
            row.line, row.depth, row.fen
        );
        assert_eq!(
            pos.to_string(),
            Position::from_fen(&row.fen).unwrap().to_string(),
            "perft restores the position"
        );
        checked += 1;
    }
    checked
}

#[test]
fn perft_suite_within_budget() {
    let n = check(|r| r.nodes <= NODE_BUDGET);
    assert!(n >= 60, "only {n} rows within budget");
}

#[test]
fn make_unmake_at_every_leaf_agrees_with_bulk_counting() {
    for row in rows().iter().filter(|r| r.nodes <= 400_000) {
        let mut pos = Position::from_fen(&row.fen).unwrap();
        assert_eq!(
            perft(&mut pos, row.depth, false),
            row.nodes,
            "line {}",
            row.line
        );
    }
}

#[test]
#[ignore = "deep rows: minutes in a release build; run with cargo test --release -- --ignored"]
fn perft_suite_deep_rows() {
    check(|r| r.nodes > NODE_BUDGET);
}
