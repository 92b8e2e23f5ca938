//! HTTP routes (see `docs/protocol.md`): the router ([`app`]) and its middleware (request ids,
//! the body read within the time limit, Origin, rate limits); health, sessions and accounts,
//! players' ratings, tables (list, create, summary, events, PGN, positions), finished games
//! (`GET /api/games`); other GETs fall back to the web files.

use crate::edge::extract::{session_cookie, session_token, token_digest, JsonBody};
use crate::edge::tournaments as tours;
use crate::edge::{botplay, bots, puzzles};
use crate::error::ServerError;
use crate::protocol::{
    AccountRequest, ErrorBody, Event, FinishedPage, GuestRequest, PlayerInfo, Positions,
    TableOptions, TableSummary, VersionedEvent,
};
use crate::site::{AppState, SeatChoice};
use crate::store::PlayerRow;
use crate::table::Person;
use crate::variant::{AnyGame, Variant};
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::Serialize;

/// Largest accepted request body, bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// The router of the whole server for `state`.
pub fn app(state: AppState) -> Router {
    let edge = super::Edge::new(state.clone());
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/analysis", post(crate::edge::analysis::route))
        .route("/api/analysis/eval", post(crate::edge::evaluation::route))
        .route("/api/session", post(guest))
        .route("/api/accounts", post(register))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me))
        .route("/api/players/{id}/ratings", get(player_ratings))
        .route("/api/tables", get(list_tables).post(create_table))
        .route("/api/tables/{id}", get(table_summary))
        .route("/api/tables/{id}/events", get(table_events))
        .route("/api/tables/{id}/pgn", get(table_pgn))
        .route("/api/tables/{id}/positions", get(table_positions))
        .route("/api/games", get(finished_games))
        .route("/api/tokens", get(bots::tokens).post(bots::new_token))
        .route("/api/tokens/{id}", delete(bots::revoke_token))
        .route("/api/token", delete(bots::revoke_own_token))
        .route("/api/token/test", post(bots::test_tokens))
        .route("/api/account", get(bots::account))
        .route("/api/bot/account/upgrade", post(bots::upgrade_to_bot))
        .route("/api/stream/event", get(botplay::stream_event))
        .route("/api/challenge", get(botplay::list_challenges))
        .route("/api/challenge/ai", post(botplay::challenge_ai))
        .route("/api/challenge/{id}", post(botplay::challenge))
        .route("/api/challenge/{id}/accept", post(botplay::accept))
        .route("/api/challenge/{id}/decline", post(botplay::decline))
        .route("/api/challenge/{id}/cancel", post(botplay::cancel))
        .route("/api/bot/game/stream/{id}", get(botplay::bot_stream))
        .route("/api/bot/game/{id}/move/{mv}", post(botplay::bot_move))
        .route("/api/bot/game/{id}/resign", post(botplay::bot_resign))
        .route("/api/bot/game/{id}/abort", post(botplay::bot_abort))
        .route("/api/bot/game/{id}/berserk", post(botplay::bot_berserk))
        .route("/api/bot/game/{id}/chat", post(botplay::bot_chat))
        .route("/api/bot/game/{id}/draw/{accept}", post(botplay::bot_draw))
        .route(
            "/api/bot/game/{id}/takeback/{accept}",
            post(botplay::bot_takeback),
        )
        .route("/api/board/game/stream/{id}", get(botplay::board_stream))
        .route("/api/board/game/{id}/move/{mv}", post(botplay::board_move))
        .route("/api/board/game/{id}/resign", post(botplay::board_resign))
        .route("/api/board/game/{id}/abort", post(botplay::board_abort))
        .route("/api/board/game/{id}/berserk", post(botplay::board_berserk))
        .route("/api/board/game/{id}/chat", post(botplay::board_chat))
        .route(
            "/api/board/game/{id}/draw/{accept}",
            post(botplay::board_draw),
        )
        .route(
            "/api/board/game/{id}/takeback/{accept}",
            post(botplay::board_takeback),
        )
        .route("/api/puzzle/daily", get(puzzles::daily))
        .route("/api/puzzle/next", get(puzzles::next))
        .route("/api/puzzle/count", get(puzzles::count))
        .route("/api/puzzle/activity", get(puzzles::activity))
        .route("/api/puzzle/{id}", get(puzzles::show))
        .route("/api/puzzle/{id}/result", post(puzzles::result))
        .route("/api/tournament", get(tours::list).post(tours::create))
        .route("/api/tournament/{id}", get(tours::show))
        .route("/api/tournament/{id}/join", post(tours::join))
        .route("/api/tournament/{id}/withdraw", post(tours::withdraw))
        .route("/api/tournament/{id}/stream", get(tours::stream))
        .route("/api/swiss", get(tours::list_swiss))
        .route("/api/swiss/new", post(tours::create_swiss))
        .route("/api/swiss/{id}", get(tours::show_swiss))
        .route("/api/swiss/{id}/join", post(tours::join_swiss))
        .route("/api/swiss/{id}/withdraw", post(tours::withdraw_swiss))
        .route("/api/swiss/{id}/stream", get(tours::stream_swiss))
        .route("/api/swiss/{id}/games", get(tours::games_swiss))
        .route("/api/swiss/{id}/results", get(tours::results_swiss))
        .route("/api/tables/{id}/ws", get(crate::edge::ws::upgrade))
        // the web client's files (compressed, revalidated: see `web.rs`); 404 JSON for the rest
        .fallback_service(
            crate::edge::web::router()
                .fallback(not_found)
                .method_not_allowed_fallback(not_found),
        )
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            read_body,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::edge::origin::check,
        ))
        .layer(axum::middleware::from_fn_with_state(
            edge.clone(),
            crate::edge::limit::limit,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http().make_span_with(request_span))
        .layer(axum::middleware::from_fn(request_id))
        .with_state(edge)
}

