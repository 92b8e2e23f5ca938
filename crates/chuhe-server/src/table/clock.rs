//! The server's clocks: one per seat, on [`tokio::time::Instant`] (so tests pause and advance
//! time), with a bounded lag allowance.
//!
//! Lag allowance (the idea of lichess's lag compensation, simplified): network delay is not the
//! player's thinking time, but the server cannot tell the two apart. Each move is credited up to
//! [`LAG_PER_MOVE`] of its elapsed time, paid from a per-seat quota that starts at
//! [`LAG_QUOTA`] and refills by [`LAG_REFILL`] per move (never above [`LAG_QUOTA`]). A seat's
//! flag falls when its remaining time plus the credit it could still get is used up.

use std::time::Duration;
use tokio::time::Instant;

/// The most one move is credited for lag.
pub const LAG_PER_MOVE: Duration = Duration::from_millis(300);
/// The lag quota a seat starts with, and its ceiling.
pub const LAG_QUOTA: Duration = Duration::from_millis(1500);
/// What each move adds back to the quota.
pub const LAG_REFILL: Duration = Duration::from_millis(100);

/// The clocks of a table: remaining time per seat, which one runs and since when.
#[derive(Debug, Clone)]
pub struct Clocks {
    remaining: Vec<Duration>,
    quota: Vec<Duration>,
    /// Per seat: a berserk seat's is zero.
    increment: Vec<Duration>,
    running: Option<(usize, Instant)>,
}

pub use crate::store::ClockSnapshot;

