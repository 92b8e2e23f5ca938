//! Accounts: what a player's name may be ([`names`]), password hashing on bounded threads
//! ([`password`]) and Glicko-2 ratings ([`rating`]). No I/O but the hasher's threads.

pub mod names;
pub mod password;
pub mod rating;
