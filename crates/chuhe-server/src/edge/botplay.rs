//! lichess's Bot and Board APIs on chuhe's tables (`docs/bots.md`): each player's event stream
//! (`GET /api/stream/event`), a game against chuhe's computer (`POST /api/challenge/ai`), and
//! a game's stream and actions (`/api/bot/game/...` for bot accounts, `/api/board/game/...`
//! for people playing through another app). Answers and refusals in lichess's shapes.
//!
//! A game of the API is an ordinary chuhe table with both seats taken; its stream is a
//! connection to the table like a WebSocket's, turned into lichess's lines: `gameFull` first,
//! then a `gameState` after each change. lichess's `white` is seat 0 (Red in xiangqi) and
//! `black` seat 1; moves are the table's move text (xiangqi: ICCS as Pikafish prints it,
//! `h2e2`, ranks 0-9). Streams send a keep-alive newline every 6 s, as lichess does.

use crate::accounts::tokens::Scope;
use crate::edge::bots::tables_in_play;
use crate::edge::extract::{ApiUser, LichessError};
use crate::edge::ws::Link;
use crate::error::ServerError;
use crate::protocol::{ClientMessage, Phase, SeatPlayer, ServerMessage, State, TableSummary};
use crate::site::challenges::{
    announce_challenge, challenge_json, expires_ms, Challenge, REALTIME_WAIT,
};
use crate::site::events::{game_of, seat_color, variant_name};
use crate::site::AppState;
use crate::store::{Answerer, StoreError};
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Path, Request};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chuhe_rules::outcome::EndReason;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::mpsc;

/// How often a stream without news sends an empty line, so clients and proxies keep it open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(6);

/// How long a game stream that started its game waits for the start's update before it sends
/// `gameFull` (the update comes at once from this node, a moment later from another).
const START_WAIT: Duration = Duration::from_secs(2);

/// What lichess sends as the time left of an untimed game, milliseconds (its largest clock).
pub const UNTIMED_MS: u64 = 2_147_483_647;

/// Which of lichess's two play APIs a route belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    /// `/api/bot/...`: bot accounts, with `bot:play`.
    Bot,
    /// `/api/board/...`: people, with `board:play`.
    Board,
}

