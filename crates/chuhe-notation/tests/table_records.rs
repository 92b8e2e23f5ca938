//! Sanguo and banqi records (`chuhe_notation::table_record`) over many computer-played games:
//! each game is played with `chuhe-rules` by a greedy random player (a capture when there is
//! one, else any move), written, read back and replayed; the read record equals the written
//! one (variant and options, players, moves, winners and the rule that ended the game).

use chuhe_notation::pgn;
use chuhe_notation::table_record::{TableOutcome, TableRecord, TableVariant};
use chuhe_rules::outcome::EndReason;
use chuhe_rules::{banqi, sanguo};

/// A small deterministic generator (64-bit LCG, high bits), so every run plays the same sanguo
/// games.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Picks a capture half the time when there is one, else any move.
fn pick<T: Copy>(rng: &mut Lcg, moves: &[T], is_capture: impl Fn(T) -> bool) -> T {
    let captures: Vec<T> = moves.iter().copied().filter(|&m| is_capture(m)).collect();
    if !captures.is_empty() && rng.below(2) == 0 {
        captures[rng.below(captures.len())]
    } else {
        moves[rng.below(moves.len())]
    }
}

fn round_trip(rec: &TableRecord) -> String {
    let mut out = String::new();
    rec.write(&mut out);
    let games = pgn::read(&out);
    assert_eq!(games.len(), 1, "{out}");
    let back = TableRecord::from_game_record(&games[0]).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(&back, rec, "{out}");
    out
}

fn sanguo_game(rng: &mut Lcg, flag_bearers: bool, max_plies: usize) -> TableRecord {
    let mut g = sanguo::Game::new(sanguo::Position::start(flag_bearers));
    let mut moves = Vec::new();
    while g.is_ongoing() && moves.len() < max_plies {
        let legal = g.legal_moves();
        let pos = g.position().clone();
        let m = pick(rng, &legal, |m| pos.move_text(m).contains('x'));
        moves.push(g.play(m).expect("a legal move").to_string());
    }
    if g.is_ongoing() {
        let _ = g.agree_draw();
    }
    TableRecord {
        variant: TableVariant::Sanguo { flag_bearers },
        tags: vec![("Event".to_owned(), "round trip".to_owned())],
        players: vec!["ana".to_owned(), "chuhe level 2".to_owned(), "?".to_owned()],
        moves,
        outcome: g.status().outcome().map(TableOutcome::from_outcome),
    }
}

fn banqi_game(rng: &mut Lcg, max_plies: usize) -> TableRecord {
    let mut g = banqi::Game::start();
    let mut moves = Vec::new();
    while *g.status() == banqi::Status::Ongoing && moves.len() < max_plies {
        let legal = g.legal_moves();
        let a = pick(rng, &legal, |a| a.to_string().contains('x'));
        moves.push(g.play(a).expect("a legal action").to_string());
    }
    if *g.status() == banqi::Status::Ongoing {
        let _ = g.resign(g.seat_to_move());
    }
    let outcome = match g.status() {
        banqi::Status::Ongoing => None,
        banqi::Status::Ended(o) => Some(TableOutcome::from_outcome(o)),
        banqi::Status::EndedBySeat { winner, reason } => Some(TableOutcome {
            winners: vec![if *winner == banqi::Seat::First {
                "seat1".to_owned()
            } else {
                "seat2".to_owned()
            }],
            reason: *reason,
        }),
    };
    TableRecord {
        variant: TableVariant::Banqi,
        tags: vec![("Date".to_owned(), "2026.12.02".to_owned())],
        players: vec!["chuhe level 1".to_owned(), "bo".to_owned()],
        moves,
        outcome,
    }
}

#[test]
fn sanguo_records_round_trip() {
    let mut rng = Lcg(18);
    let mut reasons = std::collections::BTreeMap::new();
    let mut plies = 0;
    for i in 0..60 {
        let rec = sanguo_game(&mut rng, i % 3 != 0, 400);
        plies += rec.moves.len();
        let out = round_trip(&rec);
        assert!(out.starts_with("[Game \"Three Kingdoms xiangqi\"]\n[Variant \"sanguo\"]\n"));
        let reason = rec.outcome.as_ref().map(|o| o.reason);
        *reasons.entry(reason.map(EndReason::as_str)).or_insert(0) += 1;
    }
    assert!(plies > 60 * 20, "{plies}");
    // Some games end on the board, the rest by agreement at the ply limit.
    assert_eq!(reasons.values().sum::<i32>(), 60);
    assert!(reasons.len() >= 2, "{reasons:?}");
}

#[test]
fn banqi_records_round_trip() {
    let mut rng = Lcg(7);
    let mut ended_on_board = 0;
    for _ in 0..150 {
        let rec = banqi_game(&mut rng, 600);
        round_trip(&rec);
        if rec
            .outcome
            .as_ref()
            .is_some_and(|o| o.reason != EndReason::Resignation)
        {
            ended_on_board += 1;
        }
        // Every flip names its piece.
        assert!(rec.moves.iter().filter(|m| m.contains('=')).count() <= 32);
    }
    assert!(ended_on_board > 0);
}
