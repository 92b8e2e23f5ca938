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
//! method with `examples/texel.rs` on quiet positions of `data/games.tsv` (three rounds of
//! four coordinate-descent passes), each round followed by scaling every centipawn weight by the
//! same factor so that a soldier before the river is 100 again (the attack weights `DANGER_*` are multipliers and were
//! not scaled). Nothing here is taken from another engine.

/// Table shape: `[relative rank 0..=9][file 0..=8]`.
pub type Table = [[i16; 9]; 10];

/// Soldier value, middlegame (before any table bonus).
pub const SOLDIER_MG: i32 = 100;
/// Soldier value, endgame.
pub const SOLDIER_EG: i32 = 225;
/// Extra endgame value of a soldier that has crossed the river (and is not on the last rank).
pub const SOLDIER_CROSSED_EG: i32 = 95;
/// Advisor value, middlegame.
pub const ADVISOR_MG: i32 = 240;
/// Advisor value, endgame.
pub const ADVISOR_EG: i32 = 189;
/// Elephant value, middlegame.
pub const ELEPHANT_MG: i32 = 301;
/// Elephant value, endgame.
pub const ELEPHANT_EG: i32 = 189;
/// Horse value, middlegame.
pub const HORSE_MG: i32 = 660;
/// Horse value, endgame.
pub const HORSE_EG: i32 = 776;
/// Cannon value, middlegame.
pub const CANNON_MG: i32 = 783;
/// Cannon value, endgame.
pub const CANNON_EG: i32 = 844;
/// Chariot value, middlegame.
pub const CHARIOT_MG: i32 = 1543;
/// Chariot value, endgame.
pub const CHARIOT_EG: i32 = 1789;

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
pub const HORSE_MOBILITY: i32 = 19;
/// The horse mobility that scores zero.
pub const HORSE_MOBILITY_BASE: i32 = 4;
/// Per empty point a cannon can move to or enemy piece it can capture.
pub const CANNON_MOBILITY: i32 = 5;
/// The cannon mobility that scores zero.
pub const CANNON_MOBILITY_BASE: i32 = 6;
/// Extra value of a horse with at most one move (a trapped horse), as a penalty.
pub const HORSE_TRAPPED: i32 = 8;

/// Shield: per missing advisor, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ADVISOR: i32 = 57;
/// Shield: per missing elephant, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ELEPHANT: i32 = 30;
/// Attack weight of an enemy chariot.
pub const DANGER_CHARIOT: i32 = 8;
/// Attack weight of an enemy horse.
pub const DANGER_HORSE: i32 = -2;
/// Attack weight of an enemy cannon.
pub const DANGER_CANNON: i32 = -8;
/// Divisor of the shield terms.
pub const DANGER_SCALE: i32 = 6;
/// Extra attack weight of each enemy chariot, horse or cannon standing on our side of the river.
pub const DANGER_CROSSED: i32 = 8;
/// An enemy cannon on the general's file with nothing between (a "hollow cannon"), middlegame.
pub const HOLLOW_CANNON: i32 = 159;
/// An enemy cannon on the general's file with exactly one piece between, middlegame.
pub const CENTRAL_CANNON: i32 = 44;
/// The general off its home file with enemy chariots on the board, per chariot.
pub const GENERAL_OFF_FILE: i32 = 61;
/// Bonus for the side to move.
pub const TEMPO: i32 = 15;

/// Soldier table (crossed soldiers gain, the centre most; the last rank is weak).
pub const SOLDIER_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-52, 0, -56, 0, 49, 0, -56, 0, -52],
    [-31, 0, 2, 0, 50, 0, 2, 0, -31],
    [-17, 29, 40, 133, 121, 133, 40, 29, -17],
    [23, 44, 108, 151, 164, 151, 108, 44, 23],
    [-28, 79, 129, 203, 221, 203, 129, 79, -28],
    [-46, 98, 108, 168, 185, 168, 108, 98, -46],
    [-44, -64, -33, 71, -28, 71, -33, -64, -44],
];

/// Advisor table (only palace points are reachable).
pub const ADVISOR_PST: Table = [
    [0, 0, 0, -60, 0, -60, 0, 0, 0],
    [0, 0, 0, 0, -12, 0, 0, 0, 0],
    [0, 0, 0, -50, 0, -50, 0, 0, 0],
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
    [0, 0, -21, 0, 0, 0, -21, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-55, 0, 0, 0, 2, 0, 0, 0, -55],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -56, 0, 0, 0, -56, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// Horse table (centre and forward, near the enemy palace best; edges and home point weak).
pub const HORSE_PST: Table = [
    [-98, -80, -80, -80, -116, -80, -80, -80, -98],
    [-80, -72, -60, -64, -77, -64, -60, -72, -80],
    [-54, -64, -34, 52, -46, 52, -34, -64, -54],
    [11, -33, -8, 0, 46, 0, -8, -33, 11],
    [56, 0, 70, 50, 41, 50, 70, 0, 56],
    [5, 30, 35, 98, 65, 98, 35, 30, 5],
    [-25, 98, 40, 116, 13, 116, 40, 98, -25],
    [72, 64, 27, 116, 102, 116, 27, 64, 72],
    [2, 70, 106, 113, 74, 113, 106, 70, 2],
    [11, -41, 66, 72, 64, 72, 66, -41, 11],
];

/// Chariot table (open central files and the enemy ranks).
pub const CHARIOT_PST: Table = [
    [-80, -3, -52, -10, -64, -10, -52, -3, -80],
    [-54, -42, 2, -29, -48, -29, 2, -42, -54],
    [-64, -25, -11, 10, -42, 10, -11, -25, -64],
    [26, 36, 43, 39, 80, 39, 43, 36, 26],
    [6, 26, 44, 35, 48, 35, 44, 26, 6],
    [6, 17, 29, 16, 50, 16, 29, 17, 6],
    [27, 46, 80, 56, 78, 56, 80, 46, 27],
    [4, 26, 18, 82, 95, 82, 18, 26, 4],
    [25, 82, 46, 82, 106, 82, 46, 82, 25],
    [52, 66, 39, 58, 90, 58, 39, 66, 52],
];

/// Cannon table (central file, home rank and the enemy back rank).
pub const CANNON_PST: Table = [
    [-33, -35, -20, 40, 80, 40, -20, -35, -33],
    [33, -10, 51, 13, 72, 13, 51, -10, 33],
    [-5, -21, 25, 11, 36, 11, 25, -21, -5],
    [-7, -52, 15, 3, 46, 3, 15, -52, -7],
    [4, -34, -24, -48, 32, -48, -24, -34, 4],
    [21, -16, 0, -17, 68, -17, 0, -16, 21],
    [6, -21, -1, -13, 80, -13, -1, -21, 6],
    [40, -32, -54, -46, -36, -46, -54, -32, 40],
    [8, -11, -52, -54, -46, -54, -52, -11, 8],
    [76, 68, -29, -64, -64, -64, -29, 68, 76],
];

/// General table (the home point best).
pub const GENERAL_PST: Table = [
    [0, 0, 0, 34, 37, 34, 0, 0, 0],
    [0, 0, 0, -32, -13, -32, 0, 0, 0],
    [0, 0, 0, -98, -90, -98, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
