//! The tests of [`AnyGame`](super::AnyGame): each variant's moves, views and replays through
//! the one shape.

use super::*;

fn game_at(inner: Inner) -> AnyGame {
    AnyGame {
        inner,
        records: Vec::new(),
        table_end: None,
    }
}

#[test]
fn check_seats_of_xiangqi() {
    let options = xiangqi::GameOptions {
        no_capture_limit: 120,
        repetition: true,
    };
    let at = |fen: &str| {
        let pos: xiangqi::Position = fen.parse().unwrap();
        game_at(Inner::Xiangqi(xiangqi::Game::new(pos, options)))
    };
    // Black's chariot on the e-file checks Red; Red to move.
    assert_eq!(
        at("4k4/9/9/9/4r4/9/9/9/9/4K4 w - - 0 1").check_seats(),
        [Seat(0)]
    );
    // A Red horse checks Black; Black to move.
    assert_eq!(
        at("4k4/9/3N5/9/9/9/9/9/9/3K5 b - - 0 1").check_seats(),
        [Seat(1)]
    );
    // Nobody in check.
    assert!(at("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
        .check_seats()
        .is_empty());
    assert!(AnyGame::new(
        Variant::Xiangqi,
        RuleOptions {
            no_capture_limit: 120,
            flag_bearers: true
        }
    )
    .check_seats()
    .is_empty());
}

#[test]
fn check_seats_of_sanguo_name_every_attacked_kingdom() {
    let at = |text: &str| {
        let pos = sanguo::Position::from_text(text).unwrap();
        game_at(Inner::Sanguo(sanguo::Game::new(pos)))
    };
    // Shu's chariots stand on the e-files of Wu and Wei: both generals are attacked, Wu to
    // move (Shu moved last and is safe).
    let both = "9/4rP4/9/9/4rK4,9/4gP4/4rR4/9/4gK4,9/4bP4/4rR4/9/4bK4 G R - - 0";
    assert_eq!(at(both).check_seats(), [Seat(1), Seat(2)]);
    // Only Wei's.
    let wei = "9/4rP4/9/9/4rK4,9/4gP4/9/9/4gK4,9/4bP4/4rR4/9/4bK4 G R - - 0";
    assert_eq!(at(wei).check_seats(), [Seat(2)]);
    let none = "9/4rP4/9/9/4rK4,9/4gP4/9/9/4gK4,9/4bP4/9/9/4bK4 G R - - 0";
    assert!(at(none).check_seats().is_empty());
    // Facing counts as check (spec/sanguo.md C4-C6): without their soldiers on e4, Wu's and
    // Wei's Generals face each other through the triangle, though no piece attacks them.
    let facing = "9/4rP4/9/9/4rK4,9/9/9/9/4gK4,9/9/9/9/4bK4 G R - - 0";
    let g = at(facing);
    assert_eq!(g.check_seats(), [Seat(1), Seat(2)]);
    let pos = g.as_sanguo().unwrap().position();
    assert!(!pos.is_attacked(Kingdom::Wu) && !pos.is_attacked(Kingdom::Wei));
    assert_eq!(g.general_point(Seat(1)).as_deref(), Some("Ge1"));
}

#[test]
fn table_endings_come_from_the_rules_without_changing_the_game() {
    let options = RuleOptions {
        no_capture_limit: 120,
        flag_bearers: true,
    };
    let xq = AnyGame::new(Variant::Xiangqi, options);
    assert_eq!(
        xq.table_ending(Seat(0), EndReason::Resignation),
        Some((
            Outcome::win(Side::Black, EndReason::Resignation),
            vec![Seat(1)]
        ))
    );
    assert_eq!(
        xq.table_ending(Seat(1), EndReason::Timeout),
        Some((Outcome::win(Side::Red, EndReason::Timeout), vec![Seat(0)]))
    );
    assert_eq!(xq.table_ending(Seat(2), EndReason::Timeout), None);
    assert_eq!(xq.outcome(), None);
    let sg = AnyGame::new(Variant::Sanguo, options);
    let (o, seats) = sg.table_ending(Seat(1), EndReason::Abandonment).unwrap();
    assert_eq!(
        (o.winners, o.reason),
        (vec![Side::Shu, Side::Wei], EndReason::Abandonment)
    );
    assert_eq!(seats, [Seat(0), Seat(2)]);
    // Banqi before the first flip: no colours, the other seat wins.
    let mut bq = AnyGame::new(Variant::Banqi, options);
    assert_eq!(
        bq.table_ending(Seat(0), EndReason::Resignation),
        Some((Outcome::draw(EndReason::Resignation), vec![Seat(1)]))
    );
    bq.play_record("c2=k").unwrap();
    assert_eq!(bq.seat_to_move(), Seat(1));
    assert_eq!(
        bq.table_ending(Seat(0), EndReason::Timeout),
        Some((Outcome::win(Side::Red, EndReason::Timeout), vec![Seat(1)]))
    );
    let (o, seats) = bq.table_ending(Seat(1), EndReason::Timeout).unwrap();
    bq.end(o, seats);
    assert_eq!(bq.winner_seats(), [Seat(0)]);
    assert_eq!(bq.table_ending(Seat(0), EndReason::Timeout), None);
    assert_eq!(
        bq.play(AnyMove::Banqi("flip a1".parse().unwrap()))
            .unwrap_err()
            .to_string(),
        "the game has ended"
    );
}

#[test]
fn banqi_has_no_check_and_counts_captures() {
    let start = AnyGame::new(
        Variant::Banqi,
        RuleOptions {
            no_capture_limit: 120,
            flag_bearers: true,
        },
    );
    assert!(start.check_seats().is_empty());
    let BoardView::Banqi { captured, .. } = start.view(None) else {
        panic!("not banqi");
    };
    assert_eq!(captured, "-");
    // The rules count every piece of the full set that is not on the board as captured.
    let truth: banqi::Truth = "8/3c4/2kKp3/3a4 r - 0".parse().unwrap();
    let mut g = game_at(Inner::Banqi(banqi::Game::new(truth)));
    assert_eq!(
        g.snapshot().captured.as_deref(),
        Some("AAEERRHHCCPPPPPaeerrhhcpppp")
    );
    g.play(AnyMove::Banqi("d2xc2".parse().unwrap())).unwrap();
    let snap = g.snapshot();
    assert_eq!(
        snap.captured.as_deref(),
        Some("AAEERRHHCCPPPPPkaeerrhhcpppp")
    );
    assert!(snap.check.is_empty());
}

#[test]
fn replay_gives_one_snapshot_per_ply_and_refuses_bad_records() {
    let options = RuleOptions {
        no_capture_limit: 120,
        flag_bearers: true,
    };
    // The first 20 plies of CCPD 8087: h3e3 (ply 20) checks Red through the screen on e2.
    let moves: Vec<String> = "c3c4 g6g5 b0c2 h9g7 c2d4 h7h3 h0g2 b9c7 i3i4 c9e7 a0a1 d9e8 \
                              b2c2 a9d9 d4c6 g7f5 f0e1 f5e3 g2e3 h3e3"
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let snaps = AnyGame::replay(Variant::Xiangqi, options, &moves).unwrap();
    assert_eq!(snaps.len(), 21);
    assert_eq!(
        snaps[0].position,
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    );
    assert_eq!(
        snaps[20].position,
        "3rkab1r/4a4/1cn1b4/p1N1p3p/6p2/2P5P/P3c1P2/2C4C1/R3A4/2BAK1B1R w - - 0 11"
    );
    assert_eq!(snaps[20].check, [Seat(0)]);
    assert!(snaps[..20].iter().all(|s| s.check.is_empty()));
    let bad = ["h2e2", "h2e2"].map(str::to_owned);
    assert_eq!(
        AnyGame::replay(Variant::Xiangqi, options, &bad)
            .unwrap_err()
            .to_string(),
        "move 2 (h2e2) does not replay: no piece on the from-square"
    );
}

/// The rules' own texts of the legal moves, sorted as strings, and those that capture: what
/// [`AnyGame::move_keys`] must give, found without the keys.
fn texts_by_the_rules(game: &AnyGame) -> (Vec<String>, Vec<String>) {
    let mut texts: Vec<(String, bool)> = match &game.inner {
        Inner::Xiangqi(g) => g
            .legal_moves()
            .into_iter()
            .map(|m| (m.to_string(), g.position().piece_at(m.to).is_some()))
            .collect(),
        Inner::Sanguo(g) => g
            .legal_moves()
            .into_iter()
            .map(|m| {
                let capture = g.position().piece_at(m.to).is_some();
                (m.text(capture), capture)
            })
            .collect(),
        Inner::Banqi(g) => g
            .legal_moves()
            .into_iter()
            .map(|a| (a.to_string(), matches!(a, banqi::Action::Capture { .. })))
            .collect(),
    };
    texts.sort();
    let captures = texts.iter().filter(|t| t.1).map(|t| t.0.clone()).collect();
    (texts.into_iter().map(|t| t.0).collect(), captures)
}

#[test]
fn move_keys_sort_and_pack_as_the_rules_texts_do() {
    use crate::protocol::{pack_moves, PackedMoves};
    let options = RuleOptions {
        no_capture_limit: 0,
        flag_bearers: false,
    };
    for variant in [Variant::Xiangqi, Variant::Sanguo, Variant::Banqi] {
        let mut game = AnyGame::new(variant, options);
        let (mut positions, mut with_captures) = (0, 0);
        for ply in 0..300_usize {
            let keys = game.move_keys();
            let (texts, captures) = texts_by_the_rules(&game);
            let from_keys: Vec<String> = keys.iter().map(|k| (*k.text()).to_owned()).collect();
            assert_eq!(from_keys, texts, "{variant:?} ply {ply}");
            assert_eq!(game.moves_and_captures(), (texts.clone(), captures.clone()));
            assert_eq!(
                PackedMoves::from_keys(keys.iter().copied()).as_str(),
                pack_moves(&texts),
                "{variant:?} ply {ply}"
            );
            assert_eq!(
                PackedMoves::from_keys(keys.iter().copied().filter(MoveKey::is_capture)).as_str(),
                pack_moves(&captures)
            );
            if texts.is_empty() {
                break;
            }
            positions += 1;
            with_captures += usize::from(!captures.is_empty());
            // A fixed walk through the game: every position's moves differ, no randomness.
            let pick = &texts[(ply * 7919 + 13) % texts.len()];
            let mv = game.parse_move(pick).unwrap();
            game.play(mv).unwrap();
        }
        assert!(positions > 40, "{variant:?}: {positions} positions");
        assert!(
            with_captures > 5,
            "{variant:?}: {with_captures} with captures"
        );
    }
}
