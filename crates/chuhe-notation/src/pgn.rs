//! XQ PGN (`spec/notation.md` §8): read any number of games from a text, and write the export
//! form exactly.

use crate::record::{pgn_date, GameRecord, MoveText};
use crate::replay::Replayed;
use crate::write::{write_chinese, write_iccs_hyphen, write_wxf, ChineseStyle, Notation};
use chuhe_rules::outcome::EndReason;
use chuhe_rules::xiangqi::{Color, Position, START_FEN};
use std::fmt::Write as _;

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Reads one tag line (`[Name "value"]`, possibly several on the line) into the record.
fn read_tags(line: &str, record: &mut GameRecord) {
    let mut rest = line.trim();
    while let Some(body) = rest.strip_prefix('[') {
        let body = body.trim_start();
        let name_len = body
            .find(|c: char| c.is_whitespace() || c == '"' || c == ']')
            .unwrap_or(body.len());
        let name = &body[..name_len];
        let after = body[name_len..].trim_start();
        let (value, remainder) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            value.push(n);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    _ => value.push(c),
                }
            }
            let tail = &quoted[end..];
            let tail = tail.find(']').map_or("", |i| &tail[i + 1..]);
            (value, tail)
        } else {
            let close = after.find(']').unwrap_or(after.len());
            (
                after[..close].trim().to_owned(),
                after.get(close + 1..).unwrap_or(""),
            )
        };
        if !name.is_empty() {
            record.tags.push((name.to_owned(), value));
        }
        rest = remainder.trim_start();
    }
}

/// Strips a move number glued to a token (`1.炮二平五`, `12...`); `None` when nothing but the
/// number is left. A lone digit after the dots is not a move, so `77.6` stays a move (WXF).
fn strip_move_number(token: &str) -> Option<&str> {
    let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after_digits = &token[digits..];
    let rest = after_digits.trim_start_matches(['.', '。', '．']);
    if rest.len() == after_digits.len() {
        // No dots after the digits (or no digits): not a move number.
        return if token.chars().all(|c| matches!(c, '.' | '。' | '．')) {
            None
        } else {
            Some(token)
        };
    }
    match rest.chars().count() {
        0 => None,
        1 => Some(token),
        _ => Some(rest),
    }
}

/// Handles one movetext token; returns `true` when it is a result (the game ends).
fn token(tok: &str, record: &mut GameRecord) -> bool {
    if is_result(tok) {
        if record.tag("Result").is_none() {
            record.set_tag("Result", tok);
        }
        return true;
    }
    if tok.starts_with('$') {
        return false; // NAG
    }
    let Some(tok) = strip_move_number(tok) else {
        return false;
    };
    let tok = tok.trim_end_matches(['!', '?', '+', '#']);
    if tok.is_empty() {
        return false;
    }
    record.moves.push(MoveText {
        text: tok.to_owned(),
        comment: None,
    });
    false
}

