//! Tournaments the operator schedules (`[[schedule]]` in `chuhe serve`'s configuration file,
//! `docs/operations.md`): e.g. an hourly xiangqi blitz arena and a daily banqi arena. Each
//! schedule names the event and when it recurs (hourly, daily or weekly, in UTC); the server
//! creates each start that falls within `ahead-minutes` of now, owned by the system creator
//! [`SYSTEM_CREATOR`] (shown as `chuhe`). The id of a scheduled event is made from the
//! schedule's name and the start time ([`scheduled_id`]), so creating it is idempotent: a
//! restart, or a second node of a cluster, finds the row already there and adds nothing.

use super::{check_new, check_new_swiss, NewArena, NewSwiss};
use crate::error::ServerError;
use crate::variant::Variant;
use serde::Deserialize;

/// The player id (and name) that owns the scheduled tournaments: a row of `players` the
/// server makes when it first creates one, never an account (nobody can sign in as it).
pub const SYSTEM_CREATOR: &str = "chuhe";

/// How often a schedule recurs (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Every {
    /// Every hour at `minute`.
    Hourly,
    /// Every day at `hour`:`minute`.
    Daily,
    /// Every week on `weekday` at `hour`:`minute`.
    Weekly,
}

/// The kind of event a schedule makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScheduleKind {
    /// An arena (a sanguo arena for `variant = "sanguo"`).
    #[default]
    Arena,
    /// A Swiss event (xiangqi or banqi).
    Swiss,
}

/// A day of the week, for a weekly schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    /// Monday.
    Monday,
    /// Tuesday.
    Tuesday,
    /// Wednesday.
    Wednesday,
    /// Thursday.
    Thursday,
    /// Friday.
    Friday,
    /// Saturday.
    Saturday,
    /// Sunday.
    Sunday,
}

impl Weekday {
    /// Days after Thursday, the weekday of 1 January 1970 (the Unix epoch).
    const fn after_thursday(self) -> i64 {
        match self {
            Weekday::Thursday => 0,
            Weekday::Friday => 1,
            Weekday::Saturday => 2,
            Weekday::Sunday => 3,
            Weekday::Monday => 4,
            Weekday::Tuesday => 5,
            Weekday::Wednesday => 6,
        }
    }
}

fn yes() -> bool {
    true
}

fn xiangqi() -> String {
    "xiangqi".to_owned()
}

fn an_hour() -> i64 {
    60
}

fn a_minute() -> i64 {
    60
}

/// One `[[schedule]]` of the configuration file (keys written with `-`, as the file's other
/// keys).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Schedule {
    /// The event's name (as a player's: 2 to 30 letters, digits, spaces and `-_.,'`); also the
    /// schedule's key, so two schedules need two names.
    pub name: String,
    /// `arena` (default) or `swiss`.
    #[serde(default)]
    pub kind: ScheduleKind,
    /// `xiangqi` (default), `banqi`, or `sanguo` (an arena only).
    #[serde(default = "xiangqi")]
    pub variant: String,
    /// Each player's starting time, minutes (0.25 to 60).
    pub clock_time: f64,
    /// Seconds added per move (0 to 60; default 0).
    #[serde(default)]
    pub clock_increment: i64,
    /// An arena's length, minutes (10 to 180; required for an arena).
    #[serde(default)]
    pub minutes: Option<i64>,
    /// A Swiss event's rounds (3 to 100; required for a Swiss event).
    #[serde(default)]
    pub rounds: Option<u32>,
    /// A Swiss event's wait between rounds, seconds (default 60).
    #[serde(default = "a_minute")]
    pub round_interval: i64,
    /// Rated games (default true).
    #[serde(default = "yes")]
    pub rated: bool,
    /// Berserk allowed in an arena (default true).
    #[serde(default = "yes")]
    pub berserkable: bool,
    /// `hourly`, `daily` or `weekly` (UTC).
    pub every: Every,
    /// The minute of the hour it starts at (0 to 59; default 0).
    #[serde(default)]
    pub minute: i64,
    /// The hour of the day (0 to 23; default 0) of a daily or weekly schedule.
    #[serde(default)]
    pub hour: i64,
    /// The day of a weekly schedule (`monday` ... `sunday`).
    #[serde(default)]
    pub weekday: Option<Weekday>,
    /// How long before its start an event is created (and listed in the lobby with its
    /// countdown), minutes (1 to 10080; default 60).
    #[serde(default = "an_hour")]
    pub ahead_minutes: i64,
}

