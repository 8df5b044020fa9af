//! What `ralc run` says after a supervised Linux run: each denial the supervisor recorded
//! (`ralc_runtime::linux::supervise`) judged by the stack through `guard::denial` — the
//! judgment `ralc why` uses — and written on stderr, human (`ralc run: refused …` and a
//! `help:` line, at most `MAX_LINES` lines, then a count) or as JSON lines. An exec the
//! stack admits is dropped (the supervisor sees every exec attempt, not its outcome); a
//! killed syscall and a refused path access (seen refused in the envelope) are kept. It is
//! pure: it reads nothing and changes no exit status.

use crate::capability::resolve::Resolve;
use crate::capability::stack::GrantStack;
use crate::guard::denial::{hint, judge, Hint};
use ralc_runtime::denial::{distinct, Denial, Refused};

/// The most human lines written before the rest are counted.
pub const MAX_LINES: usize = 20;

/// The denials worth a hint, judged once each, in a stable order.
pub fn judged<'a>(
    stack: &GrantStack,
    r: &dyn Resolve,
    denials: &'a [Denial],
) -> Vec<(&'a Denial, Hint)> {
    distinct(denials)
        .into_iter()
        .map(|d| (d, judge(stack, r, d)))
        // An exec the stack admits, and a write outside the Landlock roots the stack
        // grants (a device the floor opens), were not refused.
        .filter(|(d, h)| !(h.granted && (d.refused == Refused::Exec || d.operation == "landlock")))
        .collect()
}

/// The human lines (empty when nothing was refused).
pub fn human(stack: &GrantStack, r: &dyn Resolve, denials: &[Denial], cut: bool) -> Vec<String> {
    let all = judged(stack, r, denials);
    let mut out: Vec<String> = Vec::new();
    let mut shown = 0;
    for (d, _) in &all {
        let text = hinted(&hint(stack, r, d), d);
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let l = crate::diag::escape::text(l);
                if i == 0 {
                    format!("ralc run: {l}")
                } else {
                    l.into_owned()
                }
            })
            .collect();
        if out.len() + lines.len() > MAX_LINES {
            break;
        }
        out.extend(lines);
        shown += 1;
    }
    if shown < all.len() {
        out.push(format!(
            "ralc run: … and {} more refusals (`--format json` lists every one)",
            all.len() - shown
        ));
    }
    if cut {
        out.push(format!(
            "ralc run: note: more than {} distinct attempts; the rest were not recorded",
            ralc_runtime::denial::MAX_KEPT
        ));
    }
    out
}

/// A hint's text with what the program chose (the path, its command name) escaped
/// (`diag::escape`) wherever it is quoted, before the text is split into lines: a name
/// holding a newline, ESC, OSC or U+202E cannot start a forged line or a terminal
/// sequence.
fn hinted(text: &str, d: &Denial) -> String {
    let mut out = text.to_string();
    for raw in [&d.target, &d.process] {
        if !raw.is_empty() && raw.chars().any(crate::diag::escape::is_hazard) {
            out = out.replace(raw.as_str(), &crate::diag::escape::text(raw));
        }
    }
    out
}

/// The note on a stack that withholds the network (`` `offline ``), naming the entry:
/// an offline refusal is not a denial the supervisor sees (the envelope has no route),
/// so it is named whenever the program's failure could come from it.
pub fn network(stack: &GrantStack) -> Option<String> {
    let d = crate::guard::flag(
        stack,
        crate::capability::stack::Flag::Net,
        &stack.permits(crate::capability::stack::Flag::Net),
    );
    if d.granted {
        return None;
    }
    Some(format!(
        "ralc run: note: the network was offline (a connection fails with ENETUNREACH or \
         EACCES): {}",
        d.message
    ))
}

