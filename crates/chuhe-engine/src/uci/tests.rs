//! Session transcripts in both dialects (`spec/engine-protocol.md`).

use super::*;
use crate::search::MATE;

/// Runs the lines as a GUI would: after each `go` that ends by itself, waits for `bestmove`.
fn transcript(input: &str) -> String {
    let mut s = Session::new(Vec::new());
    for line in input.lines() {
        if s.handle(line).unwrap() == Flow::Quit {
            break;
        }
        if line.starts_with("go") && !line.contains("infinite") && !line.contains("ponder") {
            s.wait();
        }
    }
    s.quit();
    s.with_output(|o| String::from_utf8(o.clone()).unwrap())
}

#[test]
fn errors_are_reported_and_the_position_kept() {
    let out = transcript(
        "position startpos moves h2e2\nposition fen 9/9/9/9/9/9/9/9/9/4K4 w\nposition startpos moves h2e2 h3e3\nflip\nsetoption name Contempt value 3\nsetoption name Hash value 0\ngo perft 0\ngo perft 1\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        &lines[..6],
        &[
            "info string error bad-fen general-count",
            "info string error illegal-move h3e3",
            "info string error unknown-command flip",
            "info string error unknown-option Contempt",
            "info string error bad-option-value Hash 0",
            "info string error bad-go perft 0",
        ]
    );
    assert_eq!(lines.len(), 6 + 45 + 3);
    assert_eq!(lines[6], "a6a5: 1");
    assert_eq!(lines[lines.len() - 2], "Nodes searched: 45");
    assert_eq!(lines[lines.len() - 1], "");
}

/// 33,554,432 MiB (32 TiB, the option's maximum) cannot be allocated on any machine this runs
/// on (Linux's default overcommit refuses a single mapping larger than RAM and swap): the value
/// is refused with `bad-option-value`, the previous table is kept and the engine still searches.
#[test]
fn unallocatable_hash_is_refused_and_the_old_table_kept() {
    let mut s = Session::new(Vec::new());
    s.handle("setoption name Hash value 8").unwrap();
    let entries = s.tt.len();
    s.handle("setoption name Hash value 33554432").unwrap();
    assert_eq!(s.options().hash_mib, 8);
    assert_eq!(s.tt.len(), entries);
    s.handle("isready").unwrap();
    s.handle("position startpos").unwrap();
    s.handle("go depth 2").unwrap();
    s.wait();
    s.quit();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    let lines = lines_without_search_info(&out);
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "info string error bad-option-value Hash 33554432");
    assert_eq!(lines[1], "readyok");
    assert!(lines[2].starts_with("bestmove "), "{out}");

    // The same through UCCI's `hashsize`.
    let mut s = Session::new(Vec::new());
    s.handle("ucci").unwrap();
    s.handle("setoption hashsize 8").unwrap();
    s.handle("setoption hashsize 33554432").unwrap();
    assert_eq!(s.options().hash_mib, 8);
    assert_eq!(s.tt.len(), entries);
    s.quit();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    assert_eq!(
        out.lines().last(),
        Some("info message error bad-option-value hashsize 33554432"),
        "{out}"
    );
}

#[test]
fn perft_two_and_no_move() {
    let out = transcript("position fen 3k5/9/9/9/9/9/9/9/9/4K4 w\ngo perft 2\n");
    assert_eq!(out, "e0e1: 1\ne0f0: 2\n\nNodes searched: 3\n\n");
    let out = transcript("position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b\ngo depth 5\ngo perft 1\n");
    assert_eq!(
        out,
        "info depth 0 score mate 0\nbestmove (none)\n\nNodes searched: 0\n\n"
    );
}

#[test]
fn uci_identification() {
    let out = transcript("uci\nisready\nquit\nisready\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("id name {}", crate::ENGINE_NAME));
    assert_eq!(
        lines[2],
        "option name Threads type spin default 1 min 1 max 1024"
    );
    assert_eq!(
        lines[12],
        "option name No Capture Limit type spin default 120 min 0 max 1000"
    );
    assert_eq!(lines[13], "uciok");
    assert_eq!(lines[14], "readyok");
    assert_eq!(lines.len(), 15, "nothing after quit");
}

#[test]
fn wdl_sums_to_a_thousand() {
    for v in [-MATE + 3, -400, -150, 0, 20, 150, 900, MATE - 1] {
        let (w, d, l) = wdl(v);
        assert_eq!(w + d + l, 1000, "{v}");
    }
    let (w, _, l) = wdl(0);
    assert_eq!(w, l);
}

fn lines_without_search_info(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with("info depth") && !l.starts_with("info time"))
        .map(str::to_owned)
        .collect()
}

/// `spec/engine-protocol.md` §1: the engine never walks into a repetition that loses.
#[test]
fn perpetual_check_is_not_completed() {
    let out = transcript(
        "position fen 4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1 moves a8a9 e9e8 a9a8 e8e9 a8a9 e9e8\ngo depth 4\n",
    );
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("bestmove "), "{out}");
    assert_ne!(last.split_whitespace().nth(1), Some("a9a8"), "{out}");
}

