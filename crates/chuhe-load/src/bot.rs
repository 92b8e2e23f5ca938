//! `chuhe bot`: a bridge between a UCI engine and a bot account of a chuhe server, the way
//! lichess-bot runs an engine on lichess (`docs/bots.md`, "chuhe bot").
//!
//! It reads the account's event stream (`GET /api/stream/event`), accepts the challenges of
//! its variant ([`Game`]) sent to it (and declines the others with lichess's reason `variant`),
//! may send one challenge of its own (to an account, or to chuhe's computer), and for each game
//! of its variant that starts opens the game's stream and runs one engine process. A UCI
//! engine (xiangqi): at each of its turns it
//! sends `position startpos moves ...` (or `position fen FEN moves ...`) and `go wtime W btime
//! B winc WI binc BI` (the clocks of the last `gameState`, milliseconds), or `go movetime M`
//! for an untimed game or with `--movetime-ms`, and posts the engine's `bestmove`.
//!
//! **`chuhe play`** ([`Protocol::Play`], `docs/players.md`) plays xiangqi, banqi and sanguo:
//! the bridge sends `position startpos moves ...` with the moves as the server records them
//! (banqi: `c2=R`, `c2-c3`, `c2xc3`, from which it rebuilds the seat's view; sanguo
//! `Re1-Re2`) and `go movetime MS` (the [`clock_share`] of the bot's clock), and posts the
//! answer (banqi `flip c2` with its space encoded). Sanguo is played against chuhe's computer
//! only, at the turns whose `toMove` is the bot's kingdom.
//!
//! **Ranks.** chuhe writes xiangqi moves in ICCS with ranks 0-9 (Pikafish's form);
//! Fairy-Stockfish and the engines built on it count ranks 1-10. With [`RankBase::Auto`] an
//! engine that offers the `UCI_Variant` option (Fairy-Stockfish) is taken to count from 1, is
//! set to `UCI_Variant xiangqi`, and its moves are converted both ways; the others (chuhe,
//! Pikafish) count from 0. `tools/uci_diff.py` decides the same way.
//!
//! A move the server refuses (it never plays an illegal one) is a failure: the bridge resigns
//! that game and, once done, [`run_bot`] returns [`LoadError::Failed`] naming the move and the
//! server's reason. A request over the server's rate limit (429) is sent again after its
//! `Retry-After`. A stream that ends (the server restarting) is opened again once a second for
//! up to a minute; the game goes on from the state its new `gameFull` gives.

use crate::error::LoadError;
use serde_json::Value;
use std::collections::HashSet;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// lichess's clock of an untimed game, milliseconds (what the server sends as `wtime`).
const UNTIMED_MS: u64 = 2_147_483_647;

/// How an engine numbers the ranks of its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankBase {
    /// From 1 when the engine offers `UCI_Variant` (Fairy-Stockfish), else from 0.
    Auto,
    /// 0-9, as chuhe, Pikafish and UCCI.
    Zero,
    /// 1-10, as Fairy-Stockfish.
    One,
}

/// How the bridge speaks to its engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Decided from the engine's answer to `uci`: `uciok` is UCI, an `info string error` line
    /// (what `chuhe play` answers to a command it does not know) is `chuhe play`'s protocol.
    Auto,
    /// UCI (xiangqi only): `chuhe uci`, Pikafish, Fairy-Stockfish.
    Uci,
    /// The line protocol of `chuhe play` (`docs/players.md`): `position startpos moves ...`,
    /// `go movetime MS`, `bestmove MOVE` in the game's own move text; xiangqi, banqi, sanguo.
    Play,
}

/// The games a bridge plays: the variant key of the Bot API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Game {
    /// Xiangqi (two seats, Red as `white`).
    Xiangqi,
    /// Banqi (two seats; the first to flip is `white`).
    Banqi,
    /// Sanguo (three kingdoms; against chuhe's computer only).
    Sanguo,
}

impl Game {
    /// The variant key: `xiangqi`, `banqi`, `sanguo`.
    pub fn key(self) -> &'static str {
        match self {
            Game::Xiangqi => "xiangqi",
            Game::Banqi => "banqi",
            Game::Sanguo => "sanguo",
        }
    }
}

