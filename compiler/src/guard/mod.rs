//! The wording of refusals: one place that turns a judgment (`Granted`, `Withheld`,
//! `Refused`) into what a user reads — the verdict, the reason, the deciding entries with
//! file:line:col and layer, and for a missing allowance the entry that would grant it.
//! It never decides anything itself: every verdict comes from `GrantStack`.

use crate::capability::exec::ExecScope;
use crate::capability::fs::{FsOp, FsScope};
use crate::capability::layer::{Capabilities, Origin};
use crate::capability::stack::{Admitted, ExecDenial, Flag, GrantStack, Granted, Refused};
use crate::capability::table::{Cited, Withheld};

pub mod denial;

/// One deciding entry as `ralc why` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub layer: usize,
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The entry's text as written (empty when no entry decided: a missing allowance).
    pub entry: String,
}

/// A judgment, worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub granted: bool,
    /// `missing-allowance`, `excluded`, `subcommand`, `unreadable`, `not-found`; `None`
    /// when granted.
    pub reason: Option<&'static str>,
    pub decided_by: Vec<Entry>,
    /// One sentence (or two): what was decided and why.
    pub message: String,
    /// For a missing allowance: the entry that would grant it.
    pub hint: Option<String>,
}

fn entry(c: &Cited) -> Entry {
    Entry {
        layer: c.layer,
        file: c.origin.file.to_string(),
        line: c.origin.line,
        column: c.origin.column,
        entry: c.origin.written.to_string(),
    }
}

/// `file:line:col` of an origin (a synthetic origin, line 0, is named by its file only).
pub fn at(o: &Origin) -> String {
    if o.line == 0 {
        o.file.to_string()
    } else {
        format!("{}:{}:{}", o.file, o.line, o.column)
    }
}

fn cited_at(c: &Cited) -> String {
    format!("{} (layer {})", at(&c.origin), c.layer)
}

/// Where a layer writes an axis: its first entry there, or the file alone; the entry is
/// named by the axis's key (`fs`, `exec`, `editor`, `shell`), the opinion that withholds.
fn anchor(stack: &GrantStack, layer: usize, axis: Axis) -> Entry {
    let caps: Option<&Capabilities> = stack.layers().get(layer);
    let file = caps.map(|c| c.source.name.to_string()).unwrap_or_default();
    let first: Option<&Origin> = caps.and_then(|c| match axis {
        Axis::Fs => stack.first_fs_origin(layer),
        Axis::Exec => stack.first_exec_origin(layer),
        Axis::Editor => c.editor.as_ref().map(|s| &s.origin),
        Axis::Shell => c.shell.as_ref().map(|s| &s.origin),
    });
    Entry {
        layer,
        file,
        line: first.map_or(0, |o| o.line),
        column: first.map_or(0, |o| o.column),
        entry: match axis {
            Axis::Fs => "fs",
            Axis::Exec => "exec",
            Axis::Editor => "editor",
            Axis::Shell => "shell",
        }
        .to_string(),
    }
}

#[derive(Clone, Copy)]
enum Axis {
    Fs,
    Exec,
    Editor,
    Shell,
}

fn layer_name(stack: &GrantStack, layer: usize) -> String {
    stack
        .layers()
        .get(layer)
        .map(|c| c.source.name.to_string())
        .unwrap_or_else(|| format!("layer {layer}"))
}

fn granted_decision(g: &Granted, what: String) -> Decision {
    let message = if g.unrestricted() {
        format!("{what}: granted (no layer restricts it)")
    } else {
        // The same entry can decide both the exec table and the read of the program:
        // named once.
        let mut by: Vec<String> = Vec::new();
        for c in &g.decided_by {
            let cite = format!("'{}' at {}", c.origin.written, cited_at(c));
            if !by.contains(&cite) {
                by.push(cite);
            }
        }
        format!("{what}: granted by {}", by.join(", "))
    };
    let mut decided_by: Vec<Entry> = Vec::new();
    for e in g.decided_by.iter().map(entry) {
        if !decided_by.contains(&e) {
            decided_by.push(e);
        }
    }
    Decision {
        granted: true,
        reason: None,
        decided_by,
        message,
        hint: None,
    }
}

