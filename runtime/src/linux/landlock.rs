//! The Landlock layer: built in the parent from handles opened in the host
//! (`O_PATH | O_NOFOLLOW`, no symlink followed), entered by the trampoline inside the
//! envelope (a domain handling file rights forbids `mount(2)`, bwrap's first act). The
//! `Execute` right admits the allowed files and each live allowed directory as its
//! hierarchy less what the exec table blocks beneath it, expanded entry by entry (Landlock
//! is allow-only); file rights are added best-effort by ABI.
//!
//! The parent's ruleset is the `landlock` crate's (`Ruleset` → `RulesetCreated`, the
//! crate's ABI compatibility checks at `CompatLevel::HardRequirement`: a right or scope
//! the running kernel lacks is a refusal, never silently dropped), and its descriptor
//! leaves the crate through `Option<OwnedFd>: From<RulesetCreated>` to travel to the
//! trampoline. Raw syscalls remain only where the crate has no call: the kernel's ABI
//! version (the crate deliberately exposes none), and in the trampoline, adding the
//! envelope's rules to and entering a ruleset received as a bare descriptor. It never
//! widens a rule it was given and never enters a domain in the parent.

use super::dirents::{self, Dirents, Entry};
use super::handle::{self, Kind, Opened};
use super::refusal::Refusal;
use crate::plan::{within, ExecAdmits};
use landlock::{
    AccessFs, BitFlags, CompatLevel, Compatible, RulesetAttr, RulesetCreated, RulesetCreatedAttr,
    Scope,
};
use std::collections::{BTreeSet, HashSet};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};

pub const EXECUTE: u64 = 1 << 0;
pub const WRITE_FILE: u64 = 1 << 1;
pub const READ_FILE: u64 = 1 << 2;
pub const READ_DIR: u64 = 1 << 3;
pub const REMOVE_DIR: u64 = 1 << 4;
pub const REMOVE_FILE: u64 = 1 << 5;
pub const MAKE_CHAR: u64 = 1 << 6;
pub const MAKE_DIR: u64 = 1 << 7;
pub const MAKE_REG: u64 = 1 << 8;
pub const MAKE_SOCK: u64 = 1 << 9;
pub const MAKE_FIFO: u64 = 1 << 10;
pub const MAKE_BLOCK: u64 = 1 << 11;
pub const MAKE_SYM: u64 = 1 << 12;
pub const REFER: u64 = 1 << 13;
pub const TRUNCATE: u64 = 1 << 14;

/// Rights a rule on a non-directory may carry.
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE;
/// How many directory entries an exec expansion may visit before the launch refuses.
pub const EXPANSION_BUDGET: usize = 1_000_000;

/// The read rights.
pub fn read_rights() -> u64 {
    READ_FILE | READ_DIR
}

/// The write rights this ABI offers.
pub fn write_rights(abi: u32) -> u64 {
    let mut r = WRITE_FILE
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_CHAR
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_BLOCK
        | MAKE_SYM;
    if abi >= 3 {
        r |= TRUNCATE;
    }
    r
}

/// The running kernel's Landlock ABI (0: none).
pub fn abi() -> u32 {
    // SAFETY: the documented version query: NULL attr, size 0, flag VERSION.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    if v < 0 {
        0
    } else {
        v as u32
    }
}

#[repr(C, packed)]
struct PathBeneath {
    allowed: u64,
    parent_fd: i32,
}

/// `LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET` (ABI 6): no connecting to an abstract unix
/// socket made outside the domain.
pub const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
/// `LANDLOCK_SCOPE_SIGNAL` (ABI 6): no signal to a process outside the domain.
pub const SCOPE_SIGNAL: u64 = 1 << 1;
/// The first ABI with scopes.
pub const SCOPES_ABI: u32 = 6;

