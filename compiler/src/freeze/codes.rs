//! The freeze's diagnostic codes (E03xx) with their explain pages. Every code here is
//! reported by `freeze/`; the examples trigger it under the anchor `NEEDS_ANCHOR` names
//! (others trigger it on any anchor, through the front end and the freeze).

use crate::diag::codes::CodeInfo;

/// Codes whose example needs a particular anchor or disk to trigger, and which: the
/// rest trigger on any host.
pub const NEEDS_ANCHOR: &[(&str, &str)] = &[
    (E0302, "--env-clear (no HOME)"),
    (E0305, "XDG_CONFIG_HOME=/etc (an override outside home)"),
    (E0306, "--env-clear --home /h (no XDG_RUNTIME_DIR)"),
    (E0312, "a real path that is not Unicode on disk"),
    (
        E0313,
        "a cwd whose .git file points at a directory that does not name it back",
    ),
    (E0314, "a cwd whose .git file has no gitdir: line"),
    (E0315, "a cwd whose .git file cannot be read"),
    (E0316, "--env PATH=/usr/bin:/ (the root in PATH)"),
    (E0317, "--env PATH=bin:. (no absolute entry)"),
    (E0320, "any host where /usr/bin is a directory"),
    (
        E0322,
        "an anchor whose working directory is not absolute (FreezeCtx::from_parts)",
    ),
];

/// Relative path in a grant.
pub const E0301: &str = "E0301";
/// No home for a place that needs one.
pub const E0302: &str = "E0302";
/// Unsupported tilde form.
pub const E0303: &str = "E0303";
/// Unknown xdg kind.
pub const E0304: &str = "E0304";
/// Xdg place lands outside home.
pub const E0305: &str = "E0305";
/// Xdg:runtime without XDG_RUNTIME_DIR.
pub const E0306: &str = "E0306";
/// Sub-path names a volume of its own.
pub const E0307: &str = "E0307";
/// Device path in a grant.
pub const E0308: &str = "E0308";
/// Malformed path head.
pub const E0309: &str = "E0309";
/// Mixed separators at the head.
pub const E0310: &str = "E0310";
/// NT object-manager path.
pub const E0311: &str = "E0311";
/// Real path is not Unicode.
pub const E0312: &str = "E0312";
/// Unclaimed .git pointer.
pub const E0313: &str = "E0313";
/// .git pointer without a gitdir: line.
pub const E0314: &str = "E0314";
/// Unreadable .git pointer.
pub const E0315: &str = "E0315";
/// Selector names the root.
pub const E0316: &str = "E0316";
/// Path: with no absolute PATH entry.
pub const E0317: &str = "E0317";
/// Unknown selector.
pub const E0318: &str = "E0318";
/// Selector with a sub-path.
pub const E0319: &str = "E0319";
/// Exec file key names a directory.
pub const E0320: &str = "E0320";
/// Windows reserved device name in an fs entry.
pub const E0321: &str = "E0321";
/// Working directory is not absolute.
pub const E0322: &str = "E0322";
/// Path too long.
pub const E0323: &str = "E0323";

pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: E0301,
        title: "relative path in a grant",
        meaning: "A grant names places (`~`, `cwd:`, `tempdir:`, `gitdir:`, `xdg:`), selectors (`path:`, `system:`, …) or absolute paths. A relative path would mean something different in every directory, so it is refused, for fs entries and exec path keys alike.",
        example: "[fs: [read: ['src/']]]",
        fix: "Anchor it: write `cwd:src/` for a path under the working directory, or an absolute path.",
    },
    CodeInfo {
        code: E0302,
        title: "no home for a place that needs one",
        meaning: "`~`, `~/sub` and `xdg:` need the home directory, and `HOME` is unset, empty or not absolute. ralc never guesses a home.",
        example: "[fs: [read: ['~/notes']]]",
        fix: "Set HOME to an absolute directory, or freeze with `--home DIR`.",
    },
    CodeInfo {
        code: E0303,
        title: "unsupported tilde form",
        meaning: "Only `~` and `~/sub` name the home directory; `~user` and `~x` are not places.",
        example: "[fs: [read: ['~root/.ssh']]]",
        fix: "Write `~/…`, or name another user's home by its absolute path.",
    },
    CodeInfo {
        code: E0304,
        title: "unknown xdg kind",
        meaning: "`xdg:KIND` takes one of config, data, cache, state, bin, runtime.",
        example: "[fs: [read: ['xdg:configs/app']]]",
        fix: "Use one of the listed kinds, e.g. `xdg:config/app`.",
    },
    CodeInfo {
        code: E0305,
        title: "xdg place lands outside home",
        meaning: "An `xdg:` place must lie under home, judged on real forms (symlinks followed), so an `XDG_*_HOME` override, a symlinked default or a sub-path whose `..` climbs (`xdg:config/../../etc`) cannot carry a grant out of home: the sub-path is joined and folded before the judgment. The message names where it lands.",
        example: "[fs: [read: ['xdg:config/app']]]",
        fix: "Point the XDG variable under home, or grant the directory by its absolute path if that is meant.",
    },
    CodeInfo {
        code: E0306,
        title: "xdg:runtime without XDG_RUNTIME_DIR",
        meaning: "`xdg:runtime` has no default under home: it is `XDG_RUNTIME_DIR` or nothing.",
        example: "[fs: [write: ['xdg:runtime']]]",
        fix: "Set XDG_RUNTIME_DIR to an absolute directory under home, or drop the entry.",
    },
    CodeInfo {
        code: E0307,
        title: "sub-path names a volume of its own",
        meaning: "A place's sub-path is joined under the place one component at a time. A sub-path that is a drive, share or namespace path under Windows rules (or holds a drive component) would re-root the join, so it is refused on every host.",
        example: r"[fs: [read: ['cwd:C:\x']]]",
        fix: "Write the drive or share path as an entry of its own.",
    },
    CodeInfo {
        code: E0308,
        title: "device path in a grant",
        meaning: "A `\\\\.\\` device-namespace path names a device, not a file; it is refused as a grant under every tag (the discard device `\\\\.\\NUL` is always permitted and needs no grant).",
        example: r"[fs: [read: ['\\.\pipe\x']]]",
        fix: "Grant files and directories by their Win32 path.",
    },
    CodeInfo {
        code: E0309,
        title: "malformed path head",
        meaning: "A head of two separators (or `\\\\?\\`) that is no well-formed drive, share or device is refused under every tag: Windows reads it as absolute, but it names nothing a grant can hold.",
        example: "[fs: [read: ['//server']]]",
        fix: "Write a full share (`//server/share/…`), a drive path, or a POSIX path with one leading `/`.",
    },
    CodeInfo {
        code: E0310,
        title: "mixed separators at the head",
        meaning: "A path opening with `/\\` or `\\/` reads differently under POSIX and Windows rules, so it is refused under every tag.",
        example: r"[fs: [read: ['/\srv\share']]]",
        fix: "Spell the head with one separator kind.",
    },
    CodeInfo {
        code: E0311,
        title: "NT object-manager path",
        meaning: "A `\\??\\` path addresses the NT object manager directly; it is refused under every tag.",
        example: r"[fs: [read: ['\??\C:\x']]]",
        fix: "Write the Win32 path (`C:\\\\x`).",
    },
    CodeInfo {
        code: E0312,
        title: "real path is not Unicode",
        meaning: "A grant's real form (symlinks followed) must be Unicode to be judged and rendered; a path that resolves to non-Unicode bytes is refused.",
        example: "[fs: [read: ['/srv/link-to-latin1-name']]]",
        fix: "Rename the target, or grant a different path.",
    },
    CodeInfo {
        code: E0313,
        title: "unclaimed .git pointer",
        meaning: "`gitdir:` found a `.git` file pointing at a directory that does not name this working tree back (neither its `gitdir` file nor `core.worktree`). An unclaimed pointer could aim a grant anywhere, so it is refused.",
        example: "[fs: [read: ['gitdir:']]]",
        fix: "Repair the pointer (`git worktree repair`), or remove the `.git` file.",
    },
    CodeInfo {
        code: E0314,
        title: ".git pointer without a gitdir: line",
        meaning: "`gitdir:` found a `.git` file that holds no `gitdir:` line.",
        example: "[fs: [read: ['gitdir:']]]",
        fix: "Repair or remove the `.git` file.",
    },
    CodeInfo {
        code: E0315,
        title: "unreadable .git pointer",
        meaning: "`gitdir:` found a `.git` file it cannot read.",
        example: "[fs: [read: ['gitdir:']]]",
        fix: "Make the `.git` file readable, or freeze from another directory.",
    },
    CodeInfo {
        code: E0316,
        title: "selector names the root",
        meaning: "Refuse the world: a `PATH` entry or a selector override (`CARGO_HOME`, `GOBIN`, …) that names the root or a drive root, on its surface or its real form, would grant every program; it is an error, never a grant.",
        example: "[exec: ['path:': 'allow']]",
        fix: "Remove the root from the variable, or name directories explicitly.",
    },
    CodeInfo {
        code: E0317,
        title: "path: with no absolute PATH entry",
        meaning: "`path:` grants the absolute entries of `PATH` (empty and relative ones are dropped); when none is left the selector names nothing, which is an error.",
        example: "[exec: ['path:': 'allow']]",
        fix: "Set PATH to absolute directories, or name the directories you mean.",
    },
    CodeInfo {
        code: E0318,
        title: "unknown selector",
        meaning: "A word followed by `:` names a selector; this one is not known. The selectors are path:, system:, cargo:, rustup:, go:, npm:, nvm:, volta:, pyenv:, rbenv:, asdf:, homebrew:, nix:.",
        example: "[exec: ['brew:': 'allow']]",
        fix: "Use a listed selector (`homebrew:`), or an absolute directory.",
    },
    CodeInfo {
        code: E0319,
        title: "selector with a sub-path",
        meaning: "A selector names a set of directories and takes no sub-path: `path:/` and `cargo:bin` are refused. (In an exec key the typecheck refuses it first; this is the fs entry's refusal.)",
        example: "[fs: [read: ['path:/']]]",
        fix: "Write the selector alone (`path:`).",
    },
    CodeInfo {
        code: E0320,
        title: "exec file key names a directory",
        meaning: "An exec key without a trailing separator names one executable file; this one freezes to an existing directory.",
        example: "[exec: ['/usr/bin': 'allow']]",
        fix: "Add the trailing slash (`/usr/bin/`) to allow everything beneath the directory.",
    },
    CodeInfo {
        code: E0321,
        title: "Windows reserved device name in an fs entry",
        meaning: "A Windows path whose last component is a DOS reserved device name (NUL, CON, PRN, AUX, COM0–9, LPT0–9, the superscript forms; any case, any extension, trailing dots and blanks ignored) names a device, not a file.",
        example: r"[fs: [write: ['C:\tmp\nul.txt']]]",
        fix: "For the discard device write `\\\\.\\NUL` (always permitted); otherwise rename the file.",
    },
    CodeInfo {
        code: E0322,
        title: "working directory is not absolute",
        meaning: "`cwd:` needs the working directory of the freeze, and the anchor's is not absolute.",
        example: "[fs: [read: ['cwd:']]]",
        fix: "Freeze with `--cwd DIR` naming an absolute directory.",
    },
    CodeInfo {
        code: E0323,
        title: "path too long",
        meaning: "A path entry (after its place is expanded) is longer than 4096 bytes or has more than 256 components. No real path is that long, and resolving one would cost time proportional to its shape; it is refused at the freeze.",
        example: concat!(
            "[fs: [read: ['/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/",
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a",
            "']]]"
        ),
        fix: "Shorten the path.",
    },
];
