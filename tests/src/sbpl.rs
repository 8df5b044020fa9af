//! A small reference reader of Seatbelt profiles, for tests only: it reads `.sbpl` text
//! into s-expressions (lists, atoms, `"…"` strings with `\"`/`\\` escapes, `#"…"` regex
//! literals, `;` comments) and checks the shape ralc's renderer promises: balanced, the
//! base first, every rule an `allow` or `deny` of known operations and filters, every
//! deny of an operation after every allow of it, and every deny tagged with one
//! `(with message TAG)`. It cannot prove macOS accepts a profile
//! (only `sandbox-exec` can); it proves the text is what the renderer meant to write.

use std::fmt;

/// One s-expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    Atom(String),
    Str(String),
    Regex(String),
    List(Vec<Sexp>),
}

impl fmt::Display for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom(a) => write!(f, "{a}"),
            Sexp::Str(s) => write!(f, "{s:?}"),
            Sexp::Regex(r) => write!(f, "#\"{r}\""),
            Sexp::List(v) => {
                write!(f, "(")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, " ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// Read every top-level form, or the first error with its line.
pub fn read(text: &str) -> Result<Vec<Sexp>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let mut stack: Vec<(Vec<Sexp>, usize)> = Vec::new();
    let mut top = Vec::new();
    let push = |stack: &mut Vec<(Vec<Sexp>, usize)>, top: &mut Vec<Sexp>, x: Sexp| match stack
        .last_mut()
    {
        Some((v, _)) => v.push(x),
        None => top.push(x),
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                stack.push((Vec::new(), line));
                i += 1;
            }
            ')' => {
                let Some((v, _)) = stack.pop() else {
                    return Err(format!("line {line}: an unmatched `)`"));
                };
                push(&mut stack, &mut top, Sexp::List(v));
                i += 1;
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(format!("line {line}: an unterminated string")),
                        Some('"') => break,
                        Some('\\') => match chars.get(i + 1) {
                            Some(e @ ('"' | '\\')) => {
                                s.push(*e);
                                i += 2;
                            }
                            _ => return Err(format!("line {line}: an unknown string escape")),
                        },
                        Some(c) if c.is_control() => {
                            return Err(format!("line {line}: a control character in a string"))
                        }
                        Some(c) => {
                            s.push(*c);
                            i += 1;
                        }
                    }
                }
                i += 1;
                push(&mut stack, &mut top, Sexp::Str(s));
            }
            '#' if chars.get(i + 1) == Some(&'"') => {
                let mut r = String::new();
                i += 2;
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(format!("line {line}: an unterminated regex"))
                        }
                        Some('"') => break,
                        // An escaped character (`\"` among them) stays in the regex as written.
                        Some('\\') if chars.get(i + 1).is_some_and(|c| *c != '\n') => {
                            r.push('\\');
                            r.push(chars[i + 1]);
                            i += 2;
                        }
                        Some(c) => {
                            r.push(*c);
                            i += 1;
                        }
                    }
                }
                i += 1;
                push(&mut stack, &mut top, Sexp::Regex(r));
            }
            _ => {
                let mut a = String::new();
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '(' | ')' | '"' | ';')
                {
                    a.push(chars[i]);
                    i += 1;
                }
                push(&mut stack, &mut top, Sexp::Atom(a));
            }
        }
    }
    if let Some((_, opened)) = stack.last() {
        return Err(format!("line {opened}: an unclosed `(`"));
    }
    Ok(top)
}

/// The operations a rendered rule may name.
pub const OPERATIONS: &[&str] = &[
    "default",
    "process-fork",
    "process-exec",
    "process-info*",
    "process-info-listpids",
    "signal",
    "sysctl-read",
    "file-read*",
    "file-read-metadata",
    "file-map-executable",
    "file-write*",
    "file-write-data",
    "file-write-unlink",
    "file-ioctl",
    "ipc-posix-shm",
    "ipc-posix-sem",
    "pseudo-tty",
    "mach-lookup",
    "mach-host*",
    "user-preference-read",
    "network*",
    "network-outbound",
    "network-inbound",
    "network-bind",
];

