//! `Disk`: the freeze's one window on the file system — resolve a path's real form, ask
//! what kind of entry it is, read a small file (a `.git` pointer). `RealDisk` is the live
//! host (its reads go through the one reviewed reader, `crate::reader`: non-blocking,
//! regular files only, bounded); tests pass temp trees through it, or a fake. Nothing
//! else in the freeze touches the disk, and this trait never writes.

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

/// What is at a path itself, its last component not followed (`lstat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Nothing: the look failed (no such entry, a parent that is not a directory, no
    /// search permission on the way). Nothing can exist beneath it either.
    Missing,
    /// A symlink.
    Link,
    /// Any other entry.
    Entry,
}

/// The largest pointer or back-pointer file the freeze reads.
pub const SMALL_FILE_LIMIT: u64 = crate::reader::POINTER_LIMIT;

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
    /// What is at `path` itself (not followed).
    fn presence(&self, path: &str) -> Presence;
    /// Whether the entry at `path` itself (not followed) is a symlink.
    fn is_symlink(&self, path: &str) -> bool {
        self.presence(path) == Presence::Link
    }
    /// The first `n` bytes (or fewer) of the regular file at `path` (followed); `None` when
    /// it is not a readable regular file. Read for a `#!` line (`carrier`).
    fn head(&self, path: &str, n: usize) -> Option<Vec<u8>>;
    /// Whether the system vouches for the file at `path` (not followed): a regular file
    /// owned by root and writable by no one else, in a directory likewise.
    fn vouched(&self, path: &str) -> bool;
    /// The target text of the symlink at `path` (not followed); `None` when `path` is not a
    /// symlink or its target is not Unicode.
    fn read_link(&self, path: &str) -> Option<String>;
    /// The owner (uid) of the symlink at `path` itself (not followed); `None` when `path`
    /// is not a symlink.
    fn link_owner(&self, path: &str) -> Option<u32>;
    /// Whether the system vouches for the directory at `path` (not followed): owned by
    /// root and writable by no one else.
    fn vouched_dir(&self, path: &str) -> bool;
    /// The symlinks directly in the directory at `path` whose target text leads out of it
    /// (holds a `/`), sorted by name; empty when it cannot be listed. (A link to a sibling
    /// ends where that sibling does, and the sibling is listed itself.)
    fn links_in(&self, path: &str) -> Vec<ListedLink>;
    /// The names of the entries of the directory at `path` that are not symlinks, at most
    /// [`NAMES_LIMIT`]; empty when it is not a readable directory. Asked for the existing
    /// spellings an exclusion also names (`Resolve::collisions`); names that are not
    /// Unicode are left out (no exclusion written in a profile can name them).
    fn names(&self, path: &str) -> Vec<String>;
}

/// A symlink as a directory listing shows it: its name and its target text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedLink {
    pub name: String,
    pub target: String,
}

/// The most entries `Disk::names` lists in one directory.
pub const NAMES_LIMIT: usize = 100_000;

/// The live host's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealDisk;

