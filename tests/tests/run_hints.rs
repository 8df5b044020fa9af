//! `ralc run` says why it failed (issue #16), for real, through the `ralc` binary under
//! bwrap, Landlock, seccomp and the supervisor: `cc` under a profile that withholds
//! `/usr/lib/gcc` names `cc1` and its directory; a call the deny-set kills (`keyctl`) is
//! named with the deny-set's reason; `--explain` reports a read outside the region, a read
//! of a denied file (naming the deny) and a write into the read-only region; a clean run
//! prints no hint; `--format json` writes one object per refusal. In every case the exit
//! status is the program's. Each job runs in a fresh project outside `/tmp` (under the
//! build's `target/` directory), removed afterwards. A missing toolchain fails the suite.
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
    reason = "test: runs the ralc binary and the host's cc, and makes its own projects"
)]
// Linux only: the suite launches under bwrap, Landlock and seccomp.
#![cfg(target_os = "linux")]

use ralc_tests::bin::{ralc_bin, target_dir};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A fresh directory outside `/tmp`: under the build's `target/` directory, removed on drop.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root = target_dir().join(format!("run-hints-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("proj")).unwrap();
        std::fs::create_dir_all(root.join("ro")).unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        assert!(
            !root.starts_with("/tmp"),
            "the projects must lie outside /tmp"
        );
        Scratch { root }
    }
    fn proj(&self) -> PathBuf {
        self.root.join("proj")
    }
    fn path(&self, rel: &str) -> String {
        self.root.join(rel).to_str().unwrap().to_string()
    }
    /// A profile in the scratch root, `$ROOT` replaced by its path.
    fn profile(&self, name: &str, text: &str) -> String {
        let p = self.path(name);
        std::fs::write(&p, text.replace("$ROOT", self.root.to_str().unwrap())).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// `ralc run OPTS -- ARGV` in `cwd`, with `TMPDIR` the project itself: left to choose,
/// gcc takes the first of `/var/tmp`, `/usr/tmp`, `/tmp` it may enter, and `/var/tmp` is
/// in the sandbox (read-only) whenever the checkout lies beneath it, as a clean clone's does.
fn ralc_run(cwd: &Path, opts: &[&str], argv: &[&str]) -> Output {
    std::process::Command::new(ralc_bin())
        .current_dir(cwd)
        .env("TMPDIR", cwd)
        .arg("run")
        .args(opts)
        .arg("--")
        .args(argv)
        .output()
        .expect("ralc runs")
}

fn host_cc1() -> String {
    let out = std::process::Command::new("cc")
        .arg("-print-prog-name=cc1")
        .output()
        .expect("cc is installed (scripts/test installs gcc)");
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    std::fs::canonicalize(&p)
        .unwrap_or_else(|e| panic!("cc1 at {p:?}: {e}"))
        .to_str()
        .unwrap()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The exit status `ralc run` gave (a signal is never ralc's own).
fn code(o: &Output) -> i32 {
    o.status.code().expect("ralc exits, it is not killed")
}

/// The `ralc run:` lines ralc wrote (the program's own words are not counted).
fn hints(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("ralc run: ") || l.starts_with("  help: "))
        .collect()
}

/// Exec only from /usr/bin: gcc's programs under /usr/lib/gcc are withheld.
const NO_GCC: &str =
    "[\n  exec: ['/usr/bin/': 'allow'],\n  fs: [read: ['/usr', '/etc'], write: ['cwd:']],\n]\n";

#[test]
fn cc_without_its_libexec_names_cc1_and_the_directory() {
    let s = Scratch::new("cc");
    let p = s.profile("nogcc.ral", NO_GCC);
    std::fs::write(s.proj().join("a.c"), "int main(void){return 0;}\n").unwrap();
    let cc1 = host_cc1();
    let dir = &cc1[..cc1.rfind('/').unwrap()];
    let o = ralc_run(&s.proj(), &["-p", &p], &["cc", "-c", "a.c", "-o", "a.o"]);
    let err = stderr(&o);
    // cc's own status when it cannot run cc1.
    assert_eq!(code(&o), 1, "{err}");
    let h = hints(&err);
    assert!(
        h.iter()
            .any(|l| l.starts_with(&format!("ralc run: refused exec {cc1}: "))),
        "{err}"
    );
    let help = h
        .iter()
        .find(|l| l.starts_with("  help: "))
        .unwrap_or_else(|| panic!("no help line: {err}"));
    assert!(
        help.contains(&format!("'{cc1}': 'allow'")) && help.contains(&format!("'{dir}/'")),
        "{help}"
    );
    assert!(help.ends_with(&format!("to exec in {p}")), "{help}");
    if cc1.starts_with("/usr/lib/gcc/") {
        assert!(help.contains("/usr/lib/gcc/"), "{help}");
    } else {
        println!("note: this host's cc1 is at {cc1}, not under /usr/lib/gcc");
    }
    assert!(!s.proj().join("a.o").exists());

    // The same as JSON lines: one object, the entry located in the profile.
    let o = ralc_run(
        &s.proj(),
        &["-p", &p, "--format", "json"],
        &["cc", "-c", "a.c", "-o", "a.o"],
    );
    assert_eq!(code(&o), 1);
    let objs: Vec<serde_json::Value> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(objs.len(), 1, "{objs:?}");
    let j = &objs[0];
    assert_eq!(j["op"], "exec");
    assert_eq!(j["subject"], cc1.as_str());
    assert_eq!(j["entry"], "exec");
    assert_eq!(j["file"], p.as_str());
    assert_eq!(j["line"], 2);
    assert!(j["column"].as_u64().is_some_and(|c| c > 0));
    assert!(j["reason"].as_str().unwrap().contains("no exec entry"));
    assert!(!stderr(&o).contains("ralc run: refused"));
}

#[test]
fn a_killed_syscall_is_named_with_the_deny_sets_reason() {
    let s = Scratch::new("keyctl");
    let o = ralc_run(
        &s.proj(),
        &["-p", "std:minimal"],
        &[
            "perl",
            "-e",
            "require 'syscall.ph'; syscall(&SYS_keyctl, 0); exit 3",
        ],
    );
    let err = stderr(&o);
    // Killed by SIGSYS, as the deny-set's kill action does unsupervised.
    assert_eq!(code(&o), 128 + libc::SIGSYS, "{err}");
    let h = hints(&err);
    assert_eq!(
        h.first().copied(),
        Some("ralc run: refused syscall keyctl: the kernel keyring is not namespaced"),
        "{err}"
    );
    assert!(
        h.get(1)
            .is_some_and(|l| l.starts_with("  help: no entry grants it")),
        "{err}"
    );
    assert_eq!(h.len(), 2, "{err}");
}

#[test]
fn a_clean_run_prints_no_hint_and_keeps_its_status() {
    let s = Scratch::new("clean");
    let o = ralc_run(
        &s.proj(),
        &["-p", "std:minimal"],
        &["sh", "-c", "echo ok > f.txt && cat f.txt && exit 7"],
    );
    assert_eq!(code(&o), 7);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ok\n");
    assert_eq!(stderr(&o), "", "a clean run says nothing");
    let o = ralc_run(
        &s.proj(),
        &["-p", "std:minimal", "--format", "json"],
        &["/bin/true"],
    );
    assert_eq!(code(&o), 0);
    assert_eq!(stderr(&o), "");
}

#[test]
fn explain_reports_refused_reads_and_writes_with_their_entries() {
    let s = Scratch::new("explain");
    std::fs::write(s.path("outside.txt"), "outside\n").unwrap();
    std::fs::write(s.path("ro/data"), "public\n").unwrap();
    std::fs::write(s.proj().join(".env"), "KEY=1\n").unwrap();
    let p = s.profile(
        "ex.ral",
        "[\n  exec: ['/usr/bin/': 'allow'],\n  fs: [\n    read: ['/usr', '/etc', '$ROOT/ro'],\n    write: ['cwd:'],\n    deny: ['cwd:.env'],\n  ],\n]\n",
    );
    let script = format!(
        "cat {out}; cat .env; echo x > {ro}; echo fine > ok.txt; exit 4",
        out = s.path("outside.txt"),
        ro = s.path("ro/data"),
    );
    let o = ralc_run(&s.proj(), &["-p", &p, "--explain"], &["sh", "-c", &script]);
    let err = stderr(&o);
    assert_eq!(code(&o), 4, "{err}");
    let h = hints(&err).join("\n");
    let outside = s.path("outside.txt");
    let env = s.proj().join(".env").to_str().unwrap().to_string();
    let ro = s.path("ro/data");
    assert!(
        h.contains(&format!(
            "ralc run: refused read {outside} (hidden, so the program sees ENOENT): "
        )),
        "{err}"
    );
    assert!(
        h.contains(&format!(
            "help: add '{outside}' (or a directory above it) to fs.read in {p}"
        )),
        "{err}"
    );
    assert!(
        h.contains(&format!("ralc run: refused read {env} (masked")),
        "{err}"
    );
    assert!(h.contains("excluded by 'cwd:.env'"), "{err}");
    assert!(
        h.contains(&format!(
            "ralc run: refused write {ro} (in the read-only region, so the program sees EROFS): "
        )),
        "{err}"
    );
    assert!(
        h.contains(&format!(
            "help: add '{ro}' (or a directory above it) to fs.write in {p}"
        )),
        "{err}"
    );
    // What the plan allowed is not reported.
    assert!(!h.contains("ok.txt"), "{err}");
    assert!(!h.contains("refused exec"), "{err}");
    assert_eq!(
        std::fs::read_to_string(s.path("ro/data")).unwrap(),
        "public\n"
    );

    // JSON: the deny is named with its place in the profile.
    let o = ralc_run(
        &s.proj(),
        &["-p", &p, "--explain", "--format", "json"],
        &["sh", "-c", &script],
    );
    assert_eq!(code(&o), 4);
    let objs: Vec<serde_json::Value> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let masked = objs
        .iter()
        .find(|j| j["subject"] == env.as_str())
        .unwrap_or_else(|| panic!("{objs:?}"));
    assert_eq!(masked["op"], "read");
    assert_eq!(masked["entry"], "cwd:.env");
    assert_eq!(masked["file"], p.as_str());
    assert_eq!(masked["line"], 6);
    assert_eq!(masked["seen"], "masked");
    assert!(objs
        .iter()
        .any(|j| j["op"] == "write" && j["subject"] == ro.as_str() && j["seen"] == "read-only"));
}

#[test]
fn a_failed_run_names_its_refused_write_and_the_offline_network_by_default() {
    let s = Scratch::new("default-fail");
    std::fs::write(s.path("ro/data"), "public\n").unwrap();
    let p = s.profile(
        "off.ral",
        "[\n  exec: ['/usr/bin/': 'allow'],\n  fs: [read: ['/usr', '/etc', '$ROOT/ro'], write: ['cwd:']],\n  net: `offline,\n]\n",
    );
    let ro = s.path("ro/data");
    let o = ralc_run(
        &s.proj(),
        &["-p", &p],
        &["sh", "-c", &format!("echo x > {ro}; exit 5")],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 5, "{err}");
    let h = hints(&err).join("\n");
    assert!(
        h.contains(&format!(
            "ralc run: refused write {ro} (in the read-only region, so the program sees EROFS): "
        )),
        "{err}"
    );
    assert!(h.contains(&format!("to fs.write in {p}")), "{err}");
    assert!(
        h.contains("ralc run: note: the network was offline") && h.contains("'`offline'"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "public\n");
}

#[test]
fn a_successful_run_that_probed_says_nothing_unless_explain() {
    let s = Scratch::new("probe-ok");
    std::fs::write(s.path("ro/data"), "public\n").unwrap();
    let p = s.profile("probe.ral", NO_GCC);
    // A refused exec (a vetoed-by-omission program) and a refused write, both recovered from.
    let script = "/usr/lib/gcc/nonesuch 2>/dev/null; sh -c 'echo x > /usr/probe' 2>/dev/null; \
                  for d in /usr/lib/gcc/*/*/; do \"$d/cc1\" --version >/dev/null 2>&1; done; \
                  echo ok";
    let o = ralc_run(&s.proj(), &["-p", &p], &["sh", "-c", script]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(hints(&stderr(&o)), Vec::<&str>::new(), "{}", stderr(&o));
    let o = ralc_run(&s.proj(), &["-p", &p, "--explain"], &["sh", "-c", script]);
    assert_eq!(code(&o), 0);
    let err = stderr(&o);
    assert!(
        hints(&err)
            .iter()
            .any(|l| l.contains("refused write /usr/probe")),
        "{err}"
    );
    assert!(
        hints(&err)
            .iter()
            .any(|l| l.contains("refused exec /usr/lib/gcc/")),
        "{err}"
    );
}

#[test]
fn a_shipped_profile_hint_offers_an_extend_fragment_not_an_edit() {
    let s = Scratch::new("std-hint");
    let o = ralc_run(
        &s.proj(),
        &["-p", "std:minimal"],
        &["sh", "-c", "echo x > /usr/std-hint; exit 6"],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 6, "{err}");
    let h = hints(&err).join("\n");
    assert!(h.contains("refused write /usr/std-hint"), "{err}");
    assert!(
        h.contains("std:minimal is shipped, not edited: put `[fs: [write: ['/usr/std-hint']]]`"),
        "{err}"
    );
    assert!(h.contains("--extend extra.ral"), "{err}");
    assert!(
        !h.contains("in std:minimal\n") && !h.ends_with("in std:minimal"),
        "{err}"
    );
}

/// A program vetoed by name is masked in the envelope (a device where the file was): its
/// execve (here by `env`, as a `#!/usr/bin/env bash` script makes one) is seen, and the
/// refusal is named with the veto's entry when the program fails (issue #27: a pyenv shim
/// is a bash script, and `std:minimal` vetoes bash). dash refuses a masked name found by
/// its own PATH search without calling execve, which nothing sees.
#[test]
fn a_vetoed_program_is_named_with_its_veto() {
    let s = Scratch::new("veto");
    let o = ralc_run(
        &s.proj(),
        &["-p", "std:minimal"],
        &["sh", "-c", "/usr/bin/env bash -c true"],
    );
    let err = stderr(&o);
    assert_ne!(code(&o), 0, "bash ran under std:minimal: {err}");
    let h = hints(&err).join("\n");
    assert!(h.contains("refused exec ") && h.contains("bash"), "{err}");
    assert!(
        h.contains("vetoed by name by 'bash' at std:minimal"),
        "{err}"
    );
}

/// A write that only Landlock refuses (EACCES: the directory is in the envelope, on a
/// writable mount, but under no write root, as `/tmp` is when the project lies in it) is
/// named by default when the program fails; a write into a granted tree, or into
/// `/dev/null`, is not.
#[test]
fn a_write_only_landlock_refuses_is_named() {
    let s = Scratch::new("landlock");
    let p = s.profile(
        "ll.ral",
        "[\n  exec: ['/usr/bin/': 'allow', '/bin/': 'allow'],\n  fs: [read: ['/usr', '/etc'], write: ['cwd:']],\n]\n",
    );
    let beside = s.path("beside.txt");
    let o = ralc_run(
        &s.proj(),
        &["-p", &p],
        &[
            "sh",
            "-c",
            &format!("echo x > /dev/null; echo y > ok.txt; echo z > {beside}; exit 8"),
        ],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 8, "{err}");
    let h = hints(&err);
    assert_eq!(h.len(), 2, "one refusal and its help: {err}");
    assert!(
        h[0].starts_with(&format!(
            "ralc run: refused write {beside} (outside every writable tree, so Landlock refuses it: EACCES): "
        )),
        "{err}"
    );
    assert!(h[1].contains(&format!("add '{beside}'")), "{err}");
    assert!(!Path::new(&beside).exists());
    assert!(s.proj().join("ok.txt").is_file());
}
