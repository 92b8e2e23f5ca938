//! A whole run: the servers' health, the games for the run's duration, the memory and load
//! sampled meanwhile, the store's check, the report and its verdict.

use crate::check::check_stored;
use crate::computer::computer_slot;
use crate::error::LoadError;
use crate::game::game_slot;
use crate::machine::{cpu_seconds, load_average, own_cpu_seconds, rss_kib, tree_cpu_seconds};
use crate::report::{write_report, CpuWindow, Measures};
use crate::settings::LoadSettings;
use crate::setup::http_client;
use crate::stats::{lock, Totals};
use std::io::Write;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Runs the load test on a runtime of its own and writes its report to `out` (the lines of
/// `docs/performance.md`).
///
/// # Errors
/// - [`LoadError::Input`]: no URL, a server that does not answer `GET /api/health` with
///   success, or a `--server-pid` (or `--db-pid`) with no process to measure (before any
///   game starts);
/// - [`LoadError::Failed`]: a table's stored events could not be read back, an acknowledged
///   move is not stored exactly once, or the games met errors (after the report);
/// - [`LoadError::Io`]: the runtime could not start, or the report could not be written.
pub fn run(settings: LoadSettings, out: &mut impl Write) -> Result<(), LoadError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_async(settings, out))
}

async fn run_async(settings: LoadSettings, out: &mut impl Write) -> Result<(), LoadError> {
    let settings = Arc::new(settings);
    let totals = Arc::new(Totals::default());
    let addresses = Arc::new(AtomicU32::new(0));
    if settings.urls.is_empty() {
        return Err(LoadError::Input("no --url to play against".to_owned()));
    }
    for url in &settings.urls {
        let health = http_client(None)
            .map_err(LoadError::Input)?
            .get(format!("{url}/api/health"))
            .send()
            .await
            .map_err(|e| LoadError::Input(format!("the server at {url} does not answer: {e}")))?;
        if !health.status().is_success() {
            return Err(LoadError::Input(format!(
                "{url}/api/health: http {}",
                health.status().as_u16()
            )));
        }
    }
    if let Some(arena) = settings.arena.clone() {
        return crate::arena::run_arena(settings, &arena, out).await;
    }
    let mut rss_before_kib = None;
    for &pid in &settings.server_pids {
        let kib = rss_kib(pid).ok_or_else(|| {
            LoadError::Input(format!("--server-pid {pid}: no such process to measure"))
        })?;
        rss_before_kib = Some(rss_before_kib.unwrap_or(0) + kib);
    }
    if let Some(pid) = settings.db_pid {
        if tree_cpu_seconds(pid).is_none() {
            return Err(LoadError::Input(format!(
                "--db-pid {pid}: no such process to measure"
            )));
        }
    }
    // The idle connections first (their memory measured before the games add theirs); they
    // are held to the end of the run.
    let idle = if settings.idle > 0 {
        let held_until = Instant::now() + settings.duration;
        Some(
            crate::crowd::hold_idle(&settings, &addresses, held_until)
                .await
                .map_err(LoadError::Failed)?,
        )
    } else {
        None
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
    let spectators = (settings.spectators > 0).then(|| {
        tokio::spawn(crate::crowd::spectate(
            settings.clone(),
            totals.clone(),
            addresses.clone(),
            deadline,
        ))
    });
    // Sample the memory and the load while the games run.
    let sampler = {
        let pids = settings.server_pids.clone();
        tokio::spawn(async move {
            let mut peak = 0u64;
            let mut loads = Vec::new();
            // Every 5 s, and once at the end of a shorter run.
            loop {
                let wait =
                    Duration::from_secs(5).min(deadline.saturating_duration_since(Instant::now()));
                tokio::time::sleep(wait).await;
                // The nodes' memory at the same moment, summed.
                let kib: Option<u64> = pids.iter().map(|&p| rss_kib(p)).sum();
                if let Some(kib) = kib.filter(|_| !pids.is_empty()) {
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
    // The processor time of the server and of the load test from the warm-up's end to the
    // deadline (the window the latencies and the bytes are measured in).
    let cpu = {
        let pids = settings.server_pids.clone();
        let db = settings.db_pid;
        let from = begin + settings.warmup.min(settings.duration);
        tokio::spawn(async move {
            tokio::time::sleep_until(from).await;
            let at = Instant::now();
            let servers: Vec<Option<f64>> = pids.iter().map(|&p| cpu_seconds(p)).collect();
            let database = db.and_then(tree_cpu_seconds);
            let own = own_cpu_seconds();
            tokio::time::sleep_until(deadline).await;
            CpuWindow {
                seconds: at.elapsed().as_secs_f64(),
                servers: pids
                    .iter()
                    .zip(servers)
                    .filter_map(|(&p, a)| Some((p, cpu_seconds(p)? - a?)))
                    .collect(),
                database: database
                    .zip(db.and_then(tree_cpu_seconds))
                    .map(|(a, b)| b - a),
                own: own.zip(own_cpu_seconds()).map(|(a, b)| b - a),
            }
        })
    };
    for t in tasks {
        let _ = t.await;
    }
    let cpu = cpu.await.ok();
    let elapsed_s = begin.elapsed().min(settings.duration).as_secs_f64();
    let (peak_kib, loads) = sampler.await.unwrap_or_default();
    let acked = std::mem::take(&mut *lock(&totals.acked));
    let stored = check_stored(&settings, &totals, &acked, &addresses)
        .await
        .map_err(LoadError::Failed)?;
    let measures = Measures {
        elapsed_s,
        rss_before_kib,
        peak_kib,
        loads,
        stored,
        cpu,
    };
    let total_errors = write_report(&settings, &totals, &measures, out)?;
    if let Some(idle) = &idle {
        for line in crate::crowd::idle_lines(idle) {
            writeln!(out, "{line}")?;
        }
    }
    if let Some(task) = spectators {
        if let Ok(mut seen) = task.await {
            for line in crate::crowd::spectator_lines(&mut seen) {
                writeln!(out, "{line}")?;
            }
        }
    }
    if stored.missing > 0 || stored.doubled > 0 {
        return Err(LoadError::Failed(format!(
            "{} acknowledged moves missing and {} doubled in the store",
            stored.missing, stored.doubled
        )));
    }
    if total_errors > 0 {
        return Err(LoadError::Failed(format!(
            "{total_errors} errors (listed above)"
        )));
    }
    Ok(())
}
