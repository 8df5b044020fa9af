//! The review-safety suite (issue 20, `docs/security.md`): attacker checkouts — links to a
//! fake home's secrets and to `/proc/self/environ`, FIFOs, devices, `/dev/stdin`, a linked
//! or pointing `.git`, billion laughs, deep nesting, long paths, runs of closers, floods
//! of errors, injected newlines, workflow commands and ESC — run through every command and
//! format. Each run must: finish within a time bound under a memory limit, exit 0/1/2 with
//! a coded diagnostic, not panic, print no secret marker (built at run time, so no command
//! line carries it), print no forged line (workflow command, ESC, C1, bidi, NUL), write
//! nothing in the checkout or the home, and leave a pipe on its stdin unread.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]
// Unix only: the attacker checkouts are built of symlinks, FIFOs and device files.
#![cfg(unix)]

use ralc_tests::bin::ralc_bin;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The time bound of one run (generous: the machine is shared).
const TIME_LIMIT: Duration = Duration::from_secs(20);
/// The address-space limit of one run, in KiB.
const MEM_LIMIT_KIB: u64 = 1024 * 1024;

/// The secret marker, built at run time.
fn marker() -> String {
    format!("{}-{}", "ADVSECRET", "c0ffee7a1")
}

/// An attacker's checkout beside a victim's home.
struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    checkout: PathBuf,
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: mkfifo(1) makes the attacker's FIFOs"
)]
fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo runs");
    assert!(st.success(), "mkfifo {}", p.display());
}

fn world() -> World {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let co = dir.path().join("checkout");
    let secret = format!("-----BEGIN KEY-----\n{}\n-----END KEY-----\n", marker());
    write(&home.join(".ssh/id_rsa"), &secret);
    write(
        &home.join(".netrc"),
        &format!("machine x password {}\n", marker()),
    );
    let p = co.join("profiles");
    std::fs::create_dir_all(&p).expect("mkdir");
    // leaks: links out of the checkout
    symlink("/proc/self/environ", p.join("environ.ral")).expect("link");
    symlink("../../home/.ssh/id_rsa", p.join("key.ral")).expect("link");
    symlink(home.join(".netrc"), p.join("netrc.ral")).expect("link");
    symlink("/proc/kmsg", p.join("kmsg.ral")).expect("link");
    // hangs and exhaustion
    mkfifo(&p.join("fifo.ral"));
    symlink("/dev/zero", p.join("zero.ral")).expect("link");
    symlink("/dev/urandom", p.join("urandom.ral")).expect("link");
    symlink("/dev/stdin", p.join("stdin.ral")).expect("link");
    let mut laughs = String::from("let a0 = [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..12 {
        let prev = format!("$a{}", i - 1);
        laughs.push_str(&format!(
            "let a{i} = [{}]\n",
            [prev.as_str(); 10].join(", ")
        ));
    }
    laughs.push_str("[fs: [read: $a11]]\n");
    write(&p.join("laughs.ral"), &laughs);
    let mut deep = String::from("let a0 = [x]\n");
    for i in 1..500 {
        deep.push_str(&format!("let a{i} = [$a{}]\n", i - 1));
    }
    deep.push_str("[fs: [read: $a499]]\n");
    write(&p.join("deep.ral"), &deep);
    write(
        &p.join("long.ral"),
        &format!("[fs: [read: ['/{}']]]\n", vec!["a"; 20_000].join("/")),
    );
    write(
        &p.join("closers.ral"),
        &format!("[exec: []]{}\n", "]".repeat(10_000)),
    );
    // (20,000 in the issue; 3,000 keep this suite quick in a debug build, and the cap
    // of 100 drawn per file is what is tested)
    write(&p.join("errors.ral"), &"[exec: [git: !x]]\n".repeat(3_000));
    write(
        &p.join("longline.ral"),
        &format!("[exec: [{}: 'allow' !]]\n", "w".repeat(50_000)),
    );
    // forged output: newlines, workflow commands, ESC, C1, bidi, NUL in a profile's strings
    write(
        &p.join("inject.ral"),
        "[fs: [read: [\"rel\\n::error file=x,line=1::forged\\n::stop-commands::tok\\n::add-mask::x\\e[31mred\\u{9b}\\u{202e}\\0\"]], exec: [\"\\n::warning::w\": 'allow']]\n",
    );
    write(
        &p.join("inject-name\n::error::forged.ral"),
        "[exec: [git: 'allow'], fs: [read: ['cwd:']]]\n",
    );
    // a profile that freezes `gitdir:` in a checkout whose `.git` the attacker controls
    write(&p.join("gitdir.ral"), "[fs: [read: ['gitdir:']]]\n");
    symlink(home.join(".ssh"), co.join(".git")).expect("link");
    // `.git` pointers: one to a directory whose back-pointer is a kernel file, one whose
    // config is a FIFO, one whose pointer file is itself a FIFO (nested checkouts)
    let sub = co.join("sub1");
    write(&sub.join("gitdir.ral"), "[fs: [read: ['gitdir:']]]\n");
    let gd = co.join("gd1");
    std::fs::create_dir_all(&gd).expect("mkdir");
    symlink("/proc/self/environ", gd.join("gitdir")).expect("link");
    mkfifo(&gd.join("config"));
    write(&sub.join(".git"), &format!("gitdir: {}\n", gd.display()));
    let sub2 = co.join("sub2");
    write(&sub2.join("gitdir.ral"), "[fs: [read: ['gitdir:']]]\n");
    mkfifo(&sub2.join(".git"));
    // questions files
    symlink("../home/.ssh/id_rsa", co.join("questions-link.txt")).expect("link");
    write(
        &co.join("questions-long.txt"),
        &format!(
            "read /{}\nbogus {}\n",
            vec!["a"; 30_000].join("/"),
            "x".repeat(70_000)
        ),
    );
    mkfifo(&co.join("questions-fifo.txt"));
    write(
        &co.join("ok.ral"),
        "[exec: [git: 'allow'], fs: [read: ['cwd:']]]\n",
    );
    World {
        _dir: dir,
        home,
        checkout: co,
    }
}

