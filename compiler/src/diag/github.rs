//! The `--format github` rendering: one GitHub Actions workflow command per diagnostic,
//! `::warning file=F,line=L,col=C::code: message` (`::error`, `::notice` for notes).
//! Pure: it formats only; property and message text are escaped as the runner expects.

use super::{Diagnostic, Severity, SourceMap};

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One line per diagnostic, in the order given.
pub fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let diags = &super::escape::diagnostics(diags);
    let (kept, more) = super::capped(diags, sources);
    let mut out = String::new();
    for d in kept {
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut msg = format!("{}: {}", d.code, d.message);
        if let Some(h) = &d.help {
            msg.push_str(&format!("\nhelp: {h}"));
        }
        for l in &d.labels {
            if sources.try_get(l.span.file).is_some() {
                let loc = sources.locate(l.span);
                msg.push_str(&format!(
                    "\n{}:{}:{}: {}",
                    loc.file, loc.line, loc.column, l.message
                ));
            }
        }
        match d.span.filter(|s| sources.try_get(s.file).is_some()) {
            Some(span) => {
                let l = sources.locate(span);
                out.push_str(&format!(
                    "::{cmd} file={},line={},col={}::{}\n",
                    escape_property(&l.file),
                    l.line,
                    l.column,
                    escape_data(&msg)
                ));
            }
            None => out.push_str(&format!("::{cmd}::{}\n", escape_data(&msg))),
        }
    }
    for (name, n) in more {
        out.push_str(&format!(
            "::notice::{}\n",
            escape_data(&super::more_not_shown(&name, n))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn workflow_command_lines() {
        let mut sm = SourceMap::new();
        let f = sm.add("dir,x/p.ral", b"[\n  fs: [write: ['/']]\n]\n".to_vec());
        let d = vec![
            Diagnostic::warning("broad-write", "`/` lets a program write 100%")
                .at(Span::new(f, 16, 19))
                .with_help("narrow it"),
            Diagnostic::note("legacy-form", "no file"),
            Diagnostic::error("E0201", "unknown key").at(Span::new(f, 0, 1)),
        ];
        assert_eq!(
            render(&d, &sm),
            "::warning file=dir%2Cx/p.ral,line=2,col=15::broad-write: `/` lets a program write 100%25%0Ahelp: narrow it\n\
             ::notice::legacy-form: no file\n\
             ::error file=dir%2Cx/p.ral,line=1,col=1::E0201: unknown key\n"
        );
    }
}
