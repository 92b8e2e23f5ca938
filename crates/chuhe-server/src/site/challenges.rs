//! Challenges between two accounts (`POST /api/challenge/{username}`, lichess's model): kept
//! in this node's memory until accepted, declined or cancelled (a restart forgets them; the
//! challenger asks again), at most [`MAX_PENDING`] per challenger.

use crate::protocol::{SeatPlayer, TableOptions};
use std::collections::HashMap;
use std::sync::Mutex;

/// Most challenges one account may have waiting at once.
pub const MAX_PENDING: usize = 20;

/// A challenge waiting for its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// Its id (8 letters and digits).
    pub id: String,
    /// Who challenges (a person).
    pub challenger: SeatPlayer,
    /// Who is challenged (a person).
    pub dest: SeatPlayer,
    /// The table it makes once accepted.
    pub options: TableOptions,
    /// The colour asked for: `white`, `black` or `random`.
    pub color: String,
    /// The challenger's seat once accepted (0 = white = Red), drawn when it is made.
    pub challenger_seat: usize,
    /// When it was made, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// The id of a seat's person (empty for the computer).
pub fn person_id(p: &SeatPlayer) -> &str {
    match p {
        SeatPlayer::Person { id, .. } => id,
        SeatPlayer::Computer { .. } => "",
    }
}

/// The challenges waiting on this node, by id.
#[derive(Debug, Default)]
pub struct Challenges {
    waiting: Mutex<HashMap<String, Challenge>>,
}

impl Challenges {
    /// Keeps `c` until it is answered.
    ///
    /// # Errors
    /// The challenger has [`MAX_PENDING`] challenges waiting already.
    pub fn add(&self, c: Challenge) -> Result<(), String> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let mine = waiting
            .values()
            .filter(|w| person_id(&w.challenger) == person_id(&c.challenger))
            .count();
        if mine >= MAX_PENDING {
            return Err(format!(
                "at most {MAX_PENDING} challenges wait at once: cancel one first"
            ));
        }
        waiting.insert(c.id.clone(), c);
        Ok(())
    }

    /// Takes the challenge `id` out when `may` allows it (who answers); `None` when there is
    /// no such challenge or `may` refuses.
    pub fn take_if(&self, id: &str, may: impl Fn(&Challenge) -> bool) -> Option<Challenge> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if waiting.get(id).is_some_and(&may) {
            waiting.remove(id)
        } else {
            None
        }
    }

    /// The challenges waiting that involve `player_id`, as challenger or as challenged.
    pub fn of(&self, player_id: &str) -> Vec<Challenge> {
        let waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<Challenge> = waiting
            .values()
            .filter(|c| person_id(&c.challenger) == player_id || person_id(&c.dest) == player_id)
            .cloned()
            .collect();
        out.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
        out
    }
}
