//! The questions the lints ask of the layers, each answered per layer with the entry that
//! decides it, over an index built once (lookups walk a path's ancestors, so every lint
//! stays O(n log n) in the number of entries).
//!
//! The fs questions (may this real path be read, written?) are always the model's own
//! judgment (`GrantStack::judge_real`, over the tables the stack compiles), asked once per
//! question: over a composed stack, that stack's; over bare layers (`run_layers` without a
//! stack), a `GrantStack::new` of those layers, built once per index. There is no second fs
//! judgment here. The layer indexes serve only the questions the model has no method for
//! (which entries cover or lie beneath a path; whether a directory runs with full evidence,
//! spec §5). Containment is only ever confirmed through `path::identity::path_within`.

use crate::capability::fs::FsOp;
use crate::capability::index::key_of;
use crate::capability::layer::{Capabilities, ExecKey, ExecRule, FsEntry, FsPolicy, Origin};
use crate::capability::resolve::Resolve;
use crate::capability::stack::GrantStack;
use crate::capability::table::Cited;
use crate::path::frozen::RealPath;
use crate::path::identity::{path_within, Identity};
use crate::typecheck::profile::ExecPolicy;
use std::borrow::Cow;
use std::collections::HashMap;

/// One component's index key under an identity (the Collision key is the model's memoised
/// `capability::index::key_of`).
fn push_key(k: &mut String, identity: Identity, c: &str) {
    k.push('/');
    match identity {
        Identity::Stored => k.push_str(c),
        Identity::Collision => k.push_str(&key_of(c)),
    }
}

/// The components of an absolute POSIX-style real path.
pub fn components(path: &str) -> Vec<&str> {
    path.split('/').filter(|c| !c.is_empty()).collect()
}

/// The index key of a path under an identity.
pub fn key(identity: Identity, path: &str) -> String {
    let mut k = String::new();
    for c in components(path) {
        push_key(&mut k, identity, c);
    }
    if k.is_empty() {
        k.push('/');
    }
    k
}

/// The number of components of an absolute POSIX-style real path (`components(p).len()`).
pub fn depth(path: &str) -> usize {
    path.split('/').filter(|c| !c.is_empty()).count()
}

/// Whether `path` is its own index key under `identity` (`key` would give it back): `/`,
/// or `/` and non-empty names, which `Collision` leaves alone (ASCII, no uppercase).
fn is_own_key(identity: Identity, path: &str) -> bool {
    path == "/"
        || (path.starts_with('/')
            && !path.ends_with('/')
            && !path.contains("//")
            && match identity {
                Identity::Stored => true,
                Identity::Collision => {
                    path.is_ascii() && !path.bytes().any(|b| b.is_ascii_uppercase())
                }
            })
}

/// `key`, borrowing `path` when it is its own key.
fn key_cow(identity: Identity, path: &str) -> Cow<'_, str> {
    if is_own_key(identity, path) {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(key(identity, path))
    }
}

/// The keys of `path` and each of its ancestors, the path itself last.
pub fn ancestor_keys(identity: Identity, path: &str) -> Vec<String> {
    let comps = components(path);
    let mut out = vec!["/".to_string()];
    let mut k = String::new();
    for c in comps {
        push_key(&mut k, identity, c);
        out.push(k.clone());
    }
    out
}

/// One key of a [`PathIndex`] with the entries filed under it.
type Keyed<'a, T> = (Cow<'a, str>, Vec<(&'a str, &'a T)>);

/// Entries indexed by the key of their real path (several may share one; a path that is
/// its own key is borrowed, not copied): the keys in order, for the scans beneath a path,
/// and hashed, for the lookups along one.
#[derive(Debug)]
pub struct PathIndex<'a, T> {
    identity: Identity,
    /// Each key with its entries (in the order given), keys ascending.
    sorted: Vec<Keyed<'a, T>>,
    /// Each key's place in `sorted`.
    at: HashMap<Cow<'a, str>, usize>,
}

