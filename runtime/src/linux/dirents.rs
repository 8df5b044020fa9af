//! Raw directory listing: the entries of an open directory handle, read in `getdents64`
//! batches into one buffer and handed out as (inode, type, name bytes) with no allocation
//! per entry (`.` and `..` skipped), and the type of one entry by `fstatat` when the
//! listing does not say. It resolves no path and follows no symlink; what an entry is
//! allowed to be is the caller's judgment.

use super::handle::Kind;
use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

/// One listed entry; `raw` borrows the listing's buffer until the next entry is asked.
pub struct Entry<'a> {
    pub ino: u64,
    /// `d_type` (`libc::DT_*`; `DT_UNKNOWN` where the filesystem does not say).
    pub dtype: u8,
    pub raw: &'a [u8],
}

/// A listing in progress over a directory opened for reading.
pub struct Dirents {
    fd: RawFd,
    buf: Vec<u8>,
    len: usize,
    off: usize,
}

/// Where a `linux_dirent64`'s name starts (after ino, off, reclen and type).
const DIRENT_NAME: usize = 19;

impl Dirents {
    /// List `fd` (a directory opened for reading, owned by the caller for the listing's
    /// life) through a buffer of `capacity` bytes.
    pub fn new(fd: RawFd, capacity: usize) -> Dirents {
        Dirents {
            fd,
            buf: vec![0u8; capacity.max(4096)],
            len: 0,
            off: 0,
        }
    }

    /// The next entry, `None` at the end; a malformed record is an error.
    pub fn next_entry(&mut self) -> io::Result<Option<Entry<'_>>> {
        loop {
            if self.off + DIRENT_NAME > self.len {
                self.len = getdents(self.fd, &mut self.buf)?;
                self.off = 0;
                if self.len == 0 {
                    return Ok(None);
                }
                continue;
            }
            let off = self.off;
            let reclen = u16::from_ne_bytes([self.buf[off + 16], self.buf[off + 17]]) as usize;
            if reclen < DIRENT_NAME || off + reclen > self.len {
                return Err(io::Error::other("a malformed directory entry"));
            }
            self.off += reclen;
            let name = &self.buf[off + DIRENT_NAME..off + reclen];
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            if matches!(&name[..end], b"." | b"..") {
                continue;
            }
            let mut ino = [0u8; 8];
            ino.copy_from_slice(&self.buf[off..off + 8]);
            return Ok(Some(Entry {
                ino: u64::from_ne_bytes(ino),
                dtype: self.buf[off + 18],
                raw: &self.buf[off + DIRENT_NAME..off + DIRENT_NAME + end],
            }));
        }
    }
}

fn getdents(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: the kernel writes at most `buf.len()` bytes of dirents into `buf`.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        return Ok(n as usize);
    }
}

/// What `name` directly beneath the open directory `dir` is, and its link count, its
/// final symlink not followed: `None` when it is gone or cannot be asked.
pub fn lstat_at(dir: RawFd, name: &[u8]) -> Option<(Kind, u64)> {
    let c = CString::new(name).ok()?;
    // SAFETY: a zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string relative to an open directory, and a valid out-pointer.
    let rc = unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    if rc != 0 {
        return None;
    }
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Symlink,
        _ => Kind::Other,
    };
    Some((kind, st.st_nlink as u64))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a test's fixtures fail the test when they cannot be made"
)]
mod tests {
    use super::*;
    use crate::linux::handle::{open_dir, Opened};
    use std::os::fd::{AsRawFd, OwnedFd};

    fn opened(p: &std::path::Path) -> OwnedFd {
        match open_dir(libc::AT_FDCWD, p.to_str().unwrap()).unwrap() {
            Opened::Found(fd) => fd,
            _ => panic!("no directory at {}", p.display()),
        }
    }

    #[test]
    fn every_entry_is_listed_once_across_small_batches() {
        let t = tempfile::tempdir().unwrap();
        let mut want: Vec<String> = (0..300).map(|i| format!("entry-{i:03}")).collect();
        for n in &want {
            std::fs::write(t.path().join(n), b"").unwrap();
        }
        std::fs::create_dir(t.path().join("sub")).unwrap();
        want.push("sub".into());
        let dir = opened(t.path());
        // The smallest buffer: many refills, each entry still whole and listed once.
        let mut d = Dirents::new(dir.as_raw_fd(), 0);
        let mut got = Vec::new();
        while let Some(e) = d.next_entry().unwrap() {
            let name = String::from_utf8(e.raw.to_vec()).unwrap();
            if name == "sub" {
                assert!(e.dtype == libc::DT_DIR || e.dtype == libc::DT_UNKNOWN);
            }
            got.push(name);
        }
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn lstat_at_sees_links_and_symlinks_as_themselves() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f"), b"x").unwrap();
        std::fs::hard_link(t.path().join("f"), t.path().join("g")).unwrap();
        std::os::unix::fs::symlink("f", t.path().join("l")).unwrap();
        let dir = opened(t.path());
        let fd = dir.as_raw_fd();
        assert_eq!(lstat_at(fd, b"f"), Some((Kind::File, 2)));
        assert_eq!(lstat_at(fd, b"l").map(|k| k.0), Some(Kind::Symlink));
        assert_eq!(lstat_at(fd, b"gone"), None);
    }
}
