//! `POST /api/analysis/eval`: the engine's evaluation and best line for the positions of a
//! xiangqi game (the analysis board of the web client), from the start or from a FEN.
//!
//! The cost is bounded three ways: every position gets a fixed search budget
//! ([`EVAL_NODES`] nodes, at most [`EVAL_TIME`]); one request evaluates at most
//! [`POSITIONS_PER_REQUEST`] positions (the answer's `next` says where to go on) of a game of at
//! most [`MAX_EVAL_MOVES`] moves; at most [`MAX_CONCURRENT_EVALS`] requests search at once, on
//! blocking threads. The slots are shared fairly ([`EvalSlots`]): one client address has at
//! most [`MAX_EVALS_PER_ADDRESS`] request running or waiting (another is refused with 429
//! `rate_limited` and `Retry-After`), and a request that finds the slots taken waits its turn
//! in a first-come queue of at most [`MAX_WAITING_EVALS`] for at most [`MAX_EVAL_WAIT`] (then
//! 503 `rate_limited` with `Retry-After`). So one address running request loops holds one slot
//! and everybody else is served from the other or in turn. The computer players' pool
//! ([`crate::computer`]) is not used: analyses never delay a computer's move. No session is
//! needed and nothing is stored. See `docs/protocol.md`.

use crate::edge::extract::JsonBody;
use crate::edge::limit::ClientAddress;
use crate::error::ServerError;
use crate::protocol::ErrorBody;
use axum::extract::State;
use axum::Extension;
use axum::Json;
use chuhe_engine::search::{Control, Limits, Score, Searcher, Settings};
use chuhe_engine::tt::Table;
use chuhe_notation::{write_move, ChineseStyle, Notation};
use chuhe_rules::banqi::{Cell, Record, Square, View};
use chuhe_rules::outcome::Outcome;
use chuhe_rules::sanguo::{self, Kingdom};
use chuhe_rules::xiangqi::{Color, Game, GameOptions, Move, Position};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Nodes searched per position.
pub const EVAL_NODES: u64 = 60_000;
/// Longest search of one position (the node budget usually ends it first).
pub const EVAL_TIME: Duration = Duration::from_millis(300);
/// Most moves a request may give (the game; positions after them are not analysed).
pub const MAX_EVAL_MOVES: usize = 300;
/// Most positions one request evaluates.
pub const POSITIONS_PER_REQUEST: usize = 20;
/// Most requests that search at once (the others wait their turn, see [`EvalSlots`]).
pub const MAX_CONCURRENT_EVALS: usize = 2;
/// Most requests of one client address running or waiting at once.
pub const MAX_EVALS_PER_ADDRESS: usize = 1;
/// Most requests waiting for a slot; a request beyond them is refused at once.
pub const MAX_WAITING_EVALS: usize = 16;
/// Longest wait for a slot before a request is refused. A request's search takes at most
/// [`POSITIONS_PER_REQUEST`] × [`EVAL_TIME`] (6 s), usually well under a second.
pub const MAX_EVAL_WAIT: Duration = Duration::from_secs(10);
/// Longest best line reported, in moves.
pub const MAX_LINE: usize = 8;
/// Longest accepted FEN, bytes.
pub const MAX_FEN_BYTES: usize = 128;
/// Longest accepted position text of any game (a sanguo text is the longest), bytes.
pub const MAX_POSITION_BYTES: usize = 400;
/// The transposition table of one request, MiB.
const TABLE_MIB: usize = 8;

/// The engine's analysis slots, shared fairly between client addresses: a slot is taken in
/// the order the requests came (tokio's semaphore is first-in first-out), each address has at
/// most [`MAX_EVALS_PER_ADDRESS`] request running or waiting, and at most
/// [`MAX_WAITING_EVALS`] wait, each for at most [`MAX_EVAL_WAIT`].
#[derive(Debug)]
pub struct EvalSlots {
    running: Semaphore,
    /// Requests running or waiting, by client address.
    clients: std::sync::Mutex<HashMap<IpAddr, usize>>,
    waiting: AtomicUsize,
    wait: Duration,
}

/// A client's place in [`EvalSlots`]: its count goes down when dropped.
struct ClientTurn<'a> {
    slots: &'a EvalSlots,
    client: IpAddr,
}

impl Drop for ClientTurn<'_> {
    fn drop(&mut self) {
        if let Ok(mut clients) = self.slots.clients.lock() {
            if let Some(n) = clients.get_mut(&self.client) {
                *n -= 1;
                if *n == 0 {
                    clients.remove(&self.client);
                }
            }
        }
    }
}

impl EvalSlots {
    /// `slots` searches at once, waits of at most [`MAX_EVAL_WAIT`].
    pub fn new(slots: usize) -> EvalSlots {
        EvalSlots::with_wait(slots, MAX_EVAL_WAIT)
    }

    /// `slots` searches at once, waits of at most `wait`.
    pub fn with_wait(slots: usize, wait: Duration) -> EvalSlots {
        EvalSlots {
            running: Semaphore::new(slots),
            clients: std::sync::Mutex::new(HashMap::new()),
            waiting: AtomicUsize::new(0),
            wait,
        }
    }

