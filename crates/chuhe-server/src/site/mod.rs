//! The site: the middle of the server, between its edges (HTTP, WebSocket, a cluster's
//! forwarded connections) and the tables, the store, the computer and the cluster. [`AppState`]
//! owns the store, the table actors in memory and this node's part of a cluster; it finds where a
//! table is served, creates tables and rematches, and stops them.

pub mod challenges;
pub mod events;
mod registry;
mod settings;
pub mod tournaments;

pub use settings::{Heartbeat, HttpLimits, RequestQuota, Settings, DEFAULT_DESCRIPTOR_RESERVE};

use crate::accounts::password;
use crate::cluster;
use crate::computer;
use crate::error::ServerError;
use crate::ids;
use crate::protocol;
use crate::store::{self, Store};
use crate::table::{self, TableHandle, TableNotice, TableSettings};
use crate::telemetry;
use registry::Tables;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, watch, Mutex};

struct Inner {
    store: Store,
    /// This node's part of a cluster, when it is one.
    cluster: Option<Arc<cluster::Cluster>>,
    /// In a cluster: where the table actors send their listings for the lobby.
    listing: Option<mpsc::UnboundedSender<protocol::TableSummary>>,
    settings: Settings,
    tables: Mutex<Tables>,
    shutdown: watch::Sender<bool>,
    notices: mpsc::UnboundedSender<TableNotice>,
    passwords: password::Passwords,
    events: events::PlayerEvents,
    tournaments: tournaments::Tournaments,
}

/// Where the creator of a table sits ([`AppState::create_table`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatChoice {
    /// This seat (0 is Red, Wei or banqi's first player).
    Seat(usize),
    /// A seat drawn at random.
    Random,
}

