//! Tournaments as the site runs them (`docs/tournaments.md`, issue 28): arenas of xiangqi and
//! banqi, sanguo arenas (three seats a table) and Swiss events. The rules are
//! `chuhe-tournament`'s ([`Arena`], [`SanguoArena`], [`chuhe_tournament::swiss::Swiss`]); here they are stored, timed and
//! seated.
//!
//! - **Stored** after every event (a join, a withdrawal, a pairing wave or round, a result, the
//!   start, the end): the row of `tournaments` (its `kind`: `arena`, `sanguo-arena` or `swiss`)
//!   with the whole record ([`ArenaRecord`], [`SanguoRecord`], [`SwissRecord`]) as JSON and a
//!   version, and for each game handed out the table it is played at (`tournament_games`).
//! - **Timed** by one task ([`run`]): every [`crate::Settings::tournament_wave`] it starts the
//!   events due; an arena pairs its free players (one wave) until its end (`starts_ms` +
//!   `minutes`), then waits for the games in play and finishes; a Swiss event pairs its next
//!   round once every game of the last one has ended and the round interval has passed, and
//!   finishes after its last round (or when no pairing is left).
//! - **Seated**: each game gets an ordinary table, started at once, seated as paired (Red
//!   first; sanguo: Shu, Wu, Wei), with the event's clock and rated flag; the players' event
//!   streams get `gameStart` (with `source` `arena` or `swiss` and the event's id). When the
//!   table's game ends, the site tells [`Tournaments::game_ended`], which reads its finished
//!   game (and, for sanguo, the order of the defeats) and records the result.
//! - **A restart** reads the events not finished ([`Tournaments::load`]): the games in play keep
//!   their tables, and the games that ended while the server was down are scored from the
//!   stored finished games.
//!
//! An aborted arena game (nobody moved in time) counts as a draw of no plies: 0 points for
//! both (sanguo: for all three). In a Swiss event the seat that did not play its first move
//! loses the game (lichess's Swiss). Berserk: the tables of a `berserkable` arena take a seat's
//! `berserk` before its first move (`TableOptions::berserkable`); the finished game lists the
//! berserk seats.
//!
//! **On a cluster** a tournament is owned like a table: one node runs it, its saves fenced by
//! the owner and epoch in its row and the node's lease (`migrations/0012`); every tick each
//! node takes over those whose owner's lease lapsed ([`Tournaments::tick`]). Another node
//! answers from the database and hands joins, withdrawals and the ends of games played on its
//! tables to the owner through `tournament_requests`, and tells the owner over NATS
//! (`{prefix}.tournaments`, [`crate::cluster`]): the owner applies that tournament's requests
//! at once (only them: no wave is paired early), and its tick takes any left (a message lost,
//! a save that failed). A request is removed in the transaction that saves its effect, so a
//! failed save loses none. The operator's schedules
//! ([`Schedule`]) create their events once, whichever node comes first.

mod sanguo;
mod schedule;
mod swiss;

pub use sanguo::{sanguo_end_of, SanguoRecord};
pub use schedule::{scheduled_id, Every, Planned, Schedule, ScheduleKind, Weekday, SYSTEM_CREATOR};
pub use swiss::{check_new_swiss, swiss_result_of, NewSwiss, SwissRecord};

use crate::error::ServerError;
use crate::protocol::{FinishedGame, SeatPlayer, TableOptions, TableSummary, TimeControl};
use crate::site::{events, AppState, WeakState};
use crate::store::{now_ms, StoreError, TournamentRequest, TournamentRow};
use crate::table::Person;
use crate::variant::Variant;
use chuhe_rules::outcome::EndReason;
use chuhe_tournament::arena::{Arena, ArenaSettings, GameEnd};
use chuhe_tournament::sanguo::{SanguoArena, SanguoEnd};
use chuhe_tournament::swiss::SwissResult;
use chuhe_tournament::{EventError, GameId, PlayerId, PlayerResult, Presence, Side};
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
/// Finished tournaments listed by `GET /api/tournament` and `GET /api/swiss`.
const FINISHED_LISTED: i64 = 20;

/// What a new arena is made of (`POST /api/tournament`), checked by [`Tournaments::create`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewArena {
    /// Its name, 2 to [`MAX_NAME_CHARS`] characters (letters, digits, spaces, `-_.,'`).
    pub name: String,
    /// Xiangqi or banqi (an arena), or sanguo (a sanguo arena: three players a table).
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
    /// Whether players may go berserk (ignored for sanguo, which has no berserk).
    pub berserkable: bool,
}

/// Where a tournament is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Before its start: players may join.
    Created,
    /// Pairing (or, past its end or last round, waiting for its last games).
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

/// The kind of a tournament (`tournaments.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A two-player arena (xiangqi, banqi).
    Arena,
    /// A sanguo arena: three players a table.
    SanguoArena,
    /// A Swiss event (xiangqi, banqi).
    Swiss,
}

