//! `chuhe serve`: logging setup and a runtime around `chuhe_server::run`.

use crate::cli::CliError;
use chuhe_server::cluster::nats_auth::{read_secret, NatsAuth, NatsAuthError, NatsTarget, NatsTls};
use std::io::IsTerminal;
use std::path::PathBuf;

/// The limits of `chuhe serve` against hanging databases, crowds of connections and stolen
/// cookies (docs/security.md).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct Limits {
    /// Longest wait for the database, in milliseconds: each statement, each write, each
    /// connection. A move that waits longer is answered "the database did not answer in time".
    #[arg(long, env = "CHUHE_DB_TIMEOUT_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub db_timeout_ms: u64,
    /// Longest wait of a group commit for more writes to join it, in milliseconds (0: none).
    /// Only while writes come faster than one per this wait (at 5 ms: 200 a second, some 450
    /// games at human pace): larger groups, fewer fsyncs and less processor time per move, for
    /// up to this much more before each answer (docs/performance.md, "Waiting for a group to
    /// fill": at 5,000 games, -31 % processor time per move for +5 ms).
    #[arg(long, env = "CHUHE_COMMIT_DELAY_MS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=50))]
    pub commit_delay_ms: u64,
    /// Most connections open at once from one client address (an IPv6 client by its /64);
    /// beyond, a connection is answered 429 and closed.
    #[arg(long, env = "CHUHE_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_address: u64,
    /// Open files kept free for the database and the server's own work under the process's
    /// open-file limit (RLIMIT_NOFILE): connections beyond the limit less this reserve (and
    /// what was open at the start) are answered 503 and closed.
    #[arg(long, env = "CHUHE_DESCRIPTOR_RESERVE", default_value_t = chuhe_server::site::DEFAULT_DESCRIPTOR_RESERVE as u64, value_parser = clap::value_parser!(u64).range(16..=1_000_000))]
    pub descriptor_reserve: u64,
    /// Longest time a client may take to send a request's head, and again its body, in
    /// seconds (slowloris, slow bodies); `--header-timeout-secs` is its older name.
    #[arg(long, alias = "header-timeout-secs", env = "CHUHE_REQUEST_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// Longest time the server takes to stop on SIGTERM or SIGINT, in seconds; past it, what
    /// is left (saving clocks, closing the database) is abandoned with a warning.
    #[arg(long, env = "CHUHE_SHUTDOWN_TIMEOUT_SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub shutdown_timeout_secs: u64,
    /// Mark the session cookie Secure (sent over HTTPS only): set it when the site is served
    /// over TLS.
    #[arg(long, env = "CHUHE_SECURE_COOKIES")]
    pub secure_cookies: bool,
    /// How long a session lasts after its last use, in days; expired sessions and the guests
    /// left without one are removed every hour.
    #[arg(long, env = "CHUHE_SESSION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3650))]
    pub session_days: u64,
}

/// How the server reports on itself: its log lines and its metrics (docs/operations.md).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct Operations {
    /// Log lines on standard error: `text` for people, or `json`, one object a line with the
    /// ids of the request, WebSocket connection and table they belong to, for a log collector.
    /// RUST_LOG filters them (default `info`).
    #[arg(long, env = "CHUHE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Address of a second listener that serves the metrics at /metrics (Prometheus text
    /// format), e.g. 127.0.0.1:9090; off when absent. Never the public port: whoever reaches
    /// this address reads the metrics, so keep it on loopback or a private network.
    #[arg(long, env = "CHUHE_METRICS_BIND", value_name = "ADDR")]
    pub metrics_bind: Option<String>,
}

/// The histogram buckets: seconds from half a millisecond to ten seconds.
const SECONDS_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The buckets of the writes per group commit: powers of two up to the writer's most.
const GROUP_BUCKETS: [f64; 10] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];

/// Installs the Prometheus recorder as the process's metrics recorder: its handle renders the
/// text of /metrics.
///
/// # Errors
/// A recorder is installed already, or a bucket list is empty.
fn install_metrics(
) -> Result<metrics_exporter_prometheus::PrometheusHandle, metrics_exporter_prometheus::BuildError>
{
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &SECONDS_BUCKETS)?
        .set_buckets_for_metric(
            Matcher::Full(chuhe_server::telemetry::STORE_GROUP_SIZE.to_owned()),
            &GROUP_BUCKETS,
        )?
        .install_recorder()?;
    chuhe_server::telemetry::describe();
    Ok(handle)
}

