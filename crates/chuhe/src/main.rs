//! The `chuhe` command line (`spec/cli.md`): thin parsing with clap, the work in the libraries.

mod banqi_cmd;
mod cli;
mod loadtest_cmd;
mod play_cmd;
mod records_cmd;
mod sanguo_cmd;
mod serve_cmd;
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
            // One line: clap's message up to its usage part, joined, without decorations.
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
            let message = message.join(" ");
            report(message.trim_start_matches("error: "));
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
