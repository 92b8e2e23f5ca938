//! The hand-crafted evaluation: material, piece-square tables, mobility and general safety, with
//! every weight in [`crate::weights`].
//!
//! The score is in centipawns from the side to move's view (100 = one soldier that has not crossed
//! the river), tapered between middlegame and endgame weights by the chariots, horses and cannons
//! left on the board.

use crate::weights::*;
use chuhe_rules::xiangqi::attacks::{cannon_captures, chariot_attacks, horse_attacks};
use chuhe_rules::xiangqi::{Bitboard, Color, Kind, Piece, Position, Square};

/// Material value of a kind for move ordering and pruning (middlegame values).
pub const fn kind_value(kind: Kind) -> i32 {
    match kind {
        Kind::General => 10_000,
        Kind::Advisor => ADVISOR_MG,
        Kind::Elephant => ELEPHANT_MG,
        Kind::Horse => HORSE_MG,
        Kind::Chariot => CHARIOT_MG,
        Kind::Cannon => CANNON_MG,
        Kind::Soldier => SOLDIER_MG,
    }
}

/// The owner's relative rank of `sq` (0 = own back rank).
#[inline(always)]
fn relative_rank(color: Color, sq: Square) -> usize {
    match color {
        Color::Red => sq.rank() as usize,
        Color::Black => 9 - sq.rank() as usize,
    }
}

#[inline(always)]
fn pst(table: &Table, color: Color, sq: Square) -> i32 {
    i32::from(table[relative_rank(color, sq)][sq.file() as usize])
}

/// Middlegame and endgame terms of one side, before tapering.
#[derive(Default, Clone, Copy)]
struct Terms {
    mg: i32,
    eg: i32,
}

fn side_terms(pos: &Position, us: Color) -> Terms {
    let them = us.other();
    let occ = pos.occupied();
    let own = pos.by_color(us);
    let bb = |k: Kind| pos.by_piece(Piece::new(us, k));
    let mut t = Terms::default();

    for sq in bb(Kind::Soldier) {
        let p = pst(&SOLDIER_PST, us, sq);
        t.mg += SOLDIER_MG + p;
        t.eg += SOLDIER_EG + p;
        let r = relative_rank(us, sq);
        if (5..9).contains(&r) {
            t.eg += SOLDIER_CROSSED_EG;
        }
    }
    for sq in bb(Kind::Advisor) {
        let p = pst(&ADVISOR_PST, us, sq);
        t.mg += ADVISOR_MG + p;
        t.eg += ADVISOR_EG + p;
    }
    for sq in bb(Kind::Elephant) {
        let p = pst(&ELEPHANT_PST, us, sq);
        t.mg += ELEPHANT_MG + p;
        t.eg += ELEPHANT_EG + p;
    }
    for sq in bb(Kind::Horse) {
        let p = pst(&HORSE_PST, us, sq);
        let mob = (horse_attacks(sq, occ) & !own).count() as i32;
        let mut m = HORSE_MOBILITY * (mob - HORSE_MOBILITY_BASE);
        if mob <= 1 {
            m -= HORSE_TRAPPED;
        }
        t.mg += HORSE_MG + p + m;
        t.eg += HORSE_EG + p + m;
    }
    for sq in bb(Kind::Chariot) {
        let p = pst(&CHARIOT_PST, us, sq);
        let mob = (chariot_attacks(sq, occ) & !own).count() as i32;
        let m = CHARIOT_MOBILITY * (mob - CHARIOT_MOBILITY_BASE);
        t.mg += CHARIOT_MG + p + m;
        t.eg += CHARIOT_EG + p + m;
    }
    for sq in bb(Kind::Cannon) {
        let p = pst(&CANNON_PST, us, sq);
        let quiet = (chariot_attacks(sq, occ) & !occ).count() as i32;
        let caps = (cannon_captures(sq, occ) & pos.by_color(them)).count() as i32;
        let m = CANNON_MOBILITY * (quiet + caps - CANNON_MOBILITY_BASE);
        t.mg += CANNON_MG + p + m;
        t.eg += CANNON_EG + p + m;
    }
    let g = pos.general(us);
    t.mg += pst(&GENERAL_PST, us, g);
    t.eg += pst(&GENERAL_PST, us, g);

    // General safety: the shield of advisors and elephants against the enemy's attackers.
    let theirs = |k: Kind| pos.by_piece(Piece::new(them, k));
    let our_half = half_of(us);
    let attackers = theirs(Kind::Chariot) | theirs(Kind::Horse) | theirs(Kind::Cannon);
    let danger = DANGER_CHARIOT * theirs(Kind::Chariot).count() as i32
        + DANGER_HORSE * theirs(Kind::Horse).count() as i32
        + DANGER_CANNON * theirs(Kind::Cannon).count() as i32
        + DANGER_CROSSED * (attackers & our_half).count() as i32;
    let missing_adv = 2 - (bb(Kind::Advisor).count() as i32).min(2);
    let missing_ele = 2 - (bb(Kind::Elephant).count() as i32).min(2);
    t.mg -=
        (missing_adv * MISSING_ADVISOR + missing_ele * MISSING_ELEPHANT) * danger / DANGER_SCALE;
    // Enemy cannons on the general's file.
    for c in theirs(Kind::Cannon) {
        if c.file() != g.file() {
            continue;
        }
        let (lo, hi) = if c.rank() < g.rank() {
            (c.rank(), g.rank())
        } else {
            (g.rank(), c.rank())
        };
        let between = (lo + 1..hi)
            .filter(|&r| Square::from_coords(g.file(), r).is_some_and(|s| occ.contains(s)))
            .count();
        match between {
            0 => t.mg -= HOLLOW_CANNON,
            1 => t.mg -= CENTRAL_CANNON,
            _ => {}
        }
    }
    if g.file() != 4 {
        t.mg -= GENERAL_OFF_FILE * theirs(Kind::Chariot).count() as i32;
    }
    t
}

