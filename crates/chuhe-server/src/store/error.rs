//! What the store fails with ([`StoreError`]) and which failures mean the database is unavailable.

use std::fmt;

/// Why the store failed. The server edge turns it into a
/// [`ServerError`](crate::error::ServerError): a taken name and an unknown cursor are the
/// client's mistakes, a bad database URL is a start-up setting, the rest are internal failures
/// that are logged with their cause and never sent.
#[derive(Debug)]
pub enum StoreError {
    /// The database URL names neither SQLite nor PostgreSQL.
    UnsupportedUrl(String),
    /// The database could not be opened.
    Open {
        /// The database URL.
        url: String,
        /// Why it could not be opened.
        source: sqlx::Error,
    },
    /// Applying the migrations failed.
    Migration(sqlx::migrate::MigrateError),
    /// A query failed.
    Database(sqlx::Error),
    /// A value does not write as JSON, or a stored JSON text does not read as its type.
    Json(serde_json::Error),
    /// An account of this name exists.
    NameTaken(String),
    /// Stored facts refuse the request (an account that has played games cannot become a bot,
    /// an unknown account...): the text says which, and is sent.
    Refused(String),
    /// No listed finished game has this table id (the `before` of a page of finished games).
    NoFinishedGame(String),
    /// More events were given than the table row's version counts.
    EventVersions {
        /// How many events were given.
        count: usize,
        /// The row's version, which the last event takes.
        last: u64,
    },
    /// The store's writer has stopped (the store was closed): nothing more is written.
    WriterStopped,
    /// The database did not answer within the store's time limit
    /// ([`super::StoreOptions::statement_timeout`]); whether a write landed is then resolved from the
    /// store (see the module documentation).
    Timeout(std::time::Duration),
    /// A write whose outcome is unknown: its transaction failed at `COMMIT` or after (the
    /// answer lost, the time limit reached, the connection cut), and the store could not tell
    /// whether it landed. It may be stored: the table reads the store before its next action,
    /// and the client is told so (`in_doubt`), never that the write was refused.
    InDoubt(Box<StoreError>),
    /// Another chuhe server holds this database (a PostgreSQL advisory lock taken at start-up
    /// and held for the life of the process).
    InUse(String),
    /// A fenced table write was refused: this node no longer owns the table (another node took
    /// it over with a higher epoch) or its own lease has lapsed ([`super::cluster`]). Nothing was
    /// written.
    Fenced(String),
    /// A cluster operation on a store that cannot hold a cluster (SQLite).
    NotClustered,
    /// This server no longer holds the PostgreSQL database: another `chuhe serve` (or a cluster
    /// node) started on it after this server's advisory lock ended, and this server's writes
    /// are refused from then on (see "One writer" in the module documentation). The server
    /// stops.
    Superseded(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::UnsupportedUrl(url) => write!(
                f,
                "unsupported database url {:?}: use sqlite://FILE or postgres://...",
                redact_url(url)
            ),
            StoreError::Open { url, source } => {
                write!(f, "cannot open database {:?}: {source}", redact_url(url))
            }
            StoreError::Migration(e) => write!(f, "migration: {e}"),
            StoreError::Database(e) => write!(f, "database: {e}"),
            StoreError::Json(e) => write!(f, "json: {e}"),
            StoreError::NameTaken(name) => write!(f, "the name {name:?} is taken"),
            StoreError::NoFinishedGame(id) => write!(f, "before: no finished game {id:?}"),
            StoreError::Refused(why) => f.write_str(why),
            StoreError::EventVersions { count, last } => {
                write!(f, "{count} events cannot end at version {last}")
            }
            StoreError::WriterStopped => write!(f, "the store's writer has stopped"),
            StoreError::Timeout(limit) => write!(
                f,
                "the database did not answer within {} ms",
                limit.as_millis()
            ),
            StoreError::InDoubt(cause) => {
                write!(
                    f,
                    "the write may have been stored (its commit failed): {cause}"
                )
            }
            StoreError::InUse(what) => write!(f, "{what}"),
            StoreError::Fenced(table) => write!(
                f,
                "table {table}: this node no longer holds its lease (another node owns it)"
            ),
            StoreError::NotClustered => {
                f.write_str("a cluster needs PostgreSQL (SQLite is one server's database)")
            }
            StoreError::Superseded(why) => write!(f, "{why}"),
        }
    }
}

impl StoreError {
    /// Whether the write may have been stored all the same ([`StoreError::InDoubt`]).
    pub fn is_in_doubt(&self) -> bool {
        matches!(self, StoreError::InDoubt(_))
    }

    /// Whether the failure is the database being away rather than a fault of the request or
    /// of the data: no answer within the time limit, a connection that could not be made or
    /// was cut, a pool without a free connection, a PostgreSQL server shutting down or not
    /// accepting connections (SQLSTATE classes 08, 53 and 57P), SQLite busy, locked or unable
    /// to open its files (`SQLITE_CANTOPEN`, as when the process is out of file descriptors).
    /// The client is told that the database is unavailable and to try again: a write that
    /// failed so was not stored (one that may have been is [`StoreError::InDoubt`] instead).
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Timeout(_) | StoreError::WriterStopped => true,
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::Protocol(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed => true,
                sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                    code.starts_with("08")
                        || code.starts_with("53")
                        || code.starts_with("57P")
                        // SQLite's codes are numbers (PostgreSQL's SQLSTATEs have five
                        // characters): SQLITE_BUSY (5), SQLITE_LOCKED (6) and
                        // SQLITE_CANTOPEN (14), extended too
                        || (code.len() < 5
                            && matches!(code.parse::<u32>(), Ok(n) if matches!(n & 0xff, 5 | 6 | 14)))
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Open { source, .. } | StoreError::Database(source) => Some(source),
            StoreError::Migration(e) => Some(e),
            StoreError::Json(e) => Some(e),
            StoreError::InDoubt(cause) => Some(cause.as_ref()),
            _ => None,
        }
    }
}

/// Two store errors are equal only when they are the same value: a failure has no meaningful
/// equality of its own, and this keeps [`ServerError`](crate::error::ServerError), which
/// shares one behind an `Arc`, comparable.
impl PartialEq for StoreError {
    fn eq(&self, other: &StoreError) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migration(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Json(e)
    }
}

/// `text` with the credentials of a URL (`scheme://USER:PASSWORD@host`, and the values of
/// `password`, `sslpassword` and `token` in its query) replaced by `***`, for error messages,
/// logs and `--print-config`; a text without `://` is returned as it is.
///
/// ```
/// use chuhe_server::store::redact_url;
/// assert_eq!(
///     redact_url("postgres://u:p@db/chuhe?sslmode=require&password=x"),
///     "postgres://***@db/chuhe?sslmode=require&password=***"
/// );
/// assert_eq!(redact_url("nats://chuhe:s3cret@nats:4222"), "nats://***@nats:4222");
/// assert_eq!(redact_url("sqlite://chuhe.db"), "sqlite://chuhe.db");
/// assert_eq!(redact_url("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
/// assert_eq!(redact_url("127.0.0.1:8080"), "127.0.0.1:8080");
/// ```
pub fn redact_url(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rfind('@') {
        Some(at) => format!("***{}", &authority[at..]),
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _))
                        if ["password", "sslpassword", "token"]
                            .contains(&k.to_ascii_lowercase().as_str()) =>
                    {
                        format!("{k}=***")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}
