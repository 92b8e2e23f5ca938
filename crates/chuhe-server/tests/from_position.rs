//! Xiangqi tables from a set-up position (issue 31, item 7: the board editor's "play the
//! computer / a friend"): `TableOptions::fen`. The table starts there (Black may move first),
//! plays on, takes back to it, gives it in `/positions` and as the PGN's `FEN` tag; a FEN that
//! does not read, breaks a rule or ends the game at once is refused with why, and so are a
//! rated game from a position and a FEN for another game. On SQLite and on PostgreSQL.

#[macro_use]
mod common;

use chuhe_server::protocol::{ClientMessage, Phase, Seat};
use chuhe_server::variant::BoardView;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// Black to move: Black's General e9 and Cannon c7; Red's Chariot a0, Advisors d0 e1, General e0.
const FEN: &str = "4k4/9/2c6/9/9/9/9/9/4A4/R2AK4 b - - 0 1";

fn fen_of(board: &BoardView) -> &str {
    match board {
        BoardView::Xiangqi { fen, .. } => fen,
        other => panic!("a xiangqi board expected, got {other:?}"),
    }
}

async fn a_table_from_a_position(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let options = json!({"variant": "xiangqi", "fen": FEN}).to_string();
    let (mut red, mut black, table) = seated_pair(&server, &options).await;

    // The summary keeps the position; the state shows it, with Black to move.
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let summary: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(summary["options"]["fen"], FEN);
    assert_eq!(summary["options"]["rated"], false);
    let started = red.act(&ClientMessage::Start {}, 4).await;
    assert_eq!(started.table.phase, Phase::Running);
    assert_eq!(fen_of(&started.board), FEN);
    assert_eq!(started.to_move, Some(Seat::new(1)));
    // Black's legal moves (only the seat to move gets them): the General's 3, the Cannon's 17
    let legal = black.state_at(4).await.legal_moves;
    assert_eq!(legal.len(), 20, "{legal:?}");
    assert!(legal.contains(&"c7c0".to_owned()) && legal.contains(&"e9d9".to_owned()));

    // Black moves first, then Red: the Chariot checks along the top rank.
    let after = black.act(&mv(4, "c7c3"), 5).await;
    assert_eq!(
        fen_of(&after.board),
        "4k4/9/9/9/9/9/2c6/9/4A4/R2AK4 w - - 1 2"
    );
    red.state_at(5).await;
    let checked = red.act(&mv(5, "a0a9"), 6).await;
    assert_eq!(checked.check, vec![Seat::new(1)]);
    black.state_at(6).await;

    // What the history gives back starts at the set-up position.
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}/positions"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let positions: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(positions["moves"], json!(["c7c3", "a0a9"]));
    assert_eq!(positions["positions"][0]["position"], FEN);
    assert_eq!(
        positions["positions"][2]["position"],
        "R3k4/9/9/9/9/9/2c6/9/4A4/3AK4 b - - 2 2"
    );
    let (status, _, pgn) = server
        .http(
            "GET",
            &format!("/api/tables/{table}/pgn?notation=iccs"),
            None,
            None,
        )
        .await;
    assert_eq!(status, 200, "{pgn}");
    assert!(pgn.contains(&format!("[FEN \"{FEN}\"]\n")), "{pgn}");
    assert!(pgn.contains("\n1... C7-C3\n2. A0-A9\n*\n"), "{pgn}");

    // A restart rebuilds the table from its stored options: same position, same moves.
    server.stop().await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let mut again = server.ws(&table, None, None).await;
    let state = again.state().await;
    assert_eq!(state.version, 6);
    assert_eq!(
        fen_of(&state.board),
        "R3k4/9/9/9/9/9/2c6/9/4A4/3AK4 b - - 2 2"
    );
    server.stop().await;
}

on_both!(a_table_from_a_position);

/// `POST /api/tables` with `options`: (status, the error's message or the table's options).
async fn create(server: &Server, cookie: &str, options: Value) -> (u16, Value) {
    let (status, _, body) = server
        .http(
            "POST",
            "/api/tables",
            Some(cookie),
            Some(&options.to_string()),
        )
        .await;
    let v: Value = serde_json::from_str(&body).unwrap();
    if status == 201 {
        (status, v["options"].clone())
    } else {
        (status, v["message"].clone())
    }
}

async fn positions_that_cannot_start_a_table(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let guest = server.guest("editor").await;
    let account = {
        let body = r#"{"name":"setter","password":"a long password"}"#;
        let (status, head, body) = server.http("POST", "/api/accounts", None, Some(body)).await;
        assert_eq!(status, 200, "{body}");
        cookie_of(&head)
    };
    let cases = [
        (
            json!({"variant": "xiangqi", "fen": "4k4/9/9 w"}),
            "bad message: fen: bad FEN: bad-rank-count: the board has 3 ranks, not 10",
        ),
        (
            // two Red Generals, and a Soldier behind its own lines
            json!({"variant": "xiangqi", "fen": "4k4/9/9/9/9/9/9/P8/4K4/4K4 w - - 0 1"}),
            "bad message: fen: invalid position: general-count (each side must have exactly one general); also soldier-square",
        ),
        (
            // Black to move, checkmated by the Chariot (the Generals may not face each other)
            json!({"variant": "xiangqi", "fen": "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1"}),
            "bad message: fen: the game is already over in this position (checkmate)",
        ),
        (
            json!({"variant": "sanguo", "fen": FEN}),
            "bad message: fen is a xiangqi option",
        ),
        (json!({"variant": "banqi", "fen": FEN}), "bad message: banqi takes no rule options"),
    ];
    for (options, why) in cases {
        assert_eq!(
            create(&server, &guest, options.clone()).await,
            (400, json!(why)),
            "{options}"
        );
    }
    assert_eq!(
        create(
            &server,
            &account,
            json!({"variant": "xiangqi", "fen": FEN, "rated": true})
        )
        .await,
        (
            400,
            json!("bad message: a game from a set-up position cannot be rated")
        )
    );
    // The standard start given as a FEN is the usual table, which may be rated.
    let (status, options) = create(
        &server,
        &account,
        json!({"variant": "xiangqi", "rated": true,
               "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(options.get("fen"), None, "{options}");
    assert_eq!(options["rated"], true);
    server.stop().await;
}

on_both!(positions_that_cannot_start_a_table);
