//! The games the server hosts, behind one enum per concept: [`Variant`], [`AnyGame`],
//! [`AnyMove`], [`BoardView`]. Each variant plugs in through one match arm per method; nothing
//! else in the server knows a rule.
//!
//! Seats are numbered from 0 in the variant's turn order: xiangqi 0 = Red, 1 = Black; sanguo
//! 0 = Shu, 1 = Wu, 2 = Wei; banqi 0 = the seat that flips first, 1 = the other (their colours
//! are known after the first flip).
//!
//! A move is played live once ([`AnyGame::play`]), which gives its *record*: the text stored in
//! the move event and replayed after a restart ([`AnyGame::play_record`]). For xiangqi and sanguo
//! the record is the move text; for banqi a flip's record names the piece it revealed (`c2=R`),
//! drawn at flip time, so the stored records rebuild the game and no hidden identity exists
//! anywhere before its flip.

use chuhe_rules::banqi;
use chuhe_rules::outcome::{EndReason, Outcome, Quit, Side};
use chuhe_rules::sanguo::{self, Kingdom};
use chuhe_rules::xiangqi::{self, Color};
use serde::{Deserialize, Serialize};

pub use chuhe_rules::Variant;
pub use error::{Illegal, MoveError, PositionTextError, ReplayError, SyntaxError};

mod error;
mod view;

pub use view::{BoardPosition, BoardView, Snapshot};

/// A seat at a table: its index from 0 in the variant's move order. Xiangqi: 0 = Red,
/// 1 = Black. Banqi: 0 = the seat that flips first (its colour is the colour of the piece it
/// reveals), 1 = the other. Sanguo: 0 = Shu, 1 = Wu, 2 = Wei. (Also `protocol::Seat`.)
///
/// On the wire a seat is a plain number (`"seat": 1`). It holds any number a client sends, so
/// that the table itself refuses a seat it does not have, with its range
/// (`seat 5 does not exist (seats 0 to 1)`): a `Seat` read from a message is not yet checked
/// against any table.
///
/// ```
/// use chuhe_server::protocol::{ClientMessage, Seat};
///
/// let black = Seat::new(1);
/// assert_eq!(black.index(), 1);
/// assert_eq!(black.to_string(), "1");
/// let sit: ClientMessage = serde_json::from_str(r#"{"type":"sit","seat":1}"#).unwrap();
/// assert_eq!(sit, ClientMessage::Sit { seat: black });
/// assert_eq!(serde_json::to_string(&sit).unwrap(), r#"{"type":"sit","seat":1}"#);
/// ```
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
// The OpenAPI description takes the first paragraph only (the rest is for Rust readers).
#[schema(
    description = "A seat at a table: its index from 0 in the variant's move order. \
    Xiangqi: 0 = Red, 1 = Black. Banqi: 0 = the seat that flips first (its colour is the colour \
    of the piece it reveals), 1 = the other. Sanguo: 0 = Shu, 1 = Wu, 2 = Wei. A plain number on \
    the wire; the table refuses a seat it does not have."
)]
#[serde(transparent)]
pub struct Seat(usize);

impl Seat {
    /// The seat with this index (see [`Seat`] for the order); any number, checked against a
    /// table only where the table uses it.
    pub const fn new(index: usize) -> Seat {
        Seat(index)
    }

    /// The seat's index from 0 in move order: the position of its entry in every per-seat list
    /// (`seats`, `clocks`, `connected`).
    pub const fn index(self) -> usize {
        self.0
    }

    /// The first `count` seats, in move order.
    pub fn all(count: usize) -> impl Iterator<Item = Seat> {
        (0..count).map(Seat)
    }
}

/// The index, as on the wire.
impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The options a table fixes for its game (the rule-related part of
/// [`crate::protocol::TableOptions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleOptions {
    /// Xiangqi: plies without capture before a draw (0 = off).
    pub no_capture_limit: u16,
    /// Sanguo: whether the flag-bearer rule is on.
    pub flag_bearers: bool,
}

/// A move of any variant, parsed but not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyMove {
    /// A standard xiangqi move (ICCS, e.g. `h2e2`).
    Xiangqi(xiangqi::Move),
    /// A sanguo move (`Rh3-Rh4`, `Rh3xGb1`).
    Sanguo(sanguo::Move),
    /// A banqi action (`flip c2`, `c2-c3`, `c2xc3`).
    Banqi(banqi::Action),
}

