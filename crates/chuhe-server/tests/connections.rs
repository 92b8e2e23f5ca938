//! Connection limits: the cap of open connections per client address (WebSocket upgrades
//! included) and the time limit on a request's head (slowloris).

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
        header_timeout: Duration::from_secs(1),
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
