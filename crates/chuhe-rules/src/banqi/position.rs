//! The two positions of banqi: [`View`], what every seat may know (and the only one that can be
//! serialised), and [`Truth`], a view plus face-down identities known in advance (tests, tools,
//! fixed deals), which never leaves the process.
//!
//! Legal actions, refusals and the end-of-game checks are computed on the [`View`] only, so they
//! cannot depend on a hidden identity (`spec/banqi.md` §4.2): a [`Truth`] asks its view.

use super::action::{serde_as_text, Action, IllegalReason, Record};
use super::piece::{can_step_capture, Direction, Piece, Pool, Square, SQUARES};
use super::text::{turn_text, write_board, SetupSquare, SyntaxError, QUIET_LIMIT};
use super::Setup;
use crate::outcome::{EndReason, Outcome};
use crate::position_error::Validation;
use crate::xiangqi::{Color, Kind};
use rand::{CryptoRng, Rng};
use std::fmt;
use std::str::FromStr;

/// What a seat sees on one square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cell {
    /// No piece.
    Empty,
    /// A face-down piece: its identity is one of the pool's.
    FaceDown,
    /// A face-up piece.
    FaceUp(Piece),
}

/// The reasons a parsed text is not a valid position (`spec/banqi.md` §3.1), in check order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValidationKind {
    /// Some piece appears (face up + pinned + pool) more often than the full set holds it.
    PieceCount,
    /// The number of `?` squares differs from the size of the pool.
    PoolSize,
    /// Turn `-` but not all 32 squares face down (or the reverse), or turn `-` with `quiet` ≠ 0.
    Turn,
}

impl ValidationKind {
    /// The machine word of the spec: `piece-count`, `pool-size`, `turn`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ValidationKind::PieceCount => "piece-count",
            ValidationKind::PoolSize => "pool-size",
            ValidationKind::Turn => "turn",
        }
    }

    /// The rule in words.
    pub const fn rule(self) -> &'static str {
        match self {
            ValidationKind::PieceCount => {
                "face up + face down + pool may not exceed the full set (K 1, A E R H C 2, P 5 per colour)"
            }
            ValidationKind::PoolSize => "the pool must hold one piece per ? square",
            ValidationKind::Turn => {
                "turn - exactly when all 32 squares are face down, and then quiet is 0"
            }
        }
    }
}

impl fmt::Display for ValidationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A setup that breaks one or more rules of `spec/banqi.md` §3.1: every failing kind, in the
/// spec's order (never empty), the first failure in words as its detail (e.g. `6 red soldiers (at
/// most 5)`). One generic type for the three games ([`crate::position_error::PositionError`]).
pub type PositionError = crate::position_error::PositionError<ValidationKind>;

impl Validation for ValidationKind {
    fn as_str(self) -> &'static str {
        ValidationKind::as_str(self)
    }

    fn rule(self) -> &'static str {
        ValidationKind::rule(self)
    }
}

/// Either error of reading a position text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsePositionError {
    /// The text breaks the grammar (kind `syntax`).
    Syntax(SyntaxError),
    /// The text parses but breaks a rule of §3.1.
    Invalid(PositionError),
}

impl ParsePositionError {
    /// The primary kind as a machine word: `syntax`, `piece-count`, `pool-size` or `turn`.
    pub fn kind_str(&self) -> &'static str {
        match self {
            ParsePositionError::Syntax(_) => "syntax",
            ParsePositionError::Invalid(e) => e.primary().as_str(),
        }
    }
}

impl fmt::Display for ParsePositionError {
    /// `bad position text: syntax: …` or `invalid position: <kind>: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsePositionError::Syntax(e) => write!(f, "bad position text: {e}"),
            ParsePositionError::Invalid(e) => write!(f, "invalid position: {e}"),
        }
    }
}

impl std::error::Error for ParsePositionError {}

