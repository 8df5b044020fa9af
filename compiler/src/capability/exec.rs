//! The exec instance of the model: `ExecScope::{Any, Dir, File, Tool, Name}` with the
//! ranks of spec §4.1 (`Any` < `Dir`, deeper beating shallower < exact `File`/`Tool` <
//! `Name` veto), one layer's `ExecGrant` compiled into `ExecRules` (a `Table<ExecScope>`),
//! the subject a program is judged as, and `ExecRules::for_kernel`.
//! `Name` carries only negative evidence and `Any` only positive, by construction here.
//! Containment is `path_within`, vetoes `command_name_key`; never a string compare.

use super::index::{depth, within, Indexed, Rules};
use super::layer::{Capabilities, ExecKey, Origin};
use super::table::{Cited, Filed, Own, Scope, Table};
use crate::capability::vocab::ExecPolicy;
use crate::path::frozen::{FrozenPath, RealPath};
use crate::path::identity::{command_name_key, Identity};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The exec table as the kernel receives it (`ExecRules::for_kernel`): subcommand lists
/// are allows (the kernel cannot see arguments; the in-process guard checks them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KernelExecRules {
    pub allow_dirs: Vec<String>,
    pub allow_files: Vec<String>,
    pub deny_dirs: Vec<String>,
    pub deny_files: Vec<String>,
    /// Name vetoes, as name keys (Collision-folded).
    pub deny_names: Vec<String>,
    /// Carriers (spec §4.1): the vouched `#!` interpreters the kernel opens to start an
    /// allowed file or the admitted program, admitted as files; none that a denied file
    /// or a name veto (which outrank a carrier) excludes.
    #[serde(default)]
    pub carriers: Vec<String>,
    /// Link targets (the link rule, `docs/model.md`): the files that vouched links
    /// directly in an allowed directory lead to, where the stack admits the program
    /// through the link (the same `GrantStack::admit`), admitted as files.
    #[serde(default)]
    pub link_targets: Vec<String>,
}

/// An exec scope.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExecScope {
    /// Every program (the top's `every`); positive only.
    Any,
    /// Everything beneath a directory.
    Dir(FrozenPath),
    /// One executable file.
    File(FrozenPath),
    /// A bare command name as written, judged where it lands on the process's `PATH`.
    Tool(String),
    /// A name veto, as its name key; negative only.
    Name(String),
}

/// Ranks (spec §4.1). Carriers (interpreters the kernel needs) sit between `Dir` and
/// `EXACT`; ralc models none yet (`docs/model.md`).
pub const ANY: u32 = 0;
pub const CARRIER: u32 = 1 << 23;
pub const EXACT: u32 = 1 << 24;
pub const NAME: u32 = 1 << 25;

impl ExecScope {
    /// How a user reads the scope (a directory with its trailing slash).
    pub fn display(&self) -> String {
        match self {
            ExecScope::Any => "every program".to_owned(),
            ExecScope::Dir(p) => {
                let s = p.surface_str();
                if s.ends_with('/') {
                    s.to_owned()
                } else {
                    format!("{s}/")
                }
            }
            ExecScope::File(p) => p.surface_str().to_owned(),
            ExecScope::Tool(n) | ExecScope::Name(n) => n.clone(),
        }
    }
}

/// Where each bare tool of the stack lands now, sorted by name (looked up by binary
/// search; the names are shared with the compiled stack, not copied per question).
pub type Tools = Vec<(Arc<str>, Option<RealPath>)>;

/// A program as the exec table judges it: its real path, the name keys of the name it was
/// invoked by and of its real file, and where each bare tool of the stack lands now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecSubject {
    real: RealPath,
    name_keys: [NameKey; 2],
    tools: Tools,
}

/// A name key: the real path's last component from this byte on when that component is
/// already its own key (ASCII with no uppercase letter), else computed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum NameKey {
    InReal(usize),
    Owned(String),
}

/// The last `/`-separated component of a name (as `command_name_key` takes it).
fn last_component(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Already its own `collision_key`: ASCII with no uppercase letter.
fn is_own_key(c: &str) -> bool {
    c.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase())
}

