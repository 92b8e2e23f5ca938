//! Tells cargo to rebuild when `migrations/` changes (embedded by `sqlx::migrate!`), and embeds
//! the web client (`../../web`) with memory-serve: every file is read, hashed for its entity tag
//! and, for text, brotli-compressed here, and `src/edge/web.rs` serves them from memory.
//!
//! The files are embedded in debug builds too (memory-serve would otherwise read them from the
//! source tree at each request), so that the tests serve what a release serves and a binary
//! never depends on the folder it was built in.

fn main() {
    // `sqlx::migrate!` embeds `migrations/` at compile time; a new or changed migration must
    // rebuild the crate (proc macros do not tell cargo what they read).
    println!("cargo:rerun-if-changed=migrations");
    let manifest =
        std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    memory_serve::load_directory_with_embed(manifest.join("../../web"), true);
}
