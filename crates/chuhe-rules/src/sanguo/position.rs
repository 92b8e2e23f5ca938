//! The validated position: legal moves, attack and facing, playing a move with its defeats and
//! army transfers (`spec/sanguo.md` §4–§6, C13 steps 1–2).

use super::board::{graph, Kingdom, Point, POINTS};
use super::moves::{IllegalReason, Move};
use super::piece::{Kind, Piece};
use super::setup::{Setup, SyntaxError, QUIET_LIMIT};
use crate::outcome::EndReason;
use crate::position_error::Validation;
use std::fmt;
use std::str::FromStr;

/// The reasons a parsed text is not a valid position (`spec/sanguo.md` §8.2), in check order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValidationKind {
    /// An army (counted by origin) has too many pieces of a kind.
    PieceCount,
    /// A flag bearer on a table without flag bearers.
    FlagBearersOff,
    /// An active kingdom without exactly one general, a defeated kingdom with pieces, or no
    /// active kingdom.
    GeneralCount,
    /// A general whose origin is not its owner.
    GeneralOrigin,
    /// A general outside its own palace.
    GeneralOutsidePalace,
    /// An advisor outside the advisor points of its origin half.
    AdvisorSquare,
    /// An elephant outside the elephant points of its origin half.
    ElephantSquare,
    /// A soldier where no soldier of its origin can be.
    SoldierSquare,
    /// The kingdom to move is defeated.
    SideDefeated,
    /// The last mover is neither `-` nor the active kingdom preceding the side to move.
    LastMover,
    /// The kingdom that moved last left its general attacked or facing another general.
    PreviousInCheck,
}

impl ValidationKind {
    /// Every kind, in the spec's order.
    pub const ALL: [ValidationKind; 11] = [
        ValidationKind::PieceCount,
        ValidationKind::FlagBearersOff,
        ValidationKind::GeneralCount,
        ValidationKind::GeneralOrigin,
        ValidationKind::GeneralOutsidePalace,
        ValidationKind::AdvisorSquare,
        ValidationKind::ElephantSquare,
        ValidationKind::SoldierSquare,
        ValidationKind::SideDefeated,
        ValidationKind::LastMover,
        ValidationKind::PreviousInCheck,
    ];

    /// The machine word of the spec, e.g. `general-count`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ValidationKind::PieceCount => "piece-count",
            ValidationKind::FlagBearersOff => "flag-bearers-off",
            ValidationKind::GeneralCount => "general-count",
            ValidationKind::GeneralOrigin => "general-origin",
            ValidationKind::GeneralOutsidePalace => "general-outside-palace",
            ValidationKind::AdvisorSquare => "advisor-square",
            ValidationKind::ElephantSquare => "elephant-square",
            ValidationKind::SoldierSquare => "soldier-square",
            ValidationKind::SideDefeated => "side-defeated",
            ValidationKind::LastMover => "last-mover",
            ValidationKind::PreviousInCheck => "previous-in-check",
        }
    }

    /// The rule in words.
    pub const fn rule(self) -> &'static str {
        match self {
            ValidationKind::PieceCount => {
                "an army has at most 1 general, 2 advisors, elephants, horses, chariots, cannons and flag bearers and 5 soldiers"
            }
            ValidationKind::FlagBearersOff => "no flag bearer when the flags field is -",
            ValidationKind::GeneralCount => {
                "every active kingdom owns exactly one general, a defeated kingdom owns nothing, and one kingdom at least is active"
            }
            ValidationKind::GeneralOrigin => "a general belongs to its own army",
            ValidationKind::GeneralOutsidePalace => "a general must stand in its own palace",
            ValidationKind::AdvisorSquare => {
                "an advisor must stand on one of the 5 palace points of its origin half"
            }
            ValidationKind::ElephantSquare => {
                "an elephant must stand on one of the 7 elephant points of its origin half"
            }
            ValidationKind::SoldierSquare => "a soldier stands where it can never be",
            ValidationKind::SideDefeated => "the kingdom to move must be active",
            ValidationKind::LastMover => {
                "the last mover must be - or the active kingdom before the one to move"
            }
            ValidationKind::PreviousInCheck => {
                "the general of the kingdom that moved last must be neither attacked nor facing"
            }
        }
    }
}

