//! The JSON fixtures of `tests/data/protocol/` (shared with the web client's tests) parse into
//! the wire types and print back to the same JSON; together they cover every message and event.

use chuhe_server::protocol::{
    AccountRequest, ClientMessage, ErrorBody, Event, FinishedPage, GuestRequest, PlayerInfo,
    Positions, Seat, ServerMessage, TableOptions, TableSummary,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeSet;

fn round_trip<T: DeserializeOwned + Serialize>(name: &str, text: &str) -> T {
    let value: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let back = serde_json::to_value(&value).unwrap();
    let original: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(back, original, "{name} does not print back the same");
    value
}

fn tag(v: &impl Serialize, field: &str) -> String {
    serde_json::to_value(v).unwrap()[field]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn fixtures_parse_and_print_back() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/protocol");
    let mut client_types = BTreeSet::new();
    let mut server_types = BTreeSet::new();
    let mut event_kinds = BTreeSet::new();
    let mut http = BTreeSet::new();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    for name in &names {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        if name.starts_with("client.") {
            let m: ClientMessage = round_trip(name, &text);
            client_types.insert(tag(&m, "type"));
        } else if name.starts_with("server.") {
            let m: ServerMessage = round_trip(name, &text);
            server_types.insert(tag(&m, "type"));
            match &m {
                ServerMessage::Event { event, .. } => drop(event_kinds.insert(tag(event, "kind"))),
                ServerMessage::Update(u) => {
                    for e in &u.events {
                        event_kinds.insert(tag(&e.event, "kind"));
                    }
                }
                _ => {}
            }
        } else if let Some(kind) = name.strip_prefix("http.") {
            let kind = kind.trim_end_matches(".json");
            match kind {
                "table_options" => drop(round_trip::<TableOptions>(name, &text)),
                "table_summary" => drop(round_trip::<TableSummary>(name, &text)),
                "player" => drop(round_trip::<PlayerInfo>(name, &text)),
                "error" => drop(round_trip::<ErrorBody>(name, &text)),
                "guest_request" => drop(round_trip::<GuestRequest>(name, &text)),
                "account_request" => drop(round_trip::<AccountRequest>(name, &text)),
                "finished_page" => drop(round_trip::<FinishedPage>(name, &text)),
                "positions" => drop(round_trip::<Positions>(name, &text)),
                other => panic!("{name}: unknown http fixture {other}"),
            }
            http.insert(kind.to_owned());
        } else {
            panic!("{name}: fixtures are named client.*, server.* or http.*");
        }
    }
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        client_types,
        set(&[
            "abort",
            "accept_draw",
            "accept_rematch",
            "accept_takeback",
            "berserk",
            "chat",
            "decline_draw",
            "decline_rematch",
            "decline_takeback",
            "move",
            "offer_draw",
            "offer_rematch",
            "ping",
            "resign",
            "sit",
            "sit_computer",
            "stand",
            "start",
            "sync",
            "takeback"
        ])
    );
    assert_eq!(
        server_types,
        set(&[
            "chat",
            "error",
            "event",
            "pong",
            "presence",
            "spectators",
            "state",
            "update"
        ])
    );
    assert_eq!(
        event_kinds,
        set(&[
            "berserked",
            "created",
            "defeated",
            "draw_declined",
            "draw_offered",
            "ended",
            "moved",
            "rematch_declined",
            "rematch_offered",
            "rematched",
            "sat",
            "started",
            "stood",
            "takeback_declined",
            "takeback_offered",
            "taken_back"
        ])
    );
    assert_eq!(http.len(), 8);
    assert_eq!(names.len(), 66);
}

