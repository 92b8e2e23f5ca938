//! The wire protocol, written once: every HTTP body and WebSocket message as a serde type.
//! `docs/protocol.md` documents each one with its units; `tests/data/protocol/*.json` holds
//! fixtures that the Rust tests (and the web client's tests) parse.
//!
//! Units: durations are integer milliseconds (`*_ms`), versions count table events from 1,
//! seats are indices from 0 in the variant's move order ([`Seat`]).

pub use crate::variant::Seat;
mod state;

use crate::variant::Variant;
use chuhe_rules::outcome::{EndReason, Outcome};
use serde::{Deserialize, Serialize};
pub use state::{pack_moves, unpack_moves, PackedMoves, State, Update, UpdateError};
use std::sync::Arc;

/// Longest accepted WebSocket text message, in bytes; a longer one is refused with `too_large`.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// A time control: initial time and increment per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// Each seat's starting time, milliseconds (1 000 … 10 800 000).
    pub initial_ms: u64,
    /// Time added after each of the seat's moves, milliseconds (0 … 600 000).
    pub increment_ms: u64,
}

/// What a table is created with (`POST /api/tables`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TableOptions {
    /// The game.
    pub variant: Variant,
    /// The time control; `null` for untimed play.
    #[serde(default)]
    pub time: Option<TimeControl>,
    /// Whether the result counts for ratings.
    #[serde(default)]
    pub rated: bool,
    /// Xiangqi: plies without capture before a draw; 0 turns the rule off; default 120.
    #[serde(default)]
    pub no_capture_limit: Option<u16>,
    /// Sanguo: whether the flag-bearer rule is on; default on.
    #[serde(default)]
    pub flag_bearers: Option<bool>,
    /// Whether the game starts by itself as soon as the last seat is taken (no `start`
    /// message); default `false`. A table created with its creator seated
    /// (`POST /api/tables?seat=...`) always has it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub start_when_full: bool,
    /// Xiangqi: the position the game starts from, as a FEN (`spec/xiangqi.md` §5.2; Black may
    /// be to move), e.g. one set up in the web client's board editor; `null` or absent: the
    /// standard start. The table stores it normalised (the standard start is stored as
    /// `null`); a game from a set-up position is never rated (as on lichess), and its PGN
    /// carries the position in its `FEN` tag. A FEN that does not read, a position that breaks
    /// a rule of `spec/xiangqi.md` §5.2, or one where the game is already over is refused
    /// (`bad_message`, `fen: ...` with every reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// The arena tournament this table's game belongs to (its id), set by the server when an
    /// arena pairs two players; absent for other tables (`POST /api/tables` refuses it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// Whether a seat may go berserk (`berserk`) before its first move: a game of an arena
    /// created `berserkable`; absent counts as `false` (`POST /api/tables` refuses `true`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub berserkable: bool,
}

/// The phase of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Waiting for players; seats can be taken and left.
    Open,
    /// The game is being played.
    Running,
    /// The game is over (or was aborted).
    Ended,
}

impl Phase {
    /// The lower-case wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::Running => "running",
            Phase::Ended => "ended",
        }
    }
}

/// Who sits in a seat, as everyone may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SeatPlayer {
    /// A person (guest or account holder).
    Person {
        /// The player's id (public; not a credential).
        id: String,
        /// The display name.
        name: String,
        /// Whether the player has an account (else a guest).
        account: bool,
        /// Whether the account is a bot (lichess's `BOT` title, `docs/bots.md`): shown as BOT
        /// beside the name. Absent counts as `false` (and is left out when `false`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
    },
    /// The computer at a level from 1 (weakest) to 8.
    Computer {
        /// Strength, 1 … [`MAX_COMPUTER_LEVEL`].
        level: u8,
    },
}

/// A table as listed and as sent in every state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TableSummary {
    /// The table's id.
    pub id: String,
    /// The options the table was created with.
    pub options: TableOptions,
    /// The phase.
    pub phase: Phase,
    /// One entry per seat in move order; `null` for an empty seat.
    pub seats: Vec<Option<SeatPlayer>>,
    /// The current version (the number of events so far).
    pub version: u64,
}

impl TableSummary {
    /// Whether the lobby lists the table: a running game, or an open table with a person
    /// seated (a seek). An open table nobody sits at any more, its creator gone, is withdrawn
    /// at once (as lichess drops a seek when its creator leaves); its link still works.
    pub fn is_listed(&self) -> bool {
        match self.phase {
            Phase::Running => true,
            Phase::Ended => false,
            Phase::Open => self
                .seats
                .iter()
                .any(|s| matches!(s, Some(SeatPlayer::Person { .. }))),
        }
    }
}