impl Kind {
    /// The word stored in `tournaments.kind`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Arena => "arena",
            Kind::SanguoArena => "sanguo-arena",
            Kind::Swiss => "swiss",
        }
    }

    /// The kind stored as `word`.
    pub fn of_str(word: &str) -> Option<Kind> {
        match word {
            "arena" => Some(Kind::Arena),
            "sanguo-arena" => Some(Kind::SanguoArena),
            "swiss" => Some(Kind::Swiss),
            _ => None,
        }
    }

    /// Whether the routes under `/api/swiss` serve it (else those under `/api/tournament`).
    pub const fn is_swiss(self) -> bool {
        matches!(self, Kind::Swiss)
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

/// A tournament's record of any kind.
#[derive(Debug, Clone, PartialEq)]
enum Rules {
    Arena(ArenaRecord),
    Sanguo(SanguoRecord),
    Swiss(SwissRecord),
}

/// How a game of any kind ended, as its tournament's rules take it.
#[derive(Debug, Clone)]
enum Ending {
    Arena(GameEnd),
    Sanguo(SanguoEnd),
    Swiss(SwissResult),
}

/// A game a pairing handed out: its number and its players in seat order.
type Pairing = (GameId, Vec<PlayerId>);

/// What a tick does with a started tournament.
enum Next {
    /// Nothing now.
    Wait,
    /// It is over.
    Finish,
    /// Seat these games.
    Seat(Vec<Pairing>),
}

impl Rules {
    fn read(kind: Kind, text: &str) -> serde_json::Result<Rules> {
        Ok(match kind {
            Kind::Arena => Rules::Arena(serde_json::from_str(text)?),
            Kind::SanguoArena => Rules::Sanguo(serde_json::from_str(text)?),
            Kind::Swiss => Rules::Swiss(serde_json::from_str(text)?),
        })
    }

    fn text(&self) -> Result<String, ServerError> {
        match self {
            Rules::Arena(r) => serde_json::to_string(r),
            Rules::Sanguo(r) => serde_json::to_string(r),
            Rules::Swiss(r) => serde_json::to_string(r),
        }
        .map_err(|e| ServerError::Internal(format!("tournament state: {e}")))
    }

    fn names(&self) -> &BTreeMap<PlayerId, String> {
        match self {
            Rules::Arena(r) => &r.names,
            Rules::Sanguo(r) => &r.names,
            Rules::Swiss(r) => &r.names,
        }
    }

    fn names_mut(&mut self) -> &mut BTreeMap<PlayerId, String> {
        match self {
            Rules::Arena(r) => &mut r.names,
            Rules::Sanguo(r) => &mut r.names,
            Rules::Swiss(r) => &mut r.names,
        }
    }

    fn tables(&self) -> &BTreeMap<GameId, String> {
        match self {
            Rules::Arena(r) => &r.tables,
            Rules::Sanguo(r) => &r.tables,
            Rules::Swiss(r) => &r.tables,
        }
    }

    fn tables_mut(&mut self) -> &mut BTreeMap<GameId, String> {
        match self {
            Rules::Arena(r) => &mut r.tables,
            Rules::Sanguo(r) => &mut r.tables,
            Rules::Swiss(r) => &mut r.tables,
        }
    }

    fn nb_players(&self) -> usize {
        match self {
            Rules::Arena(r) => r.arena.players.len(),
            Rules::Sanguo(r) => r.arena.players.len(),
            Rules::Swiss(r) => r.swiss.players.len(),
        }
    }

    /// A player joins (or joins again).
    ///
    /// # Errors
    /// A Swiss event refuses a join after half its rounds ([`ServerError::NotAllowed`]).
    fn join(&mut self, who: PlayerId, rating: i32) -> Result<(), ServerError> {
        match self {
            Rules::Arena(r) => r.arena.join(who, rating),
            Rules::Sanguo(r) => r.arena.join(who, rating),
            Rules::Swiss(r) => r.swiss.join(who, rating).map_err(refusal)?,
        }
        Ok(())
    }

    /// A player leaves before the start; `false` when they had not joined.
    fn leave_before_start(&mut self, who: &PlayerId) -> bool {
        let gone = match self {
            Rules::Arena(r) => r.arena.players.remove(who).is_some(),
            Rules::Sanguo(r) => r.arena.players.remove(who).is_some(),
            Rules::Swiss(r) => r.swiss.players.remove(who).is_some(),
        };
        self.names_mut().remove(who);
        gone
    }

    fn withdraw(&mut self, who: &PlayerId) -> Result<(), EventError> {
        match self {
            Rules::Arena(r) => r.arena.withdraw(who),
            Rules::Sanguo(r) => r.arena.withdraw(who),
            Rules::Swiss(r) => r.swiss.withdraw(who),
        }
    }

    /// The games handed out without a result yet.
    fn open_games(&self) -> Vec<GameId> {
        match self {
            Rules::Arena(r) => r
                .arena
                .games
                .values()
                .filter(|g| g.end.is_none())
                .map(|g| g.id)
                .collect(),
            Rules::Sanguo(r) => r
                .arena
                .games
                .values()
                .filter(|g| g.end.is_none())
                .map(|g| g.id)
                .collect(),
            Rules::Swiss(r) => r
                .swiss
                .games
                .values()
                .filter(|g| g.result.is_none())
                .map(|g| g.id)
                .collect(),
        }
    }

    /// The result of a game whose table was never made: no points in an arena, a draw in a
    /// Swiss round (the round must end).
    fn void(&self) -> Ending {
        match self {
            Rules::Arena(_) => Ending::Arena(GameEnd {
                winner: None,
                plies: 0,
                red_berserk: false,
                black_berserk: false,
            }),
            Rules::Sanguo(_) => Ending::Sanguo(SanguoEnd {
                winners: Vec::new(),
                defeated: Vec::new(),
                plies: 0,
            }),
            Rules::Swiss(_) => Ending::Swiss(SwissResult::Draw),
        }
    }

    /// Records a game's result (a Swiss round that it completes notes the time).
    fn record(&mut self, game: GameId, end: Ending) -> Result<(), EventError> {
        match (self, end) {
            (Rules::Arena(r), Ending::Arena(end)) => r.arena.record_result(game, end).map(|_| ()),
            (Rules::Sanguo(r), Ending::Sanguo(end)) => r.arena.record_result(game, end).map(|_| ()),
            (Rules::Swiss(r), Ending::Swiss(result)) => r.record(game, result, now_ms()),
            _ => Err(EventError::BadResult(
                "a result of another kind of tournament",
            )),
        }
    }

    /// Whether a game is in play.
    fn anyone_playing(&self) -> bool {
        !self.open_games().is_empty()
    }

    /// The first of the standings.
    fn leader(&self) -> Option<PlayerId> {
        match self {
            Rules::Arena(r) => r.arena.standings().first().map(|s| s.id.clone()),
            Rules::Sanguo(r) => r.arena.standings().first().map(|s| s.id.clone()),
            Rules::Swiss(r) => r.swiss.standings().first().map(|s| s.id.clone()),
        }
    }

    /// What a tick does now with the started tournament (an arena past its end pairs nobody).
    fn next(&mut self, now: i64, starts_ms: i64, ends_ms: i64, minute_ms: i64) -> Next {
        match self {
            Rules::Arena(_) | Rules::Sanguo(_) if now >= ends_ms => {
                if self.anyone_playing() {
                    Next::Wait
                } else {
                    Next::Finish
                }
            }
            Rules::Arena(r) => Next::Seat(
                r.arena
                    .pair_wave()
                    .into_iter()
                    .map(|g| (g.id, vec![g.red, g.black]))
                    .collect(),
            ),
            Rules::Sanguo(r) => Next::Seat(
                r.arena
                    .pair_wave()
                    .into_iter()
                    .map(|g| (g.id, g.seats.to_vec()))
                    .collect(),
            ),
            Rules::Swiss(r) => r.next(now, starts_ms, minute_ms),
        }
    }
}

/// A refusal of the rules as the player reads it.
fn refusal(e: EventError) -> ServerError {
    match e {
        EventError::Round(why) => ServerError::NotAllowed(why.to_owned()),
        e => ServerError::NotAllowed(e.to_string()),
    }
}

/// A tournament in memory.
struct Running {
    row: TournamentRow,
    kind: Kind,
    status: Status,
    rules: Rules,
    version: i64,
    /// Game links not yet stored (a save that failed keeps them for the next).
    unsaved_links: Vec<(i64, String)>,
    /// On a cluster, the stored requests of other nodes whose effect the next save holds:
    /// removed in its transaction (see [`apply_requests`]).
    settled: Vec<String>,
    /// The version, for the live streams.
    changed: watch::Sender<i64>,
    /// On a cluster, this node's fencing number of the tournament (its saves are checked
    /// against it); `None` on a single server.
    epoch: Option<i64>,
    /// Set when a fenced save found another node owning it: dropped at the next tick.
    lost: bool,
    /// The pairing waves (or rounds) made here since it came to memory, and the last one.
    waves: u64,
    last_wave: Option<WaveTimes>,
}

/// What the last pairing wave took (in the full view's `wave`, chuhe's own field; not
/// stored).
#[derive(Debug, Clone, Copy, PartialEq)]
struct WaveTimes {
    /// When it was paired, milliseconds since the Unix epoch.
    at_ms: i64,
    /// The games it made.
    games: usize,
    /// The players it seated.
    players: usize,
    /// The rules' pairing, milliseconds.
    pairing_ms: f64,
    /// Making and starting the tables, and saving, milliseconds.
    seating_ms: f64,
}

impl Running {
    fn of_row(row: TournamentRow) -> Result<Running, ServerError> {
        let kind = Kind::of_str(&row.kind).ok_or_else(|| {
            ServerError::Internal(format!("tournament {} kind {:?}", row.id, row.kind))
        })?;
        let rules = Rules::read(kind, &row.state).map_err(|e| {
            ServerError::Internal(format!("tournament {} does not read: {e}", row.id))
        })?;
        let status = Status::of_str(&row.status).ok_or_else(|| {
            ServerError::Internal(format!("tournament {} status {:?}", row.id, row.status))
        })?;
        let version = row.version;
        Ok(Running {
            row,
            kind,
            status,
            rules,
            version,
            unsaved_links: Vec::new(),
            settled: Vec::new(),
            changed: watch::channel(version).0,
            epoch: None,
            lost: false,
            waves: 0,
            last_wave: None,
        })
    }

    /// Stores the status and state at the next version and tells the live streams.
    ///
    /// A save answered in doubt ([`StoreError::InDoubt`]: it may have been committed all the
    /// same) still uses its version: the store writes a state only over an older version, so
    /// the next save, at the version after, is stored over whatever that one left (at the
    /// same version it was silently not written, and the database kept the doubtful state).
    /// A save known not to be written leaves the version as it was. The games' links and the
    /// settled requests of a failed save stay for the next one (their writes are idempotent).
    async fn save(&mut self, state: &AppState) -> Result<(), ServerError> {
        let text = self.rules.text()?;
        let version = self.version + 1;
        let saved = match (state.cluster(), self.epoch) {
            (Some(cluster), Some(epoch)) => {
                state
                    .store()
                    .save_owned_tournament(
                        &self.row.id,
                        self.status.as_str(),
                        text,
                        version,
                        self.unsaved_links.clone(),
                        self.settled.clone(),
                        (cluster.key(), epoch),
                    )
                    .await
            }
            _ => state
                .store()
                .save_tournament(
                    &self.row.id,
                    self.status.as_str(),
                    text,
                    version,
                    self.unsaved_links.clone(),
                )
                .await
                .map(|()| true),
        };
        match saved {
            Ok(true) => {}
            Ok(false) => {
                self.lost = true;
                tracing::warn!(tournament = %self.row.id, "another node owns the tournament now");
                return Err(ServerError::NotAllowed(
                    "the tournament moved to another node: try again".to_owned(),
                ));
            }
            Err(e) => {
                if matches!(e, StoreError::InDoubt(_)) {
                    self.version = version;
                }
                return Err(e.into());
            }
        }
        self.version = version;
        self.unsaved_links.clear();
        self.settled.clear();
        self.changed.send_replace(version);
        Ok(())
    }

    fn ends_ms(&self, minute_ms: i64) -> i64 {
        self.row.starts_ms + self.row.minutes * minute_ms
    }

    fn variant(&self) -> Variant {
        self.row.variant.parse().unwrap_or(Variant::Xiangqi)
    }

    /// The options of each table of this tournament.
    fn table_options(&self) -> TableOptions {
        TableOptions {
            variant: self.variant(),
            time: Some(TimeControl {
                initial_ms: u64::try_from(self.row.clock_limit_s).unwrap_or(60) * 1000,
                increment_ms: u64::try_from(self.row.clock_increment_s).unwrap_or(0) * 1000,
            }),
            rated: self.row.rated,
            no_capture_limit: None,
            flag_bearers: None,
            start_when_full: true,
            fen: None,
            tournament: Some(self.row.id.clone()),
            berserkable: self.row.berserkable,
        }
    }
}

#[derive(Default)]
struct Book {
    /// The tournaments not finished, by id.
    map: HashMap<String, Running>,
    /// The tournament and game of each table in play.
    by_table: HashMap<String, (String, GameId)>,
}

/// The site's tournaments: those not finished in memory, the finished ones read from the
/// store.
#[derive(Default)]
pub struct Tournaments {
    book: Mutex<Book>,
    /// Wakes [`run`] when a tournament appears: without any it keeps no timer, so a test on
    /// paused time is not pushed forward by its ticks.
    wake: std::sync::Arc<tokio::sync::Notify>,
    /// The ids of scheduled events already created or found stored (no second look).
    scheduled_seen: Mutex<std::collections::HashSet<String>>,
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

/// How the game at `table` ended for a tournament of `kind`, from the store (`None` while it
/// has not ended).
///
/// # Errors
/// A database failure.
async fn ending_at(
    state: &AppState,
    kind: Kind,
    table: &str,
) -> Result<Option<Ending>, ServerError> {
    let Some(finished) = state.store().finished_game(table).await? else {
        return Ok(None);
    };
    Ok(Some(match kind {
        Kind::Arena => Ending::Arena(end_of(&finished)),
        Kind::SanguoArena => {
            let events = state.store().event_log(table).await?;
            Ending::Sanguo(sanguo_end_of(&finished, &events))
        }
        Kind::Swiss => Ending::Swiss(swiss_result_of(&finished)),
    }))
}

fn not_found(id: &str) -> ServerError {
    ServerError::NotFound(format!("no tournament {id:?}"))
}

/// Checks a name: 2 to [`MAX_NAME_CHARS`] letters, digits, spaces and `-_.,'`.
fn check_name(name: &str) -> Result<(), ServerError> {
    let chars = name.chars().count();
    if !(2..=MAX_NAME_CHARS).contains(&chars)
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || " -_.,'".contains(c))
        || name.trim() != name
    {
        return Err(ServerError::BadMessage(format!(
            "name: 2 to {MAX_NAME_CHARS} letters, digits, spaces and -_.,' without spaces around"
        )));
    }
    Ok(())
}

/// Checks a new arena's settings.
///
/// # Errors
/// [`ServerError::BadMessage`] naming the first setting out of bounds.
pub fn check_new(spec: &NewArena, now: i64) -> Result<(), ServerError> {
    let bad = |why: String| Err(ServerError::BadMessage(why));
    check_name(&spec.name)?;
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

/// The fields of a new tournament's row.
struct RowSpec {
    kind: Kind,
    variant: Variant,
    name: String,
    clock_limit_s: i64,
    clock_increment_s: i64,
    minutes: i64,
    starts_ms: i64,
    rated: bool,
    berserkable: bool,
}

impl Tournaments {
    /// Creates an arena (a sanguo arena for `variant` sanguo) by `creator` (an account holder)
    /// and answers its id.
    ///
    /// # Errors
    /// [`ServerError::Unauthorized`] for a guest; [`ServerError::BadMessage`] for settings out
    /// of bounds ([`check_new`]); the daily limit
    /// ([`crate::store::MAX_TOURNAMENTS_PER_DAY`]) and database failures from the store.
    pub async fn create(
        &self,
        state: &AppState,
        spec: NewArena,
        creator: &Person,
    ) -> Result<String, ServerError> {
        check_new(&spec, now_ms())?;
        let (row, rules) = arena_parts(spec);
        self.create_row(state, row, rules, creator).await
    }

    /// Creates a Swiss event by `creator` (an account holder) and answers its id.
    ///
    /// # Errors
    /// As [`Tournaments::create`], with [`check_new_swiss`]'s bounds.
    pub async fn create_swiss(
        &self,
        state: &AppState,
        spec: NewSwiss,
        creator: &Person,
    ) -> Result<String, ServerError> {
        check_new_swiss(&spec, now_ms())?;
        let (row, rules) = swiss_parts(spec);
        self.create_row(state, row, rules, creator).await
    }
}

/// The stored row of a new tournament `id` by `created_by`.
fn new_row(
    spec: RowSpec,
    rules: &Rules,
    id: String,
    created_by: &str,
) -> Result<TournamentRow, ServerError> {
    let now = now_ms();
    Ok(TournamentRow {
        id,
        kind: spec.kind.as_str().to_owned(),
        variant: spec.variant.as_str().to_owned(),
        name: spec.name,
        clock_limit_s: spec.clock_limit_s,
        clock_increment_s: spec.clock_increment_s,
        minutes: spec.minutes,
        starts_ms: spec.starts_ms.max(now),
        rated: spec.rated,
        berserkable: spec.berserkable,
        created_by: created_by.to_owned(),
        status: Status::Created.as_str().to_owned(),
        state: rules.text()?,
        version: 1,
        created_ms: now,
    })
}

/// The row and record of a new arena (a sanguo arena for `variant` sanguo).
fn arena_parts(spec: NewArena) -> (RowSpec, Rules) {
    {
        let sanguo = spec.variant == Variant::Sanguo;
        let rules = if sanguo {
            Rules::Sanguo(SanguoRecord {
                arena: SanguoArena::new(),
                names: BTreeMap::new(),
                tables: BTreeMap::new(),
            })
        } else {
            Rules::Arena(ArenaRecord {
                arena: Arena::new(ArenaSettings {
                    berserkable: spec.berserkable,
                    streaks: true,
                }),
                names: BTreeMap::new(),
                tables: BTreeMap::new(),
            })
        };
        let row = RowSpec {
            kind: if sanguo {
                Kind::SanguoArena
            } else {
                Kind::Arena
            },
            variant: spec.variant,
            name: spec.name,
            clock_limit_s: spec.clock_limit_s,
            clock_increment_s: spec.clock_increment_s,
            minutes: spec.minutes,
            starts_ms: spec.starts_ms,
            rated: spec.rated,
            berserkable: spec.berserkable && !sanguo,
        };
        (row, rules)
    }
}

/// The row and record of a new Swiss event.
fn swiss_parts(spec: NewSwiss) -> (RowSpec, Rules) {
    {
        let rules = Rules::Swiss(SwissRecord::new(&spec));
        let row = RowSpec {
            kind: Kind::Swiss,
            variant: spec.variant,
            name: spec.name,
            clock_limit_s: spec.clock_limit_s,
            clock_increment_s: spec.clock_increment_s,
            minutes: 0,
            starts_ms: spec.starts_ms,
            rated: spec.rated,
            berserkable: false,
        };
        (row, rules)
    }
}

impl Tournaments {
    async fn create_row(
        &self,
        state: &AppState,
        spec: RowSpec,
        rules: Rules,
        creator: &Person,
    ) -> Result<String, ServerError> {
        if !creator.account {
            return Err(ServerError::Unauthorized(
                "tournaments are for account holders".to_owned(),
            ));
        }
        let row = new_row(spec, &rules, crate::ids::random_id(8), &creator.id)?;
        state.store().create_tournament(&row).await?;
        let id = row.id.clone();
        self.run_new(state, row).await?;
        Ok(id)
    }

    /// Runs the tournament of the new `row` here; on a cluster, once this node holds it (a
    /// new row has no owner: the first to claim it runs it).
    async fn run_new(&self, state: &AppState, row: TournamentRow) -> Result<(), ServerError> {
        let mut running = Running::of_row(row)?;
        if let Some(cluster) = state.cluster() {
            match state
                .store()
                .claim_tournament(&running.row.id, (None, 0), cluster.key())
                .await?
            {
                Some(epoch) => running.epoch = Some(epoch),
                // another node's scan took it first: it runs there
                None => return Ok(()),
            }
        }
        let id = running.row.id.clone();
        self.book.lock().await.map.insert(id, running);
        self.wake.notify_one();
        Ok(())
    }

    /// Creates the events of the operator's schedules that start within their lead
    /// (`Settings::tournament_schedules`), each once: its id is the schedule's name and
    /// start ([`scheduled_id`]), so one already stored (by an earlier run, or another node)
    /// is left alone. Answers the ids created by this call.
    pub async fn create_scheduled(&self, state: &AppState) -> Vec<String> {
        let schedules = &state.settings_ref().tournament_schedules;
        if schedules.is_empty() {
            return Vec::new();
        }
        let now = now_ms();
        let mut made = Vec::new();
        for schedule in schedules {
            for starts_ms in schedule.starts_within(now) {
                let id = scheduled_id(&schedule.name, starts_ms);
                if !self.scheduled_seen.lock().await.insert(id.clone()) {
                    continue;
                }
                match self
                    .create_one_scheduled(state, schedule, starts_ms, &id)
                    .await
                {
                    Ok(true) => {
                        tracing::info!(tournament = %id, schedule = %schedule.name, starts_ms, "scheduled tournament created");
                        made.push(id);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        // tried again at the next tick
                        e.log();
                        self.scheduled_seen.lock().await.remove(&id);
                    }
                }
            }
        }
        made
    }

    /// Stores the event of `schedule` at `starts_ms` under `id` unless it is stored already;
    /// answers whether this call stored it (then it runs here).
    async fn create_one_scheduled(
        &self,
        state: &AppState,
        schedule: &Schedule,
        starts_ms: i64,
        id: &str,
    ) -> Result<bool, ServerError> {
        let planned = schedule.event(starts_ms).map_err(ServerError::BadMessage)?;
        let (spec, rules) = match planned {
            Planned::Arena(spec) => arena_parts(spec),
            Planned::Swiss(spec) => swiss_parts(spec),
        };
        let row = new_row(spec, &rules, id.to_owned(), SYSTEM_CREATOR)?;
        if !state.store().create_scheduled_tournament(&row).await? {
            return Ok(false);
        }
        self.run_new(state, row).await?;
        Ok(true)
    }

    /// The kind of the tournament `id` running here, or stored.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id; a database failure.
    pub async fn kind(&self, state: &AppState, id: &str) -> Result<Kind, ServerError> {
        if let Some(t) = self.book.lock().await.map.get(id) {
            return Ok(t.kind);
        }
        let row = state
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| not_found(id))?;
        Kind::of_str(&row.kind).ok_or_else(|| not_found(id))
    }

    /// `person` joins the tournament `id`, or joins again after withdrawing (their score
    /// kept), with their rating in its variant.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for a tournament not running here (on a cluster: an unknown
    /// one; another node's is handed to it); [`ServerError::Unauthorized`] for a guest;
    /// [`ServerError::NotAllowed`] once it is over, and in a Swiss event after half its rounds
    /// (`more than half the rounds have started`); the store's failures.
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
        let Some(t) = book.map.get_mut(id) else {
            drop(book);
            return self.ask_owner(state, id, person, Ask::Join).await;
        };
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
        let before = t.rules.clone();
        let who = PlayerId(person.id.clone());
        t.rules.join(who.clone(), rating)?;
        t.rules.names_mut().insert(who, person.name.clone());
        if let Err(e) = t.save(state).await {
            t.rules = before;
            return Err(e);
        }
        Ok(())
    }

    /// `person` withdraws from the tournament `id`: before the start they leave it; after,
    /// they are no longer paired and keep their score (a game in play goes on and counts).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for a tournament not running here (on a cluster: an unknown
    /// one; another node's is handed to it); [`ServerError::NotAllowed`] for a player who did
    /// not join, or once it is over; the store's failures.
    pub async fn withdraw(
        &self,
        state: &AppState,
        id: &str,
        person: &Person,
    ) -> Result<(), ServerError> {
        let mut book = self.book.lock().await;
        let Some(t) = book.map.get_mut(id) else {
            drop(book);
            return self.ask_owner(state, id, person, Ask::Withdraw).await;
        };
        if t.status == Status::Finished {
            return Err(ServerError::NotAllowed("the tournament is over".to_owned()));
        }
        let before = t.rules.clone();
        let who = PlayerId(person.id.clone());
        let not_joined =
            || ServerError::NotAllowed("you have not joined this tournament".to_owned());
        if t.status == Status::Created {
            if !t.rules.leave_before_start(&who) {
                return Err(not_joined());
            }
        } else {
            t.rules.withdraw(&who).map_err(|_| not_joined())?;
        }
        if let Err(e) = t.save(state).await {
            t.rules = before;
            return Err(e);
        }
        Ok(())
    }

    /// On a cluster, a join or withdrawal of a tournament another node runs: checked here
    /// against its stored state (the same refusals as the owner's), then handed to the owner
    /// through the store (`tournament_requests`), and the owner told at once over NATS: it
    /// applies the request within moments, or at its next tick when the message is lost.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown tournament, or on a single server one not
    /// running; the refusals of [`Tournaments::join`] and [`Tournaments::withdraw`].
    async fn ask_owner(
        &self,
        state: &AppState,
        id: &str,
        person: &Person,
        ask: Ask,
    ) -> Result<(), ServerError> {
        if state.cluster().is_none() {
            return Err(not_found(id));
        }
        let row = state
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| not_found(id))?;
        let mut t = Running::of_row(row)?;
        if t.status == Status::Finished {
            return Err(ServerError::NotAllowed("the tournament is over".to_owned()));
        }
        let who = PlayerId(person.id.clone());
        let (action, rating) = match ask {
            Ask::Join => {
                let rating = state
                    .store()
                    .rating(&person.id, t.variant().as_str())
                    .await?
                    .rating
                    .rating
                    .round() as i32;
                t.rules.join(who, rating)?;
                ("join", rating)
            }
            Ask::Withdraw => {
                let joined = if t.status == Status::Created {
                    t.rules.leave_before_start(&who)
                } else {
                    t.rules.withdraw(&who).is_ok()
                };
                if !joined {
                    return Err(ServerError::NotAllowed(
                        "you have not joined this tournament".to_owned(),
                    ));
                }
                ("withdraw", 0)
            }
        };
        state
            .store()
            .request_tournament(id, action, &person.id, &person.name, i64::from(rating))
            .await?;
        if let Some(cluster) = state.cluster() {
            cluster.tell_tournament_owner(id).await;
        }
        Ok(())
    }

    /// Applies what the other nodes asked of the tournaments this node runs (a cluster's
    /// joins, withdrawals and games ended elsewhere), and saves each one changed: the
    /// periodic safety net behind [`Tournaments::apply_requests_of`].
    async fn take_requests(&self, state: &AppState, book: &mut Book) {
        let ids: Vec<String> = book.map.keys().cloned().collect();
        for id in ids {
            apply_requests(state, book, &id).await;
        }
    }

    /// On a cluster, another node stored a request for the tournament `id` and said so over
    /// NATS: when this node runs it, its stored requests are applied and saved now, without
    /// the rest of a tick (no start, wave or end). Nothing happens for a tournament run
    /// elsewhere.
    pub(crate) async fn apply_requests_of(&self, state: &AppState, id: &str) {
        let mut book = self.book.lock().await;
        apply_requests(state, &mut book, id).await;
    }

    /// On a cluster, takes over the tournaments no live node runs (new ones nobody claimed,
    /// and those of a node whose lease lapsed), from their stored state.
    async fn adopt_orphans(&self, state: &AppState, book: &mut Book) {
        let Some(cluster) = state.cluster() else {
            return;
        };
        let orphans = match state.store().orphan_tournaments(16).await {
            Ok(orphans) => orphans,
            Err(e) => {
                ServerError::from(e).log();
                return;
            }
        };
        for (row, owner, epoch) in orphans {
            let id = row.id.clone();
            if book.map.contains_key(&id) {
                continue;
            }
            let claimed = state
                .store()
                .claim_tournament(&id, (owner.as_deref(), epoch), cluster.key())
                .await;
            let epoch = match claimed {
                Ok(Some(epoch)) => epoch,
                Ok(None) => continue,
                Err(e) => {
                    ServerError::from(e).log();
                    continue;
                }
            };
            // read again: the state may have moved between the scan and the claim
            let row = match state.store().tournament(&id).await {
                Ok(Some(row)) => row,
                Ok(None) => continue,
                Err(e) => {
                    ServerError::from(e).log();
                    continue;
                }
            };
            match bring_back(state, book, row, Some(epoch)).await {
                Ok(()) => {
                    tracing::info!(tournament = %id, node = %cluster.key(), previous = ?owner, "tournament taken over");
                }
                Err(e) => e.log(),
            }
        }
    }

    /// One tick of the clock: starts the tournaments due, pairs a wave in each running arena
    /// and the next round of each Swiss event that is due, and finishes those that are over.
    pub async fn tick(&self, state: &AppState) {
        self.create_scheduled(state).await;
        let minute_ms = minute_ms(state);
        let mut book = self.book.lock().await;
        if state.cluster().is_some() {
            self.adopt_orphans(state, &mut book).await;
            self.take_requests(state, &mut book).await;
        }
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
                tracing::info!(tournament = %id, kind = t.kind.as_str(), "tournament started");
            }
            if t.status != Status::Started {
                continue;
            }
            // a Swiss event notes why it ends: kept only if the end is stored (an arena's end
            // changes nothing but its status, and its state is not copied every tick)
            let before = matches!(t.rules, Rules::Swiss(_)).then(|| t.rules.clone());
            let ends_ms = t.ends_ms(minute_ms);
            let pairing = std::time::Instant::now();
            let next = t.rules.next(now, t.row.starts_ms, ends_ms, minute_ms);
            let pairing = pairing.elapsed();
            let games = match next {
                Next::Wait => continue,
                Next::Finish => {
                    t.status = Status::Finished;
                    match t.save(state).await {
                        Ok(()) => {
                            tracing::info!(tournament = %id, "tournament finished");
                            finished.push(id.clone());
                        }
                        Err(e) => {
                            e.log();
                            t.status = Status::Started;
                            if let Some(before) = before {
                                t.rules = before;
                            }
                        }
                    }
                    continue;
                }
                Next::Seat(games) if games.is_empty() => continue,
                Next::Seat(games) => games,
            };
            crate::telemetry::wave_paired(pairing);
            let seating = std::time::Instant::now();
            let (nb_games, nb_players): (usize, usize) =
                (games.len(), games.iter().map(|g| g.1.len()).sum());
            let options = t.table_options();
            for (game, players) in games {
                let mut seats = Vec::with_capacity(players.len());
                for p in &players {
                    // a bot account is shown as BOT at its table
                    let bot = state.store().is_bot(&p.0).await.unwrap_or(false);
                    seats.push(Some(SeatPlayer::Person {
                        id: p.0.clone(),
                        name: t
                            .rules
                            .names()
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
                        t.rules.tables_mut().insert(game, table.clone());
                        t.unsaved_links.push((game.0 as i64, table.clone()));
                        by_table.insert(table, (id.clone(), game));
                        if let Ok(summary) = handle.summary().await {
                            announce_start(state, t.kind, id, &summary).await;
                        }
                    }
                    Err(e) => {
                        // No table: the game is void, the players free again.
                        e.log();
                        let void = t.rules.void();
                        let _ = t.rules.record(game, void);
                    }
                }
            }
            if let Err(e) = t.save(state).await {
                e.log();
            }
            let times = WaveTimes {
                at_ms: now,
                games: nb_games,
                players: nb_players,
                pairing_ms: pairing.as_secs_f64() * 1000.0,
                seating_ms: seating.elapsed().as_secs_f64() * 1000.0,
            };
            t.waves += 1;
            t.last_wave = Some(times);
            tracing::info!(
                tournament = %id,
                games = times.games,
                players = times.players,
                pairing_ms = times.pairing_ms,
                seating_ms = times.seating_ms,
                "tournament wave paired"
            );
        }
        for (id, t) in map.iter() {
            if t.lost {
                finished.push(id.clone());
            }
        }
        for id in finished {
            map.remove(&id);
            by_table.retain(|_, (t, _)| *t != id);
        }
    }

    /// The game at the table `table_id` has ended: when it is a tournament's, its result is
    /// recorded (from the stored finished game) and its players are free for the next wave
    /// or round.
    pub async fn game_ended(&self, state: &AppState, table_id: &str) {
        let mut book = self.book.lock().await;
        if book.by_table.contains_key(table_id) {
            book_game_ended(state, &mut book, table_id).await;
            return;
        }
        drop(book);
        // On a cluster the tournament may run on another node: tell it through the store (and
        // NATS, so that it looks at once).
        if state.cluster().is_none() {
            return;
        }
        match state.store().tournament_of_table(table_id).await {
            Ok(Some(id)) => {
                match state
                    .store()
                    .request_tournament(&id, "ended", table_id, "", 0)
                    .await
                {
                    Ok(()) => {
                        if let Some(cluster) = state.cluster() {
                            cluster.tell_tournament_owner(&id).await;
                        }
                    }
                    Err(e) => ServerError::from(e).log(),
                }
            }
            Ok(None) => {}
            Err(e) => ServerError::from(e).log(),
        }
    }

    /// Reads the tournaments not finished from the store (at start): the games in play keep
    /// their tables; those that ended meanwhile are scored from their finished games.
    ///
    /// # Errors
    /// A database failure (a stored tournament that does not read is logged and left out).
    pub async fn load(&self, state: &AppState) -> Result<(), ServerError> {
        let rows = state.store().live_tournaments().await?;
        let mut book = self.book.lock().await;
        for row in rows {
            bring_back(state, &mut book, row, None).await?;
        }
        if !book.map.is_empty() {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// The stored version of the tournament `id` (changed at every save), for a live stream
    /// on a node that does not run it; `None` for an unknown id.
    ///
    /// # Errors
    /// A database failure.
    pub async fn stored_version(
        &self,
        state: &AppState,
        id: &str,
    ) -> Result<Option<i64>, ServerError> {
        if let Some(t) = self.book.lock().await.map.get(id) {
            return Ok(Some(t.version));
        }
        Ok(state.store().tournament_version(id).await?)
    }

    /// A receiver of the version of the tournament `id`, changed at every save (for the live
    /// stream); `None` when it is not running here (over, unknown, or run by another node).
    pub async fn watch(&self, id: &str) -> Option<watch::Receiver<i64>> {
        self.book
            .lock()
            .await
            .map
            .get(id)
            .map(|t| t.changed.subscribe())
    }

    /// The tournament `id` in lichess's shape (`GET /api/tournament/{id}`, or
    /// `GET /api/swiss/{id}` for a Swiss event; `docs/protocol.md`).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id; a database failure.
    pub async fn view(&self, state: &AppState, id: &str) -> Result<Value, ServerError> {
        let minute_ms = minute_ms(state);
        {
            let book = self.book.lock().await;
            if let Some(t) = book.map.get(id) {
                let mut view = full_view(&t.row, t.status, &t.rules, minute_ms);
                if let Some(w) = t.last_wave {
                    view["wave"] = json!({
                        "n": t.waves,
                        "at": w.at_ms,
                        "games": w.games,
                        "players": w.players,
                        "pairingMs": w.pairing_ms,
                        "seatingMs": w.seating_ms,
                    });
                }
                return Ok(view);
            }
        }
        let row = state
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| not_found(id))?;
        let t = Running::of_row(row)?;
        Ok(full_view(&t.row, t.status, &t.rules, minute_ms))
    }

    /// The tables of the Swiss event `id`'s games that have a result, by round, then board.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id or one that is not a Swiss event's; a
    /// database failure.
    pub async fn swiss_tables(
        &self,
        state: &AppState,
        id: &str,
    ) -> Result<Vec<String>, ServerError> {
        let of = |rules: &Rules| match rules {
            Rules::Swiss(r) => {
                let mut games: Vec<_> = r
                    .swiss
                    .games
                    .values()
                    .filter(|g| g.result.is_some())
                    .collect();
                games.sort_by_key(|g| (g.round, g.board));
                Some(
                    games
                        .iter()
                        .filter_map(|g| r.tables.get(&g.id).cloned())
                        .collect::<Vec<String>>(),
                )
            }
            _ => None,
        };
        self.read_rules(state, id, of).await
    }

    /// What `of` reads from the rules of tournament `id`: from the running book when it is
    /// there, else from its stored row.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id or when `of` answers `None`; a database
    /// failure.
    async fn read_rules<T>(
        &self,
        state: &AppState,
        id: &str,
        of: impl Fn(&Rules) -> Option<T>,
    ) -> Result<T, ServerError> {
        {
            let book = self.book.lock().await;
            if let Some(t) = book.map.get(id) {
                return of(&t.rules).ok_or_else(|| not_found(id));
            }
        }
        let row = state
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| not_found(id))?;
        let t = Running::of_row(row)?;
        of(&t.rules).ok_or_else(|| not_found(id))
    }

    /// The results of the Swiss event `id` in lichess's shape, the first `nb` players of its
    /// standings (`GET /api/swiss/{id}/results`; [`SwissRecord`]'s lines).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id or one that is not a Swiss event's; a
    /// database failure.
    pub async fn swiss_results(
        &self,
        state: &AppState,
        id: &str,
        nb: usize,
    ) -> Result<Vec<Value>, ServerError> {
        let of = |rules: &Rules| match rules {
            Rules::Swiss(r) => Some(r.results(nb)),
            _ => None,
        };
        self.read_rules(state, id, of).await
    }

    /// The tournaments by status in lichess's shape (`GET /api/tournament`: every kind;
    /// `GET /api/swiss` with `swiss_only`): `created`, `started` and the last finished ones.
    ///
    /// # Errors
    /// A database failure.
    pub async fn list(&self, state: &AppState, swiss_only: bool) -> Result<Value, ServerError> {
        let minute_ms = minute_ms(state);
        let (mut created, mut started) = (Vec::new(), Vec::new());
        // on a cluster, those other nodes run too, as last saved
        let mut elsewhere = Vec::new();
        if state.cluster().is_some() {
            for row in state.store().live_tournaments().await? {
                if let Ok(t) = Running::of_row(row) {
                    elsewhere.push(t);
                }
            }
        }
        {
            let book = self.book.lock().await;
            let mut live: Vec<&Running> = book
                .map
                .values()
                .filter(|t| !swiss_only || t.kind.is_swiss())
                .collect();
            live.extend(
                elsewhere
                    .iter()
                    .filter(|t| !book.map.contains_key(&t.row.id))
                    .filter(|t| !swiss_only || t.kind.is_swiss()),
            );
            live.sort_by(|a, b| {
                a.row
                    .starts_ms
                    .cmp(&b.row.starts_ms)
                    .then(a.row.id.cmp(&b.row.id))
            });
            for t in live {
                let line = short_view(&t.row, t.status, &t.rules, minute_ms);
                match t.status {
                    Status::Created => created.push(line),
                    _ => started.push(line),
                }
            }
        }
        let mut finished = Vec::new();
        let kind = swiss_only.then_some(Kind::Swiss.as_str());
        for row in state
            .store()
            .finished_tournaments(FINISHED_LISTED, kind)
            .await?
        {
            if let Ok(t) = Running::of_row(row) {
                finished.push(short_view(&t.row, t.status, &t.rules, minute_ms));
            }
        }
        Ok(json!({"created": created, "started": started, "finished": finished}))
    }
}

