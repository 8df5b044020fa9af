//! Launch-latency benchmark. Alternates two launches and reports the median of each:
//! by default the runtime's own launch of a `std:minimal`-shaped plan of `/bin/true`
//! against plain `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all
//! --die-with-parent --new-session /bin/true`; with `--cmd PROGRAM ARGS…` the first side is
//! that command instead (e.g. `ralc run -p std:minimal -- /bin/true`), and with
//! `--cmd A… --vs B…` each command in turn, every one alternating with the baseline. It serves the
//! trampoline itself, so it must never do anything before `serve_warrant_if_asked` —
//! except answer its own two roles of the `--floor` measure, which read only argv.
//!
//! `--supervise` alternates the runtime's launch of that plan supervised for denial hints
//! (`ralc run`'s default: the seccomp user-notification supervisor of exec and the kill
//! calls; with `--explain`, also the path calls) against the same launch unsupervised, in
//! place of the bwrap baseline; `--sh SCRIPT` runs `/bin/sh -c SCRIPT` in that plan instead
//! of `/bin/true`.
//!
//! `--floor` measures the launch *shape* with no work in it: this binary as a parent that
//! only spawns bwrap and waits, bwrap with `std:minimal`'s namespaces and one `--bind / /`,
//! and this binary again as a payload hop that only execs `/bin/true` — the two extra
//! process images `ralc run` has beside bwrap's own, with no profile, bind, Landlock or
//! seccomp work (docs/performance-linux.md).

#[cfg(target_os = "linux")]
fn main() {
    if let Some(code) = bench::floor_role() {
        std::process::exit(code);
    }
    if let Some(code) = ralc_runtime::serve_warrant_if_asked() {
        std::process::exit(code);
    }
    std::process::exit(bench::main());
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("ralc-launch-bench: Linux only");
    std::process::exit(2);
}

#[cfg(target_os = "linux")]
mod bench {
    use ralc_runtime::linux::launch::{self, Host};
    use ralc_runtime::plan::*;
    use std::time::{Duration, Instant};

    fn minimal_plan(cwd: &str) -> LinuxPlan {
        let mut binds = Vec::new();
        let mut b = |p: &str, access, why| {
            binds.push(Bind {
                path: p.into(),
                access,
                layer: Layer::Shown,
                why,
            })
        };
        for s in [
            "/bin",
            "/etc/alternatives",
            "/etc/ld.so.cache",
            "/etc/ld.so.conf",
            "/etc/ld.so.conf.d",
            "/etc/nsswitch.conf",
            "/etc/passwd",
            "/etc/group",
            "/etc/hosts",
            "/etc/localtime",
            "/etc/resolv.conf",
            "/etc/ssl",
            "/lib",
            "/lib64",
            "/sbin",
            "/usr",
        ] {
            b(s, Access::ReadOnly, BindWhy::SystemDefault);
        }
        b(cwd, Access::Writable, BindWhy::Write);
        b("/tmp", Access::Writable, BindWhy::Write);
        let dirs: Vec<String> = [
            "/usr/bin",
            "/usr/sbin",
            "/usr/local/bin",
            "/usr/libexec",
            "/usr/lib/git-core",
        ]
        .iter()
        .filter(|d| std::path::Path::new(d).is_dir())
        .map(|d| d.to_string())
        .collect();
        LinuxPlan {
            version: LINUX_PLAN_VERSION,
            program: LaunchProgram {
                real: "/usr/bin/true".into(),
                argv0: "/bin/true".into(),
                args: vec![],
            },
            self_path: "/proc/self/exe".into(),
            cwd: cwd.into(),
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
            fs_restricted: true,
            binds,
            masks: vec![],
            landlock: LandlockPlan {
                exec: Some(ExecAdmits {
                    files: vec!["/usr/bin/true".into()],
                    dirs,
                    deny_dirs: vec![],
                    deny_files: vec![],
                    deny_names: vec!["bash".into(), "zsh".into()],
                }),
                fs_rights: true,
                read: vec![],
                write: vec![],
            },
            seccomp: seccomp_deny_set(),
            fidelity: vec![],
            proc_shown: vec![],
            environment: ralc_runtime::environment::Environment::policy(),
            refused: vec![],
        }
    }

