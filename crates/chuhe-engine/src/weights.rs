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
//! method with `examples/texel.rs` on quiet positions of `../shared/data/games.tsv` (four passes
//! of coordinate descent), then every centipawn weight scaled by the same factor so that a
//! soldier before the river is 100 again (the attack weights `DANGER_*` are multipliers and were
//! not scaled). Nothing here is taken from another engine.

/// Table shape: `[relative rank 0..=9][file 0..=8]`.
pub type Table = [[i16; 9]; 10];

/// Soldier value, middlegame (before any table bonus).
pub const SOLDIER_MG: i32 = 100;
/// Soldier value, endgame.
pub const SOLDIER_EG: i32 = 212;
/// Extra endgame value of a soldier that has crossed the river (and is not on the last rank).
pub const SOLDIER_CROSSED_EG: i32 = 97;
/// Advisor value, middlegame.
pub const ADVISOR_MG: i32 = 247;
/// Advisor value, endgame.
pub const ADVISOR_EG: i32 = 218;
/// Elephant value, middlegame.
pub const ELEPHANT_MG: i32 = 247;
/// Elephant value, endgame.
pub const ELEPHANT_EG: i32 = 218;
/// Horse value, middlegame.
pub const HORSE_MG: i32 = 553;
/// Horse value, endgame.
pub const HORSE_EG: i32 = 638;
/// Cannon value, middlegame.
pub const CANNON_MG: i32 = 709;
/// Cannon value, endgame.
pub const CANNON_EG: i32 = 650;
/// Chariot value, middlegame.
pub const CHARIOT_MG: i32 = 1347;
/// Chariot value, endgame.
pub const CHARIOT_EG: i32 = 1444;

/// Game-phase weight of one chariot.
pub const PHASE_CHARIOT: i32 = 4;
/// Game-phase weight of one horse.
pub const PHASE_HORSE: i32 = 2;
/// Game-phase weight of one cannon.
pub const PHASE_CANNON: i32 = 2;
/// The phase of the full set (2 × (2·4 + 2·2 + 2·2)).
pub const PHASE_TOTAL: i32 = 32;

/// Per reachable point of a chariot (pseudo-legal), around [`CHARIOT_MOBILITY_BASE`].
pub const CHARIOT_MOBILITY: i32 = 7;
/// The chariot mobility that scores zero.
pub const CHARIOT_MOBILITY_BASE: i32 = 7;
/// Per reachable point of a horse (legs checked, own pieces excluded).
pub const HORSE_MOBILITY: i32 = 18;
/// The horse mobility that scores zero.
pub const HORSE_MOBILITY_BASE: i32 = 4;
/// Per empty point a cannon can move to or enemy piece it can capture.
pub const CANNON_MOBILITY: i32 = 6;
/// The cannon mobility that scores zero.
pub const CANNON_MOBILITY_BASE: i32 = 6;
/// Extra value of a horse with at most one move (a trapped horse), as a penalty.
pub const HORSE_TRAPPED: i32 = 24;

/// Shield: per missing advisor, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ADVISOR: i32 = 32;
/// Shield: per missing elephant, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ELEPHANT: i32 = 21;
/// Attack weight of an enemy chariot.
pub const DANGER_CHARIOT: i32 = 2;
/// Attack weight of an enemy horse.
pub const DANGER_HORSE: i32 = -2;
/// Attack weight of an enemy cannon.
pub const DANGER_CANNON: i32 = -2;
/// Divisor of the shield terms.
pub const DANGER_SCALE: i32 = 6;
/// Extra attack weight of each enemy chariot, horse or cannon standing on our side of the river.
pub const DANGER_CROSSED: i32 = 8;
/// An enemy cannon on the general's file with nothing between (a "hollow cannon"), middlegame.
pub const HOLLOW_CANNON: i32 = 135;
/// An enemy cannon on the general's file with exactly one piece between, middlegame.
pub const CENTRAL_CANNON: i32 = 37;
/// The general off its home file with enemy chariots on the board, per chariot.
pub const GENERAL_OFF_FILE: i32 = 29;
/// Bonus for the side to move.
pub const TEMPO: i32 = 15;

