//! The sanguo arena: an arena for Three Kingdoms xiangqi, three players a table. Nobody else
//! hosts one, so its scoring is chuhe's own; it mirrors the two-player [`crate::arena`] (waves,
//! windows of the rank order, pause, withdraw, rejoin, standings).
//!
//! Scoring, from the game's outcome (the winners, and the order in which kingdoms were defeated):
//!
//! | outcome for the player | points | on fire |
//! | --- | --- | --- |
//! | sole win | 4 | 8 |
//! | shared win (two kingdoms win together) | 2 | 4 |
//! | lost, not the first defeated ("second out") | 1 | 2 |
//! | lost, the first defeated ("first out") | 0 | 0 |
//! | draw, still standing | 1 | 2 |
//! | draw, already defeated | 0 | 0 |
//!
//! Why these numbers: a sole win (4) is worth more than a shared win (2 + 2 = 4 for the pair), so
//! two players gain nothing by agreeing to share; fighting on after the first defeat is worth
//! something (1), as lichess's draw is worth something; a game's points (5 for a sole win, 4 for a
//! shared one, 3 for a draw) are largest when someone wins alone.
//!
//! - **Fire.** Two sole wins in a row put a player on fire, doubling every score of the table
//!   above; anything but a sole win ends it (lichess's streak, with the sole win as the "win").
//! - **Quick draws.** A draw of fewer than [`QUICK_DRAW_PLIES`] plies (10 moves each) scores 0.
//! - **No berserk**: three clocks make halving one a different bargain; not offered.
//!
//! Pairing: free players in rank order (score, rating, id), three at a time from a window of the
//! next 12 (`pool.rs`), avoiding the two players of one's last table where possible. Kingdoms:
//! of the six ways to seat the three, the one where the players' counts of games with their
//! kingdom sum least (each gets the kingdom they played least); ties go to the first way in the
//! order that gives the better ranked player the earlier kingdom (Shu, Wu, Wei).
//!
//! ```
//! use chuhe_tournament::sanguo::{SanguoArena, SanguoEnd};
//! use chuhe_tournament::{Kingdom, PlayerId};
//!
//! let mut arena = SanguoArena::new();
//! for (name, rating) in [("ana", 1600), ("bo", 1500), ("cai", 1400)] {
//!     arena.join(PlayerId::from(name), rating);
//! }
//! let tables = arena.pair_wave();
//! assert_eq!(tables[0].seats[0], PlayerId::from("ana")); // Shu
//! // Wu wins alone; Wei fell first, Shu second.
//! let end = SanguoEnd { winners: vec![Kingdom::Wu], defeated: vec![Kingdom::Wei, Kingdom::Shu], plies: 120 };
//! let scores = arena.record_result(tables[0].id, end).unwrap();
//! assert_eq!(scores.map(|s| s.points), [1, 4, 0]);
//! ```

use crate::pool::group_in_windows;
use crate::{EventError, GameId, Kingdom, PlayerId, PlayerResult, Presence, Rating};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A draw in fewer plies than this scores 0 (10 moves for each of the three kingdoms).
pub const QUICK_DRAW_PLIES: u32 = 30;

/// How a sanguo game ended, as the server reports it (from the rules' `Outcome` and
/// `DefeatEvent`s).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanguoEnd {
    /// The winning kingdoms: one (sole win), two (shared win) or none (draw).
    pub winners: Vec<Kingdom>,
    /// The kingdoms defeated during the game, first defeated first.
    pub defeated: Vec<Kingdom>,
    /// The length of the game in plies.
    pub plies: u32,
}

/// What a game was for one player, before fire doubles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placing {
    /// Won alone.
    SoleWin,
    /// Won with another kingdom.
    SharedWin,
    /// Lost, and was not the first kingdom defeated.
    SecondOut,
    /// Lost, the first kingdom defeated.
    FirstOut,
    /// A draw, still standing at the end.
    Draw,
    /// A draw after being defeated, or a draw too quick to score.
    NullDraw,
}

impl Placing {
    /// Points before fire: 4, 2, 1, 0, 1, 0 (the module's table).
    pub const fn base_points(self) -> u32 {
        match self {
            Placing::SoleWin => 4,
            Placing::SharedWin => 2,
            Placing::SecondOut | Placing::Draw => 1,
            Placing::FirstOut | Placing::NullDraw => 0,
        }
    }

