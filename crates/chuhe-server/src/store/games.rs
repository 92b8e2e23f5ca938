//! Finished games: the list of them (all, by player, by variant), and the rows older databases
//! lack (the finished games of tables that ended before migration 3, their `game_players`
//! rows), filled at start.

use super::rows::finished_row;
use super::writer::Single;
use super::{Store, StoreError};
use crate::protocol::FinishedGame;
use sqlx::{Executor, Row};

impl Store {
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
            self.write_single(Single::Finished(finished_row(&game)?))
                .await?;
            added += 1;
        }
        Ok(added)
    }

    /// Adds the `game_players` rows of every finished game that has none (games finished
    /// before the `game_players` migration), from its stored summary. Returns how many games
    /// got them.
    ///
    /// # Errors
    /// A database failure, or a stored summary that does not read.
    pub async fn add_missing_players(&self) -> Result<usize, StoreError> {
        let rows = sqlx::query(
            "SELECT summary FROM finished_games f \
             WHERE NOT EXISTS (SELECT 1 FROM game_players p WHERE p.table_id = f.table_id) \
             ORDER BY table_id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut added = 0;
        for r in &rows {
            let text: String = r.try_get("summary")?;
            let game: FinishedGame = serde_json::from_str(&text)?;
            let row = finished_row(&game)?;
            if row.players.is_empty() {
                continue;
            }
            self.write_single(Single::FinishedPlayers(row)).await?;
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

    /// Like [`Store::finished_games`], only the games that `player` (a player id) sat in and
    /// that were played in `variant` (its protocol word, `xiangqi`, `sanguo` or `banqi`), each
    /// filter when given. A player's games are read through the `game_players` index; without a
    /// player, the variant filter matches the stored summary's JSON text
    /// (`"options":{"variant":"…"`), so a filtered page reads the rows newest first until it has
    /// `limit` of them.
    ///
    /// # Errors
    /// [`StoreError::NoFinishedGame`] when `before` names no listed finished game; a database
    /// failure. The caller checks that `player` holds only id characters (no `%`, `_`, `"`).
    pub async fn finished_games_filtered(
        &self,
        before: Option<&str>,
        limit: u32,
        player: Option<&str>,
        variant: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        if let Some(p) = player {
            return self.finished_games_of(before, limit, p, variant).await;
        }
        let mut sql = String::from("SELECT summary FROM finished_games WHERE reason <> 'aborted'");
        let mut binds: Vec<String> = Vec::new();
        let mut cursor_ms = None;
        if let Some(id) = before {
            let cursor = sqlx::query(
                "SELECT ended_ms FROM finished_games WHERE table_id = $1 AND reason <> 'aborted'",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
            let ended_ms: i64 = cursor.try_get("ended_ms")?;
            sql.push_str(" AND (ended_ms < $1 OR (ended_ms = $1 AND table_id < $2))");
            cursor_ms = Some(ended_ms);
            binds.push(id.to_owned());
        }
        let mut n = if cursor_ms.is_some() { 3 } else { 1 };
        if let Some(v) = variant {
            sql.push_str(&format!(" AND summary LIKE ${n}"));
            binds.push(format!("%\"options\":{{\"variant\":\"{v}\"%"));
            n += 1;
        }
        sql.push_str(&format!(
            " ORDER BY ended_ms DESC, table_id DESC LIMIT ${n}"
        ));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()));
        if let Some(ms) = cursor_ms {
            query = query.bind(ms);
        }
        for b in &binds {
            query = query.bind(b.as_str());
        }
        let rows = query.bind(i64::from(limit)).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// [`Store::finished_games_filtered`] with a player: read through the `game_players`
    /// index, `(player_id, ended_ms, table_id)` or, with a variant,
    /// `(player_id, variant, ended_ms, table_id)`, newest first.
    pub(super) async fn finished_games_of(
        &self,
        before: Option<&str>,
        limit: u32,
        player: &str,
        variant: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        let mut sql = String::from(
            "SELECT f.summary FROM game_players p JOIN finished_games f ON f.table_id = p.table_id \
             WHERE p.player_id = $1 AND f.reason <> 'aborted'",
        );
        let mut n = 2;
        if variant.is_some() {
            sql.push_str(&format!(" AND p.variant = ${n}"));
            n += 1;
        }
        let mut cursor = None;
        if let Some(id) = before {
            let row = sqlx::query(
                "SELECT ended_ms FROM finished_games WHERE table_id = $1 AND reason <> 'aborted'",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NoFinishedGame(id.to_owned()))?;
            let ended_ms: i64 = row.try_get("ended_ms")?;
            sql.push_str(&format!(
                " AND (p.ended_ms < ${n} OR (p.ended_ms = ${n} AND p.table_id < ${}))",
                n + 1
            ));
            n += 2;
            cursor = Some((ended_ms, id));
        }
        sql.push_str(&format!(
            " ORDER BY p.ended_ms DESC, p.table_id DESC LIMIT ${n}"
        ));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).bind(player);
        if let Some(v) = variant {
            query = query.bind(v);
        }
        if let Some((ms, id)) = cursor {
            query = query.bind(ms).bind(id);
        }
        let rows = query.bind(i64::from(limit)).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("summary")?;
                Ok(serde_json::from_str(&text)?)
            })
            .collect()
    }

    /// The query plan of [`Store::finished_games_filtered`] for a player (and a variant when
    /// given), as the database explains it, one line per step: to check that it reads the
    /// `game_players` index (on PostgreSQL with sequential scans discouraged, as for a table
    /// too big to read whole).
    ///
    /// # Errors
    /// A database failure.
    pub async fn explain_player_filter(&self, variant: bool) -> Result<String, StoreError> {
        let filter = if variant {
            " AND p.variant = 'xiangqi'"
        } else {
            ""
        };
        let select = format!(
            "SELECT f.summary FROM game_players p JOIN finished_games f ON f.table_id = p.table_id \
             WHERE p.player_id = 'x' AND f.reason <> 'aborted'{filter} \
             ORDER BY p.ended_ms DESC, p.table_id DESC LIMIT 20"
        );
        let mut conn = self.pool.acquire().await?;
        let sqlite = conn.backend_name() == "SQLite";
        let sql = if sqlite {
            format!("EXPLAIN QUERY PLAN {select}")
        } else {
            // a small table is read whole when that is cheaper: ask for the plan of a big one
            conn.execute("SET enable_seqscan = off").await?;
            format!("EXPLAIN {select}")
        };
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
            .fetch_all(&mut *conn)
            .await?;
        let mut lines = Vec::new();
        for r in &rows {
            let line: String = if sqlite {
                r.try_get("detail")?
            } else {
                r.try_get(0)?
            };
            lines.push(line);
        }
        if !sqlite {
            conn.execute("RESET enable_seqscan").await?;
        }
        Ok(lines.join("\n"))
    }
}

