//! Any text as a sanguo position: parsing never panics, and from a position that parses the
//! first legal move is played for up to 60 plies (every legal move must be accepted by `play`).
#![no_main]

use chuhe_rules::sanguo::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mut pos) = text.parse::<Position>() else {
        return;
    };
    let printed = pos.to_string();
    let again: Position = printed.parse().expect("a printed position parses");
    assert_eq!(again.to_string(), printed);
    for ply in 0..60usize {
        let moves = pos.legal_moves();
        let Some(&m) = moves.get(ply % moves.len().max(1)) else {
            return;
        };
        pos.play(m).expect("a legal move is played");
    }
});
