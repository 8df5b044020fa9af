//! `GrantStack`: the ordered layers of a composition, root first, never flattened, and the
//! only judgments in the program — `read`, `write`, `admit` (the only mint of `Admitted`),
//! `permits` — plus `is_restrictive` (spec §4.3). Every judgment folds the opining layers'
//! verdicts afresh; what a layer compiles to (its tables and their indexes) is compiled
//! once, when the stack is built. Pure: the live host is consulted only through `Resolve`.

use super::exec::{self, ExecRules, ExecScope, ExecSubject};
use super::fs::{self, FsOp, FsScope, RunPlace, ToolPlace};
use super::index::{depth, with_subject_keys, within, Rules, SubjectKey};
use super::layer::{Capabilities, FsEntry, FsPolicy, LayerRole, Origin};
use super::resolve::{LinkChain, Resolve};
use super::table::{meet_verdict, Cited, Verdict, Withheld};
use crate::capability::vocab::{EditorVerb, ShellVerb};
use crate::path::frozen::{FrozenPath, RealPath};
use crate::path::identity::Identity;
use std::collections::{BTreeMap, BTreeSet};

/// The discard device, always permitted.
pub const DISCARD: &str = "/dev/null";

/// A flag a stack permits or withholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Flag {
    Net,
    Detach,
    Editor(EditorVerb),
    Shell(ShellVerb),
}

impl Flag {
    /// Parse `net`, `detach`, `editor.read|write|tui`, `shell.chdir`.
    pub fn parse(s: &str) -> Option<Flag> {
        match s {
            "net" => Some(Flag::Net),
            "detach" => Some(Flag::Detach),
            _ => {
                let (axis, verb) = s.split_once('.')?;
                match axis {
                    "editor" => EditorVerb::ALL
                        .into_iter()
                        .find(|v| v.as_str() == verb)
                        .map(Flag::Editor),
                    "shell" => ShellVerb::ALL
                        .into_iter()
                        .find(|v| v.as_str() == verb)
                        .map(Flag::Shell),
                    _ => None,
                }
            }
        }
    }
    pub fn name(&self) -> String {
        match self {
            Flag::Net => "net".into(),
            Flag::Detach => "detach".into(),
            Flag::Editor(v) => format!("editor.{}", v.as_str()),
            Flag::Shell(v) => format!("shell.{}", v.as_str()),
        }
    }
}

/// A granted judgment: the entry of each opining layer that granted (empty when no layer
/// opines, or for the discard device).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Granted {
    pub decided_by: Vec<Cited>,
}

impl Granted {
    /// No layer had an opinion (or the subject is always permitted).
    pub fn unrestricted(&self) -> bool {
        self.decided_by.is_empty()
    }
}

/// Why a program was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecDenial {
    /// The exec table withholds it.
    Run(Withheld<ExecScope>),
    /// The exec table admits it, but its real path is outside the read region.
    Read(Withheld<FsScope>),
    /// A bare name not found on the process's `PATH`, or a path that does not resolve
    /// (additive to spec §4.3: there is nothing to judge).
    NotFound,
}

impl ExecDenial {
    /// The reason as JSON spells it.
    pub fn reason(&self) -> &'static str {
        match self {
            ExecDenial::Run(w) => w.reason(),
            ExecDenial::Read(_) => "unreadable",
            ExecDenial::NotFound => "not-found",
        }
    }
}

/// A refused program: data, for the guard to word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub program: String,
    pub args: Vec<String>,
    /// The real path judged, when the program resolved.
    pub real: Option<RealPath>,
    pub why: ExecDenial,
}

/// An admitted program: all a launch reads. Minted only by `GrantStack::admit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admitted {
    program_real: RealPath,
    argv0: String,
    args: Vec<String>,
    run: Granted,
    read: Granted,
    through: Vec<RealPath>,
}

impl Admitted {
    /// The vouched links the program was admitted through (the link rule), in the order
    /// followed; empty when the exec table admitted its real file as itself.
    pub fn through(&self) -> &[RealPath] {
        &self.through
    }
    /// The real path of the file the launch executes.
    pub fn program_real(&self) -> &RealPath {
        &self.program_real
    }
    /// The program as it was invoked.
    pub fn argv0(&self) -> &str {
        &self.argv0
    }
    pub fn args(&self) -> &[String] {
        &self.args
    }
    /// The entries that admitted it to run, one per opining exec layer.
    pub fn run_granted(&self) -> &Granted {
        &self.run
    }
    /// The entries that made it readable, one per opining fs layer.
    pub fn read_granted(&self) -> &Granted {
        &self.read
    }
}

