//! The computer player for seats taken by the computer: the engine's players at levels 1–8
//! ([`chuhe_engine::player`] for xiangqi, [`chuhe_engine::sanguo`], [`chuhe_engine::banqi`];
//! `docs/players.md`), thinking on a bounded pool of blocking threads.
//!
//! The server only calls the engine: a [`Problem`] is taken from the game (for banqi the seat's
//! public view and the records, never the hidden identities), and [`think`] runs it on the
//! pool. At most [`Settings::computer_threads`](crate::Settings::computer_threads) searches run
//! at once; more wait in turn (first come, first served) without holding a thread, so human
//! moves keep their latency however many computer games run. Every answer takes at least the
//! pause of [`Settings::computer_pause`](crate::Settings::computer_pause), so a person can
//! follow the game.

use crate::variant::{AnyGame, AnyMove};
use chuhe_engine::{banqi, sanguo};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Levels run from 1 (weakest) to this.
pub const MAX_LEVEL: u8 = chuhe_engine::levels::MAX_LEVEL;

/// Default number of searches that run at once.
pub const DEFAULT_THREADS: usize = 2;
/// Default shortest time between a computer's turn starting and its move.
pub const DEFAULT_PAUSE: Duration = Duration::from_millis(500);

/// What the computer needs to choose a move, taken from a game so that the search runs on its
/// own thread without a copy of the whole game.
#[derive(Debug, Clone)]
pub enum Problem {
    /// A xiangqi game: its start, its moves and its no-capture limit (plies, 0 = off).
    Xiangqi {
        /// The position the game started from (boxed: a position is much larger than a pick).
        start: Box<chuhe_rules::xiangqi::Position>,
        /// The moves played since.
        moves: Vec<chuhe_rules::xiangqi::Move>,
        /// Plies without capture before a draw (0 = off).
        no_capture_limit: u16,
    },
    /// A sanguo game: the position and the positions since the last capture.
    Sanguo(Box<sanguo::Problem>),
    /// A banqi game: the public view of the seat to move and its recent positions.
    Banqi(Box<banqi::Problem>),
}

impl Problem {
    /// The problem of the seat to move in `game`; `None` when the game is over.
    pub fn of(game: &AnyGame) -> Option<Problem> {
        if game.outcome().is_some() {
            return None;
        }
        if let Some(g) = game.as_xiangqi() {
            return Some(Problem::Xiangqi {
                start: Box::new(g.start().clone()),
                moves: g.moves(),
                no_capture_limit: g.options().no_capture_limit,
            });
        }
        if let Some(g) = game.as_sanguo() {
            return Some(Problem::Sanguo(Box::new(sanguo::Problem::of(g))));
        }
        let view = game.as_banqi_view()?;
        // Only the trailing steps matter (the positions since the last flip or capture).
        let records: Vec<chuhe_rules::banqi::Record> = game
            .records()
            .iter()
            .rev()
            .take(usize::from(view.quiet()))
            .map_while(|r| r.parse().ok())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        Some(Problem::Banqi(Box::new(banqi::Problem::recent(
            view.clone(),
            &records,
        ))))
    }

    /// The computer's move at `level` (1–8, clamped), its choices varied by `seed`; `None` when
    /// there is none. Blocks for up to the level's time budget.
    pub fn choose(&self, level: u8, seed: u64) -> Option<AnyMove> {
        match self {
            Problem::Xiangqi {
                start,
                moves,
                no_capture_limit,
            } => chuhe_engine::player::choose_move(start, moves, level, *no_capture_limit, seed)
                .map(AnyMove::Xiangqi),
            Problem::Sanguo(p) => sanguo::choose(p, level, seed).map(AnyMove::Sanguo),
            Problem::Banqi(p) => banqi::choose(p, level, seed).map(AnyMove::Banqi),
        }
    }
}

/// The pool's limits: searches at once and the shortest answer time.
#[derive(Debug)]
struct Pool {
    permits: Arc<Semaphore>,
    pause: Duration,
}

static POOL: RwLock<Option<Arc<Pool>>> = RwLock::new(None);

