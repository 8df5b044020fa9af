//! The worked examples: every `examples/*/README.md` block fenced as ```` ```console ````
//! is a transcript — `$ COMMAND` lines, each followed by its output — and this suite runs
//! each command for real (`sh -c`, in the example's folder, stdout and stderr merged in
//! the order written, `[exit N]` appended when N ≠ 0) and compares the README with the
//! transcript it produces. Drift fails; `RALC_BLESS=1` rewrites the READMEs after review.
//!
//! The commands run with a fixed environment so the transcript is the same on every
//! machine of this kind: `PATH` is the built `ralc`'s directory then the system's, `HOME`
//! a home made here (`target/examples-home`, with a stand-in `~/.ssh/id_ed25519`), and
//! `NO_COLOR=1`. In the output that home is shown as `~`, the example's folder as `$PWD`
//! and the repository as `<repo>`.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// `target/debug` (where the `ralc` binary is) and `target`.
fn target_dirs() -> (PathBuf, PathBuf) {
    let me = std::env::current_exe().expect("current_exe");
    let debug = me
        .parent()
        .and_then(Path::parent)
        .expect("target/debug")
        .to_path_buf();
    assert!(
        debug.join("ralc").is_file(),
        "{} is missing: build it first (`cargo build -p ralc`)",
        debug.join("ralc").display()
    );
    let target = debug.parent().expect("target").to_path_buf();
    (debug, target)
}

/// The home the transcripts run with: made afresh, with a stand-in key and a shell rc.
fn make_home(target: &Path) -> PathBuf {
    let home = target.join("examples-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join(".ssh")).expect("mkdir home/.ssh");
    std::fs::write(
        home.join(".ssh/id_ed25519"),
        "stand-in private key for the examples\n",
    )
    .expect("write key");
    std::fs::write(home.join(".bashrc"), "# the user's shell rc\n").expect("write rc");
    std::fs::create_dir_all(home.join("notes")).expect("mkdir notes");
    std::fs::write(home.join("notes/todo.txt"), "ship the examples\n").expect("write notes");
    home
}

struct Env {
    path: String,
    home: PathBuf,
    repo: PathBuf,
}

/// Run one command line as the README shows it; the transcript of its output.
fn run(cmd: &str, dir: &Path, env: &Env) -> String {
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs each README command, as the reader would"
    )]
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {cmd}"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", &env.path)
        .env("HOME", &env.home)
        .env("NO_COLOR", "1")
        .env("LANG", "C.UTF-8")
        .output()
        .expect("sh runs");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    for (from, to) in [
        (env.home.display().to_string(), "~".to_string()),
        (dir.display().to_string(), "$PWD".to_string()),
        (env.repo.display().to_string(), "<repo>".to_string()),
    ] {
        text = text.replace(&from, &to);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    match out.status.code() {
        Some(0) => {}
        Some(n) => text.push_str(&format!("[exit {n}]\n")),
        None => text.push_str("[killed by a signal]\n"),
    }
    text
}

/// The README with every console block's output produced anew.
fn regenerate(readme: &str, dir: &Path, env: &Env) -> (String, usize) {
    let mut out = String::new();
    let mut commands = 0;
    let mut lines = readme.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        if line.trim_end() != "```console" {
            continue;
        }
        // the block: commands kept, their old output dropped and made anew
        for l in lines.by_ref() {
            if l.trim_end() == "```" {
                out.push_str(l);
                break;
            }
            if let Some(cmd) = l.strip_prefix("$ ") {
                out.push_str(l);
                out.push_str(&run(cmd.trim_end(), dir, env));
                commands += 1;
            }
        }
    }
    (out, commands)
}

#[test]
fn every_example_transcript_is_what_its_commands_print() {
    let (debug, target) = target_dirs();
    let env = Env {
        path: format!("{}:/usr/local/bin:/usr/bin:/bin", debug.display()),
        home: make_home(&target),
        repo: repo(),
    };
    #[allow(
        clippy::disallowed_methods,
        reason = "test: the documented bless switch, RALC_BLESS=1"
    )]
    let bless = std::env::var("RALC_BLESS").is_ok_and(|v| v == "1");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("examples"))
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("README.md").is_file())
        .collect();
    dirs.sort();
    let mut worked = Vec::new();
    let mut drift = Vec::new();
    for dir in &dirs {
        let path = dir.join("README.md");
        let have = std::fs::read_to_string(&path).expect("README");
        let (want, commands) = regenerate(&have, dir, &env);
        if commands == 0 {
            continue;
        }
        assert!(
            dir.read_dir()
                .expect("dir")
                .any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "ral"))),
            "{}: a worked example has a profile",
            dir.display()
        );
        worked.push(
            dir.file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned(),
        );
        if bless {
            std::fs::write(&path, &want).expect("write README");
        } else if have != want {
            let first = have
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(have.lines().count().min(want.lines().count()));
            drift.push(format!(
                "{}: differs from line {}:\n  README: {:?}\n  now:    {:?}",
                path.display(),
                first + 1,
                have.lines().nth(first).unwrap_or(""),
                want.lines().nth(first).unwrap_or("")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&env.home);
    assert!(
        worked.len() >= 4,
        "at least four worked examples with transcripts, found {worked:?}"
    );
    assert!(
        drift.is_empty(),
        "{}\n(regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test examples` after review)",
        drift.join("\n")
    );
}
