//! Integration tests with real WebSocket clients against a server on 127.0.0.1:0, on SQLite and
//! on PostgreSQL.

#[macro_use]
mod common;

use chuhe_rules::outcome::{EndReason, Outcome, Side};
use chuhe_rules::xiangqi::{Game, GameOptions, Position};
use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Phase, Seat, ServerMessage};
use chuhe_server::Settings;
use common::*;

struct GameCase {
    id: String,
    result: String,
    reason: EndReason,
    moves: Vec<String>,
}

fn game_cases() -> Vec<GameCase> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/server/games.tsv"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            GameCase {
                id: f[0].to_owned(),
                result: f[1].to_owned(),
                reason: f[2].parse().unwrap(),
                moves: f[3].split_whitespace().map(str::to_owned).collect(),
            }
        })
        .collect()
}

/// Whole games to checkmate: every state has the legal moves for the seat to move only, the
/// spectators see every move, the result is stored.
async fn full_games(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let cases = game_cases();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let (mut red, mut black, table) = seated_pair(&server, TIMED).await;
        let watcher_cookie = server.guest("watcher").await;
        let mut watcher = server.ws(&table, Some(&watcher_cookie), None).await;
        let mut anonymous = server.ws(&table, None, None).await;
        assert_eq!(watcher.state_at(3).await.you, None);
        let mut states = [
            red.act(&ClientMessage::Start {}, 4).await,
            black.state_at(4).await,
        ];
        let mut game = Game::new(Position::start(), GameOptions::default());
        for (i, text) in case.moves.iter().enumerate() {
            let version = 4 + i as u64;
            let seat = i % 2;
            if i > 0 {
                states = [red.state_at(version).await, black.state_at(version).await];
            }
            // Durable before acknowledged: what the clients were told is in the database.
            let stored = server.state.store().events(&table).await.unwrap();
            assert_eq!(stored.len() as u64, version);
            let mut legal: Vec<String> = game
                .position()
                .legal_moves()
                .iter()
                .map(|m| m.to_string())
                .collect();
            legal.sort();
            assert_eq!(
                states[seat].to_move,
                Some(Seat::new(seat)),
                "{} ply {i}",
                case.id
            );
            assert_eq!(states[seat].legal_moves, legal, "{} ply {i}", case.id);
            assert!(states[1 - seat].legal_moves.is_empty());
            let clocks = states[seat].clocks.clone().unwrap();
            assert!(clocks[seat].running && !clocks[1 - seat].running);
            let mover = if seat == 0 { &mut red } else { &mut black };
            mover.send(&mv(version, text)).await;
            game.play(text.parse().unwrap()).unwrap();
        }
        let plies = case.moves.len() as u64;
        let last = 4 + plies + 1;
        let outcome = Outcome::win(
            if case.result == "1-0" {
                Side::Red
            } else {
                Side::Black
            },
            case.reason,
        );
        for client in [&mut red, &mut black, &mut watcher, &mut anonymous] {
            let state = client.state_at(last).await;
            assert_eq!(state.table.phase, Phase::Ended);
            assert_eq!(state.outcome.as_ref(), Some(&outcome));
            assert_eq!(state.to_move, None);
            assert!(state.legal_moves.is_empty());
            assert!(state.clocks.unwrap().iter().all(|c| !c.running));
            let chuhe_server::variant::BoardView::Xiangqi { fen, moves } = state.board else {
                panic!("not a xiangqi board");
            };
            assert_eq!(fen, game.position().to_string());
            assert_eq!(moves, case.moves);
        }
        // The stored record: every event, the moves in order, the end last.
        let (status, _, body) = server
            .http("GET", &format!("/api/tables/{table}/events"), None, None)
            .await;
        assert_eq!(status, 200);
        let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
        assert_eq!(events.len() as u64, last);
        let stored_moves: Vec<String> = events
            .iter()
            .filter(|e| e["event"]["kind"] == "moved")
            .map(|e| e["event"]["move"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(stored_moves, case.moves);
        assert_eq!(
            events.last().unwrap()["event"]["result"],
            case.result.as_str()
        );
        // The PGN export (ICCS): tags from the table, one full move per line, the result last.
        let (status, head, pgn) = server
            .http(
                "GET",
                &format!("/api/tables/{table}/pgn?notation=iccs"),
                None,
                None,
            )
            .await;
        assert_eq!(status, 200, "{pgn}");
        assert!(head.contains("application/x-chess-pgn"));
        let (tags, movetext) = pgn.split_once("\n\n").unwrap();
        for tag in [
            format!("[Event \"chuhe table {table}\"]"),
            "[Red \"red player\"]".to_owned(),
            "[Black \"black player\"]".to_owned(),
            format!("[Result \"{}\"]", case.result),
            "[TimeControl \"600+2\"]".to_owned(),
        ] {
            assert!(tags.lines().any(|l| l == tag), "{tag} missing in {tags}");
        }
        let hyphen = |m: &String| format!("{}-{}", &m[..2], &m[2..]).to_uppercase();
        let mut expected: Vec<String> = case
            .moves
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                let texts: Vec<String> = pair.iter().map(hyphen).collect();
                format!("{}. {}", i + 1, texts.join(" "))
            })
            .collect();
        expected.push(case.result.clone());
        assert_eq!(movetext.lines().collect::<Vec<_>>(), expected);
        let (status, _, chinese) = server
            .http("GET", &format!("/api/tables/{table}/pgn"), None, None)
            .await;
        assert_eq!(status, 200);
        let chinese_tags = chinese.split_once("\n\n").unwrap().0;
        assert_eq!(format!("{chinese_tags}\n[Format \"ICCS\"]"), tags);
        let chinese_moves = chinese.split_once("\n\n").unwrap().1;
        assert_eq!(chinese_moves.lines().count(), expected.len());
        assert!(chinese_moves.starts_with("1. "), "{chinese_moves}");
        // Ended tables leave the list.
        let (_, _, list) = server.http("GET", "/api/tables", None, None).await;
        assert!(!list.contains(&table), "{list}");
    }
    server.stop().await;
}
on_both!(full_games);

