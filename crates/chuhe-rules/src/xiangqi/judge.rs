//! The repetition verdict and the chase (`spec/xiangqi.md` §6.3–§6.5, level L2).
//!
//! On the third occurrence of a position the moves of the cycle are judged: a side that checked
//! on every one of its moves loses (`perpetual-check`); otherwise a side whose every move chased
//! one and the same enemy piece loses (`perpetual-chase`); both sides at once, or neither, is a
//! draw (`threefold-repetition`).
//!
//! A move *chases* an enemy piece P (§6.4) when some piece X of the mover, neither a general nor a
//! soldier,
//! - (a) attacks P after the move and did not attack it before (X moved, X's line was opened, or a
//!   cannon screen appeared or vanished);
//! - (c) could legally take P if it were the mover's turn (a pinned X does not chase);
//! - (d) P is neither a general nor a soldier on its own side of the river;
//! - (e) P is unprotected — after X takes P the opponent has no legal recapture on that point
//!   (pinned protectors, and a general that would then face the other general, do not
//!   protect) — or X is a horse or cannon and P a chariot;
//! - (f) it is not an exchange offer: when X and P are of the same kind and P could legally take X
//!   at once, X does not chase P.
//!
//! [`chased_by`] answers for one move. [`cycle_verdict`] judges a whole cycle from its first
//! position (the game's verdict); [`repetition_loser`] judges it from its last position without
//! allocating (the engine's search). Both go through one implementation, so the game and the
//! search apply the same rules at the same level (§6.5).
//!
//! ```
//! use chuhe_rules::xiangqi::judge::chased_by;
//! use chuhe_rules::xiangqi::{Position, Square};
//! // The red chariot steps to a3 and newly attacks the unprotected black horse on a7.
//! let before: Position = "4k4/9/n8/9/9/9/2R6/9/9/3K5 w".parse().unwrap();
//! let chased = chased_by(&before, "c3a3".parse().unwrap());
//! assert_eq!(chased.collect::<Vec<Square>>(), vec!["a7".parse().unwrap()]);
//! ```

use super::attacks::{
    advisor_attacks, cannon_captures, chariot_attacks, elephant_attacks, general_attacks,
    horse_attacks, soldier_attacks,
};
use super::bitboard::Bitboard;
use super::moves::Move;
use super::position::Position;
use super::square::{Color, Kind, Piece, Square};
use crate::outcome::{EndReason, Outcome};

/// The identity board of the judge: `ids[sq]` is the identity of the piece on `sq`, [`NO_ID`] on
/// an empty point. Identities are small numbers (below 64) that follow pieces as they move.
pub(crate) type Ids = [u8; Square::COUNT];

/// The identity of an empty point.
pub(crate) const NO_ID: u8 = u8::MAX;

/// Identities numbered in square order (a0 first): the numbering a game gives at set-up.
pub(crate) fn initial_ids(board: &[Option<Piece>; Square::COUNT]) -> Ids {
    let mut ids = [NO_ID; Square::COUNT];
    let mut next = 0u8;
    for (id, piece) in ids.iter_mut().zip(board) {
        if piece.is_some() {
            *id = next;
            next += 1;
        }
    }
    ids
}

/// Moves the identity along `m` (the captured piece's identity disappears).
#[inline(always)]
pub(crate) fn move_id(ids: &mut Ids, m: Move) {
    let id = ids[m.from.index()];
    if id != NO_ID {
        ids[m.to.index()] = id;
        ids[m.from.index()] = NO_ID;
    }
}

/// A scratch board for "what if" captures: pieces, per-side occupancy, generals and side to move.
/// Copying it is cheap (about 130 bytes), so every hypothetical capture works on a copy.
#[derive(Clone, Copy)]
pub(crate) struct Board {
    squares: [Option<Piece>; Square::COUNT],
    colors: [u128; 2],
    generals: [Option<Square>; 2],
    side: Color,
}

impl Board {
    /// The board of `pos`.
    pub(crate) fn from_position(pos: &Position) -> Board {
        Board {
            squares: pos.to_setup().board,
            colors: [pos.by_color(Color::Red).0, pos.by_color(Color::Black).0],
            generals: [
                Some(pos.general(Color::Red)),
                Some(pos.general(Color::Black)),
            ],
            side: pos.side_to_move(),
        }
    }