/// The events of every finished game (aborted ones left out) played in `variant`, oldest first
/// (by end time, then table id), each as `(table_id, events in version order)`: what
/// `chuhe puzzles generate --database` mines (`docs/puzzles.md`, "A site's own games").
///
/// Opens a connection of its own to `url` (a running server may keep using the database: on
/// SQLite the WAL lets a reader beside the writer), read-only for SQLite (`mode=ro` unless the
/// URL names a mode: a missing file is an error, not a new empty database), and runs no
/// migration; the tables `finished_games` and `table_events` must exist.
///
/// # Errors
/// [`StoreError::UnsupportedUrl`] for a URL of another database; [`StoreError::Open`] when it
/// cannot connect; a database failure (no such table: not a chuhe database); a stored event
/// that does not read.
pub async fn finished_game_logs(
    url: &str,
    variant: crate::variant::Variant,
) -> Result<Vec<(String, Vec<crate::protocol::Event>)>, StoreError> {
    use crate::protocol::Event;
    use sqlx::{AnyConnection, Connection};
    sqlx::any::install_default_drivers();
    let Some(backend) = super::Backend::of(url) else {
        return Err(StoreError::UnsupportedUrl(url.to_owned()));
    };
    let target = if backend == super::Backend::Sqlite && !url.contains("mode=") {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}mode=ro")
    } else {
        url.to_owned()
    };
    let mut conn = AnyConnection::connect(&target)
        .await
        .map_err(|source| StoreError::Open {
            url: url.to_owned(),
            source,
        })?;
    let rows = sqlx::query(
        "SELECT f.table_id, e.body FROM finished_games f \
         JOIN table_events e ON e.table_id = f.table_id \
         WHERE f.reason <> 'aborted' \
         ORDER BY f.ended_ms, f.table_id, e.version",
    )
    .fetch_all(&mut conn)
    .await?;
    let mut games: Vec<(String, Vec<Event>)> = Vec::new();
    for row in &rows {
        let id: String = row.try_get("table_id")?;
        let body: String = row.try_get("body")?;
        let event: Event = serde_json::from_str(&body)?;
        match games.last_mut() {
            Some((last, events)) if *last == id => events.push(event),
            _ => games.push((id, vec![event])),
        }
    }
    conn.close().await.ok();
    games.retain(|(_, events)| {
        events
            .iter()
            .any(|e| matches!(e, Event::Created { options } if options.variant == variant))
    });
    Ok(games)
}
