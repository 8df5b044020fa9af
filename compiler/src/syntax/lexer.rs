//! The lexer of spec §1.1 (logos): bytes of valid UTF-8 text to tokens with byte spans.
//! Strings are decoded here (escapes, interpolation parts); every malformed form becomes
//! a diagnostic and the lexer carries on. It must never panic and never read anything but
//! the text it is given.

use super::ast::{StrLit, StrPart};
use super::codes;
use crate::diag::escape::{clip, MAX_ECHO};
use crate::diag::{Diagnostic, FileId, Span};
use logos::Logos;

/// One token. Keywords are recognised from words after lexing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tok {
    Newline,
    Semi,
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    /// `!{`
    BangBrace,
    Comma,
    Colon,
    Eq,
    Pipe,
    Amp,
    Lt,
    Gt,
    Spread,
    /// `$name` or `$(name)`.
    Var(String),
    /// `$name[` with no space: an index (`$ENV[…]`); the `[` is part of the token.
    VarIndex(String),
    Word(String),
    Int(String),
    True,
    False,
    Let,
    Return,
    /// `if`, `else`, `case`, `fn`, `grant`, `within`, `try`.
    Reserved(&'static str),
    /// `` `name ``
    Tag(String),
    Str(StrLit),
    /// A malformed token already reported.
    Error,
}

impl Tok {
    /// How the token is named in "expected …" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Newline => "a newline".into(),
            Tok::Semi => "`;`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::BangBrace => "`!{`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Pipe => "`|`".into(),
            Tok::Amp => "`&`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Spread => "`...`".into(),
            Tok::Var(n) => format!("`${}`", clip(n, MAX_ECHO)),
            Tok::VarIndex(n) => format!("`${}[`", clip(n, MAX_ECHO)),
            Tok::Word(w) => format!("word `{}`", clip(w, MAX_ECHO)),
            Tok::Int(i) => format!("integer `{}`", clip(&i.to_string(), MAX_ECHO)),
            Tok::True => "`true`".into(),
            Tok::False => "`false`".into(),
            Tok::Let => "`let`".into(),
            Tok::Return => "`return`".into(),
            Tok::Reserved(k) => format!("`{}`", clip(k, MAX_ECHO)),
            Tok::Tag(t) => format!("tag `` `{} ``", clip(t, MAX_ECHO)),
            Tok::Str(_) => "a string".into(),
            Tok::Error => "a malformed token".into(),
        }
    }
}

/// What a string callback found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    Closed,
    Unterminated,
}

#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\x0C]+")]
enum Raw {
    #[token("\n")]
    Newline,
    #[token(";")]
    Semi,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("!{")]
    BangBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("=")]
    Eq,
    #[token("|")]
    Pipe,
    #[token("&")]
    Amp,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("...", priority = 10)]
    Spread,
    #[regex(r"\$[A-Za-z_][A-Za-z0-9_]*")]
    Var,
    #[regex(r"\$\([A-Za-z_][A-Za-z0-9_]*\)")]
    VarParen,
    #[regex(r"\$[A-Za-z_][A-Za-z0-9_]*\[")]
    VarIndex,
    #[token("$")]
    Dollar,
    #[regex(r"-?[0-9]+", priority = 5)]
    Int,
    #[regex(r#"[^\s\x00-\x1F\x7F\[\](){},:;|&<>'"`$#!=][^\s\x00-\x1F\x7F\[\](){},;|&<>'"`$]*"#)]
    Word,
    #[regex(r"`[A-Za-z_][A-Za-z0-9_]*")]
    Tag,
    #[token("`")]
    Backtick,
    #[token("'", literal)]
    Literal(Scan),
    #[token("\"", interpolating)]
    Interp(Scan),
    /// `#`: a comment, or a run of `#` then `'` opening a raw string.
    #[token("#", hash)]
    Hash(HashKind),
    /// A `!` that opens no `!{`: with the word glued to it, one error.
    #[regex(r#"![^\s\x00-\x1F\x7F\[\](){},;|&<>'"`${]*"#)]
    Bang,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HashKind {
    Comment,
    Raw { hashes: usize, scan: Scan },
}

fn literal(lex: &mut logos::Lexer<Raw>) -> Scan {
    let rest = lex.remainder();
    match rest.find('\'') {
        Some(i) => {
            lex.bump(i + 1);
            Scan::Closed
        }
        None => {
            lex.bump(rest.len());
            Scan::Unterminated
        }
    }
}

