//! The one error enum at the server edge: it owns its HTTP status, its wire code and its log
//! level. Internal details are logged, never sent.

use crate::protocol::{ErrorBody, ErrorCode, ServerMessage};
use crate::store::StoreError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::fmt;
use std::sync::Arc;

/// Everything a request or a message can fail with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// Unreadable message or body, or a bad field (the text says which).
    BadMessage(String),
    /// A message or body over the limit.
    TooLarge,
    /// Over the WebSocket's message rate.
    RateLimited,
    /// Over an HTTP request limit: the answer carries `Retry-After`.
    TooManyRequests {
        /// Whole seconds until the client's next request is allowed (rounded up).
        retry_after_secs: u64,
    },
    /// Over the chat limit of one person (every connection of theirs together, on this node).
    TooManyChatLines {
        /// Whole seconds until the person's next chat line is allowed (rounded up).
        retry_after_secs: u64,
    },
    /// No session, or bad credentials.
    Unauthorized(String),
    /// No such table.
    NotFound(String),
    /// The table's actor has stopped (retired or shut down) since its handle was taken: the
    /// table may still exist in the store, and a new handle brings it back. Sent as
    /// `not_found` with "the table is closed".
    TableClosed,
    /// Taken name or seat.
    Conflict(String),
    /// Spectators cannot act.
    NotSeated,
    /// Another seat's turn.
    NotYourTurn,
    /// The move answers version `got`, a position the table has left since (a move, a
    /// takeback, the end...); the table is at `current`.
    StaleVersion {
        /// The version the move carried.
        got: u64,
        /// The table's version.
        current: u64,
    },
    /// Unreadable or illegal move (the text gives the rule).
    IllegalMove(String),
    /// The action does not fit the table's phase or state.
    NotAllowed(String),
    /// The route exists but not for this HTTP method.
    MethodNotAllowed,
    /// The game cannot start yet: a seated person is not connected.
    NotReady,
    /// A request from a page of another site (its `Origin` is not this site's nor allowed).
    CrossSite,
    /// A request body not declared as JSON.
    NotJson,
    /// A failure inside the server; the text is logged, not sent.
    Internal(String),
    /// A failure of the store (the database, or stored data that do not read); logged with
    /// its cause, not sent. Shared, so that the error stays cheap to clone.
    Store(Arc<StoreError>),
    /// A bad start-up setting (address, database URL); never sent to a client.
    Config(String),
    /// In a cluster: the table's owner stopped, or this node lost the table (another node
    /// took it over); the client reconnects and is served by the new owner.
    TableMoved,
    /// In a cluster: a refusal the table's owner node sent back, passed on as it came.
    Relayed {
        /// The owner's code.
        code: ErrorCode,
        /// The owner's public message.
        message: String,
    },
    /// A bounded resource is in full use (the analyses running at once): sent as
    /// `rate_limited` with status 503, the text and `Retry-After`.
    Busy {
        /// What is busy, and when to try again.
        message: String,
        /// Whole seconds to wait before trying again.
        retry_after_secs: u64,
    },
    /// The request's body did not arrive within the request time limit: 408
    /// `request_timeout`, and the connection is closed.
    RequestTimeout(std::time::Duration),
    /// In a cluster: this node found its lease lapsed and stopped without writing (what
    /// [`crate::edge::listen::run`] returns; `chuhe serve` exits with [`crate::cluster::LEASE_LOST_EXIT`]).
    /// Never sent to a client.
    LeaseLapsed(String),
}

/// What the client is told of a write whose outcome is unknown (`in_doubt`).
pub const IN_DOUBT_MESSAGE: &str =
    "the database did not confirm the write, which may have been stored: sync before trying again";

/// The `Retry-After` of an answer refused because the database is unavailable, seconds.
pub const DATABASE_RETRY_AFTER_SECS: u64 = 2;

