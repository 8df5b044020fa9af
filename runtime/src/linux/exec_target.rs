//! The file an `execve`/`execveat` names, resolved as the calling thread sees it, for the
//! supervisor's loader check: the walk starts at the caller's root (`/proc/TID/root`), its
//! working directory (`/proc/TID/cwd`) or the directory fd it passed (`/proc/TID/fd/N`),
//! one component at a time with `O_PATH|O_NOFOLLOW`; `..` never climbs above the caller's
//! root; a link is read and followed by hand (an absolute one from the caller's root); a
//! procfs `self`/`thread-self` is the caller's own pid (in the pid namespace of its
//! `/proc`); a procfs magic link (`fd/N`, `root`, `cwd`, `exe`) is followed by the kernel,
//! which jumps to the object the caller holds. The answer is the file's device and inode,
//! `Absent` when a component does not exist (the caller's exec fails with `ENOENT` too),
//! or an error when the name cannot be resolved here — the caller then refuses the exec
//! (fail closed). It only looks: it never opens a file for reading or writing, and never
//! follows a link into the supervisor's own root.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// What an exec's name reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The file, by device and inode.
    File(u64, u64),
    /// A component does not exist: the exec fails with `ENOENT` on its own.
    Absent,
}

/// Links followed before giving up (the kernel's own limit).
const MAX_LINKS: usize = 40;
/// Components walked before giving up.
const MAX_STEPS: usize = 4096;
/// `PROC_SUPER_MAGIC` (linux/magic.h).
const PROC_SUPER_MAGIC: i64 = 0x9fa0;
/// The inode of a procfs mount's root.
const PROC_ROOT_INO: u64 = 1;

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

fn open_at(dir: i32, name: &str, flags: i32) -> Result<OwnedFd, i32> {
    let c = CString::new(name).map_err(|_| libc::EINVAL)?;
    // SAFETY: a valid C string; the fd returned is owned below.
    let fd = unsafe { libc::openat(dir, c.as_ptr(), flags | libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: a fresh fd this function owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn open_path(path: &str) -> Result<OwnedFd, String> {
    open_at(libc::AT_FDCWD, path, 0).map_err(|e| format!("{path}: errno {e}"))
}

fn stat(fd: &OwnedFd) -> Result<libc::stat, i32> {
    // SAFETY: a zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid fd and out-parameter.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(errno());
    }
    Ok(st)
}

fn on_proc(fd: &OwnedFd) -> bool {
    // SAFETY: a zeroed statfs is a valid out-parameter.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid fd and out-parameter.
    let rc = unsafe { libc::fstatfs(fd.as_raw_fd(), &mut st) };
    rc == 0 && st.f_type as i64 == PROC_SUPER_MAGIC
}

fn is_proc_root(fd: &OwnedFd) -> bool {
    on_proc(fd) && stat(fd).is_ok_and(|s| s.st_ino == PROC_ROOT_INO)
}

fn same(a: &OwnedFd, b: &OwnedFd) -> bool {
    matches!((stat(a), stat(b)), (Ok(x), Ok(y)) if (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino))
}

fn read_link_at(dir: &OwnedFd, name: &str) -> Result<String, i32> {
    let c = CString::new(name).map_err(|_| libc::EINVAL)?;
    let mut buf = vec![0u8; libc::PATH_MAX as usize + 1];
    // SAFETY: a valid C string and a buffer of the length given.
    let n = unsafe {
        libc::readlinkat(
            dir.as_raw_fd(),
            c.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        return Err(errno());
    }
    if n as usize >= buf.len() {
        return Err(libc::ENAMETOOLONG);
    }
    buf.truncate(n as usize);
    String::from_utf8(buf).map_err(|_| libc::EILSEQ)
}

/// The caller's (thread group id, thread id) in the pid namespace of its own `/proc`: the
/// last fields of `NStgid` and `NSpid`.
fn ns_ids(tid: i32) -> Result<(String, String), String> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status"))
        .map_err(|e| format!("/proc/{tid}/status: {e}"))?;
    let last = |key: &str| -> Option<String> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().last())
            .map(str::to_string)
    };
    match (last("NStgid:"), last("NSpid:")) {
        (Some(g), Some(t)) => Ok((g, t)),
        _ => Err(format!("/proc/{tid}/status names no namespace ids")),
    }
}

/// Push a path's components so that the first is popped first.
fn push_components(todo: &mut Vec<String>, path: &str) {
    todo.extend(path.split('/').rev().map(str::to_string));
}

