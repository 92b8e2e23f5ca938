//! An arena on a cluster of two `chuhe serve` nodes (one PostgreSQL database made with
//! `createdb`, the machine's NATS with JetStream, `CHUHE_TEST_NATS`; docs/cluster.md,
//! docs/tournaments.md): the arena is created on node A, which owns it under a fenced lease;
//! two players join through A and two through B (B stores their joins for the owner and tells
//! it over NATS), the first wave pairs all four, and B's pages and live stream show it, and a
//! player whose event stream is on B gets her `gameStart` (through NATS). A is killed
//! with SIGKILL: B takes the arena over from its stored state, the games of the first wave end
//! (resigned through B, which takes their tables over too) and are scored, and B pairs the
//! next wave.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{free_port, wait_healthy, PgDatabase, TempDir, CHUHE};

const LEASE_MS: u64 = 2000;
const NAMES: [&str; 4] = ["Ana", "Bo", "Cai", "Dee"];

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
        let file = std::fs::File::create(&log).unwrap();
        let mut child = Command::new(CHUHE)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args(["--database", database, "--nats", &nats_url()])
            .args(["--node-id", name, "--nats-prefix", prefix])
            .args(["--lease-ms", &LEASE_MS.to_string()])
            // an arena's minute lasts 3 s: its ten minutes outlast the test
            .env("CHUHE_TEST_TOURNAMENT_MINUTE_MS", "3000")
            .env("RUST_LOG", "info")
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

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `method url` with a bearer token and a form body: (status, JSON body).
async fn call(method: &str, url: &str, token: &str, form: &str) -> (u16, Value) {
    let client = reqwest::Client::new();
    let request = match method {
        "POST" => client.post(url),
        _ => client.get(url),
    };
    let response = request
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn view(node: &Node, id: &str) -> Value {
    let (status, v) = call(
        "GET",
        &format!("{}/api/tournament/{id}", node.url()),
        "",
        "",
    )
    .await;
    assert_eq!(status, 200, "{v}");
    v
}

/// Waits up to `secs` for the arena's view on `node` to pass `done`.
async fn wait_view(node: &Node, id: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = view(node, id).await;
        if done(&v) {
            return v;
        }
        assert!(
            Instant::now() < end,
            "waited {secs} s: {v}\n{}",
            node.log_text()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn duels(v: &Value) -> Vec<Value> {
    v["duels"].as_array().cloned().unwrap_or_default()
}

fn games_of(v: &Value, name: &str) -> usize {
    v["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .map_or(0, |p| p["results"].as_array().map_or(0, Vec::len))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_takes_an_arena_over_when_its_owner_dies() {
    let dir = TempDir::new("cluster-arena");
    let db = PgDatabase::new("cluster_arena");
    let prefix = format!("arena{}", std::process::id());
    let a = Node::start("a", &db.url(), &prefix, &dir.0);
    let mut a = Some(a);
    let b = Node::start("b", &db.url(), &prefix, &dir.0);
    let scopes = [
        chuhe_server::accounts::tokens::Scope::BoardPlay,
        chuhe_server::accounts::tokens::Scope::TournamentWrite,
    ];
    let mut tokens = Vec::new();
    for name in NAMES {
        let issued =
            chuhe_server::store::issue_token(&db.url(), name, false, &scopes, "cluster arena")
                .await
                .unwrap();
        tokens.push(issued.token);
    }
    let a_url = a.as_ref().unwrap().url();

    // Created on A, which runs it; listed on B.
    let start = chuhe_server::store::now_ms() + 1500;
    let form = format!(
        "name=Cluster&variant=xiangqi&clockTime=1&minutes=10&startDate={start}&rated=false"
    );
    let (status, created) = call(
        "POST",
        &format!("{a_url}/api/tournament"),
        &tokens[0],
        &form,
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let (_, list) = call("GET", &format!("{}/api/tournament", b.url()), "", "").await;
    assert_eq!(list["created"][0]["id"], id.as_str(), "{list}");

    // B's live stream of it: B does not run it, and reads its stored version every wave.
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let stream_url = format!("{}/api/tournament/{id}/stream", b.url());
    let watcher = tokio::spawn(async move {
        let mut response = reqwest::get(&stream_url).await.unwrap();
        let mut pending = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                if let Ok(v) = serde_json::from_slice::<Value>(&line) {
                    let _ = lines_tx.send(v);
                }
            }
        }
    });

    // Ana's event stream is on B: her gameStart, paired on A, comes through NATS.
    let (events_tx, mut events_rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let events_url = format!("{}/api/stream/event", b.url());
    let ana = tokens[0].clone();
    let events = tokio::spawn(async move {
        let mut response = reqwest::Client::new()
            .get(&events_url)
            .header("Authorization", format!("Bearer {ana}"))
            .send()
            .await
            .unwrap();
        let mut pending = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                if let Ok(v) = serde_json::from_slice::<Value>(&line) {
                    let _ = events_tx.send(v);
                }
            }
        }
    });

    // Two join through A, two through B (stored for A, which B tells over NATS).
    for (k, token) in tokens.iter().enumerate() {
        let base = if k < 2 { a_url.clone() } else { b.url() };
        let (status, ok) = call(
            "POST",
            &format!("{base}/api/tournament/{id}/join"),
            token,
            "",
        )
        .await;
        assert_eq!(status, 200, "{ok}");
    }
    let first = wait_view(&b, &id, 30, |v| duels(v).len() == 2).await;
    assert_eq!(first["nbPlayers"], 4);
    assert_eq!(first["isStarted"], true);
    // The watcher on B saw the joins and the wave A made.
    let seen = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(v) = lines_rx.recv().await {
            if v["nbPlayers"] == 4 && duels(&v).len() == 2 {
                return v;
            }
        }
        panic!("B's stream ended");
    })
    .await
    .unwrap();
    assert_eq!(seen["id"], id.as_str());
    watcher.abort();
    let start = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(v) = events_rx.recv().await {
            if v["type"] == "gameStart" {
                return v;
            }
        }
        panic!("Ana's event stream ended");
    })
    .await
    .unwrap();
    assert_eq!(start["game"]["tournamentId"], id.as_str());
    assert!(
        duels(&first).iter().any(|d| d["id"] == start["game"]["id"]),
        "{start}"
    );
    events.abort();
    let first_tables: Vec<String> = duels(&first)
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect();

    // The owner dies.
    let mut dead = a.take().unwrap();
    dead.child.kill().unwrap();
    dead.child.wait().unwrap();

    // The first wave's games end through B: the later name resigns each one.
    for duel in duels(&first) {
        let index = |k: usize| {
            let name = duel["p"][k]["n"].as_str().unwrap();
            NAMES.iter().position(|n| *n == name).unwrap()
        };
        let loser = index(0).max(index(1));
        let table = duel["id"].as_str().unwrap();
        let url = format!("{}/api/board/game/{table}/resign", b.url());
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let (status, body) = call("POST", &url, &tokens[loser], "").await;
            if status == 200 {
                break;
            }
            assert!(Instant::now() < end, "resign {table}: {status} {body}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // B took the arena over, scored the games and paired the next wave at new tables.
    let next = wait_view(&b, &id, 40, |v| {
        NAMES.iter().all(|n| games_of(v, n) == 1)
            && duels(v).len() == 2
            && duels(v)
                .iter()
                .all(|d| !first_tables.iter().any(|t| d["id"] == t.as_str()))
    })
    .await;
    assert_eq!(next["nbPlayers"], 4);
    let log = b.log_text();
    assert!(log.contains("tournament taken over"), "{log}");
    // Ana won her game (2 points), Dee lost his (0).
    let score = |name: &str| {
        next["standing"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["score"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(score("Ana"), 2, "{next}");
    assert_eq!(score("Dee"), 0, "{next}");
    drop(dead);
}
