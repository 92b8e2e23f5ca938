//! The messages: what the load test sends is the server's own types
//! ([`chuhe_server::protocol`]); of what the server sends, only the parts the load test reads
//! ([`Incoming`]), so a message it does not read costs no more than its type's name.

use chuhe_rules::Variant;
use chuhe_server::protocol::{ClientMessage, GuestRequest, Seat, TableOptions, TimeControl};
use serde::Deserialize;

/// `sit`: takes `seat` for the connection's player.
pub(crate) fn sit(seat: usize) -> ClientMessage {
    ClientMessage::Sit {
        seat: Seat::new(seat),
    }
}

/// `sit_computer`: seats the computer at `level` (1–8) in `seat`.
pub(crate) fn sit_computer(seat: usize, level: u8) -> ClientMessage {
    ClientMessage::SitComputer {
        seat: Seat::new(seat),
        level,
    }
}

/// `start`: starts the game once every seat is taken.
pub(crate) fn start() -> ClientMessage {
    ClientMessage::Start {}
}

/// `move`: plays `mv` (the text of one of the legal moves received) against `version`.
pub(crate) fn play(version: u64, mv: String) -> ClientMessage {
    ClientMessage::Move { version, mv }
}

/// `sync` without `since`: asks for the table's state, after an `in_doubt` answer (the write
/// may be stored; the server settles it before it answers).
pub(crate) fn sync() -> ClientMessage {
    ClientMessage::Sync { since: None }
}

/// The text frame of `msg`, as the server reads it (`docs/protocol.md`).
///
/// # Errors
/// The message could not be written as JSON (never for these types; kept as an error rather
/// than a panic).
pub(crate) fn frame(msg: &ClientMessage) -> Result<String, String> {
    serde_json::to_string(msg).map_err(|e| format!("ws send: {e}"))
}

/// The body of `POST /api/session` for a guest named `name`.
pub(crate) fn guest(name: &str) -> GuestRequest {
    GuestRequest {
        name: name.to_owned(),
    }
}

/// The body of `POST /api/tables`: `variant`, unrated, with the time control `(initial_ms,
/// increment_ms)` or untimed, the rules' defaults otherwise.
pub(crate) fn table_options(variant: Variant, time: Option<(u64, u64)>) -> TableOptions {
    TableOptions {
        variant,
        time: time.map(|(initial_ms, increment_ms)| TimeControl {
            initial_ms,
            increment_ms,
        }),
        rated: false,
        no_capture_limit: None,
        flag_bearers: None,
        start_when_full: false,
        fen: None,
        tournament: None,
        berserkable: false,
    }
}

/// The moves of an update's packed `moves`.
fn packed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let text = String::deserialize(d)?;
    chuhe_server::protocol::unpack_moves(&text).map_err(serde::de::Error::custom)
}

/// The parts of the server's WebSocket messages the load test reads; other fields are ignored.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Incoming {
    /// An event replayed after reconnecting (or live).
    Event { version: u64, event: IncomingEvent },
    /// The table as the receiver sees it (on connecting): its phase, seats and legal moves.
    State {
        version: u64,
        #[serde(default)]
        legal_moves: Vec<String>,
        table: IncomingTable,
    },
    /// What a change changed (after every change; the full state comes only on connecting).
    Update {
        version: u64,
        events: Vec<IncomingVersioned>,
        /// Packed on the wire (`moves`: `chuhe_server::protocol::pack_moves`).
        #[serde(rename = "moves", default, deserialize_with = "packed")]
        legal_moves: Vec<String>,
    },
    /// A refused message.
    Error { code: String, message: String },
    /// Anything else (and anything unreadable).
    #[serde(other)]
    Other,
}

/// An event of an update, with its version.
#[derive(Debug, Deserialize)]
pub(crate) struct IncomingVersioned {
    pub(crate) version: u64,
    pub(crate) event: IncomingEvent,
}

/// The events the load test follows: moves (to acknowledge), seats taken and freed, the end.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum IncomingEvent {
    Moved {
        seat: usize,
        #[serde(rename = "move")]
        mv: String,
    },
    Sat {
        seat: usize,
    },
    Stood {
        seat: usize,
    },
    Ended {},
    #[serde(other)]
    Other,
}

/// A table as a `state` shows it: the phase (`open`, `running`, `ended`) and one entry per
/// seat, `null` when empty.
#[derive(Debug, Deserialize)]
pub(crate) struct IncomingTable {
    pub(crate) phase: String,
    pub(crate) seats: Vec<Option<serde_json::Value>>,
}

/// What a message changed: its events each with its version, the legal moves it carries, and
/// its version.
pub(crate) type Change = (Vec<(u64, IncomingEvent)>, Vec<String>, u64);