impl Api {
    /// Refuses a token without the API's scope, and an account of the other kind.
    fn check(self, user: &ApiUser) -> Result<(), LichessError> {
        match self {
            Api::Bot => {
                user.require(Scope::BotPlay)?;
                if !user.bot {
                    return Err(LichessError::bad_request(
                        "this endpoint is for bot accounts: upgrade with POST /api/bot/account/upgrade",
                    ));
                }
            }
            Api::Board => {
                user.require(Scope::BoardPlay)?;
                if user.bot {
                    return Err(LichessError::bad_request(
                        "this endpoint is for people: a bot plays with /api/bot/...",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// An NDJSON answer whose lines come from `lines` (each already ending in a newline).
pub(crate) fn ndjson(lines: mpsc::Receiver<Bytes>) -> Response {
    let stream = futures_util::stream::unfold(lines, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<Bytes, std::convert::Infallible>(b), rx))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

pub(crate) fn line(v: &Value) -> Bytes {
    let mut text = v.to_string();
    text.push('\n');
    Bytes::from(text)
}

/// `GET /api/stream/event`: the account's events as NDJSON, lichess's lines: a `gameStart` for
/// each game it plays now and a `challenge` for each challenge waiting, then whatever is pushed to it (`gameStart`, `gameFinish`,
/// `challenge`, `challengeCanceled`, `challengeDeclined`), and an empty line every 6 s.
#[utoipa::path(
    get,
    path = "/api/stream/event",
    tag = "lichess",
    responses(
        (status = 200, description = "NDJSON lines (`application/x-ndjson`) until the client leaves; an empty line every 6 s", body = String, content_type = "application/x-ndjson"),
        (status = 401, description = "No such token, or none of `challenge:read`, `bot:play`, `board:play` (`{\"error\": \"Missing scope\"}`)"),
    )
)]
pub(crate) async fn stream_event(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
) -> Result<Response, LichessError> {
    may_read_events(&user)?;
    let id = user.person.id.clone();
    // Subscribed first: a game that starts meanwhile is told twice rather than never.
    let mut pushed = state.player_events().subscribe(&id);
    let mut first = Vec::new();
    for table in tables_in_play(&state).await {
        let bots = state.bots_at(&table).await;
        if let Some(game) = game_of(&table, &id, |p| bots.iter().any(|b| b == p)) {
            first.push(json!({"type": "gameStart", "game": game}));
        }
    }
    // The open stream keeps the player's challenges with a clock alive (lichess keeps a
    // challenge while its challenger is seen).
    keep_challenges(&state, &id).await;
    for c in state.store().open_challenges(&id).await? {
        first.push(json!({"type": "challenge", "challenge": challenge_json(&c, "created")}));
    }
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let mut shutdown = state.shutdown_signal();
    let keeper = state.clone();
    tokio::spawn(async move {
        for v in &first {
            if tx.send(line(v)).await.is_err() {
                return;
            }
        }
        let mut tick =
            tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        loop {
            let out = tokio::select! {
                got = pushed.recv() => match got {
                    Ok(text) => {
                        let mut text = text.to_string();
                        text.push('\n');
                        Bytes::from(text)
                    }
                    // Fallen behind, or the hub is gone: the client reconnects and is told
                    // of its games again.
                    Err(_) => return,
                },
                _ = tick.tick() => {
                    keep_challenges(&keeper, &id).await;
                    Bytes::from_static(b"\n")
                }
                () = tx.closed() => return,
                // The server stops: the stream ends, so its connection closes in time.
                _ = shutdown.changed() => return,
            };
            if tx.send(out).await.is_err() {
                return;
            }
        }
    });
    Ok(ndjson(rx))
}

/// Keeps the waiting challenges with a clock of `player_id` alive for [`REALTIME_WAIT`] more.
async fn keep_challenges(state: &AppState, player_id: &str) {
    let until = crate::store::now_ms() + i64::try_from(REALTIME_WAIT.as_millis()).unwrap_or(0);
    if let Err(e) = state.store().keep_challenges(player_id, until).await {
        tracing::debug!(error = %e, "challenges not kept alive");
    }
}

/// A request's parameters, from a form (`application/x-www-form-urlencoded`, as lichess's
/// clients send them) or a JSON object (`{"clock": {"limit": 300}}` reads as `clock.limit`).
pub(crate) async fn params(request: Request) -> Result<HashMap<String, String>, LichessError> {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !is_json {
        let axum::Form(map) = axum::Form::<HashMap<String, String>>::from_request(request, &())
            .await
            .map_err(|e| LichessError::bad_request(format!("the form does not read: {e}")))?;
        return Ok(map);
    }
    let bytes = Bytes::from_request(request, &())
        .await
        .map_err(|e| LichessError::from(ServerError::from(e)))?;
    if bytes.is_empty() {
        return Ok(HashMap::new());
    }
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| LichessError::bad_request(format!("the body does not read: {e}")))?;
    let Value::Object(object) = value else {
        return Err(LichessError::bad_request("the body is not a JSON object"));
    };
    let mut out = HashMap::new();
    flatten("", &object, &mut out);
    Ok(out)
}

fn flatten(
    prefix: &str,
    object: &serde_json::Map<String, Value>,
    out: &mut HashMap<String, String>,
) {
    for (k, v) in object {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) => flatten(&key, inner, out),
            Value::String(s) => {
                out.insert(key, s.clone());
            }
            Value::Null => {}
            other => {
                out.insert(key, other.to_string());
            }
        }
    }
}

/// A whole number parameter within `range`, if given.
fn number(
    p: &HashMap<String, String>,
    name: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, LichessError> {
    let Some(text) = p.get(name) else {
        return Ok(None);
    };
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| range.contains(n))
        .map(Some)
        .ok_or_else(|| {
            LichessError::bad_request(format!(
                "{name} {text:?}: a whole number from {} to {}",
                range.start(),
                range.end()
            ))
        })
}

/// The table options of a challenge's parameters: `variant` (`xiangqi`, the default, or
/// `banqi`; `sanguo` too when `sanguo`, against the computer), `clock.limit` and `clock.increment` in seconds (untimed without them), `rated`,
/// `fen` (xiangqi: the position to start from, as lichess's `fen`; such a game is casual),
/// checked as a table checks them ([`crate::table::check_options`]).
fn options_of(
    p: &HashMap<String, String>,
    rated: bool,
    sanguo: bool,
) -> Result<crate::protocol::TableOptions, LichessError> {
    let variant = p.get("variant").map_or("xiangqi", String::as_str);
    if sanguo && variant == "sanguo" {
        // three seats: only against the computer (`POST /api/challenge/ai`)
    } else if !["xiangqi", "banqi"].contains(&variant) {
        let or_sanguo = if sanguo {
            "xiangqi, banqi or sanguo"
        } else {
            "xiangqi or banqi (sanguo has three seats: play it against the computer, POST /api/challenge/ai)"
        };
        return Err(LichessError::bad_request(format!(
            "variant {variant:?}: {or_sanguo}"
        )));
    }
    let fen = p.get("fen").map(|f| f.trim()).filter(|f| !f.is_empty());
    if fen.is_some() && variant != "xiangqi" {
        return Err(LichessError::bad_request("fen is a xiangqi option"));
    }
    let limit = number(p, "clock.limit", 0..=10_800)?;
    let increment = number(p, "clock.increment", 0..=600)?;
    let time = match (limit, increment) {
        (None, None) => Value::Null,
        (limit, increment) => json!({
            "initial_ms": limit.unwrap_or(0) * 1000,
            "increment_ms": increment.unwrap_or(0) * 1000,
        }),
    };
    let options = serde_json::from_value(
        json!({"variant": variant, "time": time, "rated": rated, "fen": fen}),
    )
    .map_err(|e| LichessError::bad_request(e.to_string()))?;
    // the table's own check, so that a bad FEN is refused now and not when it is accepted
    crate::table::check_options(options).map_err(|e| match e {
        ServerError::BadMessage(why) => LichessError::bad_request(why),
        other => LichessError::bad_request(other.to_string()),
    })
}

/// The seat of the challenger for `color` (`white`, `black` or `random`, the default).
fn seat_of_color(p: &HashMap<String, String>) -> Result<usize, LichessError> {
    match p.get("color").map_or("random", String::as_str) {
        "white" => Ok(0),
        "black" => Ok(1),
        "random" => Ok(usize::from(rand::random::<bool>())),
        other => Err(LichessError::bad_request(format!(
            "color {other:?}: white, black or random"
        ))),
    }
}

/// The player's seat in a sanguo game for `color`: `shu` (seat 0, moves first), `wu`, `wei`,
/// or `random` (the default).
fn kingdom_seat(p: &HashMap<String, String>) -> Result<usize, LichessError> {
    match p.get("color").map_or("random", String::as_str) {
        "shu" => Ok(0),
        "wu" => Ok(1),
        "wei" => Ok(2),
        "random" => Ok(rand::random_range(0..3)),
        other => Err(LichessError::bad_request(format!(
            "color {other:?}: in sanguo shu, wu, wei or random"
        ))),
    }
}

/// `POST /api/challenge/ai`: a game against chuhe's computer, started at once: parameters
/// `level` (1 to 8, required), `clock.limit` and `clock.increment` (seconds; untimed without),
/// `color` (`white` = Red, `black`, `random`; sanguo: `shu`, `wu`, `wei`, `random`), `variant`
/// (`xiangqi`, `banqi`, `sanguo`: the two other kingdoms are the computer). Never rated.
#[utoipa::path(
    post,
    path = "/api/challenge/ai",
    tag = "lichess",
    responses(
        (status = 201, description = "The game (its table): `{\"id\", \"variant\", \"rated\", \"source\": \"ai\", \"player\", \"status\"}`", body = Object),
        (status = 400, description = "A bad parameter (`{\"error\": \"...\"}`)"),
        (status = 401, description = "No such token, or none of `challenge:write`, `bot:play`, `board:play`"),
    )
)]
pub(crate) async fn challenge_ai(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
    request: Request,
) -> Result<Response, LichessError> {
    if ![Scope::ChallengeWrite, Scope::BotPlay, Scope::BoardPlay]
        .iter()
        .any(|s| user.has(*s))
    {
        return Err(LichessError::new(StatusCode::UNAUTHORIZED, "Missing scope"));
    }
    let p = params(request).await?;
    let level = number(&p, "level", 1..=8)?
        .ok_or_else(|| LichessError::bad_request("level: a whole number from 1 to 8"))?;
    let options = options_of(&p, false, true)?;
    let three = options.variant.seat_count() == 3;
    let seat = if three {
        kingdom_seat(&p)?
    } else {
        seat_of_color(&p)?
    };
    let me = SeatPlayer::Person {
        id: user.person.id.clone(),
        name: user.person.name.clone(),
        account: user.person.account,
        bot: user.bot,
    };
    let computer = SeatPlayer::Computer {
        level: u8::try_from(level).unwrap_or(1),
    };
    let mut seats = vec![Some(computer); if three { 3 } else { 2 }];
    seats[seat] = Some(me);
    let handle = state.create_seated_table(options, seats).await?;
    let table = handle.summary().await?;
    state.announce_game("gameStart", &table).await;
    let key = table.options.variant.as_str();
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "id": table.id,
            "variant": {"key": key, "name": variant_name(key)},
            "rated": false,
            "source": "ai",
            "player": seat_color(table.seats.len(), seat),
            "status": {"id": 20, "name": "started"},
        })),
    )
        .into_response())
}

