//! Mining xiangqi tactics puzzles from played games.
//!
//! The method follows the one lichess describes for its puzzle generator: a puzzle is a position
//! in which the opponent's last move was a mistake that the side to move can punish with one
//! clearly winning continuation, every other move being clearly worse.
//!
//! 1. **Scan** ([`Miner::scan_game`]): every position of a game gets a short search
//!    ([`Thresholds::scan_nodes`]; the game's last [`Thresholds::end_plies`] positions get
//!    [`Thresholds::check_nodes`]). A position is a *candidate* when the side to move is winning
//!    there ([`Thresholds::win_cp`] or a mate) while the position before the opponent's last move
//!    was not yet won for it (at most [`Thresholds::before_cp`]): the last move threw the game away,
//!    and positions that were lost or won anyway are left out. With
//!    [`Thresholds::mate_candidates`], a forced mate that was not there before the opponent's
//!    last move makes a candidate too, however won the position was.
//! 2. **Check** ([`Miner::check`]): a two-line search of [`Thresholds::check_nodes`] turns down
//!    the candidates that are clearly no puzzle, before the costly examination.
//! 3. **Examine** ([`Miner::examine`]): a deeper search with two lines ([`Thresholds::deep_nodes`]).
//!    The best move must still win and the second best must not ([`Thresholds::is_unique`]): the
//!    winning move is unique. The line is then extended: the defender answers with the search's
//!    best reply, and the attacker's next move must again be unique, until a mate, or until the
//!    attacker has won material that the defender's best reply does not take back, or until the
//!    next attacker move is no longer unique (the line ends on the attacker's move), at most
//!    [`Thresholds::max_attacker_moves`] moves. A line that neither mates nor wins material
//!    ([`Thresholds::gain_cp`], counted in [`crate::eval::kind_value`]s) is rejected: its
//!    advantage is positional and a solver could not see that it was reached.
//!
//! [`Miner::mine_game`] runs the three steps over a game with one transposition table, cleared at
//! the game's start and kept from search to search ([`Thresholds::reuse_table`]): the result
//! depends on the game and the thresholds alone.
//!
//! 4. **Themes** ([`Theme`]) are read off the line by the rules alone.
//!
//! Scores are centipawns from the side to move (100 = one soldier before the river;
//! [`crate::eval`]); mates are found by the engine's mate scores ([`crate::search::MATE`]).

use crate::eval::kind_value;
use crate::search::{Control, Info, Limits, Searcher, Settings, MATE, MATE_BOUND};
use crate::tt::Table;
use chuhe_rules::xiangqi::{Color, Kind, Move, MoveList, Position, Square};
use std::fmt;
use std::time::Instant;

/// The numbers that decide what a puzzle is. [`Thresholds::default`] holds the values used for
/// the shipped puzzles (`docs/puzzles.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thresholds {
    /// Nodes of the scanning search of each position of a game.
    pub scan_nodes: u64,
    /// Nodes of each search of the examination (two lines).
    pub deep_nodes: u64,
    /// A score at least this high (centipawns, side to move) is winning.
    pub win_cp: i32,
    /// A score at most this high is not winning: every move other than the solution's.
    pub even_cp: i32,
    /// The most that the scan may find the position before the mistake worth for the solver
    /// (centipawns): above it the position was won anyway.
    pub before_cp: i32,
    /// The least material (centipawns of [`kind_value`]) that a line without mate must win.
    pub gain_cp: i32,
    /// The longest solution, in attacker moves.
    pub max_attacker_moves: usize,
    /// Nodes of the quick check (two lines) that a candidate passes before the deep
    /// examination; 0 leaves the check out. It rejects only what is clearly no puzzle: a best
    /// score below [`Thresholds::even_cp`], or a second move that mates too (or, without mate,
    /// that also reaches [`Thresholds::win_cp`]).
    pub check_nodes: u64,
    /// The game's last positions scanned with [`Thresholds::check_nodes`] instead of
    /// [`Thresholds::scan_nodes`]: in master games the decisive tactic is often the one the
    /// loser resigned facing.
    pub end_plies: usize,
    /// Also a candidate: a position with a forced mate for the side to move when the position
    /// before the opponent's last move held no mate for it, however winning it was (lichess
    /// keeps such mates too).
    pub mate_candidates: bool,
    /// Keep the transposition table from one search to the next within a game (it is cleared
    /// at the start of each game, so a game's puzzles do not depend on the games mined before).
    pub reuse_table: bool,
    /// How the best move is told unique when it does not mate (see [`Thresholds::is_unique`]).
    pub uniqueness: Uniqueness,
    /// A second way to be a candidate, lichess's generator's: the position before the opponent's
    /// last move was worth at most [`Thresholds::jump_before_cp`] to the solver (more than
    /// [`Thresholds::before_cp`], less than won) and the last move raised the solver's
    /// [`winning_chances`] by more than this many thousandths (lichess: 500); 0 leaves it out.
    pub jump_millis: i32,
    /// The most the position before the mistake may be worth to the solver for the
    /// [`Thresholds::jump_millis`] rule (lichess: 400 of its centipawns, 800 of chuhe's).
    pub jump_before_cp: i32,
}