/// Every bad message gets an error and changes nothing; stale and doubled moves are refused.
async fn refused_messages(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let (mut red, mut black, table) = seated_pair(&server, UNTIMED).await;
    let watcher_cookie = server.guest("watcher").await;
    let mut watcher = server.ws(&table, Some(&watcher_cookie), None).await;
    let mut anonymous = server.ws(&table, None, None).await;
    watcher.state_at(3).await;
    anonymous.state_at(3).await;
    // Before the start: moves and the start with a seat empty are refused too.
    red.send(&mv(3, "h2e2")).await;
    assert_eq!(
        red.error().await,
        (ErrorCode::NotAllowed, "the game has not started".to_owned())
    );
    red.act(&ClientMessage::Start {}, 4).await;
    for client in [&mut black, &mut watcher, &mut anonymous] {
        client.state_at(4).await;
    }

    let cases: Vec<(&str, &str, ErrorCode, &str)> = vec![
        (
            "black",
            r#"{"type":"move","version":4,"move":"h9g7"}"#,
            ErrorCode::NotYourTurn,
            "it is not your turn",
        ),
        (
            "red",
            r#"{"type":"move","version":3,"move":"h2e2"}"#,
            ErrorCode::StaleVersion,
            "stale version 3: the table is at version 4",
        ),
        (
            "red",
            r#"{"type":"move","version":4,"move":"h2h7"}"#,
            ErrorCode::IllegalMove,
            "illegal move: h2h7 (cannon needs exactly one screen to capture)",
        ),
        (
            "red",
            r#"{"type":"move","version":4,"move":"e0e2"}"#,
            ErrorCode::IllegalMove,
            "illegal move: e0e2 (general moves one point orthogonally)",
        ),
        (
            "red",
            r#"{"type":"move","version":4,"move":"zz"}"#,
            ErrorCode::IllegalMove,
            "illegal move: not a move: \"zz\" (expected ICCS such as h2e2)",
        ),
        (
            "red",
            r#"{"type":"sit","seat":1}"#,
            ErrorCode::NotAllowed,
            "seats change only before the start",
        ),
        (
            "red",
            r#"{"type":"stand"}"#,
            ErrorCode::NotAllowed,
            "seats change only before the start",
        ),
        (
            "red",
            r#"{"type":"accept_draw"}"#,
            ErrorCode::NotAllowed,
            "there is no draw offer to answer",
        ),
        (
            "watcher",
            r#"{"type":"move","version":4,"move":"h2e2"}"#,
            ErrorCode::NotSeated,
            "only a seated player can do that",
        ),
        (
            "watcher",
            r#"{"type":"resign"}"#,
            ErrorCode::NotSeated,
            "only a seated player can do that",
        ),
        (
            "watcher",
            r#"{"type":"offer_draw"}"#,
            ErrorCode::NotSeated,
            "only a seated player can do that",
        ),
        (
            "anonymous",
            r#"{"type":"sit","seat":0}"#,
            ErrorCode::Unauthorized,
            "sitting needs a session",
        ),
        (
            "anonymous",
            r#"{"type":"abort"}"#,
            ErrorCode::NotSeated,
            "only a seated player can do that",
        ),
    ];
    for (who, text, code, message) in cases {
        let client = match who {
            "red" => &mut red,
            "black" => &mut black,
            "watcher" => &mut watcher,
            _ => &mut anonymous,
        };
        client.send_text(text).await;
        assert_eq!(
            client.error().await,
            (code, message.to_owned()),
            "{who} {text}"
        );
    }
    // Unreadable messages: the serde message names the problem.
    for text in [
        "{",
        r#"{"type":"fly"}"#,
        r#"{"type":"move","version":4}"#,
        r#"{"type":"move","version":4,"move":"h2e2","extra":1}"#,
    ] {
        red.send_text(text).await;
        let (code, message) = red.error().await;
        assert_eq!(code, ErrorCode::BadMessage, "{text}");
        assert!(message.starts_with("bad message: "), "{message}");
    }
    red.send_text(&format!(
        r#"{{"type":"ping","pad":"{}"}}"#,
        "x".repeat(5000)
    ))
    .await;
    assert_eq!(
        red.error().await,
        (ErrorCode::TooLarge, "message too large".to_owned())
    );
    // Nothing changed: still version 4 at the start position.
    red.send(&ClientMessage::Sync { since: None }).await;
    let state = red.state_at(4).await;
    assert_eq!(state.table.phase, Phase::Running);
    assert_eq!(state.legal_moves.len(), 44);
    // One move is accepted once: the same message again is stale, as is black's answer to v4.
    red.act(&mv(4, "h2e2"), 5).await;
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::StaleVersion,
            "stale version 4: the table is at version 5".to_owned()
        )
    );
    black.state_at(5).await;
    black.send(&mv(4, "h9g7")).await;
    assert_eq!(black.error().await.0, ErrorCode::StaleVersion);
    black.send(&ClientMessage::Sync { since: None }).await;
    let state = black.state_at(5).await;
    let chuhe_server::variant::BoardView::Xiangqi { moves, .. } = state.board else {
        panic!("not a xiangqi board");
    };
    assert_eq!(moves, vec!["h2e2"]);
    // A WebSocket to an unknown table is refused over HTTP.
    let url = format!("ws://{}/api/tables/nope/ws", server.addr);
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 404)
        }
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    server.stop().await;
}
on_both!(refused_messages);

