//! `SandboxProjection`: what every back end reads (spec §6), folded once from a
//! `GrantStack` (and the `Admitted` of a launch). Pure data, all paths real (resolved)
//! and sorted; the renderers turn it into a kernel plan. It never consults the disk.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SandboxProjection {
    /// `None`: the stack does not restrict the file system.
    pub fs: Option<FsProjection>,
    pub exec: ExecProjection,
    /// `true` when some layer is `` `offline ``.
    pub net_offline: bool,
}

/// The fs regions, real paths, sorted and deduplicated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FsProjection {
    /// Live positives of the read region (read ∪ write prefixes, run places).
    pub read: Vec<String>,
    /// Write prefixes.
    pub write: Vec<String>,
    /// The floor (spec §3.5) that exists on this host.
    pub floor: Vec<String>,
    /// Exclusions for reading and writing, re-resolved at projection time.
    pub deny: Vec<String>,
    /// Exclusions of writing only (a `--restrict` file's own path).
    pub write_deny: Vec<String>,
    /// The read and write prefixes as spelled, where the spelling is not the real path
    /// (a symlink on the way): the launch shows such a link itself, as the link, where
    /// nothing shown holds its directory (issue #27).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ExecProjection {
    #[default]
    Unrestricted,
    Restricted(KernelExecRules),
}

/// Defined beside the table that fills it (`ExecRules::for_kernel`); kept here by name.
pub use super::exec::KernelExecRules;
use super::exec::{self, ExecScope};
use super::fs::{FsOp, FsScope};
use super::index::{subject_keys, Rules};
use super::resolve::Resolve;
use super::stack::{Admitted, Flag, GrantStack, DISCARD};
use super::table::{Own, Withheld};
use crate::path::frozen::FrozenPath;

/// Every layer of the fold grants `scope` at its own subject (a subcommand list counts:
/// the kernel cannot see arguments).
fn all_grant<K: super::index::Indexed + Own>(rules: &[(usize, Rules<K>)], scope: &K) -> bool {
    let own = scope.own();
    let grants =
        |v: super::table::Verdict<K>| matches!(v, Ok(_) | Err(Withheld::Subcommand { .. }));
    match scope.index_path() {
        // Judged through each table's index, as every question is: the cells filed on the
        // scope's own path and its ancestors, and those that speak everywhere.
        Some(path) => super::index::with_subject_keys(path, |keys| {
            rules.iter().all(|(_, t)| grants(t.judge(&own, keys, None)))
        }),
        None => rules.iter().all(|(_, t)| grants(t.verdict(&*own, None))),
    }
}

fn fs_all_grant(rules: &[(usize, Rules<FsScope>)], scope: &FsScope) -> bool {
    let real = scope.real();
    let keys = subject_keys(real);
    rules
        .iter()
        .all(|(_, t)| t.judge(real, &keys, None).is_ok())
}

/// An exclusion's real paths now: as frozen, and as its surface resolves at projection
/// time (`refreeze`), both kept (fail closed).
fn live_reals(p: &FrozenPath, r: &dyn Resolve, out: &mut Vec<String>) {
    out.push(p.real().as_str().to_owned());
    if p.surface_str().starts_with('/') {
        if let Some(live) = r.real(p.surface_str()) {
            out.push(live.as_str().to_owned());
        }
    }
}

/// The most other spellings one exclusion is widened to.
pub const SPELLINGS_LIMIT: usize = 64;

