//! The listener: the accept loop with its per-address cap and request time limits ([`serve`]),
//! the signals that stop it ([`shutdown_signal`]), and what `chuhe serve` runs ([`run`]).

use super::app;
use super::limit;
use crate::error::ServerError;
use crate::site::{AppState, Settings};
use crate::store::Store;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Serves [`app`] on `listener` until `shutdown` resolves (or the store reports that another
/// server took its database over: [`Store::lost`]), then closes the WebSockets, saves the
/// tables' clocks and closes the store, within [`Settings::shutdown_timeout`].
///
/// Each accepted connection is counted against the process's descriptor budget
/// ([`DescriptorBudget`]: the open-file limit less the descriptors open at the start and
/// [`Settings::descriptor_reserve`]; beyond it the connection is answered 503 and closed, so
/// the database always has descriptors to open and the games already playing go on), then
/// against its address's cap ([`Settings::max_connections_per_address`]: beyond it the
/// connection is answered 429 and closed), is served HTTP/1.1 with a time limit on each
/// request's head and body ([`Settings::request_timeout`]: a slowloris connection is closed),
/// and has `TCP_NODELAY` set. Refusals over the budget and failed accepts (out of
/// descriptors all the same) are logged as one summary line per [`SUMMARY_INTERVAL`] at most;
/// a failed accept is tried again after a pause that doubles up to a second. When the open
/// connections near the budget, a warning is logged (once a minute at most).
///
/// # Errors
/// The listener failed.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::extract::ConnectInfo;
    use tower::ServiceExt;
    let router = app(state.clone());
    let settings = state.settings();
    let counter = Arc::new(limit::ConnectionCounter::new(
        settings.max_connections_per_address,
        settings.trust_forwarded_for,
    ));
    let budget = DescriptorBudget::measure(settings.descriptor_reserve as u64);
    if let Some(b) = budget {
        tracing::info!(
            limit = b.limit,
            open_at_start = b.open_at_start,
            reserve = b.reserve,
            connections = b.connections(),
            "descriptor budget: connections beyond it are answered 503"
        );
    }
    let full_answer = limit::server_full();
    let mut warned_at: Option<std::time::Instant> = None;
    let mut refused = Summary::default();
    let mut failed = Summary::default();
    let mut pause = ACCEPT_PAUSE;
    // Each connection task holds a receiver; all have ended when the sender is closed.
    let (closing, _) = watch::channel(false);
    tokio::pin!(shutdown);
    // A store that lost its database (another server took it over) stops the server.
    let mut lost = state.store().lost();
    let lost_database = async move {
        let _ = lost.wait_for(Option::is_some).await;
    };
    tokio::pin!(lost_database);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => {
                    pause = ACCEPT_PAUSE;
                    a
                }
                Err(e) => {
                    // Out of file descriptors, say: wait rather than spin, longer each time.
                    if let Some(n) = failed.note(std::time::Instant::now(), SUMMARY_INTERVAL) {
                        tracing::warn!(
                            error = %e,
                            failures = n,
                            open = counter.total(),
                            "accept failed (this many times since the last such line)"
                        );
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(ACCEPT_PAUSE_MAX);
                    continue;
                }
            },
            () = &mut shutdown => break,
            () = &mut lost_database => break,
        };
        if let Some(most) = budget.map(|b| b.connections()) {
            let open = counter.total() as u64;
            if open >= most {
                limit::refuse(tcp, &full_answer);
                if let Some(n) = refused.note(std::time::Instant::now(), SUMMARY_INTERVAL) {
                    tracing::warn!(
                        refused = n,
                        open,
                        budget = most,
                        "connections refused: the server holds as many as its open-file \
                         limit allows (this many since the last such line)"
                    );
                }
                continue;
            }
            if open * 10 >= most * 8
                && warned_at.is_none_or(|t| t.elapsed() >= Duration::from_secs(60))
            {
                warned_at = Some(std::time::Instant::now());
                tracing::warn!(
                    open,
                    budget = most,
                    "open connections near the descriptor budget (RLIMIT_NOFILE less the reserve)"
                );
            }
        }
        let Some(permit) = counter.admit(peer.ip()) else {
            tracing::debug!(%peer, "connection refused: too many from its address");
            limit::refuse(tcp, limit::TOO_MANY_CONNECTIONS);
            continue;
        };
        // TCP_NODELAY: a move's few hundred bytes go out at once instead of waiting for the
        // peer's delayed ACK (Nagle's algorithm held about one move in ten for 40 ms).
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY on an accepted socket: {e}");
        }
        let io = hyper_util::rt::TokioIo::new(limit::Counted {
            io: tcp,
            _permit: permit,
        });
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request.map(axum::body::Body::new))
        });
        let header_timeout = settings.request_timeout;
        let mut closed = closing.subscribe();
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(io, service)
                .with_upgrades();
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!(%peer, "connection: {e}");
                    }
                }
                _ = closed.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    tracing::info!("shutting down");
    state.begin_shutdown();
    closing.send_replace(true);
    drop(listener);
    let stopping = async {
        closing.closed().await;
        state.shutdown().await;
        state.store().close().await;
    };
    // A database that hangs (or a pool without a live connection) must not keep the process
    // from stopping: SIGTERM is answered within the limit.
    match tokio::time::timeout(settings.shutdown_timeout, stopping).await {
        Ok(()) => tracing::info!("stopped"),
        Err(_) => tracing::warn!(
            limit_secs = settings.shutdown_timeout.as_secs_f64(),
            "stopped without finishing: the connections, the tables' clocks or the store \
             did not close in time"
        ),
    }
    Ok(())
}

