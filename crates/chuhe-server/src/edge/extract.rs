//! The extractors of the HTTP edge, each refusing with the server's own error body
//! ([`ServerError`]):
//!
//! - [`Person`]: the person behind the request's session cookie; refuses with `unauthorized`
//!   (`no session`) when there is none. `Option<Person>` never refuses for a missing or
//!   unknown session (only when the database fails).
//! - [`JsonBody`]: a request body read as JSON; refuses with `bad_message` when it is not sent
//!   as `application/json`, `too_large` over the body limit and `bad_message` (serde's text)
//!   for a body that does not read.
//!
//! The session cookie itself (its name, reading it, the digest the database keeps of a token)
//! lives here too, so that the HTTP routes, the WebSocket upgrade and
//! `/api/analysis` all depend on this module rather than on each other.

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

/// The person behind the session cookie of `headers`, if any.
async fn session_person(
    headers: &HeaderMap,
    state: &AppState,
) -> Result<Option<Person>, ServerError> {
    let Some(token) = session_token(headers) else {
        return Ok(None);
    };
    Ok(state
        .store()
        .player_by_session(&token_digest(&token))
        .await?
        .map(|p| Person {
            account: p.password_hash.is_some(),
            id: p.id,
            name: p.name,
        }))
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
