//! The SQL of a group: the multi-row statements of the table writes (events, rows, finished games
//! and their players), the ratings read and written in the same transaction, and the single writes
//! (players, sessions, new tables).

use super::{FinishedRow, PreparedTable, Single, ROWS_PER_STATEMENT};
use crate::store::StoreError;
use sqlx::any::AnyArguments;
use sqlx::{Any, Row, Transaction};

/// A statement on the `Any` driver, its arguments bound one by one.
pub(super) type AnyQuery<'q> = sqlx::query::Query<'q, Any, AnyArguments>;

/// The columns of a table's event as [`bind_event`] binds them, in the order of
/// [`INSERT_EVENTS`]'s column list.
const EVENT_COLUMNS: usize = 4;

/// The columns of a table's event in a group of moves on SQLite ([`bind_event_with_clocks`]):
/// [`EVENT_COLUMNS`], then the clocks.
const MOVES_EVENT_COLUMNS: usize = EVENT_COLUMNS + 1;

/// The start of the multi-row insert of table events; a `VALUES` list of [`EVENT_COLUMNS`]
/// parameters a row follows, each row bound by [`bind_event`]. The events' `clocks` stay
/// `NULL`: the row is written with the events (only SQLite's groups of moves,
/// [`sqlite_moves`], leave rows unwritten and put the clocks on the events).
const INSERT_EVENTS: &str =
    "INSERT INTO table_events (table_id, version, body, created_ms) VALUES ";

/// `INSERT INTO table_events` with the column list of [`sqlite_moves`], which its plain and
/// padded inserts both begin with.
macro_rules! insert_into_events_with_clocks {
    () => {
        "INSERT INTO table_events (table_id, version, body, created_ms, clocks) "
    };
}

/// Binds one event of table `w` in the order of [`INSERT_EVENTS`]'s columns: the table's id,
/// the event's `version`, its JSON `body` and the write's time (`created_ms`, milliseconds
/// since the Unix epoch).
pub(super) fn bind_event<'q>(
    query: AnyQuery<'q>,
    w: &PreparedTable,
    version: i64,
    body: &str,
) -> AnyQuery<'q> {
    query
        .bind(w.id.as_str())
        .bind(version)
        .bind(body)
        .bind(w.now_ms)
}

/// Binds one event of table `w` for [`sqlite_moves`]: [`bind_event`]'s columns, then its
/// `clocks`: on the write's last event the table's clocks after it, so that the event holds
/// what the row would (the group does not write the rows whose phase stays, and
/// `Store::table` reads the newer of the row and the last event); `NULL` on the others.
pub(super) fn bind_event_with_clocks<'q>(
    query: AnyQuery<'q>,
    w: &PreparedTable,
    version: i64,
    body: &str,
) -> AnyQuery<'q> {
    let clocks = if version == w.version {
        w.clocks.as_deref()
    } else {
        None
    };
    bind_event(query, w, version, body).bind(clocks)
}

/// The columns of a table's row as [`bind_row`] binds them: the `v.column1`..`v.column5` of
/// the `VALUES` list the row updates read ([`ROW_SET`]).
const ROW_COLUMNS: usize = 5;

/// What a row update sets from its `VALUES` row `v` (bound by [`bind_row`]); `v.column1` is
/// the table's id and `v.column3` its version, which the updates also compare.
const ROW_SET: &str =
    "phase = v.column2, version = v.column3, clocks = v.column4, updated_ms = v.column5";

/// Binds table `w`'s row in the order of [`ROW_SET`]'s `VALUES` columns: id, phase, version,
/// clocks (JSON, or `NULL`) and the write's time (milliseconds since the Unix epoch). The
/// fenced update binds the fence's two columns after these.
pub(super) fn bind_row<'q>(query: AnyQuery<'q>, w: &PreparedTable) -> AnyQuery<'q> {
    query
        .bind(w.id.as_str())
        .bind(w.phase.as_str())
        .bind(w.version)
        .bind(w.clocks.as_deref())
        .bind(w.now_ms)
}

