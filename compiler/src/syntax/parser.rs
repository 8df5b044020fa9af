//! The recovering parser (chumsky) from tokens to the syntax tree. The file is cut into
//! items at top-level newlines and `;` (explicit recovery at item boundaries), then each
//! item is parsed by the chumsky grammar, which also recovers inside brackets. Every
//! syntax error of a file is reported in one run; it never panics on any token sequence.

use super::ast::*;
use super::codes;
use super::lexer::Tok;
use crate::diag::{Diagnostic, FileId, Span};
use chumsky::input::{Input as _, ValueInput};
use chumsky::prelude::*;
use std::collections::BTreeMap;

type Err<'a> = extra::Err<Rich<'a, Tok, SimpleSpan>>;

/// The parser's own tree, lowered to [`Expr`] (with the bracket-shape checks) afterwards.
#[derive(Clone, Debug)]
enum P {
    Atom(Tok, SimpleSpan),
    Unit(SimpleSpan),
    Bracket(Vec<PElem>, SimpleSpan),
    Outside(Construct, SimpleSpan),
    Error(SimpleSpan),
}

#[derive(Clone, Debug)]
enum PElem {
    Item(P),
    Pair(P, P),
    Spread(P, SimpleSpan),
    MapMark(SimpleSpan),
}

#[derive(Clone, Debug)]
enum PItem {
    Let(Option<(String, SimpleSpan)>, P, SimpleSpan),
    Return(Option<P>, SimpleSpan),
    Values(Vec<P>, SimpleSpan),
    Reserved(&'static str, SimpleSpan),
}

fn p_span(p: &P) -> SimpleSpan {
    match p {
        P::Atom(_, s) | P::Unit(s) | P::Bracket(_, s) | P::Outside(_, s) | P::Error(s) => *s,
    }
}

/// A balanced token tree: any token but a closer, or a group with its closer.
fn token_tree<'a, I>() -> impl Parser<'a, I, (), Err<'a>> + Clone
where
    I: ValueInput<'a, Token = Tok, Span = SimpleSpan>,
{
    recursive(|tt| {
        let group = |open: Tok, close: Tok| {
            just(open)
                .then(tt.clone().repeated())
                .then(just(close))
                .ignored()
        };
        choice((
            group(Tok::LBracket, Tok::RBracket),
            group(Tok::LParen, Tok::RParen),
            group(Tok::LBrace, Tok::RBrace),
            group(Tok::BangBrace, Tok::RBrace),
            select! { Tok::VarIndex(_) => () }
                .then(tt.clone().repeated())
                .then(just(Tok::RBracket))
                .ignored(),
            none_of([
                Tok::RBracket,
                Tok::RParen,
                Tok::RBrace,
                Tok::LBracket,
                Tok::LParen,
                Tok::LBrace,
                Tok::BangBrace,
            ])
            .and_is(select! { Tok::VarIndex(_) => () }.not())
            .ignored(),
        ))
    })
}

fn value<'a, I>() -> impl Parser<'a, I, P, Err<'a>> + Clone
where
    I: ValueInput<'a, Token = Tok, Span = SimpleSpan>,
{
    recursive(|value| {
        let atom = select! {
            Tok::Str(s) = e => P::Atom(Tok::Str(s), e.span()),
            Tok::Word(w) = e => P::Atom(Tok::Word(w), e.span()),
            Tok::Int(i) = e => P::Atom(Tok::Int(i), e.span()),
            Tok::True = e => P::Atom(Tok::True, e.span()),
            Tok::False = e => P::Atom(Tok::False, e.span()),
            Tok::Tag(t) = e => P::Atom(Tok::Tag(t), e.span()),
            Tok::Var(v) = e => P::Atom(Tok::Var(v), e.span()),
            Tok::Error = e => P::Error(e.span()),
        }
        .labelled("a value");
        let unit = just(Tok::LParen)
            .then(just(Tok::RParen))
            .map_with(|_, e| P::Unit(e.span()));
        let tt = token_tree();
        let paren = just(Tok::LParen)
            .then(tt.clone().repeated().at_least(1))
            .then(just(Tok::RParen))
            .map_with(|_, e| P::Outside(Construct::Paren, e.span()));
        let block = just(Tok::LBrace)
            .then(tt.clone().repeated())
            .then(just(Tok::RBrace))
            .map_with(|_, e| P::Outside(Construct::Block, e.span()));
        let bang = just(Tok::BangBrace)
            .then(tt.clone().repeated())
            .then(just(Tok::RBrace))
            .map_with(|_, e| P::Outside(Construct::BangBlock, e.span()));
        let index = select! { Tok::VarIndex(_) => () }
            .then(tt.clone().repeated())
            .then(just(Tok::RBracket))
            .map_with(|_, e| P::Outside(Construct::Index, e.span()));

        let elem = choice((
            just(Tok::Colon).map_with(|_, e| PElem::MapMark(e.span())),
            just(Tok::Spread)
                .ignore_then(value.clone())
                .map_with(|v, e| PElem::Spread(v, e.span())),
            value
                .clone()
                .then(just(Tok::Colon).ignore_then(value.clone()).or_not())
                .map(|(k, v)| match v {
                    Some(v) => PElem::Pair(k, v),
                    None => PElem::Item(k),
                }),
        ))
        .recover_with(skip_then_retry_until(
            any().ignored(),
            one_of([Tok::Comma, Tok::RBracket]).ignored(),
        ));
        let bracket = elem
            .separated_by(just(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Tok::LBracket), just(Tok::RBracket))
            .map_with(|elems, e| P::Bracket(elems, e.span()))
            .recover_with(via_parser(nested_delimiters(
                Tok::LBracket,
                Tok::RBracket,
                [(Tok::LParen, Tok::RParen), (Tok::LBrace, Tok::RBrace)],
                P::Error,
            )));
        choice((atom, unit, paren, block, bang, index, bracket))
    })
}

fn item<'a, I>() -> impl Parser<'a, I, PItem, Err<'a>>
where
    I: ValueInput<'a, Token = Tok, Span = SimpleSpan>,
{
    let name = select! { Tok::Word(w) = e => (w, e.span()) }.labelled("a name");
    let let_item = just(Tok::Let)
        .ignore_then(name.map(Some))
        .then_ignore(just(Tok::Eq))
        .then(value())
        .map_with(|(n, v), e| PItem::Let(n, v, e.span()));
    let return_item = just(Tok::Return)
        .ignore_then(value().or_not())
        .map_with(|v, e| PItem::Return(v, e.span()));
    let reserved = select! { Tok::Reserved(k) => k }
        .then_ignore(any().repeated())
        .map_with(|k, e| PItem::Reserved(k, e.span()));
    let values = value()
        .repeated()
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|v, e| PItem::Values(v, e.span()));
    choice((let_item, return_item, reserved, values)).then_ignore(end())
}

