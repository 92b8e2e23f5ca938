//! PGN export of a table's game (`GET /api/tables/{id}/pgn`), written by `chuhe-notation` from
//! the table's stored events: xiangqi in the export form of `spec/notation.md` (in the notation
//! asked for), sanguo and banqi as their PGN-style records (`docs/records.md`: variant and
//! options, the player of each seat, result, winners and the rule that ended the game, moves in
//! their own notation, banqi flips with the piece they revealed).

use crate::error::ServerError;
use crate::protocol::{Event, SeatPlayer};
use crate::variant::Variant;
use chuhe_notation::pgn::{self, WriteOptions};
use chuhe_notation::record::{GameRecord, MoveText};
use chuhe_notation::replay::{replay, ReplayOptions};
use chuhe_notation::table_record::{TableOutcome, TableRecord, TableVariant};
use chuhe_notation::{ChineseStyle, Notation};

/// The civil date `YYYY.MM.DD` (UTC) of a time in milliseconds since the Unix epoch (the
/// days-to-date conversion of the proleptic Gregorian calendar).
pub fn pgn_date_of(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

fn name(player: &Option<SeatPlayer>) -> String {
    match player {
        Some(SeatPlayer::Person { name, .. }) => name.clone(),
        Some(SeatPlayer::Computer { level }) => format!("chuhe level {level}"),
        None => "?".to_owned(),
    }
}

/// The PGN of a table from its events (`created_ms`: when the table was created); `notation`
/// applies to xiangqi moves (sanguo and banqi moves have one notation each).
///
/// # Errors
/// [`ServerError::Internal`] when the events hold no `created` event or the stored moves do
/// not replay.
pub fn export(
    id: &str,
    created_ms: i64,
    events: &[Event],
    notation: Notation,
) -> Result<String, ServerError> {
    let variant = events.iter().find_map(|e| match e {
        Event::Created { options } => Some(options.variant),
        _ => None,
    });
    match variant {
        Some(Variant::Xiangqi) => export_xiangqi(id, created_ms, events, notation),
        Some(_) => export_table_record(id, created_ms, events),
        None => Err(ServerError::Internal(format!(
            "table {id} has no created event"
        ))),
    }
}

/// A xiangqi table's line from its events: the start position's FEN when the table was
/// created from one (`None`: the standard start) and the moves that stand, in ICCS, in order
/// (a takeback removes its plies). What `chuhe puzzles generate --database` replays.
pub fn xiangqi_line(events: &[Event]) -> (Option<String>, Vec<String>) {
    let mut start_fen = None;
    let mut moves: Vec<String> = Vec::new();
    for event in events {
        match event {
            Event::Created { options } => start_fen.clone_from(&options.fen),
            Event::Moved { mv, .. } => moves.push(mv.clone()),
            Event::TakenBack { plies } => moves.truncate(moves.len().saturating_sub(*plies)),
            _ => {}
        }
    }
    (start_fen, moves)
}

/// A sanguo or banqi table as its PGN-style record.
fn export_table_record(id: &str, created_ms: i64, events: &[Event]) -> Result<String, ServerError> {
    let mut variant = TableVariant::Banqi;
    let mut seats: Vec<Option<SeatPlayer>> = Vec::new();
    let mut tags = vec![
        ("Event".to_owned(), format!("chuhe table {id}")),
        ("Site".to_owned(), "chuhe".to_owned()),
        ("Date".to_owned(), pgn_date_of(created_ms)),
    ];
    let mut moves = Vec::new();
    let mut outcome = None;
    for event in events {
        match event {
            Event::Created { options } => {
                variant = match options.variant {
                    Variant::Sanguo => TableVariant::Sanguo {
                        flag_bearers: options.flag_bearers.unwrap_or(true),
                    },
                    _ => TableVariant::Banqi,
                };
                seats = vec![None; variant.seat_count()];
                if let Some(t) = options.time {
                    tags.push((
                        "TimeControl".to_owned(),
                        format!("{}+{}", t.initial_ms / 1000, t.increment_ms / 1000),
                    ));
                }
            }
            Event::Sat { seat, player } => {
                if let Some(s) = seats.get_mut(seat.index()) {
                    *s = Some(player.clone());
                }
            }
            Event::Stood { seat } => {
                if let Some(s) = seats.get_mut(seat.index()) {
                    *s = None;
                }
            }
            Event::Moved { mv, .. } => moves.push(mv.clone()),
            Event::Ended {
                outcome: o,
                winner_seats,
                ..
            } => {
                let mut words = TableOutcome::from_outcome(o);
                // A banqi table ending before the first flip: the seat won, not a colour.
                if variant == TableVariant::Banqi && o.winners.is_empty() && winner_seats.len() == 1
                {
                    words.winners = vec![format!("seat{}", winner_seats[0].index() + 1)];
                }
                outcome = Some(words);
            }
            Event::TakenBack { plies } => moves.truncate(moves.len().saturating_sub(*plies)),
            // Defeats follow from the moves: the record's replay finds them again.
            Event::Started
            | Event::DrawOffered { .. }
            | Event::DrawDeclined { .. }
            | Event::TakebackOffered { .. }
            | Event::TakebackDeclined { .. }
            | Event::RematchOffered { .. }
            | Event::RematchDeclined { .. }
            | Event::Rematched { .. }
            | Event::Berserked { .. }
            | Event::Defeated { .. } => {}
        }
    }
    let record = TableRecord {
        variant,
        tags,
        players: seats.iter().map(name).collect(),
        moves,
        outcome,
    };
    record
        .replay()
        .map_err(|e| ServerError::Internal(format!("table {id} does not replay: {e}")))?;
    let mut out = String::new();
    record.write(&mut out);
    Ok(out)
}

/// A xiangqi table in the export form of `spec/notation.md`.
fn export_xiangqi(
    id: &str,
    created_ms: i64,
    events: &[Event],
    notation: Notation,
) -> Result<String, ServerError> {
    let mut seats: Vec<Option<SeatPlayer>> = vec![None, None];
    let mut record = GameRecord::new(id);
    let mut result = "*".to_owned();
    let mut termination = None;
    let mut time_control = None;
    let mut start_fen = None;
    for event in events {
        match event {
            Event::Created { options } => {
                start_fen.clone_from(&options.fen);
                time_control = options
                    .time
                    .map(|t| format!("{}+{}", t.initial_ms / 1000, t.increment_ms / 1000));
            }
            Event::Sat { seat, player } => {
                if let Some(s) = seats.get_mut(seat.index()) {
                    *s = Some(player.clone());
                }
            }
            Event::Stood { seat } => {
                if let Some(s) = seats.get_mut(seat.index()) {
                    *s = None;
                }
            }
            Event::Moved { mv, .. } => record.moves.push(MoveText {
                text: mv.clone(),
                comment: None,
            }),
            Event::Ended {
                outcome, result: r, ..
            } => {
                result = r.clone().unwrap_or_else(|| "*".to_owned());
                termination = Some(outcome.reason.as_str());
            }
            Event::TakenBack { plies } => {
                let keep = record.moves.len().saturating_sub(*plies);
                record.moves.truncate(keep);
            }
            Event::Started
            | Event::DrawOffered { .. }
            | Event::DrawDeclined { .. }
            | Event::TakebackOffered { .. }
            | Event::TakebackDeclined { .. }
            | Event::RematchOffered { .. }
            | Event::RematchDeclined { .. }
            | Event::Rematched { .. }
            | Event::Berserked { .. }
            | Event::Defeated { .. } => {}
        }
    }
    record.set_tag("Event", format!("chuhe table {id}"));
    record.set_tag("Site", "chuhe");
    record.set_tag("Date", pgn_date_of(created_ms));
    record.set_tag("Red", name(&seats[0]));
    record.set_tag("Black", name(&seats[1]));
    record.set_tag("Result", result);
    if let Some(t) = termination {
        record.set_tag("Termination", t);
    }
    if let Some(tc) = time_control {
        record.set_tag("TimeControl", tc);
    }
    if let Some(fen) = start_fen {
        // the replay starts there, and the writer keeps it as the `FEN` tag
        record.set_tag("FEN", fen);
    }
    let replayed = replay(&record, ReplayOptions::default())
        .map_err(|e| ServerError::Internal(format!("table {id} does not replay: {e}")))?;
    let mut out = String::new();
    pgn::write(
        &mut out,
        &record,
        &replayed,
        WriteOptions {
            notation,
            style: ChineseStyle::default(),
        },
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::pgn_date_of;

    #[test]
    fn dates_from_milliseconds() {
        assert_eq!(pgn_date_of(0), "1970.01.01");
        // 2000-02-29 12:00 UTC, 2026-11-29 00:00 UTC, 1969-12-31 23:59:59.999 UTC.
        assert_eq!(pgn_date_of(951_825_600_000), "2000.02.29");
        assert_eq!(pgn_date_of(1_795_910_400_000), "2026.11.29");
        assert_eq!(pgn_date_of(-1), "1969.12.31");
    }
}
