//! The wire: reading commands in the two dialects and writing the replies
//! (`spec/engine-protocol.md` §2, §4–§7).
//!
//! UCI (Pikafish's dialect) is the default; UCCI 3.0 when the first command is `ucci`. This
//! module turns command lines into calls on the session (`position`, `go` and its limits,
//! `banmoves`, `probe`, `d`, `eval`, `flip`, `bench`, `go perft`) and formats what the engine
//! answers: identification, `info` lines (centipawns and `mate n` in UCI; UCCI's ±(10000 −
//! plies) scores), `bestmove` with UCCI's `draw` and `resign`, and `pophash`. Options are in
//! [`super::options`], the search thread in [`super::threads`].

use super::dialect::Dialect;
use super::{options, Flow, Session};
use crate::search::{CurrMove, Info, Limits, Score, MATE, MATE_BOUND};
use crate::tt::Bound;
use chuhe_rules::xiangqi::{perft_divide, Color, Move, Piece, Position, Square};
use std::io::{self, Write};
use std::sync::Mutex;

/// Where every line goes: shared by the session and its search thread. Every line is written
/// whole under the lock and flushed at once.
pub(super) struct Sink<W: Write> {
    /// The output, behind its lock.
    pub(super) out: Mutex<W>,
}

impl<W: Write> Sink<W> {
    /// Writes `text` and a newline, and flushes.
    pub(super) fn line(&self, text: &str) -> io::Result<()> {
        let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
        o.write_all(text.as_bytes())?;
        o.write_all(b"\n")?;
        o.flush()
    }
}

