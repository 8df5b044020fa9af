//! Denial hints: a denial the host's sandbox reported after a run
//! (`ralc_runtime::denial::Denial`), worded as `refused exec|read|write PATH` with the
//! stack's own judgment of it — the entry that would grant it, or the entry that excludes
//! it — through the same judgments and wording as `ralc why`. A withheld service is quoted
//! with the base profile's reason and offered to no grant; a syscall the seccomp deny-set
//! kills, with the deny-set's own reason. `judge` gives the parts (for `--format json`),
//! `hint` the words. Shared by every back end's denial reader; it decides nothing itself
//! and does no I/O beyond the `Resolve` it is handed.

use crate::capability::fs::FsOp;
use crate::capability::resolve::Resolve;
use crate::capability::stack::{Flag, GrantStack};
use crate::render::macos::WITHHELD_DOORS;
use ralc_runtime::denial::{Denial, Refused};

/// One hint's parts: what was refused (`op`, `subject`), the deciding entry (or, for a
/// missing allowance, the axis of the layer where a grant belongs) and the judgment's
/// sentence (`reason`), the `help` that would lift it, and whether the stack grants it
/// (then only the host's confinement refused it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub op: String,
    pub subject: String,
    pub entry: Option<super::Entry>,
    pub reason: String,
    pub help: Option<String>,
    pub granted: bool,
}

/// The judgment of a denial, in parts.
pub fn judge(stack: &GrantStack, r: &dyn Resolve, d: &Denial) -> Hint {
    let mut h = Hint {
        op: d.refused.word().to_string(),
        subject: d.target.clone(),
        entry: None,
        reason: String::new(),
        help: None,
        granted: false,
    };
    if let Some((reason, help)) = loader(d) {
        h.reason = reason.to_string();
        h.help = Some(help.to_string());
        return h;
    }
    let decision = match &d.refused {
        Refused::Exec => {
            let v = stack.admit(&d.target, &[], r);
            super::exec(stack, &d.target, &[], &v)
        }
        Refused::Read => super::fs(stack, FsOp::Read, &d.target, &stack.read(&d.target, r)),
        Refused::Write => super::fs(stack, FsOp::Write, &d.target, &stack.write(&d.target, r)),
        Refused::Network => super::flag(stack, Flag::Net, &stack.permits(Flag::Net)),
        Refused::Syscall => {
            let why = ralc_runtime::plan::seccomp_deny_set()
                .into_iter()
                .find(|k| k.syscall == d.target)
                .map(|k| k.reason)
                .unwrap_or_else(|| "the deny-set admits only this architecture's calls".into());
            h.help = Some(format!(
                "no entry grants it: the seccomp deny-set withholds `{}` from every program \
                 under every profile ({why})",
                d.target
            ));
            h.reason = why;
            return h;
        }
        Refused::Service | Refused::Other(_) => {
            h.reason = hint(stack, r, d)
                .split_once(": ")
                .map(|(_, m)| m.to_string())
                .unwrap_or_default();
            return h;
        }
    };
    h.granted = decision.granted;
    h.entry = decision.decided_by.first().cloned();
    h.reason = decision.message;
    h.help = if decision.granted {
        None
    } else {
        decision.hint
    };
    h
}

/// A direct exec of the dynamic loader, refused by the supervisor under an exec list: its
/// reason and help (no exec entry lifts it).
fn loader(d: &Denial) -> Option<(&'static str, &'static str)> {
    (d.refused == Refused::Exec && d.operation == "loader").then_some((
        "the dynamic loader run directly would run any readable program past the exec \
         list, so the launch refused it (EACCES)",
        "run the program by its own path (an exec entry for it is what admits it); no \
         entry admits the loader run directly",
    ))
}

