//! The shared lobby: each owner puts its tables' summaries in a JetStream key-value bucket
//! (`{p}-lobby`) and every node watches it.
//!
//! NATS may lose the bucket (a NATS restarted without its storage): the puts then find no
//! stream, and a running watch either stops (its consumer is gone) or, once another node has
//! made the bucket again, goes on silently from the old stream's sequence and misses every new
//! entry. So each node looks at the bucket's stream every [`LOBBY_CHECK`]: a stream that is gone
//! is made again (the same configuration as at the start); a stream made again since the watch
//! was opened (its creation time changed), a watch that failed or ended, or one that stays
//! behind the stream's last sequence for a whole check is opened again, with a backoff, and the
//! node's lobby is rebuilt from the bucket; the node then lists its own tables again
//! ([`Host::listed_tables`]), so that the lobby converges without a restart.

use super::{lock, Cluster, Host, WeakHost};
use crate::error::ServerError;
use crate::protocol::{Phase, TableSummary};
use async_nats::jetstream::{self, kv};
use bytes::Bytes;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How often a node looks whether the lobby bucket's stream is still the one it watches.
pub(super) const LOBBY_CHECK: Duration = Duration::from_secs(2);

/// The first wait before the watch is opened again after a failure; doubled at each failure.
const REOPEN_FIRST: Duration = Duration::from_millis(250);

/// The longest wait between two tries to open the watch again.
const REOPEN_MOST: Duration = Duration::from_secs(5);

/// A watch of the lobby bucket from its current contents on, and the stream it reads.
pub(super) struct LobbyWatch {
    watch: kv::Watch,
    /// When the bucket's stream was made (ns since 1970): another time means it was made
    /// again.
    created: i128,
    /// Whether the bucket held no entry when the watch was opened.
    empty: bool,
    /// The stream's last sequence when the watch was opened: the bucket's contents have been
    /// read once the watch has read this revision (or one after it).
    last: u64,
    /// Whether the bucket had to be made (it was missing).
    made: bool,
}

/// Whether a JetStream error says that the stream does not exist.
fn stream_missing(e: &jetstream::context::GetStreamError) -> bool {
    matches!(
        e.kind(),
        jetstream::context::GetStreamErrorKind::JetStream(j)
            if j.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
    )
}

