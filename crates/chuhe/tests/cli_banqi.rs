//! `chuhe moves`, `chuhe replay` and `chuhe perft` with `--variant banqi`, run as a process:
//! exact standard output, standard error and exit status. The rule rows come from
//! `tests/data/banqi-cases.tsv` (every case of `tests/data/banqi.md`).

use std::process::Command;

const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/banqi-cases.tsv"
);

const START: &str = "????????/????????/????????/???????? - KAAEERRHHCCPPPPPkaaeerrhhccppppp 0";

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn chuhe(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .output()
        .expect("chuhe runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

fn winners_json(result: &str) -> &'static str {
    match result {
        "1-0" => r#"["red"]"#,
        "0-1" => r#"["black"]"#,
        _ => "[]",
    }
}

/// The rows of the table through the binary.
#[test]
fn every_case_through_the_binary() {
    let text = std::fs::read_to_string(CASES).expect("tests/data/banqi-cases.tsv is readable");
    let mut checked = 0;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("case\t") || line.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let (case, command, fen, input, expected, after) = (c[0], c[1], c[2], c[3], c[4], c[5]);
        let at = format!("line {} ({case} {command})", i + 1);
        let moves = if input == "-" { "" } else { input };
        match command {
            "moves" => {
                let run = chuhe(&["moves", "--variant", "banqi", "--fen", fen]);
                let want = if expected == "-" {
                    String::new()
                } else {
                    expected.split(',').map(|a| format!("{a}\n")).collect()
                };
                assert_eq!(
                    (run.status, run.stdout, run.stderr),
                    (0, want, String::new()),
                    "{at}"
                );
            }
            "replay" => {
                let run = chuhe(&[
                    "replay",
                    "--variant",
                    "banqi",
                    "--fen",
                    fen,
                    "--moves",
                    moves,
                    "--json",
                ]);
                let ply = moves.split_whitespace().count();
                let want = if expected == "ongoing" {
                    format!(
                        r#"{{"variant":"banqi","fen":"{after}","ply":{ply},"status":"ongoing","result":null,"winners":[],"reason":null}}"#
                    )
                } else {
                    let (result, reason) = expected.split_once(' ').unwrap();
                    format!(
                        r#"{{"variant":"banqi","fen":"{after}","ply":{ply},"status":"ended","result":"{result}","winners":{},"reason":"{reason}"}}"#,
                        winners_json(result)
                    )
                };
                assert_eq!(run.status, 0, "{at}: {}", run.stderr);
                assert_eq!(run.stdout, want + "\n", "{at}");
            }
            "replay-error" => {
                let run = chuhe(&[
                    "replay",
                    "--variant",
                    "banqi",
                    "--fen",
                    fen,
                    "--moves",
                    moves,
                ]);
                let (ply, reason) = expected.split_once(": ").unwrap();
                let n: usize = ply.trim_start_matches("ply ").parse().unwrap();
                let action = moves.split_whitespace().nth(n - 1).unwrap();
                assert_eq!(run.status, 2, "{at}");
                assert_eq!(run.stdout, "", "{at}");
                assert_eq!(
                    run.stderr,
                    format!("chuhe: illegal action at ply {n}: {action} ({reason})\n"),
                    "{at}"
                );
            }
            "invalid" => {
                let run = chuhe(&["moves", "--variant", "banqi", "--fen", fen]);
                assert_eq!(run.status, 2, "{at}");
                let prefix = if expected == "syntax" {
                    "chuhe: bad position text: syntax: ".to_owned()
                } else {
                    format!("chuhe: invalid position: {expected}: ")
                };
                assert!(run.stderr.starts_with(&prefix), "{at}: {}", run.stderr);
                assert_eq!(run.stderr.lines().count(), 1, "{at}");
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} rows ran");
}

#[test]
fn start_position_and_default_fen() {
    let run = chuhe(&["moves", "--variant", "banqi"]);
    assert_eq!(run.status, 0);
    assert_eq!(run.stdout.lines().count(), 32);
    assert_eq!(run.stdout.lines().next(), Some("flip a1"));
    assert_eq!(run.stdout.lines().last(), Some("flip h4"));
    let same = chuhe(&["moves", "--variant", "banqi", "--fen", START]);
    assert_eq!(same.stdout, run.stdout);
}

#[test]
fn replay_from_the_start_with_a_human_summary() {
    let run = chuhe(&["replay", "--variant", "banqi", "--moves", "c2=r b2=K"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "fen: ????????/????????/?Kr?????/???????? b AAEERRHHCCPPPPPkaaeerhhccppppp 0\n\
         ply: 2\n\
         status: ongoing, black to move\n"
    );
    let run = chuhe(&["replay", "--variant", "banqi"]);
    assert_eq!(
        run.stdout,
        format!("fen: {START}\nply: 0\nstatus: ongoing, seat 1 to move (no colours yet)\n")
    );
    let run = chuhe(&[
        "replay",
        "--variant",
        "banqi",
        "--fen",
        "8/8/3P4/3p4 r - 0",
        "--moves",
        "d2xd1",
    ]);
    assert_eq!(
        run.stdout,
        "fen: 8/8/8/3P4 b - 0\nply: 1\nstatus: ended, 1-0 by all-captured\n"
    );
}

#[test]
fn refusals_are_one_line_with_status_2() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["perft", "--variant", "banqi", "--depth", "2"],
            "chuhe: banqi has chance moves (flips): perft is not defined for it\n",
        ),
        (
            &["replay", "--variant", "banqi", "--moves", "flip c2"],
            "chuhe: bad action at ply 1: \"flip\": a recorded flip names the revealed piece, e.g. c2=R\n",
        ),
        (
            &["replay", "--variant", "banqi", "--moves", "c2=R c2=Q"],
            "chuhe: bad action at ply 2: \"c2=Q\": expected one piece letter (KAERHCPkaerhcp) after =\n",
        ),
        (
            &["moves", "--variant", "banqi", "--options", "quiet_limit=60"],
            "chuhe: unknown option \"quiet_limit\" for banqi (banqi has no options)\n",
        ),
        (
            &["moves", "--variant", "banqi", "--fen", "8/8/8/8 r - 0 "],
            "chuhe: bad position text: syntax: expected 4 fields separated by single spaces: board turn pool quiet\n",
        ),
        (
            &[
                "replay",
                "--variant",
                "banqi",
                "--fen",
                "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPkaaeerhcppp 0",
                "--moves",
                "e4xd4",
            ],
            "chuhe: illegal action at ply 1: e4xd4 (target is face down)\n",
        ),
    ];
    for (args, stderr) in cases {
        let run = chuhe(args);
        assert_eq!(
            (run.status, run.stdout.as_str(), run.stderr.as_str()),
            (2, "", stderr),
            "{args:?}"
        );
    }
}

