//! An excluded file mounted again elsewhere in the read region (a bind mount made on the
//! host before the launch) is another name the envelope's mask does not cover: `ralc run`
//! must refuse the launch, naming the file and the mount, and run nothing. The bind mount
//! needs root; as another user the test says so and counts as a skip (it never passes
//! silently). The mount lives in the build's temp directory and is removed on every exit.
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
// Linux only: the suite launches under bwrap, Landlock and seccomp.
#![cfg(target_os = "linux")]

use ralc_tests::bin::{ralc_bin, run};
use std::path::{Path, PathBuf};

/// Unmounts on drop, so a failed assertion leaves no mount behind.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = run("umount", &[self.0.to_str().unwrap_or("")], Path::new("/"));
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        == Some("0")
}

/// The test's scratch tree in the build's temp directory, or `None` (the skip printed)
/// when this pass cannot make a bind mount.
fn scratch(prefix: &str) -> Option<tempfile::TempDir> {
    if !is_root() {
        println!(
            "SKIPPED alias_mount: a bind mount on the host needs root (this pass is unprivileged)"
        );
        return None;
    }
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(base).unwrap();
    Some(
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(base)
            .unwrap(),
    )
}

#[test]
fn an_excluded_file_mounted_again_elsewhere_refuses_the_launch() {
    let Some(dir) = scratch("ralc-alias") else {
        return;
    };
    let ralc = ralc_bin();
    let proj = std::fs::canonicalize(dir.path()).unwrap().join("proj");
    std::fs::create_dir_all(proj.join("pub")).unwrap();
    std::fs::write(proj.join(".env"), "CONTENT-secret\n").unwrap();
    std::fs::write(proj.join("pub/alias"), "placeholder\n").unwrap();
    let (secret, alias) = (proj.join(".env"), proj.join("pub/alias"));
    let profile = proj.join("../p.ral");
    std::fs::write(
        &profile,
        "[exec: ['system:': 'allow'], fs: [write: ['cwd:'], deny: ['cwd:.env']]]\n",
    )
    .unwrap();
    let args = |p: &Path| {
        vec![
            "run".to_string(),
            "-p".to_string(),
            p.to_str().unwrap().to_string(),
            "--".to_string(),
            "/bin/sh".to_string(),
            "-c".to_string(),
            "printf '%s-%s\\n' LAUNCH ED; cat pub/alias".to_string(),
        ]
    };
    let argv = args(&profile);
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    // Before the alias: the launch runs, and the placeholder is all it reads.
    let out = run(ralc.to_str().unwrap(), &argv, &proj);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("LAUNCH-ED"),
        "{out:?}"
    );
    let m = run(
        "mount",
        &["--bind", secret.to_str().unwrap(), alias.to_str().unwrap()],
        Path::new("/"),
    );
    assert!(m.status.success(), "mount --bind: {m:?}");
    let _mounted = Mounted(alias.clone());
    let out = run(ralc.to_str().unwrap(), &argv, &proj);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert!(
        !stdout.contains("LAUNCH-ED") && !stdout.contains("CONTENT-"),
        "{out:?}"
    );
    assert!(
        stderr.contains(secret.to_str().unwrap())
            && stderr.contains("mounted again")
            && stderr.contains(alias.to_str().unwrap()),
        "{stderr}"
    );
}

/// A directory *above* an excluded file mounted again in the write region: the file is
/// reachable beneath the alias (`pub/above/secrets/.env`). The launch refuses, naming the
/// alias path, and runs nothing.
#[test]
fn a_directory_above_an_excluded_file_mounted_again_refuses_the_launch() {
    let Some(dir) = scratch("ralc-alias-up") else {
        return;
    };
    let ralc = ralc_bin();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join("pub/above")).unwrap();
    std::fs::create_dir_all(root.join("outside/secrets")).unwrap();
    std::fs::write(root.join("outside/secrets/.env"), "CONTENT-secret\n").unwrap();
    let profile = root.join("p.ral");
    std::fs::write(
        &profile,
        format!(
            "[exec: ['system:': 'allow'], fs: [write: ['cwd:'], read: ['{o}'], deny: ['{o}/secrets/.env']]]\n",
            o = root.join("outside").display()
        ),
    )
    .unwrap();
    let argv = [
        "run",
        "-p",
        profile.to_str().unwrap(),
        "--",
        "/bin/sh",
        "-c",
        "printf '%s-%s\\n' LAUNCH ED; cat pub/above/secrets/.env",
    ];
    let out = run(ralc.to_str().unwrap(), &argv, &proj);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("LAUNCH-ED")
            && !String::from_utf8_lossy(&out.stdout).contains("CONTENT-"),
        "{out:?}"
    );
    let above = proj.join("pub/above");
    let m = run(
        "mount",
        &[
            "--bind",
            root.join("outside").to_str().unwrap(),
            above.to_str().unwrap(),
        ],
        Path::new("/"),
    );
    assert!(m.status.success(), "mount --bind: {m:?}");
    let _mounted = Mounted(above.clone());
    let out = run(ralc.to_str().unwrap(), &argv, &proj);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert!(
        !stdout.contains("LAUNCH-ED") && !stdout.contains("CONTENT-"),
        "{out:?}"
    );
    assert!(
        stderr.contains("mounted again")
            && stderr.contains(above.join("secrets/.env").to_str().unwrap()),
        "{stderr}"
    );
}
