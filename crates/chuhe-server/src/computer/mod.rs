//! The computer player for seats taken by the computer: the engine's players at levels 1–8
//! ([`chuhe_engine::player`] for xiangqi, [`chuhe_engine::sanguo`], [`chuhe_engine::banqi`];
//! `docs/players.md`), thinking on a bounded pool of threads of their own.
//!
//! The server only calls the engine: a [`Problem`] is taken from the game (for banqi the seat's
//! public view and the records, never the hidden identities), and [`think`] runs it on the
//! pool: [`Settings::computer_threads`](crate::Settings::computer_threads) threads at a lower
//! CPU priority (nice 10), so at most that many searches run at once; more wait in turn (first
//! come, first served) without holding a thread or a runtime worker, so human moves keep their
//! latency however many computer games run. A level's time budget counts from the computer's
//! turn: a search that waited for a thread gets what is left of it (at least a twentieth), so
//! under more games than threads the answers keep their time and the searches get shorter.
//! Every answer takes at least the pause of
//! [`Settings::computer_pause`](crate::Settings::computer_pause), so a person can follow the
//! game.

use crate::variant::{AnyGame, AnyMove};
use chuhe_engine::levels::{Budget, Level};
use chuhe_engine::{banqi, sanguo};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Levels run from 1 (weakest) to this: the wire's limit, which is the engine's level table's.
pub const MAX_LEVEL: u8 = crate::protocol::MAX_COMPUTER_LEVEL;
const _: () = assert!(MAX_LEVEL == chuhe_engine::levels::MAX_LEVEL);

/// The evaluation (centipawns, half a Soldier) within which the computer counts a position as
/// even when it is offered a draw.
pub const DRAW_MARGIN: i32 = 50;

/// Plies after which an even position is a fair draw for the computer: twenty moves each, past
/// the opening, as a person would not agree to a draw in the first moves either.
pub const DRAW_AFTER_PLIES: usize = 40;

/// Whether the computer at `seat` takes a draw offered in `game` now. In xiangqi it takes it
/// when the engine's static evaluation from its side says a draw is fair: it is worse (at most
/// −[`DRAW_MARGIN`] centipawns), or the position is even (within [`DRAW_MARGIN`]) and either
/// the game is past its opening ([`DRAW_AFTER_PLIES`]) or neither side has a piece that can
/// cross the river (Horse, Chariot, Cannon or Soldier), where nobody can win. It declines
/// when it is better, and an even position in the first moves. In the other games never (their
/// players keep playing). The same rule at every level.
pub fn accepts_draw(game: &crate::variant::AnyGame, seat: crate::protocol::Seat) -> bool {
    use chuhe_rules::xiangqi::{Color, Kind, Piece};
    let Some(g) = game.as_xiangqi() else {
        return false;
    };
    let position = g.position();
    let red = chuhe_engine::eval::evaluate_red(position, &chuhe_engine::eval::PARAMS);
    let mine = if seat.index() == 0 { red } else { -red };
    if mine <= -DRAW_MARGIN {
        return true;
    }
    if mine > DRAW_MARGIN {
        return false;
    }
    let attackers = [Kind::Horse, Kind::Chariot, Kind::Cannon, Kind::Soldier]
        .into_iter()
        .flat_map(|kind| [Color::Red, Color::Black].map(|color| Piece { color, kind }))
        .map(|piece| position.by_piece(piece).count())
        .sum::<u32>();
    attackers == 0 || g.moves().len() >= DRAW_AFTER_PLIES
}

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
        self.choose_within(level, seed, Level::get(level).time_budget())
    }

    /// [`Problem::choose`] within `time` when that is less than the level's time budget (the
    /// level's node budget and noise are kept; a shorter time can only stop it sooner).
    pub fn choose_within(&self, level: u8, seed: u64, time: Duration) -> Option<AnyMove> {
        let time = time.min(Level::get(level).time_budget());
        match self {
            Problem::Xiangqi {
                start,
                moves,
                no_capture_limit,
            } => chuhe_engine::player::choose_move_within(
                start,
                moves,
                level,
                *no_capture_limit,
                seed,
                time,
            )
            .map(AnyMove::Xiangqi),
            Problem::Sanguo(p) => {
                let mut s = sanguo::Settings::level(level);
                s.budget = Budget::nodes(s.budget.nodes).capped(time);
                sanguo::choose_with(p, s, seed).map(AnyMove::Sanguo)
            }
            Problem::Banqi(p) => {
                let mut s = banqi::Settings::level(level);
                s.budget = Budget::nodes(s.budget.nodes).capped(time);
                banqi::choose_with(p, s, seed).map(AnyMove::Banqi)
            }
        }
    }
}

