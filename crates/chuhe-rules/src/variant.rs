//! The games of the family and the facts about a table that each one fixes.
//!
//! The command line (`--variant`), the server's tables and the wire all name a game with one
//! [`Variant`]; its facts ([`Variant::seat_count`], [`Variant::has_draw_offers`]) are written here
//! once.

use std::fmt;
use std::str::FromStr;

/// A game of the family, named by its lower-case word (`"xiangqi"`, `"sanguo"`, `"banqi"`) on
/// the command line and on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard xiangqi (`spec/xiangqi.md`): two seats, Red and Black.
    Xiangqi,
    /// Three Kingdoms xiangqi (`spec/sanguo.md`): three seats, Shu, Wu and Wei.
    Sanguo,
    /// Banqi, dark chess on Taiwan rules (`spec/banqi.md`): two seats, coloured by the first flip.
    Banqi,
}

impl Variant {
    /// Every variant, in the order the documents list them.
    pub const ALL: [Variant; 3] = [Variant::Xiangqi, Variant::Sanguo, Variant::Banqi];

    /// The lower-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Xiangqi => "xiangqi",
            Variant::Sanguo => "sanguo",
            Variant::Banqi => "banqi",
        }
    }

    /// How many players (seats at a table) a game of this variant has: 2, or 3 for sanguo.
    pub const fn seat_count(self) -> usize {
        match self {
            Variant::Xiangqi | Variant::Banqi => 2,
            Variant::Sanguo => 3,
        }
    }

    /// Whether the players may end a game by agreeing to a draw over the table: xiangqi and banqi
    /// (`spec/xiangqi.md` §7, `spec/banqi.md` §2.3). Sanguo has no draw offers: its agreed draw
    /// needs every active kingdom (`spec/sanguo.md` C14) and a table does not offer it.
    pub const fn has_draw_offers(self) -> bool {
        matches!(self, Variant::Xiangqi | Variant::Banqi)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of reading a word that names no variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant {:?} (xiangqi, sanguo or banqi)", self.0)
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    /// Reads a lower-case name, e.g. `"sanguo"`.
    ///
    /// # Errors
    /// [`UnknownVariant`] for any other text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_facts() {
        for v in Variant::ALL {
            assert_eq!(v.as_str().parse::<Variant>(), Ok(v));
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.as_str())
            );
        }
        assert_eq!(Variant::ALL.map(Variant::seat_count), [2, 3, 2]);
        assert_eq!(
            Variant::ALL.map(Variant::has_draw_offers),
            [true, false, true]
        );
        assert_eq!(
            "chess".parse::<Variant>().unwrap_err().to_string(),
            "unknown variant \"chess\" (xiangqi, sanguo or banqi)"
        );
    }
}
