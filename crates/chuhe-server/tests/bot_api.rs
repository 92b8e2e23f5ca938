//! lichess's Bot API on chuhe (`docs/bots.md`), driven over HTTP as a lichess bot would: a bot
//! made by the operator's `issue_token` opens its event stream, asks for a game against the
//! computer (`POST /api/challenge/ai`, a form as lichess's clients send), is told `gameStart`,
//! reads the game's stream (`gameFull`, then `gameState` lines) and plays a whole xiangqi game
//! with moves picked from chuhe-rules' legal moves, until the game ends and `gameFinish`
//! comes. Refused moves get their reason. On SQLite and PostgreSQL.

#[macro_use]
mod common;

use chuhe_rules::xiangqi::{Game, GameOptions, Position};
use chuhe_server::accounts::tokens::Scope;
use chuhe_server::Settings;
use common::*;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// An NDJSON stream read line by line (an HTTP/1.0 request: the body ends with the
/// connection).
struct Lines {
    reader: BufReader<TcpStream>,
    /// The answer's status.
    status: u16,
    /// Empty lines seen (keep-alives).
    blank: usize,
}

impl Lines {
    async fn open(addr: SocketAddr, path: &str, token: &str) -> Lines {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request =
            format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status = 0;
        loop {
            let mut head = String::new();
            reader.read_line(&mut head).await.unwrap();
            if status == 0 {
                status = head.split(' ').nth(1).unwrap().parse().unwrap();
            }
            if head == "\r\n" || head.is_empty() {
                break;
            }
        }
        Lines {
            reader,
            status,
            blank: 0,
        }
    }

    /// The next line, which must be a keep-alive newline, within 8 s (they come every 6 s).
    async fn keep_alive(&mut self) {
        let mut text = String::new();
        tokio::time::timeout(Duration::from_secs(8), self.reader.read_line(&mut text))
            .await
            .expect("a keep-alive within 8 s")
            .unwrap();
        assert_eq!(text, "\n");
    }

    /// The next JSON line (skipping keep-alive newlines), within 30 s.
    async fn next(&mut self) -> Value {
        loop {
            let mut text = String::new();
            let n = tokio::time::timeout(Duration::from_secs(30), self.reader.read_line(&mut text))
                .await
                .expect("a line within 30 s")
                .unwrap();
            assert!(n > 0, "the stream ended");
            if text.trim().is_empty() {
                self.blank += 1;
                continue;
            }
            return serde_json::from_str(text.trim()).unwrap();
        }
    }
}

/// A POST with `Authorization: Bearer` and a form body: (status, JSON body).
async fn post_form(server: &Server, path: &str, token: &str, form: &str) -> (u16, Value) {
    bearer_call(server.addr, "POST", path, token, form).await
}

/// The move a test bot plays: a capture when there is one (the game ends sooner), else the
/// first legal move in ICCS order; from chuhe-rules, over the moves the stream gave.
fn choose(moves: &str) -> String {
    let mut game = Game::new(Position::start(), GameOptions::default());
    for m in moves.split_whitespace() {
        game.play(m.parse().unwrap()).unwrap();
    }
    let mut legal = game.legal_moves();
    legal.sort_by_key(ToString::to_string);
    let position = game.position();
    let pick = legal
        .iter()
        .find(|m| position.is_capture(**m))
        .or(legal.first())
        .expect("a legal move");
    pick.to_string()
}