/// One seat's clock at the moment a message is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClockView {
    /// Time left, milliseconds.
    pub remaining_ms: u64,
    /// Whether this clock is running now.
    pub running: bool,
}

/// Something that happened at a table; numbered by the table's version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The table was created (always version 1).
    Created {
        /// The table's options.
        options: TableOptions,
    },
    /// A player or the computer took a seat.
    Sat {
        /// The seat.
        seat: Seat,
        /// Who sits there.
        player: SeatPlayer,
    },
    /// A player left a seat before the start.
    Stood {
        /// The seat.
        seat: Seat,
    },
    /// The game started.
    Started,
    /// A seat moved.
    Moved {
        /// The seat that moved.
        seat: Seat,
        /// The move text of the variant (xiangqi: ICCS).
        #[serde(rename = "move")]
        mv: String,
        /// Moves played so far, this one included.
        ply: usize,
        /// Every seat's time left after the move, milliseconds; `null` when untimed.
        clocks_ms: Option<Vec<u64>>,
    },
    /// A seat offered a draw.
    DrawOffered {
        /// The seat that offered.
        seat: Seat,
    },
    /// A draw offer was declined by `seat` (a move withdraws an offer without an event of its
    /// own: applying `moved` clears it).
    DrawDeclined {
        /// The seat that declined.
        seat: Seat,
    },
    /// A seat asked for a takeback of its last move (xiangqi between people, unrated games):
    /// the other seat answers with `accept_takeback` (a `taken_back` event follows) or
    /// `decline_takeback`; a move or the end withdraws the request.
    TakebackOffered {
        /// The seat that asked.
        seat: Seat,
    },
    /// A takeback request was declined.
    TakebackDeclined {
        /// The seat that declined.
        seat: Seat,
    },
    /// The last `plies` moves were taken back (xiangqi against the computer, or agreed between
    /// people in an unrated game): the game is the
    /// one of the moves before them, the draw offer is gone, the clocks keep their times and the
    /// seat to move's runs.
    TakenBack {
        /// How many moves were taken back (1 or 2).
        plies: usize,
    },
    /// A sanguo kingdom was defeated by the move just before this event (`spec/sanguo.md`
    /// §6.1): its General was captured or it had no legal move at the start of its turn, and
    /// its remaining pieces went to `heir`. The game goes on while two kingdoms remain (else an
    /// `ended` event follows). Reproducible from the moves; stored and sent so that every
    /// client can say it without rules.
    Defeated {
        /// The defeated kingdom's seat.
        seat: Seat,
        /// `general-captured` (C7) or `no-legal-move` (C8).
        reason: EndReason,
        /// The seat of the kingdom that took over the defeated army.
        heir: Seat,
        /// The moves played when it happened (the `ply` of the `moved` event before it).
        ply: usize,
    },
    /// The game ended.
    Ended {
        /// Winners and reason.
        outcome: Outcome,
        /// `1-0`, `0-1`, `1/2-1/2`, or `null` (sanguo, aborted, banqi before the first flip).
        result: Option<String>,
        /// The seats that won, ascending (empty for a draw or an aborted game).
        winner_seats: Vec<Seat>,
    },
    /// After the end, a seat asked for a rematch, or accepted the rematch another seat asked
    /// for (`offer_rematch`, `accept_rematch`). Once every seat with a person wants it (the
    /// computer always does), the rematch is agreed (nothing takes it back), the server creates
    /// the new table and a `rematched` event follows.
    RematchOffered {
        /// The seat that wants the rematch.
        seat: Seat,
    },
    /// The rematch asked for was declined by `seat` (`decline_rematch`), or withdrawn: the seat
    /// that asked for it left the table (its last connection closed). Nobody wants it anymore,
    /// and no table is made for it. Never after every seat wanted it.
    RematchDeclined {
        /// The seat that declined, or that left.
        seat: Seat,
    },
    /// A seat went berserk before its first move (an arena table of a berserkable arena,
    /// `berserk`): its remaining time lost half the initial time and its increment is gone
    /// for the rest of the game; a win then scores one more arena point when the game lasted
    /// at least 14 plies.
    Berserked {
        /// The seat that went berserk.
        seat: Seat,
    },
    /// The rematch was agreed: the new table `table` has the same options and the same
    /// players, each moved one seat on (xiangqi and banqi: the colours swapped; sanguo: the
    /// kingdoms turned), already seated. The clients go there.
    Rematched {
        /// The new table's id.
        table: String,
    },
}

