//! The evaluator of the data subset (spec §1.2): `let`, `$name`, interpolation, spread,
//! `return`. It runs nothing and reads nothing; every other construct is refused with a
//! diagnostic that names it and points at it.
//!
//! It is bounded: every value built (literals and each copy a `$name` makes) is counted
//! against [`MAX_NODES`] and [`MAX_BYTES`], and no bound value nests deeper than
//! [`MAX_VALUE_DEPTH`]; the `let` that crosses a budget is E0127 and evaluation stops
//! there, before the copy is made. It must never build a value without counting it.

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{
    Construct, Expr, ExprKind, Field, Item, MapEntry, Program, StrLit, StrPart,
};
use std::collections::BTreeMap;

/// A value of the data subset, with the span it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub kind: ValueKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    Str(String),
    /// An integer as written.
    Int(String),
    Bool(bool),
    Unit,
    Tag(String),
    List(Vec<Value>),
    /// Fields in order of first appearance; a key appears once.
    Record(Vec<RecordField>),
    /// A map value: never a grant.
    Map(Vec<(Value, Value)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordField {
    pub key: String,
    pub key_span: Span,
    pub value: Value,
}

impl ValueKind {
    /// The type's name, as diagnostics say it.
    pub fn type_name(&self) -> &'static str {
        match self {
            ValueKind::Str(_) => "a string",
            ValueKind::Int(_) => "an integer",
            ValueKind::Bool(_) => "a Bool",
            ValueKind::Unit => "unit `()`",
            ValueKind::Tag(_) => "a tag",
            ValueKind::List(l) if l.is_empty() => "an empty list `[]`",
            ValueKind::List(_) => "a list",
            ValueKind::Record(_) => "a record",
            ValueKind::Map(_) => "a map",
        }
    }
}

/// The most value nodes one evaluation builds (copies included).
pub const MAX_NODES: u64 = 500_000;
/// The most string bytes one evaluation builds (copies included).
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// The deepest nesting of a value bound by `let` (each `let` can wrap the last one).
pub const MAX_VALUE_DEPTH: usize = 64;

/// What a value costs: its nodes, its string bytes and its nesting depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub nodes: u64,
    pub bytes: u64,
    pub depth: usize,
}

/// The cost of a value, measured without recursion (an explicit stack).
pub fn cost(v: &Value) -> Cost {
    let mut c = Cost::default();
    let mut stack: Vec<(&Value, usize)> = vec![(v, 1)];
    while let Some((v, d)) = stack.pop() {
        c.nodes += 1;
        c.depth = c.depth.max(d);
        match &v.kind {
            ValueKind::Str(s) | ValueKind::Int(s) | ValueKind::Tag(s) => c.bytes += s.len() as u64,
            ValueKind::Bool(_) | ValueKind::Unit => {}
            ValueKind::List(l) => stack.extend(l.iter().map(|x| (x, d + 1))),
            ValueKind::Record(fs) => {
                for f in fs {
                    c.bytes += f.key.len() as u64;
                    stack.push((&f.value, d + 1));
                }
            }
            ValueKind::Map(m) => {
                for (k, x) in m {
                    stack.push((k, d + 1));
                    stack.push((x, d + 1));
                }
            }
        }
    }
    c
}

