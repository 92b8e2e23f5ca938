//! The engine session (`spec/engine-protocol.md`): UCI (Pikafish dialect), or UCCI 3.0 when the
//! first command is `ucci`. Commands in, lines out, errors never fatal.
//!
//! A [`Session`] owns the current position and its move history, the options and the
//! transposition table. `go` starts the search in its own thread, so `isready`, `stop` and
//! `ponderhit` are answered while it runs; every output line is written whole and flushed at once
//! through a shared sink. Every bad command prints one `info string error <code> <detail>` line
//! (UCCI: `info message error …`) and leaves the state as it was.

use crate::search::{self, Control, Info, Limits, Score, Searcher, Settings, MATE, MATE_BOUND};
use crate::skill::Strength;
use crate::tt::{Bound, Table};
use chuhe_rules::xiangqi::{perft_divide, Color, Move, Position};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

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

/// The two dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Uci,
    Ucci,
}

/// Where every line goes: shared by the session and its search thread.
struct Sink<W: Write> {
    out: Mutex<W>,
}

impl<W: Write> Sink<W> {
    fn line(&self, text: &str) -> io::Result<()> {
        let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
        o.write_all(text.as_bytes())?;
        o.write_all(b"\n")?;
        o.flush()
    }
}

/// A search running in its own thread.
struct Running {
    handle: JoinHandle<()>,
    ctl: Arc<Control>,
    /// Set (under the output lock) just before `bestmove` is written.
    done: Arc<AtomicBool>,
    /// A draw was offered (UCCI `ponderhit draw`).
    draw_offered: Arc<AtomicBool>,
}

/// An engine session: the position with its history, the options, the table, the output sink.
pub struct Session<W: Write + Send + 'static> {
    sink: Arc<Sink<W>>,
    dialect: Dialect,
    started: bool,
    start: Position,
    moves: Vec<Move>,
    position: Position,
    options: Options,
    tt: Arc<Table>,
    running: Option<Running>,
    banmoves: Vec<Move>,
    use_millisec: bool,
    searches: u64,
}

