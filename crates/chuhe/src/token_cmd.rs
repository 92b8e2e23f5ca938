//! `chuhe token create`: the operator makes a personal API token for an account, making the
//! account (a bot with `--bot`) when it does not exist (`spec/cli.md`, `docs/bots.md`). It
//! works while `chuhe serve` runs on the database and when none does.

use crate::cli::CliError;
use chuhe_server::accounts::tokens::{parse_scopes, scopes_text, Scope};
use std::path::PathBuf;

/// The arguments of `chuhe token create`.
#[derive(Debug, Clone, clap::Args)]
pub struct TokenCreateArgs {
    /// The database: sqlite://FILE or postgres://..., as given to chuhe serve (its default when
    /// neither this flag, CHUHE_DATABASE nor --config gives one: sqlite://chuhe.db).
    #[arg(long, env = "CHUHE_DATABASE")]
    pub database: Option<String>,
    /// The configuration file of chuhe serve; its `database` key is used when neither
    /// --database nor CHUHE_DATABASE is given.
    #[arg(long, env = "CHUHE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The account's name; made (without a password: it signs in with its tokens only) when no
    /// account has it.
    #[arg(long, value_name = "NAME")]
    pub account: String,
    /// Make the account a bot (title BOT): a new account is made one, an existing one becomes
    /// one when it has not played.
    #[arg(long)]
    pub bot: bool,
    /// A scope of the token (lichess's names: challenge:read, challenge:write, bot:play,
    /// board:play, tournament:write); give it once per scope. Default: bot:play,
    /// challenge:read and challenge:write with --bot, else board:play, challenge:read and
    /// challenge:write.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// What the token is for (1 to 100 characters), shown in the account's list of tokens.
    #[arg(long, default_value = "chuhe token create")]
    pub description: String,
}

/// Runs `chuhe token create`: prints what it did, then the token alone on the last line.
///
/// # Errors
/// Status 2: a bad name, scope, description, database URL or configuration, or an account that
/// has played asked to become a bot; status 1: the database fails.
pub fn create(args: &TokenCreateArgs, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let url = crate::backup_cmd::database_url(args.database.as_ref(), args.config.as_ref())?;
    let name = chuhe_server::accounts::names::normalize(&args.account)
        .map_err(|e| CliError::input(format!("--account {:?}: {e}", args.account)))?;
    let mut scopes =
        parse_scopes(&args.scopes).map_err(|e| CliError::input(format!("--scope: {e}")))?;
    if args.scopes.is_empty() {
        let play = if args.bot {
            Scope::BotPlay
        } else {
            Scope::BoardPlay
        };
        scopes = vec![Scope::ChallengeRead, Scope::ChallengeWrite, play];
        scopes.sort();
    }
    let description = args.description.trim();
    let n = description.chars().count();
    if n == 0 || n > 100 || description.chars().any(char::is_control) {
        return Err(CliError::input(
            "--description: 1 to 100 characters and no control characters",
        ));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let issued = runtime
        .block_on(chuhe_server::store::issue_token(
            &url,
            &name,
            args.bot,
            &scopes,
            description,
        ))
        .map_err(|e| match e {
            chuhe_server::store::StoreError::Refused(_)
            | chuhe_server::store::StoreError::UnsupportedUrl(_) => CliError::input(e.to_string()),
            _ => CliError {
                message: format!("cannot make the token: {e}"),
                status: 1,
            },
        })?;
    let made = if issued.created_account {
        "made now"
    } else {
        "existing"
    };
    let kind = if issued.bot { "a bot" } else { "not a bot" };
    writeln!(
        out,
        "account {name:?} (id {}): {made}, {kind}",
        issued.player_id
    )?;
    writeln!(
        out,
        "token {} with scopes {}",
        issued.token_id,
        scopes_text(&scopes)
    )?;
    writeln!(out, "{}", issued.token)?;
    Ok(())
}
