//! `GET /api/openapi.json`: the OpenAPI description names every route of the router with its
//! methods, every fixture of `tests/data/protocol/` is valid against the schema of its type in
//! it (and a broken fixture is not), and it is the checked-in `docs/openapi.json` (run with
//! `CHUHE_WRITE_OPENAPI=1` to write that file anew after a change of the API).

mod common;

use chuhe_server::site::{HttpLimits, RequestQuota};
use chuhe_server::Settings;
use common::{fresh_db, http_with, settings, Backend, Server};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The document as the server answers it, with the answer's status and head.
async fn served() -> (u16, String, String) {
    let db = fresh_db(Backend::Sqlite).await;
    let server = Server::start(&db, settings(Duration::from_secs(60))).await;
    let answer = server.http("GET", "/api/openapi.json", None, None).await;
    server.stop().await;
    answer
}

/// A validator of the schema `#/components/schemas/{name}` of `document`: the components go
/// along, so that the schema's `$ref`s resolve inside it.
fn validator(document: &Value, name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": document["components"].clone(),
        "$ref": format!("#/components/schemas/{name}"),
    });
    jsonschema::draft202012::options()
        .build(&schema)
        .unwrap_or_else(|e| panic!("the schema of {name} does not compile: {e}"))
}

/// The routes of the router, as `edge/http.rs` writes them: each `.route("PATH", get(...)...)`
/// with the methods of its line.
fn router_routes() -> BTreeSet<(String, String)> {
    let source =
        std::fs::read_to_string(format!("{ROOT}/crates/chuhe-server/src/edge/http.rs")).unwrap();
    // rustfmt writes a long route over several lines: read the calls with the spaces and line
    // breaks taken out
    let flat: String = source.split_whitespace().collect();
    let mut routes = BTreeSet::new();
    for call in flat.split(".route(\"").skip(1) {
        let (path, handlers) = call.split_once('"').unwrap();
        for method in ["get", "post", "put", "patch", "delete"] {
            if handlers.contains(&format!("{method}(")) {
                routes.insert((path.to_owned(), method.to_owned()));
            }
        }
    }
    routes
}

