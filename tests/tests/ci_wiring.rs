//! The CI wiring people copy, run as it runs: `scripts/review-profiles` (the command
//! `action.yml` runs) on a real git history where a profile change introduces a deputy
//! prefix and widens exec, and every hook of `.pre-commit-hooks.yaml` on the code-review
//! example's profiles (and the `fmt --check` hook on a profile out of layout); and the
//! Action's own steps, read from `action.yml` and run as the runner runs them, against a
//! hostile checkout (a `rust-toolchain.toml` naming its own toolchain, a
//! `.cargo/config.toml`, a `.git/config` with `core.fsmonitor`, `core.pager`,
//! `diff.external`, a textconv driver, a credential helper and an `uploadpack`, and every
//! hook) — proving none of the checkout's programs ran. The install step's `cargo` and
//! `rustup` are recording stand-ins (a real install would build for minutes); what they
//! record is its working directory, toolchain and CARGO_HOME, and the real rustup proxy is
//! shown to obey RUSTUP_TOOLCHAIN over the checkout's `rust-toolchain.toml`.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]
// The wiring is shell scripts and git on a Unix runner.
#![cfg(unix)]

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

fn git_out(dir: &Path, args: &[&str]) -> String {
    let o = run(Path::new("git"), args, dir, &[]);
    assert!(o.status.success(), "git {args:?}");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn the_actions_review_annotates_a_widening_change() {
    let action = std::fs::read_to_string(workspace_root().join("action.yml")).expect("action.yml");
    assert!(action.contains("\"$GITHUB_ACTION_PATH/scripts/review-action\""));
    let wrapper = std::fs::read_to_string(workspace_root().join("scripts/review-action"))
        .expect("review-action");
    assert!(wrapper.contains("exec \"$here/review-profiles\" \"$base\""));
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
    // the review forbids deputy-prefix: the change that introduces one fails it
    assert_eq!(
        o.status.code(),
        Some(1),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // deputy: the new exec entry makes a writable directory runnable
    assert!(
        out.contains("::error file=profiles/p.ral,line=7,col=13::deputy-prefix"),
        "{out}"
    );
    // diff: the widening, located at NEW's granting entry (line 4, column 58)
    assert!(
        out.contains(
            "::warning file=profiles/p.ral,line=4,col=58::widens: exec widens: /home/dev/project/scripts/"
        ),
        "{out}"
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

/// One step of `action.yml`'s composite run: its working directory, environment and
/// script, as written (the `${{ … }}` expressions still in them).
#[derive(Debug, Default)]
struct Step {
    name: String,
    working_directory: Option<String>,
    env: Vec<(String, String)>,
    run: String,
}

/// The steps of `action.yml` (its own plain layout: one-line values, an `env:` block).
fn action_steps(text: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_env = false;
    let unquote = |v: &str| {
        let v = v.trim();
        v.strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .map_or_else(|| v.to_string(), |v| v.replace("''", "'"))
    };
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("    - name: ") {
            steps.push(Step {
                name: name.to_string(),
                ..Step::default()
            });
            in_env = false;
            continue;
        }
        let Some(step) = steps.last_mut() else {
            continue;
        };
        if let Some(v) = line.strip_prefix("      working-directory: ") {
            step.working_directory = Some(unquote(v));
        } else if line == "      env:" {
            in_env = true;
        } else if let Some(v) = line.strip_prefix("      run: ") {
            assert_ne!(v.trim(), "|", "a run: block is one line calling a script");
            step.run = unquote(v);
            in_env = false;
        } else if in_env && line.starts_with("        ") {
            let (k, v) = line.trim().split_once(": ").expect("KEY: VALUE");
            step.env.push((k.to_string(), unquote(v)));
        } else {
            in_env = false;
        }
    }
    steps
}

/// Replace the `${{ … }}` expressions the runner would, from `values`; panics on one the
/// test does not know (so a new input is seen here first).
fn expand(text: &str, values: &[(&str, String)]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let j = rest[i..].find("}}").expect("closed expression") + i;
        let expr = rest[i + 3..j].trim();
        let v = values
            .iter()
            .find(|(k, _)| *k == expr)
            .unwrap_or_else(|| panic!("unknown expression `{expr}`"));
        out.push_str(&v.1);
        rest = &rest[j + 2..];
    }
    out.push_str(rest);
    out
}

fn write_exec(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: the real paths a step ran in, against the checkout's"
)]
fn under(path: &Path, tree: &Path) -> bool {
    let p = std::fs::canonicalize(path).expect("canonical");
    let t = std::fs::canonicalize(tree).expect("canonical");
    p.starts_with(t)
}

#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: builds a hostile checkout, reads the test's PATH, and finds the real rustup"
)]
fn the_actions_steps_run_nothing_of_a_hostile_checkout() {
    let action = std::fs::read_to_string(workspace_root().join("action.yml")).expect("action.yml");
    let steps = action_steps(&action);
    assert_eq!(steps.len(), 2, "{steps:?}");
    for s in &steps {
        assert!(
            !s.run.contains("${{"),
            "step `{}` splices an expression into its script: {}",
            s.name,
            s.run
        );
    }
    let install = &steps[0];
    let pinned = install
        .env
        .iter()
        .find(|(k, _)| k == "RUSTUP_TOOLCHAIN")
        .map(|(_, v)| v.clone())
        .expect("the install step pins RUSTUP_TOOLCHAIN");
    assert!(
        pinned.chars().next().is_some_and(|c| c.is_ascii_digit()),
        "a version, not a channel: {pinned}"
    );

    let root = tempfile::tempdir().expect("scratch");
    let root = std::fs::canonicalize(root.path()).expect("canonical");
    let ws = root.join("work/repo");
    let temp = root.join("work/_temp");
    let shims = root.join("shims");
    let log = root.join("log");
    std::fs::create_dir_all(&ws).expect("mkdir");
    std::fs::create_dir_all(&temp).expect("mkdir");
    // the marker every hostile program appends, built at run time
    let ran = root.join("ran");
    let evil = ws.join("evil.sh");
    let evil_text = format!(
        "#!/bin/sh\nprintf '%s-%s %s\\n' HOSTILE RAN \"$0\" >> '{}'\nexit 0\n",
        ran.display()
    );

    // the base: three profiles, one a layer the others name
    git(&ws, &["init", "-q", "-b", "main"]);
    let example = workspace_root().join("examples/code-review");
    let before = std::fs::read_to_string(example.join("before.ral")).expect("before.ral");
    std::fs::create_dir_all(ws.join("profiles")).expect("mkdir");
    std::fs::write(ws.join("profiles/p.ral"), &before).expect("write");
    std::fs::write(ws.join("profiles/old-name.ral"), &before).expect("write");
    std::fs::write(ws.join("profiles/layer.ral"), &before).expect("write");
    std::fs::write(
        ws.join("profiles/kept.ral"),
        format!("# run with --restrict profiles/layer.ral\n{before}"),
    )
    .expect("write");
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-qm", "base"]);
    git(&ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    let base_sha = git_out(&ws, &["rev-parse", "HEAD"]);

    // the pull request: widen p.ral (no deputy prefix), rename-and-widen old-name.ral, add
    // a file whose name is an option, delete the layer kept.ral names
    let widened = before.replace(
        "'/usr/local/bin/': 'allow'",
        "'/usr/local/bin/': 'allow', '/opt/bin/': 'allow'",
    );
    assert_ne!(widened, before);
    std::fs::write(ws.join("profiles/p.ral"), &widened).expect("write");
    git(
        &ws,
        &["mv", "profiles/old-name.ral", "profiles/new-name.ral"],
    );
    std::fs::write(ws.join("profiles/new-name.ral"), &widened).expect("write");
    std::fs::write(ws.join("-p.ral"), &before).expect("write");
    git(&ws, &["rm", "-q", "profiles/layer.ral"]);
    // the checkout's hostile files, committed too
    write_exec(&evil, &evil_text);
    write_exec(&ws.join("tc/bin/cargo"), &evil_text);
    write_exec(&ws.join("tc/bin/rustc"), &evil_text);
    std::fs::write(
        ws.join("rust-toolchain.toml"),
        format!("[toolchain]\npath = \"{}\"\n", ws.join("tc").display()),
    )
    .expect("write");
    std::fs::create_dir_all(ws.join(".cargo")).expect("mkdir");
    std::fs::write(
        ws.join(".cargo/config.toml"),
        format!(
            "[build]\nrustc-wrapper = \"{0}\"\nrustc = \"{0}\"\n[target.x86_64-unknown-linux-gnu]\nlinker = \"{0}\"\n",
            evil.display()
        ),
    )
    .expect("write");
    std::fs::write(ws.join(".gitattributes"), "*.ral diff=evil filter=evil\n").expect("write");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "the pull request"]);
    // then .git/config and hooks (after the test's own commits)
    let e = evil.display();
    let mut config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {e}\n\tpager = {e}\n\tsshCommand = {e}\n\taskPass = {e}\n\
         [diff]\n\texternal = {e}\n[diff \"evil\"]\n\ttextconv = {e}\n\tcommand = {e}\n\
         [filter \"evil\"]\n\tclean = {e}\n\tsmudge = {e}\n\
         [credential]\n\thelper = !{e}\n[pager]\n\tdiff = {e}\n\tshow = {e}\n\
         [remote \"origin\"]\n\turl = {}\n\tuploadpack = {e}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
        root.join("origin.git").display()
    ));
    std::fs::write(ws.join(".git/config"), config).expect("config");
    for hook in [
        "reference-transaction",
        "post-checkout",
        "post-merge",
        "pre-commit",
        "post-index-change",
        "fsmonitor-watchman",
        "pre-auto-gc",
        "post-rewrite",
        "push-to-checkout",
    ] {
        write_exec(&ws.join(".git/hooks").join(hook), &evil_text);
    }

    // recording stand-ins for the install step's cargo and rustup
    let bin = ralc_bin();
    write_exec(
        &shims.join("cargo"),
        &format!(
            "#!/bin/sh\n{{ echo \"cwd=$(pwd -P)\"; echo \"toolchain=$RUSTUP_TOOLCHAIN\"; \
             echo \"cargo_home=$CARGO_HOME\"; echo \"args=$*\"; }} >> '{log}'\n\
             root=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\n\
             mkdir -p \"$root/bin\" && cp '{bin}' \"$root/bin/ralc\"\n",
            log = log.display(),
            bin = bin.display()
        ),
    );
    write_exec(
        &shims.join("rustup"),
        &format!("#!/bin/sh\necho \"rustup=$*\" >> '{}'\n", log.display()),
    );
    let path = format!(
        "{}:{}",
        shims.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let values = vec![
        ("runner.temp", temp.display().to_string()),
        (
            "inputs.anchor",
            "--home /home/dev --cwd /home/dev/project".to_string(),
        ),
        ("inputs.fail-on-widen", "true".to_string()),
        ("inputs.base", String::new()),
        ("github.base_ref", "main".to_string()),
        ("github.event.pull_request.base.sha", base_sha.clone()),
    ];
    let mut outputs = Vec::new();
    for step in &steps {
        let dir = step.working_directory.as_deref().map_or_else(
            || ws.clone(),
            |d| Path::new(&expand(d, &values)).to_path_buf(),
        );
        let mut env: Vec<(&str, String)> = vec![
            ("GITHUB_ACTION_PATH", workspace_root().display().to_string()),
            ("GITHUB_WORKSPACE", ws.display().to_string()),
            ("PATH", path.clone()),
        ];
        for (k, v) in &step.env {
            env.push((k.as_str(), expand(v, &values)));
        }
        let o = run(Path::new("bash"), &["-e", "-c", &step.run], &dir, &env);
        outputs.push(o);
    }
    let recorded = std::fs::read_to_string(&log).expect("the install step ran cargo");
    // the install: the action's own source, the pinned toolchain, nothing of the checkout
    assert!(outputs[0].status.success(), "{:?}", outputs[0]);
    let cwd = recorded
        .lines()
        .find_map(|l| l.strip_prefix("cwd="))
        .expect("cwd");
    assert!(
        !under(Path::new(cwd), &ws),
        "cargo ran in the checkout: {cwd}"
    );
    assert!(
        recorded.contains(&format!("toolchain={pinned}\n")),
        "{recorded}"
    );
    let home = recorded
        .lines()
        .find_map(|l| l.strip_prefix("cargo_home="))
        .expect("cargo_home");
    assert!(
        !under(Path::new(home), &ws),
        "CARGO_HOME in the checkout: {home}"
    );
    assert!(
        recorded.contains(&format!(
            "--path {}/compiler",
            std::fs::canonicalize(workspace_root())
                .expect("canonical")
                .display()
        )),
        "{recorded}"
    );
    assert!(recorded.contains("rustup=toolchain install"), "{recorded}");
    // the review: every changed profile, the deletion, the widenings, failing as asked
    let review = &outputs[1];
    let out = String::from_utf8_lossy(&review.stdout);
    for f in [
        "profiles/p.ral",
        "profiles/new-name.ral",
        "-p.ral",
        "profiles/kept.ral",
    ] {
        assert!(
            out.contains(&format!("::group::ralc review of {f}\n")),
            "{f} not reviewed:\n{out}\n{}",
            String::from_utf8_lossy(&review.stderr)
        );
    }
    assert!(
        out.contains("::warning file=profiles/layer.ral::widens: the profile is deleted"),
        "{out}"
    );
    assert!(
        out.contains(
            "::warning file=profiles/new-name.ral,line=4,col=58::widens: exec widens: /opt/bin/"
        ),
        "the rename is diffed against its old name: {out}"
    );
    assert!(
        out.contains("::warning file=profiles/p.ral,line=4,col=58::widens: exec widens: /opt/bin/"),
        "{out}"
    );
    assert_eq!(review.status.code(), Some(1), "fail-on-widen: {out}");
    // nothing of the checkout ran, at either step
    assert!(
        !ran.exists(),
        "the checkout's program ran: {}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );

    // the real rustup proxy, in the checkout itself, obeys RUSTUP_TOOLCHAIN over the
    // checkout's rust-toolchain.toml (the install step's cwd is outside it besides)
    let real_rustup = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("rustup"))
        .find(|p| p.is_file());
    match real_rustup {
        None => println!("skip: no rustup on PATH; the real proxy's precedence is not shown"),
        Some(_) => {
            let have = run(
                Path::new("rustup"),
                &["run", &pinned, "cargo", "--version"],
                &root,
                &[],
            );
            if !have.status.success() {
                println!("skip: toolchain {pinned} is not installed here; the proxy's precedence is not shown");
            } else {
                let o = run(
                    Path::new("cargo"),
                    &["--version"],
                    &ws,
                    &[("RUSTUP_TOOLCHAIN", pinned.clone())],
                );
                assert!(o.status.success(), "{o:?}");
                assert!(!ran.exists(), "the checkout's toolchain ran");
            }
        }
    }
}

