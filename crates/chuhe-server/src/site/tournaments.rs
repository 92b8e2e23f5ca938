//! Arena tournaments as the site runs them (`docs/tournaments.md`, issue 28): the rules are
//! `chuhe-tournament`'s ([`Arena`]); here they are stored, timed and seated.
//!
//! - **Stored** after every event (a join, a withdrawal, a pairing wave, a result, the start,
//!   the end): the row of `tournaments` with the whole [`ArenaRecord`] as JSON and a version,
//!   and for each game handed out the table it is played at (`tournament_games`).
//! - **Timed** by one task ([`run`]): every [`crate::Settings::tournament_wave`] it starts the
//!   arenas due, pairs the free players of each running arena (one wave), and once an arena is
//!   past its end (`starts_ms` + `minutes`) pairs nobody, waits for the games in play and
//!   finishes it.
//! - **Seated**: each pair gets an ordinary table, started at once, seated as the arena paired
//!   them (Red first), with the arena's clock and rated flag; both players' event streams get
//!   `gameStart` (with `source: "arena"` and `tournamentId`). When the table's game ends, the
//!   site tells [`Tournaments::game_ended`], which reads its finished game (winner, plies) and
//!   records the result: the players are free for the next wave.
//! - **A restart** reads the arenas not finished ([`Tournaments::load`]): the games in play keep
//!   their tables, and the games that ended while the server was down are scored from the
//!   stored finished games.
//!
//! An aborted game (nobody moved in time) counts as a draw of no plies: 0 points for both.
//! Berserk: the tables of a `berserkable` arena take a seat's `berserk` before its first
//! move (`TableOptions::berserkable`); the finished game lists the berserk seats. A cluster does not run
//! tournaments yet (they need a lease of their own): creating one there is refused.

use crate::error::ServerError;
use crate::protocol::{FinishedGame, SeatPlayer, TableOptions, TimeControl};
use crate::site::{events, AppState, WeakState};
use crate::store::{now_ms, TournamentRow};
use crate::table::Person;
use crate::variant::Variant;
use chuhe_rules::outcome::EndReason;
use chuhe_tournament::arena::{Arena, ArenaSettings, GameEnd};
use chuhe_tournament::{GameId, PlayerId, PlayerResult, Presence, Side};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;
use tokio::sync::{watch, Mutex};

/// Shortest arena, minutes.
pub const MIN_MINUTES: i64 = 10;
/// Longest arena, minutes.
pub const MAX_MINUTES: i64 = 180;
/// Longest name, characters.
pub const MAX_NAME_CHARS: usize = 30;
/// Latest start, from now: 30 days, milliseconds.
pub const MAX_START_AHEAD_MS: i64 = 30 * 24 * 3600 * 1000;
/// Finished arenas listed by `GET /api/tournament`.
const FINISHED_LISTED: i64 = 20;

/// What a new arena is made of (`POST /api/tournament`), checked by [`Tournaments::create`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewArena {
    /// Its name, 2 to [`MAX_NAME_CHARS`] characters (letters, digits, spaces, `-_.,'`).
    pub name: String,
    /// A two-player game: xiangqi or banqi.
    pub variant: Variant,
    /// Each player's starting time, seconds (15 … 3600).
    pub clock_limit_s: i64,
    /// Added after each move, seconds (0 … 60).
    pub clock_increment_s: i64,
    /// How long pairings go on, minutes ([`MIN_MINUTES`] … [`MAX_MINUTES`]).
    pub minutes: i64,
    /// When it starts, milliseconds since the Unix epoch (from now to [`MAX_START_AHEAD_MS`]
    /// ahead; a time in the past starts it at the next wave).
    pub starts_ms: i64,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether players may go berserk.
    pub berserkable: bool,
}

/// Where an arena is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Before its start: players may join.
    Created,
    /// Pairing (or, past its end, waiting for its last games).
    Started,
    /// Over: the standings are final.
    Finished,
}

impl Status {
    /// The word stored in `tournaments.status`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Started => "started",
            Status::Finished => "finished",
        }
    }

    /// The status stored as `word`.
    pub fn of_str(word: &str) -> Option<Status> {
        match word {
            "created" => Some(Status::Created),
            "started" => Some(Status::Started),
            "finished" => Some(Status::Finished),
            _ => None,
        }
    }
}

