//! Records other programs wrote in SAN (`chuhe_notation::san`), read and replayed legally:
//!
//! - `xboard-xiangqi.pgn`: three games XBoard 4.9.1 saved (chuhe against itself through
//!   `uci2wb`), ranks 0–9, soldiers without a letter (`c4`, `cxc5`, `cd5`); the moves the
//!   engines sent, taken from XBoard's debug log, are in `xboard-xiangqi.moves`.
//! - `xq-match-san.pgn`: six games of `tools/xq_match.py` (chuhe against
//!   Fairy-Stockfish 11.1), SAN by pyffish 0.0.90 (`get_san_moves`), ranks 1–10, from set-up
//!   positions; `xq-match-uci.pgn`: the same games (same node limits, so the same moves) with
//!   the moves as Fairy-Stockfish's coordinates (ranks 1–10).
//! - `pyffish-san-random.pgn`: thirty random games written by pyffish
//!   (`pyffish-san-random.py 18 30`), with pyffish's `PlyCount` and final position (`EndFEN`).

use chuhe_notation::record::{decode, Encoding, GameRecord};
use chuhe_notation::replay::{replay, ReplayOptions, Replayed};
use chuhe_notation::{pgn, RankBase, ReadOptions};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../tests/data/records/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    decode(&bytes, Encoding::Auto)
}

fn replayed(g: &GameRecord) -> Replayed {
    replay(g, ReplayOptions::default()).unwrap_or_else(|e| panic!("game {}: {e}", g.id))
}

