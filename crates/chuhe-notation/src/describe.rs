//! What every relative notation (WXF, its dialects, Chinese) needs to know about one move: the
//! operator, the target, the relative from-file and where the piece stands among its tandem
//! companions (`spec/notation.md` §2 and §5).

use chuhe_rules::xiangqi::{Color, Kind, Move, Piece, Position, Square};

/// The operator of a relative move: forward (`+`, 进), backward (`-`, 退), sideways (`.`, 平).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Forward,
    Backward,
    Sideways,
}

impl Op {
    /// The WXF character (`.` for sideways).
    pub(crate) fn wxf(self) -> char {
        match self {
            Op::Forward => '+',
            Op::Backward => '-',
            Op::Sideways => '.',
        }
    }

    /// The simplified Chinese direction character (进 退 平).
    pub(crate) fn chinese(self) -> char {
        match self {
            Op::Forward => '进',
            Op::Backward => '退',
            Op::Sideways => '平',
        }
    }
}

/// The relative file of `file` (0 = `a` … 8 = `i`) for `side`: 1–9 from that side's right
/// (`spec/notation.md` §2): Red `9 − file`, Black `file + 1`.
pub(crate) fn relative_file(side: Color, file: i32) -> u8 {
    match side {
        Color::Red => (9 - file) as u8,
        Color::Black => (file + 1) as u8,
    }
}

/// Operator and target of moving a piece of `kind` and `side` from `from` to `to` (§5).
pub(crate) fn op_target(side: Color, kind: Kind, from: Square, to: Square) -> (Op, u8) {
    let dy = (to.rank() - from.rank()) * side.forward();
    let op = match dy {
        d if d > 0 => Op::Forward,
        d if d < 0 => Op::Backward,
        _ => Op::Sideways,
    };
    let by_file =
        matches!(kind, Kind::Advisor | Kind::Elephant | Kind::Horse) || to.file() != from.file();
    let target = if by_file {
        relative_file(side, to.file())
    } else {
        (to.rank() - from.rank()).unsigned_abs() as u8
    };
    (op, target)
}

/// One move described for relative notation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Desc {
    pub(crate) side: Color,
    pub(crate) kind: Kind,
    pub(crate) op: Op,
    pub(crate) target: u8,
    /// Relative from-file, 1–9.
    pub(crate) file: u8,
    /// How many own pieces of this kind stand on the from-file (k ≥ 1).
    pub(crate) k: usize,
    /// Index of the mover among them, front to back (0 = front).
    pub(crate) i: usize,
    /// How many files hold at least two own pieces of this kind.
    pub(crate) tandem_files: usize,
    /// How many own pieces of this kind stand on files holding at least two of them (n).
    pub(crate) n: usize,
    /// Index of the mover among those, ordered by relative file then front to back (j).
    pub(crate) j: usize,
    /// The other piece on the from-file when exactly two stand there.
    pub(crate) other: Option<Square>,
}

impl Desc {
    /// Whether the piece takes a tandem marker in the official and Chinese forms (§5: Horse,
    /// Chariot, Cannon and Soldier with k ≥ 2).
    pub(crate) fn is_tandem(&self) -> bool {
        self.k >= 2
            && matches!(
                self.kind,
                Kind::Horse | Kind::Chariot | Kind::Cannon | Kind::Soldier
            )
    }
}

/// Front-to-back order key of a square for `side`: smaller is nearer the enemy.
fn front_key(side: Color, sq: Square) -> i32 {
    match side {
        Color::Red => -sq.rank(),
        Color::Black => sq.rank(),
    }
}

/// Describes `m` in `pos`, or `None` when no piece of the side to move stands on its from-square.
pub(crate) fn describe(pos: &Position, m: Move) -> Option<Desc> {
    let piece = pos.piece_at(m.from)?;
    let side = piece.color;
    if side != pos.side_to_move() {
        return None;
    }
    let kind = piece.kind;
    let (op, target) = op_target(side, kind, m.from, m.to);
    let own = pos.by_piece(Piece::new(side, kind));
    // Counts per file, and the squares of the from-file front to back.
    let mut per_file = [0usize; 9];
    for sq in own {
        per_file[sq.file() as usize] += 1;
    }
    let from_file = m.from.file();
    let mut column: Vec<Square> = own.filter(|s| s.file() == from_file).collect();
    column.sort_by_key(|&s| front_key(side, s));
    let k = column.len();
    let i = column.iter().position(|&s| s == m.from).unwrap_or(0);
    let tandem_files = per_file.iter().filter(|&&c| c >= 2).count();
    // L: own pieces of this kind on tandem files, by relative file then front to back.
    let mut list: Vec<Square> = own.filter(|s| per_file[s.file() as usize] >= 2).collect();
    list.sort_by_key(|&s| (relative_file(side, s.file()), front_key(side, s)));
    let n = list.len();
    let j = list.iter().position(|&s| s == m.from).unwrap_or(0);
    let other = if k == 2 {
        column.iter().copied().find(|&s| s != m.from)
    } else {
        None
    };
    Some(Desc {
        side,
        kind,
        op,
        target,
        file: relative_file(side, from_file),
        k,
        i,
        tandem_files,
        n,
        j,
        other,
    })
}
