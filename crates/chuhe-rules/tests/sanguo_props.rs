//! Properties of the sanguo rules, each comparing two independent paths (`DESIGN.md` 9):
//! the board graph against the spec's invariants, rotation symmetry (§2.4), the legal list
//! against `is_legal`, the reverse attack tables against forward move generation, text round
//! trips, and no panic on any position or move text.

use chuhe_rules::sanguo::{
    graph, Game, Kind, Kingdom, Move, Piece, Point, Position, Setup, START_TEXT,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn pt(name: &str) -> Point {
    name.parse().expect("a point name")
}

#[test]
fn graph_invariants() {
    let g = graph();
    assert_eq!(Point::all().count(), 135);
    assert_eq!(g.edges().len(), 243);
    let mut degrees = BTreeMap::new();
    for p in Point::all() {
        *degrees.entry(g.neighbours(p).len()).or_insert(0) += 1;
        // Edges are symmetric and never loops.
        for &n in g.neighbours(p) {
            assert!(g.neighbours(n).contains(&p) && n != p, "{p} {n}");
        }
    }
    assert_eq!(degrees, BTreeMap::from([(2, 6), (3, 45), (4, 81), (5, 3)]));
    let corners: Vec<String> = Point::all()
        .filter(|&p| g.neighbours(p).len() == 2)
        .map(|p| p.to_string())
        .collect();
    assert_eq!(corners, ["Ra1", "Ri1", "Ga1", "Gi1", "Ba1", "Bi1"]);
    let mut tip: Vec<String> = g
        .neighbours(pt("Re5"))
        .iter()
        .map(|p| p.to_string())
        .collect();
    tip.sort();
    assert_eq!(tip, ["Be5", "Ge5", "Rd5", "Re4", "Rf5"]);
    let quads = g.cells().iter().filter(|c| c.len() == 4).count();
    let triangles = g.cells().iter().filter(|c| c.len() == 3).count();
    assert_eq!((quads, triangles), (108, 1));
    // Every side of every cell is an edge; every edge lies on one or two cells.
    let mut sides = BTreeMap::new();
    for c in g.cells() {
        for i in 0..c.len() {
            let (a, b) = (c[i], c[(i + 1) % c.len()]);
            assert!(g.neighbours(a).contains(&b), "{a} {b}");
            *sides.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    assert_eq!(sides.len(), 243);
    assert!(sides.values().all(|&n| n == 1 || n == 2));
    // 135 − 243 + (108 + 1 + 1) = 2.
    assert_eq!(135 + quads + triangles + 1, 243 + 2);
}

#[test]
fn rays_of_the_spec() {
    let g = graph();
    let names = |p: &str| -> Vec<String> {
        g.rays(pt(p))
            .iter()
            .map(|r| {
                r.points()
                    .iter()
                    .map(|q| q.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let from_e1 = names("Re1");
    assert!(from_e1.contains(&"Re2 Re3 Re4 Re5 Ge5 Ge4 Ge3 Ge2 Ge1".to_owned()));
    assert!(from_e1.contains(&"Re2 Re3 Re4 Re5 Be5 Be4 Be3 Be2 Be1".to_owned()));
    assert!(names("Rh1").contains(&"Rh2 Rh3 Rh4 Rh5 Gb5 Gb4 Gb3 Gb2 Gb1".to_owned()));
    let mut tip = names("Re5");
    tip.sort();
    assert_eq!(
        tip,
        [
            "Be5 Be4 Be3 Be2 Be1",
            "Ge5 Ge4 Ge3 Ge2 Ge1",
            "Rd5 Rc5 Rb5 Ra5",
            "Re4 Re3 Re2 Re1",
            "Rf5 Rg5 Rh5 Ri5"
        ]
    );
    for p in Point::all() {
        for r in g.rays(p) {
            assert!(r.points().len() <= 9);
            // Lines are symmetric: p lies on a ray from every point of a ray from p, with the
            // same points between.
            for (i, &q) in r.points().iter().enumerate() {
                let mut back: Vec<Point> = r.points()[..i].iter().rev().copied().collect();
                back.push(p);
                assert!(
                    g.rays(q).iter().any(|s| s.points().starts_with(&back)),
                    "{p} -> {q}"
                );
            }
        }
    }
}

#[test]
fn rotation_is_a_symmetry_of_the_tables() {
    let g = graph();
    for p in Point::all() {
        let rot = |v: &[Point]| -> Vec<Point> { v.iter().map(|q| q.rotated()).collect() };
        assert_eq!(rot(g.neighbours(p)).len(), g.neighbours(p.rotated()).len());
        let mut a = rot(g.neighbours(p));
        let mut b = g.neighbours(p.rotated()).to_vec();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{p}");
        let mut h: Vec<(Point, Point)> = g
            .horse(p)
            .iter()
            .map(|&(l, t)| (l.rotated(), t.rotated()))
            .collect();
        let mut h2 = g.horse(p.rotated()).to_vec();
        h.sort();
        h2.sort();
        assert_eq!(h, h2, "{p}");
    }
}

/// A position reached by random legal play from a start position.
fn played() -> impl Strategy<Value = Position> {
    (any::<bool>(), prop::collection::vec(any::<u16>(), 0..80)).prop_map(|(flags, picks)| {
        let mut pos = Position::start(flags);
        for pick in picks {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[pick as usize % moves.len()]);
        }
        pos
    })
}

/// A sparse position: generals in their palaces, a few random pieces with random owners and
/// origins; `None` when it breaks a rule of §8.2.
fn sparse() -> impl Strategy<Value = Option<Position>> {
    (
        0usize..4,
        prop::collection::vec(0u8..9, 3),
        prop::collection::vec((0usize..8, 0usize..135, 0usize..3, 0usize..3), 0..24),
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(gone, palace, pieces, side, flags)| {
            let mut s = Setup::empty(flags);
            for k in Kingdom::ALL {
                s.defeated[k.index()] = gone == k.index();
                if !s.defeated[k.index()] {
                    let i = palace[k.index()];
                    let p = Point::new(k, 3 + i % 3, 1 + i / 3);
                    s.board[p.index()] = Some(Piece::new(Kind::General, k));
                }
            }
            for (kind, at, owner, origin) in pieces {
                let owner = Kingdom::ALL[owner];
                if s.defeated[owner.index()] || s.board[at].is_some() {
                    continue;
                }
                let (kind, origin) = (Kind::ALL[1 + kind % 7], Kingdom::ALL[origin]);
                // Advisors and elephants go to a point of their origin half, so that most
                // positions are valid.
                let home: Vec<Point> = Point::all()
                    .filter(|p| p.half() == origin)
                    .filter(|p| match kind {
                        Kind::Advisor => p.is_advisor_point(),
                        Kind::Elephant => p.is_elephant_point(),
                        _ => false,
                    })
                    .collect();
                let at = if home.is_empty() {
                    at
                } else {
                    home[at % home.len()].index()
                };
                if s.board[at].is_some() {
                    continue;
                }
                s.board[at] = Some(Piece {
                    kind,
                    owner,
                    origin,
                });
            }
            s.side = Kingdom::ALL[side];
            Position::from_setup(s).ok()
        })
}

fn any_position() -> impl Strategy<Value = Position> {
    prop_oneof![played(), sparse().prop_filter_map("valid", |p| p),]
}

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn rotating_a_position_rotates_its_legal_moves(pos in any_position()) {
        let once = pos.rotated();
        let want: Vec<Move> = pos.legal_moves().into_iter().map(Move::rotated).collect();
        prop_assert_eq!(sorted(once.legal_moves()), sorted(want));
        // Through the text too: the rotated text is a valid position.
        let again = Position::from_text(&once.to_string()).expect("rotated text is valid");
        prop_assert_eq!(&again, &once);
        prop_assert_eq!(once.rotated().rotated(), pos);
    }

    #[test]
    fn legal_list_and_is_legal_agree(pos in any_position(), from in 0usize..135, to in 0usize..135) {
        let moves = pos.legal_moves();
        prop_assert_eq!(moves.len(), pos.count_legal_moves());
        prop_assert_eq!(!moves.is_empty(), pos.has_legal_move());
        for &m in &moves {
            prop_assert!(pos.is_legal(m), "{}", pos.move_text(m));
        }
        let mut seen = moves.clone();
        seen.sort();
        seen.dedup();
        prop_assert_eq!(seen.len(), moves.len(), "no move twice");
        let m = Move::new(Point::from_index(from).expect("point"), Point::from_index(to).expect("point"));
        prop_assert_eq!(pos.is_legal(m), moves.contains(&m));
        if let Some(reason) = pos.illegal_reason(m) {
            prop_assert!(!reason.to_string().is_empty());
        }
    }

    #[test]
    fn reverse_attack_tables_agree_with_move_generation(pos in any_position()) {
        for k in pos.active() {
            let g = pos.general(k).expect("active kingdoms have a general");
            let forward = Point::all().any(|p| {
                pos.piece_at(p).is_some_and(|q| q.owner != k && q.kind != Kind::General)
                    && pos.targets(p).contains(&g)
            });
            prop_assert_eq!(pos.is_attacked(k), forward, "{} {}", pos, k);
        }
    }

    #[test]
    fn keys_follow_the_identity(pos in played()) {
        let moves = pos.legal_moves();
        let mut seen = std::collections::HashMap::new();
        for m in moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if let Some(other) = seen.insert(next.key(), next.identity()) {
                prop_assert_eq!(other, next.identity(), "two identities, one key");
            }
        }
        // The origin is part of the key (C11).
        let mut setup = pos.to_setup();
        if let Some(p) = Point::all().find(|&p| setup.board[p.index()].is_some_and(|q| q.kind == Kind::Chariot)) {
            let q = setup.board[p.index()].expect("a chariot");
            setup.board[p.index()] = Some(Piece { origin: q.origin.next(), ..q });
            if let Ok(changed) = Position::from_setup(setup) {
                prop_assert_ne!(changed.key(), pos.key());
            }
        }
    }

    #[test]
    fn texts_round_trip(pos in any_position()) {
        let text = pos.to_string();
        let back = Position::from_text(&text).expect("own text is valid");
        prop_assert_eq!(back.to_string(), text);
        prop_assert_eq!(back, pos);
    }

    #[test]
    fn play_keeps_positions_valid(pos in played()) {
        for m in pos.legal_moves().into_iter().take(8) {
            let mut next = pos.clone();
            let played = next.play(m).expect("a legal move plays");
            prop_assert!(played.defeats.len() <= 2);
            // Every position reached by play is a valid text (§8.2).
            prop_assert!(Position::from_text(&next.to_string()).is_ok(), "{}", next);
        }
    }

    #[test]
    fn no_panic_on_any_text(text in "\\PC*") {
        let _ = Position::from_text(&text);
        let _ = text.parse::<Move>();
    }

    #[test]
    fn no_panic_on_texts_near_valid_ones(
        cut in 0usize..400,
        insert in "[0-9rgbKAEHRCPF~/, RGB\\-x]{0,3}",
        drop in 0usize..4,
    ) {
        let base = START_TEXT;
        let at = cut.min(base.len());
        let end = (at + drop).min(base.len());
        let text = format!("{}{}{}", &base[..at], insert, &base[end..]);
        if let Ok(pos) = Position::from_text(&text) {
            prop_assert_eq!(pos.to_string(), text);
        }
    }

    #[test]
    fn no_panic_on_any_move_text(pos in played(), text in "[RGBrgb][a-j][0-6][-x ][RGB][a-i][1-5]") {
        if let Ok(m) = text.parse::<Move>() {
            let mut game = Game::new(pos);
            let legal = game.position().is_legal(m) && game.is_ongoing();
            prop_assert_eq!(game.play(m).is_ok(), legal);
        }
    }
}
