//! The Landlock layer: built in the parent from handles opened in the host
//! (`O_PATH | O_NOFOLLOW`, no symlink followed), entered by the trampoline inside the
//! envelope (a domain handling file rights forbids `mount(2)`, bwrap's first act). The
//! `Execute` right admits the allowed files and each live allowed directory as its
//! hierarchy less what the exec table blocks beneath it, expanded entry by entry (Landlock
//! is allow-only); file rights are added best-effort by ABI. Raw syscalls: the ruleset
//! must travel to the child as a descriptor. It never widens a rule it was given and
//! never enters a domain in the parent.

use super::handle::{self, Kind, Opened};
use super::refusal::Refusal;
use crate::plan::{within, ExecAdmits};
use std::collections::{BTreeSet, HashSet};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

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

fn create(handled: u64) -> io::Result<OwnedFd> {
    let attr: u64 = handled;
    // SAFETY: an 8-byte attr {handled_access_fs}, accepted by every ABI.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const u64,
            std::mem::size_of::<u64>(),
            0u32,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

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

/// A ruleset under construction in the parent.
#[derive(Debug)]
pub struct Ruleset {
    fd: OwnedFd,
    handled: u64,
    rules: usize,
}

impl Ruleset {
    /// Create a ruleset handling `handled`.
    pub fn new(handled: u64) -> Result<Ruleset, Refusal> {
        let fd = create(handled).map_err(|e| Refusal::io("create the Landlock ruleset", e))?;
        Ok(Ruleset {
            fd,
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
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }
    /// Allow `rights` (masked to what is handled, and to file rights on a non-directory)
    /// on the object behind `object`.
    pub fn allow(&mut self, object: RawFd, kind: Kind, rights: u64) -> Result<(), Refusal> {
        let mut r = rights & self.handled;
        if kind != Kind::Dir {
            r &= FILE_RIGHTS;
        }
        if r == 0 {
            return Ok(());
        }
        add(self.fd.as_raw_fd(), object, r).map_err(|e| Refusal::io("add a Landlock rule", e))?;
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
                self.allow(fd.as_raw_fd(), kind, EXECUTE)
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
            self.allow(fd.as_raw_fd(), Kind::Dir, EXECUTE)?;
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
        // SAFETY: a zeroed stat is a valid out-parameter; fstat on an open handle.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0
            && !ctx.seen.insert((st.st_dev, st.st_ino))
        {
            // A bind mount looping back onto a directory being listed: admit nothing more.
            return Ok(false);
        }
        if depth > 64 {
            return Err(Refusal::Expansion {
                path: path.to_string(),
                why: "nests deeper than 64 directories".to_string(),
            });
        }
        let listing = match handle::open_dir(path).map_err(|e| Refusal::io(path, e))? {
            Opened::Found(d) => d,
            Opened::Absent => return Ok(false),
            Opened::Symlink => {
                return Err(Refusal::SymlinkPlanted {
                    path: path.to_string(),
                })
            }
        };
        let entries = std::fs::read_dir(format!("/proc/self/fd/{}", listing.as_raw_fd()))
            .map_err(|e| Refusal::io(path, e))?;
        let mut clean = true;
        let mut files: Vec<String> = Vec::new();
        let mut dirs: Vec<(String, bool)> = Vec::new();
        let mut subdir_fds: Vec<(String, OwnedFd)> = Vec::new();
        for e in entries {
            let e = e.map_err(|e| Refusal::io(path, e))?;
            if ctx.budget == 0 {
                return Err(Refusal::Expansion {
                    path: path.to_string(),
                    why: format!("holds more than {EXPANSION_BUDGET} entries"),
                });
            }
            ctx.budget -= 1;
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                // A name that is not Unicode cannot be judged: never admitted.
                clean = false;
                continue;
            };
            let ft = e.file_type().map_err(|e| Refusal::io(path, e))?;
            let child = if path == "/" {
                format!("/{name}")
            } else {
                format!("{path}/{name}")
            };
            if ctx.names.contains(&name_key(&name))
                || ctx.ex.deny_files.contains(&child)
                || ctx.ex.deny_dirs.contains(&child)
            {
                clean = false;
                continue;
            }
            if ft.is_dir() {
                let Opened::Found(cfd) = handle::open_beneath(listing.as_raw_fd(), &name)
                    .map_err(|e| Refusal::io(&child, e))?
                else {
                    clean = false;
                    continue;
                };
                let sub = self.scan(&child, &cfd, ctx, depth + 1)?;
                clean &= sub;
                dirs.push((name.clone(), sub));
                if sub {
                    subdir_fds.push((name, cfd));
                }
            } else if ft.is_file() {
                files.push(name);
            }
            // Symlinks are judged at their targets; other types never execute.
        }
        if clean {
            return Ok(true);
        }
        for (_, cfd) in subdir_fds {
            self.allow(cfd.as_raw_fd(), Kind::Dir, EXECUTE)?;
        }
        for name in files {
            if let Some(cfd) = handle::open_beneath_unchecked(listing.as_raw_fd(), &name)
                .map_err(|e| Refusal::io(path, e))?
            {
                self.allow(cfd.as_raw_fd(), Kind::File, EXECUTE)?;
            }
        }
        Ok(false)
    }
}

struct Expand<'a> {
    ex: &'a ExecAdmits,
    names: BTreeSet<String>,
    budget: usize,
    seen: HashSet<(u64, u64)>,
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
/// exists nowhere else; `/dev` and `/proc`, built by bwrap, when file rights are handled),
/// set no-new-privs and enter the domain. Fails closed.
pub fn enter(ruleset: RawFd, handled: u64) -> Result<(), String> {
    if !is_ruleset(ruleset) {
        return Err(format!(
            "the promised Landlock ruleset is missing (descriptor {ruleset} holds none)"
        ));
    }
    let envelope: [(&str, u64); 3] = [
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
        ("/proc", READ_FILE | READ_DIR | WRITE_FILE),
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
