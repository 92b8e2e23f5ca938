//! The table core's tests: each message against each phase, the clocks, offers, rematches
//! and the computer's answers, on states built from events.

use super::*;
use crate::protocol::{ClientMessage, Defeat, TimeControl};
use crate::variant::Variant;
use chuhe_rules::outcome::{EndReason, Side};
use decide::ended;

fn person(id: &str, account: bool) -> Person {
    Person {
        id: id.to_owned(),
        name: id.to_uppercase(),
        account,
    }
}

fn options(variant: Variant, time: Option<TimeControl>, rated: bool) -> TableOptions {
    let options = TableOptions {
        variant,
        time,
        rated,
        no_capture_limit: None,
        flag_bearers: None,
        start_when_full: false,
        fen: None,
        tournament: None,
        berserkable: false,
    };
    super::super::check_options(options).expect("good options")
}

/// A table after its `created` event.
fn open(variant: Variant, time: Option<TimeControl>, rated: bool) -> TableState {
    let options = options(variant, time, rated);
    let created = Event::Created {
        options: options.clone(),
    };
    TableState::replay("t".to_owned(), options, 0, [&created], Instant::now()).unwrap()
}

/// `sit` in seat `n`.
fn sit(n: usize) -> ClientMessage {
    ClientMessage::Sit { seat: Seat::new(n) }
}

/// The `sat` event of `p` in seat `n`.
fn sat(n: usize, p: &Person) -> Event {
    Event::Sat {
        seat: Seat::new(n),
        player: seated(p),
    }
}
fn seated(p: &Person) -> SeatPlayer {
    SeatPlayer::Person {
        id: p.id.clone(),
        name: p.name.clone(),
        account: p.account,
        bot: false,
    }
}

/// A started table with a person in every seat (`players[seat]`), started at `at`.
fn running(variant: Variant, time: Option<TimeControl>, at: Instant) -> (TableState, Vec<Person>) {
    let mut state = open(variant, time, false);
    let players: Vec<Person> = ["a", "b", "c"][..variant.seat_count()]
        .iter()
        .map(|id| person(id, false))
        .collect();
    for (seat, p) in Seat::all(players.len()).zip(&players) {
        let sat = Event::Sat {
            seat,
            player: seated(p),
        };
        state.apply(&sat, at).unwrap();
    }
    state.apply(&Event::Started, at).unwrap();
    (state, players)
}

const ALL: &[bool] = &[true, true, true];

fn ask(
    state: &TableState,
    who: Option<&Person>,
    msg: ClientMessage,
) -> Result<Decision, ServerError> {
    ask_at(state, who, msg, Instant::now())
}

fn ask_at(
    state: &TableState,
    who: Option<&Person>,
    msg: ClientMessage,
    now: Instant,
) -> Result<Decision, ServerError> {
    let caller = Caller {
        person: who,
        connected: &ALL[..state.seats.len()],
    };
    decide(state, caller, &msg, now)
}

/// The events of a decision, an offer to the computer answered as the actor answers it.
fn events(d: Result<Decision, ServerError>, state: &TableState) -> Vec<Event> {
    match d {
        Ok(Decision::Events(e)) => e,
        Ok(Decision::OfferToComputer { seat, computer }) => draw_offered_to_computer(
            seat,
            computer,
            crate::computer::accepts_draw(&state.game, computer),
        ),
        other => panic!("events expected, got {other:?}"),
    }
}

fn refused(d: Result<Decision, ServerError>) -> ServerError {
    d.expect_err("a refusal")
}

fn not_allowed(text: &str) -> ServerError {
    ServerError::NotAllowed(text.to_owned())
}

fn mv(version: u64, text: &str) -> ClientMessage {
    ClientMessage::Move {
        version,
        mv: text.to_owned(),
    }
}

/// Decides and plays a move of `who`, returning its events (applied).
fn play_move(state: &mut TableState, who: &Person, text: &str, at: Instant) -> Vec<Event> {
    match ask_at(state, Some(who), mv(state.version, text), at).unwrap() {
        Decision::Play { seat, mv } => play(state, seat, mv, at).unwrap(),
        other => panic!("a move expected, got {other:?}"),
    }
}

fn apply_all(state: &mut TableState, events: &[Event]) {
    for e in events {
        state.apply(e, Instant::now()).unwrap();
    }
}

const MINUTE: Option<TimeControl> = Some(TimeControl {
    initial_ms: 60_000,
    increment_ms: 0,
});

#[test]
fn sit_takes_a_free_seat() {
    let state = open(Variant::Xiangqi, None, false);
    let a = person("a", false);
    let got = events(ask(&state, Some(&a), sit(1)), &state);
    assert_eq!(got, vec![sat(1, &a)]);
}

#[test]
fn sit_refuses_a_taken_seat_a_bad_seat_a_second_seat_and_no_session() {
    let mut state = open(Variant::Xiangqi, None, false);
    let (a, b) = (person("a", false), person("b", false));
    apply_all(&mut state, &[sat(0, &a)]);
    assert_eq!(
        refused(ask(&state, Some(&b), sit(0))),
        ServerError::Conflict("seat 0 is taken".to_owned())
    );
    for (seat, text) in [
        (2, "seat 2 does not exist (seats 0 to 1)"),
        (300, "seat 300 does not exist (seats 0 to 1)"),
    ] {
        let sit = sit(seat);
        assert_eq!(
            refused(ask(&state, Some(&b), sit)),
            ServerError::BadMessage(text.to_owned())
        );
    }
    assert_eq!(
        refused(ask(&state, Some(&a), sit(1))),
        ServerError::Conflict("you already sit at this table".to_owned())
    );
    assert_eq!(
        refused(ask(&state, None, sit(1))),
        ServerError::Unauthorized("sitting needs a session".to_owned())
    );
}

#[test]
fn a_rated_table_seats_account_holders_only() {
    let state = open(Variant::Xiangqi, None, true);
    assert_eq!(
        refused(ask(&state, Some(&person("g", false)), sit(0))),
        ServerError::Unauthorized("rated tables are for account holders".to_owned())
    );
    let holder = person("h", true);
    assert_eq!(
        events(ask(&state, Some(&holder), sit(0)), &state),
        vec![sat(0, &holder)]
    );
}

#[test]
fn the_computer_sits_at_levels_1_to_8_for_a_seated_caller_on_unrated_tables() {
    let mut state = open(Variant::Xiangqi, None, false);
    let a = person("a", false);
    let computer = |level| ClientMessage::SitComputer {
        seat: Seat::new(1),
        level,
    };
    assert_eq!(
        refused(ask(&state, Some(&a), computer(3))),
        ServerError::NotSeated
    );
    apply_all(&mut state, &[sat(0, &a)]);
    for level in [0, 9] {
        assert_eq!(
            refused(ask(&state, Some(&a), computer(level))),
            ServerError::BadMessage("level must be between 1 and 8".to_owned())
        );
    }
    for level in [1, 8] {
        assert_eq!(
            events(ask(&state, Some(&a), computer(level)), &state),
            vec![Event::Sat {
                seat: Seat::new(1),
                player: SeatPlayer::Computer { level }
            }]
        );
    }
    assert_eq!(
        refused(ask(
            &state,
            Some(&a),
            ClientMessage::SitComputer {
                seat: Seat::new(0),
                level: 1
            }
        )),
        ServerError::Conflict("seat 0 is taken".to_owned())
    );
    let mut rated = open(Variant::Xiangqi, None, true);
    let h = person("h", true);
    apply_all(&mut rated, &[sat(0, &h)]);
    assert_eq!(
        refused(ask(&rated, Some(&h), computer(3))),
        not_allowed("the computer does not play rated games")
    );
}

