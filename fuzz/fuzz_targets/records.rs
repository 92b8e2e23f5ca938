//! Any text as game records (TSV, PGN, DhtmlXQ) and as one move in any notation read against the
//! start position: the readers never panic.
#![no_main]

use chuhe_notation::{pgn, read_move, read_records, ReadOptions};
use chuhe_rules::xiangqi::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let start = Position::start();
    if let Some(first) = text.lines().next() {
        let _ = read_move(&start, first, ReadOptions::default());
    }
    let _ = read_records(&text);
    let _ = pgn::read(&text);
    let _ = chuhe_notation::dhtmlxq::read(&text);
});
