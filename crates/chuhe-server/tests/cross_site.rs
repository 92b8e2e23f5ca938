//! Cross-site requests (issue 19, item 5): a page of another site, or of another port of the
//! same host, cannot act for the player whose browser it runs in: its POSTs and its WebSocket
//! handshakes carry its `Origin` and are refused; a body that is not declared JSON is not read.

mod common;

use chuhe_server::Settings;
use common::{fresh_db, http_with, Backend, Server};

const FORBIDDEN: &str =
    r#"{"error":"forbidden","message":"requests from another site are refused"}"#;

#[tokio::test]
async fn another_sites_page_cannot_act_for_the_player() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let cookie = server.guest("victim").await;
    let table = r#"{"variant":"xiangqi"}"#;
    let evil = format!("http://127.0.0.1:{}", server.addr.port() + 1);
    // A page on another port of the same host creates a table with the victim's cookie.
    let (status, _, body) = http_with(
        server.addr,
        "POST",
        "/api/tables",
        &[("Cookie", &cookie), ("Origin", &evil)],
        Some(table),
    )
    .await;
    assert_eq!((status, body.as_str()), (403, FORBIDDEN));
    // Nor can it sign out the victim or open a table's WebSocket as the victim.
    let (status, _, _) = http_with(
        server.addr,
        "POST",
        "/api/logout",
        &[("Cookie", &cookie), ("Origin", "https://evil.example")],
        None,
    )
    .await;
    assert_eq!(status, 403);
    let id = server.create_table(&cookie, table).await;
    let ws = format!("/api/tables/{id}/ws");
    let (status, _, body) = http_with(
        server.addr,
        "GET",
        &ws,
        &[
            ("Cookie", &cookie),
            ("Origin", &evil),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ],
        None,
    )
    .await;
    assert_eq!((status, body.as_str()), (403, FORBIDDEN));
    // A form post (text/plain needs no permission from chuhe) is not read as JSON.
    let (status, _, body) = http_with(
        server.addr,
        "POST",
        "/api/tables",
        &[("Cookie", &cookie), ("Content-Type", "text/plain")],
        Some(table),
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (
            400,
            r#"{"error":"bad_message","message":"the body must be sent as application/json"}"#
        )
    );
    // The site's own pages (Origin = Host) and programs (no Origin) act as before; reads from
    // anywhere still answer.
    let own = format!("http://{}", server.addr);
    let (status, _, _) = http_with(
        server.addr,
        "POST",
        "/api/tables",
        &[("Cookie", &cookie), ("Origin", &own)],
        Some(table),
    )
    .await;
    assert_eq!(status, 201);
    let (status, _, _) = http_with(
        server.addr,
        "GET",
        "/api/tables",
        &[("Origin", &evil)],
        None,
    )
    .await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn the_operators_allowed_origins_may_act() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        allowed_origins: vec!["https://play.chuhe.example".to_owned()],
        ..Settings::default()
    };
    let server = Server::start(&db, settings).await;
    let cookie = server.guest("player").await;
    let post = |origin: &'static str| {
        let cookie = cookie.clone();
        let addr = server.addr;
        async move {
            http_with(
                addr,
                "POST",
                "/api/tables",
                &[("Cookie", &cookie), ("Origin", origin)],
                Some(r#"{"variant":"banqi"}"#),
            )
            .await
            .0
        }
    };
    assert_eq!(post("https://play.chuhe.example").await, 201);
    assert_eq!(post("https://chuhe.example.evil").await, 403);
    server.stop().await;
}

/// Issue 25, item 10: the `Origin` check ignored the scheme, so a page of `evil://HOST` acted
/// for the player. Only `http` and `https` origins are the site's own, and only the scheme the
/// site is served as: `https` behind TLS (`secure_cookies`, or a trusted proxy's
/// `X-Forwarded-Proto`), else `http`.
#[tokio::test]
async fn an_origin_of_another_scheme_cannot_act() {
    let db = fresh_db(Backend::Sqlite).await;
    let post = |addr: std::net::SocketAddr,
                cookie: String,
                headers: Vec<(&'static str, String)>| async move {
        let mut all: Vec<(&str, &str)> = vec![("Cookie", cookie.as_str())];
        all.extend(headers.iter().map(|(k, v)| (*k, v.as_str())));
        let (status, _, body) = http_with(
            addr,
            "POST",
            "/api/tables",
            &all,
            Some(r#"{"variant":"xiangqi"}"#),
        )
        .await;
        (status, body)
    };
    // A plain-HTTP server: only http://HOST is its own.
    let server = Server::start(&db, Settings::default()).await;
    let cookie = server.guest("victim").await;
    let host = server.addr.to_string();
    for scheme in ["evil", "file", "ws", "https"] {
        let (status, body) = post(
            server.addr,
            cookie.clone(),
            vec![("Origin", format!("{scheme}://{host}"))],
        )
        .await;
        assert_eq!((status, body.as_str()), (403, FORBIDDEN), "{scheme}");
    }
    let own = vec![("Origin", format!("http://{host}"))];
    assert_eq!(post(server.addr, cookie.clone(), own).await.0, 201);
    // An untrusted X-Forwarded-Proto changes nothing.
    let forwarded = vec![
        ("Origin", format!("https://{host}")),
        ("X-Forwarded-Proto", "https".to_owned()),
    ];
    assert_eq!(post(server.addr, cookie.clone(), forwarded).await.0, 403);
    server.stop().await;

    // Behind TLS (secure cookies): only https://HOST.
    let settings = Settings {
        secure_cookies: true,
        ..Settings::default()
    };
    let server = Server::start(&db, settings).await;
    let host = server.addr.to_string();
    for (origin, status) in [
        (format!("https://{host}"), 201),
        (format!("http://{host}"), 403),
        (format!("evil://{host}"), 403),
    ] {
        let headers = vec![("Origin", origin.clone())];
        assert_eq!(
            post(server.addr, cookie.clone(), headers).await.0,
            status,
            "{origin}"
        );
    }
    server.stop().await;

    // Behind a trusted proxy on this machine: the scheme it forwards.
    let settings = Settings {
        trust_forwarded_for: true,
        ..Settings::default()
    };
    let server = Server::start(&db, settings).await;
    let host = server.addr.to_string();
    for (origin, proto, status) in [
        (format!("https://{host}"), "https", 201),
        (format!("http://{host}"), "https", 403),
        (format!("http://{host}"), "http", 201),
        (format!("evil://{host}"), "evil", 403),
    ] {
        let headers = vec![
            ("Origin", origin.clone()),
            ("X-Forwarded-Proto", proto.to_owned()),
        ];
        assert_eq!(
            post(server.addr, cookie.clone(), headers).await.0,
            status,
            "{origin} {proto}"
        );
    }
    server.stop().await;
}
