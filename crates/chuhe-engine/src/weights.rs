//! Every weight of the hand-crafted evaluation, in one place (`docs/engine.md`).
//!
//! Units: centipawns, 100 = one soldier that has not crossed the river. Values with `_MG` apply in
//! the middlegame (all chariots, horses and cannons on the board), `_EG` in the endgame (none of
//! them left); between the two the evaluation interpolates by [`PHASE_TOTAL`].
//!
//! Piece-square tables are indexed `[relative rank][file]`: relative rank 0 is the owner's own back
//! rank, 9 the enemy's back rank; file 0 is file `a` as Red sees it (Black's tables are the same
//! seen from Black's side, mirrored in rank only, so both sides value the same files alike).
//! How the numbers were made: hand-set starting values (central and advanced pieces, crossed
//! soldiers, horses near the enemy palace, cannons on the central file), then tuned by Texel's
//! method with `examples/texel.rs` on quiet positions of `../shared/data/games.tsv` (two rounds of
//! four coordinate-descent passes), each round followed by scaling every centipawn weight by the
//! same factor so that a soldier before the river is 100 again (the attack weights `DANGER_*` are multipliers and were
//! not scaled). Nothing here is taken from another engine.

/// Table shape: `[relative rank 0..=9][file 0..=8]`.
pub type Table = [[i16; 9]; 10];

/// Soldier value, middlegame (before any table bonus).
pub const SOLDIER_MG: i32 = 100;
/// Soldier value, endgame.
pub const SOLDIER_EG: i32 = 233;
/// Extra endgame value of a soldier that has crossed the river (and is not on the last rank).
pub const SOLDIER_CROSSED_EG: i32 = 111;
/// Advisor value, middlegame.
pub const ADVISOR_MG: i32 = 256;
/// Advisor value, endgame.
pub const ADVISOR_EG: i32 = 221;
/// Elephant value, middlegame.
pub const ELEPHANT_MG: i32 = 285;
/// Elephant value, endgame.
pub const ELEPHANT_EG: i32 = 221;
/// Horse value, middlegame.
pub const HORSE_MG: i32 = 668;
/// Horse value, endgame.
pub const HORSE_EG: i32 = 760;
/// Cannon value, middlegame.
pub const CANNON_MG: i32 = 815;
/// Cannon value, endgame.
pub const CANNON_EG: i32 = 812;
/// Chariot value, middlegame.
pub const CHARIOT_MG: i32 = 1575;
/// Chariot value, endgame.
pub const CHARIOT_EG: i32 = 1757;

/// Game-phase weight of one chariot.
pub const PHASE_CHARIOT: i32 = 4;
/// Game-phase weight of one horse.
pub const PHASE_HORSE: i32 = 2;
/// Game-phase weight of one cannon.
pub const PHASE_CANNON: i32 = 2;
/// The phase of the full set (2 × (2·4 + 2·2 + 2·2)).
pub const PHASE_TOTAL: i32 = 32;

/// Per reachable point of a chariot (pseudo-legal), around [`CHARIOT_MOBILITY_BASE`].
pub const CHARIOT_MOBILITY: i32 = 8;
/// The chariot mobility that scores zero.
pub const CHARIOT_MOBILITY_BASE: i32 = 7;
/// Per reachable point of a horse (legs checked, own pieces excluded).
pub const HORSE_MOBILITY: i32 = 21;
/// The horse mobility that scores zero.
pub const HORSE_MOBILITY_BASE: i32 = 4;
/// Per empty point a cannon can move to or enemy piece it can capture.
pub const CANNON_MOBILITY: i32 = 6;
/// The cannon mobility that scores zero.
pub const CANNON_MOBILITY_BASE: i32 = 6;
/// Extra value of a horse with at most one move (a trapped horse), as a penalty.
pub const HORSE_TRAPPED: i32 = 14;

/// Shield: per missing advisor, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ADVISOR: i32 = 45;
/// Shield: per missing elephant, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ELEPHANT: i32 = 39;
/// Attack weight of an enemy chariot.
pub const DANGER_CHARIOT: i32 = 4;
/// Attack weight of an enemy horse.
pub const DANGER_HORSE: i32 = -3;
/// Attack weight of an enemy cannon.
pub const DANGER_CANNON: i32 = -6;
/// Divisor of the shield terms.
pub const DANGER_SCALE: i32 = 6;
/// Extra attack weight of each enemy chariot, horse or cannon standing on our side of the river.
pub const DANGER_CROSSED: i32 = 8;
/// An enemy cannon on the general's file with nothing between (a "hollow cannon"), middlegame.
pub const HOLLOW_CANNON: i32 = 168;
/// An enemy cannon on the general's file with exactly one piece between, middlegame.
pub const CENTRAL_CANNON: i32 = 44;
/// The general off its home file with enemy chariots on the board, per chariot.
pub const GENERAL_OFF_FILE: i32 = 49;
/// Bonus for the side to move.
pub const TEMPO: i32 = 15;

