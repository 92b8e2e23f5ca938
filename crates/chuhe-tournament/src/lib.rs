//! The pure logic of chuhe's tournaments (`docs/tournaments.md`, issue 28): no I/O, no async, no
//! database. A server keeps a tournament's state (every state type derives `Serialize` and
//! `Deserialize`), calls it once per event (a player joined, withdrew or paused; a game ended; the
//! clock ticked for a pairing wave) and creates a table for each game it is handed.
//!
//! - [`arena`]: lichess's arena for two-player games (xiangqi, banqi): players are paired as soon
//!   as they are free, win 2, draw 1, loss 0, streaks and berserk.
//! - [`sanguo`]: the same for Three Kingdoms xiangqi, three players a table, kingdoms rotated.
//! - [`swiss`]: a fixed number of rounds paired by a documented subset of FIDE's Dutch system
//!   (`docs/swiss.md`), with byes, late joins, withdrawals, Buchholz and Sonneborn-Berger.
//!
//! ```
//! use chuhe_tournament::arena::{Arena, ArenaSettings, GameEnd};
//! use chuhe_tournament::{PlayerId, Side};
//!
//! let mut arena = Arena::new(ArenaSettings::default());
//! arena.join(PlayerId::from("ana"), 1500);
//! arena.join(PlayerId::from("bo"), 1400);
//! let games = arena.pair_wave();
//! assert_eq!(games.len(), 1);
//! let end = GameEnd { winner: Some(Side::Red), plies: 40, red_berserk: false, black_berserk: false };
//! arena.record_result(games[0].id, end).unwrap();
//! assert_eq!(arena.standings()[0].score, 2);
//! ```

#![deny(missing_docs)]

pub mod arena;
mod pool;
pub mod sanguo;
pub mod swiss;

pub use chuhe_rules::sanguo::Kingdom;
pub use chuhe_rules::Side;

use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's opaque identity: the server's account id or name, never interpreted here. Ordered
/// by its text, which is the last tie-break everywhere so every order is total and repeatable.
/// Serialised as the bare string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl From<&str> for PlayerId {
    fn from(s: &str) -> PlayerId {
        PlayerId(s.to_owned())
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A rating in whole rating points (chuhe's Glicko-2 rating rounded to the nearest point), as the
/// player had it when they joined. Used to order players with the same score and for the
/// performance rating; never changed by this crate.
pub type Rating = i32;

/// A game a tournament handed out, numbered from 1 in the order they were made, per tournament.
/// Serialised as the bare number. The server maps it to its table.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct GameId(pub u64);

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Whether a joined player of an arena takes part in the next waves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    /// Paired whenever free.
    Active,
    /// Not paired until they resume; keeps score and place in the standings (lichess's "pause").
    Paused,
    /// Left the event; keeps score and place in the standings, and may join again (lichess's
    /// "withdraw" after the start: the score stays, the player is no longer paired).
    Withdrawn,
}

/// How one game ended for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerResult {
    /// The player won (in sanguo: alone or with another kingdom).
    Win,
    /// Nobody won.
    Draw,
    /// The player lost.
    Loss,
}

/// Why an event of any tournament was refused. Messages are lowercase, without a final period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventError {
    /// No player with this id joined.
    UnknownPlayer(PlayerId),
    /// No game with this id was handed out.
    UnknownGame(GameId),
    /// The game's result was already recorded.
    GameFinished(GameId),
    /// The result does not fit the game (e.g. a sanguo winner who did not play, a kingdom named
    /// twice).
    BadResult(&'static str),
    /// Swiss: the round cannot be paired now, or no more rounds remain (the reason in words).
    Round(&'static str),
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::UnknownPlayer(p) => write!(f, "unknown player {p}"),
            EventError::UnknownGame(g) => write!(f, "unknown game {g}"),
            EventError::GameFinished(g) => write!(f, "game {g} already has a result"),
            EventError::BadResult(why) => write!(f, "result does not fit the game: {why}"),
            EventError::Round(why) => write!(f, "round refused: {why}"),
        }
    }
}

impl std::error::Error for EventError {}