#[test]
fn stand_frees_the_callers_seat_before_the_start_only() {
    let mut state = open(Variant::Xiangqi, None, false);
    let a = person("a", false);
    assert_eq!(
        refused(ask(&state, Some(&a), ClientMessage::Stand {})),
        ServerError::NotSeated
    );
    apply_all(&mut state, &[sat(1, &a)]);
    let stood = events(ask(&state, Some(&a), ClientMessage::Stand {}), &state);
    assert_eq!(stood, vec![Event::Stood { seat: Seat::new(1) }]);
    apply_all(&mut state, &stood);
    assert_eq!(state.seats, vec![None, None]);
    assert_eq!(state.version, 3);
    let (state, players) = running(Variant::Xiangqi, None, Instant::now());
    assert_eq!(
        refused(ask(&state, Some(&players[0]), ClientMessage::Stand {})),
        not_allowed("seats change only before the start")
    );
}

#[test]
fn start_needs_every_seat_taken_and_every_person_connected() {
    let mut state = open(Variant::Sanguo, None, false);
    let a = person("a", false);
    apply_all(
        &mut state,
        &[
            sat(0, &a),
            Event::Sat {
                seat: Seat::new(1),
                player: SeatPlayer::Computer { level: 1 },
            },
        ],
    );
    assert_eq!(
        refused(ask(&state, Some(&a), ClientMessage::Start {})),
        not_allowed("every seat must be taken to start")
    );
    let b = person("b", false);
    apply_all(&mut state, &[sat(2, &b)]);
    let away = Caller {
        person: Some(&a),
        connected: &[true, true, false],
    };
    assert_eq!(
        decide(&state, away, &ClientMessage::Start {}, Instant::now()),
        Err(ServerError::NotReady)
    );
    assert_eq!(
        refused(ask(
            &state,
            Some(&person("x", false)),
            ClientMessage::Start {}
        )),
        ServerError::NotSeated
    );
    let started = events(ask(&state, Some(&b), ClientMessage::Start {}), &state);
    assert_eq!(started, vec![Event::Started]);
    apply_all(&mut state, &started);
    assert_eq!(
        (state.phase, state.to_move()),
        (Phase::Running, Some(Seat::new(0)))
    );
    assert_eq!(
        refused(ask(&state, Some(&a), ClientMessage::Start {})),
        not_allowed("the game has already started")
    );
}

#[test]
fn a_move_is_played_in_place_with_its_clocks() {
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    let at = t0 + Duration::from_millis(5_000);
    let got = play_move(&mut state, &players[0], "h2e2", at);
    // 5 s thinking, 300 ms of it credited as lag.
    assert_eq!(
        got,
        vec![Event::Moved {
            seat: Seat::new(0),
            mv: "h2e2".to_owned(),
            ply: 1,
            clocks_ms: Some(vec![55_300, 60_000]),
        }]
    );
    assert_eq!((state.version, state.to_move()), (5, Some(Seat::new(1))));
    assert_eq!(state.game.records(), ["h2e2"]);
    assert_eq!(state.clocks.as_ref().unwrap().running_seat(), Some(1));
    // The same event replayed gives the same table.
    let log = [
        Event::Created {
            options: state.options.clone(),
        },
        Event::Sat {
            seat: Seat::new(0),
            player: seated(&players[0]),
        },
        Event::Sat {
            seat: Seat::new(1),
            player: seated(&players[1]),
        },
        Event::Started,
        got[0].clone(),
    ];
    let again = TableState::replay("t".to_owned(), state.options.clone(), 0, &log, at).unwrap();
    assert_eq!(again.version, state.version);
    assert_eq!(again.game.records(), state.game.records());
    assert_eq!(
        again.clocks.as_ref().unwrap().remaining_ms(at),
        state.clocks.as_ref().unwrap().remaining_ms(at)
    );
}

#[test]
fn moves_are_refused_out_of_turn_stale_illegal_unreadable_and_outside_the_game() {
    let mut state = open(Variant::Xiangqi, None, false);
    let a = person("a", false);
    apply_all(&mut state, &[sat(0, &a)]);
    assert_eq!(
        refused(ask(&state, Some(&a), mv(2, "h2e2"))),
        not_allowed("the game has not started")
    );
    let (mut state, players) = running(Variant::Xiangqi, None, Instant::now());
    let (red, black) = (&players[0], &players[1]);
    assert_eq!(
        refused(ask(&state, Some(&person("x", false)), mv(4, "h2e2"))),
        ServerError::NotSeated
    );
    assert_eq!(
        refused(ask(&state, Some(black), mv(4, "h7e7"))),
        ServerError::NotYourTurn
    );
    assert_eq!(
        refused(ask(&state, Some(red), mv(3, "h2e2"))),
        ServerError::StaleVersion { got: 3, current: 4 }
    );
    let Decision::Play { seat, mv: m } = ask(&state, Some(red), mv(4, "a0a5")).unwrap() else {
        panic!("a move to play");
    };
    let version = state.version;
    let err = play(&mut state, seat, m, Instant::now()).unwrap_err();
    assert_eq!(
        err,
        ServerError::IllegalMove("a0a5 (chariot path is blocked)".to_owned())
    );
    assert_eq!((state.version, state.game.ply()), (version, 0));
    assert_eq!(
        refused(ask(&state, Some(red), mv(4, "zz"))),
        ServerError::IllegalMove("not a move: \"zz\" (expected ICCS such as h2e2)".to_owned())
    );
    let resigned = events(ask(&state, Some(red), ClientMessage::Resign {}), &state);
    apply_all(&mut state, &resigned);
    assert_eq!(
        refused(ask(&state, Some(black), mv(5, "h7e7"))),
        not_allowed("the game has ended")
    );
}

/// Decides and plays a move of `who` that answers `version` (maybe older than the table's),
/// returning its events (applied).
fn play_at(state: &mut TableState, who: &Person, version: u64, text: &str) -> Vec<Event> {
    let now = Instant::now();
    match ask_at(state, Some(who), mv(version, text), now) {
        Ok(Decision::Play { seat, mv }) => play(state, seat, mv, now).unwrap(),
        other => panic!("{text} at version {version}: a move expected, got {other:?}"),
    }
}

