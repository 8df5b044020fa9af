//! The layering guard (issue 28, `../shared/design/layers.md` §3.3 step 1): the file-level
//! import graph of the `ralc` and `ralc-runtime` library crates, read from their sources.
//! Two checks hold the order that `ARCHITECTURE.md` states in prose:
//! - every import between top-level modules runs down the documented order (the table
//!   [`ALLOWED`]); an edge against it must be listed in [`KNOWN_UPWARD`], and a listed edge
//!   that no longer occurs fails too, so the list only shrinks;
//! - the strongly connected components of the file graph are single files, except the cycles
//!   listed in [`KNOWN_CYCLES`] (which likewise must still occur).
//!
//! The graph is built without a compiler: comments, strings and `#[cfg(test)]` items are
//! stripped, then every path that starts with `crate::`, `super::` or `self::` (use trees
//! included) is resolved to the longest module prefix that is a file of the crate. Bare paths
//! to a child module (`pub use disk::X` in a `mod.rs`) are not read: a parent and its child
//! may depend on each other (normal Rust, harmless). It reads files only; it changes nothing.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]
#![allow(
    clippy::disallowed_methods,
    reason = "test: the guard reads the workspace's own sources"
)]

use ralc_tests::bin::workspace_root;
use ralc_tests::source::src_files;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// For each top-level module of a crate, the modules it may import (besides itself): a
/// top-level name allows all of that module, a `a::b` path only that module and what is
/// below it. `lib` is the crate root, which may import anything.
const ALLOWED: &[(&str, &str, &[&str])] = &[
    // crate, module, may import
    ("compiler", "diag", &[]),
    ("compiler", "path", &[]),
    ("compiler", "reader", &["path", "diag"]),
    ("compiler", "syntax", &["diag"]),
    ("compiler", "eval", &["diag", "syntax"]),
    // the model's vocabulary (exec policies, verbs) lies below the front end
    (
        "compiler",
        "typecheck",
        &["diag", "eval", "syntax", "path", "capability::vocab"],
    ),
    ("compiler", "format", &["diag", "syntax"]),
    ("compiler", "capability", &["diag", "path"]),
    (
        "compiler",
        "freeze",
        &[
            "capability",
            "diag",
            "path",
            "reader",
            "typecheck",
            "syntax",
            "eval",
        ],
    ),
    ("compiler", "guard", &["capability", "diag", "path"]),
    ("compiler", "render", &["capability", "diag", "path"]),
    (
        "compiler",
        "lint",
        &[
            "capability",
            "diag",
            "path",
            "render",
            "typecheck",
            "syntax",
            "eval",
            // self-writable knows the shipped profiles' text (data, no imports of its own)
            "std_profiles",
        ],
    ),
    (
        "compiler",
        "registry",
        &[
            "capability",
            "diag",
            "eval",
            "freeze",
            "lint",
            "syntax",
            "typecheck",
            "path",
        ],
    ),
    ("compiler", "std_profiles", &[]),
    (
        "compiler",
        "pipeline",
        &[
            "capability",
            "diag",
            "eval",
            "format",
            "freeze",
            "guard",
            "lint",
            "path",
            "reader",
            "registry",
            "render",
            "std_profiles",
            "syntax",
            "typecheck",
        ],
    ),
    (
        "compiler",
        "cli",
        &[
            "capability",
            "diag",
            "eval",
            "format",
            "freeze",
            "guard",
            "lint",
            "path",
            "pipeline",
            "reader",
            "registry",
            "render",
            "std_profiles",
            "syntax",
            "typecheck",
        ],
    ),
    // the runtime: pure plan modules below the OS back ends
    ("runtime", "cmdline", &[]),
    ("runtime", "denial", &["cmdline"]),
    ("runtime", "plan", &["cmdline", "denial", "environment"]),
    ("runtime", "environment", &["cmdline"]),
    // The post-run audit of planted git state: reads the write roots it is given.
    ("runtime", "planted", &[]),
    (
        "runtime",
        "macos",
        &["cmdline", "denial", "environment", "plan"],
    ),
    (
        "runtime",
        "linux",
        &["cmdline", "denial", "environment", "plan"],
    ),
    (
        "runtime",
        "windows",
        &["cmdline", "denial", "environment", "plan"],
    ),
];

