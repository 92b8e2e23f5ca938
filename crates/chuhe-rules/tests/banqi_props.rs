//! Property tests for banqi: secrecy (a view never holds more than the public history gives),
//! two independent paths agreeing (move generation vs the single-action check, play vs replay,
//! print vs parse), and no panic on any text.

use chuhe_rules::banqi::{Action, Cell, Game, Piece, Pool, Record, Square, Status, Truth, View};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

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
            assert!(game.legal_actions().is_empty());
            assert!(game
                .play(Action::Flip(Square::from_index(0).unwrap()))
                .is_err());
            break;
        }
        let actions = game.legal_actions();
        assert!(!actions.is_empty(), "an ongoing game has a legal turn");
        // Prefer moves and captures once a few pieces are up, so games reach their ends.
        let action = if rng.gen_bool(0.3) {
            actions[rng.gen_range(0..actions.len())]
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
            pool[rng.gen_range(0..pool.len())]
        };
        let before = game.view().clone();
        let record = game.play(action).expect("a listed action is legal");
        assert_eq!(record.action(), action);
        if let Record::Flip { piece, .. } = record {
            assert!(before.pool().count(piece) > 0, "drawn from the pool");
        }
    }
    // The recorded game replays from the start view to the same view, with no secret.
    let mut replayed = Game::new(View::start().into());
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
        s in "[1-9?()KAERHCPkaerhcpB/]{0,40} [rb-]{1,2} [KAERHCPkaerhcp-]{0,34} [0-9]{1,4}",
        a in "(flip )?[a-i][0-5][-x=]?[a-iKRp]?[0-5]?",
    ) {
        if let Ok(t) = s.parse::<Truth>() {
            // A text that reads back prints to itself (one spelling only).
            prop_assert_eq!(t.to_truth_text(), s.clone());
            let _ = t.view().legal_actions();
            let _ = t.view().verdict();
            let mut g = Game::new(t);
            if let Ok(action) = a.parse::<Action>() {
                let _ = g.play(action);
            }
            if let Ok(record) = a.parse::<Record>() {
                let _ = g.play_recorded(record);
            }
        }
    }
}
