//! Shared test harness: a server on 127.0.0.1:0 over a fresh database (SQLite file or a
//! PostgreSQL schema of its own), a tiny HTTP client and WebSocket clients.
#![allow(dead_code)]

/// Runs a scenario `async fn NAME(backend: Backend)` on both databases, as `NAME::sqlite` and
/// `NAME::postgres` (the test file needs `#[macro_use] mod common;`).
#[allow(unused_macros)]
macro_rules! on_both {
    ($name:ident) => {
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                super::$name(super::Backend::Sqlite).await
            }
            #[tokio::test]
            async fn postgres() {
                super::$name(super::Backend::Postgres).await
            }
        }
    };
}

use chuhe_server::protocol::{ClientMessage, ErrorCode, Event, Seat, ServerMessage, State};
use chuhe_server::store::Store;
use chuhe_server::{AppState, Settings};
use futures_util::{SinkExt, StreamExt};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh database: its URL (the same URL reaches the same data after a restart).
pub struct Db {
    pub url: String,
    dir: Option<PathBuf>,
    schema: Option<String>,
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        if let Some(schema) = self.schema.take() {
            // Drop runs inside the test's runtime: drop the schema from a thread of its own.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    use sqlx::Connection;
                    if let Ok(mut conn) = sqlx::PgConnection::connect(&postgres_base()).await {
                        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                            "DROP SCHEMA {schema} CASCADE"
                        )))
                        .execute(&mut conn)
                        .await;
                        let _ = conn.close().await;
                    }
                });
            })
            .join();
        }
    }
}

fn unique(prefix: &str) -> String {
    use rand::RngExt;
    let n: u64 = rand::rng().random();
    format!("{prefix}_{}_{n:016x}", std::process::id())
}