/// Every file under `root` (links not followed) with its size and modification time.
fn snapshot(root: &Path) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.push((p, m.len(), m.modified().ok()));
        }
    }
    out.sort();
    out
}

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
    unread: Vec<u8>,
}

const PIPE_REST: &[u8] = b"echo the rest of the job script\n";

/// Run ralc in the checkout, bounded in time and memory, with a pipe on stdin that
/// holds the rest of a job script.
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary under review-safety bounds"
)]
fn run(w: &World, args: &[&str]) -> Run {
    let (mut r, mut wr) = std::io::pipe().expect("pipe");
    wr.write_all(PIPE_REST).expect("fill the pipe");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {MEM_LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(ralc_bin())
        .args(args)
        .current_dir(&w.checkout)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &w.home)
        .env("RALC_ADV_TOKEN", marker())
        .stdin(Stdio::from(r.try_clone().expect("clone the pipe")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("ralc spawns");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.by_ref().take(64 << 20).read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.by_ref().take(64 << 20).read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    let stdout = t_out.join().expect("stdout reader");
    let stderr = t_err.join().expect("stderr reader");
    drop(wr);
    let mut unread = Vec::new();
    let _ = r.read_to_end(&mut unread);
    let code = status.and_then(|s| s.code());
    Run {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        took,
        unread,
    }
}

/// A line that forges output: a workflow command (outside the GitHub format's own
/// lines), or a terminal / bidi / NUL character anywhere.
fn forged(line: &str, github: bool) -> Option<&'static str> {
    if line
        .chars()
        .any(|c| c == '\u{1b}' || c == '\0' || ('\u{80}'..='\u{9f}').contains(&c))
    {
        return Some("a control character");
    }
    if line.chars().any(|c| {
        matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{7f}'
        )
    }) {
        return Some("a bidi override");
    }
    let t = line.trim_start();
    if t.starts_with("::") {
        let own = github
            && [
                "::error ",
                "::warning ",
                "::notice ",
                "::error::",
                "::warning::",
                "::notice::",
            ]
            .iter()
            .any(|p| line.starts_with(p));
        if !own {
            return Some("a workflow command");
        }
    }
    None
}

