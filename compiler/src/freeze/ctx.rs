//! `FreezeCtx`: the one anchor every path of a stack is frozen against — the environment,
//! the working directory and the disk — built from the process (the only environment
//! reading site) or from parts, and re-anchorable with `--home/--cwd/--env/--env-clear`.
//! It mints `RealPath`/`FrozenPath` by one disk consultation each. It must never read the
//! process environment anywhere but `from_process`.

use super::disk::{Disk, EntryKind, Presence, RealDisk};
use crate::capability::resolve::{LinkChain, Resolve};
use crate::path::frozen::{FrozenPath, RealPath};
use crate::path::lex::{
    absolute_under, fold_dots_cow, fold_dots_under, join_under, parse_bytes, within_limits,
    PathRules,
};
use crate::path::which::{path_entries, which_in};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

/// Why a path could not be given a real form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RealError {
    /// Not absolute under the host's rules.
    NotAbsolute,
    /// The real path is not Unicode (shown lossily).
    NotUnicode(String),
    /// Longer than `PATH_MAX_BYTES` or with more than `MAX_COMPONENTS` components.
    TooLong,
}

/// How to re-anchor a freeze: as this machine would, or as another would (the CLI's
/// `--env-clear`, `--env K=V`, `--home DIR`, `--cwd DIR`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Anchor {
    /// Freeze with this home directory (sets HOME).
    pub home: Option<std::path::PathBuf>,
    /// Freeze with this working directory.
    pub cwd: Option<std::path::PathBuf>,
    /// Environment variables set for the freeze, each `K=V`.
    pub env: Vec<String>,
    /// Start the freeze's environment empty (then `env` and `home` apply).
    pub env_clear: bool,
}

#[derive(Clone)]
pub struct FreezeCtx {
    env: BTreeMap<String, String>,
    /// The working directory as given (the surface of `cwd:`).
    cwd_given: String,
    /// Its real form.
    cwd_real: String,
    disk: Arc<dyn Disk>,
    rules: PathRules,
    /// The real forms resolved so far, when this anchor is a `memoized` copy for one
    /// freeze or one batch of judgments (never shared beyond that copy's life).
    memo: Option<Arc<Mutex<RealMemo>>>,
    /// Frozen for another OS than this host's (its rules, a [`ForeignDisk`]): a place
    /// the anchor was not given is a dead grant, not an error.
    ///
    /// [`ForeignDisk`]: super::disk::ForeignDisk
    foreign: bool,
    /// This launcher's own executable (`ralc`), as the process named it: what the
    /// `host-run-writable` lint looks for under a write grant. `None` off the process.
    launcher: Option<String>,
}

/// What one freeze (or one batch) has learnt of the disk: the real form of each folded
/// path resolved so far, and whether the disk showed nothing at that real form
/// (`Presence::Missing`) — nothing can exist beneath it either, so a child's real form is
/// its lexical join, asked of no disk.
type RealMemo = HashMap<String, Memo>;

#[derive(Clone)]
struct Memo {
    real: Result<RealPath, RealError>,
    missing: bool,
}

impl fmt::Debug for FreezeCtx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FreezeCtx")
            .field("env", &self.env)
            .field("cwd", &self.cwd_given)
            .field("cwd_real", &self.cwd_real)
            .field("rules", &self.rules)
            .field("foreign", &self.foreign)
            .finish()
    }
}