/// The points on `color`'s side of the river.
fn half_of(color: Color) -> Bitboard {
    const LOW: u128 = (1u128 << 45) - 1;
    const ALL: u128 = (1u128 << 90) - 1;
    match color {
        Color::Red => Bitboard(LOW),
        Color::Black => Bitboard(ALL & !LOW),
    }
}

/// The game phase, 0 (no chariot, horse or cannon) ..= [`PHASE_TOTAL`] (all of them).
pub fn phase(pos: &Position) -> i32 {
    let mut p = 0;
    for c in Color::ALL {
        p += PHASE_CHARIOT * pos.by_piece(Piece::new(c, Kind::Chariot)).count() as i32;
        p += PHASE_HORSE * pos.by_piece(Piece::new(c, Kind::Horse)).count() as i32;
        p += PHASE_CANNON * pos.by_piece(Piece::new(c, Kind::Cannon)).count() as i32;
    }
    p.min(PHASE_TOTAL)
}

/// The static evaluation of `pos` in centipawns, from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    let red = side_terms(pos, Color::Red);
    let black = side_terms(pos, Color::Black);
    let mg = red.mg - black.mg;
    let eg = red.eg - black.eg;
    let ph = phase(pos);
    let score = (mg * ph + eg * (PHASE_TOTAL - ph)) / PHASE_TOTAL;
    let stm = if pos.side_to_move() == Color::Red {
        score
    } else {
        -score
    };
    stm + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        let start = Position::start();
        assert_eq!(evaluate(&start), TEMPO);
        // Black to move in the mirrored start: same score for the side to move.
        let black = Position::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
        )
        .unwrap();
        assert_eq!(evaluate(&black), TEMPO);
    }

    #[test]
    fn colour_flip_negates() {
        // A position and its colour-mirrored twin (ranks flipped, colours swapped, side swapped).
        let a = Position::from_fen("3ak4/4a4/4b4/p3C3p/2n6/9/P1r5P/4B4/4A4/2BAK4 w").unwrap();
        let b = Position::from_fen("2bak4/4a4/4b4/p1R5p/9/2N6/P3c3P/4B4/4A4/3AK4 b").unwrap();
        assert_eq!(evaluate(&a), evaluate(&b));
    }

    #[test]
    fn an_extra_chariot_is_worth_a_lot() {
        let p = Position::from_fen("3ak4/9/9/9/9/9/9/9/9/R2A1K3 w").unwrap();
        assert!(evaluate(&p) > 800, "{}", evaluate(&p));
    }
}
