//! The banqi (dark chess) computer player. It plays **only from its seat's view**: its inputs
//! are a [`View`] (face-up pieces, face-down squares, the pool of unrevealed pieces, the colour
//! to move, the quiet counter) and the public keys of the positions since the last flip or
//! capture (for the repetition rule); it is never given a truth.
//!
//! The search is an expectimax with chance nodes for flips:
//!
//! - moves and captures are searched by iterative-deepening alpha-beta (negamax) with a
//!   transposition table and a capture-only quiescence search;
//! - a flip at the root is a chance node: every piece type the pool still holds is revealed in
//!   turn (probability = its count / pool size) and answered by a quiescence search (one or
//!   two plies more when few face-down pieces remain); the flip's value is the
//!   probability-weighted mean;
//! - inside the tree, a side that may still flip is assumed to have a flip worth about the
//!   static evaluation (it is never forced into a bad move while a flip is available);
//! - end rules: a side with no pieces or no legal action loses, 180 quiet turns draw, and a
//!   position seen again since the last flip or capture counts as a draw (the game's threefold
//!   rule, anticipated);
//! - the evaluation values each piece by what it can still capture among the enemy's remaining
//!   pieces (face up and in the pool) and what can capture it, and knows the forced rank
//!   endings: a piece that can take an enemy piece which cannot take it hunts it (distance
//!   terms), and when neither side can ever capture again the position is a draw.

use crate::kit::{self, Counter, LevelTable, Table, INF};
use crate::levels::{pick, Budget, Rng};
use chuhe_rules::banqi::{can_step_capture, Action, Cell, Record, Square, View, CANONICAL_KINDS};
use chuhe_rules::xiangqi::Kind;

/// An empty square in the search board.
const EMPTY: u8 = 0xFF;
/// A face-down square in the search board.
const DOWN: u8 = 0xFE;
/// No colour to move yet (before the first flip).
const NO_TURN: u8 = 2;
/// The score of a win at the root (a win found `n` plies deeper scores `WIN - n`).
pub const WIN: i32 = kit::WIN;
/// The 180-turn rule (`spec/banqi.md` §2.3).
const QUIET_LIMIT: u8 = 180;

/// What the player is asked: the seat's view and the positions since the last flip or capture
/// (what the repetition rule counts), kept as search keys of their public boards.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The view of the seat to move.
    pub view: View,
    /// Search keys of the public boards since the last irreversible turn, the current last.
    stretch: Vec<u64>,
}

impl Problem {
    /// The problem after replaying `records` from the public `start` view (the game's recorded
    /// turns: flips with their revealed pieces).
    ///
    /// # Errors
    /// `move N "TEXT": REASON` for the first record that does not replay (N counts from 1).
    pub fn replay(start: &View, records: &[Record]) -> Result<Problem, String> {
        let mut view = start.clone();
        let mut stretch = vec![Board::from_view(&view).key()];
        for (i, r) in records.iter().enumerate() {
            view.play_recorded(*r)
                .map_err(|e| format!("move {} \"{r}\": {e}", i + 1))?;
            if !matches!(r, Record::Move { .. }) {
                stretch.clear();
            }
            stretch.push(Board::from_view(&view).key());
        }
        Ok(Problem { view, stretch })
    }

    /// The problem of `view` reached by the game's `records` (all of them, or at least the
    /// latest): the positions since the last flip or capture are rebuilt from the view by taking
    /// back the trailing steps, so no start view is needed. The records must be the ones that
    /// led to `view` (a server's own game).
    pub fn recent(view: View, records: &[Record]) -> Problem {
        let mut b = Board::from_view(&view);
        let mut stretch = vec![b.key()];
        for r in records.iter().rev().take(usize::from(view.quiet())) {
            let Record::Move { from, to } = *r else {
                break;
            };
            let (f, t) = (from.index(), to.index());
            if b.cells[f] != EMPTY || b.cells[t] >= 14 || b.turn == NO_TURN {
                break;
            }
            b.cells[f] = b.cells[t];
            b.cells[t] = EMPTY;
            b.turn = 1 - b.turn;
            stretch.push(b.key());
        }
        stretch.reverse();
        Problem { view, stretch }
    }

    /// A problem from a view alone (no earlier positions known).
    pub fn from_view(view: View) -> Problem {
        let stretch = vec![Board::from_view(&view).key()];
        Problem { view, stretch }
    }
}

