//! The lease: renewed every fifth of [`ClusterSettings::lease`]; on each round the dead nodes'
//! proxies are closed and the tables nobody holds are taken over; a lapsed lease gives the store up
//! and stops the node. Also which nodes are live, and the released tables another node announces.

use super::{lock, Cluster, Host, WeakHost};
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Renews the lease every fifth of it (and at once when another node released tables); beside
/// it, one scan at a time closes what was forwarded to dead nodes and takes over the tables
/// nobody holds. A lapsed lease gives the store up and stops the server ([`Cluster::lapsed`]).
///
/// The scan runs in a task of its own because a takeover may wait: a table row locked by a
/// node cut off in the middle of its transaction holds the claim until the statement's time
/// limit (5 s by default, longer than a short lease). Were the renewal to wait for it, every
/// node taking that table over would lose its own lease and stop (scripts/faults found it: one
/// node stopped and cut off, and the two others exited with status 75).
pub(super) async fn keep_lease<W: WeakHost>(state: W, cluster: Arc<Cluster>) {
    let every = cluster.settings.lease / 5;
    let mut round: u64 = 0;
    let scanning = Arc::new(AtomicBool::new(false));
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
        if scanning.swap(true, Ordering::AcqRel) {
            continue; // the last scan still runs
        }
        round += 1;
        let forget_old_nodes = round.is_multiple_of(3600);
        let (scanning, cluster) = (scanning.clone(), cluster.clone());
        tokio::spawn(async move {
            scan(&state, &cluster, forget_old_nodes).await;
            scanning.store(false, Ordering::Release);
        });
    }
}

/// One scan: closes what was forwarded to dead nodes and takes over the tables nobody holds
/// (and, once an hour, forgets the lease rows of nodes dead for a day).
async fn scan<H: Host>(state: &H, cluster: &Arc<Cluster>, forget_old_nodes: bool) {
    let store = state.store();
    match store.live_nodes().await {
        Ok(live) => cluster.forget_dead(live.into_iter().collect()).await,
        Err(e) => tracing::warn!(error = %e, "cannot read the live nodes"),
    }
    match store.orphans(64).await {
        Ok(ids) => {
            for id in ids {
                if cluster.left.load(Ordering::Acquire)
                    || cluster.lapsed()
                    || state.is_shutting_down()
                {
                    break;
                }
                if let Err(e) = state.route(&id).await {
                    tracing::warn!(table = %id, error = %e, "table not taken over");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot look for tables to take over"),
    }
    if forget_old_nodes {
        let _ = store.forget_dead_nodes().await;
    }
}
