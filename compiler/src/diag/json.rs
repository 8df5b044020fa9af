//! The `--format json` rendering of diagnostics. Its shape is a public interface:
//! `{"diagnostics":[{"code","severity","message","file","line","column","end_line",
//! "end_column","help","labels":[{"message","file","line","column","end_line",
//! "end_column"}],"notes":[…]}],"summary":{"errors","warnings"}}`, lines and columns
//! 1-based, columns in characters (`labels` and `notes` are always arrays, possibly
//! empty). It must never change shape silently.

use super::{Diagnostic, SourceMap, Summary};
use serde_json::{json, Value};

/// A secondary label as a JSON object.
fn label_value(l: &super::Label, sources: &SourceMap) -> Value {
    let at = sources.locate(l.span);
    json!({
        "message": l.message,
        "file": at.file.as_ref(),
        "line": at.line,
        "column": at.column,
        "end_line": at.end_line,
        "end_column": at.end_column,
    })
}

/// One diagnostic as a JSON object.
pub fn diagnostic_value(d: &Diagnostic, sources: &SourceMap) -> Value {
    let (file, line, column, end_line, end_column) = match d.span {
        Some(span) => {
            let l = sources.locate(span);
            (
                Value::from(l.file.as_ref()),
                Value::from(l.line),
                Value::from(l.column),
                Value::from(l.end_line),
                Value::from(l.end_column),
            )
        }
        None => (
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ),
    };
    json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "message": d.message,
        "file": file,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "help": d.help,
        "labels": d.labels.iter().map(|l| label_value(l, sources)).collect::<Vec<_>>(),
        "notes": d.notes,
    })
}

/// The whole report.
pub fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let diags = &super::escape::diagnostics(diags);
    // the summary counts every diagnostic; at most MAX_PER_FILE of a file are listed
    let s = Summary::of(diags);
    let (kept, more) = super::capped(diags, sources);
    let mut v = json!({
        "diagnostics": kept.iter().map(|d| diagnostic_value(d, sources)).collect::<Vec<_>>(),
        "summary": {"errors": s.errors, "warnings": s.warnings},
    });
    if !more.is_empty() {
        v["not_shown"] = json!(more
            .iter()
            .map(|(name, n)| json!({"count": n, "message": super::more_not_shown(name, *n)}))
            .collect::<Vec<_>>());
    }
    let mut out = super::escape::json(v.to_string());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn exact_shape() {
        let mut sm = SourceMap::new();
        let f = sm.add("p.ral", b"[\n  exec: [],\n  fss: []\n]\n".to_vec());
        let d = Diagnostic::error("E0201", "unknown key `fss`")
            .at(Span::new(f, 16, 19))
            .with_help("the keys are exec, fs, net, detach, editor, shell");
        let out = render(&[d], &sm);
        assert_eq!(
            out,
            "{\"diagnostics\":[{\"code\":\"E0201\",\"severity\":\"error\",\"message\":\"unknown key `fss`\",\"file\":\"p.ral\",\"line\":3,\"column\":3,\"end_line\":3,\"end_column\":6,\"help\":\"the keys are exec, fs, net, detach, editor, shell\",\"labels\":[],\"notes\":[]}],\"summary\":{\"errors\":1,\"warnings\":0}}\n"
        );
    }

    #[test]
    fn notes_and_labels_are_kept() {
        let mut sm = SourceMap::new();
        let f = sm.add("p.ral", b"[\n  exec: [],\n  fss: []\n]\n".to_vec());
        let d = Diagnostic::warning("redundant-entry", "covered")
            .at(Span::new(f, 16, 19))
            .with_label(Span::new(f, 4, 8), "covered by this entry")
            .with_note("first note")
            .with_note("second note");
        let v: Value = serde_json::from_str(&render(&[d], &sm)).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(d["notes"], json!(["first note", "second note"]));
        assert_eq!(
            d["labels"],
            json!([{"message": "covered by this entry", "file": "p.ral", "line": 2,
                    "column": 3, "end_line": 2, "end_column": 7}])
        );
    }
}