/// The banqi player's levels 1–8: depth cap (plies), node budget and noise (evaluation units;
/// a soldier is worth about 100).
#[derive(Debug)]
pub struct Levels;

impl LevelTable for Levels {
    const DEPTH_CAP: [i32; 8] = [1, 2, 2, 3, 3, 4, 6, 64];
    const NODES: [u64; 8] = [
        4_000, 8_000, 15_000, 30_000, 60_000, 120_000, 250_000, 600_000,
    ];
    const NOISE: [i32; 8] = [400, 200, 100, 80, 25, 30, 12, 0];
}

/// The search limits of a banqi level: depth cap, node budget (capped by the level's time
/// budget) and noise ([`kit::Settings::level`], [`kit::Settings::full`]).
pub type Settings = kit::Settings<Levels>;

/// The move of the player at `level` for the seat to move; `None` when it has no legal action.
/// The same problem, level and seed give the same move (unless the time budget cuts the search
/// short on a slow machine).
pub fn choose(problem: &Problem, level: u8, seed: u64) -> Option<Action> {
    choose_with(problem, Settings::level(level), seed)
}

/// The move with explicit [`Settings`].
pub fn choose_with(problem: &Problem, settings: Settings, seed: u64) -> Option<Action> {
    let board = Board::from_view(&problem.view);
    let mut s = Search::new(settings.budget, &problem.stretch);
    let scored = s.root(&board, settings.depth, settings.noise);
    let mut rng = Rng::new(seed);
    pick(&scored, settings.noise, &mut rng)
}

/// The analysis of a view ([`analyse`]): the best action for the side to move and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Analysis {
    /// The best action found (a flip's value is its mean over the pool); `None` when the side
    /// to move has no legal action.
    pub best: Option<Action>,
    /// Its value from the view of the side to move, in the evaluation's units (a Soldier with
    /// targets is worth about 100); a win found `n` plies deeper scores [`WIN`]` - n`, a loss
    /// the negative.
    pub score: i32,
    /// The deepest search of a root turn that finished, plies (a flip counts with the replies
    /// searched after it).
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
}

/// Full-strength analysis of the problem's view within `budget`: the view alone is read, so
/// two games whose views agree get the same analysis whatever lies face down.
pub fn analyse(problem: &Problem, budget: Budget) -> Analysis {
    let board = Board::from_view(&problem.view);
    let mut s = Search::new(budget, &problem.stretch);
    let scored = s.root(&board, 64, 0);
    let depth = s.deepest;
    // flips follow the moves in `scored`: the best is the highest value, the first on a tie
    let best = scored
        .iter()
        .fold(None::<(Action, i32)>, |acc, &(a, v)| match acc {
            Some((_, w)) if w >= v => acc,
            _ => Some((a, v)),
        });
    Analysis {
        best: best.map(|(a, _)| a),
        score: best.map_or(0, |(_, v)| v),
        depth,
        nodes: s.counter.nodes,
    }
}

/// The greedy one-ply player (for comparisons): the action whose resulting position evaluates
/// best without looking at any reply (a flip counts as the mean over the pool), ties broken by
/// `seed`.
pub fn greedy(problem: &Problem, seed: u64) -> Option<Action> {
    let board = Board::from_view(&problem.view);
    let mut scored = Vec::new();
    let mut moves = Vec::new();
    board.gen(&mut moves, false);
    for m in moves {
        let child = board.make(m);
        scored.push((m.action(), -evaluate(&child)));
    }
    for sq in board.flip_squares() {
        let v = board.flip_mean(sq, |c| -evaluate(c));
        scored.push((Action::Flip(square(sq)), v));
    }
    let mut rng = Rng::new(seed);
    // A little noise breaks ties without choosing worse moves.
    pick(&scored, 1, &mut rng)
}

/// The 32 squares by index (built at compile time).
const SQUARE_OF: [Square; 32] = {
    let mut all = [match Square::from_index(0) {
        Some(s) => s,
        None => panic!("a1 exists"),
    }; 32];
    let mut i = 0;
    while i < 32 {
        all[i] = match Square::from_index(i) {
            Some(s) => s,
            None => panic!("squares 0..32 exist"),
        };
        i += 1;
    }
    all
};