#[allow(
    clippy::disallowed_methods,
    reason = "the disk trait's live implementation: the freeze's one way to the host's files"
)]
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
    fn read_small(&self, path: &str) -> io::Result<Vec<u8>> {
        crate::reader::read_bounded(std::path::Path::new(path), SMALL_FILE_LIMIT)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
    }
    fn presence(&self, path: &str) -> Presence {
        match std::fs::symlink_metadata(path) {
            Err(_) => Presence::Missing,
            Ok(m) if m.file_type().is_symlink() => Presence::Link,
            Ok(_) => Presence::Entry,
        }
    }
    fn head(&self, path: &str, n: usize) -> Option<Vec<u8>> {
        // The reviewed reader: non-blocking, so a FIFO swapped in for the file cannot
        // hang the render; the handle is checked to be a regular file before any read.
        crate::reader::head(std::path::Path::new(path), n)
    }
    fn vouched(&self, path: &str) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let root_only = |m: &std::fs::Metadata| m.uid() == 0 && m.mode() & 0o022 == 0;
            let Ok(m) = std::fs::symlink_metadata(path) else {
                return false;
            };
            let parent = std::path::Path::new(path).parent();
            m.file_type().is_file()
                && root_only(&m)
                && parent
                    .and_then(|d| std::fs::symlink_metadata(d).ok())
                    .is_some_and(|d| d.is_dir() && root_only(&d))
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            false
        }
    }
    fn read_link(&self, path: &str) -> Option<String> {
        std::fs::read_link(path)
            .ok()?
            .into_os_string()
            .into_string()
            .ok()
    }
    fn link_owner(&self, path: &str) -> Option<u32> {
        let m = std::fs::symlink_metadata(path).ok()?;
        if !m.file_type().is_symlink() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(m.uid())
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
    fn vouched_dir(&self, path: &str) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            std::fs::symlink_metadata(path)
                .is_ok_and(|d| d.is_dir() && d.uid() == 0 && d.mode() & 0o022 == 0)
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            false
        }
    }
    fn links_in(&self, path: &str) -> Vec<ListedLink> {
        #[cfg(unix)]
        {
            use rustix::fs::{FileType, Mode, OFlags};
            let Ok(fd) = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            ) else {
                return Vec::new();
            };
            let Ok(dir) = rustix::fs::Dir::read_from(&fd) else {
                return Vec::new();
            };
            let mut out = Vec::new();
            for e in dir.flatten() {
                let name = e.file_name();
                if !matches!(e.file_type(), FileType::Symlink | FileType::Unknown) {
                    continue;
                }
                // Fails (EINVAL) for an entry that is not a link.
                let Ok(target) = rustix::fs::readlinkat(&fd, name, Vec::new()) else {
                    continue;
                };
                let (Ok(name), Ok(target)) = (name.to_str(), target.into_string()) else {
                    continue;
                };
                if target.contains('/') {
                    out.push(ListedLink {
                        name: name.to_owned(),
                        target,
                    });
                }
            }
            out.sort_by(|a, b| a.name.cmp(&b.name));
            out
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            Vec::new()
        }
    }
    fn names(&self, path: &str) -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(path) else {
            return Vec::new();
        };
        rd.filter_map(|e| {
            let e = e.ok()?;
            if e.file_type().ok()?.is_symlink() {
                return None;
            }
            e.file_name().into_string().ok()
        })
        .take(NAMES_LIMIT)
        .collect()
    }
}

/// The disk of another OS, seen from this host: nothing on it can be seen, so every path
/// freezes lexically (its real form is its folded spelling). Used to render a plan for a
/// target that is not this host (`ralc render --target windows` off Windows).
#[derive(Clone, Copy, Debug, Default)]
pub struct ForeignDisk;

impl Disk for ForeignDisk {
    fn canonicalize(&self, _path: &str) -> io::Result<PathBuf> {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            "the disk of another OS is not visible from this host",
        ))
    }
    fn kind(&self, _path: &str) -> Option<EntryKind> {
        None
    }
    fn is_executable_file(&self, _path: &str) -> bool {
        false
    }
    fn read_small(&self, path: &str) -> io::Result<Vec<u8>> {
        self.canonicalize(path).map(|_| Vec::new())
    }
    fn presence(&self, _path: &str) -> Presence {
        Presence::Missing
    }
    fn head(&self, _path: &str, _n: usize) -> Option<Vec<u8>> {
        None
    }
    fn vouched(&self, _path: &str) -> bool {
        false
    }
    fn read_link(&self, _path: &str) -> Option<String> {
        None
    }
    fn link_owner(&self, _path: &str) -> Option<u32> {
        None
    }
    fn vouched_dir(&self, _path: &str) -> bool {
        false
    }
    fn links_in(&self, _path: &str) -> Vec<ListedLink> {
        Vec::new()
    }
    fn names(&self, _path: &str) -> Vec<String> {
        Vec::new()
    }
}

/// One entry of a [`MemDisk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemEntry {
    Dir,
    /// A file, its bytes, and whether it is executable.
    File(Vec<u8>, bool),
    /// A file that cannot be read.
    Unreadable,
    /// A symlink and its target (absolute, or relative to the link's directory).
    Link(String),
}

/// An in-memory POSIX file system for tests: absolute `/`-separated paths, symlinks
/// followed (at most 40 hops), parents implied as directories. Never touches the host.
#[derive(Clone, Debug, Default)]
pub struct MemDisk {
    entries: std::collections::BTreeMap<String, MemEntry>,
    vouched: std::collections::BTreeSet<String>,
}

