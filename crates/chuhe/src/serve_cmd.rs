//! `chuhe serve`: logging setup and a runtime around `chuhe_server::run`.

use crate::cli::CliError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::IsTerminal;

/// The file of an SQLite database URL (`sqlite://chuhe.db`, `sqlite:chuhe.db?mode=rwc`), or
/// `None` for an in-memory database or another kind of URL.
fn sqlite_file(database: &str) -> Option<&str> {
    let rest = database
        .strip_prefix("sqlite://")
        .or_else(|| database.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or("");
    (!path.is_empty() && path != ":memory:").then_some(path)
}

/// The path of `path` with every symbolic link and `.`/`..` resolved, so that one database
/// reached through a link, a relative path or another spelling has one lock file: the file's
/// own when it exists, else its (existing) folder's joined with its name.
///
/// # Errors
/// The folder does not exist or cannot be read.
fn canonical_path(path: &str) -> std::io::Result<std::path::PathBuf> {
    let path = std::path::Path::new(path);
    match std::fs::canonicalize(path) {
        Ok(p) => Ok(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let name = path.file_name().ok_or(e)?;
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => std::path::Path::new("."),
            };
            Ok(std::fs::canonicalize(parent)?.join(name))
        }
        Err(e) => Err(e),
    }
}

/// Takes an exclusive lock on `FILE.lock` beside an SQLite database (`FILE` canonicalised:
/// a symbolic link to the database locks the same file), so that a second
/// `chuhe serve` on the same file stops at once instead of running the same tables' clocks and
/// writing the same events. The lock lasts as long as the returned file is open (the process);
/// the operating system releases it when the process ends, however it ends.
///
/// # Errors
/// An input error (status 2) when another process holds the lock; an I/O error when the lock
/// file cannot be created.
fn lock_sqlite(path: &str) -> Result<File, CliError> {
    let canonical = canonical_path(path)
        .map_err(|e| CliError::input(format!("cannot resolve the database path {path}: {e}")))?;
    let lock_path = format!("{}.lock", canonical.display());
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| CliError::input(format!("cannot open the lock file {lock_path}: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(CliError::input(format!(
            "the database {path} is in use by another chuhe serve (lock {lock_path})"
        ))),
        Err(TryLockError::Error(e)) => {
            Err(CliError::input(format!("cannot lock {lock_path}: {e}")))
        }
    }
}

/// The limits of `chuhe serve` against hanging databases, crowds of connections and stolen
/// cookies (docs/security.md).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct Limits {
    /// Longest wait for the database, in milliseconds: each statement, each write, each
    /// connection. A move that waits longer is answered "the database did not answer in time".
    #[arg(long, env = "CHUHE_DB_TIMEOUT_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub db_timeout_ms: u64,
    /// Most connections open at once from one client address (an IPv6 client by its /64);
    /// beyond, a connection is answered 429 and closed.
    #[arg(long, env = "CHUHE_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_address: u64,
    /// Longest time a client may take to send a request's head, and again its body, in
    /// seconds (slowloris, slow bodies); `--header-timeout-secs` is its older name.
    #[arg(long, alias = "header-timeout-secs", env = "CHUHE_REQUEST_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// Longest time the server takes to stop on SIGTERM or SIGINT, in seconds; past it, what
    /// is left (saving clocks, closing the database) is abandoned with a warning.
    #[arg(long, env = "CHUHE_SHUTDOWN_TIMEOUT_SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub shutdown_timeout_secs: u64,
    /// Mark the session cookie Secure (sent over HTTPS only): set it when the site is served
    /// over TLS.
    #[arg(long, env = "CHUHE_SECURE_COOKIES")]
    pub secure_cookies: bool,
    /// How long a session lasts after its last use, in days; expired sessions and the guests
    /// left without one are removed every hour.
    #[arg(long, env = "CHUHE_SESSION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3650))]
    pub session_days: u64,
}

/// Joining a cluster of `chuhe serve` nodes on one PostgreSQL database and one NATS
/// (docs/cluster.md).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ClusterArgs {
    /// NATS server of a cluster, nats://HOST:PORT (JetStream on): this server becomes one node
    /// of a site served by several (the database must be PostgreSQL). Without it, a single
    /// server.
    #[arg(long, env = "CHUHE_NATS")]
    pub nats: Option<String>,
    /// This node's name in the cluster: letters, digits, '-' and '_' (default: the host name).
    #[arg(long, env = "CHUHE_NODE_ID", requires = "nats")]
    pub node_id: Option<String>,
    /// First token of the cluster's NATS subjects and name of its lobby bucket, so that several
    /// sites can share one NATS.
    #[arg(
        long,
        env = "CHUHE_NATS_PREFIX",
        default_value = "chuhe",
        requires = "nats"
    )]
    pub nats_prefix: String,
    /// How long a node's lease lasts without renewal, in milliseconds: a dead node's tables
    /// are taken over this long after it died (plus about a second).
    #[arg(long, env = "CHUHE_LEASE_MS", default_value_t = 5000, requires = "nats",
          value_parser = clap::value_parser!(u64).range(1000..=600_000))]
    pub lease_ms: u64,
}

