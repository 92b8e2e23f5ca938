//! `scripts/loadtest-combine`: the processor time per move of several `chuhe loadtest` processes
//! against the same nodes, divided by the moves of all of them (each report divides by its own).
//! The reports' lines are those `chuhe loadtest` prints (crates/chuhe-load's `report.rs` pins
//! them).

mod common;

use common::TempDir;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the script on `reports`, each written to a file of its own in `dir`.
fn combine(dir: &TempDir, reports: &[&str]) -> Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/loadtest-combine");
    let files: Vec<PathBuf> = reports
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let path = dir.0.join(format!("loader{}.out", i + 1));
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    Command::new("bash")
        .arg(script)
        .args(&files)
        .output()
        .unwrap()
}

/// Two loaders read the same two nodes over (nearly) the same 20 s: 0.40 s and 0.44 s of the
/// nodes' time, for 2,000 and 1,000 moves. Each report says 200 and 440 µs per move; over the
/// 3,000 moves of both it is 0.42 s (the mean of the two readings) / 3,000 = 140 µs.
#[test]
fn the_server_time_is_divided_by_the_moves_of_all_loaders() {
    let dir = TempDir::new("loadtest-combine");
    let first = "games: 500 at once, 500 started, 12 ended\n\
        server cpu: 0.40 s in 20.0 s (2 % of a core), 2000 moves of this loadtest: 200 µs per move\n\
        \x20 server 41: 0.30 s (2 % of a core): 150 µs per move\n\
        \x20 server 42: 0.10 s (0 % of a core): 50 µs per move\n\
        database cpu: 0.20 s in 20.0 s (1 % of a core): 100 µs per move\n\
        loadtest cpu: 1.00 s in 20.0 s (5 % of a core): 500 µs per move\n\
        stored: 2100 acknowledged moves checked, 0 missing, 0 doubled\n";
    let second = "server cpu: 0.44 s in 20.1 s (2 % of a core), 1000 moves of this loadtest: 440 µs per move\n\
        \x20 server 41: 0.32 s (2 % of a core): 320 µs per move\n\
        \x20 server 42: 0.12 s (1 % of a core): 120 µs per move\n\
        database cpu: 0.22 s in 20.1 s (1 % of a core): 220 µs per move\n\
        loadtest cpu: 0.50 s in 20.1 s (2 % of a core): 500 µs per move\n";
    let out = combine(&dir, &[first, second]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "all 2 loaders: 3000 moves in 20.1 s\n\
         server cpu: 0.42 s (2 % of a core): 140 µs per move\n\
         \x20 server 41: 0.31 s (2 % of a core): 103 µs per move\n\
         \x20 server 42: 0.11 s (1 % of a core): 37 µs per move\n\
         database cpu: 0.21 s (1 % of a core): 70 µs per move\n\
         loadtest cpu: 1.50 s (7 % of a core): 500 µs per move\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success());
    // One loader alone: its own figure.
    let out = combine(&dir, &[first]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().nth(1),
        Some("server cpu: 0.40 s (2 % of a core): 200 µs per move")
    );
}

/// A report without a `server cpu` line (no --server-pid, or a run that failed) leaves the
/// moves unknown: no figure, status 1. No moves at all: no division by zero.
#[test]
fn unknown_or_no_moves_give_no_figure() {
    let dir = TempDir::new("loadtest-combine-missing");
    let whole =
        "server cpu: 0.40 s in 20.0 s (2 % of a core), 2000 moves of this loadtest: 200 µs per move\n";
    let out = combine(&dir, &[whole, "errors: 3\n"]);
    assert_eq!(out.status.code(), Some(1));
    let expected = format!(
        "{}: no \"server cpu\" line: its moves are unknown\n",
        dir.0.join("loader2.out").display()
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    let idle = "server cpu: 0.10 s in 20.0 s (0 % of a core), 0 moves of this loadtest: -\n";
    let out = combine(&dir, &[idle, idle]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "all 2 loaders: 0 moves in 20.0 s\nserver cpu: 0.10 s (0 % of a core): -\n"
    );
}
