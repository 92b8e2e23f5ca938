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
//!   [`crate::edge::listen::run`] then fails with [`ServerError::LeaseLapsed`], which `chuhe serve` turns into
//!   the exit status [`LEASE_LOST_EXIT`]: its tables already belong, or will soon belong, to
//!   other nodes; its supervisor starts it again under a new key.
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
//! - **Stop.** On SIGTERM a node saves its tables' clocks, releases them, ends its lease and
//!   tells the others (`{p}.released`), which take the tables over at once.

pub mod nats_auth;

use self::nats_auth::{redact_url, NatsAuth, NatsTarget, NatsTls};
use crate::error::ServerError;
use crate::protocol::{ClientMessage, ErrorCode, Phase, ServerMessage, TableSummary};
use crate::site::AppState;
use crate::table::{Person, TableHandle};
use async_nats::jetstream::kv;
use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The exit status of a node that found its lease lapsed (`EX_TEMPFAIL`): start it again.
pub const LEASE_LOST_EXIT: u8 = 75;

/// The header that marks the end of a forwarded connection on its `conn` subject.
const CLOSED_HEADER: &str = "Chuhe-Closed";

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

/// A forwarded client connection on this node: where the owner's messages go.
struct Proxy {
    owner: String,
    out: mpsc::UnboundedSender<ServerMessage>,
    /// Set when the proxy is dropped (the owner closed it or died): a request of the
    /// connection still waiting for the owner's answer gives up at once.
    gone: tokio::sync::watch::Sender<bool>,
}

/// A connection this node hosts for a client of another node.
struct Hosted {
    from: String,
    table: TableHandle,
    conn: u64,
    task: tokio::task::JoinHandle<()>,
}

/// A node's part of the cluster.
pub(crate) struct Cluster {
    settings: ClusterSettings,
    key: String,
    nats: async_nats::Client,
    lobby_bucket: kv::Store,
    next_proxy: AtomicU64,
    proxies: Mutex<HashMap<u64, Proxy>>,
    hosted: Mutex<HashMap<String, Hosted>>,
    lobby: Mutex<HashMap<String, TableSummary>>,
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

/// A person as it travels between nodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct WirePerson {
    id: String,
    name: String,
    account: bool,
}

impl From<&Person> for WirePerson {
    fn from(p: &Person) -> Self {
        WirePerson {
            id: p.id.clone(),
            name: p.name.clone(),
            account: p.account,
        }
    }
}

impl From<WirePerson> for Person {
    fn from(p: WirePerson) -> Self {
        Person {
            id: p.id,
            name: p.name,
            account: p.account,
        }
    }
}

/// What a forwarding node asks of a table's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Request {
    /// Register a connection whose messages go to `back`.
    Connect {
        table: String,
        person: Option<WirePerson>,
        since: Option<u64>,
        back: String,
        from: String,
    },
    /// A client message of the connection registered for `back`.
    Message { back: String, msg: ClientMessage },
    /// The connection registered for `back` has closed.
    Disconnect { back: String },
    /// The table as listed.
    Summary { table: String },
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
enum Reply {
    Ok {
        #[serde(default)]
        summary: Option<TableSummary>,
    },
    Refused {
        code: ErrorCode,
        message: String,
    },
    /// This node does not own the table (any more): ask again where it is.
    NotOwner,
}

impl Reply {
    fn refused(e: &ServerError) -> Reply {
        Reply::Refused {
            code: e.code(),
            message: e.public_message(),
        }
    }
}

/// Where a table is served.
pub(crate) enum Route {
    /// By this node.
    Local(TableHandle),
    /// By another live node (its key).
    Remote(String),
}

/// A client connection forwarded to the table's owner.
pub(crate) struct RemoteConn {
    cluster: Arc<Cluster>,
    owner: String,
    back: String,
    proxy: u64,
    /// Becomes `true` when the proxy is dropped.
    gone: tokio::sync::watch::Receiver<bool>,
}

