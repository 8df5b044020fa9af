//! The carve planner (Windows): a deny stamps nothing on Windows (the AppContainer pass
//! of the access check never lets a deny ACE take back what a capability ACE admits), so
//! an allowance holding exclusions is replaced by its existing entries less the excluded
//! ones, down to each exclusion, each directory on the way granted only its own listing
//! (`ls`, an ACE nothing inherits): a name made there later, the excluded one included,
//! reaches nothing granted. Links among the entries are neither granted nor followed.
//!
//! Pure over an injected `Lister`: it must never read the disk itself, never grant an
//! entry an exclusion covers under any spelling, and never descend through a link.

use crate::path::windows::within_collision;
use ralc_runtime::plan::windows::{EntryKind, GrantKind, ListError, Lister};

/// What one allowance carved to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Carved {
    /// The stamps replacing the allowance, in walk order.
    pub stamps: Vec<(String, GrantKind)>,
    /// Every directory on the way could be listed (false: the lister could not see this
    /// disk, and only the directories on the way to each exclusion were granted).
    pub listed: bool,
    /// Links met among the entries: neither granted nor followed.
    pub links: Vec<String>,
}

/// Carve `exclusions` (canonical, each strictly beneath `allowance` under the collision
/// identity) out of `allowance` granted as `kind`. An error names a directory on the way
/// that exists and cannot be listed: the plan refuses rather than guess.
pub fn carve(
    allowance: &str,
    kind: GrantKind,
    exclusions: &[String],
    lister: &dyn Lister,
) -> Result<Carved, String> {
    let mut out = Carved {
        listed: true,
        ..Carved::default()
    };
    walk(allowance, allowance, kind, exclusions, lister, &mut out)?;
    Ok(out)
}

