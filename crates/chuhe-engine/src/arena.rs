//! Matches between computer players, for the strength figures of `docs/players.md`: whole games
//! under every end-of-game rule, seats rotated, results counted as wins, shared wins, draws and
//! losses of the first contender, and scored head to head ([`Result1::quarters`]).
//!
//! Budgets are node counts (the level's node budget times a scale), never time, so a match is
//! the same on every machine and for the same seed. Banqi flips are drawn from a generator seeded
//! per game.
//!
//! A game in which a player chooses an illegal move, or none while the game goes on, or whose
//! records do not replay into the banqi player's view, has no result: it returns a
//! [`MatchError`] and `chuhe match` stops. It is never counted as a draw.

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
    ///
    /// # Errors
    ///
    /// [`MatchError`] when a player chooses an illegal action or none, or the player's view
    /// cannot be rebuilt from the game's records: the game has no result.
    pub fn banqi_game(
        &self,
        a: Contender,
        b: Contender,
        a_first: bool,
        seed: u64,
    ) -> Result<Result1, MatchError> {
        play_banqi(a, b, a_first, seed, |c, p, s| self.banqi_move(c, p, s))
    }

    /// One sanguo game: `a` plays `a_seat`, `b` the two other kingdoms.
    ///
    /// # Errors
    ///
    /// [`MatchError`] when a player chooses an illegal move or none: the game has no result.
    pub fn sanguo_game(
        &self,
        a: Contender,
        b: Contender,
        a_seat: Kingdom,
        flags: bool,
        seed: u64,
    ) -> Result<Result1, MatchError> {
        play_sanguo(a, b, a_seat, flags, seed, |c, p, s| {
            self.sanguo_move(c, p, s)
        })
    }

    /// One xiangqi game between two levels: `a` plays Red when `a_red`.
    ///
    /// # Errors
    ///
    /// [`MatchError`] when a player chooses an illegal move or none: the game has no result.
    pub fn xiangqi_game(
        &self,
        a: u8,
        b: u8,
        a_red: bool,
        seed: u64,
    ) -> Result<Result1, MatchError> {
        play_xiangqi(a, b, a_red, seed, |level, start, game, s| {
            let nodes = player::NODES_BY_LEVEL[usize::from(level.clamp(1, 8)) - 1];
            let nodes = ((nodes as f64 * self.scale) as u64).max(100);
            player::choose_move_with(
                start,
                &game.moves(),
                level,
                game.options().no_capture_limit,
                s,
                nodes,
                None,
            )
        })
    }
}

/// Why a game of a match has no result: a player broke the rules, or the match could not give
/// it what it needs to choose. Such a game fails the match; counting it as a draw would hide the
/// fault in the strength figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchError {
    /// The player at fault (or, for [`Fault::Replay`], the one whose turn it was).
    pub player: Contender,
    /// Its seat: a side (`red`, `black`, `shu`, `wu`, `wei`), or in banqi before the first
    /// flip `first seat` or `second seat`.
    pub seat: String,
    /// Plies played before the fault (the fault is in ply `ply + 1`).
    pub ply: usize,
    /// What went wrong.
    pub fault: Fault,
}

/// What went wrong in a game of a match ([`MatchError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The player chose a move the rules refuse.
    Illegal {
        /// The move's text.
        mv: String,
        /// Why the rules refused it (the rules' `IllegalReason`, as text).
        reason: String,
    },
    /// The player chose no move although the game goes on.
    NoMove,
    /// The banqi player's view could not be rebuilt by replaying the game's records.
    Replay(String),
}

impl fmt::Display for MatchError {
    /// `ply 12, L3 (red): illegal move h2e2: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ply {}, {} ({}): ", self.ply + 1, self.player, self.seat)?;
        match &self.fault {
            Fault::Illegal { mv, reason } => write!(f, "illegal move {mv}: {reason}"),
            Fault::NoMove => f.write_str("no move chosen in an ongoing game"),
            Fault::Replay(e) => write!(f, "the game's records do not replay: {e}"),
        }
    }
}

impl std::error::Error for MatchError {}

