//! `ralc render --target windows`: the `WindowsPlan` as JSON. On Windows the stack is
//! frozen as this machine would freeze it and the carve lists the real disk; on any other
//! host it is frozen under Windows rules against `--home`, `--cwd` and `--env` alone
//! (this host's own environment and disk mean nothing there), and a carve grants only the
//! directories on the way to each exclusion, the launch carving again. Exit 0 rendered,
//! 1 when the plan refuses (each reason on stderr and in `refused`), 2 usage. It must
//! never print a plan it refused without saying so, nor freeze a Windows plan against
//! this host's POSIX paths.

use super::args::RenderArgs;
use super::stack::compile_request;
use super::EXIT_REFUSED;
use crate::capability::projection::SandboxProjection;
use crate::capability::resolve::Resolve;
use crate::freeze::FreezeCtx;
use crate::path::lex::PathRules;
use ralc_runtime::plan::windows::Lister;

pub fn run(args: &RenderArgs) -> i32 {
    use super::render::{EXIT_PLAN_REFUSES, EXIT_RENDERED};
    if args.argv {
        eprintln!("ralc render: --argv is for --target linux");
        return super::EXIT_USAGE;
    }
    let s = &args.stack;
    if args.files.is_empty()
        && s.profiles.is_empty()
        && s.restrict.is_empty()
        && s.extend.is_empty()
    {
        eprintln!("ralc render: name at least one profile (FILE, -p FILE or std:NAME)");
        return super::EXIT_USAGE;
    }
    let ctx = match anchor(s) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ralc render: {e}");
            return super::EXIT_USAGE;
        }
    };
    let req = s.request_at(&args.files, ctx);
    let (compiled, stack) = match compile_request(req, &s.loader(), "ralc render") {
        Ok(x) => x,
        Err((code, _)) if !cfg!(windows) && !undescribed(&s.anchor).is_empty() => {
            // Frozen against an anchor the options left empty: the many diagnostics
            // would all say one thing, that the target machine was not described.
            eprintln!("{}", describe_the_target(&undescribed(&s.anchor)));
            return if code == EXIT_REFUSED {
                super::EXIT_USAGE
            } else {
                code
            };
        }
        Err((code, msg)) => {
            eprintln!("{msg}");
            return if code == EXIT_REFUSED {
                super::EXIT_BROKEN
            } else {
                code
            };
        }
    };
    let r: &dyn Resolve = &compiled.ctx;
    let (projection, program) = if args.program.is_empty() {
        (SandboxProjection::of(&stack, r, None), None)
    } else {
        match crate::pipeline::admit_and_project(&stack, r, &args.program) {
            Ok((admitted, p)) => (p, Some(admitted.program_real().as_str().to_string())),
            Err(refused) => {
                eprintln!("ralc render: {}", refused.words);
                return super::render::exit_for_render(&refused);
            }
        }
    };
    let plan = crate::render::windows::render(&projection, program.as_deref(), lister());
    super::render::out(&plan.to_json());
    if plan.refused.is_empty() {
        EXIT_RENDERED
    } else {
        for r in &plan.refused {
            eprintln!("ralc render: the plan refuses: {r}");
        }
        EXIT_PLAN_REFUSES
    }
}

/// The anchor: this machine's on Windows, else an empty Windows anchor re-anchored by
/// `--env-clear`, `--env`, `--home` and `--cwd`.
fn anchor(s: &super::args::StackArgs) -> Result<FreezeCtx, String> {
    let base = if cfg!(windows) {
        FreezeCtx::from_process()?
    } else {
        FreezeCtx::foreign(PathRules::Windows)
    };
    base.with_anchor(&s.anchor.anchor())
}

/// The options that describe the Windows machine and were not given (off Windows this
/// host's own home, directory and `PATH` mean nothing there).
fn undescribed(a: &super::args::AnchorArgs) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if a.home.is_none() {
        missing.push("--home");
    }
    if a.cwd.is_none() {
        missing.push("--cwd");
    }
    if !a.env.iter().any(|e| {
        e.split_once('=')
            .is_some_and(|(k, _)| k.eq_ignore_ascii_case("PATH"))
    }) {
        missing.push("--env PATH=…");
    }
    missing
}

/// The one message for a Windows render off Windows whose profiles need what the
/// options did not describe.
fn describe_the_target(missing: &[&str]) -> String {
    format!(
        "ralc render: --target windows on this host freezes against the Windows machine the \
         options describe, and {} not given; the profiles need the machine described: \
         --home 'C:\\Users\\me' --cwd 'C:\\Users\\me\\proj' \
         --env 'PATH=C:\\Windows\\System32;C:\\Windows' (and --env K=V for any other \
         variable a profile names); nothing was rendered",
        match missing {
            [one] => format!("{one} was"),
            _ => format!("{} were", missing.join(", ")),
        }
    )
}

/// The directory lister of the carve: the live disk on Windows, none elsewhere.
fn lister() -> &'static dyn Lister {
    #[cfg(windows)]
    {
        &ralc_runtime::windows::lister::LiveLister
    }
    #[cfg(not(windows))]
    {
        &ralc_runtime::plan::windows::OffHost
    }
}
