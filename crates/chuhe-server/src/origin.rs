//! Cross-site requests: a page of another site (or another port of this host) must not act as
//! the player whose browser it runs in.
//!
//! Browsers send the session cookie with requests to chuhe from any page, but they also name the
//! page's origin in an `Origin` header on every WebSocket handshake and every POST. So every
//! request under `/api/` that changes something (any method but GET, HEAD and OPTIONS) and every
//! WebSocket upgrade with an `Origin` header is refused with 403 `forbidden` unless the origin is
//! this site's own (its host and port are the request's `Host`) or one of the operator's allowed
//! origins (`chuhe serve --allowed-origin`). A request without `Origin` comes from a program, not
//! from a page, and passes: the cookie proves nothing a program's own session would not.
//! Request bodies must also be declared JSON ([`crate::extract::JsonBody`]): a page may send a
//! `text/plain` form to another site without asking, but not `application/json`.

use crate::error::ServerError;
use crate::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The authority (`host` or `host:port`) of an origin such as `https://chuhe.example:8443`,
/// lower case; `None` for `null` or text that is not `scheme://authority`.
fn authority(origin: &str) -> Option<String> {
    let (_, rest) = origin.split_once("://")?;
    let host = rest.split('/').next().unwrap_or("");
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether `origin` is this site's own (its authority is the request's `Host`) or one of
/// `allowed` (compared as written, without a trailing slash).
pub fn is_allowed(origin: &str, headers: &HeaderMap, allowed: &[String]) -> bool {
    let origin = origin.trim_end_matches('/');
    if allowed.iter().any(|a| a.trim_end_matches('/') == origin) {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    match (authority(origin), host) {
        (Some(a), Some(h)) => {
            // An origin leaves out the scheme's default port, a Host header may carry it.
            a == h
                || h.strip_suffix(":80").is_some_and(|h| h == a)
                || h.strip_suffix(":443").is_some_and(|h| h == a)
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
            if !is_allowed(origin, headers, &state.settings_ref().allowed_origins) {
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
        assert!(is_allowed(
            "http://127.0.0.1:8080",
            &host("127.0.0.1:8080"),
            &none
        ));
        assert!(is_allowed(
            "https://Chuhe.Example",
            &host("chuhe.example"),
            &none
        ));
        assert!(is_allowed(
            "https://chuhe.example",
            &host("chuhe.example:443"),
            &none
        ));
        // Another port of the same host is another site.
        assert!(!is_allowed(
            "http://127.0.0.1:9999",
            &host("127.0.0.1:8080"),
            &none
        ));
        assert!(!is_allowed("null", &host("127.0.0.1:8080"), &none));
        assert!(!is_allowed("http://evil.example", &HeaderMap::new(), &none));
        let allowed = vec!["https://play.chuhe.example".to_owned()];
        assert!(is_allowed(
            "https://play.chuhe.example/",
            &host("10.0.0.5:8080"),
            &allowed
        ));
        assert!(!is_allowed(
            "https://other.example",
            &host("10.0.0.5:8080"),
            &allowed
        ));
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