/// What a node asks of a tournament's owner.
#[derive(Debug, Clone, Copy)]
enum Ask {
    Join,
    Withdraw,
}

/// The game at `table_id`, a game in play of a tournament in `book`, has ended: its result is
/// recorded from the stored finished game and saved. A failed save keeps the result in memory
/// (the next save stores it; a node taking the tournament over scores it from the finished
/// game).
async fn book_game_ended(state: &AppState, book: &mut Book, table_id: &str) {
    let recorded = match record_end(state, book, table_id).await {
        Ok(Some((id, _))) => id,
        Ok(None) => return,
        Err(e) => {
            e.log();
            return;
        }
    };
    if let Some(t) = book.map.get_mut(&recorded) {
        if let Err(e) = t.save(state).await {
            e.log();
        }
    }
}

/// Records in memory the result of the game at `table_id`, a game in play of a tournament in
/// `book`, from its stored finished game, without saving. Answers the entry of `by_table` it
/// took (the tournament and the game), or `None` when nothing changed: no game in play there
/// (already recorded: recording an end twice changes nothing), no finished game stored, or
/// a result the rules refuse.
///
/// # Errors
/// The finished game could not be read.
async fn record_end(
    state: &AppState,
    book: &mut Book,
    table_id: &str,
) -> Result<Option<(String, GameId)>, ServerError> {
    let Some((id, game)) = book.by_table.get(table_id).cloned() else {
        return Ok(None);
    };
    let Some(kind) = book.map.get(&id).map(|t| t.kind) else {
        book.by_table.remove(table_id);
        return Ok(None);
    };
    let Some(end) = ending_at(state, kind, table_id).await? else {
        tracing::warn!(table = %table_id, "a tournament game ended without a finished game");
        return Ok(None);
    };
    book.by_table.remove(table_id);
    let Some(t) = book.map.get_mut(&id) else {
        return Ok(None);
    };
    match t.rules.record(game, end) {
        Ok(()) => Ok(Some((id, game))),
        Err(e) => {
            tracing::warn!(tournament = %id, error = %e, "tournament result refused");
            Ok(None)
        }
    }
}