impl RemoteConn {
    /// Sends a client message to the owner; its answer is the message's.
    pub(crate) async fn message(&self, msg: ClientMessage) -> Result<(), ServerError> {
        let request = Request::Message {
            back: self.back.clone(),
            msg,
        };
        let mut gone = self.gone.clone();
        // A request sent as the owner died gets no answer: give up once its death is known
        // (its lease lapsed) instead of waiting for the request's time limit.
        let answer = tokio::select! {
            answer = self.cluster.ask(&self.owner, &request) => answer,
            _ = gone.wait_for(|g| *g) => Err(ServerError::TableMoved),
        };
        match answer {
            Ok(Reply::Ok { .. }) => Ok(()),
            Ok(Reply::Refused { code, message }) => Err(ServerError::Relayed { code, message }),
            Ok(Reply::NotOwner) | Err(_) => {
                // The owner is gone or lost the table: the client reconnects.
                self.cluster.drop_proxy(self.proxy);
                Err(ServerError::TableMoved)
            }
        }
    }

    /// Tells the owner the connection closed.
    pub(crate) async fn disconnect(self) {
        self.cluster.drop_proxy(self.proxy);
        let request = Request::Disconnect {
            back: self.back.clone(),
        };
        if let Ok(payload) = serde_json::to_vec(&request) {
            let subject = self.cluster.node_subject(&self.owner);
            let _ = self.cluster.nats.publish(subject, payload.into()).await;
        }
    }
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
        let lobby_bucket = match jetstream.create_key_value(config).await {
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
            lobby_bucket,
            next_proxy: AtomicU64::new(1),
            proxies: Mutex::new(HashMap::new()),
            hosted: Mutex::new(HashMap::new()),
            lobby: Mutex::new(HashMap::new()),
            released: Notify::new(),
            left: std::sync::atomic::AtomicBool::new(false),
            lapsed: std::sync::atomic::AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
            live: Mutex::new(HashSet::new()),
        })
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

    /// The lobby: every live table of the cluster as listed, by id.
    pub(crate) fn lobby(&self) -> Vec<TableSummary> {
        let mut out: Vec<TableSummary> = lock(&self.lobby)
            .values()
            .filter(|s| s.phase != Phase::Ended)
            .cloned()
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Sends `request` to node `owner` and reads its reply.
    async fn ask(&self, owner: &str, request: &Request) -> Result<Reply, ServerError> {
        let payload = serde_json::to_vec(request)
            .map_err(|e| ServerError::Internal(format!("cluster request: {e}")))?;
        let answer = tokio::time::timeout(
            REQUEST_TIMEOUT,
            self.nats.request(self.node_subject(owner), payload.into()),
        )
        .await
        .map_err(|_| ServerError::TableMoved)?
        .map_err(|e| {
            tracing::debug!(node = %owner, error = %e, "no answer from a node");
            ServerError::TableMoved
        })?;
        serde_json::from_slice(&answer.payload)
            .map_err(|e| ServerError::Internal(format!("cluster reply: {e}")))
    }

    fn drop_proxy(&self, proxy: u64) {
        if let Some(p) = lock(&self.proxies).remove(&proxy) {
            p.gone.send_replace(true);
        }
    }

    /// Registers a client connection with the owner of `table`; its messages arrive on `out`.
    ///
    /// # Errors
    /// The owner's refusal (an unknown table, a bad `since`); [`ServerError::TableMoved`] when
    /// the owner no longer holds the table or does not answer (the caller routes again).
    pub(crate) async fn connect_remote(
        self: &Arc<Self>,
        owner: &str,
        table: &str,
        person: Option<&Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
    ) -> Result<RemoteConn, ServerError> {
        let proxy = self.next_proxy.fetch_add(1, Ordering::Relaxed);
        let back = format!("{}.conn.{}.{proxy}", self.settings.prefix, self.key);
        let (gone, gone_rx) = tokio::sync::watch::channel(false);
        lock(&self.proxies).insert(
            proxy,
            Proxy {
                owner: owner.to_owned(),
                out,
                gone,
            },
        );
        let conn = RemoteConn {
            cluster: self.clone(),
            owner: owner.to_owned(),
            back: back.clone(),
            proxy,
            gone: gone_rx,
        };
        let request = Request::Connect {
            table: table.to_owned(),
            person: person.map(WirePerson::from),
            since,
            back,
            from: self.key.clone(),
        };
        let mut gone = conn.gone.clone();
        let answer = tokio::select! {
            answer = self.ask(owner, &request) => answer,
            _ = gone.wait_for(|g| *g) => Err(ServerError::TableMoved),
        };
        match answer {
            Ok(Reply::Ok { .. }) => Ok(conn),
            Ok(Reply::Refused { code, message }) => {
                conn.disconnect().await;
                Err(ServerError::Relayed { code, message })
            }
            Ok(Reply::NotOwner) | Err(_) => {
                conn.disconnect().await;
                Err(ServerError::TableMoved)
            }
        }
    }

    /// The table as listed, asked of its owner.
    pub(crate) async fn summary_remote(
        &self,
        owner: &str,
        table: &str,
    ) -> Result<TableSummary, ServerError> {
        let request = Request::Summary {
            table: table.to_owned(),
        };
        match self.ask(owner, &request).await? {
            Reply::Ok {
                summary: Some(summary),
            } => Ok(summary),
            Reply::Refused { code, message } => Err(ServerError::Relayed { code, message }),
            Reply::Ok { summary: None } | Reply::NotOwner => Err(ServerError::TableMoved),
        }
    }

    /// Puts a table's summary in the lobby bucket (deletes it once the table has ended).
    async fn publish_listing(&self, summary: TableSummary) {
        let result = if summary.phase == Phase::Ended {
            self.lobby_bucket
                .delete(&summary.id)
                .await
                .map_err(|e| e.to_string())
        } else {
            match serde_json::to_vec(&summary) {
                Ok(bytes) => self
                    .lobby_bucket
                    .put(&summary.id, Bytes::from(bytes))
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        };
        if let Err(e) = result {
            tracing::warn!(table = %summary.id, error = %e, "lobby entry not published");
        }
    }

    /// Whether `node` is a live node of the cluster: by the last look, else by the store (a
    /// node that has just joined).
    async fn is_live(&self, node: &str, store: &crate::store::Store) -> bool {
        if node == self.key || lock(&self.live).contains(node) {
            return true;
        }
        match store.live_nodes().await {
            Ok(live) => {
                let live: HashSet<String> = live.into_iter().collect();
                let known = live.contains(node);
                *lock(&self.live) = live;
                known
            }
            Err(_) => false,
        }
    }

    /// Closes the forwarded connections of the nodes not in `live` and drops the hosted
    /// connections they had here; logs the nodes that left since the last look.
    async fn forget_dead(&self, live: HashSet<String>) {
        {
            let mut known = lock(&self.live);
            for gone in known.difference(&live) {
                tracing::info!(node = %gone, "a node left the cluster (its lease ended or lapsed)");
            }
            for new in live.difference(&known) {
                if *new != self.key {
                    tracing::info!(node = %new, "a node joined the cluster");
                }
            }
            *known = live.clone();
        }
        let live = &live;
        let gone: Vec<u64> = lock(&self.proxies)
            .iter()
            .filter(|(_, p)| !live.contains(&p.owner))
            .map(|(id, _)| *id)
            .collect();
        if !gone.is_empty() {
            tracing::info!(
                connections = gone.len(),
                "closing connections forwarded to a node that is gone"
            );
        }
        for id in gone {
            self.drop_proxy(id);
        }
        let dead: Vec<Hosted> = {
            let mut hosted = lock(&self.hosted);
            let keys: Vec<String> = hosted
                .iter()
                .filter(|(_, h)| !live.contains(&h.from))
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter().filter_map(|k| hosted.remove(&k)).collect()
        };
        for h in dead {
            h.task.abort();
            h.table.disconnect(h.conn).await;
        }
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

/// Starts the node's tasks: the lease, the scan for tables nobody holds, the requests of other
/// nodes, the forwarded connections' messages, and the lobby (the bucket watched, the local
/// tables' listings published).
pub(crate) async fn start(
    state: &AppState,
    cluster: Arc<Cluster>,
    listings: mpsc::UnboundedReceiver<TableSummary>,
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
    // Every entry already in the bucket first (the tables listed before this node started),
    // then every change.
    let watch = cluster
        .lobby_bucket
        .watch_with_history(">")
        .await
        .map_err(|e| ServerError::Config(format!("NATS watch of the lobby: {e}")))?;
    let weak = state.downgrade();
    let tasks = vec![
        tokio::spawn(serve_requests(weak.clone(), cluster.clone(), requests)),
        tokio::spawn(relay_conns(cluster.clone(), conns)),
        tokio::spawn(follow_released(cluster.clone(), released)),
        tokio::spawn(watch_lobby(cluster.clone(), watch)),
        tokio::spawn(publish_listings(cluster.clone(), listings)),
        tokio::spawn(keep_lease(weak, cluster.clone())),
    ];
    lock(&cluster.tasks).extend(tasks);
    Ok(())
}

async fn follow_released(cluster: Arc<Cluster>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        if msg.payload.as_ref() != cluster.key.as_bytes() {
            cluster.released.notify_one();
        }
    }
}

async fn publish_listings(
    cluster: Arc<Cluster>,
    mut listings: mpsc::UnboundedReceiver<TableSummary>,
) {
    while let Some(summary) = listings.recv().await {
        cluster.publish_listing(summary).await;
    }
}

async fn watch_lobby(cluster: Arc<Cluster>, mut watch: kv::Watch) {
    while let Some(entry) = watch.next().await {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "lobby watch");
                continue;
            }
        };
        let mut lobby = lock(&cluster.lobby);
        match entry.operation {
            kv::Operation::Put => match serde_json::from_slice::<TableSummary>(&entry.value) {
                Ok(summary) => {
                    lobby.insert(entry.key, summary);
                }
                Err(e) => tracing::warn!(key = %entry.key, error = %e, "unreadable lobby entry"),
            },
            kv::Operation::Delete | kv::Operation::Purge => {
                lobby.remove(&entry.key);
            }
        }
    }
    tracing::error!("the lobby watch ended: the lobby no longer follows the other nodes");
}