/// Parse a token list into a program, reporting every syntax error.
pub fn parse_tokens(
    file: FileId,
    tokens: Vec<(Tok, Span)>,
    len: usize,
) -> (Program, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut items = Vec::new();
    for chunk in split_items(tokens) {
        let start = chunk.first().map(|t| t.1.start).unwrap_or(0);
        let end = chunk.last().map(|t| t.1.end).unwrap_or(start);
        // Pipelines, redirections and background jobs are recognised at the top level
        // of the item, before the grammar (which knows only the data subset).
        if let Some(c) = top_level_construct(&chunk) {
            items.push(Item::Expr(Expr::new(
                ExprKind::Outside(c),
                Span::new(file, start, end),
            )));
            continue;
        }
        // Explicit recovery for unbalanced brackets before the grammar runs: chumsky's
        // retrying recovery is exponential on deep unclosed nesting.
        let swallowed_string = matches!(chunk.last(), Some((Tok::Error, s)) if s.end == len);
        let Some(chunk) = balance(file, chunk, end, swallowed_string, &mut diags) else {
            items.push(Item::Expr(Expr::new(
                ExprKind::Error,
                Span::new(file, start, end),
            )));
            continue;
        };
        let toks: Vec<(Tok, SimpleSpan)> = chunk
            .into_iter()
            .map(|(t, s)| (t, SimpleSpan::from(s.start..s.end)))
            .collect();
        let eoi = SimpleSpan::from(end..end);
        let (out, errs) = item()
            .parse(toks.as_slice().split_token_span(eoi))
            .into_output_errors();
        // An unterminated string runs to the end of the file: the "unclosed" errors
        // at the end of the item are its consequence, not news.
        let swallowed = matches!(toks.last(), Some((Tok::Error, s)) if s.end == len);
        for e in errs {
            if swallowed && e.found().is_none() {
                continue;
            }
            diags.push(rich_to_diag(file, &e, len));
        }
        if let Some(it) = out {
            items.push(lower_item(file, it, &mut diags));
        }
    }
    let program = Program {
        items,
        span: Span::new(file, 0, len),
    };
    (program, diags)
}

