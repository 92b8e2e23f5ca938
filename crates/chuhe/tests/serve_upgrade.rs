//! Upgrades (docs/operations.md "Upgrades"): a SQLite database written by the previous release
//! (`tests/data/upgrade/`, made by `make_upgrade_fixture` below with that release's binary)
//! opens with the current `chuhe serve`, which applies its newer migrations at start, and
//! keeps its accounts, its finished game, its game in play and the ratings; the server then
//! plays on.

mod common;

use common::play::{self, Seat};
use common::{free_port, serve, wait_healthy, Running, TempDir};
use serde_json::{json, Value};
use sqlx::{ConnectOptions as _, Row as _};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixture: the database of the previous release.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/upgrade/release-9550659.db")
}

/// The versions in a database's `_sqlx_migrations` table (the migrations applied to it).
fn migrations_applied(db: &Path) -> Vec<i64> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(db)
            .read_only(true)
            .connect()
            .await
            .unwrap();
        sqlx::query("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<i64, _>("version"))
            .collect()
    })
}

/// The number of migrations the current code carries (`crates/chuhe-server/migrations`).
fn current_migrations() -> i64 {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chuhe-server/migrations");
    std::fs::read_dir(folder)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sql")
        })
        .count() as i64
}

/// Stops the server with SIGTERM and checks its exit status 0.
fn stop(server: &mut Running) {
    let pid = server.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = server.0.wait().unwrap();
    assert_eq!(status.code(), Some(0), "chuhe serve stopped with {status}");
}

/// What the fixture holds (README.md beside it): two accounts; a rated xiangqi game that Black
/// resigned after these moves; an unrated game in play after these moves, Red to move.
const RED: (&str, &str) = ("Guan Yu", "green-dragon-1");
const BLACK: (&str, &str) = ("Cao Cao", "bronze-sparrow-1");
const FINISHED_MOVES: [&str; 4] = ["h2e2", "h9g7", "h0g2", "i9h9"];
const RUNNING_MOVES: [&str; 2] = ["b2e2", "b9c7"];

#[test]
fn a_database_of_the_previous_release_keeps_its_games() {
    let dir = TempDir::new("upgrade");
    let db = dir.0.join("chuhe.db");
    std::fs::copy(fixture(), &db).unwrap();
    let before = migrations_applied(&db);
    assert_eq!(
        before,
        (1..=7).collect::<Vec<i64>>(),
        "the previous release's migrations"
    );

    let database = format!("sqlite://{}", db.display());
    let log = dir.0.join("serve.log");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = Running(serve(&database, port, &log));
    wait_healthy(port, &mut server.0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // The accounts sign in with their passwords.
        let red = play::login(&base, RED.0, RED.1).await;
        let black = play::login(&base, BLACK.0, BLACK.1).await;
        let (status, me) = play::get(&base, "/api/me", &red).await;
        assert_eq!(status, 200, "{me}");
        assert_eq!(me["name"], RED.0);
        let red_id = me["id"].as_str().unwrap().to_owned();

        // The finished game, with its result, its moves and the players' ratings.
        let (_, page) = play::get(&base, "/api/games", "").await;
        let games = page["games"].as_array().unwrap();
        assert_eq!(games.len(), 1, "{page}");
        let game = &games[0];
        assert_eq!(game["outcome"]["reason"], "resignation");
        assert_eq!(game["result"], "1-0");
        assert_eq!(game["winner_seats"], json!([0]));
        assert_eq!(game["plies"], 4);
        assert_eq!(game["options"]["rated"], true);
        assert_eq!(game["seats"][0]["name"], RED.0);
        assert_eq!(game["seats"][1]["name"], BLACK.0);
        let finished = game["id"].as_str().unwrap();
        assert_eq!(moves(&base, finished).await, FINISHED_MOVES);
        let (_, mine) = play::get(&base, &format!("/api/games?player={red_id}"), "").await;
        assert_eq!(mine["games"][0]["id"], finished);
        let (_, ratings) = play::get(&base, &format!("/api/players/{red_id}/ratings"), "").await;
        assert_eq!(ratings[0]["variant"], "xiangqi", "{ratings}");
        assert_eq!(ratings[0]["games"], 1);
        assert!(ratings[0]["rating"].as_f64().unwrap() > 1500.0, "{ratings}");

        // The game in play is back, and goes on: Red, then Black, move.
        let (_, lobby) = play::get(&base, "/api/tables", "").await;
        let running: Vec<&Value> = lobby
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["phase"] == "running")
            .collect();
        assert_eq!(running.len(), 1, "{lobby}");
        let running = running[0]["id"].as_str().unwrap().to_owned();
        assert_eq!(moves(&base, &running).await, RUNNING_MOVES);
        let v = play::version(&base, &running).await;
        let mut r = Seat::connect(&base, &running, &red).await;
        let mut b = Seat::connect(&base, &running, &black).await;
        let v = play::version_of(
            &r.act(json!({"type": "move", "version": v, "move": "h0g2"}), v)
                .await,
        );
        b.act(json!({"type": "move", "version": v, "move": "h9g7"}), v)
            .await;
        assert_eq!(
            moves(&base, &running).await,
            [&RUNNING_MOVES[..], &["h0g2", "h9g7"]].concat()
        );
        r.close().await;
        b.close().await;

        // A new table and a new account.
        let guest = play::account(&base, "Zhuge Liang", "eight-trigrams").await;
        let table = play::create_table(&base, &guest, json!({"variant": "sanguo"})).await;
        let (status, _) = play::get(&base, &format!("/api/tables/{table}"), "").await;
        assert_eq!(status, 200);
    });
    stop(&mut server);
    assert_eq!(
        migrations_applied(&db),
        (1..=current_migrations()).collect::<Vec<i64>>(),
        "every migration of the current code applied, once"
    );
}

