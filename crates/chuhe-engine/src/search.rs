//! The search: iterative deepening with aspiration windows, principal variation search, a shared
//! transposition table, quiescence search, null-move pruning, late move reductions, futility and
//! late-move pruning, killer and history ordering, check extensions, mate scores, the repetition
//! and no-capture rules of the game, MultiPV and time management.
//!
//! Scores are centipawns from the side to move's view; a mate in `n` plies scores
//! `MATE - n` (being mated: `-(MATE - n)`). A repetition that the rules score as a loss counts as
//! being mated at that ply.

use crate::eval::{evaluate, kind_value};
use crate::movepick::{Heuristics, MovePicker, HISTORY_MAX, MAX_PLY};
use crate::rules::{Path, Verdict};
use crate::tt::{Bound, Entry, Table};
use chuhe_rules::xiangqi::{Color, Kind, Move, Piece, Position, DEFAULT_NO_CAPTURE_LIMIT};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The score of a mate at the root (mate in `n` plies scores `MATE - n`).
pub const MATE: i32 = 30_000;
/// Scores at or beyond this (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Larger than any score.
pub const INFINITE: i32 = 32_000;
/// The deepest iteration.
pub const MAX_DEPTH: i32 = 100;

/// Reverse futility margin per ply of depth.
const RFP_MARGIN: i32 = 85;
/// Futility margin: base and per ply.
const FUTILITY_BASE: i32 = 110;
const FUTILITY_PER_PLY: i32 = 90;
/// Quiescence delta-pruning margin.
const DELTA_MARGIN: i32 = 150;
/// Aspiration window half-width at the start.
const ASPIRATION: i32 = 30;

/// What limits a search (`go` parameters, `spec/engine-protocol.md` §5). `None` = no limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Red's remaining clock, milliseconds.
    pub wtime: Option<u64>,
    /// Black's remaining clock, milliseconds.
    pub btime: Option<u64>,
    /// Red's increment, milliseconds.
    pub winc: Option<u64>,
    /// Black's increment, milliseconds.
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u64>,
    /// Stop after completing this iteration.
    pub depth: Option<i32>,
    /// Stop once this many nodes are searched.
    pub nodes: Option<u64>,
    /// Search this long, milliseconds.
    pub movetime: Option<u64>,
    /// Stop once a mate in this many moves is found.
    pub mate: Option<u32>,
    /// Search until `stop` (no `bestmove` before it).
    pub infinite: bool,
    /// Pondering: no time limit until `ponderhit`.
    pub ponder: bool,
    /// Only these root moves (empty: all).
    pub searchmoves: Vec<Move>,
    /// Root moves never to play (UCCI `banmoves`).
    pub banmoves: Vec<Move>,
}

impl Limits {
    /// Whether no limit is set at all (`go` alone means `infinite`).
    pub fn is_unlimited(&self) -> bool {
        self.wtime.is_none()
            && self.btime.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.mate.is_none()
    }
}

/// Search settings from the engine options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Number of principal variations reported (at least 1).
    pub multi_pv: usize,
    /// Plies without capture that draw; 0 = off (default
    /// [`DEFAULT_NO_CAPTURE_LIMIT`], 120, as in the rules).
    pub no_capture_limit: u16,
    /// Milliseconds kept in reserve per move.
    pub move_overhead_ms: u64,
    /// 0..=20; 20 = full strength.
    pub skill_level: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            multi_pv: 1,
            no_capture_limit: DEFAULT_NO_CAPTURE_LIMIT,
            move_overhead_ms: 10,
            skill_level: 20,
        }
    }
}

/// Shared between the protocol thread and the search: stop and ponder signals.
#[derive(Debug, Default)]
pub struct Control {
    /// Set to end the search.
    pub stop: AtomicBool,
    /// True while pondering; cleared by `ponderhit`.
    pub pondering: AtomicBool,
    /// When `ponderhit` arrived (the time limits count from then).
    pub ponderhit_at: Mutex<Option<Instant>>,
    /// Nodes searched by helper threads (lazy SMP), for reporting.
    pub helper_nodes: AtomicU64,
    /// Set by `quit`: the search prints nothing more.
    pub silent: AtomicBool,
}

