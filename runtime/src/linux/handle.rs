//! Opening host objects by handle with no symlink followed (`openat2` with
//! `RESOLVE_NO_SYMLINKS`), so each bind and Landlock rule reaches the object the grant
//! froze. It never follows a symlink and never opens for writing.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
const RESOLVE_NO_SYMLINKS: u64 = 0x04;

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// What opening a path by handle found.
#[derive(Debug)]
pub enum Opened {
    Found(OwnedFd),
    /// Nothing is there (or a component is not a directory).
    Absent,
    /// A symlink sits at the path or above it.
    Symlink,
}

/// Open `path` (absolute) as an `O_PATH` handle, never following a symlink.
pub fn open_real(path: &str) -> io::Result<Opened> {
    open_how(libc::AT_FDCWD, path, libc::O_PATH)
}

/// Reopen a directory handle for listing (`openat(fd, ".")`): the same directory, no
/// name resolved again.
pub fn reopen_dir(fd: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: "." relative to an open directory handle.
    let n = unsafe {
        libc::openat(
            fd.as_raw_fd(),
            c".".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(n) })
}

/// Open `name` beneath `dir` as an `O_PATH` handle, never following a symlink.
pub fn open_beneath(dir: RawFd, name: &str) -> io::Result<Opened> {
    open_how(dir, name, libc::O_PATH)
}

/// Open the directory `path` (relative to `dir`, or absolute with `libc::AT_FDCWD`) for
/// listing, no symlink followed anywhere in it: `Absent` when it is not a directory.
pub fn open_dir(dir: RawFd, path: &str) -> io::Result<Opened> {
    open_how(dir, path, libc::O_RDONLY | libc::O_DIRECTORY)
}

fn open_how(dir: RawFd, path: &str, flags: i32) -> io::Result<Opened> {
    let c = CString::new(path)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL"))?;
    let how = OpenHow {
        flags: (flags | libc::O_CLOEXEC | libc::O_NOFOLLOW) as u64,
        mode: 0,
        resolve: RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    // SAFETY: `c` and `how` outlive the call; the kernel reads `size_of::<OpenHow>()` bytes.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            c.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd >= 0 {
        // SAFETY: the kernel just returned this descriptor to us.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        // `O_PATH | O_NOFOLLOW` opens a final symlink as itself: that is a symlink too.
        if kind_of(&fd)? == Kind::Symlink {
            return Ok(Opened::Symlink);
        }
        return Ok(Opened::Found(fd));
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => Ok(Opened::Absent),
        Some(libc::ELOOP) => Ok(Opened::Symlink),
        _ => Err(err),
    }
}

/// The kernel's name for what a descriptor holds (`readlink /proc/self/fd/N`).
pub fn name_of(fd: &OwnedFd) -> Option<String> {
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let target = std::fs::read_link(link).ok()?;
    target.to_str().map(str::to_string)
}

/// The file type of a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

/// `fstat` a handle.
pub fn kind_of(fd: &OwnedFd) -> io::Result<Kind> {
    // SAFETY: a zeroed `stat` is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open; `st` is a valid out-pointer.
    let rc = unsafe { libc::fstat(fd.as_raw_fd(), &mut st) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Symlink,
        _ => Kind::Other,
    })
}

/// The device and inode a handle holds (a directory met twice is a bind loop).
pub fn dev_ino(fd: &OwnedFd) -> io::Result<(u64, u64)> {
    // SAFETY: a zeroed `stat` is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open; `st` is a valid out-pointer.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((st.st_dev, st.st_ino))
}

/// `lstat` a path: its kind, or `None` when absent.
pub fn lkind(path: &str) -> Option<Kind> {
    let md = std::fs::symlink_metadata(path).ok()?;
    let ft = md.file_type();
    Some(if ft.is_symlink() {
        Kind::Symlink
    } else if ft.is_dir() {
        Kind::Dir
    } else if ft.is_file() {
        Kind::File
    } else {
        Kind::Other
    })
}

/// Duplicate a descriptor (close-on-exec) at or above `min`.
pub fn dup_above(fd: RawFd, min: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC on an open descriptor returns a new one or -1.
    let n = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(n) })
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "test: a temporary directory's real path, to build the tree under test"
)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap().to_string();
        std::fs::create_dir(format!("{d}/real")).unwrap();
        std::os::unix::fs::symlink(format!("{d}/real"), format!("{d}/link")).unwrap();
        let real = std::fs::canonicalize(&d).unwrap();
        let real = real.to_str().unwrap();
        assert!(matches!(
            open_real(&format!("{real}/real")).unwrap(),
            Opened::Found(_)
        ));
        assert!(matches!(
            open_real(&format!("{real}/link")).unwrap(),
            Opened::Symlink
        ));
        assert!(matches!(
            open_real(&format!("{real}/link/x")).unwrap(),
            Opened::Symlink
        ));
        assert!(matches!(
            open_real(&format!("{real}/absent")).unwrap(),
            Opened::Absent
        ));
        assert!(matches!(
            open_real("/proc/self/root/etc").unwrap(),
            Opened::Symlink
        ));
    }
}
