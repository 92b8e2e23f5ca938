//! The sanguo arena on the site: its record, how a finished sanguo game ends for it (winners
//! and the order of the defeats), the `gameStart` of a three-seat table, and its view in the
//! arena's shape with three players a game.

use super::Status;
use crate::protocol::{Event, FinishedGame, Phase, TableSummary};
use crate::store::{now_ms, TournamentRow};
use chuhe_rules::outcome::EndReason;
use chuhe_tournament::sanguo::{Placing, SanguoArena, SanguoEnd};
use chuhe_tournament::{GameId, Kingdom, PlayerId, PlayerResult, Presence};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

/// What the server keeps of a sanguo arena beyond its row: the crate's state, the players'
/// names and each game's table. Stored as JSON in `tournaments.state` (kind `sanguo-arena`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanguoRecord {
    /// The rules' state: players, sheets, tables of three.
    pub arena: SanguoArena,
    /// Each player's name when they joined, by id.
    pub names: BTreeMap<PlayerId, String>,
    /// The table of each game handed out.
    pub tables: BTreeMap<GameId, String>,
}

/// How a finished sanguo game ends for the sanguo arena: its winning kingdoms (seat 0 is Shu,
/// 1 Wu, 2 Wei), the kingdoms defeated on the board in the order of its `defeated` events, its
/// plies. An aborted game is a draw of no plies (0 points for all three).
pub fn sanguo_end_of(game: &FinishedGame, events: &[Event]) -> SanguoEnd {
    if game.outcome.reason == EndReason::Aborted {
        return SanguoEnd {
            winners: Vec::new(),
            defeated: Vec::new(),
            plies: 0,
        };
    }
    let winners = game
        .winner_seats
        .iter()
        .filter_map(|s| Kingdom::from_index(s.index()))
        .collect();
    let mut defeated: Vec<Kingdom> = Vec::new();
    for e in events {
        if let Event::Defeated { seat, .. } = e {
            if let Some(k) = Kingdom::from_index(seat.index()) {
                if !defeated.contains(&k) {
                    defeated.push(k);
                }
            }
        }
    }
    SanguoEnd {
        winners,
        defeated,
        plies: u32::try_from(game.plies).unwrap_or(u32::MAX),
    }
}

/// The kingdom's wire word: `shu`, `wu`, `wei`.
pub(super) fn kingdom_word(k: Kingdom) -> &'static str {
    match k {
        Kingdom::Shu => "shu",
        Kingdom::Wu => "wu",
        Kingdom::Wei => "wei",
    }
}

/// The `gameStart` game of `player_id` at a sanguo table: lichess's fields that fit three
/// seats (`gameId`, `id`, `rated`, `variant`, `status`), with `kingdom` (the player's) and
/// `opponents` (the two others' names, in seat order) in place of `color` and `opponent`.
pub(super) fn game_start(table: &TableSummary, player_id: &str) -> Option<Value> {
    let names: Vec<Option<(&str, &str)>> = table
        .seats
        .iter()
        .map(|s| match s {
            Some(crate::protocol::SeatPlayer::Person { id, name, .. }) => {
                Some((id.as_str(), name.as_str()))
            }
            _ => None,
        })
        .collect();
    let seat = names
        .iter()
        .position(|n| n.is_some_and(|(id, _)| id == player_id))?;
    let opponents: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != seat)
        .map(|(_, n)| n.map_or("?", |(_, name)| name))
        .collect();
    let status = match table.phase {
        Phase::Open => "created",
        Phase::Running => "started",
        Phase::Ended => "ended",
    };
    Some(json!({
        "gameId": table.id,
        "id": table.id,
        "kingdom": kingdom_word(Kingdom::from_index(seat)?),
        "opponents": opponents,
        "rated": table.options.rated,
        "variant": {"key": "sanguo", "name": "Sanguo"},
        "status": status,
    }))
}

/// The placing's wire word: `sole_win`, `shared_win`, `second_out`, `first_out`, `draw`,
/// `null_draw`.
fn placing_word(p: Placing) -> &'static str {
    match p {
        Placing::SoleWin => "sole_win",
        Placing::SharedWin => "shared_win",
        Placing::SecondOut => "second_out",
        Placing::FirstOut => "first_out",
        Placing::Draw => "draw",
        Placing::NullDraw => "null_draw",
    }
}

