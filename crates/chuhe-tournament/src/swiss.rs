//! Swiss events, as lichess runs them (<https://lichess.org/swiss>, its FAQ; lila's
//! `modules/swiss`, read for the idea) with pairings by a documented subset of FIDE's Dutch
//! system (FIDE Handbook C.04.3; `docs/swiss.md`).
//!
//! - A fixed number of rounds; all games of a round at once: [`Swiss::pair_round`] once every
//!   game of the previous round has a result.
//! - Points: win 1, draw ½, loss 0 (kept in half-points, [`SwissPlayer::half_points`]).
//! - **Bye**: with an odd number of players, the lowest ranked player among those with the
//!   fewest byes gets a bye worth 1 point (lichess: "a bye worth one point"), provided the others
//!   can all be paired.
//! - **Late join**: allowed until more than half the rounds have started (lichess). The late
//!   player gets ½ point for round 1 if they missed it and 0 for any other missed round (lila's
//!   `SwissSheet`: `Late` counts a half point, `Absent` nothing).
//! - **Withdrawal**: a withdrawn player is not paired again and scores 0 for the rounds they
//!   miss; their games stay on everyone's sheets. They may join again (as a late join).
//! - **No pairing possible** (every pairing left would be a rematch): the round is refused with
//!   [`EventError::Round`] and the event is over (lichess: "when all possible pairings have been
//!   played, the tournament will be ended").
//! - **Tie-breaks**: [`SwissStanding::buchholz`] (the sum of the present scores of the opponents
//!   met over the board) and [`SwissStanding::sonneborn_berger`] (the scores of the opponents
//!   beaten plus half the scores of those drawn). Byes and absences add nothing to either (FIDE's
//!   virtual opponent is not used). Standings: points, then Sonneborn-Berger (lichess's
//!   tie-break), then Buchholz, then rating, then id.
//!
//! ```
//! use chuhe_tournament::swiss::{Swiss, SwissResult, SwissSettings};
//! use chuhe_tournament::PlayerId;
//!
//! let mut swiss = Swiss::new(SwissSettings { rounds: 3 });
//! for (name, rating) in [("ana", 1900), ("bo", 1800), ("cai", 1700)] {
//!     swiss.join(PlayerId::from(name), rating).unwrap();
//! }
//! let round = swiss.pair_round().unwrap();
//! assert_eq!(round.bye, Some(PlayerId::from("cai"))); // the lowest ranked: 1 point
//! assert_eq!((round.games[0].red.0.as_str(), round.games[0].black.0.as_str()), ("ana", "bo"));
//! swiss.record_result(round.games[0].id, SwissResult::Draw).unwrap();
//! let standings = swiss.standings();
//! assert_eq!((standings[0].id.0.as_str(), standings[0].points), ("cai", 1.0));
//! ```

mod dutch;
mod matching;

use crate::{EventError, GameId, PlayerId, Rating, Side};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// A Swiss event's rules, fixed at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissSettings {
    /// How many rounds.
    pub rounds: u32,
}

/// How a Swiss game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwissResult {
    /// Red won.
    RedWon,
    /// Black won.
    BlackWon,
    /// A draw.
    Draw,
}

/// One round on a player's sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RoundEntry {
    /// A game.
    Game {
        /// The game.
        game: GameId,
        /// The opponent.
        opponent: PlayerId,
        /// The player's colour.
        colour: Side,
        /// Half-points earned (2 win, 1 draw, 0 loss); `None` while in play.
        half_points: Option<u32>,
    },
    /// The pairing's bye: 1 point.
    Bye,
    /// Joined after round 1 had started: ½ point for round 1.
    Late,
    /// Not paired (joined later, or withdrawn): 0.
    Absent,
}

impl RoundEntry {
    /// Half-points earned by this round so far.
    pub fn half_points(&self) -> u32 {
        match self {
            RoundEntry::Game { half_points, .. } => half_points.unwrap_or(0),
            RoundEntry::Bye => 2,
            RoundEntry::Late => 1,
            RoundEntry::Absent => 0,
        }
    }
}

