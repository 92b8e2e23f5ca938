//! Property tests for banqi: secrecy (a view never holds more than the public history gives),
//! two independent paths agreeing (move generation vs the single-action check, play vs replay,
//! print vs parse), and no panic on any text.

use chuhe_rules::banqi::{Action, Cell, Game, Piece, Pool, Record, Square, Status, Truth, View};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// A uniformly shuffled deal as a truth text: every square pinned, no colours yet.
fn dealt_truth(rng: &mut StdRng) -> Truth {
    let full = Pool::full();
    let mut pieces: Vec<Piece> = (0..32).filter_map(|i| full.nth(i)).collect();
    pieces.shuffle(rng);
    let ranks: Vec<String> = (0..4)
        .map(|r| {
            pieces[r * 8..r * 8 + 8]
                .iter()
                .map(|p| format!("({})", p.letter()))
                .collect()
        })
        .collect();
    format!("{} - - 0", ranks.join("/")).parse().unwrap()
}

/// The same public information with the pins of the face-down squares shuffled among them.
fn reshuffled(truth: &Truth, rng: &mut StdRng) -> Truth {
    let text = truth.to_truth_text();
    let (board, rest) = text.split_once(' ').unwrap();
    let mut pins: Vec<char> = Vec::new();
    let mut chars = board.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '(' {
            pins.push(chars.next().unwrap());
            chars.next();
        }
    }
    pins.shuffle(rng);
    let mut out = String::new();
    let mut next = pins.into_iter();
    let mut chars = board.chars();
    while let Some(c) = chars.next() {
        if c == '(' {
            out.push('(');
            out.push(next.next().unwrap());
            out.push(')');
            chars.next();
            chars.next();
        } else {
            out.push(c);
        }
    }
    format!("{out} {rest}").parse().unwrap()
}

/// Every action a seat could ask for: 32 flips and every ordered pair of squares, both spellings.
fn every_request() -> Vec<Action> {
    let mut all = Vec::new();
    for from in Square::all() {
        all.push(Action::Flip(from));
        for to in Square::all() {
            all.push(Action::Move { from, to });
            all.push(Action::Capture { from, to });
        }
    }
    all
}

/// The view rebuilt from public information only: the start view and the recorded actions.
fn view_from_public_history(records: &[Record]) -> View {
    let mut view = View::start();
    for &r in records {
        view.play_recorded(r).expect("a recorded game replays");
    }
    view
}

fn check_view_is_public(game: &Game, truth_pool_check: bool) {
    let view = game.view();
    let text = view.to_string();
    // A view text names no face-down identity.
    assert!(!text.contains('('), "{text}");
    // The view equals the one rebuilt from the public history, byte for byte.
    assert_eq!(text, view_from_public_history(game.records()).to_string());
    assert_eq!(*view, view_from_public_history(game.records()));
    // It holds one pool piece per face-down square, and the pool is exactly the multiset of
    // the unrevealed identities (when the game knows them all in advance).
    let down = Square::all()
        .filter(|&s| view.cell(s) == Cell::FaceDown)
        .count();
    assert_eq!(view.pool().len(), down);
    if truth_pool_check {
        let truth_text = game.truth().to_truth_text();
        let pinned: Pool = {
            let mut p = Pool::EMPTY;
            for c in truth_text.split(' ').next().unwrap().split('(').skip(1) {
                p.add(Piece::from_letter(c.chars().next().unwrap()).unwrap());
            }
            p
        };
        assert_eq!(*view.pool(), pinned);
    }
    // The serialised view is the view text.
    assert_eq!(serde_json::to_string(view).unwrap(), format!("{text:?}"));
}

fn check_paths_agree(view: &View, requests: &[Action]) {
    let listed = view.legal_actions();
    let mut checked: Vec<Action> = requests
        .iter()
        .filter_map(|&a| view.check(a).ok())
        .collect();
    Action::sort_by_text(&mut checked);
    checked.dedup();
    assert_eq!(listed, checked, "{view}");
    // The list is sorted bytewise with no duplicates.
    let texts: Vec<String> = listed.iter().map(Action::to_string).collect();
    let mut sorted = texts.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(texts, sorted);
    // Print → parse → print.
    assert_eq!(view.to_string().parse::<View>().as_ref(), Ok(view));
}

