//! The validated position: legal moves, check, playing moves, Zobrist keys.

use super::attacks::{
    nearest, Blockable, ADVISOR_MOVES, ELEPHANT_MOVES, GENERAL_MOVES, HORSE_ATTACKERS,
    HORSE_ATTACKERS_CONST, HORSE_MOVES, NONE, RAYS, RAYS_CONST, SOLDIER_ATTACKERS, SOLDIER_MOVES,
};
use super::bitboard::Bitboard;
use super::moves::{IllegalReason, Move, MoveList};
use super::setup::{FenError, Setup};
use super::square::{Color, Kind, Piece, Square};
use super::zobrist;
use crate::position_error::Validation;
use std::fmt;
use std::str::FromStr;

/// The reasons a parsed board is not a valid position (`spec/xiangqi.md` §5.4), in check order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValidationKind {
    /// A side does not have exactly one general.
    GeneralCount,
    /// A side has more advisors, elephants, horses, chariots or cannons than 2, or soldiers than 5.
    PieceCount,
    /// A general stands outside its own palace.
    GeneralOutsidePalace,
    /// An advisor stands outside its side's 5 advisor points.
    AdvisorSquare,
    /// An elephant stands outside its side's 7 elephant points.
    ElephantSquare,
    /// A soldier stands where no soldier of its side can ever be.
    SoldierSquare,
    /// The generals face each other on an open file.
    GeneralsFacing,
    /// The side not to move is in check.
    OpponentInCheck,
}

impl ValidationKind {
    /// Every kind, in the spec's order.
    pub const ALL: [ValidationKind; 8] = [
        ValidationKind::GeneralCount,
        ValidationKind::PieceCount,
        ValidationKind::GeneralOutsidePalace,
        ValidationKind::AdvisorSquare,
        ValidationKind::ElephantSquare,
        ValidationKind::SoldierSquare,
        ValidationKind::GeneralsFacing,
        ValidationKind::OpponentInCheck,
    ];

    /// The machine word of the spec, e.g. `general-count`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ValidationKind::GeneralCount => "general-count",
            ValidationKind::PieceCount => "piece-count",
            ValidationKind::GeneralOutsidePalace => "general-outside-palace",
            ValidationKind::AdvisorSquare => "advisor-square",
            ValidationKind::ElephantSquare => "elephant-square",
            ValidationKind::SoldierSquare => "soldier-square",
            ValidationKind::GeneralsFacing => "generals-facing",
            ValidationKind::OpponentInCheck => "opponent-in-check",
        }
    }

    /// The rule in words, e.g. `each side must have exactly one general`.
    pub const fn rule(self) -> &'static str {
        match self {
            ValidationKind::GeneralCount => "each side must have exactly one general",
            ValidationKind::PieceCount => {
                "a side has at most 2 advisors, elephants, horses, chariots and cannons and 5 soldiers"
            }
            ValidationKind::GeneralOutsidePalace => "a general must stand in its own palace",
            ValidationKind::AdvisorSquare => "an advisor must stand on one of its 5 palace points",
            ValidationKind::ElephantSquare => "an elephant must stand on one of its 7 points",
            ValidationKind::SoldierSquare => "a soldier stands where it can never be",
            ValidationKind::GeneralsFacing => "the generals must not face each other",
            ValidationKind::OpponentInCheck => "the side not to move must not be in check",
        }
    }
}

impl fmt::Display for ValidationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A setup that breaks one or more rules of `spec/xiangqi.md` §5.4: every failing kind, in the spec's order
/// (never empty); the first is the primary kind. One generic type for the three games
/// ([`crate::position_error::PositionError`]).
pub type PositionError = crate::position_error::PositionError<ValidationKind>;

impl Validation for ValidationKind {
    fn as_str(self) -> &'static str {
        ValidationKind::as_str(self)
    }

    fn rule(self) -> &'static str {
        ValidationKind::rule(self)
    }
}

/// Either error of reading a FEN into a [`Position`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFenError {
    /// The text is not FEN (§5.3).
    Syntax(FenError),
    /// The board breaks the rules (§5.4).
    Invalid(PositionError),
}

impl ParseFenError {
    /// The primary kind as a machine word (`bad-rank-count`, …, `general-count`, …), as the engine's
    /// `info string error bad-fen <kind>` prints it.
    pub fn kind_str(&self) -> &'static str {
        match self {
            ParseFenError::Syntax(e) => e.kind.as_str(),
            ParseFenError::Invalid(e) => e.primary().as_str(),
        }
    }
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFenError::Syntax(e) => write!(f, "bad FEN: {e}"),
            ParseFenError::Invalid(e) => write!(f, "invalid position: {e}"),
        }
    }
}

