//! Zobrist keys of sanguo positions (`spec/sanguo.md` §10): one 64-bit number per (point, kind,
//! owner, origin) and per kingdom to move, XORed together. Two positions with the same
//! [`super::Identity`] (C11) have the same key.
//!
//! The numbers come from SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014) seeded with a fixed constant, computed at compile time.

use super::board::{Kingdom, Point, POINTS};
use super::piece::Piece;

const PER_POINT: usize = 8 * 3 * 3;

const fn splitmix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (next, z ^ (z >> 31))
}

const fn build() -> ([u64; POINTS * PER_POINT], [u64; 3]) {
    let mut pieces = [0u64; POINTS * PER_POINT];
    let mut state = 0x5a6e_6775_6f21_0135;
    let mut i = 0;
    while i < pieces.len() {
        let (s, z) = splitmix(state);
        state = s;
        pieces[i] = z;
        i += 1;
    }
    let mut side = [0u64; 3];
    let mut k = 0;
    while k < 3 {
        let (s, z) = splitmix(state);
        state = s;
        side[k] = z;
        k += 1;
    }
    (pieces, side)
}

const TABLES: ([u64; POINTS * PER_POINT], [u64; 3]) = build();

/// The key of `piece` standing on `p`.
pub fn piece_key(p: Point, piece: Piece) -> u64 {
    let i = p.index() * PER_POINT
        + (piece.kind as usize) * 9
        + piece.owner.index() * 3
        + piece.origin.index();
    TABLES.0[i]
}

/// The key of `k` being the kingdom to move.
pub fn side_key(k: Kingdom) -> u64 {
    TABLES.1[k.index()]
}