// ---- the red team's attempts on the review script (issue 26: a05–a09, a22, a26, a34, a38,
// a39, a43), each kept as a test; every hostile program appends a marker built at run time

/// A checkout whose base has `p.ral` reading /usr and whose head widens it to /etc; with
/// `origin_ref`, refs/remotes/origin/main names the base (else a fetch is needed).
fn widening_case(root: &Path, name: &str, origin_ref: bool) -> (std::path::PathBuf, String) {
    let ws = root.join(name);
    std::fs::create_dir_all(&ws).expect("mkdir");
    git(&ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join("p.ral"), "[fs: [read: ['/usr']]]\n").expect("write");
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-qm", "base"]);
    let base = git_out(&ws, &["rev-parse", "HEAD"]);
    if origin_ref {
        git(&ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    }
    std::fs::write(ws.join("p.ral"), "[fs: [read: ['/usr', '/etc']]]\n").expect("write");
    git(&ws, &["commit", "-qam", "pr"]);
    (ws, base)
}

fn git_config(ws: &Path, key: &str, value: &str) {
    git(ws, &["config", key, value]);
}

/// Run the review as the Action's step does (review-action), from the checkout.
fn review(ws: &Path, env: &[(&str, String)]) -> Output {
    let mut all: Vec<(&str, String)> = vec![
        ("RALC", ralc_bin().display().to_string()),
        ("GITHUB_WORKSPACE", ws.display().to_string()),
        ("RALC_INPUT_FAIL_ON_WIDEN", "true".to_string()),
        ("RALC_BASE_REF", "main".to_string()),
    ];
    all.extend(env.iter().cloned());
    run(
        &workspace_root().join("scripts/review-action"),
        &[],
        ws,
        &all,
    )
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: the scratch directory's real path (git and the script compare real paths)"
)]
fn real_root(dir: &tempfile::TempDir) -> std::path::PathBuf {
    std::fs::canonicalize(dir.path()).expect("canonical")
}

