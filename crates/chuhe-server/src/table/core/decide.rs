//! The decisions of a table: a message of a person (or a due timer) and the state in, the events it
//! causes (or the reason it is refused) out ([`decide`]), with the rules each decision applies
//! (moves and flags, absences, draw and takeback offers, rematches). Pure: no store, no engine, no
//! sockets.

use super::{Decision, TableState};
use crate::accounts::names::{check_text, TextError, TextKind};
use crate::error::ServerError;
use crate::protocol::{
    ClientMessage, Defeat, Event, Phase, Seat, SeatPlayer, TableOptions, MAX_CHAT_CHARS,
    MAX_COMPUTER_LEVEL,
};
use crate::table::Person;
use crate::variant::{AnyGame, AnyMove, MoveError};
use chuhe_rules::outcome::{EndReason, Outcome};
use tokio::time::Instant;

/// Who sends a message: the connection's person (`None` without a session) and, per seat,
/// whether someone is connected for it (computers always are; `start` needs every seat).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller<'a> {
    /// The person behind the connection.
    pub(crate) person: Option<&'a Person>,
    /// Per seat: whether a person is connected for it, or the computer sits there.
    pub(crate) connected: &'a [bool],
}

impl Caller<'_> {
    pub(super) fn seat(&self, state: &TableState) -> Result<Seat, ServerError> {
        let person = self.person.ok_or(ServerError::NotSeated)?;
        state.seat_of(person).ok_or(ServerError::NotSeated)
    }
}

