//! chuhe's game server: tables with seats, clocks and results over HTTP and WebSocket, stored in
//! SQLite or PostgreSQL.
//!
//! - [`app`] builds the router for a [`AppState`]; [`serve`] runs it on a listener until a
//!   shutdown future resolves, so tests bind `127.0.0.1:0` and stop cleanly; [`run`] is what
//!   `chuhe serve` calls.
//! - Each table is an actor task ([`table`]) that owns its game ([`variant::AnyGame`]), seats and
//!   clocks ([`clock`]). Open and running tables stay in memory; an ended table leaves it when
//!   nobody has watched it for a while or too many ended tables are loaded
//!   ([`Settings::ended_grace`], [`Settings::max_ended_tables`]), and comes back from the store
//!   when asked for.
//! - HTTP requests are limited per client address ([`limit`]); WebSocket messages per
//!   connection; chat lines per person ([`Settings::chat_lines`]).
//! - The wire types live in [`protocol`] (documented in `docs/protocol.md`); the one error enum
//!   of the edge is [`error::ServerError`]. Routes take the person behind the session and JSON
//!   bodies through the extractors of [`extract`]; the [`store`] takes and gives typed values
//!   and fails with a [`store::StoreError`].
#![deny(missing_docs)]

pub mod analysis;
pub mod clock;
pub mod cluster;
pub mod computer;
pub mod error;
pub mod evaluation;
pub mod extract;
mod http;
mod ids;
pub mod limit;
pub mod names;
pub mod nats_auth;
pub mod origin;
pub mod password;
pub mod pgn;
pub mod protocol;
pub mod rating;
pub mod store;
pub mod table;
pub mod telemetry;
pub mod variant;
pub mod web;
mod ws;

use error::ServerError;
use limit::HttpLimits;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;
use store::Store;
use table::{TableHandle, TableNotice, TableSettings};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, Mutex};

pub use http::app;

/// Server settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long a seated person may stay disconnected from a running game before losing by
    /// abandonment (default 60 s).
    pub grace: Duration,
    /// The heartbeat of table connections (default a Ping every 20 s, closed after 45 s of
    /// silence); `None` sends no Pings and never closes a silent connection.
    pub heartbeat: Option<Heartbeat>,
    /// WebSocket messages a connection may send per second on average (default 10).
    pub rate_per_second: f64,
    /// WebSocket messages a connection may send at once (default 20).
    pub rate_burst: f64,
    /// Chat lines one person may send, over all of their WebSocket connections to this server
    /// together (counted by player id; in a cluster, per node): default 5 at once, then one
    /// every 2 s. Each line spends from its connection's message rate too.
    pub chat_lines: limit::RequestQuota,
    /// How long an ended table stays in memory after its last WebSocket connection closed
    /// (default 10 minutes); then its actor stops, and the next request loads it again from
    /// the store.
    pub ended_grace: Duration,
    /// Most ended tables in memory at once (default 500): loading one more retires the least
    /// recently used ended tables that no WebSocket watches.
    pub max_ended_tables: usize,
    /// HTTP requests per client address (see [`HttpLimits`] for the defaults).
    pub http_limits: HttpLimits,
    /// Whether a request from a loopback address (a reverse proxy on this machine) is limited by
    /// the client address in its `X-Forwarded-For` header rather than by the proxy's (default
    /// `false`: the header is ignored).
    pub trust_forwarded_for: bool,
    /// Origins besides the site's own whose pages may act for a player (`https://host[:port]`
    /// as a browser writes it in `Origin`; default none). See [`origin`].
    pub allowed_origins: Vec<String>,
    /// Computer searches that run at once on their own blocking threads (default 2, at least
    /// 1); more wait in turn ([`computer`]).
    pub computer_threads: usize,
    /// The shortest time a computer takes to answer, so a person can follow (default 0.5 s).
    pub computer_pause: Duration,
    /// Most connections open at once from one client address (an IPv6 client by its /64);
    /// beyond, a new connection is answered 429 and closed (default 64). Loopback peers are
    /// not capped when [`Settings::trust_forwarded_for`] is set (the proxy caps its clients).
    pub max_connections_per_address: usize,
    /// Longest time a client may take to send a request's head (request line and headers),
    /// and again its body once the head is in, before it is answered 408 and its connection
    /// is closed (default 10 s; slowloris, slow bodies).
    pub request_timeout: Duration,
    /// Longest time [`serve`] takes to stop once asked (closing the connections, saving the
    /// tables' clocks, closing the store; default 15 s). Past it, what is left is abandoned
    /// with a warning: everything acknowledged is stored already, and a table's running clock
    /// restarts from the restart's starting point.
    pub shutdown_timeout: Duration,
    /// The store's time limits and the session lifetime, used by [`run`] (defaults in
    /// [`store::StoreOptions`]); the session cookie's `Max-Age` is the session lifetime.
    pub store: store::StoreOptions,
    /// Whether the session cookie is marked `Secure` (sent over HTTPS only; default `false`,
    /// for plain-HTTP local use: set it behind TLS).
    pub secure_cookies: bool,
    /// When set, this server is one node of a cluster on PostgreSQL and NATS ([`cluster`]);
    /// default `None`, a single server.
    pub cluster: Option<cluster::ClusterSettings>,
    /// How often the sampled gauges of [`telemetry`] are set (tables, pool, NATS); default
    /// `None`, never (for a server without a metrics recorder).
    pub metrics_interval: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            grace: Duration::from_secs(60),
            heartbeat: Some(Heartbeat::default()),
            rate_per_second: 10.0,
            rate_burst: 20.0,
            chat_lines: limit::RequestQuota::new(5, Duration::from_secs(2)),
            ended_grace: Duration::from_secs(10 * 60),
            max_ended_tables: 500,
            http_limits: HttpLimits::default(),
            trust_forwarded_for: false,
            allowed_origins: Vec::new(),
            computer_threads: computer::DEFAULT_THREADS,
            computer_pause: computer::DEFAULT_PAUSE,
            max_connections_per_address: 64,
            request_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(15),
            store: store::StoreOptions::default(),
            secure_cookies: false,
            cluster: None,
            metrics_interval: None,
        }
    }
}

