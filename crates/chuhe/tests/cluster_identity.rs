//! A cluster's identity (docs/cluster.md): a node started with another `--nats-prefix` than
//! the running nodes of its database is refused with one line, and so is a node of another
//! database whose NATS already carries a cluster under the same prefix (the two sites would
//! exchange their tables' messages). PostgreSQL databases of their own (`createdb`) and the
//! machine's NATS (`CHUHE_TEST_NATS`, default `nats://127.0.0.1:4222`).

mod common;

use common::{free_port, wait_healthy, PgDatabase, TempDir, CHUHE};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn nats_url() -> String {
    std::env::var("CHUHE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

fn node(database: &str, name: &str, prefix: &str, port: u16) -> Command {
    let mut command = Command::new(CHUHE);
    command
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", database, "--nats", &nats_url()])
        .args(["--node-id", name, "--nats-prefix", prefix])
        .env("RUST_LOG", "warn");
    command
}

/// Runs a node that must be refused at start: its status and last line of standard error.
fn refused(database: &str, name: &str, prefix: &str) -> (Option<i32>, String) {
    let mut child = node(database, name, prefix, free_port())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("node {name} with prefix {prefix} was not refused");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Output { status, stderr, .. } = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&stderr);
    let last = text.lines().last().unwrap_or_default().to_owned();
    (status.code(), last)
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_node_that_disagrees_with_its_cluster_is_refused() {
    let dir = TempDir::new("cluster-identity");
    let one = PgDatabase::new("identity_one");
    let two = PgDatabase::new("identity_two");
    let prefix = format!("ident{}", std::process::id());
    let port = free_port();
    let log = std::fs::File::create(dir.0.join("n1.log")).unwrap();
    let mut first = Running(
        node(&one.url(), "n1", &prefix, port)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_healthy(port, &mut first.0);

    // Another prefix on the same database while n1 runs.
    let (status, line) = refused(&one.url(), "n2", "otherprefix");
    assert_eq!(status, Some(2), "{line}");
    assert_eq!(
        line,
        format!(
            "chuhe: the database belongs to a cluster whose 1 running node(s) use \
             --nats-prefix {prefix:?}; this node was given \"otherprefix\""
        )
    );
    // The same prefix on the same NATS for another database: another site's cluster.
    let (status, line) = refused(&two.url(), "n3", &prefix);
    assert_eq!(status, Some(2), "{line}");
    assert!(
        line.starts_with(&format!(
            "chuhe: NATS at {} already carries another chuhe cluster under --nats-prefix {prefix:?}",
            nats_url()
        )),
        "{line}"
    );
    drop(first);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = async_nats::connect(nats_url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        for bucket in ["lobby", "cluster"] {
            let _ = js.delete_key_value(format!("{prefix}-{bucket}")).await;
        }
    });
}
