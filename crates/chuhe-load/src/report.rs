//! The report `chuhe loadtest` prints: plain lines, one fact each (`docs/performance.md` quotes
//! them).

use crate::check::Stored;
use crate::settings::LoadSettings;
use crate::stats::{lock, Totals, SLOW_ACK_MICROS};
use std::io::{self, Write};
use std::sync::atomic::Ordering;

/// What the run measured besides the [`Totals`].
pub(crate) struct Measures {
    /// How long the games ran, in seconds (at most the run's duration).
    pub(crate) elapsed_s: f64,
    /// The server's memory before the games, KiB (with `--server-pid`).
    pub(crate) rss_before_kib: Option<u64>,
    /// The server's largest memory seen while they ran, KiB (0: never read).
    pub(crate) peak_kib: u64,
    /// The one-minute load averages read every 5 s.
    pub(crate) loads: Vec<String>,
    /// What the store showed of the acknowledged moves.
    pub(crate) stored: Stored,
    /// The processor time used after the warm-up, if the window was measured.
    pub(crate) cpu: Option<CpuWindow>,
}

/// Processor time over the window from the warm-up's end to the run's deadline.
#[derive(Debug, Clone)]
pub(crate) struct CpuWindow {
    /// The window's length, in seconds of wall time.
    pub(crate) seconds: f64,
    /// Each server's processor time in it, user and system, seconds, by process id (with
    /// `--server-pid`, once per node).
    pub(crate) servers: Vec<(u32, f64)>,
    /// The database server's (its main process and its children), seconds (with `--db-pid`).
    pub(crate) database: Option<f64>,
    /// The load test's own processor time in it, seconds.
    pub(crate) own: Option<f64>,
}

/// Writes the report of a run to `out`: the games, the moves and their rate, the latencies,
/// the slow acks, the games against the computer (if any), the errors, the reconnections (with
/// `--reconnect`), the server's memory (with `--server-pid`), the load, the store's check.
/// Returns the number of errors.
///
/// # Errors
/// Writing to `out` failed.
pub(crate) fn write_report(
    settings: &LoadSettings,
    totals: &Totals,
    measures: &Measures,
    out: &mut impl Write,
) -> io::Result<u64> {
    let moves = totals.moves.load(Ordering::Relaxed);
    let elapsed = measures.elapsed_s;
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
        write_reconnects(totals, out)?;
    }
    if let (Some(before), true) = (measures.rss_before_kib, measures.peak_kib > 0) {
        let tables = settings.games.max(1) as u64;
        writeln!(
            out,
            "server memory: {before} KiB before, {} KiB at the peak: {} KiB per table",
            measures.peak_kib,
            measures.peak_kib.saturating_sub(before) / tables
        )?;
    }
    write_costs(totals, measures.cpu.as_ref(), out)?;
    writeln!(
        out,
        "load average (1 min, every 5 s): {}",
        measures.loads.join(" ")
    )?;
    let Stored {
        checked,
        missing,
        doubled,
    } = measures.stored;
    writeln!(
        out,
        "stored: {checked} acknowledged moves checked, {missing} missing, {doubled} doubled"
    )?;
    Ok(total_errors)
}

