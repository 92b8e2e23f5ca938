//! What the `chuhe loadtest` tests share: a real `chuhe serve` on a SQLite database of its own,
//! the load test's command against it, and its report with the context a failed assertion
//! prints (the report, the load test's standard error and the server's log).

use super::{serve, wait_healthy, TempDir, CHUHE};
use std::path::PathBuf;
use std::process::{Child, Command, Output};

/// A `chuhe serve` on `127.0.0.1:port` (a free port) and a SQLite database in a temporary
/// folder, healthy once [`LoadServer::start`] returns. Dropping it kills the server (if it
/// still runs) before the folder is removed.
pub struct LoadServer {
    /// The server process (`None` while it is stopped).
    server: Option<Child>,
    /// `sqlite://...`: the database the server runs on, kept across a restart.
    pub database: String,
    /// The server's log, appended to across a restart.
    pub log: PathBuf,
    /// The port the server listens on, kept across a restart.
    pub port: u16,
    /// `http://127.0.0.1:PORT`: what `--url` is given.
    pub url: String,
    /// Dropped last: the folder of the database and the log.
    _dir: TempDir,
}

impl LoadServer {
    /// Starts the server in a fresh folder named after `name` and waits for its health.
    pub fn start(name: &str) -> LoadServer {
        let dir = TempDir::new(name);
        let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
        let log = dir.0.join("serve.log");
        let port = super::free_port();
        let mut server = LoadServer {
            server: None,
            database,
            log,
            port,
            url: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        };
        server.restart();
        server
    }

    /// Starts the server again (after [`LoadServer::kill`]) on the same database, port and log,
    /// and waits for its health.
    pub fn restart(&mut self) {
        assert!(self.server.is_none(), "the server still runs");
        let mut child = serve(&self.database, self.port, &self.log);
        wait_healthy(self.port, &mut child);
        self.server = Some(child);
    }

    /// The running server's process id, as `--server-pid` takes it.
    pub fn pid(&self) -> String {
        self.server
            .as_ref()
            .expect("the server runs")
            .id()
            .to_string()
    }

    /// Kills the server with SIGKILL (`Child::kill` on Unix: no shutdown, no flush) and reaps it.
    pub fn kill(&mut self) {
        let mut child = self.server.take().expect("the server runs");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// The server's log so far (empty if it cannot be read).
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A finished load test's report (its standard output) and the context for a failed
    /// assertion: the report, the load test's standard error and the server's log.
    pub fn report(&self, out: &Output) -> (String, String) {
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        let context = format!(
            "{report}\n{}\nserver log:\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log_text()
        );
        (report, context)
    }
}

impl Drop for LoadServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `chuhe loadtest --url U` for each of `urls`, to which a test adds its arguments.
pub fn loadtest(urls: &[&str]) -> Command {
    let mut command = Command::new(CHUHE);
    command.arg("loadtest");
    for url in urls {
        command.args(["--url", url]);
    }
    command
}
