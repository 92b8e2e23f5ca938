//! The owner's side: the requests of other nodes for the tables this node owns (register a
//! forwarded connection, pass on its messages, a summary), each answered in a task of its own.

use super::wire::{Reply, Request, CLOSED_HEADER};
use super::{lock, Cluster, Host, Route, WeakHost};
use crate::error::ServerError;
use crate::protocol::ServerMessage;
use crate::table::{Person, TableHandle};
use bytes::Bytes;
use futures_util::StreamExt;
use std::sync::Arc;
use tokio::sync::mpsc;

/// A connection this node hosts for a client of another node.
pub(super) struct Hosted {
    pub(super) from: String,
    pub(super) table: TableHandle,
    pub(super) conn: u64,
    pub(super) task: tokio::task::JoinHandle<()>,
}

/// Answers the requests of other nodes, each in a task of its own (one connection's requests
/// come one at a time: its node waits for each answer).
pub(super) async fn serve_requests<W: WeakHost>(
    state: W,
    cluster: Arc<Cluster>,
    mut sub: async_nats::Subscriber,
) {
    while let Some(msg) = sub.next().await {
        let Some(state) = state.upgrade() else { break };
        let cluster = cluster.clone();
        tokio::spawn(async move {
            let reply_to = msg.reply.clone();
            let reply = match serde_json::from_slice::<Request>(&msg.payload) {
                Ok(request) => answer(&state, &cluster, request).await,
                Err(e) => Some(Reply::refused(&ServerError::BadMessage(e.to_string()))),
            };
            if let (Some(to), Some(reply)) = (reply_to, reply) {
                if let Ok(bytes) = serde_json::to_vec(&reply) {
                    let _ = cluster.nats.publish(to, bytes.into()).await;
                }
            }
        });
    }
}

/// The local handle of `table` when this node owns it.
pub(super) async fn owned<H: Host>(
    state: &H,
    table: &str,
) -> Result<Option<TableHandle>, ServerError> {
    match state.route(table).await? {
        Route::Local(handle) => Ok(Some(handle)),
        Route::Remote(_) => Ok(None),
    }
}

pub(super) async fn answer<H: Host>(
    state: &H,
    cluster: &Arc<Cluster>,
    request: Request,
) -> Option<Reply> {
    match request {
        Request::Connect {
            table,
            person,
            since,
            back,
            from,
        } => {
            // Only the cluster's nodes forward connections, each for its own subjects.
            let own_subject = format!("{}.conn.{from}.", cluster.settings.prefix);
            if !back.starts_with(&own_subject) || !cluster.is_live(&from, state.store()).await {
                tracing::warn!(%from, %back, "a connect request from no live node refused");
                return Some(Reply::refused(&ServerError::NotAllowed(
                    "connect: not from a live node of this cluster".to_owned(),
                )));
            }
            let handle = match owned(state, &table).await {
                Ok(Some(h)) => h,
                Ok(None) => return Some(Reply::NotOwner),
                Err(e) => return Some(Reply::refused(&e)),
            };
            let (tx, mut rx) = mpsc::unbounded_channel::<ServerMessage>();
            let person = person.map(Person::from);
            let conn = match handle.connect(person, since, tx).await {
                Ok(c) => c,
                Err(e) if crate::table::is_closed_error(&e) => return Some(Reply::NotOwner),
                Err(e) => return Some(Reply::refused(&e)),
            };
            let nats = cluster.nats.clone();
            let subject = back.clone();
            let task = tokio::spawn(async move {
                while let Some(m) = rx.recv().await {
                    // Serialised once here; the forwarding node passes these bytes through.
                    if let Ok(bytes) = serde_json::to_vec(&m) {
                        crate::telemetry::message_forwarded(bytes.len());
                        if nats.publish(subject.clone(), bytes.into()).await.is_err() {
                            break;
                        }
                    }
                }
                // The table dropped the connection (it stopped here, or moved): the client
                // reconnects.
                let mut headers = async_nats::HeaderMap::new();
                headers.insert(CLOSED_HEADER, "1");
                let _ = nats
                    .publish_with_headers(subject, headers, Bytes::new())
                    .await;
            });
            lock(&cluster.hosted).insert(
                back,
                Hosted {
                    from,
                    table: handle,
                    conn,
                    task,
                },
            );
            Some(Reply::Ok { summary: None })
        }
        Request::Message { back, msg } => {
            let target = lock(&cluster.hosted)
                .get(&back)
                .map(|h| (h.table.clone(), h.conn));
            let Some((table, conn)) = target else {
                return Some(Reply::NotOwner);
            };
            Some(match table.message(conn, msg).await {
                Ok(()) => Reply::Ok { summary: None },
                Err(e) if crate::table::is_closed_error(&e) || e == ServerError::TableMoved => {
                    Reply::NotOwner
                }
                Err(e) => Reply::refused(&e),
            })
        }
        Request::Disconnect { back } => {
            let hosted = lock(&cluster.hosted).remove(&back);
            if let Some(h) = hosted {
                h.table.disconnect(h.conn).await;
                // The forwarder ends by itself when the table drops the connection.
            }
            None
        }
        Request::Summary { table } => Some(match owned(state, &table).await {
            Ok(Some(h)) => match h.summary().await {
                Ok(s) => Reply::Ok { summary: Some(s) },
                Err(_) => Reply::NotOwner,
            },
            Ok(None) => Reply::NotOwner,
            Err(e) => Reply::refused(&e),
        }),
    }
}
