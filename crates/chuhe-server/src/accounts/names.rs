//! Player names and chat lines as people see them: one normal form, nothing invisible, nothing
//! that passes for the computer.
//!
//! Both names and chat lines go through [`check_text`]: refused are control characters (line
//! breaks and tabs included, and the line and paragraph separators U+2028 and U+2029), format
//! characters (Unicode general category Cf: the zero-width space, joiners and non-joiner, the
//! bidirectional embeddings, overrides, isolates and marks U+200E, U+200F and U+061C, the word
//! joiner, the byte order mark, the soft hyphen, the tag characters U+E0000 to U+E007F...), the
//! characters that draw as blank without being spaces (Hangul fillers, the braille blank...),
//! the variation selectors, and in names private-use and unassigned characters too: all of them
//! let two texts look the same, hide text or reorder the text around them. A chat line keeps
//! what emoji need: a variation selector (U+FE0E, U+FE0F) right after an emoji, and a zero-width
//! joiner between two emoji (so "👩‍👩‍👧" and "🏳️‍🌈" arrive whole).
//!
//! A name is normalised to Unicode NFKC (so that full-width and other compatibility forms become
//! the ordinary letters they look like), trimmed, and its inner runs of white space become one
//! space. It is refused when it passes for the computer: when any part of it reads as one of the
//! words the computer's seat is shown with in the client's languages ("Ordenador (nivel 8)",
//! "Computer (level 8)", "电脑（8级）", traditional "電腦", "计算机"/"計算機") or in the PGN export
//! (`chuhe level N`), so "The Computer" and "Level 8 computer" are refused as well as "电脑"
//! itself. Names are compared by their confusable skeleton (Unicode TS #39, through the
//! `unicode-security` crate), lower case, letters and digits only, so look-alike letters, case
//! and punctuation do not get around it.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};
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

/// Which text [`check_text`] checks: the rules differ only in what emoji may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A player's name: no exception, and no private-use or unassigned character either.
    Name,
    /// A chat line: a variation selector may follow an emoji, and a zero-width joiner may join
    /// two emoji.
    Chat,
}

/// What [`check_text`] found wrong with a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextError {
    /// A control character: C0 and C1 controls (line feed, tab, escape...), DEL, and the line
    /// and paragraph separators U+2028 and U+2029.
    Control,
    /// An invisible, format or direction-changing character.
    Invisible,
}

/// Whether `c` breaks a line or is a control character (general category Cc, and the line and
/// paragraph separators, Zl and Zp).
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether `c` is invisible or changes the text's direction: Unicode's format characters
/// (general category Cf: zero-width space, joiners, bidirectional controls, the soft hyphen, the
/// byte order mark, the tag characters...), the variation selectors, and the characters that
/// draw as blank without being spaces.
fn is_invisible(c: char) -> bool {
    c.general_category() == GeneralCategory::Format
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Whether `c` is an emoji (Unicode `Emoji=Yes`) other than the ASCII digits, `#` and `*`.
fn is_emoji(c: char) -> bool {
    !c.is_ascii() && c.is_emoji_char()
}

/// Whether the invisible character at `i` of `chars` is one a chat line keeps for emoji: a
/// variation selector right after an emoji (a keycap's digit, `#` or `*` included), or a
/// zero-width joiner after an emoji (or its variation selector or skin tone) and before one.
fn is_emoji_glue(chars: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|b| chars[b]);
    let after = chars.get(i + 1).copied();
    match chars[i] {
        '\u{FE0E}' | '\u{FE0F}' => before.is_some_and(|b| b.is_emoji_char()),
        '\u{200D}' => {
            before.is_some_and(|b| is_emoji(b) || b == '\u{FE0F}') && after.is_some_and(is_emoji)
        }
        _ => false,
    }
}

/// Checks that `text` holds nothing that hides or reorders text or breaks a line: no control
/// character, no format, invisible or direction-changing character (the module's list); a name
/// holds no private-use or unassigned character either; a chat line may glue emoji
/// ([`TextKind::Chat`]). Length and white space are the caller's.
///
/// # Errors
/// [`TextError::Control`] for a control character or a line or paragraph separator,
/// [`TextError::Invisible`] for the rest; a control character is reported first.
///
/// # Examples
/// ```
/// use chuhe_server::accounts::names::{check_text, TextError, TextKind};
/// assert_eq!(check_text("buena partida 👍", TextKind::Chat), Ok(()));
/// assert_eq!(check_text("👩\u{200D}👧", TextKind::Chat), Ok(()));
/// assert_eq!(check_text("👩\u{200D}👧", TextKind::Name), Err(TextError::Invisible));
/// assert_eq!(check_text("abc\u{202E}def", TextKind::Chat), Err(TextError::Invisible));
/// assert_eq!(check_text("a\u{2028}b", TextKind::Chat), Err(TextError::Control));
/// ```
pub fn check_text(text: &str, kind: TextKind) -> Result<(), TextError> {
    if text.chars().any(is_control) {
        return Err(TextError::Control);
    }
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let refused = match kind {
            TextKind::Name => {
                is_invisible(c)
                    || matches!(
                        c.general_category(),
                        GeneralCategory::PrivateUse | GeneralCategory::Unassigned
                    )
            }
            TextKind::Chat => is_invisible(c) && !is_emoji_glue(&chars, i),
        };
        if refused {
            return Err(TextError::Invisible);
        }
    }
    Ok(())
}