/// What a schedule creates at one start.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// An arena (or a sanguo arena).
    Arena(NewArena),
    /// A Swiss event.
    Swiss(NewSwiss),
}

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;

impl Schedule {
    /// Checks the schedule as the server will use it: its times, and the event it makes
    /// (the bounds of `POST /api/tournament` and `POST /api/swiss/new`).
    ///
    /// # Errors
    /// A line naming the schedule and the first key out of bounds.
    pub fn check(&self) -> Result<(), String> {
        let bad = |why: &str| Err(format!("schedule {:?}: {why}", self.name));
        if !(0..60).contains(&self.minute) {
            return bad("minute: 0 to 59");
        }
        if !(0..24).contains(&self.hour) {
            return bad("hour: 0 to 23");
        }
        if self.every == Every::Weekly && self.weekday.is_none() {
            return bad("weekday: required by a weekly schedule");
        }
        if !(1..=7 * 24 * 60).contains(&self.ahead_minutes) {
            return bad("ahead-minutes: 1 to 10080");
        }
        if self.ahead_minutes * MINUTE_MS > super::MAX_START_AHEAD_MS {
            return bad("ahead-minutes: at most 30 days");
        }
        let planned = match self.event(0) {
            Ok(planned) => planned,
            Err(why) => return bad(&why),
        };
        let checked = match &planned {
            Planned::Arena(spec) => check_new(spec, 0),
            Planned::Swiss(spec) => check_new_swiss(spec, 0),
        };
        match checked {
            Ok(()) => Ok(()),
            Err(ServerError::BadMessage(why)) => bad(&why),
            Err(e) => bad(&e.to_string()),
        }
    }

    /// The event this schedule makes for the start `starts_ms`.
    ///
    /// # Errors
    /// The key that does not fit (an unknown variant, a missing `minutes` or `rounds`).
    pub fn event(&self, starts_ms: i64) -> Result<Planned, String> {
        let variant: Variant = self
            .variant
            .parse()
            .map_err(|_| format!("variant: {:?} is unknown", self.variant))?;
        if !self.clock_time.is_finite() {
            return Err("clock-time: a number of minutes".to_owned());
        }
        let clock_limit_s = (self.clock_time * 60.0).round() as i64;
        Ok(match self.kind {
            ScheduleKind::Arena => Planned::Arena(NewArena {
                name: self.name.clone(),
                variant,
                clock_limit_s,
                clock_increment_s: self.clock_increment,
                minutes: self
                    .minutes
                    .ok_or_else(|| "minutes: required by an arena".to_owned())?,
                starts_ms,
                rated: self.rated,
                berserkable: self.berserkable,
            }),
            ScheduleKind::Swiss => Planned::Swiss(NewSwiss {
                name: self.name.clone(),
                variant,
                clock_limit_s,
                clock_increment_s: self.clock_increment,
                nb_rounds: self
                    .rounds
                    .ok_or_else(|| "rounds: required by a Swiss event".to_owned())?,
                starts_ms,
                round_interval_s: self.round_interval,
                rated: self.rated,
            }),
        })
    }

    /// The period and the offset of the starts into it, milliseconds since the Unix epoch
    /// (a start is `k × period + offset`).
    fn period_offset(&self) -> (i64, i64) {
        let minute = self.minute * MINUTE_MS;
        let hour = self.hour * HOUR_MS;
        match self.every {
            Every::Hourly => (HOUR_MS, minute),
            Every::Daily => (DAY_MS, hour + minute),
            Every::Weekly => {
                let day = self.weekday.map_or(0, Weekday::after_thursday);
                (7 * DAY_MS, day * DAY_MS + hour + minute)
            }
        }
    }

    /// The starts after `now_ms` and no later than `ahead-minutes` from it, earliest first.
    pub fn starts_within(&self, now_ms: i64) -> Vec<i64> {
        let (period, offset) = self.period_offset();
        let last = now_ms + self.ahead_minutes * MINUTE_MS;
        // the first start strictly after now
        let mut at = (now_ms - offset).div_euclid(period) * period + offset;
        if at <= now_ms {
            at += period;
        }
        let mut out = Vec::new();
        while at <= last {
            out.push(at);
            at += period;
        }
        out
    }
}

