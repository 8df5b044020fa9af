//! The human rendering of diagnostics, through ariadne: a header with the code, the
//! source line with the span underlined, labels, help and notes. Colour only when the
//! caller says so (a terminal, and never with `NO_COLOR`); it never decides that itself.
//!
//! Bounded whatever the input: each file's display source is built once; at most
//! [`MAX_PER_FILE`] diagnostics of a file are drawn (then "N more … not shown"); a line
//! longer than [`MAX_QUOTED_LINE`] characters is not drawn whole but clipped around the
//! span; nothing past a file's quote limit (its first lexing error) is ever quoted. Every
//! text is escaped (`escape`) first; the source is shown with hazards made visible.

use super::{escape, Diagnostic, FileId, Severity, SourceMap, Span, Summary};
use ariadne::{Config, Label, Report, ReportKind, Source};
use std::collections::BTreeMap;

/// The most diagnostics of one file drawn in full.
pub const MAX_PER_FILE: usize = 100;
/// The longest source line quoted whole, in characters.
pub const MAX_QUOTED_LINE: usize = 240;
/// Characters kept on each side of a span when its line is clipped.
const CLIP_CONTEXT: usize = 60;

/// One file's display source, built once per render.
struct Shown {
    name: String,
    /// The quotable text (up to the quote limit), hazards made visible.
    source: Source<String>,
    /// The byte offset past which nothing is quoted.
    quote_end: usize,
}

