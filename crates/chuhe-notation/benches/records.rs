//! Reading and replaying records: the sample games of `tests/data/records/sample-games.tsv`
//! written as PGN in each notation, then read back and replayed. Each run checks the move count.

use chuhe_notation::pgn::{self, WriteOptions};
use chuhe_notation::replay::{replay, ReplayOptions};
use chuhe_notation::{tsv, ChineseStyle, Notation};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn sample() -> String {
    let path = format!(
        "{}/../../tests/data/records/sample-games.tsv",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Reads, replays and counts the moves of every game of a record text.
fn replay_text(text: &str) -> usize {
    chuhe_notation::read_records(text)
        .expect("records")
        .iter()
        .map(|g| {
            replay(g, ReplayOptions::default())
                .expect("replays")
                .moves
                .len()
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let tsv_text = sample();
    let records = tsv::read(&tsv_text).expect("games TSV");
    let replayed: Vec<_> = records
        .iter()
        .map(|g| replay(g, ReplayOptions::default()).expect("replays"))
        .collect();
    let moves: usize = replayed.iter().map(|r| r.moves.len()).sum();
    let mut group = c.benchmark_group("records");
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("tsv", |b| {
        b.iter(|| assert_eq!(replay_text(&tsv_text), moves));
    });
    for (name, notation) in [
        ("pgn-iccs", Notation::Iccs),
        ("pgn-wxf", Notation::Wxf),
        ("pgn-chinese", Notation::Chinese),
    ] {
        let options = WriteOptions {
            notation,
            style: ChineseStyle::default(),
        };
        let text = pgn::write_all(records.iter().zip(&replayed), options);
        group.bench_function(format!("{name}-read"), |b| {
            b.iter(|| assert_eq!(replay_text(&text), moves));
        });
        group.bench_function(format!("{name}-write"), |b| {
            b.iter(|| pgn::write_all(records.iter().zip(&replayed), options).len());
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