/// lichess's `status` of a state: `created`, `started`, then the end's.
fn status_of(s: &State) -> &'static str {
    match (s.table.phase, &s.outcome) {
        (Phase::Open, _) => "created",
        (Phase::Running, _) | (Phase::Ended, None) => "started",
        (Phase::Ended, Some(outcome)) => match outcome.reason {
            EndReason::Checkmate => "mate",
            EndReason::Stalemate => "stalemate",
            EndReason::Resignation => "resign",
            EndReason::Timeout => "outoftime",
            EndReason::Abandonment => "timeout",
            EndReason::Aborted => "aborted",
            EndReason::Agreement
            | EndReason::ThreefoldRepetition
            | EndReason::NoCaptureLimit
            | EndReason::NoFlipNoCaptureLimit => "draw",
            _ => "variantEnd",
        },
    }
}

/// The moves of a board view, from the start.
fn moves_of(board: &crate::variant::BoardView) -> &[String] {
    match board {
        crate::variant::BoardView::Xiangqi { moves, .. }
        | crate::variant::BoardView::Sanguo { moves, .. }
        | crate::variant::BoardView::Banqi { moves, .. } => moves,
    }
}

/// A `gameState` line of `s`: `moves` (space-separated, from the start), `wtime`, `btime`,
/// `winc`, `binc` (milliseconds; `2147483647` untimed, as lichess), `status`, and `winner`
/// (`white`/`black`) once someone won. Sanguo (three seats) also has `times` (the three
/// clocks in turn order), `toMove` (`shu`, `wu`, `wei` or `null`) and `winners`, and its
/// `winner` is a kingdom.
pub fn game_state(s: &State) -> Value {
    let (wtime, btime) = match &s.clocks {
        Some(c) if c.len() == 2 => (c[0].remaining_ms, c[1].remaining_ms),
        _ => (UNTIMED_MS, UNTIMED_MS),
    };
    let inc = s.table.options.time.as_ref().map_or(0, |t| t.increment_ms);
    let berserk = |index: usize| s.berserks.iter().any(|x| x.index() == index);
    // a berserk seat plays without increment
    let inc_of = |index: usize| if berserk(index) { 0 } else { inc };
    let mut v = json!({
        "type": "gameState",
        "moves": moves_of(&s.board).join(" "),
        "wtime": wtime,
        "btime": btime,
        "winc": inc_of(0),
        "binc": inc_of(1),
        "status": status_of(s),
    });
    let seats = s.table.seats.len();
    if s.outcome.is_some() && s.winner_seats.len() == 1 {
        v["winner"] = json!(seat_color(seats, s.winner_seats[0].index()));
    }
    if seats == 3 {
        // sanguo: every kingdom's clock, who moves, who won (chuhe's fields)
        v["times"] = json!((0..3)
            .map(|i| s
                .clocks
                .as_ref()
                .and_then(|c| c.get(i))
                .map_or(UNTIMED_MS, |c| c.remaining_ms))
            .collect::<Vec<_>>());
        v["toMove"] = json!(s
            .to_move
            .filter(|_| s.table.phase == Phase::Running)
            .map(|x| seat_color(3, x.index())));
        v["winners"] = json!(s
            .winner_seats
            .iter()
            .map(|x| seat_color(3, x.index()))
            .collect::<Vec<_>>());
    }
    // lichess's pending offers: who offered a draw, who asked for a takeback
    let offered = |seat: Option<crate::protocol::Seat>, index: usize| {
        s.table.phase == Phase::Running && seat.is_some_and(|x| x.index() == index)
    };
    v["wdraw"] = json!(offered(s.draw_offer, 0));
    v["bdraw"] = json!(offered(s.draw_offer, 1));
    v["wtakeback"] = json!(offered(s.takeback_offer, 0));
    v["btakeback"] = json!(offered(s.takeback_offer, 1));
    // lichess's berserk flags, only when set
    if berserk(0) {
        v["wberserk"] = json!(true);
    }
    if berserk(1) {
        v["bberserk"] = json!(true);
    }
    v
}

