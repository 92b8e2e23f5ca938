//! The shared lobby: each owner puts its tables' summaries in a JetStream key-value bucket
//! (`{p}-lobby`) and every node watches it.

use super::{lock, Cluster};
use crate::protocol::{Phase, TableSummary};
use async_nats::jetstream::kv;
use bytes::Bytes;
use futures_util::StreamExt;
use std::sync::Arc;
use tokio::sync::mpsc;

impl Cluster {
    /// The lobby: every live table of the cluster as listed, by id.
    pub(crate) fn lobby(&self) -> Vec<TableSummary> {
        let mut out: Vec<TableSummary> = lock(&self.lobby)
            .values()
            .filter(|s| s.is_listed())
            .cloned()
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Puts a table's summary in the lobby bucket (deletes it once the table has ended).
    pub(super) async fn publish_listing(&self, summary: TableSummary) {
        let result = if summary.phase == Phase::Ended {
            self.lobby_bucket
                .delete(&summary.id)
                .await
                .map_err(|e| e.to_string())
        } else {
            match serde_json::to_vec(&summary) {
                Ok(bytes) => self
                    .lobby_bucket
                    .put(&summary.id, Bytes::from(bytes))
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        };
        if let Err(e) = result {
            tracing::warn!(table = %summary.id, error = %e, "lobby entry not published");
        }
    }
}

pub(super) async fn publish_listings(
    cluster: Arc<Cluster>,
    mut listings: mpsc::UnboundedReceiver<TableSummary>,
) {
    while let Some(summary) = listings.recv().await {
        cluster.publish_listing(summary).await;
    }
}

pub(super) async fn watch_lobby(cluster: Arc<Cluster>, mut watch: kv::Watch) {
    while let Some(entry) = watch.next().await {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "lobby watch");
                continue;
            }
        };
        let mut lobby = lock(&cluster.lobby);
        match entry.operation {
            kv::Operation::Put => match serde_json::from_slice::<TableSummary>(&entry.value) {
                Ok(summary) => {
                    lobby.insert(entry.key, summary);
                }
                Err(e) => tracing::warn!(key = %entry.key, error = %e, "unreadable lobby entry"),
            },
            kv::Operation::Delete | kv::Operation::Purge => {
                lobby.remove(&entry.key);
            }
        }
    }
    tracing::error!("the lobby watch ended: the lobby no longer follows the other nodes");
}