/// The existing paths, other than `real` itself, that an exclusion of `real` also names
/// under the Collision identity (spec §3.6): walked component by component through the
/// directories the host lists now (`Resolve::names`, symlinks left out: their targets are
/// judged where they live), each directory listed once per projection (`listed`). The
/// kernel withholds each of them too, so it agrees with the guard on every spelling that
/// exists at launch.
fn spellings(
    real: &str,
    r: &dyn Resolve,
    listed: &mut std::collections::BTreeMap<String, Vec<String>>,
    out: &mut Vec<String>,
) {
    let comps: Vec<&str> = real.split('/').filter(|c| !c.is_empty()).collect();
    if comps.is_empty() {
        return;
    }
    let mut here: Vec<String> = vec![String::new()];
    for c in comps {
        let mut next = Vec::new();
        for dir in &here {
            let d = if dir.is_empty() { "/" } else { dir.as_str() };
            let names = listed.entry(d.to_owned()).or_insert_with(|| r.names(d));
            for n in names.iter() {
                if crate::path::identity::collide(n, c) {
                    next.push(format!("{dir}/{n}"));
                }
            }
        }
        if next.is_empty() {
            return;
        }
        next.sort();
        next.truncate(SPELLINGS_LIMIT);
        here = next;
    }
    out.extend(here.into_iter().filter(|p| p != real));
}

fn tidy(v: &mut Vec<String>) {
    v.sort();
    v.dedup();
}

