//! The post-run audit of what a confined program planted for the host to run later, where
//! no kernel rule can forbid it: a repository it created or reached inside a write grant
//! (`sub/.git/config` with `core.fsmonitor`, `.git/modules/*/config`, a worktree's
//! `config.worktree`), an executable hook, a `.gitmodules` with an `update = !cmd`. After
//! the wait, each write root is walked (bounded in depth and entries; `objects/` of a git
//! directory, `target/` and `node_modules/` skipped unless changed during the run, links
//! never followed) for such files changed since the launch whose content sets a key that
//! makes git run a program; tool configs changed at any depth that name a program for a
//! host tool (`.cargo/config.toml`, `.envrc`, `.github/workflows/`, …); and links made
//! during the run that lead out of every write grant (`target/debug -> ~/.local/bin`).
//! It only reads (each file at most `MAX_FILE` bytes); it never
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
    /// What the host would run (the value, or the hook file itself); for a link, where
    /// it leads.
    pub runs: String,
    /// Which host tool reads it (`git`, `cargo`, `direnv`, …), or `link` for a planted
    /// symbolic link that leads out of every write grant.
    pub host: &'static str,
}

/// The tool configs, by name, that make a host tool run a program named in them, and the
/// tool: a file of this name changed during the run, at any depth, is reported.
const TOOL_FILES: &[(&str, &str)] = &[
    (".envrc", "direnv"),
    (".npmrc", "npm"),
    (".yarnrc", "yarn"),
    (".yarnrc.yml", "yarn"),
    (".pre-commit-config.yaml", "pre-commit"),
    (".tool-versions", "asdf/mise"),
    ("rust-toolchain", "rustup"),
    ("rust-toolchain.toml", "rustup"),
];

/// The directories, by name, every file of which a host tool may run or load (a file
/// changed in one, at any depth below it, is reported), and the tool.
const TOOL_DIRS: &[(&str, &str)] = &[
    (".vscode", "the editor"),
    (".idea", "the IDE"),
    (".husky", "git (husky)"),
    (".github/workflows", "CI"),
];

/// Directories a build fills with what it fetched or produced: tool configs there are
/// the packages' own, never read by a host tool run from the project (`target/`,
/// `node_modules/`, a venv's `site-packages/`).
fn dependency_tree(name: &str) -> bool {
    matches!(
        name,
        "target" | "node_modules" | "site-packages" | "dist-packages"
    )
}

/// A directory whose links are a package manager's own: inside `node_modules/` (its
/// `.bin`, pnpm's store links) or `site-packages/`, and a venv's `bin/` (its `python`
/// links to the interpreter it was made from, outside the project).
fn package_links(dir: &Path) -> bool {
    dir.components().any(|c| {
        matches!(
            c.as_os_str().to_str(),
            Some("node_modules" | "site-packages" | "dist-packages")
        )
    }) || (dir.file_name().is_some_and(|n| n == "bin")
        && dir.parent().is_some_and(|v| v.join("pyvenv.cfg").is_file()))
}

/// The tool that reads `name` in `dir`, when it is a tool config that can run a program.
fn tool_file(dir: &Path, name: &str) -> Option<&'static str> {
    if dir.file_name().is_some_and(|d| d == ".cargo") && (name == "config" || name == "config.toml")
    {
        return Some("cargo");
    }
    TOOL_FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The tool whose directory `dir` is or lies in, below `root`.
fn tool_dir(root: &Path, dir: &Path) -> Option<&'static str> {
    let rel = dir.strip_prefix(root).ok()?;
    let comps: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    TOOL_DIRS.iter().find_map(|(d, t)| {
        let want: Vec<&str> = d.split('/').collect();
        comps
            .windows(want.len())
            .any(|w| w.iter().zip(&want).all(|(a, b)| a == b))
            .then_some(*t)
    })
}

/// Lexically folded `p` (`.` and `..` removed), absolute when `p` is.
fn fold(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The real path of `p` on the host now (symlinks followed), when it exists.
#[allow(
    clippy::disallowed_methods,
    reason = "the audit resolves where a planted link leads on the host; it only reads"
)]
fn host_real(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

/// Where the link at `p` leads: its target's real path when that exists, else the
/// nearest existing ancestor's real path with the rest appended.
fn link_lands(p: &Path) -> Option<PathBuf> {
    let t = std::fs::read_link(p).ok()?;
    let joined = fold(&p.parent()?.join(t));
    let mut tail = Vec::new();
    let mut at = joined.as_path();
    loop {
        if let Some(real) = host_real(at) {
            let mut r = real;
            for c in tail.iter().rev() {
                r.push(c);
            }
            return Some(r);
        }
        tail.push(at.file_name()?.to_os_string());
        at = at.parent()?;
    }
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
                host: "git",
            });
        }
    }
}

struct Walk {
    since: SystemTime,
    /// Every write root, real: a link leading out of all of them is reported.
    roots: Vec<PathBuf>,
    /// The write root being walked.
    root: PathBuf,
    budget: usize,
    out: Vec<Planted>,
}