/// How [`Thresholds::is_unique`] tells a best move that does not mate from the second best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uniqueness {
    /// The best reaches [`Thresholds::win_cp`] and the second stays at
    /// [`Thresholds::even_cp`] or less (chuhe's first rule, kept to measure against).
    Margins,
    /// The best reaches [`Thresholds::win_cp`] and its [`winning_chances`] exceed the second's
    /// by more than `gap_millis` thousandths: lichess's generator's rule (`is_valid_attack`,
    /// gap 0.42, in the public lichess-puzzler project).
    WinningChances {
        /// The least gap, in thousandths of the chances' range -1..1.
        gap_millis: i32,
    },
    /// Either of the two: the second stays at [`Thresholds::even_cp`] or less, or its winning
    /// chances are more than `gap_millis` thousandths below the best's (a crushing best
    /// against a second that only keeps an edge).
    Either {
        /// The least gap of [`Uniqueness::WinningChances`].
        gap_millis: i32,
    },
}

/// The centipawns of chuhe's evaluation per centipawn of the scale lichess's winning chances
/// were fitted on. chuhe counts a horse as 660 and a chariot as 1,543 where Fairy-Stockfish's
/// xiangqi counts about 340 and 1,090 (`docs/puzzles.md`): about two.
pub const CHANCES_CP_SCALE: i32 = 2;

/// The side to move's winning chances, -1 (lost) to 1 (won), from a score in chuhe's
/// centipawns: lichess's logistic curve `2 / (1 + exp(-0.004 cp)) - 1` (lichess-puzzler's
/// `win_chances`; also lila's analysis), on `cp / CHANCES_CP_SCALE`. A mate for the side to
/// move is 1, a mate against it -1.
pub fn winning_chances(score: i32) -> f64 {
    if score >= MATE_BOUND {
        return 1.0;
    }
    if score <= -MATE_BOUND {
        return -1.0;
    }
    let cp = f64::from(score) / f64::from(CHANCES_CP_SCALE);
    2.0 / (1.0 + (-0.004 * cp).exp()) - 1.0
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            scan_nodes: 3_000,
            deep_nodes: 300_000,
            win_cp: 500,
            even_cp: 150,
            before_cp: 300,
            gain_cp: 300,
            max_attacker_moves: 4,
            check_nodes: 30_000,
            end_plies: 2,
            mate_candidates: true,
            reuse_table: true,
            uniqueness: Uniqueness::Either { gap_millis: 420 },
            jump_millis: 500,
            jump_before_cp: 800,
        }
    }
}

impl Thresholds {
    /// The first miner's settings (a cleared table per search, no quick check, no mate rule,
    /// no deeper scan of the game's end), kept to measure against (`docs/puzzles.md`).
    pub fn first() -> Thresholds {
        Thresholds {
            uniqueness: Uniqueness::Margins,
            jump_millis: 0,
            check_nodes: 0,
            end_plies: 0,
            mate_candidates: false,
            reuse_table: false,
            before_cp: 150,
            ..Thresholds::default()
        }
    }

    /// The rules of the puzzles mined before lichess's were added (data rows 1-3,692 of the
    /// shipped file): [`Uniqueness::Margins`] and no [`Thresholds::jump_millis`]; kept to
    /// measure against.
    pub fn margins() -> Thresholds {
        Thresholds {
            uniqueness: Uniqueness::Margins,
            jump_millis: 0,
            ..Thresholds::default()
        }
    }

    /// lichess's generator's rules alone, on chuhe's scale ([`CHANCES_CP_SCALE`]): candidates
    /// only by the [`Thresholds::jump_millis`] rule, uniqueness only by
    /// [`Uniqueness::WinningChances`]; kept to measure against.
    pub fn lichess() -> Thresholds {
        Thresholds {
            uniqueness: Uniqueness::WinningChances { gap_millis: 420 },
            before_cp: i32::MIN,
            ..Thresholds::default()
        }
    }

    /// Whether the best line's score `best` is winning and unique against the second line's
    /// `second` (`None`: there is no other legal move): for a mate in one, the second move
    /// must not mate at once; for a longer mate, it must not mate at all; otherwise the best
    /// must reach [`Thresholds::win_cp`] and the second stay at [`Thresholds::even_cp`] or
    /// less. Scores as [`crate::search`] gives them (mates as [`MATE`] minus plies).
    pub fn is_unique(&self, best: i32, second: Option<i32>) -> bool {
        best >= self.win_cp
            && second.is_none_or(|second| match mate_moves(best) {
                Some(1) => mate_moves(second) != Some(1),
                Some(_) => second < MATE_BOUND,
                None => {
                    let gap = winning_chances(best) - winning_chances(second);
                    match self.uniqueness {
                        Uniqueness::Margins => second <= self.even_cp,
                        Uniqueness::WinningChances { gap_millis } => {
                            gap > f64::from(gap_millis) / 1000.0
                        }
                        Uniqueness::Either { gap_millis } => {
                            second <= self.even_cp || gap > f64::from(gap_millis) / 1000.0
                        }
                    }
                }
            })
    }

    /// Whether a position the scan found worth `score` to the side to move, after a position
    /// worth `before` to it (both the solver's view), is a candidate: winning
    /// ([`Thresholds::win_cp`]) after a position not yet won ([`Thresholds::before_cp`], or
    /// lichess's jump: [`Thresholds::jump_before_cp`] and [`Thresholds::jump_millis`]), or,
    /// with [`Thresholds::mate_candidates`], a mate that was not there before.
    pub fn is_candidate(&self, score: i32, before: i32) -> bool {
        let jump = self.jump_millis > 0
            && before <= self.jump_before_cp
            && winning_chances(score) - winning_chances(before)
                > f64::from(self.jump_millis) / 1000.0;
        let swing = score >= self.win_cp && (before <= self.before_cp || jump);
        let mate = self.mate_candidates && score >= MATE_BOUND && before < MATE_BOUND;
        swing || mate
    }