/// The WebSocket heartbeat: the server sends a Ping every `ping_interval` (browsers answer with
/// a Pong by themselves) and closes a connection from which no frame at all (Pong or message)
/// arrived for `silence_limit`, so its seat counts as disconnected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    /// Time between two Pings (default 20 s).
    pub ping_interval: Duration,
    /// Longest silence of a connection before it is closed (default 45 s).
    pub silence_limit: Duration,
}

impl Default for Heartbeat {
    fn default() -> Self {
        Heartbeat {
            ping_interval: Duration::from_secs(20),
            silence_limit: Duration::from_secs(45),
        }
    }
}

/// A table in memory and when it was last asked for.
struct Entry {
    handle: TableHandle,
    /// The value of [`Tables::tick`] at the last request for this table.
    used: u64,
}

/// The tables in memory, by id.
#[derive(Default)]
struct Tables {
    map: HashMap<String, Entry>,
    /// Counts requests for tables: the order of use for retiring the least recently used.
    tick: u64,
}

impl Tables {
    /// The handle of table `id` when its actor runs here, marked as used now.
    fn live(&mut self, id: &str) -> Option<TableHandle> {
        self.tick += 1;
        let tick = self.tick;
        let entry = self.map.get_mut(id).filter(|e| !e.handle.is_closed())?;
        entry.used = tick;
        Some(entry.handle.clone())
    }

    fn insert(&mut self, handle: TableHandle) {
        self.tick += 1;
        let used = self.tick;
        self.map
            .insert(handle.id().to_owned(), Entry { handle, used });
    }

    /// Retires ended tables that no WebSocket watches, least recently used first, until at most
    /// `max` ended tables are in memory; `keep` (the table being asked for) stays.
    async fn limit_ended(&mut self, max: usize, keep: &str) {
        let mut ended: Vec<(u64, String)> = self
            .map
            .iter()
            .filter(|(_, e)| e.handle.is_ended())
            .map(|(id, e)| (e.used, id.clone()))
            .collect();
        if ended.len() <= max {
            return;
        }
        ended.sort_unstable();
        let mut excess = ended.len() - max;
        for (_, id) in ended {
            if excess == 0 {
                break;
            }
            if id == keep {
                continue;
            }
            let Some(entry) = self.map.get(&id) else {
                continue;
            };
            if entry.handle.retire().await {
                self.map.remove(&id);
                excess -= 1;
                tracing::debug!(table = %id, "ended table retired (too many in memory)");
            }
        }
    }
}

