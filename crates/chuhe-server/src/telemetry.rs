//! The server's metrics, through the `metrics` facade: the binary installs a recorder (the
//! Prometheus exporter, `chuhe serve --metrics-bind`); without one every call here does
//! nothing. Names, types and units are listed in docs/operations.md.
//!
//! Counters and histograms are recorded where things happen (a move acknowledged, a group
//! commit); the gauges of things that are simply there (tables, pool connections, the NATS
//! connection) are sampled every [`crate::site::Settings::metrics_interval`].

use std::time::Duration;

/// Tables in memory that have not ended (open or running), gauge.
pub const TABLES_IN_PLAY: &str = "chuhe_tables_in_play";
/// Tables in memory whose game is running (started, not ended), gauge.
pub const GAMES_RUNNING: &str = "chuhe_games_running";
/// Open table WebSocket connections, gauge.
pub const WEBSOCKET_CONNECTIONS: &str = "chuhe_websocket_connections";
/// Moves acknowledged to the seat that sent them, counter.
pub const MOVES_ACKNOWLEDGED: &str = "chuhe_moves_acknowledged_total";
/// From the receipt of a move message to its acknowledgement queued for the connection
/// (the move checked, stored and applied), histogram in seconds.
pub const MOVE_ACK_SECONDS: &str = "chuhe_move_ack_seconds";
/// Writes committed together in one transaction by the store's writer, histogram.
pub const STORE_GROUP_SIZE: &str = "chuhe_store_group_size";
/// Time of one group's transaction (statements and commit), histogram in seconds.
pub const STORE_COMMIT_SECONDS: &str = "chuhe_store_commit_seconds";
/// Frames in SQLite's write-ahead log at its last checkpoint, gauge; SQLite stores only.
pub const STORE_WAL_FRAMES: &str = "chuhe_store_wal_frames";
/// Checkpoints that started SQLite's write-ahead log over (`RESTART`), counter.
pub const STORE_WAL_RESTARTS: &str = "chuhe_store_wal_restarts_total";
/// Connections of the store's read pool, gauge.
pub const DB_POOL_CONNECTIONS: &str = "chuhe_db_pool_connections";
/// Idle connections of the store's read pool, gauge.
pub const DB_POOL_IDLE: &str = "chuhe_db_pool_idle_connections";
/// Whether this node's NATS connection is up (1) or not (0), gauge; cluster nodes only.
pub const NATS_CONNECTED: &str = "chuhe_nats_connected";
/// Computer searches waiting for a search thread, gauge.
pub const COMPUTER_QUEUE: &str = "chuhe_computer_queue";
/// Computer searches running, gauge.
pub const COMPUTER_SEARCHES: &str = "chuhe_computer_searches";
/// Time the rules took to pair one wave of an arena (or a round of a Swiss event), histogram in
/// seconds (the tables are made after it: not counted).
pub const TOURNAMENT_PAIRING_SECONDS: &str = "chuhe_tournament_pairing_seconds";
/// Messages this node published to another node for the forwarded connections it hosts
/// (the owner's side), counter; cluster nodes only.
pub const CLUSTER_FORWARDED_MESSAGES: &str = "chuhe_cluster_forwarded_messages_total";
/// Their payload bytes, counter.
pub const CLUSTER_FORWARDED_BYTES: &str = "chuhe_cluster_forwarded_bytes_total";
/// Messages this node received from an owner node and passed to a client's socket (the
/// forwarding side), counter; cluster nodes only.
pub const CLUSTER_RELAYED_MESSAGES: &str = "chuhe_cluster_relayed_messages_total";
/// Their payload bytes, counter.
pub const CLUSTER_RELAYED_BYTES: &str = "chuhe_cluster_relayed_bytes_total";

