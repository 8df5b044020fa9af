//! `PathIndex`: a component trie over the real paths of a table's path scopes, so a
//! judgment visits only the scopes lying along the subject's own path instead of every
//! entry. It is a filter, never a decision: it is keyed by the Collision key of each
//! component (`path::identity::collision_key`, the coarsest identity, so it over-approximates
//! both allowances and exclusions) and every candidate is then confirmed by its scope
//! through `path_within`. It must never drop a scope that could speak to the subject.

use crate::path::identity::{collision_key, command_name_key, path_within, Identity};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a: the trie's and memo's keys are short path components; SipHash's DoS
/// resistance buys nothing here (the keys come from the stack's own entries).
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A map hashed with FNV-1a.
pub type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// FNV-1a of one key: computed once per subject component, then reused by every layer's
/// trie (a child is found by comparing hashes, then confirmed by its key).
pub fn fnv(key: &str) -> u64 {
    let mut h = Fnv::default();
    h.write(key.as_bytes());
    h.finish()
}

/// No id: `Node::here` is empty.
const NO_ID: u32 = u32::MAX;

/// A child: its key's hash, its key (`[start, end)` in the trie's `keys`), its node.
type Child = (u64, [u32; 2], u32);

#[derive(Clone, Debug)]
struct Node {
    /// Children sorted by (hash, key): a lookup is a binary search on the hash and a
    /// comparison of the key (hashes may collide; the key decides).
    children: Vec<Child>,
    /// The first id filed here (`NO_ID`: none), and where any others are in the trie's
    /// `more` (`NO_ID`: there are none): most nodes hold one id or none, kept without an
    /// allocation of their own.
    here: u32,
    more: u32,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            children: Vec::new(),
            here: NO_ID,
            more: NO_ID,
        }
    }
}

/// The text of a child's key in `keys`.
fn key_text(keys: &str, at: [u32; 2]) -> &str {
    keys.get(at[0] as usize..at[1] as usize).unwrap_or("")
}

impl Node {
    fn child(&self, keys: &str, key: &SubjectKey<'_>) -> Option<u32> {
        let start = self.children.partition_point(|(h, _, _)| *h < key.hash);
        self.children[start..]
            .iter()
            .take_while(|(h, _, _)| *h == key.hash)
            .find(|(_, k, _)| key_text(keys, *k) == &*key.key)
            .map(|(_, _, n)| *n)
    }
    /// The ids filed here, in the order they were filed (`more`: the trie's).
    fn ids<'a>(&self, more: &'a [Vec<u32>]) -> impl Iterator<Item = u32> + 'a {
        let rest: &'a [u32] = more.get(self.more as usize).map_or(&[], Vec::as_slice);
        (self.here != NO_ID)
            .then_some(self.here)
            .into_iter()
            .chain(rest.iter().copied())
    }
}

/// The trie; node 0 is the root (`/`). Every child's key is kept once in `keys`, one
/// string for the whole trie (no allocation per node).
#[derive(Clone, Debug)]
pub struct PathIndex {
    nodes: Vec<Node>,
    keys: String,
    /// The second and later ids of the nodes that hold several (`Node::more`).
    more: Vec<Vec<u32>>,
}

impl Default for PathIndex {
    fn default() -> Self {
        PathIndex {
            nodes: vec![Node::default()],
            keys: String::new(),
            more: Vec::new(),
        }
    }
}

/// The components of an absolute POSIX-style real path (empty components skipped).
pub fn components(path: &str) -> impl Iterator<Item = &str> {
    crate::path::identity::posix_components(path)
}

/// How many components a real path has (`/` has none).
pub fn depth(path: &str) -> u32 {
    // a component starts at each byte that is not `/` and follows `/` or the start
    let mut n = 0u32;
    let mut prev = b'/';
    for &b in path.as_bytes() {
        if b != b'/' && prev == b'/' {
            n = n.saturating_add(1);
        }
        prev = b;
    }
    n
}

/// `path_within`, with a byte fast path: when `path` is `prefix` followed by nothing or
/// by `/` (or `prefix` ends in `/`), each component of `prefix` is byte-equal to the
/// matching one of `path`, which is equality under every identity. Otherwise (a mere
/// sufficient condition failed) the full comparison decides.
pub fn within(id: Identity, prefix: &str, path: &str) -> bool {
    if let Some(rest) = path.strip_prefix(prefix) {
        if rest.is_empty() || rest.starts_with('/') || prefix.ends_with('/') {
            return true;
        }
    }
    path_within(id, prefix, path)
}