/// The PostgreSQL server the tests use (`CHUHE_TEST_POSTGRES`, default the local one).
pub fn postgres_base() -> String {
    std::env::var("CHUHE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A new empty database: a SQLite file in a new temporary folder, or a new PostgreSQL schema
/// (so parallel tests never share tables).
pub async fn fresh_db(backend: Backend) -> Db {
    match backend {
        Backend::Sqlite => {
            let dir = std::env::temp_dir().join(unique("chuhe-server-test"));
            std::fs::create_dir_all(&dir).unwrap();
            Db {
                url: format!("sqlite://{}", dir.join("chuhe.db").display()),
                dir: Some(dir),
                schema: None,
            }
        }
        Backend::Postgres => {
            use sqlx::Connection;
            let schema = unique("t");
            let base = postgres_base();
            let mut conn = sqlx::PgConnection::connect(&base)
                .await
                .unwrap_or_else(|e| panic!("PostgreSQL at {base} is not reachable: {e}"));
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
                .execute(&mut conn)
                .await
                .unwrap();
            conn.close().await.unwrap();
            let sep = if base.contains('?') { '&' } else { '?' };
            Db {
                url: format!("{base}{sep}options=-c%20search_path%3D{schema}"),
                dir: None,
                schema: Some(schema),
            }
        }
    }
}

/// Holds the database's write lock from another connection until dropped: on SQLite an
/// immediate transaction, on PostgreSQL `LOCK TABLE game_tables` in a transaction.
pub async fn hold_write_lock(backend: Backend, url: &str) -> sqlx::AnyConnection {
    use sqlx::Connection;
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let statements: &[&str] = match backend {
        Backend::Sqlite => &["BEGIN IMMEDIATE"],
        Backend::Postgres => &["BEGIN", "LOCK TABLE game_tables IN ACCESS EXCLUSIVE MODE"],
    };
    for s in statements {
        sqlx::query(*s).execute(&mut conn).await.unwrap();
    }
    conn
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Starts a server on 127.0.0.1:0 over `db`.
    pub async fn start(db: &Db, settings: Settings) -> Server {
        let store = Store::connect(&db.url).await.unwrap();
        Server::start_on(store, settings).await
    }

    /// Starts a server on 127.0.0.1:0 over an open store.
    pub async fn start_on(store: Store, settings: Settings) -> Server {
        let state = AppState::new(store, settings).await.unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(chuhe_server::serve(listener, state.clone(), async move {
            let _ = stopped.await;
        }));
        Server {
            addr,
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the server as SIGTERM would, and waits until it has stopped.
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap().unwrap();
        }
    }

    /// One HTTP request; returns status, headers text and body.
    pub async fn http(
        &self,
        method: &str,
        path: &str,
        cookie: Option<&str>,
        body: Option<&str>,
    ) -> (u16, String, String) {
        http(self.addr, method, path, cookie, body).await
    }

    /// A guest session: the cookie pair `chuhe_session=...`.
    pub async fn guest(&self, name: &str) -> String {
        let body = format!(r#"{{"name":"{name}"}}"#);
        let (status, head, _) = self.http("POST", "/api/session", None, Some(&body)).await;
        assert_eq!(status, 200);
        cookie_of(&head)
    }

    /// Creates a table and returns its id.
    pub async fn create_table(&self, cookie: &str, options: &str) -> String {
        let (status, _, body) = self
            .http("POST", "/api/tables", Some(cookie), Some(options))
            .await;
        assert_eq!(status, 201, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["id"].as_str().unwrap().to_owned()
    }

    /// Opens the table's WebSocket (with `since` when given).
    pub async fn ws(&self, table: &str, cookie: Option<&str>, since: Option<u64>) -> Client {
        ws_client(self.addr, table, cookie, since).await
    }
}

/// A WebSocket client of table `table` at the server on `addr` (see [`Server::ws`]).
pub async fn ws_client(
    addr: SocketAddr,
    table: &str,
    cookie: Option<&str>,
    since: Option<u64>,
) -> Client {
    let mut url = format!("ws://{addr}/api/tables/{table}/ws");
    if let Some(s) = since {
        url.push_str(&format!("?since={s}"));
    }
    let mut req = url.into_client_request().unwrap();
    if let Some(c) = cookie {
        req.headers_mut().insert("cookie", c.parse().unwrap());
    }
    let (socket, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    Client {
        socket,
        cookie: cookie.map(str::to_owned),
        last: None,
        queue: VecDeque::new(),
        received_bytes: 0,
        log: None,
    }
}

/// The `name=value` of the Set-Cookie header.
pub fn cookie_of(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l["set-cookie:".len()..].trim().to_owned())
        })
        .and_then(|v| v.split(';').next().map(str::to_owned))
        .expect("a set-cookie header")
}

/// A minimal HTTP/1.1 client (one request per connection).
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: Option<&str>,
) -> (u16, String, String) {
    let cookie = cookie.map(|c| ("Cookie", c));
    http_with(addr, method, path, cookie.as_slice(), body).await
}

/// A request with `Authorization: Bearer token` and a form body (`form`,
/// `application/x-www-form-urlencoded`, as lichess's clients send it): the status and the body
/// as JSON (`Value::Null` when it is not JSON).
pub async fn bearer_call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: &str,
    form: &str,
) -> (u16, serde_json::Value) {
    let auth = format!("Bearer {token}");
    let (status, _, body) = http_with(
        addr,
        method,
        path,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        Some(form),
    )
    .await;
    (
        status,
        serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
    )
}

