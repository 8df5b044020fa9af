//! `host-run-writable`: a file the host runs or sources later — git's hooks and config,
//! shell start-up files, editor project settings, the configs of cargo, npm and pip — that
//! the stack leaves writable. A confined program that rewrites one acts outside its
//! confinement the next time the host starts git, a shell or an editor. Judged on real
//! paths against the places the freeze resolved (`~`, `xdg:config`, `cwd:`, `gitdir:`),
//! by the model's write judgment. It reports; it must never change a verdict.

use super::judge::StackIndex;
use super::{Finding, Level, Lint, LintInfo, LintInput, Places};
use crate::capability::layer::Origin;
use crate::capability::stack::GrantStack;
use crate::path::frozen::RealPath;

pub static INFO: LintInfo = LintInfo {
    name: "host-run-writable",
    default_level: Level::Warn,
    authoring: false,
    summary: "a file the host runs or sources later is writable",
    what: "Names each file or directory the host runs or sources later that the stack lets a confined program write: git's hooks and config (in the working directory's `.git` and in `gitdir:`), shell start-up files (`~/.bashrc`, `~/.profile`, `~/.zshrc`, …), `~/.gitconfig` and `xdg:config/git`, the editors' project settings (`.vscode`, `.idea`), the project's tool configs that name a program to run (`rust-toolchain.toml`, `rust-toolchain`, `.pre-commit-config.yaml`, `.husky`, `.yarnrc.yml`, `.yarnrc`, `.tool-versions`), `~/.cargo/config.toml`, `~/.npmrc`, `~/.pypirc`. (ralc's own executable is not named: `ralc run` holds it and its directories read-only by construction, see docs/lint-decisions.md.)",
    why: "Each is code, or names code, that runs outside the confinement: `core.fsmonitor` or a hook runs on the host's next `git status`, a start-up file on its next shell, a task on the editor's next open. A confined program that can rewrite one escapes the next time the host starts that tool.",
    example: "[\n  fs: [write: ['cwd:']],\n]",
    fix: "Add the file to `deny_write` (readable, never writable): `fs: [write: ['cwd:'], deny_write: ['cwd:.git/hooks', 'cwd:.git/config']]`, or write only the directories the program needs.",
};

/// Where the host runs or sources files, relative to a place, and what each is.
const HOME: &[(&str, &str)] = &[
    (".bashrc", "a shell start-up file"),
    (".bash_profile", "a shell start-up file"),
    (".bash_login", "a shell start-up file"),
    (".bash_logout", "a shell start-up file"),
    (".profile", "a shell start-up file"),
    (".zshrc", "a shell start-up file"),
    (".zshenv", "a shell start-up file"),
    (".zprofile", "a shell start-up file"),
    (".zlogin", "a shell start-up file"),
    (
        ".gitconfig",
        "git's configuration (aliases, core.fsmonitor, core.hooksPath)",
    ),
    (
        ".cargo/config.toml",
        "cargo's configuration (runners, build wrappers)",
    ),
    (
        ".cargo/config",
        "cargo's configuration (runners, build wrappers)",
    ),
    (".npmrc", "npm's configuration (script shell, hooks)"),
    (".pypirc", "pip's upload configuration"),
];
const XDG_CONFIG: &[(&str, &str)] = &[
    (
        "git",
        "git's configuration (aliases, core.fsmonitor, core.hooksPath)",
    ),
    ("fish", "a shell start-up file"),
];
/// The working directory's files the host runs that a writable project most often holds:
/// git's hooks and config, the editors' settings, and the tool configs that name a program
/// to run. Each is in the std profiles' `deny_write` (a unit test holds it so).
const CWD: &[(&str, &str)] = &[
    (".git/hooks", "git's hooks"),
    (".git/config", GIT_CONFIG),
    (
        ".vscode",
        "editor project settings (tasks, launch configurations)",
    ),
    (".idea", "editor project settings (run configurations)"),
    ("rust-toolchain.toml", TOOLCHAIN),
    ("rust-toolchain", TOOLCHAIN),
    (
        ".pre-commit-config.yaml",
        "pre-commit's hooks (commands git runs on commit)",
    ),
    (".husky", "husky's git hooks"),
    (
        ".yarnrc.yml",
        "yarn's configuration (yarnPath: the yarn the host runs)",
    ),
    (
        ".yarnrc",
        "yarn's configuration (yarn-path: the yarn the host runs)",
    ),
    (
        ".tool-versions",
        "asdf/mise's tool versions (plugins the host runs)",
    ),
];
/// The git directory's files the host runs (in the std profiles' `deny_write` too).
const GITDIR: &[(&str, &str)] = &[("hooks", "git's hooks"), ("config", GIT_CONFIG)];
const GIT_CONFIG: &str = "git's configuration (aliases, core.fsmonitor, core.hooksPath)";
const TOOLCHAIN: &str = "rustup's toolchain file (`path`: the toolchain the host runs)";

/// One host-run file left writable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HostRunFinding {
    /// The file or directory, real.
    pub path: RealPath,
    /// What the host does with it.
    pub what: &'static str,
    /// The write entry that makes it writable (`None`: no layer opines on writing it).
    pub write_entry: Option<Origin>,
}

