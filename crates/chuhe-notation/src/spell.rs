//! Every spelling of a move in the relative notations, in the normalised form of
//! `spec/notation.md` §6 step 1 (ASCII, upper-case letters, `.` for sideways, simplified Chinese
//! with one character per piece kind, digits for every number after the first character).
//!
//! The writers of [`crate::write`] and the reader of [`crate::read`] both build on these
//! functions, so what chuhe writes is what it reads.

use crate::describe::{op_target, Desc, Op};
use chuhe_rules::xiangqi::{Kind, Move};

/// A short text of at most eight characters, without heap allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spell {
    buf: [char; 8],
    len: u8,
}

impl Spell {
    pub(crate) const fn new() -> Spell {
        Spell {
            buf: ['\0'; 8],
            len: 0,
        }
    }

    pub(crate) fn from_chars(chars: &[char]) -> Spell {
        let mut s = Spell::new();
        for &c in chars.iter().take(8) {
            s.push(c);
        }
        s
    }

    pub(crate) fn push(&mut self, c: char) {
        if (self.len as usize) < self.buf.len() {
            self.buf[self.len as usize] = c;
            self.len += 1;
        }
    }

    pub(crate) fn as_slice(&self) -> &[char] {
        &self.buf[..self.len as usize]
    }
}

impl std::fmt::Debug for Spell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s: String = self.as_slice().iter().collect();
        write!(f, "{s:?}")
    }
}

/// The WXF letter of a kind: official `K A E H R C P`, or with `alt` the XQBase letters
/// (`B` for the elephant, `N` for the horse).
pub(crate) fn letter(kind: Kind, alt: bool) -> char {
    match kind {
        Kind::General => 'K',
        Kind::Advisor => 'A',
        Kind::Elephant if alt => 'B',
        Kind::Elephant => 'E',
        Kind::Horse if alt => 'N',
        Kind::Horse => 'H',
        Kind::Chariot => 'R',
        Kind::Cannon => 'C',
        Kind::Soldier => 'P',
    }
}

/// The digit character of 1–9.
pub(crate) fn digit(n: usize) -> char {
    char::from_digit(n.min(9) as u32, 10).unwrap_or('0')
}

/// The canonical (normalised) Chinese character of a kind: Red's simplified one.
pub(crate) fn canonical_piece(kind: Kind) -> char {
    match kind {
        Kind::General => '帅',
        Kind::Advisor => '仕',
        Kind::Elephant => '相',
        Kind::Horse => '马',
        Kind::Chariot => '车',
        Kind::Cannon => '炮',
        Kind::Soldier => '兵',
    }
}

/// The Chinese ordinals 一 … 五 (index 0 … 4).
pub(crate) const ORDINALS: [char; 5] = ['一', '二', '三', '四', '五'];

/// The Chinese tandem marker written by chuhe (§4.3): n = 2 前/后, n = 3 前/中/后, n ≥ 4 ordinals.
pub(crate) fn chinese_marker(n: usize, j: usize) -> char {
    match n {
        2 => {
            if j == 0 {
                '前'
            } else {
                '后'
            }
        }
        3 => ['前', '中', '后'][j.min(2)],
        _ => ORDINALS[j.min(4)],
    }
}

/// Assembles a WXF-family spelling: prefix, operator, target.
fn wxf(prefix: [char; 2], d: &Desc, omit_op: bool) -> Spell {
    let mut s = Spell::from_chars(&prefix);
    if !omit_op {
        s.push(d.op.wxf());
    }
    s.push(digit(d.target as usize));
    s
}

/// The official WXF prefix (§3.2).
pub(crate) fn official_prefix(d: &Desc, alt: bool) -> [char; 2] {
    let l = letter(d.kind, alt);
    let f = digit(d.file as usize);
    if !d.is_tandem() {
        return [l, f];
    }
    let front_back = |i: usize, k: usize| {
        if i == 0 {
            '+'
        } else if i + 1 == k {
            '-'
        } else {
            f
        }
    };
    if d.kind != Kind::Soldier {
        return [l, if d.i == 0 { '+' } else { '-' }];
    }
    if d.tandem_files >= 2 && d.k <= 3 {
        return [f, front_back(d.i, d.k)];
    }
    match (d.k, d.i) {
        (2, _) | (3, _) => [l, front_back(d.i, d.k)],
        (4, 0) | (5, 0) => ['+', '+'],
        (4, 1) | (5, 1) => [l, '+'],
        (5, 2) => [l, f],
        (4, 2) | (5, 3) => [l, '-'],
        _ => ['-', '-'],
    }
}