/// The parent directory of a real path (`/` for a top-level entry).
fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// Word an fs judgment of `path`.
pub fn fs(
    stack: &GrantStack,
    op: FsOp,
    path: &str,
    v: &Result<Granted, Withheld<FsScope>>,
) -> Decision {
    let verb = match op {
        FsOp::Read => "read",
        FsOp::Write => "write",
    };
    let what = format!("{verb} {path}");
    match v {
        Ok(g) => granted_decision(g, what),
        Err(w) => fs_withheld(stack, op, path, w, &what),
    }
}

fn fs_withheld(
    stack: &GrantStack,
    op: FsOp,
    path: &str,
    w: &Withheld<FsScope>,
    what: &str,
) -> Decision {
    let member = match op {
        FsOp::Read => "fs.read",
        FsOp::Write => "fs.write",
    };
    match w {
        Withheld::Excluded { scope, by } => {
            let spelled = if scope.display() == &*by.origin.written {
                String::new()
            } else {
                format!(" ({})", scope.display())
            };
            Decision {
                granted: false,
                reason: Some("excluded"),
                decided_by: vec![entry(by)],
                message: format!(
                    "{what}: withheld: excluded by '{}'{spelled} at {}",
                    by.origin.written,
                    cited_at(by)
                ),
                hint: None,
            }
        }
        Withheld::MissingAllowance { layer } => {
            let file = layer_name(stack, *layer);
            let hint = match member.strip_prefix("fs.") {
                Some(key) if file.starts_with("std:") => extend_help(
                    &file,
                    &format!("[fs: [{key}: ['{path}']]]"),
                    "or a directory above it",
                ),
                _ => format!("add '{path}' (or a directory above it) to {member} in {file}"),
            };
            Decision {
                granted: false,
                reason: Some("missing-allowance"),
                decided_by: vec![anchor(stack, *layer, Axis::Fs)],
                message: format!(
                    "{what}: withheld: no {member} entry of {file} (layer {layer}) covers it"
                ),
                hint: Some(hint),
            }
        }
        Withheld::Subcommand { by, .. } => Decision {
            granted: false,
            reason: Some("subcommand"),
            decided_by: vec![entry(by)],
            message: format!("{what}: withheld by {}", cited_at(by)),
            hint: None,
        },
    }
}

/// Word an exec judgment.
pub fn exec(
    stack: &GrantStack,
    program: &str,
    args: &[String],
    v: &Result<Admitted, Refused>,
) -> Decision {
    let mut what = format!("exec {program}");
    for a in args {
        what.push(' ');
        what.push_str(a);
    }
    match v {
        Ok(a) => {
            let mut g = a.run_granted().clone();
            g.decided_by
                .extend(a.read_granted().decided_by.iter().cloned());
            let mut d = granted_decision(&g, what);
            if !a.through().is_empty() {
                let links: Vec<&str> = a.through().iter().map(|l| l.as_str()).collect();
                d.message
                    .push_str(&format!(", through the vouched link {}", links.join(" → ")));
            }
            if a.argv0() != a.program_real().as_str() {
                d.message.push_str(&format!(" (runs {})", a.program_real()));
            }
            d
        }
        Err(r) => refused(stack, r, &what),
    }
}

/// The message a user reads when a launch is refused.
pub fn refusal(stack: &GrantStack, r: &Refused) -> String {
    let mut what = format!("exec {}", r.program);
    for a in &r.args {
        what.push(' ');
        what.push_str(a);
    }
    let d = refused(stack, r, &what);
    match d.hint {
        Some(h) => format!("{}\n  help: {h}", d.message),
        None => d.message,
    }
}

