//! `chuhe bot` (spec/cli.md, docs/bots.md), the bridge between a UCI engine and a bot account,
//! against a real `chuhe serve`: `chuhe uci` run by one bridge plays Fairy-Stockfish run by
//! another (ranks 1-10, converted by the bridge) to the end of a xiangqi game; a bridge plays
//! chuhe's own computer on a clock (`go wtime btime winc binc`). Each bridge exits 0 only when
//! the server took every move its engine chose (it refuses illegal ones); the stored game is
//! replayed by chuhe-rules. And the bridge's refusals of bad input (exit status 2).

mod common;

use common::{free_port, http, serve, wait_healthy, Running, TempDir, CHUHE};
use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The token printed on the last line of `chuhe token create --bot`.
fn bot_token(database: &str, name: &str) -> String {
    let out = Command::new(CHUHE)
        .args(["token", "create", "--database", database, "--account", name])
        .arg("--bot")
        .env_remove("CHUHE_DATABASE")
        .env_remove("CHUHE_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().last().unwrap().to_owned()
}

/// Fairy-Stockfish: on PATH, or where Debian installs it (scripts/setup installs it).
fn fairy_stockfish() -> String {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([std::path::PathBuf::from("/usr/games")])
        .map(|dir| dir.join("fairy-stockfish"))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
        .expect("fairy-stockfish is not installed: run scripts/setup")
}

/// `chuhe bot` with `args`, started.
fn bridge(args: &[&str]) -> Running {
    Running(
        Command::new(CHUHE)
            .arg("bot")
            .args(args)
            .env_remove("CHUHE_BOT_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// Waits (at most `limit`) for the bridge to exit: its output.
fn finish(mut running: Running, limit: Duration) -> Output {
    let until = Instant::now() + limit;
    while running.0.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < until,
            "chuhe bot still runs after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut child = std::mem::replace(
        &mut running.0,
        Command::new("true").spawn().unwrap(), // dropped: killed and reaped at once
    );
    let status = child.wait().unwrap();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    use std::io::Read;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status,
        stdout,
        stderr,
    }
}

/// The JSON body of `GET path`.
fn get(port: u16, path: &str) -> Value {
    let answer = http(
        port,
        &format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    );
    let body = answer.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

/// The moves of the finished table `id`, from its stored events, replayed by chuhe-rules from
/// the start (each one legal there); (moves, the game's status after them).
fn replay_stored(port: u16, id: &str) -> (Vec<String>, chuhe_rules::xiangqi::Status) {
    use chuhe_rules::xiangqi::{Game, GameOptions, Position};
    let events = get(port, &format!("/api/tables/{id}/events"));
    let moves: Vec<String> = events
        .as_array()
        .unwrap_or_else(|| panic!("{events}"))
        .iter()
        .filter(|e| e["event"]["kind"] == "moved")
        .map(|e| e["event"]["move"].as_str().unwrap().to_owned())
        .collect();
    let mut game = Game::new(Position::start(), GameOptions::default());
    for m in &moves {
        let mv = m.parse().unwrap();
        assert!(game.legal_moves().contains(&mv), "{m} is not legal there");
        game.play(mv).unwrap();
    }
    (moves, game.status().clone())
}

/// The line of `text` that starts with `prefix`.
fn line_with<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{text}"))
}

/// The game id and its last line (`STATUS, winner COLOR, N moves`) in a bridge's output.
fn game_of(text: &str) -> (String, String) {
    let started = line_with(text, "game ");
    let id = started
        .strip_prefix("game ")
        .and_then(|r| r.split(':').next())
        .unwrap()
        .to_owned();
    let end = text
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("game {id}: ")))
        .next_back()
        .unwrap()
        .to_owned();
    (id, end)
}

