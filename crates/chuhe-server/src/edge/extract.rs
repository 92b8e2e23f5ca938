//! The extractors of the HTTP edge, each refusing with the server's own error body
//! ([`ServerError`]):
//!
//! - [`Person`]: the person behind the request's session cookie, or else behind its personal
//!   API token (`Authorization: Bearer`) when that token may play (`bot:play` or
//!   `board:play`); refuses with `unauthorized` (`no session`) when there is none.
//!   `Option<Person>` never refuses for a missing or unknown session (only when the database
//!   fails).
//! - [`ApiUser`]: the account behind the session cookie or the bearer token, with the token's
//!   scopes, for the routes in lichess's shapes (`docs/bots.md`); refuses with 401 and lichess's
//!   body (`{"error": "No such token"}`) when there is neither.
//! - [`JsonBody`]: a request body read as JSON; refuses with `bad_message` when it is not sent
//!   as `application/json`, `too_large` over the body limit and `bad_message` (serde's text)
//!   for a body that does not read.
//!
//! The session cookie itself (its name, reading it, the digest the database keeps of a token)
//! lives here too, so that the HTTP routes, the WebSocket upgrade and
//! `/api/analysis` all depend on this module rather than on each other.

use crate::accounts::tokens::Scope;
use crate::error::ServerError;
use crate::site::AppState;
use crate::table::Person;
use axum::body::Bytes;
use axum::extract::{FromRef, FromRequest, FromRequestParts, OptionalFromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use serde::de::DeserializeOwned;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "chuhe_session";

/// The session token in the request's cookies (every `Cookie` header read by the `cookie`
/// crate; a malformed pair is skipped).
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SESSION_COOKIE)
        .map(|c| c.value().to_owned())
}

/// The `Set-Cookie` value of the session cookie: `token` (empty to clear it), for `max_age`
/// (zero to clear it), `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` when `secure`.
pub fn session_cookie(token: &str, max_age: std::time::Duration, secure: bool) -> String {
    let seconds = i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX);
    cookie::Cookie::build((SESSION_COOKIE, token))
        .path("/")
        .http_only(true)
        .same_site(cookie::SameSite::Lax)
        .max_age(cookie::time::Duration::seconds(seconds))
        .secure(secure)
        .build()
        .to_string()
}

/// What the database keeps of a session token: its SHA-256 in lowercase hex, so a copy of the
/// database does not hold usable cookies.
pub fn token_digest(token: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The personal API token of `Authorization: Bearer TOKEN` in `headers` (the scheme in any
/// case), if any.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The person behind the session cookie of `headers`, else behind its bearer token when that
/// token may play (`bot:play` or `board:play`), if any.
async fn session_person(
    headers: &HeaderMap,
    state: &AppState,
) -> Result<Option<Person>, ServerError> {
    if let Some(token) = session_token(headers) {
        if let Some(p) = state
            .store()
            .player_by_session(&token_digest(&token))
            .await?
        {
            return Ok(Some(Person {
                account: p.password_hash.is_some(),
                id: p.id,
                name: p.name,
            }));
        }
    }
    let Some(user) = token_user(headers, state).await? else {
        return Ok(None);
    };
    let plays = user.has(Scope::BotPlay) || user.has(Scope::BoardPlay);
    Ok(plays.then_some(user.person))
}

/// The account behind the bearer token of `headers`, if any (revoked and unknown tokens are
/// none).
async fn token_user(headers: &HeaderMap, state: &AppState) -> Result<Option<ApiUser>, ServerError> {
    let Some(token) = bearer_token(headers) else {
        return Ok(None);
    };
    if token.len() > 128 {
        return Ok(None);
    }
    Ok(state
        .store()
        .token_owner(&crate::accounts::tokens::digest(token))
        .await?
        .map(|owner| ApiUser {
            person: Person {
                account: owner.player.password_hash.is_some(),
                id: owner.player.id,
                name: owner.player.name,
            },
            bot: owner.bot,
            scopes: Some(owner.scopes),
            token_id: Some(owner.token_id),
            password: false,
        }))
}

/// The account behind a request to a route in lichess's shapes: by its session cookie (which
/// may do everything its person may) or its personal API token (which may do what its scopes
/// allow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiUser {
    /// The person.
    pub person: Person,
    /// Whether the account is a bot.
    pub bot: bool,
    /// The token's scopes; `None` for a session cookie.
    pub scopes: Option<Vec<Scope>>,
    /// The token's public id; `None` for a session cookie.
    pub token_id: Option<String>,
    /// Whether the request came with a session cookie of an account that signs in with a
    /// password (what making tokens asks for).
    pub password: bool,
}

impl ApiUser {
    /// Whether the request may do what `scope` allows: always with a session cookie, else when
    /// the token has the scope.
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.as_ref().is_none_or(|s| s.contains(&scope))
    }

    /// Refuses, as lichess does (401 `{"error": "Missing scope"}`), a request whose token lacks
    /// `scope`.
    ///
    /// # Errors
    /// [`LichessError`] 401 `Missing scope`.
    pub fn require(&self, scope: Scope) -> Result<(), LichessError> {
        if self.has(scope) {
            Ok(())
        } else {
            Err(LichessError::new(
                axum::http::StatusCode::UNAUTHORIZED,
                "Missing scope",
            ))
        }
    }
}

impl<S> FromRequestParts<S> for ApiUser
where
    S: Send + Sync,
    AppState: FromRef<S>,
{
    type Rejection = LichessError;

    /// # Errors
    /// 401 `No such token` without a known session cookie or token; an internal error when the
    /// database fails.
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiUser, LichessError> {
        api_user(&parts.headers, &AppState::from_ref(state))
            .await?
            .ok_or_else(|| LichessError::new(axum::http::StatusCode::UNAUTHORIZED, "No such token"))
    }
}