    /// The game's result for the player: a win (sole or shared), a draw or a loss.
    pub const fn result(self) -> PlayerResult {
        match self {
            Placing::SoleWin | Placing::SharedWin => PlayerResult::Win,
            Placing::Draw | Placing::NullDraw => PlayerResult::Draw,
            Placing::SecondOut | Placing::FirstOut => PlayerResult::Loss,
        }
    }
}

/// The placing of `kingdom` in a game that ended as `end`.
///
/// # Errors
///
/// [`EventError::BadResult`] when `end` names a kingdom twice among the winners or the
/// defeated, names three winners, or names a winner as defeated.
pub fn placing(end: &SanguoEnd, kingdom: Kingdom) -> Result<Placing, EventError> {
    check_end(end)?;
    let defeated_at = end.defeated.iter().position(|&k| k == kingdom);
    Ok(match end.winners.len() {
        0 if end.plies < QUICK_DRAW_PLIES || defeated_at.is_some() => Placing::NullDraw,
        0 => Placing::Draw,
        1 if end.winners[0] == kingdom => Placing::SoleWin,
        _ if end.winners.contains(&kingdom) => Placing::SharedWin,
        // A loser is first out when they are the first of the losers to fall.
        _ if defeated_at == Some(0) => Placing::FirstOut,
        _ => Placing::SecondOut,
    })
}

fn check_end(end: &SanguoEnd) -> Result<(), EventError> {
    let twice = |list: &[Kingdom]| list.iter().enumerate().any(|(i, k)| list[..i].contains(k));
    if end.winners.len() > 2 {
        return Err(EventError::BadResult("at most two kingdoms win"));
    }
    if twice(&end.winners) || twice(&end.defeated) {
        return Err(EventError::BadResult("a kingdom is named twice"));
    }
    if end.winners.iter().any(|w| end.defeated.contains(w)) {
        return Err(EventError::BadResult("a winner was defeated"));
    }
    Ok(())
}

/// One scored game on a sanguo sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanguoScore {
    /// What the game was for the player.
    pub placing: Placing,
    /// The kingdom they played.
    pub kingdom: Kingdom,
    /// Points earned (doubled on fire).
    pub points: u32,
    /// Whether they were on fire.
    pub on_fire: bool,
    /// The two other players.
    pub opponents: [PlayerId; 2],
    /// Their ratings, in the same order, for the performance rating.
    pub opponent_ratings: [Rating; 2],
}

/// Whether the last two games on the sheet (oldest first) were sole wins.
pub fn is_on_fire(sheet: &[SanguoScore]) -> bool {
    sheet.len() >= 2
        && sheet[sheet.len() - 2..]
            .iter()
            .all(|s| s.placing == Placing::SoleWin)
}

/// The points of a placing after the sheet `earlier` (oldest first): the base points, doubled on
/// fire.
pub fn points(earlier: &[SanguoScore], placing: Placing) -> (u32, bool) {
    let fire = is_on_fire(earlier);
    (placing.base_points() * if fire { 2 } else { 1 }, fire)
}

/// The sheet: each game's points, oldest first, separated by spaces (`"4 4 8 1 0"`).
pub fn sheet_text(sheet: &[SanguoScore]) -> String {
    let parts: Vec<String> = sheet.iter().map(|s| s.points.to_string()).collect();
    parts.join(" ")
}

/// The performance rating: the mean over games of the two opponents' mean rating, plus 500 for
/// a win (sole or shared) and minus 500 for a loss, as in the two-player arena, rounded down;
/// `None` before the first game.
pub fn performance(sheet: &[SanguoScore]) -> Option<Rating> {
    if sheet.is_empty() {
        return None;
    }
    let sum: i64 = sheet
        .iter()
        .map(|s| {
            let opp = (i64::from(s.opponent_ratings[0]) + i64::from(s.opponent_ratings[1])) / 2;
            let delta = match s.placing.result() {
                PlayerResult::Win => 500,
                PlayerResult::Draw => 0,
                PlayerResult::Loss => -500,
            };
            opp + delta
        })
        .sum();
    Some(sum.div_euclid(sheet.len() as i64) as Rating)
}

