//! chuhe's game server: tables with seats, clocks and results over HTTP and WebSocket, stored in
//! SQLite or PostgreSQL, one node or several as one site.
//!
//! The modules are layers; each depends only on the layers below it (`docs/architecture.md`):
//!
//! - [`edge`]: what faces the network. The router ([`app`]) and its extractors, the table's
//!   WebSocket, cross-site checks, limits per address and per person, the analysis endpoints,
//!   the web client's files, and the listener ([`serve`] runs the router until a shutdown future
//!   resolves, so tests bind `127.0.0.1:0`; [`run`] is what `chuhe serve` calls).
//! - [`site`]: the middle. [`AppState`] owns the store, the table actors in memory and this
//!   node's part of a cluster; it finds where a table is served, creates tables and rematches.
//!   Its [`Settings`] are what `chuhe serve`'s flags set.
//! - [`cluster`]: several nodes as one site: leases, takeover, forwarding over NATS, the lobby
//!   (it asks the site only through its `Host` trait, which the site implements).
//! - [`table`]: one actor per table around a pure core (the rules of a table: seats, clocks,
//!   offers, results), its clocks and its PGN.
//! - [`computer`]: the computer players at the tables, on their own threads.
//! - [`error`]: [`error::ServerError`], the server's one error enum (status and wire code).
//! - [`store`]: SQL for SQLite and PostgreSQL behind one typed interface, and its writer.
//! - [`accounts`]: names, password hashing, ratings.
//! - At the bottom: the wire types ([`protocol`], documented in `docs/protocol.md`), what the
//!   server knows of a game, one arm per variant ([`variant::AnyGame`]), and the metrics' names
//!   ([`telemetry`]).

#![deny(missing_docs)]

pub mod accounts;
pub mod cluster;
pub mod computer;
pub mod edge;
pub mod error;
mod ids;
pub mod protocol;
pub mod site;
pub mod store;
pub mod table;
pub mod telemetry;
pub mod variant;

pub use edge::app;
pub use edge::listen::{run, serve, shutdown_signal};
pub use site::{AppState, Heartbeat, Settings};