    fn median(v: &mut [Duration]) -> Duration {
        v.sort();
        v[v.len() / 2]
    }

    #[allow(
        clippy::disallowed_methods,
        reason = "benchmark: runs the compared commands"
    )]
    fn run_cmd(argv: &[String]) -> Result<(), String> {
        let st = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .status()
            .map_err(|e| format!("{}: {e}", argv[0]))?;
        if !st.success() {
            return Err(format!("{argv:?} exited {st}"));
        }
        Ok(())
    }

    /// The `--floor` roles: `--floor-parent PROGRAM ARGS…` spawns and waits (its status);
    /// `--floor-hop PROGRAM ARGS…` execs. `None` for any other invocation.
    #[allow(
        clippy::disallowed_methods,
        reason = "benchmark: runs the compared commands"
    )]
    pub fn floor_role() -> Option<i32> {
        use std::os::unix::process::CommandExt;
        let args: Vec<String> = std::env::args().skip(1).collect();
        let (role, rest) = args.split_first()?;
        let (prog, prog_args) = rest.split_first()?;
        match role.as_str() {
            "--floor-parent" => Some(
                std::process::Command::new(prog)
                    .args(prog_args)
                    .status()
                    .ok()
                    .and_then(|s| s.code())
                    .unwrap_or(126),
            ),
            "--floor-hop" => {
                let e = std::process::Command::new(prog).args(prog_args).exec();
                eprintln!("{prog}: {e}");
                Some(127)
            }
            _ => None,
        }
    }

    /// `--prepare-only`: time the launch's preparation (and, with `--ruleset`, every check
    /// with the Landlock ruleset built; with `--spawn`, the spawn) over `runs` rounds.
    #[allow(
        clippy::disallowed_methods,
        reason = "benchmark: the plan's working directory is the bench's own"
    )]
    fn prepare_only(args: &[String], runs: usize) -> Result<(), String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("the working directory: {e}"))?
            .to_str()
            .ok_or("the working directory is not UTF-8")?
            .to_string();
        let mut plan = minimal_plan(&cwd);
        if args.iter().any(|a| a == "--no-names") {
            if let Some(ex) = &mut plan.landlock.exec {
                ex.deny_names.clear();
            }
        }
        let host = Host::probe();
        let pins = launch::pin_at_start()
            .as_ref()
            .map_err(|e| format!("pinning the launch binaries: {e}"))?;
        let mut v = Vec::new();
        let mut w = Vec::new();
        let spawn = args.iter().any(|a| a == "--spawn");
        if args.iter().any(|a| a == "--ruleset") {
            // Every check of a launch, with the Landlock ruleset built eagerly.
            let mut c = Vec::new();
            let mut rules = 0;
            for _ in 0..runs {
                let t = Instant::now();
                rules = launch::check(&plan, &host, pins).map_err(|e| e.to_string())?;
                c.push(t.elapsed());
            }
            println!(
                "prepare + ruleset ({rules} rules) median {:.2} ms",
                median(&mut c).as_secs_f64() * 1e3
            );
        }
        for _ in 0..runs {
            let t = Instant::now();
            let p = launch::prepare(&plan, &host, pins).map_err(|e| e.to_string())?;
            v.push(t.elapsed());
            if spawn {
                let t = Instant::now();
                let _ = launch::spawn(p, pins);
                w.push(t.elapsed());
            }
        }
        println!(
            "prepare median {:.2} ms",
            median(&mut v).as_secs_f64() * 1e3
        );
        if spawn {
            println!("spawn median {:.2} ms", median(&mut w).as_secs_f64() * 1e3);
        }
        Ok(())
    }

    /// The `--floor` command line: this binary, bwrap, this binary, `/bin/true`.
    fn floor_cmd() -> Vec<String> {
        let me = std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
            .unwrap_or_default();
        let mut v = vec![me.clone(), "--floor-parent".into(), "bwrap".into()];
        for a in "--new-session --die-with-parent --unshare-ipc --unshare-uts --unshare-pid --unshare-cgroup-try --bind / / --dev /dev --proc /proc".split(' ') {
            v.push(a.into());
        }
        v.extend([me, "--floor-hop".into(), "/bin/true".into()]);
        v
    }

    /// The plan launched supervised (`Watch::Default`) against the same launch plain,
    /// alternating; the medians and their ratio.
    fn supervised_vs_plain(
        plan: &LinuxPlan,
        host: &Host,
        runs: usize,
        watch: ralc_runtime::linux::supervise::Watch,
    ) -> i32 {
        use ralc_runtime::linux::supervise;
        if !supervise::available() {
            eprintln!("this kernel has no seccomp user notification");
            return 1;
        }
        let pins = match launch::pin_at_start().as_ref() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("pinning the launch binaries: {e}");
                return 1;
            }
        };
        let one = |watch: Option<supervise::Watch>| -> Result<Duration, String> {
            let t = Instant::now();
            let p = launch::prepare_watched(plan, host, pins, watch).map_err(|e| e.to_string())?;
            match launch::spawn(p, pins).map_err(|e| e.to_string())? {
                0 => Ok(t.elapsed()),
                c => Err(format!("exit {c}")),
            }
        };
        let (mut sup, mut plain) = (Vec::new(), Vec::new());
        for round in 0..=runs {
            let (s, p) = match (one(Some(watch)), one(None)) {
                (Ok(s), Ok(p)) => (s, p),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("launch failed: {e}");
                    return 1;
                }
            };
            if round > 0 {
                sup.push(s);
                plain.push(p);
            }
        }
        let (ms, mp) = (median(&mut sup), median(&mut plain));
        println!("runs: {runs} each, alternating");
        println!(
            "supervised ({watch:?}): median {:.2} ms",
            ms.as_secs_f64() * 1e3
        );
        println!("plain:      median {:.2} ms", mp.as_secs_f64() * 1e3);
        println!("ratio: {:.3}", ms.as_secs_f64() / mp.as_secs_f64());
        0
    }

    /// `--supervise [--sh SCRIPT] [--explain]`: the supervised launch against the plain one.
    fn supervised(args: &[String], plan: LinuxPlan, host: &Host, runs: usize) -> i32 {
        use ralc_runtime::linux::supervise::Watch;
        let mut plan = plan;
        // `--sh SCRIPT`: the plan runs `/bin/sh -c SCRIPT` instead of `/bin/true`.
        if let Some(i) = args.iter().position(|a| a == "--sh") {
            #[allow(
                clippy::disallowed_methods,
                reason = "benchmark: the shell the measured plan runs, by its real path"
            )]
            let sh = std::fs::canonicalize("/bin/sh")
                .ok()
                .and_then(|p| p.to_str().map(str::to_string));
            let Some(sh) = sh else {
                eprintln!("/bin/sh has no real path here");
                return 1;
            };
            plan.program = LaunchProgram {
                real: sh.clone(),
                argv0: "sh".into(),
                args: vec!["-c".into(), args.get(i + 1).cloned().unwrap_or_default()],
            };
            if let Some(ex) = &mut plan.landlock.exec {
                ex.files.push(sh);
            }
        }
        let watch = if args.iter().any(|a| a == "--explain") {
            Watch::Explain
        } else {
            Watch::Default
        };
        supervised_vs_plain(&plan, host, runs, watch)
    }

    pub fn main() -> i32 {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut runs = 30usize;
        let mut cmd: Option<Vec<String>> = None;
        let supervise = args.iter().any(|a| a == "--supervise");
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--runs" => {
                    runs = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(30);
                    i += 2;
                }
                "--prepare-only" => {
                    return match prepare_only(&args, runs) {
                        Ok(()) => 0,
                        Err(e) => {
                            eprintln!("ralc-launch-bench: {e}");
                            1
                        }
                    };
                }
                "--cmd" => {
                    cmd = Some(args[i + 1..].to_vec());
                    break;
                }
                "--floor" => {
                    cmd = Some(floor_cmd());
                    i += 1;
                }
                "--no-names" | "--spawn" | "--ruleset" | "--supervise" | "--explain" => i += 1,
                "--sh" => i += 2,
                other => {
                    eprintln!(
                        "usage: ralc-launch-bench [--runs N] [--cmd PROGRAM ARGS… [--vs PROGRAM ARGS…]…] (not {other})"
                    );
                    return 2;
                }
            }
        }
        #[allow(
            clippy::disallowed_methods,
            reason = "benchmark: the plan's working directory is the bench's own"
        )]
        let cwd = std::env::current_dir()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
            .unwrap_or_else(|| "/tmp".into());
        let plan = minimal_plan(&cwd);
        let host = Host::probe();
        let baseline: Vec<String> = "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --new-session /bin/true"
            .split(' ')
            .map(str::to_string)
            .collect();
        if supervise {
            return supervised(&args, plan, &host, runs);
        }
        alternating(&cmd, &plan, &host, &baseline, runs)
    }

    /// `--cmd A… --vs B…`, or the runtime launch alone, each alternating with `baseline`.
    fn alternating(
        cmd: &Option<Vec<String>>,
        plan: &LinuxPlan,
        host: &Host,
        baseline: &[String],
        runs: usize,
    ) -> i32 {
        // `--cmd A… --vs B…`: several commands, each alternating with the baseline in
        // the same series (A, baseline, B, baseline, …).
        let cmds: Vec<Option<Vec<String>>> = match cmd {
            Some(c) => c.split(|a| a == "--vs").map(|c| Some(c.to_vec())).collect(),
            None => vec![None],
        };
        let mut ours: Vec<Vec<Duration>> = vec![Vec::new(); cmds.len()];
        let mut base = Vec::new();
        // One warm-up of each.
        for round in 0..=runs {
            for (k, c) in cmds.iter().enumerate() {
                let t = Instant::now();
                let r = match c {
                    Some(c) => run_cmd(c),
                    None => launch::run(plan, host)
                        .map_err(|e| e.to_string())
                        .and_then(|c| {
                            if c == 0 {
                                Ok(())
                            } else {
                                Err(format!("exit {c}"))
                            }
                        }),
                };
                let d = t.elapsed();
                if let Err(e) = r {
                    eprintln!("launch failed: {e}");
                    return 1;
                }
                let t = Instant::now();
                if let Err(e) = run_cmd(baseline) {
                    eprintln!("baseline failed: {e}");
                    return 1;
                }
                let b = t.elapsed();
                if round > 0 {
                    ours[k].push(d);
                    base.push(b);
                }
            }
        }
        let mb = median(&mut base);
        println!("runs: {runs} each, alternating");
        for (c, o) in cmds.iter().zip(ours.iter_mut()) {
            let mo = median(o);
            let what = match c {
                Some(c) => c.join(" "),
                None => "runtime launch of a std:minimal-shaped plan of /bin/true".to_string(),
            };
            println!(
                "ours:     {what}: median {:.2} ms, ratio {:.2}",
                mo.as_secs_f64() * 1e3,
                mo.as_secs_f64() / mb.as_secs_f64()
            );
        }
        println!(
            "baseline: {}: median {:.2} ms",
            baseline.join(" "),
            mb.as_secs_f64() * 1e3
        );
        if let [Some(_), Some(_), ..] = cmds.as_slice() {
            println!(
                "(ratios: each command's median over the baseline's median of the whole series)"
            );
        }
        0
    }
}
