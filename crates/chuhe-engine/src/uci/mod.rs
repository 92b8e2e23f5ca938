//! The engine session (`spec/engine-protocol.md`): UCI (Pikafish dialect), or UCCI 3.0 when the
//! first command is `ucci`. Commands in, lines out, errors never fatal.
//!
//! A [`Session`] owns the current position and its move history, the options and the
//! transposition table. `go` starts the search in its own thread, so `isready`, `stop` and
//! `ponderhit` are answered while it runs (`go`, `setoption` and `ucinewgame` wait for it to end,
//! `position` sets the next position); every output line is written whole and flushed at once
//! through a shared sink. Every bad command prints one `info string error <code> <detail>` line
//! (UCCI: `info message error …`) and leaves the state as it was.
//!
//! | module | what |
//! |---|---|
//! | `mod.rs` | the [`Session`] and its state, [`run`] over a reader and a writer, which commands wait for a running search |
//! | `dialect.rs` | the two dialects' names, which the option table and the wire both use |
//! | `protocol.rs` | the two dialects: reading `position`, `go`, `banmoves`, `probe`, `d`, `eval`, `flip`, `bench`, `go perft`; formatting `info`, `bestmove`, scores |
//! | `options.rs` | every option once, in one table: the `option` lines of both dialects and `setoption` in both |
//! | `threads.rs` | the search thread and its helpers, `stop`, `ponderhit`, `quit`, and the move choice through [`crate::skill::Strength`] |

mod dialect;
mod options;
mod protocol;
#[cfg(test)]
mod tests;
mod threads;

pub use options::Options;
pub use protocol::wdl;

use crate::tt::Table;
use chuhe_rules::xiangqi::{Move, Position};
use dialect::Dialect;
use protocol::Sink;
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};
use threads::Running;

/// What the caller should do after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received: stop reading and exit with status 0.
    Quit,
}

/// An engine session: the position with its history, the options, the table, the output sink.
pub struct Session<W: Write + Send + 'static> {
    sink: Arc<Sink<W>>,
    dialect: Dialect,
    started: bool,
    start: Position,
    moves: Vec<Move>,
    position: Position,
    /// `Some(why)` after a refused `position` (`why` is its error, e.g. `bad-fen general-count`):
    /// there is no valid position until the next valid one, and `go` answers no move.
    refused: Option<String>,
    options: Options,
    tt: Arc<Table>,
    running: Option<Running>,
    banmoves: Vec<Move>,
    searches: u64,
}

impl<W: Write + Send + 'static> Session<W> {
    /// A new session at the start position, writing to `out`, with the default 16 MiB table.
    ///
    /// # Panics
    /// When 16 MiB cannot be allocated.
    pub fn new(out: W) -> Session<W> {
        Session::with_hash(out, Options::default().hash_mib).expect("a 16 MiB table")
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
            refused: None,
            options,
            tt,
            running: None,
            banmoves: Vec::new(),
            searches: 0,
        })
    }

    /// The current position (after the moves of the last `position` command).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Whether there is a position to search: false after a refused `position` command, until
    /// a valid one arrives.
    pub fn has_position(&self) -> bool {
        self.refused.is_none()
    }

    /// Without a valid position (after a refused `position`), writes the line that says so,
    /// `info string error no-position <why>` (UCCI: `info message …`), and returns `true`.
    fn reports_no_position(&self) -> io::Result<bool> {
        match &self.refused {
            Some(why) => {
                self.error("no-position", &format!("last position refused: {why}"))?;
                Ok(true)
            }
            None => Ok(false),
        }
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

    /// Writes one line.
    fn line(&self, text: &str) -> io::Result<()> {
        self.sink.line(text)
    }

    /// Writes `info string error <code> <detail>` (UCCI: `info message error …`).
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

    /// `ucinewgame`: clears the table.
    fn new_game(&mut self) {
        self.tt.clear();
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
        // As in Pikafish: `go`, `setoption`, `ucinewgame` (UCCI `setoption newgame`) and `bench` wait
        // until a running search has written its `bestmove`, so that a piped script gives the
        // answers of one typed slowly; `position` and `banmoves` set what the next `go` searches
        // (the running search keeps its own copy); `stop`, `ponderhit`, `isready` and `quit` act
        // at once.
        if matches!(cmd, "go" | "setoption" | "ucinewgame" | "bench") {
            self.wait();
        }
        match self.dialect {
            Dialect::Uci => self.handle_uci(cmd, args),
            Dialect::Ucci => self.handle_ucci(cmd, args),
        }
    }
}

