//! The end-of-game rules of `spec/xiangqi.md` §6, table-driven:
//!
//! - `tests/data/xiangqi-chase.tsv`: one move each, the pieces it chases (§6.4, clause by clause);
//! - `tests/data/xiangqi-repetition.tsv` (the repetition cases): every row through
//!   [`Game`], with the ending ply and reason named in its note;
//! - `tests/data/xiangqi-judge.tsv`: the worked examples E1–E17 of §6.7 and chuhe's own cases for
//!   every clause of levels L1 and L2, each with the ply at which the game ends and the verdict,
//!   and Fairy-Stockfish's verdict beside it (where the two differ, the row says why).
//!
//! A property test compares [`chased_by`] with a slow reference built only from
//! [`Position::legal_moves`] on positions reached by random play.

use chuhe_rules::xiangqi::judge::{chased_by, cycle_verdict};
use chuhe_rules::xiangqi::{
    Bitboard, Color, Game, GameOptions, IllegalReason, Move, Position, Setup, Square, Status,
};
use chuhe_rules::{EndReason, Outcome};
use proptest::prelude::*;

fn data(name: &str) -> Vec<(usize, Vec<String>)> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_owned).collect()))
        .collect()
}

fn moves(text: &str) -> Vec<Move> {
    text.split_whitespace()
        .map(|m| m.parse().unwrap_or_else(|e| panic!("move {m}: {e}")))
        .collect()
}

fn squares(bb: Bitboard) -> String {
    let list: Vec<String> = bb.map(|s| s.to_string()).collect();
    if list.is_empty() {
        "-".to_owned()
    } else {
        list.join(" ")
    }
}

