//! Every case of `tests/data/sanguo.md` (the sanguo rule cases), read from the
//! file: the document is walked span by span (the text between backticks) and each statement it
//! makes becomes a check.
//!
//! * a position text sets the position of the following checks; after `After:` or `Final text:`
//!   it is the expected text of the latest replay (and the position of the checks that follow);
//! * a move list after `Legal moves (all)` is the complete sorted `moves` output; after
//!   `Moves from` (or in a table row) it is the output lines of that piece;
//! * `Replay` + a move list plays the moves from the section's position with the game rules;
//!   `winners`, `reason`, `running`, `defeat event (...)`, `After ply N` and `the side to move
//!   is` state what that replay must give;
//! * TK-01's invariants, perft table and symmetry line, TK-19's table (table rules) and TK-20's
//!   bookkeeping lines have their own readers below.
//!
//! The number of checks per case is pinned, so a change of the document that the reader no
//! longer understands fails instead of passing silently.

use chuhe_rules::outcome::{EndReason, Side};
use chuhe_rules::sanguo::{graph, perft, Game, Kingdom, Move, Position, Quit, Status};
use std::collections::{BTreeMap, HashMap};

fn document() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/sanguo.md");
    std::fs::read_to_string(path).expect("tests/data/sanguo.md is readable")
}

/// The `## TK-xx` sections: (id, text after the heading line).
fn sections(doc: &str) -> Vec<(String, String)> {
    doc.split("\n## ")
        .skip(1)
        .filter(|s| s.starts_with("TK-"))
        .map(|s| {
            let id = s.split_whitespace().next().unwrap_or_default().to_owned();
            let body = s.split_once('\n').map_or("", |(_, b)| b).to_owned();
            (id, body)
        })
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_position_text(s: &str) -> bool {
    let fields: Vec<&str> = s.split(' ').collect();
    fields.len() == 6 && fields[0].matches(',').count() == 2
}

fn parse_moves(s: &str) -> Option<Vec<Move>> {
    let moves: Option<Vec<Move>> = s.split_whitespace().map(|t| t.parse().ok()).collect();
    moves.filter(|m| !m.is_empty())
}

fn position(text: &str) -> Position {
    Position::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `chuhe moves`: every legal move's text, sorted bytewise.
fn move_texts(pos: &Position) -> Vec<String> {
    let mut out: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect();
    out.sort();
    out
}

fn kingdom_named(name: &str) -> Option<Kingdom> {
    Kingdom::ALL
        .into_iter()
        .find(|k| k.name().eq_ignore_ascii_case(name))
}

fn winners_of(list: &str) -> Vec<Side> {
    list.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            kingdom_named(s)
                .unwrap_or_else(|| panic!("kingdom {s:?}"))
                .side()
        })
        .collect()
}

#[derive(Clone, Debug)]
struct Replay {
    base: String,
    moves: Vec<Move>,
}

impl Replay {
    fn run(&self, plies: Option<usize>) -> Game {
        let mut game = Game::new(position(&self.base));
        for (i, &m) in self
            .moves
            .iter()
            .take(plies.unwrap_or(usize::MAX))
            .enumerate()
        {
            if let Err(e) = game.play(m) {
                panic!("{}: ply {}: {} ({e})", self.base, i + 1, m.text(false));
            }
        }
        game
    }
}