/// The filters a rendered rule may use.
pub const FILTERS: &[&str] = &[
    "literal",
    "subpath",
    "regex",
    "require-all",
    "require-not",
    "target",
    "global-name",
    "ioctl-command",
    "sysctl-name",
    "sysctl-name-prefix",
    "extension",
    "remote",
    "local",
];

/// A rule: its action, operations and filters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub allow: bool,
    pub ops: Vec<String>,
    /// The `(with message "…")` modifier's text, if the rule has one.
    pub message: Option<String>,
    pub filters: Vec<Sexp>,
}

/// Check the profile's shape and return its rules in order (the `version` form aside).
pub fn rules(text: &str) -> Result<Vec<Rule>, String> {
    let forms = read(text)?;
    let mut it = forms.iter();
    let version = it.next().map(|f| f.to_string());
    if version.as_deref() != Some("(version 1)") {
        return Err(format!("the first form is {version:?}, not (version 1)"));
    }
    let mut out = Vec::new();
    for f in it {
        let Sexp::List(v) = f else {
            return Err(format!("a top-level atom: {f}"));
        };
        let allow = match v.first() {
            Some(Sexp::Atom(a)) if a == "allow" => true,
            Some(Sexp::Atom(a)) if a == "deny" => false,
            _ => return Err(format!("not an allow or deny rule: {f}")),
        };
        let mut ops = Vec::new();
        let mut filters = Vec::new();
        let mut message = None;
        for x in &v[1..] {
            match x {
                Sexp::List(m) if m.first() == Some(&Sexp::Atom("with".into())) => {
                    match (&m[1..], &message, filters.is_empty()) {
                        ([Sexp::Atom(k), Sexp::Str(t)], None, true) if k == "message" => {
                            message = Some(t.clone());
                        }
                        _ => return Err(format!("a modifier other than one (with message \"…\") before the filters: {f}")),
                    }
                }
                Sexp::Atom(a) if filters.is_empty() => {
                    if !OPERATIONS.contains(&a.as_str()) {
                        return Err(format!("an unknown operation {a} in {f}"));
                    }
                    ops.push(a.clone());
                }
                Sexp::List(_) => {
                    check_filter(x)?;
                    filters.push(x.clone());
                }
                _ => return Err(format!("a stray {x} in {f}")),
            }
        }
        if ops.is_empty() {
            return Err(format!("a rule without an operation: {f}"));
        }
        out.push(Rule {
            allow,
            ops,
            message,
            filters,
        });
    }
    if out.first().map(|r| (r.allow, r.ops.as_slice()))
        != Some((false, &["default".to_string()][..]))
    {
        return Err("the second form is not (deny default)".to_string());
    }
    Ok(out)
}

fn check_filter(f: &Sexp) -> Result<(), String> {
    let Sexp::List(v) = f else {
        return Ok(());
    };
    match v.first() {
        Some(Sexp::Atom(name)) if FILTERS.contains(&name.as_str()) => {
            for x in &v[1..] {
                check_filter(x)?;
            }
            Ok(())
        }
        _ => Err(format!("an unknown filter {f}")),
    }
}

/// The one tag every deny carries (`(with message TAG)`), or the first rule that breaks
/// it: a deny without the tag, with another one, or an allow with a message.
pub fn denial_tag(rules: &[Rule]) -> Result<String, String> {
    let tag = match rules.first().and_then(|r| r.message.clone()) {
        Some(t) if !t.is_empty() => t,
        _ => return Err("(deny default) carries no (with message TAG)".to_string()),
    };
    for r in rules {
        let ok = if r.allow {
            r.message.is_none()
        } else {
            r.message.as_deref() == Some(tag.as_str())
        };
        if !ok {
            return Err(format!(
                "a rule of {} with the message {:?}, not the tag {tag:?} every deny carries",
                r.ops.join(" "),
                r.message
            ));
        }
    }
    Ok(tag)
}

