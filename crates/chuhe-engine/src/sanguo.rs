//! The Three Kingdoms xiangqi (sanguo) computer player: a paranoid alpha-beta search.
//!
//! The kingdom to move (the *root* kingdom) maximises its evaluation and assumes both rivals
//! minimise it together (*paranoid* search): a round of play is three plies, so a depth-3 search
//! sees every rival's answer to its move. Iterative deepening, a transposition table, captures
//! first (most valuable victim, least valuable attacker) and a capture-only quiescence search in
//! which every kingdom may stand pat.
//!
//! The evaluation (root kingdom's view, centipawns) knows:
//! - material by owner, so an army that passes to an heir counts for the heir at once: when a
//!   rival takes the other rival's General, the root kingdom sees the heir's whole new army;
//! - soldiers across a river arm are worth more;
//! - mobility of chariots, horses, cannons and flag bearers, and attacks on rival pieces across
//!   the river arms and the triangle;
//! - the danger to each General from both rivals (rival moves into its palace, a General under
//!   attack);
//! - with two rivals active, its own strength minus the mean of theirs; with one, minus its and
//!   plus a bonus for the rival gone.
//!
//! End rules: a defeated root kingdom scores a loss, the last kingdom standing a win, 180 quiet
//! moves and a position seen again since the last capture or defeat a draw (0).

use crate::kit::{self, Counter, LevelTable, Table, INF};
use crate::levels::{pick, Budget, Rng};
use chuhe_rules::sanguo::{Game, Kind, Kingdom, Move, Point, Position, QUIET_LIMIT};

/// The score of a win at the root.
pub const WIN: i32 = kit::WIN;

/// What the player is asked: the position and the search keys of the positions since the last
/// capture or defeat (for the repetition rule).
#[derive(Debug, Clone)]
pub struct Problem {
    /// The position, its kingdom to move the one that plays.
    pub position: Position,
    stretch: Vec<u64>,
}

impl Problem {
    /// The problem of the kingdom to move in `game`.
    pub fn of(game: &Game) -> Problem {
        Problem::replay(game.start(), game.moves())
    }

    /// The problem after playing `moves` (legal in turn) from `start`; a move that is not legal
    /// stops the replay there.
    pub fn replay(start: &Position, moves: &[Move]) -> Problem {
        let mut pos = start.clone();
        pos.resolve_start();
        let mut stretch = vec![pos.key()];
        for &m in moves {
            if !pos.is_legal(m) {
                break;
            }
            pos.play_unchecked(m);
            if pos.quiet() == 0 {
                stretch.clear();
            }
            stretch.push(pos.key());
        }
        Problem {
            position: pos,
            stretch,
        }
    }

    /// A problem from a position alone (no earlier positions known).
    pub fn from_position(position: Position) -> Problem {
        let stretch = vec![position.key()];
        Problem { position, stretch }
    }
}

/// The sanguo player's levels 1–8: depth cap (plies), node budget and noise (centipawns).
#[derive(Debug)]
pub struct Levels;

impl LevelTable for Levels {
    const DEPTH_CAP: [i32; 8] = [1, 2, 2, 3, 3, 3, 3, 64];
    const NODES: [u64; 8] = [
        1_500, 3_000, 6_000, 12_000, 25_000, 50_000, 100_000, 200_000,
    ];
    const NOISE: [i32; 8] = [900, 350, 120, 200, 80, 30, 5, 0];
}

/// The search limits of a sanguo level: depth cap, node budget and noise
/// ([`kit::Settings::level`], [`kit::Settings::full`]).
pub type Settings = kit::Settings<Levels>;

/// The move of the player at `level` for the kingdom to move; `None` when it has none.
pub fn choose(problem: &Problem, level: u8, seed: u64) -> Option<Move> {
    choose_with(problem, Settings::level(level), seed)
}

/// The move with explicit [`Settings`].
pub fn choose_with(problem: &Problem, settings: Settings, seed: u64) -> Option<Move> {
    let pos = &problem.position;
    let mut s = Search::new(pos.side_to_move(), settings.budget, &problem.stretch);
    let scored = s.root(pos, settings.depth, settings.noise);
    pick(&scored, settings.noise, &mut Rng::new(seed))
}

/// Longest best line [`analyse`] reports, in moves.
pub const ANALYSIS_LINE: usize = 9;

