//! The Linux renderer: a pure function from a `SandboxProjection` (and the admitted
//! program) to a `LinuxPlan` — binds, deny masks, Landlock rules, the seccomp deny-set,
//! namespaces, the fidelity report and what the plan refuses. It never touches the disk:
//! what exists, and what is a symlink, is the launcher's to find out.

use crate::capability::projection::{ExecProjection, FsProjection, SandboxProjection};
use ralc_runtime::plan::{
    memfd_exec_rule, seccomp_deny_set, seccomp_offline_rules, sort_rules, within, Access, Bind,
    BindWhy, ExecAdmits, Fidelity, LandlockPlan, LaunchProgram, Layer, LinuxPlan, Mask, Namespaces,
    Options, LINUX_PLAN_VERSION,
};

/// The read-only system defaults a restricted fs still shows: the program tree, the
/// dynamic linker's files, name resolution, user lookup, certificates and the
/// alternatives links Debian's commands go through.
pub const SYSTEM_DEFAULTS: &[&str] = &[
    "/bin",
    "/etc/alternatives",
    "/etc/ca-certificates",
    "/etc/gai.conf",
    "/etc/group",
    "/etc/host.conf",
    "/etc/hosts",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/protocols",
    "/etc/resolv.conf",
    "/etc/services",
    "/etc/ssl",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/sbin",
    "/usr",
];

/// Render the Linux plan. An empty `program.real` renders the stack's plan without a
/// program (what `ralc render` prints when no `-- PROGRAM` is given).
pub fn render(
    projection: &SandboxProjection,
    program: &LaunchProgram,
    cwd: &str,
    self_path: &str,
) -> LinuxPlan {
    render_with_profiles(projection, program, cwd, self_path, &[])
}

/// `render`, with the real paths of the profile files the launch read (`-p`, `--extend`,
/// `--restrict`): each one beneath a writable bind is shown read-only, and it and its
/// ancestors up to that bind are rename guards.
///
/// In sections: the exec admits (`exec_admits`), the file system shown and Landlock's
/// rights over it (`show_fs`), what no run may rename away (`rename_protection`), the
/// envelope's own (`envelope`), then one bind per path (`Draft::settle`) and the
/// seccomp set (`seccomp_for`).
pub fn render_with_profiles(
    projection: &SandboxProjection,
    program: &LaunchProgram,
    cwd: &str,
    self_path: &str,
    profiles: &[String],
) -> LinuxPlan {
    let mut d = Draft::default();
    let mut landlock = LandlockPlan {
        exec: exec_admits(projection, program, self_path, &mut d),
        ..LandlockPlan::default()
    };
    let plan_cwd = match &projection.fs {
        None => {
            d.bind("/", Access::Writable, Layer::Shown, BindWhy::Root);
            cwd.to_string()
        }
        Some(fs) => show_fs(fs, &projection.exec, program, cwd, &mut d, &mut landlock),
    };
    if let Some(fs) = &projection.fs {
        for l in &fs.links {
            d.bind(l, Access::ReadOnly, Layer::Shown, BindWhy::Link);
        }
    }
    rename_protection(projection, profiles, self_path, &mut d);
    envelope(program, cwd, self_path, &mut d);
    d.settle();
    let seccomp = seccomp_for(projection.net_offline, landlock.exec.is_some());
    LinuxPlan {
        version: LINUX_PLAN_VERSION,
        program: program.clone(),
        self_path: self_path.to_string(),
        cwd: plan_cwd,
        options: Options {
            new_session: true,
            die_with_parent: true,
        },
        namespaces: Namespaces {
            ipc: true,
            uts: true,
            pid: true,
            cgroup_try: true,
            net: projection.net_offline,
        },
        offline: projection.net_offline,
        fs_restricted: projection.fs.is_some(),
        binds: d.binds,
        masks: d.masks,
        landlock,
        seccomp,
        fidelity: d.fidelity,
        proc_shown: proc_shown(projection),
        environment: ralc_runtime::environment::Environment::policy(),
        refused: d.refused,
    }
}