/// A `chatLine` of the game stream from a table chat message: `room` `player` (the seated
/// persons) or `spectator`, `username`, `text`.
fn chat_line(room: crate::protocol::ChatRoom, name: &str, text: &str) -> Value {
    let room = match room {
        crate::protocol::ChatRoom::Players => "player",
        crate::protocol::ChatRoom::Spectators => "spectator",
    };
    json!({"type": "chatLine", "room": room, "username": name, "text": text})
}

/// An `opponentGone` line: `gone`, and while gone `claimWinInSeconds` (whole seconds, rounded
/// up, before the absent seat loses by abandonment; chuhe ends the game by itself then, so
/// there is nothing to claim).
fn opponent_gone(connected: bool, abandon_ms: Option<u64>) -> Value {
    let mut v = json!({"type": "opponentGone", "gone": !connected});
    if let (false, Some(ms)) = (connected, abandon_ms) {
        v["claimWinInSeconds"] = json!(ms.div_ceil(1000));
    }
    v
}

/// A player of `gameFull`: `{"id", "name", "title", "rating"}` for a person (`title` `BOT` or
/// `null`, `rating` in the table's variant or `null`), `{"aiLevel": N}` for the computer.
async fn player_of(
    state: &AppState,
    seat: Option<&SeatPlayer>,
    variant: &str,
    bots: &[String],
) -> Value {
    match seat {
        Some(SeatPlayer::Person { id, name, .. }) => {
            let rating = state
                .store()
                .ratings(id)
                .await
                .ok()
                .and_then(|rows| rows.into_iter().find(|r| r.variant == variant))
                .map(|r| r.rating.rating.round() as i64);
            let title = bots.iter().any(|b| b == id).then_some("BOT");
            json!({"id": id, "name": name, "title": title, "rating": rating})
        }
        Some(SeatPlayer::Computer { level }) => json!({"aiLevel": level}),
        None => Value::Null,
    }
}

/// The `gameFull` line of `s`: `id`, `variant`, `clock` (`{"initial", "increment"}` in
/// milliseconds, `null` untimed), `rated`, `createdAt`, `white`, `black`, `initialFen`
/// (`startpos`, or the FEN a xiangqi table starts from) and `state` (a `gameState`).
async fn game_full(state: &AppState, s: &State) -> Value {
    let table: &TableSummary = &s.table;
    let key = table.options.variant.as_str();
    let bots = state.bots_at(table).await;
    let white = player_of(
        state,
        table.seats.first().and_then(Option::as_ref),
        key,
        &bots,
    )
    .await;
    let black = player_of(
        state,
        table.seats.get(1).and_then(Option::as_ref),
        key,
        &bots,
    )
    .await;
    let mut full = json!({
        "type": "gameFull",
        "id": table.id,
        "variant": {"key": key, "name": variant_name(key), "short": variant_name(key)},
        "clock": table.options.time.as_ref().map(|t| json!({"initial": t.initial_ms, "increment": t.increment_ms})),
        "rated": table.options.rated,
        "white": white,
        "black": black,
        "initialFen": table.options.fen.as_deref().unwrap_or("startpos"),
        "state": game_state(s),
    });
    if table.seats.len() == 3 {
        // sanguo: the three kingdoms' players in turn order (`white` and `black` are the first
        // two), and which one the stream's reader plays
        let mut players = Vec::new();
        for (i, seat) in table.seats.iter().enumerate() {
            let mut p = player_of(state, seat.as_ref(), key, &bots).await;
            p["kingdom"] = json!(seat_color(3, i));
            players.push(p);
        }
        full["players"] = json!(players);
        full["you"] = json!(s.you.map(|x| seat_color(3, x.index())));
    }
    full
}

/// Connects `user` to the table `id` as a WebSocket would, on this node or through the node
/// of the cluster that serves it, and waits for the first `state`.
async fn join(
    state: &AppState,
    id: &str,
    user: &ApiUser,
) -> Result<(Link, State, mpsc::UnboundedReceiver<ServerMessage>), LichessError> {
    let no_game = |e: ServerError| match e {
        ServerError::NotFound(_) => LichessError::new(StatusCode::NOT_FOUND, "No such game"),
        other => other.into(),
    };
    let route = state.route(id).await.map_err(no_game)?;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let link = super::ws::connect(state, id, route, Some(user.person.clone()), None, &tx)
        .await
        .map_err(no_game)?;
    // Only the table (or the owner node's relay) holds the sender from here: when the table
    // goes away (its node died), the messages end and so does the stream.
    drop(tx);
    loop {
        // From another node of a cluster, messages come as the owner's JSON text: parsed here.
        match rx.recv().await.map(ServerMessage::parsed) {
            Some(ServerMessage::State(s)) => return Ok((link, *s, rx)),
            Some(_) => continue,
            None => {
                link.disconnect().await;
                return Err(LichessError::from(ServerError::TableClosed));
            }
        }
    }
}

