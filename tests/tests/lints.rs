//! The lint suite: data-driven cases in `tests/lints/cases/*.case` (layers written as the
//! freeze would produce them, one entry per line, so findings have real file:line
//! positions; directives are ordinary comment lines of a layer), the generated
//! `docs/lints.md`, and the SARIF output validated against the SARIF 2.1.0 schema.
//!
//! Case format:
//!   places home=/home/u xdg_config=/home/u/.config
//!   levels -D dead-grant -A broad-write
//!   layer NAME [path=SURFACE=>REAL] [restrict]
//!   exec-dir|exec-file|exec-name KEY[=>REAL] allow|deny
//!   read|write|deny PATH[=>REAL]
//!   offline | dead WRITTEN | fs | exec | legacy WRITTEN => CANONICAL
//!   # any comment (kept in the layer's source: directives live here)
//!   end
//!   expect
//!   SEVERITY CODE FILE:LINE        (every diagnostic, sorted; nothing else may appear)
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
    reason = "test: the suite reads, resolves and inspects its own fixtures and the host directly"
)]

use ralc::capability::layer::{
    Capabilities, DeadGrant, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, LayerRole,
    LayerSource, NetOffline, Origin,
};
use ralc::diag::{Diagnostic, FileId, SourceMap, Span};
use ralc::lint::{LintInput, LintLevels, Places};
use ralc::path::frozen::{FrozenPath, RealPath};
use ralc::typecheck::profile::{ExecPolicy, LegacyForm, TypedProfile};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn fp(spec: &str) -> FrozenPath {
    let (s, r) = spec.split_once("=>").unwrap_or((spec, spec));
    let r = if r.len() > 1 {
        r.trim_end_matches('/')
    } else {
        r
    };
    FrozenPath::from_parts(s, RealPath::from_resolved(r))
}

struct Case {
    sources: SourceMap,
    layers: Vec<Capabilities>,
    places: Places,
    levels: LintLevels,
    typed: Vec<TypedProfile>,
    expect: Vec<String>,
}

fn parse_case(text: &str) -> Case {
    let mut sources = SourceMap::new();
    let mut layers = Vec::new();
    let mut places = Places::default();
    let mut levels = LintLevels::default();
    let mut expect = Vec::new();
    let mut typed = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        let mut words = t.split_whitespace();
        match words.next() {
            Some("places") => {
                for w in words {
                    match w.split_once('=') {
                        Some(("home", v)) => places.home = Some(RealPath::from_resolved(v)),
                        Some(("xdg_config", v)) => {
                            places.xdg_config = Some(RealPath::from_resolved(v))
                        }
                        Some(("cwd", v)) => places.cwd = Some(RealPath::from_resolved(v)),
                        Some(("gitdir", v)) => places.gitdir = Some(RealPath::from_resolved(v)),
                        _ => panic!("bad places word {w}"),
                    }
                }
            }
            Some("levels") => {
                let ws: Vec<&str> = words.collect();
                for pair in ws.chunks(2) {
                    let level = match pair[0] {
                        "-A" => ralc::lint::Level::Allow,
                        "-W" => ralc::lint::Level::Warn,
                        "-D" => ralc::lint::Level::Deny,
                        other => panic!("bad level {other}"),
                    };
                    levels.set(pair[1], level).expect("known lint");
                }
            }
            Some("layer") => {
                let name = words.next().expect("layer name").to_string();
                let mut path = None;
                let mut role = LayerRole::Policy;
                for w in words {
                    if let Some(p) = w.strip_prefix("path=") {
                        path = Some(fp(p));
                    } else if w == "restrict" {
                        role = LayerRole::Restrict;
                    }
                }
                let mut body = Vec::new();
                for l in lines.by_ref() {
                    if l.trim() == "end" {
                        break;
                    }
                    body.push(l);
                }
                let (layer, t) = build_layer(&mut sources, name, path, role, &body);
                layers.push(layer);
                typed.push(t);
            }
            Some("expect") => {
                for l in lines.by_ref() {
                    let l = l.trim();
                    if !l.is_empty() {
                        expect.push(l.to_string());
                    }
                }
            }
            other => panic!("bad case line {other:?}"),
        }
    }
    Case {
        sources,
        layers,
        places,
        levels,
        typed,
        expect,
    }
}

