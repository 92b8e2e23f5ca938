//! A cluster node's metrics: `chuhe_nats_connected` is 1 while its NATS answers, 0 once the
//! NATS server is gone, and 1 again when it is back. A PostgreSQL database of its own
//! (`createdb`) and a `nats-server` of its own (`CHUHE_TEST_NATS_SERVER`, default
//! `/usr/sbin/nats-server`).

mod common;

use common::{free_port, http, nats_server, wait_healthy, PgDatabase, Running, TempDir, CHUHE};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A child process, killed on drop.
/// The value of `chuhe_nats_connected` on the metrics listener at `port`, if it is there.
fn nats_connected(port: u16) -> Option<String> {
    let text = http(port, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n");
    text.lines()
        .find_map(|l| l.strip_prefix("chuhe_nats_connected "))
        .map(str::to_owned)
}

/// Waits up to 30 s for `chuhe_nats_connected` to read `want`.
fn wait_for(port: u16, want: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let now = nats_connected(port);
        if now.as_deref() == Some(want) {
            return;
        }
        assert!(
            Instant::now() < until,
            "chuhe_nats_connected is {now:?}, not {want}, after 30 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_nats_connection_is_a_gauge() {
    let dir = TempDir::new("cluster-metrics");
    let database = PgDatabase::new("metrics");
    let nats_port = free_port();
    let nats = nats_server(&dir.0, nats_port, "");
    let port = free_port();
    let metrics = free_port();
    let log = std::fs::File::create(dir.0.join("node.log")).unwrap();
    let child = Command::new(CHUHE)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", &database.url()])
        .args(["--nats", &format!("nats://127.0.0.1:{nats_port}")])
        .args(["--node-id", "m1", "--nats-prefix", "metricstest"])
        .args(["--metrics-bind", &format!("127.0.0.1:{metrics}")])
        .env_remove("CHUHE_CONFIG")
        .env_remove("CHUHE_NATS_PASSWORD")
        .env_remove("CHUHE_NATS_TOKEN")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut node = Running(child);
    wait_healthy(port, &mut node.0);
    wait_for(metrics, "1");
    drop(nats);
    wait_for(metrics, "0");
    let _nats = nats_server(&dir.0, nats_port, "");
    wait_for(metrics, "1");
    assert!(node.0.try_wait().unwrap().is_none(), "the node stopped");
}
