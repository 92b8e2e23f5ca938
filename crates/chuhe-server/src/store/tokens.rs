//! Personal API tokens and bot accounts: making, listing, finding and revoking tokens (by the
//! SHA-256 of their text: the text itself is never stored), the `bot` flag of an account, and
//! [`issue_token`], the operator's way in (`chuhe token create`) while a server runs or not.

use super::writer::{Job, Single};
use super::{now_ms, PlayerRow, Store, StoreError};
use crate::accounts::tokens::{digest, new_token, scopes_of_text, scopes_text, Scope};
use sqlx::{AnyConnection, Connection, Row};
use tokio::sync::oneshot;

/// A token as its owner sees it listed: everything but its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    /// The public id it is listed and revoked by.
    pub id: String,
    /// What its owner said it is for.
    pub description: String,
    /// Its scopes, in [`Scope::ALL`]'s order.
    pub scopes: Vec<Scope>,
    /// When it was made, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The last request it authorized (recorded at most once a minute), if any.
    pub last_used_ms: Option<i64>,
}

/// Who a token speaks for, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenOwner {
    /// The account.
    pub player: PlayerRow,
    /// Whether the account is a bot.
    pub bot: bool,
    /// The token's public id.
    pub token_id: String,
    /// The token's scopes.
    pub scopes: Vec<Scope>,
}

/// How often a token's use is written, at most: once a minute, milliseconds.
const TOUCH_EVERY_MS: i64 = 60_000;

/// Most tokens an account may hold at once (revoked ones do not count).
pub const MAX_TOKENS_PER_ACCOUNT: i64 = 50;

impl Store {
    /// Makes a token for the account `player_id` and answers its text (the only time it is
    /// seen) and its id.
    ///
    /// # Errors
    /// [`StoreError::Refused`] when the account holds [`MAX_TOKENS_PER_ACCOUNT`] tokens; a
    /// database failure.
    pub async fn create_token(
        &self,
        player_id: &str,
        description: &str,
        scopes: &[Scope],
    ) -> Result<(String, String), StoreError> {
        let token = new_token();
        let id = crate::ids::random_id(12);
        self.write_single(Single::CreateToken {
            id: id.clone(),
            digest: digest(&token),
            player_id: player_id.to_owned(),
            description: description.to_owned(),
            scopes: scopes_text(scopes),
            now_ms: now_ms(),
        })
        .await?;
        Ok((token, id))
    }

    /// The account's tokens that are not revoked, the newest first.
    ///
    /// # Errors
    /// A database failure.
    pub async fn tokens_of(&self, player_id: &str) -> Result<Vec<TokenRow>, StoreError> {
        let rows = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT id, description, scopes, created_ms, last_used_ms FROM api_tokens \
                     WHERE player_id = $1 AND revoked_ms IS NULL \
                     ORDER BY created_ms DESC, id",
                )
                .bind(player_id)
                .fetch_all(&self.pool)
                .await?)
            })
            .await?;
        rows.iter()
            .map(|r| {
                Ok(TokenRow {
                    id: r.try_get("id")?,
                    description: r.try_get("description")?,
                    scopes: scopes_of_text(&r.try_get::<String, _>("scopes")?),
                    created_ms: r.try_get("created_ms")?,
                    last_used_ms: r.try_get("last_used_ms")?,
                })
            })
            .collect()
    }

    /// Revokes the account's token `id`; answers whether there was such a token, not yet
    /// revoked, of that account.
    ///
    /// # Errors
    /// A database failure.
    pub async fn revoke_token(&self, player_id: &str, id: &str) -> Result<bool, StoreError> {
        let n = self
            .write_single(Single::RevokeToken {
                id: id.to_owned(),
                player_id: player_id.to_owned(),
                now_ms: now_ms(),
            })
            .await?;
        Ok(n > 0)
    }

    /// The account behind a token, by the digest of its text, unless it is revoked; its use is
    /// recorded (not awaited) when the last record is a minute old or more.
    ///
    /// # Errors
    /// A database failure.
    pub async fn token_owner(&self, token_digest: &str) -> Result<Option<TokenOwner>, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT p.id, p.name, p.password_hash, p.bot, t.id AS token_id, t.scopes, \
                     t.last_used_ms FROM api_tokens t JOIN players p ON p.id = t.player_id \
                     WHERE t.digest = $1 AND t.revoked_ms IS NULL",
                )
                .bind(token_digest)
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let now = now_ms();
        let last: Option<i64> = row.try_get("last_used_ms")?;
        if last.is_none_or(|last| now - last >= TOUCH_EVERY_MS) {
            let (answer, _) = oneshot::channel();
            let _ = self.jobs.try_send(Job::Single(
                Single::TouchToken {
                    digest: token_digest.to_owned(),
                    now_ms: now,
                },
                answer,
                std::sync::Arc::default(),
            ));
        }
        Ok(Some(TokenOwner {
            player: Self::player_of(&row)?,
            bot: row.try_get::<i64, _>("bot")? != 0,
            token_id: row.try_get("token_id")?,
            scopes: scopes_of_text(&row.try_get::<String, _>("scopes")?),
        }))
    }

    /// Whether the player is a bot account (`false` for an unknown player).
    ///
    /// # Errors
    /// A database failure.
    pub async fn is_bot(&self, player_id: &str) -> Result<bool, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query("SELECT bot FROM players WHERE id = $1")
                    .bind(player_id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<i64, _>("bot")? != 0,
            None => false,
        })
    }

    /// Makes the account a bot, when it has no finished game (the caller checks the tables in
    /// play); a bot stays a bot.
    ///
    /// # Errors
    /// [`StoreError::Refused`] for a guest or an account that has played; a database failure.
    pub async fn make_bot(&self, player_id: &str) -> Result<(), StoreError> {
        let n = self
            .write_single(Single::MakeBot {
                player_id: player_id.to_owned(),
            })
            .await?;
        if n == 0 {
            return Err(StoreError::Refused(
                "this account has played games: only an account without games becomes a bot"
                    .to_owned(),
            ));
        }
        Ok(())
    }
}

