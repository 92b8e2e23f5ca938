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
//! With `--computer-games N`, N more tables run besides: one guest each, the computer in every
//! other seat (`sit_computer` at `--computer-level`), the guest playing random moves at the same
//! think times; their acks are reported apart (the hand-over there would be the computer's
//! thinking), so the human games' latencies can be compared with and without computer games.
//!
//! Every acknowledged move is remembered; at the end each table's stored events are read back
//! (`GET /api/tables/{id}/events`, which reads the store) and every acknowledged move must be
//! stored exactly once, at the version it was acknowledged with.
//!
//! The server's HTTP limits count requests per client address (`docs/protocol.md`, "Limits"), so
//! each player connects from its own loopback address (127.1.0.1, 127.1.0.2, ...; Linux routes the
//! whole 127.0.0.0/8 to the loopback interface) unless `--no-spread` is given.

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
    /// The server's base URL, `http://HOST:PORT`.
    pub url: String,
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
    /// Computer tables played besides the games: one guest against the computer.
    pub computer_games: usize,
    /// The computer's level at those tables (1–8).
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
    /// Acks of the guests' moves at computer tables.
    computer_ack: Mutex<Samples>,
    /// Moves the computer played (seen by the guest at its table).
    computer_moves: AtomicU64,
    computer_games_started: AtomicU64,
    computer_games_ended: AtomicU64,
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

