//! Replays every game of a `games.tsv` file (layout of `data/games.tsv`) through
//! [`Game`] and prints the time taken: the cost the records checker pays per game.
//!
//! ```text
//! cargo run --release -p chuhe-rules --example replay_games -- data/games.tsv \
//!     [--no-rules] [--games N]
//! ```
//!
//! With chuhe's rules (the default) every game stops where the rules end it, and that ply is
//! checked against the file's `rep3_ply` and `nocap120_ply` columns (the first third occurrence
//! and the first run of 120 plies without a capture): the game must end at the smaller of the
//! two, or on its last move by checkmate or stalemate. With `--no-rules` repetition and the
//! no-capture limit are off and every move is played. Exits 1 on any mismatch.

use chuhe_rules::xiangqi::{Game, GameOptions, Move, Position, Status};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first().filter(|a| !a.starts_with("--")) else {
        eprintln!("usage: replay_games GAMES.TSV [--no-rules] [--games N]");
        std::process::exit(2);
    };
    let rules = !args.iter().any(|a| a == "--no-rules");
    // `--games N`: only the first N games (e.g. to count instructions under valgrind).
    let limit = args
        .iter()
        .position(|a| a == "--games")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let (id_col, fen_col, moves_col) = (col("id"), col("start_fen"), col("moves"));
    let (rep_col, nocap_col) = (col("rep3_ply"), col("nocap120_ply"));
    // Parse first, so that the timing covers only the replay.
    let mut games = Vec::new();
    let mut skipped = 0;
    for line in lines.take(limit) {
        let c: Vec<&str> = line.split('\t').collect();
        // A few studies start from set-ups that chuhe's validation refuses (spec §5.4).
        let Ok(start) = Position::from_fen(c[fen_col]) else {
            skipped += 1;
            continue;
        };
        let moves: Vec<Move> = c[moves_col]
            .split_whitespace()
            .map(|m| m.parse().expect("ICCS move"))
            .collect();
        let expected = [c[rep_col], c[nocap_col]]
            .iter()
            .filter_map(|v| v.parse::<usize>().ok())
            .min();
        games.push((c[id_col].to_owned(), start, moves, expected));
    }
    let options = if rules {
        GameOptions::default()
    } else {
        GameOptions {
            no_capture_limit: 0,
            repetition: false,
        }
    };
    let clock = Instant::now();
    let (mut plies, mut ended_early, mut mismatches) = (0usize, 0usize, 0usize);
    let mut ends = Vec::with_capacity(games.len());
    for (_, start, moves, _) in &games {
        let mut game = Game::new(start.clone(), options);
        for &m in moves {
            if game.play(m).is_err() {
                break;
            }
        }
        plies += game.ply();
        ends.push((game.ply(), game.status().clone()));
    }
    let elapsed = clock.elapsed();
    for ((id, _, moves, expected), (ply, status)) in games.iter().zip(&ends) {
        if *ply < moves.len() {
            ended_early += 1;
        }
        let ok = match (rules, status) {
            (false, _) => *ply == moves.len(),
            (true, Status::Ongoing) => expected.is_none_or(|e| e > moves.len()),
            (true, Status::Ended(o)) => match o.reason.as_str() {
                "checkmate" | "stalemate" => *ply == moves.len(),
                _ => *expected == Some(*ply),
            },
        };
        if !ok {
            mismatches += 1;
            eprintln!(
                "{id}: stopped at ply {ply} of {} ({status:?}), expected end {expected:?}",
                moves.len()
            );
        }
    }
    println!(
        "{} games, {plies} plies replayed in {:.3} s ({:.0} ns per ply), {ended_early} ended \
         before their last move, {mismatches} mismatches ({skipped} start FENs refused)",
        games.len(),
        elapsed.as_secs_f64(),
        elapsed.as_nanos() as f64 / plies.max(1) as f64
    );
    if mismatches > 0 {
        std::process::exit(1);
    }
}