fn square(i: u8) -> Square {
    SQUARE_OF[usize::from(i) & 31]
}

/// Piece types by index 0..7 (K A E R H C P), colour = index / 7: the rules' canonical order.
const KINDS: [Kind; 7] = CANONICAL_KINDS;
const CANNON: usize = 5;

/// `CAN[a][t]`: a piece of type `a` captures a piece of type `t` (a cannon by jumping: any).
const fn capture_table() -> [[bool; 7]; 7] {
    let mut t = [[false; 7]; 7];
    let mut a = 0;
    while a < 7 {
        let mut b = 0;
        while b < 7 {
            t[a][b] = a == CANNON || can_step_capture(KINDS[a], KINDS[b]);
            b += 1;
        }
        a += 1;
    }
    t
}
const CAN: [[bool; 7]; 7] = capture_table();

/// Base values of the types (a soldier without targets ≈ 40).
const BASE: [i32; 7] = [300, 200, 130, 90, 60, 170, 40];

/// The four neighbours of each square (`EMPTY` when off the board).
const fn neighbour_table() -> [[u8; 4]; 32] {
    let mut t = [[EMPTY; 4]; 32];
    let mut i = 0;
    while i < 32 {
        let (f, r) = (i % 8, i / 8);
        if r < 3 {
            t[i][0] = (i + 8) as u8;
        }
        if r > 0 {
            t[i][1] = (i - 8) as u8;
        }
        if f > 0 {
            t[i][2] = (i - 1) as u8;
        }
        if f < 7 {
            t[i][3] = (i + 1) as u8;
        }
        i += 1;
    }
    t
}
const NEIGHBOURS: [[u8; 4]; 32] = neighbour_table();

/// The search key of feature `i` (a piece on a square, the colour to move): the `i`-th output
/// of the engine's one generator, drawn at random access ([`Rng::nth`]).
fn zobrist(i: usize) -> u64 {
    Rng::nth(i as u64)
}

/// A search move: `kind` 0 step, 1 capture, 2 flip (`from == to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mv {
    from: u8,
    to: u8,
    kind: u8,
}

impl Mv {
    fn action(self) -> Action {
        match self.kind {
            0 => Action::Move {
                from: square(self.from),
                to: square(self.to),
            },
            1 => Action::Capture {
                from: square(self.from),
                to: square(self.to),
            },
            _ => Action::Flip(square(self.from)),
        }
    }
}

/// The search board: a view in compact form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Board {
    /// Piece index 0..14, [`DOWN`] or [`EMPTY`].
    cells: [u8; 32],
    pool: [u8; 14],
    pool_len: u8,
    turn: u8,
    quiet: u8,
}

impl Board {
    fn from_view(v: &View) -> Board {
        let mut cells = [EMPTY; 32];
        for sq in Square::all() {
            cells[sq.index()] = match v.cell(sq) {
                Cell::Empty => EMPTY,
                Cell::FaceDown => DOWN,
                Cell::FaceUp(p) => p.index() as u8,
            };
        }
        let mut pool = [0u8; 14];
        for (p, n) in v.pool().iter() {
            pool[p.index()] = n;
        }
        Board {
            cells,
            pool,
            pool_len: pool.iter().sum(),
            turn: v.turn().map_or(NO_TURN, |c| c.index() as u8),
            quiet: v.quiet(),
        }
    }

    fn key(&self) -> u64 {
        let mut k = zobrist(1000 + usize::from(self.turn));
        for (i, &c) in self.cells.iter().enumerate() {
            if c != EMPTY {
                k ^= zobrist(i * 16 + usize::from(c & 15));
            }
        }
        k
    }

    /// Pieces of `color` left, face up or in the pool.
    fn remaining(&self, color: u8) -> u32 {
        let lo = usize::from(color) * 7;
        let up = self
            .cells
            .iter()
            .filter(|&&c| c < 14 && usize::from(c) / 7 == usize::from(color))
            .count() as u32;
        up + self.pool[lo..lo + 7]
            .iter()
            .map(|&n| u32::from(n))
            .sum::<u32>()
    }

    fn has_face_down(&self) -> bool {
        self.pool_len > 0
    }

