//! The `chuhe` command line (`spec/cli.md`): thin parsing with clap, the work in the libraries.

mod backup_cmd;
mod banqi_cmd;
mod bot_cmd;
mod cli;
mod config;
mod loadtest_cmd;
mod play_cmd;
mod puzzles_cmd;
mod records_cmd;
mod sanguo_cmd;
mod serve_cmd;
mod token_cmd;
mod xiangqi_cmd;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match config::parse(std::env::args_os().collect()) {
        Ok(config::Parsed::Run(a)) => *a,
        Ok(config::Parsed::Print(text)) => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(text.as_bytes());
            return ExitCode::SUCCESS;
        }
        Err(config::Failure::Cli(e)) => {
            report(&e.to_string());
            return ExitCode::from(e.status);
        }
        Err(config::Failure::Clap(e)) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            report(&cli::one_line(&e));
            return ExitCode::from(2);
        }
    };
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report(&e.to_string());
            ExitCode::from(e.status)
        }
    }
}

/// Writes `chuhe: <message>` as exactly one line on standard error (line breaks inside the
/// message are escaped), ignoring a closed standard error instead of panicking.
fn report(message: &str) {
    use std::io::Write;
    let one_line = message.replace('\r', "\\r").replace('\n', "\\n");
    let _ = writeln!(std::io::stderr(), "chuhe: {one_line}");
}
