//! Arena tournaments over the API (`docs/tournaments.md`, `docs/protocol.md`), on SQLite and
//! PostgreSQL: four accounts with personal tokens create and join an arena, the waves pair them
//! into real tables, the games end by resignation (the player later in the alphabet resigns,
//! so Ana wins every game and Dee loses every one), the standings carry lichess's sheets with
//! the streaks, a withdrawn player is not paired, and the arena finishes at its end with its
//! podium. A restart in the middle keeps the standings and the tables of the games in play,
//! and scores a game that ended as the server stopped. Durations are shortened by
//! `Settings::tournament_minute`. Last, two bot accounts play an arena to its end with real
//! moves through the Bot API (a capture when there is one, else the first legal move).

#[macro_use]
mod common;

use chuhe_server::accounts::tokens::Scope;
use chuhe_server::Settings;
use common::*;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const NAMES: [&str; 4] = ["Ana", "Bo", "Cai", "Dee"];

fn arena_settings(minute: Duration) -> Settings {
    Settings {
        tournament_wave: Duration::from_millis(100),
        tournament_minute: minute,
        ..fast_settings()
    }
}

/// The tokens of the four players (`board:play`, `challenge:read`, `tournament:write`).
async fn players(url: &str) -> Vec<String> {
    let scopes = [
        Scope::ChallengeRead,
        Scope::BoardPlay,
        Scope::TournamentWrite,
    ];
    let mut tokens = Vec::new();
    for name in NAMES {
        let issued = chuhe_server::store::issue_token(url, name, false, &scopes, "arena test")
            .await
            .unwrap();
        tokens.push(issued.token);
    }
    tokens
}

/// Resigns each game in play for its player later in [`NAMES`]; answers how many.
async fn resign_duels(addr: SocketAddr, v: &Value, tokens: &[String]) -> usize {
    let mut n = 0;
    for duel in v["duels"].as_array().unwrap() {
        let index = |k: usize| {
            let name = duel["p"][k]["n"].as_str().unwrap();
            NAMES.iter().position(|n| *n == name).unwrap()
        };
        let loser = index(0).max(index(1));
        let path = format!("/api/board/game/{}/resign", duel["id"].as_str().unwrap());
        let _ = bearer_call(addr, "POST", &path, &tokens[loser], "").await;
        n += 1;
    }
    n
}

fn line_of<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in the standings: {v}"))
}

