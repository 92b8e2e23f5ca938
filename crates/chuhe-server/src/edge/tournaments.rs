//! lichess's tournament APIs on chuhe (`docs/protocol.md`, "Tournaments" and "Swiss"): arenas
//! under `/api/tournament` (xiangqi, banqi, and sanguo arenas) and Swiss events under
//! `/api/swiss`: create, list, show, join, withdraw, and a live NDJSON stream of each. The site
//! runs them (`crate::site::tournaments`); these routes read forms or JSON as lichess's clients
//! send them and answer in lichess's shapes (`LichessError` for refusals).

use crate::accounts::tokens::Scope;
use crate::edge::botplay::{line, ndjson, params, KEEP_ALIVE};
use crate::edge::extract::{ApiUser, LichessError};
use crate::error::ServerError;
use crate::site::tournaments::{check_new, check_new_swiss, NewArena, NewSwiss};
use crate::site::AppState;
use crate::store::now_ms;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::collections::HashMap;
use tokio::sync::mpsc;

/// The parameter `key`, parsed, or `default` when absent.
fn field<T: std::str::FromStr>(
    p: &HashMap<String, String>,
    key: &str,
    default: Option<T>,
) -> Result<T, LichessError> {
    match p.get(key) {
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| LichessError::bad_request(format!("{key}: {text:?} does not read"))),
        None => default.ok_or_else(|| LichessError::bad_request(format!("{key}: missing"))),
    }
}

/// A lichess boolean: `true` or `false`.
fn flag(p: &HashMap<String, String>, key: &str, default: bool) -> Result<bool, LichessError> {
    match p.get(key).map(String::as_str) {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => Err(LichessError::bad_request(format!(
            "{key}: {other:?} is not true or false"
        ))),
    }
}

/// The new arena of a request's parameters (lichess's names and units).
fn new_arena(p: &HashMap<String, String>) -> Result<NewArena, LichessError> {
    let name = p.get("name").cloned().unwrap_or_else(|| "chuhe".to_owned());
    let variant_key = p.get("variant").map_or("xiangqi", String::as_str);
    let variant = variant_key
        .parse()
        .map_err(|_| LichessError::bad_request(format!("variant: {variant_key:?} is unknown")))?;
    let clock_minutes: f64 = field(p, "clockTime", None)?;
    if !clock_minutes.is_finite() {
        return Err(LichessError::bad_request("clockTime: a number of minutes"));
    }
    let clock_limit_s = (clock_minutes * 60.0).round() as i64;
    let clock_increment_s: i64 = field(p, "clockIncrement", Some(0))?;
    let minutes: i64 = field(p, "minutes", None)?;
    let starts_ms: i64 = field(p, "startDate", Some(now_ms()))?;
    Ok(NewArena {
        name,
        variant,
        clock_limit_s,
        clock_increment_s,
        minutes,
        starts_ms,
        rated: flag(p, "rated", true)?,
        berserkable: flag(p, "berserkable", true)?,
    })
}

/// `POST /api/tournament`: a new arena, created by the account (session cookie, or a token
/// with `tournament:write`); answered with the tournament as `GET /api/tournament/{id}` shows it.
#[utoipa::path(
    post,
    path = "/api/tournament",
    tag = "lichess",
    responses(
        (status = 200, description = "The new tournament, as `GET /api/tournament/{id}` shows it", body = Object),
        (status = 400, description = "A field out of bounds, or the account's daily limit (`{\"error\": \"...\"}`)"),
        (status = 401, description = "No such token, `Missing scope`, or a guest"),
    )
)]
pub(crate) async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    request: Request,
) -> Result<Response, LichessError> {
    user.require(Scope::TournamentWrite)?;
    let p = params(request).await?;
    let spec = new_arena(&p)?;
    // lichess's refusal names the field alone.
    check_new(&spec, now_ms()).map_err(|e| match e {
        ServerError::BadMessage(why) => LichessError::bad_request(why),
        e => LichessError::from(e),
    })?;
    let id = state
        .tournaments()
        .create(&state, spec, &user.person)
        .await?;
    Ok(Json(state.tournaments().view(&state, &id).await?).into_response())
}