fn add(ruleset: RawFd, object: RawFd, allowed: u64) -> io::Result<()> {
    if allowed == 0 {
        return Ok(());
    }
    let attr = PathBeneath {
        allowed,
        parent_fd: object,
    };
    // SAFETY: rule type 1 (LANDLOCK_RULE_PATH_BENEATH) with its packed attr.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            1u32,
            &attr as *const PathBeneath,
            0u32,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A crate error as a refusal of the launch.
fn refusal(what: &str, e: landlock::RulesetError) -> Refusal {
    Refusal::io(what, io::Error::other(e))
}

/// A ruleset under construction in the parent: the crate's `RulesetCreated`, with the
/// rights it handles (the warrant carries them to the trampoline) and its rule count.
#[derive(Debug)]
pub struct Ruleset {
    created: RulesetCreated,
    handled: u64,
    rules: usize,
}

impl Ruleset {
    /// Create a ruleset handling `handled`.
    pub fn new(handled: u64) -> Result<Ruleset, Refusal> {
        Ruleset::new_scoped(handled, 0)
    }
    /// Create a ruleset handling `handled` and scoping `scoped` (ABI 6's scopes). The
    /// caller asks only for what the running ABI offers (`write_rights(abi)`,
    /// `SCOPES_ABI`); the crate checks each against the kernel and refuses, never drops.
    pub fn new_scoped(handled: u64, scoped: u64) -> Result<Ruleset, Refusal> {
        let access = BitFlags::<AccessFs>::from_bits(handled).map_err(|_| {
            Refusal::Other(format!(
                "Landlock file rights {handled:#x} are not all known"
            ))
        })?;
        let scopes = BitFlags::<Scope>::from_bits(scoped).map_err(|_| {
            Refusal::Other(format!("Landlock scopes {scoped:#x} are not all known"))
        })?;
        let mut rs = landlock::Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
        if !access.is_empty() {
            rs = rs
                .handle_access(access)
                .map_err(|e| refusal("the Landlock ruleset's rights", e))?;
        }
        if !scopes.is_empty() {
            rs = rs
                .scope(scopes)
                .map_err(|e| refusal("the Landlock ruleset's scopes", e))?;
        }
        let created = rs
            .create()
            .map_err(|e| refusal("create the Landlock ruleset", e))?;
        Ok(Ruleset {
            created,
            handled,
            rules: 0,
        })
    }
    pub fn handled(&self) -> u64 {
        self.handled
    }
    pub fn rules(&self) -> usize {
        self.rules
    }
    /// The ruleset's descriptor, for the trampoline. A ruleset the kernel never created
    /// (the crate's dummy, impossible at `HardRequirement`) is a refusal.
    pub fn into_fd(self) -> Result<OwnedFd, Refusal> {
        Option::<OwnedFd>::from(self.created).ok_or_else(|| {
            Refusal::Other("the Landlock ruleset has no descriptor to hand over".to_string())
        })
    }
    /// Allow `rights` (masked to what is handled, and to file rights on a non-directory)
    /// on the object behind `object`.
    pub fn allow(
        &mut self,
        object: BorrowedFd<'_>,
        kind: Kind,
        rights: u64,
    ) -> Result<(), Refusal> {
        let mut r = rights & self.handled;
        if kind != Kind::Dir {
            r &= FILE_RIGHTS;
        }
        if r == 0 {
            return Ok(());
        }
        let access = BitFlags::<AccessFs>::from_bits_truncate(r);
        (&mut self.created)
            .add_rule(landlock::PathBeneath::new(object, access))
            .map_err(|e| refusal("add a Landlock rule", e))?;
        self.rules += 1;
        Ok(())
    }

    /// Admit `Execute` for one allowed file (absent: dropped; now a directory: dropped).
    pub fn admit_file(&mut self, path: &str) -> Result<(), Refusal> {
        match handle::open_real(path).map_err(|e| Refusal::io(path, e))? {
            Opened::Absent => Ok(()),
            Opened::Symlink => Err(Refusal::SymlinkPlanted {
                path: path.to_string(),
            }),
            Opened::Found(fd) => {
                let kind = handle::kind_of(&fd).map_err(|e| Refusal::io(path, e))?;
                if kind == Kind::Dir {
                    return Ok(());
                }
                self.allow(fd.as_fd(), kind, EXECUTE)
            }
        }
    }

    /// Admit `Execute` beneath an allowed directory, less what `ex` blocks beneath it.
    pub fn admit_dir(&mut self, path: &str, ex: &ExecAdmits) -> Result<(), Refusal> {
        let fd = match handle::open_real(path).map_err(|e| Refusal::io(path, e))? {
            Opened::Absent => return Ok(()),
            Opened::Symlink => {
                return Err(Refusal::SymlinkPlanted {
                    path: path.to_string(),
                })
            }
            Opened::Found(fd) => fd,
        };
        if handle::kind_of(&fd).map_err(|e| Refusal::io(path, e))? != Kind::Dir {
            return Ok(());
        }
        let names: BTreeSet<String> = ex.deny_names.iter().map(|n| name_key(n)).collect();
        let mut ctx = Expand {
            ex,
            names,
            budget: EXPANSION_BUDGET,
            seen: HashSet::new(),
        };
        self.expand(path, fd, &mut ctx, 0)
    }

    /// Expand one allowed directory. Returns `true` when nothing beneath it is blocked
    /// (then the caller admits it as one hierarchy); otherwise its admissible parts have
    /// been admitted entry by entry.
    fn expand(
        &mut self,
        path: &str,
        fd: OwnedFd,
        ctx: &mut Expand<'_>,
        depth: usize,
    ) -> Result<(), Refusal> {
        if self.scan(path, &fd, ctx, depth)? {
            self.allow(fd.as_fd(), Kind::Dir, EXECUTE)?;
        }
        Ok(())
    }

    fn scan(
        &mut self,
        path: &str,
        fd: &OwnedFd,
        ctx: &mut Expand<'_>,
        depth: usize,
    ) -> Result<bool, Refusal> {
        let blocked_below = ctx
            .ex
            .deny_dirs
            .iter()
            .chain(ctx.ex.deny_files.iter())
            .any(|d| within(d, path));
        if !blocked_below && ctx.names.is_empty() {
            return Ok(true);
        }
        if ctx.ex.deny_dirs.iter().any(|d| d == path) {
            return Ok(false);
        }
        if handle::dev_ino(fd).is_ok_and(|id| !ctx.seen.insert(id)) {
            // A bind mount looping back onto a directory being listed: admit nothing more.
            return Ok(false);
        }
        if depth > 64 {
            return Err(Refusal::Expansion {
                path: path.to_string(),
                why: "nests deeper than 64 directories".to_string(),
            });
        }
        // The listing is read from the handle itself (reopened for reading, no name
        // resolved again), in raw `getdents64` batches: no allocation per entry.
        let listing = handle::reopen_dir(fd).map_err(|e| Refusal::io(path, e))?;
        let mut direct: Vec<&str> = Vec::new();
        for d in ctx.ex.deny_files.iter().chain(ctx.ex.deny_dirs.iter()) {
            if let Some(rest) = child_name(path, d) {
                direct.push(rest);
            }
        }
        let mut seen = Listing::default();
        let mut entries = Dirents::new(listing.as_raw_fd(), 64 * 1024);
        while let Some(e) = entries.next_entry().map_err(|e| Refusal::io(path, e))? {
            self.visit(path, &listing, e, &direct, ctx, depth, &mut seen)?;
        }
        if seen.clean {
            return Ok(true);
        }
        self.admit_unblocked(&listing, seen)?;
        Ok(false)
    }

    /// Judge one listed entry of the directory `path`: a vetoed or blocked name marks the
    /// directory unclean, a subdirectory is scanned in turn, a file is remembered for
    /// admission entry by entry.
    #[allow(
        clippy::too_many_arguments,
        reason = "the scan's own state, handed down unchanged from `scan`"
    )]
    fn visit(
        &mut self,
        path: &str,
        listing: &OwnedFd,
        entry: Entry<'_>,
        direct: &[&str],
        ctx: &mut Expand<'_>,
        depth: usize,
        seen: &mut Listing,
    ) -> Result<(), Refusal> {
        let Entry { ino, dtype, raw } = entry;
        if ctx.budget == 0 {
            return Err(Refusal::Expansion {
                path: path.to_string(),
                why: format!("holds more than {EXPANSION_BUDGET} entries"),
            });
        }
        ctx.budget -= 1;
        let Ok(name) = std::str::from_utf8(raw) else {
            // A name that is not Unicode cannot be judged: never admitted.
            seen.clean = false;
            return Ok(());
        };
        if ctx.vetoed(name) || direct.contains(&name) {
            seen.clean = false;
            seen.blocked_inos.push(ino);
            return Ok(());
        }
        let kind = match dtype {
            libc::DT_DIR => Kind::Dir,
            libc::DT_REG => Kind::File,
            libc::DT_UNKNOWN => match dirents::lstat_at(listing.as_raw_fd(), raw).map(|(k, _)| k) {
                Some(k) => k,
                None => return Ok(()),
            },
            _ => Kind::Other,
        };
        match kind {
            Kind::Dir => {
                let child = if path == "/" {
                    format!("/{name}")
                } else {
                    format!("{path}/{name}")
                };
                let Opened::Found(cfd) = handle::open_beneath(listing.as_raw_fd(), name)
                    .map_err(|e| Refusal::io(&child, e))?
                else {
                    seen.clean = false;
                    return Ok(());
                };
                let sub = self.scan(&child, &cfd, ctx, depth + 1)?;
                seen.clean &= sub;
                if sub {
                    seen.subdir_fds.push(cfd);
                }
            }
            Kind::File => {
                seen.files.extend_from_slice(raw);
                seen.files.push(0);
                seen.file_inos.push(ino);
            }
            // Symlinks are judged at their targets; other types never execute.
            Kind::Symlink | Kind::Other => {}
        }
        Ok(())
    }

    /// An unclean directory's admissible parts, entry by entry: its clean subdirectories
    /// as hierarchies, its files unless a blocked entry shares their inode.
    fn admit_unblocked(&mut self, listing: &OwnedFd, seen: Listing) -> Result<(), Refusal> {
        for cfd in seen.subdir_fds {
            self.allow(cfd.as_fd(), Kind::Dir, EXECUTE)?;
        }
        // The file handles are closed in batches (`close_range` over each run of
        // consecutive descriptors) rather than one `close` each.
        let mut batch = Batch(Vec::with_capacity(BATCH));
        let names = seen.files.split(|&b| b == 0).filter(|n| !n.is_empty());
        for (name, ino) in names.zip(&seen.file_inos) {
            if seen.blocked_inos.contains(ino) {
                continue;
            }
            if let Some(cfd) = open_file_beneath(listing.as_raw_fd(), name) {
                self.allow(cfd.as_fd(), Kind::File, EXECUTE)?;
                batch.0.push(cfd.into_raw_fd());
                if batch.0.len() == BATCH {
                    batch.close();
                }
            }
        }
        Ok(())
    }
}

