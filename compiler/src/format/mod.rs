//! The canonical layout of a profile (`ralc fmt`): the tree of the one parser
//! (`syntax::parse_with_comments`) and the lexer's comments, printed back as text.
//!
//! The layout (`docs/cli.md`, "ralc fmt"): two-space indentation; one width rule, as
//! rustfmt's: a bracket (list, record or map) on one line when it fits in [`WIDTH`]
//! columns and holds no comment, else one element per line, except the record or map a
//! top-level item is (the profile's own grant), which keeps one axis a line; every entry of a broken bracket followed by
//! a comma; quoted strings in `'…'`, in `#'…'#` when the text holds a `'`, and in `"…"`
//! only where they interpolate or carry a control character; words, numbers, tags and
//! `$name` as written (a word ending in `:` quoted); one blank line kept where the source
//! had one or more; constructs outside the data subset as written. Comments stay where
//! they were written: on their own lines before an entry, after an entry on its line, at
//! the end of a bracket, or after its `[`. The entry after a `# ralc:` directive keeps the
//! lines the directive covers: written on one line, it stays on one line whatever the
//! width; written over several, it is kept as written, line for line; the entries after
//! it on its line stay there. Every directive's cover is then checked (`cover`), and an
//! element whose layout would move it is kept as written.
//!
//! Pure: text in, text out. It never prints a file that does not parse (the parser's
//! diagnostics are returned instead), and it checks its own output: the text it returns
//! parses, with no diagnostic, to the same tree (spans aside) and the same comments, or
//! it refuses.

pub mod cover;
pub mod same;
pub mod udiff;

use crate::diag::{Diagnostic, FileId, Span};
use crate::lint::directive::is_directive;
use crate::syntax::ast::{Expr, ExprKind, Item, Key, Program, StrLit};
use std::collections::BTreeSet;

/// The column a bracket must end within to stay on one line.
pub const WIDTH: usize = 100;
/// Spaces per level of nesting.
const INDENT: usize = 2;

/// Why a file was not formatted.
#[derive(Debug)]
pub enum Refusal {
    /// The file does not parse: the parser's diagnostics (never empty).
    Syntax(Vec<Diagnostic>),
    /// The layout would not give the same tree and comments back (a fault of the
    /// formatter, reported rather than written).
    Unfaithful(String),
}

/// The canonical layout of a profile's bytes, or why it cannot be given.
pub fn format_source(file: FileId, bytes: &[u8]) -> Result<String, Refusal> {
    let (program, comments, diags) = crate::syntax::parse_with_comments(file, bytes);
    if !diags.is_empty() {
        return Err(Refusal::Syntax(diags));
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Refusal::Unfaithful("the profile is not UTF-8".into()));
    };
    // elements kept as written so that every directive covers what it covered
    let mut keep: BTreeSet<(usize, usize)> = BTreeSet::new();
    loop {
        let layout = Builder {
            text,
            comments: &comments,
            next: 0,
            keep: &keep,
        }
        .program(&program)?;
        let out = render(&layout);
        let (again, again_comments, diags) =
            crate::syntax::parse_with_comments(file, out.as_bytes());
        if !diags.is_empty() {
            return Err(Refusal::Unfaithful(format!(
                "the layout does not parse: {}",
                diags[0].message
            )));
        }
        if !same::programs(&program, &again) {
            return Err(Refusal::Unfaithful(
                "the layout parses to a different tree".into(),
            ));
        }
        if comment_texts(text, &comments) != comment_texts(&out, &again_comments) {
            return Err(Refusal::Unfaithful(
                "the layout does not keep every comment".into(),
            ));
        }
        let Some(moved) = cover::moved(text, &comments, &out, &again_comments) else {
            return Ok(text.to_string());
        };
        if moved.is_empty() {
            return Ok(out);
        }
        for (lo, hi) in moved {
            match cover::innermost(&program, lo, hi) {
                Some(el) if keep.insert(el) => {}
                // no element to keep as written: the file stays as it is
                _ => return Ok(text.to_string()),
            }
        }
    }
}

