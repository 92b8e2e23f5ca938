//! `chuhe serve`: logging setup and a runtime around `chuhe_server::run`.

use crate::cli::CliError;

/// Runs the game server on `bind` with the database at `database` until SIGINT or SIGTERM;
/// with `trust_forwarded_for`, requests from loopback are rate-limited by their
/// `X-Forwarded-For` address. Logs go to standard error; `RUST_LOG` filters them (default
/// `info`).
pub fn serve(bind: &str, database: &str, trust_forwarded_for: bool) -> Result<(), CliError> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(chuhe_server::run(
            bind,
            database,
            chuhe_server::Settings {
                trust_forwarded_for,
                ..chuhe_server::Settings::default()
            },
        ))
        .map_err(|e| match e {
            // A bad address or database URL is bad input: status 2.
            chuhe_server::error::ServerError::Config(m) => CliError::input(m),
            e => CliError {
                message: e.to_string(),
                status: 1,
            },
        })
}
