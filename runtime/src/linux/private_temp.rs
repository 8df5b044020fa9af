//! The per-run private temp dir: a writable grant of the host's temp dir (`tempdir:`, the
//! caller's `TMPDIR` else `/tmp`) is shown as a fresh directory made for this run (mode
//! 0700, owned by the launcher, under the host's temp dir) bound at the temp dir's path,
//! so no host socket or file that appears in the temp dir after launch is reachable, and
//! nothing the program leaves there outlives the run: the directory is removed when the
//! run ends. It never removes anything but the directory it made itself, and never
//! follows a symlink while removing.

use super::handle::{self, Opened};
use std::os::fd::{AsRawFd, OwnedFd};

/// A private temp dir made for one run; removed (with everything in it) on drop.
#[derive(Debug)]
pub struct PrivateTemp {
    /// Its host path (`<host temp dir>/ralc-run-…`).
    pub path: String,
    /// The temp dir's path it is shown at inside the envelope.
    pub shown_at: String,
    /// The directory, opened by handle when it was made.
    pub fd: OwnedFd,
}

/// The host's temp dir as the freeze resolves `tempdir:` (an absolute `TMPDIR`, else
/// `/tmp`), by its real path.
pub fn host_temp_dir(tmpdir: Option<String>) -> Option<String> {
    let t = tmpdir
        .filter(|t| t.starts_with('/'))
        .unwrap_or_else(|| "/tmp".to_string());
    #[allow(
        clippy::disallowed_methods,
        reason = "launch site: the host temp dir's real path, to know which write grant is the temp dir"
    )]
    let real = std::fs::canonicalize(&t).ok()?;
    real.to_str().map(str::to_string)
}

/// The host temp dir a launch with working directory `cwd` shows as private (`tmpdir`:
/// the caller's `TMPDIR`): none when the temp dir is the working directory, holds it or
/// lies inside it (then it is the project, a `TMPDIR` set there on purpose, shown as the
/// host's). The launch and the post-run audit ask this one question.
pub fn private_for(cwd: &str, tmpdir: Option<String>) -> Option<String> {
    host_temp_dir(tmpdir).filter(|t| !crate::plan::within(cwd, t) && !crate::plan::within(t, cwd))
}

impl PrivateTemp {
    /// Make a fresh 0700 directory under `temp` (the host temp dir), to be shown at
    /// `temp`: a name taken meanwhile is tried again under another; what is made is
    /// opened by handle and checked to be a directory of this user's, mode 0700.
    pub fn create(temp: &str) -> std::io::Result<PrivateTemp> {
        use std::os::unix::fs::DirBuilderExt;
        let base = temp.trim_end_matches('/');
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        for attempt in 0..64u32 {
            let path = format!(
                "{base}/ralc-run-{}-{:08x}",
                std::process::id(),
                seed.wrapping_mul(2_654_435_761).wrapping_add(attempt)
            );
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let fd = match handle::open_real(&path)? {
                Opened::Found(fd) => fd,
                _ => return Err(std::io::Error::other(format!("{path} vanished"))),
            };
            // SAFETY: a zeroed stat is a valid out-parameter; fstat on an open handle.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            let rc = unsafe { libc::fstat(fd.as_raw_fd(), &mut st) };
            // SAFETY: geteuid cannot fail.
            let me = unsafe { libc::geteuid() };
            if rc != 0
                || st.st_mode & libc::S_IFMT != libc::S_IFDIR
                || st.st_uid != me
                || st.st_mode & 0o077 != 0
            {
                return Err(std::io::Error::other(format!(
                    "{path} is not the private directory just made"
                )));
            }
            return Ok(PrivateTemp {
                path,
                shown_at: base.to_string(),
                fd,
            });
        }
        Err(std::io::Error::other(format!(
            "no fresh name for a private temp dir under {base}"
        )))
    }
}

impl Drop for PrivateTemp {
    fn drop(&mut self) {
        remove_tree(&self.path);
    }
}

/// Remove `path` and everything below it, no symlink followed; a directory the program
/// made unreadable is made readable by its owner first. Best effort.
fn remove_tree(path: &str) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(md) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !md.file_type().is_dir() {
        let _ = std::fs::remove_file(path);
        return;
    }
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
    if let Ok(rd) = std::fs::read_dir(path) {
        for e in rd.flatten() {
            if let Some(name) = e.file_name().to_str() {
                remove_tree(&format!("{path}/{name}"));
            }
        }
    }
    let _ = std::fs::remove_dir(path);
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "test: a temporary directory's real path and mode, to check the private temp dir"
)]
mod tests {
    use super::*;

    #[test]
    fn a_private_temp_is_fresh_private_and_removed_with_what_is_inside() {
        let host = tempfile::tempdir().unwrap();
        let base = host.path().to_str().unwrap();
        let t = PrivateTemp::create(base).unwrap();
        let path = t.path.clone();
        assert!(path.starts_with(&format!("{base}/ralc-run-")));
        assert_eq!(t.shown_at, base);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::create_dir_all(format!("{path}/a/b")).unwrap();
        std::fs::write(format!("{path}/a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink(base, format!("{path}/a/up")).unwrap();
        std::fs::set_permissions(format!("{path}/a"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        let other = PrivateTemp::create(base).unwrap();
        assert_ne!(other.path, path);
        drop(t);
        assert!(
            std::fs::symlink_metadata(&path).is_err(),
            "{path} left behind"
        );
        // The symlink's target (the host temp dir) is untouched.
        assert!(std::path::Path::new(&other.path).is_dir());
    }

    #[test]
    fn the_host_temp_dir_is_tmpdir_when_absolute_else_tmp() {
        let d = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(
            host_temp_dir(Some(d.path().to_str().unwrap().to_string())).as_deref(),
            real.to_str()
        );
        let tmp = std::fs::canonicalize("/tmp").unwrap();
        assert_eq!(host_temp_dir(Some("rel".into())).as_deref(), tmp.to_str());
        assert_eq!(host_temp_dir(None).as_deref(), tmp.to_str());
    }
}