/// Checks a client message against the table at `now` and says what it changes. `sync` and
/// `ping` concern the connection only and change nothing here.
///
/// # Errors
/// Why the message is refused; nothing may change then.
pub(crate) fn decide(
    state: &TableState,
    caller: Caller<'_>,
    msg: &ClientMessage,
    now: Instant,
) -> Result<Decision, ServerError> {
    let one = |e: Event| Ok(Decision::Events(vec![e]));
    match msg {
        ClientMessage::Ping {} | ClientMessage::Sync { .. } => Ok(Decision::Events(Vec::new())),
        // the actor sends chat lines; they change nothing here
        ClientMessage::Chat { .. } => Ok(Decision::Events(Vec::new())),
        ClientMessage::Sit { seat } => {
            let person = caller
                .person
                .ok_or_else(|| ServerError::Unauthorized("sitting needs a session".to_owned()))?;
            state.open()?;
            state.free_seat(*seat)?;
            if state.options.rated && !person.account {
                return Err(ServerError::Unauthorized(
                    "rated tables are for account holders".to_owned(),
                ));
            }
            if state.seat_of(person).is_some() {
                return Err(ServerError::Conflict(
                    "you already sit at this table".to_owned(),
                ));
            }
            let player = SeatPlayer::Person {
                id: person.id.clone(),
                name: person.name.clone(),
                account: person.account,
                bot: false,
            };
            Ok(Decision::Events(sat_and_start(state, *seat, player)))
        }
        ClientMessage::SitComputer { seat, level } => {
            caller.seat(state)?;
            state.open()?;
            if state.options.rated {
                return Err(ServerError::NotAllowed(
                    "the computer does not play rated games".to_owned(),
                ));
            }
            if !(1..=MAX_COMPUTER_LEVEL).contains(level) {
                return Err(ServerError::BadMessage(format!(
                    "level must be between 1 and {MAX_COMPUTER_LEVEL}"
                )));
            }
            state.free_seat(*seat)?;
            let player = SeatPlayer::Computer { level: *level };
            Ok(Decision::Events(sat_and_start(state, *seat, player)))
        }
        ClientMessage::Stand {} => {
            let seat = caller.seat(state)?;
            state.open()?;
            Ok(Decision::Events(leave(state, seat)))
        }
        ClientMessage::Start {} => {
            caller.seat(state)?;
            match state.phase {
                Phase::Open => {}
                Phase::Running => {
                    return Err(ServerError::NotAllowed(
                        "the game has already started".to_owned(),
                    ))
                }
                Phase::Ended => {
                    return Err(ServerError::NotAllowed("the game has ended".to_owned()))
                }
            }
            if state.seats.iter().any(Option::is_none) {
                return Err(ServerError::NotAllowed(
                    "every seat must be taken to start".to_owned(),
                ));
            }
            if !caller.connected.iter().all(|&c| c) {
                return Err(ServerError::NotReady);
            }
            one(Event::Started)
        }
        ClientMessage::Move { version, mv } => {
            let seat = caller.seat(state)?;
            state.running()?;
            // A move that crossed an offer, a request or an answer still answers the position
            // (and withdraws what is pending); one that crossed a move, a takeback, the end...
            // answers a position that is gone.
            if !state.answers_position(*version) {
                return Err(ServerError::StaleVersion {
                    got: *version,
                    current: state.version,
                });
            }
            if state.to_move() != Some(seat) {
                return Err(ServerError::NotYourTurn);
            }
            let m = state
                .game
                .parse_move(mv)
                .map_err(|e| ServerError::IllegalMove(move_error_text(mv, e)))?;
            Ok(move_or_flag(state, seat, m, now))
        }
        ClientMessage::Resign {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            let (outcome, winners) = state
                .game
                .table_ending(seat, EndReason::Resignation)
                .ok_or_else(|| {
                    ServerError::NotAllowed("your side is already out of the game".to_owned())
                })?;
            one(ended(outcome, winners))
        }
        ClientMessage::OfferDraw {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s == seat => Err(ServerError::NotAllowed(
                    "you already offered a draw".to_owned(),
                )),
                // Both sides want a draw: the offer meets the other's.
                Some(_) => one(ended(Outcome::draw(EndReason::Agreement), Vec::new())),
                None => {
                    let offered = Event::DrawOffered { seat };
                    // the computer answers at once
                    let other = Seat::new(1 - seat.index().min(1));
                    if state.computer_level(other).is_none() {
                        return one(offered);
                    }
                    Ok(Decision::OfferToComputer {
                        seat,
                        computer: other,
                    })
                }
            }
        }
        ClientMessage::AcceptDraw {} | ClientMessage::DeclineDraw {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            state.draw_variant()?;
            match state.draw_offer {
                Some(s) if s != seat => one(if matches!(msg, ClientMessage::AcceptDraw {}) {
                    ended(Outcome::draw(EndReason::Agreement), Vec::new())
                } else {
                    Event::DrawDeclined { seat }
                }),
                _ => Err(ServerError::NotAllowed(
                    "there is no draw offer to answer".to_owned(),
                )),
            }
        }
        ClientMessage::Takeback {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            if state.game.as_xiangqi().is_none() {
                return Err(ServerError::NotAllowed(
                    "takebacks are for xiangqi games".to_owned(),
                ));
            }
            let others_computer = Seat::all(state.seats.len())
                .filter(|s| *s != seat)
                .all(|s| state.computer_level(s).is_some());
            // back to the caller's turn: its own last move, and the other's answer if any
            let plies = takeback_plies(state, seat);
            if state.game.ply() < plies {
                return Err(ServerError::NotAllowed(
                    "there is no move of yours to take back".to_owned(),
                ));
            }
            if others_computer {
                return one(Event::TakenBack { plies });
            }
            if state.options.rated {
                return Err(ServerError::NotAllowed(
                    "takebacks between people are for unrated games".to_owned(),
                ));
            }
            match state.takeback_offer {
                Some(s) if s == seat => Err(ServerError::NotAllowed(
                    "you already asked for a takeback".to_owned(),
                )),
                Some(_) => Err(ServerError::NotAllowed(
                    "answer the other takeback request first".to_owned(),
                )),
                None => one(Event::TakebackOffered { seat }),
            }
        }
        ClientMessage::AcceptTakeback {} | ClientMessage::DeclineTakeback {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            match state.takeback_offer {
                Some(asker) if asker != seat => {
                    one(if matches!(msg, ClientMessage::AcceptTakeback {}) {
                        Event::TakenBack {
                            plies: takeback_plies(state, asker),
                        }
                    } else {
                        Event::TakebackDeclined { seat }
                    })
                }
                _ => Err(ServerError::NotAllowed(
                    "there is no takeback request to answer".to_owned(),
                )),
            }
        }
        ClientMessage::OfferRematch {} | ClientMessage::AcceptRematch {} => {
            let seat = caller.seat(state)?;
            state.rematch_open()?;
            if state.rematch_offers.contains(&seat) {
                return Err(ServerError::NotAllowed(
                    "you already offered a rematch".to_owned(),
                ));
            }
            if matches!(msg, ClientMessage::AcceptRematch {}) && state.rematch_offers.is_empty() {
                return Err(ServerError::NotAllowed(
                    "there is no rematch offer to answer".to_owned(),
                ));
            }
            one(Event::RematchOffered { seat })
        }
        ClientMessage::DeclineRematch {} => {
            let seat = caller.seat(state)?;
            state.rematch_open()?;
            if state.rematch_offers.iter().all(|s| *s == seat) {
                return Err(ServerError::NotAllowed(
                    "there is no rematch offer to answer".to_owned(),
                ));
            }
            one(Event::RematchDeclined { seat })
        }
        ClientMessage::Berserk {} => {
            let seat = caller.seat(state)?;
            state.running()?;
            if state.options.tournament.is_none() {
                return Err(ServerError::NotAllowed(
                    "berserk is for arena tournament games".to_owned(),
                ));
            }
            if !state.options.berserkable || state.clocks.is_none() {
                return Err(ServerError::NotAllowed(
                    "this tournament does not allow berserk".to_owned(),
                ));
            }
            if state.berserks.contains(&seat) {
                return Err(ServerError::NotAllowed(
                    "you have already gone berserk".to_owned(),
                ));
            }
            if !before_first_move(state, seat) {
                return Err(ServerError::NotAllowed(
                    "berserk is only before your first move".to_owned(),
                ));
            }
            one(Event::Berserked { seat })
        }
        ClientMessage::Abort {} => {
            caller.seat(state)?;
            state.running()?;
            if state.game.ply() > 0 {
                return Err(ServerError::NotAllowed(
                    "a game can be aborted only before its first move".to_owned(),
                ));
            }
            one(ended(Outcome::draw(EndReason::Aborted), Vec::new()))
        }
    }
}

