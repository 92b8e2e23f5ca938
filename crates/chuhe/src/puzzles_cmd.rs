//! `chuhe puzzles generate` (`spec/cli.md`, "Puzzles"): mines the games of a TSV file for
//! tactics puzzles with [`chuhe_engine::puzzle`], has a second engine (Fairy-Stockfish) verify
//! each one, and appends the puzzles kept to a TSV file, resumably (`docs/puzzles.md`).

use crate::cli::CliError;
use chuhe_engine::puzzle::{Costs, Miner, Rejection, Stage, Thresholds};
use chuhe_engine::search::{MATE, MATE_BOUND};
use chuhe_rules::xiangqi::{Move, Position};
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// The `puzzles` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum PuzzlesCommand {
    /// Mine the games for tactics puzzles, verify each with Fairy-Stockfish, and append them to
    /// the puzzles file. Resumable: the games finished are listed in OUT.progress, and a new run
    /// skips them (also after the process was killed). Prints a summary: games, candidates,
    /// puzzles kept, candidates rejected by chuhe and by the verifier, seconds per puzzle.
    Generate(GenerateArgs),
}

/// The arguments of `chuhe puzzles generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// The games: a TSV file in the layout of data/games.tsv (its id, start_fen and moves
    /// columns are read; no quoting).
    #[arg(long, default_value = "data/games.tsv", value_name = "PATH")]
    pub games: PathBuf,
    /// Mine the finished xiangqi games of a chuhe database instead of a games file: the URL
    /// `chuhe serve --database` takes (`sqlite://...`, read-only, beside a running server;
    /// `postgres://...`). The games are taken oldest first (by end time, then table id) and
    /// numbered from 1 in that order; a puzzle's `game_id` is its table's id. Resumable like a
    /// file: the games already mined (by id) are skipped, so a later run mines only the games
    /// finished since.
    #[arg(long, value_name = "URL", conflicts_with = "games")]
    pub database: Option<String>,
    /// The puzzles file (TSV): made with its header, or appended to. The games finished are
    /// recorded beside it, in the same name with `.progress` added.
    #[arg(long, default_value = "data/puzzles.tsv", value_name = "PATH")]
    pub out: PathBuf,
    /// Mining threads, each mining whole games with its own verifier process (default: all
    /// cores). The puzzles do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Mine at most N games, counted from --from-row (games finished by an earlier run count
    /// and are skipped).
    #[arg(long, value_name = "N")]
    pub limit_games: Option<usize>,
    /// The first game: data row N of the games file (1 = the row after the header).
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub from_row: u64,
    /// The verifying engine, Fairy-Stockfish: a path, or a name looked up on PATH and then in
    /// /usr/games and /usr/local/games.
    #[arg(long, default_value = "fairy-stockfish", value_name = "PATH")]
    pub verify: String,
    /// Nodes of each of the verifier's searches.
    #[arg(long, default_value_t = 500_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub verify_nodes: u64,
    /// Keep the puzzles without a second engine (they are marked `unverified`).
    #[arg(long)]
    pub no_verify: bool,
    /// Nodes of the scan of each position (measurement; default as docs/puzzles.md).
    #[arg(long, hide = true)]
    pub scan_nodes: Option<u64>,
    /// Nodes of the quick check of a candidate, 0 for none (measurement).
    #[arg(long, hide = true)]
    pub check_nodes: Option<u64>,
    /// Nodes of each deep search (measurement).
    #[arg(long, hide = true)]
    pub deep_nodes: Option<u64>,
    /// The winning score, centipawns (measurement; default as docs/puzzles.md).
    #[arg(long, hide = true)]
    pub win_cp: Option<i32>,
    /// The most the position before the mistake may be worth to the solver, centipawns
    /// (measurement).
    #[arg(long, hide = true)]
    pub before_cp: Option<i32>,
    /// Run with the rules of the puzzles mined before lichess's were added (measurement).
    #[arg(long, hide = true)]
    pub margins: bool,
    /// Run with lichess's generator's rules alone (measurement).
    #[arg(long, hide = true)]
    pub lichess: bool,
    /// Run with the first miner's settings (measurement; docs/puzzles.md).
    #[arg(long, hide = true)]
    pub first_miner: bool,
}