impl ExecSubject {
    pub fn new(invoked: &str, real: RealPath, tools: Tools) -> Self {
        let r = real.as_str();
        let last = last_component(r);
        let start = r.len() - last.len();
        let real_key = if is_own_key(last) {
            NameKey::InReal(start)
        } else {
            NameKey::Owned(name_key(r))
        };
        let inv = last_component(invoked);
        let invoked_key = match &real_key {
            NameKey::InReal(_) if inv == last => NameKey::InReal(start),
            _ => NameKey::Owned(name_key(invoked)),
        };
        ExecSubject {
            real,
            name_keys: [invoked_key, real_key],
            tools,
        }
    }
    /// The same program judged at another place (a link it was reached through), with the
    /// same bare tools.
    pub fn at(&self, invoked: &str, real: RealPath) -> Self {
        ExecSubject::new(invoked, real, self.tools.clone())
    }
    /// The real path judged.
    pub fn real(&self) -> &RealPath {
        &self.real
    }
    /// Give back the real path.
    pub fn into_real(self) -> RealPath {
        self.real
    }
    /// The name keys of the invoked name and of the real file.
    pub fn name_keys(&self) -> [&str; 2] {
        self.name_keys.each_ref().map(|k| match k {
            NameKey::InReal(at) => self.real.as_str().get(*at..).unwrap_or(""),
            NameKey::Owned(s) => s.as_str(),
        })
    }
    fn tool(&self, name: &str) -> Option<&RealPath> {
        let i = self.tools.binary_search_by(|(n, _)| (**n).cmp(name)).ok()?;
        self.tools.get(i)?.1.as_ref()
    }
}

/// `command_name_key`, memoised per thread (`index::memoised`) for names that are not
/// ASCII (an ASCII name's key is its lowercase, cheaper than a lookup).
pub fn name_key(name: &str) -> String {
    if name.is_ascii() {
        return command_name_key(name);
    }
    super::index::memoised(super::index::KeyFn::CommandName, name).to_string()
}

fn identity(negative: bool) -> Identity {
    if negative {
        Identity::Collision
    } else {
        Identity::Stored
    }
}

/// `path` names exactly `file` under the identity (within it, and as deep).
fn is_file(id: Identity, file: &str, path: &str) -> bool {
    depth(file) == depth(path) && within(id, file, path)
}

impl Scope for ExecScope {
    type Subject = ExecSubject;
    fn speaks(&self, negative: bool, s: &ExecSubject) -> Option<u32> {
        match self {
            ExecScope::Any => (!negative).then_some(ANY),
            ExecScope::Dir(p) => {
                let real = p.real().as_str();
                within(identity(negative), real, s.real.as_str())
                    .then(|| 1 + depth(real).min(CARRIER - 2))
            }
            ExecScope::File(p) => {
                is_file(identity(negative), p.real().as_str(), s.real.as_str()).then_some(EXACT)
            }
            ExecScope::Tool(name) => s.tool(name).and_then(|real| {
                is_file(identity(negative), real.as_str(), s.real.as_str()).then_some(EXACT)
            }),
            ExecScope::Name(key) => {
                (negative && s.name_keys().contains(&key.as_str())).then_some(NAME)
            }
        }
    }
    fn bound(&self, _negative: bool) -> u32 {
        match self {
            ExecScope::Any => ANY,
            ExecScope::Dir(p) => 1 + depth(p.real().as_str()).min(CARRIER - 2),
            ExecScope::File(_) | ExecScope::Tool(_) => EXACT,
            ExecScope::Name(_) => NAME,
        }
    }
}

/// A component no real path holds (NUL): the fresh child and fresh name of an own subject.
const FRESH: &str = "\u{0}";

impl Own for ExecScope {
    /// The subject a scope names and nothing more specific speaks to: for a directory, a
    /// fresh child of it invoked by a fresh name; for a file, that file invoked by a fresh
    /// name; for `Any`, a fresh child of the root.
    fn own(&self) -> Box<ExecSubject> {
        let fresh = || command_name_key(FRESH);
        let (real, keys) = match self {
            ExecScope::Any => (format!("/{FRESH}"), [fresh(), fresh()]),
            ExecScope::Dir(p) => {
                let d = p.real().as_str().trim_end_matches('/');
                (format!("{d}/{FRESH}"), [fresh(), fresh()])
            }
            ExecScope::File(p) => (
                p.real().as_str().to_owned(),
                [fresh(), command_name_key(p.real().as_str())],
            ),
            ExecScope::Tool(_) | ExecScope::Name(_) => (String::new(), [fresh(), fresh()]),
        };
        Box::new(ExecSubject {
            real: RealPath::from_resolved(real),
            name_keys: keys.map(NameKey::Owned),
            tools: Vec::new(),
        })
    }
}

impl Indexed for ExecScope {
    fn index_path(&self) -> Option<&str> {
        match self {
            ExecScope::Dir(p) | ExecScope::File(p) => Some(p.real().as_str()),
            _ => None,
        }
    }
}

/// One layer's exec table, compiled once.
pub type ExecRules = Rules<ExecScope>;

/// The synthetic origin of a layer's `every`.
fn every_origin(caps: &Capabilities) -> Origin {
    super::fs::synthetic(&caps.source.name, "every program")
}