impl<'a, T> PathIndex<'a, T> {
    pub fn new(identity: Identity, items: impl IntoIterator<Item = (&'a str, &'a T)>) -> Self {
        let mut keyed: Vec<(Cow<'a, str>, (&'a str, &'a T))> = items
            .into_iter()
            .map(|(p, t)| (key_cow(identity, p), (p, t)))
            .collect();
        // stable: entries under one key keep the order they were given in
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut sorted: Vec<Keyed<'a, T>> = Vec::new();
        for (k, e) in keyed {
            match sorted.last_mut() {
                Some((last, v)) if *last == k => v.push(e),
                _ => sorted.push((k, vec![e])),
            }
        }
        let at = sorted
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        PathIndex {
            identity,
            sorted,
            at,
        }
    }
    /// The entries filed under key `k`.
    fn get(&self, k: &str) -> Option<&Vec<(&'a str, &'a T)>> {
        let i = *self.at.get(k)?;
        self.sorted.get(i).map(|(_, v)| v)
    }
    /// The keys from `lo` on, ascending, with their entries.
    fn keys_from<'s>(&'s self, lo: &str) -> impl Iterator<Item = &'s Keyed<'a, T>> {
        let start = self.sorted.partition_point(|(k, _)| k.as_ref() < lo);
        self.sorted[start..].iter()
    }
    /// Entries whose path is `path` or an ancestor of it, deepest first.
    pub fn covering(&self, path: &str) -> Vec<(usize, &'a T)> {
        let mut out = Vec::new();
        let mut at = |depth: usize, k: &str| {
            if let Some(v) = self.get(k) {
                for (p, t) in v {
                    if path_within(self.identity, p, path) {
                        out.push((depth, *t));
                    }
                }
            }
        };
        if is_own_key(self.identity, path) {
            // the ancestors' keys are `path`'s own prefixes, cut at each separator
            let (mut k, mut d) = (path, depth(path));
            loop {
                at(d, k);
                if d == 0 {
                    break;
                }
                k = match k.rfind('/') {
                    Some(0) | None => "/",
                    Some(i) => &k[..i],
                };
                d -= 1;
            }
        } else {
            for (depth, k) in ancestor_keys(self.identity, path).iter().enumerate().rev() {
                at(depth, k);
            }
        }
        out
    }
    /// Entries whose path lies strictly beneath `path` (a range scan of the index).
    pub fn beneath(&self, path: &str) -> Vec<&'a T> {
        let k = key_cow(self.identity, path);
        let lo = if k == "/" {
            "/".to_string()
        } else {
            format!("{k}/")
        };
        let mut out = Vec::new();
        for (kk, v) in self.keys_from(&lo) {
            if !kk.starts_with(&lo) {
                break;
            }
            for (p, t) in v {
                if path_within(self.identity, path, p) && key_cow(self.identity, p) != k {
                    out.push(*t);
                }
            }
        }
        out
    }
    /// Whether some entry lies strictly beneath `path` (stops at the first).
    pub fn has_beneath(&self, path: &str) -> bool {
        let k = key_cow(self.identity, path);
        let lo = if k == "/" {
            "/".to_string()
        } else {
            format!("{k}/")
        };
        self.keys_from(&lo)
            .take_while(|(kk, _)| kk.starts_with(&lo))
            .any(|(kk, v)| *kk != k && v.iter().any(|(p, _)| path_within(self.identity, path, p)))
    }
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
}

/// One layer's fs policy, indexed.
#[derive(Debug)]
pub struct FsIndex<'a> {
    pub policy: &'a FsPolicy,
    pub read: PathIndex<'a, FsEntry>,
    pub write: PathIndex<'a, FsEntry>,
    pub deny: PathIndex<'a, FsEntry>,
    pub write_deny: PathIndex<'a, FsEntry>,
}

fn fs_items(v: &[FsEntry]) -> impl Iterator<Item = (&str, &FsEntry)> {
    v.iter().map(|e| (e.path.real().as_str(), e))
}

