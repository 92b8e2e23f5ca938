//! Ratings: a player's Glicko-2 ratings, one per variant (written with the rated game that changes
//! them, by the writer).

use super::{RatingRow, Store, StoreError};
use sqlx::Row;

impl Store {
    /// A player's ratings, one per variant played, sorted by variant.
    pub async fn ratings(&self, player_id: &str) -> Result<Vec<RatingRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT player_id, variant, rating, deviation, volatility, games FROM ratings \
             WHERE player_id = $1 ORDER BY variant",
        )
        .bind(player_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RatingRow {
                    player_id: r.try_get("player_id")?,
                    variant: r.try_get("variant")?,
                    rating: crate::accounts::rating::Rating {
                        rating: r.try_get("rating")?,
                        deviation: r.try_get("deviation")?,
                        volatility: r.try_get("volatility")?,
                    },
                    games: r.try_get::<i64, _>("games")?.max(0) as u64,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// A player's rating in one variant (the default for a first game) and games played.
    pub async fn rating(&self, player_id: &str, variant: &str) -> Result<RatingRow, StoreError> {
        Ok(self
            .ratings(player_id)
            .await?
            .into_iter()
            .find(|r| r.variant == variant)
            .unwrap_or_else(|| RatingRow {
                player_id: player_id.to_owned(),
                variant: variant.to_owned(),
                rating: crate::accounts::rating::Rating::default(),
                games: 0,
            }))
    }
}
