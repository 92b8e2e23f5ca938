use super::*;
use crate::PlayerResult::{Draw, Loss, Win};

fn run(settings: ArenaSettings, games: &[(PlayerResult, u32, bool)]) -> Vec<ArenaScore> {
    let mut sheet = Vec::new();
    for &(result, plies, berserk) in games {
        let s = score_game(
            &sheet,
            result,
            plies,
            berserk,
            settings,
            PlayerId::from("o"),
            1500,
        );
        sheet.push(s);
    }
    sheet
}

fn points(sheet: &[ArenaScore]) -> Vec<u32> {
    sheet.iter().map(|s| s.points).collect()
}

#[test]
fn streak_scores_as_lichess() {
    let s = ArenaSettings::default();
    let sheet = run(
        s,
        &[
            (Win, 40, false),
            (Win, 40, false),
            (Win, 40, false),
            (Win, 40, false),
            (Loss, 40, false),
            (Draw, 40, false),
        ],
    );
    assert_eq!(sheet_text(&sheet), "2 2 4 4 0 1");
    assert_eq!(
        sheet.iter().map(|s| s.on_fire).collect::<Vec<_>>(),
        [false, false, true, true, true, false]
    );
    // A draw on fire scores 2 and ends the fire; two more wins light it again.
    let sheet = run(
        s,
        &[
            (Win, 40, false),
            (Win, 40, false),
            (Draw, 40, false),
            (Win, 40, false),
            (Win, 40, false),
            (Win, 40, false),
        ],
    );
    assert_eq!(points(&sheet), [2, 2, 2, 2, 2, 4]);
    let off = ArenaSettings {
        streaks: false,
        ..s
    };
    assert_eq!(
        points(&run(
            off,
            &[(Win, 40, false), (Win, 40, false), (Win, 40, false)]
        )),
        [2, 2, 2]
    );
}

#[test]
fn berserk_needs_fourteen_plies_and_a_win() {
    let s = ArenaSettings::default();
    assert_eq!(points(&run(s, &[(Win, 14, true)])), [3]);
    assert_eq!(points(&run(s, &[(Win, 13, true)])), [2]);
    assert_eq!(
        points(&run(s, &[(Draw, 40, true), (Loss, 40, true)])),
        [1, 0]
    );
    // On fire: 4 + 1.
    assert_eq!(
        points(&run(
            s,
            &[(Win, 40, false), (Win, 40, false), (Win, 40, true)]
        )),
        [2, 2, 5]
    );
    let no = ArenaSettings {
        berserkable: false,
        ..s
    };
    assert_eq!(points(&run(no, &[(Win, 40, true)])), [2]);
}

#[test]
fn quick_draws_and_draw_streaks() {
    let s = ArenaSettings::default();
    assert_eq!(
        points(&run(s, &[(Draw, 19, false), (Draw, 20, false)])),
        [0, 0]
    );
    assert_eq!(points(&run(s, &[(Draw, 20, false)])), [1]);
    // A second short draw scores 0 even after a loss; a long one scores; a win resets.
    let sheet = run(
        s,
        &[
            (Draw, 40, false),
            (Loss, 40, false),
            (Draw, 40, false),
            (Draw, 60, false),
            (Win, 40, false),
            (Draw, 40, false),
        ],
    );
    assert_eq!(points(&sheet), [1, 0, 0, 1, 2, 1]);
    // A quick draw ends a fire.
    let sheet = run(
        s,
        &[
            (Win, 40, false),
            (Win, 40, false),
            (Draw, 10, false),
            (Win, 40, false),
        ],
    );
    assert_eq!(points(&sheet), [2, 2, 0, 2]);
}

#[test]
fn performance_is_the_mean_of_rating_plus_minus_500() {
    let mut sheet = run(
        ArenaSettings::default(),
        &[(Win, 40, false), (Loss, 40, false)],
    );
    sheet[0].opponent_rating = 1600;
    sheet[1].opponent_rating = 1400;
    // (1600 + 500 + 1400 - 500) / 2
    assert_eq!(performance(&sheet), Some(1500));
    sheet.push(ArenaScore {
        opponent_rating: 1700,
        result: Draw,
        ..sheet[0].clone()
    });
    // (2100 + 900 + 1700) / 3 = 1566.67, rounded down
    assert_eq!(performance(&sheet), Some(1566));
    assert_eq!(performance(&[]), None);
}

fn id(s: &str) -> PlayerId {
    PlayerId::from(s)
}

fn end(winner: Option<Side>) -> GameEnd {
    GameEnd {
        winner,
        plies: 40,
        red_berserk: false,
        black_berserk: false,
    }
}

fn pairs(games: &[ArenaGame]) -> Vec<(&str, &str)> {
    games
        .iter()
        .map(|g| (g.red.0.as_str(), g.black.0.as_str()))
        .collect()
}