/// Runs a session on `input` and `output` until `quit` or end of input (which acts as `quit`:
/// a running search is stopped and writes its `bestmove` first).
///
/// Input is read on a thread of its own, so that while a `go`, `setoption` or `ucinewgame`
/// waits for the running search (as in Pikafish, see [`Session::handle`]), the commands that act
/// at once still do: `stop` ends the running search (then the waiting command runs), `ponderhit`
/// and `isready` are answered, `quit` stops the search and ends the session. Other lines read
/// meanwhile run in order after the waiting command; so does the end of input, so a piped
/// script gives the answers of one typed slowly. (Pikafish reads nothing while such a command
/// waits: there, `go infinite` followed by `go depth 2` can only be killed.)
///
/// # Errors
/// I/O errors of reading or writing.
pub fn run<W: Write + Send + 'static>(
    input: impl BufRead + Send + 'static,
    output: W,
) -> io::Result<()> {
    let mut session = Session::new(output);
    let lines = read_lines(input);
    let mut queued: std::collections::VecDeque<Input> = std::collections::VecDeque::new();
    loop {
        let next = match queued.pop_front() {
            Some(next) => next,
            None => lines.recv().unwrap_or(Input::End),
        };
        let line = match next {
            Input::Line(line) => line,
            Input::Failed(e) => return Err(e),
            Input::End => break,
        };
        if waits_for_search(&line) {
            while session.is_searching() {
                match lines.recv_timeout(std::time::Duration::from_millis(20)) {
                    Ok(Input::Line(now)) if acts_at_once(&now) => {
                        if session.handle(&now)? == Flow::Quit {
                            return Ok(());
                        }
                    }
                    Ok(later) => queued.push_back(later),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        queued.push_back(Input::End);
                        // Nothing more can arrive: wait for the search as `handle` would.
                        break;
                    }
                }
            }
        }
        if session.handle(&line)? == Flow::Quit {
            return Ok(());
        }
    }
    session.quit();
    Ok(())
}

/// What the reading thread hands over.
enum Input {
    /// One line, without its `\n`; bytes that are not UTF-8 became U+FFFD, so the line is
    /// answered as a bad command (for example `unknown-command`) instead of ending the session.
    Line(String),
    /// Reading failed.
    Failed(io::Error),
    /// The end of input.
    End,
}

/// Reads `input` line by line on a thread of its own until its end or an error (the thread
/// ends with it; a session that quits earlier leaves it blocked in its read until the process
/// ends, as a terminal's input does).
fn read_lines(mut input: impl BufRead + Send + 'static) -> std::sync::mpsc::Receiver<Input> {
    let (send, lines) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("uci-input".to_owned())
        .spawn(move || {
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                let item = match input.read_until(b'\n', &mut bytes) {
                    Ok(0) => Input::End,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&bytes);
                        Input::Line(line.strip_suffix('\n').unwrap_or(&line).to_owned())
                    }
                    Err(e) => Input::Failed(e),
                };
                let last = !matches!(item, Input::Line(_));
                if send.send(item).is_err() || last {
                    break;
                }
            }
        });
    if let Err(e) = spawned {
        let (send, lines) = std::sync::mpsc::channel();
        let _ = send.send(Input::Failed(e));
        return lines;
    }
    lines
}

/// The first word of `line`, if any.
fn command(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// `go`, `setoption`, `ucinewgame` and `bench` wait for a running search to end.
fn waits_for_search(line: &str) -> bool {
    matches!(
        command(line),
        Some("go" | "setoption" | "ucinewgame" | "bench")
    )
}

/// `stop`, `ponderhit`, `isready` and `quit` act at once, even while a command waits.
fn acts_at_once(line: &str) -> bool {
    matches!(
        command(line),
        Some("stop" | "ponderhit" | "isready" | "quit")
    )
}
