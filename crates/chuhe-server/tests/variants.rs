//! Whole games of sanguo and banqi over WebSocket (SQLite): every seat moves from the legal moves
//! it is sent; the stored records replay in a fresh rules game to the same end; banqi frames never
//! carry a hidden identity, and a banqi game survives a restart in the middle.

mod common;

use chuhe_rules::banqi;
use chuhe_rules::sanguo;
use chuhe_server::protocol::{ClientMessage, Phase, Seat, ServerMessage, State};
use chuhe_server::variant::BoardView;
use common::*;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;

/// A capture when there is one (move texts with `x`), else a random legal move.
fn pick(state: &State, rng: &mut StdRng) -> String {
    let captures: Vec<&String> = state
        .legal_moves
        .iter()
        .filter(|m| m.contains('x'))
        .collect();
    if captures.is_empty() {
        state.legal_moves.choose(rng).unwrap().clone()
    } else {
        (*captures.choose(rng).unwrap()).clone()
    }
}

/// Reads frames up to the next state, checking every frame with `scan`.
async fn next_state(client: &mut Client, scan: &mut impl FnMut(&str)) -> State {
    loop {
        let text = client.next_text().await;
        scan(&text);
        match serde_json::from_str(&text).unwrap() {
            ServerMessage::State(s) => return *s,
            ServerMessage::Update(_) => return client.current().clone(),
            ServerMessage::Error { code, message } => panic!("refused: {code:?} {message}"),
            _ => {}
        }
    }
}

/// Shu is a guest, Wu and Wei the computer: the game runs to its end.
#[tokio::test]
async fn sanguo_to_the_end() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    let cookie = server.guest("Liu Bei").await;
    let table = server
        .create_table(
            &cookie,
            r#"{"variant":"sanguo","time":{"initial_ms":600000,"increment_ms":0}}"#,
        )
        .await;
    let mut me = server.ws(&table, Some(&cookie), None).await;
    me.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    me.act(
        &ClientMessage::SitComputer {
            seat: Seat::new(1),
            level: 1,
        },
        3,
    )
    .await;
    me.act(
        &ClientMessage::SitComputer {
            seat: Seat::new(2),
            level: 1,
        },
        4,
    )
    .await;
    let mut state = me.act(&ClientMessage::Start {}, 5).await;
    assert_eq!(state.clocks.as_ref().unwrap().len(), 3);
    let mut rng = StdRng::seed_from_u64(3);
    let mut states = 0;
    while state.table.phase == Phase::Running {
        states += 1;
        assert!(states < 2000, "the game does not end");
        if state.to_move == Some(Seat::new(0)) {
            assert!(!state.legal_moves.is_empty());
            let m = pick(&state, &mut rng);
            me.send(&ClientMessage::Move {
                version: state.version,
                mv: m,
            })
            .await;
        } else {
            assert!(state.legal_moves.is_empty());
        }
        state = next_state(&mut me, &mut |_| {}).await;
    }
    let BoardView::Sanguo { moves, position } = state.board.clone() else {
        panic!("not a sanguo board");
    };
    // The records replay in a fresh rules game to the same position and end.
    let mut game = sanguo::Game::new(sanguo::Position::start(true));
    for m in &moves {
        game.play(m.parse().unwrap()).unwrap();
    }
    assert_eq!(game.position().to_string(), position);
    let sanguo::Status::Ended(outcome) = game.status().clone() else {
        panic!("the rules game goes on after {} moves", moves.len());
    };
    assert_eq!(state.outcome, Some(outcome.clone()));
    let expected_seats: Vec<Seat> = sanguo::Kingdom::ALL
        .iter()
        .filter(|k| outcome.winners.contains(&k.side()))
        .map(|k| Seat::new(k.index()))
        .collect();
    assert_eq!(state.winner_seats, expected_seats);
    // The record (issue 18): tags, the three seats' players, the moves as played, the winners
    // and the rule; read back, it replays to the same end.
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}/pgn"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.starts_with("[Game \"Three Kingdoms xiangqi\"]\n[Variant \"sanguo\"]\n[FlagBearers \"on\"]\n[Event \"chuhe table "),
        "{body}"
    );
    let read = chuhe_notation::pgn::read(&body);
    assert_eq!(read.len(), 1);
    let rec = chuhe_notation::table_record::TableRecord::from_game_record(&read[0])
        .unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(rec.moves, moves);
    assert_eq!(rec.players[1..], ["chuhe level 1", "chuhe level 1"]);
    assert_eq!(
        rec.outcome,
        Some(chuhe_notation::table_record::TableOutcome::from_outcome(
            &outcome
        ))
    );
    assert_eq!(read[0].tag("Termination"), Some(outcome.reason.as_str()));
    server.stop().await;
}

/// The number of face-down squares in a banqi view text.
fn face_down(view: &str) -> usize {
    view.split(' ').next().unwrap().matches('?').count()
}

