//! `redundant-entry`: an entry another entry of the same layer and the same polarity
//! already covers (a read prefix beneath a read or write prefix — writing reads —, a write
//! beneath a write, a deny beneath a deny, an exec directory beneath a directory of the
//! same policy with nothing of the other policy between them). Reads one layer at a time.

use super::judge::{at, depth, ExecIndex, FsIndex, PathIndex};
use super::{Finding, Level, Lint, LintInfo, LintInput};
use crate::capability::layer::{ExecKey, ExecRule, FsEntry, Origin};
use crate::freeze::places::{read_head, Head, Place};
use crate::typecheck::profile::{ExecKeyForm, ExecPolicy};

pub static INFO: LintInfo = LintInfo {
    name: "redundant-entry",
    default_level: Level::Warn,
    authoring: true,
    summary: "an entry another entry of the same layer already covers",
    what: "Reports an entry that adds nothing to its layer because another entry of the same layer and polarity covers it: a read prefix beneath a read or write prefix (writing reads), a write prefix beneath a write prefix, an exclusion beneath an exclusion, an exec directory beneath a directory with the same policy and no key of the other policy between them. Of two entries naming the same place, the later is reported. An entry is reported only when the cover holds on every machine: both entries are absolute paths, or both open with the same place (`gitdir:/hooks` under `gitdir:`). A selector (`path:`, `system:`, …) or a place the other entry does not share (`tempdir:` inside `/tmp`, `~/src` inside `/home`) is never judged redundant: where it lands depends on the machine.",
    why: "Redundant entries make a profile longer to review and hide which entry decides; removing the covering entry later silently changes what the redundant one was thought to do.",
    example: "[\n  fs: [read: ['~/src', '~/src/app']],\n]",
    fix: "Remove the covered entry (or the covering one, if the narrower was meant).",
};

pub struct RedundantEntry;

/// What an entry's place depends on: `None` for an absolute path, the place for a place
/// (`~`, `cwd:`, `tempdir:`, `gitdir:`, `xdg:KIND`), and `Machine` for a selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor<'a> {
    Absolute,
    Place(Place<'a>),
    Machine,
}

fn anchor(written: &str) -> Anchor<'_> {
    match read_head(written) {
        Head::Place { place, .. } => Anchor::Place(place),
        Head::Selector(_) | Head::SelectorWithSub(..) | Head::UnknownSelector(_) => Anchor::Machine,
        Head::BadTilde | Head::Path => Anchor::Absolute,
    }
}

/// Whether `cover` covering `e` holds on every machine, not only this one: both are
/// absolute paths, or both open with the same place (`gitdir:/hooks` under `gitdir:`).
/// A selector, or a place where the other is not (`tempdir:` inside `/tmp`, `~/x` inside
/// `/home`), lands where the machine puts it: never redundant by accident of this host.
fn covers_everywhere(e: &Origin, cover: &Origin) -> bool {
    let (a, b) = (anchor(&e.written), anchor(&cover.written));
    a == b && a != Anchor::Machine
}

fn earlier(a: &Origin, b: &Origin) -> bool {
    (a.span.file, a.span.start) < (b.span.file, b.span.start)
}

fn fs_cover<'a>(
    e: &'a FsEntry,
    idx: &PathIndex<'a, FsEntry>,
    same_kind: bool,
) -> Option<&'a FsEntry> {
    let own = depth(e.path.real().as_str());
    idx.covering(e.path.real().as_str())
        .into_iter()
        .find(|(d, c)| {
            !std::ptr::eq(*c, e)
                && covers_everywhere(&e.origin, &c.origin)
                && (*d < own || !same_kind || earlier(&c.origin, &e.origin))
        })
        .map(|(_, c)| c)
}

fn push(out: &mut Vec<Finding>, what: &str, e: &Origin, by: &Origin) {
    out.push(
        super::finding(
            format!(
                "the {what} `{}` is already covered by `{}` ({})",
                e.written,
                by.written,
                at(by)
            ),
            Some(e.span),
        )
        .with_label(by.span, "covered by this entry")
        .with_help("remove the covered entry"),
    );
}

fn exec_cover<'a>(
    r: &'a ExecRule,
    x: &ExecIndex<'a>,
    eligible: impl Fn(&ExecRule) -> bool,
) -> Option<&'a ExecRule> {
    let ExecKey::Dir(p) = &r.key else {
        return None;
    };
    let path = p.real().as_str();
    let own = depth(path);
    let (same, other) = match r.policy {
        ExecPolicy::Allow => (&x.dir_allow, &x.dir_deny),
        ExecPolicy::Deny => (&x.dir_deny, &x.dir_allow),
        ExecPolicy::Subcommands(_) => return None,
    };
    let cover = same.covering(path).into_iter().find(|(d, c)| {
        !std::ptr::eq(*c, r)
            && eligible(c)
            && covers_everywhere(&r.origin, &c.origin)
            && c.policy == r.policy
            && (*d < own || earlier(&c.origin, &r.origin))
    })?;
    // nothing of the other policy at a depth in (cover, own]
    let between = other.covering(path).into_iter().any(|(d, _)| d >= cover.0);
    (!between).then_some(cover.1)
}