/// A request's id: 12 random characters, in its log span and its answer's `X-Request-Id`
/// header, so that an answer a player reports can be found in the logs.
#[derive(Debug, Clone)]
struct RequestId(String);

/// Gives each request an id of its own (never one the client sent) and answers it in
/// `X-Request-Id`.
async fn request_id(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let id = crate::ids::random_id(12);
    request.extensions_mut().insert(RequestId(id.clone()));
    let mut response = next.run(request).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

/// The span of one HTTP request, around everything logged while it is served: its id
/// ([`RequestId`]), its method and its path (without the query).
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = request
        .extensions()
        .get::<RequestId>()
        .map_or("", |id| id.0.as_str());
    tracing::info_span!(
        "request",
        id = %id,
        method = %request.method(),
        path = %request.uri().path(),
    )
}

/// Reads a request's whole body before any handler runs, within
/// [`Settings::request_timeout`](crate::site::Settings::request_timeout) of its head (a client that
/// sends its body a byte at a time cannot hold a connection: it is answered 408
/// `request_timeout` and the connection is closed) and within [`MAX_BODY_BYTES`] (else 413
/// `too_large`). The handler then gets the body from memory.
async fn read_body(
    State(state): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let limit = state.settings().request_timeout;
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(limit, axum::body::to_bytes(body, MAX_BODY_BYTES)).await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            tracing::debug!("request body refused: {e}");
            return ServerError::TooLarge.into_response();
        }
        Err(_) => return ServerError::RequestTimeout(limit).into_response(),
    };
    let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    next.run(request).await
}

fn check_name(name: &str) -> Result<String, ServerError> {
    crate::accounts::names::normalize(name).map_err(|e| ServerError::BadMessage(e.to_string()))
}

/// The body of `GET /api/health`: `{"database":"ok","status":"ok"}` (the fields in this order,
/// as `docs/protocol.md` shows them).
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct Health {
    /// `ok`, or why the database does not answer.
    database: String,
    /// `ok`, or `unavailable` when the database does not answer.
    status: String,
}

/// `GET /api/openapi.json`: the OpenAPI description of these routes (built in `edge/openapi.rs`).
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "openapi",
    responses(
        (status = 200, description = "This document (OpenAPI 3.1)", body = Object),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
    )
)]
async fn openapi_json() -> Response {
    crate::edge::openapi::response()
}

