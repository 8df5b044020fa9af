//! Vouched link chains (`docs/model.md`, "Programs reached through a link"): the symbolic
//! links a program is reached through from where it was found, each where it sits (its
//! directory resolved, the link itself not followed), kept only while the host vouches
//! for the directory holding every one of them (root's, writable by no one else, as a
//! carrier's is: only root can place or replace a link there). What is on the disk comes through the `Disk` trait; the walk
//! itself is pure. It never vouches for a chain with one unvouched hop: the whole chain
//! is dropped, so a link the confined program could have planted admits nothing.

use super::disk::{Disk, ListedLink};
use crate::capability::resolve::LinkChain;
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
/// link as its directory's real path joined with its name, in the order followed, and the
/// file the last one leads to. `None` when `at` is not a link, or when any link on the
/// way, or a directory holding one, is not vouched for, or the chain does not end within
/// [`MAX_HOPS`].
///
/// `dir_real` resolves a directory as the freeze does, and `dir_vouched` asks
/// `Disk::vouched_dir` of a real directory (both may remember their answers for one batch).
pub fn vouched_chain(
    disk: &dyn Disk,
    at: &str,
    dir_real: &dyn Fn(&str) -> Option<String>,
    dir_vouched: &dyn Fn(&str) -> bool,
) -> Option<LinkChain> {
    walk(
        disk,
        fold_dots_under(at, PathRules::Posix),
        Vec::new(),
        dir_real,
        dir_vouched,
    )
}

/// The chain of a link a listing of the real directory `dir` showed (`Disk::links_in`):
/// as [`vouched_chain`] of the link's own path, its first hop taken from the listing and
/// vouched for by its directory alone (only root can place an entry in a directory that is
/// root's and writable by no one else; a link there owned by another user is one root gave
/// away, which the listing does not ask, to spare a `stat` per link).
pub fn listed_chain(
    disk: &dyn Disk,
    dir: &str,
    link: &ListedLink,
    dir_real: &dyn Fn(&str) -> Option<String>,
    dir_vouched: &dyn Fn(&str) -> bool,
) -> Option<LinkChain> {
    if !dir_vouched(dir) {
        return None;
    }
    let next = next_hop(dir, &link.target);
    walk(
        disk,
        next,
        vec![RealPath::from_resolved(join(dir, &link.name))],
        dir_real,
        dir_vouched,
    )
}

/// Where a link's target text leads from the directory holding it, folded.
fn next_hop(dir: &str, target: &str) -> String {
    if target.starts_with('/') {
        fold_dots_under(target, PathRules::Posix)
    } else {
        fold_dots_under(&join(dir, target), PathRules::Posix)
    }
}

fn walk(
    disk: &dyn Disk,
    mut p: String,
    mut out: Vec<RealPath>,
    dir_real: &dyn Fn(&str) -> Option<String>,
    dir_vouched: &dyn Fn(&str) -> bool,
) -> Option<LinkChain> {
    for _ in 0..MAX_HOPS {
        let name = p.rsplit('/').next().filter(|n| !n.is_empty())?;
        let dir = dir_real(parent(&p))?;
        let here = join(&dir, name);
        match disk.link_owner(&here) {
            None if out.is_empty() => return None,
            None => {
                return Some(LinkChain {
                    links: out,
                    target: RealPath::from_resolved(here),
                })
            }
            // A link is vouched by its directory (see `listed_chain`).
            Some(_) if dir_vouched(&dir) => {}
            Some(_) => return None,
        }
        let target = disk.read_link(&here)?;
        p = next_hop(&dir, &target);
        out.push(RealPath::from_resolved(here));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freeze::disk::MemDisk;

    fn names(v: Option<LinkChain>) -> Vec<String> {
        v.map(|c| c.links)
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.as_str().to_owned())
            .collect()
    }

    fn vouched_chain(d: &MemDisk, at: &str) -> Option<LinkChain> {
        let real = |p: &str| {
            d.canonicalize(p)
                .ok()
                .and_then(|p| p.to_str().map(str::to_owned))
        };
        super::vouched_chain(d, at, &real, &|p| d.vouched_dir(p))
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
            .link("/work/bin/planted", "/work/evil")
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
        assert_eq!(
            vouched_chain(&d, "/bin/java").map(|c| c.target),
            Some(RealPath::from_resolved("/usr/lib/jvm/j17/bin/java"))
        );
    }

    #[test]
    fn one_unvouched_link_drops_the_chain_and_a_file_has_none() {
        let d = debian();
        // A link in a directory no one vouches for.
        assert!(vouched_chain(&d, "/work/bin/planted").is_none());
        assert!(vouched_chain(&d, "/usr/lib/jvm/j17/bin/java").is_none());
        // A chain through such a directory.
        let d = debian()
            .link("/usr/bin/javac", "/opt/alt/javac")
            .link("/opt/alt/javac", "/usr/lib/jvm/j17/bin/javac")
            .exe("/usr/lib/jvm/j17/bin/javac")
            .vouch("/usr/bin/javac");
        assert!(vouched_chain(&d, "/usr/bin/javac").is_none());
    }

    #[test]
    fn a_listed_link_walks_as_its_path_does() {
        let d = debian();
        let real = |p: &str| {
            d.canonicalize(p)
                .ok()
                .and_then(|p| p.to_str().map(str::to_owned))
        };
        let listed = d.links_in("/usr/bin");
        assert_eq!(
            listed.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
            ["java", "npm", "planted"]
        );
        for l in &listed {
            let got = listed_chain(&d, "/usr/bin", l, &real, &|p| d.vouched_dir(p));
            assert_eq!(got, vouched_chain(&d, &format!("/usr/bin/{}", l.name)));
        }
    }

    #[test]
    fn a_loop_ends_with_nothing() {
        let d = MemDisk::new()
            .link("/usr/bin/a", "b")
            .link("/usr/bin/b", "a")
            .vouch("/usr/bin/a")
            .vouch("/usr/bin/b");
        assert!(vouched_chain(&d, "/usr/bin/a").is_none());
    }
}