/// What `chuhe bot` is given.
#[derive(Debug, Clone)]
pub struct BotSettings {
    /// The server's base URL, `http://HOST[:PORT]` (no final slash).
    pub url: String,
    /// The bot account's personal API token (`lip_...`, with `bot:play`, `challenge:read` and
    /// `challenge:write`).
    pub token: String,
    /// The engine's command line, run by `sh -c` (one process per game).
    pub engine: String,
    /// How the engine is spoken to.
    pub protocol: Protocol,
    /// The game the bridge plays: it accepts challenges of this variant only and asks for it.
    pub variant: Game,
    /// How the engine numbers ranks.
    pub ranks: RankBase,
    /// UCI options set after `uci` (`setoption name NAME value VALUE`), in order.
    pub options: Vec<(String, String)>,
    /// Think time per move in milliseconds: sent as `go movetime` in every game when given,
    /// else only in untimed games (as 1000).
    pub movetime_ms: Option<u64>,
    /// Stop once this many games have ended (`None`: run until stopped).
    pub games: Option<u32>,
    /// Challenge this account at the start (and again after each game while `games` allows).
    pub challenge: Option<String>,
    /// Play chuhe's computer at this level (1-8) at the start (and again after each game).
    pub ai_level: Option<u8>,
    /// The clock of the challenges sent: `(limit, increment)` in seconds; untimed when `None`.
    pub clock: Option<(u64, u64)>,
    /// The colour asked for in the challenges sent: `white` (Red), `black` or `random`;
    /// sanguo: `shu`, `wu`, `wei` or `random`.
    pub color: String,
}

/// Runs the bridge until `settings.games` games have ended (or forever), writing one line per
/// event to `out` (`playing as NAME`, `challenge ID from NAME: accepted`, `game ID: started as
/// white against NAME`, `game ID: mate, winner white, 57 moves`, ...).
///
/// # Errors
/// [`LoadError::Input`] when the server cannot be reached, refuses the token, the account is not
/// a bot, or the engine does not start; [`LoadError::Failed`] when a game met a failure (a
/// move refused by the server, the engine or a stream gone): after every game has ended, with
/// the failures in the message.
pub fn run_bot(settings: BotSettings, out: impl Write + Send + 'static) -> Result<(), LoadError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let boxed: Box<dyn Write + Send> = Box::new(out);
    let out: Output = Arc::new(Mutex::new(boxed));
    runtime.block_on(bridge(Arc::new(settings), out))
}

type Output = Arc<Mutex<Box<dyn Write + Send>>>;

/// Writes one line to the output (a failed write is ignored: the games go on).
fn say(out: &Output, text: &str) {
    if let Ok(mut o) = out.lock() {
        let _ = writeln!(o, "{text}");
        let _ = o.flush();
    }
}

/// The bridge's HTTP side: the client, the base URL and the token.
struct Api {
    client: reqwest::Client,
    /// Without an overall timeout, for the streams (a read timeout instead: keep-alives come
    /// every 6 s).
    streams: reqwest::Client,
    url: String,
    token: String,
}

impl Api {
    fn new(url: &str, token: &str) -> Result<Api, LoadError> {
        let input = |e: reqwest::Error| LoadError::Input(format!("http client: {e}"));
        Ok(Api {
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .map_err(input)?,
            streams: reqwest::Client::builder()
                .read_timeout(Duration::from_secs(30))
                .build()
                .map_err(input)?,
            url: url.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        })
    }