/// A player of a sanguo arena.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanguoPlayer {
    /// Who.
    pub id: PlayerId,
    /// Their rating when they first joined.
    pub rating: Rating,
    /// Whether they are paired in the next waves.
    pub presence: Presence,
    /// Their scored games, oldest first.
    pub sheet: Vec<SanguoScore>,
    /// The sum of the sheet's points.
    pub score: u32,
    /// Games played (and in play) with each kingdom, indexed Shu, Wu, Wei.
    pub kingdom_games: [u32; 3],
    /// The two players of their latest table.
    pub last_table: Vec<PlayerId>,
    /// The game they are playing, if any.
    pub playing: Option<GameId>,
}

/// A table the sanguo arena handed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanguoGame {
    /// Its number.
    pub id: GameId,
    /// The players, indexed by kingdom: Shu, Wu, Wei.
    pub seats: [PlayerId; 3],
    /// How it ended, once it has.
    pub end: Option<SanguoEnd>,
}

/// One line of the sanguo standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanguoStanding {
    /// 1 for the first; every line has its own rank.
    pub rank: u32,
    /// Who.
    pub id: PlayerId,
    /// Their rating at joining.
    pub rating: Rating,
    /// Their points.
    pub score: u32,
    /// Their sheet ([`sheet_text`]).
    pub sheet: String,
    /// Games scored.
    pub games: u32,
    /// Whether their next game would be scored on fire.
    pub on_fire: bool,
    /// Their performance rating ([`performance`]).
    pub performance: Option<Rating>,
    /// Whether they are still in the pairing.
    pub presence: Presence,
}

/// A sanguo arena's whole state: serialise it to store it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanguoArena {
    /// Every player who ever joined, by id.
    pub players: BTreeMap<PlayerId, SanguoPlayer>,
    /// Every table handed out, by id.
    pub games: BTreeMap<GameId, SanguoGame>,
    /// The last game id handed out (0: none yet).
    pub last_game: GameId,
}

impl Default for SanguoArena {
    fn default() -> SanguoArena {
        SanguoArena::new()
    }
}

/// The six ways to seat three players, as the kingdom index of players 0, 1, 2 (in rank order).
const SEATINGS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

impl SanguoArena {
    /// A sanguo arena with nobody in it.
    pub fn new() -> SanguoArena {
        SanguoArena {
            players: BTreeMap::new(),
            games: BTreeMap::new(),
            last_game: GameId(0),
        }
    }

    /// A player joins, or joins again (keeping score and first rating).
    pub fn join(&mut self, id: PlayerId, rating: Rating) {
        self.players
            .entry(id.clone())
            .and_modify(|p| p.presence = Presence::Active)
            .or_insert(SanguoPlayer {
                id,
                rating,
                presence: Presence::Active,
                sheet: Vec::new(),
                score: 0,
                kingdom_games: [0; 3],
                last_table: Vec::new(),
                playing: None,
            });
    }

    /// A player leaves: no longer paired, score kept.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownPlayer`] when they never joined.
    pub fn withdraw(&mut self, id: &PlayerId) -> Result<(), EventError> {
        self.set_presence(id, Presence::Withdrawn)
    }

