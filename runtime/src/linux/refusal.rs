//! `Refusal`: every reason a launch does not happen, each with its own message. A refusal
//! means nothing ran (exit 126). It never carries a partial launch. Its text for the
//! terminal (`for_terminal`) shows every control character and bidi override as
//! `\u{…}`, as the compiler's `diag::escape` does: a path the program chose cannot forge
//! a line or a terminal sequence.

use std::fmt;
use std::io;

/// Why the launch was refused before the program started.
#[derive(Debug)]
pub enum Refusal {
    /// The plan itself refuses (its `refused` list).
    Plan(Vec<String>),
    /// The plan is of another version.
    Version(u32),
    /// No `bwrap` on the process's own `PATH`.
    NoBwrap,
    /// `bwrap --help` lists no `--ro-bind-fd`/`--bind-fd`.
    BwrapWithoutFdBinds { bwrap: String },
    /// bwrap could not be asked (`--help` failed).
    BwrapUnusable { bwrap: String, why: String },
    /// The exec projection restricts and this kernel has no Landlock.
    NoLandlock,
    /// `` `offline `` without a network namespace.
    OfflineWithoutNetns,
    /// A symlink sits at or above a path the plan binds or admits.
    SymlinkPlanted { path: String },
    /// A bind name now resolves outside what was rendered.
    Redirected { path: String, now: String },
    /// A deny would hide `/proc`, through which the envelope starts its trampoline.
    DenyHidesProc { path: String },
    /// The exec expansion cannot be completed.
    Expansion { path: String, why: String },
    /// A pin would be overwritten by a hand-off slot.
    SlotCollision { fd: i32 },
    /// An excluded object reachable under another name the plan cannot mask.
    AliasedExclusion { path: String, why: String },
    /// This executable could not be pinned.
    NoSelfPin(String),
    /// A rendered name cannot go into bwrap's argv.
    BadName(String),
    /// A system call failed while preparing the launch.
    Io { what: String, error: io::Error },
    /// Under `` `offline ``, a standard stream is an internet socket.
    InternetStream { stream: &'static str, fd: i32 },
    /// A helper ralc would execute (bwrap) sits where someone other than root could swap it.
    UnsafeHelper { path: String, why: String },
    /// Anything else the launch cannot establish.
    Other(String),
}

impl Refusal {
    pub fn io(what: impl Into<String>, error: io::Error) -> Refusal {
        Refusal::Io {
            what: what.into(),
            error,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Plan(why) => write!(f, "the plan refuses this launch: {}", why.join("; ")),
            Refusal::Version(v) => write!(f, "the plan is version {v}, not {}", crate::plan::LINUX_PLAN_VERSION),
            Refusal::NoBwrap => write!(
                f,
                "bwrap (bubblewrap) was not found in the system directories ({}); nothing runs unconfined (install it: apt-get install bubblewrap)", crate::plan::BWRAP_DIRS.replace(':', ", ")
            ),
            Refusal::BwrapWithoutFdBinds { bwrap } => write!(
                f,
                "{bwrap} has no --ro-bind-fd/--bind-fd (bubblewrap 0.10, or Debian's 0.8.0-2+deb12u1 backport, has them); binds by name could be raced, so nothing runs"
            ),
            Refusal::BwrapUnusable { bwrap, why } => write!(f, "{bwrap} could not be asked for its options: {why}"),
            Refusal::NoLandlock => write!(
                f,
                "the exec grant restricts which programs run, and this kernel offers no Landlock to enforce it inside the sandbox"
            ),
            Refusal::OfflineWithoutNetns => write!(
                f,
                "`offline is asked, but the launch would have no network namespace of its own"
            ),
            Refusal::SymlinkPlanted { path } => write!(
                f,
                "a symlink was planted at or above {path} since the freeze; nothing runs"
            ),
            Refusal::Redirected { path, now } => write!(
                f,
                "{path} now resolves to {now}, outside what was rendered; nothing runs"
            ),
            Refusal::DenyHidesProc { path } => write!(
                f,
                "the exclusion {path} would hide /proc, through which the sandbox starts its trampoline"
            ),
            Refusal::Expansion { path, why } => write!(
                f,
                "the exec admits beneath {path} cannot be expanded for Landlock: it {why}"
            ),
            Refusal::SlotCollision { fd } => write!(
                f,
                "a pinned executable sits on hand-off descriptor {fd}; the launch would run whatever landed there"
            ),
            Refusal::AliasedExclusion { path, why } => write!(
                f,
                "the excluded {path} is reachable under another name the envelope cannot mask ({why}); nothing ran"
            ),
            Refusal::NoSelfPin(why) => write!(f, "ralc could not pin its own executable: {why}"),
            Refusal::BadName(n) => write!(f, "the name {n:?} cannot be passed to bwrap"),
            Refusal::Io { what, error } => write!(f, "{what}: {error}"),
            Refusal::InternetStream { stream, fd } => write!(
                f,
                "`offline is asked, but the program's {stream} (descriptor {fd}) is an internet socket, which would carry the network into the sandbox; give it a pipe, a file or a terminal"
            ),
            Refusal::UnsafeHelper { path, why } => write!(
                f,
                "{path} will not be executed: {why}; a helper must be owned by root in directories only root can write (install bubblewrap from the system's packages)"
            ),
            Refusal::Other(s) => f.write_str(s),
        }
    }
}

impl Refusal {
    /// The message with every control character (newline included), bidi override or
    /// isolate and line or paragraph separator shown as `\u{…}`.
    pub fn for_terminal(&self) -> String {
        let mut out = String::new();
        for c in self.to_string().chars() {
            let hazard = c.is_control()
                || matches!(
                    c,
                    '\u{200E}'
                        | '\u{200F}'
                        | '\u{061C}'
                        | '\u{202A}'..='\u{202E}'
                        | '\u{2066}'..='\u{2069}'
                        | '\u{2028}'
                        | '\u{2029}'
                );
            if hazard {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                out.push(c);
            }
        }
        out
    }
}

#[cfg(test)]
mod terminal_tests {
    use super::Refusal;

    #[test]
    fn a_hostile_path_in_a_refusal_is_escaped() {
        let r = Refusal::SymlinkPlanted {
            path: "/p/.git/worktrees/x\n::error::y\u{1b}]8;;\u{7}\u{202e}/gitdir".into(),
        };
        let t = r.for_terminal();
        assert!(
            !t.contains('\n') && !t.contains('\u{1b}') && !t.contains('\u{202e}'),
            "{t}"
        );
        assert!(t.contains("\\u{a}::error::y\\u{1b}"), "{t}");
    }
}
