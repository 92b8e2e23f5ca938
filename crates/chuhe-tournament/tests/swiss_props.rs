//! Property tests of Swiss pairing (issue 28): random events of 2 to 64 players and up to 9
//! rounds with random results. Every round: each present player plays exactly once or has the
//! single bye, nobody meets anyone twice, nobody gets a second bye while another present player
//! has none, and (until a round says the colour rule had to be relaxed) every colour difference
//! stays within ±2 with never three games of one colour in a row. When a round is refused, no
//! pairing without a rematch existed (checked by brute force up to 16 players; beyond that a
//! refusal fails the test, since with at most 9 rounds played one always exists).

use chuhe_tournament::swiss::{RoundEntry, Swiss, SwissResult, SwissSettings};
use chuhe_tournament::{EventError, PlayerId, Side};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};

/// A small generator (xorshift) driven by the case's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn colours(s: &Swiss, id: &PlayerId) -> Vec<Side> {
    s.players[id]
        .sheet
        .iter()
        .filter_map(|e| match e {
            RoundEntry::Game { colour, .. } => Some(*colour),
            _ => None,
        })
        .collect()
}

fn byes(s: &Swiss, id: &PlayerId) -> usize {
    s.players[id]
        .sheet
        .iter()
        .filter(|e| **e == RoundEntry::Bye)
        .count()
}

/// Whether the players `free` (a bit set over `0..n`) can all be paired without a pair in `met`.
fn perfect(free: u64, met: &[u64], memo: &mut BTreeMap<u64, bool>) -> bool {
    if free == 0 {
        return true;
    }
    if let Some(&known) = memo.get(&free) {
        return known;
    }
    let v = free.trailing_zeros() as usize;
    let rest = free & !(1 << v);
    let mut options = rest & !met[v];
    let mut found = false;
    while options != 0 {
        let w = options.trailing_zeros() as usize;
        options &= options - 1;
        if perfect(rest & !(1 << w), met, memo) {
            found = true;
            break;
        }
    }
    memo.insert(free, found);
    found
}

/// Whether some pairing without a rematch exists, with the bye (if the count is odd) to one of
/// the players with the fewest byes.
fn pairing_exists(s: &Swiss, present: &[PlayerId]) -> bool {
    let n = present.len();
    let index: BTreeMap<&PlayerId, usize> =
        present.iter().enumerate().map(|(i, p)| (p, i)).collect();
    let mut met = vec![0u64; n];
    for (i, p) in present.iter().enumerate() {
        for e in &s.players[p].sheet {
            if let RoundEntry::Game { opponent, .. } = e {
                if let Some(&j) = index.get(opponent) {
                    met[i] |= 1 << j;
                }
            }
        }
    }
    let all: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let mut memo = BTreeMap::new();
    if n.is_multiple_of(2) {
        return perfect(all, &met, &mut memo);
    }
    let fewest = present.iter().map(|p| byes(s, p)).min().unwrap_or(0);
    (0..n)
        .filter(|&i| byes(s, &present[i]) == fewest)
        .any(|i| perfect(all & !(1 << i), &met, &mut memo))
}

