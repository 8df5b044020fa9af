//! The freeze (spec §3): places, selectors and toolchains expanded, every path frozen
//! once against one `FreezeCtx`, turning a typed profile into `Capabilities`. The only
//! disk consultation before a launch, and only through its file-system trait (`Disk`).
//! It never widens a grant silently: an entry it cannot freeze is an error with the
//! entry's span, and one that cannot take effect here is a recorded dead grant.

pub mod carrier;
pub mod codes;
pub mod ctx;
pub mod disk;
pub mod eligibility;
pub mod gitdir;
pub mod links;
pub mod places;
pub mod toolchains;

pub use codes::{CODES, NEEDS_ANCHOR};
pub use ctx::{Anchor, FreezeCtx, RealError};
pub use disk::{Disk, EntryKind, MemDisk, MemEntry, RealDisk};

use crate::capability::layer::{
    Capabilities, DeadGrant, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, LayerSource,
    NetOffline, Origin, VerbSet,
};
use crate::diag::{Diagnostic, SourceMap, Span};
use crate::path::device::reserved_device_refusal;
use crate::path::frozen::{FrozenPath, RealPath};
use crate::path::identity::{path_within, Identity};
use crate::path::lex::{fold_dots_under, is_bare_root, PathRules};
use crate::typecheck::profile::{ExecEntry, NetOpinion, PathEntry, TypedProfile};
use eligibility::{grant_eligibility, EligibleOn, GrantRefusal};
use places::{expand_place, read_head, Head};
use std::sync::Arc;
use toolchains::{expand_in, ExpandError, Selector};

/// A refusal before it is placed at a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
}

impl Failure {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            help: None,
        }
    }
    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
    fn at(self, span: Span) -> Diagnostic {
        let d = Diagnostic::error(self.code, self.message).at(span);
        match self.help {
            Some(h) => d.with_help(h),
            None => d,
        }
    }
}

/// What one written entry froze to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// One path (a place or an absolute path).
    One(FrozenPath),
    /// The directories a selector expanded to (never empty).
    Many(Vec<FrozenPath>),
    /// It cannot take effect on this host: the reason.
    Dead(String),
}

/// Which role an entry plays (fs entries are checked for reserved device names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Fs,
    Exec,
}

use crate::path::lex::{MAX_COMPONENTS, PATH_MAX_BYTES};

fn real_failure(written: &str, e: RealError) -> Failure {
    match e {
        RealError::NotUnicode(shown) => Failure::new(
            codes::E0312,
            format!("`{written}` resolves to `{shown}`, which is not Unicode"),
        )
        .help("a real path must be Unicode to be granted; rename it or grant another path"),
        RealError::NotAbsolute => Failure::new(
            codes::E0301,
            format!("`{written}` does not freeze to an absolute path"),
        ),
        RealError::TooLong => Failure::new(
            codes::E0323,
            format!(
                "`{}` is longer than {PATH_MAX_BYTES} bytes or {MAX_COMPONENTS} components",
                crate::diag::escape::clip(written, 64)
            ),
        )
        .help("no real path is that long; shorten it"),
    }
}

fn freeze_surface(ctx: &FreezeCtx, surface: &str, written: &str) -> Result<FrozenPath, Failure> {
    ctx.freeze_path(surface)
        .map_err(|e| real_failure(written, e))
}

fn world(written: &str, from: &str, value: &str) -> Failure {
    Failure::new(
        codes::E0316,
        format!("`{written}` would grant the whole file system: {from} names the root `{value}`"),
    )
    .help("remove the root from the variable; a grant never names the world through a selector")
}

fn relative(written: &str) -> Failure {
    Failure::new(
        codes::E0301,
        format!("`{written}` is a relative path; grants take places, selectors or absolute paths"),
    )
    .help(format!(
        "write `cwd:{}` for a path under the working directory",
        written.trim_start_matches("./")
    ))
}

