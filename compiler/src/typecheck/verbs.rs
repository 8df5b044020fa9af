//! The verb sets `editor` and `shell` (spec §2.5) in both spellings: a list of the
//! permitted verbs, or a record of Bools (the legacy spelling, recorded for a lint). Each
//! permitted verb keeps the span of its first spelling, so a judgment can quote it.

use super::codes;
use super::profile::{LegacyForm, Spanned};
use crate::diag::Diagnostic;
use crate::eval::{Value, ValueKind};
use std::collections::BTreeMap;

pub fn check_verbs<V: Copy + Ord>(
    key: &str,
    v: &Value,
    all: &[V],
    name: fn(V) -> &'static str,
    legacy: &mut Vec<LegacyForm>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Spanned<BTreeMap<V, crate::diag::Span>>> {
    let known: Vec<&str> = all.iter().map(|v| name(*v)).collect();
    let find = |s: &str| all.iter().copied().find(|v| name(*v) == s);
    let unknown = |verb: &str, span, diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::error(codes::E0250, format!("unknown `{key}` verb `{verb}`"))
                .at(span)
                .with_help(format!("the `{key}` verbs are {}", known.join(", "))),
        );
    };
    let mut set: BTreeMap<V, crate::diag::Span> = BTreeMap::new();
    let mut ok = true;
    match &v.kind {
        ValueKind::List(items) => {
            for it in items {
                match &it.kind {
                    ValueKind::Str(s) => match find(s) {
                        Some(verb) => {
                            set.entry(verb).or_insert(it.span);
                        }
                        None => {
                            unknown(s, it.span, diags);
                            ok = false;
                        }
                    },
                    other => {
                        diags.push(
                            Diagnostic::error(
                                codes::E0253,
                                format!("a `{key}` verb is a word, not {}", other.type_name()),
                            )
                            .at(it.span)
                            .with_help(format!("the `{key}` verbs are {}", known.join(", "))),
                        );
                        ok = false;
                    }
                }
            }
        }
        ValueKind::Record(fields) => {
            for f in fields {
                let verb = find(&f.key);
                if verb.is_none() {
                    unknown(&f.key, f.key_span, diags);
                    ok = false;
                }
                match (&f.value.kind, verb) {
                    (ValueKind::Bool(true), Some(verb)) => {
                        set.entry(verb).or_insert(f.key_span.to(f.value.span));
                    }
                    (ValueKind::Bool(_), _) => {}
                    (other, _) => {
                        diags.push(
                            Diagnostic::error(
                                codes::E0251,
                                format!(
                                    "a `{key}` verb in the record spelling takes a Bool, not {}",
                                    other.type_name()
                                ),
                            )
                            .at(f.value.span),
                        );
                        ok = false;
                    }
                }
            }
            if ok {
                let canon: Vec<&str> = set.keys().map(|v| name(*v)).collect();
                legacy.push(LegacyForm {
                    span: v.span,
                    written: format!(
                        "{key}: [{}]",
                        fields
                            .iter()
                            .map(|f| f.key.as_str())
                            .collect::<Vec<_>>()
                            .join(": …, ")
                            + ": …"
                    ),
                    canonical: format!("{key}: [{}]", canon.join(", ")),
                });
            }
        }
        other => {
            diags.push(
                Diagnostic::error(
                    codes::E0252,
                    format!("`{key}` takes a list of verbs, not {}", other.type_name()),
                )
                .at(v.span)
                .with_help(format!(
                    "write `{key}: [{}]` (or `[]` for none)",
                    known.join(", ")
                )),
            );
            ok = false;
        }
    }
    ok.then(|| Spanned::new(set, v.span))
}
