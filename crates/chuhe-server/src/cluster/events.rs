//! Players' event lines between the nodes (`GET /api/stream/event`): a node publishes each line
//! pushed to a player on `{p}.events`; every node, the publisher included, hands the lines it
//! receives to its own streams of that player ([`Host::deliver_event`]), so a stream gets each
//! line once on whichever node it is open.

use super::{Cluster, Host, WeakHost};
use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tokio::sync::mpsc;

/// One line for one player, as it travels.
#[derive(Debug, Serialize, Deserialize)]
struct EventLine {
    player: String,
    line: String,
}

impl Cluster {
    pub(super) fn events_subject(&self) -> String {
        format!("{}.events", self.settings.prefix)
    }
}

/// Publishes the lines pushed on this node, in the order pushed.
pub(super) async fn publish_events(
    cluster: Arc<Cluster>,
    mut lines: mpsc::UnboundedReceiver<(String, Arc<str>)>,
) {
    let subject = cluster.events_subject();
    while let Some((player, line)) = lines.recv().await {
        let Ok(payload) = serde_json::to_vec(&EventLine {
            player,
            line: line.to_string(),
        }) else {
            continue;
        };
        if let Err(e) = cluster
            .nats
            .publish(subject.clone(), Bytes::from(payload))
            .await
        {
            tracing::warn!(error = %e, "event line not published");
        }
    }
}

/// Hands the lines published by any node to this node's streams.
pub(super) async fn follow_events<W: WeakHost>(host: W, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        let Some(host) = host.upgrade() else {
            return;
        };
        match serde_json::from_slice::<EventLine>(&msg.payload) {
            Ok(e) => host.deliver_event(&e.player, &e.line),
            Err(e) => tracing::warn!(error = %e, "unreadable event line"),
        }
    }
}