/// Expand a selector to frozen directories.
fn freeze_selector(ctx: &FreezeCtx, sel: Selector, written: &str) -> Result<Outcome, Failure> {
    let rules = ctx.rules();
    let env = |k: &str| ctx.var(k).map(str::to_string);
    let is_dir = |p: &str| ctx.disk().kind(p) == Some(EntryKind::Dir);
    let exp = match expand_in(sel, rules, &env, ctx.home(), &is_dir) {
        Ok(x) => x,
        Err(ExpandError::World { from, value }) => return Err(world(written, &from, &value)),
        Err(ExpandError::NoAbsolutePathEntry) => {
            return Err(Failure::new(
                codes::E0317,
                format!("`{written}`: `PATH` has no absolute entry"),
            )
            .help("`path:` grants the absolute PATH entries; set PATH, or name directories"))
        }
        Err(ExpandError::Rerooting { from, value }) => {
            return Err(Failure::new(
                codes::E0307,
                format!("`{written}`: {from}=`{value}` re-roots its sub-path"),
            ))
        }
    };
    let mut out = Vec::new();
    for d in exp.dirs {
        let f = freeze_surface(ctx, &d.dir, written)?;
        // refuse the world on the real form too: a symlink to `/` is the root
        if is_bare_root(f.real().as_str(), rules) {
            return Err(world(
                written,
                &d.from,
                &format!("{} → {}", d.dir, f.real()),
            ));
        }
        if !out.contains(&f) {
            out.push(f);
        }
    }
    if out.is_empty() {
        let why = if exp.skipped.is_empty() {
            "no location is known on this host".to_string()
        } else {
            exp.skipped.join("; ")
        };
        return Ok(Outcome::Dead(format!(
            "`{written}` expands to no existing directory here ({why})"
        )));
    }
    Ok(Outcome::Many(out))
}

/// Freeze an absolute path of some family.
fn freeze_absolute(ctx: &FreezeCtx, text: &str, role: Role) -> Result<Outcome, Failure> {
    let host = ctx.rules();
    let on = match grant_eligibility(text) {
        Ok(on) => on,
        Err(GrantRefusal::Relative) => return Err(relative(text)),
        Err(GrantRefusal::Device) => {
            if role == Role::Fs && crate::path::device::is_discard_device(text, PathRules::Windows)
            {
                return Ok(Outcome::Dead(format!(
                    "`{text}` is the Windows discard device, always permitted"
                )));
            }
            return Err(Failure::new(
                codes::E0308,
                format!("`{text}` opens the device namespace (`\\\\.\\`); a grant names files"),
            ));
        }
        Err(GrantRefusal::Malformed) => {
            return Err(Failure::new(
                codes::E0309,
                format!("`{text}` has a malformed head: no drive, share or device"),
            )
            .help("a share is `//server/share/…`; a drive is `C:\\…`"))
        }
        Err(GrantRefusal::MixedHead) => {
            return Err(Failure::new(
                codes::E0310,
                format!("`{text}` opens with mixed separators"),
            )
            .help("write `/` or `\\\\` consistently at the head"))
        }
        Err(GrantRefusal::NtObject) => {
            return Err(Failure::new(
                codes::E0311,
                format!("`{text}` is an NT object-manager path (`\\??\\`)"),
            )
            .help("write the Win32 path (`C:\\…`) instead"))
        }
    };
    if role == Role::Fs && (on != EligibleOn::Posix || host == PathRules::Windows) {
        if let Some((message, hint)) = reserved_device_refusal(text) {
            let f = Failure::new(codes::E0321, message);
            return Err(match hint {
                Some(h) => f.help(h),
                None => f,
            });
        }
    }
    if !on.includes(host) {
        let family = match on {
            EligibleOn::Windows => "a Windows path",
            _ => "a POSIX path",
        };
        return Ok(Outcome::Dead(format!(
            "`{text}` is {family}, which cannot take effect on this {} host",
            host.name()
        )));
    }
    Ok(Outcome::One(freeze_surface(
        ctx,
        &fold_dots_under(text, host),
        text,
    )?))
}