fn comment_texts<'t>(text: &'t str, spans: &[Span]) -> Vec<&'t str> {
    spans
        .iter()
        .map(|s| text.get(s.start..s.end).unwrap_or("").trim_end())
        .collect()
}

/// A comment on its own line, and whether a blank line comes before it.
#[derive(Debug)]
struct Comment {
    text: String,
    blank_before: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Force {
    /// By the rules: a record or map breaks, a list breaks past the width.
    Auto,
    /// On one line, records too, whatever the width (a directive covers the line).
    Flat,
    /// As written, line for line (a directive covers the first of its lines).
    AsWritten,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    List,
    Record,
    Map,
}

#[derive(Debug)]
enum Node {
    /// Text printed as it is (it may hold a newline: a string or a construct outside
    /// the data subset written over several lines).
    Atom(String),
    Bracket(Box<Bracket>),
}

#[derive(Debug)]
struct Bracket {
    shape: Shape,
    /// A comment on the line of the `[`, after it.
    open: Option<String>,
    elems: Vec<Elem>,
    /// Comments after the last element.
    dangling: Vec<Comment>,
    force: Force,
}

/// An element of a bracket or a top-level item: `head` (`key: `, `...`, `let x = `) then
/// its value.
#[derive(Debug)]
struct Elem {
    leading: Vec<Comment>,
    blank_before: bool,
    /// On the line of the element before it, after its comma: the two shared a line a
    /// directive covers.
    joined: bool,
    head: String,
    value: Node,
    trailing: Option<String>,
}

#[derive(Debug)]
struct Layout {
    items: Vec<Elem>,
    dangling: Vec<Comment>,
}

/// One element of a bracket as the tree holds it.
enum Part<'e> {
    Item(&'e Expr),
    Spread(&'e Expr),
    Field(&'e Key, &'e Expr),
    Entry(&'e Expr, &'e Expr),
}

impl Part<'_> {
    fn start(&self) -> usize {
        match self {
            Part::Item(e) | Part::Spread(e) => e.span.start,
            Part::Field(k, _) => k.span.start,
            Part::Entry(k, _) => k.span.start,
        }
    }
    fn value(&self) -> &Expr {
        match self {
            Part::Item(e) | Part::Spread(e) => e,
            Part::Field(_, v) | Part::Entry(_, v) => v,
        }
    }
}

struct Builder<'a> {
    text: &'a str,
    comments: &'a [Span],
    /// The first comment not yet placed.
    next: usize,
    /// Elements (`start`, `end`) to print as written (see [`cover`]).
    keep: &'a BTreeSet<(usize, usize)>,
}

