//! The Linux renderer's goldens: each standard policy compiled through the library
//! (`ralc::pipeline`, the embedded loader) against a fixed anchor over an in-memory disk
//! (`MemDisk`: nothing of this host is read, so the plans are the same on every machine),
//! rendered to a `LinuxPlan` — the stack's plan, and the plan of a launch of `git status`
//! with a profile file beneath the working directory — and held byte for byte to
//! `tests/golden/linux/*.json` (`RALC_BLESS=1` rewrites them after review). Each plan is
//! rendered twice from two compiles and must come out byte-identical. They pin the
//! renderer's output while its code is reorganised underneath.
//!
//! The goldens are POSIX paths frozen under this host's rules, hence unix only.
#![cfg(unix)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc::capability::projection::SandboxProjection;
use ralc::freeze::{FreezeCtx, MemDisk};
use ralc::pipeline::{compile, plan_for, Embedded, StackRequest};
use ralc_runtime::plan::{LaunchProgram, LinuxPlan};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

const POLICIES: &[&str] = &[
    "minimal",
    "read-only",
    "edit-only",
    "reasonable",
    "confined",
    "dangerous",
];
const HOME: &str = "/home/golden";
const CWD: &str = "/home/golden/project";
const SELF: &str = "/opt/ralc/bin/ralc";
/// A profile file of the launch, beneath the working directory (its rename guards).
const PROFILE_FILE: &str = "/home/golden/project/.ralc/policy.ral";

/// A small Debian-like host, in memory.
fn disk() -> MemDisk {
    MemDisk::new()
        .exe("/usr/bin/git")
        .exe("/usr/bin/true")
        .exe("/usr/bin/bash")
        .exe("/usr/bin/sh")
        .exe("/usr/bin/cargo")
        .link("/bin", "/usr/bin")
        .dir("/etc/ssl")
        .file("/etc/passwd", "root:x:0:0::/root:/bin/sh\n")
        .dir("/home/golden/.ssh")
        .dir("/home/golden/.config/git")
        .file("/home/golden/.bashrc", "")
        .dir("/home/golden/project/src")
        .dir("/home/golden/project/.git/hooks")
        .file("/home/golden/project/.git/config", "")
        .file(PROFILE_FILE, "")
        .dir("/tmp")
}

fn ctx() -> FreezeCtx {
    let env: BTreeMap<String, String> = [
        ("HOME", HOME),
        ("PATH", "/usr/bin:/bin"),
        ("TMPDIR", "/tmp"),
        ("USER", "golden"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    FreezeCtx::from_parts(env, CWD.to_string(), Arc::new(disk()))
}

/// The stack's plan and the plan of a launch of `git status`, as JSON.
fn plans(policy: &str) -> (String, String) {
    let req = StackRequest::new(&[format!("std:{policy}")], &[], &[], ctx());
    let compiled = compile(req, &Embedded);
    assert!(
        !compiled.has_errors(),
        "std:{policy}: {:?}",
        compiled.diagnostics
    );
    let stack = compiled.stack.as_ref().expect("a stack");
    let r = &compiled.ctx;
    let projection = SandboxProjection::of(stack, r, None);
    let stack_plan = ralc::render::linux::render(&projection, &LaunchProgram::default(), CWD, SELF);
    let program = ["git".to_string(), "status".to_string()];
    let launch: LinuxPlan = match plan_for(stack, r, &program, SELF, &[PROFILE_FILE.to_string()]) {
        Ok((_, plan)) => plan,
        Err(refused) => {
            // as `ralc render` shows it: the stack's plan, with the refusal
            let mut plan = stack_plan.clone();
            plan.refused.push(refused.words);
            plan
        }
    };
    (stack_plan.to_json(), launch.to_json())
}

fn golden_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden/linux")
        .join(file)
}

fn bless(file: &str, text: &str) -> bool {
    ralc_tests::golden::bless("linux", file, text)
}

fn check(file: &str, text: &str) {
    if bless(file, text) {
        return;
    }
    let want = std::fs::read_to_string(golden_path(file))
        .unwrap_or_else(|e| panic!("{file}: {e} (RALC_BLESS=1 makes it)"));
    if text != want.trim_end() {
        let first = text
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(text.lines().count().min(want.lines().count()));
        panic!(
            "the plan differs from tests/golden/linux/{file} at line {} (RALC_BLESS=1 rewrites it):\n got: {:?}\nwant: {:?}",
            first + 1,
            text.lines().nth(first),
            want.lines().nth(first)
        );
    }
    assert_eq!(
        LinuxPlan::from_json(&want).map(|p| p.to_json()),
        Ok(want.trim_end().to_string())
    );
}

#[test]
fn the_standard_policies_match_their_golden_linux_plans() {
    for policy in POLICIES {
        let (stack, launch) = plans(policy);
        check(&format!("{policy}.json"), &stack);
        check(&format!("{policy}.launch.json"), &launch);
    }
}

#[test]
fn each_plan_renders_byte_identical_twice() {
    for policy in POLICIES {
        assert_eq!(plans(policy), plans(policy), "std:{policy}");
    }
}