fn refused(stack: &GrantStack, r: &Refused, what: &str) -> Decision {
    let real = r.real.as_ref().map(|p| p.as_str()).unwrap_or(&r.program);
    let reason = Some(r.why.reason());
    match &r.why {
        ExecDenial::NotFound => Decision {
            granted: false,
            reason,
            decided_by: Vec::new(),
            message: format!(
                "{what}: withheld: `{}` is not an absolute path that resolves, nor a name found on PATH",
                r.program
            ),
            hint: None,
        },
        ExecDenial::Run(w) => run_withheld(stack, r, real, w, what),
        ExecDenial::Read(w) => {
            let mut d = fs_withheld(stack, FsOp::Read, real, w, what);
            d.reason = reason;
            d.message = format!(
                "{what}: withheld: {real} may run but cannot be read — {}",
                d.message
                    .split_once("withheld: ")
                    .map_or(d.message.as_str(), |(_, m)| m)
            );
            if let Withheld::MissingAllowance { layer } = w {
                d.hint = Some(format!(
                    "make it readable: add '{}/': 'allow' to exec (or '{}' to fs.read) in {}",
                    parent(real).trim_end_matches('/'),
                    parent(real),
                    layer_name(stack, *layer)
                ));
            }
            d
        }
    }
}

fn run_withheld(
    stack: &GrantStack,
    r: &Refused,
    real: &str,
    w: &Withheld<ExecScope>,
    what: &str,
) -> Decision {
    match w {
        Withheld::Excluded { scope, by } => {
            let kind = match scope {
                ExecScope::Name(_) => "vetoed by name by",
                _ => "excluded by",
            };
            Decision {
                granted: false,
                reason: Some("excluded"),
                decided_by: vec![entry(by)],
                message: format!(
                    "{what}: withheld: {real} is {kind} '{}' at {}",
                    by.origin.written,
                    cited_at(by)
                ),
                hint: None,
            }
        }
        Withheld::MissingAllowance { layer } => {
            let file = layer_name(stack, *layer);
            let key = if r.program.contains('/') {
                real.to_owned()
            } else {
                r.program.clone()
            };
            Decision {
                granted: false,
                reason: Some("missing-allowance"),
                decided_by: vec![anchor(stack, *layer, Axis::Exec)],
                message: format!(
                    "{what}: withheld: no exec entry of {file} (layer {layer}) admits {real}"
                ),
                hint: Some(if file.starts_with("std:") {
                    extend_help(
                        &file,
                        &format!("[exec: ['{key}': 'allow']]"),
                        &format!(
                            "or its directory, '{}/'",
                            parent(real).trim_end_matches('/')
                        ),
                    )
                } else {
                    format!(
                        "add '{key}': 'allow' (or its directory, '{}/': 'allow') to exec in {file}",
                        parent(real).trim_end_matches('/')
                    )
                }),
            }
        }
        Withheld::Subcommand {
            by, allowed, got, ..
        } => {
            let list: Vec<&str> = allowed.iter().map(String::as_str).collect();
            let arg = match got {
                Some(a) => format!("first argument '{a}' is not in"),
                None => "no first argument is given for".to_owned(),
            };
            Decision {
                granted: false,
                reason: Some("subcommand"),
                decided_by: vec![entry(by)],
                message: format!(
                    "{what}: withheld: the {arg} the subcommand list [{}] of '{}' at {}",
                    list.join(", "),
                    by.origin.written,
                    cited_at(by)
                ),
                hint: got
                    .as_ref()
                    .map(|a| format!("add '{a}' to that list (every layer's list must hold it)")),
            }
        }
    }
}