/// The puzzles file's header.
pub const HEADER: &str = "id\tfen\tlast_move\tsolution\tthemes\trating\tgame_id\trow\tply\t\
chuhe_best\tchuhe_second\tverifier\tverifier_best\tverifier_second";

/// The progress file's header.
pub const PROGRESS_HEADER: &str =
    "row\tgame_id\tcandidates\tkept\trejected_chuhe\trejected_verifier";

/// Fairy-Stockfish counts a horse as about 340 cp and a chariot as about 1,090 cp where chuhe
/// counts 660 and 1,543: its centipawns are multiplied by this before chuhe's thresholds apply.
pub const VERIFIER_CP_SCALE: i32 = 2;

/// Runs a `puzzles` subcommand.
pub fn run(command: PuzzlesCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        PuzzlesCommand::Generate(args) => generate(&args, out),
    }
}

/// One game of the games file.
#[derive(Debug, Clone)]
struct GameRow {
    row: u64,
    id: String,
    start: Result<Position, String>,
    moves: Result<Vec<Move>, String>,
}

/// Reads the games file: every data row, numbered from 1.
fn read_games(path: &Path) -> Result<Vec<GameRow>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let column = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            CliError::input(format!(
                "{}: no {name:?} column in the header (the layout of data/games.tsv)",
                path.display()
            ))
        })
    };
    let (id_col, fen_col, moves_col) = (column("id")?, column("start_fen")?, column("moves")?);
    let mut games = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |c: usize| fields.get(c).copied().unwrap_or("");
        let start = Position::from_fen(field(fen_col)).map_err(|e| e.to_string());
        let moves = field(moves_col)
            .split_whitespace()
            .map(|m| m.parse::<Move>().map_err(|_| format!("bad move {m:?}")))
            .collect();
        games.push(GameRow {
            row: i as u64 + 1,
            id: field(id_col).to_owned(),
            start,
            moves,
        });
    }
    Ok(games)
}

/// Reads the finished xiangqi games of the chuhe database at `url`, oldest first, numbered
/// from 1 (`--database`).
fn read_database(url: &str) -> Result<Vec<GameRow>, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let logs = runtime
        .block_on(chuhe_server::store::finished_game_logs(
            url,
            chuhe_server::variant::Variant::Xiangqi,
        ))
        .map_err(|e| match e {
            chuhe_server::store::StoreError::UnsupportedUrl(_) => CliError::input(e.to_string()),
            _ => CliError {
                message: format!("--database {url}: cannot read the finished games: {e}"),
                status: 1,
            },
        })?;
    Ok(logs
        .iter()
        .enumerate()
        .map(|(i, (id, events))| {
            let (fen, moves) = chuhe_server::table::pgn::xiangqi_line(events);
            GameRow {
                row: i as u64 + 1,
                id: id.clone(),
                start: match fen {
                    Some(fen) => Position::from_fen(&fen).map_err(|e| e.to_string()),
                    None => Ok(Position::start()),
                },
                moves: moves
                    .iter()
                    .map(|m| m.parse::<Move>().map_err(|_| format!("bad move {m:?}")))
                    .collect(),
            }
        })
        .collect())
}

/// Opens `path` for appending whole lines: made with `header` when absent; an unfinished last
/// line (a run killed while writing) is cut off. Returns the file and its data lines.
fn open_lines(path: &Path, header: &str) -> Result<(File, Vec<String>), CliError> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    if !text.is_empty() && !text.ends_with('\n') {
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        file.set_len(keep as u64)?;
        text.truncate(keep);
    }
    if text.is_empty() {
        file.write_all(format!("{header}\n").as_bytes())?;
        file.sync_data()?;
        return Ok((file, Vec::new()));
    }
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Err(CliError::input(format!(
            "{}: not a file this command wrote (its header differs)",
            path.display()
        )));
    }
    let data = lines.map(str::to_owned).collect();
    file.seek(SeekFrom::End(0))?;
    Ok((file, data))
}

