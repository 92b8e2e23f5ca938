//! The store's part of a cluster (PostgreSQL only): node leases and table ownership.
//!
//! - Each node process has a row in `cluster_nodes` under its *node key* (its name and a random
//!   suffix, new at every start). Its lease runs until `lease_until_ms` by the **database's
//!   clock** (`clock_timestamp()`), so the nodes' own clocks never decide who is alive. A node
//!   renews it every fifth of its lease (`ClusterSettings::lease`: every second by default); a
//!   renewal succeeds only while the lease still runs: a node that
//!   was paused or cut off past its lease finds it lapsed, drops every table it held without
//!   writing, and joins again under a new key.
//! - A table row names its owner (`owner_node`) and a fencing number (`owner_epoch`) that grows
//!   by one at every change of owner. A node takes a table whose owner is unset or whose
//!   owner's lease has lapsed with a compare-and-set on the owner and epoch it read (two nodes
//!   racing for a table: one wins). Every table write of a node is checked against the owner,
//!   the epoch and the node's lease in the write's own transaction
//!   (`store/writer/sql.rs`, `write_tables`): a node that lost a table can never write it again.
//! - A node that stops cleanly saves its tables' clocks and releases them (owner unset): the
//!   next owner charges nothing. After a crash the next owner charges the thinking time from
//!   the table's last write to the dead node's last renewal, as a single server does after a
//!   restart with `alive_ms`.

use super::{Store, StoreError};
use sqlx::Row;
use std::time::Duration;

/// The database's clock in milliseconds since the Unix epoch, as SQL (PostgreSQL): the one
/// clock every lease is measured by.
pub(crate) const DB_NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint";

/// Who owns a table, as the store has it ([`Store::ownership`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ownership {
    /// The owner's node key; `None` when no node holds the table (released, or never owned).
    pub owner: Option<String>,
    /// The table's fencing number.
    pub epoch: i64,
    /// Whether the owner's lease runs now (by the database's clock); `false` without owner.
    pub owner_alive: bool,
    /// When the owner last renewed its lease (milliseconds since the Unix epoch), if its row
    /// exists.
    pub owner_renewed_ms: Option<i64>,
    /// When the table row was last written.
    pub updated_ms: i64,
    /// Whether the table has ended.
    pub ended: bool,
}

impl Ownership {
    /// The thinking time left uncharged when this table is taken over: from its last write to
    /// the last renewal of an owner that died holding it (none after a clean release).
    pub fn uncharged(&self) -> Duration {
        match (&self.owner, self.owner_renewed_ms) {
            (Some(_), Some(renewed)) if !self.owner_alive => {
                Duration::from_millis(renewed.saturating_sub(self.updated_ms).max(0) as u64)
            }
            _ => Duration::ZERO,
        }
    }
}

impl Store {
    fn clustered(&self) -> Result<(), StoreError> {
        if self.is_sqlite {
            Err(StoreError::NotClustered)
        } else {
            Ok(())
        }
    }

