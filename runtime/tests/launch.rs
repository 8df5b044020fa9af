//! Real-kernel launch tests of the runtime: hand-built `LinuxPlan`s launched under the
//! real bwrap, Landlock and seccomp. This binary serves the `--warrant` trampoline itself
//! (its own `/proc/self/exe` is the pin), so it has its own `main` (harness = false).
//! A missing bwrap fails these tests; nothing is skipped.
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

use ralc_runtime::linux::launch::{self, find_bwrap, Host, Pins};
use ralc_runtime::linux::refusal::Refusal;
use ralc_runtime::plan::*;
use std::io::Write;

type Test = fn() -> Result<(), String>;

pub fn main() {
    if let Some(code) = ralc_runtime::serve_warrant_if_asked() {
        std::process::exit(code);
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let tests: &[(&str, Test)] = &[
        ("true_runs", true_runs),
        ("exit_codes_propagate", exit_codes_propagate),
        ("read_region_is_enforced", read_region_is_enforced),
        ("write_region_is_enforced", write_region_is_enforced),
        (
            "deny_masks_hide_files_and_dirs",
            deny_masks_hide_files_and_dirs,
        ),
        ("exec_is_denied_by_landlock", exec_is_denied_by_landlock),
        (
            "a_denied_exec_file_is_masked_not_expanded",
            a_denied_exec_file_is_masked_not_expanded,
        ),
        ("seccomp_deny_set_holds", seccomp_deny_set_holds),
        ("offline_has_no_host_loopback", offline_has_no_host_loopback),
        ("own_executable_is_read_only", own_executable_is_read_only),
        (
            "environment_drops_loader_variables",
            environment_drops_loader_variables,
        ),
        ("refuses_without_bwrap", refuses_without_bwrap),
        (
            "refuses_a_bwrap_others_can_write",
            refuses_a_bwrap_others_can_write,
        ),
        (
            "refuses_bwrap_without_fd_binds",
            refuses_bwrap_without_fd_binds,
        ),
        (
            "refuses_exec_restriction_without_landlock",
            refuses_exec_restriction_without_landlock,
        ),
        (
            "refuses_offline_without_netns",
            refuses_offline_without_netns,
        ),
        ("refuses_a_planted_symlink", refuses_a_planted_symlink),
        ("refuses_a_redirected_bind", refuses_a_redirected_bind),
        (
            "a_ruleset_that_fails_to_build_runs_nothing",
            a_ruleset_that_fails_to_build_runs_nothing,
        ),
        ("refuses_a_deny_hiding_proc", refuses_a_deny_hiding_proc),
    ];
    let mut failed = 0;
    let mut ran = 0;
    for (name, f) in tests {
        if let Some(fl) = &filter {
            if !name.contains(fl.as_str()) {
                continue;
            }
        }
        ran += 1;
        match f() {
            Ok(()) => println!("test {name} ... ok"),
            Err(e) => {
                failed += 1;
                println!("test {name} ... FAILED\n    {e}");
            }
        }
    }
    println!("\nlaunch tests: {ran} ran, {failed} failed");
    let _ = std::io::stdout().flush();
    std::process::exit(i32::from(failed > 0));
}

// ---- plan building (a stand-in for the compiler's renderer) ----

const SYSTEM: &[&str] = &[
    "/bin",
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/passwd",
    "/etc/group",
    "/lib",
    "/lib64",
    "/sbin",
    "/usr",
];

fn prog(real: &str, args: &[&str]) -> LaunchProgram {
    LaunchProgram {
        real: real.into(),
        argv0: real.rsplit('/').next().unwrap_or(real).into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

fn open_plan(program: LaunchProgram) -> LinuxPlan {
    LinuxPlan {
        version: LINUX_PLAN_VERSION,
        program,
        self_path: "/proc/self/exe".into(),
        cwd: "/".into(),
        options: Options {
            new_session: true,
            die_with_parent: true,
        },
        namespaces: Namespaces {
            ipc: true,
            uts: true,
            pid: true,
            cgroup_try: true,
            net: false,
        },
        offline: false,
        fs_restricted: false,
        binds: vec![Bind {
            path: "/".into(),
            access: Access::Writable,
            layer: Layer::Shown,
            why: BindWhy::Root,
        }],
        masks: vec![],
        landlock: LandlockPlan::default(),
        seccomp: seccomp_deny_set(),
        fidelity: vec![],
        proc_shown: vec![],
        environment: ralc_runtime::environment::Environment::policy(),
        refused: vec![],
    }
}

fn restricted_plan(
    program: LaunchProgram,
    read: &[&str],
    write: &[&str],
    deny: &[&str],
) -> LinuxPlan {
    let mut p = open_plan(program);
    p.fs_restricted = true;
    p.binds.clear();
    let mut b = |path: &str, access, why| {
        p.binds.push(Bind {
            path: path.into(),
            access,
            layer: Layer::Shown,
            why,
        })
    };
    for s in SYSTEM {
        b(s, Access::ReadOnly, BindWhy::SystemDefault);
    }
    for r in read {
        b(r, Access::ReadOnly, BindWhy::Read);
    }
    for w in write {
        b(w, Access::Writable, BindWhy::Write);
    }
    p.masks = deny
        .iter()
        .map(|d| Mask {
            path: d.to_string(),
        })
        .collect();
    p.landlock.fs_rights = true;
    p.cwd = write
        .first()
        .or(read.first())
        .map_or("/".into(), |s| s.to_string());
    p
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(plan: &LinuxPlan) -> Result<Run, String> {
    run_on(plan, &Host::probe())
}

fn run_on(plan: &LinuxPlan, host: &Host) -> Result<Run, String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let prepared = launch::prepare(plan, host, pins).map_err(|r| format!("refused: {r}"))?;
    let (code, out, err) = launch::spawn_captured(prepared, pins).map_err(|r| r.to_string())?;
    Ok(Run {
        code,
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&err).into_owned(),
    })
}

fn refusal(plan: &LinuxPlan, host: &Host, pins: &Pins) -> Result<Refusal, String> {
    match launch::check(plan, host, pins) {
        Ok(_) => Err("the launch was not refused".into()),
        Err(r) => Ok(r),
    }
}

fn sh(script: &str) -> LaunchProgram {
    prog("/usr/bin/dash", &["-c", script])
}

fn expect(cond: bool, what: &str, r: &Run) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(format!(
            "{what}: code {} out {:?} err {:?}",
            r.code, r.out, r.err
        ))
    }
}

