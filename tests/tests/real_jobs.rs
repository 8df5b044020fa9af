//! Day-one jobs (issue #12 §2): a developer's real jobs, with this machine's real
//! toolchains, run through the `ralc` binary under `std:reasonable` and `std:confined`,
//! each in a fresh project created outside `/tmp` (under the build's `target/` directory)
//! and removed afterwards: `make` + `cc` builds and runs, `cargo test --offline` of a new
//! crate passes, `python3` runs through the pyenv shim (when pyenv is installed) and
//! `python3 -m venv` works, `npm test` runs a package script, `javac` + `java` run, and
//! `git commit` works. Beside them each profile's promises hold: no `~/.ssh`, no write
//! outside the project, no network under `std:confined` (with a control that reaches it
//! under `std:reasonable`, so a broken check cannot pass). Every hostile attempt prints a
//! marker its own command line does not contain, after which the command prints `done`,
//! so a refused launch is never counted as blocked.
//!
//! Nothing is skipped silently: `scripts/test` installs gcc, make, node/npm, OpenJDK 17,
//! python3-venv and git as root; pyenv is the user's own, and where it is absent the shim
//! job is a counted skip printed with its reason (the venv job then runs on the system
//! `python3`). A missing toolchain otherwise fails the suite.
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
// Linux only: the suite launches under bwrap, Landlock and seccomp.
#![cfg(target_os = "linux")]

use ralc_tests::bin::{ralc_bin, target_dir};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The marker a hostile attempt prints on success, built at run time so that no command
/// line holds it.
fn marker() -> String {
    ["ESC", "APED"].join("-")
}

/// A fresh directory outside `/tmp`: under the build's `target/` directory, removed on drop.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root = target_dir().join(format!("real-jobs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        assert!(
            !root.starts_with("/tmp"),
            "the projects must lie outside /tmp"
        );
        Scratch { root }
    }
    /// A scratch tree the user `uid` can reach: under `target/` when every directory above
    /// it lets others pass, else (a checkout under `/root` or a `mktemp -d`, mode 700) a
    /// fresh root-owned folder under `/var/tmp`, still outside `/tmp`.
    fn reachable_by(name: &str, uid: Option<u32>) -> Scratch {
        let s = Scratch::new(name);
        if uid.is_none() || passable_by_others(&s.root) {
            return s;
        }
        drop(s);
        let root = PathBuf::from(format!(
            "/var/tmp/ralc-real-jobs-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::set_permissions(&root, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        Scratch { root }
    }
    /// The ralc binary as the user `uid` can run it: the build's own when its directories
    /// let others pass, else a copy in this scratch tree.
    fn ralc_for(&self, uid: Option<u32>) -> PathBuf {
        let bin = ralc_bin();
        if uid.is_none() || passable_by_others(&bin) {
            return bin;
        }
        let copy = self.dir("bin").join("ralc");
        std::fs::copy(&bin, &copy).unwrap();
        std::fs::set_permissions(&copy, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        copy
    }
    fn dir(&self, sub: &str) -> PathBuf {
        let d = self.root.join(sub);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}

/// Whether every directory above `p` lets others pass (`o+x`).
fn passable_by_others(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.ancestors()
        .skip(1)
        .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The process's own environment variable (the test's parent environment).
#[allow(
    clippy::disallowed_methods,
    reason = "test: reads the test's own HOME and PATH to set up the jobs"
)]
fn var(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.is_empty())
}

/// Whether `name` is an executable on `PATH`.
fn on_path(name: &str, path: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Run `argv` under `ralc run -p std:PROFILE` in `cwd`, with `env` set on top of the
/// test's environment (cargo's own variables for this test removed).
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary, which runs the real toolchains confined"
)]
fn ralc_run(profile: &str, cwd: &Path, env: &[(&str, String)], argv: &[&str]) -> Output {
    ralc_run_as(&ralc_bin(), None, profile, cwd, env, argv)
}