    /// Registers the node process `node` (display name `name`) with a lease of `lease` from
    /// now. In the same transaction it raises the single server's writer epoch
    /// (`server_state.writer_epoch`, see "One writer per database" in `store/mod.rs`): a single
    /// `chuhe serve` whose lock ended unnoticed can write nothing once a node has joined.
    ///
    /// # Errors
    /// A database failure; [`StoreError::NotClustered`] on SQLite.
    pub async fn register_node(
        &self,
        node: &str,
        name: &str,
        lease: Duration,
    ) -> Result<(), StoreError> {
        self.clustered()?;
        let sql = format!(
            "INSERT INTO cluster_nodes (node, name, started_ms, renewed_ms, lease_until_ms) \
             VALUES ($1, $2, {DB_NOW_MS}, {DB_NOW_MS}, {DB_NOW_MS} + $3)"
        );
        self.timed(async {
            let mut tx = self.pool.begin().await?;
            sqlx::query(
                "INSERT INTO server_state (name, value) VALUES ('writer_epoch', 1) \
                 ON CONFLICT (name) DO UPDATE SET value = server_state.value + 1",
            )
            .execute(&mut *tx)
            .await?;
            sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(node)
                .bind(name)
                .bind(lease.as_millis() as i64)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// The cluster's identity as the database has it, checked against a joining node's NATS
    /// subject `prefix`: the first node records its prefix and a new random cluster id
    /// (`cluster_settings`); a node with another prefix is refused while any node's lease
    /// runs (the lobbies would split and forwarded tables time out), and, when none runs,
    /// records the new prefix (an operator changing it for the whole cluster). Returns the
    /// cluster id `new_id` or the one recorded before.
    ///
    /// # Errors
    /// [`StoreError::InUse`] for another prefix while nodes run; a database failure;
    /// [`StoreError::NotClustered`] on SQLite.
    pub async fn cluster_identity(&self, prefix: &str, new_id: &str) -> Result<String, StoreError> {
        self.clustered()?;
        self.timed(async {
            let mut tx = self.pool.begin().await?;
            sqlx::query(
                "INSERT INTO cluster_settings (name, value) VALUES ('cluster_id', $1), \
                 ('nats_prefix', $2) ON CONFLICT (name) DO NOTHING",
            )
            .bind(new_id)
            .bind(prefix)
            .execute(&mut *tx)
            .await?;
            let recorded: String = sqlx::query(
                "SELECT value FROM cluster_settings WHERE name = 'nats_prefix' FOR UPDATE",
            )
            .fetch_one(&mut *tx)
            .await?
            .try_get("value")?;
            if recorded != prefix {
                let live: i64 = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "SELECT COUNT(*) AS n FROM cluster_nodes WHERE lease_until_ms > {DB_NOW_MS}"
                )))
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
                if live > 0 {
                    tx.rollback().await?;
                    return Err(StoreError::InUse(format!(
                        "the database belongs to a cluster whose {live} running node(s) use \
                         --nats-prefix {recorded:?}; this node was given {prefix:?}"
                    )));
                }
                tracing::warn!(from = %recorded, to = %prefix, "the cluster's NATS prefix changes (no node runs)");
                sqlx::query("UPDATE cluster_settings SET value = $1 WHERE name = 'nats_prefix'")
                    .bind(prefix)
                    .execute(&mut *tx)
                    .await?;
            }
            let id: String =
                sqlx::query("SELECT value FROM cluster_settings WHERE name = 'cluster_id'")
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("value")?;
            tx.commit().await?;
            Ok(id)
        })
        .await
    }

    /// Renews the lease of `node` for `lease` from now, if it still runs. Returns `false` when
    /// it had lapsed (or the row is gone): the node must drop its tables and join again.
    ///
    /// # Errors
    /// A database failure (the lease may still lapse: try again before it does).
    pub async fn renew_node(&self, node: &str, lease: Duration) -> Result<bool, StoreError> {
        self.clustered()?;
        let sql = format!(
            "UPDATE cluster_nodes SET renewed_ms = {DB_NOW_MS}, \
             lease_until_ms = {DB_NOW_MS} + $2 \
             WHERE node = $1 AND lease_until_ms > {DB_NOW_MS}"
        );
        self.timed(async {
            let done = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(node)
                .bind(lease.as_millis() as i64)
                .execute(&self.pool)
                .await?;
            Ok(done.rows_affected() == 1)
        })
        .await
    }

