//! The wire cost of a move: after every change each connection gets an `update` whose size does
//! not grow with the game (no move list), and the state a client builds from the updates is the
//! state the server sends on `sync` (two paths agree).

mod common;

use chuhe_server::protocol::{ClientMessage, Phase, ServerMessage};
use common::*;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;

/// Plies of the long game.
const PLIES: usize = 150;

fn mean(v: &[usize]) -> f64 {
    v.iter().sum::<usize>() as f64 / v.len() as f64
}

/// A 150-ply xiangqi game between two guests, watched by a spectator: the bytes each connection
/// receives per move stay flat from the first plies to the last (O(1) per move, where a full
/// state per move grew by the move list), and every connection's tracked state equals a fresh
/// `sync` state at the end.
#[tokio::test]
async fn bytes_per_move_do_not_grow_with_the_ply() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    // No no-capture limit: the random game below must last its 150 plies.
    let (mut red, mut black, table) =
        seated_pair(&server, r#"{"variant":"xiangqi","no_capture_limit":0}"#).await;
    let mut watcher = server.ws(&table, None, None).await;
    watcher.state_at(3).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    watcher.state_at(4).await;
    let full_at_start = full_state_bytes(&watcher);
    let mut rng = StdRng::seed_from_u64(7);
    // Per ply: the bytes that the seat to move next, the seat that moved and the spectator got.
    let (mut next, mut moved, mut watched) = (Vec::new(), Vec::new(), Vec::new());
    for ply in 1..=PLIES as u64 {
        let version = 3 + ply;
        let (mover, other) = if ply % 2 == 1 {
            (&mut red, &mut black)
        } else {
            (&mut black, &mut red)
        };
        let state = mover.current();
        assert_eq!(state.phase(), Phase::Running, "the game ended at ply {ply}");
        // Quiet moves when there are any: the material stays, the game goes on.
        let quiet: Vec<&String> = state
            .legal_moves
            .iter()
            .filter(|m| !state.capture_moves.contains(m))
            .collect();
        let choice = if quiet.is_empty() {
            state.legal_moves.choose(&mut rng).unwrap().clone()
        } else {
            (*quiet.choose(&mut rng).unwrap()).clone()
        };
        let before = (
            mover.received_bytes,
            other.received_bytes,
            watcher.received_bytes,
        );
        mover.act(&mv(version, &choice), version + 1).await;
        let after = other.state_at(version + 1).await;
        watcher.state_at(version + 1).await;
        assert!(
            after.legal_moves.is_empty() || after.to_move == after.you,
            "legal moves only to the seat to move"
        );
        moved.push(mover.received_bytes - before.0);
        next.push(other.received_bytes - before.1);
        watched.push(watcher.received_bytes - before.2);
    }
    // Two paths agree: the states built from the updates are the states of `sync`.
    for (name, client) in [
        ("red", &mut red),
        ("black", &mut black),
        ("watcher", &mut watcher),
    ] {
        let tracked = client.current().clone();
        client.send(&ClientMessage::Sync { since: None }).await;
        let fresh = client.state().await;
        assert_eq!(tracked, fresh, "{name}: the updates built another state");
        assert_eq!(fresh.board_moves(), PLIES);
    }
    let full = full_state_bytes(&watcher);
    eprintln!(
        "bytes per move over {PLIES} plies (first 10 / last 10 mean): to move next {:.0} / {:.0}, \
         moved {:.0} / {:.0}, spectator {:.0} / {:.0}; a full state at ply 0: {full_at_start}, \
         at ply {PLIES}: {full}",
        mean(&next[..10]),
        mean(&next[PLIES - 10..]),
        mean(&moved[..10]),
        mean(&moved[PLIES - 10..]),
        mean(&watched[..10]),
        mean(&watched[PLIES - 10..]),
    );
    // The spectator's update has no legal moves: its size varies only with the position text
    // and the digits of the numbers, never with the length of the game.
    let (lo, hi) = (
        *watched.iter().min().unwrap(),
        *watched.iter().max().unwrap(),
    );
    assert!(hi - lo < 64, "spectator bytes per move from {lo} to {hi}");
    // The seats' updates vary with the number of legal moves, not with the ply.
    for (name, bytes) in [("to move next", &next), ("moved", &moved)] {
        let (first, last) = (mean(&bytes[..30]), mean(&bytes[PLIES - 30..]));
        assert!(
            last < first * 1.5,
            "{name}: {first:.0} bytes per move at the start, {last:.0} at the end"
        );
        assert!(bytes.iter().all(|b| *b < 2000), "{name}: {bytes:?}");
    }
    // A full state per move (the wire before updates) carried the whole move list.
    assert!(full > hi + 7 * PLIES, "{full}");
    server.stop().await;
}

/// The size of the full state `client` holds, as the server prints it.
fn full_state_bytes(client: &Client) -> usize {
    let msg = ServerMessage::State(Box::new(client.current().clone()));
    serde_json::to_string(&msg).unwrap().len()
}

/// Small readers of a state for the test above.
trait StateExt {
    fn phase(&self) -> Phase;
    fn board_moves(&self) -> usize;
}

impl StateExt for chuhe_server::protocol::State {
    fn phase(&self) -> Phase {
        self.table.phase
    }

    fn board_moves(&self) -> usize {
        match &self.board {
            chuhe_server::variant::BoardView::Xiangqi { moves, .. }
            | chuhe_server::variant::BoardView::Sanguo { moves, .. }
            | chuhe_server::variant::BoardView::Banqi { moves, .. } => moves.len(),
        }
    }
}