async fn a_bot_plays_a_whole_game_against_the_computer(backend: Backend) {
    let db = fresh_db(backend).await;
    let settings = Settings {
        computer_pause: Duration::ZERO,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let bot = chuhe_server::store::issue_token(&db.url, "Robo", true, &scopes, "test")
        .await
        .unwrap();
    let token = bot.token.as_str();

    let mut events = Lines::open(server.addr, "/api/stream/event", token).await;
    assert_eq!(events.status, 200);

    // Refused parameters.
    let (status, err) = post_form(&server, "/api/challenge/ai", token, "level=9").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "level \"9\": a whole number from 1 to 8"})
        )
    );
    let (status, err) =
        post_form(&server, "/api/challenge/ai", token, "level=1&variant=chess").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "variant \"chess\": xiangqi, banqi or sanguo"})
        )
    );

    let (status, game) = post_form(
        &server,
        "/api/challenge/ai",
        token,
        "level=1&color=white&clock.limit=600&clock.increment=5",
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    assert_eq!(
        game,
        json!({"id": id, "variant": {"key": "xiangqi", "name": "Xiangqi"}, "rated": false,
               "source": "ai", "player": "white", "status": {"id": 20, "name": "started"}})
    );

    let start = events.next().await;
    assert_eq!(
        start,
        json!({"type": "gameStart", "game": {
            "gameId": id, "id": id, "color": "white",
            "opponent": {"id": null, "username": "chuhe level 1", "ai": 1},
            "rated": false, "variant": {"key": "xiangqi", "name": "Xiangqi"}, "source": "ai",
            "status": "created", "compat": {"bot": true, "board": true}}})
    );

    let mut stream = Lines::open(server.addr, &format!("/api/bot/game/stream/{id}"), token).await;
    assert_eq!(stream.status, 200);
    let full = stream.next().await;
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["id"], id.as_str());
    assert_eq!(full["variant"]["key"], "xiangqi");
    assert_eq!(full["clock"], json!({"initial": 600000, "increment": 5000}));
    assert_eq!(full["rated"], false);
    assert_eq!(
        full["white"],
        json!({"id": bot.player_id, "name": "Robo", "title": "BOT", "rating": null})
    );
    assert_eq!(full["black"], json!({"aiLevel": 1}));
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(full["state"]["type"], "gameState");
    assert_eq!(full["state"]["moves"], "");
    assert_eq!(full["state"]["status"], "started");
    assert_eq!(
        (&full["state"]["winc"], &full["state"]["binc"]),
        (&json!(5000), &json!(5000))
    );

    // An illegal move is refused with the rules' reason; so is a move in another's game.
    let (status, err) =
        post_form(&server, &format!("/api/bot/game/{id}/move/a0a5"), token, "").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "illegal move: a0a5 (chariot path is blocked)"})
        )
    );
    let (status, err) = post_form(&server, &format!("/api/bot/game/{id}/move/zz"), token, "").await;
    assert_eq!(status, 400, "{err}");
    let (status, err) = post_form(&server, "/api/bot/game/nosuch/move/h2e2", token, "").await;
    assert_eq!((status, err), (404, json!({"error": "No such game"})));

    // The whole game: our move whenever the moves played are even (white = Red).
    let mut state = full["state"].clone();
    let mut played = 0;
    loop {
        if state["status"] != "started" {
            break;
        }
        let moves = state["moves"].as_str().unwrap().to_owned();
        let count = moves.split_whitespace().count();
        if count % 2 == 0 && count >= played {
            let mv = choose(&moves);
            let (status, ok) =
                post_form(&server, &format!("/api/bot/game/{id}/move/{mv}"), token, "").await;
            assert_eq!(
                (status, &ok),
                (200, &json!({"ok": true})),
                "{mv} after {moves}"
            );
            played = count + 1;
        }
        state = stream.next().await;
        assert_eq!(state["type"], "gameState", "{state}");
        assert!(count < 2000, "the game does not end");
    }
    let finished = state;
    assert_ne!(finished["status"], "started");
    assert!(
        ["mate", "stalemate", "draw", "variantEnd"].contains(&finished["status"].as_str().unwrap()),
        "{finished}"
    );

    // After the end: the game stream's last line is the end, the event stream's is gameFinish.
    let finish = events.next().await;
    assert_eq!(finish["type"], "gameFinish", "{finish}");
    assert_eq!(finish["game"]["id"], id.as_str());
    assert_eq!(finish["game"]["status"], "ended");
    let (status, err) =
        post_form(&server, &format!("/api/bot/game/{id}/move/h2e2"), token, "").await;
    assert_eq!((status, err), (400, json!({"error": "the game is over"})));
    // Nothing more to say: lichess's keep-alive, an empty line every 6 s.
    events.keep_alive().await;
    // The table is an ordinary chuhe table, its moves those of the stream.
    let (status, _, summary) = server
        .http("GET", &format!("/api/tables/{id}"), None, None)
        .await;
    assert_eq!(status, 200);
    let summary: Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(summary["phase"], "ended");
    server.stop().await;
}
on_both!(a_bot_plays_a_whole_game_against_the_computer);

/// The Board API is for people, the Bot API for bots; scopes are checked.
async fn the_apis_check_the_account_and_the_scope(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let person = chuhe_server::store::issue_token(
        &db.url,
        "Ann",
        false,
        &[Scope::ChallengeWrite, Scope::BoardPlay],
        "test",
    )
    .await
    .unwrap();
    let (status, game) = post_form(
        &server,
        "/api/challenge/ai",
        &person.token,
        "level=2&color=black",
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    let bot_stream = Lines::open(
        server.addr,
        &format!("/api/bot/game/stream/{id}"),
        &person.token,
    )
    .await;
    assert_eq!(bot_stream.status, 401);
    let mut stream = Lines::open(
        server.addr,
        &format!("/api/board/game/stream/{id}"),
        &person.token,
    )
    .await;
    assert_eq!(stream.status, 200);
    let full = stream.next().await;
    assert_eq!(full["white"], json!({"aiLevel": 2}));
    assert_eq!(
        full["black"],
        json!({"id": person.player_id, "name": "Ann", "title": null, "rating": null})
    );
    assert_eq!(full["clock"], Value::Null);
    // The computer (Red) moves first; then Ann resigns.
    let state = stream.next().await;
    assert_eq!(
        state["moves"].as_str().unwrap().split_whitespace().count(),
        1,
        "{state}"
    );
    assert_eq!(
        (&state["wtime"], &state["btime"]),
        (&json!(2147483647), &json!(2147483647))
    );
    let (status, err) = post_form(
        &server,
        &format!("/api/board/game/{id}/move/a9a5"),
        &person.token,
        "",
    )
    .await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "illegal move: a9a5 (chariot path is blocked)"})
        )
    );
    let (status, err) = post_form(
        &server,
        &format!("/api/board/game/{id}/move/zz"),
        &person.token,
        "",
    )
    .await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "illegal move: not a move: \"zz\" (expected ICCS such as h2e2)"})
        )
    );
    let (status, ok) = post_form(
        &server,
        &format!("/api/board/game/{id}/resign"),
        &person.token,
        "",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let end = stream.next().await;
    assert_eq!(
        (&end["status"], &end["winner"]),
        (&json!("resign"), &json!("white"))
    );
    server.stop().await;
}
on_both!(the_apis_check_the_account_and_the_scope);