/// The host-run files of `places`, as real paths with what each is, sorted.
pub fn candidates(places: &Places) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut under = |base: &Option<RealPath>, list: &[(&str, &'static str)]| {
        if let Some(b) = base {
            let b = b.as_str().trim_end_matches('/');
            for (rel, what) in list {
                out.push((format!("{b}/{rel}"), *what));
            }
        }
    };
    under(&places.home, HOME);
    under(&places.xdg_config, XDG_CONFIG);
    under(&places.cwd, CWD);
    // Outside a repository `gitdir:` is the working directory: no git files there.
    if places.gitdir != places.cwd {
        under(&places.gitdir, GITDIR);
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The host-run files a composed stack leaves writable (the model's write judgment).
pub fn host_run_writable(stack: &GrantStack, places: &Places) -> Vec<HostRunFinding> {
    of_index(&StackIndex::of_stack(stack), places)
}

fn of_index(s: &StackIndex<'_>, places: &Places) -> Vec<HostRunFinding> {
    // only a stack with no fs opinion at all is silent: a layer that writes the root
    // (`'/'`, `'/.'`, `'/proc/self/root'`, a link to it) is judged like any other
    if s.fs.is_empty() {
        return Vec::new();
    }
    candidates(places)
        .into_iter()
        .filter_map(|(p, what)| {
            let write_entry = s.writable(&p)?;
            Some(HostRunFinding {
                path: RealPath::from_resolved(p),
                what,
                write_entry,
            })
        })
        .collect()
}

pub struct HostRunWritable;

impl Lint for HostRunWritable {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        out.extend(of_index(&input.index(), input.places).iter().map(finding));
    }
}

/// The finding of one host-run file: at the write entry that makes it writable.
pub fn finding(f: &HostRunFinding) -> Finding {
    let mut finding = super::finding(
        format!(
            "`{}` ({}) is writable: the host runs it later, outside the confinement",
            f.path.as_str(),
            f.what
        ),
        f.write_entry.as_ref().map(|o| o.span),
    );
    if let Some(w) = &f.write_entry {
        finding = finding.with_label(w.span, format!("writable by `{}`", w.written));
    }
    finding.with_help(format!(
        "add it to `deny_write` (readable, never writable): `deny_write: ['{}']`",
        f.path.as_str()
    ))
}

/// The finding as a diagnostic at the lint's default level.
pub fn diagnostic(f: &HostRunFinding) -> crate::diag::Diagnostic {
    let sev = INFO
        .default_level
        .severity()
        .unwrap_or(crate::diag::Severity::Warning);
    super::leveled(&INFO, sev, finding(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::{check_with, test_places, LayerBuilder};

    fn check(
        lint: &dyn Lint,
        layers: &[crate::capability::layer::Capabilities],
        sm: &SourceMap,
    ) -> Vec<Finding> {
        check_with(lint, layers, sm, &test_places())
    }

    #[test]
    fn fires_on_git_hooks_and_config_in_a_writable_project() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/home/u/proj")
            .build(&mut sm)];
        let f = host_run_writable(&GrantStack::new(layers.clone()), &test_places());
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        let mut want: Vec<String> = CWD
            .iter()
            .map(|(r, _)| format!("/home/u/proj/{r}"))
            .collect();
        want.sort();
        assert_eq!(paths, want);
        assert!(paths.contains(&"/home/u/proj/rust-toolchain.toml"));
        assert!(f.iter().all(|f| f.write_entry.is_some()));
        let lint = check(&HostRunWritable, &layers, &sm);
        assert_eq!(lint.len(), CWD.len());
        assert!(
            lint.iter()
                .any(|l| l.message.contains("git's configuration")),
            "{lint:?}"
        );
    }

    #[test]
    fn a_write_exclusion_or_a_narrow_write_silences_it() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/home/u/proj/src")
            .write("/home/u/.cache")
            .build(&mut sm)];
        assert!(check(&HostRunWritable, &layers, &sm).is_empty());
        // The home written wholesale: every start-up file, silenced one by one.
        let mut sm = SourceMap::new();
        let mut layers = vec![LayerBuilder::new("b.ral").write("/home/u").build(&mut sm)];
        let all = host_run_writable(&GrantStack::new(layers.clone()), &test_places());
        assert!(all.iter().any(|f| f.path.as_str() == "/home/u/.bashrc"));
        assert!(all.iter().any(|f| f.path.as_str() == "/home/u/.config/git"));
        let fs = layers[0].fs.as_mut().unwrap();
        for f in &all {
            fs.write_deny.push(crate::capability::layer::FsEntry {
                path: crate::capability::testkit::fp(f.path.as_str()),
                origin: crate::capability::testkit::origin("b.ral", 9, f.path.as_str()),
            });
        }
        assert!(host_run_writable(&GrantStack::new(layers), &test_places()).is_empty());
    }

    #[test]
    fn outside_a_repository_gitdir_names_nothing() {
        let mut p = test_places();
        p.gitdir = p.cwd.clone();
        assert!(!candidates(&p)
            .iter()
            .any(|(c, _)| c.ends_with("/proj/hooks")));
        assert!(candidates(&test_places())
            .iter()
            .any(|(c, _)| c == "/home/u/proj/.git/hooks"));
    }

    /// The `place:` entries of std:reasonable's `deny_write` list, as written.
    fn std_deny_write(place: &str) -> Vec<String> {
        let text = include_str!("../../../std-profiles/reasonable.ral");
        let start = text
            .find("deny_write: [")
            .expect("std:reasonable has a deny_write list");
        let body = &text[start..start + text[start..].find(']').expect("the list ends")];
        let mut v: Vec<String> = body
            .lines()
            .filter_map(|l| l.trim().strip_prefix('\''))
            .filter_map(|l| l.strip_suffix("',"))
            .filter_map(|l| l.strip_prefix(place))
            .map(str::to_string)
            .collect();
        v.sort();
        v
    }

    #[test]
    fn every_file_the_lint_names_is_in_the_std_profiles_deny_write() {
        for (place, list) in [("cwd:", CWD), ("gitdir:", GITDIR)] {
            let std = std_deny_write(place);
            for (rel, _) in list {
                assert!(
                    std.iter().any(|s| s == rel),
                    "{place}{rel} is not in std:reasonable's deny_write"
                );
            }
        }
    }
}