/// Every deny of an operation comes after every allow of it (`default` aside).
pub fn denies_follow_allows(rules: &[Rule]) -> Result<(), String> {
    for (i, d) in rules.iter().enumerate().filter(|(_, r)| !r.allow) {
        for op in d.ops.iter().filter(|o| *o != "default") {
            if let Some(later) = rules[i + 1..]
                .iter()
                .find(|r| r.allow && r.ops.contains(op))
            {
                return Err(format!(
                    "an allow of {op} follows a deny of it: ({}) after ({})",
                    later
                        .filters
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                    d.filters
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_strings_regexes_and_comments() {
        let f = read("; c\n(allow file-read* (literal \"/a \\\"b\\\"\")) (deny process-exec (regex #\"/x$\"))").unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[0].to_string(),
            "(allow file-read* (literal \"/a \\\"b\\\"\"))"
        );
        assert_eq!(
            f[1],
            Sexp::List(vec![
                Sexp::Atom("deny".into()),
                Sexp::Atom("process-exec".into()),
                Sexp::List(vec![Sexp::Atom("regex".into()), Sexp::Regex("/x$".into())]),
            ])
        );
    }

    #[test]
    fn reports_unbalanced_and_unterminated_text() {
        assert!(read("(allow (x)").unwrap_err().contains("unclosed"));
        assert!(read("(allow))").unwrap_err().contains("unmatched"));
        assert!(read("(literal \"abc)")
            .unwrap_err()
            .contains("unterminated"));
        assert!(read("(regex #\"abc\n\")")
            .unwrap_err()
            .contains("unterminated"));
    }

    #[test]
    fn checks_the_shape_and_the_precedence() {
        let ok = "(version 1)(deny default)(allow file-read* (subpath \"/a\"))(deny file-read* (subpath \"/a/b\"))";
        let r = rules(ok).unwrap();
        assert!(denies_follow_allows(&r).is_ok());
        let bad = "(version 1)(deny default)(deny file-read* (subpath \"/a/b\"))(allow file-read* (subpath \"/a\"))";
        assert!(denies_follow_allows(&rules(bad).unwrap()).is_err());
        assert!(rules("(version 1)(deny default)(allow file-frobnicate)").is_err());
        assert!(rules("(version 1)(deny default)(allow file-read* (pathname \"/\"))").is_err());
        assert!(rules("(version 2)(deny default)").is_err());
    }

    #[test]
    fn reads_the_tag_and_checks_every_deny_carries_it() {
        let ok = "(version 1)(deny default (with message \"t1\"))(allow file-read* (subpath \"/a\"))(deny file-read* (with message \"t1\") (subpath \"/a/b\"))";
        let r = rules(ok).unwrap();
        assert_eq!(r[2].message.as_deref(), Some("t1"));
        assert_eq!(denial_tag(&r).unwrap(), "t1");
        for bad in [
            "(version 1)(deny default)",
            "(version 1)(deny default (with message \"t1\"))(deny file-read* (subpath \"/a\"))",
            "(version 1)(deny default (with message \"t1\"))(deny file-read* (with message \"t2\") (subpath \"/a\"))",
            "(version 1)(deny default (with message \"t1\"))(allow file-read* (with message \"t1\") (subpath \"/a\"))",
        ] {
            assert!(denial_tag(&rules(bad).unwrap()).is_err(), "{bad}");
        }
        // A modifier after a filter, twice, or of another kind is not read.
        for bad in [
            "(version 1)(deny default (with message \"t\") (with message \"t\"))",
            "(version 1)(deny file-read* (subpath \"/a\") (with message \"t\"))",
            "(version 1)(deny default (with no-report))",
        ] {
            assert!(rules(bad).is_err(), "{bad}");
        }
    }
}
