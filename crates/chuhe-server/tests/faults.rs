//! Database failures, faked by the store's writer ([`Fault`]), on both databases: a commit
//! whose answer is lost, an outage, a check that fails; what the players see, what is stored,
//! and that a restart finds the table and the store agreeing.

#[macro_use]
mod common;

use chuhe_rules::outcome::{EndReason, Outcome, Side};
use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Seat, ServerMessage};
use chuhe_server::store::Fault;
use common::*;
use std::time::Duration;

/// The stored versions of a table's events and its row's version.
async fn stored(server: &Server, table: &str) -> (Vec<u64>, u64) {
    let store = server.state.store();
    let versions = store
        .events(table)
        .await
        .unwrap()
        .iter()
        .map(|(v, _)| *v)
        .collect();
    let row = store.table(table).await.unwrap().unwrap().version;
    (versions, row)
}

/// A started untimed game: (red, black, table id), at version 4.
async fn started(server: &Server) -> (Client, Client, String) {
    let (mut red, mut black, table) = seated_pair(server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    (red, black, table)
}

/// The connection is cut after COMMIT: the writer finds the move stored and acknowledges it;
/// the game goes on, and a restart finds 6 events and a row at 6.
async fn a_lost_commit_answer_is_resolved_from_the_store(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    server
        .state
        .store()
        .inject_fault(Fault::LostCommitAnswer, 1);
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    red.state_at(6).await;
    assert_eq!(stored(&server, &table).await, ((1..=6).collect(), 6));
    server.stop().await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    assert_eq!(stored(&server, &table).await, ((1..=6).collect(), 6));
    let summary = server.state.table_summary(&table).await.unwrap();
    assert_eq!(summary.version, 6);
    server.stop().await;
}
on_both!(a_lost_commit_answer_is_resolved_from_the_store);

/// The commit's answer is lost and the database is still away when the writer checks: Red is
/// told `in_doubt` (the move may be stored; never `internal` nor `database_unavailable`, which
/// say it was not), and the move is stored. Black's answer to it is played: the table reads
/// the stored version first, applies and sends Red's move, then Black's. A clean stop and a
/// restart find 6 events and a row at 6 (the stop did not write the row back to 4).
async fn an_unknown_outcome_is_settled_before_the_next_action(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    let store = server.state.store();
    store.inject_fault(Fault::LostCommitAnswer, 1);
    store.inject_fault(Fault::CheckFails, 1);
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(red.error().await, in_doubt());
    assert_eq!(stored(&server, &table).await, ((1..=5).collect(), 5));
    black.send(&mv(5, "h9g7")).await;
    let (version, event) = black.event().await;
    assert_eq!(version, 5);
    assert!(matches!(event, Event::Moved { ref mv, .. } if mv == "h2e2"));
    black.state_at(6).await;
    assert_eq!(red.state_at(6).await.to_move, Some(Seat::new(0)));
    server.stop().await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    assert_eq!(stored(&server, &table).await, ((1..=6).collect(), 6));
    server.stop().await;
}
on_both!(an_unknown_outcome_is_settled_before_the_next_action);

/// What a write whose outcome is unknown is answered.
fn in_doubt() -> (ErrorCode, String) {
    (
        ErrorCode::InDoubt,
        "the database did not confirm the write, which may have been stored: sync before trying \
         again"
            .to_owned(),
    )
}

/// A commit lands but its answer is lost, and the check fails: Red is told `in_doubt`, sends
/// `sync` as told, and finds its move played (the table settled it from the store first): the
/// state at 5 with Black to move, and Black was sent the move too.
async fn a_move_in_doubt_is_found_by_sync(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    let store = server.state.store();
    store.inject_fault(Fault::LostCommitAnswer, 1);
    store.inject_fault(Fault::CheckFails, 1);
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(red.error().await, in_doubt());
    red.send(&ClientMessage::Sync { since: Some(4) }).await;
    // The table settles the write first and sends its update to every connection, then the
    // sync's answer: the event after 4 again and the state.
    for _ in ["the update", "the sync"] {
        let (version, event) = red.event().await;
        assert_eq!(version, 5);
        assert!(matches!(event, Event::Moved { ref mv, .. } if mv == "h2e2"));
        let state = red.state_at(5).await;
        assert_eq!(state.to_move, Some(Seat::new(1)));
    }
    let (version, event) = black.event().await;
    assert_eq!(version, 5);
    assert!(matches!(event, Event::Moved { ref mv, .. } if mv == "h2e2"));
    // The same move sent again is stale, not played twice.
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::StaleVersion,
            "stale version 4: the table is at version 5".to_owned()
        )
    );
    assert_eq!(stored(&server, &table).await, ((1..=5).collect(), 5));
    server.stop().await;
}
on_both!(a_move_in_doubt_is_found_by_sync);

