//! Two independent paths must agree (`DESIGN.md` §9): the generated legal list against
//! `is_legal` over every from/to pair, the incremental Zobrist key against the recomputed one,
//! FEN print → parse → print, and make/unmake restoring the position exactly.

use chuhe_rules::xiangqi::{Move, Position, Square};
use proptest::prelude::*;
use std::collections::HashSet;

/// Plays a pseudo-random game from the start by the choices in `picks` and checks every position
/// on the way.
fn walk(picks: &[u16], check: &mut impl FnMut(&Position)) {
    let mut pos = Position::start();
    check(&pos);
    for &pick in picks {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[pick as usize % moves.len()];
        pos.play(m).expect("a generated move is legal");
        check(&pos);
    }
}

fn legal_list_matches_is_legal(pos: &Position) {
    let generated: HashSet<Move> = pos.legal_moves().iter().copied().collect();
    assert_eq!(
        generated.len(),
        pos.legal_moves().len(),
        "no duplicates in {pos}"
    );
    assert_eq!(
        generated.len(),
        pos.count_legal_moves(),
        "count agrees in {pos}"
    );
    for from in Square::all() {
        for to in Square::all() {
            let m = Move::new(from, to);
            assert_eq!(
                pos.is_legal(m),
                generated.contains(&m),
                "{m} in {pos}: {:?}",
                pos.illegal_reason(m)
            );
        }
    }
}

fn every_move_round_trips(pos: &Position) {
    assert_eq!(pos.key(), pos.compute_key(), "incremental key of {pos}");
    let text = pos.to_string();
    let reparsed = Position::from_fen(&text).expect("printed FEN parses");
    assert_eq!(reparsed.to_string(), text);
    assert_eq!(reparsed.key(), pos.key());
    let mut scratch = pos.clone();
    for &m in &pos.legal_moves() {
        let undo = scratch.play_unchecked(m);
        assert_eq!(
            scratch.key(),
            scratch.compute_key(),
            "key after {m} in {pos}"
        );
        assert!(!scratch.is_check() || scratch.checkers().is_nonempty());
        scratch.undo(m, undo);
        assert_eq!(scratch, *pos, "undo {m}");
        assert_eq!(scratch.key(), pos.key());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_moves_are_exactly_the_legal_ones(picks in prop::collection::vec(any::<u16>(), 0..120)) {
        walk(&picks, &mut legal_list_matches_is_legal);
    }

    #[test]
    fn keys_fen_and_undo_round_trip(picks in prop::collection::vec(any::<u16>(), 0..160)) {
        walk(&picks, &mut every_move_round_trips);
    }

    #[test]
    fn no_text_panics_the_fen_reader(text in ".{0,120}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn fen_like_text_never_panics(text in "[rnbakcpRNBAKCPEHeh1-9/]{0,100}( [wrbxWB])?( - -)?( [0-9]{1,6}){0,2}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn no_move_text_panics(text in ".{0,8}") {
        if let Ok(m) = text.parse::<Move>() {
            let _ = Position::start().illegal_reason(m);
        }
    }
}

/// A game that reaches many captures and checks: positions late in random games are sparse, where
/// the facing-generals and pin rules matter most.
#[test]
fn long_random_games_agree() {
    let mut x: u64 = 0x1234_5678_9abc_def1;
    for _ in 0..30 {
        let picks: Vec<u16> = (0..300)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 16) as u16
            })
            .collect();
        walk(&picks, &mut |p| {
            legal_list_matches_is_legal(p);
            every_move_round_trips(p);
        });
    }
}
