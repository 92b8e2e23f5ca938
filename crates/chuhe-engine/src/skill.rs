//! Weaker play: the one strength pipeline (`spec/engine-protocol.md` §3).
//!
//! Both front ends go through [`Strength`]: the UCI/UCCI session (`Skill Level`,
//! `UCI_LimitStrength`/`UCI_Elo`, UCCI `skilllevel`) and the computer player of the game server
//! ([`crate::player`], levels 1–8). A strength is a level `L` in 0.0..=20.0, or full strength
//! (level 20 or more). From it, [`Strength::limit`] derives the search limits and settings and
//! [`Strength::search`] runs the search and chooses the move:
//!
//! - the search depth is capped at `1 + L / 2` plies (none at full strength);
//! - at least [`SKILL_LINES`] lines are searched (MultiPV);
//! - the move played is the first move of the line whose score plus a random error in
//!   `0..=(20 - L) × NOISE_PER_LEVEL` centipawns is largest, the error drawn from a seed (the same
//!   seed gives the same move).
//!
//! `UCI_Elo` maps linearly onto the level: 500 → 0, 2800 → 20 (see `docs/engine.md` for how the
//! scale was estimated).

use crate::levels::{pick, Rng};
use crate::search::{Info, Limits, Searcher, Settings};
use chuhe_rules::xiangqi::Move;

/// Lines searched when the strength is limited.
pub const SKILL_LINES: usize = 4;
/// Largest random error, centipawns per level below 20.
pub const NOISE_PER_LEVEL: f64 = 14.0;
/// The `UCI_Elo` that maps to level 0.
pub const ELO_MIN: u32 = 500;
/// The `UCI_Elo` that maps to level 20.
pub const ELO_MAX: u32 = 2800;
/// The highest `Skill Level`: full strength.
pub const MAX_SKILL_LEVEL: u32 = 20;

/// A playing strength: a level in 0.0..20.0, or full strength.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strength {
    /// `None` at full strength.
    level: Option<f64>,
}

/// The move a search at some [`Strength`] chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The move to play; `None` when there is no legal (or allowed) move.
    pub best: Option<Move>,
    /// The expected reply, if known.
    pub ponder: Option<Move>,
    /// The internal score of the chosen move (centipawns, or mate scores as in [`crate::search`]).
    pub score: i32,
    /// At a limited strength, the `info` line of the chosen move (its `multipv` is its rank among
    /// the lines searched); `None` at full strength.
    pub line: Option<Info>,
}

impl Strength {
    /// Full strength: no depth cap, the search's best move.
    pub const FULL: Strength = Strength { level: None };

    /// The strength of the engine options: `UCI_Elo` (clamped to [`ELO_MIN`]..=[`ELO_MAX`]) when
    /// `limit_strength` (`UCI_LimitStrength`) is on, else `skill_level` (`Skill Level`, 0–20,
    /// larger values are full strength).
    pub fn from_options(skill_level: u32, limit_strength: bool, elo: u32) -> Strength {
        let l = if limit_strength {
            let e = elo.clamp(ELO_MIN, ELO_MAX) - ELO_MIN;
            f64::from(e) * 20.0 / f64::from(ELO_MAX - ELO_MIN)
        } else {
            f64::from(skill_level.min(MAX_SKILL_LEVEL))
        };
        Strength {
            level: (l < 20.0).then_some(l),
        }
    }

    /// The strength of a `Skill Level` (0–20; 20 and more is full strength).
    pub fn from_skill_level(skill_level: u32) -> Strength {
        Strength::from_options(skill_level, false, 0)
    }

    /// The level in 0.0..20.0, or `None` at full strength.
    pub fn level(self) -> Option<f64> {
        self.level
    }

    /// The depth cap at this strength, plies (`None` at full strength).
    pub fn depth_cap(self) -> Option<i32> {
        self.level.map(|l| 1 + (l / 2.0) as i32)
    }

