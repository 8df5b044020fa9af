//! `Capabilities`: one frozen layer, exactly as the freeze produced it from one file.
//! Every entry keeps its [`Origin`] (file, line, column, written text) so that judgments,
//! `ralc why`, `ralc show` and the lints can name the entry that decided.
//!
//! Shared interface between the freeze (producer) and the model, lints and renderers
//! (consumers). Pure data: no I/O, no judgment here (judgments live in `stack`/`table`).

use crate::capability::vocab::{EditorVerb, ExecPolicy, ShellVerb};
use crate::diag::Span;
use crate::path::frozen::FrozenPath;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Where an entry was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// The file's display name (as given on the command line, or `std:NAME`).
    pub file: Arc<str>,
    /// 1-based line and column (characters) of the entry's key.
    pub line: u32,
    pub column: u32,
    /// The span of the entry's key, for diagnostics and SARIF locations.
    pub span: Span,
    /// The entry's text as written (`/usr/bin/`, `~/.ssh`, `git`), shared: an origin is
    /// copied into every table and citation that names the entry.
    pub written: Arc<str>,
}

/// What a layer's file is to the composition (spec §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerRole {
    /// `-p FILE`: a policy; an omitted axis is top.
    Policy,
    /// `--restrict FILE`: a policy met into the stack; its own path is write-excluded.
    Restrict,
    /// `--extend FILE`: a fragment; an omitted axis is bottom.
    Extension,
}

/// The layer's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerSource {
    pub name: Arc<str>,
    pub role: LayerRole,
    /// The file's own path on disk (None for `std:` profiles), frozen, for
    /// `--restrict` self-protection and the `self-writable` lint.
    pub path: Option<FrozenPath>,
}

/// An exec key after the freeze (spec §2.1): a bare name, or a frozen file or directory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExecKey {
    /// A bare command name as written (`git`); resolved on the process's own `PATH`
    /// when judged.
    Name(String),
    /// One executable file.
    File(FrozenPath),
    /// Everything beneath a directory (a `…/` key, or one directory of a selector).
    Dir(FrozenPath),
}

/// One exec entry of a layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecRule {
    pub key: ExecKey,
    pub policy: ExecPolicy,
    pub origin: Origin,
}

/// The authored exec grant of one layer: `every` (only the top sets it: it admits every
/// program, with no negative form) and its rules, in source order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ExecGrant {
    every: bool,
    rules: Vec<ExecRule>,
}

impl ExecGrant {
    /// The grant that admits every program.
    pub fn top() -> Self {
        ExecGrant {
            every: true,
            rules: Vec::new(),
        }
    }
    /// A grant from frozen rules (an empty list admits nothing).
    pub fn from_rules(rules: impl IntoIterator<Item = ExecRule>) -> Self {
        ExecGrant {
            every: false,
            rules: rules.into_iter().collect(),
        }
    }
    pub fn every(&self) -> bool {
        self.every
    }
    pub fn rules(&self) -> &[ExecRule] {
        &self.rules
    }
}

/// One fs entry of a layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsEntry {
    pub path: FrozenPath,
    pub origin: Origin,
}

/// `fs` of one layer: prefixes for reading, for writing (writing reads), and exclusions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FsPolicy {
    pub read: Vec<FsEntry>,
    pub write: Vec<FsEntry>,
    pub deny: Vec<FsEntry>,
    /// Exclusions of the write region only (a `--restrict` file's own path, spec §4.4).
    pub write_deny: Vec<FsEntry>,
}

/// A layer's opinion on the network: only `` `offline `` is an opinion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetOffline {
    pub origin: Origin,
}

/// A verb set with the entry that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerbSet<V: Ord> {
    pub verbs: BTreeSet<V>,
    /// The whole set as written (what a judgment cites for a verb it does not list).
    pub origin: Origin,
    /// Each listed verb's own spelling (what a judgment cites for a verb it grants);
    /// a verb missing here is cited at `origin`.
    pub at: std::collections::BTreeMap<V, Origin>,
}

/// A grant dropped at the freeze because it cannot take effect on this host (an entry of
/// the other OS family, a selector that expands to nothing): reported by `dead-grant`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadGrant {
    pub origin: Origin,
    pub reason: String,
}

/// One frozen layer. `None` on an axis: the file said nothing about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    pub source: LayerSource,
    pub exec: Option<ExecGrant>,
    pub fs: Option<FsPolicy>,
    pub net: Option<NetOffline>,
    pub detach: Option<(bool, Origin)>,
    pub editor: Option<VerbSet<EditorVerb>>,
    pub shell: Option<VerbSet<ShellVerb>>,
    /// Grants dropped at the freeze, for the `dead-grant` lint.
    pub dead: Vec<DeadGrant>,
}

