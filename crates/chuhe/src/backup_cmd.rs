//! `chuhe backup`: a consistent copy of a SQLite database, taken while `chuhe serve` runs on
//! it (`spec/cli.md`, docs/operations.md "Backups").
//!
//! The copy is SQLite's `VACUUM INTO`: one read transaction on the live database (in WAL mode
//! the server's writer goes on writing meanwhile), written to a new file. It is written under a
//! temporary name in the destination's folder (readable by its owner only until it is complete,
//! then with the database's own permissions), flushed to disk, then linked to its final name,
//! which fails when that name exists: an existing file is never overwritten, and a failed or
//! interrupted backup leaves no file under the name asked for. A PostgreSQL database is backed
//! up with `pg_dump`; the command says so and exits with status 2.

use crate::cli::CliError;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions as _, Connection as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The arguments of `chuhe backup`.
#[derive(Debug, Clone, clap::Args)]
pub struct BackupArgs {
    /// The database to copy: sqlite://FILE, as given to chuhe serve (its default when neither
    /// this flag, CHUHE_DATABASE nor --config gives one: sqlite://chuhe.db in the current
    /// folder). A PostgreSQL URL is answered with the pg_dump command to run instead.
    #[arg(long, env = "CHUHE_DATABASE")]
    pub database: Option<String>,
    /// The configuration file of chuhe serve; its `database` key is used when neither
    /// --database nor CHUHE_DATABASE is given.
    #[arg(long, env = "CHUHE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The backup file to write; refused when it exists (nothing is ever overwritten).
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
    /// How long to wait for the database when it is busy, in milliseconds (1 to 600000).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub busy_timeout_ms: u64,
}

/// The default database of `chuhe serve`.
const DEFAULT_DATABASE: &str = "sqlite://chuhe.db";

/// What a database URL names, for a backup.
#[derive(Debug, PartialEq, Eq)]
enum Source {
    /// A SQLite file, at this path.
    Sqlite(PathBuf),
    /// A PostgreSQL database: `pg_dump` backs it up.
    Postgres,
}

/// Reads `url` as a database to back up.
///
/// # Errors
/// Status 2: an in-memory SQLite database, a URL of another kind.
fn source(url: &str) -> Result<Source, CliError> {
    if chuhe_server::store::Backend::of(url) == Some(chuhe_server::store::Backend::Postgres) {
        return Ok(Source::Postgres);
    }
    let Some(rest) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    else {
        return Err(CliError::input(format!(
            "--database {:?}: expected sqlite://FILE or postgres://...",
            chuhe_server::store::redact_url(url)
        )));
    };
    let path = rest.split('?').next().unwrap_or("");
    if path.is_empty() || path == ":memory:" || rest.contains("mode=memory") {
        return Err(CliError::input(format!(
            "--database {url:?}: an in-memory database has no file to back up"
        )));
    }
    Ok(Source::Sqlite(PathBuf::from(path)))
}

/// The database URL in effect: `--database` or `CHUHE_DATABASE`, else the `database` key of
/// the configuration file, else chuhe serve's default.
///
/// # Errors
/// Status 2: the file cannot be read, is not TOML, or its `database` is not a string.
pub(crate) fn database_url(
    database: Option<&String>,
    config: Option<&PathBuf>,
) -> Result<String, CliError> {
    if let Some(url) = database {
        return Ok(url.clone());
    }
    let Some(file) = config else {
        return Ok(DEFAULT_DATABASE.to_owned());
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        CliError::input(format!(
            "cannot read the configuration {}: {e}",
            file.display()
        ))
    })?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        CliError::input(format!(
            "{}: not a TOML file: {}",
            file.display(),
            e.message()
        ))
    })?;
    match table.get("database") {
        None => Ok(DEFAULT_DATABASE.to_owned()),
        Some(toml::Value::String(url)) => Ok(url.clone()),
        Some(_) => Err(CliError::input(format!(
            "{}: the key \"database\" takes a string (sqlite://FILE or postgres://...)",
            file.display()
        ))),
    }
}