/// What each layer compiles to, once.
#[derive(Clone, Debug)]
struct Compiled {
    exec: Vec<(usize, ExecRules)>,
    read: Vec<(usize, Rules<FsScope>)>,
    write: Vec<(usize, Rules<FsScope>)>,
    /// The bare-name run places of every layer, in layer order.
    tool_places: Vec<ToolPlace>,
    tools: BTreeSet<String>,
    /// The same names, sorted, shared with each question's `ExecSubject`.
    tool_names: Vec<std::sync::Arc<str>>,
    /// Per layer, its first fs entry and its first exec entry (the least origin), found
    /// once: where a withholding answer points when no entry decided it.
    firsts: Vec<(Option<Origin>, Option<Origin>)>,
}

/// The ordered layers, root first.
#[derive(Clone, Debug)]
pub struct GrantStack {
    layers: Vec<Capabilities>,
    floor: Vec<RealPath>,
    compiled: Compiled,
}

impl GrantStack {
    /// A stack of policies, root first, with no floor.
    pub fn new(layers: Vec<Capabilities>) -> Self {
        Self::build(layers, Vec::new())
    }

    /// The same layers with the floor (spec §3.5: `freeze::floor`, what exists on this
    /// host) joined into every restricted read region.
    pub fn with_floor(self, floor: Vec<RealPath>) -> Self {
        Self::build(self.layers, floor)
    }

    /// `effective = (base ∨ extension…) ∧ restrict…` (spec §4.4). Each base layer is joined
    /// with every extension (`Capabilities::extend`; pointwise, `(a ∧ b) ∨ e = (a ∨ e) ∧
    /// (b ∨ e)`); with no base layer the base is top and stays top. Each restrict file's own
    /// path (surface and real) becomes a write-region exclusion.
    pub fn compose(
        base: Vec<Capabilities>,
        extensions: Vec<Capabilities>,
        restricts: Vec<Capabilities>,
    ) -> Self {
        Self::compose_with_floor(base, extensions, restricts, Vec::new())
    }

    /// `compose` and `with_floor` in one build (the stack's tables are compiled once).
    pub fn compose_with_floor(
        base: Vec<Capabilities>,
        extensions: Vec<Capabilities>,
        restricts: Vec<Capabilities>,
        floor: Vec<RealPath>,
    ) -> Self {
        let mut layers: Vec<Capabilities> = base
            .into_iter()
            .map(|mut b| {
                for e in &extensions {
                    b.extend(e);
                }
                b
            })
            .collect();
        for mut r in restricts {
            r.source.role = LayerRole::Restrict;
            protect_self(&mut r);
            layers.push(r);
        }
        Self::build(layers, floor)
    }

    fn build(layers: Vec<Capabilities>, floor: Vec<RealPath>) -> Self {
        let mut exec_tables = Vec::new();
        let mut read = Vec::new();
        let mut write = Vec::new();
        let mut tools = BTreeSet::new();
        let mut places: Vec<RunPlace> = Vec::new();
        let mut tool_places: Vec<ToolPlace> = Vec::new();
        for (i, caps) in layers.iter().enumerate() {
            tools.extend(exec::tools(caps).map(str::to_owned));
            if let Some(t) = exec::table(i, caps) {
                places.extend(exec::places(&t).map(|(real, by)| RunPlace { real, by }));
                tool_places.extend(exec::tool_places(&t).map(|(name, by)| ToolPlace { name, by }));
                exec_tables.push((i, Rules::compile(t)));
            }
            if let Some(t) = fs::region(i, caps, FsOp::Read, &places, &floor) {
                read.push((i, Rules::compile(t)));
            }
            if let Some(t) = fs::region(i, caps, FsOp::Write, &[], &[]) {
                write.push((i, Rules::compile(t)));
            }
        }
        let firsts = layers
            .iter()
            .map(|c| (first_fs_origin(c).cloned(), first_exec_origin(c).cloned()))
            .collect();
        GrantStack {
            layers,
            floor,
            compiled: Compiled {
                firsts,
                exec: exec_tables,
                read,
                write,
                tool_places,
                tool_names: tools
                    .iter()
                    .map(|t| std::sync::Arc::from(t.as_str()))
                    .collect(),
                tools,
            },
        }
    }

