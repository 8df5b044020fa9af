//! The syntax stage's codes (E0100–E0109: reading the file, lexing, parsing), each a named
//! constant, with their explain pages. Each `example` triggers exactly its code (checked
//! by `tests/tests/codes.rs`). Data only.

use crate::diag::codes::CodeInfo;

/// The profile cannot be read.
pub const E0100: &str = "E0100";
/// The profile is not valid UTF-8.
pub const E0101: &str = "E0101";
/// Unexpected character.
pub const E0102: &str = "E0102";
/// Unterminated string.
pub const E0103: &str = "E0103";
/// Unknown or malformed escape.
pub const E0104: &str = "E0104";
/// Syntax error.
pub const E0105: &str = "E0105";
/// Duplicate key in a record literal.
pub const E0106: &str = "E0106";
/// List and record elements mixed.
pub const E0107: &str = "E0107";
/// Misplaced spread.
pub const E0108: &str = "E0108";
/// `$` without a name.
pub const E0109: &str = "E0109";

/// The codes of lexing errors: past the first of them, a file is never quoted (it may
/// not be a profile at all; see `SourceMap::limit_quoting`).
pub const LEX_CODES: &[&str] = &[E0101, E0102, E0103, E0104, E0109];

/// The codes of parsing errors after which the text may not be a profile at all: from
/// the first of them on, a file is never quoted. (A duplicate key, mixed elements or a
/// misplaced spread are errors in text that did parse as a profile's structure.)
pub const PARSE_CODES: &[&str] = &[E0105];

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: E0100,
        title: "the profile cannot be read",
        meaning: "A layer named on the command line (or a `why --batch` questions file) is not a readable file (it does not exist, permission is refused, it is not a regular file — a FIFO, a device, a directory —, it lives on a kernel interface file system such as `/proc`, it is larger than 1 MiB, or it is a relative name whose link leads outside the directory tree it was named from, without `--allow-outside-links`, or it lies in a git directory — `.git/`, a `gitdir:` target, `$GIT_DIR` — which is never read as a profile, whatever the options), or `std:NAME` names no standard profile. It is reported against the name, and the other layers are still checked.",
        example: "ralc check no-such-file.ral",
        fix: "Name a readable `.ral` file, or one of the standard profiles (`std:minimal`, `std:reasonable`, `std:dangerous`).",
    },
    CodeInfo {
        code: E0101,
        title: "the profile is not valid UTF-8",
        meaning: "A profile is UTF-8 text. The file holds a byte sequence that is not UTF-8 (often a binary file named by mistake); nothing else in it is read.",
        example: "(a file holding the bytes C3 28: not UTF-8)",
        fix: "Save the profile as UTF-8, or name the right file.",
    },
    CodeInfo {
        code: E0102,
        title: "unexpected character",
        meaning: "A character that starts no token of the language (such as a lone `!` or a control character) appears outside a string.",
        example: "[exec: [git: 'allow']] \u{1}",
        fix: "Quote text that carries punctuation ('like this'), or delete the stray character.",
    },
    CodeInfo {
        code: E0103,
        title: "unterminated string",
        meaning: "A string opened with `'`, `\"` or a hash fence `#'` is never closed. It is reported at its opening quote.",
        example: "[exec: [git: 'allow]]",
        fix: "Close the string with the same quote (and the same number of `#` for a raw string).",
    },
    CodeInfo {
        code: E0104,
        title: "unknown or malformed escape",
        meaning: "Inside \"…\" the escapes are \\n \\r \\t \\\\ \\0 \\e \\\" \\$ \\! \\xNN (ASCII) \\u{X…} and backslash-newline; any other backslash sequence is an error.",
        example: "[exec: [\"gi\\qt\": 'allow']]",
        fix: "Use a known escape, or a literal string '…' where backslashes mean themselves.",
    },
    CodeInfo {
        code: E0105,
        title: "syntax error",
        meaning: "The tokens do not form a value of the language here: a missing comma or bracket, a `:` where a value was expected, a `let` without a name or `=`.",
        example: "[exec: [git: 'allow' bash: 'deny']]",
        fix: "Follow the message: it names what was expected and what was found.",
    },
    CodeInfo {
        code: E0106,
        title: "duplicate key in a record literal",
        meaning: "The same key is written twice in one record literal. It is reported at its second occurrence, with a label at the first.",
        example: "[exec: [git: 'allow', git: 'deny']]",
        fix: "Keep one of the two entries.",
    },
    CodeInfo {
        code: E0107,
        title: "list and record elements mixed",
        meaning: "A bracket literal holds both `key: value` elements and plain elements; a record has only keyed elements and a list has none.",
        example: "[exec: [git: 'allow', bash]]",
        fix: "Give every element a key (a record), or none (a list).",
    },
    CodeInfo {
        code: E0108,
        title: "misplaced spread",
        meaning: "A spread `...$r` may appear once, as the first element of a record literal; it copies `$r`'s fields, which the listed fields then override.",
        example: "let base = [detach: false]\n[net: true, ...$base]",
        fix: "Move the spread first: `[...$base, net: true]`.",
    },
    CodeInfo {
        code: E0109,
        title: "`$` without a name",
        meaning: "`$` reads a `let`-bound name: `$name` or `$(name)`, a name being a letter or `_` then letters, digits and `_`.",
        example: "[exec: [\"$1\": 'allow']]",
        fix: "Write a name after `$`, or escape a literal dollar (`\\$` in \"…\", or use '…').",
    },
];