impl<W: Write + Send + 'static> Session<W> {
    /// One UCI command.
    pub(super) fn handle_uci(&mut self, cmd: &str, args: &[&str]) -> io::Result<Flow> {
        match cmd {
            "uci" => self.cmd_id()?,
            "isready" => self.line("readyok")?,
            "ucinewgame" => self.new_game(),
            "position" => self.cmd_position(args)?,
            "fen" => self.cmd_xboard_fen(args)?,
            "setoption" => self.cmd_setoption(args)?,
            "go" => self.cmd_go(args)?,
            "stop" => self.stop(),
            "ponderhit" => self.ponderhit(false),
            "d" => self.cmd_d()?,
            "bench" => self.cmd_bench(args)?,
            "eval" => self.cmd_eval()?,
            "flip" => self.cmd_flip()?,
            "quit" => {
                self.quit();
                return Ok(Flow::Quit);
            }
            other => self.error("unknown-command", other)?,
        }
        Ok(Flow::Continue)
    }

    /// One UCCI command.
    pub(super) fn handle_ucci(&mut self, cmd: &str, args: &[&str]) -> io::Result<Flow> {
        match cmd {
            "ucci" => self.cmd_id()?,
            "isready" => self.line("readyok")?,
            "position" => {
                self.cmd_position(args)?;
            }
            "fen" => self.cmd_xboard_fen(args)?,
            "banmoves" => self.cmd_banmoves(args)?,
            "setoption" => self.cmd_setoption(args)?,
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
            "bench" => self.cmd_bench(args)?,
            "eval" => self.cmd_eval()?,
            "flip" => self.cmd_flip()?,
            "quit" => {
                self.quit();
                self.line("bye")?;
                return Ok(Flow::Quit);
            }
            other => self.error("unknown-command", other)?,
        }
        Ok(Flow::Continue)
    }

    /// `uci` or `ucci`: identification, the options of [`options::OPTIONS`], `uciok`/`ucciok`.
    fn cmd_id(&mut self) -> io::Result<()> {
        self.line(&format!("id name {}", crate::ENGINE_NAME))?;
        self.line(&format!("id author {}", crate::ENGINE_AUTHOR))?;
        for l in options::announce(self.dialect) {
            self.line(&l)?;
        }
        self.line(match self.dialect {
            Dialect::Uci => "uciok",
            Dialect::Ucci => "ucciok",
        })
    }

    /// Parses `startpos | fen <fields>` and `moves …` into a start, its moves and the result.
    pub(super) fn parse_position(
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
            Some((&"fen", fields)) => match Position::from_fen(&xboard_fen(fields)) {
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

    /// `position startpos | fen <fields> [moves …]`. A refused command leaves no valid position
    /// (issue 27: searching the previous board answers a move that may be illegal in the
    /// position the GUI meant): until the next valid `position`, `go` answers no move.
    fn cmd_position(&mut self, args: &[&str]) -> io::Result<()> {
        self.banmoves.clear();
        match self.parse_position(args) {
            Ok((start, moves, pos)) => {
                self.start = start;
                self.moves = moves;
                self.position = pos;
                self.refused = None;
                Ok(())
            }
            Err((code, detail)) => {
                self.refused = Some(if detail.is_empty() {
                    code.clone()
                } else {
                    format!("{code} {detail}")
                });
                self.error(&code, &detail)
            }
        }
    }

    /// `fen <FEN fields> [moves …]`, the line XBoard's adapter `uci2wb` sends for a position
    /// (without the word `position`): the same as `position fen <FEN fields> [moves …]`.
    fn cmd_xboard_fen(&mut self, args: &[&str]) -> io::Result<()> {
        let mut full = Vec::with_capacity(args.len() + 1);
        full.push("fen");
        full.extend_from_slice(args);
        self.cmd_position(&full)
    }

    /// UCCI `banmoves …`: moves the next `go` must not play (until the next `position`).
    fn cmd_banmoves(&mut self, args: &[&str]) -> io::Result<()> {
        if self.reports_no_position()? {
            return Ok(());
        }
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

    /// `go perft <depth>`: the count per root move, then `Nodes searched: N`.
    fn go_perft(&mut self, depth: u32) -> io::Result<()> {
        if self.reports_no_position()? {
            self.line("")?;
            self.line("Nodes searched: 0")?;
            return self.line("");
        }
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

    /// UCI `go …` (times in milliseconds). Without a valid position (after a refused
    /// `position`): `info string error no-position …` and `bestmove (none)`.
    fn cmd_go(&mut self, args: &[&str]) -> io::Result<()> {
        if let Some(r) = self.try_perft(args) {
            return r;
        }
        if self.reports_no_position()? {
            return self.line("bestmove (none)");
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

    /// UCCI `go …` (times in seconds, or milliseconds after `usemillisec`; the side to move
    /// owns `time`, the other `opptime`).
    fn cmd_ucci_go(&mut self, args: &[&str]) -> io::Result<()> {
        if let Some(r) = self.try_perft(args) {
            return r;
        }
        if self.reports_no_position()? {
            return self.line("nobestmove");
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
                    let ms = self.options.use_millisec;
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

    /// UCCI `probe <position>`: the table's entry as `pophash …`.
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

    /// `bench [depth]`: `chuhe bench` inside the session (its own 16 MiB table, one thread, the
    /// session's position and table untouched): the lines of [`crate::bench::run`] to the
    /// session's output, Pikafish's summary (`Nodes searched  : N`, …) last.
    fn cmd_bench(&mut self, args: &[&str]) -> io::Result<()> {
        let depth = match args {
            [] => crate::bench::DEFAULT_DEPTH,
            [d] => match d.parse::<i32>() {
                Ok(d) if (1..=60).contains(&d) => d,
                _ => return self.error("bad-bench", d),
            },
            _ => return self.error("bad-bench", &args.join(" ")),
        };
        let mut out = Vec::new();
        let mut summary = Vec::new();
        crate::bench::run(depth, &mut out, &mut summary)?;
        let mut text = String::from_utf8_lossy(&out).into_owned();
        text.push_str(&String::from_utf8_lossy(&summary));
        for l in text.lines() {
            self.line(l)?;
        }
        Ok(())
    }

    /// `d`: the board as Pikafish draws it (Black at the top, ranks 9 … 0 at the right, files
    /// a … i below), then `Fen: <FEN>`, `Key: <16 hex digits>`, `Checkers: <points>`.
    fn cmd_d(&mut self) -> io::Result<()> {
        if self.reports_no_position()? {
            return Ok(());
        }
        self.line(&board_text(&self.position))
    }

    /// `eval`: the static evaluation (the search's, tempo bonus included) in soldiers from Red's
    /// view, as Pikafish's last `eval` line: `Final evaluation       +0.35 (red side)`.
    fn cmd_eval(&mut self) -> io::Result<()> {
        if self.reports_no_position()? {
            return Ok(());
        }
        let stm = crate::eval::evaluate(&self.position);
        let red = if self.position.side_to_move() == Color::Red {
            stm
        } else {
            -stm
        };
        self.line(&eval_line(red))
    }

    /// `flip`: the position with colours swapped — each Red piece becomes the Black piece of the
    /// same kind on the point mirrored across the river, and the other way round — and the other
    /// side to move; counters are kept and the move history starts again from it. Prints nothing.
    fn cmd_flip(&mut self) -> io::Result<()> {
        if self.reports_no_position()? {
            return Ok(());
        }
        let flipped = flip(&self.position);
        self.start = flipped.clone();
        self.moves.clear();
        self.position = flipped;
        self.banmoves.clear();
        Ok(())
    }
}

/// The text of `d`: an empty line, the board in a grid (Black at the top, each rank's number at
/// its right, the files below), an empty line, then `Fen:`, `Key:` and `Checkers:` lines (the
/// last with a space after each point, as Pikafish prints it). No final newline.
pub(super) fn board_text(pos: &Position) -> String {
    let rule = " +---+---+---+---+---+---+---+---+---+\n";
    let mut t = String::from("\n");
    t.push_str(rule);
    for rank in (0..10).rev() {
        for file in 0..9 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            t.push_str(" | ");
            t.push(pos.piece_at(sq).map_or(' ', |p| p.fen_char()));
        }
        t.push_str(&format!(" | {rank}\n"));
        t.push_str(rule);
    }
    t.push_str("   a   b   c   d   e   f   g   h   i\n\n");
    t.push_str(&format!("Fen: {pos}\nKey: {:016X}\nCheckers: ", pos.key()));
    for sq in pos.checkers() {
        t.push_str(&format!("{sq} "));
    }
    t
}

/// `Final evaluation       +0.35 (red side)` for `red_cp` centipawns from Red's view.
pub(super) fn eval_line(red_cp: i32) -> String {
    let sign = if red_cp < 0 { '-' } else { '+' };
    let a = red_cp.unsigned_abs();
    format!(
        "Final evaluation       {sign}{}.{:02} (red side)",
        a / 100,
        a % 100
    )
}

/// `pos` with colours swapped: every piece changes colour and moves to the point mirrored across
/// the river (rank r to 9 − r, same file), and the other side moves. Counters are kept.
pub(super) fn flip(pos: &Position) -> Position {
    let mut setup = pos.to_setup();
    let mut board = [None; 90];
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            board[sq.mirror_rank().index()] = Some(Piece::new(p.color.other(), p.kind));
        }
    }
    setup.board = board;
    setup.side = pos.side_to_move().other();
    Position::from_setup(setup).expect("the flip of a valid position is valid")
}

/// The FEN text of `fields`; XBoard's adapter `uci2wb` leaves out the two `-` fields (`<placement>
/// b 0 1`), which are put back so that the FEN reads as the standard one.
fn xboard_fen(fields: &[&str]) -> String {
    let numeric = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match fields {
        [placement, side, half, full] if numeric(half) && numeric(full) => {
            format!("{placement} {side} - - {half} {full}")
        }
        _ => fields.join(" "),
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

/// The `info` lines of one search report: UCI's one line (with `wdl` when `show_wdl`), or UCCI's
/// two (`info depth … score … pv …` and `info time … nodes …`).
pub(super) fn info_lines(dialect: Dialect, show_wdl: bool, info: &Info) -> Vec<String> {
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    if dialect == Dialect::Ucci {
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
    let wdl_text = if show_wdl {
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

/// The line for the root move being searched: UCI `info depth D currmove M currmovenumber N`
/// (Stockfish's form), UCCI `info currmove M currmovenumber N`.
pub(super) fn currmove_line(dialect: Dialect, c: &CurrMove) -> String {
    match dialect {
        Dialect::Uci => format!(
            "info depth {} currmove {} currmovenumber {}",
            c.depth, c.mv, c.number
        ),
        Dialect::Ucci => format!("info currmove {} currmovenumber {}", c.mv, c.number),
    }
}

/// The `bestmove` line: `bestmove M [ponder P]`, in UCCI with ` draw` when a draw was offered and
/// the score is not above 0, or ` resign` when the engine is mated; `bestmove (none)` (UCCI:
/// `nobestmove`) without a move. `score` is the internal score of the move played.
pub(super) fn bestmove_line(
    dialect: Dialect,
    best: Option<Move>,
    ponder: Option<Move>,
    draw_offered: bool,
    score: i32,
) -> String {
    let ucci = dialect == Dialect::Ucci;
    match best {
        None if ucci => "nobestmove".to_owned(),
        None => "bestmove (none)".to_owned(),
        Some(m) => {
            let mut t = format!("bestmove {m}");
            if let Some(p) = ponder {
                t.push_str(&format!(" ponder {p}"));
            }
            if ucci {
                if draw_offered && score <= 0 {
                    t.push_str(" draw");
                } else if score <= -MATE_BOUND {
                    t.push_str(" resign");
                }
            }
            t
        }
    }
}