    pub fn layers(&self) -> &[Capabilities] {
        &self.layers
    }
    /// The first (least) origin among a layer's fs entries, if it writes any.
    pub fn first_fs_origin(&self, layer: usize) -> Option<&Origin> {
        self.compiled.firsts.get(layer)?.0.as_ref()
    }
    /// The first (least) origin among a layer's exec rules, if it writes any.
    pub fn first_exec_origin(&self, layer: usize) -> Option<&Origin> {
        self.compiled.firsts.get(layer)?.1.as_ref()
    }
    pub fn floor(&self) -> &[RealPath] {
        &self.floor
    }
    /// The compiled exec tables of the opining layers, with their layer index.
    pub fn exec_rules(&self) -> &[(usize, ExecRules)] {
        &self.compiled.exec
    }
    /// The compiled fs region tables of the opining layers.
    pub fn fs_rules(&self, op: FsOp) -> &[(usize, Rules<FsScope>)] {
        match op {
            FsOp::Read => &self.compiled.read,
            FsOp::Write => &self.compiled.write,
        }
    }
    /// The bare tool names the stack judges by, resolved now.
    pub fn tools(&self, r: &dyn Resolve) -> BTreeMap<String, Option<RealPath>> {
        self.compiled
            .tools
            .iter()
            .map(|t| (t.clone(), r.which(t).map(|(_, real)| real)))
            .collect()
    }

    /// The read judgment.
    pub fn read(&self, path: &str, r: &dyn Resolve) -> Result<Granted, Withheld<FsScope>> {
        self.fs_judgment(FsOp::Read, path, r)
    }

    /// The write judgment (a write prefix also reads; `write_deny` withholds writing only).
    pub fn write(&self, path: &str, r: &dyn Resolve) -> Result<Granted, Withheld<FsScope>> {
        self.fs_judgment(FsOp::Write, path, r)
    }

    fn fs_judgment(
        &self,
        op: FsOp,
        path: &str,
        r: &dyn Resolve,
    ) -> Result<Granted, Withheld<FsScope>> {
        let rules = self.fs_rules(op);
        let Some((first, _)) = rules.first() else {
            return Ok(Granted::default());
        };
        let Some(real) = real_of(path, r) else {
            return Err(Withheld::MissingAllowance { layer: *first });
        };
        self.judge_real(op, &real, r)
    }

    /// The bare-name run places of the layers at or below `layer`, resolved now: each
    /// name's real file on the host's `PATH` (a name not found there is no place).
    pub fn tool_places_at(&self, layer: usize, r: &dyn Resolve) -> Vec<(RealPath, Cited)> {
        self.compiled
            .tool_places
            .iter()
            .filter(|p| p.by.layer <= layer)
            .filter_map(|p| r.which(&p.name).map(|(_, real)| (real, p.by.clone())))
            .collect()
    }

    /// One layer's read or write verdict: its compiled table, and on a missing allowance
    /// for reading, the bare-name run places at or below it (exclusions are the table's,
    /// and beat a run place as they beat every allowance).
    fn layer_verdict(
        &self,
        op: FsOp,
        (layer, t): &(usize, Rules<FsScope>),
        real: &RealPath,
        keys: &[SubjectKey<'_>],
        r: &dyn Resolve,
    ) -> Verdict<FsScope> {
        let v = t.judge(real.as_str(), keys, None);
        if op != FsOp::Read || !matches!(v, Err(Withheld::MissingAllowance { .. })) {
            return v;
        }
        let place = self
            .tool_places_at(*layer, r)
            .into_iter()
            .find(|(p, _)| within(Identity::Stored, p.as_str(), real.as_str()));
        match place {
            Some((_, by)) => Ok(Some(by)),
            None => v,
        }
    }

    /// The fs judgment of a path already resolved.
    pub fn judge_real(
        &self,
        op: FsOp,
        real: &RealPath,
        r: &dyn Resolve,
    ) -> Result<Granted, Withheld<FsScope>> {
        if self.fs_rules(op).is_empty() || is_discard(real.as_str()) {
            return Ok(Granted::default());
        }
        with_subject_keys(real.as_str(), |keys| self.judge_keys(op, real, keys, r))
    }

    /// `judge_real` once the subject's index keys are known (an exec question reuses the
    /// keys of its exec judgment).
    fn judge_keys(
        &self,
        op: FsOp,
        real: &RealPath,
        keys: &[SubjectKey<'_>],
        r: &dyn Resolve,
    ) -> Result<Granted, Withheld<FsScope>> {
        let rules = self.fs_rules(op);
        if rules.is_empty() || is_discard(real.as_str()) {
            return Ok(Granted::default());
        }
        fold(
            rules
                .iter()
                .map(|lt| self.layer_verdict(op, lt, real, keys, r)),
        )
    }

    /// The exec judgment: the exec table, then the read judgment of the program's real
    /// path. The only mint of `Admitted`.
    #[allow(
        clippy::result_large_err,
        reason = "Refused is the data shape of spec §4.3, built once per refusal"
    )]
    pub fn admit(
        &self,
        program: &str,
        args: &[String],
        r: &dyn Resolve,
    ) -> Result<Admitted, Refused> {
        let refuse = |real: Option<RealPath>, why| Refused {
            program: program.to_owned(),
            args: args.to_vec(),
            real,
            why,
        };
        let (at, real) = if program.contains('/') {
            let at = if program.starts_with('/') {
                program.to_owned()
            } else {
                format!("{}/{program}", r.cwd().trim_end_matches('/'))
            };
            (Some(at), real_of(program, r))
        } else if program.is_empty() {
            (None, None)
        } else {
            match r.which(program) {
                Some((at, real)) => (Some(at), Some(real)),
                None => (None, None),
            }
        };
        let Some(real) = real else {
            return Err(refuse(None, ExecDenial::NotFound));
        };
        self.admit_at(program, args, at.as_deref(), real, None, r)
    }

