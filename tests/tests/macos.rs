//! The macOS renderer: golden Seatbelt profiles rendered from hand-built projections
//! (`tests/golden/macos/*.sbpl`; `RALC_BLESS=1` rewrites them after review), each read back
//! by the reference reader (`ralc_tests::sbpl`): balanced, the base first, known operations
//! and filters only, every deny after every allow of its operation and carrying the one
//! denial tag. Every standard profile, rendered by the `ralc` binary on this host, is held
//! to the same shape and must hold the rules ordinary programs need (issue #33: mappable
//! libraries, `/dev/fd`, ptys, preferences, the host port, named sysctls, the developer
//! tools' paths, an exclusion's unix sockets denied). Whether macOS accepts a profile
//! cannot be checked here (docs/macos.md).
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
use ralc::render::macos::{render, render_tagged, SeatbeltProfile};
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
    sbpl::denial_tag(&rules).unwrap_or_else(|e| panic!("{name}: {e}"));
    rules
}

/// Whether a rule of `rules` allows (or denies) `op` with a filter whose text holds
/// `needle` (an empty needle: a rule with no filter at all).
fn has(rules: &[sbpl::Rule], allow: bool, op: &str, needle: &str) -> bool {
    rules.iter().any(|r| {
        r.allow == allow
            && r.ops.iter().any(|o| o == op)
            && if needle.is_empty() {
                r.filters.is_empty()
            } else {
                r.filters.iter().any(|f| f.to_string().contains(needle))
            }
    })
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
            links: vec![],
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
    let has = |allow: bool, op: &str, needle: &str| has(&rules, allow, op, needle);
    for (allow, op, needle) in [
        // What may be read may be mapped executable; an exclusion may not.
        (true, "file-map-executable", "(subpath \"/opt/homebrew\")"),
        (true, "file-map-executable", "(subpath \"/usr\")"),
        (
            false,
            "file-map-executable",
            "(subpath \"/Users/u/proj/.env\")",
        ),
        // Offline: the loopback, and unix sockets inside the write region less its
        // exclusions; an exclusion's sockets denied.
        (true, "network-outbound", "(remote ip \"localhost:*\")"),
        (true, "network-bind", "(local ip \"localhost:*\")"),
        (true, "network-bind", "(subpath \"/private/tmp\")"),
        (
            true,
            "network-outbound",
            "(require-not (subpath \"/Users/u/proj/secrets\"))",
        ),
        (
            false,
            "network-outbound",
            "(subpath \"/Users/u/proj/secrets\")",
        ),
        (false, "network-outbound", "(subpath \"/private/tmp/keys\")"),
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
    // Offline: no other address, and no name resolution either; a unix socket is not
    // reached where the grant only reads.
    assert!(!rules.iter().any(|r| r.ops.iter().any(|o| o == "network*")));
    assert!(!has(true, "network-outbound", "(remote ip \"*:*\")"));
    assert!(!has(
        true,
        "network-outbound",
        "(subpath \"/opt/homebrew\")"
    ));
    assert!(!p.text.contains("dnssd"));
    assert!(!has(true, "network-outbound", "mDNSResponder"));
    assert!(p
        .text
        .contains(";; fidelity: offline: loopback is the host's"));
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

/// With the network: every address and the name services, unix sockets wherever the grant
/// reads, less each exclusion's; every deny tagged with the launch's tag.
#[test]
fn online_tagged_launch_golden() {
    let mut proj = restricted();
    proj.net_offline = false;
    let p = render_tagged(
        &proj,
        "/Users/u/proj/build.sh",
        "/usr/local/bin/ralc",
        "ralc-1f-abc",
    );
    check_golden("online-tagged", &p);
    let rules = shape("online-tagged", &p.text);
    assert_eq!(sbpl::denial_tag(&rules).unwrap(), "ralc-1f-abc");
    let has = |allow: bool, op: &str, needle: &str| has(&rules, allow, op, needle);
    for (allow, op, needle) in [
        (true, "network-outbound", "(remote ip \"*:*\")"),
        (true, "network-inbound", "(local ip \"*:*\")"),
        (true, "network-outbound", "(subpath \"/opt/homebrew\")"),
        (
            true,
            "network-outbound",
            "(literal \"/private/var/run/mDNSResponder\")",
        ),
        (true, "mach-lookup", "com.apple.dnssd.service"),
        (
            true,
            "network-outbound",
            "(require-not (subpath \"/Users/u/proj/.env\"))",
        ),
        (
            false,
            "network-outbound",
            "(subpath \"/Users/u/proj/.env\")",
        ),
        (false, "network-outbound", "(literal \"/private/tmp/keys\")"),
    ] {
        let what = if allow { "allow" } else { "deny" };
        assert!(has(allow, op, needle), "no ({what} {op} … {needle} …)");
    }
    // Never the whole network when the fs is restricted: the sockets are filtered.
    assert!(!rules.iter().any(|r| r.ops.iter().any(|o| o == "network*")));
    // A tag that cannot be spelled refuses the render.
    let bad = render_tagged(&proj, "", "/usr/local/bin/ralc", "a\"b");
    assert!(bad.text.is_empty() && bad.refused.iter().any(|r| r.contains("denial tag")));
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

/// Every standard profile, by its file in `std-profiles/`.
fn std_profiles() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../std-profiles");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".ral").map(|s| format!("std:{s}"))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    names
}

/// Issue #33, item 1: each rule an ordinary program needs is in the profile, with its
/// narrow filter.
fn holds_the_everyday_rules(name: &str, text: &str, rules: &[sbpl::Rule]) {
    let has = |allow: bool, op: &str, needle: &str| has(rules, allow, op, needle);
    let fs_restricted = !has(true, "file-read*", "");
    for (op, needle) in [
        ("file-read*", "(subpath \"/dev/fd\")"),
        ("file-write-data", "(subpath \"/dev/fd\")"),
        ("file-write-data", "(literal \"/dev/stdout\")"),
        ("file-write-data", "(literal \"/dev/stderr\")"),
        ("pseudo-tty", ""),
        ("file-read*", "(literal \"/dev/ptmx\")"),
        ("file-write*", "(literal \"/dev/ptmx\")"),
        ("file-write*", "(extension \"com.apple.sandbox.pty\")"),
        ("file-write*", "#\"^/dev/ttys[0-9]+$\""),
        ("user-preference-read", ""),
        ("mach-lookup", "com.apple.cfprefsd.agent"),
        ("mach-host*", ""),
        ("process-info-listpids", ""),
        ("sysctl-read", "(sysctl-name \"hw.ncpu\")"),
        ("sysctl-read", "(sysctl-name-prefix \"hw.optional.\")"),
        ("sysctl-read", "(sysctl-name \"kern.osproductversion\")"),
    ] {
        assert!(has(true, op, needle), "{name}: no (allow {op} {needle})");
    }
    // Named sysctls only: never a blanket read, never a write.
    assert!(
        !has(true, "sysctl-read", ""),
        "{name}: a blanket sysctl-read"
    );
    // The ttys only with the pty extension: no rule names them otherwise.
    for r in rules.iter().filter(|r| r.allow) {
        for f in &r.filters {
            let t = f.to_string();
            if t.contains("/dev/ttys") {
                assert!(t.contains("com.apple.sandbox.pty"), "{name}: {t}");
            }
        }
    }
    if fs_restricted {
        // What may be read may be mapped executable: the system's library dirs and the
        // developer tools among them.
        for p in ralc::render::macos::SYSTEM_READ {
            let needle = format!("(subpath \"{p}\")");
            assert!(
                rules.iter().any(|r| r.allow
                    && r.ops.iter().any(|o| o == "file-read*")
                    && r.ops.iter().any(|o| o == "file-map-executable")
                    && r.filters.iter().any(|f| f.to_string().contains(&needle))),
                "{name}: {p} is not readable and mappable"
            );
        }
        // Every allowed read is also mappable: no read rule of the fs allows without it.
        let fs_allows = text
            .split("\n;; fs allows\n")
            .nth(1)
            .and_then(|t| t.split("\n;; net\n").next())
            .unwrap_or_default();
        let fs_rules = sbpl::rules(&format!(
            "(version 1)(deny default (with message \"ralc\")){fs_allows}"
        ))
        .unwrap();
        for r in fs_rules
            .iter()
            .filter(|r| r.allow && r.ops.iter().any(|o| o == "file-read*"))
        {
            let dev_cache = r
                .filters
                .iter()
                .all(|f| f.to_string().contains("/var/folders/"));
            assert!(
                dev_cache || r.ops.iter().any(|o| o == "file-map-executable"),
                "{name}: a read rule without file-map-executable: {:?}",
                r.filters
            );
        }
        // The developer tools' own caches are writable.
        assert!(
            has(
                true,
                "file-write*",
                "C/(com\\.apple\\.DeveloperTools|clang|xcrun_db)"
            ),
            "{name}"
        );
        // The network is never granted whole: unix sockets follow the fs.
        assert!(!has(true, "network*", ""), "{name}: unfiltered network*");
        // Every exclusion's unix sockets are denied, as its files are.
        for r in rules
            .iter()
            .filter(|r| !r.allow && r.ops.iter().any(|o| o == "file-read*"))
        {
            assert!(
                r.ops.iter().any(|o| o == "network-outbound")
                    && r.ops.iter().any(|o| o == "network-bind"),
                "{name}: an exclusion whose sockets stay reachable: {:?}",
                r.filters
            );
        }
    } else {
        assert!(has(true, "file-map-executable", ""), "{name}");
    }
    let offline = !has(true, "mach-lookup", "com.apple.dnssd.service");
    if offline {
        assert!(
            has(true, "network-outbound", "(remote ip \"localhost:*\")"),
            "{name}"
        );
        assert!(
            !has(true, "network-outbound", "(remote ip \"*:*\")"),
            "{name}"
        );
        assert!(text.contains(";; fidelity: offline:"), "{name}");
    }
    assert_eq!(sbpl::denial_tag(rules).unwrap(), "ralc", "{name}");
}

#[test]
fn every_standard_profile_renders_a_profile_ordinary_programs_run_under() {
    for p in std_profiles() {
        let out = ralc_render(&[
            "render",
            "--target",
            "macos",
            "-p",
            &p,
            "--self",
            "/usr/local/bin/ralc",
        ]);
        assert_eq!(out.status.code(), Some(0), "{p}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let rules = shape(&p, &text);
        holds_the_everyday_rules(&p, &text, &rules);
    }
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
                    read, write, floor: vec![], deny, write_deny, links: vec![],
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
                prop_assert_eq!(sbpl::denial_tag(&rules).map_err(TestCaseError::fail)?, "ralc");
                if let Some(fs) = &p.fs {
                    for d in &fs.deny {
                        let canon = ralc::render::macos::canonical(d);
                        // Its files and its unix sockets.
                        let denied = rules.iter().any(|r| !r.allow
                            && r.ops.iter().any(|o| o == "file-read*")
                            && r.ops.iter().any(|o| o == "network-outbound")
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