/// What the server keeps of an arena beyond its row: the crate's state, the players' names and
/// each game's table. Stored as JSON in `tournaments.state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArenaRecord {
    /// The rules' state: players, sheets, games.
    pub arena: Arena,
    /// Each player's name when they joined, by id.
    pub names: BTreeMap<PlayerId, String>,
    /// The table of each game handed out.
    pub tables: BTreeMap<GameId, String>,
}

/// An arena in memory.
struct Running {
    row: TournamentRow,
    status: Status,
    record: ArenaRecord,
    version: i64,
    /// Game links not yet stored (a save that failed keeps them for the next).
    unsaved_links: Vec<(i64, String)>,
    /// The version, for the live streams.
    changed: watch::Sender<i64>,
}

impl Running {
    fn of_row(row: TournamentRow) -> Result<Running, ServerError> {
        let record: ArenaRecord = serde_json::from_str(&row.state).map_err(|e| {
            ServerError::Internal(format!("tournament {} does not read: {e}", row.id))
        })?;
        let status = Status::of_str(&row.status).ok_or_else(|| {
            ServerError::Internal(format!("tournament {} status {:?}", row.id, row.status))
        })?;
        let version = row.version;
        Ok(Running {
            row,
            status,
            record,
            version,
            unsaved_links: Vec::new(),
            changed: watch::channel(version).0,
        })
    }

    /// Stores the status and state at the next version and tells the live streams.
    async fn save(&mut self, state: &AppState) -> Result<(), ServerError> {
        let text = serde_json::to_string(&self.record)
            .map_err(|e| ServerError::Internal(format!("tournament state: {e}")))?;
        let version = self.version + 1;
        state
            .store()
            .save_tournament(
                &self.row.id,
                self.status.as_str(),
                text,
                version,
                self.unsaved_links.clone(),
            )
            .await?;
        self.version = version;
        self.unsaved_links.clear();
        self.changed.send_replace(version);
        Ok(())
    }

    fn ends_ms(&self, minute_ms: i64) -> i64 {
        self.row.starts_ms + self.row.minutes * minute_ms
    }

    fn variant(&self) -> Variant {
        self.row.variant.parse().unwrap_or(Variant::Xiangqi)
    }
}

#[derive(Default)]
struct Book {
    /// The arenas not finished, by id.
    map: HashMap<String, Running>,
    /// The tournament and game of each table in play.
    by_table: HashMap<String, (String, GameId)>,
}

/// The site's arenas: those not finished in memory, the finished ones read from the store.
#[derive(Default)]
pub struct Tournaments {
    book: Mutex<Book>,
    /// Wakes [`run`] when an arena appears: without arenas it keeps no timer, so a test on
    /// paused time is not pushed forward by its ticks.
    wake: std::sync::Arc<tokio::sync::Notify>,
}

/// How a finished game ends for the arena: the winner by seat (seat 0 is Red), its plies; an
/// aborted game is a draw of no plies.
pub fn end_of(game: &FinishedGame) -> GameEnd {
    let aborted = game.outcome.reason == EndReason::Aborted;
    let winner = match game.winner_seats.as_slice() {
        [seat] if !aborted && seat.index() == 0 => Some(Side::Red),
        [seat] if !aborted && seat.index() == 1 => Some(Side::Black),
        _ => None,
    };
    GameEnd {
        winner,
        plies: if aborted {
            0
        } else {
            u32::try_from(game.plies).unwrap_or(u32::MAX)
        },
        red_berserk: game.berserks.iter().any(|s| s.index() == 0),
        black_berserk: game.berserks.iter().any(|s| s.index() == 1),
    }
}

fn not_found(id: &str) -> ServerError {
    ServerError::NotFound(format!("no tournament {id:?}"))
}

