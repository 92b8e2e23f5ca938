//! PGN-style records of sanguo (Three Kingdoms xiangqi) and banqi (dark chess) games
//! (`docs/records.md`): tags for the variant, its options, the player of each seat, the result
//! and the rule that ended the game; the moves in each game's own record notation (sanguo
//! `Rh3xGb1`, banqi `c2=R` for a flip with the piece it revealed, `c2-c3`, `c2xc3`).
//!
//! ```text
//! [Game "Banqi"]
//! [Variant "banqi"]
//! [Event "chuhe table t1"]
//! [Seat1 "ana"]
//! [Seat2 "chuhe level 3"]
//! [Result "1-0"]
//! [Winners "red"]
//! [Termination "resignation"]
//! [PlyCount "3"]
//!
//! 1. c2=R g3=p
//! 2. a1=C
//! 1-0
//! ```
//!
//! Reading takes the tags and move texts of [`crate::pgn::read`] and replays every move with
//! `chuhe-rules` ([`TableRecord::from_game_record`]): a record whose moves do not play, or whose
//! result disagrees with an ending the rules reached on the board, is refused with the ply and
//! the reason. Endings the rules cannot see (resignation, timeout, abandonment, agreement) are
//! taken from the tags.

use crate::record::GameRecord;
use chuhe_rules::outcome::{EndReason, Outcome, Side};
use chuhe_rules::{banqi, sanguo};
use std::fmt::{self, Write as _};

/// The game of a table record, with its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableVariant {
    /// Three Kingdoms xiangqi; `flag_bearers`: the flag-bearer rule (`spec/sanguo.md`) is on.
    Sanguo {
        /// The flag-bearer rule is on.
        flag_bearers: bool,
    },
    /// Banqi (dark chess).
    Banqi,
}

impl TableVariant {
    /// Seats at the table: 3 for sanguo, 2 for banqi.
    pub const fn seat_count(self) -> usize {
        match self {
            TableVariant::Sanguo { .. } => 3,
            TableVariant::Banqi => 2,
        }
    }

    /// The `Variant` tag's word: `sanguo` or `banqi`.
    pub const fn word(self) -> &'static str {
        match self {
            TableVariant::Sanguo { .. } => "sanguo",
            TableVariant::Banqi => "banqi",
        }
    }
}

/// How a table's game ended: the winners' words (`shu`, `wu`, `wei`; `red`, `black`; `seat1`,
/// `seat2` for a banqi table ending before the first flip; none for a draw or an aborted game)
/// and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOutcome {
    /// The winners, in the order of the rules' outcome.
    pub winners: Vec<String>,
    /// The rule that ended the game.
    pub reason: EndReason,
}

impl TableOutcome {
    /// The outcome of the rules in words.
    pub fn from_outcome(o: &Outcome) -> TableOutcome {
        TableOutcome {
            winners: o.winners.iter().map(|s| s.as_str().to_owned()).collect(),
            reason: o.reason,
        }
    }

    /// The PGN result: `1-0`/`0-1`/`1/2-1/2` when Red alone, Black alone or nobody won a banqi
    /// game (or the first or second seat before colours existed); `*` otherwise (sanguo, aborted).
    fn result(&self, variant: TableVariant) -> &'static str {
        if variant != TableVariant::Banqi || self.reason == EndReason::Aborted {
            return "*";
        }
        match self.winners.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["red"] | ["seat1"] => "1-0",
            ["black"] | ["seat2"] => "0-1",
            [] => "1/2-1/2",
            _ => "*",
        }
    }
}

/// A sanguo or banqi game: variant, free tags, players per seat, moves and outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// The game and its options.
    pub variant: TableVariant,
    /// Other tags, written in order after `Variant` (`Event`, `Site`, `Date`, `TimeControl`…).
    pub tags: Vec<(String, String)>,
    /// The player of each seat (seat 1 first); `?` when unknown.
    pub players: Vec<String>,
    /// The moves as the game records them (sanguo `Rh3xGb1`, banqi `c2=R`, `c2-c3`, `c2xc3`).
    pub moves: Vec<String>,
    /// How the game ended; `None` while unfinished.
    pub outcome: Option<TableOutcome>,
}

/// Why a record is not a playable sanguo or banqi game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecordError {
    /// The ply of the failing move (1-based), 0 for the tags.
    pub ply: usize,
    /// What is wrong, in lower case.
    pub reason: String,
}

