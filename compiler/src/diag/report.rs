//! The library's public diagnostic: a [`Report`] is one [`Diagnostic`] with the source it
//! points into, implementing `miette::Diagnostic`, so a program that embeds ralc gets each
//! code, severity, span, label, help and documentation link through the trait the Rust
//! ecosystem renders (miette's own handlers, or its own). The terminal keeps ariadne
//! (`human`): its layout is what the check goldens and the examples pin.
//!
//! Its text is escaped as every format's is (`escape`): the message, labels, help and
//! notes, and the file's name; the source it carries is the one the terminal quotes
//! (`escape::display_char`: each hazard one visible character), its spans moved to match.
//! It never quotes a file past its first lexing error (`SourceMap::limit_quoting`: what
//! follows may not be a profile at all): the source ends there, and a label beyond it is
//! dropped. Pure: it reads nothing.

use super::{escape, Diagnostic, Severity, SourceMap, Span};
use miette::{LabeledSpan, NamedSource, SourceCode};
use std::fmt;
use std::sync::Arc;

/// One diagnostic and the file it points into.
#[derive(Debug)]
pub struct Report {
    diagnostic: Diagnostic,
    /// The quotable part of the primary span's file, as displayed.
    source: Option<NamedSource<Arc<str>>>,
    /// Each byte offset of that part (and its end) in the displayed source.
    offsets: Vec<usize>,
    /// The help, then each note on a line of its own.
    help: Option<String>,
}

impl Report {
    /// The report of `d`, its source taken from `sources`.
    pub fn new(d: &Diagnostic, sources: &SourceMap) -> Report {
        let d = escape::diagnostic(d);
        let file = d.span.and_then(|s| sources.try_get(s.file));
        let (shown, offsets) = file.map_or((String::new(), Vec::new()), |f| {
            displayed(&f.bytes[..f.quote_end()])
        });
        let source = file.map(|f| NamedSource::new(escape::text(&f.name), Arc::<str>::from(shown)));
        let help: Vec<&str> = d
            .help
            .iter()
            .map(String::as_str)
            .chain(d.notes.iter().map(String::as_str))
            .collect();
        Report {
            source,
            offsets,
            help: (!help.is_empty()).then(|| help.join("\n")),
            diagnostic: d,
        }
    }

    /// The diagnostic it reports.
    pub fn diagnostic(&self) -> &Diagnostic {
        &self.diagnostic
    }

    /// Whether `span` lies in the quoted part of the primary span's file.
    fn quotable(&self, span: Span) -> bool {
        let Some(primary) = self.diagnostic.span else {
            return false;
        };
        span.file == primary.file && span.end < self.offsets.len()
    }

    /// A span's place in the displayed source.
    fn range(&self, s: Span) -> (usize, usize) {
        let at = |i: usize| self.offsets.get(i).copied().unwrap_or(0);
        (at(s.start), at(s.end).saturating_sub(at(s.start)))
    }
}

/// Every diagnostic of a run as a report.
pub fn reports(diags: &[Diagnostic], sources: &SourceMap) -> Vec<Report> {
    diags.iter().map(|d| Report::new(d, sources)).collect()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.diagnostic.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    /// The code's page (`docs/codes.md`) or the lint's (`docs/lints.md`).
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let code = &self.diagnostic.code;
        let page = if is_numbered(code) {
            "docs/codes.md"
        } else {
            "docs/lints.md"
        };
        Some(Box::new(super::sarif::doc_uri(&format!(
            "{page}#{}",
            code.to_ascii_lowercase()
        ))))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    /// The primary span (unlabelled), then each label in the same file.
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = self.diagnostic.span.filter(|s| self.quotable(*s))?;
        let first = LabeledSpan::new_primary_with_span(None, self.range(primary));
        let rest = self
            .diagnostic
            .labels
            .iter()
            .filter(|l| self.quotable(l.span))
            .map(|l| LabeledSpan::new_with_span(Some(l.message.clone()), self.range(l.span)));
        Some(Box::new(std::iter::once(first).chain(rest)))
    }
}

