//! `moves`, `perft` and `replay` for Three Kingdoms xiangqi (`--variant sanguo`).

use crate::cli::{parse_options, write_perft, CliError, ReplayJson, RuleArgs};
use chuhe_rules::sanguo::{perft as count, perft_divide, Game, Move, Position, Status};
use std::io::Write;

/// The table options of sanguo: `flag_bearers=on|off` (absent: `None`).
fn flag_option(rules: &RuleArgs) -> Result<Option<bool>, CliError> {
    let mut flags = None;
    for (key, value) in parse_options(rules.options.as_deref())? {
        match (key.as_str(), value.as_str()) {
            ("flag_bearers", "on") => flags = Some(true),
            ("flag_bearers", "off") => flags = Some(false),
            ("flag_bearers", _) => {
                return Err(CliError::input(format!(
                    "bad option flag_bearers={value}: expected on or off"
                )))
            }
            _ => {
                return Err(CliError::input(format!(
                    "unknown option {key:?} for sanguo (known: flag_bearers)"
                )))
            }
        }
    }
    Ok(flags)
}

/// The position of `--fen`, or the start position the options choose (`spec/sanguo.md` C15).
fn position(rules: &RuleArgs) -> Result<Position, CliError> {
    let flags = flag_option(rules)?;
    match &rules.fen {
        None => Ok(Position::start(flags.unwrap_or(true))),
        Some(text) => {
            let pos = Position::from_text(text)
                .map_err(|e| CliError::input(format!("bad position text: {e}")))?;
            match flags {
                Some(on) if on != pos.flag_bearers() => Err(CliError::input(format!(
                    "option flag_bearers={} contradicts the position text (flags field {})",
                    if on { "on" } else { "off" },
                    if pos.flag_bearers() { "F" } else { "-" }
                ))),
                _ => Ok(pos),
            }
        }
    }
}

/// `chuhe moves`: legal moves sorted bytewise, one per line.
pub fn moves(rules: &RuleArgs, out: &mut impl Write) -> Result<(), CliError> {
    let pos = position(rules)?;
    let mut texts: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect();
    texts.sort();
    for t in texts {
        writeln!(out, "{t}")?;
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
    let pos = position(rules)?;
    if divide {
        let lines = perft_divide(&pos, depth);
        let total = lines.iter().map(|(_, n)| n).sum();
        write_perft(out, &lines, total)
    } else {
        write_perft::<String>(out, &[], count(&pos, depth, bulk))
    }
}

/// `chuhe replay`: plays the moves with every end-of-game rule (C13).
pub fn replay(
    rules: &RuleArgs,
    moves: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut game = Game::new(position(rules)?);
    for (i, text) in moves.split_whitespace().enumerate() {
        let ply = i + 1;
        let m: Move = text
            .parse()
            .map_err(|e| CliError::input(format!("bad move at ply {ply}: {e}")))?;
        if let Err(reason) = game.play(m) {
            return Err(CliError::input(format!(
                "illegal move at ply {ply}: {text} ({reason})"
            )));
        }
    }
    let (status, winners, reason) = match game.status() {
        Status::Ongoing => ("ongoing", Vec::new(), None),
        Status::Ended(o) => ("ended", o.winners.clone(), Some(o.reason)),
    };
    let fen = game.position().to_string();
    if json {
        let j = ReplayJson {
            variant: "sanguo",
            fen,
            ply: game.ply(),
            status,
            result: None,
            winners,
            reason,
        };
        j.write_line(out)?;
    } else {
        writeln!(out, "fen: {fen}")?;
        writeln!(out, "ply: {}", game.ply())?;
        for e in game.defeats() {
            writeln!(
                out,
                "defeat: {} by {} after ply {}, army to {}",
                e.defeat.kingdom, e.defeat.reason, e.ply, e.defeat.heir
            )?;
        }
        match reason {
            Some(why) if winners.is_empty() => writeln!(out, "status: ended, draw by {why}")?,
            Some(why) => {
                let names: Vec<&str> = winners.iter().map(|w| w.as_str()).collect();
                writeln!(out, "status: ended, won by {} ({why})", names.join(" and "))?
            }
            None => writeln!(
                out,
                "status: ongoing, {} to move",
                game.position().side_to_move()
            )?,
        }
    }
    Ok(())
}
