//! Every module opens with its `//!` header (ARCHITECTURE.md, house style: what it is and
//! what it must never do): each `.rs` file under `src/` of every crate of the workspace —
//! `compiler`, `runtime`, `tests` — starts, before any blank line or code, with a `//!`
//! line. A module without one fails the suite with its path.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc_tests::bin::workspace_root;
use ralc_tests::source::src_files;

/// Whether a file's text opens with a `//!` line (leading blank lines allowed).
fn opens_with_module_doc(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with("//!"))
}

#[test]
fn the_check_tells_a_header_from_its_absence() {
    assert!(opens_with_module_doc("//! A module.\nfn f() {}\n"));
    assert!(opens_with_module_doc("\n//! A module.\n"));
    assert!(!opens_with_module_doc("// A comment.\n//! Late.\n"));
    assert!(!opens_with_module_doc("use std::fs;\n"));
    assert!(!opens_with_module_doc("/// An item doc.\nfn f() {}\n"));
    assert!(!opens_with_module_doc(""));
}

#[test]
fn every_module_opens_with_its_header() {
    let root = workspace_root();
    let mut files = Vec::new();
    for krate in ["compiler", "runtime", "tests"] {
        files.extend(src_files(&root.join(krate).join("src"), &["rs"]));
    }
    // the three crates have far more modules than this: a walk that finds few is broken
    assert!(files.len() > 100, "only {} modules found", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text =
                std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            !opens_with_module_doc(&text)
        })
        .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "modules without a `//!` header (say what the module is and what it must never do):\n{}",
        missing.join("\n")
    );
    eprintln!("{} modules, each with its header", files.len());
}