impl std::fmt::Display for AnyMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyMove::Xiangqi(m) => m.fmt(f),
            AnyMove::Sanguo(m) => f.write_str(&m.text(false)),
            AnyMove::Banqi(a) => a.fmt(f),
        }
    }
}

/// The rules' game of one variant.
enum Inner {
    Xiangqi(xiangqi::Game),
    Sanguo(sanguo::Game),
    Banqi(banqi::Game),
}

/// A game of any variant, owned by one table actor: the rules' game, the records of the moves
/// played, and an ending decided at the table (resignation, timeout, agreement, ...).
pub struct AnyGame {
    inner: Inner,
    records: Vec<String>,
    table_end: Option<(Outcome, Vec<Seat>)>,
}

impl std::fmt::Debug for AnyGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnyGame")
            .field("variant", &self.variant())
            .field("records", &self.records)
            .field("table_end", &self.table_end)
            .finish()
    }
}

impl Clone for AnyGame {
    /// A copy; a banqi game (whose flips draw from a private generator and so cannot be cloned)
    /// is rebuilt from its public start and its records, with a new generator.
    fn clone(&self) -> AnyGame {
        let inner = match &self.inner {
            Inner::Xiangqi(g) => Inner::Xiangqi(g.clone()),
            Inner::Sanguo(g) => Inner::Sanguo(g.clone()),
            Inner::Banqi(g) => {
                let mut copy = banqi::Game::new(g.start_view().clone().into());
                for &r in g.records() {
                    // The records were played on the same start: they replay.
                    let _ = copy.play_recorded(r);
                }
                Inner::Banqi(copy)
            }
        };
        AnyGame {
            inner,
            records: self.records.clone(),
            table_end: self.table_end.clone(),
        }
    }
}

impl AnyGame {
    /// A new game of `variant` from its start position (banqi: all pieces face down).
    pub fn new(variant: Variant, options: RuleOptions) -> AnyGame {
        let inner = match variant {
            Variant::Xiangqi => Inner::Xiangqi(xiangqi::Game::new(
                xiangqi::Position::start(),
                xiangqi::GameOptions {
                    no_capture_limit: options.no_capture_limit,
                    repetition: true,
                },
            )),
            Variant::Sanguo => Inner::Sanguo(sanguo::Game::new(sanguo::Position::start(
                options.flag_bearers,
            ))),
            Variant::Banqi => Inner::Banqi(banqi::Game::start()),
        };
        AnyGame {
            inner,
            records: Vec::new(),
            table_end: None,
        }
    }

    /// A game of `variant` from a position text as `chuhe-rules` reads it: a xiangqi FEN, a sanguo
    /// position text (`spec/sanguo.md` §8.2), a banqi view text (`spec/banqi.md` §3.1, face-down
    /// squares as `?`). The end-of-game rules are applied to the loaded position at once. A banqi
    /// position whose colours are assigned gives seat 0 the colour to move.
    ///
    /// # Errors
    /// [`PositionTextError`] when the text does not read or is not a valid position.
    pub fn from_position(
        variant: Variant,
        text: &str,
        options: RuleOptions,
    ) -> Result<AnyGame, PositionTextError> {
        let inner = match variant {
            Variant::Xiangqi => Inner::Xiangqi(xiangqi::Game::new(
                text.parse().map_err(PositionTextError::Xiangqi)?,
                xiangqi::GameOptions {
                    no_capture_limit: options.no_capture_limit,
                    repetition: true,
                },
            )),
            Variant::Sanguo => Inner::Sanguo(sanguo::Game::new(
                text.parse().map_err(PositionTextError::Sanguo)?,
            )),
            Variant::Banqi => {
                let view: banqi::View = text.parse().map_err(PositionTextError::Banqi)?;
                let turn = view.turn();
                let game = banqi::Game::new(view.into());
                Inner::Banqi(match turn {
                    Some(colour) => game.with_first_seat(colour),
                    None => game,
                })
            }
        };
        Ok(AnyGame {
            inner,
            records: Vec::new(),
            table_end: None,
        })
    }

    /// The variant of this game.
    pub fn variant(&self) -> Variant {
        match self.inner {
            Inner::Xiangqi(_) => Variant::Xiangqi,
            Inner::Sanguo(_) => Variant::Sanguo,
            Inner::Banqi(_) => Variant::Banqi,
        }
    }