fn sheet(v: &Value, name: &str) -> String {
    line_of(v, name)["sheet"]["scores"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn in_duel(v: &Value, name: &str) -> bool {
    v["duels"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["p"][0]["n"] == name || d["p"][1]["n"] == name)
}

/// The first JSON line of `path`'s NDJSON stream (skipping keep-alives), read with `token`.
struct Lines(BufReader<TcpStream>);

impl Lines {
    async fn open(addr: SocketAddr, path: &str, token: &str) -> Lines {
        Lines::open_with(addr, path, &format!("Authorization: Bearer {token}")).await
    }

    /// [`Lines::open`] with one header line of one's own (a session cookie).
    async fn open_with(addr: SocketAddr, path: &str, header: &str) -> Lines {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n{header}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        loop {
            let mut head = String::new();
            reader.read_line(&mut head).await.unwrap();
            if head == "\r\n" || head.is_empty() {
                break;
            }
        }
        Lines(reader)
    }

    async fn next(&mut self) -> Value {
        loop {
            let mut text = String::new();
            let n = tokio::time::timeout(Duration::from_secs(30), self.0.read_line(&mut text))
                .await
                .expect("a line within 30 s")
                .unwrap();
            assert!(n > 0, "the stream ended");
            if !text.trim().is_empty() {
                return serde_json::from_str(text.trim()).unwrap();
            }
        }
    }
}

async fn an_arena_runs_to_its_end(backend: Backend) {
    let db = fresh_db(backend).await;
    // Ten minutes last 4 s.
    let server = Server::start(&db, arena_settings(Duration::from_millis(400))).await;
    let addr = server.addr;
    let tokens = players(&db.url).await;
    let scopes = [Scope::BoardPlay];
    let other = chuhe_server::store::issue_token(&db.url, "Eve", false, &scopes, "no scope")
        .await
        .unwrap()
        .token;

    // Refusals: out of bounds, a missing scope, a guest.
    let (status, err) = bearer_call(
        addr,
        "POST",
        "/api/tournament",
        &tokens[0],
        "clockTime=3&minutes=5",
    )
    .await;
    assert_eq!(
        (status, err["error"].as_str()),
        (400, Some("minutes: 10 to 180"))
    );
    let (status, err) = bearer_call(
        addr,
        "POST",
        "/api/tournament",
        &other,
        "clockTime=3&minutes=10",
    )
    .await;
    assert_eq!(
        (status, err["error"].as_str()),
        (401, Some("Missing scope"))
    );

    let start = chuhe_server::store::now_ms() + 1500;
    let form = format!(
        "name=Test&variant=xiangqi&clockTime=3&clockIncrement=2&minutes=10&startDate={start}&rated=false"
    );
    let (status, created) = bearer_call(addr, "POST", "/api/tournament", &tokens[0], &form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["fullName"], "Test Arena");
    assert_eq!(created["isStarted"], false);
    assert_eq!(created["isFinished"], false);
    assert_eq!(
        created["clock"],
        serde_json::json!({"limit": 180, "increment": 2})
    );
    assert_eq!(created["nbPlayers"], 0);
    assert!(created["secondsToStart"].as_i64().unwrap() <= 2);

    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/tournament/{id}/join"),
        &other,
        "",
    )
    .await;
    assert_eq!(status, 401);
    for token in &tokens {
        let (status, ok) = bearer_call(
            addr,
            "POST",
            &format!("/api/tournament/{id}/join"),
            token,
            "",
        )
        .await;
        assert_eq!((status, ok), (200, serde_json::json!({"ok": true})));
    }
    // Withdrawing before the start leaves; joining again comes back.
    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/tournament/{id}/withdraw"),
        &tokens[3],
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(tournament_view(addr, &id).await["nbPlayers"], 3);
    bearer_call(
        addr,
        "POST",
        &format!("/api/tournament/{id}/join"),
        &tokens[3],
        "",
    )
    .await;
    assert_eq!(tournament_view(addr, &id).await["nbPlayers"], 4);
    let (_, _, list) = http(addr, "GET", "/api/tournament", None, None).await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["created"][0]["id"], id.as_str());

    let mut ana_events = Lines::open(addr, "/api/stream/event", &tokens[0]).await;
    let mut live = Lines::open(addr, &format!("/api/tournament/{id}/stream"), &tokens[0]).await;
    assert_eq!(live.next().await["id"], id.as_str());

    // Play: the later name resigns every game; Cai withdraws after a game, then comes back.
    let began = Instant::now();
    let mut cai_out: Option<Instant> = None;
    let mut cai_back = false;
    let mut checked_table = false;
    let last = loop {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "the arena never ended"
        );
        let v = tournament_view(addr, &id).await;
        if v["isFinished"] == true {
            break v;
        }
        if !checked_table {
            if let Some(duel) = v["duels"].as_array().unwrap().first() {
                // A real table, seated as paired, Red first.
                let table = duel["id"].as_str().unwrap();
                let (status, _, body) =
                    http(addr, "GET", &format!("/api/tables/{table}"), None, None).await;
                assert_eq!(status, 200);
                let t: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(t["seats"][0]["name"], duel["p"][0]["n"]);
                assert_eq!(t["seats"][1]["name"], duel["p"][1]["n"]);
                assert_eq!(t["options"]["time"]["initial_ms"], 180_000);
                checked_table = true;
            }
        }
        let cai_games = sheet(&v, "Cai").len();
        match cai_out {
            None if cai_games >= 1 => {
                let (status, _) = bearer_call(
                    addr,
                    "POST",
                    &format!("/api/tournament/{id}/withdraw"),
                    &tokens[2],
                    "",
                )
                .await;
                assert_eq!(status, 200);
                cai_out = Some(Instant::now());
            }
            Some(at) if !cai_back => {
                let v = tournament_view(addr, &id).await;
                assert_eq!(line_of(&v, "Cai")["withdraw"], true);
                if at.elapsed() > Duration::from_millis(300) && !in_duel(&v, "Cai") {
                    // No pairing while withdrawn (the game in play at the time has ended).
                    assert!(!in_duel(&tournament_view(addr, &id).await, "Cai"));
                    bearer_call(
                        addr,
                        "POST",
                        &format!("/api/tournament/{id}/join"),
                        &tokens[2],
                        "",
                    )
                    .await;
                    cai_back = true;
                }
            }
            _ => {}
        }
        resign_duels(addr, &v, &tokens).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    // Ana's first game was announced on her event stream, as lichess's arena games are.
    let start = ana_events.next().await;
    assert_eq!(start["type"], "gameStart");
    assert_eq!(start["game"]["source"], "arena");
    assert_eq!(start["game"]["tournamentId"], id.as_str());

    assert!(cai_back, "Cai withdrew and came back");
    assert_eq!(last["isStarted"], false);
    assert!(last["duels"].as_array().unwrap().is_empty());
    // Ana won every game: 2, 2, then 4 on fire (the latest first, as lichess writes sheets).
    let ana = sheet(&last, "Ana");
    assert!(ana.len() >= 3, "Ana played {ana:?}");
    let expected = format!("{}22", "4".repeat(ana.len() - 2));
    assert_eq!(ana, expected);
    assert_eq!(line_of(&last, "Ana")["rank"], 1);
    assert_eq!(
        line_of(&last, "Ana")["score"],
        4 * (ana.len() as u64 - 2) + 4
    );
    assert_eq!(line_of(&last, "Ana")["sheet"]["fire"], true);
    // Dee lost every game.
    let dee = sheet(&last, "Dee");
    assert!(!dee.is_empty() && dee.chars().all(|c| c == '0'), "{dee}");
    assert_eq!(line_of(&last, "Dee")["rank"], 4);
    // Every score is its sheet's sum.
    for name in NAMES {
        let sum: u64 = sheet(&last, name)
            .chars()
            .map(|c| u64::from(c.to_digit(10).unwrap()))
            .sum();
        assert_eq!(line_of(&last, name)["score"], sum, "{name}");
    }
    let podium = last["podium"].as_array().unwrap();
    assert_eq!(podium.len(), 3);
    assert_eq!(podium[0]["name"], "Ana");
    assert_eq!(podium[0]["nb"]["game"], ana.len());
    assert_eq!(podium[0]["nb"]["win"], ana.len());
    // The live stream's last line shows it finished.
    loop {
        let line = live.next().await;
        if line["isFinished"] == true {
            assert_eq!(line["standing"], last["standing"]);
            break;
        }
    }
    let (_, _, list) = http(addr, "GET", "/api/tournament", None, None).await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["finished"][0]["id"], id.as_str());
    assert_eq!(list["finished"][0]["status"], 30);
    assert_eq!(list["finished"][0]["winner"]["name"], "Ana");
    // Over: nobody joins any more.
    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/tournament/{id}/join"),
        &tokens[1],
        "",
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}

