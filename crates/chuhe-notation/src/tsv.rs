//! The TSV layout of `data/games.tsv`: one game per row, tab-separated, one header line, no
//! quoting (a field may begin with `"`), moves in ICCS separated by single spaces.
//!
//! Reading needs the `id` column, the start position in `start_fen` (or `fen`, as in
//! `data/positions.tsv`) and the moves in `moves` (or `solution`). Writing produces the 16
//! columns of `games.tsv`, recomputing the derived ones (`termination`, `plies`, `rep3_ply`,
//! `nocap120_ply`) from the replayed game.

use crate::record::{GameRecord, MoveText};
use crate::replay::Replayed;
use std::collections::HashMap;
use std::fmt;

/// The columns written, in order (those of `data/games.tsv`).
pub const COLUMNS: [&str; 16] = [
    "id",
    "source",
    "category",
    "result",
    "termination",
    "plies",
    "start_fen",
    "moves",
    "rep3_ply",
    "nocap120_ply",
    "date",
    "ecco",
    "red",
    "black",
    "event",
    "source_ref",
];

/// TSV column → record tag name, for the columns that have a PGN meaning.
const TAG_OF: [(&str, &str); 11] = [
    ("source", "Source"),
    ("category", "Category"),
    ("result", "Result"),
    ("date", "Date"),
    ("ecco", "ECCO"),
    ("red", "Red"),
    ("black", "Black"),
    ("event", "Event"),
    ("source_ref", "SourceRef"),
    ("start_fen", "FEN"),
    ("fen", "FEN"),
];

/// Columns recomputed on writing, not kept as tags.
const DERIVED: [&str; 4] = ["termination", "plies", "rep3_ply", "nocap120_ply"];

/// A TSV text without the columns a game needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderError {
    /// The missing column (`id`, `start_fen`, or `moves`).
    pub missing: &'static str,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a games TSV: the header has no {} column",
            self.missing
        )
    }
}

impl std::error::Error for HeaderError {}

/// Whether a text looks like a games TSV: a first line with tabs naming an `id` column.
pub fn looks_like_tsv(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    first.contains('\t') && first.split('\t').any(|c| c.trim() == "id")
}

/// Reads every row of a games TSV. Empty lines are skipped; a short row has empty fields.
///
/// ```
/// let text = "id\tstart_fen\tmoves\tred\nx1\t\th2e2 h9g7\talice\n";
/// let games = chuhe_notation::tsv::read(text).unwrap();
/// assert_eq!(games[0].id, "x1");
/// assert_eq!(games[0].moves.len(), 2);
/// assert_eq!(games[0].tag("Red"), Some("alice"));
/// ```
///
/// # Errors
/// [`HeaderError`] when the header lacks `id`, a start column or a moves column.
pub fn read(text: &str) -> Result<Vec<GameRecord>, HeaderError> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split('\t')
        .map(str::trim)
        .collect();
    let find = |names: &[&str]| header.iter().position(|h| names.contains(h));
    let id = find(&["id"]).ok_or(HeaderError { missing: "id" })?;
    find(&["start_fen", "fen"]).ok_or(HeaderError {
        missing: "start_fen",
    })?;
    let moves = find(&["moves", "solution"]).ok_or(HeaderError { missing: "moves" })?;
    let mut games = Vec::new();
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |i: usize| fields.get(i).copied().unwrap_or("");
        let mut rec = GameRecord::new(field(id));
        for (i, name) in header.iter().enumerate() {
            if i == id || i == moves || DERIVED.contains(name) || name.is_empty() {
                continue;
            }
            let tag = TAG_OF
                .iter()
                .find(|(c, _)| c == name)
                .map_or(*name, |(_, t)| *t);
            let value = field(i);
            if !value.is_empty() {
                rec.tags.push((tag.to_owned(), value.to_owned()));
            }
        }
        rec.moves = field(moves)
            .split_whitespace()
            .map(|t| MoveText {
                text: t.to_owned(),
                comment: None,
            })
            .collect();
        games.push(rec);
    }
    Ok(games)
}

/// What `games.tsv` derives from a replayed game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    /// The ply at which some position (board and side to move) first occurs for the third time.
    pub rep3_ply: Option<usize>,
    /// The ply at which the plies without capture (counted from the start FEN's `halfmove`)
    /// reach 120.
    pub nocap120_ply: Option<usize>,
    /// Whether the final position has been on the board at least three times.
    pub final_repeated: bool,
}

/// Computes [`Derived`] for a replayed game.
pub fn derive(replayed: &Replayed) -> Derived {
    let mut pos = replayed.start.clone();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    seen.insert(pos.key(), 1);
    let mut rep3_ply = None;
    let mut nocap120_ply = (pos.halfmove() >= 120).then_some(0);
    for (i, &m) in replayed.moves.iter().enumerate() {
        pos.play_unchecked(m);
        let n = seen.entry(pos.key()).or_insert(0);
        *n += 1;
        if *n >= 3 && rep3_ply.is_none() {
            rep3_ply = Some(i + 1);
        }
        if pos.halfmove() >= 120 && nocap120_ply.is_none() {
            nocap120_ply = Some(i + 1);
        }
    }
    Derived {
        rep3_ply,
        nocap120_ply,
        final_repeated: seen.get(&pos.key()).is_some_and(|&n| n >= 3),
    }
}

fn clean(value: &str) -> String {
    value
        .chars()
        .map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The header line, with its newline.
pub fn header() -> String {
    let mut s = COLUMNS.join("\t");
    s.push('\n');
    s
}

/// Appends one row (with its newline) for a replayed game.
pub fn write_row(out: &mut String, record: &GameRecord, replayed: &Replayed) {
    let d = derive(replayed);
    let tag = |name: &str| clean(record.tag(name).unwrap_or(""));
    let result = match record.result() {
        "*" => "unknown",
        r => r,
    };
    let termination = match &replayed.board_end {
        Some(o) => o.reason.as_str(),
        None if d.final_repeated => "repetition",
        None => "unknown",
    };
    let moves: Vec<String> = replayed.moves.iter().map(|m| m.to_string()).collect();
    let opt = |p: Option<usize>| p.map_or(String::new(), |p| p.to_string());
    let row = [
        clean(&record.id),
        tag("Source"),
        tag("Category"),
        result.to_owned(),
        termination.to_owned(),
        replayed.moves.len().to_string(),
        replayed.start.to_string(),
        moves.join(" "),
        opt(d.rep3_ply),
        opt(d.nocap120_ply),
        tag("Date"),
        tag("ECCO"),
        clean(
            record
                .tag("Red")
                .or_else(|| record.tag("White"))
                .unwrap_or(""),
        ),
        tag("Black"),
        tag("Event"),
        tag("SourceRef"),
    ];
    out.push_str(&row.join("\t"));
    out.push('\n');
}