/// The moves of a table, from its events.
async fn moves(base: &str, table: &str) -> Vec<String> {
    let (status, events) = play::get(base, &format!("/api/tables/{table}/events"), "").await;
    assert_eq!(status, 200, "{events}");
    events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"]["kind"] == "moved")
        .map(|e| e["event"]["move"].as_str().unwrap().to_owned())
        .collect()
}

/// Makes the fixture with the previous release's binary (tests/data/upgrade/README.md):
///
/// ```text
/// CHUHE_UPGRADE_BINARY=/path/to/old/chuhe CHUHE_UPGRADE_OUT=tests/data/upgrade/release-X.db \
///   cargo test -p chuhe --test serve_upgrade -- --ignored make_upgrade_fixture
/// ```
#[test]
#[ignore = "makes tests/data/upgrade/*.db with an older binary (CHUHE_UPGRADE_BINARY)"]
fn make_upgrade_fixture() {
    let binary = std::env::var("CHUHE_UPGRADE_BINARY").expect("CHUHE_UPGRADE_BINARY");
    let out = PathBuf::from(std::env::var("CHUHE_UPGRADE_OUT").expect("CHUHE_UPGRADE_OUT"));
    assert!(!out.exists(), "{} exists", out.display());
    let dir = TempDir::new("upgrade-make");
    let db = dir.0.join("chuhe.db");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let log = std::fs::File::create(dir.0.join("serve.log")).unwrap();
    let mut server = Running(
        Command::new(&binary)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .arg("--database")
            .arg(format!("sqlite://{}", db.display()))
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_healthy(port, &mut server.0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let red = play::account(&base, RED.0, RED.1).await;
        let black = play::account(&base, BLACK.0, BLACK.1).await;
        let finished =
            play::create_table(&base, &red, json!({"variant": "xiangqi", "rated": true})).await;
        let mut r = Seat::connect(&base, &finished, &red).await;
        let mut b = Seat::connect(&base, &finished, &black).await;
        let v = play::start_and_play(&base, &finished, &mut r, &mut b, &FINISHED_MOVES).await;
        let ended = b.act(json!({"type": "resign"}), v).await;
        assert_eq!(ended["phase"], "ended", "{ended}");
        let running = play::create_table(&base, &red, json!({"variant": "xiangqi"})).await;
        let mut r2 = Seat::connect(&base, &running, &red).await;
        let mut b2 = Seat::connect(&base, &running, &black).await;
        play::start_and_play(&base, &running, &mut r2, &mut b2, &RUNNING_MOVES).await;
        for seat in [r, b, r2, b2] {
            seat.close().await;
        }
    });
    stop(&mut server);
    assert!(
        !dir.0.join("chuhe.db-wal").exists(),
        "a clean stop leaves the whole database in chuhe.db"
    );
    std::fs::copy(&db, &out).unwrap();
}
