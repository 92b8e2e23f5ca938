//! A rematch between two people over the WebSocket (issue 17): after a resignation one offers,
//! the other declines, then accepts a new offer; the server creates the new table with the
//! same options, the colours swapped and both seated, and both clients get its id. An offer
//! whose player leaves the table is withdrawn, but not once it was accepted (issue 25): one
//! outcome, and a table made only for an agreed rematch. On SQLite and on PostgreSQL.

#[macro_use]
mod common;

use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Phase, Seat, SeatPlayer};
use common::*;
use std::time::Duration;

fn name(p: &Option<SeatPlayer>) -> &str {
    match p {
        Some(SeatPlayer::Person { name, .. }) => name,
        other => panic!("a person expected, got {other:?}"),
    }
}

async fn rematch_between_people(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = seated_pair(&server, TIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.send(&mv(4, "h2e2")).await;
    black.state_at(5).await;
    let ended = black.act(&ClientMessage::Resign {}, 6).await;
    assert_eq!(ended.table.phase, Phase::Ended);
    red.state_at(6).await;

    // Red offers, Black declines: the offer goes.
    let offered = red.act(&ClientMessage::OfferRematch {}, 7).await;
    assert_eq!(offered.rematch_offers, vec![Seat::new(0)]);
    assert_eq!(black.state_at(7).await.rematch_offers, vec![Seat::new(0)]);
    black.send(&ClientMessage::DeclineRematch {}).await;
    assert_eq!(
        black.event().await,
        (8, Event::RematchDeclined { seat: Seat::new(1) })
    );
    assert!(red.state_at(8).await.rematch_offers.is_empty());
    black.send(&ClientMessage::AcceptRematch {}).await;
    assert_eq!(
        black.error().await,
        (
            ErrorCode::NotAllowed,
            "there is no rematch offer to answer".to_owned()
        )
    );

    // Black offers this time, Red accepts: the new table follows.
    black.act(&ClientMessage::OfferRematch {}, 9).await;
    red.state_at(9).await;
    red.send(&ClientMessage::AcceptRematch {}).await;
    for c in [&mut red, &mut black] {
        assert_eq!(
            c.event().await,
            (10, Event::RematchOffered { seat: Seat::new(0) })
        );
        let (version, event) = c.event().await;
        let Event::Rematched { table: next } = event else {
            panic!("rematched expected, got {event:?}");
        };
        assert_eq!(version, 11);
        assert_ne!(next, table);
        let state = c.state_at(11).await;
        assert_eq!(state.rematch.as_deref(), Some(next.as_str()));
    }
    let next = red.current().rematch.clone().unwrap();
    red.send(&ClientMessage::OfferRematch {}).await;
    assert_eq!(
        red.error().await,
        (
            ErrorCode::NotAllowed,
            "the rematch has already been agreed".to_owned()
        )
    );

    // The new table: the same options, Black's player now Red, both seated, open.
    let mut new_red = server.ws(&next, black.cookie.as_deref(), None).await;
    let mut new_black = server.ws(&next, red.cookie.as_deref(), None).await;
    let first = new_red.state().await;
    let old = ended.table;
    assert_eq!(first.table.options, old.options);
    assert_eq!(first.table.phase, Phase::Open);
    assert_eq!(first.version, 3, "created and two sat events");
    assert_eq!(
        (name(&first.table.seats[0]), name(&first.table.seats[1])),
        ("black player", "red player")
    );
    assert_eq!(first.you, Some(Seat::new(0)));
    assert_eq!(new_black.state().await.you, Some(Seat::new(1)));
    // both are connected: the new Red starts the game and plays first
    let running = new_red.act(&ClientMessage::Start {}, 4).await;
    assert_eq!(
        (running.table.phase, running.to_move),
        (Phase::Running, Some(Seat::new(0)))
    );
    server.stop().await;
}
on_both!(rematch_between_people);

/// The offer is withdrawn when its player's last connection closes.
#[tokio::test]
async fn a_rematch_offer_goes_when_its_player_leaves() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&ClientMessage::Resign {}, 5).await;
    black.state_at(5).await;
    red.act(&ClientMessage::OfferRematch {}, 6).await;
    assert_eq!(black.state_at(6).await.rematch_offers, vec![Seat::new(0)]);
    red.close().await;
    assert_eq!(
        black.event().await,
        (7, Event::RematchDeclined { seat: Seat::new(0) })
    );
    let after = black.state_at(7).await;
    assert!(after.rematch_offers.is_empty());
    black.send(&ClientMessage::AcceptRematch {}).await;
    assert_eq!(
        black.error().await,
        (
            ErrorCode::NotAllowed,
            "there is no rematch offer to answer".to_owned()
        )
    );
    // Declined: no table was made for it.
    assert_eq!(listed(&server).await, Vec::<String>::new());
    assert_eq!(
        stored_kinds(&server, &table).await[4..],
        ["ended", "rematch_offered", "rematch_declined"]
    );
    server.stop().await;
}

