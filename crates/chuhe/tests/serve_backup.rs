//! `chuhe backup` (spec/cli.md, docs/operations.md "Backups"): a copy taken while a real
//! `chuhe serve` runs and writes, restored the documented way (stop the server, put the copy
//! in the database's place, start), serves the same accounts, games and moves; and the
//! command's refusals.

mod common;

use common::play::{self, Seat};
use common::{free_port, serve, wait_healthy, Running, TempDir, CHUHE};
use serde_json::{json, Value};
use std::process::{Command, Output};

fn backup(args: &[&str]) -> Output {
    Command::new(CHUHE)
        .arg("backup")
        .args(args)
        .env_remove("CHUHE_DATABASE")
        .env_remove("CHUHE_CONFIG")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Stops the server with SIGTERM (a graceful stop) and checks its exit status 0.
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

#[test]
fn a_backup_taken_while_serving_restores_the_games() {
    let dir = TempDir::new("backup");
    let db = dir.0.join("chuhe.db");
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

    // Two accounts, a rated game that Black resigns, and a game in play with its moves.
    let (finished, running, running_version, red_id) = runtime.block_on(async {
        let red = play::account(&base, "Zhao Yun", "long-slope-1").await;
        let black = play::account(&base, "Zhang He", "hebei-1234").await;
        let finished =
            play::create_table(&base, &red, json!({"variant": "xiangqi", "rated": true})).await;
        let mut r = Seat::connect(&base, &finished, &red).await;
        let mut b = Seat::connect(&base, &finished, &black).await;
        let v =
            play::start_and_play(&base, &finished, &mut r, &mut b, &["h2e2", "h9g7", "h0g2"]).await;
        let ended = b.act(json!({"type": "resign"}), v).await;
        assert_eq!(ended["phase"], "ended", "{ended}");
        let running = play::create_table(&base, &red, json!({"variant": "xiangqi"})).await;
        let mut r2 = Seat::connect(&base, &running, &red).await;
        let mut b2 = Seat::connect(&base, &running, &black).await;
        let running_version =
            play::start_and_play(&base, &running, &mut r2, &mut b2, &["b2e2", "b9c7"]).await;
        let (_, me) = play::get(&base, "/api/me", &red).await;
        (
            finished,
            running,
            running_version,
            me["id"].as_str().unwrap().to_owned(),
        )
    });

    // The backup, while the server runs (and holds chuhe.db.lock). The database is kept from
    // other users, as the systemd unit's UMask=0027 makes it.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let copy = dir.0.join("copy.db");
    let out = backup(&["--database", &database, "--to", copy.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "chuhe backup failed: {}",
        stderr(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let bytes = std::fs::metadata(&copy).unwrap().len();
    assert_eq!(
        stdout,
        format!(
            "backed up {} to {}: {bytes} bytes\n",
            db.display(),
            copy.display()
        )
    );
    assert!(bytes > 0);
    // The copy is as readable as the database (it holds password hashes and sessions).
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&copy) & 0o777, 0o640);
        assert_eq!(mode(&copy), mode(&db));
    }
    // Nothing else is left in the folder: no temporary file of the backup.
    let mut names: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("chuhe.db"))
        .collect();
    names.sort();
    assert_eq!(names, ["copy.db", "serve.log"]);

    // A second backup to the same name is refused, and the copy is left as it was.
    let again = backup(&["--database", &database, "--to", copy.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        format!(
            "chuhe: {} exists: chuhe backup never overwrites a file (give a new name)\n",
            copy.display()
        )
    );
    assert_eq!(std::fs::metadata(&copy).unwrap().len(), bytes);

    // What the first server answers, to compare with the restored one.
    let before = runtime.block_on(answers(&base, &finished, &running, &red_id));

    // Restore: stop, put the copy in place of the database, start.
    stop(&mut server);
    for name in ["chuhe.db", "chuhe.db-wal", "chuhe.db-shm"] {
        let _ = std::fs::remove_file(dir.0.join(name));
    }
    std::fs::copy(&copy, &db).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut restored = Running(serve(&database, port, &log));
    wait_healthy(port, &mut restored.0);
    let after = runtime.block_on(answers(&base, &finished, &running, &red_id));
    assert_eq!(after, before);
    // The accounts sign in, and the game in play goes on from where it was.
    runtime.block_on(async {
        let red = play::login(&base, "Zhao Yun", "long-slope-1").await;
        let mut r = Seat::connect(&base, &running, &red).await;
        let update = r
            .act(
                json!({"type": "move", "version": running_version, "move": "h0g2"}),
                running_version,
            )
            .await;
        assert_eq!(update["version"], running_version + 1, "{update}");
        r.close().await;
    });
    stop(&mut restored);
}

/// What a server answers about the two tables and the player: the finished game's summary and
/// events, the list of finished games, the running game's events, the player's ratings.
async fn answers(base: &str, finished: &str, running: &str, player: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for path in [
        format!("/api/tables/{finished}"),
        format!("/api/tables/{finished}/events"),
        "/api/games".to_owned(),
        format!("/api/tables/{running}/events"),
        format!("/api/players/{player}/ratings"),
    ] {
        let (status, body) = play::get(base, &path, "").await;
        assert_eq!(status, 200, "GET {path}: {body}");
        out.push(body);
    }
    // Real values, not just equal ones: the resignation, the moves, the rating.
    assert_eq!(out[0]["phase"], "ended");
    assert_eq!(out[2]["games"][0]["id"], finished);
    assert_eq!(out[2]["games"][0]["outcome"]["reason"], "resignation");
    assert_eq!(out[2]["games"][0]["result"], "1-0");
    assert_eq!(out[2]["games"][0]["plies"], 3);
    let moves: Vec<&str> = out[3]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"]["kind"] == "moved")
        .map(|e| e["event"]["move"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["b2e2", "b9c7"]);
    assert_eq!(out[4][0]["variant"], "xiangqi");
    assert_eq!(out[4][0]["games"], 1);
    out
}

#[test]
fn backup_refusals_are_one_line_with_status_2() {
    let dir = TempDir::new("backup-refusals");
    let missing = dir.0.join("none.db");
    let to = dir.0.join("b.db");
    let to_text = to.to_str().unwrap();

    let out = backup(&[
        "--database",
        &format!("sqlite://{}", missing.display()),
        "--to",
        to_text,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "chuhe: no database file {} (give --database sqlite://FILE)\n",
            missing.display()
        )
    );
    assert!(!missing.exists(), "the backup must not create the database");

    let out = backup(&[
        "--database",
        "postgres://chuhe:secret@db.internal/chuhe",
        "--to",
        to_text,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(
        text.contains("pg_dump -Fc -d 'postgres://***@db.internal/chuhe' -f chuhe.dump"),
        "{text}"
    );
    assert!(!text.contains("secret"), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");

    let out = backup(&["--database", "sqlite::memory:", "--to", to_text]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "chuhe: --database \"sqlite::memory:\": an in-memory database has no file to back up\n"
    );

    // Not a database: SQLite's refusal, status 1, and no backup file.
    let junk = dir.0.join("junk.db");
    std::fs::write(&junk, vec![b'x'; 8192]).unwrap();
    let out = backup(&[
        "--database",
        &format!("sqlite://{}", junk.display()),
        "--to",
        to_text,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(&format!("chuhe: cannot back up {}: ", junk.display())),
        "{}",
        stderr(&out)
    );
    assert!(!to.exists());
    assert_eq!(
        std::fs::read_dir(&dir.0).unwrap().count(),
        1,
        "a file was left behind"
    );

    let folder = dir.0.join("no/such/folder");
    let out = backup(&[
        "--database",
        &format!("sqlite://{}", junk.display()),
        "--to",
        &format!("{}/b.db", folder.display()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "chuhe: no folder {} for the backup {}/b.db\n",
            folder.display(),
            folder.display()
        )
    );

    let out = backup(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--to"), "{}", stderr(&out));
}