/// A coded answer: an `E…` code, a `why` verdict with its reason, or a batch line's
/// JSON error.
fn coded(text: &str) -> bool {
    if text.contains("  reason: ") || text.contains("\"reason\":\"") || text.contains("{\"line\":")
    {
        return true;
    }
    let b = text.as_bytes();
    b.windows(5)
        .any(|w| w[0] == b'E' && w[1..].iter().all(u8::is_ascii_digit))
}

/// The command lines to try on one layer name.
fn commands(layer: &str, outside: bool) -> Vec<Vec<String>> {
    let mut v: Vec<Vec<&str>> = Vec::new();
    for f in ["human", "json", "sarif", "github"] {
        v.push(vec!["check", "--format", f, layer]);
        v.push(vec!["deputy", "--format", f, layer]);
    }
    for f in ["human", "json"] {
        v.push(vec!["show", "--format", f, layer]);
        v.push(vec![
            "why",
            "--format",
            f,
            "-p",
            layer,
            "read",
            "/etc/passwd",
        ]);
    }
    v.push(vec!["render", "--target", "linux", layer]);
    v.push(vec!["render", "--target", "macos", layer]);
    v.into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(str::to_string).collect();
            if outside {
                c.insert(1, "--allow-outside-links".into());
            }
            c
        })
        .collect()
}

fn judge(w: &World, args: &[String], failures: &mut Vec<String>) -> Run {
    judge_with(w, args, failures, false)
}

fn judge_with_answers(w: &World, args: &[String], failures: &mut Vec<String>) -> Run {
    judge_with(w, args, failures, true)
}

/// As [`judge`]; with `answers`, exit 1 is an answer (a widening, a finding, a file not
/// formatted) and needs no coded diagnostic.
fn judge_with(w: &World, args: &[String], failures: &mut Vec<String>, answers: bool) -> Run {
    let before = (snapshot(&w.checkout), snapshot(&w.home));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(w, &a);
    let after = (snapshot(&w.checkout), snapshot(&w.home));
    let what = format!("`ralc {}`", args.join(" "));
    let github = args.iter().any(|a| a == "github");
    let all = format!("{}{}", r.stdout, r.stderr);
    let mut fail = |m: String| failures.push(format!("{what}: {m}"));
    match r.code {
        None => fail(format!(
            "no exit code (killed after {:?} or by a signal)",
            r.took
        )),
        Some(c) if c > 2 => fail(format!("exit {c}\n{all}")),
        Some(1) if answers => {}
        Some(c) if c != 0 && !coded(&all) => {
            fail(format!("exit {c} without a coded diagnostic:\n{all}"))
        }
        _ => {}
    }
    if r.took > TIME_LIMIT {
        fail(format!("took {:?}", r.took));
    }
    if all.contains("panicked") || all.contains("RUST_BACKTRACE") {
        fail(format!("panicked:\n{}", r.stderr));
    }
    if all.contains(&marker()) {
        fail("printed the secret marker".into());
    }
    for l in r.stdout.lines() {
        if let Some(why) = forged(l, github) {
            fail(format!("stdout line forges output ({why}): {l:?}"));
        }
    }
    for l in r.stderr.lines() {
        if let Some(why) = forged(l, false) {
            fail(format!("stderr line forges output ({why}): {l:?}"));
        }
    }
    if before != after {
        fail("wrote in the checkout or the home".into());
    }
    if r.unread != PIPE_REST {
        fail(format!(
            "consumed its stdin: {} of {} bytes left",
            r.unread.len(),
            PIPE_REST.len()
        ));
    }
    r
}

fn assert_clean(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n---\n")
    );
}

