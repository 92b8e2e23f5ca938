//! The flip distribution (`spec/banqi.md` §4.1): a flip of an unpinned square reveals each piece
//! `x` of the pool with probability `count(x) / n`, whatever square is flipped. Pearson's
//! chi-square test against the pool's multiset, with a fixed seed for the test generator only
//! (live games seed from the operating system).
//!
//! Critical values of the chi-square distribution at significance 0.001, from the public table of
//! the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.4: 12 degrees of freedom 32.909,
//! 13 degrees of freedom 34.528.

use chuhe_rules::banqi::{Action, Cell, Game, Piece, Pool, Record, Square, Truth, View};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Pearson's statistic of `observed` counts per piece against the expectation `n * weight / total`.
fn chi_square(observed: &[u32; 14], weights: &[f64; 14]) -> f64 {
    let n: f64 = observed.iter().map(|&o| o as f64).sum();
    let total: f64 = weights.iter().sum();
    observed
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w > 0.0)
        .map(|(&o, &w)| {
            let e = n * w / total;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

fn pool_weights(pool: &Pool) -> [f64; 14] {
    let mut w = [0.0; 14];
    for p in Piece::ALL {
        w[p.index()] = pool.count(p) as f64;
    }
    w
}

/// A wrong model, to show the test has power: every piece present in the pool equally likely.
fn uniform_over_present(pool: &Pool) -> [f64; 14] {
    let mut w = [0.0; 14];
    for p in Piece::ALL {
        w[p.index()] = if pool.count(p) > 0 { 1.0 } else { 0.0 };
    }
    w
}

/// Flips `trials` times from `start` (each time from the same position), cycling through its
/// face-down squares, with one seeded generator. Returns the counts per revealed piece.
fn flip_counts(start: &Truth, trials: u32, seed: u64) -> [u32; 14] {
    let squares: Vec<Square> = Square::all()
        .filter(|&s| start.view().cell(s) == Cell::FaceDown)
        .collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut counts = [0u32; 14];
    for i in 0..trials {
        let mut t = start.clone();
        let sq = squares[i as usize % squares.len()];
        match t.play(Action::Flip(sq), &mut rng) {
            Ok(Record::Flip { square, piece }) => {
                assert_eq!(square, sq);
                counts[piece.index()] += 1;
            }
            other => panic!("a flip of a face-down square is never refused: {other:?}"),
        }
    }
    counts
}

#[test]
fn first_flip_follows_the_full_set() {
    let start: Truth = View::start().into();
    let pool = Pool::full();
    let counts = flip_counts(&start, 32_000, 2026);
    let stat = chi_square(&counts, &pool_weights(&pool));
    assert!(
        stat < 34.528,
        "chi-square {stat} with 13 degrees of freedom"
    );
    // Generals are 1 in 32, soldiers 5 in 32: the wrong model is rejected by the same data.
    let wrong = chi_square(&counts, &uniform_over_present(&pool));
    assert!(wrong > 34.528 * 10.0, "wrong model only at {wrong}");
}

#[test]
fn mid_game_flip_follows_the_remaining_multiset() {
    // BQ-11: 23 face-down squares; the pool misses the captured and face-up pieces.
    let view: View = "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPkaaeerhcppp 0"
        .parse()
        .unwrap();
    let pool = *view.pool();
    let counts = flip_counts(&view.into(), 23_000, 7);
    for p in Piece::ALL {
        if pool.count(p) == 0 {
            assert_eq!(counts[p.index()], 0, "{} is not in the pool", p.name());
        }
    }
    let stat = chi_square(&counts, &pool_weights(&pool));
    assert!(
        stat < 32.909,
        "chi-square {stat} with 12 degrees of freedom"
    );
    let wrong = chi_square(&counts, &uniform_over_present(&pool));
    assert!(wrong > 32.909 * 5.0, "wrong model only at {wrong}");
}

/// Through the game type: the first flip of many games, each with its own seeded generator.
#[test]
fn game_flips_follow_the_pool() {
    let mut counts = [0u32; 14];
    for seed in 0..8_000u64 {
        let mut game = Game::with_rng(View::start().into(), StdRng::seed_from_u64(seed));
        let sq = Square::from_index((seed % 32) as usize).unwrap();
        match game.play(Action::Flip(sq)).map(|p| p.record) {
            Ok(Record::Flip { piece, .. }) => {
                counts[piece.index()] += 1;
                // The colour of the first flip is seat 1's; the other colour moves next.
                assert_eq!(game.view().turn(), Some(piece.color().other()));
            }
            other => panic!("{other:?}"),
        }
    }
    let stat = chi_square(&counts, &pool_weights(&Pool::full()));
    assert!(
        stat < 34.528,
        "chi-square {stat} with 13 degrees of freedom"
    );
}

/// A pinned square always reveals its pin; the others draw from the pool without the pins.
#[test]
fn pins_are_revealed_and_never_drawn() {
    let start: Truth = "8/8/8/(K)???4 r kpp 0".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..200 {
        let mut t = start.clone();
        let pinned = t
            .play(Action::Flip("a1".parse().unwrap()), &mut rng)
            .unwrap();
        assert_eq!(pinned.to_string(), "a1=K");
        let mut t = start.clone();
        match t
            .play(Action::Flip("b1".parse().unwrap()), &mut rng)
            .unwrap()
        {
            Record::Flip { piece, .. } => assert!("kp".contains(piece.letter())),
            other => panic!("{other:?}"),
        }
    }
}
