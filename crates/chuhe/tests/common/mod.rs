//! What the tests that run a real `chuhe serve` share: a free port, the server process, waiting
//! for its health, a temporary folder, the lines of a load test's report (and in `loadtest`, the
//! server a load test runs against).

#![allow(dead_code)]

pub mod loadtest;
pub mod play;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `chuhe` binary under test.
pub const CHUHE: &str = env!("CARGO_BIN_EXE_chuhe");

/// A free loopback port (free when asked; the server binds it with `SO_REUSEADDR`).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `chuhe serve` on `127.0.0.1:port` and `database`, its log appended to `log`.
pub fn serve(database: &str, port: u16, log: &Path) -> Child {
    serve_with(database, port, log, &[])
}

/// [`serve`] with more arguments.
pub fn serve_with(database: &str, port: u16, log: &Path, more: &[&str]) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    Command::new(CHUHE)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", database])
        .args(more)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// Waits until `GET /api/health` answers 200 (up to 30 s).
pub fn wait_healthy(port: u16, server: &mut Child) {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        assert!(
            server.try_wait().unwrap().is_none(),
            "chuhe serve exited before answering"
        );
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.write_all(b"GET /api/health HTTP/1.0\r\nHost: x\r\n\r\n");
            let mut answer = String::new();
            let _ = s.read_to_string(&mut answer);
            if answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200") {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no 200 from /api/health within 30 s");
}

/// A fresh temporary folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("chuhe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PostgreSQL database of its own, `chuhe_NAME_PID`, made with `createdb` and dropped on drop
/// (the local server, user `postgres`, trust authentication).
pub struct PgDatabase(pub String);

impl PgDatabase {
    pub fn new(name: &str) -> PgDatabase {
        let name = format!("chuhe_{name}_{}", std::process::id());
        let _ = Command::new("dropdb")
            .args(["-h", "127.0.0.1", "-U", "postgres", "--if-exists", &name])
            .status();
        let made = Command::new("createdb")
            .args(["-h", "127.0.0.1", "-U", "postgres", &name])
            .status()
            .expect("createdb (PostgreSQL's client) is needed");
        assert!(made.success(), "createdb {name} failed");
        PgDatabase(name)
    }

    /// The database's URL.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:5432/{}", self.0)
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let _ = Command::new("dropdb")
            .args(["-h", "127.0.0.1", "-U", "postgres", "--force", &self.0])
            .status();
    }
}

/// The line of `report` that starts with `prefix`, without the prefix.
pub fn line<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{report}"))
}

/// The number that starts `text` (`"12 acknowledged ..."`: 12).
pub fn first_number(text: &str) -> u64 {
    text.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number at the start of {text:?}"))
}

/// The answer to an HTTP/1.0 request on `port`: head and body.
pub fn http(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer
}

/// The answer to a POST of JSON `body` to `path` on `port`, with `cookie` (`NAME=VALUE`, or
/// empty).
pub fn post(port: u16, path: &str, cookie: &str, body: &str) -> String {
    http(
        port,
        &format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Cookie: {cookie}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// A new guest's session cookie (`chuhe_session=...`) and the id of a new xiangqi table it
/// made, on the server at `port`.
pub fn guest_table(port: u16) -> (String, String) {
    let session = post(port, "/api/session", "", r#"{"name":"Observer"}"#);
    let cookie = session
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
        .find_map(|(_, v)| {
            v.split(';')
                .next()
                .filter(|c| c.starts_with("chuhe_session="))
        })
        .unwrap_or_else(|| panic!("no session cookie: {session}"))
        .to_owned();
    let answer = post(port, "/api/tables", &cookie, r#"{"variant":"xiangqi"}"#);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no body: {answer}"));
    let table: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
    let id = table["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no table id: {answer}"))
        .to_owned();
    (cookie, id)
}

/// A child process killed and reaped when dropped.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `nats-server -c` on `port` with JetStream on, its configuration (`extra` appended:
/// authorization, TLS), JetStream folder and log (`nats-server.log`) in `dir`; waits until the
/// port answers (at most 20 s). `CHUHE_TEST_NATS_SERVER` names another binary.
pub fn nats_server(dir: &Path, port: u16, extra: &str) -> Running {
    let log = dir.join("nats-server.log");
    let config = format!(
        "listen: \"127.0.0.1:{port}\"\njetstream {{ store_dir: {:?} }}\n{extra}\n",
        dir.join("jetstream").display().to_string()
    );
    let path = dir.join("nats-server.conf");
    std::fs::write(&path, config).unwrap();
    let binary = std::env::var("CHUHE_TEST_NATS_SERVER")
        .unwrap_or_else(|_| "/usr/sbin/nats-server".to_owned());
    let child = Command::new(&binary)
        .arg("-c")
        .arg(&path)
        .arg("-l")
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{binary} is needed: {e}"));
    let mut process = Running(child);
    let until = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            process.0.try_wait().unwrap().is_none(),
            "nats-server stopped: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        assert!(Instant::now() < until, "nats-server did not listen in 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    process
}