/// The costs per move after the warm-up: the server's and the load test's processor time
/// (issue 32's goal: at most 100 µs of server time per move), and the bytes the server sent per
/// move and connection (goal: at most 300). Only the games between people count: their moves,
/// and the messages their connections read.
///
/// Every figure per move divides by this load test's moves, which the `server cpu` line says:
/// when several load tests play against the same server at once, each sees the server's whole
/// processor time but only its own moves, so its figure is too high by the share of the others'
/// moves (`scripts/loadtest-combine` divides the time by the moves of all of them).
fn write_costs(totals: &Totals, cpu: Option<&CpuWindow>, out: &mut impl Write) -> io::Result<()> {
    let moves = totals.measured_moves.load(Ordering::Relaxed);
    let per_move = |seconds: f64| {
        if moves == 0 {
            "-".to_owned()
        } else {
            format!("{:.0} µs per move", seconds * 1e6 / moves as f64)
        }
    };
    if let Some(cpu) = cpu {
        let share = |seconds: f64| 100.0 * seconds / cpu.seconds.max(f64::MIN_POSITIVE);
        if !cpu.servers.is_empty() {
            let server: f64 = cpu.servers.iter().map(|(_, s)| s).sum();
            writeln!(
                out,
                "server cpu: {server:.2} s in {:.1} s ({:.0} % of a core), {moves} moves of this \
                 loadtest: {}",
                cpu.seconds,
                share(server),
                per_move(server)
            )?;
        }
        if cpu.servers.len() > 1 {
            for (pid, seconds) in &cpu.servers {
                writeln!(
                    out,
                    "  server {pid}: {seconds:.2} s ({:.0} % of a core): {}",
                    share(*seconds),
                    per_move(*seconds)
                )?;
            }
        }
        if let Some(db) = cpu.database {
            writeln!(
                out,
                "database cpu: {db:.2} s in {:.1} s ({:.0} % of a core): {}",
                cpu.seconds,
                share(db),
                per_move(db)
            )?;
        }
        if let Some(own) = cpu.own {
            writeln!(
                out,
                "loadtest cpu: {own:.2} s in {:.1} s ({:.0} % of a core): {}",
                cpu.seconds,
                share(own),
                per_move(own)
            )?;
        }
    }
    let bytes = totals.bytes_in.load(Ordering::Relaxed);
    let messages = totals.messages_in.load(Ordering::Relaxed);
    let deliveries = totals.deliveries.load(Ordering::Relaxed);
    if deliveries > 0 {
        writeln!(
            out,
            "from the server: {:.0} B per move per connection ({bytes} B in {messages} messages; \
             {moves} moves, {deliveries} move-connections)",
            bytes as f64 / deliveries as f64
        )?;
    }
    Ok(())
}