/// Deepest bracket nesting the grammar is given. Kept low on purpose: the grammar's error
/// recovery is exponential in the depth of unclosed brackets around a refused construct
/// (`[&[&[&…`, found by the fuzzer), and no real profile nests deeper than a few levels.
pub const MAX_DEPTH: usize = 12;

fn closer_of(t: &Tok) -> Option<Tok> {
    match t {
        Tok::LBracket | Tok::VarIndex(_) => Some(Tok::RBracket),
        Tok::LParen => Some(Tok::RParen),
        Tok::LBrace | Tok::BangBrace => Some(Tok::RBrace),
        _ => None,
    }
}

/// Make the item's brackets balance: an unmatched closer is reported and dropped (a run
/// of them once, as one span, so `]]]]…` cannot multiply the report), an
/// unclosed opener is reported at the opener and closed at the end. `None` when the
/// nesting is deeper than [`MAX_DEPTH`] (reported).
fn balance(
    file: FileId,
    chunk: Vec<(Tok, Span)>,
    end: usize,
    quiet_unclosed: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<(Tok, Span)>> {
    let mut out = Vec::with_capacity(chunk.len());
    let mut stack: Vec<(Tok, Span)> = Vec::new();
    // A run of unmatched closers is one diagnostic: (its index in `diags`, its length).
    let mut run: Option<(usize, usize)> = None;
    for (t, s) in chunk {
        let unmatched = matches!(t, Tok::RBracket | Tok::RParen | Tok::RBrace)
            && !stack.iter().any(|(c, _)| *c == t);
        if !unmatched {
            run = None;
        }
        if let Some(close) = closer_of(&t) {
            stack.push((close, s));
            if stack.len() > MAX_DEPTH {
                diags.push(
                    Diagnostic::error(
                        codes::E0105,
                        format!("brackets nested deeper than {MAX_DEPTH}"),
                    )
                    .at(s)
                    .with_help("a profile is flat data; this is likely a missing closing bracket"),
                );
                return None;
            }
            out.push((t, s));
        } else if matches!(t, Tok::RBracket | Tok::RParen | Tok::RBrace) {
            if let Some(pos) = stack.iter().rposition(|(c, _)| *c == t) {
                while stack.len() > pos + 1 {
                    if let Some((c, os)) = stack.pop() {
                        diags.push(
                            Diagnostic::error(
                                codes::E0105,
                                format!("this is never closed: expected {}", c.describe()),
                            )
                            .at(os),
                        );
                        out.push((c, Span::new(file, s.start, s.start)));
                    }
                }
                stack.pop();
                out.push((t, s));
            } else if let Some((i, n)) = run.filter(|(i, _)| *i < diags.len()) {
                let d = &mut diags[i];
                d.span = d.span.map(|first| first.to(s));
                d.message = format!("{} unmatched closing brackets in a row", n + 1);
                run = Some((i, n + 1));
            } else {
                run = Some((diags.len(), 1));
                diags.push(
                    Diagnostic::error(codes::E0105, format!("unmatched {}", t.describe()))
                        .at(s)
                        .with_help("delete it, or open it earlier"),
                );
            }
        } else {
            out.push((t, s));
        }
    }
    while let Some((c, os)) = stack.pop() {
        if !quiet_unclosed {
            diags.push(
                Diagnostic::error(
                    codes::E0105,
                    format!("this is never closed: expected {}", c.describe()),
                )
                .at(os)
                .with_help("close it before the end of the item"),
            );
        }
        out.push((c, Span::new(file, end, end)));
    }
    Some(out)
}

fn split_items(tokens: Vec<(Tok, Span)>) -> Vec<Vec<(Tok, Span)>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut depth: usize = 0;
    for (t, s) in tokens {
        match t {
            Tok::LBracket | Tok::LParen | Tok::LBrace | Tok::BangBrace | Tok::VarIndex(_) => {
                depth += 1
            }
            Tok::RBracket | Tok::RParen | Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Newline | Tok::Semi if depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                continue;
            }
            Tok::Newline => continue,
            _ => {}
        }
        cur.push((t, s));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn top_level_construct(chunk: &[(Tok, Span)]) -> Option<Construct> {
    let mut depth: usize = 0;
    let mut found = None;
    for (t, _) in chunk {
        match t {
            Tok::LBracket | Tok::LParen | Tok::LBrace | Tok::BangBrace | Tok::VarIndex(_) => {
                depth += 1
            }
            Tok::RBracket | Tok::RParen | Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Pipe if depth == 0 => return Some(Construct::Pipeline),
            Tok::Lt | Tok::Gt if depth == 0 => found = found.or(Some(Construct::Redirection)),
            Tok::Amp if depth == 0 => found = found.or(Some(Construct::Background)),
            _ => {}
        }
    }
    if matches!(chunk.first(), Some((Tok::Reserved(_), _))) {
        return None;
    }
    found
}

fn rich_to_diag(file: FileId, e: &Rich<'_, Tok, SimpleSpan>, len: usize) -> Diagnostic {
    let span = e.span();
    let found = match e.found() {
        Some(t) => t.describe(),
        None => "the end of the item".to_string(),
    };
    let mut expected: Vec<String> = e
        .expected()
        .map(|p| match p {
            chumsky::error::RichPattern::Token(t) => t.describe(),
            chumsky::error::RichPattern::Label(l) => l.to_string(),
            chumsky::error::RichPattern::EndOfInput => "the end of the item".to_string(),
            _ => "something else".to_string(),
        })
        .collect();
    expected.sort();
    expected.dedup();
    let msg = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", expected.join(" or "))
    };
    let (s, end) = (span.start.min(len), span.end.min(len));
    let d = Diagnostic::error(codes::E0105, msg).at(Span::new(file, s, end));
    if e.found().is_none() {
        d.with_help("a bracket or parenthesis may be unclosed")
    } else if expected.iter().any(|x| x == "`:`") {
        // `exec:[` reads as the word `exec:` then `[`: the `:` was there, not as a key's
        d.with_help(
            "`:` ends a key only before white space, a newline, `]` or the end \
             (`exec: [`, not `exec:[`); quote a key that carries a `:` (`'system:'`)",
        )
    } else {
        d
    }
}

