//! The `chuhe` command line (`spec/cli.md`): thin parsing with clap, the work in the libraries.

mod cli;
mod xiangqi_cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // One line: the first line of clap's message, without "error: " decorations.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            eprintln!("chuhe: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chuhe: {e}");
            ExitCode::from(e.status)
        }
    }
}
