//! `chuhe play --variant sanguo|banqi|xiangqi`: the computer players over a line protocol on
//! standard input and output (`docs/players.md`), and the hidden `chuhe match` that plays
//! computer players against each other for the strength figures.
//!
//! Commands, one per line:
//! - `position startpos [moves M1 M2 ...]` or `position <position text> [moves ...]`: the
//!   position (xiangqi FEN, sanguo position text, banqi *view* text) and the recorded moves
//!   since (xiangqi ICCS `h2e2`, sanguo `Rh3-Rh4`, banqi records `c2=R`, `c2-c3`, `c2xc3`);
//! - `go level <1-8>`, `go movetime <ms>`, `go nodes <n>` (full strength within the budget), or
//!   `go` alone (level 8): answered by `bestmove <move text>` (banqi: `flip c2`, `c2-c3`,
//!   `c2xc3`), or `bestmove (none)` when the player to move has no move;
//! - `isready` → `readyok`; `quit` ends the session (so does the end of input).
//!
//! Bad input gets one line `info string error <detail>` and the session goes on; a refused
//! `position` leaves the previous position in place.

use crate::cli::{parse_options, CliError, Variant};
use chuhe_engine::arena::{Contender, Match, Tally};
use chuhe_engine::levels::Budget;
use chuhe_engine::{banqi, player, sanguo};
use chuhe_rules::{banqi as rb, sanguo as rs, xiangqi as rx};
use std::io::{BufRead, Write};
use std::time::Duration;

/// The position a session plays from.
enum State {
    Xiangqi {
        start: Box<rx::Position>,
        moves: Vec<rx::Move>,
        over: bool,
    },
    Sanguo {
        problem: Box<sanguo::Problem>,
        over: bool,
    },
    Banqi {
        problem: Box<banqi::Problem>,
    },
}

/// How long to think.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Go {
    Level(u8),
    Movetime(u64),
    Nodes(u64),
}

/// One `chuhe play` session.
pub struct Session {
    variant: Variant,
    flags: bool,
    seed: u64,
    state: State,
}

impl Session {
    /// A session for `variant` at its start position (sanguo with or without flag bearers);
    /// `seed` varies the choices of levels below 8 (the same seed, the same answers).
    pub fn new(variant: Variant, flags: bool, seed: u64) -> Session {
        let mut s = Session {
            variant,
            flags,
            seed,
            state: State::Banqi {
                problem: Box::new(banqi::Problem::from_view(rb::View::start())),
            },
        };
        if let Ok(state) = s.load("startpos", &[]) {
            s.state = state;
        }
        s
    }

