//! Every weight of the hand-crafted evaluation, in one place (`docs/engine.md`).
//!
//! Units: centipawns, 100 = one soldier that has not crossed the river. Values with `_MG` apply in
//! the middlegame (all chariots, horses and cannons on the board), `_EG` in the endgame (none of
//! them left); between the two the evaluation interpolates by [`PHASE_TOTAL`].
//!
//! Piece-square tables are indexed `[relative rank][file]`: relative rank 0 is the owner's own back
//! rank, 9 the enemy's back rank; file 0 is file `a` as Red sees it (Black's tables are the same
//! seen from Black's side, mirrored in rank only, so both sides value the same files alike).
//! The numbers are chuhe's own starting values, set by hand from general xiangqi principles
//! (central and advanced pieces, crossed soldiers, horses near the enemy palace, cannons on the
//! central file) and adjusted in self-play; they are not taken from another engine.

/// Table shape: `[relative rank 0..=9][file 0..=8]`.
pub type Table = [[i16; 9]; 10];

/// Soldier value, middlegame (before any table bonus).
pub const SOLDIER_MG: i32 = 100;
/// Soldier value, endgame.
pub const SOLDIER_EG: i32 = 120;
/// Extra endgame value of a soldier that has crossed the river (and is not on the last rank).
pub const SOLDIER_CROSSED_EG: i32 = 50;
/// Advisor value, middlegame.
pub const ADVISOR_MG: i32 = 200;
/// Advisor value, endgame.
pub const ADVISOR_EG: i32 = 180;
/// Elephant value, middlegame.
pub const ELEPHANT_MG: i32 = 200;
/// Elephant value, endgame.
pub const ELEPHANT_EG: i32 = 180;
/// Horse value, middlegame.
pub const HORSE_MG: i32 = 400;
/// Horse value, endgame.
pub const HORSE_EG: i32 = 450;
/// Cannon value, middlegame.
pub const CANNON_MG: i32 = 450;
/// Cannon value, endgame.
pub const CANNON_EG: i32 = 410;
/// Chariot value, middlegame.
pub const CHARIOT_MG: i32 = 900;
/// Chariot value, endgame.
pub const CHARIOT_EG: i32 = 950;

/// Game-phase weight of one chariot.
pub const PHASE_CHARIOT: i32 = 4;
/// Game-phase weight of one horse.
pub const PHASE_HORSE: i32 = 2;
/// Game-phase weight of one cannon.
pub const PHASE_CANNON: i32 = 2;
/// The phase of the full set (2 × (2·4 + 2·2 + 2·2)).
pub const PHASE_TOTAL: i32 = 32;

/// Per reachable point of a chariot (pseudo-legal), around [`CHARIOT_MOBILITY_BASE`].
pub const CHARIOT_MOBILITY: i32 = 3;
/// The chariot mobility that scores zero.
pub const CHARIOT_MOBILITY_BASE: i32 = 7;
/// Per reachable point of a horse (legs checked, own pieces excluded).
pub const HORSE_MOBILITY: i32 = 8;
/// The horse mobility that scores zero.
pub const HORSE_MOBILITY_BASE: i32 = 4;
/// Per empty point a cannon can move to or enemy piece it can capture.
pub const CANNON_MOBILITY: i32 = 2;
/// The cannon mobility that scores zero.
pub const CANNON_MOBILITY_BASE: i32 = 6;
/// Extra value of a horse with at most one move (a trapped horse), as a penalty.
pub const HORSE_TRAPPED: i32 = 25;

/// Shield: per missing advisor, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ADVISOR: i32 = 22;
/// Shield: per missing elephant, multiplied by the enemy's attack weight / [`DANGER_SCALE`].
pub const MISSING_ELEPHANT: i32 = 14;
/// Attack weight of an enemy chariot.
pub const DANGER_CHARIOT: i32 = 3;
/// Attack weight of an enemy horse.
pub const DANGER_HORSE: i32 = 2;
/// Attack weight of an enemy cannon.
pub const DANGER_CANNON: i32 = 2;
/// Divisor of the shield terms.
pub const DANGER_SCALE: i32 = 6;
/// Extra attack weight of each enemy chariot, horse or cannon standing on our side of the river.
pub const DANGER_CROSSED: i32 = 2;
/// An enemy cannon on the general's file with nothing between (a "hollow cannon"), middlegame.
pub const HOLLOW_CANNON: i32 = 80;
/// An enemy cannon on the general's file with exactly one piece between, middlegame.
pub const CENTRAL_CANNON: i32 = 25;
/// The general off its home file with enemy chariots on the board, per chariot.
pub const GENERAL_OFF_FILE: i32 = 8;
/// Bonus for the side to move.
pub const TEMPO: i32 = 15;

