//! Perft benchmarks for Three Kingdoms xiangqi. Each one asserts its node count
//! (`spec/sanguo.md` §7), so a faster but wrong move generator fails instead of looking good.
//!
//! `cargo bench -p chuhe-rules --bench sanguo_perft` runs depth 4 from both start positions
//! (2,495,006 leaves with flag bearers, 3,496,313 without) in bulk-counting and full-play modes.

use chuhe_rules::sanguo::{perft, Position};
use criterion::{criterion_group, criterion_main, Criterion};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("sanguo-perft");
    group.sample_size(10);
    for (flags, nodes) in [(true, 2_495_006), (false, 3_496_313)] {
        let name = if flags { "flags on" } else { "flags off" };
        let start = Position::start(flags);
        group.bench_function(format!("start depth 4 bulk, {name}"), |b| {
            b.iter(|| assert_eq!(perft(&start, 4, true), nodes))
        });
        group.bench_function(format!("start depth 4 full play, {name}"), |b| {
            b.iter(|| assert_eq!(perft(&start, 4, false), nodes))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