/// Two guests play banqi to the end, with a restart in the middle. Every frame either seat or a
/// spectator receives is scanned: no truth text (pins are written in parentheses), flips are
/// revealed only by their own `moved` event, and the face-down count always equals 32 minus the
/// flips made.
#[tokio::test]
async fn banqi_to_the_end_without_leaks() {
    let db = fresh_db(Backend::Sqlite).await;
    let mut server = Server::start(&db, fast_settings()).await;
    let first_cookie = server.guest("first").await;
    let second_cookie = server.guest("second").await;
    let options = r#"{"variant":"banqi","time":{"initial_ms":600000,"increment_ms":1000}}"#;
    let table = server.create_table(&first_cookie, options).await;
    let mut clients = [
        server.ws(&table, Some(&first_cookie), None).await,
        server.ws(&table, Some(&second_cookie), None).await,
        server.ws(&table, None, None).await,
    ];
    clients[0]
        .act(&ClientMessage::Sit { seat: Seat::new(0) }, 2)
        .await;
    clients[1]
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
        .await;
    let started = clients[0].act(&ClientMessage::Start {}, 4).await;
    let mut flips_seen = 0usize;
    let mut frames = 0usize;
    let scan = |text: &str, flips: usize| {
        assert!(!text.contains('('), "a truth text left the server: {text}");
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        if let Some(view) = v["board"]["view"].as_str() {
            assert_eq!(face_down(view), 32 - flips, "{text}");
            assert_eq!(view.matches('?').count(), 32 - flips);
        }
        if let Some(legal) = v["legal_moves"].as_array() {
            assert!(legal.iter().all(|m| !m.as_str().unwrap().contains('=')));
        }
    };
    let mut rng = StdRng::seed_from_u64(11);
    let mut states: Vec<State> = vec![
        started,
        clients[1].state_at(4).await,
        clients[2].state_at(4).await,
    ];
    let mut restarted = false;
    let mut guard = 0;
    while states[0].table.phase == Phase::Running {
        guard += 1;
        assert!(guard < 3000, "the game does not end");
        let seat = states[0].to_move.unwrap();
        let mover = seat.index();
        assert_eq!(states[mover].to_move, Some(seat));
        assert!(!states[mover].legal_moves.is_empty());
        assert!(states[1 - mover].legal_moves.is_empty() && states[2].legal_moves.is_empty());
        let m = pick(&states[mover], &mut rng);
        let version = states[mover].version;
        clients[mover]
            .send(&ClientMessage::Move {
                version,
                mv: m.clone(),
            })
            .await;
        if m.starts_with("flip") {
            flips_seen += 1;
        }
        for (i, c) in clients.iter_mut().enumerate() {
            let flips = flips_seen;
            states[i] = next_state(c, &mut |t| {
                frames += 1;
                scan(t, flips)
            })
            .await;
        }
        // Every flip's record names the revealed piece; the views agree with the records.
        let BoardView::Banqi {
            moves,
            view,
            colors,
            captured,
        } = states[2].board.clone()
        else {
            panic!("not a banqi board");
        };
        assert!(
            states.iter().all(|s| s.check.is_empty()),
            "banqi has no check"
        );
        assert_eq!(moves.iter().filter(|r| r.contains('=')).count(), flips_seen);
        assert_eq!(colors.iter().all(Option::is_some), flips_seen > 0);
        let mut game = banqi::Game::start();
        for r in &moves {
            game.play_recorded(r.parse().unwrap()).unwrap();
        }
        assert_eq!(game.view().to_string(), view);
        // The captured pieces: what the records took, in rank order per colour.
        let mut taken: Vec<char> = Vec::new();
        let mut board = banqi::Game::start();
        for r in &moves {
            let rec: banqi::Record = r.parse().unwrap();
            if let banqi::Action::Capture { to, .. } = rec.action() {
                if let banqi::Cell::FaceUp(p) = board.view().cell(to) {
                    taken.push(p.letter());
                }
            }
            board.play_recorded(rec).unwrap();
        }
        let order = "KAERHCPkaerhcp";
        taken.sort_by_key(|c| order.find(*c));
        let taken: String = taken.into_iter().collect();
        assert_eq!(
            captured,
            if taken.is_empty() {
                "-".to_owned()
            } else {
                taken
            }
        );
        // A restart in the middle: the game comes back from its records.
        if moves.len() == 20 && !restarted {
            restarted = true;
            server.stop().await;
            server = Server::start(&db, fast_settings()).await;
            clients = [
                server.ws(&table, Some(&first_cookie), None).await,
                server.ws(&table, Some(&second_cookie), None).await,
                server.ws(&table, None, None).await,
            ];
            let before = states.clone();
            for (i, c) in clients.iter_mut().enumerate() {
                let flips = flips_seen;
                states[i] = next_state(c, &mut |t| scan(t, flips)).await;
                assert_eq!(states[i].board, before[i].board);
                assert_eq!(states[i].legal_moves, before[i].legal_moves);
                assert_eq!(states[i].version, before[i].version);
            }
        }
    }
    assert!(restarted && frames > 100);
    let outcome = states[0].outcome.clone().unwrap();
    let BoardView::Banqi { moves, colors, .. } = states[0].board.clone() else {
        panic!("not a banqi board");
    };
    let mut game = banqi::Game::start();
    for r in &moves {
        game.play_recorded(r.parse().unwrap()).unwrap();
    }
    assert_eq!(*game.status(), banqi::Status::Ended(outcome.clone()));
    let winners: Vec<Seat> = Seat::all(2)
        .filter(|s| colors[s.index()].is_some_and(|c| outcome.winners.contains(&c)))
        .collect();
    assert_eq!(states[0].winner_seats, winners);
    // The record (issue 18): flips with their pieces, the players, the result, the rule.
    let (status, _, body) = server
        .http("GET", &format!("/api/tables/{table}/pgn"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let read = chuhe_notation::pgn::read(&body);
    let rec = chuhe_notation::table_record::TableRecord::from_game_record(&read[0])
        .unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(rec.moves, moves);
    assert_eq!(rec.players, ["first", "second"]);
    assert_eq!(
        rec.outcome,
        Some(chuhe_notation::table_record::TableOutcome::from_outcome(
            &outcome
        ))
    );
    assert_eq!(read[0].tag("Result"), outcome.result_text());
    assert_eq!(read[0].tag("TimeControl"), Some("600+1"));
    server.stop().await;
}