/// The banqi game loop of [`Match::banqi_game`], with the players' choice passed in.
fn play_banqi(
    a: Contender,
    b: Contender,
    a_first: bool,
    seed: u64,
    mut choose: impl FnMut(Contender, &banqi::Problem, u64) -> Option<rb::Action>,
) -> Result<Result1, MatchError> {
    let rng = rand::rngs::StdRng::seed_from_u64(seed);
    let start = rb::START_TEXT
        .parse::<rb::Truth>()
        .expect("the start text parses (a rules test checks it)");
    let mut game = rb::Game::with_rng(start, rng);
    let a_seat = if a_first {
        rb::Seat::First
    } else {
        rb::Seat::Second
    };
    let mut seeds = Rng::new(seed ^ 0x5EED);
    loop {
        match game.status() {
            rb::Status::Ongoing => {}
            rb::Status::Ended(o) => {
                return Ok(match game.seat_colour(a_seat) {
                    Some(c) => result_of(o, c.side()),
                    // An outcome names colours, so they are known; nobody won without them.
                    None => Result1::Draw,
                });
            }
            rb::Status::EndedBySeat { winner, .. } => {
                return Ok(if *winner == a_seat {
                    Result1::Win
                } else {
                    Result1::Loss
                });
            }
        }
        let seat = game.seat_to_move();
        let who = if seat == a_seat { a } else { b };
        let seat_name = match game.seat_colour(seat) {
            Some(c) => c.side().to_string(),
            None if seat == rb::Seat::First => "first seat".to_owned(),
            None => "second seat".to_owned(),
        };
        let ply = game.records().len();
        let fail = |fault: Fault| MatchError {
            player: who,
            seat: seat_name.clone(),
            ply,
            fault,
        };
        let problem = banqi::Problem::replay(game.start_view(), game.records())
            .map_err(|e| fail(Fault::Replay(e)))?;
        let action = choose(who, &problem, seeds.next_u64()).ok_or_else(|| fail(Fault::NoMove))?;
        if let Err(e) = game.play(action) {
            return Err(fail(Fault::Illegal {
                mv: action.to_string(),
                reason: e.to_string(),
            }));
        }
    }
}

/// The sanguo game loop of [`Match::sanguo_game`], with the players' choice passed in.
fn play_sanguo(
    a: Contender,
    b: Contender,
    a_seat: Kingdom,
    flags: bool,
    seed: u64,
    mut choose: impl FnMut(Contender, &sanguo::Problem, u64) -> Option<rs::Move>,
) -> Result<Result1, MatchError> {
    let mut game = rs::Game::new(rs::Position::start(flags));
    let mut seeds = Rng::new(seed);
    loop {
        if let rs::Status::Ended(o) = game.status() {
            return Ok(result_of(o, a_seat.side()));
        }
        let kingdom = game.side_to_move();
        let who = if kingdom == a_seat { a } else { b };
        let ply = game.moves().len();
        let fail = |fault: Fault| MatchError {
            player: who,
            seat: kingdom.side().to_string(),
            ply,
            fault,
        };
        let problem = sanguo::Problem::of(&game);
        let m = choose(who, &problem, seeds.next_u64()).ok_or_else(|| fail(Fault::NoMove))?;
        if let Err(e) = game.play(m) {
            return Err(fail(Fault::Illegal {
                mv: m.text(false),
                reason: e.to_string(),
            }));
        }
    }
}