/// The server's shared state: the store and the table actors. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl AppState {
    /// A state on `store`; the open and running tables stored there are brought back (their
    /// actors start, their clocks resume), and ended tables missing from the list of finished
    /// games are added to it.
    ///
    /// # Errors
    /// The database failed, or a stored table does not replay.
    pub async fn new(store: Store, settings: Settings) -> Result<AppState, ServerError> {
        let (shutdown, _) = watch::channel(false);
        let (notices, notices_rx) = mpsc::unbounded_channel();
        computer::configure(settings.computer_threads, settings.computer_pause);
        let joined = match &settings.cluster {
            Some(c) => Some(Arc::new(cluster::Cluster::join(c.clone(), &store).await?)),
            None => None,
        };
        let (listing, listings) = match joined {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let state = AppState(Arc::new(Inner {
            store,
            cluster: joined.clone(),
            listing,
            settings,
            tables: Mutex::new(Tables::default()),
            shutdown,
            notices,
            passwords: password::Passwords::for_this_machine()?,
            events: events::PlayerEvents::default(),
            tournaments: tournaments::Tournaments::default(),
        }));
        tokio::spawn(follow_notices(state.downgrade(), notices_rx));
        tokio::spawn(challenges::run(state.downgrade()));
        if let Some(every) = state.0.settings.metrics_interval {
            tokio::spawn(sample_gauges(state.downgrade(), every));
        }
        let added = state.0.store.add_missing_finished().await?;
        if added > 0 {
            tracing::info!(games = added, "finished games listed from their events");
        }
        let indexed = state.0.store.add_missing_players().await?;
        if indexed > 0 {
            tracing::info!(games = indexed, "finished games indexed by player");
        }
        if let (Some(c), Some(listings)) = (joined, listings) {
            // The tables come to the node through its scan for tables nobody holds.
            let (relay, lines) = mpsc::unbounded_channel();
            state.0.events.set_relay(relay);
            cluster::start(state.downgrade(), c, listings, lines).await?;
            // The tournaments come the same way: each tick takes over those nobody runs.
            tokio::spawn(tournaments::run(state.downgrade()));
            return Ok(state);
        }
        let ids = state.0.store.live_table_ids().await?;
        let mut tables = state.0.tables.lock().await;
        for id in ids {
            let handle = table::load(&state.0.store, state.table_settings(), &id, None).await?;
            tables.insert(handle);
        }
        tracing::info!(tables = tables.map.len(), "tables brought back");
        drop(tables);
        state.0.tournaments.load(&state).await?;
        tokio::spawn(tournaments::run(state.downgrade()));
        Ok(state)
    }

    /// A handle that does not keep the state alive (for the background tasks that end with it).
    /// Every player's event stream (`GET /api/stream/event`): where challenges, the start and
    /// end of games and tournaments push what concerns a player.
    pub fn player_events(&self) -> &events::PlayerEvents {
        &self.0.events
    }

    /// The arenas: created, joined, paired, scored ([`tournaments::Tournaments`]).
    pub fn tournaments(&self) -> &tournaments::Tournaments {
        &self.0.tournaments
    }

    /// The bot accounts among the persons seated at `table`.
    pub async fn bots_at(&self, table: &protocol::TableSummary) -> Vec<String> {
        let mut bots = Vec::new();
        for seat in table.seats.iter().flatten() {
            if let protocol::SeatPlayer::Person { id, .. } = seat {
                if self.0.store.is_bot(id).await.unwrap_or(false) {
                    bots.push(id.clone());
                }
            }
        }
        bots
    }

    /// Pushes `kind` (`gameStart`, `gameFinish`) of `table` to the event streams of the persons
    /// seated there (two-seat tables).
    pub async fn announce_game(&self, kind: &str, table: &protocol::TableSummary) {
        let bots = self.bots_at(table).await;
        for seat in table.seats.iter().flatten() {
            if let protocol::SeatPlayer::Person { id, .. } = seat {
                if let Some(game) = events::game_of(table, id, |p| bots.iter().any(|b| b == p)) {
                    let line = serde_json::json!({"type": kind, "game": game});
                    self.0.events.push(id, &line);
                }
            }
        }
    }

    /// Tells the players of the table `id`, which has just ended, with a `gameFinish`.
    async fn announce_finish(&self, id: &str) {
        let handle = self.0.tables.lock().await.live(id);
        if let Some(handle) = handle {
            let table = handle.listed();
            self.announce_game("gameFinish", &table).await;
        }
    }

    pub(crate) fn downgrade(&self) -> WeakState {
        WeakState(Arc::downgrade(&self.0))
    }

    /// Marks the server as stopping: the WebSockets close and no new work starts.
    pub(crate) fn begin_shutdown(&self) {
        self.0.shutdown.send_replace(true);
    }

    /// Whether the server has begun to stop.
    pub(crate) fn is_shutting_down(&self) -> bool {
        *self.0.shutdown.borrow()
    }

    /// Where the table `id` is served: by this server (its handle; loaded from the store, or
    /// in a cluster taken over when no live node holds it), or by another node of the cluster.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id; [`ServerError::TableMoved`] when the
    /// table kept changing owner while asked for; a database failure.
    pub(crate) async fn route(&self, id: &str) -> Result<cluster::Route, ServerError> {
        let Some(cluster) = &self.0.cluster else {
            return Ok(cluster::Route::Local(self.table(id).await?));
        };
        for _ in 0..3 {
            if let Some(handle) = self.0.tables.lock().await.live(id) {
                return Ok(cluster::Route::Local(handle));
            }
            let seen = self
                .0
                .store
                .ownership(id)
                .await?
                .ok_or_else(|| ServerError::NotFound(format!("no table {id:?}")))?;
            match &seen.owner {
                Some(owner) if owner != cluster.key() && seen.owner_alive => {
                    return Ok(cluster::Route::Remote(owner.clone()));
                }
                _ => {}
            }
            // Ours (an ended table no longer in memory), or nobody's: load it here, under the
            // table's own loading lock so that it is loaded once, while other tables load
            // beside it (under the lock of all tables, a node taking over 2,000 tables of a
            // stopped node took them at 100 a second: docs/performance.md, "Tables taken over
            // side by side").
            let loading = self.0.tables.lock().await.loading(id);
            let _loading = loading.lock().await;
            if let Some(handle) = self.0.tables.lock().await.live(id) {
                return Ok(cluster::Route::Local(handle));
            }
            let held = if seen.owner.as_deref() == Some(cluster.key()) {
                table::Held {
                    fence: store::Fence {
                        node: cluster.key().to_owned(),
                        epoch: seen.epoch,
                    },
                    uncharged: Duration::ZERO,
                }
            } else {
                match self.0.store.claim(id, &seen, cluster.key()).await? {
                    Some(epoch) => {
                        tracing::info!(table = %id, epoch, from = seen.owner.as_deref().unwrap_or("none"), "table taken over");
                        table::Held {
                            fence: store::Fence {
                                node: cluster.key().to_owned(),
                                epoch,
                            },
                            uncharged: seen.uncharged(),
                        }
                    }
                    // Another node was quicker: ask again where it is.
                    None => continue,
                }
            };
            let handle = table::load(&self.0.store, self.table_settings(), id, Some(held)).await?;
            let mut tables = self.0.tables.lock().await;
            if self.is_shutting_down() {
                // The stop has taken the tables in memory already: this one stops here too
                // (its clocks saved), and its players go to another node.
                drop(tables);
                handle.shutdown().await;
                return Err(ServerError::TableMoved);
            }
            tables.insert(handle.clone());
            tables.loaded(id);
            if handle.is_ended() {
                tables
                    .limit_ended(self.0.settings.max_ended_tables, id)
                    .await;
            }
            return Ok(cluster::Route::Local(handle));
        }
        Err(ServerError::TableMoved)
    }

    /// This node's part of the cluster, if it is one.
    pub(crate) fn cluster(&self) -> Option<&Arc<cluster::Cluster>> {
        self.0.cluster.as_ref()
    }

    pub(crate) fn table_settings(&self) -> TableSettings {
        TableSettings {
            grace: self.0.settings.grace,
            first_move: self.0.settings.first_move,
            ended_grace: self.0.settings.ended_grace,
            notices: self.0.notices.clone(),
            listing: self.0.listing.clone(),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.0.store
    }

    /// The bounded password hasher ([`password::Passwords`]).
    pub fn passwords(&self) -> &password::Passwords {
        &self.0.passwords
    }

    /// The table with this id, brought back from the store when it is not in memory (an ended
    /// table leaves memory when nobody watches it, see [`Settings::ended_grace`]). A request
    /// through the handle may still find the actor retired in between: it fails with an error
    /// that [`table::is_closed_error`] recognises, and asking again here loads the table anew.
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id.
    pub async fn table(&self, id: &str) -> Result<TableHandle, ServerError> {
        let mut tables = self.0.tables.lock().await;
        if let Some(handle) = tables.live(id) {
            return Ok(handle);
        }
        let handle = table::load(&self.0.store, self.table_settings(), id, None).await?;
        tables.insert(handle.clone());
        if handle.is_ended() {
            tables
                .limit_ended(self.0.settings.max_ended_tables, id)
                .await;
        }
        Ok(handle)
    }

    /// The summary of the table with this id (loaded from the store when needed).
    ///
    /// # Errors
    /// [`ServerError::NotFound`] for an unknown id.
    pub async fn table_summary(&self, id: &str) -> Result<protocol::TableSummary, ServerError> {
        let mut last = None;
        for _ in 0..3 {
            let handle = match self.route(id).await? {
                cluster::Route::Local(handle) => handle,
                cluster::Route::Remote(owner) => {
                    let Some(c) = self.cluster() else {
                        return Err(ServerError::TableMoved);
                    };
                    match c.summary_remote(&owner, id).await {
                        Err(ServerError::TableMoved) => {
                            last = Some(ServerError::TableMoved);
                            continue;
                        }
                        answer => return answer,
                    }
                }
            };
            match handle.summary().await {
                Err(e) if table::is_closed_error(&e) => last = Some(e),
                answer => return answer,
            }
        }
        Err(last.unwrap_or_else(|| ServerError::Internal(format!("table {id} keeps closing"))))
    }

    /// Retires the table `id` if it is still ended and unwatched.
    async fn retire(&self, id: &str) {
        let mut tables = self.0.tables.lock().await;
        let Some(entry) = tables.map.get(id) else {
            return;
        };
        if entry.handle.is_ended() && entry.handle.retire().await {
            tables.map.remove(id);
            tracing::debug!(table = %id, "ended table retired (nobody watching)");
        }
    }

    /// Forgets the table `id` whose actor stopped because another node owns it now.
    async fn forget_lost(&self, id: &str) {
        let mut tables = self.0.tables.lock().await;
        if tables.map.get(id).is_some_and(|e| e.handle.is_closed()) {
            tables.map.remove(id);
        }
    }

    /// Retires the least recently used ended tables beyond [`Settings::max_ended_tables`].
    async fn limit_ended(&self, keep: &str) {
        let mut tables = self.0.tables.lock().await;
        tables
            .limit_ended(self.0.settings.max_ended_tables, keep)
            .await;
    }

    /// Creates a table and starts its actor. With a `creator`, that person sits at the seat
    /// chosen (or one drawn at random) and the table starts when full
    /// ([`protocol::TableOptions::start_when_full`]): a seek, as the lobby lists it.
    ///
    /// # Errors
    /// Bad options, a seat that does not exist, a guest creating a rated table, or the
    /// database failed.
    pub async fn create_table(
        &self,
        mut options: protocol::TableOptions,
        creator: Option<(table::Person, SeatChoice)>,
    ) -> Result<TableHandle, ServerError> {
        let count = options.variant.seat_count();
        let mut seats = vec![None; count];
        if let Some((person, choice)) = creator {
            let seat = match choice {
                SeatChoice::Seat(n) if n < count => n,
                SeatChoice::Seat(n) => {
                    return Err(ServerError::BadMessage(format!(
                        "seat {n} does not exist (seats 0 to {})",
                        count - 1
                    )))
                }
                SeatChoice::Random => rand::random_range(0..count),
            };
            if options.rated && !person.account {
                return Err(ServerError::Unauthorized(
                    "rated tables are for account holders".to_owned(),
                ));
            }
            options.start_when_full = true;
            seats[seat] = Some(protocol::SeatPlayer::Person {
                id: person.id,
                name: person.name,
                account: person.account,
                bot: false,
            });
        }
        self.create_seated_table(options, seats).await
    }

    /// Creates a table with `seats` already taken (a challenge accepted, a game against the
    /// computer asked for through the API) and starts its actor; the persons have the grace
    /// period to connect.
    ///
    /// # Errors
    /// Bad options, a seat list of the wrong length, or the database failed.
    pub async fn create_seated_table(
        &self,
        options: protocol::TableOptions,
        seats: Vec<Option<protocol::SeatPlayer>>,
    ) -> Result<TableHandle, ServerError> {
        if options.tournament.is_some() || options.berserkable {
            return Err(ServerError::BadMessage(
                "tournament and berserkable are set by the server for arena games".to_owned(),
            ));
        }
        let id = ids::random_id(10);
        let owner = self.0.cluster.as_ref().map(|c| c.key().to_owned());
        let handle = table::create_seated(
            &self.0.store,
            self.table_settings(),
            id,
            options,
            seats,
            owner.as_deref(),
        )
        .await?;
        self.0.tables.lock().await.insert(handle.clone());
        Ok(handle)
    }

    /// Creates a table with every seat taken and its game started at once (a tournament's
    /// pairing: [`table::create_started`]).
    ///
    /// # Errors
    /// Bad options, a seat list of the wrong length, or the database failed.
    pub async fn create_started_table(
        &self,
        options: protocol::TableOptions,
        seats: Vec<Option<protocol::SeatPlayer>>,
    ) -> Result<TableHandle, ServerError> {
        let id = ids::random_id(10);
        let owner = self.0.cluster.as_ref().map(|c| c.key().to_owned());
        let handle = table::create_started(
            &self.0.store,
            self.table_settings(),
            id,
            options,
            seats,
            owner.as_deref(),
        )
        .await?;
        self.0.tables.lock().await.insert(handle.clone());
        Ok(handle)
    }

    /// Creates the agreed rematch of the ended table `from` (options and seats from
    /// [`TableNotice::Rematch`]) and tells `from` its id; a failure is logged and told to
    /// `from` too.
    async fn rematch(
        &self,
        from: &str,
        options: protocol::TableOptions,
        seats: Vec<Option<protocol::SeatPlayer>>,
    ) {
        let id = ids::random_id(10);
        let owner = self.0.cluster.as_ref().map(|c| c.key().to_owned());
        let created = table::create_seated(
            &self.0.store,
            self.table_settings(),
            id,
            options,
            seats,
            owner.as_deref(),
        )
        .await;
        let next = match created {
            Ok(handle) => {
                let id = handle.id().to_owned();
                self.0.tables.lock().await.insert(handle);
                Some(id)
            }
            Err(e) => {
                e.log();
                None
            }
        };
        match self.route(from).await {
            Ok(cluster::Route::Local(old)) => old.rematched(next).await,
            // Another node took the old table meanwhile: its players find the new table
            // through that table's next rematch request.
            Ok(cluster::Route::Remote(owner)) => {
                tracing::warn!(table = %from, %owner, "rematch made, but the old table moved to another node")
            }
            Err(e) => e.log(),
        }
    }

    /// Every table in memory.
    pub async fn tables(&self) -> Vec<TableHandle> {
        self.0
            .tables
            .lock()
            .await
            .map
            .values()
            .map(|e| e.handle.clone())
            .collect()
    }

    pub(crate) fn settings(&self) -> Settings {
        self.0.settings.clone()
    }

    /// The server's settings, borrowed.
    pub(crate) fn settings_ref(&self) -> &Settings {
        &self.0.settings
    }

    pub(crate) fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.0.shutdown.subscribe()
    }

    /// Closes every WebSocket, then stops every table actor (each saves its clocks), all at
    /// once: their saves reach the store's writer together and are committed in a few groups.
    /// One after the other, each save waited for its own commit: a server with 5,000 running
    /// tables took longer than the shutdown limit (15 s) to stop, and a cluster node then never
    /// left (docs/performance.md, "A stop that saves every table at once").
    pub async fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
        let tables: Vec<TableHandle> = self
            .0
            .tables
            .lock()
            .await
            .map
            .drain()
            .map(|(_, e)| e.handle)
            .collect();
        futures_util::future::join_all(tables.iter().map(TableHandle::shutdown)).await;
        if let Some(c) = &self.0.cluster {
            // The tables are released: the other nodes take them at once.
            c.leave(&self.0.store).await;
        }
    }
}