impl Builder<'_> {
    fn slice(&self, s: Span) -> &str {
        self.text.get(s.start..s.end).unwrap_or("")
    }

    fn newlines(&self, a: usize, b: usize) -> usize {
        self.text.get(a..b).map_or(0, |t| t.matches('\n').count())
    }

    /// Every comment not yet placed that starts before `pos`; `last` is where the text
    /// before the first of them ended, and becomes the end of the last.
    fn take_before(&mut self, pos: usize, last: &mut usize) -> Vec<Comment> {
        let mut out = Vec::new();
        while let Some(c) = self.comments.get(self.next).copied() {
            if c.start >= pos {
                break;
            }
            out.push(Comment {
                text: self.slice(c).trim_end().to_string(),
                blank_before: self.newlines(*last, c.start) >= 2,
            });
            *last = c.end;
            self.next += 1;
        }
        out
    }

    /// The next comment, when it starts before `limit` on the line where `end` is.
    fn same_line(&mut self, end: usize, limit: usize, last: &mut usize) -> Option<String> {
        let c = self.comments.get(self.next).copied()?;
        if c.start < end || c.start >= limit || self.newlines(end, c.start) > 0 {
            return None;
        }
        self.next += 1;
        *last = c.end;
        Some(self.slice(c).trim_end().to_string())
    }

    /// Where a map's `:` mark ends, when it lies between `from` and `to` outside comments.
    fn map_mark(&self, from: usize, to: usize) -> Option<usize> {
        let mut at = from;
        let mut comments = self.comments.get(self.next..).unwrap_or_default().iter();
        let mut comment = comments.next();
        while at < to {
            if let Some(c) = comment.filter(|c| c.start <= at) {
                at = at.max(c.end);
                comment = comments.next();
                continue;
            }
            let end = comment.map_or(to, |c| c.start.min(to));
            let gap = self.text.get(at..end)?;
            if let Some(i) = gap.find(':') {
                return Some(at + i + 1);
            }
            at = end;
        }
        None
    }

    /// How the element from `start` to `end`, under `leading` comments, must be laid out.
    fn force_of(&self, leading: &[Comment], start: usize, end: usize) -> Force {
        if leading.iter().any(|c| is_directive(&c.text)) {
            self.force_by_lines(start, end)
        } else {
            Force::Auto
        }
    }

    /// Keep the lines of the element from `start` to `end`: one line stays one line.
    fn force_by_lines(&self, start: usize, end: usize) -> Force {
        if self.newlines(start, end) == 0 {
            Force::Flat
        } else {
            Force::AsWritten
        }
    }

    fn program(&mut self, p: &Program) -> Result<Layout, Refusal> {
        let mut last = 0;
        let mut items = Vec::new();
        for (i, it) in p.items.iter().enumerate() {
            let span = it.span();
            let mut leading = self.take_before(span.start, &mut last);
            let blank_before =
                (i > 0 || !leading.is_empty()) && self.newlines(last, span.start) >= 2;
            if i == 0 {
                if let Some(c) = leading.first_mut() {
                    c.blank_before = false;
                }
            }
            // directives in the file's leading comment block are the file's, not a line's
            let force = if i == 0 {
                Force::Auto
            } else {
                self.force_of(&leading, span.start, span.end)
            };
            let (head, value) = match it {
                _ if self.keep.contains(&(span.start, span.end)) => {
                    let mut from = span.start;
                    let _ = self.take_before(span.end, &mut from);
                    (String::new(), Node::Atom(self.slice(span).to_string()))
                }
                Item::Let { name, value, .. } => {
                    (format!("let {name} = "), self.expr(value, force)?)
                }
                Item::Return { value: Some(v), .. } => ("return ".into(), self.expr(v, force)?),
                Item::Return { value: None, .. } => (String::new(), Node::Atom("return".into())),
                Item::Expr(e) => (String::new(), self.expr(e, force)?),
            };
            // a comment inside a let's or return's value that no bracket took
            let mut stray = self.take_before(span.end, &mut last);
            leading.append(&mut stray);
            last = last.max(span.end);
            let limit = p
                .items
                .get(i + 1)
                .map_or(self.text.len(), |n| n.span().start);
            let trailing = self.same_line(span.end, limit, &mut last);
            items.push(Elem {
                leading,
                blank_before,
                joined: false,
                head,
                value,
                trailing,
            });
        }
        let mut dangling = self.take_before(usize::MAX, &mut last);
        if items.is_empty() {
            if let Some(c) = dangling.first_mut() {
                c.blank_before = false;
            }
        }
        Ok(Layout { items, dangling })
    }

    /// The text of `e` as written, comments and all.
    fn as_written(&mut self, e: &Expr) -> Node {
        let mut last = e.span.start;
        let _ = self.take_before(e.span.end, &mut last);
        Node::Atom(self.slice(e.span).to_string())
    }

    fn expr(&mut self, e: &Expr, force: Force) -> Result<Node, Refusal> {
        if force == Force::AsWritten {
            return Ok(self.as_written(e));
        }
        Ok(match &e.kind {
            ExprKind::Str(s) => Node::Atom(self.string(e.span, s)),
            // a word ending in `:` would lose its colon before `]` or a newline
            ExprKind::Word(w) if w.ends_with(':') => Node::Atom(quote(w)),
            ExprKind::Word(w) | ExprKind::Int(w) => Node::Atom(w.clone()),
            ExprKind::Bool(b) => Node::Atom(b.to_string()),
            ExprKind::Unit => Node::Atom("()".into()),
            ExprKind::Tag(t) => Node::Atom(format!("`{t}")),
            ExprKind::Var(v) => Node::Atom(format!("${v}")),
            ExprKind::List(items) => {
                let parts: Vec<Part> = items.iter().map(Part::Item).collect();
                self.bracket(e, Shape::List, &parts, force)?
            }
            ExprKind::Record { spread, fields } => {
                let parts: Vec<Part> = spread
                    .iter()
                    .map(|s| Part::Spread(s))
                    .chain(fields.iter().map(|f| Part::Field(&f.key, &f.value)))
                    .collect();
                self.bracket(e, Shape::Record, &parts, force)?
            }
            ExprKind::Map(entries) => {
                let parts: Vec<Part> = entries
                    .iter()
                    .map(|m| Part::Entry(&m.key, &m.value))
                    .collect();
                self.bracket(e, Shape::Map, &parts, force)?
            }
            ExprKind::Outside(_) => self.as_written(e),
            ExprKind::Error => {
                return Err(Refusal::Unfaithful(
                    "the tree holds a node the parser could not read".into(),
                ))
            }
        })
    }

    /// A quoted string in the canonical quote style; as written when it interpolates or
    /// carries a control character.
    fn string(&self, span: Span, s: &StrLit) -> String {
        match s.as_static() {
            Some(t) if !t.chars().any(char::is_control) => quote(&t),
            _ => self.slice(span).to_string(),
        }
    }

    fn key(&self, k: &Key) -> String {
        let written = self.slice(k.span);
        if written.starts_with(['\'', '"', '#']) && !k.text.chars().any(char::is_control) {
            quote(&k.text)
        } else {
            written.to_string()
        }
    }

    fn bracket(
        &mut self,
        e: &Expr,
        shape: Shape,
        parts: &[Part],
        force: Force,
    ) -> Result<Node, Refusal> {
        let close = e.span.end.saturating_sub(1);
        let mut last = e.span.start + 1;
        let first = parts.first().map_or(close, Part::start);
        let open = self.same_line(last, first, &mut last);
        if shape == Shape::Map {
            // the blank lines before the first element count from the mark, which the
            // layout prints on a line of its own
            if let Some(mark) = self.map_mark(last, first) {
                last = mark;
            }
        }
        let mut elems = Vec::new();
        // the end of the element before, when a directive covers its line
        let mut covered: Option<usize> = None;
        for (i, p) in parts.iter().enumerate() {
            let start = p.start();
            let mut leading = self.take_before(start, &mut last);
            let blank_before = (i > 0 || !leading.is_empty()) && self.newlines(last, start) >= 2;
            if i == 0 && open.is_none() {
                if let Some(c) = leading.first_mut() {
                    c.blank_before = false;
                }
            }
            let v = p.value();
            // an element on the covered line of the one before stays on that line
            let joined =
                leading.is_empty() && covered.is_some_and(|e| self.newlines(e, start) == 0);
            let inner = if self.keep.contains(&(start, v.span.end)) {
                Force::AsWritten
            } else if joined {
                self.force_by_lines(start, v.span.end)
            } else {
                self.force_of(&leading, start, v.span.end)
            };
            covered = (joined || inner != Force::Auto).then_some(v.span.end);
            let mut blank_before = blank_before;
            // a map key on one line (a newline inside a string key is its text, not
            // layout); none when a comment inside breaks it, and then the entry is kept as
            // written, so that the comments around its `:` keep their order
            let mut key = match p {
                Part::Entry(k, _) if inner != Force::AsWritten => {
                    let placed = self.next;
                    let key = flat_node(&self.expr(k, Force::Flat)?, Flat::TOKENS);
                    if key.is_none() {
                        self.next = placed;
                    }
                    key
                }
                _ => None,
            };
            let broken_key = matches!(p, Part::Entry(..)) && key.is_none();
            let (head, value) =
                if (inner == Force::AsWritten || broken_key) && !matches!(p, Part::Spread(_)) {
                    // the entry as written, key to value, line for line, comments and all
                    let mut from = start;
                    let _ = self.take_before(v.span.end, &mut from);
                    let written = self.text.get(start..v.span.end).unwrap_or("");
                    (String::new(), Node::Atom(written.to_string()))
                } else {
                    let head = match p {
                        Part::Item(_) => String::new(),
                        Part::Spread(v) => {
                            // `...` glued to a word would lex as one word
                            let glued = matches!(
                                v.kind,
                                ExprKind::Var(_)
                                    | ExprKind::Str(_)
                                    | ExprKind::List(_)
                                    | ExprKind::Record { .. }
                                    | ExprKind::Map(_)
                                    | ExprKind::Unit
                                    | ExprKind::Tag(_)
                            );
                            if glued { "..." } else { "... " }.to_string()
                        }
                        Part::Field(k, _) => format!("{}: ", self.key(k)),
                        Part::Entry(k, _) => {
                            let Some(text) = key.take() else {
                                return Err(Refusal::Unfaithful("a map key lost".into()));
                            };
                            // an integer glued to `:` would lex as a word key
                            let sep = if matches!(k.kind, ExprKind::Int(_)) {
                                " : "
                            } else {
                                ": "
                            };
                            format!("{text}{sep}")
                        }
                    };
                    // comments between a key and its value go before the entry
                    let mut hoisted = self.take_before(v.span.start, &mut last);
                    for c in &mut hoisted {
                        c.blank_before = false;
                    }
                    if let Some(c) = hoisted.first_mut() {
                        c.blank_before = std::mem::take(&mut blank_before);
                    }
                    leading.append(&mut hoisted);
                    let value = self.expr(v, inner)?;
                    (head, value)
                };
            last = last.max(v.span.end);
            let limit = parts.get(i + 1).map_or(close, Part::start);
            let trailing = self.same_line(v.span.end, limit, &mut last);
            elems.push(Elem {
                leading,
                blank_before,
                joined,
                head,
                value,
                trailing,
            });
        }
        let mut dangling = self.take_before(close, &mut last);
        if elems.is_empty() && open.is_none() {
            if let Some(c) = dangling.first_mut() {
                c.blank_before = false;
            }
        }
        Ok(Node::Bracket(Box::new(Bracket {
            shape,
            open,
            elems,
            dangling,
            force,
        })))
    }
}

