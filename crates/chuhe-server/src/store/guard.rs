//! One server per database: the SQLite file lock beside the database ([`lock_sqlite`], taken by
//! [`crate::run`]), the PostgreSQL advisory lock and its watcher, the writer epoch, and what a
//! superseded server is told (see "One writer per database" in [`super`]).

use super::{wall_timers, within, Store, StoreError, StoreOptions, LOCK_CHECK_EVERY};
use sqlx::{AnyConnection, ConnectOptions, Connection, Row};
use std::fs::{File, OpenOptions, TryLockError};
use tokio::sync::mpsc;

impl Store {
    /// Checks the session that holds the advisory lock every [`LOCK_CHECK_EVERY`] (timed on the
    /// wall clock, the check itself on the current runtime, where the connection lives); when
    /// it has ended, takes the lock again on a new connection, or reports the store lost when
    /// another server holds it or the writer epoch (`epoch`, a single server's) moved on.
    pub(super) fn watch_lock(&self, url: String, epoch: Option<i64>) {
        let Some(timers) = wall_timers() else {
            tracing::warn!("no timer thread: the database lock is not watched");
            return;
        };
        let (tick, mut ticks) = mpsc::channel::<()>(1);
        let weak = self.jobs.downgrade();
        timers.spawn(async move {
            loop {
                tokio::time::sleep(LOCK_CHECK_EVERY).await;
                // Ends with the store's writer (every store dropped) or the watcher.
                if weak.upgrade().is_none() || tick.send(()).await.is_err() {
                    break;
                }
            }
        });
        let lock = self.lock.clone();
        let lost = self.lost.clone();
        let options = self.options;
        tokio::spawn(async move {
            while ticks.recv().await.is_some() {
                let mut held = lock.lock().await;
                if held.closed || lost.borrow().is_some() {
                    break;
                }
                if let Some(conn) = held.conn.as_mut() {
                    let alive = within(options.statement_timeout, async {
                        sqlx::query("SELECT 1").execute(&mut *conn).await?;
                        Ok(())
                    })
                    .await;
                    match alive {
                        Ok(()) => continue,
                        Err(e) => {
                            tracing::error!(
                                error = %e,
                                "the PostgreSQL session that holds this server's advisory lock \
                                 has ended: taking the lock again"
                            );
                            held.conn = None;
                        }
                    }
                }
                match retake_lock(&url, options, epoch).await {
                    Ok(conn) => {
                        tracing::warn!("the database's advisory lock is held again");
                        held.conn = Some(conn);
                    }
                    Err(StoreError::Superseded(why)) => {
                        tracing::error!("{why}");
                        lost.send_replace(Some(why));
                        break;
                    }
                    // The database is away: the writes fail meanwhile; try at the next tick.
                    Err(e) => tracing::warn!(error = %e, "cannot take the database's lock yet"),
                }
            }
        });
    }
}

/// The connection that holds a PostgreSQL store's advisory lock, and whether the store was
/// closed (after which the lock is not taken again).
#[derive(Debug, Default)]
pub(super) struct LockSlot {
    pub(super) conn: Option<AnyConnection>,
    pub(super) closed: bool,
}

/// The first key of chuhe's PostgreSQL advisory lock (`chuh` in ASCII); the second is the
/// hash of the schema, so that servers on different schemas of one database do not exclude
/// each other.
pub(super) const ADVISORY_LOCK_KEY: i32 = 0x6368_7568;

/// The first key of the PostgreSQL advisory lock held while a starting server migrates the
/// schema and indexes the names (`chui` in ASCII), so that nodes starting together take turns.
pub(super) const STARTUP_LOCK_KEY: i32 = 0x6368_7569;

/// Takes chuhe's advisory lock of the PostgreSQL database at `url` (for its current schema) on
/// a new connection, and returns that connection: the lock lasts as long as it stays open.
///
/// # Errors
/// [`StoreError::InUse`] when another session holds the lock; a failed connection.
pub(super) async fn take_advisory_lock(
    url: &str,
    options: StoreOptions,
) -> Result<AnyConnection, StoreError> {
    let open_error = |source| StoreError::Open {
        url: url.to_owned(),
        source,
    };
    let connect_options: sqlx::any::AnyConnectOptions = url.parse().map_err(open_error)?;
    let mut conn = within(options.acquire_timeout, async {
        connect_options.connect().await.map_err(open_error)
    })
    .await?;
    // Cluster nodes share the lock; a single server holds it alone.
    let sql = if options.cluster {
        "SELECT pg_try_advisory_lock_shared($1, hashtext(current_schema())) AS locked, \
         current_database()::text AS db, current_schema()::text AS schema"
    } else {
        "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS locked, \
         current_database()::text AS db, current_schema()::text AS schema"
    };
    let row = within(options.statement_timeout, async {
        Ok(sqlx::query(sql)
            .bind(ADVISORY_LOCK_KEY)
            .fetch_one(&mut conn)
            .await?)
    })
    .await?;
    let locked: bool = row.try_get("locked")?;
    if !locked {
        let db: String = row.try_get("db")?;
        let schema: String = row.try_get("schema")?;
        let _ = conn.close().await;
        let holder = if options.cluster {
            "a chuhe serve that is not a cluster node (without --nats)"
        } else {
            "another chuhe serve or the nodes of a cluster"
        };
        return Err(StoreError::InUse(format!(
            "the database {db:?} (schema {schema:?}) is in use by {holder} \
             (it holds PostgreSQL advisory lock ({ADVISORY_LOCK_KEY}, hashtext({schema:?})))"
        )));
    }
    Ok(conn)
}