/// The events of `player` taking the free `seat` of an open table: its `sat` event, and the
/// `started` event when it was the last free seat of a table that starts when full
/// ([`crate::protocol::TableOptions::start_when_full`]).
fn sat_and_start(state: &TableState, seat: Seat, player: SeatPlayer) -> Vec<Event> {
    let full = Seat::all(state.seats.len())
        .all(|s| s == seat || matches!(state.seats.get(s.index()), Some(Some(_))));
    let mut events = vec![Event::Sat { seat, player }];
    if state.options.start_when_full && full {
        events.push(Event::Started);
    }
    events
}

/// A chat line as the table sends it: trimmed, 1 … [`MAX_CHAT_CHARS`] characters, and by the
/// names' rules ([`check_text`] with [`TextKind::Chat`]) nothing that could break a line, hide
/// text or reorder it (emoji sequences pass).
///
/// # Errors
/// [`ServerError::BadMessage`] naming what is wrong; [`ServerError::Unauthorized`] without a
/// session.
pub(crate) fn chat_line(person: Option<&Person>, text: &str) -> Result<String, ServerError> {
    if person.is_none() {
        return Err(ServerError::Unauthorized(
            "chatting needs a session".to_owned(),
        ));
    }
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(ServerError::BadMessage("an empty chat line".to_owned()));
    }
    if chars > MAX_CHAT_CHARS {
        return Err(ServerError::BadMessage(format!(
            "a chat line has at most {MAX_CHAT_CHARS} characters"
        )));
    }
    match check_text(text, TextKind::Chat) {
        Ok(()) => Ok(text.to_owned()),
        Err(TextError::Control) => Err(ServerError::BadMessage(
            "a chat line has no control characters or line breaks".to_owned(),
        )),
        Err(TextError::Invisible) => Err(ServerError::BadMessage(
            "a chat line cannot contain invisible or direction-changing characters".to_owned(),
        )),
    }
}

