//! Property tests: no input text panics any reader, and every record read is replayed or
//! refused with an error. Plus PGN write → read over random games gives the same moves.

use chuhe_notation::pgn::{self, WriteOptions};
use chuhe_notation::record::{decode, pgn_date, Encoding, GameRecord, MoveText};
use chuhe_notation::replay::{replay, ReplayOptions};
use chuhe_notation::{dhtmlxq, read_move, read_records, tsv, Dialect, Notation, RankBase};
use chuhe_notation::{ChineseStyle, ReadOptions};
use chuhe_rules::xiangqi::Position;
use proptest::prelude::*;

/// Characters that matter to some reader, so random text often gets deep into the parsers.
const ALPHABET: &[&str] = &[
    "炮",
    "砲",
    "马",
    "馬",
    "车",
    "車",
    "兵",
    "卒",
    "帅",
    "將",
    "仕",
    "士",
    "相",
    "象",
    "前",
    "中",
    "后",
    "後",
    "一",
    "二",
    "三",
    "四",
    "五",
    "六",
    "七",
    "八",
    "九",
    "进",
    "退",
    "平",
    "上",
    "下",
    "１",
    "８",
    "＋",
    "＝",
    "C",
    "H",
    "N",
    "R",
    "P",
    "A",
    "B",
    "E",
    "K",
    "a",
    "b",
    "c",
    "h",
    "i",
    "0",
    "1",
    "2",
    "5",
    "7",
    "9",
    "10",
    "+",
    "-",
    ".",
    "=",
    " ",
    "\n",
    "\r\n",
    "\t",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ";",
    "\"",
    "\\",
    "$",
    "!",
    "?",
    "#",
    "*",
    "1-0",
    "0-1",
    "1/2-1/2",
    "1.",
    "12...",
    "[Event \"",
    "[FEN \"",
    "[Format \"WXF\"]",
    "[DhtmlXQ]",
    "[/DhtmlXQ]",
    "[DhtmlXQ_movelist]",
    "[/DhtmlXQ_movelist]",
    "[DhtmlXQ_binit]",
    "[/DhtmlXQ_binit]",
    "[DhtmlXQ_comment1]",
    "99",
    "7747",
    "id\tstart_fen\tmoves\n",
    "h2e2",
    "C2.5",
    "炮二平五",
    "\u{feff}",
    "\u{3000}",
    "é",
];

fn text_from(parts: &[usize]) -> String {
    parts
        .iter()
        .map(|&i| ALPHABET[i % ALPHABET.len()])
        .collect()
}

fn positions() -> Vec<Position> {
    [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b",
        "3k5/9/2P3P2/2P3P2/2P6/9/9/9/9/4K4 w",
        "3k5/9/9/7R1/9/9/7R1/9/9/4K4 w",
    ]
    .iter()
    .map(|f| Position::from_fen(f).expect("valid"))
    .collect()
}

fn replay_all(records: &[GameRecord]) {
    for r in records {
        // Either outcome is fine; it must not panic.
        let _ = replay(r, ReplayOptions::default());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn read_move_any_string(s in ".{0,12}") {
        for pos in positions() {
            for dialect in [None, Some(Dialect::XqBase), Some(Dialect::FairyStockfish)] {
                for rank_base in [RankBase::Zero, RankBase::One] {
                    let _ = read_move(&pos, &s, ReadOptions { rank_base, dialect, san_rank_base: None });
                }
            }
        }
    }

    #[test]
    fn read_move_alphabet(parts in proptest::collection::vec(any::<usize>(), 0..7)) {
        let s = text_from(&parts);
        for pos in positions() {
            if let Ok(r) = read_move(&pos, &s, ReadOptions::default()) {
                prop_assert!(pos.is_legal(r.mv));
            }
        }
    }

    #[test]
    fn record_readers_any_text(parts in proptest::collection::vec(any::<usize>(), 0..60)) {
        let s = text_from(&parts);
        replay_all(&pgn::read(&s));
        replay_all(&dhtmlxq::read(&s));
        if let Ok(records) = tsv::read(&s) {
            replay_all(&records);
        }
        if let Ok(records) = read_records(&s) {
            replay_all(&records);
        }
        let _ = pgn_date(&s);
    }

    #[test]
    fn record_readers_any_string(s in "(?s).{0,200}") {
        replay_all(&pgn::read(&s));
        replay_all(&dhtmlxq::read(&s));
        let _ = tsv::read(&s);
        let _ = pgn_date(&s);
    }

    #[test]
    fn decode_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(&bytes, Encoding::Auto);
        let _ = decode(&bytes, Encoding::Big5);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A random game written as PGN in each notation reads back to the same moves.
    #[test]
    fn pgn_write_read(choices in proptest::collection::vec(any::<u16>(), 0..80), black_first: bool) {
        let start = if black_first {
            Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 7")
                .expect("valid")
        } else {
            Position::start()
        };
        let mut record = GameRecord::new("1");
        if black_first {
            record.set_tag("FEN", start.to_string());
        }
        let mut pos = start.clone();
        for c in &choices {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[*c as usize % legal.len()];
            record.moves.push(MoveText { text: m.to_string(), comment: Some(format!("c{c}")) });
            pos.play_unchecked(m);
        }
        let replayed = replay(&record, ReplayOptions::default()).expect("random legal game");
        for notation in [Notation::Iccs, Notation::Wxf, Notation::Chinese, Notation::Xboard] {
            let options = WriteOptions { notation, style: ChineseStyle::default() };
            let text = pgn::write_all([(&record, &replayed)], options);
            let back = pgn::read(&text);
            prop_assert_eq!(back.len(), 1);
            let again = replay(&back[0], ReplayOptions::default()).expect("reads back");
            prop_assert_eq!(&again.moves, &replayed.moves);
            prop_assert_eq!(&again.start, &replayed.start);
            let comments: Vec<_> = back[0].moves.iter().map(|m| m.comment.clone()).collect();
            let want: Vec<_> = record.moves.iter().map(|m| m.comment.clone()).collect();
            prop_assert_eq!(comments, want);
        }
    }
}
