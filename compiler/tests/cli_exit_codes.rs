//! The one exit-code scheme (`docs/cli.md`, "Exit codes") through the binary, for every
//! command: 0 yes, 1 no (for `check`: errors), 2 no answer (usage, or a profile that does
//! not compile); `run` 126 for a broken profile or a
//! refusal, 127 for a missing program. Each row names the command line and the code; a
//! row that disagrees is printed with its stderr.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use std::path::Path;
use std::process::Output;

fn ralc(args: &[&str], cwd: &Path) -> Output {
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs the ralc binary under test"
    )]
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ralc"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("ralc runs")
}

const GOOD: &str = "[\n  exec: [git: ['status']],\n  fs: [read: ['cwd:']],\n  editor: [read],\n]\n";
const BROKEN: &str = "[\n  exec: [git: 'allow'],\n  fss: [],\n]\n";
/// A profile whose frozen layer fails (a relative path), not its syntax.
const FREEZE_BROKEN: &str = "[\n  fs: [read: ['src/']],\n]\n";
/// A deputy-prefix finding: a directory both runnable and writable.
const DEPUTY: &str = "[\n  exec: ['cwd:bin/': 'allow'],\n  fs: [write: ['cwd:']],\n]\n";

#[test]
fn every_command_shares_one_scheme() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for (name, text) in [
        ("good.ral", GOOD),
        ("broken.ral", BROKEN),
        ("freeze.ral", FREEZE_BROKEN),
        ("deputy.ral", DEPUTY),
    ] {
        std::fs::write(d.join(name), text).expect("write");
    }
    let rows: &[(&[&str], i32)] = &[
        // yes
        (&["check", "good.ral"], 0),
        (&["show", "good.ral"], 0),
        (&["why", "-p", "good.ral", "read", "x"], 0),
        (&["why", "-p", "good.ral", "flag", "editor.read"], 0),
        (&["render", "--target", "linux", "good.ral"], 0),
        (&["render", "--target", "macos", "good.ral"], 0),
        (&["deputy", "good.ral"], 0),
        (&["deputy", "--deny", "good.ral"], 0),
        (&["explain", "E0201"], 0),
        (&["explain", "deputy-prefix"], 0),
        // no
        (&["why", "-p", "good.ral", "read", "/etc/passwd"], 1),
        (&["why", "-p", "good.ral", "exec", "git", "push"], 1),
        (&["why", "-p", "good.ral", "flag", "editor.tui"], 1),
        (&["check", "-D", "deputy-prefix", "deputy.ral"], 1),
        (&["deputy", "--deny", "deputy.ral"], 1),
        (&["deputy", "deputy.ral"], 0),
        // a broken profile: a syntax/type error, a freeze error, an unreadable file
        (&["check", "broken.ral"], 1),
        (&["show", "broken.ral"], 2),
        (&["why", "-p", "broken.ral", "read", "x"], 2),
        (&["why", "-p", "broken.ral", "--batch", "-"], 2),
        (&["render", "--target", "linux", "broken.ral"], 2),
        (&["render", "--target", "macos", "broken.ral"], 2),
        (&["deputy", "broken.ral"], 2),
        (&["run", "-p", "broken.ral", "--", "true"], 126),
        (&["check", "freeze.ral"], 1),
        (&["show", "freeze.ral"], 2),
        (&["why", "-p", "freeze.ral", "read", "x"], 2),
        (&["render", "--target", "linux", "freeze.ral"], 2),
        (&["deputy", "freeze.ral"], 2),
        (&["run", "-p", "freeze.ral", "--", "true"], 126),
        (&["check", "missing.ral"], 1),
        (&["show", "missing.ral"], 2),
        (&["why", "-p", "missing.ral", "read", "x"], 2),
        (&["render", "--target", "linux", "missing.ral"], 2),
        (&["deputy", "missing.ral"], 2),
        (&["run", "-p", "missing.ral", "--", "true"], 126),
        (&["check", "std:nope"], 1),
        (&["show", "std:nope"], 2),
        (&["diff", "good.ral", "broken.ral"], 2),
        (&["diff", "good.ral", "good.ral"], 0),
        // usage errors
        (&["check"], 2),
        (&["show"], 2),
        (&["why", "read", "x"], 2),
        (&["why", "-p", "good.ral"], 2),
        (&["why", "-p", "good.ral", "frobnicate", "x"], 2),
        (&["render", "good.ral"], 2),
        (&["render", "--target", "linux"], 2),
        (&["deputy"], 2),
        (&["run", "--", "true"], 2),
        (&["run", "-p", "good.ral"], 2),
        (&["explain", "E9999"], 2),
        (&["explain"], 2),
        (&["check", "--no-such-option", "good.ral"], 2),
        (&["show", "--format", "sarif", "good.ral"], 2),
        (
            &["why", "--format", "github", "-p", "good.ral", "read", "x"],
            2,
        ),
        (&["check", "-D", "no-such-lint", "good.ral"], 2),
        (&["frobnicate"], 2),
        // run: refused, missing
        (&["run", "-p", "good.ral", "--", "git", "push"], 126),
        (&["run", "-p", "good.ral", "--", "no-such-program-12b"], 127),
    ];
    let mut bad = Vec::new();
    for (args, want) in rows {
        let out = ralc(args, d);
        if out.status.code() != Some(*want) {
            bad.push(format!(
                "ralc {}: want {want}, got {:?}\n  stderr: {}",
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} rows disagree:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn a_broken_profile_says_so_on_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("broken.ral"), BROKEN).expect("write");
    for args in [
        &["show", "broken.ral"][..],
        &["why", "-p", "broken.ral", "read", "x"],
        &["render", "--target", "linux", "broken.ral"],
        &["run", "-p", "broken.ral", "--", "true"],
    ] {
        let out = ralc(args, d);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("E0201"), "ralc {}: {err}", args.join(" "));
    }
    // deputy and check report on stdout, in the chosen format
    for args in [&["deputy", "broken.ral"][..], &["check", "broken.ral"]] {
        let out = ralc(args, d);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("E0201"), "ralc {}: {text}", args.join(" "));
    }
}

