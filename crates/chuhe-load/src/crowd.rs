//! Connections that do not play (`--idle N`, `--spectators N`): what holding many sockets costs
//! the server in memory, and how long one table's update takes to reach a crowd of watchers.
//!
//! - **Idle connections**: before the games begin, one guest makes an open table (nobody sits
//!   at it and no game starts) and `N` connections watch it, each from its own loopback address
//!   and without a session, as a visitor's browser would. Each reads its first `state` and then
//!   keeps reading (so the connection answers the server's pings) until the run's deadline. The
//!   server's memory (`VmRSS` of `--server-pid`, summed) is read before the first connects and
//!   2 s after the last has its `state`: the difference over `N` is the memory per held
//!   connection.
//! - **Spectators**: `N` connections, likewise without a session, watch the table of the
//!   run's first game (game slot 0's first table) from when it is made. For each update they
//!   receive after the first `state` of every one of them (so that each update counted reaches
//!   them all), the time of its arrival at each spectator is compared with its first arrival at
//!   any of them: the *fan-out spread*, how much later the last watchers see a move than the
//!   first. They read until a second after the deadline (the updates of the last moves). The run's acks and hand-overs, measured as always, show what the crowd costs the
//!   players.

use crate::settings::LoadSettings;
use crate::setup::{new_guest, new_table, next_address, Failure, Player};
use crate::socket::{open, Reader};
use crate::stats::{lock, Samples, Totals};
use chuhe_rules::Variant;
use futures_util::StreamExt;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// At most this many connections are being opened at once.
const OPENING_AT_ONCE: usize = 100;

/// The first two fields of a server message.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    version: Option<u64>,
}

/// What the idle connections measured.
#[derive(Debug, Default)]
pub(crate) struct IdleReport {
    /// Connections asked for.
    pub(crate) asked: usize,
    /// Connections that got their `state`.
    pub(crate) connected: usize,
    /// Connections that failed to open, by what happened.
    pub(crate) failures: HashMap<String, u64>,
    /// The server's memory before and after, KiB (with `--server-pid`).
    pub(crate) rss_kib: Option<(u64, u64)>,
    /// How long opening them all took.
    pub(crate) seconds: f64,
}

/// What the spectators saw.
#[derive(Debug, Default)]
pub(crate) struct SpectatorReport {
    /// Spectators asked for.
    pub(crate) asked: usize,
    /// Spectators that got their `state`.
    pub(crate) connected: usize,
    /// The table they watched.
    pub(crate) table: Option<String>,
    /// Updates seen by at least one spectator.
    pub(crate) versions: usize,
    /// Arrivals of updates at spectators.
    pub(crate) arrivals: u64,
    /// Each arrival's delay after the update's first arrival at any spectator, µs.
    pub(crate) spread: Samples,
    /// Per update, its last arrival after its first, µs.
    pub(crate) last: Samples,
    /// Connections that failed to open, by what happened.
    pub(crate) failures: HashMap<String, u64>,
}

/// A watcher without a session, from the next loopback address (when spreading).
fn visitor(settings: &LoadSettings, addresses: &AtomicU32) -> Player {
    Player {
        address: settings.spread.then(|| next_address(addresses)),
        cookie: String::new(),
    }
}

