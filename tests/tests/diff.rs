//! `ralc diff` on the cases in `tests/diff/` (see its README): the binary's JSON report
//! must hold exactly the expected changes and verdict, its exit code must follow the
//! verdict (0 same/narrows, 1 widens), and a broken side or a bad layer role exits 2.
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
use std::path::{Path, PathBuf};

/// `ralc diff ARGS --format FORMAT` in `dir`: exit code and stdout.
pub fn diff(dir: &Path, args: &[String], format: &str) -> (i32, String) {
    let mut all = vec!["diff"];
    all.extend(args.iter().map(String::as_str));
    all.extend([
        "--format",
        format,
        "--home",
        "/home/dev",
        "--cwd",
        "/home/dev/project",
    ]);
    let (code, stdout, _) = run_ralc(dir, &all);
    (code.unwrap_or(-1), stdout)
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("tests/diff"))
        .expect("tests/diff")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn args_of(case: &Path) -> Vec<String> {
    std::fs::read_to_string(case.join("args"))
        .expect("args")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_case_reports_exactly_its_changes() {
    let cases = cases();
    assert!(cases.len() >= 7, "{cases:?}");
    let mut failures = Vec::new();
    for case in &cases {
        let expect = std::fs::read_to_string(case.join("expect")).expect("expect");
        let mut lines = expect.lines().filter(|l| !l.is_empty());
        let want_verdict = lines
            .next()
            .and_then(|l| l.strip_prefix("verdict: "))
            .expect("a verdict line")
            .to_string();
        let mut want: Vec<String> = lines.map(str::to_string).collect();
        want.sort();
        let (code, out) = diff(case, &args_of(case), "json");
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {out}", case.display()));
        let mut got: Vec<String> = v["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} @ {}",
                    c["direction"].as_str().unwrap_or("?"),
                    c["axis"].as_str().unwrap_or("?"),
                    c["subject"].as_str().unwrap_or("?"),
                    c["entry"].as_str().unwrap_or("(none)")
                )
            })
            .collect();
        got.sort();
        let verdict = v["verdict"].as_str().unwrap_or("?");
        let want_code = if matches!(want_verdict.as_str(), "widens" | "incomparable") {
            1
        } else {
            0
        };
        if got != want || verdict != want_verdict || code != want_code {
            failures.push(format!(
                "{}: verdict {verdict} (want {want_verdict}), exit {code} (want {want_code})\n got  {got:#?}\n want {want:#?}",
                case.display()
            ));
        }
        // every change names the entry's file, line and column
        for c in v["changes"].as_array().into_iter().flatten() {
            assert!(
                c["file"].is_string()
                    && c["line"].as_u64().is_some()
                    && c["column"].as_u64().is_some(),
                "{}: {c}",
                case.display()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_broken_side_or_a_bad_role_exits_2() {
    let dir = tempfile::tempdir().expect("scratch");
    std::fs::write(dir.path().join("ok.ral"), "[net: `offline]\n").expect("write");
    std::fs::write(dir.path().join("bad.ral"), "[net: \n").expect("write");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(diff(dir.path(), &s(&["ok.ral", "bad.ral"]), "human").0, 2);
    assert_eq!(diff(dir.path(), &s(&["ok.ral"]), "human").0, 2);
    assert_eq!(
        diff(
            dir.path(),
            &s(&["--old", "-x", "ok.ral", "--new", "-p", "ok.ral"]),
            "human"
        )
        .0,
        2
    );
    let (code, out) = diff(dir.path(), &s(&["ok.ral", "ok.ral"]), "human");
    assert_eq!(
        (code, out.trim_end()),
        (0, "verdict: same (0 widening, 0 narrowing)")
    );
}