const LAYERS: &[&str] = &[
    "profiles/environ.ral",
    "profiles/key.ral",
    "profiles/netrc.ral",
    "profiles/kmsg.ral",
    "profiles/fifo.ral",
    "profiles/zero.ral",
    "profiles/urandom.ral",
    "profiles/stdin.ral",
    "profiles/laughs.ral",
    "profiles/deep.ral",
    "profiles/long.ral",
    "profiles/closers.ral",
    "profiles/errors.ral",
    "profiles/longline.ral",
    "profiles/inject.ral",
    "profiles/inject-name\n::error::forged.ral",
    "profiles/gitdir.ral",
];

#[test]
fn every_command_and_format_on_every_attack() {
    let w = world();
    let mut failures = Vec::new();
    for layer in LAYERS {
        for c in commands(layer, false) {
            judge(&w, &c, &mut failures);
        }
    }
    assert_clean(failures);
}

#[test]
fn the_opt_in_still_reads_only_regular_files() {
    // With --allow-outside-links the links are followed, and the handle checks still
    // refuse every kernel file, device and FIFO (the key and netrc are then the user's
    // own choice: only their refusal as non-profiles is checked, not their echo).
    let w = world();
    let mut failures = Vec::new();
    for layer in [
        "profiles/environ.ral",
        "profiles/kmsg.ral",
        "profiles/fifo.ral",
        "profiles/zero.ral",
        "profiles/urandom.ral",
        "profiles/stdin.ral",
    ] {
        for c in commands(layer, true) {
            let r = judge(&w, &c, &mut failures);
            let all = format!("{}{}", r.stdout, r.stderr);
            if !all.contains("not a regular file") && !all.contains("kernel interface file") {
                failures.push(format!(
                    "`{}` was not refused by the reader:\n{all}",
                    c.join(" ")
                ));
            }
        }
    }
    assert_clean(failures);
}

#[test]
fn git_pointers_in_nested_checkouts() {
    // `sub1/.git` points at a directory whose back-pointer links to /proc/self/environ and
    // whose config is a FIFO; `sub2/.git` is a FIFO. Freezing `gitdir:` there must neither
    // hang nor echo.
    let w = world();
    let mut failures = Vec::new();
    for (dir, layer) in [("sub1", "gitdir.ral"), ("sub2", "gitdir.ral")] {
        let cwd = w.checkout.join(dir);
        let cwd = cwd.to_str().expect("UTF-8");
        for f in ["human", "json"] {
            let args: Vec<String> = ["check", "--cwd", cwd, "--format", f]
                .iter()
                .map(|s| s.to_string())
                .chain([format!("{dir}/{layer}")])
                .collect();
            judge(&w, &args, &mut failures);
        }
    }
    assert_clean(failures);
}

#[test]
fn why_batch_files() {
    let w = world();
    let mut failures = Vec::new();
    for q in [
        "questions-link.txt",
        "questions-long.txt",
        "questions-fifo.txt",
    ] {
        for f in ["human", "json"] {
            let args: Vec<String> = ["why", "--format", f, "-p", "ok.ral", "--batch", q]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let r = judge(&w, &args, &mut failures);
            if r.stdout.lines().any(|l| l.chars().count() > 1024) {
                failures.push(format!("`{}` echoed a whole long line", args.join(" ")));
            }
        }
    }
    assert_clean(failures);
}

#[test]
fn the_attacks_are_refused_with_their_codes() {
    // Not only harmless: each attack is named by the diagnostic that blocks it.
    let w = world();
    let expect = [
        ("profiles/environ.ral", "outside the checkout"),
        ("profiles/key.ral", "outside the checkout"),
        ("profiles/fifo.ral", "FIFO, not a regular file"),
        ("profiles/laughs.ral", "E0127"),
        ("profiles/deep.ral", "E0127"),
        ("profiles/long.ral", "E0323"),
        ("profiles/closers.ral", "10000 unmatched closing brackets"),
        ("profiles/errors.ral", "more diagnostics of"),
        (
            "profiles/gitdir.ral",
            "is a symbolic link; git never writes one",
        ),
    ];
    let mut failures = Vec::new();
    for (layer, needle) in expect {
        let r = run(&w, &["check", layer]);
        if !r.stdout.contains(needle) {
            failures.push(format!(
                "`ralc check {layer}` does not say {needle:?}:\n{}",
                r.stdout
            ));
        }
    }
    let r = run(&w, &["check", "profiles/errors.ral"]);
    if r.stdout.len() > 200_000 {
        failures.push(format!("3,000 errors printed {} bytes", r.stdout.len()));
    }
    assert_clean(failures);
}

