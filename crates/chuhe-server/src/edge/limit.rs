//! The HTTP request-rate limits: one bucket per client address and class of route, kept by
//! `governor` (GCRA, the arithmetic of a token bucket). Every request under `/api/` but the
//! health check spends from the `api` bucket; signing in and creating tables also spend from
//! their own, smaller buckets. Over a limit the answer is 429 `rate_limited` with
//! `Retry-After`. A request with a personal API token this server knows (a bot's) spends from
//! its token's bucket instead of its address's ([`TokenLimiter`]); on the routes in lichess's
//! shapes a refusal is lichess's `{"error": "..."}`, saying why and when to retry, with
//! `Retry-After`. The WebSocket's messages have their own limit per connection (`ws.rs`), and
//! chat lines one per person over all of their connections ([`crate::Settings::chat_lines`]).
//!
//! It also keeps the chat budget per person (`ChatLimiter`), the open connections per
//! address (`ConnectionCounter`) and the client's address behind a trusted proxy
//! ([`client_ip`]).

use crate::error::ServerError;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, RateLimiter};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Every this many limited requests, the buckets of quiet clients are forgotten. (Counted in
/// requests, not on a timer: a periodic timer would make a paused test clock race ahead.)
const FORGET_EVERY: u64 = 4096;

pub use crate::site::{HttpLimits, RequestQuota};

/// The buckets of every client.
pub(crate) struct HttpLimiter {
    api: DefaultKeyedRateLimiter<IpAddr>,
    sign_in: DefaultKeyedRateLimiter<IpAddr>,
    tables: DefaultKeyedRateLimiter<IpAddr>,
    trust_forwarded_for: bool,
    /// Requests checked so far.
    checked: AtomicU64,
}

impl HttpLimiter {
    pub(crate) fn new(limits: HttpLimits, trust_forwarded_for: bool) -> HttpLimiter {
        HttpLimiter {
            api: RateLimiter::keyed(limits.api.quota()),
            sign_in: RateLimiter::keyed(limits.sign_in.quota()),
            tables: RateLimiter::keyed(limits.tables.quota()),
            trust_forwarded_for,
            checked: AtomicU64::new(0),
        }
    }

    /// Forgets the clients whose buckets are full again (they would start full anyway).
    fn forget_idle_clients(&self) {
        for limiter in [&self.api, &self.sign_in, &self.tables] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }

    /// Spends one request of `client` on `route`; `Err` with the time until the next one is
    /// allowed.
    fn check(&self, client: IpAddr, method: &Method, path: &str) -> Result<(), Duration> {
        if path == "/api/health" || !path.starts_with("/api/") {
            return Ok(());
        }
        let class = match (method, path) {
            (&Method::POST, "/api/session" | "/api/accounts" | "/api/login") => Some(&self.sign_in),
            (&Method::POST, "/api/tables") => Some(&self.tables),
            _ => None,
        };
        if self.checked.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            self.forget_idle_clients();
        }
        for limiter in std::iter::once(&self.api).chain(class) {
            if let Err(not_until) = limiter.check_key(&client) {
                return Err(not_until.wait_time_from(DefaultClock::default().now()));
            }
        }
        Ok(())
    }
}

/// How long the limiter trusts that a token is live after the store said so; a revoked token
/// is refused by the routes at once anyway (`ApiUser`), this only decides its bucket.
const TOKEN_KNOWN_FOR: Duration = Duration::from_secs(60);

/// The buckets of personal API tokens, keyed by the token's digest (what the store keeps).
/// A request carrying a token spends from its token's bucket, not its address's, once the
/// store has said the token is live, which it is asked at most once a minute per token
/// ([`TokenLimiter::learn`]); until then, and for an unknown token, the request is counted by
/// its address like any other, so inventing tokens wins nothing.
pub(crate) struct TokenLimiter {
    requests: DefaultKeyedRateLimiter<String>,
    quota: RequestQuota,
    /// The digests the store said were live, and when it said so.
    known: std::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>,
    /// Requests checked so far.
    checked: AtomicU64,
}