/// The statements of a group of moves on SQLite as one text, sent to sqlx's SQLite thread in
/// one trip once the transaction has begun: the events in one multi-row insert (`events` rows),
/// the tables' rows in one multi-row update (`tables` rows), `COMMIT` (no insert when there is
/// no event). SQLite runs the statements in order and stops at the first that fails.
///
/// The update writes only the rows whose phase changes and those saved without an event: a
/// table's row is otherwise left as it was, and its last event holds its version, clocks and
/// time ([`bind_event_with_clocks`]; `Store::table` reads the newer of the two). Writing every row at
/// every move rewrote a leaf of `game_tables` and of its phase index per table in the group,
/// about half of the pages a group commits (docs/performance.md, "Rows written when their
/// phase changes").
///
/// The parameters are SQLite's anonymous `?`, numbered by their place in the text: sqlx binds
/// them in order across the statements, the events' first. Numbered `$N` parameters would bind
/// the same, but SQLite's parser looks each name up in a list of those seen before, a string
/// compare per earlier parameter: with the 200-300 parameters of a group of 25 moves that was
/// 1 % of the server's processor time (docs/performance.md, "The statement journal").
///
/// Past eight rows a list is written for [`padded_rows`] rows, the rows after the group's own
/// bound to `NULL` ([`bind_null_event`], [`bind_null_row`]): the insert then reads its rows
/// through `SELECT ... WHERE column1 IS NOT NULL`, and a `NULL` id updates no table. A loaded
/// server's groups thus use a few texts, which sqlx keeps prepared, instead of a text per size
/// that SQLite parses and compiles again each time (4.4 % of a loaded server's processor time:
/// docs/performance.md, "Groups of moves in a few sizes").
pub(super) fn sqlite_moves(events: usize, tables: usize) -> String {
    let (events, tables) = (padded_rows(events), padded_rows(tables));
    let mut sql = String::with_capacity(
        300 + (events * MOVES_EVENT_COLUMNS + tables * MOVES_ROW_COLUMNS) * 3,
    );
    if events > PLAIN_ROWS {
        sql.push_str(INSERT_EVENTS_PADDED);
        push_anonymous(&mut sql, events, MOVES_EVENT_COLUMNS);
        sql.push_str(") WHERE column1 IS NOT NULL; ");
    } else if events > 0 {
        sql.push_str(INSERT_EVENTS_WITH_CLOCKS);
        push_anonymous(&mut sql, events, MOVES_EVENT_COLUMNS);
        sql.push_str("; ");
    }
    sql.push_str("UPDATE game_tables SET ");
    sql.push_str(ROW_SET);
    sql.push_str(" FROM (VALUES ");
    push_anonymous(&mut sql, tables, MOVES_ROW_COLUMNS);
    sql.push_str(
        ") AS v WHERE game_tables.id = v.column1 AND game_tables.version <= v.column3 \
         AND (v.column6 = 1 OR game_tables.phase <> v.column2); COMMIT",
    );
    sql
}

/// The columns of a table's row in the list of [`sqlite_moves`] ([`bind_moves_row`]): those
/// of [`bind_row`], then whether the write has no event (1, else 0).
const MOVES_ROW_COLUMNS: usize = ROW_COLUMNS + 1;

/// Binds table `w`'s row for [`sqlite_moves`]: [`bind_row`]'s columns, then 1 when the write
/// has no event (a row saved alone, such as the clocks at a stop: always written) or 0 (the
/// row is written only when the phase changes: else the write's last event holds the
/// version, the clocks and the time, [`bind_event_with_clocks`]).
pub(super) fn bind_moves_row<'q>(query: AnyQuery<'q>, w: &PreparedTable) -> AnyQuery<'q> {
    bind_row(query, w).bind(i64::from(w.events.is_empty()))
}

/// The start of the unpadded insert of [`sqlite_moves`]; a `VALUES` list of
/// [`MOVES_EVENT_COLUMNS`] parameters a row follows ([`bind_event_with_clocks`]).
const INSERT_EVENTS_WITH_CLOCKS: &str = concat!(insert_into_events_with_clocks!(), "VALUES ");

/// Up to this many rows, a list of [`sqlite_moves`] has exactly the group's rows.
const PLAIN_ROWS: usize = 8;

/// The start of the insert of [`sqlite_moves`] whose rows are padded with `NULL` rows: the
/// `VALUES` list and then `) WHERE column1 IS NOT NULL` follow.
const INSERT_EVENTS_PADDED: &str = concat!(
    insert_into_events_with_clocks!(),
    "SELECT column1, column2, column3, column4, column5 FROM (VALUES "
);

