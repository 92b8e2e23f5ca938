//! Any text as a xiangqi FEN, optionally followed by `moves` in ICCS: parsing never panics, a
//! position that parses prints a FEN that parses to the same position, and the moves are played
//! through `Game` (checked play, the repetition judge) until one is refused or the game ends.
#![no_main]

use chuhe_rules::xiangqi::{Game, GameOptions, Move, Position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (fen, moves) = match text.split_once(" moves ") {
        Some((f, m)) => (f, m),
        None => (&*text, ""),
    };
    let Ok(pos) = Position::from_fen(fen) else {
        return;
    };
    let printed = pos.to_string();
    let again = Position::from_fen(&printed).expect("a printed FEN parses");
    assert_eq!(again.to_string(), printed);
    assert_eq!(pos.count_legal_moves(), pos.legal_moves().len());
    let mut game = Game::new(pos, GameOptions::default());
    for word in moves.split_whitespace().take(400) {
        let Ok(m) = word.parse::<Move>() else {
            return;
        };
        if game.play(m).is_err() {
            return;
        }
        let p = game.position();
        assert_eq!(p.key(), p.compute_key());
    }
});