#[test]
fn chuhe_uci_plays_fairy_stockfish_through_two_bridges() {
    let dir = TempDir::new("bot-bridge-fsf");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let chuhe_token = bot_token(&database, "ChuheBot");
    let fsf_token = bot_token(&database, "FairyBot");
    let url = format!("http://127.0.0.1:{port}");
    let chuhe_engine = format!("{CHUHE} uci");
    let fsf = fairy_stockfish();
    let waiting = bridge(&[
        "--token",
        &chuhe_token,
        "--engine",
        &chuhe_engine,
        "--server",
        &url,
        "--games",
        "1",
        "--movetime-ms",
        "50",
    ]);
    let challenger = bridge(&[
        "--token",
        &fsf_token,
        "--engine",
        &fsf,
        "--server",
        &url,
        "--games",
        "1",
        "--movetime-ms",
        "50",
        "--challenge",
        "ChuheBot",
        "--color",
        "black",
    ]);
    let a = finish(waiting, Duration::from_secs(600));
    let b = finish(challenger, Duration::from_secs(60));
    let (a_out, b_out) = (
        String::from_utf8_lossy(&a.stdout).into_owned(),
        String::from_utf8_lossy(&b.stdout).into_owned(),
    );
    let report = format!(
        "chuhe's bridge:\n{a_out}{}\nFairy-Stockfish's bridge:\n{b_out}{}",
        String::from_utf8_lossy(&a.stderr),
        String::from_utf8_lossy(&b.stderr)
    );
    assert_eq!(
        (a.status.code(), b.status.code()),
        (Some(0), Some(0)),
        "{report}"
    );
    assert_eq!(
        a_out.lines().next(),
        Some("playing as ChuheBot"),
        "{report}"
    );
    assert_eq!(
        b_out.lines().next(),
        Some("playing as FairyBot"),
        "{report}"
    );
    let challenge = line_with(&b_out, "challenged ChuheBot: challenge ")
        .rsplit(' ')
        .next()
        .unwrap();
    assert_eq!(
        line_with(&a_out, "challenge "),
        format!("challenge {challenge} from FairyBot: accepted")
    );
    let (id, end) = game_of(&a_out);
    assert_eq!(game_of(&b_out), (id.clone(), end.clone()), "{report}");
    // The challenger asked for black: chuhe's engine is Red.
    assert_eq!(
        line_with(&a_out, &format!("game {id}: started")),
        format!("game {id}: started as white against FairyBot")
    );
    assert_eq!(
        line_with(&b_out, &format!("game {id}: started")),
        format!("game {id}: started as black against ChuheBot")
    );
    // The end: a status other than started, and the moves the server stored, each legal.
    let (moves, status) = replay_stored(port, &id);
    let words: Vec<&str> = end.split(", ").collect();
    assert_eq!(words.len(), 3, "{end}");
    assert!(
        ["mate", "stalemate", "draw", "variantEnd", "resign"].contains(&words[0]),
        "{report}"
    );
    assert_eq!(words[2], format!("{} moves", moves.len()), "{report}");
    if words[0] == "mate" {
        let winner = if moves.len() % 2 == 1 {
            "white"
        } else {
            "black"
        };
        assert_eq!(words[1], format!("winner {winner}"));
        assert_eq!(
            status.outcome().map(|o| o.reason),
            Some(chuhe_rules::outcome::EndReason::Checkmate)
        );
    }
    let summary = get(port, &format!("/api/tables/{id}"));
    assert_eq!(summary["phase"], "ended", "{summary}");
}

#[test]
fn a_bridge_plays_chuhes_computer_on_a_clock() {
    let dir = TempDir::new("bot-bridge-ai");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let token = bot_token(&database, "Clocked");
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} uci");
    let running = bridge(&[
        "--token",
        &token,
        "--engine",
        &engine,
        "--server",
        &url,
        "--games",
        "1",
        "--ai",
        "1",
        "--clock-limit",
        "15",
        "--clock-increment",
        "0",
        "--color",
        "white",
    ]);
    let out = finish(running, Duration::from_secs(300));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{report}");
    let (id, end) = game_of(&text);
    assert_eq!(
        line_with(&text, &format!("game {id}: started")),
        format!("game {id}: started as white against chuhe level 1")
    );
    let (moves, _) = replay_stored(port, &id);
    let words: Vec<&str> = end.split(", ").collect();
    assert_eq!(words.len(), 3, "{end}");
    assert_ne!(words[0], "started");
    assert_eq!(words[2], format!("{} moves", moves.len()), "{report}");
}

