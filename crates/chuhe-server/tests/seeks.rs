//! Tables as lichess's seeks (issue 31): the creator seated at once (`POST /api/tables?seat=`),
//! the game starting when the seats are filled, an open table nobody sits at withdrawn from the
//! lobby at once, and the first-move timer that aborts a game nobody started playing, also
//! across a restart.

#[macro_use]
mod common;

use chuhe_rules::outcome::{EndReason, Outcome};
use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Phase, Seat, SeatPlayer};
use chuhe_server::Settings;
use common::*;
use std::time::Duration;
use tokio::time::Instant;

/// 1 minute, no increment.
const ONE_MINUTE: &str = r#"{"variant":"xiangqi","time":{"initial_ms":60000,"increment_ms":0}}"#;

/// The `ended` event of an aborted game.
fn aborted() -> Event {
    Event::Ended {
        outcome: Outcome::draw(EndReason::Aborted),
        result: None,
        winner_seats: Vec::new(),
    }
}

/// Settings with a first-move limit of `first_move` (and no heartbeat, as the other tests).
fn with_first_move(first_move: Duration) -> Settings {
    Settings {
        first_move,
        ..settings(Duration::from_secs(60))
    }
}

/// Creates a table with its creator at `seat` (`0`, `1`, `random`...): the status and the body.
async fn create_seek(
    server: &Server,
    cookie: &str,
    seat: &str,
    options: &str,
) -> (u16, serde_json::Value) {
    let (status, _, body) = server
        .http(
            "POST",
            &format!("/api/tables?seat={seat}"),
            Some(cookie),
            Some(options),
        )
        .await;
    let body = serde_json::from_str(&body).unwrap_or(serde_json::Value::String(body));
    (status, body)
}

/// The ids of the tables the lobby lists.
async fn listed(server: &Server) -> Vec<String> {
    let (status, _, body) = server.http("GET", "/api/tables", None, None).await;
    assert_eq!(status, 200);
    let list: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    list.iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The creator sits at the seat chosen, the table is listed, and the friend who takes the other
/// seat starts the game with that `sat` (no `start`). A bad seat, a seat that does not exist and
/// a guest at a rated table are refused; `random` seats the creator at one of the seats.
#[tokio::test]
async fn a_seek_seats_its_creator_and_starts_when_full() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, with_first_move(Duration::from_secs(30))).await;
    let host = server.guest("host").await;
    let (status, created) = create_seek(&server, &host, "1", ONE_MINUTE).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["version"], 2);
    assert_eq!(created["phase"], "open");
    assert_eq!(created["options"]["start_when_full"], true);
    assert_eq!(created["seats"][0], serde_json::Value::Null);
    assert_eq!(created["seats"][1]["name"], "host");
    let table = created["id"].as_str().unwrap().to_owned();
    assert_eq!(listed(&server).await, std::slice::from_ref(&table));

    let friend = server.guest("friend").await;
    let mut red = server.ws(&table, Some(&friend), None).await;
    red.state_at(2).await;
    let state = red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 4).await;
    assert_eq!(state.table.phase, Phase::Running);
    assert_eq!(state.you, Some(Seat::new(0)));
    assert_eq!(state.to_move, Some(Seat::new(0)));
    let (_, _, events) = server
        .http("GET", &format!("/api/tables/{table}/events"), None, None)
        .await;
    let events: Vec<serde_json::Value> = serde_json::from_str(&events).unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["created", "sat", "sat", "started"]);
    // started already: `start` has nothing left to do
    red.send(&ClientMessage::Start {}).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotAllowed,
            "the game has already started".to_owned()
        )
    );

    for (seat, body) in [
        (
            "2",
            r#"{"error":"bad_message","message":"bad message: seat 2 does not exist (seats 0 to 1)"}"#,
        ),
        (
            "red",
            r#"{"error":"bad_message","message":"bad message: seat \"red\": use a seat number or random"}"#,
        ),
    ] {
        let (status, _, answer) = server
            .http(
                "POST",
                &format!("/api/tables?seat={seat}"),
                Some(&host),
                Some(ONE_MINUTE),
            )
            .await;
        assert_eq!((status, answer.as_str()), (400, body));
    }
    let rated = r#"{"variant":"xiangqi","rated":true}"#;
    let (status, answer) = create_seek(&server, &host, "0", rated).await;
    assert_eq!(
        (status, answer),
        (
            401,
            serde_json::json!({"error": "unauthorized", "message": "rated tables are for account holders"})
        )
    );
    let (status, sanguo) = create_seek(&server, &host, "random", r#"{"variant":"sanguo"}"#).await;
    assert_eq!(status, 201);
    let seats = sanguo["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 3);
    assert_eq!(
        seats.iter().filter(|s| s["name"] == "host").count(),
        1,
        "{sanguo}"
    );
    assert_eq!(seats.iter().filter(|s| s.is_null()).count(), 2, "{sanguo}");
    server.stop().await;
}

/// An open table whose creator stands up leaves the lobby at once; one created without a
/// seated creator is never listed; against the computer the table starts with the computer's
/// `sat` and is listed as running.
#[tokio::test]
async fn an_open_table_without_a_person_leaves_the_lobby_at_once() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, with_first_move(Duration::from_secs(30))).await;
    let host = server.guest("host").await;
    let empty = server.create_table(&host, ONE_MINUTE).await;
    let (_, created) = create_seek(&server, &host, "0", ONE_MINUTE).await;
    let table = created["id"].as_str().unwrap().to_owned();
    assert_eq!(listed(&server).await, std::slice::from_ref(&table));
    assert!(!listed(&server).await.contains(&empty));
    let mut me = server.ws(&table, Some(&host), None).await;
    me.state_at(2).await;
    let state = me.act(&ClientMessage::Stand {}, 3).await;
    assert_eq!(state.table.seats, vec![None, None]);
    assert_eq!(listed(&server).await, Vec::<String>::new());

    let (_, created) = create_seek(&server, &host, "0", ONE_MINUTE).await;
    let computer_table = created["id"].as_str().unwrap().to_owned();
    let mut me = server.ws(&computer_table, Some(&host), None).await;
    me.state_at(2).await;
    let computer = ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 1,
    };
    let state = me.act(&computer, 4).await;
    assert_eq!(state.table.phase, Phase::Running);
    assert_eq!(
        state.table.seats[1],
        Some(SeatPlayer::Computer { level: 1 })
    );
    assert_eq!(listed(&server).await, [computer_table]);
    server.stop().await;
}