    /// GETs `path`: (status, JSON body or `null`).
    async fn get(&self, path: &str) -> Result<(u16, Value), String> {
        let response = self
            .client
            .get(format!("{}{path}", self.url))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| format!("GET {path}: {e}"))?;
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        Ok((status, serde_json::from_str(&body).unwrap_or(Value::Null)))
    }

    /// POSTs the form `form` (already encoded) to `path`, again after `Retry-After` while the
    /// server answers 429 (five times at most): (status, JSON body or `null`).
    async fn post(&self, path: &str, form: &str) -> Result<(u16, Value), String> {
        for _ in 0..5 {
            let response = self
                .client
                .post(format!("{}{path}", self.url))
                .bearer_auth(&self.token)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(form.to_owned())
                .send()
                .await
                .map_err(|e| format!("POST {path}: {e}"))?;
            let status = response.status().as_u16();
            let wait = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let body = response.text().await.unwrap_or_default();
            let value = serde_json::from_str(&body).unwrap_or(Value::Null);
            match (status, wait) {
                (429, Some(secs)) => tokio::time::sleep(Duration::from_secs(secs.max(1))).await,
                _ => return Ok((status, value)),
            }
        }
        Err(format!(
            "POST {path}: still over the rate limit after five tries"
        ))
    }

    /// Opens the NDJSON stream at `path`: its JSON lines, in order (keep-alive newlines are
    /// left out); the channel closes when the stream ends or fails.
    async fn stream(&self, path: &str) -> Result<mpsc::Receiver<Value>, String> {
        let mut response = self
            .streams
            .get(format!("{}{path}", self.url))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| format!("GET {path}: {e}"))?;
        let status = response.status().as_u16();
        if status != 200 {
            let body = response.text().await.unwrap_or_default();
            return Err(format!("GET {path}: http {status} {}", body.trim()));
        }
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(async move {
            let mut pending: Vec<u8> = Vec::new();
            while let Ok(Some(chunk)) = response.chunk().await {
                pending.extend_from_slice(&chunk);
                while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=end).collect();
                    let text = String::from_utf8_lossy(&line);
                    if text.trim().is_empty() {
                        continue;
                    }
                    let Ok(value) = serde_json::from_str::<Value>(text.trim()) else {
                        continue;
                    };
                    if tx.send(value).await.is_err() {
                        return;
                    }
                }
            }
        });
        Ok(rx)
    }
}

/// The account the bridge plays as.
struct Me {
    id: String,
    name: String,
}

/// Everything a game task needs.
struct Context {
    settings: Arc<BotSettings>,
    api: Api,
    me: Me,
    out: Output,
}

async fn bridge(settings: Arc<BotSettings>, out: Output) -> Result<(), LoadError> {
    let api = Api::new(&settings.url, &settings.token)?;
    let (status, account) = api.get("/api/account").await.map_err(LoadError::Input)?;
    if status != 200 {
        let why = account["error"].as_str().unwrap_or("no answer");
        return Err(LoadError::Input(format!(
            "the server refused the token: http {status} {why}"
        )));
    }
    let me = Me {
        id: account["id"].as_str().unwrap_or_default().to_owned(),
        name: account["username"].as_str().unwrap_or_default().to_owned(),
    };
    if account["title"] != "BOT" {
        return Err(LoadError::Input(format!(
            "{} is not a bot account: make one with chuhe token create --bot, or upgrade it \
             with POST /api/bot/account/upgrade",
            me.name
        )));
    }
    // The engine must start (and speak a protocol that plays the variant) before any game is
    // taken.
    let engine = Engine::start(&settings).await.map_err(LoadError::Input)?;
    let speaks_uci = !engine.play;
    engine.quit().await;
    if speaks_uci && settings.variant != Game::Xiangqi {
        return Err(LoadError::Input(format!(
            "the engine speaks UCI, which plays xiangqi only: play {} with chuhe play \
             (--engine \"chuhe play --variant {}\")",
            settings.variant.key(),
            settings.variant.key()
        )));
    }
    say(&out, &format!("playing as {}", me.name));
    let mut events = api
        .stream("/api/stream/event")
        .await
        .map_err(LoadError::Input)?;
    let ctx = Arc::new(Context {
        settings: settings.clone(),
        api,
        me,
        out,
    });
    let mut failures: Vec<String> = Vec::new();
    if let Err(e) = ask_for_game(&ctx).await {
        failures.push(e.clone());
        say(&ctx.out, &e);
    }
    let mut started: HashSet<String> = HashSet::new();
    let mut games = tokio::task::JoinSet::new();
    let mut ended = 0u32;
    let done = |ended: u32| settings.games.is_some_and(|n| ended >= n);
    while !done(ended) {
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else {
                    match reopen_events(&ctx).await {
                        Ok(again) => {
                            events = again;
                            continue;
                        }
                        Err(e) => {
                            failures.push(e);
                            break;
                        }
                    }
                };
                if let Err(e) = on_event(&ctx, &event, &mut started, &mut games).await {
                    failures.push(e);
                    break;
                }
            }
            Some(game) = games.join_next(), if !games.is_empty() => {
                ended += 1;
                match game {
                    Ok((id, Ok(end))) => say(&ctx.out, &format!("game {id}: {end}")),
                    Ok((id, Err(why))) => {
                        say(&ctx.out, &format!("game {id}: failed: {why}"));
                        failures.push(format!("game {id}: {why}"));
                    }
                    Err(e) => failures.push(format!("a game task failed: {e}")),
                }
                if !done(ended) {
                    if let Err(e) = ask_for_game(&ctx).await {
                        say(&ctx.out, &e);
                        failures.push(e);
                    }
                }
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    games.shutdown().await;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(LoadError::Failed(failures.join("; ")))
    }
}

