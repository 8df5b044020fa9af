//! `ralc fmt` through the binary: it rewrites a file in place (and leaves a formatted one
//! untouched), `--check` writes nothing and prints a unified diff (exit 1), a file that
//! does not parse is never rewritten and its diagnostic is shown with its span (exit 2),
//! standard input goes to standard output, usage errors are 2, and the completion
//! scripts offer the command.

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
use std::process::{Output, Stdio};

fn ralc(args: &[&str], dir: &Path, stdin: Option<&str>) -> Output {
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs the ralc binary under test"
    )]
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ralc"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("ralc runs");
    if let Some(mut pipe) = child.stdin.take() {
        use std::io::Write as _;
        pipe.write_all(stdin.unwrap_or("").as_bytes())
            .expect("write stdin");
    }
    child.wait_with_output().expect("ralc ends")
}

const MESSY: &str = "[exec: [git: \"allow\"], fs: [read: ['/usr'],\n write: ['cwd:']]]";
const TIDY: &str = "[\n  exec: [git: 'allow'],\n  fs: [read: ['/usr'], write: ['cwd:']],\n]\n";
const BROKEN: &str = "[\n  exec: [git: 'allow' bash: 'deny'],\n]\n";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_reports_a_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("messy.ral"), MESSY).expect("write");
    std::fs::write(d.join("tidy.ral"), TIDY).expect("write");
    let out = ralc(&["fmt", "--check", "messy.ral", "tidy.ral"], d, None);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let diff = text(&out.stdout);
    assert!(
        diff.starts_with("--- messy.ral\n+++ messy.ral (formatted)\n@@ -1,2 +1,4 @@\n"),
        "{diff}"
    );
    assert!(diff.contains("\n+  exec: [git: 'allow'],\n"), "{diff}");
    assert!(diff.contains("\n\\ No newline at end of file\n"), "{diff}");
    assert!(!diff.contains("tidy.ral"), "{diff}");
    assert_eq!(
        std::fs::read_to_string(d.join("messy.ral")).expect("read"),
        MESSY
    );
    // every file formatted: 0, nothing printed
    let out = ralc(&["fmt", "--check", "tidy.ral"], d, None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn rewrites_in_place_keeping_the_permissions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("messy.ral"), MESSY).expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("messy.ral"), std::fs::Permissions::from_mode(0o640))
            .expect("chmod");
    }
    let out = ralc(&["fmt", "messy.ral"], d, None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(d.join("messy.ral")).expect("read"),
        TIDY
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::symlink_metadata(d.join("messy.ral"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    // no stray temporary file is left beside it
    let names: Vec<String> = std::fs::read_dir(d)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["messy.ral".to_string()]);
    // and now it checks clean
    assert_eq!(
        ralc(&["fmt", "--check", "messy.ral"], d, None)
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn a_file_that_does_not_parse_is_left_alone_with_its_diagnostic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("broken.ral"), BROKEN).expect("write");
    std::fs::write(d.join("messy.ral"), MESSY).expect("write");
    for check in [false, true] {
        let mut args = vec!["fmt"];
        if check {
            args.push("--check");
        }
        args.extend(["broken.ral", "messy.ral"]);
        let out = ralc(&args, d, None);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = text(&out.stderr);
        assert!(err.contains("[E0105]"), "{err}");
        assert!(err.contains("broken.ral:2:23"), "{err}");
        assert!(
            err.contains("broken.ral: not formatted: it does not parse"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("broken.ral")).expect("read"),
            BROKEN
        );
    }
    // the other file was still formatted (the run without --check came first)
    assert_eq!(
        std::fs::read_to_string(d.join("messy.ral")).expect("read"),
        TIDY
    );
}

#[test]
fn standard_input_and_usage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = ralc(&["fmt", "-"], d, Some(MESSY));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), TIDY);
    let out = ralc(&["fmt", "--check", "-"], d, Some(MESSY));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stdout).starts_with("--- -\n+++ - (formatted)\n"));
    for args in [
        &["fmt"][..],
        &["fmt", "--check"],
        &["fmt", "std:minimal"],
        &["fmt", "no-such-file.ral"],
        &["fmt", "--nope", "x.ral"],
        &["fmt", "-", "-"],
    ] {
        let out = ralc(args, d, None);
        assert_eq!(
            out.status.code(),
            Some(2),
            "ralc {}: {out:?}",
            args.join(" ")
        );
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = ralc(&["completions", shell], d, None);
        assert!(text(&out.stdout).contains("fmt"), "{shell}");
    }
}
