//! Privilege, in the trampoline: drop every capability (bounding, ambient, inheritable,
//! permitted, effective) and set `no_new_privs`, then read the process's own state back
//! and refuse unless all five sets are empty and `no_new_privs` holds. Whoever launched
//! ralc (root included), the program starts with no privilege. It never grants or keeps a
//! capability, and never lets a failed drop pass for a done one.

use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const CAP_V3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The highest capability number this kernel knows (`PR_CAPBSET_READ` fails past it).
fn last_cap() -> i32 {
    let mut last = -1;
    for c in 0..64 {
        // SAFETY: prctl with documented arguments; a read.
        if unsafe { libc::prctl(libc::PR_CAPBSET_READ, c as libc::c_ulong, 0, 0, 0) } < 0 {
            break;
        }
        last = c;
    }
    last
}

/// Drop every capability and set `no_new_privs`; then `check`.
pub fn drop_all() -> Result<(), String> {
    for c in 0..=last_cap() {
        // SAFETY: prctl with documented arguments. A cap already out of the bounding set
        // drops again harmlessly; a failure is caught by `check`.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, c as libc::c_ulong, 0, 0, 0) };
    }
    // SAFETY: prctl with documented arguments.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    let mut hdr = CapHeader {
        version: CAP_V3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: a v3 header and two data words, as capset(2) documents.
    if unsafe { libc::syscall(libc::SYS_capset, &mut hdr as *mut CapHeader, data.as_ptr()) } != 0 {
        return Err(format!(
            "dropping the capabilities failed: {}",
            io::Error::last_os_error()
        ));
    }
    // SAFETY: prctl with documented arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("no_new_privs: {}", io::Error::last_os_error()));
    }
    check()
}

/// Read the process's own state back: every capability set empty, `no_new_privs` set.
pub fn check() -> Result<(), String> {
    let mut hdr = CapHeader {
        version: CAP_V3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: a v3 header and two data words, as capget(2) documents.
    if unsafe {
        libc::syscall(
            libc::SYS_capget,
            &mut hdr as *mut CapHeader,
            data.as_mut_ptr(),
        )
    } != 0
    {
        return Err(format!(
            "reading the capabilities failed: {}",
            io::Error::last_os_error()
        ));
    }
    let mut held = Vec::new();
    if data.iter().any(|d| d.effective != 0) {
        held.push("effective");
    }
    if data.iter().any(|d| d.permitted != 0) {
        held.push("permitted");
    }
    if data.iter().any(|d| d.inheritable != 0) {
        held.push("inheritable");
    }
    let last = last_cap();
    let bounding = (0..=last).any(|c| {
        // SAFETY: prctl with documented arguments; a read.
        let held = unsafe { libc::prctl(libc::PR_CAPBSET_READ, c as libc::c_ulong, 0, 0, 0) };
        held != 0
    });
    if bounding {
        held.push("bounding");
    }
    let ambient = (0..=last).any(|c| {
        // SAFETY: prctl with documented arguments; a read.
        let set = unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_IS_SET as libc::c_ulong,
                c as libc::c_ulong,
                0,
                0,
            )
        };
        set != 0
    });
    if ambient {
        held.push("ambient");
    }
    if !held.is_empty() {
        return Err(format!(
            "the program would hold capabilities ({} set not empty)",
            held.join(", ")
        ));
    }
    // SAFETY: prctl with documented arguments; a read.
    if unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) } != 1 {
        return Err("no_new_privs is not set".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test process itself either holds capabilities (root) or lacks no_new_privs
    /// (anyone else): the read-back refuses it, naming what is wrong.
    #[test]
    fn the_read_back_refuses_an_unconfined_process() {
        let why = check().expect_err("a test process is not confined");
        assert!(
            why.contains("capabilities") || why.contains("no_new_privs"),
            "{why}"
        );
    }

    #[test]
    fn the_kernel_reports_a_last_capability() {
        assert!(last_cap() >= 40, "{}", last_cap());
    }
}