/// The events of `seat`'s draw offer to the computer at `computer`: the offer, then the
/// agreed draw when the computer `accepts`, else its decline.
pub(crate) fn draw_offered_to_computer(seat: Seat, computer: Seat, accepts: bool) -> Vec<Event> {
    let answer = if accepts {
        ended(Outcome::draw(EndReason::Agreement), Vec::new())
    } else {
        Event::DrawDeclined { seat: computer }
    };
    vec![Event::DrawOffered { seat }, answer]
}

/// A move of `seat` (the seat to move) arriving at `now`: played, unless the seat's flag has
/// already fallen, in which case it loses on time whatever the move is.
pub(crate) fn move_or_flag(state: &TableState, seat: Seat, mv: AnyMove, now: Instant) -> Decision {
    match flag(state, seat, now) {
        Some(e) => Decision::Events(vec![e]),
        None => Decision::Play { seat, mv },
    }
}

/// Plays `mv` for `seat` on the live state at `at` and returns its `moved` event, followed by
/// a `defeated` event per sanguo kingdom the move defeated (`spec/sanguo.md` §6.1, in the order
/// they happened) and the `ended` event when the move ends the game; all already applied.
///
/// # Errors
/// [`ServerError::IllegalMove`] with the rule it breaks; the state is then unchanged.
pub(crate) fn play(
    state: &mut TableState,
    seat: Seat,
    mv: AnyMove,
    at: Instant,
) -> Result<Vec<Event>, ServerError> {
    let record = state
        .game
        .play(mv)
        .map_err(|e| ServerError::IllegalMove(move_error_text(&mv.to_string(), e)))?;
    let clocks_ms = state.clocks.as_mut().map(|c| {
        c.stop_after_move(at);
        c.remaining_ms(at)
    });
    state.after_move(clocks_ms.as_deref(), at);
    let ply = state.game.ply();
    let mut events = vec![Event::Moved {
        seat,
        mv: record,
        ply,
        clocks_ms,
    }];
    for d in defeats_at(&state.game, ply) {
        state.version += 1;
        events.push(d);
    }
    if let Some(outcome) = state.game.outcome() {
        let winners = state.game.winner_seats();
        state.end(outcome.clone(), &winners, at);
        events.push(ended(outcome, winners));
    }
    state.position_version = state.version;
    Ok(events)
}

/// Whether `event` changes what a move answers: the game (a move, a sanguo defeat, a
/// takeback), the turn, the seats or the phase (created, sat, stood, started, ended). Offers,
/// requests and their answers (draw, takeback, rematch) and the rematch's table change none of
/// it: a move chosen before them still answers the same position. Chat lines and presence are
/// not events at all.
pub(crate) fn changes_position(event: &Event) -> bool {
    match event {
        Event::Created { .. }
        | Event::Sat { .. }
        | Event::Stood { .. }
        | Event::Started
        | Event::Moved { .. }
        | Event::Defeated { .. }
        | Event::TakenBack { .. }
        | Event::Ended { .. } => true,
        Event::DrawOffered { .. }
        | Event::DrawDeclined { .. }
        | Event::TakebackOffered { .. }
        | Event::TakebackDeclined { .. }
        | Event::RematchOffered { .. }
        | Event::RematchDeclined { .. }
        | Event::Rematched { .. }
        | Event::Berserked { .. } => false,
    }
}

/// The `defeated` events of the sanguo defeats that happened with move `ply` (none in the
/// other games).
pub(super) fn defeats_at(game: &AnyGame, ply: usize) -> Vec<Event> {
    let Some(g) = game.as_sanguo() else {
        return Vec::new();
    };
    g.defeats()
        .iter()
        .filter(|d| d.ply == ply)
        .map(|d| {
            let d = defeat_of(d);
            Event::Defeated {
                seat: d.seat,
                reason: d.reason,
                heir: d.heir,
                ply: d.ply,
            }
        })
        .collect()
}

