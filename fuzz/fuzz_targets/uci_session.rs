//! Any bytes as lines of a UCI or UCCI session: the engine answers and never panics. Searches are
//! cut to depth 1, the table is 1 MiB and table-size and thread options are skipped so that one input runs in milliseconds.
#![no_main]

use chuhe_engine::uci::{Flow, Session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mut session) = Session::with_hash(Vec::new(), 1) else {
        return;
    };
    for line in text.lines().take(64) {
        let lower = line.to_ascii_lowercase();
        let line = if lower.trim_start().starts_with("go") && !lower.contains("perft") {
            "go depth 1"
        } else if lower.contains("hash") || lower.contains("thread") || lower.contains("perft") {
            continue;
        } else {
            line
        };
        match session.handle(line) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) | Err(_) => break,
        }
        session.wait();
    }
    session.quit();
});