fn marker_cmd(marker: &Path) -> String {
    format!("printf '%s-%s\\n' MARK ER >> '{}'", marker.display())
}

#[test]
fn the_review_never_obeys_the_checkouts_git_config() {
    let scratch = tempfile::tempdir().expect("scratch");
    let root = real_root(&scratch);
    let bare = root.join("bare.git");
    // a reachable repository for the file-protocol vectors
    let (seed, _) = widening_case(&root, "seed", false);
    git(
        &root,
        &[
            "clone",
            "-q",
            "--bare",
            &seed.display().to_string(),
            &bare.display().to_string(),
        ],
    );
    let alt = root.join("alt.git");
    git(&root, &["init", "-q", "--bare", &alt.display().to_string()]);
    type Plant<'a> = dyn Fn(&Path, &Path) + 'a;
    let vectors: Vec<(&str, Box<Plant<'_>>)> = vec![
        (
            "a05 ext url, protocol.ext.allow",
            Box::new(|ws, m| {
                std::fs::write(ws.join(".evil.sh"), marker_cmd(m)).expect("write");
                git_config(ws, "remote.origin.url", "ext::sh .evil.sh");
                git_config(ws, "protocol.ext.allow", "always");
            }),
        ),
        (
            "a06a uploadpack over a re-allowed file protocol",
            Box::new(|ws, m| {
                let up = ws.join(".up.sh");
                std::fs::write(
                    &up,
                    format!("{}; exec git-upload-pack \"$@\"\n", marker_cmd(m)),
                )
                .expect("write");
                git_config(ws, "remote.origin.url", &bare.display().to_string());
                git_config(ws, "protocol.file.allow", "always");
                git_config(
                    ws,
                    "remote.origin.uploadpack",
                    &format!("sh {}", up.display()),
                );
            }),
        ),
        (
            "a06b alternateRefsCommand",
            Box::new(|ws, m| {
                git_config(
                    ws,
                    "remote.origin.url",
                    &format!("file://{}", bare.display()),
                );
                git_config(ws, "protocol.file.allow", "always");
                std::fs::write(
                    ws.join(".git/objects/info/alternates"),
                    format!("{}/objects\n", alt.display()),
                )
                .expect("alternates");
                git_config(
                    ws,
                    "core.alternateRefsCommand",
                    &format!("{}; true", marker_cmd(m)),
                );
            }),
        ),
        (
            "a06c remote.origin.vcs",
            Box::new(|ws, m| {
                std::fs::write(ws.join(".e"), marker_cmd(m)).expect("write");
                git_config(ws, "remote.origin.vcs", "ext");
                git_config(ws, "remote.origin.url", "sh .e");
                git_config(ws, "protocol.ext.allow", "always");
            }),
        ),
        (
            "a06d url.insteadOf",
            Box::new(|ws, m| {
                std::fs::write(ws.join(".e"), marker_cmd(m)).expect("write");
                git_config(ws, "remote.origin.url", "https://github.com/o/r");
                git_config(ws, "url.ext::sh .e .insteadOf", "https://github.com/o/r");
                git_config(ws, "url.ext::sh .e .insteadOf", "https://github.com/");
                git_config(ws, "protocol.ext.allow", "always");
            }),
        ),
        (
            "a06f include.path to a tracked file",
            Box::new(|ws, m| {
                std::fs::write(ws.join(".e"), marker_cmd(m)).expect("write");
                std::fs::write(
                    ws.join("inc.cfg"),
                    "[protocol \"ext\"]\n\tallow = always\n[remote \"origin\"]\n\turl = ext::sh .e\n\
                     [url \"ext::sh .e \"]\n\tinsteadOf = https://github.com/\n",
                )
                .expect("write");
                git_config(ws, "include.path", "../inc.cfg");
            }),
        ),
    ];
    for (i, (what, plant)) in vectors.iter().enumerate() {
        for origin_ref in [true, false] {
            let (ws, base) = widening_case(&root, &format!("case-{i}-{origin_ref}"), origin_ref);
            let marker = root.join(format!("marker-{i}-{origin_ref}"));
            plant(&ws, &marker);
            let env = vec![
                ("RALC_FETCH", "1".to_string()),
                ("GITHUB_SERVER_URL", "https://github.com".to_string()),
                ("GITHUB_REPOSITORY", "o/r".to_string()),
                (
                    "RUNNER_TEMP",
                    root.join("runner-temp").display().to_string(),
                ),
            ];
            let o = review(&ws, &env);
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                !marker.exists(),
                "{what}: the checkout's git config ran a program:\n{out}"
            );
            if origin_ref {
                // the base is in the checkout: the review ran, and widened
                assert_eq!(o.status.code(), Some(1), "{what}: {out}");
                assert!(
                    out.contains("widens: fs.read widens: /etc"),
                    "{what}: {out}"
                );
            } else {
                // the base is not: a fetch (from the server, never from the checkout's
                // remote) may fail offline; then a refusal — never a pass
                assert_ne!(o.status.code(), Some(0), "{what}: {out}");
            }
            // the event's base commit, given, needs no ref and no fetch
            let o = review(
                &ws,
                &[
                    ("RALC_BASE_SHA", base.clone()),
                    ("RALC_FETCH", "1".to_string()),
                ],
            );
            assert!(!marker.exists(), "{what}: a program ran");
            assert_eq!(o.status.code(), Some(1), "{what}: {o:?}");
            // nothing left behind in the runner's temp directory
            let left = std::fs::read_dir(root.join("runner-temp"))
                .map(|d| d.count())
                .unwrap_or(0);
            assert_eq!(left, 0, "{what}: the review's temp repository is left");
        }
    }
}