/// Walks one section; returns the number of checks made. `steps` receives the replay in force
/// at each numbered step (`(id, n)`; `(id, 0)` for a section without numbered steps).
fn walk(id: &str, body: &str, steps: &mut HashMap<(String, usize), Replay>) -> usize {
    let mut checks = 0;
    let parts: Vec<&str> = body.split('`').collect();
    assert!(parts.len() % 2 == 1, "{id}: unbalanced backticks");
    let mut base: Option<String> = None;
    let mut current: Option<String> = None;
    let mut replay: Option<Replay> = None;
    let mut at_ply: Option<usize> = None;
    let mut step = 0usize;
    let mut context = String::new();
    let ctx = |id: &str, what: &str| format!("{id}: {what}");

    for (i, raw) in parts.iter().enumerate() {
        if i % 2 == 0 {
            // Prose: numbered steps, "After ply N", "running", defeat events, doubled replays.
            let prose = *raw;
            for line in prose.split('\n').skip(usize::from(i > 0)) {
                let t = line.trim_start();
                if let Some((n, _)) = t.split_once(". ") {
                    if let Ok(n) = n.parse::<usize>() {
                        step = n;
                    }
                }
            }
            if prose.contains("the same six moves again") {
                let r = replay.as_mut().expect("a replay to repeat");
                assert_eq!(r.moves.len(), 6, "{id}: six moves to repeat");
                let again = r.moves.clone();
                r.moves.extend(again);
            }
            let mut rest = prose;
            loop {
                let next_ply = rest.find("After ply ");
                let next_running = rest.find("running");
                let next_event = rest.find("defeat event (");
                let first = [next_ply, next_running, next_event]
                    .into_iter()
                    .flatten()
                    .min();
                let Some(at) = first else { break };
                if Some(at) == next_ply {
                    let digits: String = rest[at + 10..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    at_ply = Some(digits.parse().expect("ply number"));
                    rest = &rest[at + 10..];
                } else if Some(at) == next_running {
                    let r = replay.as_ref().expect("a replay before 'running'");
                    let game = r.run(at_ply);
                    assert_eq!(*game.status(), Status::Ongoing, "{}", ctx(id, "running"));
                    checks += 1;
                    rest = &rest[at + 7..];
                } else {
                    let inner = &rest[at + 14..];
                    let end = inner.find(')').expect("closing parenthesis");
                    let fields: Vec<&str> = inner[..end].split(", ").collect();
                    let kingdom = kingdom_named(fields[0]).expect("defeated kingdom");
                    let reason: EndReason = fields[1].parse().expect("reason word");
                    let heir = kingdom_named(fields[2].trim_start_matches("heir ")).expect("heir");
                    let game = replay.as_ref().expect("a replay").run(at_ply);
                    assert!(
                        game.defeats().iter().any(|e| e.defeat.kingdom == kingdom
                            && e.defeat.reason == reason
                            && e.defeat.heir == heir),
                        "{}: {:?}",
                        ctx(id, "defeat event"),
                        game.defeats()
                    );
                    checks += 1;
                    rest = &inner[end..];
                }
            }
            context.push_str(prose);
            if let Some(r) = &replay {
                steps.insert((id.to_owned(), step), r.clone());
            }
            continue;
        }

        let span = squash(raw);
        let before = context.trim_end().to_owned();
        if is_position_text(&span) {
            if before.ends_with("After:") || before.ends_with("Final text:") {
                let r = replay.as_ref().expect("a replay before an after text");
                let game = r.run(at_ply);
                assert_eq!(
                    game.position().to_string(),
                    span,
                    "{}",
                    ctx(id, "after text")
                );
                checks += 1;
            } else {
                base = Some(span.clone());
                replay = None;
            }
            current = Some(span);
            context.clear();
        } else if let Some(rest) = span.strip_prefix("... ") {
            let game = replay.as_ref().expect("a replay").run(at_ply);
            assert!(
                game.position().to_string().ends_with(&format!(" {rest}")),
                "{}: {} does not end with {rest}",
                ctx(id, "partial text"),
                game.position()
            );
            checks += 1;
        } else if let Some(moves) = parse_moves(&span) {
            if before.ends_with("Replay") {
                let r = Replay {
                    base: base.clone().expect("a position before a replay"),
                    moves,
                };
                r.run(None);
                checks += 1;
                replay = Some(r);
                at_ply = None;
                steps.insert((id.to_owned(), step), replay.clone().expect("just set"));
            } else if before.contains("Legal moves (all)") {
                let pos = position(current.as_deref().expect("a position"));
                let want: Vec<String> = span.split(' ').map(str::to_owned).collect();
                assert_eq!(move_texts(&pos), want, "{}", ctx(id, "all moves"));
                checks += 1;
            } else if before.contains("oves from")
                || context
                    .rsplit('\n')
                    .next()
                    .is_some_and(|l| l.trim_start().starts_with('|'))
            {
                let pos = position(current.as_deref().expect("a position"));
                let from = moves[0].from;
                assert!(
                    moves.iter().all(|m| m.from == from),
                    "{id}: one piece per list"
                );
                let got: Vec<String> = move_texts(&pos)
                    .into_iter()
                    .filter(|t| t.starts_with(&from.to_string()))
                    .collect();
                let want: Vec<String> = span.split(' ').map(str::to_owned).collect();
                assert_eq!(got, want, "{}", ctx(id, &format!("moves from {from}")));
                checks += 1;
            }
            context.clear();
        } else {
            if span.starts_with('[') && before.contains("winners") {
                let game = replay.as_ref().expect("a replay").run(at_ply);
                match game.status() {
                    Status::Ended(o) => {
                        assert_eq!(o.winners, winners_of(&span), "{}", ctx(id, "winners"))
                    }
                    Status::Ongoing => panic!("{}", ctx(id, "expected the game to end")),
                }
                checks += 1;
            } else if before.ends_with("reason") {
                let reason: EndReason = span.parse().expect("reason word");
                let game = replay.as_ref().expect("a replay").run(at_ply);
                match game.status() {
                    Status::Ended(o) => assert_eq!(o.reason, reason, "{}", ctx(id, "reason")),
                    Status::Ongoing => panic!("{}", ctx(id, "expected the game to end")),
                }
                checks += 1;
            } else if before.ends_with("the side to move is") && span.len() == 1 {
                let want = Kingdom::from_letter(span.chars().next().unwrap_or('?'));
                let pos = position(current.as_deref().expect("a position"));
                let moves = pos.legal_moves();
                assert!(!moves.is_empty(), "{id}: moves to try");
                for m in moves {
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    assert_eq!(Some(next.side_to_move()), want, "{id}: after {m:?}");
                }
                checks += 1;
            }
            context.push_str(&span);
        }
    }
    checks
}

/// TK-01: the graph invariants of the first paragraph, the perft table, the symmetry line.
fn opening(body: &str) -> usize {
    let mut checks = 0;
    let flat = squash(body);
    let number_before = |word: &str| -> usize {
        let at = flat
            .find(word)
            .unwrap_or_else(|| panic!("TK-01 mentions {word:?}"));
        let digits: String = flat[..at]
            .chars()
            .rev()
            .skip_while(|c| c.is_whitespace())
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        digits.parse().expect("a number")
    };
    let g = graph();
    let points = chuhe_rules::sanguo::Point::all().count();
    assert_eq!(points, number_before(" points"));
    let edges = g.edges().len();
    assert_eq!(edges, number_before(" edges"));
    let quads = g.cells().iter().filter(|c| c.len() == 4).count();
    assert_eq!(quads, number_before(" quadrilateral cells"));
    let triangles = g.cells().iter().filter(|c| c.len() == 3).count();
    assert_eq!(triangles, number_before(" triangle;"));
    // Euler: V − E + F = 2 with the outer face.
    assert_eq!(points + g.cells().len() + 1, edges + 2);
    checks += 5;

    let hist_text = flat
        .split("degree histogram ")
        .nth(1)
        .and_then(|s| s.split(" (").next())
        .expect("a degree histogram");
    let mut want = BTreeMap::new();
    for pair in hist_text.split(", ") {
        let (d, n) = pair.split_once(": ").expect("degree: count");
        want.insert(
            d.parse::<usize>().expect("degree"),
            n.parse::<usize>().expect("count"),
        );
    }
    let mut got = BTreeMap::new();
    for p in chuhe_rules::sanguo::Point::all() {
        *got.entry(g.neighbours(p).len()).or_insert(0) += 1;
    }
    assert_eq!(got, want, "degree histogram");
    let tips: Vec<String> = chuhe_rules::sanguo::Point::all()
        .filter(|&p| g.neighbours(p).len() == 5)
        .map(|p| p.to_string())
        .collect();
    assert!(
        flat.contains(&format!("the tips `{}`", tips.join(" "))),
        "{tips:?}"
    );
    checks += 2;

    // Named start positions: "Start, flags off:" followed by the text.
    let mut starts: Vec<(String, String)> = Vec::new();
    let parts: Vec<&str> = body.split('`').collect();
    for i in (1..parts.len()).step_by(2) {
        let before = parts[i - 1].trim_end();
        if let Some(head) = before.strip_suffix(':') {
            if let Some(name) = head
                .rsplit("Start, ")
                .next()
                .filter(|_| head.contains("Start, "))
            {
                starts.push((name.to_owned(), parts[i].to_owned()));
            }
        }
    }
    assert_eq!(starts.len(), 2, "two named start positions");
    for line in body.lines().filter(|l| l.starts_with("| flags")) {
        let cells: Vec<&str> = line
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let text = &starts
            .iter()
            .find(|(n, _)| n == cells[0])
            .expect("a named start")
            .1;
        let pos = position(text);
        for (depth, cell) in cells[1..].iter().enumerate() {
            let nodes: u64 = cell.replace(',', "").parse().expect("a node count");
            assert_eq!(
                perft(&pos, depth as u32 + 1, true),
                nodes,
                "{} depth {}",
                cells[0],
                depth + 1
            );
            checks += 1;
        }
    }

    // "Symmetry: the same board with `G` or `B` to move has ... the rotated images of Shu's".
    let sym = body.split("Symmetry:").nth(1).expect("a symmetry line");
    let letters: Vec<char> = sym
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|s| s.chars().next().filter(|_| s.len() == 1))
        .collect();
    assert_eq!(letters, ['G', 'B']);
    for (_, text) in &starts {
        let shu = position(text);
        let mut images: Vec<Move> = shu.legal_moves();
        for &letter in &letters {
            images = images.into_iter().map(Move::rotated).collect();
            let fields: Vec<&str> = text.split(' ').collect();
            let turned = format!("{} {letter} {}", fields[0], fields[2..].join(" "));
            let mut got = position(&turned).legal_moves();
            got.sort();
            let mut want = images.clone();
            want.sort();
            assert_eq!(got, want, "{turned}");
            checks += 1;
        }
    }
    checks
}

