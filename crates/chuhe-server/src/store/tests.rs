//! The store's unit tests: typed values through their texts, the checkpoint thread, versions.

use super::rows::first_version;
use super::{normalize_url, now_ms, ClockSnapshot, Store, TableRow, TableWrite};
use crate::protocol::{Event, TableOptions};
use sqlx::Row;

const OPTIONS: &str =
    r#"{"variant":"xiangqi","time":null,"rated":true,"no_capture_limit":60,"flag_bearers":null}"#;
const STARTED: &str = r#"{"kind":"started"}"#;
const MOVED: &str =
    r#"{"kind":"moved","seat":0,"move":"h2e2","ply":1,"clocks_ms":[299000,300000]}"#;
const CLOCKS: &str = r#"{"remaining_ms":[299000,300000],"quota_ms":[2000,1500]}"#;

/// The writer never checkpoints (`wal_autocheckpoint = 0`): the schema and the first table
/// reach the database file only through the checkpoint thread, within seconds, while the
/// store is open (closing the last connection would checkpoint too, so it stays open).
#[tokio::test]
async fn the_checkpoint_thread_copies_the_log_into_the_database_file() {
    let path = std::env::temp_dir().join(format!(
        "chuhe-checkpoint-test-{}-{}.db",
        std::process::id(),
        now_ms()
    ));
    let store = Store::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    let row = TableRow {
        id: "t1".to_owned(),
        options: options.clone(),
        phase: "open".to_owned(),
        version: 1,
        clocks: None,
        secret: None,
        created_ms: 5,
    };
    store
        .create_table(&row, &Event::Created { options })
        .await
        .unwrap();
    assert!(
        store.checkpointer.lock().unwrap().is_some(),
        "a SQLite file has a checkpoint thread"
    );
    // The pages of the schema and the row, copied by a passive checkpoint (SQLite's own
    // would wait for 1,000 pages of log).
    let mut copied = 0;
    for _ in 0..100 {
        copied = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if copied >= 4 * 4096 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(copied >= 4 * 4096, "the database file holds {copied} bytes");
    let listed: i64 = sqlx::query("SELECT COUNT(*) AS n FROM game_tables")
        .fetch_one(&store.pool)
        .await
        .unwrap()
        .get("n");
    assert_eq!(listed, 1);
    store.close().await;
    let _ = std::fs::remove_file(&path);
}

/// The checkpoint sequence number in the header of a SQLite `-wal` file (bytes 12-15, big
/// endian): SQLite adds one each time the log is started over (sqlite.org, "Database File
/// Format", "WAL File Format"). 0 when the file is shorter than a header.
fn wal_restarts(wal: &std::path::Path) -> u32 {
    use std::io::Read;
    let mut header = [0u8; 16];
    match std::fs::File::open(wal).and_then(|mut f| f.read_exact(&mut header)) {
        Ok(()) => u32::from_be_bytes([header[12], header[13], header[14], header[15]]),
        Err(_) => 0,
    }
}

/// Under writes that never pause, the checkpoint thread starts the log over once it holds
/// `wal_restart_frames` frames (a passive checkpoint alone may never: the writer appends while
/// it copies), and no write fails for it: the writer's transactions take the write lock at
/// `BEGIN IMMEDIATE`, so the restart between a group's read and its write cannot refuse it
/// (`SQLITE_BUSY_SNAPSHOT`, seen once in 34 restarts under `chuhe loadtest --games 5000`
/// before that). Singles (players) and table writes go through the writer side by side.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_log_is_started_over_while_the_writes_go_on() {
    use super::{PlayerRow, StoreOptions};
    let path = std::env::temp_dir().join(format!(
        "chuhe-restart-test-{}-{}.db",
        std::process::id(),
        now_ms()
    ));
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    let options = StoreOptions {
        wal_restart_frames: 16,
        ..StoreOptions::default()
    };
    let store = Store::connect_with(&format!("sqlite://{}", path.display()), options)
        .await
        .unwrap();
    let table_options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let store = store.clone();
            let table_options = table_options.clone();
            let wal = wal.clone();
            tokio::spawn(async move {
                let mut written = 0u32;
                let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
                while wal_restarts(&wal) < 3 && std::time::Instant::now() < until {
                    let id = format!("w{w}-{written}");
                    let row = TableRow {
                        id: id.clone(),
                        options: table_options.clone(),
                        phase: "open".to_owned(),
                        version: 1,
                        clocks: None,
                        secret: None,
                        created_ms: 5,
                    };
                    let created = Event::Created {
                        options: table_options.clone(),
                    };
                    store.create_table(&row, &created).await.unwrap();
                    let player = PlayerRow {
                        id: id.clone(),
                        name: format!("guest {id}"),
                        password_hash: None,
                    };
                    store.create_player(&player).await.unwrap();
                    written += 1;
                }
                written
            })
        })
        .collect();
    let mut written = 0;
    for w in writers {
        written += w.await.unwrap();
    }
    assert!(
        wal_restarts(&wal) >= 3,
        "the log was started over {} times in 20 s of writes",
        wal_restarts(&wal)
    );
    let restarts = store
        .checkpointer
        .lock()
        .unwrap()
        .as_ref()
        .map_or(0, |c| c.restarts());
    assert!(restarts >= 1, "{restarts} RESTART checkpoints finished");
    let tables: i64 = sqlx::query("SELECT COUNT(*) AS n FROM game_tables")
        .fetch_one(&store.pool)
        .await
        .unwrap()
        .get("n");
    let players: i64 = sqlx::query("SELECT COUNT(*) AS n FROM players")
        .fetch_one(&store.pool)
        .await
        .unwrap()
        .get("n");
    assert_eq!((tables, players), (i64::from(written), i64::from(written)));
    store.close().await;
    for file in [path.clone(), wal, path.with_extension("db-shm")] {
        let _ = std::fs::remove_file(file);
    }
}

