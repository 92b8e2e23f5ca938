//! Move → text → move over every legal move of many positions, in every notation chuhe writes:
//! ICCS (ranks 0–9 and 1–10, with and without hyphen), WXF official, Chinese (simplified,
//! traditional, full-width digits). The text must read back, at tier 1, to the same move.
//! Positions: the perft suite, `positions.tsv`, positions along sample games, the worked
//! examples, and (proptest) random playouts from the start.

use chuhe_notation::{
    read_move, write_chinese, write_iccs, write_iccs_hyphen, write_wxf, ChineseStyle, RankBase,
    ReadOptions, Tier,
};
use chuhe_rules::xiangqi::{Move, Position};
use proptest::prelude::*;

fn data(path: &str) -> String {
    let path = format!("{}/../../tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Checks every legal move of `pos` in every notation; returns how many texts were read.
fn round_trip_all(pos: &Position) -> usize {
    let zero = ReadOptions::default();
    let one = ReadOptions {
        rank_base: RankBase::One,
        ..ReadOptions::default()
    };
    let styles = [
        ChineseStyle::default(),
        ChineseStyle {
            traditional: true,
            full_width_digits: false,
        },
        ChineseStyle {
            traditional: false,
            full_width_digits: true,
        },
    ];
    let mut n = 0;
    for &m in &pos.legal_moves() {
        let mut texts: Vec<(String, ReadOptions)> = vec![
            (write_iccs(m, RankBase::Zero), zero),
            (write_iccs_hyphen(m), zero),
            (write_iccs(m, RankBase::One), one),
            (write_wxf(pos, m).expect("legal"), zero),
        ];
        for style in styles {
            texts.push((write_chinese(pos, m, style).expect("legal"), zero));
        }
        for (text, opts) in texts {
            let got = read_move(pos, &text, opts);
            assert_eq!(
                got.as_ref().map(|r| (r.mv, r.tier)),
                Ok((m, Tier::Standard)),
                "{pos} {m} written {text:?} read back as {got:?}"
            );
            n += 1;
        }
    }
    n
}

fn table_fens(text: &str, column: &str) -> Vec<String> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = header
        .iter()
        .position(|&h| h == column)
        .expect("column present");
    lines
        .map(|l| l.split('\t').nth(col).unwrap_or("").to_owned())
        .collect()
}

#[test]
fn perft_suite_positions() {
    let mut fens = table_fens(&data("xiangqi-perft.tsv"), "fen");
    fens.sort();
    fens.dedup();
    let mut texts = 0;
    for fen in &fens {
        texts += round_trip_all(&Position::from_fen(fen).expect("valid perft FEN"));
    }
    assert_eq!(fens.len(), 16);
    assert_eq!(texts, 2149);
}

#[test]
fn test_positions_and_worked_examples() {
    let mut n = 0;
    let positions = format!("{}/../../data/positions.tsv", env!("CARGO_MANIFEST_DIR"));
    let positions =
        std::fs::read_to_string(&positions).unwrap_or_else(|e| panic!("{positions}: {e}"));
    for fen in table_fens(&positions, "fen")
        .into_iter()
        .chain(table_fens(&data("notation/writing.tsv"), "fen"))
    {
        n += round_trip_all(&Position::from_fen(&fen).expect("valid FEN"));
    }
    assert!(n > 20_000, "{n}");
}

#[test]
fn positions_along_sample_games() {
    let text = data("records/sample-games.tsv");
    let games = chuhe_notation::tsv::read(&text).expect("games TSV");
    let mut positions = 0;
    for g in &games {
        let mut pos = chuhe_notation::replay::start_position(g).expect("start");
        for (ply, mt) in g.moves.iter().enumerate() {
            if ply % 9 == 0 {
                round_trip_all(&pos);
                positions += 1;
            }
            let m: Move = mt.text.parse().expect("ICCS");
            pos.play(m).expect("legal");
        }
    }
    assert!(positions > 1_000, "{positions}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random playouts: at every position on the way, every legal move round-trips.
    #[test]
    fn random_playouts(choices in proptest::collection::vec(any::<u16>(), 0..120)) {
        let mut pos = Position::start();
        for (i, c) in choices.iter().enumerate() {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if i % 6 == 0 {
                round_trip_all(&pos);
            }
            let m = moves[*c as usize % moves.len()];
            pos.play(m).expect("legal");
        }
        round_trip_all(&pos);
    }
}