fn region_positives(rules: &[(usize, Rules<FsScope>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (_, t) in rules {
        for (k, _) in t.live() {
            if fs_all_grant(rules, k) {
                out.push(k.real().to_owned());
            }
        }
    }
    tidy(&mut out);
    out
}

impl SandboxProjection {
    /// Fold the stack once for the back ends (spec §6): positives kept where every
    /// opining layer grants them at their own subject, every exclusion of every layer
    /// (re-resolved now), the floor, and the exec table as the kernel receives it.
    pub fn of(stack: &GrantStack, r: &dyn Resolve, admitted: Option<&Admitted>) -> Self {
        let fs = fs_projection(stack, r);
        SandboxProjection {
            exec: exec_projection(stack, r, admitted, fs.as_ref()),
            fs,
            net_offline: stack.permits(Flag::Net).is_err(),
        }
    }
}

fn fs_projection(stack: &GrantStack, r: &dyn Resolve) -> Option<FsProjection> {
    let read_rules = stack.fs_rules(FsOp::Read);
    if read_rules.is_empty() {
        return None;
    }
    let floor: Vec<String> = stack
        .floor()
        .iter()
        .map(|f| f.as_str().to_owned())
        .collect();
    let mut read: Vec<String> = region_positives(read_rules)
        .into_iter()
        .filter(|p| !floor.contains(p))
        .collect();
    // bare-name run places: each name's file on `PATH` now, where the read judgment grants it
    let last = stack.layers().len().saturating_sub(1);
    for (place, _) in stack.tool_places_at(last, r) {
        if !read.contains(&place.as_str().to_owned())
            && stack.judge_real(FsOp::Read, &place, r).is_ok()
        {
            read.push(place.as_str().to_owned());
        }
    }
    let mut write = region_positives(stack.fs_rules(FsOp::Write));
    read.push(DISCARD.to_owned());
    write.push(DISCARD.to_owned());
    let mut deny = Vec::new();
    let mut write_deny = Vec::new();
    let mut links = Vec::new();
    for caps in stack.layers() {
        if let Some(fs) = &caps.fs {
            for e in fs.read.iter().chain(&fs.write) {
                let surface = e.path.surface_str().trim_end_matches('/');
                if surface.starts_with('/')
                    && surface != e.path.real().as_str().trim_end_matches('/')
                {
                    links.push(surface.to_string());
                }
            }
            for e in &fs.deny {
                live_reals(&e.path, r, &mut deny);
            }
            for e in &fs.write_deny {
                live_reals(&e.path, r, &mut write_deny);
            }
        }
    }
    // Every other existing spelling of each exclusion, withheld alike.
    let mut listed = std::collections::BTreeMap::new();
    for v in [&mut deny, &mut write_deny] {
        tidy(v);
        let mut more = Vec::new();
        for p in v.iter() {
            spellings(p, r, &mut listed, &mut more);
        }
        v.extend(more);
    }
    let mut floor = floor;
    for v in [
        &mut read,
        &mut write,
        &mut floor,
        &mut deny,
        &mut write_deny,
        &mut links,
    ] {
        tidy(v);
    }
    Some(FsProjection {
        read,
        write,
        floor,
        deny,
        write_deny,
        links,
    })
}

/// The carriers of the kernel's allowed files: each chain of vouched interpreters, cut at
/// the first one a denied file or a name veto excludes (a carrier outranks a directory's
/// evidence, not an exact file's or a name's).
fn carriers(k: &KernelExecRules, r: &dyn Resolve) -> Vec<String> {
    let mut out = Vec::new();
    for f in k.allow_files.iter().chain(&k.link_targets) {
        for c in r.carriers(&crate::path::frozen::RealPath::from_resolved(f.as_str())) {
            let c = c.as_str();
            let vetoed = k
                .deny_names
                .contains(&crate::path::identity::command_name_key(c));
            if vetoed || k.deny_files.iter().any(|d| d == c) {
                break;
            }
            out.push(c.to_owned());
        }
    }
    tidy(&mut out);
    out
}

fn exec_projection(
    stack: &GrantStack,
    r: &dyn Resolve,
    admitted: Option<&Admitted>,
    fs: Option<&FsProjection>,
) -> ExecProjection {
    let rules = stack.exec_rules();
    if rules.is_empty() {
        return ExecProjection::Unrestricted;
    }
    let tools = stack.tools(r);
    let mut k = KernelExecRules::default();
    let live = |p: &FrozenPath| {
        let mut v = Vec::new();
        live_reals(p, r, &mut v);
        v
    };
    let keep = |scope: &ExecScope| match scope {
        ExecScope::Tool(n) => tools.get(n).cloned().flatten().is_some_and(|real| {
            all_grant(
                rules,
                &ExecScope::File(FrozenPath::from_parts(real.as_str(), real.clone())),
            )
        }),
        _ => all_grant(rules, scope),
    };
    for (_, t) in rules {
        t.for_kernel(&tools, &live, &keep, &mut k);
    }
    if let Some(a) = admitted {
        k.allow_files.push(a.program_real().as_str().to_owned());
    }
    exec::tidy(&mut k);
    k.link_targets = link_targets(stack, r, &k, fs);
    k.carriers = carriers(&k, r);
    ExecProjection::Restricted(k)
}

/// The link rule for the kernel: every vouched symlink directly in an allowed directory
/// that leads out of it is asked of `GrantStack::admit_link`, as the guard asks it of a
/// program found there; the file of each one admitted through its link is admitted as a
/// file.
/// A target already within an allowed directory or file needs nothing.
///
/// No scan is made when no target could be admitted: under a restricted fs, a target must
/// be readable (within a positive of the folded read region or the floor) and lie outside
/// every write prefix and every allowed directory; a stack whose read region holds nothing
/// else (`std:minimal`: the project, the temp directory, the run places) admits no target.
fn link_targets(
    stack: &GrantStack,
    r: &dyn Resolve,
    k: &KernelExecRules,
    fs: Option<&FsProjection>,
) -> Vec<String> {
    use ralc_runtime::plan::within;
    // The allowed files as a set: `covered` is asked once per read path, and a scan of
    // the files each time was quadratic (12 % of `ralc check` at 10,000 entries).
    let files: std::collections::HashSet<&str> = k.allow_files.iter().map(String::as_str).collect();
    let covered = |t: &str| k.allow_dirs.iter().any(|d| within(t, d)) || files.contains(t);
    if let Some(fs) = fs {
        let open =
            fs.read.iter().chain(&fs.floor).any(|p| {
                p != DISCARD && !covered(p) && !stack.write_prefixes().any(|w| within(p, w))
            });
        if !open {
            return Vec::new();
        }
    }
    // One batch: each directory is resolved and vouched for once.
    let batch = r.for_batch();
    let r: &dyn Resolve = batch.as_deref().unwrap_or(r);
    let mut out = Vec::new();
    for d in &k.allow_dirs {
        if d == "/" {
            continue;
        }
        for chain in r.link_chains_in(d) {
            if covered(chain.target.as_str()) {
                continue;
            }
            if let Ok(a) = stack.admit_link(&chain, r) {
                if !a.through().is_empty() {
                    out.push(a.program_real().as_str().to_owned());
                }
            }
        }
    }
    tidy(&mut out);
    out
}
