//! Move ordering: the move picker hands out the legal moves of a node best-first (hash move,
//! good captures by most valuable victim / least valuable attacker, killer moves, quiet moves by
//! history, losing captures last). It yields each legal move exactly once and nothing else.

use crate::eval::kind_value;
use chuhe_rules::xiangqi::{Move, MoveList, Position, MAX_MOVES};

/// Deepest ply the search tracks killers for.
pub const MAX_PLY: usize = 128;

/// History bound (scores stay in `-HISTORY_MAX..=HISTORY_MAX`).
pub const HISTORY_MAX: i32 = 16_384;

const TT_SCORE: i32 = 4_000_000;
const GOOD_CAPTURE: i32 = 3_000_000;
const KILLER_1: i32 = 2_000_002;
const KILLER_2: i32 = 2_000_001;
const BAD_CAPTURE: i32 = -1_000_000;

/// Ordering statistics learned during a search: killers per ply and a history table per
/// (moving piece, to-square).
pub struct Heuristics {
    /// Two killer moves per ply (quiet moves that caused a beta cut-off).
    pub killers: [[Option<Move>; 2]; MAX_PLY],
    /// History scores indexed `[piece index][to-square index]`.
    pub history: [[i32; 90]; 14],
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY],
            history: [[0; 90]; 14],
        }
    }
}

impl Heuristics {
    /// Records a quiet move that caused a cut-off at `ply`.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        if ply < MAX_PLY && self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
    }

    /// Adds `bonus` (negative: a malus) to the history of `m` in `pos` (before the move), with
    /// gravity so the scores stay bounded.
    pub fn update_history(&mut self, pos: &Position, m: Move, bonus: i32) {
        if let Some(p) = pos.piece_at(m.from) {
            let h = &mut self.history[p.index()][m.to.index()];
            let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
            *h += b - *h * b.abs() / HISTORY_MAX;
        }
    }

    /// The history score of `m` in `pos`.
    pub fn history_of(&self, pos: &Position, m: Move) -> i32 {
        pos.piece_at(m.from)
            .map_or(0, |p| self.history[p.index()][m.to.index()])
    }
}

/// Hands out moves best first.
pub struct MovePicker {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
    next: usize,
}

/// Whether a capture risks losing material: the capturer is worth more than the victim and the
/// target point is attacked by the other side once the capturer has left its point.
fn is_risky_capture(pos: &Position, m: Move) -> bool {
    let (Some(attacker), Some(victim)) = (pos.piece_at(m.from), pos.piece_at(m.to)) else {
        return false;
    };
    if kind_value(attacker.kind) <= kind_value(victim.kind) {
        return false;
    }
    let occ = pos.occupied().without(m.from);
    pos.attackers_of(m.to, victim.color, occ).is_nonempty()
}

fn capture_score(pos: &Position, m: Move) -> i32 {
    let victim = pos.piece_at(m.to).map_or(0, |p| kind_value(p.kind));
    let attacker = pos.piece_at(m.from).map_or(0, |p| kind_value(p.kind));
    let mvv_lva = victim * 8 - attacker / 16;
    if is_risky_capture(pos, m) {
        BAD_CAPTURE + mvv_lva
    } else {
        GOOD_CAPTURE + mvv_lva
    }
}

