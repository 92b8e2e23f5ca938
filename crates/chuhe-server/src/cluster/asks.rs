//! Tournament requests between the nodes: a node that stored a request for a tournament that
//! another node runs (a join, a withdrawal, a game ended: `tournament_requests`) publishes the
//! tournament's id on `{p}.tournaments`; every node receives it, and the one that runs the
//! tournament applies its stored requests at once ([`Host::tournament_asked`]). The message
//! carries no request, only "look now": a lost one costs the wait for the owner's next tick,
//! a duplicate costs one read, and the requests themselves are never anywhere but in the
//! database.

use super::{Cluster, Host, WeakHost};
use bytes::Bytes;
use futures_util::StreamExt;

impl Cluster {
    pub(super) fn tournaments_subject(&self) -> String {
        format!("{}.tournaments", self.settings.prefix)
    }

    /// Tells the node that runs the tournament `id` (whichever it is) that a request for it
    /// is stored. A failure is logged and otherwise ignored: the owner's tick takes the
    /// request anyway.
    pub(crate) async fn tell_tournament_owner(&self, id: &str) {
        if let Err(e) = self
            .nats
            .publish(self.tournaments_subject(), Bytes::from(id.to_owned()))
            .await
        {
            tracing::warn!(tournament = %id, error = %e, "tournament request not announced");
        }
    }
}

/// Hands the tournaments named by any node to this node, which applies the requests of those
/// it runs, one message after the other.
pub(super) async fn follow_tournaments<W: WeakHost>(host: W, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        let Some(host) = host.upgrade() else {
            return;
        };
        match std::str::from_utf8(&msg.payload) {
            Ok(id) => host.tournament_asked(id).await,
            Err(e) => tracing::warn!(error = %e, "unreadable tournament announcement"),
        }
    }
}
