//! chuhe's standard-xiangqi engine and its text protocol front end (`spec/engine-protocol.md`).
//!
//! [`uci::Session`] reads UCI (Pikafish dialect) commands line by line and writes the answers;
//! `chuhe uci` connects it to standard input and output.
#![deny(missing_docs)]

pub mod uci;

/// The engine's name and version as `id name` prints it.
pub const ENGINE_NAME: &str = concat!("chuhe ", env!("CARGO_PKG_VERSION"));
/// The `id author` line's text.
pub const ENGINE_AUTHOR: &str = "the chuhe developers";
