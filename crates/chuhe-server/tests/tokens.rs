//! Personal API tokens and bot accounts (`docs/bots.md`): tokens made, listed, used with
//! `Authorization: Bearer`, checked against their scopes and revoked, kept only as their
//! SHA-256; `GET /api/account` in lichess's shape; `POST /api/bot/account/upgrade` only for an
//! account that has not played; and the operator's `issue_token` (`chuhe token create`) while a
//! server runs on the database. On SQLite and PostgreSQL.

#[macro_use]
mod common;

use chuhe_server::accounts::tokens::{digest, Scope};
use chuhe_server::protocol::{ClientMessage, Seat};
use chuhe_server::Settings;
use common::*;
use serde_json::{json, Value};
use sqlx::{Connection, Row};

/// A new account with a password: (its session cookie, its id).
async fn account(server: &Server, name: &str) -> (String, String) {
    let body = format!(r#"{{"name":"{name}","password":"correct horse"}}"#);
    let (status, head, info) = server
        .http("POST", "/api/accounts", None, Some(&body))
        .await;
    assert_eq!(status, 200, "{info}");
    let info: Value = serde_json::from_str(&info).unwrap();
    (cookie_of(&head), info["id"].as_str().unwrap().to_owned())
}

/// A request with `Authorization: Bearer TOKEN`: (status, body as JSON or `null`).
async fn bearer(server: &Server, method: &str, path: &str, token: &str) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (status, _, body) =
        http_with(server.addr, method, path, &[("Authorization", &auth)], None).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// A request with a session cookie and maybe a body: (status, body as JSON or `null`).
async fn cookie(
    server: &Server,
    method: &str,
    path: &str,
    cookie: &str,
    body: Option<&str>,
) -> (u16, Value) {
    let (status, _, text) = server.http(method, path, Some(cookie), body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Makes a token with a session cookie: (its text, its id).
async fn make_token(server: &Server, session: &str, scopes: &[&str]) -> (String, String) {
    let body = json!({"description": "test bot", "scopes": scopes}).to_string();
    let (status, made) = cookie(server, "POST", "/api/tokens", session, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    (
        made["token"].as_str().unwrap().to_owned(),
        made["id"].as_str().unwrap().to_owned(),
    )
}

async fn tokens_are_made_listed_used_and_revoked(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let (ann, ann_id) = account(&server, "ann").await;

    let body =
        r#"{"description":"  my bot ","scopes":["board:play","challenge:read","board:play"]}"#;
    let (status, made) = cookie(&server, "POST", "/api/tokens", &ann, Some(body)).await;
    assert_eq!(status, 201, "{made}");
    let token = made["token"].as_str().unwrap().to_owned();
    let id = made["id"].as_str().unwrap().to_owned();
    assert!(token.starts_with("lip_") && token.len() == 28, "{token}");
    assert_eq!(made["description"], "my bot");
    assert_eq!(made["scopes"], json!(["challenge:read", "board:play"]));
    assert_eq!(made["last_used_ms"], Value::Null);

    // Listed without its text.
    let (status, list) = cookie(&server, "GET", "/api/tokens", &ann, None).await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["description"], "my bot");
    assert_eq!(list[0]["scopes"], json!(["challenge:read", "board:play"]));
    assert!(list[0].get("token").is_none(), "{list}");

    // The database keeps its SHA-256 only.
    let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
    let row = sqlx::query("SELECT digest, scopes, player_id FROM api_tokens WHERE id = $1")
        .bind(id.as_str())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(row.try_get::<String, _>("digest").unwrap(), digest(&token));
    assert_eq!(
        row.try_get::<String, _>("scopes").unwrap(),
        "challenge:read,board:play"
    );
    assert_eq!(row.try_get::<String, _>("player_id").unwrap(), ann_id);
    let clear = sqlx::query("SELECT COUNT(*) AS n FROM api_tokens WHERE digest = $1 OR id = $1")
        .bind(token.as_str())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(clear.try_get::<i64, _>("n").unwrap(), 0);

    // The token speaks for ann: lichess's account shape, and chuhe's own routes (it may play).
    let (status, me) = bearer(&server, "GET", "/api/account", &token).await;
    assert_eq!(status, 200);
    assert_eq!(me, json!({"id": ann_id, "username": "ann", "perfs": {}}));
    let (status, me) = bearer(&server, "GET", "/api/me", &token).await;
    assert_eq!(status, 200);
    assert_eq!(me, json!({"id": ann_id, "name": "ann", "account": true}));
    let auth = format!("bearer {token}");
    let (status, _, created) = http_with(
        server.addr,
        "POST",
        "/api/tables",
        &[("Authorization", &auth)],
        Some(UNTIMED),
    )
    .await;
    assert_eq!(status, 201, "{created}");

    // Its use is recorded (not awaited by the request).
    let mut used = Value::Null;
    for _ in 0..50 {
        let (_, list) = cookie(&server, "GET", "/api/tokens", &ann, None).await;
        used = list[0]["last_used_ms"].clone();
        if !used.is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(used.as_i64().is_some_and(|ms| ms > 0), "{used}");

    // A token without a play scope reads the account but is no session, and lacks bot:play.
    let (reader, _) = make_token(&server, &ann, &["challenge:read"]).await;
    let (status, me) = bearer(&server, "GET", "/api/account", &reader).await;
    assert_eq!((status, &me["username"]), (200, &json!("ann")));
    let (status, err) = bearer(&server, "GET", "/api/me", &reader).await;
    assert_eq!(
        (status, err),
        (
            401,
            json!({"error": "unauthorized", "message": "no session"})
        )
    );
    let (status, err) = bearer(&server, "POST", "/api/bot/account/upgrade", &reader).await;
    assert_eq!((status, err), (401, json!({"error": "Missing scope"})));

    // A token does not make, list or revoke tokens.
    let (status, err) = bearer(&server, "GET", "/api/tokens", &token).await;
    assert_eq!(
        (status, err),
        (
            401,
            json!({"error": "unauthorized", "message": "tokens are managed with a session cookie, not with a token"})
        )
    );

    // Revoked: refused from then on, and no longer listed.
    let (status, body) = cookie(&server, "DELETE", &format!("/api/tokens/{id}"), &ann, None).await;
    assert_eq!((status, body), (204, Value::Null));
    let (status, err) = cookie(&server, "DELETE", &format!("/api/tokens/{id}"), &ann, None).await;
    assert_eq!(
        (status, err),
        (
            404,
            json!({"error": "not_found", "message": format!("no token {id:?}")})
        )
    );
    let (status, err) = bearer(&server, "GET", "/api/account", &token).await;
    assert_eq!((status, err), (401, json!({"error": "No such token"})));
    let (status, err) = bearer(&server, "GET", "/api/me", &token).await;
    assert_eq!(status, 401, "{err}");
    let (_, list) = cookie(&server, "GET", "/api/tokens", &ann, None).await;
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["scopes"], json!(["challenge:read"]));

    // lichess's token test: each token's scopes and account, `null` for an unknown one.
    let (status, _, tested) = http_with(
        server.addr,
        "POST",
        "/api/token/test",
        &[("Content-Type", "text/plain")],
        Some(&format!("{reader}, lip_unknown")),
    )
    .await;
    assert_eq!(status, 200, "{tested}");
    let tested: Value = serde_json::from_str(&tested).unwrap();
    let mut expected = serde_json::Map::new();
    expected.insert(
        reader.clone(),
        json!({"scopes": "challenge:read", "userId": ann_id, "expires": null}),
    );
    expected.insert("lip_unknown".to_owned(), Value::Null);
    assert_eq!(tested, Value::Object(expected));

    // A token revokes itself with lichess's `DELETE /api/token`.
    let (status, _) = bearer(&server, "DELETE", "/api/token", &reader).await;
    assert_eq!(status, 204);
    let (status, err) = bearer(&server, "GET", "/api/account", &reader).await;
    assert_eq!((status, err), (401, json!({"error": "No such token"})));

    // Another account cannot revoke ann's tokens.
    let (_, live) = make_token(&server, &ann, &[]).await;
    let (bob, _) = account(&server, "bob").await;
    let (status, _) = cookie(
        &server,
        "DELETE",
        &format!("/api/tokens/{live}"),
        &bob,
        None,
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}
on_both!(tokens_are_made_listed_used_and_revoked);

/// What making a token refuses: guests, no session, unknown scopes, bad descriptions; an
/// unknown or malformed bearer token is no session.
async fn token_requests_are_checked(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let guest = server.guest("gus").await;
    let body = r#"{"description":"x","scopes":[]}"#;
    let (status, err) = cookie(&server, "POST", "/api/tokens", &guest, Some(body)).await;
    assert_eq!(
        (status, err),
        (
            401,
            json!({"error": "unauthorized", "message": "tokens need an account with a password: guests have none"})
        )
    );
    let (status, _, err) = server.http("POST", "/api/tokens", None, Some(body)).await;
    assert_eq!(status, 401, "{err}");
    let (ann, _) = account(&server, "ann").await;
    let (status, err) = cookie(
        &server,
        "POST",
        "/api/tokens",
        &ann,
        Some(r#"{"description":"x","scopes":["email:read"]}"#),
    )
    .await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "bad_message", "message": "bad message: unknown scope \"email:read\": use challenge:read, challenge:write, bot:play, board:play, tournament:write"})
        )
    );
    let (status, err) = cookie(
        &server,
        "POST",
        "/api/tokens",
        &ann,
        Some(r#"{"description":"  ","scopes":[]}"#),
    )
    .await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(
        err["message"],
        "bad message: a description has 1 to 100 characters and no control characters"
    );
    for token in ["lip_nothing", "", "x".repeat(4000).as_str()] {
        let (status, err) = bearer(&server, "GET", "/api/account", token).await;
        assert_eq!(
            (status, err),
            (401, json!({"error": "No such token"})),
            "{token}"
        );
    }
    server.stop().await;
}
on_both!(token_requests_are_checked);

/// An account becomes a bot (title BOT) only before it has played: not while seated, not after
/// a finished game; a guest never.
async fn only_an_account_without_games_becomes_a_bot(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let (bea, bea_id) = account(&server, "bea").await;
    let (token, _) = make_token(&server, &bea, &["bot:play"]).await;
    let (status, ok) = bearer(&server, "POST", "/api/bot/account/upgrade", &token).await;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let (status, me) = bearer(&server, "GET", "/api/account", &token).await;
    assert_eq!(status, 200);
    assert_eq!(
        me,
        json!({"id": bea_id, "username": "bea", "title": "BOT", "perfs": {}})
    );
    // Again: still a bot.
    let (status, ok) = bearer(&server, "POST", "/api/bot/account/upgrade", &token).await;
    assert_eq!((status, ok), (200, json!({"ok": true})));

    // Seated at a table, then after a finished game: refused.
    let (cal, _) = account(&server, "cal").await;
    let (cal_token, _) = make_token(&server, &cal, &["bot:play"]).await;
    let guest = server.guest("gus").await;
    let table = server.create_table(&cal, TIMED).await;
    let mut red = server.ws(&table, Some(&cal), None).await;
    let mut black = server.ws(&table, Some(&guest), None).await;
    red.state_at(1).await;
    black.state_at(1).await;
    red.act(&ClientMessage::Sit { seat: Seat::new(0) }, 2).await;
    black
        .act(&ClientMessage::Sit { seat: Seat::new(1) }, 3)
        .await;
    let (status, err) = bearer(&server, "POST", "/api/bot/account/upgrade", &cal_token).await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "this account sits at a table: only an account without games becomes a bot"})
        )
    );
    red.state_at(3).await;
    red.act(&ClientMessage::Start {}, 4).await;
    black.state_at(4).await;
    red.act(&mv(4, "h2e2"), 5).await;
    black.act(&mv(5, "h9g7"), 6).await;
    red.act(&ClientMessage::Resign {}, 7).await;
    black.state_at(7).await;
    red.close().await;
    black.close().await;
    let mut refused = Value::Null;
    for _ in 0..50 {
        let (status, err) = bearer(&server, "POST", "/api/bot/account/upgrade", &cal_token).await;
        assert_ne!(status, 200, "{err}");
        refused = err;
        if refused["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("this account has played games"))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        refused,
        json!({"error": "this account has played games: only an account without games becomes a bot"})
    );
    let (status, me) = bearer(&server, "GET", "/api/account", &cal_token).await;
    assert_eq!(status, 200);
    assert!(me.get("title").is_none(), "{me}");

    // A guest's session: refused.
    let (status, err) = cookie(&server, "POST", "/api/bot/account/upgrade", &guest, None).await;
    assert_eq!(
        (status, err),
        (
            400,
            json!({"error": "guests cannot become bots: make an account first"})
        )
    );
    server.stop().await;
}
on_both!(only_an_account_without_games_becomes_a_bot);

