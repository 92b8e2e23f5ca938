//! The web client (`web/` at the workspace root), embedded at build time by `build.rs` and served
//! at `/` (`index.html`) and under its own paths (`/js/app.js`, `/style.css`, ...).

use axum::http::{header, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};

/// Every embedded file as `(url path, bytes)`, sorted by path; the url path starts with `/`.
pub static FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/web_files.rs"));

/// The `Content-Type` of a served file, from its extension (`None` for an unknown one).
pub fn content_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

/// The embedded file at `path` (`/` means `/index.html`), with its content type.
pub fn lookup(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = if path == "/" { "/index.html" } else { path };
    let i = FILES.binary_search_by(|(p, _)| (*p).cmp(path)).ok()?;
    let (_, bytes) = FILES[i];
    Some((content_type(path)?, bytes))
}

/// Serves an embedded file, or `None` so that the caller answers 404.
pub(crate) fn serve(uri: &Uri) -> Option<Response> {
    let (mime, bytes) = lookup(uri.path())?;
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Some(response)
}
