//! Zobrist keys: one random 64-bit number per (piece, square) and one for Black to move, built at
//! compile time from a fixed seed with SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014), so keys are the same in every build.

use super::square::{Piece, Square};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn build() -> ([[u64; 90]; 14], u64) {
    let mut table = [[0u64; 90]; 14];
    let mut state = 0x6368_7568_655f_7871; // "chuhe_xq"
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (next, value) = splitmix64(state);
            state = next;
            table[p][s] = value;
            s += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix64(state);
    (table, side)
}

const TABLES: ([[u64; 90]; 14], u64) = build();
static PIECE_SQUARE: [[u64; 90]; 14] = TABLES.0;

/// The key part of Black to move (XORed in when Black is to move).
pub const BLACK_TO_MOVE: u64 = TABLES.1;

/// The key part of `piece` standing on `sq`.
#[inline(always)]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index()][sq.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut seen = HashSet::new();
        for row in PIECE_SQUARE.iter() {
            for &k in row {
                assert_ne!(k, 0);
                assert!(seen.insert(k));
            }
        }
        assert!(seen.insert(BLACK_TO_MOVE));
    }
}