/// `GET /api/tournament/{id}` (an arena), which must answer 200: its JSON body.
pub async fn tournament_view(addr: SocketAddr, id: &str) -> serde_json::Value {
    let (status, _, body) = http(addr, "GET", &format!("/api/tournament/{id}"), None, None).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// [`http`] with any extra header lines (`name`, `value`); `Content-Type: application/json`
/// unless they name a content type.
pub async fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let body = body.unwrap_or("");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    // JSON unless the caller names another type.
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"))
    {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    (status, head.to_owned(), body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// A WebSocket client of one table. It keeps the last state up to date as the web client does
/// (each `update` applied to it, `presence` too), and hands the tests what the server used to
/// send before updates existed: each update comes out of [`Client::next`] as its events, then
/// the state it leads to, so that scenarios wait for states and events as before.
pub struct Client {
    /// The session cookie it connected with.
    pub cookie: Option<String>,
    socket: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    /// The last state, with every update and presence since applied.
    last: Option<State>,
    /// Messages made from an update and not yet handed out.
    queue: VecDeque<ServerMessage>,
    /// Bytes of text frames received so far.
    pub received_bytes: usize,
    /// When set, every text frame received (the spectator count excepted), raw, in order.
    pub log: Option<Vec<String>>,
}

impl Client {
    /// Sends a message.
    pub async fn send(&mut self, msg: &ClientMessage) {
        let text = serde_json::to_string(msg).unwrap();
        self.send_text(&text).await;
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.to_owned().into()))
            .await
            .unwrap();
    }

    /// The next server message (presence messages included); an update comes out as its
    /// events, then the state it leads to. Panics when the socket closes or an update does not
    /// apply to the last state.
    pub async fn next(&mut self) -> ServerMessage {
        if let Some(m) = self.queue.pop_front() {
            return m;
        }
        let text = self.next_text().await;
        match serde_json::from_str(&text).unwrap() {
            ServerMessage::Update(u) => {
                for e in &u.events {
                    self.queue.push_back(ServerMessage::Event {
                        version: e.version,
                        event: e.event.clone(),
                    });
                }
                self.queue
                    .push_back(ServerMessage::State(Box::new(self.current().clone())));
                self.queue.pop_front().unwrap()
            }
            other => other,
        }
    }

    /// The next text frame, raw (the last state is kept up to date with it all the same).
    pub async fn next_text(&mut self) -> String {
        loop {
            match self.socket.next().await {
                // the spectator count (issue 17) is not what these scenarios wait for (nor
                // part of their byte counts)
                Some(Ok(Message::Text(t))) if t.starts_with(r#"{"type":"spectators""#) => continue,
                Some(Ok(Message::Text(t))) => {
                    self.received_bytes += t.len();
                    let text = t.to_string();
                    self.track(&text);
                    if let Some(log) = &mut self.log {
                        log.push(text.clone());
                    }
                    return text;
                }
                Some(Ok(Message::Close(_))) | None => panic!("socket closed"),
                Some(Ok(_)) => continue,
                Some(Err(e)) => panic!("socket error: {e}"),
            }
        }
    }

    /// Applies a received frame to the last state.
    fn track(&mut self, text: &str) {
        match serde_json::from_str(text).unwrap() {
            ServerMessage::State(s) => self.last = Some(*s),
            ServerMessage::Update(u) => {
                let state = self.last.as_mut().expect("an update before any state");
                state.apply(&u).unwrap_or_else(|e| panic!("{e}: {text}"));
            }
            ServerMessage::Presence {
                seat, connected, ..
            } => {
                if let Some(c) = self
                    .last
                    .as_mut()
                    .and_then(|s| s.connected.get_mut(seat.index()))
                {
                    *c = connected;
                }
            }
            _ => {}
        }
    }

    /// The last state with every update since applied; panics before the first state.
    pub fn current(&self) -> &State {
        self.last.as_ref().expect("no state yet")
    }

    /// Whether the server closed the socket (anything else received first is skipped).
    pub async fn closed(&mut self) -> bool {
        loop {
            match self.socket.next().await {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return true,
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Skips to the next state.
    pub async fn state(&mut self) -> State {
        loop {
            if let ServerMessage::State(s) = self.next().await {
                return *s;
            }
        }
    }

    /// Skips presence messages; returns the next event with its version.
    pub async fn event(&mut self) -> (u64, Event) {
        loop {
            match self.next().await {
                ServerMessage::Event { version, event } => return (version, event),
                ServerMessage::Presence { .. } | ServerMessage::State(_) => continue,
                other => panic!("expected an event, got {other:?}"),
            }
        }
    }

    /// Skips presence messages and states; returns the next error.
    pub async fn error(&mut self) -> (ErrorCode, String) {
        loop {
            match self.next().await {
                ServerMessage::Error { code, message } => return (code, message),
                ServerMessage::Presence { .. } | ServerMessage::State(_) => continue,
                other => panic!("expected an error, got {other:?}"),
            }
        }
    }

    /// Skips to the state of `version` (earlier states and events are skipped; an error
    /// panics).
    pub async fn state_at(&mut self, version: u64) -> State {
        loop {
            match self.next().await {
                ServerMessage::State(s) if s.version == version => return *s,
                ServerMessage::State(s) if s.version > version => {
                    panic!("expected version {version}, got state {}", s.version)
                }
                ServerMessage::Error { code, message } => {
                    panic!("expected version {version}, got error {code:?} {message}")
                }
                _ => continue,
            }
        }
    }

    /// Reads until the state is at `version` or later (already there: nothing is read), and
    /// drops what [`Client::next`] had not handed out yet, so the next message read is new.
    pub async fn reach(&mut self, version: u64) {
        self.queue.clear();
        while self.last.as_ref().is_none_or(|s| s.version < version) {
            self.next_text().await;
        }
    }

    /// Sends a message and waits for the state of `version` (what the message leads to).
    pub async fn act(&mut self, msg: &ClientMessage, version: u64) -> State {
        self.send(msg).await;
        self.state_at(version).await
    }

    /// Reads and drops whatever arrives for `d` (so the client answers the server's Pings, as a
    /// browser does); panics when the socket closes.
    pub async fn idle(&mut self, d: Duration) {
        let until = tokio::time::sleep(d);
        tokio::pin!(until);
        loop {
            tokio::select! {
                () = &mut until => return,
                m = self.socket.next() => match m {
                    Some(Ok(Message::Close(_))) | None => panic!("socket closed"),
                    Some(Err(e)) => panic!("socket error: {e}"),
                    Some(Ok(_)) => continue,
                },
            }
        }
    }

    /// Closes the socket.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}

/// Settings for tests: a short grace period and no heartbeat (on paused time every wait for the
/// database jumps the clock to the next timer, so clients that do not read would be closed).
pub fn settings(grace: Duration) -> Settings {
    Settings {
        grace,
        heartbeat: None,
        ..Settings::default()
    }
}

/// Settings for tests where clients play as fast as they can: no practical rate limit, on the
/// WebSocket (messages and chat lines) or over HTTP.
pub fn fast_settings() -> Settings {
    Settings {
        rate_per_second: 1e6,
        rate_burst: 1e6,
        chat_lines: chuhe_server::edge::limit::RequestQuota::new(
            1_000_000,
            Duration::from_micros(1),
        ),
        http_limits: chuhe_server::edge::limit::HttpLimits::unlimited(),
        heartbeat: None,
        ..Settings::default()
    }
}

/// A two-guest xiangqi table with both seated, at version 3, both clients having seen it:
/// (red client, black client, table id).
pub async fn seated_pair(server: &Server, options: &str) -> (Client, Client, String) {
    let red_cookie = server.guest("red player").await;
    let black_cookie = server.guest("black player").await;
    let table = server.create_table(&red_cookie, options).await;
    let mut red = server.ws(&table, Some(&red_cookie), None).await;
    let mut black = server.ws(&table, Some(&black_cookie), None).await;
    red.state_at(1).await;
    black.state_at(1).await;
    red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    black
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
        .await;
    red.state_at(3).await;
    (red, black, table)
}

/// A timed game (10 minutes + 2 s, [`TIMED`]) at `server`, seated, started and Red's first
/// move `h2e2` played: Black to move, at version 5, Black's clock running.
pub async fn black_to_move(server: &Server) -> (Client, Client, String) {
    let (mut red, mut black, table) = seated_pair(server, TIMED).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.state_at(5).await;
    (red, black, table)
}

/// Table options: xiangqi, 10 minutes + 2 s a move.
pub const TIMED: &str = r#"{"variant":"xiangqi","time":{"initial_ms":600000,"increment_ms":2000}}"#;
/// Table options: xiangqi without a clock.
pub const UNTIMED: &str = r#"{"variant":"xiangqi"}"#;

/// A move message at `version`.
pub fn mv(version: u64, text: &str) -> ClientMessage {
    ClientMessage::Move {
        version,
        mv: text.to_owned(),
    }
}

/// The NATS server of the cluster tests (`CHUHE_TEST_NATS`, else the machine's).
pub fn nats_url() -> String {
    std::env::var("CHUHE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

/// A node of the cluster `prefix` over `db` (PostgreSQL) in this process: a tournament tick a
/// minute long, a statement limit of 3 s (a loaded machine needs that much for its migrations)
/// and a lease of 30 s.
pub async fn node(db: &Db, name: &str, prefix: &str) -> Server {
    let options = chuhe_server::store::StoreOptions {
        cluster: true,
        statement_timeout: Duration::from_secs(3),
        ..chuhe_server::store::StoreOptions::default()
    };
    let store = Store::connect_with(&db.url, options).await.unwrap();
    let mut cluster = chuhe_server::cluster::ClusterSettings::new(&nats_url(), name);
    cluster.prefix = prefix.to_owned();
    // long enough that a loaded machine, or a writer held up by a locked row, keeps it
    cluster.lease = Duration::from_secs(30);
    let settings = Settings {
        cluster: Some(cluster),
        tournament_wave: Duration::from_secs(60),
        ..fast_settings()
    };
    Server::start_on(store, settings).await
}

/// A NATS prefix of this test alone.
pub fn prefix(test: &str) -> String {
    format!(
        "{test}{}x{}",
        std::process::id(),
        chuhe_server::store::now_ms() % 1_000_000
    )
}
