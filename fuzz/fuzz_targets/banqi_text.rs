//! Any text as a banqi position: parsing never panics, and from a position that loads, legal
//! actions are played (flips, steps, captures) for up to 60 plies; each must be accepted.
#![no_main]

use chuhe_rules::banqi::{Game, Setup, Truth};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(setup) = text.parse::<Setup>() else {
        return;
    };
    let Ok(truth) = Truth::from_setup(setup) else {
        return;
    };
    let mut game = Game::new(truth);
    for ply in 0..60usize {
        let actions = game.legal_moves();
        let Some(&a) = actions.get(ply % actions.len().max(1)) else {
            return;
        };
        game.play(a).expect("a legal action is played");
    }
});