    /// The seat whose turn it is.
    pub fn seat_to_move(&self) -> Seat {
        Seat(match &self.inner {
            Inner::Xiangqi(g) => g.side_to_move().index(),
            Inner::Sanguo(g) => g.side_to_move().index(),
            Inner::Banqi(g) => g.seat_to_move().index(),
        })
    }

    /// Whether `seat` still plays (a defeated sanguo kingdom does not: its clock, presence and
    /// quitting no longer matter).
    pub fn is_active(&self, seat: Seat) -> bool {
        match &self.inner {
            Inner::Sanguo(g) => {
                Kingdom::from_index(seat.0).is_some_and(|k| !g.position().is_defeated(k))
            }
            Inner::Xiangqi(_) | Inner::Banqi(_) => true,
        }
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        self.records.len()
    }

    /// The records of the moves played, in order.
    pub fn records(&self) -> &[String] {
        &self.records
    }

    /// Parses a move text of this variant.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text is not a move of this variant.
    pub fn parse_move(&self, text: &str) -> Result<AnyMove, MoveError> {
        Ok(match self.inner {
            Inner::Xiangqi(_) => AnyMove::Xiangqi(text.parse().map_err(SyntaxError::Xiangqi)?),
            Inner::Sanguo(_) => AnyMove::Sanguo(text.parse().map_err(SyntaxError::Sanguo)?),
            Inner::Banqi(_) => AnyMove::Banqi(text.parse().map_err(SyntaxError::Banqi)?),
        })
    }

    /// Plays a move for the seat to move, applying the end-of-game rules, and returns its
    /// record (banqi: a flip reveals its piece now).
    ///
    /// # Errors
    /// [`MoveError::Illegal`] with the reason, [`SyntaxError::OtherGame`] for a move of another
    /// variant; the game is then unchanged.
    pub fn play(&mut self, mv: AnyMove) -> Result<String, MoveError> {
        if self.table_end.is_some() {
            return Err(Illegal::Ended.into());
        }
        let record = match (&mut self.inner, mv) {
            (Inner::Xiangqi(g), AnyMove::Xiangqi(m)) => {
                g.play(m).map_err(Illegal::Xiangqi)?.to_string()
            }
            (Inner::Sanguo(g), AnyMove::Sanguo(m)) => {
                g.play(m).map_err(Illegal::Sanguo)?.to_string()
            }
            (Inner::Banqi(g), AnyMove::Banqi(a)) => g.play(a).map_err(Illegal::Banqi)?.to_string(),
            _ => return Err(SyntaxError::OtherGame.into()),
        };
        self.records.push(record.clone());
        Ok(record)
    }

    /// Plays a stored record (after a restart).
    ///
    /// # Errors
    /// [`MoveError`] when the record does not read or does not play here (corrupt data).
    pub fn play_record(&mut self, record: &str) -> Result<(), MoveError> {
        match &mut self.inner {
            Inner::Xiangqi(g) => drop(
                g.play(record.parse().map_err(SyntaxError::Xiangqi)?)
                    .map_err(Illegal::Xiangqi)?,
            ),
            Inner::Sanguo(g) => drop(
                g.play(record.parse().map_err(SyntaxError::Sanguo)?)
                    .map_err(Illegal::Sanguo)?,
            ),
            Inner::Banqi(g) => drop(
                g.play_recorded(record.parse().map_err(SyntaxError::Banqi)?)
                    .map_err(Illegal::Banqi)?,
            ),
        }
        self.records.push(record.to_owned());
        Ok(())
    }

    /// The legal moves of the seat to move as wire texts, sorted bytewise; empty once over.
    pub fn legal_moves(&self) -> Vec<String> {
        self.moves_and_captures().0
    }

    /// The legal moves of the seat to move, and those of them that capture a piece, both as
    /// wire texts sorted bytewise, from one move generation; both empty once over. The rules
    /// decide what captures: a xiangqi or sanguo move whose to-point holds a piece, a banqi
    /// capture action.
    pub fn moves_and_captures(&self) -> (Vec<String>, Vec<String>) {
        let keys = self.move_keys();
        let all = keys.iter().map(|k| (*k.text()).to_owned()).collect();
        let captures = keys
            .iter()
            .filter(|k| k.is_capture())
            .map(|k| (*k.text()).to_owned())
            .collect();
        (all, captures)
    }

