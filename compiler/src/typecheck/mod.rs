//! The typecheck against grant's declared table (spec §1.3, §2): the six keys and every
//! value shape, producing a [`profile::TypedProfile`]. Each error of §2 has its own code.
//! It is pure and never consults the disk: errors that need the disk (a path key that
//! freezes to a directory, a relative entry, `path:` without an absolute entry) belong to
//! the freeze.

pub mod codes;
pub mod exec;
pub mod profile;
pub mod verbs;

use crate::diag::{Diagnostic, FileId, Span};
use crate::eval::{Value, ValueKind};
use profile::{FsEntries, LegacyForm, NetOpinion, PathEntry, Spanned, TypedProfile};

pub use codes::CODES;

/// The six keys of grant's declared table.
pub const KEYS: [&str; 6] = ["exec", "fs", "net", "detach", "editor", "shell"];

/// Typecheck an evaluated profile value. `None` when any error was found.
pub fn check_value(value: &Value) -> (Option<TypedProfile>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut tp = TypedProfile {
        span: value.span,
        ..TypedProfile::default()
    };
    match &value.kind {
        ValueKind::Unit => tp.is_unit = true,
        ValueKind::Record(fields) => {
            for f in fields {
                let v = &f.value;
                match f.key.as_str() {
                    "exec" => tp.exec = exec::check_exec(v, &mut diags),
                    "fs" => tp.fs = check_fs(v, &mut diags),
                    "net" => tp.net = check_net(f.key_span, v, &mut tp.legacy, &mut diags),
                    "detach" => match v.kind {
                        ValueKind::Bool(b) => tp.detach = Some(Spanned::new(b, v.span)),
                        _ => diags.push(
                            Diagnostic::error(
                                codes::E0240,
                                format!("`detach` takes a Bool, not {}", v.kind.type_name()),
                            )
                            .at(v.span)
                            .with_help("write `detach: false` to withhold processes that outlive the session"),
                        ),
                    },
                    "editor" => {
                        tp.editor = verbs::check_verbs(
                            "editor",
                            v,
                            &profile::EditorVerb::ALL,
                            profile::EditorVerb::as_str,
                            &mut tp.legacy,
                            &mut diags,
                        )
                    }
                    "shell" => {
                        tp.shell = verbs::check_verbs(
                            "shell",
                            v,
                            &profile::ShellVerb::ALL,
                            profile::ShellVerb::as_str,
                            &mut tp.legacy,
                            &mut diags,
                        )
                    }
                    other => diags.push(unknown_key(other, f.key_span)),
                }
            }
        }
        ValueKind::Map(_) => diags.push(
            Diagnostic::error(codes::E0202, "the profile returns a map, and a map is never a grant")
                .at(value.span)
                .with_help("a grant takes a record: write `[exec: […], fs: […]]` without the leading `:`"),
        ),
        ValueKind::List(l) if l.is_empty() => diags.push(
            Diagnostic::error(codes::E0203, "the profile returns `[]`, the empty list")
                .at(value.span)
                .with_help("return `()` to set nothing, or a record such as `[exec: []]` to admit nothing"),
        ),
        other => diags.push(
            Diagnostic::error(
                codes::E0204,
                format!("the profile returns {}, not a record of grant settings", other.type_name()),
            )
            .at(value.span)
            .with_help("a profile returns a record whose keys are some of exec, fs, net, detach, editor, shell, or `()`"),
        ),
    }
    let failed = diags.iter().any(|d| d.is_error());
    (if failed { None } else { Some(tp) }, diags)
}

/// Parse, evaluate and typecheck one file.
pub fn check_source(file: FileId, bytes: &[u8]) -> (Option<TypedProfile>, Vec<Diagnostic>) {
    let (program, mut diags) = crate::syntax::parse(file, bytes);
    let parse_failed = diags.iter().any(|d| d.is_error());
    let (value, mut more) = crate::eval::evaluate(&program);
    if parse_failed {
        // "No value" after a syntax error is a consequence, not news.
        more.retain(|d| d.code != crate::eval::codes::E0125);
    }
    diags.append(&mut more);
    let mut typed = None;
    if let Some(v) = value {
        let (t, mut more) = check_value(&v);
        diags.append(&mut more);
        typed = t;
    }
    crate::diag::sort(&mut diags);
    if parse_failed || diags.iter().any(|d| d.is_error()) {
        typed = None;
    }
    (typed, diags)
}

fn unknown_key(key: &str, span: Span) -> Diagnostic {
    let mut d = Diagnostic::error(codes::E0201, format!("unknown grant key `{key}`"))
        .at(span)
        .with_help(format!("the keys are {}", KEYS.join(", ")));
    if key == "audit" {
        d = d.with_note("`audit` was a recording switch, never authority: delete it");
    } else if let Some(near) = nearest(key, &KEYS) {
        d = d.with_note(format!("did you mean `{near}`?"));
    }
    d
}