/// Two bots: challenges made, declined, cancelled and accepted, told on both event streams in
/// lichess's shapes; the accepted one is a game that starts when both streams are open, and
/// ends by resignation with `gameFinish` on both.
async fn two_bots_challenge_and_play(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let a = chuhe_server::store::issue_token(&db.url, "Alpha", true, &scopes, "t")
        .await
        .unwrap();
    let b = chuhe_server::store::issue_token(&db.url, "Beta", true, &scopes, "t")
        .await
        .unwrap();
    let carl = chuhe_server::store::issue_token(
        &db.url,
        "Carl",
        false,
        &[Scope::ChallengeWrite, Scope::BoardPlay],
        "t",
    )
    .await
    .unwrap();
    let mut a_events = Lines::open(server.addr, "/api/stream/event", &a.token).await;
    let mut b_events = Lines::open(server.addr, "/api/stream/event", &b.token).await;

    let (status, err) = post_form(&server, "/api/challenge/Beta", &carl.token, "rated=true").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "a bot and a person play casual games only: rated=false"})
        )
    );
    let (status, err) = post_form(&server, "/api/challenge/Nobody", &a.token, "").await;
    assert_eq!((status, err), (404, json!({"error": "No such user"})));
    let (status, err) = post_form(&server, "/api/challenge/alpha", &a.token, "").await;
    assert_eq!(
        (status, err),
        (400, json!({"error": "you cannot challenge yourself"}))
    );

    let form = "clock.limit=300&clock.increment=3&color=white";
    let (status, first) = post_form(&server, "/api/challenge/Beta", &a.token, form).await;
    assert_eq!(status, 200, "{first}");
    let first_id = first["id"].as_str().unwrap().to_owned();
    assert_eq!(
        first,
        json!({
            "id": first_id, "url": format!("/api/tables/{first_id}"), "status": "created",
            "challenger": {"id": a.player_id, "name": "Alpha", "title": "BOT"},
            "destUser": {"id": b.player_id, "name": "Beta", "title": "BOT"},
            "variant": {"key": "xiangqi", "name": "Xiangqi", "short": "Xiangqi"},
            "rated": false, "speed": "blitz",
            "timeControl": {"type": "clock", "limit": 300, "increment": 3, "show": "5+3"},
            "color": "white", "finalColor": "white", "perf": {"name": "Xiangqi"},
            "compat": {"bot": true, "board": true}})
    );
    for events in [&mut a_events, &mut b_events] {
        assert_eq!(
            events.next().await,
            json!({"type": "challenge", "challenge": first})
        );
    }

    // Declined, with lichess's reason key.
    let (_, second) = post_form(&server, "/api/challenge/Beta", &a.token, "").await;
    let second_id = second["id"].as_str().unwrap().to_owned();
    assert_eq!(second["timeControl"], json!({"type": "unlimited"}));
    assert_eq!(second["speed"], "correspondence");
    let (status, err) = post_form(
        &server,
        &format!("/api/challenge/{second_id}/decline"),
        &a.token,
        "",
    )
    .await;
    assert_eq!((status, err), (404, json!({"error": "No such challenge"})));
    let (status, ok) = post_form(
        &server,
        &format!("/api/challenge/{second_id}/decline"),
        &b.token,
        "reason=later",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    for events in [&mut a_events, &mut b_events] {
        assert_eq!(events.next().await["type"], "challenge");
        let declined = events.next().await;
        assert_eq!(declined["type"], "challengeDeclined");
        assert_eq!(declined["challenge"]["id"], second_id.as_str());
        assert_eq!(declined["challenge"]["status"], "declined");
        assert_eq!(declined["challenge"]["declineReasonKey"], "later");
    }

    // Cancelled by the challenger; then nobody can accept it.
    let (_, third) = post_form(&server, "/api/challenge/Beta", &a.token, "").await;
    let third_id = third["id"].as_str().unwrap().to_owned();
    let (status, ok) = post_form(
        &server,
        &format!("/api/challenge/{third_id}/cancel"),
        &a.token,
        "",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    for events in [&mut a_events, &mut b_events] {
        assert_eq!(events.next().await["type"], "challenge");
        let canceled = events.next().await;
        assert_eq!(canceled["type"], "challengeCanceled");
        assert_eq!(canceled["challenge"]["status"], "canceled");
    }
    let (status, err) = post_form(
        &server,
        &format!("/api/challenge/{third_id}/accept"),
        &b.token,
        "",
    )
    .await;
    assert_eq!((status, err), (404, json!({"error": "No such challenge"})));

    // Accepted: a table with both seated; gameStart on both streams.
    let (status, ok) = post_form(
        &server,
        &format!("/api/challenge/{first_id}/accept"),
        &b.token,
        "",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let a_start = a_events.next().await;
    let b_start = b_events.next().await;
    assert_eq!(a_start["type"], "gameStart");
    let game = a_start["game"]["id"].as_str().unwrap().to_owned();
    assert_eq!(b_start["game"]["id"], game.as_str());
    assert_eq!(a_start["game"]["color"], "white");
    assert_eq!(b_start["game"]["color"], "black");
    assert_eq!(
        a_start["game"]["opponent"],
        json!({"id": b.player_id, "username": "Beta", "title": "BOT"})
    );
    assert_eq!(a_start["game"]["source"], "friend");

    // The game starts once both streams are open.
    let path = format!("/api/bot/game/stream/{game}");
    let mut a_game = Lines::open(server.addr, &path, &a.token).await;
    let a_full = a_game.next().await;
    assert_eq!(a_full["state"]["status"], "created");
    assert_eq!(
        a_full["black"],
        json!({"id": b.player_id, "name": "Beta", "title": "BOT", "rating": null})
    );
    let mut b_game = Lines::open(server.addr, &path, &b.token).await;
    let b_full = b_game.next().await;
    assert_eq!(b_full["state"]["status"], "started");
    assert_eq!(a_game.next().await["status"], "started");
    let (status, err) = post_form(
        &server,
        &format!("/api/bot/game/{game}/move/h9g7"),
        &b.token,
        "",
    )
    .await;
    assert_eq!((status, err), (400, json!({"error": "not your turn"})));
    let (status, _) = post_form(
        &server,
        &format!("/api/bot/game/{game}/move/h2e2"),
        &a.token,
        "",
    )
    .await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        let state = stream.next().await;
        assert_eq!(
            (&state["moves"], &state["status"]),
            (&json!("h2e2"), &json!("started"))
        );
        assert_eq!(state["winc"], 3000);
    }

    // Chat: a chatLine on both players' streams; the spectators' room is not a player's.
    let chat = format!("/api/bot/game/{game}/chat");
    let (status, ok) = post_form(&server, &chat, &b.token, "room=player&text=good+luck").await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    for stream in [&mut a_game, &mut b_game] {
        assert_eq!(
            stream.next().await,
            json!({"type": "chatLine", "room": "player", "username": "Beta", "text": "good luck"})
        );
    }
    let (status, err) = post_form(&server, &chat, &b.token, "room=spectator&text=hi").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "a seated player speaks in the player room; the spectators' room is theirs"})
        )
    );
    let (status, err) = post_form(&server, &chat, &b.token, "room=player").await;
    assert_eq!((status, err), (400, json!({"error": "text is missing"})));

    // A draw offered by Black (bdraw), declined by Red; nothing left to decline then.
    let draw = |who: &str| format!("/api/bot/game/{game}/draw/{who}");
    let (status, _) = post_form(&server, &draw("yes"), &b.token, "").await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        let state = stream.next().await;
        assert_eq!(
            (&state["wdraw"], &state["bdraw"]),
            (&json!(false), &json!(true))
        );
    }
    let (status, _) = post_form(&server, &draw("no"), &a.token, "").await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        assert_eq!(stream.next().await["bdraw"], false);
    }
    let (status, err) = post_form(&server, &draw("no"), &a.token, "").await;
    assert_eq!(
        (status, err),
        (400, json!({"error": "there is no draw offer to answer"}))
    );
    let (status, err) = post_form(&server, &draw("maybe"), &a.token, "").await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "accept must be yes, no, true or false, not \"maybe\""})
        )
    );

    // A takeback asked by Red (wtakeback) and given by Black: h2e2 is taken back.
    let takeback = |who: &str| format!("/api/bot/game/{game}/takeback/{who}");
    let (status, _) = post_form(&server, &takeback("yes"), &a.token, "").await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        assert_eq!(stream.next().await["wtakeback"], true);
    }
    let (status, _) = post_form(&server, &takeback("true"), &b.token, "").await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        let state = stream.next().await;
        assert_eq!(
            (&state["moves"], &state["wtakeback"]),
            (&json!(""), &json!(false))
        );
    }
    let (status, _) = post_form(
        &server,
        &format!("/api/bot/game/{game}/move/h2e2"),
        &a.token,
        "",
    )
    .await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        assert_eq!(stream.next().await["moves"], "h2e2");
    }

    // Black's stream goes: Red is told (opponentGone, with the seconds before Black loses),
    // and told again when it is back.
    drop(b_game);
    let gone = a_game.next().await;
    assert_eq!(
        (&gone["type"], &gone["gone"]),
        (&json!("opponentGone"), &json!(true))
    );
    let seconds = gone["claimWinInSeconds"]
        .as_u64()
        .expect("seconds while gone");
    assert!((1..=60).contains(&seconds), "{gone}");
    let mut b_game = Lines::open(server.addr, &path, &b.token).await;
    assert_eq!(b_game.next().await["type"], "gameFull");
    assert_eq!(
        a_game.next().await,
        json!({"type": "opponentGone", "gone": false})
    );

    let (status, _) = post_form(
        &server,
        &format!("/api/bot/game/{game}/resign"),
        &b.token,
        "",
    )
    .await;
    assert_eq!(status, 200);
    for stream in [&mut a_game, &mut b_game] {
        let end = stream.next().await;
        assert_eq!(
            (&end["status"], &end["winner"]),
            (&json!("resign"), &json!("white"))
        );
    }
    for events in [&mut a_events, &mut b_events] {
        let finish = events.next().await;
        assert_eq!(
            (&finish["type"], &finish["game"]["id"]),
            (&json!("gameFinish"), &json!(game))
        );
    }
    server.stop().await;
}
on_both!(two_bots_challenge_and_play);

