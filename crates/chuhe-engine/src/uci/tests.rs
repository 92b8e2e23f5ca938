//! Session transcripts in both dialects (`spec/engine-protocol.md`).

use super::*;
use crate::search::MATE;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

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
fn errors_are_reported() {
    let out = transcript(
        "position startpos moves h2e2\nposition fen 9/9/9/9/9/9/9/9/9/4K4 w\nposition startpos moves h2e2 h3e3\nflop\nsetoption name Contempt value 3\nsetoption name Hash value 0\ngo perft 0\nposition startpos moves h2e2\ngo perft 1\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        &lines[..6],
        &[
            "info string error bad-fen general-count",
            "info string error illegal-move h3e3",
            "info string error unknown-command flop",
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

/// Issue 27: after a refused `position`, `go` does not search the previous board (its move may
/// be illegal in the position the GUI meant); it says why and answers no move, until a valid
/// `position` arrives.
#[test]
fn a_refused_position_leaves_no_position_to_search() {
    let out = transcript(
        "position startpos moves h2e2\nposition fen 9/9/9/9/9/9/9/9/9/4K4 w\ngo depth 3\ngo perft 1\nd\nposition startpos moves h2e2 h3e3\ngo movetime 50\nposition fen 3k5/9/9/9/9/9/9/9/9/4K4 w\ngo perft 1\n",
    );
    assert_eq!(
        out,
        "info string error bad-fen general-count\n\
         info string error no-position last position refused: bad-fen general-count\n\
         bestmove (none)\n\
         info string error no-position last position refused: bad-fen general-count\n\
         \n\
         Nodes searched: 0\n\
         \n\
         info string error no-position last position refused: bad-fen general-count\n\
         info string error illegal-move h3e3\n\
         info string error no-position last position refused: illegal-move h3e3\n\
         bestmove (none)\n\
         e0e1: 1\n\
         e0f0: 1\n\
         \n\
         Nodes searched: 2\n\
         \n"
    );
    let mut s = Session::new(Vec::new());
    s.handle("position fen bad").unwrap();
    assert!(!s.has_position());
    s.handle("position startpos").unwrap();
    assert!(s.has_position());

    // UCCI: `nobestmove`, and `banmoves` has nothing to ban.
    let out = transcript("ucci\nposition fen 9/9/9/9/9/9/9/9/9/4K4 w\nbanmoves h2e2\ngo depth 3\n");
    let tail: Vec<&str> = out.lines().skip_while(|l| *l != "ucciok").skip(1).collect();
    assert_eq!(
        tail,
        [
            "info message error bad-fen general-count",
            "info message error no-position last position refused: bad-fen general-count",
            "info message error no-position last position refused: bad-fen general-count",
            "nobestmove",
        ]
    );
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

/// The output without `time` and `nps` fields and without the `currmove` lines (written after
/// a second of search, so their count depends on the machine).
fn strip_timing(out: &str) -> String {
    out.lines()
        .filter(|l| !l.contains(" currmove "))
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

/// §2: during a search, `position` sets the next position at once, `isready` and `stop` act at
/// once, and `setoption` waits until the search has written its `bestmove`.
#[test]
fn position_isready_and_stop_while_searching_setoption_waits() {
    let mut s = Session::new(Vec::new());
    s.handle("position startpos").unwrap();
    s.handle("go infinite").unwrap();
    s.handle("position startpos moves h2e2").unwrap();
    s.handle("isready").unwrap();
    assert!(s.is_searching());
    s.handle("stop").unwrap();
    s.handle("stop").unwrap();
    s.handle("go depth 3").unwrap();
    s.handle("setoption name Hash value 8").unwrap();
    assert!(!s.is_searching(), "setoption waited for the search");
    assert_eq!(s.options().hash_mib, 8);
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    let lines = lines_without_search_info(&out);
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "readyok");
    assert!(lines[1].starts_with("bestmove "), "{out}");
    // The second search was of the position set during the first: Black to move after h2e2.
    let second: Move = lines[2]["bestmove ".len()..][..4].parse().unwrap();
    let after =
        Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")
            .unwrap();
    assert!(after.is_legal(second), "{out}");
    assert_eq!(s.position(), &after);
}

/// Runs `input` as a pipe delivers it: every line at once, no waiting for `bestmove`.
fn piped(input: &str) -> String {
    let mut out = SharedOut::default();
    run(io::Cursor::new(input.as_bytes().to_vec()), out.clone()).unwrap();
    out.text()
}

/// A writer whose bytes the test can read after [`run`] took it by value.
#[derive(Clone, Default)]
struct SharedOut(Arc<Mutex<Vec<u8>>>);

impl SharedOut {
    fn text(&mut self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for SharedOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// §2: a piped session gives exactly the answers of one typed slowly (one thread, fixed depths
/// and nodes; `time`, `nps` and the timed `currmove` lines aside). The final `ucinewgame` waits
/// for the last search, as it does in Pikafish.
#[test]
fn a_piped_session_answers_as_one_typed_slowly() {
    let script = "uci\nucinewgame\nposition startpos\ngo depth 5\nposition startpos moves h2e2\ngo depth 5\nisready\nsetoption name MultiPV value 2\nposition startpos moves h2e2 h9g7\ngo nodes 3000\nposition fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\ngo depth 4\nucinewgame\n";
    let slow = strip_timing(&transcript(script));
    let fast = strip_timing(&piped(script));
    let best = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("bestmove "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(best(&slow).len(), 4, "{slow}");
    assert_eq!(best(&fast), best(&slow));
    let without_readyok = |t: &str| -> String {
        t.lines()
            .filter(|l| *l != "readyok")
            .map(|l| format!("{l}\n"))
            .collect()
    };
    // `isready` answers at once when piped (during the second search), after it when typed.
    assert_eq!(without_readyok(&fast), without_readyok(&slow));
    assert_eq!(fast.lines().filter(|l| *l == "readyok").count(), 1);
}

/// §4 and issue 18: end of input or `quit` during a search stops it and writes its `bestmove`.
#[test]
fn end_of_input_and_quit_during_a_search_write_bestmove() {
    for script in [
        "position startpos\ngo depth 5\n",
        "position startpos\ngo depth 60\n",
        "position startpos\ngo infinite\nquit\nisready\n",
        "go ponder\nquit\n",
    ] {
        let out = piped(script);
        let last = out.lines().last().unwrap_or("");
        let m: Move = last
            .strip_prefix("bestmove ")
            .unwrap_or_else(|| panic!("{script:?}: {out}"))[..4]
            .parse()
            .unwrap();
        assert!(Position::start().is_legal(m), "{out}");
        assert!(!out.contains("readyok"), "nothing after quit: {out}");
    }
    let out = piped("ucci\nposition startpos\ngo infinite\nquit\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[lines.len() - 1], "bye", "{out}");
    assert!(lines[lines.len() - 2].starts_with("bestmove "), "{out}");
}

/// Issue 18: XBoard's adapter `uci2wb` sends `fen <FEN> moves …` without `position`.
#[test]
fn xboard_fen_line_is_a_position_command() {
    for dialect in ["uci", "ucci"] {
        let mut s = Session::new(Vec::new());
        s.handle(dialect).unwrap();
        s.handle(
            "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1 moves h9g7",
        )
        .unwrap();
        assert_eq!(
            s.position().to_string(),
            "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
        );
        // What uci2wb -c sends for an XBoard game from a set-up position: no `- -` fields.
        s.handle(
            "fen rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RHEAKAEHR b 0 1 moves h9g7 b0c2",
        )
        .unwrap();
        assert_eq!(
            s.position().to_string(),
            "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C4/9/R1BAKABNR b - - 2 2"
        );
        s.handle("fen 9/9/9/9/9/9/9/9/9/4K4 w").unwrap();
        s.handle("fen").unwrap();
        s.quit();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        let prefix = if dialect == "uci" {
            "info string error"
        } else {
            "info message error"
        };
        let errors: Vec<&str> = out.lines().filter(|l| l.contains(" error ")).collect();
        assert_eq!(
            errors,
            [
                format!("{prefix} bad-fen general-count"),
                format!("{prefix} bad-fen bad-rank-count"),
            ]
        );
        assert_eq!(
            s.position().to_string(),
            "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C4/9/R1BAKABNR b - - 2 2"
        );
    }
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

/// Issue 18: a long search reports the root move it searches (`currmove`, as Stockfish does
/// after a second), in each dialect's form; the numbers count the start position's 44 moves.
#[test]
fn long_searches_report_currmove() {
    for (dialect, prefix) in [("uci", "info depth "), ("ucci", "info currmove ")] {
        let mut s = Session::new(Vec::new());
        s.handle(dialect).unwrap();
        s.handle("position startpos").unwrap();
        s.handle("go infinite").unwrap();
        let seen = |s: &Session<Vec<u8>>| {
            s.with_output(|o| String::from_utf8_lossy(o).contains(" currmovenumber "))
        };
        // Polls without a deadline of its own: the search reports once it has run a second.
        while !seen(&s) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        s.handle("stop").unwrap();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        let lines: Vec<&str> = out.lines().filter(|l| l.contains(" currmove ")).collect();
        assert!(!lines.is_empty());
        for l in lines {
            assert!(l.starts_with(prefix), "{l}");
            let t: Vec<&str> = l.split_whitespace().collect();
            let at = t.iter().position(|&w| w == "currmove").unwrap();
            let m: Move = t[at + 1].parse().unwrap();
            assert!(Position::start().is_legal(m), "{l}");
            assert_eq!(t[at + 2], "currmovenumber", "{l}");
            let n: usize = t[at + 3].parse().unwrap();
            assert!((1..=44).contains(&n), "{l}");
            assert_eq!(t.len(), at + 4, "{l}");
        }
    }
}

/// Issue 18: UCCI check options take `1`/`0` (uci2wb sends `setoption ponder 0`) as well as
/// `true`/`false` and `on`/`off`; UCI keeps `true`/`false`.
#[test]
fn ucci_check_options_accept_one_and_zero() {
    let mut s = Session::new(Vec::new());
    s.handle("ucci").unwrap();
    s.handle("setoption ponder 1").unwrap();
    assert!(s.options().ponder);
    s.handle("setoption ponder 0").unwrap();
    assert!(!s.options().ponder);
    s.handle("setoption usemillisec 1").unwrap();
    assert!(s.options().use_millisec);
    s.handle("setoption usemillisec 2").unwrap();
    assert!(s.options().use_millisec);
    let mut u = Session::new(Vec::new());
    u.handle("setoption name Ponder value 1").unwrap();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    assert_eq!(
        out.lines().last(),
        Some("info message error bad-option-value usemillisec 2")
    );
    let out = u.with_output(|o| String::from_utf8(o.clone()).unwrap());
    assert_eq!(out, "info string error bad-option-value Ponder 1\n");
}

/// A `go` that waits behind an infinite search does not stop the input: `isready` is answered
/// and `stop` ends the infinite search at once; then the waiting `go` runs (and the end of
/// input lets it finish). With `quit` instead, the session ends after the first `bestmove`.
#[test]
fn stop_and_quit_act_while_a_go_waits() {
    let out = piped("position startpos\ngo infinite\ngo depth 2\nisready\nstop\n");
    let lines = lines_without_search_info(&out);
    let answers: Vec<&str> = lines
        .iter()
        .filter(|l| *l == "readyok" || l.starts_with("bestmove "))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(answers, ["readyok", "bestmove", "bestmove"], "{out}");

    let out = piped("position startpos\ngo infinite\ngo depth 2\nquit\n");
    let bestmoves = out.lines().filter(|l| l.starts_with("bestmove ")).count();
    assert_eq!(bestmoves, 1, "{out}");
}

/// Issue 27: the in-session `bench` prints `chuhe bench`'s lines and, last, Pikafish's summary
/// that tools parse; the session's position is untouched.
#[test]
fn bench_in_the_session_ends_with_pikafish_summary() {
    let out = transcript("position startpos moves h2e2\nbench 2\nbench 0\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 16 + 1 + 5 + 1, "{out}");
    assert!(lines[0].starts_with("position 1/16: "), "{out}");
    let nodes = lines[16].split_once(" nodes, ").unwrap().0;
    assert_eq!(&lines[17..19], ["", "==========================="]);
    assert!(lines[19].starts_with("Total time (ms) : "), "{out}");
    assert_eq!(lines[20], format!("Nodes searched  : {nodes}"));
    assert!(lines[21].starts_with("Nodes/second    : "), "{out}");
    assert_eq!(lines[22], "info string error bad-bench 0");
    let mut s = Session::new(Vec::new());
    s.handle("position startpos moves h2e2").unwrap();
    s.handle("bench 1").unwrap();
    assert_eq!(s.position().to_string(), {
        let mut p = Position::start();
        p.play("h2e2".parse().unwrap()).unwrap();
        p.to_string()
    });
}

/// Issue 27: `d`, `eval` and `flip` as Pikafish has them, exact for the start position.
#[test]
fn d_eval_and_flip_of_the_start_position() {
    let board = "
 +---+---+---+---+---+---+---+---+---+
 | r | n | b | a | k | a | b | n | r | 9
 +---+---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   |   | 8
 +---+---+---+---+---+---+---+---+---+
 |   | c |   |   |   |   |   | c |   | 7
 +---+---+---+---+---+---+---+---+---+
 | p |   | p |   | p |   | p |   | p | 6
 +---+---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   |   | 5
 +---+---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   |   | 4
 +---+---+---+---+---+---+---+---+---+
 | P |   | P |   | P |   | P |   | P | 3
 +---+---+---+---+---+---+---+---+---+
 |   | C |   |   |   |   |   | C |   | 2
 +---+---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   |   | 1
 +---+---+---+---+---+---+---+---+---+
 | R | N | B | A | K | A | B | N | R | 0
 +---+---+---+---+---+---+---+---+---+
   a   b   c   d   e   f   g   h   i

Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1
";
    let start = Position::start();
    let out = transcript("position startpos\nd\neval\nflip\neval\nflip\nd\n");
    let key = format!("Key: {:016X}\nCheckers: \n", start.key());
    // The board is symmetric, so only the tempo bonus (15 cp) of the side to move counts: Red's
    // after `position startpos`, Black's after `flip`.
    let expected = format!(
        "{board}{key}Final evaluation       +0.15 (red side)\n\
         Final evaluation       -0.15 (red side)\n{board}{key}"
    );
    assert_eq!(out, expected);

    // The flip of the start position is the start position with Black to move.
    let mut s = Session::new(Vec::new());
    s.handle("position startpos").unwrap();
    s.handle("flip").unwrap();
    assert_eq!(
        s.position().to_string(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"
    );
    // A Red Chariot check becomes a Black Chariot check, and `Checkers:` names it.
    s.handle("position fen 3k5/9/9/9/9/9/9/9/9/3RK4 b").unwrap();
    s.handle("flip").unwrap();
    assert_eq!(
        s.position().to_string(),
        "3rk4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    );
    s.handle("d").unwrap();
    let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
    assert!(out.ends_with("\nCheckers: d9 \n"), "{out}");
}

#[test]
fn eval_line_shape() {
    assert_eq!(
        protocol::eval_line(35),
        "Final evaluation       +0.35 (red side)"
    );
    assert_eq!(
        protocol::eval_line(-120),
        "Final evaluation       -1.20 (red side)"
    );
    assert_eq!(
        protocol::eval_line(0),
        "Final evaluation       +0.00 (red side)"
    );
}
