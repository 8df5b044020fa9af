//! Lint directives in profiles: `# ralc: allow(LINT[, LINT…]) reason` (also `warn`,
//! `deny`) on the line before an entry — for findings on the next line that is not blank
//! or a comment — or in the file's leading comment block, for the whole file. Parsed
//! over the source text only; a directive without a reason, with an unknown lint or a
//! malformed body is collected as a problem (reported by `lint-directive`).

use super::Level;
use crate::diag::{SourceMap, Span};
use std::collections::BTreeMap;

/// One parsed directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub level: Level,
    pub lints: Vec<String>,
    pub reason: String,
    pub span: Span,
}

/// A directive that could not be honoured as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub span: Span,
    pub message: String,
    pub help: String,
}

/// Every directive of every file, by scope.
#[derive(Clone, Debug, Default)]
pub struct Directives {
    /// (file, 1-based target line) → directives.
    lines: BTreeMap<(u32, u32), Vec<Directive>>,
    /// file → whole-file directives.
    files: BTreeMap<u32, Vec<Directive>>,
    pub problems: Vec<Problem>,
}

/// The rest of a comment's body after `ralc:`, when the body (the text after its `#`s)
/// opens a directive, well-formed or not.
fn directive_rest(body: &str) -> Option<&str> {
    body.trim_start().strip_prefix("ralc:")
}

/// Whether a comment (its text from the first `#`) is a directive, well-formed or not.
/// The formatter keeps the entry a directive covers on the lines it covers.
pub fn is_directive(comment: &str) -> bool {
    directive_rest(comment.trim_start().trim_start_matches('#')).is_some()
}

/// Parse the body after `#`: `Ok(None)` when it is not a directive at all.
fn parse_body(body: &str) -> Result<Option<(Level, Vec<String>, String)>, String> {
    let Some(rest) = directive_rest(body) else {
        return Ok(None);
    };
    let rest = rest.trim_start();
    let (level, rest) = if let Some(r) = rest.strip_prefix("allow") {
        (Level::Allow, r)
    } else if let Some(r) = rest.strip_prefix("warn") {
        (Level::Warn, r)
    } else if let Some(r) = rest.strip_prefix("deny") {
        (Level::Deny, r)
    } else {
        return Err("a directive is `# ralc: allow(LINT) reason` (or `warn`, `deny`)".into());
    };
    let Some(rest) = rest.strip_prefix('(') else {
        return Err("expected `(` after the level".into());
    };
    let Some(close) = rest.find(')') else {
        return Err("expected `)` closing the lint list".into());
    };
    let lints: Vec<String> = rest[..close]
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if lints.is_empty() {
        return Err("the lint list is empty".into());
    }
    Ok(Some((level, lints, rest[close + 1..].trim().to_string())))
}

/// Whether a line (trimmed) is a comment line as directives see it: it opens with `#`
/// that does not fence a raw string.
fn is_comment_line(trimmed: &str) -> bool {
    trimmed.starts_with('#') && !trimmed.trim_start_matches('#').starts_with('\'')
}

/// One comment line that opens a directive, as `scan` meets it.
struct Scanned {
    /// Byte offsets of the line's start, its `#`, and its end without trailing space.
    start: usize,
    hash: usize,
    end: usize,
    /// In the file's leading comment block: the directive is the whole file's.
    header: bool,
    /// The 1-based line it covers: the next line that is not blank or a comment (`None`
    /// for a header directive, or when no such line follows).
    covers: Option<u32>,
    /// The parsed body (`Err`: malformed).
    parsed: Result<(Level, Vec<String>, String), String>,
}

/// Every directive comment of `text`, in order, with its scope: the one reading of the
/// text's lines that both the lint (`Directives::parse`) and the formatter
/// (`line_directives`) use.
fn scan(text: &str) -> Vec<Scanned> {
    let mut out: Vec<Scanned> = Vec::new();
    let mut header = true;
    let mut pending: Vec<usize> = Vec::new();
    let mut offset = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let lineno = i as u32 + 1;
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if !is_comment_line(trimmed) {
            header = false;
            for k in pending.drain(..) {
                out[k].covers = Some(lineno);
            }
            continue;
        }
        let parsed = match parse_body(trimmed.trim_start_matches('#')) {
            Ok(None) => continue,
            Ok(Some(p)) => Ok(p),
            Err(e) => Err(e),
        };
        if !header && parsed.is_ok() {
            pending.push(out.len());
        }
        out.push(Scanned {
            start,
            hash: start + line.find('#').unwrap_or(0),
            end: start + line.trim_end().len(),
            header,
            covers: None,
            parsed,
        });
    }
    out
}

/// The line-scoped directives of a text, as [`Directives::parse`] reads them: for each, in
/// order, the byte offset of its `#` and the 1-based line it covers (`None` when no line
/// follows). The file's leading block, whose directives are the file's, is left out. The
/// formatter checks with it that every directive covers the same entries after a layout.
pub fn line_directives(text: &str) -> Vec<(usize, Option<u32>)> {
    scan(text)
        .into_iter()
        .filter(|s| !s.header && s.parsed.is_ok())
        .map(|s| (s.hash, s.covers))
        .collect()
}

