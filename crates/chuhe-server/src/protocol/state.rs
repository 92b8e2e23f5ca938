//! The state a client keeps of a table, and the updates that change it: what the server sends on
//! connect (`state`) and after every change (`update`), and how a client applies one to the other
//! ([`State::apply`]).

use super::{ClockView, Defeat, Event, Phase, SeatPlayer, TableSummary, VersionedEvent};
use crate::variant::Seat;
use crate::variant::{BoardPosition, BoardView, MoveKey, MoveText};
use chuhe_rules::outcome::Outcome;
use serde::{Deserialize, Serialize};

/// The table as one connection may see it, sent after connecting and after `sync`; every
/// change after it comes as an [`Update`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct State {
    /// The version this state belongs to; a move must carry it.
    pub version: u64,
    /// The table.
    pub table: TableSummary,
    /// The receiver's seat, `null` for a spectator.
    pub you: Option<Seat>,
    /// The board as the receiver may see it.
    pub board: BoardView,
    /// The seat to move while the game runs, else `null`.
    pub to_move: Option<Seat>,
    /// The seats in check in the position shown, ascending ([`crate::variant::AnyGame::check_seats`]):
    /// xiangqi, the side to move when in check; sanguo, every kingdom whose General is attacked
    /// or faces another General; banqi, none.
    pub check: Vec<Seat>,
    /// The legal moves, sent only to the seat to move (empty for everybody else).
    pub legal_moves: Vec<String>,
    /// The moves of `legal_moves` that capture a piece, sorted bytewise.
    pub capture_moves: Vec<String>,
    /// One clock per seat; `null` when untimed.
    pub clocks: Option<Vec<ClockView>>,
    /// Whether the variant has draw offers (xiangqi and banqi; sanguo has none).
    pub draw_offers: bool,
    /// The seat with a pending draw offer, if any.
    pub draw_offer: Option<Seat>,
    /// The seat with a pending takeback request, if any (left out when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takeback_offer: Option<Seat>,
    /// Per seat: whether a person is connected (computers always are).
    pub connected: Vec<bool>,
    /// Per seat: while the person sitting there is away and the absence counts, the
    /// milliseconds left (at sending) before the seat loses by abandonment (running game) or is
    /// freed (open table); `null` otherwise. Absent from old fixtures: all `null`.
    #[serde(default)]
    pub abandon_ms: Vec<Option<u64>>,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
    /// The seats that won, once the game has ended (empty for a draw).
    pub winner_seats: Vec<Seat>,
    /// Sanguo: every kingdom defeated so far, in order, as their `defeated` events told it
    /// (empty in the other games). Absent from old fixtures: empty.
    #[serde(default)]
    pub defeats: Vec<Defeat>,
    /// After the end: the seats that want a rematch, ascending (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rematch_offers: Vec<Seat>,
    /// The rematch's table once agreed (`rematched`), else left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    /// The seats that went berserk (`berserked`), ascending; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub berserks: Vec<Seat>,
}

/// What one change of a table changed, as one connection may see it: sent to every connection
/// after every change instead of a full [`State`]. Its size does not grow with the game: no move
/// list, no board after a move (the receiver plays the event's move on its own board), and the
/// legal moves only for the seat to move. The receiver applies it to its last state
/// ([`State::apply`]) when its first event is that state's version + 1, and asks `sync`
/// otherwise.
///
/// The fields every update has are the state's fields that any event may change; `board` comes
/// only with a takeback or a sanguo defeat, `connected` only with the events that change it. To
/// keep the bytes per move small (issue 32; `docs/protocol.md`, "Updates"), a field whose value
/// is the usual one is left out:
/// `check` when empty, `draw_offer` when `null`, `clocks` when untimed or when the clocks are the
/// last move's (see [`Update::clocks`]), `moves` and `captures` when empty; and the legal moves
/// travel packed ([`pack_moves`]). A receiver reads a missing field as that usual value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Update {
    /// The version after this change: the version of the last event.
    pub version: u64,
    /// The events of the change in order, with consecutive versions (a mating move: `moved`
    /// then `ended`).
    pub events: Vec<VersionedEvent>,
    /// The receiver's seat, `null` for a spectator (`sat` and `stood` change it).
    pub you: Option<Seat>,
    /// The phase after the change.
    pub phase: Phase,
    /// The seat to move while the game runs, else `null`.
    pub to_move: Option<Seat>,
    /// The seats in check after the change, as in [`State::check`] (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<Seat>,
    /// One clock per seat at the moment of sending. Left out (`None`) when the table is
    /// untimed, and when the last event is a `moved` that carries `clocks_ms`: each seat's clock
    /// then has that seat's `clocks_ms` left and runs only for the seat to move while the game
    /// runs ([`Update::clocks_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Vec<ClockView>>,
    /// The seat with a pending draw offer, if any (left out when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_offer: Option<Seat>,
    /// The seat with a pending takeback request, if any (left out when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takeback_offer: Option<Seat>,
    /// The seats that want a rematch after the change, ascending (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rematch_offers: Vec<Seat>,
    /// The board after the change, without the move list, only when the change holds a
    /// `taken_back` or a `defeated` event (since 2026-12-04): the receiver puts it in place of its
    /// board's position after applying the events to the move list. Any other `moved` event comes
    /// without it, and the receiver plays the event's `move` on its board
    /// ([`crate::variant::BoardView::play`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardPosition>,
    /// With a `sat` or `stood` event only: per seat, whether someone is connected for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connected: Option<Vec<bool>>,
    /// The legal moves, sorted bytewise, only to the seat to move (empty for everybody else);
    /// on the wire as `moves`, packed ([`pack_moves`]), left out when empty.
    #[serde(
        rename = "moves",
        default,
        skip_serializing_if = "PackedMoves::is_empty"
    )]
    #[schema(value_type = String)]
    pub legal_moves: PackedMoves,
    /// The moves of `legal_moves` that capture a piece, sorted bytewise; on the wire as
    /// `captures`, packed as `moves` is, left out when empty.
    #[serde(
        rename = "captures",
        default,
        skip_serializing_if = "PackedMoves::is_empty"
    )]
    #[schema(value_type = String)]
    pub capture_moves: PackedMoves,
}

