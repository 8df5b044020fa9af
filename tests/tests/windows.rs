//! The Windows renderer: the standard profiles frozen under Windows rules at a fixed
//! home, working directory and environment (no disk: the `OffHost` lister), rendered to
//! `WindowsPlan`s and held to golden JSON (`tests/golden/windows/*.json`; `RALC_BLESS=1`
//! rewrites them after review). The goldens are compiled in, so this suite runs the same
//! on every host, Windows (and Wine) included. Each plan is also checked for the shape
//! the back end promises: every SID derived from its capability name, every exclusion
//! reaching no stamp, sorted stamps. The binary's exit codes are checked on POSIX hosts.
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
use ralc::cli::args::{AnchorArgs, StackArgs};
use ralc::freeze::FreezeCtx;
use ralc::path::lex::PathRules;
use ralc::path::windows::within_collision;
use ralc::pipeline::compile;
use ralc_runtime::plan::sid::derive_capability_sids;
use ralc_runtime::plan::windows::{GrantKind, OffHost, WindowsPlan};
use std::path::PathBuf;

const HOME: &str = "C:\\Users\\me";
const CWD: &str = "C:\\Users\\me\\proj";

fn anchor() -> AnchorArgs {
    AnchorArgs {
        home: Some(PathBuf::from(HOME)),
        cwd: Some(PathBuf::from(CWD)),
        env: vec![
            "TEMP=C:\\Users\\me\\AppData\\Local\\Temp".into(),
            "PATH=C:\\Windows\\System32;C:\\Users\\me\\.cargo\\bin".into(),
        ],
        env_clear: true,
    }
}

fn plan_of(profile: &str) -> WindowsPlan {
    let args = StackArgs {
        profiles: vec![profile.to_string()],
        anchor: anchor(),
        ..StackArgs::default()
    };
    let ctx = FreezeCtx::foreign(PathRules::Windows)
        .with_anchor(&args.anchor.anchor())
        .expect("anchor");
    let compiled = compile(args.request_at(&[], ctx), &args.loader());
    assert!(
        !compiled.has_errors(),
        "{profile}: {:?}",
        compiled.diagnostics
    );
    let stack = compiled.stack.as_ref().expect("a stack");
    let projection = SandboxProjection::of(stack, &compiled.ctx, None);
    ralc::render::windows::render(&projection, None, &OffHost)
}

const GOLDEN: &[(&str, &str, &str)] = &[
    (
        "std:minimal",
        "minimal.json",
        include_str!("../golden/windows/minimal.json"),
    ),
    (
        "std:reasonable",
        "reasonable.json",
        include_str!("../golden/windows/reasonable.json"),
    ),
    (
        "std:dangerous",
        "dangerous.json",
        include_str!("../golden/windows/dangerous.json"),
    ),
];

fn bless(file: &str, text: &str) -> bool {
    ralc_tests::golden::bless("windows", file, text)
}

#[test]
fn the_standard_profiles_match_their_golden_plans() {
    for (profile, file, want) in GOLDEN {
        let plan = plan_of(profile);
        let text = plan.to_json();
        if bless(file, &text) {
            continue; // compiled in: the next build compares against the new file
        }
        assert_eq!(
            text,
            want.trim_end(),
            "{profile}: the plan differs from tests/golden/windows/{file} (RALC_BLESS=1 rewrites it)"
        );
        assert_eq!(WindowsPlan::from_json(want).as_ref(), Ok(&plan));
    }
}

#[test]
fn the_standard_plans_keep_their_promises() {
    for (profile, _, _) in GOLDEN {
        let plan = plan_of(profile);
        assert!(plan.refused.is_empty(), "{profile}: {:?}", plan.refused);
        let mut sorted = plan.stamps.clone();
        sorted.sort();
        assert_eq!(sorted, plan.stamps, "{profile}: stamps are sorted");
        for s in &plan.stamps {
            let sids = derive_capability_sids(&s.capability);
            assert_eq!((&sids.sid, &sids.group_sid), (&s.sid, &s.group_sid));
            assert_eq!(s.inherit, s.kind != GrantKind::Ls);
            for x in &plan.exclusions {
                assert!(
                    !within_collision(&s.path, x) || s.kind == GrantKind::Ls,
                    "{profile}: {} reaches the exclusion {x}",
                    s.path
                );
                assert!(
                    !within_collision(x, &s.path),
                    "{profile}: {} is excluded",
                    s.path
                );
            }
            for x in &plan.write_exclusions {
                assert!(
                    !within_collision(&s.path, x) || s.kind != GrantKind::Rw,
                    "{profile}: {} is writable inside the write exclusion {x}",
                    s.path
                );
            }
        }
        assert_eq!(plan.job_process_cap, 512);
    }
    // std:minimal grants the project and the temp directory, writable
    let m = plan_of("std:minimal");
    let rw: Vec<&str> = m
        .stamps
        .iter()
        .filter(|s| s.kind == GrantKind::Rw)
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(rw, ["C:\\Users\\me\\AppData\\Local\\Temp"]);
    // the project holds write exclusions (files the host runs later, `deny_write`), so it
    // is carved: off Windows nothing is listed, and the launch carves it over the disk
    assert!(m
        .carves
        .iter()
        .any(|c| c.allowance == CWD && c.kind == GrantKind::Rw && !c.listed));
    assert!(m
        .write_exclusions
        .iter()
        .any(|x| x.ends_with("\\.git\\hooks")));
    // std:reasonable excludes ~/.ssh, and nothing granted reaches it
    let r = plan_of("std:reasonable");
    assert!(r.exclusions.iter().any(|x| x == "C:\\Users\\me\\.ssh"));
    // std:dangerous restricts nothing
    let d = plan_of("std:dangerous");
    assert!(d.stamps.is_empty() && !d.confined);
}