/// Resolve the name an exec of thread `tid` gives (`dirfd` as `execveat` takes it, or
/// `AT_FDCWD`; `empty_path`: `AT_EMPTY_PATH` was passed), as that thread sees it.
pub fn resolve(tid: i32, dirfd: i32, path: &str, empty_path: bool) -> Result<Target, String> {
    let base = |fd: i32| -> Result<OwnedFd, String> {
        if fd == libc::AT_FDCWD {
            open_path(&format!("/proc/{tid}/cwd"))
        } else if fd >= 0 {
            open_path(&format!("/proc/{tid}/fd/{fd}"))
        } else {
            Err(format!("directory fd {fd}"))
        }
    };
    let ident = |fd: &OwnedFd| -> Result<Target, String> {
        let st = stat(fd).map_err(|e| format!("stat: errno {e}"))?;
        Ok(Target::File(st.st_dev, st.st_ino))
    };
    if path.is_empty() {
        if !empty_path {
            return Ok(Target::Absent);
        }
        return ident(&base(dirfd)?);
    }
    let root = open_path(&format!("/proc/{tid}/root"))?;
    let mut cur = if path.starts_with('/') {
        open_at(root.as_raw_fd(), ".", 0).map_err(|e| format!("root: errno {e}"))?
    } else {
        base(dirfd)?
    };
    let mut todo: Vec<String> = Vec::new();
    push_components(&mut todo, path);
    let (mut links, mut steps) = (0usize, 0usize);
    while let Some(c) = todo.pop() {
        steps += 1;
        if steps > MAX_STEPS {
            return Err("too many components".to_string());
        }
        match c.as_str() {
            "" | "." => continue,
            ".." => {
                if !same(&cur, &root) {
                    cur =
                        open_at(cur.as_raw_fd(), "..", 0).map_err(|e| format!("..: errno {e}"))?;
                }
                continue;
            }
            _ => {}
        }
        if (c == "self" || c == "thread-self") && is_proc_root(&cur) {
            let (tgid, nstid) = ns_ids(tid)?;
            if c == "self" {
                todo.push(tgid);
            } else {
                push_components(&mut todo, &format!("{tgid}/task/{nstid}"));
            }
            continue;
        }
        let next = match open_at(cur.as_raw_fd(), &c, libc::O_NOFOLLOW) {
            Ok(fd) => fd,
            Err(libc::ENOENT) => return Ok(Target::Absent),
            Err(e) => return Err(format!("{c}: errno {e}")),
        };
        let st = stat(&next).map_err(|e| format!("{c}: errno {e}"))?;
        if st.st_mode & libc::S_IFMT != libc::S_IFLNK {
            cur = next;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Err("too many links".to_string());
        }
        let to = read_link_at(&cur, &c).map_err(|e| format!("{c}: errno {e}"))?;
        if on_proc(&next) && (to.starts_with('/') || to.contains(':')) {
            // A magic link (`fd/N`, `cwd`, `root`, `exe`): the kernel jumps to the object
            // the process holds; its text is no path to walk.
            cur = open_at(cur.as_raw_fd(), &c, 0).map_err(|e| format!("{c}: errno {e}"))?;
            continue;
        }
        if to.starts_with('/') {
            cur = open_at(root.as_raw_fd(), ".", 0).map_err(|e| format!("root: errno {e}"))?;
        }
        push_components(&mut todo, &to);
    }
    ident(&cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[allow(
        clippy::disallowed_methods,
        reason = "test: the identity to compare with"
    )]
    fn ident(p: &str) -> Target {
        let m = std::fs::metadata(p).unwrap();
        Target::File(m.dev(), m.ino())
    }

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "test: opens system files to hold descriptors"
    )]
    fn names_resolve_as_the_caller_sees_them() {
        let me = std::process::id() as i32;
        let sh = ident("/bin/sh");
        assert_eq!(resolve(me, libc::AT_FDCWD, "/bin/sh", false), Ok(sh));
        assert_eq!(
            resolve(me, libc::AT_FDCWD, "/proc/self/root/bin/sh", false),
            Ok(sh)
        );
        assert_eq!(
            resolve(
                me,
                libc::AT_FDCWD,
                "/proc/thread-self/root/bin/../bin/sh",
                false
            ),
            Ok(sh)
        );
        assert_eq!(
            resolve(me, libc::AT_FDCWD, "/../../bin/./sh", false),
            Ok(sh)
        );
        assert_eq!(
            resolve(me, libc::AT_FDCWD, "/bin/no-such-program-here", false),
            Ok(Target::Absent)
        );
        let f = std::fs::File::open("/bin/sh").unwrap();
        let fd = f.as_raw_fd();
        assert_eq!(
            resolve(me, libc::AT_FDCWD, &format!("/proc/self/fd/{fd}"), false),
            Ok(sh)
        );
        assert_eq!(resolve(me, fd, "", true), Ok(sh));
        assert_eq!(resolve(me, fd, "", false), Ok(Target::Absent));
        let dir = std::fs::File::open("/bin").unwrap();
        assert_eq!(resolve(me, dir.as_raw_fd(), "sh", false), Ok(sh));
        assert!(resolve(me, 9999, "sh", false).is_err());
    }
}
