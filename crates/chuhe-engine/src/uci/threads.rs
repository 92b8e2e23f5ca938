//! The search thread (`spec/engine-protocol.md` §1, §5): `go` starts the search in its own thread
//! so that the session keeps answering `isready`, `stop`, `ponderhit` and `position` while it
//! runs; helpers for `Threads` > 1 (lazy SMP); `ponder` and `infinite` held until `ponderhit` or
//! `stop`; `quit` stops a running search, which writes its `bestmove` before the session ends.
//!
//! The move is chosen through the engine's one strength pipeline ([`crate::skill::Strength`]),
//! the same as the game server's computer player.

use super::dialect::Dialect;
use super::protocol::{self, Sink};
use super::Session;
use crate::search::{self, Control, Info, Limits, Searcher, Settings};
use crate::skill::Strength;
use crate::tt::Table;
use chuhe_rules::xiangqi::{Move, Position, MAX_NO_CAPTURE_LIMIT};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// A search running in its own thread.
pub(super) struct Running {
    handle: JoinHandle<()>,
    ctl: Arc<Control>,
    /// Set (under the output lock) just before `bestmove` is written.
    done: Arc<AtomicBool>,
    /// A draw was offered (UCCI `ponderhit draw`).
    draw_offered: Arc<AtomicBool>,
}

impl<W: Write + Send + 'static> Session<W> {
    /// Whether a search is running (its `bestmove` not yet written).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.done.load(Ordering::SeqCst))
    }

    /// Waits until a running search has written its `bestmove` (for scripted sessions; an
    /// infinite or pondering search waits for `stop`).
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    /// Joins a search that has already written its `bestmove`.
    pub(super) fn reap(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.done.load(Ordering::SeqCst))
        {
            self.wait();
        }
    }

    /// `stop`: ends a running search, which writes its `bestmove`, and waits for it.
    pub(super) fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.ctl.stop.store(true, Ordering::SeqCst);
        }
        self.wait();
    }

    /// `ponderhit` (UCCI `ponderhit draw` with `draw`): the limits count from now.
    pub(super) fn ponderhit(&mut self, draw: bool) {
        if let Some(r) = &self.running {
            if draw {
                r.draw_offered.store(true, Ordering::SeqCst);
            }
            *r.ctl.ponderhit_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            r.ctl.pondering.store(false, Ordering::SeqCst);
        }
    }

    /// `quit` and end of input: stops any running search (pondering and infinite ones too) and
    /// waits until it has written its `bestmove`, as Pikafish does, so that a one-line script
    /// such as `printf 'position startpos\ngo depth 5\n' | chuhe uci` always gets a move.
    pub fn quit(&mut self) {
        self.stop();
    }

    /// Starts the search of the current position with `limits` in its own thread; `draw`: the
    /// opponent offered a draw (UCCI `go draw`).
    pub(super) fn start_search(&mut self, limits: Limits, draw: bool) {
        self.searches += 1;
        let strength = Strength::from_options(
            self.options.skill_level,
            self.options.limit_strength,
            self.options.elo,
        );
        let settings = Settings {
            multi_pv: self.options.multi_pv as usize,
            no_capture_limit: u16::try_from(self.options.no_capture_limit)
                .unwrap_or(MAX_NO_CAPTURE_LIMIT)
                .min(MAX_NO_CAPTURE_LIMIT),
            move_overhead_ms: u64::from(self.options.move_overhead_ms),
            skill_level: self.options.skill_level,
        };
        let ctl = Arc::new(Control::default());
        ctl.pondering.store(limits.ponder, Ordering::SeqCst);
        let done = Arc::new(AtomicBool::new(false));
        let draw_offered = Arc::new(AtomicBool::new(draw));
        let job = Job {
            sink: Arc::clone(&self.sink),
            tt: Arc::clone(&self.tt),
            ctl: Arc::clone(&ctl),
            done: Arc::clone(&done),
            draw_offered: Arc::clone(&draw_offered),
            start: self.start.clone(),
            moves: self.moves.clone(),
            settings,
            limits,
            dialect: self.dialect,
            show_wdl: self.options.show_wdl,
            strength,
            threads: self.options.threads.max(1) as usize,
            seed: self.position.key() ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        let handle = std::thread::Builder::new()
            .name("chuhe-search".into())
            .stack_size(64 << 20)
            .spawn(move || job.run());
        match handle {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    ctl,
                    done,
                    draw_offered,
                })
            }
            Err(_) => {
                let _ = self.error("busy", "cannot start the search thread");
            }
        }
    }
}