/// A defeated sanguo kingdom (`spec/sanguo.md` §6.1), as [`State::defeats`] lists it: the
/// fields of its `defeated` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Defeat {
    /// The defeated kingdom's seat.
    pub seat: Seat,
    /// `general-captured` (C7) or `no-legal-move` (C8).
    pub reason: EndReason,
    /// The seat of the kingdom that took over the defeated army.
    pub heir: Seat,
    /// The moves played when it happened.
    pub ply: usize,
}

/// An event with the version it made (`GET /api/tables/{id}/events`, and the events of an
/// [`Update`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VersionedEvent {
    /// The table version this event created.
    pub version: u64,
    /// What happened.
    pub event: Event,
}

/// A message from the client over the table's WebSocket. Every variant is a struct (the ones
/// without fields too: `Stand {}`), so that `deny_unknown_fields` refuses an unknown field on
/// any message (`{"type":"start","x":1}` is a `bad_message`, never a start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Asks for the events after version `since` (replayed in order), then a state.
    Sync {
        /// The last version the client saw; `null` for none.
        since: Option<u64>,
    },
    /// Takes a seat for the connected player (open tables only).
    Sit {
        /// The seat.
        seat: Seat,
    },
    /// Seats the computer (open tables only; the caller must sit at the table).
    SitComputer {
        /// The seat.
        seat: Seat,
        /// Strength, 1 … 8.
        level: u8,
    },
    /// Leaves the caller's seat (open tables only).
    Stand {},
    /// Starts the game once every seat is taken (any seated player).
    Start {},
    /// Plays a move for the caller's seat.
    Move {
        /// The version of the state the move answers. Refused as stale when the position or the
        /// turn changed since (a move, a takeback, the end, ...) or when it is beyond the
        /// table's; offers, requests and their answers in between do not make it stale.
        version: u64,
        /// The move text (xiangqi: ICCS such as `h2e2`).
        #[serde(rename = "move")]
        mv: String,
    },
    /// Resigns the caller's seat.
    Resign {},
    /// Goes berserk: halves the caller's clock and drops its increment, before the caller's
    /// first move, at an arena table that allows it (`berserked`).
    Berserk {},
    /// Offers a draw (xiangqi and banqi).
    OfferDraw {},
    /// Accepts the opponent's pending draw offer.
    AcceptDraw {},
    /// Declines the opponent's pending draw offer.
    DeclineDraw {},
    /// Aborts the game before its first move (a seated player).
    Abort {},
    /// Takes back the caller's last move in a xiangqi game against the computer (with the
    /// computer's answer when it has answered): the game goes back to the caller's turn.
    /// Between people (unrated xiangqi games only) it asks the other seat instead
    /// (`takeback_offered`).
    Takeback {},
    /// Accepts the other seat's pending takeback request: its last move (and the caller's
    /// answer, if any) are taken back.
    AcceptTakeback {},
    /// Declines the other seat's pending takeback request.
    DeclineTakeback {},
    /// After the end, asks the other seats for a rematch (a seated person; `rematch_offered`).
    OfferRematch {},
    /// Accepts the rematch another seat asked for (a `rematch_offered` of the caller; the
    /// `rematched` event follows once every seat wants it).
    AcceptRematch {},
    /// Declines the rematch another seat asked for (`rematch_declined`).
    DeclineRematch {},
    /// Says `text` in the table's chat: a seated person to the seated persons, anyone else to
    /// the other spectators (needs a session).
    Chat {
        /// 1 … [`MAX_CHAT_CHARS`] characters after trimming, no control, invisible or
        /// direction-changing character (emoji sequences pass: [`crate::accounts::names::check_text`]).
        text: String,
    },
    /// Keep-alive; answered by `pong`.
    Ping {},
}

/// Longest chat line, in characters.
pub const MAX_CHAT_CHARS: usize = 140;

/// The strongest computer level a `sit_computer` may ask for (levels run from 1): the
/// engine's level table ([`chuhe_engine::levels::MAX_LEVEL`], checked where the computer plays,
/// `computer/mod.rs`).
pub const MAX_COMPUTER_LEVEL: u8 = 8;

/// Which chat of a table a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChatRoom {
    /// The seated persons' chat.
    Players,
    /// The spectators' chat.
    Spectators,
}

