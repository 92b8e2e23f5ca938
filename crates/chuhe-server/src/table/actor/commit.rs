//! Storing what the core decided: the events written (with the row, the finished game and the
//! ratings when a game ends) before anyone is told, what follows once they are stored, and the
//! state rebuilt from the log when a write fails.

use super::Table;
use crate::computer;
use crate::error::ServerError;
use crate::protocol::{
    Event, FinishedGame, Phase, Seat, SeatPlayer, ServerMessage, VersionedEvent,
};
use crate::store::{RatedGame, StoreError, TableWrite};
use crate::table::clock::Clocks;
use crate::table::core::{self, Decision, TableState};
use crate::table::TableNotice;
use chuhe_rules::outcome::EndReason;
use std::sync::atomic::Ordering;
use tokio::time::Instant;

impl Table {
    /// Carries out a decision of the core at `at`: applies its events to the live state in
    /// place (a move is played there), writes them to the store, and only then sends them and
    /// every connection's view. When the write fails, the state is rebuilt from the event log
    /// as it was before, and the error is returned: nothing was acknowledged or sent.
    pub(super) async fn commit(
        &mut self,
        decision: Decision,
        at: Instant,
    ) -> Result<(), ServerError> {
        let version = self.state.version;
        let phase = self.state.phase;
        // The clocks before, to put back on a failed write (small: a few numbers per seat; the
        // event log alone cannot restore when the running clock started).
        let clocks = self.state.clocks.clone();
        let events = match decision {
            Decision::Events(events) if events.is_empty() => return Ok(()),
            Decision::Events(events) => {
                for e in &events {
                    if let Err(detail) = self.state.apply(e, at) {
                        self.rebuild(clocks);
                        return Err(ServerError::Internal(detail));
                    }
                }
                events
            }
            // An illegal move leaves the state unchanged.
            Decision::Play { seat, mv } => core::play(&mut self.state, seat, mv, at)?,
            Decision::OfferToComputer { seat, computer } => {
                let accepts = computer::accepts_draw(&self.state.game, computer);
                let events = core::draw_offered_to_computer(seat, computer, accepts);
                for e in &events {
                    if let Err(detail) = self.state.apply(e, at) {
                        self.rebuild(clocks);
                        return Err(ServerError::Internal(detail));
                    }
                }
                events
            }
        };
        let ends = phase != Phase::Ended && self.state.phase == Phase::Ended;
        if let Err(e) = self.write(&events, ends, at).await {
            self.rebuild(clocks);
            if e == ServerError::TableMoved {
                // Refused by the fence: nothing was written, and never will be from here.
                self.lose();
                return Err(e);
            }
            // It may have landed all the same: the next action reads the store first.
            self.unsure = true;
            return Err(e);
        }
        let versioned = events
            .into_iter()
            .enumerate()
            .map(|(i, event)| VersionedEvent {
                version: version + 1 + i as u64,
                event,
            })
            .collect();
        self.after_stored(phase, versioned);
        Ok(())
    }

    /// What follows stored events (applied to the state, which was in `phase` before them):
    /// the timers and the table's notices follow the new state, the events join the log, and
    /// every connection gets the update.
    pub(super) fn after_stored(&mut self, phase: Phase, versioned: Vec<VersionedEvent>) {
        let ends = phase != Phase::Ended && self.state.phase == Phase::Ended;
        let started = phase == Phase::Open && self.state.phase == Phase::Running;
        // A freed seat has nobody to wait for.
        for (seat, s) in self.state.seats.iter().enumerate() {
            if s.is_none() {
                self.absent_since[seat] = None;
            }
        }
        if ends {
            self.absent_since.iter_mut().for_each(|a| *a = None);
            self.ended.store(true, Ordering::Release);
            let _ = self
                .settings
                .notices
                .send(TableNotice::Ended(self.state.id.clone()));
        }
        if started {
            // A seated person who is not connected when the game starts gets the grace period.
            let now = Instant::now();
            for seat in Seat::all(self.state.seats.len()) {
                if !self.is_connected(seat) && self.state.game.is_active(seat) {
                    self.absent_since[seat.index()] = Some(now);
                }
            }
            // tell everybody when the countdowns of the absent seats start
            for (seat, ms) in Seat::all(self.state.seats.len()).zip(self.abandon_ms(now)) {
                if ms.is_some() {
                    self.send_all(&ServerMessage::Presence {
                        seat,
                        connected: false,
                        abandon_ms: ms,
                    });
                }
            }
        }
        self.log.extend(versioned.iter().map(|v| v.event.clone()));
        self.update_listed();
        self.publish_listing();
        self.send_update(versioned);
        self.maybe_think();
        self.ask_rematch();
    }