async fn game_stream(
    api: Api,
    state: AppState,
    user: ApiUser,
    id: String,
) -> Result<Response, LichessError> {
    api.check(&user)?;
    let (link, mut current, mut messages) = join(&state, &id, &user).await?;

    // Every seat taken and this player seated: the game starts (refused while another seated
    // person is not connected: that person's stream starts it).
    if current.table.phase == Phase::Open
        && current.you.is_some()
        && current.table.seats.iter().all(Option::is_some)
        && link.message(ClientMessage::Start {}).await.is_ok()
    {
        // The start's update is on its way to this connection (from another node of a
        // cluster it may come after the answer): in `gameFull` already.
        let until = tokio::time::Instant::now() + START_WAIT;
        while current.table.phase == Phase::Open {
            match tokio::time::timeout_at(until, messages.recv())
                .await
                .map(|m| m.map(ServerMessage::parsed))
            {
                Ok(Some(ServerMessage::Update(u))) => {
                    let _ = current.apply(&u);
                }
                Ok(Some(ServerMessage::State(s))) => current = *s,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
    let full = game_full(&state, &current).await;
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let mut shutdown = state.shutdown_signal();
    tokio::spawn(async move {
        let mut last = line(&game_state(&current));
        // whether this stream last said the opponent was gone
        let mut told_gone = false;
        if tx.send(line(&full)).await.is_ok() {
            let mut tick =
                tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
            loop {
                let out = tokio::select! {
                    got = messages.recv() => match got.map(ServerMessage::parsed) {
                        Some(ServerMessage::Update(u)) => {
                            if current.apply(&u).is_err() {
                                break;
                            }
                            let next = line(&game_state(&current));
                            if next == last {
                                continue;
                            }
                            last = next.clone();
                            next
                        }
                        Some(ServerMessage::State(s)) => {
                            current = *s;
                            let next = line(&game_state(&current));
                            if next == last {
                                continue;
                            }
                            last = next.clone();
                            next
                        }
                        Some(ServerMessage::Chat { room, name, text, .. }) => {
                            line(&chat_line(room, &name, &text))
                        }
                        // the opponent's connection: gone while the game runs, and back
                        // after that (as lichess: nothing when it merely arrives)
                        Some(ServerMessage::Presence { seat, connected, abandon_ms })
                            if current.you.is_some_and(|you| you != seat)
                                && ((!connected && current.table.phase == Phase::Running)
                                    || (connected && told_gone)) =>
                        {
                            told_gone = !connected;
                            line(&opponent_gone(connected, abandon_ms))
                        }
                        Some(_) => continue,
                        None => break,
                    },
                    _ = tick.tick() => Bytes::from_static(b"\n"),
                    () = tx.closed() => break,
                    _ = shutdown.changed() => break,
                };
                if tx.send(out).await.is_err() {
                    break;
                }
            }
        }
        link.disconnect().await;
    });
    Ok(ndjson(rx))
}

/// Plays `msg` for `user` at the table `id`: connects, checks that the player sits there and
/// that the game runs, sends it at the table's version, disconnects.
async fn act(
    api: Api,
    state: AppState,
    user: ApiUser,
    id: String,
    msg: ClientMessage,
) -> Result<Response, LichessError> {
    api.check(&user)?;
    let (link, current, _messages) = join(&state, &id, &user).await?;
    let result = async {
        let Some(you) = current.you else {
            return Err(LichessError::bad_request("you do not play in this game"));
        };
        let chat = matches!(msg, ClientMessage::Chat { .. });
        match current.table.phase {
            Phase::Ended if !chat => return Err(LichessError::bad_request("the game is over")),
            Phase::Open if !matches!(msg, ClientMessage::Abort {}) && !chat => {
                return Err(LichessError::bad_request(
                    "the game has not started: open its stream first",
                ))
            }
            _ => {}
        }
        let msg = match msg {
            ClientMessage::Move { mv, .. } => {
                if current.to_move != Some(you) {
                    return Err(LichessError::bad_request("not your turn"));
                }
                ClientMessage::Move {
                    version: current.version,
                    mv,
                }
            }
            // lichess's takeback "yes": give the opponent's request, else make one (a draw
            // offer needs no such turn: the table agrees when the other side offered first)
            ClientMessage::AcceptTakeback {} if current.takeback_offer.is_none_or(|x| x == you) => {
                ClientMessage::Takeback {}
            }
            other => other,
        };
        link.message(msg)
            .await
            .map_err(|e| LichessError::bad_request(e.public_message()))
    }
    .await;
    link.disconnect().await;
    result.map(|()| Json(json!({"ok": true})).into_response())
}

/// The message of lichess's `{accept}` in the draw and takeback routes: `yes`/`true` gives
/// `yes`, `no`/`false` gives `no`.
fn answer(
    word: &str,
    yes: ClientMessage,
    no: ClientMessage,
) -> Result<ClientMessage, LichessError> {
    match word {
        "yes" | "true" => Ok(yes),
        "no" | "false" => Ok(no),
        other => Err(LichessError::bad_request(format!(
            "accept must be yes, no, true or false, not {other:?}"
        ))),
    }
}

/// The chat message of lichess's chat form: `room` (`player`, the default: the seated
/// persons' chat, the only room a seated player speaks in at chuhe) and `text`.
async fn chat_message(request: Request) -> Result<ClientMessage, LichessError> {
    let p = params(request).await?;
    match p.get("room").map(String::as_str).unwrap_or("player") {
        "player" => {}
        "spectator" => {
            return Err(LichessError::bad_request(
                "a seated player speaks in the player room; the spectators' room is theirs",
            ))
        }
        other => {
            return Err(LichessError::bad_request(format!(
                "room must be player or spectator, not {other:?}"
            )))
        }
    }
    let Some(text) = p.get("text") else {
        return Err(LichessError::bad_request("text is missing"));
    };
    Ok(ClientMessage::Chat { text: text.clone() })
}

macro_rules! play_routes {
    ($api:expr, $prefix:literal, $stream:ident, $mv:ident, $resign:ident, $abort:ident, $berserk:ident, $chat:ident, $draw:ident, $takeback:ident) => {
        #[doc = concat!("`GET ", $prefix, "/game/stream/{id}`: the game as NDJSON: `gameFull`, then a `gameState` after each change, an empty line every 6 s.")]
        #[utoipa::path(
            get,
            path = concat!($prefix, "/game/stream/{id}"),
            tag = "lichess",
            params(("id" = String, Path, description = "The game's (table's) id")),
            responses(
                (status = 200, description = "NDJSON lines until the client leaves", body = String, content_type = "application/x-ndjson"),
                (status = 400, description = "Not for this kind of account (`{\"error\": \"...\"}`)"),
                (status = 401, description = "No such token, or a missing scope"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $stream(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path(id): Path<String>,
        ) -> Result<Response, LichessError> {
            game_stream($api, state, user, id).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/move/{mv}`: plays a move (xiangqi: ICCS, `h2e2`); an illegal one is refused with the rules' reason.")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/move/{mv}"),
            tag = "lichess",
            params(
                ("id" = String, Path, description = "The game's (table's) id"),
                ("mv" = String, Path, description = "The move, in the table's move text (xiangqi: ICCS such as `h2e2`, ranks 0-9)"),
            ),
            responses(
                (status = 200, description = "Played: `{\"ok\": true}`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"illegal move: ...\"}`, `not your turn`, `the game is over`...)"),
                (status = 401, description = "No such token, or a missing scope"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $mv(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path((id, mv)): Path<(String, String)>,
        ) -> Result<Response, LichessError> {
            act($api, state, user, id, ClientMessage::Move { version: 0, mv }).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/resign`: resigns the game.")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/resign"),
            tag = "lichess",
            params(("id" = String, Path, description = "The game's (table's) id")),
            responses(
                (status = 200, description = "Resigned: `{\"ok\": true}`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $resign(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path(id): Path<String>,
        ) -> Result<Response, LichessError> {
            act($api, state, user, id, ClientMessage::Resign {}).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/abort`: aborts the game before its first moves.")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/abort"),
            tag = "lichess",
            params(("id" = String, Path, description = "The game's (table's) id")),
            responses(
                (status = 200, description = "Aborted: `{\"ok\": true}`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $abort(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path(id): Path<String>,
        ) -> Result<Response, LichessError> {
            act($api, state, user, id, ClientMessage::Abort {}).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/berserk`: goes berserk in an arena game (a tournament created berserkable), before the player's first move: half the clock, no increment, +1 arena point for a win of at least 7 moves.")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/berserk"),
            tag = "lichess",
            params(("id" = String, Path, description = "The game's (table's) id")),
            responses(
                (status = 200, description = "Berserk: `{\"ok\": true}`; the game stream's `gameState` has `wberserk` or `bberserk`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`: not an arena game, an arena without berserk, after the first move, already berserk)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $berserk(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path(id): Path<String>,
        ) -> Result<Response, LichessError> {
            act($api, state, user, id, ClientMessage::Berserk {}).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/chat`: says `text` (form field) in the players' chat of the game; `room` `player` (the default).")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/chat"),
            tag = "lichess",
            params(("id" = String, Path, description = "The game's (table's) id")),
            request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "`room=player&text=...` (or the same fields as a JSON object)"),
            responses(
                (status = 200, description = "Said: `{\"ok\": true}`; the players' streams get a `chatLine`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`: an empty or too long text, the spectators' room)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $chat(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path(id): Path<String>,
            request: Request,
        ) -> Result<Response, LichessError> {
            let msg = chat_message(request).await?;
            act($api, state, user, id, msg).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/draw/{accept}`: `yes` offers a draw, or agrees to the opponent's offer; `no` declines it.")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/draw/{accept}"),
            tag = "lichess",
            params(
                ("id" = String, Path, description = "The game's (table's) id"),
                ("accept" = String, Path, description = "`yes` or `true`; `no` or `false`"),
            ),
            responses(
                (status = 200, description = "Done: `{\"ok\": true}`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`: `there is no draw offer to answer`, the game is over...)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $draw(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path((id, accept)): Path<(String, String)>,
        ) -> Result<Response, LichessError> {
            let msg = answer(&accept, ClientMessage::OfferDraw {}, ClientMessage::DeclineDraw {})?;
            act($api, state, user, id, msg).await
        }

        #[doc = concat!("`POST ", $prefix, "/game/{id}/takeback/{accept}`: `yes` asks for a takeback, or agrees to the opponent's request; `no` declines it (unrated xiangqi games).")]
        #[utoipa::path(
            post,
            path = concat!($prefix, "/game/{id}/takeback/{accept}"),
            tag = "lichess",
            params(
                ("id" = String, Path, description = "The game's (table's) id"),
                ("accept" = String, Path, description = "`yes` or `true`; `no` or `false`"),
            ),
            responses(
                (status = 200, description = "Done: `{\"ok\": true}`", body = Object),
                (status = 400, description = "Refused with its reason (`{\"error\": \"...\"}`: `there is no takeback request to answer`, a rated game...)"),
                (status = 404, description = "No such game"),
            )
        )]
        pub(crate) async fn $takeback(
            axum::extract::State(state): axum::extract::State<AppState>,
            user: ApiUser,
            Path((id, accept)): Path<(String, String)>,
        ) -> Result<Response, LichessError> {
            let msg = answer(&accept, ClientMessage::AcceptTakeback {}, ClientMessage::DeclineTakeback {})?;
            act($api, state, user, id, msg).await
        }
    };
}

play_routes!(
    Api::Bot,
    "/api/bot",
    bot_stream,
    bot_move,
    bot_resign,
    bot_abort,
    bot_berserk,
    bot_chat,
    bot_draw,
    bot_takeback
);
play_routes!(
    Api::Board,
    "/api/board",
    board_stream,
    board_move,
    board_resign,
    board_abort,
    board_berserk,
    board_chat,
    board_draw,
    board_takeback
);

/// Refuses a token that may not challenge (none of `challenge:write`, `bot:play`,
/// `board:play`).
fn may_challenge(user: &ApiUser) -> Result<(), LichessError> {
    if [Scope::ChallengeWrite, Scope::BotPlay, Scope::BoardPlay]
        .iter()
        .any(|s| user.has(*s))
    {
        Ok(())
    } else {
        Err(LichessError::new(StatusCode::UNAUTHORIZED, "Missing scope"))
    }
}

/// `POST /api/challenge/{username}`: challenges the account `username`: parameters `rated`
/// (`true`/`false`, default `false`), `clock.limit` and `clock.increment` (seconds; untimed
/// without them), `color` (`white` = Red, `black`, `random`), `variant` (`xiangqi`, `banqi`).
/// Both players' event streams get a `challenge` line. A bot and a person play casual games
/// only.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}",
    tag = "lichess",
    params(("id" = String, Path, description = "The challenged account's name (lichess's `{username}`)")),
    responses(
        (status = 200, description = "The challenge (lichess's shape), waiting for an answer", body = Object),
        (status = 400, description = "A bad parameter, the account itself, a rated game between a bot and a person, too many challenges (`{\"error\": \"...\"}`)"),
        (status = 401, description = "No such token, or a missing scope"),
        (status = 404, description = "No such account"),
    )
)]
pub(crate) async fn challenge(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
    Path(username): Path<String>,
    request: Request,
) -> Result<Response, LichessError> {
    may_challenge(&user)?;
    if !user.person.account {
        return Err(LichessError::bad_request(
            "guests cannot challenge: make an account first",
        ));
    }
    let p = params(request).await?;
    let name = crate::accounts::names::normalize(&username)
        .map_err(|_| LichessError::new(StatusCode::NOT_FOUND, "No such user"))?;
    let dest = state
        .store()
        .account_by_skeleton(&name)
        .await?
        .ok_or_else(|| LichessError::new(StatusCode::NOT_FOUND, "No such user"))?;
    if dest.id == user.person.id {
        return Err(LichessError::bad_request("you cannot challenge yourself"));
    }
    let rated = match p.get("rated").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(LichessError::bad_request(format!(
                "rated {other:?}: true or false"
            )))
        }
    };
    let dest_bot = state.store().is_bot(&dest.id).await?;
    if rated && dest_bot != user.bot {
        return Err(LichessError::bad_request(
            "a bot and a person play casual games only: rated=false",
        ));
    }
    let options = options_of(&p, rated, false)?;
    let color = p
        .get("color")
        .cloned()
        .unwrap_or_else(|| "random".to_owned());
    let challenger_seat = seat_of_color(&p)?;
    let now = crate::store::now_ms();
    let challenge = Challenge {
        id: crate::accounts::tokens::new_token()[4..12].to_owned(),
        challenger: SeatPlayer::Person {
            id: user.person.id.clone(),
            name: user.person.name.clone(),
            account: true,
            bot: user.bot,
        },
        dest: SeatPlayer::Person {
            id: dest.id.clone(),
            name: dest.name.clone(),
            account: true,
            bot: dest_bot,
        },
        color,
        challenger_seat,
        created_ms: now,
        expires_ms: expires_ms(&options, now),
        options,
    };
    state
        .store()
        .create_challenge(&challenge)
        .await
        .map_err(|e| match e {
            StoreError::Refused(why) => LichessError::bad_request(why),
            other => other.into(),
        })?;
    announce_challenge(&state, "challenge", &challenge, "created", None);
    Ok(Json(challenge_json(&challenge, "created")).into_response())
}

fn no_challenge() -> LichessError {
    LichessError::new(StatusCode::NOT_FOUND, "No such challenge")
}

/// `POST /api/challenge/{id}/accept`: the challenged account accepts: the table is made with
/// both seated, and both players' event streams get `gameStart`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/accept",
    tag = "lichess",
    params(("id" = String, Path, description = "The challenge's id")),
    responses(
        (status = 200, description = "Accepted: `{\"ok\": true}`; the game's id comes as `gameStart`", body = Object),
        (status = 404, description = "No such challenge for this account (`{\"error\": \"No such challenge\"}`)"),
    )
)]
pub(crate) async fn accept(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    may_challenge(&user)?;
    // One conditional UPDATE: of two accepts (on two nodes) one wins, the other finds nothing.
    let c = state
        .store()
        .answer_challenge(&id, Answerer::Dest(&user.person.id), "accepted", None)
        .await?
        .ok_or_else(no_challenge)?;
    let seats = if c.challenger_seat == 0 {
        vec![Some(c.challenger.clone()), Some(c.dest.clone())]
    } else {
        vec![Some(c.dest.clone()), Some(c.challenger.clone())]
    };
    let made = async {
        let handle = state.create_seated_table(c.options.clone(), seats).await?;
        handle.summary().await
    }
    .await;
    match made {
        Ok(table) => {
            state.announce_game("gameStart", &table).await;
            Ok(Json(json!({"ok": true})).into_response())
        }
        Err(e) => {
            // no table: the challenge waits again
            if let Err(again) = state.store().reopen_challenge(&id).await {
                tracing::warn!(challenge = %id, error = %again, "accepted challenge without a table");
            }
            Err(e.into())
        }
    }
}

/// `POST /api/challenge/{id}/decline`: the challenged account declines (form or JSON
/// `reason`, a word of lichess's: `generic` by default); both event streams get
/// `challengeDeclined`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/decline",
    tag = "lichess",
    params(("id" = String, Path, description = "The challenge's id")),
    responses(
        (status = 200, description = "Declined: `{\"ok\": true}`", body = Object),
        (status = 404, description = "No such challenge for this account"),
    )
)]
pub(crate) async fn decline(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, LichessError> {
    may_challenge(&user)?;
    let p = params(request).await?;
    let key = p.get("reason").map_or("generic", String::as_str).to_owned();
    if key.len() > 32 || !key.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(LichessError::bad_request(format!(
            "reason {key:?}: a word such as generic, later, tooFast"
        )));
    }
    let c = state
        .store()
        .answer_challenge(&id, Answerer::Dest(&user.person.id), "declined", Some(&key))
        .await?
        .ok_or_else(no_challenge)?;
    let reason = if key == "generic" {
        "I'm not accepting challenges at the moment.".to_owned()
    } else {
        key.clone()
    };
    announce_challenge(
        &state,
        "challengeDeclined",
        &c,
        "declined",
        Some((&reason, &key)),
    );
    Ok(Json(json!({"ok": true})).into_response())
}

/// `POST /api/challenge/{id}/cancel`: the challenger takes the challenge back; both event
/// streams get `challengeCanceled`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/cancel",
    tag = "lichess",
    params(("id" = String, Path, description = "The challenge's id")),
    responses(
        (status = 200, description = "Cancelled: `{\"ok\": true}`", body = Object),
        (status = 404, description = "No such challenge of this account"),
    )
)]
pub(crate) async fn cancel(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    may_challenge(&user)?;
    let c = state
        .store()
        .answer_challenge(&id, Answerer::Challenger(&user.person.id), "canceled", None)
        .await?
        .ok_or_else(no_challenge)?;
    announce_challenge(&state, "challengeCanceled", &c, "canceled", None);
    Ok(Json(json!({"ok": true})).into_response())
}