/// The analysis of a position ([`analyse`]): each kingdom's paranoid value and the best line of
/// the kingdom to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Each kingdom's value from its own view, index [`Kingdom::index`]: its paranoid search
    /// (it maximises, both rivals minimise it together), in centipawns (a Chariot is worth
    /// 900, a Soldier 100); a kingdom that becomes the last standing `n` plies deeper scores
    /// [`WIN`]` - n`, one that falls the negative; a defeated kingdom scores `-WIN`.
    pub scores: [i32; 3],
    /// The deepest finished iteration of each kingdom's search, plies (0 for a defeated one).
    pub depths: [i32; 3],
    /// The best line of the kingdom to move and the rivals' answers its search expects, at most
    /// [`ANALYSIS_LINE`] moves; empty when it has no move.
    pub line: Vec<Move>,
    /// Nodes searched, all kingdoms together.
    pub nodes: u64,
}

/// Full-strength analysis of the problem's position: one paranoid search per kingdom still in
/// the game, each within `nodes` nodes and `time` (counted from its own start), so the whole
/// costs at most three such budgets.
pub fn analyse(problem: &Problem, nodes: u64, time: std::time::Duration) -> Analysis {
    let pos = &problem.position;
    let mover = pos.side_to_move();
    let mut out = Analysis {
        scores: [-WIN; 3],
        depths: [0; 3],
        line: Vec::new(),
        nodes: 0,
    };
    for k in Kingdom::ALL {
        if pos.is_defeated(k) {
            continue;
        }
        let budget = Budget::nodes(nodes).capped(time);
        let mut s = Search::new(k, budget, &problem.stretch);
        let (score, depth, best) = s.value_of_root(pos);
        out.scores[k.index()] = score;
        out.depths[k.index()] = depth;
        out.nodes += s.counter.nodes;
        if k == mover {
            out.line = s.line_from(pos, best);
        }
    }
    out
}

/// The greedy one-ply player (for comparisons): the move whose resulting position evaluates best
/// for the mover without looking at any reply; ties broken by `seed`.
pub fn greedy(problem: &Problem, seed: u64) -> Option<Move> {
    let pos = &problem.position;
    let me = pos.side_to_move();
    let scored: Vec<(Move, i32)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, evaluate(&child, me))
        })
        .collect();
    pick(&scored, 1, &mut Rng::new(seed))
}

/// What a fallen rival is worth beyond the army that passed to its heir: one opponent fewer on
/// the way to being the last kingdom standing.
const RIVAL_GONE: i32 = 1500;

/// Value of a piece kind (the General is not counted: a kingdom without one is defeated).
fn value(kind: Kind, crossed: bool) -> i32 {
    match kind {
        Kind::General => 0,
        Kind::Advisor | Kind::Elephant => 110,
        Kind::Horse => 400,
        Kind::Chariot => 900,
        Kind::Cannon => 430,
        Kind::Soldier if crossed => 190,
        Kind::Soldier => 100,
        Kind::FlagBearer => 380,
    }
}

/// The evaluation of `pos` for `me` (centipawns; wins and losses are terminal, not here).
pub fn evaluate(pos: &Position, me: Kingdom) -> i32 {
    if pos.is_defeated(me) {
        return -WIN;
    }
    if pos.active_count() == 1 {
        return WIN;
    }
    view(pos, &strengths(pos), me)
}

/// [`evaluate`] for each kingdom at once, index [`Kingdom::index`] (one pass over the board).
pub fn evaluate_all(pos: &Position) -> [i32; 3] {
    let strength = strengths(pos);
    Kingdom::ALL.map(|k| {
        if pos.is_defeated(k) {
            -WIN
        } else if pos.active_count() == 1 {
            WIN
        } else {
            view(pos, &strength, k)
        }
    })
}

