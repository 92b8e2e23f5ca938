//! Swiss events on the site: what a new one is made of and its bounds, its record (the
//! crate's [`Swiss`], the round interval, when the last round ended), how a finished game ends
//! for it, when the next round is paired, and its view in the shape of lichess's
//! `GET /api/swiss/{id}` with chuhe's standings, rounds and pairings.

use super::{check_name, Next, Status, MAX_START_AHEAD_MS};
use crate::error::ServerError;
use crate::protocol::FinishedGame;
use crate::store::{now_ms, TournamentRow};
use crate::variant::Variant;
use chuhe_rules::outcome::EndReason;
use chuhe_tournament::swiss::{RoundEntry, Swiss, SwissResult, SwissSettings};
use chuhe_tournament::{EventError, GameId, PlayerId, Side};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Fewest rounds (lichess's).
pub const MIN_ROUNDS: u32 = 3;
/// Most rounds (lichess's).
pub const MAX_ROUNDS: u32 = 100;
/// Longest wait between rounds, seconds: a week (lichess's longest but for manual rounds).
pub const MAX_ROUND_INTERVAL_S: i64 = 7 * 24 * 3600;
/// How long round 1 waits for a second player after the start, tournament minutes; then the
/// event ends (`fewer than two players are present`).
pub const FIRST_ROUND_WAIT_MINUTES: i64 = 10;

/// What a new Swiss event is made of (`POST /api/swiss/new`), checked by
/// [`check_new_swiss`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSwiss {
    /// Its name, 2 to [`super::MAX_NAME_CHARS`] characters (letters, digits, spaces, `-_.,'`).
    pub name: String,
    /// A two-player game: xiangqi or banqi.
    pub variant: Variant,
    /// Each player's starting time, seconds (15 … 3600).
    pub clock_limit_s: i64,
    /// Added after each move, seconds (0 … 60).
    pub clock_increment_s: i64,
    /// How many rounds ([`MIN_ROUNDS`] … [`MAX_ROUNDS`]).
    pub nb_rounds: u32,
    /// When round 1 is paired, milliseconds since the Unix epoch (from now to
    /// [`MAX_START_AHEAD_MS`] ahead; a time in the past pairs it at the next tick).
    pub starts_ms: i64,
    /// The wait between the end of a round's last game and the next round, seconds (0 …
    /// [`MAX_ROUND_INTERVAL_S`]; measured in the server's tournament minutes, so the test knob
    /// shortens it too).
    pub round_interval_s: i64,
    /// Whether its games are rated.
    pub rated: bool,
}

/// Checks a new Swiss event's settings.
///
/// # Errors
/// [`ServerError::BadMessage`] naming the first setting out of bounds (lichess's field names).
pub fn check_new_swiss(spec: &NewSwiss, now: i64) -> Result<(), ServerError> {
    let bad = |why: String| Err(ServerError::BadMessage(why));
    check_name(&spec.name)?;
    if spec.variant.seat_count() != 2 {
        return bad("variant: a Swiss event is of xiangqi or banqi".to_owned());
    }
    if !(15..=3600).contains(&spec.clock_limit_s) {
        return bad("clock.limit: 15 to 3600 seconds".to_owned());
    }
    if !(0..=60).contains(&spec.clock_increment_s) {
        return bad("clock.increment: 0 to 60 seconds".to_owned());
    }
    if !(MIN_ROUNDS..=MAX_ROUNDS).contains(&spec.nb_rounds) {
        return bad(format!("nbRounds: {MIN_ROUNDS} to {MAX_ROUNDS}"));
    }
    if !(0..=MAX_ROUND_INTERVAL_S).contains(&spec.round_interval_s) {
        return bad(format!(
            "roundInterval: 0 to {MAX_ROUND_INTERVAL_S} seconds"
        ));
    }
    if spec.starts_ms > now + MAX_START_AHEAD_MS {
        return bad("startsAt: at most 30 days ahead".to_owned());
    }
    Ok(())
}

/// How a finished game ends for a Swiss event: the winner by seat (seat 0 is Red), else a
/// draw. An aborted game is lost by the seat that did not play its first move (lichess's
/// Swiss): Red when no move was played, Black after one.
pub fn swiss_result_of(game: &FinishedGame) -> SwissResult {
    if game.outcome.reason == EndReason::Aborted {
        return if game.plies == 0 {
            SwissResult::BlackWon
        } else {
            SwissResult::RedWon
        };
    }
    match game.winner_seats.as_slice() {
        [seat] if seat.index() == 0 => SwissResult::RedWon,
        [seat] if seat.index() == 1 => SwissResult::BlackWon,
        _ => SwissResult::Draw,
    }
}