/// Takes the writer epoch of a single server on PostgreSQL: raises `server_state.writer_epoch`
/// by one and returns it, in a transaction that refuses to start while a cluster node's lease
/// runs (its registration raises the epoch too: see [`cluster`]).
///
/// # Errors
/// [`StoreError::InUse`] while cluster nodes run on the database; a database failure.
pub(super) async fn claim_writer_epoch(conn: &mut AnyConnection) -> Result<i64, StoreError> {
    sqlx::query(
        "INSERT INTO server_state (name, value) VALUES ('writer_epoch', 0) \
         ON CONFLICT (name) DO NOTHING",
    )
    .execute(&mut *conn)
    .await?;
    let mut tx = conn.begin().await?;
    let epoch: i64 = sqlx::query(
        "UPDATE server_state SET value = value + 1 WHERE name = 'writer_epoch' RETURNING value",
    )
    .fetch_one(&mut *tx)
    .await?
    .try_get("value")?;
    let live: i64 = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) AS n FROM cluster_nodes WHERE lease_until_ms > {}",
        super::cluster::DB_NOW_MS
    )))
    .fetch_one(&mut *tx)
    .await?
    .try_get("n")?;
    if live > 0 {
        tx.rollback().await?;
        return Err(StoreError::InUse(format!(
            "the database is in use by the nodes of a cluster ({live} live node leases): \
             start this server with --nats, or stop the nodes first"
        )));
    }
    tx.commit().await?;
    Ok(epoch)
}

/// Takes the advisory lock again after its session ended: on a new connection, and for a
/// single server only while the writer epoch is still `epoch` (nobody started on the database
/// meanwhile).
///
/// # Errors
/// [`StoreError::Superseded`] when another server holds the lock or took the epoch; a failed
/// connection (the database is away: try again later).
pub(super) async fn retake_lock(
    url: &str,
    options: StoreOptions,
    epoch: Option<i64>,
) -> Result<AnyConnection, StoreError> {
    let mut conn = match take_advisory_lock(url, options).await {
        Ok(conn) => conn,
        Err(StoreError::InUse(holder)) => {
            return Err(StoreError::Superseded(format!(
                "this server lost the database: its advisory lock ended and {holder}; \
                 stopping (nothing more is written from here)"
            )))
        }
        Err(e) => return Err(e),
    };
    if let Some(mine) = epoch {
        let now: i64 = within(options.statement_timeout, async {
            Ok(
                sqlx::query("SELECT value FROM server_state WHERE name = 'writer_epoch'")
                    .fetch_one(&mut conn)
                    .await?
                    .try_get("value")?,
            )
        })
        .await?;
        if now != mine {
            let _ = conn.close().await;
            return Err(StoreError::Superseded(superseded(mine, now)));
        }
    }
    Ok(conn)
}

/// What a server that lost its database says: its writer epoch and the one found.
pub(crate) fn superseded(mine: i64, found: i64) -> String {
    format!(
        "this server lost the database: another chuhe serve or a cluster node started on it \
         after this server's advisory lock ended (writer epoch {found}, this server's {mine}); \
         stopping (nothing more is written from here)"
    )
}

/// The file of an SQLite database URL (`sqlite://chuhe.db`, `sqlite:chuhe.db?mode=rwc`), or
/// `None` for an in-memory database or another kind of URL.
pub fn sqlite_file(database: &str) -> Option<&str> {
    if super::Backend::of(database) != Some(super::Backend::Sqlite) {
        return None;
    }
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
/// [`StoreError::InUse`] when another process holds the lock, the path cannot be resolved or
/// the lock file cannot be created (`chuhe serve` exits with status 2 for each).
fn lock_file(path: &str) -> Result<File, StoreError> {
    let canonical = canonical_path(path)
        .map_err(|e| StoreError::InUse(format!("cannot resolve the database path {path}: {e}")))?;
    let lock_path = format!("{}.lock", canonical.display());
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| StoreError::InUse(format!("cannot open the lock file {lock_path}: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(StoreError::InUse(format!(
            "the database {path} is in use by another chuhe serve (lock {lock_path})"
        ))),
        Err(TryLockError::Error(e)) => {
            Err(StoreError::InUse(format!("cannot lock {lock_path}: {e}")))
        }
    }
}

/// The single-server guard of an SQLite database: `lock_file` on the file of `database`
/// (an SQLite URL; `None` for an in-memory database or a PostgreSQL URL, whose guard is the
/// store's advisory lock, taken when it connects). Keep the file open for as long as the
/// server runs.
///
/// # Errors
/// [`StoreError::InUse`] when another process holds the lock, the path cannot be resolved or
/// the lock file cannot be created (`chuhe serve` exits with status 2 for each).
pub fn lock_sqlite(database: &str) -> Result<Option<File>, StoreError> {
    sqlite_file(database).map(lock_file).transpose()
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
        let first = lock_file(db).unwrap();
        let err = lock_file(db).unwrap_err();
        assert!(matches!(err, StoreError::InUse(_)));
        let canonical = std::fs::canonicalize(&dir).unwrap().join("chuhe.db");
        assert_eq!(
            err.to_string(),
            format!(
                "the database {db} is in use by another chuhe serve (lock {}.lock)",
                canonical.display()
            )
        );
        drop(first);
        assert!(lock_file(db).is_ok());
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
        let first = lock_file(db.to_str().unwrap()).unwrap();
        let err = lock_file(link.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, StoreError::InUse(_)));
        assert!(
            err.to_string().contains("is in use by another chuhe serve"),
            "{err}"
        );
        let dotted = dir.join("sub").join("..").join("chuhe.db");
        assert!(matches!(
            lock_file(dotted.to_str().unwrap()),
            Err(StoreError::InUse(_))
        ));
        drop(first);
        assert!(lock_file(link.to_str().unwrap()).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