fn strip_timing(out: &str) -> String {
    out.lines()
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let mut kept = Vec::new();
            let mut i = 0;
            while i < t.len() {
                if t[i] == "time" || t[i] == "nps" {
                    i += 2;
                } else {
                    kept.push(t[i]);
                    i += 1;
                }
            }
            kept.join(" ") + "\n"
        })
        .collect()
}

/// §1: with one thread and a depth or nodes limit the output repeats exactly.
#[test]
fn fixed_depth_and_nodes_searches_repeat_exactly() {
    let script = "ucinewgame\nposition startpos moves h2e2 h9g7\ngo depth 6\ngo nodes 3000\n";
    let a = strip_timing(&transcript(script));
    let b = strip_timing(&transcript(script));
    assert_eq!(a, b);
    assert!(a.contains("info depth 6 seldepth"), "{a}");
    // The last pv line before each bestmove starts with the best move.
    let lines: Vec<&str> = a.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(m) = l.strip_prefix("bestmove ") {
            let m = m.split_whitespace().next().unwrap();
            let pv = lines[..i]
                .iter()
                .rev()
                .find(|l| l.contains(" pv "))
                .unwrap();
            assert_eq!(pv.split(" pv ").nth(1).unwrap().split(' ').next(), Some(m));
        }
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
        2
    );
}

#[test]
fn busy_isready_and_stop_while_searching() {
    let mut s = Session::new(Vec::new());
    s.handle("position startpos").unwrap();
    s.handle("go infinite").unwrap();
    s.handle("position startpos moves h2e2").unwrap();
    s.handle("setoption name Hash value 8").unwrap();
    s.handle("isready").unwrap();
    s.handle("stop").unwrap();
    s.handle("stop").unwrap();
    s.handle("position startpos moves h2e2").unwrap();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    let lines = lines_without_search_info(&out);
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "info string error busy position");
    assert_eq!(lines[1], "info string error busy setoption");
    assert_eq!(lines[2], "readyok");
    assert!(lines[3].starts_with("bestmove "), "{out}");
    assert_eq!(
        s.position().to_string(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    );
    assert_eq!(s.options().hash_mib, 16);
}

#[test]
fn ponder_then_ponderhit_ends_with_bestmove() {
    let mut s = Session::new(Vec::new());
    s.handle("go ponder movetime 30").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(60));
    assert!(s.is_searching(), "no bestmove while pondering");
    s.handle("ponderhit").unwrap();
    s.wait();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    assert!(
        out.lines().last().unwrap().starts_with("bestmove "),
        "{out}"
    );
}

#[test]
fn go_errors_and_options() {
    let out = transcript(
        "go nodes 500 frobnicate\nsetoption name MultiPV value 3\nsetoption name UCI_ShowWDL value true\ngo depth 2\nsetoption name UCI_Variant value shogi\nsetoption name EvalFile value x\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "info string error bad-go frobnicate");
    let depth2: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 2 ") && l.contains(" wdl "))
        .collect();
    assert_eq!(depth2.len(), 3, "{out}");
    for (k, l) in depth2.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} score cp ", k + 1)), "{l}");
        assert!(l.contains(" wdl "), "{l}");
    }
    assert_eq!(
        &lines[lines.len() - 2..],
        &[
            "info string error bad-option-value UCI_Variant shogi",
            "info string error unknown-option EvalFile"
        ]
    );
}

#[test]
fn skill_level_zero_plays_a_legal_move_at_depth_one() {
    let out = transcript("setoption name Skill Level value 0\nposition startpos\ngo depth 8\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.iter().all(|l| !l.starts_with("info depth 2")),
        "{out}"
    );
    let m: Move = lines.last().unwrap()["bestmove ".len()..][..4]
        .parse()
        .unwrap();
    assert!(Position::start().is_legal(m));
}

#[test]
fn ucci_session() {
    let mut s = Session::new(Vec::new());
    for l in [
        "ucci",
        "setoption usemillisec true",
        "setoption bogus 3",
        "setoption hashsize x",
        "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2 h9g7",
        "banmoves h0g2 z9z9",
        "stop",
        "go depth 0",
        "go depth 3",
    ] {
        s.handle(l).unwrap();
    }
    s.wait();
    s.handle("probe startpos moves h2e2 h9g7").unwrap();
    s.handle("position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b").unwrap();
    s.handle("go depth 3").unwrap();
    s.handle("quit").unwrap();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("id name {}", crate::ENGINE_NAME));
    assert_eq!(lines[2], "option usemillisec type check default false");
    assert_eq!(lines[9], "ucciok");
    assert_eq!(lines[10], "info message error bad-option-value hashsize x");
    assert_eq!(lines[11], "info message error illegal-move z9z9");
    assert_eq!(lines[12], "nobestmove");
    assert_eq!(lines[13], "nobestmove");
    assert!(lines[14].starts_with("info depth 1 score "), "{out}");
    assert!(lines[15].starts_with("info time "), "{out}");
    let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
    assert!(!best.starts_with("bestmove h0g2"), "{out}");
    let probe = lines.iter().find(|l| l.starts_with("pophash")).unwrap();
    assert!(probe.starts_with("pophash bestmove "), "{probe}");
    assert_eq!(&lines[lines.len() - 2..], &["nobestmove", "bye"]);
}