/// Issue 26's checkout: a real git directory whose config holds the CI token (as
/// `actions/checkout` writes it), profiles and a questions file linked into it, a file
/// that is not a profile carrying the token past its first error, a name that is an
/// option, a comment with terminal sequences, and a diff whose change the host cannot
/// show (a removed name veto, a grant of a tool not installed).
#[allow(
    clippy::disallowed_methods,
    reason = "test: git init makes the attacker's checkout a repository"
)]
fn review_world() -> World {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let co = dir.path().join("checkout");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&co).expect("mkdir");
    let st = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&co)
        .status()
        .expect("git runs");
    assert!(st.success());
    let token = format!(
        "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic {}\n",
        marker()
    );
    let mut config = std::fs::read_to_string(co.join(".git/config")).expect("config");
    config.push_str(&token);
    std::fs::write(co.join(".git/config"), &config).expect("config");
    symlink(".git/config", co.join("p.ral")).expect("link");
    symlink(".git/config", co.join("questions.txt")).expect("link");
    // a second name for the config (a hard link: a checkout never holds one), and a
    // hard-linked copy of a valid profile shaped like a04 (the token in an fs entry)
    std::fs::hard_link(co.join(".git/config"), co.join("hard.ral")).expect("hard link");
    std::fs::hard_link(co.join(".git/config"), co.join("hard-questions.txt")).expect("link");
    write(
        &co.join(".git/hooks/shaped"),
        &format!("[fs: [read: ['/{}']]]\n", marker()),
    );
    std::fs::hard_link(co.join(".git/hooks/shaped"), co.join("shaped.ral")).expect("link");
    symlink(".git/description", co.join("description.ral")).expect("link");
    std::fs::create_dir_all(co.join("sub")).expect("mkdir");
    symlink("../.git", co.join("sub/g")).expect("link");
    // not a profile, outside the git directory: quoted at most up to its first error
    write(&co.join("notprofile.ral"), &format!("[core]\n{token}"));
    write(
        &co.join("-p.ral"),
        "[exec: ['system:': 'allow'], fs: [read: ['cwd:']]]\n",
    );
    write(
        &co.join("comment.ral"),
        "# \u{1b}]8;;https://x\u{7}link\u{1b}]8;;\u{7} \u{202e}evil\n[exec: ['system:': 'allow',\n]]\n",
    );
    write(
        &co.join("old.ral"),
        "[exec: ['system:': 'allow', bash: 'deny', curl: 'deny']]\n",
    );
    write(
        &co.join("new.ral"),
        "[exec: ['system:': 'allow', 'evil-tool-absent': 'allow', 'cargo:': 'allow']]\n",
    );
    World {
        _dir: dir,
        home,
        checkout: co,
    }
}