/// One JSON object per refusal.
pub fn json(stack: &GrantStack, r: &dyn Resolve, denials: &[Denial]) -> Vec<String> {
    judged(stack, r, denials)
        .into_iter()
        .map(|(d, h)| {
            let e = h.entry.as_ref();
            serde_json::json!({
                "op": h.op,
                "subject": h.subject,
                "entry": e.map(|e| e.entry.clone()),
                "file": e.map(|e| e.file.clone()),
                "line": e.map(|e| e.line),
                "column": e.map(|e| e.column),
                "reason": h.reason,
                "help": h.help,
                "seen": match d.operation.as_str() {
                    "hidden" | "masked" | "read-only" | "landlock" => Some(d.operation.clone()),
                    _ => None,
                },
                "process": d.process,
                "pid": d.pid,
            })
            .to_string()
        })
        .map(crate::diag::escape::json)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::testkit::*;

    fn stack() -> GrantStack {
        GrantStack::new(vec![L::new("p.ral")
            .read("/home/u")
            .write("/home/u/proj")
            .deny("/home/u/.ssh")
            .dir("/usr/bin", allow())
            .done()])
    }

    fn d(refused: Refused, target: &str, op: &str) -> Denial {
        Denial {
            refused,
            target: target.to_string(),
            operation: op.to_string(),
            pid: 7,
            process: "cc".to_string(),
        }
    }

    #[test]
    fn a_hostile_path_in_a_hint_is_escaped() {
        let h = FakeHost::new();
        let evil = "/home/u/x\n::error::forged\u{1b}]8;;http://e\u{7}\u{202e}txt.exe";
        let lines = human(&stack(), &h, &[d(Refused::Write, evil, "read-only")], false);
        let all = lines.join("\n");
        assert!(!lines.is_empty());
        assert!(
            lines.iter().all(|l| !l.starts_with("::")),
            "a forged workflow line: {all:?}"
        );
        assert!(
            !all.contains('\u{1b}') && !all.contains('\u{7}') && !all.contains('\u{202e}'),
            "{all:?}"
        );
        assert!(
            all.contains("::error::forged"),
            "the name is shown, escaped: {all:?}"
        );
    }

    #[test]
    fn an_admitted_exec_says_nothing_and_a_refused_one_offers_the_entry() {
        let h = FakeHost::new();
        let ds = vec![
            d(Refused::Exec, "/usr/bin/cat", "execve"),
            d(Refused::Exec, "/usr/lib/gcc/x/13/cc1", "execve"),
        ];
        let lines = human(&stack(), &h, &ds, false);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("ralc run: refused exec /usr/lib/gcc/x/13/cc1: "),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("  help: add '/usr/lib/gcc/x/13/cc1'"));
        assert!(lines[1].contains("'/usr/lib/gcc/x/13/': 'allow'"));
        assert!(human(&stack(), &h, &ds[..1], false).is_empty());
    }

    #[test]
    fn a_killed_syscall_is_named_with_the_deny_sets_reason() {
        let h = FakeHost::new();
        let ds = vec![d(Refused::Syscall, "keyctl", "seccomp")];
        let lines = human(&stack(), &h, &ds, false);
        assert_eq!(
            lines[0],
            "ralc run: refused syscall keyctl: the kernel keyring is not namespaced"
        );
        assert!(lines[1].contains("no entry grants it"), "{lines:?}");
        let j: serde_json::Value = serde_json::from_str(&json(&stack(), &h, &ds)[0]).unwrap();
        assert_eq!(j["op"], "syscall");
        assert_eq!(j["subject"], "keyctl");
        assert_eq!(j["reason"], "the kernel keyring is not namespaced");
        assert!(j["entry"].is_null());
    }

    #[test]
    fn path_refusals_name_the_deciding_entry() {
        let h = FakeHost::new();
        let ds = vec![
            d(Refused::Read, "/home/u/.ssh/id", "masked"),
            d(Refused::Write, "/home/u/notes", "read-only"),
            d(Refused::Read, "/srv/data", "hidden"),
        ];
        let lines = human(&stack(), &h, &ds, false).join("\n");
        assert!(
            lines.contains("refused read /home/u/.ssh/id (masked, so the program sees no content: an empty file, or EACCES): "),
            "{lines}"
        );
        assert!(lines.contains("excluded by '/home/u/.ssh'"), "{lines}");
        assert!(lines.contains("refused write /home/u/notes (in the read-only region"));
        assert!(lines.contains("refused read /srv/data (hidden, so the program sees ENOENT)"));
        let js = json(&stack(), &h, &ds);
        let masked: serde_json::Value = serde_json::from_str(&js[0]).unwrap();
        assert_eq!(masked["op"], "read");
        assert_eq!(masked["entry"], "/home/u/.ssh");
        assert_eq!(masked["file"], "p.ral");
        assert_eq!(masked["seen"], "masked");
    }

    #[test]
    fn an_offline_stack_is_named_with_its_entry_and_an_online_one_is_not() {
        assert_eq!(network(&stack()), None);
        let off = GrantStack::new(vec![L::new("p.ral").read("/home/u").offline().done()]);
        let n = network(&off).expect("a note");
        assert!(
            n.starts_with("ralc run: note: the network was offline"),
            "{n}"
        );
        assert!(n.contains("p.ral"), "{n}");
    }

    #[test]
    fn a_shipped_profile_is_never_offered_for_editing() {
        let h = FakeHost::new();
        let std = GrantStack::new(vec![L::new("std:reasonable")
            .read("/home/u")
            .dir("/usr/bin", allow())
            .done()]);
        let ds = vec![
            d(Refused::Exec, "/opt/t/bin/tool", "execve"),
            d(Refused::Write, "/home/u/notes", "read-only"),
        ];
        let lines = human(&std, &h, &ds, false).join("\n");
        assert!(!lines.contains("in std:reasonable"), "{lines}");
        assert!(
            lines.contains("put `[exec: ['/opt/t/bin/tool': 'allow']]`"),
            "{lines}"
        );
        assert!(
            lines.contains("put `[fs: [write: ['/home/u/notes']]]`"),
            "{lines}"
        );
        assert!(lines.contains("--extend extra.ral"), "{lines}");
    }

    #[test]
    fn at_most_twenty_lines_then_a_count() {
        let h = FakeHost::new();
        let ds: Vec<Denial> = (0..30)
            .map(|i| d(Refused::Exec, &format!("/opt/t/bin/x{i:02}"), "execve"))
            .collect();
        let lines = human(&stack(), &h, &ds, false);
        assert_eq!(lines.len(), MAX_LINES + 1, "{lines:?}");
        assert!(
            lines[MAX_LINES].contains("and 20 more refusals"),
            "{lines:?}"
        );
        assert_eq!(json(&stack(), &h, &ds).len(), 30);
    }
}
