//! The store's writer with group commit, through the store's interface, on SQLite and on
//! PostgreSQL: many tables writing at once all get their events stored exactly once at the
//! right versions; a write that fails (an event of a version already stored) fails alone, and
//! the writes committed with it in its group are kept.

#[macro_use]
mod common;

use chuhe_server::accounts::rating::{rate_game, Rating};
use chuhe_server::protocol::{Event, TableOptions};
use chuhe_server::store::{PlayerRow, RatedGame, Store, StoreError, TableRow, TableWrite};
use common::*;

const OPTIONS: &str =
    r#"{"variant":"xiangqi","time":null,"rated":false,"no_capture_limit":60,"flag_bearers":null}"#;

/// Tables at once: more than the writer takes in one group (256), so groups follow each other.
const TABLES: usize = 300;

/// A move event of ply `ply` (the move text tells the table and the ply apart).
fn moved(table: usize, ply: usize) -> Event {
    serde_json::from_str(&format!(
        r#"{{"kind":"moved","seat":{},"move":"t{table}p{ply}","ply":{ply},"clocks_ms":null}}"#,
        (ply + 1) % 2
    ))
    .unwrap()
}

fn row(id: &str, version: u64) -> TableRow {
    TableRow {
        id: id.to_owned(),
        options: serde_json::from_str(OPTIONS).unwrap(),
        phase: if version == 1 { "open" } else { "running" }.to_owned(),
        version,
        clocks: None,
        secret: None,
        created_ms: 1,
    }
}

/// Creates tables `t0`, `t1`... with their `created` event (version 1).
async fn create_tables(store: &Store, n: usize) {
    let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    for t in 0..n {
        let created = Event::Created {
            options: options.clone(),
        };
        store
            .create_table(&row(&format!("t{t}"), 1), &created)
            .await
            .unwrap();
    }
}

/// One write per table, all handed over at once; returns each table's result.
async fn write_all(
    store: &Store,
    writes: impl IntoIterator<Item = TableWrite>,
) -> Vec<Result<(), StoreError>> {
    let tasks: Vec<_> = writes
        .into_iter()
        .map(|w| {
            let store = store.clone();
            tokio::spawn(async move { store.write(&w).await })
        })
        .collect();
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap());
    }
    results
}

/// The write that takes table `t` from version `from` to `from + plies` with moves.
fn moves(t: usize, from: u64, plies: usize) -> TableWrite {
    let first_ply = from as usize; // version 2 is ply 1 (version 1 is `created`)
    TableWrite {
        row: row(&format!("t{t}"), from + plies as u64),
        events: (first_ply..first_ply + plies)
            .map(|p| moved(t, p))
            .collect(),
        rated: None,
        finished: None,
    }
}

async fn many_tables_at_once_are_stored_exactly_once(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = Store::connect(&db.url).await.unwrap();
    create_tables(&store, TABLES).await;
    // Three rounds; each round every table writes at once, one to three events each.
    let mut version = vec![1u64; TABLES];
    for round in 0..3 {
        let writes: Vec<TableWrite> = (0..TABLES)
            .map(|t| moves(t, version[t], 1 + (t + round) % 3))
            .collect();
        for (t, w) in writes.iter().enumerate() {
            version[t] = w.row.version;
        }
        for (t, result) in write_all(&store, writes).await.into_iter().enumerate() {
            assert!(result.is_ok(), "table t{t}: {result:?}");
        }
    }
    for (t, &last) in version.iter().enumerate() {
        let id = format!("t{t}");
        let events = store.events(&id).await.unwrap();
        let versions: Vec<u64> = events.iter().map(|(v, _)| *v).collect();
        assert_eq!(versions, (1..=last).collect::<Vec<_>>(), "table {id}");
        for (v, e) in &events[1..] {
            assert_eq!(*e, moved(t, *v as usize - 1), "table {id} version {v}");
        }
        let stored = store.table(&id).await.unwrap().unwrap();
        assert_eq!((stored.version, stored.phase.as_str()), (last, "running"));
    }
    store.close().await;
}
on_both!(many_tables_at_once_are_stored_exactly_once);

