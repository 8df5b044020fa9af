//! The peers' own suites, translated (issue #27): cases from landrun's `test.sh`, Codex's
//! Linux sandbox tests (`codex-rs/linux-sandbox/tests/suite/landlock.rs`), sandbox-runtime's
//! credential-deny integration tests (`test/sandbox/credential-deny.test.ts`) and nono's
//! sensitive-path integration tests (`tests/integration/test_sensitive_paths.sh`), each
//! written as a `.ral` profile and a shell command run through the `ralc run` binary under
//! bwrap, Landlock and seccomp, with the verdict the peer expects. Each case cites its
//! source. A case whose verdict is ralc's by design differs from the peer's is marked
//! `Differs` with the reason, and `docs/peers.md` lists them.
//!
//! A `Blocked` case runs the hostile step then prints a marker built at run time
//! (`printf '%s-%s\n' ESC APED`) only if the step succeeded, and prints `LAUNCH-ED` after
//! it, so a refused launch never counts as blocked; the host is then checked for what the
//! step would have left (a file created or changed, a connection received: a listener on
//! the host's loopback, which the online control case must reach). A `Runs` case
//! prints `PEER-OK` at the end of its command and must exit 0. Every fixture lives under
//! the build's `target/` directory (outside `/tmp`) and is removed afterwards.
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
    reason = "test: builds fixtures, runs the ralc binary and listens on loopback"
)]
// Linux only: the suite launches under bwrap, Landlock and seccomp.
#![cfg(target_os = "linux")]

use ralc_tests::bin::{ralc_bin, require_bwrap, target_dir};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// What the peer expects of a case, and ralc with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// The command runs to its end and exits 0.
    Runs,
    /// The hostile step fails; the host keeps nothing of it.
    Blocked,
}

/// One translated case.
struct Case {
    /// Where the peer's case is: repository, file, case name.
    source: &'static str,
    /// The profile, `$ROOT` replaced by the fixture's root and `$PORT` by the listener's.
    profile: &'static str,
    /// The command (`sh -c`), with the same replacements.
    script: &'static str,
    /// The peer's verdict.
    peer: Verdict,
    /// ralc's verdict, when it differs by design (the reason is in `docs/peers.md`).
    differs: Option<(Verdict, &'static str)>,
    /// Paths (under `$ROOT`) that must not exist on the host afterwards.
    absent: &'static [&'static str],
    /// Paths (under `$ROOT`) whose content must be unchanged afterwards.
    kept: &'static [&'static str],
}

/// The system a command needs: its programs and libraries.
const SYS: &str = "'/usr', '/etc', '/lib', '/lib64', '/bin'";

