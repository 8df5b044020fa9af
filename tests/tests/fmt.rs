//! `ralc fmt` (issue #18 §2): the formatter is idempotent and keeps a profile's meaning on
//! every profile in the repository (every `.ral` file under the checkout, and the embedded
//! standard profiles) and on random profiles generated from the grammar with random
//! layouts, comments and quote styles; the goldens in `tests/fmt/` pin the layout.
//!
//! "Meaning" is everything ralc makes of the text, positions aside: the front end's
//! diagnostics, the frozen layer as `ralc show --format json` prints it, the freeze's
//! diagnostics and the lint findings at the levels the profile's directives give them.
//! A file that does not parse is refused, never printed.

#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]
use proptest::prelude::*;
use ralc::capability::layer::LayerRole;
use ralc::diag::{Diagnostic, FileId, SourceMap};
use ralc::format::{format_source, Refusal};
use ralc::freeze::disk::MemDisk;
use ralc::freeze::FreezeCtx;
use ralc_tests::bin::workspace_root;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A fixed anchor over an in-memory disk: freezing never looks at this machine.
fn anchor() -> FreezeCtx {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert("PATH".to_string(), "/usr/bin:/bin".to_string());
    let disk = MemDisk::new()
        .exe("/usr/bin/git")
        .exe("/bin/sh")
        .file("/home/dev/project/src/main.rs", "fn main() {}\n")
        .exe("/home/dev/.cargo/bin/cargo");
    FreezeCtx::from_parts(env, "/home/dev/project".to_string(), Arc::new(disk))
}

/// `text` with every `p.ral:LINE:COLUMN` a message cites made `p.ral:_`.
fn places_aside(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("p.ral:") {
        out.push_str(&rest[..i + "p.ral:".len()]);
        rest = &rest[i + "p.ral:".len()..];
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ':'))
            .unwrap_or(rest.len());
        if n > 0 {
            out.push('_');
            rest = &rest[n..];
        }
    }
    out.push_str(rest);
    out
}

fn diag_json(d: &Diagnostic) -> Value {
    let notes: Vec<String> = d.notes.iter().map(|n| places_aside(n)).collect();
    json!([
        d.code,
        d.severity.as_str(),
        places_aside(&d.message),
        d.help.as_deref().map(places_aside),
        notes
    ])
}

/// Drop every `line` and `column` member, at any depth.
fn positions_aside(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("line");
            m.remove("column");
            m.values_mut().for_each(positions_aside);
        }
        Value::Array(a) => a.iter_mut().for_each(positions_aside),
        _ => {}
    }
}

/// What ralc makes of a profile's text, positions aside.
fn meaning(text: &[u8]) -> Value {
    let ctx = anchor();
    let mut sources = SourceMap::new();
    let id = sources.add("p.ral", text.to_vec());
    let (typed, front) = ralc::typecheck::check_source(id, text);
    let mut out = json!({ "front": front.iter().map(diag_json).collect::<Vec<_>>() });
    if let Some(t) = typed {
        let source = ralc::freeze::layer_source("p.ral", LayerRole::Policy);
        let (caps, frozen) = ralc::freeze::freeze(&t, source, &ctx, &sources);
        let mut layer = ralc::cli::show::layer_json(&caps, &ctx);
        positions_aside(&mut layer);
        let places = ralc::lint::Places::from_ctx(&ctx);
        let layers = [caps];
        let typed = [t];
        let input = ralc::lint::LintInput {
            layers: &layers,
            typed: &typed,
            sources: &sources,
            places: &places,
            stack: None,
            index: None,
        };
        let lints = ralc::lint::run_layers(&input, &ralc::lint::LintLevels::default());
        out["layer"] = layer;
        out["freeze"] = frozen.iter().map(diag_json).collect();
        out["lints"] = lints.iter().map(diag_json).collect();
    }
    out
}