/// The XQBase / ElephantEye prefixes (§3.3): marker after the letter, and marker before it.
pub(crate) fn xqbase_prefixes(d: &Desc, alt: bool) -> ([char; 2], Option<[char; 2]>) {
    let l = letter(d.kind, alt);
    if !d.is_tandem() {
        return ([l, digit(d.file as usize)], None);
    }
    let m = if d.kind != Kind::Soldier {
        if d.i == 0 {
            '+'
        } else {
            '-'
        }
    } else {
        match d.n {
            2 => ['+', '-'][d.j.min(1)],
            3 => ['+', '.', '-'][d.j.min(2)],
            _ => ['A', 'B', 'C', 'D', 'E'][d.j.min(4)],
        }
    };
    ([l, m], Some([m, l]))
}

/// Whether the other piece on the from-file (exactly two there) has a legal move with the same
/// operator and target: Fairy-Stockfish then writes `+`/`-` (§3.3).
pub(crate) fn other_makes_same_move(legal: &[Move], d: &Desc) -> bool {
    let Some(other) = d.other else {
        return false;
    };
    legal
        .iter()
        .filter(|m| m.from == other)
        .any(|m| op_target(d.side, d.kind, other, m.to) == (d.op, d.target))
}

/// The Fairy-Stockfish / pyffish prefix (§3.3).
pub(crate) fn fsf_prefix(d: &Desc, alt: bool, other_same: bool) -> [char; 2] {
    let l = letter(d.kind, alt);
    if d.kind == Kind::Soldier && (d.k >= 3 || (d.tandem_files >= 2 && d.k >= 2)) {
        return [digit(d.i + 1), digit(d.file as usize)];
    }
    if d.k == 2 && other_same {
        return [l, if d.i == 0 { '+' } else { '-' }];
    }
    [l, digit(d.file as usize)]
}

/// Piece letter and plain from-file, ignoring tandem markers (tier 3).
pub(crate) fn plain_prefix(d: &Desc, alt: bool) -> [char; 2] {
    [letter(d.kind, alt), digit(d.file as usize)]
}

/// The official WXF text (§3.2, tier 1 and what chuhe writes).
pub(crate) fn official(d: &Desc) -> Spell {
    wxf(official_prefix(d, false), d, false)
}

/// The Chinese text as chuhe writes it, normalised (§4.3).
pub(crate) fn chinese(d: &Desc) -> Spell {
    let mut s = Spell::new();
    if d.is_tandem() {
        s.push(chinese_marker(d.n, d.j));
        s.push(canonical_piece(d.kind));
    } else {
        s.push(canonical_piece(d.kind));
        s.push(digit(d.file as usize));
    }
    s.push(d.op.chinese());
    s.push(digit(d.target as usize));
    s
}

/// The other Chinese tandem spellings read in tier 2 (§4.3 "also read"), at most two.
pub(crate) fn chinese_alternatives(d: &Desc) -> [Option<Spell>; 2] {
    let mut out = [None, None];
    if d.kind != Kind::Soldier || d.k < 2 {
        return out;
    }
    let tail = |s: &mut Spell| {
        s.push(d.op.chinese());
        s.push(digit(d.target as usize));
    };
    if d.tandem_files == 1 && d.k >= 4 {
        // 4 or 5 on one file as 前/二/三/(四)/后.
        let m = if d.i == 0 {
            '前'
        } else if d.i + 1 == d.k {
            '后'
        } else {
            ORDINALS[d.i.min(4)]
        };
        let mut s = Spell::from_chars(&[m, '兵']);
        tail(&mut s);
        out[0] = Some(s);
    } else if d.tandem_files >= 2 && d.k <= 3 {
        // Two tandem files: the marker within the file, then the file.
        let m = chinese_marker(d.k, d.i);
        let f = digit(d.file as usize);
        let mut a = Spell::from_chars(&[m, '兵', f]);
        tail(&mut a);
        let mut b = Spell::from_chars(&[m, f]);
        tail(&mut b);
        out = [Some(a), Some(b)];
    }
    out
}

/// Piece, plain from-file, direction, target in Chinese (tier 3).
pub(crate) fn chinese_plain(d: &Desc) -> Spell {
    Spell::from_chars(&[
        canonical_piece(d.kind),
        digit(d.file as usize),
        d.op.chinese(),
        digit(d.target as usize),
    ])
}

/// The dialects of WXF-style text (`spec/notation.md` §3 and §6 step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// WXF official (§3.2): what chuhe writes.
    Official,
    /// XQBase / ElephantEye / XiangQi Wizard (§3.3).
    XqBase,
    /// Fairy-Stockfish / pyffish / pychess-variants (§3.3).
    FairyStockfish,
}

