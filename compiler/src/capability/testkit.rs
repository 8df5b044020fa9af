//! Test scaffolding for the model: a fake `Resolve` and builders for frozen layers, so the
//! model is tested without the front end or the disk. Compiled for tests only.

use super::layer::{
    Capabilities, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, LayerRole, LayerSource,
    NetOffline, Origin, VerbSet,
};
use super::resolve::Resolve;
use crate::capability::vocab::ExecPolicy;
use crate::path::frozen::{FrozenPath, RealPath};
use std::collections::{BTreeMap, BTreeSet};

/// A host described as data: `PATH` lookups, symlinks (prefix → target) and the carriers
/// (vouched `#!` interpreters) of scripts.
#[derive(Clone, Debug, Default)]
pub struct FakeHost {
    pub which: BTreeMap<String, String>,
    pub links: BTreeMap<String, String>,
    pub carriers: BTreeMap<String, Vec<String>>,
    /// Vouched link chains: where a program is found → the links on the way.
    pub chains: BTreeMap<String, Vec<String>>,
    /// Directory listings (`Resolve::names`): directory → entry names.
    pub listings: BTreeMap<String, Vec<String>>,
    pub cwd: String,
}

impl FakeHost {
    pub fn new() -> Self {
        FakeHost {
            cwd: "/work".into(),
            ..Default::default()
        }
    }
    pub fn on_path(mut self, name: &str, at: &str) -> Self {
        self.which.insert(name.into(), at.into());
        self
    }
    pub fn link(mut self, from: &str, to: &str) -> Self {
        self.links.insert(from.into(), to.into());
        self
    }
    /// A vouched link at `from` to `to` (a link's chain is itself; `link` resolves it).
    pub fn vouched_link(mut self, from: &str, to: &str) -> Self {
        self.links.insert(from.into(), to.into());
        self.chains.insert(from.into(), vec![from.into()]);
        self
    }
    /// The directory `dir` lists `names`.
    pub fn lists(mut self, dir: &str, names: &[&str]) -> Self {
        self.listings
            .insert(dir.into(), names.iter().map(|n| n.to_string()).collect());
        self
    }
    /// `script` starts through the interpreters `chain` (outermost first).
    pub fn script(mut self, script: &str, chain: &[&str]) -> Self {
        self.carriers
            .insert(script.into(), chain.iter().map(|c| c.to_string()).collect());
        self
    }
}