/// Applies the requests other nodes stored for the tournament `id` (`tournament_requests`),
/// when it runs here, oldest first, and saves their effect in one save that also removes
/// them: a request is removed exactly when its effect is stored. When the save fails (the
/// database away, the fence lost) the tournament is put back as it was and every request
/// stays for the next try (the next announcement, or the next tick); the same when a finished
/// game cannot be read (that request and the later ones wait). Requests that change nothing
/// (refused, e.g. a withdrawal of a player who is not in, or after the end) are removed with
/// the others, or alone when nothing changed.
///
/// Applying a request again would do no harm, should it ever happen: a join of a player
/// already in only makes them active again (their score kept, as a join after a
/// withdrawal), a withdrawal of a withdrawn player is refused, and the end of a game already
/// recorded is found without a game in play and ignored.
async fn apply_requests(state: &AppState, book: &mut Book, id: &str) {
    let Some(t) = book.map.get(id) else {
        return;
    };
    if t.lost {
        return;
    }
    let asked = match state.store().tournament_requests(id).await {
        Ok(asked) => asked,
        Err(e) => {
            ServerError::from(e).log();
            return;
        }
    };
    if asked.is_empty() {
        return;
    }
    let Some(before) = book.map.get(id).map(|t| t.rules.clone()) else {
        return;
    };
    let mut seen = Vec::with_capacity(asked.len());
    let mut changed = false;
    let mut taken = Vec::new();
    for request in asked {
        let ours = book
            .by_table
            .get(&request.subject)
            .is_some_and(|(t, _)| t == id);
        let done = match request.action.as_str() {
            // a table of another tournament (or none in play) is not this one's to record
            "ended" if !ours => false,
            "ended" => match record_end(state, book, &request.subject).await {
                Ok(Some(entry)) => {
                    taken.push((request.subject.clone(), entry));
                    true
                }
                Ok(None) => false,
                Err(e) => {
                    // this one and the later ones wait for the next try
                    e.log();
                    break;
                }
            },
            "join" | "withdraw" => match book.map.get_mut(id) {
                Some(t) => apply_player(t, &request),
                None => break,
            },
            _ => false,
        };
        changed |= done;
        seen.push(request.id);
    }
    if seen.is_empty() {
        return;
    }
    if !changed {
        if let Err(e) = state.store().drop_tournament_requests(id, &seen).await {
            ServerError::from(e).log();
        }
        return;
    }
    let Some(t) = book.map.get_mut(id) else {
        return;
    };
    t.settled = seen;
    if let Err(e) = t.save(state).await {
        e.log();
        t.rules = before;
        t.settled.clear();
        for (table, entry) in taken {
            book.by_table.insert(table, entry);
        }
    }
}