/// TK-19: the table of quitting situations.
fn table_rules(body: &str) -> usize {
    let mut checks = 0;
    for line in body
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| situation"))
    {
        let cells: Vec<&str> = line
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let (situation, expected) = (cells[0], cells[1]);
        let mut defeated = [false; 3];
        let mut side = None;
        for k in Kingdom::ALL {
            let name = format!("{}{}", k.name()[..1].to_uppercase(), &k.name()[1..]);
            defeated[k.index()] = situation.contains(&format!("{name} defeated earlier"));
            if situation.contains(&format!("during {name}'s turn")) {
                side = Some(k);
            }
        }
        let mut verbs: Vec<(usize, Quit)> = [
            ("resigns", Quit::Resignation),
            ("times out", Quit::Timeout),
            ("leaves", Quit::Abandonment),
        ]
        .into_iter()
        .filter_map(|(w, q)| situation.find(w).map(|at| (at, q)))
        .collect();
        verbs.sort_by_key(|&(at, _)| at);
        assert!(!verbs.is_empty(), "TK-19: an action in {situation:?}");
        let actor = Kingdom::ALL
            .into_iter()
            .filter_map(|k| {
                let name = format!("{}{}", k.name()[..1].to_uppercase(), &k.name()[1..]);
                situation[..verbs[0].0].rfind(&name).map(|at| (at, k))
            })
            .max()
            .expect("an actor")
            .1;
        let active: Vec<Kingdom> = Kingdom::ALL
            .into_iter()
            .filter(|k| !defeated[k.index()])
            .collect();
        let side = side.unwrap_or(active[0]);
        let halves: Vec<String> = Kingdom::ALL
            .iter()
            .map(|k| {
                if defeated[k.index()] {
                    "9/9/9/9/9".to_owned()
                } else {
                    format!("9/9/9/9/3{}K5", k.owner_letter())
                }
            })
            .collect();
        let letters: String = Kingdom::ALL
            .iter()
            .filter(|k| defeated[k.index()])
            .map(|k| k.letter())
            .collect();
        let text = format!(
            "{} {} - {} - 0",
            halves.join(","),
            side.letter(),
            if letters.is_empty() {
                "-".to_owned()
            } else {
                letters
            }
        );
        let spans: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let reasons: Vec<EndReason> = spans.iter().filter_map(|s| s.parse().ok()).collect();
        for (i, &(_, how)) in verbs.iter().enumerate() {
            let mut game = Game::new(position(&text));
            let foreseen = game.ending_if(actor, how);
            let ended = game.quit(actor, how).is_ok();
            assert_eq!(
                foreseen.as_ref(),
                ended.then(|| game.status()),
                "{situation}"
            );
            if expected.contains("nothing happens") {
                assert!(!ended, "{situation}");
                assert_eq!(*game.status(), Status::Ongoing, "{situation}");
                assert!(!game.legal_moves().is_empty(), "{situation}: play goes on");
            } else {
                assert!(ended, "{situation}");
                let winners = spans.iter().find(|s| s.starts_with('[')).expect("winners");
                match game.status() {
                    Status::Ended(o) => {
                        assert_eq!(o.winners, winners_of(winners), "{situation}");
                        assert_eq!(o.reason, reasons[i], "{situation}");
                    }
                    Status::Ongoing => panic!("{situation}: expected the end"),
                }
                // Quitting again after the end changes nothing.
                assert!(game.quit(actor, how).is_err());
                assert_eq!(game.ending_if(actor, how), None);
            }
            checks += 1;
        }
    }
    checks
}