impl ServerError {
    /// The machine code sent to the client.
    pub fn code(&self) -> ErrorCode {
        match self {
            ServerError::BadMessage(_) => ErrorCode::BadMessage,
            ServerError::TooLarge => ErrorCode::TooLarge,
            ServerError::RateLimited
            | ServerError::TooManyRequests { .. }
            | ServerError::Busy { .. } => ErrorCode::RateLimited,
            ServerError::TooManyChatLines { .. } => ErrorCode::RateLimited,
            ServerError::RequestTimeout(_) => ErrorCode::RequestTimeout,
            ServerError::Store(e) if e.is_unavailable() => ErrorCode::DatabaseUnavailable,
            ServerError::Store(e) if e.is_in_doubt() => ErrorCode::InDoubt,
            ServerError::Unauthorized(_) => ErrorCode::Unauthorized,
            ServerError::NotFound(_) | ServerError::TableClosed => ErrorCode::NotFound,
            ServerError::Conflict(_) => ErrorCode::Conflict,
            ServerError::NotSeated => ErrorCode::NotSeated,
            ServerError::NotYourTurn => ErrorCode::NotYourTurn,
            ServerError::StaleVersion { .. } => ErrorCode::StaleVersion,
            ServerError::IllegalMove(_) => ErrorCode::IllegalMove,
            ServerError::NotAllowed(_) => ErrorCode::NotAllowed,
            ServerError::NotReady => ErrorCode::NotReady,
            ServerError::CrossSite => ErrorCode::Forbidden,
            ServerError::NotJson => ErrorCode::BadMessage,
            ServerError::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            ServerError::Internal(_)
            | ServerError::Store(_)
            | ServerError::Config(_)
            | ServerError::LeaseLapsed(_) => ErrorCode::Internal,
            ServerError::TableMoved => ErrorCode::Unavailable,
            ServerError::Relayed { code, .. } => *code,
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ServerError::TableMoved => StatusCode::SERVICE_UNAVAILABLE,
            ServerError::Relayed { code, .. } => status_of(*code),
            ServerError::BadMessage(_) | ServerError::IllegalMove(_) => StatusCode::BAD_REQUEST,
            ServerError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ServerError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ServerError::CrossSite => StatusCode::FORBIDDEN,
            ServerError::NotJson => StatusCode::BAD_REQUEST,
            ServerError::RateLimited | ServerError::TooManyRequests { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ServerError::TooManyChatLines { .. } => StatusCode::TOO_MANY_REQUESTS,
            ServerError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ServerError::NotFound(_) | ServerError::TableClosed => StatusCode::NOT_FOUND,
            ServerError::NotSeated | ServerError::NotYourTurn => StatusCode::FORBIDDEN,
            ServerError::Conflict(_)
            | ServerError::StaleVersion { .. }
            | ServerError::NotAllowed(_)
            | ServerError::NotReady => StatusCode::CONFLICT,
            ServerError::Store(e) if e.is_unavailable() || e.is_in_doubt() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ServerError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ServerError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ServerError::Internal(_)
            | ServerError::Store(_)
            | ServerError::Config(_)
            | ServerError::LeaseLapsed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The text the client sees: the message, except for internal errors.
    pub fn public_message(&self) -> String {
        match self {
            ServerError::Store(e) if matches!(**e, StoreError::Timeout(_)) => {
                "the database did not answer in time, try again".to_owned()
            }
            ServerError::Store(e) if e.is_unavailable() => {
                "the database is unavailable, try again in a moment".to_owned()
            }
            ServerError::Store(e) if e.is_in_doubt() => IN_DOUBT_MESSAGE.to_owned(),
            ServerError::Internal(_)
            | ServerError::Store(_)
            | ServerError::Config(_)
            | ServerError::LeaseLapsed(_) => "internal error".to_owned(),
            ServerError::Relayed { message, .. } => message.clone(),
            e => e.to_string(),
        }
    }

    /// Logs the error at its level: internal failures as errors, client mistakes as debug.
    pub fn log(&self) {
        match self {
            ServerError::Internal(detail)
            | ServerError::Config(detail)
            | ServerError::LeaseLapsed(detail) => {
                tracing::error!(%detail, "internal error")
            }
            ServerError::Store(e) if e.is_in_doubt() => {
                tracing::warn!(detail = %e, "a write's outcome is unknown: answered in_doubt")
            }
            ServerError::Store(e) => tracing::error!(detail = %e, "internal error"),
            e => tracing::debug!(error = %e, "request refused"),
        }
    }

    /// The WebSocket message that reports this error.
    pub fn to_message(&self) -> ServerMessage {
        ServerMessage::Error {
            code: self.code(),
            message: self.public_message(),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::BadMessage(m) => write!(f, "bad message: {m}"),
            ServerError::TooLarge => f.write_str("message too large"),
            ServerError::RateLimited => f.write_str("too many messages, slow down"),
            ServerError::TooManyRequests { retry_after_secs } => {
                write!(f, "too many requests, try again in {retry_after_secs} s")
            }
            ServerError::TooManyChatLines { retry_after_secs } => {
                write!(f, "too many chat lines, wait {retry_after_secs} s")
            }
            ServerError::Unauthorized(m) => f.write_str(m),
            ServerError::NotFound(m) => f.write_str(m),
            ServerError::TableClosed => f.write_str("the table is closed"),
            ServerError::Conflict(m) => f.write_str(m),
            ServerError::NotSeated => f.write_str("only a seated player can do that"),
            ServerError::NotYourTurn => f.write_str("it is not your turn"),
            ServerError::StaleVersion { got, current } => {
                write!(f, "stale version {got}: the table is at version {current}")
            }
            ServerError::IllegalMove(m) => write!(f, "illegal move: {m}"),
            ServerError::NotAllowed(m) => f.write_str(m),
            ServerError::NotReady => f.write_str("a seated player is not connected"),
            ServerError::CrossSite => f.write_str("requests from another site are refused"),
            ServerError::NotJson => f.write_str("the body must be sent as application/json"),
            ServerError::MethodNotAllowed => f.write_str("method not allowed for this route"),
            ServerError::Internal(m) => write!(f, "internal error: {m}"),
            ServerError::Store(e) => write!(f, "internal error: {e}"),
            ServerError::Config(m) | ServerError::LeaseLapsed(m) => f.write_str(m),
            ServerError::TableMoved => {
                f.write_str("the table is moving to another server: reconnecting")
            }
            ServerError::Relayed { message, .. } => f.write_str(message),
            ServerError::Busy { message, .. } => f.write_str(message),
            ServerError::RequestTimeout(limit) => write!(
                f,
                "the request was not received within {} s",
                limit.as_secs()
            ),
        }
    }
}

impl std::error::Error for ServerError {}

/// The HTTP status of a code, for a refusal relayed from another node (the statuses of
/// [`ServerError::status`], by code).
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::BadMessage | ErrorCode::IllegalMove => StatusCode::BAD_REQUEST,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::NotSeated | ErrorCode::NotYourTurn | ErrorCode::Forbidden => {
            StatusCode::FORBIDDEN
        }
        ErrorCode::Conflict
        | ErrorCode::StaleVersion
        | ErrorCode::NotAllowed
        | ErrorCode::NotReady => StatusCode::CONFLICT,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Unavailable | ErrorCode::DatabaseUnavailable | ErrorCode::InDoubt => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
    }
}

/// The store's refusals keep the codes and messages they had: a taken name is `conflict`, an
/// unknown cursor `bad_message`, a bad database URL a start-up setting; every other failure
/// is internal.
impl From<crate::accounts::password::PasswordError> for ServerError {
    fn from(e: crate::accounts::password::PasswordError) -> Self {
        ServerError::Internal(e.0)
    }
}

impl From<StoreError> for ServerError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NameTaken(_) => ServerError::Conflict(e.to_string()),
            StoreError::NoFinishedGame(_) | StoreError::Refused(_) => {
                ServerError::BadMessage(e.to_string())
            }
            StoreError::UnsupportedUrl(_)
            | StoreError::Open { .. }
            | StoreError::InUse(_)
            | StoreError::NotClustered => ServerError::Config(e.to_string()),
            // Not written: another server holds the table (or the whole database) now.
            StoreError::Fenced(_) | StoreError::Superseded(_) => ServerError::TableMoved,
            e => ServerError::Store(Arc::new(e)),
        }
    }
}

