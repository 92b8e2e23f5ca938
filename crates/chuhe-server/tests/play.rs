//! Clocks on paused time, abandonment, rate limits, resign / draw / abort, the computer player,
//! accounts and HTTP errors (SQLite).

#[macro_use]
mod common;

use chuhe_rules::outcome::{EndReason, Outcome, Side};
use chuhe_server::accounts::rating::{rate_game, Rating};
use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Seat, ServerMessage};
use chuhe_server::{Heartbeat, Settings};
use common::*;
use std::time::Duration;
use tokio::time::Instant;

/// Both sides make their first move at once, then Red never moves again: Red's 5 s (plus the
/// 300 ms lag allowance) run out on paused time and Black wins on time; the clocks show 0 for
/// Red and Black's untouched 5 s. (A seat that never made its first move aborts the game
/// instead: `tests/seeks.rs`.)
#[tokio::test]
async fn timeout_on_paused_time() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Settings::default().grace)).await;
    let options = r#"{"variant":"xiangqi","time":{"initial_ms":5000,"increment_ms":0}}"#;
    let (mut red, mut black, _) = seated_pair(&server, options).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    tokio::time::pause();
    red.act(&mv(4, "h2e2"), 5).await;
    let (version, event) = black.event().await;
    assert_eq!(version, 5);
    assert!(
        matches!(event, Event::Moved { ref clocks_ms, .. } if *clocks_ms == Some(vec![5000, 5000]))
    );
    black.state_at(5).await;
    let paused_at = Instant::now();
    black.act(&mv(5, "h9g7"), 6).await;
    assert_eq!(red.event().await.0, 6);
    let (version, event) = red.event().await;
    let waited = paused_at.elapsed();
    assert_eq!(version, 7);
    assert_eq!(
        event,
        Event::Ended {
            outcome: Outcome::win(Side::Black, EndReason::Timeout),
            result: Some("0-1".to_owned()),
            winner_seats: vec![Seat::new(1)],
        }
    );
    assert!(
        waited >= Duration::from_millis(5300) && waited < Duration::from_millis(6000),
        "{waited:?}"
    );
    let state = red.state_at(7).await;
    let clocks: Vec<(u64, bool)> = state
        .clocks
        .unwrap()
        .iter()
        .map(|c| (c.remaining_ms, c.running))
        .collect();
    assert_eq!(clocks, vec![(0, false), (5000, false)]);
    // A move after the end is refused.
    red.send(&mv(7, "h0g2")).await;
    assert_eq!(
        red.error().await,
        (ErrorCode::NotAllowed, "the game has ended".to_owned())
    );
    server.stop().await;
}

/// Black disconnects; after the grace period (20 s, paused time) Black loses by abandonment.
/// Red sees the presence change first.
#[tokio::test]
async fn abandonment_after_the_grace_period() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(20))).await;
    let (mut red, mut black, _) = seated_pair(&server, r#"{"variant":"xiangqi"}"#).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    tokio::time::pause();
    let paused_at = Instant::now();
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    // Black has moved: its absence now loses (before its first move it would abort the game)
    black.act(&mv(5, "h9g7"), 6).await;
    red.state_at(6).await;
    black.close().await;
    assert_eq!(
        red.next().await,
        ServerMessage::Presence {
            seat: Seat::new(1),
            connected: false,
            abandon_ms: Some(20_000),
        }
    );
    let (version, event) = red.event().await;
    assert_eq!(version, 7);
    assert_eq!(
        event,
        Event::Ended {
            outcome: Outcome::win(Side::Red, EndReason::Abandonment),
            result: Some("1-0".to_owned()),
            winner_seats: vec![Seat::new(0)],
        }
    );
    let waited = paused_at.elapsed();
    assert!(
        waited >= Duration::from_secs(20) && waited < Duration::from_secs(21),
        "{waited:?}"
    );
    server.stop().await;
}