/// A player of a Swiss event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissPlayer {
    /// Who.
    pub id: PlayerId,
    /// Their rating when they first joined; orders players with equal points.
    pub rating: Rating,
    /// Whether they left.
    pub withdrawn: bool,
    /// One entry per round paired so far, round 1 first.
    pub sheet: Vec<RoundEntry>,
}

impl SwissPlayer {
    /// Points in half-points (a win 2, a draw 1).
    pub fn half_points(&self) -> u32 {
        self.sheet.iter().map(RoundEntry::half_points).sum()
    }

    fn colours(&self) -> Vec<Side> {
        self.sheet
            .iter()
            .filter_map(|e| match e {
                RoundEntry::Game { colour, .. } => Some(*colour),
                _ => None,
            })
            .collect()
    }

    fn byes(&self) -> u32 {
        self.sheet.iter().filter(|e| **e == RoundEntry::Bye).count() as u32
    }
}

/// A game of a Swiss round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissGame {
    /// Its number.
    pub id: GameId,
    /// The round, from 1.
    pub round: u32,
    /// The board in the round, from 1.
    pub board: u32,
    /// The player with Red.
    pub red: PlayerId,
    /// The player with Black.
    pub black: PlayerId,
    /// How it ended, once it has.
    pub result: Option<SwissResult>,
}

/// A round just paired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissRound {
    /// Its number, from 1.
    pub round: u32,
    /// Its games, board 1 first.
    pub games: Vec<SwissGame>,
    /// Who has the bye, if anyone.
    pub bye: Option<PlayerId>,
    /// Whether the colour rule (no two players with the same absolute colour preference) had to
    /// be dropped to pair everyone without a rematch.
    pub colours_relaxed: bool,
}

/// One line of the Swiss standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwissStanding {
    /// 1 for the first; every line has its own rank.
    pub rank: u32,
    /// Who.
    pub id: PlayerId,
    /// Their rating at joining.
    pub rating: Rating,
    /// Points (1 a win, ½ a draw or a late round 1, 1 a bye).
    pub points: f64,
    /// Sum of the points of the opponents met over the board.
    pub buchholz: f64,
    /// Points of the opponents beaten plus half the points of those drawn.
    pub sonneborn_berger: f64,
    /// Whether they left.
    pub withdrawn: bool,
}

/// A Swiss event's whole state: serialise it to store it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Swiss {
    /// The rules.
    pub settings: SwissSettings,
    /// Every player who ever joined, by id.
    pub players: BTreeMap<PlayerId, SwissPlayer>,
    /// Every game, by id.
    pub games: BTreeMap<GameId, SwissGame>,
    /// Rounds paired so far.
    pub rounds_paired: u32,
    /// Set when a round could not be paired: the event ended early.
    pub ended_early: bool,
}

impl Swiss {
    /// An event with nobody in it.
    pub fn new(settings: SwissSettings) -> Swiss {
        Swiss {
            settings,
            players: BTreeMap::new(),
            games: BTreeMap::new(),
            rounds_paired: 0,
            ended_early: false,
        }
    }

    /// Whether every round was played (or no pairing was possible) and every game has a result.
    pub fn is_finished(&self) -> bool {
        (self.ended_early || self.rounds_paired >= self.settings.rounds) && self.round_complete()
    }

    fn round_complete(&self) -> bool {
        self.games.values().all(|g| g.result.is_some())
    }

    /// A player joins (or joins again after withdrawing). Rounds already paired that they
    /// missed count ½ for round 1 and 0 for the others.
    ///
    /// # Errors
    ///
    /// [`EventError::Round`] when more than half the rounds have started (lichess's limit for
    /// late joins) or the event is over.
    pub fn join(&mut self, id: PlayerId, rating: Rating) -> Result<(), EventError> {
        if self.is_finished() || self.ended_early {
            return Err(EventError::Round("the event is over"));
        }
        if self.rounds_paired * 2 > self.settings.rounds {
            return Err(EventError::Round("more than half the rounds have started"));
        }
        let rounds = self.rounds_paired as usize;
        let p = self.players.entry(id.clone()).or_insert(SwissPlayer {
            id,
            rating,
            withdrawn: false,
            sheet: Vec::new(),
        });
        p.withdrawn = false;
        while p.sheet.len() < rounds {
            let entry = if p.sheet.is_empty() {
                RoundEntry::Late
            } else {
                RoundEntry::Absent
            };
            p.sheet.push(entry);
        }
        Ok(())
    }

