//! The post-run audit of what a confined program planted for the host to run later, where
//! no kernel rule can forbid it: a repository it created or reached inside a write grant
//! (`sub/.git/config` with `core.fsmonitor`, `.git/modules/*/config`, a worktree's
//! `config.worktree`), an executable hook, a `.gitmodules` with an `update = !cmd`. After
//! the wait, each write root is walked (bounded in depth and entries; `objects/` of a git
//! directory, `target/` and `node_modules/` skipped unless changed during the run, links
//! never followed) for such files changed since the launch whose content sets a key that
//! makes git run a program. It only reads (each file at most `MAX_FILE` bytes); it never
//! changes, removes or runs anything — the caller warns, and the decision is the user's.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One key (or hook) that makes the host's git run a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    /// The file, absolute.
    pub file: String,
    /// The key as git spells it (`core.fsmonitor`), or `hook NAME`.
    pub key: String,
    /// What the host would run (the value, or the hook file itself).
    pub runs: String,
}

/// Directories walked below a write root.
const MAX_DEPTH: usize = 12;
/// Entries looked at in all, per audit.
const MAX_ENTRIES: usize = 200_000;
/// A config file read at most this long.
const MAX_FILE: u64 = 1 << 20;

fn changed_since(md: &std::fs::Metadata, since: SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ctime = SystemTime::UNIX_EPOCH
        + std::time::Duration::new(md.ctime().max(0) as u64, md.ctime_nsec().max(0) as u32);
    md.modified().is_ok_and(|m| m >= since) || ctime >= since
}

/// Is `dir` a git directory (a `HEAD` file and an `objects` directory in it)?
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD")
        .symlink_metadata()
        .is_ok_and(|m| m.is_file())
        && dir
            .join("objects")
            .symlink_metadata()
            .is_ok_and(|m| m.is_dir())
}

/// Does git run a program for `key` (lowercased section[.sub].name) set to `value`?
pub fn runs_a_program(key: &str, value: &str) -> bool {
    let v = value.trim();
    let parts: Vec<&str> = key.split('.').collect();
    let (section, name) = (parts[0], parts[parts.len() - 1]);
    let sub = parts.len() > 2;
    match (section, name) {
        ("core", "fsmonitor") => !matches!(
            v.to_ascii_lowercase().as_str(),
            "" | "false" | "true" | "no" | "yes" | "off" | "on" | "0" | "1"
        ),
        ("core", "hookspath" | "pager" | "editor" | "sshcommand" | "askpass" | "gitproxy") => true,
        ("diff", "external") => !sub,
        ("diff", "textconv" | "command") => sub,
        ("merge", "driver") => sub,
        ("filter", "clean" | "smudge" | "process") => sub,
        ("credential", "helper") => !v.is_empty(),
        ("alias", _) => v.starts_with('!'),
        ("gpg", "program") => true,
        ("sequence", "editor") => true,
        ("include", "path") => true,
        ("includeif", "path") => sub,
        ("uploadpack", "packobjectshook") => true,
        ("remote", "uploadpack" | "receivepack" | "vcs") => sub,
        ("submodule", "update") => sub && v.starts_with('!'),
        ("pager", _) | ("man", "cmd" | "path") | ("web", "browser") | ("browser", "cmd") => true,
        _ => false,
    }
}

/// The `(key, value)` pairs of a git config text, keys lowercased (`section.sub.name`; the
/// subsection keeps its case as git does, but matching here is on section and name).
pub fn config_keys(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let mut l = line.trim();
        if l.starts_with('#') || l.starts_with(';') || l.is_empty() {
            continue;
        }
        if let Some(rest) = l.strip_prefix('[') {
            let Some(end) = rest.find(']') else { continue };
            let head = &rest[..end];
            section = match head.split_once(|c: char| c.is_whitespace()) {
                Some((s, sub)) => format!(
                    "{}.{}",
                    s.to_ascii_lowercase(),
                    sub.trim().trim_matches('"')
                ),
                None => head.to_ascii_lowercase(),
            };
            l = rest[end + 1..].trim();
            if l.is_empty() || l.starts_with('#') || l.starts_with(';') {
                continue;
            }
        }
        let (name, value) = match l.split_once('=') {
            Some((n, v)) => (n.trim(), v.trim().trim_matches('"')),
            None => (l, "true"),
        };
        if section.is_empty() || name.is_empty() {
            continue;
        }
        out.push((
            format!("{section}.{}", name.to_ascii_lowercase()),
            value.to_string(),
        ));
    }
    out
}

fn read_small(p: &Path, md: &std::fs::Metadata) -> Option<String> {
    if !md.is_file() || md.len() > MAX_FILE {
        return None;
    }
    std::fs::read_to_string(p).ok()
}

fn judge_config(p: &Path, md: &std::fs::Metadata, out: &mut Vec<Planted>) {
    let Some(text) = read_small(p, md) else {
        return;
    };
    for (key, value) in config_keys(&text) {
        // The section and name decide; a subsection in between is kept for the report.
        let lower: Vec<String> = {
            let parts: Vec<&str> = key.split('.').collect();
            let n = parts.len();
            let mut v = vec![parts[0].to_string()];
            if n > 2 {
                v.push("sub".to_string());
            }
            v.push(parts[n - 1].to_string());
            v
        };
        if runs_a_program(&lower.join("."), &value) {
            out.push(Planted {
                file: p.display().to_string(),
                key,
                runs: value,
            });
        }
    }
}

