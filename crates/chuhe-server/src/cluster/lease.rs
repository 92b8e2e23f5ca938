//! The lease: renewed every fifth of [`ClusterSettings::lease`]; on each round the dead nodes'
//! proxies are closed and the tables nobody holds are taken over; a lapsed lease gives the store up
//! and stops the node. Also which nodes are live, and the released tables another node announces.

use super::{lock, Cluster, Host, WeakHost};
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Cluster {
    /// Whether `node` is a live node of the cluster: by the last look, else by the store (a
    /// node that has just joined).
    pub(super) async fn is_live(&self, node: &str, store: &crate::store::Store) -> bool {
        if node == self.key || lock(&self.live).contains(node) {
            return true;
        }
        match store.live_nodes().await {
            Ok(live) => {
                let live: HashSet<String> = live.into_iter().collect();
                let known = live.contains(node);
                *lock(&self.live) = live;
                known
            }
            Err(_) => false,
        }
    }
}

pub(super) async fn follow_released(cluster: Arc<Cluster>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        if msg.payload.as_ref() != cluster.key.as_bytes() {
            cluster.released.notify_one();
        }
    }
}

/// Renews the lease, closes what was forwarded to dead nodes and takes over the tables nobody
/// holds, every fifth of the lease (and at once when another node released tables). A lapsed
/// lease gives the store up and stops the server ([`Cluster::lapsed`]).
pub(super) async fn keep_lease<W: WeakHost>(state: W, cluster: Arc<Cluster>) {
    let every = cluster.settings.lease / 5;
    let mut round: u64 = 0;
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = cluster.released.notified() => {}
        }
        let Some(state) = state.upgrade() else { break };
        if cluster.left.load(Ordering::Acquire) {
            break;
        }
        let store = state.store().clone();
        match store.renew_node(&cluster.key, cluster.settings.lease).await {
            Ok(true) => {}
            Ok(false) if cluster.left.load(Ordering::Acquire) => break,
            Ok(false) => {
                // Paused or cut off past the lease: other nodes may own our tables already.
                // Nothing more is written from here.
                let why = format!(
                    "this node's lease lapsed (node {}): stopping without writing (start it again)",
                    cluster.key
                );
                tracing::error!("{why}");
                cluster.lapsed.store(true, Ordering::Release);
                store.give_up(why);
                break;
            }
            Err(e) => {
                tracing::warn!(error = %e, "lease not renewed: trying again");
                continue;
            }
        }
        if state.is_shutting_down() {
            // Still renewing while the tables' clocks are saved and the tables released; no
            // more tables taken.
            continue;
        }
        match store.live_nodes().await {
            Ok(live) => cluster.forget_dead(live.into_iter().collect()).await,
            Err(e) => tracing::warn!(error = %e, "cannot read the live nodes"),
        }
        match store.orphans(64).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = state.route(&id).await {
                        tracing::warn!(table = %id, error = %e, "table not taken over");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot look for tables to take over"),
        }
        round += 1;
        if round.is_multiple_of(3600) {
            let _ = store.forget_dead_nodes().await;
        }
    }
}