impl<'a> FsIndex<'a> {
    pub fn new(policy: &'a FsPolicy) -> Self {
        FsIndex {
            policy,
            read: PathIndex::new(Identity::Stored, fs_items(&policy.read)),
            write: PathIndex::new(Identity::Stored, fs_items(&policy.write)),
            deny: PathIndex::new(Identity::Collision, fs_items(&policy.deny)),
            write_deny: PathIndex::new(Identity::Collision, fs_items(&policy.write_deny)),
        }
    }
    /// The exclusion of this layer covering `path`, if any.
    pub fn excluded(&self, path: &str) -> Option<&'a FsEntry> {
        self.deny.covering(path).first().map(|(_, e)| *e)
    }
}

/// One layer's exec directory keys, indexed.
#[derive(Debug)]
pub struct ExecIndex<'a> {
    pub every: bool,
    pub rules: &'a [ExecRule],
    pub dir_allow: PathIndex<'a, ExecRule>,
    pub dir_deny: PathIndex<'a, ExecRule>,
}

impl<'a> ExecIndex<'a> {
    pub fn new(layer: &'a Capabilities) -> Option<Self> {
        let g = layer.exec.as_ref()?;
        let dirs = |want_allow: bool| {
            g.rules()
                .iter()
                .filter_map(move |r| match (&r.key, &r.policy) {
                    (ExecKey::Dir(p), ExecPolicy::Deny) if !want_allow => {
                        Some((p.real().as_str(), r))
                    }
                    (ExecKey::Dir(p), ExecPolicy::Allow | ExecPolicy::Subcommands(_))
                        if want_allow =>
                    {
                        Some((p.real().as_str(), r))
                    }
                    _ => None,
                })
        };
        Some(ExecIndex {
            every: g.every(),
            rules: g.rules(),
            dir_allow: PathIndex::new(Identity::Stored, dirs(true)),
            dir_deny: PathIndex::new(Identity::Collision, dirs(false)),
        })
    }
    /// Whether everything beneath directory `path` runs in this layer with full evidence:
    /// the deepest `Dir` keys covering it are allowances only (`Any` counts as the root).
    /// `Ok(None)` for `Any`, `Ok(Some(rule))` for the deciding key.
    pub fn runs_dir(&self, path: &str) -> Result<Option<&'a ExecRule>, Option<&'a ExecRule>> {
        let a = self.dir_allow.covering(path);
        let d = self.dir_deny.covering(path);
        let best_a = a.first().copied();
        let best_d = d.first().copied();
        match (best_a, best_d) {
            (_, Some((dd, r))) if best_a.is_none_or(|(ad, _)| dd >= ad) => Err(Some(r)),
            (Some((_, r)), _) => {
                if matches!(r.policy, ExecPolicy::Allow) {
                    Ok(Some(r))
                } else {
                    Err(Some(r))
                }
            }
            _ if self.every => Ok(None),
            _ => Err(None),
        }
    }
}

