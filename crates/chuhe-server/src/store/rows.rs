//! The typed values the store takes and gives: players, table rows, ratings, a table's write and
//! its fence, and the texts they are kept as.

use super::writer::{FinishedRow, PreparedTable};
use super::StoreError;
use crate::protocol::{Event, FinishedGame, TableOptions};
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;

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
    pub rating: crate::accounts::rating::Rating,
    /// Rated games played in the variant.
    pub games: u64,
}

/// The result of a rated game, as the writer needs it to update the players' ratings in the
/// game's own transaction ([`TableWrite::rated`]).
///
/// The writer reads each player's current rating in that transaction (on PostgreSQL with a
/// row lock, `SELECT ... FOR UPDATE`, taken in the order of the player ids so that two nodes
/// never wait for each other; on SQLite the one writer is alone), applies one Glicko-2 rating
/// period ([`crate::accounts::rating::rate_game`]) and writes the new ratings with the game count raised
/// by one: games of one player that end at the same moment, on one server or on several
/// nodes, are each counted, one after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    /// The variant's wire name (`xiangqi`, `sanguo`, `banqi`).
    pub variant: String,
    /// The players' ids, in seat order (two, or three for sanguo; each person once).
    pub players: Vec<String>,
    /// Whether each player (same order) is among the winners; none for a draw.
    pub winners: Vec<bool>,
}

/// One table's write, as its actor hands it to the store's writer ([`super::Store::write`]): the
/// events, numbered so that the last one is `row.version`, the table row, and, when the events
/// end the game, its finished-game row and its rated result. All of it is committed together.
#[derive(Debug, Clone, PartialEq)]
pub struct TableWrite {
    /// The table row after the events (its `id` names the table, its `version` is the last
    /// event's).
    pub row: TableRow,
    /// The new events, in order (none to save the row alone).
    pub events: Vec<Event>,
    /// The result to rate, when the events end a rated game (the new ratings are computed
    /// from the stored ones in the write's transaction: [`RatedGame`]).
    pub rated: Option<RatedGame>,
    /// The finished-game row, when the events end the game.
    pub finished: Option<FinishedGame>,
}

impl TableWrite {
    /// The versions the events take: up to `row.version`, one each (empty when there are no
    /// events).
    ///
    /// # Errors
    /// [`StoreError::EventVersions`] when there are more events than `row.version`.
    pub fn versions(&self) -> Result<RangeInclusive<u64>, StoreError> {
        let first = first_version(self.row.version, self.events.len())?;
        Ok(first..=self.row.version)
    }

    /// Makes the JSON texts and the bound values (before the job reaches the writer).
    pub(super) fn prepare(
        &self,
        now_ms: i64,
        fence: Option<&Fence>,
    ) -> Result<PreparedTable, StoreError> {
        let versions = self.versions()?;
        let events = versions
            .zip(&self.events)
            .map(|(v, e)| Ok((v as i64, serde_json::to_string(e)?)))
            .collect::<Result<_, StoreError>>()?;
        Ok(PreparedTable {
            id: self.row.id.clone(),
            phase: self.row.phase.clone(),
            version: self.row.version as i64,
            clocks: clocks_text(&self.row)?,
            events,
            finished: self.finished.as_ref().map(finished_row).transpose()?,
            rated: self.rated.clone(),
            now_ms,
            fence: fence.cloned(),
        })
    }
}

/// The ownership a cluster node claims for a table it writes: its node key and the table's
/// epoch when it took the table (see [`super::cluster`]). A fenced write is committed only while the
/// table row still holds this owner and epoch and the node's lease is unexpired, checked in the
/// write's own transaction; otherwise it fails with [`StoreError::Fenced`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The owner's node key (`cluster_nodes.node`).
    pub node: String,
    /// The table's `owner_epoch` when the node took it.
    pub epoch: i64,
}

pub(super) fn clocks_text(row: &TableRow) -> Result<Option<String>, StoreError> {
    Ok(row.clocks.as_ref().map(serde_json::to_string).transpose()?)
}

pub(super) fn finished_row(game: &FinishedGame) -> Result<FinishedRow, StoreError> {
    Ok(FinishedRow {
        table_id: game.id.clone(),
        ended_ms: game.ended_ms,
        reason: game.outcome.reason.as_str(),
        summary: serde_json::to_string(game)?,
        variant: game.options.variant.as_str(),
        players: finished_players(game),
    })
}

/// The ids of the persons seated in a finished game, each once, in seat order.
pub(super) fn finished_players(game: &FinishedGame) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for seat in game.seats.iter().flatten() {
        if let crate::protocol::SeatPlayer::Person { id, .. } = seat {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
    ids
}

/// The version of the first of `count` events whose last one is `last` (versions count from 1).
pub(super) fn first_version(last: u64, count: usize) -> Result<u64, StoreError> {
    (last + 1)
        .checked_sub(count as u64)
        .filter(|&first| first >= 1)
        .ok_or(StoreError::EventVersions { count, last })
}

/// What is stored to bring clocks back after a restart: remaining times and quotas, in
/// milliseconds, per seat. The running clock restarts from its remaining time (the time the
/// server was down is not charged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSnapshot {
    /// Remaining time per seat, milliseconds.
    pub remaining_ms: Vec<u64>,
    /// Lag quota per seat, milliseconds.
    pub quota_ms: Vec<u64>,
}