impl MemDisk {
    pub fn new() -> Self {
        MemDisk::default()
    }
    /// Add an entry (its parents become directories).
    pub fn with(mut self, path: &str, entry: MemEntry) -> Self {
        let mut acc = String::new();
        let names: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
        for (i, n) in names.iter().enumerate() {
            acc.push('/');
            acc.push_str(n);
            if i + 1 < names.len() {
                self.entries.entry(acc.clone()).or_insert(MemEntry::Dir);
            }
        }
        self.entries
            .insert(if acc.is_empty() { "/".into() } else { acc }, entry);
        self
    }
    pub fn dir(self, path: &str) -> Self {
        self.with(path, MemEntry::Dir)
    }
    pub fn file(self, path: &str, bytes: &str) -> Self {
        self.with(path, MemEntry::File(bytes.as_bytes().to_vec(), false))
    }
    pub fn exe(self, path: &str) -> Self {
        self.with(path, MemEntry::File(Vec::new(), true))
    }
    pub fn link(self, path: &str, target: &str) -> Self {
        self.with(path, MemEntry::Link(target.to_string()))
    }
    /// Mark the file or symlink at `path` as one the system vouches for (`Disk::vouched`;
    /// a symlink so marked is root's, and its directory is vouched, `Disk::vouched_dir`).
    pub fn vouch(mut self, path: &str) -> Self {
        self.vouched.insert(path.to_string());
        self
    }

    /// Resolve every symlink: the canonical path and its entry.
    fn resolve(&self, path: &str) -> io::Result<(String, MemEntry)> {
        let not_found = || io::Error::new(io::ErrorKind::NotFound, "no such entry");
        if !path.starts_with('/') {
            return Err(not_found());
        }
        let mut pending: Vec<String> = path
            .split('/')
            .filter(|c| !c.is_empty())
            .rev()
            .map(str::to_string)
            .collect();
        let mut cur: Vec<String> = Vec::new();
        let mut hops = 0;
        while let Some(name) = pending.pop() {
            match name.as_str() {
                "." => continue,
                ".." => {
                    cur.pop();
                    continue;
                }
                _ => {}
            }
            let here = format!("/{}", {
                let mut v = cur.clone();
                v.push(name.clone());
                v.join("/")
            });
            match self.entries.get(&here) {
                None => return Err(not_found()),
                Some(MemEntry::Link(t)) => {
                    hops += 1;
                    if hops > 40 {
                        return Err(io::Error::other("too many links"));
                    }
                    if t.starts_with('/') {
                        cur.clear();
                    }
                    for c in t.split('/').filter(|c| !c.is_empty()).rev() {
                        pending.push(c.to_string());
                    }
                }
                Some(MemEntry::Dir) => cur.push(name),
                Some(_) if !pending.is_empty() => {
                    return Err(io::Error::new(
                        io::ErrorKind::NotADirectory,
                        "not a directory",
                    ))
                }
                Some(_) => cur.push(name),
            }
        }
        let canon = format!("/{}", cur.join("/"));
        let entry = if cur.is_empty() {
            MemEntry::Dir
        } else {
            self.entries.get(&canon).cloned().ok_or_else(not_found)?
        };
        Ok((canon, entry))
    }
}

