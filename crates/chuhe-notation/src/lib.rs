//! Notation and game records for standard xiangqi (`spec/notation.md`).
//!
//! - Moves: ICCS coordinates ([`write_iccs`], ranks 0–9, or 1–10 on request), WXF official
//!   ([`write_wxf`]) and Chinese ([`write_chinese`]) out; [`read_move`] reads all of them and the
//!   common dialects, by parsing the syntax and then matching against the legal moves, with
//!   separate errors for invalid, illegal and ambiguous text; also SAN as XBoard,
//!   Fairy-Stockfish and pychess write it ([`san`]: `Hc7`, `Che3`, `c4`).
//! - Records: [`record::GameRecord`] (tags and move texts), read from PGN ([`pgn::read`]),
//!   DhtmlXQ ([`dhtmlxq::read`]) and the TSV layout of `data/games.tsv` ([`tsv::read`]); replayed
//!   by [`replay::replay`]; written as PGN ([`pgn::write`]) and TSV ([`tsv::write_row`]).
//! - Sanguo and banqi records ([`table_record`]): PGN-style tags and each game's own move
//!   notation, replayed with `chuhe-rules`.
//!
//! ```
//! use chuhe_notation::{read_move, write_chinese, write_wxf, ChineseStyle, ReadOptions};
//! use chuhe_rules::xiangqi::Position;
//! let pos = Position::start();
//! let m = read_move(&pos, "C2.5", ReadOptions::default()).unwrap().mv;
//! assert_eq!(m.to_string(), "h2e2");
//! assert_eq!(write_wxf(&pos, m).unwrap(), "C2.5");
//! assert_eq!(write_chinese(&pos, m, ChineseStyle::default()).unwrap(), "炮二平五");
//! ```
#![deny(missing_docs)]

mod describe;
pub mod dhtmlxq;
pub mod pgn;
mod read;
pub mod record;
pub mod replay;
pub mod san;
mod spell;
pub mod table_record;
pub mod tsv;
mod write;

pub use read::{read_move, ReadError, ReadErrorKind, ReadMove, ReadOptions, Tier};
pub use spell::Dialect;
pub use write::{
    write_chinese, write_iccs, write_iccs_hyphen, write_move, write_wxf, ChineseStyle, Notation,
    RankBase, WriteError,
};

/// The record file formats chuhe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordFormat {
    /// XQ PGN (`spec/notation.md` §8).
    Pgn,
    /// DhtmlXQ blocks (§9).
    DhtmlXq,
    /// The TSV layout of `data/games.tsv`.
    Tsv,
}

/// Detects a record text's format: a TSV header with an `id` column, a `[DhtmlXQ]` block, or
/// else PGN.
///
/// ```
/// use chuhe_notation::{detect_format, RecordFormat};
/// assert_eq!(detect_format("id\tstart_fen\tmoves\n"), RecordFormat::Tsv);
/// assert_eq!(detect_format("[DhtmlXQ][/DhtmlXQ]"), RecordFormat::DhtmlXq);
/// assert_eq!(detect_format("[Event \"x\"]\n1. h2e2 *"), RecordFormat::Pgn);
/// ```
pub fn detect_format(text: &str) -> RecordFormat {
    if tsv::looks_like_tsv(text) {
        RecordFormat::Tsv
    } else if text
        .as_bytes()
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"[dhtmlxq]"))
    {
        RecordFormat::DhtmlXq
    } else {
        RecordFormat::Pgn
    }
}

/// Reads every game of a record text in the detected format.
///
/// # Errors
/// A TSV text whose header lacks a needed column.
pub fn read_records(text: &str) -> Result<Vec<record::GameRecord>, tsv::HeaderError> {
    match detect_format(text) {
        RecordFormat::Tsv => tsv::read(text),
        RecordFormat::DhtmlXq => Ok(dhtmlxq::read(text)),
        RecordFormat::Pgn => Ok(pgn::read(text)),
    }
}
