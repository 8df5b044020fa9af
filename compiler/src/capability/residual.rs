//! The residual of two stacks (`ralc diff`): per axis, the subjects NEW admits that OLD
//! withholds (widening) and the reverse (narrowing), each as a region with the entry that
//! decides it. Every verdict here is the model's own judgment (`GrantStack::judge_real`,
//! `admit`, `permits`), asked of both stacks at finitely many subjects: the boundaries
//! (every path an entry, a run place or the floor of either stack names, and the root)
//! and, for exec, a fresh child beneath each. A judgment depends on a path only through
//! the entries that contain it, so every path answers as the deepest boundary that
//! contains it: the regions are exact (modulo case-folded exclusions, which are reported
//! at the exclusion's own spelling; `docs/cli.md`). It must never re-implement a judgment.
//! Pure: the host is consulted only through `Resolve`.

use super::fs::FsOp;
use super::layer::{ExecKey, Origin};
use super::resolve::Resolve;
use super::stack::{Flag, GrantStack, DISCARD};
use super::table::Withheld;
use crate::capability::vocab::{EditorVerb, ExecPolicy, ShellVerb};
use crate::path::frozen::RealPath;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A component no real path holds: the fresh child of a directory, the fresh argument.
const FRESH: &str = "\u{0}";

/// Which way a subject moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Widens,
    Narrows,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Widens => "widens",
            Direction::Narrows => "narrows",
        }
    }
}

/// The axes a diff reports on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axis {
    Exec,
    FsRead,
    FsWrite,
    Net,
    Detach,
    Editor,
    Shell,
}

impl Axis {
    pub fn as_str(self) -> &'static str {
        match self {
            Axis::Exec => "exec",
            Axis::FsRead => "fs.read",
            Axis::FsWrite => "fs.write",
            Axis::Net => "net",
            Axis::Detach => "detach",
            Axis::Editor => "editor",
            Axis::Shell => "shell",
        }
    }
}

/// The first argument an exec region is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arg {
    /// Every first argument alike (the change does not depend on it).
    Any,
    /// No arguments.
    None,
    /// This first argument.
    Is(String),
    /// A first argument no subcommand list of either stack names.
    Other,
}

/// The subjects a change is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    /// A path and everything beneath it, less the exceptions (each with its beneath).
    Prefix { real: String, except: Vec<String> },
    /// Programs: exactly `real` (`beneath: false`) or everything strictly beneath it.
    Program {
        real: String,
        beneath: bool,
        arg: Arg,
    },
    /// A flag (`net`, `detach`, `editor.write`, `shell.chdir`).
    Flag(Flag),
    /// Wherever an entry that takes no effect on this host would (`'cargo:': allow` with
    /// no cargo home here, a name `which` does not find): compared as written
    /// (`cli::dormant`).
    Unresolved(String),
    /// Every program invoked by a bare name, wherever it lies: a name veto or a name
    /// grant compared as written (`cli::dormant::names`).
    Named(String),
}

impl Region {
    /// How a reviewer reads it.
    pub fn display(&self) -> String {
        match self {
            Region::Prefix { real, except } if except.is_empty() => real.clone(),
            Region::Prefix { real, except } => format!("{real} less {}", except.join(", ")),
            Region::Program { real, beneath, arg } => {
                let base = if *beneath {
                    let d = real.trim_end_matches('/');
                    format!("{d}/ (every program beneath)")
                } else {
                    real.clone()
                };
                match arg {
                    Arg::Any => base,
                    Arg::None => format!("{base} (no arguments)"),
                    Arg::Is(a) => format!("{base} {a}"),
                    Arg::Other => format!("{base} (an unlisted first argument)"),
                }
            }
            Region::Flag(f) => f.name(),
            Region::Unresolved(entry) => format!("(where {entry} resolves)"),
            Region::Named(name) => format!("(every program invoked as {name})"),
        }
    }
}

/// Which stack an entry was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Old,
    New,
}

/// One residual region.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Change {
    pub direction: Direction,
    pub axis: Axis,
    pub region: Region,
    /// The entry that decides: in NEW the one that grants (widening) or withholds
    /// (narrowing); in OLD a deny that no longer applies, or a grant that is gone.
    /// `None` when neither side has an entry that speaks (an axis dropped entirely).
    pub entry: Option<(Side, Arc<Origin>)>,
}

