//! `seatbelt-size`: the stack's macOS Seatbelt profile is near, or over, what
//! `sandbox-exec` takes for one profile. The profile is measured (`macos::measure`: the
//! renderer's own code, counting instead of keeping the text) from the stack's
//! projection on the frozen paths (no disk), as `ralc render --target macos` renders it
//! without a program.

use super::judge::AlreadyReal;
use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::capability::projection::SandboxProjection;
use crate::capability::stack::GrantStack;
use crate::render::macos::{self, SIZE_LIMIT, SIZE_WARNING};

pub static INFO: LintInfo = LintInfo {
    name: "seatbelt-size",
    default_level: Level::Warn,
    authoring: false,
    summary: "the macOS Seatbelt profile is near sandbox-exec's size limit",
    what: "Renders the stack's Seatbelt profile (`ralc render --target macos`) and reports it when it is larger than 48 KiB; past 64 KiB, the size `sandbox-exec` reports for one profile, the render itself is refused.",
    why: "A profile macOS will not load confines nothing: the launch fails on macOS while the same stack works on Linux. Each path costs twice (both firmlink spellings), and each exclusion inside an allowance is spelled again in that allowance's order-independent form.",
    example: "[\n  fs: [read: [ …a few hundred separate directories… ]],\n]",
    fix: "Grant the common parent of many sibling prefixes, or split the work across launches with smaller stacks.",
};

pub struct SeatbeltSize;

impl Lint for SeatbeltSize {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        let owned;
        let stack = match input.stack {
            Some(s) => s,
            None => {
                owned = GrantStack::new(input.layers.to_vec());
                &owned
            }
        };
        let projection = SandboxProjection::of(stack, &AlreadyReal, None);
        // measured, not rendered: the same size and refusals without the text
        let profile = macos::measure(&projection, "", "/usr/local/bin/ralc");
        let size = profile.size;
        let over = profile.refused.iter().find(|r| r.contains("bytes, over"));
        if let Some(why) = over {
            out.push(
                super::finding(
                    format!("the macOS Seatbelt profile would be refused: {why}"),
                    None,
                )
                .with_help(INFO.fix),
            );
        } else if size > SIZE_WARNING {
            out.push(
                super::finding(
                    format!(
                        "the macOS Seatbelt profile is {size} bytes, near the {SIZE_LIMIT} bytes sandbox-exec takes"
                    ),
                    None,
                )
                .with_help(INFO.fix),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::testkit::L;
    use crate::diag::SourceMap;
    use crate::lint::Places;

    fn findings(stack: &GrantStack) -> Vec<Finding> {
        let sources = SourceMap::default();
        let places = Places::default();
        let input = LintInput {
            layers: stack.layers(),
            typed: &[],
            sources: &sources,
            places: &places,
            stack: Some(stack),
            index: None,
        };
        let mut out = Vec::new();
        SeatbeltSize.check(&input, &mut out);
        out
    }

    #[test]
    fn a_small_stack_is_quiet_and_a_large_one_is_reported() {
        let small = GrantStack::new(vec![L::new("p").read("/Users/u/proj").done()]);
        assert!(findings(&small).is_empty());
        let many = |n: usize| {
            let mut l = L::new("p");
            for i in 0..n {
                l = l.read(&format!("/Users/u/data/set-{i:04}"));
            }
            GrantStack::new(vec![l.done()])
        };
        let f = findings(&many(1400));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("bytes, near"), "{}", f[0].message);
        let f = findings(&many(2000));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains("would be refused"),
            "{}",
            f[0].message
        );
    }
}
