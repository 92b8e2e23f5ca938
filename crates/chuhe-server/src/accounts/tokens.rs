//! Personal API tokens (lichess's model, `docs/bots.md`): their scopes, their text and the
//! digest the database keeps of them.
//!
//! A token is `lip_` followed by 24 random letters and digits (about 143 bits), the form of
//! lichess's personal tokens, so clients that look at the prefix accept it. Only its SHA-256 is
//! stored ([`digest`]); the token is shown once, when it is made.

use rand::RngExt as _;

/// What a token may do: lichess's scope names, those chuhe serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `challenge:read`: read the challenges and games of the account (`GET /api/stream/event`).
    ChallengeRead,
    /// `challenge:write`: make, accept, decline and cancel challenges.
    ChallengeWrite,
    /// `bot:play`: play as a bot (`/api/bot/...`, upgrading the account to a bot).
    BotPlay,
    /// `board:play`: play as a person through another app (`/api/board/...`).
    BoardPlay,
    /// `tournament:write`: join and make tournaments.
    TournamentWrite,
}

impl Scope {
    /// Every scope, in the order they are listed.
    pub const ALL: [Scope; 5] = [
        Scope::ChallengeRead,
        Scope::ChallengeWrite,
        Scope::BotPlay,
        Scope::BoardPlay,
        Scope::TournamentWrite,
    ];

    /// The scope's name, as lichess spells it (`bot:play`).
    pub fn key(self) -> &'static str {
        match self {
            Scope::ChallengeRead => "challenge:read",
            Scope::ChallengeWrite => "challenge:write",
            Scope::BotPlay => "bot:play",
            Scope::BoardPlay => "board:play",
            Scope::TournamentWrite => "tournament:write",
        }
    }

    /// The scope named `key`, if chuhe knows it.
    pub fn of_key(key: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// Why a list of scopes is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeError(pub String);

impl std::fmt::Display for ScopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScopeError {}

/// The scopes named by `keys` (each once, sorted in [`Scope::ALL`]'s order); a key may also be a
/// space- or comma-separated list, as lichess's forms send them.
///
/// # Errors
/// [`ScopeError`] naming the first unknown scope and the known ones.
pub fn parse_scopes<S: AsRef<str>>(keys: &[S]) -> Result<Vec<Scope>, ScopeError> {
    let mut out = Vec::new();
    for key in keys
        .iter()
        .flat_map(|k| k.as_ref().split([' ', ',']))
        .filter(|k| !k.is_empty())
    {
        let scope = Scope::of_key(key).ok_or_else(|| {
            let known: Vec<&str> = Scope::ALL.iter().map(|s| s.key()).collect();
            ScopeError(format!("unknown scope {key:?}: use {}", known.join(", ")))
        })?;
        if !out.contains(&scope) {
            out.push(scope);
        }
    }
    out.sort();
    Ok(out)
}

/// The scopes as the database keeps them and lichess lists them: their keys joined by `,`.
pub fn scopes_text(scopes: &[Scope]) -> String {
    scopes.iter().map(|s| s.key()).collect::<Vec<_>>().join(",")
}

/// The scopes of a stored text; unknown names (of a later version) are skipped.
pub fn scopes_of_text(text: &str) -> Vec<Scope> {
    let mut out: Vec<Scope> = text.split([' ', ',']).filter_map(Scope::of_key).collect();
    out.sort();
    out.dedup();
    out
}

/// The prefix of every token (lichess's personal tokens have it too).
pub const TOKEN_PREFIX: &str = "lip_";

/// A new token: [`TOKEN_PREFIX`] and 24 random letters and digits.
pub fn new_token() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let tail: String = (0..24)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("{TOKEN_PREFIX}{tail}")
}

/// What the database keeps of a token: its SHA-256 in lower-case hex.
pub fn digest(token: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The password hash of an account made without a password (`chuhe token create`): not a PHC
/// string, so no password ever matches it (as `!` in `/etc/shadow`); the account signs in only
/// with its tokens.
pub const NO_PASSWORD: &str = "!";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_in_lists_and_refuse_unknown_names() {
        assert_eq!(
            parse_scopes(&["bot:play challenge:read", "bot:play,challenge:write"]),
            Ok(vec![
                Scope::ChallengeRead,
                Scope::ChallengeWrite,
                Scope::BotPlay
            ])
        );
        assert_eq!(
            parse_scopes(&["email:read"]),
            Err(ScopeError(
                "unknown scope \"email:read\": use challenge:read, challenge:write, bot:play, \
                 board:play, tournament:write"
                    .to_owned()
            ))
        );
        let all = parse_scopes(&Scope::ALL.map(Scope::key)).unwrap();
        assert_eq!(scopes_of_text(&scopes_text(&all)), all);
        assert_eq!(scopes_of_text("bot:play,future:scope"), [Scope::BotPlay]);
    }

    #[test]
    fn tokens_have_the_prefix_and_differ() {
        let a = new_token();
        assert!(a.starts_with("lip_") && a.len() == 28, "{a}");
        assert!(a[4..].bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a, new_token());
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