/// `GET /api/tournament`: the tournaments `created` (not started), `started` and the last 20
/// `finished`: arenas, sanguo arenas and Swiss events (`system`: `arena` or `swiss`).
#[utoipa::path(
    get,
    path = "/api/tournament",
    tag = "lichess",
    responses((status = 200, description = "`{\"created\": [...], \"started\": [...], \"finished\": [...]}`", body = Object))
)]
pub(crate) async fn list(State(state): State<AppState>) -> Result<Response, LichessError> {
    Ok(Json(state.tournaments().list(&state, false).await?).into_response())
}

/// Refuses an id of the other family of routes (a Swiss event under `/api/tournament`, an arena
/// under `/api/swiss`) as an unknown one.
async fn expect(state: &AppState, id: &str, swiss: bool) -> Result<(), LichessError> {
    let kind = state.tournaments().kind(state, id).await?;
    if kind.is_swiss() != swiss {
        return Err(ServerError::NotFound(format!("no tournament {id:?}")).into());
    }
    Ok(())
}

/// `GET /api/tournament/{id}`: the arena, its standings and the games in play.
#[utoipa::path(
    get,
    path = "/api/tournament/{id}",
    tag = "lichess",
    params(("id" = String, Path, description = "The tournament's id")),
    responses(
        (status = 200, description = "The tournament (`docs/protocol.md`)", body = Object),
        (status = 404, description = "No such tournament"),
    )
)]
pub(crate) async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    expect(&state, &id, false).await?;
    Ok(Json(state.tournaments().view(&state, &id).await?).into_response())
}

/// `POST /api/tournament/{id}/join`: the account joins (or joins again, its score kept).
#[utoipa::path(
    post,
    path = "/api/tournament/{id}/join",
    tag = "lichess",
    params(("id" = String, Path, description = "The tournament's id")),
    responses(
        (status = 200, description = "`{\"ok\": true}`", body = Object),
        (status = 401, description = "No such token, `Missing scope`, or a guest"),
        (status = 404, description = "No such tournament running"),
        (status = 409, description = "The tournament is over"),
    )
)]
pub(crate) async fn join(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    enter(state, user, id, false).await
}

/// `POST /api/tournament/{id}/withdraw`: the account leaves (before the start) or stops being
/// paired (after it; its score stays).
#[utoipa::path(
    post,
    path = "/api/tournament/{id}/withdraw",
    tag = "lichess",
    params(("id" = String, Path, description = "The tournament's id")),
    responses(
        (status = 200, description = "`{\"ok\": true}`", body = Object),
        (status = 401, description = "No such token, or `Missing scope`"),
        (status = 404, description = "No such tournament running"),
        (status = 409, description = "Not joined, or the tournament is over"),
    )
)]
pub(crate) async fn withdraw(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    leave(state, user, id, false).await
}

/// `GET /api/tournament/{id}/stream`: the tournament as `GET /api/tournament/{id}` shows it,
/// one NDJSON line now and one after each change (a join, a pairing, a result, the end), an
/// empty line every 6 s; the stream ends after the line that shows it finished.
#[utoipa::path(
    get,
    path = "/api/tournament/{id}/stream",
    tag = "lichess",
    params(("id" = String, Path, description = "The tournament's id")),
    responses(
        (status = 200, description = "NDJSON lines (`application/x-ndjson`)", body = String, content_type = "application/x-ndjson"),
        (status = 404, description = "No such tournament"),
    )
)]
pub(crate) async fn stream(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    expect(&state, &id, false).await?;
    live(state, id).await
}

