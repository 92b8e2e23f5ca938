//! Tables taken over on a cluster of two nodes in one process (PostgreSQL, the machine's NATS
//! with JetStream, `CHUHE_TEST_NATS`; docs/cluster.md): a node takes each table under the
//! table's own loading lock, so that a table whose takeover waits does not hold up the others
//! (under the lock of all tables, a node took over a stopped node's 2,000 tables at 100 a
//! second).

#[macro_use]
mod common;

use common::*;
use std::time::Duration;

/// Whether a statement on `game_tables` of the schema of `db` waits for a lock now.
async fn a_claim_waits(conn: &mut sqlx::AnyConnection) -> bool {
    let waiting: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' \
         AND query LIKE 'UPDATE game_tables%'",
    )
    .fetch_one(conn)
    .await
    .unwrap();
    waiting > 0
}

/// Node A makes tables X and Y and stops: it leaves the cluster and its tables are nobody's.
/// X's row is locked by another connection, so node B's claim of X, asked for by a watcher,
/// waits. Y, asked for through B meanwhile, is taken over and served while X still waits;
/// once the lock is gone, X is taken over too. Both are as A left them (version 5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_that_waits_does_not_hold_up_the_others() {
    use sqlx::Connection;
    let db = fresh_db(Backend::Postgres).await;
    let prefix = prefix("ttake");
    let a = node(&db, "a", &prefix).await;
    let b = node(&db, "b", &prefix).await;
    let (_, _, x) = black_to_move(&a).await;
    let (_, _, y) = black_to_move(&a).await;
    a.stop().await;

    let mut lock = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut lock).await.unwrap();
    sqlx::query("SELECT id FROM game_tables WHERE id = $1 FOR UPDATE")
        .bind(x.as_str())
        .execute(&mut lock)
        .await
        .unwrap();
    let addr = b.addr;
    let table = x.clone();
    let waiting = tokio::spawn(async move {
        let mut watcher = ws_client(addr, &table, None, None).await;
        watcher.state().await.version
    });
    // B's claim of X is waiting on the row.
    let mut probe = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    let mut tries = 0;
    while !a_claim_waits(&mut probe).await {
        tries += 1;
        assert!(tries < 200, "B's claim of {x} never waited on its row");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let y_state = tokio::time::timeout(Duration::from_secs(20), async {
        b.ws(&y, None, None).await.state().await
    })
    .await
    .expect("Y is served");
    assert_eq!(y_state.version, 5);
    assert!(
        !waiting.is_finished(),
        "Y was served only after X's takeover had ended"
    );
    assert!(a_claim_waits(&mut probe).await, "X's claim still waits");
    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    let x_version = tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("X is served once its row is free")
        .unwrap();
    assert_eq!(x_version, 5);
    lock.close().await.unwrap();
    probe.close().await.unwrap();
    b.stop().await;
}
