//! `exclusion-without-allowance` (note): an fs exclusion that no allowance of any layer
//! reaches — no read or write prefix of the stack covers it or lies beneath it — so it
//! withholds nothing that was granted. Reads the layers only.

use super::judge::{components, PathIndex};
use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::capability::layer::FsEntry;
use crate::path::identity::Identity;

pub static INFO: LintInfo = LintInfo {
    name: "exclusion-without-allowance",
    default_level: Level::Note,
    authoring: true,
    summary: "an exclusion that no allowance of the stack reaches",
    what: "Reports an fs exclusion (`deny`) that withholds nothing any layer grants: no read or write prefix of any layer covers it or lies beneath it.",
    why: "It is harmless today, but it reads as protection: a reader assumes the place was reachable and is now guarded. Often it is a typo (`~/.shh`) or a leftover from a removed allowance.",
    example: "[\n  fs: [read: ['~/src'], deny: ['/etc/shadow']],\n]",
    fix: "Check the spelling; remove it if nothing grants the place, or keep it deliberately as a guard for layers added later (allow the lint with a reason).",
};

pub struct ExclusionWithoutAllowance;

impl Lint for ExclusionWithoutAllowance {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        let allows: Vec<&FsEntry> = input
            .layers
            .iter()
            .filter_map(|l| l.fs.as_ref())
            .flat_map(|f| f.read.iter().chain(f.write.iter()))
            .collect();
        // Under the exclusion's own identity: an allowance reaches it when either lies
        // within the other.
        let idx = PathIndex::new(
            Identity::Collision,
            allows.iter().map(|e| (e.path.real().as_str(), *e)),
        );
        for l in input.layers {
            let Some(fs) = &l.fs else { continue };
            for d in &fs.deny {
                let p = d.path.real().as_str();
                if idx.covering(p).is_empty() && !idx.has_beneath(p) {
                    let mut f = super::finding(
                        format!(
                            "the exclusion `{}` withholds nothing: no allowance of the stack reaches it",
                            d.origin.written
                        ),
                        Some(d.origin.span),
                    );
                    if d.path.surface_str() != p || components(p).is_empty() {
                        f = f.with_note(format!("judged on its real path `{p}`"));
                    }
                    out.push(f.with_help("check the spelling, or remove it"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::{check, LayerBuilder};

    #[test]
    fn fires_on_an_unreached_exclusion() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .read("/home/u/src")
            .deny("/etc/shadow")
            .build(&mut sm)];
        let f = check(&ExclusionWithoutAllowance, &layers, &sm);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("`/etc/shadow`"));
    }

    #[test]
    fn is_silent_when_an_allowance_of_any_layer_reaches_it() {
        let mut sm = SourceMap::new();
        let layers = vec![
            LayerBuilder::new("a.ral")
                .read("/home/u")
                .deny("/home/u/.ssh")
                .build(&mut sm),
            // reached from above by another layer, and from below
            LayerBuilder::new("b.ral")
                .deny("/home/U")
                .deny("/var")
                .build(&mut sm),
            LayerBuilder::new("c.ral")
                .write("/var/tmp/x")
                .build(&mut sm),
        ];
        assert!(check(&ExclusionWithoutAllowance, &layers, &sm).is_empty());
    }
}
