//! `chuhe loadtest --arena-players N`: N accounts in one arena (`docs/tournaments.md`). Each
//! player is an account (made with `POST /api/accounts`, or signed in when the name is taken
//! from an earlier run), from a loopback address of its own; the first creates the arena
//! (unless `--arena-id` names one), everyone joins it, follows its event stream
//! (`GET /api/stream/event`) and plays every game the arena pairs it into (`gameStart` with
//! the arena's `tournamentId`) on the table's WebSocket, a random legal move after each think
//! time, until the game ends. Meanwhile the arena's page (`GET /api/tournament/{id}`) is read
//! every 500 ms, and each new pairing wave the server reports (its `wave`: the games made, the
//! time the rules took to pair, the time to seat them) is printed and measured.

use crate::choice::next_move;
use crate::error::LoadError;
use crate::machine::load_average;
use crate::settings::LoadSettings;
use crate::setup::{http_client, next_address, Player};
use crate::socket::{open, send, spawn_reader, Note, Report};
use crate::stats::lock;
use crate::wire::{self, changes, Incoming, IncomingEvent};
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};
use tokio::time::Instant;

/// The password of the load test's accounts (they exist only on a test server).
const PASSWORD: &str = "chuhe-load-arena";
/// Accounts made at once (each costs the server one password hash).
const MAKING_AT_ONCE: usize = 16;

/// What an arena run asks (part of [`LoadSettings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaLoad {
    /// How many players join.
    pub players: usize,
    /// The arena to join; `None`: the first player creates one.
    pub id: Option<String>,
    /// The length of the arena created, minutes (10 to 180).
    pub minutes: u32,
}

/// One wave as the server reported it.
#[derive(Debug, Clone, Copy)]
struct Wave {
    n: u64,
    games: u64,
    pairing_ms: f64,
    seating_ms: f64,
}

/// What the players count together.
#[derive(Default)]
struct Counts {
    joined: AtomicU64,
    games: AtomicU64,
    ended: AtomicU64,
    moves: AtomicU64,
    errors: Mutex<Vec<String>>,
}

impl Counts {
    fn error(&self, what: String) {
        let mut errors = lock(&self.errors);
        if errors.len() < 20 {
            errors.push(what);
        }
    }
}

/// The `chuhe_session=...` pair of an answer.
fn cookie_of(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("chuhe_session="))
        .map(str::to_owned)
}

/// The account `name` signed in from `address`: made, or (taken by an earlier run) signed in.
async fn account(
    url: &str,
    address: Option<std::net::IpAddr>,
    name: &str,
) -> Result<Player, String> {
    let client = http_client(address)?;
    let body = serde_json::json!({"name": name, "password": PASSWORD});
    for route in ["accounts", "login"] {
        let response = client
            .post(format!("{url}/api/{route}"))
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("{route} {name}: {e}"))?;
        if response.status().is_success() {
            let cookie =
                cookie_of(&response).ok_or_else(|| format!("{route} {name}: no cookie"))?;
            return Ok(Player { address, cookie });
        }
        if response.status().as_u16() != 409 {
            return Err(format!(
                "{route} {name}: http {}",
                response.status().as_u16()
            ));
        }
    }
    Err(format!("account {name}: neither made nor signed in"))
}

/// `POST url/path` as `player` with a form body: the JSON answer.
async fn post_form(url: &str, path: &str, player: &Player, form: &str) -> Result<Value, String> {
    let response = http_client(player.address)?
        .post(format!("{url}{path}"))
        .header(reqwest::header::COOKIE, &player.cookie)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(form.to_owned())
        .send()
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if status == 200 {
        Ok(body)
    } else {
        Err(format!("{path}: http {status} {body}"))
    }
}