fn cases() -> Vec<Case> {
    let c = |source, profile, script, peer| Case {
        source,
        profile,
        script,
        peer,
        differs: None,
        absent: &[],
        kept: &[],
    };
    vec![
        // --- landrun test.sh ---
        c(
            "landrun: Read-only access to file",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/ro']]]",
            "cat $ROOT/ro/test.txt",
            Verdict::Runs,
        ),
        c(
            "landrun: Read-only access to nested file",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/ro']]]",
            "cat $ROOT/ro/ro_nested_ro_1/test.txt",
            Verdict::Runs,
        ),
        c(
            "landrun: Write access to nested directory writable nested in read-only directory",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/ro'], write: ['$ROOT/ro/ro_nested_rw_1']]]",
            "touch $ROOT/ro/ro_nested_rw_1/created_file",
            Verdict::Runs,
        ),
        c(
            "landrun: Read-write access to file",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/ro'], write: ['$ROOT/rw']]]",
            "touch $ROOT/rw/new.txt",
            Verdict::Runs,
        ),
        Case {
            absent: &["ro/new.txt"],
            ..c(
                "landrun: No write access to read-only directory",
                "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/ro'], write: ['$ROOT/rw']]]",
                "touch $ROOT/ro/new.txt",
                Verdict::Blocked,
            )
        },
        c(
            "landrun: Execute access with rox flag",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow', '$ROOT/exec/': 'allow'], fs: [read: [SYS, '$ROOT/exec']]]",
            "$ROOT/exec/test.sh",
            Verdict::Runs,
        ),
        c(
            "landrun: Execute access with rox flag on file",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow', '$ROOT/exec/test.sh': 'allow'], fs: [read: [SYS, '$ROOT/exec']]]",
            "$ROOT/exec/test.sh",
            Verdict::Runs,
        ),
        c(
            "landrun: Execute access with rox flag on a file that is executable in same directory that one is allowed",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow', '$ROOT/exec/test.sh': 'allow'], fs: [read: [SYS, '$ROOT/exec']]]",
            "$ROOT/exec/test2.sh",
            Verdict::Blocked,
        ),
        c(
            "landrun: No execute access with just ro flag",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/exec']]]",
            "$ROOT/exec/test.sh",
            Verdict::Blocked,
        ),
        c(
            "landrun: Execute access in read-write directory",
            "# ralc: allow(deputy-prefix) the case runs what it may write\n[exec: ['/usr/bin/': 'allow', '/bin/': 'allow', '$ROOT/rw/': 'allow'], fs: [read: [SYS], write: ['$ROOT/rw']]]",
            "$ROOT/rw/rw_script.sh",
            Verdict::Runs,
        ),
        c(
            "landrun: No execute access in read-write directory without rwx",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS], write: ['$ROOT/rw']]]",
            "$ROOT/rw/rw_script.sh",
            Verdict::Blocked,
        ),
        c(
            "landrun: Deep directory traversal",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/nested']]]",
            "ls $ROOT/nested/path/deep",
            Verdict::Runs,
        ),
        Case {
            differs: Some((
                Verdict::Runs,
                "a grant of a path that does not exist is a dead grant, dropped with a warning",
            )),
            ..c(
                "landrun: Non-existent read-only path",
                "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '/nonexistent/path']]]",
                "ls /usr >/dev/null",
                Verdict::Blocked,
            )
        },
        c(
            "landrun: File redirection",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS], write: ['$ROOT/rw']]]",
            "ls /usr > $ROOT/rw/output.txt && cat $ROOT/rw/output.txt >/dev/null",
            Verdict::Runs,
        ),
        c(
            "landrun: TCP connection without permission",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]], net: `offline]",
            "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT' 2>/dev/null",
            Verdict::Blocked,
        ),
        c(
            "landrun: TCP connection with permission",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]]]",
            "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT'",
            Verdict::Runs,
        ),
        c(
            "landrun: Execute from read-only paths regression test",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]]]",
            "/usr/bin/id >/dev/null",
            Verdict::Runs,
        ),
        c(
            "landrun: Mixed permissions",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow', '$ROOT/exec/': 'allow'], fs: [read: [SYS, '$ROOT/exec'], write: ['$ROOT/rw']]]",
            "$ROOT/exec/test.sh > $ROOT/rw/output.txt && grep -q 'executable content' $ROOT/rw/output.txt",
            Verdict::Runs,
        ),
        // --- Codex, linux-sandbox/tests/suite/landlock.rs ---
        c(
            "codex: test_root_read",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]]]",
            "ls -l /bin >/dev/null",
            Verdict::Runs,
        ),
        Case {
            kept: &["outside/file"],
            ..c(
                "codex: test_root_write",
                "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/outside'], write: ['$ROOT/rw']]]",
                "echo blah > $ROOT/outside/file",
                Verdict::Blocked,
            )
        },
        c(
            "codex: test_dev_null_write",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]]]",
            "echo blah > /dev/null",
            Verdict::Runs,
        ),
        c(
            "codex: test_writable_root",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS], write: ['$ROOT/rw']]]",
            "echo blah > $ROOT/rw/test",
            Verdict::Runs,
        ),
        c(
            "codex: test_no_new_privs_is_enabled",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]]]",
            "grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status",
            Verdict::Runs,
        ),
        c(
            "codex: sandbox_blocks_dev_tcp_redirection",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS]], net: `offline]",
            "bash -c 'echo hi > /dev/tcp/127.0.0.1/$PORT' 2>/dev/null",
            Verdict::Blocked,
        ),
        Case {
            kept: &["proj/.git/config"],
            ..c(
                "codex: sandbox_blocks_git_and_codex_writes_inside_writable_root",
                "std:reasonable",
                "echo denied > .git/config",
                Verdict::Blocked,
            )
        },
        Case {
            kept: &["proj/decoy-codex/config.toml"],
            ..c(
                "codex: sandbox_blocks_codex_symlink_replacement_attack",
                "std:reasonable",
                "echo denied > .codex/config.toml",
                Verdict::Blocked,
            )
        },
        // --- sandbox-runtime, credential deny on Linux (bwrap) ---
        c(
            "srt: a denied credential file is unreadable inside the sandbox",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/cred'], deny: ['$ROOT/cred/fake-netrc']]]",
            "grep -q hunter2 $ROOT/cred/fake-netrc",
            Verdict::Blocked,
        ),
        c(
            "srt: a denied credential directory is unreadable",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/cred'], deny: ['$ROOT/cred/fake-aws']]]",
            "grep -q hunter2 $ROOT/cred/fake-aws/credentials",
            Verdict::Blocked,
        ),
        c(
            "srt: a non-credential file in the same directory is still readable",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/cred'], deny: ['$ROOT/cred/fake-netrc']]]",
            "grep -q control-ok $ROOT/cred/control.txt",
            Verdict::Runs,
        ),
        c(
            "srt: denies the resolved target when a denied credential file is a symlink",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/cred'], deny: ['$ROOT/cred/symlinked-netrc']]]",
            "grep -q hunter2 $ROOT/cred/symlinked-netrc",
            Verdict::Blocked,
        ),
        // --- nono, sensitive paths blocked even with a broad grant (~) ---
        c(
            "nono: ~/.ssh directory blocked with ~ grant",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
            "ls $ROOT/home/.ssh/ | grep -q id_ed25519",
            Verdict::Blocked,
        ),
        c(
            "nono: ~/.aws/credentials blocked",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
            "grep -q s3cret $ROOT/home/.aws/credentials",
            Verdict::Blocked,
        ),
        c(
            "nono: ~/.kube/config blocked",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
            "grep -q s3cret $ROOT/home/.kube/config",
            Verdict::Blocked,
        ),
        c(
            "nono: ~/.bash_history blocked",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
            "grep -q s3cret $ROOT/home/.bash_history",
            Verdict::Blocked,
        ),
        c(
            "nono: ~/.password-store directory blocked",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
            "grep -rq s3cret $ROOT/home/.password-store",
            Verdict::Blocked,
        ),
        Case {
            differs: Some((
                Verdict::Runs,
                "shell start-up files are write-denied, not read-denied: shells read them",
            )),
            ..c(
                "nono: ~/.bashrc blocked",
                "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home']]]",
                "grep -q alias $ROOT/home/.bashrc",
                Verdict::Blocked,
            )
        },
        c(
            "nono: ~/.sshfoo grant does NOT bypass ~/.ssh protection",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home/.sshfoo']]]",
            "grep -q s3cret $ROOT/home/.ssh/id_ed25519",
            Verdict::Blocked,
        ),
        c(
            "nono: collision directory itself is readable when granted",
            "[exec: ['/usr/bin/': 'allow', '/bin/': 'allow'], fs: [read: [SYS, '$ROOT/home/.sshfoo']]]",
            "grep -q not-a-key $ROOT/home/.sshfoo/fake",
            Verdict::Runs,
        ),
    ]
}

