//! `chuhe records check` and `chuhe records convert` (`spec/cli.md`, "Game records").

use crate::cli::CliError;
use chuhe_notation::pgn::{self, WriteOptions};
use chuhe_notation::record::{decode, Encoding, GameRecord};
use chuhe_notation::replay::{replay, ReplayOptions, Replayed};
use chuhe_notation::table_record::{table_variant, TableRecord};
use chuhe_notation::{
    detect_format, read_records, tsv, ChineseStyle, Dialect, Notation, RankBase, ReadOptions,
    RecordFormat,
};
use chuhe_rules::xiangqi::GameOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `records` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RecordsCommand {
    /// Replay every game of the files (PGN, DhtmlXQ, or the TSV layout of data/games.tsv; sanguo
    /// and banqi records, told by their Variant tag, with their own rules); list each failure
    /// (file, game, ply, reason), then print one JSON line with the counts. Exits 1 when a game
    /// fails.
    Check {
        /// Also apply chuhe's end-of-game rules (repetition, 120-ply no-capture limit) and print
        /// `ID PLY REASON` for each game they end.
        #[arg(long, value_enum)]
        rules: Option<Rules>,
        #[command(flatten)]
        input: InputArgs,
        /// The record files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Convert the games of the files to one stream on standard output: PGN in the export form
    /// of spec/notation.md (sanguo and banqi games in their own record form), or the TSV layout
    /// of data/games.tsv with ICCS moves (xiangqi only). Games that do not replay are left out
    /// and listed on standard error (exit status 1).
    Convert {
        /// The output format.
        #[arg(long, value_enum)]
        to: Target,
        /// The notation of PGN moves.
        #[arg(long, value_enum, default_value = "chinese")]
        notation: NotationArg,
        /// Chinese notation in traditional characters.
        #[arg(long)]
        traditional: bool,
        /// Chinese notation with full-width digits for Black.
        #[arg(long)]
        full_width: bool,
        #[command(flatten)]
        input: InputArgs,
        /// The record files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// The rule sets `check --rules` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Rules {
    /// chuhe's own: repetition verdicts and the 120-ply no-capture limit.
    Chuhe,
}

/// Output formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// XQ PGN.
    Pgn,
    /// The games.tsv layout.
    Tsv,
}

/// Move notations of `convert --to pgn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NotationArg {
    /// ICCS coordinates, written H2-E2 with [Format "ICCS"].
    Iccs,
    /// WXF official, with [Format "WXF"].
    Wxf,
    /// Chinese (炮二平五 / 马8进7).
    Chinese,
    /// Lower-case ICCS h2e2 with [Variant "xiangqi"]: the form XBoard loads.
    Xboard,
}

/// Runs a `records` subcommand.
pub fn run(command: RecordsCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        RecordsCommand::Check {
            rules,
            input,
            files,
        } => check(rules, &input, &files, out),
        RecordsCommand::Convert {
            to,
            notation,
            traditional,
            full_width,
            input,
            files,
        } => {
            let options = WriteOptions {
                notation: match notation {
                    NotationArg::Iccs => Notation::Iccs,
                    NotationArg::Wxf => Notation::Wxf,
                    NotationArg::Chinese => Notation::Chinese,
                    NotationArg::Xboard => Notation::Xboard,
                },
                style: ChineseStyle {
                    traditional,
                    full_width_digits: full_width,
                },
            };
            convert(to, options, &input, &files, out)
        }
    }
}

/// How the record files are read.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    /// Decode the files as Big5 (default: UTF-8, or GB18030 when not valid UTF-8).
    #[arg(long)]
    big5: bool,
    /// The WXF dialect to prefer where spellings clash (default: official, or fairy-stockfish
    /// for moves written with `=`).
    #[arg(long, value_enum)]
    dialect: Option<DialectArg>,
    /// Coordinate moves number the ranks 1-10 (Fairy-Stockfish) instead of 0-9.
    #[arg(long)]
    ranks_from_one: bool,
}

impl InputArgs {
    fn encoding(&self) -> Encoding {
        if self.big5 {
            Encoding::Big5
        } else {
            Encoding::Auto
        }
    }

    fn replay_options(&self, game: GameOptions) -> ReplayOptions {
        ReplayOptions {
            game,
            read: ReadOptions {
                rank_base: if self.ranks_from_one {
                    RankBase::One
                } else {
                    RankBase::Zero
                },
                dialect: self.dialect.map(|d| match d {
                    DialectArg::Official => Dialect::Official,
                    DialectArg::Xqbase => Dialect::XqBase,
                    DialectArg::FairyStockfish => Dialect::FairyStockfish,
                }),
                // SAN ranks are told per record (1-10 for Fairy-Stockfish and pychess, 0-9 for
                // XBoard), whatever the coordinates use.
                san_rank_base: None,
            },
        }
    }
}

/// The WXF dialects of `--dialect` (spec/notation.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectArg {
    /// WXF official.
    Official,
    /// XQBase / ElephantEye / XiangQi Wizard.
    Xqbase,
    /// Fairy-Stockfish / pyffish / pychess-variants.
    FairyStockfish,
}