/// Word a flag judgment.
pub fn flag(stack: &GrantStack, f: Flag, v: &Result<Granted, Withheld<Flag>>) -> Decision {
    let what = format!("flag {}", f.name());
    match v {
        Ok(g) => granted_decision(g, what),
        Err(Withheld::Excluded { by, .. }) => Decision {
            granted: false,
            reason: Some("excluded"),
            decided_by: vec![entry(by)],
            message: format!(
                "{what}: withheld by '{}' at {}",
                by.origin.written,
                cited_at(by)
            ),
            hint: None,
        },
        Err(Withheld::MissingAllowance { layer }) => {
            let (axis, verb) = match f {
                Flag::Editor(v) => (Axis::Editor, v.as_str()),
                Flag::Shell(v) => (Axis::Shell, v.as_str()),
                _ => (Axis::Editor, ""),
            };
            let set = match f {
                Flag::Shell(_) => "shell",
                _ => "editor",
            };
            let file = layer_name(stack, *layer);
            Decision {
                granted: false,
                reason: Some("missing-allowance"),
                decided_by: vec![anchor(stack, *layer, axis)],
                message: format!(
                    "{what}: withheld: the {set} set of {file} (layer {layer}) does not list `{verb}`"
                ),
                hint: Some(format!("add `{verb}` to {set} in {file}")),
            }
        }
        Err(Withheld::Subcommand { by, .. }) => Decision {
            granted: false,
            reason: Some("subcommand"),
            decided_by: vec![entry(by)],
            message: format!("{what}: withheld by {}", cited_at(by)),
            hint: None,
        },
    }
}

/// The help for a missing allowance in a shipped profile, which the user cannot edit:
/// a fragment of their own, joined with `--extend`, with the exact lines to put in it.
fn extend_help(file: &str, lines: &str, wider: &str) -> String {
    format!(
        "{file} is shipped, not edited: put `{lines}` ({wider}) in a file of your own, say \
         extra.ral, and add `--extend extra.ral` to the command"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::testkit::*;

    #[test]
    fn wording_names_path_entry_and_grant() {
        let s = GrantStack::new(vec![L::new("p.ral")
            .read("/home/u")
            .deny("/home/u/.ssh")
            .dir("/usr/bin", allow())
            .name("git", subs(&["status"]))
            .done()]);
        let h = FakeHost::new().on_path("git", "/usr/bin/git");
        let d = fs(
            &s,
            FsOp::Read,
            "/home/u/.ssh/id",
            &s.read("/home/u/.ssh/id", &h),
        );
        assert_eq!(d.reason, Some("excluded"));
        assert!(
            d.message.contains("'/home/u/.ssh' at p.ral:3:3 (layer 0)"),
            "{}",
            d.message
        );
        let d = fs(&s, FsOp::Write, "/etc/x", &s.write("/etc/x", &h));
        assert_eq!(d.reason, Some("missing-allowance"));
        // A missing allowance is decided by the layer's fs opinion as a whole.
        assert_eq!(d.decided_by[0].entry, "fs");
        assert_eq!(
            d.hint.as_deref(),
            Some("add '/etc/x' (or a directory above it) to fs.write in p.ral")
        );
        let args = vec!["push".to_string()];
        let r = s.admit("git", &args, &h).unwrap_err();
        let msg = refusal(&s, &r);
        assert!(
            msg.contains("'push' is not in the subcommand list [status]"),
            "{msg}"
        );
        let r = s.admit("/opt/x/y", &[], &h).unwrap_err();
        let msg = refusal(&s, &r);
        assert!(msg.contains("help: add '/opt/x/y': 'allow' (or its directory, '/opt/x/': 'allow') to exec in p.ral"), "{msg}");
    }

    #[test]
    fn an_entry_deciding_both_run_and_read_is_named_once() {
        let s = GrantStack::new(vec![L::new("p.ral")
            .file("/work/build.sh", allow())
            .write("/work")
            .done()]);
        let h = FakeHost::new();
        let d = exec(
            &s,
            "/work/build.sh",
            &[],
            &s.admit("/work/build.sh", &[], &h),
        );
        assert_eq!(d.message.matches("p.ral:").count(), 1, "{}", d.message);
    }
}