/// Evaluate a program to its value. Every error is reported. The value is returned
/// whenever it could be computed, even if an error was found elsewhere (a failed field
/// is dropped), so the typecheck can report its own errors in the same run: a caller
/// must treat any error diagnostic as failure, as `typecheck::check_source` does.
pub fn evaluate(program: &Program) -> (Option<Value>, Vec<Diagnostic>) {
    let mut ev = Eval {
        env: BTreeMap::new(),
        diags: Vec::new(),
        built: Cost::default(),
        over: false,
    };
    let mut result: Option<Value> = None;
    let mut returned: Option<Span> = None;
    for item in &program.items {
        if let Some(r) = returned {
            ev.diags.push(
                Diagnostic::error(codes::E0126, "nothing may follow `return`")
                    .at(item.span())
                    .with_label(r, "the profile returns here")
                    .with_help("move this above the `return`, or delete it"),
            );
            continue;
        }
        match item {
            Item::Let {
                name, value, span, ..
            } => {
                let v = ev.expr(value);
                if ev.over {
                    ev.diags
                        .push(over_budget(*span, "builds more data than a profile may"));
                    return (None, ev.diags);
                }
                match v {
                    Some(v) => {
                        let c = cost(&v);
                        if c.depth > MAX_VALUE_DEPTH {
                            ev.diags.push(over_budget(
                                *span,
                                &format!("nests values deeper than {MAX_VALUE_DEPTH} levels"),
                            ));
                            return (None, ev.diags);
                        }
                        ev.env.insert(name.clone(), Some((v, c)));
                    }
                    None => {
                        // Bound but unusable: later reads are not reported again.
                        ev.env.insert(name.clone(), None);
                    }
                }
                result = None;
            }
            Item::Return { value, span } => {
                returned = Some(*span);
                match value {
                    Some(e) => result = ev.expr(e),
                    None => {
                        ev.diags.push(
                            Diagnostic::error(codes::E0125, "`return` without a value")
                                .at(*span)
                                .with_help(
                                    "return a record of grant settings, or `()` to set nothing",
                                ),
                        );
                        result = None;
                    }
                }
            }
            Item::Expr(e) => result = ev.expr(e),
        }
        if ev.over {
            ev.diags.push(over_budget(
                item.span(),
                "builds more data than a profile may",
            ));
            return (None, ev.diags);
        }
    }
    let ends_with_value = returned.is_some() || matches!(program.items.last(), Some(Item::Expr(_)));
    if !ends_with_value {
        let at =
            program
                .items
                .last()
                .map(|i| i.span())
                .unwrap_or(Span::new(program.span.file, 0, 0));
        ev.diags.push(
            Diagnostic::error(codes::E0125, "the profile has no value")
                .at(at)
                .with_help("end the profile with a record of grant settings, or `()` to set nothing on purpose"),
        );
    }
    (result, ev.diags)
}

/// E0127 at the item that crossed a budget.
fn over_budget(at: Span, what: &str) -> Diagnostic {
    Diagnostic::error(codes::E0127, format!("this binding {what}"))
        .at(at)
        .with_help(format!(
            "a profile builds at most {} values and {} MiB of text, nested at most {MAX_VALUE_DEPTH} deep; write the grant settings out instead of multiplying them",
            MAX_NODES,
            MAX_BYTES >> 20
        ))
}

struct Eval {
    /// `None`: bound to a value that failed to evaluate (already reported). Each value
    /// carries its measured cost, charged again at every copy.
    env: BTreeMap<String, Option<(Value, Cost)>>,
    diags: Vec<Diagnostic>,
    /// Everything built so far.
    built: Cost,
    /// A budget was crossed: build nothing more.
    over: bool,
}

impl Eval {
    /// Charge `nodes` and `bytes` to the budget; false (and `over`) when it is spent.
    fn charge(&mut self, nodes: u64, bytes: u64) -> bool {
        self.built.nodes += nodes;
        self.built.bytes += bytes;
        if self.built.nodes > MAX_NODES || self.built.bytes > MAX_BYTES {
            self.over = true;
        }
        !self.over
    }

