//! Pairing round 5 of a 256-player Swiss event (four rounds of results already in, so the score
//! brackets, colours and rematches are real). Asserts the number of games made.
//!
//! `cargo bench -p chuhe-tournament --bench swiss_round`.

use chuhe_tournament::swiss::{Swiss, SwissResult, SwissSettings};
use chuhe_tournament::{PlayerId, Rating};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const PLAYERS: usize = 256;

fn after_four_rounds() -> Swiss {
    let mut s = Swiss::new(SwissSettings { rounds: 9 });
    for i in 0..PLAYERS {
        s.join(
            PlayerId(format!("p{i:03}")),
            800 + (i * 7919 % 1600) as Rating,
        )
        .expect("before the first round");
    }
    for round in 0..4 {
        let r = s.pair_round().expect("a round");
        for (n, g) in r.games.iter().enumerate() {
            let result = match (n + round) % 5 {
                0 | 1 => SwissResult::RedWon,
                2 | 3 => SwissResult::BlackWon,
                _ => SwissResult::Draw,
            };
            s.record_result(g.id, result).expect("a game of the round");
        }
    }
    s
}

fn bench_round(c: &mut Criterion) {
    let start = after_four_rounds();
    let mut group = c.benchmark_group("swiss-round");
    group.sample_size(20);
    group.bench_function("pair round 5 of 256 players", |b| {
        b.iter_batched(
            || start.clone(),
            |mut s| {
                let r = s.pair_round().expect("round 5");
                assert_eq!(r.games.len(), PLAYERS / 2);
                r.games.len()
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench_round);
criterion_main!(benches);
