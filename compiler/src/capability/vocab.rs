//! The model's vocabulary that the front end also speaks: an exec entry's policy and the
//! editor and shell verbs. Defined here, below both, so the model never imports the front
//! end (`typecheck::profile` re-exports these). Data only: no I/O, no judgment.

use std::collections::BTreeSet;

/// The policy of one exec entry.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExecPolicy {
    Allow,
    Deny,
    /// A non-empty list of permitted first arguments.
    Subcommands(BTreeSet<String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EditorVerb {
    Read,
    Write,
    Tui,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShellVerb {
    Chdir,
}

impl EditorVerb {
    pub const ALL: [EditorVerb; 3] = [EditorVerb::Read, EditorVerb::Write, EditorVerb::Tui];
    pub fn as_str(self) -> &'static str {
        match self {
            EditorVerb::Read => "read",
            EditorVerb::Write => "write",
            EditorVerb::Tui => "tui",
        }
    }
}

impl ShellVerb {
    pub const ALL: [ShellVerb; 1] = [ShellVerb::Chdir];
    pub fn as_str(self) -> &'static str {
        match self {
            ShellVerb::Chdir => "chdir",
        }
    }
}