    /// The program of a vouched link chain, as `admit` judges it when the program is found
    /// at the chain's first link (the kernel plan's question, `SandboxProjection::of`,
    /// without resolving the chain again).
    #[allow(
        clippy::result_large_err,
        reason = "Refused is the data shape of spec §4.3, built once per refusal"
    )]
    pub fn admit_link(&self, chain: &LinkChain, r: &dyn Resolve) -> Result<Admitted, Refused> {
        let at = chain.links.first().map(|l| l.as_str().to_owned());
        let program = at.clone().unwrap_or_default();
        self.admit_at(
            &program,
            &[],
            at.as_deref(),
            chain.target.clone(),
            Some(chain.clone()),
            r,
        )
    }

    /// `admit` once the program is found: `at` where it was found (for the link rule),
    /// `real` its real path, `chain` its vouched links when already known.
    #[allow(
        clippy::result_large_err,
        reason = "Refused is the data shape of spec §4.3, built once per refusal"
    )]
    fn admit_at(
        &self,
        program: &str,
        args: &[String],
        at: Option<&str>,
        real: RealPath,
        chain: Option<LinkChain>,
        r: &dyn Resolve,
    ) -> Result<Admitted, Refused> {
        let refuse = |real: Option<RealPath>, why| Refused {
            program: program.to_owned(),
            args: args.to_vec(),
            real,
            why,
        };
        let tools: exec::Tools = self
            .compiled
            .tool_names
            .iter()
            .map(|t| (t.clone(), r.which(t).map(|(_, real)| real)))
            .collect();
        let subject = ExecSubject::new(program, real, tools);
        let first = args.first().map(String::as_str);
        let (run, read, through) = with_subject_keys(subject.real().as_str(), |keys| {
            let real = subject.real();
            let mut verdicts: Vec<_> = self
                .compiled
                .exec
                .iter()
                .map(|(_, t)| t.judge(&subject, keys, first))
                .collect();
            // The link rule: a layer that neither admits nor excludes the file itself may
            // admit it through the vouched links it was found by.
            let mut through = Vec::new();
            if verdicts
                .iter()
                .any(|v| matches!(v, Err(Withheld::MissingAllowance { .. })))
            {
                let links = chain
                    .or_else(|| at.and_then(|a| r.links(a)))
                    .filter(|c| c.target == *real && !self.in_write_prefix(real.as_str()))
                    .map(|c| c.links)
                    .unwrap_or_default();
                for ((_, t), v) in self.compiled.exec.iter().zip(verdicts.iter_mut()) {
                    if !matches!(v, Err(Withheld::MissingAllowance { .. })) {
                        continue;
                    }
                    if let Some(w) = through_link(t, program, &links, &subject, first) {
                        if w.is_ok() {
                            through.clone_from(&links);
                        }
                        *v = w;
                    }
                }
            }
            let run = fold(verdicts.into_iter())
                .map_err(|w| refuse(Some(real.clone()), ExecDenial::Run(w)))?;
            let read = self
                .judge_keys(FsOp::Read, real, keys, r)
                .map_err(|w| refuse(Some(real.clone()), ExecDenial::Read(w)))?;
            Ok((run, read, through))
        })?;
        Ok(Admitted {
            program_real: subject.into_real(),
            argv0: program.to_owned(),
            args: args.to_vec(),
            run,
            read,
            through,
        })
    }

    /// Whether `real` lies within a write prefix (other than the root) of some layer: a
    /// file the confined programs may rewrite, which a link never admits (the link rule).
    pub fn in_write_prefix(&self, real: &str) -> bool {
        self.write_prefixes()
            .any(|w| ralc_runtime::plan::within(real, w))
    }

    /// The write prefixes of every layer, as real paths, the root left out.
    pub fn write_prefixes(&self) -> impl Iterator<Item = &str> {
        self.layers
            .iter()
            .filter_map(|c| c.fs.as_ref())
            .flat_map(|f| f.write.iter().map(|e| e.path.real().as_str()))
            .filter(|w| *w != "/")
    }

    /// Whether the stack permits a flag: a meet over the opining layers, silence permitting.
    pub fn permits(&self, flag: Flag) -> Result<Granted, Withheld<Flag>> {
        let mut verdicts = Vec::new();
        for (i, caps) in self.layers.iter().enumerate() {
            let cite = |origin: &super::layer::Origin| Cited {
                layer: i,
                origin: origin.clone().into(),
            };
            let v: Verdict<Flag> = match flag {
                Flag::Net => match &caps.net {
                    Some(off) => Err(Withheld::Excluded {
                        scope: flag,
                        by: cite(&off.origin),
                    }),
                    None => continue,
                },
                Flag::Detach => match &caps.detach {
                    Some((false, o)) => Err(Withheld::Excluded {
                        scope: flag,
                        by: cite(o),
                    }),
                    Some((true, o)) => Ok(Some(cite(o))),
                    None => continue,
                },
                Flag::Editor(v) => match verb(i, caps.editor.as_ref(), v) {
                    Some(v) => v,
                    None => continue,
                },
                Flag::Shell(v) => match verb(i, caps.shell.as_ref(), v) {
                    Some(v) => v,
                    None => continue,
                },
            };
            verdicts.push(v);
        }
        fold(verdicts.into_iter())
    }

    /// `is_restrictive` (spec §4.3): exec unless it admits everything with no exclusion; fs
    /// unless it writes the root and excludes nothing; net when `` `offline ``; a verb set
    /// unless it lists every verb.
    pub fn is_restrictive(&self) -> bool {
        self.exec_restricted()
            || self.fs_restricted()
            || self.layers.iter().any(|c| {
                c.net.is_some()
                    || c.editor
                        .as_ref()
                        .is_some_and(|s| s.verbs.len() < EditorVerb::ALL.len())
                    || c.shell
                        .as_ref()
                        .is_some_and(|s| s.verbs.len() < ShellVerb::ALL.len())
            })
    }

    /// Some layer restricts exec.
    pub fn exec_restricted(&self) -> bool {
        self.layers.iter().any(|c| {
            c.exec.as_ref().is_some_and(|g| {
                !(g.every()
                    && g.rules()
                        .iter()
                        .all(|r| r.policy == crate::capability::vocab::ExecPolicy::Allow))
            })
        })
    }

    /// Some layer restricts fs.
    pub fn fs_restricted(&self) -> bool {
        self.layers.iter().any(|c| {
            c.fs.as_ref().is_some_and(|f| {
                let writes_root = f.write.iter().any(|e| depth(e.path.real().as_str()) == 0);
                !(writes_root && f.deny.is_empty() && f.write_deny.is_empty())
            })
        })
    }
}