fn iccs(r: &Replayed) -> Vec<String> {
    r.moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn xboard_games_replay_as_the_engines_played_them() {
    let games = pgn::read(&fixture("xboard-xiangqi.pgn"));
    let played: Vec<Vec<String>> = fixture("xboard-xiangqi.moves")
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect();
    assert_eq!(games.len(), 3);
    assert_eq!(played.len(), 3);
    let plies: Vec<usize> = games.iter().map(|g| replayed(g).moves.len()).collect();
    assert_eq!(plies, [121, 74, 44]);
    // The first two games were lost on time: the loser's last move reached XBoard after its flag
    // fell, so the log holds one move more than the record.
    let sent: Vec<usize> = played.iter().map(Vec::len).collect();
    assert_eq!(sent, [122, 75, 44]);
    for (g, moves) in games.iter().zip(&played) {
        assert_eq!(g.tag("Variant"), Some("xiangqi"));
        let r = replayed(g);
        assert_eq!(iccs(&r), moves[..r.moves.len()], "game {}", g.id);
    }
    let reasons: Vec<Option<&str>> = games
        .iter()
        .map(|g| g.moves.last().and_then(|m| m.comment.as_deref()))
        .collect();
    assert_eq!(
        reasons,
        [
            Some("-7.16/12 0.2 White wins on time"),
            Some("-0.04/10 0.2 Black wins on time"),
            Some("Xboard adjudication: Checkmate")
        ]
    );
    // The third game ends with `Hc1#`: checkmate on the board, Black wins.
    let end = replayed(&games[2]).board_end.expect("checkmate");
    assert_eq!(end.result_text(), Some("0-1"));
    assert_eq!(end.reason.as_str(), "checkmate");
}

#[test]
fn pyffish_match_games_replay_as_its_coordinates_say() {
    let san = pgn::read(&fixture("xq-match-san.pgn"));
    let uci = pgn::read(&fixture("xq-match-uci.pgn"));
    assert_eq!(san.len(), 6);
    assert_eq!(uci.len(), 6);
    let one = ReplayOptions {
        read: ReadOptions {
            rank_base: RankBase::One,
            ..ReadOptions::default()
        },
        ..ReplayOptions::default()
    };
    let mut mates = 0;
    for (s, u) in san.iter().zip(&uci) {
        let r = replayed(s);
        let plies: usize = s.tag("PlyCount").unwrap().parse().unwrap();
        assert_eq!(r.moves.len(), plies, "game {}", s.id);
        let by_coordinates = replay(u, one).unwrap_or_else(|e| panic!("game {}: {e}", u.id));
        assert_eq!(r.moves, by_coordinates.moves, "game {}", s.id);
        assert_eq!(r.start, by_coordinates.start);
        if s.tag("Termination") == Some("checkmate") {
            let end = r.board_end.as_ref().expect("checkmate on the board");
            assert_eq!(end.result_text(), s.tag("Result"), "game {}", s.id);
            mates += 1;
        }
    }
    assert_eq!(mates, 4);
}

#[test]
fn pyffish_random_games_reach_pyffish_final_positions() {
    let games = pgn::read(&fixture("pyffish-san-random.pgn"));
    assert_eq!(games.len(), 30);
    let mut plies = 0;
    for g in &games {
        let r = replayed(g);
        assert_eq!(
            r.moves.len(),
            g.tag("PlyCount").unwrap().parse::<usize>().unwrap(),
            "game {}",
            g.id
        );
        plies += r.moves.len();
        // Placement and side to move (pyffish counts the halfmove clock its own way).
        let ours = r.end.to_string();
        let theirs = g.tag("EndFEN").unwrap();
        let head = |f: &str| f.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        assert_eq!(head(&ours), head(theirs), "game {}", g.id);
    }
    assert_eq!(plies, PLIES_OF_THE_THIRTY);
}

/// The total of the `PlyCount` tags of `pyffish-san-random.pgn`.
const PLIES_OF_THE_THIRTY: usize = 2751;

/// The XBoard form (`Notation::Xboard`): `[Variant "xiangqi"]`, lower-case coordinates with
/// ranks 0–9; read back to the same moves.
#[test]
fn xboard_export_form() {
    use chuhe_notation::pgn::WriteOptions;
    use chuhe_notation::Notation;
    let games = pgn::read(&fixture("xboard-xiangqi.pgn"));
    let r = replayed(&games[2]);
    let mut out = String::new();
    pgn::write(
        &mut out,
        &games[2],
        &r,
        WriteOptions {
            notation: Notation::Xboard,
            ..WriteOptions::default()
        },
    );
    let head: Vec<&str> = out.lines().take(14).collect();
    assert_eq!(
        head,
        [
            "[Game \"Chinese Chess\"]",
            "[Event \"Computer Chess Game\"]",
            "[Site \"vm\"]",
            "[Date \"2026.12.02\"]",
            "[Round \"3\"]",
            "[Red \"chuhe 0.1.0 (UCI2WB)\"]",
            "[Black \"chuhe 0.1.0 (UCI2WB)\"]",
            "[Result \"0-1\"]",
            "[TimeControl \"20\"]",
            "[Termination \"checkmate\"]",
            "[Variant \"xiangqi\"]",
            "",
            HEAD_MOVES[0],
            HEAD_MOVES[1],
        ]
    );
    assert!(
        out.ends_with("22. i2i6 b3c1 {Xboard adjudication: Checkmate}\n0-1\n"),
        "{out}"
    );
    let again = pgn::read(&out);
    assert_eq!(replayed(&again[0]).moves, r.moves);
}

/// The first two lines of moves of the third XBoard game in its export form.
const HEAD_MOVES: [&str; 2] = [
    "1. c3c4 {+0.92/11} h7e7 {-0.54/11 0.4}",
    "2. b0c2 {+0.23/12 0.5} h9g7 {-0.33/14 1.1}",
];

/// Issue 27: XBoard writes a straight Soldier move as its target alone (`i4`), a sideways one
/// with the source file (`hi4`). With Black Soldiers on i5 and h4 both reach i4; the record
/// replays (it was refused as ambiguous), whether the ranks are told or not.
#[test]
fn xboard_straight_soldier_move_beside_a_sideways_one() {
    let text = "[Variant \"xiangqi\"]\n[SetUp \"1\"]\n[FEN \"4k4/9/9/9/8p/7p1/9/9/9/3K5 b - - 0 1\"]\n\n1... i4 2. Kd1 hg4 *\n";
    let games = pgn::read(text);
    assert_eq!(games.len(), 1);
    let r = replayed(&games[0]);
    assert_eq!(iccs(&r), ["i5i4", "d0d1", "h4g4"]);
    let pos =
        chuhe_rules::xiangqi::Position::from_fen("4k4/9/9/9/8p/7p1/9/9/9/3K5 b - - 0 1").unwrap();
    for base in [None, Some(RankBase::Zero)] {
        let opts = ReadOptions {
            san_rank_base: base,
            ..ReadOptions::default()
        };
        let read = chuhe_notation::read_move(&pos, "i4", opts).unwrap();
        assert_eq!(read.mv.to_string(), "i5i4");
        // With the piece's letter the text follows Fairy-Stockfish's rules, where it does not
        // tell the two apart: still refused.
        let err = chuhe_notation::read_move(&pos, "Pi4", opts).unwrap_err();
        assert_eq!(err.kind(), chuhe_notation::ReadErrorKind::Ambiguous);
    }
}