#[test]
fn waves_pair_by_rank_and_balance_colours() {
    let mut a = Arena::new(ArenaSettings::default());
    for (name, rating) in [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)] {
        a.join(id(name), rating);
    }
    let w1 = a.pair_wave();
    assert_eq!(pairs(&w1), [("a", "b"), ("c", "d")]);
    assert!(a.pair_wave().is_empty(), "everyone is playing");
    a.record_result(w1[0].id, end(Some(Side::Red))).unwrap();
    a.record_result(w1[1].id, end(None)).unwrap();
    // Ranks: a 2, c 1 (1800), d 1 (1700), b 0. a and c both had Red: the better ranked keeps it;
    // d and b both had Black: d, better ranked, gets Red.
    let w2 = a.pair_wave();
    assert_eq!(pairs(&w2), [("a", "c"), ("d", "b")]);
    assert_eq!(
        a.record_result(w1[0].id, end(None)),
        Err(EventError::GameFinished(w1[0].id))
    );
    assert_eq!(
        a.record_result(GameId(99), end(None)),
        Err(EventError::UnknownGame(GameId(99)))
    );
    a.record_result(w2[0].id, end(Some(Side::Black))).unwrap();
    a.record_result(w2[1].id, end(Some(Side::Black))).unwrap();
    let st = a.standings();
    let line = |n: &str| st.iter().find(|l| l.id.0 == n).unwrap().clone();
    assert_eq!(
        (line("c").rank, line("c").score, line("c").sheet.as_str()),
        (1, 3, "1 2")
    );
    assert_eq!((line("a").score, line("a").sheet.as_str()), (2, "2 0"));
    assert_eq!((line("b").score, line("b").sheet.as_str()), (2, "0 2"));
    assert_eq!(line("d").score, 1);
    // a and b have 2 points each: performance breaks the tie. a: (1900+500 + 1800-500)/2 = 1850,
    // b: (2000-500 + 1700+500)/2 = 1850; equal, so rating: a first.
    assert_eq!(line("a").performance, Some(1850));
    assert_eq!(line("b").performance, Some(1850));
    assert_eq!((line("a").rank, line("b").rank, line("d").rank), (2, 3, 4));
}

#[test]
fn the_last_opponent_is_avoided_when_possible() {
    let mut a = Arena::new(ArenaSettings::default());
    for (name, rating) in [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)] {
        a.join(id(name), rating);
    }
    let w1 = a.pair_wave();
    for g in &w1 {
        a.record_result(g.id, end(None)).unwrap();
    }
    // Ranks a, b, c, d (1 point each): a-b would repeat, so a-c and b-d.
    let w2 = a.pair_wave();
    let mut met: Vec<(&str, &str)> = pairs(&w2)
        .into_iter()
        .map(|(x, y)| if x < y { (x, y) } else { (y, x) })
        .collect();
    met.sort();
    assert_eq!(met, [("a", "c"), ("b", "d")]);
}

#[test]
fn withdraw_pause_and_rejoin() {
    let mut a = Arena::new(ArenaSettings::default());
    for (name, rating) in [("a", 2000), ("b", 1900), ("c", 1800)] {
        a.join(id(name), rating);
    }
    a.pause(&id("a")).unwrap();
    a.withdraw(&id("b")).unwrap();
    assert!(a.pair_wave().is_empty());
    assert_eq!(
        a.withdraw(&id("zed")),
        Err(EventError::UnknownPlayer(id("zed")))
    );
    a.resume(&id("a")).unwrap();
    assert_eq!(pairs(&a.pair_wave()), [("a", "c")]);
    a.join(id("b"), 1000);
    assert_eq!(a.players[&id("b")].rating, 1900, "the first rating is kept");
    assert_eq!(a.standings().len(), 3);
}

#[test]
fn state_survives_serde() {
    let mut a = Arena::new(ArenaSettings::default());
    for (name, rating) in [("a", 2000), ("b", 1900)] {
        a.join(id(name), rating);
    }
    let g = a.pair_wave();
    a.record_result(g[0].id, end(Some(Side::Red))).unwrap();
    let text = serde_json::to_string(&a).unwrap();
    let back: Arena = serde_json::from_str(&text).unwrap();
    assert_eq!(back, a);
}

#[test]
fn a_thousand_players_pair_in_one_wave() {
    let mut a = Arena::new(ArenaSettings::default());
    for i in 0..1001 {
        a.join(
            PlayerId(format!("p{i:04}")),
            1000 + (i * 7919 % 1000) as Rating,
        );
    }
    let wave = a.pair_wave();
    assert_eq!(wave.len(), 500);
    let mut seen = std::collections::HashSet::new();
    for g in &wave {
        assert!(seen.insert(g.red.clone()) && seen.insert(g.black.clone()));
    }
}