#[test]
fn a_reviewer_reads_nothing_of_a_git_directory_and_quotes_no_non_profile() {
    let w = review_world();
    let mut failures = Vec::new();
    for layer in [
        "p.ral",
        "description.ral",
        "sub/g/config",
        "notprofile.ral",
        "hard.ral",
        "shaped.ral",
    ] {
        let mut cmds = commands(layer, false);
        cmds.extend(commands(layer, true));
        for f in ["human", "json", "sarif", "github"] {
            cmds.push(vec![
                "diff".into(),
                "--format".into(),
                f.into(),
                "ok-missing.ral".into(),
                layer.into(),
            ]);
            cmds.push(vec![
                "diff".into(),
                "--format".into(),
                f.into(),
                layer.into(),
                layer.into(),
            ]);
        }
        cmds.push(vec!["fmt".into(), "--check".into(), layer.into()]);
        cmds.push(vec!["fmt".into(), layer.into()]);
        for c in cmds {
            judge(&w, &c, &mut failures);
        }
    }
    // --batch questions linked into .git: refused, never echoed, even with the opt-in
    for outside in [false, true] {
        let mut c: Vec<String> = ["why", "-p", "./-p.ral", "--batch", "questions.txt"]
            .map(str::to_string)
            .to_vec();
        if outside {
            c.insert(1, "--allow-outside-links".into());
        }
        let r = judge(&w, &c, &mut failures);
        if r.code == Some(0) {
            failures.push(format!("{c:?}: a questions file in .git was answered"));
        }
    }
    // a hard-linked file is refused by name, in every command that reads for review
    for c in [
        vec!["check", "shaped.ral"],
        vec!["show", "shaped.ral"],
        vec!["render", "--target", "linux", "shaped.ral"],
        vec!["fmt", "--check", "shaped.ral"],
        vec!["diff", "shaped.ral", "shaped.ral"],
        vec!["why", "-p", "./-p.ral", "--batch", "hard-questions.txt"],
    ] {
        let r = run(&w, &c);
        let all = format!("{}{}", r.stdout, r.stderr);
        if !matches!(r.code, Some(1 | 2)) || !all.contains("hard links") {
            failures.push(format!(
                "{c:?}: a hard-linked file was not refused as one: exit {:?}\n{all}",
                r.code
            ));
        }
    }
    // the git directory's files are never written (fmt through a link)
    let description = w.checkout.join(".git/description");
    let before = std::fs::read_to_string(&description).expect("description");
    let _ = run(&w, &["fmt", "description.ral"]);
    assert_eq!(
        std::fs::read_to_string(&description).expect("description"),
        before
    );
    assert_clean(failures);
}

#[test]
fn names_after_the_separator_and_comments_are_inert() {
    let w = review_world();
    let mut failures = Vec::new();
    let r = judge_with_answers(
        &w,
        &["check".into(), "--".into(), "-p.ral".into()],
        &mut failures,
    );
    assert!(r.code == Some(0) || r.code == Some(1), "{r:?}");
    let r = judge_with_answers(
        &w,
        &["fmt".into(), "--check".into(), "comment.ral".into()],
        &mut failures,
    );
    assert_eq!(
        r.code,
        Some(1),
        "the comment's file is not formatted: {r:?}"
    );
    assert!(r.stdout.contains("\\u{1b}]8;;"), "{}", r.stdout);
    assert_clean(failures);
}

#[test]
fn diff_reports_what_this_host_cannot_show() {
    let w = review_world();
    let mut failures = Vec::new();
    let c: Vec<String> = ["diff", "--format", "json", "old.ral", "new.ral"]
        .map(str::to_string)
        .to_vec();
    let r = judge_with_answers(&w, &c, &mut failures);
    assert_clean(failures);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["verdict"], "widens", "{}", r.stdout);
    let text = r.stdout.clone();
    for what in [
        "bash",
        "curl",
        "(where 'evil-tool-absent' resolves)",
        "(where 'cargo:' resolves)",
    ] {
        assert!(text.contains(what), "{what} not reported: {text}");
    }
}

#[test]
fn a_file_wide_allow_does_not_lower_a_forbidden_lint() {
    let w = review_world();
    write(
        &w.checkout.join("allowed.ral"),
        "# ralc: allow(deputy-prefix) trust me\n[exec: ['system:': 'allow', 'cwd:/scripts/': 'allow'], fs: [read: ['cwd:'], write: ['cwd:']]]\n",
    );
    std::fs::create_dir_all(w.checkout.join("scripts")).expect("mkdir");
    let mut failures = Vec::new();
    let deny: Vec<String> = ["check", "-D", "deputy-prefix", "allowed.ral"]
        .map(str::to_string)
        .to_vec();
    let r = judge_with_answers(&w, &deny, &mut failures);
    assert!(
        !r.stdout.contains("error[deputy-prefix]") && !r.stdout.contains("[deputy-prefix] Error"),
        "-D is lowered by the file: {}",
        r.stdout
    );
    let forbid: Vec<String> = ["check", "--forbid", "deputy-prefix", "allowed.ral"]
        .map(str::to_string)
        .to_vec();
    let r = judge_with_answers(&w, &forbid, &mut failures);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("deputy-prefix"), "{}", r.stdout);
    let deputy: Vec<String> = ["deputy", "--forbid", "allowed.ral"]
        .map(str::to_string)
        .to_vec();
    let r = judge_with_answers(&w, &deputy, &mut failures);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert_clean(failures);
}