/// The operator's token (`chuhe token create`), made while the server runs: a new bot account
/// without a password, then a second token for it; an existing account that has not played
/// becomes a bot; the tokens work at once.
async fn the_operator_issues_tokens_while_the_server_runs(backend: Backend) {
    let db = fresh_db(backend).await;
    let server = Server::start(&db, Settings::default()).await;
    let scopes = [Scope::ChallengeRead, Scope::BotPlay];
    let issued = chuhe_server::store::issue_token(&db.url, "Robo", true, &scopes, "ops")
        .await
        .unwrap();
    assert!(issued.created_account && issued.bot, "{issued:?}");
    let (status, me) = bearer(&server, "GET", "/api/account", &issued.token).await;
    assert_eq!(status, 200);
    assert_eq!(
        me,
        json!({"id": issued.player_id, "username": "Robo", "title": "BOT", "perfs": {}})
    );
    // Its name is an account's now, and no password signs in to it.
    let (status, _, _) = server
        .http("POST", "/api/session", None, Some(r#"{"name":"robo"}"#))
        .await;
    assert_eq!(status, 409);
    let (status, _, _) = server
        .http(
            "POST",
            "/api/login",
            None,
            Some(r#"{"name":"Robo","password":"!"}"#),
        )
        .await;
    assert_eq!(status, 401);
    // A second token for the same account.
    let again = chuhe_server::store::issue_token(&db.url, "Robo", true, &scopes, "ops")
        .await
        .unwrap();
    assert!(!again.created_account && again.bot);
    assert_eq!(again.player_id, issued.player_id);
    assert_ne!(again.token, issued.token);

    // An existing account (with a password) becomes a bot; its web session is unchanged.
    let (dee, dee_id) = account(&server, "dee").await;
    let made = chuhe_server::store::issue_token(&db.url, "dee", true, &scopes, "ops")
        .await
        .unwrap();
    assert_eq!(
        (made.player_id.as_str(), made.created_account, made.bot),
        (dee_id.as_str(), false, true)
    );
    let (status, me) = cookie(&server, "GET", "/api/account", &dee, None).await;
    assert_eq!((status, &me["title"]), (200, &json!("BOT")));
    server.stop().await;
}
on_both!(the_operator_issues_tokens_while_the_server_runs);
