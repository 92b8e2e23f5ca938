//! `chuhe bench`: a fixed-depth search of fixed positions and a node-count signature
//! (`spec/cli.md`). The count changes only when the search or the evaluation changes; the NPS
//! depends on the machine.

use crate::search::{Control, Limits, Searcher, Settings};
use crate::tt::Table;
use chuhe_rules::xiangqi::Position;
use std::io::{self, Write};
use std::time::Instant;

/// The default depth of `chuhe bench`.
pub const DEFAULT_DEPTH: i32 = 9;

/// The bench positions: the start, opening, middlegame and endgame positions from
/// `tools/openings-xiangqi.txt` and `data/` (master games after 24 and 50
/// plies, and endgame studies).
pub const POSITIONS: [&str; 16] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKABR1 w - - 6 4",
    "rnbaka2r/9/1c2b1nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN4C1/9/R1BAKABNR w - - 4 3",
    "r1bakab2/9/8c/2p3p1p/9/pc1nC1P2/P1P1P3P/N5N2/R8/2BAKAB2 w - - 5 13",
    "2bakab2/9/7c1/2R3N1p/4P4/2P3r2/8P/9/4A4/3K1A3 w - - 0 26",
    "2baka2r/9/nc2b4/p1p1p3p/5n1r1/P4R3/2P1P3P/N3B1C2/9/2BAKA1CR w - - 5 13",
    "2bak4/4a4/n2cb4/p1p1R3p/9/9/2P1Pr2P/4BC3/4A4/2BAK1C2 w - - 3 26",
    "2bakab2/5r3/nc4n2/p1p1p1N1p/9/2P3P2/P3r4/1C2B1C2/9/R1BAKAR2 w - - 0 13",
    "r3kabr1/4a4/2n1b4/pcp1PR2p/2P6/6p2/P3N1n1P/1Cc1C4/9/R1BAKAB2 w - - 0 13",
    "r3kab2/4a4/4b4/p1P5p/2nRR1n2/9/P7r/2N1B2pC/4A4/4KAB2 w - - 4 26",
    "r1bakab2/9/n2cc1n2/p3p3p/3N5/6pC1/Pr2P3P/RC2B1N2/4A4/2BAK2R1 w - - 0 13",
    "3a1k3/4a1N2/n2c2C2/p3p3p/9/9/P5r1P/R3B4/4A4/1r1AK2R1 w - - 1 26",
    "9/5P3/3k5/1R7/9/9/3pr4/9/4A4/3K5 w - - 0 1",
    "1c3k3/4a1c2/3a5/3P1C3/4N4/2B6/9/5p3/4K4/9 w - - 0 1",
    "4ka3/4a4/9/2p5p/p2n1N3/2P3R2/P3P4/4B4/3r5/2B2K3 b - - 0 1",
    "4kab2/4a3c/4b2N1/2P1P4/4C1p2/2Bpn4/9/4BA3/4A4/3K5 w - - 0 1",
];

/// Searches every position to `depth` with one thread and a cleared 16 MiB table, prints one
/// line per position (`position K/N: NODES nodes, bestmove M`) and, last, `NODES nodes, NPS nps`
/// to `out`; then Pikafish's summary to `summary` (Pikafish writes it to standard error, where
/// tools such as OpenBench read it): an empty line, `===========================`,
/// `Total time (ms) : T`, `Nodes searched  : N` and `Nodes/second    : NPS`. Returns the total
/// node count.
///
/// # Errors
/// I/O errors of `out` or `summary`.
///
/// # Panics
/// When a 16 MiB table cannot be allocated.
pub fn run(depth: i32, out: &mut impl Write, summary: &mut impl Write) -> io::Result<u64> {
    let tt = Table::new(16).expect("a 16 MiB table");
    let started = Instant::now();
    let mut total = 0;
    for (i, fen) in POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        tt.clear();
        let ctl = Control::default();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let mut s = Searcher::new(&pos, &[], &tt, &ctl, Settings::default(), limits);
        let outcome = s.run(&mut |_| {});
        total += s.nodes();
        let best = outcome.best.map_or("(none)".to_owned(), |m| m.to_string());
        writeln!(
            out,
            "position {}/{}: {} nodes, bestmove {best}",
            i + 1,
            POSITIONS.len(),
            s.nodes()
        )?;
    }
    let ms = started.elapsed().as_millis().max(1) as u64;
    let nps = total * 1000 / ms;
    writeln!(out, "{total} nodes, {nps} nps")?;
    out.flush()?;
    write!(summary, "{}", summary_lines(ms, total, nps))?;
    summary.flush()?;
    Ok(total)
}

/// Pikafish's (and Stockfish's) bench summary, the lines tools parse: an empty line,
/// `===========================`, then `Total time (ms) : T`, `Nodes searched  : N` and
/// `Nodes/second    : NPS`, each ending in a newline.
pub fn summary_lines(total_ms: u64, nodes: u64, nps: u64) -> String {
    format!(
        "\n===========================\nTotal time (ms) : {total_ms}\nNodes searched  : {nodes}\nNodes/second    : {nps}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_has_pikafish_spacing() {
        assert_eq!(
            summary_lines(1234, 331_337, 268_506),
            "\n===========================\n\
             Total time (ms) : 1234\n\
             Nodes searched  : 331337\n\
             Nodes/second    : 268506\n"
        );
    }
}
