//! ralc-runtime: the plan types ralc's back ends render (`LinuxPlan`, …) and their
//! enforcement on Linux: bwrap, Landlock and seccomp, and the `--warrant` trampoline.
//! It knows nothing of profiles: it consumes a versioned plan and an admitted program.

/// Serve the trampoline role when this process was started as `PROG --warrant`.
/// Returns the exit code to terminate with, or `None` when the role is not asked.
pub fn serve_warrant_if_asked() -> Option<i32> {
    None
}