/// `GET /api/health`: 200 `{"status":"ok","database":"ok"}` when the database answers a
/// trivial query within the store's time limit, else 503
/// `{"status":"unavailable","database":REASON}` (the cause is logged).
#[utoipa::path(
    get,
    path = "/api/health",
    tag = "health",
    responses(
        (status = 200, description = "The server accepts games and the database answers", body = Health),
        (status = 503, description = "The database does not answer or cannot be reached", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    match state.store().ping().await {
        Ok(()) => Json(Health {
            database: "ok".to_owned(),
            status: "ok".to_owned(),
        })
        .into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "health check: the database does not answer");
            let reason = match e {
                crate::store::StoreError::Timeout(_) => e.to_string(),
                _ => "the database cannot be reached".to_owned(),
            };
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(Health {
                    database: reason,
                    status: "unavailable".to_owned(),
                }),
            )
                .into_response()
        }
    }
}

/// A route of the API asked with a method it does not take.
async fn method_not_allowed() -> ServerError {
    ServerError::MethodNotAllowed
}

/// A path that is neither a route of the API nor a file of the web client (and a web file
/// asked with another method than `GET` or `HEAD`).
async fn not_found() -> ServerError {
    ServerError::NotFound("no such route".to_owned())
}

/// Starts a session for `player` and answers with its info and the cookie.
async fn session_response(state: &AppState, player: &PlayerRow) -> Result<Response, ServerError> {
    let token = crate::ids::random_token();
    state
        .store()
        .create_session(&token_digest(&token), &player.id)
        .await?;
    let settings = state.settings_ref();
    let cookie = session_cookie(
        &token,
        settings.store.session_lifetime,
        settings.secure_cookies,
    );
    let info = PlayerInfo {
        id: player.id.clone(),
        name: player.name.clone(),
        account: player.password_hash.is_some(),
    };
    let mut response = Json(info).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).map_err(|e| ServerError::Internal(e.to_string()))?,
    );
    Ok(response)
}