/// Reads every game of a PGN text (`spec/notation.md` §8.1). Never fails: what cannot be a tag or
/// a comment is a move text, checked when the game is replayed. Games are numbered from 1 in
/// [`GameRecord::id`].
///
/// ```
/// let games = chuhe_notation::pgn::read("[Red \"a\"]\n\n1. 炮二平五 {centre} (1. 相三进五) 马8进7 1-0\n");
/// assert_eq!(games.len(), 1);
/// assert_eq!(games[0].tag("Red"), Some("a"));
/// assert_eq!(games[0].moves.len(), 2);
/// assert_eq!(games[0].moves[0].comment.as_deref(), Some("centre"));
/// assert_eq!(games[0].result(), "1-0");
/// ```
pub fn read(text: &str) -> Vec<GameRecord> {
    let mut games = Vec::new();
    let mut cur = GameRecord::new("1");
    let mut in_movetext = false;
    let mut skipping = false; // after a result, up to the next tag line
    let push = |games: &mut Vec<GameRecord>, cur: &mut GameRecord| {
        if !cur.tags.is_empty() || !cur.moves.is_empty() || cur.comment.is_some() {
            let next = (games.len() + 2).to_string();
            games.push(std::mem::replace(cur, GameRecord::new(next)));
        }
    };
    let mut rest = text;
    while !rest.is_empty() {
        // Tag lines: '[' first on a line, outside comments and variations.
        let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = &rest[..line_end];
        if line.trim_start().starts_with('[') {
            if in_movetext || skipping {
                push(&mut games, &mut cur);
                in_movetext = false;
                skipping = false;
            }
            read_tags(line, &mut cur);
            rest = &rest[line_end..];
            continue;
        }
        if skipping {
            rest = &rest[line_end..];
            continue;
        }
        // Movetext: scan this line, but comments and variations may run over many lines.
        let mut chars = rest.char_indices().peekable();
        let mut consumed = rest.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\n' => {
                    consumed = i + 1;
                    break;
                }
                c if c.is_whitespace() => {}
                '{' => {
                    let body = &rest[i + 1..];
                    let close = body.find('}').unwrap_or(body.len());
                    cur.add_comment(&body[..close]);
                    in_movetext = true;
                    let skip_to = i + 1 + close + 1;
                    while chars.peek().is_some_and(|&(j, _)| j < skip_to) {
                        chars.next();
                    }
                }
                ';' => {
                    let body = &rest[i + 1..];
                    let close = body.find('\n').unwrap_or(body.len());
                    cur.add_comment(&body[..close]);
                    in_movetext = true;
                    let skip_to = i + 1 + close;
                    while chars.peek().is_some_and(|&(j, _)| j < skip_to) {
                        chars.next();
                    }
                }
                '(' => {
                    // A variation, nested, skipped with its comments.
                    let mut depth = 1usize;
                    while let Some((_, c)) = chars.next() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            '{' => {
                                for (_, c) in chars.by_ref() {
                                    if c == '}' {
                                        break;
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                ')' | '}' => {}
                _ => {
                    let body = &rest[i..];
                    let len = body
                        .find(|c: char| c.is_whitespace() || matches!(c, '{' | '(' | ';' | ')'))
                        .unwrap_or(body.len());
                    in_movetext = true;
                    if token(&body[..len], &mut cur) {
                        skipping = true;
                        push(&mut games, &mut cur);
                        in_movetext = false;
                    }
                    while chars.peek().is_some_and(|&(j, _)| j < i + len) {
                        chars.next();
                    }
                    if skipping {
                        // Ignore the rest of this line too.
                        let nl = rest[i..].find('\n').map_or(rest.len(), |n| i + n + 1);
                        consumed = nl;
                        break;
                    }
                }
            }
        }
        rest = &rest[consumed.min(rest.len())..];
    }
    push(&mut games, &mut cur);
    games
}

/// How to write PGN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteOptions {
    /// The notation of the moves (ICCS is written `H2-E2`, XBoard's form `h2e2`).
    pub notation: Notation,
    /// Chinese characters and digits.
    pub style: ChineseStyle,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            notation: Notation::Chinese,
            style: ChineseStyle::default(),
        }
    }
}

fn tag_line(out: &mut String, name: &str, value: &str) {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    let escaped: String = escaped
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let _ = writeln!(out, "[{name} \"{escaped}\"]");
}