impl fmt::Display for ValidationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A setup that breaks one or more rules of `spec/sanguo.md` §8.2: every failing kind, in the spec's order
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

/// Either error of reading a position text into a [`Position`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not the canonical text of §8.2 (kind `syntax`).
    Syntax(SyntaxError),
    /// The board breaks a rule of §8.2.
    Invalid(PositionError),
}

impl ParseError {
    /// The primary kind as a machine word: `syntax`, `piece-count`, …
    pub fn kind_str(&self) -> &'static str {
        match self {
            ParseError::Syntax(_) => "syntax",
            ParseError::Invalid(e) => e.primary().as_str(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax(e) => e.fmt(f),
            ParseError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ParseError {}

/// A kingdom's defeat (`spec/sanguo.md` §6.1): who, how (`general-captured` or
/// `no-legal-move`), and who took over its army.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defeat {
    /// The defeated kingdom.
    pub kingdom: Kingdom,
    /// [`EndReason::GeneralCaptured`] (C7) or [`EndReason::NoLegalMove`] (C8).
    pub reason: EndReason,
    /// The kingdom that received its pieces.
    pub heir: Kingdom,
}

/// What playing a move did to the position: the captured piece and the defeats it caused (at
/// most two). [`crate::sanguo::Game::play`] returns the fuller [`crate::sanguo::Played`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Effect {
    /// The piece taken on the target point.
    pub captured: Option<Piece>,
    /// The defeats, in the order they happened.
    pub defeats: Vec<Defeat>,
}

/// What the repetition rule compares (C11): every point's piece and the kingdom to move.
/// Equal identities are equal in every point; an identity hashes as its Zobrist key (§10), one
/// `u64`, rather than point by point (the repetition table hashes one at every move).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    board: [Option<Piece>; POINTS],
    side: Kingdom,
}

impl std::hash::Hash for Identity {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(key_of(&self.board, self.side));
    }
}

/// The Zobrist key (§10) of a board and the kingdom to move: equal boards and sides give equal
/// keys.
fn key_of(board: &[Option<Piece>; POINTS], side: Kingdom) -> u64 {
    let mut key = super::zobrist::side_key(side);
    for p in Point::all() {
        if let Some(q) = board[p.index()] {
            key ^= super::zobrist::piece_key(p, q);
        }
    }
    key
}

/// A valid position of Three Kingdoms xiangqi (§8.2): board, kingdom to move, last mover,
/// defeated kingdoms (those without a general), flag option and quiet counter.
///
/// ```
/// use chuhe_rules::sanguo::Position;
/// let pos = Position::start(true);
/// assert_eq!(pos.legal_moves().len(), 40);
/// let m = "Rd3-Be5".parse().unwrap();
/// let mut next = pos.clone();
/// next.play(m).unwrap();
/// assert_eq!(next.side_to_move().name(), "wu");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: [Option<Piece>; POINTS],
    generals: [Option<Point>; 3],
    side: Kingdom,
    last: Option<Kingdom>,
    flags: bool,
    quiet: u16,
}

impl Position {
    /// The start position of §4.3, with or without flag bearers.
    pub fn start(flags: bool) -> Position {
        // The start setups pass every check (tested); no need to validate them again.
        let s = Setup::start(flags);
        let mut generals = [None; 3];
        for p in Point::all() {
            if let Some(q) = s.board[p.index()].filter(|q| q.kind == Kind::General) {
                generals[q.owner.index()] = Some(p);
            }
        }
        Position {
            board: s.board,
            generals,
            side: s.side,
            last: s.last,
            flags: s.flags,
            quiet: s.quiet,
        }
    }

