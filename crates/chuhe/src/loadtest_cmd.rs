//! `chuhe loadtest`: many games at once against a running `chuhe serve`, their latencies, and a
//! check that every acknowledged move was stored. The load client is the `chuhe-load` crate;
//! this module turns its failures into the command's exit statuses (`docs/performance.md`).

use crate::cli::CliError;
use chuhe_load::LoadError;

pub use chuhe_load::{base_url, LoadSettings};

/// Bad input (a `--url`, an unreachable server, a `--server-pid`) exits with status 2; a failed
/// run (errors, a move not stored exactly once) or a failed write with status 1.
impl From<LoadError> for CliError {
    fn from(e: LoadError) -> Self {
        CliError {
            message: e.to_string(),
            status: if e.is_input() { 2 } else { 1 },
        }
    }
}

/// Runs the load test and prints its report to `out`.
///
/// # Errors
/// As [`chuhe_load::run`], with its exit status.
pub fn run(settings: LoadSettings, out: &mut impl std::io::Write) -> Result<(), CliError> {
    Ok(chuhe_load::run(settings, out)?)
}