/// The [`Change`] of an update or a replayed event; `None` for any other message.
pub(crate) fn changes(msg: Incoming) -> Option<Change> {
    match msg {
        Incoming::Event { version, event } => Some((vec![(version, event)], Vec::new(), version)),
        Incoming::Update {
            version,
            events,
            legal_moves,
        } => Some((
            events.into_iter().map(|e| (e.version, e.event)).collect(),
            legal_moves,
            version,
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Incoming {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/protocol");
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The frames on the wire, byte for byte: the server's tag first, then the fields in their
    /// declared order.
    #[test]
    fn client_messages_are_encoded_exactly() {
        let cases = [
            (sit(1), r#"{"type":"sit","seat":1}"#),
            (
                sit_computer(2, 8),
                r#"{"type":"sit_computer","seat":2,"level":8}"#,
            ),
            (start(), r#"{"type":"start"}"#),
            (
                play(7, "flip c2".to_owned()),
                r#"{"type":"move","version":7,"move":"flip c2"}"#,
            ),
            (sync(), r#"{"type":"sync","since":null}"#),
        ];
        for (msg, text) in cases {
            assert_eq!(frame(&msg).unwrap(), text);
        }
    }

    /// The frames the load test wrote before it used the server's types (`json!` objects, keys
    /// in alphabetical order) mean the same messages to the server as the typed ones.
    #[test]
    fn the_server_reads_the_old_and_the_new_frames_alike() {
        let cases = [
            (r#"{"seat":0,"type":"sit"}"#, sit(0)),
            (
                r#"{"level":3,"seat":1,"type":"sit_computer"}"#,
                sit_computer(1, 3),
            ),
            (r#"{"type":"start"}"#, start()),
            (
                r#"{"move":"h2e2","type":"move","version":12}"#,
                play(12, "h2e2".to_owned()),
            ),
        ];
        for (old, msg) in cases {
            let read: ClientMessage = serde_json::from_str(old).unwrap();
            assert_eq!(read, msg);
            let again: ClientMessage = serde_json::from_str(&frame(&msg).unwrap()).unwrap();
            assert_eq!(again, msg);
        }
    }

    /// What the load test sends is what the protocol's fixtures (`tests/data/protocol`, which
    /// `docs/protocol.md` documents and the web client's tests read too) show.
    #[test]
    fn the_frames_are_the_protocols_fixtures() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/protocol");
        let read = |name: &str| -> serde_json::Value {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            serde_json::from_str(&text).unwrap()
        };
        let value = |text: String| -> serde_json::Value { serde_json::from_str(&text).unwrap() };
        assert_eq!(value(frame(&sit(0)).unwrap()), read("client.sit.json"));
        assert_eq!(
            value(frame(&sit_computer(1, 5)).unwrap()),
            read("client.sit_computer.json")
        );
        assert_eq!(value(frame(&start()).unwrap()), read("client.start.json"));
        assert_eq!(
            value(frame(&play(5, "h2e2".to_owned())).unwrap()),
            read("client.move.json")
        );
        assert_eq!(
            serde_json::to_value(guest("Zhang Fei")).unwrap(),
            read("http.guest_request.json")
        );
    }

    /// The HTTP bodies: the guest's name; the table's options with the defaults written out
    /// (`rated: false`, `null` for the rules' defaults), which the server reads as the old
    /// body that left them out.
    #[test]
    fn http_bodies_are_encoded_exactly() {
        assert_eq!(
            serde_json::to_string(&guest("load 3.1")).unwrap(),
            r#"{"name":"load 3.1"}"#
        );
        let timed = table_options(Variant::Sanguo, Some((60_000, 2_000)));
        let text = serde_json::to_string(&timed).unwrap();
        assert_eq!(
            text,
            r#"{"variant":"sanguo","time":{"initial_ms":60000,"increment_ms":2000},"rated":false,"no_capture_limit":null,"flag_bearers":null}"#
        );
        let old = r#"{"time":{"increment_ms":2000,"initial_ms":60000},"variant":"sanguo"}"#;
        assert_eq!(serde_json::from_str::<TableOptions>(old).unwrap(), timed);
        assert_eq!(serde_json::from_str::<TableOptions>(&text).unwrap(), timed);
        let untimed = table_options(Variant::Banqi, None);
        assert_eq!(
            serde_json::to_string(&untimed).unwrap(),
            r#"{"variant":"banqi","time":null,"rated":false,"no_capture_limit":null,"flag_bearers":null}"#
        );
        let old = r#"{"time":null,"variant":"banqi"}"#;
        assert_eq!(serde_json::from_str::<TableOptions>(old).unwrap(), untimed);
    }

    /// The load test reads what it needs from the server's updates: the events with their
    /// versions (a move to acknowledge, seats taken) and the legal moves of the seat to move.
    #[test]
    fn updates_are_read() {
        let Incoming::Update {
            version,
            events,
            legal_moves,
        } = fixture("server.update.banqi.json")
        else {
            panic!("not an update");
        };
        assert_eq!(version, 7);
        assert_eq!(
            legal_moves,
            ["c2-b2", "c2-c1", "c2-d2", "flip a1", "flip a2"]
        );
        assert!(matches!(
            &events[..],
            [IncomingVersioned { version: 7, event: IncomingEvent::Moved { seat: 1, mv } }] if mv == "d3=c"
        ));
        let Incoming::Update { events, .. } = fixture("server.update.sat.json") else {
            panic!("not an update");
        };
        assert!(matches!(
            &events[..],
            [IncomingVersioned {
                event: IncomingEvent::Sat { seat: 1 },
                ..
            }]
        ));
        let Incoming::Update { events, .. } = fixture("server.update.ended.json") else {
            panic!("not an update");
        };
        assert!(matches!(events[1].event, IncomingEvent::Ended {}));
    }

    /// An update gives its events, legal moves and version; a replayed event gives itself; any
    /// other message no change.
    #[test]
    fn changes_of_a_message() {
        let Some((events, legal_moves, version)) = changes(fixture("server.update.banqi.json"))
        else {
            panic!("no change");
        };
        assert_eq!((events.len(), legal_moves.len(), version), (1, 5, 7));
        let event: Incoming = serde_json::from_str(
            r#"{"type":"event","version":4,"event":{"kind":"stood","seat":1}}"#,
        )
        .unwrap();
        let Some((events, legal_moves, version)) = changes(event) else {
            panic!("no change");
        };
        assert!(matches!(
            &events[..],
            [(4, IncomingEvent::Stood { seat: 1 })]
        ));
        assert!(legal_moves.is_empty());
        assert_eq!(version, 4);
        let pong: Incoming = serde_json::from_str(r#"{"type":"pong"}"#).unwrap();
        assert!(changes(pong).is_none());
    }
}
