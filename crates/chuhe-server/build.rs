//! Tells cargo to rebuild when `migrations/` changes (embedded by `sqlx::migrate!`), and
//! embeds the web client: lists every file under `../../web` and writes
//! `$OUT_DIR/web_files.rs`, one `(url path, include_bytes!(...))` pair per file, sorted by the
//! URL path as a string: the order in which `web.rs` looks them up by binary search. (Sorting
//! by file path differs: a folder `a/` sorts after a file `a.js` as a path, before it as a
//! string, and the files after it could not be found.)

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let web = manifest.join("../../web");
    println!("cargo:rerun-if-changed={}", web.display());
    // `sqlx::migrate!` embeds `migrations/` at compile time; a new or changed migration must
    // rebuild the crate (proc macros do not tell cargo what they read).
    println!("cargo:rerun-if-changed=migrations");
    let mut files = Vec::new();
    walk(&web, &mut files);
    let mut entries: Vec<(String, PathBuf)> = files
        .iter()
        .map(|file| {
            let rel = file.strip_prefix(&web).expect("walked under web");
            let url: Vec<_> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (format!("/{}", url.join("/")), file.clone())
        })
        .collect();
    entries.sort();
    let mut code = String::from("&[\n");
    for (url, file) in &entries {
        // Every directory's change must trigger a rebuild too (a new file in a folder).
        if let Some(parent) = file.parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
        println!("cargo:rerun-if-changed={}", file.display());
        let abs = std::fs::canonicalize(file).expect("a listed file exists");
        writeln!(
            code,
            "    ({:?}, include_bytes!({:?}) as &[u8]),",
            url,
            abs.display().to_string()
        )
        .expect("writing to a string");
    }
    code.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("web_files.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