/// What every seat, spectator and bot may know (`spec/banqi.md` §4.3): face-up pieces, which
/// squares are face down, the pool (multiset of all unrevealed pieces), the colour to move and
/// `quiet`. The only position type that is serialisable (as its view text).
///
/// All rules that decide what may be played live here: [`View::legal_actions`], [`View::check`]
/// and [`View::verdict`]. A view also replays recorded actions ([`View::play_recorded`]), so a
/// recorded game rebuilds every view with no secret.
///
/// ```
/// use chuhe_rules::banqi::{Record, View};
/// let mut view = View::start();
/// assert_eq!(view.legal_actions().len(), 32);
/// view.play_recorded("c2=R".parse::<Record>().unwrap()).unwrap();
/// assert_eq!(
///     view.to_string(),
///     "????????/????????/??R?????/???????? b KAAEERHHCCPPPPPkaaeerrhhccppppp 0"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    cells: [Cell; SQUARES],
    turn: Option<Color>,
    pool: Pool,
    quiet: u8,
}

/// The public identity of a position for repetition (`spec/banqi.md` §2.3): the public board and
/// the side to move. Two truths with the same view have the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey {
    cells: [Cell; SQUARES],
    turn: Option<Color>,
}

impl View {
    /// The start: 32 face-down pieces, the full pool, no colours yet.
    pub fn start() -> View {
        View {
            cells: [Cell::FaceDown; SQUARES],
            turn: None,
            pool: Pool::full(),
            quiet: 0,
        }
    }

    /// What lies on `sq`.
    pub fn cell(&self, sq: Square) -> Cell {
        self.cells[sq.index()]
    }

    /// The colour to move, or `None` before the first flip (seat 1 to move).
    pub fn turn(&self) -> Option<Color> {
        self.turn
    }

    /// The multiset of all face-down pieces.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Turns since the last flip or capture (0 … 180).
    pub fn quiet(&self) -> u8 {
        self.quiet
    }

    /// The repetition identity: public board and side to move.
    pub fn key(&self) -> PublicKey {
        PublicKey {
            cells: self.cells,
            turn: self.turn,
        }
    }

    /// The face-up pieces.
    pub fn face_up(&self) -> Pool {
        let mut up = Pool::EMPTY;
        for c in self.cells {
            if let Cell::FaceUp(p) = c {
                up.add(p);
            }
        }
        up
    }

    /// The captured pieces: full set − face up − face down.
    pub fn captured(&self) -> Pool {
        let mut left = Pool::full();
        for (p, n) in self.face_up().iter().chain(self.pool.iter()) {
            for _ in 0..n {
                left.remove(p);
            }
        }
        left
    }

    /// The pieces `color` still has, face up or face down.
    pub fn remaining(&self, color: Color) -> usize {
        self.face_up().count_color(color) + self.pool.count_color(color)
    }

    /// Whether a face-down piece lies anywhere.
    pub fn has_face_down(&self) -> bool {
        self.cells.contains(&Cell::FaceDown)
    }