fn build_layer(
    sources: &mut SourceMap,
    name: String,
    path: Option<FrozenPath>,
    role: LayerRole,
    body: &[&str],
) -> (Capabilities, TypedProfile) {
    let mut typed = TypedProfile::default();
    let text: String = body.iter().map(|l| format!("{l}\n")).collect();
    let file = sources.add(name.clone(), text.clone().into_bytes());
    typed.span = Span::new(file, 0, text.len());
    let mut c = Capabilities::empty(LayerSource {
        name: name.as_str().into(),
        role,
        path,
    });
    let mut rules = Vec::new();
    let mut offset = 0;
    for (i, l) in body.iter().enumerate() {
        let start = offset;
        offset += l.len() + 1;
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let indent = l.len() - t.len();
        let mut words = t.split_whitespace();
        let kind = words.next().expect("entry kind");
        let arg = words.next().unwrap_or("");
        let arg_start = start + indent + kind.len() + 1;
        let origin = Origin {
            file: name.as_str().into(),
            line: i as u32 + 1,
            column: (indent + kind.len() + 2) as u32,
            span: Span::new(file, arg_start, arg_start + arg.len()),
            written: arg.split("=>").next().unwrap_or("").into(),
        };
        let policy = || match words.clone().next() {
            Some("allow") => ExecPolicy::Allow,
            Some("deny") => ExecPolicy::Deny,
            other => panic!("bad policy {other:?}"),
        };
        let fs = || FsEntry {
            path: fp(arg),
            origin: origin.clone(),
        };
        match kind {
            "exec" => {}
            "exec-dir" => rules.push(ExecRule {
                key: ExecKey::Dir(fp(arg)),
                policy: policy(),
                origin: origin.clone(),
            }),
            "exec-file" => rules.push(ExecRule {
                key: ExecKey::File(fp(arg)),
                policy: policy(),
                origin: origin.clone(),
            }),
            "exec-name" => rules.push(ExecRule {
                key: ExecKey::Name(arg.into()),
                policy: policy(),
                origin: origin.clone(),
            }),
            "fs" => {
                c.fs.get_or_insert_with(FsPolicy::default);
            }
            "read" => c.fs.get_or_insert_with(FsPolicy::default).read.push(fs()),
            "write" => c.fs.get_or_insert_with(FsPolicy::default).write.push(fs()),
            "deny" => c.fs.get_or_insert_with(FsPolicy::default).deny.push(fs()),
            "deny_write" => {
                c.fs.get_or_insert_with(FsPolicy::default)
                    .write_deny
                    .push(fs())
            }
            "offline" => {
                c.net = Some(NetOffline {
                    origin: origin.clone(),
                })
            }
            "legacy" => {
                let (w, canon) = t[kind.len()..].split_once("=>").expect("legacy W => C");
                typed.legacy.push(LegacyForm {
                    span: origin.span,
                    written: w.trim().into(),
                    canonical: canon.trim().into(),
                })
            }
            "dead" => c.dead.push(DeadGrant {
                origin: origin.clone(),
                reason: "a selector that expands to no existing directory".into(),
            }),
            other => panic!("bad entry kind {other}"),
        }
        if kind.starts_with("exec") {
            c.exec.get_or_insert_with(|| ExecGrant::from_rules([]));
        }
    }
    if c.exec.is_some() {
        c.exec = Some(ExecGrant::from_rules(rules));
    }
    (c, typed)
}