impl MovePicker {
    /// Every legal move of `pos`, ordered with the hash move `tt_move` (ignored unless legal),
    /// the `killers` and the history of `heur`.
    pub fn new(
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        heur: &Heuristics,
    ) -> MovePicker {
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut scores = [0; MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                TT_SCORE
            } else if pos.is_capture(m) {
                capture_score(pos, m)
            } else if Some(m) == killers[0] {
                KILLER_1
            } else if Some(m) == killers[1] {
                KILLER_2
            } else {
                heur.history_of(pos, m)
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// For the quiescence search: every legal evasion when in check, otherwise the legal captures
    /// that do not look losing (see [`MovePicker::new`] for the order).
    pub fn new_quiescence(pos: &Position, in_check: bool, tt_move: Option<Move>) -> MovePicker {
        let mut moves = MoveList::new();
        let mut scores = [0; MAX_MOVES];
        if in_check {
            pos.legal_moves_into(&mut moves);
            for (i, &m) in moves.iter().enumerate() {
                scores[i] = if Some(m) == tt_move {
                    TT_SCORE
                } else if pos.is_capture(m) {
                    capture_score(pos, m)
                } else {
                    0
                };
            }
            return MovePicker {
                moves,
                scores,
                next: 0,
            };
        }
        pos.legal_captures_into(&mut moves);
        let mut kept = MoveList::new();
        for &m in moves.iter() {
            if !is_risky_capture(pos, m) {
                scores[kept.len()] = capture_score(pos, m);
                kept.push(m);
            }
        }
        MovePicker {
            moves: kept,
            scores,
            next: 0,
        }
    }

    /// The number of moves this picker holds.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether the picker holds no move at all.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    /// The best remaining move (ties: generation order).
    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        let slice = self.moves.as_mut_slice();
        slice.swap(self.next, best);
        self.scores.swap(self.next, best);
        let m = slice[self.next];
        self.next += 1;
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::levels::Rng;
    use chuhe_rules::xiangqi::perft;
    use chuhe_rules::xiangqi::Square;

    /// Perft through the picker, with changing (and often illegal) hash and killer moves.
    fn picker_perft(pos: &mut Position, depth: u32, rng: &mut Rng, heur: &mut Heuristics) -> u64 {
        if depth == 0 {
            return 1;
        }
        fn random_move(rng: &mut Rng) -> Option<Move> {
            let from = Square::new(rng.below(90) as u8).unwrap();
            let to = Square::new(rng.below(90) as u8).unwrap();
            Some(Move::new(from, to))
        }
        let tt = random_move(rng);
        let k = [random_move(rng), random_move(rng)];
        let picker = MovePicker::new(pos, tt, k, heur);
        let mut seen = Vec::new();
        let mut nodes = 0;
        for m in picker {
            assert!(!seen.contains(&m), "{m} twice");
            seen.push(m);
            heur.update_history(pos, m, rng.below(200) as i32 - 100);
            let u = pos.play_unchecked(m);
            nodes += picker_perft(pos, depth - 1, rng, heur);
            pos.undo(m, u);
        }
        assert_eq!(seen.len(), pos.count_legal_moves());
        // The capture generator agrees with the legal moves that capture.
        let mut caps = MoveList::new();
        pos.legal_captures_into(&mut caps);
        let mut want: Vec<Move> = seen
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let mut got: Vec<Move> = caps.iter().copied().collect();
        want.sort();
        got.sort();
        assert_eq!(got, want);
        nodes
    }

    #[test]
    fn picker_perft_equals_rules_perft() {
        let fens = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
            "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
        ];
        let mut rng = Rng::new(1);
        for fen in fens {
            let mut pos = Position::from_fen(fen).unwrap();
            let mut heur = Heuristics::default();
            let expected = perft(&mut pos, 3, false);
            assert_eq!(
                picker_perft(&mut pos, 3, &mut rng, &mut heur),
                expected,
                "{fen}"
            );
        }
    }

    #[test]
    fn quiescence_picker_yields_legal_captures_or_evasions() {
        // Every capture there risks the chariot against a defended piece: none is kept.
        let pos =
            Position::from_fen("r3kab2/4a4/4b4/p1P5p/2nRR1n2/9/P7r/2N1B2pC/4A4/4KAB2 w - - 4 26")
                .unwrap();
        assert_eq!(MovePicker::new_quiescence(&pos, false, None).count(), 0);
        let pos = Position::from_fen("3ak4/9/9/9/4n4/9/2p6/9/4R4/3AK4 w - - 0 1").unwrap();
        let legal = pos.legal_moves();
        let caps: Vec<Move> = MovePicker::new_quiescence(&pos, false, None).collect();
        assert_eq!(caps, vec!["e1e5".parse::<Move>().unwrap()]);
        for m in &caps {
            assert!(legal.contains(*m) && pos.is_capture(*m), "{m}");
        }
        let check = Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1").unwrap();
        let ev: Vec<Move> = MovePicker::new_quiescence(&check, true, None).collect();
        assert_eq!(ev.len(), check.count_legal_moves());
    }
}