/// The moves of the table `id` as its stored `moved` events give them.
fn stored_moves(port: u16, id: &str) -> Vec<String> {
    let events = get(port, &format!("/api/tables/{id}/events"));
    events
        .as_array()
        .unwrap_or_else(|| panic!("{events}"))
        .iter()
        .filter(|e| e["event"]["kind"] == "moved")
        .map(|e| e["event"]["move"].as_str().unwrap().to_owned())
        .collect()
}

/// The words of a game's end line (`variantEnd, winner white, 143 moves`). A bridge that
/// exits 0 had every move it posted taken (a refused move makes it resign and exit 1).
fn end_words(end: &str) -> Vec<String> {
    end.split(", ").map(str::to_owned).collect()
}

#[test]
fn two_chuhe_play_bridges_play_banqi_to_the_end() {
    let dir = TempDir::new("bot-bridge-banqi");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let a_token = bot_token(&database, "FlipA");
    let b_token = bot_token(&database, "FlipB");
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} play --variant banqi --seed 7");
    let waiting = bridge(&[
        "--token",
        &a_token,
        "--engine",
        &engine,
        "--variant",
        "banqi",
        "--server",
        &url,
        "--games",
        "1",
        "--movetime-ms",
        "30",
    ]);
    let challenger = bridge(&[
        "--token",
        &b_token,
        "--engine",
        &engine,
        "--protocol",
        "play",
        "--variant",
        "banqi",
        "--server",
        &url,
        "--games",
        "1",
        "--movetime-ms",
        "30",
        "--challenge",
        "FlipA",
        "--color",
        "white",
    ]);
    let a = finish(waiting, Duration::from_secs(600));
    let b = finish(challenger, Duration::from_secs(60));
    let (a_out, b_out) = (
        String::from_utf8_lossy(&a.stdout).into_owned(),
        String::from_utf8_lossy(&b.stdout).into_owned(),
    );
    let report = format!(
        "FlipA:\n{a_out}{}\nFlipB:\n{b_out}{}",
        String::from_utf8_lossy(&a.stderr),
        String::from_utf8_lossy(&b.stderr)
    );
    // Exit 0: the server took every move either engine chose.
    assert_eq!(
        (a.status.code(), b.status.code()),
        (Some(0), Some(0)),
        "{report}"
    );
    let challenge = line_with(&b_out, "challenged FlipA: challenge ")
        .rsplit(' ')
        .next()
        .unwrap();
    assert_eq!(
        line_with(&a_out, "challenge "),
        format!("challenge {challenge} from FlipB: accepted")
    );
    let (id, end) = game_of(&a_out);
    assert_eq!(game_of(&b_out), (id.clone(), end.clone()), "{report}");
    assert_eq!(
        line_with(&b_out, &format!("game {id}: started")),
        format!("game {id}: started as white against FlipA")
    );
    // The stored records replay from the all-face-down start, each one legal in turn.
    use chuhe_rules::banqi::{Record, View};
    let moves = stored_moves(port, &id);
    assert!(!moves.is_empty(), "{report}");
    let mut view = View::start();
    for m in &moves {
        let record: Record = m.parse().unwrap_or_else(|e| panic!("{m}: {e:?}"));
        view.play_recorded(record)
            .unwrap_or_else(|e| panic!("{m} is not legal there: {e:?}\n{report}"));
    }
    // The first move of the first seat is a flip.
    assert!(moves[0].contains('='), "{moves:?}");
    let words = end_words(&end);
    assert_eq!(words.len(), 3, "{end}");
    assert!(
        ["variantEnd", "draw", "resign"].contains(&words[0].as_str()),
        "{report}"
    );
    assert_eq!(words[2], format!("{} moves", moves.len()), "{report}");
    if words[0] == "variantEnd" {
        // a side lost all its pieces or its last move: the rules agree that the game ended
        assert!(view.verdict().is_some(), "{report}");
    }
    let summary = get(port, &format!("/api/tables/{id}"));
    assert_eq!(summary["phase"], "ended", "{summary}");
}