fn comment_text(c: &str) -> String {
    c.chars()
        .map(|c| match c {
            '}' => ')',
            '{' => '(',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// The termination word written for a finished game: checkmate or stalemate from the board, else
/// the record's own `Termination` when it is a word of the vocabulary.
fn termination(record: &GameRecord, replayed: &Replayed) -> Option<&'static str> {
    if let Some(o) = &replayed.board_end {
        return Some(o.reason.as_str());
    }
    record
        .tag("Termination")
        .and_then(|t| t.trim().parse::<EndReason>().ok())
        .map(EndReason::as_str)
}

/// Appends one game in the export form of `spec/notation.md` §8.2 (tags, empty line, one full
/// move per line, the result alone on the last line, then an empty line separating it from the
/// next game is left to the caller).
///
/// The result is the record's (`*` when unknown), or the board's when the record has none and
/// the final board is checkmate or stalemate.
pub fn write(out: &mut String, record: &GameRecord, replayed: &Replayed, options: WriteOptions) {
    let known = |name: &str, default: &str| -> String {
        record
            .tag(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .unwrap_or(default)
            .to_owned()
    };
    let mut result = record.result();
    if result == "*" {
        if let Some(r) = replayed.board_end.as_ref().and_then(|o| o.result_text()) {
            result = r;
        }
    }
    let red = record
        .tag("Red")
        .or_else(|| record.tag("White"))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or("?");
    tag_line(out, "Game", "Chinese Chess");
    tag_line(out, "Event", &known("Event", "?"));
    tag_line(out, "Site", &known("Site", "?"));
    tag_line(out, "Date", &pgn_date(record.tag("Date").unwrap_or("")));
    tag_line(out, "Round", &known("Round", "-"));
    tag_line(out, "Red", red);
    tag_line(out, "Black", &known("Black", "?"));
    tag_line(out, "Result", result);
    for name in ["RedElo", "BlackElo", "TimeControl"] {
        if let Some(v) = record.tag(name).map(str::trim).filter(|v| !v.is_empty()) {
            tag_line(out, name, v);
        }
    }
    if result != "*" {
        if let Some(t) = termination(record, replayed) {
            tag_line(out, "Termination", t);
        }
    }
    let fen = replayed.start.to_string();
    if fen != START_FEN {
        tag_line(out, "FEN", &fen);
    }
    match options.notation {
        Notation::Wxf => tag_line(out, "Format", "WXF"),
        Notation::Iccs => tag_line(out, "Format", "ICCS"),
        Notation::Xboard => tag_line(out, "Variant", "xiangqi"),
        Notation::Chinese => {}
    }
    out.push('\n');
    if let Some(c) = &record.comment {
        let _ = writeln!(out, "{{{}}}", comment_text(c));
    }
    let mut pos: Position = replayed.start.clone();
    let mut number = pos.fullmove();
    let mut line_open = false;
    for (i, &m) in replayed.moves.iter().enumerate() {
        let text = match options.notation {
            Notation::Iccs => Ok(write_iccs_hyphen(m)),
            Notation::Xboard => Ok(m.to_string()),
            Notation::Wxf => write_wxf(&pos, m),
            Notation::Chinese => write_chinese(&pos, m, options.style),
        }
        .unwrap_or_else(|_| m.to_string());
        match pos.side_to_move() {
            Color::Red => {
                let _ = write!(out, "{number}. {text}");
                line_open = true;
            }
            Color::Black => {
                if line_open {
                    let _ = write!(out, " {text}");
                } else {
                    let _ = write!(out, "{number}... {text}");
                }
            }
        }
        if let Some(c) = record.moves.get(i).and_then(|mt| mt.comment.as_deref()) {
            let _ = write!(out, " {{{}}}", comment_text(c));
        }
        if pos.side_to_move() == Color::Black {
            out.push('\n');
            line_open = false;
            number = number.wrapping_add(1);
        }
        pos.play_unchecked(m);
    }
    if line_open {
        out.push('\n');
    }
    out.push_str(result);
    out.push('\n');
}

/// Writes many games, separated by empty lines, ending with a newline.
pub fn write_all<'a>(
    games: impl IntoIterator<Item = (&'a GameRecord, &'a Replayed)>,
    options: WriteOptions,
) -> String {
    let mut out = String::new();
    for (i, (record, replayed)) in games.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write(&mut out, record, replayed, options);
    }
    out
}