/// The link rule (`docs/model.md`): one layer's verdict for a program reached through the
/// vouched `links` (from `Resolve::links`), when the layer speaks to neither the program's
/// real file nor its name. The first link must sit directly in a directory the layer
/// allows (one of its live `Dir` scopes), and the layer's verdict at that link is the
/// program's; an exclusion of any link on the way excludes it (and `admit_at` offers no
/// links for a target within a write prefix). `None`: the rule does not
/// apply (no links, or the first is not in an allowed directory). The kernel's plan asks
/// the same question of every link in its allowed directories (`SandboxProjection::of`).
fn through_link(
    t: &ExecRules,
    program: &str,
    links: &[RealPath],
    subject: &ExecSubject,
    first: Option<&str>,
) -> Option<Verdict<ExecScope>> {
    let first_link = links.first()?;
    let dir = first_link
        .as_str()
        .rsplit_once('/')
        .map(|(d, _)| if d.is_empty() { "/" } else { d })?;
    let held = t.live().any(|(k, _)| match k {
        ExecScope::Dir(p) => {
            let d = p.real().as_str();
            d.strip_suffix('/').unwrap_or(d) == dir
        }
        _ => false,
    });
    if !held {
        return None;
    }
    let mut at_first = None;
    for l in links {
        let s = subject.at(program, l.clone());
        let v = with_subject_keys(l.as_str(), |keys| t.judge(&s, keys, first));
        if matches!(v, Err(Withheld::Excluded { .. })) {
            return Some(v);
        }
        if at_first.is_none() {
            at_first = Some(v);
        }
    }
    at_first.filter(|v| !matches!(v, Err(Withheld::MissingAllowance { .. })))
}

