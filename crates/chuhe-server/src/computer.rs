//! The computer player for seats taken by the computer.
//!
//! Xiangqi seats play with chuhe's engine ([`chuhe_engine::player`]) at levels 1–8 (skill and a
//! node budget growing with the level). Sanguo and banqi seats use a simple player until strong
//! ones arrive: it takes something when it can and otherwise plays a random legal move (the level
//! is ignored). Runs on a blocking thread; never called with a finished game.

use crate::variant::{AnyGame, AnyMove};
use rand::seq::SliceRandom;
use rand::Rng;

/// Levels run from 1 (weakest) to this.
pub const MAX_LEVEL: u8 = chuhe_engine::player::MAX_LEVEL;

/// The computer's move at `level` for the seat to move; `None` when the game is over.
pub fn choose(game: &AnyGame, level: u8, rng: &mut impl Rng) -> Option<AnyMove> {
    if game.outcome().is_some() {
        return None;
    }
    if let Some(g) = game.as_xiangqi() {
        let seed: u64 = rng.gen();
        let limit = g.options().no_capture_limit;
        return chuhe_engine::player::choose_move(g.start(), &g.moves(), level, limit, seed)
            .map(AnyMove::Xiangqi);
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
    use crate::variant::Variant;
    use rand::SeedableRng;

    #[test]
    fn the_computer_plays_legal_moves_at_every_level() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for level in 1..=MAX_LEVEL {
            let options = crate::variant::RuleOptions {
                no_capture_limit: 120,
                flag_bearers: true,
            };
            let game = AnyGame::new(Variant::Xiangqi, options);
            let m = choose(&game, level, &mut rng).expect("a move");
            assert!(
                game.legal_moves().contains(&m.to_string()),
                "level {level}: {m}"
            );
        }
    }
}