    /// Narrows the search for this strength: caps `limits.depth` at [`Strength::depth_cap`]
    /// (keeping a smaller depth asked for) and searches at least [`SKILL_LINES`] lines
    /// (`settings.multi_pv`). Nothing changes at full strength.
    pub fn limit(self, limits: &mut Limits, settings: &mut Settings) {
        if let Some(cap) = self.depth_cap() {
            limits.depth = Some(limits.depth.map_or(cap, |d| d.min(cap)));
            settings.multi_pv = settings.multi_pv.max(SKILL_LINES);
        }
    }

    /// Runs `searcher` (made with the limits and settings of [`Strength::limit`]) and chooses the
    /// move: at full strength the search's best move; otherwise every line is searched
    /// (`settings.multi_pv` of them) and the one chosen by the noise drawn from `seed` is played.
    /// `report` receives every `info` line of the search.
    pub fn search(
        self,
        searcher: &mut Searcher,
        seed: u64,
        report: &mut dyn FnMut(&Info),
    ) -> Choice {
        let Some(level) = self.level else {
            let o = searcher.run(report);
            return Choice {
                best: o.best,
                ponder: o.ponder,
                score: o.score,
                line: None,
            };
        };
        let lines = searcher.run_lines(searcher.settings().multi_pv, report);
        let scored: Vec<(usize, i32)> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l.score))
            .collect();
        match choose(&scored, level, seed).map(|i| &lines[i]) {
            Some(info) => Choice {
                best: info.pv.first().copied(),
                ponder: info.pv.get(1).copied(),
                score: info.score,
                line: Some(info.clone()),
            },
            None => Choice {
                best: None,
                ponder: None,
                score: 0,
                line: None,
            },
        }
    }
}

/// Picks among `lines` (move, score in centipawns) for `level` (0.0..=20.0), seeded by `seed`:
/// the largest score plus an error in `0..=(20 - L) × NOISE_PER_LEVEL` centipawns, through the
/// one noisy choice of every player ([`pick`], with the engine's one generator, [`Rng`]).
/// `None` when `lines` is empty.
pub fn choose<M: Copy>(lines: &[(M, i32)], level: f64, seed: u64) -> Option<M> {
    let noise = ((20.0 - level) * NOISE_PER_LEVEL) as i32;
    pick(lines, noise, &mut Rng::new(seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_elo() {
        assert_eq!(Strength::from_options(20, false, 1500), Strength::FULL);
        assert_eq!(Strength::from_options(10, false, 1500).level(), Some(10.0));
        assert_eq!(Strength::from_options(20, true, 500).level(), Some(0.0));
        assert_eq!(Strength::from_options(3, true, 2800), Strength::FULL);
        assert_eq!(Strength::from_skill_level(0).depth_cap(), Some(1));
        assert_eq!(Strength::from_skill_level(19).depth_cap(), Some(10));
        assert_eq!(Strength::FULL.depth_cap(), None);
    }

    #[test]
    fn limits_cap_the_depth_and_widen_the_lines() {
        let mut limits = Limits {
            depth: Some(8),
            ..Limits::default()
        };
        let mut settings = Settings::default();
        Strength::FULL.limit(&mut limits, &mut settings);
        assert_eq!((limits.depth, settings.multi_pv), (Some(8), 1));
        Strength::from_skill_level(6).limit(&mut limits, &mut settings);
        assert_eq!((limits.depth, settings.multi_pv), (Some(4), SKILL_LINES));
        let mut limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        settings.multi_pv = 6;
        Strength::from_skill_level(6).limit(&mut limits, &mut settings);
        assert_eq!((limits.depth, settings.multi_pv), (Some(2), 6));
    }

    #[test]
    fn full_noise_can_pick_a_worse_line_and_a_huge_gap_never() {
        let lines = [("a", 10), ("b", 0)];
        let picks: Vec<&str> = (1..200)
            .filter_map(|s| choose(&lines, 0.0, s * 7919))
            .collect();
        assert!(picks.contains(&"a") && picks.contains(&"b"));
        let lines = [("a", 1000), ("b", 0)];
        assert!((1..200).all(|s| choose(&lines, 0.0, s * 7919) == Some("a")));
    }
}
