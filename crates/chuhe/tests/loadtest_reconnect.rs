//! `chuhe loadtest --reconnect` across a node failure: a real `chuhe serve` on SQLite, killed
//! with SIGKILL while the load test plays games of all three variants as fast as the server
//! answers, and started again on the same database and port. Every player's connection dies
//! with the server; each reconnects (through the next `--url`, here the same server given
//! twice) with `?since=` its last version, applies the replayed events and the new state, and
//! plays on. The load test must end without any error, with reconnections counted, and with
//! every acknowledged move stored exactly once.

mod common;

use common::{first_number, free_port, line, serve, wait_healthy, TempDir, CHUHE};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn games_go_on_across_kill_9_with_reconnect() {
    let dir = TempDir::new("loadtest-reconnect");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let log = dir.0.join("serve.log");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut server = serve(&database, port, &log);
    wait_healthy(port, &mut server);
    let load = Command::new(CHUHE)
        .args(["loadtest", "--url", &url, "--url", &url, "--reconnect"])
        .args(["--games", "6", "--duration", "10", "--think-ms", "0"])
        .args(["--variants", "xiangqi,sanguo,banqi"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // `Child::kill` is SIGKILL on Unix. The port stays closed for a moment, so the first tries
    // to reconnect are refused.
    server.kill().unwrap();
    server.wait().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let mut server = serve(&database, port, &log);
    wait_healthy(port, &mut server);
    let out = load.wait_with_output().unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{report}");
    let context = format!(
        "{report}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    assert!(out.status.success(), "loadtest failed:\n{context}");
    assert_eq!(line(&report, "errors: "), "0", "{context}");
    let reconnects = first_number(line(&report, "reconnects: "));
    assert!(reconnects > 0, "no reconnection:\n{context}");
    // The server was down: some tries were refused before it came back.
    assert!(
        first_number(line(&report, "failed tries: ")) > 0,
        "{context}"
    );
    // In doubt at a loss = landed + did not (every seat got its state back).
    let doubt: Vec<u64> = line(&report, "unacknowledged at a loss: ")
        .split(", ")
        .map(first_number)
        .collect();
    assert_eq!(doubt.len(), 3, "{context}");
    assert_eq!(doubt[0], doubt[1] + doubt[2], "{context}");
    let stored = line(&report, "stored: ");
    assert!(
        first_number(stored) >= 20,
        "too few moves to tell:\n{context}"
    );
    assert!(
        stored.ends_with(" acknowledged moves checked, 0 missing, 0 doubled"),
        "{context}"
    );
    // Six slots, each starting with another variant (xiangqi, sanguo, banqi, ...): every slot
    // started a game.
    let games: Vec<u64> = line(&report, "games: ")
        .split(", ")
        .map(first_number)
        .collect();
    assert_eq!(games[0], 6, "{context}");
    assert!(games[1] >= 6, "{context}");
}

/// One server given twice as `--url`: the seats of a game connect through both in turn, and
/// without `--reconnect` the report is the one it always was (no reconnection lines).
#[test]
fn two_urls_of_one_server() {
    let dir = TempDir::new("loadtest-two-urls");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let log = dir.0.join("serve.log");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut server = serve(&database, port, &log);
    wait_healthy(port, &mut server);
    let out = Command::new(CHUHE)
        .args(["loadtest", "--url", &url, "--url", &format!("{url}/")])
        .args(["--games", "3", "--duration", "3", "--think-ms", "0"])
        .output()
        .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(line(&report, "errors: "), "0", "{report}");
    assert!(!report.contains("reconnects: "), "{report}");
    assert!(!report.contains("failed tries: "), "{report}");
    let stored = line(&report, "stored: ");
    assert!(first_number(stored) > 0, "{report}");
    assert!(stored.ends_with(", 0 missing, 0 doubled"), "{report}");
}

/// Every `--url` is checked: one bad one is refused before anything is played.
#[test]
fn every_url_is_checked() {
    let out = Command::new(CHUHE)
        .args([
            "loadtest",
            "--url",
            "http://127.0.0.1:1",
            "--url",
            "ftp://x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        r#"chuhe: bad --url "ftp://x": expected the server's address as http://HOST:PORT"#
    );
}
