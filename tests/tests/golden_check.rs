//! The check goldens: `ralc check` of every profile in the repository's suites
//! (`tests/parse/{ok,err}`, `std-profiles/`, `examples/`) in the human, JSON and GitHub formats (SARIF's rule catalogue is
//! pinned by its own suite), frozen
//! against a fixed anchor, compared byte for byte with `tests/golden/check/*.txt`.
//! They pin the diagnostics while the renderers change underneath. Regenerate with
//! `RALC_BLESS=1 cargo test -p ralc-tests --test golden_check` and review the diff.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc_tests::bin::{run_ralc, workspace_root};

/// Every profile of the suites, as a name relative to the workspace root, sorted.
fn profiles() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [
        "tests/parse/ok",
        "tests/parse/err",
        "std-profiles",
        "examples/code-review",
        "examples/confine-a-build",
    ] {
        let entries = std::fs::read_dir(workspace_root().join(dir)).expect("a suite directory");
        for e in entries {
            let p = e.expect("a directory entry").path();
            if p.extension().is_some_and(|x| x == "ral") {
                let name = p.file_name().and_then(|n| n.to_str()).expect("UTF-8 name");
                out.push(format!("{dir}/{name}"));
            }
        }
    }
    out.sort();
    assert!(out.len() > 40, "the suites hold their profiles: {out:?}");
    out
}

fn report(format: &str) -> String {
    let mut all = String::new();
    for name in profiles() {
        let (code, stdout, stderr) = run_ralc(
            &workspace_root(),
            &[
                "check",
                "--env-clear",
                "--home",
                "/home/golden",
                "--cwd",
                "/nonexistent/golden-project",
                "--format",
                format,
                &name,
            ],
        );
        all.push_str(&format!(
            "=== {name} (exit {})\n",
            code.map_or("signal".into(), |c| c.to_string())
        ));
        all.push_str(&stdout);
        if !stderr.is_empty() {
            all.push_str("--- stderr\n");
            all.push_str(&stderr);
        }
    }
    all
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: the documented bless switch, RALC_BLESS=1"
)]
fn golden(format: &str) {
    let path = workspace_root().join(format!("tests/golden/check/{format}.txt"));
    let got = report(format);
    if std::env::var_os("RALC_BLESS").is_some() {
        std::fs::write(&path, &got).expect("write the golden");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("the golden exists (RALC_BLESS=1 makes it)");
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "`ralc check --format {format}` differs from {} at line {}:\n got: {:?}\nwant: {:?}",
            path.display(),
            first + 1,
            got.lines().nth(first),
            want.lines().nth(first)
        );
    }
}

#[test]
fn human() {
    golden("human");
}

#[test]
fn json() {
    golden("json");
}

#[test]
fn github() {
    golden("github");
}