/// Issue 25 item 7: a move that crosses an offer, a request or their answers (nothing that
/// changes the position or the turn) is played, and withdraws what was pending; a move
/// that crosses a move, a takeback or the end is still refused as stale. The stored events
/// replay to the same table.
#[test]
fn a_move_that_crosses_an_offer_or_a_request_is_played_and_withdraws_it() {
    let now = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, now);
    let (red, black) = (&players[0], &players[1]);
    let mut log: Vec<Event> = vec![
        Event::Created {
            options: state.options.clone(),
        },
        sat(0, red),
        sat(1, black),
        Event::Started,
    ];
    let note = |state: &mut TableState, log: &mut Vec<Event>, events: Vec<Event>| {
        apply_all(state, &events);
        log.extend(events);
    };
    // Red chooses a move at version 4 while Black offers a draw (version 5).
    let offer = events(
        ask(&state, Some(black), ClientMessage::OfferDraw {}),
        &state,
    );
    note(&mut state, &mut log, offer);
    assert_eq!((state.version, state.draw_offer), (5, Some(Seat::new(1))));
    let moved = play_at(&mut state, red, 4, "h2e2");
    assert!(
        matches!(&moved[..], [Event::Moved { ply: 1, .. }]),
        "{moved:?}"
    );
    log.extend(moved);
    assert_eq!((state.version, state.draw_offer), (6, None));
    assert_eq!(state.to_move(), Some(Seat::new(1)));
    // Black chooses at version 6 while Red asks for a takeback (7): the move withdraws it.
    let asked = events(ask(&state, Some(red), ClientMessage::Takeback {}), &state);
    note(&mut state, &mut log, asked);
    assert_eq!(state.takeback_offer, Some(Seat::new(0)));
    log.extend(play_at(&mut state, black, 6, "h9g7"));
    assert_eq!((state.version, state.takeback_offer), (8, None));
    // An offer and its answer (9, 10) both crossed: Red's move at 8 is played.
    let offer = events(
        ask(&state, Some(black), ClientMessage::OfferDraw {}),
        &state,
    );
    note(&mut state, &mut log, offer);
    let declined = events(
        ask(&state, Some(red), ClientMessage::DeclineDraw {}),
        &state,
    );
    note(&mut state, &mut log, declined);
    log.extend(play_at(&mut state, red, 8, "b2b9"));
    assert_eq!(state.version, 11);
    assert_eq!(state.game.records(), ["h2e2", "h9g7", "b2b9"]);

    // A move answers one position: the same move again, or an answer to the position
    // before a move, is stale, offers in between or not.
    let offer = events(ask(&state, Some(red), ClientMessage::OfferDraw {}), &state);
    note(&mut state, &mut log, offer);
    for (who, version, text) in [(red, 8, "b9a9"), (black, 10, "a9b9"), (black, 13, "a9b9")] {
        assert_eq!(
            refused(ask(&state, Some(who), mv(version, text))),
            ServerError::StaleVersion {
                got: version,
                current: 12
            },
            "{text} at version {version}"
        );
    }
    // A takeback changes the position: a move chosen before it is stale.
    let asked = events(ask(&state, Some(red), ClientMessage::Takeback {}), &state);
    note(&mut state, &mut log, asked);
    let back = events(
        ask(&state, Some(black), ClientMessage::AcceptTakeback {}),
        &state,
    );
    note(&mut state, &mut log, back);
    assert_eq!((state.version, state.game.ply()), (14, 2));
    assert_eq!(
        refused(ask(&state, Some(red), mv(13, "b2b9"))),
        ServerError::StaleVersion {
            got: 13,
            current: 14
        }
    );
    log.extend(play_at(&mut state, red, 14, "b2b9"));

    // The stored events build the same table.
    let again = TableState::replay("t".to_owned(), state.options.clone(), 0, &log, now).unwrap();
    assert_eq!(again.version, state.version);
    assert_eq!(again.game.records(), state.game.records());
    assert_eq!(again.to_move(), state.to_move());
    assert_eq!(
        (again.draw_offer, again.takeback_offer),
        (state.draw_offer, state.takeback_offer)
    );
    assert_eq!(
        refused(ask(&again, Some(black), mv(14, "h7h0"))),
        ServerError::StaleVersion {
            got: 14,
            current: 15
        }
    );
}

#[test]
fn a_move_that_mates_is_followed_by_its_ended_event() {
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    // spec/xiangqi.md E15: h0h9 mates.
    let fen = "3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 0 1";
    state.game = AnyGame::from_position(Variant::Xiangqi, fen, rule_options(&state)).unwrap();
    let at = t0 + Duration::from_secs(1);
    let got = play_move(&mut state, &players[0], "h0h9", at);
    assert_eq!(
        got,
        vec![
            Event::Moved {
                seat: Seat::new(0),
                mv: "h0h9".to_owned(),
                ply: 1,
                clocks_ms: Some(vec![59_300, 60_000]),
            },
            Event::Ended {
                outcome: Outcome::win(Side::Red, EndReason::Checkmate),
                result: Some("1-0".to_owned()),
                winner_seats: vec![Seat::new(0)],
            },
        ]
    );
    assert_eq!(
        (state.phase, state.version, state.to_move()),
        (Phase::Ended, 6, None)
    );
    assert_eq!(state.clocks.as_ref().unwrap().running_seat(), None);
}

fn rule_options(state: &TableState) -> crate::variant::RuleOptions {
    super::super::rule_options(&state.options)
}

#[test]
fn resignation_ends_the_game_for_the_other_side() {
    let (state, players) = running(Variant::Xiangqi, None, Instant::now());
    assert_eq!(
        events(
            ask(&state, Some(&players[0]), ClientMessage::Resign {}),
            &state
        ),
        vec![Event::Ended {
            outcome: Outcome::win(Side::Black, EndReason::Resignation),
            result: Some("0-1".to_owned()),
            winner_seats: vec![Seat::new(1)],
        }]
    );
}

#[test]
fn draw_offers_are_made_once_answered_by_the_other_and_absent_in_sanguo() {
    let (mut state, players) = running(Variant::Xiangqi, None, Instant::now());
    let (red, black) = (&players[0], &players[1]);
    assert_eq!(
        refused(ask(&state, Some(black), ClientMessage::AcceptDraw {})),
        not_allowed("there is no draw offer to answer")
    );
    let offered = events(ask(&state, Some(red), ClientMessage::OfferDraw {}), &state);
    assert_eq!(offered, vec![Event::DrawOffered { seat: Seat::new(0) }]);
    apply_all(&mut state, &offered);
    assert_eq!(state.draw_offer, Some(Seat::new(0)));
    assert_eq!(
        refused(ask(&state, Some(red), ClientMessage::OfferDraw {})),
        not_allowed("you already offered a draw")
    );
    assert_eq!(
        refused(ask(&state, Some(red), ClientMessage::AcceptDraw {})),
        not_allowed("there is no draw offer to answer")
    );
    let agreed = vec![Event::Ended {
        outcome: Outcome::draw(EndReason::Agreement),
        result: Some("1/2-1/2".to_owned()),
        winner_seats: vec![],
    }];
    assert_eq!(
        events(
            ask(&state, Some(black), ClientMessage::AcceptDraw {}),
            &state
        ),
        agreed
    );
    // An offer that meets the other's offer is an agreement too.
    assert_eq!(
        events(
            ask(&state, Some(black), ClientMessage::OfferDraw {}),
            &state
        ),
        agreed
    );
    let declined = events(
        ask(&state, Some(black), ClientMessage::DeclineDraw {}),
        &state,
    );
    assert_eq!(declined, vec![Event::DrawDeclined { seat: Seat::new(1) }]);
    apply_all(&mut state, &declined);
    assert_eq!(state.draw_offer, None);
    // A move withdraws the offer.
    apply_all(&mut state, &offered);
    play_move(&mut state, red, "h2e2", Instant::now());
    assert_eq!(state.draw_offer, None);

    let (sanguo, players) = running(Variant::Sanguo, None, Instant::now());
    assert_eq!(
        refused(ask(&sanguo, Some(&players[0]), ClientMessage::OfferDraw {})),
        not_allowed("this game has no draw offers")
    );
}

#[test]
fn abort_only_before_the_first_move() {
    let (mut state, players) = running(Variant::Xiangqi, None, Instant::now());
    assert_eq!(
        events(
            ask(&state, Some(&players[1]), ClientMessage::Abort {}),
            &state
        ),
        vec![Event::Ended {
            outcome: Outcome::draw(EndReason::Aborted),
            result: None,
            winner_seats: vec![],
        }]
    );
    play_move(&mut state, &players[0], "h2e2", Instant::now());
    assert_eq!(
        refused(ask(&state, Some(&players[1]), ClientMessage::Abort {})),
        not_allowed("a game can be aborted only before its first move")
    );
}

/// A running arena table (tournament `arena1`), `berserkable` or not, 3+2, seated a (Red) and
/// b (Black), started at `at`.
fn arena_table(berserkable: bool, at: Instant) -> (TableState, Vec<Person>) {
    let mut options = options(
        Variant::Xiangqi,
        Some(TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
        }),
        false,
    );
    options.tournament = Some("arena1".to_owned());
    options.berserkable = berserkable;
    let created = Event::Created {
        options: options.clone(),
    };
    let mut state = TableState::replay("t".to_owned(), options, 0, [&created], at).unwrap();
    let players = vec![person("a", true), person("b", true)];
    for (seat, p) in Seat::all(2).zip(&players) {
        let sat = Event::Sat {
            seat,
            player: seated(p),
        };
        state.apply(&sat, at).unwrap();
    }
    state.apply(&Event::Started, at).unwrap();
    (state, players)
}