/// Routes the owner's messages of forwarded connections to their clients.
async fn relay_conns(cluster: Arc<Cluster>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        let Some(proxy) = msg
            .subject
            .rsplit('.')
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let closed = msg
            .headers
            .as_ref()
            .is_some_and(|h| h.get(CLOSED_HEADER).is_some());
        if closed {
            cluster.drop_proxy(proxy);
            continue;
        }
        let Ok(message) = serde_json::from_slice::<ServerMessage>(&msg.payload) else {
            tracing::warn!(subject = %msg.subject, "unreadable forwarded message");
            continue;
        };
        let sent = lock(&cluster.proxies)
            .get(&proxy)
            .map(|p| p.out.send(message).is_ok());
        if sent == Some(false) {
            cluster.drop_proxy(proxy);
        }
    }
}

/// Answers the requests of other nodes, each in a task of its own (one connection's requests
/// come one at a time: its node waits for each answer).
async fn serve_requests(
    state: crate::site::WeakState,
    cluster: Arc<Cluster>,
    mut sub: async_nats::Subscriber,
) {
    while let Some(msg) = sub.next().await {
        let Some(state) = state.upgrade() else { break };
        let cluster = cluster.clone();
        tokio::spawn(async move {
            let reply_to = msg.reply.clone();
            let reply = match serde_json::from_slice::<Request>(&msg.payload) {
                Ok(request) => answer(&state, &cluster, request).await,
                Err(e) => Some(Reply::refused(&ServerError::BadMessage(e.to_string()))),
            };
            if let (Some(to), Some(reply)) = (reply_to, reply) {
                if let Ok(bytes) = serde_json::to_vec(&reply) {
                    let _ = cluster.nats.publish(to, bytes.into()).await;
                }
            }
        });
    }
}