impl fmt::Display for TableRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ply == 0 {
            f.write_str(&self.reason)
        } else {
            write!(f, "ply {}: {}", self.ply, self.reason)
        }
    }
}

impl std::error::Error for TableRecordError {}

/// The table variant a record's `Variant` tag names (`sanguo`, `banqi`, any case), with its
/// options; `None` for any other (xiangqi) record.
pub fn table_variant(record: &GameRecord) -> Option<TableVariant> {
    let word = record.tag("Variant")?.trim().to_ascii_lowercase();
    match word.as_str() {
        "sanguo" => Some(TableVariant::Sanguo {
            flag_bearers: !record
                .tag("FlagBearers")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("off")),
        }),
        "banqi" => Some(TableVariant::Banqi),
        _ => None,
    }
}

/// The tags a table record writes itself (others are kept in [`TableRecord::tags`]).
const OWN_TAGS: [&str; 12] = [
    "Game",
    "Variant",
    "FlagBearers",
    "Seat1",
    "Seat2",
    "Seat3",
    "Result",
    "Winners",
    "Termination",
    "PlyCount",
    "Red",
    "Black",
];

fn err(ply: usize, reason: impl Into<String>) -> TableRecordError {
    TableRecordError {
        ply,
        reason: reason.into(),
    }
}