    /// A player leaves: not paired in later rounds. A game in play stays and is scored when
    /// its result comes.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownPlayer`] when they never joined.
    pub fn withdraw(&mut self, id: &PlayerId) -> Result<(), EventError> {
        let p = self
            .players
            .get_mut(id)
            .ok_or_else(|| EventError::UnknownPlayer(id.clone()))?;
        p.withdrawn = true;
        Ok(())
    }

    /// Records a game's result.
    ///
    /// # Errors
    ///
    /// [`EventError::UnknownGame`], or [`EventError::GameFinished`] when it already has one.
    pub fn record_result(&mut self, game: GameId, result: SwissResult) -> Result<(), EventError> {
        let g = self
            .games
            .get_mut(&game)
            .ok_or(EventError::UnknownGame(game))?;
        if g.result.is_some() {
            return Err(EventError::GameFinished(game));
        }
        g.result = Some(result);
        let round = g.round as usize;
        let (red_half, black_half) = match result {
            SwissResult::RedWon => (2, 0),
            SwissResult::BlackWon => (0, 2),
            SwissResult::Draw => (1, 1),
        };
        for (who, half) in [(g.red.clone(), red_half), (g.black.clone(), black_half)] {
            let p = self
                .players
                .get_mut(&who)
                .expect("a game's player is a player");
            if let Some(RoundEntry::Game { half_points, .. }) = p.sheet.get_mut(round - 1) {
                *half_points = Some(half);
            }
        }
        Ok(())
    }

    /// The players in rank order for pairing: points, then rating, then id.
    fn ranked(&self) -> Vec<&SwissPlayer> {
        let mut list: Vec<&SwissPlayer> = self.players.values().collect();
        list.sort_by(|a, b| {
            b.half_points()
                .cmp(&a.half_points())
                .then(b.rating.cmp(&a.rating))
                .then(a.id.cmp(&b.id))
        });
        list
    }