impl Update {
    /// The clocks after this update: [`Update::clocks`] when it was sent, else, when the last
    /// event is a `moved` with `clocks_ms`, those times, the clock of the seat to move running
    /// while the game runs; else `None` (untimed).
    pub fn clocks_of(&self) -> Option<Vec<ClockView>> {
        if self.clocks.is_some() {
            return self.clocks.clone();
        }
        let Some(Event::Moved {
            clocks_ms: Some(ms),
            ..
        }) = self.events.last().map(|e| &e.event)
        else {
            return None;
        };
        let running =
            |i: usize| self.phase == Phase::Running && self.to_move.map(Seat::index) == Some(i);
        Some(
            ms.iter()
                .enumerate()
                .map(|(i, &remaining_ms)| ClockView {
                    remaining_ms,
                    running: running(i),
                })
                .collect(),
        )
    }
}

/// The separator between the groups of [`pack_moves`]: no move text of any variant holds it.
const GROUP_SEPARATOR: char = ';';

/// The separator between a group's head and its tails in [`pack_moves`].
const HEAD_SEPARATOR: char = ':';

/// Packs move texts into one short text (the `moves` and `captures` of an update): moves that
/// follow one another with the same text but its last two characters (the *head*: in xiangqi
/// the origin square, `h2`; in banqi `c2-` or `flip `; in sanguo `Ga1-G`) form a group, written
/// as its head, `:`, then the last two characters of each of its moves; the groups are joined
/// with `;`. `["h2e2", "h2h9", "b0c2"]` packs as `h2:e2h9;b0:c2`. The server's lists are sorted
/// bytewise, so each head makes one group; [`unpack_moves`] gives any list back in its own
/// order. A move text is at least two characters and holds no `:` or `;` (true of every
/// variant's moves). The start position of xiangqi packs its 44 moves into 151 bytes, against
/// 309 for the JSON list.
///
/// ```
/// use chuhe_server::protocol::{pack_moves, unpack_moves};
///
/// let moves = ["b0a2", "b0c2", "flip a1", "h2e2"].map(String::from).to_vec();
/// assert_eq!(pack_moves(&moves), "b0:a2c2;flip :a1;h2:e2");
/// assert_eq!(unpack_moves("b0:a2c2;flip :a1;h2:e2").unwrap(), moves);
/// // A head that comes back after another starts a group of its own.
/// let moves = ["h2e2", "b0c2", "h2h9"].map(String::from).to_vec();
/// assert_eq!(pack_moves(&moves), "h2:e2;b0:c2;h2:h9");
/// assert_eq!(unpack_moves("h2:e2;b0:c2;h2:h9").unwrap(), moves);
/// ```
pub fn pack_moves(moves: &[String]) -> String {
    // One pass, no map of the heads: a table packs the legal moves after every move.
    let mut out = String::with_capacity(moves.len() * 3 + 16);
    let mut group: Option<&str> = None;
    for m in moves {
        let (head, tail) = split_move(m);
        push_packed(&mut out, group != Some(head), head, tail);
        group = Some(head);
    }
    out
}

