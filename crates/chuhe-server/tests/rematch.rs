//! A rematch between two people over the WebSocket (issue 17): after a resignation one offers,
//! the other declines, then accepts a new offer; the server creates the new table with the
//! same options, the colours swapped and both seated, and both clients get its id. An offer
//! whose player leaves the table is withdrawn. On SQLite and on PostgreSQL.

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
    let (mut red, mut black, _table) = seated_pair(&server, UNTIMED).await;
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
    server.stop().await;
}