#[test]
fn the_checkouts_token_never_reaches_a_listener() {
    // a07: the checkout's http.* config (curloptResolve, sslVerify=false, insteadOf to a
    // plain-http listener, protocol.http.allow) and its extraheader token; the listener
    // records every byte any connection sends
    use std::io::Read;
    let scratch = tempfile::tempdir().expect("scratch");
    let root = real_root(&scratch);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (g2, s2) = (got.clone(), stop.clone());
    let t = std::thread::spawn(move || {
        while !s2.load(std::sync::atomic::Ordering::SeqCst) {
            match listener.accept() {
                Ok((mut c, _)) => {
                    c.set_read_timeout(Some(std::time::Duration::from_secs(2)))
                        .ok();
                    let mut buf = vec![0u8; 65536];
                    if let Ok(n) = c.read(&mut buf) {
                        g2.lock().expect("lock").extend_from_slice(&buf[..n]);
                    }
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    });
    let token = format!("FAKE-{}-{}", "TOKEN", std::process::id());
    let server = format!("github.com:{port}");
    let remotes = [
        format!("https://{server}/o/r"),
        format!("http://127.0.0.1:{port}/o/r"),
    ];
    for (i, (origin_ref, remote)) in [false, true]
        .into_iter()
        .flat_map(|o| remotes.iter().map(move |r| (o, r)))
        .enumerate()
    {
        let (ws, _) = widening_case(&root, &format!("case-{i}"), origin_ref);
        git_config(&ws, "remote.origin.url", remote);
        git_config(&ws, "http.curloptResolve", &format!("{server}:127.0.0.1"));
        git_config(&ws, "http.sslVerify", "false");
        git_config(
            &ws,
            &format!("http.https://{server}/.extraheader"),
            &format!("AUTHORIZATION: basic {token}"),
        );
        git_config(
            &ws,
            &format!("http.http://127.0.0.1:{port}/.extraheader"),
            &format!("AUTHORIZATION: basic {token}"),
        );
        git_config(
            &ws,
            &format!("url.http://127.0.0.1:{port}/.insteadOf"),
            &format!("https://127.0.0.1:{port}/"),
        );
        git_config(&ws, "protocol.http.allow", "always");
        let o = review(
            &ws,
            &[
                ("RALC_FETCH", "1".to_string()),
                ("GITHUB_SERVER_URL", format!("https://127.0.0.1:{port}")),
                ("GITHUB_REPOSITORY", "o/r".to_string()),
            ],
        );
        assert_ne!(o.status.code(), Some(0), "{o:?}");
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    t.join().expect("listener");
    let got = got.lock().expect("lock");
    assert!(
        !String::from_utf8_lossy(&got).contains(&token),
        "the token reached the listener"
    );
}

#[test]
fn links_submodules_and_escaping_tree_entries_are_findings_never_profiles() {
    use std::os::unix::fs::symlink;
    let scratch = tempfile::tempdir().expect("scratch");
    let root = real_root(&scratch);
    let narrow = "[exec: ['system:': 'allow'], fs: [read: ['/usr']]]\n";
    let wide = "[exec: ['system:': 'allow'], fs: [read: ['/'], write: ['/']]]\n";
    let new_repo = |name: &str| {
        let ws = root.join(name);
        std::fs::create_dir_all(&ws).expect("mkdir");
        git(&ws, &["init", "-q", "-b", "main"]);
        ws
    };
    let base_commit = |ws: &Path| {
        git(ws, &["add", "-A"]);
        git(ws, &["commit", "-qm", "base"]);
        git(ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    };
    let pr_commit = |ws: &Path| {
        git(ws, &["add", "-A"]);
        git(ws, &["commit", "-qm", "pr"]);
    };
    let base = [("RALC_INPUT_BASE", "origin/main".to_string())];

    // a26/a38: a profile that is a link to a file named `()` at base, retargeted to a wide one
    let ws = new_repo("a26");
    std::fs::write(ws.join("()"), narrow).expect("write");
    symlink("()", ws.join("ci.ral")).expect("link");
    base_commit(&ws);
    std::fs::write(ws.join("next"), wide).expect("write");
    std::fs::remove_file(ws.join("ci.ral")).expect("rm");
    symlink("next", ws.join("ci.ral")).expect("link");
    pr_commit(&ws);
    let o = review(&ws, &base);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("::warning file=ci.ral::widens: not a profile file any more"),
        "{out}"
    );
    assert!(!out.contains("narrows"), "a link's text diffed: {out}");
    assert_eq!(o.status.code(), Some(1), "{out}");

    // a profile that stays a link while its target (not a .ral name) widens
    let ws = new_repo("link-target");
    std::fs::write(ws.join("next"), narrow).expect("write");
    symlink("next", ws.join("ci.ral")).expect("link");
    base_commit(&ws);
    std::fs::write(ws.join("next"), wide).expect("write");
    pr_commit(&ws);
    let o = review(&ws, &base);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("::warning file=ci.ral::widens: a profile that is a link"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");

    // a profile replaced by a link (type change)
    let ws = new_repo("typechange");
    std::fs::write(ws.join("p.ral"), narrow).expect("write");
    std::fs::write(ws.join("wide"), wide).expect("write");
    base_commit(&ws);
    std::fs::remove_file(ws.join("p.ral")).expect("rm");
    symlink("wide", ws.join("p.ral")).expect("link");
    pr_commit(&ws);
    let o = review(&ws, &base);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("file=p.ral::widens: not a profile file any more"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");

    // a09: a directory a profile writes through becomes a link to /, the profile untouched
    let ws = new_repo("a09");
    std::fs::create_dir_all(ws.join("build")).expect("mkdir");
    std::fs::write(ws.join("build/.keep"), "").expect("write");
    std::fs::write(
        ws.join("p.ral"),
        "[fs: [read: ['/usr'], write: ['cwd:build']]]\n",
    )
    .expect("write");
    base_commit(&ws);
    std::fs::remove_dir_all(ws.join("build")).expect("rm");
    symlink("/", ws.join("build")).expect("link");
    pr_commit(&ws);
    let o = review(&ws, &base);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("::warning file=build::widens: a link added"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");

    // a34: a submodule bump is named, not passed
    let sub = new_repo("sub");
    std::fs::write(sub.join("p.ral"), narrow).expect("write");
    base_commit(&sub);
    let ws = new_repo("a34");
    git(
        &ws,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &sub.display().to_string(),
            "profiles",
        ],
    );
    base_commit(&ws);
    std::fs::write(sub.join("p.ral"), wide).expect("write");
    pr_commit(&sub);
    git(&ws.join("profiles"), &["pull", "-q", "origin", "main"]);
    pr_commit(&ws);
    let o = review(&ws, &base);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("::warning file=profiles::widens: a submodule changed"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");

    // a08: tree entries named `..` are refused; the planted outside file is never read
    let ws = new_repo("a08");
    let secret = format!("RUNNER-{}-{}", "SECRET", std::process::id());
    let planted = root.join("planted.ral");
    std::fs::write(&planted, format!("[fs: [read: ['/{secret}']]]\n")).expect("write");
    let hash = |data: &[u8], kind: &str| -> String {
        #[allow(
            clippy::disallowed_methods,
            reason = "test: crafts a tree object with git"
        )]
        let mut c = Command::new("git");
        c.args(["hash-object", "-t", kind, "--literally", "-w", "--stdin"])
            .current_dir(&ws)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = c.spawn().expect("git");
        std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), data).expect("write");
        let o = child.wait_with_output().expect("git");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let tree = |mode: &str, name: &str, sha: &str| -> String {
        let mut data = format!("{mode} {name}\0").into_bytes();
        for i in 0..sha.len() / 2 {
            data.push(u8::from_str_radix(&sha[2 * i..2 * i + 2], 16).expect("hex"));
        }
        hash(&data, "tree")
    };
    let depth = planted.components().count();
    let build = |text: &str| {
        let mut t = tree("100644", "planted.ral", &hash(text.as_bytes(), "blob"));
        let rel: Vec<String> = planted
            .parent()
            .expect("parent")
            .components()
            .skip(1)
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        for part in rel.iter().rev() {
            t = tree("40000", part, &t);
        }
        for _ in 0..depth + 2 {
            t = tree("40000", "..", &t);
        }
        t
    };
    let tb = build("[fs: [read: ['/usr']]]\n");
    let tn = build("[fs: [read: ['/']]]\n");
    let cb = git_out(&ws, &["commit-tree", "-m", "base", &tb]);
    let cn = git_out(&ws, &["commit-tree", "-p", &cb, "-m", "pr", &tn]);
    git(&ws, &["update-ref", "refs/heads/main", &cn]);
    git(&ws, &["update-ref", "refs/remotes/origin/main", &cb]);
    let o = review(&ws, &base);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(all.contains("a tree entry escapes the tree"), "{all}");
    assert!(!all.contains(&secret), "the outside file was read: {all}");
}

#[test]
fn a_fragments_widening_is_not_a_narrowing() {
    // a22: a fragment (joined with --extend) gains reading of ~/ and /etc; as a policy the
    // new text narrows (an axis now set), as a fragment it widens: the review says so
    let root = tempfile::tempdir().expect("scratch");
    let ws = root.path().join("w");
    std::fs::create_dir_all(&ws).expect("mkdir");
    git(&ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join("extra.ral"), "[exec: ['system:': 'allow']]\n").expect("write");
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-qm", "base"]);
    git(&ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    std::fs::write(
        ws.join("extra.ral"),
        "[exec: ['system:': 'allow'], fs: [read: ['~/', '/etc']]]\n",
    )
    .expect("write");
    git(&ws, &["commit", "-qam", "pr"]);
    let o = review(
        &ws,
        &[
            ("RALC_INPUT_BASE", "origin/main".to_string()),
            (
                "RALC_ARGS",
                "--home /home/dev --cwd /home/dev/project".to_string(),
            ),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("widens: read as an --extend fragment, this change widens"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");
}

#[test]
fn hostile_file_names_are_escaped_in_the_scripts_annotations() {
    // a39: ESC, OSC 8, U+202E and friends in an added and a deleted profile's names
    let root = tempfile::tempdir().expect("scratch");
    let ws = root.path().join("w");
    std::fs::create_dir_all(&ws).expect("mkdir");
    git(&ws, &["init", "-q", "-b", "main"]);
    let added = "a\u{1b}[31mRED\u{1b}]8;;evil.example\u{1b}\\click\u{1b}]8;;\u{7}\u{202e}%0A::error x\u{2067}\u{9b}.ral";
    let gone = "del\u{1b}[2J\u{202e}\u{200f}:,%.ral";
    let profile = "[fs: [read: ['/usr']]]\n";
    std::fs::write(ws.join(gone), profile).expect("write");
    std::fs::write(ws.join("keep.ral"), profile).expect("write");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "base"]);
    git(&ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    git(&ws, &["rm", "-q", "--", gone]);
    std::fs::write(ws.join(added), profile).expect("write");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "pr"]);
    let o = review(&ws, &[("RALC_INPUT_BASE", "origin/main".to_string())]);
    let out = String::from_utf8_lossy(&o.stdout);
    for c in out.chars() {
        assert!(
            c == '\n' || !diag_hazard(c),
            "a raw {:?} reached the log:\n{out}",
            c
        );
    }
    for line in out.lines() {
        assert!(
            line.starts_with("::warning ")
                || line.starts_with("::error ")
                || line.starts_with("::group::")
                || line == "::endgroup::",
            "an injected line: {line}"
        );
    }
    assert!(
        out.contains("::warning file=del\\u{1b}[2J\\u{202e}\\u{200f}%3A%2C%25.ral::widens"),
        "{out}"
    );
    assert!(
        out.contains("::group::ralc review of a\\u{1b}[31mRED"),
        "{out}"
    );
}

fn diag_hazard(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
                | '\u{2028}' | '\u{2029}'
        )
}

#[test]
fn many_deleted_profiles_are_matched_in_linear_time() {
    // a43: N kept × N deleted profiles; the script's own scan (no ralc runs) stays fast
    let root = tempfile::tempdir().expect("scratch");
    let ws = root.path().join("w");
    std::fs::create_dir_all(ws.join("k")).expect("mkdir");
    std::fs::create_dir_all(ws.join("d")).expect("mkdir");
    git(&ws, &["init", "-q", "-b", "main"]);
    let big = format!("[fs: [read: ['/usr']]]\n# {}\n", "q".repeat(20_000));
    let n = 1000;
    for i in 0..n {
        std::fs::write(ws.join(format!("k/keep{i}.ral")), &big).expect("write");
        std::fs::write(ws.join(format!("d/del{i}.ral")), &big).expect("write");
    }
    // one kept profile names a deleted layer: it is reviewed
    std::fs::write(
        ws.join("k/keep0.ral"),
        format!("# run with --restrict d/del7.ral\n{big}"),
    )
    .expect("write");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "base"]);
    git(&ws, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    git(&ws, &["rm", "-rq", "d"]);
    git(&ws, &["commit", "-qm", "pr"]);
    let t = std::time::Instant::now();
    let o = review(
        &ws,
        &[
            ("RALC_INPUT_BASE", "origin/main".to_string()),
            ("RALC_INPUT_FAIL_ON_WIDEN", "false".to_string()),
        ],
    );
    let took = t.elapsed();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.matches("widens: the profile is deleted").count(),
        n,
        "{out}"
    );
    assert!(
        out.contains("::group::ralc review of k/keep0.ral\n"),
        "{out}"
    );
    assert!(
        !out.contains("::group::ralc review of k/keep1.ral\n"),
        "{out}"
    );
    assert!(
        took < std::time::Duration::from_secs(60),
        "{n} kept x {n} deleted took {took:?}"
    );
}
