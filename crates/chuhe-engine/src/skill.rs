//! Weaker play: `Skill Level` and `UCI_LimitStrength`/`UCI_Elo` (`spec/engine-protocol.md` §3).
//!
//! A level `L` in 0.0..=20.0 (20 = full strength) caps the search depth at `1 + L / 2` plies
//! (none at 20), searches [`SKILL_LINES`] lines, and plays the line whose score plus a random
//! error in `0..=(20 - L) × NOISE_PER_LEVEL` centipawns is largest. `UCI_Elo` maps linearly
//! onto the level: 500 → 0, 2800 → 20 (see `docs/engine.md` for how the scale was estimated).

/// Lines searched when the strength is limited.
pub const SKILL_LINES: usize = 4;
/// Largest random error, centipawns per level below 20.
pub const NOISE_PER_LEVEL: f64 = 14.0;
/// The `UCI_Elo` that maps to level 0.
pub const ELO_MIN: u32 = 500;
/// The `UCI_Elo` that maps to level 20.
pub const ELO_MAX: u32 = 2800;

/// The effective level, or `None` at full strength.
pub fn level(skill_level: u32, limit_strength: bool, elo: u32) -> Option<f64> {
    let l = if limit_strength {
        let e = elo.clamp(ELO_MIN, ELO_MAX) - ELO_MIN;
        f64::from(e) * 20.0 / f64::from(ELO_MAX - ELO_MIN)
    } else {
        f64::from(skill_level.min(20))
    };
    (l < 20.0).then_some(l)
}

/// The depth cap of a level.
pub fn depth_cap(level: f64) -> i32 {
    1 + (level / 2.0) as i32
}

/// Picks among `lines` (move, score) for `level`, with the pseudo-random `seed`.
pub fn choose<M: Copy>(lines: &[(M, i32)], level: f64, seed: u64) -> Option<M> {
    let amplitude = ((20.0 - level) * NOISE_PER_LEVEL) as u64 + 1;
    let mut x = seed | 1;
    let mut best: Option<(M, i64)> = None;
    for &(m, score) in lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = i64::from(score) + (x % amplitude) as i64;
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
    fn levels_and_elo() {
        assert_eq!(level(20, false, 1500), None);
        assert_eq!(level(10, false, 1500), Some(10.0));
        assert_eq!(level(20, true, 500), Some(0.0));
        assert_eq!(level(3, true, 2800), None);
        assert_eq!(depth_cap(0.0), 1);
        assert_eq!(depth_cap(19.0), 10);
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