/// The `--reconnect` lines of the report: the reconnections and the longest time a seat was
/// without a connection, the failed tries by what happened, the moves a loss left in doubt.
fn write_reconnects(totals: &Totals, out: &mut impl Write) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use chuhe_rules::Variant;
    use std::time::Duration;

    fn settings() -> LoadSettings {
        LoadSettings {
            urls: vec!["http://127.0.0.1:8080".to_owned()],
            games: 4,
            duration: Duration::from_secs(10),
            think_ms: (0, 0),
            variants: vec![Variant::Xiangqi],
            time: None,
            spread: true,
            server_pids: Vec::new(),
            db_pid: None,
            table_url: None,
            seed: 1,
            warmup: Duration::ZERO,
            reconnect: false,
            computer_games: 0,
            computer_level: 8,
            arena: None,
            spectators: 0,
            idle: 0,
        }
    }

    fn measures(stored: Stored) -> Measures {
        Measures {
            elapsed_s: 10.0,
            rss_before_kib: None,
            peak_kib: 0,
            loads: vec!["0.50".to_owned(), "0.75".to_owned()],
            stored,
            cpu: None,
        }
    }

    /// 2,000 moves in 20 s; the server used 0.4 s and the load test 1 s; 1,250,000 bytes
    /// over 5,000 move-connections (sanguo's three seats among two-seat games).
    #[test]
    fn the_costs_per_move() {
        let totals = Totals::default();
        totals.measured_moves.store(2_000, Ordering::Relaxed);
        totals.deliveries.store(5_000, Ordering::Relaxed);
        totals.bytes_in.store(1_250_000, Ordering::Relaxed);
        totals.messages_in.store(5_100, Ordering::Relaxed);
        let cpu = CpuWindow {
            seconds: 20.0,
            servers: vec![(41, 0.4)],
            database: None,
            own: Some(1.0),
        };
        let mut out = Vec::new();
        write_costs(&totals, Some(&cpu), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "server cpu: 0.40 s in 20.0 s (2 % of a core), 2000 moves of this loadtest: 200 µs \
             per move\n\
             loadtest cpu: 1.00 s in 20.0 s (5 % of a core): 500 µs per move\n\
             from the server: 250 B per move per connection (1250000 B in 5100 messages; 2000 \
             moves, 5000 move-connections)\n"
        );
        // Two nodes and the database: the sum, each node, the database.
        let cluster = CpuWindow {
            servers: vec![(41, 0.3), (42, 0.1)],
            database: Some(0.2),
            ..cpu.clone()
        };
        let mut out = Vec::new();
        write_costs(&totals, Some(&cluster), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().take(4).collect();
        assert_eq!(
            lines,
            [
                "server cpu: 0.40 s in 20.0 s (2 % of a core), 2000 moves of this loadtest: \
                 200 µs per move",
                "  server 41: 0.30 s (2 % of a core): 150 µs per move",
                "  server 42: 0.10 s (0 % of a core): 50 µs per move",
                "database cpu: 0.20 s in 20.0 s (1 % of a core): 100 µs per move",
            ]
        );
        // Without a server pid or moves: no server line, no division by zero.
        let idle = Totals::default();
        let mut out = Vec::new();
        let cpu = CpuWindow {
            servers: Vec::new(),
            ..cpu
        };
        write_costs(&idle, Some(&cpu), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "loadtest cpu: 1.00 s in 20.0 s (5 % of a core): -\n"
        );
    }

    #[test]
    fn the_report_of_a_plain_run() {
        let totals = Totals::default();
        totals.games_started.store(6, Ordering::Relaxed);
        totals.games_ended.store(2, Ordering::Relaxed);
        totals.moves.store(25, Ordering::Relaxed);
        lock(&totals.ack).0.extend([2_000, 4_000]);
        totals.error("rate_limited: too many messages");
        totals.error("rate_limited: too many messages");
        totals.error("stale: the position changed");
        let stored = Stored {
            checked: 25,
            missing: 0,
            doubled: 0,
        };
        let mut out = Vec::new();
        let errors = write_report(&settings(), &totals, &measures(stored), &mut out).unwrap();
        assert_eq!(errors, 3);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "games: 4 at once, 6 started, 2 ended\n\
             moves: 25 acknowledged in 10.0 s: 2.5 moves/s\n\
             ack: p50 2.0 ms, p90 4.0 ms, p99 4.0 ms, max 4.0 ms (2 samples)\n\
             hand-over: -\n\
             acks over 50 ms, by the second their move was sent: none\n\
             errors: 3\n  \
             2 x rate_limited: too many messages\n  \
             1 x stale: the position changed\n\
             load average (1 min, every 5 s): 0.50 0.75\n\
             stored: 25 acknowledged moves checked, 0 missing, 0 doubled\n"
        );
    }

    /// The warm-up, the computer, the reconnections and the memory add their lines.
    #[test]
    fn the_report_of_a_run_with_everything() {
        let settings = LoadSettings {
            warmup: Duration::from_secs(3),
            reconnect: true,
            computer_games: 2,
            ..settings()
        };
        let totals = Totals::default();
        totals.computer_started.store(2, Ordering::Relaxed);
        totals.computer_moves.store(9, Ordering::Relaxed);
        totals.computer_answers.store(8, Ordering::Relaxed);
        let measures = Measures {
            rss_before_kib: Some(10_000),
            peak_kib: 14_000,
            ..measures(Stored::default())
        };
        let mut out = Vec::new();
        write_report(&settings, &totals, &measures, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "latencies of the moves sent after the first 3 s:");
        assert_eq!(
            lines[6],
            "against the computer (level 8): 2 at once, 2 started, 0 ended; 9 moves of the \
             players acknowledged, 8 computer moves"
        );
        assert_eq!(lines[7], "ack against the computer: -");
        assert_eq!(lines[8], "computer answer: -");
        assert_eq!(lines[9], "errors: 0");
        assert_eq!(lines[10], "reconnects: 0");
        assert_eq!(
            lines[13],
            "server memory: 10000 KiB before, 14000 KiB at the peak: 1000 KiB per table"
        );
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
}
