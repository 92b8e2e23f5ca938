//! The table's connections: registering one and replaying what it missed, presence and absences,
//! chat, and sending each connection its view of a change.

use super::{keep, Connection, Table};
use crate::error::ServerError;
use crate::protocol::{ChatRoom, Seat, SeatPlayer, ServerMessage, State, Update, VersionedEvent};
use crate::table::core::{self};
use crate::table::Person;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::Instant;

impl Table {
    pub(super) fn connect(
        &mut self,
        person: Option<Person>,
        since: Option<u64>,
        out: mpsc::UnboundedSender<ServerMessage>,
    ) -> Result<u64, ServerError> {
        if let Some(since) = since {
            if since > self.state.version {
                return Err(ServerError::BadMessage(format!(
                    "since {since} is beyond the table's version {}",
                    self.state.version
                )));
            }
            self.replay(&out, since);
        }
        let id = self.next_conn;
        self.next_conn += 1;
        let _ = out.send(ServerMessage::State(Box::new(self.view(person.as_ref()))));
        self.conns.insert(
            id,
            Connection {
                person: person.clone(),
                out,
            },
        );
        if let Some(p) = person {
            self.presence_changed(&p);
        }
        self.send_spectators();
        Ok(id)
    }

    pub(super) fn replay(&self, out: &mpsc::UnboundedSender<ServerMessage>, since: u64) {
        for (i, event) in self.log.iter().enumerate().skip(since as usize) {
            let _ = out.send(ServerMessage::Event {
                version: i as u64 + 1,
                event: event.clone(),
            });
        }
    }

    pub(super) fn is_connected(&self, seat: Seat) -> bool {
        match &self.state.seats[seat.index()] {
            Some(SeatPlayer::Computer { .. }) => true,
            Some(SeatPlayer::Person { id, .. }) => self
                .conns
                .values()
                .any(|c| c.person.as_ref().is_some_and(|p| p.id == *id)),
            None => false,
        }
    }

    /// Updates the grace timer of the person's seat and tells everybody.
    pub(super) fn presence_changed(&mut self, person: &Person) {
        let Some(seat) = self.state.seat_of(person) else {
            return;
        };
        let connected = self.is_connected(seat);
        let i = seat.index();
        let was_absent = self.absent_since[i].is_some();
        if connected {
            self.absent_since[i] = None;
        } else if !was_absent && self.state.absence_counts(seat) {
            self.absent_since[i] = Some(Instant::now());
        }
        let abandon_ms = self.abandon_ms(Instant::now())[i];
        self.send_all(&ServerMessage::Presence {
            seat,
            connected,
            abandon_ms,
        });
    }

    /// Per seat: the milliseconds left at `now` of a running grace period, else `None`.
    pub(super) fn abandon_ms(&self, now: Instant) -> Vec<Option<u64>> {
        self.absent_since
            .iter()
            .map(|since| {
                since.map(|s| {
                    let left = (s + self.settings.grace).saturating_duration_since(now);
                    u64::try_from(left.as_millis()).unwrap_or(u64::MAX)
                })
            })
            .collect()
    }

    /// Sends a chat line of connection `conn` to its room: a seated person's to the seated
    /// persons, anyone else's to the connections without a seat.
    pub(super) fn chat(&mut self, conn: u64, text: &str) -> Result<(), ServerError> {
        let person = self.conns.get(&conn).and_then(|c| c.person.clone());
        let text = core::chat_line(person.as_ref(), text)?;
        let Some(person) = person else {
            return Ok(());
        };
        let seat = self.state.seat_of(&person);
        let room = if seat.is_some() {
            ChatRoom::Players
        } else {
            ChatRoom::Spectators
        };
        let msg = ServerMessage::Chat {
            room,
            name: person.name.clone(),
            seat,
            account: person.account,
            text,
        };
        let state = &self.state;
        let left = &mut self.left;
        self.conns.retain(|_, c| {
            let seated = c.person.as_ref().and_then(|p| state.seat_of(p)).is_some();
            if seated != (room == ChatRoom::Players) {
                return true;
            }
            keep(left, c, c.out.send(msg.clone()).is_ok())
        });
        Ok(())
    }

    /// The connections without a seat at the table (spectators, or a person not seated).
    pub(super) fn spectators(&self) -> usize {
        self.conns
            .values()
            .filter(|c| {
                c.person
                    .as_ref()
                    .and_then(|p| self.state.seat_of(p))
                    .is_none()
            })
            .count()
    }

    /// Tells everybody how many watch (after a connection came or went, or a seat changed).
    /// Tells every connection the spectator count: at once, or for a crowd (more than
    /// [`super::CROWD`] connections) at most once every [`super::CROWD_EVERY`].
    pub(super) fn send_spectators(&mut self) {
        if self.conns.len() > super::CROWD {
            if self.spectators_due.is_none() {
                self.spectators_due = Some(Instant::now() + super::CROWD_EVERY);
            }
            return;
        }
        self.spectators_due = None;
        let count = self.spectators();
        self.send_all(&ServerMessage::Spectators { count });
    }

    pub(super) fn send_all(&mut self, msg: &ServerMessage) {
        let left = &mut self.left;
        self.conns
            .retain(|_, c| keep(left, c, c.out.send(msg.clone()).is_ok()));
    }

    /// Sends every connection the [`Update`] of `events` (just applied and stored): the shared
    /// part is built once, and once more per seat that has a connection (its seat number, and
    /// the legal moves for the seat to move); connections of one seat, and all spectators,
    /// share one message.
    pub(super) fn send_update(&mut self, events: Vec<VersionedEvent>) {
        let shared = Arc::new(self.state.update(events, self.connected(), Instant::now()));
        let mut per_seat: Vec<Option<Arc<Update>>> = vec![None; self.state.seats.len()];
        let state = &self.state;
        let left = &mut self.left;
        self.conns.retain(|_, c| {
            let update = match c.person.as_ref().and_then(|p| state.seat_of(p)) {
                None => shared.clone(),
                Some(seat) => per_seat[seat.index()]
                    .get_or_insert_with(|| Arc::new(state.update_for(&shared, seat)))
                    .clone(),
            };
            keep(left, c, c.out.send(ServerMessage::Update(update)).is_ok())
        });
    }

    /// Per seat: whether someone is connected for it (computers always are).
    pub(super) fn connected(&self) -> Vec<bool> {
        Seat::all(self.state.seats.len())
            .map(|seat| self.is_connected(seat))
            .collect()
    }

    pub(super) fn view(&self, person: Option<&Person>) -> State {
        let you = person.and_then(|p| self.state.seat_of(p));
        let now = Instant::now();
        State {
            abandon_ms: self.abandon_ms(now),
            ..self.state.view(you, self.connected(), now)
        }
    }
}
