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

/// Takes an exclusive lock on `FILE.lock` beside an SQLite database, so that a second
/// `chuhe serve` on the same file stops at once instead of running the same tables' clocks and
/// writing the same events. The lock lasts as long as the returned file is open (the process);
/// the operating system releases it when the process ends, however it ends.
///
/// # Errors
/// An input error (status 2) when another process holds the lock; an I/O error when the lock
/// file cannot be created.
fn lock_sqlite(path: &str) -> Result<File, CliError> {
    let lock_path = format!("{path}.lock");
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

/// Runs the game server on `bind` with the database at `database` until SIGINT or SIGTERM;
/// with `trust_forwarded_for`, requests from loopback are rate-limited by their
/// `X-Forwarded-For` address; pages of `allowed_origins` may act for players besides the site's
/// own; `computer_threads` computer searches run at once. Logs go to standard error; `RUST_LOG`
/// filters them (default `info`).
pub fn serve(
    bind: &str,
    database: &str,
    trust_forwarded_for: bool,
    allowed_origins: Vec<String>,
    computer_threads: usize,
) -> Result<(), CliError> {
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
    runtime
        .block_on(chuhe_server::run(
            bind,
            database,
            chuhe_server::Settings {
                trust_forwarded_for,
                allowed_origins,
                computer_threads,
                ..chuhe_server::Settings::default()
            },
        ))
        .map_err(|e| match e {
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
        assert_eq!(
            err.message,
            format!("the database {db} is in use by another chuhe serve (lock {db}.lock)")
        );
        drop(first);
        assert!(lock_sqlite(db).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