    fn lookup(&mut self, name: &str, span: Span) -> Option<Value> {
        let found = self.env.get(name).map(|o| o.as_ref().map(|(_, c)| *c));
        match found {
            Some(Some(c)) => {
                // charged before the copy is made; a spent budget makes no copy
                if !self.charge(c.nodes, c.bytes) {
                    return None;
                }
                self.env
                    .get(name)
                    .and_then(Option::as_ref)
                    .map(|(v, _)| v.clone())
            }
            Some(None) => None,
            None => {
                let mut d = Diagnostic::error(codes::E0110, format!("`${name}` is not bound"))
                    .at(span)
                    .with_help("bind it first with `let name = …`");
                if name == "ENV" || name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    d = d.with_note(
                        "a profile is evaluated as data: it never reads the environment",
                    );
                }
                self.diags.push(d);
                None
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> Option<Value> {
        if self.over {
            return None;
        }
        let bytes = match &e.kind {
            ExprKind::Word(w) => w.len(),
            ExprKind::Int(i) => i.len(),
            ExprKind::Tag(t) => t.len(),
            _ => 0,
        };
        if !self.charge(1, bytes as u64) {
            return None;
        }
        let kind = match &e.kind {
            ExprKind::Word(w) => ValueKind::Str(w.clone()),
            ExprKind::Int(i) => ValueKind::Int(i.clone()),
            ExprKind::Bool(b) => ValueKind::Bool(*b),
            ExprKind::Unit => ValueKind::Unit,
            ExprKind::Tag(t) => ValueKind::Tag(t.clone()),
            ExprKind::Var(v) => {
                let mut val = self.lookup(v, e.span)?;
                // Point at the use for the value as a whole; inner spans stay at the definition.
                val.span = e.span;
                return Some(val);
            }
            ExprKind::Str(s) => ValueKind::Str(self.interpolate(s)?),
            ExprKind::List(items) => ValueKind::List(self.list(items)?),
            ExprKind::Record { spread, fields } => {
                ValueKind::Record(self.record(spread.as_deref(), fields))
            }
            ExprKind::Map(entries) => ValueKind::Map(self.map(entries)),
            ExprKind::Outside(c) => {
                self.diags.push(refuse(*c, e.span));
                return None;
            }
            ExprKind::Error => return None,
        };
        Some(Value { kind, span: e.span })
    }

    /// A `"…"` string with its `$name` parts filled in: only strings interpolate.
    fn interpolate(&mut self, s: &StrLit) -> Option<String> {
        let mut out = String::new();
        let mut ok = true;
        for p in s.parts.iter() {
            match p {
                StrPart::Text(t) => out.push_str(t),
                StrPart::Var(n, sp) => match self.lookup(n, *sp) {
                    Some(Value {
                        kind: ValueKind::Str(s),
                        ..
                    }) => out.push_str(&s),
                    Some(v) => {
                        self.diags.push(
                            Diagnostic::error(
                                codes::E0111,
                                format!(
                                    "`${n}` is {}, not a string: only strings interpolate",
                                    v.kind.type_name()
                                ),
                            )
                            .at(*sp)
                            .with_label(v.span, "bound here"),
                        );
                        ok = false;
                    }
                    None => ok = false,
                },
            }
        }
        if !ok || !self.charge(0, out.len() as u64) {
            return None;
        }
        Some(out)
    }

    /// A list's items. A failed item (already reported) is dropped so the rest is still
    /// checked; a list left empty by failures is not mistaken for `[]`.
    fn list(&mut self, items: &[Expr]) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        let mut ok = true;
        for i in items {
            match self.expr(i) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        if !ok && out.is_empty() {
            return None;
        }
        Some(out)
    }

    /// A record's fields: the spread's first, then each field in order, a later key
    /// overriding an earlier one in place. A failed spread or field (already reported) is
    /// dropped, so the rest is still checked.
    fn record(&mut self, spread: Option<&Expr>, fields: &[Field]) -> Vec<RecordField> {
        let mut out: Vec<RecordField> = Vec::new();
        if let Some(s) = spread {
            match self.expr(s) {
                Some(Value {
                    kind: ValueKind::Record(fs),
                    ..
                }) => out = fs,
                Some(Value {
                    kind: ValueKind::List(l),
                    ..
                }) if l.is_empty() => {}
                Some(v) => {
                    self.diags.push(
                        Diagnostic::error(
                            codes::E0112,
                            format!(
                                "a spread copies a record's fields, but this is {}",
                                v.kind.type_name()
                            ),
                        )
                        .at(s.span),
                    );
                }
                None => {}
            }
        }
        // Key → position in `out`, so overriding stays linear.
        let mut index: BTreeMap<String, usize> = out
            .iter()
            .enumerate()
            .map(|(i, x)| (x.key.clone(), i))
            .collect();
        for f in fields {
            let Some(v) = self.expr(&f.value) else {
                continue;
            };
            let field = RecordField {
                key: f.key.text.clone(),
                key_span: f.key.span,
                value: v,
            };
            match index.get(&f.key.text) {
                Some(&i) => out[i] = field,
                None => {
                    index.insert(f.key.text.clone(), out.len());
                    out.push(field);
                }
            }
        }
        out
    }

    /// A map's entries whose key and value both evaluate.
    fn map(&mut self, entries: &[MapEntry]) -> Vec<(Value, Value)> {
        let mut out = Vec::new();
        for m in entries {
            if let (Some(k), Some(v)) = (self.expr(&m.key), self.expr(&m.value)) {
                out.push((k, v));
            }
        }
        out
    }
}

/// The code for each construct outside the data subset.
pub fn construct_code(c: Construct) -> &'static str {
    match c {
        Construct::Command => codes::E0113,
        Construct::Pipeline => codes::E0114,
        Construct::Redirection | Construct::Background => codes::E0115,
        Construct::Block | Construct::Fn => codes::E0116,
        Construct::If | Construct::Else => codes::E0117,
        Construct::Case => codes::E0118,
        Construct::Grant | Construct::Within | Construct::Try => codes::E0119,
        Construct::BangBlock => codes::E0120,
        Construct::Index => codes::E0121,
        Construct::Paren => codes::E0122,
    }
}

fn refuse(c: Construct, span: Span) -> Diagnostic {
    let help = match c {
        Construct::Command => "a bare word alone is a string; quote text with spaces ('git status'), or put items in a list [a, b]",
        Construct::Index => "bind the value with `let` and read it with `$name`; the environment is never read",
        Construct::Paren => "write the value itself; `()` alone is unit",
        _ => "write the grant settings as plain data: records, lists, strings, `let` and `$name`",
    };
    Diagnostic::error(
        construct_code(c),
        format!("{} is outside the data subset of a profile", c.name()),
    )
    .at(span)
    .with_help(help)
    .with_note("ralc evaluates profiles as data: it never runs a command or reads anything but the profile")
}

/// The evaluation stage's codes (E0110–E0127), each a named constant, with their explain
/// pages.
pub mod codes {
    use crate::diag::codes::CodeInfo;

