//! The code's citations of the reference: every "spec §N" or "spec §N.M" in the sources
//! (`compiler/`, `runtime/`, `tests/`) and in `docs/`, `ARCHITECTURE.md` and `README.md`
//! names a section that `docs/spec.md` has, under that number. A citation of a missing
//! section fails the suite with where it was written.
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
use ralc_tests::source::tree_files;
use std::collections::BTreeSet;

/// The section numbers a text cites as `spec §N[.M]` (a trailing sentence dot dropped).
fn citations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("spec §") {
        rest = &rest[i + "spec §".len()..];
        let n: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let n = n.trim_end_matches('.').to_string();
        if !n.is_empty() {
            out.push(n);
        }
    }
    out
}

/// The numbers of `docs/spec.md`'s numbered headings (`## 4.` and `### 4.1`).
fn sections(spec: &str) -> BTreeSet<String> {
    spec.lines()
        .filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### ")))
        .filter_map(|h| h.split_whitespace().next())
        .map(|n| n.trim_end_matches('.').to_string())
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .collect()
}

#[test]
fn the_scanners_read_what_they_should() {
    assert_eq!(
        citations("see spec §4.1. And spec §5, spec §3.6; not spec §x"),
        ["4.1", "5", "3.6"]
    );
    let s = sections("# T\n## 1. A\n### 1.1 B\n## Notes\n### 4.3 C\n");
    assert_eq!(s.into_iter().collect::<Vec<_>>(), ["1", "1.1", "4.3"]);
}

#[test]
fn every_cited_section_exists_in_docs_spec() {
    let root = workspace_root();
    let spec = std::fs::read_to_string(root.join("docs/spec.md")).expect("docs/spec.md");
    let have = sections(&spec);
    assert!(
        have.len() >= 20,
        "docs/spec.md has only {} numbered sections",
        have.len()
    );
    let mut all = Vec::new();
    for d in ["compiler", "runtime", "tests"] {
        all.extend(tree_files(&root.join(d), &["rs", "md"]));
    }
    all.extend(tree_files(&root.join("docs"), &["md"]));
    all.push(root.join("ARCHITECTURE.md"));
    all.push(root.join("README.md"));
    let mut cited = 0usize;
    let mut missing = Vec::new();
    for f in &all {
        if f.ends_with("tests/tests/spec_citations.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for n in citations(&text) {
            cited += 1;
            if !have.contains(&n) {
                missing.push(format!(
                    "{}: spec §{n}",
                    f.strip_prefix(&root).unwrap_or(f).display()
                ));
            }
        }
    }
    // the code cites the reference dozens of times: a scan that finds few is broken
    assert!(cited >= 40, "only {cited} citations found");
    assert!(
        missing.is_empty(),
        "citations of sections docs/spec.md lacks:\n{}",
        missing.join("\n")
    );
    eprintln!("{cited} citations, every one a section of docs/spec.md");
}