    /// Whether the quick check may already say that a second move is as good: it mates too
    /// (as [`Thresholds::is_unique`] counts mates), or, when the best does not mate, it is
    /// winning by [`Uniqueness::Margins`] or within half the gap of
    /// [`Uniqueness::WinningChances`] (the deeper examination decides the rest).
    pub fn clearly_not_unique(&self, best: i32, second: i32) -> bool {
        match mate_moves(best) {
            Some(1) => mate_moves(second) == Some(1),
            Some(_) => second >= MATE_BOUND,
            None => {
                let gap = winning_chances(best) - winning_chances(second);
                match self.uniqueness {
                    Uniqueness::Margins => second >= self.win_cp,
                    Uniqueness::WinningChances { gap_millis } => {
                        gap <= f64::from(gap_millis) / 2000.0
                    }
                    Uniqueness::Either { gap_millis } => {
                        second >= self.win_cp && gap <= f64::from(gap_millis) / 2000.0
                    }
                }
            }
        }
    }
}

/// What one phase of mining cost: searches, nodes and wall time.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// Searches run.
    pub searches: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time, in microseconds (clearing the table included).
    pub micros: u64,
}

impl Cost {
    /// Adds `other` to this cost.
    pub fn add(&mut self, other: Cost) {
        self.searches += other.searches;
        self.nodes += other.nodes;
        self.micros += other.micros;
    }
}

/// The mining phases whose cost a [`Miner`] counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Costs {
    /// The scan of every position of the games.
    pub scan: Cost,
    /// The quick check of the candidates ([`Thresholds::check_nodes`]).
    pub check: Cost,
    /// The deep examination of the candidates that pass the check.
    pub examine: Cost,
    /// Time spent clearing the transposition table (microseconds; also counted in the phase).
    pub clear_micros: u64,
}

impl Costs {
    /// Adds `other` to these costs.
    pub fn add(&mut self, other: &Costs) {
        self.scan.add(other.scan);
        self.check.add(other.check);
        self.examine.add(other.examine);
        self.clear_micros += other.clear_micros;
    }
}

/// The phase a search belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Scan,
    Check,
    Examine,
}

/// Where a candidate was turned down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The quick check ([`Thresholds::check_nodes`]).
    Check,
    /// The deep examination.
    Examine,
}

/// One candidate of a game and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mined {
    /// The candidate the scan found.
    pub candidate: Candidate,
    /// The puzzle, or why there is none and where that was decided.
    pub outcome: Result<Puzzle, (Stage, Rejection)>,
}

/// A position worth examining: the game's moves up to the mistake (`moves[..ply]` played from the
/// start, the last of them the opponent's mistake), with the scan's scores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The number of moves played from the start to reach the puzzle's position (at least 1).
    pub ply: usize,
    /// The scan's score of the puzzle's position (side to move: the solver).
    pub score: i32,
    /// The scan's score of the position before the mistake, from the solver's view.
    pub before: i32,
}

/// What a puzzle is about, read off its line by the rules (lichess's theme names where lichess
/// has the theme).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Theme {
    /// The line mates in one move.
    MateIn1,
    /// The line mates in two attacker moves.
    MateIn2,
    /// The line mates in three attacker moves.
    MateIn3,
    /// The line mates in four or more attacker moves.
    MateIn4,
    /// The line wins material worth at least a horse, without mate.
    Advantage,
    /// The line wins material worth at least a chariot, without mate.
    Crushing,
    /// The first move gives material away (the line wins it back and more).
    Sacrifice,
    /// An attacker move leaves the moved piece attacking two or more of the defender's pieces
    /// worth at least a horse each, or the General and one such piece.
    Fork,
    /// An attacker move gives check with a piece that did not move.
    DiscoveredCheck,
    /// An attacker move gives check with two pieces.
    DoubleCheck,
    /// An attacker move is made by a Cannon that captures or checks over its screen.
    CannonScreen,
    /// A mate or capture in which the General's facing rule (flying General) takes part: the
    /// defender's General cannot leave its file because of the attacker's General.
    FlyingGeneral,
    /// At most six pieces other than Generals, Advisors and Elephants are on the board.
    Endgame,
}

impl Theme {
    /// The theme's key (`mateIn2`, `fork`, ...), as the API and the data file write it.
    pub fn key(self) -> &'static str {
        match self {
            Theme::MateIn1 => "mateIn1",
            Theme::MateIn2 => "mateIn2",
            Theme::MateIn3 => "mateIn3",
            Theme::MateIn4 => "mateIn4",
            Theme::Advantage => "advantage",
            Theme::Crushing => "crushing",
            Theme::Sacrifice => "sacrifice",
            Theme::Fork => "fork",
            Theme::DiscoveredCheck => "discoveredCheck",
            Theme::DoubleCheck => "doubleCheck",
            Theme::CannonScreen => "cannonScreen",
            Theme::FlyingGeneral => "flyingGeneral",
            Theme::Endgame => "endgame",
        }
    }

    /// Every theme, in key order of [`Theme::key`]'s listing.
    pub const ALL: [Theme; 13] = [
        Theme::MateIn1,
        Theme::MateIn2,
        Theme::MateIn3,
        Theme::MateIn4,
        Theme::Advantage,
        Theme::Crushing,
        Theme::Sacrifice,
        Theme::Fork,
        Theme::DiscoveredCheck,
        Theme::DoubleCheck,
        Theme::CannonScreen,
        Theme::FlyingGeneral,
        Theme::Endgame,
    ];
}

