//! Several `chuhe serve` nodes as one site: PostgreSQL keeps everything, NATS carries what
//! moves between the nodes (`docs/cluster.md`).
//!
//! - **Ownership.** Each live table has one owner node, recorded in its row with a fencing
//!   epoch (`store/cluster.rs`). A node takes a table when it creates it, when a client asks
//!   for a table nobody holds (released, or its owner's lease lapsed), and when its periodic
//!   scan finds such a table. Every write of the owner is fenced in its own transaction.
//! - **Leases.** A node renews its lease every [`ClusterSettings::lease`] / 5. A node that finds
//!   its lease lapsed (it was paused or cut off for longer than the lease) gives its store up
//!   at once (nothing more is written: [`crate::store::Store::give_up`]) and stops serving;
//!   [`crate::run`] then fails with [`ServerError::LeaseLapsed`], which `chuhe serve` turns
//!   into the exit status [`LEASE_LOST_EXIT`]: its tables already belong, or will soon belong,
//!   to other nodes; its supervisor starts it again under a new key.
//! - **Forwarding.** A client's WebSocket may reach any node. A node that does not own the
//!   table forwards: it asks the owner to register a connection (`{p}.node.{owner}.connect`,
//!   request/reply) whose messages the owner publishes on `{p}.conn.{node}.{n}`, a subject of
//!   the forwarding node's own; the client's messages go as requests to
//!   `{p}.node.{owner}.message`, the owner's answer (accepted, or the refusal) comes back as
//!   the reply. What travels is exactly what the client is sent: each seat's view, so banqi's
//!   face-down pieces never cross NATS in any readable form (the server itself does not know
//!   them before they are flipped).
//! - **Failure.** When an owner dies, the nodes forwarding to it see its lease lapse and close
//!   those clients' sockets; the clients reconnect (to any node) with `since` and the table
//!   is taken over from its event log. A connect that meets a dead owner waits for its lease to
//!   lapse and takes the table itself.
//! - **Lobby.** The owner puts each table's summary in a JetStream key-value bucket
//!   (`{p}-lobby`) when its phase or seats change and deletes it when the table ends; every
//!   node watches the bucket, so the lobby is the same from every node.
//! - **Tournaments.** A node that stored a request for a tournament another node runs
//!   publishes its id on `{p}.tournaments`; the owner applies the stored requests at once
//!   (its periodic tick stays the safety net when the message is lost).
//! - **Stop.** On SIGTERM a node saves its tables' clocks, releases them, ends its lease and
//!   tells the others (`{p}.released`), which take the tables over at once.

mod asks;
mod events;
mod host;
mod lease;
mod lobby;
mod nats;
pub mod nats_auth;
mod remote;
mod wire;

use self::nats_auth::{redact_url, NatsAuth, NatsTls};
use crate::error::ServerError;
use crate::protocol::TableSummary;
use crate::table::TableHandle;
use asks::follow_tournaments;
use async_nats::jetstream::kv;
use bytes::Bytes;
use events::{follow_events, publish_events};
use host::{serve_requests, Hosted};
use lease::{follow_released, keep_lease};
use lobby::{first_watch, follow_lobby, publish_listings};
use nats::{check_identity, connect};
pub(crate) use remote::RemoteConn;
use remote::{relay_conns, Proxy};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The exit status of a node that found its lease lapsed (`EX_TEMPFAIL`): start it again.
pub const LEASE_LOST_EXIT: u8 = 75;

