//! What git reads as configuration or runs, in every writable tree the envelope shows,
//! kept read-only whether it exists at launch or not: in each git directory (`W/.git`, or
//! `W` itself when it is one) `config`, `config.worktree`, `hooks/`, `commondir`,
//! `info/attributes`, `info/exclude` and `worktrees/*/{commondir,gitdir,config.worktree}`, and a `.git`
//! *file* (a worktree pointer). What exists is bound read-only over itself; what is absent
//! gets a placeholder made for the run (an empty file, an empty `hooks/`, a `commondir`
//! holding `.`, which git reads as "this directory"), bound read-only, and removed when
//! the run ends. What git writes while working (objects, refs, the index, logs) stays
//! writable. It never changes an existing file, never follows a symlink, and removes only
//! the placeholders it made, when they are still what it made.

use super::placeholders::{Form, Placeholders};

/// The files of a git directory git reads as configuration or runs, with the
/// placeholder an absent one gets (`None`: a directory).
const GIT_STATE: &[(&str, Option<&str>)] = &[
    ("config", Some("")),
    ("config.worktree", Some("")),
    ("hooks", None),
    ("commondir", Some(".\n")),
    ("info/attributes", Some("")),
    // What git leaves out of `git status`: a planted file listed here (a `GNUmakefile`
    // the host's next `make` prefers) would never show in the host's review of the run.
    ("info/exclude", Some("")),
];

/// The files of each `worktrees/NAME/` git reads to find its repository.
const WORKTREE_STATE: &[&str] = &["commondir", "gitdir", "config.worktree"];

/// What `protect` found and made: the paths to bind read-only, and the placeholders to
/// remove when the run ends (on drop).
#[derive(Debug, Default)]
pub struct GitState {
    /// Every path to bind read-only over itself (existing and placeholders), sorted.
    pub read_only: Vec<String>,
    /// Each `W/.git` directory, to bind writable over itself: a mount point cannot be
    /// renamed, so no other `.git` can take its place with a config of the program's.
    pub guarded: Vec<String>,
    /// The placeholders made, removed on drop.
    pub made: Placeholders,
}

/// Is `dir` a git directory (a `HEAD` file and an `objects` directory)?
fn is_git_dir(dir: &str) -> bool {
    let kind = |p: String| std::fs::symlink_metadata(p).ok().map(|m| m.file_type());
    matches!(kind(format!("{dir}/HEAD")), Some(t) if t.is_file())
        && matches!(kind(format!("{dir}/objects")), Some(t) if t.is_dir())
}

/// The git state of every writable tree in `writable` (real paths of directories).
/// A placeholder that cannot be made is an error: the launch refuses rather than leave
/// the path writable.
///
/// `dry` (`ralc render --argv`): no placeholder is made; an absent file is left out of
/// `read_only` and named in `made.would_make()`.
pub fn protect(writable: &[String], dry: bool) -> std::io::Result<GitState> {
    let mut st = GitState {
        made: if dry {
            Placeholders::dry()
        } else {
            Placeholders::default()
        },
        ..GitState::default()
    };
    for w in writable {
        let w = w.trim_end_matches('/');
        let dot = format!("{w}/.git");
        let mut dirs = Vec::new();
        match std::fs::symlink_metadata(&dot) {
            Ok(m) if m.file_type().is_dir() => {
                st.guarded.push(dot.clone());
                dirs.push(dot);
            }
            // A worktree pointer, or a link planted where `.git` would be: read-only.
            Ok(m) if m.file_type().is_file() => st.read_only.push(dot),
            _ => {}
        }
        if is_git_dir(w) {
            dirs.push(w.to_string());
        }
        for g in dirs {
            st.git_dir(&g)?;
        }
    }
    st.read_only.sort();
    st.read_only.dedup();
    Ok(st)
}

impl GitState {
    fn git_dir(&mut self, g: &str) -> std::io::Result<()> {
        for (name, placeholder) in GIT_STATE {
            let p = format!("{g}/{name}");
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(std::io::Error::other(format!(
                        "{p} is a symlink: git would follow it"
                    )))
                }
                Ok(_) => self.read_only.push(p),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let form = match placeholder {
                        Some(text) => Form::File(text),
                        None => Form::Dir,
                    };
                    match self.made.make(&p, form) {
                        Ok(()) if self.made.is_dry() => {}
                        Ok(()) => self.read_only.push(p),
                        // Not creatable by this user: nor by the program.
                        Err(e) if super::placeholders::uncreatable(&e) => {}
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        if let Ok(rd) = std::fs::read_dir(format!("{g}/worktrees")) {
            for e in rd.flatten() {
                if !e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                    continue;
                }
                let Some(n) = e.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                for f in WORKTREE_STATE {
                    let p = format!("{g}/worktrees/{n}/{f}");
                    if std::fs::symlink_metadata(&p).is_ok() {
                        self.read_only.push(p);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_git_state_is_listed_absent_gets_placeholders_removed_after() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path().to_str().unwrap().to_string();
        let g = format!("{w}/.git");
        std::fs::create_dir_all(format!("{g}/objects")).unwrap();
        std::fs::create_dir_all(format!("{g}/worktrees/wt")).unwrap();
        std::fs::write(format!("{g}/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(format!("{g}/config"), "[core]\n").unwrap();
        std::fs::write(format!("{g}/worktrees/wt/gitdir"), "/x/.git\n").unwrap();
        let st = protect(std::slice::from_ref(&w), false).unwrap();
        assert_eq!(st.guarded, vec![g.clone()]);
        for p in [
            "config",
            "config.worktree",
            "hooks",
            "commondir",
            "info/attributes",
            "worktrees/wt/gitdir",
        ] {
            assert!(st.read_only.contains(&format!("{g}/{p}")), "{p}: {st:?}");
        }
        assert_eq!(
            std::fs::read_to_string(format!("{g}/commondir")).unwrap(),
            ".\n"
        );
        assert!(std::path::Path::new(&format!("{g}/hooks")).is_dir());
        drop(st);
        for p in ["config.worktree", "hooks", "commondir", "info"] {
            assert!(
                std::fs::symlink_metadata(format!("{g}/{p}")).is_err(),
                "{p} left behind"
            );
        }
        assert_eq!(
            std::fs::read_to_string(format!("{g}/config")).unwrap(),
            "[core]\n"
        );
    }

    #[test]
    fn a_git_file_is_read_only_and_a_non_repository_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path().to_str().unwrap().to_string();
        std::fs::write(format!("{w}/.git"), "gitdir: /elsewhere\n").unwrap();
        let st = protect(std::slice::from_ref(&w), false).unwrap();
        assert_eq!(st.read_only, vec![format!("{w}/.git")]);
        let plain = tempfile::tempdir().unwrap();
        let p = plain.path().to_str().unwrap().to_string();
        let st = protect(std::slice::from_ref(&p), false).unwrap();
        assert!(st.read_only.is_empty());
        assert_eq!(std::fs::read_dir(&p).unwrap().count(), 0);
    }
}