    /// A player pauses until [`SanguoArena::resume`].
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownPlayer`] when they never joined.
    pub fn pause(&mut self, id: &PlayerId) -> Result<(), EventError> {
        self.set_presence(id, Presence::Paused)
    }

    /// A paused or withdrawn player is paired again.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownPlayer`] when they never joined.
    pub fn resume(&mut self, id: &PlayerId) -> Result<(), EventError> {
        self.set_presence(id, Presence::Active)
    }

    fn set_presence(&mut self, id: &PlayerId, presence: Presence) -> Result<(), EventError> {
        let p = self
            .players
            .get_mut(id)
            .ok_or_else(|| EventError::UnknownPlayer(id.clone()))?;
        p.presence = presence;
        Ok(())
    }

    /// Seats the free players three a table in one wave and returns the new tables. One or two
    /// players left over wait for the next wave. Cost O(n log n).
    pub fn pair_wave(&mut self) -> Vec<SanguoGame> {
        let mut free: Vec<&SanguoPlayer> = self
            .players
            .values()
            .filter(|p| p.presence == Presence::Active && p.playing.is_none())
            .collect();
        free.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then(b.rating.cmp(&a.rating))
                .then(a.id.cmp(&b.id))
        });
        let groups = group_in_windows(free.len(), 3, |a, b| {
            free[a].last_table.contains(&free[b].id) || free[b].last_table.contains(&free[a].id)
        });
        let tables: Vec<[PlayerId; 3]> = groups
            .iter()
            .map(|g| {
                let trio = [free[g[0]], free[g[1]], free[g[2]]];
                let seating = SEATINGS
                    .iter()
                    .min_by_key(|s| (0..3).map(|i| trio[i].kingdom_games[s[i]]).sum::<u32>())
                    .expect("six seatings");
                let mut seats = [trio[0].id.clone(), trio[1].id.clone(), trio[2].id.clone()];
                for i in 0..3 {
                    seats[seating[i]] = trio[i].id.clone();
                }
                seats
            })
            .collect();
        let mut made = Vec::with_capacity(tables.len());
        for seats in tables {
            self.last_game.0 += 1;
            let id = self.last_game;
            for k in 0..3 {
                let p = self
                    .players
                    .get_mut(&seats[k])
                    .expect("a free player is a player");
                p.playing = Some(id);
                p.kingdom_games[k] += 1;
                p.last_table = (0..3)
                    .filter(|&o| o != k)
                    .map(|o| seats[o].clone())
                    .collect();
            }
            let game = SanguoGame {
                id,
                seats,
                end: None,
            };
            self.games.insert(id, game.clone());
            made.push(game);
        }
        made
    }

    /// Records how a table ended, scores it for its three players (Shu, Wu, Wei order) and frees
    /// them.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownGame`], [`EventError::GameFinished`], or [`EventError::BadResult`]
    /// when `end` does not fit ([`placing`]).
    pub fn record_result(
        &mut self,
        game: GameId,
        end: SanguoEnd,
    ) -> Result<[SanguoScore; 3], EventError> {
        check_end(&end)?;
        let g = self
            .games
            .get_mut(&game)
            .ok_or(EventError::UnknownGame(game))?;
        if g.end.is_some() {
            return Err(EventError::GameFinished(game));
        }
        g.end = Some(end.clone());
        let seats = g.seats.clone();
        let ratings = [0, 1, 2].map(|k| self.players[&seats[k]].rating);
        let mut scores = Vec::with_capacity(3);
        for (k, kingdom) in Kingdom::ALL.into_iter().enumerate() {
            let others = [(k + 1) % 3, (k + 2) % 3];
            let place = placing(&end, kingdom)?;
            let p = self
                .players
                .get_mut(&seats[k])
                .expect("a table's player is a player");
            let (pts, on_fire) = points(&p.sheet, place);
            let score = SanguoScore {
                placing: place,
                kingdom,
                points: pts,
                on_fire,
                opponents: others.map(|o| seats[o].clone()),
                opponent_ratings: others.map(|o| ratings[o]),
            };
            p.score += pts;
            p.sheet.push(score.clone());
            if p.playing == Some(game) {
                p.playing = None;
            }
            scores.push(score);
        }
        Ok(scores.try_into().expect("three scores"))
    }

    /// The standings: by score, then performance, then rating, then id; ranks 1, 2, 3...
    pub fn standings(&self) -> Vec<SanguoStanding> {
        let mut lines: Vec<SanguoStanding> = self
            .players
            .values()
            .map(|p| SanguoStanding {
                rank: 0,
                id: p.id.clone(),
                rating: p.rating,
                score: p.score,
                sheet: sheet_text(&p.sheet),
                games: p.sheet.len() as u32,
                on_fire: is_on_fire(&p.sheet),
                performance: performance(&p.sheet),
                presence: p.presence,
            })
            .collect();
        lines.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then(b.performance.cmp(&a.performance))
                .then(b.rating.cmp(&a.rating))
                .then(a.id.cmp(&b.id))
        });
        for (i, line) in lines.iter_mut().enumerate() {
            line.rank = i as u32 + 1;
        }
        lines
    }
}

#[cfg(test)]
mod tests;
