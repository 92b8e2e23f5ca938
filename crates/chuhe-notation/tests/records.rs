//! Reading record files: the fixtures of `tests/data/records/` read into exactly the tags, move
//! texts and comments they hold (PGN §8.1, DhtmlXQ §9).

use chuhe_notation::record::{decode, Encoding, GameRecord};
use chuhe_notation::replay::{replay, ReplayOptions};
use chuhe_notation::{dhtmlxq, pgn, read_records};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../tests/data/records/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    decode(&bytes, Encoding::Auto)
}

fn texts(g: &GameRecord) -> Vec<&str> {
    g.moves.iter().map(|m| m.text.as_str()).collect()
}

fn iccs(g: &GameRecord) -> Vec<String> {
    replay(g, ReplayOptions::default())
        .unwrap_or_else(|e| panic!("game {}: {e}", g.id))
        .moves
        .iter()
        .map(|m| m.to_string())
        .collect()
}

#[test]
fn pgn_movetext_forms() {
    let games = pgn::read(&fixture("mixed.pgn"));
    assert_eq!(games.len(), 2);
    let g = &games[0];
    assert_eq!(g.id, "1");
    assert_eq!(g.tag("Red"), Some("a \"quoted\" name"));
    assert_eq!(g.tag("Black"), Some("b\\c"));
    assert_eq!(g.result(), "1/2-1/2");
    assert_eq!(
        texts(g),
        [
            "炮二平五",
            "马8进7",
            "马二进三",
            "车9平8",
            "车一平二",
            "卒7进1",
            "车二进六"
        ]
    );
    assert_eq!(g.moves[0].comment.as_deref(), Some("centre cannon"));
    assert_eq!(g.moves[3].comment.as_deref(), Some("the usual"));
    assert_eq!(g.moves[2].comment, None);
    let g = &games[1];
    assert_eq!(g.id, "2");
    assert_eq!(g.result(), "0-1");
    assert_eq!(
        texts(g),
        ["马８进７", "马二进三", "车９平８", "车一平二", "卒７进１"]
    );
    assert_eq!(iccs(g), ["h9g7", "h0g2", "i9h9", "i0h0", "g6g5"]);
}

#[test]
fn every_notation_gives_the_same_moves() {
    let games = pgn::read(&fixture("formats.pgn"));
    assert_eq!(games.len(), 4);
    assert_eq!(
        iccs(&games[0]),
        ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "g6g5"]
    );
    for g in &games[1..] {
        assert_eq!(iccs(g), ["h2e2", "h9g7", "h0g2", "i9h9"], "game {}", g.id);
    }
}

#[test]
fn gb18030_and_big5() {
    let games = read_records(&fixture("gb18030.pgn")).expect("pgn");
    assert_eq!(games[0].tag("Event"), Some("GB18030 编码"));
    assert_eq!(games[0].tag("Red"), Some("红方"));
    // 炮二平五 in Big5 is only read as Big5 when asked.
    let big5 = [0xac, 0xb6, 0xa4, 0x47, 0xa5, 0xad, 0xa4, 0xad];
    assert_eq!(decode(&big5, Encoding::Big5), "炮二平五");
}

#[test]
fn dhtmlxq_blocks() {
    let games = dhtmlxq::read(&fixture("games.dhtmlxq"));
    assert_eq!(games.len(), 2);
    let g = &games[0];
    assert_eq!(g.tag("Event"), Some("中炮对屏风马"));
    assert_eq!(g.tag("Site"), Some("北京"));
    assert_eq!(g.tag("Red"), Some("甲"));
    assert_eq!(g.result(), "1/2-1/2");
    assert_eq!(g.tag("FEN"), Some(chuhe_rules::xiangqi::START_FEN));
    assert_eq!(texts(g), ["h2e2", "h9g7", "h0g2", "i9h9"]);
    assert_eq!(g.comment.as_deref(), Some("开局\n第二行"));
    assert_eq!(g.moves[1].comment.as_deref(), Some("屏风马"));
    let g = &games[1];
    assert_eq!(g.tag("FEN"), Some("3k5/9/R8/9/9/9/9/9/9/4K4 w - - 0 1"));
    assert_eq!(g.result(), "1-0");
    // A malformed binit is reported at ply 0.
    let bad = dhtmlxq::read("[DhtmlXQ][DhtmlXQ_binit]0919[/DhtmlXQ_binit][/DhtmlXQ]");
    let e = replay(&bad[0], ReplayOptions::default()).unwrap_err();
    assert_eq!(e.ply, 0);
    assert_eq!(
        e.to_string(),
        "bad record: binit has 4 characters, expected 64 (32 two-digit squares)"
    );
}

#[test]
fn black_to_move_from_binit() {
    // Black's horse h9 moves first: Black is to move.
    let text = "[DhtmlXQ][DhtmlXQ_binit]\
                0919293949596979891777062646668600102030405060708012720323436383\
                [/DhtmlXQ_binit][DhtmlXQ_movelist]7062[/DhtmlXQ_movelist][/DhtmlXQ]";
    let g = &dhtmlxq::read(text)[0];
    assert_eq!(
        g.tag("FEN"),
        Some("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")
    );
    assert_eq!(iccs(g), ["h9g7"]);
}

#[test]
fn wxf_tokens_that_look_like_move_numbers() {
    // `77.6` is a WXF move (middle soldier of three, two tandem files), not move 77.
    let text = "[FEN \"3k5/9/2P3P2/2P3P2/2P6/9/9/9/9/4K4 w\"]\n\n1. 77.6 K4+1 2.77.6 *\n";
    let g = &pgn::read(text)[0];
    assert_eq!(texts(g), ["77.6", "K4+1", "77.6"]);
    let e = replay(g, ReplayOptions::default()).unwrap_err();
    // After c6d6 the file holds two soldiers: `77.6` now names none.
    assert_eq!(e.ply, 3);
    assert_eq!(
        iccs(&pgn::read(&text.replace(" 2.77.6", ""))[0]),
        ["c6d6", "d9d8"]
    );
}

#[test]
fn placement_errors_are_tolerated_in_records_only() {
    // games.tsv ccpd-030520: a Black advisor on g0 (a typo in the source's set-up).
    let fen = "rnb1kabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAaNR w - - 0 1";
    assert_eq!(
        chuhe_rules::xiangqi::Position::from_fen(fen)
            .unwrap_err()
            .to_string(),
        "invalid position: advisor-square (an advisor must stand on one of its 5 palace points)"
    );
    let mut rec = GameRecord::new("ccpd-030520");
    rec.set_tag("FEN", fen);
    let start = chuhe_notation::replay::start_position(&rec).expect("tolerated");
    assert_eq!(start.to_string(), fen);
    // Any other kind still refuses the record.
    rec.set_tag(
        "FEN",
        "rnb1kabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1AaNR w",
    );
    let e = replay(&rec, ReplayOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad FEN: invalid position: general-count (each side must have exactly one general); also advisor-square"
    );
}
