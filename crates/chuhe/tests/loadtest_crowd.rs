//! `chuhe loadtest --idle N --spectators N` against a real `chuhe serve` on SQLite: the idle
//! connections are all held and the server's memory for them is reported; the spectators all
//! watch the run's first table and see its updates, and the fan-out spread is reported with
//! one sample per arrival.

mod common;

use common::loadtest::{loadtest, LoadServer};
use common::{first_number, line};

#[test]
fn idle_connections_and_spectators_are_measured() {
    let mut server = LoadServer::start("loadtest-crowd");
    let pid = server.pid();
    let out = loadtest(&[&server.url])
        .args(["--games", "2", "--duration", "8"])
        .args(["--think-ms", "100-200", "--variants", "xiangqi"])
        .args(["--idle", "60", "--spectators", "40", "--server-pid", &pid])
        .output()
        .unwrap();
    server.kill();
    let (report, context) = server.report(&out);
    assert!(out.status.success(), "loadtest failed:\n{context}");
    assert_eq!(line(&report, "errors: "), "0", "{context}");
    let idle = line(&report, "idle connections: ");
    assert!(idle.starts_with("60 of 60 held, opened in "), "{context}");
    let memory = line(&report, "server memory for them: ");
    assert!(memory.ends_with(" KiB per connection"), "{context}");
    let spectators = line(&report, "spectators: ");
    assert!(
        spectators.starts_with("40 of 40 watching table "),
        "{context}"
    );
    // Every spectator saw every update of the table (the game runs through the whole run).
    let updates = first_number(spectators.split(", ").nth(1).unwrap());
    let arrivals = first_number(spectators.split(", ").nth(2).unwrap());
    assert!(updates >= 5, "{context}");
    assert_eq!(arrivals, updates * 40, "{context}");
    let spread = line(
        &report,
        "fan-out spread (each arrival after the update's first): ",
    );
    assert!(
        spread.ends_with(&format!("({arrivals} samples)")),
        "{context}"
    );
    let last = line(&report, "last spectator after the first, per update: ");
    assert!(last.ends_with(&format!("({updates} samples)")), "{context}");
}
