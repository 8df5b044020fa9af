//! The trampoline, `ralc --warrant`, run by bwrap inside the envelope: report it was
//! reached, verify the warrant (a sealed memfd, canonical), check the network namespace
//! for `` `offline ``, drop every capability and set no_new_privs (`privilege`), enter
//! Landlock (failing closed if a promised ruleset is missing), install the supervision
//! filter when the warrant asks and hand its listener back (`supervise`), close every
//! descriptor but 0, 1 and 2, and exec the program with loader-injection variables removed. It opens and trusts nothing else, and never runs the program unconfined.

use super::launch::{EXIT_MISSING, EXIT_REFUSED, LOADER_VARS};
use super::memfd;
use super::warrant::{slot, Confinement, Warrant, MAX_BYTES};
use std::os::unix::process::CommandExt;

/// Serve the role; returns the exit code when the program could not be started.
pub fn serve() -> i32 {
    let b = [b'T'];
    // SAFETY: a one-byte buffer; a closed or foreign descriptor just fails.
    let _ = unsafe { libc::send(slot::REACH, b.as_ptr().cast(), 1, libc::MSG_NOSIGNAL) };
    match confine() {
        Ok(w) => exec(&w),
        Err(e) => {
            eprintln!("ralc --warrant: refused: {e}; nothing ran");
            EXIT_REFUSED
        }
    }
}

fn confine() -> Result<Warrant, String> {
    let bytes =
        memfd::read_sealed(slot::WARRANT, MAX_BYTES).map_err(|e| format!("no warrant: {e}"))?;
    let w = Warrant::decode(&bytes)?;
    // No privilege crosses, whoever launched ralc: every capability set emptied and
    // no_new_privs set, read back (a failure refuses).
    super::privilege::drop_all()?;
    if let Some(host) = w.host_netns {
        let here = super::launch::ns_inode("/proc/self/ns/net")
            .ok_or_else(|| "cannot read this network namespace".to_string())?;
        if here == host {
            return Err("`offline is asked, but this is the host's network namespace".to_string());
        }
    }
    if let Some(host) = w.host_mntns {
        let here = super::launch::ns_inode("/proc/self/ns/mnt")
            .ok_or_else(|| "cannot read this mount namespace".to_string())?;
        if here == host {
            return Err("bwrap built no envelope: this is the host's mount namespace".to_string());
        }
    }
    // The kernel's settings stay the host's: `/proc/sys` must be on a read-only mount
    // (`procfs` put it there; a bwrap that did not refuses the launch).
    super::procfs::check_read_only()?;
    if let Confinement::Landlock { handled } = w.confinement {
        let rs = super::launch::receive_fd(slot::REACH)?;
        // SAFETY: dup2 onto the ruleset's slot; `rs` closes its own copy on drop.
        if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&rs), slot::RULESET) } < 0 {
            return Err(format!(
                "the ruleset slot: {}",
                std::io::Error::last_os_error()
            ));
        }
        drop(rs);
        super::landlock::enter(slot::RULESET, handled)?;
    }
    // Supervision (diagnosis only): the filter and its listener, handed to the parent
    // and closed here before anything of the program's runs.
    if let Some(watch) = w.supervise {
        let prog = super::supervise::filter(&crate::plan::seccomp_deny_set(), watch);
        let listener = super::supervise::install(&prog)?;
        super::supervise::send_listener(slot::REACH, &listener)?;
        drop(listener);
    }
    // Only stdin, stdout and stderr cross: the hand-off descriptors and anything the
    // caller left open (a file on a denied path, a directory to `openat` around a mask,
    // a connected socket) close here.
    // SAFETY: closes this process's own descriptors from 3 up.
    if unsafe { libc::close_range(3, u32::MAX, 0) } != 0 {
        return Err(format!(
            "closing the inherited descriptors: {}",
            std::io::Error::last_os_error()
        ));
    }
    super::privilege::check()?;
    Ok(w)
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: the trampoline execs the admitted program, confined"
)]
fn exec(w: &Warrant) -> i32 {
    let mut cmd = std::process::Command::new(&w.real);
    cmd.arg0(&w.argv0).args(&w.args);
    for v in LOADER_VARS {
        cmd.env_remove(v);
    }
    let err = cmd.exec();
    eprintln!("ralc: cannot run {}: {err}", w.real);
    match err.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => EXIT_MISSING,
        _ => EXIT_REFUSED,
    }
}