impl TokenLimiter {
    pub(crate) fn new(quota: RequestQuota) -> TokenLimiter {
        TokenLimiter {
            requests: RateLimiter::keyed(quota.quota()),
            quota,
            known: std::sync::Mutex::new(std::collections::HashMap::new()),
            checked: AtomicU64::new(0),
        }
    }

    /// Whether the store said, less than a minute ago, that the token of `digest` is live.
    fn is_known(&self, digest: &str) -> bool {
        let at = self.known.lock().ok().and_then(|k| k.get(digest).copied());
        at.is_some_and(|at| at.elapsed() < TOKEN_KNOWN_FOR)
    }

    /// Asks the store whether the token of `digest` is live, and remembers the answer for a
    /// minute (a failing store: not live). Called only for a request the address's bucket let
    /// through, so inventing tokens costs the store nothing beyond the address's rate.
    async fn learn(&self, digest: &str, site: &crate::site::AppState) {
        let live = matches!(site.store().token_owner(digest).await, Ok(Some(_)));
        if let Ok(mut known) = self.known.lock() {
            if live {
                known.insert(digest.to_owned(), std::time::Instant::now());
            } else {
                known.remove(digest);
            }
        }
    }

    /// Spends one request of the token of `digest`; `Err` with the time until the next one.
    fn check(&self, digest: &str) -> Result<(), Duration> {
        if self.checked.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            self.requests.retain_recent();
            self.requests.shrink_to_fit();
            if let Ok(mut known) = self.known.lock() {
                known.retain(|_, at| at.elapsed() < TOKEN_KNOWN_FOR);
            }
        }
        self.requests
            .check_key(&digest.to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Why a token's request is refused: the limit in words and the wait, e.g. `too many
    /// requests with this API token (120 at once, then 40 per second): retry in 1 s`.
    fn refusal(&self, retry_after_secs: u64) -> String {
        format!(
            "too many requests with this API token ({}): retry in {retry_after_secs} s",
            describe(self.quota)
        )
    }
}

/// A quota in words: `120 at once, then 40 per second`, or `then one every 6 s` for a period
/// of a second or more.
fn describe(quota: RequestQuota) -> String {
    let period = quota.period.max(Duration::from_nanos(1));
    let then = if period < Duration::from_secs(1) {
        let per_second = (1e9 / period.as_nanos() as f64).round();
        format!("{per_second} per second")
    } else if period.subsec_nanos() == 0 {
        format!("one every {} s", period.as_secs())
    } else {
        format!("one every {:.1} s", period.as_secs_f64())
    };
    format!("{} at once, then {then}", quota.burst)
}

/// Whether `path` is one of the routes in lichess's shapes (`docs/bots.md`), whose refusals are
/// lichess's `{"error": "..."}`.
pub(crate) fn is_lichess_route(path: &str) -> bool {
    matches!(
        path,
        "/api/account" | "/api/token" | "/api/token/test" | "/api/stream/event"
    ) || ["/api/challenge/", "/api/bot/", "/api/board/"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
}

/// Whole seconds of `wait`, rounded up.
fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// A 429 refusal: on a route in lichess's shapes `{"error": why}`, elsewhere the server's own
/// body (`rate_limited`); `Retry-After` either way.
fn too_many(lichess: bool, why: String, retry_after_secs: u64) -> Response {
    if !lichess {
        return ServerError::TooManyRequests { retry_after_secs }.into_response();
    }
    let mut response =
        super::extract::LichessError::new(axum::http::StatusCode::TOO_MANY_REQUESTS, why)
            .into_response();
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from(retry_after_secs),
    );
    response
}

/// The chat lines of every person, counted by player id over all of the person's connections
/// to this node (a cluster's nodes count apart: a person connected to three nodes has three
/// budgets).
pub(crate) struct ChatLimiter {
    lines: DefaultKeyedRateLimiter<String>,
    /// Lines checked so far.
    checked: AtomicU64,
}

impl ChatLimiter {
    pub(crate) fn new(quota: RequestQuota) -> ChatLimiter {
        ChatLimiter {
            lines: RateLimiter::keyed(quota.quota()),
            checked: AtomicU64::new(0),
        }
    }

