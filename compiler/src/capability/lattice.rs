//! The algebra of one layer: `Capabilities::extend` (the join of a policy with an extension
//! fragment, spec §4.4: a fragment's omitted axis is bottom, so it adds nothing) and the
//! meets and joins of exec policies at one key. There is no `Capabilities::meet`: a stack is
//! never flattened (`stack.rs` folds verdicts instead).
//!
//! The fs and exec joins are exact at every written key and err toward withholding
//! elsewhere (a fragment's exclusion is kept unless the other side grants its path; see
//! `docs/model.md`): a join computed here never grants what neither side grants.

use super::fs::{region, FsOp};
use super::layer::{Capabilities, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, VerbSet};
use super::table::Judge;
use crate::typecheck::profile::ExecPolicy;
use std::collections::BTreeMap;

/// Two policies at one key within a layer meet: deny wins, lists intersect.
pub fn meet_policy(a: &ExecPolicy, b: &ExecPolicy) -> ExecPolicy {
    match (a, b) {
        (ExecPolicy::Deny, _) | (_, ExecPolicy::Deny) => ExecPolicy::Deny,
        (ExecPolicy::Allow, x) | (x, ExecPolicy::Allow) => x.clone(),
        (ExecPolicy::Subcommands(x), ExecPolicy::Subcommands(y)) => {
            ExecPolicy::Subcommands(x.intersection(y).cloned().collect())
        }
    }
}

/// Two policies at one key across a join: allow wins, lists unite.
pub fn join_policy(a: &ExecPolicy, b: &ExecPolicy) -> ExecPolicy {
    match (a, b) {
        (ExecPolicy::Allow, _) | (_, ExecPolicy::Allow) => ExecPolicy::Allow,
        (ExecPolicy::Deny, x) | (x, ExecPolicy::Deny) => x.clone(),
        (ExecPolicy::Subcommands(x), ExecPolicy::Subcommands(y)) => {
            ExecPolicy::Subcommands(x.union(y).cloned().collect())
        }
    }
}

/// A grant's rules with every key met once (the first-written origin kept).
fn by_key(g: &ExecGrant) -> BTreeMap<ExecKey, ExecRule> {
    let mut m: BTreeMap<ExecKey, ExecRule> = BTreeMap::new();
    for r in g.rules() {
        match m.get_mut(&r.key) {
            Some(old) => old.policy = meet_policy(&old.policy, &r.policy),
            None => {
                m.insert(r.key.clone(), r.clone());
            }
        }
    }
    m
}

/// The join of two exec grants.
pub fn join_exec(a: &ExecGrant, b: &ExecGrant) -> ExecGrant {
    if a.every() || b.every() {
        return ExecGrant::top();
    }
    let mut m = by_key(a);
    for (k, r) in by_key(b) {
        match m.get_mut(&k) {
            Some(old) => {
                let p = join_policy(&old.policy, &r.policy);
                if p == r.policy && p != old.policy {
                    *old = r;
                } else {
                    old.policy = p;
                }
            }
            None => {
                m.insert(k, r);
            }
        }
    }
    let mut rules: Vec<ExecRule> = m.into_values().collect();
    rules.sort_by(|x, y| x.origin.cmp(&y.origin));
    ExecGrant::from_rules(rules)
}

/// Whether a layer's fs region grants a path (as a whole, ignoring arguments).
fn grants(caps: &Capabilities, op: FsOp, real: &str) -> bool {
    region(0, caps, op, &[], &[]).is_some_and(|t| t.verdict(real, None).is_ok())
}

/// Keep `side`'s exclusions, except where `other` grants their path: dropped where it
/// grants both reading and writing, narrowed to a write exclusion where it grants reading.
fn keep_denies(side: &[FsEntry], other: &Capabilities, out: &mut FsPolicy) {
    for d in side {
        let real = d.path.real().as_str();
        let (r, w) = (
            grants(other, FsOp::Read, real),
            grants(other, FsOp::Write, real),
        );
        match (r, w) {
            (true, true) => {}
            (true, false) => out.write_deny.push(d.clone()),
            _ => out.deny.push(d.clone()),
        }
    }
}

fn join_fs(base: &Capabilities, frag: &Capabilities) -> Option<FsPolicy> {
    let (a, b) = (base.fs.as_ref()?, frag.fs.as_ref()?);
    let mut out = FsPolicy {
        read: a.read.iter().chain(&b.read).cloned().collect(),
        write: a.write.iter().chain(&b.write).cloned().collect(),
        deny: Vec::new(),
        write_deny: a.write_deny.iter().chain(&b.write_deny).cloned().collect(),
    };
    keep_denies(&a.deny, frag, &mut out);
    keep_denies(&b.deny, base, &mut out);
    Some(out)
}

fn join_verbs<V: Ord + Copy>(a: &mut Option<VerbSet<V>>, b: &Option<VerbSet<V>>) {
    if let (Some(a), Some(b)) = (a.as_mut(), b.as_ref()) {
        a.verbs.extend(b.verbs.iter().copied());
    }
}

impl Capabilities {
    /// Join an extension fragment into this policy: an axis the policy omits is top and
    /// stays top; an axis the fragment omits is bottom and changes nothing.
    pub fn extend(&mut self, fragment: &Capabilities) {
        if let (Some(a), Some(b)) = (&self.exec, &fragment.exec) {
            self.exec = Some(join_exec(a, b));
        }
        if let Some(fs) = join_fs(self, fragment) {
            self.fs = Some(fs);
        }
        if let (Some((false, _)), Some((true, o))) = (&self.detach, &fragment.detach) {
            self.detach = Some((true, o.clone()));
        }
        join_verbs(&mut self.editor, &fragment.editor);
        join_verbs(&mut self.shell, &fragment.shell);
        self.dead.extend(fragment.dead.iter().cloned());
    }
}
