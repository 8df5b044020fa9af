//! Denial hints: a denial the host's sandbox reported after a run
//! (`ralc_runtime::denial::Denial`), worded as `refused exec|read|write PATH` with the
//! stack's own judgment of it — the entry that would grant it, or the entry that excludes
//! it — through the same judgments and wording as `ralc why`. A withheld service is quoted
//! with the base profile's reason and offered to no grant. Shared by every back end's
//! denial reader; it decides nothing itself and does no I/O beyond the `Resolve` it is
//! handed.

use crate::capability::fs::FsOp;
use crate::capability::resolve::Resolve;
use crate::capability::stack::{Flag, GrantStack};
use crate::render::macos::WITHHELD_DOORS;
use ralc_runtime::denial::{Denial, Refused};

/// One hint: the head line and, when a grant could lift it, a `help:` line.
pub fn hint(stack: &GrantStack, r: &dyn Resolve, d: &Denial) -> String {
    let head = d.summary();
    let decision = match &d.refused {
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