impl<W: Write + Send + 'static> Session<W> {
    /// A new session at the start position, writing to `out`, with the default 16 MiB table.
    ///
    /// # Panics
    /// When 16 MiB cannot be allocated.
    pub fn new(out: W) -> Session<W> {
        Session::with_hash(out, 16).expect("a 16 MiB table")
    }

    /// A new session whose transposition table has about `mib` MiB (as the `Hash` option sets
    /// it; reported as the Hash option's value). Fuzzing and tests use
    /// 1 MiB to keep a session cheap.
    ///
    /// # Errors
    /// `Err(())` when `mib` is 0 or the table cannot be allocated.
    #[allow(clippy::result_unit_err)]
    pub fn with_hash(out: W, mib: u32) -> Result<Session<W>, ()> {
        let tt = Arc::new(Table::new(mib as usize)?);
        let options = Options {
            hash_mib: mib,
            ..Options::default()
        };
        Ok(Session {
            sink: Arc::new(Sink {
                out: Mutex::new(out),
            }),
            dialect: Dialect::Uci,
            started: false,
            start: Position::start(),
            moves: Vec::new(),
            position: Position::start(),
            options,
            tt,
            running: None,
            banmoves: Vec::new(),
            use_millisec: false,
            searches: 0,
        })
    }

    /// The current position (after the moves of the last `position` command).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Runs `f` on the output sink (tests read what was written).
    pub fn with_output<R>(&self, f: impl FnOnce(&W) -> R) -> R {
        let o = self.sink.out.lock().unwrap_or_else(|e| e.into_inner());
        f(&o)
    }

    /// Whether a search is running (its `bestmove` not yet written).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.done.load(Ordering::SeqCst))
    }

    /// Waits until a running search has written its `bestmove` (for scripted sessions; an
    /// infinite or pondering search waits for `stop`).
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    fn reap(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.done.load(Ordering::SeqCst))
        {
            self.wait();
        }
    }

    fn line(&self, text: &str) -> io::Result<()> {
        self.sink.line(text)
    }

    fn error(&self, code: &str, detail: &str) -> io::Result<()> {
        let prefix = match self.dialect {
            Dialect::Uci => "info string error",
            Dialect::Ucci => "info message error",
        };
        if detail.is_empty() {
            self.line(&format!("{prefix} {code}"))
        } else {
            self.line(&format!("{prefix} {code} {detail}"))
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
        self.reap();
        if !self.started {
            self.started = true;
            if cmd == "ucci" {
                self.dialect = Dialect::Ucci;
            }
        }
        if matches!(
            cmd,
            "position" | "setoption" | "ucinewgame" | "go" | "banmoves"
        ) && self.is_searching()
        {
            self.error("busy", cmd)?;
            return Ok(Flow::Continue);
        }
        match self.dialect {
            Dialect::Uci => self.handle_uci(cmd, args),
            Dialect::Ucci => self.handle_ucci(cmd, args),
        }
    }

    fn handle_uci(&mut self, cmd: &str, args: &[&str]) -> io::Result<Flow> {
        match cmd {
            "uci" => self.cmd_uci()?,
            "isready" => self.line("readyok")?,
            "ucinewgame" => self.new_game(),
            "position" => self.cmd_position(args)?,
            "setoption" => self.cmd_setoption(args)?,
            "go" => self.cmd_go(args)?,
            "stop" => self.stop(),
            "ponderhit" => self.ponderhit(false),
            "d" => self.cmd_d()?,
            "quit" => {
                self.quit();
                return Ok(Flow::Quit);
            }
            other => self.error("unknown-command", other)?,
        }
        Ok(Flow::Continue)
    }

    fn handle_ucci(&mut self, cmd: &str, args: &[&str]) -> io::Result<Flow> {
        match cmd {
            "ucci" => self.cmd_ucci()?,
            "isready" => self.line("readyok")?,
            "position" => {
                self.cmd_position(args)?;
            }
            "banmoves" => self.cmd_banmoves(args)?,
            "setoption" => self.cmd_ucci_setoption(args)?,
            "go" => self.cmd_ucci_go(args)?,
            "stop" => {
                if self.running.is_some() {
                    self.stop();
                } else {
                    self.line("nobestmove")?;
                }
            }
            "ponderhit" => self.ponderhit(args.first() == Some(&"draw")),
            "probe" => self.cmd_probe(args)?,
            "d" => self.cmd_d()?,
            "quit" => {
                self.quit();
                self.line("bye")?;
                return Ok(Flow::Quit);
            }
            other => self.error("unknown-command", other)?,
        }
        Ok(Flow::Continue)
    }

    fn new_game(&mut self) {
        self.tt.clear();
    }

    fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.ctl.stop.store(true, Ordering::SeqCst);
        }
        self.wait();
    }

    fn ponderhit(&mut self, draw: bool) {
        if let Some(r) = &self.running {
            if draw {
                r.draw_offered.store(true, Ordering::SeqCst);
            }
            *r.ctl.ponderhit_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            r.ctl.pondering.store(false, Ordering::SeqCst);
        }
    }

    /// Ends any search without letting it print (`quit`, end of input).
    pub fn quit(&mut self) {
        if let Some(r) = &self.running {
            r.ctl.silent.store(true, Ordering::SeqCst);
            r.ctl.stop.store(true, Ordering::SeqCst);
        }
        self.wait();
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

    fn cmd_ucci(&mut self) -> io::Result<()> {
        self.line(&format!("id name {}", crate::ENGINE_NAME))?;
        self.line(&format!("id author {}", crate::ENGINE_AUTHOR))?;
        for l in [
            "option usemillisec type check default false",
            "option hashsize type spin min 0 max 33554432 default 16",
            "option threads type spin min 0 max 1024 default 1",
            "option ponder type check default false",
            "option skilllevel type spin min 0 max 20 default 20",
            "option nocapturelimit type spin min 0 max 1000 default 120",
            "option newgame type button",
            "ucciok",
        ] {
            self.line(l)?;
        }
        Ok(())
    }

    /// Parses `startpos | fen <fields>` and `moves …` into a start, its moves and the result.
    fn parse_position(
        &self,
        args: &[&str],
    ) -> Result<(Position, Vec<Move>, Position), (String, String)> {
        let moves_at = args.iter().position(|&t| t == "moves");
        let (spec, move_texts) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let start = match spec.split_first() {
            Some((&"startpos", [])) => Position::start(),
            Some((&"fen", fields)) => match Position::from_fen(&fields.join(" ")) {
                Ok(p) => p,
                Err(e) => return Err(("bad-fen".into(), e.kind_str().into())),
            },
            _ => return Err(("bad-fen".into(), "expected startpos or fen".into())),
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
                None => return Err(("illegal-move".into(), text.into())),
            }
        }
        Ok((start, moves, pos))
    }

    fn cmd_position(&mut self, args: &[&str]) -> io::Result<()> {
        match self.parse_position(args) {
            Ok((start, moves, pos)) => {
                self.start = start;
                self.moves = moves;
                self.position = pos;
                self.banmoves.clear();
                Ok(())
            }
            Err((code, detail)) => self.error(&code, &detail),
        }
    }

    fn cmd_banmoves(&mut self, args: &[&str]) -> io::Result<()> {
        let mut banned = Vec::new();
        for &t in args {
            match t
                .parse::<Move>()
                .ok()
                .filter(|&m| self.position.is_legal(m))
            {
                Some(m) => banned.push(m),
                None => self.error("illegal-move", t)?,
            }
        }
        self.banmoves = banned;
        Ok(())
    }

    fn set_hash(&mut self, mib: u32) -> bool {
        match Table::new(mib as usize) {
            Ok(t) => {
                self.tt = Arc::new(t);
                self.options.hash_mib = mib;
                true
            }
            Err(()) => false,
        }
    }

    fn cmd_setoption(&mut self, args: &[&str]) -> io::Result<()> {
        if args.first() != Some(&"name") {
            return self.error("unknown-option", &args.join(" "));
        }
        let value_at = args.iter().position(|&t| t == "value");
        let name = args[1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|i| args[i + 1..].join(" "));
        let lname = name.to_ascii_lowercase();
        let bad = |s: &Self| {
            s.error(
                "bad-option-value",
                &format!("{name} {}", value.clone().unwrap_or_default()),
            )
        };
        match lname.as_str() {
            "clear hash" => {
                self.tt.clear();
                return Ok(());
            }
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
            "Hash" => {
                if !self.set_hash(v) {
                    return bad(self);
                }
            }
            "MultiPV" => o.multi_pv = v,
            "Move Overhead" => o.move_overhead_ms = v,
            "UCI_Elo" => o.elo = v,
            "Skill Level" => o.skill_level = v,
            _ => o.no_capture_limit = v,
        }
        Ok(())
    }

    fn cmd_ucci_setoption(&mut self, args: &[&str]) -> io::Result<()> {
        let Some((&name, rest)) = args.split_first() else {
            return Ok(());
        };
        let value = rest.join(" ");
        let num = value.parse::<u32>().ok();
        let flag = match value.to_ascii_lowercase().as_str() {
            "true" | "on" => Some(true),
            "false" | "off" => Some(false),
            _ => None,
        };
        let bad = |s: &Self| s.error("bad-option-value", &format!("{name} {value}"));
        match name.to_ascii_lowercase().as_str() {
            "usemillisec" => match flag {
                Some(f) => self.use_millisec = f,
                None => bad(self)?,
            },
            "ponder" => match flag {
                Some(f) => self.options.ponder = f,
                None => bad(self)?,
            },
            "hashsize" => match num.filter(|&v| v <= 33_554_432) {
                Some(v) => {
                    if !self.set_hash(if v == 0 { 16 } else { v }) {
                        bad(self)?;
                    }
                }
                None => bad(self)?,
            },
            "threads" => match num.filter(|&v| v <= 1024) {
                Some(v) => self.options.threads = v.max(1),
                None => bad(self)?,
            },
            "skilllevel" => match num.filter(|&v| v <= 20) {
                Some(v) => self.options.skill_level = v,
                None => bad(self)?,
            },
            "nocapturelimit" => match num.filter(|&v| v <= 1000) {
                Some(v) => self.options.no_capture_limit = v,
                None => bad(self)?,
            },
            "newgame" => self.new_game(),
            _ => {}
        }
        Ok(())
    }

    fn go_perft(&mut self, depth: u32) -> io::Result<()> {
        let mut pos = self.position.clone();
        let divide = perft_divide(&mut pos, depth);
        let mut total = 0;
        for (m, n) in &divide {
            total += n;
            self.line(&format!("{m}: {n}"))?;
        }
        self.line("")?;
        self.line(&format!("Nodes searched: {total}"))?;
        self.line("")
    }

    /// `go perft <n>` wherever it appears: `Some` when handled.
    fn try_perft(&mut self, args: &[&str]) -> Option<io::Result<()>> {
        let i = args.iter().position(|&t| t == "perft")?;
        Some(
            match args
                .get(i + 1)
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|&d| d >= 1)
            {
                Some(depth) => self.go_perft(depth),
                None => self.error(
                    "bad-go",
                    &format!("perft {}", args.get(i + 1).copied().unwrap_or("")),
                ),
            },
        )
    }

    fn cmd_go(&mut self, args: &[&str]) -> io::Result<()> {
        if let Some(r) = self.try_perft(args) {
            return r;
        }
        let mut limits = Limits::default();
        let mut i = 0;
        while i < args.len() {
            let tok = args[i];
            i += 1;
            match tok {
                "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes"
                | "movetime" | "mate" => {
                    let Some(v) = args.get(i).and_then(|v| v.parse::<i64>().ok()) else {
                        self.error("bad-go", tok)?;
                        continue;
                    };
                    i += 1;
                    let u = v.max(0) as u64;
                    match tok {
                        "wtime" => limits.wtime = Some(u),
                        "btime" => limits.btime = Some(u),
                        "winc" => limits.winc = Some(u),
                        "binc" => limits.binc = Some(u),
                        "movestogo" => limits.movestogo = Some(u),
                        "depth" => limits.depth = Some(u.min(1000) as i32),
                        "nodes" => limits.nodes = Some(u),
                        "movetime" => limits.movetime = Some(u),
                        _ => limits.mate = Some(u.min(1000) as u32),
                    }
                }
                "infinite" => limits.infinite = true,
                "ponder" => limits.ponder = true,
                "searchmoves" => {
                    for &t in &args[i..] {
                        if let Some(m) = t
                            .parse::<Move>()
                            .ok()
                            .filter(|&m| self.position.is_legal(m))
                        {
                            limits.searchmoves.push(m);
                        } else {
                            self.error("illegal-move", t)?;
                        }
                    }
                    if limits.searchmoves.is_empty() {
                        // Nothing left to search.
                        self.line("info depth 0 score mate 0")?;
                        return self.line("bestmove (none)");
                    }
                    i = args.len();
                }
                other => self.error("bad-go", other)?,
            }
        }
        let any = self
            .position
            .legal_moves()
            .iter()
            .any(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m));
        if !any {
            self.line("info depth 0 score mate 0")?;
            return self.line("bestmove (none)");
        }
        self.start_search(limits, false);
        Ok(())
    }

    fn cmd_ucci_go(&mut self, args: &[&str]) -> io::Result<()> {
        if let Some(r) = self.try_perft(args) {
            return r;
        }
        let mut limits = Limits::default();
        let mut draw = false;
        let scale = |v: f64, ms: bool| -> u64 {
            if ms {
                v.max(0.0) as u64
            } else {
                (v.max(0.0) * 1000.0) as u64
            }
        };
        let red = self.position.side_to_move() == Color::Red;
        let mut i = 0;
        let mut depth_zero = false;
        while i < args.len() {
            let tok = args[i];
            i += 1;
            match tok {
                "ponder" => limits.ponder = true,
                "draw" => draw = true,
                "infinite" => limits.infinite = true,
                "depth" | "nodes" | "time" | "movestogo" | "increment" | "opptime"
                | "oppmovestogo" | "oppincrement" => {
                    let Some(v) = args.get(i).and_then(|v| v.parse::<f64>().ok()) else {
                        self.error("bad-go", tok)?;
                        continue;
                    };
                    i += 1;
                    let ms = self.use_millisec;
                    match tok {
                        "depth" => {
                            if v < 1.0 {
                                depth_zero = true;
                            }
                            limits.depth = Some(v.clamp(1.0, 1000.0) as i32);
                        }
                        "nodes" => limits.nodes = Some(v.max(0.0) as u64),
                        "time" | "opptime" => {
                            let t = Some(scale(v, ms));
                            if (tok == "time") == red {
                                limits.wtime = t;
                            } else {
                                limits.btime = t;
                            }
                        }
                        "increment" | "oppincrement" => {
                            let t = Some(scale(v, ms));
                            if (tok == "increment") == red {
                                limits.winc = t;
                            } else {
                                limits.binc = t;
                            }
                        }
                        "movestogo" => limits.movestogo = Some(v.max(1.0) as u64),
                        _ => {}
                    }
                }
                other => self.error("bad-go", other)?,
            }
        }
        limits.banmoves = self.banmoves.clone();
        let any = self
            .position
            .legal_moves()
            .iter()
            .any(|m| !limits.banmoves.contains(m));
        if depth_zero || !any {
            return self.line("nobestmove");
        }
        self.start_search(limits, draw);
        Ok(())
    }

    fn start_search(&mut self, limits: Limits, draw: bool) {
        self.searches += 1;
        let strength = Strength::from_options(
            self.options.skill_level,
            self.options.limit_strength,
            self.options.elo,
        );
        let settings = Settings {
            multi_pv: self.options.multi_pv as usize,
            no_capture_limit: self.options.no_capture_limit.min(u32::from(u16::MAX)) as u16,
            move_overhead_ms: u64::from(self.options.move_overhead_ms),
            skill_level: self.options.skill_level,
        };
        let ctl = Arc::new(Control::default());
        ctl.pondering.store(limits.ponder, Ordering::SeqCst);
        let done = Arc::new(AtomicBool::new(false));
        let draw_offered = Arc::new(AtomicBool::new(draw));
        let job = Job {
            sink: Arc::clone(&self.sink),
            tt: Arc::clone(&self.tt),
            ctl: Arc::clone(&ctl),
            done: Arc::clone(&done),
            draw_offered: Arc::clone(&draw_offered),
            start: self.start.clone(),
            moves: self.moves.clone(),
            settings,
            limits,
            ucci: self.dialect == Dialect::Ucci,
            show_wdl: self.options.show_wdl,
            strength,
            threads: self.options.threads.max(1) as usize,
            seed: self.position.key() ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        let handle = std::thread::Builder::new()
            .name("chuhe-search".into())
            .stack_size(64 << 20)
            .spawn(move || job.run());
        match handle {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    ctl,
                    done,
                    draw_offered,
                })
            }
            Err(_) => {
                let _ = self.error("busy", "cannot start the search thread");
            }
        }
    }

    fn cmd_probe(&mut self, args: &[&str]) -> io::Result<()> {
        let pos = match self.parse_position(args) {
            Ok((_, _, pos)) => pos,
            Err((code, detail)) => return self.error(&code, &detail),
        };
        let Some(e) = self.tt.probe(pos.key()) else {
            return self.line("pophash");
        };
        let mut text = String::from("pophash");
        if let Some(m) = e.mv.filter(|&m| pos.is_legal(m)) {
            text.push_str(&format!(" bestmove {m}"));
        }
        let v = ucci_score(e.score);
        if matches!(e.bound, Bound::Exact | Bound::Lower) {
            text.push_str(&format!(" lowerbound {v} depth {}", e.depth));
        }
        if matches!(e.bound, Bound::Exact | Bound::Upper) {
            text.push_str(&format!(" upperbound {v} depth {}", e.depth));
        }
        self.line(&text)
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

/// A UCCI score: centipawns, or ±(10000 − plies to mate).
fn ucci_score(v: i32) -> i32 {
    if v >= MATE_BOUND {
        10_000 - (MATE - v)
    } else if v <= -MATE_BOUND {
        -(10_000 - (MATE + v))
    } else {
        v
    }
}

/// Win/draw/loss per mille from a score (side to move's view), for `UCI_ShowWDL`: a logistic
/// model where ±150 cp is the centre of the win and loss curves.
pub fn wdl(v: i32) -> (u32, u32, u32) {
    if v >= MATE_BOUND {
        return (1000, 0, 0);
    }
    if v <= -MATE_BOUND {
        return (0, 0, 1000);
    }
    let logistic = |x: f64| 1.0 / (1.0 + (-x).exp());
    let w = (1000.0 * logistic((f64::from(v) - 150.0) / 80.0)).round() as u32;
    let l = (1000.0 * logistic((-f64::from(v) - 150.0) / 80.0)).round() as u32;
    let w = w.min(1000);
    let l = l.min(1000 - w);
    (w, 1000 - w - l, l)
}

/// Everything a search thread needs.
struct Job<W: Write + Send + 'static> {
    sink: Arc<Sink<W>>,
    tt: Arc<Table>,
    ctl: Arc<Control>,
    done: Arc<AtomicBool>,
    draw_offered: Arc<AtomicBool>,
    start: Position,
    moves: Vec<Move>,
    settings: Settings,
    limits: Limits,
    ucci: bool,
    show_wdl: bool,
    strength: Strength,
    threads: usize,
    seed: u64,
}