    /// A board from its points and the side to move.
    pub(crate) fn from_squares(squares: [Option<Piece>; Square::COUNT], side: Color) -> Board {
        let mut colors = [0u128; 2];
        let mut generals = [None; 2];
        for sq in Square::all() {
            if let Some(p) = squares[sq.index()] {
                colors[p.color.index()] |= 1u128 << sq.index();
                if p.kind == Kind::General {
                    generals[p.color.index()] = Some(sq);
                }
            }
        }
        Board {
            squares,
            colors,
            generals,
            side,
        }
    }

    #[inline(always)]
    fn occupied(&self) -> Bitboard {
        Bitboard(self.colors[0] | self.colors[1])
    }

    /// Plays `m` without any check (the move of an empty point changes nothing but the side).
    pub(crate) fn apply(&mut self, m: Move) {
        let (from, to) = (m.from.index(), m.to.index());
        let Some(piece) = self.squares[from] else {
            self.side = self.side.other();
            return;
        };
        if let Some(captured) = self.squares[to] {
            self.colors[captured.color.index()] &= !(1u128 << to);
            if captured.kind == Kind::General {
                self.generals[captured.color.index()] = None;
            }
        }
        self.colors[piece.color.index()] ^= (1u128 << from) | (1u128 << to);
        self.squares[to] = Some(piece);
        self.squares[from] = None;
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = Some(m.to);
        }
        self.side = self.side.other();
    }

    /// The points the piece on `sq` attacks (§4: where it could capture, legality ignored; a
    /// general only its palace steps, the facing rule is [`Board::generals_face`]).
    fn attacks(&self, sq: Square) -> Bitboard {
        let occ = self.occupied();
        match self.squares[sq.index()] {
            None => Bitboard::EMPTY,
            Some(p) => match p.kind {
                Kind::General => general_attacks(sq),
                Kind::Advisor => advisor_attacks(sq),
                Kind::Elephant => elephant_attacks(sq, occ),
                Kind::Horse => horse_attacks(sq, occ),
                Kind::Chariot => chariot_attacks(sq, occ),
                Kind::Cannon => cannon_captures(sq, occ),
                Kind::Soldier => soldier_attacks(p.color, sq),
            },
        }
    }

    /// The pieces of `by` that attack `target`.
    fn attackers(&self, target: Square, by: Color) -> Bitboard {
        Bitboard(self.colors[by.index()])
            .filter(|&sq| self.attacks(sq).contains(target))
            .fold(Bitboard::EMPTY, Bitboard::with)
    }

    /// Whether the two generals stand on one file with no piece between them.
    fn generals_face(&self) -> bool {
        let (Some(r), Some(b)) = (self.generals[0], self.generals[1]) else {
            return false;
        };
        r.file() == b.file() && chariot_attacks(r, self.occupied()).contains(b)
    }

    /// Whether `color`'s general is attacked by an enemy piece.
    fn in_check(&self, color: Color) -> bool {
        match self.generals[color.index()] {
            None => false,
            Some(g) => self.attackers(g, color.other()).is_nonempty(),
        }
    }

    /// Whether `color`'s general is safe: present, not attacked, and not facing the other general
    /// (the legality condition of §4 for a move `color` has just made).
    fn general_safe(&self, color: Color) -> bool {
        self.generals[color.index()].is_some() && !self.in_check(color) && !self.generals_face()
    }

    /// Whether the piece on `from` may legally capture on `to` (its owner to move): it attacks
    /// `to`, `to` holds an enemy piece, and its own general is safe afterwards.
    fn legal_capture(&self, from: Square, to: Square) -> bool {
        let (Some(x), Some(p)) = (self.squares[from.index()], self.squares[to.index()]) else {
            return false;
        };
        if x.color == p.color || !self.attacks(from).contains(to) {
            return false;
        }
        let mut after = *self;
        after.apply(Move::new(from, to));
        after.general_safe(x.color)
    }

    /// Whether X on `x` chases P on `p` here (clauses c–f of §6.4; the new attack, clause a, and
    /// the kinds of b and d are checked by the caller). The owner of P is to move.
    fn chases(&self, x: Square, p: Square) -> bool {
        let (Some(xp), Some(pp)) = (self.squares[x.index()], self.squares[p.index()]) else {
            return false;
        };
        // (c) X could legally take P if it were its owner's turn.
        let mut taken = *self;
        taken.side = xp.color;
        if !taken.legal_capture(x, p) {
            return false;
        }
        taken.apply(Move::new(x, p));
        // (f) an offer to exchange like for like is not a chase.
        if xp.kind == pp.kind && self.legal_capture(p, x) {
            return false;
        }
        // (e) horse or cannon on chariot always counts; otherwise P must be unprotected.
        if matches!(xp.kind, Kind::Horse | Kind::Cannon) && pp.kind == Kind::Chariot {
            return true;
        }
        !taken
            .attackers(p, pp.color)
            .any(|y| taken.legal_capture(y, p))
    }

    /// The points (after `m`) of the enemy pieces that `m` chases; `self` is the position before
    /// `m`, whose side to move plays it.
    pub(crate) fn chased_by(&self, m: Move) -> Bitboard {
        let us = self.side;
        let them = us.other();
        let mut after = *self;
        after.apply(m);
        // (d) targets: not the general, not a soldier on its own side of the river.
        let targets = Bitboard(after.colors[them.index()]).filter(|&sq| {
            after.squares[sq.index()].is_some_and(|p| match p.kind {
                Kind::General => false,
                Kind::Soldier => !sq.is_on_side_of(them),
                _ => true,
            })
        });
        let targets = targets.fold(Bitboard::EMPTY, Bitboard::with);
        let mut chased = Bitboard::EMPTY;
        for x in Bitboard(after.colors[us.index()]) {
            // (b) the general and the soldiers never chase.
            let Some(xp) = after.squares[x.index()] else {
                continue;
            };
            if matches!(xp.kind, Kind::General | Kind::Soldier) {
                continue;
            }
            let now = after.attacks(x) & targets & !chased;
            if now.is_empty() {
                continue;
            }
            // (a) only new attacks: what X attacked from where it stood before `m`.
            let was = if x == m.to { m.from } else { x };
            let new = now & !self.attacks(was);
            for p in new {
                if after.chases(x, p) {
                    chased = chased.with(p);
                }
            }
        }
        chased
    }
}

