//! The forwarding side: a client of this node whose table another node owns. Its connection is
//! registered with the owner ([`Cluster::connect_remote`]), the owner's messages arrive on this
//! node's subject and are relayed to the client as the owner serialised them
//! ([`ServerMessage::Relayed`]: never parsed here), and a dead owner's proxies are closed.

use super::host::Hosted;
use super::wire::{Reply, Request, WirePerson, CLOSED_HEADER};
use super::{lock, Cluster, REQUEST_TIMEOUT};
use crate::error::ServerError;
use crate::protocol::{ClientMessage, ServerMessage, TableSummary};
use crate::table::Person;
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;

impl Cluster {
    /// Sends `request` to node `owner` and reads its reply.
    pub(super) async fn ask(&self, owner: &str, request: &Request) -> Result<Reply, ServerError> {
        let payload = serde_json::to_vec(request)
            .map_err(|e| ServerError::Internal(format!("cluster request: {e}")))?;
        let answer = tokio::time::timeout(
            REQUEST_TIMEOUT,
            self.nats.request(self.node_subject(owner), payload.into()),
        )
        .await
        .map_err(|_| ServerError::TableMoved)?
        .map_err(|e| {
            tracing::debug!(node = %owner, error = %e, "no answer from a node");
            ServerError::TableMoved
        })?;
        serde_json::from_slice(&answer.payload)
            .map_err(|e| ServerError::Internal(format!("cluster reply: {e}")))
    }

    pub(super) fn drop_proxy(&self, proxy: u64) {
        if let Some(p) = lock(&self.proxies).remove(&proxy) {
            p.gone.send_replace(true);
        }
    }

    /// Registers a client connection with the owner of `table`; its messages arrive on `out`.
    ///
    /// # Errors
    /// The owner's refusal (an unknown table, a bad `since`); [`ServerError::TableMoved`] when
    /// the owner no longer holds the table or does not answer (the caller routes again).
    pub(crate) async fn connect_remote(
        self: &Arc<Self>,
        owner: &str,
        table: &str,
        person: Option<&Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
    ) -> Result<RemoteConn, ServerError> {
        let proxy = self.next_proxy.fetch_add(1, Ordering::Relaxed);
        let back = format!("{}.conn.{}.{proxy}", self.settings.prefix, self.key);
        let (gone, gone_rx) = tokio::sync::watch::channel(false);
        lock(&self.proxies).insert(
            proxy,
            Proxy {
                owner: owner.to_owned(),
                out,
                gone,
            },
        );
        let conn = RemoteConn {
            cluster: self.clone(),
            owner: owner.to_owned(),
            back: back.clone(),
            proxy,
            gone: gone_rx,
        };
        let request = Request::Connect {
            table: table.to_owned(),
            person: person.map(WirePerson::from),
            since,
            back,
            from: self.key.clone(),
        };
        let mut gone = conn.gone.clone();
        let answer = tokio::select! {
            answer = self.ask(owner, &request) => answer,
            _ = gone.wait_for(|g| *g) => Err(ServerError::TableMoved),
        };
        match answer {
            Ok(Reply::Ok { .. }) => Ok(conn),
            Ok(Reply::Refused { code, message }) => {
                conn.disconnect().await;
                Err(ServerError::Relayed { code, message })
            }
            Ok(Reply::NotOwner) | Err(_) => {
                conn.disconnect().await;
                Err(ServerError::TableMoved)
            }
        }
    }

    /// The table as listed, asked of its owner.
    pub(crate) async fn summary_remote(
        &self,
        owner: &str,
        table: &str,
    ) -> Result<TableSummary, ServerError> {
        let request = Request::Summary {
            table: table.to_owned(),
        };
        match self.ask(owner, &request).await? {
            Reply::Ok {
                summary: Some(summary),
            } => Ok(summary),
            Reply::Refused { code, message } => Err(ServerError::Relayed { code, message }),
            Reply::Ok { summary: None } | Reply::NotOwner => Err(ServerError::TableMoved),
        }
    }

