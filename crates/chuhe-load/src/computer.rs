//! A guest's game against the computer (`--computer-games`): the guest at seat 0, the computer
//! at `--computer-level` in the other seats; the guest's acks and the computer's answer times
//! measured apart. No reconnecting: a closed connection is an error.

use crate::choice::next_move;
use crate::game::Pending;
use crate::settings::LoadSettings;
use crate::setup::{new_guest, new_table, next_address, url_index};
use crate::socket::{open, send, spawn_reader, Note, Report};
use crate::stats::{lock, micros, Totals};
use crate::wire::{self, changes, Incoming, IncomingEvent};
use chuhe_rules::Variant;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Plays games against the computer one after another in one slot until the deadline.
pub(crate) async fn computer_slot(
    slot: usize,
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) {
    let mut rng = StdRng::seed_from_u64(
        settings.seed ^ (slot as u64).wrapping_mul(0x85eb_ca6b) ^ 0xc0ff_ee00,
    );
    let mut round = 0usize;
    while Instant::now() < deadline {
        let variant = settings.variants[(slot + round) % settings.variants.len()];
        // After the games between people in the URL rotation.
        let game = round * settings.computer_games + slot + settings.games;
        round += 1;
        if let Err(e) = play_computer_game(
            game, slot, variant, &settings, &totals, &addresses, deadline, &mut rng,
        )
        .await
        {
            totals.error(format!("against the computer: {e}"));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// One game of a guest against the computer, from the guest's session to its end (or the
/// deadline).
#[allow(clippy::too_many_arguments)]
async fn play_computer_game(
    number: usize,
    slot: usize,
    variant: Variant,
    settings: &Arc<LoadSettings>,
    totals: &Arc<Totals>,
    addresses: &AtomicU32,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let url = &settings.urls[url_index(settings.urls.len(), number, 0, 0)];
    let address = settings.spread.then(|| next_address(addresses));
    let player = new_guest(url, address, &format!("load c{slot}"))
        .await
        .map_err(|f| f.message)?;
    let table = new_table(url, &player, variant, settings.time)
        .await
        .map_err(|f| f.message)?;
    let (mut writer, reader) = open(url, &table, None, &player)
        .await
        .map_err(|f| f.message)?;
    let (inbox_tx, mut inbox) = mpsc::unbounded_channel();
    spawn_reader(reader, 0, 0, inbox_tx, None);
    send(&mut writer, &wire::sit(0)).await?;
    for seat in 1..variant.seat_count() {
        send(
            &mut writer,
            &wire::sit_computer(seat, settings.computer_level),
        )
        .await?;
    }
    send(&mut writer, &wire::start()).await?;
    totals.computer_started.fetch_add(1, Ordering::Relaxed);
    // The guest's move not yet acknowledged; the move to send when its think time is over.
    let mut pending: Option<Pending> = None;
    let mut scheduled: Option<(Instant, u64, String)> = None;
    // When the seat to move began its turn (the last update with a move, or the start).
    let mut turn_began: Option<Instant> = None;
    let mut last_sent: Option<Instant> = None;
    loop {
        let wake = scheduled.as_ref().map_or(deadline, |s| s.0.min(deadline));
        let next = tokio::select! {
            biased;
            m = inbox.recv() => Some(m),
            () = tokio::time::sleep_until(wake) => None,
        };
        let Some(next) = next else {
            if Instant::now() >= deadline {
                return Ok(());
            }
            if let Some((_, version, mv)) = scheduled.take() {
                let sent = Instant::now();
                pending = Some(Pending { version, sent });
                last_sent = Some(sent);
                send(&mut writer, &wire::play(version, mv)).await?;
            }
            continue;
        };
        let Some(Note { at, report, .. }) = next else {
            return Err("connection closed by the server".to_owned());
        };
        let msg = match report {
            Report::Message(msg) => msg,
            _ => return Err("connection closed by the server".to_owned()),
        };
        let (events, legal_moves, version) = match msg {
            Incoming::Error { code, message } => {
                totals.error(format!("against the computer: {code}: {message}"));
                pending = None;
                continue;
            }
            Incoming::State {
                version,
                legal_moves,
                ..
            } => (Vec::new(), legal_moves, version),
            other => match changes(other) {
                Some(change) => change,
                None => continue,
            },
        };
        for (version, event) in events {
            match event {
                IncomingEvent::Moved { seat: 0, mv } => {
                    let mine = pending.as_ref().is_some_and(|p| version == p.version + 1);
                    if let (true, Some(p)) = (mine, pending.take()) {
                        if totals.measured(p.sent) {
                            lock(&totals.computer_ack).0.push(micros(at - p.sent));
                        }
                        lock(&totals.acked)
                            .entry(table.clone())
                            .or_default()
                            .push((version, mv));
                        totals.computer_moves.fetch_add(1, Ordering::Relaxed);
                    }
                    turn_began = Some(at);
                }
                IncomingEvent::Moved { .. } => {
                    if let Some(began) = turn_began {
                        if totals.measured(began) {
                            lock(&totals.computer_answer).0.push(micros(at - began));
                        }
                    }
                    totals.computer_answers.fetch_add(1, Ordering::Relaxed);
                    turn_began = Some(at);
                }
                IncomingEvent::Ended {} => {
                    totals.computer_ended.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
                _ => {}
            }
        }
        // The game has started when the first legal moves come (the guest moves first in
        // xiangqi and banqi; in sanguo seat 0 is the first kingdom too).
        if turn_began.is_none() && !legal_moves.is_empty() {
            turn_began = Some(at);
        }
        if legal_moves.is_empty() {
            continue;
        }
        let (due, mv) = next_move(settings, rng, &legal_moves, at, last_sent);
        scheduled = Some((due, version, mv));
    }
}