#[test]
fn berserk_halves_the_clock_before_the_first_move_only() {
    let t0 = Instant::now();
    // not an arena game, an arena without berserk
    let (plain, players) = running(Variant::Xiangqi, MINUTE, t0);
    assert_eq!(
        refused(ask(&plain, Some(&players[1]), ClientMessage::Berserk {})),
        not_allowed("berserk is for arena tournament games")
    );
    let (calm, players) = arena_table(false, t0);
    assert_eq!(
        refused(ask(&calm, Some(&players[1]), ClientMessage::Berserk {})),
        not_allowed("this tournament does not allow berserk")
    );
    let (mut state, players) = arena_table(true, t0);
    let (red, black) = (&players[0], &players[1]);
    // a spectator is not seated
    assert_eq!(
        refused(ask(&state, None, ClientMessage::Berserk {})),
        ServerError::NotSeated
    );
    let berserk = events(ask(&state, Some(black), ClientMessage::Berserk {}), &state);
    assert_eq!(berserk, vec![Event::Berserked { seat: Seat::new(1) }]);
    apply_all(&mut state, &berserk);
    assert_eq!(state.berserks, vec![Seat::new(1)]);
    let clocks = state.clocks.as_ref().unwrap();
    assert_eq!(clocks.remaining_ms(t0), vec![180_000, 90_000]);
    assert_eq!(clocks.increment(1), Duration::ZERO);
    assert_eq!(clocks.increment(0), Duration::from_secs(2));
    assert_eq!(
        state
            .view(Some(Seat::new(1)), vec![true, true], t0)
            .berserks,
        vec![Seat::new(1)]
    );
    assert_eq!(
        refused(ask(&state, Some(black), ClientMessage::Berserk {})),
        not_allowed("you have already gone berserk")
    );
    // Red moves after 5 s (300 ms credited, 2 s added), then may no longer go berserk
    play_move(&mut state, red, "h2e2", t0 + Duration::from_secs(5));
    assert_eq!(
        refused(ask(&state, Some(red), ClientMessage::Berserk {})),
        not_allowed("berserk is only before your first move")
    );
    // Black moves after 10 s: charged 9.7 s, nothing added
    play_move(&mut state, black, "h9g7", t0 + Duration::from_secs(15));
    assert_eq!(
        state.clocks.as_ref().unwrap().remaining_ms(t0),
        vec![177_300, 80_300]
    );
    // the first-move timer of a berserk seat counts from its halved clock, not as time used
    let (mut state, players) = arena_table(true, t0);
    let before = first_move_deadline(&state, Duration::from_secs(30));
    let berserk = events(
        ask(&state, Some(&players[0]), ClientMessage::Berserk {}),
        &state,
    );
    apply_all(&mut state, &berserk);
    assert_eq!(first_move_deadline(&state, Duration::from_secs(30)), before);
    assert_eq!(
        state.clocks.as_ref().unwrap().remaining_ms(t0),
        vec![90_000, 180_000]
    );
}

#[test]
fn a_move_after_the_flag_fell_loses_on_time() {
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    // Both sides make their first move at once: red's clock runs again from t0.
    play_move(&mut state, &players[0], "h2e2", t0);
    play_move(&mut state, &players[1], "h9g7", t0);
    let lost = vec![Event::Ended {
        outcome: Outcome::win(Side::Black, EndReason::Timeout),
        result: Some("0-1".to_owned()),
        winner_seats: vec![Seat::new(1)],
    }];
    // 60 s plus the 300 ms lag credit left of the quota after two credited moves (each move
    // spends nothing when instant): the flag falls at 60.3 s.
    let before = t0 + Duration::from_millis(60_299);
    assert!(matches!(
        ask_at(&state, Some(&players[0]), mv(state.version, "b2e2"), before),
        Ok(Decision::Play { seat, .. }) if seat == Seat::new(0)
    ));
    assert_eq!(flag(&state, Seat::new(0), before), None);
    let late = t0 + Duration::from_millis(60_300);
    // Even an illegal move: the flag has fallen.
    assert_eq!(
        events(
            ask_at(&state, Some(&players[0]), mv(state.version, "h2h9"), late),
            &state
        ),
        lost
    );
    assert_eq!(flag(&state, Seat::new(0), late), Some(lost[0].clone()));
    assert_eq!(flag(&state, Seat::new(1), late), None);
}

/// The `ended` event of an aborted game.
fn aborted() -> Event {
    Event::Ended {
        outcome: Outcome::draw(EndReason::Aborted),
        result: None,
        winner_seats: Vec::new(),
    }
}

/// A flag that falls before its seat's first move aborts the game (lichess): nobody loses on
/// time without having moved.
#[test]
fn a_flag_before_the_first_move_aborts() {
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    let late = t0 + Duration::from_millis(60_300);
    assert_eq!(flag(&state, Seat::new(0), late), Some(aborted()));
    play_move(&mut state, &players[0], "h2e2", t0);
    assert_eq!(flag(&state, Seat::new(1), late), Some(aborted()));
}

/// Each seat has `limit` for its first move from the start of its turn; then the timer goes.
/// An untimed game, an open table and a game with a takeback have none.
#[test]
fn the_first_move_timer() {
    let limit = Duration::from_secs(30);
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    assert_eq!(
        first_move_deadline(&state, limit),
        Some((Seat::new(0), t0 + limit))
    );
    let early = t0 + Duration::from_millis(29_999);
    assert_eq!(first_move_missed(&state, Seat::new(0), early, limit), None);
    assert_eq!(
        first_move_missed(&state, Seat::new(0), t0 + limit, limit),
        Some(aborted())
    );
    // not for the seat that is not to move
    assert_eq!(
        first_move_missed(&state, Seat::new(1), t0 + limit, limit),
        None
    );
    // red moves after 5 s: black's 30 s start then
    let t5 = t0 + Duration::from_secs(5);
    play_move(&mut state, &players[0], "h2e2", t5);
    assert_eq!(
        first_move_deadline(&state, limit),
        Some((Seat::new(1), t5 + limit))
    );
    assert_eq!(
        first_move_missed(&state, Seat::new(1), t5 + limit, limit),
        Some(aborted())
    );
    play_move(&mut state, &players[1], "h9g7", t5);
    assert_eq!(first_move_deadline(&state, limit), None);
    assert_eq!(
        first_move_missed(&state, Seat::new(0), t5 + limit * 2, limit),
        None
    );

    let (untimed, _) = running(Variant::Xiangqi, None, t0);
    assert_eq!(first_move_deadline(&untimed, limit), None);
    let open_table = open(Variant::Xiangqi, MINUTE, false);
    assert_eq!(first_move_deadline(&open_table, limit), None);
}

/// The first-move timer counts the time the seat's clock ran before a restart: the clocks come
/// back from their snapshot (the time charged), and the limit is what is left of it.
#[test]
fn the_first_move_timer_survives_a_restart() {
    let limit = Duration::from_secs(30);
    let t0 = Instant::now();
    let (state, _) = running(Variant::Xiangqi, MINUTE, t0);
    // stopped after 12 s: the snapshot charges them
    let snap = state
        .clocks
        .as_ref()
        .unwrap()
        .snapshot(t0 + Duration::from_secs(12));
    assert_eq!(snap.remaining_ms, vec![48_000, 60_000]);
    // loaded again later, the running clock restarted at t1
    let t1 = t0 + Duration::from_secs(100);
    let mut loaded = TableState::replay(
        "t".to_owned(),
        state.options.clone(),
        0,
        &[
            Event::Created {
                options: state.options.clone(),
            },
            sat(0, &person("a", false)),
            sat(1, &person("b", false)),
            Event::Started,
        ],
        t1,
    )
    .unwrap();
    let mut clocks = crate::table::clock::Clocks::from_snapshot(&snap, Duration::ZERO);
    clocks.start(0, t1);
    loaded.clocks = Some(clocks);
    assert_eq!(
        first_move_deadline(&loaded, limit),
        Some((Seat::new(0), t1 + Duration::from_secs(18)))
    );
}

