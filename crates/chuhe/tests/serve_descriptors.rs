//! `chuhe serve` near its open-file limit (`prlimit --nofile`, issue 34): beyond its descriptor
//! budget (the limit less what was open at the start and `--descriptor-reserve`) a new
//! connection is answered 503 and closed at once, one log line sums the refusals up, the game
//! already playing goes on, and once connections close new ones are served again.

mod common;

use common::play::{create_table, guest, start_and_play, version_of, Seat};
use common::{free_port, wait_healthy, Running, TempDir, CHUHE};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The process's open-file limit in this test (soft and hard).
const NOFILE: u64 = 300;

/// The reserve asked for.
const RESERVE: u64 = 64;

/// The answer to a connection over the budget.
const FULL: &str = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
Retry-After: 60\r\nConnection: close\r\nContent-Length: 78\r\n\r\n\
{\"error\":\"rate_limited\",\"message\":\"the server is full, try again in a minute\"}";

/// Opens a connection and asks `GET /api/health` on it (HTTP/1.1: it stays open when served):
/// the connection and the answer's head and body, up to the end of the body or of the
/// connection (a refused one is answered and closed at once).
async fn health(port: u16) -> (TcpStream, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let text = String::from_utf8_lossy(&got).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
                .and_then(|(_, n)| n.trim().parse::<usize>().ok());
            if length == Some(body.len()) {
                return (s, text);
            }
        }
        let read = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
            .await
            .expect("no answer within 10 s");
        match read {
            Ok(0) | Err(_) => return (s, text),
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// The JSON log lines whose message starts with `start`.
fn logged<'a>(lines: &'a [Value], start: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| {
            l["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(start))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_descriptor_budget_connections_are_refused_and_games_go_on() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("skipped: no prlimit (util-linux)");
        return;
    }
    let dir = TempDir::new("descriptors");
    let port = free_port();
    let log = dir.0.join("serve.log");
    let nofile = format!("--nofile={NOFILE}:{NOFILE}");
    let child = Command::new("prlimit")
        .args([nofile.as_str(), CHUHE, "serve", "--log-format", "json"])
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", "sqlite://fd.db"])
        .args(["--descriptor-reserve", &RESERVE.to_string()])
        .args(["--max-connections-per-address", "100000"])
        .env_remove("CHUHE_CONFIG")
        .env_remove("CHUHE_LOG_FORMAT")
        .env("RUST_LOG", "info")
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut server = Running(child);
    wait_healthy(port, &mut server.0);
    let base = format!("http://127.0.0.1:{port}");

    // A game between two guests, its two WebSockets open throughout.
    let red_cookie = guest(&base, "Red").await;
    let black_cookie = guest(&base, "Black").await;
    let table = create_table(&base, &red_cookie, json!({"variant": "xiangqi"})).await;
    let mut red = Seat::connect(&base, &table, &red_cookie).await;
    let mut black = Seat::connect(&base, &table, &black_cookie).await;
    let mut v = start_and_play(&base, &table, &mut red, &mut black, &["h2e2"]).await;
    assert_eq!(v, 5);

    // Connections until 20 are refused: each refused one gets the whole 503 and is closed.
    let mut served = Vec::new();
    let mut refused = 0;
    while refused < 20 {
        assert!(served.len() < NOFILE as usize, "never refused");
        let (s, answer) = health(port).await;
        if answer.starts_with("HTTP/1.1 200") {
            assert!(
                answer.ends_with(r#"{"database":"ok","status":"ok"}"#),
                "{answer}"
            );
            served.push(s);
        } else {
            assert_eq!(answer, FULL);
            refused += 1;
        }
    }

    // The game goes on at full speed: the database kept its descriptors.
    v = version_of(
        &black
            .act(json!({"type": "move", "version": v, "move": "h9g7"}), v)
            .await,
    );
    v = version_of(
        &red.act(json!({"type": "move", "version": v, "move": "h0g2"}), v)
            .await,
    );
    assert_eq!(v, 7);

    // Connections closed make room again.
    let kept = served.len();
    served.truncate(kept - 10);
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let (_s, answer) = health(port).await;
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert_eq!(answer, FULL);
        assert!(Instant::now() < until, "still refused after closing 10");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(served);
    red.close().await;
    black.close().await;

    let stopped = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let until = Instant::now() + Duration::from_secs(30);
    while server.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < until, "chuhe serve did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let budget = logged(&lines, "descriptor budget");
    assert_eq!(budget.len(), 1, "{text}");
    let fields = &budget[0]["fields"];
    assert_eq!(fields["limit"], NOFILE);
    assert_eq!(fields["reserve"], RESERVE);
    let open_at_start = fields["open_at_start"].as_u64().unwrap();
    let most = fields["connections"].as_u64().unwrap();
    assert_eq!(most, NOFILE - open_at_start - RESERVE);
    // Served: the raw connections and the game's two WebSockets, all of the budget.
    assert_eq!(kept as u64 + 2, most, "{text}");
    // Twenty refusals within seconds: one line (the first), none per refusal.
    let summaries = logged(&lines, "connections refused");
    assert_eq!(summaries.len(), 1, "{text}");
    assert_eq!(summaries[0]["fields"]["refused"], 1);
    assert_eq!(summaries[0]["fields"]["budget"], most);
    assert_eq!(logged(&lines, "accept failed").len(), 0, "{text}");
    assert_eq!(logged(&lines, "internal error").len(), 0, "{text}");
}
