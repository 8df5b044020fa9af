//! Files the host runs later, on a real layout: a git repository (made by the host's git)
//! with a hook and editor settings, in a project outside `/tmp`, launched through the
//! `ralc run` binary under `std:minimal` and `std:reasonable`. Inside, git still reads its
//! config (`git status` works); rewriting a hook, `core.fsmonitor`, an editor task, or
//! renaming `.git/hooks` away all fail, and the host's files are intact afterwards. Each
//! hostile step prints a marker built at run time (`printf '%s-%s\n' ESC APED`), and
//! `LAUNCH-ED` proves the program ran (a refused launch never passes). A missing bwrap,
//! git or ralc binary fails; nothing is skipped.
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

use ralc_tests::bin::{ralc_bin, require_bwrap, run};
use std::path::{Path, PathBuf};

/// A repository as a developer has it: one commit, a hook, editor settings.
fn repository(root: &Path) -> PathBuf {
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join(".vscode")).unwrap();
    std::fs::write(proj.join("README"), "hello\n").unwrap();
    std::fs::write(proj.join(".vscode/tasks.json"), "{}\n").unwrap();
    let git = |args: &[&str]| {
        let out = run("git", args, &proj);
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "."]);
    git(&[
        "-c",
        "user.email=t@example.org",
        "-c",
        "user.name=t",
        "add",
        "README",
    ]);
    git(&[
        "-c",
        "user.email=t@example.org",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "-m",
        "init",
    ]);
    std::fs::write(proj.join(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(proj.join(".env"), "TOKEN=s3cret\n").unwrap();
    for f in PROJECT_FILES {
        let path = proj.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "kept\n").unwrap();
    }
    proj
}

/// Project files the host's tools run or load later, present in the fixture.
const PROJECT_FILES: &[&str] = &[
    ".github/workflows/ci.yml",
    ".cargo/config.toml",
    ".mcp.json",
    ".envrc",
];

const HOSTILE: &str = "printf '%s-%s\\n' LAUNCH ED; \
    echo 'echo owned' >> .git/hooks/pre-commit && printf '%s-%s\\n' ESC APED; \
    echo 'echo owned' > .git/hooks/post-checkout && printf '%s-%s\\n' ESC APED; \
    git config core.fsmonitor 'echo owned' && printf '%s-%s\\n' ESC APED; \
    git config alias.st '!echo owned' && printf '%s-%s\\n' ESC APED; \
    mv .git/hooks .git/hooks-away && printf '%s-%s\\n' ESC APED; \
    echo '{\"tasks\": []}' > .vscode/tasks.json && printf '%s-%s\\n' ESC APED; \
    mv .vscode vscode-away && printf '%s-%s\\n' ESC APED; \
    echo 'run: owned' > .github/workflows/ci.yml && printf '%s-%s\\n' ESC APED; \
    echo '[alias]' > .cargo/config.toml && printf '%s-%s\\n' ESC APED; \
    echo '{}' > .mcp.json && printf '%s-%s\\n' ESC APED; \
    echo 'echo owned' > .envrc && printf '%s-%s\\n' ESC APED; \
    grep -q s3cret .env && printf '%s-%s\\n' ESC APED; \
    git status --short >/dev/null && echo STATUS-OK";

#[test]
fn the_std_profiles_keep_what_the_host_runs_read_only_and_git_working() {
    require_bwrap();
    let ralc = ralc_bin();
    // Outside /tmp: the build's own temp directory under target/.
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(base).unwrap();
    for profile in [
        "std:minimal",
        "std:edit-only",
        "std:reasonable",
        "std:confined",
    ] {
        let dir = tempfile::Builder::new()
            .prefix("ralc-host-run")
            .tempdir_in(base)
            .unwrap();
        let proj = repository(dir.path());
        let config = std::fs::read(proj.join(".git/config")).unwrap();
        let hook = std::fs::read(proj.join(".git/hooks/pre-commit")).unwrap();
        let out = run(
            ralc.to_str().unwrap(),
            &["run", "-p", profile, "--", "/bin/sh", "-c", HOSTILE],
            &proj,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let all = format!(
            "{profile}: status {:?}\nstdout {stdout}\nstderr {stderr}",
            out.status
        );
        assert!(stdout.contains("LAUNCH-ED"), "never ran: {all}");
        assert!(
            !stdout.contains("s3cret"),
            "the project's .env was read: {all}"
        );
        assert!(
            !stdout.contains("ESC-APED") && !stderr.contains("ESC-APED"),
            "{all}"
        );
        assert!(
            stdout.contains("STATUS-OK"),
            "git status failed inside: {all}"
        );
        assert_eq!(
            std::fs::read(proj.join(".git/config")).unwrap(),
            config,
            "{all}"
        );
        assert_eq!(
            std::fs::read(proj.join(".git/hooks/pre-commit")).unwrap(),
            hook,
            "{all}"
        );
        assert!(!proj.join(".git/hooks/post-checkout").exists(), "{all}");
        assert!(!proj.join(".git/hooks-away").exists(), "{all}");
        // Present project files the host runs (an absent one cannot be masked by bwrap
        // under a writable prefix: docs/linux.md, "What is not covered").
        for kept in PROJECT_FILES {
            assert_eq!(
                std::fs::read_to_string(proj.join(kept)).unwrap(),
                "kept\n",
                "{kept} rewritten: {all}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(proj.join(".vscode/tasks.json")).unwrap(),
            "{}\n",
            "{all}"
        );
        // The host's git, afterwards, runs nothing the program wrote.
        let after = run("git", &["status", "--short"], &proj);
        assert!(
            !String::from_utf8_lossy(&after.stdout).contains("owned")
                && !String::from_utf8_lossy(&after.stderr).contains("owned"),
            "{after:?}"
        );
    }
}