/// A scratch tree with real paths: `in/` (readable), `out/` (not granted), `w/` (writable).
struct Tree {
    _dir: tempfile::TempDir,
    root: String,
}

fn tree() -> Tree {
    let dir = tempfile::Builder::new()
        .prefix("ralc-launch")
        .tempdir()
        .unwrap();
    let root = std::fs::canonicalize(dir.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    for d in ["in", "out", "w", "w/secretdir"] {
        std::fs::create_dir_all(format!("{root}/{d}")).unwrap();
    }
    std::fs::write(format!("{root}/in/file"), "inside-content").unwrap();
    std::fs::write(format!("{root}/out/file"), "outside-content").unwrap();
    std::fs::write(format!("{root}/w/secret"), "secret-content").unwrap();
    std::fs::write(format!("{root}/w/secretdir/s"), "secretdir-content").unwrap();
    std::fs::write(format!("{root}/w/plain"), "plain").unwrap();
    Tree { _dir: dir, root }
}

// ---- tests ----

fn true_runs() -> Result<(), String> {
    let r = run(&open_plan(prog("/usr/bin/true", &[])))?;
    expect(r.code == 0, "true exits 0", &r)
}

fn exit_codes_propagate() -> Result<(), String> {
    let r = run(&open_plan(sh("exit 7")))?;
    expect(r.code == 7, "own status", &r)?;
    let r = run(&open_plan(sh("kill -9 $$")))?;
    expect(r.code == 128 + 9, "signal as 128+N", &r)?;
    let r = run(&open_plan(prog("/nonexistent/program", &[])))?;
    expect(r.code == 127, "missing program 127", &r)?;
    let mut p = open_plan(prog("/usr/bin/true", &[]));
    p.cwd = "/nonexistent-cwd-for-bwrap".into();
    let r = run(&p)?;
    expect(
        r.code == 126,
        "bwrap failure before the trampoline: 126",
        &r,
    )
}

fn read_region_is_enforced() -> Result<(), String> {
    let t = tree();
    let inn = format!("{}/in", t.root);
    let p = restricted_plan(sh(&format!("cat {inn}/file")), &[&inn], &[], &[]);
    let r = run(&p)?;
    expect(r.code == 0 && r.out == "inside-content", "reads inside", &r)?;
    let p = restricted_plan(sh(&format!("cat {}/out/file", t.root)), &[&inn], &[], &[]);
    let r = run(&p)?;
    expect(
        r.code != 0 && !r.out.contains("outside-content"),
        "cannot read outside",
        &r,
    )?;
    let p = restricted_plan(sh(&format!("cat {inn}/../out/file")), &[&inn], &[], &[]);
    let r = run(&p)?;
    expect(
        r.code != 0 && !r.out.contains("outside-content"),
        "`..` does not escape",
        &r,
    )?;
    let p = restricted_plan(
        sh(&format!("cat /proc/self/root{}/out/file", t.root)),
        &[&inn],
        &[],
        &[],
    );
    let r = run(&p)?;
    expect(
        r.code != 0 && !r.out.contains("outside-content"),
        "/proc/self/root does not escape",
        &r,
    )?;
    let p = restricted_plan(sh("cat /etc/shadow"), &[&inn], &[], &[]);
    let r = run(&p)?;
    expect(
        r.code != 0 && r.out.is_empty(),
        "/etc/shadow is not a system default",
        &r,
    )
}

fn write_region_is_enforced() -> Result<(), String> {
    let t = tree();
    let inn = format!("{}/in", t.root);
    let w = format!("{}/w", t.root);
    let p = restricted_plan(
        sh(&format!("echo made > {w}/new && cat {w}/new")),
        &[&inn],
        &[&w],
        &[],
    );
    let r = run(&p)?;
    expect(r.code == 0 && r.out.trim() == "made", "writes inside", &r)?;
    let p = restricted_plan(sh(&format!("echo x > {inn}/new")), &[&inn], &[&w], &[]);
    let r = run(&p)?;
    expect(r.code != 0, "cannot write the read region", &r)?;
    if std::path::Path::new(&format!("{inn}/new")).exists() {
        return Err("a file appeared in the read region".into());
    }
    let p = restricted_plan(
        sh(&format!("echo x > {}/out/new", t.root)),
        &[&inn],
        &[&w],
        &[],
    );
    let r = run(&p)?;
    expect(r.code != 0, "cannot write outside", &r)?;
    if std::path::Path::new(&format!("{}/out/new", t.root)).exists() {
        return Err("a file appeared outside".into());
    }
    Ok(())
}

fn deny_masks_hide_files_and_dirs() -> Result<(), String> {
    let t = tree();
    let w = format!("{}/w", t.root);
    let secret = format!("{w}/secret");
    let sdir = format!("{w}/secretdir");
    let deny = [secret.as_str(), sdir.as_str()];
    let attempts = [
        format!("cat {secret}"),
        format!("cat {sdir}/s"),
        format!("echo x > {secret}"),
        format!(": > {secret}"),
        format!("mv {secret} {w}/moved"),
        format!("rm -f {secret}"),
        format!("ln {secret} {w}/hard"),
        format!("ln -s {secret} {w}/sym && cat {w}/sym"),
        format!("echo x > {sdir}/new"),
        format!("cat {w}/plain && cat {secret}"),
    ];
    for a in &attempts {
        let p = restricted_plan(sh(a), &[], &[&w], &deny);
        let r = run(&p)?;
        expect(r.code != 0 && !r.out.contains("secret"), a, &r)?;
    }
    if std::fs::read_to_string(&secret).map_err(|e| e.to_string())? != "secret-content" {
        return Err("the secret changed".into());
    }
    for leaked in ["moved", "hard", "secretdir/new"] {
        if std::path::Path::new(&format!("{w}/{leaked}")).exists() {
            return Err(format!("{leaked} leaked"));
        }
    }
    let p = restricted_plan(sh(&format!("cat {w}/plain")), &[], &[&w], &deny);
    let r = run(&p)?;
    expect(
        r.code == 0 && r.out == "plain",
        "a sibling of the mask stays readable",
        &r,
    )
}

fn exec_plan(program: LaunchProgram, deny_names: &[&str]) -> LinuxPlan {
    let mut p = open_plan(program);
    p.landlock.exec = Some(ExecAdmits {
        files: vec![],
        dirs: vec!["/usr/bin".into()],
        deny_dirs: vec![],
        deny_files: vec![],
        deny_names: deny_names.iter().map(|s| s.to_string()).collect(),
    });
    p
}

fn exec_is_denied_by_landlock() -> Result<(), String> {
    let r = run(&exec_plan(sh("/usr/bin/true && echo ok"), &["id"]))?;
    expect(
        r.code == 0 && r.out.trim() == "ok",
        "allowed program runs",
        &r,
    )?;
    for a in [
        "id",
        "/usr/bin/id",
        "find /usr/bin -maxdepth 0 -exec id \\;",
        "env id",
        "cp /usr/bin/id /tmp/ralc-renamed-id-$$ && /tmp/ralc-renamed-id-$$; s=$?; rm -f /tmp/ralc-renamed-id-$$; exit $s",
        "/usr/local/bin/git --version",
    ] {
        let r = run(&exec_plan(sh(a), &["id"]))?;
        // find reports a failed -exec but exits 0: the denial is what counts.
        let denied = r.code != 0 || r.err.contains("Permission denied");
        expect(denied && !r.out.contains("uid="), a, &r)?;
    }
    let t = tree();
    let script = format!("{}/w/script.sh", t.root);
    std::fs::write(&script, "#!/usr/bin/id\n").unwrap();
    let r = run(&exec_plan(
        sh(&format!("chmod +x {script} && {script}")),
        &["id"],
    ))?;
    expect(
        r.code != 0 && !r.out.contains("uid="),
        "#! script of a vetoed interpreter",
        &r,
    )
}

/// A denied exec file beneath an allowed, writable directory of many entries: masked by
/// name in the envelope, so the directory is one Landlock rule rather than one per entry,
/// and the denied file can be neither run, read, removed, renamed nor replaced.
fn a_denied_exec_file_is_masked_not_expanded() -> Result<(), String> {
    let t = tree();
    let w = format!("{}/w", t.root);
    for i in 0..200 {
        let f = format!("{w}/p{i:03}");
        std::fs::write(&f, format!("#!/usr/bin/dash\necho ran-{i}\n")).unwrap();
        std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let denied = format!("{w}/p100");
    let plan = |program| {
        let mut p = restricted_plan(program, &[], &[&w], &[]);
        p.landlock.exec = Some(ExecAdmits {
            files: vec!["/usr/bin/dash".into()],
            dirs: vec![w.clone()],
            deny_dirs: vec![],
            deny_files: vec![denied.clone()],
            deny_names: vec![],
        });
        p
    };
    // The ruleset: the trampoline's pin, the program, dash, the loader(s), the directory
    // once, and the fs rules — far fewer than the directory's 200 entries.
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let rules = launch::check(&plan(sh("true")), &Host::probe(), pins)
        .map_err(|r| format!("refused: {r}"))?;
    if rules >= 50 {
        return Err(format!(
            "{rules} Landlock rules: the directory was expanded"
        ));
    }
    let r = run(&plan(sh(&format!("{w}/p099 && {w}/p101"))))?;
    expect(
        r.code == 0 && r.out == "ran-99\nran-101\n",
        "siblings of the denied file run",
        &r,
    )?;
    for attempt in [
        denied.clone(),
        format!("cat {denied} | grep -q ran-100"),
        format!("rm -f {denied}; printf '#!/usr/bin/dash\\necho ran-100\\n' > {denied}; {denied}"),
        format!("mv {denied} {w}/moved && {w}/moved"),
        format!("ln -sf {w}/p001 {denied} && {denied}"),
    ] {
        let r = run(&plan(sh(&attempt)))?;
        expect(
            r.code != 0 && !r.out.contains("ran-100"),
            &format!("the denied file: {attempt}"),
            &r,
        )?;
    }
    let content = std::fs::read_to_string(&denied).unwrap();
    if content != "#!/usr/bin/dash\necho ran-100\n" {
        return Err(format!("the denied file changed on the host: {content:?}"));
    }
    Ok(())
}

fn seccomp_deny_set_holds() -> Result<(), String> {
    let r = run(&open_plan(prog("/usr/bin/unshare", &["-U", "true"])))?;
    expect(
        r.code != 0 && r.err.contains("Operation not permitted"),
        "unshare -U",
        &r,
    )?;
    // keyctl (250) is killed: the process dies by SIGSYS.
    let r = run(&open_plan(prog(
        "/usr/bin/perl",
        &["-e", "syscall(250, 0, 0, 0); print qq(alive)"],
    )))?;
    expect(
        r.code == 128 + 31 && !r.out.contains("alive"),
        "keyctl kills",
        &r,
    )?;
    // ptrace (101) is killed.
    let r = run(&open_plan(prog(
        "/usr/bin/perl",
        &["-e", "syscall(101, 0, 0, 0, 0); print qq(alive)"],
    )))?;
    expect(
        r.code == 128 + 31 && !r.out.contains("alive"),
        "ptrace kills",
        &r,
    )?;
    // mount (165) is killed.
    let r = run(&open_plan(prog(
        "/usr/bin/perl",
        &["-e", "syscall(165, 0, 0, 0, 0, 0); print qq(alive)"],
    )))?;
    expect(
        r.code == 128 + 31 && !r.out.contains("alive"),
        "mount kills",
        &r,
    )?;
    // x32 numbers are killed.
    let r = run(&open_plan(prog(
        "/usr/bin/perl",
        &["-e", "syscall(0x40000027); print qq(alive)"],
    )))?;
    expect(
        r.code == 128 + 31 && !r.out.contains("alive"),
        "x32 kills",
        &r,
    )?;
    // Ordinary work is unaffected.
    let r = run(&open_plan(sh("echo fine | cat")))?;
    expect(r.code == 0 && r.out.trim() == "fine", "ordinary work", &r)
}

fn offline_has_no_host_loopback() -> Result<(), String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = l.local_addr().unwrap().port();
    let probe = format!("echo hi > /dev/tcp/127.0.0.1/{port} && echo connected");
    let mut p = open_plan(prog("/usr/bin/bash", &["-c", &probe]));
    let r = run(&p)?;
    expect(
        r.code == 0 && r.out.contains("connected"),
        "online control connects",
        &r,
    )?;
    p.offline = true;
    p.namespaces.net = true;
    let r = run(&p)?;
    expect(
        r.code != 0 && !r.out.contains("connected"),
        "offline cannot reach the host listener",
        &r,
    )
}

fn own_executable_is_read_only() -> Result<(), String> {
    let me = std::fs::canonicalize("/proc/self/exe").map_err(|e| e.to_string())?;
    let me = me.to_str().unwrap().to_string();
    let md = |p: &str| std::fs::metadata(p).map(|m| (m.len(), m.modified().ok()));
    let before = md(&me).map_err(|e| e.to_string())?;
    // A running executable refuses writes with ETXTBSY anyway; a timestamp change is
    // refused only by the read-only bind.
    let r = run(&open_plan(prog(
        "/usr/bin/perl",
        &["-e", "utime(0, 0, $ARGV[0]) or die qq($!\\n)", &me],
    )))?;
    expect(
        r.code != 0 && r.err.contains("Read-only"),
        "own executable read-only",
        &r,
    )?;
    let r = run(&open_plan(sh(&format!(": >> {me}"))))?;
    expect(r.code != 0, "own executable not writable", &r)?;
    if md(&me).map_err(|e| e.to_string())? != before {
        return Err("the executable changed".into());
    }
    Ok(())
}

#[allow(
    clippy::disallowed_methods,
    reason = "test: sets the parent's environment for the child"
)]
fn environment_drops_loader_variables() -> Result<(), String> {
    // SAFETY: this test binary runs its tests on one thread.
    unsafe {
        std::env::set_var("LD_PRELOAD", "/nonexistent.so");
        std::env::set_var("RALC_KEEP", "kept");
    }
    let r = run(&open_plan(sh("echo ${LD_PRELOAD:-none} $RALC_KEEP")));
    // SAFETY: as above.
    unsafe {
        std::env::remove_var("LD_PRELOAD");
        std::env::remove_var("RALC_KEEP");
    }
    let r = r?;
    expect(
        r.code == 0 && r.out.trim() == "none kept",
        "LD_PRELOAD removed, others kept",
        &r,
    )
}