/// An outage before COMMIT: the move fails, nothing is stored, and the same move sent again
/// is played (no primary-key error from the first try).
async fn an_outage_stores_nothing_and_the_move_can_be_sent_again(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    server.state.store().inject_fault(Fault::Outage, 1);
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::DatabaseUnavailable,
            "the database is unavailable, try again in a moment".to_owned()
        )
    );
    assert_eq!(stored(&server, &table).await, ((1..=4).collect(), 4));
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    assert_eq!(stored(&server, &table).await, ((1..=5).collect(), 5));
    server.stop().await;
}
on_both!(an_outage_stores_nothing_and_the_move_can_be_sent_again);

/// Black leaves during an outage: the abandonment's first three writes fail, and the timer
/// tries again (one second apart) until it is stored: Black loses by abandonment, 3 s after
/// the grace period (2 s here). On the wall clock: with a paused clock, a runtime waiting for
/// PostgreSQL jumps to the next timer, and the pool's own time limits fire at once.
async fn an_abandonment_during_an_outage_is_recorded_when_it_ends(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(2))).await;
    let (mut red, mut black, table) = started(&server).await;
    // Both have moved: a seat that vanishes before its first move aborts the game instead.
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    red.state_at(6).await;
    let left_at = std::time::Instant::now();
    server.state.store().inject_fault(Fault::Outage, 3);
    black.close().await;
    // The time left before the abandonment, counted from when the server saw Black go.
    match red.next().await {
        ServerMessage::Presence {
            seat,
            connected: false,
            abandon_ms: Some(ms),
        } if seat == Seat::new(1) && (1_500..=2_000).contains(&ms) => {}
        other => panic!("Black's absence expected, got {other:?}"),
    }
    let (version, event) = red.event().await;
    let waited = left_at.elapsed();
    assert_eq!(version, 7);
    assert_eq!(
        event,
        Event::Ended {
            outcome: Outcome::win(Side::Red, EndReason::Abandonment),
            result: Some("1-0".to_owned()),
            winner_seats: vec![Seat::new(0)],
        }
    );
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(8),
        "{waited:?}"
    );
    assert_eq!(stored(&server, &table).await, ((1..=7).collect(), 7));
    server.stop().await;
}
on_both!(an_abandonment_during_an_outage_is_recorded_when_it_ends);

/// Red's flag falls during an outage, after both sides made their first move: the flag's first
/// two writes fail; it is stored on the third try, and Black wins on time (on the wall clock, as
/// above: 2 s on Red's clock).
async fn a_flag_during_an_outage_is_recorded_when_it_ends(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let options = r#"{"variant":"xiangqi","time":{"initial_ms":2000,"increment_ms":0}}"#;
    let (mut red, mut black, table) = seated_pair(&server, options).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    assert_eq!(red.event().await.0, 6);
    server.state.store().inject_fault(Fault::Outage, 2);
    let (version, event) = red.event().await;
    assert_eq!(version, 7);
    assert_eq!(
        event,
        Event::Ended {
            outcome: Outcome::win(Side::Black, EndReason::Timeout),
            result: Some("0-1".to_owned()),
            winner_seats: vec![Seat::new(1)],
        }
    );
    assert_eq!(stored(&server, &table).await, ((1..=7).collect(), 7));
    server.stop().await;
}
on_both!(a_flag_during_an_outage_is_recorded_when_it_ends);

/// A table row whose version disagrees with its events (damage from before the row and its
/// events were written together) does not stop the server: the table starts from its events and
/// the row is repaired.
async fn a_row_behind_its_events_is_repaired_at_start(backend: Backend) {
    use sqlx::Connection;
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, _black, table) = started(&server).await;
    red.act(&mv(4, "h2e2"), 5).await;
    server.stop().await;
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    sqlx::query("UPDATE game_tables SET version = 4 WHERE id = $1")
        .bind(table.as_str())
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    assert_eq!(stored(&server, &table).await, ((1..=5).collect(), 5));
    assert_eq!(server.state.table_summary(&table).await.unwrap().version, 5);
    server.stop().await;
}
on_both!(a_row_behind_its_events_is_repaired_at_start);

