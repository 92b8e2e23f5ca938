//! Every row of `tests/data/banqi-cases.tsv`: the cases of `tests/data/banqi.md` (the
//! banqi rule cases), row by row, and chuhe's own. A second test checks that every
//! position text quoted in `banqi.md` appears in the table, so no case is left out.

use chuhe_rules::banqi::{Action, Game, Record, Setup, Status, Truth, View};

const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/banqi-cases.tsv"
);
const CASES_MD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/banqi.md");

struct Row {
    line: usize,
    case: String,
    command: String,
    fen: String,
    input: String,
    expected: String,
    after: String,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(CASES).expect("tests/data/banqi-cases.tsv is readable");
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("case\t") || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 6, "line {}: expected 6 columns", i + 1);
        rows.push(Row {
            line: i + 1,
            case: cols[0].to_owned(),
            command: cols[1].to_owned(),
            fen: cols[2].to_owned(),
            input: cols[3].to_owned(),
            expected: cols[4].to_owned(),
            after: cols[5].to_owned(),
        });
    }
    rows
}

fn truth(row: &Row) -> Truth {
    row.fen
        .parse()
        .unwrap_or_else(|e| panic!("line {} ({}): {e}", row.line, row.case))
}

fn inputs(row: &Row) -> Vec<&str> {
    if row.input == "-" {
        Vec::new()
    } else {
        row.input.split(' ').collect()
    }
}

/// Replays the row's recorded actions: `Ok((status word, final text))` or `Err("ply N: reason")`.
fn replay(row: &Row) -> Result<(String, String), String> {
    let start = truth(row);
    let pinned = start.has_pins();
    let mut game = Game::new(start);
    for (i, text) in inputs(row).into_iter().enumerate() {
        let record: Record = text.parse().map_err(|e| format!("ply {}: {e}", i + 1))?;
        game.play_recorded(record)
            .map_err(|reason| format!("ply {}: {reason}", i + 1))?;
    }
    let status = match game.status() {
        Status::Ongoing => "ongoing".to_owned(),
        Status::Ended(o) => format!("{} {}", o.result_text().unwrap_or("?"), o.reason),
        Status::EndedBySeat { .. } => "ended by seat".to_owned(),
    };
    let text = if pinned {
        game.truth().to_truth_text()
    } else {
        game.view().to_string()
    };
    Ok((status, text))
}

#[test]
fn every_case_of_the_table() {
    let rows = rows();
    assert!(rows.len() >= 60, "only {} rows", rows.len());
    for row in &rows {
        let at = format!("line {} ({} {})", row.line, row.case, row.command);
        match row.command.as_str() {
            "moves" => {
                let got: Vec<String> = truth(row)
                    .view()
                    .legal_actions()
                    .iter()
                    .map(Action::to_string)
                    .collect();
                let want: Vec<&str> = if row.expected == "-" {
                    Vec::new()
                } else {
                    row.expected.split(',').collect()
                };
                assert_eq!(got, want, "{at}");
            }
            "replay" => {
                let (status, text) = replay(row).unwrap_or_else(|e| panic!("{at}: {e}"));
                assert_eq!(status, row.expected, "{at}");
                assert_eq!(text, row.after, "{at}");
                // The final text reads back to the same position.
                assert_eq!(
                    text.parse::<Truth>().map(|t| t.to_truth_text()),
                    Ok(text.clone()),
                    "{at}"
                );
            }
            "replay-error" => {
                assert_eq!(replay(row).unwrap_err(), row.expected, "{at}");
            }
            "invalid" => {
                let err = row.fen.parse::<Truth>().unwrap_err();
                assert_eq!(err.kind_str(), row.expected, "{at}: {err}");
            }
            "project" => {
                let t = truth(row);
                assert_eq!(t.view().to_string(), row.expected, "{at}");
                assert_eq!(row.expected.parse::<View>().as_ref(), Ok(t.view()), "{at}");
            }
            "reject" | "accept" => {
                let t = truth(row);
                let action: Action = row.input.parse().unwrap_or_else(|e| panic!("{at}: {e}"));
                let got = match t.view().check(action) {
                    Ok(a) => a.to_string(),
                    Err(reason) => reason.to_string(),
                };
                assert_eq!(got, row.expected, "{at}");
                assert_eq!(
                    t.view().legal_actions().contains(&action),
                    row.command == "accept" && row.input == row.expected,
                    "{at}: the list and the check agree"
                );
            }
            other => panic!("{at}: unknown command {other:?}"),
        }
    }
}