impl TableRecord {
    /// Reads a record of [`crate::pgn::read`] as a sanguo or banqi game and replays it.
    ///
    /// # Errors
    /// The `Variant` tag is not `sanguo` or `banqi`; a move does not read or does not play
    /// (its ply and the rules' reason); the `Winners`/`Termination` tags disagree with an ending
    /// the rules reached; a move follows the end.
    pub fn from_game_record(record: &GameRecord) -> Result<TableRecord, TableRecordError> {
        let variant = table_variant(record)
            .ok_or_else(|| err(0, "the variant tag names neither sanguo nor banqi"))?;
        let players = (1..=variant.seat_count())
            .map(|i| {
                record
                    .tag(&format!("Seat{i}"))
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect();
        let tags = record
            .tags
            .iter()
            .filter(|(n, _)| !OWN_TAGS.iter().any(|o| o.eq_ignore_ascii_case(n)))
            .cloned()
            .collect();
        let stated = match record
            .tag("Termination")
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            Some(t) => Some(TableOutcome {
                winners: record
                    .tag("Winners")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect(),
                reason: t
                    .parse::<EndReason>()
                    .map_err(|e| err(0, format!("termination: {e}")))?,
            }),
            None => None,
        };
        let mut table = TableRecord {
            variant,
            tags,
            players,
            moves: record.moves.iter().map(|m| m.text.clone()).collect(),
            outcome: None,
        };
        let by_rules = table.replay()?;
        table.outcome = match (by_rules, stated) {
            (Some(r), Some(s)) if r != s => {
                return Err(err(
                    0,
                    format!(
                        "the record says {} ({}) but the rules end the game with {} ({})",
                        s.reason,
                        s.winners.join(" "),
                        r.reason,
                        r.winners.join(" ")
                    ),
                ))
            }
            (Some(r), _) => Some(r),
            (None, s) => s,
        };
        Ok(table)
    }

    /// Plays the moves with `chuhe-rules`; returns the ending the rules reached, if any.
    ///
    /// # Errors
    /// The first move that does not read or play, or that follows the end.
    pub fn replay(&self) -> Result<Option<TableOutcome>, TableRecordError> {
        match self.variant {
            TableVariant::Sanguo { flag_bearers } => {
                let mut g = sanguo::Game::new(sanguo::Position::start(flag_bearers));
                for (i, text) in self.moves.iter().enumerate() {
                    let m: sanguo::Move = text
                        .parse()
                        .map_err(|e: sanguo::ParseMoveError| err(i + 1, e.to_string()))?;
                    g.play(m).map_err(|e| err(i + 1, format!("{text}: {e}")))?;
                }
                Ok(g.status().outcome().map(TableOutcome::from_outcome))
            }
            TableVariant::Banqi => {
                let mut g = banqi::Game::start();
                for (i, text) in self.moves.iter().enumerate() {
                    let r: banqi::Record = text
                        .parse()
                        .map_err(|e: banqi::ParseActionError| err(i + 1, e.to_string()))?;
                    g.play_recorded(r)
                        .map_err(|e| err(i + 1, format!("{text}: {e}")))?;
                }
                Ok(match g.status() {
                    banqi::Status::Ongoing => None,
                    banqi::Status::Ended(o) => Some(TableOutcome::from_outcome(o)),
                    banqi::Status::EndedBySeat { winner, reason } => Some(TableOutcome {
                        winners: vec![match winner {
                            banqi::Seat::First => "seat1".to_owned(),
                            banqi::Seat::Second => "seat2".to_owned(),
                        }],
                        reason: *reason,
                    }),
                })
            }
        }
    }

    /// Writes the record (tags, an empty line, one round per line, the result alone on the last
    /// line). A round is one move of each seat in turn: three for sanguo (fewer once a kingdom
    /// is out, as the moves come), two for banqi.
    pub fn write(&self, out: &mut String) {
        let tag = |out: &mut String, name: &str, value: &str| {
            let v: String = value
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            let _ = writeln!(out, "[{name} \"{v}\"]");
        };
        let game = match self.variant {
            TableVariant::Sanguo { .. } => "Three Kingdoms xiangqi",
            TableVariant::Banqi => "Banqi",
        };
        tag(out, "Game", game);
        tag(out, "Variant", self.variant.word());
        if let TableVariant::Sanguo { flag_bearers } = self.variant {
            tag(out, "FlagBearers", if flag_bearers { "on" } else { "off" });
        }
        for (name, value) in &self.tags {
            tag(out, name, value);
        }
        for i in 0..self.variant.seat_count() {
            let p = self.players.get(i).map_or("?", String::as_str);
            tag(out, &format!("Seat{}", i + 1), p);
        }
        let result = self
            .outcome
            .as_ref()
            .map_or("*", |o| o.result(self.variant));
        tag(out, "Result", result);
        if let Some(o) = &self.outcome {
            tag(out, "Winners", &o.winners.join(" "));
            tag(out, "Termination", o.reason.as_str());
        }
        tag(out, "PlyCount", &self.moves.len().to_string());
        out.push('\n');
        let per_line = self.variant.seat_count();
        for (round, chunk) in self.moves.chunks(per_line).enumerate() {
            let _ = writeln!(out, "{}. {}", round + 1, chunk.join(" "));
        }
        out.push_str(result);
        out.push('\n');
    }
}

/// The side word of a sanguo seat (0 Shu, 1 Wu, 2 Wei), as the outcome's winners are written.
pub fn sanguo_seat_word(seat: usize) -> Option<&'static str> {
    [Side::Shu, Side::Wu, Side::Wei]
        .get(seat)
        .map(|s| s.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn;

    #[test]
    fn banqi_record_reads_and_writes_exactly() {
        let rec = TableRecord {
            variant: TableVariant::Banqi,
            tags: vec![("Event".into(), "chuhe table t1".into())],
            players: vec!["ana".into(), "chuhe level 3".into()],
            moves: vec!["c2=R".into(), "g3=p".into(), "a1=C".into()],
            outcome: Some(TableOutcome {
                winners: vec!["red".into()],
                reason: EndReason::Resignation,
            }),
        };
        let mut out = String::new();
        rec.write(&mut out);
        assert_eq!(
            out,
            "[Game \"Banqi\"]\n[Variant \"banqi\"]\n[Event \"chuhe table t1\"]\n[Seat1 \"ana\"]\n[Seat2 \"chuhe level 3\"]\n[Result \"1-0\"]\n[Winners \"red\"]\n[Termination \"resignation\"]\n[PlyCount \"3\"]\n\n1. c2=R g3=p\n2. a1=C\n1-0\n"
        );
        let back = TableRecord::from_game_record(&pgn::read(&out)[0]).unwrap();
        assert_eq!(back, rec);
    }

    #[test]
    fn bad_records_are_refused_with_the_ply() {
        let read = |t: &str| TableRecord::from_game_record(&pgn::read(t)[0]);
        assert_eq!(
            read("[Variant \"banqi\"]\n\n1. c2=R c2=R *\n")
                .unwrap_err()
                .ply,
            2
        );
        assert_eq!(
            read("[Variant \"sanguo\"]\n\n1. Rh3xGb9 *\n")
                .unwrap_err()
                .ply,
            1
        );
        assert_eq!(
            read("[Variant \"xiangqi\"]\n\n1. h2e2 *\n")
                .unwrap_err()
                .to_string(),
            "the variant tag names neither sanguo nor banqi"
        );
    }
}
