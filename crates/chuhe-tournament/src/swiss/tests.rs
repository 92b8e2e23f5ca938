use super::*;

fn id(s: &str) -> PlayerId {
    PlayerId::from(s)
}

/// Players p1..pn rated 2400, 2300, ... (pairing numbers 1..n).
fn event(n: u32, rounds: u32) -> Swiss {
    let mut s = Swiss::new(SwissSettings { rounds });
    for i in 1..=n {
        s.join(PlayerId(format!("p{i}")), 2500 - 100 * i as Rating)
            .unwrap();
    }
    s
}

fn boards(r: &SwissRound) -> Vec<(String, String)> {
    r.games
        .iter()
        .map(|g| (g.red.0.clone(), g.black.0.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn play(s: &mut Swiss, r: &SwissRound, results: &[SwissResult]) {
    for (g, &res) in r.games.iter().zip(results) {
        s.record_result(g.id, res).unwrap();
    }
}

use SwissResult::{BlackWon, Draw, RedWon};

/// FIDE Handbook C.04.3 (Dutch system), round 1: the players in pairing-number order are split
/// into S1 (top half) and S2 (bottom half), S1[i] meets S2[i], and colours alternate by board
/// from the initial colour (Red here): 1-5, 6-2, 3-7, 8-4. Round 2 after the top half won: in the
/// bracket {1,2,3,4}, 1-3 and 2-4 would deny four colour preferences (1 and 3 had Red, 2 and 4
/// Black), so the first transposition that grants them all is taken: 1-4, 2-3 (C.04.3 puts
/// colour preferences, C.10, before the order of transpositions); likewise 5-8, 6-7 below.
/// Round 1 is the Handbook's rule; round 2 is worked by hand from the rules.
#[test]
fn fide_round_one_and_two_of_eight() {
    let mut s = event(8, 5);
    let r1 = s.pair_round().unwrap();
    assert_eq!(
        boards(&r1),
        pairs(&[("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")])
    );
    assert_eq!(r1.bye, None);
    assert_eq!(
        s.pair_round(),
        Err(EventError::Round("a game of the last round has no result"))
    );
    play(&mut s, &r1, &[RedWon, BlackWon, RedWon, BlackWon]);
    let r2 = s.pair_round().unwrap();
    assert_eq!(
        boards(&r2),
        pairs(&[("p4", "p1"), ("p2", "p3"), ("p5", "p8"), ("p7", "p6")])
    );
}

/// Four players who draw every game: in round 2, 1-3 is a rematch and its transposition 1-4
/// would deny both colour preferences, so an exchange (2 to S2, 3 to S1) gives 1-2, 3-4; round
/// 3 takes the last two pairings left; round 4 has none and ends the event.
#[test]
fn exchanges_and_the_end() {
    let mut s = event(4, 5);
    let r1 = s.pair_round().unwrap();
    assert_eq!(boards(&r1), pairs(&[("p1", "p3"), ("p4", "p2")]));
    play(&mut s, &r1, &[Draw, Draw]);
    let r2 = s.pair_round().unwrap();
    assert_eq!(boards(&r2), pairs(&[("p2", "p1"), ("p3", "p4")]));
    play(&mut s, &r2, &[Draw, Draw]);
    let r3 = s.pair_round().unwrap();
    // Everyone had one of each, last p1 and p4 Black, p2 and p3 Red (E.4: the better ranked
    // player's preference).
    assert_eq!(boards(&r3), pairs(&[("p1", "p4"), ("p3", "p2")]));
    play(&mut s, &r3, &[Draw, Draw]);
    assert_eq!(
        s.pair_round(),
        Err(EventError::Round("no pairing without a rematch is left"))
    );
    assert!(s.is_finished());
}

/// Five players: the lowest ranked gets the bye (1 point); in round 2 the bye goes to the lowest
/// ranked player without one, and the odd player of the top bracket moves down.
#[test]
fn byes_and_floaters() {
    let mut s = event(5, 3);
    let r1 = s.pair_round().unwrap();
    assert_eq!(boards(&r1), pairs(&[("p1", "p3"), ("p4", "p2")]));
    assert_eq!(r1.bye, Some(id("p5")));
    play(&mut s, &r1, &[RedWon, BlackWon]);
    assert_eq!(s.players[&id("p5")].half_points(), 2);
    let r2 = s.pair_round().unwrap();
    assert_eq!(r2.bye, Some(id("p4")));
    assert_eq!(boards(&r2), pairs(&[("p2", "p1"), ("p3", "p5")]));
}

/// A whole event with its tie-breaks, worked by hand:
///
/// | round | games |
/// | --- | --- |
/// | 1 | p1-p3 1-0, p4-p2 ½-½ |
/// | 2 | p2-p1 0-1, p3-p4 1-0 |
/// | 3 | p1-p4 ½-½, p2-p3 1-0 |
///
/// Points p1 2½, p2 1½, p3 1, p4 1. Buchholz (opponents' points): p1 1+1½+1 = 3½,
/// p2 1+2½+1 = 4½, p3 2½+1+1½ = 5, p4 1½+1+2½ = 5. Sonneborn-Berger: p1 1 + 1½ + ½·1 = 3,
/// p2 ½·1 + 1 = 1½, p3 1, p4 ½·1½ + ½·2½ = 2; so p4 ranks above p3.
#[test]
fn a_worked_event_with_buchholz_and_sonneborn_berger() {
    let mut s = event(4, 3);
    let r1 = s.pair_round().unwrap();
    assert_eq!(boards(&r1), pairs(&[("p1", "p3"), ("p4", "p2")]));
    play(&mut s, &r1, &[RedWon, Draw]);
    let r2 = s.pair_round().unwrap();
    assert_eq!(boards(&r2), pairs(&[("p2", "p1"), ("p3", "p4")]));
    play(&mut s, &r2, &[BlackWon, RedWon]);
    let r3 = s.pair_round().unwrap();
    assert_eq!(boards(&r3), pairs(&[("p1", "p4"), ("p2", "p3")]));
    play(&mut s, &r3, &[Draw, RedWon]);
    assert!(s.is_finished());
    let st: Vec<(String, f64, f64, f64)> = s
        .standings()
        .into_iter()
        .map(|l| (l.id.0, l.points, l.buchholz, l.sonneborn_berger))
        .collect();
    assert_eq!(
        st,
        [
            ("p1".to_string(), 2.5, 3.5, 3.0),
            ("p2".to_string(), 1.5, 4.5, 1.5),
            ("p4".to_string(), 1.0, 5.0, 2.0),
            ("p3".to_string(), 1.0, 5.0, 1.0),
        ]
    );
    assert_eq!(
        s.pair_round(),
        Err(EventError::Round("every round was paired"))
    );
}

#[test]
fn late_joins_and_withdrawals() {
    let mut s = event(4, 4);
    let r1 = s.pair_round().unwrap();
    s.join(id("late"), 2000).unwrap();
    assert_eq!(s.players[&id("late")].sheet, [RoundEntry::Late]);
    play(&mut s, &r1, &[RedWon, RedWon]);
    s.withdraw(&id("p4")).unwrap();
    let r2 = s.pair_round().unwrap();
    assert_eq!(r2.games.len(), 2);
    assert!(r2
        .games
        .iter()
        .all(|g| g.red != id("p4") && g.black != id("p4")));
    assert_eq!(s.players[&id("p4")].sheet.last(), Some(&RoundEntry::Absent));
    s.join(id("later"), 1000).unwrap();
    assert_eq!(
        s.players[&id("later")].sheet,
        [RoundEntry::Late, RoundEntry::Absent]
    );
    assert_eq!(s.players[&id("later")].half_points(), 1);
    play(&mut s, &r2, &[Draw, Draw]);
    s.pair_round().unwrap();
    assert_eq!(
        s.join(id("too late"), 1000),
        Err(EventError::Round("more than half the rounds have started"))
    );
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<Swiss>(&text).unwrap(), s);
}

#[test]
fn colour_preferences_and_allocation() {
    use dutch::{preference, x_gets_red, Entrant, Strength};
    use Side::{Black, Red};
    assert_eq!(preference(&[]).strength, Strength::None);
    let p = preference(&[Red]);
    assert_eq!((p.colour, p.strength), (Some(Black), Strength::Strong));
    let p = preference(&[Red, Black]);
    assert_eq!((p.colour, p.strength), (Some(Red), Strength::Mild));
    let p = preference(&[Black, Black]);
    assert_eq!((p.colour, p.strength), (Some(Red), Strength::Absolute));
    let p = preference(&[Red, Black, Red, Red, Black, Red]);
    assert_eq!((p.colour, p.difference), (Some(Black), 2));
    let e = |colours: &[Side], number| Entrant {
        half_points: 0,
        number,
        colours: colours.to_vec(),
        byes: 0,
    };
    // E.2: the absolute preference beats the strong one.
    assert!(!x_gets_red(&e(&[Black], 1), &e(&[Red, Black, Black], 2)));
    // E.3: both prefer Black as strongly; in the latest round where their colours differed x
    // had Red, so x gets Black now (and the other way round).
    assert!(!x_gets_red(
        &e(&[Red, Black, Red], 1),
        &e(&[Red, Red, Black, Black, Red], 2)
    ));
    assert!(x_gets_red(
        &e(&[Red, Red, Black, Black, Red], 1),
        &e(&[Red, Black, Red], 2)
    ));
    // E.4: nothing differs: the better ranked player's preference.
    assert!(!x_gets_red(&e(&[Red], 1), &e(&[Red], 2)));
    // E.5: no history: odd pairing number takes Red.
    assert!(x_gets_red(&e(&[], 3), &e(&[], 7)));
    assert!(!x_gets_red(&e(&[], 2), &e(&[], 6)));
}