/// A puzzle found in a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Puzzle {
    /// The position before the opponent's last move (the page plays that move first).
    pub before: Position,
    /// The opponent's last move: the mistake.
    pub last_move: Move,
    /// The position the solver moves in.
    pub position: Position,
    /// The solution: the solver's moves and the defender's replies, starting and ending with a
    /// solver's move.
    pub solution: Vec<Move>,
    /// The deep search's score of the first move (centipawns, solver's view; mates as
    /// [`MATE`] minus plies).
    pub score: i32,
    /// The deep search's score of the second-best first move (`None` only for a line that
    /// starts with the only legal move, which [`Miner::examine`] rejects).
    pub second: Option<i32>,
    /// The line's themes, sorted.
    pub themes: Vec<Theme>,
}

impl Puzzle {
    /// The mate's length in solver moves when the line ends in mate.
    pub fn mate_in(&self) -> Option<usize> {
        let mut pos = self.position.clone();
        for &m in &self.solution {
            pos.play(m).ok()?;
        }
        (pos.is_check() && !pos.has_legal_move()).then_some(self.solution.len().div_ceil(2))
    }

    /// The solver's moves in the solution.
    pub fn attacker_moves(&self) -> usize {
        self.solution.len().div_ceil(2)
    }

    /// The starting rating of the puzzle, from its difficulty (`docs/puzzles.md`): 1000, or 800
    /// for a mate in one; plus 300 for each solver move after the first; plus 200 when the
    /// first move is quiet (it neither captures nor gives check); plus 150 for a
    /// [`Theme::Sacrifice`]; kept within 600 to 2600.
    pub fn rating(&self) -> u32 {
        let moves = self.attacker_moves() as u32;
        let mut rating = if self.mate_in() == Some(1) { 800 } else { 1000 };
        rating += 300 * moves.saturating_sub(1);
        if let Some(&first) = self.solution.first() {
            let mut after = self.position.clone();
            let captures = self.position.is_capture(first);
            if after.play(first).is_ok() && !captures && !after.is_check() {
                rating += 200;
            }
        }
        if self.themes.contains(&Theme::Sacrifice) {
            rating += 150;
        }
        rating.clamp(600, 2600)
    }
}

/// Why a candidate is not a puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// The deep search does not find the position winning.
    NotWinning,
    /// Another move wins too (or the best and second moves are too close).
    NotUnique,
    /// The line neither mates nor wins enough material.
    NoGain,
    /// The game's moves do not replay (a bad record).
    BadRecord,
    /// The position lies on the solution of an earlier puzzle of the same game, or is the
    /// position of an earlier puzzle again, or its solution is an earlier puzzle's (the game
    /// offered the same tactic again).
    InsideEarlier,
    /// The solution's first move is the only legal move: nothing to find.
    OnlyMove,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rejection::NotWinning => "the position is not winning after a deeper search",
            Rejection::NotUnique => "more than one move wins",
            Rejection::NoGain => "the line neither mates nor wins material",
            Rejection::BadRecord => "the game's moves do not replay",
            Rejection::InsideEarlier => "an earlier puzzle of the game has this position or line",
            Rejection::OnlyMove => "the first move is the only legal move",
        })
    }
}

/// The searches of one mining thread: its own transposition table (cleared per game, or per
/// search with [`Thresholds::reuse_table`] off) and the cost of its work so far.
pub struct Miner {
    table: Table,
    thresholds: Thresholds,
    costs: Costs,
    phase: Phase,
}

impl Miner {
    /// A miner with a 16 MiB transposition table.
    ///
    /// # Errors
    /// The table could not be allocated.
    pub fn new(thresholds: Thresholds) -> Result<Miner, String> {
        let table = Table::new(16).map_err(|()| "no memory for a 16 MiB table".to_owned())?;
        Ok(Miner {
            table,
            thresholds,
            costs: Costs::default(),
            phase: Phase::Scan,
        })
    }