/// BQ-12 through the binary: the two truths and their view give the same `moves` output, and a
/// refused request gives the same message.
#[test]
fn truths_with_one_projection_print_alike() {
    let texts = [
        "(A)(A)1(E)K(E)(R)(R)/(H)c(C)(P)1(P)p(P)/(P)(k)r(a)(a)(e)(e)(r)/1(h)(c)(p)P(p)h(p) r - 0",
        "(p)(p)1(p)K(c)(h)(r)/(e)c(e)(a)1(a)p(k)/(P)(P)r(P)(P)(C)(H)(R)/1(R)(E)(E)P(A)h(A) r - 0",
        "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPkaaeerhcppp 0",
    ];
    let outputs: Vec<(String, String)> = texts
        .iter()
        .map(|t| {
            let moves = chuhe(&["moves", "--variant", "banqi", "--fen", t]).stdout;
            let refused = chuhe(&[
                "replay",
                "--variant",
                "banqi",
                "--fen",
                t,
                "--moves",
                "e4-d4",
            ])
            .stderr;
            (moves, refused)
        })
        .collect();
    assert_eq!(outputs[0].0.lines().count(), 24);
    assert_eq!(
        outputs[0].1,
        "chuhe: illegal action at ply 1: e4-d4 (target is face down)\n"
    );
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[1], outputs[2]);
}