/// Soldier table (crossed soldiers gain, the centre most; the last rank is weak).
pub const SOLDIER_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -5, 0, 5, 0, -5, 0, 0],
    [0, 0, -5, 0, 10, 0, -5, 0, 0],
    [10, 20, 30, 40, 50, 40, 30, 20, 10],
    [20, 40, 55, 70, 80, 70, 55, 40, 20],
    [20, 40, 60, 80, 90, 80, 60, 40, 20],
    [10, 20, 40, 60, 70, 60, 40, 20, 10],
    [0, 0, 0, 10, 20, 10, 0, 0, 0],
];

/// Advisor table (only palace points are reachable).
pub const ADVISOR_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, -5, 0, -5, 0, 0, 0],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
];

/// Elephant table (only the seven elephant points are reachable).
pub const ELEPHANT_PST: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0; 9],
    [-5, 0, 0, 0, 10, 0, 0, 0, -5],
    [0; 9],
    [0, 0, -3, 0, 0, 0, -3, 0, 0],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
];

/// Horse table (centre and forward, near the enemy palace best; edges and home point weak).
pub const HORSE_PST: Table = [
    [-20, -10, -10, -10, -30, -10, -10, -10, -20],
    [-10, -5, 0, 0, -20, 0, 0, -5, -10],
    [-5, 0, 10, 5, 10, 5, 10, 0, -5],
    [-5, 5, 10, 15, 10, 15, 10, 5, -5],
    [0, 10, 15, 20, 15, 20, 15, 10, 0],
    [0, 15, 20, 25, 20, 25, 20, 15, 0],
    [5, 20, 25, 30, 25, 30, 25, 20, 5],
    [5, 20, 30, 35, 30, 35, 30, 20, 5],
    [0, 15, 25, 40, 20, 40, 25, 15, 0],
    [-5, 0, 10, 5, 0, 5, 10, 0, -5],
];

/// Chariot table (open central files and the enemy ranks).
pub const CHARIOT_PST: Table = [
    [-10, 0, -5, 5, 0, 5, -5, 0, -10],
    [-5, 5, 0, 5, 0, 5, 0, 5, -5],
    [-5, 5, 0, 5, 5, 5, 0, 5, -5],
    [0, 5, 5, 10, 10, 10, 5, 5, 0],
    [5, 10, 10, 15, 15, 15, 10, 10, 5],
    [5, 15, 15, 20, 20, 20, 15, 15, 5],
    [5, 15, 10, 20, 20, 20, 10, 15, 5],
    [5, 15, 10, 20, 25, 20, 10, 15, 5],
    [10, 20, 15, 25, 25, 25, 15, 20, 10],
    [5, 15, 10, 15, 15, 15, 10, 15, 5],
];

/// Cannon table (central file, home rank and the enemy back rank).
pub const CANNON_PST: Table = [
    [0, 0, 5, 10, 10, 10, 5, 0, 0],
    [0, 5, 5, 5, 5, 5, 5, 5, 0],
    [5, 5, 10, 10, 15, 10, 10, 5, 5],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 0, 5, 0, 10, 0, 5, 0, 0],
    [0, 5, 5, 5, 10, 5, 5, 5, 0],
    [5, 5, 5, 10, 15, 10, 5, 5, 5],
    [5, 5, 0, 5, 10, 5, 0, 5, 5],
    [10, 10, 5, 0, 0, 0, 5, 10, 10],
];

/// General table (the home point best).
pub const GENERAL_PST: Table = [
    [0, 0, 0, -5, 0, -5, 0, 0, 0],
    [0, 0, 0, -10, -5, -10, 0, 0, 0],
    [0, 0, 0, -20, -15, -20, 0, 0, 0],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
];