/// Render every diagnostic, then a summary line.
pub fn render(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let diags = escape::diagnostics(diags);
    let mut out = String::new();
    let mut shown: BTreeMap<FileId, Shown> = BTreeMap::new();
    let mut drawn: BTreeMap<Option<FileId>, usize> = BTreeMap::new();
    let mut hidden: BTreeMap<Option<FileId>, usize> = BTreeMap::new();
    for d in &diags {
        let file = d.span.map(|s| s.file);
        let n = drawn.entry(file).or_default();
        if *n >= MAX_PER_FILE {
            *hidden.entry(file).or_default() += 1;
            continue;
        }
        *n += 1;
        out.push_str(&render_with(d, sources, color, &mut shown));
    }
    for (file, n) in &hidden {
        let name = file
            .and_then(|f| sources.try_get(f))
            .map_or_else(|| "no file".to_string(), |f| format!("`{}`", f.name));
        out.push_str(&format!("… {}\n", super::more_not_shown(&name, *n)));
    }
    let s = Summary::of(&diags);
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

/// The header, help and notes without a quoted source; `at` adds a location line and
/// `excerpt` a clipped line.
fn plain(d: &Diagnostic, at: Option<String>, excerpt: Option<String>) -> String {
    let mut s = format!("{}[{}]: {}\n", d.severity, d.code, d.message);
    if let Some(at) = at {
        s.push_str(&format!("  --> {at}\n"));
    }
    if let Some(x) = excerpt {
        s.push_str(&format!("   | {x}\n"));
    }
    if let Some(h) = &d.help {
        s.push_str(&format!("  = help: {h}\n"));
    }
    for n in &d.notes {
        s.push_str(&format!("  = note: {n}\n"));
    }
    s
}

fn render_with(
    d: &Diagnostic,
    sources: &SourceMap,
    color: bool,
    shown: &mut BTreeMap<FileId, Shown>,
) -> String {
    let Some(span) = d.span.filter(|s| sources.try_get(s.file).is_some()) else {
        return plain(d, None, None);
    };
    let file = sources.get(span.file);
    let entry = shown.entry(span.file).or_insert_with(|| {
        let quote_end = file.quote_end();
        let text = String::from_utf8_lossy(&file.bytes[..quote_end]);
        Shown {
            name: file.name.to_string(),
            source: Source::from(escape::source_for_display(&text).into_owned()),
            quote_end,
        }
    });
    let loc = sources.locate(span);
    let at = format!("{}:{}:{}", loc.file, loc.line, loc.column);
    let same_file: Vec<&super::Label> = d
        .labels
        .iter()
        .filter(|l| l.span.file == span.file)
        .collect();
    // Nothing past the quote limit is quoted: such a diagnostic names its place only.
    if span.end > entry.quote_end || same_file.iter().any(|l| l.span.end > entry.quote_end) {
        return plain(d, Some(at), None);
    }
    // A line too long to draw whole is clipped around the span.
    let spans = std::iter::once(span).chain(same_file.iter().map(|l| l.span));
    if spans
        .into_iter()
        .any(|s| line_chars(&file.bytes, s) > MAX_QUOTED_LINE)
    {
        return plain(d, Some(at), Some(clipped(&file.bytes, span)));
    }
    let to_char = |byte: usize| char_offset(&file.bytes, byte);
    let name = entry.name.clone();
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
    for l in same_file {
        let r = to_char(l.span.start)..to_char(l.span.end);
        report = report.with_label(Label::new((name.clone(), r)).with_message(&l.message));
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    let mut buf = Vec::new();
    if report
        .finish()
        .write((name, &entry.source), &mut buf)
        .is_err()
    {
        return plain(d, Some(at), None);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The length in characters of the longest line a span touches.
fn line_chars(bytes: &[u8], span: Span) -> usize {
    let start = span.start.min(bytes.len());
    let end = span.end.min(bytes.len());
    let from = bytes[..start]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let to = bytes[end..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| end + i);
    bytes[from..to]
        .split(|b| *b == b'\n')
        .map(|l| String::from_utf8_lossy(l).chars().count())
        .max()
        .unwrap_or(0)
}

/// The span's first line, clipped to [`CLIP_CONTEXT`] characters on each side of the
/// span's start, hazards made visible, `…` where text was cut.
fn clipped(bytes: &[u8], span: Span) -> String {
    let start = span.start.min(bytes.len());
    let from = bytes[..start]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let to = bytes[start..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| start + i);
    let before: Vec<char> = String::from_utf8_lossy(&bytes[from..start])
        .chars()
        .collect();
    let after: Vec<char> = String::from_utf8_lossy(&bytes[start..to]).chars().collect();
    let b0 = before.len().saturating_sub(CLIP_CONTEXT);
    let a1 = after.len().min(CLIP_CONTEXT);
    let mut s = String::new();
    if b0 > 0 {
        s.push('…');
    }
    s.extend(&before[b0..]);
    s.extend(&after[..a1]);
    if a1 < after.len() {
        s.push('…');
    }
    escape::source_for_display(&s).replace(['\t', '\r'], " ")
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

    #[test]
    fn bounded_per_file_clipped_and_escaped() {
        let mut sm = SourceMap::new();
        let text = format!("{}\n[a: 'x\u{1b}[31m']\n", "x".repeat(5000));
        let f = sm.add("p.ral", text.clone().into_bytes());
        let mut ds: Vec<Diagnostic> = (0..MAX_PER_FILE + 7)
            .map(|i| {
                Diagnostic::error("E0105", format!("n{i}\n::error ::forged"))
                    .at(Span::new(f, 2500, 2501))
            })
            .collect();
        ds.push(Diagnostic::error("E0105", "esc").at(Span::new(f, 5001, 5002)));
        let out = render(&ds, &sm, false);
        assert!(
            out.contains("… 8 more diagnostics of `p.ral` not shown"),
            "{out}"
        );
        assert!(!out.lines().any(|l| l.starts_with("::")), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
        assert!(
            out.lines().all(|l| l.chars().count() < 400),
            "a 5000-character line is clipped"
        );
        assert!(
            out.contains(&format!("{} errors", MAX_PER_FILE + 8)),
            "{out}"
        );
    }

    #[test]
    fn nothing_past_the_quote_limit_is_quoted() {
        let mut sm = SourceMap::new();
        let f = sm.add("p.ral", b"[a: 1] !SECRET-TOKEN more\n".to_vec());
        sm.limit_quoting(f, 8);
        let d = vec![
            Diagnostic::error("E0102", "unexpected `!`").at(Span::new(f, 7, 8)),
            Diagnostic::error("E0105", "later").at(Span::new(f, 9, 15)),
        ];
        let out = render(&d, &sm, false);
        assert!(!out.contains("SECRET"), "{out}");
        assert!(out.contains("p.ral:1:10"), "{out}");
    }
}