impl std::error::Error for ParseFenError {}

/// What [`Position::play_unchecked`] needs to undo a move with [`Position::undo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undo {
    /// The captured piece, if any.
    pub captured: Option<Piece>,
    halfmove: u16,
    fullmove: u16,
    key: u64,
}

/// A valid xiangqi position (`spec/xiangqi.md` §5.4): board, side to move, counters and Zobrist
/// key. Only positions have legal moves.
///
/// ```
/// use chuhe_rules::xiangqi::{Move, Position};
/// let mut pos: Position = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w".parse().unwrap();
/// pos.play("h2e2".parse().unwrap()).unwrap();
/// pos.play("h9g7".parse().unwrap()).unwrap();
/// assert_eq!(pos.to_string(), "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
/// ```
#[derive(Clone)]
pub struct Position {
    board: [Option<Piece>; 90],
    by_color: [Bitboard; 2],
    by_piece: [Bitboard; 14],
    occupied: Bitboard,
    generals: [Square; 2],
    side: Color,
    halfmove: u16,
    fullmove: u16,
    key: u64,
}

const fn build_bits() -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
}

/// `BITS[i]` = `1 << i`: a table lookup is cheaper than a variable 128-bit shift.
static BITS: [u128; 90] = build_bits();

/// The bit of square index `i` (`i < 90`).
#[inline(always)]
fn bit(i: usize) -> u128 {
    BITS[i]
}

/// The targets of a horse or an elephant: each step whose leg or eye is empty.
#[inline(always)]
fn blockable_targets(steps: &[Blockable; 4], occ: u128) -> u128 {
    let mut out = 0;
    for step in steps {
        if step.via != NONE && occ >> step.via & 1 == 0 {
            out |= step.to;
        }
    }
    out
}

fn advisor_points(color: Color) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for (f, r) in [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)] {
        let r = if color == Color::Red { r } else { 9 - r };
        bb = bb.with(Square::from_coords(f, r).expect("on board"));
    }
    bb
}

fn elephant_points(color: Color) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for (f, r) in [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)] {
        let r = if color == Color::Red { r } else { 9 - r };
        bb = bb.with(Square::from_coords(f, r).expect("on board"));
    }
    bb
}

fn soldier_point_ok(color: Color, sq: Square) -> bool {
    // Relative rank: 0 = own back rank.
    let r = if color == Color::Red {
        sq.rank()
    } else {
        9 - sq.rank()
    };
    match r {
        0..=2 => false,
        3 | 4 => sq.file() % 2 == 0,
        _ => true,
    }
}

const fn ray_directions() -> [[u8; 90]; 90] {
    let mut t = [[NONE; 90]; 90];
    let mut g = 0;
    while g < 90 {
        let mut dir = 0;
        while dir < 4 {
            let mut s = 0;
            while s < 90 {
                if RAYS_CONST[dir][g] >> s & 1 != 0 {
                    t[g][s] = dir as u8;
                }
                s += 1;
            }
            dir += 1;
        }
        g += 1;
    }
    t
}

const fn leg_directions() -> [[u8; 90]; 90] {
    let mut t = [[NONE; 90]; 90];
    let mut g = 0;
    while g < 90 {
        let mut d = 0;
        while d < 4 {
            let via = HORSE_ATTACKERS_CONST[g][d].via;
            if via != NONE {
                t[g][via as usize] = d as u8;
            }
            d += 1;
        }
        g += 1;
    }
    t
}

/// `RAY_DIRECTION[g][sq]`: the ray direction (index into `RAYS`) from `g` that holds `sq`, or
/// `NONE` when `sq` is on neither the file nor the rank of `g`.
static RAY_DIRECTION: [[u8; 90]; 90] = ray_directions();
/// `LEG_DIRECTION[g][sq]`: the index into `HORSE_ATTACKERS[g]` whose leg is `sq`, or `NONE`.
static LEG_DIRECTION: [[u8; 90]; 90] = leg_directions();

impl Position {
    /// The start position (`spec/xiangqi.md` §2).
    pub fn start() -> Position {
        Position::from_setup(Setup::start()).expect("the start position is valid")
    }

