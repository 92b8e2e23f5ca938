//! The engine options (`spec/engine-protocol.md` §3), declared once.
//!
//! Every option is one row of [`OPTIONS`]: its UCI name, its UCCI name, its type with default and
//! bounds, and the [`Setting`] it changes. The `option …` lines of `uci` and of `ucci` are printed
//! from that table ([`announce`]), and `setoption` in both dialects is parsed through it
//! ([`parse_uci`], [`parse_ucci`]), so an option cannot be announced with one bound and checked
//! against another.
//!
//! The two dialects differ only in syntax: UCI writes `setoption name <name> value <value>` and
//! `option name <name> type spin default D min A max B`; UCCI 3.0 writes `setoption <name>
//! <value>` and `option <name> type spin min A max B default D`, takes `on`/`off` besides
//! `true`/`false`, and ignores options it does not know. In UCCI, `hashsize` and `threads` also
//! accept 0, meaning the default (announced as `min 0`).

use super::dialect::Dialect;
use super::Session;
use crate::tt::Table;
use chuhe_rules::xiangqi::{DEFAULT_NO_CAPTURE_LIMIT, MAX_NO_CAPTURE_LIMIT};
use std::io::{self, Write};
use std::sync::Arc;

/// Engine options set by `setoption` (`spec/engine-protocol.md` §3). The defaults are those of
/// [`OPTIONS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Search threads.
    pub threads: u32,
    /// Transposition table size in MiB.
    pub hash_mib: u32,
    /// Informational; pondering is driven by `go ponder`.
    pub ponder: bool,
    /// Number of principal variations reported.
    pub multi_pv: u32,
    /// Milliseconds kept in reserve per move for I/O lag: taken from the clock and from a fixed
    /// `go movetime` alike (at least 1 ms is searched).
    pub move_overhead_ms: u32,
    /// Whether `info` lines carry `wdl W D L`.
    pub show_wdl: bool,
    /// Whether `UCI_Elo` limits the strength.
    pub limit_strength: bool,
    /// Target strength in Elo when `limit_strength` is on.
    pub elo: u32,
    /// 0 (weakest) … 20 (full strength).
    pub skill_level: u32,
    /// Plies without capture that draw the game; 0 = off.
    pub no_capture_limit: u32,
    /// UCCI `usemillisec`: whether the times of UCCI `go` are milliseconds (else seconds).
    pub use_millisec: bool,
}

impl Default for Options {
    fn default() -> Self {
        let mut o = Options {
            threads: 0,
            hash_mib: 0,
            ponder: false,
            multi_pv: 0,
            move_overhead_ms: 0,
            show_wdl: false,
            limit_strength: false,
            elo: 0,
            skill_level: 0,
            no_capture_limit: 0,
            use_millisec: false,
        };
        for spec in &OPTIONS {
            if let Some(v) = spec.ty.default() {
                spec.setting.store(&mut o, v);
            }
        }
        o
    }
}

/// What an option changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Setting {
    /// [`Options::threads`].
    Threads,
    /// [`Options::hash_mib`]; a new table is allocated.
    Hash,
    /// Clears the transposition table (UCI `Clear Hash`, UCCI `newgame`).
    ClearHash,
    /// [`Options::ponder`].
    Ponder,
    /// [`Options::multi_pv`].
    MultiPv,
    /// [`Options::move_overhead_ms`].
    MoveOverhead,
    /// [`Options::show_wdl`].
    ShowWdl,
    /// [`Options::limit_strength`].
    LimitStrength,
    /// [`Options::elo`].
    Elo,
    /// [`Options::skill_level`].
    SkillLevel,
    /// [`Options::no_capture_limit`].
    NoCaptureLimit,
    /// [`Options::use_millisec`].
    UseMillisec,
    /// Nothing: the one accepted value is the only game this engine plays.
    Variant,
}

/// A value given to an option, of the option's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// A `check` option's value.
    Check(bool),
    /// A `spin` option's value, within its bounds.
    Spin(u32),
    /// A `button` was pressed (or a fixed value given).
    Press,
}