fn sp(file: FileId, s: SimpleSpan) -> Span {
    Span::new(file, s.start, s.end)
}

fn lower_item(file: FileId, it: PItem, diags: &mut Vec<Diagnostic>) -> Item {
    match it {
        PItem::Let(name, v, s) => {
            let value = lower(file, v, diags);
            if let Some((n, ns)) = &name {
                let ident = n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ident {
                    diags.push(
                        Diagnostic::error(codes::E0105, format!("`{n}` is not a name"))
                            .at(sp(file, *ns))
                            .with_help(
                                "a name is a letter or `_` followed by letters, digits and `_`",
                            ),
                    );
                }
            }
            match name {
                Some((n, ns)) => Item::Let {
                    name: n,
                    name_span: sp(file, ns),
                    value,
                    span: sp(file, s),
                },
                None => Item::Expr(Expr::new(ExprKind::Error, sp(file, s))),
            }
        }
        PItem::Return(v, s) => Item::Return {
            value: v.map(|v| lower(file, v, diags)),
            span: sp(file, s),
        },
        PItem::Reserved(k, s) => Item::Expr(Expr::new(
            ExprKind::Outside(Construct::reserved(k).unwrap_or(Construct::Command)),
            sp(file, s),
        )),
        PItem::Values(mut vs, s) => {
            if vs.len() == 1 {
                let v = vs.pop().map(|v| lower(file, v, diags));
                Item::Expr(v.unwrap_or_else(|| Expr::new(ExprKind::Error, sp(file, s))))
            } else {
                Item::Expr(Expr::new(
                    ExprKind::Outside(Construct::Command),
                    sp(file, s),
                ))
            }
        }
    }
}