/// The closest candidate within edit distance 2.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn check_net(
    key_span: Span,
    v: &Value,
    legacy: &mut Vec<LegacyForm>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Spanned<NetOpinion>> {
    match &v.kind {
        ValueKind::Tag(t) if t == "offline" => Some(Spanned::new(NetOpinion::Offline, v.span)),
        ValueKind::Bool(false) => {
            legacy.push(LegacyForm {
                span: key_span.to(v.span),
                written: "net: false".into(),
                canonical: "net: `offline".into(),
            });
            Some(Spanned::new(NetOpinion::Offline, v.span))
        }
        ValueKind::Bool(true) => Some(Spanned::new(NetOpinion::NoOpinion, v.span)),
        ValueKind::Tag(t) => {
            diags.push(
                Diagnostic::error(
                    codes::E0230,
                    format!("`net` takes `` `offline ``, not the tag `` `{t} ``"),
                )
                .at(v.span)
                .with_help("write ``net: `offline`` to withhold the network, or omit `net`"),
            );
            None
        }
        other => {
            diags.push(
                Diagnostic::error(
                    codes::E0230,
                    format!(
                        "`net` takes `` `offline `` (or `true`/`false`), not {}",
                        other.type_name()
                    ),
                )
                .at(v.span)
                .with_help("write ``net: `offline`` to withhold the network, or omit `net`"),
            );
            None
        }
    }
}

/// A record value's fields, treating `[]` as the empty record.
pub(crate) fn as_record(v: &Value) -> Option<&[crate::eval::RecordField]> {
    match &v.kind {
        ValueKind::Record(f) => Some(f),
        ValueKind::List(l) if l.is_empty() => Some(&[]),
        _ => None,
    }
}

fn check_fs(v: &Value, diags: &mut Vec<Diagnostic>) -> Option<Spanned<FsEntries>> {
    let Some(fields) = as_record(v) else {
        diags.push(
            Diagnostic::error(
                codes::E0220,
                format!(
                    "`fs` takes a record `[read: […], write: […], deny: […]]`, not {}",
                    v.kind.type_name()
                ),
            )
            .at(v.span),
        );
        return None;
    };
    let mut out = FsEntries::default();
    let mut ok = true;
    for f in fields {
        let slot = match f.key.as_str() {
            "read" => &mut out.read,
            "write" => &mut out.write,
            "deny" => &mut out.deny,
            // An extension to the original design (docs/language.md): exclusions of the
            // write region only.
            "deny_write" => &mut out.deny_write,
            other => {
                let mut d =
                    Diagnostic::error(codes::E0223, format!("unknown `fs` member `{other}`"))
                        .at(f.key_span)
                        .with_help("the members are read, write, deny, deny_write");
                if let Some(n) = nearest(other, &["read", "write", "deny", "deny_write"]) {
                    d = d.with_note(format!("did you mean `{n}`?"));
                }
                diags.push(d);
                ok = false;
                continue;
            }
        };
        let ValueKind::List(items) = &f.value.kind else {
            diags.push(
                Diagnostic::error(
                    codes::E0221,
                    format!(
                        "`fs.{}` takes a list of paths, not {}",
                        f.key,
                        f.value.kind.type_name()
                    ),
                )
                .at(f.value.span)
                .with_help(format!("write `{}: ['…']`", f.key)),
            );
            ok = false;
            continue;
        };
        let mut entries = Vec::new();
        for it in items {
            match &it.kind {
                ValueKind::Str(s) => entries.push(PathEntry {
                    text: s.clone(),
                    span: it.span,
                }),
                other => {
                    diags.push(
                        Diagnostic::error(
                            codes::E0222,
                            format!(
                                "a path in `fs.{}` must be a string, not {}",
                                f.key,
                                other.type_name()
                            ),
                        )
                        .at(it.span),
                    );
                    ok = false;
                }
            }
        }
        *slot = Some(entries);
    }
    ok.then(|| Spanned::new(out, v.span))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> (Option<TypedProfile>, Vec<String>) {
        let (t, d) = check_source(FileId(0), src.as_bytes());
        (t, d.into_iter().map(|d| d.code).collect())
    }

    #[test]
    fn std_profiles_typecheck_clean() {
        for (name, src) in crate::std_profiles::ALL {
            let (t, d) = check(src);
            assert!(d.is_empty(), "{name}: {d:?}");
            assert!(t.is_some(), "{name}");
        }
    }

    #[test]
    fn unknown_key_lists_the_six_and_notes_audit() {
        let (_, d) = check_source(FileId(0), b"[audit: true]");
        assert_eq!(d[0].code, "E0201");
        assert!(d[0]
            .help
            .as_deref()
            .unwrap_or("")
            .contains("exec, fs, net, detach, editor, shell"));
        assert!(d[0].notes[0].contains("recording switch"));
    }

    #[test]
    fn net_false_is_legacy_offline() {
        let (t, d) = check("[net: false]");
        assert!(d.is_empty());
        let t = t.unwrap();
        assert_eq!(t.net.unwrap().value, NetOpinion::Offline);
        assert_eq!(t.legacy.len(), 1);
    }

    #[test]
    fn every_error_is_reported() {
        let (_, d) = check("[fss: [], detach: 1, net: 'x', fs: [read: 'a', wrote: []]]");
        assert_eq!(d, vec!["E0201", "E0240", "E0230", "E0221", "E0223"]);
    }
}