    /// The face-down squares, which the side to move may flip, in index order.
    fn flip_squares(&self) -> impl Iterator<Item = u8> + '_ {
        (0..32u8).filter(|&sq| self.cells[usize::from(sq)] == DOWN)
    }

    /// Steps and captures of the side to move (`captures_only` leaves out steps), by from-square;
    /// the search orders them ([`order`]). The same set as the rules' legal moves (tested).
    fn gen(&self, out: &mut Vec<Mv>, captures_only: bool) {
        if self.turn == NO_TURN {
            return;
        }
        let us = self.turn;
        for from in 0..32usize {
            let p = self.cells[from];
            if p >= 14 || p / 7 != us {
                continue;
            }
            let k = usize::from(p % 7);
            for (dir, &to) in NEIGHBOURS[from].iter().enumerate() {
                if to == EMPTY {
                    continue;
                }
                let t = self.cells[usize::from(to)];
                if t == EMPTY {
                    if !captures_only {
                        out.push(Mv {
                            from: from as u8,
                            to,
                            kind: 0,
                        });
                    }
                } else if t < 14 && t / 7 != us && k != CANNON && CAN[k][usize::from(t % 7)] {
                    out.push(Mv {
                        from: from as u8,
                        to,
                        kind: 1,
                    });
                }
                if k == CANNON {
                    if let Some(to) = self.cannon_target(from, dir, us) {
                        out.push(Mv {
                            from: from as u8,
                            to,
                            kind: 1,
                        });
                    }
                }
            }
        }
    }

    fn cannon_target(&self, from: usize, dir: usize, us: u8) -> Option<u8> {
        let mut sq = from;
        let mut screen = false;
        loop {
            let next = NEIGHBOURS[sq][dir];
            if next == EMPTY {
                return None;
            }
            sq = usize::from(next);
            let c = self.cells[sq];
            if c == EMPTY {
                continue;
            }
            if !screen {
                screen = true;
                continue;
            }
            return (c < 14 && c / 7 != us).then_some(next);
        }
    }

    /// The board after a step or capture.
    fn make(&self, m: Mv) -> Board {
        let mut b = *self;
        b.cells[usize::from(m.to)] = b.cells[usize::from(m.from)];
        b.cells[usize::from(m.from)] = EMPTY;
        b.turn = 1 - b.turn;
        b.quiet = if m.kind == 1 {
            0
        } else {
            (b.quiet + 1).min(QUIET_LIMIT)
        };
        b
    }

    /// The board after flipping `sq` to reveal piece `p` (which the pool holds).
    fn reveal(&self, sq: u8, p: u8) -> Board {
        let mut b = *self;
        b.cells[usize::from(sq)] = p;
        b.pool[usize::from(p)] -= 1;
        b.pool_len -= 1;
        b.turn = if b.turn == NO_TURN {
            1 - p / 7
        } else {
            1 - b.turn
        };
        b.quiet = 0;
        b
    }

    /// The probability-weighted mean of `value` over the pieces a flip of `sq` may reveal.
    fn flip_mean(&self, sq: u8, mut value: impl FnMut(&Board) -> i32) -> i32 {
        let mut sum: i64 = 0;
        for p in 0..14u8 {
            let n = self.pool[usize::from(p)];
            if n > 0 {
                sum += i64::from(n) * i64::from(value(&self.reveal(sq, p)));
            }
        }
        (sum / i64::from(self.pool_len.max(1))) as i32
    }
}

/// The value of a piece of type `k` and colour `c` given the enemy's remaining types.
fn piece_value(k: usize, enemy: &[u8; 7]) -> i32 {
    let mut v = BASE[k];
    for (t, &n) in enemy.iter().enumerate() {
        let n = i32::from(n);
        if CAN[k][t] {
            v += 14 * n;
        }
        if CAN[t][k] {
            v -= 6 * n;
        }
    }
    v.max(10)
}

