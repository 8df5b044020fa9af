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

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

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
        rust_files(&root.join(krate).join("src"), &mut files);
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