impl Walk {
    fn dir(&mut self, dir: &Path, depth: usize, deps: bool) {
        if depth > MAX_DEPTH {
            return;
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let git = is_git_dir(dir);
        let hooks =
            dir.file_name().is_some_and(|n| n == "hooks") && dir.parent().is_some_and(is_git_dir);
        let mut subdirs: Vec<(PathBuf, bool)> = Vec::new();
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
            if md.file_type().is_symlink() {
                if changed_since(&md, self.since) && !package_links(dir) {
                    self.link(&p);
                }
                continue;
            }
            if md.is_dir() {
                // The kernel's own trees (a write grant of `/` holds them): their links
                // are the kernel's, nothing a host tool writes through.
                if matches!(p.to_str(), Some("/proc" | "/sys" | "/dev")) {
                    continue;
                }
                let heavy = matches!(name.as_ref(), "target" | "node_modules")
                    || (git && name == "objects");
                if !heavy || (!git && changed_since(&md, self.since)) {
                    let deps = deps || dependency_tree(&name);
                    subdirs.push((p, deps));
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
                        host: "git",
                    });
                }
            } else if (git && (name == "config" || name == "config.worktree"))
                || name == ".gitmodules"
            {
                judge_config(&p, &md, &mut self.out);
            } else if !deps && !git {
                let tool = tool_file(dir, &name).or_else(|| tool_dir(&self.root, dir));
                if let Some(tool) = tool {
                    self.out.push(Planted {
                        file: p.display().to_string(),
                        key: "a tool config".to_string(),
                        runs: p.display().to_string(),
                        host: tool,
                    });
                }
            }
        }
        subdirs.sort();
        for (d, deps) in subdirs {
            self.dir(&d, depth + 1, deps);
        }
    }

    /// A link made or changed during the run: reported when it leads out of every write
    /// root (the host's next write through it lands there: `target/debug -> ~/.local/bin`).
    fn link(&mut self, p: &Path) {
        let lands = link_lands(p);
        let inside = lands
            .as_ref()
            .is_some_and(|l| self.roots.iter().any(|r| l.starts_with(r)));
        if !inside {
            self.out.push(Planted {
                file: p.display().to_string(),
                key: "a symbolic link".to_string(),
                runs: lands.map_or_else(
                    || "an unresolvable place".to_string(),
                    |l| l.display().to_string(),
                ),
                host: "link",
            });
        }
    }
}

/// The keys and hooks planted under `roots` (absolute directories) since `since`.
pub fn audit(roots: &[String], since: SystemTime) -> Vec<Planted> {
    let mut roots: Vec<&String> = roots.iter().collect();
    roots.sort();
    roots.dedup();
    let mut w = Walk {
        since,
        roots: roots
            .iter()
            .map(|r| host_real(Path::new(r)).unwrap_or_else(|| PathBuf::from(r)))
            .collect(),
        root: PathBuf::new(),
        budget: MAX_ENTRIES,
        out: Vec::new(),
    };
    for r in roots {
        let p = Path::new(r);
        if p.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            w.root = p.to_path_buf();
            w.dir(p, 0, false);
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

    #[test]
    fn tool_configs_at_any_depth_and_links_out_of_the_grant() {
        let d = tempfile::tempdir().unwrap();
        let base = host_real(d.path()).unwrap();
        let proj = base.join("proj");
        let outside = base.join("outside");
        std::fs::create_dir_all(proj.join("crates/m/.cargo")).unwrap();
        std::fs::create_dir_all(proj.join("node_modules/p/.cargo")).unwrap();
        std::fs::create_dir_all(proj.join("node_modules/.bin")).unwrap();
        std::fs::create_dir_all(proj.join("a/.github/workflows")).unwrap();
        std::fs::create_dir_all(proj.join("target")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let since = SystemTime::now() - std::time::Duration::from_secs(1);
        std::fs::write(proj.join("crates/m/.cargo/config.toml"), "[build]\n").unwrap();
        std::fs::write(proj.join("node_modules/p/.cargo/config.toml"), "x").unwrap();
        std::fs::write(proj.join("a/.github/workflows/ci.yml"), "x").unwrap();
        std::fs::write(proj.join("sub.envrc"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, proj.join("target/debug")).unwrap();
        std::os::unix::fs::symlink("../p", proj.join("node_modules/.bin/p")).unwrap();
        std::os::unix::fs::symlink("crates", proj.join("in-link")).unwrap();
        std::os::unix::fs::symlink("../outside/new", proj.join("dangling")).unwrap();
        let root = proj.to_str().unwrap().to_string();
        let found = audit(std::slice::from_ref(&root), since);
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|f| (f.file.strip_prefix(&root).unwrap(), f.host))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/a/.github/workflows/ci.yml", "CI"),
                ("/crates/m/.cargo/config.toml", "cargo"),
                ("/dangling", "link"),
                ("/target/debug", "link"),
            ]
        );
        // With the outside granted too, the links lead inside a write grant.
        let both = [root.clone(), outside.to_str().unwrap().to_string()];
        assert_eq!(
            audit(&both, since)
                .iter()
                .filter(|f| f.host == "link")
                .count(),
            0
        );
    }
}