    /// The thresholds this miner uses.
    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }

    /// What this miner's searches have cost so far.
    pub fn costs(&self) -> &Costs {
        &self.costs
    }

    /// Scans a game and examines each of its candidates (see the module documentation), in
    /// order of ply. The transposition table is cleared first, so the result depends only on
    /// the game and the thresholds.
    pub fn mine_game(&mut self, start: &Position, moves: &[Move]) -> Vec<Mined> {
        let timer = Instant::now();
        self.table.clear();
        self.costs.clear_micros += timer.elapsed().as_micros() as u64;
        let candidates = self.scan_game(start, moves);
        let mut out = Vec::with_capacity(candidates.len());
        // The first ply after the line of the last puzzle found, and the puzzles' positions.
        let mut free_from = 0;
        let mut found: Vec<u64> = Vec::new();
        let mut solutions: Vec<Vec<Move>> = Vec::new();
        for candidate in candidates {
            let line = &moves[..candidate.ply];
            let mut pos = start.clone();
            let key = line.iter().all(|&m| pos.play(m).is_ok()).then(|| pos.key());
            if candidate.ply < free_from || key.is_some_and(|k| found.contains(&k)) {
                out.push(Mined {
                    candidate,
                    outcome: Err((Stage::Check, Rejection::InsideEarlier)),
                });
                continue;
            }
            let outcome = match self.check(start, line) {
                Err(r) => Err((Stage::Check, r)),
                Ok(()) => match self.examine(start, line) {
                    Ok(p) if solutions.contains(&p.solution) => {
                        Err((Stage::Examine, Rejection::InsideEarlier))
                    }
                    other => other.map_err(|r| (Stage::Examine, r)),
                },
            };
            if let Ok(puzzle) = &outcome {
                free_from = candidate.ply + puzzle.solution.len() + 1;
                found.push(puzzle.position.key());
                solutions.push(puzzle.solution.clone());
            }
            out.push(Mined { candidate, outcome });
        }
        out
    }

    /// The quick check of the position after `moves`: `Err` when it is clearly no puzzle
    /// (see [`Thresholds::check_nodes`]); always `Ok` when the check is off.
    ///
    /// # Errors
    /// [`Rejection::NotWinning`] or [`Rejection::NotUnique`].
    pub fn check(&mut self, start: &Position, moves: &[Move]) -> Result<(), Rejection> {
        let t = self.thresholds.clone();
        if t.check_nodes == 0 {
            return Ok(());
        }
        self.phase = Phase::Check;
        let lines = self.lines(start, moves, t.check_nodes, 2);
        let Some(best) = lines.first() else {
            return Err(Rejection::NotWinning);
        };
        if best.score < t.even_cp {
            return Err(Rejection::NotWinning);
        }
        if let Some(second) = lines.get(1) {
            if t.clearly_not_unique(best.score, second.score) {
                return Err(Rejection::NotUnique);
            }
        }
        Ok(())
    }

    /// The best `lines` lines of the position reached from `start` by `moves`, best first.
    fn lines(&mut self, start: &Position, moves: &[Move], nodes: u64, lines: usize) -> Vec<Info> {
        let timer = Instant::now();
        if self.thresholds.reuse_table {
            self.table.new_search();
        } else {
            self.table.clear();
            self.costs.clear_micros += timer.elapsed().as_micros() as u64;
        }
        let ctl = Control::default();
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        let mut searcher =
            Searcher::new(start, moves, &self.table, &ctl, Settings::default(), limits);
        let out = searcher.run_lines(lines, &mut |_| {});
        let cost = Cost {
            searches: 1,
            nodes: searcher.nodes(),
            micros: timer.elapsed().as_micros() as u64,
        };
        match self.phase {
            Phase::Scan => self.costs.scan.add(cost),
            Phase::Check => self.costs.check.add(cost),
            Phase::Examine => self.costs.examine.add(cost),
        }
        out
    }

    /// Scans a game: the candidates among its positions (see the module documentation), in
    /// order of ply. `moves` must replay from `start`; the scan stops at the first that does
    /// not.
    pub fn scan_game(&mut self, start: &Position, moves: &[Move]) -> Vec<Candidate> {
        let t = self.thresholds.clone();
        self.phase = Phase::Scan;
        let mut pos = start.clone();
        let mut scores: Vec<i32> = Vec::with_capacity(moves.len() + 1);
        for ply in 0..=moves.len() {
            if ply > 0 && pos.play(moves[ply - 1]).is_err() {
                break;
            }
            if !pos.has_legal_move() {
                break;
            }
            let nodes = if t.check_nodes > 0 && ply + t.end_plies >= moves.len() {
                t.check_nodes
            } else {
                t.scan_nodes
            };
            let score = self
                .lines(start, &moves[..ply], nodes, 1)
                .first()
                .map_or(0, |i| i.score);
            scores.push(score);
        }
        (1..scores.len())
            .filter_map(|ply| {
                let score = scores[ply];
                let before = -scores[ply - 1];
                t.is_candidate(score, before)
                    .then_some(Candidate { ply, score, before })
            })
            .collect()
    }

    /// Examines the position after `moves` (played from `start`; the last move is the
    /// opponent's mistake): the puzzle it holds, or why it holds none.
    ///
    /// # Errors
    /// A [`Rejection`].
    pub fn examine(&mut self, start: &Position, moves: &[Move]) -> Result<Puzzle, Rejection> {
        let t = self.thresholds.clone();
        self.phase = Phase::Examine;
        let (&last_move, earlier) = moves.split_last().ok_or(Rejection::BadRecord)?;
        let mut before = start.clone();
        for &m in earlier {
            before.play(m).map_err(|_| Rejection::BadRecord)?;
        }
        let mut position = before.clone();
        position.play(last_move).map_err(|_| Rejection::BadRecord)?;
        let solver = position.side_to_move();
        let material_at_start = material(&position, solver);

        let mut line: Vec<Move> = moves.to_vec();
        let mut solution: Vec<Move> = Vec::new();
        let mut first_score = 0;
        let mut second_score = None;
        let mut current = position.clone();
        loop {
            let lines = self.lines(start, &line, t.deep_nodes, 2);
            let Some(best) = lines.first() else {
                break;
            };
            // A mate in one: the only move that mates at once (others may mate later). A longer
            // mate: the only move that mates at all. Otherwise: the only winning move.
            let unique = t.is_unique(best.score, lines.get(1).map(|l| l.score));
            if solution.is_empty() {
                if best.score < t.win_cp {
                    return Err(Rejection::NotWinning);
                }
                if lines.len() < 2 {
                    return Err(Rejection::OnlyMove);
                }
                if !unique {
                    return Err(Rejection::NotUnique);
                }
                first_score = best.score;
                second_score = lines.get(1).map(|l| l.score);
            } else if !unique {
                // The line ends on the solver's previous move: drop the defender's reply.
                solution.pop();
                break;
            }
            let Some(&attack) = best.pv.first() else {
                break;
            };
            current.play(attack).map_err(|_| Rejection::BadRecord)?;
            solution.push(attack);
            line.push(attack);
            if !current.has_legal_move() {
                break;
            }
            let reply = self.lines(start, &line, t.deep_nodes, 1);
            let Some(&defence) = reply.first().and_then(|i| i.pv.first()) else {
                break;
            };
            // A line that has won its material for good (the defender's best reply does not
            // take it back) and is not mating ends here.
            let mating = best.score >= MATE_BOUND;
            let mut answered = current.clone();
            answered.play(defence).map_err(|_| Rejection::BadRecord)?;
            let kept = material(&answered, solver) - material_at_start;
            if !mating && kept >= t.gain_cp && !current.is_check() {
                break;
            }
            if solution.len().div_ceil(2) >= t.max_attacker_moves {
                break;
            }
            current.play(defence).map_err(|_| Rejection::BadRecord)?;
            solution.push(defence);
            line.push(defence);
        }
        if solution.is_empty() {
            return Err(Rejection::NotWinning);
        }
        let mut end = position.clone();
        for &m in &solution {
            end.play(m).map_err(|_| Rejection::BadRecord)?;
        }
        let mated = end.is_check() && !end.has_legal_move();
        // What the line wins, counted after the defender's best answer to its last move.
        let mut answered = end.clone();
        if !mated {
            let line_end = [moves, &solution].concat();
            if let Some(&m) = self
                .lines(start, &line_end, t.deep_nodes, 1)
                .first()
                .and_then(|i| i.pv.first())
            {
                answered.play(m).map_err(|_| Rejection::BadRecord)?;
            }
        }
        let gained = material(&answered, solver) - material_at_start;
        if !mated && gained < t.gain_cp {
            return Err(Rejection::NoGain);
        }
        let themes = themes(&position, &solution, mated, gained);
        Ok(Puzzle {
            before,
            last_move,
            position,
            solution,
            score: first_score,
            second: second_score,
            themes,
        })
    }
}

