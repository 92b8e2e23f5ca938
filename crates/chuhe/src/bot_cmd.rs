//! `chuhe bot`: runs a UCI engine as a bot account of a chuhe server, the way lichess-bot runs
//! one on lichess (`spec/cli.md`, `docs/bots.md`). The bridge itself is `chuhe_load::bot`.

use crate::cli::CliError;
use chuhe_load::bot::{BotSettings, Game, Protocol, RankBase};

/// The arguments of `chuhe bot`.
#[derive(Debug, Clone, clap::Args)]
pub struct BotArgs {
    /// The bot account's personal API token (lip_..., from chuhe token create --bot; scopes
    /// bot:play, challenge:read, challenge:write).
    #[arg(long, env = "CHUHE_BOT_TOKEN")]
    pub token: String,
    /// The engine's command line, run by sh -c, one process per game (e.g. "chuhe uci" or
    /// fairy-stockfish).
    #[arg(long, value_name = "CMD")]
    pub engine: String,
    /// How the engine is spoken to: uci (xiangqi only), play (chuhe play's line protocol:
    /// xiangqi, banqi, sanguo), or auto (play when the engine answers uci with an "info string
    /// error" line, as chuhe play does; else uci).
    #[arg(long, default_value = "auto", value_parser = ["auto", "uci", "play"])]
    pub protocol: String,
    /// The game this bot plays: it accepts challenges of this variant only and asks for it
    /// (sanguo: against chuhe's computer only, with --ai). The engine must play it
    /// (e.g. "chuhe play --variant banqi").
    #[arg(long, default_value = "xiangqi", value_parser = ["xiangqi", "banqi", "sanguo"])]
    pub variant: String,
    /// The server's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// How the engine numbers ranks: 0 (0-9: chuhe, Pikafish), 1 (1-10: Fairy-Stockfish), or
    /// auto (1 when the engine offers the UCI_Variant option, which is then set to xiangqi).
    #[arg(long, default_value = "auto", value_parser = ["auto", "0", "1"])]
    pub engine_ranks: String,
    /// A UCI option set after uci, as NAME=VALUE (e.g. Threads=1); give it once per option.
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    pub uci_options: Vec<String>,
    /// Think time per move in milliseconds (go movetime) in every game; without it the clocks
    /// are sent (go wtime btime winc binc), and 1000 ms in untimed games. 1 to 3600000.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime_ms: Option<u64>,
    /// Stop once this many games have ended (default: run until stopped with Ctrl-C).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,
    /// Challenge this account (a casual xiangqi game) at the start and after each game.
    #[arg(long, value_name = "NAME", conflicts_with = "ai")]
    pub challenge: Option<String>,
    /// Play chuhe's computer at this level (1 to 8) at the start and after each game.
    #[arg(long, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(1..=8))]
    pub ai: Option<u8>,
    /// The clock of the games this bot asks for: initial time in seconds (0 to 10800); untimed
    /// without it.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=10_800))]
    pub clock_limit: Option<u64>,
    /// The increment of that clock in seconds (0 to 600; default 0).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=600))]
    pub clock_increment: Option<u64>,
    /// The colour asked for: white (Red; banqi: the first to flip), black or random; sanguo:
    /// the kingdom, shu, wu, wei or random.
    #[arg(long, default_value = "random", value_parser = ["white", "black", "shu", "wu", "wei", "random"])]
    pub color: String,
}

/// Runs the bridge until its games are done (or Ctrl-C), one line per event on `out`.
///
/// # Errors
/// Status 2: a bad option, an unreachable server, a refused token, an account that is not a
/// bot, an engine that does not start; status 1: a game failed (a move refused by the server,
/// the engine gone).
pub fn run(args: BotArgs) -> Result<(), CliError> {
    let url = chuhe_load::base_url(&args.server).map_err(|_| {
        CliError::input(format!(
            "bad --server {:?}: expected the server's address as http://HOST:PORT",
            args.server
        ))
    })?;
    let mut options = Vec::new();
    for o in &args.uci_options {
        let Some((name, value)) = o.split_once('=') else {
            return Err(CliError::input(format!(
                "--uci-option {o:?}: NAME=VALUE, such as Threads=1"
            )));
        };
        options.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    if args.clock_increment.is_some() && args.clock_limit.is_none() {
        return Err(CliError::input(
            "--clock-increment needs --clock-limit".to_owned(),
        ));
    }
    let variant = match args.variant.as_str() {
        "banqi" => Game::Banqi,
        "sanguo" => Game::Sanguo,
        _ => Game::Xiangqi,
    };
    if variant == Game::Sanguo && args.challenge.is_some() {
        return Err(CliError::input(
            "sanguo has three seats: there are no sanguo challenges between accounts; play the \
             computer with --ai LEVEL"
                .to_owned(),
        ));
    }
    let kingdom = ["shu", "wu", "wei"].contains(&args.color.as_str());
    if kingdom != (variant == Game::Sanguo) && args.color != "random" {
        return Err(CliError::input(format!(
            "--color {}: {}",
            args.color,
            if variant == Game::Sanguo {
                "in sanguo shu, wu, wei or random"
            } else {
                "white, black or random (shu, wu and wei are sanguo's)"
            }
        )));
    }
    let settings = BotSettings {
        url,
        token: args.token,
        engine: args.engine,
        protocol: match args.protocol.as_str() {
            "uci" => Protocol::Uci,
            "play" => Protocol::Play,
            _ => Protocol::Auto,
        },
        variant,
        ranks: match args.engine_ranks.as_str() {
            "0" => RankBase::Zero,
            "1" => RankBase::One,
            _ => RankBase::Auto,
        },
        options,
        movetime_ms: args.movetime_ms,
        games: args.games,
        challenge: args.challenge,
        ai_level: args.ai,
        clock: args
            .clock_limit
            .map(|limit| (limit, args.clock_increment.unwrap_or(0))),
        color: args.color,
    };
    Ok(chuhe_load::bot::run_bot(settings, std::io::stdout())?)
}