/// A score as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// The reported form of an internal score.
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-((MATE + v) / 2))
        } else {
            Score::Cp(v)
        }
    }
}

/// One `info … pv` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// Completed depth.
    pub depth: i32,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// Line number, 1-based.
    pub multipv: usize,
    /// The internal score (see [`Score::from_internal`]).
    pub score: i32,
    /// `Some` when the score is only a bound (aspiration fail).
    pub bound: Option<Bound>,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds since the start.
    pub time_ms: u64,
    /// Transposition table use, per mille.
    pub hashfull: u32,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The move to play; `None` when there is no legal (or allowed) move.
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The internal score of the best move.
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
}

#[derive(Debug, Clone)]
struct RootMove {
    mv: Move,
    score: i32,
    prev_score: i32,
    pv: Vec<Move>,
    seldepth: usize,
}

/// Time budget in milliseconds: a soft target and a hard stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeBudget {
    /// Do not start another iteration after about this (scaled by the best move's stability).
    pub soft_ms: u64,
    /// Stop the search at this.
    pub hard_ms: u64,
}

/// The least a `go movetime N` searches when `Move Overhead` would leave less (or `N` itself
/// when smaller), in milliseconds.
pub const MIN_MOVETIME_MS: u64 = 1;

/// The time budget for a move, or `None` when no clock or movetime applies. `overhead_ms`
/// (`Move Overhead`) is kept in reserve from a clock and from a fixed `movetime` alike.
pub fn time_budget(limits: &Limits, side: Color, overhead_ms: u64) -> Option<TimeBudget> {
    if let Some(mt) = limits.movetime {
        // A fixed time per move, less `Move Overhead` (issue 27: at XBoard's 1 s per move,
        // which its adapter sends as `movetime 970`, every game was lost on time by 2–40 ms when
        // the whole time was searched; Pikafish keeps the overhead only from a clock), at least
        // [`MIN_MOVETIME_MS`]: the soft target lies past the hard stop.
        let t = mt
            .saturating_sub(overhead_ms)
            .max(MIN_MOVETIME_MS.min(mt))
            .max(1);
        return Some(TimeBudget {
            soft_ms: t * 2,
            hard_ms: t,
        });
    }
    // A clock given only for the other side is taken as ours rather than searching forever.
    let (time, inc) = match side {
        Color::Red => (limits.wtime.or(limits.btime)?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime.or(limits.wtime)?, limits.binc.unwrap_or(0)),
    };
    let mtg = limits.movestogo.unwrap_or(32).clamp(1, 32);
    let usable = time.saturating_sub(overhead_ms).max(1);
    let soft = (usable / mtg + inc * 3 / 4).min(usable * 3 / 5).max(1);
    let hard = (soft * 4).min(usable * 4 / 5).max(1);
    Some(TimeBudget {
        soft_ms: soft.min(hard),
        hard_ms: hard,
    })
}

/// How long a search runs before it reports the root move it is searching (`currmove`), as
/// Stockfish and Pikafish do for long searches; GUIs such as XBoard show it.
pub const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// The root move being searched, reported after [`CURRMOVE_AFTER`] (UCI `info depth D currmove
/// M currmovenumber N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CurrMove {
    /// The iteration's depth.
    pub depth: i32,
    /// The root move.
    pub mv: Move,
    /// Its number in the iteration's order, 1-based.
    pub number: usize,
}

/// Receives [`CurrMove`] reports (see [`Searcher::report_currmove`]).
pub type CurrMoveReport<'a> = Box<dyn FnMut(CurrMove) + Send + 'a>;

/// One search thread's state.
pub struct Searcher<'a> {
    currmove: Option<CurrMoveReport<'a>>,
    pos: Position,
    path: Path,
    root: usize,
    tt: &'a Table,
    ctl: &'a Control,
    heur: Box<Heuristics>,
    settings: Settings,
    limits: Limits,
    budget: Option<TimeBudget>,
    start: Instant,
    was_pondering: bool,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    root_depth: i32,
    pv: Vec<Vec<Move>>,
    evals: Vec<i32>,
    main: bool,
    first_depth: i32,
}