impl Setting {
    /// Stores `v` in the field of `o` this setting names (actions and mismatched values: nothing).
    fn store(self, o: &mut Options, v: Value) {
        match (self, v) {
            (Setting::Threads, Value::Spin(n)) => o.threads = n,
            (Setting::Hash, Value::Spin(n)) => o.hash_mib = n,
            (Setting::MultiPv, Value::Spin(n)) => o.multi_pv = n,
            (Setting::MoveOverhead, Value::Spin(n)) => o.move_overhead_ms = n,
            (Setting::Elo, Value::Spin(n)) => o.elo = n,
            (Setting::SkillLevel, Value::Spin(n)) => o.skill_level = n,
            (Setting::NoCaptureLimit, Value::Spin(n)) => o.no_capture_limit = n,
            (Setting::Ponder, Value::Check(b)) => o.ponder = b,
            (Setting::ShowWdl, Value::Check(b)) => o.show_wdl = b,
            (Setting::LimitStrength, Value::Check(b)) => o.limit_strength = b,
            (Setting::UseMillisec, Value::Check(b)) => o.use_millisec = b,
            _ => {}
        }
    }
}

/// An option's type, with its default and bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Type {
    /// `type check`: `true` or `false`.
    Check {
        /// The value before any `setoption`.
        default: bool,
    },
    /// `type spin`: an integer in `min..=max`.
    Spin {
        /// The value before any `setoption`.
        default: u32,
        /// The smallest value (UCI; see [`Ucci::zero_is_default`] for UCCI).
        min: u32,
        /// The largest value.
        max: u32,
    },
    /// `type button`: an action without a value.
    Button,
    /// Not announced; accepted with this one value only (case-insensitive), which changes nothing.
    Fixed(&'static str),
}

impl Type {
    /// The default as a [`Value`], for the options that hold one.
    fn default(self) -> Option<Value> {
        match self {
            Type::Check { default } => Some(Value::Check(default)),
            Type::Spin { default, .. } => Some(Value::Spin(default)),
            Type::Button | Type::Fixed(_) => None,
        }
    }
}

/// An option's UCCI face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ucci {
    /// The UCCI name (lowercase, one word).
    pub name: &'static str,
    /// The position of the line in `ucci`'s list (UCCI engines announce `usemillisec` first
    /// and `newgame` last, `hashsize` before `threads`).
    pub rank: u8,
    /// 0 is also accepted and means the default (UCCI 3.0's convention for `hashsize` and
    /// `threads`); announced as `min 0`.
    pub zero_is_default: bool,
}

/// One engine option: its names in the two dialects, its type and what it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spec {
    /// The UCI name (`setoption name …`, case-insensitive), or `None` in UCCI only.
    pub uci: Option<&'static str>,
    /// The UCCI face, or `None` in UCI only.
    pub ucci: Option<Ucci>,
    /// The type, default and bounds.
    pub ty: Type,
    /// What the option changes.
    pub setting: Setting,
}

/// A UCCI face of rank `rank` (see [`Ucci`]).
const fn ucci(name: &'static str, rank: u8) -> Option<Ucci> {
    Some(Ucci {
        name,
        rank,
        zero_is_default: false,
    })
}

