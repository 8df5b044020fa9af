//! The code registry: every registered front-end code's `example` produces exactly that
//! code (and nothing else), every code has an explain page, and the two codes no profile
//! text can produce (an unreadable file, bytes that are not UTF-8) are produced by real
//! cases here.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc::diag::FileId;
use ralc::pipeline::check_files;
use ralc::registry as codes;

/// Codes whose trigger is not profile text.
const BYTE_LEVEL: &[&str] = &["E0100", "E0101"];

#[test]
fn every_example_triggers_exactly_its_code() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for info in codes::all() {
        let front_end = info.code.starts_with("E01") || info.code.starts_with("E02");
        if !front_end || BYTE_LEVEL.contains(&info.code) {
            continue;
        }
        let (_, d) = ralc::typecheck::check_source(FileId(0), info.example.as_bytes());
        let got: Vec<&str> = d.iter().map(|d| d.code.as_str()).collect();
        if got != [info.code] {
            failures.push(format!(
                "{}: example {:?} gave {got:?}",
                info.code, info.example
            ));
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} codes checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unreadable_file_is_e0100() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let missing = dir.path().join("absent.ral").display().to_string();
    let fe = check_files(
        &ralc::cli::stack::loader(false),
        &[missing, "std:no-such".to_string()],
    );
    let got: Vec<&str> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(got, ["E0100", "E0100"]);
    assert!(codes::lookup("E0100").is_some());
}

#[test]
fn invalid_utf8_is_e0101() {
    let (_, d) = ralc::typecheck::check_source(FileId(0), b"[exec: [git: '\xC3\x28']]");
    let got: Vec<&str> = d.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(got, ["E0101"]);
    assert!(codes::lookup("E0101").is_some());
}

#[test]
fn every_code_has_an_explain_page() {
    for info in codes::all() {
        let page = ralc::cli::explain::page(info.code).expect("a page");
        assert!(page.starts_with(info.code), "{page}");
        assert!(page.contains(info.fix), "{page}");
        let lower = ralc::cli::explain::page(&info.code.to_lowercase());
        assert_eq!(lower.as_deref(), Some(page.as_str()));
    }
    assert!(ralc::cli::explain::page("E9999").is_none());
}

#[test]
fn docs_codes_md_is_what_the_registry_generates() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/codes.md");
    let want = codes::markdown();
    #[allow(
        clippy::disallowed_methods,
        reason = "test: the documented bless switch, RALC_BLESS=1"
    )]
    let bless = std::env::var("RALC_BLESS").is_ok_and(|v| v == "1");
    if bless {
        std::fs::write(&path, &want).expect("write docs/codes.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/codes.md differs from the code registry; regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test codes`"
    );
}
