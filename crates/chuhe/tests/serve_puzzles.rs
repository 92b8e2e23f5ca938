//! `chuhe puzzles generate --database` (spec/cli.md, "Puzzles"; docs/puzzles.md, "A site's own
//! games"): a real master game played on a running `chuhe serve` is mined from the server's own
//! database, beside the server, into the same puzzles as the same game read from a games file;
//! a second run mines nothing again; a database that is not there is refused with its reason.
//! Needs Fairy-Stockfish (`scripts/setup` installs it).

mod common;

use common::play::{self, Seat};
use common::{free_port, serve, wait_healthy, Running, TempDir, CHUHE};
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// CCPD 7647 (a master game of data/games.tsv that Black wins in 34 plies).
const GAME_ID: &str = "ccpd-007647";

/// Runs `chuhe puzzles generate ARGS` from the repository's root: (status, stdout, stderr).
fn generate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(CHUHE)
        .args(["puzzles", "generate", "--threads", "1"])
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("CHUHE_DATABASE")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The data rows of a puzzles file, each as its fields.
fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

#[test]
fn a_servers_finished_games_are_mined_from_its_database() {
    let dir = TempDir::new("puzzles-database");
    let games_tsv =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/games.tsv"))
            .unwrap();
    let header = games_tsv.lines().next().unwrap();
    let row = games_tsv
        .lines()
        .find(|l| l.starts_with(&format!("{GAME_ID}\t")))
        .unwrap();
    let moves_col = header.split('\t').position(|h| h == "moves").unwrap();
    let moves: Vec<&str> = row.split('\t').nth(moves_col).unwrap().split(' ').collect();
    let file = dir.0.join("game.tsv");
    std::fs::write(&file, format!("{header}\n{row}\n")).unwrap();

    // The game played on a server to its checkmate, and a game left running.
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let table = runtime.block_on(async {
        let red = play::account(&base, "Hu Ronghua", "jade-bridge-7").await;
        let black = play::account(&base, "Liu Dahua", "river-bank-42").await;
        let table = play::create_table(&base, &red, json!({"variant": "xiangqi"})).await;
        let mut r = Seat::connect(&base, &table, &red).await;
        let mut b = Seat::connect(&base, &table, &black).await;
        // The last move mates: the game ends with it.
        play::start_and_play(&base, &table, &mut r, &mut b, &moves).await;
        let running = play::create_table(&base, &red, json!({"variant": "xiangqi"})).await;
        let mut r2 = Seat::connect(&base, &running, &red).await;
        let mut b2 = Seat::connect(&base, &running, &black).await;
        play::start_and_play(&base, &running, &mut r2, &mut b2, &moves[..4]).await;
        table
    });

    let from_file = dir.0.join("from-file.tsv");
    let (status, out, err) = generate(&[
        "--games",
        file.to_str().unwrap(),
        "--out",
        from_file.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{out}{err}");
    let expected = rows(&from_file);
    assert!(!expected.is_empty(), "CCPD 7647 gives a puzzle: {out}");

    // Mined from the server's database while the server runs.
    let from_db = dir.0.join("from-database.tsv");
    let args = ["--database", &database, "--out", from_db.to_str().unwrap()];
    let (status, out, err) = generate(&args);
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.starts_with("games: 1 (1 mined now, 0 finished before)\n"),
        "the running game is not mined: {out}"
    );
    let got = rows(&from_db);
    assert_eq!(got.len(), expected.len(), "{out}");
    for (g, e) in got.iter().zip(&expected) {
        // id = game id and ply; game_id = the table; row = 1 in both; the rest is the same.
        let ply = &e[8];
        assert_eq!(g[0], format!("{table}-{ply}"));
        assert_eq!(g[6], table);
        assert_eq!(g[1..6], e[1..6], "fen, last move, solution, themes, rating");
        assert_eq!(g[7..], e[7..], "row, ply, scores, verifier");
    }

    // Run again: nothing new.
    let (status, out, err) = generate(&args);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.starts_with("games: 1 (0 mined now, 1 finished before)\ncandidates: 0\nkept: 0\n"),
        "{out}"
    );
    assert_eq!(rows(&from_db), got);

    // A database that is not there: refused with the reason, and not made.
    let missing = dir.0.join("none.db");
    let (status, out, err) = generate(&[
        "--database",
        &format!("sqlite://{}", missing.display()),
        "--out",
        dir.0.join("x.tsv").to_str().unwrap(),
    ]);
    assert_eq!(status, 1, "{out}");
    assert!(err.contains("cannot read the finished games"), "{err}");
    assert!(!missing.exists());
    let (status, _, err) = generate(&[
        "--database",
        "mysql://x",
        "--out",
        dir.0.join("y.tsv").to_str().unwrap(),
    ]);
    assert_eq!(status, 2, "{err}");
}
