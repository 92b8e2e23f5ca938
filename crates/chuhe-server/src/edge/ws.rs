//! The table WebSocket: one task per connection between the socket and the table actor, with
//! the size and rate limits: a message rate per connection, and a chat rate per person over all
//! of their connections ([`crate::site::Settings::chat_lines`]).

use crate::cluster::{RemoteConn, Route};
use crate::error::ServerError;
use crate::protocol::{ClientMessage, ErrorBody, ServerMessage, MAX_MESSAGE_BYTES};
use crate::table::{is_closed_error, Person, TableHandle};
use crate::{site::AppState, site::Heartbeat};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument as _;

/// Frames over this many bytes close the connection (messages over
/// [`MAX_MESSAGE_BYTES`] but under this are refused with `too_large`).
const MAX_FRAME_BYTES: usize = 64 * 1024;

/// The WebSocket's read buffer, bytes: one client message (at most [`MAX_MESSAGE_BYTES`]) with
/// its frame header fits; a longer frame is read in several chunks. (tungstenite's default,
/// 128 KiB, was allocated and zero-filled per connection.) Writes are not buffered by
/// tungstenite (`write_buffer_size(0)`): the connection task writes a batch of messages and
/// flushes once.
const READ_BUFFER_BYTES: usize = 4 * 1024;

/// The stand-in for the heartbeat's times when there is none (its timers are then disabled).
const FAR: Duration = Duration::from_secs(86_400);

/// The id of the next WebSocket connection (from 1, per process), for its log span.
static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

/// The `?since=N` of the WebSocket URL.
#[derive(Debug, serde::Deserialize)]
pub struct Since {
    since: Option<u64>,
}

/// A token bucket on the tokio clock.
struct RateLimit {
    tokens: f64,
    burst: f64,
    per_second: f64,
    at: Instant,
}

impl RateLimit {
    fn new(burst: f64, per_second: f64) -> RateLimit {
        RateLimit {
            tokens: burst,
            burst,
            per_second,
            at: Instant::now(),
        }
    }