/// At most one summary line per this long for refused connections, and for failed accepts.
pub const SUMMARY_INTERVAL: Duration = Duration::from_secs(10);

/// The first pause after a failed accept; it doubles at each failure in a row.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// The longest pause after failed accepts.
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);

/// How many connections the process can hold: each takes a descriptor, and the open-file limit
/// (`RLIMIT_NOFILE`) counts them with the database's files and connections. Beyond the budget
/// a new connection is refused before the database runs out of descriptors (out of them,
/// SQLite cannot open its files and a commit's outcome becomes unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorBudget {
    /// The process's soft open-file limit.
    pub limit: u64,
    /// Descriptors open when serving starts: the store's connections and files, the listener,
    /// the runtime's own, standard input, output and error.
    pub open_at_start: u64,
    /// Descriptors kept free for what the server opens later ([`Settings::descriptor_reserve`]).
    pub reserve: u64,
}

impl DescriptorBudget {
    /// The budget of this process now, keeping `reserve` free: `None` where the limit or the
    /// open descriptors cannot be read (then connections are not counted against it).
    pub fn measure(reserve: u64) -> Option<DescriptorBudget> {
        let (limit, _) = rlimit::getrlimit(rlimit::Resource::NOFILE).ok()?;
        // One entry per open descriptor, less the one reading the folder.
        let open = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
        Some(DescriptorBudget {
            limit,
            open_at_start: open.saturating_sub(1),
            reserve,
        })
    }

    /// The most connections open at once: the limit less what was open at the start and the
    /// reserve (0 when those take it all).
    pub fn connections(&self) -> u64 {
        self.limit
            .saturating_sub(self.open_at_start)
            .saturating_sub(self.reserve)
    }
}

/// A recurring refusal logged as one line per interval at most: the first at once, then how
/// many came since the last line, when the next comes after the interval.
#[derive(Debug, Default)]
struct Summary {
    /// When the last line was logged.
    logged_at: Option<std::time::Instant>,
    /// Refusals since then, not logged yet.
    since: u64,
}

impl Summary {
    /// Counts one at `now`: the count to log (this one included) when a line is due.
    fn note(&mut self, now: std::time::Instant, interval: Duration) -> Option<u64> {
        self.since += 1;
        if self
            .logged_at
            .is_some_and(|t| now.saturating_duration_since(t) < interval)
        {
            return None;
        }
        self.logged_at = Some(now);
        Some(std::mem::take(&mut self.since))
    }
}

/// Raises the soft limit on open files to the hard limit (each connection holds one), and
/// logs what it is.
fn raise_open_file_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::info!(limit, "open-file limit (RLIMIT_NOFILE)"),
        Err(e) => tracing::warn!(error = %e, "cannot raise the open-file limit (RLIMIT_NOFILE)"),
    }
}