    /// Counts a request of `client`.
    ///
    /// # Errors
    /// [`ServerError::TooManyRequests`] (1 s) when the client already has
    /// [`MAX_EVALS_PER_ADDRESS`] requests running or waiting.
    fn enter(&self, client: IpAddr) -> Result<ClientTurn<'_>, ServerError> {
        let mut clients = self
            .clients
            .lock()
            .map_err(|_| ServerError::Internal("analysis slots: poisoned lock".to_owned()))?;
        let n = clients.entry(client).or_insert(0);
        if *n >= MAX_EVALS_PER_ADDRESS {
            return Err(ServerError::TooManyRequests {
                retry_after_secs: 1,
            });
        }
        *n += 1;
        Ok(ClientTurn {
            slots: self,
            client,
        })
    }

    /// A slot, at once or after waiting in turn.
    ///
    /// # Errors
    /// [`ServerError::Busy`] when [`MAX_WAITING_EVALS`] requests wait already, or no slot came
    /// free within the wait.
    async fn slot(&self) -> Result<tokio::sync::SemaphorePermit<'_>, ServerError> {
        if let Ok(permit) = self.running.try_acquire() {
            return Ok(permit);
        }
        let busy = || ServerError::Busy {
            message: format!(
                "the engine is busy with {} analyses: try again in a few seconds",
                MAX_CONCURRENT_EVALS
            ),
            retry_after_secs: 2,
        };
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= MAX_WAITING_EVALS {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(busy());
        }
        let permit = tokio::time::timeout(self.wait, self.running.acquire()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        match permit {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) | Err(_) => Err(busy()),
        }
    }
}

/// The body of `POST /api/analysis/eval`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalRequest {
    /// The game: `xiangqi` (default), `sanguo` or `banqi`.
    #[serde(default)]
    pub variant: Option<String>,
    /// The start position: a xiangqi FEN, a sanguo position text or a banqi *view* text (face-down
    /// squares as `?`, never a truth); `null` or absent: the variant's usual start (sanguo: with
    /// flag bearers).
    #[serde(default)]
    pub fen: Option<String>,
    /// The game's moves from there, in the variant's move text (xiangqi ICCS `h2e2`, sanguo
    /// `Re1-Re2`, banqi records `c2=R`, `c2-c3`, `c2xc3`); at most [`MAX_EVAL_MOVES`].
    #[serde(default)]
    pub moves: Vec<String>,
    /// The first ply to evaluate (0: the start position; `moves.len()`: the last position).
    #[serde(default)]
    pub from: usize,
    /// The notation of `played` and `line_text` for xiangqi: `iccs` (default), `wxf` or
    /// `chinese`; sanguo and banqi always use their own move text.
    #[serde(default)]
    pub notation: Option<String>,
}

/// An evaluation from Red's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Eval {
    /// Centipawns: positive when Red is better (a Soldier over the river is worth about 100).
    Cp(i32),
    /// A forced mate in this many moves: positive when Red mates, negative when Black does.
    Mate(i32),
}

/// One kingdom's evaluation of a sanguo position, from its own view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct KingdomEval {
    /// `shu`, `wu` or `wei`.
    pub kingdom: String,
    /// Its paranoid evaluation (it plays for itself, both rivals against it): centipawns of
    /// its own view (a Chariot is worth 900, a Soldier 100), or `mate`: it is the last kingdom
    /// standing (positive) or falls (negative) within this many plies; `null` once it is
    /// defeated.
    pub eval: Option<Eval>,
    /// The deepest completed search depth, plies.
    pub depth: i32,
}

/// How likely one piece is under a face-down banqi square.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PieceChance {
    /// The piece letter of the banqi text (upper case Red, lower case Black: `K A E R H C P`).
    pub piece: String,
    /// How many of it are still face down.
    pub count: u32,
    /// The chance that a given face-down square holds it: `count` / the face-down pieces.
    pub probability: f64,
}

/// What a banqi view allows about its face-down squares: the pieces not yet revealed or
/// captured, spread uniformly over the face-down squares (the same for every one of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FaceDown {
    /// The face-down squares (`a1` … `h4`).
    pub squares: Vec<String>,
    /// Each piece kind still face down, most likely first (then in the text's order).
    pub pieces: Vec<PieceChance>,
}

/// One analysed position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PositionEval {
    /// The moves played to reach it (0: the start position).
    pub ply: usize,
    /// The position's text: a xiangqi FEN, a sanguo position text or a banqi view text.
    pub fen: String,
    /// The move that led here, in the notation asked for; `null` at ply 0.
    pub played: Option<String>,
    /// The evaluation from Red's view, `null` once the game is over in this position (see
    /// `outcome`), and always `null` in sanguo (see `kingdoms`). Banqi: the evaluation's units
    /// (a Soldier with targets about 100), before the first flip from the first player's view.
    pub eval: Option<Eval>,
    /// The best line from here, at most [`MAX_LINE`] moves, empty once the game is over: xiangqi
    /// ICCS, sanguo move text (the kingdom to move's line with the answers its search expects),
    /// banqi the best action alone (what a flip reveals is chance).
    pub line: Vec<String>,
    /// The same line in the notation asked for.
    pub line_text: Vec<String>,
    /// The deepest completed search depth, plies.
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// How the game ended in this position (mate, repetition, no-capture limit), else `null`.
    pub outcome: Option<Outcome>,
    /// Sanguo only: each kingdom's evaluation, in the order Shu, Wu, Wei.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kingdoms: Option<Vec<KingdomEval>>,
    /// Banqi only: the chances of the face-down squares, from the view alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face_down: Option<FaceDown>,
}

/// The answer of `POST /api/analysis/eval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EvalAnswer {
    /// The positions from `from`, in order, at most [`POSITIONS_PER_REQUEST`].
    pub positions: Vec<PositionEval>,
    /// The ply to ask `from` next, `null` when the last position is in this answer.
    pub next: Option<usize>,
    /// The node budget of each position.
    pub nodes_per_position: u64,
}

