//! What a seat's connection remembers across a loss (`--reconnect`).

use std::time::Duration;
use tokio::time::Instant;

/// One seat's connection as its game keeps track of it for reconnecting (`--reconnect`): which
/// connection is the current one, the last version it saw, and what a loss left in doubt.
#[derive(Debug, Default)]
pub(crate) struct Link {
    /// The current connection: 0 for the first, one more at every loss.
    pub(crate) generation: u64,
    /// The last version the seat's connections received (0: none yet).
    version: u64,
    /// The URL turn of the current connection ([`crate::setup::url_index`]).
    pub(crate) turn: usize,
    /// Since when the seat has been without a working connection: set at a loss, cleared by
    /// the first `state` after it.
    pub(crate) lost: Option<Instant>,
    /// The version that the seat's move, sent and not acknowledged when the connection was
    /// lost, answered.
    in_doubt: Option<u64>,
}

impl Link {
    /// A link whose first connection went through the URL of turn `turn`.
    pub(crate) fn new(turn: usize) -> Link {
        Link {
            turn,
            ..Link::default()
        }
    }

    /// A message of the current connection at `version`.
    pub(crate) fn saw(&mut self, version: u64) {
        self.version = self.version.max(version);
    }

    /// The `?since=` of the next connection: the last version seen, if any.
    pub(crate) fn since(&self) -> Option<u64> {
        (self.version > 0).then_some(self.version)
    }

    /// Whether the seat has a connection that sent its `state`.
    pub(crate) fn is_up(&self) -> bool {
        self.lost.is_none()
    }

    /// The current connection was lost at `at`, with the seat's move that answered version
    /// `unacknowledged` not yet acknowledged (if any): the next connection's generation. A loss
    /// during a reconnection keeps the first loss's time and move in doubt.
    pub(crate) fn lose(&mut self, at: Instant, unacknowledged: Option<u64>) -> u64 {
        self.generation += 1;
        self.lost.get_or_insert(at);
        if unacknowledged.is_some() {
            self.in_doubt = unacknowledged;
        }
        self.generation
    }

    /// A `moved` event of `mover` at `version`, replayed to `seat`'s new connection: whether it
    /// is the seat's move in doubt, which has then landed (and is no longer in doubt).
    pub(crate) fn landed(&mut self, seat: usize, mover: usize, version: u64) -> bool {
        let landed = mover == seat && self.in_doubt.is_some_and(|v| version == v + 1);
        if landed {
            self.in_doubt = None;
        }
        landed
    }

    /// A `state` read at `at`: after a loss, how long the seat was without a connection and
    /// whether its move in doubt did not land (the replay before the state did not show it);
    /// `None` when nothing was lost.
    pub(crate) fn restored(&mut self, at: Instant) -> Option<(Duration, bool)> {
        let lost = self.lost.take()?;
        Some((
            at.saturating_duration_since(lost),
            self.in_doubt.take().is_some(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_remembers_the_last_version_seen() {
        let mut link = Link::new(3);
        assert_eq!(link.turn, 3);
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
}
