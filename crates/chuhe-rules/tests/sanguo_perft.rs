//! Perft from the two start positions (`spec/sanguo.md` §7, `cases/sanguo.md` TK-01): depths 1–3
//! by bulk counting and by playing every leaf, and the generic perft of `chuhe_rules::perft`.

use chuhe_rules::perft::perft as generic_perft;
use chuhe_rules::sanguo::{perft, Position};

#[test]
fn perft_from_the_start_without_flag_bearers() {
    let pos = Position::start(false);
    for (depth, nodes) in [(1, 44), (2, 1_928), (3, 84_128)] {
        assert_eq!(perft(&pos, depth, true), nodes, "depth {depth}");
    }
}

#[test]
fn perft_from_the_start_with_flag_bearers() {
    let pos = Position::start(true);
    for (depth, nodes) in [(1, 40), (2, 1_588), (3, 62_560)] {
        assert_eq!(perft(&pos, depth, true), nodes, "depth {depth}");
    }
}

#[test]
fn bulk_counting_full_play_and_generic_perft_agree() {
    for flags in [false, true] {
        let pos = Position::start(flags);
        let bulk = perft(&pos, 3, true);
        assert_eq!(perft(&pos, 3, false), bulk);
        assert_eq!(generic_perft(&mut pos.clone(), 3, false), bulk);
    }
}

/// Depth 4 of `spec/sanguo.md` §7 (one independent computation there; this one agrees).
#[test]
fn perft_depth_4_from_both_starts() {
    assert_eq!(perft(&Position::start(true), 4, true), 2_495_006);
    assert_eq!(perft(&Position::start(false), 4, true), 3_496_313);
}
