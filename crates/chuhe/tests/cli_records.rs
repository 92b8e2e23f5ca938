//! `chuhe records check` and `chuhe records convert` on the fixtures of `tests/data/records/`:
//! exact standard output and exit status (`spec/cli.md`, "Game records").

use std::process::Command;

/// Runs chuhe from the workspace root; returns (status, stdout, stderr).
fn chuhe(args: &[&str]) -> (i32, String, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("run chuhe");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../tests/data/records/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn check_lists_every_failure_and_counts() {
    let (status, out, err) = chuhe(&["records", "check", "tests/data/records/broken.pgn"]);
    assert_eq!(
        out,
        "tests/data/records/broken.pgn: game 2: ply 3: illegal move \"炮五进五\" (no legal move matches)\n\
         tests/data/records/broken.pgn: game 3: ply 1: ambiguous move \"车二进一\" (h3h4 h6h7)\n\
         tests/data/records/broken.pgn: game 4: ply 2: invalid move text \"Z9\"\n\
         tests/data/records/broken.pgn: game 5: ply 2: move \"K4+1\" after checkmate\n\
         tests/data/records/broken.pgn: game 6: ply 0: bad FEN: invalid position: general-count (each side must have exactly one general)\n\
         {\"games\": 7, \"ok\": 2, \"failed\": 5, \"moves\": 7}\n"
    );
    assert_eq!(status, 1);
    assert_eq!(err, "chuhe: 5 of 7 games failed\n");
}

#[test]
fn check_tsv_with_bad_rows_and_several_files() {
    let (status, out, _) = chuhe(&[
        "records",
        "check",
        "tests/data/records/broken.tsv",
        "tests/data/records/games.dhtmlxq",
    ]);
    assert_eq!(
        out,
        "tests/data/records/broken.tsv: game t2: ply 5: illegal move \"e6e9\" (cannon needs exactly one screen to capture)\n\
         tests/data/records/broken.tsv: game t3: ply 1: illegal move \"h2e3\" (the target holds an own piece)\n\
         {\"games\": 6, \"ok\": 4, \"failed\": 2, \"moves\": 13}\n"
    );
    assert_eq!(status, 1);
}

#[test]
fn check_good_files_exits_zero() {
    for (file, games, moves) in [
        ("formats.pgn", 4, 18),
        ("mixed.pgn", 2, 12),
        ("gb18030.pgn", 1, 4),
        ("games.dhtmlxq", 2, 5),
    ] {
        let path = format!("tests/data/records/{file}");
        let (status, out, err) = chuhe(&["records", "check", &path]);
        assert_eq!(
            out,
            format!("{{\"games\": {games}, \"ok\": {games}, \"failed\": 0, \"moves\": {moves}}}\n"),
            "{file}: {err}"
        );
        assert_eq!(status, 0, "{file}");
    }
}

#[test]
fn check_with_chuhe_rules_prints_where_games_end() {
    // r1 has the start position for the third time at ply 8, r2 reaches the no-capture limit
    // from its FEN's counter at ply 2; both records go on after that and both stay ok.
    let (status, out, _) = chuhe(&[
        "records",
        "check",
        "--rules",
        "chuhe",
        "tests/data/records/rules.tsv",
    ]);
    assert_eq!(
        out,
        "r1 8 threefold-repetition\nr2 2 no-capture-limit\n\
         {\"games\": 3, \"ok\": 3, \"failed\": 0, \"moves\": 13}\n"
    );
    assert_eq!(status, 0);
    // Without --rules nothing ends them.
    let (status, out, _) = chuhe(&["records", "check", "tests/data/records/rules.tsv"]);
    assert_eq!(
        out,
        "{\"games\": 3, \"ok\": 3, \"failed\": 0, \"moves\": 13}\n"
    );
    assert_eq!(status, 0);
}

#[test]
fn convert_writes_the_spec_export_forms() {
    let (status, out, _) = chuhe(&[
        "records",
        "convert",
        "--to",
        "pgn",
        "tests/data/records/spec-export-1.pgn",
    ]);
    assert_eq!(status, 0);
    assert_eq!(out, fixture("spec-export-1.expected.pgn"));
    let (status, out, _) = chuhe(&[
        "records",
        "convert",
        "--to",
        "pgn",
        "--notation",
        "wxf",
        "tests/data/records/spec-export-2.pgn",
    ]);
    assert_eq!(status, 0);
    assert_eq!(out, fixture("spec-export-2.expected.pgn"));
}

#[test]
fn convert_traditional_full_width() {
    let (status, out, _) = chuhe(&[
        "records",
        "convert",
        "--to",
        "pgn",
        "--traditional",
        "--full-width",
        "tests/data/records/spec-export-1.pgn",
    ]);
    assert_eq!(status, 0);
    assert!(
        out.ends_with("\n\n1. 炮二平五 馬８進７\n2. 傌二進三 車９平８ {a comment}\n*\n"),
        "{out}"
    );
}

#[test]
fn convert_to_tsv_recomputes_derived_columns() {
    let (status, out, _) = chuhe(&[
        "records",
        "convert",
        "--to",
        "tsv",
        "tests/data/records/games.dhtmlxq",
    ]);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "id\tsource\tcategory\tresult\ttermination\tplies\tstart_fen\tmoves\trep3_ply\tnocap120_ply\tdate\tecco\tred\tblack\tevent\tsource_ref\n\
         1\t\t\t1/2-1/2\tunknown\t4\trnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\th2e2 h9g7 h0g2 i9h9\t\t\t2001-09-15\t\t甲\t乙\t中炮对屏风马\ttests/data/records/games.dhtmlxq\n\
         2\t\t\t1-0\tstalemate\t1\t3k5/9/R8/9/9/9/9/9/9/4K4 w - - 0 1\ta7a8\t\t\t\t\t\t\t残局\ttests/data/records/games.dhtmlxq\n"
    );
}