/// The fixture of every case: landrun's `test_env`, a project with `.git` and `.codex`,
/// sandbox-runtime's credential files, a home with nono's sensitive paths.
fn fixture(root: &Path) {
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    };
    let script = "#!/bin/sh\necho 'executable content'\n";
    w("ro/test.txt", "readonly content\n");
    w("ro/ro_nested_ro_1/test.txt", "readonly content\n");
    w("ro/ro_nested_rw_1/test.txt", "readwrite content\n");
    w("rw/test.txt", "readwrite content\n");
    w("nested/path/deep/test.txt", "nested content\n");
    w("exec/test.sh", script);
    w("exec/test2.sh", script);
    w(
        "rw/rw_script.sh",
        "#!/bin/sh\necho 'this script is in a read-write directory'\n",
    );
    for x in ["exec/test.sh", "exec/test2.sh", "rw/rw_script.sh"] {
        std::fs::set_permissions(root.join(x), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    w("outside/file", "kept\n");
    w("proj/README", "hello\n");
    // Codex's symlink replacement: `.codex` is a link to a decoy directory
    w("proj/decoy-codex/config.toml", "kept\n");
    std::os::unix::fs::symlink(root.join("proj/decoy-codex"), root.join("proj/.codex")).unwrap();
    let out = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(root.join("proj"))
        .output()
        .unwrap();
    assert!(out.status.success(), "git init: {out:?}");
    w("cred/fake-netrc", "machine github.com password hunter2\n");
    w(
        "cred/fake-aws/credentials",
        "machine github.com password hunter2\n",
    );
    w(
        "cred/dotfiles-netrc",
        "machine github.com password hunter2\n",
    );
    w("cred/control.txt", "control-ok\n");
    std::os::unix::fs::symlink(
        root.join("cred/dotfiles-netrc"),
        root.join("cred/symlinked-netrc"),
    )
    .unwrap();
    w("home/.ssh/id_ed25519", "s3cret\n");
    w("home/.aws/credentials", "s3cret\n");
    w("home/.kube/config", "s3cret\n");
    w("home/.bash_history", "export TOKEN=s3cret\n");
    w("home/.password-store/site.gpg", "s3cret\n");
    w("home/.bashrc", "alias ll='ls -l'\n");
    w("home/.sshfoo/fake", "not-a-key\n");
}

/// A profile of the nono cases excludes the secrets list as every std profile does: nono
/// denies them by default, ralc by the list a profile carries (`--extend std:secrets`).
fn run_case(case: &Case, root: &Path, port: u16) -> Output {
    let sub = |s: &str| {
        s.replace("SYS", SYS)
            .replace("$ROOT", root.to_str().unwrap())
            .replace("$PORT", &port.to_string())
    };
    let script = sub(case.script);
    let full = match case.peer {
        Verdict::Runs => format!("{script} && printf '%s-%s\\n' PEER OK"),
        Verdict::Blocked => {
            format!("printf '%s-%s\\n' LAUNCH ED; {script} && printf '%s-%s\\n' ESC APED; exit 0")
        }
    };
    let mut args: Vec<String> = vec!["run".into()];
    if case.profile.starts_with("std:") {
        args.extend(["-p".into(), case.profile.into()]);
    } else {
        let p = root.join(format!("case-{:x}.ral", fnv(case.source)));
        std::fs::write(&p, format!("{}\n", sub(case.profile))).unwrap();
        args.extend(["-p".into(), p.to_str().unwrap().into()]);
        if case.source.starts_with("nono") {
            args.extend(["--extend".into(), "std:secrets".into()]);
        }
    }
    args.extend(["--".into(), "/bin/sh".into(), "-c".into(), full]);
    std::process::Command::new(ralc_bin())
        .current_dir(root.join("proj"))
        .env("HOME", root.join("home"))
        .args(&args)
        .output()
        .expect("ralc runs")
}

/// A name for a case's profile file.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn the_peers_cases_agree_except_the_documented_differences() {
    require_bwrap();
    let root = target_dir().join(format!("peers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let root: PathBuf = std::fs::canonicalize(&root).unwrap();
    assert!(!root.starts_with("/tmp"), "fixtures lie outside /tmp");
    fixture(&root);
    // A listener on the host's loopback: an `offline` case must not reach it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let docs = std::fs::read_to_string(ralc_tests::bin::workspace_root().join("docs/peers.md"))
        .unwrap_or_default();
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let before: Vec<Vec<u8>> = case
            .kept
            .iter()
            .map(|k| std::fs::read(root.join(k)).unwrap())
            .collect();
        let out = run_case(case, &root, port);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let all = format!(
            "{}: status {:?}\nstdout {stdout}\nstderr {}",
            case.source,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let want = case.differs.map_or(case.peer, |(v, _)| v);
        let got_runs = out.status.success() && stdout.contains("PEER-OK");
        let got = match case.peer {
            Verdict::Runs => {
                if got_runs {
                    Verdict::Runs
                } else {
                    Verdict::Blocked
                }
            }
            Verdict::Blocked => {
                if !stdout.contains("LAUNCH-ED") && want == Verdict::Blocked {
                    failures.push(format!("a refused launch is not a block: {all}"));
                    continue;
                }
                if stdout.contains("ESC-APED") || !stdout.contains("LAUNCH-ED") {
                    Verdict::Runs
                } else {
                    Verdict::Blocked
                }
            }
        };
        if got != want {
            failures.push(format!("want {want:?}, got {got:?}: {all}"));
        }
        // The host's listener: an `offline` case never reaches it, the control does.
        let mut reached = 0;
        while listener.accept().is_ok() {
            reached += 1;
        }
        if case.script.contains("$PORT") {
            let offline = case.profile.contains("`offline");
            if offline && reached > 0 {
                failures.push(format!(
                    "an offline case reached the host's loopback: {all}"
                ));
            }
            if !offline && reached == 0 {
                failures.push(format!("the control never reached the listener: {all}"));
            }
        }
        for a in case.absent {
            if root.join(a).exists() {
                failures.push(format!("{a} was left on the host: {all}"));
            }
        }
        for (k, b) in case.kept.iter().zip(before) {
            if std::fs::read(root.join(k)).unwrap() != b {
                failures.push(format!("{k} was changed on the host: {all}"));
            }
        }
        if let Some((_, why)) = case.differs {
            if !docs.contains(case.source) {
                failures.push(format!(
                    "{}: a difference ({why}) not documented in docs/peers.md",
                    case.source
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(cases.len() >= 35, "{} cases", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!(
        "peers: {} cases, {} agree, {} documented differences",
        cases.len(),
        cases.iter().filter(|c| c.differs.is_none()).count(),
        cases.iter().filter(|c| c.differs.is_some()).count()
    );
}