/// Acts on what the table actors report, for as long as the state lives: an ended table that
/// nobody watched for the ended grace period is retired; a game that ends in play may take the
/// ended tables in memory over their limit.
async fn follow_notices(state: WeakState, mut notices: mpsc::UnboundedReceiver<TableNotice>) {
    while let Some(notice) = notices.recv().await {
        let Some(state) = state.upgrade() else {
            break;
        };
        match notice {
            TableNotice::Idle(id) => state.retire(&id).await,
            TableNotice::Ended(id) => {
                let ended = state.clone();
                let table = id.clone();
                tokio::spawn(async move { ended.tournaments().game_ended(&ended, &table).await });
                state.announce_finish(&id).await;
                state.limit_ended(&id).await
            }
            TableNotice::Lost(id) => state.forget_lost(&id).await,
            TableNotice::Rematch {
                table,
                options,
                seats,
            } => {
                tokio::spawn(async move { state.rematch(&table, options, seats).await });
            }
        }
    }
}

/// Sets the sampled gauges every `every` until the server's state is gone.
async fn sample_gauges(state: WeakState, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(AppState(state)) = state.upgrade() else {
            return;
        };
        let (in_play, running) = {
            let tables = state.tables.lock().await;
            let live = tables
                .map
                .values()
                .filter(|e| !e.handle.is_ended() && !e.handle.is_closed());
            live.fold((0_u32, 0_u32), |(all, running), e| {
                (all + 1, running + u32::from(e.handle.is_running()))
            })
        };
        metrics::gauge!(telemetry::TABLES_IN_PLAY).set(f64::from(in_play));
        metrics::gauge!(telemetry::GAMES_RUNNING).set(f64::from(running));
        let (size, idle) = state.store.pool_connections();
        metrics::gauge!(telemetry::DB_POOL_CONNECTIONS).set(f64::from(size));
        metrics::gauge!(telemetry::DB_POOL_IDLE).set(idle as f64);
        if let Some(cluster) = &state.cluster {
            metrics::gauge!(telemetry::NATS_CONNECTED).set(if cluster.nats_connected() {
                1.0
            } else {
                0.0
            });
        }
    }
}

