//! The typecheck's codes (E02xx) and their explain pages. Each `example` triggers
//! exactly its code (checked by `tests/tests/codes.rs`).

use crate::diag::codes::CodeInfo;

/// Unknown grant key.
pub const E0201: &str = "E0201";
/// The profile returns a map.
pub const E0202: &str = "E0202";
/// The profile returns `[]`.
pub const E0203: &str = "E0203";
/// The profile returns a value that is not a record.
pub const E0204: &str = "E0204";
/// `exec` is not a record.
pub const E0205: &str = "E0205";
/// A directory or selector key with a policy other than 'allow'/'deny'.
pub const E0210: &str = "E0210";
/// Unknown exec policy string.
pub const E0211: &str = "E0211";
/// An exec policy written as a Bool.
pub const E0212: &str = "E0212";
/// An exec policy of another type.
pub const E0213: &str = "E0213";
/// An empty subcommand list.
pub const E0214: &str = "E0214";
/// A subcommand that is not a string.
pub const E0215: &str = "E0215";
/// A selector with a slash or sub-path.
pub const E0216: &str = "E0216";
/// `fs` is not a record.
pub const E0220: &str = "E0220";
/// An `fs` member that is not a list.
pub const E0221: &str = "E0221";
/// An `fs` path that is not a string.
pub const E0222: &str = "E0222";
/// Unknown `fs` member.
pub const E0223: &str = "E0223";
/// `net` with a value other than `` `offline `` or a Bool.
pub const E0230: &str = "E0230";
/// `detach` is not a Bool.
pub const E0240: &str = "E0240";
/// Unknown verb.
pub const E0250: &str = "E0250";
/// A verb record member that is not a Bool.
pub const E0251: &str = "E0251";
/// A verb set of the wrong type.
pub const E0252: &str = "E0252";
/// A verb that is not a word.
pub const E0253: &str = "E0253";

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: E0201,
        title: "unknown grant key",
        meaning: "A profile's record has a key that is not one of the six of grant's declared table: exec, fs, net, detach, editor, shell. `audit` is refused too: it was a recording switch, never authority.",
        example: "[fss: [read: ['~']]]",
        fix: "Use one of exec, fs, net, detach, editor, shell (the message suggests the nearest).",
    },
    CodeInfo {
        code: E0202,
        title: "the profile returns a map",
        meaning: "A bracket opening with `:` or with a computed key is a map, and a map is never a grant.",
        example: "[:, exec: []]",
        fix: "A grant takes a record: drop the leading `:` and write static keys.",
    },
    CodeInfo {
        code: E0203,
        title: "the profile returns `[]`",
        meaning: "`[]` at the top is ambiguous (an empty list, not a grant) and is refused statically.",
        example: "[]",
        fix: "Return `()` to set nothing, or a record such as `[exec: []]` to admit no programs.",
    },
    CodeInfo {
        code: E0204,
        title: "the profile returns a value that is not a record",
        meaning: "A profile returns a record of grant settings or `()`. Any other value (a string, a list, a Bool) is refused, naming the type found.",
        example: "'allow'",
        fix: "Return a record such as `[exec: [git: 'allow']]`.",
    },
    CodeInfo {
        code: E0205,
        title: "`exec` is not a record",
        meaning: "`exec` maps command keys to policies: a record. `exec: []` is the empty record (nothing admitted).",
        example: "[exec: 'allow']",
        fix: "Write `exec: [git: 'allow']`.",
    },
    CodeInfo {
        code: E0210,
        title: "a directory or selector key with a policy other than 'allow'/'deny'",
        meaning: "A key ending in a separator, or a selector such as `'path:'`, admits everything beneath a directory, or nothing; it takes no subcommand list.",
        example: "[exec: ['/usr/bin/': [status]]]",
        fix: "Use 'allow' or 'deny'; give single commands their own keys to limit subcommands.",
    },
    CodeInfo {
        code: E0211,
        title: "unknown exec policy string",
        meaning: "An exec policy string is exactly 'allow' or 'deny', lowercase.",
        example: "[exec: [git: 'Allow']]",
        fix: "Write 'allow' or 'deny', or a non-empty list of subcommands.",
    },
    CodeInfo {
        code: E0212,
        title: "an exec policy written as a Bool",
        meaning: "`true`/`false` are not exec policies: the policy says how a command is admitted.",
        example: "[exec: [git: true]]",
        fix: "Use 'allow', 'deny' or a list of subcommands.",
    },
    CodeInfo {
        code: E0213,
        title: "an exec policy of another type",
        meaning: "An exec policy is 'allow', 'deny' or a list of subcommand strings; an integer, a record, a tag or unit is none of these.",
        example: "[exec: [git: 5]]",
        fix: "Use 'allow', 'deny' or a list of subcommands.",
    },
    CodeInfo {
        code: E0214,
        title: "an empty subcommand list",
        meaning: "A subcommand list admits a call whose first argument is listed; an empty list would admit nothing, which 'deny' says plainly.",
        example: "[exec: [git: []]]",
        fix: "List the subcommands, or write 'deny'.",
    },
    CodeInfo {
        code: E0215,
        title: "a subcommand that is not a string",
        meaning: "Every item of a subcommand list is a string (the permitted first argument).",
        example: "[exec: [git: [status, 5]]]",
        fix: "Write each subcommand as a word or quoted string.",
    },
    CodeInfo {
        code: E0216,
        title: "a selector with a slash or sub-path",
        meaning: "A selector (`'path:'`, `'system:'`, `'cargo:'`, …) names a set of directories by itself; `'path:/'` or `'cargo:bin'` is not a selector.",
        example: "[exec: ['path:/': 'allow']]",
        fix: "Write the selector alone (`'path:': 'allow'`), or name a directory with its own path key.",
    },
    CodeInfo {
        code: E0220,
        title: "`fs` is not a record",
        meaning: "`fs` is `[read: […], write: […], deny: […]]`; `fs: []` is the empty record (no reads or writes).",
        example: "[fs: ['/tmp']]",
        fix: "Write `fs: [read: ['/tmp']]`.",
    },
    CodeInfo {
        code: E0221,
        title: "an `fs` member that is not a list",
        meaning: "Each of `read`, `write`, `deny`, `deny_write` is a list of path strings.",
        example: "[fs: [read: '/etc']]",
        fix: "Write `read: ['/etc']`.",
    },
    CodeInfo {
        code: E0222,
        title: "an `fs` path that is not a string",
        meaning: "Every entry of an `fs` member is a path string: a place, a selector or an absolute path.",
        example: "[fs: [read: [5]]]",
        fix: "Quote the path: `read: ['/srv/5']`.",
    },
    CodeInfo {
        code: E0223,
        title: "unknown `fs` member",
        meaning: "The members of `fs` are read, write, deny and deny_write.",
        example: "[fs: [wrote: ['/tmp']]]",
        fix: "Use read, write, deny or deny_write.",
    },
    CodeInfo {
        code: E0230,
        title: "`net` with a value other than `` `offline `` or a Bool",
        meaning: "`net` holds one opinion: `` `offline `` withholds the network (`false` is the older spelling of the same); `true` has no opinion. Any other value is refused, naming its type.",
        example: "[net: 'offline']",
        fix: "Write ``net: `offline`` (a tag, with a backtick), or omit `net`.",
    },
    CodeInfo {
        code: E0240,
        title: "`detach` is not a Bool",
        meaning: "`detach: false` withholds starting processes that outlive the session; `true` has no effect against a `false` elsewhere.",
        example: "[detach: 'no']",
        fix: "Write `detach: false` or `detach: true`.",
    },
    CodeInfo {
        code: E0250,
        title: "unknown verb",
        meaning: "`editor` verbs are read, write, tui; `shell` verbs are chdir.",
        example: "[editor: [read, save]]",
        fix: "Use a listed verb.",
    },
    CodeInfo {
        code: E0251,
        title: "a verb record member that is not a Bool",
        meaning: "In the record spelling of a verb set (`editor: [read: true]`) each member is a Bool; omitted members are false.",
        example: "[editor: [read: 'yes']]",
        fix: "Write `true`/`false`, or use the list spelling `editor: [read]`.",
    },
    CodeInfo {
        code: E0252,
        title: "a verb set of the wrong type",
        meaning: "`editor` and `shell` take a list of verbs (or the older record of Bools); `[]` permits none.",
        example: "[shell: true]",
        fix: "Write `shell: [chdir]` or `shell: []`.",
    },
    CodeInfo {
        code: E0253,
        title: "a verb that is not a word",
        meaning: "Each item of a verb list is a verb name (a word or string).",
        example: "[editor: [read, 5]]",
        fix: "Write the verb's name.",
    },
];