/// The binary: a refused plan exits 1, names why on stderr and lists it in `refused`.
#[cfg(unix)]
mod binary {
    use ralc_tests::bin::ralc_bin;

    #[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
    fn ralc(args: &[&str]) -> std::process::Output {
        std::process::Command::new(ralc_bin())
            .current_dir("/")
            .args(args)
            .output()
            .expect("run ralc")
    }

    #[allow(
        clippy::disallowed_methods,
        reason = "test: writes a profile to a temp dir"
    )]
    fn profile(text: &str) -> (tempfile::TempDir, String) {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("p.ral");
        std::fs::write(&p, text).expect("write");
        let s = p.to_str().expect("utf-8").to_string();
        (d, s)
    }

    #[test]
    fn a_refused_plan_exits_1_and_says_why() {
        let (_d, p) =
            profile("[\n  fs: [write: ['C:\\\\'], deny: ['C:\\\\Users\\\\me\\\\.ssh']],\n]\n");
        let out = ralc(&["render", "--target", "windows", "-p", &p]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
        assert!(stderr.contains("universal prefix"), "{stderr}");
        let plan: serde_json::Value = serde_json::from_str(&stdout).expect("json");
        assert!(plan["refused"].as_array().is_some_and(|r| !r.is_empty()));
        assert_eq!(plan["stamps"].as_array().map(Vec::len), Some(0));
    }

    #[test]
    fn without_a_windows_home_places_are_dead_and_the_render_exits_0() {
        let out = ralc(&["render", "--target", "windows", "-p", "std:minimal"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        let plan: serde_json::Value = serde_json::from_str(&stdout).expect("json");
        assert_eq!(plan["version"], 1);
        // cwd: and tempdir: — tempdir falls back to C:\Windows\Temp, cwd: is dead
        let paths: Vec<&str> = plan["stamps"]
            .as_array()
            .expect("stamps")
            .iter()
            .filter_map(|s| s["path"].as_str())
            .collect();
        assert_eq!(paths, ["C:\\Windows\\Temp"], "{stdout}");
    }

    #[test]
    fn the_anchor_flags_reach_the_freeze() {
        let out = ralc(&[
            "render",
            "--target",
            "windows",
            "-p",
            "std:minimal",
            "--home",
            "D:\\home\\u",
            "--cwd",
            "D:\\work\\x",
            "--env",
            "TEMP=D:\\tmp",
        ]);
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("\"path\": \"D:\\\\work\\\\x\""), "{stdout}");
        assert!(stdout.contains("\"path\": \"D:\\\\tmp\""), "{stdout}");
        assert!(stdout.contains("\"kind\": \"rw\""));
    }
}

/// Off Windows, a Windows render whose profiles need the machine described says so once,
/// naming the options (issue #27), and renders once they are given.
#[cfg(not(windows))]
#[test]
fn a_windows_render_off_windows_names_the_options_that_describe_the_target() {
    let root = ralc_tests::bin::workspace_root();
    let (code, out, err) = ralc_tests::bin::run_ralc(
        &root,
        &["render", "--target", "windows", "-p", "std:reasonable"],
    );
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(out, "");
    assert_eq!(err.lines().count(), 1, "one message: {err}");
    for opt in ["--home", "--cwd", "--env PATH="] {
        assert!(err.contains(opt), "{opt}: {err}");
    }
    assert!(!err.contains("has no absolute entry"), "{err}");
    let (code, out, err) = ralc_tests::bin::run_ralc(
        &root,
        &[
            "render",
            "--target",
            "windows",
            "-p",
            "std:reasonable",
            "--home",
            r"C:\Users\me",
            "--cwd",
            r"C:\Users\me\proj",
            "--env",
            r"PATH=C:\Windows\System32",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"stamps\""), "{out}");
}