/// What the property and the repository walk check of one text. `Ok(false)` when the
/// text does not parse (and was refused, as it must be).
fn check_one(what: &str, text: &[u8]) -> Result<bool, String> {
    let (_, diags) = ralc::syntax::parse(FileId(0), text);
    let out = match format_source(FileId(0), text) {
        Ok(out) => out,
        Err(Refusal::Syntax(d)) => {
            return if diags.is_empty() {
                Err(format!(
                    "{what}: refused as not parsing, but it parses: {d:?}"
                ))
            } else {
                Ok(false)
            };
        }
        Err(Refusal::Unfaithful(why)) => return Err(format!("{what}: unfaithful: {why}")),
    };
    if !diags.is_empty() {
        return Err(format!("{what}: formatted although it does not parse"));
    }
    let again = format_source(FileId(0), out.as_bytes())
        .map_err(|e| format!("{what}: its layout is refused: {e:?}\n{out}"))?;
    if again != out {
        return Err(format!(
            "{what}: not idempotent:\n--- once\n{out}\n--- twice\n{again}"
        ));
    }
    let (before, after) = (meaning(text), meaning(out.as_bytes()));
    if before != after {
        return Err(format!(
            "{what}: the meaning changed:\n{}\n--- formatted\n{out}\n--- before\n{before:#}\n--- after\n{after:#}",
            String::from_utf8_lossy(text)
        ));
    }
    Ok(true)
}

/// A profile's bytes, through the reviewed reader.
fn read(path: &Path) -> Vec<u8> {
    ralc::reader::read_bounded(path, ralc::reader::PROFILE_LIMIT)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ral_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" {
                ral_files(&p, out);
            }
        } else if name.ends_with(".ral") {
            out.push(p);
        }
    }
}

#[test]
fn every_profile_in_the_repository_keeps_its_meaning_and_is_a_fixed_point() {
    let mut files = Vec::new();
    ral_files(&workspace_root(), &mut files);
    files.sort();
    assert!(files.len() >= 150, "found only {} profiles", files.len());
    let (mut formatted, mut refused) = (0, Vec::new());
    let mut failures = Vec::new();
    let texts = files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(workspace_root())
                .unwrap_or(f)
                .display()
                .to_string();
            (rel, read(f))
        })
        .chain(
            ralc::std_profiles::ALL
                .iter()
                .map(|(n, s)| (format!("std:{n}"), s.as_bytes().to_vec())),
        );
    for (name, text) in texts {
        match check_one(&name, &text) {
            Ok(true) => formatted += 1,
            Ok(false) => refused.push(name),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // the refused ones are the parse suite's syntax errors, and only those
    for r in &refused {
        assert!(r.starts_with("tests/parse/err/"), "{r} was refused");
    }
    println!(
        "fmt: {formatted} profiles formatted and checked, {} refused as not parsing",
        refused.len()
    );
    assert!(formatted >= 120, "{formatted}");
}

/// The goldens: `tests/fmt/NAME.ral` formats to `tests/fmt/NAME.ral.formatted`
/// (`RALC_BLESS=1` rewrites them), which is its own layout.
#[test]
fn goldens() {
    let dir = workspace_root().join("tests/fmt");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fmt")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ral"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "{inputs:?}");
    #[allow(
        clippy::disallowed_methods,
        reason = "test switch: RALC_BLESS rewrites the goldens"
    )]
    let bless = std::env::var_os("RALC_BLESS").is_some();
    for input in inputs {
        let text = read(&input);
        let out = format_source(FileId(0), &text)
            .unwrap_or_else(|e| panic!("{}: {e:?}", input.display()));
        let golden = input.with_extension("ral.formatted");
        if bless {
            std::fs::write(&golden, &out).expect("bless");
        }
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("{} is missing", golden.display()));
        assert_eq!(out, want, "{}", input.display());
        assert_ne!(
            out.as_bytes(),
            text.as_slice(),
            "{}: a golden input should need formatting",
            input.display()
        );
        assert_eq!(
            format_source(FileId(0), want.as_bytes()).expect("the golden formats"),
            want
        );
        check_one(&input.display().to_string(), &text).expect("meaning kept");
    }
}

// ---- random profiles from the grammar ----