impl From<axum::extract::rejection::BytesRejection> for ServerError {
    fn from(e: axum::extract::rejection::BytesRejection) -> Self {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ServerError::TooLarge
        } else {
            ServerError::BadMessage("the body does not read".to_owned())
        }
    }
}

impl From<axum::extract::rejection::QueryRejection> for ServerError {
    fn from(_: axum::extract::rejection::QueryRejection) -> Self {
        ServerError::BadMessage("the query string does not read".to_owned())
    }
}

impl IntoResponse for ServerError {
    fn into_response(self) -> Response {
        self.log();
        let body = ErrorBody {
            error: self.code(),
            message: self.public_message(),
        };
        let mut response = (self.status(), axum::Json(body)).into_response();
        let headers = response.headers_mut();
        match self {
            ServerError::TooManyRequests { retry_after_secs }
            | ServerError::Busy {
                retry_after_secs, ..
            } => {
                headers.insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(retry_after_secs),
                );
            }
            ServerError::Store(e) if e.is_unavailable() => {
                headers.insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(DATABASE_RETRY_AFTER_SECS),
                );
            }
            // The rest of a late body is not read: the connection closes.
            ServerError::RequestTimeout(_) => {
                headers.insert(
                    axum::http::header::CONNECTION,
                    axum::http::HeaderValue::from_static("close"),
                );
            }
            _ => {}
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::ServerError;
    use crate::protocol::ErrorCode;
    use crate::store::StoreError;

