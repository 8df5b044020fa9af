//! Paths and the freeze: table-driven head/fold cases under both rule sets (data in
//! `tests/paths/`), and places, selectors and exec keys frozen over injected environments
//! and temp trees.
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
// POSIX hosts only: the suite builds POSIX trees (symlinks, modes, non-UTF-8 names).
#![cfg(unix)]

use ralc::capability::layer::{Capabilities, ExecKey, LayerRole};
use ralc::capability::resolve::Resolve;
use ralc::diag::{Diagnostic, SourceMap, Span};
use ralc::freeze::{self, FreezeCtx, RealDisk};
use ralc::path::lex::{fold_dots_under, parse_bytes, HeadKind, PathRules};
use ralc::typecheck::profile::{
    ExecEntry, ExecKeyForm, ExecPolicy, FsEntries, PathEntry, Spanned, TypedProfile,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

// ---------- helpers ----------

struct Tree {
    _dir: tempfile::TempDir,
    root: String,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path())
        .expect("canon")
        .to_str()
        .expect("utf8")
        .to_string();
    Tree { _dir: dir, root }
}

impl Tree {
    fn p(&self, rel: &str) -> String {
        format!("{}/{}", self.root, rel)
    }
    fn dir(&self, rel: &str) -> String {
        let p = self.p(rel);
        std::fs::create_dir_all(&p).expect("mkdir");
        p
    }
    fn file(&self, rel: &str, content: &str) -> String {
        let p = self.p(rel);
        if let Some(parent) = Path::new(&p).parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, content).expect("write");
        p
    }
    fn link(&self, target: &str, rel: &str) -> String {
        let p = self.p(rel);
        std::os::unix::fs::symlink(target, &p).expect("symlink");
        p
    }
}

fn ctx(env: &[(&str, &str)], cwd: &str) -> FreezeCtx {
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    FreezeCtx::from_parts(env, cwd.to_string(), Arc::new(RealDisk))
}

/// A profile built by hand: every key and path written on its own line of a fake source,
/// so spans and origins are real.
struct Prof {
    sources: SourceMap,
    profile: TypedProfile,
}

fn span_of(text: &str, line: usize, col0: usize, len: usize) -> Span {
    let start: usize = text.lines().take(line).map(|l| l.len() + 1).sum::<usize>() + col0;
    Span::new(ralc::diag::FileId(0), start, start + len)
}

fn prof(exec: &[(&str, ExecPolicy)], read: &[&str], write: &[&str], deny: &[&str]) -> Prof {
    let mut text = String::new();
    for (k, _) in exec {
        text.push_str(&format!("  '{k}': x,\n"));
    }
    for group in [read, write, deny] {
        for p in group {
            text.push_str(&format!("  '{p}',\n"));
        }
    }
    let mut sources = SourceMap::new();
    sources.add("p.ral", text.clone().into_bytes());
    let mut n = 0;
    let mut entries = Vec::new();
    for (k, pol) in exec {
        let sp = span_of(&text, n, 3, k.len());
        n += 1;
        let form = if k.ends_with('/') {
            ExecKeyForm::Dir
        } else if k.contains('/') {
            ExecKeyForm::File
        } else {
            ExecKeyForm::Name
        };
        entries.push(ExecEntry {
            key: k.to_string(),
            key_span: sp,
            form,
            policy: pol.clone(),
            policy_span: sp,
        });
    }
    let mut group = |g: &[&str]| -> Option<Vec<PathEntry>> {
        if g.is_empty() {
            return None;
        }
        let mut v = Vec::new();
        for p in g {
            v.push(PathEntry {
                text: p.to_string(),
                span: span_of(&text, n, 3, p.len()),
            });
            n += 1;
        }
        Some(v)
    };
    let fs = FsEntries {
        read: group(read),
        write: group(write),
        deny: group(deny),
        deny_write: None,
    };
    let whole = Span::new(ralc::diag::FileId(0), 0, text.len());
    let has_fs = fs.read.is_some() || fs.write.is_some() || fs.deny.is_some();
    let profile = TypedProfile {
        span: whole,
        exec: (!exec.is_empty()).then(|| Spanned::new(entries, whole)),
        fs: has_fs.then(|| Spanned::new(fs, whole)),
        ..TypedProfile::default()
    };
    Prof { sources, profile }
}

fn run(p: &Prof, c: &FreezeCtx) -> (Capabilities, Vec<Diagnostic>) {
    freeze::freeze(
        &p.profile,
        freeze::layer_source("p.ral", LayerRole::Policy),
        c,
        &p.sources,
    )
}

/// Every fs entry (read, write, deny in order) as (surface, real).
fn read_fs(p: &Prof, c: &FreezeCtx) -> (Vec<(String, String)>, Vec<Diagnostic>) {
    let (caps, d) = run(p, c);
    let fs = caps.fs.unwrap_or_default();
    let v = fs
        .read
        .iter()
        .chain(&fs.write)
        .chain(&fs.deny)
        .map(|e| {
            (
                e.path.surface_str().to_string(),
                e.path.real().as_str().to_string(),
            )
        })
        .collect();
    (v, d)
}

fn codes(d: &[Diagnostic]) -> Vec<&str> {
    d.iter().map(|d| d.code.as_str()).collect()
}