/// An [`AppState`] that does not keep the server alive: the background tasks hold one and end
/// when the state is gone.
#[derive(Clone)]
pub(crate) struct WeakState(Weak<Inner>);

impl WeakState {
    /// The state, while the server lives.
    pub(crate) fn upgrade(&self) -> Option<AppState> {
        self.0.upgrade().map(AppState)
    }
}

impl cluster::Host for AppState {
    fn route(
        &self,
        id: &str,
    ) -> impl std::future::Future<Output = Result<cluster::Route, ServerError>> + Send {
        AppState::route(self, id)
    }

    fn store(&self) -> &Store {
        AppState::store(self)
    }

    fn is_shutting_down(&self) -> bool {
        AppState::is_shutting_down(self)
    }

    fn deliver_event(&self, player_id: &str, line: &str) {
        self.0.events.deliver(player_id, line);
    }

    async fn listed_tables(&self) -> Vec<protocol::TableSummary> {
        self.0
            .tables
            .lock()
            .await
            .map
            .values()
            .filter(|e| !e.handle.is_closed())
            .map(|e| e.handle.listed())
            .collect()
    }

    async fn tournament_asked(&self, id: &str) {
        self.0.tournaments.apply_requests_of(self, id).await;
    }
}

impl cluster::WeakHost for WeakState {
    type Host = AppState;

    fn upgrade(&self) -> Option<AppState> {
        WeakState::upgrade(self)
    }
}