/// One player: its address, its session cookie and, once connected, its WebSocket writer.
struct Player {
    address: Option<IpAddr>,
    cookie: String,
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
async fn new_guest(url: &str, address: Option<IpAddr>, name: &str) -> Result<Player, String> {
    let client = http_client(address)?;
    let response = client
        .post(format!("{url}/api/session"))
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .map_err(|e| format!("session: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("session: http {}", response.status().as_u16()));
    }
    let cookie = response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("chuhe_session="))
        .ok_or("session: no chuhe_session cookie")?
        .to_owned();
    Ok(Player { address, cookie })
}

/// Creates a table as `player`: its id.
async fn new_table(
    url: &str,
    player: &Player,
    variant: Variant,
    time: Option<(u64, u64)>,
) -> Result<String, String> {
    let client = http_client(player.address)?;
    let time = time.map(|(i, inc)| serde_json::json!({"initial_ms": i, "increment_ms": inc}));
    let response = client
        .post(format!("{url}/api/tables"))
        .header(reqwest::header::COOKIE, &player.cookie)
        .json(&serde_json::json!({ "variant": variant.as_str(), "time": time }))
        .send()
        .await
        .map_err(|e| format!("create table: {e}"))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        return Err(format!("create table: http {status} {body}"));
    }
    let summary: serde_json::Value = response
        .json()
        .await
        .map_err(|e| format!("create table: {e}"))?;
    summary["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "create table: no id".to_owned())
}

type Writer = futures_util::stream::SplitSink<
    tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
    Message,
>;

/// Opens a player's WebSocket to a table; every message read is stamped with the time it was
/// read and sent to `inbox` with the seat.
async fn connect(
    url: &str,
    table: &str,
    seat: usize,
    player: &Player,
    inbox: mpsc::UnboundedSender<(usize, Instant, Incoming)>,
) -> Result<Writer, String> {
    let authority = url
        .strip_prefix("http://")
        .ok_or("the url must start with http://")?
        .trim_end_matches('/');
    let server: SocketAddr = tokio::net::lookup_host(authority)
        .await
        .map_err(|e| format!("resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("resolve {authority}: no address"))?;
    let socket = if server.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(|e| format!("socket: {e}"))?;
    if let Some(a) = player.address {
        socket
            .bind(SocketAddr::new(a, 0))
            .map_err(|e| format!("bind {a}: {e}"))?;
    }
    let stream = socket
        .connect(server)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("nodelay: {e}"))?;
    let mut request = format!("ws://{authority}/api/tables/{table}/ws")
        .into_client_request()
        .map_err(|e| format!("ws request: {e}"))?;
    request.headers_mut().insert(
        "cookie",
        player
            .cookie
            .parse()
            .map_err(|_| "ws request: bad cookie".to_owned())?,
    );
    let (ws, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .map_err(|e| format!("ws handshake: {e}"))?;
    let (writer, mut reader) = ws.split();
    tokio::spawn(async move {
        while let Some(Ok(frame)) = reader.next().await {
            let at = Instant::now();
            if let Message::Text(text) = frame {
                let msg = serde_json::from_str(&text).unwrap_or(Incoming::Other);
                if inbox.send((seat, at, msg)).is_err() {
                    break;
                }
            }
        }
    });
    Ok(writer)
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

/// Plays games one after another in one slot until the deadline; `computer`: the computer's
/// level in every seat but the first.
async fn game_slot(
    slot: usize,
    computer: Option<u8>,
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) {
    let mut rng = StdRng::seed_from_u64(settings.seed ^ (slot as u64).wrapping_mul(0x9e37_79b9));
    let mut round = 0usize;
    while Instant::now() < deadline {
        let variant = settings.variants[(slot + round) % settings.variants.len()];
        round += 1;
        if let Err(e) = play_game(
            slot, variant, computer, &settings, &totals, &addresses, deadline, &mut rng,
        )
        .await
        {
            totals.error(e);
            // A failure to set up: do not hammer the server in a loop.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// One game from the guests' sessions to its end (or the deadline); with `computer`, one guest
/// in seat 0 and the computer at that level in the other seats.
#[allow(clippy::too_many_arguments)]
async fn play_game(
    slot: usize,
    variant: Variant,
    computer: Option<u8>,
    settings: &LoadSettings,
    totals: &Totals,
    addresses: &AtomicU32,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let url = settings.url.trim_end_matches('/');
    let seats = variant.seat_count();
    // The seats played by guests of this test (the others by the computer).
    let people = if computer.is_some() { 1 } else { seats };
    let mut players = Vec::with_capacity(people);
    for seat in 0..people {
        let address = settings.spread.then(|| next_address(addresses));
        let name = match computer {
            Some(_) => format!("load c{slot}"),
            None => format!("load {slot}.{seat}"),
        };
        players.push(new_guest(url, address, &name).await?);
    }
    let table = new_table(url, &players[0], variant, settings.time).await?;
    let (inbox_tx, mut inbox) = mpsc::unbounded_channel();
    let mut writers = Vec::with_capacity(seats);
    for (seat, p) in players.iter().enumerate() {
        writers.push(connect(url, &table, seat, p, inbox_tx.clone()).await?);
    }
    drop(inbox_tx);
    for (seat, w) in writers.iter_mut().enumerate() {
        send(w, serde_json::json!({"type": "sit", "seat": seat})).await?;
    }
    if let Some(level) = computer {
        for seat in people..seats {
            let msg = serde_json::json!({"type": "sit_computer", "seat": seat, "level": level});
            send(&mut writers[0], msg).await?;
        }
        totals
            .computer_games_started
            .fetch_add(1, Ordering::Relaxed);
    } else {
        totals.games_started.fetch_add(1, Ordering::Relaxed);
    }
    let mut started = false;
    // Seat 0's view of which seats are taken (from its state, then the `sat`/`stood` events).
    let mut seated: Vec<bool> = Vec::new();
    // Per seat, its move not yet acknowledged (each seat's own connection acknowledges it).
    let mut pending: Vec<Option<Pending>> = (0..seats).map(|_| None).collect();
    // The last move sent, until the next seat to move receives its legal moves.
    let mut handover: Option<Pending> = None;
    // The move to send, when its think time is over: (at, seat, version, move).
    let mut scheduled: Option<(Instant, usize, u64, String)> = None;
    // When each seat's connection last sent a move: the next one waits MIN_GAP after it.
    let mut last_sent: Vec<Option<Instant>> = vec![None; seats];
    loop {
        let wake = scheduled.as_ref().map_or(deadline, |s| s.0.min(deadline));
        let next = tokio::select! {
            m = inbox.recv() => Some(m),
            () = tokio::time::sleep_until(wake) => None,
        };
        let Some(next) = next else {
            // The timer: the deadline, or a think time is over.
            if Instant::now() >= deadline {
                return Ok(());
            }
            if let Some((_, seat, version, mv)) = scheduled.take() {
                let sent = Instant::now();
                let msg = serde_json::json!({"type": "move", "version": version, "move": mv});
                send(&mut writers[seat], msg).await?;
                last_sent[seat] = Some(sent);
                pending[seat] = Some(Pending { version, sent });
                handover = Some(Pending { version, sent });
            }
            continue;
        };
        let Some((seat, at, msg)) = next else {
            return Err("connection closed by the server".to_owned());
        };
        // An update carries the change's events and the legal moves of the seat to move; a
        // replayed event and the state on connecting carry one of the two.
        let (events, legal_moves, version) = match msg {
            Incoming::Event { version, event } => (vec![(version, event)], Vec::new(), version),
            Incoming::Update {
                version,
                events,
                legal_moves,
            } => (
                events.into_iter().map(|e| (e.version, e.event)).collect(),
                legal_moves,
                version,
            ),
            Incoming::State {
                version,
                legal_moves,
                table: summary,
            } => {
                if seat == 0 {
                    seated = summary.seats.iter().map(Option::is_some).collect();
                    started |= summary.phase != "open";
                }
                (Vec::new(), legal_moves, version)
            }
            Incoming::Error { code, message } => {
                totals.error(format!("{code}: {message}"));
                pending[seat] = None;
                continue;
            }
            Incoming::Other => continue,
        };
        for (version, event) in events {
            match event {
                IncomingEvent::Moved { seat: mover, mv } => {
                    // The version and the seat name the move: the event carries its record (a
                    // banqi flip `flip c2` is recorded as `c2=R`).
                    let mine = pending[seat]
                        .as_ref()
                        .is_some_and(|p| mover == seat && version == p.version + 1);
                    if computer.is_some() && seat == 0 && mover >= people {
                        totals.computer_moves.fetch_add(1, Ordering::Relaxed);
                    }
                    if mine {
                        if let Some(p) = pending[seat].take() {
                            if totals.measured(p.sent) {
                                let took = micros(at - p.sent);
                                if computer.is_some() {
                                    lock(&totals.computer_ack).0.push(took);
                                } else {
                                    lock(&totals.ack).0.push(took);
                                    if took > SLOW_ACK_MICROS {
                                        totals.slow(p.sent);
                                    }
                                }
                            }
                            lock(&totals.acked)
                                .entry(table.clone())
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
                    if computer.is_some() {
                        totals.computer_games_ended.fetch_add(1, Ordering::Relaxed);
                    } else {
                        totals.games_ended.fetch_add(1, Ordering::Relaxed);
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        if !started && seat == 0 && !seated.is_empty() && seated.iter().all(|s| *s) {
            started = true;
            send(&mut writers[0], serde_json::json!({"type": "start"})).await?;
        }
        if legal_moves.is_empty() {
            continue;
        }
        if handover.as_ref().is_some_and(|p| version > p.version) {
            if let Some(p) = handover.take() {
                // At a computer table the hand-over would time the computer's thinking.
                if computer.is_none() && totals.measured(p.sent) {
                    lock(&totals.handover).0.push(micros(at - p.sent));
                }
            }
        }
        let think = if settings.think_ms.1 == 0 {
            0
        } else {
            rng.gen_range(settings.think_ms.0..=settings.think_ms.1)
        };
        let mv = legal_moves[rng.gen_range(0..legal_moves.len())].clone();
        // A player never sends faster than the server's message rate lets one connection.
        let due =
            (at + Duration::from_millis(think)).max(last_sent[seat].map_or(at, |t| t + MIN_GAP));
        scheduled = Some((due, seat, version, mv));
    }
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

/// Reads back each table's stored events and compares them with the acknowledged moves:
/// `(checked, missing, doubled or misplaced)`.
async fn check_stored(
    url: &str,
    acked: &HashMap<String, Vec<(u64, String)>>,
    addresses: &AtomicU32,
    spread: bool,
) -> Result<(u64, u64, u64), String> {
    let (mut checked, mut missing, mut wrong) = (0, 0, 0);
    let mut client = http_client(None)?;
    for (i, (table, moves)) in acked.iter().enumerate() {
        // Spread the reads too: the per-address request limit applies to them (a new address
        // for every 50 tables, well within its burst).
        if spread && i % 50 == 0 {
            client = http_client(Some(next_address(addresses)))?;
        }
        let events: Vec<serde_json::Value> = client
            .get(format!("{url}/api/tables/{table}/events"))
            .send()
            .await
            .map_err(|e| format!("events of {table}: {e}"))?
            .json()
            .await
            .map_err(|e| format!("events of {table}: {e}"))?;
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
    let url = settings.url.trim_end_matches('/').to_owned();
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
    let all = settings.games + settings.computer_games;
    let mut tasks = Vec::with_capacity(all);
    for slot in 0..all {
        // The computer tables first, so they are running when the human games are measured.
        let computer = (slot < settings.computer_games).then_some(settings.computer_level);
        tasks.push(tokio::spawn(game_slot(
            slot,
            computer,
            settings.clone(),
            totals.clone(),
            addresses.clone(),
            deadline,
        )));
        // Start the games over the first seconds rather than all in one instant.
        if all > 50 && slot % 50 == 49 {
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
    let (checked, missing, doubled) = check_stored(&url, &acked, &addresses, settings.spread)
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
    if settings.computer_games > 0 {
        writeln!(
            out,
            "computer tables: {} at once (level {}), {} started, {} ended, {} computer moves",
            settings.computer_games,
            settings.computer_level,
            totals.computer_games_started.load(Ordering::Relaxed),
            totals.computer_games_ended.load(Ordering::Relaxed),
            totals.computer_moves.load(Ordering::Relaxed)
        )?;
        writeln!(
            out,
            "ack at computer tables: {}",
            lock(&totals.computer_ack).summary()
        )?;
    }
    writeln!(
        out,
        "acks over {} ms, by the second their move was sent: {}",
        SLOW_ACK_MICROS / 1000,
        totals.slow_summary()
    )?;
    let errors = lock(&totals.errors);
    let mut errors: Vec<_> = errors.iter().collect();
    errors.sort();
    let total_errors: u64 = errors.iter().map(|(_, n)| **n).sum();
    writeln!(out, "errors: {total_errors}")?;
    for (what, n) in errors {
        writeln!(out, "  {n} x {what}")?;
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