/// The layers, indexed once, with the model that judges them.
#[derive(Debug)]
pub struct StackIndex<'a> {
    pub layers: &'a [Capabilities],
    /// The model: the composed stack the lints run over, or one built from the bare layers.
    model: Cow<'a, GrantStack>,
    /// `(layer index, its fs)`, for layers that opine on fs.
    pub fs: Vec<(usize, FsIndex<'a>)>,
    /// `(layer index, its exec)`, for layers that opine on exec.
    pub exec: Vec<(usize, ExecIndex<'a>)>,
}

impl<'a> StackIndex<'a> {
    /// Bare layers (no composed stack), judged by a model built from them as they stand.
    pub fn new(layers: &'a [Capabilities]) -> Self {
        Self::with_model(layers, Cow::Owned(GrantStack::new(layers.to_vec())))
    }
    /// The layers of a composed stack, judged by that stack.
    pub fn of_stack(stack: &'a GrantStack) -> Self {
        Self::with_model(stack.layers(), Cow::Borrowed(stack))
    }
    fn with_model(layers: &'a [Capabilities], model: Cow<'a, GrantStack>) -> Self {
        StackIndex {
            layers,
            model,
            fs: layers
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.fs.as_ref().map(|f| (i, FsIndex::new(f))))
                .collect(),
            exec: layers
                .iter()
                .enumerate()
                .filter_map(|(i, l)| ExecIndex::new(l).map(|e| (i, e)))
                .collect(),
        }
    }
    /// Some layer restricts the file system (the model's `fs_restricted`).
    pub fn fs_restricted(&self) -> bool {
        self.model.fs_restricted()
    }
    /// Some layer restricts exec (the model's `exec_restricted`).
    pub fn exec_restricted(&self) -> bool {
        self.model.exec_restricted()
    }
    /// Writing real `path` under the stack: `Some(a deciding entry)` when every fs layer
    /// writes it (`Some(None)` when no layer opines), `None` when some layer withholds it.
    pub fn writable(&self, path: &str) -> Option<Option<Origin>> {
        self.judge(FsOp::Write, path)
    }
    /// Reading real `path` under the stack, the same way.
    pub fn readable(&self, path: &str) -> Option<Option<Origin>> {
        self.judge(FsOp::Read, path)
    }
    /// The model's judgment. Of the entries that granted it (one per opining layer), the
    /// finding cites the deepest, the lowest layer among equals: the narrowest grant, as
    /// the user wrote it first.
    fn judge(&self, op: FsOp, path: &str) -> Option<Option<Origin>> {
        let g = self
            .model
            .judge_real(op, &RealPath::from_resolved(path), &AlreadyReal)
            .ok()?;
        let mut best: Option<(usize, &Cited)> = None;
        for c in &g.decided_by {
            let d = self.entry_depth(op, c, path);
            if best.is_none_or(|(bd, _)| d > bd) {
                best = Some((d, c));
            }
        }
        Some(best.map(|(_, c)| (*c.origin).clone()))
    }
    /// How deep the fs entry a granting citation names lies (0 for a place no entry
    /// wrote: a run place, the floor).
    fn entry_depth(&self, op: FsOp, c: &Cited, path: &str) -> usize {
        let Some((_, f)) = self.fs.iter().find(|(i, _)| *i == c.layer) else {
            return 0;
        };
        let mut regions = vec![&f.write];
        if op == FsOp::Read {
            regions.push(&f.read);
        }
        regions
            .into_iter()
            .flat_map(|r| r.covering(path))
            .find(|(_, e)| e.origin == *c.origin)
            .map_or(0, |(d, _)| d)
    }
    /// Directory `path` runs under the stack: every exec layer runs it with full evidence.
    /// `Some(deepest deciding key)`; `Some(None)` when only `Any` (or no layer) decides.
    pub fn runs_dir(&self, path: &str) -> Option<Option<&'a ExecRule>> {
        let mut best: Option<(usize, &'a ExecRule)> = None;
        for (_, e) in &self.exec {
            match e.runs_dir(path) {
                Err(_) => return None,
                Ok(None) => {}
                Ok(Some(r)) => {
                    let d = match &r.key {
                        ExecKey::Dir(p) => depth(p.real().as_str()),
                        _ => 0,
                    };
                    if best.is_none_or(|(bd, _)| d > bd) {
                        best = Some((d, r));
                    }
                }
            }
        }
        Some(best.map(|(_, r)| r))
    }
    /// The stack admits running program `path` (real) with no arguments (the model's
    /// `admit`); `None` when it withholds it.
    pub fn model_admits(&self, path: &str) -> Option<()> {
        self.model.admit(path, &[], &AlreadyReal).ok().map(|_| ())
    }
    /// An fs exclusion of any layer covering `path`.
    pub fn excluded(&self, path: &str) -> Option<&'a FsEntry> {
        self.fs.iter().find_map(|(_, f)| f.excluded(path))
    }
}

