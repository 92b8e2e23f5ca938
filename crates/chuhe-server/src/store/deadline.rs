//! Wall-clock deadlines for the store's time limits ([`super::within`]), kept by one thread
//! without a wake-up per limit.
//!
//! Every move's write waits under a time limit (5 s by default), so a limit is set and dropped
//! a few thousand times a second under load, and almost never fires. Spawning a timer task on
//! the store's timer runtime for each one (as this module's predecessor did) woke that thread
//! twice per limit, to start and to cancel the timer: a profile of 1,000 games at human pace
//! (issue 32) spent 6 % of the server's processor time in that thread, plus the futex calls of
//! the wake-ups. Here a limit is one entry pushed on a heap under a mutex; the thread is woken
//! only when the new deadline is earlier than every other one (with equal limits: only when
//! none is pending), and wakes by itself at most once per [`GRAIN`], firing every deadline due
//! by then. A limit whose work finished stays on the heap until its deadline, then is dropped
//! (its receiver is gone): a few tens of bytes per write for 5 s.
//!
//! The thread uses `std::time::Instant` (the wall clock, never tokio's clock, which a test may
//! pause: a paused clock jumps to the next timer whenever the runtime waits, a database answer
//! too).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How late a deadline may fire: the thread waits for the earliest deadline plus this, and
/// fires every deadline due by then in one wake-up (at most one wake-up per grain under any
/// load).
pub(crate) const GRAIN: Duration = Duration::from_millis(20);

/// One pending deadline: when, in which order it was set (the tie-break), and whom to tell.
struct Entry {
    at: Instant,
    seq: u64,
    fire: oneshot::Sender<()>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

#[derive(Default)]
struct Pending {
    heap: BinaryHeap<Reverse<Entry>>,
    next_seq: u64,
}

/// The deadlines and the condition variable their thread waits on.
struct Deadlines {
    pending: Mutex<Pending>,
    changed: Condvar,
}

/// The process's deadline thread, started on first use; `None` when it could not be started
/// (the limits then never fire: [`super::within`] runs the work without a limit).
fn deadlines() -> Option<&'static Deadlines> {
    static DEADLINES: OnceLock<Option<&'static Deadlines>> = OnceLock::new();
    *DEADLINES.get_or_init(|| {
        let deadlines: &'static Deadlines = Box::leak(Box::new(Deadlines {
            pending: Mutex::new(Pending::default()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("chuhe-deadlines".to_owned())
            .spawn(move || deadlines.run())
            .ok()
            .map(|_| deadlines)
    })
}

impl Deadlines {
    /// The thread: fires what is due, then sleeps until the earliest deadline plus [`GRAIN`]
    /// (or until a new earliest one arrives).
    fn run(&self) {
        let mut pending = match self.pending.lock() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        };
        loop {
            let now = Instant::now();
            while pending.heap.peek().is_some_and(|Reverse(e)| e.at <= now) {
                if let Some(Reverse(e)) = pending.heap.pop() {
                    // The receiver is gone when the work finished first: nothing to tell.
                    let _ = e.fire.send(());
                }
            }
            let wait = pending
                .heap
                .peek()
                .map(|Reverse(e)| e.at.saturating_duration_since(now) + GRAIN);
            pending = match wait {
                Some(wait) => match self.changed.wait_timeout(pending, wait) {
                    Ok((p, _)) => p,
                    Err(poisoned) => poisoned.into_inner().0,
                },
                None => match self.changed.wait(pending) {
                    Ok(p) => p,
                    Err(poisoned) => poisoned.into_inner(),
                },
            };
        }
    }

    fn add(&self, at: Instant) -> oneshot::Receiver<()> {
        let (fire, fired) = oneshot::channel();
        let mut pending = match self.pending.lock() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        };
        let earliest = pending.heap.peek().is_none_or(|Reverse(e)| at < e.at);
        let seq = pending.next_seq;
        pending.next_seq += 1;
        pending.heap.push(Reverse(Entry { at, seq, fire }));
        drop(pending);
        if earliest {
            self.changed.notify_one();
        }
        fired
    }
}

/// A receiver that gets `()` once `limit` of wall-clock time has passed (up to [`GRAIN`]
/// later), or `None` when the deadline thread could not be started. Dropping the receiver
/// cancels nothing and costs nothing: the entry is dropped when it falls due.
pub(crate) fn after(limit: Duration) -> Option<oneshot::Receiver<()>> {
    let at = Instant::now().checked_add(limit)?;
    Some(deadlines()?.add(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deadlines fire in order of their time, not of their setting, within the grain; one
    /// dropped before its time is skipped.
    #[tokio::test]
    async fn deadlines_fire_in_time_order() {
        let began = Instant::now();
        let late = after(Duration::from_millis(300)).unwrap();
        let early = after(Duration::from_millis(100)).unwrap();
        let dropped = after(Duration::from_millis(50)).unwrap();
        drop(dropped);
        early.await.unwrap();
        let first = began.elapsed();
        late.await.unwrap();
        let second = began.elapsed();
        assert!(first >= Duration::from_millis(100), "{first:?}");
        assert!(second >= Duration::from_millis(300), "{second:?}");
        assert!(first < second);
    }
}
