//! What each `# ralc:` line directive covers, before and after a layout: the tokens on
//! the line it applies to (`lint::directive::line_directives`, the lint's own reading),
//! so the formatter can keep every directive covering the same entries. Where a layout
//! moves tokens in or out of a directive's line, the smallest element holding the
//! directive and that line is named, to be kept as written. Pure: texts and trees in.

use crate::diag::{FileId, Span};
use crate::lint::directive::line_directives;
use crate::syntax::ast::{Expr, ExprKind, Program};
use crate::syntax::lexer::{lex_with_comments, Tok};
use std::collections::BTreeMap;

/// The tokens a layout may add or drop (`,` `;` a map's `:` and newlines); a finding is
/// never placed on one, and the others match one to one between a text and its layout.
fn is_content(t: &Tok) -> bool {
    !matches!(t, Tok::Newline | Tok::Semi | Tok::Comma | Tok::Colon)
}

/// A text's line directives: for the comment (by index among `comments`) of each, the
/// content tokens (by index) on the line it covers; and every content token's span.
fn covers(text: &str, comments: &[Span]) -> (BTreeMap<usize, Vec<usize>>, Vec<Span>) {
    let (tokens, _, _) = lex_with_comments(FileId(0), text);
    let content: Vec<Span> = tokens
        .into_iter()
        .filter(|(t, _)| is_content(t))
        .map(|(_, s)| s)
        .collect();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut by_line: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, s) in content.iter().enumerate() {
        let line = line_starts.partition_point(|&l| l <= s.start);
        by_line.entry(line).or_default().push(i);
    }
    let mut out = BTreeMap::new();
    for (at, target) in line_directives(text) {
        // a `# ralc:` line inside a multi-line string is no comment of the lexer's
        let Ok(ci) = comments.binary_search_by_key(&at, |c| c.start) else {
            continue;
        };
        let toks = target
            .and_then(|l| by_line.get(&(l as usize)))
            .cloned()
            .unwrap_or_default();
        out.insert(ci, toks);
    }
    (out, content)
}

/// Where a layout changes what a directive covers: for each such directive, the range of
/// the source from the directive through the last token it covers on either side.
/// `None` when the two texts' tokens do not match one to one (then no range can be
/// named).
pub fn moved(
    text: &str,
    comments: &[Span],
    out: &str,
    out_comments: &[Span],
) -> Option<Vec<(usize, usize)>> {
    let (before, tokens) = covers(text, comments);
    let (after, out_tokens) = covers(out, out_comments);
    if tokens.len() != out_tokens.len() {
        return None;
    }
    let mut ranges = Vec::new();
    let keys: std::collections::BTreeSet<usize> =
        before.keys().chain(after.keys()).copied().collect();
    for ci in keys {
        let (b, a) = (before.get(&ci), after.get(&ci));
        if b == a {
            continue;
        }
        let c = comments.get(ci)?;
        let (mut lo, mut hi) = (c.start, c.end);
        for &t in b.into_iter().chain(a).flatten() {
            let s = tokens[t];
            lo = lo.min(s.start);
            hi = hi.max(s.end);
        }
        ranges.push((lo, hi));
    }
    Some(ranges)
}

/// The smallest element holding `lo..hi`: a top-level item, or an element of a bracket
/// (`key: value` from its key, an item, a spread's value), as `(start, end)` the way the
/// layout names elements. `None` when no one item holds it.
pub fn innermost(program: &Program, lo: usize, hi: usize) -> Option<(usize, usize)> {
    let holds = |s: usize, e: usize| s <= lo && hi <= e;
    for it in &program.items {
        let span = it.span();
        if !holds(span.start, span.end) {
            continue;
        }
        let value = match it {
            crate::syntax::ast::Item::Let { value, .. } => Some(value),
            crate::syntax::ast::Item::Return { value, .. } => value.as_ref(),
            crate::syntax::ast::Item::Expr(e) => Some(e),
        };
        return Some(
            value
                .and_then(|v| inside(v, lo, hi))
                .unwrap_or((span.start, span.end)),
        );
    }
    None
}

fn inside(e: &Expr, lo: usize, hi: usize) -> Option<(usize, usize)> {
    let holds = |s: usize, e: usize| s <= lo && hi <= e;
    let elements: Vec<(usize, &Expr)> = match &e.kind {
        ExprKind::List(items) => items.iter().map(|i| (i.span.start, i)).collect(),
        ExprKind::Record { spread, fields } => spread
            .iter()
            .map(|s| (s.span.start, s.as_ref()))
            .chain(fields.iter().map(|f| (f.key.span.start, &f.value)))
            .collect(),
        ExprKind::Map(entries) => entries
            .iter()
            .map(|m| (m.key.span.start, &m.value))
            .collect(),
        _ => Vec::new(),
    };
    elements
        .into_iter()
        .find(|(start, v)| holds(*start, v.span.end))
        .map(|(start, v)| inside(v, lo, hi).unwrap_or((start, v.span.end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Program, Vec<Span>) {
        let (p, c, d) = crate::syntax::parse_with_comments(FileId(0), text.as_bytes());
        assert!(d.is_empty(), "{d:?}");
        (p, c)
    }

    #[test]
    fn a_moved_cover_is_found_and_named() {
        let before = "[\n  a: 1,\n  fs: [\n    # ralc: allow(redundant-entry) r\n    read: ['/a'], write: ['/b'],\n  ],\n]\n";
        let after = "[\n  a: 1,\n  fs: [\n    # ralc: allow(redundant-entry) r\n    read: ['/a'],\n    write: ['/b'],\n  ],\n]\n";
        let (p, c) = parse(before);
        let (_, c2) = parse(after);
        let r = moved(before, &c, after, &c2).expect("tokens match");
        assert_eq!(r.len(), 1);
        let (lo, hi) = r[0];
        assert_eq!(
            &before[lo..hi],
            "# ralc: allow(redundant-entry) r\n    read: ['/a'], write: ['/b']"
        );
        // the smallest element holding it is the `fs` entry
        let (s, e) = innermost(&p, lo, hi).expect("an element");
        assert!(before[s..e].starts_with("fs: ["), "{}", &before[s..e]);
        assert_eq!(moved(before, &c, before, &c), Some(Vec::new()));
    }
}