/// The NDJSON stream of the tournament `id` (either family).
async fn live(state: AppState, id: String) -> Result<Response, LichessError> {
    // Subscribed before the first line: a change meanwhile is sent again rather than missed.
    let watching = state.tournaments().watch(&id).await;
    let first = state.tournaments().view(&state, &id).await?;
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let mut shutdown = state.shutdown_signal();
    let weak = state.downgrade();
    let every = state
        .settings_ref()
        .tournament_wave
        .max(std::time::Duration::from_millis(10));
    tokio::spawn(async move {
        if tx.send(line(&first)).await.is_err() {
            return;
        }
        if first["isFinished"] == json!(true) {
            return;
        }
        let mut watching = watching;
        let mut tick =
            tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        // Run by another node of a cluster (or moved there): the stored version is read every
        // wave, and a new one sends the view as the owner saved it.
        let mut poll = tokio::time::interval(every);
        let mut seen = match weak.upgrade() {
            Some(state) => state
                .tournaments()
                .stored_version(&state, &id)
                .await
                .ok()
                .flatten(),
            None => return,
        };
        loop {
            let out = tokio::select! {
                got = async {
                    match watching.as_mut() {
                        Some(changed) => changed.changed().await.is_ok(),
                        None => std::future::pending().await,
                    }
                } => {
                    let Some(state) = weak.upgrade() else { return };
                    let Ok(view) = state.tournaments().view(&state, &id).await else {
                        return;
                    };
                    if !got {
                        // The sender gone: finished, or taken over by another node.
                        watching = None;
                    }
                    let over = view["isFinished"] == json!(true);
                    if tx.send(line(&view)).await.is_err() || over {
                        return;
                    }
                    continue;
                }
                _ = poll.tick(), if watching.is_none() => {
                    let Some(state) = weak.upgrade() else { return };
                    let version = state.tournaments().stored_version(&state, &id).await.ok().flatten();
                    if version == seen {
                        continue;
                    }
                    seen = version;
                    // it may run here now (taken over): follow it from memory again
                    watching = state.tournaments().watch(&id).await;
                    let Ok(view) = state.tournaments().view(&state, &id).await else {
                        return;
                    };
                    let over = view["isFinished"] == json!(true);
                    if tx.send(line(&view)).await.is_err() || over {
                        return;
                    }
                    continue;
                }
                _ = tick.tick() => Bytes::from_static(b"\n"),
                () = tx.closed() => return,
                _ = shutdown.changed() => return,
            };
            if tx.send(out).await.is_err() {
                return;
            }
        }
    });
    Ok(ndjson(rx))
}

/// The new Swiss event of a request's parameters (lichess's names and units: `clock.limit` and
/// `clock.increment` in seconds, `startsAt` in milliseconds, `roundInterval` in seconds).
fn new_swiss(p: &HashMap<String, String>) -> Result<NewSwiss, LichessError> {
    let name = p.get("name").cloned().unwrap_or_else(|| "chuhe".to_owned());
    let variant_key = p.get("variant").map_or("xiangqi", String::as_str);
    let variant = variant_key
        .parse()
        .map_err(|_| LichessError::bad_request(format!("variant: {variant_key:?} is unknown")))?;
    Ok(NewSwiss {
        name,
        variant,
        clock_limit_s: field(p, "clock.limit", None)?,
        clock_increment_s: field(p, "clock.increment", Some(0))?,
        nb_rounds: field(p, "nbRounds", None)?,
        starts_ms: field(p, "startsAt", Some(now_ms()))?,
        round_interval_s: field(p, "roundInterval", Some(60))?,
        rated: flag(p, "rated", true)?,
    })
}