fn summary(d: &Diagnostic, sources: &SourceMap) -> String {
    match d.span {
        Some(s) => {
            let l = sources.locate(s);
            format!("{} {} {}:{}", d.severity, d.code, l.file, l.line)
        }
        None => format!("{} {} -", d.severity, d.code),
    }
}

fn lint(case: &Case) -> Vec<Diagnostic> {
    let input = LintInput {
        layers: &case.layers,
        typed: &case.typed,
        sources: &case.sources,
        places: &case.places,
        stack: None,
        index: None,
    };
    ralc::lint::run_layers(&input, &case.levels)
}

fn cases() -> Vec<(PathBuf, String)> {
    let dir = repo().join("tests/lints/cases");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
        .collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).expect("case readable");
            (p, t)
        })
        .collect()
}

#[test]
fn every_case_gives_exactly_its_expected_diagnostics() {
    let all = cases();
    assert!(all.len() >= 10, "the case directory lost its cases");
    let mut failures = Vec::new();
    for (p, text) in all {
        let case = parse_case(&text);
        let got: Vec<String> = lint(&case)
            .iter()
            .map(|d| summary(d, &case.sources))
            .collect();
        if got != case.expect {
            failures.push(format!(
                "{}:\n  expected {:#?}\n  got {:#?}",
                p.display(),
                case.expect,
                got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_lint_has_a_case_that_fires_and_one_that_is_silent() {
    let all = cases();
    for l in ralc::lint::registry::all() {
        let name = l.info().name;
        let fires = all.iter().any(|(p, t)| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(name))
                && t.contains(&format!(" {name} "))
        });
        let silent = all.iter().any(|(p, t)| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}-silent")))
                && !t
                    .split("expect")
                    .nth(1)
                    .is_some_and(|e| e.contains(&format!(" {name} ")))
        });
        assert!(fires, "no case fires {name}");
        assert!(silent, "no `{name}-silent*` case");
    }
}

#[test]
fn docs_lints_md_is_what_the_registry_generates() {
    let path = repo().join("docs/lints.md");
    let want = ralc::lint::docs::markdown();
    #[allow(
        clippy::disallowed_methods,
        reason = "test: the documented bless switch, RALC_BLESS=1"
    )]
    let bless = std::env::var("RALC_BLESS").is_ok_and(|v| v == "1");
    if bless {
        std::fs::write(&path, &want).expect("write docs/lints.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/lints.md differs from the registry; regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test lints`"
    );
}

#[test]
fn every_lint_has_an_explain_page_naming_its_parts() {
    for l in ralc::lint::registry::all() {
        let page = ralc::lint::explain_page(l.info().name).expect("page");
        for part in ["What it finds:", "Why:", "Example that fires:", "Fix:"] {
            assert!(page.contains(part), "{} lacks {part}", l.info().name);
        }
    }
}

fn sarif_schema() -> serde_json::Value {
    // The OASIS schema, copied into the repository: a test reads nothing beside it.
    let p = repo().join("tests/data/sarif-schema-2.1.0.json");
    serde_json::from_str(&std::fs::read_to_string(&p).expect("schema readable"))
        .expect("schema JSON")
}

#[test]
fn sarif_of_every_case_validates_against_the_schema_and_the_multitool() {
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let rules = ralc::lint::sarif_rules();
    let work = tempfile::tempdir().expect("scratch");
    let mut logs = Vec::new();
    for (p, text) in cases() {
        let case = parse_case(&text);
        let diags = lint(&case);
        for cwd in [None, Some("/work/project".to_string())] {
            let out = ralc::diag::sarif::render_with(
                &diags,
                &case.sources,
                &rules,
                &ralc::diag::sarif::Options { cwd: cwd.clone() },
            );
            let v: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:#?}", p.display());
            assert_eq!(
                v["runs"][0]["results"].as_array().map(Vec::len),
                Some(diags.len())
            );
            if cwd.is_some() {
                // one log a case for the multitool (it takes about a second a log here)
                let log = work.path().join(format!("case-{}.sarif", logs.len()));
                std::fs::write(&log, &out).expect("write a log");
                logs.push(log);
            }
        }
    }
    assert!(!logs.is_empty());
    // and the schema really judges: a log without `version` is refused
    let bad = serde_json::json!({"runs": []});
    assert!(!validator.is_valid(&bad));
    // Microsoft's own validator: no error, no warning, only the documented notes.
    ralc_tests::multitool::assert_clean(&logs, work.path());
}