/// A table that starts when full starts with the `sat` event that fills it (a person's or the
/// computer's); one without that option waits for `start`.
#[test]
fn a_table_that_starts_when_full() {
    let (a, b) = (person("a", false), person("b", false));
    let mut state = open(Variant::Xiangqi, MINUTE, false);
    state.options.start_when_full = true;
    apply_all(&mut state, &[sat(0, &a)]);
    assert_eq!(
        events(ask(&state, Some(&b), sit(1)), &state),
        vec![sat(1, &b), Event::Started]
    );
    let computer = ClientMessage::SitComputer {
        seat: Seat::new(1),
        level: 3,
    };
    assert_eq!(
        events(ask(&state, Some(&a), computer.clone()), &state),
        vec![
            Event::Sat {
                seat: Seat::new(1),
                player: SeatPlayer::Computer { level: 3 }
            },
            Event::Started
        ]
    );
    // sanguo: only the third seat starts it
    let mut sanguo = open(Variant::Sanguo, MINUTE, false);
    sanguo.options.start_when_full = true;
    assert_eq!(
        events(ask(&sanguo, Some(&a), sit(0)), &sanguo),
        vec![sat(0, &a)]
    );
    // without the option: the seats fill, the game waits
    let mut plain = open(Variant::Xiangqi, MINUTE, false);
    apply_all(&mut plain, &[sat(0, &a)]);
    assert_eq!(
        events(ask(&plain, Some(&b), sit(1)), &plain),
        vec![sat(1, &b)]
    );
}

/// Plays `moves` in order for the seats to move, as the actor does.
fn play_all(state: &mut TableState, moves: &[&str]) -> Vec<Event> {
    let mut events = Vec::new();
    for text in moves {
        let seat = state.to_move().expect("running");
        let mv = state.game.parse_move(text).expect("a move");
        events.extend(play(state, seat, mv, Instant::now()).expect("legal"));
    }
    events
}

#[test]
fn abandonment_in_xiangqi_sanguo_and_banqi() {
    let (mut state, _) = running(Variant::Xiangqi, None, Instant::now());
    play_all(&mut state, &["h2e2", "h9g7"]);
    assert_eq!(
        abandon(&state, Seat::new(1)),
        Some(Event::Ended {
            outcome: Outcome::win(Side::Red, EndReason::Abandonment),
            result: Some("1-0".to_owned()),
            winner_seats: vec![Seat::new(0)],
        })
    );
    // Sanguo: the two other kingdoms share the victory.
    let (mut state, _) = running(Variant::Sanguo, None, Instant::now());
    for _ in 0..2 {
        let mv = state.game.legal_moves()[0].clone();
        play_all(&mut state, &[&mv]);
    }
    assert_eq!(
        abandon(&state, Seat::new(1)),
        Some(Event::Ended {
            outcome: Outcome {
                winners: vec![Side::Shu, Side::Wei],
                reason: EndReason::Abandonment,
            },
            result: None,
            winner_seats: vec![Seat::new(0), Seat::new(2)],
        })
    );
    let open = open(Variant::Xiangqi, None, false);
    assert_eq!(abandon(&open, Seat::new(0)), None);
}

/// A running untimed xiangqi game: `me` as Red, the computer (level 3) as Black.
fn against_computer(me: &Person) -> TableState {
    let mut state = open(Variant::Xiangqi, None, false);
    let now = Instant::now();
    state.apply(&sat(0, me), now).unwrap();
    let computer = Event::Sat {
        seat: Seat::new(1),
        player: SeatPlayer::Computer { level: 3 },
    };
    state.apply(&computer, now).unwrap();
    state.apply(&Event::Started, now).unwrap();
    state
}

#[test]
fn the_computer_answers_a_draw_offer_at_once() {
    use crate::computer::accepts_draw;
    let me = person("a", false);
    let state = against_computer(&me);
    let offer = Decision::OfferToComputer {
        seat: Seat::new(0),
        computer: Seat::new(1),
    };
    assert_eq!(
        ask(&state, Some(&me), ClientMessage::OfferDraw {}).unwrap(),
        offer
    );
    // the start: even, but a draw in the first moves is not fair: the computer plays on
    assert!(!accepts_draw(&state.game, Seat::new(1)));
    // twenty moves each, Black mirroring Red without a capture: still even, now it takes it
    let mut later = against_computer(&me);
    let red = [
        "b0c2", "h0g2", "c0e2", "a0a1", "i0i1", "a1d1", "i1f1", "c3c4", "g3g4", "a3a4", "i3i4",
        "d0e1", "d1d2", "f1f2", "b2b1", "h2h1", "d2d1", "f2f1", "b1b2", "h1h2",
    ];
    let mirror = |m: &str| -> String {
        let b = m.as_bytes();
        let rank = |c: u8| char::from(b'9' - (c - b'0'));
        format!(
            "{}{}{}{}",
            char::from(b[0]),
            rank(b[1]),
            char::from(b[2]),
            rank(b[3])
        )
    };
    let black: Vec<String> = red.iter().map(|m| mirror(m)).collect();
    let forty: Vec<&str> = red
        .iter()
        .zip(&black)
        .flat_map(|(r, b)| [*r, b.as_str()])
        .collect();
    assert_eq!(forty.len(), crate::computer::DRAW_AFTER_PLIES);
    play_all(&mut later, &forty[..39]);
    assert!(
        !accepts_draw(&later.game, Seat::new(1)),
        "one ply short of the opening's end"
    );
    play_all(&mut later, &forty[39..]);
    assert!(accepts_draw(&later.game, Seat::new(1)));
    assert_eq!(
        draw_offered_to_computer(Seat::new(0), Seat::new(1), true),
        vec![
            Event::DrawOffered { seat: Seat::new(0) },
            ended(Outcome::draw(EndReason::Agreement), Vec::new()),
        ]
    );
    // Black's Cannon takes Red's Horse: the computer (Black) is better and plays on
    let mut behind = against_computer(&me);
    play_all(&mut behind, &["a0a1", "h9g7", "a1d1", "h7h0"]);
    assert!(!accepts_draw(&behind.game, Seat::new(1)));
    // ...and Red, a Horse down, takes a draw at once
    assert!(accepts_draw(&behind.game, Seat::new(0)));
    assert_eq!(
        ask(&behind, Some(&me), ClientMessage::OfferDraw {}).unwrap(),
        offer
    );
    assert_eq!(
        draw_offered_to_computer(Seat::new(0), Seat::new(1), false),
        vec![
            Event::DrawOffered { seat: Seat::new(0) },
            Event::DrawDeclined { seat: Seat::new(1) },
        ]
    );
}

/// The computer's search (and its answer) is for a version: a draw offer it declines
/// leaves its position as it was, so the search goes on and its move is played; a takeback
/// leaves it for ever.
#[test]
fn the_computers_search_outlives_a_declined_draw_offer_but_not_a_takeback() {
    let me = person("a", false);
    let mut state = against_computer(&me);
    // Black's Cannon takes Red's Horse: the computer (Black) is better and plays on
    play_all(&mut state, &["a0a1", "h9g7", "a1d1", "h7h0", "i0i1"]);
    assert_eq!(state.to_move(), Some(Seat::new(1)));
    let searched = state.version;
    let answered = events(ask(&state, Some(&me), ClientMessage::OfferDraw {}), &state);
    assert_eq!(
        answered,
        vec![
            Event::DrawOffered { seat: Seat::new(0) },
            Event::DrawDeclined { seat: Seat::new(1) },
        ]
    );
    apply_all(&mut state, &answered);
    assert_eq!(state.version, searched + 2);
    assert!(state.answers_position(searched));
    let reply = state.game.parse_move("a9a8").unwrap();
    assert_eq!(
        move_or_flag(&state, Seat::new(1), reply, Instant::now()),
        Decision::Play {
            seat: Seat::new(1),
            mv: reply
        }
    );
    let back = events(ask(&state, Some(&me), ClientMessage::Takeback {}), &state);
    apply_all(&mut state, &back);
    assert!(!state.answers_position(searched));
    assert!(!state.answers_position(state.version + 1));
    assert!(state.answers_position(state.version));
}