/// A pure, costly key function whose results the one per-thread memo keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyFn {
    /// `path::identity::collision_key` of one path component.
    Collision,
    /// `path::identity::command_name_key` of a program name.
    CommandName,
}

/// The memo: one map per key function, bounded together.
#[derive(Default)]
struct Memo {
    collision: FnvMap<String, std::rc::Rc<str>>,
    command_name: FnvMap<String, std::rc::Rc<str>>,
}

thread_local! {
    /// The program's only memo of key functions (`KeyFn`), per thread: both are pure and
    /// costly (case mapping and normalisation) for text that is not ASCII, and profiles
    /// repeat the same few components and names. Bounded: cleared when it grows past
    /// `MEMO_MAX` entries.
    static MEMO: std::cell::RefCell<Memo> = std::cell::RefCell::new(Memo::default());
}
const MEMO_MAX: usize = 1 << 16;

/// `f(text)`, memoised per thread (callers take the cheap ASCII paths themselves first).
pub fn memoised(f: KeyFn, text: &str) -> std::rc::Rc<str> {
    MEMO.with(|m| {
        let pick = |m: &Memo| match f {
            KeyFn::Collision => m.collision.get(text).cloned(),
            KeyFn::CommandName => m.command_name.get(text).cloned(),
        };
        if let Some(k) = pick(&m.borrow()) {
            return k;
        }
        let k: std::rc::Rc<str> = match f {
            KeyFn::Collision => collision_key(text),
            KeyFn::CommandName => command_name_key(text),
        }
        .into();
        let mut m = m.borrow_mut();
        if m.collision.len() + m.command_name.len() >= MEMO_MAX {
            m.collision.clear();
            m.command_name.clear();
        }
        let map = match f {
            KeyFn::Collision => &mut m.collision,
            KeyFn::CommandName => &mut m.command_name,
        };
        map.insert(text.to_owned(), k.clone());
        k
    })
}

/// One component's index key (`collision_key`): borrowed when the component is already
/// its own key (ASCII with no uppercase letter, the common case), else computed.
pub type Key<'a> = Cow<'a, str>;

/// `collision_key`, borrowed when it is the component itself, memoised per thread when
/// the component is not ASCII.
pub fn key_of(component: &str) -> Key<'_> {
    if component.is_ascii() {
        if component.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Owned(component.to_ascii_lowercase());
        }
        return Cow::Borrowed(component);
    }
    Cow::Owned(memoised(KeyFn::Collision, component).to_string())
}

/// One component of a subject: its index key and the key's hash.
#[derive(Clone, Debug)]
pub struct SubjectKey<'a> {
    pub key: Key<'a>,
    pub hash: u64,
}

/// The subject's per-component index keys, computed once per question.
pub type Keys<'a> = Vec<SubjectKey<'a>>;

/// The subject's per-component index keys, computed once per question.
pub fn subject_keys(path: &str) -> Keys<'_> {
    components(path).map(subject_key).collect()
}

/// One component's key and hash: one pass when the component is already its own key
/// (ASCII with no uppercase letter: its FNV-1a is computed while checking), else
/// `key_of` then `fnv`.
fn subject_key(c: &str) -> SubjectKey<'_> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in c.as_bytes() {
        if !b.is_ascii() || b.is_ascii_uppercase() {
            let key = key_of(c);
            let hash = fnv(&key);
            return SubjectKey { key, hash };
        }
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    SubjectKey {
        key: Cow::Borrowed(c),
        hash: h,
    }
}

/// Components a question's keys hold on the stack before they spill to the heap.
const INLINE_KEYS: usize = 16;

