//! Personal API tokens and bot accounts (`docs/bots.md`): making, listing and revoking tokens
//! (`/api/tokens`, chuhe's own routes, answered in chuhe's shapes), and the first routes of
//! lichess's API in lichess's shapes, so lichess's clients read them: `GET /api/account`,
//! `POST /api/bot/account/upgrade`, `DELETE /api/token` (the token revoking itself) and
//! `POST /api/token/test`.

use crate::accounts::tokens::{parse_scopes, Scope};
use crate::edge::extract::{api_user, bearer_token, ApiUser, JsonBody, LichessError};
use crate::error::ServerError;
use crate::protocol::{ErrorBody, Phase, SeatPlayer, TableSummary};
use crate::site::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Longest token description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 100;

/// The body of `POST /api/tokens`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// What the token is for, 1 to 100 characters (shown in the list).
    pub description: String,
    /// Its scopes, lichess's names: `challenge:read`, `challenge:write`, `bot:play`,
    /// `board:play`, `tournament:write`; none by default (the token then only reads the
    /// account).
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// A token as listed (`GET /api/tokens`) and, with its text, as made (`POST /api/tokens`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TokenInfo {
    /// Its public id (for `DELETE /api/tokens/{id}`).
    pub id: String,
    /// The token itself (`lip_` and 24 letters and digits): only in the answer to
    /// `POST /api/tokens`, never again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// What it is for.
    pub description: String,
    /// Its scopes.
    pub scopes: Vec<String>,
    /// When it was made, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The last request it authorized (recorded at most once a minute), or `null`.
    pub last_used_ms: Option<i64>,
}

/// The account behind a session cookie of an account that signs in with a password: what
/// making, listing and revoking tokens ask for (a token cannot make tokens).
async fn password_account(headers: &HeaderMap, state: &AppState) -> Result<ApiUser, ServerError> {
    let user = api_user(headers, state)
        .await?
        .ok_or_else(|| ServerError::Unauthorized("no session".to_owned()))?;
    if user.scopes.is_some() {
        return Err(ServerError::Unauthorized(
            "tokens are managed with a session cookie, not with a token".to_owned(),
        ));
    }
    if !user.password {
        return Err(ServerError::Unauthorized(
            "tokens need an account with a password: guests have none".to_owned(),
        ));
    }
    Ok(user)
}

fn check_description(text: &str) -> Result<String, ServerError> {
    let text = text.trim();
    let n = text.chars().count();
    if n == 0 || n > MAX_DESCRIPTION_CHARS || text.chars().any(char::is_control) {
        return Err(ServerError::BadMessage(format!(
            "a description has 1 to {MAX_DESCRIPTION_CHARS} characters and no control characters"
        )));
    }
    Ok(text.to_owned())
}

/// `POST /api/tokens`: a new personal API token for the signed-in account.
#[utoipa::path(
    post,
    path = "/api/tokens",
    tag = "tokens",
    request_body = TokenRequest,
    responses(
        (status = 201, description = "The new token, with its text (shown this once)", body = TokenInfo),
        (status = 400, description = "`bad_message`: an unreadable body, a bad description, an unknown scope, or 50 tokens held already", body = ErrorBody),
        (status = 401, description = "`unauthorized`: no session cookie, a guest's, or a token instead of a cookie", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub(crate) async fn new_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<JsonBody<TokenRequest>, ServerError>,
) -> Result<(StatusCode, Json<TokenInfo>), ServerError> {
    let user = password_account(&headers, &state).await?;
    let JsonBody(req) = body?;
    let description = check_description(&req.description)?;
    let scopes = parse_scopes(&req.scopes).map_err(|e| ServerError::BadMessage(e.to_string()))?;
    let (token, id) = state
        .store()
        .create_token(&user.person.id, &description, &scopes)
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(TokenInfo {
            id,
            token: Some(token),
            description,
            scopes: scopes.iter().map(|s| s.key().to_owned()).collect(),
            created_ms: crate::store::now_ms(),
            last_used_ms: None,
        }),
    ))
}

