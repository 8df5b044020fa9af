//! Unit tests of the judgments on hand-built layers (the data-driven suite through the
//! pipeline is `tests/tests/judgments.rs`).

use super::fs::FsScope;
use super::projection::{ExecProjection, SandboxProjection};
use super::stack::{ExecDenial, Flag, GrantStack};
use super::table::Withheld;
use super::testkit::*;
use crate::capability::vocab::EditorVerb;
use crate::path::frozen::RealPath;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn host() -> FakeHost {
    FakeHost::new()
        .on_path("git", "/usr/bin/git")
        .on_path("sh", "/bin/sh")
        .on_path("dash", "/bin/dash")
        .link("/bin/sh", "/bin/dash")
}

#[test]
fn no_opinion_is_unrestricted() {
    let s = GrantStack::new(vec![L::new("a").done()]);
    let h = host();
    assert!(s.read("/etc/passwd", &h).unwrap().unrestricted());
    assert!(s.write("/etc/passwd", &h).unwrap().unrestricted());
    assert!(s.admit("git", &args(&["status"]), &h).is_ok());
    assert!(!s.is_restrictive());
}

#[test]
fn exclusion_beats_allowance_at_any_depth() {
    let s = GrantStack::new(vec![L::new("a")
        .read("/home/u")
        .deny("/home/u/.ssh")
        .read("/home/u/.ssh/config")
        .done()]);
    let h = host();
    assert!(s.read("/home/u/x", &h).is_ok());
    match s.read("/home/u/.ssh/config", &h) {
        Err(Withheld::Excluded { scope, by }) => {
            assert_eq!(scope, FsScope::Prefix(fp("/home/u/.ssh")));
            assert_eq!(&*by.origin.written, "/home/u/.ssh");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deny_under_another_spelling() {
    let s = GrantStack::new(vec![L::new("a")
        .read("/home/u")
        .deny("/home/u/.SSH")
        .done()]);
    assert!(matches!(
        s.read("/home/u/.ssh/id", &host()),
        Err(Withheld::Excluded { .. })
    ));
}

#[test]
fn writing_reads_and_write_needs_write() {
    let s = GrantStack::new(vec![L::new("a").read("/etc").write("/work").done()]);
    let h = host();
    assert!(s.read("/work/src/main.rs", &h).is_ok());
    assert!(s.write("/work/src/main.rs", &h).is_ok());
    assert!(matches!(
        s.write("/etc/hosts", &h),
        Err(Withheld::MissingAllowance { layer: 0 })
    ));
    assert!(s.write("/dev/null", &h).is_ok());
    assert!(s.write("relative/file", &h).is_ok());
}

#[test]
fn exec_most_specific_wins() {
    let s = GrantStack::new(vec![L::new("a")
        .dir("/usr", allow())
        .dir("/usr/bin", deny())
        .file("/usr/bin/git", allow())
        .done()]);
    let h = host();
    assert!(s.admit("/usr/bin/git", &[], &h).is_ok());
    assert!(s.admit("git", &[], &h).is_ok());
    let r = s.admit("/usr/bin/ls", &[], &h).unwrap_err();
    assert_eq!(r.why.reason(), "excluded");
    assert!(s.admit("/usr/lib/x", &[], &h).is_ok());
    let r = s.admit("/opt/x", &[], &h).unwrap_err();
    assert_eq!(r.why.reason(), "missing-allowance");
}

#[test]
fn veto_by_name_through_any_directory_and_real_file() {
    let s = GrantStack::new(vec![L::new("a")
        .dir("/", allow())
        .name("dash", deny())
        .name("BASH", deny())
        .done()]);
    let h = host();
    // sh is a link to dash: vetoed by its real file's name
    assert_eq!(s.admit("sh", &[], &h).unwrap_err().why.reason(), "excluded");
    assert_eq!(
        s.admit("/opt/x/bash", &[], &h).unwrap_err().why.reason(),
        "excluded"
    );
    assert!(s.admit("/usr/bin/git", &[], &h).is_ok());
}

#[test]
fn subcommand_lists_meet_by_intersection() {
    let a = L::new("a")
        .name("git", subs(&["status", "log", "diff"]))
        .done();
    let b = L::new("b")
        .name("git", subs(&["status", "diff", "push"]))
        .done();
    let s = GrantStack::new(vec![a, b]);
    let h = host();
    assert!(s.admit("git", &args(&["status"]), &h).is_ok());
    for bad in [&["log"][..], &["push"][..], &[][..]] {
        let r = s.admit("git", &args(bad), &h).unwrap_err();
        assert_eq!(r.why.reason(), "subcommand", "{bad:?}");
    }
}

#[test]
fn subcommand_outside_list_not_readmitted_by_dir() {
    let s = GrantStack::new(vec![L::new("a")
        .dir("/usr/bin", allow())
        .file("/usr/bin/git", subs(&["status"]))
        .done()]);
    let r = s.admit("git", &args(&["push"]), &host()).unwrap_err();
    assert_eq!(r.why.reason(), "subcommand");
}

#[test]
fn innocent_layers_meet_to_nothing() {
    let a = L::new("a").read("/home/u/a").done();
    let b = L::new("b").read("/home/u/b").done();
    let s = GrantStack::new(vec![a, b]);
    let h = host();
    assert!(matches!(
        s.read("/home/u/a/x", &h),
        Err(Withheld::MissingAllowance { layer: 1 })
    ));
    assert!(matches!(
        s.read("/home/u/b/x", &h),
        Err(Withheld::MissingAllowance { layer: 0 })
    ));
}

#[test]
fn run_but_not_read() {
    // the fs layer sits below the exec layer: its read region has no run places of it
    let s = GrantStack::new(vec![
        L::new("b").read("/etc").done(),
        L::new("a").file("/opt/tool/bin/t", allow()).done(),
    ]);
    let r = s.admit("/opt/tool/bin/t", &[], &host()).unwrap_err();
    assert!(matches!(r.why, ExecDenial::Read(_)));
    assert_eq!(r.why.reason(), "unreadable");
    // in the same layer, the run place is readable
    let s = GrantStack::new(vec![L::new("a")
        .file("/opt/tool/bin/t", allow())
        .read("/etc")
        .done()]);
    let a = s.admit("/opt/tool/bin/t", &args(&["x"]), &host()).unwrap();
    assert_eq!(a.program_real().as_str(), "/opt/tool/bin/t");
    assert_eq!(a.argv0(), "/opt/tool/bin/t");
    assert_eq!(a.args(), &args(&["x"])[..]);
}

#[test]
fn strongest_reason_across_layers() {
    let a = L::new("a").dir("/usr/bin", deny()).done();
    let b = L::new("b").exec_empty().done();
    let s = GrantStack::new(vec![b, a]);
    let r = s.admit("/usr/bin/git", &[], &host()).unwrap_err();
    assert_eq!(r.why.reason(), "excluded");
}

#[test]
fn floor_is_readable() {
    let s = GrantStack::new(vec![L::new("a").read("/etc").done()])
        .with_floor(vec![RealPath::from_resolved("/nix")]);
    assert!(s.read("/nix/store/x", &host()).is_ok());
    assert!(s.write("/nix/store/x", &host()).is_err());
}

#[test]
fn compose_with_floor_is_compose_then_floor() {
    let layers = || {
        (
            vec![L::new("p").read("/etc").write("/work").done()],
            vec![L::new("e").read("/opt/sdk").done()],
            vec![L::new("r").write("/work/out").done()],
        )
    };
    let floor = vec![RealPath::from_resolved("/nix")];
    let (b, e, r) = layers();
    let once = GrantStack::compose_with_floor(b, e, r, floor.clone());
    let (b, e, r) = layers();
    let twice = GrantStack::compose(b, e, r).with_floor(floor);
    let h = host();
    for p in [
        "/nix/store/x",
        "/etc/passwd",
        "/opt/sdk/lib",
        "/work/out/a",
        "/work/b",
        "/x",
    ] {
        assert_eq!(
            once.read(p, &h).is_ok(),
            twice.read(p, &h).is_ok(),
            "read {p}"
        );
        assert_eq!(
            once.write(p, &h).is_ok(),
            twice.write(p, &h).is_ok(),
            "write {p}"
        );
    }
    assert_eq!(once.floor(), twice.floor());
}

#[test]
fn first_origins_are_each_layers_least_entry() {
    let a = L::new("a")
        .read("/etc")
        .write("/work")
        .dir("/usr/bin", allow())
        .done();
    let b = L::new("b").done();
    let s = GrantStack::new(vec![a.clone(), b]);
    let fs = a.fs.as_ref().unwrap();
    let least_fs = fs.read.iter().chain(&fs.write).map(|e| &e.origin).min();
    let least_exec = a
        .exec
        .as_ref()
        .unwrap()
        .rules()
        .iter()
        .map(|r| &r.origin)
        .min();
    assert_eq!(s.first_fs_origin(0), least_fs);
    assert_eq!(s.first_exec_origin(0), least_exec);
    assert!(s.first_fs_origin(0).is_some() && s.first_exec_origin(0).is_some());
    assert_eq!(s.first_fs_origin(1), None);
    assert_eq!(s.first_exec_origin(1), None);
    assert_eq!(s.first_fs_origin(2), None);
}

#[test]
fn restrict_protects_itself() {
    let mut r = L::new("r.ral").done();
    r.source.path = Some(fp("/work/r.ral"));
    let base = L::new("p").write("/work").done();
    let s = GrantStack::compose(vec![base], vec![], vec![r]);
    let h = host();
    assert!(s.read("/work/r.ral", &h).is_ok());
    assert!(matches!(
        s.write("/work/r.ral", &h),
        Err(Withheld::Excluded { .. })
    ));
    assert!(s.write("/work/other", &h).is_ok());
    assert!(s.is_restrictive());
}

#[test]
fn extend_adds_only_what_it_names() {
    let base = L::new("p").read("/etc").dir("/usr/bin", allow()).done();
    let frag = L::new("e").read("/opt/sdk").done();
    let s = GrantStack::compose(vec![base], vec![frag], vec![]);
    let h = host();
    assert!(s.read("/opt/sdk/lib", &h).is_ok());
    assert!(s.read("/etc/x", &h).is_ok());
    assert!(s.admit("/usr/bin/ls", &[], &h).is_ok()); // /usr/bin is a run place
    assert!(s.admit("/opt/sdk/bin/x", &[], &h).is_err()); // the fragment adds no exec
    assert!(s.write("/opt/sdk/x", &h).is_err());
}

#[test]
fn flags() {
    let s = GrantStack::new(vec![
        L::new("a")
            .offline()
            .detach(true)
            .editor(&[EditorVerb::Read])
            .done(),
        L::new("b").detach(false).done(),
    ]);
    assert!(s.permits(Flag::Net).is_err());
    assert!(s.permits(Flag::Detach).is_err());
    assert!(s.permits(Flag::Editor(EditorVerb::Read)).is_ok());
    assert!(matches!(
        s.permits(Flag::Editor(EditorVerb::Write)),
        Err(Withheld::MissingAllowance { layer: 0 })
    ));
    assert!(s.is_restrictive());
    assert_eq!(
        Flag::parse("editor.tui"),
        Some(Flag::Editor(EditorVerb::Tui))
    );
    assert_eq!(Flag::parse("editor.x"), None);
}

#[test]
fn carriers_of_allowed_files_reach_the_kernel_unless_a_file_or_name_excludes_them() {
    let a = L::new("a")
        .file("/work/build.sh", allow())
        .file("/work/tool.py", allow())
        .file("/work/vetoed.sh", allow())
        .dir("/opt", deny())
        .name("zsh", deny())
        .read("/work")
        .read("/usr")
        .done();
    let s = GrantStack::new(vec![a]);
    let h = host()
        .script("/work/build.sh", &["/usr/bin/dash"])
        .script("/work/tool.py", &["/usr/bin/env"])
        .script("/work/vetoed.sh", &["/usr/bin/zsh", "/usr/bin/dash"])
        .script("/opt/in-denied-dir", &["/opt/interp"]);
    let admitted = s.admit("/work/build.sh", &[], &h).unwrap();
    let p = SandboxProjection::of(&s, &h, Some(&admitted));
    match p.exec {
        ExecProjection::Restricted(k) => {
            // A carrier outranks a directory's evidence, not a name veto (zsh, and what
            // would have run after it).
            assert_eq!(k.carriers, vec!["/usr/bin/dash", "/usr/bin/env"]);
        }
        other => panic!("{other:?}"),
    }
    // A binary has none.
    let b = GrantStack::new(vec![L::new("b").file("/usr/bin/cat", allow()).done()]);
    match SandboxProjection::of(&b, &h, None).exec {
        ExecProjection::Restricted(k) => assert!(k.carriers.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn projection_folds_the_stack() {
    let a = L::new("a")
        .read("/usr")
        .write("/work")
        .deny("/work/.git/hooks")
        .dir("/usr/bin", allow())
        .name("sh", deny())
        .done();
    let b = L::new("b").read("/usr/lib").write("/work").done();
    let s = GrantStack::new(vec![a, b]);
    let h = host();
    let admitted = s.admit("/usr/bin/cat", &[], &h).unwrap();
    let p = SandboxProjection::of(&s, &h, Some(&admitted));
    let fs = p.fs.unwrap();
    assert_eq!(fs.read, vec!["/dev/null", "/usr/bin", "/usr/lib", "/work"]);
    assert_eq!(fs.write, vec!["/dev/null", "/work"]);
    assert_eq!(fs.deny, vec!["/work/.git/hooks"]);
    match p.exec {
        ExecProjection::Restricted(k) => {
            assert_eq!(k.allow_dirs, vec!["/usr/bin"]);
            assert_eq!(k.deny_names, vec!["sh"]);
            assert_eq!(k.allow_files, vec!["/usr/bin/cat"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_vouched_link_in_an_allowed_directory_admits_its_target_and_the_kernel_agrees() {
    let a = L::new("a")
        .dir("/usr/bin", allow())
        .dir("/usr/lib/jvm/bad", deny())
        .name("vetoed", deny())
        .read("/usr")
        .read("/work")
        .done();
    let s = GrantStack::new(vec![a]);
    let h = host()
        .vouched_link("/usr/bin/java", "/usr/lib/jvm/j17/bin/java")
        .vouched_link("/usr/bin/bad", "/usr/lib/jvm/bad/bin/bad")
        .vouched_link("/usr/bin/vetoed", "/usr/lib/jvm/j17/bin/vetoed")
        // Not vouched (planted): a plain link.
        .link("/usr/bin/planted", "/usr/lib/jvm/j17/bin/planted")
        .on_path("java", "/usr/bin/java");
    // Found on PATH or named by its link: admitted through the link, citing the entry.
    for p in ["java", "/usr/bin/java"] {
        let ad = s.admit(p, &[], &h).unwrap();
        assert_eq!(ad.program_real().as_str(), "/usr/lib/jvm/j17/bin/java");
        assert_eq!(ad.through().len(), 1);
        assert_eq!(ad.run_granted().decided_by.len(), 1);
    }
    // `ralc why` names the link and the entry.
    let ad = s.admit("java", &[], &h);
    let d = crate::guard::exec(&s, "java", &[], &ad);
    assert!(
        d.message.contains("through the vouched link /usr/bin/java")
            && d.message.contains("(runs /usr/lib/jvm/j17/bin/java)")
            && d.decided_by.len() == 2,
        "{d:?}"
    );
    // The target named directly is not (no link on the way).
    assert!(s.admit("/usr/lib/jvm/j17/bin/java", &[], &h).is_err());
    // Exclusions still judge the target: a denied directory, a name veto.
    let r = s.admit("/usr/bin/bad", &[], &h).unwrap_err();
    assert_eq!(r.why.reason(), "excluded");
    let r = s.admit("/usr/bin/vetoed", &[], &h).unwrap_err();
    assert_eq!(r.why.reason(), "excluded");
    // A link no one vouches for admits nothing.
    let r = s.admit("/usr/bin/planted", &[], &h).unwrap_err();
    assert_eq!(r.why.reason(), "missing-allowance");
    // The kernel admits exactly the targets the guard admits through a link.
    match SandboxProjection::of(&s, &h, None).exec {
        ExecProjection::Restricted(k) => {
            assert_eq!(k.link_targets, vec!["/usr/lib/jvm/j17/bin/java"]);
        }
        other => panic!("{other:?}"),
    }
    // A target within a write prefix (a file the confined programs may rewrite) is never
    // admitted through a link, and the kernel lists none then.
    let w = GrantStack::new(vec![L::new("w")
        .dir("/usr/bin", allow())
        .read("/usr")
        .write("/work")
        .done()]);
    let hw = host().vouched_link("/usr/bin/mine", "/work/tool");
    let r = w.admit("/usr/bin/mine", &[], &hw).unwrap_err();
    assert_eq!(r.why.reason(), "missing-allowance");
    match SandboxProjection::of(&w, &hw, None).exec {
        ExecProjection::Restricted(k) => assert!(k.link_targets.is_empty()),
        other => panic!("{other:?}"),
    }
    // A layer that does not allow the link's directory is not moved by it.
    let b = L::new("b").dir("/opt", allow()).done();
    let s2 = GrantStack::new(vec![
        L::new("a").dir("/usr/bin", allow()).read("/usr").done(),
        b,
    ]);
    assert!(s2.admit("/usr/bin/java", &[], &h).is_err());
    match SandboxProjection::of(&s2, &h, None).exec {
        ExecProjection::Restricted(k) => assert!(k.link_targets.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn projection_withholds_every_existing_spelling_of_an_exclusion() {
    let a = L::new("a")
        .write("/work")
        .deny("/work/SECRET.TXT")
        .deny("/work/Dir/k.env")
        .done();
    let s = GrantStack::new(vec![a]);
    let nfd = "cafe\u{301}";
    let h = host()
        .lists("/", &["work", "usr"])
        .lists(
            "/work",
            &[
                "secret.txt",
                "Secret.Txt",
                "other",
                "dir",
                "DIR",
                nfd,
                "stra\u{df}e",
            ],
        )
        .lists("/work/dir", &["\u{212a}.env", "k.env2"])
        .lists("/work/DIR", &["K.ENV"]);
    let p = SandboxProjection::of(&s, &h, None);
    let fs = p.fs.unwrap();
    assert_eq!(
        fs.deny,
        vec![
            "/work/DIR/K.ENV",
            "/work/Dir/k.env",
            "/work/SECRET.TXT",
            "/work/Secret.Txt",
            "/work/dir/\u{212a}.env",
            "/work/secret.txt",
        ]
    );
    // NFC against NFD, and ß against ss.
    let b = L::new("b")
        .write("/work")
        .deny("/work/caf\u{e9}")
        .deny("/work/STRASSE")
        .done();
    let fs = SandboxProjection::of(&GrantStack::new(vec![b]), &h, None)
        .fs
        .unwrap();
    assert!(fs.deny.contains(&format!("/work/{nfd}")), "{:?}", fs.deny);
    assert!(
        fs.deny.contains(&"/work/stra\u{df}e".to_string()),
        "{:?}",
        fs.deny
    );
}

#[test]
fn a_bare_name_is_a_run_place_like_a_path() {
    // the name lands on /opt/t/bin/tool on PATH: that file reads, in the judgment and in
    // the projection every kernel plan is rendered from; its neighbour does not
    let h = FakeHost::new().on_path("tool", "/opt/t/bin/tool");
    let s = GrantStack::new(vec![L::new("a").name("tool", allow()).read("/etc").done()]);
    let a = s.admit("tool", &[], &h).unwrap();
    assert_eq!(a.program_real().as_str(), "/opt/t/bin/tool");
    assert!(s.read("/opt/t/bin/tool", &h).is_ok());
    assert!(s.read("/opt/t/bin/other", &h).is_err());
    let p = SandboxProjection::of(&s, &h, Some(&a));
    let fs = p.fs.unwrap();
    assert!(fs.read.contains(&"/opt/t/bin/tool".to_string()), "{fs:?}");
    assert!(!fs.read.iter().any(|x| x == "/opt/t/bin"), "{fs:?}");
    // a layer below the name's has no such place, as with a path allowance
    let s = GrantStack::new(vec![
        L::new("b").read("/etc").done(),
        L::new("a").name("tool", allow()).done(),
    ]);
    assert_eq!(
        s.admit("tool", &[], &h).unwrap_err().why.reason(),
        "unreadable"
    );
    assert!(!SandboxProjection::of(&s, &h, None)
        .fs
        .unwrap()
        .read
        .contains(&"/opt/t/bin/tool".to_string()));
    // an exclusion beats the place
    let s = GrantStack::new(vec![L::new("a")
        .name("tool", allow())
        .read("/etc")
        .deny("/opt/t/bin/tool")
        .done()]);
    assert_eq!(
        s.admit("tool", &[], &h).unwrap_err().why.reason(),
        "unreadable"
    );
}