/// Sends the challenge of the settings, if any: to an account, or to chuhe's computer.
async fn ask_for_game(ctx: &Context) -> Result<(), String> {
    let s = &ctx.settings;
    let mut form = format!("variant={}&color={}", s.variant.key(), s.color);
    if let Some((limit, increment)) = s.clock {
        form.push_str(&format!("&clock.limit={limit}&clock.increment={increment}"));
    }
    if let Some(name) = &s.challenge {
        let (status, body) = ctx
            .api
            .post(
                &format!("/api/challenge/{name}"),
                &format!("{form}&rated=false"),
            )
            .await?;
        if status != 200 {
            return Err(format!("challenge to {name}: http {status} {body}"));
        }
        say(
            &ctx.out,
            &format!(
                "challenged {name}: challenge {}",
                body["id"].as_str().unwrap_or("?")
            ),
        );
    }
    if let Some(level) = s.ai_level {
        let (status, body) = ctx
            .api
            .post("/api/challenge/ai", &format!("{form}&level={level}"))
            .await?;
        if status != 201 {
            return Err(format!("game against the computer: http {status} {body}"));
        }
    }
    Ok(())
}

/// Answers one line of the event stream: accepts or declines a challenge to this account,
/// starts a game task for a xiangqi game that starts. `Err` when a challenge this bridge sent
/// was declined (the game it waits for will not come).
async fn on_event(
    ctx: &Arc<Context>,
    event: &Value,
    started: &mut HashSet<String>,
    games: &mut tokio::task::JoinSet<(String, Result<String, String>)>,
) -> Result<(), String> {
    match event["type"].as_str() {
        Some("challengeDeclined") => {
            let c = &event["challenge"];
            if c["challenger"]["id"].as_str() == Some(&ctx.me.id) {
                let why = c["declineReasonKey"].as_str().unwrap_or("generic");
                let line = format!(
                    "challenge {} to {}: declined ({why})",
                    c["id"].as_str().unwrap_or("?"),
                    c["destUser"]["name"].as_str().unwrap_or("?")
                );
                say(&ctx.out, &line);
                return Err(line);
            }
        }
        Some("challenge") => {
            let c = &event["challenge"];
            let id = c["id"].as_str().unwrap_or_default();
            if c["destUser"]["id"].as_str() != Some(&ctx.me.id) {
                return Ok(());
            }
            let from = c["challenger"]["name"].as_str().unwrap_or("?");
            let (path, what) = if c["variant"]["key"] == ctx.settings.variant.key() {
                (format!("/api/challenge/{id}/accept"), "accepted")
            } else {
                (format!("/api/challenge/{id}/decline"), "declined (variant)")
            };
            let form = if what == "accepted" {
                ""
            } else {
                "reason=variant"
            };
            match ctx.api.post(&path, form).await {
                Ok((200, _)) => say(&ctx.out, &format!("challenge {id} from {from}: {what}")),
                Ok((status, body)) => say(
                    &ctx.out,
                    &format!("challenge {id} from {from}: http {status} {body}"),
                ),
                Err(e) => say(&ctx.out, &format!("challenge {id} from {from}: {e}")),
            }
        }
        Some("gameStart") => {
            let g = &event["game"];
            let Some(id) = g["gameId"].as_str().map(str::to_owned) else {
                return Ok(());
            };
            let variant = ctx.settings.variant.key();
            if g["variant"]["key"] != variant {
                if started.insert(id.clone()) {
                    say(
                        &ctx.out,
                        &format!("game {id}: not {variant}, left to another client"),
                    );
                }
                return Ok(());
            }
            if !started.insert(id.clone()) {
                return Ok(());
            }
            let opponent = g["opponent"]["username"].as_str().unwrap_or("?");
            let color = g["color"].as_str().unwrap_or("?");
            say(
                &ctx.out,
                &format!("game {id}: started as {color} against {opponent}"),
            );
            let ctx = ctx.clone();
            games.spawn(async move {
                let result = play(&ctx, &id).await;
                (id, result)
            });
        }
        _ => {}
    }
    Ok(())
}