/// `POST /api/swiss/new`: a new Swiss event, created by the account (session cookie, or a
/// token with `tournament:write`); answered as `GET /api/swiss/{id}` shows it. (lichess's
/// route names a team, `/api/swiss/new/{teamId}`; chuhe has no teams.)
#[utoipa::path(
    post,
    path = "/api/swiss/new",
    tag = "lichess",
    responses(
        (status = 200, description = "The new Swiss event, as `GET /api/swiss/{id}` shows it", body = Object),
        (status = 400, description = "A field out of bounds, or the account's daily limit (`{\"error\": \"...\"}`)"),
        (status = 401, description = "No such token, `Missing scope`, or a guest"),
    )
)]
pub(crate) async fn create_swiss(
    State(state): State<AppState>,
    user: ApiUser,
    request: Request,
) -> Result<Response, LichessError> {
    user.require(Scope::TournamentWrite)?;
    let p = params(request).await?;
    let spec = new_swiss(&p)?;
    check_new_swiss(&spec, now_ms()).map_err(|e| match e {
        ServerError::BadMessage(why) => LichessError::bad_request(why),
        e => LichessError::from(e),
    })?;
    let id = state
        .tournaments()
        .create_swiss(&state, spec, &user.person)
        .await?;
    Ok(Json(state.tournaments().view(&state, &id).await?).into_response())
}

/// `GET /api/swiss`: the Swiss events `created` (not started), `started` and the last 20
/// `finished`, as `GET /api/tournament` lists them.
#[utoipa::path(
    get,
    path = "/api/swiss",
    tag = "lichess",
    responses((status = 200, description = "`{\"created\": [...], \"started\": [...], \"finished\": [...]}`", body = Object))
)]
pub(crate) async fn list_swiss(State(state): State<AppState>) -> Result<Response, LichessError> {
    Ok(Json(state.tournaments().list(&state, true).await?).into_response())
}

/// `GET /api/swiss/{id}`: the Swiss event, its standings with tie-breaks, its rounds and
/// pairings.
#[utoipa::path(
    get,
    path = "/api/swiss/{id}",
    tag = "lichess",
    params(("id" = String, Path, description = "The Swiss event's id")),
    responses(
        (status = 200, description = "The Swiss event (`docs/protocol.md`)", body = Object),
        (status = 404, description = "No such Swiss event"),
    )
)]
pub(crate) async fn show_swiss(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    expect(&state, &id, true).await?;
    Ok(Json(state.tournaments().view(&state, &id).await?).into_response())
}

/// `POST /api/swiss/{id}/join`: the account joins (late joins until half the rounds have
/// started), or joins again after withdrawing.
#[utoipa::path(
    post,
    path = "/api/swiss/{id}/join",
    tag = "lichess",
    params(("id" = String, Path, description = "The Swiss event's id")),
    responses(
        (status = 200, description = "`{\"ok\": true}`", body = Object),
        (status = 401, description = "No such token, `Missing scope`, or a guest"),
        (status = 404, description = "No such Swiss event running"),
        (status = 409, description = "Over, or more than half the rounds have started"),
    )
)]
pub(crate) async fn join_swiss(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    enter(state, user, id, true).await
}

/// `POST /api/swiss/{id}/withdraw`: the account leaves (before the start) or is no longer
/// paired (after it; 0 for the rounds missed, its games stay).
#[utoipa::path(
    post,
    path = "/api/swiss/{id}/withdraw",
    tag = "lichess",
    params(("id" = String, Path, description = "The Swiss event's id")),
    responses(
        (status = 200, description = "`{\"ok\": true}`", body = Object),
        (status = 401, description = "No such token, or `Missing scope`"),
        (status = 404, description = "No such Swiss event running"),
        (status = 409, description = "Not joined, or over"),
    )
)]
pub(crate) async fn withdraw_swiss(
    State(state): State<AppState>,
    user: ApiUser,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    leave(state, user, id, true).await
}

/// `GET /api/swiss/{id}/stream`: the Swiss event as `GET /api/swiss/{id}` shows it, one NDJSON
/// line now and one after each change, an empty line every 6 s; the stream ends after the line
/// that shows it finished.
#[utoipa::path(
    get,
    path = "/api/swiss/{id}/stream",
    tag = "lichess",
    params(("id" = String, Path, description = "The Swiss event's id")),
    responses(
        (status = 200, description = "NDJSON lines (`application/x-ndjson`)", body = String, content_type = "application/x-ndjson"),
        (status = 404, description = "No such Swiss event"),
    )
)]
pub(crate) async fn stream_swiss(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, LichessError> {
    expect(&state, &id, true).await?;
    live(state, id).await
}

/// The query of `GET /api/swiss/{id}/games`.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct GamesQuery {
    notation: Option<String>,
}