fn refuses_without_bwrap() -> Result<(), String> {
    let pins = Pins::with_bwrap(find_bwrap("/nonexistent:/also-not"))?;
    let r = refusal(
        &open_plan(prog("/usr/bin/true", &[])),
        &Host::probe(),
        &pins,
    )?;
    let m = r.to_string();
    if !matches!(r, Refusal::NoBwrap) || !m.contains("bwrap (bubblewrap) was not found") {
        return Err(m);
    }
    Ok(())
}

/// Whether this process runs as root (the effective uid, from /proc).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        == Some("0")
}

fn refuses_bwrap_without_fd_binds() -> Result<(), String> {
    // A fake bwrap where only root can write (as root): trusted, then asked. Run by
    // another user, the fake is that user's and is refused as untrusted first.
    let dir = tempfile::tempdir_in(root_only_dir()).unwrap();
    if !is_root() {
        let fake = dir.path().join("bwrap");
        std::fs::write(&fake, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let pins = Pins::with_bwrap(find_bwrap(dir.path().to_str().unwrap()))?;
        let r = refusal(
            &open_plan(prog("/usr/bin/true", &[])),
            &Host::probe(),
            &pins,
        )?;
        return match r {
            Refusal::UnsafeHelper { .. } => Ok(()),
            other => Err(other.to_string()),
        };
    }
    let fake = dir.path().join("bwrap");
    std::fs::write(&fake, "#!/bin/sh\necho '  --ro-bind SRC DEST  Bind mount'\necho '  --args FD'\necho '  --add-seccomp-fd FD'\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let pins = Pins::with_bwrap(find_bwrap(dir.path().to_str().unwrap()))?;
    let r = refusal(
        &open_plan(prog("/usr/bin/true", &[])),
        &Host::probe(),
        &pins,
    )?;
    let m = r.to_string();
    if !matches!(r, Refusal::BwrapWithoutFdBinds { .. }) || !m.contains("has no --ro-bind-fd") {
        return Err(m);
    }
    Ok(())
}

/// A directory whose every ancestor only root may write, for a fake helper to be trusted:
/// the target's temp dir when the checkout allows it, else `/run` (a clone under `/var/tmp`
/// or `/tmp`, mode 1777, makes every helper below it untrusted, as it should).
fn root_only_dir() -> std::path::PathBuf {
    use std::os::unix::fs::MetadataExt;
    let only_root = |p: &std::path::Path| {
        p.ancestors().all(|a| {
            std::fs::symlink_metadata(a).is_ok_and(|m| m.uid() == 0 && m.mode() & 0o022 == 0)
        })
    };
    let target = std::fs::canonicalize(env!("CARGO_TARGET_TMPDIR")).unwrap();
    if only_root(&target) {
        target
    } else {
        std::path::PathBuf::from("/run")
    }
}

/// A bwrap found in a directory others can write (a planted one) is never executed: the
/// launch refuses, naming it, before asking it anything.
fn refuses_a_bwrap_others_can_write() -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("fake-bwrap-ran");
    let fake = dir.path().join("bwrap");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ntouch {}\nexec /usr/bin/bwrap \"$@\"\n",
            ran.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let pins = Pins::with_bwrap(find_bwrap(dir.path().to_str().unwrap()))?;
    let r = refusal(
        &open_plan(prog("/usr/bin/true", &[])),
        &Host::probe(),
        &pins,
    )?;
    let m = r.to_string();
    if !matches!(r, Refusal::UnsafeHelper { .. }) || !m.contains(&fake.display().to_string()) {
        return Err(m);
    }
    if ran.exists() {
        return Err("the planted bwrap was executed".to_string());
    }
    Ok(())
}

fn refuses_exec_restriction_without_landlock() -> Result<(), String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let host = Host {
        landlock_abi: 0,
        ..Host::probe()
    };
    let r = refusal(&exec_plan(prog("/usr/bin/true", &[]), &[]), &host, pins)?;
    let m = r.to_string();
    if !matches!(r, Refusal::NoLandlock) || !m.contains("no Landlock") {
        return Err(m);
    }
    Ok(())
}

