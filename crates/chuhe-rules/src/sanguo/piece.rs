//! Piece kinds and pieces with owner and origin (`spec/sanguo.md` §4.1).

use super::board::Kingdom;
use std::fmt;

/// The kind of a piece; the letters are those of the position text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// General, `K`.
    General,
    /// Advisor, `A`.
    Advisor,
    /// Elephant, `E`.
    Elephant,
    /// Horse, `H`.
    Horse,
    /// Chariot, `R`.
    Chariot,
    /// Cannon, `C`.
    Cannon,
    /// Soldier, `P`.
    Soldier,
    /// Flag bearer, `F` (only when the table plays with them).
    FlagBearer,
}

impl Kind {
    /// Every kind, in the letter order `K A E H R C P F`.
    pub const ALL: [Kind; 8] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
        Kind::FlagBearer,
    ];

    /// The letter of the position text: `K A E H R C P F`.
    pub const fn letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'E',
            Kind::Horse => 'H',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
            Kind::FlagBearer => 'F',
        }
    }

    /// The kind of a letter `K A E H R C P F`.
    pub const fn from_letter(c: char) -> Option<Kind> {
        match c {
            'K' => Some(Kind::General),
            'A' => Some(Kind::Advisor),
            'E' => Some(Kind::Elephant),
            'H' => Some(Kind::Horse),
            'R' => Some(Kind::Chariot),
            'C' => Some(Kind::Cannon),
            'P' => Some(Kind::Soldier),
            'F' => Some(Kind::FlagBearer),
            _ => None,
        }
    }

    /// The English name in lower case, e.g. `flag bearer`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
            Kind::FlagBearer => "flag bearer",
        }
    }

    /// How many pieces of this kind one army starts with (flag bearers: 2 when enabled).
    pub const fn army_count(self) -> usize {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }
}

/// A piece: kind, the kingdom that moves it now (owner) and the army it started in (origin).
/// Movement regions and soldier direction follow the origin; turns and captures the owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// What the piece is.
    pub kind: Kind,
    /// The kingdom that moves it now.
    pub owner: Kingdom,
    /// The kingdom whose army it started in.
    pub origin: Kingdom,
}

impl Piece {
    /// A piece of `kingdom`'s own army.
    pub const fn new(kind: Kind, kingdom: Kingdom) -> Piece {
        Piece {
            kind,
            owner: kingdom,
            origin: kingdom,
        }
    }

    /// The same piece with owner and origin rotated to the next kingdom (§2.4).
    pub const fn rotated(self) -> Piece {
        Piece {
            kind: self.kind,
            owner: self.owner.next(),
            origin: self.origin.next(),
        }
    }
}

impl fmt::Display for Piece {
    /// The text of the board field: owner letter, kind letter, `~origin` when it differs
    /// (e.g. `rP~g`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.owner.owner_letter(), self.kind.letter())?;
        if self.origin != self.owner {
            write!(f, "~{}", self.origin.owner_letter())?;
        }
        Ok(())
    }
}
