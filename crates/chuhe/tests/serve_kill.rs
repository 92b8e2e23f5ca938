//! Durability with group commit in the loop: a real `chuhe serve` process, `chuhe loadtest`
//! playing games as fast as the server answers from many connections, the server killed with
//! SIGKILL in the middle and started again on the same database and port; at the end the load
//! test reads every table's events back from the restarted server, and every move that was
//! acknowledged before or after the kill must be stored exactly once, at its version (the load
//! test exits with status 1 otherwise). On SQLite and on PostgreSQL (a database of its own,
//! made with `createdb`).

mod common;

use common::{free_port, serve, wait_healthy, PgDatabase, TempDir, CHUHE};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Plays for 9 s with the server killed after 3 s, restarted at once; checks the load test's
/// verdict and that moves were acknowledged.
fn acknowledged_moves_survive_kill(database: &str, dir: &Path) {
    let port = free_port();
    let log = dir.join("serve.log");
    let mut server = serve(database, port, &log);
    wait_healthy(port, &mut server);
    let load = Command::new(CHUHE)
        .args(["loadtest", "--url", &format!("http://127.0.0.1:{port}")])
        .args(["--games", "12", "--duration", "9", "--think-ms", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // `Child::kill` is SIGKILL on Unix: no shutdown, no clock save, no flush.
    server.kill().unwrap();
    server.wait().unwrap();
    let mut server = serve(database, port, &log);
    wait_healthy(port, &mut server);
    let out = load.wait_with_output().unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{database}:\n{report}");
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    // The kill closes every game's connections and refuses new ones until the restart: those
    // games end with a transport error each (read, write, connect, or an HTTP request that got
    // no answer), and the load test then exits with status 1. A refusal by the server (an error
    // code, an HTTP status) is a failure.
    let errors: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("errors: "))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    let transport = |l: &&str| {
        let what = l.split_once(" x ").map_or("", |(_, w)| w);
        let lost = what == "connection closed by the server"
            || what.starts_with("ws send: ")
            || what.starts_with("ws handshake: ")
            || what.starts_with("connect: ");
        let unanswered = (what.starts_with("session: ") || what.starts_with("create table: "))
            && !what.contains(": http ");
        lost || unanswered
    };
    assert!(
        errors.iter().all(transport),
        "loadtest failed:\n{report}\n{}\nserver log:\n{log_text}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "loadtest ended with {:?}:\n{report}",
        out.status
    );
    let stored = report
        .lines()
        .find(|l| l.starts_with("stored: "))
        .unwrap_or_else(|| panic!("no stored line in:\n{report}"));
    let checked: u64 = stored["stored: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read {stored:?}"));
    assert!(checked >= 20, "too few moves to tell:\n{report}");
    assert!(
        stored.ends_with(", 0 missing, 0 doubled"),
        "{stored}\n{report}"
    );
}

#[test]
fn sqlite_keeps_every_acknowledged_move_across_kill_9() {
    let dir = TempDir::new("kill-sqlite");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    acknowledged_moves_survive_kill(&database, &dir.0);
}

#[test]
fn postgres_keeps_every_acknowledged_move_across_kill_9() {
    let dir = TempDir::new("kill-postgres");
    let db = PgDatabase::new("kill");
    let database = db.url();
    acknowledged_moves_survive_kill(&database, &dir.0);
}
