//! One pairing wave of an arena with 1,000 free players (issue 28: "well under a second on one
//! core"), and the same for the sanguo arena. Each asserts how many games it made, so a faster
//! but wrong pairing fails instead of looking good.
//!
//! `cargo bench -p chuhe-tournament --bench arena_wave`.

use chuhe_tournament::arena::{Arena, ArenaSettings, GameEnd};
use chuhe_tournament::sanguo::SanguoArena;
use chuhe_tournament::{PlayerId, Rating, Side};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const PLAYERS: usize = 1000;

/// 1,000 players with spread ratings, after one wave whose games all ended (so scores, colours
/// and last opponents vary), all free again.
fn arena() -> Arena {
    let mut a = Arena::new(ArenaSettings::default());
    for i in 0..PLAYERS {
        a.join(
            PlayerId(format!("p{i:04}")),
            800 + (i * 7919 % 1600) as Rating,
        );
    }
    let games = a.pair_wave();
    assert_eq!(games.len(), PLAYERS / 2);
    for (n, g) in games.iter().enumerate() {
        let winner = [Some(Side::Red), Some(Side::Black), None][n % 3];
        let end = GameEnd {
            winner,
            plies: 50,
            red_berserk: n % 5 == 0,
            black_berserk: false,
        };
        a.record_result(g.id, end).expect("a game of this wave");
    }
    a
}

fn sanguo() -> SanguoArena {
    let mut a = SanguoArena::new();
    for i in 0..PLAYERS {
        a.join(
            PlayerId(format!("p{i:04}")),
            800 + (i * 7919 % 1600) as Rating,
        );
    }
    a
}

fn bench_waves(c: &mut Criterion) {
    let mut group = c.benchmark_group("arena-wave");
    let start = arena();
    group.bench_function("pair 1000 free players", |b| {
        b.iter_batched(
            || start.clone(),
            |mut a| {
                let games = a.pair_wave();
                assert_eq!(games.len(), PLAYERS / 2);
                games.len()
            },
            BatchSize::LargeInput,
        )
    });
    let start = sanguo();
    group.bench_function("seat 1000 free sanguo players", |b| {
        b.iter_batched(
            || start.clone(),
            |mut a| {
                let games = a.pair_wave();
                assert_eq!(games.len(), PLAYERS / 3);
                games.len()
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench_waves);
criterion_main!(benches);
