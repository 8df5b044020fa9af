//! The front end's syntax: the lexer (logos) and the recovering parser (chumsky) of
//! spec §1.1, producing an AST with byte spans. It never panics, whatever the bytes:
//! text that is not UTF-8 is one diagnostic, not a crash.

pub mod ast;
pub mod lexer;
pub mod parser;

use crate::diag::codes::CodeInfo;
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
            let d = Diagnostic::error("E0101", "the profile is not valid UTF-8 text")
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

/// The codes of lexing errors: past the first of them, a file is never quoted (it may
/// not be a profile at all; see `SourceMap::limit_quoting`).
pub const LEX_CODES: &[&str] = &["E0101", "E0102", "E0103", "E0104", "E0109"];

/// The end of the first lexing error among `diags` for `file`, if there is one.
pub fn first_lex_error_end(file: FileId, diags: &[Diagnostic]) -> Option<usize> {
    diags
        .iter()
        .filter(|d| LEX_CODES.contains(&d.code.as_str()))
        .filter_map(|d| d.span.filter(|s| s.file == file))
        .min_by_key(|s| s.start)
        .map(|s| s.end)
}

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "E0100",
        title: "the profile cannot be read",
        meaning: "A layer named on the command line (or a `why --batch` questions file) is not a readable file (it does not exist, permission is refused, it is not a regular file — a FIFO, a device, a directory —, it lives on a kernel interface file system such as `/proc`, it is larger than 1 MiB, or it is a relative name whose link leads outside the directory tree it was named from, without `--allow-outside-links`), or `std:NAME` names no standard profile. It is reported against the name, and the other layers are still checked.",
        example: "ralc check no-such-file.ral",
        fix: "Name a readable `.ral` file, or one of the standard profiles (`std:minimal`, `std:reasonable`, `std:dangerous`).",
    },
    CodeInfo {
        code: "E0101",
        title: "the profile is not valid UTF-8",
        meaning: "A profile is UTF-8 text. The file holds a byte sequence that is not UTF-8 (often a binary file named by mistake); nothing else in it is read.",
        example: "(a file holding the bytes C3 28: not UTF-8)",
        fix: "Save the profile as UTF-8, or name the right file.",
    },
    CodeInfo {
        code: "E0102",
        title: "unexpected character",
        meaning: "A character that starts no token of the language (such as a lone `!` or a control character) appears outside a string.",
        example: "[exec: [git: 'allow']] \u{1}",
        fix: "Quote text that carries punctuation ('like this'), or delete the stray character.",
    },
    CodeInfo {
        code: "E0103",
        title: "unterminated string",
        meaning: "A string opened with `'`, `\"` or a hash fence `#'` is never closed. It is reported at its opening quote.",
        example: "[exec: [git: 'allow]]",
        fix: "Close the string with the same quote (and the same number of `#` for a raw string).",
    },
    CodeInfo {
        code: "E0104",
        title: "unknown or malformed escape",
        meaning: "Inside \"…\" the escapes are \\n \\r \\t \\\\ \\0 \\e \\\" \\$ \\! \\xNN (ASCII) \\u{X…} and backslash-newline; any other backslash sequence is an error.",
        example: "[exec: [\"gi\\qt\": 'allow']]",
        fix: "Use a known escape, or a literal string '…' where backslashes mean themselves.",
    },
    CodeInfo {
        code: "E0105",
        title: "syntax error",
        meaning: "The tokens do not form a value of the language here: a missing comma or bracket, a `:` where a value was expected, a `let` without a name or `=`.",
        example: "[exec: [git: 'allow' bash: 'deny']]",
        fix: "Follow the message: it names what was expected and what was found.",
    },
    CodeInfo {
        code: "E0106",
        title: "duplicate key in a record literal",
        meaning: "The same key is written twice in one record literal. It is reported at its second occurrence, with a label at the first.",
        example: "[exec: [git: 'allow', git: 'deny']]",
        fix: "Keep one of the two entries.",
    },
    CodeInfo {
        code: "E0107",
        title: "list and record elements mixed",
        meaning: "A bracket literal holds both `key: value` elements and plain elements; a record has only keyed elements and a list has none.",
        example: "[exec: [git: 'allow', bash]]",
        fix: "Give every element a key (a record), or none (a list).",
    },
    CodeInfo {
        code: "E0108",
        title: "misplaced spread",
        meaning: "A spread `...$r` may appear once, as the first element of a record literal; it copies `$r`'s fields, which the listed fields then override.",
        example: "let base = [detach: false]\n[net: true, ...$base]",
        fix: "Move the spread first: `[...$base, net: true]`.",
    },
    CodeInfo {
        code: "E0109",
        title: "`$` without a name",
        meaning: "`$` reads a `let`-bound name: `$name` or `$(name)`, a name being a letter or `_` then letters, digits and `_`.",
        example: "[exec: [\"$1\": 'allow']]",
        fix: "Write a name after `$`, or escape a literal dollar (`\\$` in \"…\", or use '…').",
    },
];

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