/// The xiangqi game loop of [`Match::xiangqi_game`], with the players' choice (level, start
/// position, game, seed) passed in.
fn play_xiangqi(
    a: u8,
    b: u8,
    a_red: bool,
    seed: u64,
    mut choose: impl FnMut(u8, &rx::Position, &rx::Game, u64) -> Option<rx::Move>,
) -> Result<Result1, MatchError> {
    let start = rx::Position::start();
    let mut game = rx::Game::new(start.clone(), rx::GameOptions::default());
    let mut seeds = Rng::new(seed);
    loop {
        if let Some(o) = game.status().outcome() {
            let side = if a_red { Side::Red } else { Side::Black };
            return Ok(result_of(o, side));
        }
        let red = game.side_to_move() == rx::Color::Red;
        let level = if red == a_red { a } else { b };
        let ply = game.ply();
        let fail = |fault: Fault| MatchError {
            player: Contender::Level(level),
            seat: if red { Side::Red } else { Side::Black }.to_string(),
            ply,
            fault,
        };
        let m =
            choose(level, &start, &game, seeds.next_u64()).ok_or_else(|| fail(Fault::NoMove))?;
        if let Err(e) = game.play(m) {
            return Err(fail(Fault::Illegal {
                mv: m.to_string(),
                reason: e.to_string(),
            }));
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
        assert!(matches!(
            r,
            Ok(Result1::Win | Result1::Draw | Result1::Loss)
        ));
        let r = m.sanguo_game(Contender::Greedy, Contender::Greedy, Kingdom::Shu, true, 2);
        assert!(r.is_ok(), "{r:?}");
        // Xiangqi levels 2 and 1 at their own budgets: the same seed gives the same game.
        let m = Match { scale: 1.0 };
        let r = m.xiangqi_game(2, 1, true, 3).expect("legal play");
        assert_eq!(Ok(r), m.xiangqi_game(2, 1, true, 3));
        assert_ne!(r, Result1::Shared);
    }

    /// An illegal move fails the game, naming the player, its seat and the ply; never a draw.
    #[test]
    fn an_illegal_xiangqi_move_fails_the_match() {
        // Black answers with Red's own first move, whose from-square is now empty.
        let mut first = None;
        let r = play_xiangqi(3, 5, true, 7, |_, _, game, _| {
            let m = *first.get_or_insert(game.legal_moves()[0]);
            Some(m)
        });
        let e = r.expect_err("an illegal move is no result");
        assert_eq!(
            (e.player, e.seat.as_str(), e.ply),
            (Contender::Level(5), "black", 1)
        );
        assert!(matches!(e.fault, Fault::Illegal { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("ply 2, L5 (black): illegal move "),
            "{e}"
        );
    }

    #[test]
    fn an_illegal_sanguo_move_fails_the_match() {
        let mut first = None;
        let r = play_sanguo(
            Contender::Level(4),
            Contender::Greedy,
            Kingdom::Wu,
            false,
            1,
            |_, p, s| Some(*first.get_or_insert_with(|| sanguo::greedy(p, s).expect("a move"))),
        );
        let e = r.expect_err("an illegal move is no result");
        assert_eq!(e.ply, 1);
        assert!(matches!(e.fault, Fault::Illegal { .. }), "{e:?}");
    }

    #[test]
    fn an_illegal_banqi_action_fails_the_match() {
        // The second seat flips the square the first seat has just turned face up.
        let mut first = None;
        let r = play_banqi(
            Contender::Greedy,
            Contender::Level(1),
            true,
            3,
            |_, p, s| Some(*first.get_or_insert_with(|| banqi::greedy(p, s).expect("a flip"))),
        );
        let e = r.expect_err("an illegal action is no result");
        assert_eq!(e.player, Contender::Level(1));
        assert_eq!(e.ply, 1);
        assert!(matches!(e.fault, Fault::Illegal { .. }), "{e:?}");
        assert_ne!(
            e.seat, "second seat",
            "colours are known after the first flip"
        );
    }

    #[test]
    fn no_move_in_an_ongoing_game_fails_the_match() {
        let e = play_xiangqi(1, 1, false, 1, |_, _, _, _| None).expect_err("no result");
        assert_eq!(
            (e.fault.clone(), e.seat.as_str(), e.ply),
            (Fault::NoMove, "red", 0)
        );
        assert_eq!(
            e.to_string(),
            "ply 1, L1 (red): no move chosen in an ongoing game"
        );
        let e = play_banqi(Contender::Greedy, Contender::Greedy, false, 1, |_, _, _| {
            None
        })
        .expect_err("no result");
        assert_eq!((e.seat.as_str(), e.fault), ("first seat", Fault::NoMove));
        let e = play_sanguo(
            Contender::Greedy,
            Contender::Greedy,
            Kingdom::Wei,
            true,
            1,
            |_, _, _| None,
        )
        .expect_err("no result");
        assert_eq!((e.seat.as_str(), e.fault), ("shu", Fault::NoMove));
    }
}