/// Plays the game `id` to its end with a new engine process: the end in words (`mate, winner
/// white, 57 moves`), or why it failed.
async fn play(ctx: &Context, id: &str) -> Result<String, String> {
    let mut engine = Engine::start(&ctx.settings).await?;
    let result = play_with(ctx, id, &mut engine).await;
    engine.quit().await;
    result
}

async fn play_with(ctx: &Context, id: &str, engine: &mut Engine) -> Result<String, String> {
    let (mut stream, full) = open_game(ctx, id).await?;
    let variant = ctx.settings.variant;
    // The seat read: 0 (`white`) or 1 (`black`); sanguo 0-2 (Shu, Wu, Wei) from `you`.
    let seat = if variant == Game::Sanguo {
        KINGDOMS
            .iter()
            .position(|k| full["you"].as_str() == Some(*k))
            .ok_or_else(|| format!("gameFull names no kingdom of this bot: {}", full["you"]))?
    } else {
        usize::from(full["white"]["id"].as_str() != Some(&ctx.me.id))
    };
    let fen = full["initialFen"].as_str().unwrap_or("startpos").to_owned();
    // Red moves first, unless the game starts from a FEN with Black to move.
    let black_first = fen.split_whitespace().nth(1) == Some("b");
    if !engine.play {
        engine.send("ucinewgame").await?;
    }
    engine.ready().await?;
    let mut state = full["state"].clone();
    let mut answered: Option<usize> = None;
    loop {
        if state["type"] == "gameState" {
            let status = state["status"].as_str().unwrap_or("?");
            let moves: Vec<&str> = state["moves"]
                .as_str()
                .unwrap_or_default()
                .split_whitespace()
                .collect();
            if status != "started" && status != "created" {
                let winner = state["winner"]
                    .as_str()
                    .map_or("no winner".to_owned(), |w| format!("winner {w}"));
                return Ok(format!("{status}, {winner}, {} moves", moves.len()));
            }
            let my_turn = match variant {
                // a defeated kingdom is skipped: the server names who moves
                Game::Sanguo => state["toMove"].as_str() == Some(KINGDOMS[seat]),
                // seats alternate from the first (Red, or the first to flip in banqi)
                Game::Xiangqi | Game::Banqi => {
                    let white_to_move = moves.len().is_multiple_of(2) != black_first;
                    white_to_move == (seat == 0)
                }
            };
            if status == "started" && my_turn && answered != Some(moves.len()) {
                answered = Some(moves.len());
                let (path, mv) = match engine.best_move(&fen, &moves, &state, seat).await? {
                    // banqi's flip is `flip c2`: the space travels encoded
                    Some(mv) => (
                        format!("/api/bot/game/{id}/move/{}", mv.replace(' ', "%20")),
                        mv,
                    ),
                    None => (format!("/api/bot/game/{id}/resign"), "resign".to_owned()),
                };
                match ctx.api.post(&path, "").await {
                    Ok((200, _)) => {}
                    // the server stops or moves the game: ask the game again once it is back
                    Ok((code, _)) if code >= 500 => {
                        (stream, state) = reconnect(ctx, id, &format!("http {code}")).await?;
                        answered = None;
                        continue;
                    }
                    // the game ended meanwhile (a resignation, a flag): its stream says how
                    Ok((400, body)) if body["error"] == "the game is over" => {}
                    Ok((code, body)) => {
                        let why = body["error"].as_str().unwrap_or("no reason").to_owned();
                        let _ = ctx
                            .api
                            .post(&format!("/api/bot/game/{id}/resign"), "")
                            .await;
                        return Err(format!(
                            "the server refused the engine's move {mv} after {} moves: http {code} {why}",
                            moves.len()
                        ));
                    }
                    Err(e) => {
                        (stream, state) = reconnect(ctx, id, &e).await?;
                        answered = None;
                        continue;
                    }
                }
            }
        }
        match stream.recv().await {
            Some(next) => state = next,
            None => {
                (stream, state) = reconnect(ctx, id, "the game stream ended").await?;
                // a move sent as the connection went may not have been taken: answer again
                answered = None;
            }
        }
    }
}

