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
