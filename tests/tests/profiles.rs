//! The standard profiles and the upstream bake-ins (issue #12 §2 and "Done when"):
//! every `std:` profile checks with no error and renders for Linux and macOS (a fragment
//! as an `--extend` of `std:minimal`); `std:confined` is `std:reasonable` plus `` net:
//! `offline `` line for line; every upstream bake-in (`tests/profiles/upstream/`) is
//! refused while it holds the removed `audit` key and compiles with no error once it is
//! dropped; and the promises each one documents (`tests/profiles/promises.txt`) hold as
//! judgments, asked as `ralc why` asks them.
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

use ralc::cli::args::StackArgs;
use ralc::diag::Severity;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("profiles")
        .join(rel)
}

/// A fixed host: home, project and temp directory under a fresh directory, the system's
/// PATH.
struct Host {
    _dir: tempfile::TempDir,
    t: String,
}

fn host() -> Host {
    let dir = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(dir.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    for (f, exe) in [
        ("home/.ssh/id", false),
        ("home/.gitconfig", false),
        ("home/.pyenv/shims/python3", true),
        ("proj/src/main.rs", false),
        ("outside/notes", false),
        ("tmp/scratch", false),
    ] {
        let p = Path::new(&t).join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        if exe {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = exe;
    }
    Host { _dir: dir, t }
}

/// The upstream bake-in `name` with its `audit` line dropped, written under the host.
fn upstream(h: &Host, name: &str) -> String {
    let text = std::fs::read_to_string(data(&format!("upstream/{name}.ral"))).unwrap();
    let dropped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("audit:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let p = format!("{}/upstream-{name}.ral", h.t);
    std::fs::write(&p, dropped).unwrap();
    p
}

fn stack_args(h: &Host, spec: &str) -> StackArgs {
    let mut a = StackArgs::default();
    let mut parts = spec.split('+');
    let base = parts.next().unwrap();
    a.profiles.push(match base.strip_prefix("upstream:") {
        Some(n) => upstream(h, n),
        None => base.to_owned(),
    });
    a.extend.extend(parts.map(str::to_owned));
    a.anchor.home = Some(PathBuf::from(format!("{}/home", h.t)));
    a.anchor.cwd = Some(PathBuf::from(format!("{}/proj", h.t)));
    a.anchor.env.push("PATH=/usr/bin:/bin".into());
    a.anchor.env.push(format!("HOME={}/home", h.t));
    // The host itself lies in the system's temp directory: the freeze's is another.
    a.anchor.env.push(format!("TMPDIR={}/tmp", h.t));
    a.anchor.env_clear = true;
    a
}

fn errors(c: &ralc::pipeline::Compiled) -> Vec<String> {
    c.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect()
}

#[test]
fn every_std_profile_checks_clean_and_renders_for_linux_and_macos() {
    let h = host();
    for (name, _) in ralc::std_profiles::ALL {
        let spec = if ralc::std_profiles::FRAGMENTS.contains(name) {
            format!("std:minimal+std:{name}")
        } else {
            format!("std:{name}")
        };
        let compiled = stack_args(&h, &spec).compile(&[]).unwrap();
        assert!(
            errors(&compiled).is_empty(),
            "{spec}: {:?}",
            errors(&compiled)
        );
        // No warning either, on a host with none of the package managers installed.
        assert!(
            compiled.diagnostics.is_empty(),
            "{spec}: {:?}",
            compiled
                .diagnostics
                .iter()
                .map(|d| format!("{} {}", d.code, d.message))
                .collect::<Vec<_>>()
        );
        let stack = compiled.stack.as_ref().expect("a stack");
        let r: &dyn ralc::capability::resolve::Resolve = &compiled.ctx;
        let projection = ralc::capability::projection::SandboxProjection::of(stack, r, None);
        let program = ralc_runtime::plan::LaunchProgram {
            real: "/usr/bin/true".into(),
            argv0: "true".into(),
            args: vec![],
        };
        let plan =
            ralc::render::linux::render(&projection, &program, &format!("{}/proj", h.t), "/x/ralc");
        assert!(
            plan.refused.is_empty(),
            "{spec}: linux refuses {:?}",
            plan.refused
        );
        let sbpl = ralc::render::macos::render(&projection, "/usr/bin/true", "/x/ralc");
        assert!(
            sbpl.refused.is_empty(),
            "{spec}: macos refuses {:?}",
            sbpl.refused
        );
        assert!(!sbpl.text.is_empty(), "{spec}");
    }
}

/// The lines of a profile that are code (comments and blank lines dropped).
fn code(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        })
        .collect()
}

/// The `std:secrets` block of a profile: from its opening marker to its closing one.
fn secrets_block(name: &str, text: &str) -> String {
    let start = text
        .find("# --- std:secrets")
        .unwrap_or_else(|| panic!("std:{name} carries no std:secrets block"));
    let end = text[start..]
        .find("# --- end std:secrets ---")
        .unwrap_or_else(|| panic!("std:{name}: the std:secrets block is not closed"));
    text[start..start + end].to_string()
}

#[test]
fn every_std_policy_carries_std_secrets_verbatim_and_excludes_it() {
    let want = secrets_block("secrets", ralc::std_profiles::get("secrets").unwrap());
    let mut carried = 0;
    for (name, src) in ralc::std_profiles::ALL {
        if ralc::std_profiles::FRAGMENTS.contains(name) || *name == "dangerous" {
            continue;
        }
        assert_eq!(
            secrets_block(name, src),
            want,
            "std:{name}'s copy of std:secrets differs"
        );
        assert!(
            code(src).contains(&"    deny: $secrets,"),
            "std:{name} does not exclude $secrets"
        );
        carried += 1;
    }
    assert_eq!(
        carried, 5,
        "minimal, read-only, edit-only, reasonable, confined"
    );
    // the lint reads the same list
    let list = ralc::lint::secret_exposure::std_secrets();
    assert!(list.len() >= 30, "{list:?}");
    for entry in &list {
        assert!(want.contains(&format!("'{entry}'")), "{entry}");
    }
}

#[test]
fn confined_is_reasonable_offline() {
    let reasonable = ralc::std_profiles::get("reasonable").unwrap();
    let confined = ralc::std_profiles::get("confined").unwrap();
    let mut want = code(reasonable);
    let last = want.pop();
    assert_eq!(last, Some("]"));
    want.push("  net: `offline,");
    want.push("]");
    assert_eq!(code(confined), want);
}

#[test]
fn upstream_bake_ins_compile_once_their_audit_key_is_dropped() {
    let h = host();
    for name in [
        "minimal",
        "read-only",
        "edit-only",
        "reasonable",
        "confined",
    ] {
        // As shipped: the removed recording switch is refused, with its note.
        let raw = data(&format!("upstream/{name}.ral"));
        let mut a = stack_args(&h, "std:minimal");
        a.profiles = vec![raw.to_str().unwrap().to_owned()];
        let c = a.compile(&[]).unwrap();
        let errs = errors(&c);
        assert!(
            errs.iter().any(|e| e.starts_with("E0201")),
            "{name}: the audit key is not refused: {errs:?}"
        );
        // Dropped: no error.
        let c = stack_args(&h, &format!("upstream:{name}"))
            .compile(&[])
            .unwrap();
        assert!(errors(&c).is_empty(), "{name}: {:?}", errors(&c));
        assert!(c.stack.is_some(), "{name}");
    }
}

#[test]
fn every_documented_promise_holds_as_a_judgment() {
    let h = host();
    let text = std::fs::read_to_string(data("promises.txt")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split(" :: ").collect();
        let [spec, question, want] = parts[..] else {
            panic!(
                "promises.txt:{}: want PROFILE :: QUESTION :: VERDICT",
                i + 1
            );
        };
        n += 1;
        let c = stack_args(&h, spec).compile(&[]).unwrap();
        let Some(stack) = c.stack.as_ref() else {
            failures.push(format!(
                "{}: {spec} did not compile: {:?}",
                i + 1,
                errors(&c)
            ));
            continue;
        };
        let q = ralc::cli::why::parse_line(&question.replace("$T", &h.t)).unwrap();
        let d = ralc::cli::why::answer(stack, &c.ctx, &q);
        let got = match (d.granted, d.reason) {
            (true, _) => "granted".to_owned(),
            (false, r) => format!("withheld {}", r.unwrap_or("-")),
        };
        if got != want {
            failures.push(format!(
                "promises.txt:{}: {spec} :: {question}: want {want}, got {got} ({})",
                i + 1,
                d.message
            ));
        }
    }
    assert!(n >= 60, "only {n} promises");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// First contact (issue #27): the README's first command, and `check` of every shipped
/// file by its path inside the clone (policies and fragments), print nothing; a copy that
/// differs from the embedded text is judged as any profile (self-writable there).
#[test]
fn checking_a_shipped_file_inside_the_clone_is_silent() {
    use ralc_tests::bin::{run_ralc, target_dir, workspace_root};
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains("cargo run --release --bin ralc -- check std-profiles/reasonable.ral"),
        "the README's first command changed: update this test"
    );
    assert!(readme.contains("cargo install --path compiler"));
    for (name, _) in ralc::std_profiles::ALL {
        let rel = format!("std-profiles/{name}.ral");
        let (code, out, err) = run_ralc(&root, &["check", &rel]);
        assert_eq!(code, Some(0), "{rel}: {out}{err}");
        assert_eq!(format!("{out}{err}"), "", "{rel} is not silent");
    }
    let scratch = target_dir().join(format!("first-contact-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("std-profiles")).unwrap();
    let edited = format!("{}# edited\n", ralc::std_profiles::get("minimal").unwrap());
    std::fs::write(scratch.join("std-profiles/minimal.ral"), edited).unwrap();
    let (_, out, err) = run_ralc(&scratch, &["check", "std-profiles/minimal.ral"]);
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        format!("{out}{err}").contains("self-writable"),
        "an edited copy must be judged: {out}{err}"
    );
}