/// A defeat of the rules in the protocol's seats.
pub(super) fn defeat_of(d: &chuhe_rules::sanguo::DefeatEvent) -> Defeat {
    Defeat {
        seat: Seat::new(d.defeat.kingdom.index()),
        reason: d.defeat.reason,
        heir: Seat::new(d.defeat.heir.index()),
        ply: d.ply,
    }
}

/// The `ended` event when `seat`'s flag has fallen by `now` (it is the running clock and its
/// deadline has passed), else `None`.
pub(crate) fn flag(state: &TableState, seat: Seat, now: Instant) -> Option<Event> {
    let (running, deadline) = state.clocks.as_ref()?.flag_deadline()?;
    if running != seat.index() || deadline > now || state.phase != Phase::Running {
        return None;
    }
    if before_first_move(state, seat) {
        return Some(ended(Outcome::draw(EndReason::Aborted), Vec::new()));
    }
    let (outcome, winners) = state.game.table_ending(seat, EndReason::Timeout)?;
    Some(ended(outcome, winners))
}

/// Whether `seat`, still in the game, has not played its first move yet: every game starts
/// with seat 0, then 1, then 2, and no move was ever taken back.
fn before_first_move(state: &TableState, seat: Seat) -> bool {
    !state.taken_back && state.game.ply() <= seat.index() && state.game.is_active(seat)
}

/// When the seat to move of a running timed game must have played its first move, `limit`
/// after its turn began (the time its clock already ran counts, across restarts: it is
/// charged in the clocks' snapshot): that seat and the time. `None` once it has moved, for an
/// untimed game, and while the game does not run.
pub(crate) fn first_move_deadline(
    state: &TableState,
    limit: std::time::Duration,
) -> Option<(Seat, Instant)> {
    if state.phase != Phase::Running {
        return None;
    }
    let mut initial = std::time::Duration::from_millis(state.options.time?.initial_ms);
    let clocks = state.clocks.as_ref()?;
    // a berserk seat started from half its time: what it lost was not used
    if let Some(r) = clocks.running_seat() {
        if state.berserks.contains(&Seat::new(r)) {
            initial = initial.saturating_sub(crate::table::clock::berserk_penalty(initial));
        }
    }
    let (running, at) = clocks.first_move_deadline(initial, limit)?;
    let seat = Seat::new(running);
    before_first_move(state, seat).then_some((seat, at))
}

/// The `ended` event aborting the game when `seat` has not played its first move by `now`
/// ([`first_move_deadline`] with `limit`), else `None`: nobody wins, no rating changes.
pub(crate) fn first_move_missed(
    state: &TableState,
    seat: Seat,
    now: Instant,
    limit: std::time::Duration,
) -> Option<Event> {
    match first_move_deadline(state, limit) {
        Some((s, at)) if s == seat && at <= now => {
            Some(ended(Outcome::draw(EndReason::Aborted), Vec::new()))
        }
        _ => None,
    }
}

/// The `ended` event when the person at `seat` has been away from the running game for the
/// grace period, or `None` when that changes nothing (a defeated sanguo kingdom). A seat that
/// has not played its first move yet (every game starts with seat 0, then 1, then 2) aborts
/// the game instead, as lichess does: nobody loses and no rating changes.
pub(crate) fn abandon(state: &TableState, seat: Seat) -> Option<Event> {
    if state.phase != Phase::Running {
        return None;
    }
    if state.game.ply() <= seat.index() && state.game.is_active(seat) {
        return Some(ended(Outcome::draw(EndReason::Aborted), Vec::new()));
    }
    let (outcome, winners) = state.game.table_ending(seat, EndReason::Abandonment)?;
    Some(ended(outcome, winners))
}

/// The `stood` event freeing `seat` of an open table whose person has been away for the grace
/// period, or `None` once the game has started or the seat is free.
pub(crate) fn vacate(state: &TableState, seat: Seat) -> Vec<Event> {
    let taken = matches!(state.seats.get(seat.index()), Some(Some(_)));
    if state.phase == Phase::Open && taken {
        leave(state, seat)
    } else {
        Vec::new()
    }
}