/// The ids of the tables the lobby lists (open and running).
async fn listed(server: &Server) -> Vec<String> {
    let (status, _, body) = server.http("GET", "/api/tables", None, None).await;
    assert_eq!(status, 200);
    let list: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    list.iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The kinds of the events stored for `table`.
async fn stored_kinds(server: &Server, table: &str) -> Vec<String> {
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}/events"), None, None)
        .await;
    assert_eq!(status, 200);
    let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    events
        .iter()
        .map(|e| e["event"]["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Issue 25 item 8: the accept and the offerer's leaving cross, the accept first (both reach
/// the table while it waits for the database). The rematch is agreed then, and the leaving
/// does not take it back: one outcome, `rematched`, stored and sent, and the one new table it
/// names (the offerer finds it at the old table). Before, the leaving stored
/// `rematch_declined` and a table made for the rematch stayed open with nobody sent to it.
async fn an_accepted_rematch_stays_agreed_when_its_offerer_leaves(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let (mut red, mut black, table) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&ClientMessage::Resign {}, 5).await;
    black.state_at(5).await;
    red.act(&ClientMessage::OfferRematch {}, 6).await;
    black.state_at(6).await;
    let red_cookie = red.cookie.clone();

    let lock = hold_write_lock(backend, &db.url).await;
    black.send(&ClientMessage::AcceptRematch {}).await;
    // the accept reaches the table (which waits for the database to store it) ...
    tokio::time::sleep(Duration::from_millis(300)).await;
    red.close().await;
    // ... then Red leaves: the table sees it once the accept is stored (the accept's update
    // finds Red's connection closed, or Red's disconnect comes next), before the new table
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(lock);

    assert_eq!(
        black.event().await,
        (7, Event::RematchOffered { seat: Seat::new(1) })
    );
    let (version, event) = black.event().await;
    let Event::Rematched { table: next } = event else {
        panic!("rematched expected, got {event:?}");
    };
    assert_eq!(version, 8);
    assert_eq!(
        black.state_at(8).await.rematch.as_deref(),
        Some(next.as_str())
    );
    assert_eq!(
        stored_kinds(&server, &table).await[4..],
        ["ended", "rematch_offered", "rematch_offered", "rematched"]
    );
    // The new table is the only one open, both seated, the colours swapped.
    assert_eq!(listed(&server).await, [next.as_str()]);
    let mut back = server.ws(&table, red_cookie.as_deref(), None).await;
    assert_eq!(back.state().await.rematch.as_deref(), Some(next.as_str()));
    let mut new_black = server.ws(&next, red_cookie.as_deref(), None).await;
    let first = new_black.state().await;
    assert_eq!(first.you, Some(Seat::new(1)));
    assert_eq!(
        (name(&first.table.seats[0]), name(&first.table.seats[1])),
        ("black player", "red player")
    );
    server.stop().await;
}
on_both!(an_accepted_rematch_stays_agreed_when_its_offerer_leaves);

/// An agreed rematch whose table could not be made (the write of its seats failed), or whose
/// `rematched` event could not be stored, is tried again a second later until it is: nothing
/// else would bring it back, since nothing can take the agreement back. A failed record
/// records the same table again; no second table is made.
async fn an_agreed_rematch_is_tried_again_after_a_database_failure(backend: Backend) {
    use chuhe_server::store::Fault;
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let mut made = Vec::new();
    for faults in [
        // the accept's answer is lost (and found stored), the new table's seats are not written
        vec![Fault::LostCommitAnswer, Fault::Outage],
        // the accept and the seats are found stored, the `rematched` event is not written
        vec![
            Fault::LostCommitAnswer,
            Fault::LostCommitAnswer,
            Fault::Outage,
        ],
    ] {
        let (mut red, mut black, table) = seated_pair(&server, UNTIMED).await;
        red.act(&ClientMessage::Start {}, 4).await;
        black.state_at(4).await;
        red.act(&ClientMessage::Resign {}, 5).await;
        black.state_at(5).await;
        red.act(&ClientMessage::OfferRematch {}, 6).await;
        black.state_at(6).await;
        for f in &faults {
            server.state.store().inject_fault(*f, 1);
        }
        black.send(&ClientMessage::AcceptRematch {}).await;
        assert_eq!(
            black.event().await,
            (7, Event::RematchOffered { seat: Seat::new(1) })
        );
        let (version, event) = tokio::time::timeout(Duration::from_secs(10), black.event())
            .await
            .expect("the rematch was never tried again");
        let Event::Rematched { table: next } = event else {
            panic!("rematched expected, got {event:?}");
        };
        assert_eq!(version, 8, "{faults:?}");
        assert_eq!(
            red.state_at(8).await.rematch.as_deref(),
            Some(next.as_str())
        );
        assert_eq!(
            stored_kinds(&server, &table).await[5..],
            ["rematch_offered", "rematch_offered", "rematched"]
        );
        made.push(next);
        let mut lobby = listed(&server).await;
        lobby.sort();
        let mut expected = made.clone();
        expected.sort();
        assert_eq!(lobby, expected, "{faults:?}");
        let mut new_red = server
            .ws(made.last().unwrap(), black.cookie.as_deref(), None)
            .await;
        let first = new_red.state().await;
        assert_eq!(first.you, Some(Seat::new(0)));
        assert_eq!(first.version, 3, "created and two sat events");
    }
    server.stop().await;
}
on_both!(an_agreed_rematch_is_tried_again_after_a_database_failure);
