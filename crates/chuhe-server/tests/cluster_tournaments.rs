//! Tournament requests on a cluster of two nodes in one process (PostgreSQL, the machine's
//! NATS with JetStream, `CHUHE_TEST_NATS`; docs/cluster.md, docs/tournaments.md). Node A
//! creates an arena and runs it; players join through node B, which stores each join in
//! `tournament_requests` and tells A over NATS. The tick is a minute long, so a join shown on A
//! within the test was applied through the message, not by a tick. A save that fails (the
//! tournament's row locked by another connection past the statement time limit) keeps the
//! request, and the next try applies it once.

#[macro_use]
mod common;

use chuhe_server::accounts::tokens::Scope;
use common::*;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const NAMES: [&str; 3] = ["Ana", "Bo", "Cai"];

/// The names in the standings of a view, in their order.
fn names(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// The tokens of the players of [`NAMES`].
async fn players(url: &str) -> Vec<String> {
    let scopes = [Scope::BoardPlay, Scope::TournamentWrite];
    let mut tokens = Vec::new();
    for name in NAMES {
        let issued = chuhe_server::store::issue_token(url, name, false, &scopes, "cluster test")
            .await
            .unwrap();
        tokens.push(issued.token);
    }
    tokens
}

/// An arena created on `a` by the first player, starting in ten minutes, that the first
/// player joins through `a`: its id.
async fn arena_on(a: &Server, tokens: &[String]) -> String {
    let start = chuhe_server::store::now_ms() + 600_000;
    let form = format!(
        "name=Requests&variant=xiangqi&clockTime=1&minutes=10&startDate={start}&rated=false"
    );
    let (status, created) = bearer_call(a.addr, "POST", "/api/tournament", &tokens[0], &form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let path = format!("/api/tournament/{id}/join");
    let (status, body) = bearer_call(a.addr, "POST", &path, &tokens[0], "").await;
    assert_eq!(status, 200, "{body}");
    id
}

/// Waits up to `secs` for the view of `id` on `addr` to pass `done`.
async fn wait_view(addr: SocketAddr, id: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = tournament_view(addr, id).await;
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < end, "waited {secs} s: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Joins through the node that does not run the arena show on its owner at once: the owner's
/// tick is a minute away, so only B's message to A can explain them; the requests are gone
/// once applied, and a withdrawal through B goes the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_through_another_node_shows_on_the_owner_at_once() {
    let db = fresh_db(Backend::Postgres).await;
    let prefix = prefix("tjoin");
    // A's first tick comes a minute after it started: anything shown before came by NATS.
    let started = Instant::now();
    let a = node(&db, "a", &prefix).await;
    let b = node(&db, "b", &prefix).await;
    let tokens = players(&db.url).await;
    let id = arena_on(&a, &tokens).await;
    let before_tick = || {
        assert!(
            started.elapsed() < Duration::from_secs(55),
            "too slow to tell the message from A's first tick"
        );
    };

    for token in &tokens[1..] {
        let path = format!("/api/tournament/{id}/join");
        let (status, body) = bearer_call(b.addr, "POST", &path, token, "").await;
        assert_eq!(status, 200, "{body}");
    }
    let seen = wait_view(a.addr, &id, 20, |v| v["nbPlayers"] == 3).await;
    assert_eq!(names(&seen), ["Ana", "Bo", "Cai"]);
    before_tick();
    let store = a.state.store();
    assert_eq!(store.tournament_requests(&id).await.unwrap(), Vec::new());

    // Bo withdraws through B before the start: he leaves the arena on A.
    let path = format!("/api/tournament/{id}/withdraw");
    let (status, body) = bearer_call(b.addr, "POST", &path, &tokens[1], "").await;
    assert_eq!(status, 200, "{body}");
    let left = wait_view(a.addr, &id, 20, |v| v["nbPlayers"] == 2).await;
    assert_eq!(names(&left), ["Ana", "Cai"]);
    before_tick();
    assert_eq!(store.tournament_requests(&id).await.unwrap(), Vec::new());
    // Each of the four changes was one save: 1 (created), then Ana, Bo and Cai, then Bo's
    // withdrawal (Bo and Cai may have come in one save).
    let version = store.tournament_version(&id).await.unwrap().unwrap();
    assert!((4..=5).contains(&version), "version {version}");
    b.stop().await;
    a.stop().await;
}

/// A save that fails keeps the request: with the arena's row locked by another connection
/// (past the 3 s statement limit), the owner's try of B's join fails, the join is not shown
/// and the request is still stored; once the lock is gone, the next try (a tick) applies it
/// once: one more version, one more player, no request left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_save_keeps_the_request_for_the_next_try() {
    use sqlx::Connection;
    let db = fresh_db(Backend::Postgres).await;
    let prefix = prefix("tkeep");
    let a = node(&db, "a", &prefix).await;
    let b = node(&db, "b", &prefix).await;
    let tokens = players(&db.url).await;
    let id = arena_on(&a, &tokens).await;
    let store = a.state.store();
    let version = store.tournament_version(&id).await.unwrap().unwrap();
    assert_eq!(version, 2);

    // Another connection holds the row: the owner's fenced save (`FOR UPDATE`) waits and
    // fails; B's request (a key share of the row) does not wait.
    let mut lock = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut lock).await.unwrap();
    sqlx::query("SELECT id FROM tournaments WHERE id = $1 FOR NO KEY UPDATE")
        .bind(id.as_str())
        .execute(&mut lock)
        .await
        .unwrap();
    let path = format!("/api/tournament/{id}/join");
    let (status, body) = bearer_call(b.addr, "POST", &path, &tokens[1], "").await;
    assert_eq!(status, 200, "{body}");
    // A tick now fails to save as the message's try did (or does, after it).
    a.state.tournaments().tick(&a.state).await;
    let asked = store.tournament_requests(&id).await.unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        (asked[0].action.as_str(), asked[0].name.as_str()),
        ("join", "Bo")
    );
    let before = tournament_view(a.addr, &id).await;
    assert_eq!(before["nbPlayers"], 1, "{before}");
    assert_eq!(store.tournament_version(&id).await.unwrap(), Some(2));

    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    a.state.tournaments().tick(&a.state).await;
    let after = tournament_view(a.addr, &id).await;
    assert_eq!(after["nbPlayers"], 2, "{after}");
    assert_eq!(names(&after), ["Ana", "Bo"]);
    assert_eq!(store.tournament_version(&id).await.unwrap(), Some(3));
    assert_eq!(store.tournament_requests(&id).await.unwrap(), Vec::new());
    // A second tick finds nothing to do: still one Bo, still version 3.
    a.state.tournaments().tick(&a.state).await;
    assert_eq!(names(&tournament_view(a.addr, &id).await), ["Ana", "Bo"]);
    assert_eq!(store.tournament_version(&id).await.unwrap(), Some(3));
    b.stop().await;
    a.stop().await;
}
