//! The macOS system calls of a launch, and the only foreign declarations of the back end:
//! whether this process is already sandboxed, the process table (for the user's process
//! count), the per-user ceiling and the inherited limit, and —
//! in the forked child, before exec — the fork brake and `sandbox_init`. It decides
//! nothing: the launch does. It never applies a profile to ralc itself.
//!
//! `cargo check` has no link step here: a misspelled symbol would pass. So the foreign
//! declarations are three, each beside the Apple header it mirrors; everything else comes
//! from the `libc` crate.

use std::ffi::{c_char, c_int, CStr};

mod ffi {
    use std::ffi::{c_char, c_int};

    extern "C" {
        /// `<sandbox.h>` (macOS SDK; deprecated since 10.8, still exported by
        /// libsystem_sandbox through libSystem):
        /// `int sandbox_init(const char *profile, uint64_t flags, char **errorbuf);`
        /// With `flags` 0 the profile is SBPL text — the form `sandbox-exec -p` uses.
        pub fn sandbox_init(
            profile: *const c_char,
            flags: u64,
            errorbuf: *mut *mut c_char,
        ) -> c_int;
        /// `<sandbox.h>`: `void sandbox_free_error(char *errorbuf);`
        pub fn sandbox_free_error(errorbuf: *mut c_char);
        /// libsandbox's private `<sandbox/private.h>` (not in the SDK; declared the same way
        /// by Chromium's `sandbox/mac/seatbelt.cc`):
        /// `int sandbox_check(pid_t pid, const char *operation, enum sandbox_filter_type type, ...);`
        /// With no operation and `SANDBOX_FILTER_NONE` (0) it answers whether `pid` is
        /// sandboxed at all.
        pub fn sandbox_check(
            pid: libc::pid_t,
            operation: *const c_char,
            filter: c_int,
            ...
        ) -> c_int;
    }
}

/// Is this process already under a sandbox? (`sandbox_init` would refuse a second
/// profile; the launch refuses first, with the reason.) Any non-zero answer counts.
pub fn already_sandboxed() -> bool {
    // SAFETY: no operation name (NULL) and SANDBOX_FILTER_NONE take no variadic argument.
    unsafe { ffi::sandbox_check(libc::getpid(), std::ptr::null(), 0) != 0 }
}

/// One row of the process table: the process's real uid (all the fork brake counts by).
#[derive(Clone, Copy, Debug)]
pub struct Proc {
    pub ruid: u32,
}

/// The process table as far as this process may read it (`proc_listallpids` and
/// `PROC_PIDTBSDINFO`, `<libproc.h>`); a process that exits or may not be read is left out.
pub fn process_table() -> Vec<Proc> {
    // SAFETY: a NULL buffer asks for the count only.
    let n = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    if n <= 0 {
        return Vec::new();
    }
    let mut pids: Vec<c_int> = vec![0; n as usize + 64];
    let bytes = (pids.len() * std::mem::size_of::<c_int>()) as c_int;
    // SAFETY: the buffer holds `bytes` bytes.
    let got = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    if got <= 0 {
        return Vec::new();
    }
    pids.truncate(got as usize);
    let mut out = Vec::with_capacity(pids.len());
    for pid in pids {
        if pid <= 0 {
            continue;
        }
        // SAFETY: a zeroed proc_bsdinfo is a valid out-buffer of its own size.
        let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_bsdinfo>() as c_int;
        // SAFETY: the buffer is `size` bytes.
        let r = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTBSDINFO,
                0,
                (&mut info as *mut libc::proc_bsdinfo).cast(),
                size,
            )
        };
        if r == size {
            out.push(Proc {
                ruid: info.pbi_ruid,
            });
        }
    }
    out
}

/// This process's real uid.
pub fn real_uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// The system's per-user process ceiling, `kern.maxprocperuid` (`<sys/sysctl.h>`).
pub fn max_proc_per_uid() -> Option<u64> {
    let mut v: c_int = 0;
    let mut len = std::mem::size_of::<c_int>();
    // SAFETY: a NUL-terminated name and an out-buffer of `len` bytes.
    let r = unsafe {
        libc::sysctlbyname(
            c"kern.maxprocperuid".as_ptr(),
            (&mut v as *mut c_int).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    (r == 0 && v > 0).then_some(v as u64)
}

/// The inherited hard limit of `RLIMIT_NPROC`.
pub fn nproc_hard() -> std::io::Result<u64> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid out-pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut rl) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(rl.rlim_max)
}

/// In the forked child: write `msg` to standard error (async-signal-safe).
fn say(msg: &[u8]) {
    // SAFETY: a valid buffer; write(2) is async-signal-safe.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
    }
}

/// In the forked child, before exec: the fork brake, soft and hard. Only async-signal-safe
/// calls.
pub fn child_set_nproc(limit: u64) -> std::io::Result<()> {
    let rl = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: a valid rlimit; setrlimit is async-signal-safe.
    if unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &rl) } != 0 {
        let e = std::io::Error::last_os_error();
        say(b"ralc run: setrlimit(RLIMIT_NPROC) failed in the child\n");
        return Err(e);
    }
    Ok(())
}

/// In the forked child, before exec: enter the Seatbelt profile. The process is single
/// threaded here (the launch spawns before starting any thread), so `sandbox_init`'s
/// allocations cannot meet a lock held by another thread. Its error text goes to standard
/// error.
pub fn child_sandbox_init(profile: &CStr) -> std::io::Result<()> {
    let mut err: *mut c_char = std::ptr::null_mut();
    // SAFETY: a NUL-terminated profile and a valid out-pointer.
    let r = unsafe { ffi::sandbox_init(profile.as_ptr(), 0, &mut err) };
    if r == 0 {
        return Ok(());
    }
    say(b"ralc run: sandbox_init refused the profile: ");
    if !err.is_null() {
        // SAFETY: sandbox_init returned a NUL-terminated message it allocated.
        let text = unsafe { CStr::from_ptr(err) };
        say(text.to_bytes());
        // SAFETY: the buffer came from sandbox_init.
        unsafe { ffi::sandbox_free_error(err) };
    }
    say(b"\n");
    Err(std::io::Error::from_raw_os_error(libc::EPERM))
}