/// The local handle of `table` when this node owns it.
async fn owned(state: &AppState, table: &str) -> Result<Option<TableHandle>, ServerError> {
    match state.route(table).await? {
        Route::Local(handle) => Ok(Some(handle)),
        Route::Remote(_) => Ok(None),
    }
}

async fn answer(state: &AppState, cluster: &Arc<Cluster>, request: Request) -> Option<Reply> {
    match request {
        Request::Connect {
            table,
            person,
            since,
            back,
            from,
        } => {
            // Only the cluster's nodes forward connections, each for its own subjects.
            let own_subject = format!("{}.conn.{from}.", cluster.settings.prefix);
            if !back.starts_with(&own_subject) || !cluster.is_live(&from, state.store()).await {
                tracing::warn!(%from, %back, "a connect request from no live node refused");
                return Some(Reply::refused(&ServerError::NotAllowed(
                    "connect: not from a live node of this cluster".to_owned(),
                )));
            }
            let handle = match owned(state, &table).await {
                Ok(Some(h)) => h,
                Ok(None) => return Some(Reply::NotOwner),
                Err(e) => return Some(Reply::refused(&e)),
            };
            let (tx, mut rx) = mpsc::unbounded_channel::<ServerMessage>();
            let person = person.map(Person::from);
            let conn = match handle.connect(person, since, tx).await {
                Ok(c) => c,
                Err(e) if crate::table::is_closed_error(&e) => return Some(Reply::NotOwner),
                Err(e) => return Some(Reply::refused(&e)),
            };
            let nats = cluster.nats.clone();
            let subject = back.clone();
            let task = tokio::spawn(async move {
                while let Some(m) = rx.recv().await {
                    if let Ok(bytes) = serde_json::to_vec(&m) {
                        if nats.publish(subject.clone(), bytes.into()).await.is_err() {
                            break;
                        }
                    }
                }
                // The table dropped the connection (it stopped here, or moved): the client
                // reconnects.
                let mut headers = async_nats::HeaderMap::new();
                headers.insert(CLOSED_HEADER, "1");
                let _ = nats
                    .publish_with_headers(subject, headers, Bytes::new())
                    .await;
            });
            lock(&cluster.hosted).insert(
                back,
                Hosted {
                    from,
                    table: handle,
                    conn,
                    task,
                },
            );
            Some(Reply::Ok { summary: None })
        }
        Request::Message { back, msg } => {
            let target = lock(&cluster.hosted)
                .get(&back)
                .map(|h| (h.table.clone(), h.conn));
            let Some((table, conn)) = target else {
                return Some(Reply::NotOwner);
            };
            Some(match table.message(conn, msg).await {
                Ok(()) => Reply::Ok { summary: None },
                Err(e) if crate::table::is_closed_error(&e) || e == ServerError::TableMoved => {
                    Reply::NotOwner
                }
                Err(e) => Reply::refused(&e),
            })
        }
        Request::Disconnect { back } => {
            let hosted = lock(&cluster.hosted).remove(&back);
            if let Some(h) = hosted {
                h.table.disconnect(h.conn).await;
                // The forwarder ends by itself when the table drops the connection.
            }
            None
        }
        Request::Summary { table } => Some(match owned(state, &table).await {
            Ok(Some(h)) => match h.summary().await {
                Ok(s) => Reply::Ok { summary: Some(s) },
                Err(_) => Reply::NotOwner,
            },
            Ok(None) => Reply::NotOwner,
            Err(e) => Reply::refused(&e),
        }),
    }
}

