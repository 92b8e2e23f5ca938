//! Cross-site requests: a page of another site (or another port of this host, or another
//! scheme) must not act as the player whose browser it runs in.
//!
//! Browsers send the session cookie with requests to chuhe from any page, but they also name the
//! page's origin in an `Origin` header on every WebSocket handshake and every POST. So every
//! request under `/api/` that changes something (any method but GET, HEAD and OPTIONS) and every
//! WebSocket upgrade with an `Origin` header is refused with 403 `forbidden` unless the origin is
//! this site's own or one of the operator's allowed origins (`chuhe serve --allowed-origin`).
//! The site's own origin is `scheme://authority` where the authority (host and port) is the
//! request's `Host` and the scheme is `http` or `https` as the site is served
//! ([`site_scheme`]): `https` behind a reverse proxy that says so in `X-Forwarded-Proto` (trusted
//! only from a loopback peer with [`crate::Settings::trust_forwarded_for`]) or, without that
//! header, when the cookies are `Secure` ([`crate::Settings::secure_cookies`], which the site
//! needs behind TLS); else `http`. Any other scheme (`evil://host`, `file://`, `null`) is
//! refused. A request without `Origin` comes from a program, not from a page, and passes: the
//! cookie proves nothing a program's own session would not. Request bodies must also be
//! declared JSON ([`super::extract::JsonBody`]): a page may send a `text/plain` form to another
//! site without asking, but not `application/json`.

use crate::error::ServerError;
use crate::site::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};

/// The scheme (`http` or `https`, lower case) and the authority (`host` or `host:port`, lower
/// case) of an origin such as `https://chuhe.example:8443`; `None` for `null` or text that is not
/// `scheme://authority`.
fn scheme_and_authority(origin: &str) -> Option<(String, String)> {
    let (scheme, rest) = origin.split_once("://")?;
    let host = rest.split('/').next().unwrap_or("");
    (!scheme.is_empty() && !host.is_empty())
        .then(|| (scheme.to_ascii_lowercase(), host.to_ascii_lowercase()))
}

/// The scheme the site is served as, for a request with `headers` from `peer`: the first value
/// of `X-Forwarded-Proto` when it is `http` or `https` and the peer is a trusted reverse proxy
/// (`trust_forwarded_for` and a loopback peer); otherwise `https` with `secure_cookies` (the
/// site is behind TLS) and `http` without.
pub fn site_scheme(
    peer: Option<IpAddr>,
    headers: &HeaderMap,
    trust_forwarded_for: bool,
    secure_cookies: bool,
) -> &'static str {
    let trusted = trust_forwarded_for && peer.is_some_and(|p| p.to_canonical().is_loopback());
    let forwarded = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match forwarded.as_deref() {
        Some("https") if trusted => "https",
        Some("http") if trusted => "http",
        _ if secure_cookies => "https",
        _ => "http",
    }
}