/// A game against the computer from a set-up position (lichess's `fen`): the position is
/// checked when the challenge is made, `gameFull` gives it as `initialFen`, and the bot, Black
/// to move there, moves first.
async fn a_bot_game_from_a_position(backend: Backend) {
    let db = fresh_db(backend).await;
    let settings = Settings {
        computer_pause: Duration::ZERO,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let scopes = [Scope::ChallengeWrite, Scope::BotPlay];
    let bot = chuhe_server::store::issue_token(&db.url, "Setter", true, &scopes, "test")
        .await
        .unwrap();
    let token = bot.token.as_str();
    let fen = "4k4/9/2c6/9/9/9/9/9/4A4/R2AK4 b - - 0 1";
    for (form, why) in [
        (
            "level=1&fen=4k4/9/9",
            "fen: bad FEN: bad-rank-count: the board has 3 ranks, not 10",
        ),
        (
            "level=1&fen=3k5/9/9/9/9/9/9/9/9/3RK4+b+-+-+0+1",
            "fen: the game is already over in this position (checkmate)",
        ),
        ("level=1&variant=banqi&fen=4k4", "fen is a xiangqi option"),
    ] {
        let (status, err) = post_form(&server, "/api/challenge/ai", token, form).await;
        assert_eq!((status, err), (400, json!({ "error": why })), "{form}");
    }
    let form = format!("level=1&color=black&fen={}", fen.replace(' ', "+"));
    let (status, game) = post_form(&server, "/api/challenge/ai", token, &form).await;
    assert_eq!(status, 201, "{game}");
    assert_eq!(game["player"], "black");
    let id = game["id"].as_str().unwrap().to_owned();
    let mut stream = Lines::open(server.addr, &format!("/api/bot/game/stream/{id}"), token).await;
    let full = stream.next().await;
    assert_eq!(full["initialFen"], fen);
    assert_eq!(full["state"]["moves"], "");
    let (status, answer) =
        post_form(&server, &format!("/api/bot/game/{id}/move/c7c3"), token, "").await;
    assert_eq!((status, answer), (200, json!({"ok": true})));
    // the computer, Red, answers from the set-up position
    loop {
        let line = stream.next().await;
        let moves = line["moves"].as_str().unwrap_or_default().to_owned();
        if moves.split(' ').count() == 2 {
            assert!(moves.starts_with("c7c3 "), "{moves}");
            break;
        }
    }
    server.stop().await;
}

on_both!(a_bot_game_from_a_position);

/// A bot's requests are counted per token (`HttpLimits::token`, here 4 at once, then one an
/// hour; the first, before the server knows the token, by its address): over it, a move is answered 429 with lichess's body saying why and when to retry,
/// and `Retry-After`; chuhe's own routes answer with chuhe's body. Another bot's token, and
/// requests without a token, have their own buckets.
async fn a_bots_requests_are_limited_per_token(backend: Backend) {
    let db = fresh_db(backend).await;
    let mut settings = fast_settings();
    settings.computer_pause = Duration::ZERO;
    settings.http_limits.token =
        chuhe_server::edge::limit::RequestQuota::new(4, Duration::from_secs(3600));
    let server = Server::start(&db, settings).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let bot = chuhe_server::store::issue_token(&db.url, "Robo", true, &scopes, "test")
        .await
        .unwrap();
    let other = chuhe_server::store::issue_token(&db.url, "Other", true, &scopes, "test")
        .await
        .unwrap();
    let token = bot.token.as_str();
    // The game: counted by the address (the token's first request), which makes the token
    // known; then 1: its stream, 2: a move, 3 and 4: the account.
    let (status, game) =
        post_form(&server, "/api/challenge/ai", token, "level=1&color=white").await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    let mut stream = Lines::open(server.addr, &format!("/api/bot/game/stream/{id}"), token).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.next().await["type"], "gameFull");
    let (status, ok) =
        post_form(&server, &format!("/api/bot/game/{id}/move/h2e2"), token, "").await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let auth = format!("Bearer {token}");
    let bearer = [("Authorization", auth.as_str())];
    for _ in 0..2 {
        let (status, _, _) = http_with(server.addr, "GET", "/api/account", &bearer, None).await;
        assert_eq!(status, 200);
    }
    // 5: the next move is refused, with why and when.
    let (status, head, body) = http_with(
        server.addr,
        "POST",
        &format!("/api/bot/game/{id}/move/h0g2"),
        &bearer,
        None,
    )
    .await;
    assert_eq!(status, 429);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": "too many requests with this API token (4 at once, then one every 3600 s): retry in 3600 s"})
    );
    let retry = head.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("retry-after:")
            .map(|v| v.trim().to_owned())
    });
    assert_eq!(retry.as_deref(), Some("3600"));
    // chuhe's own routes (the token is a session there) answer in chuhe's shape.
    let (status, _, body) = http_with(server.addr, "GET", "/api/me", &bearer, None).await;
    assert_eq!(status, 429);
    assert_eq!(
        body,
        r#"{"error":"rate_limited","message":"too many requests, try again in 3600 s"}"#
    );
    // The stream goes on: the bot's move, then the computer's.
    assert_eq!(stream.next().await["moves"], "h2e2");
    let state = stream.next().await;
    assert_eq!(
        state["moves"].as_str().unwrap().split_whitespace().count(),
        2,
        "{state}"
    );
    // Another token, and requests without one (the address's bucket), are not held back.
    let other_auth = format!("Bearer {}", other.token);
    let (status, _, _) = http_with(
        server.addr,
        "GET",
        "/api/account",
        &[("Authorization", other_auth.as_str())],
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, body) = server.http("GET", "/api/account", None, None).await;
    assert_eq!(
        (status, body.as_str()),
        (401, r#"{"error":"No such token"}"#)
    );
    // An unknown token is counted by its address: refused for being unknown, not for the limit.
    let (status, _, body) = http_with(
        server.addr,
        "GET",
        "/api/account",
        &[("Authorization", "Bearer lip_nosuchtokennosuchtoken00")],
        None,
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (401, r#"{"error":"No such token"}"#)
    );
    server.stop().await;
}
on_both!(a_bots_requests_are_limited_per_token);

/// The first legal sanguo move in text order (a capture first), after `moves` from the start
/// (flag bearers on, the table's default); from chuhe-rules.
fn choose_sanguo(moves: &str) -> String {
    use chuhe_rules::sanguo::{Game, Move, Position};
    let mut game = Game::new(Position::start(true));
    for m in moves.split_whitespace() {
        game.play(m.parse::<Move>().unwrap()).unwrap();
    }
    let position = game.position();
    let mut legal: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| m.text(position.piece_at(m.to).is_some()))
        .collect();
    legal.sort();
    legal
        .iter()
        .find(|m| m.contains('x'))
        .or(legal.first())
        .expect("a legal move")
        .clone()
}