impl ClusterArgs {
    /// The cluster settings, when `--nats` is given.
    ///
    /// # Errors
    /// An input error for a database that is not PostgreSQL.
    fn settings(
        &self,
        database: &str,
    ) -> Result<Option<chuhe_server::cluster::ClusterSettings>, CliError> {
        let Some(nats) = &self.nats else {
            return Ok(None);
        };
        if !(database.starts_with("postgres:") || database.starts_with("postgresql:")) {
            return Err(CliError::input(
                "--nats: a cluster's nodes share a PostgreSQL database (--database postgres://...)"
                    .to_owned(),
            ));
        }
        let name = match &self.node_id {
            Some(n) => n.clone(),
            None => hostname(),
        };
        let mut settings = chuhe_server::cluster::ClusterSettings::new(nats, &name);
        settings.prefix = self.nats_prefix.clone();
        settings.lease = std::time::Duration::from_millis(self.lease_ms);
        settings
            .check()
            .map_err(|e| CliError::input(e.to_string()))?;
        Ok(Some(settings))
    }
}

/// The machine's host name as a node name (letters, digits, '-' and '_' kept), or `node`.
fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    if name.is_empty() {
        "node".to_owned()
    } else {
        name
    }
}

impl Limits {
    /// These limits in the server's settings.
    fn apply(&self, settings: &mut chuhe_server::Settings) {
        use std::time::Duration;
        let db = Duration::from_millis(self.db_timeout_ms);
        settings.store.statement_timeout = db;
        settings.store.acquire_timeout = db;
        settings.store.session_lifetime = Duration::from_secs(self.session_days * 24 * 3600);
        settings.max_connections_per_address =
            usize::try_from(self.max_connections_per_address).unwrap_or(usize::MAX);
        settings.request_timeout = Duration::from_secs(self.request_timeout_secs);
        settings.shutdown_timeout = Duration::from_secs(self.shutdown_timeout_secs);
        settings.secure_cookies = self.secure_cookies;
    }
}

/// Runs the game server on `bind` with the database at `database` until SIGINT or SIGTERM;
/// with `trust_forwarded_for`, requests from loopback are rate-limited by their
/// `X-Forwarded-For` address; pages of `allowed_origins` may act for players besides the site's
/// own; `computer_threads` computer searches run at once; `limits` bound the waits and
/// connections. Logs go to standard error; `RUST_LOG` filters them (default `info`).
pub fn serve(
    bind: &str,
    database: &str,
    trust_forwarded_for: bool,
    allowed_origins: Vec<String>,
    computer_threads: usize,
    limits: &Limits,
    cluster: &ClusterArgs,
) -> Result<(), CliError> {
    let cluster = cluster.settings(database)?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
    let _lock = sqlite_file(database).map(lock_sqlite).transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut settings = chuhe_server::Settings {
        trust_forwarded_for,
        allowed_origins,
        computer_threads,
        ..chuhe_server::Settings::default()
    };
    limits.apply(&mut settings);
    settings.store.cluster = cluster.is_some();
    settings.cluster = cluster;
    let served = runtime.block_on(chuhe_server::run(bind, database, settings));
    // Searches still running on blocking threads are not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map_err(|e| match e {
        // A bad address or database URL is bad input: status 2.
        chuhe_server::error::ServerError::Config(m) => CliError::input(m),
        e => CliError {
            message: e.to_string(),
            status: 1,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_name_their_file() {
        assert_eq!(sqlite_file("sqlite://chuhe.db"), Some("chuhe.db"));
        assert_eq!(sqlite_file("sqlite:/tmp/x.db?mode=rwc"), Some("/tmp/x.db"));
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("postgres://127.0.0.1/test"), None);
    }

    #[test]
    fn a_second_lock_on_the_same_database_is_refused() {
        let dir = std::env::temp_dir().join(format!("chuhe-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("chuhe.db");
        let db = db.to_str().unwrap();
        let first = lock_sqlite(db).unwrap();
        let err = lock_sqlite(db).unwrap_err();
        assert_eq!(err.status, 2);
        let canonical = std::fs::canonicalize(&dir).unwrap().join("chuhe.db");
        assert_eq!(
            err.message,
            format!(
                "the database {db} is in use by another chuhe serve (lock {}.lock)",
                canonical.display()
            )
        );
        drop(first);
        assert!(lock_sqlite(db).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A symbolic link to a locked database, and a path through `..`, are refused: the lock
    /// is taken on the file the link points to.
    #[cfg(unix)]
    #[test]
    fn a_link_to_a_locked_database_is_refused() {
        let dir = std::env::temp_dir().join(format!("chuhe-link-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let db = dir.join("chuhe.db");
        std::fs::write(&db, b"").unwrap();
        let link = dir.join("sub").join("other-name.db");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        let first = lock_sqlite(db.to_str().unwrap()).unwrap();
        let err = lock_sqlite(link.to_str().unwrap()).unwrap_err();
        assert_eq!(err.status, 2);
        assert!(
            err.message.contains("is in use by another chuhe serve"),
            "{}",
            err.message
        );
        let dotted = dir.join("sub").join("..").join("chuhe.db");
        assert_eq!(lock_sqlite(dotted.to_str().unwrap()).unwrap_err().status, 2);
        drop(first);
        assert!(lock_sqlite(link.to_str().unwrap()).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
