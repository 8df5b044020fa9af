//! `ralc render --target linux|macos`: the Linux plan as JSON, or with `--argv` the bwrap
//! command line the launch would run, one argument per line (the launch prepared to the
//! last step — every handle opened — and not spawned); the macOS Seatbelt profile as
//! `.sbpl` text; the Windows plan as JSON (`render_windows`). Exit 0 rendered, 1 when the
//! plan refuses what the stack asks (the reason on stderr, and in the JSON `refused` list)
//! or a profile has errors, 2 usage.

use super::args::{RenderArgs, Target};
use super::run::own_path;
use super::stack::compile_stack;
use super::EXIT_REFUSED;
use crate::capability::projection::SandboxProjection;
use crate::capability::resolve::Resolve;
use crate::pipeline::{admit_and_project, plan_for, Refusal, RefusalKind};
use ralc_runtime::plan::{LaunchProgram, LinuxPlan};

pub const EXIT_RENDERED: i32 = super::EXIT_OK;
/// The plan refuses what the stack asks (`cli::EXIT_NO`); a profile with errors is
/// `cli::EXIT_BROKEN`.
pub const EXIT_PLAN_REFUSES: i32 = super::EXIT_NO;

/// A render's exit for a refusal: usage when no program was named, else the plan
/// refuses.
pub(super) fn exit_for_render(refused: &Refusal) -> i32 {
    if refused.kind == RefusalKind::NoProgram {
        super::EXIT_USAGE
    } else {
        EXIT_PLAN_REFUSES
    }
}

pub fn run(args: &RenderArgs) -> i32 {
    match args.target {
        Target::Linux => linux(args),
        Target::Macos => macos(args),
        Target::Windows => super::render_windows::run(args),
    }
}

/// The Seatbelt profile on stdout: of the stack, or of a launch of `-- PROGRAM`.
fn macos(args: &RenderArgs) -> i32 {
    if args.argv {
        eprintln!("ralc render: --argv is for --target linux");
        return super::EXIT_USAGE;
    }
    let (compiled, stack, self_path) = match prepare(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let r: &dyn Resolve = &compiled.ctx;
    let (projection, program) = if args.program.is_empty() {
        (SandboxProjection::of(&stack, r, None), String::new())
    } else {
        match admit_and_project(&stack, r, &args.program) {
            Ok((admitted, p)) => (p, admitted.program_real().as_str().to_string()),
            Err(refused) => {
                eprintln!("ralc render: {}", refused.words);
                return exit_for_render(&refused);
            }
        }
    };
    let profile = crate::render::macos::render(&projection, &program, &self_path);
    if !profile.refused.is_empty() {
        for r in &profile.refused {
            eprintln!("ralc render: the profile refuses: {r}");
        }
        return EXIT_PLAN_REFUSES;
    }
    if profile.size() > crate::render::macos::SIZE_WARNING && !super::quiet() {
        eprintln!(
            "ralc render: warning: the profile is {} bytes, near the {} bytes sandbox-exec \
             takes inline",
            profile.size(),
            crate::render::macos::SIZE_LIMIT
        );
    }
    out(profile.text.trim_end());
    EXIT_RENDERED
}

/// What every target's render starts from: the compiled stack and ralc's path on the
/// target, or the exit code (the message printed).
type Prepared = (
    crate::pipeline::Compiled,
    crate::capability::stack::GrantStack,
    String,
);

fn prepare(args: &RenderArgs) -> Result<Prepared, i32> {
    let s = &args.stack;
    if args.files.is_empty()
        && s.profiles.is_empty()
        && s.restrict.is_empty()
        && s.extend.is_empty()
    {
        eprintln!("ralc render: name at least one profile (FILE, -p FILE or std:NAME)");
        return Err(super::EXIT_USAGE);
    }
    let (compiled, stack) = match compile_stack(s, &args.files, "ralc render") {
        Ok(x) => x,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return Err(if code == EXIT_REFUSED {
                super::EXIT_BROKEN
            } else {
                code
            });
        }
    };
    let self_path = match &args.self_path {
        Some(p) => match p.to_str() {
            Some(s) if s.starts_with('/') => s.to_string(),
            _ => {
                eprintln!("ralc render: --self must be an absolute UTF-8 path");
                return Err(super::EXIT_USAGE);
            }
        },
        None => own_path(),
    };
    Ok((compiled, stack, self_path))
}

