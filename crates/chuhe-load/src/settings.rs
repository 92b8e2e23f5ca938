//! What a load test is asked to do.

use crate::error::LoadError;
use chuhe_rules::Variant;
use std::time::Duration;

/// The server's base URL as given by `--url`, without a trailing slash.
///
/// ```
/// assert_eq!(chuhe_load::base_url("http://127.0.0.1:8080/").unwrap(), "http://127.0.0.1:8080");
/// assert!(chuhe_load::base_url("http://127.0.0.1:8080/api").is_err());
/// ```
///
/// # Errors
/// [`LoadError::Input`] for anything but `http://HOST[:PORT]` (no path: the routes are added
/// here).
pub fn base_url(url: &str) -> Result<String, LoadError> {
    let bad = || {
        LoadError::Input(format!(
            "bad --url {url:?}: expected the server's address as http://HOST:PORT"
        ))
    };
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let authority = rest.trim_end_matches('/');
    if authority.is_empty() || authority.contains('/') || authority.contains(char::is_whitespace) {
        return Err(bad());
    }
    Ok(format!("http://{authority}"))
}

/// What `chuhe loadtest` was asked to do.
#[derive(Debug, Clone)]
pub struct LoadSettings {
    /// The servers' base URLs, `http://HOST:PORT` (the nodes of one cluster, or one server,
    /// possibly more than once): seat `i` of game `g` uses `urls[(g + i) % len]`, the table is
    /// created through its seat 0's, and the stored events are read through any of them.
    pub urls: Vec<String>,
    /// Games played at the same time.
    pub games: usize,
    /// How long games are started and moves sent; games still running then are left as they
    /// are (their acknowledged moves are checked all the same).
    pub duration: Duration,
    /// Think time per move, drawn uniformly from `min..=max` milliseconds; `(0, 0)` moves as
    /// soon as the legal moves arrive (closed loop).
    pub think_ms: (u64, u64),
    /// The variants, used in turn by the games (game `i` plays `variants[i % len]`); not empty.
    pub variants: Vec<Variant>,
    /// The tables' time control as `(initial_ms, increment_ms)`, or untimed.
    pub time: Option<(u64, u64)>,
    /// Whether each player connects from its own loopback address.
    pub spread: bool,
    /// The server's process ids (the nodes of a cluster on this machine), to read their
    /// memory (`/proc/PID/status`, `VmRSS`, summed) and processor time (each, and the sum).
    pub server_pids: Vec<u32>,
    /// The database server's main process (PostgreSQL's postmaster), whose processor time and
    /// that of its children (the backends) is reported per move.
    pub db_pid: Option<u32>,
    /// The URL every table is created through (in a cluster, the node that creates a table
    /// owns it: every table on one node, the seats still over `urls`); `None`: seat 0's.
    pub table_url: Option<String>,
    /// Seed of the move choices and think times.
    pub seed: u64,
    /// Latencies of moves sent in the first `warmup` of the run (sessions, tables and
    /// connections being set up) are left out of the percentiles.
    pub warmup: Duration,
    /// Whether a lost connection is made again (through the next URL, with `?since=` the last
    /// version seen) and the game goes on, and a request that got no answer (or a 5xx) is tried
    /// again; without it a lost connection ends its game with an error.
    pub reconnect: bool,
    /// Games against the computer besides the `games` between people: a guest at seat 0, the
    /// computer at `computer_level` in the other seats; reported apart (see the crate's text).
    pub computer_games: usize,
    /// The level (1–8) of the computer seats.
    pub computer_level: u8,
    /// Instead of the games above: players in one arena ([`crate::ArenaLoad`]), their waves
    /// as the server reports them.
    pub arena: Option<crate::ArenaLoad>,
    /// Connections without a session that watch the table of the run's first game (the
    /// fan-out spread is reported: `crowd.rs`).
    pub spectators: usize,
    /// Connections without a session opened before the games, watching an open table where
    /// nothing happens, held to the end (the server's memory per connection is reported).
    pub idle: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_is_scheme_and_authority() {
        assert_eq!(base_url("http://localhost").unwrap(), "http://localhost");
        assert_eq!(
            base_url("http://127.0.0.1:8080//").unwrap(),
            "http://127.0.0.1:8080"
        );
        for bad in [
            "127.0.0.1:8080",
            "https://example.org",
            "http://",
            "http:///",
            "http://host/path",
            "http://a host",
        ] {
            let e = base_url(bad).unwrap_err();
            assert!(e.is_input(), "{bad}");
            assert_eq!(
                e.to_string(),
                format!("bad --url {bad:?}: expected the server's address as http://HOST:PORT")
            );
        }
    }
}
