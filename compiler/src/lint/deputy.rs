//! `deputy-prefix` (spec §5): the prefixes a grant makes both exec-admitted and
//! fs-writable. The exec region (each exec layer's `Dir` keys with full evidence, the root
//! for `Any`), folded over the stack, met with the write region: each writable island
//! under a runnable directory is named, by its real path, with the exec entry and the
//! write entry that together make it, and each exec file key the stack admits inside the
//! write region (plant, then run). No fs opinion in any layer, or exec unrestricted: no
//! findings; a write of the root (whatever its spelling) is a write grant like any other.
//! A directory wholly excluded on either side is not named.
//!
//! It reports and never denies; it must never change a verdict.

use super::judge::{at, depth, StackIndex};
use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::capability::layer::{ExecKey, Origin};
use crate::capability::stack::GrantStack;
use crate::path::frozen::RealPath;
use crate::path::identity::{path_within, Identity};
use std::collections::BTreeMap;

pub static INFO: LintInfo = LintInfo {
    name: "deputy-prefix",
    default_level: Level::Warn,
    authoring: false,
    summary: "a directory that is both runnable and writable under the stack",
    what: "Names each writable island under a runnable directory: the exec region (every exec layer's directory keys with full evidence, the root for a layer that admits every program), folded over the stack, met with the write region, judged on real paths. The narrower of the two prefixes is reported, with the exec entry and the write entry that together make it.",
    why: "A program confined by this stack can drop a file where the stack lets programs run. Within one projection the dropped binary still runs under the confinement that wrote it, so this is reported, never denied: but a runner outside the projection (a shell hook, an IDE, CI) that executes from that directory turns the shape into an escape.",
    example: "[\n  exec: ['cwd:/': 'allow'],\n  fs: [write: ['cwd:']],\n]",
    fix: "Narrow one side: run only from the directories that hold built tools (`'cwd:/target/release/'`), or write only where nothing runs; exclude the directory on either side; or, where the shape is intended (`cargo build && ./target/debug/app`), allow the lint on the entry with a reason: `# ralc: allow(deputy-prefix) the build runs what it builds`.",
};

/// One entry of a finding, as the report names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EntryRef {
    pub origin: Origin,
}

/// One deputy prefix.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeputyFinding {
    /// The prefix, real.
    pub prefix: RealPath,
    /// Its surface as the narrower entry wrote it (display only).
    pub surface: String,
    /// The exec `Dir` key that makes it runnable (`None` only if the root for `Any`
    /// decided, which cannot happen while exec is restricted, but is not assumed).
    pub exec_entry: Option<Origin>,
    /// The write entry that makes it writable.
    pub write_entry: Option<Origin>,
}

/// The deputy prefixes of a composed stack, sorted by real path (the write region is the
/// model's judgment).
pub fn deputy_prefixes(stack: &GrantStack) -> Vec<DeputyFinding> {
    prefixes(&StackIndex::of_stack(stack))
}

fn prefixes(s: &StackIndex<'_>) -> Vec<DeputyFinding> {
    // only a stack with no fs opinion is silent on fs: a layer that writes the root
    // (`'/'`, `'/.'`, `'/usr/..'`, `'/proc/self/root'`, a link to it) is judged like any
    // other write grant, by the model over real paths, whatever its spelling
    if s.fs.is_empty() || !s.exec_restricted() {
        return Vec::new();
    }
    // Candidate prefixes: every exec Dir key, the root for `Any`, and every write prefix,
    // by real path (the first entry naming a real path gives its surface).
    let mut cands: BTreeMap<String, String> = BTreeMap::new();
    for (_, e) in &s.exec {
        if e.every {
            cands.entry("/".into()).or_insert_with(|| "/".into());
        }
        for r in e.rules {
            if let ExecKey::Dir(p) = &r.key {
                cands
                    .entry(p.real().as_str().to_string())
                    .or_insert_with(|| p.surface_str().to_string());
            }
        }
    }
    for (_, f) in &s.fs {
        for w in &f.policy.write {
            cands
                .entry(w.path.real().as_str().to_string())
                .or_insert_with(|| w.path.surface_str().to_string());
        }
    }
    let mut live: Vec<DeputyFinding> = Vec::new();
    // an exec file key inside the write region: the file can be planted, then run
    for (_, e) in &s.exec {
        for r in e.rules {
            let ExecKey::File(p) = &r.key else {
                continue;
            };
            let real = p.real().as_str();
            if r.policy == crate::capability::vocab::ExecPolicy::Deny
                || s.model_admits(real).is_none()
            {
                continue;
            }
            if let Some(write) = s.writable(real) {
                live.push(DeputyFinding {
                    prefix: RealPath::from_resolved(real),
                    surface: p.surface_str().to_string(),
                    exec_entry: Some(r.origin.clone()),
                    write_entry: write,
                });
            }
        }
    }
    for (real, surface) in cands {
        let Some(exec) = s.runs_dir(&real) else {
            continue;
        };
        let Some(write) = s.writable(&real) else {
            continue;
        };
        live.push(DeputyFinding {
            prefix: RealPath::from_resolved(real),
            surface,
            exec_entry: exec.map(|r| r.origin.clone()),
            write_entry: write,
        });
    }
    // Keep the islands: a live prefix beneath another live prefix is part of it. Each is
    // looked up by its ancestors among the kept ones (O(depth · log n), not O(n) each).
    live.sort_by_key(|f| depth(f.prefix.as_str()));
    let mut kept: Vec<DeputyFinding> = Vec::new();
    let mut kept_paths: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for f in live {
        let p = f.prefix.as_str();
        let beneath =
            ancestors(p).any(|a| kept_paths.contains(a) && path_within(Identity::Stored, a, p));
        if !beneath {
            kept_paths.insert(p.to_string());
            kept.push(f);
        }
    }
    kept.sort();
    kept
}

