//! DhtmlXQ import (dpxq.com "UBB" blocks, `spec/notation.md` §9).
//!
//! A record is a `[DhtmlXQ] … [/DhtmlXQ]` block of `[DhtmlXQ_<name>]value[/DhtmlXQ_<name>]`
//! fields. Squares are two digits `x y`: `x` the file index 0–8, `y` = 9 − rank.

use crate::record::{GameRecord, MoveText};
use chuhe_rules::xiangqi::{Color, Kind, Piece, Setup, Square};

/// The standard start in `binit` form.
pub const START_BINIT: &str = "0919293949596979891777062646668600102030405060708012720323436383";

/// The kinds of the 16 slots of one side in `binit`.
const SLOTS: [Kind; 16] = [
    Kind::Chariot,
    Kind::Horse,
    Kind::Elephant,
    Kind::Advisor,
    Kind::General,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Horse,
    Kind::Chariot,
    Kind::Cannon,
    Kind::Cannon,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
];

/// The square of two DhtmlXQ digits, or `None` when they are not `x` 0–8 and `y` 0–9.
fn square(x: u8, y: u8) -> Option<Square> {
    if !x.is_ascii_digit() || !y.is_ascii_digit() {
        return None;
    }
    Square::from_coords((x - b'0') as i32, 9 - (y - b'0') as i32)
}

/// The fields of one block: name (lower case) and value, in order.
fn fields(block: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = block;
    while let Some(open) = find_ci(rest, "[dhtmlxq_") {
        let after = &rest[open + 9..];
        let Some(close) = after.find(']') else {
            break;
        };
        let name = after[..close].to_ascii_lowercase();
        let body = &after[close + 1..];
        let end_tag = format!("[/dhtmlxq_{name}]");
        let (value, next) = match find_ci(body, &end_tag) {
            Some(e) => (&body[..e], &body[e + end_tag.len()..]),
            None => (body, ""),
        };
        out.push((name, value.to_owned()));
        rest = next;
    }
    out
}

/// Byte offset of `needle` (ASCII, lower case) in `hay`, ignoring ASCII case.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    hay.char_indices().map(|(i, _)| i).find(|&i| {
        hay.get(i..i + n)
            .is_some_and(|s| s.eq_ignore_ascii_case(needle))
    })
}

fn result_of(value: &str) -> &'static str {
    match value.trim() {
        "红胜" | "紅勝" | "1-0" => "1-0",
        "黑胜" | "黑勝" | "0-1" => "0-1",
        "和棋" | "1/2-1/2" => "1/2-1/2",
        _ => "*",
    }
}

/// Builds the start FEN from `binit` and the first move's origin, or says what is wrong.
fn start_fen(binit: &str, first_from: Option<Square>) -> Result<String, String> {
    let b = binit.trim().as_bytes();
    if b.len() != 64 {
        return Err(format!(
            "binit has {} characters, expected 64 (32 two-digit squares)",
            b.len()
        ));
    }
    let mut setup = Setup::empty();
    for slot in 0..32 {
        let (x, y) = (b[2 * slot], b[2 * slot + 1]);
        if x == b'9' && y == b'9' {
            continue;
        }
        let sq = square(x, y).ok_or_else(|| {
            format!(
                "binit slot {} is not a square: {:?}",
                slot + 1,
                String::from_utf8_lossy(&[x, y])
            )
        })?;
        let color = if slot < 16 { Color::Red } else { Color::Black };
        if setup.board[sq.index()].is_some() {
            return Err(format!("binit puts two pieces on {sq}"));
        }
        setup.board[sq.index()] = Some(Piece::new(color, SLOTS[slot % 16]));
    }
    if let Some(p) = first_from.and_then(|sq| setup.board[sq.index()]) {
        setup.side = p.color;
    }
    Ok(setup.to_string())
}

/// Reads every `[DhtmlXQ]` block of a text; blocks are numbered from 1 in [`GameRecord::id`].
/// Moves become ICCS texts (`7747` → `h2e2`); a malformed move stays as its four characters and
/// fails when the game is replayed; a malformed `binit` is the record's
/// [`GameRecord::problem`].
///
/// ```
/// let text = "[DhtmlXQ][DhtmlXQ_red]a[/DhtmlXQ_red][DhtmlXQ_result]红胜[/DhtmlXQ_result]\
///             [DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][/DhtmlXQ]";
/// let games = chuhe_notation::dhtmlxq::read(text);
/// assert_eq!(games[0].moves[0].text, "h2e2");
/// assert_eq!(games[0].moves[1].text, "h9g7");
/// assert_eq!(games[0].result(), "1-0");
/// ```
pub fn read(text: &str) -> Vec<GameRecord> {
    let mut games = Vec::new();
    let mut rest = text;
    while let Some(open) = find_ci(rest, "[dhtmlxq]") {
        let body = &rest[open + 9..];
        let (block, next) = match find_ci(body, "[/dhtmlxq]") {
            Some(e) => (&body[..e], &body[e + 10..]),
            None => (body, ""),
        };
        rest = next;
        let mut rec = GameRecord::new((games.len() + 1).to_string());
        let fields = fields(block);
        let get = |name: &str| {
            fields
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.trim())
                .filter(|v| !v.is_empty())
        };
        // Moves.
        let list: Vec<char> = get("movelist")
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let mut first_from = None;
        for (i, chunk) in list.chunks(4).enumerate() {
            let bytes: Vec<u8> = chunk.iter().map(|&c| c as u32 as u8).collect();
            let squares = (chunk.len() == 4 && chunk.iter().all(char::is_ascii_digit))
                .then(|| square(bytes[0], bytes[1]).zip(square(bytes[2], bytes[3])))
                .flatten();
            let text = match squares {
                Some((from, to)) => {
                    if i == 0 {
                        first_from = Some(from);
                    }
                    format!("{from}{to}")
                }
                None => chunk.iter().collect(),
            };
            rec.moves.push(MoveText {
                text,
                comment: None,
            });
        }
        if let Some(binit) = get("binit") {
            match start_fen(binit, first_from) {
                Ok(fen) => rec.tags.push(("FEN".into(), fen)),
                Err(e) => rec.problem = Some(e),
            }
        }
        // Tags.
        let event = get("event").or_else(|| get("title"));
        let pairs: [(&str, Option<&str>); 10] = [
            ("Event", event),
            ("Site", get("place")),
            ("Date", get("date")),
            ("Round", get("round")),
            ("Red", get("red").or_else(|| get("redname"))),
            ("Black", get("black").or_else(|| get("blackname"))),
            ("RedTeam", get("redteam")),
            ("BlackTeam", get("blackteam")),
            ("RedElo", get("redelo").or_else(|| get("redrating"))),
            ("BlackElo", get("blackelo").or_else(|| get("blackrating"))),
        ];
        for (name, value) in pairs {
            if let Some(v) = value {
                rec.tags.push((name.into(), v.to_owned()));
            }
        }
        rec.tags.push((
            "Result".into(),
            result_of(get("result").unwrap_or("")).into(),
        ));
        // Comments: comment<ply>, `||` = newline.
        for (name, value) in &fields {
            let Some(ply) = name
                .strip_prefix("comment")
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            let text = value.replace("||", "\n");
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            if ply == 0 {
                rec.comment = Some(text.to_owned());
            } else if let Some(m) = rec.moves.get_mut(ply - 1) {
                m.comment = Some(text.to_owned());
            }
        }
        games.push(rec);
    }
    games
}
