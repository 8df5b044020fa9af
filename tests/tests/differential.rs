//! The differential test: random profiles over a scratch tree and random (path,
//! read|write) probes. For each probe the in-process judgment (`GrantStack::read/write`)
//! and the kernel's answer inside `ralc run` must agree, except where the plan's fidelity
//! report names the path. At least 2,000 probes per run; every mismatch is printed.
//! Deterministic (a fixed-seed generator). A missing bwrap or ralc binary fails. A second
//! test asks the same of programs reached through links (the link rule).

use ralc::capability::resolve::Resolve;
use ralc::cli::args::StackArgs;
use ralc::compile::{compile, StackRequest};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PROFILES: usize = 24;
const PROBES_PER_PROFILE: usize = 90;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

fn ralc_bin() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    let bin = me
        .parent()
        .and_then(Path::parent)
        .expect("target dir")
        .join("ralc");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (`cargo build -p ralc`)",
        bin.display()
    );
    bin
}

/// The scratch tree: `d{0..3}/s{0..2}/f{0..2}` files and the directories above them.
fn tree(root: &str) -> (Vec<String>, Vec<String>) {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for d in 0..4 {
        let dd = format!("{root}/d{d}");
        dirs.push(dd.clone());
        for s in 0..3 {
            let sd = format!("{dd}/s{s}");
            std::fs::create_dir_all(&sd).unwrap();
            dirs.push(sd.clone());
            for f in 0..3 {
                let p = format!("{sd}/f{f}");
                std::fs::write(&p, "x").unwrap();
                files.push(p);
            }
        }
    }
    (dirs, files)
}