    /// Ends the lease of `node` at once (a clean stop, after its tables were released).
    ///
    /// # Errors
    /// A database failure.
    pub async fn end_node(&self, node: &str) -> Result<(), StoreError> {
        self.clustered()?;
        self.timed(async {
            sqlx::query("DELETE FROM cluster_nodes WHERE node = $1")
                .bind(node)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
        .await
    }

    /// The keys of the nodes whose lease runs now.
    ///
    /// # Errors
    /// A database failure.
    pub async fn live_nodes(&self) -> Result<Vec<String>, StoreError> {
        self.clustered()?;
        let sql = format!(
            "SELECT node FROM cluster_nodes WHERE lease_until_ms > {DB_NOW_MS} ORDER BY node"
        );
        self.timed(async {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .fetch_all(&self.pool)
                .await?;
            super::texts(&rows, "node")
        })
        .await
    }

    /// Who owns table `id` (`None` for an unknown table).
    ///
    /// # Errors
    /// A database failure.
    pub async fn ownership(&self, id: &str) -> Result<Option<Ownership>, StoreError> {
        self.clustered()?;
        let sql = format!(
            "SELECT g.owner_node, g.owner_epoch, g.updated_ms, g.phase, n.renewed_ms, \
             COALESCE(n.lease_until_ms > {DB_NOW_MS}, FALSE) AS alive \
             FROM game_tables g LEFT JOIN cluster_nodes n ON n.node = g.owner_node \
             WHERE g.id = $1"
        );
        self.timed(async {
            let row = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
            let Some(r) = row else { return Ok(None) };
            let phase: String = r.try_get("phase")?;
            Ok(Some(Ownership {
                owner: r.try_get("owner_node")?,
                epoch: r.try_get("owner_epoch")?,
                owner_alive: r.try_get("alive")?,
                owner_renewed_ms: r.try_get("renewed_ms")?,
                updated_ms: r.try_get("updated_ms")?,
                ended: phase == "ended",
            }))
        })
        .await
    }

    /// Takes table `id` for `node` if it is still as `seen` (same owner and epoch): the epoch
    /// grows by one. Returns the new epoch, or `None` when another node changed the owner
    /// first.
    ///
    /// # Errors
    /// A database failure.
    pub async fn claim(
        &self,
        id: &str,
        seen: &Ownership,
        node: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.clustered()?;
        self.timed(async {
            let row = sqlx::query(
                "UPDATE game_tables SET owner_node = $1, owner_epoch = owner_epoch + 1 \
                 WHERE id = $2 AND owner_epoch = $3 AND owner_node IS NOT DISTINCT FROM $4 \
                 RETURNING owner_epoch",
            )
            .bind(node)
            .bind(id)
            .bind(seen.epoch)
            .bind(seen.owner.as_deref())
            .fetch_optional(&self.pool)
            .await?;
            Ok(row
                .map(|r| r.try_get::<i64, _>("owner_epoch"))
                .transpose()?)
        })
        .await
    }

    /// Releases table `id` if `node` still holds it at `epoch` (a clean stop hands it over:
    /// the next node to ask takes it). Returns whether it was released.
    ///
    /// # Errors
    /// A database failure.
    pub async fn release(&self, id: &str, node: &str, epoch: i64) -> Result<bool, StoreError> {
        self.clustered()?;
        self.timed(async {
            let done = sqlx::query(
                "UPDATE game_tables SET owner_node = NULL \
                 WHERE id = $1 AND owner_node = $2 AND owner_epoch = $3",
            )
            .bind(id)
            .bind(node)
            .bind(epoch)
            .execute(&self.pool)
            .await?;
            Ok(done.rows_affected() == 1)
        })
        .await
    }

    /// Up to `limit` open or running tables that no live node holds (never owned, released,
    /// or owned by a node whose lease has lapsed), in random order so that the nodes share
    /// them.
    ///
    /// # Errors
    /// A database failure.
    pub async fn orphans(&self, limit: u32) -> Result<Vec<String>, StoreError> {
        self.clustered()?;
        let sql = format!(
            "SELECT g.id FROM game_tables g LEFT JOIN cluster_nodes n ON n.node = g.owner_node \
             WHERE g.phase <> 'ended' \
             AND (g.owner_node IS NULL OR n.node IS NULL OR n.lease_until_ms <= {DB_NOW_MS}) \
             ORDER BY random() LIMIT $1"
        );
        self.timed(async {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
            super::texts(&rows, "id")
        })
        .await
    }

    /// Removes the rows of nodes whose lease lapsed more than a day ago and that hold no open
    /// or running table; returns how many went.
    ///
    /// # Errors
    /// A database failure.
    pub async fn forget_dead_nodes(&self) -> Result<u64, StoreError> {
        self.clustered()?;
        let sql = format!(
            "DELETE FROM cluster_nodes WHERE lease_until_ms < {DB_NOW_MS} - 86400000 \
             AND NOT EXISTS (SELECT 1 FROM game_tables g \
             WHERE g.owner_node = cluster_nodes.node AND g.phase <> 'ended')"
        );
        self.timed(async {
            Ok(sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .execute(&self.pool)
                .await?
                .rows_affected())
        })
        .await
    }
}
