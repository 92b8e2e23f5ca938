//! A game record as read from a file: tags and move texts, not yet checked against the rules
//! (parse → validate → play: [`crate::replay::replay`] does the rest).

/// One move as written in the record, with the comment that follows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MoveText {
    /// The move's text as found (`炮二平五`, `C2.5`, `h2e2`, …), check marks and NAGs removed.
    pub text: String,
    /// The comment after the move, if any (several comments are joined with a space).
    pub comment: Option<String>,
}

/// One game of a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameRecord {
    /// The game's id: the TSV `id` column, or its number in the file (1-based) for PGN and
    /// DhtmlXQ.
    pub id: String,
    /// Tags in the order found, with PGN names (`Event`, `Red`, `FEN`, `Format`, …). TSV columns
    /// are mapped to PGN names (`result` → `Result`, `start_fen` → `FEN`, `ecco` → `ECCO`, …).
    pub tags: Vec<(String, String)>,
    /// A comment before the first move.
    pub comment: Option<String>,
    /// The moves in order.
    pub moves: Vec<MoveText>,
    /// A problem found while reading the record itself (not a move), such as a malformed
    /// DhtmlXQ `binit`; replaying reports it at ply 0.
    pub problem: Option<String>,
}

impl GameRecord {
    /// An empty record with this id.
    pub fn new(id: impl Into<String>) -> GameRecord {
        GameRecord {
            id: id.into(),
            ..GameRecord::default()
        }
    }

    /// The value of a tag (names compared ignoring ASCII case); the first one when repeated.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag, replacing the first one of that name or adding it at the end.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self
            .tags
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1 = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }

    /// Adds a comment after the last move, or before the first move when there is none yet.
    pub fn add_comment(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let slot = match self.moves.last_mut() {
            Some(m) => &mut m.comment,
            None => &mut self.comment,
        };
        match slot {
            Some(c) => {
                c.push(' ');
                c.push_str(text);
            }
            None => *slot = Some(text.to_owned()),
        }
    }

    /// The recorded result as a PGN result: `1-0`, `0-1`, `1/2-1/2`, or `*` for anything else
    /// (absent, `unknown`, …).
    pub fn result(&self) -> &'static str {
        match self.tag("Result").map(str::trim) {
            Some("1-0") => "1-0",
            Some("0-1") => "0-1",
            Some("1/2-1/2") => "1/2-1/2",
            _ => "*",
        }
    }
}

/// A PGN `Date` (`YYYY.MM.DD`, `??` for unknown parts) from a date in any of the common forms:
/// `2000-01-01`, `19800825`, `1995.7.18`, `2001年9月15日`, `10/13/1996`, `13-5-2001`, a bare year,
/// with a time after it, or already `1990.??.??`. Unreadable text gives `????.??.??`. Ambiguous
/// day/month orders are read month first with `/` (`3/4/1990` = March 4) and day first otherwise
/// (`3-4-1990` = 3 April), as most such dates in `data/games.tsv` are.
///
/// ```
/// use chuhe_notation::record::pgn_date;
/// assert_eq!(pgn_date("2001年9月15日"), "2001.09.15");
/// assert_eq!(pgn_date("10/13/1996"), "1996.10.13");
/// assert_eq!(pgn_date("19800825"), "1980.08.25");
/// assert_eq!(pgn_date("1995"), "1995.??.??");
/// assert_eq!(pgn_date("2003-05-17 14:3"), "2003.05.17");
/// assert_eq!(pgn_date("3-4-1990"), "1990.04.03");
/// assert_eq!(pgn_date("3/4/1990"), "1990.03.04");
/// assert_eq!(pgn_date("20011012-14：30"), "2001.10.12");
/// assert_eq!(pgn_date("yesterday"), "????.??.??");
/// ```
pub fn pgn_date(text: &str) -> String {
    let groups: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit() && c != '?')
        .filter(|g| !g.is_empty())
        .collect();
    let num = |g: &str| g.parse::<u32>().ok();
    let year = |g: &str| {
        (g.len() == 4)
            .then(|| num(g))
            .flatten()
            .filter(|y| *y >= 1000)
    };
    // Day first for `13-5-2001`-like dates, month first for `10/13/1996`-like ones, unless the
    // numbers say otherwise (a first number above 12 is a day, a second one a day too).
    let month_first = text.contains('/');
    let (y, m, d) = match groups.as_slice() {
        [g, ..] if g.len() == 8 && g.bytes().all(|b| b.is_ascii_digit()) => {
            (num(&g[..4]), num(&g[4..6]), num(&g[6..]))
        }
        [g] => (year(g), None, None),
        [a, b] if year(a).is_some() => (year(a), num(b), None),
        // Year first; anything after the day (a time, a second day) is ignored.
        [a, b, c, ..] if year(a).is_some() => (year(a), num(b), num(c)),
        [a, b, c] if year(c).is_some() => match (num(a), num(b)) {
            (Some(x), Some(z)) if x > 12 && z <= 12 => (year(c), Some(z), Some(x)),
            (Some(x), Some(z)) if z > 12 && x <= 12 => (year(c), Some(x), Some(z)),
            (x, z) if month_first => (year(c), x, z),
            (x, z) => (year(c), z, x),
        },
        _ => (None, None, None),
    };
    let m = m.filter(|m| (1..=12).contains(m));
    let d = d.filter(|d| (1..=31).contains(d));
    let y = y.filter(|y| (1000..=9999).contains(y));
    format!(
        "{}.{}.{}",
        y.map_or("????".to_owned(), |y| y.to_string()),
        m.map_or("??".to_owned(), |m| format!("{m:02}")),
        d.map_or("??".to_owned(), |d| format!("{d:02}"))
    )
}

/// How the bytes of a record file are decoded (`spec/notation.md` §8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Encoding {
    /// UTF-8 (a byte-order mark is dropped); GB18030 when the bytes are not valid UTF-8.
    #[default]
    Auto,
    /// Big5, only when the caller says so.
    Big5,
}

/// Decodes a record file's bytes to text; never fails (undecodable bytes become U+FFFD).
///
/// ```
/// use chuhe_notation::record::{decode, Encoding};
/// // 炮二平五 in GB18030.
/// let gb = [0xc5, 0xda, 0xb6, 0xfe, 0xc6, 0xbd, 0xce, 0xe5];
/// assert_eq!(decode(&gb, Encoding::Auto), "炮二平五");
/// assert_eq!(decode("\u{feff}[Event \"x\"]".as_bytes(), Encoding::Auto), "[Event \"x\"]");
/// ```
pub fn decode(bytes: &[u8], encoding: Encoding) -> String {
    match encoding {
        Encoding::Big5 => encoding_rs::BIG5
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
        Encoding::Auto => {
            let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            match std::str::from_utf8(bytes) {
                Ok(s) => s.to_owned(),
                Err(_) => encoding_rs::GB18030
                    .decode_without_bom_handling(bytes)
                    .0
                    .into_owned(),
            }
        }
    }
}