#[test]
fn convert_leaves_out_bad_games() {
    let (status, out, err) = chuhe(&[
        "records",
        "convert",
        "--to",
        "tsv",
        "tests/data/records/broken.tsv",
    ]);
    assert_eq!(status, 1);
    let ids: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["t1", "t4"]);
    assert_eq!(
        err,
        "tests/data/records/broken.tsv: game t2: ply 5: illegal move \"e6e9\" (cannon needs exactly one screen to capture)\n\
         tests/data/records/broken.tsv: game t3: ply 1: illegal move \"h2e3\" (the target holds an own piece)\n\
         chuhe: 2 games did not replay and were left out\n"
    );
}

#[test]
fn tsv_to_tsv_reproduces_the_data_rows() {
    // The derived columns (termination, plies, rep3_ply, nocap120_ply) are recomputed and agree.
    let (status, out, _) = chuhe(&[
        "records",
        "convert",
        "--to",
        "tsv",
        "tests/data/records/sample-games.tsv",
    ]);
    assert_eq!(status, 0);
    assert_eq!(out, fixture("sample-games.tsv"));
}

#[test]
fn pgn_round_trip_in_every_notation() {
    // TSV -> PGN (each notation) -> TSV gives the same start positions and moves.
    let moves_of = |tsv: &str| -> Vec<String> {
        tsv.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                format!("{} | {}", f[6], f[7])
            })
            .collect()
    };
    let want = moves_of(&fixture("sample-games.tsv"));
    assert_eq!(want.len(), 164);
    let dir = std::env::temp_dir().join(format!("chuhe-cli-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for notation in ["chinese", "wxf", "iccs"] {
        let (status, pgn, _) = chuhe(&[
            "records",
            "convert",
            "--to",
            "pgn",
            "--notation",
            notation,
            "tests/data/records/sample-games.tsv",
        ]);
        assert_eq!(status, 0);
        let path = dir.join(format!("{notation}.pgn"));
        std::fs::write(&path, pgn).expect("write temp file");
        let path = path.to_string_lossy().into_owned();
        let (status, back, err) = chuhe(&["records", "convert", "--to", "tsv", &path]);
        assert_eq!(status, 0, "{notation}: {err}");
        assert_eq!(moves_of(&back), want, "{notation}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn missing_file_is_an_input_error() {
    let (status, out, err) = chuhe(&["records", "check", "tests/data/records/no-such-file.pgn"]);
    assert_eq!(status, 2);
    assert_eq!(out, "");
    assert!(
        err.starts_with("chuhe: cannot read tests/data/records/no-such-file.pgn: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn lenient_moves_are_noted_not_failed() {
    let (status, out, err) = chuhe(&["records", "check", "tests/data/records/lenient.pgn"]);
    assert_eq!(
        out,
        "{\"games\": 1, \"ok\": 1, \"failed\": 0, \"moves\": 2}\n"
    );
    assert_eq!(
        err,
        "note: tests/data/records/lenient.pgn: game 1: ply 1: non-standard move text \"马5退7\"\n"
    );
    assert_eq!(status, 0);
}

/// The moves column of `convert --to tsv` for one file.
fn tsv_moves(args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["records", "convert", "--to", "tsv"];
    all.extend_from_slice(args);
    let (status, out, _) = chuhe(&all);
    let moves = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(7).unwrap_or("").to_owned())
        .collect();
    (status, moves)
}

#[test]
fn dialect_and_rank_options() {
    let file = "tests/data/records/dialect.pgn";
    assert_eq!(tsv_moves(&[file]), (0, vec!["g6f6".to_owned()]));
    assert_eq!(
        tsv_moves(&["--dialect", "fairy-stockfish", file]),
        (0, vec!["g5f5".to_owned()])
    );
    let file = "tests/data/records/ranks-1-10.pgn";
    assert_eq!(
        tsv_moves(&["--ranks-from-one", file]),
        (0, vec!["h2e2 h9g7".to_owned()])
    );
    // Without the option the same text is read with ranks 0-9 and fails.
    let (status, out, _) = chuhe(&["records", "check", file]);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        "tests/data/records/ranks-1-10.pgn: game 1: ply 1: illegal move \"h3e3\" (no piece on the from-square)\n\
         {\"games\": 1, \"ok\": 0, \"failed\": 1, \"moves\": 0}\n"
    );
}

/// Issue 18: sanguo and banqi records (told by their `Variant` tag) are checked with their own
/// rules and converted in their own record form; TSV refuses them.
#[test]
fn sanguo_and_banqi_records() {
    let (status, out, err) = chuhe(&["records", "check", "tests/data/records/tables.pgn"]);
    assert_eq!(
        out,
        "tests/data/records/tables.pgn: game 3: ply 2: Ra1-Ra3: no piece on the from-point\n\
         {\"games\": 3, \"ok\": 2, \"failed\": 1, \"moves\": 7}\n"
    );
    assert_eq!((status, err.as_str()), (1, "chuhe: 1 of 3 games failed\n"));
    let (status, out, err) = chuhe(&[
        "records",
        "convert",
        "--to",
        "pgn",
        "tests/data/records/tables.pgn",
    ]);
    assert_eq!(status, 1);
    assert_eq!(
        err,
        "tests/data/records/tables.pgn: game 3: ply 2: Ra1-Ra3: no piece on the from-point\n\
         chuhe: 1 games did not replay and were left out\n"
    );
    let input = fixture("tables.pgn");
    let sanguo = input.split("\n\n[Game \"Banqi\"]").next().unwrap();
    assert!(out.starts_with(sanguo), "{out}");
    assert!(out.ends_with(
        "[Winners \"black\"]\n[Termination \"resignation\"]\n[PlyCount \"3\"]\n\n1. c2=R g3=p\n2. a1=C\n0-1\n"
    ));
    let (status, _, err) = chuhe(&[
        "records",
        "convert",
        "--to",
        "tsv",
        "tests/data/records/tables.pgn",
    ]);
    assert_eq!(status, 1);
    assert!(err.starts_with(
        "tests/data/records/tables.pgn: game 1: ply 0: the tsv layout holds xiangqi games only\n"
    ));
}
