//! `ralc diff` on the cases in `tests/diff/` (see its README): the binary's JSON report
//! must hold exactly the expected changes and verdict, its exit code must follow the
//! verdict (0 same/narrows, 1 widens), and a broken side or a bad layer role exits 2.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc_tests::bin::{run_ralc, workspace_root};
use std::path::{Path, PathBuf};

/// `ralc diff ARGS --format FORMAT` in `dir`: exit code and stdout.
pub fn diff(dir: &Path, args: &[String], format: &str) -> (i32, String) {
    let mut all = vec!["diff"];
    all.extend(args.iter().map(String::as_str));
    all.extend([
        "--format",
        format,
        "--home",
        "/home/dev",
        "--cwd",
        "/home/dev/project",
    ]);
    let (code, stdout, _) = run_ralc(dir, &all);
    (code.unwrap_or(-1), stdout)
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("tests/diff"))
        .expect("tests/diff")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn args_of(case: &Path) -> Vec<String> {
    std::fs::read_to_string(case.join("args"))
        .expect("args")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_case_reports_exactly_its_changes() {
    let cases = cases();
    assert!(cases.len() >= 7, "{cases:?}");
    let mut failures = Vec::new();
    for case in &cases {
        let expect = std::fs::read_to_string(case.join("expect")).expect("expect");
        let mut lines = expect.lines().filter(|l| !l.is_empty());
        let want_verdict = lines
            .next()
            .and_then(|l| l.strip_prefix("verdict: "))
            .expect("a verdict line")
            .to_string();
        let mut want: Vec<String> = lines.map(str::to_string).collect();
        want.sort();
        let (code, out) = diff(case, &args_of(case), "json");
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {out}", case.display()));
        let mut got: Vec<String> = v["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} @ {}",
                    c["direction"].as_str().unwrap_or("?"),
                    c["axis"].as_str().unwrap_or("?"),
                    c["subject"].as_str().unwrap_or("?"),
                    c["entry"].as_str().unwrap_or("(none)")
                )
            })
            .collect();
        got.sort();
        let verdict = v["verdict"].as_str().unwrap_or("?");
        let want_code = if matches!(want_verdict.as_str(), "widens" | "incomparable") {
            1
        } else {
            0
        };
        if got != want || verdict != want_verdict || code != want_code {
            failures.push(format!(
                "{}: verdict {verdict} (want {want_verdict}), exit {code} (want {want_code})\n got  {got:#?}\n want {want:#?}",
                case.display()
            ));
        }
        // every change names the entry's file, line and column
        for c in v["changes"].as_array().into_iter().flatten() {
            assert!(
                c["file"].is_string()
                    && c["line"].as_u64().is_some()
                    && c["column"].as_u64().is_some(),
                "{}: {c}",
                case.display()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_broken_side_or_a_bad_role_exits_2() {
    let dir = tempfile::tempdir().expect("scratch");
    std::fs::write(dir.path().join("ok.ral"), "[net: `offline]\n").expect("write");
    std::fs::write(dir.path().join("bad.ral"), "[net: \n").expect("write");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(diff(dir.path(), &s(&["ok.ral", "bad.ral"]), "human").0, 2);
    assert_eq!(diff(dir.path(), &s(&["ok.ral"]), "human").0, 2);
    assert_eq!(
        diff(
            dir.path(),
            &s(&["--old", "-x", "ok.ral", "--new", "-p", "ok.ral"]),
            "human"
        )
        .0,
        2
    );
    let (code, out) = diff(dir.path(), &s(&["ok.ral", "ok.ral"]), "human");
    assert_eq!(
        (code, out.trim_end()),
        (0, "verdict: same (0 widening, 0 narrowing)")
    );
}

/// The exec entries the property test draws from, by key (a profile takes at most one
/// of each): installed tools and absent ones, name vetoes, subcommand lists, selectors
/// that resolve and one that may not, directories, files.
const POOL: &[&[&str]] = &[
    &["'system:': 'allow'"],
    &["bash: 'deny'", "bash: 'allow'"],
    &["curl: 'deny'"],
    &[
        "git: ['status']",
        "git: ['status', 'push']",
        "git: 'allow'",
        "git: 'deny'",
    ],
    &["'evil-tool': 'allow'", "'evil-tool': 'deny'"],
    &["'cargo:': 'allow'"],
    &["'/usr/local/bin/': 'allow'"],
    &["'/usr/bin/env': 'deny'"],
    &["'cwd:/': 'allow'"],
    &[
        "'/usr/bin/bash': 'deny'",
        "'bash ': 'deny'",
        "'BASH': 'deny'",
    ],
];

fn profile() -> impl proptest::strategy::Strategy<Value = Vec<&'static str>> {
    use proptest::prelude::*;
    POOL.iter()
        .map(|g| proptest::option::of(proptest::sample::select(g.to_vec())))
        .collect::<Vec<_>>()
        .prop_map(|v| v.into_iter().flatten().collect())
}

/// The questions asked of both sides: the pool's subjects and a sample outside them.
const QUESTIONS: &[&str] = &[
    "exec bash",
    "exec /usr/bin/bash",
    "exec curl",
    "exec git",
    "exec git status",
    "exec git push",
    "exec git log",
    "exec evil-tool",
    "exec /usr/bin/env",
    "exec ls",
    "exec /usr/local/bin/x",
    "exec /opt/x",
    // outside PATH: judged by name vetoes and the run place, never by a resolution
    "exec ./tools/bash",
    "exec ./tools/curl",
    "exec ./tools/zz-tool",
];

fn verdicts(dir: &Path, file: &str) -> Vec<String> {
    std::fs::write(dir.join("q"), QUESTIONS.join("\n")).expect("write");
    let (code, out, err) = run_ralc(
        dir,
        &[
            "why",
            "-p",
            file,
            "--batch",
            "q",
            "--home",
            "/home/dev",
            "--cwd",
            "/home/dev/project",
        ],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["verdict"].as_str().expect("verdict").to_string()
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]
    /// `diff` says `same` only when `why` agrees on every question over both profiles'
    /// entries and a sample outside them (and, where it says `same`, so does the text:
    /// a difference the host cannot show is reported as written).
    #[test]
    fn diff_says_same_only_when_why_agrees(
        a in profile(),
        b in profile(),
    ) {
        let dir = tempfile::tempdir().expect("scratch");
        let write = |name: &str, entries: &[&str]| {
            std::fs::write(dir.path().join(name), format!("[exec: [{}]]\n", entries.join(", ")))
                .expect("write");
        };
        write("a.ral", &a);
        write("b.ral", &b);
        let (code, out) = diff(dir.path(), &["a.ral".into(), "b.ral".into()], "json");
        proptest::prop_assert!(code == 0 || code == 1, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        if v["verdict"] == "same" {
            proptest::prop_assert_eq!(
                verdicts(dir.path(), "a.ral"),
                verdicts(dir.path(), "b.ral"),
                "diff said same: {:?} vs {:?}", a, b
            );
        }
        // the converse where it can be told: a verdict that differs is never `same`
        if verdicts(dir.path(), "a.ral") != verdicts(dir.path(), "b.ral") {
            proptest::prop_assert_ne!(&v["verdict"], "same");
        }
    }
}

/// a13/a14: a name veto speaks to every program invoked by that name, wherever it lies
/// (`./tools/bash` as much as `/usr/bin/bash`); removing it, renaming it or replacing it
/// by a path veto widens, whatever `PATH` resolves the name to on this runner.
#[test]
fn a_name_veto_removed_renamed_or_replaced_by_a_path_veto_widens() {
    let old = "[exec: ['cwd:/': 'allow', bash: 'deny'], fs: [read: ['/usr']]]\n";
    let news = [
        "[exec: ['cwd:/': 'allow', '/usr/bin/bash': 'deny'], fs: [read: ['/usr']]]\n",
        "[exec: ['cwd:/': 'allow', 'bash ': 'deny'], fs: [read: ['/usr']]]\n",
        "[exec: ['cwd:/': 'allow'], fs: [read: ['/usr']]]\n",
        "[exec: ['cwd:/': 'allow', 'bashh': 'deny'], fs: [read: ['/usr']]]\n",
    ];
    for new in news {
        let dir = tempfile::tempdir().expect("scratch");
        std::fs::create_dir(dir.path().join("tools")).expect("mkdir");
        std::fs::write(dir.path().join("tools/bash"), "#!/bin/sh\n").expect("write");
        std::fs::write(dir.path().join("old.ral"), old).expect("write");
        std::fs::write(dir.path().join("new.ral"), new).expect("write");
        let (code, out) = diff(dir.path(), &["old.ral".into(), "new.ral".into()], "human");
        // the model agrees that it widens: `why` moves from withheld to granted
        let why = |f: &str| run_ralc(dir.path(), &["why", "-p", f, "exec", "./tools/bash"]).0;
        assert_eq!(
            (why("old.ral"), why("new.ral")),
            (Some(1), Some(0)),
            "{new}"
        );
        assert_eq!(code, 1, "{new}: {out}");
        assert!(
            out.contains("+ exec     (every program invoked as 'bash')"),
            "{new}: {out}"
        );
    }
    // the same veto spelled otherwise (an escape, a case fold) is no change
    for same in [
        "[exec: ['cwd:/': 'allow', \"ba\\u{73}h\": 'deny'], fs: [read: ['/usr']]]\n",
        "[exec: ['cwd:/': 'allow', 'BASH': 'deny'], fs: [read: ['/usr']]]\n",
    ] {
        let dir = tempfile::tempdir().expect("scratch");
        std::fs::write(dir.path().join("old.ral"), old).expect("write");
        std::fs::write(dir.path().join("new.ral"), same).expect("write");
        let (code, out) = diff(dir.path(), &["old.ral".into(), "new.ral".into()], "human");
        assert_eq!(
            (code, out.trim_end()),
            (0, "verdict: same (0 widening, 0 narrowing)"),
            "{same}"
        );
    }
}