fn quote(list: &[String]) -> String {
    list.iter()
        .map(|p| format!("'{p}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary; bwrap must be on PATH"
)]
fn kernel_agrees_with_the_in_process_judgment() {
    assert!(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|d| d.join("bwrap").is_file()),
        "bwrap (bubblewrap) is not on PATH"
    );
    let ralc = ralc_bin();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut probes = 0usize;
    let mut mismatches = Vec::new();
    let mut excused = 0usize;
    for n in 0..PROFILES {
        let dir = tempfile::Builder::new()
            .prefix("ralc-diff")
            .tempdir()
            .unwrap();
        let root = std::fs::canonicalize(dir.path())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let (dirs, files) = tree(&root);
        let pick = |rng: &mut Rng, pct: u64, from: &[String]| -> Vec<String> {
            from.iter().filter(|_| rng.chance(pct)).cloned().collect()
        };
        let read = pick(&mut rng, 25, &dirs);
        let write = pick(&mut rng, 15, &dirs);
        let mut deny = pick(&mut rng, 8, &dirs);
        deny.extend(pick(&mut rng, 8, &files));
        // Now and then a denied name that does not exist yet.
        if rng.chance(30) {
            deny.push(format!("{}/ghost", dirs[rng.below(dirs.len())]));
        }
        let profile = format!(
            "[\n  exec: ['system:': 'allow'],\n  fs: [read: [{}], write: [{}], deny: [{}]],\n]\n",
            quote(&read),
            quote(&write),
            quote(&deny)
        );
        let pfile = format!("{root}/p{n}.ral");
        std::fs::write(&pfile, &profile).unwrap();

        // The in-process judgment.
        let args = StackArgs {
            profiles: vec![pfile.clone()],
            ..StackArgs::default()
        };
        let compiled = compile(StackRequest::from_args(&args, &[]).unwrap());
        let stack = compiled
            .stack
            .as_ref()
            .unwrap_or_else(|| panic!("profile {n} did not compile: {profile}"));
        let r: &dyn Resolve = &compiled.ctx;

        // The probes.
        let mut script = String::new();
        let mut expected = Vec::new();
        for i in 0..PROBES_PER_PROFILE {
            let write_op = rng.chance(45);
            let path = if write_op && rng.chance(30) {
                let d = &dirs[rng.below(dirs.len())];
                if rng.chance(30) {
                    format!("{d}/ghost")
                } else {
                    format!("{d}/new{i}")
                }
            } else {
                files[rng.below(files.len())].clone()
            };
            let granted = if write_op {
                stack.write(&path, r).is_ok()
            } else {
                stack.read(&path, r).is_ok()
            };
            if write_op {
                let _ = writeln!(
                    script,
                    "(: >> '{path}') 2>/dev/null && echo {i}:1 || echo {i}:0"
                );
            } else {
                let _ = writeln!(
                    script,
                    "cat '{path}' >/dev/null 2>&1 && echo {i}:1 || echo {i}:0"
                );
            }
            expected.push((path, write_op, granted));
        }
        // The plan's fidelity report, for the excused paths.
        let plan = std::process::Command::new(&ralc)
            .args(["render", "--target", "linux", "-p", &pfile, "--", "/bin/sh"])
            .output()
            .unwrap();
        let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap_or_default();
        let fidelity: Vec<String> = plan["fidelity"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f["path"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let out = std::process::Command::new(&ralc)
            .current_dir("/")
            .args(["run", "-p", &pfile, "--", "/bin/sh", "-c", &script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "profile {n}: the probe script did not run: {}\n{profile}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let kernel: std::collections::BTreeMap<usize, bool> = stdout
            .lines()
            .filter_map(|l| {
                let (i, v) = l.split_once(':')?;
                Some((i.parse().ok()?, v == "1"))
            })
            .collect();
        for (i, (path, write_op, granted)) in expected.iter().enumerate() {
            probes += 1;
            let Some(&k) = kernel.get(&i) else {
                mismatches.push(format!("profile {n} probe {i}: no kernel answer"));
                continue;
            };
            if k != *granted {
                if fidelity.iter().any(|f| ralc_runtime::plan::within(path, f)) {
                    excused += 1;
                    continue;
                }
                mismatches.push(format!(
                    "profile {n}: {} {path}: guard {}, kernel {}\n{profile}",
                    if *write_op { "write" } else { "read" },
                    if *granted { "granted" } else { "withheld" },
                    if k { "allowed" } else { "refused" },
                ));
            }
        }
    }
    eprintln!("differential: {probes} probes, {excused} excused by the fidelity report");
    assert!(probes >= 2000, "only {probes} probes");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Links (the link rule, `docs/model.md`): for every program reached through a link in
/// a scratch tree, the guard's `admit` and the kernel inside `ralc run` must agree. The
/// tree holds links directly in an allowed directory (to files outside it, through an
/// intermediate link, into an excluded directory, to a vetoed name), one in a
/// subdirectory of it, and one whose chain passes through a directory others may write
/// (not vouched). As root the tree's own directories are vouched; as another user none
/// is, and every link is refused by both.
#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary; bwrap must be on PATH"
)]
fn kernel_agrees_with_the_guard_on_links() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let ralc = ralc_bin();
    let dir = tempfile::Builder::new()
        .prefix("ralc-diff-links")
        .tempdir()
        .unwrap();
    let root = std::fs::canonicalize(dir.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    for d in ["bin/sub", "lib/tools", "lib/bad", "alt", "open"] {
        std::fs::create_dir_all(format!("{root}/{d}")).unwrap();
    }
    std::fs::set_permissions(
        format!("{root}/open"),
        std::fs::Permissions::from_mode(0o777),
    )
    .unwrap();
    let script = |p: &str, name: &str| {
        std::fs::write(p, format!("#!/bin/sh\necho ran-{name}\n")).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    for n in ["t0", "t1", "t2", "t3", "vetoed", "t5"] {
        script(&format!("{root}/lib/tools/{n}"), n);
    }
    script(&format!("{root}/lib/bad/b"), "b");
    script(&format!("{root}/bin/plain"), "plain");
    // The links, each with the probe's name.
    let links: &[(&str, &str)] = &[
        ("bin/direct", "../lib/tools/t0"),
        ("bin/absolute", "ROOT/lib/tools/t1"),
        ("alt/t2", "ROOT/lib/tools/t2"),
        ("bin/through", "ROOT/alt/t2"),
        ("bin/sub/deep", "ROOT/lib/tools/t3"),
        ("bin/vetoed", "../lib/tools/vetoed"),
        ("bin/excluded", "../lib/bad/b"),
        ("open/t5", "ROOT/lib/tools/t5"),
        ("bin/unvouched", "ROOT/open/t5"),
        ("bin/sibling", "plain"),
    ];
    for (at, to) in links {
        symlink(to.replace("ROOT", &root), format!("{root}/{at}")).unwrap();
    }
    let profile = format!(
        "[\n  exec: ['system:': 'allow', '{root}/bin/': 'allow', '{root}/lib/bad/': 'deny', vetoed: 'deny'],\n  fs: [read: ['{root}']],\n]\n"
    );
    let pfile = format!("{root}/links.ral");
    std::fs::write(&pfile, &profile).unwrap();
    let args = StackArgs {
        profiles: vec![pfile.clone()],
        ..StackArgs::default()
    };
    let compiled = compile(StackRequest::from_args(&args, &[]).unwrap());
    let stack = compiled.stack.as_ref().expect("the profile compiles");
    let r: &dyn Resolve = &compiled.ctx;
    let mut script_text = String::new();
    let mut expected = Vec::new();
    let probes: Vec<String> = links
        .iter()
        .map(|(at, _)| format!("{root}/{at}"))
        .filter(|p| p.contains("/bin/"))
        .chain([format!("{root}/lib/tools/t0"), format!("{root}/bin/plain")])
        .collect();
    for (i, p) in probes.iter().enumerate() {
        let granted = stack.admit(p, &[], r).is_ok();
        let _ = writeln!(
            script_text,
            "'{p}' >/dev/null 2>&1 && echo {i}:1 || echo {i}:0"
        );
        expected.push((p.clone(), granted));
    }
    let out = std::process::Command::new(&ralc)
        .current_dir("/")
        .args(["run", "-p", &pfile, "--", "/bin/sh", "-c", &script_text])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the probe script did not run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let kernel: std::collections::BTreeMap<usize, bool> = stdout
        .lines()
        .filter_map(|l| {
            let (i, v) = l.split_once(':')?;
            Some((i.parse().ok()?, v == "1"))
        })
        .collect();
    // The plan's fidelity report: a link target is admitted by the kernel under any name
    // (Landlock sees the file, not the name it was reached by), the guard only through
    // its link; the report names each such target.
    let plan = std::process::Command::new(&ralc)
        .args(["render", "--target", "linux", "-p", &pfile, "--", "/bin/sh"])
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap_or_default();
    let fidelity: Vec<String> = plan["fidelity"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["path"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut mismatches = Vec::new();
    let mut excused = 0;
    for (i, (p, granted)) in expected.iter().enumerate() {
        let k = kernel.get(&i).copied();
        if k != Some(*granted) {
            if k == Some(true) && fidelity.iter().any(|f| f == p) {
                excused += 1;
                continue;
            }
            mismatches.push(format!("{p}: guard {granted}, kernel {k:?}"));
        }
    }
    // As root, the rule admits exactly the direct, absolute and intermediate links and the
    // sibling; the rest are refused by both.
    let as_root = compiled.ctx.links(&format!("{root}/bin/direct")).is_some();
    let admitted: Vec<&str> = expected
        .iter()
        .filter(|(_, g)| *g)
        .map(|(p, _)| p.rsplit('/').next().unwrap_or(""))
        .collect();
    if as_root {
        assert_eq!(
            admitted,
            ["direct", "absolute", "through", "sibling", "plain"],
            "{expected:?}"
        );
    }
    eprintln!(
        "differential links: {} probes, {} admitted, {excused} excused by the fidelity report",
        expected.len(),
        admitted.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
