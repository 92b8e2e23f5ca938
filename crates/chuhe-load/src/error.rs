//! Why a load test did not pass.

use std::fmt;

/// Why [`crate::run`] (or [`crate::base_url`]) failed. `chuhe loadtest` exits with status 2 for
/// [`LoadError::Input`] (the command line's status for bad input, `docs/spec/cli.md`) and 1 for
/// the others.
#[derive(Debug)]
pub enum LoadError {
    /// Bad input, found before any game starts: a `--url` that is not `http://HOST[:PORT]`, no
    /// URL at all, a server that does not answer `GET /api/health` (or answers it with an error
    /// status), a `--server-pid` with no process to measure.
    Input(String),
    /// The run itself failed: a table's stored events could not be read back, an acknowledged
    /// move is missing from the store or doubled in it, or the games met errors (counted in the
    /// report, which was written before).
    Failed(String),
    /// The runtime could not be started, or the report could not be written.
    Io(std::io::Error),
}

impl LoadError {
    /// Whether the fault is in what the load test was given ([`LoadError::Input`]).
    pub fn is_input(&self) -> bool {
        matches!(self, LoadError::Input(_))
    }
}

/// One line, lower case: the message itself, or `i/o error: ...`.
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Input(message) | LoadError::Failed(message) => f.write_str(message),
            LoadError::Io(e) => write!(f, "i/o error: {e}"),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self {
        LoadError::Io(e)
    }
}
