//! Accounts: what a player's name may be ([`names`]), password hashing on bounded threads
//! ([`password`]), Glicko-2 ratings ([`rating`]) and personal API tokens' scopes and digests
//! ([`tokens`]). No I/O but the hasher's threads.

pub mod names;
pub mod password;
pub mod rating;
pub mod tokens;