    /// Spends one chat line of player `id`.
    ///
    /// # Errors
    /// [`ServerError::TooManyChatLines`] with the time until the person's next line.
    pub(crate) fn check(&self, id: &str) -> Result<(), ServerError> {
        if self.checked.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            self.lines.retain_recent();
            self.lines.shrink_to_fit();
        }
        self.lines.check_key(&id.to_owned()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ServerError::TooManyChatLines {
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            }
        })
    }
}

/// The address a client is limited by: an IPv4 address, or the /64 network of an IPv6 one (an
/// IPv6 client usually holds a whole /64); an IPv4 address written as IPv6 is IPv4.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// The client's address: the peer's, or with `trust_forwarded_for` and a loopback peer (a
/// reverse proxy on this machine), the last address of `X-Forwarded-For` that is not a loopback
/// one (the one the proxy added). A header that does not read leaves the peer's address.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trust_forwarded_for: bool) -> IpAddr {
    let peer = peer.to_canonical();
    if !trust_forwarded_for || !peer.is_loopback() {
        return peer;
    }
    let entries: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    for entry in entries.iter().rev() {
        let Some(ip) = read_forwarded(entry) else {
            return peer;
        };
        if !ip.is_loopback() {
            return ip;
        }
    }
    peer
}

/// One entry of `X-Forwarded-For`: an address, or an address with a port (`1.2.3.4:5`,
/// `[2001:db8::1]:5`).
fn read_forwarded(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

/// The client's address as the limits count it ([`client_key`] of [`client_ip`]), put in every
/// request's extensions by the rate-limit middleware for the handlers that share a resource
/// per client (the analysis engine's slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddress(pub IpAddr);

/// The middleware: refuses a request over its client's limits with 429 and `Retry-After`,
/// and records the client's address ([`ClientAddress`]) for the handlers. A request under
/// `/api/` with a live personal API token is limited by its token ([`TokenLimiter`]) instead.
pub(crate) async fn limit(
    State(edge): State<super::Edge>,
    mut request: Request,
    next: Next,
) -> Response {
    let limiter = edge.http_limiter();
    // Without the peer's address (a router used without `serve`) every request is one client.
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    let client = client_key(client_ip(
        peer,
        request.headers(),
        limiter.trust_forwarded_for,
    ));
    request.extensions_mut().insert(ClientAddress(client));
    let path = request.uri().path();
    let lichess = is_lichess_route(path);
    let token = super::extract::bearer_token(request.headers())
        .filter(|t| t.len() <= 128 && path.starts_with("/api/") && path != "/api/health")
        .map(crate::accounts::tokens::digest);
    let tokens = edge.token_limiter();
    if let Some(digest) = &token {
        if tokens.is_known(digest) {
            return match tokens.check(digest) {
                Ok(()) => next.run(request).await,
                Err(wait) => {
                    let secs = whole_seconds(wait);
                    tracing::debug!(%client, path, "request over its token's rate limit");
                    too_many(lichess, tokens.refusal(secs), secs)
                }
            };
        }
    }
    match limiter.check(client, request.method(), path) {
        Ok(()) => {
            // a token not seen lately: this request counted by its address; the next ones by
            // the token, once the store says it is live
            if let Some(digest) = &token {
                tokens.learn(digest, edge.site()).await;
            }
            next.run(request).await
        }
        Err(wait) => {
            let secs = whole_seconds(wait);
            tracing::debug!(%client, path, "request over the rate limit");
            too_many(
                lichess,
                format!("too many requests from your address: retry in {secs} s"),
                secs,
            )
        }
    }
}

/// Open connections per client address ([`client_key`]: an IPv6 client by its /64 network),
/// counted from accept to close, WebSocket upgrades included: beyond the cap a new connection
/// is answered 429 and closed at once. With `exempt_loopback` (a trusted reverse proxy on this
/// machine, whose connections all come from loopback) loopback peers are not capped; the proxy
/// caps its clients.
#[derive(Debug)]
pub(crate) struct ConnectionCounter {
    per_address: usize,
    exempt_loopback: bool,
    open: std::sync::Mutex<std::collections::HashMap<IpAddr, usize>>,
    total: std::sync::atomic::AtomicUsize,
}

impl ConnectionCounter {
    pub(crate) fn new(per_address: usize, exempt_loopback: bool) -> ConnectionCounter {
        ConnectionCounter {
            per_address,
            exempt_loopback,
            open: std::sync::Mutex::new(std::collections::HashMap::new()),
            total: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Counts a new connection from `peer`; `None` when its address has the cap open already.
    pub(crate) fn admit(self: &std::sync::Arc<Self>, peer: IpAddr) -> Option<ConnectionPermit> {
        let key = client_key(peer);
        let capped = !(self.exempt_loopback && key.is_loopback());
        let mut open = self.open.lock().ok()?;
        let n = open.entry(key).or_insert(0);
        if capped && *n >= self.per_address {
            return None;
        }
        *n += 1;
        self.total.fetch_add(1, Ordering::Relaxed);
        Some(ConnectionPermit {
            counter: self.clone(),
            key,
        })
    }

    /// Connections open now, from every address.
    pub(crate) fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

/// One counted connection; dropping it (the connection closed) counts it out.
#[derive(Debug)]
pub(crate) struct ConnectionPermit {
    counter: std::sync::Arc<ConnectionCounter>,
    key: IpAddr,
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        self.counter.total.fetch_sub(1, Ordering::Relaxed);
        if let Ok(mut open) = self.counter.open.lock() {
            if let Some(n) = open.get_mut(&self.key) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&self.key);
                }
            }
        }
    }
}

