//! The arena for two-player games (xiangqi, banqi), as lichess runs it
//! (<https://lichess.org/tournament/help>; lila's `modules/tournament`, read for the idea).
//!
//! Players join and are paired in waves ([`Arena::pair_wave`], called by the server on a clock
//! tick) as soon as they are free, by their rank in the standings. Each finished game is scored
//! for both players ([`score_game`]):
//!
//! | result | points | on fire |
//! | --- | --- | --- |
//! | win | 2 | 4 |
//! | draw | 1 | 2 |
//! | loss | 0 | 0 |
//!
//! - **Fire (streak).** A player is on fire when their last two games were both wins; while on
//!   fire a win counts 4 and a draw 2. Anything but a win ends the fire, so a draw on fire
//!   scores 2 and ends it (lila's `Sheet.isOnFire`: the last two results are wins). Streaks can be
//!   switched off per arena ([`ArenaSettings::streaks`]).
//! - **Berserk.** A player who halved their clock gets +1 for a win, only when the game lasted at
//!   least [`BERSERK_MIN_PLIES`] plies (lichess: "at least 7 moves"; lila counts the game's
//!   plies, 14). A berserk loss or draw scores as usual. Ignored unless the arena is
//!   [`ArenaSettings::berserkable`].
//! - **Quick draws.** A draw in fewer than [`QUICK_DRAW_PLIES`] plies (10 moves each) scores 0
//!   for both and ends a fire (lichess: "draws in the first 10 moves give no points").
//! - **Draw streaks.** After a draw, further draws score 0 until the player wins again (losses
//!   in between do not reset it), unless the game lasted at least [`LONG_GAME_PLIES`] plies
//!   (lichess: "only the first draw results in a point, unless the game lasted more than 30
//!   moves"). A draw on fire scores 2 regardless.
//!
//! Pairing (lichess: "players are paired with opponents close to their ranking"): the free
//! players are ordered by score, then rating, then id, and grouped in windows of that order
//! (`pool.rs`: each pair is found among the next 12 free players), so a wave costs O(n). The
//! previous opponent is avoided when another free player is in the window. Colours: the player
//! who played Red less often (Red games minus Black games) gets Red; if equal, the one who had
//! Black in their last game; if still equal, the better ranked one.

use crate::pool::group_in_windows;
use crate::{EventError, GameId, PlayerId, PlayerResult, Presence, Rating, Side};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Fewest plies for a berserk win to earn its extra point (lichess: 7 moves, i.e. 14 plies).
pub const BERSERK_MIN_PLIES: u32 = 14;
/// A draw in fewer plies than this scores 0 (lichess: the first 10 moves, i.e. 20 plies).
pub const QUICK_DRAW_PLIES: u32 = 20;
/// A draw of at least this many plies scores even during a draw streak (lichess: 30 moves).
pub const LONG_GAME_PLIES: u32 = 60;
/// What a win or a loss adds to the opponent's rating in the performance rating (lichess's
/// arena performance: opponent's rating ± 500, averaged over the games).
pub const PERFORMANCE_SPREAD: Rating = 500;

/// An arena's rules, fixed at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaSettings {
    /// Whether players may go berserk (the +1 for a berserk win).
    pub berserkable: bool,
    /// Whether two wins in a row put a player on fire (doubled points).
    pub streaks: bool,
}

impl Default for ArenaSettings {
    /// Berserk allowed, streaks on: lichess's defaults.
    fn default() -> ArenaSettings {
        ArenaSettings {
            berserkable: true,
            streaks: true,
        }
    }
}

/// One scored game on a player's sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaScore {
    /// How the game ended for this player.
    pub result: PlayerResult,
    /// Tournament points it earned, berserk point included.
    pub points: u32,
    /// Whether the player was on fire when it was scored (points doubled).
    pub on_fire: bool,
    /// Whether the player went berserk and earned the extra point.
    pub berserk_point: bool,
    /// The opponent.
    pub opponent: PlayerId,
    /// The opponent's rating (at joining), for the performance rating.
    pub opponent_rating: Rating,
}

