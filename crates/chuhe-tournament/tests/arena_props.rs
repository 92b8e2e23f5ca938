//! Property tests of the two arenas: random sequences of events (joins, withdrawals, pauses,
//! returns, waves, results) keep their invariants. A wave seats every free player but at most
//! one (arena) or two (sanguo arena); nobody plays two games at once; nobody who is paused,
//! withdrawn or busy is paired; a player's score is the sum of their sheet, and the sheet has
//! one line per finished game they played.

use chuhe_tournament::arena::{Arena, ArenaSettings, GameEnd};
use chuhe_tournament::sanguo::{SanguoArena, SanguoEnd};
use chuhe_tournament::{GameId, Kingdom, PlayerId, Presence, Side};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Event {
    Join(u8),
    Withdraw(u8),
    Pause(u8),
    Resume(u8),
    Wave,
    /// Finish the ongoing game at this position (modulo their number) with this outcome seed.
    Finish(u8, u8),
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        3 => (0u8..40).prop_map(Event::Join),
        1 => (0u8..40).prop_map(Event::Withdraw),
        1 => (0u8..40).prop_map(Event::Pause),
        1 => (0u8..40).prop_map(Event::Resume),
        2 => Just(Event::Wave),
        4 => (any::<u8>(), any::<u8>()).prop_map(|(g, o)| Event::Finish(g, o)),
    ]
}

fn id(n: u8) -> PlayerId {
    PlayerId(format!("p{n:02}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arena_invariants(events in proptest::collection::vec(event(), 1..200)) {
        let mut a = Arena::new(ArenaSettings::default());
        for e in events {
            match e {
                Event::Join(n) => a.join(id(n), 1000 + i32::from(n) * 37 % 900),
                Event::Withdraw(n) => { let _ = a.withdraw(&id(n)); }
                Event::Pause(n) => { let _ = a.pause(&id(n)); }
                Event::Resume(n) => { let _ = a.resume(&id(n)); }
                Event::Wave => {
                    let free: Vec<PlayerId> = a.players.values()
                        .filter(|p| p.presence == Presence::Active && p.playing.is_none())
                        .map(|p| p.id.clone()).collect();
                    let games = a.pair_wave();
                    prop_assert!(free.len() - 2 * games.len() <= 1);
                    for g in &games {
                        prop_assert!(free.contains(&g.red) && free.contains(&g.black));
                        prop_assert_ne!(&g.red, &g.black);
                    }
                }
                Event::Finish(g, o) => {
                    let ongoing: Vec<GameId> = a.games.values().filter(|g| g.end.is_none()).map(|g| g.id).collect();
                    if ongoing.is_empty() { continue; }
                    let game = ongoing[usize::from(g) % ongoing.len()];
                    let winner = [Some(Side::Red), Some(Side::Black), None][usize::from(o % 3)];
                    let end = GameEnd { winner, plies: u32::from(o) / 2, red_berserk: o % 4 == 0, black_berserk: o % 5 == 0 };
                    let [r, b] = a.record_result(game, end).unwrap();
                    prop_assert!(r.points <= 5 && b.points <= 5);
                }
            }
            let mut busy = std::collections::HashSet::new();
            for g in a.games.values().filter(|g| g.end.is_none()) {
                prop_assert!(busy.insert(g.red.clone()) && busy.insert(g.black.clone()));
                prop_assert_eq!(a.players[&g.red].playing, Some(g.id));
                prop_assert_eq!(a.players[&g.black].playing, Some(g.id));
            }
            for p in a.players.values() {
                prop_assert_eq!(p.score, p.sheet.iter().map(|s| s.points).sum::<u32>());
                let finished = a.games.values()
                    .filter(|g| g.end.is_some() && (g.red == p.id || g.black == p.id)).count();
                prop_assert_eq!(p.sheet.len(), finished);
                prop_assert_eq!(p.playing.is_some(), busy.contains(&p.id));
            }
        }
        let ranks: Vec<u32> = a.standings().iter().map(|l| l.rank).collect();
        prop_assert_eq!(ranks, (1..=a.players.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn sanguo_arena_invariants(events in proptest::collection::vec(event(), 1..200)) {
        let mut a = SanguoArena::new();
        for e in events {
            match e {
                Event::Join(n) => a.join(id(n), 1000 + i32::from(n) * 37 % 900),
                Event::Withdraw(n) => { let _ = a.withdraw(&id(n)); }
                Event::Pause(n) => { let _ = a.pause(&id(n)); }
                Event::Resume(n) => { let _ = a.resume(&id(n)); }
                Event::Wave => {
                    let free = a.players.values()
                        .filter(|p| p.presence == Presence::Active && p.playing.is_none()).count();
                    let tables = a.pair_wave();
                    prop_assert!(free - 3 * tables.len() <= 2);
                }
                Event::Finish(g, o) => {
                    let ongoing: Vec<GameId> = a.games.values().filter(|g| g.end.is_none()).map(|g| g.id).collect();
                    if ongoing.is_empty() { continue; }
                    let game = ongoing[usize::from(g) % ongoing.len()];
                    let k = Kingdom::ALL;
                    let i = usize::from(o) % 3;
                    let end = match o % 4 {
                        0 => SanguoEnd { winners: vec![k[i]], defeated: vec![k[(i + 1) % 3], k[(i + 2) % 3]], plies: 90 },
                        1 => SanguoEnd { winners: vec![k[i], k[(i + 1) % 3]], defeated: vec![k[(i + 2) % 3]], plies: 90 },
                        2 => SanguoEnd { winners: vec![], defeated: vec![k[i]], plies: 90 },
                        _ => SanguoEnd { winners: vec![k[i]], defeated: vec![], plies: 12 },
                    };
                    let scores = a.record_result(game, end).unwrap();
                    let total: u32 = scores.iter().map(|s| s.points).sum();
                    // At most a sole win and two losers not defeated on the board, all on fire.
                    prop_assert!(total <= 8 + 2 + 2);
                }
            }
            let mut busy = std::collections::HashSet::new();
            for g in a.games.values().filter(|g| g.end.is_none()) {
                for p in &g.seats {
                    prop_assert!(busy.insert(p.clone()));
                    prop_assert_eq!(a.players[p].playing, Some(g.id));
                }
            }
            for p in a.players.values() {
                prop_assert_eq!(p.score, p.sheet.iter().map(|s| s.points).sum::<u32>());
                prop_assert_eq!(p.playing.is_some(), busy.contains(&p.id));
                let games: u32 = p.kingdom_games.iter().sum();
                let played = a.games.values().filter(|g| g.seats.contains(&p.id)).count();
                prop_assert_eq!(games as usize, played);
                // Kingdoms rotate: no kingdom more than twice as often as another, plus one.
                let (lo, hi) = (p.kingdom_games.iter().min().unwrap(), p.kingdom_games.iter().max().unwrap());
                prop_assert!(*hi <= 2 * lo + 2, "{:?}", p.kingdom_games);
            }
        }
    }
}
