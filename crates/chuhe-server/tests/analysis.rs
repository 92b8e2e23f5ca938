//! `POST /api/analysis` over HTTP: no session needed, the answer's exact JSON, and the errors of
//! bad bodies, positions and moves.

mod common;

use common::{fresh_db, settings, Backend, Server};
use std::time::Duration;

#[tokio::test]
async fn analysis_answers_board_moves_check_and_outcome() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;

    // Facing generals: Red's general may only step forward.
    let body = r#"{"variant":"xiangqi","position":"4k4/9/9/9/9/9/9/9/9/3K5 w","moves":[]}"#;
    let (status, _, answer) = server.http("POST", "/api/analysis", None, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer,
        r#"{"board":{"variant":"xiangqi","fen":"4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1","moves":[]},"to_move":0,"side":"red","legal_moves":["d0d1"],"capture_moves":[],"in_check":false,"check":[],"outcome":null}"#
    );

    // A mate played first (spec/xiangqi.md E15).
    let body = r#"{"variant":"xiangqi","position":"3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 119 70","moves":["h0h9"]}"#;
    let (status, _, answer) = server.http("POST", "/api/analysis", None, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer,
        r#"{"board":{"variant":"xiangqi","fen":"3k3R1/1R7/9/9/9/9/9/9/9/4K4 b - - 120 70","moves":["h0h9"]},"to_move":null,"side":null,"legal_moves":[],"capture_moves":[],"in_check":true,"check":["d9"],"outcome":{"winners":["red"],"reason":"checkmate"}}"#
    );

    // Banqi: the cannon jumps the face-down screen on c1 onto the chariot on f1.
    let body = r#"{"variant":"banqi","position":"8/1Pkp4/3Ka3/C1?2r2 r e 0","moves":["a1xf1"]}"#;
    let (status, _, answer) = server.http("POST", "/api/analysis", None, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["board"]["view"], "8/1Pkp4/3Ka3/2?2C2 b e 0");
    assert_eq!(v["board"]["colors"], serde_json::json!(["red", "black"]));
    assert_eq!(v["to_move"], 1);
    assert_eq!(v["side"], "black");

    let cases = [
        (
            r#"{"variant":"xiangqi","position":"4k4/9/9/9/9/9/9/9/9/3K5 w","moves":["d0e0"]}"#,
            400,
            r#"{"error":"illegal_move","message":"illegal move: d0e0 at ply 1 (the generals would face each other)"}"#,
        ),
        (
            r#"{"variant":"xiangqi","position":"4k4/9/9/9/9/9/9/9/9/4K4 w"}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: position: invalid position: generals-facing (the generals must not face each other)"}"#,
        ),
        (r#"{"variant":"chess"}"#, 400, ""),
        (r#"{"variant":"xiangqi","fen":"x"}"#, 400, ""),
        ("not json", 400, ""),
    ];
    for (body, want_status, want_body) in cases {
        let (status, _, answer) = server.http("POST", "/api/analysis", None, Some(body)).await;
        assert_eq!(status, want_status, "{body}: {answer}");
        if want_body.is_empty() {
            assert!(
                answer.starts_with(r#"{"error":"bad_message","message":"#),
                "{answer}"
            );
        } else {
            assert_eq!(answer, want_body, "{body}");
        }
    }

    // Too many moves, and a body over the server's limit.
    let moves = vec!["\"h2e2\""; 201].join(",");
    let body = format!(r#"{{"variant":"xiangqi","moves":[{moves}]}}"#);
    let (status, _, answer) = server
        .http("POST", "/api/analysis", None, Some(&body))
        .await;
    assert_eq!(
        (status, answer.as_str()),
        (
            400,
            r#"{"error":"bad_message","message":"bad message: at most 200 moves, got 201"}"#
        )
    );
    let body = format!(
        r#"{{"variant":"xiangqi","position":"{}"}}"#,
        "9/".repeat(9000)
    );
    let (status, _, _) = server
        .http("POST", "/api/analysis", None, Some(&body))
        .await;
    assert_eq!(status, 413);
    server.stop().await;
}

/// `POST /api/analysis/eval`: the engine's mate in one first in the line with a mate score,
/// the moves of a game one position each, and the limits refused with their exact messages.
#[tokio::test]
async fn the_engine_evaluates_each_position_within_its_limits() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;

    let body = r#"{"fen":"3k5/1R7/9/9/9/9/9/9/9/4K2R1 w","notation":"chinese"}"#;
    let (status, _, answer) = server
        .http("POST", "/api/analysis/eval", None, Some(body))
        .await;
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let p = &v["positions"][0];
    assert_eq!(p["ply"], 0);
    assert_eq!(p["eval"], serde_json::json!({"mate": 1}));
    assert_eq!(p["line"][0], "h0h9");
    assert_eq!(p["line_text"][0], "车二进九");
    assert_eq!(v["next"], serde_json::Value::Null);
    assert_eq!(v["nodes_per_position"], 60_000);

    // A game: one position per ply, the move played in the notation asked for.
    let body = r#"{"moves":["h2e2","h9g7"],"notation":"wxf"}"#;
    let (status, _, answer) = server
        .http("POST", "/api/analysis/eval", None, Some(body))
        .await;
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let played: Vec<&serde_json::Value> = v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["played"])
        .collect();
    assert_eq!(
        played,
        [
            &serde_json::Value::Null,
            &serde_json::json!("C2.5"),
            &serde_json::json!("H8+7")
        ]
    );
    assert!(v["positions"][2]["eval"]["cp"].is_i64(), "{answer}");

    let moves = vec!["\"h2e2\""; 301].join(",");
    let too_many = format!(r#"{{"moves":[{moves}]}}"#);
    let cases = [
        (
            too_many.as_str(),
            400,
            r#"{"error":"bad_message","message":"bad message: at most 300 moves, got 301"}"#,
        ),
        (
            r#"{"moves":["h2e2"],"from":2}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: from 2 is beyond the last position (ply 1)"}"#,
        ),
        (
            r#"{"moves":["h2e2","e9e7"]}"#,
            400,
            r#"{"error":"illegal_move","message":"illegal move: e9e7 at ply 2 (general moves one point orthogonally)"}"#,
        ),
        (
            r#"{"notation":"san"}"#,
            400,
            r#"{"error":"bad_message","message":"bad message: notation \"san\": use iccs, wxf or chinese"}"#,
        ),
    ];
    for (body, want_status, want_body) in cases {
        let (status, _, answer) = server
            .http("POST", "/api/analysis/eval", None, Some(body))
            .await;
        assert_eq!(
            (status, answer.as_str()),
            (want_status, want_body),
            "{body}"
        );
    }
    server.stop().await;
}

/// The engine's slots are shared per client address: while one address (behind a trusted
/// proxy) has an evaluation running, its second request at once is refused with 429
/// `rate_limited` and `Retry-After: 1`, and another address is served meanwhile.
#[tokio::test]
async fn one_address_cannot_take_the_engine_from_the_others() {
    use chuhe_server::edge::limit::HttpLimits;
    use chuhe_server::Settings;
    use common::http_with;
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        trust_forwarded_for: true,
        http_limits: HttpLimits::unlimited(),
        ..settings(Duration::from_secs(60))
    };
    let server = Server::start(&db, settings).await;
    let addr = server.addr;
    // 13 positions of a game: a few seconds of searching.
    let game = r#"{"moves":["h2e2","h9g7","h0g2","i9h9","i0h0","b9c7","b0c2","a9b9","a0b0","g6g5","g3g4","c6c5"]}"#;
    let eval = move |client: &'static str| async move {
        let xff = [("X-Forwarded-For", client)];
        http_with(addr, "POST", "/api/analysis/eval", &xff, Some(game)).await
    };
    let first = tokio::spawn(eval("198.51.100.7"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (second, other) = tokio::join!(eval("198.51.100.7"), eval("203.0.113.5"));
    let (status, head, body) = second;
    assert_eq!(
        (status, body.as_str()),
        (
            429,
            r#"{"error":"rate_limited","message":"too many requests, try again in 1 s"}"#
        )
    );
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1\r\n"),
        "{head}"
    );
    let (status, _, body) = other;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = first.await.unwrap();
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

/// `POST /api/analysis/eval` for sanguo and banqi over HTTP: each kingdom's evaluation (Shu a
/// Chariot up on both rivals), and a banqi view's two face-down squares over a Red Soldier and a
/// Black Chariot at one half each.
#[tokio::test]
async fn sanguo_kingdoms_and_banqi_chances_over_http() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let body = r#"{"variant":"sanguo","fen":"9/rP1rP1rP1rP1rP/1rC1rF1rF1rC1/9/rRrHrErArKrArErHrR,9/gP1gP1gP1gP1gP/1gC1gF1gF1gC1/9/1gHgEgAgKgAgEgHgR,9/bP1bP1bP1bP1bP/1bC1bF1bF1bC1/9/1bHbEbAbKbAbEbHbR R - - F 0"}"#;
    let (status, _, answer) = server
        .http("POST", "/api/analysis/eval", None, Some(body))
        .await;
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let p = &v["positions"][0];
    assert_eq!(p["eval"], serde_json::Value::Null);
    assert!(p.get("face_down").is_none(), "{answer}");
    let kingdoms = p["kingdoms"].as_array().expect("kingdoms");
    let names: Vec<&str> = kingdoms
        .iter()
        .map(|k| k["kingdom"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shu", "wu", "wei"]);
    let cp: Vec<i64> = kingdoms
        .iter()
        .map(|k| k["eval"]["cp"].as_i64().expect("centipawns"))
        .collect();
    assert!(cp[0] >= 500 && cp[1] <= -250 && cp[2] <= -250, "{cp:?}");
    assert!(p["line"][0].as_str().unwrap().starts_with('R'), "{answer}");

    let body = r#"{"variant":"banqi","fen":"??K5/8/8/7k r Pr 0"}"#;
    let (status, _, answer) = server
        .http("POST", "/api/analysis/eval", None, Some(body))
        .await;
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let p = &v["positions"][0];
    assert_eq!(
        p["face_down"],
        serde_json::json!({"squares": ["a4", "b4"], "pieces": [
            {"piece": "P", "count": 1, "probability": 0.5},
            {"piece": "r", "count": 1, "probability": 0.5}]})
    );
    assert!(p.get("kingdoms").is_none(), "{answer}");
    assert!(
        p["eval"]["cp"].is_i64() || p["eval"]["mate"].is_i64(),
        "{answer}"
    );
    // a truth text (pinned face-down squares) is not a view
    let body = r#"{"variant":"banqi","fen":"(P)(r)K5/8/8/7k r - 0"}"#;
    let (status, _, answer) = server
        .http("POST", "/api/analysis/eval", None, Some(body))
        .await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("bad message: position: "), "{answer}");
    server.stop().await;
}