/// Scores one game for one player, given the player's earlier scores (oldest first): the rules
/// of this module's table. `plies` is the length of the game in half-moves; `berserk` whether
/// this player halved their clock (ignored unless `settings.berserkable`).
///
/// ```
/// use chuhe_tournament::arena::{score_game, ArenaSettings};
/// use chuhe_tournament::{PlayerId, PlayerResult::*};
///
/// let s = ArenaSettings::default();
/// let mut sheet = Vec::new();
/// for result in [Win, Win, Win, Draw, Win] {
///     let score = score_game(&sheet, result, 40, false, s, PlayerId::from("x"), 1500);
///     sheet.push(score);
/// }
/// let points: Vec<u32> = sheet.iter().map(|s| s.points).collect();
/// assert_eq!(points, [2, 2, 4, 2, 2]);
/// ```
pub fn score_game(
    earlier: &[ArenaScore],
    result: PlayerResult,
    plies: u32,
    berserk: bool,
    settings: ArenaSettings,
    opponent: PlayerId,
    opponent_rating: Rating,
) -> ArenaScore {
    let on_fire = settings.streaks && is_on_fire(earlier);
    let berserk_point = settings.berserkable
        && berserk
        && result == PlayerResult::Win
        && plies >= BERSERK_MIN_PLIES;
    let base = match result {
        PlayerResult::Win if on_fire => 4,
        PlayerResult::Win => 2,
        PlayerResult::Loss => 0,
        PlayerResult::Draw if plies < QUICK_DRAW_PLIES => 0,
        PlayerResult::Draw if on_fire => 2,
        PlayerResult::Draw if plies < LONG_GAME_PLIES && in_draw_streak(earlier) => 0,
        PlayerResult::Draw => 1,
    };
    ArenaScore {
        result,
        points: base + u32::from(berserk_point),
        on_fire,
        berserk_point,
        opponent,
        opponent_rating,
    }
}

/// Whether the last two games on the sheet (oldest first) were wins.
pub fn is_on_fire(sheet: &[ArenaScore]) -> bool {
    sheet.len() >= 2
        && sheet[sheet.len() - 2..]
            .iter()
            .all(|s| s.result == PlayerResult::Win)
}

/// Whether the player's last result that was not a loss is a draw (so another short draw scores
/// 0).
fn in_draw_streak(sheet: &[ArenaScore]) -> bool {
    sheet
        .iter()
        .rev()
        .find(|s| s.result != PlayerResult::Loss)
        .is_some_and(|s| s.result == PlayerResult::Draw)
}

/// The sheet as lichess shows it: each game's points, oldest first, separated by spaces
/// (`"2 2 4 4 0 1"`).
pub fn sheet_text(sheet: &[ArenaScore]) -> String {
    let parts: Vec<String> = sheet.iter().map(|s| s.points.to_string()).collect();
    parts.join(" ")
}

/// The performance rating of a sheet: the mean over its games of the opponent's rating, plus
/// [`PERFORMANCE_SPREAD`] for a win and minus it for a loss (lichess's arena performance),
/// rounded down; `None` before the first game.
pub fn performance(sheet: &[ArenaScore]) -> Option<Rating> {
    if sheet.is_empty() {
        return None;
    }
    let sum: i64 = sheet
        .iter()
        .map(|s| {
            let delta = match s.result {
                PlayerResult::Win => PERFORMANCE_SPREAD,
                PlayerResult::Draw => 0,
                PlayerResult::Loss => -PERFORMANCE_SPREAD,
            };
            i64::from(s.opponent_rating) + i64::from(delta)
        })
        .sum();
    Some(sum.div_euclid(sheet.len() as i64) as Rating)
}

