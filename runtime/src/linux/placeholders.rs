//! Placeholders made for one run: an empty file (or a file of given text) or an empty
//! directory created where a path that must stay read-only is absent, so a read-only bind
//! can hold the name for the run; each is removed when the run ends (on drop), with the
//! parents made for it, when it is still the object made and (a directory) still empty.
//! It never overwrites or removes anything it did not make or another run still holds,
//! and follows no symlink.

use std::os::unix::fs::MetadataExt;

/// What a placeholder is: a file holding this text, or a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form<'a> {
    File(&'a str),
    Dir,
}

/// The placeholders made, each with its device and inode, last made first; and a shared
/// lock (`flock`) on every read-only name this run holds, so a concurrent run never
/// removes a placeholder this one still binds (an unlinked mount point in another mount
/// namespace is detached by the kernel): a placeholder is removed only by the run that
/// made it, and only when no other run holds it.
#[derive(Debug, Default)]
pub struct Placeholders {
    made: Vec<(String, (u64, u64))>,
    held: Vec<(String, (u64, u64), std::os::fd::OwnedFd)>,
    /// A dry run (`ralc render --argv`): nothing is made; `make` records the name in
    /// `would` and returns, so the plan is computed with no effect on the host.
    dry: bool,
    would: Vec<String>,
}

/// The modification time every placeholder carries (one second after the epoch): how a
/// run tells a placeholder another run made, to remove it when it is the last holder.
const MARK_SECS: i64 = 1;

/// Is the object at `p` a placeholder (the mark, and empty: a file of at most two bytes,
/// a directory with nothing in it)?
fn is_placeholder(p: &str, m: &std::fs::Metadata) -> bool {
    m.mtime() == MARK_SECS
        && if m.file_type().is_dir() {
            std::fs::read_dir(p)
                .map(|mut r| r.next().is_none())
                .unwrap_or(false)
        } else {
            m.file_type().is_file() && m.len() <= 2
        }
}

/// Give the placeholder at `p` the mark (no symlink followed).
fn mark(p: &str) -> std::io::Result<()> {
    let c = std::ffi::CString::new(p).map_err(std::io::Error::other)?;
    let t = libc::timespec {
        tv_sec: MARK_SECS,
        tv_nsec: 0,
    };
    let times = [t, t];
    // SAFETY: a valid path and two timespecs.
    let rc = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

impl Placeholders {
    /// Placeholders of a dry run: [`Placeholders::make`] makes nothing and only records
    /// the name (what `ralc render` shows of a launch must leave the disk as it was).
    pub fn dry() -> Self {
        Placeholders {
            made: Vec::new(),
            held: Vec::new(),
            dry: true,
            would: Vec::new(),
        }
    }

    /// Is this a dry run (nothing is made)?
    pub fn is_dry(&self) -> bool {
        self.dry
    }

    /// The names a dry run would have made placeholders at, in the order asked.
    pub fn would_make(&self) -> &[String] {
        &self.would
    }

    /// Make the placeholder at `p` (absolute), its missing parents too. In a dry run,
    /// only record `p` (nothing is created, nothing is checked on the disk).
    pub fn make(&mut self, p: &str, form: Form<'_>) -> std::io::Result<()> {
        use std::io::Write;
        if self.dry {
            let _ = form;
            self.would.push(p.to_string());
            return Ok(());
        }
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let mut missing = Vec::new();
        let mut a = p;
        while let Some(i) = a.rfind('/') {
            a = &a[..i];
            if a.is_empty() || std::fs::symlink_metadata(a).is_ok() {
                break;
            }
            missing.push(a.to_string());
        }
        // The existing part of the way holds no symlink: nothing is made elsewhere.
        if !a.is_empty() {
            match super::handle::open_real(a)? {
                super::handle::Opened::Found(_) => {}
                _ => {
                    return Err(std::io::Error::other(format!(
                        "{a} is a symlink or lies beneath one"
                    )))
                }
            }
        }
        // A name another run made meanwhile (two launches in one project at once) is that
        // run's: used as it is, neither remembered nor removed by this one (the lock this
        // run then holds on it keeps the other from removing it while this run lasts).
        let taken = |e: &std::io::Error| e.kind() == std::io::ErrorKind::AlreadyExists;
        for parent in missing.iter().rev() {
            match std::fs::DirBuilder::new().mode(0o755).create(parent) {
                Ok(()) => self.remember(parent)?,
                Err(e) if taken(&e) => {}
                Err(e) => return Err(e),
            }
        }
        let made = match form {
            Form::Dir => std::fs::DirBuilder::new().mode(0o755).create(p),
            Form::File(text) =>
            {
                #[allow(
                    clippy::disallowed_methods,
                    reason = "launch site: a read-only placeholder made for the run (create_new, no symlink followed), removed after"
                )]
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(p)
                    .and_then(|mut f| f.write_all(text.as_bytes()))
            }
        };
        match made {
            Ok(()) => {}
            Err(e) if taken(&e) => return Ok(()),
            Err(e) => return Err(e),
        }
        mark(p)?;
        self.remember(p)
    }

    fn remember(&mut self, p: &str) -> std::io::Result<()> {
        let m = std::fs::symlink_metadata(p)?;
        self.made.insert(0, (p.to_string(), (m.dev(), m.ino())));
        Ok(())
    }

    /// Hold a shared lock on the object behind the `O_PATH` handle `fd` for this run (an
    /// object this user cannot open for reading is no placeholder of any run's: skipped).
    ///
    /// False when, once locked, `path` no longer names that object (another run removed
    /// it meanwhile): the caller opens it again.
    pub fn hold(&mut self, path: &str, fd: &std::os::fd::OwnedFd) -> bool {
        use std::os::fd::{AsRawFd, FromRawFd};
        let link =
            std::ffi::CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).unwrap_or_default();
        // SAFETY: reopening through the descriptor's own proc link, read-only.
        let n = unsafe {
            libc::open(
                link.as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY,
            )
        };
        if n < 0 {
            return true;
        }
        // SAFETY: freshly returned by the kernel.
        let held = unsafe { std::os::fd::OwnedFd::from_raw_fd(n) };
        // SAFETY: flock on an open descriptor.
        if unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_SH) } == 0 {
            if let Ok(id) = super::handle::dev_ino(&held) {
                let named = std::fs::symlink_metadata(path)
                    .map(|m| (m.dev(), m.ino()) == id)
                    .unwrap_or(false);
                self.held.push((path.to_string(), id, held));
                return named;
            }
        }
        true
    }

    /// Has anything been made?
    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }
}

