//! The CI wiring people copy, run as it runs: `scripts/review-profiles` (the command
//! `action.yml` runs) on a real git history where a profile change introduces a deputy
//! prefix and widens exec, and every hook of `.pre-commit-hooks.yaml` on the code-review
//! example's profiles (and the `fmt --check` hook on a profile out of layout). The action's install step (`cargo install`) is not re-run here:
//! the test runs the binary this build made.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use ralc_tests::bin::{ralc_bin, workspace_root};
use std::path::Path;
use std::process::{Command, Output};

fn run(program: &Path, args: &[&str], dir: &Path, env: &[(&str, String)]) -> Output {
    #[allow(
        clippy::disallowed_methods,
        reason = "test: runs git, the review script and the hooks' commands"
    )]
    let mut c = Command::new(program);
    c.args(args).current_dir(dir).env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the command runs")
}

fn git(dir: &Path, args: &[&str]) {
    let mut all = vec![
        "-c",
        "user.name=ralc test",
        "-c",
        "user.email=test@ralc.invalid",
    ];
    all.extend(args);
    let o = run(Path::new("git"), &all, dir, &[]);
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_actions_review_annotates_a_widening_change() {
    let action = std::fs::read_to_string(workspace_root().join("action.yml")).expect("action.yml");
    assert!(action.contains("\"$GITHUB_ACTION_PATH/scripts/review-profiles\" \"$BASE\""));
    let dir = tempfile::tempdir().expect("scratch");
    let w = dir.path();
    git(w, &["init", "-q"]);
    std::fs::create_dir_all(w.join("profiles")).expect("mkdir");
    let example = workspace_root().join("examples/code-review");
    std::fs::copy(example.join("before.ral"), w.join("profiles/p.ral")).expect("copy");
    git(w, &["add", "."]);
    git(w, &["commit", "-qm", "base"]);
    std::fs::copy(example.join("after.ral"), w.join("profiles/p.ral")).expect("copy");
    git(w, &["commit", "-qam", "let the scripts run"]);
    let script = workspace_root().join("scripts/review-profiles");
    let env = |fail: &str| {
        vec![
            ("RALC", ralc_bin().display().to_string()),
            (
                "RALC_ARGS",
                "--home /home/dev --cwd /home/dev/project".to_string(),
            ),
            ("RALC_FAIL_ON_WIDEN", fail.to_string()),
        ]
    };
    let o = run(&script, &["HEAD~1"], w, &env("0"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // deputy: the new exec entry makes a writable directory runnable
    assert!(
        out.contains("::warning file=profiles/p.ral,line=7,col=13::deputy-prefix"),
        "{out}"
    );
    // diff: the widening, located at NEW's granting entry (line 4, column 58)
    assert!(
        out.contains(
            "::warning file=profiles/p.ral,line=4,col=58::widens: exec widens: /home/dev/project/scripts/"
        ),
        "{out}"
    );
    let o = run(&script, &["HEAD~1"], w, &env("1"));
    assert_eq!(
        o.status.code(),
        Some(1),
        "RALC_FAIL_ON_WIDEN=1 fails a widening"
    );
    // no change of profiles: nothing to say
    let o = run(&script, &["HEAD"], w, &env("1"));
    assert!(o.status.success());
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn every_pre_commit_hook_runs_and_judges() {
    let hooks =
        std::fs::read_to_string(workspace_root().join(".pre-commit-hooks.yaml")).expect("hooks");
    let entries: Vec<&str> = hooks
        .lines()
        .filter_map(|l| l.trim().strip_prefix("entry: "))
        .collect();
    assert!(entries.len() >= 3, "{entries:?}");
    assert!(entries.contains(&"ralc fmt --check"), "{entries:?}");
    let example = workspace_root().join("examples/code-review");
    let mut failed_after = 0;
    for entry in &entries {
        let mut words = entry.split_whitespace();
        assert_eq!(words.next(), Some("ralc"), "{entry}");
        let mut args: Vec<&str> = words.collect();
        // the commands that freeze a stack take the anchor; `fmt` reads text only
        if args.first() != Some(&"fmt") {
            args.extend(["--home", "/home/dev", "--cwd", "/home/dev/project"]);
        }
        let before = run(
            &ralc_bin(),
            &[args.as_slice(), &["before.ral"]].concat(),
            &example,
            &[],
        );
        assert!(before.status.success(), "{entry} before.ral: {before:?}");
        let after = run(
            &ralc_bin(),
            &[args.as_slice(), &["after.ral"]].concat(),
            &example,
            &[],
        );
        if !after.status.success() {
            failed_after += 1;
        }
    }
    // the deputy hook stops the commit that introduces the deputy prefix
    assert!(failed_after >= 1);
    // the fmt hook stops a profile that is not in the canonical layout, with its diff
    let fmt = entries
        .iter()
        .find(|e| e.starts_with("ralc fmt"))
        .expect("the fmt hook");
    let dir = tempfile::tempdir().expect("scratch");
    let before = std::fs::read_to_string(example.join("before.ral")).expect("before.ral");
    let squeezed = before.replacen("  exec: [", "  exec:   [", 1);
    assert_ne!(squeezed, before);
    std::fs::write(dir.path().join("p.ral"), &squeezed).expect("write");
    let args: Vec<&str> = fmt.split_whitespace().skip(1).chain(["p.ral"]).collect();
    let o = run(&ralc_bin(), &args, dir.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{fmt}: {o:?}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("+++ p.ral (formatted)"),
        "{o:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("p.ral")).expect("read"),
        squeezed,
        "the hook writes nothing"
    );
}