/// The route's handler: checks the request, waits for a slot, then searches on a blocking
/// thread.
///
/// # Errors
/// `bad_message` for a bad FEN, notation, `from` or too many moves; `illegal_move` for a move
/// that does not read or is not legal; `rate_limited` with `Retry-After`: 429 when the client's
/// address has an analysis running or waiting already, 503 when the engine stays busy
/// ([`EvalSlots`]).
#[utoipa::path(
    post,
    path = "/api/analysis/eval",
    tag = "analysis",
    operation_id = "evaluation",
    request_body = EvalRequest,
    responses(
        (status = 200, description = "The engine's evaluation of up to 20 positions of the game", body = EvalAnswer),
        (status = 400, description = "`bad_message`: more than 300 moves, a bad `from`, notation or FEN", body = ErrorBody),
        (status = 400, description = "`illegal_move`: a move that does not read or is not legal", body = ErrorBody),
        (status = 403, description = "`forbidden`: a request from a page of another site (`Origin`)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body did not arrive within the time limit", body = ErrorBody),
        (status = 413, description = "`too_large`: a body over 16 KiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: this address has an analysis running or waiting, or too many requests (with `Retry-After`)", body = ErrorBody),
        (status = 503, description = "`rate_limited`: the engine stays busy (with `Retry-After`)", body = ErrorBody),
        (status = 500, description = "`internal`: a failure inside the server", body = ErrorBody),
    )
)]
pub async fn route(
    State(edge): State<super::Edge>,
    Extension(ClientAddress(client)): Extension<ClientAddress>,
    JsonBody(request): JsonBody<EvalRequest>,
) -> Result<Json<EvalAnswer>, ServerError> {
    Ok(Json(
        evaluate_with(edge.eval_slots(), client, request).await?,
    ))
}

/// [`route`] with the slots that bound the searches running at once, for `client`.
///
/// # Errors
/// As [`route`].
pub async fn evaluate_with(
    slots: &EvalSlots,
    client: IpAddr,
    request: EvalRequest,
) -> Result<EvalAnswer, ServerError> {
    let job = Job::read(&request)?;
    let _turn = slots.enter(client)?;
    let _permit = slots.slot().await?;
    tokio::task::spawn_blocking(move || job.run())
        .await
        .map_err(|e| ServerError::Internal(format!("analysis thread: {e}")))?
}

/// A checked request of one of the three games.
enum Job {
    Xiangqi(XiangqiJob),
    Sanguo(SanguoJob),
    Banqi(BanqiJob),
}

impl Job {
    fn read(request: &EvalRequest) -> Result<Job, ServerError> {
        if request.moves.len() > MAX_EVAL_MOVES {
            return Err(ServerError::BadMessage(format!(
                "at most {MAX_EVAL_MOVES} moves, got {}",
                request.moves.len()
            )));
        }
        if request.from > request.moves.len() {
            return Err(ServerError::BadMessage(format!(
                "from {} is beyond the last position (ply {})",
                request.from,
                request.moves.len()
            )));
        }
        if let Some(text) = request.fen.as_deref() {
            if text.trim().len() > MAX_POSITION_BYTES {
                return Err(ServerError::BadMessage(format!(
                    "a position text has at most {MAX_POSITION_BYTES} bytes"
                )));
            }
        }
        match request.variant.as_deref().unwrap_or("xiangqi") {
            "xiangqi" => XiangqiJob::read(request).map(Job::Xiangqi),
            "sanguo" => SanguoJob::read(request).map(Job::Sanguo),
            "banqi" => BanqiJob::read(request).map(Job::Banqi),
            other => Err(ServerError::BadMessage(format!(
                "variant {other:?}: use xiangqi, sanguo or banqi"
            ))),
        }
    }

    fn run(self) -> Result<EvalAnswer, ServerError> {
        match self {
            Job::Xiangqi(job) => job.run(),
            Job::Sanguo(job) => Ok(job.run()),
            Job::Banqi(job) => Ok(job.run()),
        }
    }
}

/// The last ply of the page that starts at `from` in a game of `moves` moves.
fn last_ply(from: usize, moves: usize) -> usize {
    moves.min(from + POSITIONS_PER_REQUEST - 1)
}

/// A checked xiangqi request: the start, the moves, the range and the notation.
struct XiangqiJob {
    start: Position,
    moves: Vec<Move>,
    from: usize,
    notation: Notation,
}

impl XiangqiJob {
    fn read(request: &EvalRequest) -> Result<XiangqiJob, ServerError> {
        let notation = match request.notation.as_deref().unwrap_or("iccs") {
            "iccs" => Notation::Iccs,
            "wxf" => Notation::Wxf,
            "chinese" => Notation::Chinese,
            other => {
                return Err(ServerError::BadMessage(format!(
                    "notation {other:?}: use iccs, wxf or chinese"
                )))
            }
        };
        let start = match request.fen.as_deref().map(str::trim) {
            None | Some("") => Position::start(),
            Some(text) if text.len() > MAX_FEN_BYTES => {
                return Err(ServerError::BadMessage(format!(
                    "a FEN has at most {MAX_FEN_BYTES} bytes"
                )))
            }
            Some(text) => Position::from_fen(text)
                .map_err(|e| ServerError::BadMessage(format!("fen: {e}")))?,
        };
        let mut game = Game::new(start.clone(), GameOptions::default());
        let mut moves = Vec::with_capacity(request.moves.len());
        for (i, text) in request.moves.iter().enumerate() {
            let ply = i + 1;
            let m: Move = text
                .parse()
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            if game.status().outcome().is_some() {
                return Err(ServerError::IllegalMove(format!(
                    "{text} at ply {ply} (the game is over)"
                )));
            }
            game.play(m)
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            moves.push(m);
        }
        Ok(XiangqiJob {
            start,
            moves,
            from: request.from,
            notation,
        })
    }