/// A seated player who is not connected cannot be started against: `start` is refused with
/// `not_ready`, and after the grace period (30 s, paused time, not before) the open table frees
/// the seat with a `stood` event.
#[tokio::test]
async fn absent_at_the_start() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(30))).await;
    let (mut red, black, _) = seated_pair(&server, r#"{"variant":"xiangqi"}"#).await;
    tokio::time::pause();
    let paused_at = Instant::now();
    black.close().await;
    // Black's sitting announced it connected; now it is gone.
    assert_eq!(
        red.next().await,
        ServerMessage::Presence {
            seat: Seat::new(1),
            connected: true,
            abandon_ms: None,
        }
    );
    assert_eq!(
        red.next().await,
        ServerMessage::Presence {
            seat: Seat::new(1),
            connected: false,
            abandon_ms: Some(30_000),
        }
    );
    red.send(&ClientMessage::Start {}).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotReady,
            "a seated player is not connected".to_owned()
        )
    );
    assert_eq!(red.event().await, (4, Event::Stood { seat: Seat::new(1) }));
    let waited = paused_at.elapsed();
    assert!(
        waited >= Duration::from_secs(30) && waited < Duration::from_secs(31),
        "{waited:?}"
    );
    let state = red.state_at(4).await;
    assert_eq!(state.table.seats[1], None);
    assert!(state.table.seats[0].is_some());
    server.stop().await;
}

/// A seated player who comes back within the grace period keeps the seat, and the game can
/// start after the grace period would have run out. On real time with a 2 s grace: with paused
/// time, the clock jumps to the grace's end whenever the runtime waits for the database.
#[tokio::test]
async fn reconnecting_keeps_the_open_seat() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(2))).await;
    let (mut red, black, table) = seated_pair(&server, r#"{"variant":"xiangqi"}"#).await;
    let cookie = black.cookie.clone().unwrap();
    black.close().await;
    red.idle(Duration::from_millis(200)).await;
    let mut black = server.ws(&table, Some(&cookie), None).await;
    assert_eq!(black.state_at(3).await.you, Some(Seat::new(1)));
    tokio::join!(
        red.idle(Duration::from_secs(3)),
        black.idle(Duration::from_secs(3))
    );
    let state = red.act(&ClientMessage::Start {}, 4).await;
    assert_eq!(state.connected, vec![true, true]);
    assert_eq!(state.to_move, Some(Seat::new(0)));
    assert_eq!(black.event().await, (4, Event::Started));
    server.stop().await;
}

