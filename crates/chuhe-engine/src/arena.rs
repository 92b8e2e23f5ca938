//! Matches between computer players, for the strength figures of `docs/players.md`: whole games
//! under every end-of-game rule, seats rotated, results counted as wins, shared wins, draws and
//! losses of the first contender, and scored head to head ([`Result1::quarters`]).
//!
//! Budgets are node counts (the level's node budget times a scale), never time, so a match is
//! the same on every machine and for the same seed. Banqi flips are drawn from a generator seeded
//! per game.

use crate::banqi;
use crate::levels::{Budget, Rng};
use crate::player;
use crate::sanguo;
use chuhe_rules::outcome::{Outcome, Side};
use chuhe_rules::sanguo::Kingdom;
use chuhe_rules::{banqi as rb, sanguo as rs, xiangqi as rx};
use rand::SeedableRng;
use std::fmt;
use std::str::FromStr;

/// A player in a match: the greedy one-ply player, a level, or (sanguo) the max^n search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// The greedy one-ply player (sanguo and banqi).
    Greedy,
    /// A level 1–8.
    Level(u8),
    /// Sanguo only: the max^n search ([`sanguo::maxn`]) with level 8's node budget (scaled),
    /// to compare with the paranoid search of the levels.
    MaxN,
}

impl FromStr for Contender {
    type Err = String;

    /// `greedy`, `maxn` or a level `1` … `8` (also `L1` … `L8`).
    fn from_str(s: &str) -> Result<Contender, String> {
        match s {
            "greedy" => return Ok(Contender::Greedy),
            "maxn" => return Ok(Contender::MaxN),
            _ => {}
        }
        let n = s.trim_start_matches(['L', 'l']);
        match n.parse::<u8>() {
            Ok(l) if (1..=8).contains(&l) => Ok(Contender::Level(l)),
            _ => Err(format!(
                "bad player {s:?}: expected greedy, maxn or a level 1-8"
            )),
        }
    }
}

impl fmt::Display for Contender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Contender::Greedy => f.write_str("greedy"),
            Contender::MaxN => f.write_str("maxn"),
            Contender::Level(l) => write!(f, "L{l}"),
        }
    }
}

/// The first contender's result in one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result1 {
    /// It alone won.
    Win,
    /// It won together with another kingdom (sanguo table endings only).
    Shared,
    /// Nobody won.
    Draw,
    /// Another player won alone.
    Loss,
    /// Two other kingdoms won together (sanguo table endings only).
    LossShared,
}

impl Result1 {
    /// The game's head-to-head score in quarter points (0–4): the mean, over the opponent's
    /// seats, of 1 when the first contender did better than that seat (it is among the winners
    /// and the seat is not), ½ when as well, 0 when worse. Two players: win 4, draw 2, loss 0.
    /// Sanguo (two rival seats): win 4, shared win 3, draw 2, a loss to one rival 1 (it did as
    /// well as the other loser), a loss to both 0. Three equal players score 50 % on average.
    pub fn quarters(self, rivals: u32) -> u32 {
        match (self, rivals) {
            (Result1::Win, _) => 4,
            (Result1::Shared, _) => 3,
            (Result1::Draw, _) => 2,
            (Result1::Loss, 2) => 1,
            (Result1::Loss | Result1::LossShared, _) => 0,
        }
    }
}

/// Counts of results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won alone.
    pub wins: u32,
    /// Games won jointly.
    pub shared: u32,
    /// Draws.
    pub draws: u32,
    /// Losses (alone or together).
    pub losses: u32,
    /// The head-to-head score, quarter points ([`Result1::quarters`]).
    pub quarters: u32,
}

impl Tally {
    /// Adds one result of a game in which the first contender had `rivals` opponent seats
    /// (1, or 2 in sanguo).
    pub fn add(&mut self, r: Result1, rivals: u32) {
        match r {
            Result1::Win => self.wins += 1,
            Result1::Shared => self.shared += 1,
            Result1::Draw => self.draws += 1,
            Result1::Loss | Result1::LossShared => self.losses += 1,
        }
        self.quarters += r.quarters(rivals);
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.shared + self.draws + self.losses
    }

