//! The computer player for seats taken by the computer.
//!
//! Placeholders until `chuhe-engine` offers its search and players on main: for xiangqi a small
//! negamax with alpha-beta over plain material, its depth set by the level, with random
//! tie-breaking (level 1 plays a random legal move); for sanguo and banqi a simple player that
//! takes something when it can and otherwise plays a random legal move (the level is ignored).
//! Runs on a blocking thread; never called with a finished game.

use crate::variant::{AnyGame, AnyMove};
use chuhe_rules::xiangqi::{Color, Kind, Move, Piece, Position};
use rand::seq::SliceRandom;
use rand::Rng;

/// Levels run from 1 (weakest) to this.
pub const MAX_LEVEL: u8 = 8;

/// Material values in tenths of a soldier, by [`Kind`] index (General, Advisor, Elephant,
/// Horse, Chariot, Cannon, Soldier); common teaching values (Chariot 9, Horse 4, Cannon 4.5,
/// Advisor and Elephant 2, Soldier 1, 2 once across the river).
const VALUES: [i32; 7] = [0, 20, 20, 40, 90, 45, 10];
/// A checkmate (or stalemate, which also loses in xiangqi) score, before depth adjustment.
const MATE: i32 = 100_000;

/// Search depth in plies for a level: 1–2 → 1, 3–4 → 2, 5–6 → 3, 7–8 → 4 (level 1 also picks at
/// random among all moves).
pub fn depth_for(level: u8) -> u32 {
    u32::from(level.clamp(1, MAX_LEVEL)).div_ceil(2)
}

/// Material balance from `color`'s side, in tenths of a soldier.
pub fn material(pos: &Position, color: Color) -> i32 {
    let mut score = 0;
    for c in Color::ALL {
        let sign = if c == color { 1 } else { -1 };
        for kind in Kind::ALL {
            let bb = pos.by_piece(Piece::new(c, kind));
            if kind == Kind::Soldier {
                for sq in bb {
                    let crossed = match c {
                        Color::Red => sq.rank() >= 5,
                        Color::Black => sq.rank() <= 4,
                    };
                    score += sign * if crossed { 20 } else { 10 };
                }
            } else {
                score += sign * VALUES[kind.index()] * bb.count() as i32;
            }
        }
    }
    score
}

fn negamax(pos: &mut Position, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return -MATE + ply;
    }
    if depth == 0 {
        return material(pos, pos.side_to_move());
    }
    let mut best = -MATE - 1;
    for &m in moves.iter() {
        let undo = pos.play_unchecked(m);
        let score = -negamax(pos, depth - 1, -beta, -alpha, ply + 1);
        pos.undo(m, undo);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The best xiangqi move at `depth` by material, ties broken at random; `None` without a legal
/// move.
pub fn xiangqi_move(pos: &Position, depth: u32, rng: &mut impl Rng) -> Option<Move> {
    let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    moves.shuffle(rng);
    let mut pos = pos.clone();
    let mut best: Option<(i32, Move)> = None;
    for m in moves {
        let undo = pos.play_unchecked(m);
        let lower = best.map_or(-MATE - 1, |(s, _)| s);
        let score = -negamax(&mut pos, depth.saturating_sub(1), -MATE - 1, -lower, 1);
        pos.undo(m, undo);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, m));
        }
    }
    best.map(|(_, m)| m)
}

/// The computer's move at `level` for the seat to move; `None` when the game is over.
pub fn choose(game: &AnyGame, level: u8, rng: &mut impl Rng) -> Option<AnyMove> {
    if game.outcome().is_some() {
        return None;
    }
    if let Some(g) = game.as_xiangqi() {
        let pos = g.position();
        return if level <= 1 {
            let moves = pos.legal_moves();
            moves.as_slice().choose(rng).copied().map(AnyMove::Xiangqi)
        } else {
            xiangqi_move(pos, depth_for(level), rng).map(AnyMove::Xiangqi)
        };
    }
    // Sanguo and banqi: a capture when there is one (their texts carry `x`), else any move.
    let moves = game.legal_moves();
    let captures: Vec<&String> = moves.iter().filter(|m| m.contains('x')).collect();
    let pick = if captures.is_empty() {
        moves.iter().collect::<Vec<_>>().choose(rng).copied()
    } else {
        captures.choose(rng).copied()
    }?;
    game.parse_move(pick).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn depths_by_level() {
        let depths: Vec<u32> = (1..=8).map(depth_for).collect();
        assert_eq!(depths, vec![1, 1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn start_material_is_balanced() {
        assert_eq!(material(&Position::start(), Color::Red), 0);
        // Red without its h-file chariot (i0): Black is 9 soldiers up.
        let pos = Position::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN1 w - - 0 1",
        )
        .unwrap();
        assert_eq!(material(&pos, Color::Red), -90);
        assert_eq!(material(&pos, Color::Black), 90);
    }

    #[test]
    fn takes_a_free_chariot_and_finds_mate_in_one() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        // Red's chariot on e4 hangs to Black's chariot on e8 (the e-file between is empty).
        let pos = Position::from_fen("3k5/4r4/9/9/9/4R4/9/9/9/5K3 b - - 0 1").unwrap();
        assert_eq!(
            xiangqi_move(&pos, 1, &mut rng).map(|m| m.to_string()),
            Some("e8e4".to_owned())
        );
        // Two chariots: b7 to b9 mates the general on d9 (the chariot on a8 holds rank 8); most
        // other moves of that chariot stalemate it (e9 faces Red's general), which also wins.
        let pos = Position::from_fen("3k5/R8/1R7/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
        for depth in 1..=3 {
            let m = xiangqi_move(&pos, depth, &mut rng).unwrap();
            let mut after = pos.clone();
            after.play(m).unwrap();
            assert!(!after.has_legal_move(), "depth {depth}: {m}");
        }
    }
}