/// The account behind the session cookie of `headers`, else behind its bearer token, if any.
///
/// # Errors
/// A database failure.
pub async fn api_user(
    headers: &HeaderMap,
    state: &AppState,
) -> Result<Option<ApiUser>, ServerError> {
    if let Some(token) = session_token(headers) {
        if let Some(p) = state
            .store()
            .player_by_session(&token_digest(&token))
            .await?
        {
            let bot = state.store().is_bot(&p.id).await?;
            let password = p
                .password_hash
                .as_deref()
                .is_some_and(|h| h != crate::accounts::tokens::NO_PASSWORD);
            return Ok(Some(ApiUser {
                person: Person {
                    account: p.password_hash.is_some(),
                    id: p.id,
                    name: p.name,
                },
                bot,
                scopes: None,
                token_id: None,
                password,
            }));
        }
    }
    token_user(headers, state).await
}

/// A refusal in lichess's shape: a status and `{"error": "..."}` (the routes of `docs/bots.md`,
/// which lichess's clients read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessError {
    /// The HTTP status.
    pub status: axum::http::StatusCode,
    /// The text of `error`.
    pub message: String,
}

impl LichessError {
    /// A refusal with `status` and `message`.
    pub fn new(status: axum::http::StatusCode, message: impl Into<String>) -> LichessError {
        LichessError {
            status,
            message: message.into(),
        }
    }

    /// 400 with `message`, lichess's answer to a request it refuses.
    pub fn bad_request(message: impl Into<String>) -> LichessError {
        LichessError::new(axum::http::StatusCode::BAD_REQUEST, message)
    }
}

/// The server's errors keep their status and public text (an internal one is logged, not sent).
impl From<ServerError> for LichessError {
    fn from(e: ServerError) -> LichessError {
        e.log();
        LichessError::new(e.status(), e.public_message())
    }
}

impl From<crate::store::StoreError> for LichessError {
    fn from(e: crate::store::StoreError) -> LichessError {
        match e {
            crate::store::StoreError::Refused(why) => LichessError::bad_request(why),
            e => LichessError::from(ServerError::from(e)),
        }
    }
}

impl axum::response::IntoResponse for LichessError {
    fn into_response(self) -> axum::response::Response {
        (
            self.status,
            axum::Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

/// A handler argument `person: Person` requires a session.
impl<S> FromRequestParts<S> for Person
where
    S: Send + Sync,
    AppState: FromRef<S>,
{
    type Rejection = ServerError;

    /// # Errors
    /// [`ServerError::Unauthorized`] (`no session`) without a known session cookie; an internal
    /// error when the database fails.
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Person, ServerError> {
        session_person(&parts.headers, &AppState::from_ref(state))
            .await?
            .ok_or_else(|| ServerError::Unauthorized("no session".to_owned()))
    }
}

/// A handler argument `person: Option<Person>` is `None` without a known session cookie.
impl<S> OptionalFromRequestParts<S> for Person
where
    S: Send + Sync,
    AppState: FromRef<S>,
{
    type Rejection = ServerError;

    /// # Errors
    /// An internal error when the database fails.
    async fn from_request_parts(
        parts: &mut Parts,
        state: &S,
    ) -> Result<Option<Person>, ServerError> {
        session_person(&parts.headers, &AppState::from_ref(state)).await
    }
}

/// A request body read as JSON into `T`.
///
/// Unlike `axum::Json` it asks for no `Content-Type`, and its refusals are the server's:
/// `too_large` over the body limit, `bad_message` with `the body does not read` when the body
/// cannot be received, and `bad_message` with serde's own text when the JSON does not read as
/// `T`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ServerError;

    async fn from_request(request: Request, state: &S) -> Result<JsonBody<T>, ServerError> {
        if !is_json(request.headers()) {
            return Err(ServerError::NotJson);
        }
        let bytes = Bytes::from_request(request, state).await?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ServerError::BadMessage(e.to_string()))
    }
}

/// Whether the request's `Content-Type` is `application/json` (any parameters, any case). A page
/// of another site can send a `text/plain` body without the browser asking chuhe first, never an
/// `application/json` one; see [`crate::edge::origin`].
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::{is_json, session_cookie, session_token, token_digest};
    use axum::http::{header, HeaderMap, HeaderValue};

    #[test]
    fn only_json_bodies_are_read() {
        let with = |t: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_str(t).unwrap());
            is_json(&h)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn token_digest_is_sha256() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(
            token_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; chuhe_session=xyz"),
        );
        assert_eq!(session_token(&headers).as_deref(), Some("xyz"));
        assert_eq!(session_token(&HeaderMap::new()), None);
        let mut quoted = HeaderMap::new();
        quoted.append(
            header::COOKIE,
            HeaderValue::from_static("broken; chuhe_session=abc; other=1"),
        );
        assert_eq!(session_token(&quoted).as_deref(), Some("abc"));
    }

    #[test]
    fn the_session_cookie_carries_its_attributes() {
        let day = std::time::Duration::from_secs(86_400);
        assert_eq!(
            session_cookie("xyz", day, false),
            "chuhe_session=xyz; HttpOnly; SameSite=Lax; Path=/; Max-Age=86400"
        );
        assert_eq!(
            session_cookie("", std::time::Duration::ZERO, true),
            "chuhe_session=; HttpOnly; SameSite=Lax; Secure; Path=/; Max-Age=0"
        );
    }
}