/// The words a computer seat is shown with, in the client's languages (simplified and
/// traditional Chinese, and the other word for a computer) and the PGN export.
const COMPUTER_WORDS: [&str; 7] = [
    "ordenador",
    "computer",
    "电脑",
    "電腦",
    "计算机",
    "計算機",
    "chuhelevel",
];

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

/// Whether `name` reads, anywhere in it, as one of the computer's words.
fn passes_for_the_computer(name: &str) -> bool {
    let read = reading(name);
    COMPUTER_WORDS.iter().any(|w| read.contains(&reading(w)))
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
/// holds a control or invisible character ([`check_text`] with [`TextKind::Name`]), or passes
/// for the computer anywhere in it.
///
/// # Examples
/// ```
/// use chuhe_server::accounts::names::{normalize, NameError};
/// assert_eq!(normalize("  Zhang   Fei ").unwrap(), "Zhang Fei");
/// assert_eq!(normalize("電腦(8級)"), Err(NameError::Reserved));
/// assert_eq!(normalize("Level 8 computer"), Err(NameError::Reserved));
/// ```
pub fn normalize(name: &str) -> Result<String, NameError> {
    let nfkc: String = name.nfkc().collect();
    // Invisible characters are named first: a name of a zero-width space and a line feed is
    // refused for the one that hides.
    if nfkc.chars().any(is_invisible) {
        return Err(NameError::Invisible);
    }
    match check_text(&nfkc, TextKind::Name) {
        Ok(()) => {}
        Err(TextError::Control) => return Err(NameError::Length),
        Err(TextError::Invisible) => return Err(NameError::Invisible),
    }
    let name = nfkc.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        return Err(NameError::Length);
    }
    if passes_for_the_computer(&name) {
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
        assert_eq!(normalize("Ordenanza").unwrap(), "Ordenanza");
        assert_eq!(
            NameError::Reserved.to_string(),
            "that name is the computer's"
        );
    }

    #[test]
    fn the_computers_words_are_refused_anywhere_in_a_name() {
        for bad in [
            "電腦(8級)",
            "電腦",
            "The Computer",
            "Level 8 computer",
            "my computer",
            "超级电脑",
            "计算机",
            "計算機 8",
            "El ordenador",
            "player chuhe level 3",
            "Th3 C0MPUTER",
        ] {
            assert_eq!(normalize(bad), Err(NameError::Reserved), "{bad:?}");
        }
        for good in ["电视", "Compute", "Liu Bei", "关羽"] {
            assert_eq!(normalize(good).unwrap(), good, "{good:?}");
        }
    }

    #[test]
    fn line_separators_tags_and_marks_are_refused_in_names() {
        for bad in [
            "a\u{200E}b",
            "a\u{200F}b",
            "a\u{061C}b",
            "a\u{2060}b",
            "a\u{E0041}b",
            "a\u{E007F}",
            "a\u{FE0F}",
            "a\u{E000}b",
            "\u{1F469}\u{200D}\u{1F467}",
        ] {
            assert_eq!(normalize(bad), Err(NameError::Invisible), "{bad:?}");
        }
        for bad in ["a\u{2028}b", "a\u{2029}b", "a\u{0085}b", "a\tb"] {
            assert_eq!(normalize(bad), Err(NameError::Length), "{bad:?}");
        }
    }

    #[test]
    fn chat_lines_keep_emoji_sequences_and_nothing_else_invisible() {
        for good in [
            "hola 👍",
            "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}",
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
            "\u{1F44D}\u{1F3FD}",
            "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}",
            "\u{2764}\u{FE0F}",
            "1\u{FE0F}\u{20E3}",
            "\u{1F1EA}\u{1F1F8}",
            "¡Buena partida! 将军",
            "مرحبا",
        ] {
            assert_eq!(check_text(good, TextKind::Chat), Ok(()), "{good:?}");
        }
        for bad in [
            "abc\u{202E}def",
            "\u{2066}x\u{2069}",
            "a\u{200B}b",
            "a\u{200C}b",
            "a\u{200D}b",
            "\u{1F469}\u{200D}",
            "\u{200D}\u{1F469}",
            "a\u{FE0F}",
            "a\u{2060}b",
            "\u{FEFF}hola",
            "a\u{200E}b",
            "a\u{061C}b",
            // The flag of England: its tag characters are refused.
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
            "hola\u{E0041}",
            "\u{3164}",
        ] {
            assert_eq!(
                check_text(bad, TextKind::Chat),
                Err(TextError::Invisible),
                "{bad:?}"
            );
        }
        for bad in [
            "a\u{2028}b",
            "a\u{2029}b",
            "a\nb",
            "a\u{0007}b",
            "a\u{009B}b",
        ] {
            assert_eq!(
                check_text(bad, TextKind::Chat),
                Err(TextError::Control),
                "{bad:?}"
            );
        }
        // Private use is text in a chat line (some fonts draw it), never in a name.
        assert_eq!(check_text("a\u{E000}b", TextKind::Chat), Ok(()));
        assert_eq!(
            check_text("a\u{E000}b", TextKind::Name),
            Err(TextError::Invisible)
        );
    }
}
