//! `chuhe moves`, `perft` and `replay` with `--variant sanguo` (`spec/cli.md`,
//! `spec/sanguo.md`): exact standard output, one-line errors and exit statuses.

use std::process::Command;

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn chuhe(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .output()
        .expect("the chuhe binary runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn sanguo(args: &[&str]) -> Run {
    let mut all = vec![args[0], "--variant", "sanguo"];
    all.extend_from_slice(&args[1..]);
    chuhe(&all)
}

fn fails(run: &Run, message: &str) {
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, format!("chuhe: {message}\n"));
}

/// The move list that follows `heading` in `tests/data/sanguo.md`, one move per line.
fn listed_moves(heading: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/sanguo.md");
    let doc = std::fs::read_to_string(path).expect("tests/data/sanguo.md is readable");
    let after = doc
        .split(heading)
        .nth(1)
        .expect("the heading is in the document");
    let list = after.split('`').nth(1).expect("a move list");
    let mut out = String::new();
    for m in list.split_whitespace() {
        out.push_str(m);
        out.push('\n');
    }
    out
}

/// TK-14 after `Bi1-Bi2`, but with Shu to move before its defeat is applied.
const TK14: &str = "3gR1gR3/9/4gP4/9/4rK4,9/9/9/9/3gK5,9/9/9/8bR/3bK5 R B - - 41";

#[test]
fn moves_from_the_start_positions() {
    let on = sanguo(&["moves"]);
    assert_eq!(on.status, 0, "{}", on.stderr);
    assert_eq!(on.stdout, listed_moves("Legal moves (all), 40:"));
    let explicit = sanguo(&["moves", "--options", "flag_bearers=on"]);
    assert_eq!(explicit.stdout, on.stdout);
    let off = sanguo(&["moves", "--options", "flag_bearers=off"]);
    assert_eq!(off.status, 0, "{}", off.stderr);
    assert_eq!(off.stdout, listed_moves("Legal moves (all), 44:"));
}

#[test]
fn moves_print_nothing_without_a_legal_move() {
    let run = sanguo(&["moves", "--fen", TK14]);
    assert_eq!((run.status, run.stdout.as_str()), (0, ""));
    let run = sanguo(&["perft", "--fen", TK14, "--depth", "1"]);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "\nNodes searched: 0\n")
    );
}

#[test]
fn perft_counts_and_divide() {
    let run = sanguo(&["perft", "--depth", "2"]);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "\nNodes searched: 1588\n")
    );
    let run = sanguo(&[
        "perft",
        "--depth",
        "2",
        "--no-bulk",
        "--options",
        "flag_bearers=off",
    ]);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "\nNodes searched: 1928\n")
    );
    let run = sanguo(&["perft", "--depth", "1", "--divide"]);
    let want: String = listed_moves("Legal moves (all), 40:")
        .lines()
        .map(|m| format!("{m}: 1\n"))
        .collect::<String>()
        + "\nNodes searched: 40\n";
    assert_eq!((run.status, run.stdout.as_str()), (0, want.as_str()));
    fails(
        &sanguo(&["perft", "--depth", "0"]),
        "bad argument: --depth must be at least 1",
    );
}

