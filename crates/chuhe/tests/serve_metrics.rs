//! `chuhe serve --metrics-bind ADDR`: the Prometheus metrics at ADDR's /metrics (and not on
//! the public port), with the tables in play, the moves acknowledged and their latencies, the
//! store's group commits, the read pool and the computer's queue.

mod common;

use common::{free_port, guest_table, http, serve_with, wait_healthy, TempDir, CHUHE};
use std::process::Command;
use std::time::Duration;

/// The text of the metrics.
fn scrape(port: u16) -> String {
    let answer = http(port, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"));
    assert!(
        answer.contains("content-type: text/plain; version=0.0.4"),
        "{answer}"
    );
    answer
}

/// The value of the series `name` (with its labels, if any) in the metrics `text`.
fn value(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in:\n{text}"))
}

#[test]
fn metrics_are_served_on_their_own_address() {
    let dir = TempDir::new("metrics");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let log = dir.0.join("serve.log");
    let port = free_port();
    let metrics = free_port();
    let mut server = serve_with(
        &database,
        port,
        &log,
        &["--metrics-bind", &format!("127.0.0.1:{metrics}")],
    );
    wait_healthy(port, &mut server);

    // One table, open: in play; one WebSocket on it.
    let (_, table) = guest_table(port);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = format!("ws://127.0.0.1:{port}/api/tables/{table}/ws");
    let (mut ws, _) = runtime
        .block_on(tokio_tungstenite::connect_async(url))
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let text = scrape(metrics);
    assert_eq!(value(&text, "chuhe_websocket_connections"), 1.0, "{text}");
    assert_eq!(value(&text, "chuhe_tables_in_play"), 1.0, "{text}");
    assert_eq!(value(&text, "chuhe_games_running"), 0.0, "{text}");
    assert!(value(&text, "chuhe_db_pool_connections") >= 1.0, "{text}");
    assert!(
        value(&text, "chuhe_db_pool_idle_connections") >= 0.0,
        "{text}"
    );
    assert!(
        !text.contains("chuhe_nats_connected"),
        "a single server has no NATS"
    );
    runtime.block_on(ws.close(None)).unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while value(&scrape(metrics), "chuhe_websocket_connections") != 0.0 {
        assert!(
            std::time::Instant::now() < until,
            "the closed WebSocket still counts"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Moves between people and against the computer.
    let out = Command::new(CHUHE)
        .args(["loadtest", "--url", &format!("http://127.0.0.1:{port}")])
        .args([
            "--games",
            "1",
            "--computer-games",
            "1",
            "--computer-level",
            "1",
        ])
        .args([
            "--duration",
            "3",
            "--think-ms",
            "0-20",
            "--variants",
            "xiangqi",
        ])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "loadtest failed:\n{report}");
    std::thread::sleep(Duration::from_millis(1500));
    let text = scrape(metrics);
    // The public port does not serve them.
    let public = http(port, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n");
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(!public.contains("chuhe_tables_in_play"), "{public}");

    let moves = value(&text, "chuhe_moves_acknowledged_total");
    assert!(moves >= 2.0, "{text}");
    assert_eq!(
        value(&text, "chuhe_move_ack_seconds_count"),
        moves,
        "{text}"
    );
    assert_eq!(
        value(&text, "chuhe_move_ack_seconds_bucket{le=\"+Inf\"}"),
        moves
    );
    assert!(value(&text, "chuhe_move_ack_seconds_sum") > 0.0);
    assert!(text.contains("# TYPE chuhe_moves_acknowledged_total counter"));
    assert!(text.contains("# TYPE chuhe_move_ack_seconds histogram"));
    // Every acknowledged move was a write of some group commit.
    assert!(
        value(&text, "chuhe_store_group_size_sum") >= moves,
        "{text}"
    );
    assert!(
        value(&text, "chuhe_store_commit_seconds_count") >= 1.0,
        "{text}"
    );
    // SQLite's log, read by the checkpoint thread once a second: the run wrote frames.
    assert!(value(&text, "chuhe_store_wal_frames") >= 1.0, "{text}");
    assert!(text.contains("# TYPE chuhe_store_wal_frames gauge"));
    assert!(value(&text, "chuhe_tables_in_play") >= 3.0, "{text}");
    // The load test's games run on after it left (until their players are given up for gone;
    // one may have ended, a new one started).
    assert!(value(&text, "chuhe_games_running") >= 1.0, "{text}");
    // The load test's connections are closed.
    assert_eq!(value(&text, "chuhe_websocket_connections"), 0.0, "{text}");
    assert!(value(&text, "chuhe_computer_queue") >= 0.0, "{text}");
    assert!(value(&text, "chuhe_computer_searches") >= 0.0, "{text}");
}

#[test]
fn the_metrics_need_an_address_of_their_own() {
    let out = Command::new(CHUHE)
        .args([
            "serve",
            "--bind",
            "127.0.0.1:1",
            "--metrics-bind",
            "127.0.0.1:1",
        ])
        .env_remove("CHUHE_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: --metrics-bind: the metrics need an address of their own, not --bind's\n"
    );
}

/// With one search thread and three games against the computer at its strongest, searches
/// wait in line: the queue's gauge shows them while they wait, the running one apart.
#[test]
fn the_computer_queue_shows_the_searches_waiting() {
    let dir = TempDir::new("metrics-computer");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let log = dir.0.join("serve.log");
    let port = free_port();
    let metrics = free_port();
    let mut server = serve_with(
        &database,
        port,
        &log,
        &[
            "--metrics-bind",
            &format!("127.0.0.1:{metrics}"),
            "--computer-threads",
            "1",
        ],
    );
    wait_healthy(port, &mut server);
    let mut load = Command::new(CHUHE)
        .args(["loadtest", "--url", &format!("http://127.0.0.1:{port}")])
        .args([
            "--games",
            "1",
            "--computer-games",
            "3",
            "--computer-level",
            "8",
        ])
        .args([
            "--duration",
            "8",
            "--think-ms",
            "0",
            "--variants",
            "xiangqi",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut most_waiting = 0.0_f64;
    let mut most_searching = 0.0_f64;
    let until = std::time::Instant::now() + Duration::from_secs(7);
    while std::time::Instant::now() < until {
        let text = scrape(metrics);
        if text.contains("chuhe_computer_queue ") {
            most_waiting = most_waiting.max(value(&text, "chuhe_computer_queue"));
            let searching = value(&text, "chuhe_computer_searches");
            assert!(searching <= 1.0, "more searches than threads:\n{text}");
            most_searching = most_searching.max(searching);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = load.wait();
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(most_searching, 1.0);
    assert!(most_waiting >= 1.0, "no search ever waited");
}