/// A player of an arena.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArenaPlayer {
    /// Who.
    pub id: PlayerId,
    /// Their rating when they (first) joined.
    pub rating: Rating,
    /// Whether they are paired in the next waves.
    pub presence: Presence,
    /// Their scored games, oldest first.
    pub sheet: Vec<ArenaScore>,
    /// The sum of the sheet's points.
    pub score: u32,
    /// Games played (and in play) as Red.
    pub red_games: u32,
    /// Games played (and in play) as Black.
    pub black_games: u32,
    /// The colour of their latest game.
    pub last_colour: Option<Side>,
    /// Their latest opponent.
    pub last_opponent: Option<PlayerId>,
    /// The game they are playing, if any.
    pub playing: Option<GameId>,
}

/// A game the arena handed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaGame {
    /// Its number.
    pub id: GameId,
    /// The player with Red.
    pub red: PlayerId,
    /// The player with Black.
    pub black: PlayerId,
    /// How it ended, once it has.
    pub end: Option<GameEnd>,
}

/// How a game of the arena ended, as the server reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEnd {
    /// `Some(Side::Red)` or `Some(Side::Black)` for a win, `None` for a draw.
    pub winner: Option<Side>,
    /// The length of the game in plies (half-moves).
    pub plies: u32,
    /// Whether Red went berserk.
    pub red_berserk: bool,
    /// Whether Black went berserk.
    pub black_berserk: bool,
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaStanding {
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

/// An arena's whole state: serialise it to store it, deserialise it to go on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arena {
    /// The rules.
    pub settings: ArenaSettings,
    /// Every player who ever joined, by id.
    pub players: BTreeMap<PlayerId, ArenaPlayer>,
    /// Every game handed out, by id.
    pub games: BTreeMap<GameId, ArenaGame>,
    /// The last game id handed out (0: none yet).
    pub last_game: GameId,
}

impl Arena {
    /// An arena with nobody in it.
    pub fn new(settings: ArenaSettings) -> Arena {
        Arena {
            settings,
            players: BTreeMap::new(),
            games: BTreeMap::new(),
            last_game: GameId(0),
        }
    }

    /// A player joins, or joins again after withdrawing or pausing (keeping their score and
    /// their first rating). Joining twice is harmless.
    pub fn join(&mut self, id: PlayerId, rating: Rating) {
        self.players
            .entry(id.clone())
            .and_modify(|p| p.presence = Presence::Active)
            .or_insert(ArenaPlayer {
                id,
                rating,
                presence: Presence::Active,
                sheet: Vec::new(),
                score: 0,
                red_games: 0,
                black_games: 0,
                last_colour: None,
                last_opponent: None,
                playing: None,
            });
    }

    /// A player leaves: no longer paired, score kept. A game in play goes on and is scored.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownPlayer`] when they never joined.
    pub fn withdraw(&mut self, id: &PlayerId) -> Result<(), EventError> {
        self.set_presence(id, Presence::Withdrawn)
    }

    /// A player pauses: not paired until [`Arena::resume`] (or [`Arena::join`]).
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

    /// Pairs the free players (active, not in a game) in one wave and returns the new games, in
    /// rank order of their better player. Cost O(n log n) for n free players (a sort, then
    /// windows of the rank order; see the module's documentation). An odd player out, or two
    /// players who can only meet again with nobody else free, wait.
    pub fn pair_wave(&mut self) -> Vec<ArenaGame> {
        let mut free: Vec<&ArenaPlayer> = self
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
        let groups = group_in_windows(free.len(), 2, |a, b| {
            free[a].last_opponent.as_ref() == Some(&free[b].id)
                || free[b].last_opponent.as_ref() == Some(&free[a].id)
        });
        let pairs: Vec<(PlayerId, PlayerId)> = groups
            .iter()
            .map(|g| {
                let (a, b) = (free[g[0]], free[g[1]]);
                if gets_red(a, b) {
                    (a.id.clone(), b.id.clone())
                } else {
                    (b.id.clone(), a.id.clone())
                }
            })
            .collect();
        let mut made = Vec::with_capacity(pairs.len());
        for (red, black) in pairs {
            self.last_game.0 += 1;
            let id = self.last_game;
            for (who, other, side) in [(&red, &black, Side::Red), (&black, &red, Side::Black)] {
                let p = self
                    .players
                    .get_mut(who)
                    .expect("a free player is a player");
                p.playing = Some(id);
                p.last_opponent = Some(other.clone());
                p.last_colour = Some(side);
                if side == Side::Red {
                    p.red_games += 1;
                } else {
                    p.black_games += 1;
                }
            }
            let game = ArenaGame {
                id,
                red,
                black,
                end: None,
            };
            self.games.insert(id, game.clone());
            made.push(game);
        }
        made
    }

