//! The one reviewed reader: every file a command reads (`-p`, `--restrict`, `--extend`,
//! `--batch`, a `.git` pointer and what it leads to, a `#!` head) is opened here. The open
//! never blocks (`O_NONBLOCK`, no controlling terminal), the handle itself is checked to
//! be a regular file on an ordinary file system (never procfs, sysfs and their kin), and
//! at most a stated bound is read. A name given relative to a directory may not resolve
//! to a file outside that directory's tree unless the caller opts in.
//!
//! A file read on a reviewer's behalf ([`read_reviewed`]: layers, `--batch` questions,
//! `fmt` targets, `diff` sides) also may not lie in a git directory: its real path (of
//! the opened handle) is under no directory named `.git`, no directory that is a git
//! directory (a `gitdir:` target, a worktree's or a bare repository's), and not under
//! `$GIT_DIR` — a checkout's `.git/config` holds the CI token. Nor may it have more than
//! one hard link: a second name for `.git/config` has a path outside `.git`, and a git
//! checkout never holds a hard link, so a reviewed file with `st_nlink > 1` is refused.
//!
//! It never writes, never reads a FIFO, device, socket or kernel interface, never reads
//! more than its bound, and never puts a file's bytes into an error message.

use crate::path::identity::{path_within, Identity};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The largest profile layer read (`-p`, `--restrict`, `--extend`, positional files).
pub const PROFILE_LIMIT: u64 = 1024 * 1024;
/// The largest `why --batch` questions file read.
pub const BATCH_LIMIT: u64 = 1024 * 1024;
/// The largest `.git` pointer, back-pointer or git config read.
pub const POINTER_LIMIT: u64 = 64 * 1024;

/// Why a file was not read. The wording names the file and the reason, never its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The open or a read failed (missing, permission, …): the system's own words.
    Io(String),
    /// The handle is not a regular file (a directory, FIFO, device, socket).
    NotRegular(&'static str),
    /// The file lives on a kernel interface file system (procfs, sysfs, …).
    KernelFs(&'static str),
    /// The file is larger than the bound.
    TooLarge(u64),
    /// The name resolves to a file outside the tree it was named from.
    Outside { real: String, tree: String },
    /// The file lies in a git directory (`.git/`, a `gitdir:` target, `$GIT_DIR`).
    GitDir(String),
    /// The file has more than one hard link (a checkout never holds one; a second name
    /// for `.git/config` would otherwise pass the real-path rule).
    HardLinked(u64),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Io(e) => write!(f, "{e}"),
            Refusal::NotRegular(kind) => write!(f, "it is a {kind}, not a regular file"),
            Refusal::KernelFs(fs) => {
                write!(f, "it is a kernel interface file ({fs}), not a profile")
            }
            Refusal::TooLarge(limit) => write!(f, "it is larger than {limit} bytes"),
            Refusal::Outside { real, tree } => write!(
                f,
                "it is a link to a file outside the checkout (`{real}` is not under `{tree}`); \
                 pass --allow-outside-links if you mean it"
            ),
            Refusal::GitDir(dir) => write!(
                f,
                "it lies in the git directory `{dir}`, which is never read as a profile"
            ),
            Refusal::HardLinked(n) => write!(
                f,
                "it has {n} hard links, and a file read for review must have one (git never \
                 checks out a hard link; a second name may be a git directory's file)"
            ),
        }
    }
}

/// Read at most `limit` bytes of the regular file at `path`, refusing anything else.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let f = open_regular(path)?;
    let mut buf = Vec::new();
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Refusal::Io(e.to_string()))?;
    if buf.len() as u64 > limit {
        return Err(Refusal::TooLarge(limit));
    }
    Ok(buf)
}