    /// The legal moves of the seat to move as [`MoveKey`]s, sorted (so in the bytewise order
    /// of their texts); empty once over. A table packs them for the seat to move after every
    /// move: the keys are made from the rules' fixed-size names and sorted as integers, with
    /// no text written until the packing (the texts made as strings and sorted as strings
    /// were 8 % of a loaded server's processor time: docs/performance.md, "The statement
    /// journal" and "Legal moves as sort keys").
    pub fn move_keys(&self) -> Vec<MoveKey> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        let mut keys = match &self.inner {
            Inner::Xiangqi(g) => {
                let p = g.position();
                g.legal_moves()
                    .into_iter()
                    .map(|m| {
                        let ([a, b], [c, d]) = (m.from.iccs(), m.to.iccs());
                        MoveKey::new([a, b, c, d, 0, 0, 0], p.is_capture(m))
                    })
                    .collect::<Vec<_>>()
            }
            Inner::Sanguo(g) => {
                let p = g.position();
                g.legal_moves()
                    .into_iter()
                    .map(|m| {
                        let capture = p.piece_at(m.to).is_some();
                        let ([a, b, c], [d, e, f]) = (m.from.name(), m.to.name());
                        let sep = if capture { b'x' } else { b'-' };
                        MoveKey::new([a, b, c, sep, d, e, f], capture)
                    })
                    .collect()
            }
            Inner::Banqi(g) => g
                .legal_moves()
                .into_iter()
                .map(|a| {
                    let capture = matches!(a, banqi::Action::Capture { .. });
                    MoveKey::new(a.text_bytes(), capture)
                })
                .collect(),
        };
        keys.sort_unstable();
        keys
    }

    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.table_end {
            Some((o, _)) => Some(o.clone()),
            None => self.rules_ending().map(|(o, _)| o),
        }
    }

    /// The seats that won (empty for a draw, an aborted game or while the game goes on).
    pub fn winner_seats(&self) -> Vec<Seat> {
        match &self.table_end {
            Some((_, seats)) => seats.clone(),
            None => self.rules_ending().map(|(_, s)| s).unwrap_or_default(),
        }
    }

    /// How the rules' game ended, with its winning seats; `None` while it goes on.
    fn rules_ending(&self) -> Option<(Outcome, Vec<Seat>)> {
        match &self.inner {
            Inner::Xiangqi(g) => self.with_seats(g.status().outcome()),
            Inner::Sanguo(g) => self.with_seats(g.status().outcome()),
            Inner::Banqi(g) => self.banqi_ending(g.status()),
        }
    }

    /// An outcome with the seats of its winners.
    fn with_seats(&self, outcome: Option<&Outcome>) -> Option<(Outcome, Vec<Seat>)> {
        outcome.map(|o| (o.clone(), self.seats_of(&o.winners)))
    }

    /// A banqi status as an outcome and its winning seats. Before the first flip there are no
    /// colours: the other seat wins, and the outcome names no colour.
    fn banqi_ending(&self, status: &banqi::Status) -> Option<(Outcome, Vec<Seat>)> {
        match status {
            banqi::Status::Ongoing => None,
            banqi::Status::Ended(o) => self.with_seats(Some(o)),
            banqi::Status::EndedBySeat { winner, reason } => {
                Some((Outcome::draw(*reason), vec![Seat(winner.index())]))
            }
        }
    }

    /// The seats of the given winners.
    fn seats_of(&self, winners: &[Side]) -> Vec<Seat> {
        Seat::all(self.variant().seat_count())
            .filter(|&s| self.seat_side(s).is_some_and(|w| winners.contains(&w)))
            .collect()
    }

    /// The side or kingdom a seat plays, once known (banqi: after the first flip).
    pub fn seat_side(&self, seat: Seat) -> Option<Side> {
        let seat = seat.0;
        match &self.inner {
            Inner::Xiangqi(_) => Color::from_index(seat).map(Color::side),
            Inner::Sanguo(_) => Kingdom::from_index(seat).map(Kingdom::side),
            Inner::Banqi(g) => g
                .seat_colour(banqi::Seat::from_index(seat)?)
                .map(Color::side),
        }
    }

    /// Ends the game from the table with an outcome and its winning seats (as computed by
    /// [`AnyGame::table_ending`] or agreed). Ignored once the game has ended.
    pub fn end(&mut self, outcome: Outcome, winner_seats: Vec<Seat>) {
        if self.outcome().is_none() {
            self.table_end = Some((outcome, winner_seats));
        }
    }

    /// What happens when `seat` quits by `reason` (resignation, timeout, abandonment) under
    /// the variant's rules (each game's `ending_if`): the outcome and winning seats, or `None`
    /// when it changes nothing (a defeated sanguo kingdom, a game already over, a reason that is
    /// not one of the three). The game itself is not changed.
    pub fn table_ending(&self, seat: Seat, reason: EndReason) -> Option<(Outcome, Vec<Seat>)> {
        if self.outcome().is_some() {
            return None;
        }
        let seat = seat.0;
        let how = Quit::from_reason(reason)?;
        match &self.inner {
            Inner::Xiangqi(g) => {
                self.with_seats(g.ending_if(Color::from_index(seat)?, how)?.outcome())
            }
            Inner::Sanguo(g) => {
                self.with_seats(g.ending_if(Kingdom::from_index(seat)?, how)?.outcome())
            }
            Inner::Banqi(g) => {
                self.banqi_ending(&g.ending_if(banqi::Seat::from_index(seat)?, how)?)
            }
        }
    }

    /// The seats in check now, ascending, as the rules define check: xiangqi, the side to move
    /// when in check ([`xiangqi::Position::checked_sides`]); sanguo, every active kingdom whose
    /// General is attacked (C3) or faces another General (C4)
    /// ([`sanguo::Position::checked_kingdoms`]); banqi has no check and gives none. The position
    /// decides, whatever the table's phase. The table's `check` and `/api/analysis` both read it.
    pub fn check_seats(&self) -> Vec<Seat> {
        match &self.inner {
            Inner::Xiangqi(g) => g
                .position()
                .checked_sides()
                .into_iter()
                .map(|c| Seat(c.index()))
                .collect(),
            Inner::Sanguo(g) => g
                .position()
                .checked_kingdoms()
                .into_iter()
                .map(|k| Seat(k.index()))
                .collect(),
            Inner::Banqi(_) => Vec::new(),
        }
    }

    /// The point of `seat`'s General as text (`e0`, `Rd1`); `None` in banqi, for a defeated
    /// kingdom or a seat past the variant's count.
    pub fn general_point(&self, seat: Seat) -> Option<String> {
        let seat = seat.0;
        match &self.inner {
            Inner::Xiangqi(g) => {
                Color::from_index(seat).map(|c| g.position().general(c).to_string())
            }
            Inner::Sanguo(g) => g
                .position()
                .general(Kingdom::from_index(seat)?)
                .map(|p| p.to_string()),
            Inner::Banqi(_) => None,
        }
    }

    /// The position after every move of a record, from the start: `records.len() + 1`
    /// snapshots, the start first. The records are the stored move records of a table (banqi
    /// flips name their piece), so only public information goes in.
    ///
    /// # Errors
    /// [`ReplayError`] when a record does not read or does not play (corrupt data).
    pub fn replay(
        variant: Variant,
        options: RuleOptions,
        records: &[String],
    ) -> Result<Vec<Snapshot>, ReplayError> {
        AnyGame::replay_from(AnyGame::new(variant, options), records)
    }

    /// The position after every move of a record played from `game` (a table's start,
    /// [`crate::table::start_game`]): `records.len() + 1` snapshots, `game`'s first.
    ///
    /// # Errors
    /// [`ReplayError`] when a record does not read or does not play (corrupt data).
    pub fn replay_from(
        mut game: AnyGame,
        records: &[String],
    ) -> Result<Vec<Snapshot>, ReplayError> {
        let mut out = Vec::with_capacity(records.len() + 1);
        out.push(game.snapshot());
        for (i, r) in records.iter().enumerate() {
            game.play_record(r).map_err(|error| ReplayError {
                ply: i + 1,
                record: r.clone(),
                error,
            })?;
            out.push(game.snapshot());
        }
        Ok(out)
    }

    /// The current position as a [`Snapshot`].
    pub fn snapshot(&self) -> Snapshot {
        let (position, captured) = match &self.inner {
            Inner::Xiangqi(g) => (g.position().to_string(), None),
            Inner::Sanguo(g) => (g.position().to_string(), None),
            Inner::Banqi(g) => (g.view().to_string(), Some(g.view().captured().to_string())),
        };
        Snapshot {
            position,
            check: self.check_seats(),
            captured,
        }
    }

    /// The board as `seat` may see it (`None`: a spectator). Hidden information (banqi
    /// face-down pieces) never enters a view: only the rules' public view is read.
    pub fn view(&self, _seat: Option<Seat>) -> BoardView {
        match &self.inner {
            Inner::Xiangqi(g) => BoardView::Xiangqi {
                fen: g.position().to_string(),
                moves: self.records.clone(),
            },
            Inner::Sanguo(g) => BoardView::Sanguo {
                position: g.position().to_string(),
                moves: self.records.clone(),
            },
            Inner::Banqi(g) => BoardView::Banqi {
                view: g.view().to_string(),
                moves: self.records.clone(),
                colors: Seat::all(2).map(|s| self.seat_side(s)).collect(),
                captured: g.view().captured().to_string(),
            },
        }
    }

    /// The board's position without the move list ([`BoardPosition`]): what changes with a
    /// move, as everyone may see it.
    pub fn position_view(&self) -> BoardPosition {
        match &self.inner {
            Inner::Xiangqi(g) => BoardPosition::Xiangqi {
                fen: g.position().to_string(),
            },
            Inner::Sanguo(g) => BoardPosition::Sanguo {
                position: g.position().to_string(),
            },
            Inner::Banqi(g) => BoardPosition::Banqi {
                view: g.view().to_string(),
                colors: Seat::all(2).map(|s| self.seat_side(s)).collect(),
                captured: g.view().captured().to_string(),
            },
        }
    }

    /// The xiangqi game, for the computer player.
    pub fn as_xiangqi(&self) -> Option<&xiangqi::Game> {
        match &self.inner {
            Inner::Xiangqi(g) => Some(g),
            _ => None,
        }
    }

    /// The sanguo game, for the computer player.
    pub fn as_sanguo(&self) -> Option<&sanguo::Game> {
        match &self.inner {
            Inner::Sanguo(g) => Some(g),
            _ => None,
        }
    }

    /// The banqi game's public view and legal actions, for the computer player.
    pub fn as_banqi_view(&self) -> Option<&banqi::View> {
        match &self.inner {
            Inner::Banqi(g) => Some(g.view()),
            _ => None,
        }
    }
}