    /// Pairs the next round of the players present (joined, not withdrawn), records its games
    /// and bye, and returns it. Cost: a few maximum matchings (O(n³)) per score bracket; well
    /// under a second for a few hundred players.
    ///
    /// # Errors
    ///
    /// [`EventError::Round`] while a game of the round before has no result, when every round
    /// was paired, when fewer than two players are present, or when no pairing without a
    /// rematch exists (the event is then over: [`Swiss::is_finished`]).
    pub fn pair_round(&mut self) -> Result<SwissRound, EventError> {
        if !self.round_complete() {
            return Err(EventError::Round("a game of the last round has no result"));
        }
        if self.rounds_paired >= self.settings.rounds || self.ended_early {
            return Err(EventError::Round("every round was paired"));
        }
        // Pairing numbers: by rating, then id (FIDE's TPN, renumbered each round).
        let mut by_rating: Vec<&SwissPlayer> = self.players.values().collect();
        by_rating.sort_by(|a, b| b.rating.cmp(&a.rating).then(a.id.cmp(&b.id)));
        let number: HashMap<&PlayerId, u32> = by_rating
            .iter()
            .enumerate()
            .map(|(i, p)| (&p.id, i as u32 + 1))
            .collect();
        let present: Vec<&SwissPlayer> =
            self.ranked().into_iter().filter(|p| !p.withdrawn).collect();
        if present.len() < 2 {
            return Err(EventError::Round("fewer than two players are present"));
        }
        let index: HashMap<&PlayerId, usize> = present
            .iter()
            .enumerate()
            .map(|(i, p)| (&p.id, i))
            .collect();
        let entrants: Vec<dutch::Entrant> = present
            .iter()
            .map(|p| dutch::Entrant {
                half_points: p.half_points(),
                number: number[&p.id],
                colours: p.colours(),
                byes: p.byes(),
            })
            .collect();
        let mut met = vec![vec![false; present.len()]; present.len()];
        for (i, p) in present.iter().enumerate() {
            for e in &p.sheet {
                if let RoundEntry::Game { opponent, .. } = e {
                    if let Some(&j) = index.get(opponent) {
                        met[i][j] = true;
                    }
                }
            }
        }
        let Some(pairing) = dutch::pair_round(&entrants, &met) else {
            self.ended_early = true;
            return Err(EventError::Round("no pairing without a rematch is left"));
        };
        let ids: Vec<PlayerId> = present.iter().map(|p| p.id.clone()).collect();
        self.rounds_paired += 1;
        let round = self.rounds_paired;
        let mut next_game = self.games.keys().next_back().map_or(0, |g| g.0);
        let mut games = Vec::with_capacity(pairing.pairs.len());
        for (board, &(r, b)) in pairing.pairs.iter().enumerate() {
            next_game += 1;
            let game = SwissGame {
                id: GameId(next_game),
                round,
                board: board as u32 + 1,
                red: ids[r].clone(),
                black: ids[b].clone(),
                result: None,
            };
            for (who, opp, colour) in [(r, b, Side::Red), (b, r, Side::Black)] {
                let p = self.players.get_mut(&ids[who]).expect("present");
                p.sheet.push(RoundEntry::Game {
                    game: game.id,
                    opponent: ids[opp].clone(),
                    colour,
                    half_points: None,
                });
            }
            self.games.insert(game.id, game.clone());
            games.push(game);
        }
        if let Some(b) = pairing.bye {
            self.players
                .get_mut(&ids[b])
                .expect("present")
                .sheet
                .push(RoundEntry::Bye);
        }
        for p in self.players.values_mut() {
            if p.sheet.len() < round as usize {
                p.sheet.push(RoundEntry::Absent);
            }
        }
        Ok(SwissRound {
            round,
            games,
            bye: pairing.bye.map(|b| ids[b].clone()),
            colours_relaxed: pairing.relaxed,
        })
    }

    /// The standings with the tie-breaks (the module's documentation); ranks 1, 2, 3...
    pub fn standings(&self) -> Vec<SwissStanding> {
        let half: HashMap<&PlayerId, u32> = self
            .players
            .values()
            .map(|p| (&p.id, p.half_points()))
            .collect();
        let mut lines: Vec<(SwissStanding, u32, u32, u32)> = self
            .players
            .values()
            .map(|p| {
                let (mut buchholz, mut sb) = (0u32, 0u32);
                for e in &p.sheet {
                    if let RoundEntry::Game {
                        opponent,
                        half_points: Some(h),
                        ..
                    } = e
                    {
                        let opp = half[opponent];
                        buchholz += opp;
                        // In quarter-points: a win adds the opponent's points, a draw half.
                        sb += opp * h;
                    }
                }
                let points = half[&p.id];
                let line = SwissStanding {
                    rank: 0,
                    id: p.id.clone(),
                    rating: p.rating,
                    points: f64::from(points) / 2.0,
                    buchholz: f64::from(buchholz) / 2.0,
                    sonneborn_berger: f64::from(sb) / 4.0,
                    withdrawn: p.withdrawn,
                };
                (line, points, sb, buchholz)
            })
            .collect();
        lines.sort_by(|(a, ap, asb, abh), (b, bp, bsb, bbh)| {
            bp.cmp(ap)
                .then(bsb.cmp(asb))
                .then(bbh.cmp(abh))
                .then(b.rating.cmp(&a.rating))
                .then(a.id.cmp(&b.id))
        });
        lines
            .into_iter()
            .enumerate()
            .map(|(i, (mut line, ..))| {
                line.rank = i as u32 + 1;
                line
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
