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

/// What another node of a cluster asked of a tournament's owner (`tournament_requests`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentRequest {
    /// The request's own id (random), to remove it once settled.
    pub id: String,
    /// `join`, `withdraw`, or `ended` (a game of the tournament ended on another node).
    pub action: String,
    /// The player (`join`, `withdraw`) or the table whose game ended (`ended`).
    pub subject: String,
    /// The player's name (`join`; empty otherwise).
    pub name: String,
    /// The player's rating in the tournament's variant (`join`; 0 otherwise).
    pub rating: i64,
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
            since_ms: Some(now_ms() - 24 * 3600 * 1000),
        })
        .await?;
        Ok(())
    }

    /// Stores a tournament the operator scheduled, unless a row of its id is stored already
    /// (its id names the schedule and the start: a restart or another node made it); its
    /// creator (`row.created_by`, the system creator) gets a row of `players` the first time,
    /// and no daily limit. Returns whether this call stored it.
    ///
    /// # Errors
    /// A database failure.
    pub async fn create_scheduled_tournament(
        &self,
        row: &TournamentRow,
    ) -> Result<bool, StoreError> {
        let stored = self
            .write_single(Single::CreateTournament {
                row: Box::new(row.clone()),
                since_ms: None,
            })
            .await?;
        Ok(stored == 1)
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
            settled: Vec::new(),
            now_ms: now_ms(),
            fence: None,
        })
        .await?;
        Ok(())
    }

    /// As [`Store::save_tournament`] for the owner of a tournament on a cluster: written only
    /// while the row names `node` at `epoch` and the node's lease runs (by the database's
    /// clock). The requests `settled` (ids of `tournament_requests`, whose effect this state
    /// holds) are removed in the same transaction: a request is gone exactly when its effect
    /// is stored. Returns `false` when the fence no longer holds (another node owns it):
    /// nothing is written and the requests stay.
    ///
    /// # Errors
    /// A database failure.
    #[allow(clippy::too_many_arguments)]
    pub async fn save_owned_tournament(
        &self,
        id: &str,
        status: &str,
        state: String,
        version: i64,
        games: Vec<(i64, String)>,
        settled: Vec<String>,
        fence: (&str, i64),
    ) -> Result<bool, StoreError> {
        let written = self
            .write_single(Single::SaveTournament {
                id: id.to_owned(),
                status: status.to_owned(),
                state,
                version,
                games,
                settled,
                now_ms: now_ms(),
                fence: Some((fence.0.to_owned(), fence.1)),
            })
            .await?;
        Ok(written == 1)
    }

    /// The tournaments not finished that no live node owns (never owned, or owned by a node
    /// whose lease lapsed), with the owner and epoch seen, for [`Store::claim_tournament`];
    /// at most `limit`, in random order so that the nodes share them.
    ///
    /// # Errors
    /// A database failure; [`StoreError::NotClustered`] on SQLite.
    pub async fn orphan_tournaments(
        &self,
        limit: i64,
    ) -> Result<Vec<(TournamentRow, Option<String>, i64)>, StoreError> {
        if self.is_sqlite {
            return Err(StoreError::NotClustered);
        }
        let sql = format!(
            "SELECT {COLUMNS}, owner_node, owner_epoch FROM tournaments t \
             WHERE status <> 'finished' AND (owner_node IS NULL OR NOT EXISTS \
             (SELECT 1 FROM cluster_nodes n WHERE n.node = t.owner_node \
             AND n.lease_until_ms > {})) ORDER BY random() LIMIT $1",
            super::cluster::DB_NOW_MS
        );
        let rows = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    row_of(r)?,
                    r.try_get("owner_node")?,
                    r.try_get("owner_epoch")?,
                ))
            })
            .collect()
    }

    /// Takes the tournament `id` for `node` if its owner and epoch are still `seen`: the
    /// epoch grows by one. Returns the new epoch, or `None` when another node changed the
    /// owner first.
    ///
    /// # Errors
    /// A database failure.
    pub async fn claim_tournament(
        &self,
        id: &str,
        seen: (Option<&str>, i64),
        node: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.timed(async {
            let row = sqlx::query(
                "UPDATE tournaments SET owner_node = $1, owner_epoch = owner_epoch + 1 \
                 WHERE id = $2 AND owner_epoch = $3 AND owner_node IS NOT DISTINCT FROM $4 \
                 RETURNING owner_epoch",
            )
            .bind(node)
            .bind(id)
            .bind(seen.1)
            .bind(seen.0)
            .fetch_optional(&self.pool)
            .await?;
            Ok(row
                .map(|r| r.try_get::<i64, _>("owner_epoch"))
                .transpose()?)
        })
        .await
    }

    /// Asks the owner of the tournament `id` (another node) for `action` on `subject`
    /// (`join`/`withdraw` a player, with their name and rating; `ended`: a table whose game
    /// ended). The owner reads it ([`Store::tournament_requests`]) when the asking node tells it
    /// over NATS, or at its next tick, and removes it once its effect is saved.
    ///
    /// # Errors
    /// A database failure.
    pub async fn request_tournament(
        &self,
        id: &str,
        action: &str,
        subject: &str,
        name: &str,
        rating: i64,
    ) -> Result<(), StoreError> {
        let key = crate::ids::random_id(16);
        self.timed(async {
            sqlx::query(
                "INSERT INTO tournament_requests (id, tournament_id, action, subject, name, \
                 rating, made_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(key.as_str())
            .bind(id)
            .bind(action)
            .bind(subject)
            .bind(name)
            .bind(rating)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
            Ok(())
        })
        .await
    }

    /// The requests waiting for the tournament `id`, oldest first (by the time they were made,
    /// then by id). They stay stored: the owner removes those it settled with the save of
    /// their effect ([`Store::save_owned_tournament`]'s `settled`), or those it refused with
    /// [`Store::drop_tournament_requests`], so a request whose effect was not saved is read
    /// again at the next try.
    ///
    /// # Errors
    /// A database failure.
    pub async fn tournament_requests(
        &self,
        id: &str,
    ) -> Result<Vec<TournamentRequest>, StoreError> {
        let rows = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT id, action, subject, name, rating FROM tournament_requests \
                     WHERE tournament_id = $1 ORDER BY made_ms, id",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?)
            })
            .await?;
        rows.iter()
            .map(|r| {
                Ok(TournamentRequest {
                    id: r.try_get("id")?,
                    action: r.try_get("action")?,
                    subject: r.try_get("subject")?,
                    name: r.try_get("name")?,
                    rating: r.try_get("rating")?,
                })
            })
            .collect()
    }

    /// Removes the requests `ids` of the tournament `id` that changed nothing (refused, or
    /// already in effect): what they ask needs no save. Answers how many were removed.
    ///
    /// # Errors
    /// A database failure.
    pub async fn drop_tournament_requests(
        &self,
        id: &str,
        ids: &[String],
    ) -> Result<u64, StoreError> {
        if ids.is_empty() {
            return Ok(0);
        }
        self.write_single(Single::DropTournamentRequests {
            id: id.to_owned(),
            requests: ids.to_vec(),
        })
        .await
    }

    /// The tournament a table's game belongs to, if any.
    ///
    /// # Errors
    /// A database failure.
    pub async fn tournament_of_table(&self, table_id: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .timed(async {
                Ok(
                    sqlx::query("SELECT tournament_id FROM tournament_games WHERE table_id = $1")
                        .bind(table_id)
                        .fetch_optional(&self.pool)
                        .await?,
                )
            })
            .await?;
        Ok(row.map(|r| r.try_get("tournament_id")).transpose()?)
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

    /// The stored version of the tournament `id` (one more at every save), if stored: what a
    /// node that does not run it polls for its live streams.
    ///
    /// # Errors
    /// A database failure.
    pub async fn tournament_version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query("SELECT version FROM tournaments WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        Ok(row.map(|r| r.try_get("version")).transpose()?)
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