/// Checks a new arena's settings.
///
/// # Errors
/// [`ServerError::BadMessage`] naming the first setting out of bounds.
pub fn check_new(spec: &NewArena, now: i64) -> Result<(), ServerError> {
    let bad = |why: String| Err(ServerError::BadMessage(why));
    let chars = spec.name.chars().count();
    if !(2..=MAX_NAME_CHARS).contains(&chars)
        || !spec
            .name
            .chars()
            .all(|c| c.is_alphanumeric() || " -_.,'".contains(c))
        || spec.name.trim() != spec.name
    {
        return bad(format!(
            "name: 2 to {MAX_NAME_CHARS} letters, digits, spaces and -_.,' without spaces around"
        ));
    }
    if spec.variant.seat_count() != 2 {
        return bad("variant: an arena is of xiangqi or banqi".to_owned());
    }
    if !(15..=3600).contains(&spec.clock_limit_s) {
        return bad("clockTime: 0.25 to 60 minutes".to_owned());
    }
    if !(0..=60).contains(&spec.clock_increment_s) {
        return bad("clockIncrement: 0 to 60 seconds".to_owned());
    }
    if !(MIN_MINUTES..=MAX_MINUTES).contains(&spec.minutes) {
        return bad(format!("minutes: {MIN_MINUTES} to {MAX_MINUTES}"));
    }
    if spec.starts_ms > now + MAX_START_AHEAD_MS {
        return bad("startDate: at most 30 days ahead".to_owned());
    }
    Ok(())
}

impl Tournaments {
    /// Creates an arena by `creator` (an account holder) and answers its id.
    ///
    /// # Errors
    /// [`ServerError::Unauthorized`] for a guest; [`ServerError::BadMessage`] for settings out
    /// of bounds ([`check_new`]); [`ServerError::NotAllowed`] on a cluster; the daily limit
    /// ([`crate::store::MAX_TOURNAMENTS_PER_DAY`]) and database failures from the store.
    pub async fn create(
        &self,
        state: &AppState,
        spec: NewArena,
        creator: &Person,
    ) -> Result<String, ServerError> {
        if !creator.account {
            return Err(ServerError::Unauthorized(
                "tournaments are for account holders".to_owned(),
            ));
        }
        if state.cluster().is_some() {
            return Err(ServerError::NotAllowed(
                "a cluster does not run tournaments yet".to_owned(),
            ));
        }
        let now = now_ms();
        check_new(&spec, now)?;
        let record = ArenaRecord {
            arena: Arena::new(ArenaSettings {
                berserkable: spec.berserkable,
                streaks: true,
            }),
            names: BTreeMap::new(),
            tables: BTreeMap::new(),
        };
        let text = serde_json::to_string(&record)
            .map_err(|e| ServerError::Internal(format!("tournament state: {e}")))?;
        let row = TournamentRow {
            id: crate::ids::random_id(8),
            kind: "arena".to_owned(),
            variant: spec.variant.as_str().to_owned(),
            name: spec.name,
            clock_limit_s: spec.clock_limit_s,
            clock_increment_s: spec.clock_increment_s,
            minutes: spec.minutes,
            starts_ms: spec.starts_ms.max(now),
            rated: spec.rated,
            berserkable: spec.berserkable,
            created_by: creator.id.clone(),
            status: Status::Created.as_str().to_owned(),
            state: text,
            version: 1,
            created_ms: now,
        };
        state.store().create_tournament(&row).await?;
        let id = row.id.clone();
        let running = Running::of_row(row)?;
        self.book.lock().await.map.insert(id.clone(), running);
        self.wake.notify_one();
        Ok(id)
    }

    /// `person` joins the arena `id`, or joins again after withdrawing (their score kept), with
    /// their rating in its variant.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an arena not running here; [`ServerError::Unauthorized`]
    /// for a guest; [`ServerError::NotAllowed`] once it is over; the store's failures.
    pub async fn join(
        &self,
        state: &AppState,
        id: &str,
        person: &Person,
    ) -> Result<(), ServerError> {
        if !person.account {
            return Err(ServerError::Unauthorized(
                "tournaments are for account holders".to_owned(),
            ));
        }
        let mut book = self.book.lock().await;
        let t = book.map.get_mut(id).ok_or_else(|| not_found(id))?;
        if t.status == Status::Finished {
            return Err(ServerError::NotAllowed("the tournament is over".to_owned()));
        }
        let rating = state
            .store()
            .rating(&person.id, t.variant().as_str())
            .await?
            .rating
            .rating
            .round() as i32;
        let before = t.record.clone();
        let who = PlayerId(person.id.clone());
        t.record.arena.join(who.clone(), rating);
        t.record.names.insert(who, person.name.clone());
        if let Err(e) = t.save(state).await {
            t.record = before;
            return Err(e);
        }
        Ok(())
    }