/// `p` and each of its ancestors, nearest first, ending at `/`.
fn ancestors(p: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(p);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur == "/" || cur.is_empty() {
            None
        } else {
            let t = cur.trim_end_matches('/');
            Some(match t.rfind('/') {
                Some(0) | None => "/",
                Some(i) => &t[..i],
            })
        };
        Some(cur)
    })
}

/// The human line of one finding.
pub fn describe(f: &DeputyFinding) -> String {
    let e = f
        .exec_entry
        .as_ref()
        .map(at)
        .unwrap_or_else(|| "every program".into());
    let w = f
        .write_entry
        .as_ref()
        .map(at)
        .unwrap_or_else(|| "no fs opinion".into());
    format!(
        "`{}` is both runnable ({e}) and writable ({w})",
        f.prefix.as_str()
    )
}

pub struct DeputyPrefix;

impl Lint for DeputyPrefix {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        out.extend(prefixes(&input.index()).iter().map(finding));
    }
}

/// The finding of one deputy prefix: at the write entry, both entries labelled.
pub fn finding(f: &DeputyFinding) -> Finding {
    let primary = f.write_entry.as_ref().or(f.exec_entry.as_ref());
    let mut finding = super::finding(
        format!(
            "`{}` is both runnable and writable: a program confined here can drop a file that runs",
            f.prefix.as_str()
        ),
        primary.map(|o| o.span),
    );
    if let Some(e) = &f.exec_entry {
        finding = finding.with_label(e.span, format!("runnable by `{}`", e.written));
    }
    if let Some(w) = &f.write_entry {
        finding = finding.with_label(w.span, format!("writable by `{}`", w.written));
    }
    if f.surface != f.prefix.as_str() {
        finding = finding.with_note(format!("written as `{}`", f.surface));
    }
    finding.with_help(
        "narrow the exec or the write entry, exclude the directory, or allow the lint here with a reason",
    )
}