/// What a directory's listing showed, as `scan` gathers it.
struct Listing {
    /// Nothing below is blocked: the directory may be admitted as one hierarchy.
    clean: bool,
    /// The files to admit if the directory is not clean: NUL-terminated names.
    files: Vec<u8>,
    /// The inode of each listed file, and of each blocked entry: a rule on a file is a
    /// rule on its inode, so a hard link of a blocked file is not admitted either.
    file_inos: Vec<u64>,
    blocked_inos: Vec<u64>,
    /// The clean subdirectories, admitted as hierarchies if this one is not clean.
    subdir_fds: Vec<OwnedFd>,
}

impl Default for Listing {
    fn default() -> Listing {
        Listing {
            clean: true,
            files: Vec::new(),
            file_inos: Vec::new(),
            blocked_inos: Vec::new(),
            subdir_fds: Vec::new(),
        }
    }
}

/// How many file handles an expansion holds open before closing them.
const BATCH: usize = 128;

/// Raw descriptors this expansion opened and still owns; closed on drop.
struct Batch(Vec<RawFd>);

impl Batch {
    fn close(&mut self) {
        self.0.sort_unstable();
        let mut i = 0;
        while i < self.0.len() {
            let lo = self.0[i];
            let mut j = i + 1;
            while j < self.0.len() && self.0[j] == self.0[j - 1] + 1 {
                j += 1;
            }
            let hi = self.0[j - 1];
            // SAFETY: closes exactly the descriptors lo..=hi, each owned by this batch.
            if unsafe { libc::close_range(lo as u32, hi as u32, 0) } != 0 {
                for &fd in &self.0[i..j] {
                    // SAFETY: a descriptor this batch owns.
                    unsafe { libc::close(fd) };
                }
            }
            i = j;
        }
        self.0.clear();
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.close();
    }
}