/// Call `f` with the subject's per-component index keys, held on the stack when the path
/// has at most `INLINE_KEYS` components (a heap vector otherwise): the same keys as
/// `subject_keys`, without its allocation on the common path.
pub fn with_subject_keys<R>(path: &str, f: impl FnOnce(&[SubjectKey<'_>]) -> R) -> R {
    let mut inline: [SubjectKey<'_>; INLINE_KEYS] = std::array::from_fn(|_| SubjectKey {
        key: Cow::Borrowed(""),
        hash: 0,
    });
    let mut n = 0usize;
    for c in components(path) {
        let Some(slot) = inline.get_mut(n) else {
            return f(&subject_keys(path));
        };
        *slot = subject_key(c);
        n += 1;
    }
    f(inline.get(..n).unwrap_or(&[]))
}

impl PathIndex {
    pub fn insert(&mut self, path: &str, id: u32) {
        let mut at = 0usize;
        for c in components(path) {
            let key = key_of(c);
            let hash = fnv(&key);
            let probe = SubjectKey {
                key: Cow::Borrowed(&key),
                hash,
            };
            let next = match self.nodes[at].child(&self.keys, &probe) {
                Some(n) => n as usize,
                None => {
                    let n = self.nodes.len();
                    self.nodes.push(Node::default());
                    let start = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
                    self.keys.push_str(&key);
                    let end = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
                    let keys = &self.keys;
                    let children = &mut self.nodes[at].children;
                    let pos = children
                        .partition_point(|(h, k, _)| (*h, key_text(keys, *k)) < (hash, &*key));
                    let id = u32::try_from(n).unwrap_or(u32::MAX);
                    children.insert(pos, (hash, [start, end], id));
                    n
                }
            };
            at = next;
        }
        let node = &mut self.nodes[at];
        if node.here == NO_ID {
            node.here = id;
        } else if let Some(v) = self.more.get_mut(node.more as usize) {
            v.push(id);
        } else {
            node.more = u32::try_from(self.more.len()).unwrap_or(NO_ID);
            self.more.push(vec![id]);
        }
    }

    /// The ids stored at the root and at each node along the subject's path.
    pub fn candidates<'a>(&'a self, keys: &'a [SubjectKey<'a>]) -> impl Iterator<Item = u32> + 'a {
        let mut at = Some(0usize);
        let mut next = 0usize;
        std::iter::from_fn(move || {
            let node = at?;
            let here = self.nodes[node].ids(&self.more);
            at = keys
                .get(next)
                .and_then(|k| self.nodes[node].child(&self.keys, k))
                .map(|n| n as usize);
            next += 1;
            Some(here)
        })
        .flatten()
    }
}

use super::table::{Cell, Scope, Support, Table, Verdict};

/// A scope the index can file: by the real path it lies along (`None`: it speaks
/// regardless of path, such as `Any` or a name veto, and is always a candidate).
pub trait Indexed: Scope {
    fn index_path(&self) -> Option<&str>;
}

/// A table compiled once for judging: its cells in an array (moved out of the table, in
/// its scope order), and its index. An empty table of the same layer stands in for the
/// table where a judgment needs only the layer.
#[derive(Clone, Debug)]
pub struct Rules<K> {
    empty: Table<K>,
    /// Each cell with its rank bounds `[negative, positive]` (`Scope::bound`).
    cells: Vec<(K, Cell, [u32; 2])>,
    index: PathIndex,
    always: Vec<u32>,
}

