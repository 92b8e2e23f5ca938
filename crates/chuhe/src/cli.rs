//! Subcommands and their arguments (`spec/cli.md`), and the error every command returns.

use clap::builder::TypedValueParser as _;
use clap::{Parser, Subcommand};
use std::fmt;
use std::io::Write;

/// chuhe: play xiangqi, Three Kingdoms xiangqi (sanguo) and banqi. With no subcommand it runs the
/// UCI engine on standard input and output.
#[derive(Debug, Parser)]
#[command(name = "chuhe", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

pub use chuhe_rules::Variant;

/// Reads `--variant`: one of the names of [`Variant`], listed in `--help`.
fn variant_parser() -> impl clap::builder::TypedValueParser<Value = Variant> {
    clap::builder::PossibleValuesParser::new(Variant::ALL.map(Variant::as_str))
        .try_map(|name| name.parse::<Variant>())
}

/// What every rules command takes: the game, the position text and the table options.
#[derive(Debug, Clone, clap::Args)]
pub struct RuleArgs {
    /// The game.
    #[arg(long, value_parser = variant_parser(), default_value = "xiangqi")]
    pub variant: Variant,
    /// The position text (xiangqi: FEN); the variant's start position when absent.
    #[arg(long)]
    pub fen: Option<String>,
    /// Table options as KEY=VALUE pairs separated by commas, e.g. `no_capture_limit=60`.
    #[arg(long)]
    pub options: Option<String>,
}