fn exec_keys(caps: &Capabilities) -> Vec<String> {
    caps.exec
        .as_ref()
        .map(|e| {
            e.rules()
                .iter()
                .map(|r| match &r.key {
                    ExecKey::Name(n) => format!("name {n}"),
                    ExecKey::Dir(p) => format!("dir {}", p.real()),
                    ExecKey::File(p) => format!("file {}", p.real()),
                })
                .collect()
        })
        .unwrap_or_default()
}

// ---------- table-driven lexing ----------

fn rules_of(s: &str) -> PathRules {
    match s {
        "posix" => PathRules::Posix,
        "windows" => PathRules::Windows,
        other => panic!("unknown rules `{other}`"),
    }
}

fn kind_name(k: HeadKind) -> String {
    match k {
        HeadKind::Posix => "posix".into(),
        HeadKind::Drive { letter } => format!("drive:{}", letter as char),
        HeadKind::Unc { volume: false } => "unc".into(),
        HeadKind::Unc { volume: true } => "volume".into(),
        HeadKind::Driveless => "driveless".into(),
        HeadKind::DriveRelative { letter } => format!("drive-relative:{}", letter as char),
        HeadKind::Relative => "relative".into(),
        HeadKind::Device => "device".into(),
        HeadKind::Malformed => "malformed".into(),
    }
}

/// `tests/paths/heads.txt`: `rules | path | kind | head_len | folded`, `#` comments.
/// Every case runs on this host, whatever its family.
#[test]
fn heads_and_folds_table() {
    let data = include_str!("../paths/heads.txt");
    let mut n = 0;
    for (i, line) in data.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(" | ").collect();
        assert_eq!(f.len(), 5, "line {}: {line}", i + 1);
        let rules = rules_of(f[0]);
        let p = parse_bytes(f[1].as_bytes(), rules);
        assert_eq!(kind_name(p.kind), f[2], "line {}: kind of {}", i + 1, f[1]);
        assert_eq!(
            p.head_len.to_string(),
            f[3],
            "line {}: head_len of {}",
            i + 1,
            f[1]
        );
        assert_eq!(
            fold_dots_under(f[1], rules),
            f[4],
            "line {}: fold of {}",
            i + 1,
            f[1]
        );
        n += 1;
    }
    assert!(n >= 40, "only {n} cases");
}

/// `tests/paths/eligibility.txt`: `path | posix|windows|both|refused:REASON`.
#[test]
fn eligibility_table() {
    use ralc::freeze::eligibility::{grant_eligibility, EligibleOn, GrantRefusal};
    let data = include_str!("../paths/eligibility.txt");
    let mut n = 0;
    for line in data.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (path, want) = line.split_once(" | ").expect("two fields");
        let got = match grant_eligibility(path) {
            Ok(EligibleOn::Posix) => "posix".to_string(),
            Ok(EligibleOn::Windows) => "windows".to_string(),
            Ok(EligibleOn::Both) => "both".to_string(),
            Err(r) => format!(
                "refused:{}",
                match r {
                    GrantRefusal::MixedHead => "mixed",
                    GrantRefusal::Device => "device",
                    GrantRefusal::Malformed => "malformed",
                    GrantRefusal::NtObject => "nt-object",
                    GrantRefusal::Relative => "relative",
                }
            ),
        };
        assert_eq!(got, want.trim(), "{path}");
        n += 1;
    }
    assert!(n >= 15);
}

// ---------- places ----------

#[test]
fn absolute_paths_freeze_through_symlinks() {
    let t = tree();
    t.dir("real/sub");
    t.link(&t.p("real"), "ln");
    let c = ctx(&[], &t.root);
    let ln_sub = format!("{}/ln/./x/../sub", t.root);
    let missing = format!("{}/ln/nope/deeper", t.root);
    let p = prof(&[], &[&ln_sub, &missing], &[], &[]);
    let (v, d) = read_fs(&p, &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0], (t.p("ln/sub"), t.p("real/sub")));
    assert_eq!(v[1], (t.p("ln/nope/deeper"), t.p("real/nope/deeper")));
}

