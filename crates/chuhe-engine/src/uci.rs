//! The UCI session (`spec/engine-protocol.md`): commands in, lines out, errors never fatal.
//!
//! A [`Session`] owns the current position and its move history. Every bad command prints one
//! `info string error <code> <detail>` line and leaves the state as it was.

use chuhe_rules::xiangqi::{perft, perft_divide, Move, Position};
use std::io::{self, BufRead, Write};

/// What the caller should do after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received: stop reading and exit with status 0.
    Quit,
}

/// Engine options set by `setoption` (`spec/engine-protocol.md` §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Search threads.
    pub threads: u32,
    /// Transposition table size in MiB.
    pub hash_mib: u32,
    /// Informational; pondering is driven by `go ponder`.
    pub ponder: bool,
    /// Number of principal variations reported.
    pub multi_pv: u32,
    /// Milliseconds kept in reserve per move for I/O lag.
    pub move_overhead_ms: u32,
    /// Whether `info` lines carry `wdl W D L`.
    pub show_wdl: bool,
    /// Whether `UCI_Elo` limits the strength.
    pub limit_strength: bool,
    /// Target strength in Elo when `limit_strength` is on.
    pub elo: u32,
    /// 0 (weakest) … 20 (full strength).
    pub skill_level: u32,
    /// Plies without capture that draw the game; 0 = off.
    pub no_capture_limit: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mib: 16,
            ponder: false,
            multi_pv: 1,
            move_overhead_ms: 10,
            show_wdl: false,
            limit_strength: false,
            elo: 1500,
            skill_level: 20,
            no_capture_limit: 120,
        }
    }
}

/// A spin option's name as printed, its default and its bounds.
struct Spin {
    name: &'static str,
    default: u32,
    min: u32,
    max: u32,
}

const SPINS: [Spin; 7] = [
    Spin {
        name: "Threads",
        default: 1,
        min: 1,
        max: 1024,
    },
    Spin {
        name: "Hash",
        default: 16,
        min: 1,
        max: 33_554_432,
    },
    Spin {
        name: "MultiPV",
        default: 1,
        min: 1,
        max: 128,
    },
    Spin {
        name: "Move Overhead",
        default: 10,
        min: 0,
        max: 5000,
    },
    Spin {
        name: "UCI_Elo",
        default: 1500,
        min: 500,
        max: 2800,
    },
    Spin {
        name: "Skill Level",
        default: 20,
        min: 0,
        max: 20,
    },
    Spin {
        name: "No Capture Limit",
        default: 120,
        min: 0,
        max: 1000,
    },
];

/// A UCI session: the position with its history, the options, and the output sink.
pub struct Session<W: Write> {
    out: W,
    start: Position,
    moves: Vec<Move>,
    position: Position,
    options: Options,
}

impl<W: Write> Session<W> {
    /// A new session at the start position, writing to `out`.
    pub fn new(out: W) -> Session<W> {
        Session {
            out,
            start: Position::start(),
            moves: Vec::new(),
            position: Position::start(),
            options: Options::default(),
        }
    }

    /// The current position (after the moves of the last `position` command).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The output sink (tests read what was written).
    pub fn output(&self) -> &W {
        &self.out
    }

    fn line(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    fn error(&mut self, code: &str, detail: &str) -> io::Result<()> {
        if detail.is_empty() {
            self.line(&format!("info string error {code}"))
        } else {
            self.line(&format!("info string error {code} {detail}"))
        }
    }

    /// Handles one input line.
    ///
    /// # Errors
    /// Only I/O errors of the output sink; bad commands are answered, never returned.
    pub fn handle(&mut self, line: &str) -> io::Result<Flow> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else {
            return Ok(Flow::Continue);
        };
        match cmd {
            "uci" => self.cmd_uci()?,
            "isready" => self.line("readyok")?,
            "ucinewgame" => {}
            "position" => self.cmd_position(args)?,
            "setoption" => self.cmd_setoption(args)?,
            "go" => self.cmd_go(args)?,
            "stop" | "ponderhit" => {}
            "d" => self.cmd_d()?,
            "quit" => return Ok(Flow::Quit),
            other => self.error("unknown-command", other)?,
        }
        Ok(Flow::Continue)
    }

