//! Setting a game up over HTTP: the players' addresses, guest sessions, tables, which URL each
//! try goes through, and trying again (`--reconnect`).

use crate::settings::LoadSettings;
use crate::stats::Totals;
use crate::wire;
use chuhe_rules::Variant;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// The pause between two tries of a request or a connection (`--reconnect`).
pub(crate) const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// How long a request or a lost connection is tried again before giving up (`--reconnect`):
/// a cluster takes a dead node's tables over within about 10 s.
pub(crate) const RETRY_FOR: Duration = Duration::from_secs(30);

/// One player: its address and its session cookie.
#[derive(Clone)]
pub(crate) struct Player {
    /// The loopback address it connects from (when spreading).
    pub(crate) address: Option<IpAddr>,
    /// The `chuhe_session=...` cookie pair.
    pub(crate) cookie: String,
}

/// A request or a connection that failed: what happened, and whether trying again (through the
/// next URL) may help: no answer at all, or a 5xx status (a node going down or taking a table
/// over). A refusal (a 4xx status) is not tried again while setting a game up.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) transient: bool,
}

impl Failure {
    /// A failure without an answer from the server.
    pub(crate) fn unanswered(message: String) -> Failure {
        Failure {
            message,
            transient: true,
        }
    }

    /// A failure that trying again does not mend.
    pub(crate) fn lasting(message: String) -> Failure {
        Failure {
            message,
            transient: false,
        }
    }

    /// An answer with the HTTP status `status`.
    pub(crate) fn status(message: String, status: u16) -> Failure {
        Failure {
            message,
            transient: status >= 500,
        }
    }
}

/// The next loopback source address: 127.1.0.1, 127.1.0.2, ... (skipping `.0` and `.255`).
pub(crate) fn next_address(counter: &AtomicU32) -> IpAddr {
    let n = counter.fetch_add(1, Ordering::Relaxed);
    let (hi, lo) = (n / 254, n % 254 + 1);
    IpAddr::V4(Ipv4Addr::new(
        127,
        1 + (hi / 256) as u8,
        (hi % 256) as u8,
        lo as u8,
    ))
}

/// The URL that `seat` of game number `game` uses at its `turn`-th try (0 first, then one more
/// for every failed try and every reconnection), out of `urls` URLs: the seats of one game start
/// on different URLs (seat `i` of game `g` on `(g + i) % urls`; the table is created through
/// seat 0's), and each try moves on to the next.
pub(crate) fn url_index(urls: usize, game: usize, seat: usize, turn: usize) -> usize {
    (game + seat + turn) % urls.max(1)
}

/// An HTTP client bound to `address` (when spreading): 30 s per request, no idle connections
/// kept.
pub(crate) fn http_client(address: Option<IpAddr>) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(0);
    if let Some(a) = address {
        builder = builder.local_address(a);
    }
    builder.build().map_err(|e| format!("http client: {e}"))
}

/// A new guest session named `name` through `url`, from `address`: the player with its
/// `chuhe_session=...` cookie pair.
pub(crate) async fn new_guest(
    url: &str,
    address: Option<IpAddr>,
    name: &str,
) -> Result<Player, Failure> {
    let client = http_client(address).map_err(Failure::lasting)?;
    let response = client
        .post(format!("{url}/api/session"))
        .json(&wire::guest(name))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("session: {e}")))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        return Err(Failure::status(format!("session: http {status}"), status));
    }
    let cookie = response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("chuhe_session="))
        .ok_or_else(|| Failure::lasting("session: no chuhe_session cookie".to_owned()))?
        .to_owned();
    Ok(Player { address, cookie })
}