#[test]
fn a_denied_lint_reports_errors() {
    let case = parse_case(
        "layer p.ral\nwrite /\nexec-dir /usr/bin/ allow\nend\nlevels -D broad-write\nexpect\n",
    );
    let d = lint(&case);
    assert!(d.iter().any(|d| d.code == "broad-write" && d.is_error()));
    let _ = FileId(0);
}

#[test]
fn ten_thousand_entries_lint_quickly() {
    // O(n log n): every lint walks ancestors in an index, never every pair of entries.
    let mut text = String::from("places home=/home/u xdg_config=/home/u/.config\nlayer big.ral\n");
    for i in 0..2500 {
        text.push_str(&format!("read /home/u/src/p{i}\n"));
        text.push_str(&format!("write /home/u/build/b{i}\n"));
        text.push_str(&format!("deny /home/u/src/p{i}/secret\n"));
        text.push_str(&format!("exec-dir /opt/t{i}/bin/ allow\n"));
    }
    text.push_str("end\nexpect\n");
    let case = parse_case(&text);
    let t = std::time::Instant::now();
    let d = lint(&case);
    let took = t.elapsed();
    eprintln!("10k entries linted in {took:?}");
    // 10k entries are more than a macOS Seatbelt profile holds: that lint alone speaks.
    assert!(
        d.iter().all(|d| d.code == "seatbelt-size"),
        "{:?}",
        d.iter().find(|d| d.code != "seatbelt-size")
    );
    // A guard against quadratic blow-up (10^8 pair checks would take minutes), generous
    // for an unoptimised build on a shared two-core machine (about 2 s there).
    assert!(took < std::time::Duration::from_secs(15), "took {took:?}");
}

fn lint_source(text: &str) -> Vec<String> {
    let mut sources = SourceMap::new();
    let id = sources.add("p.ral", text.as_bytes().to_vec());
    let (typed, diags) = ralc::typecheck::check_source(id, text.as_bytes());
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    let typed: Vec<TypedProfile> = typed.into_iter().collect();
    let input = LintInput {
        layers: &[],
        typed: &typed,
        sources: &sources,
        places: &Places::default(),
        stack: None,
        index: None,
    };
    ralc::lint::run_layers(&input, &LintLevels::default())
        .iter()
        .map(|d| summary(d, &sources))
        .collect()
}