/// Why a request or a message was refused: a stable machine code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The message or body could not be read.
    BadMessage,
    /// A message over [`MAX_MESSAGE_BYTES`] or a body over the HTTP limit.
    TooLarge,
    /// Too many messages or requests in a short time.
    RateLimited,
    /// No session, or a bad name or password.
    Unauthorized,
    /// No such table or player.
    NotFound,
    /// A name already taken, a seat already taken, ...
    Conflict,
    /// The action needs a seat and the caller has none (spectators cannot act).
    NotSeated,
    /// It is another seat's turn.
    NotYourTurn,
    /// The move answers an older version of the table.
    StaleVersion,
    /// The move text cannot be read, or the move is illegal.
    IllegalMove,
    /// The action does not fit the table's phase or state.
    NotAllowed,
    /// `start` while a seated person is not connected.
    NotReady,
    /// The route does not take this HTTP method.
    MethodNotAllowed,
    /// A request from a page of another site.
    Forbidden,
    /// Something failed inside the server (details are logged, not sent).
    Internal,
    /// The table is moving to another node of a cluster (its owner stopped or lost its
    /// lease): reconnect, and the table is served again within seconds.
    Unavailable,
    /// The database is away (it does not answer, or the connection to it failed) before the
    /// write was committed: nothing was stored, try again in a moment.
    DatabaseUnavailable,
    /// The request's body did not arrive within the server's request time limit (408; the
    /// connection is closed).
    RequestTimeout,
    /// The database did not confirm a write, which may have been stored all the same (its
    /// commit's answer was lost or late): send `sync` (over HTTP, read again) before trying
    /// again. The table settles it from the database before its next action.
    InDoubt,
}

/// A message from the server over the table's WebSocket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// An event with its version (live, or replayed after `sync`).
    Event {
        /// The table version this event created.
        version: u64,
        /// What happened.
        event: Event,
    },
    /// The table as the receiver may see it (boxed: it is much larger than the others): sent
    /// on connecting and after `sync` only.
    State(Box<State>),
    /// What a change changed, after every change (shared: the same update goes to every
    /// connection of one seat, and of the spectators).
    Update(Arc<Update>),
    /// A presence change: a seated person connected or disconnected (not versioned).
    Presence {
        /// The seat.
        seat: Seat,
        /// Whether someone is connected for it now.
        connected: bool,
        /// While the seat is away and its absence counts: the milliseconds left (at sending)
        /// before it loses by abandonment (running game) or is freed (open table); else `null`.
        #[serde(default)]
        abandon_ms: Option<u64>,
    },
    /// A chat line, to the connections of its room only (not versioned, not stored).
    Chat {
        /// The room: `players` (the seated persons) or `spectators`.
        room: ChatRoom,
        /// The speaker's display name.
        name: String,
        /// The speaker's seat, `null` for a spectator.
        seat: Option<Seat>,
        /// Whether the speaker has an account (else a guest, whom the client marks: a guest may
        /// hold the name an account took later). Absent counts as `false`.
        #[serde(default)]
        account: bool,
        /// The line, as checked by the server (trimmed, at most [`MAX_CHAT_CHARS`], no control,
        /// invisible or direction-changing character: [`crate::accounts::names::check_text`]).
        text: String,
    },
    /// How many connections watch without a seat, after a connection came or went or a seat
    /// changed (not versioned).
    Spectators {
        /// The number of connections without a seat.
        count: usize,
    },
    /// A refused message; nothing changed.
    Error {
        /// The machine code.
        code: ErrorCode,
        /// A short lower-case explanation.
        message: String,
    },
    /// The answer to `ping`.
    Pong,
    /// One of the messages above as the table's owner node in a cluster serialised it (its
    /// JSON text, UTF-8), passed through to the socket by a forwarding node without being
    /// parsed and serialised again. Never made by a table and not part of the wire's schema:
    /// a reader that needs the message itself parses it ([`ServerMessage::parsed`]).
    #[serde(skip)]
    Relayed(bytes::Bytes),
}

impl ServerMessage {
    /// The message itself: a [`ServerMessage::Relayed`] one parsed from its JSON text (kept
    /// as it is when the text does not parse), any other as it is.
    #[must_use]
    pub fn parsed(self) -> ServerMessage {
        match self {
            ServerMessage::Relayed(bytes) => {
                serde_json::from_slice(&bytes).unwrap_or(ServerMessage::Relayed(bytes))
            }
            other => other,
        }
    }
}

