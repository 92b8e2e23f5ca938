//! A cluster node against a NATS that asks for credentials (docs/cluster.md, "Securing NATS";
//! docs/security.md, "A stranger on the cluster's NATS"). Each test starts its own
//! `nats-server` (`CHUHE_TEST_NATS_SERVER`, default `/usr/sbin/nats-server`) on a free port with
//! JetStream and a generated configuration, and a PostgreSQL database of its own:
//!
//! - a user and password (from CHUHE_NATS_PASSWORD, from --nats-password-file, in the URL),
//!   with the permissions of docs/cluster/nats-server.conf: two nodes share a table's lobby
//!   entry, and NATS reports no permission violation;
//! - a token, an NKey seed, a credentials file (a NATS in operator mode, its JWTs signed here
//!   with the `nkeys` crate), a TLS server with its own certificate authority (made with the
//!   `openssl` command) that verifies client certificates;
//! - the wrong or missing credentials, the wrong certificate authority, no client certificate:
//!   the node stops with status 2 and one line that says why, and no secret appears in its
//!   output;
//! - settings that contradict each other stop the node before it opens anything.

mod common;

use common::{free_port, nats_server, wait_healthy, PgDatabase, Running, TempDir, CHUHE};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The password of the tests' NATS users.
const PASSWORD: &str = "s3cret-Pa55-word";

/// The password of another site's user on the same NATS.
const OTHER_PASSWORD: &str = "0ther-s1te-pa55";

/// The token of the token test.
const TOKEN: &str = "t0ken-0f-the-cluster";

/// A process killed on drop.
/// A `nats-server` of one test, with its configuration, JetStream folder and log in `dir`.
struct NatsServer {
    port: u16,
    log: PathBuf,
    _process: Running,
}

impl NatsServer {
    /// Starts `nats-server -c` with `authorization` (and whatever else `extra` holds) in its
    /// configuration and JetStream on; waits until its port answers.
    fn start(dir: &Path, extra: &str) -> NatsServer {
        let port = free_port();
        let process = nats_server(dir, port, extra);
        let log = dir.join("nats-server.log");
        NatsServer {
            port,
            log,
            _process: process,
        }
    }