/// Appends `text` to `file`, syncs it to disk and empties `text` (nothing when it is empty).
fn write_synced(file: &mut File, text: &mut String) -> Result<(), CliError> {
    if !text.is_empty() {
        file.write_all(text.as_bytes())?;
        file.sync_data()?;
        text.clear();
    }
    Ok(())
}

/// The progress file beside `out`.
fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// Finds the verifying engine: a path with a slash as given, else a name on PATH, in
/// /usr/games or in /usr/local/games.
fn find_engine(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([
            PathBuf::from("/usr/games"),
            PathBuf::from("/usr/local/games"),
        ])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A score as the puzzles file writes it: `cp N` or `mate N` (negative: the side is mated).
fn score_text(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score + 1) / 2)
    } else {
        format!("cp {score}")
    }
}

/// A move in Fairy-Stockfish's coordinates (ranks 1-10).
fn to_fsf(m: Move) -> String {
    let text = m.to_string();
    let b = text.as_bytes();
    format!(
        "{}{}{}{}",
        b[0] as char,
        (b[1] - b'0') + 1,
        b[2] as char,
        (b[3] - b'0') + 1
    )
}

/// A move from Fairy-Stockfish's coordinates (ranks 1-10), when it is one.
fn from_fsf(text: &str) -> Option<Move> {
    let b = text.as_bytes();
    let file = |c: u8| (b'a'..=b'i').contains(&c).then_some(c as char);
    let from_file = file(*b.first()?)?;
    let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
    let from_rank: u8 = text.get(1..1 + digits)?.parse().ok()?;
    let rest = &text[1 + digits..];
    let to_file = file(*rest.as_bytes().first()?)?;
    let to_rank: u8 = rest.get(1..)?.parse().ok()?;
    if !(1..=10).contains(&from_rank) || !(1..=10).contains(&to_rank) {
        return None;
    }
    format!("{from_file}{}{to_file}{}", from_rank - 1, to_rank - 1)
        .parse()
        .ok()
}

/// One line of the verifier's answer: its score (chuhe's scale, see [`VERIFIER_CP_SCALE`]),
/// the score as it printed it, and its first move.
#[derive(Debug, Clone)]
struct Line {
    score: i32,
    text: String,
    first: Option<Move>,
}

