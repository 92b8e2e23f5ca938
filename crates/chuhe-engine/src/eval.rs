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

/// Every weight of the evaluation as one value, so a tuner can change them at run time.
/// [`PARAMS`] holds the constants of [`crate::weights`]; the engine always uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// Material by [`Kind::index`], middlegame (the general's entry is unused).
    pub material_mg: [i32; 7],
    /// Material by [`Kind::index`], endgame.
    pub material_eg: [i32; 7],
    /// [`SOLDIER_CROSSED_EG`].
    pub soldier_crossed_eg: i32,
    /// Piece-square tables by [`Kind::index`] (see [`Table`]).
    pub pst: [Table; 7],
    /// Mobility weights: chariot, horse, cannon.
    pub mobility: [i32; 3],
    /// Mobility that scores zero: chariot, horse, cannon.
    pub mobility_base: [i32; 3],
    /// [`HORSE_TRAPPED`].
    pub horse_trapped: i32,
    /// [`MISSING_ADVISOR`].
    pub missing_advisor: i32,
    /// [`MISSING_ELEPHANT`].
    pub missing_elephant: i32,
    /// Attack weights: chariot, horse, cannon.
    pub danger: [i32; 3],
    /// [`DANGER_CROSSED`].
    pub danger_crossed: i32,
    /// [`HOLLOW_CANNON`].
    pub hollow_cannon: i32,
    /// [`CENTRAL_CANNON`].
    pub central_cannon: i32,
    /// [`GENERAL_OFF_FILE`].
    pub general_off_file: i32,
    /// [`TEMPO`].
    pub tempo: i32,
}

/// The engine's weights, from [`crate::weights`].
pub const PARAMS: Params = Params {
    material_mg: [
        0,
        ADVISOR_MG,
        ELEPHANT_MG,
        HORSE_MG,
        CHARIOT_MG,
        CANNON_MG,
        SOLDIER_MG,
    ],
    material_eg: [
        0,
        ADVISOR_EG,
        ELEPHANT_EG,
        HORSE_EG,
        CHARIOT_EG,
        CANNON_EG,
        SOLDIER_EG,
    ],
    soldier_crossed_eg: SOLDIER_CROSSED_EG,
    pst: [
        GENERAL_PST,
        ADVISOR_PST,
        ELEPHANT_PST,
        HORSE_PST,
        CHARIOT_PST,
        CANNON_PST,
        SOLDIER_PST,
    ],
    mobility: [CHARIOT_MOBILITY, HORSE_MOBILITY, CANNON_MOBILITY],
    mobility_base: [
        CHARIOT_MOBILITY_BASE,
        HORSE_MOBILITY_BASE,
        CANNON_MOBILITY_BASE,
    ],
    horse_trapped: HORSE_TRAPPED,
    missing_advisor: MISSING_ADVISOR,
    missing_elephant: MISSING_ELEPHANT,
    danger: [DANGER_CHARIOT, DANGER_HORSE, DANGER_CANNON],
    danger_crossed: DANGER_CROSSED,
    hollow_cannon: HOLLOW_CANNON,
    central_cannon: CENTRAL_CANNON,
    general_off_file: GENERAL_OFF_FILE,
    tempo: TEMPO,
};

/// Middlegame and endgame terms of one side, before tapering.
#[derive(Default, Clone, Copy)]
struct Terms {
    mg: i32,
    eg: i32,
}

#[inline(always)]
fn side_terms(pos: &Position, us: Color, p: &Params) -> Terms {
    let them = us.other();
    let occ = pos.occupied();
    let own = pos.by_color(us);
    let bb = |k: Kind| pos.by_piece(Piece::new(us, k));
    let pst = |k: Kind, sq: Square| -> i32 {
        i32::from(p.pst[k.index()][relative_rank(us, sq)][sq.file() as usize])
    };
    let mut t = Terms::default();
    let mut add = |k: Kind, extra: i32, sq: Square| {
        let v = pst(k, sq) + extra;
        t.mg += p.material_mg[k.index()] + v;
        t.eg += p.material_eg[k.index()] + v;
    };

    for sq in bb(Kind::Soldier) {
        add(Kind::Soldier, 0, sq);
    }
    for sq in bb(Kind::Advisor) {
        add(Kind::Advisor, 0, sq);
    }
    for sq in bb(Kind::Elephant) {
        add(Kind::Elephant, 0, sq);
    }
    for sq in bb(Kind::Horse) {
        let mob = (horse_attacks(sq, occ) & !own).count() as i32;
        let mut m = p.mobility[1] * (mob - p.mobility_base[1]);
        if mob <= 1 {
            m -= p.horse_trapped;
        }
        add(Kind::Horse, m, sq);
    }
    for sq in bb(Kind::Chariot) {
        let mob = (chariot_attacks(sq, occ) & !own).count() as i32;
        add(
            Kind::Chariot,
            p.mobility[0] * (mob - p.mobility_base[0]),
            sq,
        );
    }
    for sq in bb(Kind::Cannon) {
        let quiet = (chariot_attacks(sq, occ) & !occ).count() as i32;
        let caps = (cannon_captures(sq, occ) & pos.by_color(them)).count() as i32;
        add(
            Kind::Cannon,
            p.mobility[2] * (quiet + caps - p.mobility_base[2]),
            sq,
        );
    }
    let g = pos.general(us);
    add(Kind::General, 0, g);
    let crossed = bb(Kind::Soldier)
        .filter(|&sq| (5..9).contains(&relative_rank(us, sq)))
        .count() as i32;
    t.eg += p.soldier_crossed_eg * crossed;

    // General safety: the shield of advisors and elephants against the enemy's attackers.
    let theirs = |k: Kind| pos.by_piece(Piece::new(them, k));
    let attackers = theirs(Kind::Chariot) | theirs(Kind::Horse) | theirs(Kind::Cannon);
    let danger = p.danger[0] * theirs(Kind::Chariot).count() as i32
        + p.danger[1] * theirs(Kind::Horse).count() as i32
        + p.danger[2] * theirs(Kind::Cannon).count() as i32
        + p.danger_crossed * (attackers & half_of(us)).count() as i32;
    let missing_adv = 2 - (bb(Kind::Advisor).count() as i32).min(2);
    let missing_ele = 2 - (bb(Kind::Elephant).count() as i32).min(2);
    t.mg -= (missing_adv * p.missing_advisor + missing_ele * p.missing_elephant) * danger
        / DANGER_SCALE;
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
            0 => t.mg -= p.hollow_cannon,
            1 => t.mg -= p.central_cannon,
            _ => {}
        }
    }
    if g.file() != 4 {
        t.mg -= p.general_off_file * theirs(Kind::Chariot).count() as i32;
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

/// The evaluation with weights `p`, in centipawns from Red's view, without the tempo bonus.
pub fn evaluate_red(pos: &Position, p: &Params) -> i32 {
    let red = side_terms(pos, Color::Red, p);
    let black = side_terms(pos, Color::Black, p);
    let mg = red.mg - black.mg;
    let eg = red.eg - black.eg;
    let ph = phase(pos);
    (mg * ph + eg * (PHASE_TOTAL - ph)) / PHASE_TOTAL
}

/// The static evaluation of `pos` in centipawns, from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    let score = evaluate_red(pos, &PARAMS);
    let stm = if pos.side_to_move() == Color::Red {
        score
    } else {
        -score
    };
    stm + PARAMS.tempo
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