/// Applies another node's join or withdrawal to `t` (in memory); `false` when the rules
/// refuse it (nothing changed).
fn apply_player(t: &mut Running, request: &TournamentRequest) -> bool {
    if t.status == Status::Finished {
        return false;
    }
    let who = PlayerId(request.subject.clone());
    if request.action == "join" {
        let rating = i32::try_from(request.rating).unwrap_or(1500);
        if t.rules.join(who.clone(), rating).is_err() {
            return false;
        }
        t.rules.names_mut().insert(who, request.name.clone());
        true
    } else if t.status == Status::Created {
        t.rules.leave_before_start(&who)
    } else {
        t.rules.withdraw(&who).is_ok()
    }
}

/// Takes up the stored tournament `row` here (at start, or a takeover on a cluster with this
/// node's `epoch`): the games in play keep their tables; those that ended meanwhile are scored
/// from their finished games, and a pairing whose table was never stored is void.
///
/// # Errors
/// A database failure (a stored tournament that does not read is logged and left out).
async fn bring_back(
    state: &AppState,
    book: &mut Book,
    row: TournamentRow,
    epoch: Option<i64>,
) -> Result<(), ServerError> {
    let mut t = match Running::of_row(row) {
        Ok(t) => t,
        Err(e) => {
            e.log();
            return Ok(());
        }
    };
    t.epoch = epoch;
    let id = t.row.id.clone();
    for (game_no, table) in state.store().tournament_games(&id).await? {
        t.rules
            .tables_mut()
            .insert(GameId(u64::try_from(game_no).unwrap_or(0)), table);
    }
    let mut scored = 0;
    for game in t.rules.open_games() {
        let end = match t.rules.tables().get(&game).cloned() {
            // Paired, but its table was never stored: void.
            None => Some(t.rules.void()),
            Some(table) => match ending_at(state, t.kind, &table).await? {
                Some(end) => Some(end),
                None => {
                    book.by_table.insert(table, (id.clone(), game));
                    None
                }
            },
        };
        if let Some(end) = end {
            if t.rules.record(game, end).is_ok() {
                scored += 1;
            }
        }
    }
    if scored > 0 {
        t.save(state).await?;
    }
    tracing::info!(tournament = %id, results = scored, "tournament brought back");
    book.map.insert(id, t);
    Ok(())
}