/// A client that reconnects with `?since=N` gets the events it missed, in order, then a state.
async fn reconnect_replays(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let red_cookie = server.guest("red player").await;
    let black_cookie = server.guest("black player").await;
    let table = server.create_table(&red_cookie, TIMED).await;
    let mut red = server.ws(&table, Some(&red_cookie), None).await;
    let mut black = server.ws(&table, Some(&black_cookie), None).await;
    red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    black
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
        .await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    black.close().await;
    red.act(&mv(4, "h2e2"), 5).await;
    red.act(&ClientMessage::OfferDraw {}, 6).await;

    let mut black = server.ws(&table, Some(&black_cookie), Some(3)).await;
    let mut got = Vec::new();
    let state = loop {
        match black.next().await {
            ServerMessage::Event { version, event } => got.push((version, event)),
            ServerMessage::State(s) => break *s,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], (4, Event::Started));
    assert_eq!(
        got[1],
        (
            5,
            Event::Moved {
                seat: Seat::new(0),
                mv: "h2e2".to_owned(),
                ply: 1,
                clocks_ms: match &got[1].1 {
                    Event::Moved { clocks_ms, .. } => clocks_ms.clone(),
                    _ => None,
                },
            }
        )
    );
    assert_eq!(got[2], (6, Event::DrawOffered { seat: Seat::new(0) }));
    assert_eq!(state.version, 6);
    assert_eq!(state.you, Some(Seat::new(1)));
    assert_eq!(state.draw_offer, Some(Seat::new(0)));
    assert_eq!(state.to_move, Some(Seat::new(1)));
    let mut after_h2e2 = Position::start();
    after_h2e2.play("h2e2".parse().unwrap()).unwrap();
    assert_eq!(state.legal_moves.len(), after_h2e2.legal_moves().len());
    // A move answers the draw offer by declining it.
    let after = black.act(&mv(6, "h9g7"), 7).await;
    assert_eq!(after.draw_offer, None);
    // From the beginning: every event with versions 1 … 7.
    let mut late = server.ws(&table, None, Some(0)).await;
    let mut versions = Vec::new();
    loop {
        match late.next().await {
            ServerMessage::Event { version, .. } => versions.push(version),
            ServerMessage::State(s) => {
                assert_eq!(s.version, 7);
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(versions, (1..=7).collect::<Vec<u64>>());
    // A version from the future is refused and the socket closed.
    let mut future = server.ws(&table, None, Some(99)).await;
    assert_eq!(
        future.error().await,
        (
            ErrorCode::BadMessage,
            "bad message: since 99 is beyond the table's version 7".to_owned()
        )
    );
    assert!(future.closed().await);
    server.stop().await;
}
on_both!(reconnect_replays);

/// A graceful stop and a new server on the same database: the game, its version and its clocks
/// come back, and play goes on.
async fn restart_keeps_games(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let (mut red, mut black, table) = seated_pair(&server, TIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    let before = black.act(&mv(5, "h9g7"), 6).await;
    red.state_at(6).await;
    // a seek: its creator seated, so the lobby lists it
    let (status, _, open_table) = server
        .http(
            "POST",
            "/api/tables?seat=0",
            Some(&server.guest("host").await),
            Some(UNTIMED),
        )
        .await;
    assert_eq!(status, 201, "{open_table}");
    let open_table: serde_json::Value = serde_json::from_str(&open_table).unwrap();
    let open_table = open_table["id"].as_str().unwrap().to_owned();
    server.stop().await;
    assert!(red.closed().await);

    let server = Server::start(&db, Settings::default()).await;
    let (_, _, list) = server.http("GET", "/api/tables", None, None).await;
    let list: Vec<serde_json::Value> = serde_json::from_str(&list).unwrap();
    let mut ids: Vec<&str> = list.iter().map(|t| t["id"].as_str().unwrap()).collect();
    ids.sort();
    let mut expected = vec![table.as_str(), open_table.as_str()];
    expected.sort();
    assert_eq!(ids, expected);
    let red_cookie = red.cookie.clone().unwrap();
    let black_cookie = black.cookie.clone().unwrap();
    let mut black = server.ws(&table, Some(&black_cookie), None).await;
    let after = black.state_at(6).await;
    assert_eq!(after.board, before.board);
    assert_eq!(after.table, before.table);
    assert_eq!(after.you, Some(Seat::new(1)));
    let (b, a) = (before.clocks.unwrap(), after.clocks.unwrap());
    // Black's clock is stopped: exactly as before. Red's runs: at most a few seconds less.
    assert_eq!(a[1], b[1]);
    assert!(a[0].running && a[0].remaining_ms <= b[0].remaining_ms);
    assert!(b[0].remaining_ms - a[0].remaining_ms < 5_000);
    // Play goes on at the same version.
    let mut red = server.ws(&table, Some(&red_cookie), None).await;
    let state = red.state_at(6).await;
    let mut pos = Position::start();
    for m in ["h2e2", "h9g7"] {
        pos.play(m.parse().unwrap()).unwrap();
    }
    assert_eq!(state.legal_moves.len(), pos.legal_moves().len());
    red.act(&mv(6, "h0g2"), 7).await;
    black.state_at(7).await;
    server.stop().await;
}
on_both!(restart_keeps_games);

/// Issue 25 item 7: a move sent against the version before the opponent's draw offer or
/// takeback request (they crossed) is played, and withdraws what was pending; the stored
/// events say so, and a restart replays them to the same table.
async fn a_move_that_crosses_an_offer_is_played(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let (mut red, mut black, table) = seated_pair(&server, TIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    // Black offers a draw while Red's move for version 4 is on its way.
    let offered = black.act(&ClientMessage::OfferDraw {}, 5).await;
    assert_eq!(offered.draw_offer, Some(Seat::new(1)));
    red.send(&mv(4, "h2e2")).await;
    for c in [&mut red, &mut black] {
        let after = c.state_at(6).await;
        assert_eq!(after.draw_offer, None);
        assert_eq!(after.to_move, Some(Seat::new(1)));
        let clocks = after.clocks.unwrap();
        assert_eq!((clocks[0].running, clocks[1].running), (false, true));
    }
    // Red asks for a takeback while Black's move for version 6 is on its way.
    let asked = red.act(&ClientMessage::Takeback {}, 7).await;
    assert_eq!(asked.takeback_offer, Some(Seat::new(0)));
    black.send(&mv(6, "h9g7")).await;
    let before = black.state_at(8).await;
    assert_eq!(before.takeback_offer, None);
    let chuhe_server::variant::BoardView::Xiangqi { moves, .. } = &before.board else {
        panic!("not a xiangqi board");
    };
    assert_eq!(moves, &["h2e2", "h9g7"]);
    red.state_at(8).await;
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}/events"), None, None)
        .await;
    assert_eq!(status, 200);
    let stored: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    let kinds: Vec<&str> = stored
        .iter()
        .map(|e| e["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "created",
            "sat",
            "sat",
            "started",
            "draw_offered",
            "moved",
            "takeback_offered",
            "moved"
        ]
    );
    server.stop().await;

    // The stored events replay to the same table, and play goes on.
    let server = Server::start(&db, Settings::default()).await;
    let mut black = server.ws(&table, black.cookie.as_deref(), None).await;
    let after = black.state_at(8).await;
    assert_eq!(after.board, before.board);
    assert_eq!(after.table, before.table);
    assert_eq!((after.draw_offer, after.takeback_offer), (None, None));
    let mut red = server.ws(&table, red.cookie.as_deref(), None).await;
    red.state_at(8).await;
    red.act(&mv(8, "h0g2"), 9).await;
    black.state_at(9).await;
    server.stop().await;
}
on_both!(a_move_that_crosses_an_offer_is_played);
