//! Texel-style tuning of the evaluation weights on positions from real games.
//!
//! ```text
//! cargo run --release -p chuhe-engine --example texel -- data/games.tsv [max_positions] [passes]
//! ```
//!
//! Reads `games.tsv` (columns `result` = 4th, `start_fen` = 7th, `moves` = 8th), replays every
//! game and keeps quiet positions (side to move not in check, no capture that the quiescence
//! search would try) from ply 12 on, every third ply, labelled with the game's result from Red's
//! view (1, ½, 0). It fits the scale `K` of `sigmoid(K · eval / 400)` to the results, then lowers
//! the mean squared error by coordinate descent over the weights (file-symmetric table entries
//! move together), and prints the tuned values as `NAME = value` lines and tables for
//! `src/weights.rs`.

use chuhe_engine::eval::{evaluate_red, Params, PARAMS};
use chuhe_engine::movepick::MovePicker;
use chuhe_rules::xiangqi::{Move, Position};

/// The records read when no file is given: the repository's `data/games.tsv`.
const DEFAULT_GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/games.tsv");

struct Sample {
    pos: Position,
    result: f64,
}

fn load(path: &str, max: usize) -> Vec<Sample> {
    let text = std::fs::read_to_string(path).expect("games.tsv");
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 8 {
            continue;
        }
        let result = match f[3] {
            "1-0" => 1.0,
            "0-1" => 0.0,
            "1/2-1/2" => 0.5,
            _ => continue,
        };
        let Ok(mut pos) = Position::from_fen(f[6]) else {
            continue;
        };
        for (ply, m) in f[7].split_whitespace().enumerate() {
            let Ok(m) = m.parse::<Move>() else { break };
            if pos.play(m).is_err() {
                break;
            }
            if ply >= 12
                && ply % 3 == 0
                && !pos.is_check()
                && MovePicker::new_quiescence(&pos, false, None).is_empty()
            {
                out.push(Sample {
                    pos: pos.clone(),
                    result,
                });
            }
        }
        if out.len() >= max {
            break;
        }
    }
    out
}

/// The tunable entries: (kind of entry, index data).
#[derive(Clone, Copy)]
enum Handle {
    MaterialMg(usize),
    MaterialEg(usize),
    SoldierCrossed,
    /// kind, rank, file (and its mirror 8 - file).
    Pst(usize, usize, usize),
    Mobility(usize),
    HorseTrapped,
    MissingAdvisor,
    MissingElephant,
    Danger(usize),
    DangerCrossed,
    Hollow,
    Central,
    OffFile,
}

fn handles() -> Vec<(Handle, i32)> {
    let mut h = Vec::new();
    for k in 1..7 {
        h.push((Handle::MaterialMg(k), 8));
        h.push((Handle::MaterialEg(k), 8));
    }
    h.push((Handle::SoldierCrossed, 4));
    let reachable: [&[(usize, usize)]; 7] = [
        &[(0, 3), (0, 4), (1, 3), (1, 4), (2, 3), (2, 4)],
        &[(0, 3), (1, 4), (2, 3)],
        &[(0, 2), (2, 0), (2, 4), (4, 2)],
        &[],
        &[],
        &[],
        &[],
    ];
    for (k, squares) in reachable.iter().enumerate().take(3) {
        for &(r, f) in *squares {
            h.push((Handle::Pst(k, r, f), 4));
        }
    }
    for k in 3..6 {
        for r in 0..10 {
            for f in 0..5 {
                h.push((Handle::Pst(k, r, f), 4));
            }
        }
    }
    for r in 3..10 {
        for f in 0..5 {
            if r < 5 && f % 2 == 1 {
                continue;
            }
            h.push((Handle::Pst(6, r, f), 4));
        }
    }
    for i in 0..3 {
        h.push((Handle::Mobility(i), 1));
        h.push((Handle::Danger(i), 1));
    }
    for x in [
        Handle::HorseTrapped,
        Handle::MissingAdvisor,
        Handle::MissingElephant,
        Handle::DangerCrossed,
        Handle::Hollow,
        Handle::Central,
        Handle::OffFile,
    ] {
        h.push((x, 3));
    }
    h
}