    /// Validates a setup (§8.2, checks 1–11). A quiet counter above 180 (which no text can
    /// spell) is read as 180.
    ///
    /// # Errors
    /// [`PositionError`] with every failing kind.
    pub fn from_setup(s: Setup) -> Result<Position, PositionError> {
        let mut kinds = Vec::new();
        let mut counts = [[0usize; 8]; 3];
        let mut generals: [Vec<Point>; 3] = Default::default();
        let mut owns = [false; 3];
        let (mut flag_off, mut origin_bad, mut palace_bad, mut advisor_bad) =
            (false, false, false, false);
        let (mut elephant_bad, mut soldier_bad) = (false, false);
        for p in Point::all() {
            let Some(q) = s.board[p.index()] else {
                continue;
            };
            counts[q.origin.index()][q.kind as usize] += 1;
            owns[q.owner.index()] = true;
            let home = p.half() == q.origin;
            match q.kind {
                Kind::General => {
                    generals[q.owner.index()].push(p);
                    origin_bad |= q.origin != q.owner;
                    palace_bad |= !(home && p.in_palace());
                }
                Kind::Advisor => advisor_bad |= !(home && p.is_advisor_point()),
                Kind::Elephant => elephant_bad |= !(home && p.is_elephant_point()),
                Kind::Soldier => soldier_bad |= home && !(p.rank() >= 4 && p.file() % 2 == 0),
                Kind::FlagBearer => flag_off |= !s.flags,
                _ => {}
            }
        }
        if counts
            .iter()
            .any(|c| Kind::ALL.iter().any(|&k| c[k as usize] > k.army_count()))
        {
            kinds.push(ValidationKind::PieceCount);
        }
        if flag_off {
            kinds.push(ValidationKind::FlagBearersOff);
        }
        let general_count_bad = Kingdom::ALL.iter().any(|k| {
            let i = k.index();
            if s.defeated[i] {
                owns[i]
            } else {
                generals[i].len() != 1
            }
        }) || s.defeated.iter().all(|&d| d);
        if general_count_bad {
            kinds.push(ValidationKind::GeneralCount);
        }
        for (bad, kind) in [
            (origin_bad, ValidationKind::GeneralOrigin),
            (palace_bad, ValidationKind::GeneralOutsidePalace),
            (advisor_bad, ValidationKind::AdvisorSquare),
            (elephant_bad, ValidationKind::ElephantSquare),
            (soldier_bad, ValidationKind::SoldierSquare),
        ] {
            if bad {
                kinds.push(kind);
            }
        }
        let side_bad = s.defeated[s.side.index()];
        if side_bad {
            kinds.push(ValidationKind::SideDefeated);
        }
        let active = |k: Kingdom| !s.defeated[k.index()];
        let before = preceding_active(s.side, active);
        if s.last.is_some_and(|l| l != before) {
            kinds.push(ValidationKind::LastMover);
        }
        let mut pos = Position {
            board: s.board,
            generals: [None; 3],
            side: s.side,
            last: s.last,
            flags: s.flags,
            quiet: s.quiet.min(QUIET_LIMIT),
        };
        if !general_count_bad {
            for k in Kingdom::ALL {
                pos.generals[k.index()] = generals[k.index()].first().copied();
            }
            if !side_bad && pos.active_count() >= 2 && pos.danger(before).is_some() {
                kinds.push(ValidationKind::PreviousInCheck);
            }
        }
        match PositionError::of(kinds) {
            None => Ok(pos),
            Some(e) => Err(e),
        }
    }

    /// Reads and validates a position text (§8.2).
    ///
    /// # Errors
    /// [`ParseError::Syntax`] for a text not in the canonical form, [`ParseError::Invalid`] for
    /// a board that breaks a rule.
    pub fn from_text(text: &str) -> Result<Position, ParseError> {
        let setup: Setup = text.parse().map_err(ParseError::Syntax)?;
        Position::from_setup(setup).map_err(ParseError::Invalid)
    }

