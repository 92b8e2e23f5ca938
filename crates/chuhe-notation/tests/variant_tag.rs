//! A record whose `Variant` tag names another game is refused, never read as xiangqi.

use chuhe_notation::pgn;
use chuhe_notation::replay::{replay, ReplayOptions};

fn first(text: &str) -> chuhe_notation::record::GameRecord {
    pgn::read(text).into_iter().next().expect("one game")
}

#[test]
fn another_games_record_is_refused() {
    let chess = first("[Variant \"chess\"]\n\n1. e4 e5 *\n");
    let e = replay(&chess, ReplayOptions::default()).unwrap_err();
    assert_eq!(e.ply, 0);
    assert_eq!(
        e.to_string(),
        "bad record: variant \"chess\" is not xiangqi (nor sanguo or banqi)"
    );
    for word in ["xiangqi", "Xiangqi", "chinese chess"] {
        let ok = first(&format!("[Variant \"{word}\"]\n\n1. h2e2 h9g7 *\n"));
        let r = replay(&ok, ReplayOptions::default()).unwrap_or_else(|e| panic!("{word}: {e}"));
        assert_eq!(r.moves.len(), 2, "{word}");
    }
}
