//! The human rendering of diagnostics, through ariadne: a header with the code, the
//! source line with the span underlined, labels, help and notes. Colour only when the
//! caller says so (a terminal, and never with `NO_COLOR`); it never decides that itself.

use super::{Diagnostic, Severity, SourceMap, Summary};
use ariadne::{Config, Label, Report, ReportKind, Source};

/// Render every diagnostic, then a summary line.
pub fn render(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&render_one(d, sources, color));
    }
    let s = Summary::of(diags);
    if s.errors > 0 || s.warnings > 0 {
        out.push_str(&format!(
            "{} error{}, {} warning{}\n",
            s.errors,
            if s.errors == 1 { "" } else { "s" },
            s.warnings,
            if s.warnings == 1 { "" } else { "s" }
        ));
    }
    out
}

/// One diagnostic.
pub fn render_one(d: &Diagnostic, sources: &SourceMap, color: bool) -> String {
    let Some(span) = d.span.filter(|s| sources.try_get(s.file).is_some()) else {
        let mut s = format!("{}[{}]: {}\n", d.severity, d.code, d.message);
        if let Some(h) = &d.help {
            s.push_str(&format!("  = help: {h}\n"));
        }
        for n in &d.notes {
            s.push_str(&format!("  = note: {n}\n"));
        }
        return s;
    };
    let file = sources.get(span.file);
    // ariadne works on characters: map byte offsets to char offsets of the lossy text.
    let text = file.text_lossy();
    let to_char = |byte: usize| char_offset(&file.bytes, byte);
    let name = file.name.to_string();
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    };
    let primary = to_char(span.start)..to_char(span.end).max(to_char(span.start));
    let mut report = Report::build(kind, (name.clone(), primary.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(ariadne::IndexType::Char),
        )
        .with_code(&d.code)
        .with_message(&d.message)
        .with_label(Label::new((name.clone(), primary)).with_message(primary_label(d)));
    for l in &d.labels {
        if l.span.file == span.file {
            let r = to_char(l.span.start)..to_char(l.span.end);
            report = report.with_label(Label::new((name.clone(), r)).with_message(&l.message));
        }
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    let mut buf = Vec::new();
    let cache = (name.clone(), Source::from(text));
    if report.finish().write(cache, &mut buf).is_err() {
        return format!("{}[{}]: {}\n", d.severity, d.code, d.message);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn primary_label(d: &Diagnostic) -> String {
    match d.severity {
        Severity::Error => "here".to_string(),
        Severity::Warning | Severity::Note => String::new(),
    }
}

fn char_offset(bytes: &[u8], byte: usize) -> usize {
    let byte = byte.min(bytes.len());
    // Count characters as String::from_utf8_lossy produces them.
    String::from_utf8_lossy(&bytes[..byte]).chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn names_code_file_and_line_without_colour() {
        let mut sm = SourceMap::new();
        let f = sm.add("p.ral", b"[fss: []]\n".to_vec());
        let d = Diagnostic::error("E0201", "unknown key `fss`").at(Span::new(f, 1, 4));
        let out = render(&[d], &sm, false);
        assert!(out.contains("E0201"), "{out}");
        assert!(out.contains("p.ral:1:2"), "{out}");
        assert!(
            !out.contains('\u{1b}'),
            "no escape codes without colour: {out}"
        );
        assert!(out.contains("1 error, 0 warnings"), "{out}");
    }
}