/// The overall verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Same,
    Narrows,
    Widens,
    Incomparable,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Narrows => "narrows",
            Verdict::Widens => "widens",
            Verdict::Incomparable => "incomparable",
        }
    }
}

/// The verdict of a list of changes.
pub fn verdict(changes: &[Change]) -> Verdict {
    let w = changes.iter().any(|c| c.direction == Direction::Widens);
    let n = changes.iter().any(|c| c.direction == Direction::Narrows);
    match (w, n) {
        (false, false) => Verdict::Same,
        (true, false) => Verdict::Widens,
        (false, true) => Verdict::Narrows,
        (true, true) => Verdict::Incomparable,
    }
}

/// A move and the entry that decides it.
type Move = (Direction, Option<(Side, Arc<Origin>)>);

/// Two verdicts of one subject: granted (with the deciding entries) or withheld.
type Judged<K> = Result<super::stack::Granted, Withheld<K>>;

/// The direction and deciding entry of a pair of judgments; `None` when they agree.
fn moved<K>(old: &Judged<K>, new: &Judged<K>) -> Option<Move> {
    let granting = |g: &super::stack::Granted| g.decided_by.last().map(|c| c.origin.clone());
    match (old, new) {
        (Err(w), Ok(g)) => {
            let entry = match w {
                // a deny that no longer applies is the cause
                Withheld::Excluded { by, .. } => Some((Side::Old, by.origin.clone())),
                _ => granting(g)
                    .map(|o| (Side::New, o))
                    .or_else(|| w.cited().map(|c| (Side::Old, c.origin.clone()))),
            };
            Some((Direction::Widens, entry))
        }
        (Ok(g), Err(w)) => {
            let entry = match w.cited() {
                Some(c) => Some((Side::New, c.origin.clone())),
                None => granting(g).map(|o| (Side::Old, o)),
            };
            Some((Direction::Narrows, entry))
        }
        _ => None,
    }
}

/// `path` with no trailing `/` (the root stays `/`).
fn norm(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        "/".into()
    } else {
        t.into()
    }
}

/// The parent of a normalised path (`None` for the root).
fn parent(p: &str) -> Option<&str> {
    if p == "/" {
        return None;
    }
    match p.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&p[..i]),
        None => None,
    }
}

/// Every path either stack's judgments can turn on: entries, run places, tools as
/// resolved now, the floor, the discard device and the root.
pub fn boundaries(stacks: [&GrantStack; 2], r: &dyn Resolve) -> BTreeSet<String> {
    let mut b: BTreeSet<String> = ["/".to_string(), DISCARD.to_string()].into();
    for s in stacks {
        b.extend(s.floor().iter().map(|p| norm(p.as_str())));
        for (name, real) in s.tools(r) {
            let _ = name;
            if let Some(real) = real {
                b.insert(norm(real.as_str()));
            }
        }
        for l in s.layers() {
            if let Some(fs) = &l.fs {
                for e in fs
                    .read
                    .iter()
                    .chain(&fs.write)
                    .chain(&fs.deny)
                    .chain(&fs.write_deny)
                {
                    b.insert(norm(e.path.real().as_str()));
                }
            }
            if let Some(g) = &l.exec {
                for rule in g.rules() {
                    match &rule.key {
                        ExecKey::File(p) | ExecKey::Dir(p) => {
                            b.insert(norm(p.real().as_str()));
                        }
                        // a name veto too: where it resolves, its judgment turns
                        ExecKey::Name(n) => {
                            if let Some((_, real)) = r.which(n) {
                                b.insert(norm(real.as_str()));
                            }
                        }
                    }
                }
            }
        }
    }
    b
}

/// The deepest boundary that contains `path` (itself when it is one).
pub fn owner<'a>(bounds: &'a BTreeSet<String>, path: &str) -> &'a str {
    let mut p = norm(path);
    loop {
        if let Some(b) = bounds.get(&p) {
            return b;
        }
        match parent(&p) {
            Some(q) => p = q.to_string(),
            None => return bounds.get("/").map_or("/", String::as_str),
        }
    }
}

/// The nearest boundary strictly above `b`.
fn up<'a>(bounds: &'a BTreeSet<String>, b: &str) -> Option<&'a str> {
    parent(b).map(|p| owner(bounds, p))
}