impl Disk for MemDisk {
    fn canonicalize(&self, path: &str) -> io::Result<PathBuf> {
        self.resolve(path).map(|(p, _)| PathBuf::from(p))
    }
    fn kind(&self, path: &str) -> Option<EntryKind> {
        match self.resolve(path).ok()?.1 {
            MemEntry::Dir => Some(EntryKind::Dir),
            MemEntry::File(..) | MemEntry::Unreadable => Some(EntryKind::File),
            MemEntry::Link(_) => Some(EntryKind::Other),
        }
    }
    fn is_executable_file(&self, path: &str) -> bool {
        matches!(self.resolve(path), Ok((_, MemEntry::File(_, true))))
    }
    fn read_small(&self, path: &str) -> io::Result<Vec<u8>> {
        match self.resolve(path)?.1 {
            MemEntry::File(b, _) if b.len() as u64 <= SMALL_FILE_LIMIT => Ok(b),
            MemEntry::File(..) => Err(io::Error::new(io::ErrorKind::InvalidData, "file too large")),
            MemEntry::Unreadable => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "permission denied",
            )),
            _ => Err(io::Error::other("not a file")),
        }
    }
    fn head(&self, path: &str, n: usize) -> Option<Vec<u8>> {
        match self.resolve(path).ok()?.1 {
            MemEntry::File(b, _) => Some(b[..b.len().min(n)].to_vec()),
            _ => None,
        }
    }
    fn vouched(&self, path: &str) -> bool {
        self.vouched.contains(path) && matches!(self.entries.get(path), Some(MemEntry::File(..)))
    }
    fn presence(&self, path: &str) -> Presence {
        // `lstat`: the parent followed, the last component not
        let Some((parent, name)) = path.rsplit_once('/') else {
            return Presence::Missing;
        };
        if name.is_empty() {
            return match self.resolve(path) {
                Ok(_) => Presence::Entry,
                Err(_) => Presence::Missing,
            };
        }
        let parent = if parent.is_empty() { "/" } else { parent };
        match self.resolve(parent) {
            Ok((dir, MemEntry::Dir)) => {
                let own = format!("{}/{name}", dir.trim_end_matches('/'));
                match self.entries.get(&own) {
                    None => Presence::Missing,
                    Some(MemEntry::Link(_)) => Presence::Link,
                    Some(_) => Presence::Entry,
                }
            }
            _ => Presence::Missing,
        }
    }
    fn is_symlink(&self, path: &str) -> bool {
        matches!(self.entries.get(path), Some(MemEntry::Link(_)))
    }
    fn read_link(&self, path: &str) -> Option<String> {
        match self.entries.get(path) {
            Some(MemEntry::Link(t)) => Some(t.clone()),
            _ => None,
        }
    }
    fn link_owner(&self, path: &str) -> Option<u32> {
        match self.entries.get(path) {
            Some(MemEntry::Link(_)) if self.vouched.contains(path) => Some(0),
            Some(MemEntry::Link(_)) => Some(1000),
            _ => None,
        }
    }
    fn vouched_dir(&self, path: &str) -> bool {
        // A directory holding an entry marked vouched is vouched.
        let d = path.trim_end_matches('/');
        self.vouched.iter().any(|v| {
            v.rsplit_once('/')
                .is_some_and(|(p, _)| p == d || (p.is_empty() && d.is_empty()))
        })
    }
    fn links_in(&self, path: &str) -> Vec<ListedLink> {
        let dir = path.trim_end_matches('/');
        self.entries
            .iter()
            .filter_map(|(k, e)| match e {
                MemEntry::Link(t) if t.contains('/') => {
                    let (d, n) = k.rsplit_once('/')?;
                    (d == dir).then(|| ListedLink {
                        name: n.to_owned(),
                        target: t.clone(),
                    })
                }
                _ => None,
            })
            .collect()
    }
    fn names(&self, path: &str) -> Vec<String> {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{}/", path.trim_end_matches('/'))
        };
        self.entries
            .iter()
            .filter(|(_, e)| !matches!(e, MemEntry::Link(_)))
            .filter_map(|(k, _)| k.strip_prefix(&prefix))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect()
    }
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "test: the live disk's answers compared with the host's own"
)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_host_vouches_for_system_files_only() {
        let d = RealDisk;
        let sh = std::fs::canonicalize("/bin/sh").unwrap();
        let sh = sh.to_str().unwrap();
        // Debian's shell: root's, in root's /usr/bin, writable by no one else.
        assert!(d.vouched(sh), "{sh}");
        assert!(d.head(sh, 4).is_some_and(|h| h.len() == 4));
        // A symlink is never vouched for as itself.
        assert!(!d.vouched("/bin/sh") || !d.is_symlink("/bin/sh"));
        // A file in a directory others may write is not, whoever owns it.
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777))
            .unwrap();
        let f = open.join("interp");
        std::fs::write(&f, "#!/bin/sh\n").unwrap();
        assert!(!d.vouched(f.to_str().unwrap()));
        // Nor one others may write, nor a directory.
        let g = dir.path().join("g");
        std::fs::write(&g, "").unwrap();
        std::fs::set_permissions(&g, std::os::unix::fs::PermissionsExt::from_mode(0o666)).unwrap();
        assert!(!d.vouched(g.to_str().unwrap()));
        assert!(!d.vouched(dir.path().to_str().unwrap()));
        assert_eq!(d.head(dir.path().to_str().unwrap(), 4), None);
    }

    #[test]
    fn mem_disk_follows_links() {
        let d = MemDisk::new()
            .dir("/real/home")
            .link("/home", "/real/home")
            .link("/real/home/up", "../other")
            .dir("/real/other")
            .exe("/usr/bin/git");
        assert_eq!(
            d.canonicalize("/home").unwrap(),
            PathBuf::from("/real/home")
        );
        assert_eq!(
            d.canonicalize("/home/up").unwrap(),
            PathBuf::from("/real/other")
        );
        assert!(d.canonicalize("/home/missing").is_err());
        assert_eq!(d.kind("/home"), Some(EntryKind::Dir));
        assert!(d.is_executable_file("/usr/bin/git"));
        assert!(d.canonicalize("/usr/bin/git/x").is_err());
        let loop_ = MemDisk::new().link("/a", "/b").link("/b", "/a");
        assert!(loop_.canonicalize("/a").is_err());
    }
}
