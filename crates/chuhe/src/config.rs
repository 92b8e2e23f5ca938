//! `chuhe serve --config FILE`: a TOML file whose keys are the long flags of `chuhe serve`
//! (`bind`, `database`, `db-timeout-ms`, ...), layered under the command line and the
//! environment: flags > environment > file > defaults. The keys are read off clap's own
//! description of the command, so every flag is a key and nothing else is. `--print-config`
//! prints the result (docs/operations.md).
//!
//! How: the command line is parsed once leniently to learn which settings a flag or an
//! environment variable gave (`ArgMatches::value_source`); each key of the file that neither
//! gave is appended to the command line as `--KEY=VALUE`, and the whole is parsed again, so that
//! the file's values meet the same checks (ranges, `requires`) as a flag's.

use crate::cli::{Cli, CliError};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use std::any::TypeId;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Long flags of `chuhe serve` that are not settings, hence not keys of the file.
const NOT_KEYS: [&str; 3] = ["config", "print-config", "help"];

/// The file's one key that is no flag: the operator's scheduled tournaments, an array of
/// tables (`[[schedule]]`, read by [`schedules`]).
pub const SCHEDULE_KEY: &str = "schedule";

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// A command to run (boxed: the parsed flags of the largest subcommands are large).
    Run(Box<Cli>),
    /// `chuhe serve --print-config`: this text to print, then exit 0.
    Print(String),
}

/// Why the command line was refused.
#[derive(Debug)]
pub enum Failure {
    /// clap's own refusal (or its help and version texts).
    Clap(clap::Error),
    /// A bad configuration file (status 2).
    Cli(CliError),
}

impl From<CliError> for Failure {
    fn from(e: CliError) -> Self {
        Failure::Cli(e)
    }
}

/// The settings of `chuhe serve` that may stand in the file: its arguments with a long name,
/// in the order of `--help`.
fn keys(serve: &clap::Command) -> impl Iterator<Item = (&str, &Arg)> {
    serve.get_arguments().filter_map(|arg| {
        let long = arg.get_long()?;
        (!NOT_KEYS.contains(&long)).then_some((long, arg))
    })
}

/// Whether `arg` is an on/off flag (`--secure-cookies`).
fn is_flag(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse)
}

/// Whether `arg` may be given several times (`--allowed-origin`).
fn is_list(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::Append)
}

/// Whether `arg` takes a whole number (printed as a TOML integer).
fn is_integer(arg: &Arg) -> bool {
    let id = arg.get_value_parser().type_id();
    [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i64>(),
    ]
    .into_iter()
    .any(|t| id == t)
}

/// Parses the command line (`argv`, program name first), with the configuration file of
/// `chuhe serve --config` (or `CHUHE_CONFIG`) under the flags and the environment.
///
/// # Errors
/// clap's refusal of the command line; an input error for a configuration file that cannot be
/// read, is not TOML, has a key that is no setting or a value of the wrong kind.
pub fn parse(argv: Vec<OsString>) -> Result<Parsed, Failure> {
    let command = Cli::command();
    let mut full = argv.clone();
    let mut config_path = None;
    if let Ok(lenient) = command
        .clone()
        .ignore_errors(true)
        .try_get_matches_from(&argv)
    {
        if let (Some(("serve", given)), Some(serve)) =
            (lenient.subcommand(), command.find_subcommand("serve"))
        {
            if let Some(path) = given.get_one::<PathBuf>("config") {
                full.extend(file_args(serve, given, path)?);
                config_path = Some(path.clone());
            }
        }
    }
    let matches = command
        .clone()
        .try_get_matches_from(full)
        .map_err(|e| match &config_path {
            // The command line alone is refused: its own mistake is told (not what the file's
            // values made of it). Refused only with the file's values (a value out of range, a
            // cluster key without `nats`): the file's fault, and the message says so.
            Some(path) => match command.clone().try_get_matches_from(&argv) {
                Err(own) => Failure::Clap(own),
                Ok(_) => Failure::Cli(CliError::input(format!(
                    "{}: {}",
                    path.display(),
                    crate::cli::one_line(&e)
                ))),
            },
            None => Failure::Clap(e),
        })?;
    let cli = Cli::from_arg_matches(&matches).map_err(Failure::Clap)?;
    if let (Some(("serve", given)), Some(serve)) =
        (matches.subcommand(), command.find_subcommand("serve"))
    {
        if given.get_flag("print_config") {
            let mut text = effective(serve, given);
            if let Some(path) = &config_path {
                let schedules = schedule_tables(path)?;
                if !schedules.is_empty() {
                    let mut doc = toml::Table::new();
                    doc.insert(SCHEDULE_KEY.to_owned(), toml::Value::Array(schedules));
                    let _ = write!(text, "\n{doc}");
                }
            }
            return Ok(Parsed::Print(text));
        }
    }
    Ok(Parsed::Run(Box::new(cli)))
}

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Reads the configuration file at `path` into command-line arguments of `serve`
/// (`--KEY=VALUE`, repeated for a list), leaving out the keys that the command line or the
/// environment gave (`given`) and the values that are the default.
///
/// # Errors
/// An input error (one line, naming the file) for a file that cannot be read or is not TOML,
/// an unknown key, or a value of the wrong kind.
fn file_args(
    serve: &clap::Command,
    given: &ArgMatches,
    path: &Path,
) -> Result<Vec<OsString>, CliError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("cannot read the configuration file {shown}: {e}")))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(1, |s| line_of(&text, s.start));
        CliError::input(format!("{shown} line {line}: {}", e.message().trim_end()))
    })?;
    let mut out = Vec::new();
    for (key, value) in &table {
        if key == SCHEDULE_KEY {
            continue;
        }
        let Some((long, arg)) = keys(serve).find(|(long, _)| long == key) else {
            let dashed = key.replace('_', "-");
            let hint = if keys(serve).any(|(long, _)| long == dashed) {
                format!(" (the keys are written with '-': {dashed})")
            } else {
                String::new()
            };
            return Err(CliError::input(format!(
                "unknown key \"{key}\" in {shown}{hint}"
            )));
        };
        let id = arg.get_id().as_str();
        if matches!(
            given.value_source(id),
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        ) {
            continue;
        }
        let wrong = |what: &str| CliError::input(format!("{shown}: {key} takes {what}"));
        let scalar = |v: &toml::Value| match v {
            toml::Value::String(s) => Ok(s.clone()),
            toml::Value::Integer(n) => Ok(n.to_string()),
            toml::Value::Float(x) => Ok(x.to_string()),
            toml::Value::Boolean(b) => Ok(b.to_string()),
            toml::Value::Datetime(d) => Ok(d.to_string()),
            toml::Value::Array(_) | toml::Value::Table(_) => Err(wrong("one value")),
        };
        if is_flag(arg) {
            match value {
                toml::Value::Boolean(true) => out.push(format!("--{long}").into()),
                toml::Value::Boolean(false) => {}
                _ => return Err(wrong("true or false")),
            }
        } else if is_list(arg) {
            let items = match value {
                toml::Value::Array(items) => items.iter().map(scalar).collect(),
                v => scalar(v).map(|s| vec![s]),
            }
            .map_err(|_| wrong("a value or a list of values"))?;
            out.extend(items.into_iter().map(|s| format!("--{long}={s}").into()));
        } else {
            let value = scalar(value)?;
            // A default written out (as docs/chuhe.toml does) is no choice: left to clap, it
            // does not trip `requires` (`nats-prefix = "chuhe"` without `nats`).
            if arg.get_default_values() == [value.as_str()] {
                continue;
            }
            out.push(format!("--{long}={value}").into());
        }
    }
    Ok(out)
}

