//! The embedded web client: every file under `web/` is served at its path with its content
//! type, byte for byte; `/` is `index.html`; other paths and `/api/...` stay 404 JSON.

mod common;

use common::{fresh_db, settings, Backend, Server};
use std::time::Duration;

fn content_type(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn web_files_are_served_with_their_content_types() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let cases = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
        ("/js/app.js", "js/app.js", "text/javascript; charset=utf-8"),
        (
            "/js/i18n.js",
            "js/i18n.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/js/protocol.js",
            "js/protocol.js",
            "text/javascript; charset=utf-8",
        ),
    ];
    for (path, file, mime) in cases {
        let (status, head, body) = server.http("GET", path, None, None).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(content_type(&head), mime, "{path}");
        assert_eq!(
            body,
            std::fs::read_to_string(web.join(file)).unwrap(),
            "{path}"
        );
    }
    let not_found = r#"{"error":"not_found","message":"no such route"}"#;
    for (method, path) in [
        ("GET", "/js/nothing.js"),
        ("GET", "/api/nothing"),
        ("GET", "/api/index.html"),
        ("POST", "/index.html"),
        ("GET", "/../Cargo.toml"),
    ] {
        let (status, head, body) = server.http(method, path, None, None).await;
        assert_eq!((status, body.as_str()), (404, not_found), "{method} {path}");
        assert_eq!(content_type(&head), "application/json", "{method} {path}");
    }
    server.stop().await;
}

/// `HEAD /` and `HEAD` of any web file answer 200 with the GET's headers and no body (a
/// monitor's or `curl -I`'s check of the site); `HEAD` of an unknown path is 404.
#[tokio::test]
async fn head_answers_as_get_without_a_body() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    for (path, mime) in [
        ("/", "text/html; charset=utf-8"),
        ("/js/app.js", "text/javascript; charset=utf-8"),
    ] {
        let (status, head, body) = server.http("HEAD", path, None, None).await;
        assert_eq!((status, body.as_str()), (200, ""), "HEAD {path}");
        assert_eq!(content_type(&head), mime, "HEAD {path}");
        let (_, get_head, get_body) = server.http("GET", path, None, None).await;
        assert_eq!(
            header_of(&head, "etag"),
            header_of(&get_head, "etag"),
            "HEAD {path}"
        );
        assert_eq!(
            header_of(&head, "content-length"),
            Some(get_body.len().to_string()),
            "HEAD {path}"
        );
    }
    let (status, _, _) = server.http("HEAD", "/js/nothing.js", None, None).await;
    assert_eq!(status, 404);
    server.stop().await;
}

/// Every file under `web/` is embedded and served byte for byte, with a known content type
/// (never memory-serve's `application/octet-stream` for an unknown extension).
#[tokio::test]
async fn every_file_of_the_web_folder_is_served_as_on_disk() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut on_disk = Vec::new();
    let mut stack = vec![web.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                on_disk.push(path);
            }
        }
    }
    let mut routes = chuhe_server::edge::web::routes();
    routes.sort_unstable();
    let mut expected: Vec<String> = on_disk
        .iter()
        .map(|p| format!("/{}", p.strip_prefix(&web).unwrap().to_string_lossy()))
        .collect();
    expected.sort_unstable();
    assert_eq!(routes, expected);
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    for file in &on_disk {
        let route = format!("/{}", file.strip_prefix(&web).unwrap().to_string_lossy());
        let (status, head, body) = server.http("GET", &route, None, None).await;
        assert_eq!(status, 200, "{route}");
        let mime = content_type(&head);
        let known = [
            "text/html; charset=utf-8",
            "text/css; charset=utf-8",
            "text/javascript; charset=utf-8",
            "image/svg+xml",
        ];
        assert!(known.contains(&mime.as_str()), "{route}: {mime}");
        assert_eq!(body, std::fs::read_to_string(file).unwrap(), "{route}");
    }
    server.stop().await;
}

/// The header `name` of a response head, lower-cased name, value as sent.
fn header_of(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}

/// The web client's files are compressed for a browser that accepts gzip, carry an entity tag
/// with `Cache-Control: no-cache`, and a request naming the current tag gets `304` without a
/// body; the API's answers are not touched.
#[tokio::test]
async fn web_files_are_compressed_and_revalidated() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let size = std::fs::read(web.join("js/i18n.js")).unwrap().len();
    // gzip: read the raw bytes (the body is not text)
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let req = format!(
        "GET /js/i18n.js HTTP/1.1\r\nHost: {}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header_of(&head, "content-encoding").as_deref(),
        Some("gzip")
    );
    assert_eq!(
        header_of(&head, "cache-control").as_deref(),
        Some("no-cache")
    );
    let body = raw.len() - split - 4;
    assert!(body * 2 < size, "{body} compressed bytes of {size}");
    let etag = header_of(&head, "etag").expect("an entity tag");
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() > 10,
        "{etag}"
    );
    // the same tag again: 304, no body
    let (status, head, body) = common::http_with(
        server.addr,
        "GET",
        "/js/i18n.js",
        &[("If-None-Match", &etag)],
        None,
    )
    .await;
    assert_eq!(status, 304, "{head}");
    assert_eq!(body, "");
    assert_eq!(header_of(&head, "etag"), Some(etag.clone()));
    // another file has another tag; an old tag gets the file
    let (status, head, _) = common::http_with(
        server.addr,
        "GET",
        "/style.css",
        &[("If-None-Match", &etag)],
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_ne!(header_of(&head, "etag"), Some(etag));
    // the API stays as it was: no entity tag, no compression
    let (status, head, _) = common::http_with(
        server.addr,
        "GET",
        "/api/health",
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(header_of(&head, "content-encoding"), None);
    assert_eq!(header_of(&head, "etag"), None);
    server.stop().await;
}
