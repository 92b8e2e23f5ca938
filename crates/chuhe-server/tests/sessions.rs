//! Sessions and names: the cookie's `Secure` and `Max-Age`, expiry and the cleanup of expired
//! sessions and unused guests, account names reserved against look-alikes by their skeleton
//! key (existing accounts keyed at start-up), binary frames counted against the message rate,
//! and the thinking time charged after a kill -9.

#[macro_use]
mod common;

use chuhe_server::protocol::{ClientMessage, ErrorCode, Seat, SeatPlayer, ServerMessage};
use chuhe_server::store::{Store, StoreOptions};
use chuhe_server::Settings;
use common::*;
use futures_util::SinkExt;
use std::time::Duration;

fn set_cookie(head: &str) -> String {
    head.lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_else(|| panic!("no set-cookie in {head}"))
        .to_owned()
}

/// The attributes of a `Set-Cookie` value (after its `name=value`), sorted.
fn attributes(cookie: &str) -> Vec<String> {
    let mut parts: Vec<String> = cookie.split("; ").skip(1).map(str::to_owned).collect();
    parts.sort();
    parts
}

/// The cookie lasts the session lifetime (30 days by default); `Secure` only when asked.
#[tokio::test]
async fn the_session_cookie_has_a_lifetime_and_secure_when_asked() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, Settings::default()).await;
    let (_, head, _) = server
        .http("POST", "/api/session", None, Some(r#"{"name":"ann"}"#))
        .await;
    let cookie = set_cookie(&head);
    assert_eq!(
        attributes(&cookie),
        ["HttpOnly", "Max-Age=2592000", "Path=/", "SameSite=Lax"],
        "{cookie}"
    );
    server.stop().await;
    let secure = Settings {
        secure_cookies: true,
        ..Settings::default()
    };
    let server = Server::start(&db, secure).await;
    let (_, head, _) = server
        .http("POST", "/api/session", None, Some(r#"{"name":"ann"}"#))
        .await;
    assert_eq!(
        attributes(&set_cookie(&head)),
        [
            "HttpOnly",
            "Max-Age=2592000",
            "Path=/",
            "SameSite=Lax",
            "Secure"
        ],
        "{head}"
    );
    let (_, head, _) = server
        .http("POST", "/api/logout", Some(&cookie_of(&head)), None)
        .await;
    let cleared = set_cookie(&head);
    assert!(cleared.starts_with("chuhe_session=;"), "{cleared}");
    assert_eq!(
        attributes(&cleared),
        ["HttpOnly", "Max-Age=0", "Path=/", "SameSite=Lax", "Secure"],
        "{cleared}"
    );
    server.stop().await;
}

/// With a lifetime of 50 ms, a session unused for longer is not found (401 on `/api/me`); the
/// cleanup removes it, the guest left without a session, and an account's expired session, but
/// not the account.
async fn expired_sessions_and_unused_guests_are_removed(backend: Backend) {
    let db = fresh_db(backend).await;
    let options = StoreOptions {
        session_lifetime: Duration::from_millis(50),
        ..StoreOptions::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let server = Server::start_on(store, Settings::default()).await;
    let guest = server.guest("ann").await;
    let account = r#"{"name":"liu bei","password":"peach garden"}"#;
    let (status, head, _) = server
        .http("POST", "/api/accounts", None, Some(account))
        .await;
    assert_eq!(status, 200);
    let holder = cookie_of(&head);
    tokio::time::sleep(Duration::from_millis(120)).await;
    for cookie in [&guest, &holder] {
        let (status, _, body) = server.http("GET", "/api/me", Some(cookie), None).await;
        assert_eq!(status, 401, "{body}");
    }
    // Two sessions and one guest.
    assert_eq!(server.state.store().cleanup().await.unwrap(), 3);
    assert_eq!(server.state.store().cleanup().await.unwrap(), 0);
    let (status, _, _) = server.http("POST", "/api/login", None, Some(account)).await;
    assert_eq!(status, 200);
    server.stop().await;
}
on_both!(expired_sessions_and_unused_guests_are_removed);

/// An account holder's name is reserved by its skeleton key: a guest cannot take it, nor a
/// look-alike (capital I for small l, a digit 1, Cyrillic letters, punctuation, full width); a
/// second account cannot either. A different name passes. Accounts stored before the key
/// existed are keyed at start-up.
async fn account_names_are_reserved_against_look_alikes(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, fast_settings()).await;
    let account = r#"{"name":"Paul","password":"peach garden"}"#;
    let (status, _, _) = server
        .http("POST", "/api/accounts", None, Some(account))
        .await;
    assert_eq!(status, 200);
    let check = |server: &Server| {
        let addr = server.addr;
        async move {
            for name in ["Paul", "pauI", "Pau1", "Раul", "P.a.u.l", "Ｐａｕｌ"] {
                let body = format!(r#"{{"name":"{name}"}}"#);
                let (status, _, text) = http(addr, "POST", "/api/session", None, Some(&body)).await;
                assert_eq!(status, 409, "{name}: {text}");
                assert!(text.contains("belongs to an account"), "{text}");
                let body = format!(r#"{{"name":"{name}","password":"another one"}}"#);
                let (status, _, text) =
                    http(addr, "POST", "/api/accounts", None, Some(&body)).await;
                assert_eq!(status, 409, "{name}: {text}");
            }
            let (status, _, _) = http(
                addr,
                "POST",
                "/api/session",
                None,
                Some(r#"{"name":"Paula"}"#),
            )
            .await;
            assert_eq!(status, 200);
        }
    };
    check(&server).await;
    server.stop().await;
    // As if stored before the migration: no key, no index.
    {
        use sqlx::Connection;
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        for sql in [
            "DROP INDEX players_account_skeleton",
            "UPDATE players SET skeleton = NULL",
        ] {
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
        conn.close().await.unwrap();
    }
    let server = Server::start(&db, fast_settings()).await;
    check(&server).await;
    server.stop().await;
}
on_both!(account_names_are_reserved_against_look_alikes);

/// Issue 25, item 10: a guest who took "Bob" before the account "Bob" existed keeps the name,
/// and both show as "Bob". Where they meet (seated at one table, in its chat) each keeps one
/// name and its own id, and the seats and the chat lines say who has an account, so the client
/// marks the guest.
#[tokio::test]
async fn a_guest_and_an_account_of_one_name_are_told_apart() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    let guest = server.guest("Bob").await;
    let body = r#"{"name":"Bob","password":"peach garden"}"#;
    let (status, head, text) = server.http("POST", "/api/accounts", None, Some(body)).await;
    assert_eq!(status, 200, "{text}");
    let account = cookie_of(&head);
    let table = server.create_table(&guest, UNTIMED).await;
    let mut g = server.ws(&table, Some(&guest), None).await;
    let mut a = server.ws(&table, Some(&account), None).await;
    g.state_at(1).await;
    a.state_at(1).await;
    g.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    let state = a.act(&ClientMessage::Sit { seat: Seat::new(1) }, 3).await;
    let seats: Vec<(String, String, bool)> = state
        .table
        .seats
        .iter()
        .map(|s| match s {
            Some(SeatPlayer::Person {
                id, name, account, ..
            }) => (id.clone(), name.clone(), *account),
            other => panic!("expected a person, got {other:?}"),
        })
        .collect();
    assert_eq!((seats[0].1.as_str(), seats[0].2), ("Bob", false));
    assert_eq!((seats[1].1.as_str(), seats[1].2), ("Bob", true));
    assert_ne!(seats[0].0, seats[1].0);
    // In the players' chat each line says whether its speaker has an account.
    g.send(&ClientMessage::Chat {
        text: "soy el invitado".to_owned(),
    })
    .await;
    a.send(&ClientMessage::Chat {
        text: "soy la cuenta".to_owned(),
    })
    .await;
    for client in [&mut g, &mut a] {
        let mut lines = Vec::new();
        while lines.len() < 2 {
            if let ServerMessage::Chat {
                name,
                seat,
                account,
                text,
                ..
            } = client.next().await
            {
                lines.push((name, seat, account, text));
            }
        }
        lines.sort_by_key(|l| l.1);
        assert_eq!(
            lines,
            [
                (
                    "Bob".to_owned(),
                    Some(Seat::new(0)),
                    false,
                    "soy el invitado".to_owned()
                ),
                (
                    "Bob".to_owned(),
                    Some(Seat::new(1)),
                    true,
                    "soy la cuenta".to_owned()
                ),
            ]
        );
    }
    server.stop().await;
}

/// Issue 25, item 10: `電腦(8級)`, `The Computer` and `Level 8 computer` passed the reserved-name
/// check (it knew simplified Chinese only, and looked only at a name's start). The computer's
/// words are refused anywhere in a name, for guests and accounts alike.
#[tokio::test]
async fn the_computers_words_are_refused_anywhere_in_a_name() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    let refused = r#"{"error":"bad_message","message":"bad message: that name is the computer's"}"#;
    for name in [
        "電腦(8級)",
        "The Computer",
        "Level 8 computer",
        "计算机",
        "El ordenador",
    ] {
        let body = format!(r#"{{"name":"{name}"}}"#);
        let (status, _, text) = server.http("POST", "/api/session", None, Some(&body)).await;
        assert_eq!((status, text.as_str()), (400, refused), "{name}");
        let body = format!(r#"{{"name":"{name}","password":"peach garden"}}"#);
        let (status, _, text) = server
            .http("POST", "/api/accounts", None, Some(&body))
            .await;
        assert_eq!((status, text.as_str()), (400, refused), "{name}");
    }
    let (status, _, _) = server
        .http("POST", "/api/session", None, Some(r#"{"name":"Compute"}"#))
        .await;
    assert_eq!(status, 200);
    server.stop().await;
}

/// Issue 25, item 10: chat took U+202E, zero-width characters, U+2028 and tag characters.
/// Chat lines follow the names' rules now (emoji sequences still pass), with a clear message.
#[tokio::test]
async fn chat_lines_refuse_what_hides_or_reorders_text() {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, fast_settings()).await;
    let cookie = server.guest("ann").await;
    let table = server.create_table(&cookie, UNTIMED).await;
    let mut ann = server.ws(&table, Some(&cookie), None).await;
    ann.state().await;
    let invisible =
        "bad message: a chat line cannot contain invisible or direction-changing characters";
    let control = "bad message: a chat line has no control characters or line breaks";
    for (text, why) in [
        ("abc\u{202E}def", invisible),
        ("a\u{200B}b", invisible),
        ("a\u{200D}b", invisible),
        ("\u{2066}x\u{2069}", invisible),
        ("hola\u{E0041}\u{E007F}", invisible),
        ("\u{FEFF}hola", invisible),
        ("a\u{2028}b", control),
        ("a\u{2029}b", control),
    ] {
        ann.send(&ClientMessage::Chat {
            text: text.to_owned(),
        })
        .await;
        assert_eq!(
            ann.error().await,
            (ErrorCode::BadMessage, why.to_owned()),
            "{text:?}"
        );
    }
    let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{1F3F3}\u{FE0F}\u{200D}\u{1F308}";
    ann.send(&ClientMessage::Chat {
        text: family.to_owned(),
    })
    .await;
    loop {
        match ann.next().await {
            ServerMessage::Chat { text, .. } => {
                assert_eq!(text, family);
                break;
            }
            ServerMessage::Error { code, message } => panic!("{code:?} {message}"),
            _ => {}
        }
    }
    server.stop().await;
}

/// Binary frames spend from the message budget: with a burst of 20 and (almost) no refill, 20
/// binary frames are refused as `bad_message`, the 21st as `rate_limited`, and so is the next
/// text message.
#[tokio::test]
async fn binary_frames_count_against_the_message_rate() {
    use tokio_tungstenite::tungstenite::Message;
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        rate_burst: 20.0,
        rate_per_second: 0.001,
        ..settings(Duration::from_secs(60))
    };
    let server = Server::start(&db, settings).await;
    let cookie = server.guest("ann").await;
    let table = server.create_table(&cookie, UNTIMED).await;
    let url = format!("ws://{}/api/tables/{table}/ws", server.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    for _ in 0..21 {
        socket
            .send(Message::Binary(vec![1u8, 2, 3].into()))
            .await
            .unwrap();
    }
    socket
        .send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    let mut codes = Vec::new();
    use futures_util::StreamExt;
    while codes.len() < 22 {
        if let Some(Ok(Message::Text(t))) = socket.next().await {
            let v: serde_json::Value = serde_json::from_str(&t).unwrap();
            if v["type"] == "error" {
                codes.push((
                    v["code"].as_str().unwrap().to_owned(),
                    v["message"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    let bad = (
        "bad_message".to_owned(),
        "bad message: binary messages are not accepted: send JSON text".to_owned(),
    );
    let limited = (
        "rate_limited".to_owned(),
        "too many messages, slow down".to_owned(),
    );
    assert_eq!(codes[..20], vec![bad; 20][..]);
    assert_eq!(codes[20..], [limited.clone(), limited][..]);
    server.stop().await;
}

/// After a crash the clocks restart from the last write's snapshot, less the thinking time
/// the crashed server saw go by: here the previous server was last alive 20 s after the row's
/// last write, so Black, to move, has 20 s less (a clean stop leaves nothing to charge).
async fn thinking_time_before_a_crash_is_charged(backend: Backend) {
    use sqlx::Connection;
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let (_red, _black, table) = black_to_move(&server).await;
    server.stop().await;
    let remaining = |state: &chuhe_server::protocol::State| {
        state
            .clocks
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| c.remaining_ms)
            .collect::<Vec<_>>()
    };
    // A clean stop: the clocks as saved.
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let mut watcher = server.ws(&table, None, None).await;
    let clean = remaining(&watcher.state().await);
    server.stop().await;
    // As a kill -9 leaves it: alive 20 s after the row's last write.
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    sqlx::query(
        "UPDATE server_state SET value = \
         (SELECT updated_ms FROM game_tables WHERE id = $1) + 20000 WHERE name = 'alive_ms'",
    )
    .bind(table.as_str())
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let mut watcher = server.ws(&table, None, None).await;
    let crashed = remaining(&watcher.state().await);
    assert_eq!(crashed[0], clean[0]);
    let charged = clean[1] - crashed[1];
    assert!((20_000..21_000).contains(&charged), "{clean:?} {crashed:?}");
    server.stop().await;
}
on_both!(thinking_time_before_a_crash_is_charged);

/// After a crash whose last writes were moves that left the table's row as it was (SQLite's
/// groups of moves write a row only when its phase changes; the write's last event holds the
/// clocks), the clocks restart from that last event's snapshot, less the thinking time from
/// the event's time to the crashed server's last `alive_ms` (20 s here). The database is put
/// back as a kill -9 leaves it: the row as it was while the server ran (a clean stop saves
/// it) and `alive_ms` 20 s after the last event. On PostgreSQL every row is written, and the
/// same holds from the row.
async fn thinking_time_after_a_crash_counts_from_the_last_event(backend: Backend) {
    use sqlx::{Connection, Row};
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let (mut red, mut black, table) = black_to_move(&server).await;
    black.act(&mv(5, "h9g7"), 6).await;
    red.state_at(6).await;
    red.act(&mv(6, "h0g2"), 7).await;
    black.state_at(7).await;
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    let row = sqlx::query("SELECT version, clocks, updated_ms FROM game_tables WHERE id = $1")
        .bind(table.as_str())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let (row_version, row_clocks, row_ms): (i64, String, i64) =
        (row.get("version"), row.get("clocks"), row.get("updated_ms"));
    let last = sqlx::query(
        "SELECT clocks, created_ms FROM table_events WHERE table_id = $1 AND version = 7",
    )
    .bind(table.as_str())
    .fetch_one(&mut conn)
    .await
    .unwrap();
    let (event_clocks, event_ms): (Option<String>, i64) =
        (last.get("clocks"), last.get("created_ms"));
    // What the server had stored when it "crashed": on SQLite the row is still the start's
    // (version 4) and the last event holds the clocks; on PostgreSQL the row is the last
    // move's.
    let snapshot = match backend {
        Backend::Sqlite => {
            assert_eq!(row_version, 4);
            event_clocks.expect("the last event of a group of moves holds the clocks")
        }
        Backend::Postgres => {
            assert_eq!((row_version, event_clocks), (7, None));
            assert_eq!(row_ms, event_ms);
            row_clocks.clone()
        }
    };
    let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    let black_at_write = snapshot["remaining_ms"][1].as_u64().unwrap();
    server.stop().await;
    // As a kill -9 leaves it: the row as it was, alive 20 s after the last event. On SQLite
    // the row's write is put 30 s before the last event's, as in a game whose moves took
    // time: a charge counted from the row's time would be 50 s (and its clocks, the start's,
    // have Black's 2 s increment less than the event's).
    let row_ms = match backend {
        Backend::Sqlite => row_ms - 30_000,
        Backend::Postgres => row_ms,
    };
    sqlx::query("UPDATE game_tables SET version = $1, clocks = $2, updated_ms = $3 WHERE id = $4")
        .bind(row_version)
        .bind(row_clocks.as_str())
        .bind(row_ms)
        .bind(table.as_str())
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query("UPDATE server_state SET value = $1 WHERE name = 'alive_ms'")
        .bind(event_ms + 20_000)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let state = server.ws(&table, None, None).await.state().await;
    server.stop().await;
    assert_eq!(state.version, 7);
    let black_now = state.clocks.as_ref().unwrap()[1].remaining_ms;
    // Black, to move, is charged the 20 s (and the few milliseconds of the load).
    let charged = black_at_write - black_now;
    assert!(
        (20_000..21_000).contains(&charged),
        "{black_at_write} {black_now}"
    );
}
on_both!(thinking_time_after_a_crash_counts_from_the_last_event);

/// A restart records a new starting point for the running clock: a second crash charges the
/// thinking time since the restart, not the down time before it (think 1 s, crash, 40 s down,
/// think 6 s, crash was charged 46 s for 7 s). Here: 20 s charged at the first restart, then
/// the restarted server "crashes" 6 s after it loaded the table (its row as it left it, and its
/// last `alive_ms` 6 s after that): the third start has charged 26 s in all. A clean stop
/// followed by a crash charges only the thinking after the restart as well.
async fn a_second_crash_charges_only_the_time_since_the_restart(backend: Backend) {
    use sqlx::{Connection, Row};
    let db = fresh_db(backend).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let (_red, _black, table) = black_to_move(&server).await;
    server.stop().await;
    let remaining = |state: &chuhe_server::protocol::State| {
        state
            .clocks
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| c.remaining_ms)
            .collect::<Vec<_>>()
    };
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let clean = remaining(&server.ws(&table, None, None).await.state().await);
    server.stop().await;
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    // The row as a server leaves it while it runs, and its last `alive_ms` `after_ms` later.
    async fn crash_after(
        conn: &mut sqlx::AnyConnection,
        table: &str,
        row: &(String, i64),
        after_ms: i64,
    ) {
        sqlx::query("UPDATE game_tables SET clocks = $1, updated_ms = $2 WHERE id = $3")
            .bind(row.0.as_str())
            .bind(row.1)
            .bind(table)
            .execute(&mut *conn)
            .await
            .unwrap();
        sqlx::query("UPDATE server_state SET value = $1 WHERE name = 'alive_ms'")
            .bind(row.1 + after_ms)
            .execute(&mut *conn)
            .await
            .unwrap();
    }
    async fn row_of(conn: &mut sqlx::AnyConnection, table: &str) -> (String, i64) {
        let r = sqlx::query("SELECT clocks, updated_ms FROM game_tables WHERE id = $1")
            .bind(table)
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        (
            r.try_get("clocks").unwrap(),
            r.try_get("updated_ms").unwrap(),
        )
    }
    // The first crash, 20 s after the last write.
    let saved = row_of(&mut conn, &table).await;
    crash_after(&mut conn, &table, &saved, 20_000).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let once = remaining(&server.ws(&table, None, None).await.state().await);
    let loaded = row_of(&mut conn, &table).await;
    server.stop().await;
    let charged = clean[1] - once[1];
    // Each reading is a live clock, a few milliseconds after its load: a reading taken later
    // after its load than the one it is compared with shows a little less charged.
    assert!((19_900..21_000).contains(&charged), "{clean:?} {once:?}");
    // The second crash, 6 s after the restart that charged the first.
    crash_after(&mut conn, &table, &loaded, 6_000).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let twice = remaining(&server.ws(&table, None, None).await.state().await);
    server.stop().await;
    assert_eq!(twice[0], clean[0]);
    let charged = clean[1] - twice[1];
    assert!((25_900..27_500).contains(&charged), "{clean:?} {twice:?}");
    // A clean stop, then a crash 3 s after the next start: 3 s more, not the time between.
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let before = remaining(&server.ws(&table, None, None).await.state().await);
    let loaded = row_of(&mut conn, &table).await;
    server.stop().await;
    crash_after(&mut conn, &table, &loaded, 3_000).await;
    let server = Server::start(&db, settings(Duration::from_secs(600))).await;
    let after = remaining(&server.ws(&table, None, None).await.state().await);
    server.stop().await;
    let charged = before[1] - after[1];
    assert!((2_900..4_000).contains(&charged), "{before:?} {after:?}");
    conn.close().await.unwrap();
}
on_both!(a_second_crash_charges_only_the_time_since_the_restart);
