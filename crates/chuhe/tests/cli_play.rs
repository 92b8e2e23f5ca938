//! `chuhe play` (the computer players' line protocol) and `chuhe match` through the binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `chuhe play` with `args`, feeds it `stdin`, returns standard output and exit status.
fn play(args: &[&str], stdin: &str) -> (String, i32) {
    play_bytes(args, stdin.as_bytes())
}

/// [`play`] with any bytes on standard input.
fn play_bytes(args: &[&str], stdin: &[u8]) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chuhe runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("written");
    let out = child.wait_with_output().expect("it ends");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn banqi_plays_from_a_view_and_answers_every_command() {
    let (out, status) = play(
        &["--variant", "banqi"],
        "isready\n\
         position 8/8/2Rh4/a7 r - 0\n\
         go nodes 3000\n\
         go level 1\n\
         position startpos moves c2=R\n\
         go nodes 2000\n\
         position startpos moves c2=R c2-c3\n\
         go movetime\n\
         quit\n\
         isready\n",
    );
    assert_eq!(status, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(lines[0], "readyok");
    assert_eq!(lines[1], "bestmove c2xd2");
    // Level 1 plays a chariot move too, not always the capture: the horse can take nothing
    // that is left (the chariot outranks it), so it is worth little and level 1's noise may
    // prefer a step.
    assert!(
        [
            "bestmove c2xd2",
            "bestmove c2-b2",
            "bestmove c2-c1",
            "bestmove c2-c3"
        ]
        .contains(&lines[2]),
        "{out}"
    );
    assert!(lines[3].starts_with("bestmove flip "), "{out}");
    assert_eq!(
        lines[4],
        "info string error move 2 \"c2-c3\": the piece on the from-square belongs to the other colour"
    );
    assert_eq!(
        lines[5],
        "info string error bad go \"movetime\": expected go level <1-8>, go movetime <ms> or go nodes <n>"
    );
}

#[test]
fn sanguo_answers_legal_moves_with_and_without_flag_bearers() {
    for options in ["flag_bearers=on", "flag_bearers=off"] {
        let (out, status) = play(
            &["--variant", "sanguo", "--options", options],
            "position startpos moves Rh3-Rh4\ngo level 2\ngo nodes 5000\n",
        );
        assert_eq!(status, 0);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        let mut pos = chuhe_rules::sanguo::Position::start(options.ends_with("on"));
        pos.play("Rh3-Rh4".parse().expect("a move")).expect("legal");
        for l in lines {
            let text = l.strip_prefix("bestmove ").expect("a bestmove line");
            let m: chuhe_rules::sanguo::Move = text.parse().expect("a move text");
            assert!(pos.is_legal(m), "{options}: {text}");
            assert_eq!(pos.move_text(m), text);
            assert_eq!(text.chars().next(), Some('G'), "Wu's move: {text}");
        }
    }
}

#[test]
fn xiangqi_mates_and_reports_no_move_when_mated() {
    let (out, status) = play(
        &["--variant", "xiangqi"],
        "position 3k5/1R7/9/9/9/9/9/9/9/4K2R1 w\ngo level 8\n\
         position 3k5/R8/9/9/9/9/9/9/9/4K4 b\ngo nodes 1000\n\
         position startpos moves h2e2 e2e9\n",
    );
    assert_eq!(status, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "bestmove h0h9");
    assert_eq!(lines[1], "bestmove (none)");
    assert_eq!(
        lines[2],
        "info string error move 2 \"e2e9\": that piece belongs to the side not to move"
    );
    assert_eq!(lines.len(), 3);
}

#[test]
fn bytes_that_are_not_text_and_long_lines_get_one_short_error_line() {
    let long = "x".repeat(100_000);
    let mut input = b"isready\n\xff\xfe\nisready\n".to_vec();
    input.extend_from_slice(long.as_bytes());
    input.extend_from_slice(b"\r\nisready\r\nquit\n");
    let (out, status) = play_bytes(&["--variant", "banqi"], &input);
    assert_eq!(status, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "readyok",
            "info string error the line is not UTF-8 text",
            "readyok",
            &format!("info string error unknown command \"{}…\"", &long[..40]),
            "readyok",
        ]
    );
}

#[test]
fn bad_options_are_refused_at_start() {
    let (_, status) = play(&["--variant", "banqi", "--options", "flag_bearers=off"], "");
    assert_eq!(status, 2);
}

#[test]
fn a_short_match_prints_its_tally() {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args([
            "match",
            "--variant",
            "banqi",
            "--a",
            "L2",
            "--b",
            "greedy",
            "--games",
            "2",
            "--scale",
            "0.05",
        ])
        .output()
        .expect("chuhe runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.starts_with("banqi L2 vs greedy scale 0.05 seed 1: W/shared/D/L = "),
        "{text}"
    );
    assert!(text.contains(" of 2 ("), "{text}");
}