fn refuses_offline_without_netns() -> Result<(), String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let mut p = open_plan(prog("/usr/bin/true", &[]));
    p.offline = true;
    let r = refusal(&p, &Host::probe(), pins)?;
    let m = r.to_string();
    if !matches!(r, Refusal::OfflineWithoutNetns) || !m.contains("network namespace") {
        return Err(m);
    }
    Ok(())
}

fn refuses_a_planted_symlink() -> Result<(), String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let t = tree();
    let w = format!("{}/w", t.root);
    // The plan was rendered with w/ a directory; a symlink is swapped in before launch.
    let p = restricted_plan(sh("true"), &[], &[&w], &[]);
    std::fs::rename(&w, format!("{}/w-moved", t.root)).unwrap();
    std::os::unix::fs::symlink(format!("{}/out", t.root), &w).unwrap();
    let r = refusal(&p, &Host::probe(), pins)?;
    let m = r.to_string();
    if !matches!(r, Refusal::SymlinkPlanted { .. }) || !m.contains("symlink was planted") {
        return Err(m);
    }
    // Also for an exec admit.
    let mut p = exec_plan(sh("true"), &[]);
    if let Some(ex) = &mut p.landlock.exec {
        ex.dirs.push(w.clone());
    }
    let r = refusal(&p, &Host::probe(), pins)?;
    if !matches!(r, Refusal::SymlinkPlanted { .. }) {
        return Err(r.to_string());
    }
    Ok(())
}