#[tokio::test]
async fn the_document_is_served_and_names_every_route() {
    let (status, head, body) = served().await;
    assert_eq!(status, 200, "{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["title"], "chuhe");
    assert_eq!(document["info"]["version"], env!("CARGO_PKG_VERSION"));

    let routes = router_routes();
    assert_eq!(routes.len(), 68, "{routes:?}");
    assert!(routes.contains(&("/api/tables".to_owned(), "post".to_owned())));
    let mut documented = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if method != "parameters" {
                documented.insert((path.clone(), method.clone()));
            }
        }
    }
    assert_eq!(documented, routes);
    // each operation has an id of its own and a tag the document describes
    let tags: BTreeSet<&str> = document["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut ids = BTreeSet::new();
    for (path, method) in &documented {
        let operation = &document["paths"][path][method];
        assert!(
            ids.insert(operation["operationId"].as_str().unwrap().to_owned()),
            "{method} {path}: its operationId is another's"
        );
        let tag = operation["tags"][0].as_str().unwrap();
        assert!(tags.contains(tag), "{method} {path}: tag {tag}");
    }

    // the bodies and answers the routes name
    let paths = &document["paths"];
    assert_eq!(
        paths["/api/tables"]["post"]["requestBody"]["content"]["application/json"]["schema"]
            ["$ref"],
        "#/components/schemas/TableOptions"
    );
    assert_eq!(
        paths["/api/tables"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
            ["$ref"],
        "#/components/schemas/TableSummary"
    );
    assert_eq!(
        paths["/api/tables/{id}"]["get"]["responses"]["404"]["content"]["application/json"]
            ["schema"]["$ref"],
        "#/components/schemas/ErrorBody"
    );
    assert_eq!(
        paths["/api/tables/{id}/pgn"]["get"]["responses"]["200"]["content"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["application/x-chess-pgn"]
    );
    let ws = &paths["/api/tables/{id}/ws"]["get"];
    assert!(ws["responses"]["101"]["description"]
        .as_str()
        .unwrap()
        .contains("WebSocket"));
    let schemas = document["components"]["schemas"].as_object().unwrap();
    for name in ["ClientMessage", "ServerMessage", "ErrorBody", "ErrorCode"] {
        assert!(schemas.contains_key(name), "no schema {name}");
    }
    // every error code the server answers is in the schema of `error`
    let codes: Vec<&str> = schemas["ErrorCode"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(codes.len(), 19);
    assert!(codes.contains(&"database_unavailable"));
    assert!(codes.contains(&"in_doubt"));
}

/// The type a fixture of `tests/data/protocol/` holds (as `tests/protocol.rs` reads them).
fn schema_of(fixture: &str) -> &'static str {
    let kind = fixture.trim_end_matches(".json");
    if kind.starts_with("client.") {
        return "ClientMessage";
    }
    if kind.starts_with("server.") {
        return "ServerMessage";
    }
    match kind.strip_prefix("http.") {
        Some("table_options") => "TableOptions",
        Some("table_summary") => "TableSummary",
        Some("player") => "PlayerInfo",
        Some("error") => "ErrorBody",
        Some("guest_request") => "GuestRequest",
        Some("account_request") => "AccountRequest",
        Some("finished_page") => "FinishedPage",
        Some("positions") => "Positions",
        _ => panic!("{fixture}: no type for this fixture"),
    }
}

#[tokio::test]
async fn every_fixture_is_valid_against_its_schema() {
    let document: Value = serde_json::from_str(openapi_text()).unwrap();
    let dir = format!("{ROOT}/tests/data/protocol");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 66);
    let mut checked = BTreeSet::new();
    for name in &names {
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{name}")).unwrap())
                .unwrap();
        let schema = schema_of(name);
        let errors: Vec<String> = validator(&document, schema)
            .iter_errors(&fixture)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{name} is not a valid {schema}: {errors:#?}"
        );
        checked.insert(schema);
    }
    assert_eq!(checked.len(), 10);
}

/// A fixture with a required field taken away, a field of the wrong type, an unknown field of a
/// client message or an unknown message type is not valid: the schemas do check.
#[test]
fn broken_fixtures_are_refused() {
    let document: Value = serde_json::from_str(openapi_text()).unwrap();
    let read = |name: &str| -> Value {
        let text =
            std::fs::read_to_string(format!("{ROOT}/tests/data/protocol/{name}.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let summary = validator(&document, "TableSummary");
    let mut missing = read("http.table_summary");
    assert!(summary.is_valid(&missing));
    missing.as_object_mut().unwrap().remove("phase");
    assert!(!summary.is_valid(&missing));
    let mut wrong = read("http.table_summary");
    wrong["version"] = json!("7");
    assert!(!summary.is_valid(&wrong));
    let mut phase = read("http.table_summary");
    phase["phase"] = json!("paused");
    assert!(!summary.is_valid(&phase));

    let server = validator(&document, "ServerMessage");
    let mut update = read("server.update");
    assert!(server.is_valid(&update));
    update.as_object_mut().unwrap().remove("phase");
    assert!(!server.is_valid(&update));
    // the packed moves are a text, not a list
    let mut packed = read("server.update.banqi");
    assert!(server.is_valid(&packed));
    packed["moves"] = json!(["c2-b2"]);
    assert!(!server.is_valid(&packed));
    let mut event = read("server.event.moved");
    assert!(server.is_valid(&event));
    event["event"].as_object_mut().unwrap().remove("move");
    assert!(!server.is_valid(&event));

    let client = validator(&document, "ClientMessage");
    let mut mv = read("client.move");
    assert!(client.is_valid(&mv));
    mv["seat"] = json!(1);
    assert!(!client.is_valid(&mv));
    assert!(!client.is_valid(&json!({"type": "teleport"})));
    assert!(!client.is_valid(&json!({"type": "start", "x": 1})));
    assert!(client.is_valid(&json!({"type": "start"})));

    let error = validator(&document, "ErrorBody");
    assert!(error.is_valid(&json!({"error": "not_found", "message": "no table \"x\""})));
    assert!(!error.is_valid(&json!({"error": "teapot", "message": "no"})));
}

/// The document the server builds, without a server.
fn openapi_text() -> &'static str {
    chuhe_server::edge::openapi::document()
}

#[tokio::test]
async fn the_served_document_is_the_checked_in_one() {
    let (status, _, body) = served().await;
    assert_eq!(status, 200);
    assert_eq!(body, openapi_text());
    let path = format!("{ROOT}/docs/openapi.json");
    let text = format!("{body}\n");
    if std::env::var_os("CHUHE_WRITE_OPENAPI").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == text,
        "docs/openapi.json is not the served document: after a change of the API, run \
         `CHUHE_WRITE_OPENAPI=1 cargo test -p chuhe-server --test openapi` and review the change"
    );
}

/// The document is a GET under `/api/` like the others: a page of another site may read it (the
/// `Origin` check is for the other methods), and it counts against the address's API quota
/// (here 2 at once, then one an hour: the third is refused with 429 and `Retry-After`).
#[tokio::test]
async fn the_document_passes_the_origin_check_and_the_rate_limit() {
    let db = fresh_db(Backend::Sqlite).await;
    let settings = Settings {
        http_limits: HttpLimits {
            api: RequestQuota::new(2, Duration::from_secs(3600)),
            ..HttpLimits::default()
        },
        ..settings(Duration::from_secs(60))
    };
    let server = Server::start(&db, settings).await;
    let origin = [("Origin", "https://elsewhere.example")];
    let (status, _, body) = http_with(server.addr, "GET", "/api/openapi.json", &origin, None).await;
    assert_eq!(status, 200);
    assert_eq!(body, openapi_text());
    let (status, _, _) = server.http("GET", "/api/openapi.json", None, None).await;
    assert_eq!(status, 200);
    let (status, head, body) = server.http("GET", "/api/openapi.json", None, None).await;
    assert_eq!(status, 429, "{body}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 3600"),
        "{head}"
    );
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], "rate_limited");
    server.stop().await;
}