/// `GET /api/tokens`: the signed-in account's tokens that are not revoked, newest first,
/// without their text.
#[utoipa::path(
    get,
    path = "/api/tokens",
    tag = "tokens",
    responses(
        (status = 200, description = "The account's tokens, newest first (never their text)", body = Vec<TokenInfo>),
        (status = 401, description = "`unauthorized`: no session cookie, a guest's, or a token instead of a cookie", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub(crate) async fn tokens(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Vec<TokenInfo>>, ServerError> {
    let user = password_account(&headers, &state).await?;
    let rows = state.store().tokens_of(&user.person.id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|r| TokenInfo {
                id: r.id,
                token: None,
                description: r.description,
                scopes: r.scopes.iter().map(|s| s.key().to_owned()).collect(),
                created_ms: r.created_ms,
                last_used_ms: r.last_used_ms,
            })
            .collect(),
    ))
}

/// `DELETE /api/tokens/{id}`: revokes one of the signed-in account's tokens.
#[utoipa::path(
    delete,
    path = "/api/tokens/{id}",
    tag = "tokens",
    params(("id" = String, Path, description = "The token's id (as listed), not its text")),
    responses(
        (status = 204, description = "Revoked: the token is refused from now on"),
        (status = 401, description = "`unauthorized`: no session cookie, a guest's, or a token instead of a cookie", body = ErrorBody),
        (status = 404, description = "`not_found`: the account has no such token (or it is revoked already)", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub(crate) async fn revoke_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, ServerError> {
    let user = password_account(&headers, &state).await?;
    if state.store().revoke_token(&user.person.id, &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ServerError::NotFound(format!("no token {id:?}")))
    }
}

/// `DELETE /api/token`: the request's own token revokes itself (lichess's route).
#[utoipa::path(
    delete,
    path = "/api/token",
    tag = "lichess",
    responses(
        (status = 204, description = "The request's token is revoked"),
        (status = 401, description = "No such token (lichess's body: `{\"error\": \"No such token\"}`)"),
    )
)]
pub(crate) async fn revoke_own_token(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<StatusCode, LichessError> {
    let user = match (bearer_token(&headers), api_user(&headers, &state).await?) {
        (Some(_), Some(user)) if user.scopes.is_some() => user,
        _ => return Err(LichessError::new(StatusCode::UNAUTHORIZED, "No such token")),
    };
    let Some(token_id) = user.token_id.as_deref() else {
        return Err(LichessError::new(StatusCode::UNAUTHORIZED, "No such token"));
    };
    state
        .store()
        .revoke_token(&user.person.id, token_id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// One variant's rating in `GET /api/account`'s `perfs` (lichess's shape: whole numbers).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Perf {
    /// Rated games played.
    pub games: u64,
    /// The Glicko-2 rating, rounded.
    pub rating: i64,
    /// The rating deviation, rounded.
    pub rd: i64,
    /// Whether the rating is provisional (a deviation over 110, as lichess counts it).
    pub prov: bool,
}

/// `GET /api/account` in lichess's shape.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Account {
    /// The player's id (chuhe's: not the lower-case name lichess uses).
    pub id: String,
    /// The name.
    pub username: String,
    /// `BOT` for a bot account; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The ratings by variant key (`xiangqi`, `sanguo`, `banqi`), of the variants played rated.
    pub perfs: BTreeMap<String, Perf>,
}

/// `GET /api/account`: the account behind the token or the session cookie (any scope).
#[utoipa::path(
    get,
    path = "/api/account",
    tag = "lichess",
    responses(
        (status = 200, description = "The account, in lichess's shape", body = Account),
        (status = 401, description = "No session and no known token (lichess's body: `{\"error\": \"No such token\"}`)"),
    )
)]
pub(crate) async fn account(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Json<Account>, LichessError> {
    let ratings = state.store().ratings(&user.person.id).await?;
    let perfs = ratings
        .into_iter()
        .map(|r| {
            // Ratings are stored as Glicko numbers: rounded to the whole numbers lichess shows.
            let rating = r.rating.rating.round() as i64;
            let rd = r.rating.deviation.round() as i64;
            (
                r.variant,
                Perf {
                    games: r.games,
                    rating,
                    rd,
                    prov: rd > 110,
                },
            )
        })
        .collect();
    Ok(Json(Account {
        id: user.person.id,
        username: user.person.name,
        title: user.bot.then(|| "BOT".to_owned()),
        perfs,
    }))
}

/// The open and running tables (every node's, in a cluster).
pub(crate) async fn tables_in_play(state: &AppState) -> Vec<TableSummary> {
    if let Some(cluster) = state.cluster() {
        return cluster.lobby();
    }
    state
        .tables()
        .await
        .iter()
        .filter(|t| !t.is_ended())
        .map(|t| t.listed())
        .filter(|s| s.phase != Phase::Ended)
        .collect()
}

/// Whether `player_id` sits at an open or running table.
async fn is_seated(state: &AppState, player_id: &str) -> bool {
    tables_in_play(state).await.iter().any(|t| {
        t.seats
            .iter()
            .flatten()
            .any(|s| matches!(s, SeatPlayer::Person { id, .. } if id == player_id))
    })
}

/// `POST /api/bot/account/upgrade`: the account becomes a bot (title BOT), for good; only an
/// account that has not played (no finished game, no seat at a table) may.
#[utoipa::path(
    post,
    path = "/api/bot/account/upgrade",
    tag = "lichess",
    responses(
        (status = 200, description = "The account is a bot: `{\"ok\": true}` (also when it was one already)", body = Object),
        (status = 400, description = "Refused, with lichess's body `{\"error\": \"...\"}`: a guest, or an account that has played"),
        (status = 401, description = "No such token, or a token without `bot:play` (`{\"error\": \"Missing scope\"}`)"),
    )
)]
pub(crate) async fn upgrade_to_bot(
    State(state): State<AppState>,
    user: ApiUser,
) -> Result<Response, LichessError> {
    user.require(Scope::BotPlay)?;
    if !user.person.account {
        return Err(LichessError::bad_request(
            "guests cannot become bots: make an account first",
        ));
    }
    if !user.bot {
        if is_seated(&state, &user.person.id).await {
            return Err(LichessError::bad_request(
                "this account sits at a table: only an account without games becomes a bot",
            ));
        }
        state.store().make_bot(&user.person.id).await?;
    }
    Ok(Json(serde_json::json!({ "ok": true })).into_response())
}

