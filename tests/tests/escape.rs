//! The escape suite: each attempt in every `tests/escape/attempts*.txt` is a profile and a
//! hostile command run through the `ralc run` binary under the real bwrap, Landlock and
//! seccomp. The harness runs a `sh -c` attempt as `printf '%s-%s\n' LAUNCH ED; COMMAND`:
//! `LAUNCH-ED` on stdout proves the program ran, so a refused launch never counts as
//! blocked (an attempt that must be refused before anything runs says so with a last field
//! `| refused: TEXT`: exit 126 and TEXT on stderr). `$ESCAPED` expands to a command printing
//! `ESC-APED`, a marker no command line contains; it showing on either stream is an escape.
//! Each attempt must also leak nothing and leave nothing behind: no SECRET in the output, no
//! secret `CONTENT-` on either stream, every secret intact, no `leak*` file in the scratch
//! tree nor a new one in the host's temp dirs, no setuid/setgid file, file capability or
//! device node in the scratch tree, no host daemon's listener reached. `positive.txt` holds the controls that must succeed, so a broken launch
//! cannot pass for confinement. A missing bwrap or ralc binary fails the suite; nothing is
//! skipped. The closing line counts the attempts of this pass (root or unprivileged).
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

use ralc_tests::bin::{ralc_bin, require_bwrap};
use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `tests/escape`, or the copy named by `RALC_ESCAPE_DATA`: scripts/test stages the suite
/// where an unprivileged user can reach it, since the checkout may sit under a directory
/// only root may enter (`/root`, a `mktemp -d`).
#[allow(
    clippy::disallowed_methods,
    reason = "test: the harness's own staging variable, not a profile's environment"
)]
fn data_dir() -> PathBuf {
    std::env::var_os("RALC_ESCAPE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("escape"))
}

fn data(name: &str) -> String {
    let p = data_dir().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

struct Scratch {
    _dir: tempfile::TempDir,
    root: String,
    secrets: BTreeMap<String, String>,
    /// Host daemons: unix listeners the envelope must not reach (path or `@abstract`).
    daemons: Vec<(String, UnixListener)>,
    /// The abstract socket's name (without its leading NUL).
    abstract_name: String,
}

/// The effective uid of this process, from /proc.
fn euid() -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_string()
}

/// The session-agent variables the harness sets for `ralc run`, each naming a host
/// daemon of the scratch tree (`$ROOT` substituted); no profile of the suite grants them.
const AGENT_ENV: &[(&str, &str)] = &[
    ("SSH_AUTH_SOCK", "$ROOT/tmp/ssh-ralcescape/agent.1"),
    ("TMUX", "$ROOT/tmp/tmux-$UID/default,1,0"),
    ("DBUS_SESSION_BUS_ADDRESS", "unix:path=$ROOT/proj/host.sock"),
    ("GPG_AGENT_INFO", "$ROOT/outside/S.gpg-agent:1:1"),
    ("DISPLAY", ":93"),
    ("WAYLAND_DISPLAY", "wayland-93"),
    ("XAUTHORITY", "$ROOT/outside/Xauthority"),
    ("STY", "93.pts-9.host"),
];

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
    for d in ["proj/secrets", "outside", "ro", "tmp"] {
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
    // The project is a git repository (its skeleton: what git needs to call it one), with
    // a config the host's git reads (issue #25).
    for d in ["proj/.git/objects", "proj/.git/refs/heads"] {
        std::fs::create_dir_all(format!("{root}/{d}")).unwrap();
    }
    std::fs::write(format!("{root}/proj/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        format!("{root}/proj/.git/config"),
        "[core]\n\trepositoryformatversion = 0\n",
    )
    .unwrap();
    std::fs::write(format!("{root}/proj/plain.txt"), "plain-data").unwrap();
    // A script whose interpreter no profile of the suite names as itself: its carrier.
    let script = format!("{root}/proj/run.sh");
    std::fs::write(&script, "#!/bin/sh\necho script-ran-$1\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // A program the `denyfile` profile denies by path inside its runnable, writable cwd.
    let denied = format!("{root}/proj/denied-tool");
    std::fs::write(&denied, "#!/bin/sh\necho SECRET-denied-tool-ran\n").unwrap();
    std::fs::set_permissions(&denied, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Host daemons: a socket in the write region, one in the read-only region, the user's
    // tmux and ssh-agent in the temp dir `ralc run` is given, and an abstract socket.
    let uid = euid();
    let mut daemons = Vec::new();
    for p in [
        format!("{root}/proj/host.sock"),
        format!("{root}/ro/host.sock"),
        format!("{root}/tmp/tmux-{uid}/default"),
        format!("{root}/tmp/ssh-ralcescape/agent.1"),
        // A daemon's socket deep in the write region and in the temp dir (issue #25).
        format!("{root}/proj/build/run/d.sock"),
        format!("{root}/tmp/build/run/d.sock"),
    ] {
        if let Some(d) = Path::new(&p).parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        let l = UnixListener::bind(&p).unwrap();
        l.set_nonblocking(true).unwrap();
        daemons.push((p, l));
    }
    let abstract_name = format!("ralc-escape-{}-{}", std::process::id(), dir_tag(&root));
    let addr =
        <std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(
            abstract_name.as_bytes(),
        )
        .unwrap();
    let l = UnixListener::bind_addr(&addr).unwrap();
    l.set_nonblocking(true).unwrap();
    daemons.push((format!("@{abstract_name}"), l));
    Scratch {
        _dir: dir,
        root,
        secrets,
        daemons,
        abstract_name,
    }
}

/// The scratch tree's own random suffix, to keep abstract names apart.
fn dir_tag(root: &str) -> String {
    root.rsplit('/')
        .next()
        .unwrap_or("")
        .replace(|c: char| !c.is_ascii_alphanumeric(), "")
}

struct Vars {
    root: String,
    ralc: String,
    port: u16,
    abstract_name: String,
}

/// What the harness prints before every `sh -c` attempt: proof that the program ran.
const LAUNCHED: &str = "LAUNCH-ED";
/// What `$ESCAPED` prints: proof that a hostile step succeeded.
const ESCAPED: &str = "ESC-APED";

fn subst(s: &str, v: &Vars) -> String {
    s.replace("$ESCAPED", "printf '%s-%s\\n' ESC APED")
        .replace("$ABSTRACT", &v.abstract_name)
        .replace("$UID", &euid())
        .replace("$HOSTPID", &std::process::id().to_string())
        .replace("$ROOT", &v.root)
        .replace("$RALC", &v.ralc)
        .replace("$PORT", &v.port.to_string())
}

#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn ralc_run(profile: &str, command: &str, s: &Scratch, v: &Vars) -> Output {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    // `std:NAME` is an embedded profile; any other name is `tests/escape/NAME.ral`.
    let pfile = if profile.starts_with("std:") {
        profile.to_string()
    } else {
        let text = subst(&data(&format!("{profile}.ral")), v);
        let pfile = format!("{}/{profile}.ral", s.root);
        std::fs::write(&pfile, text).unwrap();
        pfile
    };
    // `<tcp> COMMAND`: the program's stdin is a TCP connection to the host's listener.
    let (tcp_stdin, command) = match command.strip_prefix("<tcp> ") {
        Some(rest) => (true, rest),
        None => (false, command),
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
            let marked = format!("printf '%s-%s\\n' LAUNCH ED; {cmd}");
            c.args(["/bin/sh", "-c", &marked]);
        }
    }
    // The temp dir ralc is given is the scratch tree's, and the session agents named in
    // the environment are the scratch tree's host daemons.
    c.env("TMPDIR", format!("{}/tmp", s.root));
    for (k, val) in AGENT_ENV {
        c.env(k, subst(val, v));
    }
    if tcp_stdin {
        let stream = TcpStream::connect(("127.0.0.1", v.port)).unwrap();
        c.stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            stream,
        )));
    } else {
        c.stdin(std::process::Stdio::null());
    }
    // Descriptors the caller leaves open (ralc must close them before the program runs):
    // 5 a denied file, 6 a directory outside the grant, 7 a connected TCP socket.
    let denied = std::fs::File::open(format!("{}/proj/.env", s.root)).unwrap();
    let outside = std::fs::File::open(format!("{}/outside", s.root)).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", v.port)).unwrap();
    let leaked = [
        (denied.as_raw_fd(), 5),
        (outside.as_raw_fd(), 6),
        (tcp.as_raw_fd(), 7),
    ];
    // SAFETY: the closure only calls dup2, async-signal-safe, over an array made before
    // the fork; dup2 clears close-on-exec on the copies.
    unsafe {
        c.pre_exec(move || {
            for (src, dst) in leaked {
                if libc::dup2(src, dst) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
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

/// The setuid/setgid files and device nodes under `dir`: what an attempt must never leave
/// for the host to run or open.
fn privileged_files(dir: &Path, out: &mut Vec<String>) {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let Ok(md) = e.path().symlink_metadata() else {
            continue;
        };
        let t = md.file_type();
        if t.is_block_device() || t.is_char_device() {
            out.push(format!("device node {}", e.path().display()));
        } else if md.permissions().mode() & 0o6000 != 0 {
            out.push(format!(
                "mode {:o} on {}",
                md.permissions().mode() & 0o7777,
                e.path().display()
            ));
        }
        if t.is_file() && has_file_capability(&e.path()) {
            out.push(format!("file capability on {}", e.path().display()));
        }
        if t.is_dir() {
            privileged_files(&e.path(), out);
        }
    }
}

/// Does `path` carry a `security.capability` attribute (file capabilities)?
fn has_file_capability(path: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: valid C strings; a size query with no buffer.
    let n = unsafe {
        libc::lgetxattr(
            c.as_ptr(),
            c"security.capability".as_ptr(),
            std::ptr::null_mut(),
            0,
        )
    };
    n >= 0
}

/// The host's shared temp dirs, outside the scratch tree: an attempt's `leak*` file must
/// not appear there either.
const HOST_TEMP: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

fn host_leaks() -> std::collections::BTreeSet<String> {
    let mut set = std::collections::BTreeSet::new();
    for d in HOST_TEMP {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with("leak") {
                set.insert(e.path().display().to_string());
            }
        }
    }
    set
}

/// One attempt line: `name | profile | command`, or `name | profile | command | refused:
/// TEXT` when the launch itself must be refused.
struct Attempt {
    file: String,
    name: String,
    profile: String,
    command: String,
    refused: Option<String>,
}

/// Every `tests/escape/attempts*.txt`, sorted by file name.
fn attempts() -> Vec<Attempt> {
    let dir = data_dir();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("attempts") && n.ends_with(".txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        for case in cases(&file, false) {
            let [name, profile, rest] = &case[..] else {
                panic!("{file}: bad attempt line: {case:?}");
            };
            let (command, refused) = match rest.rsplit_once(" | ") {
                Some((cmd, tail)) if tail.trim_start().starts_with("refused:") => (
                    cmd.trim().to_string(),
                    Some(tail.trim_start()["refused:".len()..].trim().to_string()),
                ),
                _ => (rest.clone(), None),
            };
            assert!(
                refused.is_some() || !command.starts_with('!'),
                "{file}: {name}: a direct (`!`) attempt cannot prove it ran; give it `| refused: TEXT`"
            );
            out.push(Attempt {
                file: file.clone(),
                name: name.clone(),
                profile: profile.clone(),
                command,
                refused,
            });
        }
    }
    out
}

/// `root` or `unprivileged`: who runs this pass (the effective uid, from /proc).
fn pass_name() -> &'static str {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let euid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("");
    if euid == "0" {
        "root"
    } else {
        "unprivileged"
    }
}