/// The texts in the database are the ones the callers wrote before the store took typed
/// values, and they read back as the values that were written.
#[tokio::test]
async fn typed_values_round_trip_through_the_same_texts() {
    let path = std::env::temp_dir().join(format!(
        "chuhe-store-test-{}-{}.db",
        std::process::id(),
        now_ms()
    ));
    let store = Store::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    let created = Event::Created {
        options: options.clone(),
    };
    let mut row = TableRow {
        id: "t1".to_owned(),
        options,
        phase: "open".to_owned(),
        version: 1,
        clocks: None,
        secret: None,
        created_ms: 5,
    };
    store.create_table(&row, &created).await.unwrap();
    let later: Vec<Event> = [STARTED, MOVED]
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    row.phase = "running".to_owned();
    row.version = 3;
    row.clocks = Some(serde_json::from_str::<ClockSnapshot>(CLOCKS).unwrap());
    store
        .write(&TableWrite {
            row: row.clone(),
            events: later.clone(),
            rated: None,
            finished: None,
        })
        .await
        .unwrap();

    let bodies: Vec<(i64, String)> =
        sqlx::query("SELECT version, body FROM table_events WHERE table_id = $1 ORDER BY version")
            .bind("t1")
            .fetch_all(&store.pool)
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get("version"), r.get("body")))
            .collect();
    let expected = [
        format!(r#"{{"kind":"created","options":{OPTIONS}}}"#),
        STARTED.to_owned(),
        MOVED.to_owned(),
    ];
    assert_eq!(bodies, (1..).zip(expected).collect::<Vec<(i64, String)>>());
    let stored = sqlx::query("SELECT variant, options, clocks FROM game_tables WHERE id = $1")
        .bind("t1")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(stored.get::<String, _>("variant"), "xiangqi");
    assert_eq!(stored.get::<String, _>("options"), OPTIONS);
    assert_eq!(
        stored.get::<Option<String>, _>("clocks").as_deref(),
        Some(CLOCKS)
    );

    assert_eq!(store.table("t1").await.unwrap(), Some(row));
    let mut all = vec![created];
    all.extend(later);
    assert_eq!(store.event_log("t1").await.unwrap(), all);
    assert_eq!(
        store
            .events("t1")
            .await
            .unwrap()
            .iter()
            .map(|(v, _)| *v)
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
    store.close().await;
    let _ = std::fs::remove_file(&path);
}

/// A cluster node's clock has no say in what a takeover charges (scripts/faults, a schedule
/// of seed 28: a node's clock stepped back 884 s, then kill -9: the player to move lost on
/// time with 297.9 s left). The owner writes a running table while its own clock is an hour
/// behind, then its lease lapses; the thinking time left to charge is from that write to its
/// last renewal, both on the database's clock: none here, never an hour.
#[tokio::test]
async fn a_takeover_charges_by_the_database_clock_not_the_dead_owners() {
    use super::{Fence, StoreOptions};
    use std::time::Duration;
    let options = StoreOptions {
        cluster: true,
        ..StoreOptions::default()
    };
    let (store, dropper) = postgres_store("clock", options).await;
    store
        .register_node("a-1", "a", Duration::from_millis(400))
        .await
        .unwrap();
    let table_options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    let mut row = TableRow {
        id: "t1".to_owned(),
        options: table_options.clone(),
        phase: "open".to_owned(),
        version: 1,
        clocks: None,
        secret: None,
        created_ms: now_ms(),
    };
    let created = Event::Created {
        options: table_options,
    };
    store
        .create_table_owned(&row, &created, Some("a-1"))
        .await
        .unwrap();
    row.phase = "running".to_owned();
    row.version = 2;
    row.clocks = Some(serde_json::from_str::<ClockSnapshot>(CLOCKS).unwrap());
    let fence = Fence {
        node: "a-1".to_owned(),
        epoch: 1,
    };
    let started = TableWrite {
        row,
        events: vec![serde_json::from_str(STARTED).unwrap()],
        rated: None,
        finished: None,
    };
    let an_hour_ago = now_ms() - 3_600_000;
    store
        .write_at(&started, Some(&fence), an_hour_ago)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let seen = store.ownership("t1").await.unwrap().unwrap();
    assert!(!seen.owner_alive);
    assert_eq!(seen.uncharged(), Duration::ZERO);
    store.close().await;
    dropper.await;
}

/// A store on a new schema of the test PostgreSQL (`CHUHE_TEST_POSTGRES`), and what drops the
/// schema when awaited.
async fn postgres_store(
    name: &str,
    options: super::StoreOptions,
) -> (Store, impl std::future::Future<Output = ()>) {
    use sqlx::Connection;
    let base = std::env::var("CHUHE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let schema = format!("{name}{}x{}", std::process::id(), now_ms());
    let mut admin = sqlx::PgConnection::connect(&base)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {base} is not reachable: {e}"));
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&mut admin)
        .await
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
    let store = Store::connect_with(&url, options).await.unwrap();
    let dropper = async move {
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
            .execute(&mut admin)
            .await
            .unwrap();
    };
    (store, dropper)
}

/// A transaction left open by a client that went silent (a node stopped, or cut off with its
/// connection's end lost) is ended by PostgreSQL after the store's time limit, with its locks:
/// it no longer blocks the next write of the same table for good (scripts/faults, seed 1011: a
/// table whose uncommitted event row outlived its stopped, cut-off owner took no move again).
/// Here a connection of the store inserts the table's next event and stays silent; after the
/// limit, the store writes that version itself.
#[tokio::test]
async fn a_silent_transaction_does_not_block_a_table_for_good() {
    use super::StoreOptions;
    use std::time::Duration;
    let options = StoreOptions {
        statement_timeout: Duration::from_millis(1500),
        ..StoreOptions::default()
    };
    let (store, dropper) = postgres_store("silent", options).await;
    let table_options: TableOptions = serde_json::from_str(OPTIONS).unwrap();
    let mut row = TableRow {
        id: "t1".to_owned(),
        options: table_options.clone(),
        phase: "open".to_owned(),
        version: 1,
        clocks: None,
        secret: None,
        created_ms: now_ms(),
    };
    let created = Event::Created {
        options: table_options,
    };
    store.create_table(&row, &created).await.unwrap();
    let mut silent = store.pool.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO table_events (table_id, version, body, created_ms) VALUES ('t1', 2, $1, 0)",
    )
    .bind(STARTED)
    .execute(&mut *silent)
    .await
    .unwrap();
    let limit: String = sqlx::query("SHOW idle_in_transaction_session_timeout")
        .fetch_one(&mut *silent)
        .await
        .unwrap()
        .get(0);
    assert_eq!(limit, "1500ms");
    tokio::time::sleep(Duration::from_millis(2000)).await;
    row.phase = "running".to_owned();
    row.version = 2;
    store
        .write(&TableWrite {
            row,
            events: vec![serde_json::from_str(STARTED).unwrap()],
            rated: None,
            finished: None,
        })
        .await
        .unwrap();
    assert_eq!(store.events("t1").await.unwrap().len(), 2);
    drop(silent);
    store.close().await;
    dropper.await;
}

#[test]
fn appended_events_end_at_the_row_version() {
    assert_eq!(first_version(3, 2).ok(), Some(2));
    assert_eq!(first_version(3, 0).ok(), Some(4));
    assert!(first_version(1, 2).is_err());
}

#[test]
fn sqlite_urls_get_create_mode() {
    assert_eq!(
        normalize_url("sqlite://chuhe.db"),
        "sqlite://chuhe.db?mode=rwc"
    );
    assert_eq!(
        normalize_url("sqlite://a.db?cache=shared"),
        "sqlite://a.db?cache=shared&mode=rwc"
    );
    assert_eq!(
        normalize_url("sqlite://a.db?mode=ro"),
        "sqlite://a.db?mode=ro"
    );
    assert_eq!(normalize_url("postgres://x/y"), "postgres://x/y");
}