/// One legal move as a sort key ([`AnyGame::move_keys`]): the move's wire text in the seven
/// high bytes of a `u64`, big-endian and padded with zero bytes, and whether it captures in the
/// lowest byte. Every variant's text fits: xiangqi's ICCS is 4 bytes (`h2e2`), sanguo's 7
/// (`Re1-Re2`), banqi's 5 or 7 (`c2-c3`, `flip c2`), all ASCII letters, digits, `-`, `x` and
/// space, never a zero byte. Keys therefore compare as their texts do bytewise (a text before
/// any longer one it begins), and sorting the keys sorts the texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MoveKey(u64);

impl MoveKey {
    /// The key of the text `text` (its bytes, padded with zero bytes to seven) and whether the
    /// move captures.
    fn new(text: [u8; 7], capture: bool) -> MoveKey {
        let [a, b, c, d, e, f, g] = text;
        MoveKey(u64::from_be_bytes([a, b, c, d, e, f, g, u8::from(capture)]))
    }

    /// The move's wire text.
    pub fn text(&self) -> MoveText {
        // The seven high bytes, big-endian, are the text; the zero bytes after it are cut.
        let [a, b, c, d, e, f, g, _] = self.0.to_be_bytes();
        let text = self.0 >> 8;
        let len = 7 - (text.trailing_zeros() / 8).min(7);
        MoveText {
            bytes: [a, b, c, d, e, f, g],
            len: len as u8,
        }
    }

    /// Whether the move captures a piece.
    pub fn is_capture(&self) -> bool {
        self.0 & 0xff != 0
    }
}

/// A move's wire text as [`MoveKey::text`] gives it, on the stack; it reads as a `str`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveText {
    bytes: [u8; 7],
    len: u8,
}

impl std::ops::Deref for MoveText {
    type Target = str;

    fn deref(&self) -> &str {
        // The rules write ASCII only ([`MoveKey`]), so the bytes are always UTF-8.
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        std::str::from_utf8(bytes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