/// The advice for a PostgreSQL database: the `pg_dump` command to run (the URL's credentials
/// shown as `***`).
fn postgres_advice(url: &str) -> String {
    let shown = chuhe_server::store::redact_url(url);
    let credentials = if shown == url {
        ""
    } else {
        " (with the URL's credentials in place of ***, or PGPASSWORD set)"
    };
    format!(
        "chuhe backup copies SQLite databases; a PostgreSQL database is backed up with pg_dump, \
         which is consistent while chuhe serve runs: pg_dump -Fc -d '{shown}' -f chuhe.dump\
         {credentials}; restore into an empty database with pg_restore -d URL chuhe.dump"
    )
}

/// Runs `chuhe backup`: copies the SQLite database to `--to` and prints one line on standard
/// output (`backed up FILE to BACKUP: N bytes`).
///
/// # Errors
/// Status 2 for a PostgreSQL URL (with the `pg_dump` advice), a bad URL or configuration, a
/// database file that does not exist, a destination that exists or whose folder does not;
/// status 1 when SQLite or the file system fails (a file that is not a database, a full disk).
pub fn backup(args: &BackupArgs, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let url = database_url(args.database.as_ref(), args.config.as_ref())?;
    let file = match source(&url)? {
        Source::Postgres => return Err(CliError::input(postgres_advice(&url))),
        Source::Sqlite(file) => file,
    };
    if !file.is_file() {
        return Err(CliError::input(format!(
            "no database file {} (give --database sqlite://FILE)",
            file.display()
        )));
    }
    let to = &args.to;
    if to.exists() || to.is_symlink() {
        return Err(CliError::input(format!(
            "{} exists: chuhe backup never overwrites a file (give a new name)",
            to.display()
        )));
    }
    let folder = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !folder.is_dir() {
        return Err(CliError::input(format!(
            "no folder {} for the backup {}",
            folder.display(),
            to.display()
        )));
    }
    let name = to
        .file_name()
        .ok_or_else(|| CliError::input(format!("--to {}: not a file name", to.display())))?;
    let partial = folder.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let copied = copy(&file, &partial, Duration::from_millis(args.busy_timeout_ms))
        .and_then(|()| publish(&partial, to, &folder));
    let _ = std::fs::remove_file(&partial);
    copied?;
    let bytes = std::fs::metadata(to)?.len();
    writeln!(
        out,
        "backed up {} to {}: {bytes} bytes",
        file.display(),
        to.display()
    )?;
    Ok(())
}

/// Writes a consistent copy of the database `file` to the new file `partial` with
/// `VACUUM INTO`, flushes it to disk and gives it the permissions of `file`.
///
/// # Errors
/// Status 1: SQLite's error (not a database, busy past the time limit, disk full) or the
/// flush's.
fn copy(file: &Path, partial: &Path, busy: Duration) -> Result<(), CliError> {
    let failed = |e: sqlx::Error| CliError {
        message: format!("cannot back up {}: {e}", file.display()),
        status: 1,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Read-only, never created: the backup changes nothing in the server's database.
    let options = SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .create_if_missing(false)
        .busy_timeout(busy);
    // Made empty first, readable by its owner only (VACUUM INTO fills an empty file): the
    // copy holds password hashes and sessions, and takes the database's own permissions once
    // it is complete.
    let mut create = std::fs::OpenOptions::new();
    create.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut create, 0o600);
    create.open(partial)?;
    runtime.block_on(async {
        let mut conn = options.connect().await.map_err(failed)?;
        let target = partial.to_str().ok_or_else(|| {
            CliError::input(format!(
                "--to {}: the path must be valid UTF-8",
                partial.display()
            ))
        })?;
        let vacuumed = sqlx::query("VACUUM INTO ?")
            .bind(target)
            .execute(&mut conn)
            .await
            .map_err(failed);
        let _ = conn.close().await;
        vacuumed.map(|_| ())
    })?;
    std::fs::File::open(partial)?.sync_all()?;
    std::fs::set_permissions(partial, std::fs::metadata(file)?.permissions())?;
    Ok(())
}