/// The sanguo arena's part of the full view: the arena's fields, each result with both
/// opponents (`o`, joined by a comma), the kingdom (`k`) and the placing (`pl`), and each
/// game in play with three sides (Shu, Wu, Wei).
pub(super) fn view(
    view: &mut Value,
    row: &TournamentRow,
    status: Status,
    record: &SanguoRecord,
    minute_ms: i64,
) {
    let now = now_ms();
    let finishes_ms = row.starts_ms + row.minutes * minute_ms;
    let name_of = |p: &PlayerId| record.names.get(p).cloned().unwrap_or_else(|| p.0.clone());
    let standings = record.arena.standings();
    let rank: HashMap<&PlayerId, u32> = standings.iter().map(|s| (&s.id, s.rank)).collect();
    let players: Vec<Value> = standings
        .iter()
        .map(|s| {
            let sheet = record
                .arena
                .players
                .get(&s.id)
                .map(|p| p.sheet.as_slice())
                .unwrap_or(&[]);
            // lichess's sheet: each game's points as one digit (8 at most), the latest first.
            let scores: String = sheet.iter().rev().map(|g| g.points.to_string()).collect();
            let results: Vec<Value> = sheet
                .iter()
                .map(|g| {
                    let r = match g.placing.result() {
                        PlayerResult::Win => "win",
                        PlayerResult::Draw => "draw",
                        PlayerResult::Loss => "loss",
                    };
                    json!({
                        "o": format!("{}, {}", name_of(&g.opponents[0]), name_of(&g.opponents[1])),
                        "r": r,
                        "p": g.points,
                        "f": g.on_fire,
                        "b": false,
                        "k": kingdom_word(g.kingdom),
                        "pl": placing_word(g.placing),
                    })
                })
                .collect();
            let mut line = json!({
                "id": s.id.0,
                "name": name_of(&s.id),
                "rank": s.rank,
                "rating": s.rating,
                "score": s.score,
                "sheet": {"scores": scores, "fire": s.on_fire},
                "results": results,
            });
            if s.presence != Presence::Active {
                line["withdraw"] = json!(true);
            }
            if let Some(table) = record
                .arena
                .players
                .get(&s.id)
                .and_then(|p| p.playing)
                .and_then(|g| record.tables.get(&g))
            {
                line["playing"] = json!(table);
            }
            line
        })
        .collect();
    let duels: Vec<Value> = record
        .arena
        .games
        .values()
        .filter(|g| g.end.is_none())
        .filter_map(|g| {
            let table = record.tables.get(&g.id)?;
            let side = |p: &PlayerId| {
                let rating = record.arena.players.get(p).map_or(0, |x| x.rating);
                json!({"n": name_of(p), "r": rating, "k": rank.get(p).copied().unwrap_or(0)})
            };
            Some(json!({"id": table, "p": g.seats.iter().map(side).collect::<Vec<_>>()}))
        })
        .collect();
    match status {
        Status::Created => view["secondsToStart"] = json!(((row.starts_ms - now).max(0)) / 1000),
        Status::Started => view["secondsToFinish"] = json!(((finishes_ms - now).max(0)) / 1000),
        Status::Finished => {
            let podium: Vec<Value> = standings
                .iter()
                .take(3)
                .map(|s| {
                    let sheet = record
                        .arena
                        .players
                        .get(&s.id)
                        .map(|p| p.sheet.as_slice())
                        .unwrap_or(&[]);
                    let wins = sheet
                        .iter()
                        .filter(|g| g.placing.result() == PlayerResult::Win)
                        .count();
                    json!({
                        "name": name_of(&s.id),
                        "rank": s.rank,
                        "rating": s.rating,
                        "score": s.score,
                        "nb": {"game": s.games, "berserk": 0, "win": wins},
                        "performance": s.performance,
                    })
                })
                .collect();
            view["podium"] = json!(podium);
        }
    }
    view["sanguo"] = json!(true);
    view["standing"] = json!({"page": 1, "players": players});
    view["duels"] = json!(duels);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Seat;
    use chuhe_rules::outcome::{Outcome, Side};

    fn finished(winners: &[usize], reason: EndReason, plies: usize) -> FinishedGame {
        FinishedGame {
            id: "t".to_owned(),
            options: serde_json::from_value(json!({"variant": "sanguo"})).unwrap(),
            seats: vec![None, None, None],
            outcome: Outcome {
                winners: winners
                    .iter()
                    .map(|&i| [Side::Shu, Side::Wu, Side::Wei][i])
                    .collect(),
                reason,
            },
            result: None,
            winner_seats: winners.iter().map(|&i| Seat::new(i)).collect(),
            plies,
            berserks: Vec::new(),
            created_ms: 0,
            ended_ms: 0,
        }
    }

    fn defeated(seat: usize, heir: usize, ply: usize) -> Event {
        Event::Defeated {
            seat: Seat::new(seat),
            reason: EndReason::GeneralCaptured,
            heir: Seat::new(heir),
            ply,
        }
    }

    #[test]
    fn the_defeats_give_the_order_out() {
        // Wu falls first (to Wei), then Shu: Wei wins alone.
        let game = finished(&[2], EndReason::GeneralCaptured, 91);
        let end = sanguo_end_of(&game, &[defeated(1, 2, 40), defeated(0, 2, 91)]);
        assert_eq!(
            end,
            SanguoEnd {
                winners: vec![Kingdom::Wei],
                defeated: vec![Kingdom::Wu, Kingdom::Shu],
                plies: 91,
            }
        );
        let points: Vec<u32> = Kingdom::ALL
            .iter()
            .map(|&k| {
                chuhe_tournament::sanguo::placing(&end, k)
                    .unwrap()
                    .base_points()
            })
            .collect();
        // Shu second out 1, Wu first out 0, Wei a sole win 4.
        assert_eq!(points, [1, 0, 4]);
    }

    #[test]
    fn a_resignation_is_a_shared_win_and_an_abort_scores_nothing() {
        let game = finished(&[0, 2], EndReason::Resignation, 12);
        let end = sanguo_end_of(&game, &[]);
        assert_eq!(end.winners, [Kingdom::Shu, Kingdom::Wei]);
        assert!(end.defeated.is_empty());
        let aborted = sanguo_end_of(&finished(&[], EndReason::Aborted, 1), &[]);
        assert_eq!(
            aborted,
            SanguoEnd {
                winners: Vec::new(),
                defeated: Vec::new(),
                plies: 0,
            }
        );
    }
}