/// Every position text quoted in `banqi.md` (any back-quoted span that parses as one) is used
/// by some row of the table.
#[test]
fn the_table_covers_every_position_of_the_cases_file() {
    let md = std::fs::read_to_string(CASES_MD).expect("tests/data/banqi.md is readable");
    let table = std::fs::read_to_string(CASES).expect("table");
    let cells: Vec<&str> = table
        .lines()
        .flat_map(|l| l.split('\t'))
        .collect::<Vec<_>>();
    let mut quoted = 0;
    for (i, span) in md.split('`').enumerate() {
        if i % 2 == 1 && span.parse::<Setup>().is_ok() {
            quoted += 1;
            assert!(
                cells.contains(&span),
                "banqi.md quotes {span:?}, absent from the table"
            );
        }
    }
    // BQ-01 (4), BQ-02, BQ-03 (5), BQ-05 (2), BQ-07 (2), BQ-08 (4), BQ-09 (2), BQ-11 (4),
    // BQ-12 (2).
    assert_eq!(quoted, 26);
    // Every case heading of banqi.md has rows.
    for heading in md.lines().filter_map(|l| l.strip_prefix("## BQ-")) {
        let id = format!("BQ-{}", &heading[..2]);
        assert!(
            rows().iter().any(|r| r.case.starts_with(&id)),
            "no row for {id}"
        );
    }
}

/// BQ-12 beyond the table: two truths with the same projection give byte-identical views,
/// serialised views, keys, legal actions and refusals, for every action a seat could send.
#[test]
fn bq12_two_truths_are_indistinguishable() {
    let t1: Truth =
        "(A)(A)1(E)K(E)(R)(R)/(H)c(C)(P)1(P)p(P)/(P)(k)r(a)(a)(e)(e)(r)/1(h)(c)(p)P(p)h(p) r - 0"
            .parse()
            .unwrap();
    let t2: Truth =
        "(p)(p)1(p)K(c)(h)(r)/(e)c(e)(a)1(a)p(k)/(P)(P)r(P)(P)(C)(H)(R)/1(R)(E)(E)P(A)h(A) r - 0"
            .parse()
            .unwrap();
    assert_ne!(t1, t2);
    assert_eq!(t1.view(), t2.view());
    assert_eq!(t1.view().key(), t2.view().key());
    assert_eq!(
        serde_json::to_string(t1.view()).unwrap(),
        serde_json::to_string(t2.view()).unwrap()
    );
    assert_eq!(format!("{t1:?}"), format!("{t2:?}"));
    let squares: Vec<_> = chuhe_rules::banqi::Square::all().collect();
    for &from in &squares {
        let flip = Action::Flip(from);
        assert_eq!(t1.view().check(flip), t2.view().check(flip));
        for &to in &squares {
            for a in [Action::Move { from, to }, Action::Capture { from, to }] {
                let r1 = t1.view().check(a).map_err(|e| e.to_string());
                let r2 = t2.view().check(a).map_err(|e| e.to_string());
                assert_eq!(r1, r2, "{a}");
            }
        }
    }
    // A game over either truth refuses e4xd4 the same way.
    for t in [t1, t2] {
        let mut game = Game::new(t);
        assert_eq!(
            game.play("e4xd4".parse().unwrap()).unwrap_err().to_string(),
            "target is face down"
        );
    }
}

/// The one-line messages of invalid texts: the primary kind, the first failure in words, and
/// any further kinds.
#[test]
fn invalid_text_messages() {
    let cases = [
        (
            "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPPkaaeerhcpp 0",
            "invalid position: piece-count: 6 red soldiers (at most 5)",
        ),
        (
            "8/8/8/KK?5 - pp 3",
            "invalid position: piece-count: 2 red generals (at most 1); also pool-size, turn",
        ),
        (
            "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPkaaeerhcppp 0",
            "invalid position: pool-size: 23 ? squares but 22 pieces in the pool",
        ),
        (
            "8/8/8/7K - - 0",
            "invalid position: turn: turn - needs all 32 squares face down",
        ),
        (
            "????????/????????/????????/???????? - KAAEERRHHCCPPPPPkaaeerrhhccppppp 3",
            "invalid position: turn: with turn - quiet must be 0",
        ),
        (
            "8/8/8/(K)?6 b K 0",
            "invalid position: piece-count: 2 red generals (at most 1)",
        ),
        // Valid: no message.
        ("8/8/8/(K)7 r - 0", ""),
    ];
    for (text, message) in cases {
        let got = text
            .parse::<Truth>()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(got, message, "{text}");
    }
    assert_eq!(
        "8/8/8/(K)7 r - 0".parse::<View>().unwrap_err().to_string(),
        "bad position text: syntax: a view text has no pinned squares: write ? for every face-down piece"
    );
}

/// BQ-11's bookkeeping: captured black `p`, red `H` and `C`; 23 face-down squares.
#[test]
fn bq11_derived_counts() {
    let view: View = "??1?K???/?c??1?p?/??r?????/1???P?h? r AAEERRHCPPPPkaaeerhcppp 0"
        .parse()
        .unwrap();
    assert_eq!(view.captured().to_string(), "HCp");
    assert_eq!(view.pool().len(), 23);
    assert_eq!(
        (
            view.remaining(chuhe_rules::xiangqi::Color::Red),
            view.remaining(chuhe_rules::xiangqi::Color::Black)
        ),
        (14, 15)
    );
    assert_eq!(View::start().captured().to_string(), "-");
}
