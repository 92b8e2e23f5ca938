//! The search kit the sanguo and banqi players share: a level's search limits ([`Settings`]
//! from a game's [`LevelTable`]), the node count against the budget (`Counter`), a small
//! transposition table whose entries carry a [`Bound`] (`Table`), and the iterative deepening
//! of the root moves (`deepen`); the last three are the crate's own. The budget, the generator and the noisy choice among the
//! root moves are [`crate::levels`]'s.
//!
//! The two players keep what differs: the board, the move generator, the evaluation, the search
//! below the root (paranoid for sanguo, expectimax with flips for banqi) and the repetition rule.

use crate::levels::{Budget, Level};
pub use crate::tt::Bound;
use std::marker::PhantomData;

/// The score of a win at the root (a win found `n` plies deeper scores `WIN - n`).
pub const WIN: i32 = 30_000;
/// Beyond every score: the open window's edges and "not searched".
pub const INF: i32 = 32_000;

/// A game's search limits for levels 1–8, index `level - 1`.
pub trait LevelTable {
    /// Deepest iteration of each level, plies.
    const DEPTH_CAP: [i32; 8];
    /// Node budget of each level.
    const NODES: [u64; 8];
    /// Noise of each level: the largest error added to a root move's score, in the game's
    /// evaluation units ([`crate::levels::pick`]).
    const NOISE: [i32; 8];
}

/// The search limits of a level of the game `G`: depth cap, node budget and noise.
#[derive(Debug)]
pub struct Settings<G> {
    /// Deepest iteration, plies.
    pub depth: i32,
    /// When to stop.
    pub budget: Budget,
    /// Largest error added to a root move's score before the choice
    /// ([`crate::levels::pick`]).
    pub noise: i32,
    game: PhantomData<fn() -> G>,
}

impl<G> Clone for Settings<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for Settings<G> {}

impl<G> PartialEq for Settings<G> {
    fn eq(&self, other: &Self) -> bool {
        (self.depth, self.budget, self.noise) == (other.depth, other.budget, other.noise)
    }
}

impl<G> Eq for Settings<G> {}

impl<G: LevelTable> Settings<G> {
    /// The settings of `level` (1–8, clamped): its depth cap, node budget and noise from the
    /// game's table, the deadline its time budget ([`Level::time_budget`]).
    pub fn level(level: u8) -> Settings<G> {
        let l = Level::get(level);
        let i = usize::from(l.number) - 1;
        Settings {
            depth: G::DEPTH_CAP[i],
            budget: Budget::nodes(G::NODES[i]).capped(l.time_budget()),
            noise: G::NOISE[i],
            game: PhantomData,
        }
    }
}

impl<G> Settings<G> {
    /// Full strength with `budget`: level 8's depth cap (64 plies) and no noise.
    pub fn full(budget: Budget) -> Settings<G> {
        Settings {
            depth: 64,
            budget,
            noise: 0,
            game: PhantomData,
        }
    }
}

/// Nodes visited against a [`Budget`], the budget looked at every `2^k` nodes.
#[derive(Debug)]
pub(crate) struct Counter {
    budget: Budget,
    /// Nodes visited.
    pub(crate) nodes: u64,
    /// Whether the budget ran out: every search stops and its value is not used.
    pub(crate) stopped: bool,
    mask: u64,
}

impl Counter {
    /// A counter for `budget`, looking at it every `check_every` nodes (a power of two).
    pub(crate) fn new(budget: Budget, check_every: u64) -> Counter {
        debug_assert!(check_every.is_power_of_two());
        Counter {
            budget,
            nodes: 0,
            stopped: false,
            mask: check_every - 1,
        }
    }

    /// Counts a node; whether the search must stop.
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & self.mask == 0 && self.budget.exhausted(self.nodes) {
            self.stopped = true;
        }
        self.stopped
    }
}

/// One slot of a [`Table`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<M> {
    key: u64,
    depth: i8,
    /// Which side of the true value [`Entry::score`] is.
    pub(crate) bound: Bound,
    /// The stored value.
    pub(crate) score: i32,
    /// The best (or refuting) move found.
    pub(crate) mv: Option<M>,
}

impl<M> Entry<M> {
    /// The stored value when it settles a search of `depth` plies in the window
    /// `alpha..beta`: searched as deep or deeper, and exact or beyond the window's edge.
    pub(crate) fn cutoff(&self, depth: i32, alpha: i32, beta: i32) -> Option<i32> {
        if i32::from(self.depth) < depth {
            return None;
        }
        let settles = match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        };
        settles.then_some(self.score)
    }
}

/// A small always-replace transposition table of `2^bits` slots, indexed by the low bits of the
/// key. An empty slot reads as key 0, depth 0, exact score 0.
pub(crate) struct Table<M> {
    slots: Vec<Entry<M>>,
}