/// `side`'s material minus the other side's, in [`kind_value`]s (Generals left out).
fn material(pos: &Position, side: Color) -> i32 {
    let mut sum = 0;
    for sq in pos.occupied() {
        if let Some(p) = pos.piece_at(sq) {
            if p.kind == Kind::General {
                continue;
            }
            let v = kind_value(p.kind);
            sum += if p.color == side { v } else { -v };
        }
    }
    sum
}

/// The themes of `solution` played from `position` (see [`Theme`]).
fn themes(position: &Position, solution: &[Move], mated: bool, gained: i32) -> Vec<Theme> {
    let solver = position.side_to_move();
    let mut out = Vec::new();
    if mated {
        out.push(match solution.len().div_ceil(2) {
            1 => Theme::MateIn1,
            2 => Theme::MateIn2,
            3 => Theme::MateIn3,
            _ => Theme::MateIn4,
        });
    } else if gained >= kind_value(Kind::Chariot) {
        out.push(Theme::Crushing);
    } else if gained >= kind_value(Kind::Horse) {
        out.push(Theme::Advantage);
    }
    let start_material = material(position, solver);
    let mut pos = position.clone();
    for (i, &m) in solution.iter().enumerate() {
        let attacker = i % 2 == 0;
        let moved = pos.piece_at(m.from);
        let captures = pos.is_capture(m);
        if pos.play(m).is_err() {
            break;
        }
        if !attacker {
            continue;
        }
        if i == 0 && solution.len() > 1 {
            // The first move sacrifices when the defender's best reply wins more than it took.
            let mut after = pos.clone();
            if after.play(solution[1]).is_ok()
                && material(&after, solver) < start_material - kind_value(Kind::Soldier)
            {
                out.push(Theme::Sacrifice);
            }
        }
        let checkers = pos.checkers();
        if checkers.count() >= 2 {
            out.push(Theme::DoubleCheck);
        } else if checkers.count() == 1 && !checkers.contains(m.to) {
            out.push(Theme::DiscoveredCheck);
        }
        if let Some(piece) = moved {
            if piece.kind == Kind::Cannon && (captures || checkers.contains(m.to)) {
                out.push(Theme::CannonScreen);
            }
            if forks(&pos, m.to) {
                out.push(Theme::Fork);
            }
        }
    }
    if mated && general_facing_in_mate(&pos) {
        out.push(Theme::FlyingGeneral);
    }
    let fighting = position
        .occupied()
        .into_iter()
        .filter_map(|sq| position.piece_at(sq))
        .filter(|p| !matches!(p.kind, Kind::General | Kind::Advisor | Kind::Elephant))
        .count();
    if fighting <= 6 {
        out.push(Theme::Endgame);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the piece on `sq` (just moved, the defender to move) attacks two or more of the
/// defender's pieces worth at least a horse each, or its General and one such piece.
fn forks(pos: &Position, sq: Square) -> bool {
    let Some(piece) = pos.piece_at(sq) else {
        return false;
    };
    if pos.side_to_move() == piece.color {
        return false;
    }
    let mut turned = pos.clone();
    turned.play_null();
    let mut captures = MoveList::default();
    turned.legal_captures_into(&mut captures);
    let gives_check = pos.checkers().contains(sq);
    let valuable = captures
        .as_slice()
        .iter()
        .filter(|c| c.from == sq)
        .filter_map(|c| pos.piece_at(c.to))
        .filter(|p| p.kind != Kind::General && kind_value(p.kind) >= kind_value(Kind::Horse))
        .count();
    valuable >= 2 || (gives_check && valuable >= 1)
}

/// Whether, in the mated position `pos`, the facing Generals rule takes part: a square beside
/// the mated General, on the solver General's file, is free of the mated side's pieces and
/// nothing stands between it and the solver's General, so only the rule keeps the General from
/// stepping there.
fn general_facing_in_mate(pos: &Position) -> bool {
    let mated = pos.side_to_move();
    let own = pos.general(mated);
    let theirs = pos.general(mated.other());
    if (own.file() - theirs.file()).abs() != 1 {
        return false;
    }
    let target_free = pos.occupied().into_iter().all(|s| {
        !(s.file() == theirs.file() && s.rank() == own.rank())
            || pos.piece_at(s).is_some_and(|p| p.color != mated)
    });
    let (low, high) = (own.rank().min(theirs.rank()), own.rank().max(theirs.rank()));
    let open = pos
        .occupied()
        .into_iter()
        .filter(|s| s.file() == theirs.file() && s.rank() > low && s.rank() < high)
        .all(|s| s.rank() == own.rank());
    target_free && open
}

/// The search's score as mate-in-n solver moves, when it is a mate.
pub fn mate_moves(score: i32) -> Option<i32> {
    (score >= MATE_BOUND).then(|| (MATE - score + 1) / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    fn small() -> Miner {
        Miner::new(Thresholds {
            scan_nodes: 2_000,
            deep_nodes: 60_000,
            ..Thresholds::default()
        })
        .unwrap()
    }

    /// Black's General steps from d9 to e9; Red mates at once with the chariot on b9: d9 is the
    /// chariot's, e8 the other chariot's, and f9 the facing Generals'. No other move mates.
    #[test]
    fn a_mate_in_one_with_the_facing_generals() {
        let start = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/1R3K3 b - - 0 1").unwrap();
        let puzzle = small().examine(&start, &moves("d9e9")).unwrap();
        assert_eq!(puzzle.last_move.to_string(), "d9e9");
        assert_eq!(
            puzzle.position.to_string(),
            "4k4/R8/9/9/9/9/9/9/9/1R3K3 w - - 1 2"
        );
        let solution: Vec<String> = puzzle.solution.iter().map(Move::to_string).collect();
        assert_eq!(solution, ["b0b9"]);
        assert_eq!(puzzle.mate_in(), Some(1));
        assert_eq!(
            puzzle.themes,
            [Theme::MateIn1, Theme::FlyingGeneral, Theme::Endgame]
        );
        assert_eq!(mate_moves(puzzle.score), Some(1));
    }

    /// Black's Chariot steps onto e5, where either Red Chariot takes it: two winning moves, no
    /// puzzle.
    #[test]
    fn two_winning_moves_are_no_puzzle() {
        let start = Position::from_fen("4k4/9/9/4r4/R8/9/9/9/4R4/3K5 b - - 0 1").unwrap();
        assert_eq!(
            small().examine(&start, &moves("e6e5")).unwrap_err(),
            Rejection::NotUnique
        );
    }

    /// A quiet position after a quiet move is not winning: no puzzle, and the scan of the
    /// opening moves finds no candidate.
    #[test]
    fn quiet_openings_hold_no_puzzle() {
        let start = Position::start();
        let opening = moves("h2e2 h9g7 h0g2 i9h9");
        assert_eq!(
            small().examine(&start, &opening).unwrap_err(),
            Rejection::NotWinning
        );
        assert_eq!(small().scan_game(&start, &opening), []);
    }

    /// lichess's curve on chuhe's scale: 0 at 0, symmetric, 0.76 at 1,000 (its 500), mates
    /// at the ends.
    #[test]
    fn winning_chances_follow_lichess_curve() {
        assert_eq!(winning_chances(0), 0.0);
        assert!((winning_chances(1_000) - 0.761_594).abs() < 1e-6);
        assert!((winning_chances(-1_000) + 0.761_594).abs() < 1e-6);
        assert!((winning_chances(500) - 0.462_117).abs() < 1e-6);
        assert_eq!(winning_chances(MATE - 3), 1.0);
        assert_eq!(winning_chances(-(MATE - 3)), -1.0);
    }

    /// The two uniqueness rules and their union, on scores (chuhe's centipawns).
    #[test]
    fn uniqueness_by_margins_chances_or_either() {
        let either = Thresholds::default();
        let margins = Thresholds::margins();
        let lichess = Thresholds::lichess();
        // +600 against +100: the margins hold (100 <= 150); the chances' gap is 0.54 - 0.10.
        assert!(margins.is_unique(600, Some(100)));
        assert!(lichess.is_unique(600, Some(100)));
        assert!(either.is_unique(600, Some(100)));
        // +600 against +200: not by the margins; chances 0.537 - 0.197 = 0.34, not by lichess.
        assert!(!margins.is_unique(600, Some(200)));
        assert!(!lichess.is_unique(600, Some(200)));
        assert!(!either.is_unique(600, Some(200)));
        // +2,000 (a chariot and more) against +400: 0.964 - 0.380 = 0.58 > 0.42.
        assert!(!margins.is_unique(2_000, Some(400)));
        assert!(lichess.is_unique(2_000, Some(400)));
        assert!(either.is_unique(2_000, Some(400)));
        // +550 against +140: the margins hold; the chances' gap is only 0.36.
        assert!(margins.is_unique(550, Some(140)));
        assert!(!lichess.is_unique(550, Some(140)));
        assert!(either.is_unique(550, Some(140)));
        // Below win_cp nothing is unique; mates keep their own rule.
        assert!(!either.is_unique(450, Some(-500)));
        assert!(either.is_unique(MATE - 3, Some(3_000)));
        assert!(!either.is_unique(MATE - 3, Some(MATE - 5)));
        // The quick check turns down only what neither rule could keep.
        assert!(either.clearly_not_unique(700, 650));
        assert!(!either.clearly_not_unique(2_000, 550));
    }

    /// A candidate by lichess's jump: before +400 (more than before_cp) and after +1,500, a
    /// jump of 0.905 - 0.380 = 0.525 > 0.5; +400 to +1,200 is none (0.834 - 0.380), nor is
    /// anything after +600 (0.537: no score adds 0.5 to it).
    #[test]
    fn the_jump_rule_admits_a_swing_from_an_edge() {
        let t = Thresholds::default();
        assert!(t.is_candidate(1_500, 400));
        assert!(!t.is_candidate(1_200, 400));
        assert!(!t.is_candidate(5_000, 600));
        // The first rule: winning after a position worth at most before_cp.
        assert!(t.is_candidate(500, 300));
        assert!(!t.is_candidate(499, -2_000));
        assert!(!Thresholds::margins().is_candidate(1_500, 400));
        // A new mate is a candidate however won the position was.
        assert!(t.is_candidate(MATE - 5, 3_000));
    }

    /// The game `id` of `data/games.tsv`: its start and its moves.
    fn game(id: &str) -> (Position, Vec<Move>) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/games.tsv");
        let text = std::fs::read_to_string(path).unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{id}\t")))
            .unwrap_or_else(|| panic!("no game {id}"));
        let fields: Vec<&str> = row.split('\t').collect();
        (Position::from_fen(fields[6]).unwrap(), moves(fields[7]))
    }

    /// The game `id` of `data/games.tsv` up to the position whose FEN begins with `fen`'s
    /// placement and side to move: its start and the moves played to reach it.
    fn game_until(id: &str, fen: &str) -> (Position, Vec<Move>) {
        let (start, all) = game(id);
        let key = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let mut pos = start.clone();
        let mut played = Vec::new();
        for m in all {
            if key(&pos.to_string()) == key(fen) {
                return (start, played);
            }
            pos.play(m).unwrap();
            played.push(m);
        }
        panic!("{fen} is not in game {id}");
    }

    /// In game ccpd-000225 Black misses the same mate in one (Soldier c2-c1) at plies 165, 167
    /// and 169, in three different positions: one puzzle, the others dropped as repeats.
    #[test]
    fn a_tactic_the_game_offers_again_gives_one_puzzle() {
        let (start, all) = game("ccpd-000225");
        let mut miner = Miner::new(Thresholds::default()).unwrap();
        let mined = miner.mine_game(&start, &all[..170]);
        let mates: Vec<usize> = mined
            .iter()
            .filter(|m| m.outcome.as_ref().is_ok_and(|p| p.mate_in() == Some(1)))
            .map(|m| m.candidate.ply)
            .collect();
        assert_eq!(mates, [165]);
        let repeats = mined
            .iter()
            .filter(|m| m.outcome == Err((Stage::Examine, Rejection::InsideEarlier)))
            .count();
        assert_eq!(repeats, 2);
    }

    /// `data/positions.tsv` pos-0053 (game ccpd-003380): Red mates in two, Horse f5-e7 after
    /// Horse h6-f7 drives the General to f9, and no other first move mates.
    #[test]
    fn a_known_mate_in_two_is_found() {
        let (start, line) = game_until(
            "ccpd-003380",
            "2b1k4/3R5/4b4/p6Np/5N3/2P3B2/P7P/3K5/1r2p1c2/2B2A3 w - - 4 54",
        );
        let puzzle = Miner::new(Thresholds::default())
            .unwrap()
            .examine(&start, &line)
            .unwrap();
        let solution: Vec<String> = puzzle.solution.iter().map(Move::to_string).collect();
        assert_eq!(solution, ["h6f7", "e9f9", "f5e7"]);
        assert_eq!(puzzle.mate_in(), Some(2));
        assert!(puzzle.themes.contains(&Theme::MateIn2));
        assert_eq!(mate_moves(puzzle.score), Some(2));
    }

    /// `data/positions.tsv` pos-0001 (game ccpd-030060): two Horse moves mate at once (e7c8
    /// and e7g8), so the position is no puzzle.
    #[test]
    fn a_real_position_with_two_mates_in_one_is_rejected() {
        let (start, line) = game_until(
            "ccpd-030060",
            "3aka3/9/4N1n2/p3cr2p/4C4/9/P7P/4B4/4A4/2BAK4 w - - 1 37",
        );
        let mut miner = Miner::new(Thresholds::default()).unwrap();
        assert_eq!(miner.check(&start, &line), Err(Rejection::NotUnique));
        assert_eq!(miner.examine(&start, &line), Err(Rejection::NotUnique));
    }

    /// Black's Chariot checks from e1; Red's General must take it, its only legal move (the
    /// Horses hold d0 and f0): winning, but nothing to find.
    #[test]
    fn an_only_move_is_no_puzzle() {
        let start = Position::from_fen("3k5/9/9/9/9/9/9/9/r8/3NKN3 b - - 0 1").unwrap();
        assert_eq!(
            small().examine(&start, &moves("a1e1")).unwrap_err(),
            Rejection::OnlyMove
        );
    }

    /// A record that does not replay is refused, never a panic.
    #[test]
    fn a_bad_record_is_refused() {
        let start = Position::start();
        assert_eq!(
            small().examine(&start, &moves("h2e2 a0a5")).unwrap_err(),
            Rejection::BadRecord
        );
        assert_eq!(
            small().examine(&start, &[]).unwrap_err(),
            Rejection::BadRecord
        );
    }
}