/// Freeze one written entry: a place, a selector, or an absolute path.
fn freeze_text(ctx: &FreezeCtx, text: &str, role: Role) -> Result<Outcome, Failure> {
    match read_head(text) {
        Head::Place { place, sub } => {
            let surface = match expand_place(ctx, place, sub, text) {
                Ok(s) => s,
                // Frozen for another OS, a home or working directory not given is a dead
                // grant: this host's own cannot stand in for it.
                Err(f) if ctx.is_foreign() && matches!(f.code, codes::E0302 | codes::E0322) => {
                    return Ok(Outcome::Dead(format!(
                        "{} (frozen for another OS: give it with --home / --cwd)",
                        f.message
                    )));
                }
                Err(f) => return Err(f),
            };
            if role == Role::Fs && ctx.rules() == PathRules::Windows {
                if let Some((m, h)) = reserved_device_refusal(&surface) {
                    let f = Failure::new(codes::E0321, m);
                    return Err(match h {
                        Some(h) => f.help(h),
                        None => f,
                    });
                }
            }
            Ok(Outcome::One(freeze_surface(ctx, &surface, text)?))
        }
        Head::Selector(s) => freeze_selector(ctx, s, text),
        Head::SelectorWithSub(s, sub) => Err(Failure::new(
            codes::E0319,
            format!(
                "`{text}`: the selector `{}:` takes no sub-path (`{sub}`)",
                s.name()
            ),
        )
        .help(format!("write `{}:`", s.name()))),
        Head::UnknownSelector(name) => Err(Failure::new(
            codes::E0318,
            format!(
                "unknown selector `{name}:`; the selectors are {}",
                Selector::known()
            ),
        )),
        Head::BadTilde => Err(Failure::new(
            codes::E0303,
            format!("`{text}`: only `~` and `~/sub` name the home directory"),
        )
        .help("write `~/…`; another user's home is named by its absolute path")),
        Head::Path => freeze_absolute(ctx, text, role),
    }
}

/// Freeze one written path as the freeze would (for tools and tests).
pub fn freeze_entry(ctx: &FreezeCtx, text: &str) -> Result<Outcome, Failure> {
    freeze_text(ctx, text, Role::Fs)
}

fn origin(sources: &SourceMap, source: &LayerSource, span: Span, written: &str) -> Origin {
    let (file, line, column) = match sources.try_get(span.file) {
        Some(f) => {
            let (l, c) = f.line_col(span.start);
            (f.name.clone(), l, c)
        }
        None => (source.name.clone(), 0, 0),
    };
    Origin {
        file,
        line,
        column,
        span,
        written: written.into(),
    }
}

/// Whether an exec key is a bare command name: no separator of either family, and not
/// absolute under either rule set.
fn is_bare_name(text: &str) -> bool {
    !text.is_empty() && !text.contains(['/', '\\']) && grant_eligibility(text).is_err()
}

struct Out<'a> {
    sources: &'a SourceMap,
    source: &'a LayerSource,
    diags: Vec<Diagnostic>,
    dead: Vec<DeadGrant>,
}

impl Out<'_> {
    fn origin(&self, span: Span, written: &str) -> Origin {
        origin(self.sources, self.source, span, written)
    }
}