    /// Every legal action of the side to move, sorted bytewise by text (the order of
    /// `chuhe moves`): one flip per face-down square, and for each own face-up piece its steps to
    /// empty neighbours, its stepping captures allowed by [`can_step_capture`], and for a cannon
    /// the jump captures over exactly one piece in each direction.
    ///
    /// Draw rules do not change this set; a finished game is a [`super::Game`] matter.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::with_capacity(48);
        self.generate(&mut out);
        Action::sort_by_text(&mut out);
        out
    }

    /// Whether the side to move has any legal action.
    pub fn has_legal_action(&self) -> bool {
        if self.has_face_down() {
            return true;
        }
        let mut out = Vec::new();
        self.generate(&mut out);
        !out.is_empty()
    }

    fn generate(&self, out: &mut Vec<Action>) {
        for sq in Square::all() {
            if self.cell(sq) == Cell::FaceDown {
                out.push(Action::Flip(sq));
            }
        }
        let Some(us) = self.turn else {
            return;
        };
        for from in Square::all() {
            let Cell::FaceUp(p) = self.cell(from) else {
                continue;
            };
            if p.color() != us {
                continue;
            }
            for dir in Direction::ALL {
                let Some(to) = from.step(dir) else {
                    continue;
                };
                match self.cell(to) {
                    Cell::Empty => out.push(Action::Move { from, to }),
                    Cell::FaceUp(t) if t.color() != us && can_step_capture(p.kind(), t.kind()) => {
                        out.push(Action::Capture { from, to })
                    }
                    _ => {}
                }
                if p.kind() == Kind::Cannon {
                    if let Some(to) = self.cannon_target(from, dir) {
                        out.push(Action::Capture { from, to });
                    }
                }
            }
        }
    }

    /// The square a cannon on `from` captures in direction `dir`: the first occupied square is the
    /// screen, the next occupied one the target, which must be a face-up enemy piece.
    fn cannon_target(&self, from: Square, dir: Direction) -> Option<Square> {
        let Cell::FaceUp(cannon) = self.cell(from) else {
            return None;
        };
        let mut sq = from;
        let mut screen = false;
        while let Some(next) = sq.step(dir) {
            sq = next;
            match self.cell(sq) {
                Cell::Empty => {}
                _ if !screen => screen = true,
                Cell::FaceUp(t) if t.color() != cannon.color() => return Some(sq),
                _ => return None,
            }
        }
        None
    }

    /// Checks an action against the rules and returns it in its canonical form (a `from-to`
    /// request that captures comes back as [`Action::Capture`], and the reverse).
    ///
    /// This check is written separately from move generation; the two agree (tested).
    ///
    /// # Errors
    /// The first [`IllegalReason`] found, in this order: for a flip, [`IllegalReason::NotFaceDown`]
    /// (a flip of a face-down square is never refused); for a move or capture, no colours yet,
    /// empty from-square, face-down from-square, the other colour's piece, not one orthogonal step
    /// (nor a cannon's line), then the target: face down, own, rank or cannon screens.
    pub fn check(&self, action: Action) -> Result<Action, IllegalReason> {
        let (from, to) = match action {
            Action::Flip(sq) => {
                return if self.cell(sq) == Cell::FaceDown {
                    Ok(Action::Flip(sq))
                } else {
                    Err(IllegalReason::NotFaceDown)
                };
            }
            Action::Move { from, to } | Action::Capture { from, to } => (from, to),
        };
        let us = self.turn.ok_or(IllegalReason::NoColoursYet)?;
        let p = match self.cell(from) {
            Cell::Empty => return Err(IllegalReason::EmptyFrom),
            Cell::FaceDown => return Err(IllegalReason::FromFaceDown),
            Cell::FaceUp(p) => p,
        };
        if p.color() != us {
            return Err(IllegalReason::NotYourPiece);
        }
        let same_file = from.file() == to.file();
        let same_rank = from.rank() == to.rank();
        if from == to || !(same_file || same_rank) {
            return Err(IllegalReason::NotOneStep);
        }
        let distance = from.file().abs_diff(to.file()) + from.rank().abs_diff(to.rank());
        let cannon = p.kind() == Kind::Cannon;
        if distance > 1 && !cannon {
            return Err(IllegalReason::NotOneStep);
        }
        let target = match self.cell(to) {
            Cell::Empty if distance == 1 => return Ok(Action::Move { from, to }),
            Cell::Empty => return Err(IllegalReason::CannonSlide),
            Cell::FaceDown => return Err(IllegalReason::TargetFaceDown),
            Cell::FaceUp(t) if t.color() == us => return Err(IllegalReason::OwnTarget),
            Cell::FaceUp(t) => t,
        };
        if cannon {
            let between = self.pieces_between(from, to);
            return if between == 1 {
                Ok(Action::Capture { from, to })
            } else {
                Err(IllegalReason::CannonScreens { between })
            };
        }
        if can_step_capture(p.kind(), target.kind()) {
            Ok(Action::Capture { from, to })
        } else {
            Err(IllegalReason::RankTooLow {
                attacker: p.kind(),
                target: target.kind(),
            })
        }
    }

    /// Whether `action` is legal.
    pub fn is_legal(&self, action: Action) -> bool {
        self.check(action).is_ok()
    }

    /// Occupied squares strictly between two squares of one rank or file.
    fn pieces_between(&self, from: Square, to: Square) -> u8 {
        let (a, b) = (from.index().min(to.index()), from.index().max(to.index()));
        let stride = if from.rank() == to.rank() { 1 } else { 8 };
        (a + stride..b)
            .step_by(stride)
            .filter_map(Square::from_index)
            .filter(|&sq| self.cell(sq) != Cell::Empty)
            .count() as u8
    }

    /// Applies a recorded action (`spec/banqi.md` §3.3): a flip `sq=x` needs a face-down `sq` and
    /// an `x` in the pool; a move or capture must be legal.
    ///
    /// # Errors
    /// The [`IllegalReason`]; the view is then unchanged.
    pub fn play_recorded(&mut self, record: Record) -> Result<(), IllegalReason> {
        match record {
            Record::Flip { square, piece } => {
                self.check(Action::Flip(square))?;
                if self.pool.count(piece) == 0 {
                    return Err(IllegalReason::NotInPool(piece));
                }
                self.reveal(square, piece);
                Ok(())
            }
            Record::Move { .. } | Record::Capture { .. } => {
                let action = self.check(record.action())?;
                self.apply_step(action);
                Ok(())
            }
        }
    }

    /// Turns the face-down `sq` into face-up `piece`, removes `piece` from the pool, assigns
    /// colours on the first flip, passes the turn and resets `quiet`. The caller has checked.
    fn reveal(&mut self, sq: Square, piece: Piece) {
        self.cells[sq.index()] = Cell::FaceUp(piece);
        self.pool.remove(piece);
        let mover = self.turn.unwrap_or(piece.color());
        self.turn = Some(mover.other());
        self.quiet = 0;
    }

    /// Plays a checked move or capture.
    fn apply_step(&mut self, action: Action) {
        let Some((from, to)) = action.squares() else {
            return;
        };
        self.cells[to.index()] = self.cells[from.index()];
        self.cells[from.index()] = Cell::Empty;
        self.turn = self.turn.map(Color::other);
        self.quiet = if matches!(action, Action::Capture { .. }) {
            0
        } else {
            // The counter stops at the limit, where the game is drawn, so the text stays valid.
            (self.quiet + 1).min(QUIET_LIMIT)
        };
    }

    /// The end-of-game checks that depend on the position alone, in the order of
    /// `spec/banqi.md` §2.3 (repetition needs the history: see [`super::Game`]):
    /// 1. a colour has no piece left → the other wins, `all-captured` (the side to move is
    ///    looked at first);
    /// 2. the side to move has no legal turn → the other wins, `no-legal-move`;
    /// 3. `quiet` ≥ 180 → draw, `no-flip-no-capture-limit`.
    pub fn verdict(&self) -> Option<Outcome> {
        let Some(us) = self.turn else {
            // Before the first flip all 32 pieces lie face down: nothing can be over.
            return None;
        };
        for c in [us, us.other()] {
            if self.remaining(c) == 0 {
                return Some(Outcome::win(c.other().side(), EndReason::AllCaptured));
            }
        }
        if !self.has_legal_action() {
            return Some(Outcome::win(us.other().side(), EndReason::NoLegalMove));
        }
        if self.quiet >= QUIET_LIMIT {
            return Some(Outcome::draw(EndReason::NoFlipNoCaptureLimit));
        }
        None
    }
}

