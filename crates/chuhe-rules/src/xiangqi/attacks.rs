//! Move and attack tables built at compile time by `const fn`s, and the slider helpers.
//!
//! Every table is checked in the tests against a slow, obvious reference built from
//! [`Square::offset`] and the movement rules of `spec/xiangqi.md` §3.

use super::bitboard::Bitboard;
use super::square::{Color, Square};

/// No square (a leg or eye that would be off the board).
pub(crate) const NONE: u8 = u8::MAX;

const fn on_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn bit(f: i32, r: i32) -> u128 {
    1u128 << (r * 9 + f)
}

const fn in_palace(f: i32, r: i32) -> bool {
    f >= 3 && f <= 5 && (r <= 2 || r >= 7)
}

/// Ray directions, as (file step, rank step). Directions 0 and 1 go towards higher indices (the
/// nearest blocker is the lowest set bit); 2 and 3 towards lower indices (the highest set bit).
pub(crate) const DIRS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

const fn build_rays() -> [[u128; 90]; 4] {
    let mut t = [[0u128; 90]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < 90 {
            let (f0, r0) = ((s % 9) as i32, (s / 9) as i32);
            let (mut f, mut r) = (f0 + DIRS[d].0, r0 + DIRS[d].1);
            while on_board(f, r) {
                t[d][s] |= bit(f, r);
                f += DIRS[d].0;
                r += DIRS[d].1;
            }
            s += 1;
        }
        d += 1;
    }
    t
}

/// `RAYS[dir][sq]`: the points from `sq` (excluded) to the edge in direction `DIRS[dir]`.
pub(crate) static RAYS: [[u128; 90]; 4] = RAYS_CONST;
/// [`RAYS`] as a constant, for other compile-time tables.
pub(crate) const RAYS_CONST: [[u128; 90]; 4] = build_rays();

/// A step that needs one point to be empty: the horse's leg or the elephant's eye.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blockable {
    /// The point that must be empty, or [`NONE`] when no target exists this way.
    pub via: u8,
    /// The targets reached through `via` (one or two points).
    pub to: u128,
}

const EMPTY_STEP: Blockable = Blockable { via: NONE, to: 0 };

