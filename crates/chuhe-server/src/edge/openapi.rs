//! `GET /api/openapi.json`: the OpenAPI description of the HTTP API, generated from the route
//! handlers' annotations and the wire types of [`crate::protocol`] (utoipa). The WebSocket's
//! messages are not HTTP bodies; their shapes are components all the same
//! ([`ClientMessage`], [`ServerMessage`]), and the WebSocket route is a path answering 101.
//! `docs/openapi.json` is a checked-in copy (the crate's `openapi` test compares them).

use crate::protocol::{ClientMessage, ErrorBody, ServerMessage};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::OnceLock;
use utoipa::{Modify, OpenApi};

/// What the server describes of itself: every HTTP route with its bodies and error answers,
/// and the WebSocket's messages as components.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "chuhe",
        description = "The HTTP API of chuhe's game server (xiangqi, sanguo and banqi tables). \
            Every error answers an `ErrorBody` with a stable `error` code; the table WebSocket \
            (`GET /api/tables/{id}/ws`) carries `ClientMessage` and `ServerMessage` as JSON text. \
            `docs/protocol.md` describes the units, the limits and the rules behind each answer."
    ),
    paths(
        super::http::health,
        super::http::openapi_json,
        super::analysis::route,
        super::evaluation::route,
        super::http::guest,
        super::http::register,
        super::http::login,
        super::http::logout,
        super::http::me,
        super::http::player_ratings,
        super::http::list_tables,
        super::http::create_table,
        super::http::table_summary,
        super::http::table_events,
        super::http::table_pgn,
        super::http::table_positions,
        super::http::finished_games,
        super::ws::upgrade,
        super::bots::new_token,
        super::bots::tokens,
        super::bots::revoke_token,
        super::bots::revoke_own_token,
        super::bots::test_tokens,
        super::bots::account,
        super::bots::upgrade_to_bot,
        super::botplay::stream_event,
        super::botplay::list_challenges,
        super::botplay::challenge_ai,
        super::botplay::challenge,
        super::botplay::accept,
        super::botplay::decline,
        super::botplay::cancel,
        super::botplay::bot_stream,
        super::botplay::bot_move,
        super::botplay::bot_resign,
        super::botplay::bot_abort,
        super::botplay::bot_berserk,
        super::botplay::bot_chat,
        super::botplay::bot_draw,
        super::botplay::bot_takeback,
        super::botplay::board_stream,
        super::botplay::board_move,
        super::botplay::board_resign,
        super::botplay::board_abort,
        super::botplay::board_berserk,
        super::botplay::board_chat,
        super::botplay::board_draw,
        super::botplay::board_takeback,
        super::tournaments::create,
        super::tournaments::list,
        super::tournaments::show,
        super::tournaments::join,
        super::tournaments::withdraw,
        super::tournaments::stream,
        super::tournaments::list_swiss,
        super::tournaments::create_swiss,
        super::tournaments::show_swiss,
        super::tournaments::join_swiss,
        super::tournaments::withdraw_swiss,
        super::tournaments::stream_swiss,
        super::tournaments::games_swiss,
        super::tournaments::results_swiss,
        super::puzzles::daily,
        super::puzzles::next,
        super::puzzles::count,
        super::puzzles::activity,
        super::puzzles::show,
        super::puzzles::result,
    ),
    components(schemas(ClientMessage, ServerMessage, ErrorBody)),
    tags(
        (name = "health", description = "Whether the server and its database answer"),
        (name = "openapi", description = "This description"),
        (name = "sessions", description = "Guests, accounts and their session cookie"),
        (name = "players", description = "What the server keeps of a player"),
        (name = "tables", description = "Tables: listing, creating, their records, and the WebSocket to play at one"),
        (name = "games", description = "Finished games"),
        (name = "tokens", description = "Personal API tokens (`Authorization: Bearer`), made and revoked with a session cookie"),
        (name = "lichess", description = "Routes in lichess's shapes for its clients and bots (`docs/bots.md`); refusals as `{\"error\": \"...\"}`"),
        (name = "puzzles", description = "Puzzles mined from real games, in lichess's shapes (`docs/puzzles.md`); results rate the player and the puzzle"),
        (name = "analysis", description = "What the rules and the engine say about a position (no session, nothing stored)"),
    ),
    modifiers(&ClosedClientMessages)
)]
pub struct ApiDoc;

/// Closes every variant of `ClientMessage` (`additionalProperties: false`): serde's
/// `deny_unknown_fields` on the enum refuses an unknown field on any client message, and
/// utoipa's derive leaves it out of the variants' schemas.
struct ClosedClientMessages;

impl Modify for ClosedClientMessages {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::{AdditionalProperties, Schema};
        use utoipa::openapi::RefOr;
        let Some(components) = api.components.as_mut() else {
            return;
        };
        let Some(RefOr::T(Schema::OneOf(messages))) = components.schemas.get_mut("ClientMessage")
        else {
            return;
        };
        for message in &mut messages.items {
            if let RefOr::T(Schema::Object(object)) = message {
                object.additional_properties =
                    Some(Box::new(AdditionalProperties::FreeForm(false)));
            }
        }
    }
}

/// The document as JSON text, built once; `info.version` is the crate's version.
pub fn document() -> &'static str {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut api = ApiDoc::openapi();
        env!("CARGO_PKG_VERSION").clone_into(&mut api.info.version);
        api.to_pretty_json()
            .unwrap_or_else(|e| panic!("the OpenAPI document does not print: {e}"))
    })
}

/// The answer of `GET /api/openapi.json`: [`document`] as `application/json`.
pub fn response() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], document()).into_response()
}