    fn allow(&mut self, now: Instant) -> bool {
        let dt = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + dt * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// `GET /api/tables/{id}/ws`: upgrades to the table's WebSocket.
#[utoipa::path(
    get,
    path = "/api/tables/{id}/ws",
    tag = "tables",
    operation_id = "table_websocket",
    params(
        ("id" = String, Path, description = "The table's id"),
        ("since" = Option<u64>, Query, description = "The last version the client saw: the events after it are replayed before the state"),
    ),
    responses(
        (status = 101, description = "Switching to the table's WebSocket: JSON text messages, `ClientMessage` from the client and `ServerMessage` from the server (see `docs/protocol.md`)"),
        (status = 400, description = "`bad_message`: not a WebSocket handshake, or a bad `since`", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 404, description = "`not_found`: no such table", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn upgrade(
    ws: WebSocketUpgrade,
    State(edge): State<super::Edge>,
    Path(id): Path<String>,
    since: Result<Query<Since>, axum::extract::rejection::QueryRejection>,
    person: Option<Person>,
) -> Result<Response, ServerError> {
    let Query(since) = since?;
    let state = edge.site().clone();
    // An unknown table is refused before the upgrade (404); where it is served is asked again
    // once the socket is open.
    let route = state.route(&id).await?;
    let shutdown = state.shutdown_signal();
    let settings = state.settings();
    let limit = RateLimit::new(settings.rate_burst, settings.rate_per_second);
    let heartbeat = settings.heartbeat;
    // The connection outlives the request: a span of its own, with its own id and the table's,
    // inside the upgrade request's (whose id its lines carry in `spans`).
    let span = tracing::info_span!(
        "connection",
        id = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed),
        table = %id,
    );
    Ok(ws
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .on_upgrade(move |socket| async move {
            let ctx = Context {
                edge,
                person,
                since: since.since,
                shutdown,
                limit,
                heartbeat,
            };
            connection(socket, id, route, ctx).instrument(span).await;
        }))
}

/// What the socket says when a message cannot be written as JSON text.
const INTERNAL_ERROR: &str = r#"{"type":"error","code":"internal","message":"internal error"}"#;

/// The text frame of `msg`: serialised here, or, for a message the table's owner node
/// serialised ([`ServerMessage::Relayed`]), its bytes as they came (checked to be UTF-8,
/// not parsed).
fn encode(msg: &ServerMessage) -> Message {
    if let ServerMessage::Relayed(bytes) = msg {
        return Message::Text(Utf8Bytes::try_from(bytes.clone()).unwrap_or_else(|_| {
            tracing::warn!("a forwarded message is not UTF-8 text");
            Utf8Bytes::from_static(INTERNAL_ERROR)
        }));
    }
    Message::Text(
        serde_json::to_string(msg)
            .unwrap_or_else(|_| INTERNAL_ERROR.to_owned())
            .into(),
    )
}

/// Most messages written per flush; the rest of a longer queue goes in the next batch.
const MAX_BATCH: usize = 64;

/// Writes `first` and whatever else is queued in `outbox` (up to [`MAX_BATCH`] messages), then
/// flushes once.
async fn send_batch(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    first: ServerMessage,
    outbox: &mut mpsc::UnboundedReceiver<ServerMessage>,
) -> Result<(), axum::Error> {
    sink.feed(encode(&first)).await?;
    for _ in 1..MAX_BATCH {
        match outbox.try_recv() {
            Ok(m) => sink.feed(encode(&m)).await?,
            Err(_) => break,
        }
    }
    sink.flush().await
}

/// A connection's way to its table: the local actor, or the owner node in a cluster.
pub(crate) enum Link {
    Local { table: TableHandle, conn: u64 },
    Remote(RemoteConn),
}

impl Link {
    /// Sends a client message to the table; its answer is the table's.
    pub(crate) async fn message(&self, msg: ClientMessage) -> Result<(), ServerError> {
        match self {
            Link::Local { table, conn } => table.message(*conn, msg).await,
            Link::Remote(remote) => remote.message(msg).await,
        }
    }

    /// Closes the connection.
    pub(crate) async fn disconnect(self) {
        match self {
            Link::Local { table, conn } => table.disconnect(conn).await,
            Link::Remote(remote) => remote.disconnect().await,
        }
    }
}

/// How long a connection keeps asking for a table whose owner node does not answer, at least
/// (it died: its lease lapses, and the table is taken over, within the lease and a second).
/// With a lease longer than this, the wait is the lease and [`OWNER_WAIT_MARGIN`]
/// (`--lease-ms`).
const OWNER_WAIT: Duration = Duration::from_secs(15);

/// What a connection waits for a dead owner's table beyond the lease: the takeover scan runs
/// every fifth of the lease, then the table loads.
const OWNER_WAIT_MARGIN: Duration = Duration::from_secs(10);

/// Registers a connection with the table where it is served: an ended table retired since it
/// was routed is loaded again; in a cluster, a table whose owner stopped answering is asked
/// for again until another node (this one, maybe) has taken it over.
pub(crate) async fn connect(
    state: &AppState,
    id: &str,
    mut route: Route,
    person: Option<Person>,
    since: Option<u64>,
    out: &mpsc::UnboundedSender<ServerMessage>,
) -> Result<Link, ServerError> {
    let mut tries = 0;
    let wait = state.cluster().map_or(OWNER_WAIT, |c| {
        OWNER_WAIT.max(c.lease() + OWNER_WAIT_MARGIN)
    });
    let until = Instant::now() + wait;
    loop {
        let result = match &route {
            Route::Local(table) => {
                table
                    .connect(person.clone(), since, out.clone())
                    .await
                    .map(|conn| Link::Local {
                        table: table.clone(),
                        conn,
                    })
            }
            Route::Remote(owner) => match state.cluster() {
                Some(c) => c
                    .connect_remote(owner, id, person.as_ref(), since, out.clone())
                    .await
                    .map(Link::Remote),
                None => Err(ServerError::TableMoved),
            },
        };
        match result {
            Ok(link) => return Ok(link),
            Err(e) if is_closed_error(&e) && tries < 2 => tries += 1,
            Err(ServerError::TableMoved) if Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(e) => return Err(e),
        }
        route = state.route(id).await?;
    }
}

/// What a connection task needs besides its socket and table.
struct Context {
    edge: super::Edge,
    person: Option<Person>,
    since: Option<u64>,
    shutdown: tokio::sync::watch::Receiver<bool>,
    limit: RateLimit,
    heartbeat: Option<Heartbeat>,
}

async fn connection(socket: WebSocket, id: String, route: Route, ctx: Context) {
    let Context {
        edge,
        person,
        since,
        mut shutdown,
        mut limit,
        heartbeat,
    } = ctx;
    let state = edge.site().clone();
    let _open = crate::telemetry::Held::new(crate::telemetry::WEBSOCKET_CONNECTIONS);
    let person_id = person.as_ref().map(|p| p.id.clone());
    let (mut sink, mut stream) = socket.split();
    let (out, mut outbox) = mpsc::unbounded_channel();
    let link = match connect(&state, &id, route, person, since, &out).await {
        Ok(link) => link,
        Err(e) => {
            let _ = sink.send(encode(&e.to_message())).await;
            let _ = sink.close().await;
            return;
        }
    };
    // Only the table (or the owner node's relay) holds the sender from here: when it drops
    // the connection (the table stopped here or moved to another node), the outbox ends and
    // the socket closes; the client reconnects and is served where the table is now.
    let weak = out.downgrade();
    drop(out);
    let out = weak;
    let reply = |m: ServerMessage| {
        if let Some(out) = out.upgrade() {
            let _ = out.send(m);
        }
    };
    // Without a heartbeat the timers are a day away and never reset (nothing is sent).
    let (every, silence) = heartbeat.map_or((FAR, FAR), |h| (h.ping_interval, h.silence_limit));
    let mut ping = tokio::time::interval_at(Instant::now() + every, every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut heard = Instant::now();
    // One timer for the silence limit, armed at the last frame heard plus the limit only when
    // it fires (not at every frame: a timer made and dropped per message costs two trips to
    // tokio's timer wheel, for every message of every connection). When it fires before the
    // limit (a frame came since it was armed), it is armed again at the new limit.
    let silent = tokio::time::sleep_until(heard + silence);
    tokio::pin!(silent);
    loop {
        tokio::select! {
            msg = outbox.recv() => match msg {
                Some(m) => {
                    // Everything already queued goes out in one write (one flush per batch:
                    // an event and its state reach the peer in one segment). A dead peer must
                    // not hold the task in a blocked write forever.
                    let sent = tokio::time::timeout(silence, send_batch(&mut sink, m, &mut outbox)).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        break;
                    }
                }
                None => break,
            },
            _ = ping.tick(), if heartbeat.is_some() => {
                let sent = tokio::time::timeout(
                    silence,
                    sink.send(Message::Ping(Default::default())),
                )
                .await;
                if !matches!(sent, Ok(Ok(()))) {
                    break;
                }
            }
            () = &mut silent, if heartbeat.is_some() => {
                let silent_at = heard + silence;
                if Instant::now() < silent_at {
                    silent.as_mut().reset(silent_at);
                    continue;
                }
                tracing::debug!("closing a silent websocket");
                let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(Message::Close(None))).await;
                break;
            }
            incoming = stream.next() => {
            heard = Instant::now();
            match incoming {
                Some(Ok(Message::Text(text))) => {
                    let received = std::time::Instant::now();
                    let result = if text.len() > MAX_MESSAGE_BYTES {
                        Err(ServerError::TooLarge)
                    } else if !limit.allow(Instant::now()) {
                        Err(ServerError::RateLimited)
                    } else {
                        match serde_json::from_str::<ClientMessage>(&text) {
                            Ok(ClientMessage::Ping {}) => {
                                reply(ServerMessage::Pong);
                                Ok(())
                            }
                            // A person's chat lines share one budget over all their
                            // connections (without a session the table refuses the line).
                            Ok(msg @ ClientMessage::Chat { .. }) => match &person_id {
                                Some(id) => match edge.chat_limiter().check(id) {
                                    Ok(()) => link.message(msg).await,
                                    Err(e) => Err(e),
                                },
                                None => link.message(msg).await,
                            },
                            // The table answers a move once it is stored and its update is
                            // queued for this connection: the acknowledgement.
                            Ok(msg @ ClientMessage::Move { .. }) => {
                                let result = link.message(msg).await;
                                if result.is_ok() {
                                    crate::telemetry::move_acknowledged(received.elapsed());
                                }
                                result
                            }
                            Ok(msg) => link.message(msg).await,
                            Err(e) => Err(ServerError::BadMessage(e.to_string())),
                        }
                    };
                    if let Err(e) = result {
                        e.log();
                        reply(e.to_message());
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    // Binary frames spend from the same message budget as text ones.
                    let e = if limit.allow(Instant::now()) {
                        ServerError::BadMessage(
                            "binary messages are not accepted: send JSON text".to_owned(),
                        )
                    } else {
                        ServerError::RateLimited
                    };
                    reply(e.to_message());
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            }},
            _ = shutdown.changed() => {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
        }
    }
    link.disconnect().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_bucket_allows_a_burst_then_the_rate() {
        let mut r = RateLimit::new(20.0, 10.0);
        let t0 = Instant::now();
        let burst = (0..30).filter(|_| r.allow(t0)).count();
        assert_eq!(burst, 20);
        // One second later: ten more.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!((0..30).filter(|_| r.allow(t1)).count(), 10);
    }

    #[test]
    fn a_relayed_message_goes_out_as_the_owner_wrote_it() {
        // The owner's text, spacing and field order included: not parsed and written again.
        let text = r#"{"type":"presence","seat":1, "connected":false,"abandon_ms":null}"#;
        let msg = ServerMessage::Relayed(bytes::Bytes::from_static(text.as_bytes()));
        assert_eq!(encode(&msg), Message::Text(Utf8Bytes::from_static(text)));
        // A reader that needs the message itself gets the same one the owner had.
        assert_eq!(
            msg.parsed(),
            ServerMessage::Presence {
                seat: crate::protocol::Seat::new(1),
                connected: false,
                abandon_ms: None,
            }
        );
        // Bytes that are not text never reach the socket.
        let broken = ServerMessage::Relayed(bytes::Bytes::from_static(&[0xff, 0xfe]));
        assert_eq!(
            encode(&broken),
            Message::Text(Utf8Bytes::from_static(INTERNAL_ERROR))
        );
        assert_eq!(broken.clone().parsed(), broken);
    }
}
