//! `ralc check` and `ralc explain` as a subprocess: every `tests/parse/err` file reports
//! its `# expect: CODE @ LINE` comments in human and JSON output, exit codes are 0/1/2.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

fn ralc(args: &[&str]) -> Output {
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs the ralc binary under test"
    )]
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ralc"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("ralc runs")
}

fn err_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/parse/err")
}

fn expectations(text: &str) -> BTreeSet<(String, u32)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("# expect:"))
        .filter_map(|r| r.split_once('@'))
        .map(|(c, l)| (c.trim().to_string(), l.trim().parse().expect("a line")))
        .collect()
}

#[test]
fn err_files_through_the_binary() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(err_dir())
        .expect("tests/parse/err")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ral"))
        .collect();
    files.sort();
    assert!(files.len() > 40);
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let want = expectations(&text);
        let path = f.display().to_string();
        let json = ralc(&["check", "--format", "json", &path]);
        assert_eq!(json.status.code(), Some(1), "{path}");
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
        let got: BTreeSet<(String, u32)> = v["diagnostics"]
            .as_array()
            .expect("array")
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().expect("code").to_string(),
                    d["line"].as_u64().expect("line") as u32,
                )
            })
            .collect();
        let human = ralc(&["check", "-p", &path]);
        assert_eq!(human.status.code(), Some(1), "{path}");
        let out = String::from_utf8_lossy(&human.stdout);
        assert!(!out.contains('\u{1b}'), "no colour with NO_COLOR: {path}");
        for (code, line) in &want {
            let needle = format!("[{code}]");
            let at = format!(":{line}:");
            let found = out
                .split(&needle)
                .skip(1)
                .any(|rest| rest.lines().nth(1).is_some_and(|l| l.contains(&at)));
            if !found {
                failures.push(format!("{path}: human output lacks {code} at line {line}"));
            }
        }
        if got != want {
            failures.push(format!("{path}: json {got:?} want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn exit_codes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let minimal = root.join("std-profiles/minimal.ral").display().to_string();
    let ok = ralc(&["check", &minimal, "-p", "std:reasonable"]);
    assert_eq!(ok.status.code(), Some(0));
    let json = ralc(&["check", "--format", "json", "std:dangerous"]);
    assert_eq!(
        String::from_utf8_lossy(&json.stdout),
        "{\"diagnostics\":[],\"summary\":{\"errors\":0,\"warnings\":0}}\n"
    );
    assert_eq!(ralc(&["check", "/no/such/file.ral"]).status.code(), Some(1));
    assert_eq!(ralc(&["check", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(ralc(&["check"]).status.code(), Some(2));
    let e = ralc(&["explain", "E0201"]);
    assert_eq!(e.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&e.stdout).contains("audit"));
    assert_eq!(ralc(&["explain", "E9999"]).status.code(), Some(2));
}