/// A search to run on a pool thread.
type Job = Box<dyn FnOnce() + Send>;

/// The pool: its threads (fed through `jobs`), the permits that keep the searches at most one
/// per thread and in the order asked, and the shortest answer time.
struct Pool {
    permits: Arc<Semaphore>,
    pause: Duration,
    jobs: std::sync::mpsc::Sender<Job>,
}

static POOL: RwLock<Option<Arc<Pool>>> = RwLock::new(None);

impl Pool {
    /// A pool of `threads` search threads (at least 1), each at the lower priority of
    /// [`SEARCH_NICE`] for its whole life; they end when the pool is dropped and their last
    /// search is done. Each thread keeps its memory between searches (a search's tables are
    /// allocated again in the same place), so memory does not grow with the number of games.
    fn new(threads: usize, pause: Duration) -> Pool {
        let threads = threads.max(1);
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = Arc::new(std::sync::Mutex::new(queue));
        for i in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("chuhe-search-{i}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let job = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        // A search that panics loses its move, not the thread.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            if let Err(e) = spawned {
                tracing::error!("cannot start a computer search thread: {e}");
            }
        }
        Pool {
            permits: Arc::new(Semaphore::new(threads)),
            pause,
            jobs,
        }
    }
}

/// Sets the pool for the searches that start from now on: at most `threads` at once (at
/// least one) on as many threads, each answer after at least `pause`. Searches already running
/// or waiting keep the pool they started with. [`crate::site::AppState::new`] calls it with its
/// settings.
pub fn configure(threads: usize, pause: Duration) {
    let pool = Arc::new(Pool::new(threads, pause));
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
    POOL.read()
        .ok()
        .and_then(|p| p.clone())
        .unwrap_or_else(|| Arc::new(Pool::new(DEFAULT_THREADS, DEFAULT_PAUSE)))
}

/// The least share of its level's time budget a search gets however long it waited for a
/// thread: a twentieth (0.125 s at level 8), at least [`LEAST_SEARCH`].
const LEAST_SHARE: u32 = 20;
/// The shortest search, however long it waited.
const LEAST_SEARCH: Duration = Duration::from_millis(10);
/// The nice value of the search threads (Linux; 0 is a normal thread, 19 the lowest
/// priority): a human move's handling is never queued behind a search on a busy machine.
const SEARCH_NICE: i32 = 10;

/// How long a search may take after waiting `waited` for a thread: what is left of the
/// level's time budget `budget`, at least a twentieth of it (and [`LEAST_SEARCH`]).
fn search_time(budget: Duration, waited: Duration) -> Duration {
    budget
        .saturating_sub(waited)
        .max(budget / LEAST_SHARE)
        .max(LEAST_SEARCH)
}

/// The most a computer's answer may take on a clock with `remaining` left and `increment` added
/// after each move: a twentieth of what is left plus three quarters of the increment, never more
/// than half of what is left. So a computer keeps time for the rest of the game, in blitz as in
/// a long game (60+0: 3 s for the first move, less as the clock runs down; 3+2: 10.5 s; the
/// level's time budget caps both).
pub fn clock_share(remaining: Duration, increment: Duration) -> Duration {
    (remaining / 20 + increment * 3 / 4).min(remaining / 2)
}

/// Thinks about `problem` at `level` on the pool (see the module text): waits for a free
/// thread, searches on it for what is left of the level's time budget counted from the call (at
/// least a twentieth), and answers no sooner than the pool's pause after the call. On a clock,
/// `clock` is the most the answer may take ([`clock_share`]): it caps the budget and the pause.
/// `None` when there is no move (or the search failed).
pub async fn think(
    problem: Problem,
    level: u8,
    seed: u64,
    clock: Option<Duration>,
) -> Option<AnyMove> {
    let pool = pool();
    let budget = Level::get(level).time_budget();
    let (budget, pause) = match clock {
        Some(share) => (budget.min(share), pool.pause.min(share)),
        None => (budget, pool.pause),
    };
    // The runtime's clock: the pause is a tokio sleep, so both ends must be on one clock (a
    // paused test clock does not move while the search runs on its thread).
    let asked = Instant::now();
    let waiting = crate::telemetry::Held::new(crate::telemetry::COMPUTER_QUEUE);
    let permit = pool.permits.clone().acquire_owned().await.ok()?;
    drop(waiting);
    let searching = crate::telemetry::Held::new(crate::telemetry::COMPUTER_SEARCHES);
    let time = search_time(budget, asked.elapsed());
    let (answer, found) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _held = permit;
        let _searching = searching;
        let _ = answer.send(problem.choose_within(level, seed, time));
    });
    pool.jobs.send(job).ok()?;
    let found = found.await.ok()?;
    let spent = asked.elapsed();
    if spent < pause {
        tokio::time::sleep(pause - spent).await;
    }
    found
}

