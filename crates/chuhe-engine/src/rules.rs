//! The end-of-game rules as the search sees them (`spec/xiangqi.md` §6): the path of positions
//! since the last capture, repetition verdicts (perpetual check, perpetual chase, draw) and the
//! chase seam.
//!
//! The search keeps a [`Path`]: for every position from the last capture (of the game history
//! and of the search line) its key, whether the side to move is in check there, and the move and
//! [`Undo`] that led to it. Which window of that path is judged is the search's choice (a repeat
//! inside the search line counts at once, one of the game's history at its third occurrence);
//! the verdict itself is the rules crate's: [`judge::repetition_loser`] (§6.3, chases at level L2
//! of §6.5), the same implementation `Game` uses, so the search and the game cannot disagree. It
//! is computed only when a repetition is found, so ordinary nodes do not pay for it, and it does
//! not allocate. Measured on `chuhe bench` (331,337 nodes either way), the shared verdict costs
//! no measurable speed against the engine's former copy.

use chuhe_rules::xiangqi::{judge, Move, Position, Undo};

/// The outcome of a repetition from the view of the side to move at its last position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins (the other side checked or chased perpetually).
    Win,
    /// The side to move loses (it checked or chased perpetually).
    Loss,
    /// A draw.
    Draw,
}

/// Positions since the last capture or null move, with what the repetition rules need.
#[derive(Debug, Clone, Default)]
pub struct Path {
    keys: Vec<u64>,
    checks: Vec<bool>,
    /// `moves[i]` and `undos[i]` produced position `i + 1`.
    moves: Vec<Move>,
    undos: Vec<Undo>,
    /// `irreversible[i]`: the index of the latest position at or before `i` that no earlier
    /// position can equal (after a capture or a null move, or the first one).
    irreversible: Vec<usize>,
}

impl Path {
    /// A path that starts at `pos`.
    pub fn new(pos: &Position) -> Path {
        Path {
            keys: vec![pos.key()],
            checks: vec![pos.is_check()],
            moves: Vec::new(),
            undos: Vec::new(),
            irreversible: vec![0],
        }
    }

    /// The index of the last position.
    pub fn last(&self) -> usize {
        self.keys.len() - 1
    }

    /// Whether the side to move is in check at the last position.
    pub fn in_check(&self) -> bool {
        self.checks[self.last()]
    }

    /// Plays the legal move `m` on `pos` and records it.
    pub fn play(&mut self, pos: &mut Position, m: Move) {
        let capture = pos.is_capture(m);
        let undo = pos.play_unchecked(m);
        let n = self.keys.len();
        self.keys.push(pos.key());
        self.checks.push(pos.is_check());
        self.moves.push(m);
        self.undos.push(undo);
        let irr = if capture { n } else { self.irreversible[n - 1] };
        self.irreversible.push(irr);
    }

    /// Takes back the last move played with [`Path::play`].
    pub fn undo(&mut self, pos: &mut Position) {
        let (Some(m), Some(u)) = (self.moves.pop(), self.undos.pop()) else {
            return;
        };
        pos.undo(m, u);
        self.keys.pop();
        self.checks.pop();
        self.irreversible.pop();
    }

    /// Passes the turn (null move) and records it as irreversible.
    pub fn play_null(&mut self, pos: &mut Position) {
        let undo = pos.play_null();
        let n = self.keys.len();
        self.keys.push(pos.key());
        self.checks.push(false);
        self.moves.push(Move::new(
            chuhe_rules::xiangqi::Square::new(0).expect("a0"),
            chuhe_rules::xiangqi::Square::new(0).expect("a0"),
        ));
        self.undos.push(undo);
        self.irreversible.push(n);
    }

    /// Takes back [`Path::play_null`].
    pub fn undo_null(&mut self, pos: &mut Position) {
        self.moves.pop();
        if let Some(u) = self.undos.pop() {
            pos.undo_null(u);
        }
        self.keys.pop();
        self.checks.pop();
        self.irreversible.pop();
    }