/// A verb set's verdict for one layer; `None`: the layer has no opinion.
fn verb<V: Ord + Copy>(
    layer: usize,
    set: Option<&super::layer::VerbSet<V>>,
    v: V,
) -> Option<Verdict<Flag>> {
    let s = set?;
    Some(if s.verbs.contains(&v) {
        // the deciding verb as written, not the whole set
        Ok(Some(Cited {
            layer,
            origin: s.at.get(&v).unwrap_or(&s.origin).clone().into(),
        }))
    } else {
        Err(Withheld::MissingAllowance { layer })
    })
}

/// Fold layer verdicts by meet; the granting entries are collected in layer order.
fn fold<K: Ord + Clone>(
    verdicts: impl Iterator<Item = Verdict<K>>,
) -> Result<Granted, Withheld<K>> {
    let mut granted = Granted::default();
    let mut worst: Option<Withheld<K>> = None;
    for v in verdicts {
        match v {
            Ok(Some(c)) => granted.decided_by.push(c),
            Ok(None) => {}
            Err(w) => {
                worst = Some(match worst {
                    None => w,
                    Some(old) => match meet_verdict::<K>(Err(old), Err(w)) {
                        Err(x) => x,
                        Ok(_) => return Err(Withheld::MissingAllowance { layer: 0 }),
                    },
                })
            }
        }
    }
    match worst {
        Some(w) => Err(w),
        None => Ok(granted),
    }
}

/// The discard device (judged on the real path).
pub fn is_discard(real: &str) -> bool {
    real == DISCARD
}

/// The real path of a question's subject: absolute as given, or relative to the cwd the
/// stack was frozen at.
fn first_fs_origin(c: &Capabilities) -> Option<&Origin> {
    c.fs.as_ref().and_then(|f| {
        f.read
            .iter()
            .chain(&f.write)
            .chain(&f.deny)
            .map(|e| &e.origin)
            .min()
    })
}

fn first_exec_origin(c: &Capabilities) -> Option<&Origin> {
    c.exec
        .as_ref()
        .and_then(|g| g.rules().iter().map(|r| &r.origin).min())
}

pub fn real_of(path: &str, r: &dyn Resolve) -> Option<RealPath> {
    if path.starts_with('/') {
        r.real(path)
    } else {
        let cwd = r.cwd().trim_end_matches('/');
        r.real(&format!("{cwd}/{path}"))
    }
}

/// Add a restrict file's own path (surface and real) to its write exclusions. A layer with
/// no fs opinion gets the fs that writes the root and withholds only that path, so it stays
/// top everywhere else.
fn protect_self(r: &mut Capabilities) {
    let Some(path) = r.source.path.clone() else {
        return;
    };
    let origin = |written: &str| fs::synthetic(&r.source.name, written);
    let mut entries = vec![FsEntry {
        path: path.clone(),
        origin: origin(path.surface_str()),
    }];
    if path.surface_str() != path.real().as_str() {
        let surface = FrozenPath::from_parts(
            path.surface_str(),
            RealPath::from_resolved(path.surface_str()),
        );
        entries.push(FsEntry {
            origin: origin(path.surface_str()),
            path: surface,
        });
    }
    let root = || FsEntry {
        path: FrozenPath::from_parts("/", RealPath::from_resolved("/")),
        origin: origin("/"),
    };
    let fs = r.fs.get_or_insert_with(|| FsPolicy {
        read: Vec::new(),
        write: vec![root()],
        deny: Vec::new(),
        write_deny: Vec::new(),
    });
    fs.write_deny.extend(entries);
}