impl Resolve for FakeHost {
    fn which(&self, name: &str) -> Option<(String, RealPath)> {
        let at = self.which.get(name)?;
        Some((at.clone(), self.real(at)?))
    }
    fn real(&self, path: &str) -> Option<RealPath> {
        if !path.starts_with('/') {
            return None;
        }
        let mut out: Vec<&str> = Vec::new();
        for c in path.split('/').filter(|c| !c.is_empty()) {
            match c {
                "." => {}
                ".." => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        let mut p = format!("/{}", out.join("/"));
        for (from, to) in &self.links {
            if p == *from || p.starts_with(&format!("{from}/")) {
                p = format!("{to}{}", &p[from.len()..]);
            }
        }
        Some(RealPath::from_resolved(p))
    }
    fn cwd(&self) -> &str {
        &self.cwd
    }
    fn links(&self, at: &str) -> Option<super::resolve::LinkChain> {
        let c = self.chains.get(at)?;
        Some(super::resolve::LinkChain {
            links: c
                .iter()
                .map(|p| RealPath::from_resolved(p.as_str()))
                .collect(),
            target: self.real(at)?,
        })
    }
    fn link_chains_in(&self, dir: &str) -> Vec<super::resolve::LinkChain> {
        let d = dir.trim_end_matches('/');
        self.chains
            .keys()
            .filter(|k| k.rsplit_once('/').is_some_and(|(p, _)| p == d))
            .filter_map(|k| self.links(k))
            .collect()
    }
    fn carriers(&self, program: &RealPath) -> Vec<RealPath> {
        self.carriers
            .get(program.as_str())
            .map(|c| {
                c.iter()
                    .map(|p| RealPath::from_resolved(p.as_str()))
                    .collect()
            })
            .unwrap_or_default()
    }
    fn names(&self, dir: &str) -> Vec<String> {
        self.listings.get(dir).cloned().unwrap_or_default()
    }
}

pub fn origin(file: &str, line: u32, written: &str) -> Origin {
    Origin {
        file: file.into(),
        line,
        column: 3,
        span: Default::default(),
        written: written.into(),
    }
}

pub fn fp(p: &str) -> FrozenPath {
    FrozenPath::from_parts(p, RealPath::from_resolved(p))
}

/// A layer under construction; entries get successive line numbers.
pub struct L {
    pub caps: Capabilities,
    line: u32,
    rules: Option<Vec<ExecRule>>,
}

impl L {
    pub fn new(name: &str) -> Self {
        L {
            caps: Capabilities::empty(LayerSource {
                name: name.into(),
                role: LayerRole::Policy,
                path: None,
            }),
            line: 1,
            rules: None,
        }
    }
    fn o(&mut self, written: &str) -> Origin {
        self.line += 1;
        origin(&self.caps.source.name.clone(), self.line, written)
    }
    fn fs(&mut self) -> &mut FsPolicy {
        self.caps.fs.get_or_insert_with(FsPolicy::default)
    }
    pub fn read(mut self, p: &str) -> Self {
        let origin = self.o(p);
        self.fs().read.push(FsEntry {
            path: fp(p),
            origin,
        });
        self
    }
    pub fn write(mut self, p: &str) -> Self {
        let origin = self.o(p);
        self.fs().write.push(FsEntry {
            path: fp(p),
            origin,
        });
        self
    }
    pub fn deny(mut self, p: &str) -> Self {
        let origin = self.o(p);
        self.fs().deny.push(FsEntry {
            path: fp(p),
            origin,
        });
        self
    }
    pub fn fs_empty(mut self) -> Self {
        self.fs();
        self
    }
    pub fn exec_rule(mut self, key: ExecKey, policy: ExecPolicy) -> Self {
        let written = match &key {
            ExecKey::Name(n) => n.clone(),
            ExecKey::File(p) => p.surface_str().to_owned(),
            ExecKey::Dir(p) => format!("{}/", p.surface_str()),
        };
        let origin = self.o(&written);
        self.rules.get_or_insert_with(Vec::new).push(ExecRule {
            key,
            policy,
            origin,
        });
        self
    }
    pub fn dir(self, p: &str, policy: ExecPolicy) -> Self {
        self.exec_rule(ExecKey::Dir(fp(p)), policy)
    }
    pub fn file(self, p: &str, policy: ExecPolicy) -> Self {
        self.exec_rule(ExecKey::File(fp(p)), policy)
    }
    pub fn name(self, n: &str, policy: ExecPolicy) -> Self {
        self.exec_rule(ExecKey::Name(n.into()), policy)
    }
    pub fn exec_empty(mut self) -> Self {
        self.rules.get_or_insert_with(Vec::new);
        self
    }
    pub fn offline(mut self) -> Self {
        let origin = self.o("net");
        self.caps.net = Some(NetOffline { origin });
        self
    }
    pub fn detach(mut self, b: bool) -> Self {
        let origin = self.o("detach");
        self.caps.detach = Some((b, origin));
        self
    }
    pub fn editor(mut self, verbs: &[crate::capability::vocab::EditorVerb]) -> Self {
        let origin = self.o("editor");
        self.caps.editor = Some(VerbSet {
            verbs: verbs.iter().copied().collect(),
            origin,
            at: Default::default(),
        });
        self
    }
    pub fn done(mut self) -> Capabilities {
        if let Some(rules) = self.rules.take() {
            self.caps.exec = Some(ExecGrant::from_rules(rules));
        }
        self.caps
    }
}

pub fn allow() -> ExecPolicy {
    ExecPolicy::Allow
}
pub fn deny() -> ExecPolicy {
    ExecPolicy::Deny
}
pub fn subs(list: &[&str]) -> ExecPolicy {
    ExecPolicy::Subcommands(list.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>())
}