/// How long a node waits for NATS at start.
const NATS_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a forwarding node waits for the owner's answer to a request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A cluster node's settings (`chuhe serve --nats URL --node-id NAME`). `Debug` shows the
/// URL without its credentials and no secret.
#[derive(Clone)]
pub struct ClusterSettings {
    /// The NATS server, `nats://HOST:PORT` or `tls://HOST:PORT`, perhaps with credentials
    /// (`nats://USER:PASSWORD@HOST:PORT`, `nats://TOKEN@HOST:PORT`): they are used as
    /// [`NatsAuth::UserPassword`] or [`NatsAuth::Token`] and never shown.
    pub nats_url: String,
    /// How the node authenticates to NATS (default none: a private NATS).
    pub auth: NatsAuth,
    /// TLS towards NATS (default none, unless the URL is `tls://`).
    pub tls: NatsTls,
    /// The node's name (letters, digits, `-` and `_`, at most 32): its key is the name and a
    /// random suffix, new at every start.
    pub node_name: String,
    /// The first token of every NATS subject and the name of the lobby bucket, so that several
    /// sites can share one NATS (default `chuhe`).
    pub prefix: String,
    /// How long a node's lease lasts without renewal (default 5 s): a dead node's tables are
    /// taken over this long after its last renewal, at most about a second later.
    pub lease: Duration,
}

impl ClusterSettings {
    /// Settings with the default prefix and lease.
    pub fn new(nats_url: &str, node_name: &str) -> ClusterSettings {
        ClusterSettings {
            nats_url: nats_url.to_owned(),
            auth: NatsAuth::None,
            tls: NatsTls::default(),
            node_name: node_name.to_owned(),
            prefix: "chuhe".to_owned(),
            lease: Duration::from_secs(5),
        }
    }