/// Opens the game stream of `id`: the stream and its first line, `gameFull`.
async fn open_game(ctx: &Context, id: &str) -> Result<(mpsc::Receiver<Value>, Value), String> {
    let mut stream = ctx
        .api
        .stream(&format!("/api/bot/game/stream/{id}"))
        .await?;
    let full = stream
        .recv()
        .await
        .ok_or("the game stream ended before gameFull")?;
    if full["type"] != "gameFull" {
        return Err(format!(
            "the game stream began with {full} instead of gameFull"
        ));
    }
    Ok((stream, full))
}

/// How long the bridge tries to reach a stream again after losing it (a server restarting, a
/// node of a cluster taking the game over), once a second.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// Opens the game stream of `id` again after it was lost (`why`), once a second for
/// [`RECONNECT_FOR`]: the stream and the game's state in its `gameFull`.
async fn reconnect(
    ctx: &Context,
    id: &str,
    why: &str,
) -> Result<(mpsc::Receiver<Value>, Value), String> {
    say(&ctx.out, &format!("game {id}: lost ({why}), reconnecting"));
    let until = tokio::time::Instant::now() + RECONNECT_FOR;
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        match open_game(ctx, id).await {
            Ok((stream, full)) => return Ok((stream, full["state"].clone())),
            Err(e) if tokio::time::Instant::now() >= until => {
                return Err(format!(
                    "the game stream could not be opened again within {} s: {e}",
                    RECONNECT_FOR.as_secs()
                ))
            }
            Err(_) => {}
        }
    }
}

/// Opens the account's event stream again after it ended, once a second for
/// [`RECONNECT_FOR`].
async fn reopen_events(ctx: &Context) -> Result<mpsc::Receiver<Value>, String> {
    say(&ctx.out, "the event stream ended, reconnecting");
    let until = tokio::time::Instant::now() + RECONNECT_FOR;
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        match ctx.api.stream("/api/stream/event").await {
            Ok(events) => return Ok(events),
            Err(e) if tokio::time::Instant::now() >= until => {
                return Err(format!(
                    "the event stream could not be opened again within {} s: {e}",
                    RECONNECT_FOR.as_secs()
                ))
            }
            Err(_) => {}
        }
    }
}

/// `mv` (ICCS, `h2e2`) with each rank moved by `delta` (+1: to Fairy-Stockfish's 1-10, -1:
/// back); `None` when it does not read as two squares or a rank leaves the board.
pub fn shift_ranks(mv: &str, delta: i32) -> Option<String> {
    let bytes = mv.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    for _ in 0..2 {
        let file = *bytes.get(i)?;
        if !(b'a'..=b'i').contains(&file) {
            return None;
        }
        i += 1;
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        let rank: i32 = mv.get(start..i)?.parse().ok()?;
        let shifted = rank + delta;
        let lowest = if delta > 0 { 1 } else { 0 };
        if !(lowest..=lowest + 9).contains(&shifted) || i == start {
            return None;
        }
        out.push(char::from(file));
        out.push_str(&shifted.to_string());
    }
    (i == bytes.len()).then_some(out)
}

/// The kingdoms of sanguo in turn order, as the Bot API names them.
const KINGDOMS: [&str; 3] = ["shu", "wu", "wei"];

/// The think time for `go movetime` of a `chuhe play` engine with `left_ms` on its clock and
/// `inc_ms` increment: a twentieth of what is left plus three quarters of the increment, never
/// more than half of what is left (the share chuhe's own computer takes), at least 1 ms.
pub fn clock_share(left_ms: u64, inc_ms: u64) -> u64 {
    (left_ms / 20 + inc_ms * 3 / 4).min(left_ms / 2).max(1)
}