    #[test]
    fn store_refusals_keep_their_codes_and_failures_stay_inside() {
        let taken = ServerError::from(StoreError::NameTaken("ann".to_owned()));
        assert_eq!(
            taken,
            ServerError::Conflict("the name \"ann\" is taken".to_owned())
        );
        let cursor = ServerError::from(StoreError::NoFinishedGame("t1".to_owned()));
        assert_eq!(
            cursor.public_message(),
            "bad message: before: no finished game \"t1\""
        );
        let url = ServerError::from(StoreError::UnsupportedUrl("mysql://x".to_owned()));
        assert!(matches!(url, ServerError::Config(_)));

        let json = serde_json::from_str::<u8>("x").unwrap_err();
        let failure = ServerError::from(StoreError::Json(json));
        assert_eq!(failure.code(), ErrorCode::Internal);
        assert_eq!(failure.status().as_u16(), 500);
        assert_eq!(failure.public_message(), "internal error");
        assert!(failure.to_string().starts_with("internal error: json: "));
        assert_eq!(failure.clone(), failure);
    }

    #[test]
    fn a_write_in_doubt_is_neither_internal_nor_unavailable() {
        let cause = StoreError::Timeout(std::time::Duration::from_millis(5000));
        let doubt = ServerError::from(StoreError::InDoubt(Box::new(cause)));
        assert_eq!(doubt.code(), ErrorCode::InDoubt);
        assert_eq!(doubt.status().as_u16(), 503);
        assert_eq!(
            doubt.public_message(),
            "the database did not confirm the write, which may have been stored: sync before \
             trying again"
        );
        assert_eq!(
            doubt.to_string(),
            "internal error: the write may have been stored (its commit failed): the database \
             did not answer within 5000 ms"
        );
        // Without Retry-After: trying again blindly could play it twice (a move is refused as
        // stale, a new table would be another one).
        let response = axum::response::IntoResponse::into_response(doubt);
        assert_eq!(response.status().as_u16(), 503);
        assert!(response.headers().get("retry-after").is_none());
    }
}
