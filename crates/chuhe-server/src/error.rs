//! The one error enum at the server edge: it owns its HTTP status, its wire code and its log
//! level. Internal details are logged, never sent.

use crate::protocol::{ErrorBody, ErrorCode, ServerMessage};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::fmt;

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
    /// The move answers version `got`, the table is at `current`.
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
    /// A failure inside the server; the text is logged, not sent.
    Internal(String),
    /// A bad start-up setting (address, database URL); never sent to a client.
    Config(String),
}

impl ServerError {
    /// The machine code sent to the client.
    pub fn code(&self) -> ErrorCode {
        match self {
            ServerError::BadMessage(_) => ErrorCode::BadMessage,
            ServerError::TooLarge => ErrorCode::TooLarge,
            ServerError::RateLimited | ServerError::TooManyRequests { .. } => {
                ErrorCode::RateLimited
            }
            ServerError::Unauthorized(_) => ErrorCode::Unauthorized,
            ServerError::NotFound(_) | ServerError::TableClosed => ErrorCode::NotFound,
            ServerError::Conflict(_) => ErrorCode::Conflict,
            ServerError::NotSeated => ErrorCode::NotSeated,
            ServerError::NotYourTurn => ErrorCode::NotYourTurn,
            ServerError::StaleVersion { .. } => ErrorCode::StaleVersion,
            ServerError::IllegalMove(_) => ErrorCode::IllegalMove,
            ServerError::NotAllowed(_) => ErrorCode::NotAllowed,
            ServerError::NotReady => ErrorCode::NotReady,
            ServerError::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            ServerError::Internal(_) | ServerError::Config(_) => ErrorCode::Internal,
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ServerError::BadMessage(_) | ServerError::IllegalMove(_) => StatusCode::BAD_REQUEST,
            ServerError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ServerError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ServerError::RateLimited | ServerError::TooManyRequests { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ServerError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ServerError::NotFound(_) | ServerError::TableClosed => StatusCode::NOT_FOUND,
            ServerError::NotSeated | ServerError::NotYourTurn => StatusCode::FORBIDDEN,
            ServerError::Conflict(_)
            | ServerError::StaleVersion { .. }
            | ServerError::NotAllowed(_)
            | ServerError::NotReady => StatusCode::CONFLICT,
            ServerError::Internal(_) | ServerError::Config(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The text the client sees: the message, except for internal errors.
    pub fn public_message(&self) -> String {
        match self {
            ServerError::Internal(_) | ServerError::Config(_) => "internal error".to_owned(),
            e => e.to_string(),
        }
    }

    /// Logs the error at its level: internal failures as errors, client mistakes as debug.
    pub fn log(&self) {
        match self {
            ServerError::Internal(detail) | ServerError::Config(detail) => {
                tracing::error!(%detail, "internal error")
            }
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
            ServerError::MethodNotAllowed => f.write_str("method not allowed for this route"),
            ServerError::Internal(m) => write!(f, "internal error: {m}"),
            ServerError::Config(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ServerError {}

impl From<sqlx::Error> for ServerError {
    fn from(e: sqlx::Error) -> Self {
        ServerError::Internal(format!("database: {e}"))
    }
}

impl From<sqlx::migrate::MigrateError> for ServerError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        ServerError::Internal(format!("migration: {e}"))
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

impl From<serde_json::Error> for ServerError {
    fn from(e: serde_json::Error) -> Self {
        ServerError::Internal(format!("json: {e}"))
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
        if let ServerError::TooManyRequests { retry_after_secs } = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(retry_after_secs),
            );
        }
        response
    }
}