impl Cluster {
    /// The lobby: every live table of the cluster as listed, by id.
    pub(crate) fn lobby(&self) -> Vec<TableSummary> {
        let mut out: Vec<TableSummary> = lock(&self.lobby)
            .values()
            .filter(|s| s.is_listed())
            .cloned()
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    fn lobby_bucket(&self) -> kv::Store {
        lock(&self.lobby_bucket).clone()
    }

    /// Makes the lobby bucket when it is missing (several nodes may do so at once: one makes
    /// it, the others open it), else opens it. Returns whether it had to be made.
    async fn make_lobby_bucket(&self) -> Result<bool, String> {
        let name = self.lobby_config.bucket.clone();
        let stream = format!("KV_{name}");
        match self.jetstream.get_stream(&stream).await {
            Ok(_) => {
                let bucket = self
                    .jetstream
                    .get_key_value(&name)
                    .await
                    .map_err(|e| e.to_string())?;
                *lock(&self.lobby_bucket) = bucket;
                Ok(false)
            }
            Err(e) if stream_missing(&e) => {
                let bucket = match self
                    .jetstream
                    .create_key_value(self.lobby_config.clone())
                    .await
                {
                    Ok(b) => b,
                    Err(created) => self
                        .jetstream
                        .get_key_value(&name)
                        .await
                        .map_err(|e| format!("{created}; {e}"))?,
                };
                *lock(&self.lobby_bucket) = bucket;
                Ok(true)
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// The creation time of the lobby bucket's stream (ns since 1970) and its last sequence;
    /// `None` when the stream is gone.
    async fn lobby_stream_created(&self) -> Result<Option<(i128, u64)>, String> {
        let stream = format!("KV_{}", self.lobby_config.bucket);
        match self.jetstream.get_stream(&stream).await {
            Ok(s) => {
                let info = s.cached_info();
                Ok(Some((
                    info.created.unix_timestamp_nanos(),
                    info.state.last_sequence,
                )))
            }
            Err(e) if stream_missing(&e) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Opens a watch of the lobby bucket from its current contents on (the bucket made again
    /// when it is missing).
    pub(super) async fn open_lobby_watch(&self) -> Result<LobbyWatch, String> {
        let made = self.make_lobby_bucket().await?;
        let bucket = self.lobby_bucket();
        let mut stream = bucket.stream.clone();
        let info = stream.info().await.map_err(|e| e.to_string())?;
        let (created, empty, last) = (
            info.created.unix_timestamp_nanos(),
            info.state.messages == 0,
            info.state.last_sequence,
        );
        tracing::debug!(
            created,
            messages = info.state.messages,
            last,
            made,
            "lobby watch opened"
        );
        let watch = bucket
            .watch_with_history(">")
            .await
            .map_err(|e| e.to_string())?;
        Ok(LobbyWatch {
            watch,
            created,
            empty,
            last,
            made,
        })
    }

    /// Puts a table's summary in the lobby bucket (deletes it once the table has ended). When
    /// the bucket's stream is gone it is made again and the write tried once more.
    async fn publish_listing(&self, summary: &TableSummary) -> Result<(), String> {
        match self.write_listing(summary).await {
            Ok(()) => Ok(()),
            Err(first) => match self.lobby_stream_created().await {
                Ok(None) => {
                    self.make_lobby_bucket().await?;
                    // The watches follow the old stream: look now rather than at the next
                    // check.
                    self.lobby_check.notify_waiters();
                    self.write_listing(summary).await
                }
                _ => Err(first),
            },
        }
    }

    async fn write_listing(&self, summary: &TableSummary) -> Result<(), String> {
        let bucket = self.lobby_bucket();
        if summary.phase == Phase::Ended {
            bucket.delete(&summary.id).await.map_err(|e| e.to_string())
        } else {
            let bytes = serde_json::to_vec(summary).map_err(|e| e.to_string())?;
            bucket
                .put(&summary.id, Bytes::from(bytes))
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

/// Publishes the listings of this node's tables as they change, one at a time in their order.
/// When the watch was opened again after a loss, lists every table of the node again (the
/// bucket may have lost them); a listing that could not be written is kept and written then.
pub(super) async fn publish_listings<W: WeakHost>(
    host: W,
    cluster: Arc<Cluster>,
    mut listings: mpsc::UnboundedReceiver<TableSummary>,
) {
    // The listings not written, by table: the last of each.
    let mut unwritten: HashMap<String, TableSummary> = HashMap::new();
    loop {
        tokio::select! {
            summary = listings.recv() => {
                let Some(summary) = summary else { break };
                publish_one(&cluster, summary, &mut unwritten).await;
            }
            () = cluster.relist.notified() => {
                // What was sent before is older than the tables' summaries read below.
                while let Ok(summary) = listings.try_recv() {
                    publish_one(&cluster, summary, &mut unwritten).await;
                }
                let Some(host) = host.upgrade() else { break };
                let own = host.listed_tables().await;
                drop(host);
                // Of the listings not written, those of tables no longer here: a deletion still
                // stands (the table ended); a summary does not (the table moved to another node,
                // which lists it).
                let mut earlier = std::mem::take(&mut unwritten);
                for summary in &own {
                    earlier.remove(&summary.id);
                }
                earlier.retain(|_, s| s.phase == Phase::Ended);
                let count = own.len();
                for summary in earlier.into_values().chain(own) {
                    publish_one(&cluster, summary, &mut unwritten).await;
                }
                if unwritten.is_empty() {
                    tracing::info!(tables = count, "this node's tables listed in the lobby again");
                }
            }
        }
    }
}

async fn publish_one(
    cluster: &Cluster,
    summary: TableSummary,
    unwritten: &mut HashMap<String, TableSummary>,
) {
    match cluster.publish_listing(&summary).await {
        Ok(()) => {
            unwritten.remove(&summary.id);
        }
        Err(e) => {
            if unwritten.is_empty() {
                tracing::warn!(table = %summary.id, error = %e, "lobby entry not published: written again once NATS answers");
            }
            unwritten.insert(summary.id.clone(), summary);
            cluster.lobby_unwritten.store(true, Ordering::Release);
        }
    }
}

/// Follows the lobby bucket into the node's lobby, from `first` on; opens the watch again
/// (with a backoff) whenever it fails, ends, or reads a stream that was made again, and then
/// has the node's tables listed again.
pub(super) async fn follow_lobby(cluster: Arc<Cluster>, first: LobbyWatch) {
    let mut opened = first;
    loop {
        let lost = follow(&cluster, opened).await;
        tracing::warn!(reason = %lost, "the lobby watch was lost: opening it again");
        let mut wait = REOPEN_FIRST;
        opened = loop {
            tokio::time::sleep(wait).await;
            match cluster.open_lobby_watch().await {
                Ok(w) => break w,
                Err(e) => {
                    tracing::debug!(error = %e, "the lobby watch is not opened yet");
                    wait = (wait * 2).min(REOPEN_MOST);
                }
            }
        };
        tracing::info!(
            bucket_made_again = opened.made,
            "the lobby watch is open again: the lobby is read again from the bucket and this node's tables listed again"
        );
        cluster.relist.notify_one();
    }
}

/// Applies the watch's entries to the node's lobby until the watch is lost; returns why. The
/// lobby is replaced by the bucket's contents once the watch has read them all.
async fn follow(cluster: &Cluster, opened: LobbyWatch) -> String {
    let LobbyWatch {
        mut watch,
        created,
        empty,
        last,
        ..
    } = opened;
    // The bucket's contents as read so far, until they are all read.
    let mut fresh: Option<HashMap<String, TableSummary>> = Some(HashMap::new());
    // The last revision read, and the stream's last sequence at a check that found the watch
    // behind it (and when): a watch still behind it a check interval later has stopped reading.
    let mut seen = 0u64;
    let mut behind: Option<(u64, Instant)> = None;
    if empty {
        *lock(&cluster.lobby) = HashMap::new();
        fresh = None;
    }
    let mut check = tokio::time::interval(LOBBY_CHECK);
    check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    check.tick().await;
    loop {
        tokio::select! {
            entry = watch.next() => {
                let entry = match entry {
                    None => return "the watch ended".to_owned(),
                    Some(Err(e)) => return e.to_string(),
                    Some(Ok(e)) => e,
                };
                // What NATS counts as pending may stay above zero while other nodes write
                // (seed 6022): the revision read tells too.
                let caught_up = entry.delta == 0 || entry.revision >= last;
                seen = seen.max(entry.revision);
                let entry_revision = entry.revision;
                tracing::debug!(key = %entry.key, operation = ?entry.operation, delta = entry.delta, rebuilding = fresh.is_some(), "lobby entry");
                match &mut fresh {
                    Some(map) => {
                        apply(map, entry);
                        if caught_up {
                            *lock(&cluster.lobby) = fresh.take().unwrap_or_default();
                            tracing::debug!(revision = entry_revision, "the lobby read again from the bucket");
                        }
                    }
                    None => apply(&mut lock(&cluster.lobby), entry),
                }
            }
            _ = check.tick() => {
                if let Some(lost) = check_stream(cluster, created, seen, &mut behind).await {
                    return lost;
                }
            }
            () = cluster.lobby_check.notified() => {
                if let Some(lost) = check_stream(cluster, created, seen, &mut behind).await {
                    return lost;
                }
            }
        }
    }
}

/// Whether the bucket's stream is still the one the watch reads (`None`), else why not. A
/// listing left unwritten is written again when NATS answers.
async fn check_stream(
    cluster: &Cluster,
    created: i128,
    seen: u64,
    behind: &mut Option<(u64, Instant)>,
) -> Option<String> {
    let now = cluster.lobby_stream_created().await;
    tracing::debug!(?now, created, seen, "lobby stream checked");
    match now {
        Ok(Some((now, last))) if now == created => {
            if let Some((then, at)) = *behind {
                if seen >= then {
                    *behind = None;
                } else if at.elapsed() >= LOBBY_CHECK {
                    return Some(format!(
                        "the watch stopped reading the bucket (at revision {seen} of {last})"
                    ));
                }
            }
            if behind.is_none() && last > seen {
                *behind = Some((last, Instant::now()));
            }
            if cluster.lobby_unwritten.swap(false, Ordering::AcqRel) {
                cluster.relist.notify_one();
            }
            None
        }
        Ok(Some(_)) => Some("the bucket was made again".to_owned()),
        Ok(None) => Some("the bucket is gone".to_owned()),
        // NATS does not answer now: the watch fails by itself if it stays so.
        Err(_) => None,
    }
}

fn apply(lobby: &mut HashMap<String, TableSummary>, entry: kv::Entry) {
    match entry.operation {
        kv::Operation::Put => match serde_json::from_slice::<TableSummary>(&entry.value) {
            Ok(summary) => {
                lobby.insert(entry.key, summary);
            }
            Err(e) => tracing::warn!(key = %entry.key, error = %e, "unreadable lobby entry"),
        },
        kv::Operation::Delete | kv::Operation::Purge => {
            lobby.remove(&entry.key);
        }
    }
}

/// Opens the first watch of the lobby, at the node's start.
pub(super) async fn first_watch(cluster: &Cluster) -> Result<LobbyWatch, ServerError> {
    cluster
        .open_lobby_watch()
        .await
        .map_err(|e| ServerError::Config(format!("NATS watch of the lobby: {e}")))
}