/// Today's edges against [`ALLOWED`], as (crate, importing file's module, imported module):
/// each is a debt named in `layers.md` §1.4 and §1.5, removed here when its move lands.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[
    ("compiler", "format::cover", "lint::directive"),
    ("compiler", "format", "lint::directive"),
    ("compiler", "guard::denial", "render::macos"),
    ("compiler", "lint", "freeze"),
    ("compiler", "lint", "freeze::gitdir"),
    ("compiler", "lint", "pipeline"),
    ("compiler", "lint", "registry"),
    ("compiler", "lint::redundant_entry", "freeze::places"),
    ("runtime", "environment", "plan"),
];

/// Today's import cycles (the files of each strongly connected component, sorted), as
/// `layers.md` §1.5 lists them; each goes when its move lands.
const KNOWN_CYCLES: &[(&str, &[&str])] = &[
    ("compiler", &["cli::render", "cli::render_windows"]),
    ("compiler", &["lint", "registry"]),
    (
        "compiler",
        &["lint::directive", "lint::lint_directive", "lint::registry"],
    ),
    ("runtime", &["environment", "plan"]),
    (
        "runtime",
        &["linux::launch", "linux::supervise", "linux::warrant"],
    ),
];

// ---------------------------------------------------------------------------------------
// Reading the sources

/// A token of the stripped text: identifiers and the punctuation a path is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Open, // `{`
    Close,
    Comma,
    Semi,
    Hash,
    Other(char),
}

