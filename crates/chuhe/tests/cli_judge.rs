//! `chuhe replay --json` on the end-of-game rules (`spec/xiangqi.md` §6, `spec/cli.md`): perpetual
//! check, perpetual chase, draws by repetition, the no-capture limit and its option, and the move
//! after the end refused. Exact standard output and exit status.

use std::process::Command;

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn replay(fen: &str, moves: &str, extra: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args([
            "replay",
            "--variant",
            "xiangqi",
            "--fen",
            fen,
            "--moves",
            moves,
        ])
        .args(extra)
        .output()
        .expect("chuhe runs");
    Run {
        status: out.status.code().expect("exit status"),
        stdout: String::from_utf8(out.stdout).expect("utf-8"),
        stderr: String::from_utf8(out.stderr).expect("utf-8"),
    }
}

fn json(fen: &str, ply: usize, result: &str, winners: &str, reason: &str) -> String {
    let (status, result, reason) = if result == "null" {
        ("ongoing", "null".to_owned(), "null".to_owned())
    } else {
        ("ended", format!("\"{result}\""), format!("\"{reason}\""))
    };
    format!(
        "{{\"variant\":\"xiangqi\",\"fen\":\"{fen}\",\"ply\":{ply},\"status\":\"{status}\",\
         \"result\":{result},\"winners\":[{winners}],\"reason\":{reason}}}\n"
    )
}

fn twice(cycle: &str) -> String {
    format!("{cycle} {cycle}")
}

#[test]
fn perpetual_check_loses() {
    // E1: every Red move checks.
    let run = replay(
        "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1",
        &twice("a8a9 e9e8 a9a8 e8e9"),
        &["--json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        json(
            "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 8 5",
            8,
            "0-1",
            "\"black\"",
            "perpetual-check"
        )
    );
}

#[test]
fn perpetual_chase_loses() {
    // E4: the chariot chases the unprotected horse on every move.
    let run = replay(
        "4k4/9/n8/9/9/9/2R6/9/9/3K5 w - - 0 1",
        &twice("c3a3 a7c8 a3c3 c8a7"),
        &["--json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        json(
            "4k4/9/n8/9/9/9/2R6/9/9/3K5 w - - 8 5",
            8,
            "0-1",
            "\"black\"",
            "perpetual-chase"
        )
    );
    // E8: Black chases a chariot that cannot take back; Black loses.
    let run = replay(
        "4ck3/9/9/9/9/2r1R4/9/9/4A4/3AK4 w - - 0 1",
        &twice("e4e3 c4c3 e3e4 c3c4"),
        &["--json"],
    );
    assert_eq!(
        run.stdout,
        json(
            "4ck3/9/9/9/9/2r1R4/9/9/4A4/3AK4 w - - 8 5",
            8,
            "1-0",
            "\"red\"",
            "perpetual-chase"
        )
    );
}

#[test]
fn repetitions_without_a_culprit_are_drawn() {
    for (fen, cycle) in [
        // E9: a pinned chariot does not chase (Fairy-Stockfish says 0-1 here; chuhe follows §6.4 c).
        (
            "5k3/4r4/9/9/9/n8/4R4/9/9/4K4 w - - 0 1",
            "e3e4 a4c3 e4e3 c3a4",
        ),
        // E12: one check, one chase.
        ("4k4/9/R7c/9/9/9/9/9/9/3K5 w - - 0 1", "a7a9 e9e8 a9a7 e8e9"),
        // E3: both sides check on every move.
        (
            "9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1",
            "e3d3 d6e6 d3e3 e6d6",
        ),
    ] {
        let run = replay(fen, &twice(cycle), &["--json"]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        let after = fen.replace(" 0 1", " 8 5");
        assert_eq!(
            run.stdout,
            json(&after, 8, "1/2-1/2", "", "threefold-repetition"),
            "{fen}"
        );
    }
}

#[test]
fn move_after_the_end_is_refused() {
    // E14: the game ended at ply 8; ply 9 is an error (exit 2, one line on standard error).
    let moves = format!("{} a8a9", twice("a8a9 e9e8 a9a8 e8e9"));
    let run = replay("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1", &moves, &["--json"]);
    assert_eq!(run.status, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "chuhe: illegal move at ply 9: a8a9 (the game has ended)\n"
    );
}

#[test]
fn no_capture_limit_and_its_option() {
    let fen = "4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 118 60";
    let after = "9/4k4/9/9/9/9/9/5A3/9/3K5 w - - 120 61";
    // E16: the default limit of 120 plies.
    let run = replay(fen, "e1f2 e9e8", &["--json"]);
    assert_eq!(
        run.stdout,
        json(after, 2, "1/2-1/2", "", "no-capture-limit")
    );
    // 0 turns the rule off.
    let run = replay(
        fen,
        "e1f2 e9e8",
        &["--options", "no_capture_limit=0", "--json"],
    );
    assert_eq!(run.stdout, json(after, 2, "null", "", "null"));
    // A limit above the count: still going.
    let run = replay(
        fen,
        "e1f2 e9e8",
        &["--options", "no_capture_limit=121", "--json"],
    );
    assert_eq!(run.stdout, json(after, 2, "null", "", "null"));
    // A small limit from a fresh count: draw after 4 plies (the position has occurred only twice).
    let run = replay(
        "4k4/9/R8/9/9/9/9/9/9/3K5 w - - 0 1",
        "a7a9 e9e8 a9a7 e8e9",
        &["--options", "no_capture_limit=4", "--json"],
    );
    assert_eq!(
        run.stdout,
        json(
            "4k4/9/R8/9/9/9/9/9/9/3K5 w - - 4 3",
            4,
            "1/2-1/2",
            "",
            "no-capture-limit"
        )
    );
    // A bad value is refused.
    let run = replay(fen, "e1f2", &["--options", "no_capture_limit=many"]);
    assert_eq!(run.status, 2);
    assert_eq!(
        run.stderr,
        "chuhe: bad option no_capture_limit=\"many\": expected plies 0-1000\n"
    );
}

#[test]
fn stalemate_and_checkmate_lose() {
    // E17: stalemate loses.
    let run = replay("3k5/9/R8/9/9/9/9/9/9/4K4 w - - 0 1", "a7a8", &["--json"]);
    assert_eq!(
        run.stdout,
        json(
            "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 1 1",
            1,
            "1-0",
            "\"red\"",
            "stalemate"
        )
    );
    // E15: checkmate is found before the no-capture limit.
    let run = replay(
        "3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 119 70",
        "h0h9",
        &["--json"],
    );
    assert_eq!(
        run.stdout,
        json(
            "3k3R1/1R7/9/9/9/9/9/9/9/4K4 b - - 120 70",
            1,
            "1-0",
            "\"red\"",
            "checkmate"
        )
    );
}