/// `text` quoted: `'…'`, or `#'…'#` with as few `#` as keep the fence out of the text.
fn quote(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    let mut hashes = "#".to_string();
    while text.contains(&format!("'{hashes}")) {
        hashes.push('#');
    }
    format!("{hashes}'{text}'{hashes}")
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// What may be laid flat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flat {
    /// Records and maps too, not only lists.
    records: bool,
    /// An atom that holds a newline (a string written over lines): flat means no line
    /// breaks between tokens, rather than one line.
    spanning_atoms: bool,
}

impl Flat {
    const ALL: Flat = Flat {
        records: true,
        spanning_atoms: false,
    };
    /// A map key: every bracket, and strings as they are.
    const TOKENS: Flat = Flat {
        records: true,
        spanning_atoms: true,
    };
}

/// The node with no line breaks of the layout's, if it can be (see [`Flat`]).
fn flat_node(n: &Node, flat: Flat) -> Option<String> {
    match n {
        Node::Atom(s) => (flat.spanning_atoms || !s.contains('\n')).then(|| s.clone()),
        Node::Bracket(b) => flat_bracket(b, flat),
    }
}

fn flat_bracket(b: &Bracket, flat: Flat) -> Option<String> {
    if b.open.is_some() || !b.dangling.is_empty() {
        return None;
    }
    let flat = Flat {
        records: flat.records || b.force == Force::Flat,
        ..flat
    };
    if b.shape != Shape::List && !flat.records && !b.elems.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if b.shape == Shape::Map {
        parts.push(":".to_string());
    }
    for el in &b.elems {
        if !el.leading.is_empty() || el.trailing.is_some() {
            return None;
        }
        parts.push(format!("{}{}", el.head, flat_node(&el.value, flat)?));
    }
    Some(format!("[{}]", parts.join(", ")))
}

