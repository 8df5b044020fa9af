//! `self-writable`: a profile file (or `--restrict` file) that the stack it builds lets a
//! confined program write (`LayerSource::path`, judged on its real path), so the program
//! can rewrite its own confinement for the next launch. A shipped standard profile checked
//! by its path in a clone (`std-profiles/NAME.ral`, byte for byte the embedded `std:NAME`)
//! is not reported: `std:NAME` is what a launch should name, and a rewritten copy differs
//! from the embedded text, so it is reported again.

use super::judge::at;
use super::{Finding, Level, Lint, LintInfo, LintInput};

pub static INFO: LintInfo = LintInfo {
    name: "self-writable",
    default_level: Level::Warn,
    authoring: false,
    summary: "a profile file is writable under the stack it builds",
    what: "Reports each layer's own file (a `-p` profile or a `--restrict` file; `std:` profiles have none) whose real path the stack lets a confined program write — through a write prefix that covers it, or because no layer restricts the file system.",
    why: "A confined program that can rewrite the profile that confines it widens its own authority the next time it is launched with that profile.",
    example: "# ./profile.ral, checked from its own directory\n[\n  fs: [write: ['cwd:']],\n]",
    fix: "Keep profiles outside the directories they make writable, exclude the file (`deny: ['cwd:profile.ral']`), or pass it as `--restrict`, whose own path is write-excluded.",
};

pub struct SelfWritable;

/// Is the layer's file a shipped standard profile: at `…/std-profiles/NAME.ral`, with the
/// bytes of the embedded `std:NAME`?
fn shipped(input: &LintInput<'_>, name: &str, real: &str) -> bool {
    let Some(file) = std_name(real) else {
        return false;
    };
    let Some(text) = crate::std_profiles::get(file) else {
        return false;
    };
    input
        .sources
        .files()
        .any(|(_, f)| &*f.name == name && &*f.bytes == text.as_bytes())
}

/// `…/std-profiles/NAME.ral` → `NAME`.
fn std_name(real: &str) -> Option<&str> {
    let (dir, file) = real.rsplit_once('/')?;
    if !dir.ends_with("/std-profiles") {
        return None;
    }
    file.strip_suffix(".ral")
}

impl Lint for SelfWritable {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        let s = input.index();
        for l in input.layers {
            let Some(p) = &l.source.path else { continue };
            let real = p.real().as_str();
            if shipped(input, &l.source.name, real) {
                continue;
            }
            match s.writable(real) {
                None => {}
                Some(Some(e)) => out.push(
                    super::finding(
                        format!(
                            "`{}` is writable under the stack it builds, through `{}` ({})",
                            l.source.name,
                            e.written,
                            at(&e)
                        ),
                        Some(e.span),
                    )
                    .with_note(format!("judged on `{real}`"))
                    .with_help("exclude the file, move it, or pass it with --restrict"),
                ),
                Some(None) => {
                    let span = input.typed.iter().map(|t| t.span).find(|sp| {
                        input
                            .sources
                            .try_get(sp.file)
                            .is_some_and(|f| f.name == l.source.name)
                    });
                    out.push(
                        super::finding(
                            format!(
                                "`{}` is writable under the stack it builds: no layer restricts the file system",
                                l.source.name
                            ),
                            span,
                        )
                        .with_help("restrict `fs`, or pass the file with --restrict"),
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
    use crate::lint::testkit::{check, LayerBuilder};

    #[test]
    fn fires_when_the_profile_lies_in_its_write_region() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("p.ral")
            .file_path("/home/u/proj/p.ral", "/home/u/proj/p.ral")
            .write("/home/u/proj")
            .build(&mut sm)];
        let f = check(&SelfWritable, &layers, &sm);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("through `/home/u/proj`"));
        // unrestricted fs
        let layers = vec![LayerBuilder::new("q.ral")
            .file_path("/home/u/q.ral", "/home/u/q.ral")
            .exec_empty()
            .build(&mut sm)];
        assert_eq!(check(&SelfWritable, &layers, &sm).len(), 1);
    }

    #[test]
    fn is_silent_when_excluded_elsewhere_or_a_std_profile() {
        let mut sm = SourceMap::new();
        let layers = vec![
            LayerBuilder::new("p.ral")
                .file_path("/home/u/proj/p.ral", "/home/u/proj/p.ral")
                .write("/home/u/proj")
                .deny("/home/u/proj/p.ral")
                .build(&mut sm),
            LayerBuilder::new("q.ral")
                .file_path("/home/u/q.ral", "/home/u/q.ral")
                .build(&mut sm),
            LayerBuilder::new("std:minimal")
                .write("/tmp")
                .build(&mut sm),
        ];
        assert!(check(&SelfWritable, &layers, &sm).is_empty());
    }
}
