//! The check mark of the state, the list of finished games (`GET /api/games`), the positions
//! of a game (`GET /api/tables/{id}/positions`) and logout, on SQLite and on PostgreSQL; the
//! list and the positions survive a restart.

#[macro_use]
mod common;

use chuhe_rules::xiangqi::{Game, GameOptions, Position};
use chuhe_server::protocol::{ClientMessage, FinishedPage, Phase, Positions, Seat, SeatPlayer};
use chuhe_server::variant::Variant;
use chuhe_server::Settings;
use common::*;

/// A real game (CCPD 8087) that Black wins by checkmate in 24 plies.
const MATE: &str = "c3c4 g6g5 b0c2 h9g7 c2d4 h7h3 h0g2 b9c7 i3i4 c9e7 a0a1 d9e8 b2c2 a9d9 \
                    d4c6 g7f5 f0e1 f5e3 g2e3 h3e3 g0e2 b7b0 a1b1 d9d0";

/// The seat indices whose general the rules say is attacked after `moves` (xiangqi: the side to
/// move), as a position snapshot lists them.
fn rules_check(moves: &[&str]) -> Vec<usize> {
    let mut game = Game::new(Position::start(), GameOptions::default());
    for m in moves {
        game.play(m.parse().unwrap()).unwrap();
    }
    let pos = game.position();
    if pos.is_check() {
        vec![pos.side_to_move().index()]
    } else {
        Vec::new()
    }
}