    fn cmd_uci(&mut self) -> io::Result<()> {
        self.line(&format!("id name {}", crate::ENGINE_NAME))?;
        self.line(&format!("id author {}", crate::ENGINE_AUTHOR))?;
        let spin = |s: &Spin| {
            format!(
                "option name {} type spin default {} min {} max {}",
                s.name, s.default, s.min, s.max
            )
        };
        let lines = [
            spin(&SPINS[0]),
            spin(&SPINS[1]),
            "option name Clear Hash type button".to_owned(),
            "option name Ponder type check default false".to_owned(),
            spin(&SPINS[2]),
            spin(&SPINS[3]),
            "option name UCI_ShowWDL type check default false".to_owned(),
            "option name UCI_LimitStrength type check default false".to_owned(),
            spin(&SPINS[4]),
            spin(&SPINS[5]),
            spin(&SPINS[6]),
            "uciok".to_owned(),
        ];
        for l in lines {
            self.line(&l)?;
        }
        Ok(())
    }

    fn cmd_position(&mut self, args: &[&str]) -> io::Result<()> {
        let moves_at = args.iter().position(|&t| t == "moves");
        let (spec, move_texts) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let start = match spec.split_first() {
            Some((&"startpos", [])) => Position::start(),
            Some((&"fen", fields)) => match Position::from_fen(&fields.join(" ")) {
                Ok(p) => p,
                Err(e) => return self.error("bad-fen", e.kind_str()),
            },
            _ => return self.error("bad-fen", "expected startpos or fen"),
        };
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(move_texts.len());
        for &text in move_texts {
            let parsed = text.parse::<Move>().ok().filter(|&m| pos.is_legal(m));
            match parsed {
                Some(m) => {
                    pos.play_unchecked(m);
                    moves.push(m);
                }
                None => return self.error("illegal-move", text),
            }
        }
        self.start = start;
        self.moves = moves;
        self.position = pos;
        Ok(())
    }

    fn cmd_setoption(&mut self, args: &[&str]) -> io::Result<()> {
        if args.first() != Some(&"name") {
            return self.error("unknown-option", &args.join(" "));
        }
        let value_at = args.iter().position(|&t| t == "value");
        let name = args[1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|i| args[i + 1..].join(" "));
        let lname = name.to_ascii_lowercase();
        let bad = |s: &mut Self| {
            s.error(
                "bad-option-value",
                &format!("{name} {}", value.clone().unwrap_or_default()),
            )
        };
        match lname.as_str() {
            "clear hash" => return Ok(()),
            "uci_variant" => {
                return if value.as_deref().map(str::to_ascii_lowercase).as_deref()
                    == Some("xiangqi")
                {
                    Ok(())
                } else {
                    bad(self)
                }
            }
            "ponder" | "uci_showwdl" | "uci_limitstrength" => {
                let v = match value.as_deref().map(str::to_ascii_lowercase).as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return bad(self),
                };
                match lname.as_str() {
                    "ponder" => self.options.ponder = v,
                    "uci_showwdl" => self.options.show_wdl = v,
                    _ => self.options.limit_strength = v,
                }
                return Ok(());
            }
            _ => {}
        }
        let Some(spin) = SPINS.iter().find(|s| s.name.eq_ignore_ascii_case(&name)) else {
            return self.error("unknown-option", &name);
        };
        let Some(v) = value
            .as_deref()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|v| (spin.min..=spin.max).contains(v))
        else {
            return bad(self);
        };
        let o = &mut self.options;
        match spin.name {
            "Threads" => o.threads = v,
            "Hash" => o.hash_mib = v,
            "MultiPV" => o.multi_pv = v,
            "Move Overhead" => o.move_overhead_ms = v,
            "UCI_Elo" => o.elo = v,
            "Skill Level" => o.skill_level = v,
            _ => o.no_capture_limit = v,
        }
        Ok(())
    }

    fn cmd_go(&mut self, args: &[&str]) -> io::Result<()> {
        if let Some(i) = args.iter().position(|&t| t == "perft") {
            return match args
                .get(i + 1)
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|&d| d >= 1)
            {
                Some(depth) => self.go_perft(depth),
                None => self.error(
                    "bad-go",
                    &format!("perft {}", args.get(i + 1).copied().unwrap_or("")),
                ),
            };
        }
        let moves = self.position.legal_moves();
        if moves.is_empty() {
            self.line("info depth 0 score mate 0")?;
            return self.line("bestmove (none)");
        }
        // The search arrives with issue 7; until then the engine answers with a legal move.
        let mut sorted = moves.clone();
        sorted.sort_by_text();
        let m = sorted[0];
        self.line(&format!(
            "info depth 1 score cp 0 nodes {} pv {m}",
            sorted.len()
        ))?;
        self.line(&format!("bestmove {m}"))
    }

    fn go_perft(&mut self, depth: u32) -> io::Result<()> {
        let mut pos = self.position.clone();
        let divide = perft_divide(&mut pos, depth);
        let mut total = 0;
        for (m, n) in &divide {
            total += n;
            self.line(&format!("{m}: {n}"))?;
        }
        debug_assert_eq!(total, perft(&mut pos, depth, true));
        self.line("")?;
        self.line(&format!("Nodes searched: {total}"))?;
        self.line("")
    }

    fn cmd_d(&mut self) -> io::Result<()> {
        let pos = self.position.clone();
        let mut board = String::new();
        for rank in (0..10).rev() {
            board.push_str(&format!(" {rank} "));
            for file in 0..9 {
                let sq = chuhe_rules::xiangqi::Square::from_coords(file, rank).expect("on board");
                board.push(pos.piece_at(sq).map_or('.', |p| p.fen_char()));
                board.push(' ');
            }
            board.push('\n');
        }
        board.push_str("   a b c d e f g h i");
        self.line(&board)?;
        self.line(&format!("Fen: {pos}"))?;
        self.line(&format!("Key: {:016X}", pos.key()))?;
        let checkers: Vec<String> = pos.checkers().map(|s| s.to_string()).collect();
        self.line(&format!("Checkers: {}", checkers.join(" ")))
    }
}