/// Each kingdom's strength: material by owner, mobility, attacks, minus the danger to its
/// General (0 for a defeated kingdom).
fn strengths(pos: &Position) -> [i32; 3] {
    let mut strength = [0i32; 3];
    let mut danger = [0i32; 3];
    for p in Point::all() {
        let Some(q) = pos.piece_at(p) else {
            continue;
        };
        let o = q.owner.index();
        let crossed = p.half() != q.origin;
        strength[o] += value(q.kind, crossed);
        if matches!(
            q.kind,
            Kind::Chariot | Kind::Horse | Kind::Cannon | Kind::FlagBearer | Kind::Soldier
        ) {
            let targets = pos.targets(p);
            let mobility_weight = match q.kind {
                Kind::Horse | Kind::FlagBearer => 4,
                Kind::Soldier => 0,
                _ => 2,
            };
            strength[o] += mobility_weight * targets.len() as i32;
            for t in targets {
                if let Some(v) = pos.piece_at(t) {
                    if v.owner != q.owner {
                        // An attack on a rival piece: worth a little, more on a General.
                        strength[o] += if v.kind == Kind::General { 40 } else { 6 };
                        if v.kind == Kind::General {
                            danger[v.owner.index()] += 60;
                        }
                    }
                } else if t.in_palace() {
                    // A rival's reach into a palace threatens that kingdom's General.
                    let h = t.half().index();
                    if h != o && pos.general(t.half()).is_some() {
                        danger[h] += 10;
                    }
                }
            }
        }
    }
    for k in Kingdom::ALL {
        if pos.is_defeated(k) {
            strength[k.index()] = 0;
        } else {
            strength[k.index()] -= danger[k.index()];
        }
    }
    strength
}

/// `me`'s score from the kingdoms' strengths: its own minus the mean of its active rivals'
/// (with one rival left: minus that rival's, plus [`RIVAL_GONE`]).
fn view(pos: &Position, strength: &[i32; 3], me: Kingdom) -> i32 {
    let mine = strength[me.index()];
    let rivals: Vec<i32> = Kingdom::ALL
        .into_iter()
        .filter(|&k| k != me && !pos.is_defeated(k))
        .map(|k| strength[k.index()])
        .collect();
    match rivals.as_slice() {
        [a, b] => mine - (a + b) / 2,
        [a] => mine - a + RIVAL_GONE,
        _ => mine,
    }
}

/// Slots of the transposition table: 2^16.
const TT_BITS: u32 = 16;
/// The budget is looked at every 64 nodes.
const CHECK_EVERY: u64 = 64;

struct Search {
    me: Kingdom,
    counter: Counter,
    tt: Table<Move>,
    path: Vec<u64>,
}

impl Search {
    fn new(me: Kingdom, budget: Budget, stretch: &[u64]) -> Search {
        Search {
            me,
            counter: Counter::new(budget, CHECK_EVERY),
            tt: Table::new(TT_BITS),
            path: stretch.to_vec(),
        }
    }

    fn tick(&mut self) -> bool {
        self.counter.tick()
    }