fn freeze_exec_entry(ctx: &FreezeCtx, e: &ExecEntry, out: &mut Out<'_>) -> Vec<ExecRule> {
    let text = e.key.as_str();
    let o = out.origin(e.key_span, text);
    let rule = |key: ExecKey| ExecRule {
        key,
        policy: e.policy.clone(),
        origin: o.clone(),
    };
    let head = read_head(text);
    if head == Head::Path && is_bare_name(text) {
        return vec![rule(ExecKey::Name(text.to_string()))];
    }
    let is_dir_key = text.ends_with('/') || text.ends_with('\\');
    match freeze_text(ctx, text, Role::Exec) {
        Err(f) => {
            out.diags.push(f.at(e.key_span));
            Vec::new()
        }
        Ok(Outcome::Dead(reason)) => {
            out.dead.push(DeadGrant { origin: o, reason });
            Vec::new()
        }
        Ok(Outcome::Many(dirs)) => dirs.into_iter().map(|d| rule(ExecKey::Dir(d))).collect(),
        Ok(Outcome::One(p)) => {
            if is_dir_key {
                return vec![rule(ExecKey::Dir(p))];
            }
            if ctx.kind_of(&p) == Some(EntryKind::Dir) {
                out.diags.push(
                    Failure::new(
                        codes::E0320,
                        format!(
                            "the exec key `{text}` names one file, but `{}` is a directory",
                            p.real()
                        ),
                    )
                    .help(format!(
                        "write `{text}/` to allow everything beneath the directory"
                    ))
                    .at(e.key_span),
                );
                return Vec::new();
            }
            vec![rule(ExecKey::File(p))]
        }
    }
}

/// The most entries the `deny_write` patterns of one layer expand to, all together.
pub const EXPANSION_LIMIT: usize = 10_000;

/// The directories a layer's `*` may list: beneath one of its read or write prefixes and
/// beneath none of its exclusions (real paths).
struct Listable {
    granted: Vec<String>,
    denied: Vec<String>,
}

impl Listable {
    fn may_list(&self, dir: &str) -> bool {
        self.granted
            .iter()
            .any(|g| path_within(Identity::Stored, g, dir))
            && !self
                .denied
                .iter()
                .any(|d| path_within(Identity::Stored, d, dir))
    }
}

/// `deny_write` entries: as `freeze_fs_list`, and a component that is exactly `*` stands
/// for each entry (not a symlink) that exists there at the freeze — `'~/.cargo/registry/
/// src/*/*'` is each package unpacked so far, and a package unpacked later is not
/// excluded (docs/language.md). A pattern that matches nothing is a dead grant.
///
/// Bounded and private, failing closed: a `*` is expanded only in a directory the layer
/// grants reading (else that directory is excluded from writing whole, and its names are
/// never listed), and when the layer's patterns together would pass [`EXPANSION_LIMIT`]
/// entries, the pattern that passes it excludes its fixed head (the path before its
/// first `*`) whole instead. Either way more is withheld than written, never less.
fn freeze_deny_write_list(
    ctx: &FreezeCtx,
    list: &Option<Vec<PathEntry>>,
    listable: &Listable,
    out: &mut Out<'_>,
) -> Vec<FsEntry> {
    let Some(list) = list else {
        return Vec::new();
    };
    let (plain, patterns): (Vec<PathEntry>, Vec<PathEntry>) = list
        .iter()
        .cloned()
        .partition(|e| !e.text.split('/').any(|c| c == "*"));
    let mut v = freeze_fs_list(ctx, &Some(plain), out);
    let mut budget = EXPANSION_LIMIT;
    for e in &patterns {
        let o = out.origin(e.span, &e.text);
        let mut texts = vec![e.text.clone()];
        let mut done: Vec<FrozenPath> = Vec::new();
        let mut over = false;
        while let Some(t) = texts.pop() {
            let Some((head, rest)) = t.split_once("/*") else {
                match freeze_text(ctx, &t, Role::Fs) {
                    Ok(Outcome::One(p)) => done.push(p),
                    Ok(Outcome::Many(ps)) => done.extend(ps),
                    Ok(Outcome::Dead(_)) => {}
                    Err(f) => out.diags.push(f.at(e.span)),
                }
                continue;
            };
            if !(rest.is_empty() || rest.starts_with('/')) {
                // `*` inside a name (`a*b`) is a name, not a pattern; only whole components.
                match freeze_text(ctx, &t, Role::Fs) {
                    Ok(Outcome::One(p)) => done.push(p),
                    Ok(_) => {}
                    Err(f) => out.diags.push(f.at(e.span)),
                }
                continue;
            }
            let base = match freeze_text(ctx, head, Role::Fs) {
                Ok(Outcome::One(p)) => p,
                Ok(_) => continue,
                Err(f) => {
                    out.diags.push(f.at(e.span));
                    continue;
                }
            };
            let dir = base.real().as_str().trim_end_matches('/').to_owned();
            if !listable.may_list(base.real().as_str()) {
                // not the layer's to list: the directory itself (when there is one) is
                // withheld from writing
                if ctx.disk().kind(&dir).is_some() {
                    done.push(base);
                }
                continue;
            }
            let mut names = ctx.disk().names(&dir);
            names.sort();
            for n in names {
                texts.push(format!("{dir}/{n}{rest}"));
            }
            if texts.len() + done.len() > budget {
                over = true;
                break;
            }
        }
        if over {
            done.clear();
            let head = e.text.split("/*").next().unwrap_or_default();
            let head = if head.is_empty() { "/" } else { head };
            match freeze_text(ctx, head, Role::Fs) {
                Ok(Outcome::One(p)) => done.push(p),
                Ok(Outcome::Many(ps)) => done.extend(ps),
                Ok(Outcome::Dead(_)) => {}
                Err(f) => out.diags.push(f.at(e.span)),
            }
        }
        budget = budget.saturating_sub(done.len());
        if done.is_empty() {
            out.dead.push(DeadGrant {
                origin: o,
                reason: "a `*` pattern that matches no existing entry".to_string(),
            });
            continue;
        }
        done.sort_by(|a, b| a.real().as_str().cmp(b.real().as_str()));
        done.dedup_by(|a, b| a.real() == b.real());
        v.extend(done.into_iter().map(|p| FsEntry {
            path: p,
            origin: o.clone(),
        }));
    }
    v
}

