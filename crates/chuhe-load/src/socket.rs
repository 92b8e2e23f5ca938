//! A seat's WebSocket to its table: opening it (from the player's own address), reading it into
//! the game's inbox, writing the server's typed messages on it, and connecting it again after a
//! loss (`--reconnect`).

use crate::settings::LoadSettings;
use crate::setup::{url_index, Failure, Player, RETRY_FOR, RETRY_PAUSE};
use crate::stats::Totals;
use crate::wire::{self, Incoming};
use chuhe_server::protocol::ClientMessage;
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::net::TcpSocket;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;
/// The writing half of a seat's connection.
pub(crate) type Writer = futures_util::stream::SplitSink<Socket, Message>;
/// The reading half of a seat's connection.
pub(crate) type Reader = futures_util::stream::SplitStream<Socket>;

/// Opens a player's WebSocket to a table through `url`, with `?since=VERSION` when reconnecting.
pub(crate) async fn open(
    url: &str,
    table: &str,
    since: Option<u64>,
    player: &Player,
) -> Result<(Writer, Reader), Failure> {
    let authority = url
        .strip_prefix("http://")
        .ok_or_else(|| Failure::lasting("the url must start with http://".to_owned()))?
        .trim_end_matches('/');
    let server: SocketAddr = tokio::net::lookup_host(authority)
        .await
        .map_err(|e| Failure::lasting(format!("resolve {authority}: {e}")))?
        .next()
        .ok_or_else(|| Failure::lasting(format!("resolve {authority}: no address")))?;
    let socket = if server.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(|e| Failure::lasting(format!("socket: {e}")))?;
    if let Some(a) = player.address {
        socket
            .bind(SocketAddr::new(a, 0))
            .map_err(|e| Failure::lasting(format!("bind {a}: {e}")))?;
    }
    let stream = socket
        .connect(server)
        .await
        .map_err(|e| Failure::unanswered(format!("connect: {e}")))?;
    stream
        .set_nodelay(true)
        .map_err(|e| Failure::unanswered(format!("nodelay: {e}")))?;
    let query = since.map_or_else(String::new, |v| format!("?since={v}"));
    let mut request = format!("ws://{authority}/api/tables/{table}/ws{query}")
        .into_client_request()
        .map_err(|e| Failure::lasting(format!("ws request: {e}")))?;
    request.headers_mut().insert(
        "cookie",
        player
            .cookie
            .parse()
            .map_err(|_| Failure::lasting("ws request: bad cookie".to_owned()))?,
    );
    let (ws, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .map_err(|e| {
            let message = format!("ws handshake: {e}");
            match e {
                tokio_tungstenite::tungstenite::Error::Http(answer) => {
                    Failure::status(message, answer.status().as_u16())
                }
                _ => Failure::unanswered(message),
            }
        })?;
    Ok(ws.split())
}

/// Writes `msg` as one text frame.
pub(crate) async fn send(w: &mut Writer, msg: &ClientMessage) -> Result<(), String> {
    let text = wire::frame(msg)?;
    w.send(Message::text(text))
        .await
        .map_err(|e| format!("ws send: {e}"))
}

/// What a game's inbox receives: from a connection's reader, from a reconnecting task.
pub(crate) struct Note {
    pub(crate) seat: usize,
    /// The seat's connection this note is about ([`crate::link::Link::generation`]); notes
    /// about an older one are dropped.
    pub(crate) generation: u64,
    /// When it was read.
    pub(crate) at: Instant,
    pub(crate) report: Report,
}

/// What a [`Note`] says.
pub(crate) enum Report {
    /// A message of the server.
    Message(Incoming),
    /// The connection closed (by the server, or it failed).
    Closed,
    /// `--reconnect`: a new connection, through the URL of turn `turn`; its messages follow.
    Connected { writer: Writer, turn: usize },
    /// `--reconnect`: no connection could be made within [`RETRY_FOR`].
    GaveUp(String),
}

/// Reads a connection's messages into the game's inbox, each stamped with the time it was
/// read, then a [`Report::Closed`].
///
/// With `totals` (games between people), the bytes and the number of the text messages read
/// after the warm-up are added to [`Totals::bytes_in`] and [`Totals::messages_in`].
pub(crate) fn spawn_reader(
    mut reader: Reader,
    seat: usize,
    generation: u64,
    inbox: mpsc::UnboundedSender<Note>,
    totals: Option<Arc<Totals>>,
) {
    tokio::spawn(async move {
        while let Some(Ok(frame)) = reader.next().await {
            let at = Instant::now();
            if let Message::Text(text) = frame {
                if let Some(totals) = totals.as_ref().filter(|t| t.measured(at)) {
                    totals
                        .bytes_in
                        .fetch_add(text.len() as u64, Ordering::Relaxed);
                    totals.messages_in.fetch_add(1, Ordering::Relaxed);
                }
                let msg = serde_json::from_str(&text).unwrap_or(Incoming::Other);
                let note = Note {
                    seat,
                    generation,
                    at,
                    report: Report::Message(msg),
                };
                if inbox.send(note).is_err() {
                    return;
                }
            }
        }
        let _ = inbox.send(Note {
            seat,
            generation,
            at: Instant::now(),
            report: Report::Closed,
        });
    });
}

/// What a reconnecting task needs.
pub(crate) struct Reconnect {
    pub(crate) settings: Arc<LoadSettings>,
    pub(crate) totals: Arc<Totals>,
    /// The game's number (for its URLs).
    pub(crate) game: usize,
    pub(crate) table: String,
    pub(crate) seat: usize,
    pub(crate) player: Player,
    /// The last version the seat saw, if any.
    pub(crate) since: Option<u64>,
    /// The generation of the connection to make.
    pub(crate) generation: u64,
    /// The URL turn of the first try.
    pub(crate) turn: usize,
    /// When the seat lost its connection: the tries stop [`RETRY_FOR`] after it.
    pub(crate) lost: Instant,
    pub(crate) inbox: mpsc::UnboundedSender<Note>,
}

/// Connects a seat again, through the next URL at every try, with a pause of [`RETRY_PAUSE`]
/// after each failure, until a connection is made (then [`Report::Connected`] and its reader)
/// or [`RETRY_FOR`] has passed since the loss ([`Report::GaveUp`]).
pub(crate) async fn reconnect(job: Reconnect) {
    let n = job.settings.urls.len();
    let mut turn = job.turn;
    loop {
        if job.inbox.is_closed() {
            return;
        }
        let url = &job.settings.urls[url_index(n, job.game, job.seat, turn)];
        let budget = RETRY_FOR.saturating_sub(job.lost.elapsed());
        let attempt = open(url, &job.table, job.since, &job.player);
        let failure = match tokio::time::timeout(budget, attempt).await {
            Ok(Ok((writer, reader))) => {
                let note = Note {
                    seat: job.seat,
                    generation: job.generation,
                    at: Instant::now(),
                    report: Report::Connected { writer, turn },
                };
                // The writer first: the reader's messages come after it in the inbox.
                if job.inbox.send(note).is_ok() {
                    spawn_reader(
                        reader,
                        job.seat,
                        job.generation,
                        job.inbox,
                        Some(job.totals.clone()),
                    );
                }
                return;
            }
            Ok(Err(f)) => f.message,
            Err(_) => "connect: no connection in time".to_owned(),
        };
        job.totals.failed_try(failure.clone());
        turn += 1;
        if job.lost.elapsed() + RETRY_PAUSE >= RETRY_FOR {
            let _ = job.inbox.send(Note {
                seat: job.seat,
                generation: job.generation,
                at: Instant::now(),
                report: Report::GaveUp(format!(
                    "reconnect: no connection within {} s (last: {failure})",
                    RETRY_FOR.as_secs()
                )),
            });
            return;
        }
        tokio::time::sleep(RETRY_PAUSE).await;
    }
}