/// Connects to the NATS of `settings` with its authentication and TLS ([`NatsTarget`]), as
/// `name`.
///
/// # Errors
/// [`ServerError::Config`] with one line that shows the URL without its credentials: bad
/// settings or files, no answer within [`NATS_CONNECT_TIMEOUT`], a refusal (wrong
/// credentials: "authorization violation"; TLS).
pub(crate) async fn connect(
    settings: &ClusterSettings,
    name: &str,
) -> Result<async_nats::Client, ServerError> {
    let target = NatsTarget::new(&settings.nats_url, &settings.auth, &settings.tls)
        .map_err(|e| ServerError::Config(e.to_string()))?;
    let options = target
        .options()
        .await
        .map_err(|e| ServerError::Config(e.to_string()))?
        .name(name);
    let cannot = |why: String| {
        ServerError::Config(format!(
            "cannot connect to NATS at {} ({}{}): {why}",
            target.shown,
            match target.auth() {
                NatsAuth::None => "no credentials",
                other => other.method(),
            },
            if target.requires_tls() { ", TLS" } else { "" },
        ))
    };
    // A server that accepts the connection but never answers (not NATS) must not hold the
    // start forever.
    tokio::time::timeout(
        NATS_CONNECT_TIMEOUT,
        options.connect(target.address.as_str()),
    )
    .await
    .map_err(|_| {
        cannot(format!(
            "no answer within {} s",
            NATS_CONNECT_TIMEOUT.as_secs()
        ))
    })?
    .map_err(|e| cannot(connect_failure(&e, target.auth())))
}

/// Why a connection to NATS failed, in one line without a secret: a refusal of credentials
/// says so; otherwise the underlying reason (I/O, TLS).
fn connect_failure(e: &async_nats::ConnectError, auth: &NatsAuth) -> String {
    use async_nats::ConnectErrorKind;
    let source = std::error::Error::source(e).map(ToString::to_string);
    match (e.kind(), source) {
        (ConnectErrorKind::AuthorizationViolation, _) => format!(
            "authorization violation: {}",
            if *auth == NatsAuth::None {
                "the server asks for credentials"
            } else {
                "the server refused these credentials"
            }
        ),
        (ConnectErrorKind::Tls, Some(source)) => format!("TLS: {source}"),
        (ConnectErrorKind::Io, Some(source)) => source,
        _ => e.to_string(),
    }
}