/// Soldier table (crossed soldiers gain, the centre most; the last rank is weak).
pub const SOLDIER_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-24, 0, -31, 0, 25, 0, -31, 0, -24],
    [-18, 0, 10, 0, 38, 0, 10, 0, -18],
    [-9, 24, 26, 82, 97, 82, 26, 24, -9],
    [12, 41, 99, 126, 141, 126, 99, 41, 12],
    [6, 71, 112, 141, 156, 141, 112, 71, 6],
    [-9, 53, 82, 112, 126, 112, 82, 53, -9],
    [-24, -24, -24, 38, 6, 38, -24, -24, -24],
];

/// Advisor table (only palace points are reachable).
pub const ADVISOR_PST: Table = [
    [0, 0, 0, -24, 0, -24, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0, 0, 0],
    [0, 0, 0, -31, 0, -31, 0, 0, 0],
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
    [0, 0, -6, 0, 0, 0, -6, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-31, 0, 0, 0, 9, 0, 0, 0, -31],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -28, 0, 0, 0, -28, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// Horse table (centre and forward, near the enemy palace best; edges and home point weak).
pub const HORSE_PST: Table = [
    [-53, -38, -38, -38, -68, -38, -38, -38, -53],
    [-38, -31, -24, -24, -53, -24, -24, -31, -38],
    [-31, -24, -9, 31, -9, 31, -9, -24, -31],
    [16, -16, 9, 4, 38, 4, 9, -16, 16],
    [24, 15, 46, 53, 46, 53, 46, 15, 24],
    [-12, 40, 41, 60, 53, 60, 41, 40, -12],
    [-16, 53, 49, 68, 37, 68, 49, 53, -16],
    [31, 53, 38, 75, 56, 75, 38, 53, 31],
    [12, 46, 60, 82, 41, 82, 60, 46, 12],
    [16, -24, 26, 31, 24, 31, 26, -24, 16],
];

/// Chariot table (open central files and the enemy ranks).
pub const CHARIOT_PST: Table = [
    [-38, 12, -31, -4, -24, -4, -31, 12, -38],
    [-31, -16, -6, -16, -24, -16, -6, -16, -31],
    [-31, -16, -24, -10, -16, -10, -24, -16, -31],
    [18, 31, 25, 21, 38, 21, 25, 31, 18],
    [-10, 26, 32, 22, 40, 22, 32, 26, -10],
    [-10, 22, 28, 6, 53, 6, 28, 22, -10],
    [7, 46, 38, 47, 53, 47, 38, 46, 7],
    [7, 34, 26, 53, 54, 53, 26, 34, 7],
    [32, 53, 46, 60, 60, 60, 46, 53, 32],
    [31, 46, 38, 34, 46, 34, 38, 46, 31],
];

/// Cannon table (central file, home rank and the enemy back rank).
pub const CANNON_PST: Table = [
    [-24, -24, -16, 38, 38, 38, -16, -24, -24],
    [24, -16, 31, -4, 31, -4, 31, -16, 24],
    [7, -10, 32, 9, 46, 9, 32, -10, 7],
    [-6, -24, 24, 6, 31, 6, 24, -24, -6],
    [-12, -24, -24, -24, 38, -24, -24, -24, -12],
    [6, -6, -4, -18, 38, -18, -4, -6, 6],
    [-6, -10, -4, -10, 38, -10, -4, -10, -6],
    [31, -4, -16, -9, -1, -9, -16, -4, 31],
    [19, 7, -24, -16, -9, -16, -24, 7, 19],
    [38, 38, -16, -24, -24, -24, -16, 38, 38],
];

/// General table (the home point best).
pub const GENERAL_PST: Table = [
    [0, 0, 0, -1, 24, -1, 0, 0, 0],
    [0, 0, 0, -38, -7, -38, 0, 0, 0],
    [0, 0, 0, -53, -46, -53, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
