//! Storage through sqlx on SQLite or PostgreSQL (one schema, one set of queries, chosen by the
//! database URL). Every table event is written, with the table row, in one transaction that
//! commits before the event is sent to anybody.
//!
//! The store takes and gives typed values ([`Event`], [`TableOptions`], [`ClockSnapshot`],
//! [`FinishedGame`]) and keeps them as JSON texts (`serde_json`'s compact form) in its text
//! columns; the texts are the same as when the callers wrote them, so existing databases read.

use crate::clock::ClockSnapshot;
use crate::protocol::{Event, FinishedGame, TableOptions};
use futures_util::future::BoxFuture;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyPool, Row};
use std::borrow::Cow;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// The migrations, embedded in the binary, applied in order at start-up.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "tables", include_str!("../migrations/0001_tables.sql")),
    (2, "ratings", include_str!("../migrations/0002_ratings.sql")),
    (
        3,
        "finished_games",
        include_str!("../migrations/0003_finished_games.sql"),
    ),
];

/// The embedded migrations as a sqlx migration source.
#[derive(Debug, Clone, Copy)]
struct Embedded;

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, sqlx::error::BoxDynError>> {
        Box::pin(async {
            Ok(MIGRATIONS
                .iter()
                .map(|&(version, name, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(name),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Why the store failed. The server edge turns it into a
/// [`ServerError`](crate::error::ServerError): a taken name and an unknown cursor are the
/// client's mistakes, a bad database URL is a start-up setting, the rest are internal failures
/// that are logged with their cause and never sent.
#[derive(Debug)]
pub enum StoreError {
    /// The database URL names neither SQLite nor PostgreSQL.
    UnsupportedUrl(String),
    /// The database could not be opened.
    Open {
        /// The database URL.
        url: String,
        /// Why it could not be opened.
        source: sqlx::Error,
    },
    /// Applying the migrations failed.
    Migration(sqlx::migrate::MigrateError),
    /// A query failed.
    Database(sqlx::Error),
    /// A value does not write as JSON, or a stored JSON text does not read as its type.
    Json(serde_json::Error),
    /// An account of this name exists.
    NameTaken(String),
    /// No listed finished game has this table id (the `before` of a page of finished games).
    NoFinishedGame(String),
    /// More events were given than the table row's version counts.
    EventVersions {
        /// How many events were given.
        count: usize,
        /// The row's version, which the last event takes.
        last: u64,
    },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::UnsupportedUrl(url) => write!(
                f,
                "unsupported database url {url:?}: use sqlite://FILE or postgres://..."
            ),
            StoreError::Open { url, source } => {
                write!(f, "cannot open database {url:?}: {source}")
            }
            StoreError::Migration(e) => write!(f, "migration: {e}"),
            StoreError::Database(e) => write!(f, "database: {e}"),
            StoreError::Json(e) => write!(f, "json: {e}"),
            StoreError::NameTaken(name) => write!(f, "the name {name:?} is taken"),
            StoreError::NoFinishedGame(id) => write!(f, "before: no finished game {id:?}"),
            StoreError::EventVersions { count, last } => {
                write!(f, "{count} events cannot end at version {last}")
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Open { source, .. } | StoreError::Database(source) => Some(source),
            StoreError::Migration(e) => Some(e),
            StoreError::Json(e) => Some(e),
            _ => None,
        }
    }
}

/// Two store errors are equal only when they are the same value: a failure has no meaningful
/// equality of its own, and this keeps [`ServerError`](crate::error::ServerError), which
/// shares one behind an `Arc`, comparable.
impl PartialEq for StoreError {
    fn eq(&self, other: &StoreError) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migration(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Json(e)
    }
}

/// A stored player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRow {
    /// The id.
    pub id: String,
    /// The display name.
    pub name: String,
    /// The argon2 PHC string (accounts only).
    pub password_hash: Option<String>,
}

/// A stored table row (the events hold the rest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// The id.
    pub id: String,
    /// What the table was created with (stored as JSON).
    pub options: TableOptions,
    /// `open`, `running` or `ended`.
    pub phase: String,
    /// The number of events.
    pub version: u64,
    /// The clocks when the row was saved (stored as JSON); `None` for an untimed table.
    pub clocks: Option<ClockSnapshot>,
    /// Hidden information (never sent; no variant needs it so far: banqi flips are drawn at
    /// flip time).
    pub secret: Option<String>,
    /// When the table was created, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// A player's rating in one variant, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    /// The player.
    pub player_id: String,
    /// The variant's wire name.
    pub variant: String,
    /// The Glicko-2 rating.
    pub rating: crate::rating::Rating,
    /// Rated games played in the variant.
    pub games: u64,
}

/// The database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
}

/// Adds `mode=rwc` to a SQLite URL that has no mode, so a missing file is created.
fn normalize_url(url: &str) -> String {
    if url.starts_with("sqlite:") && !url.contains("mode=") && !url.contains(":memory:") {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}mode=rwc")
    } else {
        url.to_owned()
    }
}

impl Store {
    /// Connects to `url` (`sqlite://FILE`, `postgres://...`) and applies the migrations; a
    /// SQLite file is created when missing.
    ///
    /// # Errors
    /// A URL of another kind, a failed connection or a failed migration.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let is_sqlite = url.starts_with("sqlite:");
        if !is_sqlite && !url.starts_with("postgres:") && !url.starts_with("postgresql:") {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        }
        // No timers in the pool beyond the acquire timeout, and no ping before each use: the
        // server's clocks may run on a paused test clock, which jumps to the next timer whenever
        // the runtime waits (for a database answer too).
        let pool = AnyPoolOptions::new()
            .max_connections(if is_sqlite { 4 } else { 8 })
            .min_connections(if is_sqlite { 4 } else { 1 })
            .idle_timeout(None)
            .max_lifetime(None)
            .test_before_acquire(false)
            .connect(&normalize_url(url))
            .await
            .map_err(|source| StoreError::Open {
                url: url.to_owned(),
                source,
            })?;
        let migrator = Migrator::new(Embedded).await?;
        migrator.run(&pool).await?;
        Ok(Store { pool })
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Creates a player (a guest when `password_hash` is `None`).
    ///
    /// # Errors
    /// [`StoreError::NameTaken`] when an account of that name exists.
    pub async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        if player.password_hash.is_some() && self.account_by_name(&player.name).await?.is_some() {
            return Err(StoreError::NameTaken(player.name.clone()));
        }
        sqlx::query(
            "INSERT INTO players (id, name, password_hash, created_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(&player.id)
        .bind(&player.name)
        .bind(&player.password_hash)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    fn player_of(row: &AnyRow) -> Result<PlayerRow, sqlx::Error> {
        Ok(PlayerRow {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            password_hash: row.try_get("password_hash")?,
        })
    }

    /// The account holder named `name`.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<PlayerRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, name, password_hash FROM players \
             WHERE name = $1 AND password_hash IS NOT NULL",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(Self::player_of).transpose()?)
    }

    /// Records a session for a player, by the digest of its token.
    pub async fn create_session(&self, token: &str, player_id: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO sessions (token, player_id, created_ms) VALUES ($1, $2, $3)")
            .bind(token)
            .bind(player_id)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends a session, by the digest of its token; returns whether one existed.
    pub async fn delete_session(&self, token: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE token = $1")
            .bind(token)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The player behind a session, by the digest of its token.
    pub async fn player_by_session(&self, token: &str) -> Result<Option<PlayerRow>, StoreError> {
        let row = sqlx::query(
            "SELECT p.id, p.name, p.password_hash FROM sessions s \
             JOIN players p ON p.id = s.player_id WHERE s.token = $1",
        )
        .bind(token)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(Self::player_of).transpose()?)
    }

    /// Creates a table with its first event (version `row.version`), in one transaction (the
    /// row's `created_ms` is stored as given).
    pub async fn create_table(
        &self,
        row: &TableRow,
        first_event: &Event,
    ) -> Result<(), StoreError> {
        let now = row.created_ms;
        let options = serde_json::to_string(&row.options)?;
        let clocks = row.clocks.as_ref().map(serde_json::to_string).transpose()?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO game_tables \
             (id, variant, options, phase, version, clocks, secret, created_ms, updated_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&row.id)
        .bind(row.options.variant.as_str())
        .bind(options)
        .bind(&row.phase)
        .bind(row.version as i64)
        .bind(clocks)
        .bind(&row.secret)
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        Self::insert_event(&mut tx, &row.id, row.version, first_event, now).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn insert_event(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        table_id: &str,
        version: u64,
        event: &Event,
        now: i64,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(event)?;
        sqlx::query(
            "INSERT INTO table_events (table_id, version, body, created_ms) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(table_id)
        .bind(version as i64)
        .bind(body)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Appends `events`, numbered so that the last one is `row.version` (the first is
    /// `row.version - events.len() + 1`), and updates the table row, in one transaction with the
    /// new ratings and, when the events end the game, its finished-game row; returns once it is
    /// committed (durable).
    ///
    /// # Errors
    /// A database failure, an event of a version already stored, or more events than
    /// `row.version`.
    pub async fn append_events(
        &self,
        row: &TableRow,
        events: &[Event],
        ratings: &[RatingRow],
        finished: Option<&FinishedGame>,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        let first = first_version(row.version, events.len())?;
        let mut tx = self.pool.begin().await?;
        for (version, event) in (first..).zip(events) {
            Self::insert_event(&mut tx, &row.id, version, event, now).await?;
        }
        Self::update_row(&mut tx, row, now).await?;
        if let Some(game) = finished {
            Self::insert_finished(&mut tx, game).await?;
        }
        for r in ratings {
            sqlx::query(
                "INSERT INTO ratings (player_id, variant, rating, deviation, volatility, games) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (player_id, variant) DO UPDATE SET rating = $3, deviation = $4, \
                 volatility = $5, games = $6",
            )
            .bind(&r.player_id)
            .bind(&r.variant)
            .bind(r.rating.rating)
            .bind(r.rating.deviation)
            .bind(r.rating.volatility)
            .bind(r.games as i64)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn update_row(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        row: &TableRow,
        now: i64,
    ) -> Result<(), StoreError> {
        let clocks = row.clocks.as_ref().map(serde_json::to_string).transpose()?;
        sqlx::query(
            "UPDATE game_tables SET phase = $1, version = $2, clocks = $3, updated_ms = $4 \
             WHERE id = $5",
        )
        .bind(&row.phase)
        .bind(row.version as i64)
        .bind(clocks)
        .bind(now)
        .bind(&row.id)
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

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
                    rating: crate::rating::Rating {
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
                rating: crate::rating::Rating::default(),
                games: 0,
            }))
    }

    async fn insert_finished(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        game: &FinishedGame,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO finished_games (table_id, ended_ms, reason, summary) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(&game.id)
        .bind(game.ended_ms)
        .bind(game.outcome.reason.as_str())
        .bind(serde_json::to_string(game)?)
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Adds the finished-game row of every ended table that has none (tables that ended
    /// before the `finished_games` migration), from its events; the end time is the row's last
    /// update. Returns how many were added.
    ///
    /// # Errors
    /// A database failure, or stored events that do not read.
    pub async fn add_missing_finished(&self) -> Result<usize, StoreError> {
        let rows = sqlx::query(
            "SELECT id, created_ms, updated_ms FROM game_tables g WHERE phase = 'ended' \
             AND NOT EXISTS (SELECT 1 FROM finished_games f WHERE f.table_id = g.id) \
             ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut added = 0;
        for r in &rows {
            let id: String = r.try_get("id")?;
            let created_ms: i64 = r.try_get("created_ms")?;
            let ended_ms: i64 = r.try_get("updated_ms")?;
            let events = self.event_log(&id).await?;
            let Some(game) = FinishedGame::from_events(&id, created_ms, ended_ms, &events) else {
                tracing::warn!(table = %id, "an ended table without an ended event");
                continue;
            };
            let mut tx = self.pool.begin().await?;
            Self::insert_finished(&mut tx, &game).await?;
            tx.commit().await?;
            added += 1;
        }
        Ok(added)
    }

    /// Up to `limit` finished games (aborted ones left out), the most recently ended first;
    /// with `before` (a table id), only the games that ended before that one (ties in time by
    /// id, descending).
    ///
    /// # Errors
    /// [`StoreError::NoFinishedGame`] when `before` names no listed finished game; a database
    /// failure.
    pub async fn finished_games(
        &self,
        before: Option<&str>,
        limit: u32,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        let rows = match before {
            None => {
                sqlx::query(
                    "SELECT summary FROM finished_games WHERE reason <> 'aborted' \
                     ORDER BY ended_ms DESC, table_id DESC LIMIT $1",
                )
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
            Some(id) => {
                let cursor = sqlx::query(
                    "SELECT ended_ms FROM finished_games \
                     WHERE table_id = $1 AND reason <> 'aborted'",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
                let ended_ms: i64 = cursor.try_get("ended_ms")?;
                sqlx::query(
                    "SELECT summary FROM finished_games WHERE reason <> 'aborted' \
                     AND (ended_ms < $1 OR (ended_ms = $1 AND table_id < $2)) \
                     ORDER BY ended_ms DESC, table_id DESC LIMIT $3",
                )
                .bind(ended_ms)
                .bind(id)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
        };
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// Saves the table row alone (the clock snapshot at shutdown).
    pub async fn save_row(&self, row: &TableRow) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        Self::update_row(&mut tx, row, now_ms()).await?;
        tx.commit().await?;
        Ok(())
    }

    fn table_of(row: &AnyRow) -> Result<TableRow, StoreError> {
        let options: String = row.try_get("options")?;
        let clocks: Option<String> = row.try_get("clocks")?;
        Ok(TableRow {
            id: row.try_get("id")?,
            options: serde_json::from_str(&options)?,
            phase: row.try_get("phase")?,
            version: row.try_get::<i64, _>("version")?.max(0) as u64,
            clocks: clocks.as_deref().map(serde_json::from_str).transpose()?,
            secret: row.try_get("secret")?,
            created_ms: row.try_get("created_ms")?,
        })
    }

    /// One table row.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, options, phase, version, clocks, secret, created_ms \
             FROM game_tables WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::table_of).transpose()
    }

    /// The ids of the tables that are open or running (to bring back at start-up).
    pub async fn live_table_ids(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM game_tables WHERE phase <> 'ended' ORDER BY created_ms, id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| r.try_get::<String, _>("id"))
            .collect::<Result<_, _>>()?)
    }

    /// Every event of a table with its version, in version order (none for an unknown table).
    ///
    /// # Errors
    /// A database failure, or a stored event that does not read.
    pub async fn events(&self, table_id: &str) -> Result<Vec<(u64, Event)>, StoreError> {
        let rows = sqlx::query(
            "SELECT version, body FROM table_events WHERE table_id = $1 ORDER BY version",
        )
        .bind(table_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let body: String = r.try_get("body")?;
                Ok((
                    r.try_get::<i64, _>("version")?.max(0) as u64,
                    serde_json::from_str(&body)?,
                ))
            })
            .collect()
    }

    /// Every event of a table in version order, without the versions (none for an unknown
    /// table).
    ///
    /// # Errors
    /// As [`Store::events`].
    pub async fn event_log(&self, table_id: &str) -> Result<Vec<Event>, StoreError> {
        Ok(self
            .events(table_id)
            .await?
            .into_iter()
            .map(|(_, event)| event)
            .collect())
    }
}

/// The version of the first of `count` events whose last one is `last` (versions count from 1).
fn first_version(last: u64, count: usize) -> Result<u64, StoreError> {
    (last + 1)
        .checked_sub(count as u64)
        .filter(|&first| first >= 1)
        .ok_or(StoreError::EventVersions { count, last })
}

#[cfg(test)]
mod tests {
    use super::{first_version, normalize_url, now_ms, Store, TableRow};
    use crate::clock::ClockSnapshot;
    use crate::protocol::{Event, TableOptions};
    use sqlx::Row;

    const OPTIONS: &str = r#"{"variant":"xiangqi","time":null,"rated":true,"no_capture_limit":60,"flag_bearers":null}"#;
    const STARTED: &str = r#"{"kind":"started"}"#;
    const MOVED: &str =
        r#"{"kind":"moved","seat":0,"move":"h2e2","ply":1,"clocks_ms":[299000,300000]}"#;
    const CLOCKS: &str = r#"{"remaining_ms":[299000,300000],"quota_ms":[2000,1500]}"#;

    /// The texts in the database are the ones the callers wrote before the store took typed
    /// values, and they read back as the values that were written.
    #[tokio::test]
    async fn typed_values_round_trip_through_the_same_texts() {
        let path = std::env::temp_dir().join(format!(
            "chuhe-store-test-{}-{}.db",
            std::process::id(),
            now_ms()
        ));
        let store = Store::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
        let created = Event::Created {
            options: options.clone(),
        };
        let mut row = TableRow {
            id: "t1".to_owned(),
            options,
            phase: "open".to_owned(),
            version: 1,
            clocks: None,
            secret: None,
            created_ms: 5,
        };
        store.create_table(&row, &created).await.unwrap();
        let later: Vec<Event> = [STARTED, MOVED]
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        row.phase = "running".to_owned();
        row.version = 3;
        row.clocks = Some(serde_json::from_str::<ClockSnapshot>(CLOCKS).unwrap());
        store.append_events(&row, &later, &[], None).await.unwrap();

        let bodies: Vec<(i64, String)> = sqlx::query(
            "SELECT version, body FROM table_events WHERE table_id = $1 ORDER BY version",
        )
        .bind("t1")
        .fetch_all(&store.pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("version"), r.get("body")))
        .collect();
        let expected = [
            format!(r#"{{"kind":"created","options":{OPTIONS}}}"#),
            STARTED.to_owned(),
            MOVED.to_owned(),
        ];
        assert_eq!(bodies, (1..).zip(expected).collect::<Vec<(i64, String)>>());
        let stored = sqlx::query("SELECT variant, options, clocks FROM game_tables WHERE id = $1")
            .bind("t1")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(stored.get::<String, _>("variant"), "xiangqi");
        assert_eq!(stored.get::<String, _>("options"), OPTIONS);
        assert_eq!(
            stored.get::<Option<String>, _>("clocks").as_deref(),
            Some(CLOCKS)
        );

        assert_eq!(store.table("t1").await.unwrap(), Some(row));
        let mut all = vec![created];
        all.extend(later);
        assert_eq!(store.event_log("t1").await.unwrap(), all);
        assert_eq!(
            store
                .events("t1")
                .await
                .unwrap()
                .iter()
                .map(|(v, _)| *v)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        store.close().await;
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn appended_events_end_at_the_row_version() {
        assert_eq!(first_version(3, 2).ok(), Some(2));
        assert_eq!(first_version(3, 0).ok(), Some(4));
        assert!(first_version(1, 2).is_err());
    }

    #[test]
    fn sqlite_urls_get_create_mode() {
        assert_eq!(
            normalize_url("sqlite://chuhe.db"),
            "sqlite://chuhe.db?mode=rwc"
        );
        assert_eq!(
            normalize_url("sqlite://a.db?cache=shared"),
            "sqlite://a.db?cache=shared&mode=rwc"
        );
        assert_eq!(
            normalize_url("sqlite://a.db?mode=ro"),
            "sqlite://a.db?mode=ro"
        );
        assert_eq!(normalize_url("postgres://x/y"), "postgres://x/y");
    }
}