/// The grants naming `/proc` or beneath it (served by the envelope's own `/proc`; the
/// kernel-wide files it hides stay shown beneath them).
fn proc_shown(projection: &SandboxProjection) -> Vec<String> {
    let Some(fs) = &projection.fs else {
        return Vec::new();
    };
    let mut v: Vec<String> = fs
        .floor
        .iter()
        .chain(&fs.read)
        .chain(&fs.write)
        .filter(|p| within(p, "/proc"))
        .cloned()
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The plan's lists while the sections fill them.
#[derive(Default)]
struct Draft {
    binds: Vec<Bind>,
    masks: Vec<Mask>,
    fidelity: Vec<Fidelity>,
    refused: Vec<String>,
}

impl Draft {
    fn bind(&mut self, path: &str, access: Access, layer: Layer, why: BindWhy) {
        self.binds.push(Bind {
            path: path.to_string(),
            access,
            layer,
            why,
        });
    }

    fn note(&mut self, path: &str, note: &str) {
        self.fidelity.push(Fidelity {
            path: path.to_string(),
            note: note.to_string(),
        });
    }

    /// One bind per path and layer (the writable one wins), none beneath the envelope's
    /// own `/dev` and `/proc`; every list sorted and without repeats.
    fn settle(&mut self) {
        // `/dev` and `/proc` are the envelope's own: a grant beneath them (the discard file
        // `/dev/null`) is served by bwrap's `--dev` and `--proc`, not by a bind.
        self.binds
            .retain(|b| !within(&b.path, "/dev") && !within(&b.path, "/proc"));
        self.binds.sort_by(|a, b| {
            (a.layer, &a.path, std::cmp::Reverse(a.access), a.why).cmp(&(
                b.layer,
                &b.path,
                std::cmp::Reverse(b.access),
                b.why,
            ))
        });
        // A rename guard that meets another bind of the same path and access keeps its
        // reason: the launcher keeps a guard even within a writable bind.
        self.binds.dedup_by(|later, earlier| {
            let same = later.layer == earlier.layer && later.path == earlier.path;
            if same && later.why == BindWhy::RenameGuard && later.access == earlier.access {
                earlier.why = BindWhy::RenameGuard;
            }
            same
        });
        self.masks.sort_by(|a, b| a.path.cmp(&b.path));
        self.masks.dedup();
        self.fidelity.sort();
        self.fidelity.dedup();
        self.refused.sort();
        self.refused.dedup();
    }
}

/// What Landlock's `Execute` admits when the exec projection restricts (`None`: it does
/// not): the allowed files, the carriers and link targets, the program, ralc itself; with
/// the fidelity notes of each kind.
fn exec_admits(
    projection: &SandboxProjection,
    program: &LaunchProgram,
    self_path: &str,
    d: &mut Draft,
) -> Option<ExecAdmits> {
    let ExecProjection::Restricted(rules) = &projection.exec else {
        return None;
    };
    let mut files: Vec<String> = rules.allow_files.clone();
    for c in &rules.carriers {
        files.push(c.clone());
        d.note(
            c,
            "executable: a carrier, the #! interpreter the kernel opens to start \
             an admitted file",
        );
    }
    for t in &rules.link_targets {
        files.push(t.clone());
        d.note(
            t,
            "executable and readable: the target of a vouched link in an allowed \
             directory (the link rule)",
        );
    }
    if !program.real.is_empty() {
        files.push(program.real.clone());
    }
    files.push(self_path.to_string());
    d.note(self_path, "executable: ralc's own trampoline");
    d.note(
        "(dynamic loader)",
        "executable: the kernel opens the loader to start any dynamic program. \
         Run directly (`ld.so FILE`, under any of its names) it is refused with \
         EACCES by ralc run's supervisor, which reads the exec's path from the \
         program's memory: a second thread rewriting that path after the read, or \
         a kernel without seccomp user notification, still lets the loader map a \
         readable file without Landlock's Execute check. Denied and vetoed programs \
         are masked (unreadable), so it cannot map them; it can still map a file the \
         program wrote itself, which reaches nothing the program's own code could not",
    );
    for f in &rules.deny_files {
        if rules.allow_dirs.iter().any(|dir| within(f, dir)) {
            d.note(
                f,
                "denied exec file under an allowed directory: masked in the \
                 envelope when it is a regular file at launch, so it cannot be \
                 read there either (otherwise the directory is admitted entry by \
                 entry)",
            );
        }
    }
    Some(ExecAdmits {
        files: sorted(files),
        dirs: sorted(rules.allow_dirs.clone()),
        deny_dirs: sorted(rules.deny_dirs.clone()),
        deny_files: sorted(rules.deny_files.clone()),
        deny_names: sorted(rules.deny_names.clone()),
    })
}

/// A restricted file system: the system defaults, the floor, the reads and writes, the
/// exec admits and the image shown; write exclusions bound read-only over their writable
/// prefix, exclusions masked; Landlock's file rights over what is shown. The working
/// directory the program starts in (`/` when the grant does not show it).
fn show_fs(
    fs: &FsProjection,
    exec: &ExecProjection,
    program: &LaunchProgram,
    cwd: &str,
    d: &mut Draft,
    landlock: &mut LandlockPlan,
) -> String {
    for p in SYSTEM_DEFAULTS {
        d.bind(p, Access::ReadOnly, Layer::Shown, BindWhy::SystemDefault);
        d.note(p, "readable: a system default programs need to start");
    }
    for p in &fs.floor {
        d.bind(p, Access::ReadOnly, Layer::Shown, BindWhy::Floor);
    }
    for p in &fs.read {
        d.bind(p, Access::ReadOnly, Layer::Shown, BindWhy::Read);
    }
    for p in &fs.write {
        d.bind(p, Access::Writable, Layer::Shown, BindWhy::Write);
    }
    // A grant the envelope's own /dev or /proc stands in for cannot be honoured: refused
    // (the `envelope-replaced` lint says so at `check`), never silently dropped.
    for (p, writable) in fs
        .read
        .iter()
        .filter(|p| !fs.write.contains(p))
        .map(|p| (p, false))
        .chain(fs.write.iter().map(|p| (p, true)))
    {
        if let Some(why) = ralc_runtime::plan::envelope_replaced(p, writable) {
            let how = if writable { "write" } else { "read" };
            d.refused.push(format!(
                "the {how} grant {p} cannot be honoured: {why}; remove it from the profile"
            ));
        }
    }
    let writable = |p: &str| fs.write.iter().any(|w| within(p, w));
    if let ExecProjection::Restricted(rules) = exec {
        for f in rules
            .allow_files
            .iter()
            .chain(&rules.carriers)
            .chain(&rules.link_targets)
        {
            d.bind(f, Access::ReadOnly, Layer::Shown, BindWhy::ExecAllow);
            if writable(f) {
                d.bind(f, Access::ReadOnly, Layer::Over, BindWhy::ExecAllow);
            }
        }
        for dir in &rules.allow_dirs {
            d.bind(dir, Access::ReadOnly, Layer::Shown, BindWhy::ExecAllow);
        }
    }
    // the image: none without a program (the stack's plan alone)
    if !program.real.is_empty() {
        d.bind(
            &program.real,
            Access::ReadOnly,
            Layer::Shown,
            BindWhy::Image,
        );
        if writable(&program.real) {
            d.bind(&program.real, Access::ReadOnly, Layer::Over, BindWhy::Image);
        }
    }
    for p in &fs.write_deny {
        if writable(p) {
            d.bind(p, Access::ReadOnly, Layer::Over, BindWhy::WriteDeny);
            d.note(
                p,
                "read-only whether it exists or not: a write exclusion absent at \
                 launch under a writable prefix is held by an empty read-only \
                 placeholder (a file or a directory by its name), removed after the run",
            );
        }
    }
    for x in &fs.deny {
        if within("/proc", x) {
            d.refused.push(format!(
                "the exclusion {x} would hide /proc, through which the sandbox starts its trampoline"
            ));
        }
        d.masks.push(Mask { path: x.clone() });
        if writable(x) {
            d.note(
                x,
                "masked only if it exists at launch: bwrap cannot mask a name \
                 that is absent under a writable prefix (the guard still refuses it)",
            );
        }
    }
    landlock.fs_rights = true;
    let shown: Vec<&Bind> = d.binds.iter().filter(|b| b.layer == Layer::Shown).collect();
    let paths = |access| -> Vec<String> {
        sorted(
            shown
                .iter()
                .filter(|b| b.access == access)
                .map(|b| b.path.clone())
                .collect(),
        )
    };
    landlock.read = paths(Access::ReadOnly);
    landlock.write = paths(Access::Writable);
    if !shown.iter().any(|b| within(cwd, &b.path)) && cwd.starts_with('/') {
        d.note(
            cwd,
            "not visible under the grant: shown as an empty read-only directory (what \
             the grant shows beneath it on top), and the program starts there",
        );
    }
    cwd.to_string()
}

/// What a run must not be able to rename away: the exclusions, the write exclusions, the
/// profile files and (with the file system restricted) ralc's own executable beneath a
/// writable bind, and each of their ancestors up to it; a profile file there is also
/// shown read-only (ralc is pinned read-only by the envelope). So the next launch runs
/// the same ralc from the same name, never one the program planted in a renamed
/// directory's place.
fn rename_protection(
    projection: &SandboxProjection,
    profiles: &[String],
    self_path: &str,
    d: &mut Draft,
) {
    let writable_roots: Vec<String> = match &projection.fs {
        None => vec!["/".to_string()],
        Some(fs) => fs.write.clone(),
    };
    let under_write = |p: &str| writable_roots.iter().any(|w| within(p, w));
    for p in profiles {
        if under_write(p) {
            d.bind(p, Access::ReadOnly, Layer::Over, BindWhy::Profile);
            d.note(
                p,
                "a profile file this launch read: read-only in the envelope, and it and \
                 its ancestors cannot be renamed there",
            );
        }
    }
    let mut protected: Vec<&str> = profiles.iter().map(String::as_str).collect();
    if let Some(fs) = &projection.fs {
        protected.extend(fs.deny.iter().chain(&fs.write_deny).map(String::as_str));
        if self_path.starts_with('/') {
            protected.push(self_path);
        }
    }
    for p in protected {
        for w in &writable_roots {
            for a in rename_guards(p, w) {
                d.bind(&a, Access::Writable, Layer::Shown, BindWhy::RenameGuard);
            }
        }
    }
}

/// The envelope's own: ralc pinned read-only, the resource caps, `/dev` and `/proc`; and
/// the refusals of a working directory or a program that is not absolute.
fn envelope(program: &LaunchProgram, cwd: &str, self_path: &str, d: &mut Draft) {
    d.bind(self_path, Access::ReadOnly, Layer::Over, BindWhy::SelfPin);
    d.note(
        RESOURCES,
        &format!(
            "capped at {} processes and {} GiB of memory by a cgroup of the launch where the launching user can make one (root, or a delegated subtree); otherwise uncapped",
            ralc_runtime::plan::PIDS_MAX,
            ralc_runtime::plan::MEMORY_MAX >> 30
        ),
    );
    d.note("/dev", "the envelope's own (bwrap --dev)");
    d.note(
        "/proc",
        "the envelope's own (bwrap --proc): every kernel-wide entry (/proc/sys, \
         /proc/sysrq-trigger, /proc/irq, …) read-only, writable only at /proc/self; \
         the kernel-memory and keyring files (kallsyms, timer_list, slabinfo, keys, …) \
         hidden unless a grant names them or /proc",
    );
    if !cwd.starts_with('/') {
        d.refused
            .push(format!("the working directory {cwd:?} is not absolute"));
    }
    // An empty program: the plan of the stack alone (`ralc render` without `-- PROGRAM`).
    if !program.real.is_empty() && !program.real.starts_with('/') {
        d.refused.push(format!(
            "the program {:?} is not an absolute real path",
            program.real
        ));
    }
}

/// The seccomp deny-set, with the offline rules when the network is cut and the memfd
/// exec rule when Landlock restricts exec; sorted.
fn seccomp_for(offline: bool, exec_restricted: bool) -> Vec<ralc_runtime::plan::SeccompRule> {
    let mut seccomp = seccomp_deny_set();
    if offline {
        seccomp.extend(seccomp_offline_rules());
    }
    if exec_restricted {
        seccomp.push(memfd_exec_rule());
    }
    sort_rules(&mut seccomp);
    seccomp
}

/// The fidelity entry about processes and memory (not a path).
pub const RESOURCES: &str = "(processes and memory)";

/// The ancestors of `path` strictly beneath the writable bind `root` (none when `path` is
/// not beneath it), each to be bound over itself so it cannot be renamed.
fn rename_guards(path: &str, root: &str) -> Vec<String> {
    let mut out = Vec::new();
    if path == root || !within(path, root) {
        return out;
    }
    let mut a = path;
    while let Some(i) = a.rfind('/') {
        a = &a[..i];
        if a.is_empty() || !within(a, root) || a == root {
            break;
        }
        out.push(a.to_string());
    }
    out
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::projection::{FsProjection, KernelExecRules};

    fn prog() -> LaunchProgram {
        LaunchProgram {
            real: "/usr/bin/true".into(),
            argv0: "true".into(),
            args: vec![],
        }
    }

    #[test]
    fn unrestricted_fs_binds_the_root_writable_and_the_self_pin_over() {
        let plan = render(&SandboxProjection::default(), &prog(), "/w", "/x/ralc");
        assert!(plan
            .binds
            .iter()
            .any(|b| b.path == "/" && b.access == Access::Writable));
        assert!(plan
            .binds
            .iter()
            .any(|b| b.path == "/x/ralc" && b.layer == Layer::Over));
        assert!(plan.landlock.exec.is_none());
        assert!(!plan.landlock.fs_rights);
        assert!(plan.refused.is_empty());
        assert!(!plan.namespaces.net);
    }

    #[test]
    fn restricted_projection_renders_binds_masks_and_exec_admits() {
        let proj = SandboxProjection {
            fs: Some(FsProjection {
                read: vec!["/home/u/proj".into(), "/home/u/.config".into()],
                write: vec!["/home/u/proj".into()],
                floor: vec![],
                deny: vec!["/home/u/proj/.env".into()],
                write_deny: vec!["/home/u/proj/r.ral".into()],
                links: vec![],
            }),
            exec: ExecProjection::Restricted(KernelExecRules {
                allow_dirs: vec!["/usr/bin".into()],
                allow_files: vec!["/home/u/proj/run.sh".into()],
                deny_dirs: vec![],
                deny_files: vec![],
                deny_names: vec!["bash".into()],
                carriers: vec!["/opt/tcl/bin/tclsh".into()],
                link_targets: vec!["/usr/lib/jvm/j17/bin/java".into()],
            }),
            net_offline: true,
        };
        let plan = render(&proj, &prog(), "/home/u/proj", "/x/ralc");
        assert!(plan.offline && plan.namespaces.net);
        assert!(plan.binds.iter().any(|b| b.path == "/home/u/proj"
            && b.access == Access::Writable
            && b.layer == Layer::Shown));
        assert!(plan.binds.iter().any(|b| b.path == "/home/u/proj/r.ral"
            && b.layer == Layer::Over
            && b.why == BindWhy::WriteDeny));
        assert!(plan
            .binds
            .iter()
            .any(|b| b.path == "/home/u/proj/run.sh" && b.layer == Layer::Over));
        assert_eq!(
            plan.masks,
            vec![Mask {
                path: "/home/u/proj/.env".into()
            }]
        );
        let ex = plan.landlock.exec.as_ref().unwrap();
        assert!(ex.files.contains(&"/usr/bin/true".to_string()));
        assert!(ex.files.contains(&"/x/ralc".to_string()));
        assert_eq!(ex.deny_names, vec!["bash".to_string()]);
        // The carrier is executable, shown read-only, and named in the fidelity report.
        assert!(ex.files.contains(&"/opt/tcl/bin/tclsh".to_string()));
        assert!(plan.binds.iter().any(|b| b.path == "/opt/tcl/bin/tclsh"
            && b.access == Access::ReadOnly
            && b.layer == Layer::Shown));
        assert!(plan
            .fidelity
            .iter()
            .any(|f| f.path == "/opt/tcl/bin/tclsh" && f.note.contains("carrier")));
        // So is a link target, named as the link rule's.
        assert!(ex.files.contains(&"/usr/lib/jvm/j17/bin/java".to_string()));
        assert!(plan
            .fidelity
            .iter()
            .any(|f| f.path == "/usr/lib/jvm/j17/bin/java" && f.note.contains("link rule")));
        assert!(plan.landlock.write.contains(&"/home/u/proj".to_string()));
        assert!(plan.fidelity.iter().any(|f| f.path == "/home/u/proj/.env"));
        assert_eq!(plan.cwd, "/home/u/proj");
        // Deterministic, and round-trips through JSON.
        assert_eq!(render(&proj, &prog(), "/home/u/proj", "/x/ralc"), plan);
        assert_eq!(LinuxPlan::from_json(&plan.to_json()), Ok(plan));
    }

    #[test]
    fn without_a_program_no_empty_path_is_bound_or_admitted() {
        let proj = SandboxProjection {
            fs: Some(FsProjection {
                read: vec!["/home/u/proj".into()],
                ..FsProjection::default()
            }),
            exec: ExecProjection::Restricted(KernelExecRules {
                allow_dirs: vec!["/usr/bin".into()],
                ..KernelExecRules::default()
            }),
            net_offline: false,
        };
        let plan = render(&proj, &LaunchProgram::default(), "/home/u/proj", "/x/ralc");
        assert!(
            plan.binds.iter().all(|b| !b.path.is_empty()),
            "{:?}",
            plan.binds
        );
        assert!(!plan.binds.iter().any(|b| b.why == BindWhy::Image));
        assert!(plan.landlock.read.iter().all(|p| !p.is_empty()));
        assert!(plan.landlock.write.iter().all(|p| !p.is_empty()));
        let ex = plan.landlock.exec.as_ref().unwrap();
        assert!(ex.files.iter().all(|p| !p.is_empty()), "{:?}", ex.files);
        assert!(plan.refused.is_empty(), "{:?}", plan.refused);
        // with a program, its image is bound and admitted
        let plan = render(&proj, &prog(), "/home/u/proj", "/x/ralc");
        assert!(plan
            .binds
            .iter()
            .any(|b| b.path == "/usr/bin/true" && b.why == BindWhy::Image));
        assert!(plan.landlock.read.contains(&"/usr/bin/true".to_string()));
    }

    #[test]
    fn a_deny_hiding_proc_is_refused_and_an_invisible_cwd_is_kept() {
        let proj = SandboxProjection {
            fs: Some(FsProjection {
                deny: vec!["/".into()],
                ..FsProjection::default()
            }),
            ..SandboxProjection::default()
        };
        let plan = render(&proj, &prog(), "/home/u", "/x/ralc");
        assert_eq!(plan.refused.len(), 1);
        // Never `/` silently: the program starts in its working directory, shown empty.
        assert_eq!(plan.cwd, "/home/u");
        assert!(plan
            .fidelity
            .iter()
            .any(|f| f.path == "/home/u" && f.note.contains("empty read-only directory")));
    }

    #[test]
    fn a_grant_spelled_through_a_link_shows_the_link() {
        let proj = SandboxProjection {
            fs: Some(FsProjection {
                read: vec!["/data/real".into()],
                links: vec!["/home/u/data".into()],
                ..FsProjection::default()
            }),
            ..SandboxProjection::default()
        };
        let plan = render(&proj, &prog(), "/home/u", "/x/ralc");
        assert!(plan
            .binds
            .iter()
            .any(|b| b.path == "/home/u/data" && b.why == BindWhy::Link));
        assert!(!plan.landlock.read.contains(&"/home/u/data".to_string()));
    }

    #[test]
    fn exclusions_and_profiles_under_a_writable_bind_get_rename_guards() {
        let proj = SandboxProjection {
            fs: Some(FsProjection {
                write: vec!["/w".into(), "/w/a".into()],
                deny: vec!["/w/a/b/secret".into(), "/elsewhere/x".into()],
                write_deny: vec!["/w/c/hook".into()],
                ..FsProjection::default()
            }),
            exec: ExecProjection::Restricted(KernelExecRules::default()),
            net_offline: false,
        };
        let profiles = vec!["/w/p/q.ral".to_string(), "/ro/r.ral".to_string()];
        let plan = render_with_profiles(&proj, &prog(), "/w", "/x/ralc", &profiles);
        let guards: Vec<&str> = plan
            .binds
            .iter()
            .filter(|b| b.why == BindWhy::RenameGuard)
            .map(|b| b.path.as_str())
            .collect();
        // /w/a is a write prefix too: its bind keeps the guard's reason (the launcher keeps
        // a guard within a writable bind).
        assert_eq!(guards, vec!["/w/a", "/w/a/b", "/w/c", "/w/p"]);
        assert!(plan.binds.iter().all(|b| b.why != BindWhy::RenameGuard
            || (b.access == Access::Writable && b.layer == Layer::Shown)));
        // The profile in the write region is read-only over it; the other is left alone.
        assert!(plan.binds.iter().any(|b| b.path == "/w/p/q.ral"
            && b.why == BindWhy::Profile
            && b.layer == Layer::Over
            && b.access == Access::ReadOnly));
        assert!(!plan.binds.iter().any(|b| b.path == "/ro/r.ral"));
        // An exec-restricting plan withholds executable memfds; an unrestricted one does not.
        assert!(plan.seccomp.iter().any(|r| r.syscall == "memfd_create"));
        let open = render(&SandboxProjection::default(), &prog(), "/w", "/x/ralc");
        assert!(!open.seccomp.iter().any(|r| r.syscall == "memfd_create"));
    }

    #[test]
    fn rename_guards_lie_strictly_between_the_bind_and_the_path() {
        assert_eq!(rename_guards("/w/a/b/c", "/w"), vec!["/w/a/b", "/w/a"]);
        assert!(rename_guards("/w/a", "/w").is_empty());
        assert!(rename_guards("/w", "/w").is_empty());
        assert!(rename_guards("/v/a/b", "/w").is_empty());
        assert_eq!(rename_guards("/a/b", "/"), vec!["/a"]);
    }
}