/// Serves `GET /metrics` from `handle` on `listener` (and runs the recorder's upkeep), for as
/// long as the runtime runs.
fn spawn_metrics(
    listener: tokio::net::TcpListener,
    handle: metrics_exporter_prometheus::PrometheusHandle,
) {
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(5));
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let text = handle.render();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    text,
                )
            }
        }),
    );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!(error = %e, "the metrics listener stopped");
        }
    });
}

/// The form of the log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text per event (coloured on a terminal).
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `fields` (with `message`),
    /// `span` (the innermost) and `spans` (all, outermost first).
    Json,
}

/// Installs the global log subscriber: `format` lines on standard error, filtered by RUST_LOG
/// (default `info`, with memory-serve's line per embedded web file at start left out).
fn init_logs(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,memory_serve=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .try_init(),
    };
}

/// Joining a cluster of `chuhe serve` nodes on one PostgreSQL database and one NATS
/// (docs/cluster.md).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ClusterArgs {
    /// NATS server of a cluster, nats://HOST:PORT or tls://HOST:PORT (JetStream on): this
    /// server becomes one node of a site served by several (the database must be PostgreSQL).
    /// Without it, a single server. A URL with credentials (nats://USER:PASSWORD@HOST:PORT)
    /// belongs in CHUHE_NATS, not on the command line.
    #[arg(long, env = "CHUHE_NATS", hide_env_values = true)]
    pub nats: Option<String>,
    /// This node's name in the cluster: letters, digits, '-' and '_' (default: the host name).
    #[arg(long, env = "CHUHE_NODE_ID", requires = "nats")]
    pub node_id: Option<String>,
    /// First token of the cluster's NATS subjects and name of its lobby bucket, so that several
    /// sites can share one NATS.
    #[arg(
        long,
        env = "CHUHE_NATS_PREFIX",
        default_value = "chuhe",
        requires = "nats"
    )]
    pub nats_prefix: String,
    /// How long a node's lease lasts without renewal, in milliseconds: a dead node's tables
    /// are taken over this long after it died (plus about a second).
    #[arg(long, env = "CHUHE_LEASE_MS", default_value_t = 5000, requires = "nats",
          value_parser = clap::value_parser!(u64).range(1000..=600_000))]
    pub lease_ms: u64,
    /// NATS user name (nats-server `authorization { user }`); its password comes from the
    /// environment variable CHUHE_NATS_PASSWORD or from --nats-password-file, never from the
    /// command line. Credentials in the URL (nats://USER:PASSWORD@HOST:PORT) work too.
    #[arg(long, env = "CHUHE_NATS_USER", requires = "nats", value_name = "USER")]
    pub nats_user: Option<String>,
    /// File holding the password of --nats-user (its final line break is ignored).
    #[arg(
        long,
        env = "CHUHE_NATS_PASSWORD_FILE",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_password_file: Option<PathBuf>,
    /// File holding a NATS token (`authorization { token }`); or the token in the environment
    /// variable CHUHE_NATS_TOKEN.
    #[arg(
        long,
        env = "CHUHE_NATS_TOKEN_FILE",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_token_file: Option<PathBuf>,
    /// File holding this node's NKey user seed (SU...); the NATS server lists its public key.
    #[arg(
        long,
        env = "CHUHE_NATS_NKEY_FILE",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_nkey_file: Option<PathBuf>,
    /// NATS credentials file (.creds: a user JWT and its seed), for a NATS in operator mode.
    #[arg(long, env = "CHUHE_NATS_CREDS", requires = "nats", value_name = "FILE")]
    pub nats_creds: Option<PathBuf>,
    /// PEM file of the certificate authorities of the NATS server's certificate: the
    /// connection then uses TLS (as does a tls:// URL) and checks the server's certificate
    /// against them (else against the system's).
    #[arg(
        long,
        env = "CHUHE_NATS_TLS_CA",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_tls_ca: Option<PathBuf>,
    /// PEM file of this node's TLS client certificate, for a NATS that verifies clients
    /// (`tls { verify: true }`); with --nats-tls-key.
    #[arg(
        long,
        env = "CHUHE_NATS_TLS_CERT",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_tls_cert: Option<PathBuf>,
    /// PEM file of the private key of --nats-tls-cert.
    #[arg(
        long,
        env = "CHUHE_NATS_TLS_KEY",
        requires = "nats",
        value_name = "FILE"
    )]
    pub nats_tls_key: Option<PathBuf>,
}