impl Directives {
    pub fn parse(sources: &SourceMap) -> Self {
        let mut d = Directives::default();
        for (id, file) in sources.files() {
            let text = file.text_lossy();
            let bytes_ok = text.len() == file.bytes.len();
            for sc in scan(&text) {
                let span = if bytes_ok {
                    Span::new(id, sc.hash, sc.end)
                } else {
                    Span::new(id, sc.start, sc.start)
                };
                let (level, lints, reason) = match sc.parsed {
                    Err(msg) => {
                        d.problems.push(Problem {
                            span,
                            message: format!("malformed lint directive: {msg}"),
                            help: "write `# ralc: allow(LINT) reason`".into(),
                        });
                        continue;
                    }
                    Ok(p) => p,
                };
                let mut known = Vec::new();
                for l in lints {
                    if super::lookup(&l).is_some() {
                        known.push(l);
                    } else {
                        d.problems.push(Problem {
                            span,
                            message: format!("unknown lint `{l}` in a directive"),
                            help: format!(
                                "the lints are: {}",
                                super::registry::all()
                                    .iter()
                                    .map(|l| l.info().name)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        });
                    }
                }
                if reason.is_empty() {
                    d.problems.push(Problem {
                        span,
                        message: "a lint directive without a reason".into(),
                        help: "say why after the list: `# ralc: allow(LINT) the build runs what it builds`".into(),
                    });
                }
                let dir = Directive {
                    level,
                    lints: known,
                    reason,
                    span,
                };
                match (sc.header, sc.covers) {
                    (true, _) => d.files.entry(id.0).or_default().push(dir),
                    (false, Some(line)) => d.lines.entry((id.0, line)).or_default().push(dir),
                    (false, None) => {}
                }
            }
        }
        d
    }

    /// The level directives give `lint` at a span: the line's directives first, then the
    /// file's (the last matching directive of a scope wins).
    pub fn level_at(&self, lint: &str, span: Span, sources: &SourceMap) -> Option<Level> {
        let file = sources.try_get(span.file)?;
        let (line, _) = file.line_col(span.start);
        let pick = |v: &Vec<Directive>| {
            v.iter()
                .rev()
                .find(|d| d.lints.iter().any(|l| l == lint))
                .map(|d| d.level)
        };
        self.lines
            .get(&(span.file.0, line))
            .and_then(pick)
            .or_else(|| self.files.get(&span.file.0).and_then(pick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (SourceMap, Directives) {
        let mut sm = SourceMap::new();
        sm.add("p.ral", text.as_bytes().to_vec());
        let d = Directives::parse(&sm);
        (sm, d)
    }

    fn at_line(sm: &SourceMap, line: usize) -> Span {
        let text = sm.get(crate::diag::FileId(0)).text_lossy();
        let off: usize = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum();
        Span::new(crate::diag::FileId(0), off + 2, off + 3)
    }

    #[test]
    fn line_directives_and_the_lines_they_cover() {
        let text = "# ralc: allow(dead-grant) file-wide\n[\n  # ralc: allow(broad-write) a\n\n  # note\n  a: 1,\n  # ralc: nope\n  # ralc: deny(dead-grant) b\n]\n# ralc: allow(dead-grant) c\n";
        let got = line_directives(text);
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        assert_eq!(
            got,
            vec![
                (at("# ralc: allow(broad-write)"), Some(6)),
                (at("# ralc: deny"), Some(9)),
                (at("# ralc: allow(dead-grant) c"), None),
            ]
        );
    }

    #[test]
    fn line_and_file_scopes() {
        let text = "# std-ish profile\n# ralc: allow(broad-write) the sandbox is a VM\n[\n  fs: [\n    # ralc: deny(dead-grant) must not rot\n\n    read: ['/x'],\n    write: ['/y'],\n  ],\n]\n";
        let (sm, d) = parse(text);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert_eq!(
            d.level_at("broad-write", at_line(&sm, 8), &sm),
            Some(Level::Allow)
        );
        assert_eq!(
            d.level_at("dead-grant", at_line(&sm, 7), &sm),
            Some(Level::Deny)
        );
        assert_eq!(d.level_at("dead-grant", at_line(&sm, 8), &sm), None);
    }

    #[test]
    fn problems_are_collected() {
        let (_, d) = parse("# ralc: allow(deputy-prefix)\n# ralc: allow(nope) x\n# ralc: permit(x) y\n# ralc: allow() z\n# not a directive\n#'raw'#\n");
        let msgs: Vec<_> = d.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "a lint directive without a reason",
                "unknown lint `nope` in a directive",
                "malformed lint directive: a directive is `# ralc: allow(LINT) reason` (or `warn`, `deny`)",
                "malformed lint directive: the lint list is empty",
            ]
        );
    }
}