struct Inner {
    store: Store,
    /// This node's part of a cluster, when it is one.
    cluster: Option<Arc<cluster::Cluster>>,
    /// In a cluster: where the table actors send their listings for the lobby.
    listing: Option<mpsc::UnboundedSender<protocol::TableSummary>>,
    settings: Settings,
    tables: Mutex<Tables>,
    shutdown: watch::Sender<bool>,
    notices: mpsc::UnboundedSender<TableNotice>,
    limiter: limit::HttpLimiter,
    chat: limit::ChatLimiter,
    passwords: password::Passwords,
    /// The analysis engine's slots (`POST /api/analysis/eval`), shared by this server's
    /// requests.
    eval_slots: evaluation::EvalSlots,
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
        let (notices, notices_rx) = mpsc::unbounded_channel();
        let limiter = limit::HttpLimiter::new(settings.http_limits, settings.trust_forwarded_for);
        let chat = limit::ChatLimiter::new(settings.chat_lines);
        computer::configure(settings.computer_threads, settings.computer_pause);
        let joined = match &settings.cluster {
            Some(c) => Some(Arc::new(cluster::Cluster::join(c.clone(), &store).await?)),
            None => None,
        };
        let (listing, listings) = match joined {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let state = AppState(Arc::new(Inner {
            store,
            cluster: joined.clone(),
            listing,
            settings,
            tables: Mutex::new(Tables::default()),
            shutdown,
            notices,
            limiter,
            chat,
            passwords: password::Passwords::for_this_machine()?,
            eval_slots: evaluation::EvalSlots::new(evaluation::MAX_CONCURRENT_EVALS),
        }));
        tokio::spawn(follow_notices(Arc::downgrade(&state.0), notices_rx));
        if let Some(every) = state.0.settings.metrics_interval {
            tokio::spawn(telemetry::sample(Arc::downgrade(&state.0), every));
        }
        let added = state.0.store.add_missing_finished().await?;
        if added > 0 {
            tracing::info!(games = added, "finished games listed from their events");
        }
        let indexed = state.0.store.add_missing_players().await?;
        if indexed > 0 {
            tracing::info!(games = indexed, "finished games indexed by player");
        }
        if let (Some(c), Some(listings)) = (joined, listings) {
            // The tables come to the node through its scan for tables nobody holds.
            cluster::start(&state, c, listings).await?;
            return Ok(state);
        }
        let ids = state.0.store.live_table_ids().await?;
        let mut tables = state.0.tables.lock().await;
        for id in ids {
            let handle = table::load(&state.0.store, state.table_settings(), &id, None).await?;
            tables.insert(handle);
        }
        tracing::info!(tables = tables.map.len(), "tables brought back");
        drop(tables);
        Ok(state)
    }

    fn downgrade(&self) -> Weak<Inner> {
        Arc::downgrade(&self.0)
    }

    /// Whether the server has begun to stop.
    fn is_shutting_down(&self) -> bool {
        *self.0.shutdown.borrow()
    }

    /// Where the table `id` is served: by this server (its handle; loaded from the store, or
    /// in a cluster taken over when no live node holds it), or by another node of the cluster.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id; [`ServerError::TableMoved`] when the
    /// table kept changing owner while asked for; a database failure.
    pub(crate) async fn route(&self, id: &str) -> Result<cluster::Route, ServerError> {
        let Some(cluster) = &self.0.cluster else {
            return Ok(cluster::Route::Local(self.table(id).await?));
        };
        for _ in 0..3 {
            if let Some(handle) = self.0.tables.lock().await.live(id) {
                return Ok(cluster::Route::Local(handle));
            }
            let seen = self
                .0
                .store
                .ownership(id)
                .await?
                .ok_or_else(|| ServerError::NotFound(format!("no table {id:?}")))?;
            match &seen.owner {
                Some(owner) if owner != cluster.key() && seen.owner_alive => {
                    return Ok(cluster::Route::Remote(owner.clone()));
                }
                _ => {}
            }
            // Ours (an ended table no longer in memory), or nobody's: load it here, under the
            // lock of the tables so that it is loaded once.
            let mut tables = self.0.tables.lock().await;
            if let Some(entry) = tables.map.get(id) {
                if !entry.handle.is_closed() {
                    return Ok(cluster::Route::Local(entry.handle.clone()));
                }
            }
            let held = if seen.owner.as_deref() == Some(cluster.key()) {
                table::Held {
                    fence: store::Fence {
                        node: cluster.key().to_owned(),
                        epoch: seen.epoch,
                    },
                    uncharged: Duration::ZERO,
                }
            } else {
                match self.0.store.claim(id, &seen, cluster.key()).await? {
                    Some(epoch) => {
                        tracing::info!(table = %id, epoch, from = seen.owner.as_deref().unwrap_or("none"), "table taken over");
                        table::Held {
                            fence: store::Fence {
                                node: cluster.key().to_owned(),
                                epoch,
                            },
                            uncharged: seen.uncharged(),
                        }
                    }
                    // Another node was quicker: ask again where it is.
                    None => continue,
                }
            };
            let handle = table::load(&self.0.store, self.table_settings(), id, Some(held)).await?;
            tables.insert(handle.clone());
            if handle.is_ended() {
                tables
                    .limit_ended(self.0.settings.max_ended_tables, id)
                    .await;
            }
            return Ok(cluster::Route::Local(handle));
        }
        Err(ServerError::TableMoved)
    }

