//! The escape suite: each attempt in `tests/escape/attempts.txt` is a profile and a
//! hostile command run through the `ralc run` binary under the real bwrap, Landlock and
//! seccomp; each must fail *and* leak nothing (no SECRET in the output, no `leak*` file
//! anywhere in the scratch tree, every secret intact: contents are `CONTENT-…`, names
//! `SECRET-…`). `positive.txt` holds the controls
//! that must succeed, so a broken launch cannot pass for confinement. A missing bwrap or
//! ralc binary fails the suite; nothing is skipped.
// Linux only: the suite launches under bwrap, Landlock and seccomp.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

fn data(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("escape")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The `ralc` binary beside this test's own (`target/<profile>/ralc`).
pub fn ralc_bin() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    let dir = me.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("ralc");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (`cargo build -p ralc`, as scripts/test does)",
        bin.display()
    );
    std::fs::canonicalize(bin).expect("canonical ralc")
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: bwrap must be on the process's PATH"
)]
fn bwrap_present() {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("bwrap").is_file());
    assert!(
        found,
        "bwrap (bubblewrap) is not on PATH: the launch tests need it (apt-get install bubblewrap)"
    );
}

struct Scratch {
    _dir: tempfile::TempDir,
    root: String,
    secrets: BTreeMap<String, String>,
}

fn scratch() -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix("ralc-escape")
        .tempdir()
        .unwrap();
    let root = std::fs::canonicalize(dir.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    for d in ["proj/secrets", "outside", "ro"] {
        std::fs::create_dir_all(format!("{root}/{d}")).unwrap();
    }
    let mut secrets = BTreeMap::new();
    for (p, c) in [
        ("proj/.env", "CONTENT-env"),
        ("proj/secrets/SECRET-key", "CONTENT-key"),
        ("outside/SECRET-outside.txt", "CONTENT-outside"),
    ] {
        let path = format!("{root}/{p}");
        std::fs::write(&path, c).unwrap();
        secrets.insert(path, c.to_string());
    }
    std::fs::write(format!("{root}/ro/data"), "public-data").unwrap();
    std::fs::write(format!("{root}/proj/plain.txt"), "plain-data").unwrap();
    // A script whose interpreter no profile of the suite names as itself: its carrier.
    let script = format!("{root}/proj/run.sh");
    std::fs::write(&script, "#!/bin/sh\necho script-ran-$1\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // A program the `denyfile` profile denies by path inside its runnable, writable cwd.
    let denied = format!("{root}/proj/denied-tool");
    std::fs::write(&denied, "#!/bin/sh\necho SECRET-denied-tool-ran\n").unwrap();
    std::fs::set_permissions(&denied, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    Scratch {
        _dir: dir,
        root,
        secrets,
    }
}

struct Vars {
    root: String,
    ralc: String,
    port: u16,
}

fn subst(s: &str, v: &Vars) -> String {
    s.replace("$ROOT", &v.root)
        .replace("$RALC", &v.ralc)
        .replace("$PORT", &v.port.to_string())
}

#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn ralc_run(profile: &str, command: &str, s: &Scratch, v: &Vars) -> Output {
    // `std:NAME` is an embedded profile; any other name is `tests/escape/NAME.ral`.
    let pfile = if profile.starts_with("std:") {
        profile.to_string()
    } else {
        let text = subst(&data(&format!("{profile}.ral")), v);
        let pfile = format!("{}/{profile}.ral", s.root);
        std::fs::write(&pfile, text).unwrap();
        pfile
    };
    let cmd = subst(command, v);
    let mut c = std::process::Command::new(&v.ralc);
    c.current_dir(format!("{}/proj", s.root))
        .arg("run")
        .arg("-p")
        .arg(&pfile)
        .arg("--");
    match cmd.strip_prefix('!') {
        Some(direct) => {
            c.args(direct.split_whitespace());
        }
        None => {
            c.args(["/bin/sh", "-c", &cmd]);
        }
    }
    c.stdin(std::process::Stdio::null());
    c.output().expect("spawn ralc")
}

fn leaks(dir: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("leak") {
            out.push(e.path().display().to_string());
        }
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            leaks(&e.path(), out);
        }
    }
}

/// Lines of `name | profile | command` (the command may itself hold ` | `), and with
/// `expect`, `name | profile | command | expect` (the expectation is the last field).
fn cases(file: &str, expect: bool) -> Vec<Vec<String>> {
    data(file)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let mut f: Vec<String> = l.splitn(3, " | ").map(|f| f.trim().to_string()).collect();
            if expect {
                if let Some((cmd, want)) = f.last().and_then(|c| c.rsplit_once(" | ")) {
                    let (cmd, want) = (cmd.trim().to_string(), want.trim().to_string());
                    f.pop();
                    f.push(cmd);
                    f.push(want);
                }
            }
            f
        })
        .collect()
}

