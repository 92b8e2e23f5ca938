//! Position texts that break a rule of `spec/sanguo.md` §8.2 (`tests/data/sanguo-invalid.tsv`:
//! text, the failing kinds in order or `-` for a valid text, a note) and moves refused with their
//! reason (`tests/data/sanguo-illegal.tsv`: text, move, reason or `-` for a legal move).

use chuhe_rules::sanguo::{Move, Position};

fn rows(name: &str) -> Vec<(usize, Vec<String>)> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_owned).collect()))
        .collect()
}

#[test]
fn invalid_positions_name_every_failing_kind() {
    let rows = rows("sanguo-invalid.tsv");
    assert!(rows.len() >= 25);
    for (line, cols) in rows {
        let result = Position::from_text(&cols[0]);
        if cols[1] == "-" {
            let pos = result.unwrap_or_else(|e| panic!("line {line}: {e}"));
            assert_eq!(pos.to_string(), cols[0], "line {line}");
            continue;
        }
        let err = match result {
            Ok(_) => panic!("line {line}: accepted, expected {}", cols[1]),
            Err(chuhe_rules::sanguo::ParseError::Invalid(e)) => e,
            Err(e) => panic!("line {line}: {e}"),
        };
        let kinds: Vec<&str> = err.kinds.iter().map(|k| k.as_str()).collect();
        assert_eq!(kinds.join(","), cols[1], "line {line}: {}", cols[2]);
        assert_eq!(
            err.to_string(),
            {
                let mut m = format!("{} ({})", err.kinds[0], err.kinds[0].rule());
                if kinds.len() > 1 {
                    m.push_str(&format!("; also {}", kinds[1..].join(", ")));
                }
                m
            },
            "line {line}"
        );
    }
}

#[test]
fn error_messages() {
    let e = Position::from_text("9/9/9/9/3rK5,9/9/9/9/9,9/9/9/9/3bK5 G - G - 0").unwrap_err();
    assert_eq!(e.kind_str(), "side-defeated");
    assert_eq!(
        e.to_string(),
        "side-defeated (the kingdom to move must be active)"
    );
    let e = Position::from_text("9/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0 ").unwrap_err();
    assert_eq!(e.kind_str(), "syntax");
    assert_eq!(
        e.to_string(),
        "syntax (7 fields instead of 6 separated by single spaces)"
    );
}

#[test]
fn illegal_moves_are_refused_with_their_reason() {
    let rows = rows("sanguo-illegal.tsv");
    assert!(rows.len() >= 25);
    for (line, cols) in rows {
        let pos = Position::from_text(&cols[0]).unwrap_or_else(|e| panic!("line {line}: {e}"));
        let m: Move = cols[1]
            .parse()
            .unwrap_or_else(|e| panic!("line {line}: {e}"));
        let mut after = pos.clone();
        match (after.play(m), cols[2].as_str()) {
            (Ok(_), "-") => assert!(pos.legal_moves().contains(&m), "line {line}"),
            (Ok(_), want) => panic!("line {line}: {} played, expected {want}", cols[1]),
            (Err(reason), want) => {
                assert_eq!(reason.to_string(), want, "line {line}: {}", cols[1]);
                assert_eq!(after, pos, "line {line}: a refused move changes nothing");
            }
        }
    }
}