/// The name of `deny` directly beneath `dir`, if it is one of `dir`'s entries.
fn child_name<'a>(dir: &str, deny: &'a str) -> Option<&'a str> {
    let rest = if dir == "/" {
        deny.strip_prefix('/')?
    } else {
        deny.strip_prefix(dir)?.strip_prefix('/')?
    };
    (!rest.is_empty() && !rest.contains('/')).then_some(rest)
}

/// Open a listed file beneath its directory as an `O_PATH` handle, no symlink followed
/// (a rule on a symlink's own inode would admit nothing): `None` when gone since.
fn open_file_beneath(dir: RawFd, name: &[u8]) -> Option<OwnedFd> {
    let mut c = [0u8; 256];
    if name.len() >= c.len() || name.contains(&0) {
        return None;
    }
    c[..name.len()].copy_from_slice(name);
    // SAFETY: a NUL-terminated name relative to an open directory; O_PATH opens nothing
    // for I/O.
    let fd = unsafe {
        libc::openat(
            dir,
            c.as_ptr().cast(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: freshly returned by the kernel.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

struct Expand<'a> {
    ex: &'a ExecAdmits,
    names: BTreeSet<String>,
    budget: usize,
    seen: HashSet<(u64, u64)>,
}

impl Expand<'_> {
    /// Does a name veto match `name` (under `name_key`)? ASCII names compare without
    /// allocating: their key is their ASCII lowercase, and every stored key is lowercase.
    fn vetoed(&self, name: &str) -> bool {
        if self.names.is_empty() {
            return false;
        }
        if name.is_ascii() {
            return self.names.iter().any(|k| k.eq_ignore_ascii_case(name));
        }
        self.names.contains(&name_key(name))
    }
}

/// The key a name veto matches under: the caseless image of the name (upper, then
/// lower). Coarser than a file system's own identity, so a veto errs toward denying.
pub fn name_key(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    name.to_uppercase().to_lowercase()
}

/// The descriptor's kernel name, to check a ruleset slot holds a ruleset.
fn is_ruleset(fd: RawFd) -> bool {
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .map(|t| {
            matches!(
                t.to_str(),
                Some("anon_inode:[landlock-ruleset]") | Some("anon_inode:landlock-ruleset")
            )
        })
        .unwrap_or(false)
}

/// In the trampoline: add the in-envelope rules (`Refer` on the envelope's own root, which
/// exists nowhere else; `/dev` and `/proc`, built by bwrap, when file rights are handled:
/// `/proc` readable, writable only at the program's own `/proc/self` and `/proc/thread-self`,
/// so no kernel-wide file opens for writing whatever the mounts allow),
/// set no-new-privs and enter the domain. Fails closed.
pub fn enter(ruleset: RawFd, handled: u64) -> Result<(), String> {
    if !is_ruleset(ruleset) {
        return Err(format!(
            "the promised Landlock ruleset is missing (descriptor {ruleset} holds none)"
        ));
    }
    let envelope: [(&str, u64); 5] = [
        ("/", REFER),
        (
            "/dev",
            READ_FILE
                | READ_DIR
                | WRITE_FILE
                | TRUNCATE
                | MAKE_REG
                | REMOVE_FILE
                | MAKE_DIR
                | REMOVE_DIR,
        ),
        ("/proc", READ_FILE | READ_DIR),
        ("/proc/self", READ_FILE | READ_DIR | WRITE_FILE | TRUNCATE),
        (
            "/proc/thread-self",
            READ_FILE | READ_DIR | WRITE_FILE | TRUNCATE,
        ),
    ];
    for (path, rights) in envelope {
        let r = rights & handled;
        if r == 0 {
            continue;
        }
        let c = CString::new(path).map_err(|e| e.to_string())?;
        // SAFETY: a valid C string; O_PATH opens nothing for I/O.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
            )
        };
        if fd < 0 {
            return Err(format!(
                "open {path} in the envelope: {}",
                io::Error::last_os_error()
            ));
        }
        // SAFETY: freshly returned by the kernel.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        add(ruleset, fd.as_raw_fd(), r).map_err(|e| format!("Landlock rule on {path}: {e}"))?;
    }
    // SAFETY: prctl with documented arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("no_new_privs: {}", io::Error::last_os_error()));
    }
    // SAFETY: restrict_self on a ruleset descriptor, no flags.
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) };
    if rc != 0 {
        return Err(format!(
            "entering the Landlock domain failed: {}",
            io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "test: a temporary directory's real path, to build the tree under test"
)]
mod tests {
    use super::*;

    #[test]
    fn this_host_has_landlock() {
        assert!(abi() >= 1, "the test machines run Landlock");
    }

    #[test]
    fn expansion_skips_vetoed_names_and_denied_entries() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap().to_string();
        for f in ["a", "bash", "BASH", "c"] {
            std::fs::write(format!("{root}/{f}"), "").unwrap();
        }
        std::fs::create_dir(format!("{root}/sub")).unwrap();
        std::fs::write(format!("{root}/sub/x"), "").unwrap();
        let ex = ExecAdmits {
            dirs: vec![root.clone()],
            deny_files: vec![format!("{root}/c")],
            deny_names: vec!["bash".into()],
            ..ExecAdmits::default()
        };
        let mut rs = Ruleset::new(EXECUTE).unwrap();
        rs.admit_dir(&root, &ex).unwrap();
        // a, sub/x
        assert_eq!(rs.rules(), 2);
        let mut rs = Ruleset::new(EXECUTE).unwrap();
        let plain = ExecAdmits {
            dirs: vec![root.clone()],
            ..ExecAdmits::default()
        };
        rs.admit_dir(&root, &plain).unwrap();
        assert_eq!(rs.rules(), 1);
    }

    #[test]
    fn a_hard_link_of_a_vetoed_file_is_not_admitted() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap().to_string();
        for f in ["a", "bash"] {
            std::fs::write(format!("{root}/{f}"), f).unwrap();
        }
        // Listed before or after the vetoed name, the link shares its inode: a rule on it
        // would admit `bash` too.
        std::fs::hard_link(format!("{root}/bash"), format!("{root}/0-link")).unwrap();
        std::fs::hard_link(format!("{root}/bash"), format!("{root}/z-link")).unwrap();
        let ex = ExecAdmits {
            dirs: vec![root.clone()],
            deny_names: vec!["bash".into()],
            ..ExecAdmits::default()
        };
        let mut rs = Ruleset::new(EXECUTE).unwrap();
        rs.admit_dir(&root, &ex).unwrap();
        // a alone
        assert_eq!(rs.rules(), 1);
    }

    #[test]
    fn a_planted_symlink_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap().to_string();
        std::os::unix::fs::symlink("/usr/bin", format!("{root}/bin")).unwrap();
        let mut rs = Ruleset::new(EXECUTE).unwrap();
        let e = rs
            .admit_dir(&format!("{root}/bin"), &ExecAdmits::default())
            .unwrap_err();
        assert!(matches!(e, Refusal::SymlinkPlanted { .. }));
        let e = rs.admit_file(&format!("{root}/bin/true")).unwrap_err();
        assert!(matches!(e, Refusal::SymlinkPlanted { .. }));
    }
}