fn freeze_fs_list(
    ctx: &FreezeCtx,
    list: &Option<Vec<PathEntry>>,
    out: &mut Out<'_>,
) -> Vec<FsEntry> {
    let mut v = Vec::new();
    for e in list.iter().flatten() {
        let o = out.origin(e.span, &e.text);
        match freeze_text(ctx, &e.text, Role::Fs) {
            Err(f) => out.diags.push(f.at(e.span)),
            Ok(Outcome::Dead(reason)) => out.dead.push(DeadGrant { origin: o, reason }),
            Ok(Outcome::One(p)) => v.push(FsEntry { path: p, origin: o }),
            Ok(Outcome::Many(ps)) => v.extend(ps.into_iter().map(|p| FsEntry {
                path: p,
                origin: o.clone(),
            })),
        }
    }
    v
}

/// Freeze one typed profile into one layer. Diagnostics carry the entry's span; an entry
/// that fails is left out of the layer (and the error keeps the layer from launching).
pub fn freeze(
    profile: &TypedProfile,
    source: LayerSource,
    ctx: &FreezeCtx,
    sources: &SourceMap,
) -> (Capabilities, Vec<Diagnostic>) {
    let mut caps = Capabilities::empty(source.clone());
    if profile.is_unit {
        return (caps, Vec::new());
    }
    // one memo of real forms for this freeze: each directory is resolved once
    let ctx = &ctx.memoized();
    let mut out = Out {
        sources,
        source: &source,
        diags: Vec::new(),
        dead: Vec::new(),
    };
    if let Some(exec) = &profile.exec {
        let mut rules = Vec::new();
        for e in &exec.value {
            rules.extend(freeze_exec_entry(ctx, e, &mut out));
        }
        caps.exec = Some(ExecGrant::from_rules(rules));
    }
    if let Some(fs) = &profile.fs {
        let read = freeze_fs_list(ctx, &fs.value.read, &mut out);
        let write = freeze_fs_list(ctx, &fs.value.write, &mut out);
        let deny = freeze_fs_list(ctx, &fs.value.deny, &mut out);
        // a `*` lists only directories this layer grants reading (and does not exclude)
        let listable = Listable {
            granted: read
                .iter()
                .chain(&write)
                .map(|e| e.path.real().as_str().to_owned())
                .collect(),
            denied: deny
                .iter()
                .map(|e| e.path.real().as_str().to_owned())
                .collect(),
        };
        let write_deny = freeze_deny_write_list(ctx, &fs.value.deny_write, &listable, &mut out);
        caps.fs = Some(FsPolicy {
            read,
            write,
            deny,
            write_deny,
        });
    }
    if let Some(net) = &profile.net {
        if net.value == NetOpinion::Offline {
            let written = snippet(sources, net.span, "`offline");
            caps.net = Some(NetOffline {
                origin: out.origin(net.span, &written),
            });
        }
    }
    if let Some(d) = &profile.detach {
        let written = snippet(sources, d.span, if d.value { "true" } else { "false" });
        caps.detach = Some((d.value, out.origin(d.span, &written)));
    }
    if let Some(ed) = &profile.editor {
        caps.editor = Some(verb_set(
            &out,
            sources,
            ed,
            "editor",
            crate::typecheck::profile::EditorVerb::as_str,
        ));
    }
    if let Some(sh) = &profile.shell {
        caps.shell = Some(verb_set(
            &out,
            sources,
            sh,
            "shell",
            crate::typecheck::profile::ShellVerb::as_str,
        ));
    }
    caps.dead = out.dead;
    let mut diags = out.diags;
    crate::diag::sort(&mut diags);
    (caps, diags)
}

