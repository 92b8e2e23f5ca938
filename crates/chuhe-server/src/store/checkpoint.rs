//! SQLite's WAL checkpoints, off the writer's path.
//!
//! In WAL mode SQLite appends each commit to the `-wal` file and, by default, the commit that
//! takes the log past 1,000 pages copies the log back into the database file and fsyncs it
//! before it returns: that group's moves wait for a second fsync and for the copy. Measured on
//! this project's load test (`strace -f -e trace=fsync -T` on `chuhe serve`, 300 games): the
//! writer thread fsynced the database file every ~1.7 s inside a commit, for 0.5 to 10 ms.
//!
//! The writer connection therefore runs with `wal_autocheckpoint = 0`, and a [`Checkpointer`]
//! runs `PRAGMA wal_checkpoint(PASSIVE)` once a second on a connection of its own, on a thread
//! of its own (with its own clock, so that a paused test clock never jumps to its timer). A
//! passive checkpoint never waits for the writer or the readers: it copies what it can while
//! the writer goes on appending, and SQLite starts the log over from its beginning once a
//! checkpoint has copied all of it. `journal_size_limit` truncates the file left behind after a
//! burst back to [`JOURNAL_SIZE_LIMIT`] bytes.
//!
//! Under a steady load a passive checkpoint never copies all of the log: the writer appends
//! while it copies, so the log is never started over and the `-wal` file grows without end.
//! Measured with `chuhe loadtest --games 5000` (mixed variants, human pace, 2,236 moves/s) on
//! the 2-core development machine: the `-wal` file reached 1.63 GB in 64 s, and the kernel's
//! zeroing of the new file blocks that each appended frame lands in (`zero_user_segments`
//! under `pwrite`) took 14 % of the server's processor time in `perf` (`docs/performance.md`,
//! "A log that never started over"). So when a passive checkpoint leaves at least
//! [`RESTART_FRAMES`] frames in the log, the thread follows it with a `RESTART` checkpoint: it
//! waits for the writer's transaction in progress, holds the write lock while it copies the few
//! frames the passive one missed and while the readers leave the log (each wait at most
//! [`RESTART_WAIT_MS`]), and the writer's next transaction then writes the log from its
//! beginning again, over file blocks that already exist. The writer begins its transactions
//! with `BEGIN IMMEDIATE` ([`super::begin_write`]), so a restart between its read and its
//! write cannot fail it.

use sqlx::any::AnyConnectOptions;
use sqlx::{AnyConnection, ConnectOptions, Connection, Row};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How often the checkpointer runs.
pub(super) const EVERY: Duration = Duration::from_secs(1);

/// The `-wal` file is truncated to this many bytes (64 MiB) after a checkpoint that emptied
/// it (SQLite's `journal_size_limit`).
pub(super) const JOURNAL_SIZE_LIMIT: u64 = 64 * 1024 * 1024;

/// A passive checkpoint that leaves the log with at least this many frames (32 MiB at SQLite's
/// 4 KiB pages, half of [`JOURNAL_SIZE_LIMIT`], so that a log started over is not truncated and
/// grown again) is followed by a `RESTART` checkpoint.
pub(super) const RESTART_FRAMES: u32 = 8_192;

/// The statements the writer connection runs when it opens, after `journal_mode = WAL`: no
/// checkpoint inside a commit, and a bounded log file.
pub(super) fn writer_pragmas() -> [String; 2] {
    [
        "PRAGMA wal_autocheckpoint = 0".to_owned(),
        format!("PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}"),
    ]
}

/// The checkpoint thread; stops when this is dropped (and on [`Checkpointer::stop`]).
#[derive(Debug)]
pub(super) struct Checkpointer {
    /// `RESTART` checkpoints that finished.
    restarts: Arc<AtomicU64>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread for the SQLite database at `url` (`mode=rwc` already added), which
    /// starts the log over once a checkpoint leaves `restart_frames` frames in it.
    ///
    /// # Errors
    /// A URL that does not parse, or a thread that cannot be made.
    pub(super) fn start(url: &str, restart_frames: u32) -> Result<Checkpointer, std::io::Error> {
        let options: AnyConnectOptions = url
            .parse()
            .map_err(|e: sqlx::Error| std::io::Error::other(e.to_string()))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let restarts = Arc::new(AtomicU64::new(0));
        let counted = restarts.clone();
        let thread = std::thread::Builder::new()
            .name("chuhe-checkpoint".to_owned())
            .spawn(move || run(options, restart_frames, &counted, stopped))?;
        Ok(Checkpointer {
            restarts,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The `RESTART` checkpoints that finished so far.
    pub(super) fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Stops the thread and waits for it (at most the checkpoint in progress).
    pub(super) fn stop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
            tracing::debug!(
                restarts = self.restarts(),
                "the WAL checkpoint thread stopped"
            );
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        // Without waiting: a drop may happen on the runtime's threads.
        self.stop.take();
    }
}

/// The thread: a checkpoint every [`EVERY`] until `stopped` says so or its sender is gone.
fn run(
    options: AnyConnectOptions,
    restart_frames: u32,
    restarts: &AtomicU64,
    stopped: mpsc::Receiver<()>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::warn!(error = %e, "the WAL checkpoint thread could not start");
            return;
        }
    };
    let mut conn = None;
    // Until told to stop, or until the sender is gone (the store dropped).
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
        runtime.block_on(async {
            if conn.is_none() {
                match connect(&options).await {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "WAL checkpoint: no connection");
                        return;
                    }
                }
            }
            if let Some(c) = conn.as_mut() {
                if let Err(e) = checkpoint(c, restart_frames, restarts).await {
                    tracing::warn!(error = %e, "WAL checkpoint failed");
                    conn = None;
                }
            }
        });
    }
    if let Some(c) = conn.take() {
        let _ = runtime.block_on(c.close());
    }
}

