//! The directory selectors (spec §3.4) as one exhaustive table: `path:`, `system:` and one
//! per package manager, each a few locations of overrides (an environment variable) and
//! defaults (under home, or fixed), expanded by the pure `expand_in` over an injected
//! environment, home and existence check. It refuses the world: a location that would
//! name the root (or a drive root) is an error, never a grant. It never reads the host.

use crate::path::lex::{absolute_under, fold_dots_under, is_bare_root, join_under, PathRules};
use crate::path::which::path_entries;

/// A directory selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Selector {
    Path,
    System,
    Cargo,
    Rustup,
    Go,
    Npm,
    Nvm,
    Volta,
    Pyenv,
    Rbenv,
    Asdf,
    Homebrew,
    Nix,
}

/// One place a selector looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// `$VAR/sub` (an override; `sub` may be empty).
    Override(&'static str, &'static str),
    /// `~/sub`, used only when no override of the selector is set.
    Home(&'static str),
    /// A fixed absolute directory, used only when no override is set.
    Fixed(&'static str),
    /// `$VAR/sub` with a fixed default for `$VAR` (Windows `SystemRoot`).
    Rooted(&'static str, &'static str, &'static str),
    /// A fixed absolute directory used whether or not an override is set (a system-wide
    /// install an override of the user's own locations does not replace).
    Installed(&'static str),
}

impl Selector {
    pub const ALL: [Selector; 13] = [
        Selector::Path,
        Selector::System,
        Selector::Cargo,
        Selector::Rustup,
        Selector::Go,
        Selector::Npm,
        Selector::Nvm,
        Selector::Volta,
        Selector::Pyenv,
        Selector::Rbenv,
        Selector::Asdf,
        Selector::Homebrew,
        Selector::Nix,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Selector::Path => "path",
            Selector::System => "system",
            Selector::Cargo => "cargo",
            Selector::Rustup => "rustup",
            Selector::Go => "go",
            Selector::Npm => "npm",
            Selector::Nvm => "nvm",
            Selector::Volta => "volta",
            Selector::Pyenv => "pyenv",
            Selector::Rbenv => "rbenv",
            Selector::Asdf => "asdf",
            Selector::Homebrew => "homebrew",
            Selector::Nix => "nix",
        }
    }
    pub fn parse(name: &str) -> Option<Selector> {
        Selector::ALL.into_iter().find(|s| s.name() == name)
    }
    /// Every selector's spelling, for messages.
    pub fn known() -> String {
        Selector::ALL
            .iter()
            .map(|s| format!("`{}:`", s.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// The locations, in order (`path:` has none: it reads `PATH`).
    pub fn locations(self, rules: PathRules) -> &'static [Location] {
        use Location::*;
        match (self, rules) {
            (Selector::Path, _) => &[],
            (Selector::System, PathRules::Windows) => &[
                Rooted("SystemRoot", "C:\\Windows", "System32"),
                Rooted(
                    "SystemRoot",
                    "C:\\Windows",
                    "System32\\WindowsPowerShell\\v1.0",
                ),
            ],
            (Selector::System, PathRules::Posix) => &[
                Fixed("/usr/bin"),
                Fixed("/bin"),
                Fixed("/usr/sbin"),
                Fixed("/sbin"),
                Fixed("/usr/local/bin"),
                Fixed("/usr/libexec"),
                Fixed("/usr/lib/git-core"),
                // Compilers start `cc1`, `collect2`, `lto-wrapper` by their real paths here.
                Fixed("/usr/lib/gcc"),
                Fixed("/opt/homebrew/bin"),
                Fixed("/home/linuxbrew/.linuxbrew/bin"),
                Fixed("/Library/Developer/CommandLineTools/usr/bin"),
                // macOS: git runs its helpers (`git-remote-https`, `git-credential-*`)
                // from its libexec by real path: the Command Line Tools' and Homebrew's.
                Fixed("/Library/Developer/CommandLineTools/usr/libexec/git-core"),
                Fixed("/opt/homebrew/opt/git/libexec/git-core"),
                Fixed("/usr/local/opt/git/libexec/git-core"),
                // macOS: a framework build of Python re-executes itself as
                // `Python.framework/…/Resources/Python.app/Contents/MacOS/Python` (the
                // Command Line Tools' `python3`, Homebrew's).
                Fixed("/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework"),
                Fixed("/opt/homebrew/Frameworks/Python.framework"),
                Fixed("/usr/local/Frameworks/Python.framework"),
                Fixed("/Applications/Xcode.app/Contents/Developer"),
            ],
            (Selector::Cargo, _) => &[Override("CARGO_HOME", "bin"), Home(".cargo/bin")],
            (Selector::Rustup, _) => &[
                Override("RUSTUP_HOME", "toolchains"),
                Home(".rustup/toolchains"),
            ],
            // What `go` runs at run time: the installed commands, and the compiler and
            // linker under the toolchain's `pkg/tool` (the official tarball's and Debian's).
            (Selector::Go, _) => &[
                Override("GOBIN", ""),
                Override("GOPATH", "bin"),
                Home("go/bin"),
                Installed("/usr/local/go/bin"),
                Installed("/usr/local/go/pkg/tool"),
                Installed("/usr/lib/go/pkg/tool"),
            ],
            // The global prefix's bin links and the packages they point into.
            (Selector::Npm, _) => &[
                Override("NPM_CONFIG_PREFIX", "bin"),
                Override("NPM_CONFIG_PREFIX", "lib/node_modules"),
                Home(".npm-global/bin"),
                Home(".npm-global/lib/node_modules"),
            ],
            (Selector::Nvm, _) => &[Override("NVM_DIR", "versions"), Home(".nvm/versions")],
            // Volta's shims and the tool images they run.
            (Selector::Volta, _) => &[
                Override("VOLTA_HOME", "bin"),
                Override("VOLTA_HOME", "tools/image"),
                Home(".volta/bin"),
                Home(".volta/tools/image"),
            ],
            // A shim runs `libexec/pyenv`, which runs its own commands there and the
            // plugins' (`plugins/*/bin`, `plugins/*/libexec`), then a version's binary.
            (Selector::Pyenv, _) => &[
                Override("PYENV_ROOT", "shims"),
                Override("PYENV_ROOT", "versions"),
                Override("PYENV_ROOT", "libexec"),
                Override("PYENV_ROOT", "plugins"),
                Home(".pyenv/shims"),
                Home(".pyenv/versions"),
                Home(".pyenv/libexec"),
                Home(".pyenv/plugins"),
            ],
            (Selector::Rbenv, _) => &[
                Override("RBENV_ROOT", "shims"),
                Override("RBENV_ROOT", "versions"),
                Override("RBENV_ROOT", "libexec"),
                Override("RBENV_ROOT", "plugins"),
                Home(".rbenv/shims"),
                Home(".rbenv/versions"),
                Home(".rbenv/libexec"),
                Home(".rbenv/plugins"),
            ],
            // asdf's shims run `asdf exec`, which runs an installed version's binary.
            (Selector::Asdf, _) => &[
                Override("ASDF_DATA_DIR", "shims"),
                Override("ASDF_DATA_DIR", "installs"),
                Home(".asdf/shims"),
                Home(".asdf/installs"),
                Home(".asdf/bin"),
                Home(".asdf/lib"),
            ],
            (Selector::Homebrew, _) => &[
                Override("HOMEBREW_PREFIX", "bin"),
                Fixed("/opt/homebrew/bin"),
                Fixed("/home/linuxbrew/.linuxbrew/bin"),
            ],
            (Selector::Nix, _) => &[
                Home(".nix-profile/bin"),
                Fixed("/nix/var/nix/profiles/default/bin"),
                Fixed("/run/current-system/sw/bin"),
            ],
        }
    }
}

/// One directory a selector expanded to, and what named it (`PATH`, `CARGO_HOME`, `~`,
/// `fixed`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpandedDir {
    pub dir: String,
    pub from: String,
}

/// Why an expansion is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandError {
    /// A location would name the root (or a drive root): refuse the world.
    World { from: String, value: String },
    /// `path:` and `PATH` has no absolute entry.
    NoAbsolutePathEntry,
    /// A sub-path would re-root an override.
    Rerooting { from: String, value: String },
}

/// The result of an expansion: the existing directories, and the locations left out
/// (for a dead grant's reason).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Expansion {
    pub dirs: Vec<ExpandedDir>,
    pub skipped: Vec<String>,
}

/// Expand `sel` over an injected environment, home and existence check.
pub fn expand_in(
    sel: Selector,
    rules: PathRules,
    env: &dyn Fn(&str) -> Option<String>,
    home: Option<&str>,
    is_dir: &dyn Fn(&str) -> bool,
) -> Result<Expansion, ExpandError> {
    let mut candidates: Vec<ExpandedDir> = Vec::new();
    let mut out = Expansion::default();
    if sel == Selector::Path {
        let value = env("PATH").unwrap_or_default();
        let entries = path_entries(&value, rules);
        if entries.is_empty() {
            return Err(ExpandError::NoAbsolutePathEntry);
        }
        for e in entries {
            candidates.push(ExpandedDir {
                dir: fold_dots_under(&e, rules),
                from: "PATH".to_string(),
            });
        }
    } else {
        let locs = sel.locations(rules);
        let any_override = locs.iter().any(|l| match l {
            Location::Override(v, _) => env(v).is_some_and(|x| !x.is_empty()),
            _ => false,
        });
        for loc in locs {
            let (base, sub, from) = match *loc {
                Location::Override(var, sub) => match env(var).filter(|x| !x.is_empty()) {
                    Some(v) => (v, sub, var.to_string()),
                    None => continue,
                },
                Location::Rooted(var, default, sub) => match env(var).filter(|x| !x.is_empty()) {
                    Some(v) => (v, sub, var.to_string()),
                    None => (default.to_string(), sub, format!("{var} (default)")),
                },
                Location::Home(sub) if !any_override => match home {
                    Some(h) if absolute_under(h, rules) => (h.to_string(), sub, "~".to_string()),
                    _ => {
                        out.skipped.push(format!("~/{sub} (no home)"));
                        continue;
                    }
                },
                Location::Fixed(p) if !any_override => (p.to_string(), "", "fixed".to_string()),
                Location::Installed(p) => (p.to_string(), "", "fixed".to_string()),
                Location::Home(_) | Location::Fixed(_) => continue,
            };
            if !absolute_under(&base, rules) {
                out.skipped.push(format!("{from}={base} (not absolute)"));
                continue;
            }
            let dir = join_under(&base, sub, rules).map_err(|_| ExpandError::Rerooting {
                from: from.clone(),
                value: base.clone(),
            })?;
            candidates.push(ExpandedDir { dir, from });
        }
    }
    for c in candidates {
        if is_bare_root(&c.dir, rules) {
            return Err(ExpandError::World {
                from: c.from,
                value: c.dir,
            });
        }
        if out.dirs.iter().any(|d| d.dir == c.dir) {
            continue;
        }
        if is_dir(&c.dir) {
            out.dirs.push(c);
        } else {
            out.skipped
                .push(format!("{} (from {}, not a directory here)", c.dir, c.from));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(a, _)| *a == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn override_replaces_defaults() {
        let e = env(&[("CARGO_HOME", "/opt/cargo")]);
        let x = expand_in(Selector::Cargo, PathRules::Posix, &e, Some("/h"), &|_| true).unwrap();
        assert_eq!(x.dirs.len(), 1);
        assert_eq!(x.dirs[0].dir, "/opt/cargo/bin");
        let none = env(&[]);
        let x = expand_in(
            Selector::Cargo,
            PathRules::Posix,
            &none,
            Some("/h"),
            &|_| true,
        )
        .unwrap();
        assert_eq!(x.dirs[0].dir, "/h/.cargo/bin");
    }

    #[test]
    fn refuse_the_world() {
        let e = env(&[("PATH", "/usr/bin:/:/bin")]);
        let r = expand_in(Selector::Path, PathRules::Posix, &e, None, &|_| true);
        assert!(matches!(r, Err(ExpandError::World { .. })));
        let e = env(&[("GOBIN", "/")]);
        let r = expand_in(Selector::Go, PathRules::Posix, &e, None, &|_| true);
        assert!(matches!(r, Err(ExpandError::World { .. })));
        let e = env(&[("PATH", "C:\\;C:\\x")]);
        let r = expand_in(Selector::Path, PathRules::Windows, &e, None, &|_| true);
        assert!(matches!(r, Err(ExpandError::World { .. })));
    }

    #[test]
    fn path_needs_an_absolute_entry() {
        let e = env(&[("PATH", "bin:.:")]);
        let r = expand_in(Selector::Path, PathRules::Posix, &e, None, &|_| true);
        assert_eq!(r, Err(ExpandError::NoAbsolutePathEntry));
    }

    #[test]
    fn managers_cover_what_their_shims_run() {
        let none = env(&[]);
        let dirs = |sel| {
            expand_in(sel, PathRules::Posix, &none, Some("/h"), &|_| true)
                .unwrap()
                .dirs
                .into_iter()
                .map(|d| d.dir)
                .collect::<Vec<_>>()
        };
        let py = dirs(Selector::Pyenv);
        for d in [
            "/h/.pyenv/shims",
            "/h/.pyenv/versions",
            "/h/.pyenv/libexec",
            "/h/.pyenv/plugins",
        ] {
            assert!(py.contains(&d.to_string()), "{d} in {py:?}");
        }
        assert!(dirs(Selector::System).contains(&"/usr/lib/gcc".to_string()));
        assert!(dirs(Selector::Npm).contains(&"/h/.npm-global/lib/node_modules".to_string()));
        // A system-wide Go toolchain stays granted when GOPATH overrides the user's own.
        let e = env(&[("GOPATH", "/g")]);
        let go = expand_in(Selector::Go, PathRules::Posix, &e, Some("/h"), &|_| true).unwrap();
        let go: Vec<_> = go.dirs.into_iter().map(|d| d.dir).collect();
        assert!(
            go.contains(&"/g/bin".to_string())
                && go.contains(&"/usr/local/go/pkg/tool".to_string())
        );
        assert!(!go.contains(&"/h/go/bin".to_string()));
    }

    #[test]
    fn only_existing_dirs() {
        let e = env(&[]);
        let x = expand_in(Selector::System, PathRules::Posix, &e, None, &|d| {
            d == "/usr/bin"
        })
        .unwrap();
        assert_eq!(x.dirs.len(), 1);
        let x = expand_in(Selector::Volta, PathRules::Posix, &e, Some("/h"), &|_| {
            false
        })
        .unwrap();
        assert!(x.dirs.is_empty());
    }
}