/// The replay named `TK-xx step n` (or `TK-xx` alone).
fn named_replay(text: &str, steps: &HashMap<(String, usize), Replay>) -> Replay {
    let mut words = text.split_whitespace();
    let id = words
        .next()
        .expect("a case id")
        .trim_end_matches([',', ')', '.'])
        .to_owned();
    let step = match (words.next(), words.next()) {
        (Some("step"), Some(n)) => n.trim_end_matches([',', ')']).parse().expect("step"),
        _ => 0,
    };
    steps
        .get(&(id.clone(), step))
        .unwrap_or_else(|| panic!("no replay for {id} step {step}"))
        .clone()
}

/// TK-17's last line and TK-20: turn order and bookkeeping after named replays.
fn bookkeeping(id: &str, body: &str, steps: &HashMap<(String, usize), Replay>) -> usize {
    let mut checks = 0;
    for line in body.split("\n* ").map(squash) {
        if let Some(rest) = line.strip_prefix("After TK-") {
            let name = format!("TK-{}", rest.split(" (").next().unwrap_or_default());
            let order_text = line.split("the order is ").nth(1).expect("an order");
            let want: Vec<Kingdom> = order_text
                .split(", ")
                .filter_map(|w| kingdom_named(w.trim_end_matches([',', '…', ' '])))
                .collect();
            assert!(want.len() >= 4, "{id}: {line}");
            let mut game = named_replay(&name, steps).run(None);
            let mut got = Vec::new();
            for _ in 0..want.len() {
                got.push(game.position().side_to_move());
                let pos = game.position().clone();
                let mut moves: Vec<Move> = game.legal_moves();
                moves.sort_by_key(|&m| (pos.piece_at(m.to).is_some(), pos.move_text(m)));
                let m = *moves.first().expect("a legal move");
                game.play(m).expect("legal");
            }
            assert_eq!(got, want, "{id}: {line}");
            checks += 1;
        } else if line.contains("the last-mover field stays") {
            let parts: Vec<&str> = line.split('`').collect();
            for i in (1..parts.len()).step_by(2) {
                let Some(name) = parts[i + 1].trim_start().strip_prefix("in ") else {
                    continue;
                };
                let game = named_replay(name, steps).run(None);
                assert_eq!(
                    game.position().last_mover().map(Kingdom::letter),
                    parts[i].chars().next(),
                    "{id}: {name}"
                );
                assert!(game
                    .defeats()
                    .iter()
                    .any(|e| e.defeat.reason == EndReason::NoLegalMove));
                checks += 1;
            }
        } else if line.contains("also resets") {
            let refs = line
                .split(" (")
                .last()
                .expect("references")
                .trim_end_matches(").");
            for name in refs.split(", ") {
                let game = named_replay(name, steps).run(None);
                assert_eq!(game.position().quiet(), 0, "{id}: {name}");
                assert!(game
                    .defeats()
                    .iter()
                    .any(|e| e.defeat.reason == EndReason::NoLegalMove));
                checks += 1;
            }
        }
    }
    checks
}