fn refuses_a_redirected_bind() -> Result<(), String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let t = tree();
    let sneaky = format!("{}/w/../out", t.root);
    let p = restricted_plan(sh("true"), &[&sneaky], &[], &[]);
    let r = refusal(&p, &Host::probe(), pins)?;
    let m = r.to_string();
    if !matches!(r, Refusal::Redirected { .. }) || !m.contains("outside what was rendered") {
        return Err(m);
    }
    Ok(())
}

fn refuses_a_deny_hiding_proc() -> Result<(), String> {
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let p = restricted_plan(sh("true"), &[], &[], &["/"]);
    let r = refusal(&p, &Host::probe(), pins)?;
    if !matches!(r, Refusal::DenyHidesProc { .. }) {
        return Err(r.to_string());
    }
    Ok(())
}

fn a_ruleset_that_fails_to_build_runs_nothing() -> Result<(), String> {
    // The ruleset is built while bwrap builds the envelope: a planted symlink found then
    // must still run nothing (the trampoline waits for a ruleset that never comes).
    let t = tree();
    let link = format!("{}/w/planted", t.root);
    std::os::unix::fs::symlink("/usr/bin", &link).unwrap();
    let marker = format!("{}/w/ran", t.root);
    let mut p = exec_plan(sh(&format!("echo ran > {marker}")), &[]);
    if let Some(ex) = &mut p.landlock.exec {
        ex.dirs.push(link.clone());
    }
    let pins = launch::pin_at_start().as_ref().map_err(|e| e.clone())?;
    let prepared = launch::prepare(&p, &Host::probe(), pins).map_err(|r| r.to_string())?;
    match launch::spawn_captured(prepared, pins) {
        Ok((code, _, err)) => {
            return Err(format!(
                "launched: code {code} err {}",
                String::from_utf8_lossy(&err)
            ))
        }
        Err(r) => {
            if !matches!(r, Refusal::SymlinkPlanted { .. }) {
                return Err(r.to_string());
            }
        }
    }
    if std::path::Path::new(&marker).exists() {
        return Err("the program ran".into());
    }
    Ok(())
}