#[test]
fn a_chuhe_play_bridge_plays_sanguo_against_the_computer() {
    let dir = TempDir::new("bot-bridge-sanguo");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let token = bot_token(&database, "Kingdom");
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} play --variant sanguo");
    let running = bridge(&[
        "--token",
        &token,
        "--engine",
        &engine,
        "--variant",
        "sanguo",
        "--server",
        &url,
        "--games",
        "1",
        "--ai",
        "1",
        "--color",
        "wu",
        "--movetime-ms",
        "50",
    ]);
    let out = finish(running, Duration::from_secs(900));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = format!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{report}");
    let (id, end) = game_of(&text);
    assert_eq!(
        line_with(&text, &format!("game {id}: started")),
        format!("game {id}: started as wu against chuhe level 1")
    );
    // The stored moves replay from sanguo's start (flag bearers on, the table's default).
    use chuhe_rules::sanguo::{Game, Position};
    let moves = stored_moves(port, &id);
    assert!(moves.len() >= 3, "{report}");
    let mut game = Game::new(Position::start(true));
    for m in &moves {
        let mv = m.parse().unwrap_or_else(|e| panic!("{m}: {e:?}"));
        game.play(mv)
            .unwrap_or_else(|e| panic!("{m} is not legal there: {e:?}\n{report}"));
    }
    let words = end_words(&end);
    assert_eq!(words.len(), 3, "{end}");
    assert!(
        ["variantEnd", "draw"].contains(&words[0].as_str()),
        "{report}"
    );
    if words[0] == "variantEnd" {
        // kingdoms fell until the rules say the game is over
        assert!(!game.is_ongoing(), "{report}");
    }
    assert_eq!(words[2], format!("{} moves", moves.len()), "{report}");
}

#[test]
fn bad_input_is_refused_with_status_2() {
    let run = |args: &[&str]| {
        let out = Command::new(CHUHE)
            .arg("bot")
            .args(args)
            .env_remove("CHUHE_BOT_TOKEN")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        )
    };
    assert_eq!(
        run(&["--token", "t", "--engine", "x", "--server", "ftp://h"]),
        (
            Some(2),
            "chuhe: bad --server \"ftp://h\": expected the server's address as http://HOST:PORT"
                .to_owned()
        )
    );
    assert_eq!(
        run(&["--token", "t", "--engine", "x", "--uci-option", "Threads"]),
        (
            Some(2),
            "chuhe: --uci-option \"Threads\": NAME=VALUE, such as Threads=1".to_owned()
        )
    );
    assert_eq!(
        run(&["--token", "t", "--engine", "x", "--clock-increment", "2"]),
        (
            Some(2),
            "chuhe: --clock-increment needs --clock-limit".to_owned()
        )
    );
    // A server that knows no such token.
    let dir = TempDir::new("bot-bridge-bad");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let url = format!("http://127.0.0.1:{port}");
    assert_eq!(
        run(&["--token", "lip_nosuch", "--engine", "x", "--server", &url]),
        (
            Some(2),
            "chuhe: the server refused the token: http 401 No such token".to_owned()
        )
    );
    // An engine that does not speak UCI.
    let token = bot_token(&database, "Mute");
    assert_eq!(
        run(&["--token", &token, "--engine", "true", "--server", &url]),
        (
            Some(2),
            "chuhe: the engine exited while chuhe waited for uciok".to_owned()
        )
    );
    // A UCI engine plays xiangqi only; chuhe play is told apart by its answer to uci.
    let uci = format!("{CHUHE} uci");
    assert_eq!(
        run(&[
            "--token",
            &token,
            "--engine",
            &uci,
            "--server",
            &url,
            "--variant",
            "banqi"
        ]),
        (
            Some(2),
            "chuhe: the engine speaks UCI, which plays xiangqi only: play banqi with chuhe \
             play (--engine \"chuhe play --variant banqi\")"
                .to_owned()
        )
    );
    // Sanguo is played against the computer only; a kingdom is a sanguo colour.
    assert_eq!(
        run(&[
            "--token",
            "t",
            "--engine",
            "x",
            "--variant",
            "sanguo",
            "--challenge",
            "Bob"
        ]),
        (
            Some(2),
            "chuhe: sanguo has three seats: there are no sanguo challenges between accounts; \
             play the computer with --ai LEVEL"
                .to_owned()
        )
    );
    assert_eq!(
        run(&[
            "--token",
            "t",
            "--engine",
            "x",
            "--variant",
            "banqi",
            "--color",
            "wu"
        ]),
        (
            Some(2),
            "chuhe: --color wu: white, black or random (shu, wu and wei are sanguo's)".to_owned()
        )
    );
}