/// Reads one file's games, and says in which format they were.
fn load(path: &Path, enc: Encoding) -> Result<(Vec<GameRecord>, RecordFormat), CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?;
    let text = decode(&bytes, enc);
    let records =
        read_records(&text).map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    Ok((records, detect_format(&text)))
}

/// Notes on standard error each move read only by the lenient tier (`spec/notation.md` §6).
fn note_non_standard(path: &Path, record: &GameRecord, replayed: &Replayed) {
    for &ply in &replayed.non_standard {
        let text = record.moves.get(ply - 1).map_or("", |m| m.text.as_str());
        eprintln!(
            "note: {}: game {}: ply {ply}: non-standard move text {text:?}",
            path.display(),
            record.id
        );
    }
}

fn check(
    rules: Option<Rules>,
    input: &InputArgs,
    files: &[PathBuf],
    out: &mut impl Write,
) -> Result<(), CliError> {
    let game = match rules {
        Some(Rules::Chuhe) => GameOptions::default(),
        None => ReplayOptions::default().game,
    };
    let options = input.replay_options(game);
    let enc = input.encoding();
    let (mut games, mut ok, mut failed, mut moves) = (0usize, 0usize, 0usize, 0usize);
    for path in files {
        for record in load(path, enc)?.0 {
            games += 1;
            if table_variant(&record).is_some() {
                match TableRecord::from_game_record(&record) {
                    Ok(t) => {
                        ok += 1;
                        moves += t.moves.len();
                    }
                    Err(e) => {
                        failed += 1;
                        moves += e.ply.saturating_sub(1);
                        writeln!(
                            out,
                            "{}: game {}: ply {}: {}",
                            path.display(),
                            record.id,
                            e.ply,
                            e.reason
                        )?;
                    }
                }
                continue;
            }
            match replay(&record, options) {
                Ok(r) => {
                    ok += 1;
                    moves += r.moves.len();
                    note_non_standard(path, &record, &r);
                    if let Some((ply, outcome)) = &r.rule_end {
                        writeln!(out, "{} {ply} {}", record.id, outcome.reason)?;
                    }
                }
                Err(e) => {
                    failed += 1;
                    moves += e.ply.saturating_sub(1);
                    writeln!(
                        out,
                        "{}: game {}: ply {}: {e}",
                        path.display(),
                        record.id,
                        e.ply
                    )?;
                }
            }
        }
    }
    writeln!(
        out,
        "{{\"games\": {games}, \"ok\": {ok}, \"failed\": {failed}, \"moves\": {moves}}}"
    )?;
    out.flush()?;
    if failed > 0 {
        return Err(CliError {
            message: format!("{failed} of {games} games failed"),
            status: 1,
        });
    }
    Ok(())
}

fn convert(
    to: Target,
    options: WriteOptions,
    input: &InputArgs,
    files: &[PathBuf],
    out: &mut impl Write,
) -> Result<(), CliError> {
    let enc = input.encoding();
    let replay_options = input.replay_options(ReplayOptions::default().game);
    let mut failed = 0usize;
    let mut first = true;
    let mut buf = String::new();
    if to == Target::Tsv {
        buf.push_str(&tsv::header());
    }
    for path in files {
        let (records, format) = load(path, enc)?;
        let from_pgn = format != RecordFormat::Tsv;
        for mut record in records {
            if table_variant(&record).is_some() {
                // Sanguo and banqi: their own record form; TSV holds xiangqi games only.
                let table = match (to, TableRecord::from_game_record(&record)) {
                    (Target::Pgn, Ok(t)) => t,
                    (Target::Tsv, Ok(_)) => {
                        failed += 1;
                        eprintln!(
                            "{}: game {}: ply 0: the tsv layout holds xiangqi games only",
                            path.display(),
                            record.id
                        );
                        continue;
                    }
                    (_, Err(e)) => {
                        failed += 1;
                        eprintln!(
                            "{}: game {}: ply {}: {}",
                            path.display(),
                            record.id,
                            e.ply,
                            e.reason
                        );
                        continue;
                    }
                };
                if !first {
                    buf.push('\n');
                }
                table.write(&mut buf);
                first = false;
                continue;
            }
            let replayed: Replayed = match replay(&record, replay_options) {
                Ok(r) => r,
                Err(e) => {
                    failed += 1;
                    eprintln!("{}: game {}: ply {}: {e}", path.display(), record.id, e.ply);
                    continue;
                }
            };
            note_non_standard(path, &record, &replayed);
            match to {
                Target::Pgn => {
                    if !first {
                        buf.push('\n');
                    }
                    pgn::write(&mut buf, &record, &replayed, options);
                }
                Target::Tsv => {
                    if from_pgn && record.tag("SourceRef").is_none() {
                        record.set_tag("SourceRef", path.display().to_string());
                    }
                    tsv::write_row(&mut buf, &record, &replayed);
                }
            }
            first = false;
            if buf.len() > 1 << 20 {
                out.write_all(buf.as_bytes())?;
                buf.clear();
            }
        }
    }
    out.write_all(buf.as_bytes())?;
    out.flush()?;
    if failed > 0 {
        return Err(CliError {
            message: format!("{failed} games did not replay and were left out"),
            status: 1,
        });
    }
    Ok(())
}