fn apply(p: &mut Params, h: Handle, delta: i32) {
    match h {
        Handle::MaterialMg(k) => p.material_mg[k] += delta,
        Handle::MaterialEg(k) => p.material_eg[k] += delta,
        Handle::SoldierCrossed => p.soldier_crossed_eg += delta,
        Handle::Pst(k, r, f) => {
            p.pst[k][r][f] += delta as i16;
            if f != 4 {
                p.pst[k][r][8 - f] += delta as i16;
            }
        }
        Handle::Mobility(i) => p.mobility[i] += delta,
        Handle::HorseTrapped => p.horse_trapped += delta,
        Handle::MissingAdvisor => p.missing_advisor += delta,
        Handle::MissingElephant => p.missing_elephant += delta,
        Handle::Danger(i) => p.danger[i] += delta,
        Handle::DangerCrossed => p.danger_crossed += delta,
        Handle::Hollow => p.hollow_cannon += delta,
        Handle::Central => p.central_cannon += delta,
        Handle::OffFile => p.general_off_file += delta,
    }
}

fn error(samples: &[Sample], p: &Params, k: f64) -> f64 {
    let chunk = samples.len().div_ceil(2).max(1);
    let sums: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = samples
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    c.iter()
                        .map(|x| {
                            let e = f64::from(evaluate_red(&x.pos, p));
                            let q = 1.0 / (1.0 + 10f64.powf(-k * e / 400.0));
                            (x.result - q) * (x.result - q)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    sums.iter().sum::<f64>() / samples.len() as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or(DEFAULT_GAMES, String::as_str);
    let max: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(300_000);
    let passes: usize = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(3);
    let samples = load(path, max);
    eprintln!("{} positions", samples.len());
    let mut p = PARAMS.clone();
    let mut best_k = 1.0;
    let mut best_e = f64::MAX;
    for i in 1..=40 {
        let k = f64::from(i) * 0.05;
        let e = error(&samples, &p, k);
        if e < best_e {
            best_e = e;
            best_k = k;
        }
    }
    let k = best_k;
    eprintln!("K = {k:.2}, error {best_e:.6}");
    let hs = handles();
    for pass in 0..passes {
        let mut improved = 0;
        for &(h, step) in &hs {
            for delta in [step, -step] {
                apply(&mut p, h, delta);
                let e = error(&samples, &p, k);
                if e < best_e {
                    best_e = e;
                    improved += 1;
                    break;
                }
                apply(&mut p, h, -delta);
            }
        }
        eprintln!("pass {pass}: error {best_e:.6}, {improved} changes");
        if improved == 0 {
            break;
        }
    }
    let names = [
        "GENERAL", "ADVISOR", "ELEPHANT", "HORSE", "CHARIOT", "CANNON", "SOLDIER",
    ];
    for k in 1..7 {
        println!("{}_MG = {}", names[k], p.material_mg[k]);
        println!("{}_EG = {}", names[k], p.material_eg[k]);
    }
    println!("SOLDIER_CROSSED_EG = {}", p.soldier_crossed_eg);
    println!("CHARIOT_MOBILITY = {}", p.mobility[0]);
    println!("HORSE_MOBILITY = {}", p.mobility[1]);
    println!("CANNON_MOBILITY = {}", p.mobility[2]);
    println!("HORSE_TRAPPED = {}", p.horse_trapped);
    println!("MISSING_ADVISOR = {}", p.missing_advisor);
    println!("MISSING_ELEPHANT = {}", p.missing_elephant);
    println!("DANGER_CHARIOT = {}", p.danger[0]);
    println!("DANGER_HORSE = {}", p.danger[1]);
    println!("DANGER_CANNON = {}", p.danger[2]);
    println!("DANGER_CROSSED = {}", p.danger_crossed);
    println!("HOLLOW_CANNON = {}", p.hollow_cannon);
    println!("CENTRAL_CANNON = {}", p.central_cannon);
    println!("GENERAL_OFF_FILE = {}", p.general_off_file);
    for k in 0..7 {
        println!("{}_PST", names[k]);
        for row in &p.pst[k] {
            let cells: Vec<String> = row.iter().map(i16::to_string).collect();
            println!("[{}],", cells.join(", "));
        }
    }
}