/// One random event; with `churn`, players also withdraw, come back and join late between rounds.
fn run(players: usize, rounds: u32, seed: u64, churn: bool) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed | 1);
    let mut s = Swiss::new(SwissSettings { rounds });
    for i in 0..players {
        let rating = 1000 + (rng.next() % 1500) as i32;
        s.join(PlayerId(format!("p{i:02}")), rating).unwrap();
    }
    let mut met: HashSet<(PlayerId, PlayerId)> = HashSet::new();
    let mut newcomers = 0;
    let mut colours_kept = true;
    for _ in 0..rounds {
        if churn {
            let ids: Vec<PlayerId> = s.players.keys().cloned().collect();
            for id in ids {
                match rng.next() % 12 {
                    0 => s.withdraw(&id).unwrap(),
                    1 if s.players[&id].withdrawn => {
                        let _ = s.join(id, 1500);
                    }
                    _ => {}
                }
            }
            if rng.next().is_multiple_of(3)
                && s.join(PlayerId(format!("late{newcomers}")), 1200).is_ok()
            {
                newcomers += 1;
            }
        }
        let present: Vec<PlayerId> = s
            .players
            .values()
            .filter(|p| !p.withdrawn)
            .map(|p| p.id.clone())
            .collect();
        let players = present.len();
        let fewest_byes = present.iter().map(|p| byes(&s, p)).min().unwrap_or(0);
        let round = match s.pair_round() {
            Ok(r) => r,
            Err(EventError::Round(_)) if players < 2 => return Ok(()),
            Err(EventError::Round(_)) => {
                prop_assert!(players <= 16, "{players} players refused a round");
                prop_assert!(!pairing_exists(&s, &present), "a pairing existed");
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        let mut seen = HashSet::new();
        for g in &round.games {
            prop_assert!(seen.insert(g.red.clone()) && seen.insert(g.black.clone()));
            let key = if g.red < g.black {
                (g.red.clone(), g.black.clone())
            } else {
                (g.black.clone(), g.red.clone())
            };
            prop_assert!(met.insert(key), "rematch {} {}", g.red, g.black);
        }
        match &round.bye {
            Some(b) => {
                prop_assert!(players % 2 == 1);
                prop_assert!(seen.insert(b.clone()));
                prop_assert_eq!(
                    byes(&s, b) - 1,
                    fewest_byes,
                    "a second bye while another has none"
                );
            }
            None => prop_assert!(players.is_multiple_of(2)),
        }
        prop_assert_eq!(seen.len(), players);
        // Once a round had to relax the colour rule, later rounds cannot undo what it did.
        colours_kept &= !round.colours_relaxed;
        if colours_kept {
            for p in &present {
                let c = colours(&s, p);
                let reds = c.iter().filter(|&&x| x == Side::Red).count() as i64;
                let diff = 2 * reds - c.len() as i64;
                prop_assert!(diff.abs() <= 2, "{p}: colour difference {diff}");
                prop_assert!(
                    !c.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                    "{p}: three of a colour in a row: {c:?}"
                );
            }
        }
        for g in &round.games {
            let result = match rng.next() % 5 {
                0 | 1 => SwissResult::RedWon,
                2 | 3 => SwissResult::BlackWon,
                _ => SwissResult::Draw,
            };
            s.record_result(g.id, result).unwrap();
        }
    }
    prop_assert!(s.is_finished());
    for p in s.players.values() {
        prop_assert_eq!(p.sheet.len(), rounds as usize, "one entry per round");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn swiss_pairings_keep_the_absolute_rules(
        players in 2usize..=64,
        rounds in 1u32..=9,
        seed in any::<u64>(),
    ) {
        run(players, rounds, seed, false)?;
    }

    /// Players withdraw, come back and join late.
    #[test]
    fn swiss_with_withdrawals_and_late_joins(
        players in 2usize..=40,
        rounds in 1u32..=9,
        seed in any::<u64>(),
    ) {
        run(players, rounds, seed, true)?;
    }

    /// Small events, where rematches and colour conflicts press hardest.
    #[test]
    fn small_swiss_events(players in 2usize..=12, rounds in 1u32..=9, seed in any::<u64>()) {
        run(players, rounds, seed, false)?;
    }
}

/// The colour rule is relaxed only when nothing else works; count how often over many events
/// (a regression guard: it should stay rare).
#[test]
fn relaxed_colours_are_rare() {
    let mut relaxed = 0;
    let mut rounds_paired = 0;
    for seed in 1..=40u64 {
        let mut rng = Rng(seed * 0x9e37_79b9);
        let players = 6 + (seed as usize * 7) % 40;
        let mut s = Swiss::new(SwissSettings { rounds: 7 });
        for i in 0..players {
            s.join(
                PlayerId(format!("p{i:02}")),
                1000 + (rng.next() % 1500) as i32,
            )
            .unwrap();
        }
        while let Ok(round) = s.pair_round() {
            rounds_paired += 1;
            relaxed += usize::from(round.colours_relaxed);
            for g in &round.games {
                let r = [
                    SwissResult::RedWon,
                    SwissResult::BlackWon,
                    SwissResult::Draw,
                ][(rng.next() % 3) as usize];
                s.record_result(g.id, r).unwrap();
            }
        }
    }
    assert!(rounds_paired > 200);
    assert!(
        relaxed * 20 <= rounds_paired,
        "{relaxed} of {rounds_paired} rounds relaxed colours"
    );
}