impl fmt::Display for View {
    /// The view text: every face-down square `?`, the pool of all unrevealed pieces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_board(f, |sq| match self.cell(sq) {
            Cell::Empty => SetupSquare::Empty,
            Cell::FaceDown => SetupSquare::Unknown,
            Cell::FaceUp(p) => SetupSquare::FaceUp(p),
        })?;
        write!(f, " {} {} {}", turn_text(self.turn), self.pool, self.quiet)
    }
}

impl FromStr for View {
    type Err = ParsePositionError;

    /// Reads a view text (no pinned `(x)` squares) and validates it.
    ///
    /// # Errors
    /// [`ParsePositionError::Syntax`] for a text off the grammar or one that pins a square;
    /// [`ParsePositionError::Invalid`] for one that breaks a rule of §3.1.
    fn from_str(s: &str) -> Result<View, ParsePositionError> {
        let truth: Truth = s.parse()?;
        if truth.has_pins() {
            return Err(ParsePositionError::Syntax(SyntaxError {
                detail: "a view text has no pinned squares: write ? for every face-down piece"
                    .into(),
            }));
        }
        Ok(truth.view)
    }
}

serde_as_text!(View);

/// The truth: a [`View`] plus the identities of face-down pieces known in advance ("pinned"),
/// as a truth text gives them (`spec/banqi.md` §3.1). Tests, replays of fixed deals and offline
/// tools use it; a live table holds a truth with no pins at all, and identities are drawn at flip
/// time ([`Truth::play`], [`super::Game`]).
///
/// It is deliberately not serialisable, it does not implement `Display`, and its `Debug` output
/// hides the pins: what may be sent is [`Truth::view`]. The truth text is written only on
/// explicit request ([`Truth::to_truth_text`]).
///
/// ```
/// use chuhe_rules::banqi::Truth;
/// let t: Truth = "8/8/8/(K)(p)6 r - 0".parse().unwrap();
/// assert_eq!(t.view().to_string(), "8/8/8/??6 r Kp 0");
/// assert_eq!(t.to_truth_text(), "8/8/8/(K)(p)6 r - 0");
/// // Debug output shows only what the view shows: a truth with the pins swapped looks the same.
/// let swapped: Truth = "8/8/8/(p)(K)6 r - 0".parse().unwrap();
/// assert_eq!(format!("{t:?}"), format!("{swapped:?}"));
/// ```
///
/// The view serialises; the truth does not, so it cannot be put in a client message:
///
/// ```
/// fn to_client<T: serde::Serialize>(_: &T) {}
/// to_client(chuhe_rules::banqi::Truth::from(chuhe_rules::banqi::View::start()).view());
/// ```
///
/// ```compile_fail
/// fn to_client<T: serde::Serialize>(_: &T) {}
/// to_client(&chuhe_rules::banqi::Truth::from(chuhe_rules::banqi::View::start()));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Truth {
    view: View,
    /// The identity of each face-down square known in advance; `None` elsewhere. Every pin is
    /// also counted in `view.pool`.
    pins: [Option<Piece>; SQUARES],
}

