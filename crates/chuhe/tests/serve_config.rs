//! `chuhe serve --config FILE` and `--print-config`: the file's keys are the long flags; flags
//! beat the environment, which beats the file, which beats the defaults; an unknown key stops
//! the command with one line; docs/chuhe.toml lists every key with its real default.

mod common;

use common::{free_port, wait_healthy, TempDir, CHUHE};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `chuhe ARGS` with no environment but `env`, in `dir`.
fn chuhe(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(CHUHE)
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The value of `key` in the `--print-config` output `text`.
fn value<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in:\n{text}"))
}

/// `--print-config` of `chuhe serve ARGS` (status 0, nothing on standard error).
fn printed(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = chuhe(dir, &[&["serve", "--print-config"], args].concat(), env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "status {}: {stderr}", out.status);
    assert_eq!(stderr, "");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn flags_beat_the_environment_which_beats_the_file() {
    let dir = TempDir::new("config-layers");
    std::fs::write(
        dir.0.join("chuhe.toml"),
        "bind = \"127.0.0.1:9001\"\ndb-timeout-ms = 700\nsecure-cookies = true\n\
         allowed-origin = [\"https://a.example\", \"https://b.example\"]\n",
    )
    .unwrap();
    let file = ["--config", "chuhe.toml"];
    let text = printed(&dir.0, &file, &[]);
    assert_eq!(value(&text, "bind"), "\"127.0.0.1:9001\"");
    assert_eq!(value(&text, "db-timeout-ms"), "700");
    assert_eq!(value(&text, "secure-cookies"), "true");
    assert_eq!(
        value(&text, "allowed-origin"),
        "[\"https://a.example\", \"https://b.example\"]"
    );
    // Not in the file: the default.
    assert_eq!(value(&text, "database"), "\"sqlite://chuhe.db\"");
    // CHUHE_CONFIG names the file too.
    assert_eq!(
        printed(&dir.0, &[], &[("CHUHE_CONFIG", "chuhe.toml")]),
        text
    );

    let env = [
        ("CHUHE_BIND", "127.0.0.1:9002"),
        ("CHUHE_ALLOWED_ORIGINS", "https://c.example"),
    ];
    let text = printed(&dir.0, &file, &env);
    assert_eq!(value(&text, "bind"), "\"127.0.0.1:9002\"");
    assert_eq!(value(&text, "allowed-origin"), "[\"https://c.example\"]");
    assert_eq!(value(&text, "db-timeout-ms"), "700");

    let text = printed(
        &dir.0,
        &[
            &file[..],
            &["--bind", "127.0.0.1:9003", "--db-timeout-ms", "800"],
        ]
        .concat(),
        &env,
    );
    assert_eq!(value(&text, "bind"), "\"127.0.0.1:9003\"");
    assert_eq!(value(&text, "db-timeout-ms"), "800");
}

#[test]
fn print_config_shows_every_setting_and_hides_credentials() {
    let dir = TempDir::new("config-print");
    std::fs::write(
        dir.0.join("small.toml"),
        "# a small file\nbind = \"0.0.0.0:8080\"\n\
         database = \"postgres://chuhe:s3cret@db.example/chuhe\"\n\
         nats = \"nats://node:pw@nats.example:4222\"\nlease-ms = 9000\n",
    )
    .unwrap();
    let text = printed(&dir.0, &["--config", "small.toml"], &[]);
    let expected = "\
bind = \"0.0.0.0:8080\"
database = \"postgres://***@db.example/chuhe\"
trust-forwarded-for = false
allowed-origin = []
computer-threads = 2
log-format = \"text\"
# metrics-bind is not set
db-timeout-ms = 5000
commit-delay-ms = 5
max-connections-per-address = 64
descriptor-reserve = 256
request-timeout-secs = 10
shutdown-timeout-secs = 15
secure-cookies = false
session-days = 30
nats = \"nats://***@nats.example:4222\"
# node-id is not set
nats-prefix = \"chuhe\"
lease-ms = 9000
# nats-user is not set
# nats-password-file is not set
# nats-token-file is not set
# nats-nkey-file is not set
# nats-creds is not set
# nats-tls-ca is not set
# nats-tls-cert is not set
# nats-tls-key is not set
";
    assert_eq!(text, expected);
}

#[test]
fn an_unknown_key_is_refused_with_one_line() {
    let dir = TempDir::new("config-unknown");
    std::fs::write(dir.0.join("bad.toml"), "bind = \"127.0.0.1:1\"\nbnd = 3\n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: unknown key \"bnd\" in bad.toml\n"
    );
    std::fs::write(dir.0.join("bad.toml"), "db_timeout_ms = 300\n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: unknown key \"db_timeout_ms\" in bad.toml \
         (the keys are written with '-': db-timeout-ms)\n"
    );
    // A value out of range is refused as a flag's would be, naming the file.
    std::fs::write(dir.0.join("bad.toml"), "db-timeout-ms = 5\n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("chuhe: bad.toml: invalid value '5' for '--db-timeout-ms")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    // A value of the wrong kind.
    std::fs::write(dir.0.join("bad.toml"), "secure-cookies = 1\n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: bad.toml: secure-cookies takes true or false\n"
    );
    // So is a cluster key without `nats`, as `--node-id` alone would be.
    std::fs::write(dir.0.join("bad.toml"), "node-id = \"n1\"\n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: bad.toml: the following required arguments were not provided: --nats <NATS>\n"
    );
    // A bad flag is the command line's mistake, told as such, whatever the file says.
    std::fs::write(dir.0.join("good.toml"), "db-timeout-ms = 700\n").unwrap();
    let out = chuhe(
        &dir.0,
        &["serve", "--config", "good.toml", "--db-timeout-ms", "5"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("chuhe: invalid value '5' for '--db-timeout-ms"),
        "{stderr}"
    );
    // Not TOML: the line is named.
    std::fs::write(dir.0.join("bad.toml"), "bind = \"x\"\nnats = \n").unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("chuhe: bad.toml line 2: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let out = chuhe(&dir.0, &["serve", "--config", "missing.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("chuhe: cannot read the configuration file missing.toml: "));
}

/// docs/chuhe.toml names every key, and the values it sets are the real defaults: the
/// configuration with it is the configuration without it.
#[test]
fn the_example_file_lists_every_key_with_its_default() {
    let dir = TempDir::new("config-example");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/chuhe.toml");
    let example = example.to_str().unwrap();
    let defaults = printed(&dir.0, &[], &[]);
    assert_eq!(printed(&dir.0, &["--config", example], &[]), defaults);
    let text = std::fs::read_to_string(example).unwrap();
    for line in defaults.lines() {
        let key = line
            .strip_prefix("# ")
            .and_then(|l| l.strip_suffix(" is not set"))
            .or_else(|| line.split(" = ").next())
            .unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{key} = "))
                    || l.starts_with(&format!("# {key} = "))),
            "docs/chuhe.toml does not name {key}"
        );
        if !line.starts_with('#') {
            assert!(
                text.lines().any(|l| l == line),
                "docs/chuhe.toml lacks {line:?}"
            );
        }
    }
}

/// A real server takes its address and database from the file.
#[test]
fn serve_listens_where_the_file_says() {
    let dir = TempDir::new("config-serve");
    let port = free_port();
    std::fs::write(
        dir.0.join("chuhe.toml"),
        format!("bind = \"127.0.0.1:{port}\"\ndatabase = \"sqlite://served.db\"\n"),
    )
    .unwrap();
    let mut server = Command::new(CHUHE)
        .args(["serve", "--config", "chuhe.toml"])
        .env_remove("CHUHE_BIND")
        .env_remove("CHUHE_DATABASE")
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_healthy(port, &mut server);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(dir.0.join("served.db").exists());
}

/// The operator's `[[schedule]]` tables: printed after the settings by `--print-config`; one
/// out of bounds stops `chuhe serve` with one line naming the file and the schedule.
#[test]
fn schedules_are_printed_and_checked() {
    let dir = TempDir::new("config-schedules");
    let hourly = "[[schedule]]\nname = \"Hourly Blitz\"\nclock-time = 3\nclock-increment = 2\n\
                  minutes = 57\nevery = \"hourly\"\n";
    std::fs::write(
        dir.0.join("chuhe.toml"),
        format!("db-timeout-ms = 700\n{hourly}"),
    )
    .unwrap();
    let text = printed(&dir.0, &["--config", "chuhe.toml"], &[]);
    assert_eq!(value(&text, "db-timeout-ms"), "700");
    assert!(text.contains("[[schedule]]\n"), "{text}");
    assert!(text.contains("name = \"Hourly Blitz\"\n"), "{text}");
    assert!(text.contains("every = \"hourly\"\n"), "{text}");

    std::fs::write(
        dir.0.join("bad.toml"),
        hourly.replace("minutes = 57", "minutes = 500"),
    )
    .unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "bad.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "chuhe: bad.toml: schedule \"Hourly Blitz\": minutes: 10 to 180\n"
    );
    std::fs::write(dir.0.join("typo.toml"), hourly.replace("every =", "evry =")).unwrap();
    let out = chuhe(&dir.0, &["serve", "--config", "typo.toml"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("chuhe: typo.toml: schedule: unknown field `evry`"),
        "{stderr}"
    );
}

#[test]
fn a_database_that_does_not_answer_at_start_is_a_bad_setting_with_one_line() {
    // A "PostgreSQL" that takes connections and never says a word: as a server cut off by a
    // partition, or not up yet behind a proxy. The start fails within --db-timeout-ms with
    // status 2 (restarted by systemd like any setting that cannot be opened now), not with
    // status 1 and "internal error" (seen in `scripts/faults --seed 7035`: a node restarted
    // while a partition cut it from PostgreSQL).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    // Kept open (in its thread) until the process ends.
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for conn in silent.incoming().take(4) {
            kept.push(conn);
        }
        std::thread::sleep(std::time::Duration::from_secs(30));
    });
    let dir = TempDir::new("config-silent-db");
    // With a password in the URL: the line names the database without it.
    let database = format!("postgres://postgres:s3cret@127.0.0.1:{port}/test");
    let shown = format!("postgres://***@127.0.0.1:{port}/test");
    let bind = format!("127.0.0.1:{}", free_port());
    let began = std::time::Instant::now();
    let out = chuhe(
        &dir.0,
        &[
            "serve",
            "--bind",
            &bind,
            "--database",
            &database,
            "--db-timeout-ms",
            "400",
        ],
        &[("RUST_LOG", "off")],
    );
    assert!(began.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "chuhe: cannot open database \"{shown}\": error communicating with database: \
             the database did not answer within 400 ms\n"
        )
    );
}
