//! Challenges between two accounts (`POST /api/challenge/{username}`, lichess's model), kept in
//! the store (`migrations/0011_challenges.sql`): a restart forgets none, and any node of a
//! cluster answers any of them. At most [`MAX_PENDING`] wait per challenger.
//!
//! A challenge waits until it is accepted, declined, cancelled, or expires as lichess's do: one
//! with a clock (a real-time game) [`REALTIME_WAIT`] after it was made, or after its
//! challenger's event stream was last open (an open stream keeps its challenges alive, as
//! lichess keeps a challenge while its challenger is seen); an untimed one after
//! [`CORRESPONDENCE_WAIT`] (lichess's two weeks). Every node looks for expired challenges every
//! [`EXPIRY_SCAN`]; the one that expires a challenge tells both players with
//! `challengeCanceled` (status `expired`).

use crate::protocol::{SeatPlayer, TableOptions};
use crate::site::events::{color_of, variant_name};
use crate::site::AppState;
use crate::store::now_ms;
use serde_json::{json, Value};
use std::time::Duration;

pub use crate::store::{person_id, Challenge, MAX_PENDING};

/// How long a challenge with a clock waits for an answer after it was made or after its
/// challenger's event stream was last open (lichess: a challenge not kept alive expires after
/// 20 s).
pub const REALTIME_WAIT: Duration = Duration::from_secs(20);

/// How long an untimed challenge waits for an answer (lichess's two weeks).
pub const CORRESPONDENCE_WAIT: Duration = Duration::from_secs(14 * 24 * 3600);

/// How often each node looks for challenges whose time has passed.
pub const EXPIRY_SCAN: Duration = Duration::from_secs(2);

/// When a challenge for a table of `options` made at `now_ms` expires unanswered: after
/// [`REALTIME_WAIT`] with a clock, [`CORRESPONDENCE_WAIT`] untimed (milliseconds since the
/// Unix epoch).
pub fn expires_ms(options: &TableOptions, now_ms: i64) -> i64 {
    let wait = if options.time.is_some() {
        REALTIME_WAIT
    } else {
        CORRESPONDENCE_WAIT
    };
    now_ms + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2)
}

/// lichess's speed of a time control: by its estimated length, `limit + 40 × increment`
/// seconds (under 30 s `ultraBullet`, 180 `bullet`, 480 `blitz`, 1500 `rapid`, else
/// `classical`); `correspondence` untimed.
pub fn speed_of(options: &TableOptions) -> &'static str {
    let Some(t) = &options.time else {
        return "correspondence";
    };
    let seconds = (t.initial_ms + 40 * t.increment_ms) / 1000;
    match seconds {
        0..=29 => "ultraBullet",
        30..=179 => "bullet",
        180..=479 => "blitz",
        480..=1499 => "rapid",
        _ => "classical",
    }
}

/// A challenge in lichess's shape: `id`, `url`, `status`, `challenger` and `destUser`
/// (`{"id", "name", "title"}`, `title` `BOT` for a bot account), `variant`, `rated`, `speed`,
/// `timeControl` (`{"type": "clock", "limit", "increment", "show"}` in seconds, or
/// `{"type": "unlimited"}`), `color` (as asked), `finalColor` (the challenger's), `perf`.
pub fn challenge_json(c: &Challenge, status: &str) -> Value {
    let who = |p: &SeatPlayer| match p {
        SeatPlayer::Person { id, name, bot, .. } => {
            let title = bot.then_some("BOT");
            json!({"id": id, "name": name, "title": title})
        }
        SeatPlayer::Computer { level } => json!({"aiLevel": level}),
    };
    let key = c.options.variant.as_str();
    let time_control = match &c.options.time {
        Some(t) => json!({
            "type": "clock",
            "limit": t.initial_ms / 1000,
            "increment": t.increment_ms / 1000,
            "show": format!("{}+{}", t.initial_ms / 60_000, t.increment_ms / 1000),
        }),
        None => json!({"type": "unlimited"}),
    };
    json!({
        "id": c.id,
        "url": format!("/api/tables/{}", c.id),
        "status": status,
        "challenger": who(&c.challenger),
        "destUser": who(&c.dest),
        "variant": {"key": key, "name": variant_name(key), "short": variant_name(key)},
        "rated": c.options.rated,
        "speed": speed_of(&c.options),
        "timeControl": time_control,
        "color": c.color,
        "finalColor": color_of(c.challenger_seat),
        "perf": {"name": variant_name(key)},
        "compat": {"bot": true, "board": true},
    })
}