/// Sanguo through the Bot API: a bot asks for a game against the computer (`variant=sanguo`,
/// `color=wu`), is told `gameStart` with its kingdom and both opponents, reads `gameFull` with
/// the three players, and plays whenever `toMove` is its kingdom, to the end.
async fn a_bot_plays_sanguo_against_the_computer(backend: Backend) {
    let db = fresh_db(backend).await;
    let settings = Settings {
        computer_pause: Duration::ZERO,
        ..fast_settings()
    };
    let server = Server::start(&db, settings).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let bot = chuhe_server::store::issue_token(&db.url, "Guan Yu", true, &scopes, "test")
        .await
        .unwrap();
    let token = bot.token.as_str();
    let mut events = Lines::open(server.addr, "/api/stream/event", token).await;
    let (status, err) = post_form(
        &server,
        "/api/challenge/ai",
        token,
        "level=1&variant=sanguo&color=white",
    )
    .await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "color \"white\": in sanguo shu, wu, wei or random"})
        )
    );
    let (status, err) = post_form(&server, "/api/challenge/Nobody", token, "variant=sanguo").await;
    assert_eq!(status, 404, "{err}");
    let (status, game) = post_form(
        &server,
        "/api/challenge/ai",
        token,
        "level=1&variant=sanguo&color=wu",
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    assert_eq!(game["player"], "wu");
    assert_eq!(game["variant"], json!({"key": "sanguo", "name": "Sanguo"}));
    let start = events.next().await;
    assert_eq!(start["type"], "gameStart");
    assert_eq!(start["game"]["color"], "wu");
    assert_eq!(
        start["game"]["opponents"],
        json!([
            {"id": null, "username": "chuhe level 1", "ai": 1},
            {"id": null, "username": "chuhe level 1", "ai": 1}
        ])
    );
    let mut stream = Lines::open(server.addr, &format!("/api/bot/game/stream/{id}"), token).await;
    assert_eq!(stream.status, 200);
    let full = stream.next().await;
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["you"], "wu");
    assert_eq!(
        full["players"],
        json!([
            {"aiLevel": 1, "kingdom": "shu"},
            {"id": bot.player_id, "name": "Guan Yu", "title": "BOT", "rating": null, "kingdom": "wu"},
            {"aiLevel": 1, "kingdom": "wei"}
        ])
    );
    let mut state = full["state"].clone();
    assert_eq!(
        state["times"],
        json!([2147483647u64, 2147483647u64, 2147483647u64])
    );
    let mut answered = None;
    let mut mine = 0;
    while state["status"] == "started" {
        let moves = state["moves"].as_str().unwrap().to_owned();
        let count = moves.split_whitespace().count();
        if state["toMove"] == "wu" && answered != Some(count) {
            answered = Some(count);
            let mv = choose_sanguo(&moves);
            let (status, ok) =
                post_form(&server, &format!("/api/bot/game/{id}/move/{mv}"), token, "").await;
            assert_eq!(
                (status, &ok),
                (200, &json!({"ok": true})),
                "{mv} after {moves}"
            );
            mine += 1;
        }
        state = stream.next().await;
        assert_eq!(state["type"], "gameState", "{state}");
        assert!(count < 3000, "the game does not end");
    }
    assert!(mine > 0);
    // an end by the rules: a kingdom's win (or two allied), or a draw (repetition, the quiet
    // limit)
    assert_eq!(state["toMove"], Value::Null);
    let winners = state["winners"].as_array().unwrap();
    match state["status"].as_str() {
        Some("variantEnd") => assert!(!winners.is_empty(), "{state}"),
        Some("draw") => assert!(winners.is_empty(), "{state}"),
        _ => panic!("{state}"),
    }
    let finish = events.next().await;
    assert_eq!(finish["type"], "gameFinish", "{finish}");
    assert_eq!(finish["game"]["color"], "wu");
    server.stop().await;
}
on_both!(a_bot_plays_sanguo_against_the_computer);