/// A connection's socket with its permit: the permit lives as long as the socket, through a
/// WebSocket upgrade too (the upgraded connection owns this).
#[derive(Debug)]
pub(crate) struct Counted<T> {
    pub(crate) io: T,
    pub(crate) _permit: ConnectionPermit,
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Counted<T> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Counted<T> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// What a connection over the cap is sent before it is closed.
pub(crate) const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\n\
Content-Type: application/json\r\nConnection: close\r\nContent-Length: 75\r\n\r\n\
{\"error\":\"rate_limited\",\"message\":\"too many connections from your address\"}";

/// What a connection over the server's descriptor budget is told (`rate_limited`, 503).
pub const SERVER_FULL: &str = "the server is full, try again in a minute";

/// The whole answer to a connection over the server's descriptor budget: 503 `rate_limited`
/// ([`SERVER_FULL`]) with `Retry-After: 60`, then the connection closes.
pub(crate) fn server_full() -> Vec<u8> {
    let body = serde_json::json!({
        "error": crate::protocol::ErrorCode::RateLimited,
        "message": SERVER_FULL,
    })
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
         Retry-After: 60\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Refuses an accepted connection with `answer` and closes it: what the client sent already is
/// read first, so that closing sends the answer and a FIN, not a reset that could throw the
/// answer away. The socket is written as a plain (non-blocking) socket, whose send buffer is
/// empty: tokio's `try_write` would write nothing until its reactor has seen the new socket
/// writable, which on a busy server comes after the socket is closed, so the client got a bare
/// close instead of the answer (seen in `scripts/attack-checks` under load).
pub(crate) fn refuse(tcp: tokio::net::TcpStream, answer: &[u8]) {
    use std::io::{Read, Write};
    let Ok(socket) = tcp.into_std() else {
        return;
    };
    let mut sent = [0u8; 2048];
    let _ = (&socket).read(&mut sent);
    let _ = (&socket).write(answer);
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_full_server_answers_503_with_a_json_body() {
        let answer = String::from_utf8(server_full()).unwrap();
        let body =
            r#"{"error":"rate_limited","message":"the server is full, try again in a minute"}"#;
        assert_eq!(
            answer,
            format!(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
                 Retry-After: 60\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        );
        assert_eq!(body.len(), 78);
    }

    #[test]
    fn forwarded_for_is_trusted_only_from_loopback_when_asked() {
        let h = headers(&["203.0.113.9, 198.51.100.7"]);
        let local = ip("127.0.0.1");
        assert_eq!(client_ip(local, &h, false), local);
        assert_eq!(client_ip(local, &h, true), ip("198.51.100.7"));
        assert_eq!(client_ip(ip("::1"), &h, true), ip("198.51.100.7"));
        // A client that is not loopback cannot choose its address.
        let far = ip("192.0.2.1");
        assert_eq!(client_ip(far, &h, true), far);
    }

    #[test]
    fn forwarded_for_skips_local_proxies_and_reads_ports() {
        let local = ip("127.0.0.1");
        // Two proxies on this machine: the last address that is not loopback.
        let h = headers(&["198.51.100.7", "127.0.0.1"]);
        assert_eq!(client_ip(local, &h, true), ip("198.51.100.7"));
        let h = headers(&["[2001:db8::5]:4711"]);
        assert_eq!(client_ip(local, &h, true), ip("2001:db8::5"));
        let h = headers(&["192.0.2.4:80"]);
        assert_eq!(client_ip(local, &h, true), ip("192.0.2.4"));
        // Unreadable or missing: the peer.
        assert_eq!(client_ip(local, &headers(&["unknown"]), true), local);
        assert_eq!(client_ip(local, &HeaderMap::new(), true), local);
        // A v4-mapped loopback peer is loopback.
        let mapped = ip("::ffff:127.0.0.1");
        assert_eq!(
            client_ip(mapped, &headers(&["192.0.2.4"]), true),
            ip("192.0.2.4")
        );
    }

    #[test]
    fn an_ipv6_client_is_its_64_network() {
        assert_eq!(client_key(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        assert_eq!(client_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(client_key(ip("192.0.2.1")), ip("192.0.2.1"));
    }

    #[test]
    fn a_persons_chat_lines_share_one_bucket() {
        let l = ChatLimiter::new(RequestQuota::new(3, Duration::from_secs(3600)));
        assert!((0..3).all(|_| l.check("p1").is_ok()));
        assert_eq!(
            l.check("p1"),
            Err(ServerError::TooManyChatLines {
                retry_after_secs: 3600
            })
        );
        assert!(l.check("p2").is_ok());
    }

    #[test]
    fn quotas_and_routes_in_words() {
        let t = TokenLimiter::new(RequestQuota::new(120, Duration::from_millis(25)));
        assert_eq!(
            t.refusal(1),
            "too many requests with this API token (120 at once, then 40 per second): retry in 1 s"
        );
        assert_eq!(
            describe(RequestQuota::new(10, Duration::from_secs(6))),
            "10 at once, then one every 6 s"
        );
        assert_eq!(
            describe(RequestQuota::new(3, Duration::from_millis(1500))),
            "3 at once, then one every 1.5 s"
        );
        assert!(t.check("d1").is_ok());
        assert!(!t.is_known("d1"));
        assert!(is_lichess_route("/api/bot/game/abc/move/h2e2"));
        assert!(is_lichess_route("/api/stream/event"));
        assert!(is_lichess_route("/api/challenge/ai"));
        assert!(!is_lichess_route("/api/tables"));
        assert!(!is_lichess_route("/api/tokens"));
        assert_eq!(whole_seconds(Duration::from_millis(1001)), 2);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
    }

    #[test]
    fn classes_spend_from_the_api_bucket_and_their_own() {
        let limits = HttpLimits {
            api: RequestQuota::new(5, Duration::from_secs(3600)),
            sign_in: RequestQuota::new(2, Duration::from_secs(3600)),
            tables: RequestQuota::new(1, Duration::from_secs(3600)),
            token: RequestQuota::new(1, Duration::from_secs(3600)),
        };
        let l = HttpLimiter::new(limits, false);
        let a = ip("192.0.2.1");
        let post = Method::POST;
        assert!(l.check(a, &post, "/api/login").is_ok());
        assert!(l.check(a, &post, "/api/session").is_ok());
        let wait = l.check(a, &post, "/api/accounts").unwrap_err();
        assert!(wait > Duration::from_secs(3590) && wait <= Duration::from_secs(3600));
        assert!(l.check(a, &post, "/api/tables").is_ok());
        assert!(l.check(a, &post, "/api/tables").is_err());
        // The requests their class refused spent from the api bucket too: the sixth is over it.
        assert!(l.check(a, &Method::GET, "/api/tables").is_err());
        // Health and the web files are never limited; another client has its own buckets.
        assert!(l.check(a, &Method::GET, "/api/health").is_ok());
        assert!(l.check(a, &Method::GET, "/index.html").is_ok());
        assert!(l.check(ip("192.0.2.2"), &post, "/api/login").is_ok());
    }
}
