//! `moves` and `replay` for banqi (`spec/banqi.md` §3, `spec/cli.md`). `perft` is refused in
//! `cli.rs`: flips are chance moves.

use crate::cli::{parse_options, CliError, ReplayJson, RuleArgs};
use chuhe_rules::banqi::{Game, ParseActionError, Record, Status, Truth, View};
use std::io::Write;

/// Banqi has no table options yet: any `--options` pair is refused.
fn check_options(rules: &RuleArgs) -> Result<(), CliError> {
    if let Some((key, _)) = parse_options(rules.options.as_deref())?.first() {
        return Err(CliError::input(format!(
            "unknown option {key:?} for banqi (banqi has no options)"
        )));
    }
    Ok(())
}

/// The start text: `--fen` (a view, truth or mixed text) or all 32 pieces face down.
fn start(rules: &RuleArgs) -> Result<Truth, CliError> {
    match &rules.fen {
        None => Ok(View::start().into()),
        Some(text) => text
            .parse()
            .map_err(|e: chuhe_rules::banqi::ParsePositionError| CliError::input(e.to_string())),
    }
}

/// `chuhe moves`: every legal action of the side to move, sorted bytewise (flips as `flip c2`).
/// The list depends on the public view only, whatever the text pins.
pub fn moves(rules: &RuleArgs, out: &mut impl Write) -> Result<(), CliError> {
    check_options(rules)?;
    let truth = start(rules)?;
    for action in truth.view().legal_actions() {
        writeln!(out, "{action}")?;
    }
    Ok(())
}

/// `chuhe replay`: applies the order of checks to the start, then each recorded action
/// (`c2=R`, `c2-c3`, `c2xc3`), and prints the final text (a view text if the start was a view,
/// the truth text with its pins otherwise) and the status.
pub fn replay(
    rules: &RuleArgs,
    moves: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    check_options(rules)?;
    let start = start(rules)?;
    let pinned = start.has_pins();
    let mut game = Game::new(start);
    for (i, text) in moves.split_whitespace().enumerate() {
        let ply = i + 1;
        let record: Record = text.parse().map_err(|e: ParseActionError| {
            CliError::input(format!(
                "bad action at ply {ply}: {:?}: {}",
                e.text, e.detail
            ))
        })?;
        if let Err(reason) = game.play_recorded(record) {
            return Err(CliError::input(format!(
                "illegal action at ply {ply}: {text} ({reason})"
            )));
        }
    }
    let fen = if pinned {
        game.truth().to_truth_text()
    } else {
        game.view().to_string()
    };
    let (status, result, winners, reason) = match game.status() {
        Status::Ongoing => ("ongoing", None, Vec::new(), None),
        Status::Ended(o) => ("ended", o.result_text(), o.winners.clone(), Some(o.reason)),
        // Table endings never come from a replay.
        Status::EndedBySeat { reason, .. } => ("ended", None, Vec::new(), Some(*reason)),
    };
    if json {
        let j = ReplayJson {
            variant: "banqi",
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
        match (result, reason, game.view().turn()) {
            (Some(r), Some(why), _) => writeln!(out, "status: ended, {r} by {why}")?,
            (_, _, Some(c)) => writeln!(out, "status: ongoing, {} to move", c.name())?,
            (_, _, None) => writeln!(out, "status: ongoing, seat 1 to move (no colours yet)")?,
        }
    }
    Ok(())
}