/// Every engine option, in the order `uci` announces them.
pub(super) const OPTIONS: [Spec; 14] = [
    Spec {
        uci: None,
        ucci: ucci("usemillisec", 0),
        ty: Type::Check { default: false },
        setting: Setting::UseMillisec,
    },
    Spec {
        uci: Some("Threads"),
        ucci: Some(Ucci {
            name: "threads",
            rank: 2,
            zero_is_default: true,
        }),
        ty: Type::Spin {
            default: 1,
            min: 1,
            max: 1024,
        },
        setting: Setting::Threads,
    },
    Spec {
        uci: Some("Hash"),
        ucci: Some(Ucci {
            name: "hashsize",
            rank: 1,
            zero_is_default: true,
        }),
        // MiB; the largest is 32 TiB.
        ty: Type::Spin {
            default: 16,
            min: 1,
            max: 33_554_432,
        },
        setting: Setting::Hash,
    },
    Spec {
        uci: Some("Clear Hash"),
        ucci: None,
        ty: Type::Button,
        setting: Setting::ClearHash,
    },
    Spec {
        uci: Some("Ponder"),
        ucci: ucci("ponder", 3),
        ty: Type::Check { default: false },
        setting: Setting::Ponder,
    },
    Spec {
        uci: Some("MultiPV"),
        ucci: None,
        ty: Type::Spin {
            default: 1,
            min: 1,
            max: 128,
        },
        setting: Setting::MultiPv,
    },
    Spec {
        uci: Some("Move Overhead"),
        ucci: None,
        // Milliseconds.
        ty: Type::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
        setting: Setting::MoveOverhead,
    },
    Spec {
        uci: Some("UCI_ShowWDL"),
        ucci: None,
        ty: Type::Check { default: false },
        setting: Setting::ShowWdl,
    },
    Spec {
        uci: Some("UCI_LimitStrength"),
        ucci: None,
        ty: Type::Check { default: false },
        setting: Setting::LimitStrength,
    },
    Spec {
        uci: Some("UCI_Elo"),
        ucci: None,
        ty: Type::Spin {
            default: 1500,
            min: crate::skill::ELO_MIN,
            max: crate::skill::ELO_MAX,
        },
        setting: Setting::Elo,
    },
    Spec {
        uci: Some("Skill Level"),
        ucci: ucci("skilllevel", 4),
        ty: Type::Spin {
            default: crate::skill::MAX_SKILL_LEVEL,
            min: 0,
            max: crate::skill::MAX_SKILL_LEVEL,
        },
        setting: Setting::SkillLevel,
    },
    Spec {
        uci: Some("No Capture Limit"),
        ucci: ucci("nocapturelimit", 5),
        // Plies; the rules' default and bound (`spec/xiangqi.md` §6.6).
        ty: Type::Spin {
            default: DEFAULT_NO_CAPTURE_LIMIT as u32,
            min: 0,
            max: MAX_NO_CAPTURE_LIMIT as u32,
        },
        setting: Setting::NoCaptureLimit,
    },
    Spec {
        uci: None,
        ucci: ucci("newgame", 6),
        ty: Type::Button,
        setting: Setting::ClearHash,
    },
    Spec {
        uci: Some("UCI_Variant"),
        ucci: None,
        ty: Type::Fixed("xiangqi"),
        setting: Setting::Variant,
    },
];

/// The `option …` lines `uci` or `ucci` prints, in order.
pub(super) fn announce(dialect: Dialect) -> Vec<String> {
    match dialect {
        Dialect::Uci => OPTIONS
            .iter()
            .filter_map(|spec| {
                let name = spec.uci?;
                Some(match spec.ty {
                    Type::Check { default } => {
                        format!("option name {name} type check default {default}")
                    }
                    Type::Spin { default, min, max } => format!(
                        "option name {name} type spin default {default} min {min} max {max}"
                    ),
                    Type::Button => format!("option name {name} type button"),
                    Type::Fixed(_) => return None,
                })
            })
            .collect(),
        Dialect::Ucci => {
            let mut faces: Vec<(Ucci, Type)> = OPTIONS
                .iter()
                .filter_map(|spec| Some((spec.ucci?, spec.ty)))
                .collect();
            faces.sort_by_key(|(u, _)| u.rank);
            faces
                .into_iter()
                .filter_map(|(u, ty)| {
                    let name = u.name;
                    Some(match ty {
                        Type::Check { default } => {
                            format!("option {name} type check default {default}")
                        }
                        Type::Spin { default, min, max } => {
                            let min = if u.zero_is_default { 0 } else { min };
                            format!("option {name} type spin min {min} max {max} default {default}")
                        }
                        Type::Button => format!("option {name} type button"),
                        Type::Fixed(_) => return None,
                    })
                })
                .collect()
        }
    }
}