#[test]
fn unknown_fields_and_types_are_refused() {
    for text in [
        r#"{"type": "move", "version": 5, "move": "h2e2", "seat": 1}"#,
        r#"{"type": "teleport"}"#,
        r#"{"type": "move", "version": -1, "move": "h2e2"}"#,
        r#"{"version": 5, "move": "h2e2"}"#,
    ] {
        assert!(
            serde_json::from_str::<ClientMessage>(text).is_err(),
            "{text}"
        );
    }
    assert!(serde_json::from_str::<TableOptions>(r#"{"variant": "chess"}"#).is_err());
    let e: Event = serde_json::from_str(r#"{"kind": "started"}"#).unwrap();
    assert_eq!(e, Event::Started);
}

/// A seat is a plain number on the wire. Any unsigned number reads (the table answers a seat it
/// does not have with its range); anything else is refused with serde's own words, as before
/// seats had a type of their own.
#[test]
fn seats_are_plain_numbers() {
    let sit: ClientMessage = round_trip("sit 300", r#"{"type":"sit","seat":300}"#);
    assert_eq!(
        sit,
        ClientMessage::Sit {
            seat: Seat::new(300)
        }
    );
    let computer: ClientMessage = round_trip(
        "sit_computer 2",
        r#"{"type":"sit_computer","seat":2,"level":3}"#,
    );
    assert_eq!(
        computer,
        ClientMessage::SitComputer {
            seat: Seat::new(2),
            level: 3
        }
    );
    for (text, error) in [
        (
            r#"{"type":"sit","seat":-1}"#,
            "invalid value: integer `-1`, expected usize",
        ),
        (
            r#"{"type":"sit","seat":1.5}"#,
            "invalid type: floating point `1.5`, expected usize",
        ),
        (
            r#"{"type":"sit","seat":18446744073709551616}"#,
            "invalid type: floating point `1.8446744073709552e+19`, expected usize",
        ),
        (
            r#"{"type":"sit","seat":"1"}"#,
            "invalid type: string \"1\", expected usize",
        ),
    ] {
        let e = serde_json::from_str::<ClientMessage>(text).unwrap_err();
        assert_eq!(e.to_string(), error, "{text}");
    }
}

/// A message without fields refuses an unknown field too (`docs/protocol.md`: unknown fields are
/// a `bad_message`): `{"type":"start","x":1}` must never start a game.
#[test]
fn field_less_messages_refuse_unknown_fields() {
    use chuhe_server::protocol::ClientMessage;
    for kind in [
        "stand",
        "start",
        "resign",
        "offer_draw",
        "accept_draw",
        "decline_draw",
        "accept_takeback",
        "decline_takeback",
        "abort",
        "ping",
    ] {
        let plain: ClientMessage = serde_json::from_str(&format!(r#"{{"type":"{kind}"}}"#))
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            format!(r#"{{"type":"{kind}"}}"#)
        );
        let extra = serde_json::from_str::<ClientMessage>(&format!(r#"{{"type":"{kind}","x":1}}"#))
            .unwrap_err()
            .to_string();
        assert!(
            extra.starts_with("unknown field `x`, there are no fields"),
            "{kind}: {extra}"
        );
    }
}

/// A chat line from a server that did not say who has an account reads as a guest's.
#[test]
fn a_chat_line_without_account_is_a_guests() {
    let old = r#"{"type":"chat","room":"players","name":"Bob","seat":0,"text":"hola"}"#;
    match serde_json::from_str::<ServerMessage>(old).unwrap() {
        ServerMessage::Chat { account, name, .. } => {
            assert_eq!((account, name.as_str()), (false, "Bob"))
        }
        other => panic!("expected a chat line, got {other:?}"),
    }
}

/// The packed legal moves of an update: xiangqi's start position (44 moves from 16 squares)
/// in 151 bytes against 309 for the JSON list, and back in the same order; the refusals name
/// the group.
#[test]
fn legal_moves_pack_and_unpack() {
    use chuhe_server::protocol::{pack_moves, unpack_moves};
    let mut moves: Vec<String> = chuhe_rules::xiangqi::Position::start()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect();
    moves.sort();
    assert_eq!(moves.len(), 44);
    let packed = pack_moves(&moves);
    assert_eq!(packed.len(), 151, "{packed}");
    assert_eq!(serde_json::to_string(&moves).unwrap().len(), 309);
    assert!(packed.starts_with("a0:a1a2;a3:a4;b0:a2c2;b2:"), "{packed}");
    assert_eq!(unpack_moves(&packed).unwrap(), moves);
    assert_eq!(unpack_moves("").unwrap(), Vec::<String>::new());
    assert_eq!(
        unpack_moves("a0a1").unwrap_err(),
        "packed moves: no ':' in the group \"a0a1\""
    );
    assert_eq!(
        unpack_moves("a0:a1;b0:c").unwrap_err(),
        "packed moves: the group \"b0:c\" does not end in pairs of characters"
    );
}
