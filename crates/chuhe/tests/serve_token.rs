//! `chuhe token create` (spec/cli.md, docs/bots.md): run while a real `chuhe serve` runs on
//! the database (SQLite and PostgreSQL), it makes a bot account and prints its token on its
//! last line; the server takes the token at once. And its refusals (exit status 2).

mod common;

use common::{free_port, http, serve, wait_healthy, PgDatabase, Running, TempDir, CHUHE};
use std::process::{Command, Output};

fn token(args: &[&str]) -> Output {
    Command::new(CHUHE)
        .args(["token", "create"])
        .args(args)
        .env_remove("CHUHE_DATABASE")
        .env_remove("CHUHE_CONFIG")
        .output()
        .unwrap()
}

/// The body of `GET /api/account` with `Authorization: Bearer TOKEN`.
fn account(port: u16, token: &str) -> String {
    let answer = http(
        port,
        &format!(
            "GET /api/account HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\
             Authorization: Bearer {token}\r\n\r\n"
        ),
    );
    answer.split_once("\r\n\r\n").unwrap().1.to_owned()
}

fn made_while_serving(database: &str, dir: &TempDir) {
    let port = free_port();
    let mut server = Running(serve(database, port, &dir.0.join("serve.log")));
    wait_healthy(port, &mut server.0);
    let out = token(&["--database", database, "--account", "Robo", "--bot"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("account \"Robo\" (id "), "{stdout}");
    assert!(lines[0].ends_with("): made now, a bot"), "{stdout}");
    assert!(
        lines[1].ends_with(" with scopes challenge:read,challenge:write,bot:play"),
        "{stdout}"
    );
    let bot_token = lines[2];
    assert!(
        bot_token.starts_with("lip_") && bot_token.len() == 28,
        "{stdout}"
    );
    let id = lines[0]
        .strip_prefix("account \"Robo\" (id ")
        .and_then(|r| r.split(')').next())
        .unwrap();
    assert_eq!(
        account(port, bot_token),
        format!(r#"{{"id":"{id}","username":"Robo","title":"BOT","perfs":{{}}}}"#)
    );
    // A second token for the same account, with one scope.
    let out = token(&[
        "--database",
        database,
        "--account",
        "robo",
        "--scope",
        "challenge:read",
        "--description",
        "reader",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with(&format!("account \"robo\" (id {id}): existing, a bot\n")),
        "{stdout}"
    );
    assert!(stdout.contains(" with scopes challenge:read\n"), "{stdout}");
    let reader = stdout.lines().last().unwrap();
    assert_ne!(reader, bot_token);
    assert!(account(port, reader).contains(r#""title":"BOT""#));
}

#[test]
fn a_token_made_while_serving_sqlite_is_taken_at_once() {
    let dir = TempDir::new("token-sqlite");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    made_while_serving(&database, &dir);
}

#[test]
fn a_token_made_while_serving_postgres_is_taken_at_once() {
    let dir = TempDir::new("token-postgres");
    let pg = PgDatabase::new("token");
    made_while_serving(&pg.url(), &dir);
}

#[test]
fn bad_arguments_exit_with_status_2() {
    let dir = TempDir::new("token-refused");
    let database = format!("sqlite://{}", dir.0.join("chuhe.db").display());
    let out = token(&[
        "--database",
        &database,
        "--account",
        "Robo",
        "--scope",
        "email:read",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "chuhe: --scope: unknown scope \"email:read\": use challenge:read, challenge:write, \
         bot:play, board:play, tournament:write"
    );
    let out = token(&["--database", &database, "--account", "The Computer"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "chuhe: --account \"The Computer\": that name is the computer's"
    );
    let out = token(&["--database", "mysql://x", "--account", "Robo"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