fn minute_ms(state: &AppState) -> i64 {
    i64::try_from(state.settings_ref().tournament_minute.as_millis()).unwrap_or(60_000)
}

/// Tells the players of a new tournament table: `gameStart`, as for any game, with lichess's
/// `source` (`arena` or `swiss`) and the event's id (`tournamentId`, or `swissId`). A sanguo
/// table's line names the player's kingdom and the two others.
async fn announce_start(state: &AppState, kind: Kind, tournament: &str, table: &TableSummary) {
    let bots = state.bots_at(table).await;
    for seat in table.seats.iter().flatten() {
        if let SeatPlayer::Person { id, .. } = seat {
            let game = match kind {
                Kind::SanguoArena => sanguo::game_start(table, id),
                _ => events::game_of(table, id, |p| bots.iter().any(|b| b == p)),
            };
            if let Some(mut game) = game {
                if kind.is_swiss() {
                    game["source"] = json!("swiss");
                    game["swissId"] = json!(tournament);
                } else {
                    game["source"] = json!("arena");
                    game["tournamentId"] = json!(tournament);
                }
                let line = json!({"type": "gameStart", "game": game});
                // on a cluster, the line reaches the player's streams on every node
                state.player_events().push(id, &line);
            }
        }
    }
}

/// The lines shared by the list and the full view.
fn short_view(row: &TournamentRow, status: Status, rules: &Rules, minute_ms: i64) -> Value {
    let finishes_ms = row.starts_ms + row.minutes * minute_ms;
    let code = match status {
        Status::Created => 10,
        Status::Started => 20,
        Status::Finished => 30,
    };
    let swiss = matches!(rules, Rules::Swiss(_));
    let mut line = json!({
        "id": row.id,
        "createdBy": row.created_by,
        "system": if swiss { "swiss" } else { "arena" },
        "fullName": if swiss { row.name.clone() } else { format!("{} Arena", row.name) },
        "clock": {"limit": row.clock_limit_s, "increment": row.clock_increment_s},
        "rated": row.rated,
        "variant": {"key": row.variant, "short": events::variant_name(&row.variant), "name": events::variant_name(&row.variant)},
        "nbPlayers": rules.nb_players(),
        "startsAt": row.starts_ms,
        "status": code,
    });
    if let Rules::Swiss(r) = rules {
        line["name"] = json!(row.name);
        line["round"] = json!(r.swiss.rounds_paired);
        line["nbRounds"] = json!(r.swiss.settings.rounds);
    } else {
        line["minutes"] = json!(row.minutes);
        line["berserkable"] = json!(row.berserkable);
        line["finishesAt"] = json!(finishes_ms);
    }
    // lichess's `winner` of a finished tournament: the first of the standings
    if status == Status::Finished {
        if let Some(first) = rules.leader() {
            let name = rules
                .names()
                .get(&first)
                .cloned()
                .unwrap_or_else(|| first.0.clone());
            line["winner"] = json!({"id": first.0, "name": name});
        }
    }
    line
}

/// `GET /api/tournament/{id}` (`GET /api/swiss/{id}`): the settings, the countdown, the
/// standings, the games in play and, once over, the podium.
fn full_view(row: &TournamentRow, status: Status, rules: &Rules, minute_ms: i64) -> Value {
    let mut view = short_view(row, status, rules, minute_ms);
    view["variant"] = json!(row.variant);
    view["isStarted"] = json!(status == Status::Started);
    view["isFinished"] = json!(status == Status::Finished);
    match rules {
        Rules::Arena(r) => arena_view(&mut view, row, status, r, minute_ms),
        Rules::Sanguo(r) => sanguo::view(&mut view, row, status, r, minute_ms),
        Rules::Swiss(r) => r.view(&mut view, row, status, minute_ms),
    }
    view
}

/// The arena's part of [`full_view`].
fn arena_view(
    view: &mut Value,
    row: &TournamentRow,
    status: Status,
    record: &ArenaRecord,
    minute_ms: i64,
) {
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
            let idle = s.tournaments().book.lock().await.map.is_empty()
                && s.settings_ref().tournament_schedules.is_empty()
                && s.cluster().is_none();
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
