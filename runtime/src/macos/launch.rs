//! The macOS launch: refuse what cannot be confined (a profile over the size macOS takes,
//! a caller already in a sandbox, a fork brake that cannot be sized or set), then fork;
//! in the child set `RLIMIT_NPROC` and enter the profile with `sandbox_init`, then exec
//! the admitted program by its real path with the loader variables removed; wait for it;
//! after a failed run, read the sandbox's reports carrying the launch's denial tag from
//! the unified log. It never runs the program when any step before the exec fails: the
//! spawn fails and nothing ran.

use super::{brake, env, precheck, sys, unified_log, Outcome, SeatbeltLaunch};
use std::ffi::{CString, OsString};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::time::{Duration, Instant};

/// How long the kernel's reports are given to reach the unified log after the exit.
const LOG_SETTLE: Duration = Duration::from_millis(300);

/// Launch `l` confined and wait for it. `Err` is the reason nothing ran.
pub fn launch(l: &SeatbeltLaunch) -> Result<Outcome, String> {
    precheck(l)?;
    if sys::already_sandboxed() {
        return Err(
            "ralc itself runs under a sandbox, and macOS applies no second profile to a \
             sandboxed process"
                .to_string(),
        );
    }
    let profile = CString::new(l.profile.as_str())
        .map_err(|_| "the Seatbelt profile holds a NUL byte".to_string())?;
    let uid = sys::real_uid();
    let table = sys::process_table();
    if table.is_empty() {
        return Err(
            "the process table could not be read, so the fork brake cannot be sized".to_string(),
        );
    }
    let user_processes = table.iter().filter(|p| p.ruid == uid).count() as u64;
    let hard = sys::nproc_hard()
        .map_err(|e| format!("the inherited RLIMIT_NPROC could not be read ({e})"))?;
    let limit = brake::nproc_limit(user_processes, sys::max_proc_per_uid(), hard);

    let mut cmd = new_command(&l.program);
    cmd.arg0(&l.argv0).args(&l.args);
    for v in env::removals(parent_env_names()) {
        cmd.env_remove(v);
    }
    // SAFETY: the closure makes only setrlimit, sandbox_init and write calls; ralc is
    // single-threaded when it spawns (no thread is started before the child is running),
    // so sandbox_init's allocations in the forked child cannot meet a lock held elsewhere.
    unsafe {
        cmd.pre_exec(move || {
            sys::child_set_nproc(limit)?;
            sys::child_sandbox_init(&profile)
        });
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("the confined child did not start ({e})"))?;
    let status = child
        .wait()
        .map_err(|e| format!("the confined program could not be waited for ({e})"))?;
    let code = match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(sig)) => 128 + sig,
        (None, None) => 126,
    };
    let (denials, log_error) = if code == 0 {
        (Vec::new(), None)
    } else {
        std::thread::sleep(LOG_SETTLE);
        match read_log(start.elapsed(), &l.tag) {
            Ok(out) => (unified_log::denials_of(&out, &l.tag), None),
            Err(e) => (Vec::new(), Some(e)),
        }
    };
    Ok(Outcome {
        code,
        nproc_limit: limit,
        user_processes,
        denials,
        log_error,
    })
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: the admitted program, by its real path, confined in the child"
)]
fn new_command(program: &str) -> std::process::Command {
    std::process::Command::new(program)
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: the names of the parent's environment, to remove the loader's"
)]
fn parent_env_names() -> Vec<OsString> {
    std::env::vars_os().map(|(k, _)| k).collect()
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: /usr/bin/log show, by its path, for the sandbox's reports"
)]
fn read_log(window: Duration, tag: &str) -> Result<String, String> {
    let secs = window.as_secs() + u64::from(window.subsec_nanos() > 0);
    let out = std::process::Command::new(unified_log::LOG)
        .args(unified_log::show_args(secs, tag))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{} could not run ({e})", unified_log::LOG))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{} show failed: {}", unified_log::LOG, why.trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