    /// Handles one line; `Ok(false)` after `quit`. Errors are the `info string error` details.
    pub fn handle(&mut self, line: &str, out: &mut impl Write) -> Result<bool, String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return Ok(true);
        };
        match command {
            "quit" => return Ok(false),
            "isready" => writeln!(out, "readyok").map_err(|e| e.to_string())?,
            "position" => {
                let split = args.iter().position(|&t| t == "moves");
                let (pos, moves) = match split {
                    Some(i) => (&args[..i], &args[i + 1..]),
                    None => (args, &[][..]),
                };
                if pos.is_empty() {
                    return Err("position needs startpos or a position text".to_owned());
                }
                self.state = self.load(&pos.join(" "), moves)?;
            }
            "go" => {
                let go = parse_go(args)?;
                let text = self.think(go);
                writeln!(out, "bestmove {}", text.as_deref().unwrap_or("(none)"))
                    .map_err(|e| e.to_string())?;
            }
            other => return Err(format!("unknown command {:?}", shortened(other))),
        }
        Ok(true)
    }

    fn load(&self, text: &str, moves: &[&str]) -> Result<State, String> {
        let start = text == "startpos";
        match self.variant {
            Variant::Xiangqi => {
                let pos = if start {
                    rx::Position::start()
                } else {
                    rx::Position::from_fen(text).map_err(|e| format!("bad position: {e}"))?
                };
                let mut game = rx::Game::new(pos.clone(), rx::GameOptions::default());
                let mut played = Vec::new();
                for (i, t) in moves.iter().enumerate() {
                    let m: rx::Move = t
                        .parse()
                        .map_err(|e| format!("move {} {t:?}: {e}", i + 1))?;
                    game.play(m)
                        .map_err(|e| format!("move {} {t:?}: {e}", i + 1))?;
                    played.push(m);
                }
                Ok(State::Xiangqi {
                    start: Box::new(pos),
                    moves: played,
                    over: game.status().outcome().is_some(),
                })
            }
            Variant::Sanguo => {
                let pos = if start {
                    rs::Position::start(self.flags)
                } else {
                    rs::Position::from_text(text).map_err(|e| format!("bad position: {e}"))?
                };
                let mut game = rs::Game::new(pos);
                for (i, t) in moves.iter().enumerate() {
                    let m: rs::Move = t
                        .parse()
                        .map_err(|e| format!("move {} {t:?}: {e}", i + 1))?;
                    game.play(m)
                        .map_err(|e| format!("move {} {t:?}: {e}", i + 1))?;
                }
                Ok(State::Sanguo {
                    problem: Box::new(sanguo::Problem::of(&game)),
                    over: !game.is_ongoing(),
                })
            }
            Variant::Banqi => {
                let view = if start {
                    rb::View::start()
                } else {
                    text.parse::<rb::View>()
                        .map_err(|e| format!("bad position: {e}"))?
                };
                let mut records = Vec::new();
                for (i, t) in moves.iter().enumerate() {
                    let r: rb::Record = t
                        .parse()
                        .map_err(|e| format!("move {} {t:?}: {e}", i + 1))?;
                    records.push(r);
                }
                let problem = banqi::Problem::replay(&view, &records)?;
                Ok(State::Banqi {
                    problem: Box::new(problem),
                })
            }
        }
    }

    /// The move text chosen for `go`, `None` when there is no move.
    fn think(&self, go: Go) -> Option<String> {
        let seed = self.seed;
        match &self.state {
            State::Xiangqi { start, moves, over } => {
                if *over {
                    return None;
                }
                let limit = rx::DEFAULT_NO_CAPTURE_LIMIT;
                let m = match go {
                    Go::Level(l) => player::choose_move(start, moves, l, limit, seed),
                    Go::Movetime(ms) => player::choose_move_with(
                        start,
                        moves,
                        8,
                        limit,
                        seed,
                        u64::MAX,
                        Some(Duration::from_millis(ms.max(1))),
                    ),
                    Go::Nodes(n) => {
                        player::choose_move_with(start, moves, 8, limit, seed, n.max(1), None)
                    }
                };
                m.map(|m| m.to_string())
            }
            State::Sanguo { problem, over } => {
                if *over {
                    return None;
                }
                let m = match go {
                    Go::Level(l) => sanguo::choose(problem, l, seed),
                    Go::Movetime(ms) => sanguo::choose_with(
                        problem,
                        sanguo::Settings::full(Budget::time(Duration::from_millis(ms.max(1)))),
                        seed,
                    ),
                    Go::Nodes(n) => sanguo::choose_with(
                        problem,
                        sanguo::Settings::full(Budget::nodes(n.max(1))),
                        seed,
                    ),
                };
                m.map(|m| problem.position.move_text(m))
            }
            State::Banqi { problem } => {
                if problem.view.verdict().is_some() {
                    return None;
                }
                let a = match go {
                    Go::Level(l) => banqi::choose(problem, l, seed),
                    Go::Movetime(ms) => banqi::choose_with(
                        problem,
                        banqi::Settings::full(Budget::time(Duration::from_millis(ms.max(1)))),
                        seed,
                    ),
                    Go::Nodes(n) => banqi::choose_with(
                        problem,
                        banqi::Settings::full(Budget::nodes(n.max(1))),
                        seed,
                    ),
                };
                a.map(|a| a.to_string())
            }
        }
    }
}

fn parse_go(args: &[&str]) -> Result<Go, String> {
    match args {
        [] => Ok(Go::Level(8)),
        ["level", n] => match n.parse::<u8>() {
            Ok(l) if (1..=8).contains(&l) => Ok(Go::Level(l)),
            _ => Err(format!("bad level {n:?}: expected 1-8")),
        },
        ["movetime", n] => match n.parse::<u64>() {
            Ok(ms) if (1..=3_600_000).contains(&ms) => Ok(Go::Movetime(ms)),
            _ => Err(format!("bad movetime {n:?}: expected 1-3600000 ms")),
        },
        ["nodes", n] => match n.parse::<u64>() {
            Ok(k) if k >= 1 => Ok(Go::Nodes(k)),
            _ => Err(format!("bad nodes {n:?}: expected a positive count")),
        },
        _ => Err(format!(
            "bad go {:?}: expected go level <1-8>, go movetime <ms> or go nodes <n>",
            args.join(" ")
        )),
    }
}

/// Whether sanguo's start has flag bearers (`--options flag_bearers=on|off`, default on); no
/// option is known for the other games.
fn flags_of(variant: Variant, options: Option<&str>) -> Result<bool, CliError> {
    let mut flags = true;
    for (key, value) in parse_options(options)? {
        match (variant, key.as_str(), value.as_str()) {
            (Variant::Sanguo, "flag_bearers", "on") => flags = true,
            (Variant::Sanguo, "flag_bearers", "off") => flags = false,
            _ => {
                return Err(CliError::input(format!(
                    "unknown option {key}={value} for {} (known: sanguo flag_bearers=on|off)",
                    variant.as_str()
                )))
            }
        }
    }
    Ok(flags)
}

