//! `chuhe puzzles generate` (`spec/cli.md`, "Puzzles") on three real games of `data/games.tsv`:
//! the rows it writes, a run stopped and started again, and the refusal without a verifier.
//! Needs Fairy-Stockfish (`scripts/setup` installs it): without it the tests fail and say so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs chuhe; returns (status, stdout, stderr).
fn chuhe(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run chuhe");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

fn fairy_stockfish_present() {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .chain([
            PathBuf::from("/usr/games"),
            PathBuf::from("/usr/local/games"),
        ])
        .any(|d| d.join("fairy-stockfish").is_file());
    assert!(
        found,
        "these tests need fairy-stockfish (on PATH or in /usr/games): run scripts/setup"
    );
}

/// Three short master games that end in checkmate (rows 7647, 7954 and 8087 of
/// data/games.tsv), written as a games file in `dir`.
fn three_games(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join("data/games.tsv")).unwrap();
    let mut lines = text.lines();
    let mut out = String::new();
    out.push_str(lines.next().unwrap());
    out.push('\n');
    for id in ["ccpd-007647", "ccpd-007954", "ccpd-008087"] {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{id}\t")))
            .unwrap();
        out.push_str(row);
        out.push('\n');
    }
    let path = dir.join("games.tsv");
    std::fs::write(&path, out).unwrap();
    path
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chuhe-puzzles-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn generate_is_resumable_without_duplicates() {
    fairy_stockfish_present();
    let dir = temp_dir("resume");
    let games = three_games(&dir);
    let games = games.to_str().unwrap();
    let whole = dir.join("whole.tsv");
    let (status, out, err) = chuhe(&[
        "puzzles",
        "generate",
        "--games",
        games,
        "--out",
        whole.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.starts_with("games: 3 (3 mined now, 0 finished before)\n"),
        "{out}"
    );
    let expected = read(&whole);
    let expected_progress = read(&dir.join("whole.tsv.progress"));
    let rows: Vec<&str> = expected.lines().collect();
    assert!(rows[0].starts_with("id\tfen\tlast_move\tsolution\tthemes\trating\t"));
    assert!(rows.len() >= 2, "{expected}");
    for row in &rows[1..] {
        let f: Vec<&str> = row.split('\t').collect();
        assert_eq!(f.len(), 14, "{row}");
        assert!(
            f[0].starts_with(f[6]) && f[0].ends_with(&format!("-{}", f[8])),
            "{row}"
        );
        assert_eq!(f[11], "fairy-stockfish", "{row}");
    }
    assert_eq!(expected_progress.lines().count(), 4);

    // A run killed at once, then run to the end: the same files.
    let part = dir.join("part.tsv");
    let part_s = part.to_str().unwrap();
    let args = [
        "puzzles",
        "generate",
        "--games",
        games,
        "--out",
        part_s,
        "--threads",
        "1",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let (status, _, err) = chuhe(&args);
    assert_eq!(status, 0, "{err}");
    assert_eq!(read(&part), expected);
    assert_eq!(read(&dir.join("part.tsv.progress")), expected_progress);

    // Killed after writing the last game's puzzles, before recording the game, and in the
    // middle of a line: the next run mines that game again, writes no row twice.
    let progress = dir.join("part.tsv.progress");
    let mut lines: Vec<&str> = expected_progress.lines().collect();
    lines.pop();
    std::fs::write(&progress, format!("{}\nrow 9", lines.join("\n"))).unwrap();
    let cut = format!("{}\tccpd-99", expected.trim_end_matches('\n'));
    std::fs::write(&part, &cut).unwrap();
    let (status, out, err) = chuhe(&args);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.starts_with("games: 3 (1 mined now, 2 finished before)\n"),
        "{out}"
    );
    assert_eq!(read(&part), expected);
    assert_eq!(read(&progress), expected_progress);

    // Nothing left to do: nothing changes.
    let (status, out, _) = chuhe(&args);
    assert_eq!(status, 0);
    assert!(
        out.starts_with("games: 3 (0 mined now, 3 finished before)\ncandidates: 0\nkept: 0\n"),
        "{out}"
    );
    assert_eq!(read(&part), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_refuses_without_its_verifier() {
    let dir = temp_dir("noverifier");
    let games = three_games(&dir);
    let out_path = dir.join("p.tsv");
    let (status, out, err) = chuhe(&[
        "puzzles",
        "generate",
        "--games",
        games.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
        "--verify",
        "/nonexistent/fairy-stockfish",
    ]);
    assert_eq!(status, 2);
    assert_eq!(out, "");
    assert!(
        err.starts_with("chuhe: verifier \"/nonexistent/fairy-stockfish\" not found"),
        "{err}"
    );
    assert!(!out_path.exists());

    // Unverified on request: every row says so.
    let (status, _, err) = chuhe(&[
        "puzzles",
        "generate",
        "--games",
        games.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
        "--limit-games",
        "1",
        "--no-verify",
    ]);
    assert_eq!(status, 0, "{err}");
    for row in read(&out_path).lines().skip(1) {
        assert!(row.contains("\tunverified\t\t"), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