/// A move text's head (all but its last two characters) and tail (those two).
fn split_move(text: &str) -> (&str, &str) {
    let cut = text.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
    text.split_at(cut)
}

/// Appends one move, as its head and tail, to the packed text `out`: in a new group (its head
/// written first) or in the last one.
fn push_packed(out: &mut String, new_group: bool, head: &str, tail: &str) {
    if new_group {
        if !out.is_empty() {
            out.push(GROUP_SEPARATOR);
        }
        out.push_str(head);
        out.push(HEAD_SEPARATOR);
    }
    out.push_str(tail);
}

/// The moves of a text packed by [`pack_moves`]; the empty text is no move.
///
/// # Errors
/// A group without its `:`, or whose tails are not whole pairs of characters; the message
/// names the group.
pub fn unpack_moves(packed: &str) -> Result<Vec<String>, String> {
    let mut moves = Vec::new();
    if packed.is_empty() {
        return Ok(moves);
    }
    for group in packed.split(GROUP_SEPARATOR) {
        let (head, tails) = group
            .split_once(HEAD_SEPARATOR)
            .ok_or_else(|| format!("packed moves: no ':' in the group {group:?}"))?;
        let tails: Vec<char> = tails.chars().collect();
        if tails.is_empty() || !tails.len().is_multiple_of(2) {
            return Err(format!(
                "packed moves: the group {group:?} does not end in pairs of characters"
            ));
        }
        for pair in tails.chunks(2) {
            let mut m = String::with_capacity(head.len() + 2);
            m.push_str(head);
            m.extend(pair);
            moves.push(m);
        }
    }
    Ok(moves)
}

/// Moves packed as [`pack_moves`] packs them: an [`Update`]'s `moves` and `captures`, held in
/// their wire form so that the table packs them once, straight from the rules' sort keys
/// ([`PackedMoves::from_keys`]), and every connection of the seat sends the same text.
/// Serialised as the packed text; read back only when it unpacks ([`unpack_moves`]).
///
/// ```
/// use chuhe_server::protocol::PackedMoves;
///
/// let moves = ["b0a2", "b0c2", "h2e2"].map(String::from).to_vec();
/// let packed = PackedMoves::pack(&moves);
/// assert_eq!(packed.as_str(), "b0:a2c2;h2:e2");
/// assert_eq!(packed.unpack(), moves);
/// assert_eq!(serde_json::to_string(&packed).unwrap(), r#""b0:a2c2;h2:e2""#);
/// assert!(serde_json::from_str::<PackedMoves>(r#""b0a2""#).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PackedMoves(String);

impl PackedMoves {
    /// `moves` packed ([`pack_moves`]).
    pub fn pack(moves: &[String]) -> PackedMoves {
        PackedMoves(pack_moves(moves))
    }

    /// The moves of `keys`, in their order, packed as [`pack_moves`] packs their texts.
    pub fn from_keys(keys: impl IntoIterator<Item = MoveKey>) -> PackedMoves {
        let mut out = String::new();
        let mut group: Option<MoveText> = None;
        for key in keys {
            let text = key.text();
            let (head, tail) = split_move(&text);
            let same = group.as_ref().is_some_and(|g| split_move(g).0 == head);
            push_packed(&mut out, !same, head, tail);
            if !same {
                group = Some(text);
            }
        }
        PackedMoves(out)
    }

    /// The packed text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it holds no move.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The moves, in their packed order. Every `PackedMoves` unpacks: it is made by packing,
    /// or read only when it unpacks.
    pub fn unpack(&self) -> Vec<String> {
        unpack_moves(&self.0).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for PackedMoves {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PackedMoves, D::Error> {
        let packed = String::deserialize(d)?;
        unpack_moves(&packed).map_err(serde::de::Error::custom)?;
        Ok(PackedMoves(packed))
    }
}

/// Why an [`Update`] does not apply to a [`State`]; the receiver asks `sync` for a new state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateError {
    /// The update does not follow the state: its first event is not the state's version + 1.
    Gap {
        /// The version the state expected next.
        expected: u64,
        /// The version of the update's first event (the update's own when it has none).
        got: u64,
    },
    /// The update does not fit the state: no event, a move the rules refuse on the state's
    /// board, a takeback without its board or a board of another variant, a seat that does not
    /// exist.
    Mismatch(String),
}

impl std::fmt::Display for UpdateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UpdateError::Gap { expected, got } => {
                write!(f, "update gap: expected version {expected}, got {got}")
            }
            UpdateError::Mismatch(detail) => write!(f, "update does not fit the state: {detail}"),
        }
    }
}