/// What the server keeps of a Swiss event beyond its row. Stored as JSON in
/// `tournaments.state` (kind `swiss`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwissRecord {
    /// The rules' state: players, sheets, games, rounds paired.
    pub swiss: Swiss,
    /// Each player's name when they joined, by id.
    pub names: BTreeMap<PlayerId, String>,
    /// The table of each game handed out.
    pub tables: BTreeMap<GameId, String>,
    /// The wait between rounds, seconds.
    pub round_interval_s: i64,
    /// When the last game of the latest round ended, milliseconds since the Unix epoch
    /// (`None` while it is in play, and before round 1).
    pub round_done_ms: Option<i64>,
    /// Why it ended before its last round (the rules' reason), if it did.
    pub end_reason: Option<String>,
}

impl SwissRecord {
    /// The record of a new event.
    pub fn new(spec: &NewSwiss) -> SwissRecord {
        SwissRecord {
            swiss: Swiss::new(SwissSettings {
                rounds: spec.nb_rounds,
            }),
            names: BTreeMap::new(),
            tables: BTreeMap::new(),
            round_interval_s: spec.round_interval_s,
            round_done_ms: None,
            end_reason: None,
        }
    }

    fn round_complete(&self) -> bool {
        self.swiss.games.values().all(|g| g.result.is_some())
    }

    /// Records a game's result at `now`; the last result of a round starts the interval.
    pub(super) fn record(
        &mut self,
        game: GameId,
        result: SwissResult,
        now: i64,
    ) -> Result<(), EventError> {
        self.swiss.record_result(game, result)?;
        if self.round_complete() {
            self.round_done_ms = Some(now);
        }
        Ok(())
    }

    /// The round interval in milliseconds of the server's tournament minute.
    fn interval_ms(&self, minute_ms: i64) -> i64 {
        self.round_interval_s.saturating_mul(minute_ms) / 60
    }

    /// When the next round is due, once the last one is complete.
    fn next_round_ms(&self, minute_ms: i64) -> Option<i64> {
        self.round_done_ms.map(|d| d + self.interval_ms(minute_ms))
    }

    /// What a tick does now with the event started at `starts_ms`: wait for the round in
    /// play or the interval, pair the next round, or finish (every round played, or none can
    /// be paired: fewer than two players present, or every pairing left a rematch). Round 1
    /// waits for two players for [`FIRST_ROUND_WAIT_MINUTES`].
    pub(super) fn next(&mut self, now: i64, starts_ms: i64, minute_ms: i64) -> Next {
        if !self.round_complete() {
            return Next::Wait;
        }
        if self.swiss.is_finished() {
            return Next::Finish;
        }
        let present = self.swiss.players.values().filter(|p| !p.withdrawn).count();
        if self.swiss.rounds_paired == 0
            && present < 2
            && now < starts_ms + FIRST_ROUND_WAIT_MINUTES * minute_ms
        {
            return Next::Wait;
        }
        if self.swiss.rounds_paired > 0 {
            let due = match self.next_round_ms(minute_ms) {
                Some(due) => due,
                None => {
                    // complete but not noted (a restart): the interval runs from now
                    self.round_done_ms = Some(now);
                    return Next::Wait;
                }
            };
            if now < due {
                return Next::Wait;
            }
        }
        match self.swiss.pair_round() {
            Ok(round) => {
                self.round_done_ms = None;
                Next::Seat(
                    round
                        .games
                        .into_iter()
                        .map(|g| (g.id, vec![g.red, g.black]))
                        .collect(),
                )
            }
            Err(e) => {
                let why = match e {
                    EventError::Round(why) => why.to_owned(),
                    e => e.to_string(),
                };
                tracing::info!(reason = %why, "swiss event ends");
                self.end_reason = Some(why);
                Next::Finish
            }
        }
    }

    fn name_of(&self, p: &PlayerId) -> String {
        self.names.get(p).cloned().unwrap_or_else(|| p.0.clone())
    }

    /// lichess's results of a Swiss event (`GET /api/swiss/{id}/results`): one line per
    /// player in the order of the standings, at most `nb` of them: `rank`, `points`,
    /// `tieBreak` (Sonneborn-Berger), `rating`, `username`, `performance` (once the player has
    /// a game with a result over the board), and `absent` for a player who withdrew.
    pub(super) fn results(&self, nb: usize) -> Vec<Value> {
        self.swiss
            .standings()
            .iter()
            .take(nb)
            .map(|s| {
                let mut line = json!({
                    "rank": s.rank,
                    "points": s.points,
                    "tieBreak": s.sonneborn_berger,
                    "rating": s.rating,
                    "username": self.name_of(&s.id),
                });
                if let Some(performance) = self.performance(&s.id) {
                    line["performance"] = json!(performance);
                }
                if s.withdrawn {
                    line["absent"] = json!(true);
                }
                line
            })
            .collect()
    }