const fn build_horse_moves() -> [[Blockable; 4]; 90] {
    let mut t = [[EMPTY_STEP; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIRS[d];
            let (lf, lr) = (f + df, r + dr);
            if on_board(lf, lr) {
                // Two targets: two steps along the leg's direction, one step sideways.
                let mut mask = 0u128;
                let (sf, sr) = (dr, df); // perpendicular
                let (t1f, t1r) = (f + 2 * df + sf, r + 2 * dr + sr);
                let (t2f, t2r) = (f + 2 * df - sf, r + 2 * dr - sr);
                if on_board(t1f, t1r) {
                    mask |= bit(t1f, t1r);
                }
                if on_board(t2f, t2r) {
                    mask |= bit(t2f, t2r);
                }
                if mask != 0 {
                    t[s][d] = Blockable {
                        via: (lr * 9 + lf) as u8,
                        to: mask,
                    };
                }
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `HORSE_MOVES[sq]`: per orthogonal leg of a horse on `sq`, the leg and the targets past it.
pub(crate) static HORSE_MOVES: [[Blockable; 4]; 90] = build_horse_moves();

const DIAGS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

const fn build_horse_attackers() -> [[Blockable; 4]; 90] {
    let mut t = [[EMPTY_STEP; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAGS[d];
            let (lf, lr) = (f + df, r + dr);
            if on_board(lf, lr) {
                // A horse on (f+2df, r+dr) or (f+df, r+2dr) reaches `s` with its leg on (lf, lr).
                let mut mask = 0u128;
                if on_board(f + 2 * df, r + dr) {
                    mask |= bit(f + 2 * df, r + dr);
                }
                if on_board(f + df, r + 2 * dr) {
                    mask |= bit(f + df, r + 2 * dr);
                }
                if mask != 0 {
                    t[s][d] = Blockable {
                        via: (lr * 9 + lf) as u8,
                        to: mask,
                    };
                }
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `HORSE_ATTACKERS[sq]`: per diagonal neighbour of `sq`, that neighbour (the leg every horse
/// behind it needs empty) and the two points from which a horse attacks `sq` through it.
pub(crate) static HORSE_ATTACKERS: [[Blockable; 4]; 90] = HORSE_ATTACKERS_CONST;
/// [`HORSE_ATTACKERS`] as a constant, for other compile-time tables.
pub(crate) const HORSE_ATTACKERS_CONST: [[Blockable; 4]; 90] = build_horse_attackers();

const fn build_elephant_moves() -> [[Blockable; 4]; 90] {
    let mut t = [[EMPTY_STEP; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAGS[d];
            let (tf, tr) = (f + 2 * df, r + 2 * dr);
            // Never across the river: the target stays on the half of the board it starts on.
            if on_board(tf, tr) && (tr <= 4) == (r <= 4) {
                t[s][d] = Blockable {
                    via: ((r + dr) * 9 + f + df) as u8,
                    to: bit(tf, tr),
                };
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `ELEPHANT_MOVES[sq]`: per diagonal, the eye and the target two points away on the same side of
/// the river.
pub(crate) static ELEPHANT_MOVES: [[Blockable; 4]; 90] = build_elephant_moves();

const fn build_palace_steps(diagonal: bool) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (df, dr) = if diagonal { DIAGS[d] } else { DIRS[d] };
                let (tf, tr) = (f + df, r + dr);
                // The two palaces are far apart, so "in a palace" means "in the same palace".
                if on_board(tf, tr) && in_palace(tf, tr) {
                    t[s] |= bit(tf, tr);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
}

/// `GENERAL_MOVES[sq]`: orthogonal steps inside the palace holding `sq` (empty outside a palace).
pub(crate) static GENERAL_MOVES: [u128; 90] = build_palace_steps(false);
/// `ADVISOR_MOVES[sq]`: diagonal steps inside the palace holding `sq` (empty outside a palace).
pub(crate) static ADVISOR_MOVES: [u128; 90] = build_palace_steps(true);

const fn build_soldier_moves() -> [[u128; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            if on_board(f, r + fwd) {
                t[c][s] |= bit(f, r + fwd);
            }
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            if crossed {
                if f > 0 {
                    t[c][s] |= bit(f - 1, r);
                }
                if f < 8 {
                    t[c][s] |= bit(f + 1, r);
                }
            }
            s += 1;
        }
        c += 1;
    }
    t
}

/// `SOLDIER_MOVES[color][sq]`: forward, and sideways once across the river.
pub(crate) static SOLDIER_MOVES: [[u128; 90]; 2] = build_soldier_moves();

const fn build_soldier_attackers() -> [[u128; 90]; 2] {
    let moves = build_soldier_moves();
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < 90 {
            let mut to = 0;
            while to < 90 {
                if moves[c][from] >> to & 1 != 0 {
                    t[c][to] |= 1u128 << from;
                }
                to += 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
}

/// `SOLDIER_ATTACKERS[color][sq]`: the points from which a soldier of `color` attacks `sq`.
pub(crate) static SOLDIER_ATTACKERS: [[u128; 90]; 2] = build_soldier_attackers();

/// The nearest set point of `blockers` (a subset of `RAYS[dir][sq]`) seen from the ray's origin.
#[inline(always)]
pub(crate) fn nearest(dir: usize, blockers: u128) -> usize {
    debug_assert!(blockers != 0);
    if dir < 2 {
        blockers.trailing_zeros() as usize
    } else {
        127 - blockers.leading_zeros() as usize
    }
}

/// The points a chariot on `sq` reaches over empty points in every direction, each direction's
/// first occupied point included (captures of own pieces are removed by the caller).
#[inline(always)]
pub fn chariot_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let s = sq.index();
    let mut out = 0u128;
    for dir in 0..4 {
        let ray = RAYS[dir][s];
        let blockers = ray & occupied.0;
        if blockers == 0 {
            out |= ray;
        } else {
            out |= ray & !RAYS[dir][nearest(dir, blockers)];
        }
    }
    Bitboard(out)
}

/// The points a cannon on `sq` can capture on: in each direction, the first occupied point past
/// exactly one screen.
#[inline(always)]
pub fn cannon_captures(sq: Square, occupied: Bitboard) -> Bitboard {
    let s = sq.index();
    let mut out = 0u128;
    for dir in 0..4 {
        let blockers = RAYS[dir][s] & occupied.0;
        if blockers != 0 {
            let screen = nearest(dir, blockers);
            let beyond = RAYS[dir][screen] & occupied.0;
            if beyond != 0 {
                out |= 1u128 << nearest(dir, beyond);
            }
        }
    }
    Bitboard(out)
}

/// The points a horse on `sq` reaches, legs checked against `occupied`.
#[inline(always)]
pub fn horse_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let mut out = 0u128;
    for step in &HORSE_MOVES[sq.index()] {
        if step.via != NONE && occupied.0 >> step.via & 1 == 0 {
            out |= step.to;
        }
    }
    Bitboard(out)
}

/// The points an elephant on `sq` reaches, eyes checked against `occupied`.
#[inline(always)]
pub fn elephant_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let mut out = 0u128;
    for step in &ELEPHANT_MOVES[sq.index()] {
        if step.via != NONE && occupied.0 >> step.via & 1 == 0 {
            out |= step.to;
        }
    }
    Bitboard(out)
}

/// The points a soldier of `color` on `sq` attacks.
#[inline(always)]
pub fn soldier_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(SOLDIER_MOVES[color.index()][sq.index()])
}

/// The palace points an advisor on `sq` attacks.
#[inline(always)]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    Bitboard(ADVISOR_MOVES[sq.index()])
}

/// The palace points a general on `sq` attacks (facing generals aside).
#[inline(always)]
pub fn general_attacks(sq: Square) -> Bitboard {
    Bitboard(GENERAL_MOVES[sq.index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xiangqi::square::Color;

    fn set(squares: impl IntoIterator<Item = Option<Square>>) -> Bitboard {
        squares
            .into_iter()
            .flatten()
            .fold(Bitboard::EMPTY, |b, s| b.with(s))
    }

    /// A slow reference: walk the board point by point.
    fn slow_chariot(sq: Square, occ: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for (df, dr) in DIRS {
            let mut cur = sq.offset(df, dr);
            while let Some(s) = cur {
                out = out.with(s);
                if occ.contains(s) {
                    break;
                }
                cur = s.offset(df, dr);
            }
        }
        out
    }

    fn slow_cannon(sq: Square, occ: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for (df, dr) in DIRS {
            let mut screens = 0;
            let mut cur = sq.offset(df, dr);
            while let Some(s) = cur {
                if occ.contains(s) {
                    screens += 1;
                    if screens == 2 {
                        out = out.with(s);
                        break;
                    }
                }
                cur = s.offset(df, dr);
            }
        }
        out
    }

    fn slow_horse(sq: Square, occ: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for (df, dr) in [
            (1i32, 2i32),
            (-1, 2),
            (1, -2),
            (-1, -2),
            (2, 1),
            (2, -1),
            (-2, 1),
            (-2, -1),
        ] {
            let leg = if dr.abs() == 2 {
                sq.offset(0, dr / 2)
            } else {
                sq.offset(df / 2, 0)
            };
            if let (Some(leg), Some(to)) = (leg, sq.offset(df, dr)) {
                if !occ.contains(leg) {
                    out = out.with(to);
                }
            }
        }
        out
    }

    fn pseudo_random_occupancy(seed: u64) -> Bitboard {
        let mut x = seed;
        let mut bb = Bitboard::EMPTY;
        for sq in Square::all() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(4) {
                bb = bb.with(sq);
            }
        }
        bb
    }

    #[test]
    fn slider_and_horse_tables_match_the_slow_reference() {
        for seed in 1..200u64 {
            let occ = pseudo_random_occupancy(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for sq in Square::all() {
                assert_eq!(
                    chariot_attacks(sq, occ),
                    slow_chariot(sq, occ),
                    "chariot {sq}"
                );
                assert_eq!(
                    cannon_captures(sq, occ),
                    slow_cannon(sq, occ),
                    "cannon {sq}"
                );
                assert_eq!(horse_attacks(sq, occ), slow_horse(sq, occ), "horse {sq}");
                // The reverse table: horses that attack sq.
                let mut attackers = Bitboard::EMPTY;
                for step in &HORSE_ATTACKERS[sq.index()] {
                    if step.via != NONE && occ.0 >> step.via & 1 == 0 {
                        attackers |= Bitboard(step.to);
                    }
                }
                let slow = Square::all().filter(|&h| slow_horse(h, occ).contains(sq));
                assert_eq!(attackers, set(slow.map(Some)), "horse attackers of {sq}");
            }
        }
    }

    #[test]
    fn elephant_advisor_general_soldier_tables() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let occ = Bitboard::EMPTY;
        assert_eq!(
            elephant_attacks(sq("c0"), occ),
            set([Some(sq("a2")), Some(sq("e2"))])
        );
        assert_eq!(
            elephant_attacks(sq("c4"), occ),
            set([Some(sq("a2")), Some(sq("e2"))])
        );
        assert_eq!(
            elephant_attacks(sq("g5"), occ),
            set([Some(sq("e7")), Some(sq("i7"))])
        );
        assert_eq!(elephant_attacks(sq("e2"), occ.with(sq("d1"))).count(), 3);
        assert_eq!(advisor_attacks(sq("e1")).count(), 4);
        assert_eq!(advisor_attacks(sq("d0")), set([Some(sq("e1"))]));
        assert_eq!(advisor_attacks(sq("e8")).count(), 4);
        assert_eq!(
            general_attacks(sq("e0")),
            set([Some(sq("d0")), Some(sq("f0")), Some(sq("e1"))])
        );
        assert_eq!(
            general_attacks(sq("d9")),
            set([Some(sq("e9")), Some(sq("d8"))])
        );
        assert_eq!(soldier_attacks(Color::Red, sq("a3")), set([Some(sq("a4"))]));
        assert_eq!(
            soldier_attacks(Color::Red, sq("a5")),
            set([Some(sq("a6")), Some(sq("b5"))])
        );
        assert_eq!(
            soldier_attacks(Color::Red, sq("e9")),
            set([Some(sq("d9")), Some(sq("f9"))])
        );
        assert_eq!(soldier_attacks(Color::Black, sq("e4")).count(), 3);
        for c in Color::ALL {
            for to in Square::all() {
                let slow = Square::all().filter(|&from| soldier_attacks(c, from).contains(to));
                assert_eq!(
                    Bitboard(SOLDIER_ATTACKERS[c.index()][to.index()]),
                    set(slow.map(Some))
                );
            }
        }
    }
}