/// The static evaluation from the side to move's point of view (no turn yet: 0).
fn evaluate(b: &Board) -> i32 {
    if b.turn == NO_TURN {
        return 0;
    }
    // Remaining types per colour.
    let mut left = [[0u8; 7]; 2];
    for c in 0..2 {
        for k in 0..7 {
            left[c][k] = b.pool[c * 7 + k];
        }
    }
    let mut up = [(0usize, 0usize, 0usize); 32];
    let mut n_up = 0;
    for (sq, &p) in b.cells.iter().enumerate() {
        if p < 14 {
            let (c, k) = (usize::from(p / 7), usize::from(p % 7));
            left[c][k] += 1;
            up[n_up] = (sq, c, k);
            n_up += 1;
        }
    }
    let up = &up[..n_up];
    let mut score = [0i32; 2];
    let mut values = [[0i32; 7]; 2];
    for c in 0..2 {
        for k in 0..7 {
            values[c][k] = piece_value(k, &left[1 - c]);
            score[c] += values[c][k] * i32::from(left[c][k]);
        }
    }
    // Forced rank endings: nobody can ever capture again.
    if !b.has_face_down() {
        let can_hit = |c: usize| {
            (0..7).any(|k| left[c][k] > 0 && (0..7).any(|t| left[1 - c][t] > 0 && CAN[k][t]))
        };
        if !can_hit(0) && !can_hit(1) {
            return 0;
        }
    }
    // Hunting and fleeing: a piece that takes an enemy piece which cannot take it back gains by
    // closing in; mobility for face-up pieces.
    for &(sq, c, k) in up {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut free = 0;
        for &n in &NEIGHBOURS[sq] {
            if n != EMPTY && b.cells[usize::from(n)] == EMPTY {
                free += 1;
            }
        }
        score[c] += 2 * free;
        for &(sq2, c2, k2) in up {
            if c2 == c || !CAN[k][k2] || CAN[k2][k] || k == CANNON {
                continue;
            }
            let d = (f - (sq2 % 8) as i32).abs() + (r - (sq2 / 8) as i32).abs();
            score[c] += (10 - d).max(0) * values[1 - c][k2] / 40;
        }
    }
    let us = usize::from(b.turn);
    score[us] - score[1 - us] + 8
}

/// Slots of the transposition table: 2^16.
const TT_BITS: u32 = 16;
/// The budget is looked at every 256 nodes.
const CHECK_EVERY: u64 = 256;

struct Search {
    counter: Counter,
    /// Moves stored as (from, to, kind).
    tt: Table<(u8, u8, u8)>,
    /// Keys of the positions on the path and of the game's stretch (repetition).
    path: Vec<u64>,
    /// The deepest search of a root turn that finished, plies.
    deepest: i32,
}

impl Search {
    fn new(budget: Budget, stretch: &[u64]) -> Search {
        // The root itself is the stretch's last entry: a child that returns to it repeats.
        let path = stretch.to_vec();
        Search {
            counter: Counter::new(budget, CHECK_EVERY),
            tt: Table::new(TT_BITS),
            path,
            deepest: 0,
        }
    }

    fn tick(&mut self) -> bool {
        self.counter.tick()
    }

    /// Scores of every root action (from the mover's view); moves searched to the deepest
    /// finished iteration, flips as chance nodes.
    fn root(&mut self, b: &Board, max_depth: i32, noise: i32) -> Vec<(Action, i32)> {
        let mut moves = Vec::new();
        b.gen(&mut moves, false);
        let mut flips = Vec::new();
        if b.has_face_down() {
            let mut seen_flip = Vec::new();
            // Quiescence after the flip sees the revealed piece taken or taking; with few
            // pieces left face down the flips are rarer and worth a reply ply more.
            let flip_depth = match b.pool_len {
                0..=4 => 2,
                5..=10 => 1,
                _ => 0,
            };
            let flip_depth = flip_depth.min(max_depth - 1).max(0);
            for sq in b.flip_squares() {
                // Squares whose neighbourhood (and line) is identical give the same value;
                // the neighbourhood signature saves work on the opening's many equal flips.
                let sig = flip_signature(b, sq);
                if let Some(&(_, v)) = seen_flip.iter().find(|(s, _)| *s == sig) {
                    flips.push((sq, v));
                    continue;
                }
                let v = b.flip_mean(sq, |c| -self.negamax(c, flip_depth, -INF, INF, 1));
                seen_flip.push((sig, v));
                flips.push((sq, v));
            }
            if !self.counter.stopped && !flips.is_empty() {
                // a flip and the replies searched after it
                self.deepest = self.deepest.max(flip_depth + 1);
            }
        }
        let scored = kit::deepen(&moves, max_depth, noise, |m, depth, alpha| {
            let child = b.make(m);
            let v = -self.negamax(&child, depth - 1, -INF, -alpha, 1);
            if !self.counter.stopped {
                self.deepest = self.deepest.max(depth);
            }
            (!self.counter.stopped).then_some(v)
        });
        let mut out: Vec<(Action, i32)> =
            scored.into_iter().map(|(m, v)| (m.action(), v)).collect();
        out.extend(
            flips
                .into_iter()
                .map(|(sq, v)| (Action::Flip(square(sq)), v)),
        );
        if out.is_empty() {
            // Stopped before any move finished: the first legal action.
            if let Some(&m) = moves.first() {
                out.push((m.action(), 0));
            }
        }
        out
    }

