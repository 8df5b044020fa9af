//! Whether two syntax trees say the same thing, spans aside: the formatter's check on its
//! own output (the text it prints must parse back to the tree it was given). A bare word
//! and a quoted string of the same text are the same value (the evaluator reads both as
//! a string). Pure; never looks at anything but the two trees.

use crate::syntax::ast::{Expr, ExprKind, Item, Program, StrLit, StrPart};

/// The two programs have the same items, in order, spans aside.
pub fn programs(a: &Program, b: &Program) -> bool {
    a.items.len() == b.items.len() && a.items.iter().zip(&b.items).all(|(x, y)| item(x, y))
}

fn item(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (
            Item::Let {
                name: n1,
                value: v1,
                ..
            },
            Item::Let {
                name: n2,
                value: v2,
                ..
            },
        ) => n1 == n2 && expr(v1, v2),
        (Item::Return { value: v1, .. }, Item::Return { value: v2, .. }) => match (v1, v2) {
            (None, None) => true,
            (Some(x), Some(y)) => expr(x, y),
            _ => false,
        },
        (Item::Expr(x), Item::Expr(y)) => expr(x, y),
        _ => false,
    }
}

fn strlit(a: &StrLit, b: &StrLit) -> bool {
    a.parts.len() == b.parts.len()
        && a.parts
            .iter()
            .zip(b.parts.iter())
            .all(|(x, y)| match (x, y) {
                (StrPart::Text(s), StrPart::Text(t)) => s == t,
                (StrPart::Var(s, _), StrPart::Var(t, _)) => s == t,
                _ => false,
            })
}

/// The two expressions are the same, spans aside.
pub fn expr(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    match (&a.kind, &b.kind) {
        (K::Str(x), K::Str(y)) => strlit(x, y),
        (K::Word(w), K::Str(s)) | (K::Str(s), K::Word(w)) => s.as_static().as_ref() == Some(w),
        (K::Word(x), K::Word(y)) | (K::Int(x), K::Int(y)) => x == y,
        (K::Tag(x), K::Tag(y)) | (K::Var(x), K::Var(y)) => x == y,
        (K::Bool(x), K::Bool(y)) => x == y,
        (K::Unit, K::Unit) => true,
        (K::List(x), K::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| expr(p, q)),
        (
            K::Record {
                spread: s1,
                fields: f1,
            },
            K::Record {
                spread: s2,
                fields: f2,
            },
        ) => {
            let spreads = match (s1, s2) {
                (None, None) => true,
                (Some(p), Some(q)) => expr(p, q),
                _ => false,
            };
            spreads
                && f1.len() == f2.len()
                && f1
                    .iter()
                    .zip(f2)
                    .all(|(p, q)| p.key.text == q.key.text && expr(&p.value, &q.value))
        }
        (K::Map(x), K::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| expr(&p.key, &q.key) && expr(&p.value, &q.value))
        }
        (K::Outside(x), K::Outside(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;

    fn same(a: &str, b: &str) -> bool {
        let (p, _) = crate::syntax::parse(FileId(0), a.as_bytes());
        let (q, _) = crate::syntax::parse(FileId(1), b.as_bytes());
        programs(&p, &q)
    }

    #[test]
    fn spans_and_spellings_aside() {
        assert!(same("[a: 'x']", "[\n  a: \"x\",\n]\n"));
        assert!(same("[a: x]", "[a: 'x']"));
        assert!(same("let v = [1]\n[a: $v]", "let v = [1];[a: $(v)]"));
    }

    #[test]
    fn differences_are_seen() {
        assert!(!same("[a: 'x']", "[a: 'y']"));
        assert!(!same("[a: 'x']", "[b: 'x']"));
        assert!(!same("[a, b]", "[b, a]"));
        assert!(!same("[a: 1]", "[:, a: 1]"));
        assert!(!same("['$x']", "[\"$x\"]"));
        assert!(!same("[x]\n[y]", "[x]"));
        assert!(!same("true", "'true'"));
    }
}