/// The squares, in the position after `m`, of the enemy pieces that move `m` chases
/// (`spec/xiangqi.md` §6.4, level L2): the pieces P for which some piece X of the mover, not a
/// general nor a soldier, newly attacks P, could legally take it, and P is not a general nor a
/// soldier on its own side of the river, is unprotected (or is a chariot attacked by a horse or
/// cannon), and is not offering a like-for-like exchange. A check is not a chase of the general;
/// a move that checks may also chase another piece.
///
/// `m` should be legal in `before` (a move of the side to move); for any other move the answer is
/// meaningless but the function does not panic. Cost: a few dozen attack lookups, no allocation.
///
/// ```
/// use chuhe_rules::xiangqi::judge::chased_by;
/// use chuhe_rules::xiangqi::Position;
/// // A chariot offering a chariot exchange does not chase it (§6.4 f).
/// let before: Position = "5k3/9/r8/7R1/9/9/9/9/9/3K5 w".parse().unwrap();
/// assert!(chased_by(&before, "h6h7".parse().unwrap()).is_empty());
/// ```
pub fn chased_by(before: &Position, m: Move) -> Bitboard {
    Board::from_position(before).chased_by(m)
}

/// The verdict of §6.3 on a repetition cycle: `first` is the position at the first occurrence
/// (ply p1) and `cycle` the moves from it to the third occurrence (plies p1+1 … p3; they contain
/// no capture and both sides have the same number of moves in them).
///
/// Returns `perpetual-check` with the other side as winner when exactly one side checked with
/// every one of its moves; otherwise `perpetual-chase` when exactly one side chased one and the
/// same enemy piece (followed by identity) with every one of its moves; otherwise a draw with
/// reason `threefold-repetition` (also when both sides check or both chase).
///
/// Moves are played without a legality check: illegal moves give a meaningless verdict, never a
/// panic.
///
/// ```
/// use chuhe_rules::xiangqi::judge::cycle_verdict;
/// use chuhe_rules::xiangqi::{Move, Position};
/// use chuhe_rules::{EndReason, Outcome};
/// use chuhe_rules::outcome::Side;
/// let first: Position = "4k4/R8/9/9/9/9/9/9/9/3K5 w".parse().unwrap();
/// let cycle: Vec<Move> = "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8 e8e9"
///     .split(' ')
///     .map(|m| m.parse().unwrap())
///     .collect();
/// assert_eq!(cycle_verdict(&first, &cycle), Outcome::win(Side::Black, EndReason::PerpetualCheck));
/// ```
pub fn cycle_verdict(first: &Position, cycle: &[Move]) -> Outcome {
    let board = Board::from_position(first);
    let ids = initial_ids(&board.squares);
    verdict(board, ids, cycle)
}