async fn get_json<T: serde::de::DeserializeOwned>(server: &Server, path: &str) -> T {
    let (status, _, body) = server.http("GET", path, None, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// Plays the mating game: every state's `check` agrees with the rules (seen by both seats and a
/// spectator), the mate leaves Red's general in check. Returns the table id.
async fn play_to_mate(server: &Server) -> String {
    let (mut red, mut black, table) = seated_pair(server, TIMED).await;
    let mut watcher = server.ws(&table, None, None).await;
    watcher.state_at(3).await;
    let start = red.act(&ClientMessage::Start {}, 4).await;
    assert!(start.check.is_empty());
    let line: Vec<&str> = MATE.split_whitespace().collect();
    let mut checks = 0;
    for (i, text) in line.iter().enumerate() {
        let version = 4 + i as u64;
        let mover = if i % 2 == 0 { &mut red } else { &mut black };
        mover.send(&mv(version, text)).await;
        let expected = rules_check(&line[..=i]);
        // The mating move comes with the `ended` event: one state for both.
        let next = if i + 1 == line.len() {
            version + 2
        } else {
            version + 1
        };
        for c in [&mut red, &mut black, &mut watcher] {
            let s = c.state_at(next).await;
            let seats: Vec<Seat> = expected.iter().copied().map(Seat::new).collect();
            assert_eq!(s.check, seats, "ply {}: {text}", i + 1);
        }
        checks += usize::from(!expected.is_empty());
    }
    // h3e3 (ply 20) checks Red through the screen on e2; the mate d9d0 checks Red too.
    assert_eq!(rules_check(&line[..20]), vec![0]);
    assert!(checks >= 2, "{checks} checks");
    let end = server.ws(&table, None, None).await.state().await;
    assert_eq!(end.version, 4 + line.len() as u64 + 1);
    assert_eq!(end.table.phase, Phase::Ended);
    assert_eq!(end.check, vec![Seat::new(0)]);
    table
}

async fn finished_games_listed(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    assert_eq!(
        get_json::<FinishedPage>(&server, "/api/games").await,
        FinishedPage {
            games: Vec::new(),
            next: None
        }
    );
    let mated = play_to_mate(&server).await;
    // A resigned game, ended after the mate (a few milliseconds later at least).
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (mut red, mut black, resigned) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    black.act(&ClientMessage::Resign {}, 7).await;
    // An aborted game and a running one are not listed.
    // (The Black clients stay connected: a game does not start against an absent player.)
    let (mut red, _black, aborted) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    red.act(&ClientMessage::Abort {}, 5).await;
    let (mut red, _black, running) = seated_pair(&server, UNTIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;

    let page: FinishedPage = get_json(&server, "/api/games").await;
    let ids: Vec<&str> = page.games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, [resigned.as_str(), mated.as_str()]);
    assert_eq!(page.next, None);
    let (r, m) = (&page.games[0], &page.games[1]);
    assert_eq!(
        (r.plies, r.result.as_deref(), r.outcome.reason.as_str()),
        (2, Some("1-0"), "resignation")
    );
    assert_eq!(r.winner_seats, vec![Seat::new(0)]);
    assert_eq!(
        (m.plies, m.result.as_deref(), m.outcome.reason.as_str()),
        (24, Some("0-1"), "checkmate")
    );
    assert_eq!(m.winner_seats, vec![Seat::new(1)]);
    assert_eq!(m.options.variant, Variant::Xiangqi);
    assert_eq!(m.options.time.unwrap().initial_ms, 600_000);
    let names: Vec<&str> = m
        .seats
        .iter()
        .map(|s| match s {
            Some(SeatPlayer::Person { name, .. }) => name.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["red player", "black player"]);
    assert!(m.created_ms <= m.ended_ms && m.ended_ms <= r.ended_ms);
    assert!(!ids.contains(&aborted.as_str()) && !ids.contains(&running.as_str()));

    // Pages: one game each, the cursor is the last id.
    let first: FinishedPage = get_json(&server, "/api/games?limit=1").await;
    assert_eq!(first.games, page.games[..1]);
    assert_eq!(first.next.as_deref(), Some(resigned.as_str()));
    let second: FinishedPage =
        get_json(&server, &format!("/api/games?limit=1&before={resigned}")).await;
    assert_eq!(second.games, page.games[1..]);
    assert_eq!(second.next, None);
    let after_last: FinishedPage = get_json(&server, &format!("/api/games?before={mated}")).await;
    assert!(after_last.games.is_empty());

    // What `chuhe puzzles generate --database` reads: the finished xiangqi games, oldest
    // first, with the lines they stand on (the aborted and the running game left out).
    let logs = chuhe_server::store::finished_game_logs(&db.url, Variant::Xiangqi)
        .await
        .unwrap();
    let lines: Vec<_> = logs
        .iter()
        .map(|(id, events)| (id.as_str(), chuhe_server::table::pgn::xiangqi_line(events)))
        .collect();
    let mate_line: Vec<String> = MATE.split_whitespace().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            (mated.as_str(), (None, mate_line)),
            (
                resigned.as_str(),
                (None, vec!["h2e2".to_owned(), "h9g7".to_owned()])
            )
        ]
    );
    assert!(
        chuhe_server::store::finished_game_logs(&db.url, Variant::Banqi)
            .await
            .unwrap()
            .is_empty()
    );

    // Filters: a player's games (by id), a variant's games, both, with a cursor.
    let person = |g: &chuhe_server::protocol::FinishedGame, seat: usize| match &g.seats[seat] {
        Some(SeatPlayer::Person { id, .. }) => id.clone(),
        other => panic!("{other:?}"),
    };
    let (mated_red, resigned_black) = (person(m, 0), person(r, 1));
    assert_ne!(mated_red, person(r, 0), "each pair has guests of its own");
    let ids_of =
        |p: &FinishedPage| -> Vec<String> { p.games.iter().map(|g| g.id.clone()).collect() };
    for (query, expected) in [
        (format!("player={mated_red}"), vec![mated.clone()]),
        (format!("player={resigned_black}"), vec![resigned.clone()]),
        (
            "variant=xiangqi".to_owned(),
            vec![resigned.clone(), mated.clone()],
        ),
        ("variant=banqi".to_owned(), Vec::new()),
        (
            format!("player={mated_red}&variant=xiangqi"),
            vec![mated.clone()],
        ),
        (format!("player={mated_red}&variant=sanguo"), Vec::new()),
        (
            format!("player={resigned_black}&before={resigned}"),
            Vec::new(),
        ),
        (
            format!("variant=xiangqi&before={resigned}"),
            vec![mated.clone()],
        ),
        ("player=nobody".to_owned(), Vec::new()),
    ] {
        let got: FinishedPage = get_json(&server, &format!("/api/games?{query}")).await;
        assert_eq!(ids_of(&got), expected, "{query}");
    }
    // The player filter reads the game_players index; it agrees with the whole list filtered
    // here by seat.
    let store = server.state.store();
    for (variant, index) in [
        (false, "game_players_by_player"),
        (true, "game_players_by_variant"),
    ] {
        let plan = store.explain_player_filter(variant).await.unwrap();
        // SQLite takes the index made for the query; PostgreSQL, without statistics, may
        // take either index of game_players by player
        let wanted = if backend == Backend::Sqlite {
            index
        } else {
            "game_players_by_"
        };
        assert!(plan.contains(wanted), "{plan}");
    }
    assert_eq!(store.add_missing_players().await.unwrap(), 0);
    for p in [&mated_red, &resigned_black, &person(m, 1), &person(r, 0)] {
        let got: FinishedPage = get_json(&server, &format!("/api/games?player={p}")).await;
        let by_seat: Vec<String> = page
            .games
            .iter()
            .filter(|g| (0..2).any(|s| person(g, s) == *p))
            .map(|g| g.id.clone())
            .collect();
        assert_eq!(ids_of(&got), by_seat, "{p}");
        assert_eq!(by_seat.len(), 1);
    }
    let one: FinishedPage = get_json(&server, "/api/games?variant=xiangqi&limit=1").await;
    assert_eq!(
        (ids_of(&one), one.next.as_deref()),
        (vec![resigned.clone()], Some(resigned.as_str()))
    );

    // Bad parameters are refused with a clear message.
    for (query, message) in [
        (
            "player=a%25b",
            r#"bad message: player "a%b": a player id (letters and digits)"#,
        ),
        (
            "variant=chess",
            r#"bad message: variant "chess": xiangqi, sanguo or banqi"#,
        ),
        (
            "limit=0",
            r#"bad message: limit "0": a whole number from 1 to 100"#,
        ),
        (
            "limit=101",
            r#"bad message: limit "101": a whole number from 1 to 100"#,
        ),
        (
            "limit=ten",
            r#"bad message: limit "ten": a whole number from 1 to 100"#,
        ),
        (
            "before=nope",
            r#"bad message: before: no finished game "nope""#,
        ),
        (
            &format!("before={aborted}"),
            &format!(r#"bad message: before: no finished game "{aborted}""#),
        ),
    ] {
        let (status, _, body) = server
            .http("GET", &format!("/api/games?{query}"), None, None)
            .await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (status, v["error"].as_str(), v["message"].as_str()),
            (400, Some("bad_message"), Some(message)),
            "{query}"
        );
    }
    let (status, _, body) = server.http("GET", "/api/games?page=2", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (
            400,
            r#"{"error":"bad_message","message":"bad message: unknown parameter \"page\": use limit, before, player and variant"}"#
        )
    );

    // The positions of the mated game: one per ply and the start, from the rules.
    let positions: Positions = get_json(&server, &format!("/api/tables/{mated}/positions")).await;
    let line: Vec<&str> = MATE.split_whitespace().collect();
    assert_eq!(positions.variant, Variant::Xiangqi);
    assert_eq!(positions.moves, line);
    assert_eq!(positions.positions.len(), 25);
    let mut pos = Position::start();
    assert_eq!(positions.positions[0].position, pos.to_string());
    for (i, m) in line.iter().enumerate() {
        pos.play(m.parse().unwrap()).unwrap();
        let snap = &positions.positions[i + 1];
        assert_eq!(snap.position, pos.to_string(), "ply {}", i + 1);
        let check: Vec<usize> = snap.check.iter().map(|s| s.index()).collect();
        assert_eq!(check, rules_check(&line[..=i]), "ply {}", i + 1);
        assert_eq!(snap.captured, None);
    }
    let (status, _, body) = server
        .http("GET", "/api/tables/nope/positions", None, None)
        .await;
    assert_eq!(
        (status, body.as_str()),
        (
            404,
            r#"{"error":"not_found","message":"no table \"nope\""}"#
        )
    );
    server.stop().await;

    // After a restart: the same list, the same positions, the ended table still opens.
    let server = Server::start(&db, Settings::default()).await;
    assert_eq!(get_json::<FinishedPage>(&server, "/api/games").await, page);
    assert_eq!(
        get_json::<Positions>(&server, &format!("/api/tables/{mated}/positions")).await,
        positions
    );
    let mut viewer = server.ws(&mated, None, None).await;
    let state = viewer.state().await;
    assert_eq!(state.table.phase, Phase::Ended);
    assert_eq!(state.check, vec![Seat::new(0)]);
    assert_eq!(state.outcome.unwrap().reason.as_str(), "checkmate");
    server.stop().await;

    // Tables that ended before the list existed are added from their events at start-up.
    {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&db.url).await.unwrap();
        let players = sqlx::query("DELETE FROM game_players")
            .execute(&pool)
            .await
            .unwrap();
        assert_eq!(
            players.rows_affected(),
            6,
            "two persons in each of the three games"
        );
        let gone = sqlx::query("DELETE FROM finished_games")
            .execute(&pool)
            .await
            .unwrap();
        assert_eq!(
            gone.rows_affected(),
            3,
            "two listed games and the aborted one"
        );
        pool.close().await;
    }
    let server = Server::start(&db, Settings::default()).await;
    let again: FinishedPage = get_json(&server, "/api/games").await;
    let ids: Vec<&str> = again.games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, [resigned.as_str(), mated.as_str()]);
    for (a, b) in again.games.iter().zip(&page.games) {
        assert_eq!(
            (&a.seats, &a.outcome, &a.result, a.plies, a.created_ms),
            (&b.seats, &b.outcome, &b.result, b.plies, b.created_ms)
        );
    }
    // ... and their players are indexed again: the filters answer as before.
    assert_eq!(server.state.store().add_missing_players().await.unwrap(), 0);
    for (p, expected) in [(&mated_red, &mated), (&resigned_black, &resigned)] {
        let got: FinishedPage = get_json(&server, &format!("/api/games?player={p}")).await;
        assert_eq!(ids_of(&got), std::slice::from_ref(expected), "{p}");
    }
    server.stop().await;
}
on_both!(finished_games_listed);

