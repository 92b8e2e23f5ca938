//! Tournaments (`migrations/0009_tournaments.sql`; arenas, sanguo arenas and Swiss events, by
//! `kind`): a tournament's row, made once and saved
//! after every event with its state as a JSON text; the table of each game it handed out; the
//! finished game of a table, read back when a tournament takes up its games after a restart.

use super::writer::Single;
use super::{now_ms, Store, StoreError};
use crate::protocol::FinishedGame;
use sqlx::any::AnyRow;
use sqlx::Row;

/// Most tournaments one account may create in a day (the last 24 hours).
pub const MAX_TOURNAMENTS_PER_DAY: i64 = 12;

/// A stored tournament: its settings, status, state and version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentRow {
    /// The id.
    pub id: String,
    /// `arena`, `sanguo-arena` or `swiss`.
    pub kind: String,
    /// The variant's wire word.
    pub variant: String,
    /// The name, as its creator gave it.
    pub name: String,
    /// Each player's starting time, seconds.
    pub clock_limit_s: i64,
    /// The increment per move, seconds.
    pub clock_increment_s: i64,
    /// How long pairings go on, minutes.
    pub minutes: i64,
    /// When it starts, milliseconds since the Unix epoch.
    pub starts_ms: i64,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether players may go berserk.
    pub berserkable: bool,
    /// The account that created it.
    pub created_by: String,
    /// `created`, `started` or `finished`.
    pub status: String,
    /// The server's state of the event, as JSON.
    pub state: String,
    /// Saves so far, from 1 (the creation).
    pub version: i64,
    /// When it was created, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// The columns of [`TournamentRow`], in the order of its fields.
const COLUMNS: &str = "id, kind, variant, name, clock_limit_s, clock_increment_s, minutes, \
                       starts_ms, rated, berserkable, created_by, status, state, version, created_ms";

fn row_of(r: &AnyRow) -> Result<TournamentRow, StoreError> {
    Ok(TournamentRow {
        id: r.try_get("id")?,
        kind: r.try_get("kind")?,
        variant: r.try_get("variant")?,
        name: r.try_get("name")?,
        clock_limit_s: r.try_get("clock_limit_s")?,
        clock_increment_s: r.try_get("clock_increment_s")?,
        minutes: r.try_get("minutes")?,
        starts_ms: r.try_get("starts_ms")?,
        rated: r.try_get::<i64, _>("rated")? != 0,
        berserkable: r.try_get::<i64, _>("berserkable")? != 0,
        created_by: r.try_get("created_by")?,
        status: r.try_get("status")?,
        state: r.try_get("state")?,
        version: r.try_get("version")?,
        created_ms: r.try_get("created_ms")?,
    })
}

impl Store {
    /// Stores a new tournament (its `version` 1).
    ///
    /// # Errors
    /// [`StoreError::Refused`] when its creator made [`MAX_TOURNAMENTS_PER_DAY`] tournaments in
    /// the last 24 hours; a database failure.
    pub async fn create_tournament(&self, row: &TournamentRow) -> Result<(), StoreError> {
        self.write_single(Single::CreateTournament {
            row: Box::new(row.clone()),
            since_ms: now_ms() - 24 * 3600 * 1000,
        })
        .await?;
        Ok(())
    }

    /// Saves a tournament's status and state at `version` (only over an older version), with
    /// the tables of the games handed out since the last save (`(game number, table id)`).
    ///
    /// # Errors
    /// A database failure.
    pub async fn save_tournament(
        &self,
        id: &str,
        status: &str,
        state: String,
        version: i64,
        games: Vec<(i64, String)>,
    ) -> Result<(), StoreError> {
        self.write_single(Single::SaveTournament {
            id: id.to_owned(),
            status: status.to_owned(),
            state,
            version,
            games,
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    /// The tournament `id`, if stored.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM tournaments WHERE id = $1");
        let row = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        row.as_ref().map(row_of).transpose()
    }

    /// The tournaments not finished yet, by start time: the ones a server runs.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn live_tournaments(&self) -> Result<Vec<TournamentRow>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tournaments WHERE status <> 'finished' ORDER BY starts_ms, id"
        );
        let rows = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        rows.iter().map(row_of).collect()
    }

    /// The last `limit` finished tournaments, the latest start first; only those of `kind`
    /// when given.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn finished_tournaments(
        &self,
        limit: i64,
        kind: Option<&str>,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tournaments WHERE status = 'finished' \
             AND ($1 = '' OR kind = $1) ORDER BY starts_ms DESC, id LIMIT $2"
        );
        let rows = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(kind.unwrap_or(""))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        rows.iter().map(row_of).collect()
    }

    /// The tables of a tournament's games, by game number.
    ///
    /// # Errors
    /// A database failure.
    pub async fn tournament_games(&self, id: &str) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT game_no, table_id FROM tournament_games WHERE tournament_id = $1 \
                     ORDER BY game_no",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?)
            })
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("game_no")?, r.try_get("table_id")?)))
            .collect()
    }

    /// The finished game of the table `table_id`, once its game has ended.
    ///
    /// # Errors
    /// A database failure, or a summary that does not read.
    pub async fn finished_game(&self, table_id: &str) -> Result<Option<FinishedGame>, StoreError> {
        let row = self
            .timed(async {
                Ok(
                    sqlx::query("SELECT summary FROM finished_games WHERE table_id = $1")
                        .bind(table_id)
                        .fetch_optional(&self.pool)
                        .await?,
                )
            })
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let text: String = row.try_get("summary")?;
        Ok(Some(serde_json::from_str(&text)?))
    }
}