/// Plays the table `table` as `player` (seated by the arena): a random legal move after each
/// think time whenever the server sends this seat its legal moves, until the game ends or the
/// deadline.
async fn play_table(
    url: String,
    table: String,
    player: Player,
    settings: Arc<LoadSettings>,
    counts: Arc<Counts>,
    deadline: Instant,
    seed: u64,
) {
    let (mut writer, reader) = match open(&url, &table, None, &player).await {
        Ok(pair) => pair,
        Err(e) => {
            counts.error(format!("table {table}: {}", e.message));
            return;
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<Note>();
    spawn_reader(reader, 0, 0, tx, None);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut last_sent = None;
    loop {
        let note = tokio::select! {
            note = rx.recv() => note,
            () = tokio::time::sleep_until(deadline) => return,
        };
        let Some(note) = note else { return };
        let message = match note.report {
            Report::Message(m) => m,
            _ => return,
        };
        let (version, legal, ended) = match message {
            Incoming::State {
                version,
                legal_moves,
                table,
            } => (version, legal_moves, table.phase == "ended"),
            Incoming::Error { code, message } => {
                counts.error(format!("table {table}: {code} {message}"));
                continue;
            }
            other => match changes(other) {
                Some((events, legal, version)) => {
                    let ended = events
                        .iter()
                        .any(|(_, e)| matches!(e, IncomingEvent::Ended {}));
                    (version, legal, ended)
                }
                None => continue,
            },
        };
        if ended {
            counts.ended.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if legal.is_empty() {
            continue;
        }
        let (due, mv) = next_move(&settings, &mut rng, &legal, note.at, last_sent);
        tokio::time::sleep_until(due).await;
        last_sent = Some(Instant::now());
        if send(&mut writer, &wire::play(version, mv)).await.is_err() {
            counts.error(format!("table {table}: the connection closed"));
            return;
        }
        counts.moves.fetch_add(1, Ordering::Relaxed);
    }
}

/// Follows `player`'s event stream and plays each game of the arena `id` it is paired into.
async fn follow(
    url: String,
    id: String,
    player: Player,
    settings: Arc<LoadSettings>,
    counts: Arc<Counts>,
    deadline: Instant,
    seed: u64,
) {
    let client = match reqwest::Client::builder()
        .local_address(player.address)
        .build()
    {
        Ok(c) => c,
        Err(e) => return counts.error(format!("event stream: {e}")),
    };
    let response = match client
        .get(format!("{url}/api/stream/event"))
        .header(reqwest::header::COOKIE, &player.cookie)
        .send()
        .await
    {
        Ok(r) if r.status().is_success() => r,
        Ok(r) => return counts.error(format!("event stream: http {}", r.status().as_u16())),
        Err(e) => return counts.error(format!("event stream: {e}")),
    };
    let mut response = response;
    let mut pending = Vec::<u8>::new();
    let mut games = 0u64;
    loop {
        let chunk = tokio::select! {
            chunk = response.chunk() => chunk,
            () = tokio::time::sleep_until(deadline) => return,
        };
        let Ok(Some(chunk)) = chunk else { return };
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let Ok(event) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            if event["type"] != "gameStart" || event["game"]["tournamentId"] != id.as_str() {
                continue;
            }
            let Some(table) = event["game"]["id"].as_str() else {
                continue;
            };
            games += 1;
            counts.games.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(play_table(
                url.clone(),
                table.to_owned(),
                player.clone(),
                settings.clone(),
                counts.clone(),
                deadline,
                seed.wrapping_add(games),
            ));
        }
    }
}

/// The `p`-th percentile (0 to 100) of sorted `values`.
fn percentile(values: &[f64], p: usize) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let i = ((values.len() - 1) * p).div_ceil(100);
    values[i.min(values.len() - 1)]
}

/// Runs an arena load test ([`ArenaLoad`]) and writes its report to `out`.
///
/// # Errors
/// [`LoadError::Failed`] when the arena could not be created or joined, or no wave was paired;
/// [`LoadError::Io`] when the report could not be written.
pub(crate) async fn run_arena(
    settings: Arc<LoadSettings>,
    arena: &ArenaLoad,
    out: &mut impl Write,
) -> Result<(), LoadError> {
    let url = settings.urls[0].clone();
    let addresses = Arc::new(AtomicU32::new(0));
    let counts = Arc::new(Counts::default());
    let begin = Instant::now();
    // The accounts, a few at once (each is one password hash on the server).
    let making = Arc::new(Semaphore::new(MAKING_AT_ONCE));
    let mut made = Vec::with_capacity(arena.players);
    for i in 0..arena.players {
        let address = settings.spread.then(|| next_address(&addresses));
        let name = format!("ld{}p{i}", settings.seed);
        let url = url.clone();
        let making = making.clone();
        made.push(tokio::spawn(async move {
            let _turn = making.acquire_owned().await;
            account(&url, address, &name).await
        }));
    }
    let mut players = Vec::with_capacity(arena.players);
    for m in made {
        match m.await {
            Ok(Ok(p)) => players.push(p),
            Ok(Err(e)) => counts.error(e),
            Err(e) => counts.error(format!("account task: {e}")),
        }
    }
    writeln!(
        out,
        "accounts: {} of {} in {:.1} s",
        players.len(),
        arena.players,
        begin.elapsed().as_secs_f64()
    )?;
    let Some(first) = players.first().cloned() else {
        return Err(LoadError::Failed("no account could be made".to_owned()));
    };
    let id = match &arena.id {
        Some(id) => id.clone(),
        None => {
            let (limit_ms, increment_ms) = settings.time.unwrap_or((60_000, 0));
            let variant = settings.variants.first().map_or("xiangqi", |v| v.as_str());
            // starts once everyone has had a few seconds to join
            let start = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
                + 5000;
            let form = format!(
                "name=Load+{}&variant={variant}&clockTime={}&clockIncrement={}&minutes={}&startDate={start}&rated=false&berserkable=false",
                settings.seed,
                limit_ms as f64 / 60_000.0,
                increment_ms / 1000,
                arena.minutes
            );
            let created = post_form(&url, "/api/tournament", &first, &form)
                .await
                .map_err(LoadError::Failed)?;
            created["id"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| LoadError::Failed(format!("no arena id in {created}")))?
        }
    };
    let deadline = Instant::now() + settings.duration;
    // Everyone joins, then follows their games.
    let mut joins = Vec::with_capacity(players.len());
    for (i, player) in players.iter().enumerate() {
        let (url, id, player) = (url.clone(), id.clone(), player.clone());
        let (settings, counts) = (settings.clone(), counts.clone());
        joins.push(tokio::spawn(async move {
            match post_form(&url, &format!("/api/tournament/{id}/join"), &player, "").await {
                Ok(_) => {
                    counts.joined.fetch_add(1, Ordering::Relaxed);
                    follow(
                        url,
                        id,
                        player,
                        settings.clone(),
                        counts,
                        deadline,
                        settings.seed ^ (i as u64) << 20,
                    )
                    .await;
                }
                Err(e) => counts.error(e),
            }
        }));
    }
    writeln!(out, "arena: {id} ({url}/api/tournament/{id})")?;
    // The waves, as the server reports them.
    let reader = http_client(None).map_err(LoadError::Input)?;
    let mut waves: Vec<Wave> = Vec::new();
    let mut loads = Vec::new();
    let mut next_load = Instant::now();
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if Instant::now() >= next_load {
            loads.push(load_average());
            next_load += Duration::from_secs(5);
        }
        let Ok(response) = reader
            .get(format!("{url}/api/tournament/{id}"))
            .send()
            .await
        else {
            continue;
        };
        let Ok(view) = response.json::<Value>().await else {
            continue;
        };
        let wave = &view["wave"];
        let Some(n) = wave["n"].as_u64() else {
            continue;
        };
        if waves.last().is_some_and(|w| w.n >= n) {
            continue;
        }
        let w = Wave {
            n,
            games: wave["games"].as_u64().unwrap_or(0),
            pairing_ms: wave["pairingMs"].as_f64().unwrap_or(0.0),
            seating_ms: wave["seatingMs"].as_f64().unwrap_or(0.0),
        };
        writeln!(
            out,
            "wave {}: {} games, pairing {:.3} ms, seating {:.0} ms ({} players in the arena, {} joined)",
            w.n,
            w.games,
            w.pairing_ms,
            w.seating_ms,
            view["nbPlayers"],
            counts.joined.load(Ordering::Relaxed)
        )?;
        waves.push(w);
    }
    for j in joins {
        j.abort();
    }
    let mut pairing: Vec<f64> = waves.iter().map(|w| w.pairing_ms).collect();
    pairing.sort_by(f64::total_cmp);
    let mut seating: Vec<f64> = waves.iter().map(|w| w.seating_ms).collect();
    seating.sort_by(f64::total_cmp);
    let games: u64 = waves.iter().map(|w| w.games).sum();
    writeln!(
        out,
        "players: {} joined of {}",
        counts.joined.load(Ordering::Relaxed),
        arena.players
    )?;
    writeln!(
        out,
        "waves: {} seen ({} games), pairing ms p50 {:.3} max {:.3}, seating ms p50 {:.0} max {:.0}",
        waves.len(),
        games,
        percentile(&pairing, 50),
        pairing.last().copied().unwrap_or(0.0),
        percentile(&seating, 50),
        seating.last().copied().unwrap_or(0.0)
    )?;
    writeln!(
        out,
        "games played: {} started, {} ended, {} moves",
        counts.games.load(Ordering::Relaxed),
        counts.ended.load(Ordering::Relaxed),
        counts.moves.load(Ordering::Relaxed)
    )?;
    writeln!(out, "load average: {}", loads.join(" | "))?;
    let errors = lock(&counts.errors).clone();
    for e in &errors {
        writeln!(out, "error: {e}")?;
    }
    if waves.is_empty() {
        return Err(LoadError::Failed("no pairing wave was reported".to_owned()));
    }
    Ok(())
}
