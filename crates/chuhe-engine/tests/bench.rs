//! `chuhe bench`'s node signature (`spec/cli.md`): the fixed search of [`chuhe_engine::bench`]
//! at its default depth visits exactly 331,337 nodes. The count changes only when the search,
//! the evaluation or the rules inside the search change; a change must be deliberate and this
//! number updated with it (and the signature in `docs/engine.md`).
//!
//! chuhe-engine and chuhe-rules are built with opt-level 3 in test builds too, so this takes
//! about a second.

use chuhe_engine::bench;

/// The node signature at [`bench::DEFAULT_DEPTH`].
const SIGNATURE_NODES: u64 = 331_337;

#[test]
fn bench_signature_is_pinned() {
    let mut out = Vec::new();
    let mut summary = Vec::new();
    let nodes = bench::run(bench::DEFAULT_DEPTH, &mut out, &mut summary).expect("writing to a Vec");
    let text = String::from_utf8(out).expect("UTF-8");
    let summary = String::from_utf8(summary).expect("UTF-8");
    assert!(
        summary.contains(&format!("\nNodes searched  : {SIGNATURE_NODES}\n")),
        "{summary}"
    );
    assert_eq!(nodes, SIGNATURE_NODES, "{text}");
    let last = text.lines().last().expect("a last line");
    assert!(
        last.starts_with(&format!("{SIGNATURE_NODES} nodes, ")),
        "{last}"
    );
    eprintln!("{last}");
}