/// A verb set as frozen: its verbs, the whole set's origin, and each verb's own (written
/// as the verb's name, however it was spelled).
fn verb_set<V: Ord + Copy>(
    out: &Out<'_>,
    sources: &SourceMap,
    typed: &crate::typecheck::profile::Spanned<std::collections::BTreeMap<V, Span>>,
    key: &str,
    name: fn(V) -> &'static str,
) -> VerbSet<V> {
    let written = snippet(sources, typed.span, key);
    VerbSet {
        verbs: typed.value.keys().copied().collect(),
        origin: out.origin(typed.span, &written),
        at: typed
            .value
            .iter()
            .map(|(v, span)| (*v, out.origin(*span, name(*v))))
            .collect(),
    }
}

fn snippet(sources: &SourceMap, span: Span, fallback: &str) -> String {
    match sources.try_get(span.file) {
        Some(f) if span.end <= f.bytes.len() && span.start < span.end => {
            String::from_utf8_lossy(&f.bytes[span.start..span.end]).into_owned()
        }
        _ => fallback.to_string(),
    }
}

/// The four system-wide package prefixes of the floor (spec §3.5).
pub const FLOOR: [&str; 4] = ["/opt/homebrew", "/opt/local", "/nix", "/opt/pkg"];

/// The floor on this anchor: the `FLOOR` prefixes that exist as directories and lie
/// outside home (judged on real forms), as real paths. Empty on Windows.
pub fn floor(ctx: &FreezeCtx) -> Vec<RealPath> {
    if ctx.rules() != PathRules::Posix {
        return Vec::new();
    }
    let home_real = ctx
        .home()
        .filter(|h| crate::path::lex::absolute_under(h, PathRules::Posix))
        .and_then(|h| ctx.real_of(h).ok());
    let mut out: Vec<RealPath> = Vec::new();
    for p in FLOOR {
        if ctx.disk().kind(p) != Some(EntryKind::Dir) {
            continue;
        }
        let Ok(real) = ctx.real_of(p) else { continue };
        let inside_home = home_real
            .as_ref()
            .is_some_and(|h| path_within(Identity::Stored, h.as_str(), real.as_str()));
        if !inside_home && !out.contains(&real) {
            out.push(real);
        }
    }
    out.sort();
    out
}

/// A layer source for a file named on the command line (helper for callers).
pub fn layer_source(name: &str, role: crate::capability::layer::LayerRole) -> LayerSource {
    LayerSource {
        name: Arc::from(name),
        role,
        path: None,
    }
}