/// A table's row as stored (its `version` and `clocks` columns), and the `clocks` column of
/// each of its events in version order.
async fn stored_columns(url: &str, id: &str) -> ((i64, Option<String>), Vec<Option<String>>) {
    use sqlx::{Connection, Row};
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let row = sqlx::query("SELECT version, clocks FROM game_tables WHERE id = $1")
        .bind(id)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let events =
        sqlx::query("SELECT clocks FROM table_events WHERE table_id = $1 ORDER BY version")
            .bind(id)
            .fetch_all(&mut conn)
            .await
            .unwrap();
    conn.close().await.unwrap();
    (
        (row.get("version"), row.get("clocks")),
        events.iter().map(|e| e.get("clocks")).collect(),
    )
}

/// Waits until the store at `url` has written its first `alive_ms` (its start-up housekeeping,
/// two singles: the cleanup of sessions, then `alive_ms`, the next five seconds later), so
/// that a test's next writes make groups of their own: a single in a group takes the general
/// path, not SQLite's group of moves.
async fn housekeeping_written(url: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    for _ in 0..500 {
        let alive: Option<i64> =
            sqlx::query_scalar("SELECT value FROM server_state WHERE name = 'alive_ms'")
                .fetch_optional(&mut conn)
                .await
                .unwrap();
        if alive.is_some_and(|ms| ms > 0) {
            conn.close().await.unwrap();
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the store wrote no alive_ms in 5 s");
}

/// On SQLite a group of moves writes the table rows whose phase changes and no other: the
/// last event of each write holds the table's clocks, and `Store::table` reads the newer of
/// the row and the last event. On PostgreSQL every row is written, and the events hold no
/// clocks. A row saved alone (the clocks at a stop) is written on both.
async fn a_row_whose_phase_stays_is_read_from_its_last_event(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = Store::connect(&db.url).await.unwrap();
    create_tables(&store, 1).await;
    housekeeping_written(&db.url).await;
    let clocks = |red: u64, black: u64| -> chuhe_server::store::ClockSnapshot {
        serde_json::from_str(&format!(
            r#"{{"remaining_ms":[{red},{black}],"quota_ms":[0,0]}}"#
        ))
        .unwrap()
    };
    let text = |c: &chuhe_server::store::ClockSnapshot| serde_json::to_string(c).unwrap();
    // Open to running: the row is written.
    let mut start = moves(0, 1, 1);
    start.row.clocks = Some(clocks(300_000, 300_000));
    store.write(&start).await.unwrap();
    // Two more moves, the phase stays.
    let mut on = moves(0, 2, 2);
    on.row.clocks = Some(clocks(290_000, 295_000));
    store.write(&on).await.unwrap();
    let read = store.table("t0").await.unwrap().unwrap();
    assert_eq!((read.version, read.phase.as_str()), (4, "running"));
    assert_eq!(read.clocks, on.row.clocks);
    let (row, events) = stored_columns(&db.url, "t0").await;
    let (first, last) = (
        Some(text(&clocks(300_000, 300_000))),
        Some(text(&clocks(290_000, 295_000))),
    );
    match backend {
        Backend::Sqlite => {
            assert_eq!(row, (2, first.clone()));
            assert_eq!(events, vec![None, first, None, last]);
        }
        Backend::Postgres => {
            assert_eq!(row, (4, last));
            assert_eq!(events, vec![None; 4]);
        }
    }
    // The clocks saved alone at a stop: the row is written, and read.
    let mut saved = on.row.clone();
    saved.clocks = Some(clocks(288_000, 295_000));
    store.save_row(&saved).await.unwrap();
    let read = store.table("t0").await.unwrap().unwrap();
    assert_eq!((read.version, read.clocks), (4, saved.clocks.clone()));
    let (row, _) = stored_columns(&db.url, "t0").await;
    assert_eq!(row, (4, Some(text(&clocks(288_000, 295_000)))));
    store.close().await;
}
on_both!(a_row_whose_phase_stays_is_read_from_its_last_event);

async fn a_failing_write_fails_alone(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = Store::connect(&db.url).await.unwrap();
    create_tables(&store, TABLES).await;
    // Every table has its version 2.
    for result in write_all(&store, (0..TABLES).map(|t| moves(t, 1, 1))).await {
        result.unwrap();
    }
    // Then all at once: every table writes version 3, except the faulty ones, which write
    // version 2 again (its primary key is taken) with a different move.
    let faulty = [7usize, 150, 299];
    let writes = (0..TABLES).map(|t| {
        if faulty.contains(&t) {
            let mut w = moves(t, 1, 1);
            w.events = vec![moved(t, 99)];
            w
        } else {
            moves(t, 2, 1)
        }
    });
    for (t, result) in write_all(&store, writes).await.into_iter().enumerate() {
        if faulty.contains(&t) {
            assert!(
                matches!(result, Err(StoreError::Database(_))),
                "table t{t}: {result:?}"
            );
        } else {
            assert!(result.is_ok(), "table t{t}: {result:?}");
        }
    }
    for t in 0..TABLES {
        let id = format!("t{t}");
        let events = store.events(&id).await.unwrap();
        let last = if faulty.contains(&t) { 2 } else { 3 };
        assert_eq!(
            events.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
            (1..=last).collect::<Vec<_>>(),
            "table {id}"
        );
        // The faulty write changed nothing: neither its event nor its row.
        assert_eq!(events[1].1, moved(t, 1), "table {id}");
        assert_eq!(store.table(&id).await.unwrap().unwrap().version, last);
    }
    // More events than the row's version is refused before it reaches the writer.
    let mut bad = moves(0, 3, 1);
    bad.row.version = 0;
    assert!(matches!(
        store.write(&bad).await,
        Err(StoreError::EventVersions { count: 1, last: 0 })
    ));
    // After close, writes are refused.
    store.close().await;
    assert!(matches!(
        store.write(&moves(0, 3, 1)).await,
        Err(StoreError::WriterStopped)
    ));
}
on_both!(a_failing_write_fails_alone);

/// A group's COMMIT succeeds but its answer is lost (the connection cut): the writer checks the
/// stored versions, so every write of the group is answered `Ok` and stored once (none is
/// written again into its own primary key). Then an outage: nothing of the group is stored,
/// each write is tried again alone, and all land.
async fn a_lost_group_commit_is_resolved_by_version(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = Store::connect(&db.url).await.unwrap();
    create_tables(&store, TABLES).await;
    store.inject_fault(chuhe_server::store::Fault::LostCommitAnswer, 1);
    let results = write_all(&store, (0..TABLES).map(|t| moves(t, 1, 2))).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), TABLES);
    store.inject_fault(chuhe_server::store::Fault::Outage, 1);
    let results = write_all(&store, (0..TABLES).map(|t| moves(t, 3, 1))).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), TABLES);
    for t in 0..TABLES {
        let id = format!("t{t}");
        let versions: Vec<u64> = store
            .events(&id)
            .await
            .unwrap()
            .iter()
            .map(|(v, _)| *v)
            .collect();
        assert_eq!(versions, [1, 2, 3, 4], "table {id}");
        assert_eq!(store.table(&id).await.unwrap().unwrap().version, 4);
    }
    store.close().await;
}
on_both!(a_lost_group_commit_is_resolved_by_version);

