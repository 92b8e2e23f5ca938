//! Perft benchmarks for standard xiangqi. Each one asserts its node count, so a faster but wrong
//! move generator fails instead of looking good.
//!
//! `cargo bench -p chuhe-rules --bench perft` runs depth 4 from the start (3,290,240 leaves) in
//! bulk-counting and full make/unmake modes. Depth 5 (133,312,995 leaves, the figure the issue
//! compares with Fairy-Stockfish and Pikafish) is measured by `scripts/bench-perft`, which times
//! `chuhe perft` beside the reference engines in one run.

use chuhe_rules::xiangqi::{perft, Position};
use criterion::{criterion_group, criterion_main, Criterion};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("xiangqi-perft");
    group.sample_size(10);
    group.bench_function("start depth 4 bulk", |b| {
        b.iter(|| {
            let mut pos = Position::start();
            assert_eq!(perft(&mut pos, 4, true), 3_290_240);
        })
    });
    group.bench_function("start depth 4 make-unmake", |b| {
        b.iter(|| {
            let mut pos = Position::start();
            assert_eq!(perft(&mut pos, 4, false), 3_290_240);
        })
    });
    let mut midgame = Position::from_fen(
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    )
    .expect("valid FEN");
    group.bench_function("position 2 depth 4 bulk", |b| {
        b.iter(|| assert_eq!(perft(&mut midgame, 4, true), 1_339_047))
    });
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