    /// Unbound name.
    pub const E0110: &str = "E0110";
    /// Interpolating a value that is not a string.
    pub const E0111: &str = "E0111";
    /// Spread of a value that is not a record.
    pub const E0112: &str = "E0112";
    /// A command in a profile.
    pub const E0113: &str = "E0113";
    /// A pipeline in a profile.
    pub const E0114: &str = "E0114";
    /// A redirection or background job in a profile.
    pub const E0115: &str = "E0115";
    /// A block or function in a profile.
    pub const E0116: &str = "E0116";
    /// `if`/`else` in a profile.
    pub const E0117: &str = "E0117";
    /// `case` in a profile.
    pub const E0118: &str = "E0118";
    /// `grant`, `within` or `try` in a profile.
    pub const E0119: &str = "E0119";
    /// A `!{…}` block in a profile.
    pub const E0120: &str = "E0120";
    /// An index such as `$ENV[…]`.
    pub const E0121: &str = "E0121";
    /// A parenthesised expression.
    pub const E0122: &str = "E0122";
    /// The profile has no value.
    pub const E0125: &str = "E0125";
    /// Something follows `return`.
    pub const E0126: &str = "E0126";
    /// The profile builds too much data.
    pub const E0127: &str = "E0127";

    /// Codes this stage reports.
    pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: E0110,
        title: "unbound name",
        meaning: "`$name` (or `$name` inside \"…\") reads a name that no earlier `let` binds. A profile never reads the environment, so `$HOME` is unbound too.",
        example: "[fs: [read: [$home]]]",
        fix: "Bind the name first (`let home = '~'`), or write the value itself.",
    },
    CodeInfo {
        code: E0111,
        title: "interpolating a value that is not a string",
        meaning: "Only strings interpolate into \"…\"; the name is bound to a list, record or other value.",
        example: "let dirs = ['/usr']\n[fs: [read: [\"$dirs/lib\"]]]",
        fix: "Interpolate a string-valued name, or build the list with its items written out.",
    },
    CodeInfo {
        code: E0112,
        title: "spread of a value that is not a record",
        meaning: "`[...$r, …]` copies the fields of the record `$r`; here `$r` is some other type.",
        example: "let r = ['a']\n[...$r, detach: false]",
        fix: "Spread a record (`let r = [detach: false]`).",
    },
    CodeInfo {
        code: E0113,
        title: "a command in a profile",
        meaning: "A word followed by arguments is a command in ral. ralc evaluates profiles as data and never runs commands.",
        example: "echo hello",
        fix: "Write the grant record itself; quote text that holds spaces.",
    },
    CodeInfo {
        code: E0114,
        title: "a pipeline in a profile",
        meaning: "`a | b` is a pipeline of commands; a profile is data and runs nothing.",
        example: "cat list | sort",
        fix: "Write the values themselves.",
    },
    CodeInfo {
        code: E0115,
        title: "a redirection or background job in a profile",
        meaning: "`<`, `>` and `&` redirect or background commands; a profile is data and runs nothing.",
        example: "[exec: [git: 'allow']] > out",
        fix: "Delete the redirection; quote text that holds `<`, `>` or `&`.",
    },
    CodeInfo {
        code: E0116,
        title: "a block or function in a profile",
        meaning: "`{…}` blocks and `fn` definitions are code; ralc evaluates only the data subset.",
        example: "{ [detach: false] }",
        fix: "Write the value directly, binding parts with `let`.",
    },
    CodeInfo {
        code: E0117,
        title: "`if`/`else` in a profile",
        meaning: "Conditionals choose at run time; a profile's value must be decided by its text alone.",
        example: "if true { [detach: false] }",
        fix: "Write one profile per case, and choose between files on the command line.",
    },
    CodeInfo {
        code: E0118,
        title: "`case` in a profile",
        meaning: "`case` chooses at run time; a profile's value must be decided by its text alone.",
        example: "case x { }",
        fix: "Write one profile per case.",
    },
    CodeInfo {
        code: E0119,
        title: "`grant`, `within` or `try` in a profile",
        meaning: "These ral constructs run code under a grant; a profile is the grant's data, not code that applies it.",
        example: "grant [exec: []] { ls }",
        fix: "Return the record you would pass to `grant`.",
    },
    CodeInfo {
        code: E0120,
        title: "a `!{…}` block in a profile",
        meaning: "`!{…}` runs code; a profile is data.",
        example: "!{ ls }",
        fix: "Write the value directly.",
    },
    CodeInfo {
        code: E0121,
        title: "an index such as `$ENV[…]`",
        meaning: "Indexing (`$ENV[HOME]`, `$r[k]`) is outside the data subset; in particular a profile never reads the environment.",
        example: "[fs: [read: [$ENV[HOME]]]]",
        fix: "Use a place (`~`, `cwd:`, `xdg:config`) that the freeze resolves, or bind the value with `let`.",
    },
    CodeInfo {
        code: E0122,
        title: "a parenthesised expression",
        meaning: "`(…)` around something evaluates a command or expression in ral; only `()` (unit) is data.",
        example: "(ls)",
        fix: "Write the value itself.",
    },
    CodeInfo {
        code: E0125,
        title: "the profile has no value",
        meaning: "The file ends without an expression (it is empty, holds only comments, ends with a `let`, or uses `return` alone). An empty file is not read as \"sets nothing\": that must be said with `()`.",
        example: "let x = 1",
        fix: "End the profile with its grant record, or `()` to set nothing on purpose.",
    },
    CodeInfo {
        code: E0126,
        title: "something follows `return`",
        meaning: "`return` ends the profile; an item after it would never be evaluated.",
        example: "return ()\n[detach: false]",
        fix: "Move the item above the `return`, or delete it.",
    },
    CodeInfo {
        code: E0127,
        title: "the profile builds too much data",
        meaning: "Evaluation is bounded: a profile builds at most 500,000 values and 8 MiB of text, counting every copy a `$name` makes, and a `let` may nest values at most 64 levels deep. Repeated doublings (`let b = [$a, $a]`, `let c = [$b, $b]`, …) cross the budget in a few lines; the `let` that crosses it is reported and evaluation stops there.",
        example: "let a = [x, x, x, x, x, x, x, x, x, x]\nlet b = [$a, $a, $a, $a, $a, $a, $a, $a, $a, $a]\nlet c = [$b, $b, $b, $b, $b, $b, $b, $b, $b, $b]\nlet d = [$c, $c, $c, $c, $c, $c, $c, $c, $c, $c]\nlet e = [$d, $d, $d, $d, $d, $d, $d, $d, $d, $d]\nlet f = [$e, $e, $e, $e, $e, $e, $e, $e, $e, $e]\n[exec: []]",
        fix: "Write the grant settings out; a real profile is far below the budget.",
    },
];
}