impl std::error::Error for UpdateError {}

impl State {
    /// Applies `update` (what the next change of the table changed) in place, as the web
    /// client does: the events' seats, moves (played on the board by the rules, or, when the
    /// update carries its `board`, put on the move list and the board taken as sent) and
    /// ending, then the update's own fields. The result
    /// is the state the server would send at the update's version (the clocks as of the
    /// update's sending).
    ///
    /// # Errors
    /// [`UpdateError::Gap`] when the update does not follow this state (a version was missed),
    /// [`UpdateError::Mismatch`] when it does not fit; the state is then unchanged.
    ///
    /// ```
    /// use chuhe_server::protocol::{ServerMessage, State};
    ///
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/protocol");
    /// let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
    /// let ServerMessage::State(mut state) = serde_json::from_str(&read("server.state.json")).unwrap()
    /// else { unreachable!() };
    /// let ServerMessage::Update(update) = serde_json::from_str(&read("server.update.json")).unwrap()
    /// else { unreachable!() };
    /// state.apply(&update).unwrap();
    /// assert_eq!(state.version, 8);
    /// assert!(state.apply(&update).is_err()); // the same update again is a gap
    /// ```
    pub fn apply(&mut self, update: &Update) -> Result<(), UpdateError> {
        let expected = self.version + 1;
        let got = update.events.first().map_or(update.version, |e| e.version);
        let consecutive = update
            .events
            .iter()
            .enumerate()
            .all(|(i, e)| e.version == got + i as u64);
        if got != expected || !consecutive || update.version + 1 != got + update.events.len() as u64
        {
            return Err(UpdateError::Gap { expected, got });
        }
        if update.events.is_empty() {
            return Err(UpdateError::Mismatch("no event".to_owned()));
        }
        let mut next = self.clone();
        for e in &update.events {
            match &e.event {
                Event::Sat { seat, player } => {
                    *next.seat_mut(*seat)? = Some(player.clone());
                }
                Event::Stood { seat } => *next.seat_mut(*seat)? = None,
                Event::Moved { seat, mv, .. } => {
                    if update.board.is_some() {
                        next.board.moves_mut().push(mv.clone());
                    } else {
                        next.board.play(*seat, mv).map_err(UpdateError::Mismatch)?;
                    }
                }
                Event::Ended {
                    outcome,
                    winner_seats,
                    ..
                } => {
                    next.outcome = Some(outcome.clone());
                    next.winner_seats.clone_from(winner_seats);
                }
                Event::TakenBack { plies } => {
                    let moves = next.board.moves_mut();
                    if update.board.is_none() || *plies > moves.len() {
                        return Err(UpdateError::Mismatch(
                            "a takeback without its board".to_owned(),
                        ));
                    }
                    moves.truncate(moves.len() - plies);
                }
                Event::Defeated {
                    seat,
                    reason,
                    heir,
                    ply,
                } => next.defeats.push(Defeat {
                    seat: *seat,
                    reason: *reason,
                    heir: *heir,
                    ply: *ply,
                }),
                Event::Rematched { table } => next.rematch = Some(table.clone()),
                Event::Berserked { seat } => {
                    if !next.berserks.contains(seat) {
                        next.berserks.push(*seat);
                        next.berserks.sort_unstable();
                    }
                }
                Event::Created { .. }
                | Event::RematchOffered { .. }
                | Event::RematchDeclined { .. }
                | Event::Started
                | Event::DrawOffered { .. }
                | Event::DrawDeclined { .. }
                | Event::TakebackOffered { .. }
                | Event::TakebackDeclined { .. } => {}
            }
        }
        if let Some(board) = &update.board {
            next.board
                .set_position(board)
                .map_err(UpdateError::Mismatch)?;
        }
        next.version = update.version;
        next.table.version = update.version;
        next.table.phase = update.phase;
        next.you = update.you;
        next.to_move = update.to_move;
        next.check.clone_from(&update.check);
        next.clocks = update.clocks_of();
        next.draw_offer = update.draw_offer;
        next.takeback_offer = update.takeback_offer;
        next.rematch_offers.clone_from(&update.rematch_offers);
        if let Some(connected) = &update.connected {
            next.connected.clone_from(connected);
        }
        next.legal_moves = update.legal_moves.unpack();
        next.capture_moves = update.capture_moves.unpack();
        *self = next;
        Ok(())
    }

    fn seat_mut(&mut self, seat: Seat) -> Result<&mut Option<SeatPlayer>, UpdateError> {
        self.table
            .seats
            .get_mut(seat.index())
            .ok_or_else(|| UpdateError::Mismatch(format!("no seat {seat}")))
    }
}