/// The subcommands of `chuhe token`.
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a personal API token for an account, making the account (a bot with --bot) when
    /// it does not exist; prints the token alone on the last line. Works while chuhe serve
    /// runs on the database.
    Create(crate::token_cmd::TokenCreateArgs),
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every legal move of the player to move, one per line, sorted bytewise.
    Moves {
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Count the leaves of the legal-move tree (xiangqi and sanguo).
    Perft {
        #[command(flatten)]
        rules: RuleArgs,
        /// Depth in plies, at least 1.
        #[arg(long)]
        depth: u32,
        /// Also print the count under each root move.
        #[arg(long)]
        divide: bool,
        /// Play every leaf move instead of counting the last ply (slower; for measurements).
        #[arg(long)]
        no_bulk: bool,
    },
    /// Play moves from a position applying every end-of-game rule, and print the final state.
    Replay {
        #[command(flatten)]
        rules: RuleArgs,
        /// The moves, separated by spaces, e.g. "h2e2 h9g7".
        #[arg(long, default_value = "")]
        moves: String,
        /// Print one JSON object (variant, fen, ply, status, result, winners, reason).
        #[arg(long)]
        json: bool,
    },
    /// Run the xiangqi engine speaking UCI (or UCCI) on standard input and output.
    Uci,
    /// Tactics puzzles mined from game records: `chuhe puzzles generate` (docs/puzzles.md).
    Puzzles {
        #[command(subcommand)]
        action: crate::puzzles_cmd::PuzzlesCommand,
    },
    /// Check and convert game records (PGN, DhtmlXQ, the TSV layout of data/games.tsv).
    Records {
        #[command(subcommand)]
        action: crate::records_cmd::RecordsCommand,
    },
    /// Search fixed positions to a fixed depth; the last line is `NODES nodes, NPS nps`
    /// (Pikafish's `Nodes searched  : N` summary goes to standard error).
    Bench {
        /// Depth in plies (default 9).
        #[arg(long, default_value_t = chuhe_engine::bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=60))]
        depth: i32,
    },
    /// Run a computer player (xiangqi, sanguo or banqi) over a line protocol on standard input
    /// and output: position, go level|movetime|nodes, isready, quit (docs/players.md).
    Play {
        /// The game.
        #[arg(long, value_parser = variant_parser(), default_value = "xiangqi")]
        variant: Variant,
        /// Table options as KEY=VALUE pairs: sanguo `flag_bearers=on|off` (the start position).
        #[arg(long)]
        options: Option<String>,
        /// Varies the choices of levels below 8; the same seed gives the same answers.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Play computer players against each other with seats rotated and print the first
    /// player's wins, shared wins, draws and losses (docs/players.md, strength figures).
    #[command(hide = true)]
    Match {
        /// The game.
        #[arg(long, value_parser = variant_parser(), default_value = "banqi")]
        variant: Variant,
        /// The measured player: greedy or a level 1-8.
        #[arg(long)]
        a: String,
        /// Its opponent (sanguo: both rivals): greedy or a level 1-8.
        #[arg(long)]
        b: String,
        /// Games to play.
        #[arg(long, default_value_t = 200)]
        games: u32,
        /// Multiplies every level's node budget (short budgets for quick figures).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Seed of the first game (game i uses seed + i).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Table options: sanguo `flag_bearers=on|off`.
        #[arg(long)]
        options: Option<String>,
    },
    /// Run the game server (HTTP and WebSocket; see docs/protocol.md) until SIGINT or SIGTERM.
    Serve {
        /// Configuration file (TOML) whose keys are this command's long flags without the
        /// dashes in front (`bind = "127.0.0.1:8080"`, `db-timeout-ms = 5000`); a flag or an
        /// environment variable beats the file (docs/operations.md).
        #[arg(long, env = "CHUHE_CONFIG", value_name = "FILE")]
        config: Option<std::path::PathBuf>,
        /// Print the configuration in effect (flags, environment, file, defaults) as TOML, with
        /// the credentials of URLs shown as ***, and exit.
        #[arg(long)]
        print_config: bool,
        /// Address to listen on.
        #[arg(long, env = "CHUHE_BIND", default_value = "127.0.0.1:8080")]
        bind: String,
        /// Database URL: sqlite://FILE or postgres://...
        #[arg(long, env = "CHUHE_DATABASE", default_value = "sqlite://chuhe.db")]
        database: String,
        /// Behind a reverse proxy on this machine: rate-limit a request that comes from a
        /// loopback address by the client address the proxy appended to X-Forwarded-For.
        /// Off by default (the header is ignored and the peer address counts).
        #[arg(long, env = "CHUHE_TRUST_FORWARDED_FOR")]
        trust_forwarded_for: bool,
        /// An origin besides the site's own (its Host) whose pages may act for a player, as a
        /// browser writes it: https://host[:port]. Repeat the flag, or separate with commas in
        /// CHUHE_ALLOWED_ORIGINS. Requests from other sites' pages are refused (403 forbidden).
        #[arg(
            long = "allowed-origin",
            env = "CHUHE_ALLOWED_ORIGINS",
            value_delimiter = ','
        )]
        allowed_origins: Vec<String>,
        /// Computer searches that run at once, each on its own thread (1 to 256); more computer
        /// turns wait in line. About the number of cores the server may spend on computers.
        #[arg(long, env = "CHUHE_COMPUTER_THREADS", default_value_t = 2,
              value_parser = clap::value_parser!(u16).range(1..=256))]
        computer_threads: u16,
        #[command(flatten)]
        ops: crate::serve_cmd::Operations,
        #[command(flatten)]
        limits: crate::serve_cmd::Limits,
        // Boxed: the cluster's flags are most of the subcommand's size.
        #[command(flatten)]
        cluster: Box<crate::serve_cmd::ClusterArgs>,
    },
    /// Copy a SQLite database to a new file, also while chuhe serve runs on it.
    ///
    /// A consistent copy (SQLite's VACUUM INTO); an existing file is never overwritten. For
    /// PostgreSQL it prints the pg_dump command to run instead and exits with status 2.
    /// Restore: stop the server, put the copy in the database's place, start it.
    Backup {
        #[command(flatten)]
        args: crate::backup_cmd::BackupArgs,
    },
    /// Personal API tokens: `chuhe token create` (docs/bots.md).
    Token {
        #[command(subcommand)]
        action: TokenCommand,
    },
    /// Run a UCI engine as a bot account of a chuhe server, as lichess-bot does: accept
    /// xiangqi challenges, play each game with the engine, post its moves (docs/bots.md).
    Bot {
        #[command(flatten)]
        args: crate::bot_cmd::BotArgs,
    },
    /// Play many games at once against a running chuhe serve and report moves/s, latencies,
    /// errors and memory; every acknowledged move is then checked in the store (docs/performance.md).
    Loadtest {
        /// The server's base URL; give it several times for the nodes of a cluster (seat i of
        /// game g connects through URL (g + i) mod N; the table is created through seat 0's).
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: Vec<String>,
        /// Games played at the same time (each game: one guest and one WebSocket per seat),
        /// 1 to 100000.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        games: u32,
        /// How long to play, in seconds (1 to 86400).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        duration: u64,
        /// Think time per move in milliseconds, MIN-MAX (uniform) or one number; 0 answers at
        /// once (as fast as the server answers).
        #[arg(long, default_value = "1000-3000")]
        think_ms: String,
        /// Variants the games play in turn, comma separated.
        #[arg(long, default_value = "xiangqi,sanguo,banqi")]
        variants: String,
        /// Time control of the tables as SECONDS+SECONDS (initial+increment); untimed when absent.
        #[arg(long)]
        time: Option<String>,
        /// Connect every player from the same address instead of one loopback address each
        /// (127.1.x.y), which the server's per-address limits would then count together.
        #[arg(long)]
        no_spread: bool,
        /// The server's process id, to report its memory per table (from /proc/PID/status) and
        /// its processor time per move; give it once per node of a cluster on this machine
        /// (memory summed, time per node and summed). Per move means per move of this load
        /// test: with several load tests against the same server, each reports the server's
        /// whole time over its own moves (scripts/loadtest-combine divides by all of theirs).
        #[arg(long)]
        server_pid: Vec<u32>,
        /// The database server's main process (PostgreSQL's postmaster), to report its
        /// processor time and its backends' per move (of this load test, as --server-pid).
        #[arg(long)]
        db_pid: Option<u32>,
        /// Create every table through this URL instead of its seat 0's (in a cluster the node
        /// that creates a table owns it: all tables on one node, the seats still over --url).
        #[arg(long)]
        table_url: Option<String>,
        /// Seed of the random moves and think times.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seconds at the start whose moves are left out of the latency percentiles (while the
        /// sessions, tables and connections of the games are being set up).
        #[arg(long, default_value_t = 0)]
        warmup: u64,
        /// When a connection closes or fails mid-game, connect again through the next URL with
        /// ?since=the last version seen (a pause of 200 ms between tries, up to 30 s) and play
        /// on; requests that get no answer (or a 5xx) are tried again the same way.
        #[arg(long)]
        reconnect: bool,
        /// Games against the computer played at the same time besides the --games between
        /// people (0 to 10000): one guest at seat 0, the computer at --computer-level in the
        /// other seats; their latencies are reported apart.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10_000))]
        computer_games: u32,
        /// The level of the computer seats of --computer-games (1-8).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=8))]
        computer_level: u8,
        /// Instead of --games: this many accounts (made, or signed in when an earlier run made
        /// them) join one arena and play its games with random legal moves; the pairing waves
        /// are printed as the server reports them (docs/performance.md). 0: off.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
        arena_players: u32,
        /// The arena --arena-players join; without it the first player creates one (its
        /// variant the first of --variants, its clock --time, default 60+0).
        #[arg(long)]
        arena_id: Option<String>,
        /// The length of the arena created, minutes (10 to 180).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(10..=180))]
        arena_minutes: u32,
        /// Connections that watch the table of the run's first game, each from its own address
        /// and without a session (0 to 100000): how much later the last of them sees each
        /// update than the first (the fan-out spread) is reported.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
        spectators: u32,
        /// Connections opened before the games, each from its own address and without a
        /// session, that watch an open table where nothing happens and stay until the end
        /// (0 to 100000): the server's memory per held connection is reported (with
        /// --server-pid).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
        idle: u32,
    },
}