impl FreezeCtx {
    /// The live process: its environment (variables that are not Unicode are left out,
    /// so a place needing one fails closed) and working directory, over the real disk.
    #[allow(
        clippy::disallowed_methods,
        reason = "the resolver: FreezeCtx::from_process is the one environment-reading site"
    )]
    pub fn from_process() -> Result<FreezeCtx, String> {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))?
            .into_os_string()
            .into_string()
            .map_err(|p| {
                format!(
                    "the working directory `{}` is not Unicode",
                    p.to_string_lossy()
                )
            })?;
        // the logical working directory ($PWD) when it names the same directory: the
        // surface of `cwd:` then keeps the symlinks the user stands in
        let disk = RealDisk;
        let cwd = match env.get("PWD") {
            Some(pwd)
                if absolute_under(pwd, PathRules::host())
                    && disk.canonicalize(pwd).ok() == disk.canonicalize(&cwd).ok() =>
            {
                pwd.clone()
            }
            _ => cwd,
        };
        let mut ctx = FreezeCtx::from_parts(env, cwd, Arc::new(disk));
        ctx.launcher = std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string));
        Ok(ctx)
    }

    /// This launcher's own executable, when the anchor is this process's.
    pub fn launcher(&self) -> Option<&str> {
        self.launcher.as_deref()
    }

    /// An anchor from parts (tests, `--env-clear`, another machine's description). A
    /// working directory that is not absolute stays as given, and `cwd:` then refuses.
    pub fn from_parts(env: BTreeMap<String, String>, cwd: String, disk: Arc<dyn Disk>) -> Self {
        FreezeCtx::build(env, cwd, disk, PathRules::host(), false)
    }

    /// An anchor for another OS than this host's, under its path `rules`, over a disk
    /// nothing of which is visible from here: an empty environment, no working directory
    /// (`--home`, `--cwd` and `--env` give them), every path frozen lexically.
    pub fn foreign(rules: PathRules) -> Self {
        FreezeCtx::build(
            BTreeMap::new(),
            String::new(),
            Arc::new(super::disk::ForeignDisk),
            rules,
            true,
        )
    }

    /// Whether this anchor freezes for another OS (see [`FreezeCtx::foreign`]).
    pub fn is_foreign(&self) -> bool {
        self.foreign
    }

    fn build(
        env: BTreeMap<String, String>,
        cwd: String,
        disk: Arc<dyn Disk>,
        rules: PathRules,
        foreign: bool,
    ) -> Self {
        let mut ctx = FreezeCtx {
            env,
            cwd_given: cwd.clone(),
            cwd_real: cwd.clone(),
            disk,
            rules,
            memo: None,
            foreign,
            launcher: None,
        };
        if absolute_under(&cwd, rules) {
            let folded = fold_dots_under(&cwd, rules);
            if let Ok(real) = ctx.real_of(&folded) {
                ctx.cwd_real = real.as_str().to_string();
            }
            ctx.cwd_given = folded;
        }
        ctx
    }

    /// This anchor re-anchored by `--env-clear`, `--env K=V`, `--home DIR` and
    /// `--cwd DIR`, in that order (a relative DIR is taken from this anchor's cwd).
    pub fn with_anchor(&self, a: &Anchor) -> Result<FreezeCtx, String> {
        let mut env = if a.env_clear {
            BTreeMap::new()
        } else {
            self.env.clone()
        };
        for kv in &a.env {
            match kv.split_once('=') {
                Some((k, v)) if !k.is_empty() => {
                    env.insert(k.to_string(), v.to_string());
                }
                _ => return Err(format!("--env `{kv}`: expected K=V")),
            }
        }
        let absolutize = |flag: &str, p: &std::path::Path| -> Result<String, String> {
            let s = p
                .to_str()
                .ok_or_else(|| format!("{flag} `{}` is not Unicode", p.to_string_lossy()))?;
            if s.is_empty() {
                return Err(format!("{flag}: empty directory"));
            }
            if absolute_under(s, self.rules) {
                Ok(fold_dots_under(s, self.rules))
            } else if absolute_under(&self.cwd_given, self.rules) {
                join_under(&self.cwd_given, s, self.rules)
                    .map_err(|_| format!("{flag} `{s}` names a volume of its own"))
            } else {
                Err(format!(
                    "{flag} `{s}` is relative and the working directory is unknown"
                ))
            }
        };
        if let Some(h) = &a.home {
            env.insert("HOME".to_string(), absolutize("--home", h)?);
        }
        let cwd = match &a.cwd {
            Some(c) => absolutize("--cwd", c)?,
            None => self.cwd_given.clone(),
        };
        let mut ctx = FreezeCtx::build(env, cwd, self.disk.clone(), self.rules, self.foreign);
        ctx.launcher = self.launcher.clone();
        Ok(ctx)
    }

    /// The host's path rules.
    pub fn rules(&self) -> PathRules {
        self.rules
    }
    pub fn disk(&self) -> &dyn Disk {
        self.disk.as_ref()
    }
    /// An environment variable of the anchor (empty counts as unset).
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }
    /// `HOME`, when set and not empty (it may still be relative: callers check).
    pub fn home(&self) -> Option<&str> {
        self.var("HOME")
    }
    /// The working directory as given (folded).
    pub fn cwd_surface(&self) -> &str {
        &self.cwd_given
    }

    /// This anchor with a memo of real forms, for one freeze or one batch of judgments:
    /// the real form of each directory it resolves is remembered, and a path is resolved
    /// from its parent's real form by one look at its own entry (only a symlink needs the
    /// full resolution). Same answers as without the memo: the real form of
    /// `parent/name` is `real(parent)/name` unless `name` is a symlink there (when it does
    /// not exist, its nearest existing ancestor is `parent`'s). The copy is dropped with
    /// its freeze or batch, so nothing is remembered across a later look at the disk.
    pub fn memoized(&self) -> FreezeCtx {
        FreezeCtx {
            memo: Some(Arc::default()),
            ..self.clone()
        }
    }

    /// The real form of a folded absolute path: its nearest existing ancestor resolved,
    /// the rest appended lexically.
    pub fn real_of(&self, path: &str) -> Result<RealPath, RealError> {
        if !within_limits(path, self.rules) {
            // also bounds the memo's recursion below (one level per component)
            return Err(RealError::TooLong);
        }
        match &self.memo {
            Some(memo) if self.rules == PathRules::Posix && absolute_under(path, self.rules) => {
                self.real_memo(memo, &fold_dots_cow(path, self.rules)).real
            }
            _ => self.resolve_real(path),
        }
    }

    /// `real_of` of a folded absolute POSIX path (so each parent is folded too).
    fn real_memo(&self, memo: &Mutex<RealMemo>, folded: &str) -> Memo {
        let rules = self.rules;
        let lock = || memo.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(m) = lock().get(folded) {
            return m.clone();
        }
        let resolved = |real| Memo {
            real,
            missing: false,
        };
        let m = match folded.rsplit_once('/') {
            Some((parent, name)) if !name.is_empty() => {
                let parent = if parent.is_empty() { "/" } else { parent };
                let p = self.real_memo(memo, parent);
                match p.real.map(|p| join_under(p.as_str(), name, rules)) {
                    Ok(Ok(joined)) => {
                        // beneath a real form the disk showed nothing at, nothing is
                        // either (the look would fail the same way): no need to ask
                        let presence = if p.missing {
                            Presence::Missing
                        } else {
                            self.disk.presence(&joined)
                        };
                        match presence {
                            Presence::Link => resolved(self.resolve_real(folded)),
                            Presence::Entry => resolved(Ok(RealPath::from_resolved(joined))),
                            Presence::Missing => Memo {
                                real: Ok(RealPath::from_resolved(joined)),
                                missing: true,
                            },
                        }
                    }
                    _ => resolved(self.resolve_real(folded)),
                }
            }
            _ => resolved(self.resolve_real(folded)),
        };
        lock().insert(folded.to_owned(), m.clone());
        m
    }

    /// What kind of entry `path`'s real form names (symlinks followed), as `Disk::kind`
    /// answers, without asking the disk again where this anchor's memo already saw
    /// nothing at it.
    pub fn kind_of(&self, path: &FrozenPath) -> Option<EntryKind> {
        if let Some(memo) = &self.memo {
            let memo = memo.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            // the memo's key is the folded surface the path was frozen from
            if memo
                .get(path.surface_str())
                .is_some_and(|m| m.missing && m.real.as_ref() == Ok(path.real()))
            {
                return None;
            }
        }
        self.disk.kind(path.real().as_str())
    }

    /// `real_of` by the disk alone, no memo.
    fn resolve_real(&self, path: &str) -> Result<RealPath, RealError> {
        let rules = self.rules;
        if !within_limits(path, rules) {
            return Err(RealError::TooLong);
        }
        if !absolute_under(path, rules) {
            return Err(RealError::NotAbsolute);
        }
        let mut base = fold_dots_under(path, rules);
        let mut rest: Vec<String> = Vec::new();
        loop {
            if let Ok(pb) = self.disk.canonicalize(&base) {
                let real = pb
                    .into_os_string()
                    .into_string()
                    .map_err(|p| RealError::NotUnicode(p.to_string_lossy().into_owned()))?;
                let mut out = real;
                for name in rest.iter().rev() {
                    out = match join_under(&out, name, rules) {
                        Ok(j) => j,
                        Err(_) => return Err(RealError::NotAbsolute),
                    };
                }
                return Ok(RealPath::from_resolved(out));
            }
            let head_len = parse_bytes(base.as_bytes(), rules).head_len;
            if base.len() <= head_len {
                // the root itself does not resolve (a fake disk): lexical
                let mut out = base;
                for name in rest.iter().rev() {
                    out = join_under(&out, name, rules).map_err(|_| RealError::NotAbsolute)?;
                }
                return Ok(RealPath::from_resolved(out));
            }
            let bytes = base.as_bytes();
            let cut = bytes[head_len..]
                .iter()
                .rposition(|b| rules.is_sep(*b))
                .map(|i| i + head_len);
            let (parent, name) = match cut {
                Some(i) => (
                    base[..i.max(head_len)].to_string(),
                    base[i + 1..].to_string(),
                ),
                None => (base[..head_len].to_string(), base[head_len..].to_string()),
            };
            rest.push(name);
            base = if parent.is_empty() {
                base[..head_len].to_string()
            } else {
                parent
            };
        }
    }

    /// Freeze a surface (absolute under the host's rules; folded here).
    pub fn freeze_path(&self, surface: &str) -> Result<FrozenPath, RealError> {
        if !within_limits(surface, self.rules) {
            return Err(RealError::TooLong);
        }
        let folded = fold_dots_cow(surface, self.rules);
        let real = self.real_of(&folded)?;
        Ok(FrozenPath::from_parts(&*folded, real))
    }
}