/// The ids of the `challenge` lines among `lines`.
fn challenge_ids(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "challenge")
        .map(|l| l["challenge"]["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Challenges are stored: made before a restart, they are listed on the event streams opened
/// after it (lichess's replay on connect), then declined (the reason stored), cancelled and
/// accepted after it; each stream gets `gameStart` once, and a stream opened later replays the
/// game in progress and no answered challenge.
async fn challenges_survive_a_restart(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let a = chuhe_server::store::issue_token(&db.url, "Alpha", true, &scopes, "t")
        .await
        .unwrap();
    let b = chuhe_server::store::issue_token(&db.url, "Beta", true, &scopes, "t")
        .await
        .unwrap();
    let mut ids = Vec::new();
    for form in ["color=white", "clock.limit=300&clock.increment=2", ""] {
        let (status, made) = post_form(&server, "/api/challenge/Beta", &a.token, form).await;
        assert_eq!(status, 200, "{made}");
        ids.push(made["id"].as_str().unwrap().to_owned());
    }
    server.stop().await;

    let server = Server::start(&db, fast_settings()).await;
    let store = server.state.store();
    for id in &ids {
        assert_eq!(
            store.challenge_status(id).await.unwrap(),
            Some(("created".to_owned(), None))
        );
    }
    let mut a_events = Lines::open(server.addr, "/api/stream/event", &a.token).await;
    let mut b_events = Lines::open(server.addr, "/api/stream/event", &b.token).await;
    let mut a_first = Vec::new();
    let mut b_first = Vec::new();
    for _ in 0..3 {
        a_first.push(a_events.next().await);
        b_first.push(b_events.next().await);
    }
    assert_eq!(challenge_ids(&a_first), ids);
    assert_eq!(challenge_ids(&b_first), ids);
    assert_eq!(b_first[0]["challenge"]["status"], "created");
    assert_eq!(
        b_first[0]["challenge"]["challenger"],
        json!({"id": a.player_id, "name": "Alpha", "title": "BOT"})
    );
    assert_eq!(b_first[0]["challenge"]["finalColor"], "white");
    assert_eq!(b_first[1]["challenge"]["timeControl"]["limit"], 300);

    // Declined after the restart, with its reason kept.
    let (status, ok) = post_form(
        &server,
        &format!("/api/challenge/{}/decline", ids[2]),
        &b.token,
        "reason=later",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    for events in [&mut a_events, &mut b_events] {
        let declined = events.next().await;
        assert_eq!(declined["type"], "challengeDeclined");
        assert_eq!(declined["challenge"]["id"], ids[2].as_str());
        assert_eq!(declined["challenge"]["declineReasonKey"], "later");
    }
    assert_eq!(
        store.challenge_status(&ids[2]).await.unwrap(),
        Some(("declined".to_owned(), Some("later".to_owned())))
    );
    // Cancelled by its challenger.
    let (status, _) = post_form(
        &server,
        &format!("/api/challenge/{}/cancel", ids[1]),
        &a.token,
        "",
    )
    .await;
    assert_eq!(status, 200);
    for events in [&mut a_events, &mut b_events] {
        let canceled = events.next().await;
        assert_eq!(canceled["type"], "challengeCanceled");
        assert_eq!(canceled["challenge"]["id"], ids[1].as_str());
    }
    // Accepted: gameStart on both streams.
    let (status, ok) = post_form(
        &server,
        &format!("/api/challenge/{}/accept", ids[0]),
        &b.token,
        "",
    )
    .await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let a_start = a_events.next().await;
    let b_start = b_events.next().await;
    assert_eq!(a_start["type"], "gameStart");
    assert_eq!(b_start["type"], "gameStart");
    let game = a_start["game"]["id"].as_str().unwrap().to_owned();
    assert_eq!(b_start["game"]["id"], game.as_str());
    assert_eq!(a_start["game"]["color"], "white");
    assert_eq!(
        store.challenge_status(&ids[0]).await.unwrap(),
        Some(("accepted".to_owned(), None))
    );
    // Answered: no second answer.
    for id in &ids {
        let (status, err) = post_form(
            &server,
            &format!("/api/challenge/{id}/accept"),
            &b.token,
            "",
        )
        .await;
        assert_eq!((status, err), (404, json!({"error": "No such challenge"})));
    }
    // The next line of each stream is the next event: the game was told once.
    let (_, next) = post_form(&server, "/api/challenge/Beta", &a.token, "").await;
    let next_id = next["id"].as_str().unwrap();
    for events in [&mut a_events, &mut b_events] {
        let line = events.next().await;
        assert_eq!(line["type"], "challenge", "{line}");
        assert_eq!(line["challenge"]["id"], next_id);
    }
    // A stream opened now: the game in progress, then the open challenge only.
    let mut again = Lines::open(server.addr, "/api/stream/event", &b.token).await;
    let first = again.next().await;
    assert_eq!(first["type"], "gameStart");
    assert_eq!(first["game"]["id"], game.as_str());
    let second = again.next().await;
    assert_eq!(second["type"], "challenge");
    assert_eq!(second["challenge"]["id"], next_id);
    drop((a_events, b_events, again));
    server.stop().await;
}

on_both!(challenges_survive_a_restart);

/// Two accepts of one challenge at once: one wins (one table), the other finds no challenge.
async fn two_accepts_make_one_table(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let a = chuhe_server::store::issue_token(&db.url, "Alpha", true, &scopes, "t")
        .await
        .unwrap();
    let b = chuhe_server::store::issue_token(&db.url, "Beta", true, &scopes, "t")
        .await
        .unwrap();
    let (_, made) = post_form(&server, "/api/challenge/Beta", &a.token, "").await;
    let path = format!("/api/challenge/{}/accept", made["id"].as_str().unwrap());
    let (one, two) = tokio::join!(
        post_form(&server, &path, &b.token, ""),
        post_form(&server, &path, &b.token, "")
    );
    let mut statuses = [one.0, two.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 404]);
    let (_, _, body) = server.http("GET", "/api/tables", None, None).await;
    let tables: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(tables.as_array().unwrap().len(), 1, "{tables}");
    server.stop().await;
}

on_both!(two_accepts_make_one_table);

/// A challenge whose time has passed expires: both streams get `challengeCanceled` (status
/// `expired`), it is stored as expired and cannot be accepted; a challenger's open stream keeps
/// its challenges with a clock alive, not its untimed ones (those wait two weeks).
async fn an_unanswered_challenge_expires(backend: Backend) {
    use chuhe_server::protocol::SeatPlayer;
    use chuhe_server::site::challenges::{expires_ms, Challenge, CORRESPONDENCE_WAIT};
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let a = chuhe_server::store::issue_token(&db.url, "Alpha", true, &scopes, "t")
        .await
        .unwrap();
    let b = chuhe_server::store::issue_token(&db.url, "Beta", true, &scopes, "t")
        .await
        .unwrap();
    let mut a_events = Lines::open(server.addr, "/api/stream/event", &a.token).await;
    let mut b_events = Lines::open(server.addr, "/api/stream/event", &b.token).await;
    let store = server.state.store();
    let now = chuhe_server::store::now_ms();
    let person = |id: &str, name: &str| SeatPlayer::Person {
        id: id.to_owned(),
        name: name.to_owned(),
        account: true,
        bot: true,
    };
    let untimed: chuhe_server::protocol::TableOptions =
        serde_json::from_value(json!({"variant": "xiangqi"})).unwrap();
    let timed: chuhe_server::protocol::TableOptions = serde_json::from_value(
        json!({"variant": "xiangqi", "time": {"initial_ms": 60_000, "increment_ms": 0}}),
    )
    .unwrap();
    assert_eq!(
        expires_ms(&untimed, now),
        now + CORRESPONDENCE_WAIT.as_millis() as i64
    );
    assert_eq!(expires_ms(&timed, now), now + 20_000);
    let made = |id: &str, options: &chuhe_server::protocol::TableOptions, expires: i64| Challenge {
        id: id.to_owned(),
        challenger: person(&a.player_id, "Alpha"),
        dest: person(&b.player_id, "Beta"),
        options: options.clone(),
        color: "random".to_owned(),
        challenger_seat: 1,
        created_ms: now - 30_000,
        expires_ms: expires,
    };
    // With nothing waiting the answer is a read: 0, even while another connection holds the
    // database's write lock (a write would wait for it, and time out).
    let lock = hold_write_lock(backend, &db.url).await;
    assert_eq!(
        store
            .keep_challenges(&a.player_id, now + 20_000)
            .await
            .unwrap(),
        0
    );
    // Closed, not dropped: a dropped SQLite connection is closed by its worker thread in the
    // background, and the writes below once waited the whole time limit for its lock (a full
    // `scripts/test` run, 2026-12-05).
    sqlx::Connection::close(lock).await.unwrap();
    // Kept alive: only the one with a clock that expires before the new time.
    store
        .create_challenge(&made("keepmeup", &timed, now + 5_000))
        .await
        .unwrap();
    store
        .create_challenge(&made("untimed1", &untimed, expires_ms(&untimed, now)))
        .await
        .unwrap();
    assert_eq!(
        store
            .keep_challenges(&a.player_id, now + 20_000)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .challenge("keepmeup")
            .await
            .unwrap()
            .unwrap()
            .expires_ms,
        now + 20_000
    );
    // Its time passed: expired by the server's scan, told to both.
    store
        .create_challenge(&made("overdue1", &timed, now - 1))
        .await
        .unwrap();
    for events in [&mut a_events, &mut b_events] {
        let line = events.next().await;
        assert_eq!(line["type"], "challengeCanceled", "{line}");
        assert_eq!(line["challenge"]["id"], "overdue1");
        assert_eq!(line["challenge"]["status"], "expired");
    }
    assert_eq!(
        store.challenge_status("overdue1").await.unwrap(),
        Some(("expired".to_owned(), None))
    );
    let (status, _) = post_form(&server, "/api/challenge/overdue1/accept", &b.token, "").await;
    assert_eq!(status, 404);
    let open: Vec<String> = store
        .open_challenges(&b.player_id)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(open, ["keepmeup", "untimed1"]);
    drop((a_events, b_events));
    server.stop().await;
}

on_both!(an_unanswered_challenge_expires);

/// `GET /api/challenge` with `token`: (status, JSON body).
async fn get_challenges(server: &Server, token: &str) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (status, _, body) = http_with(
        server.addr,
        "GET",
        "/api/challenge",
        &[("Authorization", &auth)],
        None,
    )
    .await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// The ids of a list of `GET /api/challenge`, each checked to carry `direction`.
fn listed(list: &Value, direction: &str) -> Vec<String> {
    list[direction]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|c| {
            assert_eq!(c["direction"], direction, "{c}");
            assert_eq!(c["status"], "created", "{c}");
            c["id"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// `GET /api/challenge` lists the account's waiting challenges, to it (`in`) and from it
/// (`out`), from the stored challenges: answered ones leave the lists.
async fn the_open_challenges_are_listed(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let scopes = [Scope::ChallengeRead, Scope::ChallengeWrite, Scope::BotPlay];
    let a = chuhe_server::store::issue_token(&db.url, "Alpha", true, &scopes, "t")
        .await
        .unwrap();
    let b = chuhe_server::store::issue_token(&db.url, "Beta", true, &scopes, "t")
        .await
        .unwrap();
    let writer =
        chuhe_server::store::issue_token(&db.url, "Writer", false, &[Scope::TournamentWrite], "t")
            .await
            .unwrap();
    // Nothing yet.
    assert_eq!(
        get_challenges(&server, &a.token).await,
        (200, json!({"in": [], "out": []}))
    );
    // Untimed challenges (lichess's correspondence): they wait two weeks.
    let mut ids = Vec::new();
    for (from, to, form) in [
        (&a.token, "Beta", "variant=banqi"),
        (&a.token, "Beta", "color=black"),
        (&b.token, "Alpha", ""),
    ] {
        let (status, made) = post_form(&server, &format!("/api/challenge/{to}"), from, form).await;
        assert_eq!(status, 200, "{made}");
        ids.push(made["id"].as_str().unwrap().to_owned());
    }
    let (status, alpha) = get_challenges(&server, &a.token).await;
    assert_eq!(status, 200, "{alpha}");
    assert_eq!(listed(&alpha, "out"), [ids[0].clone(), ids[1].clone()]);
    assert_eq!(listed(&alpha, "in"), [ids[2].clone()]);
    let first = &alpha["out"][0];
    assert_eq!(first["challenger"]["name"], "Alpha", "{first}");
    assert_eq!(first["destUser"]["name"], "Beta", "{first}");
    assert_eq!(first["variant"]["key"], "banqi", "{first}");
    assert_eq!(first["timeControl"]["type"], "unlimited", "{first}");
    assert_eq!(alpha["out"][1]["color"], "black", "{alpha}");
    let (_, beta) = get_challenges(&server, &b.token).await;
    assert_eq!(listed(&beta, "in"), [ids[0].clone(), ids[1].clone()]);
    assert_eq!(listed(&beta, "out"), [ids[2].clone()]);
    // Declined, cancelled, accepted: no longer waiting.
    let answers = [
        (&b.token, format!("/api/challenge/{}/decline", ids[1])),
        (&b.token, format!("/api/challenge/{}/cancel", ids[2])),
        (&b.token, format!("/api/challenge/{}/accept", ids[0])),
    ];
    for (token, path) in &answers {
        let (status, body) = post_form(&server, path, token, "").await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    assert_eq!(
        get_challenges(&server, &a.token).await,
        (200, json!({"in": [], "out": []}))
    );
    // A token without a challenge or play scope is refused as lichess refuses it.
    assert_eq!(
        get_challenges(&server, &writer.token).await,
        (401, json!({"error": "Missing scope"}))
    );
    assert_eq!(
        get_challenges(&server, "lip_nosuchtoken0000000000000")
            .await
            .0,
        401
    );
    server.stop().await;
}

on_both!(the_open_challenges_are_listed);
