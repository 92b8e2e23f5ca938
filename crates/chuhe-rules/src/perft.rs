//! Perft (performance test): the number of leaves of a game's legal-move tree to a fixed depth,
//! the standard check of a move generator against published counts.
//!
//! The three games share no move-generation trait (`DESIGN.md`); each implements [`PerftGame`],
//! and [`perft`] and [`divide`] work over any of them. Standard xiangqi also has a faster
//! specialised version, [`crate::xiangqi::perft`].

/// A game position whose legal-move tree can be counted.
pub trait PerftGame: Clone {
    /// The move type.
    type Move: Copy;
    /// The legal moves of the player to move.
    fn perft_moves(&self) -> Vec<Self::Move>;
    /// The position after the legal move `m`.
    fn perft_play(&self, m: Self::Move) -> Self;
}

/// The number of leaves at `depth` plies below `pos` (`depth` 0 gives 1), counting the last ply
/// without playing it.
pub fn perft<G: PerftGame>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.perft_moves().len() as u64,
        _ => pos
            .perft_moves()
            .into_iter()
            .map(|m| perft(&pos.perft_play(m), depth - 1))
            .sum(),
    }
}

/// Perft split by root move, in the order of [`PerftGame::perft_moves`].
pub fn divide<G: PerftGame>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    pos.perft_moves()
        .into_iter()
        .map(|m| (m, perft(&pos.perft_play(m), depth.saturating_sub(1))))
        .collect()
}

impl PerftGame for crate::xiangqi::Position {
    type Move = crate::xiangqi::Move;

    fn perft_moves(&self) -> Vec<Self::Move> {
        self.legal_moves().to_vec()
    }

    fn perft_play(&self, m: Self::Move) -> Self {
        let mut next = self.clone();
        next.play_unchecked(m);
        next
    }
}
