//! `ralc diff`'s as-written pass: the entries of either side that take no effect on this
//! host — a grant dropped at the freeze (`'cargo:'` where there is no cargo home), a bare
//! name `which` does not find (`'evil-tool'`, a veto of `bash` on a runner without it) —
//! compared by their text, so a change the judgments cannot see here is still reported,
//! as `widens (where 'cargo:' resolves)`. The model's residual covers everything that does
//! take effect; this covers what it cannot. Pure: it never consults the host.
//!
//! Bare command names (`names`) are compared as written on every host, resolved or not:
//! a name veto speaks to every program invoked by that name wherever it lies
//! (`./tools/bash` as much as `/usr/bin/bash`), which no boundary of the residual can
//! stand for, and a name grant lands wherever the runner's `PATH` puts it. So a name
//! veto that goes (removed, renamed, replaced by a path veto) widens for its name; one
//! that appears narrows; a name grant that appears or gains subcommands widens, one that
//! goes or loses them narrows (both when neither list contains the other).
//!
//! It never judges a subject (that is `capability::residual`'s), and never drops a
//! difference it cannot order: an entry that appears counts one way, one that goes the
//! other (a grant's appearance widens, a veto's narrows; their removals the reverse).

use crate::capability::layer::{Capabilities, ExecKey, Origin};
use crate::capability::residual::{Axis, Change, Direction, Region, Side};
use crate::capability::vocab::ExecPolicy;
use crate::diag::{SourceMap, Span};
use crate::path::identity::command_name_key;
use crate::typecheck::profile::{ExecKeyForm, TypedProfile};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One entry as written that takes no effect here: its layer, axis, whether it
/// withholds, its text (with its policy), and where it was written.
#[derive(Clone, Debug)]
struct Dormant {
    axis: Axis,
    vetoes: bool,
    /// What is compared: the key or path with its member or policy.
    text: String,
    /// What a reviewer reads: the key or path as written, quoted.
    label: String,
    span: Span,
}

/// What two dormant entries must share to be the same: (layer, axis, vetoes, text).
type Key = (usize, Axis, bool, String);
/// Each dormant entry's place and label, in source order.
type Places = Vec<(Span, String)>;

/// The dormant entries of one side, keyed by (layer, axis, vetoes, text), each key with
/// its spans in source order (an entry written twice counts twice).
fn dormant(typed: &[TypedProfile], layers: &[Capabilities]) -> BTreeMap<Key, Places> {
    let mut out: BTreeMap<Key, Places> = BTreeMap::new();
    for (i, (t, l)) in typed.iter().zip(layers).enumerate() {
        let dead = |s: Span| l.dead.iter().any(|d| d.origin.span == s);
        let mut push = |d: Dormant| {
            out.entry((i, d.axis, d.vetoes, d.text))
                .or_default()
                .push((d.span, d.label));
        };
        for e in t.exec.iter().flat_map(|x| x.value.iter()) {
            // bare names are the as-written name pass's (`names`), resolved or not
            if e.form != ExecKeyForm::Name && dead(e.key_span) {
                let policy = match &e.policy {
                    ExecPolicy::Allow => "allow".to_string(),
                    ExecPolicy::Deny => "deny".to_string(),
                    ExecPolicy::Subcommands(list) => {
                        list.iter().cloned().collect::<Vec<_>>().join(" ")
                    }
                };
                push(Dormant {
                    axis: Axis::Exec,
                    vetoes: e.policy == ExecPolicy::Deny,
                    text: format!("'{}': {policy}", e.key),
                    label: format!("'{}'", e.key),
                    span: e.key_span,
                });
            }
        }
        if let Some(fs) = &t.fs {
            let members = [
                (&fs.value.read, Axis::FsRead, false, "read"),
                (&fs.value.write, Axis::FsWrite, false, "write"),
                (&fs.value.deny, Axis::FsRead, true, "deny"),
                (&fs.value.deny_write, Axis::FsWrite, true, "deny_write"),
            ];
            for (list, axis, vetoes, member) in members {
                for p in list.iter().flatten() {
                    if dead(p.span) {
                        push(Dormant {
                            axis,
                            vetoes,
                            text: format!("{member} '{}'", p.text),
                            label: format!("'{}'", p.text),
                            span: p.span,
                        });
                    }
                }
            }
        }
    }
    out
}

