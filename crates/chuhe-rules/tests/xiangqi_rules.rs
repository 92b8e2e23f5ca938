//! The rules of `spec/xiangqi.md` §3–§5 by example: validation kinds (all reported together),
//! the consequences §4 names, illegal-move reasons, and the FEN examples.

use chuhe_rules::xiangqi::{IllegalReason, Kind, Move, Position, ValidationKind};

fn kinds(fen: &str) -> Vec<ValidationKind> {
    match Position::from_fen(fen) {
        Err(chuhe_rules::xiangqi::ParseFenError::Invalid(e)) => e.kinds,
        other => panic!("{fen}: expected a validation error, got {other:?}"),
    }
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

#[test]
fn every_validation_kind_of_the_spec() {
    use ValidationKind::*;
    for (fen, kind) in [
        ("9/9/9/9/9/9/9/9/9/4K4 w", GeneralCount),
        ("3k5/9/9/9/9/9/9/9/9/RRR1K4 w", PieceCount),
        ("k8/9/9/9/9/9/9/9/9/4K4 w", GeneralOutsidePalace),
        ("4k4/9/9/9/9/9/9/9/9/3KA4 w", AdvisorSquare),
        ("4k4/9/9/9/2B6/9/9/9/9/3K5 w", ElephantSquare),
        ("4k4/9/9/9/9/9/1P7/9/9/3K5 w", SoldierSquare),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", GeneralsFacing),
        ("4k4/4R4/9/9/9/9/9/9/9/3K5 w", OpponentInCheck),
    ] {
        assert_eq!(kinds(fen), vec![kind], "{fen}");
        assert_eq!(
            Position::from_fen(fen).unwrap_err().kind_str(),
            kind.as_str()
        );
    }
    // The example that fails with Red to move is valid with Black to move.
    assert!(Position::from_fen("4k4/4R4/9/9/9/9/9/9/9/3K5 b").is_ok());
}

#[test]
fn all_failing_kinds_are_reported_in_order() {
    use ValidationKind::*;
    // Two red generals (e0 and d1), an advisor off its points (i0), a soldier on its back rank
    // (a0), the generals e0 and e9 facing on an open file, and Black in check from the chariot on a9.
    let fen = "R3k4/9/9/9/9/9/9/9/3K5/P3K3A w";
    assert_eq!(
        kinds(fen),
        vec![
            GeneralCount,
            AdvisorSquare,
            SoldierSquare,
            GeneralsFacing,
            OpponentInCheck
        ]
    );
    let e = Position::from_fen(fen).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid position: general-count (each side must have exactly one general); also advisor-square, \
         soldier-square, generals-facing, opponent-in-check"
    );
    assert_eq!(kinds("4k4/9/9/9/9/9/9/9/9/4K4 w"), vec![GeneralsFacing]);
    assert_eq!(
        kinds("3aka3/9/9/9/9/9/9/9/P3P4/3K1PPPP w"),
        vec![PieceCount, SoldierSquare]
    );
    assert_eq!(kinds("4k4/9/9/4b4/9/9/9/9/9/3K5 w"), vec![ElephantSquare]);
}

#[test]
fn valid_edge_positions() {
    // Over at ply 0 but valid (§5.4): no legal move, and a halfmove counter at the limit.
    assert!(Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b")
        .unwrap()
        .legal_moves()
        .is_empty());
    assert!(Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 120 60").is_ok());
}

#[test]
fn consequences_named_by_section_4() {
    // A general may step onto the other general's file when a piece stands between.
    let pos = Position::from_fen("4k4/9/9/9/9/4n4/9/9/9/3K5 w").unwrap();
    assert!(pos.is_legal(mv("d0e0")));
    // Without the piece it may not.
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("d0e0")),
        Some(IllegalReason::GeneralsFacing)
    );
    // The only piece between the generals is pinned to the file: a horse there cannot move.
    let pos = Position::from_fen("4k4/9/9/9/4N4/9/9/9/9/4K4 w").unwrap();
    assert!(pos.legal_moves().iter().all(|m| m.from.to_string() != "e5"));
    assert_eq!(
        pos.illegal_reason(mv("e5d7")),
        Some(IllegalReason::GeneralsFacing)
    );
    // A cannon there can move along the file only (a chariot there would be giving check).
    let pos = Position::from_fen("4k4/9/9/9/4C4/9/9/9/9/4K4 w").unwrap();
    let chariot: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from.to_string() == "e5")
        .map(|m| m.to_string())
        .collect();
    assert_eq!(chariot.len(), 7, "{chariot:?}");
    assert!(chariot.iter().all(|m| m.as_bytes()[2] == b'e'));
}

