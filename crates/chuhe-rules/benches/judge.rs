//! Benchmarks of the chase detection the engine's search calls on every move
//! ([`chuhe_rules::xiangqi::judge::chased_by`]) and of a whole game with chuhe's end-of-game rules.
//! Each one asserts its count, so a faster but wrong judge fails instead of looking good.
//!
//! `cargo bench -p chuhe-rules --bench judge`. Replaying the 31,064 recorded games is measured by
//! `cargo run --release -p chuhe-rules --example replay_games -- data/games.tsv`
//! (from the repository root).

use chuhe_rules::xiangqi::judge::chased_by;
use chuhe_rules::xiangqi::{Game, GameOptions, Move, Position, Status};
use criterion::{criterion_group, criterion_main, Criterion};

/// Positions with chases about (a middlegame and the worked examples E4, E8, E10 of the spec).
const FENS: [&str; 4] = [
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "4k4/9/n8/9/9/9/2R6/9/9/3K5 w - - 0 1",
    "4ck3/9/9/9/9/2r1R4/9/9/4A4/3AK4 b - - 0 1",
    "5k3/9/9/5C3/5c3/5C3/9/9/5p3/4K4 w - - 0 1",
];

fn bench_judge(c: &mut Criterion) {
    let positions: Vec<(Position, Vec<Move>)> = FENS
        .iter()
        .map(|f| {
            let pos = Position::from_fen(f).expect("valid FEN");
            let moves = pos.legal_moves().to_vec();
            (pos, moves)
        })
        .collect();
    let moves: usize = positions.iter().map(|(_, m)| m.len()).sum();
    let mut group = c.benchmark_group("xiangqi-judge");
    group.bench_function(format!("chased_by on {moves} moves"), |b| {
        b.iter(|| {
            let chased: u32 = positions
                .iter()
                .flat_map(|(pos, list)| list.iter().map(move |&m| chased_by(pos, m).count()))
                .sum();
            assert_eq!(chased, CHASED_TOTAL);
        })
    });
    let e1 = Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1").expect("valid FEN");
    let cycle: Vec<Move> = "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8 e8e9"
        .split(' ')
        .map(|m| m.parse().expect("move"))
        .collect();
    group.bench_function("E1 game to its perpetual-check verdict", |b| {
        b.iter(|| {
            let mut game = Game::new(e1.clone(), GameOptions::default());
            for &m in &cycle {
                game.play(m).expect("legal");
            }
            assert!(matches!(game.status(), Status::Ended(_)));
        })
    });
    group.finish();
}

/// The number of chased pieces summed over every legal move of [`FENS`].
const CHASED_TOTAL: u32 = 14;

criterion_group!(benches, bench_judge);
criterion_main!(benches);