/// The `[[schedule]]` tables of the configuration file at `path`, as written.
fn schedule_tables(path: &Path) -> Result<Vec<toml::Value>, CliError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("cannot read the configuration file {shown}: {e}")))?;
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(1, |s| line_of(&text, s.start));
        CliError::input(format!("{shown} line {line}: {}", e.message().trim_end()))
    })?;
    match table.remove(SCHEDULE_KEY) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(items)) => Ok(items),
        Some(_) => Err(CliError::input(format!(
            "{shown}: schedule takes tables ([[schedule]])"
        ))),
    }
}

/// The operator's scheduled tournaments of the configuration file at `path` (none without a
/// file), each checked ([`chuhe_server::site::tournaments::Schedule::check`]).
///
/// # Errors
/// An input error naming the file: one that cannot be read or is not TOML, a schedule with an
/// unknown key or a value out of bounds, two schedules of one name.
pub fn schedules(
    path: Option<&Path>,
) -> Result<Vec<chuhe_server::site::tournaments::Schedule>, CliError> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let shown = path.display();
    let mut out: Vec<chuhe_server::site::tournaments::Schedule> = Vec::new();
    for item in schedule_tables(path)? {
        let schedule: chuhe_server::site::tournaments::Schedule = item
            .try_into()
            .map_err(|e: toml::de::Error| CliError::input(format!("{shown}: schedule: {e}")))?;
        schedule
            .check()
            .map_err(|why| CliError::input(format!("{shown}: {why}")))?;
        if out.iter().any(|s| s.name == schedule.name) {
            return Err(CliError::input(format!(
                "{shown}: two schedules named {:?}",
                schedule.name
            )));
        }
        out.push(schedule);
    }
    Ok(out)
}

/// The configuration in effect (`matches` of `serve`) as TOML: one `KEY = VALUE` line per
/// setting, in the order of `--help`; a setting without a value is a comment line.
fn effective(serve: &clap::Command, matches: &ArgMatches) -> String {
    let mut out = String::new();
    for (long, arg) in keys(serve) {
        let id = arg.get_id().as_str();
        let raw: Vec<String> = matches
            .get_raw(id)
            .map(|values| {
                values
                    .map(|v| chuhe_server::store::redact_url(&v.to_string_lossy()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let value = if is_flag(arg) {
            toml::Value::Boolean(matches.get_flag(id))
        } else if is_list(arg) {
            toml::Value::Array(raw.into_iter().map(toml::Value::String).collect())
        } else if let Some(v) = raw.into_iter().next() {
            match v.parse::<i64>() {
                Ok(n) if is_integer(arg) => toml::Value::Integer(n),
                _ => toml::Value::String(v),
            }
        } else {
            let _ = writeln!(out, "# {long} is not set");
            continue;
        };
        let _ = writeln!(out, "{long} = {value}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_serve_flag_is_a_key() {
        let command = Cli::command();
        let serve = command.find_subcommand("serve").unwrap();
        let names: Vec<&str> = keys(serve).map(|(long, _)| long).collect();
        for expected in [
            "bind",
            "database",
            "db-timeout-ms",
            "allowed-origin",
            "nats",
        ] {
            assert!(names.contains(&expected), "{expected} missing: {names:?}");
        }
        assert!(!names.contains(&"config") && !names.contains(&"print-config"));
    }
}
