//! `PathIndex`: a component trie over the real paths of a table's path scopes, so a
//! judgment visits only the scopes lying along the subject's own path instead of every
//! entry. It is a filter, never a decision: it is keyed by the Collision key of each
//! component (`path::identity::collision_key`, the coarsest identity, so it over-approximates
//! both allowances and exclusions) and every candidate is then confirmed by its scope
//! through `path_within`. It must never drop a scope that could speak to the subject.

use crate::path::identity::collision_key;
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
struct Node {
    children: HashMap<String, u32>,
    here: Vec<u32>,
}

/// The trie; node 0 is the root (`/`).
#[derive(Clone, Debug)]
pub struct PathIndex {
    nodes: Vec<Node>,
}

impl Default for PathIndex {
    fn default() -> Self {
        PathIndex {
            nodes: vec![Node::default()],
        }
    }
}

/// The components of an absolute POSIX-style real path (empty components skipped).
pub fn components(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|c| !c.is_empty())
}

/// How many components a real path has (`/` has none).
pub fn depth(path: &str) -> u32 {
    u32::try_from(components(path).count()).unwrap_or(u32::MAX)
}

/// The subject's per-component index keys, computed once per question.
pub fn subject_keys(path: &str) -> Vec<String> {
    components(path).map(collision_key).collect()
}

impl PathIndex {
    pub fn insert(&mut self, path: &str, id: u32) {
        let mut at = 0usize;
        for c in components(path) {
            let key = collision_key(c);
            let next = match self.nodes[at].children.get(&key) {
                Some(n) => *n as usize,
                None => {
                    let n = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[at]
                        .children
                        .insert(key, u32::try_from(n).unwrap_or(u32::MAX));
                    n
                }
            };
            at = next;
        }
        self.nodes[at].here.push(id);
    }

    /// Every id stored at the root or at a node along the subject's path.
    pub fn candidates(&self, keys: &[String], out: &mut Vec<u32>) {
        let mut at = 0usize;
        out.extend_from_slice(&self.nodes[0].here);
        for k in keys {
            match self.nodes[at].children.get(k) {
                Some(n) => at = *n as usize,
                None => return,
            }
            out.extend_from_slice(&self.nodes[at].here);
        }
    }
}

use super::table::{Scope, Table, Verdict};

/// A scope the index can file: by the real path it lies along (`None`: it speaks
/// regardless of path, such as `Any` or a name veto, and is always a candidate).
pub trait Indexed: Scope {
    fn index_path(&self) -> Option<&str>;
}

/// A table compiled once for judging: the table and its index.
#[derive(Clone, Debug)]
pub struct Rules<K> {
    table: Table<K>,
    index: PathIndex,
    always: Vec<u32>,
}

impl<K: Indexed> Rules<K> {
    pub fn compile(table: Table<K>) -> Self {
        let mut index = PathIndex::default();
        let mut always = Vec::new();
        for (i, (k, _)) in table.cells().iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            match k.index_path() {
                Some(p) => index.insert(p, id),
                None => always.push(id),
            }
        }
        Rules {
            table,
            index,
            always,
        }
    }
    pub fn table(&self) -> &Table<K> {
        &self.table
    }
    /// Judge a subject whose per-component keys are `keys` (`subject_keys` of its path).
    pub fn judge(&self, s: &K::Subject, keys: &[String], arg: Option<&str>) -> Verdict<K> {
        let mut ids = Vec::with_capacity(8);
        self.index.candidates(keys, &mut ids);
        ids.extend_from_slice(&self.always);
        let cells = self.table.cells();
        self.table
            .decide(ids.iter().filter_map(|i| cells.get(*i as usize)), s, arg)
    }
}