    /// Checks the name and the prefix (each becomes a NATS subject token).
    ///
    /// # Errors
    /// [`ServerError::Config`] naming the bad setting.
    pub fn check(&self) -> Result<(), ServerError> {
        let token = |what: &str, s: &str| {
            let ok = !s.is_empty()
                && s.len() <= 32
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if ok {
                Ok(())
            } else {
                Err(ServerError::Config(format!(
                    "{what} {s:?}: use 1 to 32 letters, digits, '-' or '_'"
                )))
            }
        };
        token("--node-id", &self.node_name)?;
        token("--nats-prefix", &self.prefix)?;
        if self.lease < Duration::from_secs(1) {
            return Err(ServerError::Config(
                "the lease must be at least 1 s".to_owned(),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Debug for ClusterSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterSettings")
            .field("nats_url", &redact_url(&self.nats_url))
            .field("auth", &self.auth)
            .field("tls", &self.tls)
            .field("node_name", &self.node_name)
            .field("prefix", &self.prefix)
            .field("lease", &self.lease)
            .finish()
    }
}

/// A node's part of the cluster.
pub(crate) struct Cluster {
    settings: ClusterSettings,
    key: String,
    nats: async_nats::Client,
    jetstream: async_nats::jetstream::Context,
    /// The lobby bucket's configuration: the bucket is made again with it when NATS lost it.
    lobby_config: kv::Config,
    /// The lobby bucket (replaced when it is made again).
    lobby_bucket: Mutex<kv::Store>,
    next_proxy: AtomicU64,
    proxies: Mutex<HashMap<u64, Proxy>>,
    hosted: Mutex<HashMap<String, Hosted>>,
    lobby: Mutex<HashMap<String, TableSummary>>,
    /// Woken when the lobby watch was opened again: list every table of this node again.
    relist: Notify,
    /// Woken when a write found the lobby bucket gone and made it again: look at it at once.
    lobby_check: Notify,
    /// Set when a listing was not written: they are all written again once NATS answers.
    lobby_unwritten: std::sync::atomic::AtomicBool,
    /// Woken when another node released tables: scan for them at once.
    released: Notify,
    /// Set once the node has ended its lease (a clean stop): the lease is no longer renewed.
    left: std::sync::atomic::AtomicBool,
    /// Set when the node found its lease lapsed: it stops without writing.
    lapsed: std::sync::atomic::AtomicBool,
    /// The node's background tasks, stopped and waited for when it leaves.
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The nodes whose lease ran at the last look (every round of [`keep_lease`]).
    live: Mutex<HashSet<String>>,
}

impl Cluster {
    /// Whether the NATS connection is up now (the client reconnects by itself when it is not).
    pub(crate) fn nats_connected(&self) -> bool {
        self.nats.connection_state() == async_nats::connection::State::Connected
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Where a table is served.
pub(crate) enum Route {
    /// By this node.
    Local(TableHandle),
    /// By another live node (its key).
    Remote(String),
}

impl Cluster {
    /// Connects to NATS, registers the node's lease and opens the lobby bucket.
    pub(crate) async fn join(
        settings: ClusterSettings,
        store: &crate::store::Store,
    ) -> Result<Cluster, ServerError> {
        settings.check()?;
        let suffix = crate::ids::random_id(6);
        let key = format!("{}-{suffix}", settings.node_name);
        let nats = connect(&settings, &format!("chuhe {key}")).await?;
        let jetstream = async_nats::jetstream::new(nats.clone());
        let bucket = format!("{}-lobby", settings.prefix);
        let config = kv::Config {
            bucket: bucket.clone(),
            history: 1,
            description: "chuhe: the live tables as listed, by table id".to_owned(),
            ..Default::default()
        };
        // Several nodes may start at once: one creates the bucket, the others open it.
        let lobby_bucket = match jetstream.create_key_value(config.clone()).await {
            Ok(b) => b,
            Err(created) => jetstream.get_key_value(&bucket).await.map_err(|e| {
                ServerError::Config(format!(
                    "cannot open the NATS key-value bucket {bucket} (is JetStream on?): {created}; {e}"
                ))
            })?,
        };
        check_identity(&jetstream, &settings, store).await?;
        store
            .register_node(&key, &settings.node_name, settings.lease)
            .await?;
        tracing::info!(
            node = %key,
            nats = %redact_url(&settings.nats_url),
            auth = settings.auth.method(),
            "joined the cluster"
        );
        Ok(Cluster {
            settings,
            key,
            nats,
            jetstream,
            lobby_config: config,
            lobby_bucket: Mutex::new(lobby_bucket),
            next_proxy: AtomicU64::new(1),
            proxies: Mutex::new(HashMap::new()),
            hosted: Mutex::new(HashMap::new()),
            lobby: Mutex::new(HashMap::new()),
            relist: Notify::new(),
            lobby_check: Notify::new(),
            lobby_unwritten: std::sync::atomic::AtomicBool::new(false),
            released: Notify::new(),
            left: std::sync::atomic::AtomicBool::new(false),
            lapsed: std::sync::atomic::AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
            live: Mutex::new(HashSet::new()),
        })
    }

    /// The lease of the cluster's nodes ([`ClusterSettings::lease`]).
    pub(crate) fn lease(&self) -> Duration {
        self.settings.lease
    }

    /// This node's key (its name and a random suffix).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }

    fn node_subject(&self, node: &str) -> String {
        format!("{}.node.{node}", self.settings.prefix)
    }

    fn released_subject(&self) -> String {
        format!("{}.released", self.settings.prefix)
    }

    /// Whether this node found its lease lapsed (and gave its store up).
    pub(crate) fn lapsed(&self) -> bool {
        self.lapsed.load(Ordering::Acquire)
    }

    /// Stops the node's background tasks and waits until they have ended.
    async fn stop_tasks(&self) {
        let tasks = std::mem::take(&mut *lock(&self.tasks));
        for t in &tasks {
            t.abort();
        }
        for t in tasks {
            let _ = t.await;
        }
    }

    /// Ends the lease and tells the other nodes that this node's tables are free (a node whose
    /// lease lapsed writes nothing), then stops the node's background tasks.
    pub(crate) async fn leave(&self, store: &crate::store::Store) {
        self.left.store(true, Ordering::Release);
        if self.lapsed() {
            self.stop_tasks().await;
            tracing::info!(node = %self.key, "left the cluster (lease lapsed)");
            return;
        }
        if let Err(e) = store.end_node(&self.key).await {
            tracing::warn!(error = %e, "the node's lease was not ended: it lapses by itself");
        }
        let _ = self
            .nats
            .publish(self.released_subject(), Bytes::from(self.key.clone()))
            .await;
        let _ = self.nats.flush().await;
        self.stop_tasks().await;
        tracing::info!(node = %self.key, "left the cluster");
    }
}

/// What the cluster asks of the site it is part of: where a table is served (a table nobody
/// holds is taken over on the way), the store, and whether the server is stopping.
/// [`crate::site::AppState`] implements it; the cluster knows this trait and not the site, which
/// owns the cluster.
pub(crate) trait Host: Clone + Send + Sync + 'static {
    /// Where table `id` is served ([`crate::site::AppState::route`]).
    fn route(
        &self,
        id: &str,
    ) -> impl std::future::Future<Output = Result<Route, ServerError>> + Send;
    /// The site's store.
    fn store(&self) -> &crate::store::Store;
    /// Whether the server has begun to stop.
    fn is_shutting_down(&self) -> bool;
    /// Hands a player's event line, published by any node, to this node's event streams of
    /// that player.
    fn deliver_event(&self, player_id: &str, line: &str);
    /// The summaries of the tables this node serves, as listed
    /// ([`crate::table::TableHandle::listed`]): what it puts in the lobby again when NATS lost
    /// the bucket.
    fn listed_tables(&self) -> impl std::future::Future<Output = Vec<TableSummary>> + Send;
    /// Another node stored a request for the tournament `id`: if this node runs it, its
    /// stored requests are applied now (nothing else of a tick is done).
    fn tournament_asked(&self, id: &str) -> impl std::future::Future<Output = ()> + Send;
}

/// A handle on a [`Host`] that does not keep it alive: the cluster's tasks hold one and end
/// when the host is gone.
pub(crate) trait WeakHost: Clone + Send + Sync + 'static {
    /// The host this handle points to.
    type Host: Host;
    /// The host, while it lives.
    fn upgrade(&self) -> Option<Self::Host>;
}

/// Starts the node's tasks: the lease, the scan for tables nobody holds, the requests of other
/// nodes, the forwarded connections' messages, the lobby (the bucket watched, the local
/// tables' listings published), the players' event lines (this node's `events` published,
/// every node's delivered here) and the announcements of tournament requests.
pub(crate) async fn start<W: WeakHost>(
    host: W,
    cluster: Arc<Cluster>,
    listings: mpsc::UnboundedReceiver<TableSummary>,
    events: mpsc::UnboundedReceiver<(String, Arc<str>)>,
) -> Result<(), ServerError> {
    let prefix = cluster.settings.prefix.clone();
    let requests = cluster
        .nats
        .subscribe(cluster.node_subject(&cluster.key))
        .await
        .map_err(|e| ServerError::Config(format!("NATS subscribe: {e}")))?;
    let conns = cluster
        .nats
        .subscribe(format!("{prefix}.conn.{}.*", cluster.key))
        .await
        .map_err(|e| ServerError::Config(format!("NATS subscribe: {e}")))?;
    let released = cluster
        .nats
        .subscribe(cluster.released_subject())
        .await
        .map_err(|e| ServerError::Config(format!("NATS subscribe: {e}")))?;
    let event_lines = cluster
        .nats
        .subscribe(cluster.events_subject())
        .await
        .map_err(|e| ServerError::Config(format!("NATS subscribe: {e}")))?;
    let tournaments = cluster
        .nats
        .subscribe(cluster.tournaments_subject())
        .await
        .map_err(|e| ServerError::Config(format!("NATS subscribe: {e}")))?;
    // Every entry already in the bucket first (the tables listed before this node started),
    // then every change.
    let watch = first_watch(&cluster).await?;
    let weak = host;
    let tasks = vec![
        tokio::spawn(serve_requests(weak.clone(), cluster.clone(), requests)),
        tokio::spawn(relay_conns(cluster.clone(), conns)),
        tokio::spawn(follow_released(cluster.clone(), released)),
        tokio::spawn(follow_lobby(cluster.clone(), watch)),
        tokio::spawn(publish_listings(weak.clone(), cluster.clone(), listings)),
        tokio::spawn(follow_events(weak.clone(), event_lines)),
        tokio::spawn(publish_events(cluster.clone(), events)),
        tokio::spawn(follow_tournaments(weak.clone(), tournaments)),
        tokio::spawn(keep_lease(weak, cluster.clone())),
    ];
    lock(&cluster.tasks).extend(tasks);
    Ok(())
}
