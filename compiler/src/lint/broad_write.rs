//! `broad-write`: a write prefix that is the root, the home directory, or `xdg:config`
//! wholesale (judged on real paths, against the places the freeze resolved).

use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::path::identity::{path_within, Identity};

pub static INFO: LintInfo = LintInfo {
    name: "broad-write",
    default_level: Level::Warn,
    authoring: false,
    summary: "writing the root, the home directory or xdg:config wholesale",
    what: "Reports a write prefix whose real path is the file-system root, the home directory, or the configuration directory (`xdg:config`) as a whole.",
    why: "Each of these holds what other programs run or trust: shell start-up files, git hooks and config, editor plugins, credentials. A confined program that can rewrite them can act outside its confinement the next time something else starts.",
    example: "[\n  fs: [write: ['~']],\n]",
    fix: "Write the directories the program needs (`cwd:`, `xdg:cache/tool`, `~/.cargo/registry`), not their parent.",
};

pub struct BroadWrite;

fn same(a: &str, b: &str) -> bool {
    path_within(Identity::Stored, a, b) && path_within(Identity::Stored, b, a)
}

impl Lint for BroadWrite {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        for l in input.layers {
            let Some(fs) = &l.fs else { continue };
            for w in &fs.write {
                let p = w.path.real().as_str();
                let what = if same(p, "/") {
                    Some("the whole file system")
                } else if input
                    .places
                    .home
                    .as_ref()
                    .is_some_and(|h| same(p, h.as_str()))
                {
                    Some("the home directory")
                } else if input
                    .places
                    .xdg_config
                    .as_ref()
                    .is_some_and(|c| same(p, c.as_str()))
                {
                    Some("the whole configuration directory (xdg:config)")
                } else {
                    None
                };
                if let Some(what) = what {
                    out.push(
                        super::finding(
                            format!(
                                "`{}` lets a confined program write {what}",
                                w.origin.written
                            ),
                            Some(w.origin.span),
                        )
                        .with_help("write only the directories the program needs"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::{check_with, LayerBuilder};
    use crate::lint::Places;

    fn places() -> Places {
        crate::lint::testkit::test_places()
    }

    #[test]
    fn fires_on_root_home_and_config() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/")
            .write_real("~", "/home/u")
            .write_real("xdg:config", "/home/u/.config/")
            .build(&mut sm)];
        let f = check_with(&BroadWrite, &layers, &sm, &places());
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f[1].message.contains("home directory"));
    }

    #[test]
    fn is_silent_on_narrow_writes() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/home/u/src")
            .write("/home/u/.config/tool")
            .read("/")
            .build(&mut sm)];
        assert!(check_with(&BroadWrite, &layers, &sm, &places()).is_empty());
    }
}
