//! Challenges (`migrations/0011_challenges.sql`): made, then moved out of `created` once
//! (accepted, declined, cancelled or expired) by one conditional `UPDATE`, so that of two
//! nodes answering the same challenge at once only one succeeds. The accounts' names and bot
//! flags are read from `players` with each challenge.

use super::writer::Single;
use super::{now_ms, Store, StoreError};
use crate::protocol::{SeatPlayer, TableOptions};
use sqlx::any::AnyRow;
use sqlx::Row;

/// Most challenges one account may have waiting at once.
pub const MAX_PENDING: usize = 20;

/// A challenge waiting for its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// Its id (8 letters and digits).
    pub id: String,
    /// Who challenges (a person).
    pub challenger: SeatPlayer,
    /// Who is challenged (a person).
    pub dest: SeatPlayer,
    /// The table it makes once accepted.
    pub options: TableOptions,
    /// The colour asked for: `white`, `black` or `random`.
    pub color: String,
    /// The challenger's seat once accepted (0 = white = Red), drawn when it is made.
    pub challenger_seat: usize,
    /// When it was made, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When it expires unanswered, milliseconds since the Unix epoch (`crate::site::challenges::expires_ms`).
    pub expires_ms: i64,
}

/// The id of a seat's person (empty for the computer).
pub fn person_id(p: &SeatPlayer) -> &str {
    match p {
        SeatPlayer::Person { id, .. } => id,
        SeatPlayer::Computer { .. } => "",
    }
}

/// Notified (all waiters) each time a challenge is stored by this process: the site's expiry
/// task waits on it when no challenge waits (`crate::site::challenges::run`).
pub static CHALLENGE_MADE: std::sync::LazyLock<tokio::sync::Notify> =
    std::sync::LazyLock::new(tokio::sync::Notify::new);

