//! The lint registry: one file per lint, each with its page, default level and check over
//! the frozen stack. Lints report; they never change a verdict, and they never read the
//! disk (the freeze already did, once).
//!
//! `run_layers` is the entry point: every registered lint runs over the layers, each
//! finding becomes a [`Diagnostic`] whose code is the lint's name, at the level the command
//! line (`-A/-W/-D`) and the profiles' `# ralc: allow(LINT) reason` directives give it.

pub mod broad_write;
pub mod dead_grant;
pub mod deputy;
pub mod directive;
pub mod docs;
pub mod envelope_replaced;
pub mod exclusion_without_allowance;
pub mod host_run_writable;
pub mod judge;
pub mod legacy_form;
pub mod lint_directive;
pub mod redundant_entry;
pub mod registry;
pub mod seatbelt_size;
pub mod secret_exposure;
pub mod self_writable;

use crate::capability::layer::Capabilities;
use crate::diag::{Diagnostic, Severity, SourceMap, Span};
use crate::path::frozen::RealPath;
use crate::typecheck::profile::TypedProfile;
use std::collections::BTreeMap;

/// A lint's level. `Note` is only ever a default (a lint that informs); `-W` raises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Allow,
    Note,
    Warn,
    Deny,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Note => "note",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
    /// The severity of a finding at this level (`None`: not reported).
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Allow => None,
            Level::Note => Some(Severity::Note),
            Level::Warn => Some(Severity::Warning),
            Level::Deny => Some(Severity::Error),
        }
    }
}

/// A lint's page and default: what `ralc explain LINT` and `docs/lints.md` print.
#[derive(Debug)]
pub struct LintInfo {
    /// `deputy-prefix`.
    pub name: &'static str,
    pub default_level: Level,
    /// A finding about how one file is written (not about what the stack grants): not
    /// reported inside embedded standard profiles (`std:NAME`), which users cannot edit
    /// and which are written to serve every machine.
    pub authoring: bool,
    /// One line.
    pub summary: &'static str,
    /// What it finds.
    pub what: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A profile (or stack) that makes it fire.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

/// Places some lints need to name (`~`, `xdg:config`), as the freeze resolved them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    pub home: Option<RealPath>,
    pub xdg_config: Option<RealPath>,
    /// The working directory and the git directory (`cwd:`, `gitdir:`), real.
    pub cwd: Option<RealPath>,
    pub gitdir: Option<RealPath>,
}

/// What a lint's check reads.
#[derive(Clone, Copy, Debug)]
pub struct LintInput<'a> {
    /// The frozen layers, root first, as the stack holds them.
    pub layers: &'a [Capabilities],
    pub typed: &'a [TypedProfile],
    pub sources: &'a SourceMap,
    pub places: &'a Places,
    /// The composed stack, when there is one: fs judgments are then the model's.
    pub stack: Option<&'a crate::capability::stack::GrantStack>,
    /// These layers (and this stack) already indexed, shared by the lints of one run
    /// (`run_layers` builds it once); `None`: each `index()` builds its own.
    pub index: Option<&'a judge::StackIndex<'a>>,
}

impl<'a> LintInput<'a> {
    /// The layers indexed, judged by the model when a stack is present: the run's shared
    /// index when there is one.
    pub fn index(&self) -> IndexRef<'a> {
        match self.index {
            Some(shared) => IndexRef::Shared(shared),
            None => IndexRef::Own(Box::new(self.build_index())),
        }
    }
    fn build_index(&self) -> judge::StackIndex<'a> {
        match self.stack {
            Some(st) => judge::StackIndex::of_stack(st),
            None => judge::StackIndex::new(self.layers),
        }
    }
}

/// A `StackIndex`, shared by a run's lints or built for one.
pub enum IndexRef<'a> {
    Shared(&'a judge::StackIndex<'a>),
    Own(Box<judge::StackIndex<'a>>),
}

