//! Puzzles (`migrations/0010_puzzles.sql`, `docs/puzzles.md`): the puzzles of
//! `data/puzzles.tsv`, embedded in the binary and loaded at start-up; the daily puzzle, the next
//! puzzle for a player, a puzzle by id; each player's puzzle rating and results, rated by
//! Glicko-2 for the player and the puzzle in one transaction of the writer.
//!
//! # Loading
//!
//! [`load_embedded`] runs at start-up on the writer's connection, before the writer starts (on
//! PostgreSQL under the start-up lock, so cluster nodes that start together take turns). The
//! file's SHA-256 is kept in `server_state` (`puzzles_digest`): when the stored digest is the
//! file's, nothing is read or written. Otherwise every row is checked by the rules (its FEN, the
//! opponent's last move and the whole solution must be legal; a row that is not is left out
//! with a warning) and inserted in **one transaction**, 100 rows a statement, `ON CONFLICT DO
//! NOTHING`: a puzzle already stored keeps its rating and plays, a new one is added.

use super::writer::Single;
use super::{Store, StoreError};
use crate::accounts::rating::{self, Rating};
use chuhe_rules::xiangqi::{Move, Position};
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{Any, AnyConnection, Connection, Row, Transaction};
use std::sync::OnceLock;

/// `data/puzzles.tsv`, as the binary was built with it.
pub const PUZZLES_TSV: &str = include_str!("../../../../data/puzzles.tsv");

/// The deviation a puzzle starts with: its rating is a guess from its difficulty
/// (`docs/puzzles.md`, "Rating"), surer than a new player's 350.
pub const PUZZLE_DEVIATION: f64 = 250.0;

/// Rows of one `INSERT` of [`load`] (12 parameters each).
const LOAD_BATCH: usize = 100;

/// One puzzle: where it starts, its solution, themes and rating.
#[derive(Debug, Clone, PartialEq)]
pub struct PuzzleRow {
    /// The id: the source game's id and the ply of the puzzle's position (`ccpd-000020-50`).
    pub id: String,
    /// The position before the opponent's last move (FEN).
    pub before_fen: String,
    /// The opponent's last move (ICCS), which the player sees played.
    pub last_move: String,
    /// The position after it (FEN): the player makes `solution[0]` here.
    pub fen: String,
    /// The solution (ICCS): the player's moves and the opponent's replies, alternately.
    pub solution: Vec<String>,
    /// The themes' keys (`mateIn2`, `fork`, ...).
    pub themes: Vec<String>,
    /// The puzzle's Glicko-2 rating.
    pub rating: Rating,
    /// How many players have a result on it.
    pub plays: i64,
    /// The source game's id (`data/games.tsv`).
    pub game_id: String,
    /// Plies played in the source game to reach `fen` (the last of them `last_move`).
    pub ply: i64,
}

/// A player's puzzle rating and rated results so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PuzzleRating {
    /// The rating (the default 1500/350/0.06 before a first result).
    pub rating: Rating,
    /// Rated results so far.
    pub plays: i64,
}

/// A player's result on a puzzle, with both ratings before and after it.
#[derive(Debug, Clone, PartialEq)]
pub struct PuzzleResultRow {
    /// The puzzle.
    pub puzzle_id: String,
    /// Whether the player solved it.
    pub win: bool,
    /// The player's rating before and after the result.
    pub rating_before: f64,
    /// See `rating_before`.
    pub rating_after: f64,
    /// The puzzle's rating before and after the result.
    pub puzzle_rating_before: f64,
    /// See `puzzle_rating_before`.
    pub puzzle_rating_after: f64,
    /// When, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// What [`load`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loaded {
    /// Rows of the file that the rules accept.
    pub rows: usize,
    /// Rows left out (a FEN or a move the rules refuse, a missing field).
    pub skipped: usize,
    /// Puzzles added to the store (0 when they were all there).
    pub inserted: u64,
    /// Whether the file was read at all (false when the stored digest was the file's).
    pub read: bool,
}