#[test]
fn chase_table() {
    let rows = data("xiangqi-chase.tsv");
    assert!(rows.len() >= 25, "the chase table has {} rows", rows.len());
    let mut failures = Vec::new();
    for (line, cols) in &rows {
        let pos = Position::from_fen(&cols[0]).unwrap_or_else(|e| panic!("line {line}: {e}"));
        let m: Move = cols[1].parse().unwrap();
        assert!(pos.is_legal(m), "line {line}: {m} is not legal");
        let got = squares(chased_by(&pos, m));
        if got != cols[2] {
            failures.push(format!(
                "line {line} ({} {m}): chased {got}, expected {} ({})",
                cols[0], cols[2], cols[4]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a replay is expected to give: the ply at which the game ends (`None`: still going after
/// every move) and the outcome.
struct Expected {
    ply: Option<usize>,
    outcome: Option<Outcome>,
}

/// Replays `moves` through a [`Game`] and checks `expected`. When the list goes past the ending
/// ply, the move after it must be refused with [`IllegalReason::GameOver`] and change nothing.
fn check_replay(
    label: &str,
    fen: &str,
    moves: &[Move],
    options: GameOptions,
    expected: &Expected,
) -> Result<(), String> {
    let start = Position::from_fen(fen).map_err(|e| format!("{label}: {e}"))?;
    let mut game = Game::new(start, options);
    for (i, &m) in moves.iter().enumerate() {
        let ply = i + 1;
        match game.play(m) {
            Ok(_) => {}
            Err(IllegalReason::GameOver) if expected.ply == Some(i) => {
                let before = game.ply();
                if before != i {
                    return Err(format!("{label}: refused move changed the game"));
                }
                break;
            }
            Err(e) => return Err(format!("{label}: move {m} at ply {ply} refused: {e}")),
        }
        if game.ply() != ply {
            return Err(format!("{label}: ply {} after move {ply}", game.ply()));
        }
        if let Status::Ended(o) = game.status() {
            if expected.ply != Some(ply) {
                return Err(format!(
                    "{label}: ended at ply {ply} ({} by {}), expected {}",
                    o.result_text().unwrap_or("?"),
                    o.reason,
                    expected
                        .ply
                        .map_or("no end".to_owned(), |p| format!("ply {p}"))
                ));
            }
        }
    }
    let got = match game.status() {
        Status::Ongoing => None,
        Status::Ended(o) => Some(o.clone()),
    };
    if got != expected.outcome {
        return Err(format!(
            "{label}: status {:?} at ply {}, expected {:?}",
            got,
            game.ply(),
            expected.outcome
        ));
    }
    if let Some(p) = expected.ply {
        if game.ply() != p {
            return Err(format!("{label}: game at ply {}, expected {p}", game.ply()));
        }
        if moves.len() > p {
            // The move after the end is refused.
            if game.play(moves[p]) != Err(IllegalReason::GameOver) {
                return Err(format!("{label}: move {} after the end accepted", moves[p]));
            }
        }
    } else if game.ply() != moves.len() {
        return Err(format!("{label}: stopped at ply {}", game.ply()));
    }
    Ok(())
}

fn outcome(result: &str, reason: EndReason) -> Outcome {
    match result {
        "1-0" => Outcome::win(Color::Red.side(), reason),
        "0-1" => Outcome::win(Color::Black.side(), reason),
        "1/2-1/2" => Outcome::draw(reason),
        other => panic!("unknown result {other}"),
    }
}

#[test]
fn repetition_cases() {
    let rows = data("xiangqi-repetition.tsv");
    assert_eq!(rows.len(), 13, "rows of xiangqi-repetition.tsv");
    let mut failures = Vec::new();
    for (line, cols) in &rows {
        let (fen, list, expected, note) = (&cols[0], moves(&cols[1]), &cols[2], &cols[3]);
        // The note names the ending ply ("... at ply 8 ...") and, for losses, the reason word.
        let ply: usize = note
            .split("ply ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("line {line}: no ending ply in the note"));
        let named = EndReason::ALL
            .into_iter()
            .find(|r| note.contains(r.as_str()));
        let want = match expected.as_str() {
            "red loses" => Some(outcome(
                "0-1",
                named.unwrap_or_else(|| panic!("line {line}: no reason")),
            )),
            "black loses" => Some(outcome(
                "1-0",
                named.unwrap_or_else(|| panic!("line {line}: no reason")),
            )),
            "draw" => Some(outcome(
                "1/2-1/2",
                named.unwrap_or(EndReason::ThreefoldRepetition),
            )),
            "continue" => None,
            other => panic!("line {line}: unknown expectation {other}"),
        };
        let exp = Expected {
            ply: want.as_ref().map(|_| ply),
            outcome: want,
        };
        let label = format!("xiangqi-repetition.tsv line {line}");
        if let Err(e) = check_replay(&label, fen, &list, GameOptions::default(), &exp) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn worked_examples_and_clauses() {
    let rows = data("xiangqi-judge.tsv");
    let ids: Vec<&str> = rows.iter().map(|(_, c)| c[0].as_str()).collect();
    for e in 1..=17 {
        assert!(ids.contains(&format!("E{e}").as_str()), "E{e} is missing");
    }
    let mut failures = Vec::new();
    for (line, cols) in &rows {
        let [id, fen, list, opts, ply, result, reason, why, pyffish] = &cols[..] else {
            panic!("line {line}: expected 9 columns");
        };
        // `pyffish`: Fairy-Stockfish's verdict on the same moves (checked against pyffish by
        // scripts/pyffish-repetition-check.py), `-` where it does not apply. Every place where
        // chuhe deliberately differs must say why in the row.
        if pyffish != "-" && pyffish != result && !why.contains("Fairy-Stockfish") {
            failures.push(format!(
                "{id} (line {line}): pyffish says {pyffish}, chuhe {result}, and the row does not say why"
            ));
        }
        let mut options = GameOptions::default();
        if opts != "-" {
            let value = opts
                .strip_prefix("no_capture_limit=")
                .unwrap_or_else(|| panic!("line {line}: unknown option {opts}"));
            options.no_capture_limit = value.parse().expect("plies");
        }
        let exp = if result == "ongoing" {
            Expected {
                ply: None,
                outcome: None,
            }
        } else {
            Expected {
                ply: Some(ply.parse().expect("ply")),
                outcome: Some(outcome(result, reason.parse().expect("reason word"))),
            }
        };
        let label = format!("{id} (line {line}: {why})");
        if let Err(e) = check_replay(&label, fen, &moves(list), options, &exp) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Game's verdict equals [`cycle_verdict`] on the cycle, and identities follow the pieces.
#[test]
fn game_verdict_is_the_cycle_verdict() {
    let e4: Position = "4k4/9/n8/9/9/9/2R6/9/9/3K5 w".parse().unwrap();
    let cycle = moves("c3a3 a7c8 a3c3 c8a7 c3a3 a7c8 a3c3 c8a7");
    let mut game = Game::new(e4.clone(), GameOptions::default());
    let sq = |s: &str| s.parse::<Square>().unwrap();
    let horse = game.piece_id(sq("a7")).unwrap();
    let chariot = game.piece_id(sq("c3")).unwrap();
    assert_eq!(game.piece_id(sq("e5")), None);
    for &m in &cycle[..2] {
        game.play(m).unwrap();
    }
    assert_eq!(game.piece_id(sq("c8")), Some(horse));
    assert_eq!(game.piece_id(sq("a3")), Some(chariot));
    assert_eq!(game.piece_id(sq("a7")), None);
    for &m in &cycle[2..] {
        game.play(m).unwrap();
    }
    let Status::Ended(o) = game.status().clone() else {
        panic!("E4 must end at ply 8");
    };
    assert_eq!(o, cycle_verdict(&e4, &cycle));
    assert_eq!(o.reason, EndReason::PerpetualChase);
    assert_eq!(game.position_at(0), Some(&e4));
    assert_eq!(game.position_at(8).map(|p| p.key()), Some(e4.key()));
    assert_eq!(game.position_at(9), None);
}

/// The slow reference of §6.4 built from legal-move lists only: X attacks P when X→P is a
/// candidate capture with the owner of X to move; legality, protection and exchanges come from
/// [`Position::legal_moves`]. `None` when a needed "other side to move" position is not valid
/// (the move gave check), so the case is skipped.
fn reference_chased(before: &Position, m: Move) -> Option<Bitboard> {
    let us = before.side_to_move();
    let mut after = before.clone();
    after.play(m).ok()?;
    let flip = |pos: &Position| -> Option<Position> {
        let mut setup: Setup = pos.to_setup();
        setup.side = setup.side.other();
        Position::from_setup(setup).ok()
    };
    // `after` with `us` to move again: only valid when `m` gave no check.
    let ours = flip(&after)?;
    let captures = |pos: &Position, legal: bool| -> Vec<Move> {
        let mut list = chuhe_rules::xiangqi::MoveList::new();
        if legal {
            pos.legal_moves_into(&mut list);
        } else {
            pos.candidate_moves(&mut list);
        }
        list.iter()
            .copied()
            .filter(|mv| pos.piece_at(mv.to).is_some())
            .collect()
    };
    let attacks_before = captures(before, false);
    let attacks_after = captures(&ours, false);
    let legal_after = captures(&ours, true);
    let their_legal = captures(&after, true);
    let mut chased = Bitboard::EMPTY;
    for x_move in attacks_after {
        let (x, p) = (x_move.from, x_move.to);
        let xp = ours.piece_at(x)?;
        let pp = ours.piece_at(p)?;
        use chuhe_rules::xiangqi::Kind::*;
        if matches!(xp.kind, General | Soldier) || pp.kind == General {
            continue;
        }
        if pp.kind == Soldier && p.is_on_side_of(pp.color) {
            continue;
        }
        let was = if x == m.to { m.from } else { x };
        if attacks_before.contains(&Move::new(was, p)) {
            continue;
        }
        if !legal_after.contains(&x_move) {
            continue;
        }
        if xp.kind == pp.kind && their_legal.contains(&Move::new(p, x)) {
            continue;
        }
        let always = matches!(xp.kind, Horse | Cannon) && pp.kind == Chariot;
        if !always {
            let mut taken = ours.clone();
            taken.play(x_move).ok()?;
            if captures(&taken, true).iter().any(|mv| mv.to == p) {
                continue;
            }
        }
        chased = chased.with(p);
    }
    let _ = us;
    Some(chased)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// [`chased_by`] agrees with the reference on every legal move of positions reached by
    /// random play from the start.
    #[test]
    fn chased_by_matches_reference(choices in proptest::collection::vec(any::<u16>(), 10..90)) {
        let mut pos = Position::start();
        let mut compared = 0;
        for c in choices {
            let list = pos.legal_moves();
            if list.is_empty() {
                break;
            }
            for &m in list.iter() {
                if let Some(reference) = reference_chased(&pos, m) {
                    prop_assert_eq!(
                        chased_by(&pos, m),
                        reference,
                        "{} {}",
                        pos,
                        m
                    );
                    compared += 1;
                }
            }
            pos.play(list[c as usize % list.len()]).unwrap();
        }
        prop_assert!(compared > 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The game ends by repetition exactly when a naive count of whole boards (plus side to
    /// move) reaches three, in sparse positions where random play repeats often.
    #[test]
    fn repetition_matches_naive_count(
        start in 0usize..3,
        choices in proptest::collection::vec(any::<u16>(), 1..200),
    ) {
        let fens = [
            "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
            "3ak4/4a4/9/9/4n4/9/9/2C6/4A4/4KA3 w - - 0 1",
            "5k3/9/9/9/9/9/9/9/4r4/3K1R3 b - - 0 1",
        ];
        let pos = Position::from_fen(fens[start]).unwrap();
        let options = GameOptions { no_capture_limit: 0, ..GameOptions::default() };
        let mut game = Game::new(pos.clone(), options);
        let mut seen = vec![(pos.to_setup().board, pos.side_to_move())];
        for c in choices {
            if *game.status() != Status::Ongoing {
                break;
            }
            // Choosing among the first few moves (bytewise order) makes positions recur often.
            let mut list = game.position().legal_moves();
            list.sort_by_text();
            let m = list[c as usize % list.len().min(4)];
            game.play(m).unwrap();
            let now = game.position();
            let here = (now.to_setup().board, now.side_to_move());
            let count = seen.iter().filter(|s| **s == here).count() + 1;
            seen.push(here);
            let repeated = count >= 3;
            let no_move = now.legal_moves().is_empty();
            match game.status() {
                Status::Ongoing => prop_assert!(!repeated && !no_move),
                Status::Ended(o) => {
                    if no_move {
                        prop_assert!(matches!(o.reason, EndReason::Checkmate | EndReason::Stalemate));
                    } else {
                        prop_assert!(count == 3, "ended at count {}", count);
                        prop_assert!(matches!(
                            o.reason,
                            EndReason::PerpetualCheck
                                | EndReason::PerpetualChase
                                | EndReason::ThreefoldRepetition
                        ));
                    }
                }
            }
        }
    }
}

/// The positions of `benches/judge.rs`: [`chased_by`] agrees with the reference on every legal
/// move (moves that give check excepted), and the bench's total of 14 chased pieces holds.
#[test]
fn bench_positions_match_reference() {
    let fens = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "4k4/9/n8/9/9/9/2R6/9/9/3K5 w - - 0 1",
        "4ck3/9/9/9/9/2r1R4/9/9/4A4/3AK4 b - - 0 1",
        "5k3/9/9/5C3/5c3/5C3/9/9/5p3/4K4 w - - 0 1",
    ];
    let mut total = 0;
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        for &m in pos.legal_moves().iter() {
            let ours = chased_by(&pos, m);
            if let Some(reference) = reference_chased(&pos, m) {
                assert_eq!(squares(ours), squares(reference), "{fen} {m}");
            }
            total += ours.count();
        }
    }
    assert_eq!(total, 14);
}
