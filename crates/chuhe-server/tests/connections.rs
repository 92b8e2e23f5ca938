//! Connection limits: the cap of open connections per client address (WebSocket upgrades
//! included) and the time limits on a request's head (slowloris) and body.

mod common;

use chuhe_server::protocol::{ClientMessage, ServerMessage};
use chuhe_server::Settings;
use common::*;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Everything the server sends on `tcp` until it closes it (a guard of 30 s fails the test if
/// it never does).
async fn read_to_close(tcp: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), tcp.read_to_end(&mut out))
        .await
        .expect("the server did not close the connection")
        .unwrap_or_default();
    String::from_utf8_lossy(&out).into_owned()
}

/// With a cap of 4: four WebSockets from 127.0.0.1 are open; a fifth connection is answered
/// 429 and closed, while the four still work; once one closes, a new connection is served.
#[tokio::test]
async fn the_connection_over_the_cap_is_refused_and_the_others_work() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        max_connections_per_address: 4,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let cookie = server.guest("host").await;
    let table = server.create_table(&cookie, UNTIMED).await;
    let mut sockets = Vec::new();
    for _ in 0..4 {
        let mut ws = server.ws(&table, None, None).await;
        ws.state_at(1).await;
        sockets.push(ws);
    }
    let mut extra = TcpStream::connect(server.addr).await.unwrap();
    let answer = read_to_close(&mut extra).await;
    assert_eq!(
        answer,
        "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\
         Connection: close\r\nContent-Length: 75\r\n\r\n\
         {\"error\":\"rate_limited\",\"message\":\"too many connections from your address\"}"
    );
    for ws in &mut sockets {
        ws.send(&ClientMessage::Ping {}).await;
        assert_eq!(ws.next().await, ServerMessage::Pong);
    }
    sockets.pop().unwrap().close().await;
    // The server counts the closed one out once it has seen the close.
    let mut served = false;
    for _ in 0..100 {
        let (status, _, _) = server.http("GET", "/api/health", None, None).await;
        if status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(served, "no connection was served after one closed");
    server.stop().await;
}

/// A client that sends half a request head and then nothing is closed once the head's time
/// limit (1 s here) has passed, with 408 or no answer; a full request on another connection
/// is served meanwhile.
#[tokio::test]
async fn a_slowloris_connection_is_closed_after_the_header_timeout() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        request_timeout: Duration::from_secs(1),
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let (status, _, _) = server.http("GET", "/api/health", None, None).await;
    assert_eq!(status, 200);
    let answer = read_to_close(&mut slow).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    server.stop().await;
}

/// A client that sends a full head and then its body one byte every 300 ms is answered 408
/// `request_timeout` once the limit (1 s here) has passed since the head, and its connection
/// is closed; a full request on another connection is served meanwhile.
#[tokio::test]
async fn a_slow_body_is_answered_408_and_its_connection_closed() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        request_timeout: Duration::from_secs(1),
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (mut read, mut write) = tcp.into_split();
    write
        .write_all(
            b"POST /api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 64\r\n\r\n",
        )
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let dribble = tokio::spawn(async move {
        for _ in 0..64 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if write.write_all(b" ").await.is_err() {
                break;
            }
        }
    });
    let (status, _, _) = server.http("GET", "/api/health", None, None).await;
    assert_eq!(status, 200);
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), read.read_to_end(&mut out))
        .await
        .expect("the server did not close the connection")
        .unwrap_or_default();
    let elapsed = started.elapsed();
    let answer = String::from_utf8_lossy(&out);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""error":"request_timeout""#), "{answer}");
    assert!(
        answer.contains("the request was not received within 1 s"),
        "{answer}"
    );
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5),
        "closed after {elapsed:?}"
    );
    dribble.abort();
    server.stop().await;
}

/// A crowd of watchers on one table (over 64 connections) gets the spectator count at most
/// once a second, not once per joining connection: 80 spectators join, and each sees only a
/// few count messages, the last one saying 80 (docs/performance.md, "Watchers").
#[tokio::test]
async fn a_crowd_gets_the_spectator_count_coalesced() {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        max_connections_per_address: 200,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let cookie = server.guest("host").await;
    let table = server.create_table(&cookie, UNTIMED).await;
    let url = format!("ws://{}/api/tables/{table}/ws", server.addr);
    let mut crowd = Vec::new();
    for _ in 0..80 {
        let (ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        crowd.push(ws);
    }
    for ws in &mut crowd {
        let mut counts: Vec<u64> = Vec::new();
        while counts.last() != Some(&80) {
            let frame = tokio::time::timeout(Duration::from_secs(5), ws.next())
                .await
                .unwrap_or_else(|_| panic!("no count of 80 within 5 s: {counts:?}"))
                .expect("open")
                .unwrap();
            let Message::Text(text) = frame else { continue };
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            if value["type"] == "spectators" {
                counts.push(value["count"].as_u64().unwrap());
            }
        }
        // Up to 64 connections each join is told at once; above, one count a second.
        assert!(
            counts.len() <= 64 + 3,
            "{} counts: {counts:?}",
            counts.len()
        );
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    }
    server.stop().await;
}