/// `ralc_run`, as the user `uid` (group the same) through `setpriv` when given.
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary, which runs the real toolchains confined"
)]
fn ralc_run_as(
    ralc: &Path,
    uid: Option<u32>,
    profile: &str,
    cwd: &Path,
    env: &[(&str, String)],
    argv: &[&str],
) -> Output {
    let mut c = match uid {
        None => std::process::Command::new(ralc),
        Some(u) => {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                &format!("--reuid={u}"),
                &format!("--regid={u}"),
                "--clear-groups",
                "--",
            ])
            .arg(ralc);
            c
        }
    };
    c.current_dir(cwd)
        .args(["run", "-p", &format!("std:{profile}"), "--"])
        .args(argv);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if (k.starts_with("CARGO_") && k != "CARGO_HOME") || k == "RUSTUP_TOOLCHAIN" {
            c.env_remove(&k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("ralc runs")
}

/// Run a setup step on the host, unconfined (creating the fresh project).
#[allow(
    clippy::disallowed_methods,
    reason = "test: sets up a fresh project (git init, git add) on the host"
)]
fn host(cwd: &Path, argv: &[&str]) -> Output {
    let out = std::process::Command::new(argv[0])
        .current_dir(cwd)
        .args(&argv[1..])
        .output()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(out.status.success(), "setup {argv:?}: {}", text(&out));
    out
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[track_caller]
fn ok(what: &str, o: &Output) -> String {
    assert!(o.status.success(), "{what} failed: {}", text(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The jobs under one profile; returns the skips, each with its reason.
fn jobs(profile: &str) -> Vec<String> {
    let mut skips = Vec::new();
    let s = Scratch::new(profile);
    let path = var("PATH").expect("PATH");

    // make + cc: build, then run what was built.
    let c = s.dir("c");
    std::fs::write(
        c.join("hello.c"),
        "#include <stdio.h>\nint main(void){puts(\"c-ran\");return 0;}\n",
    )
    .unwrap();
    std::fs::write(
        c.join("Makefile"),
        "hello: hello.c\n\tcc -O1 -o hello hello.c\n",
    )
    .unwrap();
    ok("make", &ralc_run(profile, &c, &[], &["make"]));
    let out = ok("./hello", &ralc_run(profile, &c, &[], &["./hello"]));
    assert_eq!(out.trim(), "c-ran");

    // cargo test --offline of a new crate (a test that runs). Written by hand, as `cargo
    // new --lib` writes it, with an empty `[workspace]` so that cargo does not take the
    // crate for a member of this repository's workspace (the scratch lies in `target/`).
    assert!(
        on_path("cargo", &path).is_some(),
        "cargo on PATH (rustup's)"
    );
    let krate = s.dir("r/dayone");
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"dayone\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "pub fn add(a: u64, b: u64) -> u64 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn it_works() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n",
    )
    .unwrap();
    let out = ralc_run(profile, &krate, &[], &["cargo", "test", "--offline"]);
    let all = text(&out);
    assert!(out.status.success(), "cargo test: {all}");
    assert!(all.contains("test tests::it_works ... ok"), "{all}");

    // python3: through the pyenv shim when pyenv is installed, then a venv.
    let home = var("HOME").expect("HOME");
    let pyenv_root = var("PYENV_ROOT").unwrap_or_else(|| format!("{home}/.pyenv"));
    let shims = format!("{pyenv_root}/shims");
    let py = s.dir("py");
    let py_env: Vec<(&str, String)> = if Path::new(&shims).join("python3").is_file() {
        let env = vec![("PATH", format!("{shims}:{path}"))];
        let out = ok(
            "python3 through the pyenv shim",
            &ralc_run(
                profile,
                &py,
                &env,
                &["python3", "-c", "import sys; print(sys.prefix)"],
            ),
        );
        // The shim ran pyenv, which chose a version it manages (or the system's).
        assert!(!out.trim().is_empty(), "{out}");
        env
    } else {
        skips.push(format!(
            "{profile}: python3 through the pyenv shim: pyenv is not installed ({shims}/python3 is absent)"
        ));
        Vec::new()
    };
    ok(
        "python3 -m venv",
        &ralc_run(profile, &py, &py_env, &["python3", "-m", "venv", "venv"]),
    );
    let out = ok(
        "the venv's python",
        &ralc_run(
            profile,
            &py,
            &[],
            &["./venv/bin/python", "-c", "import sys; print(sys.prefix)"],
        ),
    );
    assert!(out.trim().ends_with("/py/venv"), "{out}");

    // npm test runs a package script.
    let n = s.dir("n");
    std::fs::write(
        n.join("package.json"),
        r#"{"name":"dayone","version":"1.0.0","private":true,"scripts":{"test":"node -e \"console.log('npm-'+'script-ran')\""}}"#,
    )
    .unwrap();
    let out = ok("npm test", &ralc_run(profile, &n, &[], &["npm", "test"]));
    assert!(out.contains("npm-script-ran"), "{out}");

    // javac + java.
    let j = s.dir("j");
    std::fs::write(
        j.join("Hello.java"),
        "class Hello { public static void main(String[] a) { System.out.println(\"java-ran\"); } }\n",
    )
    .unwrap();
    ok(
        "javac",
        &ralc_run(profile, &j, &[], &["javac", "Hello.java"]),
    );
    let out = ok(
        "java",
        &ralc_run(profile, &j, &[], &["java", "-cp", ".", "Hello"]),
    );
    // The JVM may print its own warnings on stdout under load; the program's line must be there.
    assert!(out.lines().any(|l| l.trim() == "java-ran"), "{out}");

    // git commit.
    let g = s.dir("g");
    host(&g, &["git", "init", "-q"]);
    std::fs::write(g.join("README"), "day one\n").unwrap();
    host(&g, &["git", "add", "README"]);
    let id = [
        "-c",
        "user.name=Day One",
        "-c",
        "user.email=day@one.invalid",
    ];
    let mut argv = vec!["git"];
    argv.extend(id);
    argv.extend(["commit", "-q", "-m", "day one"]);
    ok("git commit", &ralc_run(profile, &g, &[], &argv));
    let log = host(&g, &["git", "log", "--format=%s"]);
    assert_eq!(String::from_utf8_lossy(&log.stdout).trim(), "day one");
    skips
}

fn report(profile: &str, skips: &[String]) {
    for s in skips {
        eprintln!("real jobs: skipped {s}");
    }
    eprintln!(
        "real jobs under std:{profile}: 6 jobs, {} skipped",
        skips.len()
    );
}

/// A hand-made wheel (a zip: the module, METADATA, WHEEL, RECORD), so pip installs it with
/// no index and no build backend.
fn write_wheel(path: &Path) {
    let py = r#"
import base64, hashlib, sys, zipfile
files = {
    "dep/__init__.py": b"VALUE = 'wheel-' + 'loaded'\n",
    "dep-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: dep\nVersion: 1.0\n",
    "dep-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: ralc-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
for n, d in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    rec.append(f"{n},sha256={h},{len(d)}")
rec.append("dep-1.0.dist-info/RECORD,,")
files["dep-1.0.dist-info/RECORD"] = ("\n".join(rec) + "\n").encode()
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
"#;
    host(
        path.parent().unwrap(),
        &["python3", "-c", py, path.to_str().unwrap()],
    );
}

/// The package managers' install paths (issue #27), under `std:reasonable`, with nothing
/// fetched: `npm pack` then `npm install` of the local tarball, `pip install` of a local
/// wheel into a venv, `cargo run --offline` of a crate whose dependency is vendored
/// (`.cargo/config.toml` replaces crates.io with `vendor/`), and `mvn -o package` when
/// Maven and a warm `~/.m2` are here (else a counted skip with its reason).
#[test]
fn package_managers_install_local_packages_under_std_reasonable() {
    let profile = "reasonable";
    let s = Scratch::new("install");
    let mut skips: Vec<String> = Vec::new();
    let home = var("HOME").expect("HOME");

    // npm: its cache (~/.npm) must exist to be granted; npm makes it on first use.
    let npm_cache = Path::new(&home).join(".npm");
    if !npm_cache.is_dir() {
        eprintln!(
            "real jobs: creating {} (npm's cache) on the host, as npm's first run would",
            npm_cache.display()
        );
        std::fs::create_dir_all(&npm_cache).unwrap();
    }
    let dep = s.dir("npm/dep");
    std::fs::write(
        dep.join("package.json"),
        r#"{"name":"dep","version":"1.0.0","main":"index.js"}"#,
    )
    .unwrap();
    std::fs::write(
        dep.join("index.js"),
        "module.exports = 'dep-' + 'loaded';\n",
    )
    .unwrap();
    ok(
        "npm pack",
        &ralc_run(profile, &dep, &[], &["npm", "pack", "--offline"]),
    );
    let app = s.dir("npm/app");
    std::fs::write(
        app.join("package.json"),
        r#"{"name":"app","version":"1.0.0","private":true}"#,
    )
    .unwrap();
    std::fs::copy(dep.join("dep-1.0.0.tgz"), app.join("dep-1.0.0.tgz")).unwrap();
    ok(
        "npm install of a local tarball",
        &ralc_run(
            profile,
            &app,
            &[],
            &[
                "npm",
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                "./dep-1.0.0.tgz",
            ],
        ),
    );
    let out = ok(
        "node requires it",
        &ralc_run(
            profile,
            &app,
            &[],
            &["node", "-e", "console.log(require('dep'))"],
        ),
    );
    assert_eq!(out.trim(), "dep-loaded");

    // pip: a local wheel into a venv.
    let py = s.dir("pip");
    let wheel = py.join("dep-1.0-py3-none-any.whl");
    write_wheel(&wheel);
    ok(
        "python3 -m venv",
        &ralc_run(profile, &py, &[], &["python3", "-m", "venv", "venv"]),
    );
    ok(
        "pip install of a local wheel",
        &ralc_run(
            profile,
            &py,
            &[],
            &[
                "./venv/bin/pip",
                "install",
                "--no-index",
                "./dep-1.0-py3-none-any.whl",
            ],
        ),
    );
    let out = ok(
        "the wheel imports",
        &ralc_run(
            profile,
            &py,
            &[],
            &["./venv/bin/python", "-c", "import dep; print(dep.VALUE)"],
        ),
    );
    assert_eq!(out.trim(), "wheel-loaded");

    // cargo: a vendored dependency, offline.
    let krate = s.dir("cargo/app");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(krate.join("vendor/dep/src")).unwrap();
    std::fs::create_dir_all(krate.join(".cargo")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndep = \"0.1\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        "fn main() {\n    println!(\"{}\", dep::value());\n}\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("vendor/dep/Cargo.toml"),
        "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("vendor/dep/src/lib.rs"),
        "pub fn value() -> String {\n    format!(\"vendored-{}\", \"ran\")\n}\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("vendor/dep/.cargo-checksum.json"),
        format!("{{\"files\":{{}},\"package\":\"{}\"}}", "0".repeat(64)),
    )
    .unwrap();
    std::fs::write(
        krate.join(".cargo/config.toml"),
        "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n[source.vendored-sources]\ndirectory = \"vendor\"\n",
    )
    .unwrap();
    let out = ok(
        "cargo run --offline with a vendored dependency",
        &ralc_run(profile, &krate, &[], &["cargo", "run", "--offline", "-q"]),
    );
    assert_eq!(out.trim(), "vendored-ran");

    // maven offline: needs Maven and the plugins already in ~/.m2.
    let path = var("PATH").expect("PATH");
    let plugins =
        Path::new(&home).join(".m2/repository/org/apache/maven/plugins/maven-compiler-plugin");
    if on_path("mvn", &path).is_none() {
        skips.push("mvn -o package: Maven is not installed".to_string());
    } else if !plugins.is_dir() {
        skips.push(format!(
            "mvn -o package: {} is absent (Maven offline needs its plugins cached; nothing may be fetched here)",
            plugins.display()
        ));
    } else {
        let m = s.dir("mvn");
        std::fs::create_dir_all(m.join("src/main/java")).unwrap();
        std::fs::write(
            m.join("pom.xml"),
            "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version><properties><maven.compiler.release>17</maven.compiler.release></properties></project>\n",
        )
        .unwrap();
        std::fs::write(m.join("src/main/java/T.java"), "class T {}\n").unwrap();
        ok(
            "mvn -o package",
            &ralc_run(profile, &m, &[], &["mvn", "-o", "-q", "package"]),
        );
        assert!(m.join("target/t-1.jar").is_file());
    }
    for sk in &skips {
        eprintln!("real jobs: skipped {sk}");
    }
    eprintln!(
        "package managers under std:{profile}: 4 jobs, {} skipped",
        skips.len()
    );
}

#[test]
fn real_jobs_run_under_std_reasonable() {
    let skips = jobs("reasonable");
    report("reasonable", &skips);
}

#[test]
fn real_jobs_run_under_std_confined() {
    let skips = jobs("confined");
    report("confined", &skips);
}

/// The promises each profile makes, against a fake home (so the user's real `~/.ssh` is
/// never touched): no `~/.ssh`, no write outside the project, and the network only where
/// the profile keeps it.
#[test]
fn the_profiles_keep_their_promises_as_root_and_as_another_user() {
    // As this process's user (root in CI), and as an unprivileged user (`nobody`, 65534)
    // when this process may switch to one.
    promises(None);
    if running_as_root() {
        promises(Some(65534));
    } else {
        eprintln!("real jobs: promises as another user: counted skip, this process is not root");
    }
}

/// Whether this process runs as root (its home is root's, or `id -u` says 0).
#[allow(
    clippy::disallowed_methods,
    reason = "test: asks id -u whether the suite may switch users"
)]
fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn promises(uid: Option<u32>) {
    let who = uid.map_or("this user".to_owned(), |u| format!("uid {u}"));
    let s = Scratch::reachable_by(&format!("promises-{}", uid.unwrap_or(0)), uid);
    let ralc = s.ralc_for(uid);
    let home = s.dir("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_test"), "CONTENT-key").unwrap();
    let proj = s.dir("proj");
    let outside = s.dir("outside");
    if let Some(u) = uid {
        // The other user owns the project and the outside directory: unconfined, it could
        // write both, so only the profile keeps it out of `outside`.
        for d in [&proj, &outside] {
            std::os::unix::fs::chown(d, Some(u), Some(u)).unwrap();
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let path = var("PATH").expect("PATH");
    let py = if Path::new("/usr/bin/python3").is_file() {
        "/usr/bin/python3".to_string()
    } else {
        on_path("python3", &path)
            .expect("python3")
            .to_string_lossy()
            .into_owned()
    };
    let env = vec![("HOME", home.to_string_lossy().into_owned())];
    let m = marker();
    // The control: under std:dangerous the same attempt reads the key, so the check is live.
    let o = ralc_run_as(
        &ralc,
        uid,
        "dangerous",
        &proj,
        &env,
        &[
            "/bin/sh",
            "-c",
            "cat \"$HOME/.ssh/id_test\" >/dev/null && printf '%s-%s\\n' ESC APED; echo done",
        ],
    );
    assert!(ok("the control", &o).contains(&m), "{}", text(&o));
    for profile in ["reasonable", "confined"] {
        // No ~/.ssh: reading the key prints the marker only if it was read.
        let o = ralc_run_as(
        &ralc,
        uid,
            profile,
            &proj,
            &env,
            &[
                "/bin/sh",
                "-c",
                "cat \"$HOME/.ssh/id_test\" 2>/dev/null && printf '%s-%s\\n' ESC APED; ls \"$HOME/.ssh\" 2>/dev/null && printf '%s-%s\\n' ESC APED; echo done",
            ],
        );
        let out = ok("the ~/.ssh attempt ran", &o);
        assert!(out.contains("done"), "{who} {profile}: {}", text(&o));
        assert!(
            !out.contains(&m),
            "{who} {profile}: ~/.ssh was read: {}",
            text(&o)
        );
        assert!(
            !out.contains("CONTENT-key"),
            "{who} {profile}: {}",
            text(&o)
        );

        // No write outside the project.
        let leak = outside.join("leak");
        let cmd = format!(
            "(: > '{}') 2>/dev/null && printf '%s-%s\\n' ESC APED; echo done",
            leak.display()
        );
        let o = ralc_run_as(&ralc, uid, profile, &proj, &env, &["/bin/sh", "-c", &cmd]);
        let out = ok("the write-outside attempt ran", &o);
        assert!(
            out.contains("done") && !out.contains(&m),
            "{who} {profile}: {}",
            text(&o)
        );
        assert!(!leak.exists(), "{who} {profile}: wrote {}", leak.display());
        // The project itself is writable (the control).
        let o = ralc_run_as(
            &ralc,
            uid,
            profile,
            &proj,
            &env,
            &["/bin/sh", "-c", ": > inside && echo wrote"],
        );
        assert!(ok("the control write", &o).contains("wrote"));
        assert!(proj.join("inside").exists());

        // The network: withheld under confined; reached under reasonable (the control).
        let script = format!(
            "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 3).close()\n    print('%s-%s' % ('ESC', 'APED'))\nexcept OSError as e:\n    print('refused', e)\nprint('done')\n"
        );
        let o = ralc_run_as(&ralc, uid, profile, &proj, &env, &[&py, "-c", &script]);
        let out = ok("the network attempt ran", &o);
        assert!(out.contains("done"), "{who} {profile}: {}", text(&o));
        match profile {
            "confined" => assert!(!out.contains(&m), "confined reached the network: {out}"),
            _ => assert!(
                out.contains(&m),
                "the control did not reach the listener: {out}"
            ),
        }
    }
    // Nothing was left behind outside the project.
    let left: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Every existing path matching `pattern`, where a `*` component matches any name.
fn glob(pattern: &str) -> Vec<PathBuf> {
    let mut at = vec![PathBuf::from("/")];
    for comp in pattern.split('/').filter(|c| !c.is_empty()) {
        let mut next = Vec::new();
        for dir in &at {
            if comp == "*" {
                if let Ok(rd) = std::fs::read_dir(dir) {
                    let mut names: Vec<PathBuf> =
                        rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                    names.sort();
                    next.extend(names);
                }
            } else {
                let p = dir.join(comp);
                if p.symlink_metadata().is_ok() {
                    next.push(p);
                }
            }
        }
        at = next;
    }
    at
}

/// What each manager and compiler runs at run time on this machine, by its real path or
/// the link a developer types, is admitted by `std:reasonable`'s selectors (and, for the
/// system's own, by `std:minimal`'s `system:`), asked through `ralc why`. What is not
/// installed here is a counted skip.
#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary to ask why"
)]
fn the_selectors_cover_what_the_managers_run_here() {
    let home = var("HOME").expect("HOME");
    let pyenv = var("PYENV_ROOT").unwrap_or_else(|| format!("{home}/.pyenv"));
    let rustup = var("RUSTUP_HOME").unwrap_or_else(|| format!("{home}/.rustup"));
    let cargo = var("CARGO_HOME").unwrap_or_else(|| format!("{home}/.cargo"));
    let wanted: Vec<(&str, String)> = vec![
        ("minimal", "/usr/lib/gcc/*/*/cc1".into()),
        ("minimal", "/usr/lib/gcc/*/*/collect2".into()),
        ("minimal", "/usr/lib/gcc/*/*/lto-wrapper".into()),
        ("minimal", "/usr/lib/git-core/git-remote-http".into()),
        ("minimal", "/usr/bin/cc".into()),
        ("reasonable", "/usr/bin/java".into()),
        ("reasonable", "/usr/bin/javac".into()),
        ("reasonable", "/usr/bin/npm".into()),
        ("reasonable", "/usr/bin/editor".into()),
        ("reasonable", format!("{pyenv}/shims/python3")),
        ("reasonable", format!("{pyenv}/libexec/pyenv")),
        ("reasonable", format!("{pyenv}/plugins/*/bin/*")),
        ("reasonable", format!("{pyenv}/versions/*/bin/python3")),
        ("reasonable", format!("{rustup}/toolchains/*/bin/rustc")),
        (
            "reasonable",
            format!("{rustup}/toolchains/*/lib/rustlib/*/bin/rust-lld"),
        ),
        ("reasonable", format!("{cargo}/bin/cargo")),
    ];
    let mut asked = 0;
    let mut skips = Vec::new();
    let mut refused = Vec::new();
    for (profile, pattern) in &wanted {
        let found = glob(pattern);
        if found.is_empty() {
            skips.push(format!("{pattern}: not installed here"));
            continue;
        }
        for p in found {
            asked += 1;
            let out = std::process::Command::new(ralc_bin())
                .args(["why", "-p", &format!("std:{profile}"), "exec"])
                .arg(&p)
                .output()
                .unwrap();
            if !out.status.success() {
                refused.push(format!("std:{profile}: {}", text(&out)));
            }
        }
    }
    for s in &skips {
        eprintln!("real jobs: skipped {s}");
    }
    eprintln!(
        "selectors: {asked} programs asked, {} patterns skipped",
        skips.len()
    );
    assert!(asked >= 5, "only {asked} programs found to ask");
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}