/// A command's failure: a one-line message and the exit status (2 for bad input).
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub status: u8,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            status: 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError {
            message: format!("i/o error: {e}"),
            status: 1,
        }
    }
}

/// clap's message of `e` on one line: up to its usage part, joined, without decorations and
/// without the leading `error: `.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| {
            !l.starts_with("Usage:")
                && !l.starts_with("tip:")
                && !l.starts_with("For more information")
        })
        .filter(|l| !l.is_empty())
        .collect();
    message.join(" ").trim_start_matches("error: ").to_owned()
}

/// Parses `--options`: `KEY=VALUE` pairs separated by commas; empty text gives no pairs.
///
/// # Errors
/// A pair without `=` or with an empty key.
pub fn parse_options(text: Option<&str>) -> Result<Vec<(String, String)>, CliError> {
    let mut out = Vec::new();
    for pair in text
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match pair.split_once('=') {
            Some((k, _))
                if out
                    .iter()
                    .any(|(seen, _): &(String, String)| seen == k.trim()) =>
            {
                return Err(CliError::input(format!(
                    "option {:?} given twice",
                    k.trim()
                )));
            }
            Some((k, v)) if !k.trim().is_empty() => {
                out.push((k.trim().to_owned(), v.trim().to_owned()))
            }
            _ => {
                return Err(CliError::input(format!(
                    "bad option {pair:?}: expected KEY=VALUE"
                )))
            }
        }
    }
    Ok(out)
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    match cli.command.unwrap_or(Command::Uci) {
        Command::Uci => {
            let stdin = std::io::stdin();
            chuhe_engine::uci::run(std::io::BufReader::new(stdin), std::io::stdout())?;
        }
        Command::Puzzles { action } => crate::puzzles_cmd::run(action, &mut out)?,
        Command::Bench { depth } => {
            // Pikafish's summary (`Nodes searched  : N`, …) goes to standard error, as there.
            chuhe_engine::bench::run(depth, &mut out, &mut std::io::stderr().lock())?;
        }
        Command::Moves { rules } => match rules.variant {
            Variant::Xiangqi => crate::xiangqi_cmd::moves(&rules, &mut out)?,
            Variant::Sanguo => crate::sanguo_cmd::moves(&rules, &mut out)?,
            Variant::Banqi => crate::banqi_cmd::moves(&rules, &mut out)?,
        },
        Command::Perft {
            rules,
            depth,
            divide,
            no_bulk,
        } => {
            if depth == 0 {
                return Err(CliError::input("bad argument: --depth must be at least 1"));
            }
            match rules.variant {
                Variant::Xiangqi => {
                    crate::xiangqi_cmd::perft(&rules, depth, divide, !no_bulk, &mut out)?
                }
                Variant::Sanguo => {
                    crate::sanguo_cmd::perft(&rules, depth, divide, !no_bulk, &mut out)?
                }
                Variant::Banqi => {
                    return Err(CliError::input(
                        "banqi has chance moves (flips): perft is not defined for it",
                    ))
                }
            }
        }
        Command::Replay { rules, moves, json } => match rules.variant {
            Variant::Xiangqi => crate::xiangqi_cmd::replay(&rules, &moves, json, &mut out)?,
            Variant::Sanguo => crate::sanguo_cmd::replay(&rules, &moves, json, &mut out)?,
            Variant::Banqi => crate::banqi_cmd::replay(&rules, &moves, json, &mut out)?,
        },
        Command::Records { action } => crate::records_cmd::run(action, &mut out)?,
        Command::Play {
            variant,
            options,
            seed,
        } => crate::play_cmd::play(variant, options.as_deref(), seed)?,
        Command::Match {
            variant,
            a,
            b,
            games,
            scale,
            seed,
            options,
        } => crate::play_cmd::run_match(
            crate::play_cmd::MatchArgs {
                variant,
                a,
                b,
                games,
                scale,
                seed,
                options,
            },
            &mut out,
        )?,
        Command::Serve {
            config,
            print_config: _,
            bind,
            database,
            trust_forwarded_for,
            allowed_origins,
            computer_threads,
            ops,
            limits,
            cluster,
        } => crate::serve_cmd::serve(
            &bind,
            &database,
            chuhe_server::Settings {
                trust_forwarded_for,
                allowed_origins,
                computer_threads: usize::from(computer_threads),
                tournament_minute: test_tournament_minute()
                    .unwrap_or(chuhe_server::Settings::default().tournament_minute),
                tournament_schedules: crate::config::schedules(config.as_deref())?,
                ..chuhe_server::Settings::default()
            },
            &ops,
            &limits,
            &cluster,
        )?,
        Command::Backup { args } => crate::backup_cmd::backup(&args, &mut out)?,
        Command::Token {
            action: TokenCommand::Create(args),
        } => crate::token_cmd::create(&args, &mut out)?,
        Command::Bot { args } => crate::bot_cmd::run(args)?,
        Command::Loadtest {
            url,
            games,
            duration,
            think_ms,
            variants,
            time,
            no_spread,
            server_pid,
            db_pid,
            table_url,
            seed,
            warmup,
            reconnect,
            computer_games,
            computer_level,
            arena_players,
            arena_id,
            arena_minutes,
            spectators,
            idle,
        } => {
            let settings = crate::loadtest_cmd::LoadSettings {
                urls: url
                    .iter()
                    .map(|u| crate::loadtest_cmd::base_url(u))
                    .collect::<Result<_, _>>()?,
                games: games as usize,
                duration: std::time::Duration::from_secs(duration),
                think_ms: parse_range(&think_ms)?,
                variants: parse_variants(&variants)?,
                time: time.as_deref().map(parse_time).transpose()?,
                spread: !no_spread,
                server_pids: server_pid,
                db_pid,
                table_url: table_url
                    .as_deref()
                    .map(crate::loadtest_cmd::base_url)
                    .transpose()?,
                seed,
                warmup: std::time::Duration::from_secs(warmup),
                reconnect,
                computer_games: computer_games as usize,
                computer_level,
                arena: (arena_players > 0).then_some(chuhe_load::ArenaLoad {
                    players: arena_players as usize,
                    id: arena_id,
                    minutes: arena_minutes,
                }),
                spectators: spectators as usize,
                idle: idle as usize,
            };
            crate::loadtest_cmd::run(settings, &mut out)?
        }
    }
    out.flush()?;
    Ok(())
}