    fn negamax(&mut self, b: &Board, depth: i32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        if b.turn == NO_TURN {
            return 0;
        }
        let us = b.turn;
        if b.remaining(us) == 0 {
            return -(WIN - ply);
        }
        if b.remaining(1 - us) == 0 {
            return WIN - ply;
        }
        if b.quiet >= QUIET_LIMIT {
            return 0;
        }
        let key = b.key();
        if b.quiet > 0 && self.repeats(key, b.quiet) {
            return 0;
        }
        if depth <= 0 {
            return self.quiesce(b, alpha, beta, ply, 0);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.mv;
            if let Some(score) = e.cutoff(depth, alpha, beta) {
                return score;
            }
        }
        let mut moves = Vec::with_capacity(48);
        b.gen(&mut moves, false);
        let face_down = b.has_face_down();
        if moves.is_empty() && !face_down {
            return -(WIN - ply);
        }
        order(b, &mut moves, tt_move);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        if face_down {
            // The flip option, valued at about the static evaluation.
            best = evaluate(b) - 10;
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
        self.path.push(key);
        for m in moves {
            let child = b.make(m);
            let v = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if self.counter.stopped {
                self.path.pop();
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some((m.from, m.to, m.kind));
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        self.tt
            .store(key, depth, (alpha0, beta), best, best_move.or(tt_move));
        best
    }

    /// Whether `key` is on the path or in the game's stretch within the last `quiet` turns.
    fn repeats(&self, key: u64, quiet: u8) -> bool {
        self.path
            .iter()
            .rev()
            .take(usize::from(quiet) + 1)
            .any(|&k| k == key)
    }

    fn quiesce(&mut self, b: &Board, mut alpha: i32, beta: i32, ply: i32, qdepth: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        let us = b.turn;
        if b.remaining(us) == 0 {
            return -(WIN - ply);
        }
        let stand = evaluate(b);
        if stand >= beta || qdepth >= 8 {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut moves = Vec::with_capacity(8);
        b.gen(&mut moves, true);
        order(b, &mut moves, None);
        let mut best = stand;
        for m in moves {
            let child = b.make(m);
            let v = -self.quiesce(&child, -beta, -alpha, ply + 1, qdepth + 1);
            if self.counter.stopped {
                return 0;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// What decides a flip's value for the search: the square's neighbours and the pieces on its
/// rank and file (cannon lines).
fn flip_signature(b: &Board, sq: u8) -> Vec<u8> {
    let s = usize::from(sq);
    let mut sig = Vec::with_capacity(12);
    for &n in &NEIGHBOURS[s] {
        sig.push(if n == EMPTY {
            0xFD
        } else {
            b.cells[usize::from(n)]
        });
    }
    for dir in 0..4 {
        let mut at = s;
        let mut line = Vec::new();
        loop {
            let n = NEIGHBOURS[at][dir];
            if n == EMPTY {
                break;
            }
            at = usize::from(n);
            if b.cells[at] != EMPTY {
                line.push(b.cells[at]);
                if line.len() == 2 {
                    break;
                }
            }
        }
        sig.extend(line);
        sig.push(0xFC);
    }
    sig
}

/// Orders moves: the table's move, captures by victim value then attacker, then steps.
fn order(b: &Board, moves: &mut [Mv], first: Option<(u8, u8, u8)>) {
    moves.sort_by_key(|m| {
        if first == Some((m.from, m.to, m.kind)) {
            return i32::MIN;
        }
        if m.kind == 1 {
            let victim = i32::from(b.cells[usize::from(m.to)] % 7);
            let attacker = i32::from(b.cells[usize::from(m.from)] % 7);
            -(1000 - victim * 10 + attacker)
        } else {
            0
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chuhe_rules::banqi::{Game, Piece, Pool, Setup, SetupSquare, Status, Truth};
    use chuhe_rules::xiangqi::Color;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    /// What the player may do from `view`, sorted like the rules' list: the steps and captures of
    /// its search board and its flips (`Search::root`, `greedy`).
    fn player_actions(view: &View) -> Vec<Action> {
        let b = Board::from_view(view);
        let mut moves = Vec::new();
        b.gen(&mut moves, false);
        let mut out: Vec<Action> = moves.iter().map(|m| m.action()).collect();
        if b.has_face_down() {
            out.extend(b.flip_squares().map(|sq| Action::Flip(square(sq))));
        }
        Action::sort_by_text(&mut out);
        out
    }

    /// The captures of the player's quiescence search, sorted like the rules' list.
    fn player_captures(view: &View) -> Vec<Action> {
        let b = Board::from_view(view);
        let mut moves = Vec::new();
        b.gen(&mut moves, true);
        let mut out: Vec<Action> = moves.iter().map(|m| m.action()).collect();
        Action::sort_by_text(&mut out);
        out
    }

    /// The player's lists equal the rules' legal actions (as lists sorted by text, so also
    /// without duplicates), and its capture-only list equals the rules' captures.
    fn agrees_with_the_rules(view: &View) -> Result<(), TestCaseError> {
        let rules = view.legal_actions();
        prop_assert_eq!(player_actions(view), rules.clone(), "view {}", view);
        let captures: Vec<Action> = rules
            .into_iter()
            .filter(|a| matches!(a, Action::Capture { .. }))
            .collect();
        prop_assert_eq!(player_captures(view), captures, "view {}", view);
        Ok(())
    }

    /// A position with pieces scattered at random: `states[i]` 0 empty, 1 face down (from the
    /// pool), 2 face up, each square taking the next piece of the shuffled `deal`.
    fn scattered(deal: &[Piece], states: &[u8], red: bool) -> Option<View> {
        let mut squares = [SetupSquare::Empty; 32];
        let mut pool = Pool::default();
        for (i, (&state, &piece)) in states.iter().zip(deal).enumerate() {
            squares[i] = match state {
                0 => SetupSquare::Empty,
                1 => {
                    pool.add(piece);
                    SetupSquare::Unknown
                }
                _ => SetupSquare::FaceUp(piece),
            };
        }
        let any_up = states.contains(&2);
        let turn = any_up.then_some(if red { Color::Red } else { Color::Black });
        let setup = Setup {
            squares,
            turn,
            pool,
            quiet: 0,
        };
        Truth::from_setup(setup).ok().map(|t| t.view().clone())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every view of a game played at random (flips drawn from the pool, so the views hold
        /// hidden pieces) gives the player the rules' legal actions.
        #[test]
        fn the_players_actions_are_the_rules_legal_actions_in_played_games(seed in any::<u64>()) {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut game = Game::with_rng(View::start().into(), StdRng::seed_from_u64(seed ^ 0x5EED));
            for _ in 0..400 {
                agrees_with_the_rules(game.view())?;
                if *game.status() != Status::Ongoing {
                    break;
                }
                let actions = game.legal_moves();
                // Steps and captures more often than flips, so games reach their late stages.
                let non_flips: Vec<Action> = actions
                    .iter()
                    .copied()
                    .filter(|a| !matches!(a, Action::Flip(_)))
                    .collect();
                let from = if non_flips.is_empty() || rng.random_bool(0.3) {
                    &actions
                } else {
                    &non_flips
                };
                let action = from[rng.random_range(0..from.len())];
                game.play(action).expect("a listed action is legal");
            }
        }

        /// The same on positions no game needs to reach: pieces of a shuffled set scattered face
        /// up, face down and missing, either colour to move.
        #[test]
        fn the_players_actions_are_the_rules_legal_actions_in_scattered_views(
            deal in Just((0..32).filter_map(|i| Pool::full().nth(i)).collect::<Vec<Piece>>())
                .prop_shuffle(),
            states in prop::collection::vec(prop_oneof![2 => Just(0u8), 1 => Just(1u8), 2 => Just(2u8)], 32),
            red in any::<bool>(),
        ) {
            let view = scattered(&deal, &states, red);
            prop_assume!(view.is_some());
            if let Some(view) = view {
                agrees_with_the_rules(&view)?;
            }
        }
    }

    fn problem(text: &str) -> Problem {
        let t: Truth = text.parse().expect("a valid text");
        Problem::from_view(t.view().clone())
    }

    #[test]
    fn takes_a_free_piece_and_avoids_losing_one() {
        // Red's chariot takes the black horse; the advisor cannot be taken by anything.
        let p = problem("8/8/2Rh4/a7 r - 0");
        for level in [4, 8] {
            assert_eq!(
                choose(&p, level, 1).map(|a| a.to_string()),
                Some("c2xd2".to_owned()),
                "level {level}"
            );
        }
    }

    #[test]
    fn the_same_view_gives_the_same_move_whatever_the_truth() {
        // Two truths: the same face-up pieces and pool, different hidden identities.
        let a: Truth = "8/8/R7/(K)(p)(h)3h1 r - 0".parse().expect("a text");
        let v = a.view().clone();
        let b: Truth = "8/8/R7/(p)(h)(K)3h1 r - 0".parse().expect("a text");
        assert_ne!(a.to_truth_text(), b.to_truth_text());
        assert_eq!(b.view(), &v);
        for level in 1..=8 {
            let pa = Problem::from_view(a.view().clone());
            let pb = Problem::from_view(b.view().clone());
            // The level's settings on nodes alone, so no clock can make the searches differ.
            let mut s = Settings::level(level);
            s.budget = Budget::nodes(s.budget.nodes);
            assert_eq!(choose_with(&pa, s, 9), choose_with(&pb, s, 9));
        }
    }

    #[test]
    fn recent_positions_match_a_replay() {
        let start: Truth = "8/8/2R5/a3h3 r - 0".parse().expect("a text");
        let records: Vec<Record> = ["c2-c3", "e1-e2", "c3-c2", "e2-e1"]
            .iter()
            .map(|t| t.parse().expect("a record"))
            .collect();
        let replayed = Problem::replay(start.view(), &records).expect("replays");
        let recent = Problem::recent(replayed.view.clone(), &records);
        assert_eq!(replayed.stretch, recent.stretch);
        assert_eq!(replayed.stretch.len(), 5);
        assert_eq!(replayed.stretch[0], replayed.stretch[4]);
    }

    #[test]
    fn every_level_answers_the_start() {
        let p = Problem::from_view(View::start());
        for level in 1..=8 {
            let a = choose(&p, level, u64::from(level)).expect("an action");
            assert!(matches!(a, Action::Flip(_)));
        }
        assert!(matches!(greedy(&p, 3), Some(Action::Flip(_))));
    }

    #[test]
    fn each_level_searches_at_least_as_deep_with_more_nodes() {
        for w in (1..=8).collect::<Vec<u8>>().windows(2) {
            let (lower, upper) = (Settings::level(w[0]), Settings::level(w[1]));
            assert!(upper.depth >= lower.depth, "level {}", w[1]);
            assert!(upper.budget.nodes > lower.budget.nodes, "level {}", w[1]);
            // A level without a deeper search than the one below has less noise.
            assert!(upper.depth > lower.depth || upper.noise < lower.noise);
        }
        assert_eq!(
            (Settings::level(1).depth, Settings::level(1).noise),
            (1, 400)
        );
        assert_eq!(Settings::level(8).noise, 0);
    }

    #[test]
    fn a_hunter_closes_in() {
        // Red general against a lone black horse: nothing can take the general.
        let p = problem("8/8/K7/6h1 r - 0");
        let a = choose(&p, 8, 1).expect("a move");
        let Action::Move { from, to } = a else {
            panic!("a step, got {a}")
        };
        let dist = |s: Square| (i32::from(s.file()) - 6).abs() + i32::from(s.rank());
        assert!(dist(to) < dist(from), "{a}");
    }

    #[test]
    fn the_analysis_reads_the_view_within_its_budget() {
        let view: View = "??K5/8/8/7k r Pr 0".parse().expect("view");
        let p = Problem::from_view(view.clone());
        let a = analyse(&p, Budget::nodes(5_000));
        let best = a.best.expect("a best action");
        assert!(view.legal_actions().contains(&best), "{best}");
        assert!(a.depth >= 1 && a.nodes <= 5_000 + CHECK_EVERY, "{a:?}");
        assert_eq!(analyse(&Problem::from_view(view), Budget::nodes(5_000)), a);
    }
}