/// May `p` go: no other run holds a lock on it (an exclusive lock taken at once)?
fn unheld(p: &str) -> bool {
    use std::os::fd::{AsRawFd, FromRawFd};
    let Ok(c) = std::ffi::CString::new(p) else {
        return false;
    };
    // SAFETY: open read-only, no symlink followed.
    let n = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY,
        )
    };
    if n < 0 {
        return false;
    }
    // SAFETY: freshly returned by the kernel.
    let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(n) };
    // SAFETY: flock on an open descriptor.
    unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

impl Drop for Placeholders {
    fn drop(&mut self) {
        let held: Vec<(String, (u64, u64))> =
            self.held.drain(..).map(|(p, id, _)| (p, id)).collect();
        // A placeholder another run made and left to this one (it still held it then):
        // removed by the last holder, when it is still that placeholder.
        for (p, id) in &held {
            let Ok(m) = std::fs::symlink_metadata(p) else {
                continue;
            };
            if (m.dev(), m.ino()) != *id
                || self.made.iter().any(|(q, _)| q == p)
                || !is_placeholder(p, &m)
                || !unheld(p)
            {
                continue;
            }
            if m.file_type().is_dir() {
                let _ = std::fs::remove_dir(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        }
        for (p, id) in &self.made {
            let Ok(m) = std::fs::symlink_metadata(p) else {
                continue;
            };
            if (m.dev(), m.ino()) != *id || !unheld(p) {
                continue;
            }
            if m.file_type().is_dir() {
                // Only an empty one: what someone put there since stays.
                let _ = std::fs::remove_dir(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Is `e` a refusal to create at all (permission, a read-only file system)? Then the
/// program, the same user with no capability, cannot create the name either: no
/// placeholder is needed.
pub fn uncreatable(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::PermissionDenied
        || matches!(e.raw_os_error(), Some(libc::EROFS) | Some(libc::EPERM))
}

/// The form a write exclusion absent at launch gets, by its name: a name git, a shell or
/// a tool reads as a file (`config`, `commondir`, `.npmrc`, `.bashrc`, `.profile`, a
/// name with an extension such as `config.toml` or `.mcp.json`) is a file; any other
/// (`hooks`, `.vscode`, `.codex`, `workflows`) a directory. Either form holds the name:
/// nothing of the other kind can be made there during the run.
pub fn form_of(path: &str) -> Form<'static> {
    /// Names whose tools fail on an empty file but skip a directory.
    const INERT_AS_DIR: &[&str] = &["rust-toolchain.toml", "rust-toolchain"];
    let name = path.rsplit('/').next().unwrap_or("");
    const FILES: &[&str] = &[
        "config",
        "commondir",
        "gitdir",
        "attributes",
        "credentials",
        "Makefile",
        "makefile",
        "GNUmakefile",
    ];
    let body = name.strip_prefix('.').unwrap_or(name);
    let dotted = name.starts_with('.');
    let file = FILES.contains(&name)
        || body.contains('.')
        || (dotted
            && [
                "rc", "profile", "env", "login", "logout", "config", "modules",
            ]
            .iter()
            .any(|s| body.ends_with(s)));
    if INERT_AS_DIR.contains(&name) {
        // A tool that reads this name parses a file and passes over a directory
        // (rustup's toolchain file): an empty file would break the program's own runs.
        Form::Dir
    } else if name == "commondir" {
        // git dies on an empty `commondir`; `.` names the git directory itself (as
        // `git_state` writes it), so the host's git and the program's see one repository.
        Form::File(".\n")
    } else if file {
        Form::File("")
    } else {
        Form::Dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_by_name() {
        for f in [
            "/p/.git/config",
            "/h/.npmrc",
            "/h/.bashrc",
            "/h/.profile",
            "/h/.zshenv",
            "/h/.gitconfig",
            "/h/.cargo/config.toml",
            "/p/.mcp.json",
            "/p/.gitmodules",
            "/p/.envrc",
        ] {
            assert_eq!(form_of(f), Form::File(""), "{f}");
        }
        assert_eq!(form_of("/p/.git/commondir"), Form::File(".\n"));
        assert_eq!(form_of("/p/rust-toolchain.toml"), Form::Dir);
        for d in [
            "/p/.git/hooks",
            "/p/.vscode",
            "/p/.codex",
            "/p/.github/workflows",
            "/h/.config/git",
        ] {
            assert_eq!(form_of(d), Form::Dir, "{d}");
        }
    }

    #[test]
    fn placeholders_and_their_parents_go_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap().to_string();
        std::fs::write(format!("{root}/kept"), "x").unwrap();
        let mut ph = Placeholders::default();
        ph.make(&format!("{root}/a/b/c"), Form::File("t")).unwrap();
        ph.make(&format!("{root}/dir"), Form::Dir).unwrap();
        // A name that exists (another run's placeholder, or anything) is used as it is:
        // never overwritten, never removed by this run.
        ph.make(&format!("{root}/kept"), Form::File("")).unwrap();
        assert_eq!(
            std::fs::read_to_string(format!("{root}/kept")).unwrap(),
            "x"
        );
        // Never through a symlink on the way.
        std::fs::create_dir(format!("{root}/elsewhere")).unwrap();
        std::os::unix::fs::symlink(format!("{root}/elsewhere"), format!("{root}/via")).unwrap();
        assert!(ph.make(&format!("{root}/via/x"), Form::File("")).is_err());
        assert!(ph.make(&format!("{root}/via/y/z"), Form::Dir).is_err());
        assert_eq!(
            std::fs::read_dir(format!("{root}/elsewhere"))
                .unwrap()
                .count(),
            0
        );
        assert_eq!(
            std::fs::read_to_string(format!("{root}/a/b/c")).unwrap(),
            "t"
        );
        std::fs::write(format!("{root}/dir/someone"), "y").unwrap();
        drop(ph);
        assert!(!std::path::Path::new(&format!("{root}/a")).exists());
        assert!(std::path::Path::new(&format!("{root}/dir/someone")).exists());
        assert_eq!(
            std::fs::read_to_string(format!("{root}/kept")).unwrap(),
            "x"
        );
        // One another run still holds stays.
        let mut mine = Placeholders::default();
        mine.make(&format!("{root}/held"), Form::File("")).unwrap();
        let mut other = Placeholders::default();
        let Ok(crate::linux::handle::Opened::Found(fd)) =
            crate::linux::handle::open_real(&format!("{root}/held"))
        else {
            panic!("no placeholder");
        };
        other.hold(&format!("{root}/held"), &fd);
        drop(mine);
        assert!(std::path::Path::new(&format!("{root}/held")).exists());
        // ... and the last holder removes it.
        drop(other);
        assert!(!std::path::Path::new(&format!("{root}/held")).exists());
        assert_eq!(
            std::fs::read_to_string(format!("{root}/kept")).unwrap(),
            "x"
        );
    }
}