struct Walk {
    since: SystemTime,
    budget: usize,
    out: Vec<Planted>,
}

impl Walk {
    fn dir(&mut self, dir: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let git = is_git_dir(dir);
        let hooks =
            dir.file_name().is_some_and(|n| n == "hooks") && dir.parent().is_some_and(is_git_dir);
        let mut subdirs: Vec<PathBuf> = Vec::new();
        for e in rd.flatten() {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            let p = e.path();
            let Ok(md) = p.symlink_metadata() else {
                continue;
            };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if md.is_dir() {
                let heavy = matches!(name.as_ref(), "target" | "node_modules")
                    || (git && name == "objects");
                if !heavy || (!git && changed_since(&md, self.since)) {
                    subdirs.push(p);
                }
                continue;
            }
            if !md.is_file() || !changed_since(&md, self.since) {
                continue;
            }
            if hooks {
                use std::os::unix::fs::PermissionsExt;
                if md.permissions().mode() & 0o111 != 0 && !name.ends_with(".sample") {
                    self.out.push(Planted {
                        file: p.display().to_string(),
                        key: format!("hook {name}"),
                        runs: p.display().to_string(),
                    });
                }
            } else if (git && (name == "config" || name == "config.worktree"))
                || name == ".gitmodules"
            {
                judge_config(&p, &md, &mut self.out);
            }
        }
        subdirs.sort();
        for d in subdirs {
            self.dir(&d, depth + 1);
        }
    }
}

/// The keys and hooks planted under `roots` (absolute directories) since `since`.
pub fn audit(roots: &[String], since: SystemTime) -> Vec<Planted> {
    let mut w = Walk {
        since,
        budget: MAX_ENTRIES,
        out: Vec::new(),
    };
    let mut roots: Vec<&String> = roots.iter().collect();
    roots.sort();
    roots.dedup();
    for r in roots {
        let p = Path::new(r);
        if p.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            w.dir(p, 0);
        }
    }
    w.out
        .sort_by(|a, b| (&a.file, &a.key).cmp(&(&b.file, &b.key)));
    w.out.dedup();
    w.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path) {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::create_dir_all(dir.join("hooks")).unwrap();
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn the_keys_that_run_a_program() {
        let text = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tfsmonitor = ./x.sh\n[alias]\n\tst = status\n\tsh = !sh -c id\n[filter \"lfs\"]\n\tsmudge = evil\n[submodule \"a\"]\n\tupdate = !run\n[includeIf \"gitdir:/x/\"]\n\tpath = /tmp/c\n";
        let mut out = Vec::new();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("config");
        std::fs::write(&p, text).unwrap();
        judge_config(&p, &p.symlink_metadata().unwrap(), &mut out);
        let keys: Vec<&str> = out.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            vec![
                "core.fsmonitor",
                "alias.sh",
                "filter.lfs.smudge",
                "submodule.a.update",
                "includeif.gitdir:/x/.path"
            ]
        );
    }

    #[test]
    fn a_planted_repository_is_found_and_a_fresh_one_is_not() {
        let d = tempfile::tempdir().unwrap();
        let since = SystemTime::now() - std::time::Duration::from_secs(1);
        let root = d.path().to_str().unwrap().to_string();
        // A benign repository, as `git init` leaves it.
        git(&d.path().join(".git"));
        std::fs::write(
            d.path().join(".git/config"),
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
        )
        .unwrap();
        std::fs::write(d.path().join(".git/hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        let exec = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(d.path().join(".git/hooks/pre-commit.sample"), exec.clone())
            .unwrap();
        assert_eq!(audit(std::slice::from_ref(&root), since), vec![]);
        // A nested repository with core.fsmonitor, a module's config, a live hook.
        git(&d.path().join("sub/.git"));
        std::fs::write(
            d.path().join("sub/.git/config"),
            "[core]\nfsmonitor = ./run\n",
        )
        .unwrap();
        git(&d.path().join(".git/modules/m"));
        std::fs::write(
            d.path().join(".git/modules/m/config"),
            "[core]\n\tpager = sh x\n",
        )
        .unwrap();
        std::fs::write(d.path().join(".git/hooks/post-checkout"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(d.path().join(".git/hooks/post-checkout"), exec).unwrap();
        let found = audit(std::slice::from_ref(&root), since);
        let keys: Vec<(&str, &str)> = found
            .iter()
            .map(|f| (f.file.strip_prefix(&root).unwrap(), f.key.as_str()))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("/.git/hooks/post-checkout", "hook post-checkout"),
                ("/.git/modules/m/config", "core.pager"),
                ("/sub/.git/config", "core.fsmonitor"),
            ]
        );
        // Changed before the launch: not this run's.
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        assert_eq!(audit(&[root], later), vec![]);
    }
}