#[utoipa::path(
    post,
    path = "/api/session",
    tag = "sessions",
    request_body = GuestRequest,
    responses(
        (status = 200, description = "A new guest, signed in", body = PlayerInfo, headers(("set-cookie" = String, description = "The session cookie `chuhe_session` (HttpOnly, SameSite=Lax)"))),
        (status = 400, description = "`bad_message`: an unreadable body or a bad name", body = ErrorBody),
        (status = 409, description = "`conflict`: the name belongs to an account", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn guest(
    State(state): State<AppState>,
    JsonBody(req): JsonBody<GuestRequest>,
) -> Result<Response, ServerError> {
    let name = check_name(&req.name)?;
    // An account holder's name is theirs: a guest cannot appear under it, nor under a name
    // that reads the same (its skeleton key).
    if state.store().account_by_skeleton(&name).await?.is_some() {
        return Err(ServerError::Conflict(format!(
            "the name {name:?} belongs to an account"
        )));
    }
    let player = PlayerRow {
        id: crate::ids::random_id(12),
        name,
        password_hash: None,
    };
    state.store().create_player(&player).await?;
    session_response(&state, &player).await
}

fn check_password(password: &str) -> Result<(), ServerError> {
    let n = password.chars().count();
    if !(8..=128).contains(&n) {
        return Err(ServerError::BadMessage(
            "a password has 8 to 128 characters".to_owned(),
        ));
    }
    Ok(())
}

#[utoipa::path(
    post,
    path = "/api/accounts",
    tag = "sessions",
    request_body = AccountRequest,
    responses(
        (status = 200, description = "The new account, signed in", body = PlayerInfo, headers(("set-cookie" = String, description = "The session cookie `chuhe_session` (HttpOnly, SameSite=Lax)"))),
        (status = 400, description = "`bad_message`: an unreadable body, a bad name, a password not of 8 to 128 characters", body = ErrorBody),
        (status = 409, description = "`conflict`: the name is taken", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    JsonBody(req): JsonBody<AccountRequest>,
) -> Result<Response, ServerError> {
    let name = check_name(&req.name)?;
    check_password(&req.password)?;
    if state.store().account_by_skeleton(&name).await?.is_some() {
        return Err(ServerError::Conflict(format!("the name {name:?} is taken")));
    }
    let hash = state.passwords().hash(req.password).await?;
    let player = PlayerRow {
        id: crate::ids::random_id(12),
        name,
        password_hash: Some(hash),
    };
    state.store().create_player(&player).await?;
    session_response(&state, &player).await
}

#[utoipa::path(
    post,
    path = "/api/login",
    tag = "sessions",
    request_body = AccountRequest,
    responses(
        (status = 200, description = "Signed in: a new session", body = PlayerInfo, headers(("set-cookie" = String, description = "The session cookie `chuhe_session` (HttpOnly, SameSite=Lax)"))),
        (status = 400, description = "`bad_message`: an unreadable body", body = ErrorBody),
        (status = 401, description = "`unauthorized`: wrong name or password", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn login(
    State(state): State<AppState>,
    JsonBody(req): JsonBody<AccountRequest>,
) -> Result<Response, ServerError> {
    let wrong = || ServerError::Unauthorized("wrong name or password".to_owned());
    // Names are stored in their normal form (crate::accounts::names).
    let name =
        crate::accounts::names::normalize(&req.name).unwrap_or_else(|_| req.name.trim().to_owned());
    let player = state.store().account_by_name(&name).await?;
    // An unknown name costs the same verification as a wrong password (no name enumeration).
    let stored = player.as_ref().and_then(|p| p.password_hash.clone());
    let ok = state.passwords().verify(req.password, stored).await?;
    let player = player.filter(|_| ok).ok_or_else(wrong)?;
    session_response(&state, &player).await
}

/// `POST /api/logout`: ends the request's session (when it has one) and clears the cookie.
#[utoipa::path(
    post,
    path = "/api/logout",
    tag = "sessions",
    responses(
        (status = 204, description = "The session is ended and its cookie cleared", headers(("set-cookie" = String, description = "Clears the session cookie (`Max-Age=0`)"))),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ServerError> {
    if let Some(token) = session_token(&headers) {
        state.store().delete_session(&token_digest(&token)).await?;
    }
    let cookie = session_cookie(
        "",
        std::time::Duration::ZERO,
        state.settings_ref().secure_cookies,
    );
    let mut response = StatusCode::NO_CONTENT.into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).map_err(|e| ServerError::Internal(e.to_string()))?,
    );
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/me",
    tag = "sessions",
    responses(
        (status = 200, description = "The player behind the session cookie", body = PlayerInfo),
        (status = 401, description = "`unauthorized`: no valid session cookie", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn me(p: Person) -> Json<PlayerInfo> {
    Json(PlayerInfo {
        id: p.id,
        name: p.name,
        account: p.account,
    })
}

#[utoipa::path(
    get,
    path = "/api/tables",
    tag = "tables",
    responses(
        (status = 200, description = "The running tables and the open ones with a person seated (seeks), sorted by id", body = Vec<TableSummary>),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn list_tables(
    State(state): State<AppState>,
) -> Result<Json<Vec<TableSummary>>, ServerError> {
    if let Some(cluster) = state.cluster() {
        // The lobby every node keeps from the cluster's bucket: the same from every node.
        return Ok(Json(cluster.lobby()));
    }
    // Each table's last published summary: no actor is asked, so none can hold the list up.
    let mut out: Vec<TableSummary> = state
        .tables()
        .await
        .iter()
        .filter(|t| !t.is_ended())
        .map(|t| t.listed())
        .filter(TableSummary::is_listed)
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Json(out))
}

#[utoipa::path(
    post,
    path = "/api/tables",
    tag = "tables",
    request_body = TableOptions,
    params(
        ("seat" = Option<String>, Query, description = "Seats the creator: a seat number (`0` is Red, Wei or the first player), or `random`; the table then starts when full (`start_when_full`). Without it nobody is seated."),
    ),
    responses(
        (status = 201, description = "The new table (version 1; version 2 with its creator seated)", body = TableSummary),
        (status = 400, description = "`bad_message`: an unreadable body or bad options", body = ErrorBody),
        (status = 401, description = "`unauthorized`: creating a table needs a session", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn create_table(
    State(state): State<AppState>,
    person: Option<Person>,
    query: Result<Query<CreateQuery>, QueryRejection>,
    options: Result<JsonBody<TableOptions>, ServerError>,
) -> Result<(StatusCode, Json<TableSummary>), ServerError> {
    let person = person
        .ok_or_else(|| ServerError::Unauthorized("creating a table needs a session".to_owned()))?;
    let Query(q) = query?;
    let JsonBody(options) = options?;
    let creator = match q.seat.as_deref() {
        None => None,
        Some("random") => Some((person, SeatChoice::Random)),
        Some(n) => match n.parse::<usize>() {
            Ok(n) => Some((person, SeatChoice::Seat(n))),
            Err(_) => {
                return Err(ServerError::BadMessage(format!(
                    "seat {n:?}: use a seat number or random"
                )))
            }
        },
    };
    let handle = state.create_table(options, creator).await?;
    Ok((StatusCode::CREATED, Json(handle.summary().await?)))
}

#[utoipa::path(
    get,
    path = "/api/tables/{id}",
    tag = "tables",
    params(
        ("id" = String, Path, description = "The table's id"),
    ),
    responses(
        (status = 200, description = "The table (also an ended one)", body = TableSummary),
        (status = 404, description = "`not_found`: no such table", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn table_summary(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TableSummary>, ServerError> {
    Ok(Json(state.table_summary(&id).await?))
}

#[utoipa::path(
    get,
    path = "/api/tables/{id}/events",
    tag = "tables",
    params(
        ("id" = String, Path, description = "The table's id"),
    ),
    responses(
        (status = 200, description = "Every event of the table, in order: the game record", body = Vec<VersionedEvent>),
        (status = 404, description = "`not_found`: no such table", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn table_events(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Vec<VersionedEvent>>, ServerError> {
    let events = state.store().events(&id).await?;
    if events.is_empty() {
        return Err(ServerError::NotFound(format!("no table {id:?}")));
    }
    Ok(Json(
        events
            .into_iter()
            .map(|(version, event)| VersionedEvent { version, event })
            .collect(),
    ))
}

/// The `?seat=` of `POST /api/tables`.
#[derive(Debug, serde::Deserialize)]
struct CreateQuery {
    seat: Option<String>,
}

/// The `?notation=` of the PGN route.
#[derive(Debug, serde::Deserialize)]
struct PgnQuery {
    notation: Option<String>,
}

/// The xiangqi notation a `notation` parameter names (`chinese` when absent).
///
/// # Errors
/// [`ServerError::BadMessage`] for another word.
pub(crate) fn notation_of(word: Option<&str>) -> Result<chuhe_notation::Notation, ServerError> {
    use chuhe_notation::Notation;
    Ok(match word.unwrap_or("chinese") {
        "chinese" => Notation::Chinese,
        "wxf" => Notation::Wxf,
        "iccs" => Notation::Iccs,
        "xboard" => Notation::Xboard,
        other => {
            return Err(ServerError::BadMessage(format!(
                "notation {other:?}: use chinese, wxf, iccs or xboard"
            )))
        }
    })
}

/// `GET /api/tables/{id}/pgn[?notation=chinese|wxf|iccs|xboard]`: the game as PGN: xiangqi in
/// the notation asked for (Chinese by default), sanguo and banqi as their PGN-style records.
#[utoipa::path(
    get,
    path = "/api/tables/{id}/pgn",
    tag = "tables",
    params(
        ("id" = String, Path, description = "The table's id"),
        ("notation" = Option<String>, Query, description = "Xiangqi's move notation: `chinese` (default), `wxf`, `iccs` or `xboard`; ignored by sanguo and banqi"),
    ),
    responses(
        (status = 200, description = "The game as PGN (sanguo and banqi: their PGN-style records)", body = String, content_type = "application/x-chess-pgn"),
        (status = 400, description = "`bad_message`: another notation", body = ErrorBody),
        (status = 404, description = "`not_found`: no such table", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn table_pgn(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<PgnQuery>, QueryRejection>,
) -> Result<Response, ServerError> {
    let Query(q) = query?;
    let notation = notation_of(q.notation.as_deref())?;
    let row = state
        .store()
        .table(&id)
        .await?
        .ok_or_else(|| ServerError::NotFound(format!("no table {id:?}")))?;
    let events = state.store().event_log(&id).await?;
    let text = crate::table::pgn::export(&id, row.created_ms, &events, notation)?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        text,
    )
        .into_response())
}

/// One variant's rating of a player (`GET /api/players/{id}/ratings`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct RatingInfo {
    variant: String,
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: u64,
}

#[utoipa::path(
    get,
    path = "/api/players/{id}/ratings",
    tag = "players",
    params(
        ("id" = String, Path, description = "The player's id"),
    ),
    responses(
        (status = 200, description = "The player's ratings, one per variant played rated (Glicko scale; empty for guests)", body = Vec<RatingInfo>),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn player_ratings(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Vec<RatingInfo>>, ServerError> {
    let rows = state.store().ratings(&id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|r| RatingInfo {
                variant: r.variant,
                rating: r.rating.rating,
                deviation: r.rating.deviation,
                volatility: r.rating.volatility,
                games: r.games,
            })
            .collect(),
    ))
}

/// Most finished games one page of `GET /api/games` holds (`limit` at most; 20 by default).
pub const MAX_GAMES_PAGE: u32 = 100;
const DEFAULT_GAMES_PAGE: u32 = 20;

/// `GET /api/games[?limit=N][&before=ID][&player=ID][&variant=V]`: finished games, newest
/// first, one page; with `player`, only that player's games; with `variant`, only that variant's.
#[utoipa::path(
    get,
    path = "/api/games",
    tag = "games",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Games per page, 1 to 100; default 20"),
        ("before" = Option<String>, Query, description = "The id of a listed game: only the games that ended before it"),
        ("player" = Option<String>, Query, description = "A player id: only the games that player sat in"),
        ("variant" = Option<Variant>, Query, description = "Only that variant's games"),
    ),
    responses(
        (status = 200, description = "One page of finished games, the most recently ended first", body = FinishedPage),
        (status = 400, description = "`bad_message`: a bad `limit`, `before`, `player` or `variant`, or another parameter", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn finished_games(
    State(state): State<AppState>,
    query: Result<Query<std::collections::HashMap<String, String>>, QueryRejection>,
) -> Result<Json<FinishedPage>, ServerError> {
    let Query(q) =
        query.map_err(|_| ServerError::BadMessage("the query string does not read".to_owned()))?;
    if let Some(other) = q
        .keys()
        .find(|k| !["limit", "before", "player", "variant"].contains(&k.as_str()))
    {
        return Err(ServerError::BadMessage(format!(
            "unknown parameter {other:?}: use limit, before, player and variant"
        )));
    }
    let player = q.get("player").map(String::as_str);
    if let Some(p) = player {
        if p.is_empty() || p.len() > 32 || !p.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ServerError::BadMessage(format!(
                "player {p:?}: a player id (letters and digits)"
            )));
        }
    }
    let variant = q.get("variant").map(String::as_str);
    if let Some(v) = variant {
        if !["xiangqi", "sanguo", "banqi"].contains(&v) {
            return Err(ServerError::BadMessage(format!(
                "variant {v:?}: xiangqi, sanguo or banqi"
            )));
        }
    }
    let limit = match q.get("limit").map(String::as_str) {
        None => DEFAULT_GAMES_PAGE,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_GAMES_PAGE).contains(n))
            .ok_or_else(|| {
                ServerError::BadMessage(format!(
                    "limit {text:?}: a whole number from 1 to {MAX_GAMES_PAGE}"
                ))
            })?,
    };
    let before = q
        .get("before")
        .map(String::as_str)
        .filter(|b| !b.is_empty());
    let mut games = state
        .store()
        .finished_games_filtered(before, limit + 1, player, variant)
        .await?;
    let more = games.len() > limit as usize;
    games.truncate(limit as usize);
    let next = if more {
        games.last().map(|g| g.id.clone())
    } else {
        None
    };
    Ok(Json(FinishedPage { games, next }))
}

/// `GET /api/tables/{id}/positions`: every position of the table's game, from the rules.
#[utoipa::path(
    get,
    path = "/api/tables/{id}/positions",
    tag = "tables",
    params(
        ("id" = String, Path, description = "The table's id"),
    ),
    responses(
        (status = 200, description = "Every position of the table's game, from the rules", body = Positions),
        (status = 404, description = "`not_found`: no such table", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
async fn table_positions(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Positions>, ServerError> {
    let events = state.store().event_log(&id).await?;
    let Some(Event::Created { options }) = events.first() else {
        return Err(ServerError::NotFound(format!("no table {id:?}")));
    };
    let mut moves: Vec<String> = Vec::new();
    for e in &events {
        match e {
            Event::Moved { mv, .. } => moves.push(mv.clone()),
            Event::TakenBack { plies } => moves.truncate(moves.len().saturating_sub(*plies)),
            _ => {}
        }
    }
    let start = crate::table::start_game(options)
        .map_err(|e| ServerError::Internal(format!("table {id}: start position: {e}")))?;
    let positions = AnyGame::replay_from(start, &moves)
        .map_err(|e| ServerError::Internal(format!("table {id}: {e}")))?;
    Ok(Json(Positions {
        variant: options.variant,
        moves,
        positions,
    }))
}
