//! The HTTP request-rate limits (SQLite): signing in is limited to 10 requests at once per
//! client, then answered 429 with the usual error body and `Retry-After`; what the web client
//! asks for in its busiest moments passes; `X-Forwarded-For` counts only when the server is told
//! to trust it (off by default); chat lines are counted per person over all of their
//! connections.

mod common;

use chuhe_server::edge::limit::{HttpLimits, RequestQuota};
use chuhe_server::protocol::{ClientMessage, ErrorCode, ServerMessage};
use chuhe_server::Settings;
use common::*;
use std::time::{Duration, Instant};

const LOGIN: &str = r#"{"name":"nobody","password":"not a password"}"#;
const WRONG: &str = r#"{"error":"unauthorized","message":"wrong name or password"}"#;

/// The value of a header in a response head (names compared without case).
fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
    })
}

#[test]
fn the_defaults() {
    let s = Settings::default();
    assert!(!s.trust_forwarded_for);
    assert_eq!(s.http_limits, HttpLimits::default());
    let l = s.http_limits;
    assert_eq!(
        (l.api.burst.get(), l.api.period),
        (120, Duration::from_millis(50))
    );
    assert_eq!(
        (l.sign_in.burst.get(), l.sign_in.period),
        (10, Duration::from_secs(6))
    );
    assert_eq!(
        (l.tables.burst.get(), l.tables.period),
        (10, Duration::from_secs(6))
    );
    assert_eq!(
        (s.chat_lines.burst.get(), s.chat_lines.period),
        (5, Duration::from_secs(2))
    );
    assert_eq!(
        (l.token.burst.get(), l.token.period),
        (120, Duration::from_millis(25))
    );
    assert_eq!(s.ended_grace, Duration::from_secs(600));
    assert_eq!(s.max_ended_tables, 500);
}

/// Ten quick logins are answered (401: no such account); the eleventh, and a guest session
/// after it, get 429 with the error body and `Retry-After: 6` (one request comes back every
/// 6 s). Other routes still answer, and so do logins from another client.
#[tokio::test]
async fn the_eleventh_quick_login_is_refused() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let started = Instant::now();
    for i in 0..10 {
        let (status, head, body) = server.http("POST", "/api/login", None, Some(LOGIN)).await;
        assert_eq!((status, body.as_str()), (401, WRONG), "login {i}");
        assert_eq!(header(&head, "retry-after"), None);
    }
    let (status, head, body) = server.http("POST", "/api/login", None, Some(LOGIN)).await;
    // Within one refill period (6 s), so no request came back to the bucket in between.
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(6),
        "the logins took {elapsed:?}"
    );
    assert_eq!(status, 429);
    // The wait is counted from the first login: 6 s when the ten took under a second (the
    // usual case), a second less for each whole second they took (argon2 on a loaded machine).
    let wait: u64 = header(&head, "retry-after")
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After in seconds");
    let expected_min = 6u64.saturating_sub(elapsed.as_secs() + 1).max(1);
    assert!(
        (expected_min..=6).contains(&wait),
        "Retry-After {wait} after {elapsed:?}"
    );
    assert_eq!(
        body,
        format!(
            r#"{{"error":"rate_limited","message":"too many requests, try again in {wait} s"}}"#
        )
    );
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("application/json")
    );
    // Guest sessions and accounts share the bucket.
    let (status, head, _) = server
        .http("POST", "/api/session", None, Some(r#"{"name":"guest"}"#))
        .await;
    assert_eq!(status, 429);
    let again: u64 = header(&head, "retry-after")
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After in seconds");
    assert!(
        (wait.saturating_sub(1).max(1)..=wait).contains(&again),
        "{again} s after {wait} s"
    );
    // Everything else still answers.
    let (status, _, body) = server.http("GET", "/api/tables", None, None).await;
    assert_eq!((status, body.as_str()), (200, "[]"));
    let (status, _, _) = server.http("GET", "/api/me", None, None).await;
    assert_eq!(status, 401);
    server.stop().await;
}

/// What the web client asks for in its busiest moments, at once and many times over: a guest
/// session and three tables, the lobby (`/api/me`, the ratings, 20 rounds of its 2.5 s poll of
/// the tables and finished games), the eight rules-page diagrams and 30 clicks on them, and
/// five tables opened (summary, positions, PGN, WebSocket): 105 requests, every one answered as
/// usual.
#[tokio::test]
async fn the_web_clients_bursts_pass() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let cookie = server.guest("busy player").await;
    let mut tables = Vec::new();
    for _ in 0..3 {
        tables.push(
            server
                .create_table(&cookie, r#"{"variant":"xiangqi"}"#)
                .await,
        );
    }
    let mut answered = 4;
    let ok = |(status, _, body): (u16, String, String), what: &str| {
        assert_eq!(status, 200, "{what}: {body}");
    };
    ok(
        server.http("GET", "/api/me", Some(&cookie), None).await,
        "me",
    );
    let me: serde_json::Value =
        serde_json::from_str(&server.http("GET", "/api/me", Some(&cookie), None).await.2).unwrap();
    let ratings = format!("/api/players/{}/ratings", me["id"].as_str().unwrap());
    ok(server.http("GET", &ratings, None, None).await, "ratings");
    answered += 3;
    for _ in 0..20 {
        ok(
            server.http("GET", "/api/tables", None, None).await,
            "tables",
        );
        ok(
            server.http("GET", "/api/games?limit=10", None, None).await,
            "games",
        );
        answered += 2;
    }
    let diagram = r#"{"variant":"xiangqi","position":"5k3/9/9/9/4p4/4N4/9/9/9/3K5 w","moves":[]}"#;
    for _ in 0..38 {
        let answer = server
            .http("POST", "/api/analysis", None, Some(diagram))
            .await;
        ok(answer, "analysis");
        answered += 1;
    }
    for id in tables.iter().cycle().take(5) {
        for path in ["", "/positions", "/pgn"] {
            let answer = server
                .http("GET", &format!("/api/tables/{id}{path}"), None, None)
                .await;
            ok(answer, path);
        }
        let mut ws = server.ws(id, Some(&cookie), None).await;
        assert_eq!(ws.state().await.version, 1);
        ws.close().await;
        answered += 4;
    }
    assert_eq!(answered, 105);
    server.stop().await;
}

/// Signing in is limited per client: with `trust_forwarded_for`, a request from loopback counts
/// for the address its proxy appended to `X-Forwarded-For`; without it (the default) the header
/// changes nothing.
#[tokio::test]
async fn forwarded_for_counts_only_when_trusted() {
    let limits = HttpLimits {
        sign_in: RequestQuota::new(2, Duration::from_secs(3600)),
        ..HttpLimits::default()
    };
    for trusted in [true, false] {
        let db = fresh_db(Backend::Sqlite).await;
        let settings = Settings {
            http_limits: limits,
            trust_forwarded_for: trusted,
            ..Settings::default()
        };
        let server = Server::start(&db, settings).await;
        let login = |client: &'static str| {
            let addr = server.addr;
            async move {
                let xff = [("X-Forwarded-For", client)];
                http_with(addr, "POST", "/api/login", &xff, Some(LOGIN)).await
            }
        };
        assert_eq!(login("198.51.100.7").await.0, 401);
        assert_eq!(login("198.51.100.7").await.0, 401);
        let (status, head, _) = login("198.51.100.7").await;
        assert_eq!(status, 429);
        assert_eq!(header(&head, "retry-after").as_deref(), Some("3600"));
        // Another client behind the proxy: its own bucket only when the header is trusted.
        let other = login("203.0.113.5, 198.51.100.8").await.0;
        assert_eq!(other, if trusted { 401 } else { 429 }, "trusted: {trusted}");
        server.stop().await;
    }
}

