//! `moves`, `perft` and `replay` for standard xiangqi.

use crate::cli::{parse_options, write_perft, CliError, ReplayJson, RuleArgs};
use chuhe_rules::xiangqi::{
    perft as count, perft_divide, Game, GameOptions, Move, Position, Status, MAX_NO_CAPTURE_LIMIT,
};
use std::io::Write;

fn position(rules: &RuleArgs) -> Result<Position, CliError> {
    match &rules.fen {
        None => Ok(Position::start()),
        Some(text) => Position::from_fen(text).map_err(|e| CliError::input(e.to_string())),
    }
}

fn game_options(rules: &RuleArgs) -> Result<GameOptions, CliError> {
    let mut options = GameOptions::default();
    for (key, value) in parse_options(rules.options.as_deref())? {
        match key.as_str() {
            "no_capture_limit" => {
                let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
                options.no_capture_limit = value
                    .parse()
                    .ok()
                    .filter(|&n| digits && n <= MAX_NO_CAPTURE_LIMIT)
                    .ok_or_else(|| {
                        CliError::input(format!(
                            "bad option no_capture_limit={value:?}: expected plies \
                                 0-{MAX_NO_CAPTURE_LIMIT}"
                        ))
                    })?;
            }
            _ => {
                return Err(CliError::input(format!(
                    "unknown option {key:?} for xiangqi (known: no_capture_limit)"
                )))
            }
        }
    }
    Ok(options)
}

/// `chuhe moves`: legal moves sorted bytewise, one per line.
pub fn moves(rules: &RuleArgs, out: &mut impl Write) -> Result<(), CliError> {
    game_options(rules)?;
    let pos = position(rules)?;
    let mut list = pos.legal_moves();
    list.sort_by_text();
    for m in &list {
        writeln!(out, "{m}")?;
    }
    Ok(())
}

/// `chuhe perft`: optional divide lines, an empty line, `Nodes searched: N`.
pub fn perft(
    rules: &RuleArgs,
    depth: u32,
    divide: bool,
    bulk: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    game_options(rules)?;
    let mut pos = position(rules)?;
    if divide {
        let lines = perft_divide(&mut pos, depth);
        let total = lines.iter().map(|(_, n)| n).sum();
        write_perft(out, &lines, total)
    } else {
        write_perft::<Move>(out, &[], count(&mut pos, depth, bulk))
    }
}

/// `chuhe replay`: plays the moves with every end-of-game rule.
pub fn replay(
    rules: &RuleArgs,
    moves: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let options = game_options(rules)?;
    let mut game = Game::new(position(rules)?, options);
    for (i, text) in moves.split_whitespace().enumerate() {
        let ply = i + 1;
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(CliError::input(format!(
                "bad move at ply {ply}: {text:?} (expected lower-case ICCS such as h2e2)"
            )));
        }
        let m: Move = text
            .parse()
            .map_err(|e| CliError::input(format!("bad move at ply {ply}: {e}")))?;
        if let Err(reason) = game.play(m) {
            return Err(CliError::input(format!(
                "illegal move at ply {ply}: {text} ({reason})"
            )));
        }
    }
    let (status, result, winners, reason) = match game.status() {
        Status::Ongoing => ("ongoing", None, Vec::new(), None),
        Status::Ended(o) => ("ended", o.result_text(), o.winners.clone(), Some(o.reason)),
    };
    let fen = game.position().to_string();
    if json {
        let j = ReplayJson {
            variant: "xiangqi",
            fen,
            ply: game.ply(),
            status,
            result,
            winners,
            reason,
        };
        j.write_line(out)?;
    } else {
        writeln!(out, "fen: {fen}")?;
        writeln!(out, "ply: {}", game.ply())?;
        match (result, reason) {
            (Some(r), Some(why)) => writeln!(out, "status: ended, {r} by {why}")?,
            _ => writeln!(
                out,
                "status: ongoing, {} to move",
                game.position().side_to_move().name()
            )?,
        }
    }
    Ok(())
}