/// Logout ends the session: the cookie no longer works and is cleared; without a session the
/// route answers the same.
#[tokio::test]
async fn logout_ends_the_session() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let (status, head, _) = server
        .http("POST", "/api/accounts", None, Some(ACCOUNT))
        .await;
    assert_eq!(status, 200);
    let cookie = cookie_of(&head);
    assert_eq!(
        server.http("GET", "/api/me", Some(&cookie), None).await.0,
        200
    );
    let (status, head, body) = server
        .http("POST", "/api/logout", Some(&cookie), None)
        .await;
    assert_eq!((status, body.as_str()), (204, ""));
    // The cookie is cleared: empty, expired now, with the session cookie's attributes (in any
    // order).
    let cleared = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_else(|| panic!("no set-cookie: {head}"));
    let mut attributes: Vec<&str> = cleared.split("; ").collect();
    attributes.sort_unstable();
    assert_eq!(
        attributes,
        [
            "HttpOnly",
            "Max-Age=0",
            "Path=/",
            "SameSite=Lax",
            "chuhe_session="
        ],
        "{head}"
    );
    let (status, _, body) = server.http("GET", "/api/me", Some(&cookie), None).await;
    assert_eq!(
        (status, body.as_str()),
        (401, r#"{"error":"unauthorized","message":"no session"}"#)
    );
    assert_eq!(server.http("POST", "/api/logout", None, None).await.0, 204);
    assert_eq!(
        server
            .http("POST", "/api/logout", Some(&cookie), None)
            .await
            .0,
        204
    );
    // Logging in again gives a new session.
    let (status, head, _) = server.http("POST", "/api/login", None, Some(ACCOUNT)).await;
    assert_eq!(status, 200);
    let again = cookie_of(&head);
    assert_eq!(
        server.http("GET", "/api/me", Some(&again), None).await.0,
        200
    );
    server.stop().await;
}

const ACCOUNT: &str = r#"{"name":"zhuge liang","password":"eight formations"}"#;
