//! The macOS launch: run an admitted program under a rendered Seatbelt profile
//! (`sandbox_init` in the child between fork and exec), with the fork brake
//! (`RLIMIT_NPROC`) and the loader variables removed, and read the sandbox's denials of
//! the run — every report carrying the launch's denial tag, whatever process made it —
//! from the unified log after a failed run.
//!
//! The pure parts — environment filtering, limit arithmetic, the denial tag, the `log
//! show` command line, log parsing — are compiled and unit-tested on every host. Only
//! `sys` (the foreign declarations and system calls) and `launch` are compiled for macOS;
//! nothing here ever runs a program on another OS. It knows nothing of profiles: it takes
//! the rendered text and the admitted program.

pub mod brake;
pub mod env;
pub mod unified_log;

#[cfg(target_os = "macos")]
pub mod launch;
#[cfg(target_os = "macos")]
mod sys;

/// The largest profile text the launch hands to `sandbox_init`: `sandbox-exec` reports
/// 64 KiB for one profile object, and the renderer refuses past the same number.
pub const PROFILE_LIMIT: usize = 64 * 1024;

/// The denial tag of one launch, from ralc's pid and the launch's wall-clock time in
/// nanoseconds: `ralc-PID-NANOS` in hex, unique to the run on this host, spelled only in
/// what a tag may hold (ASCII letters, digits, `-`). Every deny of the run's profile
/// carries it, and the log reader keeps only the reports that do.
pub fn denial_tag(pid: u32, nanos: u128) -> String {
    format!("ralc-{pid:x}-{nanos:x}")
}

/// What a macOS launch runs: the rendered profile and the admitted program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatbeltLaunch {
    /// The `.sbpl` text the renderer produced for this program.
    pub profile: String,
    /// The denial tag every deny of `profile` carries (`denial_tag`).
    pub tag: String,
    /// The admitted program's real path (exec'd by it, never looked up by name).
    pub program: String,
    /// The name the program sees as `argv[0]`.
    pub argv0: String,
    pub args: Vec<String>,
}

/// How a confined run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The program's exit status; a signal is 128+N.
    pub code: i32,
    /// The fork brake: the limit set, and the user's process count it was sized from.
    pub nproc_limit: u64,
    pub user_processes: u64,
    /// The sandbox's denials of the run, found by its tag (read only after a failed run).
    pub denials: Vec<crate::denial::Denial>,
    /// Why the denials could not be read, when they could not.
    pub log_error: Option<String>,
}

/// Why a launch may not start, judged before anything is spawned: a profile over the
/// size the system accepts, or one holding a NUL (which cannot reach `sandbox_init`).
pub fn precheck(l: &SeatbeltLaunch) -> Result<(), String> {
    if l.profile.len() > PROFILE_LIMIT {
        return Err(format!(
            "the Seatbelt profile is {} bytes, over the {PROFILE_LIMIT} bytes macOS accepts \
             for one profile",
            l.profile.len()
        ));
    }
    if l.profile.contains('\0') {
        return Err("the Seatbelt profile holds a NUL byte".to_string());
    }
    if !l.program.starts_with('/') {
        return Err(format!("{} is not an absolute path", l.program));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(profile: &str, program: &str) -> SeatbeltLaunch {
        SeatbeltLaunch {
            profile: profile.to_string(),
            tag: denial_tag(1, 2),
            program: program.to_string(),
            argv0: "x".to_string(),
            args: Vec::new(),
        }
    }

    #[test]
    fn precheck_refuses_oversize_nul_and_relative() {
        assert!(precheck(&l("(version 1)", "/bin/ls")).is_ok());
        let big = "a".repeat(PROFILE_LIMIT + 1);
        let e = precheck(&l(&big, "/bin/ls")).unwrap_err();
        assert!(e.contains("over the 65536 bytes"), "{e}");
        assert!(precheck(&l(&"a".repeat(PROFILE_LIMIT), "/bin/ls")).is_ok());
        assert!(precheck(&l("(version 1)\0", "/bin/ls")).is_err());
        assert!(precheck(&l("(version 1)", "ls")).is_err());
    }

    #[test]
    fn the_denial_tag_is_per_launch_and_plainly_spelled() {
        assert_eq!(denial_tag(0x1f, 0xabc), "ralc-1f-abc");
        assert_ne!(denial_tag(7, 1), denial_tag(7, 2));
        assert_ne!(denial_tag(7, 1), denial_tag(8, 1));
        let t = denial_tag(u32::MAX, u128::MAX);
        assert!(t.len() <= 64, "{t}");
        assert!(
            t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "{t}"
        );
    }
}
