//! The workspace's files as the suites that read them see them (module headers, spec
//! citations, raw-effect sites): one walk, depth-first with each directory's entries in
//! name order, keeping the files with one of the given extensions. [`src_files`] lists a
//! `src/` tree, where every directory must be listable; [`tree_files`] lists a crate or
//! docs tree, passing over build output (`target/`) and what it cannot list. It only lists:
//! it never reads, writes or changes a file.

use std::path::{Path, PathBuf};

/// How a walk treats what it meets: a `src/` tree or a whole tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// A directory that cannot be listed fails the caller, naming it; nothing is skipped.
    Src,
    /// A directory that cannot be listed, or one named `target`, is passed over.
    Tree,
}

/// Every file under the `src/` tree `dir` whose extension is one of `exts`. A directory
/// that cannot be listed (`dir` itself included) fails the caller with its path.
pub fn src_files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, exts, Walk::Src, &mut out);
    out
}

/// Every file under `dir` whose extension is one of `exts`, passing over build output
/// (any directory named `target`) and any directory that cannot be listed (`dir` itself
/// included: then nothing).
pub fn tree_files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, exts, Walk::Tree, &mut out);
    out
}

fn walk(dir: &Path, exts: &[&str], how: Walk, out: &mut Vec<PathBuf>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(_) if how == Walk::Tree => return,
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if how == Walk::Tree && p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            walk(&p, exts, how, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
        {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a.rs`, `b.md`, `z/c.rs`, `target/d.rs` under a scratch directory.
    fn scratch() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for f in ["a.rs", "b.md", "z/c.rs", "target/d.rs"] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        d
    }

    fn names(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn a_src_walk_keeps_every_directory_and_the_asked_extensions_in_order() {
        let d = scratch();
        let got = src_files(d.path(), &["rs"]);
        assert_eq!(names(d.path(), &got), ["a.rs", "target/d.rs", "z/c.rs"]);
    }

    #[test]
    fn a_tree_walk_passes_over_build_output_and_what_is_missing() {
        let d = scratch();
        let got = tree_files(d.path(), &["rs", "md"]);
        assert_eq!(names(d.path(), &got), ["a.rs", "b.md", "z/c.rs"]);
        assert!(tree_files(&d.path().join("absent"), &["rs"]).is_empty());
    }

    #[test]
    #[should_panic(expected = "absent")]
    fn a_src_walk_of_a_missing_directory_fails_naming_it() {
        let d = scratch();
        src_files(&d.path().join("absent"), &["rs"]);
    }
}