/// Runs a session on `input` and `output` until `quit` or end of input.
///
/// # Errors
/// I/O errors of reading or writing.
pub fn run(input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut session = Session::new(output);
    for line in input.lines() {
        if session.handle(&line?)? == Flow::Quit {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(input: &str) -> String {
        let mut out = Vec::new();
        run(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn errors_are_reported_and_the_position_kept() {
        let out = transcript(
            "position startpos moves h2e2\nposition fen 9/9/9/9/9/9/9/9/9/4K4 w\nposition startpos moves h2e2 h3e3\nflip\nsetoption name Contempt value 3\nsetoption name Hash value 0\ngo perft 0\ngo perft 1\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            &lines[..6],
            &[
                "info string error bad-fen general-count",
                "info string error illegal-move h3e3",
                "info string error unknown-command flip",
                "info string error unknown-option Contempt",
                "info string error bad-option-value Hash 0",
                "info string error bad-go perft 0",
            ]
        );
        assert_eq!(lines.len(), 6 + 45 + 3);
        assert_eq!(lines[6], "a6a5: 1");
        assert_eq!(lines[lines.len() - 2], "Nodes searched: 45");
        assert_eq!(lines[lines.len() - 1], "");
    }

    #[test]
    fn perft_two_and_no_move() {
        let out = transcript("position fen 3k5/9/9/9/9/9/9/9/9/4K4 w\ngo perft 2\n");
        assert_eq!(out, "e0e1: 1\ne0f0: 2\n\nNodes searched: 3\n\n");
        let out = transcript("position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b\ngo depth 5\ngo perft 1\n");
        assert_eq!(
            out,
            "info depth 0 score mate 0\nbestmove (none)\n\nNodes searched: 0\n\n"
        );
    }

    #[test]
    fn uci_identification() {
        let out = transcript("uci\nisready\nquit\nisready\n");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("id name {}", crate::ENGINE_NAME));
        assert_eq!(
            lines[2],
            "option name Threads type spin default 1 min 1 max 1024"
        );
        assert_eq!(
            lines[12],
            "option name No Capture Limit type spin default 120 min 0 max 1000"
        );
        assert_eq!(lines[13], "uciok");
        assert_eq!(lines[14], "readyok");
        assert_eq!(lines.len(), 15, "nothing after quit");
    }
}