/// The resolver handed to `GrantStack::judge_real` for paths that are already real: the
/// lints ask only about real paths taken from frozen entries, so nothing is resolved.
pub(crate) struct AlreadyReal;

impl Resolve for AlreadyReal {
    fn which(&self, _name: &str) -> Option<(String, RealPath)> {
        None
    }
    fn real(&self, path: &str) -> Option<RealPath> {
        Some(RealPath::from_resolved(path))
    }
    fn cwd(&self) -> &str {
        "/"
    }
}

/// `file:line:col` of an origin.
pub fn at(o: &Origin) -> String {
    format!("{}:{}:{}", o.file, o.line, o.column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::LayerBuilder;

    #[test]
    fn an_exclusion_beats_a_deeper_allowance_and_matches_every_spelling() {
        let mut sm = SourceMap::new();
        let l = LayerBuilder::new("a.ral")
            .write("/home/u/p")
            .write("/home/u/p/Secret/ok")
            .deny("/home/u/p/secret")
            .build(&mut sm);
        let layers = [l];
        let s = StackIndex::new(&layers);
        assert!(s.writable("/home/u/p/x").is_some());
        assert!(s.writable("/home/u/p/Secret/ok/x").is_none());
        assert!(s.writable("/home/u/other").is_none());
        assert!(s.readable("/home/u/p/x").is_some());
    }

    #[test]
    fn deeper_exec_dir_beats_shallower() {
        let mut sm = SourceMap::new();
        let l = LayerBuilder::new("a.ral")
            .exec_dir("/opt/", ExecPolicy::Allow)
            .exec_dir("/opt/bad/", ExecPolicy::Deny)
            .exec_dir("/opt/bad/good/", ExecPolicy::Allow)
            .build(&mut sm);
        let layers = [l];
        let s = StackIndex::new(&layers);
        assert!(s.runs_dir("/opt/x").is_some());
        assert!(s.runs_dir("/opt/bad/x").is_none());
        assert!(s.runs_dir("/opt/bad/good/x").is_some());
        assert!(s.runs_dir("/usr").is_none());
    }

    #[test]
    fn beneath_scans_only_descendants() {
        let items = [
            ("/a/b".to_string(), 1),
            ("/a/bc".to_string(), 2),
            ("/a/b/c".to_string(), 3),
        ];
        let idx = PathIndex::new(Identity::Stored, items.iter().map(|(p, t)| (p.as_str(), t)));
        assert_eq!(idx.beneath("/a/b"), vec![&3]);
        assert_eq!(idx.beneath("/").len(), 3);
    }

    /// The borrowed keys and the prefix walk find what the owned keys of every ancestor
    /// find, under both identities, for paths that are their own keys and paths that are
    /// not.
    #[test]
    fn covering_walks_the_same_keys_as_ancestor_keys() {
        let paths = [
            "/", "/a", "/a/b", "/a/b/c", "/A", "/A/b", "/a/B/c", "/é", "/é/x", "/a/", "//a",
            "/a//b", "/ab", "/a/bc", "/x/y/z/w",
        ];
        let items: Vec<(String, usize)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.to_string(), i))
            .collect();
        for identity in [Identity::Stored, Identity::Collision] {
            let idx = PathIndex::new(identity, items.iter().map(|(p, t)| (p.as_str(), t)));
            for q in paths.iter().chain(&["/a/b/c/d", "/A/B/C", "/q", "/é/x/y"]) {
                let mut want = Vec::new();
                for (d, k) in ancestor_keys(identity, q).iter().enumerate().rev() {
                    for (p, t) in &items {
                        if key(identity, p) == *k && path_within(identity, p, q) {
                            want.push((d, t));
                        }
                    }
                }
                assert_eq!(idx.covering(q), want, "{q} {identity:?}");
                assert_eq!(key_cow(identity, q), key(identity, q), "{q} {identity:?}");
                assert_eq!(depth(q), components(q).len());
            }
        }
    }
}
