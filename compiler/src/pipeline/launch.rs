//! A launch, prepared to its plan: the program admitted by the stack (`GrantStack::admit`,
//! the only exec judgment), the projection folded for it, and the plan each back end
//! renders from that (`LinuxPlan`, the Seatbelt launch). A refusal is a [`Refusal`] in
//! the guard's words, never an exit code (the CLI maps it, `cli::exit_for`).
//!
//! Pure: the host is asked only through `Resolve`; it never launches, and never hands
//! out a plan for a program the stack refused.

use crate::capability::projection::{ExecProjection, SandboxProjection};
use crate::capability::resolve::Resolve;
use crate::capability::stack::{Admitted, ExecDenial, GrantStack};
use crate::guard;
use ralc_runtime::macos::SeatbeltLaunch;
use ralc_runtime::plan::{LaunchProgram, LinuxPlan};

/// Why nothing may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: RefusalKind,
    /// The reason, in the guard's words.
    pub words: String,
}

/// What kind of refusal: the caller's exit status follows from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// No program was named.
    NoProgram,
    /// The program was not found.
    NotFound,
    /// The stack withholds the program; `real` is the path the guard judged, when it has
    /// one (a caller may find nothing there: a program judged lexically).
    Withheld { real: Option<String> },
    /// The confinement refuses what the stack asks (an excluded interpreter, a rendered
    /// profile's refusal).
    Confinement,
}

impl Refusal {
    fn new(kind: RefusalKind, words: impl Into<String>) -> Self {
        Refusal {
            kind,
            words: words.into(),
        }
    }
}

/// Admit and fold: the admitted program and the projection every back end renders for
/// its launch, or why nothing may run.
pub fn admit_and_project(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
) -> Result<(Admitted, SandboxProjection), Refusal> {
    let Some((name, args)) = program.split_first() else {
        return Err(Refusal::new(
            RefusalKind::NoProgram,
            "name a program after `--`",
        ));
    };
    let admitted = match stack.admit(name, args, r) {
        Ok(a) => a,
        Err(refused) => {
            let kind = if matches!(refused.why, ExecDenial::NotFound) {
                RefusalKind::NotFound
            } else {
                RefusalKind::Withheld {
                    real: refused.real.as_ref().map(|p| p.as_str().to_string()),
                }
            };
            return Err(Refusal::new(kind, guard::refusal(stack, &refused)));
        }
    };
    let projection = SandboxProjection::of(stack, r, Some(&admitted));
    if let Some(why) = excluded_carrier(stack, r, &admitted, &projection) {
        return Err(Refusal::new(RefusalKind::Confinement, why));
    }
    Ok((admitted, projection))
}

/// Admit, fold and render: the Linux plan a launch of `program` runs, with ralc itself at
/// `self_path` and the stack's own `profiles` files kept read-only, or why nothing may run.
pub fn plan_for(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
    self_path: &str,
    profiles: &[String],
) -> Result<(Admitted, LinuxPlan), Refusal> {
    let (admitted, projection) = admit_and_project(stack, r, program)?;
    let launch = LaunchProgram {
        real: admitted.program_real().as_str().to_string(),
        argv0: admitted.argv0().to_string(),
        args: admitted.args().to_vec(),
    };
    let mut plan = crate::render::linux::render_with_profiles(
        &projection,
        &launch,
        r.cwd(),
        self_path,
        profiles,
    );
    plan.refused
        .extend(super::moving_home::home_through_moving_place(stack, r));
    Ok((admitted, plan))
}

/// The launch of `program` under the stack on macOS: the admitted program and the
/// Seatbelt profile rendered for it, every deny tagged `tag` (the launch's denial tag),
/// or why nothing may run.
pub fn seatbelt_launch(
    stack: &GrantStack,
    r: &dyn Resolve,
    program: &[String],
    self_path: &str,
    tag: &str,
) -> Result<SeatbeltLaunch, Refusal> {
    let (admitted, projection) = admit_and_project(stack, r, program)?;
    let real = admitted.program_real().as_str().to_string();
    let profile = crate::render::macos::render_tagged(&projection, &real, self_path, tag);
    if !profile.refused.is_empty() {
        return Err(Refusal::new(
            RefusalKind::Confinement,
            format!(
                "the Seatbelt profile refuses: {}",
                profile.refused.join("; ")
            ),
        ));
    }
    let moving = super::moving_home::home_through_moving_place(stack, r);
    if !moving.is_empty() {
        return Err(Refusal::new(RefusalKind::Confinement, moving.join("; ")));
    }
    Ok(SeatbeltLaunch {
        profile: profile.text,
        tag: tag.to_string(),
        program: real,
        argv0: admitted.argv0().to_string(),
        args: admitted.args().to_vec(),
    })
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
    let ExecProjection::Restricted(k) = &projection.exec else {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::capability::testkit::*;

    /// A stack reading a home but its `.ssh`, running `/usr/bin`.
    pub(crate) fn stack() -> GrantStack {
        GrantStack::new(vec![L::new("p.ral")
            .read("/Users/u")
            .deny("/Users/u/.ssh")
            .dir("/usr/bin", allow())
            .done()])
    }

    /// A host with `cat` on its PATH.
    pub(crate) fn host() -> FakeHost {
        FakeHost::new().on_path("cat", "/usr/bin/cat")
    }

    #[test]
    fn the_seatbelt_profile_is_rendered_for_the_admitted_program() {
        let argv = vec!["cat".to_string(), "/Users/u/a".to_string()];
        let l =
            seatbelt_launch(&stack(), &host(), &argv, "/opt/ralc/bin/ralc", "ralc-1-2").unwrap();
        assert_eq!(l.tag, "ralc-1-2");
        assert!(l
            .profile
            .contains("(deny default (with message \"ralc-1-2\"))"));
        assert_eq!(l.program, "/usr/bin/cat");
        assert_eq!(l.argv0, "cat");
        assert_eq!(l.args, vec!["/Users/u/a".to_string()]);
        assert!(l.profile.starts_with(';'), "{}", &l.profile[..40]);
        assert!(l.profile.contains("\"/Users/u/.ssh\""));
        assert!(ralc_runtime::macos::precheck(&l).is_ok());
    }

    #[test]
    fn a_refused_program_is_not_launched() {
        // A program present on every host, outside what the stack admits.
        let argv = vec!["/bin/sh".to_string()];
        let r = seatbelt_launch(&stack(), &host(), &argv, "/opt/ralc", "ralc-1-2").unwrap_err();
        assert!(matches!(r.kind, RefusalKind::Withheld { .. }), "{r:?}");
        assert!(r.words.contains("withheld"), "{}", r.words);
        let r = plan_for(&stack(), &host(), &argv, "/opt/ralc", &[]).unwrap_err();
        assert!(matches!(r.kind, RefusalKind::Withheld { .. }), "{r:?}");
    }

    #[test]
    fn no_program_and_a_missing_one_are_told_apart() {
        let r = admit_and_project(&stack(), &host(), &[]).unwrap_err();
        assert_eq!(r.kind, RefusalKind::NoProgram);
        let r = admit_and_project(&stack(), &host(), &["no-such-tool".to_string()]).unwrap_err();
        assert_eq!(r.kind, RefusalKind::NotFound, "{r:?}");
    }
}