/// Lowers the calling thread's priority to [`SEARCH_NICE`] (Linux; elsewhere nothing). A
/// failure is ignored: the search runs at the normal priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(tid), SEARCH_NICE);
    }
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

    #[test]
    fn a_computer_on_a_clock_spends_a_share_of_it() {
        let s = Duration::from_millis;
        // 60+0: a twentieth; 3+2: a twentieth and three quarters of the increment.
        assert_eq!(clock_share(s(60_000), s(0)), s(3_000));
        assert_eq!(clock_share(s(180_000), s(2_000)), s(10_500));
        // Never more than half of what is left (1 s left, 2 s increment).
        assert_eq!(clock_share(s(1_000), s(2_000)), s(500));
        assert_eq!(clock_share(s(0), s(0)), s(0));
    }

    #[test]
    fn a_search_that_waited_gets_what_is_left_of_its_time() {
        let s = Duration::from_millis;
        assert_eq!(search_time(s(2_500), s(0)), s(2_500));
        assert_eq!(search_time(s(2_500), s(1_000)), s(1_500));
        // A twentieth at least, and never less than 10 ms.
        assert_eq!(search_time(s(2_500), s(2_400)), s(125));
        assert_eq!(search_time(s(2_500), s(60_000)), s(125));
        assert_eq!(search_time(s(100), s(60_000)), s(10));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn searches_run_at_a_lower_priority_on_threads_that_last() {
        let pool = Pool::new(1, Duration::ZERO);
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..2 {
            let tx = tx.clone();
            let job: Job = Box::new(move || {
                let tid = rustix::thread::gettid();
                let nice = rustix::process::getpriority_process(Some(tid));
                let _ = tx.send((tid, nice.expect("its priority")));
            });
            pool.jobs.send(job).expect("the pool takes jobs");
        }
        let first = rx.recv().expect("the first job ran");
        let second = rx.recv().expect("the second job ran");
        // One thread for both, at least SEARCH_NICE (more when the tests run niced).
        assert_eq!(first.0, second.0);
        assert!(first.1 >= SEARCH_NICE, "nice {}", first.1);
        // A panicking search does not take the thread down.
        pool.jobs
            .send(Box::new(|| panic!("a search failed")))
            .expect("sent");
        let job: Job = Box::new(move || {
            let _ = tx.send((rustix::thread::gettid(), 0));
        });
        pool.jobs.send(job).expect("sent");
        assert_eq!(rx.recv().expect("the thread lives on").0, first.0);
        // The calling thread keeps its own priority.
        let own = rustix::process::getpriority_process(Some(rustix::thread::gettid()))
            .expect("a priority");
        assert!(own < SEARCH_NICE || own == first.1, "own nice {own}");
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
            tokio::time::timeout(Duration::from_secs(60), think(problem.clone(), 1, 1, None)).await;
        assert!(waiting.is_err(), "a search ran beyond the pool's size");
        drop(busy);
        let asked = Instant::now();
        let m = think(problem.clone(), 1, 1, None).await.expect("a move");
        assert!(game.legal_moves().contains(&m.to_string()));
        assert!(asked.elapsed() >= Duration::from_millis(500));
        // On a clock with 40 ms to spend the pause shrinks to it (the paused clock does not
        // move while the search runs on its thread, so the elapsed time is the pause).
        let asked = Instant::now();
        let m = think(problem, 1, 1, Some(Duration::from_millis(40)))
            .await
            .expect("a move");
        assert!(game.legal_moves().contains(&m.to_string()));
        assert_eq!(asked.elapsed(), Duration::from_millis(40));
        configure(DEFAULT_THREADS, DEFAULT_PAUSE);
    }
}
