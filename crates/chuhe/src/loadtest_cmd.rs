//! `chuhe loadtest`: plays many games at once against a running `chuhe serve`, over the same
//! HTTP and WebSocket protocol as the web client (`docs/protocol.md`), and reports how fast the
//! server answered.
//!
//! Each game is a task: one guest session and one WebSocket per seat, a table created by seat 0,
//! every seat taken, the game started, then random legal moves (the legal moves the server sends
//! the seat to move) after a think time drawn uniformly from a range, or at once (`--think-ms 0`).
//! When a game ends a new one starts, so `--games` games run until `--duration` is over.
//!
//! Two latencies are measured per move, from the moment the move's frame is written:
//! - **ack**: until the mover's own connection receives the `moved` event of that move, in the
//!   move's `update` (the server sends it only after the move is durable in the store);
//! - **hand-over**: until the connection of the seat to move next receives its legal moves (what a
//!   player needs to answer), in the same `update`, which carries them only to that seat.
//!
//! Every acknowledged move is remembered; at the end each table's stored events are read back
//! (`GET /api/tables/{id}/events`, which reads the store) and every acknowledged move must be
//! stored exactly once, at the version it was acknowledged with.
//!
//! The server's HTTP limits count requests per client address (`docs/protocol.md`, "Limits"), so
//! each player connects from its own loopback address (127.1.0.1, 127.1.0.2, ...; Linux routes the
//! whole 127.0.0.0/8 to the loopback interface) unless `--no-spread` is given.
//!
//! **Clusters.** `--url` may be given several times (the nodes of one cluster): seat `i` of game
//! `g` makes its session and connects through `urls[(g + i) % n]`, so the seats of one game sit
//! on different nodes; the table is created through seat 0's URL, and the stored events are
//! read through any URL. With `--reconnect`, a connection that closes or fails mid-game is made
//! again through the next URL with `?since=` the last version the seat saw, every 200 ms for up
//! to 30 s from the loss; the replayed events and the new `state` are applied and the game plays
//! on (the seat to move moves again from that state). A move sent and not acknowledged when its
//! connection was lost is not counted as acknowledged: the replay tells whether it landed
//! (counted apart) or not (the seat plays on). Requests that get no answer or a 5xx are tried
//! again the same way. The report then says how many reconnections there were and the longest
//! time a seat went from a loss to its first `state` after it (the takeover time a player sees).
//!
//! **Against the computer.** `--computer-games N` plays N more games at the same time, each a
//! guest at seat 0 of a table whose other seats are the computer at `--computer-level` (the
//! variants in turn, a new game when one ends). The guest moves like the players above; its
//! acks are reported apart from the games between people, with the computer's answer time (from
//! the update that began the computer's turn to the update with its move: the server's minimum
//! pause, the wait for a thinking thread, the search). So one run shows whether the moves
//! between people keep their latency while computers think. These games do not reconnect: a
//! closed connection is an error. Their acknowledged moves are checked in the store too.

use crate::cli::CliError;
use chuhe_rules::Variant;
use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpSocket;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// The server's base URL as given by `--url`, without a trailing slash.
///
/// # Errors
/// An input error for anything but `http://HOST[:PORT]` (no path: the routes are added here).
pub fn base_url(url: &str) -> Result<String, CliError> {
    let bad = || {
        CliError::input(format!(
            "bad --url {url:?}: expected the server's address as http://HOST:PORT"
        ))
    };
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let authority = rest.trim_end_matches('/');
    if authority.is_empty() || authority.contains('/') || authority.contains(char::is_whitespace) {
        return Err(bad());
    }
    Ok(format!("http://{authority}"))
}

/// What `chuhe loadtest` was asked to do.
#[derive(Debug, Clone)]
pub struct LoadSettings {
    /// The servers' base URLs, `http://HOST:PORT` (the nodes of one cluster, or one server,
    /// possibly more than once): seat `i` of game `g` uses `urls[(g + i) % len]`, the table is
    /// created through its seat 0's, and the stored events are read through any of them.
    pub urls: Vec<String>,
    /// Games played at the same time.
    pub games: usize,
    /// How long games are started and moves sent; games still running then are left as they
    /// are (their acknowledged moves are checked all the same).
    pub duration: Duration,
    /// Think time per move, drawn uniformly from `min..=max` milliseconds; `(0, 0)` moves as
    /// soon as the legal moves arrive (closed loop).
    pub think_ms: (u64, u64),
    /// The variants, used in turn by the games (game `i` plays `variants[i % len]`).
    pub variants: Vec<Variant>,
    /// The tables' time control as `(initial_ms, increment_ms)`, or untimed.
    pub time: Option<(u64, u64)>,
    /// Whether each player connects from its own loopback address.
    pub spread: bool,
    /// The server's process id, to read its memory (`/proc/PID/status`, `VmRSS`).
    pub server_pid: Option<u32>,
    /// Seed of the move choices and think times.
    pub seed: u64,
    /// Latencies of moves sent in the first `warmup` of the run (sessions, tables and
    /// connections being set up) are left out of the percentiles.
    pub warmup: Duration,
    /// Whether a lost connection is made again (through the next URL, with `?since=` the last
    /// version seen) and the game goes on, and a request that got no answer (or a 5xx) is tried
    /// again; without it a lost connection ends its game with an error.
    pub reconnect: bool,
    /// Games against the computer besides the `games` between people: a guest at seat 0, the
    /// computer at `computer_level` in the other seats; reported apart (see the module text).
    pub computer_games: usize,
    /// The level (1–8) of the computer seats.
    pub computer_level: u8,
}

/// The latencies of one kind, in microseconds.
#[derive(Debug, Default)]
struct Samples(Vec<u64>);

impl Samples {
    /// `p50 p90 p99 max` in milliseconds with one decimal, or `-` without samples.
    fn summary(&mut self) -> String {
        if self.0.is_empty() {
            return "-".to_owned();
        }
        self.0.sort_unstable();
        let at = |q: f64| {
            let i = ((self.0.len() as f64 * q).ceil() as usize).clamp(1, self.0.len()) - 1;
            self.0[i] as f64 / 1000.0
        };
        format!(
            "p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} samples)",
            at(0.50),
            at(0.90),
            at(0.99),
            *self.0.last().unwrap_or(&0) as f64 / 1000.0,
            self.0.len()
        )
    }
}