    fn url(&self, scheme: &str) -> String {
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// `chuhe serve` as node `name` of the cluster on `nats` (lease 2 s), its output in
/// `dir/NAME.log`, no NATS setting from the environment.
fn node(database: &str, nats: &str, name: &str, port: u16) -> Command {
    let mut command = Command::new(CHUHE);
    command
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--database", database, "--nats", nats])
        .args(["--node-id", name, "--nats-prefix", "authtest"])
        .args(["--lease-ms", "2000"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for variable in [
        "CHUHE_NATS_PASSWORD",
        "CHUHE_NATS_TOKEN",
        "CHUHE_NATS_USER",
        "CHUHE_NATS_PASSWORD_FILE",
        "CHUHE_NATS_TOKEN_FILE",
        "CHUHE_NATS_NKEY_FILE",
        "CHUHE_NATS_CREDS",
        "CHUHE_NATS_TLS_CA",
        "CHUHE_NATS_TLS_CERT",
        "CHUHE_NATS_TLS_KEY",
    ] {
        command.env_remove(variable);
    }
    command
}

/// Starts `command` (a node on `port`) and waits until it is healthy; its output goes to
/// `log`.
fn started(mut command: Command, port: u16, log: &Path) -> Running {
    let out = std::fs::File::create(log).unwrap();
    let child = command
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    let mut node = Running(child);
    wait_healthy(port, &mut node.0);
    node
}

/// Runs `command`, which must stop at start (within 30 s): its status and its whole output
/// (standard output and error).
fn refused(mut command: Command) -> (Option<i32>, String) {
    let mut child = command.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the node was not refused within 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&stdout),
        String::from_utf8_lossy(&stderr)
    );
    (status.code(), text)
}

/// The last line of `text`.
fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

/// The permissions of the chuhe user of docs/cluster/nats-server.conf, for the prefix
/// `prefix` instead of `chuhe`: its `permissions: { ... }` block without comments.
fn documented_permissions(prefix: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cluster/nats-server.conf");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("permissions: {").expect("a permissions block");
    let mut depth = 0;
    let mut end = start;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    let block: Vec<&str> = text[start..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let block = block
        .join("\n")
        .replace("\"chuhe.", &format!("\"{prefix}."))
        .replace(".chuhe-", &format!(".{prefix}-"));
    assert!(block.contains(&format!("\"{prefix}.>\"")), "{block}");
    assert!(
        block.contains(&format!("\"$KV.{prefix}-lobby.>\"")),
        "{block}"
    );
    block
}

#[test]
fn a_user_and_password_with_the_documented_permissions() {
    let dir = TempDir::new("nats-auth-user");
    let database = PgDatabase::new("nats_auth_user");
    let nats = NatsServer::start(
        &dir.0,
        &format!(
            "authorization {{\n  users: [\n    {{ user: chuhe, password: {PASSWORD:?}, {} }}\n    \
             {{ user: other, password: {OTHER_PASSWORD:?}, {} }}\n  ]\n}}",
            documented_permissions("authtest"),
            documented_permissions("othersite"),
        ),
    );
    let url = nats.url("nats");

    // No credentials: refused, with the reason.
    let (status, text) = refused(node(&database.url(), &url, "n0", free_port()));
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!("chuhe: cannot connect to NATS at {url} (no credentials): authorization violation: the server asks for credentials")
    );

    // The wrong password, from the environment: refused, and the password is not shown.
    let wrong = "wr0ng-Pa55-word";
    let mut command = node(&database.url(), &url, "n0", free_port());
    command
        .args(["--nats-user", "chuhe"])
        .env("CHUHE_NATS_PASSWORD", wrong);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: cannot connect to NATS at {url} (a user and password): authorization violation: the server refused these credentials"
        )
    );
    assert!(!text.contains(wrong), "{text}");

    // The wrong password in the URL: shown as ***.
    let with_wrong = format!("nats://chuhe:{wrong}@127.0.0.1:{}", nats.port);
    let (status, text) = refused(node(&database.url(), &with_wrong, "n0", free_port()));
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: cannot connect to NATS at nats://***@127.0.0.1:{} (a user and password): authorization violation: the server refused these credentials",
            nats.port
        )
    );
    assert!(!text.contains(wrong), "{text}");

    // The right password: from the environment for one node, from a file for the other.
    let port_a = free_port();
    let mut command = node(&database.url(), &url, "a", port_a);
    command
        .args(["--nats-user", "chuhe"])
        .env("CHUHE_NATS_PASSWORD", PASSWORD);
    let log_a = dir.0.join("a.log");
    let _a = started(command, port_a, &log_a);
    let password_file = dir.0.join("password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let port_b = free_port();
    let mut command = node(&database.url(), &url, "b", port_b);
    command
        .args(["--nats-user", "chuhe", "--nats-password-file"])
        .arg(&password_file);
    let log_b = dir.0.join("b.log");
    let _b = started(command, port_b, &log_b);
    // And a third in the URL.
    let port_c = free_port();
    let with_password = format!("nats://chuhe:{PASSWORD}@127.0.0.1:{}", nats.port);
    let log_c = dir.0.join("c.log");
    let _c = started(
        node(&database.url(), &with_password, "c", port_c),
        port_c,
        &log_c,
    );

    // A table made on node a is listed by node b: the lobby bucket works under the
    // permissions.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let a = format!("http://127.0.0.1:{port_a}");
        let b = format!("http://127.0.0.1:{port_b}");
        let client = reqwest::Client::new();
        let session = client
            .post(format!("{a}/api/session"))
            .json(&serde_json::json!({ "name": "Guan Yu" }))
            .send()
            .await
            .unwrap();
        assert_eq!(session.status().as_u16(), 200);
        let cookie = session
            .headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split(';').next())
            .find(|pair| pair.starts_with("chuhe_session="))
            .unwrap()
            .to_owned();
        let created = client
            // seated at Red: a seek with a person seated is listed in the lobby
            .post(format!("{a}/api/tables?seat=0"))
            .header(reqwest::header::COOKIE, cookie)
            .json(&serde_json::json!({ "variant": "xiangqi" }))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status().as_u16(), 201);
        let summary: serde_json::Value = created.json().await.unwrap();
        let table = summary["id"].as_str().unwrap().to_owned();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let listed: serde_json::Value = client
                .get(format!("{b}/api/tables"))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let ids: Vec<&str> = listed
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|t| t["id"].as_str())
                .collect();
            if ids == [table.as_str()] {
                break;
            }
            assert!(
                Instant::now() < until,
                "node b does not list {table}: {listed}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let nats_log = nats.log_text();
    assert!(!nats_log.contains("Violation"), "{nats_log}");
    for log in [&log_a, &log_b, &log_c] {
        let text = std::fs::read_to_string(log).unwrap();
        assert!(text.contains("joined the cluster"), "{text}");
        assert!(!text.contains(PASSWORD), "{text}");
        assert!(!text.contains("Permissions Violation"), "{text}");
    }
    let text_c = std::fs::read_to_string(&log_c).unwrap();
    assert!(
        text_c.contains(&format!("nats=nats://***@127.0.0.1:{}", nats.port)),
        "{text_c}"
    );

    // Another site's user (permissions for its own prefix) can neither read nor write this
    // site's subjects: NATS refuses both.
    runtime.block_on(async {
        let other = async_nats::ConnectOptions::with_user_and_password(
            "other".to_owned(),
            OTHER_PASSWORD.to_owned(),
        )
        .connect(url.as_str())
        .await
        .unwrap();
        let _sub = other.subscribe("authtest.>").await.unwrap();
        other
            .publish("authtest.released", "forged".into())
            .await
            .unwrap();
        other.flush().await.unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let log = nats.log_text();
            if log.contains("Subscription Violation") && log.contains("Publish Violation") {
                assert!(
                    log.contains("Subject \"authtest.>\"")
                        && log.contains("Subject \"authtest.released\""),
                    "{log}"
                );
                break;
            }
            assert!(Instant::now() < until, "no violation logged: {log}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

#[test]
fn a_token() {
    let dir = TempDir::new("nats-auth-token");
    let database = PgDatabase::new("nats_auth_token");
    let nats = NatsServer::start(&dir.0, &format!("authorization {{ token: {TOKEN:?} }}"));
    let url = nats.url("nats");

    let wrong = dir.0.join("wrong-token");
    std::fs::write(&wrong, "n0t-the-t0ken\n").unwrap();
    let mut command = node(&database.url(), &url, "n0", free_port());
    command.arg("--nats-token-file").arg(&wrong);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!("chuhe: cannot connect to NATS at {url} (a token): authorization violation: the server refused these credentials")
    );
    assert!(!text.contains("n0t-the-t0ken"), "{text}");

    let port = free_port();
    let token_file = dir.0.join("token");
    std::fs::write(&token_file, TOKEN).unwrap();
    let mut command = node(&database.url(), &url, "a", port);
    command.arg("--nats-token-file").arg(&token_file);
    let log = dir.0.join("a.log");
    let _a = started(command, port, &log);
    let port = free_port();
    let mut command = node(&database.url(), &url, "b", port);
    command.env("CHUHE_NATS_TOKEN", TOKEN);
    let log_b = dir.0.join("b.log");
    let _b = started(command, port, &log_b);
    for log in [&log, &log_b] {
        let text = std::fs::read_to_string(log).unwrap();
        assert!(text.contains("auth=\"a token\""), "{text}");
        assert!(!text.contains(TOKEN), "{text}");
    }
}

#[test]
fn an_nkey_seed() {
    let dir = TempDir::new("nats-auth-nkey");
    let database = PgDatabase::new("nats_auth_nkey");
    let key = nkeys::KeyPair::new_user();
    let nats = NatsServer::start(
        &dir.0,
        &format!(
            "authorization {{ users: [ {{ nkey: {:?} }} ] }}",
            key.public_key()
        ),
    );
    let url = nats.url("nats");

    // Another key: the server does not know it.
    let stranger = dir.0.join("stranger.nk");
    let stranger_seed = nkeys::KeyPair::new_user().seed().unwrap();
    std::fs::write(&stranger, &stranger_seed).unwrap();
    let mut command = node(&database.url(), &url, "n0", free_port());
    command.arg("--nats-nkey-file").arg(&stranger);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: cannot connect to NATS at {url} (an NKey seed file): authorization violation: the server refused these credentials"
        )
    );
    assert!(!text.contains(&stranger_seed), "{text}");

    // Not a seed at all: refused before connecting.
    let garbage = dir.0.join("garbage.nk");
    std::fs::write(&garbage, "SUAAAA\n").unwrap();
    let mut command = node(&database.url(), &url, "n0", free_port());
    command.arg("--nats-nkey-file").arg(&garbage);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: --nats-nkey-file: {}: not an NKey user seed (SU...)",
            garbage.display()
        )
    );

    let seed_file = dir.0.join("node.nk");
    let seed = key.seed().unwrap();
    std::fs::write(&seed_file, format!("{seed}\n")).unwrap();
    let port = free_port();
    let mut command = node(&database.url(), &url, "a", port);
    command.arg("--nats-nkey-file").arg(&seed_file);
    let log = dir.0.join("a.log");
    let _a = started(command, port, &log);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("auth=\"an NKey seed file\""), "{text}");
    assert!(!text.contains(&seed), "{text}");
}