fn render(layout: &Layout) -> String {
    let mut out = String::new();
    for el in &layout.items {
        element(el, 0, false, &mut out);
    }
    comments(&layout.dangling, 0, &mut out);
    out
}

fn comments(cs: &[Comment], indent: usize, out: &mut String) {
    for c in cs {
        if c.blank_before {
            out.push('\n');
        }
        out.push_str(&" ".repeat(indent));
        out.push_str(&c.text);
        out.push('\n');
    }
}

/// One element on its own line(s) at `indent` (or after the one before, when `joined`),
/// a comma after it inside a bracket; `next_joined`: the next element follows on its line.
fn element(el: &Elem, indent: usize, next_joined: bool, out: &mut String) {
    if !el.joined {
        comments(&el.leading, indent, out);
        if el.blank_before {
            out.push('\n');
        }
        out.push_str(&" ".repeat(indent));
    }
    out.push_str(&el.head);
    let comma = indent > 0;
    node(
        &el.value,
        indent,
        indent + width(&el.head),
        usize::from(comma),
        out,
    );
    if comma {
        out.push(',');
    } else if out.ends_with(':') {
        // an item kept as written that ends in a word ending in `:` (`echo a:;`): the
        // colon would split off before a newline
        out.push(';');
    }
    if next_joined {
        out.push(' ');
        return;
    }
    if let Some(t) = &el.trailing {
        out.push(' ');
        out.push_str(t);
    }
    out.push('\n');
}