/// The tokens of `text` with comments, string, byte-string, raw-string and char literals
/// removed (a literal becomes one `Other('"')`).
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '"' | '#')))
            || (ch == 'b' && at(i + 1) == 'r' && matches!(at(i + 2), '"' | '#'))
        {
            // raw string: r"…", r#"…"#, br"…"
            i += if ch == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1; // the opening quote
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push(Tok::Other('"'));
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            i += if ch == 'b' { 2 } else { 1 };
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(Tok::Other('"'));
        } else if ch == '\'' {
            // a char literal ('a', '\n', '\u{..}') or a lifetime ('a)
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Tok::Other('\''));
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push(Tok::Other('\''));
            } else {
                i += 1; // a lifetime: its name follows as an identifier
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Path);
            i += 2;
        } else {
            out.push(match ch {
                '{' => Tok::Open,
                '}' => Tok::Close,
                ',' => Tok::Comma,
                ';' => Tok::Semi,
                '#' => Tok::Hash,
                c if c.is_whitespace() => {
                    i += 1;
                    continue;
                }
                c => Tok::Other(c),
            });
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// `toks` without the items under `#[cfg(test)]`, and the names of the `mod NAME;`
/// declarations among those items (their files are test code).
fn strip_test_items(toks: &[Tok]) -> (Vec<Tok>, Vec<String>) {
    let attr = [
        Tok::Hash,
        Tok::Other('['),
        Tok::Ident("cfg".into()),
        Tok::Other('('),
        Tok::Ident("test".into()),
        Tok::Other(')'),
        Tok::Other(']'),
    ];
    let mut out = Vec::new();
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i..].starts_with(&attr) {
            i += attr.len();
            // further attributes on the same item
            while toks.get(i) == Some(&Tok::Hash) {
                let mut depth = 0;
                while i < toks.len() {
                    match toks[i] {
                        Tok::Other('[') => depth += 1,
                        Tok::Other(']') => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            // the item: up to a `;` at depth 0, or the `}` that closes its first `{`
            let mut depth = 0;
            let start = i;
            while i < toks.len() {
                match toks[i] {
                    Tok::Open => depth += 1,
                    Tok::Close => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    Tok::Semi if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            let item = &toks[start..i];
            if let Some(k) = item.iter().position(|t| *t == Tok::Ident("mod".into())) {
                if item.last() == Some(&Tok::Semi) {
                    if let Some(name) = ident(item.get(k + 1)) {
                        test_mods.push(name.to_string());
                    }
                }
            }
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    (out, test_mods)
}

/// Every path of `toks` that starts with `crate`, `super` or `self`, as its segments (the
/// anchor first), use trees expanded into one path per leaf.
fn anchored_paths(toks: &[Tok]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let anchor = ident(toks.get(i));
        let after_path = i > 0 && matches!(toks[i - 1], Tok::Path | Tok::Other('$'));
        if matches!(anchor, Some("crate" | "super" | "self"))
            && !after_path
            && toks.get(i + 1) == Some(&Tok::Path)
        {
            let prefix = vec![anchor.unwrap_or_default().to_string()];
            i = tree(toks, i + 2, prefix, &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads a path (or use tree) from `i`, after `prefix::`; pushes each leaf; returns the
/// index after it.
fn tree(toks: &[Tok], mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    loop {
        match toks.get(i) {
            Some(Tok::Open) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        Some(Tok::Close) => return i + 1,
                        Some(Tok::Comma) => i += 1,
                        None => return i,
                        Some(Tok::Ident(s)) if s == "self" => {
                            out.push(prefix.clone());
                            i += 1;
                        }
                        Some(_) => i = tree(toks, i, prefix.clone(), out),
                    }
                }
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
                if toks.get(i) == Some(&Tok::Path) {
                    i += 1;
                } else {
                    // `as NAME` after a leaf is the rename, not a segment
                    if ident(toks.get(i)) == Some("as") {
                        i += 2;
                    }
                    out.push(prefix);
                    return i;
                }
            }
            _ => {
                out.push(prefix);
                return i + 1;
            }
        }
    }
}

/// One library crate's file graph: module path of each file → the modules it imports.
struct Graph {
    krate: &'static str,
    edges: BTreeMap<String, BTreeSet<String>>,
}

fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_string());
    }
    Some(parts.join("::"))
}

fn graph(krate: &'static str) -> Graph {
    let src = workspace_root().join(krate).join("src");
    let files: Vec<_> = src_files(&src, &["rs"])
        .into_iter()
        // separate crate roots: the binary and the runtime's bench binaries
        .filter(|f| {
            let rel = f.strip_prefix(&src).unwrap();
            rel != Path::new("main.rs") && !rel.starts_with("bin")
        })
        .collect();
    let mut texts = BTreeMap::new();
    let mut test_files = BTreeSet::new();
    for f in &files {
        let module = module_of(&src, f).unwrap();
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let (toks, test_mods) = strip_test_items(&tokens(&text));
        // the module a `mod NAME;` declares lives beside a `mod.rs`/`lib.rs`, or below
        // the file's own name otherwise; either way its path is `module::NAME`
        for m in test_mods {
            test_files.insert(if module.is_empty() {
                m
            } else {
                format!("{module}::{m}")
            });
        }
        texts.insert(module, (f.clone(), toks));
    }
    let modules: BTreeSet<String> = texts
        .keys()
        .filter(|m| {
            !test_files
                .iter()
                .any(|t| *m == t || m.starts_with(&format!("{t}::")))
        })
        .cloned()
        .collect();
    let mut edges = BTreeMap::new();
    for module in &modules {
        let (file, toks) = &texts[module];
        let is_dir_module = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let here: Vec<String> = if module.is_empty() {
            Vec::new()
        } else {
            module.split("::").map(String::from).collect()
        };
        let mut to = BTreeSet::new();
        for path in anchored_paths(toks) {
            let mut at: Vec<String> = match path[0].as_str() {
                "crate" => Vec::new(),
                _ => here.clone(),
            };
            let mut segs = path.iter();
            // `self`/`super` are relative to the file's module; a plain file's module is
            // its own name, so `super` there is the directory
            if path[0] == "super" {
                at.pop();
            }
            segs.next();
            for s in segs {
                match s.as_str() {
                    "super" => {
                        at.pop();
                    }
                    "self" => {}
                    s => at.push(s.to_string()),
                }
            }
            // the longest prefix that is a file of the crate
            let target = (0..=at.len())
                .rev()
                .map(|n| at[..n].join("::"))
                .find(|m| modules.contains(m));
            if let Some(t) = target {
                if &t != module {
                    to.insert(t);
                }
            }
        }
        let _ = is_dir_module;
        edges.insert(module.clone(), to);
    }
    Graph { krate, edges }
}

fn top(module: &str) -> &str {
    if module.is_empty() {
        "lib"
    } else {
        module.split("::").next().unwrap_or(module)
    }
}

/// The edges between top-level modules that [`ALLOWED`] does not allow.
fn upward(g: &Graph) -> BTreeSet<(String, String)> {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED
        .iter()
        .filter(|(k, _, _)| *k == g.krate)
        .map(|(_, m, a)| (*m, *a))
        .collect();
    let mut out = BTreeSet::new();
    for (from, tos) in &g.edges {
        let f = top(from);
        if f == "lib" {
            continue;
        }
        let Some(may) = allowed.get(f) else {
            panic!(
                "{}: module `{f}` has no row in ALLOWED (say what it may import)",
                g.krate
            );
        };
        for to in tos {
            let t = top(to);
            // an entry names a top-level module, or one module (with what is below it)
            let allowed = |a: &&str| {
                if a.contains("::") {
                    to == a || to.starts_with(&format!("{a}::"))
                } else {
                    *a == t
                }
            };
            if t != f && t != "lib" && !may.iter().any(allowed) {
                out.insert((from.clone(), to.clone()));
            }
        }
    }
    out
}

/// The strongly connected components of more than one file (Tarjan), each sorted.
fn cycles(g: &Graph) -> BTreeSet<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: BTreeSet<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(lw));
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(iw));
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.insert(comp);
            }
        }
    }
    let mut t = T {
        g: &g.edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: BTreeSet::new(),
    };
    for v in g.edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