    fn root(&mut self, pos: &Position, max_depth: i32, noise: i32) -> Vec<(Move, i32)> {
        let mut moves = pos.legal_moves();
        order(pos, &mut moves, None);
        let out = kit::deepen(&moves, max_depth, noise, |m, depth, alpha| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.search(&child, depth - 1, alpha, INF, 1);
            (!self.counter.stopped).then_some(v)
        });
        if out.is_empty() {
            return moves.first().map(|&m| vec![(m, 0)]).unwrap_or_default();
        }
        out
    }

    /// The paranoid value of the root position for `self.me` (who need not be to move) by
    /// iterative deepening until the budget runs out or a win or loss is found: the value and
    /// depth of the deepest finished iteration, and the move to play there (the root mover's
    /// best for `self.me`'s view).
    fn value_of_root(&mut self, pos: &Position) -> (i32, i32, Option<Move>) {
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return (evaluate(pos, self.me), 0, None);
        }
        order(pos, &mut moves, None);
        let maximise = pos.side_to_move() == self.me;
        let mut done = (evaluate(pos, self.me), 0, moves.first().copied());
        for depth in 1..=64 {
            let (mut alpha, mut beta) = (-INF, INF);
            let mut scored = Vec::with_capacity(moves.len());
            for &m in &moves {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let v = self.search(&child, depth - 1, alpha, beta, 1);
                if self.counter.stopped {
                    return done;
                }
                if maximise {
                    alpha = alpha.max(v);
                } else {
                    beta = beta.min(v);
                }
                scored.push((m, v));
            }
            // best first: the next iteration searches it first and narrows the window soonest
            if maximise {
                scored.sort_by_key(|e| std::cmp::Reverse(e.1));
            } else {
                scored.sort_by_key(|e| e.1);
            }
            let Some(&(best, value)) = scored.first() else {
                return done;
            };
            done = (value, depth, Some(best));
            moves = scored.into_iter().map(|e| e.0).collect();
            if value.abs() >= WIN - 100 {
                break;
            }
        }
        done
    }

    /// `first` and the moves the table keeps for the positions after it, each legal in turn,
    /// at most [`ANALYSIS_LINE`] in all.
    fn line_from(&self, pos: &Position, first: Option<Move>) -> Vec<Move> {
        let mut line = Vec::new();
        let mut walk = pos.clone();
        let mut next = first;
        while let Some(m) = next {
            if line.len() >= ANALYSIS_LINE || !walk.is_legal(m) {
                break;
            }
            walk.play_unchecked(m);
            line.push(m);
            if walk.active_count() <= 1 {
                break;
            }
            next = self.tt.probe(walk.key()).and_then(|e| e.mv);
        }
        line
    }

    /// The paranoid value of `pos` for the root kingdom.
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: i32,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        if pos.is_defeated(self.me) {
            return -(WIN - ply);
        }
        if pos.active_count() == 1 {
            return WIN - ply;
        }
        if pos.quiet() >= QUIET_LIMIT {
            return 0;
        }
        let key = pos.key();
        if repeated(&self.path, pos, key) {
            return 0;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.mv;
            if let Some(score) = e.cutoff(depth, alpha, beta) {
                return score;
            }
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return evaluate(pos, self.me);
        }
        order(pos, &mut moves, tt_move);
        let maximise = pos.side_to_move() == self.me;
        let (alpha0, beta0) = (alpha, beta);
        let mut best = if maximise { -INF } else { INF };
        let mut best_move = None;
        self.path.push(key);
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.search(&child, depth - 1, alpha, beta, ply + 1);
            if self.counter.stopped {
                self.path.pop();
                return 0;
            }
            if maximise {
                if v > best {
                    best = v;
                    best_move = Some(m);
                }
                alpha = alpha.max(v);
            } else {
                if v < best {
                    best = v;
                    best_move = Some(m);
                }
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        self.tt
            .store(key, depth, (alpha0, beta0), best, best_move.or(tt_move));
        best
    }

    fn quiesce(&mut self, pos: &Position, mut alpha: i32, mut beta: i32, ply: i32, q: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        if pos.is_defeated(self.me) {
            return -(WIN - ply);
        }
        if pos.active_count() == 1 {
            return WIN - ply;
        }
        let stand = evaluate(pos, self.me);
        let maximise = pos.side_to_move() == self.me;
        if q >= 4 {
            return stand;
        }
        if maximise {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        } else {
            if stand <= alpha {
                return stand;
            }
            beta = beta.min(stand);
        }
        let moves = captures(pos);
        let mut best = stand;
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.quiesce(&child, alpha, beta, ply + 1, q + 1);
            if self.counter.stopped {
                return 0;
            }
            if maximise {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// The max^n player, kept to measure the choice of search (`docs/players.md`, "Why paranoid"):
/// every kingdom maximises its own evaluation ([`evaluate_all`] backs up a score per kingdom),
/// by iterative deepening within `budget`, with the same capture quiescence, move order and end
/// rules as the paranoid search but without its pruning. The levels do not use it.
pub fn maxn(problem: &Problem, budget: Budget) -> Option<Move> {
    let pos = &problem.position;
    let me = pos.side_to_move().index();
    let mut moves = pos.legal_moves();
    order(pos, &mut moves, None);
    let mut s = MaxN {
        counter: Counter::new(budget, CHECK_EVERY),
        path: problem.stretch.clone(),
    };
    let mut best = *moves.first()?;
    for depth in 1..=64 {
        let mut scored = Vec::with_capacity(moves.len());
        for &m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = s.value(&child, depth - 1, 1);
            if s.counter.stopped {
                break;
            }
            scored.push((m, v[me]));
        }
        // An unfinished iteration still counts when its first move (the last best) was
        // searched and another one beat it.
        let Some(top) = scored.iter().copied().reduce(first_best) else {
            break;
        };
        best = top.0;
        if s.counter.stopped {
            break;
        }
        scored.sort_by_key(|e| std::cmp::Reverse(e.1));
        moves = scored.iter().map(|e| e.0).collect();
        if top.1.abs() >= WIN - 100 {
            break;
        }
    }
    Some(best)
}

/// Of two scored moves, the better; the first of equal ones.
fn first_best(a: (Move, i32), b: (Move, i32)) -> (Move, i32) {
    if b.1 > a.1 {
        b
    } else {
        a
    }
}

/// The scores of a game won by the last kingdom standing, `ply` plies from the root: a sooner
/// win is better, a later loss less bad.
fn last_standing(pos: &Position, ply: i32) -> [i32; 3] {
    Kingdom::ALL.map(|k| {
        if pos.is_defeated(k) {
            -(WIN - ply)
        } else {
            WIN - ply
        }
    })
}

struct MaxN {
    counter: Counter,
    path: Vec<u64>,
}

impl MaxN {
    fn tick(&mut self) -> bool {
        self.counter.tick()
    }

    /// The scores of `pos` for the three kingdoms, each kingdom choosing its best child.
    fn value(&mut self, pos: &Position, depth: i32, ply: i32) -> [i32; 3] {
        if self.tick() {
            return [0; 3];
        }
        if pos.active_count() == 1 {
            return last_standing(pos, ply);
        }
        if pos.quiet() >= QUIET_LIMIT {
            return [0; 3];
        }
        let key = pos.key();
        if repeated(&self.path, pos, key) {
            return [0; 3];
        }
        if depth <= 0 {
            return self.quiesce(pos, ply, 0);
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return evaluate_all(pos);
        }
        order(pos, &mut moves, None);
        let mover = pos.side_to_move().index();
        let mut best: Option<[i32; 3]> = None;
        self.path.push(key);
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.value(&child, depth - 1, ply + 1);
            if self.counter.stopped {
                self.path.pop();
                return [0; 3];
            }
            if best.is_none_or(|b| v[mover] > b[mover]) {
                best = Some(v);
            }
            // Nothing beats taking the last rival's General.
            if v[mover] >= WIN - 100 {
                break;
            }
        }
        self.path.pop();
        best.unwrap_or([0; 3])
    }

    /// Captures only; the kingdom to move may stand pat.
    fn quiesce(&mut self, pos: &Position, ply: i32, q: i32) -> [i32; 3] {
        if self.tick() {
            return [0; 3];
        }
        if pos.active_count() == 1 {
            return last_standing(pos, ply);
        }
        let stand = evaluate_all(pos);
        if q >= 4 {
            return stand;
        }
        let mover = pos.side_to_move().index();
        let moves = captures(pos);
        let mut best = stand;
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.quiesce(&child, ply + 1, q + 1);
            if self.counter.stopped {
                return [0; 3];
            }
            if v[mover] > best[mover] {
                best = v;
            }
        }
        best
    }
}