/// Who loses a repetition cycle and by which rule (§6.3), or `None` for a draw: the verdict of
/// [`cycle_verdict`] without building an [`Outcome`] (no allocation), for callers that know the
/// cycle from its end, such as the engine's search.
///
/// `last` is the position at the end of the cycle (the repeated position) and `cycle` the moves
/// that led to it from the earlier occurrence being judged; they must contain no capture (a
/// capture ends every cycle). The first position is rebuilt by taking the moves back on a
/// scratch board, so no [`Undo`](super::Undo) is needed. Cost: one pass of attack lookups over
/// the cycle for the checks, a second pass with [`chased_by`] only when no side checked
/// throughout; no allocation.
///
/// Returns the side that loses with [`EndReason::PerpetualCheck`] or
/// [`EndReason::PerpetualChase`]; `None` means a draw (`threefold-repetition`).
///
/// ```
/// use chuhe_rules::xiangqi::judge::repetition_loser;
/// use chuhe_rules::xiangqi::{Color, Move, Position};
/// use chuhe_rules::EndReason;
/// let mut pos: Position = "4k4/R8/9/9/9/9/9/9/9/3K5 w".parse().unwrap();
/// let cycle: Vec<Move> = "a8a9 e9e8 a9a8 e8e9".split(' ').map(|m| m.parse().unwrap()).collect();
/// for &m in &cycle {
///     pos.play_unchecked(m);
/// }
/// assert_eq!(repetition_loser(&pos, &cycle), Some((Color::Red, EndReason::PerpetualCheck)));
/// ```
pub fn repetition_loser(last: &Position, cycle: &[Move]) -> Option<(Color, EndReason)> {
    let mut squares = last.to_setup().board;
    for m in cycle.iter().rev() {
        squares[m.from.index()] = squares[m.to.index()];
        squares[m.to.index()] = None;
    }
    let side = if cycle.len().is_multiple_of(2) {
        last.side_to_move()
    } else {
        last.side_to_move().other()
    };
    let board = Board::from_squares(squares, side);
    let ids = initial_ids(&board.squares);
    loser(board, ids, cycle)
}

/// [`cycle_verdict`] from a scratch board and the identities of its pieces.
pub(crate) fn verdict(board: Board, ids: Ids, cycle: &[Move]) -> Outcome {
    match loser(board, ids, cycle) {
        Some((c, reason)) => Outcome::win(c.other().side(), reason),
        None => Outcome::draw(EndReason::ThreefoldRepetition),
    }
}

/// The one implementation of §6.3: the side that loses the cycle and the rule, or `None` for a
/// draw. Checks are judged first (a pass of attack lookups that stops as soon as both sides have
/// made a non-checking move); chases, with identities following the pieces, only when no side
/// checked on every one of its moves.
fn loser(board: Board, ids: Ids, cycle: &[Move]) -> Option<(Color, EndReason)> {
    let only_one = |flags: [bool; 2]| match flags {
        [true, false] => Some(Color::Red),
        [false, true] => Some(Color::Black),
        _ => None,
    };
    let mut checks_all = [true; 2];
    let mut b = board;
    for &m in cycle {
        let us = b.side;
        b.apply(m);
        if !b.in_check(us.other()) {
            checks_all[us.index()] = false;
            if checks_all == [false, false] {
                break;
            }
        }
    }
    if checks_all[0] || checks_all[1] {
        // Both sides checking throughout is a draw.
        return only_one(checks_all).map(|c| (c, EndReason::PerpetualCheck));
    }
    // Per side: the identities chased by every one of its moves so far (bit i = identity i).
    let mut chased_all = [u64::MAX; 2];
    let (mut b, mut ids) = (board, ids);
    for &m in cycle {
        let us = b.side;
        let chased = b.chased_by(m);
        b.apply(m);
        move_id(&mut ids, m);
        let mask = chased
            .map(|sq| ids[sq.index()])
            .filter(|&id| id < 64)
            .fold(0u64, |mask, id| mask | 1 << id);
        chased_all[us.index()] &= mask;
    }
    only_one([chased_all[0] != 0, chased_all[1] != 0]).map(|c| (c, EndReason::PerpetualChase))
}