#[test]
fn every_case_of_the_document() {
    let doc = document();
    let mut steps = HashMap::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (id, body) in sections(&doc) {
        let n = match id.as_str() {
            "TK-01" => opening(&body) + walk(&id, &body, &mut steps),
            "TK-19" => table_rules(&body),
            _ => walk(&id, &body, &mut steps),
        };
        counts.insert(id, n);
    }
    for (id, body) in sections(&doc) {
        if id == "TK-17" || id == "TK-20" {
            *counts.get_mut(&id).expect("counted") += bookkeeping(&id, &body, &steps);
        }
    }
    let pinned: BTreeMap<String, usize> = [
        ("TK-01", 19),
        ("TK-02", 1),
        ("TK-04", 2),
        ("TK-06", 9),
        ("TK-07", 7),
        ("TK-08", 4),
        ("TK-10", 9),
        ("TK-11", 5),
        ("TK-14", 2),
        ("TK-15", 4),
        ("TK-16", 7),
        ("TK-17", 8),
        ("TK-19", 6),
        ("TK-20", 4),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(counts, pinned, "checks per case");
}

/// TK-20's last line has no board: "If two kingdoms are found without moves one after the
/// other, both armies go to the same last mover, who then wins." Here Wu's general (`Gd1`) and
/// Wei's (`Bd1`) are boxed in by Shu soldiers on `Ge2` and `Be2` (which attack `e1` and `d2`),
/// and Wu's elephant on `Gc1` has both eyes (`Gb2`, `Gd2`) blocked. After any Shu move Wu is
/// defeated, then Wei; both armies go to Shu, which wins.
#[test]
fn two_kingdoms_without_moves_in_a_row() {
    let start = "9/9/9/9/3rK4rR,9/9/9/1rP1rPrP4/2gEgK5,9/9/9/4rP4/3bK5 R - - - 0";
    let mut game = Game::new(position(start));
    game.play("Ri1-Ri2".parse().expect("move")).expect("legal");
    assert_eq!(
        game.position().to_string(),
        "9/9/9/8rR/3rK5,9/9/9/1rP1rPrP4/2rE~g6,9/9/9/4rP4/9 R R GB - 0"
    );
    let defeats: Vec<(Kingdom, EndReason, Kingdom)> = game
        .defeats()
        .iter()
        .map(|e| (e.defeat.kingdom, e.defeat.reason, e.defeat.heir))
        .collect();
    assert_eq!(
        defeats,
        [
            (Kingdom::Wu, EndReason::NoLegalMove, Kingdom::Shu),
            (Kingdom::Wei, EndReason::NoLegalMove, Kingdom::Shu)
        ]
    );
    assert_eq!(
        *game.status(),
        Status::Ended(chuhe_rules::Outcome::win(Side::Shu, EndReason::NoLegalMove))
    );
}

/// The worked examples of `spec/sanguo.md` §4.2 that `cases/sanguo.md` does not repeat
/// (`tests/data/sanguo-examples.tsv`: text, point, its moves in `chuhe moves` order, source).
#[test]
fn worked_examples_of_the_spec() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/sanguo-examples.tsv"
    );
    let text = std::fs::read_to_string(path).expect("tests/data/sanguo-examples.tsv is readable");
    let mut rows = 0;
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let got: Vec<String> = move_texts(&position(cols[0]))
            .into_iter()
            .filter(|m| m.starts_with(cols[1]))
            .collect();
        assert_eq!(got.join(" "), cols[2], "{}", cols[3]);
        rows += 1;
    }
    assert_eq!(rows, 4);
}