fn lower(file: FileId, p: P, diags: &mut Vec<Diagnostic>) -> Expr {
    let span = sp(file, p_span(&p));
    let kind = match p {
        P::Atom(t, _) => match t {
            Tok::Str(s) => ExprKind::Str(s),
            Tok::Word(w) => ExprKind::Word(w),
            Tok::Int(i) => ExprKind::Int(i),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::Tag(t) => ExprKind::Tag(t),
            Tok::Var(v) => ExprKind::Var(v),
            _ => ExprKind::Error,
        },
        P::Unit(_) => ExprKind::Unit,
        P::Outside(c, _) => ExprKind::Outside(c),
        P::Error(_) => ExprKind::Error,
        P::Bracket(elems, _) => lower_bracket(file, elems, diags),
    };
    Expr::new(kind, span)
}

/// The static text of a key, when it is a bare word or an uninterpolated string.
fn static_key(p: &P) -> Option<String> {
    match p {
        P::Atom(Tok::Word(w), _) => Some(w.clone()),
        P::Atom(Tok::Str(s), _) => s.as_static(),
        P::Atom(Tok::True, _) => Some("true".into()),
        P::Atom(Tok::False, _) => Some("false".into()),
        _ => None,
    }
}

fn lower_bracket(file: FileId, elems: Vec<PElem>, diags: &mut Vec<Diagnostic>) -> ExprKind {
    if elems.is_empty() {
        return ExprKind::List(Vec::new());
    }
    let is_map = matches!(elems.first(), Some(PElem::MapMark(_)))
        || elems
            .iter()
            .any(|e| matches!(e, PElem::Pair(k, _) if static_key(k).is_none() && !matches!(k, P::Error(_))));
    let has_pair = elems.iter().any(|e| matches!(e, PElem::Pair(..)))
        || elems.iter().all(|e| matches!(e, PElem::Spread(..)));
    if is_map {
        lower_map(file, elems, diags)
    } else if !has_pair {
        lower_list(file, elems, diags)
    } else {
        lower_record(file, elems, diags)
    }
}

/// A bracket that is a map: `key: value` entries, the `:` mark first.
fn lower_map(file: FileId, elems: Vec<PElem>, diags: &mut Vec<Diagnostic>) -> ExprKind {
    let mut entries = Vec::new();
    for (i, e) in elems.into_iter().enumerate() {
        match e {
            PElem::MapMark(_) if i == 0 => {}
            PElem::MapMark(s) => diags.push(
                Diagnostic::error(
                    codes::E0107,
                    "`:` alone opens a map only as the first element",
                )
                .at(sp(file, s)),
            ),
            PElem::Pair(k, v) => entries.push(MapEntry {
                key: lower(file, k, diags),
                value: lower(file, v, diags),
            }),
            PElem::Item(p) => {
                let x = lower(file, p, diags);
                if x.kind != ExprKind::Error {
                    diags.push(
                        Diagnostic::error(codes::E0107, "a map element without a key")
                            .at(x.span)
                            .with_help("every element of a map is `key: value`"),
                    );
                }
            }
            PElem::Spread(_, s) => diags.push(
                Diagnostic::error(codes::E0108, "a spread is allowed only in a record literal")
                    .at(sp(file, s)),
            ),
        }
    }
    ExprKind::Map(entries)
}

/// A bracket that is a list: its items, no spread.
fn lower_list(file: FileId, elems: Vec<PElem>, diags: &mut Vec<Diagnostic>) -> ExprKind {
    let mut items = Vec::new();
    for e in elems {
        match e {
            PElem::Item(p) => items.push(lower(file, p, diags)),
            PElem::Spread(_, s) | PElem::MapMark(s) => diags.push(
                Diagnostic::error(codes::E0108, "a spread is allowed only in a record literal")
                    .at(sp(file, s))
                    .with_help("write the list's items out; a spread copies a record's fields"),
            ),
            PElem::Pair(..) => {}
        }
    }
    ExprKind::List(items)
}