/// A value of the data subset.
#[derive(Clone, Debug)]
enum G {
    Str(String),
    Word(&'static str),
    Int(i32),
    Bool(bool),
    Unit,
    Tag(&'static str),
    Var(&'static str),
    List(Vec<G>),
    Record(Option<&'static str>, Vec<(String, G)>),
    Map(Vec<(G, G)>),
}

const WORDS: &[&str] = &[
    "git",
    "allow",
    "deny",
    "read",
    "write",
    "tui",
    "chdir",
    "localhost:5432",
    "a#b",
    "x-y",
    "cargo",
    "b:",
];
const KEYS: &[&str] = &[
    "exec",
    "fs",
    "net",
    "detach",
    "editor",
    "shell",
    "read",
    "write",
    "deny",
    "deny_write",
    "git",
    "bash",
    "system:",
    "/usr/bin/",
    "cwd:/",
    "~/.cargo/bin/",
    "it's",
    "tui",
];
const TEXTS: &[&str] = &[
    "allow",
    "deny",
    "/usr",
    "cwd:",
    "~/.ssh",
    "tempdir:",
    "system:",
    "/usr/bin/git",
    "it's",
    "a'#b",
    "$HOME",
    "back\\slash",
    "two words",
    "\"quoted\"",
    "tab\there",
    "two\nlines",
    "",
    "status",
];
const VARS: &[&str] = &["a", "b", "secrets"];

fn value(depth: u32) -> impl Strategy<Value = G> {
    let leaf = prop_oneof![
        4 => proptest::sample::select(TEXTS).prop_map(|s| G::Str(s.to_string())),
        2 => proptest::sample::select(WORDS).prop_map(G::Word),
        1 => (-3i32..40).prop_map(G::Int),
        1 => any::<bool>().prop_map(G::Bool),
        1 => Just(G::Unit),
        1 => proptest::sample::select(&["offline", "x"][..]).prop_map(G::Tag),
        1 => proptest::sample::select(VARS).prop_map(G::Var),
    ];
    leaf.prop_recursive(depth, 40, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(G::List),
            (
                proptest::option::weighted(0.15, proptest::sample::select(VARS)),
                proptest::collection::btree_map(
                    proptest::sample::select(KEYS).prop_map(str::to_string),
                    inner.clone(),
                    1..6
                )
            )
                .prop_map(|(s, m)| G::Record(s, m.into_iter().collect())),
            proptest::collection::vec((map_key(), inner), 0..5).prop_map(G::Map),
        ]
    })
}

/// A map's key: a string (over several lines too), an integer, a variable, or a list.
fn map_key() -> impl Strategy<Value = G> {
    let leaf = prop_oneof![
        3 => proptest::sample::select(TEXTS).prop_map(|s| G::Str(s.to_string())),
        1 => (-3i32..40).prop_map(G::Int),
        1 => proptest::sample::select(VARS).prop_map(G::Var),
    ];
    prop_oneof![
        4 => leaf.clone(),
        1 => proptest::collection::vec(leaf, 0..3).prop_map(G::List),
    ]
}

/// A profile: some `let`s, then a record (or sometimes another value) as its result.
fn profile() -> impl Strategy<Value = (Vec<(&'static str, G)>, G)> {
    (
        proptest::collection::vec((proptest::sample::select(VARS), value(3)), 0..3),
        prop_oneof![
            4 => (
                proptest::collection::btree_map(
                    proptest::sample::select(&["exec", "fs", "net", "detach", "editor", "shell"][..])
                        .prop_map(str::to_string),
                    value(3),
                    0..6
                )
            )
                .prop_map(|m| G::Record(None, m.into_iter().collect())),
            4 => grant(),
            1 => value(3),
        ],
    )
}

const PATHS: &[&str] = &[
    "/usr",
    "/usr/share",
    "/etc",
    "/",
    "~",
    "~/.ssh",
    "~/.aws",
    "cwd:",
    "cwd:.git/hooks",
    "tempdir:",
    "xdg:config/gh",
];
const PROGRAMS: &[&str] = &[
    "system:",
    "/usr/bin/",
    "cwd:/",
    "git",
    "bash",
    "/usr/bin/git",
];

/// A grant the model and the lints have much to say about: a list of paths per fs member,
/// exec entries, the network (so that a directive's cover moves findings if lines move).
fn grant() -> impl Strategy<Value = G> {
    let paths = || {
        proptest::collection::vec(
            proptest::sample::select(PATHS).prop_map(|p| G::Str(p.to_string())),
            0..6,
        )
        .prop_map(G::List)
    };
    let policy = prop_oneof![
        Just(G::Str("allow".into())),
        Just(G::Str("deny".into())),
        Just(G::List(vec![G::Word("status"), G::Str("log".into())])),
    ];
    (
        paths(),
        paths(),
        paths(),
        proptest::collection::btree_map(
            proptest::sample::select(PROGRAMS).prop_map(str::to_string),
            policy,
            0..5,
        ),
        any::<bool>(),
    )
        .prop_map(|(read, write, deny, exec, offline)| {
            let mut fields = vec![
                (
                    "exec".to_string(),
                    G::Record(None, exec.into_iter().collect()),
                ),
                (
                    "fs".to_string(),
                    G::Record(
                        None,
                        vec![
                            ("read".to_string(), read),
                            ("write".to_string(), write),
                            ("deny".to_string(), deny),
                        ],
                    ),
                ),
            ];
            if offline {
                fields.push(("net".to_string(), G::Tag("offline")));
            }
            G::Record(None, fields)
        })
}

/// Layout choices, consumed in turn as the text is written.
struct Lay {
    picks: Vec<u8>,
    at: usize,
}

impl Lay {
    fn pick(&mut self, n: u8) -> u8 {
        let p = self.picks.get(self.at).copied().unwrap_or(0);
        self.at = (self.at + 1) % self.picks.len().max(1);
        p % n
    }
    /// White space between tokens inside brackets: a space, nothing, a newline, or a
    /// comment (a directive now and then) and a newline.
    fn gap(&mut self, out: &mut String, may_be_empty: bool) {
        match self.pick(9) {
            0 if may_be_empty => {}
            0..=3 => out.push(' '),
            4 | 5 => out.push_str("\n  "),
            6 => out.push_str("\n\n    "),
            7 => out.push_str(" # a comment, [with] 'quotes'\n"),
            _ => out.push_str("\n# ralc: allow(host-run-writable, exclusion-without-allowance, redundant-entry) a reason\n  "),
        }
    }
    fn string(&mut self, s: &str, out: &mut String) {
        let plain = !s.contains('\'') && !s.contains('\t');
        match self.pick(3) {
            0 if plain => out.push_str(&format!("'{s}'")),
            1 if !s.contains('\t') && !s.contains("'#") => out.push_str(&format!("#'{s}'#")),
            _ => {
                let mut e = String::from("\"");
                for c in s.chars() {
                    match c {
                        '"' | '\\' | '$' => {
                            e.push('\\');
                            e.push(c);
                        }
                        '\t' => e.push_str("\\t"),
                        _ => e.push(c),
                    }
                }
                e.push('"');
                out.push_str(&e);
            }
        }
    }
    fn value(&mut self, g: &G, out: &mut String) {
        match g {
            G::Str(s) => self.string(s, out),
            // a word ending in `:` keeps its colon only before a comma
            G::Word(w) if w.ends_with(':') => out.push_str(&format!("{w},")),
            G::Word(w) => out.push_str(w),
            G::Int(i) => out.push_str(&i.to_string()),
            G::Bool(b) => out.push_str(&b.to_string()),
            G::Unit => out.push_str("()"),
            G::Tag(t) => out.push_str(&format!("`{t}")),
            G::Var(v) => {
                if self.pick(2) == 0 {
                    out.push_str(&format!("${v}"))
                } else {
                    out.push_str(&format!("$({v})"))
                }
            }
            G::List(items) => {
                out.push('[');
                for (i, it) in items.iter().enumerate() {
                    self.gap(out, true);
                    self.value(it, out);
                    let glued = out.ends_with(',');
                    if !glued && (i + 1 < items.len() || self.pick(2) == 0) {
                        out.push(',');
                    }
                }
                self.gap(out, true);
                out.push(']');
            }
            G::Record(spread, fields) => {
                out.push('[');
                let mut first = true;
                if let Some(s) = spread {
                    self.gap(out, true);
                    out.push_str(&format!("...${s}"));
                    first = false;
                }
                for (k, v) in fields {
                    if !first && !out.ends_with(',') {
                        out.push(',');
                    }
                    first = false;
                    self.gap(out, true);
                    let word_ok = !k.contains('\'') && !k.contains('/') && !k.ends_with(':');
                    if word_ok && self.pick(2) == 0 {
                        out.push_str(k);
                    } else {
                        self.string(k, out);
                    }
                    out.push(':');
                    self.gap(out, false);
                    self.value(v, out);
                }
                if !first && !out.ends_with(',') && self.pick(2) == 0 {
                    out.push(',');
                }
                self.gap(out, true);
                out.push(']');
            }
            G::Map(entries) => {
                out.push('[');
                self.gap(out, true);
                out.push(':');
                for (k, v) in entries {
                    if !out.ends_with(',') {
                        out.push(',');
                    }
                    self.gap(out, true);
                    self.value(k, out);
                    // an integer glued to `:` would lex as a word
                    out.push_str(if matches!(k, G::Int(_)) { " :" } else { ":" });
                    self.gap(out, false);
                    self.value(v, out);
                }
                if !out.ends_with(',') && self.pick(2) == 0 {
                    out.push(',');
                }
                self.gap(out, true);
                out.push(']');
            }
        }
    }
    /// A value at the top level, where a word ending in `:` is written quoted.
    fn item(&mut self, g: &G, out: &mut String) {
        match g {
            G::Word(w) if w.ends_with(':') => out.push_str(&format!("'{w}'")),
            _ => self.value(g, out),
        }
    }
}

fn write_profile(lets: &[(&str, G)], result: &G, picks: Vec<u8>) -> String {
    let mut lay = Lay { picks, at: 0 };
    let mut out = String::new();
    if lay.pick(3) == 0 {
        out.push_str("# ralc: allow(deputy-prefix) a file-wide directive\n");
    }
    for (name, v) in lets {
        out.push_str(&format!("let {name} = "));
        lay.item(v, &mut out);
        match lay.pick(4) {
            0 => out.push_str("; "),
            1 => out.push_str(" # after a let\n"),
            2 => out.push_str("\n\n\n"),
            _ => out.push('\n'),
        }
    }
    if lay.pick(4) == 0 {
        out.push_str("# ralc: allow(broad-write) before the result\n");
    }
    lay.item(result, &mut out);
    if lay.pick(2) == 0 {
        out.push_str(" # the end\n");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_profiles_keep_their_meaning_and_are_fixed_points(
        (lets, result) in profile(),
        picks in proptest::collection::vec(any::<u8>(), 1..64),
    ) {
        let text = write_profile(&lets, &result, picks);
        let parsed = check_one("a random profile", text.as_bytes()).map_err(TestCaseError::fail)?;
        // the generator writes the grammar: what it writes parses
        prop_assert!(parsed, "does not parse:\n{}", text);
    }
}

/// The shipped files are in the canonical layout (issue #27): `ralc fmt --check
/// std-profiles/*.ral examples/**/*.ral` passes, through the binary.
#[test]
fn the_shipped_profiles_and_examples_are_formatted() {
    let root = workspace_root();
    let mut files = Vec::new();
    ral_files(&root.join("std-profiles"), &mut files);
    ral_files(&root.join("examples"), &mut files);
    files.sort();
    assert!(files.len() >= 20, "found only {} files", files.len());
    let mut args = vec!["fmt".to_string(), "--check".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = ralc_tests::bin::run_ralc(&root, &args);
    assert_eq!(code, Some(0), "ralc fmt --check fails:\n{out}{err}");
    for line in files.iter().flat_map(|f| {
        String::from_utf8_lossy(&read(f))
            .lines()
            .map(|l| (f.display().to_string(), l.chars().count()))
            .collect::<Vec<_>>()
    }) {
        assert!(
            line.1 <= ralc::format::WIDTH,
            "{}: a line of {} columns",
            line.0,
            line.1
        );
    }
}