/// A Fairy-Stockfish process speaking UCI, set to xiangqi, one thread.
struct Referee {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

/// The verifier failed (it exited, or answered what it should not).
#[derive(Debug)]
struct RefereeError(String);

impl From<std::io::Error> for RefereeError {
    fn from(e: std::io::Error) -> Self {
        RefereeError(format!("verifier i/o error: {e}"))
    }
}

impl Referee {
    fn start(path: &Path) -> Result<Referee, RefereeError> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| RefereeError(format!("cannot start {}: {e}", path.display())))?;
        let input = child.stdin.take().ok_or(RefereeError("no stdin".into()))?;
        let output = BufReader::new(
            child
                .stdout
                .take()
                .ok_or(RefereeError("no stdout".into()))?,
        );
        let mut r = Referee {
            child,
            input,
            output,
        };
        r.send("uci")?;
        let mut variants = false;
        loop {
            let line = r.read_line()?;
            if line.starts_with("option name UCI_Variant") && line.contains(" xiangqi") {
                variants = true;
            }
            if line == "uciok" {
                break;
            }
        }
        if !variants {
            return Err(RefereeError(format!(
                "{} does not offer the xiangqi variant (is it Fairy-Stockfish?)",
                path.display()
            )));
        }
        r.send("setoption name UCI_Variant value xiangqi")?;
        r.send("setoption name Threads value 1")?;
        r.send("setoption name Hash value 16")?;
        Ok(r)
    }

    fn send(&mut self, line: &str) -> Result<(), RefereeError> {
        writeln!(self.input, "{line}")?;
        self.input.flush()?;
        Ok(())
    }

    fn read_line(&mut self) -> Result<String, RefereeError> {
        let mut line = String::new();
        if self.output.read_line(&mut line)? == 0 {
            return Err(RefereeError("the verifier exited".into()));
        }
        Ok(line.trim_end().to_owned())
    }

    /// Starts a new game: an empty hash table, so each answer depends on its position alone.
    fn new_game(&mut self) -> Result<(), RefereeError> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        while self.read_line()? != "readyok" {}
        Ok(())
    }

    /// The best `lines` lines of the position `fen` after `moves`, best first.
    fn lines(
        &mut self,
        fen: &str,
        moves: &[Move],
        nodes: u64,
        lines: usize,
    ) -> Result<Vec<Line>, RefereeError> {
        self.send(&format!("setoption name MultiPV value {lines}"))?;
        let mut position = format!("position fen {fen}");
        if !moves.is_empty() {
            position.push_str(" moves");
            for &m in moves {
                position.push(' ');
                position.push_str(&to_fsf(m));
            }
        }
        self.send(&position)?;
        self.send(&format!("go nodes {nodes}"))?;
        let mut found: Vec<Option<Line>> = vec![None; lines];
        loop {
            let line = self.read_line()?;
            if line.starts_with("bestmove") {
                break;
            }
            if let Some((k, l)) = parse_info(&line) {
                if (1..=lines).contains(&k) {
                    found[k - 1] = Some(l);
                }
            }
        }
        Ok(found.into_iter().flatten().collect())
    }
}

impl Drop for Referee {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// Reads an `info ... multipv K score ... pv M ...` line (bounds left out).
fn parse_info(line: &str) -> Option<(usize, Line)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    let at = |name: &str| words.iter().position(|w| *w == name);
    let k = at("multipv").map_or(Some(1), |i| words.get(i + 1)?.parse().ok())?;
    let s = at("score")?;
    let kind = *words.get(s + 1)?;
    let value: i32 = words.get(s + 2)?.parse().ok()?;
    if matches!(words.get(s + 3), Some(&"lowerbound") | Some(&"upperbound")) {
        return None;
    }
    let score = match kind {
        "cp" => (value * VERIFIER_CP_SCALE).clamp(-(MATE_BOUND - 1), MATE_BOUND - 1),
        "mate" if value > 0 => MATE - (2 * value - 1),
        "mate" => -(MATE - 2 * value.abs()),
        _ => return None,
    };
    let first = at("pv")
        .and_then(|i| words.get(i + 1))
        .and_then(|m| from_fsf(m));
    Some((
        k,
        Line {
            score,
            text: format!("{kind} {value}"),
            first,
        },
    ))
}

/// Why the verifier turned a puzzle down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Its best first move is another.
    OtherMove,
    /// Its best first move is the solution's but does not win by the thresholds.
    NotWinning,
    /// Its second-best first move is not clearly worse.
    NotUnique,
    /// A later solver move of the solution is not its choice.
    LaterMove,
}

const REFUSALS: [Refusal; 4] = [
    Refusal::OtherMove,
    Refusal::NotWinning,
    Refusal::NotUnique,
    Refusal::LaterMove,
];

impl Refusal {
    fn name(self) -> &'static str {
        match self {
            Refusal::OtherMove => "another first move",
            Refusal::NotWinning => "not winning",
            Refusal::NotUnique => "second move not clearly worse",
            Refusal::LaterMove => "another later move",
        }
    }
}

/// The verifier's scores of a puzzle's first move and of its second-best move.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict {
    best: String,
    second: String,
}

