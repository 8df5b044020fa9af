//! Helpers ralc executes (bwrap): the pinned inode must be owned by root and writable by
//! no one else, and so must every directory above its real path, or the launch is refused
//! naming the path. A writable directory early on `PATH` then cannot hand the next launch
//! a planted `bwrap` that would run unconfined. It only inspects; it never executes.

use super::handle;
use super::refusal::Refusal;
use std::os::fd::{AsRawFd, OwnedFd};

/// Group- or other-writable.
const WRITABLE_BY_OTHERS: u32 = 0o022;

/// Why `(uid, mode)` of `what` makes it unsafe to trust, if it does.
fn unsafe_owner(what: &str, uid: u32, mode: u32) -> Option<String> {
    if uid != 0 {
        return Some(format!("{what} is owned by uid {uid}, not root"));
    }
    if mode & WRITABLE_BY_OTHERS != 0 {
        return Some(format!(
            "{what} is writable by others than root (mode {:o})",
            mode & 0o7777
        ));
    }
    None
}

/// Refuse unless the pinned helper and every directory above its real name belong to
/// root and no one else may write them.
pub fn check_trusted(fd: &OwnedFd, found_as: &str) -> Result<(), Refusal> {
    let refuse = |why: String| Refusal::UnsafeHelper {
        path: found_as.to_string(),
        why,
    };
    // SAFETY: a zeroed stat is a valid out-parameter; fstat on an open handle.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(refuse(format!(
            "it cannot be inspected: {}",
            std::io::Error::last_os_error()
        )));
    }
    if let Some(why) = unsafe_owner("it", st.st_uid, st.st_mode) {
        return Err(refuse(why));
    }
    let real = handle::name_of(fd)
        .filter(|n| n.starts_with('/') && !n.ends_with(" (deleted)"))
        .ok_or_else(|| refuse("its real name cannot be read".to_string()))?;
    let mut dir = std::path::Path::new(&real).parent();
    while let Some(d) = dir {
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::symlink_metadata(d)
            .map_err(|e| refuse(format!("{} cannot be inspected: {e}", d.display())))?;
        if let Some(why) = unsafe_owner(&d.display().to_string(), md.uid(), md.mode()) {
            return Err(refuse(why));
        }
        dir = d.parent();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_root_owned_not_others_writable_passes() {
        assert_eq!(unsafe_owner("x", 0, 0o755), None);
        assert!(unsafe_owner("x", 1000, 0o755).unwrap().contains("uid 1000"));
        assert!(unsafe_owner("x", 0, 0o775).unwrap().contains("writable"));
        assert!(unsafe_owner("x", 0, 0o1777).unwrap().contains("1777"));
    }
}