/// Opens a watcher's connection to `table` and reads until its first `state`: the reader and
/// the state's version.
async fn watch(url: &str, table: &str, player: &Player) -> Result<(Reader, u64), String> {
    let (_writer, mut reader) = open(url, table, None, player)
        .await
        .map_err(|f: Failure| f.message)?;
    loop {
        match reader.next().await {
            Some(Ok(Message::Text(text))) => {
                if let Ok(head) = serde_json::from_str::<Head>(&text) {
                    if head.kind == "state" {
                        // The writer half is dropped: the reader keeps the socket open.
                        return Ok((reader, head.version.unwrap_or(0)));
                    }
                    if head.kind == "error" {
                        return Err(format!("refused: {text}"));
                    }
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("read: {e}")),
            None => return Err("closed before its state".to_owned()),
        }
    }
}

/// Opens `n` watchers of `table` through `url`, [`OPENING_AT_ONCE`] at a time: the readers of
/// those that got their `state` with its version, and the failures by message.
async fn open_many(
    settings: &LoadSettings,
    addresses: &AtomicU32,
    url: &str,
    table: &str,
    n: usize,
) -> (Vec<(Reader, u64)>, HashMap<String, u64>) {
    let mut readers = Vec::with_capacity(n);
    let mut failures: HashMap<String, u64> = HashMap::new();
    let mut opening = futures_util::stream::iter((0..n).map(|_| {
        let player = visitor(settings, addresses);
        async move { watch(url, table, &player).await }
    }))
    .buffer_unordered(OPENING_AT_ONCE);
    while let Some(result) = opening.next().await {
        match result {
            Ok(reader) => readers.push(reader),
            Err(e) => *failures.entry(e).or_default() += 1,
        }
    }
    (readers, failures)
}

/// Opens the idle connections (`settings.idle` of them) and keeps them reading until
/// `deadline`; returns once all are open (and the memory read).
pub(crate) async fn hold_idle(
    settings: &Arc<LoadSettings>,
    addresses: &Arc<AtomicU32>,
    deadline: Instant,
) -> Result<IdleReport, String> {
    let url = settings.urls[0].clone();
    let maker = new_guest(
        &url,
        settings.spread.then(|| next_address(addresses)),
        "idle",
    )
    .await
    .map_err(|f| format!("idle connections: {}", f.message))?;
    let table = new_table(&url, &maker, Variant::Xiangqi, settings.time)
        .await
        .map_err(|f| format!("idle connections: {}", f.message))?;
    let rss = || -> Option<u64> {
        let pids = &settings.server_pids;
        let kib: Option<u64> = pids.iter().map(|&p| crate::machine::rss_kib(p)).sum();
        kib.filter(|_| !pids.is_empty())
    };
    let before = rss();
    let began = Instant::now();
    let (readers, failures) = open_many(settings, addresses, &url, &table, settings.idle).await;
    let seconds = began.elapsed().as_secs_f64();
    let connected = readers.len();
    for (mut reader, _) in readers {
        tokio::spawn(async move {
            let _ = tokio::time::timeout_at(deadline, async {
                while let Some(Ok(_)) = reader.next().await {}
            })
            .await;
        });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    Ok(IdleReport {
        asked: settings.idle,
        connected,
        failures,
        rss_kib: before.zip(rss()),
        seconds,
    })
}

/// Watches the run's first table with `settings.spectators` connections until `deadline`.
pub(crate) async fn spectate(
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) -> SpectatorReport {
    let mut report = SpectatorReport {
        asked: settings.spectators,
        ..SpectatorReport::default()
    };
    let (url, table) = loop {
        if let Some(watched) = totals.watched.get() {
            break watched.clone();
        }
        if Instant::now() >= deadline {
            return report;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (readers, failures) =
        open_many(&settings, &addresses, &url, &table, settings.spectators).await;
    report.table = Some(table);
    report.connected = readers.len();
    report.failures = failures;
    // Only the updates after every spectator's first state reach them all; they read a second
    // past the deadline, for the updates of the moves sent just before it.
    let floor = readers.iter().map(|(_, v)| *v).max().unwrap_or(0);
    let until = deadline + Duration::from_secs(1);
    // Per version, the arrival at each spectator.
    let seen: Arc<Mutex<HashMap<u64, Vec<Instant>>>> = Arc::default();
    let arrivals = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::with_capacity(readers.len());
    for (mut reader, _) in readers {
        let (seen, arrivals) = (seen.clone(), arrivals.clone());
        tasks.push(tokio::spawn(async move {
            let _ = tokio::time::timeout_at(until, async {
                while let Some(Ok(frame)) = reader.next().await {
                    let at = Instant::now();
                    let Message::Text(text) = frame else { continue };
                    let Ok(head) = serde_json::from_str::<Head>(&text) else {
                        continue;
                    };
                    let Some(v) = head.version.filter(|v| *v > floor) else {
                        continue;
                    };
                    if head.kind == "update" {
                        lock(&seen).entry(v).or_default().push(at);
                        arrivals.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
            .await;
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    report.arrivals = arrivals.load(Ordering::Relaxed);
    let seen = std::mem::take(&mut *lock(&seen));
    report.versions = seen.len();
    for times in seen.values() {
        let Some(first) = times.iter().min() else {
            continue;
        };
        let micros = |t: &Instant| t.duration_since(*first).as_micros() as u64;
        report.spread.0.extend(times.iter().map(micros));
        report
            .last
            .0
            .push(times.iter().map(micros).max().unwrap_or(0));
    }
    report
}

/// The report's lines of the idle connections.
pub(crate) fn idle_lines(r: &IdleReport) -> Vec<String> {
    let mut lines = vec![format!(
        "idle connections: {} of {} held, opened in {:.1} s",
        r.connected, r.asked, r.seconds
    )];
    if let Some((before, after)) = r.rss_kib {
        let per = if r.connected > 0 {
            format!(
                "{:.1} KiB per connection",
                after.saturating_sub(before) as f64 / r.connected as f64
            )
        } else {
            "-".to_owned()
        };
        lines.push(format!(
            "server memory for them: {before} KiB before, {after} KiB after: {per}"
        ));
    }
    lines.extend(failure_lines(&r.failures));
    lines
}

/// The report's lines of the spectators.
pub(crate) fn spectator_lines(r: &mut SpectatorReport) -> Vec<String> {
    let mut lines = vec![format!(
        "spectators: {} of {} watching table {}, {} updates seen, {} arrivals",
        r.connected,
        r.asked,
        r.table.as_deref().unwrap_or("-"),
        r.versions,
        r.arrivals
    )];
    lines.push(format!(
        "fan-out spread (each arrival after the update's first): {}",
        r.spread.summary()
    ));
    lines.push(format!(
        "last spectator after the first, per update: {}",
        r.last.summary()
    ));
    lines.extend(failure_lines(&r.failures));
    lines
}

fn failure_lines(failures: &HashMap<String, u64>) -> Vec<String> {
    let mut f: Vec<_> = failures.iter().collect();
    f.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    f.into_iter()
        .map(|(e, n)| format!("  {n} x not connected: {e}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_say_what_was_measured() {
        let mut r = SpectatorReport {
            asked: 3,
            connected: 2,
            table: Some("t1".to_owned()),
            versions: 2,
            arrivals: 4,
            spread: Samples(vec![0, 1500, 0, 2500]),
            last: Samples(vec![1500, 2500]),
            failures: HashMap::from([("connect: refused".to_owned(), 1)]),
        };
        assert_eq!(
            spectator_lines(&mut r),
            [
                "spectators: 2 of 3 watching table t1, 2 updates seen, 4 arrivals",
                "fan-out spread (each arrival after the update's first): p50 0.0 ms, p90 2.5 ms, p99 2.5 ms, max 2.5 ms (4 samples)",
                "last spectator after the first, per update: p50 1.5 ms, p90 2.5 ms, p99 2.5 ms, max 2.5 ms (2 samples)",
                "  1 x not connected: connect: refused",
            ]
        );
        let idle = IdleReport {
            asked: 1000,
            connected: 1000,
            failures: HashMap::new(),
            rss_kib: Some((50_000, 80_000)),
            seconds: 1.5,
        };
        assert_eq!(
            idle_lines(&idle),
            [
                "idle connections: 1000 of 1000 held, opened in 1.5 s",
                "server memory for them: 50000 KiB before, 80000 KiB after: 30.0 KiB per connection",
            ]
        );
    }
}