/// Plays one random game. With `deal`, every identity is pinned in advance (flips reveal the
/// pins); without, flips draw from the pool with the game's seeded generator.
fn random_game(seed: u64, deal: bool, paths: bool) {
    let mut rng = StdRng::seed_from_u64(seed);
    let requests = every_request();
    let start = if deal {
        dealt_truth(&mut rng)
    } else {
        View::start().into()
    };
    let mut game = Game::with_rng(start, StdRng::seed_from_u64(seed ^ 0x5eed));
    for _ in 0..400 {
        check_view_is_public(&game, deal);
        if paths {
            check_paths_agree(game.view(), &requests);
        }
        if deal {
            // Another truth with the same public information is indistinguishable.
            let other = reshuffled(game.truth(), &mut rng);
            assert_eq!(other.view(), game.view());
            assert_eq!(format!("{other:?}"), format!("{:?}", game.truth()));
        }
        if *game.status() != Status::Ongoing {
            assert!(game.legal_moves().is_empty());
            assert!(game
                .play(Action::Flip(Square::from_index(0).unwrap()))
                .is_err());
            break;
        }
        let actions = game.legal_moves();
        assert!(!actions.is_empty(), "an ongoing game has a legal turn");
        // Prefer moves and captures once a few pieces are up, so games reach their ends.
        let action = if rng.random_bool(0.3) {
            actions[rng.random_range(0..actions.len())]
        } else {
            let non_flips: Vec<Action> = actions
                .iter()
                .copied()
                .filter(|a| !matches!(a, Action::Flip(_)))
                .collect();
            let pool = if non_flips.is_empty() {
                &actions
            } else {
                &non_flips
            };
            pool[rng.random_range(0..pool.len())]
        };
        let before = game.view().clone();
        let record = game.play(action).expect("a listed action is legal").record;
        assert_eq!(record.action(), action);
        if let Record::Flip { piece, .. } = record {
            assert!(before.pool().count(piece) > 0, "drawn from the pool");
        }
    }
    // The recorded game replays from the start view to the same view, with no secret.
    assert_eq!(*game.start_view(), View::start());
    let mut replayed = Game::new(game.start_view().clone().into());
    for &r in game.records() {
        replayed.play_recorded(r).expect("replay");
    }
    assert_eq!(replayed.view(), game.view());
    assert_eq!(replayed.status(), game.status());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn views_of_dealt_games_hold_only_public_information(seed in any::<u64>()) {
        random_game(seed, true, true);
    }

    #[test]
    fn views_of_drawn_games_hold_only_public_information(seed in any::<u64>()) {
        random_game(seed, false, false);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_panic_on_any_text(s in ".{0,80}") {
        let _ = s.parse::<Truth>();
        let _ = s.parse::<View>();
        let _ = s.parse::<Action>();
        let _ = s.parse::<Record>();
    }

    #[test]
    fn no_panic_on_near_miss_texts(
        deal in Just(FULL.chars().collect::<Vec<char>>()).prop_shuffle(),
        states in prop::collection::vec(0u8..4, 32),
        all_down in prop::bool::weighted(0.1),
        turn in 0usize..3,
        quiet in prop_oneof![0u32..=180, 181u32..1000],
        mutation in prop::option::of((0usize..120, prop::sample::select(
            vec!['?', '(', ')', '/', ' ', '1', '8', '9', 'K', 'p', 'B', '-', 'x']))),
        delete in any::<bool>(),
        action in "(flip )?[a-i][0-5][-x=]?[a-iKRp]?[0-5]?",
    ) {
        let text = grammar_text(&deal, &states, all_down, turn, quiet);
        let parsed = text.parse::<Truth>();
        // Written from the grammar by an independent writer, from a subset of the full set with
        // one pool piece per `?`: the text is valid unless its turn or quiet counter is off.
        let face_down = all_down || states.iter().all(|&s| s == 1 || s == 3);
        let turn_ok = (turn == 2) == face_down && (turn != 2 || quiet == 0);
        match &parsed {
            Ok(t) => prop_assert_eq!(t.to_truth_text(), text.clone()),
            Err(e) if quiet > 180 => prop_assert_eq!(e.kind_str(), "syntax"),
            Err(e) => prop_assert!(!turn_ok && e.kind_str() == "turn", "{}: {}", text, e),
        }
        prop_assert_eq!(parsed.is_ok(), turn_ok && quiet <= 180);
        let mut mutated = text.clone();
        if let Some((at, c)) = mutation {
            let at = at.min(mutated.len());
            if delete && at < mutated.len() {
                mutated.remove(at);
            } else {
                mutated.insert(at, c);
            }
        }
        for candidate in [text, mutated] {
            if let Ok(t) = candidate.parse::<Truth>() {
                // A text that reads back prints to itself (one spelling only).
                prop_assert_eq!(t.to_truth_text(), candidate.clone());
                let _ = t.view().legal_actions();
                let _ = t.view().verdict();
                let _ = candidate.parse::<View>();
                let mut g = Game::new(t);
                if let Ok(a) = action.parse::<Action>() {
                    let _ = g.play(a);
                }
                if let Ok(r) = action.parse::<Record>() {
                    let _ = g.play_recorded(r);
                }
            }
        }
    }
}

const FULL: &str = "KAAEERRHHCCPPPPPkaaeerrhhccppppp";

/// A text written straight from the grammar of `spec/banqi.md` §3.1, with no code of the crate.
/// Square `i` holds `deal[i]` in state `states[i]`: 0 empty (captured), 1 face down `?` (its
/// piece goes to the pool), 2 face up, 3 face down pinned; with `all_down` every square is face
/// down. `turn` 0, 1, 2 = `r`, `b`, `-`.
fn grammar_text(deal: &[char], states: &[u8], all_down: bool, turn: usize, quiet: u32) -> String {
    let state = |i: usize| {
        if all_down {
            1 + 2 * (states[i] % 2)
        } else {
            states[i]
        }
    };
    let mut ranks = Vec::new();
    let mut pool: Vec<char> = Vec::new();
    for rank in (0..4).rev() {
        let mut out = String::new();
        let mut empty = 0;
        for file in 0..8 {
            let i = rank * 8 + file;
            if state(i) == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            match state(i) {
                1 => {
                    out.push('?');
                    pool.push(deal[i]);
                }
                2 => out.push(deal[i]),
                _ => out.push_str(&format!("({})", deal[i])),
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        ranks.push(out);
    }
    pool.sort_by_key(|&c| "KAERHCPkaerhcp".find(c));
    let pool: String = pool.into_iter().collect();
    format!(
        "{} {} {} {}",
        ranks.join("/"),
        ["r", "b", "-"][turn],
        if pool.is_empty() { "-" } else { &pool },
        quiet
    )
}