/// Who may move a challenge out of `created`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answerer<'a> {
    /// The challenged account (accept, decline).
    Dest(&'a str),
    /// The challenger (cancel).
    Challenger(&'a str),
}

/// A query of [`Challenge`]s: the columns read, from `challenges c` joined with the two
/// players, then `$rest` (the conditions).
macro_rules! select {
    ($rest:literal) => {
        concat!(
            "SELECT c.id, c.challenger_id, a.name AS challenger_name, ",
            "a.bot AS challenger_bot, c.dest_id, b.name AS dest_name, b.bot AS dest_bot, ",
            "c.options, c.color, c.challenger_seat, c.created_ms, c.expires_ms ",
            "FROM challenges c JOIN players a ON a.id = c.challenger_id ",
            "JOIN players b ON b.id = c.dest_id ",
            $rest
        )
    };
}

fn challenge_of(r: &AnyRow) -> Result<Challenge, StoreError> {
    let person = |id: &str, name: &str, bot: &str| -> Result<SeatPlayer, StoreError> {
        Ok(SeatPlayer::Person {
            id: r.try_get(id)?,
            name: r.try_get(name)?,
            account: true,
            bot: r.try_get::<i64, _>(bot)? != 0,
        })
    };
    let options: String = r.try_get("options")?;
    Ok(Challenge {
        id: r.try_get("id")?,
        challenger: person("challenger_id", "challenger_name", "challenger_bot")?,
        dest: person("dest_id", "dest_name", "dest_bot")?,
        options: serde_json::from_str(&options).map_err(StoreError::Json)?,
        color: r.try_get("color")?,
        challenger_seat: usize::try_from(r.try_get::<i64, _>("challenger_seat")?).unwrap_or(0),
        created_ms: r.try_get("created_ms")?,
        expires_ms: r.try_get("expires_ms")?,
    })
}

impl Store {
    /// Stores a new challenge, `created` until [`Challenge::expires_ms`].
    ///
    /// # Errors
    /// [`StoreError::Refused`] when its challenger has [`MAX_PENDING`] challenges waiting; a
    /// database failure.
    pub async fn create_challenge(&self, c: &Challenge) -> Result<(), StoreError> {
        let options = serde_json::to_string(&c.options).map_err(StoreError::Json)?;
        self.write_single(Single::CreateChallenge {
            id: c.id.clone(),
            challenger_id: person_id(&c.challenger).to_owned(),
            dest_id: person_id(&c.dest).to_owned(),
            options,
            color: c.color.clone(),
            challenger_seat: i64::try_from(c.challenger_seat).unwrap_or(0),
            created_ms: c.created_ms,
            expires_ms: c.expires_ms,
            most: i64::try_from(MAX_PENDING).unwrap_or(i64::MAX),
        })
        .await?;
        CHALLENGE_MADE.notify_waiters();
        Ok(())
    }

    /// Moves the challenge `id`, still `created` and not expired, to `to` (`accepted`,
    /// `declined` with the key of its `reason`, `canceled`) for `who`; answers the challenge,
    /// or `None` when there is no such challenge waiting for `who` (another node may have
    /// answered it a moment before: exactly one answer succeeds).
    ///
    /// # Errors
    /// A database failure.
    pub async fn answer_challenge(
        &self,
        id: &str,
        who: Answerer<'_>,
        to: &'static str,
        reason: Option<&str>,
    ) -> Result<Option<Challenge>, StoreError> {
        let (challenger, dest) = match who {
            Answerer::Dest(p) => (String::new(), p.to_owned()),
            Answerer::Challenger(p) => (p.to_owned(), String::new()),
        };
        let moved = self
            .write_single(Single::MoveChallenge {
                id: id.to_owned(),
                challenger,
                dest,
                from: "created",
                to,
                reason: reason.map(str::to_owned),
                expiry: Some(false),
                now_ms: now_ms(),
            })
            .await?;
        if moved == 0 {
            return Ok(None);
        }
        self.challenge(id).await
    }

    /// Moves the challenge `id` from `created` to `expired` when its time has passed; answers
    /// it when this call expired it (so that one node announces each expiry).
    ///
    /// # Errors
    /// A database failure.
    pub async fn expire_challenge(&self, id: &str) -> Result<Option<Challenge>, StoreError> {
        let moved = self
            .write_single(Single::MoveChallenge {
                id: id.to_owned(),
                challenger: String::new(),
                dest: String::new(),
                from: "created",
                to: "expired",
                reason: None,
                expiry: Some(true),
                now_ms: now_ms(),
            })
            .await?;
        if moved == 0 {
            return Ok(None);
        }
        self.challenge(id).await
    }

    /// Puts an accepted challenge back to `created` (its table could not be made).
    ///
    /// # Errors
    /// A database failure.
    pub async fn reopen_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.write_single(Single::MoveChallenge {
            id: id.to_owned(),
            challenger: String::new(),
            dest: String::new(),
            from: "accepted",
            to: "created",
            reason: None,
            expiry: None,
            now_ms: now_ms(),
        })
        .await?;
        Ok(())
    }

    /// The challenge `id`, whatever its status.
    ///
    /// # Errors
    /// A database failure.
    pub async fn challenge(&self, id: &str) -> Result<Option<Challenge>, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query(select!("WHERE c.id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        row.as_ref().map(challenge_of).transpose()
    }

    /// The status of the challenge `id` (`created`, `accepted`, `declined`, `canceled`,
    /// `expired`) and its decline reason's key, if there is such a challenge.
    ///
    /// # Errors
    /// A database failure.
    pub async fn challenge_status(
        &self,
        id: &str,
    ) -> Result<Option<(String, Option<String>)>, StoreError> {
        let row = self
            .timed(async {
                Ok(
                    sqlx::query("SELECT status, decline_reason FROM challenges WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?,
                )
            })
            .await?;
        row.map(|r| Ok((r.try_get("status")?, r.try_get("decline_reason")?)))
            .transpose()
    }

    /// The challenges waiting (`created`, not expired) to or from `player_id`, the oldest
    /// first.
    ///
    /// # Errors
    /// A database failure.
    pub async fn open_challenges(&self, player_id: &str) -> Result<Vec<Challenge>, StoreError> {
        let rows = self
            .timed(async {
                Ok(sqlx::query(select!(
                    "WHERE (c.challenger_id = $1 OR c.dest_id = $1) \
                     AND c.status = 'created' AND c.expires_ms > $2 \
                     ORDER BY c.created_ms, c.id"
                ))
                .bind(player_id)
                .bind(now_ms())
                .fetch_all(&self.pool)
                .await?)
            })
            .await?;
        rows.iter().map(challenge_of).collect()
    }

    /// The ids of up to `limit` challenges still `created` whose time has passed.
    ///
    /// # Errors
    /// A database failure.
    pub async fn overdue_challenges(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        let rows = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT id FROM challenges WHERE status = 'created' AND expires_ms <= $1 \
                     ORDER BY expires_ms, id LIMIT $2",
                )
                .bind(now_ms())
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            })
            .await?;
        super::texts(&rows, "id")
    }

    /// When the first of the challenges still `created` expires (milliseconds since the Unix
    /// epoch); `None` when none waits.
    ///
    /// # Errors
    /// A database failure.
    pub async fn first_challenge_expiry(&self) -> Result<Option<i64>, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT MIN(expires_ms) AS first FROM challenges WHERE status = 'created'",
                )
                .fetch_one(&self.pool)
                .await?)
            })
            .await?;
        Ok(row.try_get::<Option<i64>, _>("first")?)
    }

    /// Keeps the waiting challenges of `challenger_id` that expire before `until_ms` (those
    /// with a clock) until then; answers how many. When none waits, the answer (0) comes from
    /// a read, and the writer is not asked.
    ///
    /// # Errors
    /// A database failure.
    pub async fn keep_challenges(
        &self,
        challenger_id: &str,
        until_ms: i64,
    ) -> Result<u64, StoreError> {
        let now_ms = now_ms();
        // Asked every few seconds by each open event stream, most of which have no challenge
        // waiting: a read on the pool answers those without a turn of the one writer.
        let waiting = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT COUNT(*) AS n FROM challenges WHERE challenger_id = $1 \
                     AND status = 'created' AND expires_ms > $2 AND expires_ms < $3",
                )
                .bind(challenger_id)
                .bind(now_ms)
                .bind(until_ms)
                .fetch_one(&self.pool)
                .await?)
            })
            .await?
            .try_get::<i64, _>("n")?;
        if waiting == 0 {
            return Ok(0);
        }
        self.write_single(Single::KeepChallenges {
            challenger_id: challenger_id.to_owned(),
            until_ms,
            now_ms,
        })
        .await
    }
}
