//! The table WebSocket: one task per connection between the socket and the table actor, with
//! the size and rate limits.

use crate::error::ServerError;
use crate::protocol::{ClientMessage, ServerMessage, MAX_MESSAGE_BYTES};
use crate::table::{is_closed_error, Person, TableHandle};
use crate::{AppState, Heartbeat};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

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
pub async fn upgrade(
    ws: WebSocketUpgrade,
    State(state): State<AppState>,
    Path(id): Path<String>,
    since: Result<Query<Since>, axum::extract::rejection::QueryRejection>,
    person: Option<Person>,
) -> Result<Response, ServerError> {
    let Query(since) = since?;
    let table = state.table(&id).await?;
    let shutdown = state.shutdown_signal();
    let settings = state.settings();
    let limit = RateLimit::new(settings.rate_burst, settings.rate_per_second);
    let heartbeat = settings.heartbeat;
    Ok(ws
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .on_upgrade(move |socket| async move {
            let ctx = Context {
                state,
                person,
                since: since.since,
                shutdown,
                limit,
                heartbeat,
            };
            connection(socket, table, ctx).await;
        }))
}

fn encode(msg: &ServerMessage) -> Message {
    Message::Text(
        serde_json::to_string(msg)
            .unwrap_or_else(|_| {
                r#"{"type":"error","code":"internal","message":"internal error"}"#.to_owned()
            })
            .into(),
    )
}

/// Registers a connection with the table; an ended table retired since the handle was taken
/// is loaded again (twice at most).
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

async fn connect(
    state: &AppState,
    mut table: TableHandle,
    person: Option<Person>,
    since: Option<u64>,
    out: &mpsc::UnboundedSender<ServerMessage>,
) -> Result<(TableHandle, u64), ServerError> {
    let mut tries = 0;
    loop {
        match table.connect(person.clone(), since, out.clone()).await {
            Ok(conn) => return Ok((table, conn)),
            Err(e) if is_closed_error(&e) && tries < 2 => {
                tries += 1;
                table = state.table(table.id()).await?;
            }
            Err(e) => return Err(e),
        }
    }
}

/// What a connection task needs besides its socket and table.
struct Context {
    state: AppState,
    person: Option<Person>,
    since: Option<u64>,
    shutdown: tokio::sync::watch::Receiver<bool>,
    limit: RateLimit,
    heartbeat: Option<Heartbeat>,
}

async fn connection(socket: WebSocket, table: TableHandle, ctx: Context) {
    let Context {
        state,
        person,
        since,
        mut shutdown,
        mut limit,
        heartbeat,
    } = ctx;
    let (mut sink, mut stream) = socket.split();
    let (out, mut outbox) = mpsc::unbounded_channel();
    let (table, conn) = match connect(&state, table, person, since, &out).await {
        Ok(c) => c,
        Err(e) => {
            let _ = sink.send(encode(&e.to_message())).await;
            let _ = sink.close().await;
            return;
        }
    };
    // Without a heartbeat the timers are a day away and never reset (nothing is sent).
    let (every, silence) = heartbeat.map_or((FAR, FAR), |h| (h.ping_interval, h.silence_limit));
    let mut ping = tokio::time::interval_at(Instant::now() + every, every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut heard = Instant::now();
    loop {
        let silent_at = heard + silence;
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
            () = tokio::time::sleep_until(silent_at), if heartbeat.is_some() => {
                tracing::debug!("closing a silent websocket");
                let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(Message::Close(None))).await;
                break;
            }
            incoming = stream.next() => {
            heard = Instant::now();
            match incoming {
                Some(Ok(Message::Text(text))) => {
                    let result = if text.len() > MAX_MESSAGE_BYTES {
                        Err(ServerError::TooLarge)
                    } else if !limit.allow(Instant::now()) {
                        Err(ServerError::RateLimited)
                    } else {
                        match serde_json::from_str::<ClientMessage>(&text) {
                            Ok(ClientMessage::Ping {}) => {
                                let _ = out.send(ServerMessage::Pong);
                                Ok(())
                            }
                            Ok(msg) => table.message(conn, msg).await,
                            Err(e) => Err(ServerError::BadMessage(e.to_string())),
                        }
                    };
                    if let Err(e) = result {
                        e.log();
                        let _ = out.send(e.to_message());
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
                    let _ = out.send(e.to_message());
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
    table.disconnect(conn).await;
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
}
