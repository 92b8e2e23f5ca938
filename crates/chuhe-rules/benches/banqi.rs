//! Banqi benchmarks. Each asserts what it computed (an action count, a ply signature), so a faster
//! but wrong rule fails instead of looking good.
//!
//! `cargo bench -p chuhe-rules --bench banqi`:
//! - `legal actions BQ-11`: the 24 legal actions of the BQ-11 view, sorted by text;
//! - `check every request`: the single-action check on all 2,080 requests a seat could send (25
//!   pass: the 24 legal actions, and `e4xe3`, the other spelling of the step `e4-e3`);
//! - `playouts`: 100 games from the start with seeded reveals and a seeded uniform choice of
//!   legal action, played to their end (the total ply count is the signature).

use chuhe_rules::banqi::{Action, Game, Square, Status, View};
use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Total plies of `games` seeded random games.
fn playouts(games: u64) -> usize {
    let mut plies = 0;
    for seed in 0..games {
        let mut pick = StdRng::seed_from_u64(seed);
        let mut game = Game::with_rng(View::start().into(), StdRng::seed_from_u64(!seed));
        while *game.status() == Status::Ongoing {
            let actions = game.legal_moves();
            let a = actions[pick.random_range(0..actions.len())];
            game.play(a).expect("legal");
        }
        plies += game.ply();
    }
    plies
}

fn bench_banqi(c: &mut Criterion) {
    let mut group = c.benchmark_group("banqi");
    let view: View = "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPkaaeerhcppp 0"
        .parse()
        .expect("valid view");
    group.bench_function("legal actions BQ-11", |b| {
        b.iter(|| assert_eq!(view.legal_actions().len(), 24))
    });
    let requests: Vec<Action> = Square::all()
        .flat_map(|from| {
            std::iter::once(Action::Flip(from)).chain(
                Square::all()
                    .flat_map(move |to| [Action::Move { from, to }, Action::Capture { from, to }]),
            )
        })
        .collect();
    group.bench_function("check every request", |b| {
        b.iter(|| {
            assert_eq!(requests.len(), 2_080);
            assert_eq!(requests.iter().filter(|&&a| view.is_legal(a)).count(), 25);
        })
    });
    group.sample_size(10);
    group.bench_function("playouts", |b| b.iter(|| assert_eq!(playouts(100), 31_855)));
    group.finish();
}

criterion_group!(benches, bench_banqi);
criterion_main!(benches);