#[test]
fn a_takeback_against_the_computer_goes_back_to_the_callers_turn() {
    let me = person("a", false);
    let mut state = against_computer(&me);
    let now = Instant::now();
    assert_eq!(
        refused(ask(&state, Some(&me), ClientMessage::Takeback {})),
        not_allowed("there is no move of yours to take back")
    );
    play_all(&mut state, &["h2e2"]);
    // the computer is thinking: only the caller's move goes
    assert_eq!(
        ask(&state, Some(&me), ClientMessage::Takeback {}).unwrap(),
        Decision::Events(vec![Event::TakenBack { plies: 1 }])
    );
    play_all(&mut state, &["h9g7"]);
    let version = state.version;
    let e = Event::TakenBack { plies: 2 };
    assert_eq!(
        ask(&state, Some(&me), ClientMessage::Takeback {}).unwrap(),
        Decision::Events(vec![e.clone()])
    );
    state.apply(&e, now).unwrap();
    assert_eq!(state.version, version + 1);
    assert_eq!(state.game.ply(), 0);
    assert_eq!(state.to_move(), Some(Seat::new(0)));
    let view = state.view(Some(Seat::new(0)), vec![true, true], now);
    assert_eq!(view.legal_moves.len(), 44);
}

#[test]
fn a_takeback_between_people_is_asked_and_answered() {
    let now = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, None, now);
    let (red, black) = (&players[0], &players[1]);
    assert_eq!(
        refused(ask(&state, Some(red), ClientMessage::Takeback {})),
        not_allowed("there is no move of yours to take back")
    );
    play_all(&mut state, &["h2e2"]);
    let asked = Event::TakebackOffered { seat: Seat::new(0) };
    assert_eq!(
        events(ask(&state, Some(red), ClientMessage::Takeback {}), &state),
        vec![asked.clone()]
    );
    state.apply(&asked, now).unwrap();
    assert_eq!(
        state.view(None, vec![true, true], now).takeback_offer,
        Some(Seat::new(0))
    );
    for (who, msg, why) in [
        (
            red,
            ClientMessage::Takeback {},
            "you already asked for a takeback",
        ),
        (
            black,
            ClientMessage::Takeback {},
            "there is no move of yours to take back",
        ),
        (
            red,
            ClientMessage::AcceptTakeback {},
            "there is no takeback request to answer",
        ),
    ] {
        assert_eq!(refused(ask(&state, Some(who), msg)), not_allowed(why));
    }
    // declined: the request goes, the game stays
    let declined = Event::TakebackDeclined { seat: Seat::new(1) };
    assert_eq!(
        events(
            ask(&state, Some(black), ClientMessage::DeclineTakeback {}),
            &state
        ),
        vec![declined.clone()]
    );
    state.apply(&declined, now).unwrap();
    assert_eq!((state.takeback_offer, state.game.ply()), (None, 1));
    // Black answered: Red's takeback at Red's turn removes both moves
    play_all(&mut state, &["h9g7"]);
    state
        .apply(&Event::TakebackOffered { seat: Seat::new(0) }, now)
        .unwrap();
    assert_eq!(
        refused(ask(&state, Some(black), ClientMessage::Takeback {})),
        not_allowed("answer the other takeback request first")
    );
    let back = Event::TakenBack { plies: 2 };
    assert_eq!(
        events(
            ask(&state, Some(black), ClientMessage::AcceptTakeback {}),
            &state
        ),
        vec![back.clone()]
    );
    state.apply(&back, now).unwrap();
    assert_eq!((state.takeback_offer, state.game.ply()), (None, 0));
    assert_eq!(state.to_move(), Some(Seat::new(0)));
    // a move withdraws a request; Black asking at Black's turn takes back two moves
    play_all(&mut state, &["h2e2", "h9g7"]);
    state
        .apply(&Event::TakebackOffered { seat: Seat::new(1) }, now)
        .unwrap();
    assert_eq!(
        events(
            ask(&state, Some(red), ClientMessage::AcceptTakeback {}),
            &state
        ),
        vec![Event::TakenBack { plies: 1 }]
    );
    play_all(&mut state, &["b2b9"]);
    assert_eq!(state.takeback_offer, None);
    state
        .apply(&Event::TakebackOffered { seat: Seat::new(1) }, now)
        .unwrap();
    assert_eq!(
        events(
            ask(&state, Some(red), ClientMessage::AcceptTakeback {}),
            &state
        ),
        vec![Event::TakenBack { plies: 2 }]
    );
    // rated games and other variants have none
    let mut rated = open(Variant::Xiangqi, None, true);
    let (a, b) = (person("a", true), person("b", true));
    apply_all(&mut rated, &[sat(0, &a), sat(1, &b), Event::Started]);
    play_all(&mut rated, &["h2e2"]);
    assert_eq!(
        refused(ask(&rated, Some(&a), ClientMessage::Takeback {})),
        not_allowed("takebacks between people are for unrated games")
    );
    let (banqi, players) = running(Variant::Banqi, None, now);
    assert_eq!(
        refused(ask(&banqi, Some(&players[0]), ClientMessage::Takeback {})),
        not_allowed("takebacks are for xiangqi games")
    );
}

#[test]
fn chat_lines_are_trimmed_short_and_without_control_or_invisible_characters() {
    let me = person("a", false);
    assert_eq!(chat_line(Some(&me), "  hola  ").unwrap(), "hola");
    assert_eq!(
        chat_line(Some(&me), &"象".repeat(140))
            .unwrap()
            .chars()
            .count(),
        140
    );
    for (text, why) in [
        ("   ", "an empty chat line"),
        (
            "a\u{7}b",
            "a chat line has no control characters or line breaks",
        ),
        (
            "a\nb",
            "a chat line has no control characters or line breaks",
        ),
        (
            "a\u{2028}b",
            "a chat line has no control characters or line breaks",
        ),
        (
            "abc\u{202E}def",
            "a chat line cannot contain invisible or direction-changing characters",
        ),
        (
            "a\u{200B}b",
            "a chat line cannot contain invisible or direction-changing characters",
        ),
        (
            "hola\u{E0041}",
            "a chat line cannot contain invisible or direction-changing characters",
        ),
    ] {
        assert_eq!(
            chat_line(Some(&me), text).unwrap_err(),
            ServerError::BadMessage(why.to_owned())
        );
    }
    assert_eq!(
        chat_line(Some(&me), &"x".repeat(141)).unwrap_err(),
        ServerError::BadMessage("a chat line has at most 140 characters".to_owned())
    );
    assert!(matches!(
        chat_line(None, "hola"),
        Err(ServerError::Unauthorized(_))
    ));
    // an emoji sequence keeps its joiners
    let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}";
    assert_eq!(chat_line(Some(&me), family).unwrap(), family);
    // markup is text: the client shows it as it is
    assert_eq!(chat_line(Some(&me), "<b>x</b>").unwrap(), "<b>x</b>");
}