/// The heartbeat, on real time with short intervals (paused time would jump past the Pongs of
/// loopback sockets): a Ping every 100 ms; Black's client never reads, so never answers, and is
/// closed after 400 ms of silence: Red sees Black disconnected. Red's client answers the Pings
/// and is still served a second later.
#[tokio::test]
async fn a_silent_connection_is_closed() {
    assert_eq!(
        Settings::default().heartbeat,
        Some(Heartbeat {
            ping_interval: Duration::from_secs(20),
            silence_limit: Duration::from_secs(45),
        })
    );
    let db = fresh_db(Backend::Sqlite).await;
    let short = Settings {
        heartbeat: Some(Heartbeat {
            ping_interval: Duration::from_millis(100),
            silence_limit: Duration::from_millis(400),
        }),
        ..Settings::default()
    };
    let server = Server::start(&db, short).await;
    let (mut red, mut black, _) = seated_pair(&server, r#"{"variant":"xiangqi"}"#).await;
    red.act(&ClientMessage::Start {}, 4).await;
    let started = Instant::now();
    loop {
        match red.next().await {
            ServerMessage::Presence {
                seat,
                connected: false,
                ..
            } if seat == Seat::new(1) => break,
            ServerMessage::Presence { .. }
            | ServerMessage::Event { .. }
            | ServerMessage::State(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
    let waited = started.elapsed();
    assert!(waited <= Duration::from_millis(2000), "{waited:?}");
    assert!(black.closed().await);
    red.idle(Duration::from_secs(1)).await;
    red.send(&ClientMessage::Ping {}).await;
    assert_eq!(red.next().await, ServerMessage::Pong);
    server.stop().await;
}

/// Rejections of axum's extractors and router answer with the usual JSON error body: a body over
/// 16 KiB, and a method the route does not take.
#[tokio::test]
async fn extractor_rejections_are_json() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let big = format!(r#"{{"name":"{}"}}"#, "x".repeat(20_000));
    let (status, head, body) = server.http("POST", "/api/session", None, Some(&big)).await;
    assert_eq!(
        (status, body.as_str()),
        (
            413,
            r#"{"error":"too_large","message":"message too large"}"#
        )
    );
    assert!(
        head.to_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let (status, head, body) = server.http("DELETE", "/api/tables", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (
            405,
            r#"{"error":"method_not_allowed","message":"method not allowed for this route"}"#
        )
    );
    assert!(
        head.to_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let (status, _, body) = server.http("GET", "/api/session", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (
            405,
            r#"{"error":"method_not_allowed","message":"method not allowed for this route"}"#
        )
    );
    server.stop().await;
}

/// Thirty messages at one instant: the burst of 20 is served, 10 are refused.
#[tokio::test]
async fn rate_limit() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let table = server
        .create_table(&server.guest("host").await, r#"{"variant":"xiangqi"}"#)
        .await;
    let mut c = server.ws(&table, None, None).await;
    c.state_at(1).await;
    tokio::time::pause();
    for _ in 0..30 {
        c.send(&ClientMessage::Ping {}).await;
    }
    let (mut pongs, mut limited) = (0, 0);
    for _ in 0..30 {
        match c.next().await {
            ServerMessage::Pong => pongs += 1,
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!((pongs, limited), (20, 10));
    server.stop().await;
}

/// Resignation, draw by agreement, a declined offer, and aborting before the first move.
#[tokio::test]
async fn resign_draw_and_abort() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let untimed = r#"{"variant":"xiangqi"}"#;

    // Abort before the first move: no result; after a move it is refused.
    let (mut red, mut black, _) = seated_pair(&server, untimed).await;
    red.act(&ClientMessage::Start {}, 4).await;
    let state = black.act(&ClientMessage::Abort {}, 5).await;
    assert_eq!(state.outcome, Some(Outcome::draw(EndReason::Aborted)));
    let (mut red2, _black2, _) = seated_pair(&server, untimed).await;
    red2.act(&ClientMessage::Start {}, 4).await;
    red2.act(&mv(4, "h2e2"), 5).await;
    red2.send(&ClientMessage::Abort {}).await;
    assert_eq!(
        red2.error().await,
        (
            ErrorCode::NotAllowed,
            "a game can be aborted only before its first move".to_owned()
        )
    );
    drop(red);

    // Resignation: Red resigns, Black wins.
    let (mut red, mut black, _) = seated_pair(&server, untimed).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&ClientMessage::Resign {}, 5).await;
    let (_, event) = black.event().await;
    assert_eq!(event, Event::Started);
    assert_eq!(
        black.event().await,
        (
            5,
            Event::Ended {
                outcome: Outcome::win(Side::Black, EndReason::Resignation),
                result: Some("0-1".to_owned()),
                winner_seats: vec![Seat::new(1)],
            }
        )
    );

    // Draw offers: declined, offered twice (refused), then accepted.
    let (mut red, mut black, _) = seated_pair(&server, untimed).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&ClientMessage::OfferDraw {}, 5).await;
    red.send(&ClientMessage::OfferDraw {}).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotAllowed,
            "you already offered a draw".to_owned()
        )
    );
    red.send(&ClientMessage::AcceptDraw {}).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotAllowed,
            "there is no draw offer to answer".to_owned()
        )
    );
    let state = black.act(&ClientMessage::DeclineDraw {}, 6).await;
    assert_eq!(state.draw_offer, None);
    black.act(&ClientMessage::OfferDraw {}, 7).await;
    let state = red.act(&ClientMessage::AcceptDraw {}, 8).await;
    assert_eq!(state.outcome, Some(Outcome::draw(EndReason::Agreement)));
    assert_eq!(
        black.event().await,
        (
            8,
            Event::Ended {
                outcome: Outcome::draw(EndReason::Agreement),
                result: Some("1/2-1/2".to_owned()),
                winner_seats: vec![],
            }
        )
    );
    server.stop().await;
}

/// A guest against the computer at level 3: every computer answer is a legal move of the
/// position it was made in, and comes as the next version.
#[tokio::test]
async fn computer_answers() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let cookie = server.guest("human").await;
    let table = server
        .create_table(
            &cookie,
            r#"{"variant":"xiangqi","time":{"initial_ms":60000,"increment_ms":0}}"#,
        )
        .await;
    let mut me = server.ws(&table, Some(&cookie), None).await;
    me.send(&ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 3,
    })
    .await;
    assert_eq!(
        me.error().await,
        (
            ErrorCode::NotSeated,
            "only a seated player can do that".to_owned()
        )
    );
    me.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    me.send(&ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 9,
    })
    .await;
    assert_eq!(
        me.error().await,
        (
            ErrorCode::BadMessage,
            "bad message: level must be between 1 and 8".to_owned()
        )
    );
    me.act(
        &ClientMessage::SitComputer {
            seat: Seat::new(1),
            level: 3,
        },
        3,
    )
    .await;
    let mut state = me.act(&ClientMessage::Start {}, 4).await;
    assert_eq!(state.connected, vec![true, true]);
    let mut game = chuhe_rules::xiangqi::Game::new(
        chuhe_rules::xiangqi::Position::start(),
        chuhe_rules::xiangqi::GameOptions::default(),
    );
    for round in 0..4u64 {
        let version = 4 + 2 * round;
        assert_eq!(state.version, version);
        let mine = state.legal_moves[0].clone();
        me.send(&mv(version, &mine)).await;
        game.play(mine.parse().unwrap()).unwrap();
        assert_eq!(me.event().await.0, version + 1);
        let (v, event) = me.event().await;
        assert_eq!(v, version + 2);
        let Event::Moved {
            seat, mv: answer, ..
        } = event
        else {
            panic!("expected the computer's move, got {event:?}");
        };
        assert_eq!(seat, Seat::new(1));
        let m = answer.parse().unwrap();
        assert!(game.position().is_legal(m), "{answer}");
        game.play(m).unwrap();
        state = me.state_at(version + 2).await;
    }
    server.stop().await;
}

