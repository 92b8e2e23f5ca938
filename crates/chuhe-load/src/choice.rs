//! A player's next move and when to send it.

use crate::settings::LoadSettings;
use rand::rngs::StdRng;
use rand::RngExt;
use std::time::Duration;
use tokio::time::Instant;

/// The least time between two moves of one connection: the server lets a connection send 10
/// messages a second after a burst of 20 (`docs/protocol.md`, "Limits"), so a closed loop
/// (`--think-ms 0`) stays just under that rate instead of being refused with `rate_limited`.
pub(crate) const MIN_GAP: Duration = Duration::from_millis(105);

/// A player's next move among `legal_moves` (received at `at`; not empty) and when to send it:
/// a random move after a random think time (`settings.think_ms`), never sooner than
/// [`MIN_GAP`] after the connection's last move (`last_sent`), the server's message rate for
/// one connection. The think time is drawn first, then the move, from `rng`.
pub(crate) fn next_move(
    settings: &LoadSettings,
    rng: &mut StdRng,
    legal_moves: &[String],
    at: Instant,
    last_sent: Option<Instant>,
) -> (Instant, String) {
    let think = if settings.think_ms.1 == 0 {
        0
    } else {
        rng.random_range(settings.think_ms.0..=settings.think_ms.1)
    };
    let mv = legal_moves[rng.random_range(0..legal_moves.len())].clone();
    let due = (at + Duration::from_millis(think)).max(last_sent.map_or(at, |t| t + MIN_GAP));
    (due, mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn settings(think_ms: (u64, u64)) -> LoadSettings {
        LoadSettings {
            urls: vec!["http://127.0.0.1:8080".to_owned()],
            games: 1,
            duration: Duration::from_secs(1),
            think_ms,
            variants: vec![chuhe_rules::Variant::Xiangqi],
            time: None,
            spread: false,
            server_pids: Vec::new(),
            db_pid: None,
            table_url: None,
            seed: 1,
            warmup: Duration::ZERO,
            reconnect: false,
            computer_games: 0,
            computer_level: 1,
            arena: None,
            spectators: 0,
            idle: 0,
        }
    }

    /// Closed loop: at once, unless the connection's last move was less than [`MIN_GAP`] ago.
    #[test]
    fn closed_loop_waits_only_for_the_message_rate() {
        let moves = vec!["h2e2".to_owned(), "b0c2".to_owned()];
        let mut rng = StdRng::seed_from_u64(7);
        let at = Instant::now();
        let (due, mv) = next_move(&settings((0, 0)), &mut rng, &moves, at, None);
        assert_eq!(due, at);
        assert!(moves.contains(&mv));
        let last = at - Duration::from_millis(40);
        let (due, _) = next_move(&settings((0, 0)), &mut rng, &moves, at, Some(last));
        assert_eq!(due, last + MIN_GAP);
        let long_ago = at - Duration::from_secs(1);
        let (due, _) = next_move(&settings((0, 0)), &mut rng, &moves, at, Some(long_ago));
        assert_eq!(due, at);
    }

    /// A think time within the range, the same moves and times for the same seed.
    #[test]
    fn think_times_within_the_range_and_repeatable() {
        let moves: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
        let at = Instant::now();
        let run = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            (0..50)
                .map(|_| next_move(&settings((200, 300)), &mut rng, &moves, at, None))
                .collect::<Vec<_>>()
        };
        let first = run(11);
        for (due, mv) in &first {
            let think = *due - at;
            assert!(
                (Duration::from_millis(200)..=Duration::from_millis(300)).contains(&think),
                "{think:?}"
            );
            assert!(moves.contains(mv));
        }
        assert_eq!(first, run(11));
    }
}