/// What all games report into.
#[derive(Default)]
struct Totals {
    ack: Mutex<Samples>,
    handover: Mutex<Samples>,
    /// Refusals and failures by error code (or a short description of a transport failure).
    errors: Mutex<HashMap<String, u64>>,
    /// Acknowledged moves per table: `(version, move)`.
    acked: Mutex<HashMap<String, Vec<(u64, String)>>>,
    moves: AtomicU64,
    games_started: AtomicU64,
    games_ended: AtomicU64,
    /// Latencies count for moves sent from this moment on (after the warm-up).
    measure_from: std::sync::OnceLock<Instant>,
    /// Acks slower than [`SLOW_ACK_MICROS`], counted by the whole second (since the run began)
    /// in which their move was sent: one stall shows as many in one second, a queue that
    /// builds up as a few in every second.
    slow_by_second: Mutex<std::collections::BTreeMap<u64, u64>>,
    /// When the run began (set once, before the games start).
    began: std::sync::OnceLock<Instant>,
    /// `--reconnect`: connections made again after a loss (counted at their first `state`).
    reconnects: AtomicU64,
    /// `--reconnect`: per reconnection, from the loss to the first `state` after it.
    gaps: Mutex<Samples>,
    /// `--reconnect`: tries of a request or a connection that failed and were tried again (or
    /// given up), by what happened.
    failed_tries: Mutex<HashMap<String, u64>>,
    /// `--reconnect`: moves sent and not acknowledged when their connection was lost.
    in_doubt: AtomicU64,
    /// ... of which the events replayed after reconnecting showed stored.
    landed: AtomicU64,
    /// ... of which they did not.
    not_landed: AtomicU64,
    /// Games against the computer: the guest's acks.
    computer_ack: Mutex<Samples>,
    /// Games against the computer: per computer move, from the moment its turn began (the
    /// update of the move before it arrived) to the update with its move.
    computer_answer: Mutex<Samples>,
    /// Games against the computer: the guest's moves acknowledged, the computer's moves seen,
    /// games started and ended.
    computer_moves: AtomicU64,
    computer_answers: AtomicU64,
    computer_started: AtomicU64,
    computer_ended: AtomicU64,
}

/// An ack slower than this (50 ms, the latency goal) is counted in
/// [`Totals::slow_by_second`].
const SLOW_ACK_MICROS: u64 = 50_000;

impl Totals {
    /// Whether a move sent at `sent` counts in the latencies.
    fn measured(&self, sent: Instant) -> bool {
        self.measure_from.get().is_none_or(|&from| sent >= from)
    }

    /// Counts a slow ack of a move sent at `sent`.
    fn slow(&self, sent: Instant) {
        let second = self
            .began
            .get()
            .map_or(0, |&b| sent.saturating_duration_since(b).as_secs());
        *lock(&self.slow_by_second).entry(second).or_default() += 1;
    }

    /// `N in S seconds; worst: 12 s: 40, 31 s: 7, ...` (the five seconds with the most), or
    /// `none`.
    fn slow_summary(&self) -> String {
        let by_second = lock(&self.slow_by_second);
        if by_second.is_empty() {
            return "none".to_owned();
        }
        let total: u64 = by_second.values().sum();
        let mut worst: Vec<(u64, u64)> = by_second.iter().map(|(&s, &n)| (s, n)).collect();
        worst.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let worst: Vec<String> = worst
            .iter()
            .take(5)
            .map(|(s, n)| format!("{s} s: {n}"))
            .collect();
        format!(
            "{total} in {} seconds; worst: {}",
            by_second.len(),
            worst.join(", ")
        )
    }

    fn error(&self, what: impl Into<String>) {
        *lock(&self.errors).entry(what.into()).or_default() += 1;
    }

    fn failed_try(&self, what: impl Into<String>) {
        *lock(&self.failed_tries).entry(what.into()).or_default() += 1;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The next loopback source address: 127.1.0.1, 127.1.0.2, ... (skipping `.0` and `.255`).
fn next_address(counter: &AtomicU32) -> IpAddr {
    let n = counter.fetch_add(1, Ordering::Relaxed);
    let (hi, lo) = (n / 254, n % 254 + 1);
    IpAddr::V4(Ipv4Addr::new(
        127,
        1 + (hi / 256) as u8,
        (hi % 256) as u8,
        lo as u8,
    ))
}

/// The parts of the server's WebSocket messages the load test reads; other fields are ignored.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Incoming {
    Event {
        version: u64,
        event: IncomingEvent,
    },
    State {
        version: u64,
        #[serde(default)]
        legal_moves: Vec<String>,
        table: IncomingTable,
    },
    /// What a change changed (after every change; the full state comes only on connecting).
    Update {
        version: u64,
        events: Vec<IncomingVersioned>,
        #[serde(default)]
        legal_moves: Vec<String>,
    },
    Error {
        code: String,
        message: String,
    },
    #[serde(other)]
    Other,
}

/// An event of an update, with its version.
#[derive(Debug, Deserialize)]
struct IncomingVersioned {
    version: u64,
    event: IncomingEvent,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum IncomingEvent {
    Moved {
        seat: usize,
        #[serde(rename = "move")]
        mv: String,
    },
    Sat {
        seat: usize,
    },
    Stood {
        seat: usize,
    },
    Ended {},
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct IncomingTable {
    phase: String,
    seats: Vec<Option<serde_json::Value>>,
}

/// One player: its address and its session cookie.
#[derive(Clone)]
struct Player {
    address: Option<IpAddr>,
    cookie: String,
}

/// A request or a connection that failed: what happened, and whether trying again (through the
/// next URL) may help: no answer at all, or a 5xx status (a node going down or taking a table
/// over). A refusal (a 4xx status) is not tried again while setting a game up.
#[derive(Debug)]
struct Failure {
    message: String,
    transient: bool,
}

impl Failure {
    /// A failure without an answer from the server.
    fn unanswered(message: String) -> Failure {
        Failure {
            message,
            transient: true,
        }
    }

    /// A failure that trying again does not mend.
    fn lasting(message: String) -> Failure {
        Failure {
            message,
            transient: false,
        }
    }

    /// An answer with the HTTP status `status`.
    fn status(message: String, status: u16) -> Failure {
        Failure {
            message,
            transient: status >= 500,
        }
    }
}

/// The pause between two tries of a request or a connection (`--reconnect`).
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// How long a request or a lost connection is tried again before giving up (`--reconnect`):
/// a cluster takes a dead node's tables over within about 10 s.
const RETRY_FOR: Duration = Duration::from_secs(30);

/// The URL that `seat` of game number `game` uses at its `turn`-th try (0 first, then one more
/// for every failed try and every reconnection), out of `urls` URLs: the seats of one game start
/// on different URLs (seat `i` of game `g` on `(g + i) % urls`; the table is created through
/// seat 0's), and each try moves on to the next.
fn url_index(urls: usize, game: usize, seat: usize, turn: usize) -> usize {
    (game + seat + turn) % urls.max(1)
}

/// An HTTP client bound to `address` (when spreading).
fn http_client(address: Option<IpAddr>) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(0);
    if let Some(a) = address {
        builder = builder.local_address(a);
    }
    builder.build().map_err(|e| format!("http client: {e}"))
}

/// A new guest session: the `chuhe_session=...` cookie pair.
async fn new_guest(url: &str, address: Option<IpAddr>, name: &str) -> Result<Player, Failure> {
    let client = http_client(address).map_err(Failure::lasting)?;
    let response = client
        .post(format!("{url}/api/session"))
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("session: {e}")))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        return Err(Failure::status(format!("session: http {status}"), status));
    }
    let cookie = response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("chuhe_session="))
        .ok_or_else(|| Failure::lasting("session: no chuhe_session cookie".to_owned()))?
        .to_owned();
    Ok(Player { address, cookie })
}