/// `GET /api/swiss/{id}/games[?notation=chinese|wxf|iccs|xboard]`: the event's finished games
/// as PGN (as `GET /api/tables/{id}/pgn` writes each), round by round, board by board, one
/// blank line between games.
#[utoipa::path(
    get,
    path = "/api/swiss/{id}/games",
    tag = "lichess",
    params(
        ("id" = String, Path, description = "The Swiss event's id"),
        ("notation" = Option<String>, Query, description = "Xiangqi's move notation: `chinese` (default), `wxf`, `iccs` or `xboard`; ignored by banqi"),
    ),
    responses(
        (status = 200, description = "The finished games as PGN", body = String, content_type = "application/x-chess-pgn"),
        (status = 400, description = "Another notation"),
        (status = 404, description = "No such Swiss event"),
    )
)]
pub(crate) async fn games_swiss(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<GamesQuery>,
) -> Result<Response, LichessError> {
    expect(&state, &id, true).await?;
    let notation = crate::edge::http::notation_of(q.notation.as_deref()).map_err(|e| match e {
        ServerError::BadMessage(why) => LichessError::bad_request(why),
        e => LichessError::from(e),
    })?;
    let mut games = Vec::new();
    for table in state.tournaments().swiss_tables(&state, &id).await? {
        let Some(row) = state
            .store()
            .table(&table)
            .await
            .map_err(ServerError::from)?
        else {
            continue;
        };
        let events = state
            .store()
            .event_log(&table)
            .await
            .map_err(ServerError::from)?;
        games.push(crate::table::pgn::export(
            &table,
            row.created_ms,
            &events,
            notation,
        )?);
    }
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        games.join("\n"),
    )
        .into_response())
}

/// The query of `GET /api/swiss/{id}/results`.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct ResultsQuery {
    nb: Option<usize>,
}

/// `GET /api/swiss/{id}/results[?nb=N]`: the standings as lichess exports them, one NDJSON line
/// per player in rank order: `rank`, `points`, `tieBreak`, `rating`, `username`, `performance`
/// (after a result over the board), `absent` (withdrawn); the first `nb` players only, if given.
#[utoipa::path(
    get,
    path = "/api/swiss/{id}/results",
    tag = "lichess",
    params(
        ("id" = String, Path, description = "The Swiss event's id"),
        ("nb" = Option<usize>, Query, description = "How many players, from the first (default: all)"),
    ),
    responses(
        (status = 200, description = "NDJSON lines (`application/x-ndjson`), one per player", body = String, content_type = "application/x-ndjson"),
        (status = 404, description = "No such Swiss event"),
    )
)]
pub(crate) async fn results_swiss(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<ResultsQuery>,
) -> Result<Response, LichessError> {
    expect(&state, &id, true).await?;
    let lines = state
        .tournaments()
        .swiss_results(&state, &id, q.nb.unwrap_or(usize::MAX))
        .await?;
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
        text,
    )
        .into_response())
}

/// The body of the join routes of arenas (`swiss` false) and Swiss events (`swiss` true).
async fn enter(
    state: AppState,
    user: ApiUser,
    id: String,
    swiss: bool,
) -> Result<Response, LichessError> {
    user.require(Scope::TournamentWrite)?;
    expect(&state, &id, swiss).await?;
    state.tournaments().join(&state, &id, &user.person).await?;
    Ok(Json(json!({"ok": true})).into_response())
}

/// The body of the withdraw routes of arenas (`swiss` false) and Swiss events (`swiss` true).
async fn leave(
    state: AppState,
    user: ApiUser,
    id: String,
    swiss: bool,
) -> Result<Response, LichessError> {
    user.require(Scope::TournamentWrite)?;
    expect(&state, &id, swiss).await?;
    state
        .tournaments()
        .withdraw(&state, &id, &user.person)
        .await?;
    Ok(Json(json!({"ok": true})).into_response())
}