#[test]
fn escape_attempts_fail_and_leak_nothing() {
    bwrap_present();
    let ralc = ralc_bin().to_str().unwrap().to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let attempts = cases("attempts.txt", false);
    assert!(attempts.len() >= 30, "only {} attempts", attempts.len());
    let md = |p: &str| {
        std::fs::metadata(p)
            .map(|m| (m.len(), m.modified().ok()))
            .ok()
    };
    let ralc_before = md(&ralc);
    let mut failures = Vec::new();
    for case in &attempts {
        let [name, profile, command] = &case[..] else {
            panic!("bad attempt line: {case:?}");
        };
        let s = scratch();
        let v = Vars {
            root: s.root.clone(),
            ralc: ralc.clone(),
            port,
        };
        let out = ralc_run(profile, command, &s, &v);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut why = Vec::new();
        if out.status.success() {
            why.push("the attempt succeeded".to_string());
        }
        for marker in ["SECRET", "uid=", "root:"] {
            if stdout.contains(marker) {
                why.push(format!("stdout shows {marker}"));
            }
        }
        // A secret's content never shows, on either stream (an error message may name
        // a denied file; its content is what must not leak).
        if stdout.contains("CONTENT-") || stderr.contains("CONTENT-") {
            why.push("a secret's content shows".to_string());
        }
        let mut found = Vec::new();
        leaks(Path::new(&s.root), &mut found);
        if !found.is_empty() {
            why.push(format!("created {found:?}"));
        }
        for (path, content) in &s.secrets {
            if std::fs::read_to_string(path).ok().as_deref() != Some(content.as_str()) {
                why.push(format!("{path} changed or vanished"));
            }
        }
        if !why.is_empty() {
            failures.push(format!(
                "{name}: {} (status {:?})\n  stdout: {stdout:?}\n  stderr: {stderr:?}",
                why.join("; "),
                out.status.code()
            ));
        }
    }
    assert_eq!(md(&ralc), ralc_before, "ralc's own executable changed");
    drop(listener);
    assert!(
        failures.is_empty(),
        "{} of {} attempts escaped:\n{}",
        failures.len(),
        attempts.len(),
        failures.join("\n")
    );
}

#[test]
fn positive_controls_run_real_work() {
    bwrap_present();
    let ralc = ralc_bin().to_str().unwrap().to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut failures = Vec::new();
    for case in cases("positive.txt", true) {
        let [name, profile, command, expect] = &case[..] else {
            panic!("bad positive line: {case:?}");
        };
        let s = scratch();
        let v = Vars {
            root: s.root.clone(),
            ralc: ralc.clone(),
            port,
        };
        let out = ralc_run(profile, command, &s, &v);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !stdout.contains(expect.as_str()) {
            failures.push(format!(
                "{name}: status {:?} stdout {stdout:?} stderr {:?}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    drop(listener);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn exit_status_propagates_through_ralc_run() {
    bwrap_present();
    let ralc = ralc_bin();
    let run = |args: &[&str]| {
        std::process::Command::new(&ralc)
            .current_dir("/tmp")
            .args(["run", "-p", "std:minimal", "--"])
            .args(args)
            .output()
            .expect("spawn ralc")
    };
    assert_eq!(run(&["/bin/true"]).status.code(), Some(0));
    assert_eq!(run(&["/bin/sh", "-c", "exit 9"]).status.code(), Some(9));
    assert_eq!(
        run(&["/bin/sh", "-c", "kill -TERM $$"]).status.code(),
        Some(128 + 15)
    );
    let missing = run(&["/nonexistent/prog"]);
    assert_eq!(missing.status.code(), Some(127));
    let vetoed = run(&["bash", "-c", "true"]);
    assert_eq!(vetoed.status.code(), Some(126));
    let msg = String::from_utf8_lossy(&vetoed.stderr);
    assert!(msg.contains("vetoed by name"), "{msg}");
}

#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_script_whose_interpreter_is_vetoed_is_refused_before_the_launch() {
    bwrap_present();
    let s = scratch();
    let v = Vars {
        root: s.root.clone(),
        ralc: ralc_bin().to_str().unwrap().to_string(),
        port: 0,
    };
    let out = ralc_run("script-vetoed", "!./run.sh SECRET", &s, &v);
    assert_eq!(out.status.code(), Some(126));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains("is a script whose interpreter") && msg.contains("vetoed by name"),
        "{msg}"
    );
    // The same script under a profile that leaves its interpreter alone runs.
    let out = ralc_run("script", "!./run.sh ok", &s, &v);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