/// The residual of OLD → NEW.
pub fn residual(old: &GrantStack, new: &GrantStack, r: &dyn Resolve) -> Vec<Change> {
    let bounds = boundaries([old, new], r);
    let mut out = Vec::new();
    for (axis, op) in [(Axis::FsRead, FsOp::Read), (Axis::FsWrite, FsOp::Write)] {
        out.extend(fs_changes(old, new, r, &bounds, axis, op));
    }
    out.extend(exec_changes(old, new, r, &bounds));
    let mut flags = vec![(Axis::Net, Flag::Net), (Axis::Detach, Flag::Detach)];
    flags.extend(EditorVerb::ALL.map(|v| (Axis::Editor, Flag::Editor(v))));
    flags.extend(ShellVerb::ALL.map(|v| (Axis::Shell, Flag::Shell(v))));
    for (axis, f) in flags {
        if let Some((direction, entry)) = moved(&old.permits(f), &new.permits(f)) {
            out.push(Change {
                direction,
                axis,
                region: Region::Flag(f),
                entry,
            });
        }
    }
    out
}

/// The fs residual of one region kind.
fn fs_changes(
    old: &GrantStack,
    new: &GrantStack,
    r: &dyn Resolve,
    bounds: &BTreeSet<String>,
    axis: Axis,
    op: FsOp,
) -> Vec<Change> {
    let state: BTreeMap<&str, _> = bounds
        .iter()
        .map(|b| {
            let real = RealPath::from_resolved(b.as_str());
            let m = moved(&old.judge_real(op, &real, r), &new.judge_real(op, &real, r));
            (b.as_str(), m)
        })
        .collect();
    let dir = |b: &str| state.get(b).and_then(|m| m.as_ref().map(|(d, _)| *d));
    let mut out = Vec::new();
    for b in bounds {
        let Some((direction, entry)) = state.get(b.as_str()).cloned().flatten() else {
            continue;
        };
        // part of a region above it?
        if up(bounds, b).is_some_and(|p| dir(p) == Some(direction)) {
            continue;
        }
        // the exceptions: the first boundaries beneath that move otherwise
        let except: Vec<String> = bounds
            .iter()
            .filter(|c| c.as_str() != b && within_str(b, c) && dir(c) != Some(direction))
            .filter(|c| {
                let mut p = up(bounds, c);
                while let Some(q) = p {
                    if q == b {
                        return true;
                    }
                    if dir(q) != Some(direction) {
                        return false;
                    }
                    p = up(bounds, q);
                }
                false
            })
            .cloned()
            .collect();
        out.push(Change {
            direction,
            axis,
            region: Region::Prefix {
                real: b.clone(),
                except,
            },
            entry,
        });
    }
    out
}

