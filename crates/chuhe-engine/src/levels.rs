//! Levels 1–8 on one scale for the three games, and what the players share: the per-level facts a
//! table shows ([`Level`]: time budget, description key, approximate Elo where measured), the
//! thinking budget ([`Budget`]), the seeded generator ([`Rng`]) and the human-like choice among
//! scored moves ([`pick`]).
//!
//! A level means the same in every game: level 1 searches one move deep and often prefers a
//! plausible but worse move (the error is drawn in proportion to how close the move's score is),
//! level 8 plays the best move of a full search within its budget. Each game maps a level onto
//! its own depth cap, node budget and noise ([`crate::banqi`], [`crate::sanguo`],
//! [`crate::player`] for xiangqi); the time budget of [`Level::time_budget`] caps all of them.

use std::time::{Duration, Instant};

/// The highest level.
pub const MAX_LEVEL: u8 = 8;

/// The facts of one level, the same for every game (`docs/players.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// 1 (weakest) to 8 (strongest).
    pub number: u8,
    /// A short description key for the client's translations: `beginner`, `novice`, `casual`,
    /// `intermediate`, `club`, `strong`, `expert` or `master`.
    pub key: &'static str,
    /// The longest time one move may take, milliseconds (the search stops by then; the answer
    /// arrives a little later at most, the time to unwind the search).
    pub time_ms: u64,
    /// The approximate xiangqi Elo of the level on the engine's `UCI_Elo` scale
    /// (`docs/engine.md`): an estimate, not a rating measured against people.
    pub xiangqi_elo: u32,
}

/// The eight levels, index `number - 1`.
pub const LEVELS: [Level; 8] = [
    level(1, "beginner", 300, 500),
    level(2, "novice", 400, 845),
    level(3, "casual", 500, 1190),
    level(4, "intermediate", 700, 1535),
    level(5, "club", 900, 1765),
    level(6, "strong", 1200, 2110),
    level(7, "expert", 1800, 2455),
    level(8, "master", 2500, 2800),
];

const fn level(number: u8, key: &'static str, time_ms: u64, xiangqi_elo: u32) -> Level {
    Level {
        number,
        key,
        time_ms,
        xiangqi_elo,
    }
}

impl Level {
    /// The level `number`, clamped to 1..=8.
    pub fn get(number: u8) -> Level {
        LEVELS[usize::from(number.clamp(1, MAX_LEVEL)) - 1]
    }

    /// [`Level::time_ms`] as a duration.
    pub fn time_budget(self) -> Duration {
        Duration::from_millis(self.time_ms)
    }
}

/// How long a player may think: a node count and an optional deadline; whichever comes first
/// stops the search (the best move of the last finished step is played).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most nodes to visit.
    pub nodes: u64,
    /// When to stop at the latest.
    pub deadline: Option<Instant>,
}

impl Budget {
    /// A budget of `nodes` nodes and no deadline (the same inputs give the same move).
    pub fn nodes(nodes: u64) -> Budget {
        Budget {
            nodes,
            deadline: None,
        }
    }

    /// A budget of `time` from now (and no node limit worth the name).
    pub fn time(time: Duration) -> Budget {
        Budget {
            nodes: u64::MAX,
            deadline: Some(Instant::now() + time),
        }
    }

    /// The same budget with the deadline moved earlier to `time` from now when that is sooner.
    pub fn capped(self, time: Duration) -> Budget {
        let cap = Instant::now() + time;
        Budget {
            nodes: self.nodes,
            deadline: Some(self.deadline.map_or(cap, |d| d.min(cap))),
        }
    }

    /// Whether a search that has visited `nodes` nodes must stop.
    pub fn exhausted(&self, nodes: u64) -> bool {
        nodes >= self.nodes || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The step of SplitMix64's state: 2^64 divided by the golden ratio.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The engine's one small seeded generator (SplitMix64, Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): the same seed gives the same sequence. The
/// players' noise ([`pick`]), the match seeds ([`crate::arena`]), the banqi player's search keys
/// and the tests' random walks all draw from it.
///
/// ```
/// use chuhe_engine::levels::Rng;
/// let mut a = Rng::new(7);
/// let first = a.next_u64();
/// assert_eq!(Rng::new(7).next_u64(), first);
/// assert_eq!(Rng::nth(0), Rng::new(0).next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        mix(self.0)
    }

    /// The `i`-th output (from 0) of the generator seeded with 0, without drawing the ones
    /// before it: a fixed random number per index (search keys).
    pub const fn nth(i: u64) -> u64 {
        mix(i.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA))
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

/// SplitMix64's output function of a state.
const fn mix(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The human-like choice among scored moves: each move's score (larger is better for the mover)
/// gets an error drawn uniformly from `0..=noise`, and the largest sum wins; `noise` 0 plays the
/// best move (the first of equal best). Moves far below the best are never chosen, moves close
/// to it often: mistakes are plausible moves, not random ones. `None` for no moves.
pub fn pick<M: Copy>(scored: &[(M, i32)], noise: i32, rng: &mut Rng) -> Option<M> {
    let mut best: Option<(M, i64)> = None;
    for &(m, s) in scored {
        let err = if noise > 0 {
            rng.below(noise as u64 + 1) as i64
        } else {
            0
        };
        let v = i64::from(s) + err;
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((m, v));
        }
    }
    best.map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_and_clamped() {
        assert_eq!(Level::get(0).number, 1);
        assert_eq!(Level::get(9).number, 8);
        assert_eq!(Level::get(5).key, "club");
        for w in LEVELS.windows(2) {
            assert!(w[0].time_ms < w[1].time_ms);
            assert!(w[0].xiangqi_elo < w[1].xiangqi_elo);
            assert_eq!(w[0].number + 1, w[1].number);
        }
        assert_eq!(Level::get(8).time_budget(), Duration::from_millis(2500));
    }

    #[test]
    fn pick_prefers_close_moves_and_never_far_ones() {
        let mut rng = Rng::new(3);
        let scored = [("a", 100), ("b", 90), ("c", -500)];
        let picks: Vec<&str> = (0..200)
            .filter_map(|_| pick(&scored, 50, &mut rng))
            .collect();
        assert!(picks.contains(&"a") && picks.contains(&"b"));
        assert!(!picks.contains(&"c"));
        assert_eq!(pick(&scored, 0, &mut rng), Some("a"));
        assert_eq!(pick::<&str>(&[], 10, &mut rng), None);
    }

    #[test]
    fn budgets_stop_on_nodes() {
        let b = Budget::nodes(10);
        assert!(!b.exhausted(9));
        assert!(b.exhausted(10));
        let t = Budget::time(Duration::from_secs(3600));
        assert!(!t.exhausted(1 << 40));
    }
}
