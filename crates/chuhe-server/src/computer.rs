//! The computer player for seats taken by the computer.
//!
//! Xiangqi seats play with chuhe's engine ([`chuhe_engine::player`]) at levels 1–8 (skill and a
//! node budget growing with the level). Sanguo and banqi seats use a simple player until strong
//! ones arrive: it takes something when it can and otherwise plays a random legal move (the level
//! is ignored). Runs on a blocking thread; never called with a finished game.

use crate::variant::{AnyGame, AnyMove, Variant};
use rand::seq::SliceRandom;
use rand::Rng;

/// Levels run from 1 (weakest) to this.
pub const MAX_LEVEL: u8 = chuhe_engine::player::MAX_LEVEL;

/// What the computer needs to choose a move, taken from a game so that the search runs on its
/// own thread without a copy of the whole game: xiangqi, the start position and the moves (the
/// engine replays them for the repetition rules); sanguo and banqi, the legal moves' texts.
#[derive(Debug, Clone)]
pub enum Problem {
    /// A xiangqi game: its start, its moves and its no-capture limit (plies, 0 = off).
    Xiangqi {
        /// The position the game started from (boxed: a position is much larger than a pick).
        start: Box<chuhe_rules::xiangqi::Position>,
        /// The moves played since.
        moves: Vec<chuhe_rules::xiangqi::Move>,
        /// Plies without capture before a draw (0 = off).
        no_capture_limit: u16,
    },
    /// Sanguo or banqi: pick among the legal moves of the seat to move.
    Pick {
        /// The game, to read the picked text back as a move.
        variant: Variant,
        /// The legal moves as wire texts.
        moves: Vec<String>,
    },
}

impl Problem {
    /// The problem of the seat to move in `game`; `None` when the game is over.
    pub fn of(game: &AnyGame) -> Option<Problem> {
        if game.outcome().is_some() {
            return None;
        }
        if let Some(g) = game.as_xiangqi() {
            return Some(Problem::Xiangqi {
                start: Box::new(g.start().clone()),
                moves: g.moves(),
                no_capture_limit: g.options().no_capture_limit,
            });
        }
        Some(Problem::Pick {
            variant: game.variant(),
            moves: game.legal_moves(),
        })
    }

    /// The computer's move at `level`; `None` when there is none.
    pub fn choose(&self, level: u8, rng: &mut impl Rng) -> Option<AnyMove> {
        match self {
            Problem::Xiangqi {
                start,
                moves,
                no_capture_limit,
            } => {
                let seed: u64 = rng.gen();
                chuhe_engine::player::choose_move(start, moves, level, *no_capture_limit, seed)
                    .map(AnyMove::Xiangqi)
            }
            // A capture when there is one (their texts carry `x`), else any move.
            Problem::Pick { variant, moves } => {
                let captures: Vec<&String> = moves.iter().filter(|m| m.contains('x')).collect();
                let pick = if captures.is_empty() {
                    moves.iter().collect::<Vec<_>>().choose(rng).copied()
                } else {
                    captures.choose(rng).copied()
                }?;
                match variant {
                    Variant::Xiangqi => pick.parse().ok().map(AnyMove::Xiangqi),
                    Variant::Sanguo => pick.parse().ok().map(AnyMove::Sanguo),
                    Variant::Banqi => pick.parse().ok().map(AnyMove::Banqi),
                }
            }
        }
    }
}

/// The computer's move at `level` for the seat to move; `None` when the game is over.
pub fn choose(game: &AnyGame, level: u8, rng: &mut impl Rng) -> Option<AnyMove> {
    Problem::of(game)?.choose(level, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
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