#[test]
fn check_json_keeps_notes_and_labels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // an unknown key near a known one: its diagnostic carries a "did you mean" note
    std::fs::write(d.join("broken.ral"), BROKEN).expect("write");
    let out = ralc(&["check", "--format", "json", "broken.ral"], d);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let diag = &v["diagnostics"][0];
    assert_eq!(diag["code"], "E0201");
    let notes = diag["notes"].as_array().expect("notes is an array");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("`fs`"))),
        "{diag}"
    );
    assert!(diag["labels"].is_array(), "{diag}");
    // the human rendering shows the same note
    let human = ralc(&["check", "broken.ral"], d);
    assert!(String::from_utf8_lossy(&human.stdout).contains("did you mean `fs`?"));
}

#[test]
fn scheme_is_documented() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md"))
        .expect("docs/cli.md");
    assert!(
        doc.contains("## Exit codes"),
        "docs/cli.md has no exit-code section"
    );
    for cmd in [
        "check",
        "show",
        "why",
        "render",
        "deputy",
        "run",
        "explain",
        "diff",
        "fmt",
        "completions",
    ] {
        assert!(
            doc.contains(&format!("`ralc {cmd}")),
            "docs/cli.md does not document `ralc {cmd}`"
        );
    }
}

#[test]
fn quiet_prints_errors_only_and_completions_print_a_script() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // a redundant entry: a warning, no error
    let warn = "[\n  fs: [read: ['/usr', '/usr/share']],\n]\n";
    std::fs::write(d.join("warn.ral"), warn).expect("write");
    std::fs::write(d.join("good.ral"), GOOD).expect("write");
    std::fs::write(d.join("broken.ral"), BROKEN).expect("write");
    let loud = ralc(&["check", "warn.ral"], d);
    assert_eq!(loud.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&loud.stdout).contains("redundant-entry"));
    for args in [
        &["check", "-q", "warn.ral"][..],
        &["--quiet", "check", "warn.ral"],
        &["-q", "why", "-p", "good.ral", "read", "x"],
        &["-q", "deputy", "good.ral"],
        &["-q", "show", "warn.ral"],
    ] {
        let out = ralc(args, d);
        assert_eq!(out.status.code(), Some(0), "ralc {}", args.join(" "));
        assert!(
            out.stderr.is_empty(),
            "ralc {}: {:?}",
            args.join(" "),
            out.stderr
        );
        if args.contains(&"show") {
            continue; // show's output is the layers themselves
        }
        assert!(
            out.stdout.is_empty(),
            "ralc {}: {:?}",
            args.join(" "),
            out.stdout
        );
    }
    // errors still print, and a quiet answer keeps its exit code
    let out = ralc(&["-q", "check", "broken.ral"], d);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("E0201"));
    let out = ralc(&["-q", "why", "-p", "good.ral", "read", "/etc/passwd"], d);
    assert_eq!(out.status.code(), Some(1));
    // machine formats are unchanged by --quiet
    let out = ralc(&["-q", "check", "--format", "json", "warn.ral"], d);
    assert!(String::from_utf8_lossy(&out.stdout).contains("redundant-entry"));
    // completions
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef ralc"),
        ("fish", "complete -c ralc"),
    ] {
        let out = ralc(&["completions", shell], d);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(marker), "{shell}: {text}");
        assert!(text.contains("restrict"), "{shell}");
    }
    assert_eq!(ralc(&["completions", "tcsh"], d).status.code(), Some(2));
}

#[test]
fn the_bash_script_loads_and_completes_subcommands() {
    // bash itself sources the script and asks for the completions of `ralc ch`
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = ralc(&["completions", "bash"], d);
    std::fs::write(d.join("ralc.bash"), &out.stdout).expect("write");
    let probe = "source ./ralc.bash; COMP_WORDS=(ralc ch); COMP_CWORD=1; COMP_LINE='ralc ch'; COMP_POINT=7; _ralc ralc ch ralc; printf '%s\\n' \"${COMPREPLY[@]}\"";
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs bash on the generated completion script"
    )]
    let bash = std::process::Command::new("bash")
        .args(["-c", probe])
        .current_dir(d)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&bash.stdout);
    assert!(
        text.lines().any(|l| l == "check"),
        "{text} {}",
        String::from_utf8_lossy(&bash.stderr)
    );
}