/// A token made by [`issue_token`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedToken {
    /// The token's text (shown once).
    pub token: String,
    /// Its public id.
    pub token_id: String,
    /// The account's id.
    pub player_id: String,
    /// Whether the account was made now.
    pub created_account: bool,
    /// Whether the account is a bot.
    pub bot: bool,
}

/// Makes a token for the account `name` (already in its normal form,
/// [`crate::accounts::names::normalize`]) on the database at `url`, applying the migrations
/// first: the operator's `chuhe token create`. It works while a server runs on the database
/// (one short transaction of its own, beside the server's writer), and when none does. An
/// account that does not exist is made, without a password (it signs in only with its tokens:
/// [`crate::accounts::tokens::NO_PASSWORD`]) and a bot when `bot`; an existing account
/// becomes a bot with `bot` when it has no finished game.
///
/// # Errors
/// [`StoreError::UnsupportedUrl`], [`StoreError::Open`], [`StoreError::Migration`];
/// [`StoreError::Refused`] when an account with games is asked to become a bot; a database
/// failure.
pub async fn issue_token(
    url: &str,
    name: &str,
    bot: bool,
    scopes: &[Scope],
    description: &str,
) -> Result<IssuedToken, StoreError> {
    sqlx::any::install_default_drivers();
    let Some(backend) = super::Backend::of(url) else {
        return Err(StoreError::UnsupportedUrl(url.to_owned()));
    };
    let is_sqlite = backend == super::Backend::Sqlite;
    let mut conn = AnyConnection::connect(&super::normalize_url(url))
        .await
        .map_err(|source| StoreError::Open {
            url: url.to_owned(),
            source,
        })?;
    let setup = super::timeout_statement(is_sqlite, std::time::Duration::from_secs(10));
    sqlx::raw_sql(sqlx::AssertSqlSafe(setup))
        .execute(&mut conn)
        .await?;
    super::MIGRATOR.run(&mut conn).await?;
    let skeleton = crate::accounts::names::skeleton_key(name);
    let token = new_token();
    let token_id = crate::ids::random_id(12);
    let now = now_ms();
    // A write of the server's between this transaction's read and its write cannot refuse it.
    let mut tx = super::begin_write(&mut conn, is_sqlite).await?;
    let existing = sqlx::query(
        "SELECT id, bot FROM players WHERE password_hash IS NOT NULL \
         AND (skeleton = $1 OR name = $2) ORDER BY created_ms LIMIT 1",
    )
    .bind(skeleton.as_str())
    .bind(name)
    .fetch_optional(&mut *tx)
    .await?;
    let (player_id, created_account, is_bot) = match existing {
        Some(row) => {
            let id: String = row.try_get("id")?;
            let mut is_bot = row.try_get::<i64, _>("bot")? != 0;
            if bot && !is_bot {
                let played = sqlx::query("SELECT 1 AS one FROM game_players WHERE player_id = $1")
                    .bind(id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                if played.is_some() {
                    return Err(StoreError::Refused(format!(
                        "the account {name:?} has played games: only an account without games \
                         becomes a bot"
                    )));
                }
                sqlx::query("UPDATE players SET bot = 1 WHERE id = $1")
                    .bind(id.as_str())
                    .execute(&mut *tx)
                    .await?;
                is_bot = true;
            }
            (id, false, is_bot)
        }
        None => {
            let id = crate::ids::random_id(12);
            sqlx::query(
                "INSERT INTO players (id, name, password_hash, created_ms, skeleton, bot) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(id.as_str())
            .bind(name)
            .bind(crate::accounts::tokens::NO_PASSWORD)
            .bind(now)
            .bind(skeleton.as_str())
            .bind(i64::from(bot))
            .execute(&mut *tx)
            .await?;
            (id, true, bot)
        }
    };
    sqlx::query(
        "INSERT INTO api_tokens (id, digest, player_id, description, scopes, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(token_id.as_str())
    .bind(digest(&token))
    .bind(player_id.as_str())
    .bind(description)
    .bind(scopes_text(scopes))
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    conn.close().await?;
    Ok(IssuedToken {
        token,
        token_id,
        player_id,
        created_account,
        bot: is_bot,
    })
}