#[test]
fn legacy_forms_from_the_typecheck_and_directives_in_real_profiles() {
    assert_eq!(
        lint_source("[\n  net: false,\n  editor: [read: true, write: false],\n]\n"),
        ["note legacy-form p.ral:2", "note legacy-form p.ral:3"]
    );
    assert_eq!(
        lint_source(
            "[\n  # ralc: allow(legacy-form) shared with ralc 0.1 users\n  net: false,\n  editor: [read: true],\n]\n"
        ),
        ["note legacy-form p.ral:4"]
    );
    assert_eq!(
        lint_source("#!/usr/bin/env ral\n# ralc: allow(legacy-form) kept for old tools\n[\n  net: false,\n]\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        lint_source("# ralc: allow(legacy-form)\n[\n  net: false,\n]\n"),
        ["warning lint-directive p.ral:1"]
    );
}

// ---- spec §5 end to end: real profiles, the real freeze on a real disk, the model ----

mod end_to_end {
    use super::repo;
    use ralc::cli::args::{Format, StackArgs};
    use ralc::freeze::{FreezeCtx, RealDisk};
    use ralc::lint::deputy::{deputy_prefixes, DeputyFinding};
    use ralc::pipeline::{compile, Compiled};
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    fn ctx(home: &str, cwd: &str) -> FreezeCtx {
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), home.to_string());
        env.insert("PATH".to_string(), "/usr/bin:/bin".to_string());
        FreezeCtx::from_parts(env, cwd.to_string(), Arc::new(RealDisk))
    }

    fn compiled(files: &[String], home: &str, cwd: &str) -> Compiled {
        let args = StackArgs::default();
        let c = compile(args.request_at(files, ctx(home, cwd)), &args.loader());
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        c
    }

    fn deputy(files: &[String], home: &str, cwd: &str) -> Vec<DeputyFinding> {
        let c = compiled(files, home, cwd);
        deputy_prefixes(c.stack.as_ref().expect("a stack"))
    }

    struct Tree {
        _dir: tempfile::TempDir,
        root: String,
    }

    fn tree() -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path())
            .expect("canonical tempdir")
            .to_str()
            .expect("unicode tempdir")
            .to_string();
        for d in ["home/u", "proj/target", "tools/bin", "app/plugins"] {
            std::fs::create_dir_all(Path::new(&root).join(d)).expect("mkdir");
        }
        Tree { _dir: dir, root }
    }

    impl Tree {
        fn profile(&self, name: &str, text: &str) -> String {
            let p = format!("{}/{name}", self.root);
            std::fs::write(&p, text.replace("$ROOT", &self.root)).expect("write profile");
            p
        }
        fn home(&self) -> String {
            format!("{}/home/u", self.root)
        }
        fn proj(&self) -> String {
            format!("{}/proj", self.root)
        }
    }

    #[test]
    fn compile_and_run_in_one_tree_fires() {
        let t = tree();
        let p = t.profile(
            "p.ral",
            "[\n  exec: ['system:': 'allow', 'cwd:/': 'allow'],\n  fs: [read: ['/usr'], write: ['cwd:']],\n]\n",
        );
        let f = deputy(&[p], &t.home(), &t.proj());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].prefix.as_str(), t.proj());
        assert_eq!(&*f[0].exec_entry.as_ref().unwrap().written, "cwd:/");
        assert_eq!(&*f[0].write_entry.as_ref().unwrap().written, "cwd:");
        assert_eq!(f[0].write_entry.as_ref().unwrap().line, 3);
    }

    #[test]
    fn an_unrestricted_fs_does_not() {
        let t = tree();
        let p = t.profile("p.ral", "[\n  exec: ['cwd:/': 'allow'],\n]\n");
        assert!(deputy(&[p], &t.home(), &t.proj()).is_empty());
    }

    #[cfg(unix)] // a POSIX symlink in the tree
    #[test]
    fn a_symlinked_write_region_into_an_exec_directory_fires_with_the_real_path() {
        let t = tree();
        let link = format!("{}/scratch", t.home());
        std::os::unix::fs::symlink(format!("{}/tools/bin", t.root), &link).expect("symlink");
        let p = t.profile(
            "p.ral",
            "[\n  exec: ['$ROOT/tools/bin/': 'allow'],\n  fs: [write: ['~/scratch']],\n]\n",
        );
        let f = deputy(&[p], &t.home(), &t.proj());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].prefix.as_str(), format!("{}/tools/bin", t.root));
        assert_eq!(&*f[0].write_entry.as_ref().unwrap().written, "~/scratch");
    }

    #[test]
    fn a_directory_excluded_on_either_side_does_not() {
        let t = tree();
        let fs_side = t.profile(
            "fs.ral",
            "[\n  exec: ['cwd:/target/': 'allow'],\n  fs: [write: ['cwd:'], deny: ['cwd:/TARGET']],\n]\n",
        );
        assert!(deputy(&[fs_side], &t.home(), &t.proj()).is_empty());
        let exec_side = t.profile(
            "exec.ral",
            "[\n  exec: ['cwd:/': 'allow', 'cwd:/target/': 'deny'],\n  fs: [write: ['cwd:/target']],\n]\n",
        );
        assert!(deputy(&[exec_side], &t.home(), &t.proj()).is_empty());
    }

    #[test]
    fn two_layers_innocent_alone_make_one() {
        let t = tree();
        let base = t.profile("base.ral", "[\n  exec: ['$ROOT/app/': 'allow'],\n]\n");
        let project = t.profile(
            "project.ral",
            "[\n  fs: [write: ['$ROOT/app/plugins']],\n]\n",
        );
        assert!(deputy(std::slice::from_ref(&base), &t.home(), &t.proj()).is_empty());
        assert!(deputy(std::slice::from_ref(&project), &t.home(), &t.proj()).is_empty());
        let f = deputy(&[base.clone(), project.clone()], &t.home(), &t.proj());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].prefix.as_str(), format!("{}/app/plugins", t.root));
        assert_eq!(&*f[0].exec_entry.as_ref().unwrap().file, base.as_str());
        assert_eq!(&*f[0].write_entry.as_ref().unwrap().file, project.as_str());
    }

    #[test]
    fn lint_run_over_the_stack_reports_the_deputy_prefix_and_directives_allow_it() {
        let t = tree();
        let p = t.profile(
            "p.ral",
            "[\n  exec: ['cwd:/': 'allow'],\n  fs: [write: ['cwd:/target']],\n]\n",
        );
        let c = compiled(&[p], &t.home(), &t.proj());
        let d = ralc::lint::run(
            c.stack.as_ref().unwrap(),
            &c.typed,
            &c.sources,
            &ralc::lint::LintLevels::default(),
            &c.ctx,
        );
        assert!(d.iter().any(|d| d.code == "deputy-prefix"), "{d:?}");
        let p = t.profile(
            "q.ral",
            "[\n  exec: ['cwd:/': 'allow'],\n  # ralc: allow(deputy-prefix) cargo build && ./target/debug/app\n  fs: [write: ['cwd:/target']],\n]\n",
        );
        let c = compiled(&[p], &t.home(), &t.proj());
        let d = ralc::lint::run(
            c.stack.as_ref().unwrap(),
            &c.typed,
            &c.sources,
            &ralc::lint::LintLevels::default(),
            &c.ctx,
        );
        assert!(!d.iter().any(|d| d.code == "deputy-prefix"), "{d:?}");
    }

    #[test]
    fn ralc_deputy_honours_a_reasoned_allow_on_the_exec_entry() {
        let t = tree();
        let p = t.profile(
            "p.ral",
            "[\n  exec: [\n    # ralc: allow(deputy-prefix) reviewed build tree\n    'cwd:/': 'allow',\n  ],\n  fs: [write: ['cwd:']],\n]\n",
        );
        let c = compiled(&[p], &t.home(), &t.proj());
        let all = deputy_prefixes(c.stack.as_ref().unwrap());
        assert_eq!(all.len(), 1);
        assert!(ralc::cli::deputy::without_allowed(all, &c.sources).is_empty());
    }

    #[test]
    fn selectors_are_never_redundant_and_std_profiles_carry_no_authoring_findings() {
        let t = tree();
        let p = t.profile(
            "p.ral",
            "[\n  exec: ['path:': 'allow', 'system:': 'allow', '/usr/bin/': 'allow', '/usr/bin/x/': 'allow'],\n]\n",
        );
        let c = compiled(&[p, "std:reasonable".to_string()], &t.home(), &t.proj());
        let d = ralc::lint::run(
            c.stack.as_ref().unwrap(),
            &c.typed,
            &c.sources,
            &ralc::lint::LintLevels::default(),
            &c.ctx,
        );
        let redundant: Vec<_> = d.iter().filter(|d| d.code == "redundant-entry").collect();
        assert_eq!(redundant.len(), 1, "{d:#?}");
        assert!(redundant[0].message.contains("`/usr/bin/x/`"));
        for d in &d {
            let in_std = d
                .span
                .is_some_and(|s| c.sources.get(s.file).name.starts_with("std:"));
            let authoring = ralc::lint::lookup(&d.code).is_some_and(|l| l.info().authoring);
            assert!(!(in_std && authoring), "{d:?}");
        }
    }

    #[test]
    fn self_writable_fires_for_a_profile_in_its_write_region_not_for_a_restrict_file() {
        let t = tree();
        let p = format!("{}/proj/p.ral", t.root);
        std::fs::write(&p, "[\n  fs: [read: ['/usr'], write: ['cwd:']],\n]\n").expect("write");
        let r = format!("{}/proj/r.ral", t.root);
        std::fs::write(&r, "[\n  fs: [read: ['/'], write: ['cwd:']],\n]\n").expect("write");
        let args = StackArgs {
            restrict: vec![r.clone()],
            ..StackArgs::default()
        };
        let c = compile(
            args.request_at(std::slice::from_ref(&p), ctx(&t.home(), &t.proj())),
            &args.loader(),
        );
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        let d = ralc::lint::run(
            c.stack.as_ref().unwrap(),
            &c.typed,
            &c.sources,
            &ralc::lint::LintLevels::default(),
            &c.ctx,
        );
        let sw: Vec<_> = d.iter().filter(|d| d.code == "self-writable").collect();
        assert_eq!(sw.len(), 1, "{d:#?}");
        assert!(
            sw[0].message.starts_with(&format!("`{p}` is writable")),
            "{}",
            sw[0].message
        );
    }

    #[test]
    fn for_compiled_lints_a_compile_and_deny_makes_errors() {
        let t = tree();
        let p = t.profile(
            "p.ral",
            "[\n  exec: ['cwd:/': 'allow'],\n  fs: [write: ['cwd:']],\n  net: false,\n]\n",
        );
        let c = compiled(&[p], &t.home(), &t.proj());
        let d = ralc::lint::for_compiled(&c, &ralc::lint::LintLevels::default());
        let codes: Vec<_> = d.iter().map(|d| (d.code.as_str(), d.severity)).collect();
        assert!(
            codes.contains(&("deputy-prefix", ralc::diag::Severity::Warning)),
            "{codes:?}"
        );
        assert!(
            codes.contains(&("legacy-form", ralc::diag::Severity::Note)),
            "{codes:?}"
        );
        let levels =
            ralc::lint::LintLevels::from_cli(&[], &[], &["deputy-prefix".to_string()]).unwrap();
        let d = ralc::lint::for_compiled(&c, &levels);
        assert!(d.iter().any(|d| d.code == "deputy-prefix" && d.is_error()));
    }

    /// examples/code-review: what `ralc deputy --format github` prints for the change,
    /// frozen at the anchor the README uses (`--home /home/dev --cwd /home/dev/project`).
    #[test]
    fn the_code_review_example_prints_what_its_readme_shows() {
        let dir = repo().join("examples/code-review");
        let run = |name: &str| {
            let file = dir.join(name).to_str().expect("unicode").to_string();
            let c = compiled(&[file], "/home/dev", "/home/dev/project");
            let stack = c.stack.as_ref().unwrap();
            let f = ralc::cli::deputy::Report {
                prefixes: deputy_prefixes(stack),
                host_run: ralc::lint::host_run_writable::host_run_writable(
                    stack,
                    &ralc::lint::Places::from_ctx(&c.ctx),
                ),
            };
            let out = ralc::cli::deputy::report(&f, Format::Github, false, &c.sources, None);
            out.replace(&format!("{}/", repo().to_str().unwrap()), "")
        };
        assert_eq!(run("before.ral"), "");
        let want = std::fs::read_to_string(dir.join("deputy.github.txt")).expect("expected output");
        assert_eq!(run("after.ral"), want);
    }
}
