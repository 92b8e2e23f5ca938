//! The web client (`web/` at the workspace root), embedded at build time by `build.rs` and served
//! at `/` (`index.html`) and under its own paths (`/js/app.js`, `/style.css`, ...).

use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// Every embedded file as `(url path, bytes)`, sorted by the url path as a string (the order of
/// [`lookup`]'s binary search); the url path starts with `/`.
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

/// The entity tag of the embedded file at index `i` of [`FILES`]: a hash of its bytes, quoted
/// (`"1a2b…"`); the same for the life of the binary, different when a file changes.
pub fn etag(i: usize) -> &'static str {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        FILES
            .iter()
            .map(|(_, bytes)| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                bytes.hash(&mut h);
                format!("\"{:016x}-{:x}\"", h.finish(), bytes.len())
            })
            .collect()
    });
    tags.get(i).map_or("\"\"", String::as_str)
}

/// Serves an embedded file, or `None` so that the caller answers 404. Every file carries its
/// [`etag`] and `Cache-Control: no-cache` (the browser keeps it and asks again each time); a
/// request whose `If-None-Match` names the current tag gets `304 Not Modified` without a body.
/// (Compression is the router's: `http.rs` wraps these answers in a gzip layer.)
pub(crate) fn serve(uri: &Uri, request: &HeaderMap) -> Option<Response> {
    let path = if uri.path() == "/" {
        "/index.html"
    } else {
        uri.path()
    };
    let i = FILES.binary_search_by(|(p, _)| (*p).cmp(path)).ok()?;
    let (mime, bytes) = lookup(path)?;
    let tag = etag(i);
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        bytes.into_response()
    };
    let headers = response.headers_mut();
    if !fresh {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(tag) {
        headers.insert(header::ETAG, v);
    }
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder named like a file (`table-parts/` beside `table-view.js`, `a/` beside `a.js`)
    /// sorts differently as a path and as a string: every file must still be found.
    #[test]
    fn every_embedded_file_is_found_by_its_url() {
        assert!(
            FILES.windows(2).all(|w| w[0].0 < w[1].0),
            "not sorted by url"
        );
        for (path, bytes) in FILES {
            if content_type(path).is_none() {
                continue;
            }
            let (_, found) = lookup(path).unwrap_or_else(|| panic!("{path} not found"));
            assert_eq!(found.len(), bytes.len(), "{path}");
        }
        assert!(lookup("/js/table-parts/seats.js").is_some());
        assert!(lookup("/js/table-view.js").is_some());
    }
}