/// `path` is `prefix` or beneath it (normalised paths, by components).
fn within_str(prefix: &str, path: &str) -> bool {
    prefix == "/"
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The first arguments that can matter: none, each listed subcommand, an unlisted one.
fn arg_classes(stacks: [&GrantStack; 2]) -> Vec<Arg> {
    let mut listed = BTreeSet::new();
    for s in stacks {
        for l in s.layers() {
            for rule in l.exec.iter().flat_map(|g| g.rules()) {
                if let ExecPolicy::Subcommands(list) = &rule.policy {
                    listed.extend(list.iter().cloned());
                }
            }
        }
    }
    let mut v = vec![Arg::None];
    v.extend(listed.into_iter().map(Arg::Is));
    v.push(Arg::Other);
    v
}

/// The exec question for a program path and an argument class.
fn admit(
    s: &GrantStack,
    program: &str,
    arg: &Arg,
    r: &dyn Resolve,
) -> Judged<super::exec::ExecScope> {
    let args: Vec<String> = match arg {
        Arg::None | Arg::Any => Vec::new(),
        Arg::Is(a) => vec![a.clone()],
        Arg::Other => vec![FRESH.to_string()],
    };
    match s.admit(program, &args, r) {
        Ok(a) => Ok(a.run_granted().clone()),
        Err(refused) => match refused.why {
            super::stack::ExecDenial::Run(w) => Err(w),
            // unreadable or unresolvable: withheld, with the read entry when one decided
            super::stack::ExecDenial::Read(w) => Err(match w {
                Withheld::Excluded { by, .. } => Withheld::Excluded {
                    scope: super::exec::ExecScope::Any,
                    by,
                },
                w => Withheld::MissingAllowance { layer: w.layer() },
            }),
            super::stack::ExecDenial::NotFound => Err(Withheld::MissingAllowance { layer: 0 }),
        },
    }
}

/// The exec residual: each boundary as a program and each fresh child beneath one, under
/// each argument class; a change the argument does not decide is reported once (`Any`).
fn exec_changes(
    old: &GrantStack,
    new: &GrantStack,
    r: &dyn Resolve,
    bounds: &BTreeSet<String>,
) -> Vec<Change> {
    let args = arg_classes([old, new]);
    // (program path, beneath) → per arg: the move
    let judge = |program: &str| -> Vec<Option<Move>> {
        args.iter()
            .map(|a| moved(&admit(old, program, a, r), &admit(new, program, a, r)))
            .collect()
    };
    let mut states = BTreeMap::new();
    for b in bounds {
        let child = if b == "/" {
            format!("/{FRESH}")
        } else {
            format!("{b}/{FRESH}")
        };
        states.insert((b.clone(), true), judge(&child));
        if b != "/" {
            states.insert((b.clone(), false), judge(b));
        }
    }
    let dirs = |v: &Vec<Option<Move>>| -> Vec<Option<Direction>> {
        v.iter().map(|m| m.as_ref().map(|(d, _)| *d)).collect()
    };
    let mut out = Vec::new();
    for ((b, beneath), moves) in &states {
        // the region above: beneath the nearest boundary above (for `beneath`, above `b`)
        let above = up(bounds, b).and_then(|p| states.get(&(p.to_string(), true)));
        if above.is_some_and(|a| dirs(a) == dirs(moves)) {
            continue;
        }
        // the program `b` itself moves as everything beneath it: one region
        if !*beneath
            && states
                .get(&(b.clone(), true))
                .is_some_and(|m| dirs(m) == dirs(moves))
        {
            continue;
        }
        let all_same = moves
            .iter()
            .all(|m| m.as_ref().map(|x| x.0) == moves[0].as_ref().map(|x| x.0));
        if all_same {
            if let Some((direction, entry)) = moves[0].clone() {
                out.push(Change {
                    direction,
                    axis: Axis::Exec,
                    region: Region::Program {
                        real: b.clone(),
                        beneath: *beneath,
                        arg: Arg::Any,
                    },
                    entry,
                });
            }
            continue;
        }
        for (a, m) in args.iter().zip(moves) {
            if let Some((direction, entry)) = m.clone() {
                out.push(Change {
                    direction,
                    axis: Axis::Exec,
                    region: Region::Program {
                        real: b.clone(),
                        beneath: *beneath,
                        arg: a.clone(),
                    },
                    entry,
                });
            }
        }
    }
    out
}

/// Whether `changes` report `path` as moving in `direction` on the fs axis of `op`: it
/// lies in a reported prefix region and in none of that region's exceptions. The
/// question the property test asks of the report.
pub fn reports_path(changes: &[Change], op: FsOp, direction: Direction, path: &str) -> bool {
    let axis = match op {
        FsOp::Read => Axis::FsRead,
        FsOp::Write => Axis::FsWrite,
    };
    let p = norm(path);
    changes.iter().any(|c| {
        c.axis == axis
            && c.direction == direction
            && matches!(&c.region, Region::Prefix { real, except }
                if within_str(real, &p) && !except.iter().any(|e| within_str(e, &p)))
    })
}

/// Whether `changes` report a flag as moving in `direction`.
pub fn reports_flag(changes: &[Change], flag: Flag, direction: Direction) -> bool {
    changes
        .iter()
        .any(|c| c.direction == direction && c.region == Region::Flag(flag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::layer::Capabilities;
    use crate::capability::testkit::{allow, deny, subs, FakeHost, L};
    use crate::capability::vocab::EditorVerb;
    use proptest::prelude::*;

    /// Paths over a small lowercase alphabet (so the case-folded identity of exclusions
    /// and the stored identity of allowances agree), up to three deep.
    fn path() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 0..=3)
            .prop_map(|cs| format!("/{}", cs.join("/")))
    }

    /// One random layer: fs entries, an exec opinion, flags.
    fn layer(name: &'static str) -> impl Strategy<Value = Capabilities> {
        (
            prop::collection::vec((0u8..3, path()), 0..5),
            prop::option::of(prop::collection::vec((0u8..4, path()), 0..3)),
            any::<bool>(),
            prop::option::of(any::<bool>()),
            prop::option::of(prop::collection::vec(0usize..3, 0..3)),
            any::<bool>(),
        )
            .prop_map(move |(fs, exec, offline, detach, editor, has_fs)| {
                let mut l = L::new(name);
                if has_fs {
                    l = l.fs_empty();
                    for (k, p) in fs {
                        l = match k {
                            0 => l.read(&p),
                            1 => l.write(&p),
                            _ => l.deny(&p),
                        };
                    }
                }
                if let Some(rules) = exec {
                    l = l.exec_empty();
                    for (k, p) in rules {
                        l = match k {
                            0 => l.dir(&p, allow()),
                            1 => l.dir(&p, deny()),
                            2 => l.file(&p, subs(&["x"])),
                            _ => l.file(&p, allow()),
                        };
                    }
                }
                if offline {
                    l = l.offline();
                }
                if let Some(d) = detach {
                    l = l.detach(d);
                }
                if let Some(vs) = editor {
                    let verbs: Vec<EditorVerb> =
                        vs.into_iter().map(|i| EditorVerb::ALL[i]).collect();
                    l = l.editor(&verbs);
                }
                l.done()
            })
    }

    fn stack() -> impl Strategy<Value = GrantStack> {
        prop::collection::vec(layer("p.ral"), 1..=2).prop_map(GrantStack::new)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// A subject is reported widening exactly when NEW admits it and OLD does not,
        /// and narrowing exactly in reverse — judged by the stacks' own judgments.
        #[test]
        fn reported_exactly_where_the_judgments_differ(
            old in stack(),
            new in stack(),
            subjects in prop::collection::vec(
                (path(), prop::option::of(prop::sample::select(vec!["a", "d"]))), 1..6),
        ) {
            let host = FakeHost::new();
            let changes = residual(&old, &new, &host);
            for (p, extra) in &subjects {
                let p = match extra {
                    Some(c) if p == "/" => format!("/{c}"),
                    Some(c) => format!("{p}/{c}"),
                    None => p.clone(),
                };
                let real = RealPath::from_resolved(p.as_str());
                for op in [FsOp::Read, FsOp::Write] {
                    let o = old.judge_real(op, &real, &host).is_ok();
                    let n = new.judge_real(op, &real, &host).is_ok();
                    prop_assert_eq!(reports_path(&changes, op, Direction::Widens, &p), n && !o,
                        "{:?} {} widening; changes {:#?}", op, p, changes);
                    prop_assert_eq!(reports_path(&changes, op, Direction::Narrows, &p), o && !n,
                        "{:?} {} narrowing; changes {:#?}", op, p, changes);
                }
            }
            let mut flags = vec![Flag::Net, Flag::Detach];
            flags.extend(EditorVerb::ALL.map(Flag::Editor));
            for f in flags {
                let o = old.permits(f).is_ok();
                let n = new.permits(f).is_ok();
                prop_assert_eq!(reports_flag(&changes, f, Direction::Widens), n && !o);
                prop_assert_eq!(reports_flag(&changes, f, Direction::Narrows), o && !n);
            }
            // the verdict follows the changes
            let v = verdict(&changes);
            prop_assert_eq!(changes.is_empty(), v == Verdict::Same);
        }
    }

    #[test]
    fn a_spelling_that_freezes_alike_changes_nothing() {
        let a = GrantStack::new(vec![L::new("a").read("/home/u/x").done()]);
        let b = GrantStack::new(vec![L::new("b").read("/home/u/x/").done()]);
        assert!(residual(&a, &b, &FakeHost::new()).is_empty());
    }

    #[test]
    fn a_removed_deny_is_cited_from_old() {
        let old = GrantStack::new(vec![L::new("o").read("/h").deny("/h/s").done()]);
        let new = GrantStack::new(vec![L::new("n").read("/h").done()]);
        let c = residual(&old, &new, &FakeHost::new());
        let fs: Vec<_> = c.iter().filter(|c| c.axis == Axis::FsRead).collect();
        assert_eq!(fs.len(), 1, "{c:#?}");
        assert_eq!(
            fs[0].region,
            Region::Prefix {
                real: "/h/s".into(),
                except: vec![]
            }
        );
        assert!(matches!(&fs[0].entry, Some((Side::Old, o)) if &*o.written == "/h/s"));
    }
}
