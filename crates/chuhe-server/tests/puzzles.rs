//! Puzzles (`docs/puzzles.md`, `docs/protocol.md` "Puzzles"): the embedded file loaded at
//! start (once: a restart adds nothing and keeps the ratings), the daily puzzle, the next one
//! near the player's rating and never one already played while others remain, a puzzle by id
//! in lichess's shape, results rated by Glicko-2 for the player and the puzzle. On SQLite and
//! PostgreSQL.

#[macro_use]
mod common;

use chuhe_server::accounts::rating::{update, Rating};
use chuhe_server::store::puzzles::{daily_index, day_of, PUZZLE_DEVIATION};
use chuhe_server::store::{now_ms, Store};
use common::*;
use serde_json::Value;
use sqlx::Connection;
use std::collections::BTreeSet;

/// The rows of `data/puzzles.tsv`: (id, themes).
fn file_rows() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/puzzles.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[4].to_owned())
        })
        .collect()
}

async fn get(server: &Server, path: &str, cookie: Option<&str>) -> (u16, Value) {
    let (status, _, body) = server.http("GET", path, cookie, None).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

async fn post_result(server: &Server, id: &str, cookie: &str, win: bool) -> (u16, Value) {
    let body = format!(r#"{{"win":{win}}}"#);
    let (status, _, text) = server
        .http(
            "POST",
            &format!("/api/puzzle/{id}/result"),
            Some(cookie),
            Some(&body),
        )
        .await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn puzzles_are_served(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let rows = file_rows();

    let (status, count) = get(&server, "/api/puzzle/count", None).await;
    assert_eq!(status, 200);
    assert_eq!(count["count"].as_u64(), Some(rows.len() as u64));
    assert_eq!(rows.len(), 1979);

    // The first puzzle of the file, in lichess's shape: Black's chariot b3-b6 is played, then
    // Red's chariot f8-h8 wins.
    let (status, p) = get(&server, "/api/puzzle/ccpd-000020-50", None).await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["game"]["id"], "ccpd-000020");
    assert_eq!(
        p["game"]["fen"],
        "2b1ka3/3RaR1c1/4b4/p6Cp/2p1N4/7n1/Pr2P1r1P/B1N1B4/1c2A4/3AK4 b - - 4 25"
    );
    assert_eq!(p["game"]["lastMove"], "b3b6");
    assert_eq!(p["game"]["ply"], 50);
    assert_eq!(p["puzzle"]["id"], "ccpd-000020-50");
    assert_eq!(
        p["puzzle"]["fen"],
        "2b1ka3/3RaR1c1/4b4/pr5Cp/2p1N4/7n1/P3P1r1P/B1N1B4/1c2A4/3AK4 w - - 5 26"
    );
    assert_eq!(p["puzzle"]["lastMove"], "b3b6");
    assert_eq!(p["puzzle"]["solution"], serde_json::json!(["f8h8"]));
    assert_eq!(p["puzzle"]["themes"], serde_json::json!(["advantage"]));
    assert_eq!(p["puzzle"]["rating"], 1000);
    assert_eq!(p["puzzle"]["plays"], 0);
    assert_eq!(p["puzzle"]["initialPly"], 49);
    assert!(p.get("user").is_none());

    let (status, missing) = get(&server, "/api/puzzle/nope-1", None).await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"], "not_found");
    assert_eq!(missing["message"], "no puzzle nope-1");

    // The daily puzzle: the same twice, and the one of the day's place among the ids.
    let (status, daily) = get(&server, "/api/puzzle/daily", None).await;
    assert_eq!(status, 200);
    let (_, again) = get(&server, "/api/puzzle/daily", None).await;
    assert_eq!(daily["puzzle"]["id"], again["puzzle"]["id"]);
    let mut ids: Vec<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    let day = day_of(now_ms());
    let expected = ids[daily_index(day, ids.len() as i64) as usize];
    // (unless the day changed between the two readings)
    if day_of(now_ms()) == day {
        assert_eq!(daily["puzzle"]["id"], expected);
    }

    let (status, bad) = get(&server, "/api/puzzle/next?angle=mate%25", None).await;
    assert_eq!(status, 400, "{bad}");
    let (status, _) = get(&server, "/api/puzzle/next?colour=red", None).await;
    assert_eq!(status, 400);
    let (status, none) = get(&server, "/api/puzzle/next?angle=noSuchTheme", None).await;
    assert_eq!(status, 404);
    assert_eq!(none["message"], "no puzzle has the theme noSuchTheme");
    server.stop().await;
}
on_both!(puzzles_are_served);

async fn next_avoids_played_puzzles(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let guest = server.guest("solver").await;
    let theme = "mateIn3";
    let with_theme: BTreeSet<String> = file_rows()
        .into_iter()
        .filter(|(_, t)| t.split(' ').any(|k| k == theme))
        .map(|(id, _)| id)
        .collect();
    assert!(with_theme.len() >= 3, "{with_theme:?}");
    let mut seen = BTreeSet::new();
    let mut diffs = Vec::new();
    for _ in 0..with_theme.len() {
        let (status, p) = get(
            &server,
            &format!("/api/puzzle/next?angle={theme}"),
            Some(&guest),
        )
        .await;
        assert_eq!(status, 200, "{p}");
        let id = p["puzzle"]["id"].as_str().unwrap().to_owned();
        assert!(with_theme.contains(&id), "{id} has no {theme}");
        assert!(seen.insert(id.clone()), "{id} came twice");
        let (status, r) = post_result(&server, &id, &guest, false).await;
        assert_eq!(status, 200, "{r}");
        diffs.push(r["player"]["ratingDiff"].as_i64().unwrap());
    }
    assert_eq!(seen, with_theme);
    // Every loss costs the player points or, once its rating is far below the puzzles' and its
    // deviation small, nothing in whole points; the first costs some.
    assert!(diffs[0] < 0, "{diffs:?}");
    assert!(diffs.iter().all(|d| *d <= 0), "{diffs:?}");
    // All played: the next one is one of them all the same.
    let (status, p) = get(
        &server,
        &format!("/api/puzzle/next?angle={theme}"),
        Some(&guest),
    )
    .await;
    assert_eq!(status, 200);
    assert!(with_theme.contains(p["puzzle"]["id"].as_str().unwrap()));
    // The results are the player's activity, the latest first.
    let (status, _, text) = server
        .http("GET", "/api/puzzle/activity?max=2", Some(&guest), None)
        .await;
    assert_eq!(status, 200);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["win"], false);
    // The latest result is the loop's last, with the change its answer gave.
    assert_eq!(lines[0]["ratingDiff"].as_i64(), diffs.last().copied());
    let (status, _, _) = server.http("GET", "/api/puzzle/activity", None, None).await;
    assert_eq!(status, 401);
    server.stop().await;
}
on_both!(next_avoids_played_puzzles);

async fn a_win_rates_the_player_and_the_puzzle(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let id = "ccpd-000020-50";
    let (status, _, refused) = server
        .http(
            "POST",
            &format!("/api/puzzle/{id}/result"),
            None,
            Some(r#"{"win":true}"#),
        )
        .await;
    assert_eq!(status, 401, "{refused}");
    let guest = server.guest("winner").await;
    let (status, _) = post_result(&server, "nope-1", &guest, true).await;
    assert_eq!(status, 404);
    let (status, _, _) = server
        .http(
            "POST",
            &format!("/api/puzzle/{id}/result"),
            Some(&guest),
            Some(r#"{"win":"yes"}"#),
        )
        .await;
    assert_eq!(status, 400);

    let puzzle = Rating {
        rating: 1000.0,
        deviation: PUZZLE_DEVIATION,
        volatility: 0.06,
    };
    let player_after = update(Rating::default(), &[(puzzle, 1.0)]);
    let puzzle_after = update(puzzle, &[(Rating::default(), 0.0)]);
    let (status, r) = post_result(&server, id, &guest, true).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["rated"], true);
    assert_eq!(r["win"], true);
    assert_eq!(r["plays"], 1);
    assert_eq!(r["player"]["rating"].as_f64(), Some(player_after.rating));
    assert_eq!(
        r["player"]["deviation"].as_f64(),
        Some(player_after.deviation)
    );
    assert_eq!(r["puzzle"]["rating"].as_f64(), Some(puzzle_after.rating));
    assert_eq!(
        r["puzzle"]["deviation"].as_f64(),
        Some(puzzle_after.deviation)
    );
    // A 1500 player solving a 1000 puzzle gains a little; the puzzle loses a little.
    assert!(player_after.rating > 1500.0 && player_after.rating < 1600.0);
    assert!(puzzle_after.rating < 1000.0);
    assert_eq!(
        r["player"]["ratingDiff"].as_i64(),
        Some(player_after.rating.round() as i64 - 1500)
    );
    assert_eq!(
        r["puzzle"]["ratingDiff"].as_i64(),
        Some(puzzle_after.rating.round() as i64 - 1000)
    );
    // The puzzle and the player's rating as shown now.
    let (_, p) = get(&server, &format!("/api/puzzle/{id}"), Some(&guest)).await;
    assert_eq!(p["puzzle"]["rating"], puzzle_after.rating.round() as i64);
    assert_eq!(p["puzzle"]["plays"], 1);
    assert_eq!(p["user"]["rating"], player_after.rating.round() as i64);
    assert_eq!(p["user"]["plays"], 1);

    // Trying it again changes nothing.
    let (status, again) = post_result(&server, id, &guest, false).await;
    assert_eq!(status, 200);
    assert_eq!(again["rated"], false);
    assert_eq!(again["win"], true);
    assert_eq!(
        again["player"]["rating"].as_f64(),
        Some(player_after.rating)
    );
    assert_eq!(again["player"]["ratingDiff"], 0);
    assert_eq!(again["plays"], 1);

    // A restart loads nothing again (the digest is the file's); with the digest removed, the
    // file is read again and adds nothing: the ratings and plays stay.
    server.stop().await;
    {
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        sqlx::query("DELETE FROM server_state WHERE name = 'puzzles_digest'")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    }
    let store = Store::connect(&db.url).await.unwrap();
    assert_eq!(store.puzzle_count().await.unwrap(), 1979);
    let row = store.puzzle(id).await.unwrap().unwrap();
    assert_eq!(row.rating.rating, puzzle_after.rating);
    assert_eq!(row.plays, 1);
    store.close().await;
}
on_both!(a_win_rates_the_player_and_the_puzzle);

/// A guest with a puzzle rating and a result is removed by the cleanup once its session has
/// expired, its rating and result with it; the puzzle keeps its rating and plays.
async fn an_expired_guest_goes_with_its_puzzle_rating(backend: Backend) {
    let db = fresh_db(backend).await;
    let options = chuhe_server::store::StoreOptions {
        session_lifetime: std::time::Duration::from_millis(50),
        ..Default::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let server = Server::start_on(store, fast_settings()).await;
    let guest = server.guest("brief").await;
    let (status, r) = post_result(&server, "ccpd-000020-50", &guest, true).await;
    assert_eq!(status, 200, "{r}");
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    // the session and the guest
    assert_eq!(server.state.store().cleanup().await.unwrap(), 2);
    let row = server
        .state
        .store()
        .puzzle("ccpd-000020-50")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.plays, 1);
    assert_eq!(Some(row.rating.rating), r["puzzle"]["rating"].as_f64());
    server.stop().await;
}
on_both!(an_expired_guest_goes_with_its_puzzle_rating);
