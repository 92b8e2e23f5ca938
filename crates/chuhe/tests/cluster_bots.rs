//! lichess's Bot API on a two-node cluster (`docs/bots.md`, `docs/cluster.md`): two `chuhe
//! serve` nodes on one PostgreSQL database (made with `createdb`) and the machine's NATS
//! (JetStream on, `CHUHE_TEST_NATS`, default `nats://127.0.0.1:4222`), under a prefix of their
//! own:
//!
//! - a challenge made through one node is declined, or accepted, through the other; the
//!   challenger's event stream on one node and the challenged bot's on the other both get
//!   `challenge`, `challengeDeclined` and `gameStart` (once);
//! - two accepts of one challenge at once, one on each node, make one game;
//! - each bot reads the game's stream through its own node (one of them forwarded to the
//!   table's owner) and plays; the owner is killed with SIGKILL; the bot whose node died
//!   reconnects to the other node: its event stream starts with `gameStart` for the game in
//!   progress, its game stream with `gameFull` holding every move played, and the game goes on.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;

use common::{free_port, wait_healthy, PgDatabase, TempDir, CHUHE};

fn nats_url() -> String {
    std::env::var("CHUHE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

/// A node process; killed on drop.
struct Node {
    port: u16,
    child: Child,
    log: PathBuf,
}

impl Node {
    fn start(name: &str, database: &str, prefix: &str, dir: &Path) -> Node {
        let port = free_port();
        let log = dir.join(format!("{name}.log"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let mut child = Command::new(CHUHE)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args(["--database", database, "--nats", &nats_url()])
            .args(["--node-id", name, "--nats-prefix", prefix])
            .args(["--lease-ms", "2000"])
            .env("RUST_LOG", "info")
            .env_remove("CHUHE_DATABASE")
            .env_remove("CHUHE_CONFIG")
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .unwrap();
        wait_healthy(port, &mut child);
        Node { port, child, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The token printed on the last line of `chuhe token create --bot`.
fn bot_token(database: &str, name: &str) -> String {
    let out = Command::new(CHUHE)
        .args(["token", "create", "--database", database, "--account", name])
        .arg("--bot")
        .env_remove("CHUHE_DATABASE")
        .env_remove("CHUHE_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().last().unwrap().to_owned()
}

/// An NDJSON stream read line by line.
struct Lines {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl Lines {
    async fn open(url: &str, path: &str, token: &str) -> Lines {
        let response = reqwest::Client::new()
            .get(format!("{url}{path}"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
        Lines {
            response,
            buffer: Vec::new(),
        }
    }

    /// The next JSON line (keep-alive newlines skipped), within 40 s.
    async fn next(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(40), async {
            loop {
                if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = self.buffer.drain(..=end).collect();
                    let text = String::from_utf8(line).unwrap();
                    if text.trim().is_empty() {
                        continue;
                    }
                    return serde_json::from_str(text.trim()).unwrap();
                }
                let chunk = self
                    .response
                    .chunk()
                    .await
                    .unwrap()
                    .expect("the stream ended");
                self.buffer.extend_from_slice(&chunk);
            }
        })
        .await
        .expect("a line within 40 s")
    }
}

/// A POST with the bot's token and a form: (status, JSON body).
async fn post(url: &str, path: &str, token: &str, form: &str) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{url}{path}"))
        .bearer_auth(token)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form.to_owned())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body = answer.text().await.unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// Reads `lines` until a `gameState` whose moves are `moves` (an earlier state may come first:
/// the game's start).
async fn state_with(lines: &mut Lines, moves: &str) -> Value {
    loop {
        let line = lines.next().await;
        if line["type"] == "gameState" && line["moves"] == moves {
            return line;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_and_streams_cross_the_cluster_and_survive_a_node() {
    let dir = TempDir::new("cluster-bots");
    let db = PgDatabase::new("clusterbots");
    let prefix = format!("cb{}", std::process::id());
    let alpha = bot_token(&db.url(), "Alpha");
    let beta = bot_token(&db.url(), "Beta");
    let mut nodes = [
        Node::start("b1", &db.url(), &prefix, &dir.0),
        Node::start("b2", &db.url(), &prefix, &dir.0),
    ];
    let urls = [nodes[0].url(), nodes[1].url()];
    // Alpha on node 1, Beta on node 2.
    let mut a_events = Lines::open(&urls[0], "/api/stream/event", &alpha).await;
    let mut b_events = Lines::open(&urls[1], "/api/stream/event", &beta).await;

    // Made on node 1, declined on node 2: both streams are told.
    let (status, first) = post(&urls[0], "/api/challenge/Beta", &alpha, "").await;
    assert_eq!(status, 200, "{first}");
    let first_id = first["id"].as_str().unwrap().to_owned();
    for events in [&mut a_events, &mut b_events] {
        let line = events.next().await;
        assert_eq!(line["type"], "challenge", "{line}");
        assert_eq!(line["challenge"]["id"], first_id.as_str());
    }
    let path = format!("/api/challenge/{first_id}/decline");
    let (status, _) = post(&urls[1], &path, &beta, "reason=tooFast").await;
    assert_eq!(status, 200);
    for events in [&mut a_events, &mut b_events] {
        let line = events.next().await;
        assert_eq!(line["type"], "challengeDeclined", "{line}");
        assert_eq!(line["challenge"]["declineReasonKey"], "tooFast");
    }

    // Made on node 1, accepted on both nodes at once: one game.
    let (_, second) = post(&urls[0], "/api/challenge/Beta", &alpha, "color=white").await;
    let second_id = second["id"].as_str().unwrap().to_owned();
    for events in [&mut a_events, &mut b_events] {
        assert_eq!(events.next().await["type"], "challenge");
    }
    let path = format!("/api/challenge/{second_id}/accept");
    let (on_1, on_2) = tokio::join!(
        post(&urls[0], &path, &beta, ""),
        post(&urls[1], &path, &beta, "")
    );
    let mut statuses = [on_1.0, on_2.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 404], "{on_1:?} {on_2:?}");
    // The node that accepted made the table and owns it.
    let owner = if on_1.0 == 200 { 0 } else { 1 };
    let a_start = a_events.next().await;
    let b_start = b_events.next().await;
    assert_eq!(a_start["type"], "gameStart", "{a_start}");
    assert_eq!(b_start["type"], "gameStart", "{b_start}");
    let game = a_start["game"]["id"].as_str().unwrap().to_owned();
    assert_eq!(b_start["game"]["id"], game.as_str());
    assert_eq!(a_start["game"]["color"], "white");
    // Told once: the next line of each stream is the next event.
    let (_, third) = post(&urls[1], "/api/challenge/Alpha", &beta, "").await;
    for events in [&mut a_events, &mut b_events] {
        let line = events.next().await;
        assert_eq!(line["type"], "challenge", "{line}");
        assert_eq!(line["challenge"]["id"], third["id"]);
    }

    // Each bot reads the game through its own node; Alpha (Red) and Beta play.
    let stream = format!("/api/bot/game/stream/{game}");
    let mut a_game = Lines::open(&urls[0], &stream, &alpha).await;
    assert_eq!(a_game.next().await["type"], "gameFull");
    let mut b_game = Lines::open(&urls[1], &stream, &beta).await;
    let full = b_game.next().await;
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["state"]["status"], "started");
    let mut played = Vec::new();
    for (mv, node, token) in [("h2e2", 0, &alpha), ("h9g7", 1, &beta)] {
        let path = format!("/api/bot/game/{game}/move/{mv}");
        let (status, answer) = post(&urls[node], &path, token, "").await;
        assert_eq!((status, answer), (200, json!({"ok": true})), "{mv}");
        played.push(mv);
        for lines in [&mut a_game, &mut b_game] {
            state_with(lines, &played.join(" ")).await;
        }
    }

    // The owner dies; the bot whose node it was reconnects to the other node.
    let survivor = 1 - owner;
    nodes[owner].kill();
    let token = if owner == 0 { &alpha } else { &beta };
    let mut events = Lines::open(&urls[survivor], "/api/stream/event", token).await;
    let replay = events.next().await;
    assert_eq!(replay["type"], "gameStart", "{replay}");
    assert_eq!(replay["game"]["id"], game.as_str());
    assert_eq!(replay["game"]["status"], "started");
    // Its game stream starts with the whole game (the table taken over from the database).
    let mut again = Lines::open(&urls[survivor], &stream, token).await;
    let full = again.next().await;
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(full["state"]["moves"], "h2e2 h9g7");
    // And the game goes on through the survivor.
    let path = format!("/api/bot/game/{game}/move/b0c2");
    let (status, answer) = post(&urls[survivor], &path, &alpha, "").await;
    assert_eq!((status, answer), (200, json!({"ok": true})));
    let state = state_with(&mut again, "h2e2 h9g7 b0c2").await;
    assert_eq!(state["status"], "started");
    let log = std::fs::read_to_string(&nodes[survivor].log).unwrap_or_default();
    assert!(log.contains("taken over"), "{log}");
}
