//! Playing on a running `chuhe serve` as its clients do (docs/protocol.md): accounts and tables
//! over HTTP, seats, moves and resignations over the table's WebSocket.

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// The session cookie pair (`chuhe_session=...`) of an answer.
fn session_cookie(response: &reqwest::Response) -> String {
    response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("chuhe_session="))
        .unwrap_or_else(|| panic!("no session cookie in {response:?}"))
        .to_owned()
}

/// A new account's session cookie.
pub async fn account(base: &str, name: &str, password: &str) -> String {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/accounts"))
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "account {name}");
    session_cookie(&response)
}

/// A new guest session named `name` (`POST /api/session`): its cookie.
pub async fn guest(base: &str, name: &str) -> String {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/session"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "guest {name}");
    session_cookie(&response)
}

/// A new session of an existing account (`POST /api/login`).
pub async fn login(base: &str, name: &str, password: &str) -> String {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/login"))
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "login {name}");
    session_cookie(&response)
}

/// A new table with `options`, made by the session `cookie`: its id.
pub async fn create_table(base: &str, cookie: &str, options: Value) -> String {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/tables"))
        .header(reqwest::header::COOKIE, cookie)
        .json(&options)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201, "create table {options}");
    let summary: Value = response.json().await.unwrap();
    summary["id"].as_str().unwrap().to_owned()
}

/// `GET base/path` with `cookie` (or none): the status and the JSON body (`Null` when the body
/// is not JSON).
pub async fn get(base: &str, path: &str, cookie: &str) -> (u16, Value) {
    let mut request = reqwest::Client::new().get(format!("{base}{path}"));
    if !cookie.is_empty() {
        request = request.header(reqwest::header::COOKIE, cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One person's WebSocket on a table.
pub struct Seat {
    socket: Socket,
}

impl Seat {
    /// Connects the session `cookie` to `table`.
    pub async fn connect(base: &str, table: &str, cookie: &str) -> Seat {
        let host = base.trim_start_matches("http://");
        let mut request = format!("ws://{host}/api/tables/{table}/ws")
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("cookie", cookie.parse().unwrap());
        let (socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        Seat { socket }
    }

    /// Sends `message` and reads until the update of the change it made (a version above
    /// `version`): returns that update. Panics on an `error` answer or after 20 s.
    pub async fn act(&mut self, message: Value, version: u64) -> Value {
        // The server takes 10 messages a second from a connection after a short burst.
        tokio::time::sleep(Duration::from_millis(110)).await;
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
        let read = async {
            loop {
                let frame = match self.socket.next().await {
                    Some(frame) => frame.unwrap(),
                    None => panic!("closed while waiting for {message}"),
                };
                let Message::Text(text) = frame else { continue };
                let answer: Value = serde_json::from_str(&text).unwrap();
                match answer["type"].as_str() {
                    Some("error") => panic!("{message} refused: {answer}"),
                    Some("update") if answer["version"].as_u64().unwrap() > version => {
                        return answer;
                    }
                    _ => {}
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .unwrap_or_else(|_| panic!("no update after {message} within 20 s"))
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}

/// The version of a table (`GET /api/tables/{id}`).
pub async fn version(base: &str, table: &str) -> u64 {
    let (status, summary) = get(base, &format!("/api/tables/{table}"), "").await;
    assert_eq!(status, 200, "{summary}");
    summary["version"].as_u64().unwrap()
}

/// Seats the sessions `red` and `black` at the xiangqi table `table` (seats 0 and 1: the
/// maker of a table sits at seat 0 when it makes it), starts the game and plays `moves` in
/// turn from Red: the table's version after the last move.
pub async fn start_and_play(
    base: &str,
    table: &str,
    red: &mut Seat,
    black: &mut Seat,
    moves: &[&str],
) -> u64 {
    let (_, summary) = get(base, &format!("/api/tables/{table}"), "").await;
    let mut v = summary["version"].as_u64().unwrap();
    if summary["seats"][0].is_null() {
        v = version_of(&red.act(json!({"type": "sit", "seat": 0}), v).await);
    }
    v = version_of(&black.act(json!({"type": "sit", "seat": 1}), v).await);
    v = version_of(&red.act(json!({"type": "start"}), v).await);
    for (ply, m) in moves.iter().enumerate() {
        let seat = if ply % 2 == 0 { &mut *red } else { &mut *black };
        v = version_of(
            &seat
                .act(json!({"type": "move", "version": v, "move": m}), v)
                .await,
        );
    }
    v
}

/// The `version` of an update.
pub fn version_of(update: &Value) -> u64 {
    update["version"].as_u64().unwrap()
}