impl<'a> std::ops::Deref for IndexRef<'a> {
    type Target = judge::StackIndex<'a>;
    fn deref(&self) -> &judge::StackIndex<'a> {
        match self {
            IndexRef::Shared(s) => s,
            IndexRef::Own(s) => s,
        }
    }
}

impl Places {
    /// `~` and `xdg:config` as the freeze anchor resolves them (real).
    pub fn from_ctx(ctx: &crate::freeze::FreezeCtx) -> Places {
        use crate::path::basedir::{resolve_xdg_in, XdgKind};
        let home = ctx.home().and_then(|h| ctx.real_of(h).ok());
        let xdg_config = resolve_xdg_in(
            XdgKind::Config,
            |k| ctx.var(k).map(str::to_string),
            ctx.home(),
            ctx.rules(),
        )
        .and_then(|(p, _)| ctx.real_of(&p).ok());
        use crate::capability::resolve::Resolve;
        let cwd = Some(RealPath::from_resolved(ctx.cwd()));
        let gitdir = crate::freeze::gitdir::discover(ctx)
            .ok()
            .and_then(|g| ctx.real_of(&g).ok());
        Places {
            home,
            xdg_config,
            cwd,
            gitdir,
        }
    }
}

/// One finding of one lint: a [`Diagnostic`], built with the diagnostic model's own
/// builder from [`finding`], whose code (the lint's name) and severity (its level) the
/// runner applies (`leveled`).
pub type Finding = Diagnostic;

/// A finding saying `message` at `span`, its code and level not yet applied.
pub fn finding(message: impl Into<String>, span: Option<Span>) -> Finding {
    let mut d = Diagnostic::note("", message);
    d.span = span;
    d
}

/// A registered lint.
pub trait Lint: Sync {
    fn info(&self) -> &'static LintInfo;
    /// Push every finding over `input`. Must not panic on any input.
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>);
}

/// The registered lint with this name, if any.
pub fn lookup(name: &str) -> Option<&'static dyn Lint> {
    registry::all()
        .iter()
        .copied()
        .find(|l| l.info().name == name)
}

/// The page `ralc explain LINT` prints, or `None` for a name that is not a lint.
pub fn explain_page(name: &str) -> Option<String> {
    lookup(name).map(|l| docs::page(l.info()))
}

/// The command line's lint levels (`-A/-W/-D LINT`), over the registry's defaults, and
/// the lints it forbids (`--forbid LINT`, like rustc's `-F`): denied, and no directive of
/// a profile lowers them (the reviewer's CI levels win over the reviewed file's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintLevels {
    set: BTreeMap<&'static str, Level>,
    forbidden: std::collections::BTreeSet<&'static str>,
}

