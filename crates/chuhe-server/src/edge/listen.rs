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
/// Each accepted connection is counted against its address's cap
/// ([`Settings::max_connections_per_address`]: beyond it the connection is answered 429 and
/// closed), is served HTTP/1.1 with a time limit on each request's head and body
/// ([`Settings::request_timeout`]: a slowloris connection is closed), and has `TCP_NODELAY`
/// set. When the open connections near the process's open-file limit, a warning is logged
/// (once a minute at most).
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
    let file_limit = open_file_limit();
    let mut warned_at: Option<std::time::Instant> = None;
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
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, say: wait a little rather than spin.
                    tracing::warn!(error = %e, open = counter.total(), "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
            () = &mut lost_database => break,
        };
        let Some(permit) = counter.admit(peer.ip()) else {
            tracing::debug!(%peer, "connection refused: too many from its address");
            let _ = tcp.try_write(limit::TOO_MANY_CONNECTIONS);
            continue;
        };
        if let Some(max) = file_limit {
            let open = counter.total() as u64;
            if open * 10 >= max * 8
                && warned_at.is_none_or(|t| t.elapsed() >= Duration::from_secs(60))
            {
                warned_at = Some(std::time::Instant::now());
                tracing::warn!(
                    open,
                    file_limit = max,
                    "open connections near the open-file limit (RLIMIT_NOFILE)"
                );
            }
        }
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

/// The soft limit on open files of this process, when it can be read.
fn open_file_limit() -> Option<u64> {
    rlimit::getrlimit(rlimit::Resource::NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

/// Raises the soft limit on open files to the hard limit (each connection holds one), and
/// logs what it is.
fn raise_open_file_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::info!(limit, "open-file limit (RLIMIT_NOFILE)"),
        Err(e) => tracing::warn!(error = %e, "cannot raise the open-file limit (RLIMIT_NOFILE)"),
    }
}

/// Resolves on SIGINT, SIGTERM or SIGHUP.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let unix = |kind: tokio::signal::unix::SignalKind| async move {
        match tokio::signal::unix::signal(kind) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(unix)]
    let terminate = unix(tokio::signal::unix::SignalKind::terminate());
    // A hang-up (the terminal closed, a supervisor's reload signal) stops cleanly too: the
    // clocks are saved and, in a cluster, the tables handed over.
    #[cfg(unix)]
    let hangup = unix(tokio::signal::unix::SignalKind::hangup());
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    #[cfg(not(unix))]
    let hangup = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
        () = hangup => {},
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
    tracing::info!("listening on http://{addr}");
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
