//! The transposition table: a shared, lock-free table of search results keyed by Zobrist key.
//!
//! Each entry is two `AtomicU64` words: `key ^ data` and `data`, so a torn write by another thread
//! is detected as a key mismatch and ignored. `data` packs, from the low bits: the move (16 bits,
//! `from * 90 + to + 1`, 0 = none), the score (16 bits, signed), the static evaluation (16 bits,
//! signed), the depth (8 bits), the bound (2 bits) and the generation (6 bits).

use chuhe_rules::xiangqi::{Move, Square};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Which side of the true score a stored score is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact (a PV node).
    Exact,
    /// The true score is at least this (a fail-high).
    Lower,
    /// The true score is at most this (a fail-low).
    Upper,
}

/// One probed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The best (or refuting) move found, if any.
    pub mv: Option<Move>,
    /// The score, mate scores relative to the stored node.
    pub score: i32,
    /// The static evaluation of the node.
    pub eval: i32,
    /// The remaining depth the score was searched to, in plies.
    pub depth: i32,
    /// The bound type.
    pub bound: Bound,
}

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 16;

/// The table. Shared between threads through `Arc`.
pub struct Table {
    words: Vec<AtomicU64>,
    mask: usize,
    generation: AtomicU8,
}

fn encode_move(m: Option<Move>) -> u64 {
    m.map_or(0, |m| (m.from.index() * 90 + m.to.index() + 1) as u64)
}

fn decode_move(v: u64) -> Option<Move> {
    if v == 0 {
        return None;
    }
    let i = (v - 1) as usize;
    let from = Square::new((i / 90) as u8)?;
    let to = Square::new((i % 90) as u8)?;
    Some(Move::new(from, to))
}

impl Table {
    /// A table of about `mib` MiB (the largest power-of-two entry count that fits).
    ///
    /// # Errors
    /// `Err(())` when the memory cannot be allocated (or `mib` is 0).
    #[allow(clippy::result_unit_err)]
    pub fn new(mib: usize) -> Result<Table, ()> {
        let bytes = mib.checked_mul(1 << 20).ok_or(())?;
        let entries = bytes / ENTRY_BYTES;
        if entries == 0 {
            return Err(());
        }
        let entries = 1usize << (usize::BITS - 1 - entries.leading_zeros());
        let mut words: Vec<AtomicU64> = Vec::new();
        words.try_reserve_exact(entries * 2).map_err(|_| ())?;
        words.resize_with(entries * 2, || AtomicU64::new(0));
        Ok(Table {
            words,
            mask: entries - 1,
            generation: AtomicU8::new(0),
        })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.mask + 1
    }

    /// Always false: a table has at least one entry.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Empties the table.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search (entries of older searches are replaced first).
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 63, Ordering::Relaxed);
    }

    fn index(&self, key: u64) -> usize {
        (key as usize & self.mask) * 2
    }

    /// The entry for `key`, if stored.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let i = self.index(key);
        let k = self.words[i].load(Ordering::Relaxed);
        let data = self.words[i + 1].load(Ordering::Relaxed);
        if k ^ data != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            mv: decode_move(data & 0xFFFF),
            score: i32::from((data >> 16) as u16 as i16),
            eval: i32::from((data >> 32) as u16 as i16),
            depth: ((data >> 48) & 0xFF) as i32,
            bound,
        })
    }

    /// Stores a result for `key`; replaces the slot when it holds another key from an older
    /// search, a shallower result, or the same key.
    pub fn store(&self, key: u64, entry: Entry) {
        let i = self.index(key);
        let gen = u64::from(self.generation.load(Ordering::Relaxed));
        let old_k = self.words[i].load(Ordering::Relaxed);
        let old = self.words[i + 1].load(Ordering::Relaxed);
        let old_key = old_k ^ old;
        let mut mv = encode_move(entry.mv);
        if old != 0 {
            let old_depth = ((old >> 48) & 0xFF) as i32;
            let old_gen = old >> 58;
            if old_key == key {
                if mv == 0 {
                    mv = old & 0xFFFF;
                }
                if entry.bound != Bound::Exact && entry.depth + 2 < old_depth && old_gen == gen {
                    return;
                }
            } else if old_gen == gen && entry.depth < old_depth && entry.bound != Bound::Exact {
                return;
            }
        }
        let bound = match entry.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let depth = entry.depth.clamp(0, 255) as u64;
        let data = mv
            | u64::from(entry.score.clamp(-32_000, 32_000) as i16 as u16) << 16
            | u64::from(entry.eval.clamp(-32_000, 32_000) as i16 as u16) << 32
            | depth << 48
            | bound << 56
            | gen << 58;
        self.words[i].store(key ^ data, Ordering::Relaxed);
        self.words[i + 1].store(data, Ordering::Relaxed);
    }

    /// Per mille of the first 1000 entries used by the current search (`info hashfull`).
    pub fn hashfull(&self) -> u32 {
        let gen = u64::from(self.generation.load(Ordering::Relaxed));
        let n = self.len().min(1000);
        let used = (0..n)
            .filter(|&e| {
                let d = self.words[e * 2 + 1].load(Ordering::Relaxed);
                d != 0 && d >> 58 == gen
            })
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let t = Table::new(1).unwrap();
        assert_eq!(t.len(), (1 << 20) / ENTRY_BYTES);
        let m: Move = "h2e2".parse().unwrap();
        let e = Entry {
            mv: Some(m),
            score: -29_990,
            eval: 35,
            depth: 7,
            bound: Bound::Lower,
        };
        t.store(0xDEAD_BEEF_0123_4567, e);
        assert_eq!(t.probe(0xDEAD_BEEF_0123_4567), Some(e));
        assert_eq!(t.probe(0xDEAD_BEEF_0123_4568), None);
        t.clear();
        assert_eq!(t.probe(0xDEAD_BEEF_0123_4567), None);
    }

    #[test]
    fn impossible_sizes_fail() {
        assert!(Table::new(0).is_err());
        assert!(Table::new(usize::MAX).is_err());
    }
}
