//! `chuhe bench` and `chuhe uci` through the binary: exact output and exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the binary with `args`, writes `stdin` to it and waits for it to end.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chuhe runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Standard output and exit status of `run`.
fn chuhe(args: &[&str], stdin: &str) -> (String, i32) {
    let out = run(args, stdin.as_bytes());
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn bench_prints_a_repeatable_node_signature() {
    let (a, status) = chuhe(&["bench", "--depth", "3"], "");
    assert_eq!(status, 0);
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 17, "{a}");
    let per_position: u64 = lines[..16]
        .iter()
        .map(|l| {
            let n = l.split(": ").nth(1).unwrap().split(' ').next().unwrap();
            n.parse::<u64>().unwrap()
        })
        .sum();
    let last = lines[16];
    let (nodes, rest) = last.split_once(" nodes, ").expect(last);
    assert_eq!(nodes.parse::<u64>().unwrap(), per_position);
    assert!(rest.ends_with(" nps") && rest[..rest.len() - 4].parse::<u64>().is_ok());
    // Pikafish's summary, on standard error as there (issue 27).
    let err = String::from_utf8(run(&["bench", "--depth", "3"], b"").stderr).unwrap();
    let err: Vec<&str> = err.lines().collect();
    assert_eq!(err.len(), 5, "{err:?}");
    assert_eq!(&err[..2], ["", "==========================="]);
    assert!(err[2].starts_with("Total time (ms) : "), "{err:?}");
    assert_eq!(err[3], format!("Nodes searched  : {nodes}"));
    assert!(err[4].starts_with("Nodes/second    : "), "{err:?}");
    let (b, _) = chuhe(&["bench", "--depth", "3"], "");
    assert_eq!(a.lines().next(), b.lines().next());
    assert_eq!(
        b.lines().last().unwrap().split_once(" nodes").unwrap().0,
        nodes
    );
}

#[test]
fn bench_rejects_a_bad_depth() {
    let (out, status) = chuhe(&["bench", "--depth", "0"], "");
    assert_eq!((out.as_str(), status), ("", 2));
}

#[test]
fn uci_no_legal_move_and_end_of_input() {
    let (out, status) = chuhe(
        &["uci"],
        "position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b\ngo depth 5\nisready\n",
    );
    assert_eq!(status, 0);
    assert_eq!(out, "info depth 0 score mate 0\nbestmove (none)\nreadyok\n");
    let (out, status) = chuhe(&[], "uci\nquit\nisready\n");
    assert_eq!(status, 0);
    assert_eq!(out.lines().count(), 14);
    assert!(out.ends_with("uciok\n"));
}

/// Issue 18: `printf 'position startpos\ngo depth 5\n' | chuhe uci` prints a `bestmove` (end of
/// input stops the search, which writes its move first, as in Pikafish); so does `quit`.
#[test]
fn end_of_input_during_a_search_prints_bestmove() {
    for input in [
        "position startpos\ngo depth 5\n",
        "position startpos\ngo infinite\nquit\n",
    ] {
        let (out, status) = chuhe(&["uci"], input);
        assert_eq!(status, 0);
        let last = out.lines().last().unwrap_or("");
        assert!(last.starts_with("bestmove "), "{input:?}: {out}");
        assert_eq!(
            last.split_whitespace().nth(1).map(str::len),
            Some(4),
            "{out}"
        );
    }
}

#[test]
fn ucci_says_bye() {
    let (out, status) = chuhe(&["uci"], "ucci\nstop\nquit\n");
    assert_eq!(status, 0);
    assert!(out.ends_with("ucciok\nnobestmove\nbye\n"), "{out}");
}

#[test]
fn uci_answers_bytes_that_are_not_utf8_and_carries_on() {
    let out = run(
        &["uci"],
        b"isready\n\xff\nisready\nposition startpos moves h2e2\xe9\ngo perft 1\n",
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        &lines[..5],
        &[
            "readyok",
            "info string error unknown-command \u{fffd}",
            "readyok",
            "info string error illegal-move h2e2\u{fffd}",
            "info string error no-position last position refused: illegal-move h2e2\u{fffd}",
        ]
    );
    // A refused position leaves none to count (issue 27).
    assert_eq!(lines[lines.len() - 2], "Nodes searched: 0");
    assert!(out.stderr.is_empty());
}