impl fmt::Debug for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Truth")
            .field("view", &self.view.to_string())
            .field("pinned_squares_hidden", &self.pin_count())
            .finish()
    }
}

impl From<View> for Truth {
    /// A truth that pins nothing: the live server's state, where every flip draws from the pool.
    fn from(view: View) -> Truth {
        Truth {
            view,
            pins: [None; SQUARES],
        }
    }
}

impl Truth {
    /// Validates a parsed text (`spec/banqi.md` §3.1): piece counts, pool size, turn.
    ///
    /// # Errors
    /// [`PositionError`] with every failing kind, in the spec's order.
    pub fn from_setup(setup: Setup) -> Result<Truth, PositionError> {
        let mut kinds = Vec::new();
        let mut details = Vec::new();
        let mut cells = [Cell::Empty; SQUARES];
        let mut pins = [None; SQUARES];
        let mut pool = setup.pool;
        let mut everything = setup.pool;
        let mut unknown = 0usize;
        for (i, s) in setup.squares.iter().enumerate() {
            match *s {
                SetupSquare::Empty => {}
                SetupSquare::FaceUp(p) => {
                    cells[i] = Cell::FaceUp(p);
                    everything.add(p);
                }
                SetupSquare::Unknown => {
                    cells[i] = Cell::FaceDown;
                    unknown += 1;
                }
                SetupSquare::Pinned(p) => {
                    cells[i] = Cell::FaceDown;
                    pins[i] = Some(p);
                    everything.add(p);
                    pool.add(p);
                }
            }
        }
        if let Some(p) = Piece::ALL
            .into_iter()
            .find(|&p| everything.count(p) > p.full_count())
        {
            kinds.push(ValidationKind::PieceCount);
            details.push(format!(
                "{} {}s (at most {})",
                everything.count(p),
                p.name(),
                p.full_count()
            ));
        }
        if unknown != setup.pool.len() {
            kinds.push(ValidationKind::PoolSize);
            details.push(format!(
                "{unknown} ? squares but {} pieces in the pool",
                setup.pool.len()
            ));
        }
        let all_down = cells.iter().all(|&c| c == Cell::FaceDown);
        if all_down != setup.turn.is_none() {
            kinds.push(ValidationKind::Turn);
            details.push(if all_down {
                "all 32 squares are face down, so the turn must be -".to_owned()
            } else {
                "turn - needs all 32 squares face down".to_owned()
            });
        } else if setup.turn.is_none() && setup.quiet != 0 {
            kinds.push(ValidationKind::Turn);
            details.push("with turn - quiet must be 0".to_owned());
        }
        if !kinds.is_empty() {
            return Err(PositionError {
                kinds,
                detail: Some(details.swap_remove(0)),
            });
        }
        Ok(Truth {
            view: View {
                cells,
                turn: setup.turn,
                pool,
                quiet: setup.quiet,
            },
            pins,
        })
    }