/// Print `n` starting at column `col` of a line indented `indent`, with `tail` columns
/// to follow it on its last line.
fn node(n: &Node, indent: usize, col: usize, tail: usize, out: &mut String) {
    let b = match n {
        Node::Atom(s) => {
            out.push_str(s);
            return;
        }
        Node::Bracket(b) => b,
    };
    let empty = b.elems.is_empty() && b.dangling.is_empty() && b.open.is_none();
    let flat = match b.force {
        _ if empty => flat_bracket(b, Flat::ALL),
        Force::Flat => flat_bracket(b, Flat::ALL),
        Force::AsWritten => None,
        // the profile's own record (a top-level item) keeps one axis a line
        Force::Auto if indent == 0 && b.shape != Shape::List => None,
        Force::Auto => flat_bracket(b, Flat::ALL).filter(|s| col + width(s) + tail <= WIDTH),
    };
    if let Some(s) = flat {
        out.push_str(&s);
        return;
    }
    out.push('[');
    if let Some(o) = &b.open {
        out.push(' ');
        out.push_str(o);
    }
    out.push('\n');
    let inner = indent + INDENT;
    if b.shape == Shape::Map {
        out.push_str(&" ".repeat(inner));
        out.push_str(":,\n");
    }
    for (i, el) in b.elems.iter().enumerate() {
        let next_joined = b.elems.get(i + 1).is_some_and(|n| n.joined);
        element(el, inner, next_joined, out);
    }
    comments(&b.dangling, inner, out);
    out.push_str(&" ".repeat(indent));
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> String {
        match format_source(FileId(0), s.as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("{s:?}: {e:?}"),
        }
    }

    #[test]
    fn the_profile_keeps_one_axis_a_line_and_what_fits_stays_on_one() {
        assert_eq!(
            fmt("[exec: [git: 'allow'], fs: [read: [\"/a\", '/b']]]"),
            "[\n  exec: [git: 'allow'],\n  fs: [read: ['/a', '/b']],\n]\n"
        );
        // past the width, a record breaks as a list does
        let long: Vec<String> = (0..8)
            .map(|i| format!("'/a/long/path/{i}': 'allow'"))
            .collect();
        let out = fmt(&format!("[exec: [{}]]", long.join(", ")));
        assert!(
            out.starts_with("[\n  exec: [\n    '/a/long/path/0': 'allow',\n"),
            "{out}"
        );
        assert!(out.lines().all(|l| width(l) <= WIDTH), "{out}");
    }

    #[test]
    fn long_lists_break_one_item_per_line() {
        let items: Vec<String> = (0..12).map(|i| format!("'/some/long/path/{i}'")).collect();
        let src = format!("let x = [{}]\n", items.join(", "));
        let out = fmt(&src);
        assert!(
            out.starts_with("let x = [\n  '/some/long/path/0',\n"),
            "{out}"
        );
        assert!(out.ends_with("  '/some/long/path/11',\n]\n"), "{out}");
        assert!(out.lines().all(|l| width(l) <= WIDTH));
    }

    #[test]
    fn quote_style() {
        assert_eq!(quote("a"), "'a'");
        assert_eq!(quote("it's"), "#'it's'#");
        assert_eq!(quote("a'#b"), "##'a'#b'##");
        assert_eq!(
            fmt("[\"a\", #'b'#, \"c'd\", \"$x\", \"t\\tu\"]"),
            "['a', 'b', #'c'd'#, \"$x\", \"t\\tu\"]\n"
        );
    }

    #[test]
    fn comments_stay_in_place() {
        let src = "#!/usr/bin/env ral\n# head\n\n\n[ # open\n  # before a\n  a: 1, # after a\n\n  b: [x, # after x\n  ],\n  # end\n] # after all\n# tail\n";
        let out = fmt(src);
        assert_eq!(
            out,
            "#!/usr/bin/env ral\n# head\n\n[ # open\n  # before a\n  a: 1, # after a\n\n  b: [\n    x, # after x\n  ],\n  # end\n] # after all\n# tail\n"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn a_directive_keeps_its_line() {
        let long: Vec<String> = (0..12).map(|i| format!("'/some/long/path/{i}'")).collect();
        let src = format!(
            "# head\n[\n  fs: [\n    # ralc: allow(broad-write) the VM\n    write: [{}],\n  ],\n  exec: [\n    # ralc: allow(deputy-prefix) it builds\n    'cwd:/': 'allow', go: 'allow',\n  ],\n]\n",
            long.join(", ")
        );
        let out = fmt(&src);
        assert!(
            out.contains(&format!("    write: [{}],\n", long.join(", "))),
            "{out}"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn entries_sharing_a_directive_line_stay_on_it() {
        let src = "[\n  exec: [\n    # ralc: allow(deputy-prefix) it builds\n    'cwd:/': \"allow\", go: [\n  build],\n    git: 'allow', bash: 'deny',\n  ],\n]\n";
        let out = fmt(src);
        assert_eq!(
            out,
            "[\n  exec: [\n    # ralc: allow(deputy-prefix) it builds\n    'cwd:/': 'allow', go: [\n  build],\n    git: 'allow',\n    bash: 'deny',\n  ],\n]\n"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn a_directive_anywhere_keeps_its_cover() {
        // between a key and its value: the entry is kept as written
        let src = "[\n  fs: [read:\n    # ralc: allow(redundant-entry) r\n    ['/usr'],\n  write: ['/']],\n]\n";
        let out = fmt(src);
        assert!(out.contains("  fs: [\n    read:\n    # ralc: allow(redundant-entry) r\n    ['/usr'],\n    write: ['/'],\n  ],\n"), "{out}");
        // at the end of a bracket, covering the line of its `]` and what follows there
        let src =
            "[\n  fs: [read: ['/usr'],\n    # ralc: allow(broad-write) w\n  ], net: `offline,\n]\n";
        let out = fmt(src);
        assert!(out.contains("  ], net: `offline,\n"), "{out}");
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn blank_lines_in_a_map_count_from_its_mark() {
        let src = "[ # open\n  :,\n  # before\n  a: 1]";
        assert_eq!(fmt(src), "[ # open\n  :,\n  # before\n  a: 1,\n]\n");
        let src = "[ # open\n  :,\n\n  # after a blank\n  a: 1]";
        assert_eq!(
            fmt(src),
            "[ # open\n  :,\n\n  # after a blank\n  a: 1,\n]\n"
        );
    }

    #[test]
    fn idempotent_on_odd_corners() {
        for src in [
            "",
            "# only a comment\n",
            "()",
            "[]",
            "[:]",
            "[:, $k: 1]",
            "[5 : x]",
            "[a: b:,]",
            "[... $r, a: 1]",
            "let r = [a: 1]\n[...$r]",
            "return",
            "echo hi there # a command\n[a: 1]",
            "[a: {\n  echo x # inside\n}]",
            "let a = 1; let b = 2 # two\n\n\n[x: $a]",
            "[a: 'multi\nline']",
            "[:, \"multi\nline key\": 1, 'k\nl': [a: 1]]",
            "[[\"a\", 'b\nc']: 1]",
            "[ # open\n  :,\n  # before\n  a: 1]",
            "[ # open\n  :,\n\n  # before, after a blank\n  a: 1]",
            "[\n  # before the mark: x\n  :, a: 1]",
            "[:, # on the mark's line\n  a: 1]",
            "[:, [$a, # inside a key\n  $b]: 1]",
            "[:,[ # inside a key\n]:\n# ralc: allow(redundant-entry) r\n  'allow']",
        ] {
            let once = fmt(src);
            assert_eq!(fmt(&once), once, "{src:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// Any soup of the language's pieces: never a panic; what formats is a fixed point.
        #[test]
        fn token_soup_never_panics(
            pieces in proptest::collection::vec(
                proptest::sample::select(&[
                    "[", "]", ",", ": ", ":", " ", "\n", "# c\n", "# ralc: allow(x) y\n",
                    "a", "b:", "'s'", "\"$v\"", "#'q'#", "...", "$v", "let v = ", "return ",
                    ";", "`t", "()", "{", "}", "5", "true", "|", "\"\t\"", "'x\ny'",
                ][..]),
                0..40,
            )
        ) {
            let src: String = pieces.concat();
            match format_source(FileId(0), src.as_bytes()) {
                Ok(once) => {
                    let twice = format_source(FileId(0), once.as_bytes());
                    proptest::prop_assert!(
                        matches!(&twice, Ok(t) if *t == once),
                        "{src:?}\n{once}\n{twice:?}"
                    );
                }
                Err(Refusal::Syntax(d)) => proptest::prop_assert!(!d.is_empty()),
                Err(Refusal::Unfaithful(why)) => {
                    proptest::prop_assert!(false, "{src:?}: {why}")
                }
            }
        }
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused() {
        match format_source(FileId(0), b"[a: 'x' b: 'y']") {
            Err(Refusal::Syntax(d)) => assert_eq!(d[0].code, "E0105"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            format_source(FileId(0), b"[a: \xff]"),
            Err(Refusal::Syntax(_))
        ));
    }
}