/// The id of the event a schedule named `name` makes at `starts_ms`: 8 characters of the id
/// alphabet, from a 64-bit FNV-1a hash of both, so every node and every restart computes the
/// same one and the table's primary key keeps it unique.
pub fn scheduled_id(name: &str, starts_ms: i64) -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let text = format!("schedule\u{0}{name}\u{0}{starts_ms}");
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (0..8)
        .map(|i| ALPHABET[((hash >> (i * 5)) & 31) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hourly() -> Schedule {
        toml_like(Every::Hourly)
    }

    fn toml_like(every: Every) -> Schedule {
        Schedule {
            name: "Hourly Blitz".to_owned(),
            kind: ScheduleKind::Arena,
            variant: "xiangqi".to_owned(),
            clock_time: 3.0,
            clock_increment: 2,
            minutes: Some(57),
            rounds: None,
            round_interval: 60,
            rated: true,
            berserkable: true,
            every,
            minute: 0,
            hour: 0,
            weekday: None,
            ahead_minutes: 60,
        }
    }

    #[test]
    fn an_hourly_schedule_starts_on_the_hour_within_its_lead() {
        let s = Schedule {
            minute: 30,
            ahead_minutes: 120,
            ..hourly()
        };
        // 1970-01-01 10:10 UTC: starts at 10:30 and 11:30 (12:30 is beyond two hours)
        let now = 10 * HOUR_MS + 10 * MINUTE_MS;
        assert_eq!(
            s.starts_within(now),
            [10 * HOUR_MS + 30 * MINUTE_MS, 11 * HOUR_MS + 30 * MINUTE_MS]
        );
        // exactly at a start: the next ones (the one now is due, not ahead), the last one
        // exactly two hours ahead included
        assert_eq!(
            s.starts_within(10 * HOUR_MS + 30 * MINUTE_MS),
            [11 * HOUR_MS + 30 * MINUTE_MS, 12 * HOUR_MS + 30 * MINUTE_MS]
        );
        assert!(s.check().is_ok());
    }

    #[test]
    fn daily_and_weekly_schedules_fall_on_their_day_and_hour() {
        let daily = Schedule {
            hour: 20,
            ahead_minutes: 24 * 60,
            ..toml_like(Every::Daily)
        };
        // 3 Jan 1970 21:00: the next is 4 Jan 20:00
        let now = 2 * DAY_MS + 21 * HOUR_MS;
        assert_eq!(daily.starts_within(now), [3 * DAY_MS + 20 * HOUR_MS]);
        let weekly = Schedule {
            hour: 18,
            weekday: Some(Weekday::Monday),
            ahead_minutes: 7 * 24 * 60,
            ..toml_like(Every::Weekly)
        };
        // 1 Jan 1970 was a Thursday: the first Monday is 5 January (day 4)
        assert_eq!(weekly.starts_within(0), [4 * DAY_MS + 18 * HOUR_MS]);
        assert!(weekly.check().is_ok());
        let no_day = Schedule {
            weekday: None,
            ..weekly
        };
        assert_eq!(
            no_day.check().unwrap_err(),
            "schedule \"Hourly Blitz\": weekday: required by a weekly schedule"
        );
    }

    #[test]
    fn a_schedule_out_of_bounds_is_refused_with_its_key() {
        let long = Schedule {
            minutes: Some(500),
            ..hourly()
        };
        assert_eq!(
            long.check().unwrap_err(),
            "schedule \"Hourly Blitz\": minutes: 10 to 180"
        );
        let swiss = Schedule {
            kind: ScheduleKind::Swiss,
            ..hourly()
        };
        assert_eq!(
            swiss.check().unwrap_err(),
            "schedule \"Hourly Blitz\": rounds: required by a Swiss event"
        );
        let late = Schedule {
            minute: 60,
            ..hourly()
        };
        assert_eq!(
            late.check().unwrap_err(),
            "schedule \"Hourly Blitz\": minute: 0 to 59"
        );
    }

    #[test]
    fn a_scheduled_id_depends_on_the_name_and_the_start_only() {
        let a = scheduled_id("Hourly Blitz", 3_600_000);
        assert_eq!(a, scheduled_id("Hourly Blitz", 3_600_000));
        assert_ne!(a, scheduled_id("Hourly Blitz", 7_200_000));
        assert_ne!(a, scheduled_id("Daily Banqi", 3_600_000));
        assert_eq!(a.len(), 8);
        assert!(a
            .chars()
            .all(|c| "abcdefghijkmnpqrstuvwxyz23456789".contains(c)));
    }
}
