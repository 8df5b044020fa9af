//! A denial the host's sandbox reported for a confined process, as data: what was refused
//! (exec, read, write, a service, the network, another operation), on what, by which
//! process. Back ends parse their own logs into it (`macos::unified_log` on macOS; the
//! Linux supervisor, `linux::supervise`, records exec, path and killed-syscall attempts) and `ralc run` words each one as a hint naming
//! the entry that would grant it (`ralc::guard::denial`). It is pure data: it reads
//! nothing and decides nothing.

use std::collections::BTreeSet;

/// The most distinct denials a reader keeps (a flood of distinct paths is cut, and said
/// so).
pub const MAX_KEPT: usize = 4096;

/// What a denial refused, in the words of the hint: `refused exec|read|write PATH`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refused {
    /// Running a file.
    Exec,
    /// Reading a file or listing a directory (its metadata included).
    Read,
    /// Creating, writing, renaming, unlinking or re-moding a file.
    Write,
    /// Reaching a system service (a Mach service, a POSIX IPC name).
    Service,
    /// The network (a socket, a connection, a name lookup).
    Network,
    /// A system call the seccomp deny-set withholds (the target is its name).
    Syscall,
    /// Any other operation, by the sandbox's own name for it.
    Other(String),
}

impl Refused {
    /// The word a hint uses: `exec`, `read`, `write`, `service`, `network`, or the
    /// operation's own name.
    pub fn word(&self) -> &str {
        match self {
            Refused::Exec => "exec",
            Refused::Read => "read",
            Refused::Write => "write",
            Refused::Service => "service",
            Refused::Network => "network",
            Refused::Syscall => "syscall",
            Refused::Other(op) => op,
        }
    }
}

/// One reported denial.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Denial {
    pub refused: Refused,
    /// The object: a path, a service name, an address; empty when the report names none.
    pub target: String,
    /// The sandbox's own name for the operation (`file-read-data`, `mach-lookup`, …).
    pub operation: String,
    /// The denied process.
    pub pid: u32,
    /// Its command name as the report gives it.
    pub process: String,
}

impl Denial {
    /// `refused read /etc/x`: the head of the hint.
    pub fn summary(&self) -> String {
        if self.target.is_empty() {
            format!("refused {}", self.refused.word())
        } else {
            format!("refused {} {}", self.refused.word(), self.target)
        }
    }
}

/// One hint per distinct (what, on what), in a stable order: the same denial repeated by
/// many processes, or many times, is one hint.
pub fn distinct(denials: &[Denial]) -> Vec<&Denial> {
    let mut seen: BTreeSet<(&Refused, &str)> = BTreeSet::new();
    let mut out: Vec<&Denial> = denials
        .iter()
        .filter(|d| seen.insert((&d.refused, d.target.as_str())))
        .collect();
    out.sort_by(|a, b| (&a.refused, &a.target).cmp(&(&b.refused, &b.target)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(refused: Refused, target: &str, pid: u32) -> Denial {
        Denial {
            refused,
            target: target.to_string(),
            operation: "op".to_string(),
            pid,
            process: "p".to_string(),
        }
    }

    #[test]
    fn summary_names_what_and_where() {
        assert_eq!(
            d(Refused::Read, "/etc/x", 1).summary(),
            "refused read /etc/x"
        );
        assert_eq!(
            d(Refused::Other("process-fork".into()), "", 1).summary(),
            "refused process-fork"
        );
    }

    #[test]
    fn distinct_folds_repeats_and_sorts() {
        let all = vec![
            d(Refused::Write, "/b", 2),
            d(Refused::Read, "/a", 3),
            d(Refused::Write, "/b", 4),
            d(Refused::Exec, "/c", 2),
        ];
        let got: Vec<String> = distinct(&all).iter().map(|d| d.summary()).collect();
        assert_eq!(
            got,
            vec!["refused exec /c", "refused read /a", "refused write /b"]
        );
    }
}