/// How the envelope refused a path, as the supervisor saw it (`operation`).
fn seen(d: &Denial) -> Option<&'static str> {
    match (&d.refused, d.operation.as_str()) {
        (Refused::Read, "hidden") => Some("hidden, so the program sees ENOENT"),
        (Refused::Read, "masked") => {
            Some("masked, so the program sees no content: an empty file, or EACCES")
        }
        (_, "read-only") => Some("in the read-only region, so the program sees EROFS"),
        (Refused::Write, "landlock") => {
            Some("outside every writable tree, so Landlock refuses it: EACCES")
        }
        (Refused::Write, "hidden") => Some("hidden, so the program sees ENOENT"),
        _ => None,
    }
}

/// One hint: the head line and, when a grant could lift it, a `help:` line.
pub fn hint(stack: &GrantStack, r: &dyn Resolve, d: &Denial) -> String {
    let head = match seen(d) {
        Some(how) => format!("{} ({how})", d.summary()),
        None => d.summary(),
    };
    if let Some((reason, help)) = loader(d) {
        return format!("{head}: {reason}\n  help: {help}");
    }
    let decision = match &d.refused {
        Refused::Syscall => {
            let h = judge(stack, r, d);
            return format!(
                "{head}: {}\n  help: {}",
                h.reason,
                h.help.unwrap_or_default()
            );
        }
        Refused::Exec => {
            let v = stack.admit(&d.target, &[], r);
            Some(super::exec(stack, &d.target, &[], &v))
        }
        Refused::Read => Some(super::fs(
            stack,
            FsOp::Read,
            &d.target,
            &stack.read(&d.target, r),
        )),
        Refused::Write => Some(super::fs(
            stack,
            FsOp::Write,
            &d.target,
            &stack.write(&d.target, r),
        )),
        Refused::Network => Some(super::flag(stack, Flag::Net, &stack.permits(Flag::Net))),
        Refused::Service => return service(d),
        Refused::Other(op) => {
            return format!(
                "{head}: the base profile does not offer `{op}` to any program; no grant opens it"
            )
        }
    };
    let Some(dec) = decision else {
        return head;
    };
    if dec.granted {
        // The stack grants it, yet the host's sandbox refused: the rendering or the host
        // is narrower than the stack, and no entry would change that.
        return format!(
            "{head}: the stack grants it ({}), but the sandbox refused it: the host's \
             confinement is narrower here (no entry would lift it)",
            dec.message
        );
    }
    match dec.hint {
        Some(h) => format!("{head}: {}\n  help: {h}", dec.message),
        None => format!("{head}: {}", dec.message),
    }
}

/// A service: quoted with the base's reason when the base withholds it by name.
fn service(d: &Denial) -> String {
    let head = d.summary();
    let door = WITHHELD_DOORS
        .iter()
        .find(|w| d.target == w.service || d.target.starts_with(&format!("{}.", w.service)));
    match door {
        Some(w) => format!(
            "{head}: the base profile withholds it ({}); no grant opens it",
            w.reason
        ),
        None => format!(
            "{head}: the base profile does not offer this service to any program; no grant \
             opens it"
        ),
    }
}