/// The changes the as-written comparison finds between OLD's and NEW's dormant entries
/// (`sources` are each side's own, for the entries' places).
pub fn changes(
    old: (&[TypedProfile], &[Capabilities], &SourceMap),
    new: (&[TypedProfile], &[Capabilities], &SourceMap),
) -> Vec<Change> {
    let o = dormant(old.0, old.1);
    let n = dormant(new.0, new.1);
    let mut out = Vec::new();
    let mut emit =
        |key: &(usize, Axis, bool, String), spans: &[(Span, String)], theirs: usize, side| {
            let (_, axis, vetoes, text) = key;
            for (s, label) in spans.iter().skip(theirs) {
                let sources = if side == Side::New { new.2 } else { old.2 };
                // a veto that appears narrows; a grant that appears widens; a removal reverses
                let direction = match (side, *vetoes) {
                    (Side::New, false) | (Side::Old, true) => Direction::Widens,
                    (Side::New, true) | (Side::Old, false) => Direction::Narrows,
                };
                let loc = sources.locate(*s);
                out.push(Change {
                    direction,
                    axis: *axis,
                    region: Region::Unresolved(label.clone()),
                    entry: Some((
                        side,
                        Arc::new(Origin {
                            file: Arc::from(loc.file.as_ref()),
                            line: loc.line,
                            column: loc.column,
                            span: *s,
                            written: Arc::from(text.as_str()),
                        }),
                    )),
                });
            }
        };
    for (k, spans) in &n {
        emit(k, spans, o.get(k).map_or(0, Vec::len), Side::New);
    }
    for (k, spans) in &o {
        emit(k, spans, n.get(k).map_or(0, Vec::len), Side::Old);
    }
    out
}

/// What a bare name's entries in one layer say: vetoed, and what its grants admit
/// (`None`: no grant; `Some(None)`: every argument; `Some(Some(list))`: those).
#[derive(Default)]
struct Named {
    veto: Option<Arc<Origin>>,
    grant: Option<(Option<BTreeSet<String>>, Arc<Origin>)>,
}

/// Each layer's bare names (vetoes by their name key, grants by their text).
fn named(layers: &[Capabilities]) -> BTreeMap<(usize, String), Named> {
    let mut out: BTreeMap<(usize, String), Named> = BTreeMap::new();
    for (i, l) in layers.iter().enumerate() {
        for rule in l.exec.iter().flat_map(|g| g.rules()) {
            let ExecKey::Name(n) = &rule.key else {
                continue;
            };
            let origin = Arc::new(rule.origin.clone());
            match &rule.policy {
                ExecPolicy::Deny => {
                    let e = out.entry((i, command_name_key(n))).or_default();
                    e.veto.get_or_insert(origin);
                }
                p => {
                    let e = out.entry((i, format!("\u{0}{n}"))).or_default();
                    let admits = match p {
                        ExecPolicy::Subcommands(list) => Some(list.iter().cloned().collect()),
                        _ => None,
                    };
                    // two grants of one name: the wider of the two
                    let joined = match (e.grant.take(), admits) {
                        (None, a) => (a, origin),
                        (Some((None, o)), _) | (Some((Some(_), o)), None) => (None, o),
                        (Some((Some(mut x), o)), Some(y)) => {
                            x.extend(y);
                            (Some(x), o)
                        }
                    };
                    e.grant = Some(joined);
                }
            }
        }
    }
    out
}

/// `a` admits every argument `b` does (`None` admits all).
fn covers(a: &Option<BTreeSet<String>>, b: &Option<BTreeSet<String>>) -> bool {
    match (a, b) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(x), Some(y)) => y.is_subset(x),
    }
}

/// The as-written comparison of OLD's and NEW's bare names, resolved here or not.
pub fn names(old: &[Capabilities], new: &[Capabilities]) -> Vec<Change> {
    let o = named(old);
    let n = named(new);
    let keys: BTreeSet<&(usize, String)> = o.keys().chain(n.keys()).collect();
    let empty = Named::default();
    let mut out = Vec::new();
    // a veto speaks to the name wherever it lies; a grant lands where `PATH` puts it
    let mut push = |veto: bool, direction, side, origin: &Arc<Origin>| {
        let label = format!("'{}'", origin.written);
        out.push(Change {
            direction,
            axis: Axis::Exec,
            region: if veto {
                Region::Named(label)
            } else {
                Region::Unresolved(label)
            },
            entry: Some((side, origin.clone())),
        })
    };
    for k in keys {
        let (a, b) = (o.get(k).unwrap_or(&empty), n.get(k).unwrap_or(&empty));
        match (&a.veto, &b.veto) {
            (Some(v), None) => push(true, Direction::Widens, Side::Old, v),
            (None, Some(v)) => push(true, Direction::Narrows, Side::New, v),
            _ => {}
        }
        match (&a.grant, &b.grant) {
            (None, Some((_, g))) => push(false, Direction::Widens, Side::New, g),
            (Some((_, g)), None) => push(false, Direction::Narrows, Side::Old, g),
            (Some((x, _)), Some((y, g))) => {
                if !covers(x, y) {
                    push(false, Direction::Widens, Side::New, g);
                }
                if !covers(y, x) {
                    push(false, Direction::Narrows, Side::New, g);
                }
            }
            (None, None) => {}
        }
    }
    out
}
