//! `ralc run -p P… [--restrict R]… -- PROGRAM ARGS…`: compile the stack, admit the program
//! (a refusal exits 126 with the guard's wording; a program that does not exist, 127),
//! fold the projection, render the Linux plan and launch it under bwrap, Landlock and
//! seccomp (the runtime's `launch`); on macOS it renders the Seatbelt profile for the
//! admitted program and launches under it instead (`macos`). It never launches what the
//! stack refused, and never launches less confined than the plan.

use super::args::RunArgs;
use crate::capability::projection::SandboxProjection;
use crate::capability::resolve::Resolve;
use crate::capability::stack::{Admitted, ExecDenial, GrantStack};
use crate::compile::{self, Compiled, StackRequest};
use crate::guard;
use ralc_runtime::plan::{LaunchProgram, LinuxPlan};

pub mod macos;

/// Nothing ran: the stack refused, or the confinement could not be established.
pub const EXIT_REFUSED: i32 = 126;
/// The program does not exist.
pub const EXIT_MISSING: i32 = 127;

/// The compiled stack, or the exit code and message of why there is none.
pub fn compile_stack(
    stack: &crate::cli::args::StackArgs,
    positional: &[String],
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let req = StackRequest::from_args(stack, positional)
        .map_err(|e| (super::EXIT_USAGE, format!("{who}: {e}")))?;
    compile_request(req, who)
}

/// `compile_stack` for a request already anchored (another OS's anchor, say).
pub fn compile_request(
    req: StackRequest,
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let mut compiled = super::progress::during("compiling the profiles", || compile::compile(req));
    let text = super::check::render(
        crate::cli::args::Format::Human,
        &super::for_humans(&compiled.diagnostics),
        &compiled.sources,
        false,
        None,
    );
    match compiled.stack.take() {
        Some(s) if !compiled.has_errors() => {
            if !text.is_empty() {
                eprint!("{text}");
            }
            Ok((compiled, s))
        }
        _ => Err((
            EXIT_REFUSED,
            format!("{text}{who}: refused: the profiles have errors; nothing ran"),
        )),
    }
}

/// Admit and fold: the admitted program and the projection every back end renders for
/// its launch, or the exit code and the guard's words.
pub fn admit_and_project(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
) -> Result<(Admitted, SandboxProjection), (i32, String)> {
    let Some((name, args)) = program.split_first() else {
        return Err((super::EXIT_USAGE, "name a program after `--`".to_string()));
    };
    let admitted = match stack.admit(name, args, r) {
        Ok(a) => a,
        Err(refused) => {
            // A program that does not exist is 127 wherever that is found out: a path the
            // guard judged lexically (nothing there) counts too.
            #[allow(
                clippy::disallowed_methods,
                reason = "CLI site: whether a refused program's real path exists (exit 127)"
            )]
            let absent = refused
                .real
                .as_ref()
                .is_some_and(|p| std::fs::metadata(p.as_str()).is_err());
            let code = if matches!(refused.why, ExecDenial::NotFound) || absent {
                EXIT_MISSING
            } else {
                EXIT_REFUSED
            };
            return Err((code, guard::refusal(stack, &refused)));
        }
    };
    let projection = SandboxProjection::of(stack, r, Some(&admitted));
    if let Some(why) = excluded_carrier(stack, r, &admitted, &projection) {
        return Err((EXIT_REFUSED, why));
    }
    Ok((admitted, projection))
}

/// Admit, fold and render: the plan a launch of `program` runs, or the exit code and
/// the guard's words.
pub fn plan_for(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
    self_path: &str,
    profiles: &[String],
) -> Result<(Admitted, LinuxPlan), (i32, String)> {
    let (admitted, projection) = admit_and_project(stack, r, program)?;
    let launch = LaunchProgram {
        real: admitted.program_real().as_str().to_string(),
        argv0: admitted.argv0().to_string(),
        args: admitted.args().to_vec(),
    };
    let plan = crate::render::linux::render_with_profiles(
        &projection,
        &launch,
        r.cwd(),
        self_path,
        profiles,
    );
    Ok((admitted, plan))
}

/// A script the stack admits whose interpreter (a carrier) the exec table excludes cannot
/// be started by the kernel: the reason, in the guard's words for the interpreter, so the
/// launch is refused before anything runs rather than failing with a bare EACCES.
fn excluded_carrier(
    stack: &GrantStack,
    r: &dyn Resolve,
    admitted: &Admitted,
    projection: &SandboxProjection,
) -> Option<String> {
    let crate::capability::projection::ExecProjection::Restricted(k) = &projection.exec else {
        return None;
    };
    let interp = r
        .carriers(admitted.program_real())
        .into_iter()
        .find(|c| !k.carriers.iter().any(|k| k == c.as_str()))?;
    let words = match stack.admit(interp.as_str(), &[], r) {
        Err(refused) => guard::refusal(stack, &refused),
        Ok(_) => "the kernel's exec table excludes it".to_string(),
    };
    Some(format!(
        "{} is a script whose interpreter {} cannot run: {words}",
        admitted.program_real().as_str(),
        interp.as_str()
    ))
}

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
    #[cfg(target_os = "macos")]
    {
        macos::run(&stack, &compiled.ctx, &args.program)
    }
    #[cfg(not(target_os = "macos"))]
    {
        run_plan(
            &stack,
            &compiled.ctx,
            &args.program,
            &compiled.profile_files(),
        )
    }
}

/// Everywhere but macOS: render the Linux plan and launch it.
#[cfg(not(target_os = "macos"))]
fn run_plan(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
    profile_files: &[String],
) -> i32 {
    let plan = match plan_for(stack, r, program, &own_path(), profile_files) {
        Ok((_, plan)) => plan,
        Err((code, msg)) => {
            eprintln!("ralc run: refused: {msg}");
            return code;
        }
    };
    if !plan.refused.is_empty() {
        eprintln!(
            "ralc run: refused: {}; nothing ran",
            plan.refused.join("; ")
        );
        return EXIT_REFUSED;
    }
    launch(&plan)
}

#[cfg(target_os = "linux")]
fn launch(plan: &LinuxPlan) -> i32 {
    ralc_runtime::linux::launch::launch(plan)
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn launch(_plan: &LinuxPlan) -> i32 {
    eprintln!("ralc run: refused: this build launches only on Linux; nothing ran");
    EXIT_REFUSED
}