    /// The position as an unvalidated setup.
    pub fn to_setup(&self) -> Setup {
        let mut defeated = [false; 3];
        for k in Kingdom::ALL {
            defeated[k.index()] = self.is_defeated(k);
        }
        Setup {
            board: self.board,
            side: self.side,
            last: self.last,
            defeated,
            flags: self.flags,
            quiet: self.quiet,
        }
    }

    /// The kingdom to move.
    pub fn side_to_move(&self) -> Kingdom {
        self.side
    }

    /// The kingdom that made the most recent move, if known.
    pub fn last_mover(&self) -> Option<Kingdom> {
        self.last
    }

    /// Whether the table plays with flag bearers.
    pub fn flag_bearers(&self) -> bool {
        self.flags
    }

    /// Moves since the last capture or defeat (C12), at most 180.
    pub fn quiet(&self) -> u16 {
        self.quiet
    }

    /// The piece on `p`.
    pub fn piece_at(&self, p: Point) -> Option<Piece> {
        self.board[p.index()]
    }

    /// Where `k`'s general stands; `None` when `k` is defeated.
    pub fn general(&self, k: Kingdom) -> Option<Point> {
        self.generals[k.index()]
    }

    /// Whether `k` is defeated (has no general).
    pub fn is_defeated(&self, k: Kingdom) -> bool {
        self.generals[k.index()].is_none()
    }

    /// The kingdoms that still have a general, in turn order.
    pub fn active(&self) -> Vec<Kingdom> {
        Kingdom::ALL
            .into_iter()
            .filter(|&k| !self.is_defeated(k))
            .collect()
    }

    /// How many kingdoms still have a general.
    pub fn active_count(&self) -> usize {
        self.generals.iter().filter(|g| g.is_some()).count()
    }

    /// What the repetition rule compares (C11).
    pub fn identity(&self) -> Identity {
        Identity {
            board: self.board,
            side: self.side,
        }
    }

    /// The Zobrist key of [`Position::identity`] (§10), computed from the board: equal
    /// identities give equal keys.
    pub fn key(&self) -> u64 {
        key_of(&self.board, self.side)
    }

    /// The same position one kingdom on (§2.4): a symmetry of the game.
    pub fn rotated(&self) -> Position {
        let mut board = [None; POINTS];
        for p in Point::all() {
            board[p.rotated().index()] = self.board[p.index()].map(Piece::rotated);
        }
        let mut generals = [None; 3];
        for k in Kingdom::ALL {
            generals[k.next().index()] = self.generals[k.index()].map(Point::rotated);
        }
        Position {
            board,
            generals,
            side: self.side.next(),
            last: self.last.map(Kingdom::next),
            flags: self.flags,
            quiet: self.quiet,
        }
    }

    /// The text of a move in this position: `x` when the target is occupied, else `-`.
    pub fn move_text(&self, m: Move) -> String {
        m.text(self.board[m.to.index()].is_some())
    }

    /// Whether `k`'s general is attacked by a piece of another kingdom (C3) or faces another
    /// general (C4); `false` when `k` is defeated.
    pub fn is_in_danger(&self, k: Kingdom) -> bool {
        self.danger(k).is_some()
    }

    /// The kingdoms in check, in turn order: every active kingdom whose General is attacked by a
    /// piece of another kingdom (C3) or faces another kingdom's General (C4), that is
    /// [`Position::is_in_danger`]. Facing counts because it binds the kingdom as an attack does:
    /// it must break the line on its turn or has no legal move (C5, C6, C8), and the spec's own
    /// name for "attacked or facing" is "in check" (§8.3 kind `previous-in-check`). This is what
    /// a table and `/api/analysis` mark as check; the xiangqi counterpart is
    /// [`crate::xiangqi::Position::checked_sides`].
    ///
    /// ```
    /// use chuhe_rules::sanguo::{Kingdom, Position};
    /// assert!(Position::start(true).checked_kingdoms().is_empty());
    /// // Wu's and Wei's Generals face each other through the triangle; Shu's soldier on e4
    /// // screens Shu's.
    /// let pos = Position::from_text("9/4rP4/9/9/4rK4,9/9/9/9/4gK4,9/9/9/9/4bK4 G R - - 0")
    ///     .unwrap();
    /// assert_eq!(pos.checked_kingdoms(), [Kingdom::Wu, Kingdom::Wei]);
    /// assert!(!pos.is_attacked(Kingdom::Wu));
    /// ```
    pub fn checked_kingdoms(&self) -> Vec<Kingdom> {
        Kingdom::ALL
            .into_iter()
            .filter(|&k| self.is_in_danger(k))
            .collect()
    }

