//! `ralc run -p P… [--restrict R]… -- PROGRAM ARGS…`: compile the stack, admit the program
//! (a refusal exits 126 with the guard's wording; a program that does not exist, 127),
//! fold the projection, render the Linux plan and launch it under bwrap, Landlock and
//! seccomp (the runtime's `launch`); on macOS it renders the Seatbelt profile for the
//! admitted program and launches under it instead (`macos`). It never launches what the
//! stack refused, and never launches less confined than the plan.

use super::args::{Format, RunArgs};
use super::stack::compile_stack;
use super::EXIT_REFUSED;
#[cfg(not(target_os = "macos"))]
use crate::capability::{resolve::Resolve, stack::GrantStack};
#[cfg(not(target_os = "macos"))]
use ralc_runtime::plan::LinuxPlan;

pub mod hints;
pub mod macos;

/// This executable's canonical path (what every plan protects).
#[cfg(target_os = "linux")]
#[allow(
    clippy::disallowed_methods,
    reason = "CLI site: this executable's real path, from /proc/self/exe"
)]
pub fn own_path() -> String {
    std::fs::canonicalize("/proc/self/exe")
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| "/proc/self/exe".to_string())
}

/// This executable's canonical path (what every plan and profile protects).
#[cfg(not(target_os = "linux"))]
#[allow(
    clippy::disallowed_methods,
    reason = "CLI site: this executable's real path, from current_exe"
)]
pub fn own_path() -> String {
    std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_default()
}

pub fn run(args: &RunArgs) -> i32 {
    #[cfg(windows)]
    return super::run_windows::run(args);
    #[cfg(not(windows))]
    run_linux_plan(args)
}

/// `ralc run` through a `LinuxPlan` (every host but Windows; it refuses off Linux).
#[cfg_attr(
    windows,
    allow(dead_code, reason = "Windows runs its own plan: run_windows::run")
)]
fn run_linux_plan(args: &RunArgs) -> i32 {
    let s = &args.stack;
    if !matches!(args.format, Format::Human | Format::Json) {
        eprintln!("ralc run: --format sarif and github are not offered; use human or json");
        return super::EXIT_USAGE;
    }
    if s.profiles.is_empty() && s.restrict.is_empty() && s.extend.is_empty() {
        eprintln!("ralc run: name at least one profile (-p FILE or -p std:NAME)");
        return super::EXIT_USAGE;
    }
    let (compiled, stack) = match compile_stack(s, &[], "ralc run") {
        Ok(x) => x,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return code;
        }
    };
    #[cfg(unix)]
    if let Err(why) = super::stack::layer_files_held(&compiled) {
        eprintln!("ralc run: refused: {why}; nothing ran");
        return EXIT_REFUSED;
    }
    #[cfg(target_os = "macos")]
    {
        macos::run(&stack, &compiled.ctx, &args.program)
    }
    #[cfg(not(target_os = "macos"))]
    {
        run_plan(&stack, &compiled.ctx, args, &compiled.profile_files())
    }
}

