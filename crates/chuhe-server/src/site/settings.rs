//! The server's settings ([`Settings`]) and the WebSocket heartbeat ([`Heartbeat`]): what
//! `chuhe serve`'s flags and config file set (`crates/chuhe/src/serve_cmd.rs`).

use crate::cluster::ClusterSettings;
use crate::computer;
use crate::store::StoreOptions;
use governor::Quota;
use std::num::NonZeroU32;
use std::time::Duration;

/// Server settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long a seated person may stay disconnected from a running game before losing by
    /// abandonment (default 60 s).
    pub grace: Duration,
    /// How long a seat of a timed game has for its first move before the game is aborted
    /// without a result (default 30 s, lichess's real-time figure; its clock runs meanwhile,
    /// and a flag that falls before the first move aborts too). Untimed games have none.
    pub first_move: Duration,
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
    pub chat_lines: RequestQuota,
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
    /// as a browser writes it in `Origin`; default none). See [`crate::edge::origin`].
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
    /// Open files (descriptors) kept free for the server's own work under its open-file limit
    /// (default [`DEFAULT_DESCRIPTOR_RESERVE`]): [`crate::serve`] takes connections only while
    /// the descriptors open at its start, the open connections and this reserve stay within
    /// the limit, and answers the others 503 at once (see `docs/security.md`).
    pub descriptor_reserve: usize,
    /// Longest time a client may take to send a request's head (request line and headers),
    /// and again its body once the head is in, before it is answered 408 and its connection
    /// is closed (default 10 s; slowloris, slow bodies).
    pub request_timeout: Duration,
    /// Longest time [`crate::serve`] takes to stop once asked (closing the connections, saving the
    /// tables' clocks, closing the store; default 15 s). Past it, what is left is abandoned
    /// with a warning: everything acknowledged is stored already, and a table's running clock
    /// restarts from the restart's starting point.
    pub shutdown_timeout: Duration,
    /// The store's time limits and the session lifetime, used by [`crate::run`] (defaults in
    /// [`StoreOptions`]); the session cookie's `Max-Age` is the session lifetime.
    pub store: StoreOptions,
    /// Whether the session cookie is marked `Secure` (sent over HTTPS only; default `false`,
    /// for plain-HTTP local use: set it behind TLS).
    pub secure_cookies: bool,
    /// When set, this server is one node of a cluster on PostgreSQL and NATS ([`crate::cluster`]);
    /// default `None`, a single server.
    pub cluster: Option<ClusterSettings>,
    /// How often the sampled gauges of [`crate::telemetry`] are set (tables, pool, NATS); default
    /// `None`, never (for a server without a metrics recorder).
    pub metrics_interval: Option<Duration>,
    /// Time between two pairing waves of a running arena (default 2 s, lichess's figure for
    /// small arenas); each wave also starts the arenas due and finishes those past their end.
    pub tournament_wave: Duration,
    /// How long one minute of a tournament's duration lasts (default 60 s; the tests shorten
    /// it so that an arena of `minutes=10` ends in seconds).
    pub tournament_minute: Duration,
    /// The operator's scheduled tournaments (`[[schedule]]` of the configuration file): each
    /// upcoming start within its lead is created by the system creator; default none.
    pub tournament_schedules: Vec<crate::site::tournaments::Schedule>,
}

/// The descriptors kept free by default ([`Settings::descriptor_reserve`]): what the server may
/// open after it started besides its connections. The store's pool grows to 8 connections on
/// PostgreSQL (SQLite's 4 readers, each with the database, its `-wal` and `-shm`, are open
/// from the start), SQLite opens temporary files for large sorts, a cluster node reconnects
/// to NATS, the metrics listener takes scrapes, and refusing a connection needs a descriptor
/// for the moment it is accepted; 256 is several times all of these together, and little
/// beside a production limit of 20,000 or more.
pub const DEFAULT_DESCRIPTOR_RESERVE: usize = 256;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            grace: Duration::from_secs(60),
            first_move: Duration::from_secs(30),
            heartbeat: Some(Heartbeat::default()),
            rate_per_second: 10.0,
            rate_burst: 20.0,
            chat_lines: RequestQuota::new(5, Duration::from_secs(2)),
            ended_grace: Duration::from_secs(10 * 60),
            max_ended_tables: 500,
            http_limits: HttpLimits::default(),
            trust_forwarded_for: false,
            allowed_origins: Vec::new(),
            computer_threads: computer::DEFAULT_THREADS,
            computer_pause: computer::DEFAULT_PAUSE,
            max_connections_per_address: 64,
            descriptor_reserve: DEFAULT_DESCRIPTOR_RESERVE,
            request_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(15),
            store: StoreOptions::default(),
            secure_cookies: false,
            cluster: None,
            metrics_interval: None,
            tournament_wave: Duration::from_secs(2),
            tournament_minute: Duration::from_secs(60),
            tournament_schedules: Vec::new(),
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

/// One bucket: `burst` requests at once, then one more every `period` (a zero period counts as
/// one nanosecond).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestQuota {
    /// Requests a client may make at once.
    pub burst: NonZeroU32,
    /// The time that gives one request back.
    pub period: Duration,
}

impl RequestQuota {
    /// `burst` at once (at least 1), then one every `period`.
    pub fn new(burst: u32, period: Duration) -> RequestQuota {
        RequestQuota {
            burst: NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN),
            period,
        }
    }

    pub(crate) fn quota(self) -> Quota {
        Quota::with_period(self.period.max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
            .allow_burst(self.burst)
    }
}

/// The HTTP request limits, per client address (an IPv6 client by its /64 network).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Every request under `/api/` except `GET /api/health` (default: 120 at once, then 20 per
    /// second).
    pub api: RequestQuota,
    /// `POST /api/session`, `POST /api/accounts` and `POST /api/login`, one bucket (default: 10
    /// at once, then one every 6 s).
    pub sign_in: RequestQuota,
    /// `POST /api/tables` (default: 10 at once, then one every 6 s).
    pub tables: RequestQuota,
    /// Every request under `/api/` that carries a personal API token this server knows
    /// (`Authorization: Bearer`), counted per token instead of per address: a bot's moves,
    /// streams and challenges (default: 120 at once, then 40 per second, four times a guest's
    /// WebSocket message rate, so that a bot playing many games at once from one address is
    /// not held back by the address's bucket; `docs/bots.md`, "Limits").
    pub token: RequestQuota,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            api: RequestQuota::new(120, Duration::from_millis(50)),
            sign_in: RequestQuota::new(10, Duration::from_secs(6)),
            tables: RequestQuota::new(10, Duration::from_secs(6)),
            token: RequestQuota::new(120, Duration::from_millis(25)),
        }
    }
}

impl HttpLimits {
    /// Limits no test or person reaches: a million at once and a million per second.
    pub fn unlimited() -> HttpLimits {
        let q = RequestQuota::new(1_000_000, Duration::from_micros(1));
        HttpLimits {
            api: q,
            sign_in: q,
            tables: q,
            token: q,
        }
    }
}