/// The computer keeps time on a short clock: at level 8 (a 2.5 s budget) with 2 s for the whole
/// game, each answer takes a share of what is left (a twentieth here), pause included, so six
/// rounds pass without a loss on time.
#[tokio::test]
async fn the_computer_keeps_time_on_a_short_clock() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let cookie = server.guest("blitz").await;
    let table = server
        .create_table(
            &cookie,
            r#"{"variant":"xiangqi","time":{"initial_ms":2000,"increment_ms":0}}"#,
        )
        .await;
    let mut me = server.ws(&table, Some(&cookie), None).await;
    me.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    let level = ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 8,
    };
    me.act(&level, 3).await;
    let mut state = me.act(&ClientMessage::Start {}, 4).await;
    for round in 0..6u64 {
        let version = 4 + 2 * round;
        let mine = state.legal_moves[0].clone();
        me.send(&mv(version, &mine)).await;
        assert_eq!(me.event().await.0, version + 1);
        let (v, event) = me.event().await;
        assert_eq!(v, version + 2, "round {round}: {event:?}");
        assert!(
            matches!(event, Event::Moved { seat, .. } if seat == Seat::new(1)),
            "round {round}: expected the computer's move, got {event:?}"
        );
        state = me.state_at(version + 2).await;
    }
    server.stop().await;
}

/// Accounts: register, a taken name, a wrong password, login, `GET /api/me`.
#[tokio::test]
async fn accounts() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let body = r#"{"name":"liu bei","password":"peach garden"}"#;
    let (status, head, info) = server.http("POST", "/api/accounts", None, Some(body)).await;
    assert_eq!(status, 200, "{info}");
    let first = cookie_of(&head);
    let (status, _, err) = server.http("POST", "/api/accounts", None, Some(body)).await;
    assert_eq!(
        (status, err.as_str()),
        (
            409,
            r#"{"error":"conflict","message":"the name \"liu bei\" is taken"}"#
        )
    );
    let wrong = r#"{"name":"liu bei","password":"peach orchard"}"#;
    let (status, _, err) = server.http("POST", "/api/login", None, Some(wrong)).await;
    assert_eq!(
        (status, err.as_str()),
        (
            401,
            r#"{"error":"unauthorized","message":"wrong name or password"}"#
        )
    );
    let (status, head, again) = server.http("POST", "/api/login", None, Some(body)).await;
    assert_eq!(status, 200);
    assert_eq!(again, info);
    let second = cookie_of(&head);
    assert_ne!(first, second);
    let (status, _, me) = server.http("GET", "/api/me", Some(&second), None).await;
    assert_eq!(status, 200);
    assert_eq!(me, info);
    let v: serde_json::Value = serde_json::from_str(&me).unwrap();
    assert_eq!(
        (v["name"].as_str(), v["account"].as_bool()),
        (Some("liu bei"), Some(true))
    );
    let (status, _, _) = server
        .http("GET", "/api/me", Some("chuhe_session=nope"), None)
        .await;
    assert_eq!(status, 401);
    let short = r#"{"name":"guan yu","password":"short"}"#;
    let (status, _, err) = server
        .http("POST", "/api/accounts", None, Some(short))
        .await;
    assert_eq!(
        (status, err.as_str()),
        (
            400,
            r#"{"error":"bad_message","message":"bad message: a password has 8 to 128 characters"}"#
        )
    );
    server.stop().await;
}