#[test]
fn tilde_forms() {
    let t = tree();
    t.dir("home/u/.ssh");
    t.dir("realhome");
    t.link(&t.p("realhome"), "linkhome");
    let c = ctx(&[("HOME", &t.p("home/u"))], &t.root);
    let p = prof(&[], &["~", "~/.ssh", "~//x/../y"], &[], &[]);
    let (v, d) = read_fs(&p, &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("home/u"));
    assert_eq!(v[1].1, t.p("home/u/.ssh"));
    assert_eq!(v[2].0, t.p("home/u/y"));
    // a symlinked home: the surface keeps the link, the real form follows it
    let c = ctx(&[("HOME", &t.p("linkhome"))], &t.root);
    let (v, _) = read_fs(&prof(&[], &["~/f"], &[], &[]), &c);
    assert_eq!(v[0], (t.p("linkhome/f"), t.p("realhome/f")));
    // other tilde forms
    let (_, d) = read_fs(&prof(&[], &["~root/x"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0303"]);
}

#[test]
fn no_home_is_an_error_where_a_place_needs_it() {
    let t = tree();
    for env in [vec![], vec![("HOME", "")], vec![("HOME", "rel/home")]] {
        let c = ctx(&env, &t.root);
        let p = prof(&[], &["~/x", "xdg:config"], &["cwd:"], &[]);
        let (caps, d) = run(&p, &c);
        assert_eq!(codes(&d), ["E0302", "E0302"], "{env:?}");
        // the failing entries are left out, the good one stays
        assert_eq!(caps.fs.expect("fs").write.len(), 1);
        let loc = p.sources.locate(d[0].span.expect("span"));
        assert_eq!((loc.line, loc.column), (1, 4));
    }
}

#[test]
fn cwd_and_tempdir() {
    let t = tree();
    let proj = t.dir("proj");
    t.dir("tmp");
    let c = ctx(&[("TMPDIR", &t.p("tmp"))], &proj);
    let p = prof(
        &[],
        &[
            "cwd:",
            "cwd:src",
            "cwd:/src/../lib",
            "tempdir:",
            "tempdir:/a",
        ],
        &[],
        &[],
    );
    let (v, d) = read_fs(&p, &c);
    assert!(d.is_empty(), "{d:?}");
    let surf: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(
        surf,
        [
            proj.clone(),
            format!("{proj}/src"),
            format!("{proj}/lib"),
            t.p("tmp"),
            t.p("tmp/a")
        ]
    );
    // TMPDIR relative: /tmp
    let c = ctx(&[("TMPDIR", "rel")], &proj);
    let (v, _) = read_fs(&prof(&[], &["tempdir:"], &[], &[]), &c);
    assert_eq!(v[0].0, "/tmp");
}

#[test]
fn subpaths_never_reroot() {
    let t = tree();
    let c = ctx(&[("HOME", &t.root)], &t.root);
    let (v, d) = read_fs(&prof(&[], &["xdg:config//etc"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p(".config/etc"));
    for bad in [
        "cwd:C:\\x",
        "~/a/D:/b",
        "xdg:config/\\\\srv\\sh",
        "tempdir:\\\\?\\C:\\",
    ] {
        let (_, d) = read_fs(&prof(&[], &[bad], &[], &[]), &c);
        assert_eq!(codes(&d), ["E0307"], "{bad}");
    }
}

#[test]
fn xdg_under_home_judged_on_real_forms() {
    let t = tree();
    let home = t.dir("home");
    t.dir("outside/cfg");
    t.dir("home/.local/share");
    // XDG_CONFIG_HOME inside home on its surface, outside through a symlink
    t.link(&t.p("outside/cfg"), "home/cfglink");
    let c = ctx(
        &[("HOME", &home), ("XDG_CONFIG_HOME", &t.p("home/cfglink"))],
        &t.root,
    );
    let (_, d) = read_fs(&prof(&[], &["xdg:config/app"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0305"]);
    assert!(
        d[0].message.contains(&t.p("outside/cfg")),
        "{}",
        d[0].message
    );
    // defaults: fine
    let (v, d) = read_fs(&prof(&[], &["xdg:data/app", "xdg:cache"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("home/.local/share/app"));
    assert_eq!(v[1].0, t.p("home/.cache"));
    // an override plainly outside home
    let c = ctx(&[("HOME", &home), ("XDG_STATE_HOME", "/etc")], &t.root);
    let (_, d) = read_fs(&prof(&[], &["xdg:state"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0305"]);
    // a symlinked home with the default under it is inside (both judged real)
    t.link(&home, "homelink");
    let c = ctx(&[("HOME", &t.p("homelink"))], &t.root);
    let (v, d) = read_fs(&prof(&[], &["xdg:config"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].1, t.p("home/.config"));
    // unknown kind, runtime with no variable
    let (_, d) = read_fs(&prof(&[], &["xdg:configs", "xdg:runtime"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0304", "E0306"]);
    assert!(d[0].message.contains("`config`"));
}

#[test]
fn an_xdg_sub_path_cannot_climb_out_of_home() {
    let t = tree();
    let home = t.dir("home");
    t.dir("home/.config");
    t.dir("outside");
    t.link(&t.p("outside"), "home/.config/out");
    let c = ctx(&[("HOME", &home)], &t.root);
    // `..` climbing out of home, by a default and by an override under home
    for bad in [
        "xdg:config/../../../../etc",
        "xdg:config/../..",
        "xdg:cache/../../x",
    ] {
        let (_, d) = read_fs(&prof(&[], &[bad], &[], &[]), &c);
        assert_eq!(codes(&d), ["E0305"], "{bad}");
        assert!(d[0].message.contains("outside home"), "{}", d[0].message);
        assert!(d[0].message.contains("sub-path"), "{}", d[0].message);
    }
    // a sub-path through a symlink out of home: judged on the real form
    let (_, d) = read_fs(&prof(&[], &["xdg:config/out/x"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0305"]);
    assert!(d[0].message.contains(&t.p("outside/x")), "{}", d[0].message);
    // `..` that stays under home is fine: it folds
    let (v, d) = read_fs(
        &prof(
            &[],
            &["xdg:config/../.local/share/app", "xdg:config/.."],
            &[],
            &[],
        ),
        &c,
    );
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("home/.local/share/app"));
    assert_eq!(v[1].0, home);
}

#[test]
fn gitdir_discovery_and_pointers() {
    let t = tree();
    // a plain repository, discovered from a subdirectory
    t.dir("repo/.git");
    let sub = t.dir("repo/src/deep");
    let (v, d) = read_fs(
        &prof(&[], &["gitdir:", "gitdir:/hooks"], &[], &[]),
        &ctx(&[], &sub),
    );
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("repo/.git"));
    assert_eq!(v[1].0, t.p("repo/.git/hooks"));
    // outside a repository: the cwd (unless the temp root itself sits in one)
    let lone = t.dir("lone");
    let (v, _) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &lone));
    if !v[0].0.ends_with(".git") {
        assert_eq!(v[0].0, lone);
    }
    // a claimed linked worktree
    t.dir("repo/.git/worktrees/wt");
    let wt = t.dir("wt");
    t.file(
        "wt/.git",
        &format!("gitdir: {}\n", t.p("repo/.git/worktrees/wt")),
    );
    t.file(
        "repo/.git/worktrees/wt/gitdir",
        &format!("{}\n", t.p("wt/.git")),
    );
    let (v, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &wt));
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("repo/.git/worktrees/wt"));
    // a claimed submodule, through core.worktree (relative pointer and worktree)
    t.dir("repo/.git/modules/m");
    let m = t.dir("repo/m");
    t.file("repo/m/.git", "gitdir: ../.git/modules/m\n");
    t.file(
        "repo/.git/modules/m/config",
        "[core]\n\tworktree = ../../../m\n",
    );
    let (v, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &m));
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, t.p("repo/.git/modules/m"));
    // an unclaimed pointer: a real git dir that names another tree
    let evil = t.dir("evil");
    t.file(
        "evil/.git",
        &format!("gitdir: {}\n", t.p("repo/.git/worktrees/wt")),
    );
    let (caps, d) = run(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &evil));
    assert_eq!(codes(&d), ["E0313"]);
    assert!(caps.fs.expect("fs").read.is_empty());
    // a pointer at a directory that does not exist
    let gone = t.dir("gone");
    t.file("gone/.git", "gitdir: /nonexistent/ralc-test\n");
    let (_, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &gone));
    assert_eq!(codes(&d), ["E0313"]);
    // no gitdir: line
    let bad = t.dir("bad");
    t.file("bad/.git", "hello\n");
    let (_, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &bad));
    assert_eq!(codes(&d), ["E0314"]);
    // unreadable (too large to be a pointer)
    let big = t.dir("big");
    t.file("big/.git", &"x".repeat(70 * 1024));
    let (_, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &ctx(&[], &big));
    assert_eq!(codes(&d), ["E0315"]);
}

// ---------- selectors ----------

#[test]
fn path_selector() {
    let t = tree();
    let a = t.dir("a/bin");
    let b = t.dir("b/bin");
    let c = ctx(
        &[("PATH", &format!("{a}::rel:.:{b}:{a}:{}", t.p("missing")))],
        &t.root,
    );
    let (caps, d) = run(&prof(&[("path:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(exec_keys(&caps), [format!("dir {a}"), format!("dir {b}")]);
}

#[test]
fn refuse_the_world() {
    let t = tree();
    let rootlink = t.link("/", "rootlink");
    for path in [
        "/usr/bin:/".to_string(),
        "/usr/bin://".to_string(),
        "/bin:/usr/../".to_string(),
        format!("/bin:{rootlink}"),
    ] {
        let c = ctx(&[("PATH", &path)], &t.root);
        let (caps, d) = run(&prof(&[("path:", ExecPolicy::Allow)], &[], &[], &[]), &c);
        assert_eq!(codes(&d), ["E0316"], "{path}");
        assert!(exec_keys(&caps).is_empty(), "{path}");
    }
    let c = ctx(&[("GOBIN", "/"), ("HOME", &t.root)], &t.root);
    let (_, d) = run(&prof(&[("go:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0316"]);
    // in fs too
    let c = ctx(&[("PATH", "/")], &t.root);
    let (_, d) = read_fs(&prof(&[], &["path:"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0316"]);
}

#[test]
fn empty_selectors() {
    let t = tree();
    // path: with no absolute entry is an error
    let c = ctx(&[("PATH", "bin:.::")], &t.root);
    let (_, d) = run(&prof(&[("path:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0317"]);
    let c = ctx(&[], &t.root);
    let (_, d) = run(&prof(&[("path:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0317"]);
    // a package manager not installed: a dead grant, not an error
    let c = ctx(&[("HOME", &t.root)], &t.root);
    let (caps, d) = run(&prof(&[("volta:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(caps.dead.len(), 1);
    assert_eq!(&*caps.dead[0].origin.written, "volta:");
    assert_eq!(
        (caps.dead[0].origin.line, caps.dead[0].origin.column),
        (1, 4)
    );
    assert!(exec_keys(&caps).is_empty());
    // installed: granted
    let bin = t.dir(".volta/bin");
    let (caps, _) = run(&prof(&[("volta:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(exec_keys(&caps), [format!("dir {bin}")]);
    // an override replaces the defaults
    let cargo = t.dir("cargohome/bin");
    t.dir(".cargo/bin");
    let c = ctx(
        &[("HOME", &t.root), ("CARGO_HOME", &t.p("cargohome"))],
        &t.root,
    );
    let (caps, _) = run(&prof(&[("cargo:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(exec_keys(&caps), [format!("dir {cargo}")]);
    // unknown selector, selector with a sub-path
    let (_, d) = run(
        &prof(
            &[("brew:", ExecPolicy::Allow), ("path:/", ExecPolicy::Allow)],
            &[],
            &[],
            &[],
        ),
        &c,
    );
    assert_eq!(codes(&d), ["E0318", "E0319"]);
}

#[test]
fn system_selector_on_this_host() {
    let t = tree();
    let c = ctx(&[], &t.root);
    let (caps, d) = run(&prof(&[("system:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    let keys = exec_keys(&caps);
    assert!(!keys.is_empty());
    for k in keys {
        let dir = k.strip_prefix("dir ").expect("a directory");
        assert!(Path::new(dir).is_dir(), "{dir}");
    }
}

// ---------- exec keys ----------

#[test]
fn exec_keys_freeze_by_form() {
    let t = tree();
    let bin = t.dir("bin");
    let tool = t.file("bin/tool", "#!/bin/sh\n");
    let c = ctx(&[("HOME", &t.root)], &t.root);
    let dir_key = format!("{bin}/");
    let p = prof(
        &[
            ("git", ExecPolicy::Deny),
            (&dir_key, ExecPolicy::Allow),
            (&tool, ExecPolicy::Allow),
            ("cwd:bin/tool", ExecPolicy::Allow),
            ("cwd:/", ExecPolicy::Allow),
        ],
        &[],
        &[],
        &[],
    );
    let (caps, d) = run(&p, &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        exec_keys(&caps),
        [
            "name git".to_string(),
            format!("dir {bin}"),
            format!("file {tool}"),
            format!("file {tool}"),
            format!("dir {}", t.root),
        ]
    );
    // a file key naming a directory; relative keys
    let p = prof(
        &[
            (&bin, ExecPolicy::Allow),
            ("bin/tool", ExecPolicy::Allow),
            ("./x", ExecPolicy::Allow),
        ],
        &[],
        &[],
        &[],
    );
    let (caps, d) = run(&p, &c);
    assert_eq!(codes(&d), ["E0320", "E0301", "E0301"]);
    assert!(exec_keys(&caps).is_empty());
    assert!(d[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains(&format!("{bin}/")));
    assert!(d[1].help.as_deref().unwrap_or("").contains("cwd:bin/tool"));
}

#[test]
fn other_family_keys_are_dead_grants() {
    let t = tree();
    let c = ctx(&[], &t.root);
    let p = prof(
        &[
            ("C:\\Tools\\", ExecPolicy::Allow),
            ("C:\\Tools\\git.exe", ExecPolicy::Deny),
            ("\\\\srv\\share\\bin\\", ExecPolicy::Allow),
        ],
        &["D:\\data"],
        &[],
        &[],
    );
    let (caps, d) = run(&p, &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(caps.dead.len(), 4);
    assert!(exec_keys(&caps).is_empty());
    assert!(caps.fs.expect("fs").read.is_empty());
    assert!(caps.dead[0].reason.contains("Windows"));
    // a non-verbatim //srv/share is eligible on both: frozen here as a POSIX path
    let (v, d) = read_fs(&prof(&[], &["//srv/share/x"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, "/srv/share/x");
}

#[test]
fn refused_heads_and_device_names() {
    let t = tree();
    let c = ctx(&[], &t.root);
    let cases: &[(&str, &str)] = &[
        ("\\\\.\\pipe\\x", "E0308"),
        ("//server", "E0309"),
        ("/\\srv\\share", "E0310"),
        ("\\/srv/share", "E0310"),
        ("\\??\\C:\\x", "E0311"),
        ("C:\\tmp\\nul.txt", "E0321"),
        ("C:\\tmp\\COM¹", "E0321"),
        ("rel/x", "E0301"),
    ];
    for (text, code) in cases {
        let (caps, d) = run(&prof(&[], &[], &[], &[text]), &c);
        assert_eq!(codes(&d), [*code], "{text}");
        assert!(caps.fs.expect("fs").deny.is_empty());
        assert!(caps.dead.is_empty(), "{text}");
    }
    let (_, d) = run(&prof(&[], &["C:\\x\\NUL"], &[], &[]), &c);
    assert!(d[0].help.as_deref().unwrap_or("").contains("\\\\.\\NUL"));
    // the discard device itself is always permitted: dead on POSIX, no error
    let (caps, d) = run(&prof(&[], &[], &["\\\\.\\NUL", "/dev/null"], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(caps.dead.len(), 1);
    assert_eq!(caps.fs.expect("fs").write.len(), 1);
    // a POSIX file named nul is a file on POSIX
    let (_, d) = run(&prof(&[], &["/tmp/nul"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
}

// ---------- floor, anchor, resolver ----------

#[test]
fn floor_is_existing_prefixes_outside_home() {
    let t = tree();
    let c = ctx(&[("HOME", &t.root)], &t.root);
    let f = freeze::floor(&c);
    let want: Vec<String> = freeze::FLOOR
        .iter()
        .filter(|p| Path::new(p).is_dir())
        .map(|p| {
            std::fs::canonicalize(p)
                .expect("canon")
                .to_str()
                .expect("utf8")
                .to_string()
        })
        .collect();
    let got: Vec<String> = f.iter().map(|p| p.as_str().to_string()).collect();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(got, want_sorted);
    // a home that holds a floor prefix hides it
    for p in &want {
        let c = ctx(&[("HOME", p)], &t.root);
        assert!(!freeze::floor(&c).iter().any(|x| x.as_str() == p));
    }
}

#[test]
fn anchor_reanchors() {
    use ralc::freeze::Anchor;
    let t = tree();
    let c = ctx(&[("HOME", "/nowhere"), ("KEEP", "1")], &t.root);
    let a = Anchor {
        home: Some("h".into()),
        cwd: Some("/elsewhere".into()),
        env: vec!["PATH=/bin".into()],
        env_clear: true,
    };
    let c2 = c.with_anchor(&a).expect("anchor");
    assert_eq!(c2.home(), Some(t.p("h").as_str()));
    assert_eq!(c2.var("KEEP"), None);
    assert_eq!(c2.var("PATH"), Some("/bin"));
    assert_eq!(c2.cwd_surface(), "/elsewhere");
    let kept = c.with_anchor(&Anchor::default()).expect("anchor");
    assert_eq!(kept.var("KEEP"), Some("1"));
    let bad = Anchor {
        env: vec!["NOEQUALS".into()],
        ..Anchor::default()
    };
    assert!(c.with_anchor(&bad).is_err());
}

#[test]
fn resolver_which_and_real() {
    use std::os::unix::fs::PermissionsExt;
    let t = tree();
    let bin = t.dir("bin");
    let tool = t.file("bin/tool", "#!/bin/sh\n");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    t.file("bin/plain", "");
    let c = ctx(&[("PATH", &format!(".:rel:{bin}"))], &t.root);
    let (found, real) = c.which("tool").expect("found");
    assert_eq!(found, tool);
    assert_eq!(real.as_str(), tool);
    assert!(c.which("plain").is_none(), "not executable");
    assert!(c.which("bin/tool").is_none());
    assert_eq!(c.real("relative"), None);
    assert_eq!(
        c.real(&format!("{bin}/../bin/x")).expect("real").as_str(),
        t.p("bin/x")
    );
    assert_eq!(c.cwd(), t.root);
}

#[test]
fn codes_are_registered_and_anchored_examples_named() {
    for c in freeze::CODES {
        assert!(c.code.starts_with("E03"), "{}", c.code);
        assert!(!c.example.is_empty());
    }
    for (code, _) in freeze::NEEDS_ANCHOR {
        assert!(freeze::CODES.iter().any(|c| c.code == *code), "{code}");
    }
}

// ---------- codes: every freeze example triggers exactly its code ----------

/// Front end and freeze over one profile text against `c`.
fn check_text(text: &str, c: &FreezeCtx) -> Vec<String> {
    let mut sources = SourceMap::new();
    let id = sources.add("example.ral", text.as_bytes().to_vec());
    let (typed, mut d) = ralc::typecheck::check_source(id, text.as_bytes());
    if let Some(t) = typed {
        let (_, mut fd) = freeze::freeze(
            &t,
            freeze::layer_source("example.ral", LayerRole::Policy),
            c,
            &sources,
        );
        d.append(&mut fd);
    }
    d.iter().map(|d| d.code.clone()).collect()
}

#[test]
fn every_freeze_example_triggers_exactly_its_code() {
    let t = tree();
    let home = t.dir("home");
    let base: Vec<(&str, &str)> = vec![("HOME", &home), ("PATH", "/usr/bin:/bin")];
    let with = |extra: &[(&str, &str)], drop: &[&str]| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = base
            .iter()
            .filter(|(k, _)| !drop.contains(k))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for (k, val) in extra {
            v.retain(|(a, _)| a != k);
            v.push((k.to_string(), val.to_string()));
        }
        v
    };
    let mk = |env: Vec<(String, String)>, cwd: &str| {
        FreezeCtx::from_parts(
            env.into_iter().collect(),
            cwd.to_string(),
            Arc::new(RealDisk),
        )
    };
    // the repositories the gitdir codes need
    let unclaimed = t.dir("unclaimed");
    t.dir("other/.git");
    t.file(
        "unclaimed/.git",
        &format!("gitdir: {}\n", t.p("other/.git")),
    );
    let noline = t.dir("noline");
    t.file("noline/.git", "not a pointer\n");
    let big = t.dir("big");
    t.file("big/.git", &"x".repeat(70 * 1024));
    // a non-Unicode real path
    let latin1 = {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9");
        let p = Path::new(&t.root).join(name);
        std::fs::create_dir(&p).expect("mkdir latin-1");
        std::os::unix::fs::symlink(&p, t.p("latin1-link")).expect("symlink");
        t.p("latin1-link")
    };
    let mut checked = 0;
    for info in freeze::CODES {
        let mut example = info.example.to_string();
        let c = match info.code {
            "E0302" => mk(with(&[], &["HOME"]), &t.root),
            "E0305" => mk(with(&[("XDG_CONFIG_HOME", "/etc")], &[]), &t.root),
            "E0306" => mk(with(&[], &["XDG_RUNTIME_DIR"]), &t.root),
            "E0312" => {
                example = example.replace("/srv/link-to-latin1-name", &latin1);
                mk(with(&[], &[]), &t.root)
            }
            "E0313" => mk(with(&[], &[]), &unclaimed),
            "E0314" => mk(with(&[], &[]), &noline),
            "E0315" => mk(with(&[], &[]), &big),
            "E0316" => mk(with(&[("PATH", "/usr/bin:/")], &[]), &t.root),
            "E0317" => mk(with(&[("PATH", "bin:.")], &[]), &t.root),
            "E0322" => mk(with(&[], &[]), "relative/cwd"),
            _ => mk(with(&[], &[]), &t.root),
        };
        let got = check_text(&example, &c);
        assert_eq!(got, [info.code], "{}: example {:?}", info.code, example);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked}");
    // the codes whose example needs no particular anchor trigger under the process's own
    let live = FreezeCtx::from_process().expect("process anchor");
    for info in freeze::CODES {
        if freeze::NEEDS_ANCHOR.iter().any(|(c, _)| *c == info.code) {
            continue;
        }
        assert_eq!(
            check_text(info.example, &live),
            [info.code],
            "{}",
            info.code
        );
    }
}

// ---------- identity ----------

/// Exclusions match under the Collision identity, allowances as stored.
#[test]
fn identity_cases() {
    use ralc::path::identity::{collision_key, command_name_key, path_within, Identity};
    let collide: &[(&str, &str)] = &[
        ("Secrets", "secrets"),
        ("ſh", "sh"),
        ("ſh", "SH"),
        ("\u{212A}", "k"),
        ("\u{212A}ey", "KEY"),
        ("ß", "SS"),
        ("straße", "STRASSE"),
        ("ﬁle", "FILE"),
        ("Ｒeadme", "readme"),
        ("cafe\u{301}", "CAFÉ"),
    ];
    for (a, b) in collide {
        assert_eq!(collision_key(a), collision_key(b), "{a} / {b}");
        let deny = format!("/d/{a}");
        let asked = format!("/d/{b}/f");
        assert!(
            path_within(Identity::Collision, &deny, &asked),
            "{deny} {asked}"
        );
        assert_eq!(
            path_within(Identity::Stored, &deny, &asked),
            a == b,
            "{deny} {asked}"
        );
    }
    let distinct: &[(&str, &str)] = &[
        ("sh", "bash"),
        ("a", "b"),
        ("s", "ss"),
        ("secret", "secrets"),
    ];
    for (a, b) in distinct {
        assert_ne!(collision_key(a), collision_key(b), "{a} / {b}");
    }
    assert!(path_within(
        Identity::Collision,
        "/d/Secrets",
        "/d/secrets/f"
    ));
    assert!(!path_within(Identity::Stored, "/d/Secrets", "/d/secrets/f"));
    assert_eq!(command_name_key("/usr/bin/ſh"), command_name_key("SH"));
}

// ---------- no input panics ----------

proptest::proptest! {
    #[test]
    fn lexing_folding_and_freezing_never_panic(s in "[/\\\\.?:a-zCUNV~{} \u{17f}\u{e9}\u{0}]{0,24}") {
        for rules in [PathRules::Posix, PathRules::Windows] {
            let p = parse_bytes(s.as_bytes(), rules);
            proptest::prop_assert!(p.head_len <= s.len());
            let f = fold_dots_under(&s, rules);
            // folding is idempotent
            proptest::prop_assert_eq!(fold_dots_under(&f, rules), f.clone());
            let _ = ralc::path::lex::join_under("/base", &s, rules);
        }
        let _ = ralc::freeze::eligibility::grant_eligibility(&s);
        let c = ctx(&[("HOME", "/nonexistent-home"), ("PATH", "/usr/bin")], "/nonexistent-cwd");
        let _ = freeze::freeze_entry(&c, &s);
    }
}

proptest::proptest! {
    #[test]
    fn places_and_selectors_never_panic(
        head in proptest::sample::select(vec![
            "~", "~/", "cwd:", "tempdir:", "gitdir:", "xdg:", "xdg:config", "path:", "cargo:",
            "\\\\?\\", "\\\\.\\", "\\??\\", "//", "C:", "/",
        ]),
        tail in "[/\\\\.?:a-zC~{} \u{17f}]{0,16}",
    ) {
        let text = format!("{head}{tail}");
        let c = ctx(
            &[("HOME", "/nonexistent-home"), ("PATH", "/usr/bin:rel"), ("XDG_CONFIG_HOME", "/etc")],
            "/nonexistent-cwd",
        );
        let _ = freeze::freeze_entry(&c, &text);
        let p = prof(&[(&text, ExecPolicy::Allow)], &[&text], &[], &[]);
        let _ = run(&p, &c);
    }
}

// ---------- show ----------

#[test]
fn show_json_shape() {
    use ralc::cli::show::layers_json;
    use ralc::pipeline::{compile, LayerInput, StackRequest};
    let t = tree();
    let home = t.dir("home");
    t.dir("home/.ssh");
    let bin = t.dir("bin");
    let file = t.file(
        "p.ral",
        &format!(
            "[\n  exec: [\n    '{bin}/': 'allow',\n    git: [status],\n    'C:\\x\\': 'allow',\n  ],\n  fs: [read: ['~/.ssh'], deny: ['~/.ssh']],\n  net: `offline,\n  editor: [read],\n]\n"
        ),
    );
    let c = ctx(&[("HOME", &home), ("PATH", &bin)], &t.root);
    let shown = compile(
        StackRequest {
            layers: vec![LayerInput {
                name: file.clone(),
                role: LayerRole::Policy,
            }],
            ctx: c.clone(),
        },
        &ralc::cli::stack::loader(false),
    );
    assert!(shown.diagnostics.is_empty(), "{:?}", shown.diagnostics);
    let v = layers_json(&shown.layers, &c);
    let l = &v["layers"][0];
    assert_eq!(l["file"], file.as_str());
    let e0 = &l["exec"][0];
    assert_eq!(e0["written"], format!("{bin}/").as_str());
    assert_eq!(e0["surface"], bin.as_str());
    assert_eq!(e0["real"], bin.as_str());
    assert_eq!(e0["kind"], "dir");
    assert_eq!(e0["policy"], "allow");
    assert_eq!(
        (e0["line"].as_u64(), e0["column"].as_u64()),
        (Some(3), Some(5))
    );
    let e1 = &l["exec"][1];
    assert_eq!(e1["kind"], "name");
    assert_eq!(e1["policy"], "only");
    assert_eq!(e1["subcommands"], serde_json::json!(["status"]));
    assert_eq!(e1["real"], serde_json::Value::Null);
    assert_eq!(l["exec"].as_array().map(Vec::len), Some(2));
    assert_eq!(l["dead"][0]["written"], "C:\\x\\");
    assert_eq!(
        l["fs"]["read"][0]["surface"],
        format!("{home}/.ssh").as_str()
    );
    assert_eq!(l["fs"]["deny"][0]["written"], "~/.ssh");
    assert_eq!(l["fs"]["write"], serde_json::json!([]));
    assert_eq!(l["net"], "offline");
    assert_eq!(l["detach"], serde_json::Value::Null);
    assert_eq!(l["editor"], serde_json::json!(["read"]));
    assert_eq!(l["shell"], serde_json::Value::Null);
    // the human form names every entry with its origin
    let h = ralc::cli::show::render_human(&shown.layers, &c);
    assert!(h.contains(&format!("at {file}:3:5")), "{h}");
    assert!(h.contains("dead grants:"), "{h}");
}

// ---------- the same rules over the in-memory fake disk ----------

fn mem_ctx(env: &[(&str, &str)], cwd: &str, disk: ralc::freeze::MemDisk) -> FreezeCtx {
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    FreezeCtx::from_parts(env, cwd.to_string(), Arc::new(disk))
}

#[test]
fn fake_disk_homes_xdg_pointers_and_floor() {
    use ralc::freeze::{MemDisk, MemEntry};
    let disk = MemDisk::new()
        .dir("/data/u/.config")
        .link("/home/u", "/data/u")
        .dir("/etc/app")
        .link("/data/u/cfg", "/etc/app")
        .dir("/work/repo/.git/worktrees/w")
        .file("/work/w/.git", "gitdir: /work/repo/.git/worktrees/w\n")
        .file("/work/repo/.git/worktrees/w/gitdir", "/work/w/.git\n")
        .dir("/work/locked")
        .with("/work/locked/.git", MemEntry::Unreadable)
        .dir("/nix/store")
        .dir("/opt/local")
        .link("/usr/rootlink", "/")
        .dir("/usr/bin");
    // a symlinked home: surface /home/u, real /data/u
    let c = mem_ctx(&[("HOME", "/home/u")], "/work", disk.clone());
    let (v, d) = read_fs(&prof(&[], &["~/x", "xdg:config/app"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0], ("/home/u/x".into(), "/data/u/x".into()));
    assert_eq!(
        v[1],
        ("/home/u/.config/app".into(), "/data/u/.config/app".into())
    );
    // XDG_CONFIG_HOME under home on its surface, out of it through a symlink
    let c = mem_ctx(
        &[("HOME", "/home/u"), ("XDG_CONFIG_HOME", "/home/u/cfg")],
        "/work",
        disk.clone(),
    );
    let (_, d) = read_fs(&prof(&[], &["xdg:config"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0305"]);
    assert!(d[0].message.contains("/etc/app"), "{}", d[0].message);
    // a claimed worktree pointer, and an unreadable one
    let c = mem_ctx(&[], "/work/w", disk.clone());
    let (v, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &c);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(v[0].0, "/work/repo/.git/worktrees/w");
    let c = mem_ctx(&[], "/work/locked", disk.clone());
    let (_, d) = read_fs(&prof(&[], &["gitdir:"], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0315"]);
    assert!(
        d[0].message.contains("permission denied"),
        "{}",
        d[0].message
    );
    // PATH through a symlink to the root
    let c = mem_ctx(&[("PATH", "/usr/bin:/usr/rootlink")], "/work", disk.clone());
    let (_, d) = run(&prof(&[("path:", ExecPolicy::Allow)], &[], &[], &[]), &c);
    assert_eq!(codes(&d), ["E0316"]);
    // the floor: existing prefixes outside home
    let c = mem_ctx(&[("HOME", "/home/u")], "/work", disk.clone());
    let f: Vec<String> = freeze::floor(&c)
        .iter()
        .map(|p| p.as_str().to_string())
        .collect();
    assert_eq!(f, ["/nix", "/opt/local"]);
    let c = mem_ctx(&[("HOME", "/nix")], "/work", disk);
    let f: Vec<String> = freeze::floor(&c)
        .iter()
        .map(|p| p.as_str().to_string())
        .collect();
    assert_eq!(f, ["/opt/local"]);
}
