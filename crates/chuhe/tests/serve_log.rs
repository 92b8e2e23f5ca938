//! `chuhe serve --log-format json`: every line on standard error is one JSON object, and what
//! is logged while a request is served carries the request's span (its id, method and path),
//! on a WebSocket the connection's (its id and table), in a table's actor the table's.

mod common;

use common::{free_port, guest_table, wait_healthy, TempDir, CHUHE};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `chuhe serve --log-format json` on `port` with a SQLite file in `dir`, its standard
/// error in `dir/serve.log`, `RUST_LOG` set to `filter`, and `TOKIO_WORKER_THREADS` set to
/// `workers` (removed when `None`).
fn serve_json(dir: &TempDir, port: u16, filter: &str, workers: Option<&str>) -> Child {
    serve_json_on(dir, port, "sqlite://log.db", filter, workers)
}

/// [`serve_json`] on the database at `database`.
fn serve_json_on(
    dir: &TempDir,
    port: u16,
    database: &str,
    filter: &str,
    workers: Option<&str>,
) -> Child {
    let mut command = Command::new(CHUHE);
    command
        .args(["serve", "--log-format", "json"])
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", database])
        .env_remove("CHUHE_LOG_FORMAT")
        .env_remove("CHUHE_CONFIG")
        .env("RUST_LOG", filter)
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.0.join("serve.log")).unwrap());
    match workers {
        Some(n) => command.env("TOKIO_WORKER_THREADS", n),
        None => command.env_remove("TOKIO_WORKER_THREADS"),
    };
    command.spawn().unwrap()
}

#[test]
fn json_logs_carry_the_request_id() {
    let dir = TempDir::new("log-json");
    let port = free_port();
    let log = dir.0.join("serve.log");
    // The request spans' own lines are tower-http's, at the debug level, and so are a refused
    // message's and a table's start.
    let mut server = serve_json(&dir, port, "info,tower_http=debug,chuhe_server=debug", None);
    wait_healthy(port, &mut server);
    let answer = common::http(port, "GET /api/health HTTP/1.0\r\nHost: x\r\n\r\n");
    let answered_id = answer
        .lines()
        .find_map(|l| l.strip_prefix("x-request-id: "))
        .unwrap_or_else(|| panic!("no x-request-id: {answer}"))
        .trim()
        .to_owned();
    let (_, table) = guest_table(port);
    refused_on_a_websocket(port, &table);
    let stopped = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < until,
            "chuhe serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "status {status}");

    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    for line in &lines {
        assert!(line["level"].is_string(), "no level: {line}");
        assert!(line["fields"]["message"].is_string(), "no message: {line}");
    }
    let messages: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["fields"]["message"].as_str())
        .collect();
    let listening = lines
        .iter()
        .find(|l| {
            l["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("listening on"))
        })
        .unwrap_or_else(|| panic!("no listening line:\n{text}"));
    // On SQLite, one worker thread less than the processors, at least one (serve_cmd.rs).
    let processors = std::thread::available_parallelism().unwrap().get();
    assert_eq!(
        listening["fields"]["worker_threads"],
        (processors - 1).max(1),
        "{listening}"
    );
    assert!(messages.contains(&"stopped"), "{text}");
    let request = lines
        .iter()
        .find(|l| l["span"]["name"] == "request" && l["span"]["path"] == "/api/health")
        .unwrap_or_else(|| panic!("no line in a request's span:\n{text}"));
    let id = request["span"]["id"].as_str().unwrap();
    assert_eq!(id.len(), 12, "{request}");
    assert_eq!(request["span"]["method"], "GET");
    assert_eq!(request["spans"][0]["id"], id);
    // The id a client was answered is the id of its request's lines.
    assert!(
        lines
            .iter()
            .any(|l| l["span"]["name"] == "request" && l["span"]["id"] == answered_id.as_str()),
        "no line of request {answered_id}:\n{text}"
    );

    let refused = lines
        .iter()
        .find(|l| l["span"]["name"] == "connection" && l["fields"]["message"] == "request refused")
        .unwrap_or_else(|| panic!("no refusal in a connection's span:\n{text}"));
    assert_eq!(refused["span"]["table"], table.as_str(), "{refused}");
    assert!(refused["span"]["id"].as_u64().is_some(), "{refused}");
    assert_eq!(refused["spans"][0]["name"], "request", "{refused}");
    assert_eq!(
        refused["spans"][0]["path"],
        format!("/api/tables/{table}/ws"),
        "{refused}"
    );
    let started = lines
        .iter()
        .find(|l| l["span"]["name"] == "table" && l["fields"]["message"] == "table started")
        .unwrap_or_else(|| panic!("no line in a table's span:\n{text}"));
    assert_eq!(started["span"]["id"], table.as_str(), "{started}");
}

/// The worker threads the start's log line of a server on `database` names, with
/// `TOKIO_WORKER_THREADS` set to `workers` (removed when `None`).
fn logged_workers(name: &str, database: &str, workers: Option<&str>) -> serde_json::Value {
    let dir = TempDir::new(name);
    let port = free_port();
    let mut server = serve_json_on(&dir, port, database, "info", workers);
    wait_healthy(port, &mut server);
    server.kill().unwrap();
    server.wait().unwrap();
    let text = std::fs::read_to_string(dir.0.join("serve.log")).unwrap();
    let listening: serde_json::Value = text
        .lines()
        .find(|l| l.contains("listening on"))
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap_or_else(|| panic!("no listening line:\n{text}"));
    listening["fields"]["worker_threads"].clone()
}

/// `TOKIO_WORKER_THREADS`, tokio's own variable, sets the runtime's worker threads instead of
/// the default, and the start's log line says how many there are; on PostgreSQL the default is
/// one per processor.
#[test]
fn tokio_worker_threads_sets_the_workers() {
    assert_eq!(logged_workers("log-workers", "sqlite://w.db", Some("3")), 3);
    let db = common::PgDatabase::new("workers");
    let processors = std::thread::available_parallelism().unwrap().get();
    assert_eq!(
        logged_workers("log-workers-pg", &db.url(), None),
        processors
    );
}

/// Sends a move to `table` from a WebSocket without a seat, and waits for its refusal.
fn refused_on_a_websocket(port: u16, table: &str) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let url = format!("ws://127.0.0.1:{port}/api/tables/{table}/ws");
        let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let bad = r#"{"type":"move","version":0,"move":"h2e2"}"#;
        ws.send(Message::text(bad)).await.unwrap();
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), ws.next()).await;
            let frame = next.expect("no refusal within 10 s").unwrap().unwrap();
            if let Message::Text(text) = frame {
                if text.as_str().contains(r#""type":"error""#) {
                    break;
                }
            }
        }
        let _ = ws.close(None).await;
    });
}
