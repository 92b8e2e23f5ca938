//! Player names as people see them: one normal form, nothing invisible, nothing that passes for
//! the computer.
//!
//! A name is normalised to Unicode NFKC (so that full-width and other compatibility forms become
//! the ordinary letters they look like), trimmed, and its inner runs of white space become one
//! space. It is refused when it has control, format or other invisible characters (zero-width
//! spaces and joiners, the bidirectional embeddings, overrides and isolates, the soft hyphen,
//! Hangul fillers, a byte order mark...), which let two names look the same or reorder the text
//! around them, and when it passes for the computer's seat label in any of the client's languages
//! ("Ordenador (nivel 8)", "Computer (level 8)", "电脑（8级）") or the PGN export's
//! `chuhe level N`: these are compared by their confusable skeleton (Unicode TS #39, through the
//! `unicode-security` crate), so look-alike letters do not get around it.

use unicode_normalization::UnicodeNormalization;
use unicode_security::skeleton;

/// Most characters in a name, after normalisation.
pub const MAX_NAME_CHARS: usize = 24;

/// Why a name was refused; its `Display` is the message the server sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// Empty, too long, or with a control character.
    Length,
    /// An invisible, format or direction-changing character.
    Invisible,
    /// The name passes for the computer.
    Reserved,
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NameError::Length => "a name has 1 to 24 characters and no control characters",
            NameError::Invisible => {
                "a name cannot contain invisible or direction-changing characters"
            }
            NameError::Reserved => "that name is the computer's",
        })
    }
}

impl std::error::Error for NameError {}

/// Whether `c` is invisible or changes the text's direction: Unicode's format characters
/// (general category Cf: zero-width space, joiners, bidirectional controls, the soft hyphen, the
/// byte order mark...) and the characters that draw as blank without being spaces.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// The words a computer seat is shown with, in the client's languages and the PGN export.
const COMPUTER_WORDS: [&str; 4] = ["ordenador", "computer", "电脑", "chuhelevel"];

/// The skeleton of `text`, lower case, without white space or punctuation: what a reader
/// takes it for. A small `i` counts as an `l`: the skeleton takes a capital `I` for an `l`, so
/// without this "ZHANG FEI" and "Zhang Fei" would read differently.
fn reading(text: &str) -> String {
    skeleton(&text.to_lowercase())
        .collect::<String>()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| if c == 'i' { 'l' } else { c })
        .collect()
}

/// The key a name is reserved by: its confusable skeleton, lower case, letters and digits only
/// (so "Paul", "PAUL", "Pau1." and "Раul" with a Cyrillic Р share one); a name without letters
/// or digits is its own key, in lower case. An account holder's key is theirs: no other account
/// and no guest may take a name of the same key.
pub fn skeleton_key(name: &str) -> String {
    // The skeleton before lower case too: a capital I reads as a small l.
    let key = reading(&skeleton(name).collect::<String>());
    if key.is_empty() {
        name.to_lowercase()
    } else {
        key
    }
}

/// The normal form of a name a player asked for.
///
/// # Errors
/// [`NameError`] when the name is empty or longer than [`MAX_NAME_CHARS`] after normalisation,
/// holds a control or invisible character, or passes for the computer.
pub fn normalize(name: &str) -> Result<String, NameError> {
    let nfkc: String = name.nfkc().collect();
    if nfkc.chars().any(is_invisible) {
        return Err(NameError::Invisible);
    }
    if nfkc.chars().any(char::is_control) {
        return Err(NameError::Length);
    }
    let name = nfkc.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        return Err(NameError::Length);
    }
    let read = reading(&name);
    if COMPUTER_WORDS.iter().any(|w| read.starts_with(&reading(w))) {
        return Err(NameError::Reserved);
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_names_share_a_key() {
        let paul = skeleton_key("Paul");
        for same in [
            "paul",
            "PAUL",
            "Pau1",
            "pauI",
            "Paul.",
            "Раul",
            "P a u l",
            "Ｐａｕｌ",
        ] {
            assert_eq!(skeleton_key(same), paul, "{same:?}");
        }
        assert_ne!(skeleton_key("Paula"), paul);
        assert_eq!(skeleton_key("!!!"), "!!!");
        // Case never matters, also where the skeleton reads a capital I as an l.
        let fei = skeleton_key("Zhang Fei");
        for same in [
            "ZHANG FEI",
            "Zhang FeI",
            "zHANG fEI",
            "zhang fei",
            "Zhang Fe1",
        ] {
            assert_eq!(skeleton_key(same), fei, "{same:?}");
        }
        assert_ne!(skeleton_key("Zhang Fen"), fei);
    }

    #[test]
    fn names_are_normalised() {
        assert_eq!(normalize("  Zhang   Fei ").unwrap(), "Zhang Fei");
        // Full-width letters and digits are their ordinary forms.
        assert_eq!(normalize("Ｚｈａｎｇ１").unwrap(), "Zhang1");
        assert_eq!(normalize("关羽").unwrap(), "关羽");
        assert_eq!(normalize("Ana María").unwrap(), "Ana María");
        // Composed and decomposed accents give the same name.
        assert_eq!(normalize("Mari\u{0301}a").unwrap(), "María");
    }

    #[test]
    fn invisible_and_direction_characters_are_refused() {
        for bad in [
            "Zhang\u{200B}Fei",
            "\u{200D}",
            "abc\u{202E}def",
            "\u{2066}x\u{2069}",
            "\u{3164}",
            "a\u{00AD}b",
            "\u{FEFF}name",
        ] {
            assert_eq!(normalize(bad), Err(NameError::Invisible), "{bad:?}");
        }
        assert_eq!(normalize("a\u{0007}b"), Err(NameError::Length));
        assert_eq!(normalize("   "), Err(NameError::Length));
        assert_eq!(normalize(&"x".repeat(25)), Err(NameError::Length));
        assert_eq!(normalize(&"x".repeat(24)).unwrap().len(), 24);
    }

    #[test]
    fn the_computers_names_are_reserved_in_every_language_and_look_alike() {
        for bad in [
            "Computer (level 8)",
            "computer",
            "COMPUTER 2",
            "Ordenador (nivel 3)",
            "电脑（8级）",
            "chuhe level 8",
            // Cyrillic о and е in place of the Latin letters.
            "Cоmputеr (level 8)",
            // Full-width.
            "Ｃｏｍｐｕｔｅｒ",
        ] {
            assert_eq!(normalize(bad), Err(NameError::Reserved), "{bad:?}");
        }
        assert_eq!(normalize("Computadora Ana").unwrap(), "Computadora Ana");
        assert_eq!(
            NameError::Reserved.to_string(),
            "that name is the computer's"
        );
    }
}
