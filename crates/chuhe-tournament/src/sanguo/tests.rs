use super::*;
use crate::Kingdom::{Shu, Wei, Wu};

fn end(winners: &[Kingdom], defeated: &[Kingdom]) -> SanguoEnd {
    SanguoEnd {
        winners: winners.to_vec(),
        defeated: defeated.to_vec(),
        plies: 90,
    }
}

#[test]
fn placings_of_each_outcome() {
    let sole = end(&[Wu], &[Wei, Shu]);
    assert_eq!(placing(&sole, Wu), Ok(Placing::SoleWin));
    assert_eq!(placing(&sole, Wei), Ok(Placing::FirstOut));
    assert_eq!(placing(&sole, Shu), Ok(Placing::SecondOut));
    let shared = end(&[Shu, Wei], &[Wu]);
    assert_eq!(placing(&shared, Shu), Ok(Placing::SharedWin));
    assert_eq!(placing(&shared, Wu), Ok(Placing::FirstOut));
    // A sole win by resignations: nobody was defeated on the board, so no loser is first out.
    let resigned = end(&[Shu], &[]);
    assert_eq!(placing(&resigned, Wu), Ok(Placing::SecondOut));
    let draw = end(&[], &[Wei]);
    assert_eq!(placing(&draw, Shu), Ok(Placing::Draw));
    assert_eq!(placing(&draw, Wei), Ok(Placing::NullDraw));
    let quick = SanguoEnd {
        plies: 29,
        ..end(&[], &[])
    };
    assert_eq!(placing(&quick, Shu), Ok(Placing::NullDraw));
    assert!(placing(&end(&[Shu, Wu, Wei], &[]), Shu).is_err());
    assert!(placing(&end(&[Shu], &[Shu]), Wu).is_err());
    assert!(placing(&end(&[Shu], &[Wu, Wu]), Wei).is_err());
}

fn id(s: &str) -> PlayerId {
    PlayerId::from(s)
}

#[test]
fn a_table_scores_and_fire_doubles() {
    let mut a = SanguoArena::new();
    for (n, r) in [("a", 1500), ("b", 1400), ("c", 1300)] {
        a.join(id(n), r);
    }
    // a wins alone three times (the last on fire: 8), then shares a win (on fire: 4), then
    // loses first (0, fire over).
    let mut sheets = Vec::new();
    for _ in 0..5 {
        let g = a.pair_wave();
        assert_eq!(g.len(), 1);
        let k = |n: &str| Kingdom::ALL[g[0].seats.iter().position(|p| p.0 == n).unwrap()];
        sheets.push(g[0].seats.clone());
        let e = match a.games.len() {
            1..=3 => end(&[k("a")], &[k("c"), k("b")]),
            4 => end(&[k("a"), k("b")], &[k("c")]),
            _ => end(&[k("b")], &[k("a"), k("c")]),
        };
        a.record_result(g[0].id, e).unwrap();
    }
    let st = a.standings();
    assert_eq!(
        (st[0].id.0.as_str(), st[0].sheet.as_str(), st[0].score),
        ("a", "4 4 8 4 0", 20)
    );
    assert_eq!(
        (st[1].id.0.as_str(), st[1].sheet.as_str(), st[1].score),
        ("b", "1 1 1 2 4", 9)
    );
    assert_eq!(
        (st[2].id.0.as_str(), st[2].sheet.as_str(), st[2].score),
        ("c", "0 0 0 0 1", 1)
    );
    // Kingdoms rotate: first a Shu, b Wu, c Wei; then each gets one they played least.
    assert_eq!(sheets[0], [id("a"), id("b"), id("c")]);
    assert_eq!(sheets[1], [id("c"), id("a"), id("b")]);
    assert_eq!(sheets[2], [id("b"), id("c"), id("a")]);
    for p in a.players.values() {
        assert!(
            p.kingdom_games.iter().all(|&n| n == 1 || n == 2),
            "{:?}",
            p.kingdom_games
        );
    }
    let g = a.games[&GameId(1)].id;
    assert_eq!(
        a.record_result(g, end(&[Shu], &[])),
        Err(EventError::GameFinished(g))
    );
}

#[test]
fn waves_seat_by_rank_and_leave_the_rest_waiting() {
    let mut a = SanguoArena::new();
    for i in 0..8 {
        a.join(PlayerId(format!("p{i}")), 2000 - i * 10);
    }
    let w = a.pair_wave();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].seats, [id("p0"), id("p1"), id("p2")]);
    assert_eq!(w[1].seats, [id("p3"), id("p4"), id("p5")]);
    a.pause(&id("p6")).unwrap();
    assert!(a.pair_wave().is_empty(), "p7 waits alone");
    let text = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<SanguoArena>(&text).unwrap(), a);
}

#[test]
fn last_table_mates_are_avoided() {
    let mut a = SanguoArena::new();
    for i in 0..9 {
        a.join(PlayerId(format!("p{i}")), 2000 - i * 10);
    }
    for g in a.pair_wave() {
        a.record_result(g.id, end(&[], &[])).unwrap();
    }
    // All on 1 point, rank p0..p8, tables p0-p2, p3-p5, p6-p8 just played: each new table takes
    // one player of each.
    let w = a.pair_wave();
    let tables: Vec<Vec<String>> = w
        .iter()
        .map(|g| {
            let mut t: Vec<String> = g.seats.iter().map(|p| p.0.clone()).collect();
            t.sort();
            t
        })
        .collect();
    assert_eq!(
        tables,
        [["p0", "p3", "p6"], ["p1", "p4", "p7"], ["p2", "p5", "p8"]]
    );
}