/// `bytes` as the terminal quotes them (invalid UTF-8 as `�`, each hazard one visible
/// character), and where each byte offset (and the end) lands in that text.
fn displayed(bytes: &[u8]) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(bytes.len());
    let mut offsets = Vec::with_capacity(bytes.len() + 1);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        let mut chars = valid.chars().peekable();
        while let Some(c) = chars.next() {
            let at = out.len();
            offsets.extend(std::iter::repeat_n(at, c.len_utf8()));
            out.push(escape::display_char(c, chars.peek().copied()));
        }
        if !chunk.invalid().is_empty() {
            offsets.extend(std::iter::repeat_n(out.len(), chunk.invalid().len()));
            out.push('\u{fffd}');
        }
    }
    offsets.push(out.len());
    (out, offsets)
}

/// `E0201`, not a lint's name.
fn is_numbered(code: &str) -> bool {
    code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::Diagnostic as _;

    fn sources() -> SourceMap {
        let mut m = SourceMap::new();
        m.add("p.ral", b"[fss: [read: ['~']]]\n".to_vec());
        m
    }

    #[test]
    fn a_report_carries_code_span_label_help_and_page() {
        let m = sources();
        let f = crate::diag::FileId(0);
        let d = Diagnostic::error("E0201", "unknown grant key `fss`")
            .at(Span::new(f, 1, 4))
            .with_label(Span::new(f, 6, 10), "its value")
            .with_help("did you mean `fs`?")
            .with_note("the keys are exec, fs, net, detach, editor, shell");
        let r = Report::new(&d, &m);
        assert_eq!(r.to_string(), "unknown grant key `fss`");
        assert_eq!(r.code().map(|c| c.to_string()), Some("E0201".into()));
        assert_eq!(r.severity(), Some(miette::Severity::Error));
        let help = r.help().map(|h| h.to_string()).unwrap_or_default();
        assert_eq!(
            help,
            "did you mean `fs`?\nthe keys are exec, fs, net, detach, editor, shell"
        );
        assert!(r
            .url()
            .is_some_and(|u| u.to_string().ends_with("docs/codes.md#e0201")));
        let labels: Vec<LabeledSpan> = r.labels().map(|l| l.collect()).unwrap_or_default();
        assert_eq!(labels.len(), 2);
        assert!(labels[0].primary());
        assert_eq!((labels[0].offset(), labels[0].len()), (1, 3));
        assert_eq!(labels[1].label(), Some("its value"));
        let src = r.source_code().expect("a source");
        let got = src.read_span(&(1, 3).into(), 0, 0).expect("readable");
        assert_eq!(got.data(), b"fss");
    }

    #[test]
    fn text_and_source_are_escaped_and_spans_follow() {
        let mut m = SourceMap::new();
        m.add("p\u{1b}.ral", b"[\x1b[31m: \xff\xfe, a: 'x']".to_vec());
        let f = crate::diag::FileId(0);
        let d = Diagnostic::error("E0201", "key `\u{202e}a`").at(Span::new(f, 12, 13));
        let r = Report::new(&d, &m);
        assert_eq!(r.to_string(), "key `\\u{202e}a`");
        let src = r.source_code().expect("a source");
        let labels: Vec<LabeledSpan> = r.labels().map(|l| l.collect()).unwrap_or_default();
        let at = (labels[0].offset(), labels[0].len());
        let got = src.read_span(&at.into(), 0, 0).expect("readable");
        assert_eq!(got.data(), b"a");
        assert_eq!(got.name(), Some("p\\u{1b}.ral"));
        let all = src.read_span(&(0, 5).into(), 0, 0).expect("readable");
        assert_eq!(std::str::from_utf8(all.data()), Ok("[\u{241b}["));
    }

    #[test]
    fn nothing_past_the_first_lexing_error_is_quoted() {
        let mut m = sources();
        let f = crate::diag::FileId(0);
        m.limit_quoting(f, 5);
        let d = Diagnostic::error("E0102", "unexpected").at(Span::new(f, 8, 9));
        let r = Report::new(&d, &m);
        assert!(r.labels().is_none());
        let src = r.source_code().expect("a source");
        assert!(src.read_span(&(8, 1).into(), 0, 0).is_err());
        let lint = Diagnostic::warning("dead-grant", "grants nothing");
        let r = Report::new(&lint, &m);
        assert!(r.source_code().is_none());
        assert!(r
            .url()
            .is_some_and(|u| u.to_string().ends_with("docs/lints.md#dead-grant")));
    }
}