#[test]
fn a_seat_that_vanishes_before_its_first_move_aborts_the_game() {
    let aborted = Some(Event::Ended {
        outcome: Outcome::draw(EndReason::Aborted),
        result: None,
        winner_seats: Vec::new(),
    });
    // nobody moved: either seat's absence aborts (banqi before the first flip too)
    for variant in [Variant::Xiangqi, Variant::Banqi, Variant::Sanguo] {
        let (state, _) = running(variant, None, Instant::now());
        assert_eq!(abandon(&state, Seat::new(0)), aborted, "{variant:?}");
        assert_eq!(abandon(&state, Seat::new(1)), aborted, "{variant:?}");
    }
    // Red moved, Black never did: still aborted; Red vanishing now loses
    let (mut state, _) = running(Variant::Xiangqi, None, Instant::now());
    play_all(&mut state, &["h2e2"]);
    assert_eq!(abandon(&state, Seat::new(1)), aborted);
    assert_eq!(
        abandon(&state, Seat::new(0)),
        Some(Event::Ended {
            outcome: Outcome::win(Side::Black, EndReason::Abandonment),
            result: Some("0-1".to_owned()),
            winner_seats: vec![Seat::new(1)],
        })
    );
}

#[test]
fn a_sanguo_defeat_is_an_event_after_its_move() {
    // tests/data/sanguo.md TK-11: Wei's chariot takes Shu's General; its army goes to Wei
    let (mut state, _) = running(Variant::Sanguo, None, Instant::now());
    state.game = AnyGame::from_position(
        Variant::Sanguo,
        "9/9/7rC1/9/bRgH1rK5,9/9/9/9/3gK4gR,9/bP8/9/9/3bK5 G - - - 0",
        super::super::rule_options(&state.options),
    )
    .expect("TK-11");
    let before = state.version;
    let events = play_all(&mut state, &["Rb1-Rc3", "Ra1xRd1"]);
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[2],
        Event::Defeated {
            seat: Seat::new(0),
            reason: EndReason::GeneralCaptured,
            heir: Seat::new(2),
            ply: 2,
        }
    );
    let view = state.view(None, vec![true; 3], Instant::now());
    assert_eq!(
        view.defeats,
        [Defeat {
            seat: Seat::new(0),
            reason: EndReason::GeneralCaptured,
            heir: Seat::new(2),
            ply: 2,
        }]
    );
    assert_eq!(state.version, before + 3);
    assert!(!state.game.is_active(Seat::new(0)));
    assert_eq!(state.to_move(), Some(Seat::new(1)));
    // the wire and store form (spec/sanguo.md §6.1: kingdom, reason, heir)
    assert_eq!(
        serde_json::to_string(&events[2]).unwrap(),
        r#"{"kind":"defeated","seat":0,"reason":"general-captured","heir":2,"ply":2}"#
    );
}

#[test]
fn a_sanguo_timeout_lets_the_others_share_the_victory() {
    let t0 = Instant::now();
    let (mut state, _) = running(Variant::Sanguo, MINUTE, t0);
    // every kingdom makes its first move at once: Shu's clock runs again from t0
    for _ in 0..3 {
        let seat = state.to_move().expect("running");
        let first = state.game.legal_moves()[0].clone();
        let mv = state.game.parse_move(&first).expect("a move");
        play(&mut state, seat, mv, t0).expect("legal");
    }
    assert_eq!(
        flag(&state, Seat::new(0), t0 + Duration::from_secs(61)),
        Some(Event::Ended {
            outcome: Outcome {
                winners: vec![Side::Wu, Side::Wei],
                reason: EndReason::Timeout,
            },
            result: None,
            winner_seats: vec![Seat::new(1), Seat::new(2)],
        })
    );
}

#[test]
fn an_absent_persons_seat_is_vacated_before_the_start_only() {
    let mut state = open(Variant::Xiangqi, None, false);
    assert_eq!(vacate(&state, Seat::new(0)), vec![]);
    apply_all(
        &mut state,
        &[Event::Sat {
            seat: Seat::new(0),
            player: seated(&person("a", false)),
        }],
    );
    assert_eq!(
        vacate(&state, Seat::new(0)),
        vec![Event::Stood { seat: Seat::new(0) }]
    );
    let (state, _) = running(Variant::Xiangqi, None, Instant::now());
    assert_eq!(vacate(&state, Seat::new(0)), vec![]);
}

#[test]
fn the_computer_leaves_an_open_table_with_the_last_person() {
    let computer = SeatPlayer::Computer { level: 3 };
    let mut state = open(Variant::Sanguo, None, false);
    apply_all(
        &mut state,
        &[
            Event::Sat {
                seat: Seat::new(0),
                player: seated(&person("a", false)),
            },
            Event::Sat {
                seat: Seat::new(1),
                player: computer.clone(),
            },
            Event::Sat {
                seat: Seat::new(2),
                player: seated(&person("b", false)),
            },
        ],
    );
    // Another person stays: only the leaver stands.
    assert_eq!(
        vacate(&state, Seat::new(0)),
        vec![Event::Stood { seat: Seat::new(0) }]
    );
    apply_all(&mut state, &[Event::Stood { seat: Seat::new(2) }]);
    // The last person leaves (away, or standing up): the computer's seat is freed too.
    let both = vec![
        Event::Stood { seat: Seat::new(0) },
        Event::Stood { seat: Seat::new(1) },
    ];
    assert_eq!(vacate(&state, Seat::new(0)), both);
    let a = person("a", false);
    assert_eq!(
        events(ask(&state, Some(&a), ClientMessage::Stand {}), &state),
        both
    );
    apply_all(&mut state, &both);
    assert_eq!(state.seats, vec![None, None, None]);
}

#[test]
fn an_ended_table_stops_the_clocks_and_refuses_play() {
    let t0 = Instant::now();
    let (mut state, players) = running(Variant::Xiangqi, MINUTE, t0);
    let resign = events(
        ask(&state, Some(&players[1]), ClientMessage::Resign {}),
        &state,
    );
    state
        .apply(&resign[0], t0 + Duration::from_secs(10))
        .unwrap();
    assert_eq!(state.phase, Phase::Ended);
    assert_eq!(state.to_move(), None);
    assert_eq!(state.clocks.as_ref().unwrap().running_seat(), None);
    assert_eq!(
        state.clocks.as_ref().unwrap().remaining_ms(t0),
        vec![50_000, 60_000]
    );
    for msg in [
        ClientMessage::Resign {},
        ClientMessage::OfferDraw {},
        ClientMessage::Abort {},
    ] {
        assert_eq!(
            refused(ask(&state, Some(&players[0]), msg)),
            not_allowed("the game has ended")
        );
    }
    assert_eq!(
        flag(&state, Seat::new(0), t0 + Duration::from_secs(100)),
        None
    );
}

#[test]
fn ping_and_sync_change_nothing() {
    let state = open(Variant::Xiangqi, None, false);
    assert_eq!(
        events(ask(&state, None, ClientMessage::Ping {}), &state),
        vec![]
    );
    assert_eq!(
        events(
            ask(&state, None, ClientMessage::Sync { since: None }),
            &state
        ),
        vec![]
    );
}

#[test]
fn a_closed_table_keeps_its_wire_code_and_message() {
    let e = ServerError::TableClosed;
    assert!(super::super::is_closed_error(&e));
    assert!(!super::super::is_closed_error(&ServerError::NotFound(
        "the table is closed".to_owned()
    )));
    assert_eq!(
        e.to_message(),
        crate::protocol::ServerMessage::Error {
            code: crate::protocol::ErrorCode::NotFound,
            message: "the table is closed".to_owned(),
        }
    );
    assert_eq!(e.status(), axum::http::StatusCode::NOT_FOUND);
}

/// A game of `variant` between people that `players[0]` resigned: ended.
fn resigned(variant: Variant) -> (TableState, Vec<Person>) {
    let (mut state, players) = running(variant, None, Instant::now());
    let end = events(
        ask(&state, Some(&players[0]), ClientMessage::Resign {}),
        &state,
    );
    apply_all(&mut state, &end);
    assert_eq!(state.phase, Phase::Ended);
    (state, players)
}