/// HTTP errors carry their status and a JSON body with a code and a message.
#[tokio::test]
async fn http_errors() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let (status, _, body) = server.http("GET", "/api/health", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"database":"ok","status":"ok"}"#)
    );
    let cookie = server.guest("host").await;
    let cases = [
        (
            "POST",
            "/api/tables",
            None,
            r#"{"variant":"xiangqi"}"#,
            401,
            r#"{"error":"unauthorized","message":"creating a table needs a session"}"#,
        ),
        (
            "POST",
            "/api/tables",
            Some(cookie.as_str()),
            r#"{"variant":"banqi","no_capture_limit":60}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: banqi takes no rule options"}"#,
        ),
        (
            "POST",
            "/api/tables",
            Some(cookie.as_str()),
            r#"{"variant":"xiangqi","time":{"initial_ms":10,"increment_ms":0}}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: time.initial_ms must be between 1000 and 10800000"}"#,
        ),
        (
            "POST",
            "/api/tables",
            Some(cookie.as_str()),
            r#"{"variant":"xiangqi","flag_bearers":true}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: flag_bearers is a sanguo option"}"#,
        ),
        (
            "POST",
            "/api/session",
            None,
            r#"{"name":""}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: a name has 1 to 24 characters and no control characters"}"#,
        ),
        (
            "GET",
            "/api/tables/nope",
            None,
            "",
            404,
            r#"{"error":"not_found","message":"no table \"nope\""}"#,
        ),
        (
            "GET",
            "/api/nothing",
            None,
            "",
            404,
            r#"{"error":"not_found","message":"no such route"}"#,
        ),
    ];
    for (method, path, cookie, body, status, answer) in cases {
        let got = server.http(method, path, cookie, Some(body)).await;
        assert_eq!(
            (got.0, got.2.as_str()),
            (status, answer),
            "{method} {path} {body}"
        );
    }
    let big = format!(r#"{{"name":"{}"}}"#, "x".repeat(20_000));
    let (status, _, _) = server.http("POST", "/api/session", None, Some(&big)).await;
    assert_eq!(status, 413);
    // A table nobody sits at is not listed; one with its creator seated (a seek) is, with
    // its defaults filled in.
    server
        .create_table(&cookie, r#"{"variant":"xiangqi"}"#)
        .await;
    let (_, _, list) = server.http("GET", "/api/tables", None, None).await;
    assert_eq!(list, "[]");
    let (status, _, created) = server
        .http(
            "POST",
            "/api/tables?seat=1",
            Some(&cookie),
            Some(r#"{"variant":"xiangqi"}"#),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let created: serde_json::Value = serde_json::from_str(&created).unwrap();
    let (_, _, me) = server.http("GET", "/api/me", Some(&cookie), None).await;
    let me: serde_json::Value = serde_json::from_str(&me).unwrap();
    let (_, _, list) = server.http("GET", "/api/tables", None, None).await;
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(
        list,
        serde_json::json!([{
            "id": created["id"],
            "options": {"variant": "xiangqi", "time": null, "rated": false, "no_capture_limit": 120, "flag_bearers": null, "start_when_full": true},
            "phase": "open",
            "seats": [null, {"kind": "person", "id": me["id"], "name": me["name"], "account": me["account"]}],
            "version": 2
        }])
    );
    server.stop().await;
}

/// A rated game between two account holders updates both Glicko-2 ratings in the same
/// transaction as the end; guests and the computer cannot sit at a rated table.
async fn rated_game(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let mut cookies = Vec::new();
    let mut ids = Vec::new();
    for name in ["cao cao", "sun quan"] {
        let body = format!(r#"{{"name":"{name}","password":"twelve chars"}}"#);
        let (status, head, info) = server
            .http("POST", "/api/accounts", None, Some(&body))
            .await;
        assert_eq!(status, 200);
        cookies.push(cookie_of(&head));
        let v: serde_json::Value = serde_json::from_str(&info).unwrap();
        ids.push(v["id"].as_str().unwrap().to_owned());
    }
    let table = server
        .create_table(&cookies[0], r#"{"variant":"xiangqi","rated":true}"#)
        .await;
    let guest = server.guest("guest").await;
    let mut g = server.ws(&table, Some(&guest), None).await;
    g.send(&ClientMessage::Sit { seat: Seat::new(1) }).await;
    assert_eq!(
        g.error().await,
        (
            ErrorCode::Unauthorized,
            "rated tables are for account holders".to_owned()
        )
    );
    let mut red = server.ws(&table, Some(&cookies[0]), None).await;
    let mut black = server.ws(&table, Some(&cookies[1]), None).await;
    red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    red.send(&ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 1,
    })
    .await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotAllowed,
            "the computer does not play rated games".to_owned()
        )
    );
    black
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
        .await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    red.act(&ClientMessage::Resign {}, 6).await;
    let ratings = |body: &str| -> Vec<(String, i64, i64, u64)> {
        let v: Vec<serde_json::Value> = serde_json::from_str(body).unwrap();
        v.iter()
            .map(|r| {
                (
                    r["variant"].as_str().unwrap().to_owned(),
                    (r["rating"].as_f64().unwrap() * 100.0).round() as i64,
                    (r["deviation"].as_f64().unwrap() * 100.0).round() as i64,
                    r["games"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // Two new players (1500, 350, 0.06): the winner gains what the loser loses.
    let (_, _, red_body) = server
        .http(
            "GET",
            &format!("/api/players/{}/ratings", ids[0]),
            None,
            None,
        )
        .await;
    let (_, _, black_body) = server
        .http(
            "GET",
            &format!("/api/players/{}/ratings", ids[1]),
            None,
            None,
        )
        .await;
    assert_eq!(
        ratings(&red_body),
        vec![("xiangqi".to_owned(), 133_769, 29_032, 1)]
    );
    assert_eq!(
        ratings(&black_body),
        vec![("xiangqi".to_owned(), 166_231, 29_032, 1)]
    );
    // A guest has no ratings.
    let (status, _, body) = server
        .http("GET", "/api/players/nobody/ratings", None, None)
        .await;
    assert_eq!((status, body.as_str()), (200, "[]"));
    server.stop().await;
}

#[tokio::test]
async fn rated_game_sqlite() {
    rated_game(Backend::Sqlite).await
}

#[tokio::test]
async fn rated_game_postgres() {
    rated_game(Backend::Postgres).await
}

/// One account's three rated games end at the same moment (its three opponents resign at
/// once): every game counts, on the account's rating and game count (it once counted 1 of 3).
async fn rated_games_ending_at_once_all_count(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let mut cookies = Vec::new();
    let mut ids = Vec::new();
    for name in ["liu bei", "zhang fei", "guan yu", "zhao yun"] {
        let body = format!(r#"{{"name":"{name}","password":"twelve chars"}}"#);
        let (status, head, info) = server
            .http("POST", "/api/accounts", None, Some(&body))
            .await;
        assert_eq!(status, 200, "{info}");
        cookies.push(cookie_of(&head));
        let v: serde_json::Value = serde_json::from_str(&info).unwrap();
        ids.push(v["id"].as_str().unwrap().to_owned());
    }
    let mut opponents = Vec::new();
    for cookie in &cookies[1..] {
        let table = server
            .create_table(&cookies[0], r#"{"variant":"xiangqi","rated":true}"#)
            .await;
        let mut red = server.ws(&table, Some(&cookies[0]), None).await;
        let mut black = server.ws(&table, Some(cookie), None).await;
        red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
        black
            .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
            .await;
        red.act(&ClientMessage::Start {}, 4).await;
        black.state_at(4).await;
        opponents.push(black);
    }
    for black in &mut opponents {
        black.send(&ClientMessage::Resign {}).await;
    }
    for black in &mut opponents {
        black.state_at(5).await;
    }
    let (_, _, body) = server
        .http(
            "GET",
            &format!("/api/players/{}/ratings", ids[0]),
            None,
            None,
        )
        .await;
    let v: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(v.len(), 1, "{body}");
    assert_eq!(v[0]["games"].as_u64(), Some(3), "{body}");
    // Three wins against new players, one rating period each.
    let won = (0..3).fold(Rating::default(), |r, _| {
        rate_game(&[r, Rating::default()], &[true, false])[0]
    });
    let rating = v[0]["rating"].as_f64().unwrap();
    assert!(
        (rating - won.rating).abs() < 1e-6,
        "{rating} against {won:?}"
    );
    server.stop().await;
}
on_both!(rated_games_ending_at_once_all_count);