/// The puzzles of a TSV text in the layout of `data/puzzles.tsv` (columns by header name:
/// `id`, `fen`, `last_move`, `solution`, `themes`, `rating`, `game_id`, `ply`), each checked by
/// the rules; and how many rows were left out.
pub fn parse_tsv(text: &str) -> (Vec<PuzzleRow>, usize) {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return (Vec::new(), 0);
    };
    let names: Vec<&str> = header.split('\t').collect();
    let column = |name: &str| names.iter().position(|n| *n == name);
    let (
        Some(id),
        Some(fen),
        Some(last),
        Some(solution),
        Some(themes),
        Some(rating),
        Some(game),
        Some(ply),
    ) = (
        column("id"),
        column("fen"),
        column("last_move"),
        column("solution"),
        column("themes"),
        column("rating"),
        column("game_id"),
        column("ply"),
    )
    else {
        return (Vec::new(), text.lines().skip(1).count());
    };
    let mut rows = Vec::new();
    let mut skipped = 0;
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |i: usize| fields.get(i).copied().unwrap_or("").trim();
        match puzzle_of(
            field(id),
            field(fen),
            field(last),
            field(solution),
            field(themes),
            field(rating),
            field(game),
            field(ply),
        ) {
            Some(row) => rows.push(row),
            None => {
                tracing::warn!(
                    row = field(id),
                    "a puzzle of the file does not read: left out"
                );
                skipped += 1;
            }
        }
    }
    (rows, skipped)
}

/// One row of the file, or `None` when a field is missing or the rules refuse its position or a
/// move.
#[allow(clippy::too_many_arguments)]
fn puzzle_of(
    id: &str,
    before_fen: &str,
    last_move: &str,
    solution: &str,
    themes: &str,
    rating: &str,
    game_id: &str,
    ply: &str,
) -> Option<PuzzleRow> {
    if id.is_empty() || game_id.is_empty() {
        return None;
    }
    let mut position = Position::from_fen(before_fen).ok()?;
    position.play(last_move.parse::<Move>().ok()?).ok()?;
    let fen = position.to_string();
    let solution: Vec<String> = solution.split_whitespace().map(str::to_owned).collect();
    if solution.is_empty() {
        return None;
    }
    let mut line = position.clone();
    for m in &solution {
        line.play(m.parse::<Move>().ok()?).ok()?;
    }
    let rating: f64 = rating.parse().ok()?;
    if !rating.is_finite() {
        return None;
    }
    Some(PuzzleRow {
        id: id.to_owned(),
        before_fen: before_fen.to_owned(),
        last_move: last_move.to_owned(),
        fen,
        solution,
        themes: themes.split_whitespace().map(str::to_owned).collect(),
        rating: Rating {
            rating,
            deviation: PUZZLE_DEVIATION,
            volatility: Rating::default().volatility,
        },
        plays: 0,
        game_id: game_id.to_owned(),
        ply: ply.parse().ok()?,
    })
}

/// The first 8 bytes of the SHA-256 of `text`, as the `BIGINT` kept in `server_state`.
fn digest_of(text: &str) -> i64 {
    let hash = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    i64::from_be_bytes(first)
}

/// Loads [`PUZZLES_TSV`] into the store of `conn` (see the module documentation). The file's
/// digest and rows are worked out once per process (a test run opens many stores).
///
/// # Errors
/// A database failure (the transaction is rolled back: nothing of the file is stored).
pub(super) async fn load_embedded(conn: &mut AnyConnection) -> Result<Loaded, StoreError> {
    static DIGEST: OnceLock<i64> = OnceLock::new();
    static PARSED: OnceLock<(Vec<PuzzleRow>, usize)> = OnceLock::new();
    let digest = *DIGEST.get_or_init(|| digest_of(PUZZLES_TSV));
    if stored_digest(conn).await? == Some(digest) {
        return Ok(Loaded::default());
    }
    let (rows, skipped) = PARSED.get_or_init(|| parse_tsv(PUZZLES_TSV));
    insert_all(conn, digest, rows, *skipped).await
}

/// Loads the puzzles of `text` (see the module documentation), skipping the work when the
/// stored digest is `text`'s: [`load_embedded`] for any text (the tests' way in).
///
/// # Errors
/// A database failure (the transaction is rolled back).
#[cfg(test)]
pub(super) async fn load(conn: &mut AnyConnection, text: &str) -> Result<Loaded, StoreError> {
    let digest = digest_of(text);
    if stored_digest(conn).await? == Some(digest) {
        return Ok(Loaded::default());
    }
    let (rows, skipped) = parse_tsv(text);
    insert_all(conn, digest, &rows, skipped).await
}

/// The digest of the puzzles loaded last, if any.
async fn stored_digest(conn: &mut AnyConnection) -> Result<Option<i64>, StoreError> {
    Ok(
        sqlx::query("SELECT value FROM server_state WHERE name = 'puzzles_digest'")
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| r.try_get::<i64, _>("value"))
            .transpose()?,
    )
}