/// One layer's exec table, or `None` when the layer says nothing about exec.
pub fn table(layer: usize, caps: &Capabilities) -> Option<Table<ExecScope>> {
    let grant = caps.exec.as_ref()?;
    let mut ev: Vec<(ExecScope, Filed)> = Vec::with_capacity(grant.rules().len() + 1);
    if grant.every() {
        ev.push((
            ExecScope::Any,
            Filed::Allow(
                Cited {
                    layer,
                    origin: every_origin(caps).into(),
                },
                None,
            ),
        ));
    }
    for rule in grant.rules() {
        let by = Cited {
            layer,
            origin: rule.origin.clone().into(),
        };
        let scope = match (&rule.key, &rule.policy) {
            (ExecKey::Name(n), ExecPolicy::Deny) => ExecScope::Name(command_name_key(n)),
            (ExecKey::Name(n), _) => ExecScope::Tool(n.clone()),
            (ExecKey::File(p), _) => ExecScope::File(p.clone()),
            (ExecKey::Dir(p), _) => ExecScope::Dir(p.clone()),
        };
        ev.push((
            scope,
            match &rule.policy {
                ExecPolicy::Allow => Filed::Allow(by, None),
                ExecPolicy::Deny => Filed::Deny(by),
                ExecPolicy::Subcommands(set) => Filed::Allow(by, Some(set.clone())),
            },
        ));
    }
    Some(Table::from_evidence(layer, ev))
}

/// The bare tool names a layer's exec grant judges by.
pub fn tools(caps: &Capabilities) -> impl Iterator<Item = &str> {
    caps.exec.iter().flat_map(|g| {
        g.rules().iter().filter_map(|r| match (&r.key, &r.policy) {
            (ExecKey::Name(n), p) if *p != ExecPolicy::Deny => Some(n.as_str()),
            _ => None,
        })
    })
}

/// The run places of one exec table: the real paths of its live positive `File` and `Dir`
/// scopes.
pub fn places(t: &Table<ExecScope>) -> impl Iterator<Item = (RealPath, Cited)> + '_ {
    t.live().filter_map(|(k, sup)| match k {
        ExecScope::Dir(p) | ExecScope::File(p) => Some((p.real().clone(), sup.by.clone())),
        _ => None,
    })
}

/// The bare-name run places of one exec table: its live positive `Tool` scopes, each
/// resolved on the host when a question needs it (`fs::ToolPlace`).
pub fn tool_places(t: &Table<ExecScope>) -> impl Iterator<Item = (String, Cited)> + '_ {
    t.live().filter_map(|(k, sup)| match k {
        ExecScope::Tool(n) => Some((n.clone(), sup.by.clone())),
        _ => None,
    })
}

impl Rules<ExecScope> {
    /// What the kernel is handed for this layer's table (spec §6), added to `out`:
    /// subcommand lists are allows (the kernel cannot see arguments; the in-process guard
    /// checks them), bare tools at the real path they land on now, vetoes as name keys.
    /// `live` gives an exclusion's real paths now; `keep` says which allowances survive
    /// the fold over the stack.
    pub fn for_kernel(
        &self,
        tools: &BTreeMap<String, Option<RealPath>>,
        live: &dyn Fn(&FrozenPath) -> Vec<String>,
        keep: &dyn Fn(&ExecScope) -> bool,
        out: &mut KernelExecRules,
    ) {
        for (k, c) in self.cells() {
            let tool = |n: &String| tools.get(n).cloned().flatten();
            if c.negative.is_some() {
                match k {
                    ExecScope::Dir(p) => out.deny_dirs.extend(live(p)),
                    ExecScope::File(p) => out.deny_files.extend(live(p)),
                    ExecScope::Tool(n) => out
                        .deny_files
                        .extend(tool(n).map(|r| r.as_str().to_owned())),
                    ExecScope::Name(key) => out.deny_names.push(key.clone()),
                    ExecScope::Any => {}
                }
                continue;
            }
            if c.positive.is_none() || !keep(k) {
                continue;
            }
            match k {
                ExecScope::Any => out.allow_dirs.push("/".to_owned()),
                ExecScope::Dir(p) => out.allow_dirs.push(p.real().as_str().to_owned()),
                ExecScope::File(p) => out.allow_files.push(p.real().as_str().to_owned()),
                ExecScope::Tool(n) => out
                    .allow_files
                    .extend(tool(n).map(|r| r.as_str().to_owned())),
                ExecScope::Name(_) => {}
            }
        }
    }
}

/// Sort and deduplicate every list of a kernel table.
pub fn tidy(k: &mut KernelExecRules) {
    for v in [
        &mut k.allow_dirs,
        &mut k.allow_files,
        &mut k.deny_dirs,
        &mut k.deny_files,
        &mut k.deny_names,
    ] {
        v.sort();
        v.dedup();
    }
}

/// The subcommand sets of a table (for the guard), by scope.
pub fn lists(t: &Table<ExecScope>) -> BTreeMap<ExecScope, BTreeSet<String>> {
    t.cells()
        .filter_map(|(k, c)| {
            c.positive
                .as_ref()
                .and_then(|s| s.only.clone())
                .map(|o| (k.clone(), o))
        })
        .collect()
}