    /// Records how a game ended, scores it for both players and frees them for the next wave.
    /// Returns the two scores, Red's first.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownGame`] for a game never handed out, [`EventError::GameFinished`] when
    /// its result was already recorded, [`EventError::BadResult`] when the winner is not Red,
    /// Black or nobody.
    pub fn record_result(
        &mut self,
        game: GameId,
        end: GameEnd,
    ) -> Result<[ArenaScore; 2], EventError> {
        if matches!(end.winner, Some(w) if w != Side::Red && w != Side::Black) {
            return Err(EventError::BadResult(
                "an arena game is won by red or black",
            ));
        }
        let g = self
            .games
            .get_mut(&game)
            .ok_or(EventError::UnknownGame(game))?;
        if g.end.is_some() {
            return Err(EventError::GameFinished(game));
        }
        g.end = Some(end);
        let (red, black) = (g.red.clone(), g.black.clone());
        let ratings = [&red, &black].map(|id| self.players[id].rating);
        let result_of = |side: Side| match end.winner {
            None => PlayerResult::Draw,
            Some(w) if w == side => PlayerResult::Win,
            Some(_) => PlayerResult::Loss,
        };
        let settings = self.settings;
        let mut scores = Vec::with_capacity(2);
        for (who, other, other_rating, side, berserk) in [
            (&red, &black, ratings[1], Side::Red, end.red_berserk),
            (&black, &red, ratings[0], Side::Black, end.black_berserk),
        ] {
            let p = self
                .players
                .get_mut(who)
                .expect("a game's player is a player");
            let score = score_game(
                &p.sheet,
                result_of(side),
                end.plies,
                berserk,
                settings,
                other.clone(),
                other_rating,
            );
            p.score += score.points;
            p.sheet.push(score.clone());
            if p.playing == Some(game) {
                p.playing = None;
            }
            scores.push(score);
        }
        let black_score = scores.pop().expect("two scores");
        let red_score = scores.pop().expect("two scores");
        Ok([red_score, black_score])
    }

    /// The standings: by score, then performance rating, then rating, then id (lichess breaks
    /// ties in points by performance); ranks 1, 2, 3... one per line.
    pub fn standings(&self) -> Vec<ArenaStanding> {
        let mut lines: Vec<ArenaStanding> = self
            .players
            .values()
            .map(|p| ArenaStanding {
                rank: 0,
                id: p.id.clone(),
                rating: p.rating,
                score: p.score,
                sheet: sheet_text(&p.sheet),
                games: p.sheet.len() as u32,
                on_fire: self.settings.streaks && is_on_fire(&p.sheet),
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

/// Whether `a` (the better ranked) gets Red against `b`: fewer Red games than Black ones
/// relative to `b`, then Black last time, then rank.
fn gets_red(a: &ArenaPlayer, b: &ArenaPlayer) -> bool {
    let balance = |p: &ArenaPlayer| i64::from(p.red_games) - i64::from(p.black_games);
    match balance(a).cmp(&balance(b)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => {
            let had_black = |p: &ArenaPlayer| p.last_colour == Some(Side::Black);
            had_black(a) || !had_black(b)
        }
    }
}

#[cfg(test)]
mod tests;