/// Has the verifier check the puzzle `solution` in `position` (`docs/puzzles.md`): its best
/// first move must be the solution's and unique by `t`, and it must choose each later solver
/// move of the solution.
fn verify(
    referee: &mut Referee,
    position: &Position,
    solution: &[Move],
    t: &Thresholds,
    nodes: u64,
) -> Result<Result<Verdict, Refusal>, RefereeError> {
    referee.new_game()?;
    let fen = position.to_string();
    let lines = referee.lines(&fen, &[], nodes, 2)?;
    let Some(best) = lines.first() else {
        return Ok(Err(Refusal::OtherMove));
    };
    if best.first != solution.first().copied() {
        return Ok(Err(Refusal::OtherMove));
    }
    let second = lines.get(1);
    if best.score < t.win_cp {
        return Ok(Err(Refusal::NotWinning));
    }
    if !t.is_unique(best.score, second.map(|l| l.score)) {
        return Ok(Err(Refusal::NotUnique));
    }
    for i in (2..solution.len()).step_by(2) {
        let later = referee.lines(&fen, &solution[..i], nodes, 1)?;
        if later.first().and_then(|l| l.first) != Some(solution[i]) {
            return Ok(Err(Refusal::LaterMove));
        }
    }
    Ok(Ok(Verdict {
        best: best.text.clone(),
        second: second.map_or(String::new(), |l| l.text.clone()),
    }))
}

/// What one game gave: its puzzle lines and its counts.
#[derive(Debug, Default)]
struct GameResult {
    lines: Vec<String>,
    candidates: usize,
    /// Rejections by chuhe, by stage then reason (indices of [`REJECTIONS`]).
    chuhe: [[usize; 6]; 2],
    verifier: [usize; 4],
    bad_record: bool,
}

const REJECTIONS: [Rejection; 6] = [
    Rejection::NotWinning,
    Rejection::NotUnique,
    Rejection::OnlyMove,
    Rejection::NoGain,
    Rejection::BadRecord,
    Rejection::InsideEarlier,
];

impl GameResult {
    /// Adds another game's counts (its puzzle lines are not kept).
    fn add(&mut self, r: &GameResult) {
        self.candidates += r.candidates;
        for s in 0..2 {
            for k in 0..REJECTIONS.len() {
                self.chuhe[s][k] += r.chuhe[s][k];
            }
        }
        for k in 0..REFUSALS.len() {
            self.verifier[k] += r.verifier[k];
        }
        self.bad_record |= r.bad_record;
    }

    fn rejected_chuhe(&self) -> usize {
        self.chuhe.iter().flatten().sum()
    }

    fn rejected_verifier(&self) -> usize {
        self.verifier.iter().sum()
    }
}

/// One mining thread: its miner and its verifier.
struct Worker {
    miner: Miner,
    referee: Option<Referee>,
    verify_micros: u64,
}

