//! chuhe's load client, behind `chuhe loadtest`: plays many games at once against a running
//! `chuhe serve`, over the same HTTP and WebSocket protocol as the web client
//! (`docs/protocol.md`), and reports how fast the server answered.
//!
//! Each game is a task: one guest session and one WebSocket per seat, a table created by seat 0,
//! every seat taken, the game started, then random legal moves (the legal moves the server sends
//! the seat to move) after a think time drawn uniformly from a range, or at once (`--think-ms 0`).
//! When a game ends a new one starts, so `--games` games run until `--duration` is over.
//!
//! Two latencies are measured per move, from the moment the move's frame is written:
//! - **ack**: until the mover's own connection receives the `moved` event of that move, in the
//!   move's `update` (the server sends it only after the move is durable in the store);
//! - **hand-over**: until the connection of the seat to move next receives its legal moves (what a
//!   player needs to answer), in the same `update`, which carries them only to that seat.
//!
//! Every acknowledged move is remembered; at the end each table's stored events are read back
//! (`GET /api/tables/{id}/events`, which reads the store) and every acknowledged move must be
//! stored exactly once, at the version it was acknowledged with.
//!
//! The server's HTTP limits count requests per client address (`docs/protocol.md`, "Limits"), so
//! each player connects from its own loopback address (127.1.0.1, 127.1.0.2, ...; Linux routes the
//! whole 127.0.0.0/8 to the loopback interface) unless `--no-spread` is given.
//!
//! **Clusters.** `--url` may be given several times (the nodes of one cluster): seat `i` of game
//! `g` makes its session and connects through `urls[(g + i) % n]`, so the seats of one game sit
//! on different nodes; the table is created through seat 0's URL, and the stored events are
//! read through any URL. With `--reconnect`, a connection that closes or fails mid-game is made
//! again through the next URL with `?since=` the last version the seat saw, every 200 ms for up
//! to 30 s from the loss; the replayed events and the new `state` are applied and the game plays
//! on (the seat to move moves again from that state). A move sent and not acknowledged when its
//! connection was lost is not counted as acknowledged: the replay tells whether it landed
//! (counted apart) or not (the seat plays on). Requests that get no answer or a 5xx are tried
//! again the same way. The report then says how many reconnections there were and the longest
//! time a seat went from a loss to its first `state` after it (the takeover time a player sees).
//!
//! **Against the computer.** `--computer-games N` plays N more games at the same time, each a
//! guest at seat 0 of a table whose other seats are the computer at `--computer-level` (the
//! variants in turn, a new game when one ends). The guest moves like the players above; its
//! acks are reported apart from the games between people, with the computer's answer time (from
//! the update that began the computer's turn to the update with its move: the server's minimum
//! pause, the wait for a thinking thread, the search). So one run shows whether the moves
//! between people keep their latency while computers think. These games do not reconnect: a
//! closed connection is an error. Their acknowledged moves are checked in the store too.
//!
//! The messages sent are the server's own wire types (`chuhe_server::protocol`: `ClientMessage`
//! on the WebSockets, `GuestRequest` and `TableOptions` over HTTP); of the server's messages only
//! the parts the load test reads are parsed (`wire` keeps both sides).
//!
//! **An arena.** `--arena-players N` runs N accounts in one arena instead of the games above
//! (`arena`: the accounts, the arena created or `--arena-id`, joins, each player's event
//! stream and games, and the pairing waves as the server reports them in the arena's `wave`).
//!
//! The same crate holds `chuhe bot` ([`bot`]), the bridge between a UCI engine and a bot
//! account (lichess's Bot API, `docs/bots.md`): the other client of the server that the binary
//! runs.
//!
//! The parts, one file each:
//! - `settings`: [`LoadSettings`] and [`base_url`]; `error`: [`LoadError`];
//! - `setup`: sessions and tables over HTTP, the URL each try uses, trying again;
//! - `socket`: a seat's WebSocket, its reader, reconnecting; `link`: what a seat's connection
//!   remembers across a loss;
//! - `wire`: the messages sent (typed) and the parts of the messages received;
//! - `game`: a game between people, from the sessions to its end; `computer`: a guest's game
//!   against the computer; `choice`: the next move and when to send it;
//! - `stats`: the latencies and counters all games report into; `machine`: the server's memory
//!   and the load average;
//! - `check`: every acknowledged move stored exactly once; `report`: the report's lines;
//!   `run`: [`run`], which ties them together.
#![deny(missing_docs)]

mod arena;
pub mod bot;
mod check;
mod choice;
mod computer;
mod crowd;
mod error;
mod game;
mod link;
mod machine;
mod report;
mod run;
mod settings;
mod setup;
mod socket;
mod stats;
mod wire;

pub use arena::ArenaLoad;
pub use error::LoadError;
pub use run::run;
pub use settings::{base_url, LoadSettings};
