//! Glicko-2 ratings (Mark E. Glickman, "Example of the Glicko-2 system", 2013), one rating per
//! player and variant, each finished rated game being one rating period.
//!
//! The three-player game (sanguo) is rated by **pairwise decomposition**: each player meets each
//! other player of the game once in that period: a winner beats a non-winner, and two winners (a
//! shared victory) or two non-winners draw. All of a player's pairings of one game are applied in
//! one Glicko-2 update, against the opponents' ratings from before the game.

use serde::{Deserialize, Serialize};

/// The system constant τ, which limits how fast volatility changes (Glickman suggests 0.3–1.2).
pub const TAU: f64 = 0.5;
/// The convergence tolerance of the volatility iteration (the paper's ε).
const EPSILON: f64 = 0.000_001;

/// A player's rating in one variant, on the Glicko scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating, 1500 for a new player.
    pub rating: f64,
    /// The rating deviation, 350 for a new player.
    pub deviation: f64,
    /// The volatility, 0.06 for a new player.
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Self {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

/// One Glicko-2 rating period for `player` against `(opponent, score)` pairs (score 1 win,
/// 0.5 draw, 0 loss; another score counts as the nearest of the three), computed by the `skillratings` crate's Glicko-2 (the paper's steps 1-8,
/// the volatility by the Illinois algorithm). Without games only the deviation grows (at most
/// to 350).
pub fn update(player: Rating, games: &[(Rating, f64)]) -> Rating {
    use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
    use skillratings::Outcomes;
    let of = |r: Rating| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let results: Vec<(Glicko2Rating, Outcomes)> = games
        .iter()
        .map(|&(opponent, score)| {
            let outcome = if score > 0.75 {
                Outcomes::WIN
            } else if score < 0.25 {
                Outcomes::LOSS
            } else {
                Outcomes::DRAW
            };
            (of(opponent), outcome)
        })
        .collect();
    let config = Glicko2Config {
        tau: TAU,
        convergence_tolerance: EPSILON,
    };
    let new = glicko2_rating_period(&of(player), &results, &config);
    Rating {
        rating: new.rating,
        deviation: new.deviation,
        volatility: new.volatility,
    }
}

/// The new ratings of the players of one finished game, in seat order: `winners[i]` says
/// whether seat `i` won (none won: a draw). Every pair of seats is one pairing (see the module
/// documentation).
pub fn rate_game(before: &[Rating], winners: &[bool]) -> Vec<Rating> {
    (0..before.len())
        .map(|i| {
            let games: Vec<(Rating, f64)> = (0..before.len())
                .filter(|&j| j != i)
                .map(|j| {
                    let score = match (winners[i], winners[j]) {
                        (true, false) => 1.0,
                        (false, true) => 0.0,
                        _ => 0.5,
                    };
                    (before[j], score)
                })
                .collect();
            update(before[i], &games)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    fn round(x: f64, places: i32) -> f64 {
        let k = 10f64.powi(places);
        (x * k).round() / k
    }

    /// Glickman's worked example: 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.
    #[test]
    fn glickmans_example() {
        let new = update(
            r(1500.0, 200.0),
            &[
                (r(1400.0, 30.0), 1.0),
                (r(1550.0, 100.0), 0.0),
                (r(1700.0, 300.0), 0.0),
            ],
        );
        // The paper prints 1464.06, having rounded its intermediate steps.
        assert_eq!(round(new.rating, 2), 1464.05);
        assert_eq!(round(new.deviation, 2), 151.52);
        assert_eq!(round(new.volatility, 6), 0.059996);
    }

    /// A rating period without games only widens the deviation: √(φ² + σ²) on the Glicko-2
    /// scale (the paper's step 6), never past a new player's 350.
    #[test]
    fn a_period_without_games() {
        let idle = update(r(1500.0, 200.0), &[]);
        assert_eq!(idle.rating, 1500.0);
        assert_eq!(round(idle.deviation, 4), 200.2714);
        assert_eq!(update(r(1500.0, 349.9), &[]).deviation, 350.0);
    }

    #[test]
    fn a_first_game_between_new_players() {
        let [winner, loser] = rate_game(&[Rating::default(), Rating::default()], &[true, false])
            .try_into()
            .unwrap();
        assert_eq!(round(winner.rating, 2), 1662.31);
        assert_eq!(round(loser.rating, 2), 1337.69);
        assert_eq!(round(winner.deviation, 2), 290.32);
        assert_eq!(winner.deviation, loser.deviation);
        let drawn = rate_game(&[Rating::default(), Rating::default()], &[false, false]);
        assert_eq!(round(drawn[0].rating, 6), 1500.0);
    }

    #[test]
    fn sanguo_pairings() {
        // Shu and Wei share a victory over Wu: they draw each other and both beat Wu.
        let new = rate_game(&[Rating::default(); 3], &[true, false, true]);
        assert_eq!(round(new[0].rating, 6), round(new[2].rating, 6));
        assert!(new[0].rating > 1500.0 && new[1].rating < 1500.0);
        assert_eq!(round(new[0].rating, 2), 1623.66);
        assert_eq!(round(new[1].rating, 2), 1252.68);
    }
}