/// A future that resolves on SIGINT, SIGTERM or SIGHUP. The handlers are installed when this
/// is called, not when the future is first polled: a signal that comes once the server
/// answers (a supervisor's stop right after its health check passed) is always the graceful
/// stop, never the default action that kills the process. Call it inside the runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send {
    #[cfg(unix)]
    let (interrupt, terminate, hangup) = {
        use tokio::signal::unix::{signal, SignalKind};
        // A hang-up (the terminal closed, a supervisor's reload signal) stops cleanly too: the
        // clocks are saved and, in a cluster, the tables handed over.
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::hangup()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
                () = wait(hangup) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// What `chuhe serve` runs: takes the address `bind` (a bad or taken one fails before the
/// database is touched), takes the single-server lock of an SQLite database
/// ([`crate::store::lock_sqlite`]: [`ServerError::Config`] when another server holds it),
/// connects the database (creating a SQLite file when missing), brings
/// back the stored tables and serves with `settings` until SIGINT or SIGTERM.
///
/// # Errors
/// A bad address or database URL, a failed connection or migration.
pub async fn run(bind: &str, database: &str, settings: Settings) -> Result<(), ServerError> {
    // The address first: a taken or malformed one fails before the database is opened.
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|e| ServerError::Config(format!("cannot listen on {bind}: {e}")))?;
    // One server per database: on SQLite the file lock beside it, held until `run` returns (on
    // PostgreSQL the store takes its advisory lock when it connects).
    let _sqlite_lock =
        crate::store::lock_sqlite(database).map_err(|e| ServerError::Config(e.to_string()))?;
    let store = Store::connect_with(database, settings.store).await?;
    // After the settings were found good: a bad one is told in one line, nothing else.
    raise_open_file_limit();
    let state = AppState::new(store, settings).await?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServerError::Internal(e.to_string()))?;
    tracing::info!(
        worker_threads = tokio::runtime::Handle::current().metrics().num_workers(),
        "listening on http://{addr}"
    );
    let store = state.store().clone();
    let cluster = state.cluster().cloned();
    serve(listener, state, shutdown_signal())
        .await
        .map_err(|e| ServerError::Internal(format!("server: {e}")))?;
    // Stopped because another server took the database, or because this node's lease lapsed:
    // an error, for the supervisor to see.
    let lost = store.lost().borrow().clone();
    match lost {
        Some(why) if cluster.is_some_and(|c| c.lapsed()) => Err(ServerError::LeaseLapsed(why)),
        Some(why) => Err(ServerError::Internal(why)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{DescriptorBudget, Summary};
    use std::time::{Duration, Instant};

    #[test]
    fn a_recurring_refusal_is_one_line_per_interval() {
        let mut summary = Summary::default();
        let start = Instant::now();
        let every = Duration::from_secs(10);
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(summary.note(at(0), every), Some(1));
        // Every 100 ms for ten seconds: no line.
        let lines: Vec<_> = (1..100)
            .filter_map(|i| summary.note(at(i * 100), every))
            .collect();
        assert_eq!(lines, Vec::<u64>::new());
        // The next after the interval counts them all, itself included.
        assert_eq!(summary.note(at(10_000), every), Some(100));
        assert_eq!(summary.note(at(10_001), every), None);
        assert_eq!(summary.note(at(25_000), every), Some(2));
    }

    #[test]
    fn the_budget_is_the_limit_less_the_open_and_the_reserve() {
        let b = DescriptorBudget {
            limit: 20_000,
            open_at_start: 40,
            reserve: 256,
        };
        assert_eq!(b.connections(), 19_704);
        let tight = DescriptorBudget {
            limit: 200,
            open_at_start: 40,
            reserve: 256,
        };
        assert_eq!(tight.connections(), 0);
        let measured = DescriptorBudget::measure(256).expect("Linux has /proc/self/fd");
        assert_eq!(measured.reserve, 256);
        assert!(measured.open_at_start >= 3 && measured.open_at_start < measured.limit);
    }
}
