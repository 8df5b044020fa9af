//! The typed profile: what the typecheck hands the freeze. Every value has been checked
//! against grant's declared table (spec §2), but no path has been resolved yet: exec keys
//! and fs entries are still the strings the author wrote, with their spans.
//!
//! This is a shared interface between the front end and the freeze; it holds data only.

/// The model's vocabulary, defined below the front end (`capability::vocab`).
pub use crate::capability::vocab::{EditorVerb, ExecPolicy, ShellVerb};
use crate::diag::Span;
use std::collections::BTreeMap;

/// A value with the span it was written at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// One typechecked profile (one file, one layer).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TypedProfile {
    /// The span of the whole returned value (for diagnostics about the layer as a whole).
    pub span: Span,
    /// `true` when the profile returned `()`: it sets nothing.
    pub is_unit: bool,
    /// `None`: the key was omitted (no opinion).
    pub exec: Option<Spanned<Vec<ExecEntry>>>,
    pub fs: Option<Spanned<FsEntries>>,
    pub net: Option<Spanned<NetOpinion>>,
    pub detach: Option<Spanned<bool>>,
    /// Each permitted verb with the span of its spelling.
    pub editor: Option<Spanned<BTreeMap<EditorVerb, Span>>>,
    pub shell: Option<Spanned<BTreeMap<ShellVerb, Span>>>,
    /// Entries the typecheck recognised in a legacy spelling (`net: false`, a record of
    /// Bools for a verb set), for the `legacy-form` lint: the span and the canonical text.
    pub legacy: Vec<LegacyForm>,
}

/// How an exec key was spelled (spec §2.1), decided from its text alone.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExecKeyForm {
    /// Ends with a separator: everything beneath a directory.
    Dir,
    /// `path:`, `system:`, `cargo:`, …: the selector's name without the colon.
    Selector(String),
    /// Contains a separator or starts with a place, no trailing separator: one file.
    File,
    /// A bare command name.
    Name,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecEntry {
    /// The key as written (after string evaluation), e.g. `/usr/bin/`, `git`, `path:`.
    pub key: String,
    pub key_span: Span,
    pub form: ExecKeyForm,
    pub policy: ExecPolicy,
    pub policy_span: Span,
}

/// One path string of an fs member, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathEntry {
    pub text: String,
    pub span: Span,
}

/// `fs: [read: […], write: […], deny: […]]`; a member omitted is `None` (spec §2.2: a
/// present `fs` without `read` grants no reads beyond its write prefixes).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FsEntries {
    pub read: Option<Vec<PathEntry>>,
    pub write: Option<Vec<PathEntry>>,
    pub deny: Option<Vec<PathEntry>>,
    /// `deny_write` (an extension, `docs/language.md`): exclusions of the write region
    /// only — still readable, never writable, beating every write prefix at any depth.
    pub deny_write: Option<Vec<PathEntry>>,
}

/// The one opinion a layer holds on the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NetOpinion {
    /// `` `offline `` (or the legacy `false`).
    Offline,
    /// `true`: accepted, no opinion.
    NoOpinion,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyForm {
    pub span: Span,
    /// What was written, e.g. `net: false`.
    pub written: String,
    /// The canonical spelling, e.g. ``net: `offline``.
    pub canonical: String,
}
