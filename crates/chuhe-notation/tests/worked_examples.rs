//! The worked examples of `spec/notation.md` §7, read from `tests/data/notation/*.tsv`: every
//! move written in WXF and Chinese (simplified and traditional) exactly as the table says, and
//! every spelling of the table (WXF, Chinese, XQBase, Fairy-Stockfish) read back to the move.

use chuhe_notation::{
    read_move, write_chinese, write_wxf, ChineseStyle, Dialect, ReadErrorKind, ReadOptions,
};
use chuhe_rules::xiangqi::{Move, Position};

fn table(name: &str) -> Vec<Vec<String>> {
    let path = format!(
        "{}/../../tests/data/notation/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

#[test]
fn writing_table() {
    let rows = table("writing.tsv");
    assert_eq!(rows.len(), 49);
    let traditional = ChineseStyle {
        traditional: true,
        ..ChineseStyle::default()
    };
    for r in &rows {
        let pos = Position::from_fen(&r[2]).unwrap();
        let m: Move = r[3].parse().unwrap();
        let row = &r[0];
        assert_eq!(write_wxf(&pos, m).unwrap(), r[4], "row {row} WXF");
        assert_eq!(
            write_chinese(&pos, m, ChineseStyle::default()).unwrap(),
            r[5],
            "row {row} Chinese"
        );
        assert_eq!(
            write_chinese(&pos, m, traditional).unwrap(),
            r[6],
            "row {row} traditional"
        );
        // Every spelling of the row reads back to the move, without a hint ...
        for (col, text) in ["wxf", "chinese", "traditional", "xqbase", "fsf"]
            .iter()
            .zip(&r[4..9])
        {
            let got = read_move(&pos, text, ReadOptions::default());
            assert_eq!(
                got.as_ref().map(|x| x.mv),
                Ok(m),
                "row {row} reading {col} {text:?}: {got:?}"
            );
        }
        // ... and with its dialect named.
        for (dialect, text) in [
            (Dialect::Official, &r[4]),
            (Dialect::XqBase, &r[7]),
            (Dialect::FairyStockfish, &r[8]),
        ] {
            let opts = ReadOptions {
                dialect: Some(dialect),
                ..ReadOptions::default()
            };
            let got = read_move(&pos, text, opts).map(|x| x.mv);
            assert_eq!(got, Ok(m), "row {row} reading {text:?} as {dialect:?}");
        }
    }
}

#[test]
fn full_width_digits_for_black() {
    let pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b")
        .unwrap();
    let style = ChineseStyle {
        full_width_digits: true,
        ..ChineseStyle::default()
    };
    assert_eq!(
        write_chinese(&pos, "h9g7".parse().unwrap(), style).unwrap(),
        "马８进７"
    );
    // Red keeps its numerals.
    assert_eq!(
        write_chinese(&Position::start(), "h2e2".parse().unwrap(), style).unwrap(),
        "炮二平五"
    );
}

#[test]
fn reading_table() {
    let rows = table("reading.tsv");
    assert_eq!(rows.len(), 44);
    for r in &rows {
        let pos = Position::from_fen(&r[1]).unwrap();
        let got = read_move(&pos, &r[2], ReadOptions::default());
        let got_text = match &got {
            Ok(x) => x.mv.to_string(),
            Err(e) => e.kind().as_str().to_owned(),
        };
        assert_eq!(got_text, r[3], "{} {:?}: {got:?}", r[0], r[2]);
    }
}

#[test]
fn error_messages() {
    let pos = Position::start();
    let o = ReadOptions::default();
    let msg = |t: &str| read_move(&pos, t, o).unwrap_err().to_string();
    assert_eq!(msg("Z9"), "invalid move text \"Z9\"");
    assert_eq!(
        msg("h2h8"),
        "illegal move \"h2h8\" (cannon path is blocked)"
    );
    assert_eq!(msg("C2+6"), "illegal move \"C2+6\" (no legal move matches)");
    let rr = Position::from_fen("3k5/9/9/7R1/9/9/7R1/9/9/4K4 w").unwrap();
    let e = read_move(&rr, "R2+1", o).unwrap_err();
    assert_eq!(e.kind(), ReadErrorKind::Ambiguous);
    assert_eq!(e.to_string(), "ambiguous move \"R2+1\" (h3h4 h6h7)");
}

#[test]
fn tiers_of_the_reading_examples() {
    use chuhe_notation::{RankBase, Tier};
    let s = Position::start();
    let sb = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b")
        .unwrap();
    let x =
        Position::from_fen("3kna3/4a2C1/P3b4/1R2Pr3/4n1p1p/2pr4P/2P3P2/6N1B/R8/1NBAKA3 b").unwrap();
    let o = ReadOptions::default();
    let tier = |pos: &Position, t: &str| read_move(pos, t, o).map(|r| (r.mv.to_string(), r.tier));
    let ok = |m: &str, t: Tier| Ok((m.to_owned(), t));
    assert_eq!(tier(&s, "炮二平五"), ok("h2e2", Tier::Standard));
    assert_eq!(tier(&s, "C2=5"), ok("h2e2", Tier::Standard));
    assert_eq!(tier(&s, "H2-E2"), ok("h2e2", Tier::Standard));
    assert_eq!(tier(&s, "C25"), ok("h2e2", Tier::Dialect));
    assert_eq!(tier(&s, "炮2平5"), ok("h2e2", Tier::Dialect));
    assert_eq!(tier(&s, "炮二平5"), ok("h2e2", Tier::Dialect));
    assert_eq!(tier(&s, "N2+3"), ok("h0g2", Tier::Dialect));
    assert_eq!(tier(&sb, "马８进７"), ok("h9g7", Tier::Standard));
    assert_eq!(tier(&sb, "马八进七"), ok("h9g7", Tier::Dialect));
    assert_eq!(tier(&x, "H5-7"), ok("e5g6", Tier::Dialect));
    assert_eq!(tier(&x, "N+-7"), ok("e5g6", Tier::Dialect));
    assert_eq!(tier(&x, "马5退7"), ok("e5g6", Tier::NonStandard));
    // Ranks 1-10 only when asked.
    let one = ReadOptions {
        rank_base: RankBase::One,
        ..ReadOptions::default()
    };
    let black = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")
        .unwrap();
    assert_eq!(
        read_move(&black, "A10-A9", one).map(|r| r.mv.to_string()),
        Ok("a9a8".to_owned())
    );
    assert_eq!(
        read_move(&s, "h3e3", one).map(|r| r.mv.to_string()),
        Ok("h2e2".to_owned())
    );
    assert_eq!(
        read_move(&black, "a10a9", o).unwrap_err().kind(),
        ReadErrorKind::Invalid
    );
    assert_eq!(
        read_move(&s, "h0e0", one).unwrap_err().kind(),
        ReadErrorKind::Invalid
    );
}