/// Why a `setoption` was refused: the error code and its detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refused {
    /// `unknown-option` or `bad-option-value`.
    pub code: &'static str,
    /// The option's name as written, and for a bad value the value.
    pub detail: String,
}

/// A `setoption` that parsed: what to set, to which value, and the error detail to print if the
/// value cannot be applied after all (a table that cannot be allocated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Parsed {
    /// What the option changes.
    pub setting: Setting,
    /// The value, of the option's type.
    pub value: Value,
    /// `<name> <value>` as written, for `bad-option-value`.
    pub detail: String,
}

/// A value of `ty` from its text; `flags` are the accepted words for true and false.
fn value(ty: Type, text: Option<&str>, flags: &[(&str, bool)], zero: Option<u32>) -> Option<Value> {
    match ty {
        Type::Button => Some(Value::Press),
        Type::Fixed(only) => text
            .filter(|t| t.eq_ignore_ascii_case(only))
            .map(|_| Value::Press),
        Type::Check { .. } => {
            let t = text?.to_ascii_lowercase();
            flags
                .iter()
                .find(|(word, _)| *word == t)
                .map(|&(_, b)| Value::Check(b))
        }
        Type::Spin { min, max, .. } => {
            let n = text?.parse::<u32>().ok()?;
            match zero {
                Some(default) if n == 0 => Some(Value::Spin(default)),
                _ => (min..=max).contains(&n).then_some(Value::Spin(n)),
            }
        }
    }
}

/// Parses UCI `setoption name <name> [value <value>]` (the arguments after `setoption`).
pub(super) fn parse_uci(args: &[&str]) -> Result<Parsed, Refused> {
    if args.first() != Some(&"name") {
        return Err(Refused {
            code: "unknown-option",
            detail: args.join(" "),
        });
    }
    let value_at = args.iter().position(|&t| t == "value");
    let name = args[1..value_at.unwrap_or(args.len())].join(" ");
    let text = value_at.map(|i| args[i + 1..].join(" "));
    let Some(spec) = OPTIONS
        .iter()
        .find(|s| s.uci.is_some_and(|n| n.eq_ignore_ascii_case(&name)))
    else {
        return Err(Refused {
            code: "unknown-option",
            detail: name,
        });
    };
    let flags = [("true", true), ("false", false)];
    let v = value(spec.ty, text.as_deref(), &flags, None);
    parsed(spec, v, format!("{name} {}", text.unwrap_or_default()))
}

/// The setting of `spec` to `value`, or `bad-option-value` when the text gave none; `detail`
/// names the option and the text for the reply.
fn parsed(spec: &Spec, value: Option<Value>, detail: String) -> Result<Parsed, Refused> {
    match value {
        Some(value) => Ok(Parsed {
            setting: spec.setting,
            value,
            detail,
        }),
        None => Err(Refused {
            code: "bad-option-value",
            detail,
        }),
    }
}

/// Parses UCCI `setoption <name> <value>` (the arguments after `setoption`): `Ok(None)` for no
/// name or a name this engine does not know (UCCI ignores those).
pub(super) fn parse_ucci(args: &[&str]) -> Result<Option<Parsed>, Refused> {
    let Some((&name, rest)) = args.split_first() else {
        return Ok(None);
    };
    let text = rest.join(" ");
    let Some((spec, face)) = OPTIONS.iter().find_map(|s| {
        s.ucci
            .filter(|u| u.name.eq_ignore_ascii_case(name))
            .map(|u| (s, u))
    }) else {
        return Ok(None);
    };
    // UCCI GUIs and adapters write check values as true/false, on/off or 1/0 (XBoard's
    // `uci2wb` sends `setoption ponder 0`).
    let flags = [
        ("true", true),
        ("on", true),
        ("1", true),
        ("false", false),
        ("off", false),
        ("0", false),
    ];
    let zero = match spec.ty {
        Type::Spin { default, .. } if face.zero_is_default => Some(default),
        _ => None,
    };
    let v = value(spec.ty, Some(&text), &flags, zero);
    parsed(spec, v, format!("{name} {text}")).map(Some)
}

