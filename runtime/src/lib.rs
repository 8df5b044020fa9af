//! ralc-runtime: the plan types ralc's back ends render (`LinuxPlan`, …) and their
//! enforcement on Linux: bwrap, Landlock and seccomp, and the `--warrant` trampoline; on
//! macOS, the launch under a Seatbelt profile (`macos`; its pure parts build everywhere);
//! on Windows: AppContainer, capability ACEs, the stamp store and the Job Object.
//! It knows nothing of profiles: it consumes a versioned plan and an admitted program.

pub mod cmdline;
pub mod denial;
pub mod environment;
pub mod macos;
pub mod plan;
/// The post-run audit reads Unix file metadata (ctime, mode bits); `ralc run` calls it on Linux.
#[cfg(unix)]
pub mod planted;

#[cfg(target_os = "linux")]
pub mod linux;

#[cfg(windows)]
pub mod windows;

/// Serve the trampoline role when this process was started as `PROG --warrant`.
/// Returns the exit code to terminate with, or `None` when the role is not asked (then
/// this executable and bwrap are pinned, once, for a later launch).
pub fn serve_warrant_if_asked() -> Option<i32> {
    let mut args = std::env::args_os();
    let _ = args.next();
    let first = args.next();
    let asked =
        first.as_deref() == Some(std::ffi::OsStr::new("--warrant")) && args.next().is_none();
    #[cfg(target_os = "linux")]
    {
        if asked {
            return Some(linux::trampoline::serve());
        }
        let _ = linux::launch::pin_at_start();
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        if asked {
            eprintln!("ralc --warrant: refused: this platform has no trampoline; nothing ran");
            return Some(126);
        }
        None
    }
}