/// Gives the finished copy `partial` its name `to`: a hard link, which fails when `to` exists
/// (a file made there meanwhile is not overwritten), then the folder flushed so the name lasts.
///
/// # Errors
/// Status 2 when `to` appeared meanwhile; status 1 for another failure of the file system.
fn publish(partial: &Path, to: &Path, folder: &Path) -> Result<(), CliError> {
    match std::fs::hard_link(partial, to) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(CliError::input(format!(
                "{} exists: chuhe backup never overwrites a file (give a new name)",
                to.display()
            )))
        }
        // A file system without hard links: a rename, after one more look.
        Err(_) if !to.exists() => std::fs::rename(partial, to)?,
        Err(e) => return Err(e.into()),
    }
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_file_or_postgres() {
        assert_eq!(
            source("sqlite://chuhe.db").unwrap(),
            Source::Sqlite(PathBuf::from("chuhe.db"))
        );
        assert_eq!(
            source("sqlite:///var/lib/chuhe/chuhe.db?mode=rwc").unwrap(),
            Source::Sqlite(PathBuf::from("/var/lib/chuhe/chuhe.db"))
        );
        assert_eq!(source("postgres://db/chuhe").unwrap(), Source::Postgres);
        assert_eq!(source("postgresql://db/chuhe").unwrap(), Source::Postgres);
        let memory = source("sqlite::memory:").unwrap_err();
        assert_eq!(memory.status, 2);
        assert_eq!(
            memory.message,
            "--database \"sqlite::memory:\": an in-memory database has no file to back up"
        );
        let other = source("mysql://u:secret@db/chuhe").unwrap_err();
        assert_eq!(other.status, 2);
        assert_eq!(
            other.message,
            "--database \"mysql://***@db/chuhe\": expected sqlite://FILE or postgres://..."
        );
    }

    #[test]
    fn the_postgres_advice_names_pg_dump_without_the_password() {
        let advice = postgres_advice("postgres://chuhe:secret@db.internal/chuhe");
        assert!(
            advice.contains("pg_dump -Fc -d 'postgres://***@db.internal/chuhe' -f chuhe.dump"),
            "{advice}"
        );
        assert!(!advice.contains("secret"), "{advice}");
        let plain = postgres_advice("postgres://db.internal/chuhe");
        assert!(
            plain.contains("pg_dump -Fc -d 'postgres://db.internal/chuhe' -f chuhe.dump;"),
            "{plain}"
        );
        assert!(!plain.contains("***"), "{plain}");
    }

    fn args(database: Option<&str>, config: Option<&Path>) -> BackupArgs {
        BackupArgs {
            database: database.map(str::to_owned),
            config: config.map(Path::to_path_buf),
            to: PathBuf::from("backup.db"),
            busy_timeout_ms: 5000,
        }
    }

    fn url_of(a: &BackupArgs) -> Result<String, CliError> {
        database_url(a.database.as_ref(), a.config.as_ref())
    }

    #[test]
    fn the_database_comes_from_the_flag_then_the_file_then_the_default() {
        let dir = std::env::temp_dir().join(format!("chuhe-backup-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let with = dir.join("with.toml");
        std::fs::write(
            &with,
            "bind = \"0.0.0.0:80\"\ndatabase = \"sqlite:///srv/c.db\"\n",
        )
        .unwrap();
        let without = dir.join("without.toml");
        std::fs::write(&without, "bind = \"0.0.0.0:80\"\n").unwrap();
        let wrong = dir.join("wrong.toml");
        std::fs::write(&wrong, "database = 3\n").unwrap();
        assert_eq!(
            url_of(&args(Some("sqlite://a.db"), Some(&with))).unwrap(),
            "sqlite://a.db"
        );
        assert_eq!(
            url_of(&args(None, Some(&with))).unwrap(),
            "sqlite:///srv/c.db"
        );
        assert_eq!(
            url_of(&args(None, Some(&without))).unwrap(),
            "sqlite://chuhe.db"
        );
        assert_eq!(url_of(&args(None, None)).unwrap(), "sqlite://chuhe.db");
        let e = url_of(&args(None, Some(&wrong))).unwrap_err();
        assert_eq!(e.status, 2);
        assert!(
            e.message
                .ends_with("the key \"database\" takes a string (sqlite://FILE or postgres://...)"),
            "{}",
            e.message
        );
        let e = url_of(&args(None, Some(&dir.join("missing.toml")))).unwrap_err();
        assert_eq!(e.status, 2);
        assert!(
            e.message.starts_with("cannot read the configuration "),
            "{}",
            e.message
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
