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

use sqlx::any::AnyConnectOptions;
use sqlx::{ConnectOptions, Connection, Executor};
use std::sync::mpsc;
use std::time::Duration;

/// How often the checkpointer runs.
pub(super) const EVERY: Duration = Duration::from_secs(1);

/// The `-wal` file is truncated to this many bytes (64 MiB) after a checkpoint that emptied
/// it (SQLite's `journal_size_limit`).
pub(super) const JOURNAL_SIZE_LIMIT: u64 = 64 * 1024 * 1024;

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
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread for the SQLite database at `url` (`mode=rwc` already added).
    ///
    /// # Errors
    /// A URL that does not parse, or a thread that cannot be made.
    pub(super) fn start(url: &str) -> Result<Checkpointer, std::io::Error> {
        let options: AnyConnectOptions = url
            .parse()
            .map_err(|e: sqlx::Error| std::io::Error::other(e.to_string()))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("chuhe-checkpoint".to_owned())
            .spawn(move || run(options, stopped))?;
        Ok(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stops the thread and waits for it (at most the checkpoint in progress).
    pub(super) fn stop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
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
fn run(options: AnyConnectOptions, stopped: mpsc::Receiver<()>) {
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
                match options.connect().await {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "WAL checkpoint: no connection");
                        return;
                    }
                }
            }
            if let Some(c) = conn.as_mut() {
                if let Err(e) = c.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
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
