//! The binaries under test and where they live: the `ralc` binary beside a suite's own
//! executable, `bwrap` on `PATH` (the launch suites' precondition), the build's `target/`
//! directory, the workspace root; and the two ways the
//! suites run a program — [`run_ralc`] (ralc with arguments, answering exit code, stdout and
//! stderr) and [`run`] (any program, ralc or a host tool, answering its whole output). It
//! never builds anything, never runs a program through a shell, and never hands a program
//! the test's own stdin.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `ralc` binary beside this test's own (`target/<profile>/ralc`), canonical.
#[allow(
    clippy::disallowed_methods,
    reason = "test: the ralc binary under test, by its real path"
)]
pub fn ralc_bin() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    let dir = me.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("ralc");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (`cargo build -p ralc`, as scripts/test does)",
        bin.display()
    );
    std::fs::canonicalize(bin).expect("canonical ralc")
}

/// Fails the caller unless `bwrap` (bubblewrap) is on this process's `PATH`: the launch
/// suites need it, and a launch test without it must fail, never pass or skip.
#[allow(
    clippy::disallowed_methods,
    reason = "test: bwrap must be on the process's PATH"
)]
pub fn require_bwrap() {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("bwrap").is_file());
    assert!(
        found,
        "bwrap (bubblewrap) is not on PATH: the launch tests need it (apt-get install bubblewrap)"
    );
}

/// The build's `target/` directory (where real jobs make their projects, outside `/tmp`).
pub fn target_dir() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    me.parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .expect("target dir")
        .to_path_buf()
}

/// The workspace root: the repository's top, the parent of `tests/`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent: the workspace root")
        .to_path_buf()
}

/// `ralc ARGS` in `dir`, with `NO_COLOR=1` and no stdin: its exit code (`None` when a
/// signal ended it), stdout and stderr (as text, lossily).
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
pub fn run_ralc(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(ralc_bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("ralc runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `PROGRAM ARGS` in `cwd` (a path, or a name looked up on `PATH`), with no stdin and the
/// test's environment: its whole output. A program that cannot be started fails the
/// caller, naming it.
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary or a host tool a suite names (git, mount)"
)]
pub fn run(program: &str, args: &[&str], cwd: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}
