//! The two dialects of the engine protocol (`spec/engine-protocol.md`). A leaf module: the
//! option table ([`super::options`]) and the wire ([`super::protocol`]) both speak in dialects,
//! and neither needs the other for it.

/// The two dialects: UCI (the default) or UCCI 3.0 when the first command is `ucci`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// UCI, Pikafish's dialect.
    Uci,
    /// UCCI 3.0.
    Ucci,
}