fn interpolating(lex: &mut logos::Lexer<Raw>) -> Scan {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b'"' => {
                lex.bump(i + 1);
                return Scan::Closed;
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    Scan::Unterminated
}

fn hash(lex: &mut logos::Lexer<Raw>) -> HashKind {
    let rest = lex.remainder();
    let more = rest.bytes().take_while(|b| *b == b'#').count();
    if rest.as_bytes().get(more) == Some(&b'\'') {
        let hashes = more + 1;
        let body = &rest[more + 1..];
        let fence: String = std::iter::once('\'')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        match body.find(&fence) {
            Some(i) => {
                lex.bump(more + 1 + i + fence.len());
                HashKind::Raw {
                    hashes,
                    scan: Scan::Closed,
                }
            }
            None => {
                lex.bump(rest.len());
                HashKind::Raw {
                    hashes,
                    scan: Scan::Unterminated,
                }
            }
        }
    } else {
        let end = rest.find('\n').unwrap_or(rest.len());
        lex.bump(end);
        HashKind::Comment
    }
}

/// Lex `text` (already known to be UTF-8). Spans are byte offsets into `text`.
pub fn lex(file: FileId, text: &str) -> (Vec<(Tok, Span)>, Vec<Diagnostic>) {
    let (tokens, _comments, diags) = lex_with_comments(file, text);
    (tokens, diags)
}

/// [`lex`], also giving the span of every comment (from its `#` to the end of its line,
/// the newline excluded), in order: the trivia the formatter keeps. The parser never
/// sees them.
pub fn lex_with_comments(
    file: FileId,
    text: &str,
) -> (Vec<(Tok, Span)>, Vec<Span>, Vec<Diagnostic>) {
    let mut out: Vec<(Tok, Span)> = Vec::new();
    let mut comments: Vec<Span> = Vec::new();
    let mut diags = Vec::new();
    let mut lexer = Raw::lexer(text);
    // Coalesce runs of unexpected characters into one diagnostic.
    let mut bad_run: Option<(usize, usize)> = None;
    while let Some(res) = lexer.next() {
        let r = lexer.span();
        let raw = match res {
            Ok(raw) => raw,
            Err(()) => {
                bad_run = match bad_run {
                    Some((s, e)) if e == r.start => Some((s, r.end)),
                    other => {
                        let mut o = other;
                        flush_bad_run(file, text, &mut o, &mut diags);
                        Some((r.start, r.end))
                    }
                };
                continue;
            }
        };
        flush_bad_run(file, text, &mut bad_run, &mut diags);
        if raw == Raw::Hash(HashKind::Comment) {
            comments.push(Span::new(file, r.start, r.end));
            continue;
        }
        token(file, text, raw, lexer.slice(), r, &mut out, &mut diags);
    }
    flush_bad_run(file, text, &mut bad_run, &mut diags);
    (out, comments, diags)
}

/// A run of unexpected characters, as one E0102.
fn flush_bad_run(
    file: FileId,
    text: &str,
    bad: &mut Option<(usize, usize)>,
    diags: &mut Vec<Diagnostic>,
) {
    if let Some((s, e)) = bad.take() {
        let shown: String = text[s..e].chars().take(16).collect();
        diags.push(
            Diagnostic::error(
                codes::E0102,
                format!(
                    "unexpected character{} `{}`",
                    if text[s..e].chars().count() > 1 {
                        "s"
                    } else {
                        ""
                    },
                    shown.escape_debug()
                ),
            )
            .at(Span::new(file, s, e))
            .with_help("quote text that carries punctuation: 'like this'"),
        );
    }
}

/// The token(s) of one raw match `slice` at `r`, pushed to `out` (none for a comment),
/// and its diagnostics.
fn token(
    file: FileId,
    text: &str,
    raw: Raw,
    slice: &str,
    r: std::ops::Range<usize>,
    out: &mut Vec<(Tok, Span)>,
    diags: &mut Vec<Diagnostic>,
) {
    let sp = Span::new(file, r.start, r.end);
    let tok = match raw {
        Raw::Newline => Tok::Newline,
        Raw::Semi => Tok::Semi,
        Raw::LBracket => Tok::LBracket,
        Raw::RBracket => Tok::RBracket,
        Raw::LParen => Tok::LParen,
        Raw::RParen => Tok::RParen,
        Raw::LBrace => Tok::LBrace,
        Raw::RBrace => Tok::RBrace,
        Raw::BangBrace => Tok::BangBrace,
        Raw::Comma => Tok::Comma,
        Raw::Colon => Tok::Colon,
        Raw::Eq => Tok::Eq,
        Raw::Pipe => Tok::Pipe,
        Raw::Amp => Tok::Amp,
        Raw::Lt => Tok::Lt,
        Raw::Gt => Tok::Gt,
        Raw::Spread => Tok::Spread,
        Raw::Var => Tok::Var(slice[1..].to_string()),
        Raw::VarParen => Tok::Var(slice[2..slice.len() - 1].to_string()),
        Raw::VarIndex => Tok::VarIndex(slice[1..slice.len() - 1].to_string()),
        Raw::Dollar => {
            diags.push(
                Diagnostic::error(codes::E0109, "`$` is not followed by a name")
                    .at(sp)
                    .with_help("write `$name` or `$(name)`, or quote a literal dollar: '$'"),
            );
            Tok::Error
        }
        Raw::Int => Tok::Int(slice.to_string()),
        Raw::Word => {
            // `:` is key punctuation before white space, `]` or the end: split it off.
            let next = text.as_bytes().get(r.end).copied();
            let colon_ends = slice.len() > 1
                && slice.ends_with(':')
                && matches!(next, None | Some(b' ' | b'\t' | b'\r' | b'\n' | b']'));
            if colon_ends {
                let w = &slice[..slice.len() - 1];
                out.push((word_tok(w), Span::new(file, r.start, r.end - 1)));
                out.push((Tok::Colon, Span::new(file, r.end - 1, r.end)));
                return;
            }
            word_tok(slice)
        }
        Raw::Tag => Tok::Tag(slice[1..].to_string()),
        Raw::Backtick => {
            diags.push(
                Diagnostic::error(codes::E0102, "a backtick must be followed by a tag name")
                    .at(sp)
                    .with_help("a tag is written `` `offline ``"),
            );
            Tok::Error
        }
        Raw::Literal(scan) => {
            if scan == Scan::Unterminated {
                diags.push(unterminated(file, r.start, 1, "'"));
                Tok::Error
            } else {
                Tok::Str(StrLit::literal(&slice[1..slice.len() - 1]))
            }
        }
        Raw::Hash(HashKind::Comment) => return,
        Raw::Hash(HashKind::Raw { hashes, scan }) => {
            if scan == Scan::Unterminated {
                let open: String = "#".repeat(hashes) + "'";
                diags.push(unterminated(file, r.start, hashes + 1, &open));
                Tok::Error
            } else {
                Tok::Str(StrLit::literal(
                    &slice[hashes + 1..slice.len() - hashes - 1],
                ))
            }
        }
        Raw::Interp(scan) => {
            if scan == Scan::Unterminated {
                diags.push(unterminated(file, r.start, 1, "\""));
                Tok::Error
            } else {
                let (lit, mut d) =
                    decode_interpolating(file, &slice[1..slice.len() - 1], r.start + 1);
                let bad = !d.is_empty();
                diags.append(&mut d);
                if bad {
                    Tok::Error
                } else {
                    Tok::Str(lit)
                }
            }
        }
        Raw::Bang => {
            diags.push(
                Diagnostic::error(
                    codes::E0102,
                    format!("unexpected `{}`", clip(slice, MAX_ECHO).escape_debug()),
                )
                .at(sp)
                .with_help("quote text that carries punctuation: '!'"),
            );
            Tok::Error
        }
    };
    out.push((tok, sp));
}

fn unterminated(file: FileId, start: usize, len: usize, open: &str) -> Diagnostic {
    Diagnostic::error(
        codes::E0103,
        format!("unterminated string: `{open}` is never closed"),
    )
    .at(Span::new(file, start, start + len))
    .with_help("close the string; a literal '…' may span lines but must end")
}

fn word_tok(w: &str) -> Tok {
    match w {
        "let" => Tok::Let,
        "return" => Tok::Return,
        "true" => Tok::True,
        "false" => Tok::False,
        "if" => Tok::Reserved("if"),
        "else" => Tok::Reserved("else"),
        "case" => Tok::Reserved("case"),
        "fn" => Tok::Reserved("fn"),
        "grant" => Tok::Reserved("grant"),
        "within" => Tok::Reserved("within"),
        "try" => Tok::Reserved("try"),
        _ => Tok::Word(w.to_string()),
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Decode the body of a `"…"` string starting at byte `base`: escapes and `$name` parts.
pub fn decode_interpolating(file: FileId, body: &str, base: usize) -> (StrLit, Vec<Diagnostic>) {
    let mut d = Decoder {
        file,
        base,
        len: body.len(),
        chars: body.char_indices().collect(),
        parts: Vec::new(),
        text: String::new(),
        diags: Vec::new(),
    };
    let mut i = 0;
    while i < d.chars.len() {
        let (_, c) = d.chars[i];
        i = match c {
            '\\' => match d.escape(i) {
                Some(next) => next,
                None => break,
            },
            '$' => d.var(i),
            _ => {
                d.text.push(c);
                i + 1
            }
        };
    }
    if !d.text.is_empty() || d.parts.is_empty() {
        d.parts.push(StrPart::Text(d.text));
    }
    (
        StrLit {
            parts: d.parts.into(),
        },
        d.diags,
    )
}

/// The state of one `"…"` body being decoded.
struct Decoder {
    file: FileId,
    /// The byte offset of the body in the file.
    base: usize,
    /// The body's length in bytes.
    len: usize,
    chars: Vec<(usize, char)>,
    parts: Vec<StrPart>,
    /// The text since the last part.
    text: String,
    diags: Vec<Diagnostic>,
}

impl Decoder {
    /// The byte offset (in the body) of the `i`th character, or the end.
    fn at(&self, i: usize) -> usize {
        self.chars.get(i).map(|(o, _)| *o).unwrap_or(self.len)
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.chars.get(i).map(|c| c.1)
    }

    fn error(&mut self, message: impl Into<String>, from: usize, to: usize) -> &mut Diagnostic {
        self.diags
            .push(Diagnostic::error(codes::E0104, message).at(Span::new(
                self.file,
                self.base + from,
                self.base + to,
            )));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    /// The escape at the backslash `i`: where decoding goes on, or `None` at a backslash
    /// that ends the string.
    fn escape(&mut self, i: usize) -> Option<usize> {
        let off = self.chars[i].0;
        let Some(e) = self.char_at(i + 1) else {
            self.error("a backslash at the end of a string", off, off + 1);
            return None;
        };
        let simple = match e {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            '\\' => Some('\\'),
            '0' => Some('\0'),
            'e' => Some('\u{1b}'),
            '"' => Some('"'),
            '$' => Some('$'),
            '!' => Some('!'),
            _ => None,
        };
        Some(if let Some(s) = simple {
            self.text.push(s);
            i + 2
        } else if e == '\n' {
            // backslash-newline: a line continuation.
            i + 2
        } else if e == 'x' {
            self.hex_escape(i)
        } else if e == 'u' {
            self.unicode_escape(i)
        } else {
            let end = self.at(i + 2);
            let d = self.error(format!("unknown escape `\\{}`", e.escape_debug()), off, end);
            d.help = Some("the escapes are \\n \\r \\t \\\\ \\0 \\e \\\" \\$ \\! \\xNN \\u{…}; use '…' for text without escapes".to_string());
            i + 2
        })
    }

    /// `\xNN` at the backslash `i`: an ASCII byte.
    fn hex_escape(&mut self, i: usize) -> usize {
        let off = self.chars[i].0;
        let hex: String = self
            .chars
            .iter()
            .skip(i + 2)
            .take(2)
            .map(|(_, c)| *c)
            .collect();
        match (hex.len() == 2)
            .then(|| u8::from_str_radix(&hex, 16).ok())
            .flatten()
        {
            Some(v) if v < 0x80 => {
                self.text.push(v as char);
                i + 4
            }
            _ => {
                let end = self.at(i + 2 + hex.chars().count());
                self.error(
                    "`\\x` takes two hex digits of an ASCII byte (00–7F)",
                    off,
                    end,
                );
                i + 2
            }
        }
    }

    /// `\u{…}` at the backslash `i`: a Unicode scalar value.
    fn unicode_escape(&mut self, i: usize) -> usize {
        let off = self.chars[i].0;
        let mut j = i + 2;
        let mut ok = None;
        if self.char_at(j) == Some('{') {
            j += 1;
            let mut hex = String::new();
            while let Some(h) = self.char_at(j) {
                if h == '}' {
                    break;
                }
                hex.push(h);
                j += 1;
            }
            if self.char_at(j) == Some('}') && !hex.is_empty() && hex.len() <= 6 {
                ok = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
            }
        }
        match ok {
            Some(ch) => {
                self.text.push(ch);
                j + 1
            }
            None => {
                let end = self.at((j + 1).min(self.chars.len()));
                self.error(
                    "`\\u` takes a Unicode scalar value in braces, `\\u{1F600}`",
                    off,
                    end,
                );
                i + 2
            }
        }
    }

    /// The name from the character `j` on, and where it ends.
    fn name_from(&self, mut j: usize) -> (String, usize) {
        let mut n = String::new();
        while let Some(h) = self.char_at(j) {
            if !is_name_char(h) {
                break;
            }
            n.push(h);
            j += 1;
        }
        (n, j)
    }

    /// `$name` or `$(name)` at the dollar `i`: a part, or E0109; where decoding goes on.
    fn var(&mut self, i: usize) -> usize {
        let off = self.chars[i].0;
        let (name, next) = if self.char_at(i + 1) == Some('(') {
            let (n, j) = self.name_from(i + 2);
            if self.char_at(j) == Some(')') && n.starts_with(is_name_start) {
                (Some(n), j + 1)
            } else {
                (None, j)
            }
        } else {
            let (n, j) = self.name_from(i + 1);
            if n.starts_with(is_name_start) {
                (Some(n), j)
            } else {
                (None, i + 1)
            }
        };
        let span = Span::new(self.file, self.base + off, self.base + self.at(next));
        match name {
            Some(n) => {
                if !self.text.is_empty() {
                    self.parts
                        .push(StrPart::Text(std::mem::take(&mut self.text)));
                }
                self.parts.push(StrPart::Var(n, span));
            }
            None => self.diags.push(
                Diagnostic::error(codes::E0109, "`$` in a string is not followed by a name")
                    .at(span)
                    .with_help("write `$name` or `$(name)`; escape a literal dollar as `\\$`"),
            ),
        }
        next.max(i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let (t, d) = lex(FileId(0), s);
        assert!(d.is_empty(), "{d:?}");
        t.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn colon_splits_only_before_space_bracket_or_end() {
        assert_eq!(
            toks("git: x"),
            vec![Tok::Word("git".into()), Tok::Colon, Tok::Word("x".into())]
        );
        assert_eq!(
            toks("localhost:5432"),
            vec![Tok::Word("localhost:5432".into())]
        );
        assert_eq!(
            toks("[a:]"),
            vec![
                Tok::LBracket,
                Tok::Word("a".into()),
                Tok::Colon,
                Tok::RBracket
            ]
        );
    }

    #[test]
    fn comments_and_raw_strings() {
        assert_eq!(toks("# c\nx"), vec![Tok::Newline, Tok::Word("x".into())]);
        assert_eq!(toks("##'it's'##"), vec![Tok::Str(StrLit::literal("it's"))]);
        assert_eq!(
            toks("[#'a'#]"),
            vec![Tok::LBracket, Tok::Str(StrLit::literal("a")), Tok::RBracket]
        );
        assert_eq!(toks("a#b"), vec![Tok::Word("a#b".into())]);
    }

    #[test]
    fn comments_are_kept_as_trivia() {
        let text = "#!/usr/bin/env ral\n[a, # one\n b] # two\n#'raw'#\n";
        let (t, c, d) = lex_with_comments(FileId(0), text);
        assert!(d.is_empty(), "{d:?}");
        let got: Vec<&str> = c.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(got, vec!["#!/usr/bin/env ral", "# one", "# two"]);
        let raw = text.find("#'raw").unwrap_or(0);
        let span = Span::new(FileId(0), raw, raw + "#'raw'#".len());
        assert!(
            t.contains(&(Tok::Str(StrLit::literal("raw")), span)),
            "{t:?}"
        );
    }

    #[test]
    fn escapes_and_interpolation() {
        let t = toks(r#""a\tb$x-$(y)z""#);
        let Tok::Str(s) = &t[0] else { panic!("{t:?}") };
        assert_eq!(s.parts.len(), 5);
        assert_eq!(s.parts[0], StrPart::Text("a\tb".into()));
        let (_, d) = lex(FileId(0), r#""\q""#);
        assert_eq!(d[0].code, "E0104");
    }

    #[test]
    fn unterminated_at_opening_quote() {
        let (_, d) = lex(FileId(0), "x 'abc\n");
        assert_eq!(d[0].code, "E0103");
        assert_eq!(d[0].span.map(|s| (s.start, s.end)), Some((2, 3)));
    }
}
#[cfg(test)]
mod spread_tests {
    use super::*;
    #[test]
    fn spread_token() {
        let (t, d) = lex(FileId(0), "['/x', ...$b]");
        assert!(d.is_empty());
        let t: Vec<_> = t.into_iter().map(|t| t.0).collect();
        assert_eq!(t[3], Tok::Spread, "{t:?}");
    }
}
