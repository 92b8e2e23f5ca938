//! A stop of a server with many running tables: every table's clocks are saved, and the saves
//! are committed together in a few groups, not one commit per table (one after the other, a
//! server with 5,000 running tables took longer than the shutdown limit to stop).
//!
//! The store's groups are counted by the `chuhe_store_group_size` histogram, read from a
//! Prometheus recorder that this test binary installs for itself: its tests take turns
//! (`TURN`), so that each counts only its own server's groups.

#[macro_use]
mod common;

use chuhe_server::site::HttpLimits;
use chuhe_server::Settings;
use common::*;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

/// Running tables at the stop.
const TABLES: usize = 60;

/// One test at a time counts groups.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The recorder of this test binary, installed once.
fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        PrometheusBuilder::new()
            .install_recorder()
            .expect("no other recorder in this test binary")
    })
}

/// The store's group commits so far (the histogram's count; 0 before the first).
fn groups() -> u64 {
    recorder()
        .render()
        .lines()
        .find_map(|line| {
            line.strip_prefix(chuhe_server::telemetry::STORE_GROUP_SIZE)?
                .strip_prefix("_count ")
        })
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// `TABLES` timed tables are running (Red has moved, Black's clock runs) when the server
/// stops: every row is saved by the stop (its `updated_ms` at or after the stop began), in at
/// most a quarter as many group commits as tables (one after the other it was one each).
async fn a_stop_saves_every_running_table_in_a_few_groups(backend: Backend) {
    use sqlx::{Connection, Row};
    let _turn = TURN.lock().await;
    recorder();
    let db = fresh_db(backend).await;
    let settings = Settings {
        http_limits: HttpLimits::unlimited(),
        max_connections_per_address: 4 * TABLES,
        ..settings(Duration::from_secs(600))
    };
    let server = Server::start(&db, settings).await;
    let mut players = Vec::new();
    let mut tables = Vec::new();
    for _ in 0..TABLES {
        let (red, black, table) = black_to_move(&server).await;
        players.push((red, black));
        tables.push(table);
    }
    let before = groups();
    let stop_ms = chuhe_server::store::now_ms();
    server.stop().await;
    let during = groups() - before;
    assert!(
        (1..=TABLES as u64 / 4).contains(&during),
        "{during} group commits for the stop of {TABLES} running tables"
    );
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    for table in &tables {
        let row = sqlx::query("SELECT version, updated_ms FROM game_tables WHERE id = $1")
            .bind(table.as_str())
            .fetch_one(&mut conn)
            .await
            .unwrap();
        let (version, updated_ms): (i64, i64) = (row.get("version"), row.get("updated_ms"));
        assert_eq!(version, 5, "table {table}");
        assert!(
            updated_ms >= stop_ms,
            "table {table}: saved at {updated_ms}, stop at {stop_ms}"
        );
    }
    conn.close().await.unwrap();
    drop(players);
}
on_both!(a_stop_saves_every_running_table_in_a_few_groups);
