//! The macOS renderer: golden Seatbelt profiles rendered from hand-built projections
//! (`tests/golden/macos/*.sbpl`; `RALC_BLESS=1` rewrites them after review), each read back
//! by the reference reader (`ralc_tests::sbpl`): balanced, the base first, known operations
//! and filters only, every deny after every allow of its operation. The standard profiles,
//! rendered by the `ralc` binary on this host, are held to the same shape. Whether macOS
//! accepts a profile cannot be checked here (docs/macos.md).
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc::capability::projection::{
    ExecProjection, FsProjection, KernelExecRules, SandboxProjection,
};
use ralc::render::macos::{render, SeatbeltProfile};
use ralc_tests::sbpl;
use std::path::{Path, PathBuf};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden/macos")
        .join(format!("{name}.sbpl"))
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: the documented bless switch, RALC_BLESS=1"
)]
fn blessing() -> bool {
    std::env::var_os("RALC_BLESS").is_some()
}

fn check_golden(name: &str, p: &SeatbeltProfile) {
    assert!(p.refused.is_empty(), "{name}: {:?}", p.refused);
    let path = golden(name);
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &p.text).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (RALC_BLESS=1 writes it)", path.display()));
    assert_eq!(
        p.text, want,
        "{name}: the render differs from its golden file"
    );
    shape(name, &p.text);
}