/// Inserts `rows` (those not stored yet) and records `digest`, in one transaction.
async fn insert_all(
    conn: &mut AnyConnection,
    digest: i64,
    rows: &[PuzzleRow],
    skipped: usize,
) -> Result<Loaded, StoreError> {
    let mut tx = conn.begin().await?;
    let mut inserted = 0;
    for batch in rows.chunks(LOAD_BATCH) {
        inserted += insert_batch(&mut tx, batch).await?;
    }
    sqlx::query(
        "INSERT INTO server_state (name, value) VALUES ('puzzles_digest', $1) \
         ON CONFLICT (name) DO UPDATE SET value = $1",
    )
    .bind(digest)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Loaded {
        rows: rows.len(),
        skipped,
        inserted,
        read: true,
    })
}

/// One multi-row `INSERT` of new puzzles (those already stored are kept as they are).
async fn insert_batch(
    tx: &mut Transaction<'_, Any>,
    batch: &[PuzzleRow],
) -> Result<u64, StoreError> {
    if batch.is_empty() {
        return Ok(0);
    }
    let sql = format!(
        "INSERT INTO puzzles (id, before_fen, last_move, fen, solution, themes, rating, \
         deviation, volatility, plays, game_id, ply) VALUES {} ON CONFLICT (id) DO NOTHING",
        values(batch.len(), 12)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(false);
    for p in batch {
        query = query
            .bind(p.id.as_str())
            .bind(p.before_fen.as_str())
            .bind(p.last_move.as_str())
            .bind(p.fen.as_str())
            .bind(p.solution.join(" "))
            .bind(p.themes.join(" "))
            .bind(p.rating.rating)
            .bind(p.rating.deviation)
            .bind(p.rating.volatility)
            .bind(p.plays)
            .bind(p.game_id.as_str())
            .bind(p.ply);
    }
    Ok(query.execute(&mut **tx).await?.rows_affected())
}

/// `INSERT`'s `VALUES` list of `rows` rows of `columns` numbered parameters each.
fn values(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|r| {
            let row: Vec<String> = (1..=columns)
                .map(|c| format!("${}", r * columns + c))
                .collect();
            format!("({})", row.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The columns of [`PuzzleRow`].
const COLUMNS: &str = "id, before_fen, last_move, fen, solution, themes, rating, deviation, \
                       volatility, plays, game_id, ply";

fn row_of(r: &AnyRow) -> Result<PuzzleRow, StoreError> {
    let words =
        |text: String| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    Ok(PuzzleRow {
        id: r.try_get("id")?,
        before_fen: r.try_get("before_fen")?,
        last_move: r.try_get("last_move")?,
        fen: r.try_get("fen")?,
        solution: words(r.try_get("solution")?),
        themes: words(r.try_get("themes")?),
        rating: Rating {
            rating: r.try_get("rating")?,
            deviation: r.try_get("deviation")?,
            volatility: r.try_get("volatility")?,
        },
        plays: r.try_get("plays")?,
        game_id: r.try_get("game_id")?,
        ply: r.try_get("ply")?,
    })
}

/// Whether `theme` is a theme's key (letters and digits only: it is matched with `LIKE`).
pub fn is_theme_key(theme: &str) -> bool {
    !theme.is_empty() && theme.len() <= 40 && theme.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The `WHERE` condition on the theme `$n` (`themes` holds the keys separated by spaces).
fn theme_condition(n: usize) -> String {
    format!("(' ' || themes || ' ') LIKE ('% ' || ${n} || ' %')")
}

/// The puzzle ratings and results of one result, read and written in the writer's
/// transaction: the first result of `player_id` on `puzzle_id` rates both (one Glicko-2 rating
/// period each, the player against the puzzle and the puzzle against the player); a later one
/// changes nothing. Answers 1 when rated, 0 when the player had a result on it already.
///
/// # Errors
/// [`StoreError::Refused`] for an unknown puzzle; a database failure.
pub(super) async fn rate_result(
    tx: &mut Transaction<'_, Any>,
    player_id: &str,
    puzzle_id: &str,
    win: bool,
    now_ms: i64,
) -> Result<u64, StoreError> {
    let puzzle = sqlx::query("SELECT rating, deviation, volatility FROM puzzles WHERE id = $1")
        .bind(puzzle_id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(puzzle) = puzzle else {
        return Err(StoreError::Refused(format!("no puzzle {puzzle_id}")));
    };
    let puzzle = Rating {
        rating: puzzle.try_get("rating")?,
        deviation: puzzle.try_get("deviation")?,
        volatility: puzzle.try_get("volatility")?,
    };
    let done =
        sqlx::query("SELECT win FROM puzzle_results WHERE player_id = $1 AND puzzle_id = $2")
            .bind(player_id)
            .bind(puzzle_id)
            .fetch_optional(&mut **tx)
            .await?;
    if done.is_some() {
        return Ok(0);
    }
    let stored = sqlx::query(
        "SELECT rating, deviation, volatility, plays FROM puzzle_ratings WHERE player_id = $1",
    )
    .bind(player_id)
    .fetch_optional(&mut **tx)
    .await?;
    let (player, plays) = match &stored {
        Some(r) => (
            Rating {
                rating: r.try_get("rating")?,
                deviation: r.try_get("deviation")?,
                volatility: r.try_get("volatility")?,
            },
            r.try_get::<i64, _>("plays")?,
        ),
        None => (Rating::default(), 0),
    };
    let score = if win { 1.0 } else { 0.0 };
    let player_after = rating::update(player, &[(puzzle, score)]);
    let puzzle_after = rating::update(puzzle, &[(player, 1.0 - score)]);
    sqlx::query(
        "INSERT INTO puzzle_ratings (player_id, rating, deviation, volatility, plays, updated_ms) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (player_id) DO UPDATE SET rating = $2, \
         deviation = $3, volatility = $4, plays = $5, updated_ms = $6",
    )
    .bind(player_id)
    .bind(player_after.rating)
    .bind(player_after.deviation)
    .bind(player_after.volatility)
    .bind(plays + 1)
    .bind(now_ms)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE puzzles SET rating = $1, deviation = $2, volatility = $3, plays = plays + 1 \
         WHERE id = $4",
    )
    .bind(puzzle_after.rating)
    .bind(puzzle_after.deviation)
    .bind(puzzle_after.volatility)
    .bind(puzzle_id)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO puzzle_results (player_id, puzzle_id, win, rating_before, rating_after, \
         puzzle_rating_before, puzzle_rating_after, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(player_id)
    .bind(puzzle_id)
    .bind(i64::from(win))
    .bind(player.rating)
    .bind(player_after.rating)
    .bind(puzzle.rating)
    .bind(puzzle_after.rating)
    .bind(now_ms)
    .execute(&mut **tx)
    .await?;
    Ok(1)
}

/// The day number of `now_ms` (UTC days since the Unix epoch).
pub fn day_of(now_ms: i64) -> i64 {
    now_ms.div_euclid(86_400_000)
}

/// The place of the daily puzzle of `day` among `count` puzzles (in the order of their ids): a
/// multiplicative hash of the day, so that consecutive days are far apart.
pub fn daily_index(day: i64, count: i64) -> i64 {
    if count <= 0 {
        return 0;
    }
    let mixed = (day as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((mixed >> 17) % count as u64) as i64
}

impl Store {
    /// How many puzzles are stored.
    ///
    /// # Errors
    /// A database failure.
    pub async fn puzzle_count(&self) -> Result<i64, StoreError> {
        self.timed(async {
            Ok(sqlx::query("SELECT COUNT(*) AS n FROM puzzles")
                .fetch_one(&self.pool)
                .await?
                .try_get("n")?)
        })
        .await
    }

    /// The puzzle `id`, if stored.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn puzzle(&self, id: &str) -> Result<Option<PuzzleRow>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM puzzles WHERE id = $1");
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

    /// The daily puzzle of the UTC day of `now_ms` ([`daily_index`] among the puzzles by id):
    /// the same all day, `None` without puzzles.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn daily_puzzle(&self, now_ms: i64) -> Result<Option<PuzzleRow>, StoreError> {
        let count = self.puzzle_count().await?;
        if count == 0 {
            return Ok(None);
        }
        let offset = daily_index(day_of(now_ms), count);
        let sql = format!("SELECT {COLUMNS} FROM puzzles ORDER BY id LIMIT 1 OFFSET $1");
        let row = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(offset)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        row.as_ref().map(row_of).transpose()
    }

    /// Up to `limit` puzzles nearest to `rating`, nearest first (then by id), with the theme
    /// `theme` when given, and only among those `player_id` has no result on when `unplayed`.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn puzzles_near(
        &self,
        rating: f64,
        theme: Option<&str>,
        player_id: Option<&str>,
        unplayed: bool,
        limit: i64,
    ) -> Result<Vec<PuzzleRow>, StoreError> {
        // $1 the rating, $2 the limit; the theme and the player follow when they are used.
        let mut conditions = Vec::new();
        let mut next = 3;
        if theme.is_some() {
            conditions.push(theme_condition(next));
            next += 1;
        }
        let player = player_id.filter(|_| unplayed);
        if player.is_some() {
            conditions.push(format!(
                "NOT EXISTS (SELECT 1 FROM puzzle_results r WHERE r.player_id = ${next} \
                 AND r.puzzle_id = puzzles.id)"
            ));
        }
        let filter = if conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM puzzles {filter} ORDER BY ABS(rating - $1), id LIMIT $2"
        );
        let rows = self
            .timed(async {
                let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(rating)
                    .bind(limit);
                if let Some(theme) = theme {
                    query = query.bind(theme);
                }
                if let Some(player) = player {
                    query = query.bind(player);
                }
                Ok(query.fetch_all(&self.pool).await?)
            })
            .await?;
        rows.iter().map(row_of).collect()
    }

    /// A player's puzzle rating (the default before a first result).
    ///
    /// # Errors
    /// A database failure.
    pub async fn puzzle_rating(&self, player_id: &str) -> Result<PuzzleRating, StoreError> {
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT rating, deviation, volatility, plays FROM puzzle_ratings \
                     WHERE player_id = $1",
                )
                .bind(player_id)
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        match row {
            None => Ok(PuzzleRating {
                rating: Rating::default(),
                plays: 0,
            }),
            Some(r) => Ok(PuzzleRating {
                rating: Rating {
                    rating: r.try_get("rating")?,
                    deviation: r.try_get("deviation")?,
                    volatility: r.try_get("volatility")?,
                },
                plays: r.try_get("plays")?,
            }),
        }
    }

    /// Records `player_id`'s result on `puzzle_id` and rates both (only a first result is
    /// rated: see [`rate_result`]); answers whether this result was rated, and the stored
    /// result (the first one).
    ///
    /// # Errors
    /// [`StoreError::Refused`] for an unknown puzzle; a database failure.
    pub async fn puzzle_result(
        &self,
        player_id: &str,
        puzzle_id: &str,
        win: bool,
    ) -> Result<(bool, PuzzleResultRow), StoreError> {
        let rated = self
            .write_single(Single::PuzzleResult {
                player_id: player_id.to_owned(),
                puzzle_id: puzzle_id.to_owned(),
                win,
                now_ms: super::now_ms(),
            })
            .await?;
        let row = self
            .timed(async {
                Ok(sqlx::query(
                    "SELECT puzzle_id, win, rating_before, rating_after, puzzle_rating_before, \
                     puzzle_rating_after, created_ms FROM puzzle_results \
                     WHERE player_id = $1 AND puzzle_id = $2",
                )
                .bind(player_id)
                .bind(puzzle_id)
                .fetch_optional(&self.pool)
                .await?)
            })
            .await?;
        let Some(row) = row else {
            return Err(StoreError::Refused(format!(
                "no result on puzzle {puzzle_id}"
            )));
        };
        Ok((rated == 1, result_of(&row)?))
    }

    /// A player's last `limit` results, the latest first, with their puzzles.
    ///
    /// # Errors
    /// A database failure, or a row that does not read.
    pub async fn puzzle_activity(
        &self,
        player_id: &str,
        limit: i64,
    ) -> Result<Vec<(PuzzleResultRow, PuzzleRow)>, StoreError> {
        let columns: Vec<String> = COLUMNS.split(", ").map(|c| format!("p.{c}")).collect();
        let sql = format!(
            "SELECT r.puzzle_id, r.win, r.rating_before, r.rating_after, r.puzzle_rating_before, \
             r.puzzle_rating_after, r.created_ms, {} FROM puzzle_results r \
             JOIN puzzles p ON p.id = r.puzzle_id WHERE r.player_id = $1 \
             ORDER BY r.created_ms DESC, r.puzzle_id LIMIT $2",
            columns.join(", ")
        );
        let rows = self
            .timed(async {
                Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(player_id)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        rows.iter()
            .map(|r| Ok((result_of(r)?, row_of(r)?)))
            .collect()
    }
}

fn result_of(r: &AnyRow) -> Result<PuzzleResultRow, StoreError> {
    Ok(PuzzleResultRow {
        puzzle_id: r.try_get("puzzle_id")?,
        win: r.try_get::<i64, _>("win")? != 0,
        rating_before: r.try_get("rating_before")?,
        rating_after: r.try_get("rating_after")?,
        puzzle_rating_before: r.try_get("puzzle_rating_before")?,
        puzzle_rating_after: r.try_get("puzzle_rating_after")?,
        created_ms: r.try_get("created_ms")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the embedded file reads: its position, the opponent's last move and the
    /// whole solution are legal.
    #[test]
    fn the_embedded_file_reads() {
        let (rows, skipped) = parse_tsv(PUZZLES_TSV);
        let lines = PUZZLES_TSV
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(skipped, 0);
        assert_eq!(rows.len(), lines);
        assert!(rows.len() >= 160);
        let first = &rows[0];
        assert_eq!(first.id, "ccpd-000020-50");
        assert_eq!(first.last_move, "b3b6");
        assert_eq!(first.solution, vec!["f8h8".to_owned()]);
        assert_eq!(first.themes, vec!["advantage".to_owned()]);
        assert_eq!(first.rating.rating, 1000.0);
        assert_eq!(first.ply, 50);
        // Black played b3b6 (the chariot from b3 to b6); Red is to move.
        assert_eq!(
            first.fen,
            "2b1ka3/3RaR1c1/4b4/pr5Cp/2p1N4/7n1/P3P1r1P/B1N1B4/1c2A4/3AK4 w - - 5 26"
        );
    }

    #[test]
    fn rows_the_rules_refuse_are_left_out() {
        let text = "id\tfen\tlast_move\tsolution\tthemes\trating\tgame_id\tply\n\
            a\t2b1ka3/3RaR1c1/4b4/p6Cp/2p1N4/7n1/Pr2P1r1P/B1N1B4/1c2A4/3AK4 b - - 4 25\tb3b6\tf8h8\tadvantage\t1000\tg\t50\n\
            b\tnot a fen\tb3b6\tf8h8\tadvantage\t1000\tg\t50\n\
            c\t2b1ka3/3RaR1c1/4b4/p6Cp/2p1N4/7n1/Pr2P1r1P/B1N1B4/1c2A4/3AK4 b - - 4 25\tb3b6\ta0a9\tadvantage\t1000\tg\t50\n";
        let (rows, skipped) = parse_tsv(text);
        assert_eq!(rows.len(), 1);
        assert_eq!(skipped, 2);
    }

    /// 5,000 puzzles (the file's rows again and again, under new ids) load in one
    /// transaction; loading the same text again reads nothing, and a longer text adds only its
    /// new rows. Prints the times (`docs/puzzles.md`, "Serving").
    #[tokio::test]
    async fn five_thousand_puzzles_load_once() {
        sqlx::any::install_default_drivers();
        let mut lines = PUZZLES_TSV.lines();
        let header = lines.next().unwrap();
        let rows: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
        let mut text = format!("{header}\n");
        for i in 0..5_000 {
            let row = rows[i % rows.len()];
            text.push_str(&format!("x{i}-{row}\n"));
        }
        let dir = std::env::temp_dir().join(format!("chuhe-puzzles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("p.db").display());
        let mut conn = AnyConnection::connect(&url).await.unwrap();
        super::super::MIGRATOR.run(&mut conn).await.unwrap();
        let began = std::time::Instant::now();
        let first = load(&mut conn, &text).await.unwrap();
        let took = began.elapsed();
        assert_eq!(
            (first.rows, first.skipped, first.inserted),
            (5_000, 0, 5_000)
        );
        let began = std::time::Instant::now();
        let again = load(&mut conn, &text).await.unwrap();
        let again_took = began.elapsed();
        assert!(!again.read);
        text.push_str(&format!("new-{}\n", rows[0]));
        let more = load(&mut conn, &text).await.unwrap();
        assert_eq!((more.rows, more.inserted), (5_001, 1));
        eprintln!("5,000 puzzles: loaded in {took:?}; again (same digest) in {again_took:?}");
        conn.close().await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_daily_index_changes_with_the_day() {
        let days: Vec<i64> = (20_000..20_010).map(|d| daily_index(d, 160)).collect();
        assert!(days.iter().all(|&i| (0..160).contains(&i)));
        let distinct: std::collections::BTreeSet<_> = days.iter().collect();
        assert!(distinct.len() >= 8, "{days:?}");
        assert_eq!(day_of(86_400_000 * 3 + 5), 3);
        assert_eq!(daily_index(5, 0), 0);
    }
}
