//! Ended tables leave memory: after the ended grace period without a WebSocket (paused time),
//! and beyond the limit of ended tables in memory (least recently used first). A table that left
//! comes back from the store with the same answers; live tables never leave. SQLite and
//! PostgreSQL.

#[macro_use]
mod common;

use chuhe_server::protocol::{ClientMessage, FinishedPage, Phase, Seat};
use chuhe_server::table::is_closed_error;
use chuhe_server::Settings;
use common::*;
use std::time::Duration;
use tokio::time::Instant;

/// Whether the table is in the server's memory.
async fn loaded(server: &Server, id: &str) -> bool {
    server.state.tables().await.iter().any(|t| t.id() == id)
}

/// The ids of the ended tables in memory, sorted.
async fn ended_in_memory(server: &Server) -> Vec<String> {
    let mut ids: Vec<String> = server
        .state
        .tables()
        .await
        .iter()
        .filter(|t| t.is_ended())
        .map(|t| t.id().to_owned())
        .collect();
    ids.sort();
    ids
}

/// A timed xiangqi game of two moves that Red resigns (version 7); both players have left.
async fn resigned_game(server: &Server) -> String {
    let (mut red, mut black, table) = seated_pair(server, TIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    red.act(&ClientMessage::Resign {}, 7).await;
    black.state_at(7).await;
    red.close().await;
    black.close().await;
    table
}

/// Everything a visitor can ask about a table: the summary, the positions, the PGN and the
/// event list over HTTP, and the raw frames of two WebSocket connections (the state alone, and
/// every event from the start then the state).
async fn answers(server: &Server, id: &str) -> Vec<String> {
    let mut out = Vec::new();
    for path in ["", "/positions", "/pgn", "/pgn?notation=iccs", "/events"] {
        let (status, _, body) = server
            .http("GET", &format!("/api/tables/{id}{path}"), None, None)
            .await;
        assert_eq!(status, 200, "{path}: {body}");
        out.push(body);
    }
    let mut now = server.ws(id, None, None).await;
    out.push(now.next_text().await);
    now.close().await;
    let mut all = server.ws(id, None, Some(0)).await;
    for _ in 0..8 {
        out.push(all.next_text().await);
    }
    all.close().await;
    out
}

/// An ended game stays while a spectator watches it (an hour of paused time), leaves memory the
/// ended grace period (10 minutes by default) after the last connection closed, and answers
/// exactly as before when asked again.
async fn ended_tables_leave_after_the_grace_period(backend: Backend) {
    let db = fresh_db(backend).await;
    // No heartbeat: on paused time it could close the watcher between a Ping and its Pong.
    let quiet = Settings {
        heartbeat: None,
        ..Settings::default()
    };
    let server = Server::start(&db, quiet).await;
    assert_eq!(Settings::default().ended_grace, Duration::from_secs(600));
    let table = resigned_game(&server).await;
    let mut watcher = server.ws(&table, None, None).await;
    let last = watcher.state().await;
    assert_eq!(last.version, 7);
    assert_eq!(last.table.phase, Phase::Ended);
    let before = answers(&server, &table).await;
    assert_eq!(before.len(), 14);
    assert!(before[0].contains(r#""phase":"ended""#), "{}", before[0]);
    assert!(
        before[2].contains("[Termination \"resignation\"]"),
        "{}",
        before[2]
    );
    assert!(
        before[13].starts_with(r#"{"type":"state","version":7,"#),
        "{}",
        before[13]
    );

    tokio::time::pause();
    watcher.idle(Duration::from_secs(3600)).await;
    assert!(loaded(&server, &table).await, "evicted while watched");

    watcher.close().await;
    let closed_at = Instant::now();
    while loaded(&server, &table).await {
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(
            closed_at.elapsed() < Duration::from_secs(700),
            "never evicted"
        );
    }
    let waited = closed_at.elapsed();
    assert!(
        waited >= Duration::from_secs(600) && waited < Duration::from_secs(602),
        "{waited:?}"
    );
    assert!(server.state.tables().await.is_empty());
    tokio::time::resume();

    let after = answers(&server, &table).await;
    assert_eq!(after, before);
    assert!(loaded(&server, &table).await);
    server.stop().await;
}
on_both!(ended_tables_leave_after_the_grace_period);

/// Open and running tables stay in memory through hours of paused time while an ended table of
/// the same server leaves after its grace period.
#[tokio::test]
async fn live_tables_never_leave() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        ended_grace: Duration::from_secs(5),
        max_ended_tables: 0,
        heartbeat: None,
        ..Settings::default()
    };
    let server = Server::start(&db, settings).await;
    // Open: the host sat and left.
    let host = server.guest("host").await;
    let open = server.create_table(&host, UNTIMED).await;
    let mut h = server.ws(&open, Some(&host), None).await;
    h.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    h.close().await;
    // Running, untimed, both players connected.
    let (mut red, mut black, running) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    let ended = resigned_game(&server).await;

    tokio::time::pause();
    tokio::join!(
        red.idle(Duration::from_secs(3 * 3600)),
        black.idle(Duration::from_secs(3 * 3600))
    );
    assert!(loaded(&server, &open).await);
    assert!(loaded(&server, &running).await);
    // The ended table leaves once its players' closes have reached the server (on a busy
    // machine that may come after the clock was paused): within its grace from then.
    let from = Instant::now();
    while loaded(&server, &ended).await {
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(
            from.elapsed() < Duration::from_secs(60),
            "the ended table never left"
        );
    }
    assert!(loaded(&server, &open).await);
    assert!(loaded(&server, &running).await);
    assert_eq!(server.state.tables().await.len(), 2);
    tokio::time::resume();

    let (_, _, body) = server
        .http("GET", &format!("/api/tables/{running}"), None, None)
        .await;
    assert!(body.contains(r#""phase":"running""#), "{body}");
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    server.stop().await;
}

/// Eight finished games opened in turn through the list, with at most three ended tables in
/// memory: the three most recently asked for stay, a watched one is never retired, the open
/// table is not counted, and a handle taken before a table left fails so that asking the state
/// again brings the table back.
async fn ended_tables_are_limited(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    for _ in 0..8 {
        resigned_game(&server).await;
    }
    let open = server
        .create_table(&server.guest("host").await, UNTIMED)
        .await;
    server.stop().await;

    let settings = Settings {
        max_ended_tables: 3,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    assert!(ended_in_memory(&server).await.is_empty());
    let (_, _, body) = server.http("GET", "/api/games", None, None).await;
    let page: FinishedPage = serde_json::from_str(&body).unwrap();
    let games: Vec<String> = page.games.iter().map(|g| g.id.clone()).collect();
    assert_eq!(games.len(), 8);

    let first = server.state.table(&games[0]).await.unwrap();
    for (i, id) in games.iter().enumerate() {
        let (status, _, body) = server
            .http("GET", &format!("/api/tables/{id}"), None, None)
            .await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""phase":"ended""#), "{body}");
        let mut expected: Vec<String> = games[i.saturating_sub(2)..=i].to_vec();
        expected.sort();
        assert_eq!(ended_in_memory(&server).await, expected, "after game {i}");
        assert!(loaded(&server, &open).await);
    }
    // The first game left: its old handle is closed, the state brings it back.
    let e = first.summary().await.unwrap_err();
    assert!(is_closed_error(&e), "{e:?}");
    let again = server.state.table_summary(&games[0]).await.unwrap();
    assert_eq!(again.id, games[0]);
    assert_eq!(again.phase, Phase::Ended);

    // A watched game stays although it is the least recently used.
    let mut watcher = server.ws(&games[0], None, None).await;
    assert_eq!(watcher.state().await.version, 7);
    for id in &games[1..] {
        let (status, _, _) = server
            .http("GET", &format!("/api/tables/{id}"), None, None)
            .await;
        assert_eq!(status, 200);
    }
    let mut expected = vec![games[0].clone(), games[6].clone(), games[7].clone()];
    expected.sort();
    assert_eq!(ended_in_memory(&server).await, expected);
    assert_eq!(server.state.tables().await.len(), 4);
    watcher.close().await;
    server.stop().await;
}
on_both!(ended_tables_are_limited);