#[test]
fn replay_json() {
    let run = sanguo(&[
        "replay",
        "--json",
        "--fen",
        "3bR~g1bR~g3/9/4bP~g4/9/4rK4,9/9/9/9/9,9/9/9/9/3bK4bR B - G - 0",
        "--moves",
        "Bi1-Bi2",
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "{\"variant\":\"sanguo\",\"fen\":\"3bR~g1bR~g3/9/4bP~g4/9/9,9/9/9/9/9,9/9/9/8bR/3bK5 B B RG - 0\",\
         \"ply\":1,\"status\":\"ended\",\"result\":null,\"winners\":[\"wei\"],\"reason\":\"no-legal-move\"}\n"
    );
    let six = "Ra1-Ra2 Ga1-Ga2 Ba1-Ba2 Ra2-Ra1 Ga2-Ga1 Ba2-Ba1";
    let run = sanguo(&[
        "replay",
        "--json",
        "--fen",
        "9/9/9/9/rR2rK5,9/9/9/9/gR2gK5,9/9/9/9/bR2bK5 R - - - 0",
        "--moves",
        &format!("{six} {six}"),
    ]);
    assert_eq!(
        run.stdout,
        "{\"variant\":\"sanguo\",\"fen\":\"9/9/9/9/rR2rK5,9/9/9/9/gR2gK5,9/9/9/9/bR2bK5 R B - - 12\",\
         \"ply\":12,\"status\":\"ended\",\"result\":null,\"winners\":[],\"reason\":\"threefold-repetition\"}\n"
    );
    // A loaded position whose kingdom to move has no legal move: C13 steps 2-5 first.
    let run = sanguo(&["replay", "--json", "--fen", TK14]);
    assert_eq!(
        run.stdout,
        "{\"variant\":\"sanguo\",\"fen\":\"3gR1gR3/9/4gP4/9/9,9/9/9/9/3gK5,9/9/9/8bR/3bK5 G B R - 0\",\
         \"ply\":0,\"status\":\"ongoing\",\"result\":null,\"winners\":[],\"reason\":null}\n"
    );
    let run = sanguo(&["replay", "--json", "--moves", "Rd3-Be5 Gf3-Be5"]);
    assert_eq!(
        run.stdout,
        "{\"variant\":\"sanguo\",\"fen\":\"9/rP1rP1rP1rP1rP/1rC3rF1rC1/9/rRrHrErArKrArErHrR,9/gP1gP1gP1gP1gP/1gC1gF3gC1/9/gRgHgEgAgKgAgEgHgR,4gF4/bP1bP1bP1bP1bP/1bC1bF1bF1bC1/9/bRbHbEbAbKbAbEbHbR B G - F 0\",\
         \"ply\":2,\"status\":\"ongoing\",\"result\":null,\"winners\":[],\"reason\":null}\n"
    );
}

#[test]
fn replay_summary() {
    let run = sanguo(&[
        "replay",
        "--fen",
        "2gP6/9/9/9/3rK5,9/9/4rP4/9/rR1rH1gK4,9/9/7gC1/9/3bK4bR R - - - 0",
        "--moves",
        "Gc1-Gd3",
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "fen: 2rP~g6/9/9/9/3rK5,9/9/3rHrP4/9/rR8,9/9/7rC~g1/9/3bK4bR B R G - 0\n\
         ply: 1\n\
         defeat: wu by no-legal-move after ply 1, army to shu\n\
         status: ongoing, wei to move\n"
    );
}

#[test]
fn errors_are_one_line_with_status_2() {
    fails(
        &sanguo(&["moves", "--options", "flag_bearers=maybe"]),
        "bad option flag_bearers=maybe: expected on or off",
    );
    fails(
        &sanguo(&["moves", "--options", "no_capture_limit=60"]),
        "unknown option \"no_capture_limit\" for sanguo (known: flag_bearers)",
    );
    fails(
        &sanguo(&[
            "moves",
            "--options",
            "flag_bearers=on",
            "--fen",
            "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0",
        ]),
        "option flag_bearers=on contradicts the position text (flags field -)",
    );
    fails(
        &sanguo(&[
            "moves",
            "--fen",
            "9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0 ",
        ]),
        "bad position text: syntax (7 fields instead of 6 separated by single spaces)",
    );
    fails(
        &sanguo(&[
            "perft",
            "--depth",
            "1",
            "--fen",
            "9/9/9/9/3rK5,9/9/9/9/9,9/9/9/9/3bK5 R - - - 0",
        ]),
        "bad position text: general-count (every active kingdom owns exactly one general, \
         a defeated kingdom owns nothing, and one kingdom at least is active)",
    );
    fails(
        &sanguo(&["replay", "--moves", "Rh3-Rh4 re1-re2"]),
        "bad move at ply 2: not a move: \"re1-re2\" (expected such as Re1-Re2 or Ra1xRd1)",
    );
    fails(
        &sanguo(&["replay", "--moves", "Rh3-Rh4 Gb1-Gd2"]),
        "illegal move at ply 2: Gb1-Gd2 (horse leg is blocked)",
    );
    fails(
        &sanguo(&[
            "replay",
            "--fen",
            "3bR~g1bR~g3/9/4bP~g4/9/4rK4,9/9/9/9/9,9/9/9/9/3bK4bR B - G - 0",
            "--moves",
            "Bi1-Bi2 Bi2-Bi3",
        ]),
        "illegal move at ply 2: Bi2-Bi3 (the game has ended)",
    );
}

#[test]
fn both_separators_are_accepted_in_replay() {
    let a = sanguo(&["replay", "--json", "--moves", "Rh3xGb1"]);
    let b = sanguo(&["replay", "--json", "--moves", "Rh3-Gb1"]);
    assert_eq!(a.status, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout);
}