/// Every WXF-family spelling of a move with its tier (1, 2 or 3), given the dialect of tier 1.
/// Calls `f(tier, spelling)`; stops early when `f` returns `true`.
pub(crate) fn for_each_wxf(
    d: &Desc,
    primary: Dialect,
    other_same: bool,
    mut f: impl FnMut(u8, Spell) -> bool,
) -> bool {
    let sideways = d.op == Op::Sideways;
    let emit = |tier: u8, prefix: [char; 2], f: &mut dyn FnMut(u8, Spell) -> bool| -> bool {
        if f(tier, wxf(prefix, d, false)) {
            return true;
        }
        // The sideways operator may be missing (tier 2, or tier 3 for tier-3 forms).
        sideways && f(tier.max(2), wxf(prefix, d, true))
    };
    for alt in [false, true] {
        for dialect in [Dialect::Official, Dialect::XqBase, Dialect::FairyStockfish] {
            let own_letters = match dialect {
                Dialect::XqBase => alt,
                _ => !alt,
            };
            let tier = if dialect == primary && own_letters {
                1
            } else {
                2
            };
            let stop = match dialect {
                Dialect::Official => emit(tier, official_prefix(d, alt), &mut f),
                Dialect::FairyStockfish => emit(tier, fsf_prefix(d, alt, other_same), &mut f),
                Dialect::XqBase => {
                    let (a, b) = xqbase_prefixes(d, alt);
                    emit(tier, a, &mut f) || b.is_some_and(|b| emit(2, b, &mut f))
                }
            };
            if stop {
                return true;
            }
        }
        if emit(3, plain_prefix(d, alt), &mut f) {
            return true;
        }
    }
    false
}

/// Every Chinese spelling of a move with its tier; stops early when `f` returns `true`.
pub(crate) fn for_each_chinese(d: &Desc, mut f: impl FnMut(u8, Spell) -> bool) -> bool {
    if f(1, chinese(d)) {
        return true;
    }
    for s in chinese_alternatives(d).into_iter().flatten() {
        if f(2, s) {
            return true;
        }
    }
    f(3, chinese_plain(d))
}

#[cfg(test)]
mod tests {
    //! The dialect spellings read back, under their dialect hint, to the move they spell: the
    //! XQBase and Fairy-Stockfish renderers are as unambiguous as the official one.
    use super::*;
    use crate::describe::describe;
    use crate::read::{read_move, ReadOptions, Tier};
    use chuhe_rules::xiangqi::Position;

    fn text(prefix: [char; 2], d: &Desc) -> String {
        wxf(prefix, d, false).as_slice().iter().collect()
    }

    fn check(pos: &Position) {
        let legal = pos.legal_moves();
        for &m in &legal {
            let d = describe(pos, m).expect("legal move has a piece");
            let other_same = other_makes_same_move(&legal, &d);
            let xq = text(xqbase_prefixes(&d, true).0, &d);
            let fsf = text(fsf_prefix(&d, false, other_same), &d).replace('.', "=");
            for (dialect, t) in [(Dialect::XqBase, &xq), (Dialect::FairyStockfish, &fsf)] {
                let opts = ReadOptions {
                    dialect: Some(dialect),
                    ..ReadOptions::default()
                };
                let got = read_move(pos, t, opts).map(|r| (r.mv, r.tier));
                assert_eq!(got, Ok((m, Tier::Standard)), "{pos} {m} {dialect:?} {t}");
            }
            // `=` selects the Fairy-Stockfish spelling without a hint.
            if fsf.contains('=') {
                let got = read_move(pos, &fsf, ReadOptions::default()).map(|r| r.mv);
                assert_eq!(got, Ok(m), "{pos} {m} {fsf}");
            }
        }
    }

    #[test]
    fn dialects_round_trip() {
        let fens = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "3k5/9/2P3P2/2P3P2/2P6/9/9/9/9/4K4 w",
            "3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w",
            "2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w",
            "4k4/9/9/9/9/2p3p2/2p3p2/9/9/3K5 b",
            "4k4/9/9/2p6/2p6/2p3p2/6p2/9/9/3K5 b",
            "3kna3/4a2C1/P3b4/1R2Pr3/4n1p1p/2pr4P/2P3P2/6N1B/R8/1NBAKA3 b",
            "3k5/9/9/7R1/9/9/7R1/9/9/4K4 w",
            "2b1k4/4a4/4b4/2c6/2c2N3/5N3/9/4B4/4A4/3AK1B2 w",
            "2b1k4/4a4/4b4/2c6/2c2N3/5N3/9/4B4/4A4/3AK1B2 b",
        ];
        for fen in fens {
            check(&Position::from_fen(fen).expect("valid"));
        }
        // Positions along pseudo-random playouts (a fixed linear congruential sequence).
        let mut seed = 0x2545_f491_u64;
        for _ in 0..8 {
            let mut pos = Position::start();
            for _ in 0..150 {
                check(&pos);
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
    }
}