/// Runs `openssl` with `args` in `dir`; it must succeed.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl command is needed");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes, in `dir`, a certificate authority `NAME-ca.pem` (key `NAME-ca.key`) and, signed by
/// it, `NAME-server.pem` for 127.0.0.1 and `NAME-client.pem`, with their keys (`.key`, PKCS#8).
fn make_certificates(dir: &Path, name: &str) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let ca = format!("{name}-ca");
    openssl(
        dir,
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                &format!("{ca}.key"),
                "-out",
                &format!("{ca}.pem"),
                "-days",
                "2",
                "-subj",
                &format!("/CN=chuhe test {ca}"),
            ],
        ]
        .concat(),
    );
    for (who, extensions) in [
        (
            "server",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
        ),
        (
            "client",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n",
        ),
    ] {
        let base = format!("{name}-{who}");
        std::fs::write(dir.join(format!("{base}.ext")), extensions).unwrap();
        openssl(
            dir,
            &[
                &["req"][..],
                &ec,
                &[
                    "-keyout",
                    &format!("{base}.key"),
                    "-out",
                    &format!("{base}.csr"),
                    "-subj",
                    &format!("/CN=chuhe test {base}"),
                ],
            ]
            .concat(),
        );
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                &format!("{base}.csr"),
                "-CA",
                &format!("{ca}.pem"),
                "-CAkey",
                &format!("{ca}.key"),
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                &format!("{base}.ext"),
                "-out",
                &format!("{base}.pem"),
            ],
        );
    }
}