/// Creates a table as `player`: its id.
async fn new_table(
    url: &str,
    player: &Player,
    variant: Variant,
    time: Option<(u64, u64)>,
) -> Result<String, Failure> {
    let client = http_client(player.address).map_err(Failure::lasting)?;
    let time = time.map(|(i, inc)| serde_json::json!({"initial_ms": i, "increment_ms": inc}));
    let response = client
        .post(format!("{url}/api/tables"))
        .header(reqwest::header::COOKIE, &player.cookie)
        .json(&serde_json::json!({ "variant": variant.as_str(), "time": time }))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("create table: {e}")))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        return Err(Failure::status(
            format!("create table: http {status} {body}"),
            status,
        ));
    }
    let summary: serde_json::Value = response
        .json()
        .await
        .map_err(|e| Failure::unanswered(format!("create table: {e}")))?;
    summary["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Failure::lasting("create table: no id".to_owned()))
}

/// Runs `attempt(turn)` for turn 0, 1, ...: with `--reconnect`, a transient failure is counted
/// and tried again after [`RETRY_PAUSE`] for up to [`RETRY_FOR`] (each try on the next URL, as
/// `attempt` picks it from its turn); without, the first failure is the answer.
async fn retrying<T, F, Fut>(
    settings: &LoadSettings,
    totals: &Totals,
    mut attempt: F,
) -> Result<T, String>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let began = Instant::now();
    let mut turn = 0;
    loop {
        match attempt(turn).await {
            Ok(v) => return Ok(v),
            Err(f) if settings.reconnect && f.transient && began.elapsed() < RETRY_FOR => {
                totals.failed_try(f.message);
                turn += 1;
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(f) => return Err(f.message),
        }
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;
type Writer = futures_util::stream::SplitSink<Socket, Message>;
type Reader = futures_util::stream::SplitStream<Socket>;

/// Opens a player's WebSocket to a table, with `?since=VERSION` when reconnecting.
async fn open(
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

/// What a game's inbox receives: from a connection's reader, from a reconnecting task.
struct Note {
    seat: usize,
    /// The seat's connection this note is about ([`Link::generation`]); notes about an older
    /// one are dropped.
    generation: u64,
    /// When it was read.
    at: Instant,
    report: Report,
}

enum Report {
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
fn spawn_reader(
    mut reader: Reader,
    seat: usize,
    generation: u64,
    inbox: mpsc::UnboundedSender<Note>,
) {
    tokio::spawn(async move {
        while let Some(Ok(frame)) = reader.next().await {
            let at = Instant::now();
            if let Message::Text(text) = frame {
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
struct Reconnect {
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    game: usize,
    table: String,
    seat: usize,
    player: Player,
    since: Option<u64>,
    generation: u64,
    /// The URL turn of the first try.
    turn: usize,
    /// When the seat lost its connection: the tries stop [`RETRY_FOR`] after it.
    lost: Instant,
    inbox: mpsc::UnboundedSender<Note>,
}

/// Connects a seat again, through the next URL at every try, with a pause of [`RETRY_PAUSE`]
/// after each failure, until a connection is made (then [`Report::Connected`] and its reader)
/// or [`RETRY_FOR`] has passed since the loss ([`Report::GaveUp`]).
async fn reconnect(job: Reconnect) {
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
                    spawn_reader(reader, job.seat, job.generation, job.inbox);
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

/// One seat's connection as its game keeps track of it for reconnecting (`--reconnect`): which
/// connection is the current one, the last version it saw, and what a loss left in doubt.
#[derive(Debug, Default)]
struct Link {
    /// The current connection: 0 for the first, one more at every loss.
    generation: u64,
    /// The last version the seat's connections received (0: none yet).
    version: u64,
    /// The URL turn of the current connection ([`url_index`]).
    turn: usize,
    /// Since when the seat has been without a working connection: set at a loss, cleared by
    /// the first `state` after it.
    lost: Option<Instant>,
    /// The version that the seat's move, sent and not acknowledged when the connection was
    /// lost, answered.
    in_doubt: Option<u64>,
}

impl Link {
    /// A message of the current connection at `version`.
    fn saw(&mut self, version: u64) {
        self.version = self.version.max(version);
    }

    /// The `?since=` of the next connection: the last version seen, if any.
    fn since(&self) -> Option<u64> {
        (self.version > 0).then_some(self.version)
    }

    /// Whether the seat has a connection that sent its `state`.
    fn is_up(&self) -> bool {
        self.lost.is_none()
    }

    /// The current connection was lost at `at`, with the seat's move that answered version
    /// `unacknowledged` not yet acknowledged (if any): the next connection's generation. A loss
    /// during a reconnection keeps the first loss's time and move in doubt.
    fn lose(&mut self, at: Instant, unacknowledged: Option<u64>) -> u64 {
        self.generation += 1;
        self.lost.get_or_insert(at);
        if unacknowledged.is_some() {
            self.in_doubt = unacknowledged;
        }
        self.generation
    }

    /// A `moved` event of `mover` at `version`, replayed to `seat`'s new connection: whether it
    /// is the seat's move in doubt, which has then landed (and is no longer in doubt).
    fn landed(&mut self, seat: usize, mover: usize, version: u64) -> bool {
        let landed = mover == seat && self.in_doubt.is_some_and(|v| version == v + 1);
        if landed {
            self.in_doubt = None;
        }
        landed
    }

    /// A `state` read at `at`: after a loss, how long the seat was without a connection and
    /// whether its move in doubt did not land (the replay before the state did not show it);
    /// `None` when nothing was lost.
    fn restored(&mut self, at: Instant) -> Option<(Duration, bool)> {
        let lost = self.lost.take()?;
        Some((
            at.saturating_duration_since(lost),
            self.in_doubt.take().is_some(),
        ))
    }
}

/// The least time between two moves of one connection: the server lets a connection send 10
/// messages a second after a burst of 20 (`docs/protocol.md`, "Limits"), so a closed loop
/// (`--think-ms 0`) stays just under that rate instead of being refused with `rate_limited`.
const MIN_GAP: Duration = Duration::from_millis(105);

/// A move sent and not yet acknowledged.
struct Pending {
    /// The version the move was sent against; its `moved` event has the next one.
    version: u64,
    sent: Instant,
}

/// Plays games one after another in one slot until the deadline.
async fn game_slot(
    slot: usize,
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) {
    let mut rng = StdRng::seed_from_u64(settings.seed ^ (slot as u64).wrapping_mul(0x9e37_79b9));
    let mut round = 0usize;
    while Instant::now() < deadline {
        let variant = settings.variants[(slot + round) % settings.variants.len()];
        // Every game of the run has its own number (it chooses the game's URLs).
        let game = round * settings.games + slot;
        round += 1;
        if let Err(e) = play_game(
            game, slot, variant, &settings, &totals, &addresses, deadline, &mut rng,
        )
        .await
        {
            totals.error(e);
            // A failure to set up: do not hammer the server in a loop.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// A game in play: its connections and what it waits for.
struct Game<'a> {
    settings: &'a Arc<LoadSettings>,
    totals: &'a Arc<Totals>,
    /// The game's number (for its URLs).
    number: usize,
    table: String,
    players: Vec<Player>,
    /// Per seat, its connection's writer; `None` while it reconnects.
    writers: Vec<Option<Writer>>,
    links: Vec<Link>,
    /// With `--reconnect`, per seat, the errors its current connection sent: they count as
    /// errors once the connection goes on, as failed tries when it closes (an error, then the
    /// close, is how a server refuses a connection or sends it elsewhere).
    held: Vec<Vec<String>>,
    /// Per seat, its move not yet acknowledged (each seat's own connection acknowledges it).
    pending: Vec<Option<Pending>>,
    /// The last move sent, until the next seat to move receives its legal moves.
    handover: Option<Pending>,
    /// The move to send, when its think time is over: (at, seat, version, move).
    scheduled: Option<(Instant, usize, u64, String)>,
    /// A sender for reconnecting tasks (with `--reconnect`).
    inbox: Option<mpsc::UnboundedSender<Note>>,
}

impl Game<'_> {
    /// Sends `msg` on `seat`'s connection: whether it was written. Without `--reconnect` a
    /// failure ends the game; with it, the connection counts as lost (and is made again).
    async fn send(&mut self, seat: usize, msg: serde_json::Value) -> Result<bool, String> {
        let Some(writer) = self.writers[seat].as_mut() else {
            return Ok(false);
        };
        match send(writer, msg).await {
            Ok(()) => Ok(true),
            Err(_) if self.settings.reconnect => {
                self.lose(seat, Instant::now());
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// `seat`'s connection was lost at `at` (`--reconnect`): its move not acknowledged goes in
    /// doubt, its scheduled move is dropped (the state after reconnecting brings the legal
    /// moves again), and a task connects it again from the last version it saw.
    fn lose(&mut self, seat: usize, at: Instant) {
        self.writers[seat] = None;
        let unacknowledged = self.pending[seat].take().map(|p| p.version);
        if unacknowledged.is_some() {
            self.totals.in_doubt.fetch_add(1, Ordering::Relaxed);
        }
        let link = &mut self.links[seat];
        let generation = link.lose(at, unacknowledged);
        if self.scheduled.as_ref().is_some_and(|s| s.1 == seat) {
            self.scheduled = None;
        }
        // A hand-over measured across the loss would measure the reconnection.
        self.handover = None;
        for e in self.held[seat].drain(..) {
            self.totals.failed_try(e);
        }
        let Some(inbox) = self.inbox.clone() else {
            return;
        };
        tokio::spawn(reconnect(Reconnect {
            settings: self.settings.clone(),
            totals: self.totals.clone(),
            game: self.number,
            table: self.table.clone(),
            seat,
            player: self.players[seat].clone(),
            since: link.since(),
            generation,
            turn: link.turn + 1,
            lost: link.lost.unwrap_or(at),
            inbox,
        }));
    }

    /// Counts the held errors of `seat` as errors.
    fn release(&mut self, seat: usize) {
        for e in self.held[seat].drain(..) {
            self.totals.error(e);
        }
    }

    /// Counts every held error as an error (the game is over).
    fn release_all(&mut self) {
        for seat in 0..self.held.len() {
            self.release(seat);
        }
    }
}

/// One game from the guests' sessions to its end (or the deadline).
#[allow(clippy::too_many_arguments)]
async fn play_game(
    number: usize,
    slot: usize,
    variant: Variant,
    settings: &Arc<LoadSettings>,
    totals: &Arc<Totals>,
    addresses: &AtomicU32,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let urls = &settings.urls;
    let n = urls.len();
    let seats = variant.seat_count();
    let mut players = Vec::with_capacity(seats);
    for seat in 0..seats {
        let address = settings.spread.then(|| next_address(addresses));
        let name = format!("load {slot}.{seat}");
        let name = &name;
        let player = retrying(settings, totals, move |turn| {
            new_guest(&urls[url_index(n, number, seat, turn)], address, name)
        })
        .await?;
        players.push(player);
    }
    let creator = &players[0];
    let table = retrying(settings, totals, move |turn| {
        new_table(
            &urls[url_index(n, number, 0, turn)],
            creator,
            variant,
            settings.time,
        )
    })
    .await?;
    let (inbox_tx, mut inbox) = mpsc::unbounded_channel();
    let mut writers = Vec::with_capacity(seats);
    let mut links = Vec::with_capacity(seats);
    for (seat, p) in players.iter().enumerate() {
        let table = &table;
        let (writer, reader, turn) = retrying(settings, totals, move |turn| async move {
            let url = &urls[url_index(n, number, seat, turn)];
            open(url, table, None, p).await.map(|(w, r)| (w, r, turn))
        })
        .await?;
        spawn_reader(reader, seat, 0, inbox_tx.clone());
        writers.push(Some(writer));
        links.push(Link {
            turn,
            ..Link::default()
        });
    }
    // Without reconnecting, the inbox ends when every connection has closed.
    let keep = settings.reconnect.then_some(inbox_tx);
    let mut g = Game {
        settings,
        totals,
        number,
        table,
        players,
        writers,
        links,
        held: vec![Vec::new(); seats],
        pending: (0..seats).map(|_| None).collect(),
        handover: None,
        scheduled: None,
        inbox: keep,
    };
    let result = play(&mut g, &mut inbox, deadline, rng).await;
    g.release_all();
    result
}

/// The game's moves from the seats taken to its end (or the deadline).
async fn play(
    g: &mut Game<'_>,
    inbox: &mut mpsc::UnboundedReceiver<Note>,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let (settings, totals) = (g.settings, g.totals);
    let seats = g.writers.len();
    for seat in 0..seats {
        g.send(seat, serde_json::json!({"type": "sit", "seat": seat}))
            .await?;
    }
    totals.games_started.fetch_add(1, Ordering::Relaxed);
    let mut started = false;
    // Seat 0's view of which seats are taken (from its state, then the `sat`/`stood` events).
    let mut seated: Vec<bool> = Vec::new();
    // When each seat's connection last sent a move: the next one waits MIN_GAP after it.
    let mut last_sent: Vec<Option<Instant>> = vec![None; seats];
    loop {
        let wake = g.scheduled.as_ref().map_or(deadline, |s| s.0.min(deadline));
        // What has arrived first (a closed connection among it), then the timer: a move is
        // never sent on a connection whose close is already in the inbox.
        let next = tokio::select! {
            biased;
            m = inbox.recv() => Some(m),
            () = tokio::time::sleep_until(wake) => None,
        };
        let Some(next) = next else {
            // The timer: the deadline, or a think time is over.
            if Instant::now() >= deadline {
                return Ok(());
            }
            if let Some((_, seat, version, mv)) = g.scheduled.take() {
                if g.writers[seat].is_some() {
                    let sent = Instant::now();
                    // In doubt from here: a connection lost while writing it may have sent it.
                    g.pending[seat] = Some(Pending { version, sent });
                    let msg = serde_json::json!({"type": "move", "version": version, "move": mv});
                    if g.send(seat, msg).await? {
                        last_sent[seat] = Some(sent);
                        g.handover = Some(Pending { version, sent });
                    }
                }
            }
            continue;
        };
        let Some(Note {
            seat,
            generation,
            at,
            report,
        }) = next
        else {
            return Err("connection closed by the server".to_owned());
        };
        if generation != g.links[seat].generation {
            continue;
        }
        let msg = match report {
            Report::Message(msg) => msg,
            // Without reconnecting, the game goes on until every connection has closed.
            Report::Closed if settings.reconnect => {
                g.lose(seat, at);
                continue;
            }
            Report::Closed => continue,
            Report::Connected { writer, turn } => {
                g.writers[seat] = Some(writer);
                g.links[seat].turn = turn;
                continue;
            }
            Report::GaveUp(e) => return Err(e),
        };
        if let Incoming::Error { code, message } = msg {
            if settings.reconnect {
                g.held[seat].push(format!("{code}: {message}"));
            } else {
                totals.error(format!("{code}: {message}"));
            }
            g.pending[seat] = None;
            continue;
        }
        g.release(seat);
        // An update carries the change's events and the legal moves of the seat to move; a
        // replayed event and the state on connecting carry one of the two.
        let mut restored = false;
        let (events, legal_moves, version) = match msg {
            Incoming::State {
                version,
                legal_moves,
                table: summary,
            } => {
                if let Some((gap, not_landed)) = g.links[seat].restored(at) {
                    restored = true;
                    totals.reconnects.fetch_add(1, Ordering::Relaxed);
                    lock(&totals.gaps).0.push(micros(gap));
                    if not_landed {
                        totals.not_landed.fetch_add(1, Ordering::Relaxed);
                    }
                    // A seat taken on a lost connection may not have been stored: take it.
                    if summary.phase == "open"
                        && summary.seats.get(seat).is_some_and(Option::is_none)
                    {
                        g.send(seat, serde_json::json!({"type": "sit", "seat": seat}))
                            .await?;
                    }
                }
                if seat == 0 {
                    seated = summary.seats.iter().map(Option::is_some).collect();
                    // A `start` sent on a lost connection may not have been stored either.
                    started = summary.phase != "open";
                }
                (Vec::new(), legal_moves, version)
            }
            other => match changes(other) {
                Some(change) => change,
                None => continue,
            },
        };
        g.links[seat].saw(version);
        for (version, event) in events {
            match event {
                IncomingEvent::Moved { seat: mover, mv } => {
                    if g.links[seat].lost.is_some() && g.links[seat].landed(seat, mover, version) {
                        totals.landed.fetch_add(1, Ordering::Relaxed);
                    }
                    // The version and the seat name the move: the event carries its record (a
                    // banqi flip `flip c2` is recorded as `c2=R`).
                    let mine = g.pending[seat]
                        .as_ref()
                        .is_some_and(|p| mover == seat && version == p.version + 1);
                    if mine {
                        if let Some(p) = g.pending[seat].take() {
                            if totals.measured(p.sent) {
                                let took = micros(at - p.sent);
                                lock(&totals.ack).0.push(took);
                                if took > SLOW_ACK_MICROS {
                                    totals.slow(p.sent);
                                }
                            }
                            lock(&totals.acked)
                                .entry(g.table.clone())
                                .or_default()
                                .push((version, mv));
                            totals.moves.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                IncomingEvent::Sat { seat: taken } if seat == 0 => {
                    if let Some(s) = seated.get_mut(taken) {
                        *s = true;
                    }
                }
                IncomingEvent::Stood { seat: freed } if seat == 0 => {
                    if let Some(s) = seated.get_mut(freed) {
                        *s = false;
                    }
                }
                IncomingEvent::Ended {} if seat == 0 => {
                    totals.games_ended.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
                _ => {}
            }
        }
        // Every seat taken and connected (a seated person without a connection makes `start`
        // refused with `not_ready`).
        let ready = !seated.is_empty()
            && seated.iter().all(|s| *s)
            && g.links.iter().all(Link::is_up)
            && g.writers.iter().all(Option::is_some);
        if !started && ready {
            started = g.send(0, serde_json::json!({"type": "start"})).await?;
        }
        if legal_moves.is_empty() {
            continue;
        }
        if !restored && g.handover.as_ref().is_some_and(|p| version > p.version) {
            if let Some(p) = g.handover.take() {
                if totals.measured(p.sent) {
                    lock(&totals.handover).0.push(micros(at - p.sent));
                }
            }
        }
        let (due, mv) = next_move(settings, rng, &legal_moves, at, last_sent[seat]);
        g.scheduled = Some((due, seat, version, mv));
    }
}

/// Plays games against the computer one after another in one slot until the deadline.
async fn computer_slot(
    slot: usize,
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) {
    let mut rng = StdRng::seed_from_u64(
        settings.seed ^ (slot as u64).wrapping_mul(0x85eb_ca6b) ^ 0xc0ff_ee00,
    );
    let mut round = 0usize;
    while Instant::now() < deadline {
        let variant = settings.variants[(slot + round) % settings.variants.len()];
        // After the games between people in the URL rotation.
        let game = round * settings.computer_games + slot + settings.games;
        round += 1;
        if let Err(e) = play_computer_game(
            game, slot, variant, &settings, &totals, &addresses, deadline, &mut rng,
        )
        .await
        {
            totals.error(format!("against the computer: {e}"));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// One game of a guest against the computer, from the guest's session to its end (or the
/// deadline).
#[allow(clippy::too_many_arguments)]
async fn play_computer_game(
    number: usize,
    slot: usize,
    variant: Variant,
    settings: &Arc<LoadSettings>,
    totals: &Arc<Totals>,
    addresses: &AtomicU32,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let url = &settings.urls[url_index(settings.urls.len(), number, 0, 0)];
    let address = settings.spread.then(|| next_address(addresses));
    let player = new_guest(url, address, &format!("load c{slot}"))
        .await
        .map_err(|f| f.message)?;
    let table = new_table(url, &player, variant, settings.time)
        .await
        .map_err(|f| f.message)?;
    let (mut writer, reader) = open(url, &table, None, &player)
        .await
        .map_err(|f| f.message)?;
    let (inbox_tx, mut inbox) = mpsc::unbounded_channel();
    spawn_reader(reader, 0, 0, inbox_tx);
    send(&mut writer, serde_json::json!({"type": "sit", "seat": 0})).await?;
    for seat in 1..variant.seat_count() {
        let msg = serde_json::json!({
            "type": "sit_computer", "seat": seat, "level": settings.computer_level,
        });
        send(&mut writer, msg).await?;
    }
    send(&mut writer, serde_json::json!({"type": "start"})).await?;
    totals.computer_started.fetch_add(1, Ordering::Relaxed);
    // The guest's move not yet acknowledged; the move to send when its think time is over.
    let mut pending: Option<Pending> = None;
    let mut scheduled: Option<(Instant, u64, String)> = None;
    // When the seat to move began its turn (the last update with a move, or the start).
    let mut turn_began: Option<Instant> = None;
    let mut last_sent: Option<Instant> = None;
    loop {
        let wake = scheduled.as_ref().map_or(deadline, |s| s.0.min(deadline));
        let next = tokio::select! {
            biased;
            m = inbox.recv() => Some(m),
            () = tokio::time::sleep_until(wake) => None,
        };
        let Some(next) = next else {
            if Instant::now() >= deadline {
                return Ok(());
            }
            if let Some((_, version, mv)) = scheduled.take() {
                let sent = Instant::now();
                pending = Some(Pending { version, sent });
                last_sent = Some(sent);
                let msg = serde_json::json!({"type": "move", "version": version, "move": mv});
                send(&mut writer, msg).await?;
            }
            continue;
        };
        let Some(Note { at, report, .. }) = next else {
            return Err("connection closed by the server".to_owned());
        };
        let msg = match report {
            Report::Message(msg) => msg,
            _ => return Err("connection closed by the server".to_owned()),
        };
        let (events, legal_moves, version) = match msg {
            Incoming::Error { code, message } => {
                totals.error(format!("against the computer: {code}: {message}"));
                pending = None;
                continue;
            }
            Incoming::State {
                version,
                legal_moves,
                ..
            } => (Vec::new(), legal_moves, version),
            other => match changes(other) {
                Some(change) => change,
                None => continue,
            },
        };
        for (version, event) in events {
            match event {
                IncomingEvent::Moved { seat: 0, mv } => {
                    let mine = pending.as_ref().is_some_and(|p| version == p.version + 1);
                    if let (true, Some(p)) = (mine, pending.take()) {
                        if totals.measured(p.sent) {
                            lock(&totals.computer_ack).0.push(micros(at - p.sent));
                        }
                        lock(&totals.acked)
                            .entry(table.clone())
                            .or_default()
                            .push((version, mv));
                        totals.computer_moves.fetch_add(1, Ordering::Relaxed);
                    }
                    turn_began = Some(at);
                }
                IncomingEvent::Moved { .. } => {
                    if let Some(began) = turn_began {
                        if totals.measured(began) {
                            lock(&totals.computer_answer).0.push(micros(at - began));
                        }
                    }
                    totals.computer_answers.fetch_add(1, Ordering::Relaxed);
                    turn_began = Some(at);
                }
                IncomingEvent::Ended {} => {
                    totals.computer_ended.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
                _ => {}
            }
        }
        // The game has started when the first legal moves come (the guest moves first in
        // xiangqi and banqi; in sanguo seat 0 is the first kingdom too).
        if turn_began.is_none() && !legal_moves.is_empty() {
            turn_began = Some(at);
        }
        if legal_moves.is_empty() {
            continue;
        }
        let (due, mv) = next_move(settings, rng, &legal_moves, at, last_sent);
        scheduled = Some((due, version, mv));
    }
}

/// What a message changed: its events each with its version, the legal moves it carries, and
/// its version.
type Change = (Vec<(u64, IncomingEvent)>, Vec<String>, u64);

/// The [`Change`] of an update or a replayed event; `None` for any other message.
fn changes(msg: Incoming) -> Option<Change> {
    match msg {
        Incoming::Event { version, event } => Some((vec![(version, event)], Vec::new(), version)),
        Incoming::Update {
            version,
            events,
            legal_moves,
        } => Some((
            events.into_iter().map(|e| (e.version, e.event)).collect(),
            legal_moves,
            version,
        )),
        _ => None,
    }
}

/// A player's next move among `legal_moves` (received at `at`) and when to send it: a random
/// move after a random think time, never sooner than [`MIN_GAP`] after the connection's last
/// move (`last_sent`), the server's message rate for one connection.
fn next_move(
    settings: &LoadSettings,
    rng: &mut StdRng,
    legal_moves: &[String],
    at: Instant,
    last_sent: Option<Instant>,
) -> (Instant, String) {
    let think = if settings.think_ms.1 == 0 {
        0
    } else {
        rng.gen_range(settings.think_ms.0..=settings.think_ms.1)
    };
    let mv = legal_moves[rng.gen_range(0..legal_moves.len())].clone();
    let due = (at + Duration::from_millis(think)).max(last_sent.map_or(at, |t| t + MIN_GAP));
    (due, mv)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

async fn send(w: &mut Writer, msg: serde_json::Value) -> Result<(), String> {
    w.send(Message::text(msg.to_string()))
        .await
        .map_err(|e| format!("ws send: {e}"))
}

/// The server's resident memory in KiB (`VmRSS` of `/proc/PID/status`).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The one-minute load average of this machine.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// Reads a table's stored events (`GET /api/tables/{id}/events`) through `url`.
async fn stored_events(
    client: &reqwest::Client,
    url: &str,
    table: &str,
) -> Result<Vec<serde_json::Value>, Failure> {
    let response = client
        .get(format!("{url}/api/tables/{table}/events"))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("events of {table}: {e}")))?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(Failure::status(
            format!("events of {table}: http {status}"),
            status,
        ));
    }
    response
        .json()
        .await
        .map_err(|e| Failure::unanswered(format!("events of {table}: {e}")))
}

/// Reads back each table's stored events and compares them with the acknowledged moves:
/// `(checked, missing, doubled or misplaced)`. Table `i` is read through `urls[i % len]`; a
/// read that gets no answer goes on to the next URL (each once; with `--reconnect`, in turn
/// for up to [`RETRY_FOR`]).
async fn check_stored(
    settings: &LoadSettings,
    totals: &Totals,
    acked: &HashMap<String, Vec<(u64, String)>>,
    addresses: &AtomicU32,
) -> Result<(u64, u64, u64), String> {
    let (mut checked, mut missing, mut wrong) = (0, 0, 0);
    let mut client = http_client(None)?;
    let urls = &settings.urls;
    for (i, (table, moves)) in acked.iter().enumerate() {
        // Spread the reads too: the per-address request limit applies to them (a new address
        // for every 50 tables, well within its burst).
        if settings.spread && i % 50 == 0 {
            client = http_client(Some(next_address(addresses)))?;
        }
        let began = Instant::now();
        let mut turn = 0;
        let events = loop {
            let url = &urls[(i + turn) % urls.len()];
            match stored_events(&client, url, table).await {
                Ok(events) => break events,
                Err(f) if f.transient && turn + 1 < urls.len() => turn += 1,
                Err(f) if f.transient && settings.reconnect && began.elapsed() < RETRY_FOR => {
                    totals.failed_try(f.message);
                    turn += 1;
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(f) => return Err(f.message),
            }
        };
        let mut stored: HashMap<String, Vec<u64>> = HashMap::new();
        for e in &events {
            if e["event"]["kind"] == "moved" {
                let mv = e["event"]["move"].as_str().unwrap_or("").to_owned();
                stored
                    .entry(mv)
                    .or_default()
                    .push(e["version"].as_u64().unwrap_or(0));
            }
        }
        for (version, mv) in moves {
            checked += 1;
            let at: Vec<u64> = stored.get(mv).cloned().unwrap_or_default();
            if !at.contains(version) {
                missing += 1;
            }
        }
        // The same version twice is a doubled event.
        let mut versions: Vec<u64> = events
            .iter()
            .filter_map(|e| e["version"].as_u64())
            .collect();
        let n = versions.len();
        versions.sort_unstable();
        versions.dedup();
        wrong += (n - versions.len()) as u64;
    }
    Ok((checked, missing, wrong))
}

/// The `--reconnect` lines of the report: the reconnections and the longest time a seat was
/// without a connection, the failed tries by what happened, the moves a loss left in doubt.
fn write_reconnects(totals: &Totals, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let reconnects = totals.reconnects.load(Ordering::Relaxed);
    let longest = lock(&totals.gaps).0.iter().copied().max();
    match longest {
        Some(us) => writeln!(
            out,
            "reconnects: {reconnects} (longest gap {:.1} ms)",
            us as f64 / 1000.0
        )?,
        None => writeln!(out, "reconnects: {reconnects}")?,
    }
    let tries = lock(&totals.failed_tries);
    let mut tries: Vec<_> = tries.iter().collect();
    tries.sort();
    let total: u64 = tries.iter().map(|(_, n)| **n).sum();
    writeln!(out, "failed tries: {total}")?;
    for (what, n) in tries {
        writeln!(out, "  {n} x {what}")?;
    }
    writeln!(
        out,
        "unacknowledged at a loss: {} moves, {} landed after a reconnect, {} did not",
        totals.in_doubt.load(Ordering::Relaxed),
        totals.landed.load(Ordering::Relaxed),
        totals.not_landed.load(Ordering::Relaxed)
    )
}

/// Runs the load test and prints its report.
///
/// # Errors
/// The server cannot be reached, or an acknowledged move is not stored exactly once (exit
/// status 1).
pub fn run(settings: LoadSettings, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_async(settings, out))
}

async fn run_async(settings: LoadSettings, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let settings = Arc::new(settings);
    let totals = Arc::new(Totals::default());
    let addresses = Arc::new(AtomicU32::new(0));
    if settings.urls.is_empty() {
        return Err(CliError::input("no --url to play against"));
    }
    for url in &settings.urls {
        let health = http_client(None)
            .map_err(CliError::input)?
            .get(format!("{url}/api/health"))
            .send()
            .await
            .map_err(|e| CliError::input(format!("the server at {url} does not answer: {e}")))?;
        if !health.status().is_success() {
            return Err(CliError::input(format!(
                "{url}/api/health: http {}",
                health.status().as_u16()
            )));
        }
    }
    let rss_before = match settings.server_pid {
        None => None,
        Some(pid) => Some(rss_kib(pid).ok_or_else(|| {
            CliError::input(format!("--server-pid {pid}: no such process to measure"))
        })?),
    };
    let begin = Instant::now();
    let deadline = begin + settings.duration;
    let _ = totals.measure_from.set(begin + settings.warmup);
    let _ = totals.began.set(begin);
    let mut tasks = Vec::with_capacity(settings.games);
    for slot in 0..settings.games {
        tasks.push(tokio::spawn(game_slot(
            slot,
            settings.clone(),
            totals.clone(),
            addresses.clone(),
            deadline,
        )));
        // Start the games over the first seconds rather than all in one instant.
        if settings.games > 50 && slot % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for slot in 0..settings.computer_games {
        tasks.push(tokio::spawn(computer_slot(
            slot,
            settings.clone(),
            totals.clone(),
            addresses.clone(),
            deadline,
        )));
        if slot % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // Sample the memory and the load while the games run.
    let sampler = {
        let pid = settings.server_pid;
        tokio::spawn(async move {
            let mut peak = 0u64;
            let mut loads = Vec::new();
            // Every 5 s, and once at the end of a shorter run.
            loop {
                let wait =
                    Duration::from_secs(5).min(deadline.saturating_duration_since(Instant::now()));
                tokio::time::sleep(wait).await;
                if let Some(kib) = pid.and_then(rss_kib) {
                    peak = peak.max(kib);
                }
                loads.push(load_average());
                if Instant::now() + Duration::from_millis(100) >= deadline {
                    break;
                }
            }
            (peak, loads)
        })
    };
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = begin.elapsed().min(settings.duration).as_secs_f64();
    let (peak_kib, loads) = sampler.await.unwrap_or_default();
    let acked = std::mem::take(&mut *lock(&totals.acked));
    let (checked, missing, doubled) = check_stored(&settings, &totals, &acked, &addresses)
        .await
        .map_err(|e| CliError {
            message: e,
            status: 1,
        })?;
    let moves = totals.moves.load(Ordering::Relaxed);
    writeln!(
        out,
        "games: {} at once, {} started, {} ended",
        settings.games,
        totals.games_started.load(Ordering::Relaxed),
        totals.games_ended.load(Ordering::Relaxed)
    )?;
    writeln!(
        out,
        "moves: {moves} acknowledged in {elapsed:.1} s: {:.1} moves/s",
        moves as f64 / elapsed
    )?;
    if !settings.warmup.is_zero() {
        writeln!(
            out,
            "latencies of the moves sent after the first {} s:",
            settings.warmup.as_secs()
        )?;
    }
    writeln!(out, "ack: {}", lock(&totals.ack).summary())?;
    writeln!(out, "hand-over: {}", lock(&totals.handover).summary())?;
    writeln!(
        out,
        "acks over {} ms, by the second their move was sent: {}",
        SLOW_ACK_MICROS / 1000,
        totals.slow_summary()
    )?;
    if settings.computer_games > 0 {
        writeln!(
            out,
            "against the computer (level {}): {} at once, {} started, {} ended; {} moves of the \
             players acknowledged, {} computer moves",
            settings.computer_level,
            settings.computer_games,
            totals.computer_started.load(Ordering::Relaxed),
            totals.computer_ended.load(Ordering::Relaxed),
            totals.computer_moves.load(Ordering::Relaxed),
            totals.computer_answers.load(Ordering::Relaxed),
        )?;
        writeln!(
            out,
            "ack against the computer: {}",
            lock(&totals.computer_ack).summary()
        )?;
        writeln!(
            out,
            "computer answer: {}",
            lock(&totals.computer_answer).summary()
        )?;
    }
    let errors = lock(&totals.errors);
    let mut errors: Vec<_> = errors.iter().collect();
    errors.sort();
    let total_errors: u64 = errors.iter().map(|(_, n)| **n).sum();
    writeln!(out, "errors: {total_errors}")?;
    for (what, n) in errors {
        writeln!(out, "  {n} x {what}")?;
    }
    if settings.reconnect {
        write_reconnects(&totals, out)?;
    }
    if let (Some(before), true) = (rss_before, peak_kib > 0) {
        let tables = settings.games.max(1) as u64;
        writeln!(
            out,
            "server memory: {before} KiB before, {peak_kib} KiB at the peak: {} KiB per table",
            peak_kib.saturating_sub(before) / tables
        )?;
    }
    writeln!(out, "load average (1 min, every 5 s): {}", loads.join(" "))?;
    writeln!(
        out,
        "stored: {checked} acknowledged moves checked, {missing} missing, {doubled} doubled"
    )?;
    if missing > 0 || doubled > 0 {
        return Err(CliError {
            message: format!(
                "{missing} acknowledged moves missing and {doubled} doubled in the store"
            ),
            status: 1,
        });
    }
    if total_errors > 0 {
        return Err(CliError {
            message: format!("{total_errors} errors (listed above)"),
            status: 1,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Incoming {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/protocol");
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The load test reads what it needs from the server's updates: the events with their
    /// versions (a move to acknowledge, seats taken) and the legal moves of the seat to move.
    #[test]
    fn slow_acks_are_counted_by_second() {
        let totals = Totals::default();
        assert_eq!(totals.slow_summary(), "none");
        let begin = Instant::now();
        let _ = totals.began.set(begin);
        for ms in [200, 1_100, 1_300, 1_900, 7_000] {
            totals.slow(begin + Duration::from_millis(ms));
        }
        assert_eq!(
            totals.slow_summary(),
            "5 in 3 seconds; worst: 1 s: 3, 0 s: 1, 7 s: 1"
        );
    }

    /// The seats of one game start on different URLs, the next game starts one URL further,
    /// and every try (a failed one, a reconnection) moves a seat on to the next URL.
    #[test]
    fn seats_of_a_game_use_the_urls_in_turn() {
        // Two nodes, two seats: the seats of every game sit on different nodes.
        assert_eq!(
            (0..4)
                .map(|g| (url_index(2, g, 0, 0), url_index(2, g, 1, 0)))
                .collect::<Vec<_>>(),
            [(0, 1), (1, 0), (0, 1), (1, 0)]
        );
        // Three nodes, sanguo's three seats: one seat per node; game 4's table is created
        // through node 1 (its seat 0's URL).
        let seats: Vec<usize> = (0..3).map(|seat| url_index(3, 4, seat, 0)).collect();
        assert_eq!(seats, [1, 2, 0]);
        // Reconnecting: seat 0 of game 4 tries nodes 2, 0, 1, 2, ...
        let tries: Vec<usize> = (1..5).map(|turn| url_index(3, 4, 0, turn)).collect();
        assert_eq!(tries, [2, 0, 1, 2]);
        // One URL (or one given once): always it.
        assert!((0..5).all(|turn| url_index(1, 7, 2, turn) == 0));
    }

    #[test]
    fn a_link_remembers_the_last_version_seen() {
        let mut link = Link::default();
        assert_eq!(link.since(), None);
        assert!(link.is_up());
        link.saw(5);
        link.saw(3);
        assert_eq!(link.since(), Some(5));
        // Nothing was lost: a state is just a state.
        assert_eq!(link.restored(Instant::now()), None);
    }

    /// A move sent against version 10 and not acknowledged when the connection was lost: the
    /// replay after reconnecting shows it at version 11, so it landed.
    #[test]
    fn a_move_in_doubt_landed_when_the_replay_shows_it() {
        let t0 = Instant::now();
        let mut link = Link::default();
        link.saw(10);
        assert_eq!(link.lose(t0, Some(10)), 1);
        assert!(!link.is_up());
        assert_eq!(link.since(), Some(10));
        // Another seat's move at 11, this seat's move at another version: not it.
        assert!(!link.landed(0, 1, 11));
        assert!(!link.landed(0, 0, 12));
        assert!(link.landed(0, 0, 11));
        // Counted once.
        assert!(!link.landed(0, 0, 11));
        link.saw(11);
        let back = t0 + Duration::from_millis(1_250);
        assert_eq!(
            link.restored(back),
            Some((Duration::from_millis(1_250), false))
        );
        assert!(link.is_up());
        assert_eq!(link.since(), Some(11));
    }

    /// The replay did not show the move: the state after it says so, and the seat plays on
    /// from the state.
    #[test]
    fn a_move_in_doubt_that_did_not_land() {
        let t0 = Instant::now();
        let mut link = Link::default();
        link.saw(10);
        link.lose(t0, Some(10));
        assert!(!link.landed(0, 1, 11));
        assert_eq!(
            link.restored(t0 + Duration::from_millis(300)),
            Some((Duration::from_millis(300), true))
        );
        // The next loss without a move in flight leaves nothing in doubt.
        link.lose(t0 + Duration::from_secs(5), None);
        assert_eq!(
            link.restored(t0 + Duration::from_secs(6)),
            Some((Duration::from_secs(1), false))
        );
    }

    /// A new connection that closes before its state (an error, then the close) is one more
    /// loss of the same outage: the gap runs from the first loss, the move stays in doubt, and
    /// the generation moves on so the old connection's notes are dropped.
    #[test]
    fn a_loss_while_reconnecting_keeps_the_first_loss() {
        let t0 = Instant::now();
        let mut link = Link::default();
        link.saw(4);
        assert_eq!(link.lose(t0, Some(4)), 1);
        assert_eq!(link.lose(t0 + Duration::from_secs(2), None), 2);
        assert_eq!(link.generation, 2);
        assert!(link.landed(1, 1, 5));
        assert_eq!(
            link.restored(t0 + Duration::from_secs(3)),
            Some((Duration::from_secs(3), false))
        );
    }

    #[test]
    fn failures_worth_another_try() {
        assert!(Failure::unanswered("connect: refused".to_owned()).transient);
        assert!(Failure::status("session: http 503".to_owned(), 503).transient);
        assert!(!Failure::status("session: http 429".to_owned(), 429).transient);
        assert!(!Failure::lasting("bind 127.1.0.1: in use".to_owned()).transient);
    }

    #[test]
    fn the_reconnect_lines_of_the_report() {
        let totals = Totals::default();
        let mut out = Vec::new();
        write_reconnects(&totals, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "reconnects: 0\nfailed tries: 0\n\
             unacknowledged at a loss: 0 moves, 0 landed after a reconnect, 0 did not\n"
        );
        totals.reconnects.store(3, Ordering::Relaxed);
        lock(&totals.gaps).0.extend([800, 1_234_567, 90_000]);
        for _ in 0..2 {
            totals.failed_try("connect: Connection refused (os error 111)");
        }
        totals.failed_try("not_found: no table \"x\"");
        totals.in_doubt.store(2, Ordering::Relaxed);
        totals.landed.store(1, Ordering::Relaxed);
        totals.not_landed.store(1, Ordering::Relaxed);
        let mut out = Vec::new();
        write_reconnects(&totals, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "reconnects: 3 (longest gap 1234.6 ms)\nfailed tries: 3\n  \
             2 x connect: Connection refused (os error 111)\n  \
             1 x not_found: no table \"x\"\n\
             unacknowledged at a loss: 2 moves, 1 landed after a reconnect, 1 did not\n"
        );
    }

    #[test]
    fn updates_are_read() {
        let Incoming::Update {
            version,
            events,
            legal_moves,
        } = fixture("server.update.banqi.json")
        else {
            panic!("not an update");
        };
        assert_eq!(version, 7);
        assert_eq!(legal_moves.len(), 5);
        assert!(matches!(
            &events[..],
            [IncomingVersioned { version: 7, event: IncomingEvent::Moved { seat: 1, mv } }] if mv == "d3=c"
        ));
        let Incoming::Update { events, .. } = fixture("server.update.sat.json") else {
            panic!("not an update");
        };
        assert!(matches!(
            &events[..],
            [IncomingVersioned {
                event: IncomingEvent::Sat { seat: 1 },
                ..
            }]
        ));
        let Incoming::Update { events, .. } = fixture("server.update.ended.json") else {
            panic!("not an update");
        };
        assert!(matches!(events[1].event, IncomingEvent::Ended {}));
    }
}