on_both!(an_arena_runs_to_its_end);

async fn a_restart_keeps_the_arena(backend: Backend) {
    let db = fresh_db(backend).await;
    // Ten minutes last 100 s: the arena runs through the whole test.
    let settings = arena_settings(Duration::from_secs(10));
    let server = Server::start(&db, settings.clone()).await;
    let addr = server.addr;
    let tokens = players(&db.url).await;
    let start = chuhe_server::store::now_ms() + 300;
    let form =
        format!("name=Restart&variant=banqi&clockTime=1&minutes=10&startDate={start}&rated=false");
    let (status, created) = bearer_call(addr, "POST", "/api/tournament", &tokens[0], &form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    for token in &tokens {
        bearer_call(
            addr,
            "POST",
            &format!("/api/tournament/{id}/join"),
            token,
            "",
        )
        .await;
    }
    let wave = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if v["duels"].as_array().unwrap().len() == 2 {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let first = tokio::time::timeout(Duration::from_secs(20), wave)
        .await
        .unwrap();
    assert_eq!(first["isStarted"], true);
    let duels = first["duels"].as_array().unwrap().clone();
    // The first game ends while the server runs; the second as it stops.
    let one = serde_json::json!({"duels": [duels[0].clone()]});
    resign_duels(addr, &one, &tokens).await;
    let scored = async {
        loop {
            let v = tournament_view(addr, &id).await;
            let name = duels[0]["p"][0]["n"].as_str().unwrap();
            if !sheet(&v, name).is_empty() {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let before = tokio::time::timeout(Duration::from_secs(20), scored)
        .await
        .unwrap();
    let two = serde_json::json!({"duels": [duels[1].clone()]});
    resign_duels(addr, &two, &tokens).await;
    server.stop().await;

    let server = Server::start(&db, settings).await;
    let addr = server.addr;
    let after = tournament_view(addr, &id).await;
    assert_eq!(after["isStarted"], true);
    assert_eq!(after["nbPlayers"], 4);
    // Every player has one game: the one scored before, and the one that ended at the stop.
    for name in NAMES {
        assert_eq!(sheet(&after, name).len(), 1, "{name}: {after}");
    }
    for k in 0..2 {
        let winner = duels[k]["p"][0]["n"].as_str().unwrap();
        let loser = duels[k]["p"][1]["n"].as_str().unwrap();
        let (w, l) =
            if NAMES.iter().position(|n| *n == winner) < NAMES.iter().position(|n| *n == loser) {
                (winner, loser)
            } else {
                (loser, winner)
            };
        assert_eq!(sheet(&after, w), "2");
        assert_eq!(sheet(&after, l), "0");
    }
    // The first game's players kept what they had before the stop.
    for k in 0..2 {
        let name = duels[0]["p"][k]["n"].as_str().unwrap();
        assert_eq!(
            line_of(&after, name)["score"],
            line_of(&before, name)["score"]
        );
    }
    // Games paired before the stop (the first game's players, paired again) keep their tables.
    let kept: Vec<&Value> = before["duels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["id"] != duels[1]["id"])
        .collect();
    let now = tournament_view(addr, &id).await;
    for duel in kept {
        assert!(
            now["duels"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["id"] == duel["id"]),
            "{duel} kept: {now}"
        );
    }
    // Pairing goes on after the restart: the four are paired again.
    let again = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if v["duels"].as_array().unwrap().len() == 2 {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let next = tokio::time::timeout(Duration::from_secs(20), again)
        .await
        .unwrap();
    for duel in next["duels"].as_array().unwrap() {
        let table = duel["id"].as_str().unwrap();
        let (status, _, _) = http(addr, "GET", &format!("/api/tables/{table}"), None, None).await;
        assert_eq!(status, 200);
    }
    server.stop().await;
}

on_both!(a_restart_keeps_the_arena);

/// The move a test bot plays in a xiangqi game of `moves` (ICCS, space-separated): a capture
/// when the rules offer one, so games end sooner, else the first legal move in text order.
fn pick_move(moves: &str) -> String {
    use chuhe_rules::xiangqi::{Game, GameOptions, Position};
    let mut game = Game::new(Position::start(), GameOptions::default());
    for text in moves.split_whitespace() {
        game.play(text.parse().unwrap()).unwrap();
    }
    let mut legal: Vec<_> = game.legal_moves().into_iter().collect();
    legal.sort_by_key(ToString::to_string);
    let position = game.position();
    let capture = legal.iter().find(|m| position.is_capture(**m));
    capture.or(legal.first()).expect("a legal move").to_string()
}

/// A bot account's life in an arena: each `gameStart` on its event stream opens the game's
/// stream, and it moves (a capture first, else its first legal move) whenever it is its turn,
/// until the game is over; then it waits for the next pairing.
async fn bot_plays(addr: SocketAddr, token: String) {
    let mut events = Lines::open(addr, "/api/stream/event", &token).await;
    loop {
        let start = events.next().await;
        if start["type"] != "gameStart" {
            continue;
        }
        let id = start["game"]["id"].as_str().unwrap().to_owned();
        let red = start["game"]["color"] == "white";
        let mut stream = Lines::open(addr, &format!("/api/bot/game/stream/{id}"), &token).await;
        let mut state = stream.next().await["state"].clone();
        loop {
            if state["status"] != "started" {
                break;
            }
            let moves = state["moves"].as_str().unwrap().to_owned();
            if (moves.split_whitespace().count() % 2 == 0) == red {
                let path = format!("/api/bot/game/{id}/move/{}", pick_move(&moves));
                bearer_call(addr, "POST", &path, &token, "").await;
            }
            loop {
                let line = stream.next().await;
                if line["type"] == "gameState" {
                    state = line;
                    break;
                }
            }
        }
    }
}

async fn bots_play_an_arena_to_its_end(backend: Backend) {
    let db = fresh_db(backend).await;
    // Ten minutes last 3 s; the games in play at the end are played out.
    let server = Server::start(&db, arena_settings(Duration::from_millis(300))).await;
    let addr = server.addr;
    let scopes = [Scope::ChallengeRead, Scope::BotPlay, Scope::TournamentWrite];
    let mut tokens = Vec::new();
    for name in ["RoboA", "RoboB"] {
        let issued = chuhe_server::store::issue_token(&db.url, name, true, &scopes, "arena bot")
            .await
            .unwrap();
        tokens.push(issued.token);
    }
    let form = "name=Bots&variant=xiangqi&clockTime=5&minutes=10&rated=true";
    let (status, created) = bearer_call(addr, "POST", "/api/tournament", &tokens[0], form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let mut bots = Vec::new();
    for token in &tokens {
        bearer_call(
            addr,
            "POST",
            &format!("/api/tournament/{id}/join"),
            token,
            "",
        )
        .await;
        bots.push(tokio::spawn(bot_plays(addr, token.clone())));
    }
    let began = Instant::now();
    let last = loop {
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "the arena never ended"
        );
        let v = tournament_view(addr, &id).await;
        if v["isFinished"] == true {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for bot in bots {
        bot.abort();
    }
    // The two bots met in every game: as many games each, each scored as its sheet says, and
    // each game's points fit one result (a win beside a loss, or a draw: 0 to 2 each).
    let (a, b) = (sheet(&last, "RoboA"), sheet(&last, "RoboB"));
    assert!(!a.is_empty(), "{last}");
    assert_eq!(a.len(), b.len());
    for name in ["RoboA", "RoboB"] {
        let sum: u64 = sheet(&last, name)
            .chars()
            .map(|c| u64::from(c.to_digit(10).unwrap()))
            .sum();
        assert_eq!(line_of(&last, name)["score"], sum);
    }
    for (x, y) in a.chars().zip(b.chars()) {
        let (x, y) = (x.to_digit(10).unwrap(), y.to_digit(10).unwrap());
        assert!(x == 0 || y == 0 || (x <= 2 && y <= 2), "{a} against {b}");
    }
    assert_eq!(last["podium"].as_array().unwrap().len(), 2);
    // The games were real, rated tables that ended with moves played.
    let (status, _, body) = http(addr, "GET", "/api/games?limit=100", None, None).await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_str(&body).unwrap();
    let games = games["games"].as_array().unwrap();
    assert_eq!(games.len(), a.len());
    assert!(games
        .iter()
        .all(|g| g["options"]["rated"] == true && g["plies"].as_u64().unwrap() > 0));
    server.stop().await;
}

on_both!(bots_play_an_arena_to_its_end);

/// Fourteen quiet plies of xiangqi (no capture, no check): a game long enough for the berserk
/// point (lichess: at least 7 moves).
const FOURTEEN_PLIES: [&str; 14] = [
    "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "a9b9", "a0b0", "c6c5", "c3c4", "g6g5",
    "g3g4", "b7b5",
];

/// The next `gameState` line of a game stream.
async fn next_state(stream: &mut Lines) -> Value {
    loop {
        let line = stream.next().await;
        if line["type"] == "gameState" {
            return line;
        }
    }
}

async fn a_berserk_win_scores_one_more(backend: Backend) {
    let db = fresh_db(backend).await;
    // Ten minutes last 20 s: time for one game.
    let server = Server::start(&db, arena_settings(Duration::from_secs(2))).await;
    let addr = server.addr;
    let tokens = players(&db.url).await;
    let form = "name=Mad&variant=xiangqi&clockTime=3&clockIncrement=2&minutes=10&rated=false&berserkable=true";
    let (status, created) = bearer_call(addr, "POST", "/api/tournament", &tokens[0], form).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["berserkable"], true);
    let id = created["id"].as_str().unwrap().to_owned();
    for token in &tokens[..2] {
        let (status, _) = bearer_call(
            addr,
            "POST",
            &format!("/api/tournament/{id}/join"),
            token,
            "",
        )
        .await;
        assert_eq!(status, 200);
    }
    let paired = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if let Some(duel) = v["duels"].as_array().unwrap().first() {
                return duel.clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let duel = tokio::time::timeout(Duration::from_secs(20), paired)
        .await
        .unwrap();
    let table = duel["id"].as_str().unwrap().to_owned();
    let index = |k: usize| {
        let name = duel["p"][k]["n"].as_str().unwrap();
        NAMES.iter().position(|n| *n == name).unwrap()
    };
    let (red, black) = (tokens[index(0)].clone(), tokens[index(1)].clone());
    let black_name = NAMES[index(1)];
    let red_name = NAMES[index(0)];
    let mut stream = Lines::open(addr, &format!("/api/board/game/stream/{table}"), &black).await;
    let full = stream.next().await;
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(full["state"]["btime"], 180_000);
    assert_eq!(full["state"]["binc"], 2_000);
    assert!(full["state"].get("bberserk").is_none());

    // Black goes berserk: exactly half its time, no increment, and everyone is told.
    let berserk = format!("/api/board/game/{table}/berserk");
    let (status, body) = bearer_call(addr, "POST", &berserk, &black, "").await;
    assert_eq!((status, &body), (200, &serde_json::json!({"ok": true})));
    let state = next_state(&mut stream).await;
    assert_eq!(state["btime"], 90_000, "{state}");
    assert_eq!(state["binc"], 0);
    assert_eq!(state["winc"], 2_000);
    assert_eq!(state["bberserk"], true);
    assert!(state.get("wberserk").is_none());
    let (status, body) = bearer_call(addr, "POST", &berserk, &black, "").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("you have already gone berserk"))
    );

    // Fourteen plies; Red may not go berserk after its first move.
    for (ply, mv) in FOURTEEN_PLIES.iter().enumerate() {
        let token = if ply % 2 == 0 { &red } else { &black };
        let (status, body) = bearer_call(
            addr,
            "POST",
            &format!("/api/board/game/{table}/move/{mv}"),
            token,
            "",
        )
        .await;
        assert_eq!(status, 200, "{mv}: {body}");
        if ply == 0 {
            let (status, body) = bearer_call(
                addr,
                "POST",
                &format!("/api/bot/game/{table}/berserk"),
                &red,
                "",
            )
            .await;
            // a board token has no bot:play scope
            assert_eq!(status, 401, "{body}");
            let (status, body) = bearer_call(addr, "POST", &berserk, &red, "").await;
            assert_eq!(
                (status, body["error"].as_str()),
                (400, Some("berserk is only before your first move"))
            );
        }
    }
    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/board/game/{table}/resign"),
        &red,
        "",
    )
    .await;
    assert_eq!(status, 200);
    let scored = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if !sheet(&v, black_name).is_empty() {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let v = tokio::time::timeout(Duration::from_secs(20), scored)
        .await
        .unwrap();
    // a win is 2, the berserk point makes it 3; the loser has 0
    assert_eq!(sheet(&v, black_name), "3");
    assert_eq!(line_of(&v, black_name)["score"], 3);
    assert_eq!(line_of(&v, black_name)["results"][0]["b"], true);
    assert_eq!(line_of(&v, black_name)["results"][0]["r"], "win");
    assert_eq!(line_of(&v, black_name)["results"][0]["o"], red_name);
    assert_eq!(sheet(&v, red_name), "0");
    assert_eq!(line_of(&v, red_name)["score"], 0);
    // the finished game lists the berserk seat
    let (status, _, body) = http(addr, "GET", "/api/games?limit=10", None, None).await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_str(&body).unwrap();
    let game = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == table.as_str())
        .unwrap()
        .clone();
    assert_eq!(game["berserks"], serde_json::json!([1]));
    assert_eq!(game["options"]["tournament"], id.as_str());
    server.stop().await;
}

on_both!(a_berserk_win_scores_one_more);

/// An account registered over HTTP: (its id, its session cookie).
async fn account(addr: SocketAddr, name: &str) -> (String, String) {
    let body = format!(r#"{{"name":"{name}","password":"sanguo arena"}}"#);
    let (status, head, info) = http(addr, "POST", "/api/accounts", None, Some(&body)).await;
    assert_eq!(status, 200, "{info}");
    let info: Value = serde_json::from_str(&info).unwrap();
    (info["id"].as_str().unwrap().to_owned(), cookie_of(&head))
}

async fn a_sanguo_arena_seats_three(backend: Backend) {
    let db = fresh_db(backend).await;
    // Ten minutes last 100 s: the arena runs through the whole test.
    let server = Server::start(&db, arena_settings(Duration::from_secs(10))).await;
    let addr = server.addr;
    let mut players = Vec::new();
    for name in NAMES {
        players.push(account(addr, name).await);
    }
    let cookie_of_name = |name: &str| {
        let i = NAMES.iter().position(|n| *n == name).unwrap();
        players[i].1.clone()
    };
    let form =
        "name=Three+Kingdoms&variant=sanguo&clockTime=2&clockIncrement=1&minutes=10&rated=false";
    let (status, _, body) = http_with(
        addr,
        "POST",
        "/api/tournament",
        &[
            ("Cookie", &players[0].1),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        Some(form),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["variant"], "sanguo");
    assert_eq!(created["sanguo"], true);
    // No berserk in sanguo, whatever the form says (lichess's default is true).
    assert_eq!(created["berserkable"], false);
    let mut events = Vec::new();
    for (_, cookie) in &players {
        events
            .push(Lines::open_with(addr, "/api/stream/event", &format!("Cookie: {cookie}")).await);
    }
    for (_, cookie) in &players {
        let (status, _, body) = http(
            addr,
            "POST",
            &format!("/api/tournament/{id}/join"),
            Some(cookie),
            Some(""),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    // One table of three; the fourth waits. With equal scores and ratings the rank order is
    // by id: the first three, seated Shu, Wu, Wei (each has played no kingdom yet).
    let paired = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if !v["duels"].as_array().unwrap().is_empty() {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let v = tokio::time::timeout(Duration::from_secs(20), paired)
        .await
        .unwrap();
    assert_eq!(v["isStarted"], true);
    let duels = v["duels"].as_array().unwrap();
    assert_eq!(duels.len(), 1, "{v}");
    let mut by_id: Vec<(String, &str)> = players
        .iter()
        .zip(NAMES)
        .map(|((pid, _), name)| (pid.clone(), name))
        .collect();
    by_id.sort();
    let seated: Vec<&str> = duels[0]["p"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["n"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = by_id[..3].iter().map(|(_, n)| *n).collect();
    assert_eq!(seated, expected);
    let waiting = by_id[3].1;
    assert!(line_of(&v, waiting).get("playing").is_none());
    // A real table of three, seated as paired, the arena's clock.
    let table = duels[0]["id"].as_str().unwrap().to_owned();
    let (status, _, body) = http(addr, "GET", &format!("/api/tables/{table}"), None, None).await;
    assert_eq!(status, 200);
    let t: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(t["options"]["variant"], "sanguo");
    assert_eq!(t["options"]["time"]["initial_ms"], 120_000);
    for k in 0..3 {
        assert_eq!(t["seats"][k]["name"], seated[k]);
    }
    // Wu resigns: Shu and Wei share the win (2 each); Wu lost without being defeated on the
    // board, so it is "second out" (1).
    let wu_cookie = cookie_of_name(seated[1]);
    let mut wu = server.ws(&table, Some(&wu_cookie), None).await;
    wu.state().await;
    wu.send(&chuhe_server::protocol::ClientMessage::Resign {})
        .await;
    let scored = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if !sheet(&v, seated[1]).is_empty() {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let after = tokio::time::timeout(Duration::from_secs(20), scored)
        .await
        .unwrap();
    for (name, points, placing, kingdom) in [
        (seated[0], 2, "shared_win", "shu"),
        (seated[1], 1, "second_out", "wu"),
        (seated[2], 2, "shared_win", "wei"),
    ] {
        let line = line_of(&after, name);
        assert_eq!(line["score"], points, "{name}: {after}");
        assert_eq!(line["sheet"]["scores"], points.to_string());
        let result = &line["results"][0];
        assert_eq!(result["pl"], placing);
        assert_eq!(result["k"], kingdom);
        assert_eq!(result["p"], points);
    }
    let others: Vec<&str> = [seated[1], seated[2]].to_vec();
    assert_eq!(
        line_of(&after, seated[0])["results"][0]["o"],
        others.join(", ")
    );
    assert_eq!(line_of(&after, waiting)["score"], 0);
    // The two winners lead (2 each), then the one who resigned, then the one who waited.
    assert_eq!(line_of(&after, seated[1])["rank"], 3);
    assert_eq!(line_of(&after, waiting)["rank"], 4);
    // Each seated player was told of the game on their event stream, with their kingdom.
    for (k, name) in seated.iter().enumerate() {
        let i = NAMES.iter().position(|n| n == name).unwrap();
        let start = events[i].next().await;
        assert_eq!(start["type"], "gameStart");
        assert_eq!(start["game"]["id"], table.as_str());
        assert_eq!(start["game"]["source"], "arena");
        assert_eq!(start["game"]["tournamentId"], id.as_str());
        assert_eq!(start["game"]["kingdom"], ["shu", "wu", "wei"][k]);
        let others: Vec<&str> = (0..3).filter(|&o| o != k).map(|o| seated[o]).collect();
        assert_eq!(start["game"]["opponents"], serde_json::json!(others));
    }
    // The next wave seats three again, at a new table.
    let again = async {
        loop {
            let v = tournament_view(addr, &id).await;
            if let Some(d) = v["duels"].as_array().unwrap().first() {
                if d["id"] != table.as_str() {
                    return v;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let next = tokio::time::timeout(Duration::from_secs(20), again)
        .await
        .unwrap();
    assert_eq!(next["duels"][0]["p"].as_array().unwrap().len(), 3);
    server.stop().await;
}

on_both!(a_sanguo_arena_seats_three);

/// The operator's schedules: an hourly xiangqi arena created two hours ahead and a daily
/// banqi arena a day ahead.
fn schedules() -> Vec<chuhe_server::site::tournaments::Schedule> {
    use chuhe_server::site::tournaments::{Every, Schedule, ScheduleKind};
    let hourly = Schedule {
        name: "Hourly Blitz".to_owned(),
        kind: ScheduleKind::Arena,
        variant: "xiangqi".to_owned(),
        clock_time: 3.0,
        clock_increment: 2,
        minutes: Some(57),
        rounds: None,
        round_interval: 60,
        rated: true,
        berserkable: true,
        every: Every::Hourly,
        minute: 0,
        hour: 0,
        weekday: None,
        ahead_minutes: 120,
    };
    let daily = Schedule {
        name: "Daily Banqi".to_owned(),
        variant: "banqi".to_owned(),
        clock_time: 5.0,
        clock_increment: 0,
        minutes: Some(60),
        every: Every::Daily,
        minute: 30,
        hour: 20,
        ahead_minutes: 24 * 60,
        ..hourly.clone()
    };
    vec![hourly, daily]
}

/// The created tournaments of the list: (name, id, startsAt), by start.
async fn created(addr: SocketAddr) -> Vec<(String, String, i64)> {
    let (_, _, body) = http(addr, "GET", "/api/tournament", None, None).await;
    let list: Value = serde_json::from_str(&body).unwrap();
    list["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["createdBy"], "chuhe", "{t}");
            (
                t["fullName"].as_str().unwrap().to_owned(),
                t["id"].as_str().unwrap().to_owned(),
                t["startsAt"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn scheduled_tournaments_are_made_once(backend: Backend) {
    let db = fresh_db(backend).await;
    let settings = Settings {
        tournament_schedules: schedules(),
        ..arena_settings(Duration::from_secs(60))
    };
    let server = Server::start(&db, settings.clone()).await;
    let addr = server.addr;
    let three = async {
        loop {
            let list = created(addr).await;
            if list.len() >= 3 {
                return list;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let list = tokio::time::timeout(Duration::from_secs(20), three)
        .await
        .unwrap();
    // Two hourly starts within two hours, on the hour; one daily start at 20:30 UTC.
    let hour = 3_600_000;
    let hourly: Vec<&(String, String, i64)> = list
        .iter()
        .filter(|t| t.0 == "Hourly Blitz Arena")
        .collect();
    assert_eq!(hourly.len(), 2, "{list:?}");
    assert_eq!(hourly[1].2 - hourly[0].2, hour);
    assert_eq!(hourly[0].2 % hour, 0);
    let daily: Vec<&(String, String, i64)> =
        list.iter().filter(|t| t.0 == "Daily Banqi Arena").collect();
    assert_eq!(daily.len(), 1, "{list:?}");
    assert_eq!(daily[0].2 % (24 * hour), 20 * hour + 30 * 60_000);
    for (name, id, starts) in &list {
        let schedule = name.trim_end_matches(" Arena");
        assert_eq!(
            *id,
            chuhe_server::site::tournaments::scheduled_id(schedule, *starts)
        );
    }
    // Its page counts down to the start; anyone may join before it.
    let v = tournament_view(addr, &daily[0].1).await;
    assert_eq!(v["variant"], "banqi");
    assert_eq!(v["clock"]["limit"], 300);
    assert_eq!(v["minutes"], 60);
    assert!(v["secondsToStart"].as_i64().unwrap() > 0, "{v}");
    let tokens = players(&db.url).await;
    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/tournament/{}/join", daily[0].1),
        &tokens[0],
        "",
    )
    .await;
    assert_eq!(status, 200);
    server.stop().await;

    // A restart finds them stored: nothing is made twice, the join is kept.
    let server = Server::start(&db, settings).await;
    let addr = server.addr;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let again = created(addr).await;
    // (an hour turning meanwhile may add the next hourly start, never a second of one)
    for t in &list {
        assert_eq!(again.iter().filter(|a| *a == t).count(), 1, "{again:?}");
    }
    let mut starts: Vec<(&String, i64)> = again.iter().map(|t| (&t.0, t.2)).collect();
    starts.sort();
    starts.dedup();
    assert_eq!(starts.len(), again.len(), "{again:?}");
    assert_eq!(tournament_view(addr, &daily[0].1).await["nbPlayers"], 1);
    server.stop().await;
}

on_both!(scheduled_tournaments_are_made_once);

/// The names in an arena's standings, in their order.
fn standing_names(v: &Value) -> Vec<String> {
    v["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A save whose answer is lost after its commit, and the writer's check of whether it landed
/// fails too (in doubt): Ana's join is answered 503 and the arena in memory does not have
/// her, though the database does. Bo's join, next, is
/// stored over it (at the version after the one in doubt; at the same version the store, which
/// writes a state only over an older one, wrote nothing): after a restart the arena has Bo
/// alone, as the running server had.
async fn a_save_in_doubt_is_stored_over_by_the_next(backend: Backend) {
    let db = fresh_db(backend).await;
    let settings = arena_settings(Duration::from_secs(60));
    let server = Server::start(&db, settings.clone()).await;
    let addr = server.addr;
    let tokens = players(&db.url).await;
    // An hour away: no wave pairs anyone during the test.
    let start = chuhe_server::store::now_ms() + 3_600_000;
    let form =
        format!("name=Doubt&variant=xiangqi&clockTime=1&minutes=10&startDate={start}&rated=false");
    let (status, created) = bearer_call(addr, "POST", "/api/tournament", &tokens[0], &form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let join = format!("/api/tournament/{id}/join");
    server
        .state
        .store()
        .inject_fault(chuhe_server::store::Fault::TournamentAnswerLost, 1);
    server
        .state
        .store()
        .inject_fault(chuhe_server::store::Fault::CheckFails, 1);
    let (status, answer) = bearer_call(addr, "POST", &join, &tokens[0], "").await;
    assert_eq!(status, 503, "{answer}");
    assert_eq!(standing_names(&tournament_view(addr, &id).await), [""; 0]);
    let (status, answer) = bearer_call(addr, "POST", &join, &tokens[1], "").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(standing_names(&tournament_view(addr, &id).await), ["Bo"]);
    server.stop().await;
    let server = Server::start(&db, settings).await;
    let after = tournament_view(server.addr, &id).await;
    assert_eq!(standing_names(&after), ["Bo"], "{after}");
    assert_eq!(after["nbPlayers"], 1);
    server.stop().await;
}

on_both!(a_save_in_doubt_is_stored_over_by_the_next);