    /// A player's performance rating: the mean over their games with a result of the
    /// opponent's rating, + 500 for a win, − 500 for a loss (as the arena's), rounded down;
    /// `None` before their first result over the board.
    fn performance(&self, who: &PlayerId) -> Option<i64> {
        let player = self.swiss.players.get(who)?;
        let (mut sum, mut games) = (0i64, 0i64);
        for e in &player.sheet {
            if let RoundEntry::Game {
                opponent,
                half_points: Some(h),
                ..
            } = e
            {
                let rating = self.swiss.players.get(opponent).map_or(0, |o| o.rating);
                sum += i64::from(rating)
                    + match h {
                        2 => 500,
                        0 => -500,
                        _ => 0,
                    };
                games += 1;
            }
        }
        (games > 0).then(|| sum.div_euclid(games))
    }

    /// The Swiss part of the full view (`docs/protocol.md`, "Swiss").
    pub(super) fn view(
        &self,
        view: &mut Value,
        row: &TournamentRow,
        status: Status,
        minute_ms: i64,
    ) {
        let now = now_ms();
        view["status"] = json!(status.as_str());
        view["roundInterval"] = json!(self.round_interval_s);
        view["nbOngoing"] = json!(self
            .swiss
            .games
            .values()
            .filter(|g| g.result.is_none())
            .count());
        match status {
            Status::Created => {
                view["secondsToStart"] = json!(((row.starts_ms - now).max(0)) / 1000);
                view["nextRound"] =
                    json!({"at": row.starts_ms, "in": ((row.starts_ms - now).max(0)) / 1000});
            }
            Status::Started => {
                if let Some(at) = self.next_round_ms(minute_ms) {
                    if self.round_complete()
                        && self.swiss.rounds_paired < self.swiss.settings.rounds
                    {
                        view["nextRound"] = json!({"at": at, "in": ((at - now).max(0)) / 1000});
                    }
                }
            }
            Status::Finished => {}
        }
        if let Some(why) = &self.end_reason {
            view["endReason"] = json!(why);
        }
        let standings = self.swiss.standings();
        let players: Vec<Value> = standings
            .iter()
            .map(|s| {
                let p = &self.swiss.players[&s.id];
                let sheet: Vec<Value> = p
                    .sheet
                    .iter()
                    .enumerate()
                    .map(|(i, e)| self.entry_view(i as u32 + 1, e))
                    .collect();
                let mut line = json!({
                    "rank": s.rank,
                    "id": s.id.0,
                    "name": self.name_of(&s.id),
                    "rating": s.rating,
                    "points": s.points,
                    "tieBreak": s.sonneborn_berger,
                    "buchholz": s.buchholz,
                    "sheet": sheet,
                });
                if s.withdrawn {
                    line["withdraw"] = json!(true);
                }
                let playing = p.sheet.iter().find_map(|e| match e {
                    RoundEntry::Game {
                        game,
                        half_points: None,
                        ..
                    } => self.tables.get(game),
                    _ => None,
                });
                if let Some(table) = playing {
                    line["playing"] = json!(table);
                }
                line
            })
            .collect();
        let rounds: Vec<Value> = (1..=self.swiss.rounds_paired)
            .map(|round| {
                let games: Vec<Value> = self
                    .swiss
                    .games
                    .values()
                    .filter(|g| g.round == round)
                    .map(|g| {
                        let side = |p: &PlayerId| {
                            let rating = self.swiss.players.get(p).map_or(0, |x| x.rating);
                            json!({"id": p.0, "name": self.name_of(p), "rating": rating})
                        };
                        json!({
                            "board": g.board,
                            "id": self.tables.get(&g.id),
                            "red": side(&g.red),
                            "black": side(&g.black),
                            "result": g.result.map(result_text),
                        })
                    })
                    .collect();
                let bye = self.swiss.players.values().find_map(|p| {
                    (p.sheet.get(round as usize - 1) == Some(&RoundEntry::Bye))
                        .then(|| self.name_of(&p.id))
                });
                json!({"round": round, "games": games, "bye": bye})
            })
            .collect();
        if status == Status::Finished {
            let podium: Vec<Value> = standings
                .iter()
                .take(3)
                .map(|s| {
                    json!({
                        "name": self.name_of(&s.id),
                        "rank": s.rank,
                        "rating": s.rating,
                        "points": s.points,
                        "tieBreak": s.sonneborn_berger,
                    })
                })
                .collect();
            view["podium"] = json!(podium);
        }
        view["standing"] = json!({"page": 1, "players": players});
        view["rounds"] = json!(rounds);
    }