impl<M: Copy> Table<M> {
    /// An empty table of `2^bits` slots.
    pub(crate) fn new(bits: u32) -> Table<M> {
        let empty = Entry {
            key: 0,
            depth: 0,
            bound: Bound::Exact,
            score: 0,
            mv: None,
        };
        Table {
            slots: vec![empty; 1 << bits],
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    /// The entry stored for `key`, if its slot holds it.
    pub(crate) fn probe(&self, key: u64) -> Option<Entry<M>> {
        let e = self.slots[self.slot(key)];
        (e.key == key).then_some(e)
    }

    /// Stores the result of a search of `depth` plies (capped at 100) of the position `key`:
    /// `best` found in the window `alpha0..beta0` it was called with, and its move.
    pub(crate) fn store(
        &mut self,
        key: u64,
        depth: i32,
        (alpha0, beta0): (i32, i32),
        best: i32,
        mv: Option<M>,
    ) {
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let slot = self.slot(key);
        self.slots[slot] = Entry {
            key,
            depth: depth.min(100) as i8,
            bound,
            score: best,
            mv,
        };
    }
}

/// Iterative deepening over the root `moves` up to `max_depth` plies (at least 1): each
/// iteration scores every move with `value(move, depth, alpha)` in the order of the last
/// iteration's scores, best first, where `alpha` is the best score so far less `noise + 1` (a
/// move the noise could not lift to the best need not be known exactly). `value` gives `None`
/// when the budget ran out; an unfinished iteration keeps the previous scores, improved by the
/// moves it finished (the first iteration: those moves' scores). A win or a loss found stops the
/// deepening.
///
/// Returns the scored moves in the order of the last finished iteration (best first), without
/// the ones never scored.
pub(crate) fn deepen<M: Copy + PartialEq>(
    moves: &[M],
    max_depth: i32,
    noise: i32,
    mut value: impl FnMut(M, i32, i32) -> Option<i32>,
) -> Vec<(M, i32)> {
    let mut scored: Vec<(M, i32)> = moves.iter().map(|&m| (m, -INF)).collect();
    for depth in 1..=max_depth.max(1) {
        let mut iteration = Vec::with_capacity(scored.len());
        let mut best = -INF;
        let mut stopped = false;
        for &(m, _) in &scored {
            let alpha = (best - noise - 1).max(-INF);
            let Some(v) = value(m, depth, alpha) else {
                stopped = true;
                break;
            };
            best = best.max(v);
            iteration.push((m, v));
        }
        if stopped {
            for (m, v) in iteration {
                if let Some(e) = scored.iter_mut().find(|e| e.0 == m) {
                    if depth == 1 || v > e.1 {
                        e.1 = v;
                    }
                }
            }
            break;
        }
        scored = iteration;
        scored.sort_by_key(|e| std::cmp::Reverse(e.1));
        if best.abs() >= WIN - 100 {
            break;
        }
    }
    scored.retain(|e| e.1 > -INF);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_entry_settles_only_deep_enough_and_beyond_its_bound() {
        let mut t: Table<u8> = Table::new(4);
        assert!(t.probe(5).is_none());
        t.store(5, 3, (-10, 10), 20, Some(1));
        let e = t.probe(5).expect("stored");
        assert_eq!((e.bound, e.mv), (Bound::Lower, Some(1)));
        assert_eq!(e.cutoff(3, -10, 15), Some(20));
        assert_eq!(e.cutoff(3, -10, 25), None);
        assert_eq!(e.cutoff(4, -10, 15), None);
        // Another key in the same slot replaces it.
        t.store(21, 1, (-10, 10), -30, None);
        assert!(t.probe(5).is_none());
        assert_eq!(t.probe(21).map(|e| e.bound), Some(Bound::Upper));
        t.store(21, 1, (-10, 10), 0, None);
        assert_eq!(t.probe(21).and_then(|e| e.cutoff(1, 5, 6)), Some(0));
    }

    #[test]
    fn deepening_orders_by_the_last_iteration_and_keeps_a_partial_one() {
        // Scores grow with depth for "b" only; the budget runs out in the third iteration.
        let mut calls = 0;
        let out = deepen(&["a", "b", "c"], 8, 0, |m, depth, _| {
            calls += 1;
            (calls <= 8).then_some(match m {
                "a" => 10,
                "b" => 5 * depth,
                _ => -INF,
            })
        });
        // Depth 1: a 10, b 5, c lost (-INF). Depth 2: a 10, b 10, c. Depth 3: a 10, b 15, and
        // the budget runs out at c: b keeps its better score, the order stays depth 2's.
        assert_eq!(out, vec![("a", 10), ("b", 15)]);
        let none = deepen::<u8>(&[], 8, 0, |_, _, _| unreachable!());
        assert!(none.is_empty());
    }

    #[test]
    fn settings_come_from_the_game_table() {
        #[derive(Debug)]
        struct Game;
        impl LevelTable for Game {
            const DEPTH_CAP: [i32; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
            const NODES: [u64; 8] = [10, 20, 30, 40, 50, 60, 70, 80];
            const NOISE: [i32; 8] = [8, 7, 6, 5, 4, 3, 2, 1];
        }
        let s = Settings::<Game>::level(9);
        assert_eq!((s.depth, s.budget.nodes, s.noise), (8, 80, 1));
        let f = Settings::<Game>::full(Budget::nodes(5));
        assert_eq!((f.depth, f.noise), (64, 0));
    }
}