impl<K: Indexed> Rules<K> {
    pub fn compile(table: Table<K>) -> Self {
        let mut index = PathIndex::default();
        let mut always = Vec::new();
        let empty = Table::new(table.layer());
        // a node per indexed path at least (its leaf), most often about one
        index.nodes.reserve(table.cells().count());
        let cells: Vec<(K, Cell, [u32; 2])> = table
            .into_cells()
            .map(|(k, c)| {
                let b = [k.bound(true), k.bound(false)];
                (k, c, b)
            })
            .collect();
        for (i, (k, _, _)) in cells.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            match k.index_path() {
                Some(p) => index.insert(p, id),
                None => always.push(id),
            }
        }
        Rules {
            empty,
            cells,
            index,
            always,
        }
    }
    /// The scopes and their evidence, in scope order (`Table::cells`).
    pub fn cells(&self) -> impl Iterator<Item = (&K, &Cell)> {
        self.cells.iter().map(|(k, c, _)| (k, c))
    }
    /// The scopes carrying live positive evidence (`Table::live`).
    pub fn live(&self) -> impl Iterator<Item = (&K, &Support)> {
        self.cells()
            .filter_map(|(k, c)| match (&c.positive, &c.negative) {
                (Some(p), None) => Some((k, p)),
                _ => None,
            })
    }
    /// The table's verdict over every cell, without the index (`Judge::verdict`).
    pub fn verdict(&self, s: &K::Subject, arg: Option<&str>) -> Verdict<K> {
        self.empty
            .decide_bounded(self.cells.iter().map(|(k, c, b)| (k, c, *b)), s, arg)
    }
    /// Judge a subject whose per-component keys are `keys` (`subject_keys` of its path).
    pub fn judge(&self, s: &K::Subject, keys: &[SubjectKey<'_>], arg: Option<&str>) -> Verdict<K> {
        let ids = self
            .index
            .candidates(keys)
            .chain(self.always.iter().copied());
        let cells = &self.cells;
        self.empty.decide_bounded(
            ids.filter_map(|i| cells.get(i as usize))
                .map(|(k, c, b)| (k, c, *b)),
            s,
            arg,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_memo_keeps_each_key_function_apart() {
        for t in ["caf\u{e9}", "\u{17F}x", "\u{C4}B", "\u{212A}elvin"] {
            for _ in 0..2 {
                assert_eq!(&*memoised(KeyFn::Collision, t), collision_key(t), "{t}");
                assert_eq!(
                    &*memoised(KeyFn::CommandName, t),
                    command_name_key(t),
                    "{t}"
                );
            }
        }
    }

    #[test]
    fn one_pass_keys_are_key_of_and_fnv() {
        for c in [
            "",
            "a",
            "usr",
            "Usr",
            "x86_64-linux-gnu",
            "\u{17F}",
            "caf\u{e9}",
            ".SSH",
        ] {
            let k = subject_key(c);
            assert_eq!(k.key, key_of(c), "{c}");
            assert_eq!(k.hash, fnv(&key_of(c)), "{c}");
        }
    }

    #[test]
    fn inline_keys_are_the_subject_keys() {
        let long = "/a".repeat(INLINE_KEYS + 3);
        for p in [
            "/",
            "",
            "/Home/u/\u{17F}x",
            "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p",
            &long,
        ] {
            let want: Vec<(String, u64)> = subject_keys(p)
                .iter()
                .map(|k| (k.key.to_string(), k.hash))
                .collect();
            let got: Vec<(String, u64)> = with_subject_keys(p, |ks| {
                ks.iter().map(|k| (k.key.to_string(), k.hash)).collect()
            });
            assert_eq!(got, want, "{p}");
        }
    }

    #[test]
    fn within_agrees_with_path_within() {
        let paths = [
            "",
            "/",
            "//",
            "/a",
            "/a/",
            "/a//b",
            "/a/b",
            "/a/bc",
            "/ab",
            "/A/b",
            "/a/B/c",
            "/a/b/",
            "/a/\u{17F}",
            "/a/s",
            "/a/S/x",
            "/usr/bin",
            "/usr/bin/git",
            "/usr/binx",
            "a",
            "a/b",
            "/\u{0}",
        ];
        for id in [Identity::Stored, Identity::Collision] {
            for p in paths {
                for q in paths {
                    assert_eq!(
                        within(id, p, q),
                        path_within(id, p, q),
                        "{id:?} {p:?} {q:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_child_is_confirmed_by_its_key_not_its_hash() {
        // two keys forced onto one hash: the key decides
        let keys = "abc";
        let node = Node {
            children: vec![(7, [0, 1], 1), (7, [1, 2], 2), (9, [2, 3], 3)],
            ..Node::default()
        };
        let k = |key: &'static str, hash| SubjectKey {
            key: Cow::Borrowed(key),
            hash,
        };
        assert_eq!(node.child(keys, &k("a", 7)), Some(1));
        assert_eq!(node.child(keys, &k("b", 7)), Some(2));
        assert_eq!(node.child(keys, &k("c", 7)), None);
        assert_eq!(node.child(keys, &k("c", 9)), Some(3));
        assert_eq!(node.child(keys, &k("a", 8)), None);
    }

    #[test]
    fn candidates_follow_the_collision_keys_of_the_path() {
        let mut ix = PathIndex::default();
        ix.insert("/", 0);
        ix.insert("/home/U", 1);
        ix.insert("/home/u/.SSH", 2);
        ix.insert("/home/v", 3);
        ix.insert("/home/\u{17F}", 4);
        // a second and third id at one node come after the first, in order
        ix.insert("/home/u", 5);
        ix.insert("/HOME/U", 6);
        let keys = subject_keys("/HOME/u/.ssh/id");
        let got: Vec<u32> = ix.candidates(&keys).collect();
        assert_eq!(got, vec![0, 1, 5, 6, 2]);
        let keys = subject_keys("/home/S/x");
        assert_eq!(ix.candidates(&keys).collect::<Vec<_>>(), vec![0, 4]);
        assert_eq!(depth("//a//b/"), 2);
        assert_eq!(depth("/"), 0);
    }
}