/// What berserk takes off a clock: half the initial time (rounded down to the millisecond).
pub fn berserk_penalty(initial: Duration) -> Duration {
    initial / 2
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

impl Clocks {
    /// Stopped clocks with `initial` for each of `seats` seats.
    pub fn new(seats: usize, initial: Duration, increment: Duration) -> Clocks {
        Clocks {
            remaining: vec![initial; seats],
            quota: vec![LAG_QUOTA; seats],
            increment: vec![increment; seats],
            running: None,
        }
    }

    /// Clocks from a snapshot (stopped).
    pub fn from_snapshot(snap: &ClockSnapshot, increment: Duration) -> Clocks {
        let increment = vec![increment; snap.remaining_ms.len()];
        Clocks {
            remaining: snap
                .remaining_ms
                .iter()
                .map(|&m| Duration::from_millis(m))
                .collect(),
            quota: snap
                .quota_ms
                .iter()
                .map(|&m| Duration::from_millis(m))
                .collect(),
            increment,
            running: None,
        }
    }

    /// Takes the remaining times and lag quotas of a snapshot (stopped), keeping each seat's
    /// increment (a berserk seat's stays zero).
    pub fn restore(&mut self, snap: &ClockSnapshot) {
        let seats = self.remaining.len();
        let back = Clocks::from_snapshot(snap, Duration::ZERO);
        if back.remaining.len() == seats && back.quota.len() == seats {
            self.remaining = back.remaining;
            self.quota = back.quota;
        }
        self.running = None;
    }

    /// `seat` goes berserk (lichess's berserk): half of `initial` comes off its remaining
    /// time, and it gets no increment from now on. A seat that does not exist is ignored.
    pub fn berserk(&mut self, seat: usize, initial: Duration) {
        if let (Some(r), Some(i)) = (self.remaining.get_mut(seat), self.increment.get_mut(seat)) {
            *r = r.saturating_sub(berserk_penalty(initial));
            *i = Duration::ZERO;
        }
    }

    /// The snapshot at `now` (the running clock's elapsed time is charged).
    pub fn snapshot(&self, now: Instant) -> ClockSnapshot {
        ClockSnapshot {
            remaining_ms: (0..self.remaining.len())
                .map(|s| ms(self.remaining(s, now)))
                .collect(),
            quota_ms: self.quota.iter().map(|&q| ms(q)).collect(),
        }
    }

    /// Starts `seat`'s clock at `now` (stopping none: call [`Clocks::stop`] first).
    pub fn start(&mut self, seat: usize, now: Instant) {
        self.running = Some((seat, now));
    }

    /// The seat whose clock runs.
    pub fn running_seat(&self) -> Option<usize> {
        self.running.map(|(s, _)| s)
    }

    /// Stops the running clock after its seat moved at `now`: charges the elapsed time minus
    /// the lag credit, then adds the increment.
    pub fn stop_after_move(&mut self, now: Instant) {
        if let Some((seat, since)) = self.running.take() {
            let elapsed = now.saturating_duration_since(since);
            let credit = elapsed.min(LAG_PER_MOVE).min(self.quota[seat]);
            self.quota[seat] = (self.quota[seat] - credit + LAG_REFILL).min(LAG_QUOTA);
            self.remaining[seat] =
                self.remaining[seat].saturating_sub(elapsed - credit) + self.increment[seat];
        }
    }

    /// Stops the running clock at `now`, charging all elapsed time (the game ended).
    pub fn stop(&mut self, now: Instant) {
        if let Some((seat, since)) = self.running.take() {
            let elapsed = now.saturating_duration_since(since);
            self.remaining[seat] = self.remaining[seat].saturating_sub(elapsed);
        }
    }

    /// Sets every seat's remaining time, milliseconds (from a stored event); the running clock
    /// keeps running from the new value.
    pub fn set_remaining_ms(&mut self, remaining_ms: &[u64]) {
        for (r, &m) in self.remaining.iter_mut().zip(remaining_ms) {
            *r = Duration::from_millis(m);
        }
    }

    /// The time added to `seat`'s clock after each of its moves (zero for a seat that does
    /// not exist).
    pub fn increment(&self, seat: usize) -> Duration {
        self.increment.get(seat).copied().unwrap_or_default()
    }

    /// `seat`'s time left at `now`.
    pub fn remaining(&self, seat: usize, now: Instant) -> Duration {
        match self.running {
            Some((s, since)) if s == seat => {
                self.remaining[seat].saturating_sub(now.saturating_duration_since(since))
            }
            _ => self.remaining[seat],
        }
    }

    /// When the running seat's flag falls: remaining time plus the lag credit it could get.
    pub fn flag_deadline(&self) -> Option<(usize, Instant)> {
        self.running.map(|(seat, since)| {
            let credit = LAG_PER_MOVE.min(self.quota[seat]);
            (seat, since + self.remaining[seat] + credit)
        })
    }

    /// When the running seat's first move is due, for a seat that has not moved yet (its
    /// time before this turn is `initial`, with no increment earned): `limit` after its clock
    /// started, less what it used already (before a restart: the time charged in the
    /// snapshot, so a restart never grants a fresh limit).
    pub fn first_move_deadline(
        &self,
        initial: Duration,
        limit: Duration,
    ) -> Option<(usize, Instant)> {
        self.running.map(|(seat, since)| {
            let used = initial.saturating_sub(self.remaining[seat]);
            (seat, since + limit.saturating_sub(used))
        })
    }

    /// Every seat's time left at `now`, milliseconds.
    pub fn remaining_ms(&self, now: Instant) -> Vec<u64> {
        (0..self.remaining.len())
            .map(|s| ms(self.remaining(s, now)))
            .collect()
    }

    /// The wire view at `now`.
    pub fn view(&self, now: Instant) -> Vec<crate::protocol::ClockView> {
        (0..self.remaining.len())
            .map(|s| crate::protocol::ClockView {
                remaining_ms: ms(self.remaining(s, now)),
                running: self.running_seat() == Some(s),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn moves_are_charged_with_lag_credit_and_increment() {
        let mut c = Clocks::new(2, Duration::from_secs(60), Duration::from_secs(2));
        let t0 = Instant::now();
        c.start(0, t0);
        assert_eq!(
            c.flag_deadline(),
            Some((0, t0 + Duration::from_millis(60_300)))
        );
        // 10 s thinking: 300 ms credited, 2 s added: 60 - 9.7 + 2 = 52.3 s.
        c.stop_after_move(t0 + Duration::from_secs(10));
        assert_eq!(c.remaining_ms(t0), vec![52_300, 60_000]);
        c.start(1, t0 + Duration::from_secs(10));
        assert_eq!(
            c.remaining(1, t0 + Duration::from_secs(15)).as_millis(),
            55_000
        );
        // 100 ms: all credited from the quota (1.5 - 0.3 + 0.1 = 1.3 s left), 2 s added.
        c.stop_after_move(t0 + Duration::from_millis(10_100));
        assert_eq!(c.remaining_ms(t0), vec![52_300, 62_000]);
        assert_eq!(
            c.snapshot(t0),
            ClockSnapshot {
                remaining_ms: vec![52_300, 62_000],
                quota_ms: vec![1_300, 1_500],
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn berserk_halves_the_time_and_drops_the_increment() {
        let mut c = Clocks::new(2, Duration::from_secs(180), Duration::from_secs(2));
        let t0 = Instant::now();
        c.berserk(1, Duration::from_secs(180));
        assert_eq!(c.remaining_ms(t0), vec![180_000, 90_000]);
        assert_eq!(c.increment(1), Duration::ZERO);
        assert_eq!(c.increment(0), Duration::from_secs(2));
        c.start(1, t0);
        // 10 s thinking, 300 ms credited, no increment: 90 - 9.7 = 80.3 s.
        c.stop_after_move(t0 + Duration::from_secs(10));
        assert_eq!(c.remaining_ms(t0), vec![180_000, 80_300]);
        // a restore keeps the berserk seat's increment at zero
        let snap = c.snapshot(t0);
        c.restore(&snap);
        assert_eq!(c.increment(1), Duration::ZERO);
        assert_eq!(c.remaining_ms(t0), vec![180_000, 80_300]);
        c.berserk(7, Duration::from_secs(180));
        assert_eq!(c.remaining_ms(t0), vec![180_000, 80_300]);
    }

    #[tokio::test(start_paused = true)]
    async fn the_quota_bounds_the_credit() {
        let mut c = Clocks::new(2, Duration::from_secs(60), Duration::ZERO);
        let mut now = Instant::now();
        // Each 1 s move gets 300 ms credit while the quota lasts: 1.5 → 1.3 → 1.1 → ... → 0.3 → 0.1,
        // then 100 ms per move (the refill).
        let mut credits = Vec::new();
        for _ in 0..9 {
            let before = c.remaining(0, now);
            c.start(0, now);
            now += Duration::from_secs(1);
            c.stop_after_move(now);
            credits.push(ms(c.remaining(0, now)) as i64 - ms(before) as i64 + 1000);
        }
        assert_eq!(credits, vec![300, 300, 300, 300, 300, 300, 300, 100, 100]);
    }

    #[tokio::test(start_paused = true)]
    async fn stop_charges_everything_and_snapshots_restore() {
        let mut c = Clocks::new(2, Duration::from_secs(5), Duration::ZERO);
        let t0 = Instant::now();
        c.start(1, t0);
        c.stop(t0 + Duration::from_secs(7));
        assert_eq!(c.remaining_ms(t0), vec![5_000, 0]);
        let back = Clocks::from_snapshot(&c.snapshot(t0), Duration::ZERO);
        assert_eq!(back.remaining_ms(t0), vec![5_000, 0]);
        assert_eq!(back.flag_deadline(), None);
    }
}