/// Mines one game.
fn mine(
    worker: &mut Worker,
    game: &GameRow,
    verifier: Option<(&Path, u64)>,
    existing: &HashSet<String>,
) -> Result<GameResult, RefereeError> {
    let mut result = GameResult::default();
    let (Ok(start), Ok(moves)) = (&game.start, &game.moves) else {
        result.bad_record = true;
        return Ok(result);
    };
    let mined = worker.miner.mine_game(start, moves);
    let t = worker.miner.thresholds().clone();
    for m in mined {
        result.candidates += 1;
        let puzzle = match m.outcome {
            Ok(p) => p,
            Err((stage, why)) => {
                let s = usize::from(stage == Stage::Examine);
                let r = REJECTIONS.iter().position(|x| *x == why).unwrap_or(0);
                result.chuhe[s][r] += 1;
                continue;
            }
        };
        let verdict = match verifier {
            None => None,
            Some((path, nodes)) => {
                if worker.referee.is_none() {
                    worker.referee = Some(Referee::start(path)?);
                }
                let Some(referee) = worker.referee.as_mut() else {
                    continue;
                };
                let timer = Instant::now();
                let v = verify(referee, &puzzle.position, &puzzle.solution, &t, nodes)?;
                worker.verify_micros += timer.elapsed().as_micros() as u64;
                match v {
                    Ok(v) => Some(v),
                    Err(why) => {
                        let r = REFUSALS.iter().position(|x| *x == why).unwrap_or(0);
                        result.verifier[r] += 1;
                        continue;
                    }
                }
            }
        };
        let id = format!("{}-{}", game.id, m.candidate.ply);
        if existing.contains(&id) {
            continue;
        }
        let join = |moves: &[Move]| {
            moves
                .iter()
                .map(Move::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let themes: Vec<&str> = puzzle.themes.iter().map(|t| t.key()).collect();
        let (engine, best, second) = match &verdict {
            Some(v) => ("fairy-stockfish", v.best.as_str(), v.second.as_str()),
            None => ("unverified", "", ""),
        };
        result.lines.push(format!(
            "{id}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{engine}\t{best}\t{second}",
            puzzle.before,
            puzzle.last_move,
            join(&puzzle.solution),
            themes.join(" "),
            puzzle.rating(),
            game.id,
            game.row,
            m.candidate.ply,
            score_text(puzzle.score),
            puzzle.second.map_or(String::new(), score_text),
        ));
    }
    Ok(result)
}

/// `chuhe puzzles generate`.
fn generate(args: &GenerateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let timer = Instant::now();
    let verifier = if args.no_verify {
        None
    } else {
        Some(find_engine(&args.verify).ok_or_else(|| {
            CliError::input(format!(
                "verifier {:?} not found (looked on PATH, in /usr/games and /usr/local/games): \
                 install Fairy-Stockfish (scripts/setup) or name it with --verify PATH; \
                 --no-verify keeps the puzzles unverified",
                args.verify
            ))
        })?)
    };
    let mut thresholds = if args.first_miner {
        Thresholds::first()
    } else {
        Thresholds::default()
    };
    if args.margins {
        thresholds = Thresholds::margins();
    }
    if args.lichess {
        thresholds = Thresholds::lichess();
    }
    if let Some(n) = args.scan_nodes {
        thresholds.scan_nodes = n;
    }
    if let Some(n) = args.check_nodes {
        thresholds.check_nodes = n;
    }
    if let Some(n) = args.win_cp {
        thresholds.win_cp = n;
    }
    if let Some(n) = args.before_cp {
        thresholds.before_cp = n;
    }
    if let Some(n) = args.deep_nodes {
        thresholds.deep_nodes = n;
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let games = match &args.database {
        Some(url) => read_database(url)?,
        None => read_games(&args.games)?,
    };
    let (mut puzzles_file, puzzle_lines) = open_lines(&args.out, HEADER)?;
    let (mut progress_file, progress_lines) =
        open_lines(&progress_path(&args.out), PROGRESS_HEADER)?;
    let existing: HashSet<String> = puzzle_lines
        .iter()
        .filter_map(|l| l.split('\t').next())
        .map(str::to_owned)
        .collect();
    // The games finished before, by id (the progress file's second column): a database's
    // numbering moves when games are added, its ids do not.
    let done: HashSet<&str> = progress_lines
        .iter()
        .filter_map(|l| l.split('\t').nth(1))
        .collect();
    let first = usize::try_from(args.from_row - 1).unwrap_or(usize::MAX);
    let chosen: Vec<&GameRow> = games
        .iter()
        .skip(first)
        .take(args.limit_games.unwrap_or(usize::MAX))
        .collect();
    let todo: Vec<&GameRow> = chosen
        .iter()
        .copied()
        .filter(|g| !done.contains(g.id.as_str()))
        .collect();

    let mut workers = Vec::with_capacity(threads);
    for _ in 0..threads {
        workers.push(Worker {
            miner: Miner::new(thresholds.clone()).map_err(|e| CliError {
                message: e,
                status: 1,
            })?,
            referee: None,
            verify_micros: 0,
        });
    }
    let verifier_arg = verifier.as_deref().map(|p| (p, args.verify_nodes));
    let mut total = GameResult::default();
    let mut kept = 0usize;
    // Each worker takes the next game as soon as it is free; the results come back in any
    // order and are written in the order of the games file (a reorder buffer), so the files
    // do not depend on --threads. A run killed with results still buffered mines those games
    // again.
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, results) = mpsc::channel::<(usize, Result<GameResult, RefereeError>)>();
    let written: Result<(), CliError> = std::thread::scope(|scope| {
        for worker in workers.iter_mut() {
            let (next, stop, todo, existing) = (&next, &stop, &todo, &existing);
            let sender = sender.clone();
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(game) = todo.get(i) else {
                        break;
                    };
                    let r = mine(worker, game, verifier_arg, existing);
                    let failed = r.is_err();
                    if sender.send((i, r)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting: BTreeMap<usize, GameResult> = BTreeMap::new();
        let mut next_out = 0usize;
        let mut last_sync = Instant::now();
        let (mut text, mut progress) = (String::new(), String::new());
        for (i, r) in results {
            let r = match r {
                Ok(r) => r,
                Err(RefereeError(e)) => {
                    stop.store(true, Ordering::Relaxed);
                    let game = todo[i];
                    return Err(CliError {
                        message: format!("game {} (row {}): {e}", game.id, game.row),
                        status: 1,
                    });
                }
            };
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&next_out) {
                let game = todo[next_out];
                next_out += 1;
                for line in &r.lines {
                    text.push_str(line);
                    text.push('\n');
                }
                progress.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\n",
                    game.row,
                    game.id,
                    r.candidates,
                    r.lines.len(),
                    r.rejected_chuhe(),
                    r.rejected_verifier()
                ));
                kept += r.lines.len();
                total.add(&r);
            }
            // Written at most every 2 s and at the end: the puzzles first, then the games
            // they came from, so a run killed in between mines those games again and leaves
            // out the puzzles already written.
            if last_sync.elapsed().as_secs() >= 2 || next_out == todo.len() {
                write_synced(&mut puzzles_file, &mut text)?;
                write_synced(&mut progress_file, &mut progress)?;
                last_sync = Instant::now();
            }
        }
        write_synced(&mut puzzles_file, &mut text)?;
        write_synced(&mut progress_file, &mut progress)?;
        Ok(())
    });
    written?;

    let seconds = timer.elapsed().as_secs_f64();
    let mut costs = Costs::default();
    let mut verify_micros = 0;
    for w in &workers {
        costs.add(w.miner.costs());
        verify_micros += w.verify_micros;
    }
    let stage_line = |s: usize| {
        REJECTIONS
            .iter()
            .zip(total.chuhe[s])
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| format!("{n} {r}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rejected_chuhe = total.rejected_chuhe();
    let rejected_verifier = total.rejected_verifier();
    writeln!(
        out,
        "games: {} ({} mined now, {} finished before)",
        chosen.len(),
        todo.len(),
        chosen.len() - todo.len()
    )?;
    writeln!(out, "candidates: {}", total.candidates)?;
    writeln!(out, "kept: {kept}")?;
    writeln!(
        out,
        "rejected by chuhe: {rejected_chuhe} (quick check: [{}]; deep examination: [{}])",
        stage_line(0),
        stage_line(1)
    )?;
    let refusals = REFUSALS
        .iter()
        .zip(total.verifier)
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{n} {}", r.name()))
        .collect::<Vec<_>>()
        .join(", ");
    match &verifier {
        Some(_) => writeln!(
            out,
            "rejected by fairy-stockfish: {rejected_verifier} ([{refusals}])"
        )?,
        None => writeln!(out, "rejected by fairy-stockfish: not run (--no-verify)")?,
    }
    let per = if kept > 0 {
        format!("{:.1}", seconds / kept as f64)
    } else {
        "-".to_owned()
    };
    writeln!(
        out,
        "seconds: {seconds:.1}, seconds per puzzle: {per}, threads: {threads}"
    )?;
    let cost = |name: &str, c: chuhe_engine::puzzle::Cost| {
        format!(
            "{name} {} searches, {} nodes, {:.1} s",
            c.searches,
            c.nodes,
            c.micros as f64 / 1e6
        )
    };
    writeln!(
        out,
        "costs: {}; {}; {}; table clearing {:.1} s; verifier {:.1} s",
        cost("scan", costs.scan),
        cost("check", costs.check),
        cost("examine", costs.examine),
        costs.clear_micros as f64 / 1e6,
        verify_micros as f64 / 1e6
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn referee() -> Referee {
        let path = find_engine("fairy-stockfish").expect(
            "this test needs fairy-stockfish (on PATH or in /usr/games): run scripts/setup",
        );
        Referee::start(&path).expect("fairy-stockfish starts")
    }

    fn check(fen: &str, solution: &str) -> Result<Verdict, Refusal> {
        let position = Position::from_fen(fen).unwrap();
        let solution: Vec<Move> = solution
            .split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect();
        verify(
            &mut referee(),
            &position,
            &solution,
            &Thresholds::default(),
            500_000,
        )
        .unwrap()
    }

    /// Puzzle ccpd-008087-23 (game ccpd-008087, a master game): after Red's Chariot a1-b1,
    /// Black's Chariot d9-d0 mates at once and no other move does. Fairy-Stockfish agrees, and
    /// refuses a claimed solution that starts with another move.
    #[test]
    fn fairy_stockfish_confirms_a_known_mate_in_one() {
        let fen = "3rkab1r/4a4/2n1b4/p1N1p3p/6p2/2P5P/P3c1P2/2C1B2C1/R3A4/1cBAK3R w - - 2 12";
        let mut position = Position::from_fen(fen).unwrap();
        position.play("a1b1".parse().unwrap()).unwrap();
        let verdict = check(&position.to_string(), "d9d0").unwrap();
        assert_eq!(verdict.best, "mate 1");
        assert!(verdict.second.starts_with("cp "), "{}", verdict.second);
        assert_eq!(
            check(&position.to_string(), "a6a5"),
            Err(Refusal::OtherMove)
        );
    }

    /// `data/positions.tsv` pos-0001: two Horse moves mate at once (e7c8, Fairy-Stockfish's
    /// choice, and e7g8), so its second move is as good as its first.
    #[test]
    fn fairy_stockfish_refuses_two_mates_in_one() {
        let fen = "3aka3/9/4N1n2/p3cr2p/4C4/9/P7P/4B4/4A4/2BAK4 w - - 1 37";
        assert_eq!(check(fen, "e7c8"), Err(Refusal::NotUnique));
    }

    #[test]
    fn moves_convert_to_and_from_fairy_stockfish_ranks() {
        let m: Move = "b0b9".parse().unwrap();
        assert_eq!(to_fsf(m), "b1b10");
        assert_eq!(from_fsf("b1b10"), Some(m));
        assert_eq!(from_fsf("e8c9"), Some("e7c8".parse().unwrap()));
        assert_eq!(from_fsf("e0c9"), None);
        assert_eq!(from_fsf("x1"), None);
    }

    #[test]
    fn info_lines_read_scores_on_chuhe_scale() {
        let (k, l) =
            parse_info("info depth 12 multipv 2 score cp -37 nodes 5 pv h3e3 h10g8").unwrap();
        assert_eq!((k, l.score, l.text.as_str()), (2, -74, "cp -37"));
        assert_eq!(l.first, Some("h2e2".parse().unwrap()));
        let (_, l) = parse_info("info depth 3 score mate 2 pv e8c9").unwrap();
        assert_eq!(l.score, MATE - 3);
        assert!(parse_info("info depth 3 score cp 10 lowerbound pv e8c9").is_none());
        assert_eq!(score_text(MATE - 3), "mate 2");
        assert_eq!(score_text(-(MATE - 2)), "mate -1");
        assert_eq!(score_text(120), "cp 120");
    }
}
