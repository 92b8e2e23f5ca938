//! A forwarded connection gets the owner's bytes: two nodes on one PostgreSQL database (made with
//! `createdb`) and the machine's NATS (`CHUHE_TEST_NATS`, default `nats://127.0.0.1:4222`), a
//! xiangqi table owned by node A, Black and a spectator connected through node B. Every text
//! frame the spectator reads is, byte for byte, a payload the owner published on NATS for it
//! (node B passes them through without parsing them), and the nodes' metrics count the same
//! messages and bytes on both sides (`chuhe_cluster_forwarded_*` on A, `chuhe_cluster_relayed_*`
//! on B).

mod common;

use common::play::{create_table, guest, start_and_play, Seat};
use common::{free_port, http, wait_healthy, PgDatabase, Running, TempDir, CHUHE};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

fn nats_url() -> String {
    std::env::var("CHUHE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

/// A node with its metrics listener.
struct Node {
    port: u16,
    metrics: u16,
    _child: Running,
}

impl Node {
    fn start(name: &str, database: &str, prefix: &str, dir: &std::path::Path) -> Node {
        let port = free_port();
        let metrics = free_port();
        let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
        let child = Command::new(CHUHE)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args(["--metrics-bind", &format!("127.0.0.1:{metrics}")])
            .args(["--database", database, "--nats", &nats_url()])
            .args(["--node-id", name, "--nats-prefix", prefix])
            .env_remove("CHUHE_CONFIG")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut child = Running(child);
        wait_healthy(port, &mut child.0);
        Node {
            port,
            metrics,
            _child: child,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The value of the counter `name` (0 when it was never counted).
    fn counter(&self, name: &str) -> u64 {
        let text = http(self.metrics, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n");
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .map_or(0, |v| v.trim().parse().unwrap())
    }
}

/// The text frames read by a connection to `table` through `url`, as they came.
async fn record_frames(url: &str, table: &str, cookie: &str) -> Arc<Mutex<Vec<String>>> {
    let host = url.trim_start_matches("http://");
    let mut request = format!("ws://{host}/api/tables/{table}/ws")
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("cookie", cookie.parse().unwrap());
    let (socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let frames = Arc::new(Mutex::new(Vec::new()));
    let seen = frames.clone();
    tokio::spawn(async move {
        let (_sink, mut stream) = socket.split();
        while let Some(Ok(frame)) = stream.next().await {
            if let Message::Text(text) = frame {
                seen.lock().unwrap().push(text.to_string());
            }
        }
    });
    frames
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_forwarded_connection_reads_the_owners_bytes() {
    let dir = TempDir::new("cluster-relay");
    let db = PgDatabase::new("relay");
    let prefix = format!("cr{}", std::process::id());
    // Every payload published for a forwarded connection, in order.
    let nats = async_nats::connect(nats_url()).await.unwrap();
    let mut sub = nats.subscribe(format!("{prefix}.conn.>")).await.unwrap();
    nats.flush().await.unwrap();
    let published = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let record = published.clone();
    tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            record.lock().unwrap().push(m.payload.to_vec());
        }
    });
    let a = Node::start("ra", &db.url(), &prefix, &dir.0);
    let b = Node::start("rb", &db.url(), &prefix, &dir.0);

    // Red makes the table on A (A owns it); Black and a spectator come through B.
    let red_cookie = guest(&a.url(), "Red").await;
    let table = create_table(&a.url(), &red_cookie, json!({"variant": "xiangqi"})).await;
    let black_cookie = guest(&b.url(), "Black").await;
    let watcher_cookie = guest(&b.url(), "Watcher").await;
    let frames = record_frames(&b.url(), &table, &watcher_cookie).await;
    let mut red = Seat::connect(&a.url(), &table, &red_cookie).await;
    let mut black = Seat::connect(&b.url(), &table, &black_cookie).await;
    let moves = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"];
    let version = start_and_play(&a.url(), &table, &mut red, &mut black, &moves).await;

    // The spectator has read the last move's update.
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let last = frames.lock().unwrap().iter().rev().find_map(|t| {
            let v: Value = serde_json::from_str(t).unwrap();
            (v["type"] == "update").then(|| v["version"].as_u64().unwrap())
        });
        if last == Some(version) {
            break;
        }
        assert!(
            Instant::now() < until,
            "the spectator's last update: {last:?}, not {version}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // What A published for the two forwarded connections is what B received, message for
    // message and byte for byte; nothing of it was counted the other way. (The counters are
    // read once the last messages have reached this test's subscriber and node B.)
    let until = Instant::now() + Duration::from_secs(10);
    let published = loop {
        let published = published.lock().unwrap().clone();
        let sent = a.counter("chuhe_cluster_forwarded_messages_total");
        if (sent == published.len() as u64
            && b.counter("chuhe_cluster_relayed_messages_total") == sent)
            || Instant::now() > until
        {
            break published;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let frames = frames.lock().unwrap().clone();
    // The state, seats, start, six moves and presence: each frame exactly as published.
    assert!(frames.len() >= 9, "{frames:?}");
    for frame in &frames {
        assert!(
            published.iter().any(|p| p == frame.as_bytes()),
            "a frame that the owner did not publish as such: {frame}"
        );
    }
    let moved = frames
        .iter()
        .filter(|t| t.contains(r#""kind":"moved""#))
        .count();
    assert_eq!(moved, moves.len(), "{frames:?}");

    let sent = a.counter("chuhe_cluster_forwarded_messages_total");
    let bytes: u64 = published.iter().map(|p| p.len() as u64).sum();
    assert_eq!(sent, published.len() as u64);
    assert_eq!(a.counter("chuhe_cluster_forwarded_bytes_total"), bytes);
    assert_eq!(b.counter("chuhe_cluster_relayed_messages_total"), sent);
    assert_eq!(b.counter("chuhe_cluster_relayed_bytes_total"), bytes);
    assert_eq!(a.counter("chuhe_cluster_relayed_messages_total"), 0);
    assert_eq!(b.counter("chuhe_cluster_forwarded_messages_total"), 0);
    drop(nats);
}