#[test]
fn tls_with_a_certificate_authority_and_client_certificates() {
    let dir = TempDir::new("nats-auth-tls");
    let database = PgDatabase::new("nats_auth_tls");
    make_certificates(&dir.0, "site");
    make_certificates(&dir.0, "other");
    let file = |name: &str| dir.0.join(name);
    let nats = NatsServer::start(
        &dir.0,
        &format!(
            "tls {{\n  cert_file: {:?}\n  key_file: {:?}\n  ca_file: {:?}\n  verify: true\n  timeout: 2\n}}\n\
             authorization {{ users: [ {{ user: chuhe, password: {PASSWORD:?}, {} }} ] }}",
            file("site-server.pem").display().to_string(),
            file("site-server.key").display().to_string(),
            file("site-ca.pem").display().to_string(),
            documented_permissions("authtest"),
        ),
    );
    let url = nats.url("tls");
    let with_tls = |command: &mut Command, ca: &str, client: Option<&str>| {
        command
            .args(["--nats-user", "chuhe"])
            .env("CHUHE_NATS_PASSWORD", PASSWORD)
            .arg("--nats-tls-ca")
            .arg(file(ca));
        if let Some(client) = client {
            command
                .arg("--nats-tls-cert")
                .arg(file(&format!("{client}.pem")))
                .arg("--nats-tls-key")
                .arg(file(&format!("{client}.key")));
        }
    };

    // Another certificate authority: the server's certificate is not trusted.
    let mut command = node(&database.url(), &url, "n0", free_port());
    with_tls(&mut command, "other-ca.pem", Some("site-client"));
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    let line = last_line(&text);
    assert!(
        line.starts_with(&format!(
            "chuhe: cannot connect to NATS at {url} (a user and password, TLS): "
        )),
        "{line}"
    );
    assert!(line.contains("UnknownIssuer"), "{line}");
    assert!(!text.contains(PASSWORD), "{text}");

    // The right authority but no client certificate: the server refuses the node.
    let mut command = node(&database.url(), &url, "n0", free_port());
    with_tls(&mut command, "site-ca.pem", None);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    let bad_certificate = format!(
        "chuhe: cannot connect to NATS at {url} (a user and password, TLS): \
         received fatal alert: BadCertificate"
    );
    assert_eq!(last_line(&text), bad_certificate);

    // A client certificate of another authority: refused too.
    let mut command = node(&database.url(), &url, "n0", free_port());
    with_tls(&mut command, "site-ca.pem", Some("other-client"));
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(last_line(&text), bad_certificate);

    // Plain nats:// to a server that requires TLS, without any TLS setting: refused.
    let mut command = node(&database.url(), &nats.url("nats"), "n0", free_port());
    command
        .args(["--nats-user", "chuhe"])
        .env("CHUHE_NATS_PASSWORD", PASSWORD);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    // (The server asks for TLS; the node checks its certificate against the system's
    // authorities.)
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: cannot connect to NATS at nats://127.0.0.1:{} (a user and password): \
             invalid peer certificate: UnknownIssuer",
            nats.port
        )
    );

    // All of it right.
    let port = free_port();
    let mut command = node(&database.url(), &url, "a", port);
    with_tls(&mut command, "site-ca.pem", Some("site-client"));
    let log = dir.0.join("a.log");
    let _a = started(command, port, &log);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("joined the cluster"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
}

