//! The web client (`web/` at the workspace root), embedded at build time by `build.rs` and served
//! by memory-serve at `/` (`index.html`) and under its own paths (`/js/app.js`, `/style.css`,
//! ...).
//!
//! What a browser gets: each file with its content type (text as UTF-8), an entity tag (a
//! SHA-256 of its bytes) with `Cache-Control: no-cache`, so the browser keeps the file and asks
//! again each time; `304 Not Modified` for a request naming the current tag; brotli or gzip for
//! a browser that accepts them (text compressed once, at build time); `HEAD` as `GET` without the
//! body.

use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::Router;
use memory_serve::CacheControl;
use std::sync::LazyLock;

/// The router of the embedded files (`GET` and `HEAD` of each file's route, `/` for
/// `index.html`); the caller adds what answers other paths and methods. Built once per process
/// (memory-serve unpacks the files and keeps them for the life of the process) and cloned.
pub(crate) fn router() -> Router {
    static WEB: LazyLock<Router> = LazyLock::new(build);
    WEB.clone()
}

fn build() -> Router {
    memory_serve::load!()
        .index_file(Some("/index.html"))
        .html_cache_control(CacheControl::NoCache)
        .cache_control(CacheControl::NoCache)
        // memory-serve compresses only in release builds unless told: the same in both
        .enable_brotli(true)
        .enable_gzip(true)
        .into_router()
        .layer(axum::middleware::map_response(with_charset))
}

/// The routes of the embedded files (`/index.html`, `/js/app.js`, ...), in no particular order.
pub fn routes() -> Vec<&'static str> {
    memory_serve::load!()
        .manifest()
        .iter()
        .map(|(route, _)| route)
        .collect()
}

/// Names UTF-8 as the charset of a text answer (memory-serve sends `text/css`,
/// `text/javascript`, ... bare); the files of `web/` are UTF-8 (the Chinese strings of
/// `js/i18n.js`).
async fn with_charset(mut response: Response) -> Response {
    let text = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .filter(|v| (v.starts_with("text/") || *v == "application/javascript") && !v.contains(';'))
        .map(|v| format!("{v}; charset=utf-8"));
    if let Some(value) = text.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}