    /// The head-to-head score in percent ([`Result1::quarters`]): two players, a win 1 and a
    /// draw ½; sanguo, the mean result against each rival seat, so that equal players score 50 %.
    pub fn score_percent(&self) -> f64 {
        let g = self.games().max(1);
        25.0 * f64::from(self.quarters) / f64::from(g)
    }

    /// The share of games won alone, percent.
    pub fn win_percent(&self) -> f64 {
        100.0 * f64::from(self.wins) / f64::from(self.games().max(1))
    }
}

impl fmt::Display for Tally {
    /// `W/shared/D/L = 150/0/30/20 of 200 (score 82.5 %, wins 75.0 %)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "W/shared/D/L = {}/{}/{}/{} of {} (score {:.1} %, wins {:.1} %)",
            self.wins,
            self.shared,
            self.draws,
            self.losses,
            self.games(),
            self.score_percent(),
            self.win_percent()
        )
    }
}

fn result_of(outcome: &Outcome, me: Side) -> Result1 {
    if outcome.winners.is_empty() {
        Result1::Draw
    } else if outcome.winners.contains(&me) {
        if outcome.winners.len() == 1 {
            Result1::Win
        } else {
            Result1::Shared
        }
    } else if outcome.winners.len() > 1 {
        Result1::LossShared
    } else {
        Result1::Loss
    }
}

/// A match's common settings: the node scale applied to every level's node budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// Multiplies each level's node budget (1.0 = the server's budgets; at least 100 nodes).
    pub scale: f64,
}

impl Match {
    fn budget(&self, nodes: u64) -> Budget {
        Budget::nodes(((nodes as f64 * self.scale) as u64).max(100))
    }

    fn banqi_move(&self, c: Contender, p: &banqi::Problem, seed: u64) -> Option<rb::Action> {
        match c {
            // max^n is a sanguo search (`chuhe match` refuses it for banqi).
            Contender::Greedy | Contender::MaxN => banqi::greedy(p, seed),
            Contender::Level(l) => {
                let mut s = banqi::Settings::level(l);
                s.budget = self.budget(s.budget.nodes);
                banqi::choose_with(p, s, seed)
            }
        }
    }

    fn sanguo_move(&self, c: Contender, p: &sanguo::Problem, seed: u64) -> Option<rs::Move> {
        match c {
            Contender::Greedy => sanguo::greedy(p, seed),
            Contender::MaxN => {
                let nodes = sanguo::Settings::level(8).budget.nodes;
                sanguo::maxn(p, self.budget(nodes))
            }
            Contender::Level(l) => {
                let mut s = sanguo::Settings::level(l);
                s.budget = self.budget(s.budget.nodes);
                sanguo::choose_with(p, s, seed)
            }
        }
    }

    /// One banqi game: `a` takes the first seat when `a_first`, else the second; `seed` draws
    /// the flips and varies the players.
    pub fn banqi_game(&self, a: Contender, b: Contender, a_first: bool, seed: u64) -> Result1 {
        let rng = rand::rngs::StdRng::seed_from_u64(seed);
        let Ok(start) = rb::START_TEXT.parse::<rb::Truth>() else {
            return Result1::Draw;
        };
        let mut game = rb::Game::with_rng(start, rng);
        let mut seeds = Rng::new(seed ^ 0x5EED);
        loop {
            match game.status() {
                rb::Status::Ongoing => {}
                rb::Status::Ended(o) => {
                    let seat = if a_first {
                        rb::Seat::First
                    } else {
                        rb::Seat::Second
                    };
                    return match game.seat_colour(seat) {
                        Some(c) => result_of(o, c.side()),
                        None => Result1::Draw,
                    };
                }
                rb::Status::EndedBySeat { .. } => return Result1::Draw,
            }
            let a_moves = (game.seat_to_move() == rb::Seat::First) == a_first;
            let problem = match banqi::Problem::replay(game.start_view(), game.records()) {
                Ok(p) => p,
                Err(_) => return Result1::Draw,
            };
            let who = if a_moves { a } else { b };
            let Some(action) = self.banqi_move(who, &problem, seeds.next_u64()) else {
                return Result1::Draw;
            };
            if game.play(action).is_err() {
                return Result1::Draw;
            }
        }
    }

