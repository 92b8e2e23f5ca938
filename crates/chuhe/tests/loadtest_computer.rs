//! `chuhe loadtest --computer-games`: games of a guest against the computer, played beside the
//! games between people against a real `chuhe serve` on SQLite. The report gives their acks and
//! the computer's answer times apart; the server's minimum pause before a computer answers
//! (0.5 s by default) shows in the answer times, every variant's computer moves, and every
//! acknowledged move of both kinds of game is stored exactly once.

mod common;

use common::loadtest::{loadtest, LoadServer};
use common::{first_number, line};

/// `p50 502.0 ms, ...`: the milliseconds of the percentile named `name`.
fn percentile(summary: &str, name: &str) -> f64 {
    summary
        .split(", ")
        .find_map(|part| part.strip_prefix(name))
        .and_then(|rest| rest.strip_suffix(" ms"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {summary:?}"))
}

#[test]
fn games_against_the_computer_are_reported_apart() {
    let mut server = LoadServer::start("loadtest-computer");
    let out = loadtest(&[&server.url])
        .args(["--games", "2", "--duration", "8"])
        .args(["--computer-games", "3", "--computer-level", "1"])
        .args(["--think-ms", "50-100", "--variants", "xiangqi,sanguo,banqi"])
        .output()
        .unwrap();
    server.kill();
    let (report, context) = server.report(&out);
    assert!(out.status.success(), "loadtest failed:\n{context}");
    assert_eq!(line(&report, "errors: "), "0", "{context}");
    let games = line(&report, "against the computer (level 1): ");
    assert!(games.starts_with("3 at once, "), "{context}");
    // All three started (one per variant), and both kinds of moves were made.
    let started = first_number(games.split("at once, ").nth(1).unwrap());
    assert!(started >= 3, "{context}");
    let players = first_number(games.split("ended; ").nth(1).unwrap());
    let computer = first_number(games.split("acknowledged, ").nth(1).unwrap());
    assert!(players > 0 && computer > 0, "{context}");
    // The guests' acks are measured apart from the games between people.
    let acks = line(&report, "ack against the computer: ");
    assert!(acks.ends_with(&format!("({players} samples)")), "{context}");
    // The answers wait for the minimum pause, and level 1 thinks 0.3 s at most.
    let answers = line(&report, "computer answer: ");
    let least = percentile(answers, "p50 ");
    assert!((500.0..2_000.0).contains(&least), "{context}");
    assert!(
        first_number(line(&report, "stored: ")) >= players,
        "{context}"
    );
    assert!(
        line(&report, "stored: ").ends_with(", 0 missing, 0 doubled"),
        "{context}"
    );
}