/// Pushes `{"type": kind, "challenge": ...}` (with `status`, and lichess's `declineReason`
/// and `declineReasonKey` when `reason` is given) to both players' event streams, on every
/// node.
pub fn announce_challenge(
    state: &AppState,
    kind: &str,
    c: &Challenge,
    status: &str,
    reason: Option<(&str, &str)>,
) {
    let mut challenge = challenge_json(c, status);
    if let Some((text, key)) = reason {
        challenge["declineReason"] = json!(text);
        challenge["declineReasonKey"] = json!(key);
    }
    let line = json!({"type": kind, "challenge": challenge});
    for p in [&c.challenger, &c.dest] {
        state.player_events().push(person_id(p), &line);
    }
}

/// Expires the challenges whose time has passed and tells their players; answers how many this
/// node expired.
pub async fn expire_overdue(state: &AppState) -> usize {
    let ids = match state.store().overdue_challenges(100).await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "cannot look for expired challenges");
            return 0;
        }
    };
    let mut expired = 0;
    for id in ids {
        match state.store().expire_challenge(&id).await {
            Ok(Some(c)) => {
                announce_challenge(state, "challengeCanceled", &c, "expired", None);
                expired += 1;
            }
            // another node expired (or someone answered) it first
            Ok(None) => {}
            Err(e) => tracing::warn!(challenge = %id, error = %e, "challenge not expired"),
        }
    }
    expired
}

/// Expires overdue challenges while the site lives. It sleeps until the first waiting
/// challenge's expiry, and at most [`EXPIRY_SCAN`] on a cluster (other nodes make challenges
/// too); on a single node without a waiting challenge it sets no timer at all and waits for
/// [`crate::store::CHALLENGE_MADE`], so that an idle site does not wake every few seconds (and tests with paused time
/// are not pushed forward by it).
pub(crate) async fn run(weak: super::WeakState) {
    let mut shutdown = match weak.upgrade() {
        Some(s) => s.shutdown_signal(),
        None => return,
    };
    loop {
        let made = crate::store::CHALLENGE_MADE.notified();
        tokio::pin!(made);
        made.as_mut().enable();
        let (first, cluster) = {
            let Some(state) = weak.upgrade() else {
                return;
            };
            if state.is_shutting_down() {
                return;
            }
            expire_overdue(&state).await;
            let first = match state.store().first_challenge_expiry().await {
                Ok(first) => first.map(|ms| {
                    Duration::from_millis(u64::try_from(ms - now_ms()).unwrap_or(0))
                        .max(Duration::from_millis(50))
                }),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot look for the next challenge to expire");
                    Some(EXPIRY_SCAN)
                }
            };
            (first, state.cluster().is_some())
        };
        let wait = match (first, cluster) {
            (Some(w), true) => Some(w.min(EXPIRY_SCAN)),
            (None, true) => Some(EXPIRY_SCAN),
            (w, false) => w.map(|w| w.min(EXPIRY_SCAN * 30)),
        };
        match wait {
            Some(w) => tokio::select! {
                () = tokio::time::sleep(w) => {}
                () = &mut made => {}
                _ = shutdown.changed() => return,
            },
            None => tokio::select! {
                () = &mut made => {}
                _ = shutdown.changed() => return,
            },
        }
    }
}
