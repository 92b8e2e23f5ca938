//! The tables in memory, by id, and the order of their use: what the site retires when too
//! many ended tables are loaded.

use crate::table::TableHandle;
use std::collections::HashMap;
use std::sync::Arc;

/// A table in memory and when it was last asked for.
pub(super) struct Entry {
    pub(super) handle: TableHandle,
    /// The value of [`Tables::tick`] at the last request for this table.
    used: u64,
}

/// The tables in memory, by id.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) map: HashMap<String, Entry>,
    /// Counts requests for tables: the order of use for retiring the least recently used.
    tick: u64,
    /// The lock of each table being loaded (taken over on a cluster) now: its loader holds it,
    /// and whoever asks for the table meanwhile waits on it rather than on the lock of all
    /// tables, so that tables load side by side.
    loading: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
}

impl Tables {
    /// The lock of loading table `id`, shared by everyone who asks for it until
    /// [`Tables::loaded`].
    pub(super) fn loading(&mut self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.loading.entry(id.to_owned()).or_default().clone()
    }

    /// Table `id` is in [`Tables::map`] now: its loading lock is no longer needed. (After a
    /// failed load the lock stays, so that the next tries still load one at a time.)
    pub(super) fn loaded(&mut self, id: &str) {
        self.loading.remove(id);
    }

    /// The handle of table `id` when its actor runs here, marked as used now.
    pub(super) fn live(&mut self, id: &str) -> Option<TableHandle> {
        self.tick += 1;
        let tick = self.tick;
        let entry = self.map.get_mut(id).filter(|e| !e.handle.is_closed())?;
        entry.used = tick;
        Some(entry.handle.clone())
    }

    pub(super) fn insert(&mut self, handle: TableHandle) {
        self.tick += 1;
        let used = self.tick;
        self.map
            .insert(handle.id().to_owned(), Entry { handle, used });
    }

    /// Retires ended tables that no WebSocket watches, least recently used first, until at most
    /// `max` ended tables are in memory; `keep` (the table being asked for) stays.
    pub(super) async fn limit_ended(&mut self, max: usize, keep: &str) {
        let mut ended: Vec<(u64, String)> = self
            .map
            .iter()
            .filter(|(_, e)| e.handle.is_ended())
            .map(|(id, e)| (e.used, id.clone()))
            .collect();
        if ended.len() <= max {
            return;
        }
        ended.sort_unstable();
        let mut excess = ended.len() - max;
        for (_, id) in ended {
            if excess == 0 {
                break;
            }
            if id == keep {
                continue;
            }
            let Some(entry) = self.map.get(&id) else {
                continue;
            };
            if entry.handle.retire().await {
                self.map.remove(&id);
                excess -= 1;
                tracing::debug!(table = %id, "ended table retired (too many in memory)");
            }
        }
    }
}
