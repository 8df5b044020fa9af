//! The `--format json` rendering of diagnostics. Its shape is a public interface:
//! `{"diagnostics":[{"code","severity","message","file","line","column","end_line",
//! "end_column","help"}],"summary":{"errors","warnings"}}`, lines and columns 1-based,
//! columns in characters. It must never change shape silently.

use super::{Diagnostic, SourceMap, Summary};
use serde_json::{json, Value};

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
    })
}

/// The whole report.
pub fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let diags = &super::escape::diagnostics(diags);
    let s = Summary::of(diags);
    let v = json!({
        "diagnostics": diags.iter().map(|d| diagnostic_value(d, sources)).collect::<Vec<_>>(),
        "summary": {"errors": s.errors, "warnings": s.warnings},
    });
    let mut out = serde_json::to_string(&v).expect("a JSON value always serialises");
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
            "{\"diagnostics\":[{\"code\":\"E0201\",\"severity\":\"error\",\"message\":\"unknown key `fss`\",\"file\":\"p.ral\",\"line\":3,\"column\":3,\"end_line\":3,\"end_column\":6,\"help\":\"the keys are exec, fs, net, detach, editor, shell\"}],\"summary\":{\"errors\":1,\"warnings\":0}}\n"
        );
    }
}
