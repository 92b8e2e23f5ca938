//! Swiss events over the API (`docs/tournaments.md`, `docs/protocol.md` "Swiss"), on SQLite and
//! PostgreSQL. Four accounts play three rounds in which Red wins every game (Black resigns):
//! the pairings are the Dutch system's (round 1: 1–3 and 4–2 by pairing number, here the
//! players' ids since their ratings are equal), every round starts when the last one ended and
//! the round interval passed, each game is announced as `gameStart` with `source: "swiss"`,
//! the standings carry points, Sonneborn-Berger (`tieBreak`) and Buchholz, a late join is
//! refused after half the rounds, and the event finishes after its last round. A second
//! scenario stops the server in the middle of a round: the game in play keeps its table, a
//! late player joins (½ for round 1), a player withdraws, and the next round gives the bye.

#[macro_use]
mod common;

use chuhe_server::accounts::tokens::Scope;
use chuhe_server::Settings;
use common::*;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const NAMES: [&str; 5] = ["Ana", "Bo", "Cai", "Dee", "Eve"];

fn swiss_settings(minute: Duration) -> Settings {
    Settings {
        tournament_wave: Duration::from_millis(100),
        tournament_minute: minute,
        ..fast_settings()
    }
}

async fn view(addr: SocketAddr, id: &str) -> Value {
    let (status, _, body) = http(addr, "GET", &format!("/api/swiss/{id}"), None, None).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The players: (id, name, token), sorted by id (their pairing numbers, ratings being equal).
async fn players(url: &str, n: usize) -> Vec<(String, &'static str, String)> {
    let scopes = [
        Scope::ChallengeRead,
        Scope::BoardPlay,
        Scope::TournamentWrite,
    ];
    let mut out = Vec::new();
    for name in &NAMES[..n] {
        let issued = chuhe_server::store::issue_token(url, name, false, &scopes, "swiss test")
            .await
            .unwrap();
        out.push((issued.player_id.clone(), *name, issued.token));
    }
    out.sort();
    out
}

/// The games of round `round`: (red name, black name, table), board 1 first.
fn round_games(v: &Value, round: usize) -> Vec<(String, String, String)> {
    v["rounds"][round - 1]["games"]
        .as_array()
        .unwrap_or_else(|| panic!("round {round}: {v}"))
        .iter()
        .map(|g| {
            (
                g["red"]["name"].as_str().unwrap().to_owned(),
                g["black"]["name"].as_str().unwrap().to_owned(),
                g["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn line_of<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in the standings: {v}"))
}

/// Waits until round `round` is paired and answers the view.
async fn paired(addr: SocketAddr, id: &str, round: u64) -> Value {
    let wait = async {
        loop {
            let v = view(addr, id).await;
            if v["round"] == round {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("round {round} was never paired"))
}

/// Black resigns at `table` (Red wins).
async fn black_resigns(addr: SocketAddr, table: &str, token: &str) {
    let (status, body) = bearer_call(
        addr,
        "POST",
        &format!("/api/board/game/{table}/resign"),
        token,
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

fn token_of<'a>(players: &'a [(String, &'static str, String)], name: &str) -> &'a str {
    &players.iter().find(|p| p.1 == name).unwrap().2
}

/// The first JSON line of an NDJSON stream (skipping keep-alives).
struct Lines(BufReader<TcpStream>);

impl Lines {
    async fn open(addr: SocketAddr, path: &str, token: &str) -> Lines {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request =
            format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
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

async fn a_swiss_event_runs_to_its_end(backend: Backend) {
    let db = fresh_db(backend).await;
    // A minute lasts 600 ms: a round interval of 10 s lasts 100 ms.
    let server = Server::start(&db, swiss_settings(Duration::from_millis(600))).await;
    let addr = server.addr;
    let players = players(&db.url, 5).await;
    // Four play; the fifth (by id) tries to join late.
    let (late, four) = (players[4].clone(), &players[..4]);
    let p: Vec<&str> = four.iter().map(|x| x.1).collect();
    let token = four[0].2.clone();

    // Refusals, with lichess's field names.
    for (form, why) in [
        ("clock.limit=180&nbRounds=2", "nbRounds: 3 to 100"),
        ("nbRounds=3", "clock.limit: missing"),
        (
            "clock.limit=180&nbRounds=3&variant=sanguo",
            "variant: a Swiss event is of xiangqi or banqi",
        ),
        (
            "clock.limit=10&nbRounds=3",
            "clock.limit: 15 to 3600 seconds",
        ),
        (
            "clock.limit=180&nbRounds=3&roundInterval=-1",
            "roundInterval: 0 to 604800 seconds",
        ),
    ] {
        let (status, err) = bearer_call(addr, "POST", "/api/swiss/new", &token, form).await;
        assert_eq!((status, err["error"].as_str()), (400, Some(why)), "{form}");
    }

    let start = chuhe_server::store::now_ms() + 1000;
    let form = format!(
        "name=Test+Swiss&variant=xiangqi&clock.limit=180&clock.increment=2&nbRounds=3&startsAt={start}&roundInterval=10&rated=false"
    );
    let (status, created) = bearer_call(addr, "POST", "/api/swiss/new", &token, &form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["system"], "swiss");
    assert_eq!(created["name"], "Test Swiss");
    assert_eq!(created["status"], "created");
    assert_eq!(created["round"], 0);
    assert_eq!(created["nbRounds"], 3);
    assert_eq!(created["roundInterval"], 10);
    assert_eq!(created["clock"], json!({"limit": 180, "increment": 2}));
    assert_eq!(created["nbPlayers"], 0);
    // A Swiss id is not an arena's, and the other way round.
    let (status, _, _) = http(addr, "GET", &format!("/api/tournament/{id}"), None, None).await;
    assert_eq!(status, 404);
    let (_, _, list) = http(addr, "GET", "/api/swiss", None, None).await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["created"][0]["id"], id.as_str());
    let (_, _, list) = http(addr, "GET", "/api/tournament", None, None).await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["created"][0]["system"], "swiss");

    let mut first_events = Lines::open(addr, "/api/stream/event", &four[0].2).await;
    for (_, _, t) in four {
        let (status, ok) = bearer_call(addr, "POST", &format!("/api/swiss/{id}/join"), t, "").await;
        assert_eq!((status, ok), (200, json!({"ok": true})));
    }
    let (status, err) = bearer_call(
        addr,
        "POST",
        &format!("/api/swiss/{id}/withdraw"),
        &late.2,
        "",
    )
    .await;
    assert_eq!(
        (status, err["error"].as_str()),
        (409, Some("you have not joined this tournament"))
    );

    // Round 1 (pairing numbers 1-4 by id): 1–3 and 4–2.
    let v = paired(addr, &id, 1).await;
    assert_eq!(v["status"], "started");
    let r1 = round_games(&v, 1);
    let pairs = |games: &[(String, String, String)]| -> Vec<(String, String)> {
        games.iter().map(|g| (g.0.clone(), g.1.clone())).collect()
    };
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(pairs(&r1), [pair(p[0], p[2]), pair(p[3], p[1])]);
    assert_eq!(v["nbOngoing"], 2);
    // The tables are real, seated as paired.
    let (status, _, body) =
        http(addr, "GET", &format!("/api/tables/{}", r1[0].2), None, None).await;
    assert_eq!(status, 200);
    let t: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(t["seats"][0]["name"], p[0]);
    assert_eq!(t["seats"][1]["name"], p[2]);
    assert_eq!(t["options"]["time"]["initial_ms"], 180_000);
    let start = first_events.next().await;
    assert_eq!(start["type"], "gameStart");
    assert_eq!(start["game"]["id"], r1[0].2.as_str());
    assert_eq!(start["game"]["source"], "swiss");
    assert_eq!(start["game"]["swissId"], id.as_str());
    assert_eq!(start["game"]["color"], "white");

    // Red wins every game. Round 2: the winners meet (4 Red, 1 Black), and the losers (2
    // Red, 3 Black).
    let mut v = v;
    let expected_rounds = [
        vec![pair(p[3], p[0]), pair(p[1], p[2])],
        // Round 3: no rematch; the one on 2 points floats down to the one on 0.
        vec![pair(p[0], p[1]), pair(p[2], p[3])],
    ];
    for round in 1..=3usize {
        let games = round_games(&v, round);
        if round > 1 {
            let mut got = pairs(&games);
            got.sort();
            let mut want = expected_rounds[round - 2].clone();
            want.sort();
            assert_eq!(got, want, "round {round}: {v}");
        }
        // Two of three rounds paired: more than half, no late join any more.
        if round == 2 {
            let (status, err) =
                bearer_call(addr, "POST", &format!("/api/swiss/{id}/join"), &late.2, "").await;
            assert_eq!(
                (status, err["error"].as_str()),
                (409, Some("more than half the rounds have started"))
            );
        }
        for (_, black, table) in &games {
            black_resigns(addr, table, token_of(four, black)).await;
        }
        if round < 3 {
            v = paired(addr, &id, round as u64 + 1).await;
            // Every game of the last round has its result.
            for g in v["rounds"][round - 1]["games"].as_array().unwrap() {
                assert_eq!(g["result"], "1-0");
            }
        }
    }
    let finished = async {
        loop {
            let v = view(addr, &id).await;
            if v["isFinished"] == true {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    };
    let last = tokio::time::timeout(Duration::from_secs(30), finished)
        .await
        .unwrap();
    assert_eq!(last["status"], "finished");
    assert_eq!(last["round"], 3);
    assert_eq!(last["nbOngoing"], 0);
    // 4 beat 2 and 1, lost to 3: 2 points, SB 1 + 2 = 3, Buchholz 1 + 2 + 1 = 4.
    // 1 beat 3 and 2, lost to 4: 2 points, SB 1 + 1 = 2, Buchholz 4.
    // 3 beat 4: 1 point, SB 2, Buchholz 2 + 1 + 2 = 5; 2 beat 3: 1 point, SB 1, Buchholz 5.
    let standing: Vec<(String, f64, f64, f64, u64)> = last["standing"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_owned(),
                l["points"].as_f64().unwrap(),
                l["tieBreak"].as_f64().unwrap(),
                l["buchholz"].as_f64().unwrap(),
                l["rank"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        standing,
        [
            (p[3].to_owned(), 2.0, 3.0, 4.0, 1),
            (p[0].to_owned(), 2.0, 2.0, 4.0, 2),
            (p[2].to_owned(), 1.0, 2.0, 5.0, 3),
            (p[1].to_owned(), 1.0, 1.0, 5.0, 4),
        ]
    );
    // Each sheet: one game a round, with the opponent, colour and result.
    let sheet = &line_of(&last, p[0])["sheet"];
    assert_eq!(
        (
            &sheet[0]["o"],
            &sheet[0]["c"],
            &sheet[0]["r"],
            &sheet[1]["r"],
            &sheet[2]["c"]
        ),
        (
            &json!(p[2]),
            &json!("red"),
            &json!("win"),
            &json!("loss"),
            &json!("red")
        )
    );
    assert_eq!(last["podium"][0]["name"], p[3]);
    let (_, _, list) = http(addr, "GET", "/api/swiss", None, None).await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["finished"][0]["id"], id.as_str());
    assert_eq!(list["finished"][0]["winner"]["name"], p[3]);
    let (status, _) =
        bearer_call(addr, "POST", &format!("/api/swiss/{id}/join"), &late.2, "").await;
    assert_eq!(status, 404);
    // The six games as PGN, round by round: Red won each (Black resigned).
    let (status, _, pgn) = http(
        addr,
        "GET",
        &format!("/api/swiss/{id}/games?notation=iccs"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200, "{pgn}");
    assert_eq!(pgn.matches("[Result \"1-0\"]").count(), 6, "{pgn}");
    let first_table = &round_games(&last, 1)[0].2;
    assert!(
        pgn.find(first_table.as_str()) < pgn.find(round_games(&last, 3)[0].2.as_str()),
        "{pgn}"
    );
    let (status, _, body) = http(
        addr,
        "GET",
        &format!("/api/swiss/{id}/games?notation=san"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 400, "{body}");
    // lichess's results export: one NDJSON line a player, in the standings' order, with the
    // performance (equal ratings r: two wins and a loss make r + 166, a win and two losses
    // r − 167, rounded down).
    let (status, head, body) =
        http(addr, "GET", &format!("/api/swiss/{id}/results"), None, None).await;
    assert_eq!(status, 200, "{body}");
    assert!(head.contains("application/x-ndjson"), "{head}");
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let r = lines[0]["rating"].as_i64().unwrap();
    assert_eq!(
        lines,
        [
            json!({"rank": 1, "points": 2.0, "tieBreak": 3.0, "rating": r, "username": p[3], "performance": r + 166}),
            json!({"rank": 2, "points": 2.0, "tieBreak": 2.0, "rating": r, "username": p[0], "performance": r + 166}),
            json!({"rank": 3, "points": 1.0, "tieBreak": 2.0, "rating": r, "username": p[2], "performance": r - 167}),
            json!({"rank": 4, "points": 1.0, "tieBreak": 1.0, "rating": r, "username": p[1], "performance": r - 167}),
        ]
    );
    let (status, _, body) = http(
        addr,
        "GET",
        &format!("/api/swiss/{id}/results?nb=2"),
        None,
        None,
    )
    .await;
    assert_eq!((status, body.lines().count()), (200, 2), "{body}");
    // An arena's id is not a Swiss event's.
    let (status, _, _) = http(addr, "GET", "/api/swiss/nosuchid/results", None, None).await;
    assert_eq!(status, 404);
    server.stop().await;
}

on_both!(a_swiss_event_runs_to_its_end);

async fn a_restart_in_the_middle_of_a_round(backend: Backend) {
    let db = fresh_db(backend).await;
    // A minute lasts 6 s: a round interval of 20 s lasts 2 s.
    let settings = swiss_settings(Duration::from_secs(6));
    let server = Server::start(&db, settings.clone()).await;
    let addr = server.addr;
    let players = players(&db.url, 4).await;
    // Three start; the fourth (by id) joins late.
    let p: Vec<&str> = players.iter().map(|x| x.1).collect();
    let (late, token) = (players[3].2.clone(), players[0].2.clone());
    let form = "name=Restart&variant=banqi&clock.limit=120&nbRounds=4&roundInterval=20&rated=false";
    let (status, created) = bearer_call(addr, "POST", "/api/swiss/new", &token, form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    for (_, _, t) in &players[..3] {
        bearer_call(addr, "POST", &format!("/api/swiss/{id}/join"), t, "").await;
    }
    // Round 1 of three: 1–2, and the bye to the lowest ranked, 3 (1 point).
    let v = paired(addr, &id, 1).await;
    let r1 = round_games(&v, 1);
    assert_eq!((r1[0].0.as_str(), r1[0].1.as_str()), (p[0], p[1]), "{v}");
    assert_eq!(v["rounds"][0]["bye"], p[2]);
    assert_eq!(line_of(&v, p[2])["points"], 1.0);
    assert_eq!(line_of(&v, p[2])["sheet"][0]["kind"], "bye");
    assert_eq!(line_of(&v, p[0])["playing"], r1[0].2.as_str());
    server.stop().await;

    // Back in the middle of round 1: the game in play keeps its table.
    let server = Server::start(&db, settings).await;
    let addr = server.addr;
    let v = view(addr, &id).await;
    assert_eq!(
        (v["status"].as_str(), v["round"].as_u64()),
        (Some("started"), Some(1))
    );
    assert_eq!(v["nbOngoing"], 1);
    assert_eq!(round_games(&v, 1), r1);
    let (status, _, _) = http(addr, "GET", &format!("/api/tables/{}", r1[0].2), None, None).await;
    assert_eq!(status, 200);
    // A late join (½ for round 1), and a withdrawal (the game in play still counts).
    let (status, _) = bearer_call(addr, "POST", &format!("/api/swiss/{id}/join"), &late, "").await;
    assert_eq!(status, 200);
    let (status, _) = bearer_call(
        addr,
        "POST",
        &format!("/api/swiss/{id}/withdraw"),
        &players[1].2,
        "",
    )
    .await;
    assert_eq!(status, 200);
    let v = view(addr, &id).await;
    assert_eq!(line_of(&v, p[3])["sheet"][0]["kind"], "late");
    assert_eq!(line_of(&v, p[3])["points"], 0.5);
    assert_eq!(line_of(&v, p[1])["withdraw"], true);
    assert_eq!(v["nextRound"], Value::Null);
    black_resigns(addr, &r1[0].2, &players[1].2).await;
    // Round 2 after the interval: 1 (1 point) meets 3 (1, the bye); 4 (½) is the lowest
    // ranked of those without a bye: the bye. 2 withdrew: absent, 0.
    let v = paired(addr, &id, 2).await;
    let r2 = round_games(&v, 2);
    assert_eq!(r2.len(), 1, "{v}");
    assert_eq!((r2[0].0.as_str(), r2[0].1.as_str()), (p[2], p[0]), "{v}");
    assert_eq!(v["rounds"][1]["bye"], p[3]);
    assert_eq!(v["rounds"][0]["games"][0]["result"], "1-0");
    assert_eq!(line_of(&v, p[1])["sheet"][1]["kind"], "absent");
    assert_eq!(line_of(&v, p[3])["points"], 1.5);
    assert_eq!(line_of(&v, p[0])["points"], 1.0);
    assert_eq!(line_of(&v, p[1])["points"], 0.0);
    // The results so far: the withdrawn player is `absent`; a player without a result over
    // the board (4: a late join and a bye) has no performance.
    let (status, _, body) =
        http(addr, "GET", &format!("/api/swiss/{id}/results"), None, None).await;
    assert_eq!(status, 200, "{body}");
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{body}");
    let of = |name: &str| lines.iter().find(|l| l["username"] == name).unwrap();
    assert_eq!(of(p[1])["absent"], true);
    assert_eq!(of(p[1])["points"], 0.0);
    assert_eq!(of(p[3])["performance"], Value::Null);
    assert_eq!(of(p[3])["absent"], Value::Null);
    assert_eq!(of(p[3])["points"], 1.5);
    server.stop().await;
}

on_both!(a_restart_in_the_middle_of_a_round);
