//! `Disk`: the freeze's one window on the file system — resolve a path's real form, ask
//! what kind of entry it is, read a small file (a `.git` pointer). `RealDisk` is the live
//! host; tests pass temp trees through it, or a fake. Nothing else in the freeze touches
//! the disk, and this trait never writes.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// What a path names (symlinks followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Other,
}

/// The largest pointer or back-pointer file the freeze reads.
pub const SMALL_FILE_LIMIT: u64 = 64 * 1024;

pub trait Disk: Send + Sync + fmt::Debug {
    /// The canonical path (symlinks followed); an error when it does not exist or cannot
    /// be resolved.
    fn canonicalize(&self, path: &str) -> io::Result<PathBuf>;
    /// The kind of entry at `path` (symlinks followed); `None` when nothing is there.
    fn kind(&self, path: &str) -> Option<EntryKind>;
    /// Whether `path` is a regular file with an execute bit (following symlinks).
    fn is_executable_file(&self, path: &str) -> bool;
    /// Read a small file (at most [`SMALL_FILE_LIMIT`] bytes).
    fn read_small(&self, path: &str) -> io::Result<Vec<u8>>;
    /// Whether the entry at `path` itself (not followed) is a symlink.
    fn is_symlink(&self, path: &str) -> bool;
}

/// The live host's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealDisk;

impl Disk for RealDisk {
    fn canonicalize(&self, path: &str) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }
    fn kind(&self, path: &str) -> Option<EntryKind> {
        let m = std::fs::metadata(path).ok()?;
        Some(if m.is_dir() {
            EntryKind::Dir
        } else if m.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        })
    }
    fn is_executable_file(&self, path: &str) -> bool {
        let Ok(m) = std::fs::metadata(path) else {
            return false;
        };
        if !m.is_file() {
            return false;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        {
            true
        }
    }
    #[allow(
        clippy::disallowed_methods,
        reason = "freeze disk site: read a .git pointer file, bounded"
    )]
    fn read_small(&self, path: &str) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let f = std::fs::File::open(path)?;
        let mut buf = Vec::new();
        f.take(SMALL_FILE_LIMIT + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > SMALL_FILE_LIMIT {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "file too large"));
        }
        Ok(buf)
    }
    fn is_symlink(&self, path: &str) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }
}