fn walk(
    allowance: &str,
    dir: &str,
    kind: GrantKind,
    exclusions: &[String],
    lister: &dyn Lister,
    out: &mut Carved,
) -> Result<(), String> {
    // the exclusions beneath this directory (always some: the walk descends only there)
    let beneath: Vec<String> = exclusions
        .iter()
        .filter(|e| within_collision(dir, e) && !within_collision(e, dir))
        .cloned()
        .collect();
    match lister.list(dir) {
        Ok(mut entries) => {
            out.stamps.push((dir.to_string(), GrantKind::Ls));
            entries.sort();
            for (name, entry) in entries {
                let path = format!("{dir}\\{name}");
                if beneath.iter().any(|e| within_collision(e, &path)) {
                    continue; // excluded, under every spelling
                }
                let holds = beneath.iter().any(|e| within_collision(&path, e));
                match entry {
                    EntryKind::Link => out.links.push(path),
                    EntryKind::Dir if holds => {
                        walk(allowance, &path, kind, &beneath, lister, out)?;
                    }
                    // a file an exclusion lies beneath (a stream, say) is not granted
                    EntryKind::File if holds => {}
                    EntryKind::Dir | EntryKind::File => out.stamps.push((path, kind)),
                }
            }
            Ok(())
        }
        // nothing there now: nothing to grant, and a directory made later reaches nothing
        Err(ListError::Missing) => Ok(()),
        Err(ListError::Unavailable) => {
            // This host cannot see the disk: grant only the listing of each directory on
            // the way, which is narrower than asked; the launch carves again.
            out.listed = false;
            out.stamps.push((dir.to_string(), GrantKind::Ls));
            let mut next: Vec<String> = beneath
                .iter()
                .filter_map(|e| {
                    let rest = e.get(dir.len() + 1..)?;
                    let name = rest.split('\\').next()?;
                    let child = format!("{dir}\\{name}");
                    (!within_collision(e, &child)).then_some(child)
                })
                .collect();
            next.sort();
            next.dedup();
            for child in next {
                walk(allowance, &child, kind, &beneath, lister, out)?;
            }
            Ok(())
        }
        Err(ListError::Unreadable(why)) => Err(format!(
            "cannot carve the exclusions out of `{allowance}`: `{dir}` cannot be listed ({why}); \
             nothing was stamped"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// An in-memory directory tree: paths to kinds; parents implied as directories.
    #[derive(Default)]
    pub struct MemTree {
        entries: BTreeMap<String, EntryKind>,
        unreadable: Vec<String>,
    }

    impl MemTree {
        fn with(mut self, path: &str, kind: EntryKind) -> Self {
            let mut acc = String::new();
            let names: Vec<&str> = path.split('\\').collect();
            for (i, n) in names.iter().enumerate() {
                if i > 0 {
                    acc.push('\\');
                }
                acc.push_str(n);
                if i + 1 < names.len() && i > 0 {
                    self.entries.entry(acc.clone()).or_insert(EntryKind::Dir);
                }
            }
            self.entries.insert(path.to_string(), kind);
            self
        }
        fn dir(self, p: &str) -> Self {
            self.with(p, EntryKind::Dir)
        }
        fn file(self, p: &str) -> Self {
            self.with(p, EntryKind::File)
        }
        fn link(self, p: &str) -> Self {
            self.with(p, EntryKind::Link)
        }
    }

    impl Lister for MemTree {
        fn list(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, ListError> {
            if self.unreadable.iter().any(|u| u == dir) {
                return Err(ListError::Unreadable("access denied".into()));
            }
            if self.entries.get(dir) != Some(&EntryKind::Dir) {
                return Err(ListError::Missing);
            }
            let prefix = format!("{dir}\\");
            Ok(self
                .entries
                .iter()
                .filter_map(|(p, k)| {
                    let rest = p.strip_prefix(&prefix)?;
                    (!rest.contains('\\')).then(|| (rest.to_string(), *k))
                })
                .collect())
        }
    }

    struct Blind;
    impl Lister for Blind {
        fn list(&self, _dir: &str) -> Result<Vec<(String, EntryKind)>, ListError> {
            Err(ListError::Unavailable)
        }
    }

    fn proj() -> MemTree {
        MemTree::default()
            .dir("C:\\p")
            .file("C:\\p\\a.txt")
            .dir("C:\\p\\src")
            .file("C:\\p\\src\\main.rs")
            .dir("C:\\p\\conf")
            .file("C:\\p\\conf\\secret.key")
            .file("C:\\p\\conf\\public.toml")
            .dir("C:\\p\\conf\\deep")
            .file("C:\\p\\conf\\deep\\token")
            .file("C:\\p\\conf\\deep\\ok")
            .link("C:\\p\\elsewhere")
    }

    fn stamps(c: &Carved) -> Vec<String> {
        c.stamps
            .iter()
            .map(|(p, k)| format!("{} {p}", k.as_str()))
            .collect()
    }

    #[test]
    fn one_exclusion_is_carved_down_to() {
        let c = carve(
            "C:\\p",
            GrantKind::Rw,
            &["C:\\p\\conf\\secret.key".into()],
            &proj(),
        )
        .expect("carved");
        assert_eq!(
            stamps(&c),
            [
                "ls C:\\p",
                "rw C:\\p\\a.txt",
                "ls C:\\p\\conf",
                "rw C:\\p\\conf\\deep",
                "rw C:\\p\\conf\\public.toml",
                "rw C:\\p\\src",
            ]
        );
        assert_eq!(
            c.links,
            ["C:\\p\\elsewhere"],
            "a link is neither granted nor followed"
        );
        assert!(c.listed);
    }

    #[test]
    fn nested_exclusions_each_carved() {
        let c = carve(
            "C:\\p",
            GrantKind::Ro,
            &[
                "C:\\p\\conf\\secret.key".into(),
                "C:\\p\\conf\\deep\\token".into(),
                // an exclusion within another adds nothing
                "C:\\p\\src\\main.rs".into(),
                "C:\\p\\src".into(),
            ],
            &proj(),
        )
        .expect("carved");
        assert_eq!(
            stamps(&c),
            [
                "ls C:\\p",
                "ro C:\\p\\a.txt",
                "ls C:\\p\\conf",
                "ls C:\\p\\conf\\deep",
                "ro C:\\p\\conf\\deep\\ok",
                "ro C:\\p\\conf\\public.toml",
            ]
        );
    }

    #[test]
    fn exclusions_match_under_every_spelling() {
        let c = carve(
            "C:\\p",
            GrantKind::Rw,
            &["C:\\P\\CONF\\SECRET.KEY".into()],
            &proj(),
        )
        .expect("carved");
        assert!(!stamps(&c).iter().any(|s| s.contains("secret")));
        assert!(stamps(&c).contains(&"ls C:\\p\\conf".to_string()));
    }

    /// Entries created later reach nothing: every directory on the way is granted only its
    /// listing (an ACE nothing inherits), so no stamp covers a new name there.
    #[test]
    fn entries_created_later_reach_nothing() {
        let c = carve(
            "C:\\p",
            GrantKind::Rw,
            &["C:\\p\\conf\\deep\\token".into()],
            &proj(),
        )
        .expect("carved");
        for later in [
            "C:\\p\\new.txt",
            "C:\\p\\conf\\new",
            "C:\\p\\conf\\deep\\token",
            "C:\\p\\conf\\deep\\new",
        ] {
            let reached = c.stamps.iter().any(|(p, k)| {
                (p == later) || (k.inherits() && crate::path::windows::within_stored(p, later))
            });
            assert!(!reached, "{later} is reached by {:?}", c.stamps);
        }
        // …while an existing sibling's subtree keeps its inherited grant
        assert!(c
            .stamps
            .iter()
            .any(|(p, k)| p == "C:\\p\\src" && *k == GrantKind::Rw));
    }

    #[test]
    fn an_unreadable_directory_on_the_way_refuses() {
        let mut t = proj();
        t.unreadable.push("C:\\p\\conf".into());
        let e = carve(
            "C:\\p",
            GrantKind::Rw,
            &["C:\\p\\conf\\secret.key".into()],
            &t,
        )
        .expect_err("refused");
        assert!(
            e.contains("C:\\p\\conf") && e.contains("cannot be listed"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_allowance_grants_nothing() {
        let c = carve("C:\\gone", GrantKind::Rw, &["C:\\gone\\x".into()], &proj()).expect("carved");
        assert!(c.stamps.is_empty());
    }

    #[test]
    fn a_blind_lister_grants_only_the_way() {
        let c = carve(
            "C:\\p",
            GrantKind::Rw,
            &["C:\\p\\conf\\deep\\token".into()],
            &Blind,
        )
        .expect("carved");
        assert!(!c.listed);
        assert_eq!(
            stamps(&c),
            ["ls C:\\p", "ls C:\\p\\conf", "ls C:\\p\\conf\\deep"]
        );
    }
}