/// `GET /api/challenge`: the account's challenges still waiting for an answer, as lichess
/// lists them: `{"in": [...], "out": [...]}` (challenges to the account, and from it), each
/// in lichess's challenge shape with `direction` (`in` or `out`), the oldest first; read from
/// the stored challenges, so any node answers the same.
#[utoipa::path(
    get,
    path = "/api/challenge",
    tag = "lichess",
    responses(
        (status = 200, description = "`{\"in\": [challenge...], \"out\": [challenge...]}`", body = Object),
        (status = 401, description = "No such token, or a missing scope"),
    )
)]
pub(crate) async fn list_challenges(
    axum::extract::State(state): axum::extract::State<AppState>,
    user: ApiUser,
) -> Result<Response, LichessError> {
    may_read_events(&user)?;
    let me = user.person.id.as_str();
    let (mut incoming, mut outgoing) = (Vec::new(), Vec::new());
    for c in state.store().open_challenges(me).await? {
        let mut v = challenge_json(&c, "created");
        if crate::site::challenges::person_id(&c.challenger) == me {
            v["direction"] = json!("out");
            outgoing.push(v);
        } else {
            v["direction"] = json!("in");
            incoming.push(v);
        }
    }
    Ok(Json(json!({"in": incoming, "out": outgoing})).into_response())
}