/// A NATS error as an input error (status 2).
fn nats_error(e: &NatsAuthError) -> CliError {
    CliError::input(e.to_string())
}

/// One secret from a file or an environment variable, `None` when neither gives it.
///
/// # Errors
/// An input error when both give it or the file cannot be read or is empty.
fn secret(
    flag: &'static str,
    file: Option<&PathBuf>,
    variable: &str,
    from_env: Option<String>,
) -> Result<Option<String>, CliError> {
    match (file, from_env) {
        (Some(_), Some(_)) => Err(CliError::input(format!(
            "{variable} and {flag} both give the secret: use one"
        ))),
        (Some(path), None) => read_secret(flag, path)
            .map(Some)
            .map_err(|e| nats_error(&e)),
        (None, Some(s)) if s.is_empty() => {
            Err(CliError::input(format!("{variable} is set but empty")))
        }
        (None, s) => Ok(s),
    }
}

impl ClusterArgs {
    /// How the node authenticates to NATS: at most one of a user and password, a token, an
    /// NKey seed file and a credentials file. `password_env` and `token_env` are the values of
    /// CHUHE_NATS_PASSWORD and CHUHE_NATS_TOKEN.
    ///
    /// # Errors
    /// An input error (one line, no secret) for two methods at once, a password without a
    /// user (or the reverse), a secret given twice, or a secret file that cannot be read.
    fn auth(
        &self,
        password_env: Option<String>,
        token_env: Option<String>,
    ) -> Result<NatsAuth, CliError> {
        let password = secret(
            "--nats-password-file",
            self.nats_password_file.as_ref(),
            "CHUHE_NATS_PASSWORD",
            password_env,
        )?;
        let token = secret(
            "--nats-token-file",
            self.nats_token_file.as_ref(),
            "CHUHE_NATS_TOKEN",
            token_env,
        )?;
        let given: Vec<&str> = [
            (self.nats_user.is_some(), "--nats-user"),
            (
                token.is_some(),
                "a token (--nats-token-file, CHUHE_NATS_TOKEN)",
            ),
            (self.nats_nkey_file.is_some(), "--nats-nkey-file"),
            (self.nats_creds.is_some(), "--nats-creds"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if given.len() > 1 {
            return Err(CliError::input(format!(
                "give one way to authenticate to NATS, not {}",
                given.join(" and ")
            )));
        }
        if let Some(user) = &self.nats_user {
            let Some(password) = password else {
                return Err(CliError::input(
                    "--nats-user needs a password: CHUHE_NATS_PASSWORD or --nats-password-file"
                        .to_owned(),
                ));
            };
            return Ok(NatsAuth::UserPassword {
                user: user.clone(),
                password,
            });
        }
        if password.is_some() {
            return Err(CliError::input(
                "a NATS password (CHUHE_NATS_PASSWORD, --nats-password-file) needs --nats-user"
                    .to_owned(),
            ));
        }
        Ok(if let Some(token) = token {
            NatsAuth::Token(token)
        } else if let Some(path) = &self.nats_nkey_file {
            NatsAuth::NkeyFile(path.clone())
        } else if let Some(path) = &self.nats_creds {
            NatsAuth::CredentialsFile(path.clone())
        } else {
            NatsAuth::None
        })
    }

    /// The cluster settings, when `--nats` is given.
    ///
    /// # Errors
    /// An input error for a database that is not PostgreSQL, bad NATS credentials or TLS
    /// settings ([`ClusterArgs::auth`], [`NatsTarget::new`]).
    fn settings(
        &self,
        database: &str,
    ) -> Result<Option<chuhe_server::cluster::ClusterSettings>, CliError> {
        let Some(nats) = &self.nats else {
            return Ok(None);
        };
        chuhe_server::store::Backend::check_cluster(database)
            .map_err(|e| CliError::input(format!("--nats: {e}: --database postgres://...")))?;
        let name = match &self.node_id {
            Some(n) => n.clone(),
            None => hostname(),
        };
        let mut settings = chuhe_server::cluster::ClusterSettings::new(nats, &name);
        settings.prefix = self.nats_prefix.clone();
        settings.lease = std::time::Duration::from_millis(self.lease_ms);
        settings.auth = self.auth(
            std::env::var("CHUHE_NATS_PASSWORD").ok(),
            std::env::var("CHUHE_NATS_TOKEN").ok(),
        )?;
        settings.tls = NatsTls {
            ca: self.nats_tls_ca.clone(),
            cert: self.nats_tls_cert.clone(),
            key: self.nats_tls_key.clone(),
        };
        // The files and the URL are checked here, before the database is opened: a mistake
        // stops the node with one line.
        NatsTarget::new(nats, &settings.auth, &settings.tls).map_err(|e| nats_error(&e))?;
        settings
            .check()
            .map_err(|e| CliError::input(e.to_string()))?;
        Ok(Some(settings))
    }
}

/// The machine's host name as a node name (letters, digits, '-' and '_' kept), or `node`.
fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    if name.is_empty() {
        "node".to_owned()
    } else {
        name
    }
}

impl Limits {
    /// These limits in the server's settings.
    fn apply(&self, settings: &mut chuhe_server::Settings) {
        use std::time::Duration;
        let db = Duration::from_millis(self.db_timeout_ms);
        settings.store.statement_timeout = db;
        settings.store.acquire_timeout = db;
        settings.store.commit_delay = Duration::from_millis(self.commit_delay_ms);
        settings.store.session_lifetime = Duration::from_secs(self.session_days * 24 * 3600);
        settings.max_connections_per_address =
            usize::try_from(self.max_connections_per_address).unwrap_or(usize::MAX);
        settings.descriptor_reserve =
            usize::try_from(self.descriptor_reserve).unwrap_or(usize::MAX);
        settings.request_timeout = Duration::from_secs(self.request_timeout_secs);
        settings.shutdown_timeout = Duration::from_secs(self.shutdown_timeout_secs);
        settings.secure_cookies = self.secure_cookies;
    }
}

/// tokio's variable for its number of worker threads, which `chuhe serve` honours when it is
/// set ([`default_worker_threads`] otherwise).
const WORKER_THREADS_VAR: &str = "TOKIO_WORKER_THREADS";

/// The worker threads of `chuhe serve`'s runtime for the database at `database` unless
/// `TOKIO_WORKER_THREADS` says otherwise. On SQLite: one less than the processors the process
/// may use, and at least one, because the store's writer is a thread of its own (sqlx's SQLite
/// thread, with the checkpointer) that takes a large share of a processor under load, and a
/// worker per remaining processor saves the workers waking each other for every few messages:
/// measured at 2,500 and 5,000 games on two processors, 6 to 11 % less server processor time
/// per move with one worker than with two, at the same acknowledgement times. On PostgreSQL
/// the database's work is another process's and the node's own is all on the workers: one per
/// processor (tokio's default), as one worker there gave the same processor time per move and
/// a longer tail (docs/performance.md, "One worker thread on two processors").
fn default_worker_threads(database: &str) -> usize {
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    if database.starts_with("postgres") {
        processors
    } else {
        processors.saturating_sub(1).max(1)
    }
}

/// Runs the game server on `bind` with the database at `database` until SIGINT or SIGTERM,
/// with `settings` (the proxy, origins and computer threads), `ops` (logs, metrics), `limits`
/// (waits and connections) and `cluster` (NATS). Logs go to standard error; `RUST_LOG` filters
/// them (default `info`).
pub fn serve(
    bind: &str,
    database: &str,
    mut settings: chuhe_server::Settings,
    ops: &Operations,
    limits: &Limits,
    cluster: &ClusterArgs,
) -> Result<(), CliError> {
    let cluster = cluster.settings(database)?;
    if ops.metrics_bind.as_deref() == Some(bind) {
        return Err(CliError::input(
            "--metrics-bind: the metrics need an address of their own, not --bind's",
        ));
    }
    init_logs(ops.log_format);
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if std::env::var_os(WORKER_THREADS_VAR).is_none() {
        runtime.worker_threads(default_worker_threads(database));
    }
    let runtime = runtime.enable_all().build()?;
    limits.apply(&mut settings);
    settings.store.cluster = cluster.is_some();
    settings.cluster = cluster;
    let metrics = match &ops.metrics_bind {
        Some(address) => {
            let handle = install_metrics().map_err(|e| CliError {
                message: format!("cannot set up the metrics: {e}"),
                status: 1,
            })?;
            settings.metrics_interval = Some(std::time::Duration::from_secs(1));
            Some((address, handle))
        }
        None => None,
    };
    let served = runtime.block_on(async {
        if let Some((address, handle)) = metrics {
            let listener = tokio::net::TcpListener::bind(address.as_str())
                .await
                .map_err(|e| {
                    chuhe_server::error::ServerError::Config(format!(
                        "--metrics-bind: cannot listen on {address}: {e}"
                    ))
                })?;
            if let Ok(at) = listener.local_addr() {
                tracing::info!("metrics on http://{at}/metrics");
            }
            spawn_metrics(listener, handle);
        }
        chuhe_server::run(bind, database, settings).await
    });
    // Searches still running on blocking threads are not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map_err(|e| match e {
        // A bad address or database URL is bad input: status 2.
        chuhe_server::error::ServerError::Config(m) => CliError::input(m),
        // A cluster node whose lease lapsed: EX_TEMPFAIL, start it again.
        chuhe_server::error::ServerError::LeaseLapsed(m) => CliError {
            message: m,
            status: chuhe_server::cluster::LEASE_LOST_EXIT,
        },
        e => CliError {
            message: e.to_string(),
            status: 1,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cluster flags as parsed from `args` (after `chuhe serve --nats nats://h:4222`).
    fn cluster(args: &[&str]) -> ClusterArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            cluster: ClusterArgs,
        }
        let base = ["serve", "--nats", "nats://h:4222"];
        <Cli as clap::Parser>::try_parse_from(base.iter().chain(args))
            .unwrap()
            .cluster
    }

