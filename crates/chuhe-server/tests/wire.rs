//! The wire cost of a move: after every change each connection gets an `update` whose size does
//! not grow with the game (no move list), and the state a client builds from the updates is the
//! state the server sends on `sync` (two paths agree).

mod common;

use chuhe_server::protocol::{ClientMessage, Phase, ServerMessage};
use chuhe_server::variant::Seat;
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

/// The longest random game [`updates_build_the_states_of_sync_in_every_variant`] plays.
const MAX_PLIES: usize = 400;

/// Two paths agree in every variant: over random games of xiangqi, sanguo and banqi (seeded,
/// untimed, played to their end or [`MAX_PLIES`]), the state that each connection builds by
/// applying every update (moves played on its own board, `docs/protocol.md`, "Updates,
/// 2026-12-04") equals, field for field, the full `state` the server sends on `sync` at that
/// version: the spectator at every change, the seats every 7 changes and at the end. Every 25
/// changes the spectator reconnects with `since` a few versions back and goes on from the
/// state it gets. Sanguo's defeats and banqi's flips (the first one giving the colours) and
/// captures happen in these games; the test says how many. It also prints the mean bytes per
/// change per connection by variant, the figure of `docs/performance.md`.
#[tokio::test]
async fn updates_build_the_states_of_sync_in_every_variant() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    let (mut defeats, mut flips, mut captures, mut takebacks) = (0, 0, 0, 0);
    for (variant, seats, games) in [("xiangqi", 2, 3), ("sanguo", 3, 3), ("banqi", 2, 4)] {
        let mut bytes: Vec<usize> = Vec::new();
        for game in 0..games {
            let seed = 100 * seats as u64 + game;
            let mut rng = StdRng::seed_from_u64(seed);
            let cookies: Vec<String> = guests(&server, seats).await;
            let table = server
                .create_table(&cookies[0], &format!(r#"{{"variant":"{variant}"}}"#))
                .await;
            let mut players = Vec::new();
            for cookie in &cookies {
                players.push(server.ws(&table, Some(cookie), None).await);
            }
            let mut version = 1;
            for p in &mut players {
                p.reach(version).await;
            }
            for seat in 0..seats {
                version += 1;
                players[seat]
                    .send(&ClientMessage::Sit {
                        seat: Seat::new(seat),
                    })
                    .await;
                for p in &mut players {
                    p.reach(version).await;
                }
            }
            let mut watcher = server.ws(&table, None, None).await;
            let record = game == 0 && std::env::var_os("CHUHE_WRITE_WIRE_REPLAYS").is_some();
            if record {
                watcher.log = Some(Vec::new());
            }
            watcher.reach(version).await;
            version += 1;
            players[0].send(&ClientMessage::Start {}).await;
            for c in players.iter_mut().chain([&mut watcher]) {
                c.reach(version).await;
            }
            for change in 1..=MAX_PLIES {
                let state = watcher.current().clone();
                if state.table.phase != Phase::Running {
                    break;
                }
                let to_move = state.to_move.expect("a running game has a seat to move");
                let before: Vec<usize> = players
                    .iter()
                    .chain([&watcher])
                    .map(|c| c.received_bytes)
                    .collect();
                let mover = &mut players[to_move.index()];
                let legal = mover.current().legal_moves.clone();
                let choice = legal.choose(&mut rng).expect("legal moves").clone();
                if mover.current().capture_moves.contains(&choice) {
                    captures += 1;
                }
                mover.send(&mv(version, &choice)).await;
                version = mover.state().await.version;
                for c in players.iter_mut().chain([&mut watcher]) {
                    c.reach(version).await;
                }
                for (c, b) in players.iter().chain([&watcher]).zip(&before) {
                    bytes.push(c.received_bytes - b);
                }
                let after = watcher.current().clone();
                defeats += after.defeats.len() - state.defeats.len();
                flips += usize::from(choice.starts_with("flip"));
                // Takebacks (xiangqi between people, unrated) at a few plies: the update
                // carries the board then.
                if variant == "xiangqi" && change % 40 == 11 && after.table.phase == Phase::Running
                {
                    players[to_move.index()]
                        .send(&ClientMessage::Takeback {})
                        .await;
                    version += 1;
                    for c in players.iter_mut().chain([&mut watcher]) {
                        c.reach(version).await;
                    }
                    let other = &mut players[1 - to_move.index()];
                    other.send(&ClientMessage::AcceptTakeback {}).await;
                    version = other.state().await.version;
                    for c in players.iter_mut().chain([&mut watcher]) {
                        c.reach(version).await;
                    }
                    takebacks += 1;
                }
                assert_same_as_sync(&mut watcher, &format!("{variant} game {game} spectator"))
                    .await;
                if change.is_multiple_of(7) {
                    for (i, p) in players.iter_mut().enumerate() {
                        assert_same_as_sync(p, &format!("{variant} game {game} seat {i}")).await;
                    }
                }
                if change.is_multiple_of(25) {
                    let back = watcher.current().version.saturating_sub(3);
                    let log = watcher.log.take();
                    watcher.close().await;
                    watcher = server.ws(&table, None, Some(back)).await;
                    watcher.log = log;
                    watcher.reach(version).await;
                }
            }
            for (i, p) in players.iter_mut().enumerate() {
                assert_same_as_sync(p, &format!("{variant} game {game} seat {i} at the end")).await;
            }
            if let Some(log) = watcher.log.take() {
                write_replay(variant, &log);
            }
        }
        eprintln!(
            "{variant}: {:.0} bytes per change per connection over {} (connection, change) pairs",
            mean(&bytes),
            bytes.len()
        );
    }
    eprintln!("{defeats} defeats, {flips} flips, {captures} captures, {takebacks} takebacks");
    assert!(defeats >= 3, "too few sanguo defeats to tell: {defeats}");
    assert!(flips >= 64, "too few banqi flips to tell: {flips}");
    assert!(captures >= 50, "too few captures to tell: {captures}");
    assert!(takebacks >= 2, "too few takebacks to tell: {takebacks}");
    server.stop().await;
}

/// `n` guest cookies.
async fn guests(server: &Server, n: usize) -> Vec<String> {
    let mut cookies = Vec::new();
    for i in 0..n {
        cookies.push(server.guest(&format!("player {i}")).await);
    }
    cookies
}

/// The state `client` built from the updates equals the one the server sends on `sync` now.
async fn assert_same_as_sync(client: &mut Client, who: &str) {
    let version = client.current().version;
    client.reach(version).await;
    let tracked = client.current().clone();
    client.send(&ClientMessage::Sync { since: None }).await;
    let fresh = client.state().await;
    assert_eq!(tracked, fresh, "{who}: the updates built another state");
}

/// Writes what a spectator received over one game to `tests/data/wire-replays/{variant}.jsonl`
/// (with `CHUHE_WRITE_WIRE_REPLAYS=1`), one message a line, for the web client's test
/// (`tests/e2e/unit.mjs` applies the updates with `applyUpdate` and compares with the states):
/// every update and replayed event, and of the states (one after each change, from `sync`)
/// the first, the last and those whose version is a multiple of 30, so the file stays small.
fn write_replay(variant: &str, log: &[String]) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/wire-replays");
    std::fs::create_dir_all(dir).unwrap();
    let is_state = |m: &String| m.starts_with(r#"{"type":"state""#);
    let last_state = log.iter().rposition(is_state);
    let mut out = String::new();
    for (i, m) in log.iter().enumerate() {
        if is_state(m) {
            let v: serde_json::Value = serde_json::from_str(m).unwrap();
            let version = v["version"].as_u64().unwrap();
            let first = !log[..i].iter().any(is_state);
            if !(first || Some(i) == last_state || version.is_multiple_of(30)) {
                continue;
            }
        }
        out.push_str(m);
        out.push('\n');
    }
    std::fs::write(format!("{dir}/{variant}.jsonl"), out).unwrap();
}