impl Capabilities {
    /// A layer that sets nothing (the profile returned `()`).
    pub fn empty(source: LayerSource) -> Self {
        Capabilities {
            source,
            exec: None,
            fs: None,
            net: None,
            detach: None,
            editor: None,
            shell: None,
            dead: Vec::new(),
        }
    }
}

/// The wire form of an `ExecGrant` (`{"every": bool, "rules": [[key, rule], …]}`: the rules
/// as a sequence of pairs), so a grant round-trips through serde with its origins.
mod wire {
    use super::{ExecGrant, ExecKey, ExecRule, Origin};
    use crate::capability::vocab::ExecPolicy;
    use crate::diag::{FileId, Span};
    use crate::path::frozen::FrozenPath;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeSet;

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Key {
        Name(String),
        File(FrozenPath),
        Dir(FrozenPath),
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Policy {
        Allow,
        Deny,
        Subcommands(BTreeSet<String>),
    }

    #[derive(Serialize, Deserialize)]
    struct At {
        file: String,
        line: u32,
        column: u32,
        span: (u32, usize, usize),
        written: String,
    }

    #[derive(Serialize, Deserialize)]
    struct Rule {
        policy: Policy,
        origin: At,
    }

    #[derive(Serialize, Deserialize)]
    struct Grant {
        every: bool,
        rules: Vec<(Key, Rule)>,
    }

    impl Serialize for ExecGrant {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let rules = self
                .rules
                .iter()
                .map(|r| {
                    let key = match &r.key {
                        ExecKey::Name(n) => Key::Name(n.clone()),
                        ExecKey::File(p) => Key::File(p.clone()),
                        ExecKey::Dir(p) => Key::Dir(p.clone()),
                    };
                    let policy = match &r.policy {
                        ExecPolicy::Allow => Policy::Allow,
                        ExecPolicy::Deny => Policy::Deny,
                        ExecPolicy::Subcommands(l) => Policy::Subcommands(l.clone()),
                    };
                    let o = &r.origin;
                    let origin = At {
                        file: o.file.to_string(),
                        line: o.line,
                        column: o.column,
                        span: (o.span.file.0, o.span.start, o.span.end),
                        written: o.written.to_string(),
                    };
                    (key, Rule { policy, origin })
                })
                .collect();
            Grant {
                every: self.every,
                rules,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for ExecGrant {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let g = Grant::deserialize(d)?;
            let rules = g
                .rules
                .into_iter()
                .map(|(k, r)| ExecRule {
                    key: match k {
                        Key::Name(n) => ExecKey::Name(n),
                        Key::File(p) => ExecKey::File(p),
                        Key::Dir(p) => ExecKey::Dir(p),
                    },
                    policy: match r.policy {
                        Policy::Allow => ExecPolicy::Allow,
                        Policy::Deny => ExecPolicy::Deny,
                        Policy::Subcommands(l) => ExecPolicy::Subcommands(l),
                    },
                    origin: Origin {
                        file: r.origin.file.into(),
                        line: r.origin.line,
                        column: r.origin.column,
                        span: Span::new(FileId(r.origin.span.0), r.origin.span.1, r.origin.span.2),
                        written: r.origin.written.into(),
                    },
                })
                .collect();
            Ok(ExecGrant {
                every: g.every,
                rules,
            })
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::path::frozen::RealPath;

        #[test]
        fn round_trips_as_pairs() {
            let o = Origin {
                file: "p.ral".into(),
                line: 2,
                column: 3,
                span: Span::new(FileId(1), 4, 9),
                written: "/usr/bin/".into(),
            };
            let g = ExecGrant::from_rules([
                ExecRule {
                    key: ExecKey::Dir(FrozenPath::from_parts(
                        "/usr/bin",
                        RealPath::from_resolved("/usr/bin"),
                    )),
                    policy: ExecPolicy::Allow,
                    origin: o.clone(),
                },
                ExecRule {
                    key: ExecKey::Name("git".into()),
                    policy: ExecPolicy::Subcommands(["status".to_string()].into()),
                    origin: o,
                },
            ]);
            let j = serde_json::to_string(&g).unwrap();
            assert!(j.starts_with(r#"{"every":false,"rules":[[{"dir":"#), "{j}");
            let back: ExecGrant = serde_json::from_str(&j).unwrap();
            assert_eq!(back, g);
            let top: ExecGrant =
                serde_json::from_str(&serde_json::to_string(&ExecGrant::top()).unwrap()).unwrap();
            assert_eq!(top, ExecGrant::top());
        }
    }
}
