//! The algebra of one layer: `Capabilities::extend` (the join of a policy with an extension
//! fragment, spec §4.4: a fragment's omitted axis is bottom, so it adds nothing) and the
//! meets and joins of exec policies at one key. There is no `Capabilities::meet`: a stack is
//! never flattened (`stack.rs` folds verdicts instead).
//!
//! The fs join unites the allowances and keeps every exclusion of both sides; the exec join
//! is exact at every written key. Both err toward withholding elsewhere (`docs/model.md`):
//! a join computed here never grants what neither side grants (a property test).

use super::layer::{Capabilities, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, VerbSet};
use crate::capability::vocab::ExecPolicy;
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

/// A layer's own run places (its positive exec `File` and `Dir` keys) as read entries.
fn run_places(caps: &Capabilities) -> Vec<FsEntry> {
    caps.exec
        .iter()
        .flat_map(|g| g.rules())
        .filter(|r| r.policy != ExecPolicy::Deny)
        .filter_map(|r| match &r.key {
            ExecKey::File(p) | ExecKey::Dir(p) => Some(FsEntry {
                path: p.clone(),
                origin: r.origin.clone(),
            }),
            ExecKey::Name(_) => None,
        })
        .collect()
}

fn join_fs(base: &Capabilities, frag: &Capabilities) -> Option<FsPolicy> {
    let (a, b) = (base.fs.as_ref()?, frag.fs.as_ref()?);
    let out = FsPolicy {
        // the fragment's run places read in its region; keep them when its exec is lost
        // to a policy whose exec is top
        read: a
            .read
            .iter()
            .chain(&b.read)
            .cloned()
            .chain(run_places(frag))
            .collect(),
        write: a.write.iter().chain(&b.write).cloned().collect(),
        // every exclusion of either side is kept: an exclusion holds under every spelling,
        // so no allowance of the other side can be shown to cover all it withholds
        deny: a.deny.iter().chain(&b.deny).cloned().collect(),
        write_deny: a.write_deny.iter().chain(&b.write_deny).cloned().collect(),
    };
    Some(out)
}

fn join_verbs<V: Ord + Copy>(a: &mut Option<VerbSet<V>>, b: &Option<VerbSet<V>>) {
    if let (Some(a), Some(b)) = (a.as_mut(), b.as_ref()) {
        for (v, o) in &b.at {
            if !a.verbs.contains(v) {
                a.at.insert(*v, o.clone());
            }
        }
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