    /// Validates a setup (`spec/xiangqi.md` §5.4).
    ///
    /// # Errors
    /// [`PositionError`] with every failing kind, in the spec's order.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        Position::from_setup_allowing(setup, &[])
    }

    /// Like [`Position::from_setup`], but accepts a setup whose failing kinds are all in
    /// `allowed`. For replaying records from the wild (`chuhe records`), which sometimes hold a
    /// piece on a point it could never reach: only the placement kinds
    /// ([`ValidationKind::AdvisorSquare`], [`ValidationKind::ElephantSquare`],
    /// [`ValidationKind::SoldierSquare`]) are meant to be allowed; the others break what move
    /// generation relies on.
    ///
    /// # Errors
    /// [`PositionError`] with every failing kind when one of them is not allowed.
    pub fn from_setup_allowing(
        setup: Setup,
        allowed: &[ValidationKind],
    ) -> Result<Position, PositionError> {
        let mut kinds = Vec::new();
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut by_piece = [Bitboard::EMPTY; 14];
        let mut key = 0u64;
        for sq in Square::all() {
            if let Some(p) = setup.board[sq.index()] {
                by_color[p.color.index()] |= Bitboard::from_square(sq);
                by_piece[p.index()] |= Bitboard::from_square(sq);
                key ^= zobrist::piece_square(p, sq);
            }
        }
        if setup.side == Color::Black {
            key ^= zobrist::BLACK_TO_MOVE;
        }
        let bb = |c: Color, k: Kind| by_piece[Piece::new(c, k).index()];
        if Color::ALL
            .iter()
            .any(|&c| bb(c, Kind::General).count() != 1)
        {
            kinds.push(ValidationKind::GeneralCount);
        }
        if Color::ALL.iter().any(|&c| {
            Kind::ALL[1..]
                .iter()
                .any(|&k| bb(c, k).count() > k.max_count())
        }) {
            kinds.push(ValidationKind::PieceCount);
        }
        if Color::ALL
            .iter()
            .any(|&c| bb(c, Kind::General).any(|s| !s.is_in_palace_of(c)))
        {
            kinds.push(ValidationKind::GeneralOutsidePalace);
        }
        if Color::ALL
            .iter()
            .any(|&c| (bb(c, Kind::Advisor) & !advisor_points(c)).is_nonempty())
        {
            kinds.push(ValidationKind::AdvisorSquare);
        }
        if Color::ALL
            .iter()
            .any(|&c| (bb(c, Kind::Elephant) & !elephant_points(c)).is_nonempty())
        {
            kinds.push(ValidationKind::ElephantSquare);
        }
        if Color::ALL
            .iter()
            .any(|&c| bb(c, Kind::Soldier).any(|s| !soldier_point_ok(c, s)))
        {
            kinds.push(ValidationKind::SoldierSquare);
        }
        let a0 = Square::from_index_unchecked(0);
        let generals = [
            bb(Color::Red, Kind::General).first().unwrap_or(a0),
            bb(Color::Black, Kind::General).first().unwrap_or(a0),
        ];
        let pos = Position {
            board: setup.board,
            by_color,
            by_piece,
            occupied: by_color[0] | by_color[1],
            generals,
            side: setup.side,
            halfmove: setup.halfmove,
            fullmove: setup.fullmove.max(1),
            key,
        };
        let both_generals = Color::ALL
            .iter()
            .all(|&c| bb(c, Kind::General).is_nonempty());
        if both_generals {
            let (r, b) = (generals[0], generals[1]);
            let (low, high) = if r.index() < b.index() {
                (r, b)
            } else {
                (b, r)
            };
            let between = RAYS[0][low.index()] & !RAYS[0][high.index()] & !bit(high.index());
            if r.file() == b.file() && pos.occupied.0 & between == 0 {
                kinds.push(ValidationKind::GeneralsFacing);
            }
            let them = setup.side.other();
            if pos.is_attacked_by_non_general(generals[them.index()], setup.side) {
                kinds.push(ValidationKind::OpponentInCheck);
            }
        }
        if kinds.iter().all(|k| allowed.contains(k)) {
            Ok(pos)
        } else {
            Err(PositionError {
                kinds,
                detail: None,
            })
        }
    }

    /// Reads and validates a FEN.
    ///
    /// # Errors
    /// [`ParseFenError::Syntax`] (§5.3) or [`ParseFenError::Invalid`] (§5.4).
    pub fn from_fen(text: &str) -> Result<Position, ParseFenError> {
        let setup: Setup = text.parse().map_err(ParseFenError::Syntax)?;
        Position::from_setup(setup).map_err(ParseFenError::Invalid)
    }

    /// The position as an unvalidated [`Setup`].
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            side: self.side,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        }
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Plies since the last capture (counting from the FEN's value).
    #[inline(always)]
    pub fn halfmove(&self) -> u16 {
        self.halfmove
    }

    /// The move number (starts at the FEN's value, +1 after each Black move).
    #[inline(always)]
    pub fn fullmove(&self) -> u16 {
        self.fullmove
    }

    /// The 64-bit Zobrist key of board and side to move (counters excluded), kept incrementally.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key recomputed from scratch; equal to [`Position::key`] (tests compare the two).
    pub fn compute_key(&self) -> u64 {
        let mut key = if self.side == Color::Black {
            zobrist::BLACK_TO_MOVE
        } else {
            0
        };
        for sq in self.occupied {
            key ^= zobrist::piece_square(self.board[sq.index()].expect("occupied"), sq);
        }
        key
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// All occupied points.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// The points holding pieces of `color`.
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The points holding `piece`.
    #[inline(always)]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_piece[piece.index()]
    }

    /// The square of `color`'s general.
    #[inline(always)]
    pub fn general(&self, color: Color) -> Square {
        self.generals[color.index()]
    }

    /// Whether the side to move is in check (its general attacked, `spec/xiangqi.md` §4).
    pub fn is_check(&self) -> bool {
        let us = self.side;
        self.general_attacked(self.generals[us.index()], us.other(), self.occupied.0, 0)
    }

    /// The sides whose General is in check: the side to move when [`Position::is_check`], else
    /// none. A valid position never has the other side in check (validation kind
    /// `opponent-in-check`) nor the Generals facing (`generals-facing`), so the list has at most
    /// one side. This is what a table and `/api/analysis` mark as check; the sanguo counterpart
    /// is [`crate::sanguo::Position::checked_kingdoms`].
    ///
    /// ```
    /// use chuhe_rules::xiangqi::{Color, Position};
    /// assert!(Position::start().checked_sides().is_empty());
    /// let pos: Position = "4k4/9/9/9/4r4/9/9/9/9/4K4 w - - 0 1".parse().unwrap();
    /// assert_eq!(pos.checked_sides(), [Color::Red]);
    /// ```
    pub fn checked_sides(&self) -> Vec<Color> {
        if self.is_check() {
            vec![self.side]
        } else {
            Vec::new()
        }
    }

    /// The enemy pieces that attack the general of the side to move.
    pub fn checkers(&self) -> Bitboard {
        let us = self.side;
        let g = self.generals[us.index()];
        self.attackers_of(g, us.other(), self.occupied)
            & !self.by_piece[Piece::new(us.other(), Kind::General).index()]
    }

    /// Every piece of `by` that attacks `sq` given `occupied` (generals: palace steps and the open
    /// file to the other general). Pieces standing on `sq` are not counted.
    pub fn attackers_of(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let s = sq.index();
        let piece = |k: Kind| self.by_piece[Piece::new(by, k).index()].0;
        let mut out = 0u128;
        let sliders = piece(Kind::Chariot);
        let cannons = piece(Kind::Cannon);
        for dir in 0..4 {
            let blockers = RAYS[dir][s] & occupied.0;
            if blockers == 0 {
                continue;
            }
            let first = nearest(dir, blockers);
            out |= bit(first) & sliders;
            // The enemy general "sees" along an open file (facing rule) when `sq` holds a general.
            if dir % 2 == 0 && self.board[s].is_some_and(|p| p.kind == Kind::General) {
                out |= bit(first) & piece(Kind::General);
            }
            let rest = blockers & !bit(first);
            if rest != 0 {
                out |= bit(nearest(dir, rest)) & cannons;
            }
        }
        for step in &HORSE_ATTACKERS[s] {
            if step.via != NONE && occupied.0 >> step.via & 1 == 0 {
                out |= step.to & piece(Kind::Horse);
            }
        }
        out |= SOLDIER_ATTACKERS[by.index()][s] & piece(Kind::Soldier);
        out |= GENERAL_MOVES[s] & piece(Kind::General);
        let advisors = piece(Kind::Advisor);
        if advisors != 0 {
            out |= ADVISOR_MOVES[s] & advisors;
        }
        let elephants = piece(Kind::Elephant);
        if elephants != 0 {
            for step in &ELEPHANT_MOVES[s] {
                if step.via != NONE && occupied.0 >> step.via & 1 == 0 {
                    out |= step.to & elephants;
                }
            }
        }
        Bitboard(out & !bit(s))
    }

    /// Whether a piece of `by` other than its general attacks `sq` (for validation).
    fn is_attacked_by_non_general(&self, sq: Square, by: Color) -> bool {
        let general = self.by_piece[Piece::new(by, Kind::General).index()];
        (self.attackers_of(sq, by, self.occupied) & !general).is_nonempty()
    }

    /// Whether the general standing on `g` would be attacked by `by`, with `occ` as the occupancy
    /// and the enemy pieces on `removed` (a captured piece) ignored. The enemy general counts as a
    /// chariot (facing generals, §4).
    #[inline(always)]
    fn general_attacked(&self, g: Square, by: Color, occ: u128, removed: u128) -> bool {
        let s = g.index();
        let base = by.index() * 7;
        let keep = !removed;
        let sliders =
            (self.by_piece[base + Kind::Chariot as usize].0 | self.by_piece[base].0) & keep;
        let cannons = self.by_piece[base + Kind::Cannon as usize].0 & keep;
        let horses = self.by_piece[base + Kind::Horse as usize].0 & keep;
        let soldiers = self.by_piece[base + Kind::Soldier as usize].0 & keep;
        if SOLDIER_ATTACKERS[by.index()][s] & soldiers != 0 {
            return true;
        }
        if horses != 0 {
            for step in &HORSE_ATTACKERS[s] {
                if step.to & horses != 0 && occ >> step.via & 1 == 0 {
                    return true;
                }
            }
        }
        for dir in 0..4 {
            let blockers = RAYS[dir][s] & occ;
            if blockers == 0 {
                continue;
            }
            let first = nearest(dir, blockers);
            if sliders >> first & 1 != 0 {
                return true;
            }
            if cannons != 0 {
                let rest = blockers & !bit(first);
                if rest != 0 && cannons >> nearest(dir, rest) & 1 != 0 {
                    return true;
                }
            }
        }
        false
    }

    /// Generates every candidate move (`spec/xiangqi.md` §3) of the side to move into `list`,
    /// without the legality filter of §4.
    pub fn candidate_moves(&self, list: &mut MoveList) {
        self.generate(&mut |from: Square, mut targets: u128| {
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                list.push(Move::new(from, Square::from_index_unchecked(to)));
            }
        });
    }

    /// Calls `sink(from, targets)` for every piece of the side to move with the set of its
    /// candidate targets (§3). Quiet moves and captures of one piece may come in several calls.
    #[inline(always)]
    fn generate(&self, sink: &mut impl FnMut(Square, u128)) {
        let us = self.side;
        let own = self.by_color[us.index()].0;
        let theirs = self.by_color[us.other().index()].0;
        let occ = self.occupied.0;
        let base = us.index() * 7;
        for from in self.by_piece[base + Kind::Chariot as usize] {
            let s = from.index();
            let mut targets = 0;
            for dir in 0..4 {
                let ray = RAYS[dir][s];
                let blockers = ray & occ;
                targets |= if blockers == 0 {
                    ray
                } else {
                    ray & !RAYS[dir][nearest(dir, blockers)]
                };
            }
            sink(from, targets & !own);
        }
        for from in self.by_piece[base + Kind::Cannon as usize] {
            let s = from.index();
            let mut targets = 0;
            for dir in 0..4 {
                let ray = RAYS[dir][s];
                let blockers = ray & occ;
                if blockers == 0 {
                    targets |= ray;
                    continue;
                }
                let screen = nearest(dir, blockers);
                targets |= ray & !RAYS[dir][screen] & !bit(screen);
                let beyond = RAYS[dir][screen] & occ;
                if beyond != 0 {
                    targets |= bit(nearest(dir, beyond)) & theirs;
                }
            }
            sink(from, targets);
        }
        for from in self.by_piece[base + Kind::Horse as usize] {
            sink(
                from,
                blockable_targets(&HORSE_MOVES[from.index()], occ) & !own,
            );
        }
        for from in self.by_piece[base + Kind::Soldier as usize] {
            sink(from, SOLDIER_MOVES[us.index()][from.index()] & !own);
        }
        for from in self.by_piece[base + Kind::Elephant as usize] {
            sink(
                from,
                blockable_targets(&ELEPHANT_MOVES[from.index()], occ) & !own,
            );
        }
        for from in self.by_piece[base + Kind::Advisor as usize] {
            sink(from, ADVISOR_MOVES[from.index()] & !own);
        }
        let g = self.generals[us.index()];
        sink(g, GENERAL_MOVES[g.index()] & !own);
    }

    /// The squares where a move's from-square (first) or to-square (second) may change whether
    /// the side to move's general is attacked: the rays from the general that hold an enemy
    /// chariot, cannon or general, and (from-squares only) the horse legs next to the general
    /// behind which an enemy horse stands. A move of another piece touching neither is legal
    /// when the side is not in check (§4).
    #[inline(always)]
    fn sensitive_squares(&self) -> (u128, u128) {
        let us = self.side;
        let g = self.generals[us.index()].index();
        let base = us.other().index() * 7;
        let lines = self.by_piece[base].0
            | self.by_piece[base + Kind::Chariot as usize].0
            | self.by_piece[base + Kind::Cannon as usize].0;
        let mut rays = 0;
        for dir in 0..4 {
            if RAYS[dir][g] & lines != 0 {
                rays |= RAYS[dir][g];
            }
        }
        let horses = self.by_piece[base + Kind::Horse as usize].0;
        let mut legs = 0;
        if horses != 0 {
            for step in &HORSE_ATTACKERS[g] {
                if step.to & horses != 0 {
                    legs |= bit(step.via as usize);
                }
            }
        }
        (rays | legs, rays)
    }

    /// Whether the candidate move `from`→`to` leaves the mover's general safe and the generals
    /// apart, testing the attack in full.
    #[inline(always)]
    fn candidate_is_safe(&self, from: Square, to: usize) -> bool {
        let us = self.side;
        let from_bb = bit(from.index());
        let to_bb = bit(to);
        let occ = (self.occupied.0 ^ from_bb) | to_bb;
        let g = if from == self.generals[us.index()] {
            Square::from_index_unchecked(to)
        } else {
            self.generals[us.index()]
        };
        !self.general_attacked(g, us.other(), occ, to_bb)
    }

    /// Whether the general on `g` is attacked along ray `dir` (a chariot, or the other general,
    /// first; a cannon second) with occupancy `occ` and the enemy pieces on `removed` ignored.
    #[inline(always)]
    fn ray_attacked(&self, g: usize, dir: usize, occ: u128, removed: u128) -> bool {
        let blockers = RAYS[dir][g] & occ;
        if blockers == 0 {
            return false;
        }
        let base = self.side.other().index() * 7;
        let first = nearest(dir, blockers);
        let sliders =
            (self.by_piece[base].0 | self.by_piece[base + Kind::Chariot as usize].0) & !removed;
        if sliders >> first & 1 != 0 {
            return true;
        }
        let rest = blockers & !bit(first);
        rest != 0
            && (self.by_piece[base + Kind::Cannon as usize].0 & !removed) >> nearest(dir, rest) & 1
                != 0
    }

    /// Whether the move `from`→`to` of a piece other than the general keeps the general safe,
    /// when the side to move is not in check: only the rays from the general through `from` and
    /// `to` and the horse leg on `from` can change (§4).
    #[inline(always)]
    fn step_is_safe(&self, from: usize, to: usize) -> bool {
        let g = self.generals[self.side.index()].index();
        let to_bb = bit(to);
        let occ = (self.occupied.0 ^ bit(from)) | to_bb;
        let (df, dt) = (RAY_DIRECTION[g][from], RAY_DIRECTION[g][to]);
        if df != NONE && self.ray_attacked(g, df as usize, occ, to_bb) {
            return false;
        }
        if dt != NONE && dt != df && self.ray_attacked(g, dt as usize, occ, to_bb) {
            return false;
        }
        let leg = LEG_DIRECTION[g][from];
        if leg != NONE {
            let horses =
                self.by_piece[self.side.other().index() * 7 + Kind::Horse as usize].0 & !to_bb;
            if HORSE_ATTACKERS[g][leg as usize].to & horses != 0 {
                return false;
            }
        }
        true
    }

    /// Calls `sink(from, legal_targets)` for every piece of the side to move.
    #[inline(always)]
    fn generate_legal(&self, sink: &mut impl FnMut(Square, u128)) {
        let in_check = self.is_check();
        let general = self.generals[self.side.index()];
        if in_check {
            self.generate(&mut |from: Square, targets: u128| {
                let mut rest = targets;
                let mut legal = 0;
                while rest != 0 {
                    let to = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if self.candidate_is_safe(from, to) {
                        legal |= bit(to);
                    }
                }
                sink(from, legal);
            });
            return;
        }
        let (from_mask, to_mask) = self.sensitive_squares();
        self.generate(&mut |from: Square, targets: u128| {
            let general_moves = from == general;
            let sensitive_from = bit(from.index()) & from_mask != 0;
            // Only targets that need a test: all of them for the general and for a piece that
            // leaves a sensitive square, else those on a sensitive ray.
            let mut doubtful = if general_moves || sensitive_from {
                targets
            } else {
                targets & to_mask
            };
            let mut legal = targets & !doubtful;
            while doubtful != 0 {
                let to = doubtful.trailing_zeros() as usize;
                doubtful &= doubtful - 1;
                let safe = if general_moves {
                    self.candidate_is_safe(from, to)
                } else {
                    self.step_is_safe(from.index(), to)
                };
                if safe {
                    legal |= bit(to);
                }
            }
            sink(from, legal);
        });
    }

    /// Appends every legal move of the side to move to `list` (§4), in generation order.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        self.generate_legal(&mut |from: Square, mut targets: u128| {
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                list.push(Move::new(from, Square::from_index_unchecked(to)));
            }
        });
    }

    /// Appends every legal capture of the side to move to `list` (the captures among
    /// [`Position::legal_moves`], for a quiescence search), in generation order.
    pub fn legal_captures_into(&self, list: &mut MoveList) {
        let theirs = self.by_color[self.side.other().index()].0;
        self.generate_legal(&mut |from: Square, targets: u128| {
            let mut targets = targets & theirs;
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                list.push(Move::new(from, Square::from_index_unchecked(to)));
            }
        });
    }

    /// Every legal move of the side to move (§4), in generation order (not sorted).
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// The number of legal moves, without listing them (perft's bulk counting).
    pub fn count_legal_moves(&self) -> usize {
        let mut count = 0;
        self.generate_legal(&mut |_, targets: u128| count += targets.count_ones() as usize);
        count
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        self.count_legal_moves() > 0
    }

    /// Whether `m` is legal here. Agrees with [`Position::legal_moves`] (a test checks this).
    pub fn is_legal(&self, m: Move) -> bool {
        self.illegal_reason(m).is_none()
    }

    /// Why `m` is not legal here, or `None` when it is. Checks follow the order: piece on the
    /// from-square, its owner, the target, the piece's movement rule (§3), then the general's
    /// safety (§4).
    pub fn illegal_reason(&self, m: Move) -> Option<IllegalReason> {
        let Some(piece) = self.board[m.from.index()] else {
            return Some(IllegalReason::NoPiece);
        };
        if piece.color != self.side {
            return Some(IllegalReason::NotYourPiece);
        }
        if m.from == m.to {
            return Some(IllegalReason::NullMove);
        }
        if self.board[m.to.index()].is_some_and(|p| p.color == self.side) {
            return Some(IllegalReason::OwnPieceOnTarget);
        }
        if let Some(reason) = self.shape_reason(piece, m) {
            return Some(reason);
        }
        let us = self.side;
        let g = if piece.kind == Kind::General {
            m.to
        } else {
            self.generals[us.index()]
        };
        let from_bb = bit(m.from.index());
        let to_bb = bit(m.to.index());
        let occ = (self.occupied.0 ^ from_bb) | to_bb;
        if self.general_attacked(g, us.other(), occ, to_bb) {
            let other_general = self.by_piece[Piece::new(us.other(), Kind::General).index()].0;
            // Only the other general "attacks": the generals would face each other.
            let without_general = self.general_attacked(g, us.other(), occ, to_bb | other_general);
            return Some(if without_general {
                IllegalReason::LeavesGeneralInCheck
            } else {
                IllegalReason::GeneralsFacing
            });
        }
        None
    }

    /// The movement-rule reason (§3) why `piece` cannot go along `m`, ignoring the general's
    /// safety; `None` when the shape and path are right.
    fn shape_reason(&self, piece: Piece, m: Move) -> Option<IllegalReason> {
        let (df, dr) = (m.to.file() - m.from.file(), m.to.rank() - m.from.rank());
        let occ = self.occupied;
        match piece.kind {
            Kind::General => {
                if df.abs() + dr.abs() != 1 {
                    Some(IllegalReason::BadShape(Kind::General))
                } else if !m.to.is_in_palace_of(piece.color) {
                    Some(IllegalReason::LeavesPalace(Kind::General))
                } else {
                    None
                }
            }
            Kind::Advisor => {
                if df.abs() != 1 || dr.abs() != 1 {
                    Some(IllegalReason::BadShape(Kind::Advisor))
                } else if !m.to.is_in_palace_of(piece.color) {
                    Some(IllegalReason::LeavesPalace(Kind::Advisor))
                } else {
                    None
                }
            }
            Kind::Elephant => {
                if df.abs() != 2 || dr.abs() != 2 {
                    Some(IllegalReason::BadShape(Kind::Elephant))
                } else if !m.to.is_on_side_of(piece.color) {
                    Some(IllegalReason::ElephantCrossesRiver)
                } else if occ.contains(m.from.offset(df / 2, dr / 2).expect("between two points")) {
                    Some(IllegalReason::ElephantEyeBlocked)
                } else {
                    None
                }
            }
            Kind::Horse => {
                if !((df.abs() == 1 && dr.abs() == 2) || (df.abs() == 2 && dr.abs() == 1)) {
                    Some(IllegalReason::BadShape(Kind::Horse))
                } else {
                    let leg = if dr.abs() == 2 {
                        m.from.offset(0, dr / 2)
                    } else {
                        m.from.offset(df / 2, 0)
                    };
                    if occ.contains(leg.expect("between two points")) {
                        Some(IllegalReason::HorseLegBlocked)
                    } else {
                        None
                    }
                }
            }
            Kind::Chariot | Kind::Cannon => {
                if df != 0 && dr != 0 {
                    return Some(IllegalReason::BadShape(piece.kind));
                }
                let (sf, sr) = (df.signum(), dr.signum());
                let mut between = 0;
                let mut cur = m.from.offset(sf, sr).expect("on the way");
                while cur != m.to {
                    if occ.contains(cur) {
                        between += 1;
                    }
                    cur = cur.offset(sf, sr).expect("on the way");
                }
                let capture = occ.contains(m.to);
                match (piece.kind, capture) {
                    (Kind::Cannon, true) if between != 1 => Some(IllegalReason::CannonNeedsScreen),
                    (Kind::Cannon, true) => None,
                    (_, _) if between > 0 => Some(IllegalReason::PathBlocked(piece.kind)),
                    _ => None,
                }
            }
            Kind::Soldier => {
                let fwd = piece.color.forward();
                if df.abs() + dr.abs() != 1 {
                    Some(IllegalReason::BadShape(Kind::Soldier))
                } else if dr == -fwd {
                    Some(IllegalReason::SoldierBackward)
                } else if dr == 0 && m.from.is_on_side_of(piece.color) {
                    Some(IllegalReason::SoldierSidewaysBeforeRiver)
                } else {
                    None
                }
            }
        }
    }

    /// Plays `m` after checking that it is legal.
    ///
    /// # Errors
    /// The [`IllegalReason`] when `m` is not legal; the position is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalReason> {
        match self.illegal_reason(m) {
            Some(reason) => Err(reason),
            None => Ok(self.play_unchecked(m)),
        }
    }

    /// Plays `m` without checking it, and returns what [`Position::undo`] needs.
    ///
    /// `m` must be legal (from [`Position::legal_moves`] or checked by [`Position::is_legal`]);
    /// otherwise the position may become invalid (a debug build panics when the from-square is
    /// empty).
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let (from, to) = (m.from.index(), m.to.index());
        let piece = self.board[from].expect("play_unchecked: no piece on the from-square");
        let captured = self.board[to];
        let undo = Undo {
            captured,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            key: self.key,
        };
        let from_bb = bit(from);
        let to_bb = bit(to);
        let mut key = self.key ^ zobrist::BLACK_TO_MOVE;
        if let Some(c) = captured {
            self.by_color[c.color.index()].0 ^= to_bb;
            self.by_piece[c.index()].0 ^= to_bb;
            key ^= zobrist::piece_square(c, m.to);
            self.halfmove = 0;
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        self.by_color[piece.color.index()].0 ^= from_bb | to_bb;
        self.by_piece[piece.index()].0 ^= from_bb | to_bb;
        self.occupied = self.by_color[0] | self.by_color[1];
        key ^= zobrist::piece_square(piece, m.from) ^ zobrist::piece_square(piece, m.to);
        self.board[to] = Some(piece);
        self.board[from] = None;
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = m.to;
        }
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = self.side.other();
        self.key = key;
        undo
    }

    /// Takes back `m`, which must be the last move played, with the [`Undo`] it returned.
    #[inline]
    pub fn undo(&mut self, m: Move, undo: Undo) {
        let (from, to) = (m.from.index(), m.to.index());
        let piece = self.board[to].expect("undo: no piece on the to-square");
        let from_bb = bit(from);
        let to_bb = bit(to);
        self.by_color[piece.color.index()].0 ^= from_bb | to_bb;
        self.by_piece[piece.index()].0 ^= from_bb | to_bb;
        if let Some(c) = undo.captured {
            self.by_color[c.color.index()].0 ^= to_bb;
            self.by_piece[c.index()].0 ^= to_bb;
        }
        self.occupied = self.by_color[0] | self.by_color[1];
        self.board[from] = Some(piece);
        self.board[to] = undo.captured;
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = m.from;
        }
        self.side = self.side.other();
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.key = undo.key;
    }

    /// Passes the turn without moving (a "null move", for search pruning; not a legal move of
    /// the game). The halfmove counter advances as for a quiet move. Undo it with
    /// [`Position::undo_null`]. The side to move must not be in check.
    pub fn play_null(&mut self) -> Undo {
        let undo = Undo {
            captured: None,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            key: self.key,
        };
        self.halfmove = self.halfmove.saturating_add(1);
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = self.side.other();
        self.key ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back a [`Position::play_null`] with the [`Undo`] it returned.
    pub fn undo_null(&mut self, undo: Undo) {
        self.side = self.side.other();
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.key = undo.key;
    }

    /// Whether `m` captures (the to-square holds an enemy piece).
    #[inline(always)]
    pub fn is_capture(&self, m: Move) -> bool {
        self.board[m.to.index()].is_some()
    }
}

impl fmt::Display for Position {
    /// The output FEN (`spec/xiangqi.md` §5.1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl PartialEq for Position {
    /// Same board, side and counters.
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.side == other.side
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
    }
}

impl Eq for Position {}

impl FromStr for Position {
    type Err = ParseFenError;

    /// [`Position::from_fen`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s)
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}