impl Resolve for FreezeCtx {
    fn home_real(&self) -> Option<String> {
        let h = FreezeCtx::home(self)?;
        Some(self.real(h)?.as_str().to_string())
    }
    fn for_batch(&self) -> Option<Box<dyn Resolve + '_>> {
        Some(Box::new(self.memoized()))
    }
    fn which(&self, name: &str) -> Option<(String, RealPath)> {
        let entries = path_entries(self.var("PATH")?, self.rules);
        let found = which_in(name, &entries, self.rules, |p| {
            self.disk.is_executable_file(p)
        })?;
        let real = self.real_of(&found).ok()?;
        Some((found, real))
    }
    fn real(&self, path: &str) -> Option<RealPath> {
        self.real_of(path).ok()
    }
    fn cwd(&self) -> &str {
        &self.cwd_real
    }
    fn carriers(&self, program: &RealPath) -> Vec<RealPath> {
        super::carrier::carriers_of(self.disk.as_ref(), program, |p| self.real_of(p).ok())
    }
    fn links(&self, at: &str) -> Option<LinkChain> {
        if self.rules != PathRules::Posix {
            return None;
        }
        let real = |p: &str| self.real_of(p).ok().map(|r| r.as_str().to_owned());
        let vouched = |d: &str| self.disk.vouched_dir(d);
        super::links::vouched_chain(self.disk.as_ref(), at, &real, &vouched)
    }
    fn link_chains_in(&self, dir: &str) -> Vec<LinkChain> {
        if self.rules != PathRules::Posix {
            return Vec::new();
        }
        // real forms through this anchor's memo when it is a `memoized` copy (a batch)
        let real = |p: &str| self.real_of(p).ok().map(|r| r.as_str().to_owned());
        let vouched = |d: &str| self.disk.vouched_dir(d);
        let d = dir
            .strip_suffix('/')
            .filter(|d| !d.is_empty())
            .unwrap_or(dir);
        let disk = self.disk.as_ref();
        disk.links_in(dir)
            .iter()
            .filter_map(|l| super::links::listed_chain(disk, d, l, &real, &vouched))
            .collect()
    }
    fn names(&self, dir: &str) -> Vec<String> {
        self.disk.names(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freeze::disk::MemDisk;

    #[test]
    fn a_batch_resolves_as_real_of_does() {
        let disk = MemDisk::new()
            .dir("/usr/lib")
            .exe("/usr/bin/git")
            .link("/bin", "/usr/bin")
            .link("/usr/lib/libz.so", "libz.so.1")
            .file("/usr/lib/libz.so.1", "")
            .link("/home/u/l", "/usr/lib")
            .link("/home/u/dangling", "/nowhere/x")
            .file("/etc/passwd", "");
        let ctx = FreezeCtx::from_parts(BTreeMap::new(), "/home/u".into(), Arc::new(disk));
        let batch = ctx.for_batch().unwrap();
        for p in [
            "/",
            "/usr",
            "/usr/lib/libz.so",
            "/usr/lib/missing/deeper",
            "/usr/lib/missing/deeper/still/more",
            "/usr/lib/libz.so.1/under/a/file",
            "/bin/git",
            "/bin/nothing",
            "/home/u/l/libz.so",
            "/home/u/l/libz.so.1",
            "/home/u/l/none",
            "/home/u/dangling",
            "/home/u/dangling/y",
            "/etc/passwd/x",
            "/a/../usr/./lib//libz.so",
            "relative/path",
            "/usr/lib/libz.so",
        ] {
            // twice: the second answer comes from the memo
            for _ in 0..2 {
                assert_eq!(batch.real(p), ctx.real(p), "{p}");
            }
        }
        assert_eq!(batch.cwd(), ctx.cwd());
    }

    /// A disk that records every path it is asked about.
    #[cfg(unix)]
    #[derive(Debug)]
    struct Asked(MemDisk, Mutex<Vec<String>>);

    #[cfg(unix)]
    impl Disk for Asked {
        fn canonicalize(&self, path: &str) -> std::io::Result<std::path::PathBuf> {
            self.1.lock().unwrap().push(path.to_owned());
            self.0.canonicalize(path)
        }
        fn kind(&self, path: &str) -> Option<EntryKind> {
            self.1.lock().unwrap().push(path.to_owned());
            self.0.kind(path)
        }
        fn is_executable_file(&self, path: &str) -> bool {
            self.0.is_executable_file(path)
        }
        fn read_small(&self, path: &str) -> std::io::Result<Vec<u8>> {
            self.0.read_small(path)
        }
        fn presence(&self, path: &str) -> Presence {
            self.1.lock().unwrap().push(path.to_owned());
            self.0.presence(path)
        }
        fn head(&self, path: &str, n: usize) -> Option<Vec<u8>> {
            self.0.head(path, n)
        }
        fn vouched(&self, path: &str) -> bool {
            self.0.vouched(path)
        }
        fn read_link(&self, path: &str) -> Option<String> {
            self.0.read_link(path)
        }
        fn link_owner(&self, path: &str) -> Option<u32> {
            self.0.link_owner(path)
        }
        fn vouched_dir(&self, path: &str) -> bool {
            self.0.vouched_dir(path)
        }
        fn links_in(&self, path: &str) -> Vec<crate::freeze::disk::ListedLink> {
            self.0.links_in(path)
        }
        fn names(&self, path: &str) -> Vec<String> {
            self.0.names(path)
        }
    }

    // POSIX paths throughout (`freeze_path` refuses `/opt/…` on Windows, where an
    // absolute path has a drive or a share), as the live-disk test below.
    #[cfg(unix)]
    #[test]
    fn nothing_beneath_a_missing_path_is_asked_of_the_disk() {
        let disk = MemDisk::new().dir("/opt").file("/etc/passwd", "");
        let asked = Arc::new(Asked(disk, Mutex::default()));
        let ctx = FreezeCtx::from_parts(BTreeMap::new(), "/".into(), asked.clone());
        let plain = FreezeCtx::from_parts(
            BTreeMap::new(),
            "/".into(),
            Arc::new(MemDisk::new().dir("/opt").file("/etc/passwd", "")),
        );
        let batch = ctx.memoized();
        asked.1.lock().unwrap().clear();
        for p in ["/opt/tools0/bin0", "/opt/tools0/bin1", "/etc/passwd/x/y"] {
            assert_eq!(batch.real_of(p), plain.real_of(p), "{p}");
            let frozen = batch.freeze_path(p).unwrap();
            assert_eq!(batch.kind_of(&frozen), None, "{p}");
        }
        let seen = asked.1.lock().unwrap().clone();
        // each missing entry is looked at once; its children, never
        assert!(seen.contains(&"/opt/tools0".to_owned()), "{seen:?}");
        assert!(seen.contains(&"/etc/passwd/x".to_owned()), "{seen:?}");
        for p in ["/opt/tools0/bin0", "/opt/tools0/bin1", "/etc/passwd/x/y"] {
            assert!(!seen.contains(&p.to_owned()), "{p} asked: {seen:?}");
        }
        // without a memo, or where the memo saw something, the disk is asked
        let passwd = plain.freeze_path("/etc/passwd").unwrap();
        assert_eq!(plain.kind_of(&passwd), Some(EntryKind::File));
        assert_eq!(batch.kind_of(&passwd), Some(EntryKind::File));
        assert!(asked.1.lock().unwrap().contains(&"/etc/passwd".to_owned()));
    }

    #[cfg(unix)]
    #[test]
    fn a_batch_resolves_the_live_disk_as_real_of_does() {
        use crate::freeze::disk::RealDisk;
        let t = tempfile::tempdir().unwrap();
        let root = t.path().to_str().unwrap().to_owned();
        let mk = |p: &str| std::fs::create_dir_all(format!("{root}/{p}")).unwrap();
        mk("a/b");
        mk("c");
        std::os::unix::fs::symlink(format!("{root}/a"), format!("{root}/c/toa")).unwrap();
        std::os::unix::fs::symlink("b", format!("{root}/a/rel")).unwrap();
        std::os::unix::fs::symlink("/nowhere/at/all", format!("{root}/c/dangling")).unwrap();
        let ctx = FreezeCtx::from_parts(BTreeMap::new(), root.clone(), Arc::new(RealDisk));
        let batch = ctx.for_batch().unwrap();
        for p in [
            "a/b",
            "a/b/f",
            "c/toa",
            "c/toa/b/x",
            "c/toa/rel",
            "c/toa/rel/y",
            "a/rel/z",
            "c/dangling",
            "c/dangling/q",
            "c/dangling/q/r/s",
            "none/deeper/still",
            "none/deeper",
            "c/../a/./b",
        ] {
            let p = format!("{root}/{p}");
            for _ in 0..2 {
                assert_eq!(batch.real(&p), ctx.real(&p), "{p}");
            }
        }
    }
}
