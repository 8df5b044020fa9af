//! `dead-grant`: an entry that cannot take effect — dropped at the freeze (an entry of the
//! other OS family, a selector that expands to nothing: `Capabilities::dead`), or an
//! allowance wholly inside an exclusion of the same stack. It reads the layers only.

use super::judge::at;
use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::capability::layer::ExecKey;
use crate::typecheck::profile::ExecPolicy;

pub static INFO: LintInfo = LintInfo {
    name: "dead-grant",
    default_level: Level::Warn,
    authoring: true,
    summary: "an entry that grants nothing on this host or under this stack",
    what: "Reports each grant the freeze dropped (an entry of the other OS family such as `'C:\\Tools\\'` on Linux, a package-manager selector whose tool is not installed here), and each allowance that lies wholly inside an exclusion of the same stack (an fs read or write prefix beneath any layer's deny; an exec directory or file beneath another layer's directory deny).",
    why: "A dead entry reads as authority the program does not have: reviewers trust it, and the author believes something is allowed that is refused at run time.",
    example: "[\n  fs: [read: ['~/.ssh/known_hosts'], deny: ['~/.ssh']],\n]",
    fix: "Remove the entry, or narrow the exclusion that swallows it. A selector for a tool some machines lack is fine: allow the lint on it with a reason.",
};

pub struct DeadGrantLint;

impl Lint for DeadGrantLint {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        for layer in input.layers {
            for d in &layer.dead {
                out.push(
                    super::finding(
                        format!("`{}` grants nothing here: {}", d.origin.written, d.reason),
                        Some(d.origin.span),
                    )
                    .with_help("remove it, or allow `dead-grant` on it with a reason if other machines need it"),
                );
            }
        }
        let s = input.index();
        for (_, f) in &s.fs {
            for (kind, entries) in [("read", &f.policy.read), ("write", &f.policy.write)] {
                for e in entries {
                    if let Some(x) = s.excluded(e.path.real().as_str()) {
                        out.push(
                            super::finding(
                                format!(
                                    "the {kind} prefix `{}` lies wholly inside the exclusion `{}` ({}): it grants nothing",
                                    e.origin.written,
                                    x.origin.written,
                                    at(&x.origin)
                                ),
                                Some(e.origin.span),
                            )
                            .with_label(x.origin.span, "this exclusion withholds all of it"),
                        );
                    }
                }
            }
        }
        for (i, e) in &s.exec {
            for r in e.rules {
                let p = match (&r.key, &r.policy) {
                    (
                        ExecKey::Dir(p) | ExecKey::File(p),
                        ExecPolicy::Allow | ExecPolicy::Subcommands(_),
                    ) => p,
                    _ => continue,
                };
                for (j, other) in &s.exec {
                    if i == j {
                        continue;
                    }
                    if let Err(Some(x)) = other.runs_dir(p.real().as_str()) {
                        if matches!(x.policy, ExecPolicy::Deny) {
                            out.push(
                                super::finding(
                                    format!(
                                        "`{}` lies wholly inside the exec exclusion `{}` ({}) of another layer: it admits nothing",
                                        r.origin.written,
                                        x.origin.written,
                                        at(&x.origin)
                                    ),
                                    Some(r.origin.span),
                                )
                                .with_label(x.origin.span, "this exclusion withholds all of it"),
                            );
                            break;
                        }
                    }
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
    use crate::typecheck::profile::ExecPolicy::*;

    #[test]
    fn fires_on_dropped_grants_and_swallowed_allowances() {
        let mut sm = SourceMap::new();
        let layers = vec![
            LayerBuilder::new("a.ral")
                .dead("nvm:")
                .read("/home/u/.ssh/known_hosts")
                .read("/home/u/src")
                .deny("/home/u/.SSH")
                .exec_dir("/opt/x/", Allow)
                .build(&mut sm),
            LayerBuilder::new("b.ral")
                .exec_dir("/opt/", Deny)
                .build(&mut sm),
        ];
        let f = check(&DeadGrantLint, &layers, &sm);
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f[0].message.contains("`nvm:` grants nothing"));
        assert!(f[1].message.contains("`/home/u/.ssh/known_hosts`"));
        assert!(f[2].message.contains("`/opt/x/`"));
    }

    #[test]
    fn is_silent_on_live_grants() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .read("/home/u")
            .deny("/home/u/.ssh")
            .exec_dir("/opt/", Deny)
            .exec_dir("/opt/x/", Allow) // same layer: the deeper allowance wins
            .build(&mut sm)];
        assert!(check(&DeadGrantLint, &layers, &sm).is_empty());
    }
}