/// A refusal's text for the terminal: its own lines kept, each escaped (`diag::escape`),
/// so no control byte or bidi override in it reaches the terminal.
#[cfg(not(target_os = "macos"))]
fn escaped_lines(text: &str) -> String {
    text.lines()
        .map(|l| crate::diag::escape::text(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Everywhere but macOS: render the Linux plan and launch it.
#[cfg(not(target_os = "macos"))]
fn run_plan(stack: &GrantStack, r: &dyn Resolve, args: &RunArgs, profile_files: &[String]) -> i32 {
    let plan = match crate::pipeline::plan_for(stack, r, &args.program, &own_path(), profile_files)
    {
        Ok((_, plan)) => plan,
        Err(refused) => {
            eprintln!("ralc run: refused: {}", escaped_lines(&refused.words));
            return super::exit_for(&refused);
        }
    };
    if !plan.refused.is_empty() {
        eprintln!(
            "ralc run: refused: {}; nothing ran",
            escaped_lines(&plan.refused.join("; "))
        );
        return EXIT_REFUSED;
    }
    launch(stack, r, &plan, args)
}

/// Launch supervised, then say what the plan refused: the program's exit status stands.
#[cfg(target_os = "linux")]
fn launch(stack: &GrantStack, r: &dyn Resolve, plan: &LinuxPlan, args: &RunArgs) -> i32 {
    use ralc_runtime::linux::supervise::Watch;
    let watch = if args.explain {
        Watch::Explain
    } else {
        Watch::Default
    };
    // A second of slack: the file system's timestamps are coarser than the clock.
    let since = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    let (code, watched) = ralc_runtime::linux::launch::launch_watched(plan, Some(watch));
    let code = planted_check(plan, since, code);
    let denials = &watched.observed.denials;
    // A program that succeeded recovered from whatever it probed: the human hints and
    // the network note are for a failure (exit != 0) or `--explain`; JSON lists every
    // refusal (docs/cli.md, "ralc run").
    let speak = code != 0 || args.explain;
    let lines = match args.format {
        Format::Json => hints::json(stack, r, denials),
        _ if speak => {
            let mut l = hints::human(stack, r, denials, watched.observed.cut);
            l.extend(hints::network(stack));
            l
        }
        _ => Vec::new(),
    };
    for l in lines {
        eprintln!("{l}");
    }
    if let Some(why) = watched.unsupervised {
        if code != 0 || args.explain {
            eprintln!("ralc run: note: {why}");
        }
    }
    code
}

/// The exit status of a run whose program succeeded but left git a program to run on the
/// host (docs/security.md, "Closed by check").
pub const EXIT_PLANTED: i32 = 125;

/// After the wait: warn of each git key or hook, tool config, and link out of the grants
/// the program planted in a write grant (`ralc_runtime::planted`), and turn a success into
/// `EXIT_PLANTED`.
#[cfg(target_os = "linux")]
fn planted_check(plan: &LinuxPlan, since: std::time::SystemTime, code: i32) -> i32 {
    use ralc_runtime::plan::Access;
    // The private temp dir the program saw is gone with the run; the host's temp dir at
    // that path was never the program's to write (other processes' files are there).
    #[allow(
        clippy::disallowed_methods,
        reason = "CLI site: the caller's TMPDIR, to skip the temp dir the launch made private"
    )]
    let private =
        ralc_runtime::linux::private_temp::private_for(&plan.cwd, std::env::var("TMPDIR").ok())
            .filter(|_| plan.fs_restricted);
    let roots: Vec<String> = plan
        .binds
        .iter()
        .filter(|b| b.access == Access::Writable && Some(&b.path) != private.as_ref())
        .map(|b| b.path.clone())
        .collect();
    // What the plan held read-only (write exclusions, git state) the program could not
    // change: a file there changed during the run was the host's (a test writing its
    // fixture just before the launch, within the clock's slack), never the program's.
    let held: Vec<&str> = plan
        .binds
        .iter()
        .filter(|b| b.access == Access::ReadOnly)
        .map(|b| b.path.as_str())
        .collect();
    let found: Vec<_> = ralc_runtime::planted::audit(&roots, since)
        .into_iter()
        .filter(|f| !held.iter().any(|h| ralc_runtime::plan::within(&f.file, h)))
        .collect();
    for f in &found {
        let file = crate::diag::escape::text(&f.file);
        let clipped = crate::diag::escape::clip(&f.runs, 120);
        let runs = crate::diag::escape::text(&clipped);
        match f.host {
            "git" => eprintln!(
                "ralc run: warning: the program left {file} setting {}: the host's git would run {runs} (review or remove it before running git there)",
                crate::diag::escape::text(&f.key),
            ),
            "link" => eprintln!(
                "ralc run: warning: the program left {file}, a symbolic link to {runs}, outside every write grant: the host's next write through it lands there (review or remove it)"
            ),
            tool => eprintln!(
                "ralc run: warning: the program changed {file}, a config {tool} reads and may run a program from (review or remove it before running {tool} there)"
            ),
        }
    }
    if !found.is_empty() && code == 0 {
        EXIT_PLANTED
    } else {
        code
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn launch(_stack: &GrantStack, _r: &dyn Resolve, _plan: &LinuxPlan, _args: &RunArgs) -> i32 {
    eprintln!("ralc run: refused: this build launches only on Linux; nothing ran");
    EXIT_REFUSED
}