/// Most tokens one `POST /api/token/test` asks about.
pub const MAX_TESTED_TOKENS: usize = 100;

/// `POST /api/token/test` (lichess's route, no credentials needed): the body lists tokens
/// separated by commas; the answer maps each to `{"scopes": "bot:play,...", "userId", "expires":
/// null}`, or `null` for an unknown or revoked token (lichess-bot asks it to check its token's
/// scopes).
#[utoipa::path(
    post,
    path = "/api/token/test",
    tag = "lichess",
    request_body(content = String, content_type = "text/plain", description = "Tokens separated by commas, at most 100"),
    responses(
        (status = 200, description = "Each token with its scopes and account, or `null`", body = Object),
        (status = 400, description = "More than 100 tokens (`{\"error\": \"...\"}`)"),
    )
)]
pub(crate) async fn test_tokens(
    State(state): State<AppState>,
    body: axum::body::Bytes,
) -> Result<Response, LichessError> {
    let text = String::from_utf8_lossy(&body);
    let tokens: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > MAX_TESTED_TOKENS {
        return Err(LichessError::bad_request(format!(
            "at most {MAX_TESTED_TOKENS} tokens at once"
        )));
    }
    let mut out = serde_json::Map::new();
    for token in tokens {
        let owner = if token.len() > 128 {
            None
        } else {
            state
                .store()
                .token_owner(&crate::accounts::tokens::digest(token))
                .await?
        };
        let answer = owner.map_or(serde_json::Value::Null, |o| {
            serde_json::json!({
                "scopes": crate::accounts::tokens::scopes_text(&o.scopes),
                "userId": o.player.id,
                "expires": null,
            })
        });
        out.insert(token.to_owned(), answer);
    }
    Ok(Json(serde_json::Value::Object(out)).into_response())
}