    /// Closes the forwarded connections of the nodes not in `live` and drops the hosted
    /// connections they had here; logs the nodes that left since the last look.
    pub(super) async fn forget_dead(&self, live: HashSet<String>) {
        {
            let mut known = lock(&self.live);
            for gone in known.difference(&live) {
                tracing::info!(node = %gone, "a node left the cluster (its lease ended or lapsed)");
            }
            for new in live.difference(&known) {
                if *new != self.key {
                    tracing::info!(node = %new, "a node joined the cluster");
                }
            }
            *known = live.clone();
        }
        let live = &live;
        let gone: Vec<u64> = lock(&self.proxies)
            .iter()
            .filter(|(_, p)| !live.contains(&p.owner))
            .map(|(id, _)| *id)
            .collect();
        if !gone.is_empty() {
            tracing::info!(
                connections = gone.len(),
                "closing connections forwarded to a node that is gone"
            );
        }
        for id in gone {
            self.drop_proxy(id);
        }
        let dead: Vec<Hosted> = {
            let mut hosted = lock(&self.hosted);
            let keys: Vec<String> = hosted
                .iter()
                .filter(|(_, h)| !live.contains(&h.from))
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter().filter_map(|k| hosted.remove(&k)).collect()
        };
        for h in dead {
            h.task.abort();
            h.table.disconnect(h.conn).await;
        }
    }
}

/// A forwarded client connection on this node: where the owner's messages go.
pub(super) struct Proxy {
    pub(super) owner: String,
    pub(super) out: mpsc::UnboundedSender<ServerMessage>,
    /// Set when the proxy is dropped (the owner closed it or died): a request of the
    /// connection still waiting for the owner's answer gives up at once.
    pub(super) gone: tokio::sync::watch::Sender<bool>,
}

/// A client connection forwarded to the table's owner.
pub(crate) struct RemoteConn {
    pub(super) cluster: Arc<Cluster>,
    pub(super) owner: String,
    pub(super) back: String,
    pub(super) proxy: u64,
    /// Becomes `true` when the proxy is dropped.
    pub(super) gone: tokio::sync::watch::Receiver<bool>,
}

impl RemoteConn {
    /// Sends a client message to the owner; its answer is the message's.
    pub(crate) async fn message(&self, msg: ClientMessage) -> Result<(), ServerError> {
        let request = Request::Message {
            back: self.back.clone(),
            msg,
        };
        let mut gone = self.gone.clone();
        // A request sent as the owner died gets no answer: give up once its death is known
        // (its lease lapsed) instead of waiting for the request's time limit.
        let answer = tokio::select! {
            answer = self.cluster.ask(&self.owner, &request) => answer,
            _ = gone.wait_for(|g| *g) => Err(ServerError::TableMoved),
        };
        match answer {
            Ok(Reply::Ok { .. }) => Ok(()),
            Ok(Reply::Refused { code, message }) => Err(ServerError::Relayed { code, message }),
            Ok(Reply::NotOwner) | Err(_) => {
                // The owner is gone or lost the table: the client reconnects.
                self.cluster.drop_proxy(self.proxy);
                Err(ServerError::TableMoved)
            }
        }
    }

    /// Tells the owner the connection closed.
    pub(crate) async fn disconnect(self) {
        self.cluster.drop_proxy(self.proxy);
        let request = Request::Disconnect {
            back: self.back.clone(),
        };
        if let Ok(payload) = serde_json::to_vec(&request) {
            let subject = self.cluster.node_subject(&self.owner);
            let _ = self.cluster.nats.publish(subject, payload.into()).await;
        }
    }
}

/// Routes the owner's messages of forwarded connections to their clients.
pub(super) async fn relay_conns(cluster: Arc<Cluster>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        let Some(proxy) = msg
            .subject
            .rsplit('.')
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let closed = msg
            .headers
            .as_ref()
            .is_some_and(|h| h.get(CLOSED_HEADER).is_some());
        if closed {
            cluster.drop_proxy(proxy);
            continue;
        }
        // The owner's bytes go to the socket as they came: not parsed, not serialised again.
        crate::telemetry::message_relayed(msg.payload.len());
        let message = ServerMessage::Relayed(msg.payload);
        let sent = lock(&cluster.proxies)
            .get(&proxy)
            .map(|p| p.out.send(message).is_ok());
        if sent == Some(false) {
            cluster.drop_proxy(proxy);
        }
    }
}
