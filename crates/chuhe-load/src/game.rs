//! A game between people: one guest session and one WebSocket per seat, the seats taken, the
//! game started, random legal moves until its end (or the deadline), the acks and hand-overs
//! measured, and with `--reconnect` each lost connection made again.

use crate::choice::next_move;
use crate::link::Link;
use crate::settings::LoadSettings;
use crate::setup::{new_guest, new_table, next_address, retrying, url_index, Player};
use crate::socket::{open, reconnect, send, spawn_reader, Note, Reconnect, Report, Writer};
use crate::stats::{lock, micros, Totals, SLOW_ACK_MICROS};
use crate::wire::{self, changes, Incoming, IncomingEvent};
use chuhe_rules::Variant;
use chuhe_server::protocol::ClientMessage;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// A move sent and not yet acknowledged.
pub(crate) struct Pending {
    /// The version the move was sent against; its `moved` event has the next one.
    pub(crate) version: u64,
    pub(crate) sent: Instant,
}

/// Plays games one after another in one slot until the deadline.
pub(crate) async fn game_slot(
    slot: usize,
    settings: Arc<LoadSettings>,
    totals: Arc<Totals>,
    addresses: Arc<AtomicU32>,
    deadline: Instant,
) {
    let mut rng = StdRng::seed_from_u64(settings.seed ^ (slot as u64).wrapping_mul(0x9e37_79b9));
    let mut round = 0usize;
    while Instant::now() < deadline {
        let variant = settings.variants[(slot + round) % settings.variants.len()];
        // Every game of the run has its own number (it chooses the game's URLs).
        let game = round * settings.games + slot;
        round += 1;
        if let Err(e) = play_game(
            game, slot, variant, &settings, &totals, &addresses, deadline, &mut rng,
        )
        .await
        {
            totals.error(e);
            // A failure to set up: do not hammer the server in a loop.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// A game in play: its connections and what it waits for.
struct Game<'a> {
    settings: &'a Arc<LoadSettings>,
    totals: &'a Arc<Totals>,
    /// The game's number (for its URLs).
    number: usize,
    table: String,
    players: Vec<Player>,
    /// Per seat, its connection's writer; `None` while it reconnects.
    writers: Vec<Option<Writer>>,
    links: Vec<Link>,
    /// With `--reconnect`, per seat, the errors its current connection sent: they count as
    /// errors once the connection goes on, as failed tries when it closes (an error, then the
    /// close, is how a server refuses a connection or sends it elsewhere).
    held: Vec<Vec<String>>,
    /// Per seat, its move not yet acknowledged (each seat's own connection acknowledges it).
    pending: Vec<Option<Pending>>,
    /// The last move sent, until the next seat to move receives its legal moves.
    handover: Option<Pending>,
    /// The move to send, when its think time is over: (at, seat, version, move).
    scheduled: Option<(Instant, usize, u64, String)>,
    /// A sender for reconnecting tasks (with `--reconnect`).
    inbox: Option<mpsc::UnboundedSender<Note>>,
}

impl Game<'_> {
    /// Sends `msg` on `seat`'s connection: whether it was written. Without `--reconnect` a
    /// failure ends the game; with it, the connection counts as lost (and is made again).
    async fn send(&mut self, seat: usize, msg: &ClientMessage) -> Result<bool, String> {
        let Some(writer) = self.writers[seat].as_mut() else {
            return Ok(false);
        };
        match send(writer, msg).await {
            Ok(()) => Ok(true),
            Err(_) if self.settings.reconnect => {
                self.lose(seat, Instant::now());
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// `seat`'s connection was lost at `at` (`--reconnect`): its move not acknowledged goes in
    /// doubt, its scheduled move is dropped (the state after reconnecting brings the legal
    /// moves again), and a task connects it again from the last version it saw.
    fn lose(&mut self, seat: usize, at: Instant) {
        self.writers[seat] = None;
        let unacknowledged = self.pending[seat].take().map(|p| p.version);
        if unacknowledged.is_some() {
            self.totals.in_doubt.fetch_add(1, Ordering::Relaxed);
        }
        let link = &mut self.links[seat];
        let generation = link.lose(at, unacknowledged);
        if self.scheduled.as_ref().is_some_and(|s| s.1 == seat) {
            self.scheduled = None;
        }
        // A hand-over measured across the loss would measure the reconnection.
        self.handover = None;
        for e in self.held[seat].drain(..) {
            self.totals.failed_try(e);
        }
        let Some(inbox) = self.inbox.clone() else {
            return;
        };
        tokio::spawn(reconnect(Reconnect {
            settings: self.settings.clone(),
            totals: self.totals.clone(),
            game: self.number,
            table: self.table.clone(),
            seat,
            player: self.players[seat].clone(),
            since: link.since(),
            generation,
            turn: link.turn + 1,
            lost: link.lost.unwrap_or(at),
            inbox,
        }));
    }

    /// Counts the held errors of `seat` as errors.
    fn release(&mut self, seat: usize) {
        for e in self.held[seat].drain(..) {
            self.totals.error(e);
        }
    }

    /// Counts every held error as an error (the game is over).
    fn release_all(&mut self) {
        for seat in 0..self.held.len() {
            self.release(seat);
        }
    }
}

/// One game from the guests' sessions to its end (or the deadline).
#[allow(clippy::too_many_arguments)]
async fn play_game(
    number: usize,
    slot: usize,
    variant: Variant,
    settings: &Arc<LoadSettings>,
    totals: &Arc<Totals>,
    addresses: &AtomicU32,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let urls = &settings.urls;
    let n = urls.len();
    let seats = variant.seat_count();
    let mut players = Vec::with_capacity(seats);
    for seat in 0..seats {
        let address = settings.spread.then(|| next_address(addresses));
        let name = format!("load {slot}.{seat}");
        let name = &name;
        let player = retrying(settings, totals, move |turn| {
            new_guest(&urls[url_index(n, number, seat, turn)], address, name)
        })
        .await?;
        players.push(player);
    }
    let creator = &players[0];
    let table = retrying(settings, totals, move |turn| {
        new_table(
            settings
                .table_url
                .as_ref()
                .unwrap_or(&urls[url_index(n, number, 0, turn)]),
            creator,
            variant,
            settings.time,
        )
    })
    .await?;
    if number == 0 {
        // The run's first table: the spectators' (`--spectators`).
        let url = settings.table_url.as_ref().unwrap_or(&urls[0]).clone();
        let _ = totals.watched.set((url, table.clone()));
    }
    let (inbox_tx, mut inbox) = mpsc::unbounded_channel();
    let mut writers = Vec::with_capacity(seats);
    let mut links = Vec::with_capacity(seats);
    for (seat, p) in players.iter().enumerate() {
        let table = &table;
        let (writer, reader, turn) = retrying(settings, totals, move |turn| async move {
            let url = &urls[url_index(n, number, seat, turn)];
            open(url, table, None, p).await.map(|(w, r)| (w, r, turn))
        })
        .await?;
        spawn_reader(reader, seat, 0, inbox_tx.clone(), Some(totals.clone()));
        writers.push(Some(writer));
        links.push(Link::new(turn));
    }
    // Without reconnecting, the inbox ends when every connection has closed.
    let keep = settings.reconnect.then_some(inbox_tx);
    let mut g = Game {
        settings,
        totals,
        number,
        table,
        players,
        writers,
        links,
        held: vec![Vec::new(); seats],
        pending: (0..seats).map(|_| None).collect(),
        handover: None,
        scheduled: None,
        inbox: keep,
    };
    let result = play(&mut g, &mut inbox, deadline, rng).await;
    g.release_all();
    result
}

/// The game's moves from the seats taken to its end (or the deadline).
async fn play(
    g: &mut Game<'_>,
    inbox: &mut mpsc::UnboundedReceiver<Note>,
    deadline: Instant,
    rng: &mut StdRng,
) -> Result<(), String> {
    let (settings, totals) = (g.settings, g.totals);
    let seats = g.writers.len();
    for seat in 0..seats {
        g.send(seat, &wire::sit(seat)).await?;
    }
    totals.games_started.fetch_add(1, Ordering::Relaxed);
    let mut started = false;
    // Seat 0's view of which seats are taken (from its state, then the `sat`/`stood` events).
    let mut seated: Vec<bool> = Vec::new();
    // When each seat's connection last sent a move: the next one waits MIN_GAP after it.
    let mut last_sent: Vec<Option<Instant>> = vec![None; seats];
    loop {
        let wake = g.scheduled.as_ref().map_or(deadline, |s| s.0.min(deadline));
        // What has arrived first (a closed connection among it), then the timer: a move is
        // never sent on a connection whose close is already in the inbox.
        let next = tokio::select! {
            biased;
            m = inbox.recv() => Some(m),
            () = tokio::time::sleep_until(wake) => None,
        };
        let Some(next) = next else {
            // The timer: the deadline, or a think time is over.
            if Instant::now() >= deadline {
                return Ok(());
            }
            if let Some((_, seat, version, mv)) = g.scheduled.take() {
                if g.writers[seat].is_some() {
                    let sent = Instant::now();
                    // In doubt from here: a connection lost while writing it may have sent it.
                    g.pending[seat] = Some(Pending { version, sent });
                    if g.send(seat, &wire::play(version, mv)).await? {
                        last_sent[seat] = Some(sent);
                        g.handover = Some(Pending { version, sent });
                    }
                }
            }
            continue;
        };
        let Some(Note {
            seat,
            generation,
            at,
            report,
        }) = next
        else {
            return Err("connection closed by the server".to_owned());
        };
        if generation != g.links[seat].generation {
            continue;
        }
        let msg = match report {
            Report::Message(msg) => msg,
            // Without reconnecting, the game goes on until every connection has closed.
            Report::Closed if settings.reconnect => {
                g.lose(seat, at);
                continue;
            }
            Report::Closed => continue,
            Report::Connected { writer, turn } => {
                g.writers[seat] = Some(writer);
                g.links[seat].turn = turn;
                continue;
            }
            Report::GaveUp(e) => return Err(e),
        };
        if let Incoming::Error { code, message } = msg {
            if settings.reconnect {
                g.held[seat].push(format!("{code}: {message}"));
            } else {
                totals.error(format!("{code}: {message}"));
            }
            g.pending[seat] = None;
            // The move may be stored all the same: the state tells (the game would wait for
            // an update that only the table's next action sends).
            if code == "in_doubt" {
                g.send(seat, &wire::sync()).await?;
            }
            continue;
        }
        g.release(seat);
        // An update carries the change's events and the legal moves of the seat to move; a
        // replayed event and the state on connecting carry one of the two.
        let mut restored = false;
        let (events, legal_moves, version) = match msg {
            Incoming::State {
                version,
                legal_moves,
                table: summary,
            } => {
                if let Some((gap, not_landed)) = g.links[seat].restored(at) {
                    restored = true;
                    totals.reconnects.fetch_add(1, Ordering::Relaxed);
                    lock(&totals.gaps).0.push(micros(gap));
                    if not_landed {
                        totals.not_landed.fetch_add(1, Ordering::Relaxed);
                    }
                    // A seat taken on a lost connection may not have been stored: take it.
                    if summary.phase == "open"
                        && summary.seats.get(seat).is_some_and(Option::is_none)
                    {
                        g.send(seat, &wire::sit(seat)).await?;
                    }
                }
                if seat == 0 {
                    seated = summary.seats.iter().map(Option::is_some).collect();
                    // A `start` sent on a lost connection may not have been stored either.
                    started = summary.phase != "open";
                }
                (Vec::new(), legal_moves, version)
            }
            other => match changes(other) {
                Some(change) => change,
                None => continue,
            },
        };
        g.links[seat].saw(version);
        for (version, event) in events {
            match event {
                IncomingEvent::Moved { seat: mover, mv } => {
                    if g.links[seat].lost.is_some() && g.links[seat].landed(seat, mover, version) {
                        totals.landed.fetch_add(1, Ordering::Relaxed);
                    }
                    // The version and the seat name the move: the event carries its record (a
                    // banqi flip `flip c2` is recorded as `c2=R`).
                    let mine = g.pending[seat]
                        .as_ref()
                        .is_some_and(|p| mover == seat && version == p.version + 1);
                    if mine {
                        if let Some(p) = g.pending[seat].take() {
                            if totals.measured(p.sent) {
                                totals.measured_moves.fetch_add(1, Ordering::Relaxed);
                                totals
                                    .deliveries
                                    .fetch_add(g.links.len() as u64, Ordering::Relaxed);
                                let took = micros(at - p.sent);
                                lock(&totals.ack).0.push(took);
                                if took > SLOW_ACK_MICROS {
                                    totals.slow(p.sent);
                                }
                            }
                            lock(&totals.acked)
                                .entry(g.table.clone())
                                .or_default()
                                .push((version, mv));
                            totals.moves.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                IncomingEvent::Sat { seat: taken } if seat == 0 => {
                    if let Some(s) = seated.get_mut(taken) {
                        *s = true;
                    }
                }
                IncomingEvent::Stood { seat: freed } if seat == 0 => {
                    if let Some(s) = seated.get_mut(freed) {
                        *s = false;
                    }
                }
                IncomingEvent::Ended {} if seat == 0 => {
                    totals.games_ended.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
                _ => {}
            }
        }
        // Every seat taken and connected (a seated person without a connection makes `start`
        // refused with `not_ready`).
        let ready = !seated.is_empty()
            && seated.iter().all(|s| *s)
            && g.links.iter().all(Link::is_up)
            && g.writers.iter().all(Option::is_some);
        if !started && ready {
            started = g.send(0, &wire::start()).await?;
        }
        if legal_moves.is_empty() {
            continue;
        }
        if !restored && g.handover.as_ref().is_some_and(|p| version > p.version) {
            if let Some(p) = g.handover.take() {
                if totals.measured(p.sent) {
                    lock(&totals.handover).0.push(micros(at - p.sent));
                }
            }
        }
        let (due, mv) = next_move(settings, rng, &legal_moves, at, last_sent[seat]);
        g.scheduled = Some((due, seat, version, mv));
    }
}