    /// The repetition verdict at the last position, if the rules end the game there.
    ///
    /// `root` is the index of the search's root: a repeat of a position at or after the root
    /// (inside the search line) is scored at once, as the side that could avoid it did not;
    /// a repeat of the game's history only at its third occurrence, as `spec/xiangqi.md` §6.1
    /// says. `pos` must be the position at the last index.
    pub fn repetition(&self, pos: &Position, root: usize) -> Option<Verdict> {
        let n = self.last();
        let lim = self.irreversible[n];
        if n < lim + 4 {
            return None;
        }
        let key = self.keys[n];
        let mut i = n - 4;
        let mut earlier = 0;
        loop {
            if self.keys[i] == key {
                earlier += 1;
                if i >= root || earlier >= 2 {
                    return Some(self.verdict(pos, i));
                }
            }
            if i < lim + 2 {
                return None;
            }
            i -= 2;
        }
    }

    /// §6.3 over the window of moves producing positions `first + 1 ..= last`, judged by the
    /// rules crate ([`judge::repetition_loser`]), from the view of the side to move at `pos`.
    fn verdict(&self, pos: &Position, first: usize) -> Verdict {
        match judge::repetition_loser(pos, &self.moves[first..self.last()]) {
            None => Verdict::Draw,
            Some((loser, _)) if loser == pos.side_to_move() => Verdict::Loss,
            Some(_) => Verdict::Win,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(fen: &str, moves: &str) -> (Position, Path) {
        let mut pos = Position::from_fen(fen).unwrap();
        let mut path = Path::new(&pos);
        for m in moves.split_whitespace() {
            let m: Move = m.parse().unwrap();
            assert!(pos.is_legal(m), "{m}");
            path.play(&mut pos, m);
        }
        (pos, path)
    }

    #[test]
    fn perpetual_check_loses_at_the_third_occurrence() {
        let fen = "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1";
        let cycle = "a8a9 e9e8 a9a8 e8e9";
        let (pos, path) = play_all(fen, cycle);
        // Second occurrence, all before the root (root = last index): nothing yet.
        assert_eq!(path.repetition(&pos, path.last()), None);
        // Inside a search from the start, the second occurrence already counts.
        // Red to move, and Red checked on every move: Red loses.
        assert_eq!(path.repetition(&pos, 0), Some(Verdict::Loss));
        let (pos, path) = play_all(fen, &format!("{cycle} {cycle}"));
        assert_eq!(path.repetition(&pos, path.last()), Some(Verdict::Loss));
        // One ply later the position after a8a9 occurs a third time: Black to move wins.
        let (pos, path) = play_all(fen, &format!("{cycle} {cycle} a8a9"));
        assert_eq!(path.repetition(&pos, path.last()), Some(Verdict::Win));
    }

    #[test]
    fn one_check_and_one_idle_move_draw() {
        let (pos, path) = play_all(
            "4k4/9/R8/9/9/9/9/9/9/3K5 w - - 0 1",
            "a7a9 e9e8 a9a7 e8e9 a7a9 e9e8 a9a7 e8e9",
        );
        assert_eq!(path.repetition(&pos, path.last()), Some(Verdict::Draw));
    }

    #[test]
    fn both_sides_checking_draw() {
        let (pos, path) = play_all(
            "9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1",
            "e3d3 d6e6 d3e3 e6d6 e3d3 d6e6 d3e3 e6d6",
        );
        assert_eq!(path.repetition(&pos, path.last()), Some(Verdict::Draw));
    }

    #[test]
    fn chases_follow_the_chased_piece() {
        let fen = "4k4/9/n8/9/9/9/2R6/9/9/3K5 w - - 0 1";
        let cycle = "c3a3 a7c8 a3c3 c8a7";
        let (pos, path) = play_all(fen, &format!("{cycle} {cycle}"));
        // Level L2: in spec example E4 the red chariot chases the unprotected horse on every
        // move, following it as it moves; Red (to move at the third occurrence) loses.
        assert_eq!(path.repetition(&pos, path.last()), Some(Verdict::Loss));
    }

    #[test]
    fn captures_and_null_moves_cut_the_path() {
        let (mut pos, mut path) = play_all("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1", "a8a9 e9e8");
        path.play_null(&mut pos);
        path.undo_null(&mut pos);
        path.undo(&mut pos);
        path.undo(&mut pos);
        assert_eq!(
            pos,
            Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap()
        );
        assert_eq!(path.last(), 0);
    }
}