/// Flags, environment variables and the line that refuses them.
type Case = (Vec<String>, Vec<(&'static str, &'static str)>, String);

#[test]
fn contradicting_settings_stop_the_node_at_once() {
    let dir = TempDir::new("nats-auth-settings");
    // Nothing listens there: each mistake must be found before connecting.
    let url = format!("nats://127.0.0.1:{}", free_port());
    let database = "postgres://postgres@127.0.0.1:5432/test";
    let token = dir.0.join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let cases: Vec<Case> = vec![
        (
            vec!["--nats-user".into(), "chuhe".into()],
            vec![
                ("CHUHE_NATS_TOKEN", TOKEN),
                ("CHUHE_NATS_PASSWORD", PASSWORD),
            ],
            "give one way to authenticate to NATS, not --nats-user and a token \
             (--nats-token-file, CHUHE_NATS_TOKEN)"
                .to_owned(),
        ),
        (
            vec!["--nats-user".into(), "chuhe".into()],
            vec![],
            "--nats-user needs a password: CHUHE_NATS_PASSWORD or --nats-password-file".to_owned(),
        ),
        (
            vec![],
            vec![("CHUHE_NATS_PASSWORD", PASSWORD)],
            "a NATS password (CHUHE_NATS_PASSWORD, --nats-password-file) needs --nats-user"
                .to_owned(),
        ),
        (
            vec!["--nats-token-file".into(), token.display().to_string()],
            vec![("CHUHE_NATS_TOKEN", TOKEN)],
            "CHUHE_NATS_TOKEN and --nats-token-file both give the secret: use one".to_owned(),
        ),
        (
            vec![
                "--nats-user".into(),
                "chuhe".into(),
                "--nats-password-file".into(),
                "/nonexistent/chuhe-password".into(),
            ],
            vec![],
            "--nats-password-file: cannot read /nonexistent/chuhe-password: \
             No such file or directory (os error 2)"
                .to_owned(),
        ),
        (
            vec!["--nats-tls-cert".into(), token.display().to_string()],
            vec![],
            "--nats-tls-cert needs --nats-tls-key".to_owned(),
        ),
        (
            vec!["--nats-tls-ca".into(), token.display().to_string()],
            vec![],
            format!(
                "--nats-tls-ca: {}: no PEM CERTIFICATE in the file",
                token.display()
            ),
        ),
    ];
    for (args, env, expected) in cases {
        let mut command = node(database, &url, "n0", free_port());
        command.args(&args).envs(env.iter().copied());
        let (status, text) = refused(command);
        assert_eq!(status, Some(2), "{args:?}: {text}");
        assert_eq!(last_line(&text), format!("chuhe: {expected}"), "{args:?}");
        assert!(!text.contains(PASSWORD), "{text}");
    }
    // Credentials both in the URL and in a setting.
    let mut command = node(
        database,
        &url.replace("nats://", &format!("nats://chuhe:{PASSWORD}@")),
        "n0",
        free_port(),
    );
    command.arg("--nats-token-file").arg(&token);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: the NATS URL {} carries a user and password and a token is given too: use one",
            url.replace("nats://", "nats://***@")
        )
    );
    assert!(!text.contains(PASSWORD), "{text}");
}