    /// The projection to what every seat may know: each pinned square becomes `?` and its piece
    /// joins the pool. Two truths with the same public information have equal views.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Whether any face-down identity is known in advance.
    pub fn has_pins(&self) -> bool {
        self.pins.iter().any(Option::is_some)
    }

    fn pin_count(&self) -> usize {
        self.pins.iter().filter(|p| p.is_some()).count()
    }

    /// The pieces under the unpinned face-down squares: the pool minus the pins. A flip of an
    /// unpinned square draws from it.
    fn unpinned_pool(&self) -> Pool {
        let mut pool = self.view.pool;
        for p in self.pins.iter().flatten() {
            pool.remove(*p);
        }
        pool
    }

    /// The truth text: pinned squares as `(x)`, the others as `?`, and the pool of the `?`
    /// squares. It reveals every pinned identity: for tests and offline tools only.
    pub fn to_truth_text(&self) -> String {
        let mut s = String::new();
        let _ = write_board(&mut s, |sq| {
            match (self.view.cell(sq), self.pins[sq.index()]) {
                (Cell::Empty, _) => SetupSquare::Empty,
                (Cell::FaceUp(p), _) => SetupSquare::FaceUp(p),
                (Cell::FaceDown, Some(p)) => SetupSquare::Pinned(p),
                (Cell::FaceDown, None) => SetupSquare::Unknown,
            }
        });
        s.push_str(&format!(
            " {} {} {}",
            turn_text(self.view.turn),
            self.unpinned_pool(),
            self.view.quiet
        ));
        s
    }

    /// Plays a live action: a flip reveals the square's pin if it has one, otherwise a piece drawn
    /// uniformly from the unpinned pool with `rng` ([`Pool::draw`]); a move or capture must be
    /// legal. Returns the record to log (a flip with its revealed piece).
    ///
    /// # Errors
    /// The [`IllegalReason`] of [`View::check`]; the truth is then unchanged.
    pub fn play<R: Rng + CryptoRng>(
        &mut self,
        action: Action,
        rng: &mut R,
    ) -> Result<Record, IllegalReason> {
        let action = self.view.check(action)?;
        match action {
            Action::Flip(square) => {
                let piece = match self.pins[square.index()] {
                    Some(p) => p,
                    None => self
                        .unpinned_pool()
                        .draw(rng)
                        .ok_or(IllegalReason::PoolEmpty)?,
                };
                let record = Record::Flip { square, piece };
                self.play_recorded(record)?;
                Ok(record)
            }
            Action::Move { from, to } => {
                self.view.apply_step(action);
                Ok(Record::Move { from, to })
            }
            Action::Capture { from, to } => {
                self.view.apply_step(action);
                Ok(Record::Capture { from, to })
            }
        }
    }

    /// Applies a recorded action (`spec/banqi.md` §3.3): a flip of a pinned square must reveal
    /// its pin; a flip of a `?` square must reveal a piece of the unpinned pool.
    ///
    /// # Errors
    /// The [`IllegalReason`]; the truth is then unchanged.
    pub fn play_recorded(&mut self, record: Record) -> Result<(), IllegalReason> {
        if let Record::Flip { square, piece } = record {
            self.view.check(Action::Flip(square))?;
            match self.pins[square.index()] {
                Some(pin) if pin != piece => return Err(IllegalReason::PinMismatch),
                Some(_) => {}
                None if self.unpinned_pool().count(piece) == 0 => {
                    return Err(IllegalReason::NotInPool(piece))
                }
                None => {}
            }
            self.view.play_recorded(record)?;
            self.pins[square.index()] = None;
            return Ok(());
        }
        self.view.play_recorded(record)
    }
}

impl FromStr for Truth {
    type Err = ParsePositionError;

    /// Reads and validates a position text of any of the three forms (view, truth, mixed).
    ///
    /// # Errors
    /// [`ParsePositionError`]: syntax, or the failing rules of §3.1.
    fn from_str(s: &str) -> Result<Truth, ParsePositionError> {
        let setup: Setup = s.parse().map_err(ParsePositionError::Syntax)?;
        Truth::from_setup(setup).map_err(ParsePositionError::Invalid)
    }
}