/// The number of rows [`sqlite_moves`] writes a list of `rows` rows for: `rows` itself up to
/// eight, else the next of 12, 16, 24, 32, 48, 64, ... (a power of two or three quarters of
/// one), so at most a third of a list is padding: 9 rows are written as 12, 13 as 16, 17 as 24.
pub(super) fn padded_rows(rows: usize) -> usize {
    if rows <= PLAIN_ROWS {
        return rows;
    }
    let power = rows.next_power_of_two();
    let three_quarters = power / 4 * 3;
    if rows <= three_quarters {
        three_quarters
    } else {
        power
    }
}

/// Binds one padding row of the events' list of [`sqlite_moves`]: every column `NULL`, which
/// the insert leaves out.
pub(super) fn bind_null_event(query: AnyQuery<'_>) -> AnyQuery<'_> {
    query
        .bind(None::<&str>)
        .bind(None::<i64>)
        .bind(None::<&str>)
        .bind(None::<i64>)
        .bind(None::<&str>)
}

/// Binds one padding row of the tables' list of [`sqlite_moves`]: every column `NULL`; a
/// `NULL` id updates no table.
pub(super) fn bind_null_row(query: AnyQuery<'_>) -> AnyQuery<'_> {
    query
        .bind(None::<&str>)
        .bind(None::<&str>)
        .bind(None::<i64>)
        .bind(None::<&str>)
        .bind(None::<i64>)
        .bind(None::<i64>)
}

/// Appends a `VALUES` list of `rows` rows of `columns` anonymous parameters (`?`) to `sql`.
fn push_anonymous(sql: &mut String, rows: usize, columns: usize) {
    for r in 0..rows {
        sql.push_str(if r == 0 { "(?" } else { ", (?" });
        for _ in 1..columns {
            sql.push_str(", ?");
        }
        sql.push(')');
    }
}

/// `INSERT`'s `VALUES` list of `rows` rows of `columns` numbered parameters each (`$1`...).
pub(super) fn values(rows: usize, columns: usize) -> String {
    let mut sql = String::with_capacity(rows * columns * 5);
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 0..columns {
            if c > 0 {
                sql.push_str(", ");
            }
            sql.push('$');
            sql.push_str(&(r * columns + c + 1).to_string());
        }
        sql.push(')');
    }
    sql
}

/// Writes table writes in one transaction: their events in multi-row inserts, their rows in
/// multi-row updates, their finished games and ratings.
pub(super) async fn write_tables(
    tx: &mut Transaction<'_, Any>,
    writes: &[PreparedTable],
) -> Result<(), StoreError> {
    let events: Vec<(&PreparedTable, i64, &str)> = writes
        .iter()
        .flat_map(|w| w.events.iter().map(move |(v, body)| (w, *v, body.as_str())))
        .collect();
    for chunk in events.chunks(ROWS_PER_STATEMENT) {
        let sql = format!("{INSERT_EVENTS}{}", values(chunk.len(), EVENT_COLUMNS));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(false);
        for &(w, version, body) in chunk {
            query = bind_event(query, w, version, body);
        }
        query.execute(&mut **tx).await?;
    }
    let (fenced, free): (Vec<&PreparedTable>, Vec<&PreparedTable>) =
        writes.iter().partition(|w| w.fence.is_some());
    for chunk in free.chunks(ROWS_PER_STATEMENT) {
        // `VALUES` columns are `column1`, `column2`... in both SQLite and PostgreSQL.
        let sql = format!(
            "UPDATE game_tables SET {ROW_SET} \
             FROM (VALUES {}) AS v WHERE game_tables.id = v.column1 \
             AND game_tables.version <= v.column3",
            values(chunk.len(), ROW_COLUMNS)
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(false);
        for w in chunk {
            query = bind_row(query, w);
        }
        query.execute(&mut **tx).await?;
    }
    // A cluster node's writes (PostgreSQL): each row only while it still names the node and
    // the epoch the node took it with, and only while the node's lease runs by the database's
    // clock. A row that does not match fails the whole transaction (nothing of it is written;
    // one by one, only the fenced write fails). The row's `updated_ms` is the database's clock
    // too (not the node's, `v.column5`): a takeover charges the thinking time from it to the
    // dead owner's last renewal (`Ownership::uncharged`), and the two must be read on one
    // clock, or a node whose clock is behind would flag its players when it dies
    // (scripts/faults found it: a clock stepped back 884 s, a kill -9, a loss on time).
    for chunk in fenced.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "UPDATE game_tables SET phase = v.column2, version = v.column3::bigint, \
             clocks = v.column4, updated_ms = {} \
             FROM (VALUES {}) AS v \
             JOIN cluster_nodes n ON n.node = v.column6 \
             WHERE game_tables.id = v.column1 \
             AND game_tables.version <= v.column3::bigint \
             AND game_tables.owner_node = v.column6 \
             AND game_tables.owner_epoch = v.column7::bigint \
             AND n.lease_until_ms > {}",
            crate::store::cluster::DB_NOW_MS,
            values(chunk.len(), ROW_COLUMNS + 2),
            crate::store::cluster::DB_NOW_MS,
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(false);
        for w in chunk {
            let Some(fence) = &w.fence else { continue };
            query = bind_row(query, w)
                .bind(fence.node.as_str())
                .bind(fence.epoch);
        }
        let updated = query.execute(&mut **tx).await?.rows_affected();
        if updated < chunk.len() as u64 {
            let first = chunk.first().map(|w| w.id.clone()).unwrap_or_default();
            let id = if chunk.len() == 1 {
                first
            } else {
                format!("{first} (or another of {} tables)", chunk.len())
            };
            return Err(StoreError::Fenced(id));
        }
    }
    let finished: Vec<&FinishedRow> = writes.iter().filter_map(|w| w.finished.as_ref()).collect();
    for chunk in finished.chunks(ROWS_PER_STATEMENT) {
        insert_finished(tx, chunk).await?;
    }
    let rated: Vec<&crate::store::RatedGame> =
        writes.iter().filter_map(|w| w.rated.as_ref()).collect();
    if !rated.is_empty() {
        rate(tx, &rated).await?;
    }
    Ok(())
}

/// Rates the games of a group, in its transaction: reads the players' stored ratings (on
/// PostgreSQL locked, in the order of `(player, variant)`, so that writers of several nodes
/// never wait for each other in a circle), applies each game in the group's order (two games
/// of one player are two rating periods, the second from the first's result) and writes each
/// changed rating once, with its game count.
pub(super) async fn rate(
    tx: &mut Transaction<'_, Any>,
    games: &[&crate::store::RatedGame],
) -> Result<(), StoreError> {
    use crate::accounts::rating::Rating;
    use std::collections::BTreeMap;
    let is_postgres = tx.backend_name() == "PostgreSQL";
    let mut current: BTreeMap<(&str, &str), (Rating, i64)> = BTreeMap::new();
    for g in games {
        for p in &g.players {
            current.insert((p.as_str(), g.variant.as_str()), (Rating::default(), 0));
        }
    }
    let read = if is_postgres {
        "SELECT rating, deviation, volatility, games FROM ratings \
         WHERE player_id = $1 AND variant = $2 FOR UPDATE"
    } else {
        "SELECT rating, deviation, volatility, games FROM ratings \
         WHERE player_id = $1 AND variant = $2"
    };
    for (&(player, variant), value) in current.iter_mut() {
        // A player's first rated game in the variant: a row with the default rating, so that
        // the row exists to be locked (a concurrent first game waits for this insert).
        sqlx::query(
            "INSERT INTO ratings (player_id, variant, rating, deviation, volatility, games) \
             VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (player_id, variant) DO NOTHING",
        )
        .bind(player)
        .bind(variant)
        .bind(value.0.rating)
        .bind(value.0.deviation)
        .bind(value.0.volatility)
        .execute(&mut **tx)
        .await?;
        let row = sqlx::query(read)
            .bind(player)
            .bind(variant)
            .fetch_one(&mut **tx)
            .await?;
        *value = (
            Rating {
                rating: row.try_get("rating")?,
                deviation: row.try_get("deviation")?,
                volatility: row.try_get("volatility")?,
            },
            row.try_get("games")?,
        );
    }
    for g in games {
        let variant = g.variant.as_str();
        let before: Vec<Rating> = g
            .players
            .iter()
            .map(|p| current[&(p.as_str(), variant)].0)
            .collect();
        let after = crate::accounts::rating::rate_game(&before, &g.winners);
        for (p, rating) in g.players.iter().zip(after) {
            if let Some(entry) = current.get_mut(&(p.as_str(), variant)) {
                *entry = (rating, entry.1 + 1);
            }
        }
    }
    for ((player, variant), (rating, games)) in &current {
        sqlx::query(
            "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, games = $6 \
             WHERE player_id = $1 AND variant = $2",
        )
        .bind(*player)
        .bind(*variant)
        .bind(rating.rating)
        .bind(rating.deviation)
        .bind(rating.volatility)
        .bind(*games)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

pub(super) async fn insert_finished(
    tx: &mut Transaction<'_, Any>,
    rows: &[&FinishedRow],
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO finished_games (table_id, ended_ms, reason, summary) VALUES {}",
        values(rows.len(), 4)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(rows.len() == 1);
    for f in rows {
        query = query
            .bind(f.table_id.as_str())
            .bind(f.ended_ms)
            .bind(f.reason)
            .bind(f.summary.as_str());
    }
    query.execute(&mut **tx).await?;
    insert_players(tx, rows).await
}

/// The `game_players` rows of finished games (at most 3 per game, 4 parameters each).
pub(super) async fn insert_players(
    tx: &mut Transaction<'_, Any>,
    rows: &[&FinishedRow],
) -> Result<(), StoreError> {
    let count: usize = rows.iter().map(|f| f.players.len()).sum();
    if count == 0 {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO game_players (player_id, table_id, ended_ms, variant) VALUES {}",
        values(count, 4)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).persistent(count <= 3);
    for f in rows {
        for p in &f.players {
            query = query
                .bind(p.as_str())
                .bind(f.table_id.as_str())
                .bind(f.ended_ms)
                .bind(f.variant);
        }
    }
    query.execute(&mut **tx).await?;
    Ok(())
}

/// Removes the requests `ids` of the tournament `tournament` from `tournament_requests`;
/// answers how many were there.
async fn drop_requests(
    tx: &mut Transaction<'_, Any>,
    tournament: &str,
    ids: &[String],
) -> Result<u64, StoreError> {
    let mut removed = 0;
    for id in ids {
        removed +=
            sqlx::query("DELETE FROM tournament_requests WHERE id = $1 AND tournament_id = $2")
                .bind(id.as_str())
                .bind(tournament)
                .execute(&mut **tx)
                .await?
                .rows_affected();
    }
    Ok(removed)
}

/// Runs one ungrouped write in its own transaction.
pub(super) async fn run_single(
    tx: &mut Transaction<'_, Any>,
    single: &Single,
) -> Result<u64, StoreError> {
    let affected = match single {
        Single::CreateTable {
            owner,
            id,
            variant,
            options,
            phase,
            version,
            clocks,
            secret,
            created_ms,
            first_event,
        } => {
            sqlx::query(
                "INSERT INTO game_tables \
                 (id, variant, options, phase, version, clocks, secret, created_ms, updated_ms, \
                 owner_node, owner_epoch) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)",
            )
            .bind(id.as_str())
            .bind(*variant)
            .bind(options.as_str())
            .bind(phase.as_str())
            .bind(*version)
            .bind(clocks.as_deref())
            .bind(secret.as_deref())
            .bind(*created_ms)
            .bind(owner.as_deref())
            .bind(i64::from(owner.is_some()))
            .execute(&mut **tx)
            .await?;
            sqlx::query(
                "INSERT INTO table_events (table_id, version, body, created_ms) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(id.as_str())
            .bind(*version)
            .bind(first_event.as_str())
            .bind(*created_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected()
        }
        Single::Player {
            id,
            name,
            skeleton,
            password_hash,
            now_ms,
        } => {
            // Checked on the write connection: no other write can come between the check and
            // the insert. An account's name and skeleton key are its own.
            let taken = sqlx::query(
                "SELECT id FROM players WHERE password_hash IS NOT NULL \
                 AND (skeleton = $1 OR ($2 AND name = $3))",
            )
            .bind(skeleton.as_str())
            .bind(password_hash.is_some())
            .bind(name.as_str())
            .fetch_optional(&mut **tx)
            .await?;
            if taken.is_some() {
                return Err(StoreError::NameTaken(name.clone()));
            }
            sqlx::query(
                "INSERT INTO players (id, name, password_hash, created_ms, skeleton) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id.as_str())
            .bind(name.as_str())
            .bind(password_hash.as_deref())
            .bind(*now_ms)
            // Guests keep no key: only accounts reserve one.
            .bind(password_hash.as_ref().map(|_| skeleton.as_str()))
            .execute(&mut **tx)
            .await?
            .rows_affected()
        }
        Single::Session {
            token,
            player_id,
            now_ms,
        } => sqlx::query(
            "INSERT INTO sessions (token, player_id, created_ms, last_used_ms) \
             VALUES ($1, $2, $3, $3)",
        )
        .bind(token.as_str())
        .bind(player_id.as_str())
        .bind(*now_ms)
        .execute(&mut **tx)
        .await?
        .rows_affected(),
        Single::TouchSession { token, now_ms } => {
            sqlx::query("UPDATE sessions SET last_used_ms = $1 WHERE token = $2")
                .bind(*now_ms)
                .bind(token.as_str())
                .execute(&mut **tx)
                .await?
                .rows_affected()
        }
        Single::Cleanup { cutoff_ms } => {
            let sessions = sqlx::query("DELETE FROM sessions WHERE last_used_ms < $1")
                .bind(*cutoff_ms)
                .execute(&mut **tx)
                .await?
                .rows_affected();
            // The puzzle ratings and results of the guests about to go go first (once their
            // sessions have gone).
            for table in ["puzzle_results", "puzzle_ratings"] {
                let sql = format!(
                    "DELETE FROM {table} WHERE player_id IN (SELECT id FROM players \
                     WHERE password_hash IS NULL AND created_ms < $1 \
                     AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.player_id = players.id))"
                );
                sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(*cutoff_ms)
                    .execute(&mut **tx)
                    .await?;
            }
            let guests = sqlx::query(
                "DELETE FROM players WHERE password_hash IS NULL AND created_ms < $1 \
                 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.player_id = players.id)",
            )
            .bind(*cutoff_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected();
            sessions + guests
        }
        Single::Alive { now_ms } => sqlx::query(
            "INSERT INTO server_state (name, value) VALUES ('alive_ms', $1) \
             ON CONFLICT (name) DO UPDATE SET value = $1",
        )
        .bind(*now_ms)
        .execute(&mut **tx)
        .await?
        .rows_affected(),
        Single::EndSession { token } => sqlx::query("DELETE FROM sessions WHERE token = $1")
            .bind(token.as_str())
            .execute(&mut **tx)
            .await?
            .rows_affected(),
        Single::CreateToken {
            id,
            digest,
            player_id,
            description,
            scopes,
            now_ms,
        } => {
            let held: i64 = sqlx::query(
                "SELECT COUNT(*) AS n FROM api_tokens WHERE player_id = $1 AND revoked_ms IS NULL",
            )
            .bind(player_id.as_str())
            .fetch_one(&mut **tx)
            .await?
            .try_get("n")?;
            if held >= crate::store::tokens::MAX_TOKENS_PER_ACCOUNT {
                return Err(StoreError::Refused(format!(
                    "an account holds at most {} tokens: revoke one first",
                    crate::store::tokens::MAX_TOKENS_PER_ACCOUNT
                )));
            }
            sqlx::query(
                "INSERT INTO api_tokens (id, digest, player_id, description, scopes, created_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(id.as_str())
            .bind(digest.as_str())
            .bind(player_id.as_str())
            .bind(description.as_str())
            .bind(scopes.as_str())
            .bind(*now_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected()
        }
        Single::RevokeToken {
            id,
            player_id,
            now_ms,
        } => sqlx::query(
            "UPDATE api_tokens SET revoked_ms = $1 \
             WHERE id = $2 AND player_id = $3 AND revoked_ms IS NULL",
        )
        .bind(*now_ms)
        .bind(id.as_str())
        .bind(player_id.as_str())
        .execute(&mut **tx)
        .await?
        .rows_affected(),
        Single::TouchToken { digest, now_ms } => {
            sqlx::query("UPDATE api_tokens SET last_used_ms = $1 WHERE digest = $2")
                .bind(*now_ms)
                .bind(digest.as_str())
                .execute(&mut **tx)
                .await?
                .rows_affected()
        }
        Single::MakeBot { player_id } => sqlx::query(
            "UPDATE players SET bot = 1 WHERE id = $1 AND password_hash IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM game_players g WHERE g.player_id = $1)",
        )
        .bind(player_id.as_str())
        .execute(&mut **tx)
        .await?
        .rows_affected(),
        Single::Finished(row) => {
            insert_finished(tx, &[row]).await?;
            1
        }
        Single::FinishedPlayers(row) => {
            insert_players(tx, &[row]).await?;
            1
        }
        Single::CreateTournament { row, since_ms } => {
            if let Some(since_ms) = since_ms {
                let made: i64 = sqlx::query(
                    "SELECT COUNT(*) AS n FROM tournaments WHERE created_by = $1 AND created_ms >= $2",
                )
                .bind(row.created_by.as_str())
                .bind(*since_ms)
                .fetch_one(&mut **tx)
                .await?
                .try_get("n")?;
                let most = crate::store::tournaments::MAX_TOURNAMENTS_PER_DAY;
                if made >= most {
                    return Err(StoreError::Refused(format!(
                        "an account creates at most {most} tournaments a day"
                    )));
                }
            } else {
                // the system creator of scheduled events: its row, made once
                sqlx::query(
                    "INSERT INTO players (id, name, password_hash, created_ms) \
                     VALUES ($1, $1, NULL, $2) ON CONFLICT DO NOTHING",
                )
                .bind(row.created_by.as_str())
                .bind(i64::MAX)
                .execute(&mut **tx)
                .await?;
            }
            let sql = if since_ms.is_some() {
                "INSERT INTO tournaments (id, kind, variant, name, clock_limit_s, \
                 clock_increment_s, minutes, starts_ms, rated, berserkable, created_by, status, \
                 state, version, created_ms, updated_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)"
            } else {
                "INSERT INTO tournaments (id, kind, variant, name, clock_limit_s, \
                 clock_increment_s, minutes, starts_ms, rated, berserkable, created_by, status, \
                 state, version, created_ms, updated_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) \
                 ON CONFLICT DO NOTHING"
            };
            sqlx::query(sql)
                .bind(row.id.as_str())
                .bind(row.kind.as_str())
                .bind(row.variant.as_str())
                .bind(row.name.as_str())
                .bind(row.clock_limit_s)
                .bind(row.clock_increment_s)
                .bind(row.minutes)
                .bind(row.starts_ms)
                .bind(i64::from(row.rated))
                .bind(i64::from(row.berserkable))
                .bind(row.created_by.as_str())
                .bind(row.status.as_str())
                .bind(row.state.as_str())
                .bind(row.version)
                .bind(row.created_ms)
                .execute(&mut **tx)
                .await?
                .rows_affected()
        }
        Single::SaveTournament {
            id,
            status,
            state,
            version,
            games,
            settled,
            now_ms,
            fence,
        } => {
            let Some((node, epoch)) = fence else {
                drop_requests(tx, id, settled).await?;
                for (game_no, table_id) in games {
                    sqlx::query(
                        "INSERT INTO tournament_games (tournament_id, game_no, table_id) \
                         VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    )
                    .bind(id.as_str())
                    .bind(*game_no)
                    .bind(table_id.as_str())
                    .execute(&mut **tx)
                    .await?;
                }
                return Ok(sqlx::query(
                    "UPDATE tournaments SET status = $1, state = $2, version = $3, updated_ms = $4 \
                     WHERE id = $5 AND version < $3",
                )
                .bind(status.as_str())
                .bind(state.as_str())
                .bind(*version)
                .bind(*now_ms)
                .bind(id.as_str())
                .execute(&mut **tx)
                .await?
                .rows_affected());
            };
            // The owner's fence, checked first: a node that lost the tournament writes nothing
            // (not even the links of its games, whose numbers the new owner hands out again).
            let held = format!(
                "SELECT t.id FROM tournaments t JOIN cluster_nodes n ON n.node = t.owner_node \
                 WHERE t.id = $1 AND t.owner_node = $2 AND t.owner_epoch = $3 \
                 AND n.lease_until_ms > {} FOR UPDATE OF t",
                crate::store::cluster::DB_NOW_MS
            );
            let still = sqlx::query(sqlx::AssertSqlSafe(held.as_str()))
                .bind(id.as_str())
                .bind(node.as_str())
                .bind(*epoch)
                .fetch_optional(&mut **tx)
                .await?;
            if still.is_none() {
                return Ok(0);
            }
            drop_requests(tx, id, settled).await?;
            for (game_no, table_id) in games {
                sqlx::query(
                    "INSERT INTO tournament_games (tournament_id, game_no, table_id) \
                     VALUES ($1, $2, $3) ON CONFLICT (tournament_id, game_no) \
                     DO UPDATE SET table_id = $3",
                )
                .bind(id.as_str())
                .bind(*game_no)
                .bind(table_id.as_str())
                .execute(&mut **tx)
                .await?;
            }
            sqlx::query(
                "UPDATE tournaments SET status = $1, state = $2, version = $3, updated_ms = $4 \
                 WHERE id = $5 AND owner_node = $6 AND owner_epoch = $7",
            )
            .bind(status.as_str())
            .bind(state.as_str())
            .bind(*version)
            .bind(*now_ms)
            .bind(id.as_str())
            .bind(node.as_str())
            .bind(*epoch)
            .execute(&mut **tx)
            .await?
            .rows_affected()
        }
        Single::DropTournamentRequests { id, requests } => drop_requests(tx, id, requests).await?,
        Single::CreateChallenge {
            id,
            challenger_id,
            dest_id,
            options,
            color,
            challenger_seat,
            created_ms,
            expires_ms,
            most,
        } => {
            let waiting: i64 = sqlx::query(
                "SELECT COUNT(*) AS n FROM challenges \
                 WHERE challenger_id = $1 AND status = 'created' AND expires_ms > $2",
            )
            .bind(challenger_id.as_str())
            .bind(*created_ms)
            .fetch_one(&mut **tx)
            .await?
            .try_get("n")?;
            if waiting >= *most {
                return Err(StoreError::Refused(format!(
                    "at most {most} challenges wait at once: cancel one first"
                )));
            }
            sqlx::query(
                "INSERT INTO challenges (id, challenger_id, dest_id, options, color, \
                 challenger_seat, status, created_ms, expires_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, 'created', $7, $8)",
            )
            .bind(id.as_str())
            .bind(challenger_id.as_str())
            .bind(dest_id.as_str())
            .bind(options.as_str())
            .bind(color.as_str())
            .bind(*challenger_seat)
            .bind(*created_ms)
            .bind(*expires_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected()
        }
        Single::MoveChallenge {
            id,
            challenger,
            dest,
            from,
            to,
            reason,
            expiry,
            now_ms,
        } => {
            // `created` again clears the answer
            let answered = (*to != "created").then_some(*now_ms);
            macro_rules! update {
                ($when:literal) => {
                    concat!(
                        "UPDATE challenges SET status = $1, decline_reason = $2, ",
                        "answered_ms = $3 WHERE id = $4 AND status = $5 ",
                        "AND ($6 = '' OR challenger_id = $6) AND ($7 = '' OR dest_id = $7) ",
                        $when
                    )
                };
            }
            let sql = match expiry {
                Some(false) => update!("AND expires_ms > $8"),
                Some(true) => update!("AND expires_ms <= $8"),
                None => update!("AND $8 = $8"),
            };
            sqlx::query(sql)
                .bind(*to)
                .bind(reason.as_deref())
                .bind(answered)
                .bind(id.as_str())
                .bind(*from)
                .bind(challenger.as_str())
                .bind(dest.as_str())
                .bind(*now_ms)
                .execute(&mut **tx)
                .await?
                .rows_affected()
        }
        Single::KeepChallenges {
            challenger_id,
            until_ms,
            now_ms,
        } => sqlx::query(
            "UPDATE challenges SET expires_ms = $1 WHERE challenger_id = $2 \
             AND status = 'created' AND expires_ms > $3 AND expires_ms < $1",
        )
        .bind(*until_ms)
        .bind(challenger_id.as_str())
        .bind(*now_ms)
        .execute(&mut **tx)
        .await?
        .rows_affected(),
        Single::PuzzleResult {
            player_id,
            puzzle_id,
            win,
            now_ms,
        } => crate::store::puzzles::rate_result(tx, player_id, puzzle_id, *win, *now_ms).await?,
    };
    Ok(affected)
}
