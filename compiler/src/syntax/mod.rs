//! The front end's syntax: the lexer (logos) and the recovering parser (chumsky) of
//! spec §1.1, producing an AST with byte spans. It never panics, whatever the bytes:
//! text that is not UTF-8 is one diagnostic, not a crash.

pub mod ast;
pub mod codes;
pub mod lexer;
pub mod parser;

use crate::diag::{Diagnostic, FileId, Span};

/// Parse a file's bytes. Never fails: every problem is a diagnostic, and the program
/// holds what could be recovered.
pub fn parse(file: FileId, bytes: &[u8]) -> (ast::Program, Vec<Diagnostic>) {
    let (program, _comments, diags) = parse_with_comments(file, bytes);
    (program, diags)
}

/// [`parse`], also giving the span of every comment in order (the lexer's trivia, which
/// the tree does not hold): what `format` needs to keep comments in place.
pub fn parse_with_comments(
    file: FileId,
    bytes: &[u8],
) -> (ast::Program, Vec<Span>, Vec<Diagnostic>) {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let bad = e.error_len().unwrap_or(bytes.len() - at).max(1);
            let d = Diagnostic::error(codes::E0101, "the profile is not valid UTF-8 text")
                .at(Span::new(file, at, (at + bad).min(bytes.len())))
                .with_help("a profile is UTF-8 text; is this a binary file?");
            return (
                ast::Program {
                    items: Vec::new(),
                    span: Span::new(file, 0, bytes.len()),
                },
                Vec::new(),
                vec![d],
            );
        }
    };
    let (tokens, comments, mut diags) = lexer::lex_with_comments(file, text);
    let (program, mut more) = parser::parse_tokens(file, tokens, bytes.len());
    diags.append(&mut more);
    crate::diag::sort(&mut diags);
    (program, comments, diags)
}

/// How far `file` may be quoted given its syntax diagnostics among `diags`: only what
/// lexed and parsed as a profile, up to the end of its first lexing or parsing error (the
/// offending character or token is shown, which the message names anyway; what follows
/// is not: it may not be a profile at all, as a `.git/config` is not). `None` when the
/// file has no such error.
pub fn quote_limit(file: FileId, diags: &[Diagnostic]) -> Option<usize> {
    diags
        .iter()
        .filter(|d| {
            let code = d.code.as_str();
            codes::LEX_CODES.contains(&code) || codes::PARSE_CODES.contains(&code)
        })
        .filter_map(|d| d.span.filter(|s| s.file == file))
        .min_by_key(|s| s.start)
        .map(|s| s.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_profiles_parse_clean() {
        for (name, src) in crate::std_profiles::ALL {
            let (_, d) = parse(FileId(0), src.as_bytes());
            assert!(d.is_empty(), "{name}: {d:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_a_diagnostic() {
        let (_, d) = parse(FileId(0), b"[a: \xff]");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, "E0101");
    }

    #[test]
    fn recovers_inside_brackets_and_across_items() {
        let (_, d) = parse(
            FileId(0),
            b"let a = [x: 1 y: 2]\nlet b = [p: , q: ]\n[git: 'allow' bash: 'deny']\n",
        );
        let lines: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert!(d.len() >= 3, "{lines:?} {d:?}");
    }
}