/// Read at most `limit` bytes of the regular file at `path` on a reviewer's behalf: as
/// [`read_bounded`], and refused when the opened file has more than one hard link or
/// its real path lies in a git directory (see the module doc). `--allow-outside-links`
/// lifts neither.
pub fn read_reviewed(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let f = open_regular(path)?;
    if let Some(n) = hard_links(&f)? {
        return Err(Refusal::HardLinked(n));
    }
    let real = real_path_of(&f, path)?;
    if let Some(dir) = git_dir_holding(&real) {
        return Err(Refusal::GitDir(dir.display().to_string()));
    }
    let mut buf = Vec::new();
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Refusal::Io(e.to_string()))?;
    if buf.len() as u64 > limit {
        return Err(Refusal::TooLarge(limit));
    }
    Ok(buf)
}

/// The opened handle's link count when it is more than one (checked on the handle, so
/// no swap of the name matters). Only Unix counts links here; elsewhere `None`.
fn hard_links(f: &File) -> Result<Option<u64>, Refusal> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let n = f
            .metadata()
            .map_err(|e| Refusal::Io(e.to_string()))?
            .nlink();
        if n > 1 {
            return Ok(Some(n));
        }
    }
    let _ = f;
    Ok(None)
}

/// The real path of the opened handle (Linux: its `/proc/self/fd` link, so no swap of
/// the name between the check and the open matters; elsewhere the name's real path).
#[allow(
    clippy::disallowed_methods,
    reason = "reader site: the real path of the handle just opened"
)]
fn real_path_of(f: &File, path: &Path) -> Result<PathBuf, Refusal> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(p) = std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd())) {
            if p.is_absolute() {
                return Ok(p);
            }
        }
    }
    let _ = f;
    std::fs::canonicalize(path).map_err(|e| Refusal::Io(e.to_string()))
}

/// The git directory a real path lies in, if any: an ancestor named `.git` (any case),
/// an ancestor that is a git directory (`HEAD` beside `objects/` and `refs/`, or beside
/// `commondir`: a `gitdir:` target, a worktree's, a bare repository), or `$GIT_DIR`.
#[allow(
    clippy::disallowed_methods,
    reason = "reader site: whether a file to read lies in a git directory ($GIT_DIR and its ancestors' entries)"
)]
pub fn git_dir_holding(real: &Path) -> Option<PathBuf> {
    if let Some(g) = std::env::var_os("GIT_DIR") {
        if let Ok(g) = std::fs::canonicalize(g) {
            if real.starts_with(&g) {
                return Some(g);
            }
        }
    }
    for a in real.ancestors().skip(1) {
        if a.file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(".git"))
        {
            return Some(a.to_path_buf());
        }
        let head = a.join("HEAD").is_file();
        if head
            && ((a.join("objects").is_dir() && a.join("refs").is_dir())
                || a.join("commondir").is_file())
        {
            return Some(a.to_path_buf());
        }
    }
    None
}

/// The first `n` bytes (or fewer) of the regular file at `path`; `None` when it is not
/// a readable regular file on an ordinary file system.
pub fn head(path: &Path, n: usize) -> Option<Vec<u8>> {
    let f = open_regular(path).ok()?;
    let mut buf = Vec::with_capacity(n.min(4096));
    f.take(n as u64).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// Read at most `limit` bytes of standard input (`--batch -`): the caller named the pipe,
/// so it may block on it, but it never reads past the bound.
#[allow(
    clippy::disallowed_methods,
    reason = "reader site: standard input, named by `-`, read bounded"
)]
pub fn read_stdin_bounded(limit: u64) -> Result<Vec<u8>, Refusal> {
    let mut buf = Vec::new();
    io::stdin()
        .lock()
        .take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Refusal::Io(e.to_string()))?;
    if buf.len() as u64 > limit {
        return Err(Refusal::TooLarge(limit));
    }
    Ok(buf)
}

/// The process's working directory: where the shell that named a command's files stands
/// (the one read outside the resolver, `FreezeCtx::from_process`; the command line's
/// containment check and relative SARIF URIs need it before any freeze).
#[allow(
    clippy::disallowed_methods,
    reason = "reader site: the working directory a command's file names are relative to"
)]
pub fn working_dir() -> std::io::Result<std::path::PathBuf> {
    std::env::current_dir()
}