/// A cluster's fence (PostgreSQL): a node writes its table while it holds it at its epoch and
/// its lease runs; once another node took the table, or its own lease lapsed, its write is
/// refused and nothing of it is stored.
#[tokio::test]
async fn a_fenced_write_is_refused_once_the_node_lost_the_table() {
    use chuhe_server::store::{Fence, StoreOptions};
    use std::time::Duration;
    let db = fresh_db(Backend::Postgres).await;
    let options = StoreOptions {
        cluster: true,
        ..StoreOptions::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let long = Duration::from_secs(60);
    store.register_node("a-1", "a", long).await.unwrap();
    store.register_node("b-1", "b", long).await.unwrap();
    let created = Event::Created {
        options: serde_json::from_str(OPTIONS).unwrap(),
    };
    store
        .create_table_owned(&row("t0", 1), &created, Some("a-1"))
        .await
        .unwrap();
    let a = Fence {
        node: "a-1".to_owned(),
        epoch: 1,
    };
    store.write_fenced(&moves(0, 1, 1), Some(&a)).await.unwrap();

    let seen = store.ownership("t0").await.unwrap().unwrap();
    assert_eq!(seen.owner.as_deref(), Some("a-1"));
    assert_eq!(seen.epoch, 1);
    assert!(seen.owner_alive);
    assert_eq!(store.orphans(10).await.unwrap(), Vec::<String>::new());
    // b takes it over (as after a's death): the epoch grows; a second claim on what was seen
    // loses the race.
    assert_eq!(store.claim("t0", &seen, "b-1").await.unwrap(), Some(2));
    assert_eq!(store.claim("t0", &seen, "a-1").await.unwrap(), None);
    let refused = store.write_fenced(&moves(0, 2, 1), Some(&a)).await;
    assert!(
        matches!(refused, Err(StoreError::Fenced(ref t)) if t == "t0"),
        "{refused:?}"
    );
    assert_eq!(store.events("t0").await.unwrap().len(), 2);
    let b = Fence {
        node: "b-1".to_owned(),
        epoch: 2,
    };
    store.write_fenced(&moves(0, 2, 1), Some(&b)).await.unwrap();
    assert_eq!(store.table("t0").await.unwrap().unwrap().version, 3);

    // A node whose lease lapsed writes nothing, even on a table it still holds, and cannot
    // renew: it must start again.
    store
        .register_node("c-1", "c", Duration::from_millis(300))
        .await
        .unwrap();
    let seen = store.ownership("t0").await.unwrap().unwrap();
    assert_eq!(store.claim("t0", &seen, "c-1").await.unwrap(), Some(3));
    let c = Fence {
        node: "c-1".to_owned(),
        epoch: 3,
    };
    store.write_fenced(&moves(0, 3, 1), Some(&c)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let refused = store.write_fenced(&moves(0, 4, 1), Some(&c)).await;
    assert!(matches!(refused, Err(StoreError::Fenced(_))), "{refused:?}");
    assert!(!store.renew_node("c-1", long).await.unwrap());
    assert!(store.renew_node("a-1", long).await.unwrap());
    // Its table is free for the others, and taking it over charges the time from the table's
    // last write to c's last renewal (here: none, c renewed before that write).
    assert_eq!(store.orphans(10).await.unwrap(), vec!["t0".to_owned()]);
    let seen = store.ownership("t0").await.unwrap().unwrap();
    assert!(!seen.owner_alive);
    assert_eq!(seen.uncharged(), Duration::ZERO);
    assert_eq!(store.events("t0").await.unwrap().len(), 4);
    // A clean release leaves no owner and nothing to charge.
    assert_eq!(store.claim("t0", &seen, "a-1").await.unwrap(), Some(4));
    assert!(store.release("t0", "a-1", 4).await.unwrap());
    let seen = store.ownership("t0").await.unwrap().unwrap();
    assert_eq!((seen.owner, seen.epoch), (None, 4));
    store.end_node("a-1").await.unwrap();
    assert_eq!(store.live_nodes().await.unwrap(), vec!["b-1".to_owned()]);
    // SQLite holds no cluster.
    let sqlite = fresh_db(Backend::Sqlite).await;
    let refused = Store::connect_with(&sqlite.url, options).await;
    assert!(matches!(refused, Err(StoreError::NotClustered)));
}

/// The write that ends table `t` (from version 1, one move) as a rated game `a` won against
/// `b{t}`.
fn rated_end(t: usize) -> TableWrite {
    let mut write = moves(t, 1, 1);
    write.row.phase = "ended".to_owned();
    write.rated = Some(RatedGame {
        variant: "xiangqi".to_owned(),
        players: vec!["a".to_owned(), format!("b{t}")],
        winners: vec![true, false],
    });
    write
}

/// Account holders `a` and `b0`..`b{n-1}`.
async fn accounts(store: &Store, n: usize) {
    for id in std::iter::once("a".to_owned()).chain((0..n).map(|t| format!("b{t}"))) {
        store
            .create_player(&PlayerRow {
                id: id.clone(),
                name: format!("player {id}"),
                password_hash: Some("$argon2id$not-checked-here".to_owned()),
            })
            .await
            .unwrap();
    }
}

/// `a`'s rating after `n` won games against new players, one rating period each.
fn won_n_times(n: usize) -> Rating {
    (0..n).fold(Rating::default(), |r, _| {
        rate_game(&[r, Rating::default()], &[true, false])[0]
    })
}

/// Asserts `a`'s stored xiangqi rating and count, and that each `b{t}` has one lost game.
async fn assert_rated(store: &Store, n: usize) {
    let a = store.rating("a", "xiangqi").await.unwrap();
    let expected = won_n_times(n);
    assert_eq!(a.games, n as u64, "{a:?}");
    assert!(
        (a.rating.rating - expected.rating).abs() < 1e-6
            && (a.rating.deviation - expected.deviation).abs() < 1e-6,
        "{a:?} against {expected:?}"
    );
    // Each loser met `a` as it stood after the games rated before (in an order the writer
    // chose): a loss to a stronger `a` costs less.
    let first_loss = rate_game(&[Rating::default(), Rating::default()], &[true, false])[1];
    for t in 0..n {
        let b = store.rating(&format!("b{t}"), "xiangqi").await.unwrap();
        assert_eq!(b.games, 1, "b{t}: {b:?}");
        assert!(
            b.rating.rating >= first_loss.rating - 1e-6 && b.rating.rating < 1500.0,
            "b{t}: {b:?}"
        );
    }
}

/// One account's rated games that end at the same moment are each rated, one after the other,
/// from the stored rating (they were read and written per table, and 3 games counted as 1).
async fn rated_games_ending_together_each_count(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = Store::connect(&db.url).await.unwrap();
    let n = 8;
    accounts(&store, n).await;
    create_tables(&store, n).await;
    for (t, result) in write_all(&store, (0..n).map(rated_end))
        .await
        .into_iter()
        .enumerate()
    {
        assert!(result.is_ok(), "table t{t}: {result:?}");
    }
    assert_rated(&store, n).await;
    store.close().await;
}
on_both!(rated_games_ending_together_each_count);

/// Two cluster nodes (two stores, two writers) end rated games of one account at once: the
/// row lock of the rating makes them count one after the other, every one.
#[tokio::test]
async fn rated_games_ending_together_on_two_nodes_each_count() {
    use chuhe_server::store::StoreOptions;
    let db = fresh_db(Backend::Postgres).await;
    let options = StoreOptions {
        cluster: true,
        ..StoreOptions::default()
    };
    let one = Store::connect_with(&db.url, options).await.unwrap();
    let two = Store::connect_with(&db.url, options).await.unwrap();
    let n = 12;
    accounts(&one, n).await;
    create_tables(&one, n).await;
    let tasks: Vec<_> = (0..n)
        .map(|t| {
            let store = if t % 2 == 0 { one.clone() } else { two.clone() };
            tokio::spawn(async move { store.write(&rated_end(t)).await })
        })
        .collect();
    for (t, task) in tasks.into_iter().enumerate() {
        let result = task.await.unwrap();
        assert!(result.is_ok(), "table t{t}: {result:?}");
    }
    assert_rated(&one, n).await;
    one.close().await;
    two.close().await;
}
