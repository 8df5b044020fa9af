//! Vouched link chains (`docs/model.md`, "Programs reached through a link"): the symbolic
//! links a program is reached through from where it was found, each where it sits (its
//! directory resolved, the link itself not followed), kept only while the host vouches
//! for every one of them and the directories holding them (root's, writable by no one
//! else), as carriers are. What is on the disk comes through the `Disk` trait; the walk
//! itself is pure. It never vouches for a chain with one unvouched hop: the whole chain
//! is dropped, so a link the confined program could have planted admits nothing.

use super::disk::Disk;
use crate::path::frozen::RealPath;
use crate::path::lex::{fold_dots_under, PathRules};

/// The kernel follows at most this many links in one resolution (`MAXSYMLINKS`).
pub const MAX_HOPS: usize = 40;

/// The directory part of an absolute path (`/` for a top-level entry).
fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The vouched links from `at` (an absolute path, as found or given) to its file: each
/// link as its directory's real path joined with its name, in the order followed. Empty
/// when `at` is not a link, or when any link on the way, or a directory holding one, is
/// not vouched for, or the chain does not end within [`MAX_HOPS`].
pub fn vouched_chain(disk: &dyn Disk, at: &str) -> Vec<RealPath> {
    let mut out: Vec<RealPath> = Vec::new();
    let mut p = fold_dots_under(at, PathRules::Posix);
    for _ in 0..MAX_HOPS {
        let Some(name) = p.rsplit('/').next().filter(|n| !n.is_empty()) else {
            return out;
        };
        let Ok(dir) = disk.canonicalize(parent(&p)) else {
            return Vec::new();
        };
        let Some(dir) = dir.to_str() else {
            return Vec::new();
        };
        let here = join(dir, name);
        if !disk.is_symlink(&here) {
            return out;
        }
        if !disk.vouched_link(&here) {
            return Vec::new();
        }
        let Some(target) = disk.read_link(&here) else {
            return Vec::new();
        };
        p = if target.starts_with('/') {
            fold_dots_under(&target, PathRules::Posix)
        } else {
            fold_dots_under(&join(dir, &target), PathRules::Posix)
        };
        out.push(RealPath::from_resolved(here));
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freeze::disk::MemDisk;

    fn names(v: Vec<RealPath>) -> Vec<String> {
        v.into_iter().map(|r| r.as_str().to_owned()).collect()
    }

    fn debian() -> MemDisk {
        MemDisk::new()
            .link("/bin", "usr/bin")
            .link("/usr/bin/java", "/etc/alternatives/java")
            .link("/etc/alternatives/java", "/usr/lib/jvm/j17/bin/java")
            .exe("/usr/lib/jvm/j17/bin/java")
            .link("/usr/bin/npm", "../lib/node_modules/npm/bin/npm-cli.js")
            .file(
                "/usr/lib/node_modules/npm/bin/npm-cli.js",
                "#!/usr/bin/env node\n",
            )
            .link("/usr/bin/planted", "/work/evil")
            .exe("/work/evil")
            .vouch("/usr/bin/java")
            .vouch("/etc/alternatives/java")
            .vouch("/usr/bin/npm")
    }

    #[test]
    fn a_chain_names_each_vouched_link_where_it_sits() {
        let d = debian();
        assert_eq!(
            names(vouched_chain(&d, "/usr/bin/java")),
            ["/usr/bin/java", "/etc/alternatives/java"]
        );
        // Reached through a linked directory: the link sits in the directory's real form.
        assert_eq!(
            names(vouched_chain(&d, "/bin/java")),
            ["/usr/bin/java", "/etc/alternatives/java"]
        );
        assert_eq!(names(vouched_chain(&d, "/usr/bin/npm")), ["/usr/bin/npm"]);
    }

    #[test]
    fn one_unvouched_link_drops_the_chain_and_a_file_has_none() {
        let d = debian();
        assert!(vouched_chain(&d, "/usr/bin/planted").is_empty());
        assert!(vouched_chain(&d, "/usr/lib/jvm/j17/bin/java").is_empty());
        let d = debian()
            .link("/usr/bin/javac", "/etc/alternatives/javac")
            .link("/etc/alternatives/javac", "/usr/lib/jvm/j17/bin/javac")
            .exe("/usr/lib/jvm/j17/bin/javac")
            .vouch("/usr/bin/javac");
        assert!(vouched_chain(&d, "/usr/bin/javac").is_empty());
    }

    #[test]
    fn a_loop_ends_with_nothing() {
        let d = MemDisk::new()
            .link("/usr/bin/a", "b")
            .link("/usr/bin/b", "a")
            .vouch("/usr/bin/a")
            .vouch("/usr/bin/b");
        assert!(vouched_chain(&d, "/usr/bin/a").is_empty());
    }
}