/// Whether a name given on a command line run in `cwd` stays in the tree it was named
/// from: the real path must lie under the real form of `cwd` when the written name does,
/// or else under the real form of the directory the name itself spells. Absolute names
/// are the user's own choice and are not judged. `Ok` when contained or not relative.
#[allow(
    clippy::disallowed_methods,
    reason = "reader site: a named file and the tree it was named from, each by its real path"
)]
pub fn check_contained(name: &str, cwd: &Path) -> Result<(), Refusal> {
    let written = Path::new(name);
    if written.has_root() {
        return Ok(());
    }
    let lexical = std::path::absolute(cwd.join(written)).map_err(|e| Refusal::Io(e.to_string()))?;
    let lexical = fold(&lexical);
    let cwd_folded = fold(cwd);
    let tree = if lexical.starts_with(&cwd_folded) {
        cwd_folded
    } else {
        lexical
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or(cwd_folded)
    };
    let real = std::fs::canonicalize(&lexical).map_err(|e| Refusal::Io(e.to_string()))?;
    let real_tree = std::fs::canonicalize(&tree).map_err(|e| Refusal::Io(e.to_string()))?;
    let (Some(r), Some(t)) = (real.to_str(), real_tree.to_str()) else {
        return Err(Refusal::Io("the path is not UTF-8".into()));
    };
    if path_within(Identity::Stored, t, r) {
        Ok(())
    } else {
        Err(Refusal::Outside {
            real: r.to_string(),
            tree: t.to_string(),
        })
    }
}

/// `.` and `..` folded lexically (no disk access).
fn fold(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[allow(
    clippy::disallowed_methods,
    reason = "reader site: the one non-blocking open of a file a command reads, checked regular on the handle"
)]
fn open_regular(path: &Path) -> Result<File, Refusal> {
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut open,
        libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC,
    );
    let f = open.open(path).map_err(|e| Refusal::Io(e.to_string()))?;
    let m = f.metadata().map_err(|e| Refusal::Io(e.to_string()))?;
    if !m.is_file() {
        return Err(Refusal::NotRegular(kind_name(&m)));
    }
    if let Some(fs) = kernel_fs(&f) {
        return Err(Refusal::KernelFs(fs));
    }
    Ok(f)
}

fn kind_name(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// The name of the kernel interface file system the handle lives on, if it does.
#[cfg(target_os = "linux")]
fn kernel_fs(f: &File) -> Option<&'static str> {
    let magic = rustix::fs::fstatfs(f).ok()?.f_type as i64;
    const KERNEL: &[(i64, &str)] = &[
        (0x9fa0, "procfs"),
        (0x6265_6572, "sysfs"),
        (0x1cd1, "devpts"),
        (0x6462_6720, "debugfs"),
        (0x7472_6163, "tracefs"),
        (0x7363_6673, "securityfs"),
        (0x0027_e0eb, "cgroupfs"),
        (0x6367_7270, "cgroup2"),
        (0xcafe_4a11, "bpffs"),
        (0x6265_6570, "configfs"),
        (0xde5e_81e4, "efivarfs"),
        (0x6165_676c, "pstore"),
        (0x6573_5543, "fusectl"),
    ];
    KERNEL.iter().find(|(m, _)| *m == magic).map(|(_, n)| *n)
}

#[cfg(not(target_os = "linux"))]
fn kernel_fs(_f: &File) -> Option<&'static str> {
    None
}

