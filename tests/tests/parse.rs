//! The parse suite: every `tests/parse/ok/*.ral` checks with no diagnostic; every
//! `tests/parse/err/*.ral` reports exactly the `# expect: CODE @ LINE` comments it
//! carries, in the JSON report and in the human report (as `ralc check` renders them).
//! Also: random bytes and random token soups never panic the front end.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use proptest::prelude::*;
use ralc::diag::{self, FileId};
use ralc::pipeline::check_files;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn suite_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("parse")
        .join(kind)
}

fn ral_files(kind: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(suite_dir(kind))
        .expect("the suite directory exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ral"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no .ral files in parse/{kind}");
    v
}

/// `(code, line)` pairs from `# expect: CODE @ LINE` comments.
fn expectations(text: &str) -> BTreeSet<(String, u32)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("# expect:"))
        .map(|rest| {
            let (code, line) = rest.split_once('@').expect("`# expect: CODE @ LINE`");
            (
                code.trim().to_string(),
                line.trim().parse().expect("a line number"),
            )
        })
        .collect()
}

/// `(code, line)` pairs from the JSON report.
fn from_json(json: &str) -> BTreeSet<(String, u32)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    v["diagnostics"]
        .as_array()
        .expect("a diagnostics array")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().expect("a code").to_string(),
                d["line"].as_u64().expect("a line") as u32,
            )
        })
        .collect()
}

/// `(code, line)` pairs from the human report: a `[CODE] …` header, then the first
/// `─[ file:LINE:COL ]` location after it (or, unquoted, `error[CODE]: …` then
/// `  --> file:LINE:COL`).
fn from_human(human: &str) -> BTreeSet<(String, u32)> {
    let mut out = BTreeSet::new();
    let mut code: Option<String> = None;
    for l in human.lines() {
        // the unquoted form (past a file's first lexing error): `error[CODE]: …` then
        // `  --> file:LINE:COL`
        if let Some((_, rest)) = l.split_once("error[").filter(|(sev, _)| sev.is_empty()) {
            if let Some((c, _)) = rest.split_once("]: ") {
                code = Some(c.to_string());
                continue;
            }
        }
        if let (Some(c), Some(loc)) = (&code, l.strip_prefix("  --> ")) {
            let mut parts = loc.rsplitn(3, ':');
            let _col = parts.next();
            let line: u32 = parts
                .next()
                .and_then(|s| s.parse().ok())
                .expect("file:line:col");
            out.insert((c.clone(), line));
            code = None;
            continue;
        }
        if let Some(rest) = l.strip_prefix('[') {
            if let Some((c, _)) = rest.split_once(']') {
                code = Some(c.to_string());
                continue;
            }
        }
        if let (Some(c), Some(i)) = (&code, l.find("─[ ")) {
            let loc = l[i + "─[ ".len()..].trim_end_matches(" ]").trim();
            let mut parts = loc.rsplitn(3, ':');
            let _col = parts.next();
            let line: u32 = parts
                .next()
                .and_then(|s| s.parse().ok())
                .expect("file:line:col");
            out.insert((c.clone(), line));
            code = None;
        }
    }
    out
}

#[test]
fn ok_files_have_no_diagnostic() {
    for f in ral_files("ok") {
        let fe = check_files(&ralc::cli::stack::loader(false), &[f.display().to_string()]);
        assert!(
            fe.diagnostics.is_empty(),
            "{}: {}",
            f.display(),
            diag::human::render(&fe.diagnostics, &fe.sources, false)
        );
        assert!(fe.typed[0].1.is_some(), "{}", f.display());
    }
}

#[test]
fn err_files_report_their_expected_codes_and_lines() {
    let mut failures = Vec::new();
    for f in ral_files("err") {
        let text = std::fs::read_to_string(&f).expect("readable");
        let want = expectations(&text);
        assert!(!want.is_empty(), "{} has no `# expect:` line", f.display());
        let fe = check_files(&ralc::cli::stack::loader(false), &[f.display().to_string()]);
        assert!(!fe.diagnostics.is_empty(), "{}: no diagnostic", f.display());
        let json = from_json(&diag::json::render(&fe.diagnostics, &fe.sources));
        let human = from_human(&diag::human::render(&fe.diagnostics, &fe.sources, false));
        if json != want || human != want {
            failures.push(format!(
                "{}:\n  want  {want:?}\n  json  {json:?}\n  human {human:?}",
                f.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_registered_code_has_an_err_case() {
    let mut covered = BTreeSet::new();
    for f in ral_files("err") {
        let text = std::fs::read_to_string(&f).expect("readable");
        covered.extend(expectations(&text).into_iter().map(|(c, _)| c));
    }
    // Codes that no profile text can produce have their own cases in codes.rs.
    let byte_level = ["E0100", "E0101"];
    let front_end = |c: &str| c.starts_with("E01") || c.starts_with("E02");
    let missing: Vec<_> = ralc::registry::all()
        .into_iter()
        .map(|c| c.code)
        .filter(|c| front_end(c) && !byte_level.contains(c) && !covered.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a parse/err case: {missing:?}"
    );
}

#[test]
fn binary_and_invalid_utf8_files_are_one_diagnostic() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let p = dir.path().join("bin.ral");
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    std::fs::write(&p, bytes).expect("write");
    let fe = check_files(&ralc::cli::stack::loader(false), &[p.display().to_string()]);
    let codes: Vec<_> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["E0101"]);
}

const SOUP: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "!{",
    ",",
    ":",
    "=",
    "|",
    "&",
    "<",
    ">",
    "...",
    ";",
    "\n",
    " ",
    "let",
    "return",
    "if",
    "else",
    "case",
    "fn",
    "grant",
    "within",
    "try",
    "true",
    "false",
    "exec",
    "fs",
    "net",
    "detach",
    "editor",
    "shell",
    "read",
    "write",
    "deny",
    "'allow'",
    "'deny'",
    "'path:'",
    "'path:/'",
    "'/usr/bin/'",
    "git",
    "`offline",
    "`",
    "$x",
    "$(x)",
    "$ENV[",
    "$",
    "\"$x\"",
    "\"\\q\"",
    "\"",
    "'",
    "#'",
    "'#",
    "##'",
    "#",
    "5",
    "-3",
    "localhost:5432",
    "x:",
    ":]",
    "\u{1}",
    "ſ",
    "\\",
    "\"\\u{",
    "()",
];

fn run_front_end(bytes: &[u8]) {
    let (p, _) = ralc::syntax::parse(FileId(0), bytes);
    let (v, _) = ralc::eval::evaluate(&p);
    if let Some(v) = v {
        let _ = ralc::typecheck::check_value(&v);
    }
    let (_, d) = ralc::typecheck::check_source(FileId(0), bytes);
    // Every diagnostic's span lies inside the file.
    for d in d {
        if let Some(s) = d.span {
            assert!(s.start <= s.end && s.end <= bytes.len(), "{d:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        run_front_end(&bytes);
    }

    #[test]
    fn random_token_soups_never_panic(toks in proptest::collection::vec(0..SOUP.len(), 0..64)) {
        let text: String = toks.iter().map(|i| SOUP[*i]).collect::<Vec<_>>().join(" ");
        run_front_end(text.as_bytes());
        let glued: String = toks.iter().map(|i| SOUP[*i]).collect();
        run_front_end(glued.as_bytes());
    }
}