/// Every distinct denial, worded, in a stable order.
pub fn hints(stack: &GrantStack, r: &dyn Resolve, denials: &[Denial]) -> Vec<String> {
    ralc_runtime::denial::distinct(denials)
        .into_iter()
        .map(|d| hint(stack, r, d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::testkit::*;
    use ralc_runtime::macos::unified_log::parse_line;

    fn stack() -> GrantStack {
        GrantStack::new(vec![L::new("p.ral")
            .read("/Users/u")
            .write("/Users/u/proj")
            .deny("/Users/u/.ssh")
            .dir("/usr/bin", allow())
            .file("/usr/bin/curl", deny())
            .offline()
            .done()])
    }

    fn one(line: &str) -> String {
        let h = FakeHost::new();
        hint(&stack(), &h, &parse_line(line).expect("a report"))
    }

    #[test]
    fn a_refused_loader_is_worded_as_the_loader_not_as_a_missing_grant() {
        let d = Denial {
            refused: Refused::Exec,
            target: "/lib64/ld-linux-x86-64.so.2".into(),
            operation: "loader".into(),
            pid: 7,
            process: "sh".into(),
        };
        let h = hint(&stack(), &FakeHost::new(), &d);
        assert!(
            h.starts_with(
                "refused exec /lib64/ld-linux-x86-64.so.2: the dynamic loader run directly"
            ),
            "{h}"
        );
        assert!(!h.contains("add '"), "{h}");
        let j = judge(&stack(), &FakeHost::new(), &d);
        assert!(j.reason.contains("EACCES") && !j.granted, "{j:?}");
        // An ordinary exec refusal keeps its judgment.
        let plain = Denial {
            operation: "execve".into(),
            ..d
        };
        assert!(!hint(&stack(), &FakeHost::new(), &plain).contains("run directly"));
    }

    #[test]
    fn an_excluded_read_names_the_excluding_entry() {
        let h = one("Sandbox: cat(1) deny(1) file-read-data /Users/u/.ssh/id_ed25519");
        assert!(
            h.starts_with("refused read /Users/u/.ssh/id_ed25519: "),
            "{h}"
        );
        assert!(h.contains("excluded by '/Users/u/.ssh'"), "{h}");
        assert!(!h.contains("help:"), "{h}");
    }

    #[test]
    fn a_missing_write_offers_the_entry_that_would_grant_it() {
        let h = one("Sandbox: sh(2) deny(1) file-write-create /Users/u/notes.txt");
        assert!(h.starts_with("refused write /Users/u/notes.txt: "), "{h}");
        assert!(
            h.contains(
                "help: add '/Users/u/notes.txt' (or a directory above it) to fs.write in p.ral"
            ),
            "{h}"
        );
    }

    #[test]
    fn an_exec_hint_uses_the_guards_words() {
        let h = one("Sandbox: sh(2) deny(1) process-exec* /opt/tool/bin/x");
        assert!(h.starts_with("refused exec /opt/tool/bin/x: "), "{h}");
        assert!(h.contains("help: add '/opt/tool/bin/x': 'allow'"), "{h}");
        let h = one("Sandbox: sh(2) deny(1) process-exec* /usr/bin/curl");
        assert!(h.contains("excluded by"), "{h}");
    }

    #[test]
    fn a_withheld_service_is_quoted_with_its_reason_and_offered_to_no_grant() {
        let h = one("Sandbox: py(3) deny(1) mach-lookup com.apple.pasteboard.1");
        assert!(h.contains("the pasteboard is the user's"), "{h}");
        assert!(h.contains("no grant opens it"), "{h}");
        let h = one("Sandbox: py(3) deny(1) mach-lookup com.apple.windowserver.active");
        assert!(h.contains("does not offer this service"), "{h}");
        assert!(!h.contains("help:"), "{h}");
    }

    #[test]
    fn the_network_names_the_offline_stack() {
        let h = one("Sandbox: curl(4) deny(1) network-outbound 93.184.216.34:443");
        assert!(h.starts_with("refused network 93.184.216.34:443: "), "{h}");
        assert!(h.contains("flag net"), "{h}");
    }

    #[test]
    fn a_granted_read_is_not_offered_a_grant() {
        let h = one("Sandbox: cat(1) deny(1) file-read-data /Users/u/proj/a.rs");
        assert!(h.contains("the stack grants it"), "{h}");
        assert!(!h.contains("help:"), "{h}");
    }

    #[test]
    fn repeats_are_one_hint() {
        let lines = [
            "Sandbox: cat(1) deny(1) file-read-data /Users/u/.ssh/a",
            "Sandbox: cat(9) deny(1) file-read-data /Users/u/.ssh/a",
            "Sandbox: make(2) deny(1) process-fork",
        ];
        let ds: Vec<Denial> = lines.iter().filter_map(|l| parse_line(l)).collect();
        let h = FakeHost::new();
        let got = hints(&stack(), &h, &ds);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[1].contains("`process-fork`"), "{got:?}");
    }
}