impl<W: Write + Send + 'static> Session<W> {
    /// `setoption` in the session's dialect.
    pub(super) fn cmd_setoption(&mut self, args: &[&str]) -> io::Result<()> {
        let parsed = match self.dialect {
            Dialect::Uci => parse_uci(args).map(Some),
            Dialect::Ucci => parse_ucci(args),
        };
        let p = match parsed {
            Ok(Some(p)) => p,
            Ok(None) => return Ok(()),
            Err(r) => return self.error(r.code, &r.detail),
        };
        match (p.setting, p.value) {
            (Setting::Hash, Value::Spin(mib)) => {
                if !self.set_hash(mib) {
                    return self.error("bad-option-value", &p.detail);
                }
            }
            (Setting::ClearHash, _) => self.tt.clear(),
            (setting, v) => setting.store(&mut self.options, v),
        }
        Ok(())
    }

    /// Replaces the transposition table by one of about `mib` MiB; `false` (and the old table
    /// kept) when it cannot be allocated.
    fn set_hash(&mut self, mib: u32) -> bool {
        match Table::new(mib as usize) {
            Ok(t) => {
                self.tt = Arc::new(t);
                self.options.hash_mib = mib;
                true
            }
            Err(()) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_has_a_face_and_defaults_within_bounds() {
        for spec in &OPTIONS {
            assert!(spec.uci.is_some() || spec.ucci.is_some(), "{spec:?}");
            if let Type::Spin { default, min, max } = spec.ty {
                assert!(min <= default && default <= max, "{spec:?}");
            }
        }
        let mut ranks: Vec<u8> = OPTIONS
            .iter()
            .filter_map(|s| s.ucci.map(|u| u.rank))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        assert_eq!(
            ranks.len(),
            OPTIONS.iter().filter(|s| s.ucci.is_some()).count()
        );
    }

    #[test]
    fn both_dialects_parse_through_the_table() {
        let max = MAX_NO_CAPTURE_LIMIT.to_string();
        let uci = |args: &[&str]| parse_uci(args).map(|p| (p.setting, p.value));
        let ucci = |args: &[&str]| parse_ucci(args).map(|p| p.map(|p| (p.setting, p.value)));
        assert_eq!(
            uci(&["name", "no", "capture", "limit", "value", &max]),
            Ok((
                Setting::NoCaptureLimit,
                Value::Spin(MAX_NO_CAPTURE_LIMIT.into())
            ))
        );
        assert_eq!(
            ucci(&["nocapturelimit", &max]),
            Ok(Some((
                Setting::NoCaptureLimit,
                Value::Spin(MAX_NO_CAPTURE_LIMIT.into())
            )))
        );
        assert_eq!(
            ucci(&["threads", "0"]),
            Ok(Some((Setting::Threads, Value::Spin(1))))
        );
        assert_eq!(ucci(&["multipv", "3"]), Ok(None));
        assert_eq!(
            uci(&["name", "UCI_Variant", "value", "XiangQi"]),
            Ok((Setting::Variant, Value::Press))
        );
        assert_eq!(
            parse_uci(&["name", "Threads", "value", "0"]).map_err(|r| r.code),
            Err("bad-option-value")
        );
    }

    #[test]
    fn defaults_come_from_the_table() {
        let o = Options::default();
        assert_eq!(o.threads, 1);
        assert_eq!(o.hash_mib, 16);
        assert_eq!(o.multi_pv, 1);
        assert_eq!(o.move_overhead_ms, 10);
        assert_eq!(o.elo, 1500);
        assert_eq!(o.skill_level, 20);
        assert_eq!(o.no_capture_limit, u32::from(DEFAULT_NO_CAPTURE_LIMIT));
        assert!(!o.ponder && !o.show_wdl && !o.limit_strength && !o.use_millisec);
    }
}