    /// Writes `events` (already applied: the last is the row's version) with the table row at
    /// `at`, and, when they end the game, the new ratings and the finished game, in one
    /// transaction.
    pub(super) async fn write(
        &self,
        events: &[Event],
        ends: bool,
        at: Instant,
    ) -> Result<(), ServerError> {
        let rated = if ends { self.rated_result() } else { None };
        let finished = if ends {
            FinishedGame::from_events(
                &self.state.id,
                self.state.created_ms,
                crate::store::now_ms(),
                self.log.iter().chain(events),
            )
        } else {
            None
        };
        self.store
            .write_fenced(
                &TableWrite {
                    row: crate::table::row_of(&self.state, at),
                    events: events.to_vec(),
                    rated,
                    finished,
                },
                self.fence.as_ref(),
            )
            .await
            .map_err(|e| match e {
                StoreError::Fenced(_) => ServerError::TableMoved,
                e => e.into(),
            })?;
        Ok(())
    }

    /// Puts the state back as the event log (without the events that failed to be stored)
    /// builds it, with the clocks as they were before. The rare path of a failed write.
    pub(super) fn rebuild(&mut self, clocks: Option<Clocks>) {
        let s = &self.state;
        let at = Instant::now();
        match TableState::replay(s.id.clone(), s.options.clone(), s.created_ms, &self.log, at) {
            Ok(mut state) => {
                state.clocks = clocks;
                self.state = state;
            }
            // The log replayed when each event was made: this cannot fail short of a bug.
            Err((version, detail)) => ServerError::Internal(format!(
                "table {}: the event log does not replay at event {version}: {detail}",
                s.id
            ))
            .log(),
        }
    }

    /// The result to rate of a rated game that has just ended (none for an aborted game or a
    /// table that is not rated); the store computes the new ratings in the write's transaction.
    pub(super) fn rated_result(&self) -> Option<RatedGame> {
        let state = &self.state;
        let aborted = state
            .game
            .outcome()
            .is_some_and(|o| o.reason == EndReason::Aborted);
        if !state.options.rated || aborted {
            return None;
        }
        let mut players = Vec::new();
        for seat in &state.seats {
            match seat {
                Some(SeatPlayer::Person { id, .. }) if !players.contains(id) => {
                    players.push(id.clone())
                }
                // Rated tables seat account holders only, each once.
                _ => return None,
            }
        }
        let winners = state.game.winner_seats();
        let winners = Seat::all(players.len())
            .map(|s| winners.contains(&s))
            .collect();
        Some(RatedGame {
            variant: state.options.variant.as_str().to_owned(),
            players,
            winners,
        })
    }

    /// Settles a write whose outcome was unknown ([`Table::unsure`]): reads the table's stored
    /// version, and when it is ahead of the state (the write landed), applies the stored
    /// events after the state's version and sends them, as a write that succeeded would.
    ///
    /// # Errors
    /// The store cannot be read (the question stays open for the next action).
    pub(super) async fn settle(&mut self) -> Result<(), ServerError> {
        if !self.unsure {
            return Ok(());
        }
        if !self.still_owned().await {
            self.lose();
            return Err(ServerError::TableMoved);
        }
        let id = self.state.id.clone();
        let stored = self.store.table(&id).await?.map_or(0, |row| row.version);
        if stored > self.state.version {
            let from = self.state.version;
            let phase = self.state.phase;
            let now = Instant::now();
            let mut landed = Vec::new();
            for (version, event) in self.store.events(&id).await? {
                if version <= from {
                    continue;
                }
                self.state.apply(&event, now).map_err(|detail| {
                    ServerError::Internal(format!(
                        "table {id}: stored event {version} does not apply: {detail}"
                    ))
                })?;
                landed.push(VersionedEvent { version, event });
            }
            tracing::warn!(
                table = %id,
                from,
                to = self.state.version,
                "a write reported as failed had landed: its events are applied and sent"
            );
            self.after_stored(phase, landed);
        }
        self.unsure = false;
        Ok(())
    }

    pub(super) async fn save_clocks(&mut self) {
        if let Err(e) = self.settle().await {
            // The row is not written over: the stored events may be ahead of this state.
            e.log();
            self.store.mark_unsaved();
            return;
        }
        if self.state.clocks.is_some() && self.state.phase == Phase::Running {
            let row = crate::table::row_of(&self.state, Instant::now());
            match self.store.save_row_fenced(&row, self.fence.as_ref()).await {
                Err(StoreError::Fenced(_)) => self.lose(),
                Err(e) => ServerError::from(e).log(),
                Ok(()) => {}
            }
        }
    }
}