/// Creates a table of `variant` with the time control `(initial_ms, increment_ms)` (or untimed)
/// as `player` through `url`: its id.
pub(crate) async fn new_table(
    url: &str,
    player: &Player,
    variant: Variant,
    time: Option<(u64, u64)>,
) -> Result<String, Failure> {
    let client = http_client(player.address).map_err(Failure::lasting)?;
    let response = client
        .post(format!("{url}/api/tables"))
        .header(reqwest::header::COOKIE, &player.cookie)
        .json(&wire::table_options(variant, time))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("create table: {e}")))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        return Err(Failure::status(
            format!("create table: http {status} {body}"),
            status,
        ));
    }
    let summary: serde_json::Value = response
        .json()
        .await
        .map_err(|e| Failure::unanswered(format!("create table: {e}")))?;
    summary["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Failure::lasting("create table: no id".to_owned()))
}

/// Runs `attempt(turn)` for turn 0, 1, ...: with `--reconnect`, a transient failure is counted
/// and tried again after [`RETRY_PAUSE`] for up to [`RETRY_FOR`] (each try on the next URL, as
/// `attempt` picks it from its turn); without, the first failure is the answer.
pub(crate) async fn retrying<T, F, Fut>(
    settings: &LoadSettings,
    totals: &Totals,
    mut attempt: F,
) -> Result<T, String>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let began = Instant::now();
    let mut turn = 0;
    loop {
        match attempt(turn).await {
            Ok(v) => return Ok(v),
            Err(f) if settings.reconnect && f.transient && began.elapsed() < RETRY_FOR => {
                totals.failed_try(f.message);
                turn += 1;
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(f) => return Err(f.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seats of one game start on different URLs, the next game starts one URL further,
    /// and every try (a failed one, a reconnection) moves a seat on to the next URL.
    #[test]
    fn seats_of_a_game_use_the_urls_in_turn() {
        // Two nodes, two seats: the seats of every game sit on different nodes.
        assert_eq!(
            (0..4)
                .map(|g| (url_index(2, g, 0, 0), url_index(2, g, 1, 0)))
                .collect::<Vec<_>>(),
            [(0, 1), (1, 0), (0, 1), (1, 0)]
        );
        // Three nodes, sanguo's three seats: one seat per node; game 4's table is created
        // through node 1 (its seat 0's URL).
        let seats: Vec<usize> = (0..3).map(|seat| url_index(3, 4, seat, 0)).collect();
        assert_eq!(seats, [1, 2, 0]);
        // Reconnecting: seat 0 of game 4 tries nodes 2, 0, 1, 2, ...
        let tries: Vec<usize> = (1..5).map(|turn| url_index(3, 4, 0, turn)).collect();
        assert_eq!(tries, [2, 0, 1, 2]);
        // One URL (or one given once): always it.
        assert!((0..5).all(|turn| url_index(1, 7, 2, turn) == 0));
    }

    #[test]
    fn failures_worth_another_try() {
        assert!(Failure::unanswered("connect: refused".to_owned()).transient);
        assert!(Failure::status("session: http 503".to_owned(), 503).transient);
        assert!(!Failure::status("session: http 429".to_owned(), 429).transient);
        assert!(!Failure::lasting("bind 127.1.0.1: in use".to_owned()).transient);
    }

    /// The addresses run through 127.1.0.1 ... 127.1.0.254, then 127.1.1.1, ...: never a `.0`
    /// or a `.255`.
    #[test]
    fn loopback_addresses_in_turn() {
        let counter = AtomicU32::new(0);
        let first: Vec<IpAddr> = (0..256).map(|_| next_address(&counter)).collect();
        assert_eq!(first[0], IpAddr::V4(Ipv4Addr::new(127, 1, 0, 1)));
        assert_eq!(first[253], IpAddr::V4(Ipv4Addr::new(127, 1, 0, 254)));
        assert_eq!(first[254], IpAddr::V4(Ipv4Addr::new(127, 1, 1, 1)));
        assert_eq!(first[255], IpAddr::V4(Ipv4Addr::new(127, 1, 1, 2)));
        let counter = AtomicU32::new(254 * 256);
        assert_eq!(
            next_address(&counter),
            IpAddr::V4(Ipv4Addr::new(127, 2, 0, 1))
        );
    }
}
