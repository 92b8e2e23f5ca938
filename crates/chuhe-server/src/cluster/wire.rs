//! What travels between the nodes: the requests a node asks the owner of a table
//! (`{p}.node.{owner}.{kind}`), their replies, a person as sent, and the header that closes a
//! forwarded connection.

use crate::error::ServerError;
use crate::protocol::{ClientMessage, ErrorCode, TableSummary};
use crate::table::Person;
use serde::{Deserialize, Serialize};

/// The header that marks the end of a forwarded connection on its `conn` subject.
pub(super) const CLOSED_HEADER: &str = "Chuhe-Closed";

/// A person as it travels between nodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct WirePerson {
    id: String,
    name: String,
    account: bool,
}

impl From<&Person> for WirePerson {
    fn from(p: &Person) -> Self {
        WirePerson {
            id: p.id.clone(),
            name: p.name.clone(),
            account: p.account,
        }
    }
}

impl From<WirePerson> for Person {
    fn from(p: WirePerson) -> Self {
        Person {
            id: p.id,
            name: p.name,
            account: p.account,
        }
    }
}

/// What a forwarding node asks of a table's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(super) enum Request {
    /// Register a connection whose messages go to `back`.
    Connect {
        table: String,
        person: Option<WirePerson>,
        since: Option<u64>,
        back: String,
        from: String,
    },
    /// A client message of the connection registered for `back`.
    Message { back: String, msg: ClientMessage },
    /// The connection registered for `back` has closed.
    Disconnect { back: String },
    /// The table as listed.
    Summary { table: String },
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub(super) enum Reply {
    Ok {
        #[serde(default)]
        summary: Option<TableSummary>,
    },
    Refused {
        code: ErrorCode,
        message: String,
    },
    /// This node does not own the table (any more): ask again where it is.
    NotOwner,
}

impl Reply {
    pub(super) fn refused(e: &ServerError) -> Reply {
        Reply::Refused {
            code: e.code(),
            message: e.public_message(),
        }
    }
}