    /// `person` withdraws from the arena `id`: before the start they leave it; after, they
    /// are no longer paired and keep their score (a game in play goes on and counts).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an arena not running here; [`ServerError::NotAllowed`]
    /// for a player who did not join, or once it is over; the store's failures.
    pub async fn withdraw(
        &self,
        state: &AppState,
        id: &str,
        person: &Person,
    ) -> Result<(), ServerError> {
        let mut book = self.book.lock().await;
        let t = book.map.get_mut(id).ok_or_else(|| not_found(id))?;
        if t.status == Status::Finished {
            return Err(ServerError::NotAllowed("the tournament is over".to_owned()));
        }
        let before = t.record.clone();
        let who = PlayerId(person.id.clone());
        if t.status == Status::Created {
            if t.record.arena.players.remove(&who).is_none() {
                return Err(ServerError::NotAllowed(
                    "you have not joined this tournament".to_owned(),
                ));
            }
            t.record.names.remove(&who);
        } else {
            t.record.arena.withdraw(&who).map_err(|_| {
                ServerError::NotAllowed("you have not joined this tournament".to_owned())
            })?;
        }
        if let Err(e) = t.save(state).await {
            t.record = before;
            return Err(e);
        }
        Ok(())
    }

    /// One tick of the clock: starts the arenas due, pairs a wave in each running one, and
    /// finishes those past their end whose games are all over.
    pub async fn tick(&self, state: &AppState) {
        let minute_ms =
            i64::try_from(state.settings_ref().tournament_minute.as_millis()).unwrap_or(60_000);
        let mut book = self.book.lock().await;
        let Book { map, by_table } = &mut *book;
        let mut finished = Vec::new();
        for (id, t) in map.iter_mut() {
            let now = now_ms();
            if t.status == Status::Created && now >= t.row.starts_ms {
                t.status = Status::Started;
                if let Err(e) = t.save(state).await {
                    e.log();
                    t.status = Status::Created;
                    continue;
                }
                tracing::info!(tournament = %id, "arena started");
            }
            if t.status != Status::Started {
                continue;
            }
            if now >= t.ends_ms(minute_ms) {
                let playing = t.record.arena.players.values().any(|p| p.playing.is_some());
                if !playing {
                    t.status = Status::Finished;
                    match t.save(state).await {
                        Ok(()) => {
                            tracing::info!(tournament = %id, "arena finished");
                            finished.push(id.clone());
                        }
                        Err(e) => {
                            e.log();
                            t.status = Status::Started;
                        }
                    }
                }
                continue;
            }
            let games = t.record.arena.pair_wave();
            if games.is_empty() {
                continue;
            }
            let variant = t.variant();
            let options = TableOptions {
                variant,
                time: Some(TimeControl {
                    initial_ms: u64::try_from(t.row.clock_limit_s).unwrap_or(60) * 1000,
                    increment_ms: u64::try_from(t.row.clock_increment_s).unwrap_or(0) * 1000,
                }),
                rated: t.row.rated,
                no_capture_limit: None,
                flag_bearers: None,
                start_when_full: true,
                fen: None,
                tournament: Some(id.clone()),
                berserkable: t.row.berserkable,
            };
            for game in games {
                let mut seats = Vec::with_capacity(2);
                for p in [&game.red, &game.black] {
                    // a bot account is shown as BOT at its table
                    let bot = state.store().is_bot(&p.0).await.unwrap_or(false);
                    seats.push(Some(SeatPlayer::Person {
                        id: p.0.clone(),
                        name: t
                            .record
                            .names
                            .get(p)
                            .cloned()
                            .unwrap_or_else(|| p.0.clone()),
                        account: true,
                        bot,
                    }));
                }
                match state.create_started_table(options.clone(), seats).await {
                    Ok(handle) => {
                        let table = handle.id().to_owned();
                        t.record.tables.insert(game.id, table.clone());
                        t.unsaved_links.push((game.id.0 as i64, table.clone()));
                        by_table.insert(table, (id.clone(), game.id));
                        if let Ok(summary) = handle.summary().await {
                            announce_start(state, id, &summary).await;
                        }
                    }
                    Err(e) => {
                        // No table: the game is void (no points), the players free again.
                        e.log();
                        let void = GameEnd {
                            winner: None,
                            plies: 0,
                            red_berserk: false,
                            black_berserk: false,
                        };
                        let _ = t.record.arena.record_result(game.id, void);
                    }
                }
            }
            if let Err(e) = t.save(state).await {
                e.log();
            }
        }
        for id in finished {
            map.remove(&id);
        }
    }