fn linux(args: &RenderArgs) -> i32 {
    let (compiled, stack, self_path) = match prepare(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let r: &dyn Resolve = &compiled.ctx;
    let plan: LinuxPlan = if args.program.is_empty() {
        let projection = SandboxProjection::of(&stack, r, None);
        let mut plan = crate::render::linux::render_with_profiles(
            &projection,
            &LaunchProgram::default(),
            r.cwd(),
            &self_path,
            &compiled.profile_files(),
        );
        plan.refused
            .extend(crate::pipeline::moving_home::home_through_moving_place(
                &stack, r,
            ));
        plan
    } else {
        match plan_for(
            &stack,
            r,
            &args.program,
            &self_path,
            &compiled.profile_files(),
        ) {
            Ok((_, plan)) => plan,
            Err(refused) if refused.kind == RefusalKind::NoProgram => {
                eprintln!("ralc render: {}", refused.words);
                return super::EXIT_USAGE;
            }
            Err(Refusal { words: msg, .. }) => {
                // The stack refuses the program: the plan of the stack, with the refusal.
                let projection = SandboxProjection::of(&stack, r, None);
                let mut plan = crate::render::linux::render(
                    &projection,
                    &LaunchProgram::default(),
                    r.cwd(),
                    &self_path,
                );
                plan.refused.push(msg);
                plan
            }
        }
    };
    let plan = with_host_resources(plan);
    if args.argv {
        return print_argv(&plan);
    }
    out(&crate::diag::escape::json(plan.to_json()));
    if plan.refused.is_empty() {
        EXIT_RENDERED
    } else {
        for r in &plan.refused {
            eprintln!("ralc render: the plan refuses: {r}");
        }
        EXIT_PLAN_REFUSES
    }
}

/// The fidelity report says so where this user can make no cgroup: the launch is uncapped.
#[cfg(target_os = "linux")]
fn with_host_resources(mut plan: LinuxPlan) -> LinuxPlan {
    if let Err(why) = ralc_runtime::linux::cgroup::probe() {
        let path = crate::render::linux::RESOURCES;
        plan.fidelity.retain(|f| f.path != path);
        plan.fidelity.push(ralc_runtime::plan::Fidelity {
            path: path.to_string(),
            note: format!(
                "uncapped here: {why}; processes are bounded only by RLIMIT_NPROC (this user's count plus {}; none for root), memory not at all",
                ralc_runtime::plan::PIDS_MAX
            ),
        });
        plan.fidelity.sort();
    }
    plan
}

#[cfg(not(target_os = "linux"))]
fn with_host_resources(plan: LinuxPlan) -> LinuxPlan {
    plan
}

/// Print a line to stdout (`cli::emit`: a closed pipe is dropped quietly).
pub(super) fn out(text: &str) {
    super::emit(&format!("{text}\n"));
}

#[cfg(target_os = "linux")]
fn print_argv(plan: &LinuxPlan) -> i32 {
    use ralc_runtime::linux::launch;
    if !plan.refused.is_empty() {
        for r in &plan.refused {
            eprintln!("ralc render: the plan refuses: {r}");
        }
        return EXIT_PLAN_REFUSES;
    }
    let pins = match launch::pin_at_start() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ralc render: {e}");
            return EXIT_PLAN_REFUSES;
        }
    };
    // a dry preparation: render never writes (no placeholder, no private temp dir)
    match launch::prepare_dry(plan, &launch::Host::probe(), pins) {
        Ok(p) => {
            // one word a line, each escaped: a path may hold a newline or a bidi control
            let argv = p.argv(pins.bwrap_name().unwrap_or("bwrap"));
            let shown: Vec<_> = argv.iter().map(|a| crate::diag::escape::text(a)).collect();
            out(&shown.join("\n"));
            for n in &p.notes {
                eprintln!("ralc render: {}", crate::diag::escape::text(n));
            }
            EXIT_RENDERED
        }
        Err(r) => {
            eprintln!("ralc render: the launch would be refused: {r}");
            EXIT_PLAN_REFUSES
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn print_argv(_plan: &LinuxPlan) -> i32 {
    eprintln!("ralc render: --argv needs a Linux host (it opens every bind target)");
    super::EXIT_USAGE
}