/// Reads `MIN-MAX` or `N` (milliseconds).
fn parse_range(text: &str) -> Result<(u64, u64), CliError> {
    let bad = || {
        CliError::input(format!(
            "bad --think-ms {text:?}: expected MIN-MAX or N (ms)"
        ))
    };
    let (lo, hi) = text.split_once('-').unwrap_or((text, text));
    let lo: u64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: u64 = hi.trim().parse().map_err(|_| bad())?;
    if lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// Reads a comma-separated list of variant names.
fn parse_variants(text: &str) -> Result<Vec<Variant>, CliError> {
    text.split(',')
        .map(|v| {
            v.trim()
                .parse::<Variant>()
                .map_err(|e| CliError::input(e.to_string()))
        })
        .collect()
}

/// Reads `SECONDS+SECONDS` into milliseconds.
fn parse_time(text: &str) -> Result<(u64, u64), CliError> {
    let bad = || CliError::input(format!("bad --time {text:?}: expected SECONDS+SECONDS"));
    let (initial, increment) = text.split_once('+').ok_or_else(bad)?;
    let initial: u64 = initial.trim().parse().map_err(|_| bad())?;
    let increment: u64 = increment.trim().parse().map_err(|_| bad())?;
    // The server's bounds for a table's time control (docs/protocol.md, TableOptions).
    if !(1..=10_800).contains(&initial) || increment > 600 {
        return Err(CliError::input(format!(
            "bad --time {text:?}: the initial time is 1 to 10800 s and the increment at most 600 s"
        )));
    }
    Ok((initial * 1000, increment * 1000))
}

/// The JSON object `replay --json` prints (`spec/cli.md`), fields in the spec's order.
#[derive(Debug, serde::Serialize)]
pub struct ReplayJson {
    /// `xiangqi`, `sanguo` or `banqi`.
    pub variant: &'static str,
    /// The position text after the last move.
    pub fen: String,
    /// Moves played from the given position.
    pub ply: usize,
    /// `ongoing` or `ended`.
    pub status: &'static str,
    /// `1-0`, `0-1`, `1/2-1/2`, or `null` (ongoing, sanguo).
    pub result: Option<&'static str>,
    /// The winning sides; empty for a draw or an ongoing game.
    pub winners: Vec<chuhe_rules::outcome::Side>,
    /// The reason word when ended.
    pub reason: Option<chuhe_rules::EndReason>,
}

impl ReplayJson {
    /// Writes the object as one line.
    pub fn write_line(&self, out: &mut impl Write) -> Result<(), CliError> {
        let line = serde_json::to_string(self).map_err(|e| CliError::input(e.to_string()))?;
        writeln!(out, "{line}")?;
        Ok(())
    }
}

/// Writes perft output (`spec/cli.md`): one `MOVE: COUNT` line per entry of `divide` (empty
/// without `--divide`), an empty line, then `Nodes searched: TOTAL`.
pub fn write_perft<M: fmt::Display>(
    out: &mut impl Write,
    divide: &[(M, u64)],
    total: u64,
) -> Result<(), CliError> {
    for (m, n) in divide {
        writeln!(out, "{m}: {n}")?;
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok(())
}

/// For browser tests only (not a flag, not in the configuration file): the environment
/// variable `CHUHE_TEST_TOURNAMENT_MINUTE_MS` makes an arena's minute last that many
/// milliseconds (100 or more), so a ten-minute arena can end within a test
/// (`docs/tournaments.md`, "Testing knob").
fn test_tournament_minute() -> Option<std::time::Duration> {
    std::env::var("CHUHE_TEST_TOURNAMENT_MINUTE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&ms| ms >= 100)
        .map(std::time::Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::{Cli, Command};
    use clap::Parser;

    fn serve(args: &[&str]) -> Command {
        let cli = Cli::try_parse_from([&["chuhe", "serve"], args].concat()).unwrap();
        cli.command.unwrap()
    }

    #[test]
    fn serve_trusts_forwarded_for_only_when_asked() {
        // The environment could set it: these checks need it unset.
        assert!(std::env::var_os("CHUHE_TRUST_FORWARDED_FOR").is_none());
        assert!(std::env::var_os("CHUHE_ALLOWED_ORIGINS").is_none());
        let Command::Serve {
            bind,
            database,
            trust_forwarded_for,
            allowed_origins,
            ..
        } = serve(&[])
        else {
            panic!("not serve");
        };
        assert_eq!(bind, "127.0.0.1:8080");
        assert_eq!(database, "sqlite://chuhe.db");
        assert!(!trust_forwarded_for);
        assert!(allowed_origins.is_empty());
        let Command::Serve {
            allowed_origins, ..
        } = serve(&[
            "--allowed-origin",
            "https://a.example,https://b.example",
            "--allowed-origin",
            "http://c.example:8080",
        ])
        else {
            panic!("not serve");
        };
        assert_eq!(
            allowed_origins,
            [
                "https://a.example",
                "https://b.example",
                "http://c.example:8080"
            ]
        );
        let Command::Serve {
            trust_forwarded_for,
            ..
        } = serve(&["--trust-forwarded-for"])
        else {
            panic!("not serve");
        };
        assert!(trust_forwarded_for);
        let e = Cli::try_parse_from(["chuhe", "serve", "--trust-forwarded-for=maybe"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::TooManyValues);
    }

    #[test]
    fn serve_takes_the_computer_threads() {
        assert!(std::env::var_os("CHUHE_COMPUTER_THREADS").is_none());
        let threads = |args: &[&str]| match serve(args) {
            Command::Serve {
                computer_threads, ..
            } => computer_threads,
            _ => panic!("not serve"),
        };
        assert_eq!(threads(&[]), 2);
        assert_eq!(threads(&["--computer-threads", "6"]), 6);
        let e = Cli::try_parse_from(["chuhe", "serve", "--computer-threads", "0"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
    }
}