/// Everything a search thread needs.
struct Job<W: Write + Send + 'static> {
    sink: Arc<Sink<W>>,
    tt: Arc<Table>,
    ctl: Arc<Control>,
    done: Arc<AtomicBool>,
    draw_offered: Arc<AtomicBool>,
    start: Position,
    moves: Vec<Move>,
    settings: Settings,
    limits: Limits,
    dialect: Dialect,
    show_wdl: bool,
    strength: Strength,
    threads: usize,
    seed: u64,
}

impl<W: Write + Send + 'static> Job<W> {
    /// Runs the search (and its helpers), reports, and writes `bestmove` unless silenced.
    fn run(self) {
        self.tt.new_search();
        // Lazy SMP helpers: same search, shared table, silent; stopped when the main one ends.
        let helper_ctl = Arc::new(Control::default());
        let mut helpers = Vec::new();
        for id in 1..self.threads {
            let tt = Arc::clone(&self.tt);
            let hc = Arc::clone(&helper_ctl);
            let main_ctl = Arc::clone(&self.ctl);
            let start = self.start.clone();
            let moves = self.moves.clone();
            let settings = self.settings.clone();
            let mut limits = self.limits.clone();
            limits.depth = None;
            limits.nodes = None;
            limits.movetime = None;
            limits.wtime = None;
            limits.btime = None;
            limits.infinite = true;
            limits.ponder = false;
            let spawned = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || {
                    let mut s = Searcher::new(&start, &moves, &tt, &hc, settings, limits);
                    s.set_helper();
                    s.skip_depths(id);
                    let _ = s.run(&mut |_| {});
                    main_ctl
                        .helper_nodes
                        .fetch_add(s.nodes(), Ordering::Relaxed);
                });
            if let Ok(h) = spawned {
                helpers.push(h);
            }
        }
        let user_multi_pv = self.settings.multi_pv;
        let mut settings = self.settings.clone();
        let mut limits = self.limits.clone();
        self.strength.limit(&mut limits, &mut settings);
        let mut searcher = Searcher::new(
            &self.start,
            &self.moves,
            &self.tt,
            &self.ctl,
            settings,
            limits.clone(),
        );
        let currmove_sink = Arc::clone(&self.sink);
        let dialect = self.dialect;
        searcher.report_currmove(Box::new(move |c| {
            let _ = currmove_sink.line(&protocol::currmove_line(dialect, &c));
        }));
        let mut report = |info: &Info| {
            if info.multipv > user_multi_pv || self.ctl.silent.load(Ordering::SeqCst) {
                return;
            }
            for l in protocol::info_lines(self.dialect, self.show_wdl, info) {
                let _ = self.sink.line(&l);
            }
        };
        let choice = self.strength.search(&mut searcher, self.seed, &mut report);
        search::wait_for_release(&self.ctl, &limits);
        helper_ctl.stop.store(true, Ordering::SeqCst);
        for h in helpers {
            let _ = h.join();
        }
        if let Some(line) = choice.line.as_ref().filter(|l| l.multipv != 1) {
            // The last line before `bestmove` starts with the move played.
            report(&Info {
                multipv: 1,
                ..line.clone()
            });
        }
        let text = protocol::bestmove_line(
            self.dialect,
            choice.best,
            choice.ponder,
            self.draw_offered.load(Ordering::SeqCst),
            choice.score,
        );
        let mut o = self.sink.out.lock().unwrap_or_else(|e| e.into_inner());
        self.done.store(true, Ordering::SeqCst);
        if !self.ctl.silent.load(Ordering::SeqCst) {
            let _ = o.write_all(text.as_bytes());
            let _ = o.write_all(b"\n");
            let _ = o.flush();
        }
    }
}