impl<'a> Searcher<'a> {
    /// A searcher for the position reached from `start` by `moves` (the game history, used for
    /// repetitions); the moves must be legal.
    pub fn new(
        start: &Position,
        moves: &[Move],
        tt: &'a Table,
        ctl: &'a Control,
        settings: Settings,
        limits: Limits,
    ) -> Searcher<'a> {
        let mut pos = start.clone();
        let mut path = Path::new(&pos);
        for &m in moves {
            path.play(&mut pos, m);
        }
        let root = path.last();
        let budget = time_budget(&limits, pos.side_to_move(), settings.move_overhead_ms);
        let was_pondering = limits.ponder;
        Searcher {
            currmove: None,
            pos,
            path,
            root,
            tt,
            ctl,
            heur: Box::default(),
            settings,
            limits,
            budget,
            start: Instant::now(),
            was_pondering,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_depth: 0,
            pv: vec![Vec::new(); MAX_PLY + 2],
            evals: vec![0; MAX_PLY + 2],
            main: true,
            first_depth: 1,
        }
    }

    /// Sends `report` the root move being searched once the search has run for
    /// [`CURRMOVE_AFTER`] (main thread only). The reports depend on time, never change the
    /// search: nodes, scores and moves stay the same.
    pub fn report_currmove(&mut self, report: CurrMoveReport<'a>) {
        self.currmove = Some(report);
    }

    /// Makes this a silent helper thread (lazy SMP): it searches deeper first on odd ids and
    /// never stops the search itself except by the hard limits.
    pub fn set_helper(&mut self) {
        self.main = false;
    }

    /// Helper `id` starts its iterations `id % 2` plies deeper, so helpers spread over depths.
    pub fn skip_depths(&mut self, id: usize) {
        self.first_depth = 1 + (id % 2) as i32;
    }

    /// The settings this searcher runs with (`multi_pv` as [`Searcher::run_lines`] last set it).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn poll(&mut self) {
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                self.stopped = true;
            }
        }
        if self.nodes & 1023 != 0 {
            return;
        }
        if self.ctl.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.was_pondering {
            if self.ctl.pondering.load(Ordering::Relaxed) {
                return;
            }
            self.was_pondering = false;
            if let Some(t) = *self
                .ctl
                .ponderhit_at
                .lock()
                .unwrap_or_else(|e| e.into_inner())
            {
                self.start = t;
            }
        }
        if let Some(b) = self.budget {
            if self.root_depth > 1 && self.elapsed_ms() >= b.hard_ms {
                self.stopped = true;
            }
        }
    }

    fn rule_score(&self, ply: usize) -> Option<i32> {
        if let Some(v) = self.path.repetition(&self.pos, self.root) {
            return Some(match v {
                Verdict::Draw => {
                    if self.pos.has_legal_move() {
                        0
                    } else {
                        -(MATE - ply as i32)
                    }
                }
                Verdict::Loss => -(MATE - ply as i32),
                Verdict::Win => {
                    if self.pos.has_legal_move() {
                        MATE - ply as i32
                    } else {
                        -(MATE - ply as i32)
                    }
                }
            });
        }
        let limit = self.settings.no_capture_limit;
        if limit > 0 && self.pos.halfmove() >= limit {
            return Some(if self.pos.has_legal_move() {
                0
            } else {
                -(MATE - ply as i32)
            });
        }
        None
    }

    fn make(&mut self, m: Move) {
        self.path.play(&mut self.pos, m);
    }

    fn unmake(&mut self) {
        self.path.undo(&mut self.pos);
    }

    fn has_attackers(&self, c: Color) -> bool {
        (self.pos.by_piece(Piece::new(c, Kind::Chariot))
            | self.pos.by_piece(Piece::new(c, Kind::Horse))
            | self.pos.by_piece(Piece::new(c, Kind::Cannon)))
        .is_nonempty()
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// Principal variation search of the node at `ply`.
    fn search(&mut self, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply);
        }
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        self.nodes += 1;
        self.poll();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            if let Some(s) = self.rule_score(ply) {
                return s;
            }
            alpha = alpha.max(-(MATE - ply as i32));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = self.path.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { 0 } else { evaluate(&self.pos) };
        }
        let key = self.pos.key();
        let tte = self.tt.probe(key);
        let tt_move = tte.and_then(|e| e.mv);
        if let Some(e) = tte {
            if !pv_node && e.depth >= depth {
                if let Some(s) = tt_cutoff(e.score, e.bound, ply, alpha, beta) {
                    return s;
                }
            }
        }
        let static_eval = if in_check {
            -INFINITE
        } else {
            tte.map_or_else(|| evaluate(&self.pos), |e| e.eval)
        };
        self.evals[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.evals[ply - 2];
        let us = self.pos.side_to_move();

        if !pv_node && !in_check && ply > 0 {
            // Reverse futility pruning.
            if depth <= 5
                && static_eval.abs() < MATE_BOUND
                && static_eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta
            {
                return static_eval;
            }
            // Null move: only with an attacking piece left (zugzwang is common without).
            if depth >= 3
                && static_eval >= beta
                && self.has_attackers(us)
                && self.path.last() > 0
                && beta.abs() < MATE_BOUND
            {
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(2);
                self.path.play_null(&mut self.pos);
                let s = -self.search(depth - 1 - r, -beta, -beta + 1, ply + 1);
                self.path.undo_null(&mut self.pos);
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }
        // Internal iterative reduction.
        if depth >= 4 && tt_move.is_none() {
            depth -= 1;
        }

        let killers = self.heur.killers[ply.min(MAX_PLY - 1)];
        let picker = MovePicker::new(&self.pos, tt_move, killers, &self.heur);
        if picker.is_empty() {
            // No legal move: checkmate or stalemate, both lost.
            return -(MATE - ply as i32);
        }
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut move_count = 0;
        let mut quiets: Vec<Move> = Vec::new();
        let orig_alpha = alpha;
        for m in picker {
            let capture = self.pos.is_capture(m);
            let hist = if capture {
                0
            } else {
                self.heur.history_of(&self.pos, m)
            };
            let is_killer = killers.contains(&Some(m));
            move_count += 1;
            self.make(m);
            let gives_check = self.path.in_check();
            if ply > 0 && !in_check && !capture && !gives_check && best > -MATE_BOUND && !pv_node {
                // Late move pruning and futility pruning of quiet moves.
                let lmp_limit = 3 + depth * depth / if improving { 1 } else { 2 };
                if depth <= 5 && move_count > lmp_limit as usize {
                    self.unmake();
                    continue;
                }
                if depth <= 5
                    && static_eval + FUTILITY_BASE + FUTILITY_PER_PLY * depth <= alpha
                    && !is_killer
                {
                    self.unmake();
                    continue;
                }
            }
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            let mut score;
            if move_count == 1 {
                score = -self.search(new_depth, -beta, -alpha, ply + 1);
            } else {
                let mut r = 0;
                if depth >= 3 && move_count > 2 && !capture && !gives_check && !in_check {
                    r = lmr(depth, move_count);
                    if pv_node {
                        r -= 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if is_killer {
                        r -= 1;
                    }
                    r -= hist / (HISTORY_MAX / 2);
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.search(new_depth - r, -alpha - 1, -alpha, ply + 1);
                if score > alpha && r > 0 {
                    score = -self.search(new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.search(new_depth, -beta, -alpha, ply + 1);
                }
            }
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if !capture {
                            self.heur.add_killer(ply, m);
                            let bonus = (depth * depth * 16).min(HISTORY_MAX);
                            self.heur.update_history(&self.pos, m, bonus);
                            for &q in &quiets {
                                self.heur.update_history(&self.pos, q, -bonus);
                            }
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if !capture && Some(m) != best_move {
                quiets.push(m);
            }
        }
        if best == -INFINITE {
            // Every move was pruned: fail low at alpha.
            best = alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > orig_alpha && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Entry {
                mv: best_move.or(tt_move),
                score: score_to_tt(best, ply),
                eval: if in_check { 0 } else { static_eval },
                depth,
                bound,
            },
        );
        best
    }

    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        self.poll();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = self.path.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { 0 } else { evaluate(&self.pos) };
        }
        let key = self.pos.key();
        let tte = self.tt.probe(key);
        let pv_node = beta - alpha > 1;
        if let Some(e) = tte {
            if !pv_node {
                if let Some(s) = tt_cutoff(e.score, e.bound, ply, alpha, beta) {
                    return s;
                }
            }
        }
        let stand = if in_check {
            -INFINITE
        } else {
            tte.map_or_else(|| evaluate(&self.pos), |e| e.eval)
        };
        let mut best = stand;
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        }
        let picker = MovePicker::new_quiescence(&self.pos, in_check, tte.and_then(|e| e.mv));
        let mut best_move = None;
        let orig_alpha = alpha;
        let mut any = false;
        for m in picker {
            any = true;
            if !in_check {
                let victim = self.pos.piece_at(m.to).map_or(0, |p| kind_value(p.kind));
                if stand + victim + DELTA_MARGIN <= alpha {
                    continue;
                }
            }
            self.make(m);
            let score = -self.qsearch(-beta, -alpha, ply + 1);
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        if in_check && !any {
            return -(MATE - ply as i32);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > orig_alpha && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Entry {
                mv: best_move,
                score: score_to_tt(best, ply),
                eval: if in_check { 0 } else { stand },
                depth: 0,
                bound,
            },
        );
        best
    }

    /// Searches the root moves `rms[pv_idx..]` with window (alpha, beta); updates their scores
    /// and PVs and sorts them. Returns the best score.
    fn root_search(
        &mut self,
        rms: &mut [RootMove],
        pv_idx: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        self.pv[0].clear();
        let mut best = -INFINITE;
        #[allow(clippy::needless_range_loop)]
        for i in pv_idx..rms.len() {
            let m = rms[i].mv;
            if self.main && self.currmove.is_some() && self.start.elapsed() >= CURRMOVE_AFTER {
                if let Some(report) = self.currmove.as_mut() {
                    report(CurrMove {
                        depth,
                        mv: m,
                        number: i + 1,
                    });
                }
            }
            let capture = self.pos.is_capture(m);
            self.seldepth = 0;
            self.make(m);
            let gives_check = self.path.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let mut score;
            if i == pv_idx {
                score = -self.search(new_depth, -beta, -alpha, 1);
            } else {
                let r = if depth >= 3 && i >= pv_idx + 3 && !gives_check && !capture {
                    1
                } else {
                    0
                };
                score = -self.search(new_depth - r, -alpha - 1, -alpha, 1);
                if score > alpha && r > 0 {
                    score = -self.search(new_depth, -alpha - 1, -alpha, 1);
                }
                if score > alpha && score < beta {
                    score = -self.search(new_depth, -beta, -alpha, 1);
                }
            }
            self.unmake();
            if self.stopped {
                break;
            }
            let rm = &mut rms[i];
            if i == pv_idx || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.pv[1]);
            } else {
                rm.score = -INFINITE;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        best
    }

    /// Runs iterative deepening; `report` receives each `info … pv` line. Returns the best move.
    pub fn run(&mut self, report: &mut dyn FnMut(&Info)) -> Outcome {
        self.start = Instant::now();
        let mut legal = self.pos.legal_moves();
        // Order the root moves: hash move, captures, then the rest (the picker's order).
        let tt_move = self.tt.probe(self.pos.key()).and_then(|e| e.mv);
        let ordered: Vec<Move> =
            MovePicker::new(&self.pos, tt_move, [None, None], &self.heur).collect();
        legal.retain(|m| {
            (self.limits.searchmoves.is_empty() || self.limits.searchmoves.contains(&m))
                && !self.limits.banmoves.contains(&m)
        });
        let mut rms: Vec<RootMove> = ordered
            .into_iter()
            .filter(|m| legal.contains(*m))
            .map(|m| RootMove {
                mv: m,
                score: -INFINITE,
                prev_score: -INFINITE,
                pv: vec![m],
                seldepth: 0,
            })
            .collect();
        if rms.is_empty() {
            return Outcome {
                best: None,
                ponder: None,
                score: -(MATE),
                depth: 0,
                nodes: 0,
            };
        }
        let multi_pv = self.settings.multi_pv.clamp(1, rms.len());
        let max_depth = self.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut completed = 0;
        let mut best_changes = 0;
        let mut last_best = rms[0].mv;
        let mut last_reported: Option<Move> = None;
        for depth in self.first_depth.min(max_depth)..=max_depth {
            self.root_depth = depth;
            for rm in rms.iter_mut() {
                rm.prev_score = rm.score;
            }
            for pv_idx in 0..multi_pv {
                let prev = rms[pv_idx].prev_score;
                let mut delta = ASPIRATION;
                let (mut alpha, mut beta) = if depth >= 5 && prev.abs() < MATE_BOUND {
                    ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let score = self.root_search(&mut rms, pv_idx, depth, alpha, beta);
                    rms[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INFINITE);
                    } else if score >= beta {
                        beta = (score + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    delta += delta / 2 + 10;
                    if delta > 1000 {
                        alpha = -INFINITE;
                        beta = INFINITE;
                    }
                }
                rms[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                // An interrupted iteration keeps the best move of the last completed one unless
                // its first line was fully searched.
                if completed == 0 {
                    rms.sort_by_key(|rm| std::cmp::Reverse(rm.score));
                }
                break;
            }
            completed = depth;
            if self.main {
                self.tt.store(
                    self.pos.key(),
                    Entry {
                        mv: Some(rms[0].mv),
                        score: score_to_tt(rms[0].score, 0),
                        eval: evaluate(&self.pos),
                        depth,
                        bound: Bound::Exact,
                    },
                );
            }
            if rms[0].mv != last_best {
                best_changes += 1;
                last_best = rms[0].mv;
            }
            if self.main {
                last_reported = Some(rms[0].mv);
                let time_ms = self.elapsed_ms();
                let hashfull = self.tt.hashfull();
                let nodes = self.nodes + self.ctl.helper_nodes.load(Ordering::Relaxed);
                for (i, rm) in rms.iter().take(multi_pv).enumerate() {
                    report(&Info {
                        depth,
                        seldepth: rm.seldepth.max(1),
                        multipv: i + 1,
                        score: rm.score,
                        bound: None,
                        nodes,
                        time_ms,
                        hashfull,
                        pv: rm.pv.clone(),
                    });
                }
            }
            let best_score = rms[0].score;
            if let Some(n) = self.limits.mate {
                if best_score >= MATE_BOUND && MATE - best_score < 2 * n as i32 {
                    break;
                }
            }
            // A proven mate needs no deeper search once the depth exceeds it.
            if best_score.abs() >= MATE_BOUND
                && depth > (MATE - best_score.abs()) + 2
                && self.limits.depth.is_none()
                && !self.limits.infinite
                && !self.was_pondering
            {
                break;
            }
            if let Some(b) = self.budget {
                if !self.was_pondering && self.main {
                    let scale = if best_changes > 0 && depth >= 6 {
                        1.3
                    } else {
                        0.6
                    };
                    best_changes = 0;
                    if self.elapsed_ms() as f64 >= b.soft_ms as f64 * scale {
                        break;
                    }
                }
            }
            if rms.len() == 1 && self.budget.is_some() && !self.was_pondering && depth >= 4 {
                break;
            }
        }
        let best = &rms[0];
        if self.main && last_reported != Some(best.mv) {
            // The last line before `bestmove` starts with the best move.
            let nodes = self.nodes + self.ctl.helper_nodes.load(Ordering::Relaxed);
            report(&Info {
                depth: completed.max(1),
                seldepth: best.seldepth.max(1),
                multipv: 1,
                score: best.score.max(-INFINITE + 1),
                bound: None,
                nodes,
                time_ms: self.elapsed_ms(),
                hashfull: self.tt.hashfull(),
                pv: best.pv.clone(),
            });
        }
        Outcome {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score: best.score,
            depth: completed,
            nodes: self.nodes,
        }
    }

    /// Runs the search with `n` lines and returns the `info` lines of the last completed
    /// iteration, best first (for strength limiting).
    pub fn run_lines(&mut self, n: usize, report: &mut dyn FnMut(&Info)) -> Vec<Info> {
        self.settings.multi_pv = n;
        let mut lines: Vec<Info> = Vec::new();
        let mut collect = |info: &Info| {
            if info.multipv == 1 {
                lines.clear();
            }
            lines.push(info.clone());
            report(info);
        };
        self.run(&mut collect);
        lines
    }
}

fn lmr(depth: i32, move_count: usize) -> i32 {
    let d = f64::from(depth.max(1));
    let m = move_count.max(1) as f64;
    (0.6 + d.ln() * m.ln() / 2.2) as i32
}

fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// The score of a table entry found at `ply` (mate distances made relative to the root) when
/// its bound ends the search of the window `(alpha, beta)` at once, else `None`.
#[inline]
fn tt_cutoff(stored: i32, bound: Bound, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = score_from_tt(stored, ply);
    let cut = match bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Waits while a search must not end yet: `go infinite` or `go ponder` before `stop` or
/// `ponderhit`.
pub fn wait_for_release(ctl: &Control, limits: &Limits) {
    let must_wait = || {
        !ctl.stop.load(Ordering::Relaxed)
            && (limits.infinite || limits.is_unlimited() || ctl.pondering.load(Ordering::Relaxed))
    };
    while must_wait() {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(fen: &str, moves: &str, depth: i32) -> Outcome {
        let start = Position::from_fen(fen).unwrap();
        let moves: Vec<Move> = moves
            .split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect();
        let tt = Table::new(4).unwrap();
        let ctl = Control::default();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let mut s = Searcher::new(&start, &moves, &tt, &ctl, Settings::default(), limits);
        s.run(&mut |_| {})
    }

    #[test]
    fn avoids_losing_by_perpetual_check() {
        let out = best(
            "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1",
            "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8",
            4,
        );
        assert_ne!(out.best, Some("a9a8".parse().unwrap()));
        assert!(out.best.is_some());
    }

    #[test]
    fn time_budget_stays_inside_the_clock() {
        let l = Limits {
            wtime: Some(1000),
            winc: Some(0),
            ..Limits::default()
        };
        let b = time_budget(&l, Color::Red, 10).unwrap();
        assert!(b.hard_ms < 990 && b.soft_ms <= b.hard_ms, "{b:?}");
        let l = Limits {
            movetime: Some(100),
            ..Limits::default()
        };
        assert_eq!(
            time_budget(&l, Color::Black, 10),
            Some(TimeBudget {
                soft_ms: 180,
                hard_ms: 90
            })
        );
        assert_eq!(time_budget(&Limits::default(), Color::Red, 10), None);
    }

    /// Issue 27: `Move Overhead` is kept from `go movetime` too, down to a floor of
    /// [`MIN_MOVETIME_MS`].
    #[test]
    fn movetime_keeps_the_move_overhead() {
        let budget = |movetime, overhead| {
            let l = Limits {
                movetime: Some(movetime),
                ..Limits::default()
            };
            time_budget(&l, Color::Red, overhead).unwrap().hard_ms
        };
        assert_eq!(budget(1000, 30), 970);
        assert_eq!(budget(970, 10), 960);
        assert_eq!(budget(1000, 0), 1000);
        assert_eq!(budget(20, 30), MIN_MOVETIME_MS);
        assert_eq!(budget(0, 10), 1);
    }

    #[test]
    fn mate_scores_convert() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(35), Score::Cp(35));
    }
}
