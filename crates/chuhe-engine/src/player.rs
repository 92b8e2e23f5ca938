//! The computer player at levels 1–8, for game servers (a seat taken by the computer).
//!
//! A level maps onto the engine's `Skill Level` (1 → 0, 8 → 20, linearly) and a node budget that
//! grows with the level, so a level costs about the same on any machine and plays the same way
//! for the same seed. The move is chosen by the engine's one strength pipeline
//! ([`crate::skill::Strength`]), the same as the UCI `Skill Level`; level 8 is the full search
//! within its node budget. Every level also keeps the time budget of its [`crate::levels::Level`]
//! (the search stops by then even on a slow machine).

use crate::search::{Control, Limits, Searcher, Settings};
use crate::skill::{Strength, MAX_SKILL_LEVEL};
use crate::tt::Table;
use chuhe_rules::xiangqi::{Move, Position};

/// The highest level.
pub const MAX_LEVEL: u8 = crate::levels::MAX_LEVEL;

/// Nodes searched per move at levels 1–8.
pub const NODES_BY_LEVEL: [u64; 8] = [
    2_000, 5_000, 12_000, 30_000, 70_000, 150_000, 350_000, 800_000,
];

/// Transposition table size for one move choice, MiB.
const TABLE_MIB: usize = 8;

/// The engine's `Skill Level` (0–20) for a level (1–8; values outside are clamped): linear,
/// rounded to the nearest integer.
pub fn skill_level(level: u8) -> u32 {
    let l = u32::from(level.clamp(1, MAX_LEVEL)) - 1;
    let steps = u32::from(MAX_LEVEL) - 1;
    (l * MAX_SKILL_LEVEL + steps / 2) / steps
}

/// The computer's move at `level` in the position reached from `start` by `moves` (the game so
/// far, used for the repetition rules), or `None` when there is no legal move.
/// `no_capture_limit` is the game's limit in plies (0 = off). `seed` varies the choice at lower
/// levels; the same inputs give the same move.
///
/// # Panics
/// If a move of `moves` is not legal in turn (callers pass a game's own moves).
pub fn choose_move(
    start: &Position,
    moves: &[Move],
    level: u8,
    no_capture_limit: u16,
    seed: u64,
) -> Option<Move> {
    let time = crate::levels::Level::get(level).time_budget();
    choose_move_within(start, moves, level, no_capture_limit, seed, time)
}

/// [`choose_move`] within `time` when that is less than the level's time budget (the server
/// gives a search that waited for a thread what is left of the budget).
///
/// # Panics
/// If a move of `moves` is not legal in turn.
pub fn choose_move_within(
    start: &Position,
    moves: &[Move],
    level: u8,
    no_capture_limit: u16,
    seed: u64,
    time: std::time::Duration,
) -> Option<Move> {
    let level = level.clamp(1, MAX_LEVEL);
    let nodes = NODES_BY_LEVEL[usize::from(level) - 1];
    let time = time.min(crate::levels::Level::get(level).time_budget());
    choose_move_with(
        start,
        moves,
        level,
        no_capture_limit,
        seed,
        nodes,
        Some(time),
    )
}

/// [`choose_move`] with an explicit node budget and time limit (`None`: nodes only, so the same
/// inputs always give the same move), for match runs with short budgets.
///
/// # Panics
/// If a move of `moves` is not legal in turn.
pub fn choose_move_with(
    start: &Position,
    moves: &[Move],
    level: u8,
    no_capture_limit: u16,
    seed: u64,
    nodes: u64,
    time: Option<std::time::Duration>,
) -> Option<Move> {
    let level = level.clamp(1, MAX_LEVEL);
    let skill = skill_level(level);
    let Ok(table) = Table::new(TABLE_MIB) else {
        return None;
    };
    let ctl = Control::default();
    let strength = Strength::from_skill_level(skill);
    let mut limits = Limits {
        nodes: Some(nodes),
        movetime: time.map(|t| t.as_millis().max(1) as u64),
        ..Limits::default()
    };
    let mut settings = Settings {
        no_capture_limit,
        skill_level: skill,
        ..Settings::default()
    };
    strength.limit(&mut limits, &mut settings);
    let mut searcher = Searcher::new(start, moves, &table, &ctl, settings, limits);
    strength.search(&mut searcher, seed, &mut |_| {}).best
}

#[cfg(test)]
mod tests {
    use super::*;
    use chuhe_rules::xiangqi::DEFAULT_NO_CAPTURE_LIMIT;

    #[test]
    fn levels_map_onto_skill() {
        let skills: Vec<u32> = (1..=8).map(skill_level).collect();
        assert_eq!(skills, vec![0, 3, 6, 9, 11, 14, 17, 20]);
        assert_eq!(skill_level(0), 0);
        assert_eq!(skill_level(99), 20);
    }

    #[test]
    fn every_level_plays_a_legal_move_and_the_top_level_mates() {
        let start = Position::start();
        for level in 1..=MAX_LEVEL {
            let m = choose_move(&start, &[], level, DEFAULT_NO_CAPTURE_LIMIT, 7).expect("a move");
            assert!(start.is_legal(m), "level {level}: {m}");
        }
        // Mate in one: the chariot to a9 (spec/xiangqi.md E15 position, halfmove reset).
        let pos = Position::from_fen("3k5/1R7/9/9/9/9/9/9/9/4K2R1 w").unwrap();
        assert_eq!(
            choose_move(&pos, &[], MAX_LEVEL, DEFAULT_NO_CAPTURE_LIMIT, 1).map(|m| m.to_string()),
            Some("h0h9".to_owned())
        );
        let mated = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b").unwrap();
        assert_eq!(
            choose_move(&mated, &[], 3, DEFAULT_NO_CAPTURE_LIMIT, 1),
            None
        );
    }

    #[test]
    fn same_seed_same_move() {
        let start = Position::start();
        let moves: Vec<Move> = ["h2e2", "h9g7"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        let a = choose_move(&start, &moves, 2, DEFAULT_NO_CAPTURE_LIMIT, 42);
        assert_eq!(
            a,
            choose_move(&start, &moves, 2, DEFAULT_NO_CAPTURE_LIMIT, 42)
        );
    }
}
