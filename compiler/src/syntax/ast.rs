//! The syntax tree of a profile, with byte spans. It holds what was written, including
//! constructs outside the data subset (so the evaluator can name and refuse them); it
//! never holds a value computed from anything but the text.

use crate::diag::Span;

/// A whole file: its items in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub items: Vec<Item>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `let name = value`
    Let {
        name: String,
        name_span: Span,
        value: Expr,
        span: Span,
    },
    /// `return value` (or a bare `return`, which returns nothing and is refused).
    Return { value: Option<Expr>, span: Span },
    /// An expression statement: the last one is the profile's value.
    Expr(Expr),
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Let { span, .. } | Item::Return { span, .. } => *span,
            Item::Expr(e) => e.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }
}

/// One part of a string literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StrPart {
    Text(String),
    /// `$name` / `$(name)` inside `"…"`, with the span of the reference.
    Var(String, Span),
}

/// A quoted string: literal text, or `"…"` parts to interpolate. Its parts are shared
/// (`Arc`): the parser copies tokens as it backtracks, and a copy is then a count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StrLit {
    pub parts: std::sync::Arc<[StrPart]>,
}

impl StrLit {
    pub fn literal(s: &str) -> Self {
        StrLit {
            parts: std::sync::Arc::new([StrPart::Text(s.to_string())]),
        }
    }
    /// The text when the string interpolates nothing.
    pub fn as_static(&self) -> Option<String> {
        let mut out = String::new();
        for p in self.parts.iter() {
            match p {
                StrPart::Text(t) => out.push_str(t),
                StrPart::Var(..) => return None,
            }
        }
        Some(out)
    }
}

/// A record or map key.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub key: Key,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    pub key: Expr,
    pub value: Expr,
}

/// A construct outside the data subset (spec §1.2), refused by the evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Construct {
    Command,
    Pipeline,
    Redirection,
    Background,
    Block,
    BangBlock,
    Index,
    Paren,
    If,
    Else,
    Case,
    Fn,
    Grant,
    Within,
    Try,
}

impl Construct {
    pub fn name(self) -> &'static str {
        match self {
            Construct::Command => "a command",
            Construct::Pipeline => "a pipeline",
            Construct::Redirection => "a redirection",
            Construct::Background => "a background job (`&`)",
            Construct::Block => "a block `{…}`",
            Construct::BangBlock => "a `!{…}` block",
            Construct::Index => "an index (`$ENV[…]`)",
            Construct::Paren => "a parenthesised expression",
            Construct::If => "`if`",
            Construct::Else => "`else`",
            Construct::Case => "`case`",
            Construct::Fn => "a function (`fn`)",
            Construct::Grant => "`grant`",
            Construct::Within => "`within`",
            Construct::Try => "`try`",
        }
    }
    pub fn reserved(word: &str) -> Option<Construct> {
        Some(match word {
            "if" => Construct::If,
            "else" => Construct::Else,
            "case" => Construct::Case,
            "fn" => Construct::Fn,
            "grant" => Construct::Grant,
            "within" => Construct::Within,
            "try" => Construct::Try,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A quoted string (possibly interpolating).
    Str(StrLit),
    /// A bare word: a string.
    Word(String),
    /// An integer, kept as written (only ever reported as the wrong type).
    Int(String),
    Bool(bool),
    /// `()`
    Unit,
    /// `` `offline ``
    Tag(String),
    /// `$name`
    Var(String),
    /// `[a, b]` or `[]`.
    List(Vec<Expr>),
    /// `[...$r, k: v]`: the spread (if any) then the fields as written.
    Record {
        spread: Option<Box<Expr>>,
        fields: Vec<Field>,
    },
    /// `[:]`, `[:, k: v]`, or a bracket with a computed key.
    Map(Vec<MapEntry>),
    /// A construct outside the data subset, with its parts' spans kept in `span`.
    Outside(Construct),
    /// Something already reported as a syntax error.
    Error,
}