    /// Replays the game and searches each position of the range in turn.
    fn run(self) -> Result<EvalAnswer, ServerError> {
        let table = Table::new(TABLE_MIB)
            .map_err(|()| ServerError::Internal("no memory for the analysis table".to_owned()))?;
        let last = last_ply(self.from, self.moves.len());
        let mut game = Game::new(self.start.clone(), GameOptions::default());
        let mut positions = Vec::new();
        for ply in 0..=last {
            let played = if ply == 0 {
                None
            } else {
                let m = self.moves[ply - 1];
                let text = write_move(game.position(), m, self.notation, ChineseStyle::default())
                    .map_err(|e| ServerError::Internal(format!("a replayed move: {e}")))?;
                game.play(m)
                    .map_err(|e| ServerError::Internal(format!("a replayed move: {e}")))?;
                Some(text)
            };
            if ply < self.from {
                continue;
            }
            let mut p = self.search(&game, &table, ply);
            p.played = played;
            positions.push(p);
        }
        Ok(EvalAnswer {
            positions,
            next: (last < self.moves.len()).then_some(last + 1),
            nodes_per_position: EVAL_NODES,
        })
    }

    /// The evaluation of the game's current position (`ply` moves played).
    fn search(&self, game: &Game, table: &Table, ply: usize) -> PositionEval {
        let pos = game.position();
        let mut answer = PositionEval {
            ply,
            fen: pos.to_string(),
            played: None,
            eval: None,
            line: Vec::new(),
            line_text: Vec::new(),
            depth: 0,
            nodes: 0,
            outcome: game.status().outcome().cloned(),
            kingdoms: None,
            face_down: None,
        };
        if answer.outcome.is_some() {
            return answer;
        }
        table.new_search();
        let ctl = Control::default();
        let limits = Limits {
            nodes: Some(EVAL_NODES),
            movetime: Some(EVAL_TIME.as_millis() as u64),
            ..Limits::default()
        };
        let settings = Settings {
            no_capture_limit: game.options().no_capture_limit,
            ..Settings::default()
        };
        let mut searcher = Searcher::new(
            &self.start,
            &self.moves[..ply],
            table,
            &ctl,
            settings,
            limits,
        );
        let mut pv: Vec<Move> = Vec::new();
        let found = searcher.run(&mut |info| {
            if info.multipv == 1 && info.bound.is_none() {
                pv.clone_from(&info.pv);
            }
        });
        if pv.first() != found.best.as_ref() {
            pv = found.best.into_iter().collect();
        }
        pv.truncate(MAX_LINE);
        // the line's moves written one after the other on a copy of the position
        let mut walk = pos.clone();
        for m in &pv {
            let Ok(text) = write_move(&walk, *m, self.notation, ChineseStyle::default()) else {
                break;
            };
            if walk.play(*m).is_err() {
                break;
            }
            answer.line.push(m.to_string());
            answer.line_text.push(text);
        }
        let red = pos.side_to_move() == Color::Red;
        answer.eval = Some(match Score::from_internal(found.score) {
            Score::Cp(cp) => Eval::Cp(if red { cp } else { -cp }),
            Score::Mate(n) => Eval::Mate(if red { n } else { -n }),
        });
        answer.depth = found.depth;
        answer.nodes = found.nodes;
        answer
    }
}

/// A search score of the sanguo or banqi player (`WIN - n` for a win `n` plies deeper) as an
/// [`Eval`] of the same side's view: a win or loss in plies, else the units as they are.
fn game_score(score: i32) -> Eval {
    let win = chuhe_engine::kit::WIN;
    if score.abs() >= win - 200 {
        let plies = win - score.abs();
        Eval::Mate(if score > 0 {
            plies.max(1)
        } else {
            -plies.max(1)
        })
    } else {
        Eval::Cp(score)
    }
}

/// The lower-case name of a kingdom in the answers (`shu`, `wu`, `wei`).
fn kingdom_name(k: Kingdom) -> &'static str {
    match k {
        Kingdom::Shu => "shu",
        Kingdom::Wu => "wu",
        Kingdom::Wei => "wei",
    }
}

/// A checked sanguo request: the start, the moves (legal in turn) and the range.
struct SanguoJob {
    start: sanguo::Position,
    moves: Vec<sanguo::Move>,
    from: usize,
}

impl SanguoJob {
    fn read(request: &EvalRequest) -> Result<SanguoJob, ServerError> {
        let start = match request.fen.as_deref().map(str::trim) {
            None | Some("") => sanguo::Position::start(true),
            Some(text) => sanguo::Position::from_text(text)
                .map_err(|e| ServerError::BadMessage(format!("position: {e}")))?,
        };
        let mut game = sanguo::Game::new(start.clone());
        let mut moves = Vec::with_capacity(request.moves.len());
        for (i, text) in request.moves.iter().enumerate() {
            let ply = i + 1;
            let m: sanguo::Move = text
                .parse()
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            if game.status().outcome().is_some() {
                return Err(ServerError::IllegalMove(format!(
                    "{text} at ply {ply} (the game is over)"
                )));
            }
            game.play(m)
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            moves.push(m);
        }
        Ok(SanguoJob {
            start,
            moves,
            from: request.from,
        })
    }

    /// Replays the game and analyses each position of the range in turn.
    fn run(self) -> EvalAnswer {
        let last = last_ply(self.from, self.moves.len());
        let mut game = sanguo::Game::new(self.start.clone());
        let mut positions = Vec::new();
        for ply in 0..=last {
            let played = if ply == 0 {
                None
            } else {
                let m = self.moves[ply - 1];
                let text = game.position().move_text(m);
                if game.play(m).is_err() {
                    break;
                }
                Some(text)
            };
            if ply < self.from {
                continue;
            }
            let mut p = self.search(&game, ply);
            p.played = played;
            positions.push(p);
        }
        EvalAnswer {
            positions,
            next: (last < self.moves.len()).then_some(last + 1),
            nodes_per_position: EVAL_NODES,
        }
    }