/// One engine process, spoken to in UCI or in `chuhe play`'s protocol.
struct Engine {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    /// Whether the engine counts ranks 1-10.
    one_based: bool,
    /// Whether the engine speaks `chuhe play`'s protocol rather than UCI.
    play: bool,
    movetime_ms: Option<u64>,
}

/// How long an engine has to answer `uci` and `isready`.
const ENGINE_START: Duration = Duration::from_secs(30);

impl Engine {
    /// Starts the engine of `settings`: `uci` (reading its options), `UCI_Variant xiangqi` when
    /// it offers that option, the settings' options, `isready`.
    async fn start(settings: &BotSettings) -> Result<Engine, String> {
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&settings.engine)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("the engine {:?} does not start: {e}", settings.engine))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the engine's pipes are missing".to_owned());
        };
        let mut engine = Engine {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            one_based: false,
            play: settings.protocol == Protocol::Play,
            movetime_ms: settings.movetime_ms,
        };
        if engine.play {
            engine.ready().await?;
            return Ok(engine);
        }
        // an engine that exits at once may close its input before or after this is written
        engine
            .send("uci")
            .await
            .map_err(|_| "the engine exited while chuhe waited for uciok".to_owned())?;
        let mut variant_option = false;
        loop {
            let line = engine.line(ENGINE_START, "uciok").await?;
            // `chuhe play` knows no `uci`: it says so, and speaks its own protocol
            if settings.protocol == Protocol::Auto && line.starts_with("info string error") {
                engine.play = true;
                engine.ready().await?;
                return Ok(engine);
            }
            if line.starts_with("option name UCI_Variant ") {
                variant_option = true;
            }
            if line.trim() == "uciok" {
                break;
            }
        }
        engine.one_based = match settings.ranks {
            RankBase::Auto => variant_option,
            RankBase::Zero => false,
            RankBase::One => true,
        };
        if variant_option {
            engine
                .send("setoption name UCI_Variant value xiangqi")
                .await?;
        }
        for (name, value) in &settings.options {
            engine
                .send(&format!("setoption name {name} value {value}"))
                .await?;
        }
        engine.ready().await?;
        Ok(engine)
    }

    async fn send(&mut self, command: &str) -> Result<(), String> {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await
            .map_err(|e| format!("the engine stopped reading: {e}"))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| format!("the engine stopped reading: {e}"))
    }

    /// The engine's next line, within `wait` (`waiting_for` names what for, in the error).
    async fn line(&mut self, wait: Duration, waiting_for: &str) -> Result<String, String> {
        match tokio::time::timeout(wait, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => Ok(line),
            Ok(Ok(None)) | Ok(Err(_)) => Err(format!(
                "the engine exited while chuhe waited for {waiting_for}"
            )),
            Err(_) => Err(format!(
                "the engine did not answer {waiting_for} within {} s",
                wait.as_secs()
            )),
        }
    }

    async fn ready(&mut self) -> Result<(), String> {
        self.send("isready").await?;
        while self.line(ENGINE_START, "readyok").await?.trim() != "readyok" {}
        Ok(())
    }

    /// The engine's move in the position after `moves` from `fen` (`startpos` or a FEN), with
    /// the clocks of `state` (the bot's seat is `seat`); `None` when it has none
    /// (`bestmove (none)`).
    async fn best_move(
        &mut self,
        fen: &str,
        moves: &[&str],
        state: &Value,
        seat: usize,
    ) -> Result<Option<String>, String> {
        if self.play {
            return self.play_move(fen, moves, state, seat).await;
        }
        let mut position = if fen == "startpos" {
            "position startpos".to_owned()
        } else {
            format!("position fen {fen}")
        };
        if !moves.is_empty() {
            position.push_str(" moves");
            for m in moves {
                let m = if self.one_based {
                    shift_ranks(m, 1).ok_or_else(|| format!("the server sent a move {m:?}"))?
                } else {
                    (*m).to_owned()
                };
                position.push(' ');
                position.push_str(&m);
            }
        }
        let ms = |key: &str| state[key].as_u64().unwrap_or(UNTIMED_MS);
        let (wtime, btime) = (ms("wtime"), ms("btime"));
        let untimed = wtime >= UNTIMED_MS && btime >= UNTIMED_MS;
        let (go, wait_ms) = match (self.movetime_ms, untimed) {
            (Some(m), _) => (format!("go movetime {m}"), m),
            (None, true) => ("go movetime 1000".to_owned(), 1000),
            (None, false) => (
                format!(
                    "go wtime {wtime} btime {btime} winc {} binc {}",
                    ms("winc").min(UNTIMED_MS),
                    ms("binc").min(UNTIMED_MS)
                ),
                wtime.max(btime),
            ),
        };
        self.send(&position).await?;
        self.send(&go).await?;
        let wait = Duration::from_millis(wait_ms) + Duration::from_secs(30);
        loop {
            let line = self.line(wait, "bestmove").await?;
            let mut words = line.split_whitespace();
            if words.next() != Some("bestmove") {
                continue;
            }
            let mv = words.next().unwrap_or("(none)");
            if mv == "(none)" || mv == "0000" {
                return Ok(None);
            }
            return if self.one_based {
                shift_ranks(mv, -1)
                    .map(Some)
                    .ok_or_else(|| format!("the engine's move {mv:?} does not read"))
            } else {
                Ok(Some(mv.to_owned()))
            };
        }
    }

    /// [`Engine::best_move`] in `chuhe play`'s protocol: `position startpos moves ...` (or
    /// `position FEN moves ...`) with the recorded moves as the server sends them, then `go
    /// movetime MS`: the settings' think time, else the [`clock_share`] of the seat's clock,
    /// else (untimed) 1000 ms.
    async fn play_move(
        &mut self,
        fen: &str,
        moves: &[&str],
        state: &Value,
        seat: usize,
    ) -> Result<Option<String>, String> {
        let mut position = format!("position {fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        let ms = |key: &str| state[key].as_u64().unwrap_or(UNTIMED_MS);
        let left = match seat {
            0 => ms("wtime"),
            1 if state["times"].is_null() => ms("btime"),
            _ => state["times"][seat].as_u64().unwrap_or(UNTIMED_MS),
        };
        let inc = ms(if seat == 1 { "binc" } else { "winc" }).min(UNTIMED_MS);
        let think = match self.movetime_ms {
            Some(m) => m,
            None if left >= UNTIMED_MS => 1000,
            None => clock_share(left, inc),
        };
        self.send(&position).await?;
        self.send(&format!("go movetime {think}")).await?;
        let wait = Duration::from_millis(think) + Duration::from_secs(30);
        loop {
            let line = self.line(wait, "bestmove").await?;
            if let Some(why) = line.strip_prefix("info string error ") {
                return Err(format!("the engine refused the position: {why}"));
            }
            let Some(mv) = line.strip_prefix("bestmove ") else {
                continue;
            };
            let mv = mv.trim();
            return Ok((mv != "(none)").then(|| mv.to_owned()));
        }
    }

    /// Asks the engine to quit, and ends it after a second if it does not.
    async fn quit(mut self) {
        let _ = self.send("quit").await;
        if tokio::time::timeout(Duration::from_secs(1), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_shift_both_ways() {
        assert_eq!(shift_ranks("h2e2", 1).as_deref(), Some("h3e3"));
        assert_eq!(shift_ranks("a9a8", 1).as_deref(), Some("a10a9"));
        assert_eq!(shift_ranks("a10a9", -1).as_deref(), Some("a9a8"));
        assert_eq!(shift_ranks("i1i10", -1).as_deref(), Some("i0i9"));
        assert_eq!(shift_ranks("b0c2", 1).as_deref(), Some("b1c3"));
        // Off the board, or not two squares.
        assert_eq!(shift_ranks("a0a1", -1), None);
        assert_eq!(shift_ranks("a9a9", 1).as_deref(), Some("a10a10"));
        assert_eq!(shift_ranks("j2e2", 1), None);
        assert_eq!(shift_ranks("h2e", 1), None);
        assert_eq!(shift_ranks("h2e2x", 1), None);
        assert_eq!(shift_ranks("", 1), None);
    }

    #[test]
    fn the_clock_share_keeps_time() {
        // a twentieth of 60 s plus three quarters of a 2 s increment
        assert_eq!(clock_share(60_000, 2_000), 4_500);
        // never more than half of what is left
        assert_eq!(clock_share(1_000, 10_000), 500);
        assert_eq!(clock_share(0, 0), 1);
    }
}