/// The server is killed (SIGKILL) while a bridge plays chuhe's computer and started again on the
/// same database and port: the bridge opens its streams again, the game goes on from the stored
/// moves and ends with a result.
#[test]
fn a_bridge_carries_its_game_across_a_server_restart() {
    use std::io::BufRead;
    let dir = TempDir::new("bot-bridge-restart");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let log = dir.0.join("serve.log");
    let mut server = Running(serve(&database, port, &log));
    wait_healthy(port, &mut server.0);
    let token = bot_token(&database, "Survivor");
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} uci");
    let mut running = bridge(&[
        "--token",
        &token,
        "--engine",
        &engine,
        "--server",
        &url,
        "--games",
        "1",
        "--ai",
        "1",
        "--movetime-ms",
        "200",
        "--color",
        "white",
    ]);
    let stdout = running.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut lines = Vec::new();
    let started = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the game starts within 60 s");
        lines.push(line.clone());
        if line.starts_with("game ") && line.contains(": started as white") {
            break line;
        }
    };
    let id = started
        .strip_prefix("game ")
        .and_then(|r| r.split(':').next())
        .unwrap()
        .to_owned();
    std::thread::sleep(Duration::from_secs(3));
    let before = replay_stored(port, &id).0.len();
    let _ = server.0.kill();
    let _ = server.0.wait();
    server = Running(serve(&database, port, &log));
    wait_healthy(port, &mut server.0);
    // the rest of the bridge's lines, until it exits
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(240)) {
        lines.push(line);
    }
    let status = running.0.wait().unwrap();
    let text = lines.join("\n");
    assert_eq!(status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("game {id}: lost (")),
        "no reconnection: {text}"
    );
    let end = text
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("game {id}: ")))
        .next_back()
        .unwrap();
    let (moves, _) = replay_stored(port, &id);
    assert!(
        before >= 1 && moves.len() > before,
        "{before} then {moves:?}"
    );
    let words: Vec<&str> = end.split(", ").collect();
    assert_eq!(words.len(), 3, "{text}");
    assert_eq!(words[2], format!("{} moves", moves.len()), "{text}");
}

/// A POST with `Authorization: Bearer` and a form body: the whole answer.
fn post_form(port: u16, path: &str, token: &str, form: &str) -> String {
    http(
        port,
        &format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        ),
    )
}

/// The next JSON line of an NDJSON answer read from `reader` (keep-alives skipped).
fn next_line(reader: &mut impl std::io::BufRead) -> Value {
    loop {
        let mut text = String::new();
        assert!(reader.read_line(&mut text).unwrap() > 0, "the stream ended");
        if !text.trim().is_empty() {
            return serde_json::from_str(text.trim()).unwrap();
        }
    }
}

