//! Each player's stream of events (`GET /api/stream/event`, lichess's shapes): whatever
//! concerns a player is pushed here by its source — challenges (`crate::edge::bots`), the
//! start and end of the player's games (the site, as its tables report them), and, later,
//! tournaments' pairings — and every open event stream of that player receives it.
//!
//! Lines are sent to the streams open at the moment; nothing is kept for a stream opened later
//! (a new stream is told of the player's games in play and open challenges by its route
//! instead, as lichess does). In a cluster a pushed line goes through NATS to every node, which
//! hands it to its own streams of the player ([`PlayerEvents::deliver`]), so a stream on any
//! node receives it once.

use crate::protocol::{Phase, SeatPlayer, TableSummary};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{broadcast, mpsc};

/// Lines a slow stream may fall behind by before it misses some (it is then closed by its
/// route, and the client reconnects).
const BACKLOG: usize = 64;

/// The event streams of every player, by player id.
#[derive(Debug, Default)]
pub struct PlayerEvents {
    streams: Mutex<HashMap<String, broadcast::Sender<Arc<str>>>>,
    /// In a cluster: where pushed lines go (player id, line) to be published to every node.
    relay: OnceLock<mpsc::UnboundedSender<(String, Arc<str>)>>,
}

impl PlayerEvents {
    /// A new receiver of the lines pushed to `player_id` from now on.
    pub fn subscribe(&self, player_id: &str) -> broadcast::Receiver<Arc<str>> {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams
            .entry(player_id.to_owned())
            .or_insert_with(|| broadcast::channel(BACKLOG).0)
            .subscribe()
    }

    /// In a cluster: sends every line pushed from now on to `relay` instead of this node's
    /// streams (the cluster publishes it to every node, this one included).
    pub(crate) fn set_relay(&self, relay: mpsc::UnboundedSender<(String, Arc<str>)>) {
        let _ = self.relay.set(relay);
    }

    /// Sends `line` (one JSON object) to every open event stream of `player_id`, on every node
    /// of a cluster; answers how many streams of this node received it (0 in a cluster: the
    /// line is on its way).
    pub fn push(&self, player_id: &str, line: &Value) -> usize {
        let text: Arc<str> = Arc::from(line.to_string());
        if let Some(relay) = self.relay.get() {
            if relay.send((player_id.to_owned(), text.clone())).is_ok() {
                return 0;
            }
        }
        self.deliver(player_id, &text)
    }

    /// Sends the line `text` to this node's open event streams of `player_id`; answers how
    /// many received it. A player without an open stream is forgotten.
    pub fn deliver(&self, player_id: &str, text: &str) -> usize {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let Some(tx) = streams.get(player_id) else {
            return 0;
        };
        let sent = tx.send(Arc::from(text)).unwrap_or(0);
        if sent == 0 {
            streams.remove(player_id);
        }
        sent
    }
}

/// lichess's `color` of seat `seat` of a two-seat table: seat 0 (Red, or banqi's first
/// player) is `white`, seat 1 `black`.
pub fn color_of(seat: usize) -> &'static str {
    if seat == 0 {
        "white"
    } else {
        "black"
    }
}

/// A seat's player as lichess shows an opponent: `{"id", "username"}` for a person (with
/// `title: "BOT"` for a bot, when `bots` says so), `{"id": null, "username": "chuhe level N",
/// "ai": N}` for the computer, `null` for an empty seat.
pub fn opponent_of(seat: Option<&SeatPlayer>, is_bot: impl Fn(&str) -> bool) -> Value {
    match seat {
        Some(SeatPlayer::Person { id, name, .. }) => {
            let mut v = json!({"id": id, "username": name});
            if is_bot(id) {
                v["title"] = json!("BOT");
            }
            v
        }
        Some(SeatPlayer::Computer { level }) => {
            json!({"id": null, "username": format!("chuhe level {level}"), "ai": level})
        }
        None => Value::Null,
    }
}

/// The `game` of a `gameStart` or `gameFinish` line for the player `player_id` at the table
/// `table` (`None` when the player does not sit there): `gameId` and `id` (the table's id),
/// `color` ([`seat_color`]), `opponent` (the next seat's player), `rated`, `variant`
/// (`{"key", "name"}`), `source` (`ai` against the computer, else `friend`), `status`
/// (`created`, `started` or `ended`), and `compat`; at a sanguo table also `opponents`, both
/// other kingdoms' players in turn order.
pub fn game_of(
    table: &TableSummary,
    player_id: &str,
    is_bot: impl Fn(&str) -> bool,
) -> Option<Value> {
    let seat = table
        .seats
        .iter()
        .position(|s| matches!(s, Some(SeatPlayer::Person { id, .. }) if id == player_id))?;
    let three = table.seats.len() == 3;
    // the next seat in turn order (two seats: the other one)
    let other = table.seats[(seat + 1) % table.seats.len()].as_ref();
    let source = if matches!(other, Some(SeatPlayer::Computer { .. })) {
        "ai"
    } else {
        "friend"
    };
    let status = match table.phase {
        Phase::Open => "created",
        Phase::Running => "started",
        Phase::Ended => "ended",
    };
    let key = table.options.variant.as_str();
    let mut game = json!({
        "gameId": table.id,
        "id": table.id,
        "color": seat_color(table.seats.len(), seat),
        "opponent": opponent_of(other, &is_bot),
        "rated": table.options.rated,
        "variant": {"key": key, "name": variant_name(key)},
        "source": source,
        "status": status,
        "compat": {"bot": true, "board": true},
    });
    if three {
        // sanguo: both other kingdoms, in turn order after this seat
        game["opponents"] = json!([1, 2]
            .iter()
            .map(|k| opponent_of(table.seats[(seat + k) % 3].as_ref(), &is_bot))
            .collect::<Vec<_>>());
    }
    Some(game)
}

/// lichess's `color` of `seat` at a table of `seats` seats: `white` and `black` for two, the
/// kingdom's name (`shu`, `wu`, `wei`, in turn order) for sanguo's three.
pub fn seat_color(seats: usize, seat: usize) -> &'static str {
    if seats == 3 {
        ["shu", "wu", "wei"].get(seat).copied().unwrap_or("wei")
    } else {
        color_of(seat)
    }
}

/// A variant's name as lichess shows it beside its key.
pub fn variant_name(key: &str) -> &'static str {
    match key {
        "xiangqi" => "Xiangqi",
        "sanguo" => "Sanguo",
        "banqi" => "Banqi",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reaches_every_stream_of_its_player_only() {
        let hub = PlayerEvents::default();
        assert_eq!(hub.push("p1", &json!({"type": "gameStart"})), 0);
        let mut a = hub.subscribe("p1");
        let mut b = hub.subscribe("p1");
        let mut other = hub.subscribe("p2");
        assert_eq!(hub.push("p1", &json!({"type": "gameStart"})), 2);
        assert_eq!(&*a.try_recv().unwrap(), r#"{"type":"gameStart"}"#);
        assert_eq!(&*b.try_recv().unwrap(), r#"{"type":"gameStart"}"#);
        assert!(other.try_recv().is_err());
        drop((a, b));
        // Nobody listens any more: the player is forgotten.
        assert_eq!(hub.push("p1", &json!({"type": "gameFinish"})), 0);
        assert!(!hub.streams.lock().unwrap().contains_key("p1"));
    }
}