/// A second server on the same PostgreSQL database (and schema) is refused while the first
/// holds it, with a message that says so; once the first has closed, it starts. A server on
/// another schema of the same database is not affected.
#[tokio::test]
async fn a_second_server_on_one_postgres_database_is_refused() {
    use chuhe_server::store::{Store, StoreError};
    let db = fresh_db(Backend::Postgres).await;
    let other = fresh_db(Backend::Postgres).await;
    let first = Store::connect(&db.url).await.unwrap();
    let beside = Store::connect(&other.url).await.unwrap();
    let err = Store::connect(&db.url).await.unwrap_err();
    assert!(matches!(err, StoreError::InUse(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with("the database \"test\" (schema \"t_")
            && message.contains("is in use by another chuhe serve"),
        "{message}"
    );
    first.close().await;
    let second = Store::connect(&db.url).await.unwrap();
    second.close().await;
    beside.close().await;
}

/// The database hangs (its write lock held by another connection): with a 1 s limit, Red's
/// move gets a clear error (and nothing is played); once the lock is gone the same move is
/// played.
async fn a_hanging_database_fails_a_move_with_a_clear_error(backend: Backend) {
    use chuhe_server::store::{Store, StoreOptions};
    let db = fresh_db(backend).await;
    let options = StoreOptions {
        statement_timeout: Duration::from_secs(1),
        ..StoreOptions::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let server = Server::start_on(store, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    let lock = hold_write_lock(backend, &db.url).await;
    red.send(&mv(4, "h2e2")).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::DatabaseUnavailable,
            "the database did not answer in time, try again".to_owned()
        )
    );
    drop(lock);
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    assert_eq!(stored(&server, &table).await, ((1..=5).collect(), 5));
    server.stop().await;
}
on_both!(a_hanging_database_fails_a_move_with_a_clear_error);

/// A database that hangs does not keep the server from stopping: a table's actor waits on a
/// move's write (the database's write lock held elsewhere, a 60 s limit), and a stop asked
/// with a 1 s shutdown limit returns within a few seconds instead of a minute.
async fn a_hanging_database_does_not_hold_up_the_stop(backend: Backend) {
    use chuhe_server::store::{Store, StoreOptions};
    let db = fresh_db(backend).await;
    let options = StoreOptions {
        statement_timeout: Duration::from_secs(60),
        ..StoreOptions::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let mut settings = settings(Duration::from_secs(60));
    settings.shutdown_timeout = Duration::from_secs(1);
    let server = Server::start_on(store, settings).await;
    let (mut red, _black, _table) = started(&server).await;
    let store = server.state.store().clone();
    let lock = hold_write_lock(backend, &db.url).await;
    red.send(&mv(4, "h2e2")).await;
    // The move's write is waiting for the lock.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = std::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(20), server.stop())
        .await
        .expect("the server did not stop");
    let took = asked.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "stopped after {took:?}"
    );
    // The abandoned write goes on once the lock is gone; the store is closed before the
    // test's database is removed (which would wait for the write's transaction).
    drop(lock);
    tokio::time::timeout(Duration::from_secs(20), store.close())
        .await
        .expect("the store did not close");
}
on_both!(a_hanging_database_does_not_hold_up_the_stop);

/// While a table's actor waits for a hanging database, the lobby's list still answers at once
/// (it reads each table's last published summary, not the actor), and shows the table as it
/// was stored; when the lock goes, the move is played.
async fn a_stuck_table_does_not_hold_up_the_lobby(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = started(&server).await;
    let lock = hold_write_lock(backend, &db.url).await;
    red.send(&mv(4, "h2e2")).await;
    let listed = tokio::time::timeout(
        Duration::from_secs(30),
        server.http("GET", "/api/tables", None, None),
    )
    .await
    .expect("the lobby waited for the stuck table");
    assert_eq!(listed.0, 200);
    let list: serde_json::Value = serde_json::from_str(&listed.2).unwrap();
    assert_eq!(list[0]["id"], table.as_str());
    assert_eq!(list[0]["version"], 4);
    drop(lock);
    red.state_at(5).await;
    black.state_at(5).await;
    server.stop().await;
}
on_both!(a_stuck_table_does_not_hold_up_the_lobby);

/// `/api/health` reports the database: 200 with `"database":"ok"` while it answers, 503 with a
/// reason once it cannot be reached (here: its connections closed).
async fn the_health_check_reports_the_database(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (status, _, body) = server.http("GET", "/api/health", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"database":"ok","status":"ok"}"#)
    );
    server.state.store().close().await;
    let (status, _, body) = server.http("GET", "/api/health", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            r#"{"database":"the database cannot be reached","status":"unavailable"}"#
        )
    );
    server.stop().await;
}
on_both!(the_health_check_reports_the_database);

/// A player whose connection closes while the table waits for the database is gone all the
/// same: the update after the write finds the connection closed before its `disconnect`
/// arrives, and the table takes that as the leaving it is (the others are told, the grace
/// period runs) instead of forgetting the connection silently (the player then counted as
/// present for ever: no abandonment, an untimed game stuck).
async fn a_player_who_leaves_while_the_table_waits_is_gone(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, _) = started(&server).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    let lock = hold_write_lock(backend, &db.url).await;
    black.send(&mv(5, "h9g7")).await;
    // the move reaches the table, which waits for the database to store it; then Red leaves
    tokio::time::sleep(Duration::from_millis(300)).await;
    red.close().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(lock);
    black.state_at(6).await;
    let told = tokio::time::timeout(Duration::from_secs(10), black.next())
        .await
        .expect("Black was never told that Red left");
    let ServerMessage::Presence {
        seat,
        connected,
        abandon_ms,
    } = told
    else {
        panic!("a presence message expected, got {told:?}");
    };
    assert_eq!((seat, connected), (Seat::new(0), false));
    let left = abandon_ms.expect("Red's grace period runs");
    assert!((50_000..=60_000).contains(&left), "{left}");
    server.stop().await;
}
on_both!(a_player_who_leaves_while_the_table_waits_is_gone);