#[test]
fn illegal_move_reasons() {
    let start = Position::start();
    for (m, reason) in [
        ("e4e5", IllegalReason::NoPiece),
        ("h7e7", IllegalReason::NotYourPiece),
        ("a0a3", IllegalReason::OwnPieceOnTarget),
        ("e0e2", IllegalReason::BadShape(Kind::General)),
        ("d0d1", IllegalReason::BadShape(Kind::Advisor)),
        ("c0e1", IllegalReason::BadShape(Kind::Elephant)),
        ("b0b1", IllegalReason::BadShape(Kind::Horse)),
        ("a0b1", IllegalReason::BadShape(Kind::Chariot)),
        ("h2h7", IllegalReason::CannonNeedsScreen),
        ("h2h8", IllegalReason::PathBlocked(Kind::Cannon)),
        ("a0a5", IllegalReason::PathBlocked(Kind::Chariot)),
        ("a3b3", IllegalReason::SoldierSidewaysBeforeRiver),
        ("a3a2", IllegalReason::SoldierBackward),
        ("a3a5", IllegalReason::BadShape(Kind::Soldier)),
    ] {
        assert_eq!(start.illegal_reason(mv(m)), Some(reason), "{m}");
    }
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/4KN3 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("e1d2")),
        Some(IllegalReason::GeneralsFacing)
    );
    assert_eq!(pos.illegal_reason(mv("f0g2")), None);
    let pos = Position::from_fen("4k4/9/9/9/9/2B6/9/9/9/3K5 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("c4e6")),
        Some(IllegalReason::ElephantCrossesRiver)
    );
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/1N7/2BK5 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("c0a2")),
        Some(IllegalReason::ElephantEyeBlocked)
    );
    assert_eq!(pos.illegal_reason(mv("c0e2")), None);
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/1R7/1N1K5 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("b0c2")),
        Some(IllegalReason::HorseLegBlocked)
    );
    assert_eq!(pos.illegal_reason(mv("b0d1")), None);
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R2AK4 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("a0e0")),
        Some(IllegalReason::OwnPieceOnTarget)
    );
    assert_eq!(
        pos.illegal_reason(mv("a0f0")),
        Some(IllegalReason::PathBlocked(Kind::Chariot))
    );
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4r4/3K5 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("d0e0")),
        Some(IllegalReason::LeavesGeneralInCheck)
    );
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/3A5/9/4K4 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("d2c3")),
        Some(IllegalReason::LeavesPalace(Kind::Advisor))
    );
    assert_eq!(
        pos.illegal_reason(mv("d2e3")),
        Some(IllegalReason::LeavesPalace(Kind::Advisor))
    );
    assert_eq!(pos.illegal_reason(mv("d2e1")), None);
    assert_eq!(pos.illegal_reason(mv("e0e1")), None);
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/5K3 w").unwrap();
    assert_eq!(
        pos.illegal_reason(mv("f0g0")),
        Some(IllegalReason::LeavesPalace(Kind::General))
    );
    assert_eq!(
        IllegalReason::CannonNeedsScreen.to_string(),
        "cannon needs exactly one screen to capture"
    );
}

#[test]
fn check_and_checkers() {
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/4c4/9/2n1K4 w").unwrap();
    assert!(!pos.is_check(), "a cannon without a screen does not check");
    let pos = Position::from_fen("4k4/9/9/9/9/9/4c4/4p4/9/4K4 w").unwrap();
    assert!(pos.is_check());
    assert_eq!(
        pos.checkers().map(|s| s.to_string()).collect::<Vec<_>>(),
        vec!["e3"]
    );
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/4n4/9/3K5 w").unwrap();
    assert!(
        pos.is_check(),
        "horse on e2 attacks d0 with its leg e1 empty"
    );
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/4n4/4A4/3K5 w").unwrap();
    assert!(!pos.is_check(), "horse leg e1 blocked");
}

#[test]
fn the_fen_example_of_5_1() {
    let mut pos = Position::start();
    pos.play(mv("h2e2")).unwrap();
    pos.play(mv("h9g7")).unwrap();
    assert_eq!(
        pos.to_string(),
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    );
}
