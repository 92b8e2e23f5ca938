//! Puzzles in lichess's shapes (`docs/protocol.md`, "Puzzles"; `docs/puzzles.md`): the daily
//! puzzle, the next puzzle near the player's puzzle rating (by theme), a puzzle by id, the
//! count, a result (Glicko-2 for the player and the puzzle) and the player's recent results.
//!
//! Every puzzle answers `{game, puzzle}` (and `user` for a player with a session):
//! `game.fen` is the position before the opponent's last move `game.lastMove`, which the
//! client plays (animated) to reach `puzzle.fen`, where the player makes `puzzle.solution[0]`.

use crate::error::ServerError;
use crate::site::AppState;
use crate::store::now_ms;
use crate::store::puzzles::{is_theme_key, PuzzleRating, PuzzleRow};
use crate::table::Person;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use super::extract::JsonBody;
use crate::protocol::ErrorBody;

/// How many of the puzzles nearest to the player's rating `next` picks from (at random).
pub const NEXT_AMONG: i64 = 12;

/// Most results `GET /api/puzzle/activity` answers (`max`; 20 by default).
pub const MAX_ACTIVITY: i64 = 100;

/// Where a puzzle comes from: the source game and the move before the puzzle.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PuzzleGame {
    /// The source game's id (`data/games.tsv`).
    pub id: String,
    /// The position before the opponent's last move (FEN).
    pub fen: String,
    /// The opponent's last move (ICCS): played from `fen`, it gives `puzzle.fen`.
    pub last_move: String,
    /// Plies of the source game played to reach `puzzle.fen` (`lastMove` the last of them).
    pub ply: i64,
}

/// A puzzle, in lichess's shape (ratings rounded to whole points).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PuzzleInfo {
    /// The puzzle's id.
    pub id: String,
    /// Its Glicko-2 rating, rounded.
    pub rating: i64,
    /// How many players have a result on it.
    pub plays: i64,
    /// The solution, ICCS: the player's first move, the opponent's reply, and so on; it ends
    /// on the player's move.
    pub solution: Vec<String>,
    /// The themes' keys (`mateIn2`, `fork`, `cannonScreen`, ...).
    pub themes: Vec<String>,
    /// The ply of `game.lastMove` in the source game, from 0 (lichess's `initialPly`).
    pub initial_ply: i64,
    /// The position where the player makes `solution[0]` (FEN; after `game.lastMove`).
    pub fen: String,
    /// The opponent's last move, ICCS (as `game.lastMove`).
    pub last_move: String,
}

/// The player's puzzle rating, shown beside a puzzle.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PuzzleUser {
    /// The player's id.
    pub id: String,
    /// The puzzle rating, rounded (1500 before a first result).
    pub rating: i64,
    /// Its deviation, rounded.
    pub deviation: i64,
    /// Rated results so far.
    pub plays: i64,
}

/// A puzzle with its source game (`GET /api/puzzle/daily`, `next`, `{id}`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PuzzleAndGame {
    /// Where it comes from.
    pub game: PuzzleGame,
    /// The puzzle.
    pub puzzle: PuzzleInfo,
    /// The player's puzzle rating, with a session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<PuzzleUser>,
}

/// `GET /api/puzzle/count`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PuzzleCount {
    /// How many puzzles the server has.
    pub count: i64,
}

/// `POST /api/puzzle/{id}/result`'s body.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PuzzleResultRequest {
    /// Whether the player solved it (found every move of the solution, without viewing it).
    pub win: bool,
}

/// A rating after a result (exact Glicko-2 values, and the change in whole points).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingAfter {
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// The rounded rating after less the rounded rating before (0 for a result not rated).
    pub rating_diff: i64,
}

/// `POST /api/puzzle/{id}/result`'s answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PuzzleResultAnswer {
    /// The puzzle's id.
    pub id: String,
    /// The result as stored: the first one on this puzzle (a later one is not kept).
    pub win: bool,
    /// Whether this result was rated (only the player's first result on a puzzle is).
    pub rated: bool,
    /// The player's puzzle rating now.
    pub player: RatingAfter,
    /// The puzzle's rating now, and its plays.
    pub puzzle: RatingAfter,
    /// How many players have a result on the puzzle.
    pub plays: i64,
}

/// The answer of a stored puzzle, with the player's rating when known.
fn answer(row: PuzzleRow, user: Option<(&Person, PuzzleRating)>) -> PuzzleAndGame {
    PuzzleAndGame {
        game: PuzzleGame {
            id: row.game_id,
            fen: row.before_fen,
            last_move: row.last_move.clone(),
            ply: row.ply,
        },
        puzzle: PuzzleInfo {
            id: row.id,
            rating: row.rating.rating.round() as i64,
            plays: row.plays,
            solution: row.solution,
            themes: row.themes,
            initial_ply: (row.ply - 1).max(0),
            fen: row.fen,
            last_move: row.last_move,
        },
        user: user.map(|(p, r)| PuzzleUser {
            id: p.id.clone(),
            rating: r.rating.rating.round() as i64,
            deviation: r.rating.deviation.round() as i64,
            plays: r.plays,
        }),
    }
}