/// Whether `user`'s token may read its events and challenges: one of `challenge:read`,
/// `bot:play`, `board:play`.
///
/// # Errors
/// 401 `Missing scope` otherwise.
fn may_read_events(user: &ApiUser) -> Result<(), LichessError> {
    if [Scope::ChallengeRead, Scope::BotPlay, Scope::BoardPlay]
        .iter()
        .any(|s| user.has(*s))
    {
        Ok(())
    } else {
        Err(LichessError::new(StatusCode::UNAUTHORIZED, "Missing scope"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::challenges::speed_of;

    #[test]
    fn speeds_follow_lichess_estimate() {
        let with = |limit_s: u64, inc_s: u64| {
            let options: crate::protocol::TableOptions = serde_json::from_value(json!({
                "variant": "xiangqi",
                "time": {"initial_ms": limit_s * 1000, "increment_ms": inc_s * 1000},
            }))
            .unwrap();
            speed_of(&options)
        };
        assert_eq!(with(15, 0), "ultraBullet");
        assert_eq!(with(60, 1), "bullet");
        assert_eq!(with(180, 0), "blitz");
        assert_eq!(with(300, 3), "blitz");
        assert_eq!(with(600, 5), "rapid");
        assert_eq!(with(1800, 0), "classical");
        let untimed: crate::protocol::TableOptions =
            serde_json::from_value(json!({"variant": "xiangqi"})).unwrap();
        assert_eq!(speed_of(&untimed), "correspondence");
    }

    #[test]
    fn parameters_read_flat_and_nested() {
        let mut out = HashMap::new();
        let object = json!({"level": 3, "clock": {"limit": 300, "increment": 2}, "color": "white", "fen": null});
        flatten("", object.as_object().unwrap(), &mut out);
        let mut keys: Vec<_> = out.iter().map(|(k, v)| format!("{k}={v}")).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "clock.increment=2",
                "clock.limit=300",
                "color=white",
                "level=3"
            ]
        );
        assert_eq!(number(&out, "level", 1..=8).unwrap_or(None), Some(3));
        assert_eq!(
            number(&out, "clock.limit", 0..=60).unwrap_err().message,
            "clock.limit \"300\": a whole number from 0 to 60"
        );
    }
}