/// At most the first 40 characters of `text`, with `…` when there were more (an error line
/// names a bad input without repeating all of it).
fn shortened(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `chuhe play`: runs a session on standard input and output until `quit` or the end of input.
pub fn play(variant: Variant, options: Option<&str>, seed: u64) -> Result<(), CliError> {
    let flags = flags_of(variant, options)?;
    let mut session = Session::new(variant, flags, seed);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    // Lines as bytes: a line that is not UTF-8 is refused like any bad input, and the session
    // goes on.
    for line in stdin.lock().split(b'\n') {
        let line = line?;
        let line = match String::from_utf8(line) {
            Ok(text) => Ok(text),
            Err(_) => Err("the line is not UTF-8 text".to_owned()),
        };
        let handled = line.and_then(|l| session.handle(l.trim_end_matches('\r'), &mut out));
        match handled {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let one = e.replace(['\r', '\n'], " ");
                writeln!(out, "info string error {one}")?;
            }
        }
        out.flush()?;
    }
    out.flush()?;
    Ok(())
}

/// The settings of `chuhe match`.
pub struct MatchArgs {
    /// The game.
    pub variant: Variant,
    /// The measured player.
    pub a: String,
    /// Its opponent (both rivals in sanguo).
    pub b: String,
    /// Games to play.
    pub games: u32,
    /// Node-budget scale.
    pub scale: f64,
    /// First seed (game `i` uses `seed + i`).
    pub seed: u64,
    /// `--options` (sanguo `flag_bearers`).
    pub options: Option<String>,
}

/// `chuhe match` (hidden): plays `games` games with seats rotated and prints the first player's
/// results; a progress line every 20 games on standard error. A game in which a player breaks a
/// rule ([`chuhe_engine::arena::MatchError`]) stops the match with exit status 1.
pub fn run_match(args: MatchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let a: Contender = args.a.parse().map_err(CliError::input)?;
    let b: Contender = args.b.parse().map_err(CliError::input)?;
    let flags = flags_of(args.variant, args.options.as_deref())?;
    if !(args.scale > 0.0 && args.scale <= 100.0) {
        return Err(CliError::input(
            "bad --scale: expected a number in (0, 100]",
        ));
    }
    if args.variant != Variant::Sanguo && (a == Contender::MaxN || b == Contender::MaxN) {
        return Err(CliError::input("maxn is a sanguo player"));
    }
    let level = |c: Contender| match c {
        Contender::Level(l) => Ok(l),
        Contender::Greedy | Contender::MaxN => Err(CliError::input("xiangqi has no greedy player")),
    };
    let m = Match { scale: args.scale };
    let mut tally = Tally::default();
    for i in 0..args.games {
        let seed = args.seed.wrapping_add(u64::from(i));
        let r = match args.variant {
            Variant::Banqi => m.banqi_game(a, b, i % 2 == 0, seed),
            Variant::Sanguo => {
                let seat = rs::Kingdom::ALL[(i % 3) as usize];
                m.sanguo_game(a, b, seat, flags, seed)
            }
            Variant::Xiangqi => m.xiangqi_game(level(a)?, level(b)?, i % 2 == 0, seed),
        }
        .map_err(|e| CliError {
            message: format!("game {} (seed {seed}) failed: {e}", i + 1),
            status: 1,
        })?;
        tally.add(
            r,
            if args.variant == Variant::Sanguo {
                2
            } else {
                1
            },
        );
        if (i + 1) % 20 == 0 {
            eprintln!("{} games: {tally}", i + 1);
        }
    }
    writeln!(
        out,
        "{} {a} vs {b}{} scale {} seed {}: {tally}",
        args.variant.as_str(),
        if args.variant == Variant::Sanguo {
            if flags {
                " (x2, flag bearers on)"
            } else {
                " (x2, flag bearers off)"
            }
        } else {
            ""
        },
        args.scale,
        args.seed
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(variant: Variant, lines: &[&str]) -> String {
        let mut s = Session::new(variant, true, 1);
        let mut out = Vec::new();
        for l in lines {
            match s.handle(l, &mut out) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => writeln!(out, "info string error {e}").unwrap(),
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn errors_are_one_line_and_the_session_goes_on() {
        let out = run(
            Variant::Sanguo,
            &[
                "bogus",
                "go level 9",
                "position startpos moves Rh3-Rh9",
                "isready",
            ],
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!(lines[0], "info string error unknown command \"bogus\"");
        assert_eq!(lines[1], "info string error bad level \"9\": expected 1-8");
        assert!(lines[2].starts_with("info string error move 1 \"Rh3-Rh9\""));
        assert_eq!(lines[3], "readyok");
    }

    #[test]
    fn banqi_answers_from_a_view() {
        let out = run(
            Variant::Banqi,
            &["position 8/8/2Rh4/a7 r - 0", "go nodes 2000"],
        );
        assert_eq!(out, "bestmove c2xd2\n");
    }
}