// Unix only: its tests open POSIX file types (directories, FIFOs, links).
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_within_the_bound_only() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p.ral");
        std::fs::write(&p, "[exec: []]\n").unwrap();
        assert_eq!(read_bounded(&p, 64).unwrap(), b"[exec: []]\n");
        assert_eq!(read_bounded(&p, 4), Err(Refusal::TooLarge(4)));
        assert_eq!(head(&p, 3).as_deref(), Some(&b"[ex"[..]));
        assert!(matches!(
            read_bounded(d.path(), 64),
            Err(Refusal::NotRegular("directory"))
        ));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn refuses_devices_kernel_files_and_fifos_without_blocking() {
        assert!(matches!(
            read_bounded(Path::new("/dev/zero"), 64),
            Err(Refusal::NotRegular("device"))
        ));
        assert!(matches!(
            read_bounded(Path::new("/proc/self/environ"), 1 << 20),
            Err(Refusal::KernelFs("procfs"))
        ));
        assert_eq!(head(Path::new("/proc/self/status"), 4), None);
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from(0o600)).unwrap();
        // no writer: a blocking open would hang here
        assert!(matches!(
            read_bounded(&fifo, 64),
            Err(Refusal::NotRegular("FIFO"))
        ));
    }

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "test: a temporary directory's real path, to build the tree under test"
    )]
    fn a_file_in_a_git_directory_is_never_read_for_review() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap().join("checkout");
        std::fs::create_dir_all(root.join(".git/refs")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join(".git/config"), "[http]\n").unwrap();
        std::fs::write(root.join("ok.ral"), "[]").unwrap();
        std::os::unix::fs::symlink(".git/config", root.join("p.ral")).unwrap();
        assert_eq!(read_reviewed(&root.join("ok.ral"), 64).unwrap(), b"[]");
        assert!(matches!(
            read_reviewed(&root.join("p.ral"), 64),
            Err(Refusal::GitDir(_))
        ));
        assert!(matches!(
            read_reviewed(&root.join(".git/config"), 64),
            Err(Refusal::GitDir(_))
        ));
        // a gitdir: target elsewhere, named by any name
        let bare = d.path().join("elsewhere");
        std::fs::create_dir_all(bare.join("refs")).unwrap();
        std::fs::create_dir_all(bare.join("objects")).unwrap();
        std::fs::write(bare.join("HEAD"), "x").unwrap();
        std::fs::write(bare.join("config"), "x").unwrap();
        std::os::unix::fs::symlink(bare.join("config"), root.join("q.ral")).unwrap();
        assert!(matches!(
            read_reviewed(&root.join("q.ral"), 64),
            Err(Refusal::GitDir(_))
        ));
    }

    #[test]
    #[cfg(unix)]
    fn a_hard_linked_file_is_never_read_for_review() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.ral"), "[]").unwrap();
        assert_eq!(read_reviewed(&d.path().join("a.ral"), 64).unwrap(), b"[]");
        std::fs::hard_link(d.path().join("a.ral"), d.path().join("b.ral")).unwrap();
        for n in ["a.ral", "b.ral"] {
            assert_eq!(
                read_reviewed(&d.path().join(n), 64),
                Err(Refusal::HardLinked(2))
            );
        }
        // the launch's own reader is not the reviewer's
        assert_eq!(read_bounded(&d.path().join("b.ral"), 64).unwrap(), b"[]");
    }

    #[test]
    #[cfg(unix)]
    fn a_relative_name_may_not_lead_out_of_its_tree() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("checkout");
        std::fs::create_dir_all(root.join("profiles")).unwrap();
        std::fs::write(d.path().join("secret"), "x").unwrap();
        std::fs::write(root.join("profiles/ok.ral"), "[]").unwrap();
        std::os::unix::fs::symlink("../../secret", root.join("profiles/x.ral")).unwrap();
        std::os::unix::fs::symlink("ok.ral", root.join("profiles/y.ral")).unwrap();
        assert_eq!(check_contained("profiles/ok.ral", &root), Ok(()));
        assert_eq!(check_contained("profiles/y.ral", &root), Ok(()));
        assert!(matches!(
            check_contained("profiles/x.ral", &root),
            Err(Refusal::Outside { .. })
        ));
        // a name that spells its way out names that directory's tree
        assert_eq!(check_contained("../secret", &root), Ok(()));
        assert!(matches!(
            check_contained("../profiles/x.ral", &root.join("profiles")),
            Err(Refusal::Outside { .. })
        ));
        // an absolute name is the user's own choice
        assert_eq!(
            check_contained(root.join("profiles/x.ral").to_str().unwrap(), &root),
            Ok(())
        );
    }
}