    /// One round of a player's sheet: `kind` (`game`, `bye`, `late`, `absent`), and for a
    /// game the opponent's name (`o`), the player's colour (`c`), the result for the player
    /// (`r`: win, draw, loss; `null` in play) and the table.
    fn entry_view(&self, round: u32, e: &RoundEntry) -> Value {
        match e {
            RoundEntry::Game {
                game,
                opponent,
                colour,
                half_points,
            } => json!({
                "round": round,
                "kind": "game",
                "o": self.name_of(opponent),
                "c": if *colour == Side::Red { "red" } else { "black" },
                "r": half_points.map(|h| match h { 2 => "win", 1 => "draw", _ => "loss" }),
                "table": self.tables.get(game),
            }),
            RoundEntry::Bye => json!({"round": round, "kind": "bye"}),
            RoundEntry::Late => json!({"round": round, "kind": "late"}),
            RoundEntry::Absent => json!({"round": round, "kind": "absent"}),
        }
    }
}

/// A game's result as PGN writes it: `1-0` (Red won), `0-1`, `1/2-1/2`.
fn result_text(r: SwissResult) -> &'static str {
    match r {
        SwissResult::RedWon => "1-0",
        SwissResult::BlackWon => "0-1",
        SwissResult::Draw => "1/2-1/2",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Seat;
    use crate::site::tournaments::Pairing;
    use chuhe_rules::outcome::Outcome;

    fn finished(winner: Option<usize>, reason: EndReason, plies: usize) -> FinishedGame {
        FinishedGame {
            id: "t".to_owned(),
            options: serde_json::from_value(json!({"variant": "xiangqi"})).unwrap(),
            seats: vec![None, None],
            outcome: Outcome {
                winners: winner
                    .map(|i| vec![[Side::Red, Side::Black][i]])
                    .unwrap_or_default(),
                reason,
            },
            result: None,
            winner_seats: winner.map(|i| vec![Seat::new(i)]).unwrap_or_default(),
            plies,
            berserks: Vec::new(),
            created_ms: 0,
            ended_ms: 0,
        }
    }

    #[test]
    fn results_of_finished_games() {
        let of = |w, r, p| swiss_result_of(&finished(w, r, p));
        assert_eq!(of(Some(0), EndReason::Checkmate, 41), SwissResult::RedWon);
        assert_eq!(
            of(Some(1), EndReason::Resignation, 10),
            SwissResult::BlackWon
        );
        assert_eq!(of(None, EndReason::Agreement, 60), SwissResult::Draw);
        // Red never moved: Red loses; Black never answered: Black loses.
        assert_eq!(of(None, EndReason::Aborted, 0), SwissResult::BlackWon);
        assert_eq!(of(None, EndReason::Aborted, 1), SwissResult::RedWon);
    }

    #[test]
    fn the_next_round_waits_for_the_interval() {
        let spec = NewSwiss {
            name: "Test".to_owned(),
            variant: Variant::Xiangqi,
            clock_limit_s: 60,
            clock_increment_s: 0,
            nb_rounds: 3,
            starts_ms: 0,
            round_interval_s: 30,
            rated: false,
        };
        let mut r = SwissRecord::new(&spec);
        // Round 1 waits for a second player, ten minutes at most.
        assert!(matches!(r.next(1_000, 0, 60_000), Next::Wait));
        let mut empty = SwissRecord::new(&spec);
        assert!(matches!(empty.next(599_999, 0, 60_000), Next::Wait));
        assert!(matches!(empty.next(600_000, 0, 60_000), Next::Finish));
        assert_eq!(
            empty.end_reason.as_deref(),
            Some("fewer than two players are present")
        );
        for (id, rating) in [("a", 1600), ("b", 1500), ("c", 1400), ("d", 1300)] {
            r.swiss.join(PlayerId::from(id), rating).unwrap();
        }
        let Next::Seat(games) = r.next(1_000, 0, 60_000) else {
            panic!("round 1 is paired at once");
        };
        // 1–3, 4–2
        let ids = |g: &Pairing| (g.1[0].0.clone(), g.1[1].0.clone());
        assert_eq!(
            games.iter().map(ids).collect::<Vec<_>>(),
            [
                ("a".to_owned(), "c".to_owned()),
                ("d".to_owned(), "b".to_owned())
            ]
        );
        assert!(matches!(r.next(2_000, 0, 60_000), Next::Wait));
        r.record(games[0].0, SwissResult::Draw, 4_000).unwrap();
        assert_eq!(r.round_done_ms, None);
        r.record(games[1].0, SwissResult::RedWon, 5_000).unwrap();
        assert_eq!(r.round_done_ms, Some(5_000));
        // 30 s after the last result (35 000 ms): not before.
        assert!(matches!(r.next(34_999, 0, 60_000), Next::Wait));
        assert!(matches!(r.next(35_000, 0, 60_000), Next::Seat(g) if g.len() == 2));
        assert_eq!(r.round_done_ms, None);
        // With a tournament minute of 600 ms, the 30 s last 300 ms.
        assert_eq!(r.interval_ms(600), 300);
    }
}
