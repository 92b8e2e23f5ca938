//! `chuhe serve --log-format json`: every line on standard error is one JSON object, and what
//! is logged while a request is served carries the request's span (its id, method and path).

mod common;

use common::{free_port, wait_healthy, TempDir, CHUHE};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn json_logs_carry_the_request_id() {
    let dir = TempDir::new("log-json");
    let port = free_port();
    let log = dir.0.join("serve.log");
    let mut server = Command::new(CHUHE)
        .args(["serve", "--log-format", "json"])
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", "sqlite://log.db"])
        .env_remove("CHUHE_LOG_FORMAT")
        .env_remove("CHUHE_CONFIG")
        // The request spans' own lines are tower-http's, at the debug level.
        .env("RUST_LOG", "info,tower_http=debug")
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    wait_healthy(port, &mut server);
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
    assert!(
        messages.iter().any(|m| m.starts_with("listening on")),
        "{text}"
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
}
