//! Perft (performance test): the number of leaves of a game's legal-move tree to a fixed depth,
//! the standard check of a move generator against published counts.
//!
//! The three games share no move-generation trait (`DESIGN.md`); the two that perft is defined
//! for (banqi's flips are chance moves) implement [`PerftGame`], and [`perft`] and [`divide`] are
//! the one perft of the crate. [`crate::xiangqi::perft`] and [`crate::sanguo::perft`] call them.
//!
//! ```
//! use chuhe_rules::perft::{divide, perft};
//! use chuhe_rules::xiangqi::Position;
//! let mut pos = Position::start();
//! // Bulk counting and playing every leaf give the same number.
//! assert_eq!(perft(&mut pos, 2, true), 1_920);
//! assert_eq!(perft(&mut pos, 2, false), 1_920);
//! let split = divide(&mut pos, 2);
//! assert_eq!(split.len(), 44);
//! assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 1_920);
//! ```

/// A game position whose legal-move tree can be counted: its legal moves, and playing a move
/// in place and taking it back.
pub trait PerftGame {
    /// The move type.
    type Move: Copy;
    /// The list of legal moves (xiangqi: a fixed-size list on the stack).
    type Moves: AsRef<[Self::Move]>;
    /// What [`PerftGame::perft_play`] returns for [`PerftGame::perft_undo`].
    type Undo;

    /// The legal moves of the player to move.
    fn perft_moves(&self) -> Self::Moves;

    /// How many legal moves the player to move has (bulk counting of the last ply); a game may
    /// count faster than it lists.
    fn perft_count(&self) -> usize {
        self.perft_moves().as_ref().len()
    }

    /// Plays the legal move `m` in place.
    fn perft_play(&mut self, m: Self::Move) -> Self::Undo;

    /// Takes back `m`, just played by [`PerftGame::perft_play`], which returned `undo`.
    fn perft_undo(&mut self, m: Self::Move, undo: Self::Undo);
}

/// The number of leaves at `depth` plies below `pos` (`depth` 0 gives 1). With `bulk` the last
/// ply is counted without playing its moves ([`PerftGame::perft_count`]); without it every leaf
/// move is played and taken back. Both give the same number. `pos` is restored.
pub fn perft<G: PerftGame>(pos: &mut G, depth: u32, bulk: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if bulk && depth == 1 {
        return pos.perft_count() as u64;
    }
    let moves = pos.perft_moves();
    let mut nodes = 0;
    for &m in moves.as_ref() {
        let undo = pos.perft_play(m);
        nodes += perft(pos, depth - 1, bulk);
        pos.perft_undo(m, undo);
    }
    nodes
}

/// Perft split by root move: `(move, leaves at depth - 1 below it)` in the order of
/// [`PerftGame::perft_moves`], counted in bulk (`depth` 0 counts 1 per move). `pos` is restored.
pub fn divide<G: PerftGame>(pos: &mut G, depth: u32) -> Vec<(G::Move, u64)> {
    let moves = pos.perft_moves();
    moves
        .as_ref()
        .iter()
        .map(|&m| {
            let undo = pos.perft_play(m);
            let n = perft(pos, depth.saturating_sub(1), true);
            pos.perft_undo(m, undo);
            (m, n)
        })
        .collect()
}

impl PerftGame for crate::xiangqi::Position {
    type Move = crate::xiangqi::Move;
    type Moves = crate::xiangqi::MoveList;
    type Undo = crate::xiangqi::Undo;

    fn perft_moves(&self) -> Self::Moves {
        self.legal_moves()
    }

    fn perft_count(&self) -> usize {
        self.count_legal_moves()
    }

    fn perft_play(&mut self, m: Self::Move) -> Self::Undo {
        self.play_unchecked(m)
    }

    fn perft_undo(&mut self, m: Self::Move, undo: Self::Undo) {
        self.undo(m, undo);
    }
}

/// Sanguo has no take-back (a move may defeat a kingdom and hand its army on): the position
/// before the move is its own undo.
impl PerftGame for crate::sanguo::Position {
    type Move = crate::sanguo::Move;
    type Moves = Vec<crate::sanguo::Move>;
    type Undo = crate::sanguo::Position;

    fn perft_moves(&self) -> Self::Moves {
        self.legal_moves()
    }

    fn perft_count(&self) -> usize {
        self.count_legal_moves()
    }

    fn perft_play(&mut self, m: Self::Move) -> Self::Undo {
        let before = self.clone();
        self.play_unchecked(m);
        before
    }

    fn perft_undo(&mut self, _m: Self::Move, undo: Self::Undo) {
        *self = undo;
    }
}