    /// Each kingdom's evaluation of the game's current position (`ply` moves played): a third
    /// of the node and time budget each.
    fn search(&self, game: &sanguo::Game, ply: usize) -> PositionEval {
        let pos = game.position();
        let outcome = game.status().outcome().cloned();
        let mut answer = PositionEval {
            ply,
            fen: pos.to_string(),
            played: None,
            eval: None,
            line: Vec::new(),
            line_text: Vec::new(),
            depth: 0,
            nodes: 0,
            outcome,
            kingdoms: None,
            face_down: None,
        };
        if answer.outcome.is_some() {
            answer.kingdoms = Some(
                Kingdom::ALL
                    .into_iter()
                    .map(|k| KingdomEval {
                        kingdom: kingdom_name(k).to_owned(),
                        eval: None,
                        depth: 0,
                    })
                    .collect(),
            );
            return answer;
        }
        let problem = chuhe_engine::sanguo::Problem::replay(&self.start, &self.moves[..ply]);
        let found = chuhe_engine::sanguo::analyse(&problem, EVAL_NODES / 3, EVAL_TIME / 3);
        answer.kingdoms = Some(
            Kingdom::ALL
                .into_iter()
                .map(|k| KingdomEval {
                    kingdom: kingdom_name(k).to_owned(),
                    eval: (!pos.is_defeated(k)).then(|| game_score(found.scores[k.index()])),
                    depth: found.depths[k.index()],
                })
                .collect(),
        );
        let mut walk = pos.clone();
        for m in found.line.iter().take(MAX_LINE) {
            let text = walk.move_text(*m);
            if walk.play(*m).is_err() {
                break;
            }
            answer.line.push(text.clone());
            answer.line_text.push(text);
        }
        answer.depth = found.depths[pos.side_to_move().index()];
        answer.nodes = found.nodes;
        answer
    }
}

/// A checked banqi request: the start *view*, the recorded turns (legal in turn) and the range.
/// Only public information is here: nothing face down is known beyond the view's pool.
struct BanqiJob {
    start: View,
    records: Vec<Record>,
    from: usize,
    /// The time limit of each position's search ([`EVAL_TIME`]; the node budget usually ends
    /// it first).
    time: Duration,
}

impl BanqiJob {
    fn read(request: &EvalRequest) -> Result<BanqiJob, ServerError> {
        let start = match request.fen.as_deref().map(str::trim) {
            None | Some("") => View::start(),
            Some(text) => text
                .parse::<View>()
                .map_err(|e| ServerError::BadMessage(format!("position: {e}")))?,
        };
        let mut view = start.clone();
        let mut records = Vec::with_capacity(request.moves.len());
        for (i, text) in request.moves.iter().enumerate() {
            let ply = i + 1;
            let r: Record = text
                .parse()
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            if view.verdict().is_some() {
                return Err(ServerError::IllegalMove(format!(
                    "{text} at ply {ply} (the game is over)"
                )));
            }
            view.play_recorded(r)
                .map_err(|e| ServerError::IllegalMove(format!("{text} at ply {ply} ({e})")))?;
            records.push(r);
        }
        Ok(BanqiJob {
            start,
            records,
            from: request.from,
            time: EVAL_TIME,
        })
    }

    /// Replays the views and analyses each position of the range in turn.
    fn run(self) -> EvalAnswer {
        let last = last_ply(self.from, self.records.len());
        let mut positions = Vec::new();
        for ply in self.from..=last {
            let Ok(problem) =
                chuhe_engine::banqi::Problem::replay(&self.start, &self.records[..ply])
            else {
                break;
            };
            let mut p = search_view(&problem, self.time);
            p.ply = ply;
            p.played = ply.checked_sub(1).map(|i| self.records[i].to_string());
            positions.push(p);
        }
        EvalAnswer {
            positions,
            next: (last < self.records.len()).then_some(last + 1),
            nodes_per_position: EVAL_NODES,
        }
    }
}

/// The chances of the face-down squares of `view`: its pool spread uniformly over them.
pub fn face_down_chances(view: &View) -> FaceDown {
    let squares: Vec<String> = Square::all()
        .filter(|&sq| view.cell(sq) == Cell::FaceDown)
        .map(|sq| sq.to_string())
        .collect();
    let total = view.pool().len();
    let mut pieces: Vec<PieceChance> = view
        .pool()
        .iter()
        .map(|(piece, count)| PieceChance {
            piece: piece.to_string(),
            count: u32::from(count),
            probability: if total == 0 {
                0.0
            } else {
                f64::from(count) / total as f64
            },
        })
        .collect();
    // most likely first; the sort is stable, so equal chances keep the text's order
    pieces.sort_by_key(|c| std::cmp::Reverse(c.count));
    FaceDown { squares, pieces }
}