/// Why one attempt failed the suite (empty: it was blocked and left nothing behind).
fn judge(
    a: &Attempt,
    out: &Output,
    s: &Scratch,
    host_before: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut why = Vec::new();
    match &a.refused {
        Some(text) => {
            if out.status.code() != Some(126) || !stderr.contains(text.as_str()) {
                why.push(format!(
                    "the launch was not refused with exit 126 and {text:?}"
                ));
            }
            if stdout.contains(LAUNCHED) {
                why.push("the program ran".to_string());
            }
        }
        None => {
            if !stdout.contains(LAUNCHED) {
                why.push(
                    "the program never ran (a refused launch is not a blocked attempt)".to_string(),
                );
            }
        }
    }
    if stdout.contains(ESCAPED) || stderr.contains(ESCAPED) {
        why.push("a hostile step succeeded".to_string());
    }
    for marker in ["SECRET", "uid=", "root:"] {
        if stdout.contains(marker) {
            why.push(format!("stdout shows {marker}"));
        }
    }
    // A secret's content never shows, on either stream (an error message may name a
    // denied file; its content is what must not leak).
    if stdout.contains("CONTENT-") || stderr.contains("CONTENT-") {
        why.push("a secret's content shows".to_string());
    }
    let mut found = Vec::new();
    leaks(Path::new(&s.root), &mut found);
    privileged_files(Path::new(&s.root), &mut found);
    found.extend(host_leaks().difference(host_before).cloned());
    if !found.is_empty() {
        why.push(format!("left behind {found:?}"));
    }
    for (path, content) in &s.secrets {
        if std::fs::read_to_string(path).ok().as_deref() != Some(content.as_str()) {
            why.push(format!("{path} changed or vanished"));
        }
    }
    for (name, l) in &s.daemons {
        if l.accept().is_ok() {
            why.push(format!("the host daemon at {name} was reached"));
        }
    }
    why
}