    /// The game at the table `table_id` has ended: when it is an arena's, its result is
    /// recorded (from the stored finished game) and its players are free for the next wave.
    pub async fn game_ended(&self, state: &AppState, table_id: &str) {
        let mut book = self.book.lock().await;
        let Some((id, game)) = book.by_table.get(table_id).cloned() else {
            return;
        };
        let end = match state.store().finished_game(table_id).await {
            Ok(Some(f)) => end_of(&f),
            Ok(None) => {
                tracing::warn!(table = %table_id, "an arena game ended without a finished game");
                return;
            }
            Err(e) => {
                ServerError::from(e).log();
                return;
            }
        };
        book.by_table.remove(table_id);
        let Some(t) = book.map.get_mut(&id) else {
            return;
        };
        match t.record.arena.record_result(game, end) {
            Ok(_) => {
                if let Err(e) = t.save(state).await {
                    e.log();
                }
            }
            Err(e) => tracing::warn!(tournament = %id, error = %e, "arena result refused"),
        }
    }

    /// Reads the arenas not finished from the store (at start): the games in play keep their
    /// tables; those that ended meanwhile are scored from their finished games.
    ///
    /// # Errors
    /// A database failure (a stored arena that does not read is logged and left out).
    pub async fn load(&self, state: &AppState) -> Result<(), ServerError> {
        let rows = state.store().live_tournaments().await?;
        let mut book = self.book.lock().await;
        for row in rows {
            let mut t = match Running::of_row(row) {
                Ok(t) => t,
                Err(e) => {
                    e.log();
                    continue;
                }
            };
            let id = t.row.id.clone();
            for (game_no, table) in state.store().tournament_games(&id).await? {
                t.record
                    .tables
                    .insert(GameId(u64::try_from(game_no).unwrap_or(0)), table);
            }
            let open: Vec<GameId> = t
                .record
                .arena
                .games
                .values()
                .filter(|g| g.end.is_none())
                .map(|g| g.id)
                .collect();
            let mut scored = 0;
            for game in open {
                let end = match t.record.tables.get(&game) {
                    // Paired, but its table was never stored: void.
                    None => Some(GameEnd {
                        winner: None,
                        plies: 0,
                        red_berserk: false,
                        black_berserk: false,
                    }),
                    Some(table) => match state.store().finished_game(table).await? {
                        Some(f) => Some(end_of(&f)),
                        None => {
                            book.by_table.insert(table.clone(), (id.clone(), game));
                            None
                        }
                    },
                };
                if let Some(end) = end {
                    if t.record.arena.record_result(game, end).is_ok() {
                        scored += 1;
                    }
                }
            }
            if scored > 0 {
                t.save(state).await?;
            }
            tracing::info!(tournament = %id, results = scored, "arena brought back");
            book.map.insert(id, t);
        }
        if !book.map.is_empty() {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// A receiver of the version of the arena `id`, changed at every save (for the live
    /// stream); `None` when it is not running here (over, or unknown).
    pub async fn watch(&self, id: &str) -> Option<watch::Receiver<i64>> {
        self.book
            .lock()
            .await
            .map
            .get(id)
            .map(|t| t.changed.subscribe())
    }

    /// The arena `id` in lichess's shape (`GET /api/tournament/{id}`, `docs/protocol.md`).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id; a database failure.
    pub async fn view(&self, state: &AppState, id: &str) -> Result<Value, ServerError> {
        let minute_ms = minute_ms(state);
        {
            let book = self.book.lock().await;
            if let Some(t) = book.map.get(id) {
                return Ok(full_view(&t.row, t.status, &t.record, minute_ms));
            }
        }
        let row = state
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| not_found(id))?;
        let t = Running::of_row(row)?;
        Ok(full_view(&t.row, t.status, &t.record, minute_ms))
    }

    /// The arenas by status in lichess's shape (`GET /api/tournament`): `created`, `started`
    /// and the last finished ones.
    ///
    /// # Errors
    /// A database failure.
    pub async fn list(&self, state: &AppState) -> Result<Value, ServerError> {
        let minute_ms = minute_ms(state);
        let (mut created, mut started) = (Vec::new(), Vec::new());
        {
            let book = self.book.lock().await;
            let mut live: Vec<&Running> = book.map.values().collect();
            live.sort_by(|a, b| {
                a.row
                    .starts_ms
                    .cmp(&b.row.starts_ms)
                    .then(a.row.id.cmp(&b.row.id))
            });
            for t in live {
                let line = short_view(&t.row, t.status, &t.record, minute_ms);
                match t.status {
                    Status::Created => created.push(line),
                    _ => started.push(line),
                }
            }
        }
        let mut finished = Vec::new();
        for row in state.store().finished_tournaments(FINISHED_LISTED).await? {
            if let Ok(t) = Running::of_row(row) {
                finished.push(short_view(&t.row, t.status, &t.record, minute_ms));
            }
        }
        Ok(json!({"created": created, "started": started, "finished": finished}))
    }
}

fn minute_ms(state: &AppState) -> i64 {
    i64::try_from(state.settings_ref().tournament_minute.as_millis()).unwrap_or(60_000)
}

/// Tells both players of a new arena table: `gameStart`, as for any game, with lichess's
/// `source: "arena"` and the `tournamentId`.
async fn announce_start(state: &AppState, tournament: &str, table: &crate::protocol::TableSummary) {
    let bots = state.bots_at(table).await;
    for seat in table.seats.iter().flatten() {
        if let SeatPlayer::Person { id, .. } = seat {
            if let Some(mut game) = events::game_of(table, id, |p| bots.iter().any(|b| b == p)) {
                game["source"] = json!("arena");
                game["tournamentId"] = json!(tournament);
                let line = json!({"type": "gameStart", "game": game});
                state.player_events().push(id, &line);
            }
        }
    }
}

/// The lines shared by the list and the full view.
fn short_view(row: &TournamentRow, status: Status, record: &ArenaRecord, minute_ms: i64) -> Value {
    let finishes_ms = row.starts_ms + row.minutes * minute_ms;
    let code = match status {
        Status::Created => 10,
        Status::Started => 20,
        Status::Finished => 30,
    };
    let mut line = json!({
        "id": row.id,
        "createdBy": row.created_by,
        "system": "arena",
        "fullName": format!("{} Arena", row.name),
        "minutes": row.minutes,
        "clock": {"limit": row.clock_limit_s, "increment": row.clock_increment_s},
        "rated": row.rated,
        "berserkable": row.berserkable,
        "variant": {"key": row.variant, "short": events::variant_name(&row.variant), "name": events::variant_name(&row.variant)},
        "nbPlayers": record.arena.players.len(),
        "startsAt": row.starts_ms,
        "finishesAt": finishes_ms,
        "status": code,
    });
    // lichess's `winner` of a finished tournament: the first of the standings
    if status == Status::Finished {
        if let Some(first) = record.arena.standings().first() {
            let name = record
                .names
                .get(&first.id)
                .cloned()
                .unwrap_or_else(|| first.id.0.clone());
            line["winner"] = json!({"id": first.id.0, "name": name});
        }
    }
    line
}

/// `GET /api/tournament/{id}`: the settings, the countdown, the standings, the games in play
/// and, once over, the podium.
fn full_view(row: &TournamentRow, status: Status, record: &ArenaRecord, minute_ms: i64) -> Value {
    let now = now_ms();
    let finishes_ms = row.starts_ms + row.minutes * minute_ms;
    let name_of = |p: &PlayerId| record.names.get(p).cloned().unwrap_or_else(|| p.0.clone());
    let standings = record.arena.standings();
    let rank: HashMap<&PlayerId, u32> = standings.iter().map(|s| (&s.id, s.rank)).collect();
    let players: Vec<Value> = standings
        .iter()
        .map(|s| {
            let sheet = record.arena.players.get(&s.id).map(|p| &p.sheet);
            // lichess's sheet: each game's points as one digit, the latest first.
            let scores: String = sheet
                .map(|sh| sh.iter().rev().map(|g| g.points.to_string()).collect())
                .unwrap_or_default();
            let mut line = json!({
                "id": s.id.0,
                "name": name_of(&s.id),
                "rank": s.rank,
                "rating": s.rating,
                "score": s.score,
                "sheet": {"scores": scores, "fire": s.on_fire},
            });
            if s.presence != Presence::Active {
                line["withdraw"] = json!(true);
            }
            // chuhe's own: each game's result, oldest first (o: the opponent's name, r: win,
            // draw or loss, p: points, f: on fire, b: a berserk point in it)
            let results: Vec<Value> = sheet
                .map(|sh| {
                    sh.iter()
                        .map(|g| {
                            let r = match g.result {
                                PlayerResult::Win => "win",
                                PlayerResult::Draw => "draw",
                                PlayerResult::Loss => "loss",
                            };
                            json!({"o": name_of(&g.opponent), "r": r, "p": g.points, "f": g.on_fire, "b": g.berserk_point})
                        })
                        .collect()
                })
                .unwrap_or_default();
            line["results"] = json!(results);
            // the table of the player's game in play
            if let Some(table) = record
                .arena
                .players
                .get(&s.id)
                .and_then(|p| p.playing)
                .and_then(|g| record.tables.get(&g))
            {
                line["playing"] = json!(table);
            }
            line
        })
        .collect();
    let duels: Vec<Value> = record
        .arena
        .games
        .values()
        .filter(|g| g.end.is_none())
        .filter_map(|g| {
            let table = record.tables.get(&g.id)?;
            let side = |p: &PlayerId| {
                let rating = record.arena.players.get(p).map_or(0, |x| x.rating);
                json!({"n": name_of(p), "r": rating, "k": rank.get(p).copied().unwrap_or(0)})
            };
            Some(json!({"id": table, "p": [side(&g.red), side(&g.black)]}))
        })
        .collect();
    let mut view = short_view(row, status, record, minute_ms);
    view["variant"] = json!(row.variant);
    view["isStarted"] = json!(status == Status::Started);
    view["isFinished"] = json!(status == Status::Finished);
    match status {
        Status::Created => view["secondsToStart"] = json!(((row.starts_ms - now).max(0)) / 1000),
        Status::Started => view["secondsToFinish"] = json!(((finishes_ms - now).max(0)) / 1000),
        Status::Finished => {
            let podium: Vec<Value> = standings
                .iter()
                .take(3)
                .map(|s| {
                    let sheet = record
                        .arena
                        .players
                        .get(&s.id)
                        .map(|p| p.sheet.as_slice())
                        .unwrap_or(&[]);
                    let wins = sheet
                        .iter()
                        .filter(|g| g.result == PlayerResult::Win)
                        .count();
                    let berserks = sheet.iter().filter(|g| g.berserk_point).count();
                    json!({
                        "name": name_of(&s.id),
                        "rank": s.rank,
                        "rating": s.rating,
                        "score": s.score,
                        "nb": {"game": s.games, "berserk": berserks, "win": wins},
                        "performance": s.performance,
                    })
                })
                .collect();
            view["podium"] = json!(podium);
        }
    }
    view["standing"] = json!({"page": 1, "players": players});
    view["duels"] = json!(duels);
    view
}

/// Ticks [`Tournaments::tick`] every `Settings::tournament_wave` for as long as the server lives.
pub(crate) async fn run(state: WeakState) {
    let (every, wake, mut shutdown) = match state.upgrade() {
        // A zero period would spin.
        Some(s) => (
            s.settings_ref()
                .tournament_wave
                .max(Duration::from_millis(10)),
            s.tournaments().wake.clone(),
            s.shutdown_signal(),
        ),
        None => return,
    };
    loop {
        let idle = {
            let Some(s) = state.upgrade() else {
                return;
            };
            let idle = s.tournaments().book.lock().await.map.is_empty();
            idle
        };
        // No strong reference while waiting; without arenas, no timer either. The shutdown
        // signal's sender goes with the state, so a dropped state ends the wait too.
        if idle {
            tokio::select! {
                () = wake.notified() => {}
                _ = shutdown.changed() => return,
            }
        } else {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                _ = shutdown.changed() => return,
            }
        }
        let Some(s) = state.upgrade() else {
            return;
        };
        if s.is_shutting_down() {
            return;
        }
        s.tournaments().tick(&s).await;
    }
}
