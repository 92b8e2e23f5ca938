//! `chuhe loadtest --reconnect` across a node failure: a real `chuhe serve` on SQLite, killed
//! with SIGKILL while the load test plays games of all three variants as fast as the server
//! answers, and started again on the same database and port. Every player's connection dies
//! with the server; each reconnects (through the next `--url`, here the same server given
//! twice) with `?since=` its last version, applies the replayed events and the new state, and
//! plays on. The load test must end without any error, with reconnections counted, and with
//! every acknowledged move stored exactly once.

mod common;

use common::loadtest::{loadtest, LoadServer};
use common::{first_number, line};
use std::process::Stdio;
use std::time::Duration;

#[test]
fn games_go_on_across_kill_9_with_reconnect() {
    let mut server = LoadServer::start("loadtest-reconnect");
    let load = loadtest(&[&server.url, &server.url])
        .arg("--reconnect")
        .args(["--games", "6", "--duration", "10", "--think-ms", "0"])
        .args(["--variants", "xiangqi,sanguo,banqi"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // `Child::kill` is SIGKILL on Unix. The port stays closed for a moment, so the first tries
    // to reconnect are refused.
    server.kill();
    std::thread::sleep(Duration::from_millis(500));
    server.restart();
    let out = load.wait_with_output().unwrap();
    server.kill();
    let (report, context) = server.report(&out);
    eprintln!("{report}");
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
    let mut server = LoadServer::start("loadtest-two-urls");
    let slash = format!("{}/", server.url);
    let out = loadtest(&[&server.url, &slash])
        .args(["--games", "3", "--duration", "3", "--think-ms", "0"])
        .output()
        .unwrap();
    server.kill();
    let (report, context) = server.report(&out);
    assert!(out.status.success(), "{context}");
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
    let out = loadtest(&["http://127.0.0.1:1", "ftp://x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        r#"chuhe: bad --url "ftp://x": expected the server's address as http://HOST:PORT"#
    );
}
