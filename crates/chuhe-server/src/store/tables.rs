//! Tables and their events: creating a table, its row and its event log, the live tables brought
//! back at start, and the time a table's clocks ran unsaved.

use super::rows::clocks_text;
use super::writer::Single;
use super::{texts, Fence, Store, StoreError, TableRow, TableWrite};
use crate::protocol::Event;
use sqlx::any::AnyRow;
use sqlx::Row;
use std::time::Duration;

/// A table's row with its last event's version, clocks and time (SQLite and PostgreSQL alike;
/// `$1` the table's id): read by [`Store::table`] and
/// [`Store::uncharged_since_last_write`], which take the newer of the two.
const TABLE_HEAD: &str = "SELECT g.id, g.options, g.phase, g.version, g.clocks, g.secret, \
     g.created_ms, g.updated_ms, e.version AS event_version, e.clocks AS event_clocks, \
     e.created_ms AS event_ms \
     FROM game_tables g LEFT JOIN table_events e ON e.table_id = g.id \
     AND e.version = (SELECT MAX(version) FROM table_events WHERE table_id = g.id) \
     WHERE g.id = $1";

impl Store {
    /// Creates a table with its first event (version `row.version`), in one transaction (the
    /// row's `created_ms` is stored as given).
    pub async fn create_table(
        &self,
        row: &TableRow,
        first_event: &Event,
    ) -> Result<(), StoreError> {
        self.create_table_owned(row, first_event, None).await
    }

    /// As [`Store::create_table`], owned by the cluster node `owner` (epoch 1) when given.
    ///
    /// # Errors
    /// A database failure.
    pub async fn create_table_owned(
        &self,
        row: &TableRow,
        first_event: &Event,
        owner: Option<&str>,
    ) -> Result<(), StoreError> {
        self.write_single(Single::CreateTable {
            owner: owner.map(str::to_owned),
            id: row.id.clone(),
            variant: row.options.variant.as_str(),
            options: serde_json::to_string(&row.options)?,
            phase: row.phase.clone(),
            version: row.version as i64,
            clocks: clocks_text(row)?,
            secret: row.secret.clone(),
            created_ms: row.created_ms,
            first_event: serde_json::to_string(first_event)?,
        })
        .await?;
        Ok(())
    }

    /// Saves the table row alone (the clock snapshot at shutdown), as a [`TableWrite`] without
    /// events; a failure marks the stop as not clean (see [`Store::close`]).
    pub async fn save_row(&self, row: &TableRow) -> Result<(), StoreError> {
        self.save_row_fenced(row, None).await
    }

    /// As [`Store::save_row`], checked against `fence` when given.
    ///
    /// # Errors
    /// As [`Store::write_fenced`].
    pub async fn save_row_fenced(
        &self,
        row: &TableRow,
        fence: Option<&Fence>,
    ) -> Result<(), StoreError> {
        let result = self
            .write_fenced(
                &TableWrite {
                    row: row.clone(),
                    events: Vec::new(),
                    rated: None,
                    finished: None,
                },
                fence,
            )
            .await;
        if result.is_err() {
            self.mark_unsaved();
        }
        result
    }

    /// A table row as [`TABLE_HEAD`] reads it, with its last write's time (`updated_ms`):
    /// the row's version, clocks and time, or its last event's where that is newer and holds
    /// the clocks (a group of moves on SQLite leaves the row of a table whose phase stays as
    /// it was: `store/writer/sql.rs`, `sqlite_moves`).
    fn table_of(row: &AnyRow) -> Result<(TableRow, i64), StoreError> {
        let options: String = row.try_get("options")?;
        let mut version: i64 = row.try_get("version")?;
        let mut clocks: Option<String> = row.try_get("clocks")?;
        let mut updated_ms: i64 = row.try_get("updated_ms")?;
        let event_version: Option<i64> = row.try_get("event_version")?;
        if let Some(event_version) = event_version.filter(|v| *v > version) {
            version = event_version;
            let event_clocks: Option<String> = row.try_get("event_clocks")?;
            if event_clocks.is_some() {
                clocks = event_clocks;
                updated_ms = row.try_get("event_ms")?;
            }
        }
        let table = TableRow {
            id: row.try_get("id")?,
            options: serde_json::from_str(&options)?,
            phase: row.try_get("phase")?,
            version: version.max(0) as u64,
            clocks: clocks.as_deref().map(serde_json::from_str).transpose()?,
            secret: row.try_get("secret")?,
            created_ms: row.try_get("created_ms")?,
        };
        Ok((table, updated_ms))
    }

    /// One table row and its last write's time (milliseconds since the Unix epoch).
    async fn table_head(&self, id: &str) -> Result<Option<(TableRow, i64)>, StoreError> {
        let row = sqlx::query(TABLE_HEAD)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::table_of).transpose()
    }

    /// One table row: its version, clocks and phase as of its last stored write.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StoreError> {
        Ok(self.table_head(id).await?.map(|(table, _)| table))
    }

    /// The ids of the tables that are open or running (to bring back at start-up).
    pub async fn live_table_ids(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM game_tables WHERE phase <> 'ended' ORDER BY created_ms, id",
        )
        .fetch_all(&self.pool)
        .await?;
        texts(&rows, "id")
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

    /// The thinking time a kill -9 left uncharged on a table: from the table row's last write
    /// to the last `alive_ms` the previous server recorded (zero after a clean stop, which
    /// saves the clocks itself and leaves `alive_ms` at 0).
    ///
    /// # Errors
    /// A database failure.
    pub async fn uncharged_since_last_write(&self, table_id: &str) -> Result<Duration, StoreError> {
        if self.previous_alive_ms <= 0 {
            return Ok(Duration::ZERO);
        }
        let head = self.timed(self.table_head(table_id)).await?;
        let Some((_, updated_ms)) = head else {
            return Ok(Duration::ZERO);
        };
        let ms = self.previous_alive_ms.saturating_sub(updated_ms).max(0);
        Ok(Duration::from_millis(ms as u64))
    }
}