/// Sets the pool for the searches that start from now on: at most `threads` at once (at least
/// 1), each answer after at least `pause`. Searches already running or waiting keep the pool
/// they started with. [`crate::AppState::new`] calls it with its settings.
pub fn configure(threads: usize, pause: Duration) {
    let pool = Arc::new(Pool {
        permits: Arc::new(Semaphore::new(threads.max(1))),
        pause,
    });
    if let Ok(mut p) = POOL.write() {
        *p = Some(pool);
    }
}

fn pool() -> Arc<Pool> {
    if let Ok(p) = POOL.read() {
        if let Some(p) = p.as_ref() {
            return p.clone();
        }
    }
    configure(DEFAULT_THREADS, DEFAULT_PAUSE);
    POOL.read().ok().and_then(|p| p.clone()).unwrap_or_else(|| {
        Arc::new(Pool {
            permits: Arc::new(Semaphore::new(DEFAULT_THREADS)),
            pause: DEFAULT_PAUSE,
        })
    })
}

/// Thinks about `problem` at `level` on the pool: waits for a free thread, searches on it, and
/// answers no sooner than the pool's pause after the call. `None` when there is no move (or
/// the search thread failed).
pub async fn think(problem: Problem, level: u8, seed: u64) -> Option<AnyMove> {
    let pool = pool();
    // The runtime's clock: the pause is a tokio sleep, so both ends must be on one clock (a
    // paused test clock does not move while the search runs on its thread).
    let asked = Instant::now();
    let permit = pool.permits.clone().acquire_owned().await.ok()?;
    let found = tokio::task::spawn_blocking(move || {
        let _held = permit;
        problem.choose(level, seed)
    })
    .await
    .ok()?;
    let spent = asked.elapsed();
    if spent < pool.pause {
        tokio::time::sleep(pool.pause - spent).await;
    }
    found
}

/// The computer's move at `level` for the seat to move, on the calling thread; `None` when the
/// game is over.
pub fn choose(game: &AnyGame, level: u8, seed: u64) -> Option<AnyMove> {
    Problem::of(game)?.choose(level, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{RuleOptions, Variant};

    fn options() -> RuleOptions {
        RuleOptions {
            no_capture_limit: 120,
            flag_bearers: true,
        }
    }

    #[test]
    fn the_computer_plays_legal_moves_in_every_game_at_every_level() {
        for variant in [Variant::Xiangqi, Variant::Sanguo, Variant::Banqi] {
            let game = AnyGame::new(variant, options());
            for level in 1..=MAX_LEVEL {
                let m = choose(&game, level, u64::from(level)).expect("a move");
                assert!(
                    game.legal_moves().contains(&m.to_string()),
                    "{variant:?} level {level}: {m}"
                );
            }
        }
    }

    #[test]
    fn banqi_problems_come_from_the_view() {
        let mut game = AnyGame::new(Variant::Banqi, options());
        for text in ["flip c2", "flip d2"] {
            let m = game.parse_move(text).expect("a move");
            game.play(m).expect("legal");
        }
        let Some(Problem::Banqi(p)) = Problem::of(&game) else {
            panic!("a banqi problem");
        };
        assert_eq!(Some(&p.view), game.as_banqi_view());
    }

    #[tokio::test(start_paused = true)]
    async fn thinking_queues_beyond_the_pool_and_keeps_the_pause() {
        // One test for the process-wide pool, so no other test changes it meanwhile.
        configure(1, Duration::from_millis(500));
        let game = AnyGame::new(Variant::Sanguo, options());
        let problem = Problem::of(&game).expect("a problem");
        // The only thread is busy: a search waits (paused time runs past the timeout).
        let busy = pool()
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("a permit");
        let waiting =
            tokio::time::timeout(Duration::from_secs(60), think(problem.clone(), 1, 1)).await;
        assert!(waiting.is_err(), "a search ran beyond the pool's size");
        drop(busy);
        let asked = Instant::now();
        let m = think(problem, 1, 1).await.expect("a move");
        assert!(game.legal_moves().contains(&m.to_string()));
        assert!(asked.elapsed() >= Duration::from_millis(500));
        configure(DEFAULT_THREADS, DEFAULT_PAUSE);
    }
}
