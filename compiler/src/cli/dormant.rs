//! `ralc diff`'s as-written pass: the entries of either side that take no effect on this
//! host — a grant dropped at the freeze (`'cargo:'` where there is no cargo home), a bare
//! name `which` does not find (`'evil-tool'`, a veto of `bash` on a runner without it) —
//! compared by their text, so a change the judgments cannot see here is still reported,
//! as `widens (where 'cargo:' resolves)`. The model's residual covers everything that does
//! take effect; this covers what it cannot. Pure: the host only through `Resolve`.
//!
//! It never judges a subject (that is `capability::residual`'s), and never drops a
//! difference it cannot order: an entry that appears counts one way, one that goes the
//! other (a grant's appearance widens, a veto's narrows; their removals the reverse).

use crate::capability::layer::{Capabilities, Origin};
use crate::capability::residual::{Axis, Change, Direction, Region, Side};
use crate::capability::resolve::Resolve;
use crate::capability::vocab::ExecPolicy;
use crate::diag::{SourceMap, Span};
use crate::typecheck::profile::{ExecKeyForm, TypedProfile};
use std::collections::BTreeMap;
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
fn dormant(
    typed: &[TypedProfile],
    layers: &[Capabilities],
    r: &dyn Resolve,
) -> BTreeMap<Key, Places> {
    let mut out: BTreeMap<Key, Places> = BTreeMap::new();
    for (i, (t, l)) in typed.iter().zip(layers).enumerate() {
        let dead = |s: Span| l.dead.iter().any(|d| d.origin.span == s);
        let mut push = |d: Dormant| {
            out.entry((i, d.axis, d.vetoes, d.text))
                .or_default()
                .push((d.span, d.label));
        };
        for e in t.exec.iter().flat_map(|x| x.value.iter()) {
            let unresolved = e.form == ExecKeyForm::Name && r.which(&e.key).is_none();
            if dead(e.key_span) || unresolved {
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
    r: &dyn Resolve,
) -> Vec<Change> {
    let o = dormant(old.0, old.1, r);
    let n = dormant(new.0, new.1, r);
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