#[cfg(test)]
mod budget_tests {
    use super::*;
    use crate::diag::FileId;

    fn eval(src: &str) -> (Option<Value>, Vec<Diagnostic>) {
        let (p, d) = crate::syntax::parse(FileId(0), src.as_bytes());
        assert!(d.is_empty(), "{d:?}");
        evaluate(&p)
    }

    #[test]
    fn a_billion_laughs_stops_at_the_let_that_crosses_the_budget() {
        let mut src = String::from("let a0 = [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let p = format!("$a{}", i - 1);
            src.push_str(&format!("let a{i} = [{}]\n", [p.as_str(); 10].join(", ")));
        }
        src.push_str("[exec: []]\n");
        let (v, d) = eval(&src);
        assert!(v.is_none());
        let codes: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["E0127"]);
        // a4 (10^5 nodes) fits; a5 (10^6) crosses the budget before it is copied
        assert_eq!(d[0].span.map(|s| s.start), src.find("let a5"));
    }

    #[test]
    fn nesting_through_lets_is_capped() {
        let mut src = String::from("let a0 = [x]\n");
        for i in 1..200 {
            src.push_str(&format!("let a{i} = [$a{}]\n", i - 1));
        }
        src.push_str("[exec: []]\n");
        let (_, d) = eval(&src);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, "E0127");
        assert!(d[0].message.contains("deeper"), "{}", d[0].message);
    }

    #[test]
    fn cost_counts_nodes_bytes_and_depth() {
        let (v, _) = eval("[a: [bb, ccc], d: 'x']\n");
        let c = cost(&v.expect("a value"));
        assert_eq!((c.nodes, c.depth), (5, 3));
        assert_eq!(c.bytes, 1 + 2 + 3 + 1 + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;

    fn eval(src: &str) -> (Option<Value>, Vec<Diagnostic>) {
        let (p, d) = crate::syntax::parse(FileId(0), src.as_bytes());
        assert!(d.is_empty(), "{d:?}");
        evaluate(&p)
    }

    #[test]
    fn let_spread_interpolation() {
        let (v, d) = eval("let d = '/opt'\nlet b = [detach: false, net: true]\n[...$b, net: `offline, x: \"$d/bin\"]");
        assert!(d.is_empty(), "{d:?}");
        let Some(Value {
            kind: ValueKind::Record(fs),
            ..
        }) = v
        else {
            panic!()
        };
        assert_eq!(fs.len(), 3);
        assert_eq!(fs[1].value.kind, ValueKind::Tag("offline".into()));
        assert_eq!(fs[2].value.kind, ValueKind::Str("/opt/bin".into()));
    }

    #[test]
    fn refuses_commands_and_unbound() {
        let (_, d) = eval("echo hi\n$x");
        let codes: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, vec!["E0113", "E0110"]);
    }
}