/// `bytes` in unpadded base64url (the encoding of a JWT's parts).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// A NATS JWT (v2) whose subject is `subject`, signed by `issuer`, with `nats` as its NATS
/// claims.
fn jwt(issuer: &nkeys::KeyPair, subject: &str, name: &str, nats: serde_json::Value) -> String {
    let header = base64url(br#"{"typ":"JWT","alg":"ed25519-nkey"}"#);
    let iat = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = serde_json::json!({
        "jti": format!("{name}{iat}"),
        "iat": iat,
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject,
        "nats": nats,
    });
    let body = base64url(claims.to_string().as_bytes());
    let signed = format!("{header}.{body}");
    let signature = issuer.sign(signed.as_bytes()).unwrap();
    format!("{signed}.{}", base64url(&signature))
}

/// A credentials file for a user of `account`.
fn credentials(account: &nkeys::KeyPair, name: &str) -> String {
    let user = nkeys::KeyPair::new_user();
    let token = jwt(
        account,
        &user.public_key(),
        name,
        serde_json::json!({
            "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1,
            "type": "user", "version": 2
        }),
    );
    format!(
        "-----BEGIN NATS USER JWT-----\n{token}\n------END NATS USER JWT------\n\n\
         -----BEGIN USER NKEY SEED-----\n{}\n------END USER NKEY SEED------\n",
        user.seed().unwrap()
    )
}

#[test]
fn a_credentials_file_in_operator_mode() {
    let dir = TempDir::new("nats-auth-creds");
    let database = PgDatabase::new("nats_auth_creds");
    let operator = nkeys::KeyPair::new_operator();
    let account = nkeys::KeyPair::new_account();
    let operator_jwt = jwt(
        &operator,
        &operator.public_key(),
        "chuhe-test",
        serde_json::json!({"type": "operator", "version": 2}),
    );
    let account_jwt = jwt(
        &operator,
        &account.public_key(),
        "site",
        serde_json::json!({
            "limits": {
                "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
                "wildcards": true, "conn": -1, "leaf": -1,
                "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1
            },
            "default_permissions": {"pub": {}, "sub": {}},
            "type": "account", "version": 2
        }),
    );
    // JetStream needs a system account.
    let system = nkeys::KeyPair::new_account();
    let system_jwt = jwt(
        &operator,
        &system.public_key(),
        "SYS",
        serde_json::json!({"type": "account", "version": 2}),
    );
    let nats = NatsServer::start(
        &dir.0,
        &format!(
            "operator: {operator_jwt}\nsystem_account: {}\nresolver: MEMORY\n\
             resolver_preload: {{\n  {}: {account_jwt}\n  {}: {system_jwt}\n}}",
            system.public_key(),
            account.public_key(),
            system.public_key()
        ),
    );
    let url = nats.url("nats");

    // A user of an account this NATS does not know.
    let stranger = dir.0.join("stranger.creds");
    std::fs::write(
        &stranger,
        credentials(&nkeys::KeyPair::new_account(), "stranger"),
    )
    .unwrap();
    let mut command = node(&database.url(), &url, "n0", free_port());
    command.arg("--nats-creds").arg(&stranger);
    let (status, text) = refused(command);
    assert_eq!(status, Some(2), "{text}");
    assert_eq!(
        last_line(&text),
        format!(
            "chuhe: cannot connect to NATS at {url} (a credentials file): authorization violation: \
             the server refused these credentials"
        )
    );

    let creds = dir.0.join("node.creds");
    std::fs::write(&creds, credentials(&account, "node")).unwrap();
    let port = free_port();
    let mut command = node(&database.url(), &url, "a", port);
    command.arg("--nats-creds").arg(&creds);
    let log = dir.0.join("a.log");
    let _a = started(command, port, &log);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("auth=\"a credentials file\""), "{text}");
}