    /// Whether `k`'s general is attacked by a piece of another kingdom (C3).
    pub fn is_attacked(&self, k: Kingdom) -> bool {
        self.danger(k) == Some(IllegalReason::LeavesGeneralAttacked)
    }

    /// The pseudo-legal targets of the piece on `from` (movement rules of §4.2 only, own pieces
    /// excluded, each target once), in table order.
    pub fn targets(&self, from: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if let Some(piece) = self.board[from.index()] {
            self.piece_targets(from, piece, &mut |t| out.push(t));
        }
        out
    }

    /// Every legal move of the kingdom to move, in generation order (not sorted). Empty when
    /// only one kingdom is left.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(64);
        if self.active_count() < 2 {
            return out;
        }
        let mut scratch = self.clone();
        self.for_each_pseudo(|m| {
            if scratch.is_safe(m) {
                out.push(m);
            }
            true
        });
        out
    }

    /// The number of legal moves.
    pub fn count_legal_moves(&self) -> usize {
        if self.active_count() < 2 {
            return 0;
        }
        let mut scratch = self.clone();
        let mut n = 0;
        self.for_each_pseudo(|m| {
            n += usize::from(scratch.is_safe(m));
            true
        });
        n
    }

    /// Whether the kingdom to move has a legal move.
    pub fn has_legal_move(&self) -> bool {
        if self.active_count() < 2 {
            return false;
        }
        let mut scratch = self.clone();
        let mut found = false;
        self.for_each_pseudo(|m| {
            found = scratch.is_safe(m);
            !found
        });
        found
    }

    /// Whether `m` is legal.
    pub fn is_legal(&self, m: Move) -> bool {
        self.illegal_reason(m).is_none()
    }

    /// Why `m` is not legal, or `None` when it is.
    pub fn illegal_reason(&self, m: Move) -> Option<IllegalReason> {
        if self.active_count() < 2 {
            return Some(IllegalReason::GameOver);
        }
        let Some(piece) = self.board[m.from.index()] else {
            return Some(IllegalReason::NoPiece);
        };
        if piece.owner != self.side {
            return Some(IllegalReason::NotYourPiece);
        }
        if m.from == m.to {
            return Some(IllegalReason::NullMove);
        }
        if self.board[m.to.index()].is_some_and(|q| q.owner == self.side) {
            return Some(IllegalReason::OwnPieceOnTarget);
        }
        let mut reachable = false;
        self.piece_targets(m.from, piece, &mut |t| reachable |= t == m.to);
        if !reachable {
            return Some(self.shape_reason(m, piece));
        }
        let mut after = self.clone();
        after.apply(m);
        after.danger(self.side)
    }

    /// Plays a legal move with C13 steps 1–2: captures (a captured general defeats its kingdom
    /// and hands its army to the mover), the quiet counter, the last mover, then the turn passes
    /// to the next active kingdom, defeating every kingdom found without a legal move (its army
    /// goes to the mover).
    ///
    /// # Errors
    /// The reason the move is illegal; the position is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<Effect, IllegalReason> {
        match self.illegal_reason(m) {
            Some(r) => Err(r),
            None => Ok(self.play_unchecked(m)),
        }
    }

    /// [`Position::play`] without the legality check, for moves from [`Position::legal_moves`].
    /// An illegal move leaves a position that may break the rules (but does not panic); a move
    /// from an empty point does nothing.
    pub fn play_unchecked(&mut self, m: Move) -> Effect {
        let mover = self.side;
        let mut played = Effect {
            captured: self.board[m.to.index()],
            defeats: Vec::new(),
        };
        if !self.apply(m) {
            return played;
        }
        if let Some(c) = played.captured {
            if c.kind == Kind::General {
                played.defeats.push(Defeat {
                    kingdom: c.owner,
                    reason: EndReason::GeneralCaptured,
                    heir: mover,
                });
            }
        }
        self.last = Some(mover);
        self.side = self.next_active(mover);
        self.resolve_turn(mover, &mut played.defeats);
        played
    }

    /// C13 step 2 for a loaded position (§8.2): while the kingdom to move has no legal move and
    /// more than one kingdom is active, defeat it (its army goes to the active kingdom preceding
    /// the original side to move) and pass on. Returns the defeats.
    pub fn resolve_start(&mut self) -> Vec<Defeat> {
        let heir = preceding_active(self.side, |k| !self.is_defeated(k));
        let mut defeats = Vec::new();
        self.resolve_turn(heir, &mut defeats);
        defeats
    }

    fn resolve_turn(&mut self, heir: Kingdom, defeats: &mut Vec<Defeat>) {
        while self.active_count() > 1 && !self.has_legal_move() {
            let k = self.side;
            self.defeat(k, heir);
            defeats.push(Defeat {
                kingdom: k,
                reason: EndReason::NoLegalMove,
                heir,
            });
            self.quiet = 0;
            self.side = self.next_active(k);
        }
        if self.active_count() == 1 {
            if let Some(k) = Kingdom::ALL.into_iter().find(|&k| !self.is_defeated(k)) {
                self.side = k;
            }
        }
    }

    /// Moves the piece, takes what stands on the target, applies C7 and the quiet counter.
    /// Returns `false` (and does nothing) when `from` is empty.
    fn apply(&mut self, m: Move) -> bool {
        let Some(piece) = self.board[m.from.index()] else {
            return false;
        };
        let captured = self.board[m.to.index()];
        self.board[m.to.index()] = Some(piece);
        self.board[m.from.index()] = None;
        if piece.kind == Kind::General {
            self.generals[piece.owner.index()] = Some(m.to);
        }
        match captured {
            Some(c) => {
                self.quiet = 0;
                if c.kind == Kind::General && c.owner != piece.owner {
                    self.generals[c.owner.index()] = None;
                    self.transfer(c.owner, piece.owner);
                }
            }
            None => self.quiet = (self.quiet + 1).min(QUIET_LIMIT),
        }
        true
    }

    /// C8: removes `k`'s general and gives its other pieces to `heir`.
    fn defeat(&mut self, k: Kingdom, heir: Kingdom) {
        if let Some(g) = self.generals[k.index()].take() {
            self.board[g.index()] = None;
        }
        self.transfer(k, heir);
    }

    fn transfer(&mut self, from: Kingdom, to: Kingdom) {
        for q in self.board.iter_mut().flatten() {
            if q.owner == from {
                q.owner = to;
            }
        }
    }

    fn next_active(&self, k: Kingdom) -> Kingdom {
        let mut n = k.next();
        for _ in 0..3 {
            if !self.is_defeated(n) {
                return n;
            }
            n = n.next();
        }
        k
    }

    /// Whether the pseudo-legal move `m` of the side to move keeps its general safe (C5). `self`
    /// is a scratch copy: it is changed and restored.
    fn is_safe(&mut self, m: Move) -> bool {
        let (from, to) = (m.from.index(), m.to.index());
        let captured = self.board[to];
        if captured.is_some_and(|c| c.kind == Kind::General) {
            let mut after = self.clone();
            after.apply(m);
            return after.danger(self.side).is_none();
        }
        let piece = self.board[from];
        self.board[to] = piece;
        self.board[from] = None;
        let side = self.side.index();
        let general = self.generals[side];
        if general == Some(m.from) {
            self.generals[side] = Some(m.to);
        }
        let safe = self.danger(self.side).is_none();
        self.generals[side] = general;
        self.board[from] = piece;
        self.board[to] = captured;
        safe
    }

    /// Whether `k`'s general is attacked (first) or facing another general.
    fn danger(&self, k: Kingdom) -> Option<IllegalReason> {
        let g = self.generals[k.index()]?;
        let graph = graph();
        let enemy = |p: Point, kind: Kind| {
            self.board[p.index()].is_some_and(|q| q.kind == kind && q.owner != k)
        };
        let empty = |p: Point| self.board[p.index()].is_none();
        let mut facing = false;
        for ray in graph.rays(g) {
            let mut screened = false;
            for &t in ray.points() {
                let Some(q) = self.board[t.index()] else {
                    continue;
                };
                if !screened {
                    if q.owner != k {
                        match q.kind {
                            Kind::Chariot => return Some(IllegalReason::LeavesGeneralAttacked),
                            Kind::General => facing = true,
                            _ => {}
                        }
                    }
                    screened = true;
                } else {
                    if q.owner != k && q.kind == Kind::Cannon {
                        return Some(IllegalReason::LeavesGeneralAttacked);
                    }
                    break;
                }
            }
        }
        for &(h, leg) in graph.horse_from(g) {
            if empty(leg) && enemy(h, Kind::Horse) {
                return Some(IllegalReason::LeavesGeneralAttacked);
            }
        }
        if self.flags {
            for &(h, s1, s2) in graph.flag_from(g) {
                if empty(s1) && empty(s2) && enemy(h, Kind::FlagBearer) {
                    return Some(IllegalReason::LeavesGeneralAttacked);
                }
            }
        }
        for o in Kingdom::ALL {
            for &s in graph.soldier_from(o, g) {
                if self.board[s.index()]
                    .is_some_and(|q| q.kind == Kind::Soldier && q.origin == o && q.owner != k)
                {
                    return Some(IllegalReason::LeavesGeneralAttacked);
                }
            }
        }
        // Elephant and advisor steps are symmetric, and stay in the half of their point (which
        // is their origin half). They attack a general only when taken over from the army of
        // a kingdom that is still active, which play never produces but a text may.
        for &(eye, e) in graph.elephant(g) {
            if empty(eye) && enemy(e, Kind::Elephant) {
                return Some(IllegalReason::LeavesGeneralAttacked);
            }
        }
        for &a in graph.advisor(g) {
            if enemy(a, Kind::Advisor) {
                return Some(IllegalReason::LeavesGeneralAttacked);
            }
        }
        // A general never attacks (C3).
        if facing {
            Some(IllegalReason::GeneralsFacing)
        } else {
            None
        }
    }

    /// Calls `f` with every pseudo-legal move of the side to move until it returns `false`.
    fn for_each_pseudo(&self, mut f: impl FnMut(Move) -> bool) {
        for from in Point::all() {
            let Some(piece) = self.board[from.index()] else {
                continue;
            };
            if piece.owner != self.side {
                continue;
            }
            let mut go = true;
            self.piece_targets(from, piece, &mut |to| {
                if go {
                    go = f(Move::new(from, to));
                }
            });
            if !go {
                return;
            }
        }
    }

    /// Calls `f` with every pseudo-legal target of `piece` standing on `from`, each once.
    fn piece_targets(&self, from: Point, piece: Piece, f: &mut impl FnMut(Point)) {
        let graph = graph();
        let board = &self.board;
        let open = |t: Point| board[t.index()].is_none_or(|q| q.owner != piece.owner);
        let empty = |t: Point| board[t.index()].is_none();
        match piece.kind {
            Kind::General => graph
                .general(from)
                .iter()
                .copied()
                .filter(|&t| open(t))
                .for_each(f),
            Kind::Advisor => graph
                .advisor(from)
                .iter()
                .copied()
                .filter(|&t| open(t))
                .for_each(f),
            Kind::Elephant => {
                for &(eye, t) in graph.elephant(from) {
                    if empty(eye) && open(t) {
                        f(t);
                    }
                }
            }
            Kind::Soldier => graph
                .soldier(piece.origin, from)
                .iter()
                .copied()
                .filter(|&t| open(t))
                .for_each(f),
            Kind::Horse => {
                let mut seen = [0u64; 3];
                for &(leg, t) in graph.horse(from) {
                    if empty(leg) && open(t) && mark(&mut seen, t) {
                        f(t);
                    }
                }
            }
            Kind::FlagBearer => {
                let mut seen = [0u64; 3];
                for &(s1, s2, t) in graph.flag(from) {
                    if empty(s1) && empty(s2) && open(t) && mark(&mut seen, t) {
                        f(t);
                    }
                }
            }
            Kind::Chariot => {
                for ray in graph.rays(from) {
                    for (i, &t) in ray.points().iter().enumerate() {
                        let fresh = i >= ray.shared();
                        match board[t.index()] {
                            None => {
                                if fresh {
                                    f(t)
                                }
                            }
                            Some(q) => {
                                if fresh && q.owner != piece.owner {
                                    f(t);
                                }
                                break;
                            }
                        }
                    }
                }
            }
            Kind::Cannon => {
                for ray in graph.rays(from) {
                    let mut screened = false;
                    for (i, &t) in ray.points().iter().enumerate() {
                        let fresh = i >= ray.shared();
                        match (board[t.index()], screened) {
                            (None, false) => {
                                if fresh {
                                    f(t)
                                }
                            }
                            (None, true) => {}
                            (Some(_), false) => screened = true,
                            (Some(q), true) => {
                                if fresh && q.owner != piece.owner {
                                    f(t);
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Why `piece` cannot reach `m.to` by its movement rule.
    fn shape_reason(&self, m: Move, piece: Piece) -> IllegalReason {
        let graph = graph();
        let kind = piece.kind;
        let on_ray = || {
            graph
                .rays(m.from)
                .iter()
                .any(|r| r.points().contains(&m.to))
        };
        match kind {
            Kind::General | Kind::Advisor if !(m.to.half() == piece.origin && m.to.in_palace()) => {
                IllegalReason::LeavesPalace(kind)
            }
            Kind::Elephant if m.to.half() != piece.origin => IllegalReason::ElephantCrossesRiver,
            Kind::Elephant if graph.elephant(m.from).iter().any(|&(_, t)| t == m.to) => {
                IllegalReason::Blocked(kind)
            }
            Kind::Horse if graph.horse(m.from).iter().any(|&(_, t)| t == m.to) => {
                IllegalReason::Blocked(kind)
            }
            Kind::FlagBearer if graph.flag(m.from).iter().any(|&(_, _, t)| t == m.to) => {
                IllegalReason::Blocked(kind)
            }
            Kind::Chariot if on_ray() => IllegalReason::Blocked(kind),
            Kind::Cannon if on_ray() => {
                if self.board[m.to.index()].is_some() {
                    IllegalReason::CannonNeedsScreen
                } else {
                    IllegalReason::Blocked(kind)
                }
            }
            _ => IllegalReason::BadShape(kind),
        }
    }
}

/// Sets `t`'s bit in `seen`; whether it was clear.
fn mark(seen: &mut [u64; 3], t: Point) -> bool {
    let (w, b) = (t.index() / 64, 1u64 << (t.index() % 64));
    let fresh = seen[w] & b == 0;
    seen[w] |= b;
    fresh
}

/// The active kingdom before `side` in turn order; `side` itself when it is the only one.
fn preceding_active(side: Kingdom, active: impl Fn(Kingdom) -> bool) -> Kingdom {
    let mut k = side.prev();
    for _ in 0..2 {
        if active(k) {
            return k;
        }
        k = k.prev();
    }
    side
}

impl fmt::Display for Position {
    /// The canonical position text of §8.2.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

impl FromStr for Position {
    type Err = ParseError;

    /// Same as [`Position::from_text`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_text(s)
    }
}
