//! chuhe's game server: tables with seats, clocks and results over HTTP and WebSocket, stored in
//! SQLite or PostgreSQL.
//!
//! - [`app`] builds the router for a [`AppState`]; [`serve`] runs it on a listener until a
//!   shutdown future resolves, so tests bind `127.0.0.1:0` and stop cleanly; [`run`] is what
//!   `chuhe serve` calls.
//! - Each table is an actor task ([`table`]) that owns its game ([`variant::AnyGame`]), seats and
//!   clocks ([`clock`]).
//! - The wire types live in [`protocol`] (documented in `docs/protocol.md`); the one error enum
//!   of the edge is [`error::ServerError`].
#![deny(missing_docs)]

pub mod analysis;
pub mod clock;
pub mod computer;
pub mod error;
mod http;
pub mod pgn;
pub mod protocol;
pub mod rating;
pub mod store;
pub mod table;
pub mod variant;
pub mod web;
mod ws;

use error::ServerError;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use store::Store;
use table::{TableHandle, TableSettings};
use tokio::net::TcpListener;
use tokio::sync::{watch, Mutex};

pub use http::app;

/// Server settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// How long a seated person may stay disconnected from a running game before losing by
    /// abandonment (default 60 s).
    pub grace: Duration,
    /// WebSocket messages a connection may send per second on average (default 10).
    pub rate_per_second: f64,
    /// WebSocket messages a connection may send at once (default 20).
    pub rate_burst: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            grace: Duration::from_secs(60),
            rate_per_second: 10.0,
            rate_burst: 20.0,
        }
    }
}

struct Inner {
    store: Store,
    settings: Settings,
    tables: Mutex<HashMap<String, TableHandle>>,
    shutdown: watch::Sender<bool>,
}

/// The server's shared state: the store and the table actors. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl AppState {
    /// A state on `store`; the open and running tables stored there are brought back (their
    /// actors start, their clocks resume), and ended tables missing from the list of finished
    /// games are added to it.
    ///
    /// # Errors
    /// The database failed, or a stored table does not replay.
    pub async fn new(store: Store, settings: Settings) -> Result<AppState, ServerError> {
        let (shutdown, _) = watch::channel(false);
        let state = AppState(Arc::new(Inner {
            store,
            settings,
            tables: Mutex::new(HashMap::new()),
            shutdown,
        }));
        let added = state.0.store.add_missing_finished().await?;
        if added > 0 {
            tracing::info!(games = added, "finished games listed from their events");
        }
        let ids = state.0.store.live_table_ids().await?;
        let mut tables = state.0.tables.lock().await;
        for id in ids {
            let handle = table::load(&state.0.store, state.table_settings(), &id).await?;
            tables.insert(id, handle);
        }
        tracing::info!(tables = tables.len(), "tables brought back");
        drop(tables);
        Ok(state)
    }

    fn table_settings(&self) -> TableSettings {
        TableSettings {
            grace: self.0.settings.grace,
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.0.store
    }

    /// The table with this id, brought back from the store when it is not in memory.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id.
    pub async fn table(&self, id: &str) -> Result<TableHandle, ServerError> {
        let mut tables = self.0.tables.lock().await;
        if let Some(t) = tables.get(id) {
            return Ok(t.clone());
        }
        let handle = table::load(&self.0.store, self.table_settings(), id).await?;
        tables.insert(id.to_owned(), handle.clone());
        Ok(handle)
    }

    /// Creates a table and starts its actor.
    ///
    /// # Errors
    /// Bad options, or the database failed.
    pub async fn create_table(
        &self,
        options: protocol::TableOptions,
    ) -> Result<TableHandle, ServerError> {
        let id = http::random_id(10);
        let handle =
            table::create(&self.0.store, self.table_settings(), id.clone(), options).await?;
        self.0.tables.lock().await.insert(id, handle.clone());
        Ok(handle)
    }

    /// Every table in memory.
    pub async fn tables(&self) -> Vec<TableHandle> {
        self.0.tables.lock().await.values().cloned().collect()
    }

    fn settings(&self) -> Settings {
        self.0.settings
    }

    fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.0.shutdown.subscribe()
    }

    /// Closes every WebSocket, then stops every table actor (each saves its clocks).
    pub async fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
        let tables: Vec<TableHandle> = self.0.tables.lock().await.drain().map(|(_, t)| t).collect();
        for t in tables {
            t.shutdown().await;
        }
    }
}

/// Serves [`app`] on `listener` until `shutdown` resolves, then closes the WebSockets, saves
/// the tables' clocks and closes the store.
///
/// # Errors
/// The listener failed.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = app(state.clone());
    let closing = state.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            tracing::info!("shutting down");
            closing.0.shutdown.send_replace(true);
        })
        .await?;
    state.shutdown().await;
    state.store().close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

/// What `chuhe serve` runs: connects the database (creating a SQLite file when missing), brings
/// back the stored tables, listens on `bind` and serves until SIGINT or SIGTERM.
///
/// # Errors
/// A bad address or database URL, a failed connection or migration.
pub async fn run(bind: &str, database: &str) -> Result<(), ServerError> {
    let store = Store::connect(database).await?;
    let state = AppState::new(store, Settings::default()).await?;
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|e| ServerError::Config(format!("cannot listen on {bind}: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServerError::Internal(e.to_string()))?;
    tracing::info!("listening on http://{addr}");
    serve(listener, state, shutdown_signal())
        .await
        .map_err(|e| ServerError::Internal(format!("server: {e}")))
}