/// The events of the person at `seat` leaving an open table: it stands, and when no other person
/// stays seated the computer seats stand too (nobody is left to play them, and the table would
/// wait in the lobby for ever with only the computer at it).
pub(super) fn leave(state: &TableState, seat: Seat) -> Vec<Event> {
    let person_stays = Seat::all(state.seats.len()).any(|s| {
        s != seat
            && matches!(state.seats.get(s.index()), Some(Some(_)))
            && state.computer_level(s).is_none()
    });
    let mut events = vec![Event::Stood { seat }];
    if !person_stays {
        events.extend(
            Seat::all(state.seats.len())
                .filter(|&s| state.computer_level(s).is_some())
                .map(|s| Event::Stood { seat: s }),
        );
    }
    events
}

/// The `ended` event: the result text only when the outcome names the winners by colour (a
/// banqi seat that wins before the first flip has none).
pub(crate) fn ended(outcome: Outcome, winner_seats: Vec<Seat>) -> Event {
    let result = if outcome.winners.is_empty() && !winner_seats.is_empty() {
        None
    } else {
        outcome.result_text().map(str::to_owned)
    };
    Event::Ended {
        result,
        outcome,
        winner_seats,
    }
}

/// Whether the rematch is agreed and its table not made yet: the game has ended, no
/// `rematched` event yet, and every seat with a person wants it (the computer always does).
/// This is the one decision: from the `rematch_offered` event that completes it, nothing takes
/// it back (a late `decline_rematch` is refused, a seat leaving withdraws nothing), so the
/// table made for it is always the one its `rematched` event names.
pub(crate) fn is_rematch_agreed(state: &TableState) -> bool {
    state.phase == Phase::Ended
        && state.rematch.is_none()
        && !state.rematch_offers.is_empty()
        && Seat::all(state.seats.len()).all(|seat| {
            state.rematch_offers.contains(&seat) || state.computer_level(seat).is_some()
        })
}

/// The rematch to create once it is agreed ([`is_rematch_agreed`]): the table's options and
/// its players, each moved one seat on (the player at seat `s` sits at `(s + 1) % seats`:
/// xiangqi and banqi swap colours, sanguo turns the kingdoms). `None` while someone has not
/// agreed, before the end, and once the rematch has its table.
pub(crate) fn rematch_due(state: &TableState) -> Option<(TableOptions, Vec<Option<SeatPlayer>>)> {
    if !is_rematch_agreed(state) {
        return None;
    }
    let n = state.seats.len();
    let mut seats = vec![None; n];
    for (s, player) in state.seats.iter().enumerate() {
        seats[(s + 1) % n].clone_from(player);
    }
    Some((state.options.clone(), seats))
}

/// The `rematched` event once the agreed rematch's table `table` exists, or `None` when no
/// rematch is due (its `rematched` event is already stored).
pub(crate) fn rematched(state: &TableState, table: &str) -> Option<Event> {
    rematch_due(state).map(|_| Event::Rematched {
        table: table.to_owned(),
    })
}

/// The `rematch_declined` event withdrawing the rematch `seat` asked for, when its person has
/// left the table (its last connection closed) before the rematch was agreed; else `None`
/// (once agreed, the rematch stands: its table is made and the player finds it at this one).
pub(crate) fn withdraw_rematch(state: &TableState, seat: Seat) -> Option<Event> {
    let open = state.phase == Phase::Ended && state.rematch.is_none() && !is_rematch_agreed(state);
    (open && state.rematch_offers.contains(&seat)).then_some(Event::RematchDeclined { seat })
}

/// The seats of the indices that [`AnyGame`] answers with (winners, seats in check).
pub(super) fn move_error_text(text: &str, e: MoveError) -> String {
    match e {
        MoveError::Syntax(m) => m.to_string(),
        MoveError::Illegal(reason) => format!("{text} ({reason})"),
    }
}

/// The moves a takeback for `seat` removes: its own last move, and the answer to it when the
/// other side has answered (it is `seat`'s turn again).
pub(super) fn takeback_plies(state: &TableState, seat: Seat) -> usize {
    if state.to_move() == Some(seat) {
        2
    } else {
        1
    }
}
