//! The check that every acknowledged move was stored: each table's stored events read back
//! (`GET /api/tables/{id}/events`, which reads the store) and compared with the moves its
//! connections acknowledged.

use crate::settings::LoadSettings;
use crate::setup::{http_client, next_address, Failure, RETRY_FOR, RETRY_PAUSE};
use crate::stats::Totals;
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use tokio::time::Instant;

/// What the store showed of the acknowledged moves.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stored {
    /// Acknowledged moves looked for.
    pub(crate) checked: u64,
    /// ... not stored at the version they were acknowledged with.
    pub(crate) missing: u64,
    /// Stored events beyond the first at their version (a doubled event).
    pub(crate) doubled: u64,
}

/// Compares one table's stored `events` (as `GET /api/tables/{id}/events` gives them: objects
/// with a `version` and an `event`) with its acknowledged `moves` (`(version, move record)`).
pub(crate) fn tally(events: &[serde_json::Value], moves: &[(u64, String)]) -> Stored {
    let mut stored: HashMap<String, Vec<u64>> = HashMap::new();
    for e in events {
        if e["event"]["kind"] == "moved" {
            let mv = e["event"]["move"].as_str().unwrap_or("").to_owned();
            stored
                .entry(mv)
                .or_default()
                .push(e["version"].as_u64().unwrap_or(0));
        }
    }
    let mut tally = Stored::default();
    for (version, mv) in moves {
        tally.checked += 1;
        if !stored.get(mv).is_some_and(|at| at.contains(version)) {
            tally.missing += 1;
        }
    }
    // The same version twice is a doubled event.
    let mut versions: Vec<u64> = events
        .iter()
        .filter_map(|e| e["version"].as_u64())
        .collect();
    let n = versions.len();
    versions.sort_unstable();
    versions.dedup();
    tally.doubled = (n - versions.len()) as u64;
    tally
}

/// Reads a table's stored events (`GET /api/tables/{id}/events`) through `url`.
async fn stored_events(
    client: &reqwest::Client,
    url: &str,
    table: &str,
) -> Result<Vec<serde_json::Value>, Failure> {
    let response = client
        .get(format!("{url}/api/tables/{table}/events"))
        .send()
        .await
        .map_err(|e| Failure::unanswered(format!("events of {table}: {e}")))?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Err(Failure::status(
            format!("events of {table}: http {status}"),
            status,
        ));
    }
    response
        .json()
        .await
        .map_err(|e| Failure::unanswered(format!("events of {table}: {e}")))
}

/// Reads back each table's stored events and compares them with the acknowledged moves
/// (`acked`: per table id, `(version, move record)`). Table `i` is read through
/// `urls[i % len]`; a read that gets no answer goes on to the next URL (each once; with
/// `--reconnect`, in turn for up to [`RETRY_FOR`]).
///
/// # Errors
/// A table's events could not be read (the last failure's description).
pub(crate) async fn check_stored(
    settings: &LoadSettings,
    totals: &Totals,
    acked: &HashMap<String, Vec<(u64, String)>>,
    addresses: &AtomicU32,
) -> Result<Stored, String> {
    let mut all = Stored::default();
    let mut client = http_client(None)?;
    let urls = &settings.urls;
    for (i, (table, moves)) in acked.iter().enumerate() {
        // Spread the reads too: the per-address request limit applies to them (a new address
        // for every 50 tables, well within its burst).
        if settings.spread && i % 50 == 0 {
            client = http_client(Some(next_address(addresses)))?;
        }
        let began = Instant::now();
        let mut turn = 0;
        let events = loop {
            let url = &urls[(i + turn) % urls.len()];
            match stored_events(&client, url, table).await {
                Ok(events) => break events,
                Err(f) if f.transient && turn + 1 < urls.len() => turn += 1,
                Err(f) if f.transient && settings.reconnect && began.elapsed() < RETRY_FOR => {
                    totals.failed_try(f.message);
                    turn += 1;
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(f) => return Err(f.message),
            }
        };
        let one = tally(&events, moves);
        all.checked += one.checked;
        all.missing += one.missing;
        all.doubled += one.doubled;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn moved(version: u64, mv: &str) -> serde_json::Value {
        json!({"version": version, "event": {"kind": "moved", "seat": 0, "move": mv}})
    }

    #[test]
    fn every_acknowledged_move_found_at_its_version() {
        let events = [
            json!({"version": 1, "event": {"kind": "created"}}),
            moved(5, "h2e2"),
            moved(6, "h9g7"),
            moved(7, "c2=R"),
        ];
        let acked = [(5, "h2e2".to_owned()), (7, "c2=R".to_owned())];
        assert_eq!(
            tally(&events, &acked),
            Stored {
                checked: 2,
                missing: 0,
                doubled: 0
            }
        );
    }

    /// A move stored at another version, a move not stored, a version stored twice.
    #[test]
    fn missing_and_doubled_moves_are_counted() {
        let events = [moved(5, "h2e2"), moved(6, "h9g7"), moved(6, "h9g7")];
        let acked = [
            (6, "h2e2".to_owned()),
            (7, "b0c2".to_owned()),
            (6, "h9g7".to_owned()),
        ];
        assert_eq!(
            tally(&events, &acked),
            Stored {
                checked: 3,
                missing: 2,
                doubled: 1
            }
        );
        assert_eq!(tally(&[], &[]), Stored::default());
    }
}