fn shape(name: &str, text: &str) -> Vec<sbpl::Rule> {
    let rules = sbpl::rules(text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    sbpl::denies_follow_allows(&rules).unwrap_or_else(|e| panic!("{name}: {e}"));
    rules
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn restricted() -> SandboxProjection {
    SandboxProjection {
        fs: Some(FsProjection {
            read: s(&["/Users/u/proj", "/Users/u/.gitconfig", "/opt/homebrew"]),
            write: s(&["/Users/u/proj", "/private/tmp"]),
            floor: s(&["/opt/homebrew"]),
            deny: s(&["/Users/u/proj/.env", "/Users/u/proj/secrets", "/tmp/keys"]),
            write_deny: s(&["/Users/u/proj/ci.ral"]),
        }),
        exec: ExecProjection::Restricted(KernelExecRules {
            allow_dirs: s(&["/usr/bin", "/bin", "/opt/homebrew/bin"]),
            allow_files: s(&["/Users/u/proj/build.sh"]),
            deny_dirs: s(&["/usr/bin/private"]),
            deny_files: s(&["/usr/bin/sudo"]),
            deny_names: s(&["bash", "g++"]),
            carriers: s(&["/bin/zsh"]),
            link_targets: vec![],
        }),
        net_offline: true,
    }
}

#[test]
fn unrestricted_stack_golden() {
    let p = render(&SandboxProjection::default(), "", "/usr/local/bin/ralc");
    check_golden("unrestricted", &p);
    assert!(p.text.contains("(allow file-read*)\n(allow file-write*)"));
    assert!(p.text.contains("(allow process-exec)"));
    assert!(p.text.contains("(allow network*)"));
}

#[test]
fn restricted_launch_golden() {
    let p = render(
        &restricted(),
        "/Users/u/proj/build.sh",
        "/usr/local/bin/ralc",
    );
    check_golden("restricted", &p);
    let rules = shape("restricted", &p.text);
    let has = |allow: bool, op: &str, needle: &str| {
        rules.iter().any(|r| {
            r.allow == allow
                && r.ops.iter().any(|o| o == op)
                && r.filters.iter().any(|f| f.to_string().contains(needle))
        })
    };
    for (allow, op, needle) in [
        // Both firmlink spellings, denies included.
        (true, "file-write*", "\"/private/tmp\""),
        (true, "file-write*", "\"/tmp\""),
        (false, "file-read*", "\"/private/tmp/keys\""),
        // The carve-out in its order-independent form too.
        (
            true,
            "file-write*",
            "(require-not (subpath \"/Users/u/proj/.env\"))",
        ),
        (
            true,
            "file-write*",
            "(require-not (literal \"/Users/u/proj/ci.ral\"))",
        ),
        // Exec: dirs, files (the program, a carrier, ralc), denies, case-insensitive vetoes.
        (true, "process-exec", "(subpath \"/opt/homebrew/bin\")"),
        (true, "process-exec", "(literal \"/bin/zsh\")"),
        (true, "process-exec", "(literal \"/usr/local/bin/ralc\")"),
        (false, "process-exec", "(literal \"/usr/bin/sudo\")"),
        (false, "process-exec", "#\"/[bB][aA][sS][hH]$\""),
        (false, "process-exec", "#\"/[gG]\\+\\+$\""),
        // Pins: ancestors of an exclusion inside a write prefix; ralc's file and ancestors.
        (false, "file-write-unlink", "(literal \"/Users/u/proj\")"),
        (false, "file-write-unlink", "(literal \"/private/tmp\")"),
        (false, "file-write*", "(literal \"/usr/local/bin/ralc\")"),
        (false, "file-write-unlink", "(literal \"/usr/local/bin\")"),
    ] {
        let what = if allow { "allow" } else { "deny" };
        assert!(has(allow, op, needle), "no ({what} {op} … {needle} …)");
    }
    // Offline: no network, and no name resolution either.
    assert!(!rules.iter().any(|r| r.ops.iter().any(|o| o == "network*")));
    assert!(!p.text.contains("dnssd"));
    // Deterministic.
    assert_eq!(
        render(
            &restricted(),
            "/Users/u/proj/build.sh",
            "/usr/local/bin/ralc"
        ),
        p
    );
}

#[test]
fn a_path_seatbelt_cannot_spell_refuses_the_render() {
    let mut proj = restricted();
    if let Some(fs) = proj.fs.as_mut() {
        fs.deny.push("/Users/u/proj/bad\nname".into());
    }
    let p = render(&proj, "", "/usr/local/bin/ralc");
    assert!(p.text.is_empty());
    assert!(
        p.refused.iter().any(|r| r.contains("control character")),
        "{:?}",
        p.refused
    );
}

#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn ralc_render(args: &[&str]) -> std::process::Output {
    let me = std::env::current_exe().unwrap();
    let bin = me.parent().and_then(Path::parent).unwrap().join("ralc");
    assert!(
        bin.is_file(),
        "{} is missing: build it first",
        bin.display()
    );
    std::process::Command::new(bin)
        .current_dir("/tmp")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_standard_profiles_render_well_formed_profiles() {
    for p in ["std:minimal", "std:reasonable", "std:dangerous"] {
        let out = ralc_render(&[
            "render",
            "--target",
            "macos",
            "-p",
            p,
            "--self",
            "/usr/local/bin/ralc",
        ]);
        assert_eq!(out.status.code(), Some(0), "{p}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        shape(p, &text);
        let again = ralc_render(&[
            "render",
            "--target",
            "macos",
            "-p",
            p,
            "--self",
            "/usr/local/bin/ralc",
        ]);
        assert_eq!(text.as_bytes(), &again.stdout[..], "{p}: not deterministic");
    }
    // A launch the stack refuses is a refused render (exit 1), with the guard's words.
    let out = ralc_render(&[
        "render",
        "--target",
        "macos",
        "-p",
        "std:minimal",
        "--",
        "bash",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("vetoed by name"));
}

mod random {
    use super::*;
    use proptest::prelude::*;

    /// Path components drawn to stress spelling: plain, firmlink heads, quotes,
    /// backslashes, regex metacharacters, non-ASCII, and now and then a control character.
    fn component() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => "[a-z]{1,6}",
            1 => Just("tmp".to_string()),
            1 => Just("private".to_string()),
            1 => Just("etc".to_string()),
            1 => Just("a\"b".to_string()),
            1 => Just("c\\d".to_string()),
            1 => Just("x+.(y)".to_string()),
            1 => Just("é".to_string()),
            1 => Just("bad\nname".to_string()),
        ]
    }

    fn path() -> impl Strategy<Value = String> {
        proptest::collection::vec(component(), 1..4).prop_map(|c| format!("/{}", c.join("/")))
    }

    fn paths() -> impl Strategy<Value = Vec<String>> {
        proptest::collection::vec(path(), 0..5)
    }

    prop_compose! {
        fn projection()(
            fs in proptest::option::of((paths(), paths(), paths(), paths())),
            exec in proptest::option::of((paths(), paths(), paths(), paths(), proptest::collection::vec(component(), 0..3))),
            offline in any::<bool>(),
        ) -> SandboxProjection {
            SandboxProjection {
                fs: fs.map(|(read, write, deny, write_deny)| FsProjection {
                    read, write, floor: vec![], deny, write_deny,
                }),
                exec: match exec {
                    None => ExecProjection::Unrestricted,
                    Some((allow_dirs, allow_files, deny_dirs, deny_files, deny_names)) => {
                        ExecProjection::Restricted(KernelExecRules {
                            allow_dirs, allow_files, deny_dirs, deny_files, deny_names,
                            carriers: vec![],
                            link_targets: vec![],
                        })
                    }
                },
                net_offline: offline,
            }
        }
    }

    fn mentions_control(p: &SandboxProjection) -> bool {
        let mut all: Vec<&String> = Vec::new();
        if let Some(fs) = &p.fs {
            all.extend(
                fs.read
                    .iter()
                    .chain(&fs.write)
                    .chain(&fs.deny)
                    .chain(&fs.write_deny),
            );
        }
        if let ExecProjection::Restricted(k) = &p.exec {
            all.extend(
                k.allow_dirs
                    .iter()
                    .chain(&k.allow_files)
                    .chain(&k.deny_dirs)
                    .chain(&k.deny_files)
                    .chain(&k.deny_names),
            );
        }
        all.iter().any(|s| s.chars().any(char::is_control))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any projection renders to a well-formed profile that denies after it allows, and
        /// names every exclusion it was given — or, when a path cannot be spelled, is
        /// refused with no text at all.
        #[test]
        fn every_render_is_well_formed_or_refused(p in projection()) {
            let r = render(&p, "", "/usr/local/bin/ralc");
            if mentions_control(&p) {
                prop_assert!(r.text.is_empty() && !r.refused.is_empty());
            } else {
                prop_assert!(r.refused.is_empty(), "{:?}", r.refused);
                let rules = sbpl::rules(&r.text).map_err(TestCaseError::fail)?;
                sbpl::denies_follow_allows(&rules).map_err(TestCaseError::fail)?;
                if let Some(fs) = &p.fs {
                    for d in &fs.deny {
                        let canon = ralc::render::macos::canonical(d);
                        let denied = rules.iter().any(|r| !r.allow
                            && r.ops.iter().any(|o| o == "file-read*")
                            && r.filters.iter().any(|f| *f == sbpl::Sexp::List(vec![
                                sbpl::Sexp::Atom("subpath".into()),
                                sbpl::Sexp::Str(canon.clone()),
                            ])));
                        prop_assert!(denied, "{d} is not denied");
                    }
                }
                prop_assert_eq!(render(&p, "", "/usr/local/bin/ralc"), r);
            }
        }
    }
}