/// Issue 25, item 10: the chat rate was per connection, so 20 connections of one person sent
/// 400 lines in 2 s. Now the person has one budget over all their connections: with 5 lines at
/// once (and one more an hour), 20 connections that send 20 lines each get 5 lines through,
/// and the 395 others are refused with `rate_limited` "too many chat lines, wait 3600 s".
/// Another person's lines are not spent from that budget.
#[tokio::test]
async fn many_connections_of_one_person_share_one_chat_budget() {
    const CONNECTIONS: usize = 20;
    const LINES: usize = 20;
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        chat_lines: RequestQuota::new(5, Duration::from_secs(3600)),
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let host = server.guest("host").await;
    let chatty = server.guest("chatty").await;
    let listener = server.guest("listener").await;
    let table = server.create_table(&host, r#"{"variant":"xiangqi"}"#).await;
    let mut ear = server.ws(&table, Some(&listener), None).await;
    ear.state().await;
    let mut mouths = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut c = server.ws(&table, Some(&chatty), None).await;
        c.state().await;
        mouths.push(c);
    }
    // Every connection sends its lines at once, then a ping: its pong comes after the table
    // has taken (or the limit refused) every line before it.
    let refused =
        futures_util::future::join_all(mouths.iter_mut().enumerate().map(|(i, c)| async move {
            for j in 0..LINES {
                c.send(&ClientMessage::Chat {
                    text: format!("line {i}.{j}"),
                })
                .await;
            }
            c.send(&ClientMessage::Ping {}).await;
            let mut refused = Vec::new();
            loop {
                match c.next().await {
                    ServerMessage::Pong => return refused,
                    ServerMessage::Error { code, message } => refused.push((code, message)),
                    _ => {}
                }
            }
        }))
        .await;
    let refused: Vec<(ErrorCode, String)> = refused.into_iter().flatten().collect();
    assert_eq!(refused.len(), CONNECTIONS * LINES - 5);
    assert!(refused.iter().all(|r| *r
        == (
            ErrorCode::RateLimited,
            "too many chat lines, wait 3600 s".to_owned()
        )));
    // The listener saw exactly 5 of chatty's lines, then its own (another person's budget).
    ear.send(&ClientMessage::Chat {
        text: "done".to_owned(),
    })
    .await;
    let mut heard = Vec::new();
    loop {
        if let ServerMessage::Chat { name, text, .. } = ear.next().await {
            if name == "listener" {
                assert_eq!(text, "done");
                break;
            }
            heard.push(text);
        }
    }
    assert_eq!(heard.len(), 5, "{heard:?}");
    // A new connection of the same person has no fresh budget.
    let mut late = server.ws(&table, Some(&chatty), None).await;
    late.state().await;
    late.send(&ClientMessage::Chat {
        text: "again".to_owned(),
    })
    .await;
    assert_eq!(
        late.error().await,
        (
            ErrorCode::RateLimited,
            "too many chat lines, wait 3600 s".to_owned()
        )
    );
    server.stop().await;
}