/// The longest a `RESTART` checkpoint waits for the writer's transaction to end, and then,
/// holding the write lock, for the readers to leave the log (the busy timeout of the thread's
/// connection, in milliseconds). A checkpoint that cannot finish within it gives up until the
/// next second: a long read (a backup, say) must not hold the writer up.
const RESTART_WAIT_MS: u32 = 20;

/// The thread's connection.
async fn connect(options: &AnyConnectOptions) -> Result<AnyConnection, sqlx::Error> {
    let mut c = options.connect().await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "PRAGMA busy_timeout = {RESTART_WAIT_MS}"
    )))
    .execute(&mut c)
    .await?;
    Ok(c)
}

/// A passive checkpoint, and a `RESTART` one when the passive one left `restart_frames` frames
/// or more in the log (the module's comment says why); counts the `RESTART`s that finished in
/// `restarts`. Records the frames left in the log.
///
/// # Errors
/// The connection's: the caller makes a new one.
async fn checkpoint(
    c: &mut AnyConnection,
    restart_frames: u32,
    restarts: &AtomicU64,
) -> Result<(), sqlx::Error> {
    let (_, mut log) = pragma_checkpoint(c, "PRAGMA wal_checkpoint(PASSIVE)").await?;
    if log >= i64::from(restart_frames) {
        let busy;
        (busy, log) = pragma_checkpoint(c, "PRAGMA wal_checkpoint(RESTART)").await?;
        if !busy {
            restarts.fetch_add(1, Ordering::Relaxed);
            crate::telemetry::wal_restarted();
        }
    }
    crate::telemetry::wal_frames(log);
    Ok(())
}

/// Runs the checkpoint `pragma` and answers whether it could not finish (its first column,
/// `busy`: not an error, the next one goes on) and the frames in the log before it started
/// over (its second column; -1 when the database is not in WAL mode).
async fn pragma_checkpoint(
    c: &mut AnyConnection,
    pragma: &'static str,
) -> Result<(bool, i64), sqlx::Error> {
    let row = sqlx::query(pragma).fetch_one(&mut *c).await?;
    Ok((row.try_get::<i64, _>(0)? != 0, row.try_get::<i64, _>(1)?))
}

#[cfg(test)]
mod tests {
    use super::{checkpoint, connect};
    use sqlx::{AnyConnection, Connection, Executor};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Appends `rows` rows of 4,000 random bytes, each in its own transaction (a frame or
    /// two each).
    async fn append(w: &mut AnyConnection, rows: usize) {
        for _ in 0..rows {
            w.execute("INSERT INTO t (x) VALUES (randomblob(4000))")
                .await
                .unwrap();
        }
    }

    /// The frames a checkpoint finds in the log decide whether it starts the log over: fewer
    /// than `restart_frames`, a passive checkpoint alone; as many or more, a `RESTART` too,
    /// counted once it finished.
    #[tokio::test]
    async fn the_frames_in_the_log_decide_a_restart() {
        sqlx::any::install_default_drivers();
        let path = std::env::temp_dir().join(format!(
            "chuhe-checkpoint-restart-{}-{}.db",
            std::process::id(),
            super::super::now_ms()
        ));
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut w = AnyConnection::connect(&url).await.unwrap();
        for sql in [
            "PRAGMA journal_mode = WAL",
            "PRAGMA wal_autocheckpoint = 0",
            "CREATE TABLE t (x BLOB)",
        ] {
            w.execute(sql).await.unwrap();
        }
        append(&mut w, 20).await;
        let mut c = connect(&url.parse().unwrap()).await.unwrap();
        let restarts = AtomicU64::new(0);
        checkpoint(&mut c, 1_000, &restarts).await.unwrap();
        assert_eq!(restarts.load(Ordering::Relaxed), 0);
        append(&mut w, 20).await;
        checkpoint(&mut c, 10, &restarts).await.unwrap();
        assert_eq!(restarts.load(Ordering::Relaxed), 1);
        c.close().await.unwrap();
        w.close().await.unwrap();
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{end}", path.display()));
        }
    }
}
