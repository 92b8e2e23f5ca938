//! Embeds the web client: lists every file under `../../web` and writes
//! `$OUT_DIR/web_files.rs`, one `(url path, include_bytes!(...))` pair per file, sorted by path.

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
    let mut files = Vec::new();
    walk(&web, &mut files);
    files.sort();
    let mut code = String::from("&[\n");
    for file in &files {
        // Every directory's change must trigger a rebuild too (a new file in a folder).
        if let Some(parent) = file.parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
        println!("cargo:rerun-if-changed={}", file.display());
        let rel = file.strip_prefix(&web).expect("walked under web");
        let url: Vec<_> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let abs = std::fs::canonicalize(file).expect("a listed file exists");
        writeln!(
            code,
            "    ({:?}, include_bytes!({:?}) as &[u8]),",
            format!("/{}", url.join("/")),
            abs.display().to_string()
        )
        .expect("writing to a string");
    }
    code.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("web_files.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