/// A bracket that is a record: the spread first (once), then `key: value` fields with
/// static keys, each key once.
fn lower_record(file: FileId, elems: Vec<PElem>, diags: &mut Vec<Diagnostic>) -> ExprKind {
    let mut spread = None;
    let mut fields: Vec<Field> = Vec::new();
    let mut seen: BTreeMap<String, Span> = BTreeMap::new();
    for (i, e) in elems.into_iter().enumerate() {
        match e {
            PElem::Spread(p, s) => {
                if i == 0 {
                    spread = Some(Box::new(lower(file, p, diags)));
                } else {
                    diags.push(
                        Diagnostic::error(
                            codes::E0108,
                            "a spread must come first in a record literal, and only once",
                        )
                        .at(sp(file, s))
                        .with_help("write `[...$base, key: value]`"),
                    );
                }
            }
            PElem::Pair(k, v) => {
                let ks = sp(file, p_span(&k));
                let value = lower(file, v, diags);
                let Some(text) = static_key(&k) else {
                    continue;
                };
                if let Some(first) = seen.get(&text) {
                    diags.push(
                        Diagnostic::error(codes::E0106, format!("duplicate key `{text}`"))
                            .at(ks)
                            .with_label(*first, "first written here")
                            .with_help("a key may appear once in a record literal"),
                    );
                    continue;
                }
                seen.insert(text.clone(), ks);
                fields.push(Field {
                    key: Key { text, span: ks },
                    value,
                });
            }
            PElem::Item(p) => {
                let x = lower(file, p, diags);
                if x.kind != ExprKind::Error {
                    diags.push(
                        Diagnostic::error(codes::E0107, "a list element in a record literal")
                            .at(x.span)
                            .with_help(
                                "every element of a record is `key: value`; a list has no keys",
                            ),
                    );
                }
            }
            PElem::MapMark(s) => diags.push(
                Diagnostic::error(
                    codes::E0107,
                    "`:` alone opens a map only as the first element",
                )
                .at(sp(file, s)),
            ),
        }
    }
    ExprKind::Record { spread, fields }
}

#[cfg(test)]
mod tests {
    use crate::diag::FileId;
    use crate::syntax::ast::{ExprKind, Item};

    fn codes_lines(src: &str) -> Vec<(String, usize)> {
        let (_, d) = crate::syntax::parse(FileId(0), src.as_bytes());
        d.iter()
            .map(|d| {
                let start = d.span.map(|s| s.start).unwrap_or(0);
                (d.code.clone(), src[..start].matches('\n').count() + 1)
            })
            .collect()
    }

    #[test]
    fn two_errors_in_one_record_are_both_reported() {
        let got =
            codes_lines("[\n  exec: [git: 'allow' bash: 'deny'],\n  fs: [read: ['/a' '/b']],\n]\n");
        assert_eq!(got, vec![("E0105".into(), 2), ("E0105".into(), 3)]);
    }

    #[test]
    fn a_colon_glued_to_its_bracket_says_when_colon_is_a_key() {
        let (_, d) = crate::syntax::parse(FileId(0), b"[exec:['system:': 'allow']]");
        assert_eq!(d[0].code, "E0105");
        let help = d[0].help.as_deref().unwrap_or_default();
        assert!(help.contains("only before white space"), "{d:?}");
    }

    #[test]
    fn shapes_of_brackets() {
        let (p, d) = crate::syntax::parse(FileId(0), b"[[], [a], [a: b], [:], [...$x]]");
        assert!(d.is_empty(), "{d:?}");
        let Item::Expr(e) = &p.items[0] else { panic!() };
        let ExprKind::List(items) = &e.kind else {
            panic!("{e:?}")
        };
        assert!(matches!(&items[0].kind, ExprKind::List(v) if v.is_empty()));
        assert!(matches!(&items[1].kind, ExprKind::List(v) if v.len() == 1));
        assert!(matches!(&items[2].kind, ExprKind::Record { fields, .. } if fields.len() == 1));
        assert!(matches!(&items[3].kind, ExprKind::Map(m) if m.is_empty()));
        assert!(matches!(
            &items[4].kind,
            ExprKind::Record {
                spread: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn duplicate_key_at_second_occurrence() {
        assert_eq!(codes_lines("[a: 1,\n a: 2]"), vec![("E0106".into(), 2)]);
    }

    #[test]
    fn let_name_must_be_a_name() {
        assert_eq!(codes_lines("let a-b = 1\n()"), vec![("E0105".into(), 1)]);
    }
}

#[cfg(test)]
mod closer_tests {
    use crate::diag::FileId;

    #[test]
    fn a_run_of_unmatched_closers_is_one_diagnostic() {
        let src = format!("[exec: []]{}\n", "]".repeat(10_000));
        let (_, d) = crate::syntax::parse(FileId(0), src.as_bytes());
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].message, "10000 unmatched closing brackets in a row");
        assert_eq!(d[0].span.map(|s| (s.start, s.end)), Some((10, 10_010)));
    }
}