// ---------------------------------------------------------------------------------------
// The checks

#[test]
fn imports_run_down_the_documented_order() {
    let mut problems = Vec::new();
    for krate in ["compiler", "runtime"] {
        let g = graph(krate);
        // the crates have far more files than this: a walk that finds few is broken
        assert!(
            g.edges.len() > 20,
            "{krate}: only {} modules",
            g.edges.len()
        );
        let got = upward(&g);
        let known: BTreeSet<(String, String)> = KNOWN_UPWARD
            .iter()
            .filter(|(k, _, _)| *k == krate)
            .map(|(_, f, t)| (f.to_string(), t.to_string()))
            .collect();
        for (f, t) in got.difference(&known) {
            problems.push(format!(
                "{krate}: `{f}` imports `{t}`, against the order in ALLOWED (ARCHITECTURE.md)"
            ));
        }
        for (f, t) in known.difference(&got) {
            problems.push(format!(
                "{krate}: `{f}` → `{t}` is gone: remove it from KNOWN_UPWARD"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_file_graph_has_no_cycle_but_the_known_ones() {
    let mut problems = Vec::new();
    for krate in ["compiler", "runtime"] {
        let got = cycles(&graph(krate));
        let known: BTreeSet<Vec<String>> = KNOWN_CYCLES
            .iter()
            .filter(|(k, _)| *k == krate)
            .map(|(_, c)| c.iter().map(|s| s.to_string()).collect())
            .collect();
        for c in got.difference(&known) {
            problems.push(format!("{krate}: an import cycle: {}", c.join(" ⇄ ")));
        }
        for c in known.difference(&got) {
            problems.push(format!(
                "{krate}: the cycle {} is gone: remove it from KNOWN_CYCLES",
                c.join(" ⇄ ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_resolves_use_trees_and_skips_comments_strings_and_test_items() {
    let text = r##"
        use crate::a::{b::C, d::{self, E}};
        // use crate::commented::X;
        /* use crate::block::X; */
        const S: &str = "crate::string::X";
        const R: &str = r#"crate::raw::X"#;
        fn f<'a>(x: &'a str) -> char { let _ = super::sib::g(); 'c' }
        #[cfg(test)]
        mod tests { use crate::test_only::X; }
        #[cfg(test)]
        mod testkit;
        pub(crate) fn h() { $crate::macro_path::x(); }
    "##;
    let (toks, test_mods) = strip_test_items(&tokens(text));
    let paths: Vec<String> = anchored_paths(&toks)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "crate::a::b::C",
            "crate::a::d",
            "crate::a::d::E",
            "super::sib::g"
        ]
    );
    assert_eq!(test_mods, ["testkit"]);
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_that() {
    let mut edges = BTreeMap::new();
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    edges.insert("a".to_string(), e(&["b"]));
    edges.insert("b".to_string(), e(&["c"]));
    edges.insert("c".to_string(), e(&["a", "d"]));
    edges.insert("d".to_string(), e(&[]));
    let g = Graph {
        krate: "compiler",
        edges,
    };
    let got = cycles(&g);
    assert_eq!(got.len(), 1);
    assert_eq!(got.iter().next().unwrap(), &["a", "b", "c"]);
}