impl<W: Write + Send + 'static> Job<W> {
    fn format_info(&self, info: &Info) -> Vec<String> {
        let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
        if self.ucci {
            return vec![
                format!(
                    "info depth {} score {} pv {}",
                    info.depth,
                    ucci_score(info.score),
                    pv.join(" ")
                ),
                format!("info time {} nodes {}", info.time_ms, info.nodes),
            ];
        }
        let score = match Score::from_internal(info.score) {
            Score::Cp(c) => format!("cp {c}"),
            Score::Mate(m) => format!("mate {m}"),
        };
        let bound = match info.bound {
            Some(Bound::Lower) => " lowerbound",
            Some(Bound::Upper) => " upperbound",
            _ => "",
        };
        let wdl_text = if self.show_wdl {
            let (w, d, l) = wdl(info.score);
            format!(" wdl {w} {d} {l}")
        } else {
            String::new()
        };
        let nps = info.nodes * 1000 / info.time_ms.max(1);
        vec![format!(
            "info depth {} seldepth {} multipv {} score {score}{bound}{wdl_text} nodes {} nps {nps} hashfull {} tbhits 0 time {} pv {}",
            info.depth,
            info.seldepth,
            info.multipv,
            info.nodes,
            info.hashfull,
            info.time_ms,
            pv.join(" ")
        )]
    }

    fn run(self) {
        self.tt.new_search();
        // Lazy SMP helpers: same search, shared table, silent; stopped when the main one ends.
        let helper_ctl = Arc::new(Control::default());
        let mut helpers = Vec::new();
        for id in 1..self.threads {
            let tt = Arc::clone(&self.tt);
            let hc = Arc::clone(&helper_ctl);
            let main_ctl = Arc::clone(&self.ctl);
            let start = self.start.clone();
            let moves = self.moves.clone();
            let settings = self.settings.clone();
            let mut limits = self.limits.clone();
            limits.depth = None;
            limits.nodes = None;
            limits.movetime = None;
            limits.wtime = None;
            limits.btime = None;
            limits.infinite = true;
            limits.ponder = false;
            let spawned = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || {
                    let mut s = Searcher::new(&start, &moves, &tt, &hc, settings, limits);
                    s.set_helper();
                    s.skip_depths(id);
                    let _ = s.run(&mut |_| {});
                    main_ctl
                        .helper_nodes
                        .fetch_add(s.nodes(), Ordering::Relaxed);
                });
            if let Ok(h) = spawned {
                helpers.push(h);
            }
        }
        let user_multi_pv = self.settings.multi_pv;
        let mut settings = self.settings.clone();
        let mut limits = self.limits.clone();
        self.strength.limit(&mut limits, &mut settings);
        let mut searcher = Searcher::new(
            &self.start,
            &self.moves,
            &self.tt,
            &self.ctl,
            settings,
            limits.clone(),
        );
        let mut report = |info: &Info| {
            if info.multipv > user_multi_pv || self.ctl.silent.load(Ordering::SeqCst) {
                return;
            }
            for l in self.format_info(info) {
                let _ = self.sink.line(&l);
            }
        };
        let choice = self.strength.search(&mut searcher, self.seed, &mut report);
        search::wait_for_release(&self.ctl, &limits);
        helper_ctl.stop.store(true, Ordering::SeqCst);
        for h in helpers {
            let _ = h.join();
        }
        if let Some(line) = choice.line.as_ref().filter(|l| l.multipv != 1) {
            // The last line before `bestmove` starts with the move played.
            report(&Info {
                multipv: 1,
                ..line.clone()
            });
        }
        let (best, ponder, score) = (choice.best, choice.ponder, choice.score);
        let text = match best {
            None if self.ucci => "nobestmove".to_owned(),
            None => "bestmove (none)".to_owned(),
            Some(m) => {
                let mut t = format!("bestmove {m}");
                if let Some(p) = ponder {
                    t.push_str(&format!(" ponder {p}"));
                }
                if self.ucci {
                    if self.draw_offered.load(Ordering::SeqCst) && score <= 0 {
                        t.push_str(" draw");
                    } else if score <= -MATE_BOUND {
                        t.push_str(" resign");
                    }
                }
                t
            }
        };
        let mut o = self.sink.out.lock().unwrap_or_else(|e| e.into_inner());
        self.done.store(true, Ordering::SeqCst);
        if !self.ctl.silent.load(Ordering::SeqCst) {
            let _ = o.write_all(text.as_bytes());
            let _ = o.write_all(b"\n");
            let _ = o.flush();
        }
    }
}