// Unix only: the `*` expansion is checked on a POSIX tree.
#[cfg(test)]
#[cfg(unix)]
mod deny_write_tests {
    use super::*;
    use crate::capability::layer::LayerRole;
    use crate::freeze::disk::MemDisk;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn freeze_text_profile(text: &str, disk: MemDisk) -> (Capabilities, Vec<Diagnostic>) {
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), "/home/u".to_string());
        let ctx = FreezeCtx::from_parts(env, "/home/u/proj".into(), Arc::new(disk));
        let mut sources = SourceMap::new();
        let id = sources.add("p.ral", text.as_bytes().to_vec());
        let (typed, d) = crate::typecheck::check_source(id, text.as_bytes());
        assert!(d.is_empty(), "{d:?}");
        freeze(
            &typed.expect("typed"),
            layer_source("p.ral", LayerRole::Policy),
            &ctx,
            &sources,
        )
    }

    fn reals(v: &[FsEntry]) -> Vec<&str> {
        v.iter().map(|e| e.path.real().as_str()).collect()
    }

    #[test]
    fn deny_write_freezes_into_the_write_exclusions_and_stars_expand_to_what_exists() {
        let disk = MemDisk::new()
            .dir("/home/u/proj/.git/hooks")
            .file("/home/u/.cargo/registry/src/idx-a/libc-1/build.rs", "")
            .dir("/home/u/.cargo/registry/src/idx-a/serde-2")
            .dir("/home/u/.cargo/registry/src/idx-b/log-3")
            .link("/home/u/.cargo/registry/src/idx-b/sneaky", "/etc");
        let (caps, d) = freeze_text_profile(
            "[fs: [write: ['cwd:', '~/.cargo/registry'], deny_write: ['cwd:.git/hooks', '~/.cargo/registry/src/*/*', '~/none/*', 'cwd:a*b']]]",
            disk,
        );
        assert!(d.is_empty(), "{d:?}");
        let fs = caps.fs.expect("fs");
        assert_eq!(
            reals(&fs.write_deny),
            vec![
                "/home/u/proj/.git/hooks",
                "/home/u/proj/a*b",
                "/home/u/.cargo/registry/src/idx-a/libc-1",
                "/home/u/.cargo/registry/src/idx-a/serde-2",
                "/home/u/.cargo/registry/src/idx-b/log-3",
            ]
        );
        assert!(fs.deny.is_empty());
        // A pattern that matches nothing is a dead grant, not an error.
        assert_eq!(caps.dead.len(), 1);
        assert!(caps.dead[0].origin.written.contains("~/none/*"));
    }

    #[test]
    fn a_star_never_lists_a_directory_the_layer_does_not_read_and_is_bounded() {
        let disk = MemDisk::new()
            .file("/home/u/.ssh/id_ed25519", "")
            .file("/home/u/.ssh/id_rsa", "");
        // ~/.ssh is not granted: its names are not listed, the directory is withheld whole
        let (caps, d) = freeze_text_profile(
            "[fs: [write: ['cwd:'], deny_write: ['~/.ssh/*']]]",
            disk.clone(),
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            reals(&caps.fs.expect("fs").write_deny),
            vec!["/home/u/.ssh"]
        );
        // granted: listed
        let (caps, _) =
            freeze_text_profile("[fs: [read: ['~/.ssh'], deny_write: ['~/.ssh/*']]]", disk);
        assert_eq!(
            reals(&caps.fs.expect("fs").write_deny),
            vec!["/home/u/.ssh/id_ed25519", "/home/u/.ssh/id_rsa"]
        );
        // past the layer's budget: the pattern's head is withheld whole, never fewer
        let mut big = MemDisk::new();
        for i in 0..(EXPANSION_LIMIT + 5) {
            big = big.dir(&format!("/data/d{i}"));
        }
        let (caps, _) = freeze_text_profile(
            "[fs: [read: ['/data'], deny_write: ['/data/*', '/data/*']]]",
            big,
        );
        assert_eq!(
            reals(&caps.fs.expect("fs").write_deny),
            vec!["/data", "/data"]
        );
    }
}
