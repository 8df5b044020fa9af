//! Escaping of user-derived text, in one place, for every format. A diagnostic's message,
//! labels, help and notes, a file's name, and an answer's subject may carry text from a
//! profile, a path or a questions file; before any renderer prints it, every control
//! character (C0 including newline and tab, DEL, C1), every bidi override or isolate and
//! every line or paragraph separator is shown as `\u{…}`. So no message can start a line,
//! a CI workflow command (`::error …`) or a terminal sequence, whatever the format.
//!
//! Pure; it must never drop or reorder the visible characters it is given, and applying
//! it twice gives what applying it once gave.

use super::{Diagnostic, Label};
use std::borrow::Cow;

/// Whether `c` must not reach an output as itself.
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
                | '\u{2028}' | '\u{2029}'
        )
}

/// `s` with every hazard shown as `\u{…}` (borrowed when there is none).
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hazard) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hazard(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Serialized JSON (or SARIF) with every hazard ([`is_hazard`]) written as a `\uXXXX`
/// escape: the one escaping rule of every machine format. JSON lets a string hold a C1
/// control or a bidi override raw (only C0 must be escaped), and a viewer or a `cat` of
/// the file would then reorder the text or start a terminal sequence. In well-formed
/// JSON a hazard can only stand inside a string (outside, only space, tab and line
/// breaks may), so the escape keeps the document valid and its values the same; the
/// structural whitespace (`\n`, `\r`, `\t`) is kept. Every hazard is in the Basic
/// Multilingual Plane, so one `\uXXXX` spells it.
pub fn json(s: String) -> String {
    let raw = |c: char| is_hazard(c) && !matches!(c, '\n' | '\r' | '\t');
    if !s.chars().any(raw) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if raw(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Text of many lines with every line escaped ([`text`]) and its line breaks kept: for
/// output whose lines come from a file's own lines (`fmt --check`'s unified diff), so no
/// comment it quotes can send a terminal sequence. (A field that may hold a newline is
/// escaped with [`text`] before it is joined into a report.)
pub fn lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&text(line));
    }
    out
}

/// The longest fragment of input a message echoes, in characters.
pub const MAX_ECHO: usize = 32;

/// A bounded prefix of an echoed fragment (a found word, a batch line): at most `max`
/// characters, then `…`.
pub fn clip(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// A diagnostic with every text field escaped (its code and spans unchanged).
pub fn diagnostic(d: &Diagnostic) -> Diagnostic {
    Diagnostic {
        code: text(&d.code).into_owned(),
        severity: d.severity,
        message: text(&d.message).into_owned(),
        span: d.span,
        labels: d
            .labels
            .iter()
            .map(|l| Label {
                span: l.span,
                message: text(&l.message).into_owned(),
            })
            .collect(),
        help: d.help.as_deref().map(|h| text(h).into_owned()),
        notes: d.notes.iter().map(|n| text(n).into_owned()).collect(),
    }
}

/// Every diagnostic escaped, in order: what each renderer formats.
pub fn diagnostics(ds: &[Diagnostic]) -> Vec<Diagnostic> {
    ds.iter().map(diagnostic).collect()
}

/// A source text for display: each hazard replaced by ONE visible character (a control
/// picture for C0 and DEL, `�` for the rest), so character offsets are kept and spans
/// still point where they did. Newlines and tabs are kept: they shape the quoted lines.
pub fn source_for_display(s: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t';
    if !s.chars().any(|c| is_hazard(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(display_char(c, chars.peek().copied()));
    }
    Cow::Owned(out)
}

/// The one character `c` is shown as in a quoted source, `next` the character after it:
/// itself, unless it is a hazard other than a newline, a tab or a CRLF's carriage return.
pub fn display_char(c: char, next: Option<char>) -> char {
    match c {
        // a CRLF line end stays one
        '\r' if next == Some('\n') => c,
        '\n' | '\t' => c,
        c if !is_hazard(c) => c,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        _ => '\u{fffd}',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_are_shown_not_sent() {
        let s = "a\n::error ::x\u{1b}[31m\u{9b}\u{202e}\u{0}b";
        let e = text(s);
        assert_eq!(e, "a\\u{a}::error ::x\\u{1b}[31m\\u{9b}\\u{202e}\\u{0}b");
        assert!(!e.chars().any(is_hazard));
        assert_eq!(text(&e), e, "idempotent");
        assert!(matches!(text("plain `text` ü"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_escapes_every_hazard_and_stays_the_same_value() {
        let v = serde_json::json!({ "s": "a\u{202e}b\u{9b}c\u{1b}d\u{2066}e\u{7f}\n" });
        let pretty = format!("{v:#}");
        assert!(pretty.contains('\u{202e}'), "serde_json leaves bidi raw");
        let out = json(pretty);
        assert!(!out.chars().any(|c| is_hazard(c) && c != '\n'), "{out:?}");
        assert!(out.contains("\\u202e") && out.contains("\\u009b"), "{out}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
        assert_eq!(json(out.clone()), out);
    }

    #[test]
    fn lines_keeps_breaks_and_shows_the_rest() {
        let s = "+# a \u{1b}]8;;x\u{7}\u{202e}\n-b\r\n";
        assert_eq!(lines(s), "+# a \\u{1b}]8;;x\\u{7}\\u{202e}\n-b\\u{d}\n");
    }

    #[test]
    fn clip_bounds_an_echo() {
        assert_eq!(clip("short", 8), "short");
        assert_eq!(clip("ünïcödé-long-word", 4), "ünïc…");
    }

    #[test]
    fn display_source_keeps_offsets() {
        let s = "[a: 'x\u{1b}y\r\u{202e}']\r\n\tz";
        let d = source_for_display(s);
        assert_eq!(d.chars().count(), s.chars().count());
        assert_eq!(d, "[a: 'x\u{241b}y\u{240d}\u{fffd}']\r\n\tz");
    }
}