/// The analysis of a banqi problem's view (ply and move are the caller's).
fn search_view(problem: &chuhe_engine::banqi::Problem, time: Duration) -> PositionEval {
    let view = &problem.view;
    let mut answer = PositionEval {
        ply: 0,
        fen: view.to_string(),
        played: None,
        eval: None,
        line: Vec::new(),
        line_text: Vec::new(),
        depth: 0,
        nodes: 0,
        outcome: view.verdict(),
        kingdoms: None,
        face_down: Some(face_down_chances(view)),
    };
    if answer.outcome.is_some() {
        return answer;
    }
    let budget = chuhe_engine::levels::Budget::nodes(EVAL_NODES).capped(time);
    let found = chuhe_engine::banqi::analyse(problem, budget);
    let black = view.turn() == Some(Color::Black);
    let score = if black { -found.score } else { found.score };
    if let Some(best) = found.best {
        answer.eval = Some(game_score(score));
        answer.line.push(best.to_string());
        answer.line_text.push(best.to_string());
    }
    answer.depth = found.depth;
    answer.nodes = found.nodes;
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse;

    /// The client of the tests.
    const ME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1));

    fn request(fen: Option<&str>, moves: &[&str]) -> EvalRequest {
        EvalRequest {
            variant: None,
            fen: fen.map(str::to_owned),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            from: 0,
            notation: None,
        }
    }

    #[tokio::test]
    async fn a_mate_in_one_is_found_first_with_its_mate_score() {
        // Red's Chariot h0 to h9 mates: the Black General may not step to e9 (it would face
        // Red's on the open e-file) nor to d8 (the other Chariot holds rank 8)
        let semaphore = EvalSlots::new(1);
        let mut r = request(Some("3k5/1R7/9/9/9/9/9/9/9/4K2R1 w"), &[]);
        r.notation = Some("wxf".to_owned());
        let answer = evaluate_with(&semaphore, ME, r).await.unwrap();
        assert_eq!(answer.next, None);
        let p = &answer.positions[0];
        assert_eq!(p.line.first().map(String::as_str), Some("h0h9"));
        assert_eq!(p.line_text.first().map(String::as_str), Some("R2+9"));
        assert_eq!(p.eval, Some(Eval::Mate(1)));
        // the same with Black to mate: negative from Red's view
        let black = request(Some("4k2r1/9/9/9/9/9/9/9/1r7/3K5 b"), &[]);
        let answer = evaluate_with(&semaphore, ME, black).await.unwrap();
        let p = &answer.positions[0];
        assert_eq!(p.line.first().map(String::as_str), Some("h9h0"));
        assert_eq!(p.eval, Some(Eval::Mate(-1)));
    }

    #[tokio::test]
    async fn every_position_of_a_game_from_its_start_and_a_mated_end() {
        let semaphore = EvalSlots::new(1);
        // a mate in one played: the last position is over, with no line
        let answer = evaluate_with(
            &semaphore,
            ME,
            request(Some("3k5/1R7/9/9/9/9/9/9/9/4K2R1 w"), &["h0h9"]),
        )
        .await
        .unwrap();
        assert_eq!(answer.positions.len(), 2);
        let end = &answer.positions[1];
        assert_eq!(
            (end.ply, end.played.as_deref(), end.eval, end.line.len()),
            (1, Some("h0h9"), None, 0)
        );
        assert_eq!(
            end.outcome.as_ref().map(|o| o.reason.as_str()),
            Some("checkmate")
        );
        assert_eq!(end.fen, "3k3R1/1R7/9/9/9/9/9/9/9/4K4 b - - 1 1");
        // the start: about level, a few moves deep
        let answer = evaluate_with(&semaphore, ME, request(None, &["h2e2", "h9g7"]))
            .await
            .unwrap();
        let plies: Vec<usize> = answer.positions.iter().map(|p| p.ply).collect();
        assert_eq!(plies, [0, 1, 2]);
        let Some(Eval::Cp(cp)) = answer.positions[0].eval else {
            panic!("centipawns at the start");
        };
        assert!(cp.abs() < 100, "{cp}");
        assert!(answer.positions[0].depth >= 3);
        assert!(answer.positions[0].nodes <= EVAL_NODES + 10_000);
    }

    #[tokio::test]
    async fn a_long_game_comes_in_pages() {
        let semaphore = EvalSlots::new(1);
        // a real game (CCPD 8087) that Black wins by checkmate in 24 plies
        let game = "c3c4 g6g5 b0c2 h9g7 c2d4 h7h3 h0g2 b9c7 i3i4 c9e7 a0a1 d9e8 b2c2 a9d9 \
                    d4c6 g7f5 f0e1 f5e3 g2e3 h3e3 g0e2 b7b0 a1b1 d9d0";
        let moves: Vec<&str> = game.split_whitespace().collect();
        let mut r = request(None, &moves);
        let mut r2 = r.clone();
        let answer = evaluate_with(&semaphore, ME, r.clone()).await.unwrap();
        assert_eq!(answer.positions.len(), POSITIONS_PER_REQUEST);
        assert_eq!(answer.next, Some(POSITIONS_PER_REQUEST));
        r2.from = POSITIONS_PER_REQUEST;
        let rest = evaluate_with(&semaphore, ME, r2).await.unwrap();
        let plies: Vec<usize> = rest.positions.iter().map(|p| p.ply).collect();
        assert_eq!(plies, [20, 21, 22, 23, 24]);
        assert_eq!(rest.next, None);
        // before the mate, Black's mate is seen; after it, the game is over
        assert!(matches!(rest.positions[3].eval, Some(Eval::Mate(n)) if n < 0));
        let end = &rest.positions[4];
        assert_eq!((end.eval, end.played.as_deref()), (None, Some("d9d0")));
        r.from = 25;
        assert_eq!(
            evaluate_with(&semaphore, ME, r).await.unwrap_err(),
            ServerError::BadMessage("from 25 is beyond the last position (ply 24)".to_owned())
        );
    }

    #[tokio::test]
    async fn the_limits_are_refused_with_clear_messages() {
        let free = EvalSlots::new(1);
        let too_many = vec!["h2e2"; MAX_EVAL_MOVES + 1];
        assert_eq!(
            evaluate_with(&free, ME, request(None, &too_many))
                .await
                .unwrap_err(),
            ServerError::BadMessage("at most 300 moves, got 301".to_owned())
        );
        for (r, message) in [
            (request(Some("not a fen"), &[]), "bad message: fen: "),
            (request(None, &["e0e2"]), "illegal move: e0e2 at ply 1 ("),
            (request(None, &["zz"]), "illegal move: zz at ply 1 ("),
        ] {
            let e = evaluate_with(&free, ME, r).await.unwrap_err();
            assert!(e.to_string().starts_with(message), "{e}");
        }
        let mut r = request(None, &[]);
        r.notation = Some("san".to_owned());
        assert_eq!(
            evaluate_with(&free, ME, r).await.unwrap_err(),
            ServerError::BadMessage(r#"notation "san": use iccs, wxf or chinese"#.to_owned())
        );
    }

    #[tokio::test]
    async fn one_address_holds_one_slot_and_the_others_take_turns() {
        let slots = EvalSlots::with_wait(2, Duration::from_millis(300));
        let other = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 7));
        let third = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 9));
        // ME's first request runs; its second, sent meanwhile, is refused with a retry time
        let mine = slots.enter(ME).unwrap();
        let my_slot = slots.slot().await.unwrap();
        let refused = evaluate_with(&slots, ME, request(None, &[]))
            .await
            .unwrap_err();
        assert_eq!(
            refused,
            ServerError::TooManyRequests {
                retry_after_secs: 1
            }
        );
        assert_eq!(refused.status().as_u16(), 429);
        assert_eq!(
            refused.into_response().headers()["retry-after"],
            axum::http::HeaderValue::from(1u64)
        );
        // another address is served from the free slot
        let answer = evaluate_with(&slots, other, request(None, &["h2e2"]))
            .await
            .unwrap();
        assert_eq!(answer.positions.len(), 2);
        // both slots taken: a request waits its turn and is served when one comes free
        let theirs = slots.enter(other).unwrap();
        let their_slot = slots.slot().await.unwrap();
        let waiting = evaluate_with(&slots, third, request(None, &[]));
        let free_one = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(their_slot);
            drop(theirs);
        };
        let (answer, ()) = tokio::join!(waiting, free_one);
        assert_eq!(answer.unwrap().positions.len(), 1);
        // no slot comes free within the wait: 503 with a retry time
        let theirs = slots.enter(other).unwrap();
        let their_slot = slots.slot().await.unwrap();
        let busy = evaluate_with(&slots, third, request(None, &[]))
            .await
            .unwrap_err();
        assert_eq!(
            busy.to_string(),
            "the engine is busy with 2 analyses: try again in a few seconds"
        );
        assert_eq!(busy.status().as_u16(), 503);
        assert_eq!(
            busy.into_response().headers()["retry-after"],
            axum::http::HeaderValue::from(2u64)
        );
        // once ME's request ends, ME may ask again; the counts are gone with the requests
        drop((my_slot, mine, their_slot, theirs));
        assert!(evaluate_with(&slots, ME, request(None, &[])).await.is_ok());
        assert!(slots.clients.lock().unwrap().is_empty());
        assert_eq!(slots.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn the_queue_of_waiting_requests_is_bounded() {
        let slots = EvalSlots::with_wait(1, Duration::from_secs(5));
        let _held = slots.slot().await.unwrap();
        slots.waiting.store(MAX_WAITING_EVALS, Ordering::SeqCst);
        let started = std::time::Instant::now();
        let e = evaluate_with(&slots, ME, request(None, &[]))
            .await
            .unwrap_err();
        assert!(
            matches!(
                e,
                ServerError::Busy {
                    retry_after_secs: 2,
                    ..
                }
            ),
            "{e:?}"
        );
        // refused at once, not after the wait
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(slots.waiting.load(Ordering::SeqCst), MAX_WAITING_EVALS);
    }

    /// The sanguo start with Wu and Wei each one Chariot short: Shu is a Chariot up on both.
    const SHU_A_CHARIOT_UP: &str = "9/rP1rP1rP1rP1rP/1rC1rF1rF1rC1/9/rRrHrErArKrArErHrR,\
        9/gP1gP1gP1gP1gP/1gC1gF1gF1gC1/9/1gHgEgAgKgAgEgHgR,\
        9/bP1bP1bP1bP1bP/1bC1bF1bF1bC1/9/1bHbEbAbKbAbEbHbR R - - F 0";

    fn variant_request(variant: &str, fen: Option<&str>, moves: &[&str]) -> EvalRequest {
        let mut r = request(fen, moves);
        r.variant = Some(variant.to_owned());
        r
    }

    fn cp(e: Option<Eval>) -> i32 {
        match e {
            Some(Eval::Cp(cp)) => cp,
            other => panic!("centipawns, not {other:?}"),
        }
    }

    #[tokio::test]
    async fn each_kingdom_sees_the_chariot_from_its_own_side() {
        let slots = EvalSlots::new(1);
        let answer = evaluate_with(
            &slots,
            ME,
            variant_request("sanguo", Some(SHU_A_CHARIOT_UP), &[]),
        )
        .await
        .unwrap();
        let p = &answer.positions[0];
        assert_eq!(p.eval, None);
        let kingdoms = p.kingdoms.as_ref().expect("the kingdoms' evaluations");
        let names: Vec<&str> = kingdoms.iter().map(|k| k.kingdom.as_str()).collect();
        assert_eq!(names, ["shu", "wu", "wei"]);
        let [shu, wu, wei] = [0, 1, 2].map(|i| cp(kingdoms[i].eval));
        // Shu is a Chariot (900) up on each rival; each rival a Chariot down on Shu and even
        // with the other: statically +900 for Shu, -450 for Wu and Wei, and each rival's
        // paranoid search (both others against it) sees worse
        eprintln!("shu {shu} wu {wu} wei {wei}");
        assert!((500..=1500).contains(&shu), "shu {shu}");
        assert!((-1300..=-250).contains(&wu), "wu {wu}");
        assert!((-1300..=-250).contains(&wei), "wei {wei}");
        assert!(kingdoms.iter().all(|k| k.depth >= 1), "{kingdoms:?}");
        // Shu moves: its line starts with a Shu move, written as the game writes moves
        assert!(!p.line.is_empty());
        assert!(p.line[0].starts_with('R'), "{:?}", p.line);
        assert_eq!(p.line, p.line_text);
        assert!(p.nodes <= EVAL_NODES + 10_000, "{}", p.nodes);
        assert!(p.face_down.is_none());

        // the even start: no kingdom is a piece up, and each one's paranoid search (both
        // rivals against it) sees less than level; the move played is written as the game does
        let answer = evaluate_with(&slots, ME, variant_request("sanguo", None, &["Re4-Re5"]))
            .await
            .unwrap();
        assert_eq!(answer.positions.len(), 2);
        let evals: Vec<i32> = answer.positions[0]
            .kingdoms
            .as_ref()
            .unwrap()
            .iter()
            .map(|k| cp(k.eval))
            .collect();
        eprintln!("start {evals:?}");
        assert!(evals.iter().all(|v| (-900..=100).contains(v)), "{evals:?}");
        assert!(evals[0] < shu - 500, "{evals:?}");
        let after = &answer.positions[1];
        assert_eq!(after.played.as_deref(), Some("Re4-Re5"));
        assert!(after.line[0].starts_with('G'), "Wu moves: {:?}", after.line);
        // a move that is not legal is refused with its ply
        let e = evaluate_with(&slots, ME, variant_request("sanguo", None, &["Re1-Re9"]))
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("illegal move: Re1-Re9 at ply 1 ("),
            "{e}"
        );
    }

    /// A view with two face-down squares (a4, b4) over a Red Soldier and a Black Chariot, both
    /// Generals face up, Red to move.
    const TWO_DOWN: &str = "??K5/8/8/7k r Pr 0";

    #[tokio::test]
    async fn banqi_face_down_squares_are_the_pool_spread_evenly() {
        let slots = EvalSlots::new(1);
        let answer = evaluate_with(&slots, ME, variant_request("banqi", Some(TWO_DOWN), &[]))
            .await
            .unwrap();
        let p = &answer.positions[0];
        assert_eq!(p.fen, TWO_DOWN);
        let down = p.face_down.as_ref().expect("the face-down chances");
        assert_eq!(down.squares, ["a4", "b4"]);
        let chances: Vec<(&str, u32, f64)> = down
            .pieces
            .iter()
            .map(|c| (c.piece.as_str(), c.count, c.probability))
            .collect();
        assert_eq!(chances, [("P", 1, 0.5), ("r", 1, 0.5)]);
        assert!(p.eval.is_some());
        assert_eq!(p.line.len(), 1);
        assert!(p.kingdoms.is_none());

        // the start: 32 face down, a General 1/32, a Soldier 5/32, and the best turn a flip
        let answer = evaluate_with(&slots, ME, variant_request("banqi", None, &["c2=R"]))
            .await
            .unwrap();
        let start = answer.positions[0].face_down.as_ref().unwrap();
        assert_eq!(start.squares.len(), 32);
        assert_eq!(start.pieces[0].piece, "P");
        assert_eq!(start.pieces[0].probability, 5.0 / 32.0);
        assert_eq!(start.pieces.last().map(|c| c.count), Some(1));
        assert!(answer.positions[0].line[0].starts_with("flip "));
        let after = &answer.positions[1];
        assert_eq!(after.played.as_deref(), Some("c2=R"));
        let down = after.face_down.as_ref().unwrap();
        assert_eq!(down.squares.len(), 31);
        let red_chariot = down.pieces.iter().find(|c| c.piece == "R").unwrap();
        assert_eq!(
            (red_chariot.count, red_chariot.probability),
            (1, 1.0 / 31.0)
        );
    }

    #[tokio::test]
    async fn banqi_analysis_reads_the_view_and_never_a_truth() {
        use chuhe_rules::banqi::{Action, Game as BanqiGame, Truth};
        // two truths with the same view: the face-down a4 and b4 swapped
        let one: Truth = "(P)(r)K5/8/8/7k r - 0".parse().unwrap();
        let other: Truth = "(r)(P)K5/8/8/7k r - 0".parse().unwrap();
        assert_eq!(one.view(), other.view());
        let mut answers = Vec::new();
        for truth in [one, other] {
            let mut game = BanqiGame::new(truth);
            for action in ["c4-d4", "h1-g1", "d4-e4"] {
                let a: Action = action.parse().unwrap();
                game.play(a).unwrap();
            }
            let moves: Vec<String> = game.records().iter().map(ToString::to_string).collect();
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            let start = game.start_view().to_string();
            let r = variant_request("banqi", Some(&start), &moves);
            let Job::Banqi(mut job) = Job::read(&r).unwrap() else {
                panic!("a banqi job");
            };
            // a long time limit: the node budget alone ends each search, so two runs agree
            job.time = Duration::from_secs(3600);
            answers.push(job.run());
        }
        assert_eq!(answers[0], answers[1]);
        assert_eq!(answers[0].positions.len(), 4);
        let last = &answers[0].positions[3];
        assert_eq!(last.fen, "??2K3/8/8/6k1 b Pr 3");
        assert_eq!(last.face_down.as_ref().unwrap().pieces.len(), 2);
        // a truth's text (pinned squares) is not a view: refused
        let e = evaluate_with(
            &EvalSlots::new(1),
            ME,
            variant_request("banqi", Some("(P)(r)K5/8/8/7k r - 0"), &[]),
        )
        .await
        .unwrap_err();
        assert!(e.to_string().starts_with("bad message: position: "), "{e}");
        let e = evaluate_with(&EvalSlots::new(1), ME, variant_request("shogi", None, &[]))
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"bad message: variant "shogi": use xiangqi, sanguo or banqi"#
        );
    }
}
