//! Players, accounts and sessions: creating them, finding them by name, by its skeleton or by a
//! session, and the cleanup of expired sessions.

use super::writer::{Job, Single};
use super::{now_ms, PlayerRow, Store, StoreError};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Connection, Executor, Row};
use std::time::Duration;
use tokio::sync::oneshot;

impl Store {
    /// Creates a player (a guest when `password_hash` is `None`).
    ///
    /// # Errors
    /// [`StoreError::NameTaken`] when an account of that name exists.
    pub async fn create_player(&self, player: &PlayerRow) -> Result<(), StoreError> {
        self.write_single(Single::Player {
            id: player.id.clone(),
            name: player.name.clone(),
            skeleton: crate::accounts::names::skeleton_key(&player.name),
            password_hash: player.password_hash.clone(),
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    pub(super) fn player_of(row: &AnyRow) -> Result<PlayerRow, sqlx::Error> {
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
        self.write_single(Single::Session {
            token: token.to_owned(),
            player_id: player_id.to_owned(),
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    /// Ends a session, by the digest of its token; returns whether one existed.
    pub async fn delete_session(&self, token: &str) -> Result<bool, StoreError> {
        let gone = self
            .write_single(Single::EndSession {
                token: token.to_owned(),
            })
            .await?;
        Ok(gone > 0)
    }

    /// The player behind a session, by the digest of its token, when the session was used
    /// within [`super::StoreOptions::session_lifetime`]; a use more than an hour (or half the
    /// lifetime) after the last recorded one is recorded, so the expiry slides.
    pub async fn player_by_session(&self, token: &str) -> Result<Option<PlayerRow>, StoreError> {
        let now = now_ms();
        let lifetime = i64::try_from(self.options.session_lifetime.as_millis()).unwrap_or(i64::MAX);
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT p.id, p.name, p.password_hash, s.last_used_ms FROM sessions s \
                     JOIN players p ON p.id = s.player_id \
                     WHERE s.token = $1 AND s.last_used_ms >= $2",
                )
                .bind(token)
                .bind(now.saturating_sub(lifetime))
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let last_used: i64 = row.try_get("last_used_ms")?;
        if now - last_used > (lifetime / 2).min(3_600_000) {
            // Not awaited: the request does not wait for the record of its own use.
            let (answer, _) = oneshot::channel();
            let _ = self.jobs.try_send(Job::Single(
                Single::TouchSession {
                    token: token.to_owned(),
                    now_ms: now,
                },
                answer,
                std::sync::Arc::default(),
            ));
        }
        Ok(Some(Self::player_of(&row)?))
    }

    /// The account holder whose name has the skeleton key of `name`
    /// ([`crate::accounts::names::skeleton_key`]): the same name, or one that reads the same.
    pub async fn account_by_skeleton(&self, name: &str) -> Result<Option<PlayerRow>, StoreError> {
        let key = crate::accounts::names::skeleton_key(name);
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT id, name, password_hash FROM players \
                     WHERE skeleton = $1 AND password_hash IS NOT NULL",
                )
                .bind(key)
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        Ok(row.as_ref().map(Self::player_of).transpose()?)
    }

    /// Removes the sessions not used for [`super::StoreOptions::session_lifetime`] and the guests
    /// older than that with no session left; returns how many rows went.
    ///
    /// # Errors
    /// A database failure.
    pub async fn cleanup(&self) -> Result<u64, StoreError> {
        self.write_single(cleanup_job(self.options.session_lifetime))
            .await
    }
}

/// The cleanup of the sessions unused for `lifetime`, and of the guests older than that
/// without a session.
pub(super) fn cleanup_job(lifetime: Duration) -> Single {
    let lifetime = i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX);
    Single::Cleanup {
        cutoff_ms: now_ms().saturating_sub(lifetime),
    }
}

/// Fills the skeleton key of the accounts that have none (accounts made before the key was
/// stored), oldest first; an account whose key an older account holds keeps its name but gets
/// no key. Then makes the unique index of the accounts' keys (once).
///
/// # Errors
/// A database failure.
pub(super) async fn index_name_skeletons(conn: &mut AnyConnection) -> Result<(), StoreError> {
    let rows = sqlx::query(
        "SELECT id, name FROM players WHERE password_hash IS NOT NULL AND skeleton IS NULL \
         ORDER BY created_ms, id",
    )
    .fetch_all(&mut *conn)
    .await?;
    if !rows.is_empty() {
        let mut tx = conn.begin().await?;
        let mut keyed = 0;
        for r in &rows {
            let id: String = r.try_get("id")?;
            let name: String = r.try_get("name")?;
            let key = crate::accounts::names::skeleton_key(&name);
            let taken = sqlx::query(
                "SELECT id FROM players WHERE skeleton = $1 AND password_hash IS NOT NULL",
            )
            .bind(key.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            if taken.is_some() {
                tracing::warn!(player = %id, name = %name, "an account's name reads as an older account's: it keeps its name without reserving it");
                continue;
            }
            sqlx::query("UPDATE players SET skeleton = $1 WHERE id = $2")
                .bind(key.as_str())
                .bind(id.as_str())
                .execute(&mut *tx)
                .await?;
            keyed += 1;
        }
        tx.commit().await?;
        tracing::info!(accounts = keyed, "account names reserved by their skeleton");
    }
    conn.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS players_account_skeleton ON players (skeleton) \
         WHERE password_hash IS NOT NULL",
    )
    .await?;
    Ok(())
}