/// `POST /api/session` (guest) body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestRequest {
    /// The display name, 1 … 24 characters, no control characters.
    pub name: String,
}

/// `POST /api/accounts` and `POST /api/login` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountRequest {
    /// The account name, 1 … 24 characters, no control characters.
    pub name: String,
    /// The password, 8 … 128 characters.
    pub password: String,
}

/// The player behind a session (`GET /api/me` and the session routes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerInfo {
    /// The player's id.
    pub id: String,
    /// The display name.
    pub name: String,
    /// Whether the player has an account (else a guest).
    pub account: bool,
}

/// The body of every HTTP error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The machine code.
    pub error: ErrorCode,
    /// A short lower-case explanation.
    pub message: String,
}

/// A finished game as the lobby lists it (`GET /api/games`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FinishedGame {
    /// The table's id (`GET /api/tables/{id}/...` has the rest).
    pub id: String,
    /// The options the table was created with.
    pub options: TableOptions,
    /// Who sat where when the game ended, one entry per seat in move order.
    pub seats: Vec<Option<SeatPlayer>>,
    /// Winners and the rule that ended the game.
    pub outcome: Outcome,
    /// `1-0`, `0-1`, `1/2-1/2`, or `null` (sanguo, banqi before the first flip).
    pub result: Option<String>,
    /// The seats that won, ascending (empty for a draw).
    pub winner_seats: Vec<Seat>,
    /// Moves played.
    pub plies: usize,
    /// The seats that went berserk, ascending (arena games; absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub berserks: Vec<Seat>,
    /// When the table was created, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When the game ended, milliseconds since the Unix epoch.
    pub ended_ms: i64,
}

impl FinishedGame {
    /// The finished game that a table's events tell (all of them, from `created`), or `None`
    /// when they hold no `ended` event or no `created` event.
    pub fn from_events<'a>(
        id: &str,
        created_ms: i64,
        ended_ms: i64,
        events: impl IntoIterator<Item = &'a Event>,
    ) -> Option<FinishedGame> {
        let mut options = None;
        let mut seats: Vec<Option<SeatPlayer>> = Vec::new();
        let mut plies = 0;
        let mut end = None;
        let mut berserks: Vec<Seat> = Vec::new();
        for e in events {
            match e {
                Event::Created { options: o } => {
                    seats = vec![None; o.variant.seat_count()];
                    options = Some(o.clone());
                }
                Event::Sat { seat, player } => {
                    if let Some(s) = seats.get_mut(seat.index()) {
                        *s = Some(player.clone());
                    }
                }
                Event::Stood { seat } => {
                    if let Some(s) = seats.get_mut(seat.index()) {
                        *s = None;
                    }
                }
                Event::Moved { ply, .. } => plies = *ply,
                Event::TakenBack { plies: n } => plies = plies.saturating_sub(*n),
                Event::Ended {
                    outcome,
                    result,
                    winner_seats,
                } => end = Some((outcome.clone(), result.clone(), winner_seats.clone())),
                Event::Berserked { seat } => {
                    if !berserks.contains(seat) {
                        berserks.push(*seat);
                        berserks.sort_unstable();
                    }
                }
                Event::Started
                | Event::DrawOffered { .. }
                | Event::DrawDeclined { .. }
                | Event::TakebackOffered { .. }
                | Event::TakebackDeclined { .. }
                | Event::RematchOffered { .. }
                | Event::RematchDeclined { .. }
                | Event::Rematched { .. }
                | Event::Defeated { .. } => {}
            }
        }
        let (outcome, result, winner_seats) = end?;
        Some(FinishedGame {
            id: id.to_owned(),
            options: options?,
            seats,
            outcome,
            result,
            winner_seats,
            plies,
            berserks,
            created_ms,
            ended_ms,
        })
    }
}

/// One page of finished games, newest first (`GET /api/games`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FinishedPage {
    /// The games, the most recently ended first.
    pub games: Vec<FinishedGame>,
    /// The `before` of the next page (the id of the last game here), or `null` when no older
    /// game exists.
    pub next: Option<String>,
}

/// Every position of a table's game (`GET /api/tables/{id}/positions`), for stepping through
/// its moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Positions {
    /// The game.
    pub variant: Variant,
    /// The moves played, as in the board view (banqi flips name their piece).
    pub moves: Vec<String>,
    /// `moves.len() + 1` positions: the start, then the position after each move.
    pub positions: Vec<crate::variant::Snapshot>,
}
