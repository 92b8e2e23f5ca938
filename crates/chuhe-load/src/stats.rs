//! What all games report into: the latencies, the counters, the errors and the acknowledged
//! moves.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use tokio::time::Instant;

/// The latencies of one kind, in microseconds, in the order they were measured (sorted by
/// [`Samples::summary`]).
#[derive(Debug, Default)]
pub(crate) struct Samples(pub(crate) Vec<u64>);

impl Samples {
    /// `p50 p90 p99 max` in milliseconds with one decimal, or `-` without samples. The
    /// percentile `q` is the sample at rank `ceil(q * n)` (from 1) of the `n` sorted samples.
    pub(crate) fn summary(&mut self) -> String {
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
pub(crate) struct Totals {
    pub(crate) ack: Mutex<Samples>,
    pub(crate) handover: Mutex<Samples>,
    /// Refusals and failures by error code (or a short description of a transport failure).
    pub(crate) errors: Mutex<HashMap<String, u64>>,
    /// Acknowledged moves per table: `(version, move)`.
    pub(crate) acked: Mutex<HashMap<String, Vec<(u64, String)>>>,
    pub(crate) moves: AtomicU64,
    pub(crate) games_started: AtomicU64,
    pub(crate) games_ended: AtomicU64,
    /// Latencies count for moves sent from this moment on (after the warm-up).
    pub(crate) measure_from: OnceLock<Instant>,
    /// Acks slower than [`SLOW_ACK_MICROS`], counted by the whole second (since the run began)
    /// in which their move was sent: one stall shows as many in one second, a queue that
    /// builds up as a few in every second.
    slow_by_second: Mutex<BTreeMap<u64, u64>>,
    /// When the run began (set once, before the games start).
    pub(crate) began: OnceLock<Instant>,
    /// The URL and id of the run's first table (game slot 0's first), which the spectators
    /// watch.
    pub(crate) watched: OnceLock<(String, String)>,
    /// `--reconnect`: connections made again after a loss (counted at their first `state`).
    pub(crate) reconnects: AtomicU64,
    /// `--reconnect`: per reconnection, from the loss to the first `state` after it.
    pub(crate) gaps: Mutex<Samples>,
    /// `--reconnect`: tries of a request or a connection that failed and were tried again (or
    /// given up), by what happened.
    pub(crate) failed_tries: Mutex<HashMap<String, u64>>,
    /// `--reconnect`: moves sent and not acknowledged when their connection was lost.
    pub(crate) in_doubt: AtomicU64,
    /// ... of which the events replayed after reconnecting showed stored.
    pub(crate) landed: AtomicU64,
    /// ... of which they did not.
    pub(crate) not_landed: AtomicU64,
    /// Games against the computer: the guest's acks.
    pub(crate) computer_ack: Mutex<Samples>,
    /// Games against the computer: per computer move, from the moment its turn began (the
    /// update of the move before it arrived) to the update with its move.
    pub(crate) computer_answer: Mutex<Samples>,
    /// Games against the computer: the guest's moves acknowledged, the computer's moves seen,
    /// games started and ended.
    pub(crate) computer_moves: AtomicU64,
    pub(crate) computer_answers: AtomicU64,
    pub(crate) computer_started: AtomicU64,
    pub(crate) computer_ended: AtomicU64,
    /// Bytes of the server's text messages read after the warm-up, by every connection.
    pub(crate) bytes_in: AtomicU64,
    /// The server's messages read after the warm-up, by every connection.
    pub(crate) messages_in: AtomicU64,
    /// Moves of the games between people sent after the warm-up and acknowledged.
    pub(crate) measured_moves: AtomicU64,
    /// The same moves, each counted once per seat of its table (2 or 3): the deliveries that
    /// [`Totals::bytes_in`] is divided by for the bytes per move per connection.
    pub(crate) deliveries: AtomicU64,
}

/// An ack slower than this (50 ms, the latency goal), in microseconds, is counted in
/// [`Totals::slow`].
pub(crate) const SLOW_ACK_MICROS: u64 = 50_000;

impl Totals {
    /// Whether a move sent at `sent` counts in the latencies.
    pub(crate) fn measured(&self, sent: Instant) -> bool {
        self.measure_from.get().is_none_or(|&from| sent >= from)
    }

    /// Counts a slow ack of a move sent at `sent`.
    pub(crate) fn slow(&self, sent: Instant) {
        let second = self
            .began
            .get()
            .map_or(0, |&b| sent.saturating_duration_since(b).as_secs());
        *lock(&self.slow_by_second).entry(second).or_default() += 1;
    }

    /// `N in S seconds; worst: 12 s: 40, 31 s: 7, ...` (the five seconds with the most), or
    /// `none`.
    pub(crate) fn slow_summary(&self) -> String {
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

    /// Counts an error (a refusal by its code and message, or a failure by its description).
    pub(crate) fn error(&self, what: impl Into<String>) {
        *lock(&self.errors).entry(what.into()).or_default() += 1;
    }

    /// Counts a failed try (`--reconnect`) by what happened.
    pub(crate) fn failed_try(&self, what: impl Into<String>) {
        *lock(&self.failed_tries).entry(what.into()).or_default() += 1;
    }
}

/// Locks `m`, also after a task panicked holding it (the counts stay usable).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `d` in whole microseconds (saturating).
pub(crate) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_samples_no_percentiles() {
        assert_eq!(Samples::default().summary(), "-");
    }

    /// 1 ms to 100 ms, shuffled: the percentiles are the samples at ranks 50, 90, 99.
    #[test]
    fn percentiles_are_samples_at_their_rank() {
        let mut samples = Samples((1..=100).rev().map(|ms| ms * 1000).collect());
        assert_eq!(
            samples.summary(),
            "p50 50.0 ms, p90 90.0 ms, p99 99.0 ms, max 100.0 ms (100 samples)"
        );
        // One sample is every percentile; microseconds round to a tenth of a millisecond.
        assert_eq!(
            Samples(vec![1_260]).summary(),
            "p50 1.3 ms, p90 1.3 ms, p99 1.3 ms, max 1.3 ms (1 samples)"
        );
        // Ten samples: p99 is the tenth (rank ceil(9.9) = 10), p90 the ninth.
        let mut ten = Samples(vec![
            5_000, 1_000, 9_000, 2_000, 8_000, 3_000, 7_000, 4_000, 6_000, 50_000,
        ]);
        assert_eq!(
            ten.summary(),
            "p50 5.0 ms, p90 9.0 ms, p99 50.0 ms, max 50.0 ms (10 samples)"
        );
    }

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
    fn only_moves_after_the_warmup_are_measured() {
        let totals = Totals::default();
        let begin = Instant::now();
        assert!(totals.measured(begin));
        let _ = totals.measure_from.set(begin + Duration::from_secs(2));
        assert!(!totals.measured(begin + Duration::from_millis(1_999)));
        assert!(totals.measured(begin + Duration::from_secs(2)));
    }

    #[test]
    fn durations_in_microseconds() {
        assert_eq!(micros(Duration::from_millis(3)), 3_000);
        assert_eq!(micros(Duration::MAX), u64::MAX);
    }
}