/// Describes every metric to the installed recorder (its `# HELP` lines and units); call it
/// once after installing one.
pub fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_gauge!(
        TABLES_IN_PLAY,
        "tables in memory that have not ended (open or running)"
    );
    describe_gauge!(
        GAMES_RUNNING,
        "tables in memory whose game is running (started, not ended)"
    );
    describe_gauge!(WEBSOCKET_CONNECTIONS, "open table WebSocket connections");
    describe_counter!(
        MOVES_ACKNOWLEDGED,
        "moves acknowledged to the seat that sent them"
    );
    describe_histogram!(
        MOVE_ACK_SECONDS,
        Unit::Seconds,
        "from the receipt of a move to its acknowledgement (checked, stored, applied)"
    );
    describe_histogram!(
        STORE_GROUP_SIZE,
        Unit::Count,
        "writes committed together in one transaction"
    );
    describe_gauge!(
        STORE_WAL_FRAMES,
        "frames in SQLite's write-ahead log at its last checkpoint"
    );
    describe_counter!(
        STORE_WAL_RESTARTS,
        "checkpoints that started SQLite's write-ahead log over"
    );
    describe_histogram!(
        STORE_COMMIT_SECONDS,
        Unit::Seconds,
        "time of one group commit's transaction"
    );
    describe_gauge!(DB_POOL_CONNECTIONS, "connections of the store's read pool");
    describe_gauge!(DB_POOL_IDLE, "idle connections of the store's read pool");
    describe_gauge!(
        NATS_CONNECTED,
        "whether this node's NATS connection is up (cluster nodes)"
    );
    describe_gauge!(
        COMPUTER_QUEUE,
        "computer searches waiting for a search thread"
    );
    describe_gauge!(COMPUTER_SEARCHES, "computer searches running");
    describe_counter!(
        CLUSTER_FORWARDED_MESSAGES,
        "messages published to other nodes for the forwarded connections hosted here"
    );
    describe_counter!(
        CLUSTER_FORWARDED_BYTES,
        Unit::Bytes,
        "payload bytes of the messages published for forwarded connections"
    );
    describe_counter!(
        CLUSTER_RELAYED_MESSAGES,
        "messages received from owner nodes and passed to this node's sockets"
    );
    describe_counter!(
        CLUSTER_RELAYED_BYTES,
        Unit::Bytes,
        "payload bytes of the messages received from owner nodes"
    );
    describe_histogram!(
        TOURNAMENT_PAIRING_SECONDS,
        Unit::Seconds,
        "time the rules took to pair one tournament wave or round"
    );
}

/// Records a tournament wave (or round) paired in `elapsed`.
pub(crate) fn wave_paired(elapsed: Duration) {
    metrics::histogram!(TOURNAMENT_PAIRING_SECONDS).record(elapsed.as_secs_f64());
}

/// Records a move acknowledged `elapsed` after its message arrived.
pub(crate) fn move_acknowledged(elapsed: Duration) {
    metrics::counter!(MOVES_ACKNOWLEDGED).increment(1);
    metrics::histogram!(MOVE_ACK_SECONDS).record(elapsed.as_secs_f64());
}

/// Records a message of `bytes` bytes published for a forwarded connection hosted here.
pub(crate) fn message_forwarded(bytes: usize) {
    metrics::counter!(CLUSTER_FORWARDED_MESSAGES).increment(1);
    metrics::counter!(CLUSTER_FORWARDED_BYTES).increment(bytes as u64);
}

/// Records a message of `bytes` bytes received from an owner node for one of this node's
/// sockets.
pub(crate) fn message_relayed(bytes: usize) {
    metrics::counter!(CLUSTER_RELAYED_MESSAGES).increment(1);
    metrics::counter!(CLUSTER_RELAYED_BYTES).increment(bytes as u64);
}

/// Records a group commit of `writes` writes whose transaction took `elapsed`.
pub(crate) fn group_committed(writes: usize, elapsed: Duration) {
    metrics::histogram!(STORE_GROUP_SIZE).record(writes as f64);
    metrics::histogram!(STORE_COMMIT_SECONDS).record(elapsed.as_secs_f64());
}

/// Records the frames in SQLite's write-ahead log at a checkpoint.
pub(crate) fn wal_frames(frames: i64) {
    metrics::gauge!(STORE_WAL_FRAMES).set(frames as f64);
}

/// Records a checkpoint that started SQLite's write-ahead log over.
pub(crate) fn wal_restarted() {
    metrics::counter!(STORE_WAL_RESTARTS).increment(1);
}

/// One more of the gauge `name` while this lives (a connection, a search waiting): dropped,
/// one less, however the task holding it ends.
pub(crate) struct Held(&'static str);

impl Held {
    pub(crate) fn new(name: &'static str) -> Held {
        metrics::gauge!(name).increment(1.0);
        Held(name)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        metrics::gauge!(self.0).decrement(1.0);
    }
}