/// Nobody moves: the first seat's limit (2 s here, real time) aborts the game without a
/// result; then, in a second game, Red moves after 1.5 s and Black's own limit runs from Red's
/// move.
#[tokio::test]
async fn a_missed_first_move_aborts_the_game() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, with_first_move(Duration::from_secs(2))).await;
    let host = server.guest("host").await;
    let friend = server.guest("friend").await;
    for red_moves in [false, true] {
        let (_, created) = create_seek(&server, &host, "0", ONE_MINUTE).await;
        let table = created["id"].as_str().unwrap().to_owned();
        let mut red = server.ws(&table, Some(&host), None).await;
        red.state_at(2).await;
        let mut black = server.ws(&table, Some(&friend), None).await;
        black.state_at(2).await;
        // the limit counts from the `started` event, stored after this instant
        let mut from = Instant::now();
        black
            .act(&ClientMessage::Sit { seat: Seat::new(1) }, 4)
            .await;
        red.state_at(4).await;
        let mut version = 5;
        if red_moves {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            from = Instant::now();
            red.act(&mv(4, "h2e2"), 5).await;
            version = 6;
        }
        assert_eq!(red.event().await, (version, aborted()));
        let waited = from.elapsed();
        assert!(
            waited >= Duration::from_secs(2) && waited < Duration::from_secs(3),
            "{waited:?}"
        );
        let state = red.state_at(version).await;
        assert_eq!(state.table.phase, Phase::Ended);
        assert_eq!(state.outcome, Some(Outcome::draw(EndReason::Aborted)));
    }
    // aborted games are not among the finished games
    let (_, _, games) = server.http("GET", "/api/games", None, None).await;
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    assert_eq!(games["games"], serde_json::json!([]), "{games}");
    server.stop().await;
}

/// The first-move timer survives a restart as the clocks do: 1.5 s of Red's 3 s pass, the
/// server stops cleanly (the clocks saved) and starts again over the same database; the game
/// is aborted after the 1.5 s that were left (not after a fresh 3 s), and the event is stored.
async fn the_first_move_timer_survives_a_restart(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, with_first_move(Duration::from_secs(3))).await;
    let host = server.guest("host").await;
    let friend = server.guest("friend").await;
    let (_, created) = create_seek(&server, &host, "0", ONE_MINUTE).await;
    let table = created["id"].as_str().unwrap().to_owned();
    let mut black = server.ws(&table, Some(&friend), None).await;
    black.state_at(2).await;
    black
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 4)
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.stop().await;

    let server = Server::start(&db, with_first_move(Duration::from_secs(3))).await;
    let restarted = std::time::Instant::now();
    let mut black = server.ws(&table, Some(&friend), None).await;
    let state = black.state_at(4).await;
    assert_eq!(state.table.phase, Phase::Running);
    assert_eq!(black.event().await, (5, aborted()));
    let waited = restarted.elapsed();
    assert!(
        waited >= Duration::from_millis(1000) && waited < Duration::from_millis(2500),
        "{waited:?}"
    );
    let (_, _, events) = server
        .http("GET", &format!("/api/tables/{table}/events"), None, None)
        .await;
    let events: Vec<serde_json::Value> = serde_json::from_str(&events).unwrap();
    assert_eq!(events.len(), 5);
    assert_eq!(
        events[4]["event"]["outcome"]["reason"], "aborted",
        "{:?}",
        events[4]
    );
    server.stop().await;
}
on_both!(the_first_move_timer_survives_a_restart);