impl LintLevels {
    /// Levels from `-A`, `-W`, `-D` (applied in that order: a lint named twice takes the
    /// strictest). An unknown lint name is an error naming it (a usage error).
    pub fn from_cli(allow: &[String], warn: &[String], deny: &[String]) -> Result<Self, String> {
        let mut l = LintLevels::default();
        for (names, level) in [
            (allow, Level::Allow),
            (warn, Level::Warn),
            (deny, Level::Deny),
        ] {
            for n in names {
                l.set(n, level)?;
            }
        }
        Ok(l)
    }
    /// Forbid these lints (`--forbid LINT`): each is denied and a profile's directive
    /// cannot lower it. An unknown lint name is an error naming it (a usage error).
    pub fn forbid(mut self, names: &[String]) -> Result<Self, String> {
        for n in names {
            self.set(n, Level::Deny)?;
            if let Some(lint) = lookup(n) {
                self.forbidden.insert(lint.info().name);
            }
        }
        Ok(self)
    }
    /// Whether the command line forbids this lint (no directive lowers it).
    pub fn is_forbidden(&self, info: &LintInfo) -> bool {
        self.forbidden.contains(info.name)
    }
    /// Set one lint's level.
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), String> {
        let Some(lint) = lookup(name) else {
            return Err(format!(
                "unknown lint `{name}`; the lints are: {}",
                registry::all()
                    .iter()
                    .map(|l| l.info().name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        self.set.insert(lint.info().name, level);
        Ok(())
    }
    /// The level of a lint (its default when the command line did not set it).
    pub fn level(&self, info: &LintInfo) -> Level {
        self.set
            .get(info.name)
            .copied()
            .unwrap_or(info.default_level)
    }
}

/// Run every lint over a composed stack (its layers, judged by the model), with the typed
/// profiles and the places of the freeze anchor. See [`run_layers`].
pub fn run(
    stack: &crate::capability::stack::GrantStack,
    typed: &[TypedProfile],
    sources: &SourceMap,
    levels: &LintLevels,
    ctx: &crate::freeze::FreezeCtx,
) -> Vec<Diagnostic> {
    let places = Places::from_ctx(ctx);
    let input = LintInput {
        layers: stack.layers(),
        typed,
        sources,
        places: &places,
        stack: Some(stack),
        index: None,
    };
    run_layers(&input, levels)
}

/// The lint findings of a compile, for `ralc check`: over the composed stack when there
/// is one, else over the layers that froze (so a file with an error elsewhere still gets
/// its findings). Append them to `compiled.diagnostics`; a denied lint's are errors.
pub fn for_compiled(compiled: &crate::pipeline::Compiled, levels: &LintLevels) -> Vec<Diagnostic> {
    match &compiled.stack {
        Some(stack) => run(
            stack,
            &compiled.typed,
            &compiled.sources,
            levels,
            &compiled.ctx,
        ),
        None => {
            let places = Places::from_ctx(&compiled.ctx);
            let input = LintInput {
                layers: &compiled.layers,
                typed: &compiled.typed,
                sources: &compiled.sources,
                places: &places,
                stack: None,
                index: None,
            };
            run_layers(&input, levels)
        }
    }
}

/// Run every lint over the layers; findings at their levels (command line, then the
/// profiles' directives, which win for their scope), sorted. A denied lint's findings
/// are errors. Also reports malformed directives (`lint-directive`).
pub fn run_layers(input: &LintInput<'_>, levels: &LintLevels) -> Vec<Diagnostic> {
    // the layers indexed once for every lint (each would otherwise build its own)
    let shared = match input.index {
        Some(_) => None,
        None => Some(input.build_index()),
    };
    let with_index;
    let input = match &shared {
        Some(idx) => {
            with_index = LintInput {
                index: Some(idx),
                ..*input
            };
            &with_index
        }
        None => input,
    };
    let directives = directive::Directives::parse(input.sources);
    let mut out = Vec::new();
    for lint in registry::all() {
        let info = lint.info();
        let mut findings = Vec::new();
        if info.name == lint_directive::INFO.name {
            lint_directive::findings(&directives, &mut findings);
        } else {
            lint.check(input, &mut findings);
        }
        for f in findings {
            if info.authoring && in_std_profile(&f, input.sources) {
                continue;
            }
            let level = if levels.is_forbidden(info) {
                Level::Deny
            } else {
                directive_level(&directives, info.name, &f, input.sources)
                    .unwrap_or_else(|| levels.level(info))
            };
            if let Some(sev) = level.severity() {
                out.push(leveled(info, sev, f));
            }
        }
    }
    crate::diag::sort(&mut out);
    out.dedup();
    out
}

/// The level the profiles' directives (`directive::Directives::parse(sources)`) give a
/// finding of `lint`, if any (for callers that report one lint alone, as `ralc deputy`).
pub fn directive_level_of(
    directives: &directive::Directives,
    lint: &str,
    f: &Finding,
    sources: &SourceMap,
) -> Option<Level> {
    directive_level(directives, lint, f, sources)
}

fn in_std_profile(f: &Finding, sources: &SourceMap) -> bool {
    f.span
        .and_then(|s| sources.try_get(s.file))
        .is_some_and(|file| file.name.starts_with("std:"))
}

fn directive_level(
    d: &directive::Directives,
    lint: &str,
    f: &Finding,
    sources: &SourceMap,
) -> Option<Level> {
    f.span
        .iter()
        .chain(f.labels.iter().map(|l| &l.span))
        .find_map(|s| d.level_at(lint, *s, sources))
}

/// The finding of the lint `info` reported at the severity of its level.
pub(crate) fn leveled(info: &LintInfo, sev: Severity, mut f: Finding) -> Diagnostic {
    f.code = info.name.to_string();
    f.severity = sev;
    f
}

/// The SARIF rules: every lint, then every registered diagnostic code, with a friendly
/// name, the explain page as help text and its page in `docs/` as help URI.
pub fn sarif_rules() -> Vec<crate::diag::sarif::Rule> {
    let mut v: Vec<crate::diag::sarif::Rule> = registry::all()
        .iter()
        .map(|l| {
            let i = l.info();
            crate::diag::sarif::Rule {
                id: i.name.to_string(),
                short: i.summary.to_string(),
                full: format!("{}\n\n{}", i.what, i.why),
                help: docs::page(i),
                name: crate::diag::sarif::friendly_name(i.name),
                help_uri: crate::diag::sarif::doc_uri(&format!("docs/lints.md#{}", i.name)),
                level: i.default_level.severity(),
            }
        })
        .collect();
    for c in crate::registry::all() {
        v.push(crate::diag::sarif::Rule {
            id: c.code.to_string(),
            short: c.title.to_string(),
            full: c.meaning.to_string(),
            help: crate::registry::explain_page(c),
            name: crate::diag::sarif::friendly_name(c.title),
            help_uri: crate::diag::sarif::doc_uri(&format!(
                "docs/codes.md#{}",
                c.code.to_ascii_lowercase()
            )),
            level: Some(Severity::Error),
        });
    }
    v
}

/// The SARIF log of a run's diagnostics (errors and lint findings alike), with every
/// rule; `cwd` (absolute) makes artifact URIs relative to it. For `--format sarif`.
pub fn sarif_report(diags: &[Diagnostic], sources: &SourceMap, cwd: Option<&str>) -> String {
    crate::diag::sarif::render_with(
        diags,
        sources,
        &sarif_rules(),
        &crate::diag::sarif::Options {
            cwd: cwd.map(str::to_string),
        },
    )
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sarif_rules_have_unique_ids_and_pascal_case_friendly_names() {
        let rules = sarif_rules();
        let ids: std::collections::BTreeSet<_> = rules.iter().map(|r| &r.id).collect();
        let names: std::collections::BTreeSet<_> = rules.iter().map(|r| &r.name).collect();
        assert_eq!(ids.len(), rules.len());
        assert_eq!(names.len(), rules.len(), "two rules share a friendly name");
        for r in &rules {
            assert!(
                r.name.starts_with(|c: char| c.is_ascii_uppercase())
                    && r.name.chars().all(|c| c.is_ascii_alphanumeric())
                    && !r
                        .name
                        .as_bytes()
                        .windows(2)
                        .any(|w| { w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() }),
                "{}: {}",
                r.id,
                r.name
            );
        }
    }

    #[test]
    fn cli_levels_reject_unknown_lints_and_take_the_strictest() {
        assert!(LintLevels::from_cli(&["nope".into()], &[], &[])
            .unwrap_err()
            .contains("unknown lint `nope`"));
        let l = LintLevels::from_cli(&["dead-grant".into()], &[], &["dead-grant".into()]).unwrap();
        assert_eq!(l.level(&dead_grant::INFO), Level::Deny);
        let l = LintLevels::default();
        assert_eq!(l.level(&dead_grant::INFO), Level::Warn);
    }

    #[test]
    fn lookup_and_explain() {
        assert!(lookup("deputy-prefix").is_some());
        assert!(lookup("E0201").is_none());
        let page = explain_page("deputy-prefix").unwrap();
        assert!(page.starts_with("deputy-prefix"));
        assert!(explain_page("no-such-lint").is_none());
    }
}