/// Checks that this node joins the cluster its database and its NATS agree on: the database
/// records the cluster's NATS prefix and id ([`crate::store::Store::cluster_identity`]: another
/// prefix is refused while nodes run), and the NATS bucket `<prefix>-cluster` holds the same id
/// (the first node leaves it there): a NATS that carries another site's cluster under the same
/// prefix is refused, since the two sites would exchange their tables' messages.
///
/// # Errors
/// [`ServerError::Config`] with a one-line reason; a failure to reach either.
async fn check_identity(
    jetstream: &async_nats::jetstream::Context,
    settings: &ClusterSettings,
    store: &crate::store::Store,
) -> Result<(), ServerError> {
    let id = store
        .cluster_identity(&settings.prefix, &crate::ids::random_id(16))
        .await?;
    let bucket = format!("{}-cluster", settings.prefix);
    let config = kv::Config {
        bucket: bucket.clone(),
        history: 1,
        description: "chuhe: the id of the cluster (its database) that uses this prefix".to_owned(),
        ..Default::default()
    };
    let identity = match jetstream.create_key_value(config).await {
        Ok(b) => b,
        Err(created) => jetstream.get_key_value(&bucket).await.map_err(|e| {
            ServerError::Config(format!(
                "cannot open the NATS key-value bucket {bucket}: {created}; {e}"
            ))
        })?,
    };
    if identity.create("database", id.clone().into()).await.is_ok() {
        return Ok(());
    }
    let found = identity.get("database").await.map_err(|e| {
        ServerError::Config(format!(
            "cannot read the NATS key-value bucket {bucket}: {e}"
        ))
    })?;
    match found {
        Some(found) if found.as_ref() == id.as_bytes() => Ok(()),
        Some(found) => Err(ServerError::Config(format!(
            "NATS at {} already carries another chuhe cluster under --nats-prefix {:?} \
             (cluster {:?}, this database's is {id:?}): give each site its own prefix",
            redact_url(&settings.nats_url),
            settings.prefix,
            String::from_utf8_lossy(&found)
        ))),
        // Removed meanwhile (a NATS without its storage): this cluster's again.
        None => identity
            .put("database", id.into())
            .await
            .map(|_| ())
            .map_err(|e| ServerError::Config(format!("cannot write to NATS bucket {bucket}: {e}"))),
    }
}

/// Renews the lease, closes what was forwarded to dead nodes and takes over the tables nobody
/// holds, every fifth of the lease (and at once when another node released tables). A lapsed
/// lease gives the store up and stops the server ([`Cluster::lapsed`]).
async fn keep_lease(state: crate::site::WeakState, cluster: Arc<Cluster>) {
    let every = cluster.settings.lease / 5;
    let mut round: u64 = 0;
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = cluster.released.notified() => {}
        }
        let Some(state) = state.upgrade() else { break };
        if cluster.left.load(Ordering::Acquire) {
            break;
        }
        let store = state.store().clone();
        match store.renew_node(&cluster.key, cluster.settings.lease).await {
            Ok(true) => {}
            Ok(false) if cluster.left.load(Ordering::Acquire) => break,
            Ok(false) => {
                // Paused or cut off past the lease: other nodes may own our tables already.
                // Nothing more is written from here.
                let why = format!(
                    "this node's lease lapsed (node {}): stopping without writing (start it again)",
                    cluster.key
                );
                tracing::error!("{why}");
                cluster.lapsed.store(true, Ordering::Release);
                store.give_up(why);
                break;
            }
            Err(e) => {
                tracing::warn!(error = %e, "lease not renewed: trying again");
                continue;
            }
        }
        if state.is_shutting_down() {
            // Still renewing while the tables' clocks are saved and the tables released; no
            // more tables taken.
            continue;
        }
        match store.live_nodes().await {
            Ok(live) => cluster.forget_dead(live.into_iter().collect()).await,
            Err(e) => tracing::warn!(error = %e, "cannot read the live nodes"),
        }
        match store.orphans(64).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = state.route(&id).await {
                        tracing::warn!(table = %id, error = %e, "table not taken over");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot look for tables to take over"),
        }
        round += 1;
        if round.is_multiple_of(3600) {
            let _ = store.forget_dead_nodes().await;
        }
    }
}