/// Runs a session on `input` and `output` until `quit` or end of input (which acts as `quit`).
///
/// # Errors
/// I/O errors of reading or writing.
pub fn run<W: Write + Send + 'static>(input: impl BufRead, output: W) -> io::Result<()> {
    let mut session = Session::new(output);
    let mut input = input;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        // Bytes that are not UTF-8 become U+FFFD, so the line is answered as a bad command (for
        // example `unknown-command`) instead of ending the session.
        let line = String::from_utf8_lossy(&bytes);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        if session.handle(line)? == Flow::Quit {
            return Ok(());
        }
    }
    session.quit();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the lines as a GUI would: after each `go` that ends by itself, waits for `bestmove`.
    fn transcript(input: &str) -> String {
        let mut s = Session::new(Vec::new());
        for line in input.lines() {
            if s.handle(line).unwrap() == Flow::Quit {
                break;
            }
            if line.starts_with("go") && !line.contains("infinite") && !line.contains("ponder") {
                s.wait();
            }
        }
        s.quit();
        s.with_output(|o| String::from_utf8(o.clone()).unwrap())
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

    /// 33,554,432 MiB (32 TiB, the option's maximum) cannot be allocated on any machine this runs
    /// on (Linux's default overcommit refuses a single mapping larger than RAM and swap): the value
    /// is refused with `bad-option-value`, the previous table is kept and the engine still searches.
    #[test]
    fn unallocatable_hash_is_refused_and_the_old_table_kept() {
        let mut s = Session::new(Vec::new());
        s.handle("setoption name Hash value 8").unwrap();
        let entries = s.tt.len();
        s.handle("setoption name Hash value 33554432").unwrap();
        assert_eq!(s.options().hash_mib, 8);
        assert_eq!(s.tt.len(), entries);
        s.handle("isready").unwrap();
        s.handle("position startpos").unwrap();
        s.handle("go depth 2").unwrap();
        s.wait();
        s.quit();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        let lines = lines_without_search_info(&out);
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], "info string error bad-option-value Hash 33554432");
        assert_eq!(lines[1], "readyok");
        assert!(lines[2].starts_with("bestmove "), "{out}");

        // The same through UCCI's `hashsize`.
        let mut s = Session::new(Vec::new());
        s.handle("ucci").unwrap();
        s.handle("setoption hashsize 8").unwrap();
        s.handle("setoption hashsize 33554432").unwrap();
        assert_eq!(s.options().hash_mib, 8);
        assert_eq!(s.tt.len(), entries);
        s.quit();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        assert_eq!(
            out.lines().last(),
            Some("info message error bad-option-value hashsize 33554432"),
            "{out}"
        );
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

    #[test]
    fn wdl_sums_to_a_thousand() {
        for v in [-MATE + 3, -400, -150, 0, 20, 150, 900, MATE - 1] {
            let (w, d, l) = wdl(v);
            assert_eq!(w + d + l, 1000, "{v}");
        }
        let (w, _, l) = wdl(0);
        assert_eq!(w, l);
    }

    fn lines_without_search_info(out: &str) -> Vec<String> {
        out.lines()
            .filter(|l| !l.starts_with("info depth") && !l.starts_with("info time"))
            .map(str::to_owned)
            .collect()
    }

    /// `spec/engine-protocol.md` §1: the engine never walks into a repetition that loses.
    #[test]
    fn perpetual_check_is_not_completed() {
        let out = transcript(
            "position fen 4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1 moves a8a9 e9e8 a9a8 e8e9 a8a9 e9e8\ngo depth 4\n",
        );
        let last = out.lines().last().unwrap();
        assert!(last.starts_with("bestmove "), "{out}");
        assert_ne!(last.split_whitespace().nth(1), Some("a9a8"), "{out}");
    }

    fn strip_timing(out: &str) -> String {
        out.lines()
            .map(|l| {
                let t: Vec<&str> = l.split_whitespace().collect();
                let mut kept = Vec::new();
                let mut i = 0;
                while i < t.len() {
                    if t[i] == "time" || t[i] == "nps" {
                        i += 2;
                    } else {
                        kept.push(t[i]);
                        i += 1;
                    }
                }
                kept.join(" ") + "\n"
            })
            .collect()
    }

    /// §1: with one thread and a depth or nodes limit the output repeats exactly.
    #[test]
    fn fixed_depth_and_nodes_searches_repeat_exactly() {
        let script = "ucinewgame\nposition startpos moves h2e2 h9g7\ngo depth 6\ngo nodes 3000\n";
        let a = strip_timing(&transcript(script));
        let b = strip_timing(&transcript(script));
        assert_eq!(a, b);
        assert!(a.contains("info depth 6 seldepth"), "{a}");
        // The last pv line before each bestmove starts with the best move.
        let lines: Vec<&str> = a.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if let Some(m) = l.strip_prefix("bestmove ") {
                let m = m.split_whitespace().next().unwrap();
                let pv = lines[..i]
                    .iter()
                    .rev()
                    .find(|l| l.contains(" pv "))
                    .unwrap();
                assert_eq!(pv.split(" pv ").nth(1).unwrap().split(' ').next(), Some(m));
            }
        }
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
            2
        );
    }

    #[test]
    fn busy_isready_and_stop_while_searching() {
        let mut s = Session::new(Vec::new());
        s.handle("position startpos").unwrap();
        s.handle("go infinite").unwrap();
        s.handle("position startpos moves h2e2").unwrap();
        s.handle("setoption name Hash value 8").unwrap();
        s.handle("isready").unwrap();
        s.handle("stop").unwrap();
        s.handle("stop").unwrap();
        s.handle("position startpos moves h2e2").unwrap();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        let lines = lines_without_search_info(&out);
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!(lines[0], "info string error busy position");
        assert_eq!(lines[1], "info string error busy setoption");
        assert_eq!(lines[2], "readyok");
        assert!(lines[3].starts_with("bestmove "), "{out}");
        assert_eq!(
            s.position().to_string(),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
        );
        assert_eq!(s.options().hash_mib, 16);
    }

    #[test]
    fn ponder_then_ponderhit_ends_with_bestmove() {
        let mut s = Session::new(Vec::new());
        s.handle("go ponder movetime 30").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(60));
        assert!(s.is_searching(), "no bestmove while pondering");
        s.handle("ponderhit").unwrap();
        s.wait();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        assert!(
            out.lines().last().unwrap().starts_with("bestmove "),
            "{out}"
        );
    }

    #[test]
    fn go_errors_and_options() {
        let out = transcript(
            "go nodes 500 frobnicate\nsetoption name MultiPV value 3\nsetoption name UCI_ShowWDL value true\ngo depth 2\nsetoption name UCI_Variant value shogi\nsetoption name EvalFile value x\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "info string error bad-go frobnicate");
        let depth2: Vec<&&str> = lines
            .iter()
            .filter(|l| l.starts_with("info depth 2 ") && l.contains(" wdl "))
            .collect();
        assert_eq!(depth2.len(), 3, "{out}");
        for (k, l) in depth2.iter().enumerate() {
            assert!(l.contains(&format!(" multipv {} score cp ", k + 1)), "{l}");
            assert!(l.contains(" wdl "), "{l}");
        }
        assert_eq!(
            &lines[lines.len() - 2..],
            &[
                "info string error bad-option-value UCI_Variant shogi",
                "info string error unknown-option EvalFile"
            ]
        );
    }

    #[test]
    fn skill_level_zero_plays_a_legal_move_at_depth_one() {
        let out = transcript("setoption name Skill Level value 0\nposition startpos\ngo depth 8\n");
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines.iter().all(|l| !l.starts_with("info depth 2")),
            "{out}"
        );
        let m: Move = lines.last().unwrap()["bestmove ".len()..][..4]
            .parse()
            .unwrap();
        assert!(Position::start().is_legal(m));
    }

    #[test]
    fn ucci_session() {
        let mut s = Session::new(Vec::new());
        for l in [
            "ucci",
            "setoption usemillisec true",
            "setoption bogus 3",
            "setoption hashsize x",
            "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2 h9g7",
            "banmoves h0g2 z9z9",
            "stop",
            "go depth 0",
            "go depth 3",
        ] {
            s.handle(l).unwrap();
        }
        s.wait();
        s.handle("probe startpos moves h2e2 h9g7").unwrap();
        s.handle("position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b").unwrap();
        s.handle("go depth 3").unwrap();
        s.handle("quit").unwrap();
        let out = s.with_output(|o| String::from_utf8(o.clone()).unwrap());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("id name {}", crate::ENGINE_NAME));
        assert_eq!(lines[2], "option usemillisec type check default false");
        assert_eq!(lines[9], "ucciok");
        assert_eq!(lines[10], "info message error bad-option-value hashsize x");
        assert_eq!(lines[11], "info message error illegal-move z9z9");
        assert_eq!(lines[12], "nobestmove");
        assert_eq!(lines[13], "nobestmove");
        assert!(lines[14].starts_with("info depth 1 score "), "{out}");
        assert!(lines[15].starts_with("info time "), "{out}");
        let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        assert!(!best.starts_with("bestmove h0g2"), "{out}");
        let probe = lines.iter().find(|l| l.starts_with("pophash")).unwrap();
        assert!(probe.starts_with("pophash bestmove "), "{probe}");
        assert_eq!(&lines[lines.len() - 2..], &["nobestmove", "bye"]);
    }
}