/// Whether `origin` is this site's own (its scheme is `scheme`, the scheme the site is served
/// as, see [`site_scheme`], and its authority is the request's `Host`) or one of `allowed`
/// (compared as written, without a trailing slash). Only `http` and `https` origins are ever the
/// site's own.
pub fn is_allowed(origin: &str, headers: &HeaderMap, allowed: &[String], scheme: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    if allowed.iter().any(|a| a.trim_end_matches('/') == origin) {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    match (scheme_and_authority(origin), host) {
        (Some((s, a)), Some(h)) if matches!(s.as_str(), "http" | "https") && s == scheme => {
            // An origin leaves out the scheme's default port, a Host header may carry it.
            let default_port = if s == "https" { ":443" } else { ":80" };
            a == h || h.strip_suffix(default_port).is_some_and(|h| h == a)
        }
        _ => false,
    }
}

/// Whether a request acts (anything but a read) or opens a table's WebSocket.
fn acts(method: &Method, headers: &HeaderMap) -> bool {
    let read = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    let upgrade = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    !read || upgrade
}

/// The middleware: refuses a cross-site request that acts, with 403 `forbidden`.
pub async fn check(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if request.uri().path().starts_with("/api/") && acts(request.method(), headers) {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("null");
            let settings = state.settings_ref();
            let peer = request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip());
            let scheme = site_scheme(
                peer,
                headers,
                settings.trust_forwarded_for,
                settings.secure_cookies,
            );
            if !is_allowed(origin, headers, &settings.allowed_origins, scheme) {
                if scheme == "http" && is_allowed(origin, headers, &[], "https") {
                    // The site's own host over TLS: most likely a proxy that terminates TLS
                    // and a server not told so.
                    tracing::warn!(
                        origin,
                        "a page of this site over https was refused: behind TLS, start chuhe \
                         serve with --secure-cookies, or with --trust-forwarded-for and a proxy \
                         that sends X-Forwarded-Proto"
                    );
                }
                tracing::info!(
                    origin,
                    path = request.uri().path(),
                    "cross-site request refused"
                );
                return ServerError::CrossSite.into_response();
            }
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(h: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, h.parse().unwrap());
        m
    }

    #[test]
    fn the_sites_own_origin_and_the_allowed_ones_pass() {
        let none: Vec<String> = Vec::new();
        let own = |origin: &str, h: &str, scheme: &str| is_allowed(origin, &host(h), &none, scheme);
        assert!(own("http://127.0.0.1:8080", "127.0.0.1:8080", "http"));
        assert!(own("https://Chuhe.Example", "chuhe.example", "https"));
        assert!(own("https://chuhe.example", "chuhe.example:443", "https"));
        assert!(own("http://chuhe.example", "chuhe.example:80", "http"));
        // The other scheme's default port is another port.
        assert!(!own("https://chuhe.example", "chuhe.example:80", "https"));
        // Another port of the same host is another site.
        assert!(!own("http://127.0.0.1:9999", "127.0.0.1:8080", "http"));
        assert!(!own("null", "127.0.0.1:8080", "http"));
        assert!(!is_allowed(
            "http://evil.example",
            &HeaderMap::new(),
            &none,
            "http"
        ));
        let allowed = vec!["https://play.chuhe.example".to_owned()];
        assert!(is_allowed(
            "https://play.chuhe.example/",
            &host("10.0.0.5:8080"),
            &allowed,
            "http"
        ));
        assert!(!is_allowed(
            "https://other.example",
            &host("10.0.0.5:8080"),
            &allowed,
            "http"
        ));
    }

    #[test]
    fn an_origin_of_another_scheme_is_another_site() {
        let none: Vec<String> = Vec::new();
        let own = |origin: &str, scheme: &str| {
            is_allowed(origin, &host("chuhe.example:8080"), &none, scheme)
        };
        for bad in [
            "evil://chuhe.example:8080",
            "file://chuhe.example:8080",
            "ws://chuhe.example:8080",
            "://chuhe.example:8080",
            "chuhe.example:8080",
        ] {
            assert!(!own(bad, "http"), "{bad}");
            assert!(!own(bad, "https"), "{bad}");
        }
        // A plain-HTTP page of the host cannot act on the HTTPS site, nor the other way round.
        assert!(!own("http://chuhe.example:8080", "https"));
        assert!(!own("https://chuhe.example:8080", "http"));
        assert!(own("HTTPS://chuhe.example:8080", "https"));
    }

    #[test]
    fn the_sites_scheme_is_forwarded_only_by_a_trusted_proxy() {
        let loopback = Some(IpAddr::from([127, 0, 0, 1]));
        let far = Some(IpAddr::from([192, 0, 2, 1]));
        let mut h = HeaderMap::new();
        assert_eq!(site_scheme(loopback, &h, true, false), "http");
        assert_eq!(site_scheme(loopback, &h, true, true), "https");
        h.insert("x-forwarded-proto", "HTTPS".parse().unwrap());
        assert_eq!(site_scheme(loopback, &h, true, false), "https");
        // Not trusted: the header is anyone's.
        assert_eq!(site_scheme(loopback, &h, false, false), "http");
        assert_eq!(site_scheme(far, &h, true, false), "http");
        assert_eq!(site_scheme(None, &h, true, false), "http");
        h.insert("x-forwarded-proto", "http, https".parse().unwrap());
        assert_eq!(site_scheme(loopback, &h, true, true), "http");
        h.insert("x-forwarded-proto", "evil".parse().unwrap());
        assert_eq!(site_scheme(loopback, &h, true, false), "http");
        assert_eq!(site_scheme(loopback, &h, true, true), "https");
    }

    #[test]
    fn reads_do_not_act_but_upgrades_do() {
        let mut h = HeaderMap::new();
        assert!(!acts(&Method::GET, &h));
        assert!(acts(&Method::POST, &h));
        h.insert(header::UPGRADE, "WebSocket".parse().unwrap());
        assert!(acts(&Method::GET, &h));
    }
}