/// Whether `pos` (search key `key`) was seen since the last capture or defeat: `path` holds the
/// keys of the positions before it, the last one last (a draw by repetition).
fn repeated(path: &[u64], pos: &Position, key: u64) -> bool {
    pos.quiet() > 0
        && path
            .iter()
            .rev()
            .take(usize::from(pos.quiet()) + 1)
            .any(|&k| k == key)
}

/// The captures of the kingdom to move, in search order ([`order`]).
fn captures(pos: &Position) -> Vec<Move> {
    let mut moves: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| pos.piece_at(m.to).is_some())
        .collect();
    order(pos, &mut moves, None);
    moves
}

/// Captures first (a General first of all, then the most valuable victim by the least valuable
/// attacker), the table's move before everything.
fn order(pos: &Position, moves: &mut [Move], first: Option<Move>) {
    moves.sort_by_cached_key(|&m| {
        if Some(m) == first {
            return i32::MIN;
        }
        match pos.piece_at(m.to) {
            Some(v) if v.kind == Kind::General => i32::MIN + 1,
            Some(v) => {
                let a = pos.piece_at(m.from).map_or(0, |a| value(a.kind, false));
                -(10 * value(v.kind, true) - a / 10)
            }
            None => 0,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_plays_a_legal_move_with_and_without_flags() {
        for flags in [true, false] {
            let p = Problem::from_position(Position::start(flags));
            for level in 1..=8 {
                let m = choose(&p, level, u64::from(level)).expect("a move");
                assert!(p.position.is_legal(m), "level {level}: {m:?}");
            }
            let g = greedy(&p, 1).expect("a move");
            assert!(p.position.is_legal(g));
        }
    }

    #[test]
    fn takes_a_general_when_it_can() {
        // Shu's chariot on Wu's e2 takes Wu's General on e1 (Shu's soldier screens Shu's own
        // General, Wei's soldier Wei's, on the central files).
        let pos = Position::from_text("9/4rP4/9/9/4rK4,9/9/9/4rR4/4gK4,9/4bP4/9/9/4bK4 R B - - 0")
            .expect("a valid position");
        let p = Problem::from_position(pos);
        for level in [1, 4, 8] {
            let m = choose(&p, level, 5).expect("a move");
            assert_eq!(p.position.move_text(m), "Ge2xGe1", "level {level}");
        }
        let g = greedy(&p, 5).expect("a move");
        assert_eq!(p.position.move_text(g), "Ge2xGe1");
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
            (1, 900)
        );
        assert_eq!(Settings::level(8).noise, 0);
    }

    #[test]
    fn same_seed_same_move() {
        let p = Problem::from_position(Position::start(true));
        assert_eq!(choose(&p, 3, 11), choose(&p, 3, 11));
    }

    #[test]
    fn maxn_plays_legal_moves_and_takes_a_general() {
        for flags in [true, false] {
            let p = Problem::from_position(Position::start(flags));
            let m = maxn(&p, Budget::nodes(3_000)).expect("a move");
            assert!(p.position.is_legal(m));
        }
        let pos = Position::from_text("9/4rP4/9/9/4rK4,9/9/9/4rR4/4gK4,9/4bP4/9/9/4bK4 R B - - 0")
            .expect("a valid position");
        let m = maxn(&Problem::from_position(pos.clone()), Budget::nodes(3_000)).expect("a move");
        assert_eq!(pos.move_text(m), "Ge2xGe1");
    }

    #[test]
    fn every_kingdom_is_evaluated_as_alone() {
        let mut pos = Position::start(true);
        pos.resolve_start();
        for _ in 0..2 {
            let mv = pos.legal_moves()[3];
            pos.play_unchecked(mv);
        }
        let all = evaluate_all(&pos);
        for k in Kingdom::ALL {
            assert_eq!(all[k.index()], evaluate(&pos, k), "{k:?}");
        }
        // Shu takes Wu's General: Wu scores a loss, the other two are still in the game.
        let pos = Position::from_text("9/4rP4/9/9/4rK4,9/9/9/4rR4/4gK4,9/4bP4/9/9/4bK4 R B - - 0")
            .expect("a valid position");
        let mut after = pos.clone();
        let take = pos
            .legal_moves()
            .into_iter()
            .find(|&m| pos.move_text(m) == "Ge2xGe1");
        after.play_unchecked(take.expect("Shu can take Wu's General"));
        let all = evaluate_all(&after);
        assert_eq!(all[1], -WIN);
        assert!(all[0].abs() < WIN && all[2].abs() < WIN, "{all:?}");
    }

    #[test]
    fn the_analysis_scores_every_kingdom_and_gives_a_legal_line() {
        let p = Problem::from_position(Position::start(true));
        let a = analyse(&p, 3_000, std::time::Duration::from_secs(60));
        assert!(a.scores.iter().all(|v| v.abs() < WIN - 200), "{a:?}");
        assert!(a.depths.iter().all(|&d| d >= 1), "{a:?}");
        assert!(a.nodes <= 3 * (3_000 + CHECK_EVERY), "{}", a.nodes);
        assert!(!a.line.is_empty() && a.line.len() <= ANALYSIS_LINE);
        let mut pos = p.position.clone();
        for m in &a.line {
            assert!(pos.is_legal(*m), "{m:?} in {pos}");
            pos.play_unchecked(*m);
        }
        // the same problem and budget give the same analysis (no clock in the way)
        assert_eq!(analyse(&p, 3_000, std::time::Duration::from_secs(60)), a);
        // a defeated kingdom is not searched and scores a loss
        let pos = Position::from_text("9/4rP4/9/9/4rK4,9/9/9/4rR4/4gK4,9/4bP4/9/9/4bK4 R B - - 0")
            .expect("position");
        let a = analyse(
            &Problem::from_position(pos.clone()),
            2_000,
            std::time::Duration::from_secs(60),
        );
        for k in Kingdom::ALL {
            if pos.is_defeated(k) {
                assert_eq!((a.scores[k.index()], a.depths[k.index()]), (-WIN, 0));
            }
        }
    }
}