    /// One sanguo game: `a` plays `a_seat`, `b` the two other kingdoms.
    pub fn sanguo_game(
        &self,
        a: Contender,
        b: Contender,
        a_seat: Kingdom,
        flags: bool,
        seed: u64,
    ) -> Result1 {
        let mut game = rs::Game::new(rs::Position::start(flags));
        let mut seeds = Rng::new(seed);
        loop {
            if let rs::Status::Ended(o) = game.status() {
                return result_of(o, a_seat.side());
            }
            let who = if game.side_to_move() == a_seat { a } else { b };
            let problem = sanguo::Problem::of(&game);
            let Some(m) = self.sanguo_move(who, &problem, seeds.next_u64()) else {
                return Result1::Draw;
            };
            if game.play(m).is_err() {
                return Result1::Draw;
            }
        }
    }

    /// One xiangqi game between two levels: `a` plays Red when `a_red`.
    pub fn xiangqi_game(&self, a: u8, b: u8, a_red: bool, seed: u64) -> Result1 {
        let start = rx::Position::start();
        let options = rx::GameOptions::default();
        let mut game = rx::Game::new(start.clone(), options);
        let mut seeds = Rng::new(seed);
        loop {
            if let Some(o) = game.status().outcome() {
                let side = if a_red { Side::Red } else { Side::Black };
                return result_of(o, side);
            }
            let red = game.side_to_move() == rx::Color::Red;
            let level = if red == a_red { a } else { b };
            let nodes = player::NODES_BY_LEVEL[usize::from(level.clamp(1, 8)) - 1];
            let nodes = ((nodes as f64 * self.scale) as u64).max(100);
            let m = player::choose_move_with(
                &start,
                &game.moves(),
                level,
                options.no_capture_limit,
                seeds.next_u64(),
                nodes,
                None,
            );
            let Some(m) = m else {
                return Result1::Draw;
            };
            if game.play(m).is_err() {
                return Result1::Draw;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_parse() {
        assert_eq!("greedy".parse(), Ok(Contender::Greedy));
        assert_eq!("maxn".parse(), Ok(Contender::MaxN));
        assert_eq!(Contender::MaxN.to_string(), "maxn");
        assert_eq!("L8".parse(), Ok(Contender::Level(8)));
        assert_eq!("3".parse(), Ok(Contender::Level(3)));
        assert_eq!(
            "9".parse::<Contender>(),
            Err("bad player \"9\": expected greedy, maxn or a level 1-8".to_owned())
        );
    }

    #[test]
    fn a_tally_scores_and_prints() {
        let mut t = Tally::default();
        for r in [Result1::Win, Result1::Win, Result1::Draw, Result1::Loss] {
            t.add(r, 1);
        }
        assert_eq!(
            t.to_string(),
            "W/shared/D/L = 2/0/1/1 of 4 (score 62.5 %, wins 50.0 %)"
        );
    }

    #[test]
    fn sanguo_scores_head_to_head() {
        // Three equal kingdoms: each wins a third of the games and scores 50 %.
        let mut t = Tally::default();
        for r in [Result1::Win, Result1::Loss, Result1::Loss] {
            t.add(r, 2);
        }
        assert_eq!(t.score_percent(), 50.0);
        let mut t = Tally::default();
        for r in [Result1::Shared, Result1::Draw, Result1::LossShared] {
            t.add(r, 2);
        }
        assert_eq!((t.quarters, t.losses, t.shared), (5, 1, 1));
    }

    #[test]
    fn short_games_finish() {
        let m = Match { scale: 0.05 };
        let r = m.banqi_game(Contender::Level(2), Contender::Greedy, true, 1);
        assert!(matches!(r, Result1::Win | Result1::Draw | Result1::Loss));
        // Xiangqi levels 2 and 1 at their own budgets: the same seed gives the same game.
        let m = Match { scale: 1.0 };
        let r = m.xiangqi_game(2, 1, true, 3);
        assert_eq!(r, m.xiangqi_game(2, 1, true, 3));
        assert_ne!(r, Result1::Shared);
    }
}