#[test]
fn escape_attempts_fail_and_leak_nothing() {
    use std::io::Write;
    require_bwrap();
    let ralc = ralc_bin().to_str().unwrap().to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let attempts = attempts();
    assert!(attempts.len() >= 30, "only {} attempts", attempts.len());
    let md = |p: &str| {
        std::fs::metadata(p)
            .map(|m| (m.len(), m.modified().ok()))
            .ok()
    };
    let ralc_before = md(&ralc);
    let mut failures = Vec::new();
    for a in &attempts {
        let s = scratch();
        let v = Vars {
            root: s.root.clone(),
            ralc: ralc.clone(),
            port,
            abstract_name: s.abstract_name.clone(),
        };
        let host_before = host_leaks();
        let out = ralc_run(&a.profile, &a.command, &s, &v);
        // The harness's own connections (the leaked descriptor 7, a TCP stdin) are
        // accepted and closed, so the listener's backlog never fills over a long suite.
        while listener.accept().is_ok() {}
        let why = judge(a, &out, &s, &host_before);
        if !why.is_empty() {
            failures.push(format!(
                "{} ({}): {} (status {:?})\n  stdout: {:?}\n  stderr: {:?}",
                a.name,
                a.file,
                why.join("; "),
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert_eq!(md(&ralc), ralc_before, "ralc's own executable changed");
    drop(listener);
    // The closing line goes to the real stdout (libtest captures only `print!`), so
    // scripts/test shows it for each pass.
    let _ = writeln!(
        std::io::stdout(),
        "\nescape attempts ({}): {} blocked, {} escaped",
        pass_name(),
        attempts.len() - failures.len(),
        failures.len()
    );
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
    require_bwrap();
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
            abstract_name: s.abstract_name.clone(),
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
    require_bwrap();
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
    require_bwrap();
    let s = scratch();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let v = Vars {
        root: s.root.clone(),
        ralc: ralc_bin().to_str().unwrap().to_string(),
        port: listener.local_addr().unwrap().port(),
        abstract_name: s.abstract_name.clone(),
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

/// A host daemon whose socket appears in the temp dir after the launch (a tmux server
/// started later, issue #25) is not reachable: the program's temp dir is a private one
/// made for the run, removed when it ends, and the host's temp dir keeps nothing of it.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_socket_made_in_the_temp_dir_after_the_launch_is_unreachable() {
    require_bwrap();
    let s = scratch();
    let tmp = format!("{}/tmp", s.root);
    let late = [
        format!("{tmp}/tmux-late/default"),
        format!("{tmp}/late/build/d.sock"),
    ];
    let script = format!(
        "printf '%s-%s\\n' LAUNCH ED; i=0; while [ $i -lt 40 ] && [ ! -e $TMPDIR/late-go ]; do sleep 0.1; i=$((i+1)); done; \
         for p in {} {}; do /usr/bin/python3 -c \"import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])\" $p 2>/dev/null && printf '%s-%s\\n' ESC APED; done; \
         ls -A $TMPDIR | grep -q late && printf '%s-%s\\n' ESC APED; echo inside > $TMPDIR/leak-private; true",
        late[0], late[1]
    );
    let child = std::process::Command::new(ralc_bin())
        .current_dir(format!("{}/proj", s.root))
        .env("TMPDIR", &tmp)
        .args(["run", "-p", "std:minimal", "--", "/bin/sh", "-c", &script])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ralc");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut listeners = Vec::new();
    for p in &late {
        std::fs::create_dir_all(Path::new(p).parent().unwrap()).unwrap();
        let l = UnixListener::bind(p).unwrap();
        l.set_nonblocking(true).unwrap();
        listeners.push((p.clone(), l));
    }
    // The program's signal to go, in the host's temp dir: it must not see it either.
    std::fs::write(format!("{tmp}/late-go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains(LAUNCHED),
        "never ran: {stdout:?} {stderr:?}"
    );
    assert!(
        !stdout.contains(ESCAPED) && !stderr.contains(ESCAPED),
        "{stdout:?} {stderr:?}"
    );
    for (p, l) in &listeners {
        assert!(l.accept().is_err(), "the late daemon at {p} was reached");
    }
    let left: Vec<String> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ralc-run-") || n.starts_with("leak"))
        .collect();
    assert!(left.is_empty(), "left in the host's temp dir: {left:?}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// A `-p` layer file reached through a symlink, or with a second hard link, is refused
/// before anything runs (issue #25): the other name could be rewritten for the next run.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_layer_file_through_a_symlink_or_a_hard_link_is_refused() {
    require_bwrap();
    let s = scratch();
    let proj = format!("{}/proj", s.root);
    let real = format!("{}/layer.ral", s.root);
    std::fs::write(&real, data("confined.ral").replace("$ROOT", &s.root)).unwrap();
    let marked = "printf '%s-%s\\n' LAUNCH ED";
    let run = |p: &str| {
        std::process::Command::new(ralc_bin())
            .current_dir(&proj)
            .args(["run", "-p", p, "--", "/bin/sh", "-c", marked])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("spawn ralc")
    };
    let ok = run(&real);
    assert!(
        String::from_utf8_lossy(&ok.stdout).contains(LAUNCHED),
        "the control did not run: {ok:?}"
    );
    std::os::unix::fs::symlink(&real, format!("{proj}/via-link.ral")).unwrap();
    std::os::unix::fs::symlink(&s.root, format!("{proj}/up")).unwrap();
    for p in [
        format!("{proj}/via-link.ral"),
        format!("{proj}/up/layer.ral"),
    ] {
        let out = run(&p);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(126), "{p}: {err}");
        assert!(err.contains("through the symlink"), "{p}: {err}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains(LAUNCHED));
    }
    std::fs::hard_link(&real, format!("{proj}/second.ral")).unwrap();
    let out = run(&real);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{err}");
    assert!(err.contains("hard links"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(LAUNCHED));
}

/// A path the program chooses, holding a newline and a forged workflow command, ESC, OSC
/// and U+202E, is printed escaped in `ralc run`'s hints (issue #25): no forged line, no
/// raw control byte on stderr.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_hostile_path_in_a_hint_is_printed_escaped() {
    require_bwrap();
    let s = scratch();
    let evil = format!(
        "{}/ro/x\n::error::forged\u{1b}]8;;e\u{7}\u{202e}gpj.exe",
        s.root
    );
    // The program's own complaint goes to /dev/null: only ralc's lines are judged.
    let script = "printf '%s-%s\\n' LAUNCH ED; echo x 2>/dev/null > \"$1\"; exit 3";
    // The profile file, where ralc_run would write it.
    std::fs::write(
        format!("{}/confined.ral", s.root),
        data("confined.ral").replace("$ROOT", &s.root),
    )
    .unwrap();
    let out = std::process::Command::new(ralc_bin())
        .current_dir(format!("{}/proj", s.root))
        .args(["run", "--explain", "-p"])
        .arg(format!("{}/confined.ral", s.root))
        .args(["--", "/bin/sh", "-c", script, "sh", &evil])
        .stdin(std::process::Stdio::null())
        .env("TMPDIR", format!("{}/tmp", s.root))
        .output()
        .expect("spawn ralc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains(LAUNCHED), "never ran: {stderr:?}");
    assert_eq!(out.status.code(), Some(3), "{stderr:?}");
    assert!(
        stderr.contains("ralc run: refused"),
        "no hint to judge: {stderr:?}"
    );
    assert!(
        stderr.lines().all(|l| !l.starts_with("::")),
        "a forged workflow line: {stderr:?}"
    );
    for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!stderr.contains(bad), "raw {bad:?} on stderr: {stderr:?}");
    }
    assert!(
        std::fs::symlink_metadata(&evil).is_err(),
        "the write landed"
    );
}

/// ralc run from a directory the program may write (`./tool/ralc` under `cwd:`): the
/// directories above it cannot be renamed and the file cannot be rewritten, so the host's
/// next launch runs the same ralc (issue #25).
#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs a copy of the ralc binary"
)]
fn the_launcher_under_a_write_grant_cannot_be_swapped() {
    require_bwrap();
    let s = scratch();
    let proj = format!("{}/proj", s.root);
    std::fs::create_dir_all(format!("{proj}/tool/bin")).unwrap();
    let copy = format!("{proj}/tool/bin/ralc");
    std::fs::copy(ralc_bin(), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    std::fs::write(
        format!("{}/confined.ral", s.root),
        data("confined.ral").replace("$ROOT", &s.root),
    )
    .unwrap();
    let script = "printf '%s-%s\\n' LAUNCH ED; \
        mv tool leak-tool 2>/dev/null && printf '%s-%s\\n' ESC APED; \
        mv tool/bin tool/leak-bin 2>/dev/null && printf '%s-%s\\n' ESC APED; \
        (echo '#!/bin/sh' > tool/bin/ralc) 2>/dev/null && printf '%s-%s\\n' ESC APED; \
        rm -f tool/bin/ralc 2>/dev/null; test -e tool/bin/ralc || printf '%s-%s\\n' ESC APED; true";
    let out = std::process::Command::new(&copy)
        .current_dir(&proj)
        .args(["run", "-p"])
        .arg(format!("{}/confined.ral", s.root))
        .args(["--", "/bin/sh", "-c", script])
        .stdin(std::process::Stdio::null())
        .env("TMPDIR", format!("{}/tmp", s.root))
        .output()
        .expect("spawn ralc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains(LAUNCHED), "never ran: {stderr:?}");
    assert!(!stdout.contains(ESCAPED), "{stdout:?} {stderr:?}");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        before,
        "the launcher changed"
    );
    assert!(!Path::new(&format!("{proj}/leak-tool")).exists());
}

/// A profile granting only a subdirectory of the working directory: the program starts
/// in its working directory (shown empty and read-only), never in `/` (issue #27).
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn the_program_starts_in_its_working_directory_when_only_a_subdirectory_is_granted() {
    require_bwrap();
    let s = scratch();
    let proj = format!("{}/proj", s.root);
    std::fs::create_dir_all(format!("{proj}/src")).unwrap();
    std::fs::write(format!("{proj}/src/a.txt"), "in-src").unwrap();
    let profile = format!("{}/sub.ral", s.root);
    std::fs::write(
        &profile,
        "[exec: ['system:': 'allow'], fs: [write: ['cwd:src']]]\n",
    )
    .unwrap();
    let out = std::process::Command::new(ralc_bin())
        .current_dir(&proj)
        .args(["run", "-p", &profile, "--", "/bin/sh", "-c"])
        .arg("pwd; cat src/a.txt; echo x > src/b.txt; (echo y > leak-here) 2>/dev/null; true")
        .stdin(std::process::Stdio::null())
        .env("TMPDIR", format!("{}/tmp", s.root))
        .output()
        .expect("spawn ralc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        vec![proj.as_str(), "in-src"],
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(Path::new(&format!("{proj}/src/b.txt")).exists());
    assert!(!Path::new(&format!("{proj}/leak-here")).exists());
}

/// A grant spelled through a symlink that lives outside every granted tree: the program
/// sees the link where the profile named it, as the link (issue #27).
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_grant_through_a_link_outside_every_grant_shows_the_link() {
    require_bwrap();
    let s = scratch();
    let proj = format!("{}/proj", s.root);
    std::fs::create_dir_all(format!("{}/shared", s.root)).unwrap();
    std::fs::write(format!("{}/shared/f", s.root), "shared-data").unwrap();
    std::os::unix::fs::symlink(
        format!("{}/shared", s.root),
        format!("{}/link-shared", s.root),
    )
    .unwrap();
    let profile = format!("{}/link.ral", s.root);
    std::fs::write(
        &profile,
        format!(
            "[exec: ['system:': 'allow'], fs: [read: ['{}/link-shared'], write: ['cwd:']]]\n",
            s.root
        ),
    )
    .unwrap();
    let out = std::process::Command::new(ralc_bin())
        .current_dir(&proj)
        .args(["run", "-p", &profile, "--", "/bin/sh", "-c"])
        .arg(format!(
            "cat {r}/link-shared/f; echo; readlink {r}/link-shared; (echo x > {r}/link-shared/leak) 2>/dev/null; true",
            r = s.root
        ))
        .stdin(std::process::Stdio::null())
        .env("TMPDIR", format!("{}/tmp", s.root))
        .output()
        .expect("spawn ralc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!("shared-data\n{}/shared\n", s.root);
    assert_eq!(stdout, want, "{:?}", String::from_utf8_lossy(&out.stderr));
    assert!(!Path::new(&format!("{}/shared/leak", s.root)).exists());
}

/// Under `offline`, a standard stream that is a unix socket to a host daemon (issue #25,
/// a3-08) never reaches the program: ralc relays it through a pipe, one way. The bytes
/// the host sends arrive on stdin and the program's stdout arrives on the host's socket
/// (systemd's journald stream keeps working), but the program cannot write into its
/// stdin's socket nor use either descriptor as a socket.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_socket_stream_under_offline_is_relayed_through_a_pipe() {
    use std::io::{Read, Write};
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    require_bwrap();
    let s = scratch();
    let (stdin_prog, mut stdin_host) = UnixStream::pair().unwrap();
    let (stdout_prog, mut stdout_host) = UnixStream::pair().unwrap();
    let script = "read line; printf '%s-%s:%s\\n' GOT LINE \"$line\"; \
        if printf x >&0 2>/dev/null; then printf '%s-%s\\n' ESC APED; fi; \
        python3 -c 'import socket; socket.socket(fileno=0)' 2>/dev/null && printf '%s-%s\\n' SOCK IN; \
        python3 -c 'import socket; socket.socket(fileno=1)' 2>/dev/null && printf '%s-%s\\n' SOCK OUT; \
        true";
    let mut child = std::process::Command::new(ralc_bin())
        .current_dir(format!("{}/proj", s.root))
        .env("TMPDIR", format!("{}/tmp", s.root))
        .args(["run", "-p", "std:confined", "--", "/bin/sh", "-c", script])
        .stdin(std::process::Stdio::from(OwnedFd::from(stdin_prog)))
        .stdout(std::process::Stdio::from(OwnedFd::from(stdout_prog)))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ralc");
    stdin_host.write_all(b"hello\n").unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    stdout_host
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut out = String::new();
    let _ = stdout_host.read_to_string(&mut out);
    assert!(status.success(), "{status:?}: {out}{err}");
    assert!(
        out.contains("GOT-LINE:hello"),
        "stdin and stdout relayed: {out:?} {err}"
    );
    for marker in ["ESC-APED", "SOCK-IN", "SOCK-OUT"] {
        assert!(!out.contains(marker), "{marker}: {out}");
    }
    stdin_host.set_nonblocking(true).unwrap();
    let mut back = [0u8; 16];
    let n = match stdin_host.read(&mut back) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        n,
        0,
        "the program wrote into its stdin's socket: {:?}",
        &back[..n]
    );
}

/// A repository the program creates inside its write grant, whose config makes the host's
/// git run a program (issue #25, a7-02/a7-10: no kernel rule forbids creating
/// `sub/.git/config`), is named after the run and a success becomes exit 125; a benign
/// `git init` is silent and keeps 0. Each warned key is printed escaped.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_repository_planted_in_the_write_grant_is_named_after_the_run() {
    require_bwrap();
    let s = scratch();
    let run = |script: &str| {
        std::process::Command::new(ralc_bin())
            .current_dir(format!("{}/proj", s.root))
            .env("TMPDIR", format!("{}/tmp", s.root))
            .args(["run", "-p", "std:minimal", "--", "/bin/sh", "-c", script])
            .output()
            .expect("spawn ralc")
    };
    let benign = run("git init -q fresh && printf '%s-%s\\n' LAUNCH ED");
    let (out, err) = (
        String::from_utf8_lossy(&benign.stdout),
        String::from_utf8_lossy(&benign.stderr),
    );
    assert!(out.contains("LAUNCH-ED"), "{out}{err}");
    assert_eq!(benign.status.code(), Some(0), "{out}{err}");
    assert!(!err.contains("warning"), "{err}");
    let planted = run(
        "mkdir -p sub/.git/objects sub/.git/hooks && echo 'ref: refs/heads/main' > sub/.git/HEAD && \
         printf '[core]\\n\\tfsmonitor = ./x.sh\\n[alias]\\n\\tst = !\\033[31mid\\n' > sub/.git/config && \
         printf '%s-%s\\n' LAUNCH ED",
    );
    let (out, err) = (
        String::from_utf8_lossy(&planted.stdout),
        String::from_utf8_lossy(&planted.stderr),
    );
    assert!(out.contains("LAUNCH-ED"), "{out}{err}");
    assert_eq!(planted.status.code(), Some(125), "{out}{err}");
    assert!(
        err.contains("/sub/.git/config setting core.fsmonitor") && err.contains("alias.st"),
        "{err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "a raw ESC reached the terminal: {err:?}"
    );
}

/// A root-run program compiles `bin/bwrap` in the project (root-owned, 755, root-owned
/// directories: what the ownership check trusts) and the host's next `ralc run` has that
/// `bin` first on `PATH` (issue #25, b7-12). ralc looks for bwrap only in the system's
/// install directories: the planted one never runs, the launch goes on with the system's,
/// and `ralc render --argv` names the system's.
#[test]
#[allow(
    clippy::disallowed_methods,
    reason = "test: runs gcc and the ralc binary with a planted bwrap on PATH"
)]
fn a_bwrap_planted_early_on_path_is_never_run() {
    use std::os::unix::fs::PermissionsExt;
    require_bwrap();
    let s = scratch();
    let proj = format!("{}/proj", s.root);
    let bin = format!("{proj}/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mark = format!("{proj}/planted-bwrap-ran");
    let src = format!("{}/fb.c", s.root);
    std::fs::write(
        &src,
        format!(
            "#include <stdio.h>\n#include <unistd.h>\nint main(int c,char**v){{FILE*f=fopen(\"{mark}\",\"a\");\
             if(f){{fprintf(f,\"ran uid=%d\\n\",getuid());fclose(f);}}execv(\"/usr/bin/bwrap\",v);return 127;}}\n"
        ),
    )
    .unwrap();
    let cc = std::process::Command::new("gcc")
        .args(["-o", &format!("{bin}/bwrap"), &src])
        .output()
        .expect("gcc (the machine's real toolchain) runs");
    assert!(cc.status.success(), "gcc: {cc:?}");
    std::fs::set_permissions(format!("{bin}/bwrap"), PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&bin, PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let ralc = |args: &[&str]| {
        std::process::Command::new(ralc_bin())
            .current_dir(&proj)
            .args(args)
            .stdin(std::process::Stdio::null())
            .env("PATH", &path)
            .env("TMPDIR", format!("{}/tmp", s.root))
            .output()
            .expect("spawn ralc")
    };
    let run = ralc(&[
        "run",
        "-p",
        "std:minimal",
        "--",
        "/bin/sh",
        "-c",
        "printf '%s-%s\\n' LAUNCH ED",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stdout.contains(LAUNCHED), "never ran: {stderr:?}");
    assert!(
        !Path::new(&mark).exists(),
        "the planted bwrap ran on the host: {:?}",
        std::fs::read_to_string(&mark)
    );
    let render = ralc(&[
        "render",
        "--target",
        "linux",
        "--argv",
        "std:minimal",
        "--",
        "/usr/bin/true",
    ]);
    let argv = String::from_utf8_lossy(&render.stdout);
    let first = argv.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("/usr/") || first.starts_with("/bin/") || first.starts_with("/sbin/"),
        "render names {first:?}: {:?}",
        String::from_utf8_lossy(&render.stderr)
    );
    assert!(!first.starts_with(&proj), "render names the planted bwrap");
    assert!(!Path::new(&mark).exists(), "render ran the planted bwrap");
}

/// Run from the home directory, `cwd:` (a write grant of every std profile) would be the
/// whole home: `.bash_aliases`, `.local/bin`, user-site `.pth`, `.cargo/env` (b7-05,
/// b7-11, b7-14). The launch is refused before anything runs; from a project directory
/// under that home it runs (docs/security.md, "A write grant that moves with the caller").
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn a_launch_from_the_home_directory_is_refused_and_from_a_project_runs() {
    require_bwrap();
    let s = scratch();
    let home = format!("{}/home", s.root);
    std::fs::create_dir_all(format!("{home}/proj")).unwrap();
    std::fs::write(format!("{home}/.bashrc"), "# skel\n").unwrap();
    let script = "printf '%s-%s\\n' LAUNCH ED; \
        (echo 'echo planted' > .bash_aliases) 2>/dev/null && printf '%s-%s\\n' ESC APED; \
        (mkdir -p .local/bin && echo x > .local/bin/ls) 2>/dev/null && printf '%s-%s\\n' ESC APED; \
        (mkdir -p .cargo && echo x > .cargo/env) 2>/dev/null && printf '%s-%s\\n' ESC APED; true";
    let run = |cwd: &str| {
        std::process::Command::new(ralc_bin())
            .current_dir(cwd)
            .args(["run", "-p", "std:reasonable", "--", "/bin/sh", "-c", script])
            .stdin(std::process::Stdio::null())
            .env("HOME", &home)
            .env("TMPDIR", format!("{}/tmp", s.root))
            .output()
            .expect("spawn ralc")
    };
    let out = run(&home);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stdout:?} {stderr:?}");
    assert!(!stdout.contains(LAUNCHED), "ran from the home: {stdout:?}");
    assert!(stderr.contains("grant '~' explicitly"), "{stderr:?}");
    for f in [".bash_aliases", ".local", ".cargo"] {
        assert!(!Path::new(&format!("{home}/{f}")).exists(), "{f} planted");
    }
    // From a project under the same home: the program runs, and writes only there.
    let proj = format!("{home}/proj");
    let out = run(&proj);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(LAUNCHED),
        "{stdout:?} {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(Path::new(&format!("{proj}/.bash_aliases")).exists());
    assert!(!Path::new(&format!("{home}/.bash_aliases")).exists());
}

/// Tool configs a host tool reads in every ancestor of its working directory, planted
/// below the project's top (b7-04: `crates/m/.cargo/config.toml` with `rustc-wrapper`), and
/// a link leading out of every write grant (b7-13: `target/debug -> outside`), are named
/// after the run and a success becomes exit 125; `node_modules/.bin`-style links inside
/// the grant and a package's own config under `node_modules/` are silent, and keep 0.
#[test]
#[allow(clippy::disallowed_methods, reason = "test: runs the ralc binary")]
fn tool_configs_at_any_depth_and_links_out_of_the_grant_are_named_after_the_run() {
    require_bwrap();
    let s = scratch();
    let run = |script: &str| {
        std::process::Command::new(ralc_bin())
            .current_dir(format!("{}/proj", s.root))
            .env("TMPDIR", format!("{}/tmp", s.root))
            .args(["run", "-p", "std:reasonable", "--", "/bin/sh", "-c", script])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("spawn ralc")
    };
    let benign = run(
        "mkdir -p node_modules/p/bin node_modules/.bin out && echo x > node_modules/p/bin/x && \
         echo x > node_modules/p/.npmrc && ln -s ../p/bin/x node_modules/.bin/x && \
         ln -s ../plain.txt out/plain && printf '%s-%s\\n' LAUNCH ED",
    );
    let (out, err) = (
        String::from_utf8_lossy(&benign.stdout),
        String::from_utf8_lossy(&benign.stderr),
    );
    assert!(out.contains(LAUNCHED), "{out}{err}");
    assert_eq!(benign.status.code(), Some(0), "{out}{err}");
    assert!(!err.contains("warning"), "{err}");
    let planted = run(&format!(
        "mkdir -p crates/m/.cargo target && \
         printf '[build]\\nrustc-wrapper = \"./w.sh\"\\n' > crates/m/.cargo/config.toml && \
         ln -s {}/outside target/debug && printf '%s-%s\\n' LAUNCH ED",
        s.root
    ));
    let (out, err) = (
        String::from_utf8_lossy(&planted.stdout),
        String::from_utf8_lossy(&planted.stderr),
    );
    assert!(out.contains(LAUNCHED), "{out}{err}");
    assert_eq!(planted.status.code(), Some(125), "{out}{err}");
    assert!(
        err.contains("/crates/m/.cargo/config.toml, a config cargo reads"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "/target/debug, a symbolic link to {}/outside",
            s.root
        )),
        "{err}"
    );
    // Nothing was written outside: the audit only names.
    assert_eq!(
        std::fs::read_dir(format!("{}/outside", s.root))
            .unwrap()
            .count(),
        1
    );
}