    /// This node's part of the cluster, if it is one.
    pub(crate) fn cluster(&self) -> Option<&Arc<cluster::Cluster>> {
        self.0.cluster.as_ref()
    }

    fn table_settings(&self) -> TableSettings {
        TableSettings {
            grace: self.0.settings.grace,
            ended_grace: self.0.settings.ended_grace,
            notices: self.0.notices.clone(),
            listing: self.0.listing.clone(),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.0.store
    }

    /// The bounded password hasher ([`password::Passwords`]).
    pub fn passwords(&self) -> &password::Passwords {
        &self.0.passwords
    }

    /// The table with this id, brought back from the store when it is not in memory (an ended
    /// table leaves memory when nobody watches it, see [`Settings::ended_grace`]). A request
    /// through the handle may still find the actor retired in between: it fails with an error
    /// that [`table::is_closed_error`] recognises, and asking again here loads the table anew.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id.
    pub async fn table(&self, id: &str) -> Result<TableHandle, ServerError> {
        let mut tables = self.0.tables.lock().await;
        if let Some(handle) = tables.live(id) {
            return Ok(handle);
        }
        let handle = table::load(&self.0.store, self.table_settings(), id, None).await?;
        tables.insert(handle.clone());
        if handle.is_ended() {
            tables
                .limit_ended(self.0.settings.max_ended_tables, id)
                .await;
        }
        Ok(handle)
    }

    /// The summary of the table with this id (loaded from the store when needed).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id.
    pub async fn table_summary(&self, id: &str) -> Result<protocol::TableSummary, ServerError> {
        let mut last = None;
        for _ in 0..3 {
            let handle = match self.route(id).await? {
                cluster::Route::Local(handle) => handle,
                cluster::Route::Remote(owner) => {
                    let Some(c) = self.cluster() else {
                        return Err(ServerError::TableMoved);
                    };
                    match c.summary_remote(&owner, id).await {
                        Err(ServerError::TableMoved) => {
                            last = Some(ServerError::TableMoved);
                            continue;
                        }
                        answer => return answer,
                    }
                }
            };
            match handle.summary().await {
                Err(e) if table::is_closed_error(&e) => last = Some(e),
                answer => return answer,
            }
        }
        Err(last.unwrap_or_else(|| ServerError::Internal(format!("table {id} keeps closing"))))
    }

    /// Retires the table `id` if it is still ended and unwatched.
    async fn retire(&self, id: &str) {
        let mut tables = self.0.tables.lock().await;
        let Some(entry) = tables.map.get(id) else {
            return;
        };
        if entry.handle.is_ended() && entry.handle.retire().await {
            tables.map.remove(id);
            tracing::debug!(table = %id, "ended table retired (nobody watching)");
        }
    }

    /// Forgets the table `id` whose actor stopped because another node owns it now.
    async fn forget_lost(&self, id: &str) {
        let mut tables = self.0.tables.lock().await;
        if tables.map.get(id).is_some_and(|e| e.handle.is_closed()) {
            tables.map.remove(id);
        }
    }

    /// Retires the least recently used ended tables beyond [`Settings::max_ended_tables`].
    async fn limit_ended(&self, keep: &str) {
        let mut tables = self.0.tables.lock().await;
        tables
            .limit_ended(self.0.settings.max_ended_tables, keep)
            .await;
    }

    /// Creates a table and starts its actor.
    ///
    /// # Errors
    /// Bad options, or the database failed.
    pub async fn create_table(
        &self,
        options: protocol::TableOptions,
    ) -> Result<TableHandle, ServerError> {
        let id = ids::random_id(10);
        let owner = self.0.cluster.as_ref().map(|c| c.key().to_owned());
        let handle = table::create(
            &self.0.store,
            self.table_settings(),
            id,
            options,
            owner.as_deref(),
        )
        .await?;
        self.0.tables.lock().await.insert(handle.clone());
        Ok(handle)
    }

    /// Creates the agreed rematch of the ended table `from` (options and seats from
    /// [`TableNotice::Rematch`]) and tells `from` its id; a failure is logged and told to
    /// `from` too.
    async fn rematch(
        &self,
        from: &str,
        options: protocol::TableOptions,
        seats: Vec<Option<protocol::SeatPlayer>>,
    ) {
        let id = ids::random_id(10);
        let owner = self.0.cluster.as_ref().map(|c| c.key().to_owned());
        let created = table::create_seated(
            &self.0.store,
            self.table_settings(),
            id,
            options,
            seats,
            owner.as_deref(),
        )
        .await;
        let next = match created {
            Ok(handle) => {
                let id = handle.id().to_owned();
                self.0.tables.lock().await.insert(handle);
                Some(id)
            }
            Err(e) => {
                e.log();
                None
            }
        };
        match self.route(from).await {
            Ok(cluster::Route::Local(old)) => old.rematched(next).await,
            // Another node took the old table meanwhile: its players find the new table
            // through that table's next rematch request.
            Ok(cluster::Route::Remote(owner)) => {
                tracing::warn!(table = %from, %owner, "rematch made, but the old table moved to another node")
            }
            Err(e) => e.log(),
        }
    }

    /// Every table in memory.
    pub async fn tables(&self) -> Vec<TableHandle> {
        self.0
            .tables
            .lock()
            .await
            .map
            .values()
            .map(|e| e.handle.clone())
            .collect()
    }

    fn settings(&self) -> Settings {
        self.0.settings.clone()
    }

    /// The server's settings, borrowed.
    fn settings_ref(&self) -> &Settings {
        &self.0.settings
    }

    fn eval_slots(&self) -> &evaluation::EvalSlots {
        &self.0.eval_slots
    }

    fn http_limiter(&self) -> &limit::HttpLimiter {
        &self.0.limiter
    }

    fn chat_limiter(&self) -> &limit::ChatLimiter {
        &self.0.chat
    }

    fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.0.shutdown.subscribe()
    }