/// `row` answered, with the puzzle rating of `person` when there is one.
async fn with_user(
    state: &AppState,
    row: PuzzleRow,
    person: Option<Person>,
) -> Result<Json<PuzzleAndGame>, ServerError> {
    Ok(Json(match person {
        Some(p) => {
            let rating = state.store().puzzle_rating(&p.id).await?;
            answer(row, Some((&p, rating)))
        }
        None => answer(row, None),
    }))
}

/// The query's parameters, refusing any but `allowed`.
fn params(
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
    allowed: &[&str],
) -> Result<HashMap<String, String>, ServerError> {
    let Query(q) =
        query.map_err(|_| ServerError::BadMessage("the query string does not read".to_owned()))?;
    if let Some(other) = q.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ServerError::BadMessage(format!(
            "unknown parameter {other:?}: use {}",
            allowed.join(", ")
        )));
    }
    Ok(q)
}

/// `GET /api/puzzle/daily`: the puzzle of the day (UTC), the same all day.
#[utoipa::path(
    get,
    path = "/api/puzzle/daily",
    operation_id = "puzzleDaily",
    tag = "puzzles",
    responses(
        (status = 200, description = "The daily puzzle: the same for everyone from 00:00 to 24:00 UTC", body = PuzzleAndGame),
        (status = 404, description = "`not_found`: the server has no puzzles", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn daily(
    State(state): State<AppState>,
    person: Option<Person>,
) -> Result<Json<PuzzleAndGame>, ServerError> {
    let row = state
        .store()
        .daily_puzzle(now_ms())
        .await?
        .ok_or_else(|| ServerError::NotFound("the server has no puzzles".to_owned()))?;
    with_user(&state, row, person).await
}

/// `GET /api/puzzle/next[?angle=THEME]`: a puzzle near the player's puzzle rating that the
/// player has no result on (while one remains), by theme when asked.
#[utoipa::path(
    get,
    path = "/api/puzzle/next",
    operation_id = "puzzleNext",
    tag = "puzzles",
    params(
        ("angle" = Option<String>, Query, description = "A theme's key (`mateIn2`, `fork`, ...): only puzzles of that theme"),
    ),
    responses(
        (status = 200, description = "One of the 12 puzzles nearest to the player's puzzle rating (1500 without a session or a result) among those the player has no result on; when none is left, among all", body = PuzzleAndGame),
        (status = 400, description = "`bad_message`: an `angle` that is not a theme's key (letters and digits), or another parameter", body = ErrorBody),
        (status = 404, description = "`not_found`: no puzzle has that theme", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn next(
    State(state): State<AppState>,
    person: Option<Person>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<PuzzleAndGame>, ServerError> {
    let q = params(query, &["angle"])?;
    let theme = q.get("angle").map(String::as_str).filter(|t| !t.is_empty());
    if let Some(t) = theme {
        if !is_theme_key(t) {
            return Err(ServerError::BadMessage(format!(
                "angle {t:?}: a theme's key (letters and digits, such as mateIn2)"
            )));
        }
    }
    let store = state.store();
    let rating = match &person {
        Some(p) => store.puzzle_rating(&p.id).await?,
        None => PuzzleRating {
            rating: Default::default(),
            plays: 0,
        },
    };
    let player = person.as_ref().map(|p| p.id.as_str());
    let r = rating.rating.rating;
    let mut near = store
        .puzzles_near(r, theme, player, true, NEXT_AMONG)
        .await?;
    if near.is_empty() && player.is_some() {
        near = store
            .puzzles_near(r, theme, player, false, NEXT_AMONG)
            .await?;
    }
    if near.is_empty() {
        return Err(ServerError::NotFound(match theme {
            Some(t) => format!("no puzzle has the theme {t}"),
            None => "the server has no puzzles".to_owned(),
        }));
    }
    let pick = rand::random_range(0..near.len());
    let row = near.swap_remove(pick);
    Ok(Json(answer(row, person.as_ref().map(|p| (p, rating)))))
}

/// `GET /api/puzzle/{id}`: one puzzle.
#[utoipa::path(
    get,
    path = "/api/puzzle/{id}",
    operation_id = "puzzleById",
    tag = "puzzles",
    params(("id" = String, Path, description = "The puzzle's id")),
    responses(
        (status = 200, description = "The puzzle", body = PuzzleAndGame),
        (status = 404, description = "`not_found`: no puzzle has that id", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn show(
    State(state): State<AppState>,
    person: Option<Person>,
    Path(id): Path<String>,
) -> Result<Json<PuzzleAndGame>, ServerError> {
    let row = state
        .store()
        .puzzle(&id)
        .await?
        .ok_or_else(|| ServerError::NotFound(format!("no puzzle {id}")))?;
    with_user(&state, row, person).await
}

/// `GET /api/puzzle/count`: how many puzzles the server has.
#[utoipa::path(
    get,
    path = "/api/puzzle/count",
    operation_id = "puzzleCount",
    tag = "puzzles",
    responses(
        (status = 200, description = "The number of puzzles", body = PuzzleCount),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn count(State(state): State<AppState>) -> Result<Json<PuzzleCount>, ServerError> {
    Ok(Json(PuzzleCount {
        count: state.store().puzzle_count().await?,
    }))
}

/// `POST /api/puzzle/{id}/result`: the player's result (`{"win": true}`); the first result on
/// a puzzle rates the player and the puzzle (Glicko-2, one rating period each).
#[utoipa::path(
    post,
    path = "/api/puzzle/{id}/result",
    operation_id = "puzzleResult",
    tag = "puzzles",
    params(("id" = String, Path, description = "The puzzle's id")),
    request_body = PuzzleResultRequest,
    responses(
        (status = 200, description = "The ratings after the result (the player's first result on this puzzle is rated; a later one changes nothing and answers the ratings as they are)", body = PuzzleResultAnswer),
        (status = 400, description = "`bad_message`: the body does not read as `{\"win\": true|false}`", body = ErrorBody),
        (status = 401, description = "`unauthorized`: no session (a guest's or an account's)", body = ErrorBody),
        (status = 404, description = "`not_found`: no puzzle has that id", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn result(
    State(state): State<AppState>,
    person: Person,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<PuzzleResultRequest>,
) -> Result<Json<PuzzleResultAnswer>, ServerError> {
    let store = state.store();
    if store.puzzle(&id).await?.is_none() {
        return Err(ServerError::NotFound(format!("no puzzle {id}")));
    }
    let (rated, stored) = store.puzzle_result(&person.id, &id, body.win).await?;
    let player = store.puzzle_rating(&person.id).await?;
    let puzzle = store
        .puzzle(&id)
        .await?
        .ok_or_else(|| ServerError::NotFound(format!("no puzzle {id}")))?;
    let diff = |before: f64, after: f64| {
        if rated {
            after.round() as i64 - before.round() as i64
        } else {
            0
        }
    };
    Ok(Json(PuzzleResultAnswer {
        id,
        win: stored.win,
        rated,
        player: RatingAfter {
            rating: player.rating.rating,
            deviation: player.rating.deviation,
            volatility: player.rating.volatility,
            rating_diff: diff(stored.rating_before, stored.rating_after),
        },
        puzzle: RatingAfter {
            rating: puzzle.rating.rating,
            deviation: puzzle.rating.deviation,
            volatility: puzzle.rating.volatility,
            rating_diff: diff(stored.puzzle_rating_before, stored.puzzle_rating_after),
        },
        plays: puzzle.plays,
    }))
}

/// One line of `GET /api/puzzle/activity` (lichess's shape).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PuzzleActivity {
    /// When the result was posted, milliseconds since the Unix epoch.
    pub date: i64,
    /// Whether the player solved it.
    pub win: bool,
    /// The player's rating change, in whole points.
    pub rating_diff: i64,
    /// The puzzle as it is now.
    pub puzzle: PuzzleInfo,
}

/// `GET /api/puzzle/activity[?max=N]`: the player's last results, the latest first, as NDJSON.
#[utoipa::path(
    get,
    path = "/api/puzzle/activity",
    operation_id = "puzzleActivity",
    tag = "puzzles",
    params(
        ("max" = Option<i64>, Query, minimum = 1, maximum = 100, description = "How many results, 1 to 100; default 20"),
    ),
    responses(
        (status = 200, description = "The player's last results, one JSON object per line (`application/x-ndjson`)", body = PuzzleActivity, content_type = "application/x-ndjson"),
        (status = 400, description = "`bad_message`: a bad `max`, or another parameter", body = ErrorBody),
        (status = 401, description = "`unauthorized`: no session", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests from this address (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`database_unavailable`: the database did not answer (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn activity(
    State(state): State<AppState>,
    person: Person,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Response, ServerError> {
    let q = params(query, &["max"])?;
    let max = match q.get("max") {
        None => 20,
        Some(text) => text
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=MAX_ACTIVITY).contains(n))
            .ok_or_else(|| {
                ServerError::BadMessage(format!(
                    "max {text:?}: a whole number from 1 to {MAX_ACTIVITY}"
                ))
            })?,
    };
    let rows = state.store().puzzle_activity(&person.id, max).await?;
    let mut text = String::new();
    for (result, row) in rows {
        let line = PuzzleActivity {
            date: result.created_ms,
            win: result.win,
            rating_diff: result.rating_after.round() as i64 - result.rating_before.round() as i64,
            puzzle: answer(row, None).puzzle,
        };
        text.push_str(
            &serde_json::to_string(&line).map_err(|e| ServerError::Internal(e.to_string()))?,
        );
        text.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], text).into_response())
}