#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs the ralc binary with its stdout closed at once"
)]
fn a_closed_stdout_is_no_panic_on_any_command() {
    let w = review_world();
    write(
        &w.checkout.join("many.ral"),
        &format!(
            "[fs: [read: ['/usr', {}]]]\n",
            (0..3000)
                .map(|i| format!("'/usr/x{i}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let cmds: &[&[&str]] = &[
        &["check", "many.ral"],
        &["check", "--format", "sarif", "many.ral"],
        &["check", "--format", "json", "many.ral"],
        &["show", "many.ral"],
        &["diff", "old.ral", "many.ral"],
        &["deputy", "many.ral"],
        &["fmt", "--check", "many.ral"],
        &["render", "--target", "macos", "many.ral"],
        &["render", "--target", "linux", "many.ral"],
        &["explain", "deputy-prefix"],
    ];
    for args in cmds {
        let mut child = Command::new(ralc_bin())
            .args(*args)
            .current_dir(&w.checkout)
            .env("HOME", &w.home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
    }
}

/// Item 2 of the r2 brief (a17, a18, a36): raw C1 controls and bidi controls in a
/// profile's bytes, in its comments, in its file name and in names on the disk that a
/// `*` entry lists, through every command and format (`diff` and `fmt --check` too).
/// No output line may carry one raw (JSON and SARIF write them `\uXXXX`), and every
/// JSON or SARIF document still parses.
#[test]
fn every_format_escapes_every_control_and_bidi_character() {
    let w = review_world();
    let hostile = "a\u{202e}b\u{9b}c\u{2066}d\u{200f}e\u{2028}f\u{85}g\u{61c}h\u{7f}i";
    let d = w.checkout.join("d");
    std::fs::create_dir_all(&d).expect("mkdir");
    for n in [
        format!("x\n::error::{}", "fromdisk"),
        format!("r{hostile}"),
        "y\u{1b}]8;;http://e\u{1b}\\z".to_string(),
    ] {
        write(&d.join(n), "");
    }
    write(
        &w.checkout.join("raw.ral"),
        &format!(
            "# {hostile}\n[fs: [read: ['cwd:', '/tmp/{hostile}'], write: ['cwd:'], deny_write: ['cwd:d/*', 'cwd:{hostile}']],\n exec: ['system:': 'allow', '{hostile}': 'allow']]\n"
        ),
    );
    // an error after the raw bytes: the snippet quotes them
    write(
        &w.checkout.join("rawerr.ral"),
        &format!("[fs: [read: ['/tmp/{hostile}']], exec: [{hostile}: 7]]\n"),
    );
    write(
        &w.checkout.join(format!("n{hostile}.ral")),
        "[fs: [read: ['cwd:']],  exec: ['system:':   'allow']]\n",
    );
    let named = format!("n{hostile}.ral");
    // a17: fmt --check's diff header names the file; a newline in it forged `::error::`
    let forging = format!("e/a\n::{}::pwned.ral", "error");
    write(
        &w.checkout.join(&forging),
        "[fs: [read: ['cwd:']],  exec: ['system:':   'allow']]\n",
    );
    let mut failures = Vec::new();
    for layer in ["raw.ral", "rawerr.ral", named.as_str(), forging.as_str()] {
        let mut cmds = commands(layer, false);
        for f in ["human", "json", "sarif", "github"] {
            cmds.push(
                ["diff", "--format", f, "old.ral", layer]
                    .map(str::to_string)
                    .to_vec(),
            );
        }
        cmds.push(["fmt", "--check", layer].map(str::to_string).to_vec());
        for c in cmds {
            let r = judge_with_answers(&w, &c, &mut failures);
            let machine = c.iter().any(|a| a == "json" || a == "sarif");
            if machine && !r.stdout.trim().is_empty() {
                for doc in r.stdout.lines().filter(|l| l.starts_with('{')).take(1) {
                    let whole = if c.iter().any(|a| a == "sarif") || c[0] == "show" {
                        r.stdout.as_str()
                    } else {
                        doc
                    };
                    if serde_json::from_str::<serde_json::Value>(whole).is_err() {
                        failures.push(format!("{c:?}: not valid JSON:\n{}", r.stdout));
                    }
                }
            }
        }
    }
    assert_clean(failures);
}

/// Item 3 of the r2 brief (a41): `render --argv` is a reviewer's command and never
/// writes: a profile whose write exclusions are absent (in the checkout and in the
/// home, beneath writable grants) and whose checkout lacks git state leaves both trees
/// exactly as they were (names, sizes, modification times), and the argv is printed.
#[test]
fn render_argv_leaves_the_disk_unchanged() {
    let w = review_world();
    write(
        &w.checkout.join("p41.ral"),
        "[exec: ['system:': 'allow'], fs: [read: ['/usr'], write: ['cwd:', '~/'], deny_write: ['~/.bashrc', '~/.config/autostart/evil.desktop', '~/.ssh/authorized_keys', 'cwd:absent/x', 'cwd:.envrc']]]\n",
    );
    let before = (snapshot(&w.checkout), snapshot(&w.home));
    let r = run(
        &w,
        &[
            "render",
            "--target",
            "linux",
            "--argv",
            "-p",
            "p41.ral",
            "--",
            "/usr/bin/true",
        ],
    );
    let after = (snapshot(&w.checkout), snapshot(&w.home));
    assert_eq!(
        r.code,
        Some(0),
        "render --argv did not render (bwrap on /usr/bin:/bin?):\n{}{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains("--warrant"), "{}", r.stdout);
    assert!(
        r.stderr.contains("render makes none"),
        "the absent exclusions are not named: {}",
        r.stderr
    );
    let gone = |a: &[(PathBuf, u64, Option<std::time::SystemTime>)],
                b: &[(PathBuf, u64, Option<std::time::SystemTime>)]| {
        a.iter()
            .filter(|x| !b.contains(x))
            .map(|x| format!("{x:?}"))
            .collect::<Vec<_>>()
    };
    assert!(
        before == after,
        "render --argv changed the disk: before only {:?}; after only {:?}",
        [gone(&before.0, &after.0), gone(&before.1, &after.1)].concat(),
        [gone(&after.0, &before.0), gone(&after.1, &before.1)].concat()
    );
}

/// a27/a28/a11: `deputy --forbid` and `check --forbid deputy-prefix` judge the write region
/// by the model over real paths, whatever its spelling: the root written as `'/'`, `'/.'`,
/// `'/usr/..'`, `'/proc/self/root'`, an in-tree link to `/`, or beside `'/usr'`; and an
/// exec file key inside a write grant (plant, then run).
#[test]
fn a_write_region_holding_an_exec_region_is_named_whatever_its_spelling() {
    let dir = tempfile::tempdir().expect("scratch");
    symlink("/", dir.path().join("toroot")).expect("link");
    let mut shapes: Vec<String> = [
        "'/'",
        "'/.'",
        "'/usr/..'",
        "'/proc/self/root'",
        "'cwd:toroot'",
        "'/usr', '/'",
    ]
    .iter()
    .map(|w| format!("[exec: ['/usr/bin/': 'allow'], fs: [write: [{w}]]]\n"))
    .collect();
    shapes.push("[exec: ['cwd:build/x': 'allow'], fs: [write: ['cwd:build']]]\n".into());
    for shape in shapes {
        write(&dir.path().join("p.ral"), &shape);
        for args in [
            vec!["deputy", "--forbid", "--", "p.ral"],
            vec!["check", "--forbid", "deputy-prefix", "--", "p.ral"],
        ] {
            let (code, out, err) = ralc_tests::bin::run_ralc(dir.path(), &args);
            assert_eq!(code, Some(1), "{shape} {args:?}: {out}{err}");
        }
    }
}
