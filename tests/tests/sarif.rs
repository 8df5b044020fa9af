//! The SARIF the `ralc` binary writes (`check --format sarif`, `deputy --format sarif`,
//! `diff --format sarif`), judged by the OASIS schema copied into `tests/data/` and by
//! Microsoft's SARIF multitool (`ralc_tests::multitool`): 0 errors, 0 warnings, and only
//! the notes `docs/cli.md` documents. The profiles are every `.ral` in the repository's
//! standard profiles and examples, the parse error cases (logs full of error results),
//! and the `tests/diff/` cases. A missing multitool fails this suite.
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
use std::path::PathBuf;

/// `ralc ARGS` from the workspace root under the fixed anchor: exit code and stdout.
fn ralc(args: &[&str]) -> (i32, String) {
    let mut all = args.to_vec();
    all.extend(["--home", "/home/dev", "--cwd", "/home/dev/project"]);
    let (code, stdout, _) = run_ralc(&workspace_root(), &all);
    (code.unwrap_or(-1), stdout)
}

fn files(dir: &str, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(workspace_root().join(dir))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .filter_map(|p| {
                    p.strip_prefix(workspace_root())
                        .ok()
                        .map(|r| r.to_string_lossy().into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every log the binary writes for the suite, `(name, SARIF text)`.
fn logs() -> Vec<(String, String)> {
    let mut profiles = files("std-profiles", "ral");
    for d in ["examples/code-review", "examples/confine-a-build"] {
        profiles.extend(files(d, "ral"));
    }
    assert!(profiles.len() >= 5, "{profiles:?}");
    let mut out = Vec::new();
    for p in &profiles {
        let (code, text) = ralc(&["check", "--format", "sarif", p]);
        assert!(code == 0 || code == 1, "check {p}: exit {code}");
        out.push((format!("check {p}"), text));
        let (code, text) = ralc(&["deputy", "--format", "sarif", "-p", p]);
        assert_eq!(code, 0, "deputy {p}");
        out.push((format!("deputy {p}"), text));
    }
    // a log of error results: every parse error case at once
    let errs = files("tests/parse/err", "ral");
    assert!(!errs.is_empty());
    let mut args = vec!["check", "--format", "sarif"];
    args.extend(errs.iter().map(String::as_str));
    let (code, text) = ralc(&args);
    assert_eq!(code, 1, "the error cases are errors");
    out.push(("check tests/parse/err".into(), text));
    // `ralc diff` of every case in tests/diff/, from the case's folder
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("tests/diff"))
        .expect("tests/diff")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let text = std::fs::read_to_string(d.join("args")).expect("args");
        let mut args: Vec<&str> = vec!["diff"];
        args.extend(text.lines().filter(|l| !l.is_empty()));
        args.extend([
            "--format",
            "sarif",
            "--home",
            "/home/dev",
            "--cwd",
            "/home/dev/project",
        ]);
        let (code, stdout, _) = run_ralc(&d, &args);
        assert!(matches!(code, Some(0 | 1)), "diff {}", d.display());
        out.push((format!("diff {}", d.display()), stdout));
    }
    out
}

#[test]
fn every_sarif_log_the_binary_writes_is_clean_for_the_schema_and_the_multitool() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("tests/data/sarif-schema-2.1.0.json"))
            .expect("the schema is in the repository"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let work = tempfile::tempdir().expect("scratch");
    let mut paths = Vec::new();
    let mut results = 0;
    for (i, (name, text)) in logs().into_iter().enumerate() {
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        results += v["runs"][0]["results"].as_array().map_or(0, Vec::len);
        let p = work.path().join(format!("log-{i}.sarif"));
        std::fs::write(&p, text).expect("write a log");
        paths.push(p);
    }
    assert!(
        results > 10,
        "the logs hold too few results ({results}) to judge"
    );
    ralc_tests::multitool::assert_clean(&paths, work.path());
}

#[test]
fn the_multitool_really_judges() {
    // A log with a schema error and one without a tool version: each must be refused, so
    // a clean verdict means something.
    let work = tempfile::tempdir().expect("scratch");
    let bad = [
        r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","bogus":1}},"results":[]}]}"#,
        r#"{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","informationUri":"https://example.org/","rules":[]}},"results":[]}]}"#,
    ];
    for (i, text) in bad.iter().enumerate() {
        let p = work.path().join(format!("bad-{i}.sarif"));
        std::fs::write(&p, text).expect("write");
        let findings = ralc_tests::multitool::validate(std::slice::from_ref(&p), work.path());
        assert!(
            findings.iter().any(|f| !f.accepted()),
            "bad-{i} passed: {findings:#?}"
        );
    }
}