/// The finding as a diagnostic at the lint's default level.
pub fn diagnostic(f: &DeputyFinding) -> crate::diag::Diagnostic {
    let sev = INFO
        .default_level
        .severity()
        .unwrap_or(crate::diag::Severity::Warning);
    super::leveled(&INFO, sev, finding(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::layer::Capabilities;
    use crate::diag::SourceMap;
    use crate::lint::testkit::LayerBuilder;
    use crate::typecheck::profile::ExecPolicy::*;

    fn run(build: impl FnOnce(&mut SourceMap) -> Vec<Capabilities>) -> Vec<DeputyFinding> {
        let mut sm = SourceMap::new();
        deputy_prefixes(&GrantStack::new(build(&mut sm)))
    }

    /// a27/a28: a write grant of the root (every spelling freezes to `/`) is judged like
    /// any other; beside a narrower write it hides nothing.
    #[test]
    fn a_root_write_grant_is_judged_like_any_other() {
        for extra in [None, Some("/usr")] {
            let f = run(|sm| {
                let mut l = LayerBuilder::new("p.ral").exec_dir("/usr/bin/", Allow);
                if let Some(e) = extra {
                    l = l.write(e);
                }
                vec![l.write("/").build(sm)]
            });
            assert_eq!(f.len(), 1, "{extra:?}: {f:?}");
            assert_eq!(f[0].prefix.as_str(), "/usr/bin");
            assert_eq!(&*f[0].exec_entry.as_ref().unwrap().written, "/usr/bin/");
        }
    }

    #[test]
    fn compile_and_run_in_one_tree_fires_with_both_entries() {
        let f = run(|sm| {
            vec![LayerBuilder::new("p.ral")
                .exec_dir("/usr/bin/", Allow)
                .exec_dir("/home/u/proj/", Allow)
                .write("/home/u/proj")
                .build(sm)]
        });
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].prefix.as_str(), "/home/u/proj");
        assert_eq!(&*f[0].exec_entry.as_ref().unwrap().written, "/home/u/proj/");
        assert_eq!(&*f[0].write_entry.as_ref().unwrap().written, "/home/u/proj");
    }

    #[test]
    fn the_narrower_prefix_is_reported() {
        let f = run(|sm| {
            vec![LayerBuilder::new("p.ral")
                .exec_dir("/home/u/proj/", Allow)
                .write("/home/u/proj/target")
                .write("/home/u/proj/target/debug")
                .build(sm)]
        });
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].prefix.as_str(), "/home/u/proj/target");
        let f = run(|sm| {
            vec![LayerBuilder::new("p.ral")
                .exec_dir("/home/u/proj/bin/", Allow)
                .write("/home/u")
                .build(sm)]
        });
        assert_eq!(f[0].prefix.as_str(), "/home/u/proj/bin");
    }

    #[test]
    fn an_unrestricted_axis_makes_no_finding() {
        // fs unrestricted (no opinion), exec restricted.
        assert!(run(|sm| vec![LayerBuilder::new("p.ral")
            .exec_dir("/home/u/", Allow)
            .build(sm)])
        .is_empty());
        // exec unrestricted, fs restricted.
        assert!(run(|sm| vec![LayerBuilder::new("p.ral").write("/home/u").build(sm)]).is_empty());
        // (a write of the root is a write grant: `a_root_write_grant_is_judged_like_any_other`)
    }

    #[test]
    fn a_symlinked_write_region_fires_with_the_real_path() {
        let f = run(|sm| {
            vec![LayerBuilder::new("p.ral")
                .exec_dir("/opt/tools/bin/", Allow)
                .write_real("/home/u/scratch", "/opt/tools/bin")
                .build(sm)]
        });
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].prefix.as_str(), "/opt/tools/bin");
        assert_eq!(
            &*f[0].write_entry.as_ref().unwrap().written,
            "/home/u/scratch"
        );
    }

    #[test]
    fn a_directory_excluded_on_either_side_does_not_fire() {
        // excluded from fs
        assert!(run(|sm| vec![LayerBuilder::new("p.ral")
            .exec_dir("/home/u/proj/", Allow)
            .write("/home/u/proj")
            .deny("/home/u/proj")
            .build(sm)])
        .is_empty());
        // excluded from exec (deeper deny)
        assert!(run(|sm| vec![LayerBuilder::new("p.ral")
            .exec_dir("/home/u/", Allow)
            .exec_dir("/home/u/proj/", Deny)
            .write("/home/u/proj")
            .build(sm)])
        .is_empty());
        // excluded in another layer, under another spelling
        assert!(run(|sm| vec![
            LayerBuilder::new("a.ral")
                .exec_dir("/home/u/proj/", Allow)
                .write("/home/u/proj")
                .build(sm),
            LayerBuilder::new("b.ral")
                .read("/")
                .write("/home")
                .deny("/home/u/PROJ")
                .build(sm),
        ])
        .is_empty());
        // a partial exclusion leaves the island
        assert_eq!(
            run(|sm| vec![LayerBuilder::new("p.ral")
                .exec_dir("/home/u/proj/", Allow)
                .write("/home/u/proj")
                .deny("/home/u/proj/.git")
                .build(sm)])
            .len(),
            1
        );
    }

    #[test]
    fn two_layers_innocent_alone_make_one() {
        let a = |sm: &mut SourceMap| {
            LayerBuilder::new("a.ral")
                .exec_dir("/srv/app/", Allow)
                .build(sm)
        };
        let b = |sm: &mut SourceMap| {
            LayerBuilder::new("b.ral")
                .write("/srv/app/plugins")
                .build(sm)
        };
        assert!(run(|sm| vec![a(sm)]).is_empty());
        assert!(run(|sm| vec![b(sm)]).is_empty());
        let f = run(|sm| vec![a(sm), b(sm)]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].prefix.as_str(), "/srv/app/plugins");
        assert_eq!(&*f[0].exec_entry.as_ref().unwrap().file, "a.ral");
        assert_eq!(&*f[0].write_entry.as_ref().unwrap().file, "b.ral");
    }

    #[test]
    fn the_fold_meets_exec_layers() {
        // one layer runs /a, the next only /b: nothing runs in /a under the stack.
        assert!(run(|sm| vec![
            LayerBuilder::new("a.ral")
                .exec_dir("/a/", Allow)
                .write("/a")
                .build(sm),
            LayerBuilder::new("b.ral").exec_dir("/b/", Allow).build(sm),
        ])
        .is_empty());
    }
}
