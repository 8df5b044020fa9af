//! Every raw effect is a reviewed site (ARCHITECTURE.md, "Seams"): `clippy.toml` bans the
//! raw constructors, and each real site carries
//! `#[allow(clippy::disallowed_methods, reason = "…")]`. This test lists those sites —
//! file and reason — and compares them with `tests/syscall-sites.txt`, so a new site
//! cannot slip in unreviewed. Regenerate the list with `RALC_BLESS=1` after review.
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

/// `file: reason` for every allow site, sorted.
fn sites() -> Vec<String> {
    let root = workspace_root();
    let mut files = Vec::new();
    for d in ["compiler", "runtime", "tests"] {
        files.extend(tree_files(&root.join(d), &["rs"]));
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable source");
        let rel = f
            .strip_prefix(&root)
            .expect("under root")
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "tests/tests/syscall_sites.rs" {
            continue;
        }
        // Join lines so an attribute split across lines reads as one.
        let flat: String = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        let needle = "clippy::disallowed_methods";
        let mut rest = flat.as_str();
        while let Some(i) = rest.find(needle) {
            let is_allow = rest[..i].trim_end().ends_with("allow(");
            rest = &rest[i + needle.len()..];
            if !is_allow {
                continue;
            }
            let reason = rest
                .split_once("reason")
                .and_then(|(before, after)| {
                    // the reason belongs to this attribute only if no `]` comes first
                    if before.contains(']') {
                        return None;
                    }
                    let after = after.trim_start().strip_prefix('=')?.trim_start();
                    let after = after.strip_prefix('"')?;
                    after.split_once('"').map(|(r, _)| r.to_string())
                })
                .unwrap_or_else(|| "(no reason)".to_string());
            out.push(format!("{rel}: {reason}"));
        }
    }
    out.sort();
    out
}

#[test]
fn every_raw_effect_site_is_listed_and_reasoned() {
    let found = sites();
    assert!(
        found.iter().all(|s| !s.ends_with("(no reason)")),
        "a disallowed-methods allow without a reason:\n{}",
        found
            .iter()
            .filter(|s| s.ends_with("(no reason)"))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let list = workspace_root().join("tests/syscall-sites.txt");
    let rendered = format!(
        "# Reviewed raw-effect sites: `file: reason`, one per #[allow(clippy::disallowed_methods)].\n# Regenerate after review with RALC_BLESS=1 cargo test -p ralc-tests --test syscall_sites.\n{}\n",
        found.join("\n")
    );
    #[allow(
        clippy::disallowed_methods,
        reason = "test scaffolding: RALC_BLESS asks to regenerate the reviewed list"
    )]
    let bless = std::env::var_os("RALC_BLESS").is_some();
    if bless {
        std::fs::write(&list, &rendered).expect("write the site list");
        return;
    }
    let expected = std::fs::read_to_string(&list).unwrap_or_default();
    assert_eq!(
        expected, rendered,
        "the raw-effect sites changed: review them, then RALC_BLESS=1 to update tests/syscall-sites.txt"
    );
}