impl Lint for RedundantEntry {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        let selectors: std::collections::BTreeSet<crate::diag::Span> = input
            .typed
            .iter()
            .filter_map(|t| t.exec.as_ref())
            .flat_map(|e| e.value.iter())
            .filter(|e| matches!(e.form, ExecKeyForm::Selector(_)))
            .map(|e| e.key_span)
            .collect();
        let index = input.index();
        for (i, layer) in input.layers.iter().enumerate() {
            if let Some(fs) = &layer.fs {
                // the run's index of this layer's fs (built here when it has none)
                let own;
                let idx = match index.fs.iter().find(|(l, _)| *l == i) {
                    Some((_, idx)) => idx,
                    None => {
                        own = FsIndex::new(fs);
                        &own
                    }
                };
                for e in &fs.read {
                    if let Some(c) =
                        fs_cover(e, &idx.write, false).or_else(|| fs_cover(e, &idx.read, true))
                    {
                        push(out, "read prefix", &e.origin, &c.origin);
                    }
                }
                for e in &fs.write {
                    if let Some(c) = fs_cover(e, &idx.write, true) {
                        push(out, "write prefix", &e.origin, &c.origin);
                    }
                }
                for e in &fs.deny {
                    if let Some(c) = fs_cover(e, &idx.deny, true) {
                        push(out, "exclusion", &e.origin, &c.origin);
                    }
                }
            }
            let own;
            let x = match index.exec.iter().find(|(l, _)| *l == i) {
                Some((_, x)) => Some(x),
                None => {
                    own = ExecIndex::new(layer);
                    own.as_ref()
                }
            };
            if let Some(x) = x {
                for r in x.rules {
                    // a selector's directories depend on the machine (`path:` names
                    // `/usr/bin` here, not there): never redundant by accident of PATH
                    if selectors.contains(&r.origin.span) {
                        continue;
                    }
                    if let Some(c) = exec_cover(r, x, |c| !selectors.contains(&c.origin.span)) {
                        push(out, "exec directory", &r.origin, &c.origin);
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
    fn fires_on_covered_entries() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .read("/home/u/src/app")
            .read("/home/u/src")
            .read("/tmp/x")
            .write("/tmp")
            .write("/tmp")
            .deny("/home/u/.ssh")
            .deny("/home/u/.SSH/id")
            .exec_dir("/usr/", Allow)
            .exec_dir("/usr/bin/", Allow)
            .build(&mut sm)];
        let f = check(&RedundantEntry, &layers, &sm);
        let msgs: Vec<_> = f.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(f.len(), 5, "{msgs:#?}");
        assert!(msgs[0].starts_with("the read prefix `/home/u/src/app`"));
        assert!(msgs[1].starts_with("the read prefix `/tmp/x`"));
        assert!(msgs[2].starts_with("the write prefix `/tmp`"));
        assert!(msgs[3].starts_with("the exclusion `/home/u/.SSH/id`"));
        assert!(msgs[4].starts_with("the exec directory `/usr/bin/`"));
    }

    #[test]
    fn a_machine_dependent_place_or_selector_is_never_redundant() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/")
            .read_real("tempdir:", "/tmp")
            .read_real("gitdir:", "/home/u/p/.git")
            .write_real("xdg:cache", "/home/u/.cache")
            .read_real("~/src", "/home/u/src")
            .read_real("path:", "/usr/bin")
            .exec_dir("/usr/", Allow)
            .exec_dir_real("~/.cargo/bin/", "/usr/local/cargo/bin/", Allow)
            .build(&mut sm)];
        let f = check(&RedundantEntry, &layers, &sm);
        assert!(
            f.is_empty(),
            "{:#?}",
            f.iter().map(|f| &f.message).collect::<Vec<_>>()
        );
        // the same place on both sides covers everywhere
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .read_real("gitdir:", "/home/u/p/.git")
            .read_real("gitdir:/hooks", "/home/u/p/.git/hooks")
            .read_real("~", "/home/u")
            .read_real("~/src", "/home/u/src")
            .build(&mut sm)];
        let f = check(&RedundantEntry, &layers, &sm);
        let msgs: Vec<_> = f.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:#?}");
        assert!(
            msgs[0].starts_with("the read prefix `gitdir:/hooks`"),
            "{msgs:#?}"
        );
        assert!(msgs[1].starts_with("the read prefix `~/src`"), "{msgs:#?}");
    }

    #[test]
    fn is_silent_when_each_entry_adds_something() {
        let mut sm = SourceMap::new();
        let layers = vec![
            LayerBuilder::new("a.ral")
                .read("/home/u/src")
                .read("/home/u/srcs")
                .exec_dir("/usr/", Allow)
                .exec_dir("/usr/local/", Deny)
                .exec_dir("/usr/local/bin/", Allow)
                .build(&mut sm),
            // the same prefix in another layer is not redundant
            LayerBuilder::new("b.ral")
                .read("/home/u/src")
                .build(&mut sm),
        ];
        assert!(check(&RedundantEntry, &layers, &sm).is_empty());
    }
}
