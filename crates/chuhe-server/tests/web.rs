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

#[test]
fn every_embedded_file_has_a_content_type_and_matches_the_disk() {
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
    assert_eq!(chuhe_server::web::FILES.len(), on_disk.len());
    for (path, bytes) in chuhe_server::web::FILES {
        assert!(chuhe_server::web::content_type(path).is_some(), "{path}");
        assert_eq!(
            *bytes,
            std::fs::read(web.join(&path[1..])).unwrap().as_slice(),
            "{path}"
        );
    }
    assert!(chuhe_server::web::lookup("/").is_some());
    assert_eq!(chuhe_server::web::content_type("/a/b"), None);
    assert_eq!(
        chuhe_server::web::content_type("/x.svg"),
        Some("image/svg+xml")
    );
}