#[test]
fn a_rematch_is_offered_declined_offered_again_accepted_with_the_colours_swapped() {
    let (mut state, p) = resigned(Variant::Xiangqi);
    let offered = events(
        ask(&state, Some(&p[0]), ClientMessage::OfferRematch {}),
        &state,
    );
    assert_eq!(offered, vec![Event::RematchOffered { seat: Seat::new(0) }]);
    apply_all(&mut state, &offered);
    assert_eq!(state.rematch_offers, vec![Seat::new(0)]);
    assert_eq!(rematch_due(&state), None, "the other has not answered");
    assert_eq!(rematched(&state, "t2"), None);
    let declined = events(
        ask(&state, Some(&p[1]), ClientMessage::DeclineRematch {}),
        &state,
    );
    assert_eq!(
        declined,
        vec![Event::RematchDeclined { seat: Seat::new(1) }]
    );
    apply_all(&mut state, &declined);
    assert!(state.rematch_offers.is_empty());

    apply_all(&mut state, &offered);
    let accepted = events(
        ask(&state, Some(&p[1]), ClientMessage::AcceptRematch {}),
        &state,
    );
    assert_eq!(accepted, vec![Event::RematchOffered { seat: Seat::new(1) }]);
    apply_all(&mut state, &accepted);
    let (options, seats) = rematch_due(&state).expect("both want it");
    assert_eq!(options, state.options);
    assert_eq!(seats, vec![Some(seated(&p[1])), Some(seated(&p[0]))]);
    let done = rematched(&state, "t2").unwrap();
    assert_eq!(
        done,
        Event::Rematched {
            table: "t2".to_owned()
        }
    );
    apply_all(&mut state, &[done]);
    assert_eq!(state.rematch.as_deref(), Some("t2"));
    assert_eq!(rematch_due(&state), None);
    let view = state.view(Some(Seat::new(0)), vec![true, true], Instant::now());
    assert_eq!(view.rematch.as_deref(), Some("t2"));
    assert!(view.rematch_offers.is_empty());
    assert_eq!(
        refused(ask(&state, Some(&p[0]), ClientMessage::OfferRematch {})),
        not_allowed("the rematch has already been agreed")
    );
}

#[test]
fn a_rematch_is_refused_before_the_end_twice_without_an_offer_and_to_spectators() {
    let (state, p) = running(Variant::Xiangqi, None, Instant::now());
    assert_eq!(
        refused(ask(&state, Some(&p[0]), ClientMessage::OfferRematch {})),
        not_allowed("a rematch is for a game that has ended")
    );
    let (mut state, p) = resigned(Variant::Xiangqi);
    for msg in [
        ClientMessage::AcceptRematch {},
        ClientMessage::DeclineRematch {},
    ] {
        assert_eq!(
            refused(ask(&state, Some(&p[1]), msg)),
            not_allowed("there is no rematch offer to answer")
        );
    }
    let stranger = person("z", false);
    assert_eq!(
        refused(ask(&state, Some(&stranger), ClientMessage::OfferRematch {})),
        ServerError::NotSeated
    );
    let offered = events(
        ask(&state, Some(&p[0]), ClientMessage::OfferRematch {}),
        &state,
    );
    apply_all(&mut state, &offered);
    assert_eq!(
        refused(ask(&state, Some(&p[0]), ClientMessage::OfferRematch {})),
        not_allowed("you already offered a rematch")
    );
    assert_eq!(
        refused(ask(&state, Some(&p[0]), ClientMessage::DeclineRematch {})),
        not_allowed("there is no rematch offer to answer")
    );
}

#[test]
fn a_rematch_offer_is_withdrawn_when_its_seat_leaves() {
    let (mut state, p) = resigned(Variant::Xiangqi);
    assert_eq!(withdraw_rematch(&state, Seat::new(0)), None);
    let offered = events(
        ask(&state, Some(&p[0]), ClientMessage::OfferRematch {}),
        &state,
    );
    apply_all(&mut state, &offered);
    assert_eq!(
        withdraw_rematch(&state, Seat::new(1)),
        None,
        "seat 1 offered nothing"
    );
    let gone = withdraw_rematch(&state, Seat::new(0)).unwrap();
    assert_eq!(gone, Event::RematchDeclined { seat: Seat::new(0) });
    apply_all(&mut state, &[gone]);
    assert!(state.rematch_offers.is_empty());
    assert_eq!(
        refused(ask(&state, Some(&p[1]), ClientMessage::AcceptRematch {})),
        not_allowed("there is no rematch offer to answer")
    );
}

/// Issue 25 item 8: once every seat wants the rematch, it is agreed: neither the offerer
/// leaving nor a late decline (crossing the accept) takes it back, so the table made for
/// it is the one the `rematched` event names.
#[test]
fn an_agreed_rematch_is_not_withdrawn_by_a_leaving_seat_or_a_late_decline() {
    let (mut state, p) = resigned(Variant::Xiangqi);
    let offered = events(
        ask(&state, Some(&p[0]), ClientMessage::OfferRematch {}),
        &state,
    );
    apply_all(&mut state, &offered);
    let accepted = events(
        ask(&state, Some(&p[1]), ClientMessage::AcceptRematch {}),
        &state,
    );
    apply_all(&mut state, &accepted);
    assert!(rematch_due(&state).is_some(), "both want it");
    for seat in Seat::all(2) {
        assert_eq!(withdraw_rematch(&state, seat), None, "seat {seat} left");
    }
    for who in &p {
        for msg in [
            ClientMessage::DeclineRematch {},
            ClientMessage::OfferRematch {},
            ClientMessage::AcceptRematch {},
        ] {
            assert_eq!(
                refused(ask(&state, Some(who), msg.clone())),
                not_allowed("the rematch has already been agreed"),
                "{} {msg:?}",
                who.id
            );
        }
    }
    assert_eq!(
        rematched(&state, "t2"),
        Some(Event::Rematched {
            table: "t2".to_owned()
        })
    );
    // In sanguo a seat that offered may still leave while the third has not answered.
    let (mut state, p) = resigned(Variant::Sanguo);
    for who in &p[..2] {
        let offered = events(
            ask(&state, Some(who), ClientMessage::OfferRematch {}),
            &state,
        );
        apply_all(&mut state, &offered);
    }
    assert_eq!(
        withdraw_rematch(&state, Seat::new(0)),
        Some(Event::RematchDeclined { seat: Seat::new(0) })
    );
    assert_eq!(
        events(
            ask(&state, Some(&p[2]), ClientMessage::DeclineRematch {}),
            &state
        ),
        vec![Event::RematchDeclined { seat: Seat::new(2) }]
    );
}

#[test]
fn a_sanguo_rematch_needs_all_three_and_turns_the_kingdoms() {
    let (mut state, p) = resigned(Variant::Sanguo);
    for (i, who) in p.iter().enumerate() {
        assert_eq!(rematch_due(&state), None, "after {i} offers");
        let offered = events(
            ask(&state, Some(who), ClientMessage::OfferRematch {}),
            &state,
        );
        apply_all(&mut state, &offered);
    }
    let (_, seats) = rematch_due(&state).expect("all three want it");
    assert_eq!(
        seats,
        vec![
            Some(seated(&p[2])),
            Some(seated(&p[0])),
            Some(seated(&p[1]))
        ]
    );
}

#[test]
fn against_the_computer_one_rematch_offer_is_enough() {
    let me = person("a", false);
    let mut state = against_computer(&me);
    let end = events(ask(&state, Some(&me), ClientMessage::Resign {}), &state);
    apply_all(&mut state, &end);
    let offered = events(
        ask(&state, Some(&me), ClientMessage::OfferRematch {}),
        &state,
    );
    apply_all(&mut state, &offered);
    let (_, seats) = rematch_due(&state).expect("the computer always agrees");
    let computer = state.seats[1].clone();
    assert_eq!(seats, vec![computer, Some(seated(&me))]);
}