    /// Closes every WebSocket, then stops every table actor (each saves its clocks).
    pub async fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
        let tables: Vec<TableHandle> = self
            .0
            .tables
            .lock()
            .await
            .map
            .drain()
            .map(|(_, e)| e.handle)
            .collect();
        for t in tables {
            t.shutdown().await;
        }
        if let Some(c) = &self.0.cluster {
            // The tables are released: the other nodes take them at once.
            c.leave(&self.0.store).await;
        }
    }
}

/// Acts on what the table actors report, for as long as the state lives: an ended table that
/// nobody watched for the ended grace period is retired; a game that ends in play may take the
/// ended tables in memory over their limit.
async fn follow_notices(state: Weak<Inner>, mut notices: mpsc::UnboundedReceiver<TableNotice>) {
    while let Some(notice) = notices.recv().await {
        let Some(inner) = state.upgrade() else {
            break;
        };
        let state = AppState(inner);
        match notice {
            TableNotice::Idle(id) => state.retire(&id).await,
            TableNotice::Ended(id) => state.limit_ended(&id).await,
            TableNotice::Lost(id) => state.forget_lost(&id).await,
            TableNotice::Rematch {
                table,
                options,
                seats,
            } => {
                tokio::spawn(async move { state.rematch(&table, options, seats).await });
            }
        }
    }
}

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
    state.0.shutdown.send_replace(true);
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
/// database is touched), connects the database (creating a SQLite file when missing), brings
/// back the stored tables and serves with `settings` until SIGINT or SIGTERM.
///
/// # Errors
/// A bad address or database URL, a failed connection or migration.
pub async fn run(bind: &str, database: &str, settings: Settings) -> Result<(), ServerError> {
    // The address first: a taken or malformed one fails before the database is opened.
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|e| ServerError::Config(format!("cannot listen on {bind}: {e}")))?;
    let store = Store::connect_with(database, settings.store).await?;
    // After the settings were found good: a bad one is told in one line, nothing else.
    raise_open_file_limit();
    let state = AppState::new(store, settings).await?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServerError::Internal(e.to_string()))?;
    tracing::info!("listening on http://{addr}");
    let store = state.store().clone();
    let cluster = state.0.cluster.clone();
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