/// A bridge declines a banqi challenge with lichess's reason `variant`, accepts a xiangqi one,
/// and ends when its game is aborted by the other side before any move.
#[test]
fn a_bridge_declines_other_variants_and_accepts_xiangqi() {
    use std::io::{BufRead, BufReader, Write};
    let dir = TempDir::new("bot-bridge-decline");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let bridged = bot_token(&database, "Picky");
    let other = bot_token(&database, "Asker");
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} uci");
    let running = bridge(&[
        "--token", &bridged, "--engine", &engine, "--server", &url, "--games", "1",
    ]);
    // the other bot's event stream
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        socket,
        "GET /api/stream/event HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer {other}\r\n\r\n"
    )
    .unwrap();
    let mut events = BufReader::new(socket);
    loop {
        let mut head = String::new();
        events.read_line(&mut head).unwrap();
        if head == "\r\n" {
            break;
        }
    }
    let answer = post_form(port, "/api/challenge/Picky", &other, "variant=banqi");
    assert_eq!(answer.split(' ').nth(1), Some("200"), "{answer}");
    let declined = loop {
        let line = next_line(&mut events);
        if line["type"] == "challengeDeclined" {
            break line;
        }
    };
    assert_eq!(declined["challenge"]["variant"]["key"], "banqi");
    assert_eq!(declined["challenge"]["declineReasonKey"], "variant");
    let answer = post_form(port, "/api/challenge/Picky", &other, "variant=xiangqi");
    assert_eq!(answer.split(' ').nth(1), Some("200"), "{answer}");
    let start = loop {
        let line = next_line(&mut events);
        if line["type"] == "gameStart" {
            break line;
        }
    };
    let id = start["game"]["gameId"].as_str().unwrap().to_owned();
    // the other side opens its game stream (the game starts once both have), then resigns
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        socket,
        "GET /api/bot/game/stream/{id} HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer {other}\r\n\r\n"
    )
    .unwrap();
    let mut game = BufReader::new(socket);
    loop {
        let mut head = String::new();
        game.read_line(&mut head).unwrap();
        if head == "\r\n" {
            break;
        }
    }
    let full = next_line(&mut game);
    assert_eq!(full["type"], "gameFull");
    let mut state = full["state"].clone();
    while state["status"] != "started" {
        state = next_line(&mut game);
    }
    let answer = post_form(port, &format!("/api/bot/game/{id}/resign"), &other, "");
    assert!(answer.ends_with(r#"{"ok":true}"#), "{answer}");
    let out = finish(running, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[0], "playing as Picky");
    assert!(
        lines[1].starts_with("challenge ") && lines[1].ends_with(" from Asker: declined (variant)"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("challenge ") && lines[2].ends_with(" from Asker: accepted"),
        "{text}"
    );
    assert_eq!(
        lines[3],
        format!(
            "game {id}: started as {} against Asker",
            start["game"]["color"]
                .as_str()
                .map(|c| if c == "white" { "black" } else { "white" })
                .unwrap()
        )
    );
    let mine = if start["game"]["color"] == "white" {
        "black"
    } else {
        "white"
    };
    assert_eq!(
        lines[3],
        format!("game {id}: started as {mine} against Asker")
    );
    assert!(
        lines[4].starts_with(&format!("game {id}: resign, winner {mine}, ")),
        "{text}"
    );
}

/// A bridge whose challenge is declined says so and exits 1 (the game it waits for will not
/// come).
#[test]
fn a_bridge_whose_challenge_is_declined_exits_1() {
    use std::io::{BufRead, BufReader, Write};
    let dir = TempDir::new("bot-bridge-declined");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let port = free_port();
    let mut server = Running(serve(&database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let bridged = bot_token(&database, "Eager");
    let other = bot_token(&database, "Busy");
    // the other bot's event stream, open before the challenge comes
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        socket,
        "GET /api/stream/event HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer {other}\r\n\r\n"
    )
    .unwrap();
    let mut events = BufReader::new(socket);
    loop {
        let mut head = String::new();
        events.read_line(&mut head).unwrap();
        if head == "\r\n" {
            break;
        }
    }
    let url = format!("http://127.0.0.1:{port}");
    let engine = format!("{CHUHE} uci");
    let running = bridge(&[
        "--token",
        &bridged,
        "--engine",
        &engine,
        "--server",
        &url,
        "--games",
        "1",
        "--challenge",
        "Busy",
    ]);
    let challenge = loop {
        let line = next_line(&mut events);
        if line["type"] == "challenge" {
            break line;
        }
    };
    let id = challenge["challenge"]["id"].as_str().unwrap().to_owned();
    let answer = post_form(
        port,
        &format!("/api/challenge/{id}/decline"),
        &other,
        "reason=later",
    );
    assert!(answer.ends_with(r#"{"ok":true}"#), "{answer}");
    let out = finish(running, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text,
        format!("playing as Eager\nchallenged Busy: challenge {id}\nchallenge {id} to Busy: declined (later)\n")
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("chuhe: challenge {id} to Busy: declined (later)\n")
    );
}