/// Soldier table (crossed soldiers gain, the centre most; the last rank is weak).
pub const SOLDIER_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-48, 0, -56, 0, 49, 0, -56, 0, -48],
    [-31, 0, 2, 0, 50, 0, 2, 0, -31],
    [-25, 29, 36, 117, 125, 117, 36, 29, -25],
    [19, 44, 108, 155, 168, 155, 108, 44, 19],
    [-12, 75, 133, 187, 205, 187, 133, 75, -12],
    [-30, 82, 112, 152, 169, 152, 112, 82, -30],
    [-48, -48, -33, 55, -12, 55, -33, -48, -48],
];

/// Advisor table (only palace points are reachable).
pub const ADVISOR_PST: Table = [
    [0, 0, 0, -48, 0, -48, 0, 0, 0],
    [0, 0, 0, 0, -4, 0, 0, 0, 0],
    [0, 0, 0, -46, 0, -46, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// Elephant table (only the seven elephant points are reachable).
pub const ELEPHANT_PST: Table = [
    [0, 0, -17, 0, 0, 0, -17, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-51, 0, 0, 0, 6, 0, 0, 0, -51],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -52, 0, 0, 0, -52, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// Horse table (centre and forward, near the enemy palace best; edges and home point weak).
pub const HORSE_PST: Table = [
    [-82, -64, -64, -64, -100, -64, -64, -64, -82],
    [-64, -56, -48, -48, -73, -48, -48, -56, -64],
    [-46, -48, -30, 56, -30, 56, -30, -48, -46],
    [19, -29, -8, 0, 50, 0, -8, -29, 19],
    [48, 4, 74, 58, 45, 58, 74, 4, 48],
    [5, 38, 39, 90, 73, 90, 39, 38, 5],
    [-29, 82, 44, 100, 25, 100, 44, 82, -29],
    [56, 68, 31, 108, 86, 108, 31, 68, 56],
    [10, 74, 90, 117, 58, 117, 90, 74, 10],
    [19, -33, 50, 56, 48, 56, 50, -33, 19],
];

/// Chariot table (open central files and the enemy ranks).
pub const CHARIOT_PST: Table = [
    [-64, 5, -56, -10, -48, -10, -56, 5, -64],
    [-46, -38, -2, -33, -48, -33, -2, -38, -46],
    [-56, -33, -19, 2, -38, 2, -19, -33, -56],
    [26, 32, 39, 35, 64, 35, 39, 32, 26],
    [2, 26, 48, 31, 48, 31, 48, 26, 2],
    [2, 17, 33, 12, 54, 12, 33, 17, 2],
    [27, 50, 64, 56, 82, 56, 64, 50, 27],
    [8, 26, 26, 82, 83, 82, 26, 26, 8],
    [29, 82, 50, 86, 90, 86, 50, 82, 29],
    [56, 74, 55, 50, 74, 50, 55, 74, 56],
];

/// Cannon table (central file, home rank and the enemy back rank).
pub const CANNON_PST: Table = [
    [-33, -43, -24, 40, 64, 40, -24, -43, -33],
    [33, -14, 51, 5, 56, 5, 51, -14, 33],
    [-1, -17, 29, 11, 40, 11, 29, -17, -1],
    [-7, -48, 19, 7, 46, 7, 19, -48, -7],
    [0, -38, -24, -48, 36, -48, -24, -38, 0],
    [17, -12, 0, -21, 64, -21, 0, -12, 17],
    [2, -21, -5, -17, 64, -17, -5, -21, 2],
    [32, -24, -38, -30, -20, -30, -38, -24, 32],
    [8, -11, -48, -38, -30, -38, -48, -11, 8],
    [64, 64, -29, -48, -48, -48, -29, 64, 64],
];

/// General table (the home point best).
pub const GENERAL_PST: Table = [
    [0, 0, 0, 18, 33, 18, 0, 0, 0],
    [0, 0, 0, -40, -13, -40, 0, 0, 0],
    [0, 0, 0, -82, -74, -82, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