    #[test]
    fn one_nats_method_at_most() {
        for variable in [
            "CHUHE_NATS_USER",
            "CHUHE_NATS_TOKEN_FILE",
            "CHUHE_NATS_NKEY_FILE",
        ] {
            assert!(std::env::var_os(variable).is_none(), "{variable} is set");
        }
        let none = cluster(&[]);
        assert_eq!(none.auth(None, None).unwrap(), NatsAuth::None);
        let user = cluster(&["--nats-user", "chuhe"]);
        assert_eq!(
            user.auth(Some("pw".to_owned()), None).unwrap(),
            NatsAuth::UserPassword {
                user: "chuhe".to_owned(),
                password: "pw".to_owned()
            }
        );
        assert_eq!(
            user.auth(None, None).unwrap_err().message,
            "--nats-user needs a password: CHUHE_NATS_PASSWORD or --nats-password-file"
        );
        let e = user
            .auth(Some("pw".to_owned()), Some("tok".to_owned()))
            .unwrap_err();
        assert_eq!(e.status, 2);
        assert_eq!(
            e.message,
            "give one way to authenticate to NATS, not --nats-user and a token \
             (--nats-token-file, CHUHE_NATS_TOKEN)"
        );
        assert_eq!(
            none.auth(None, Some("tok".to_owned())).unwrap(),
            NatsAuth::Token("tok".to_owned())
        );
        assert_eq!(
            none.auth(None, Some(String::new())).unwrap_err().message,
            "CHUHE_NATS_TOKEN is set but empty"
        );
        let nkey = cluster(&["--nats-nkey-file", "/etc/chuhe/node.nk"]);
        assert_eq!(
            nkey.auth(None, None).unwrap(),
            NatsAuth::NkeyFile(PathBuf::from("/etc/chuhe/node.nk"))
        );
        let both = cluster(&["--nats-nkey-file", "a.nk", "--nats-creds", "b.creds"]);
        assert_eq!(
            both.auth(None, None).unwrap_err().message,
            "give one way to authenticate to NATS, not --nats-nkey-file and --nats-creds"
        );
        let creds = cluster(&["--nats-creds", "b.creds"]);
        assert_eq!(
            creds.auth(None, None).unwrap(),
            NatsAuth::CredentialsFile(PathBuf::from("b.creds"))
        );
    }

    #[test]
    fn nats_settings_need_nats() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            cluster: ClusterArgs,
        }
        assert!(std::env::var_os("CHUHE_NATS").is_none());
        let e = <Cli as clap::Parser>::try_parse_from(["serve", "--nats-user", "chuhe"])
            .err()
            .unwrap();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
    }
}
