//! `LinuxPlan`: the Linux launch plan as data — bwrap options, binds, deny masks, the
//! Landlock rules, the seccomp deny-set with each rule's reason, namespaces, the working
//! directory, the fidelity report and what the plan refuses. Rendered purely (by the
//! compiler's `render::linux`), printed as JSON, and read by the launcher. Versioned and
//! sorted; it never touches the disk and decides nothing about profiles.

pub mod sid;
pub mod windows;

use serde::{Deserialize, Serialize};

/// The plan format's version; a launcher refuses any other.
pub const LINUX_PLAN_VERSION: u32 = 1;

/// Where bwrap is looked for, in this order: the system's install directories only, never
/// the caller's `PATH`. A `PATH` entry a launch could have written (a project's `bin/`,
/// `node_modules/.bin`, a home's `~/.local/bin`) could otherwise hand the next launch a
/// planted bwrap that runs unconfined; a root-run program writes files the ownership
/// check (`linux::helper::check_trusted`) cannot tell from the system's (docs/linux.md).
pub const BWRAP_DIRS: &str = "/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin:/usr/local/sbin";

/// The program a launch runs, as the in-process guard admitted it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LaunchProgram {
    /// The program's real path (the file the trampoline execs).
    pub real: String,
    /// Its spelling, passed as `argv[0]`.
    pub argv0: String,
    /// The arguments after `argv[0]`.
    pub args: Vec<String>,
}

/// Read-only or writable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    ReadOnly,
    Writable,
}

/// Where a bind goes in bwrap's argv: `Shown` binds (the projection) come before `/proc`
/// and `/dev`; `Over` binds (the pins, write protections) after every mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    Shown,
    Over,
}

/// Why a bind is in the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindWhy {
    /// The file system is unrestricted: the host's root, writable.
    Root,
    /// A read-only system default a program needs to start (a fidelity note).
    SystemDefault,
    /// The floor (spec §3.5).
    Floor,
    /// A read prefix.
    Read,
    /// A write prefix.
    Write,
    /// The program image.
    Image,
    /// An allowed exec file or directory.
    ExecAllow,
    /// A write exclusion (a `--restrict` file) shown through a writable bind.
    WriteDeny,
    /// ralc's own executable, read-only at its current name.
    SelfPin,
    /// A profile file the launch read (`-p`, `--extend`, `--restrict`) under a writable
    /// bind: read-only in the envelope, so a confined program cannot rewrite what
    /// confines its next run.
    Profile,
    /// An ancestor, beneath a writable bind, of an exclusion, a write exclusion or a
    /// profile file, bound over itself: a mount point cannot be renamed, removed or
    /// replaced, so the protected path keeps its name for this run and the next.
    RenameGuard,
    /// A grant spelled through a symlink: the link itself is shown, as the link, where
    /// nothing shown holds its directory (the program's view, issue #27).
    Link,
}

/// One bind: the host object at `path` shown at the same path in the envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bind {
    pub path: String,
    pub access: Access,
    pub layer: Layer,
    pub why: BindWhy,
}

/// A deny mask: the exclusion at `path` hidden wherever a bind shows it (an empty read-only
/// tmpfs over a directory, `/dev/null` over a file; which one is decided at launch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mask {
    pub path: String,
}

/// The exec admits Landlock's `Execute` right receives (the kernel exec table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ExecAdmits {
    /// Allowed files (the program image, its loader, ralc's pin included).
    pub files: Vec<String>,
    /// Allowed directories, each admitted as its hierarchy less what is blocked below.
    pub dirs: Vec<String>,
    /// Denied directories and files (subtracted from the allowed directories).
    pub deny_dirs: Vec<String>,
    pub deny_files: Vec<String>,
    /// Name vetoes (Collision-folded keys): entries of that name are never admitted.
    pub deny_names: Vec<String>,
}

/// The Landlock layer the trampoline enters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LandlockPlan {
    /// `Some`: the exec projection restricts; the layer handles `Execute`. Required: a
    /// host without Landlock refuses the launch.
    pub exec: Option<ExecAdmits>,
    /// `true`: the fs projection restricts; the layer also handles the file rights the
    /// ABI offers (best effort), read on `read`, read and write on `write`.
    pub fs_rights: bool,
    pub read: Vec<String>,
    pub write: Vec<String>,
}

/// What a seccomp rule does when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeccompVerdict {
    /// Kill the process.
    Kill,
    /// Fail with `EPERM`.
    Eperm,
    /// Fail with `ENOSYS` (libc falls back).
    Enosys,
}

/// An argument condition: `(arg[index] & mask) == value` (32-bit compare when `dword`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgMatch {
    pub index: u8,
    pub mask: u64,
    pub value: u64,
    pub dword: bool,
}

/// One rule of the seccomp deny-set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeccompRule {
    pub syscall: String,
    pub verdict: SeccompVerdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg: Option<ArgMatch>,
    /// Why the rule exists (quoted in denial hints).
    pub reason: String,
}

/// Namespaces bwrap unshares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Namespaces {
    pub ipc: bool,
    pub uts: bool,
    pub pid: bool,
    pub cgroup_try: bool,
    pub net: bool,
}

/// bwrap's session options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub new_session: bool,
    pub die_with_parent: bool,
}

/// Where the plan is broader than the grant (a system default the kernel must admit for
/// a program to start) or cannot be as narrow (noted, the guard still refuses).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fidelity {
    pub path: String,
    pub note: String,
}

/// The whole Linux plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinuxPlan {
    pub version: u32,
    pub program: LaunchProgram,
    /// ralc's executable on the target; every envelope binds it read-only.
    pub self_path: String,
    /// The working directory inside the envelope (`--chdir`).
    pub cwd: String,
    pub options: Options,
    pub namespaces: Namespaces,
    /// The stack asked for `` `offline ``: the launch needs a network namespace.
    pub offline: bool,
    /// `false`: the file system is unrestricted (the host's root is bound writable).
    pub fs_restricted: bool,
    pub binds: Vec<Bind>,
    pub masks: Vec<Mask>,
    pub landlock: LandlockPlan,
    pub seccomp: Vec<SeccompRule>,
    pub fidelity: Vec<Fidelity>,
    /// The grants naming `/proc` or a path beneath it: the kernel-wide files `procfs`
    /// hides stay shown (read-only) beneath these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proc_shown: Vec<String>,
    /// The program's environment: what passes, what is removed (`environment`).
    #[serde(default)]
    pub environment: crate::environment::Environment,
    /// Why the plan cannot be launched (empty: it can).
    pub refused: Vec<String>,
}

impl LinuxPlan {
    /// The plan as pretty JSON (deterministic: every list is sorted by the renderer).
    pub fn to_json(&self) -> String {
        // Serialising plain data into a String cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parse a plan, refusing another version.
    pub fn from_json(text: &str) -> Result<LinuxPlan, String> {
        let plan: LinuxPlan =
            serde_json::from_str(text).map_err(|e| format!("not a Linux plan: {e}"))?;
        if plan.version != LINUX_PLAN_VERSION {
            return Err(format!(
                "Linux plan version {} is not {LINUX_PLAN_VERSION}",
                plan.version
            ));
        }
        Ok(plan)
    }
}

/// The process cap of every launch (as the macOS fork brake and the Windows job object).
pub const PIDS_MAX: u64 = 512;
/// The memory cap of every launch: 4 GiB.
pub const MEMORY_MAX: u64 = 4 << 30;

/// The projection-independent seccomp deny-set, each rule with its reason.
pub fn seccomp_deny_set() -> Vec<SeccompRule> {
    let mut rules = kill_rules();
    rules.extend(namespace_rules());
    rules.extend(terminal_rules());
    rules.extend(setid_rules());
    rules.extend(out_of_reach_rules());
    rules.extend(socket_family_rules());
    rules.push(SeccompRule {
        syscall: "io_uring_setup".to_string(),
        verdict: SeccompVerdict::Eperm,
        arg: None,
        reason: "io_uring runs file and socket calls where seccomp cannot see them".to_string(),
    });
    sort_rules(&mut rules);
    rules
}

/// The calls the deny-set kills the program for, by family.
fn kill_rules() -> Vec<SeccompRule> {
    let mut rules = Vec::new();
    let mut kill = |names: &[&str], reason: &str| {
        for n in names {
            rules.push(SeccompRule {
                syscall: (*n).to_string(),
                verdict: SeccompVerdict::Kill,
                arg: None,
                reason: reason.to_string(),
            });
        }
    };
    kill(
        &["ptrace", "process_vm_readv", "process_vm_writev"],
        "reaches another process's memory",
    );
    kill(
        &["perf_event_open", "bpf", "userfaultfd"],
        "kernel attack surface with a history of exploits",
    );
    kill(
        &[
            "kexec_load",
            "kexec_file_load",
            "reboot",
            "swapon",
            "swapoff",
        ],
        "acts on the host machine",
    );
    kill(
        &["init_module", "finit_module", "delete_module"],
        "loads or unloads kernel modules",
    );
    kill(
        &["keyctl", "add_key", "request_key"],
        "the kernel keyring is not namespaced",
    );
    kill(
        &["open_by_handle_at"],
        "opens files by handle, around every path-based rule",
    );
    kill(
        &[
            "mount",
            "umount2",
            "pivot_root",
            "move_mount",
            "open_tree",
            "fsopen",
            "fsmount",
            "fsconfig",
            "fspick",
            "mount_setattr",
        ],
        "the mount family could undo the envelope's masks",
    );
    rules
}

/// No new user namespace, no joining another one.
fn namespace_rules() -> Vec<SeccompRule> {
    let mut rules = Vec::new();
    // Linux's CLONE_NEWUSER, written as its value: the seccomp plan is data, rendered on
    // every host (libc defines the constant only for Linux targets).
    let newuser: u64 = 0x1000_0000;
    for n in ["unshare", "clone"] {
        rules.push(SeccompRule {
            syscall: n.to_string(),
            verdict: SeccompVerdict::Eperm,
            arg: Some(ArgMatch {
                index: 0,
                mask: newuser,
                value: newuser,
                dword: false,
            }),
            reason: "a new user namespace opens userns-gated kernel surface".to_string(),
        });
    }
    rules.push(SeccompRule {
        syscall: "setns".to_string(),
        verdict: SeccompVerdict::Eperm,
        arg: None,
        reason: "joining another namespace leaves the envelope".to_string(),
    });
    rules
}

/// No input injected into the terminal.
fn terminal_rules() -> Vec<SeccompRule> {
    let mut rules = Vec::new();
    for (value, what) in [(0x5412, "TIOCSTI"), (0x541C, "TIOCLINUX")] {
        rules.push(SeccompRule {
            syscall: "ioctl".to_string(),
            verdict: SeccompVerdict::Eperm,
            arg: Some(ArgMatch {
                index: 1,
                mask: 0xffff_ffff,
                value,
                dword: true,
            }),
            reason: format!("ioctl {what} injects input into the terminal"),
        });
    }
    rules
}

/// No setuid or setgid bit on anything the program makes.
fn setid_rules() -> Vec<SeccompRule> {
    let mut rules = Vec::new();
    // Setuid and setgid bits: nothing the program writes may carry them for the host to
    // run (a root inside without capabilities still owns its files and could `chmod u+s`
    // them). Each call that sets a mode is refused when the mode holds either bit.
    for (name, index) in [
        ("chmod", 1),
        ("fchmod", 1),
        ("fchmodat", 2),
        ("fchmodat2", 2),
        ("creat", 1),
        ("open", 2),
        ("openat", 3),
        ("mknod", 1),
        ("mknodat", 2),
    ] {
        for value in [0o4000, 0o2000, 0o6000] {
            rules.push(SeccompRule {
                syscall: name.to_string(),
                verdict: SeccompVerdict::Eperm,
                arg: Some(ArgMatch {
                    index,
                    mask: 0o6000,
                    value,
                    dword: true,
                }),
                reason: "a setuid or setgid bit would leave a privileged file for the host"
                    .to_string(),
            });
        }
    }
    rules
}

/// The socket families a program may open: `AF_UNIX` (1), `AF_INET` (2), `AF_INET6` (10)
/// and `AF_NETLINK` (16), each served by the network namespace (or, for `AF_UNIX` under
/// `` `offline ``, refused by its own rule). Every other family below 64 is refused:
/// `AF_VSOCK` (40) reaches the hypervisor's host, `AF_TIPC`, `AF_RDS`, `AF_BLUETOOTH`,
/// `AF_ALG`, `AF_PACKET`, … are not namespaced or are kernel surface no build needs. The
/// refused families are written as aligned blocks (value, mask), so ten rules cover them;
/// the kernel itself refuses any family from `AF_MAX` (46) up.
pub const SOCKET_FAMILIES_ALLOWED: [u64; 4] = [1, 2, 10, 16];

fn socket_family_rules() -> Vec<SeccompRule> {
    // (first family, block size): 3, 4-7, 8-9, 11, 12-15, 17, 18-19, 20-23, 24-31, 32-63.
    let blocks: [(u64, u64); 10] = [
        (3, 1),
        (4, 4),
        (8, 2),
        (11, 1),
        (12, 4),
        (17, 1),
        (18, 2),
        (20, 4),
        (24, 8),
        (32, 32),
    ];
    blocks
        .iter()
        .map(|&(value, size)| SeccompRule {
            syscall: "socket".to_string(),
            verdict: SeccompVerdict::Eperm,
            arg: Some(ArgMatch {
                index: 0,
                mask: 0xffff_ffff & !(size - 1),
                value,
                dword: true,
            }),
            reason: "a socket family outside AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK \
                     (AF_VSOCK, AF_TIPC, AF_RDS, AF_PACKET, …: not namespaced, or kernel surface)"
                .to_string(),
        })
        .collect()
}

/// Calls whose arguments seccomp cannot read: refused as absent, so libc falls back to
/// the older call the rules above can judge.
fn out_of_reach_rules() -> Vec<SeccompRule> {
    [
        (
            "openat2",
            "openat2's mode is out of seccomp's reach; libc falls back to openat",
        ),
        (
            "clone3",
            "clone3's flags are out of seccomp's reach; libc falls back to clone",
        ),
    ]
    .into_iter()
    .map(|(syscall, reason)| SeccompRule {
        syscall: syscall.to_string(),
        verdict: SeccompVerdict::Enosys,
        arg: None,
        reason: reason.to_string(),
    })
    .collect()
}

/// The deny-set's one order: by verdict, syscall, argument value.
pub fn sort_rules(rules: &mut [SeccompRule]) {
    rules.sort_by(|a, b| {
        (a.verdict, &a.syscall, a.arg.as_ref().map(|m| m.value)).cmp(&(
            b.verdict,
            &b.syscall,
            b.arg.as_ref().map(|m| m.value),
        ))
    });
}

/// The seccomp rule that keeps an executable memfd from being made under an exec-restricting
/// plan: `memfd_create` without `MFD_NOEXEC_SEAL` fails with EPERM. Landlock's `Execute`
/// right covers files in the hierarchy only; a memfd (`execve("/proc/self/fd/N")`,
/// `execveat(fd, "", AT_EMPTY_PATH)`) is outside it, so without this rule any ELF the
/// program writes there would run. A sealed non-executable memfd still works.
pub fn memfd_exec_rule() -> SeccompRule {
    const MFD_NOEXEC_SEAL: u64 = 0x0008;
    SeccompRule {
        syscall: "memfd_create".to_string(),
        verdict: SeccompVerdict::Eperm,
        arg: Some(ArgMatch {
            index: 1,
            mask: MFD_NOEXEC_SEAL,
            value: 0,
            dword: true,
        }),
        reason: "an executable memfd runs a file no exec grant admits (Landlock sees only the \
                 file hierarchy); pass MFD_NOEXEC_SEAL"
            .to_string(),
    }
}

/// Does this seccomp set belong to a plan whose Landlock restricts exec? The renderer adds
/// `memfd_exec_rule` exactly then (`render::linux::seccomp_for`).
pub fn restricts_exec(rules: &[SeccompRule]) -> bool {
    let m = memfd_exec_rule();
    rules.contains(&m)
}

/// The rule `` `offline `` adds: `socket(AF_UNIX, …)` refused, so no pathname socket of a
/// host daemon can be connected to (a socket file in a visible directory); `socketpair`
/// stays, so a program's own connected pairs keep working.
pub fn seccomp_offline_rules() -> Vec<SeccompRule> {
    vec![SeccompRule {
        syscall: "socket".to_string(),
        verdict: SeccompVerdict::Eperm,
        arg: Some(ArgMatch {
            index: 0,
            mask: 0xffff_ffff,
            // Linux's AF_UNIX, written as its value: the plan renders on every host.
            value: 1,
            dword: true,
        }),
        reason: "`offline: a unix socket could reach a host daemon; socketpair stays".to_string(),
    }]
}

/// The device nodes and directories of bwrap's `--dev` that stand for the host's own
/// (same device numbers, or a per-envelope instance a program expects): a grant of one of
/// these is honoured by the envelope's `/dev`.
pub const ENVELOPE_DEV: &[&str] = &[
    "/dev/fd",
    "/dev/full",
    "/dev/null",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/random",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/tty",
    "/dev/urandom",
    "/dev/zero",
];

/// Does the envelope replace what a grant of `path` names (so the grant cannot be
/// honoured)? `Some(why)` for a path at or beneath `/dev` that bwrap's `--dev` does not
/// stand in for (`/dev/shm`, `/dev/mqueue`, `/dev` itself, a host device), a write at or
/// beneath `/proc` other than the program's own `/proc/self` and `/proc/thread-self`
/// (the envelope's `/proc` is read-only), and a process directory `/proc/N` (the
/// envelope's `/proc` shows its own processes only), and a write at or beneath `/sys`
/// (the host's kernel settings; `/sys` is shown read-only at most). Pure.
pub fn envelope_replaced(path: &str, writable: bool) -> Option<&'static str> {
    if writable && within(path, "/sys") {
        return Some(
            "the host's /sys is shown read-only at most: a write there sets the host's kernel",
        );
    }
    if within(path, "/dev") {
        if ENVELOPE_DEV.iter().any(|d| within(path, d)) {
            return None;
        }
        return Some(
            "the envelope's /dev is its own (bwrap --dev): this path there is not the host's",
        );
    }
    if within(path, "/proc") {
        let own = ["/proc/self", "/proc/thread-self"]
            .iter()
            .any(|d| within(path, d));
        if writable && !own {
            return Some(
                "the envelope's /proc is read-only outside /proc/self: the write cannot be honoured",
            );
        }
        let first = path
            .trim_start_matches("/proc/")
            .split('/')
            .next()
            .unwrap_or("");
        if path != "/proc" && !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
            return Some(
                "the envelope's /proc shows its own processes only: a host process's directory is not there",
            );
        }
    }
    None
}

/// Is `inner` equal to or beneath `outer` (both absolute, normalised, `/`-separated)?
pub fn within(inner: &str, outer: &str) -> bool {
    if outer == "/" {
        return inner.starts_with('/');
    }
    inner == outer || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_componentwise() {
        assert!(within("/a/b", "/a"));
        assert!(within("/a", "/a"));
        assert!(!within("/ab", "/a"));
        assert!(within("/x", "/"));
        assert!(!within("/a", "/a/b"));
    }

    #[test]
    fn deny_set_has_a_reason_for_every_rule_and_is_sorted() {
        let set = seccomp_deny_set();
        assert!(set.iter().all(|r| !r.reason.is_empty()));
        assert!(set.iter().any(|r| r.syscall == "ptrace"));
        assert!(set.iter().any(|r| r.syscall == "clone3"));
        let again = seccomp_deny_set();
        assert_eq!(set, again);
    }

    /// The deny-set spells two Linux constants as literals so it renders on every host;
    /// on Linux they must be libc's own values.
    #[cfg(target_os = "linux")]
    #[test]
    fn literal_constants_are_linux_values() {
        let set = seccomp_deny_set();
        let newuser = libc::CLONE_NEWUSER as u64;
        assert!(set
            .iter()
            .any(|r| r.syscall == "unshare" && r.arg.as_ref().is_some_and(|a| a.value == newuser)));
        #[allow(
            clippy::unnecessary_cast,
            reason = "libc's ioctl request type is u64 on gnu, i32 on musl"
        )]
        let tiocsti = libc::TIOCSTI as u64;
        assert!(set
            .iter()
            .any(|r| r.syscall == "ioctl" && r.arg.as_ref().is_some_and(|a| a.value == tiocsti)));
        let af_unix = libc::AF_UNIX as u64;
        assert!(seccomp_offline_rules()
            .iter()
            .any(|r| r.syscall == "socket" && r.arg.as_ref().is_some_and(|a| a.value == af_unix)));
    }

    #[test]
    fn envelope_replaced_names_what_the_envelope_stands_in_for() {
        assert!(envelope_replaced("/dev/shm", true).is_some());
        assert!(envelope_replaced("/dev", false).is_some());
        assert!(envelope_replaced("/dev/kvm", false).is_some());
        assert!(envelope_replaced("/dev/null", true).is_none());
        assert!(envelope_replaced("/dev/pts/3", true).is_none());
        assert!(envelope_replaced("/proc", true).is_some());
        assert!(envelope_replaced("/proc/sys/kernel", true).is_some());
        assert!(envelope_replaced("/proc", false).is_none());
        assert!(envelope_replaced("/proc/cpuinfo", false).is_none());
        assert!(envelope_replaced("/proc/self/attr", true).is_none());
        assert!(envelope_replaced("/proc/1/root", false).is_some());
        assert!(envelope_replaced("/devices", true).is_none());
        assert!(envelope_replaced("/tmp", true).is_none());
        assert!(envelope_replaced("/sys/kernel", true).is_some());
        assert!(envelope_replaced("/sys", false).is_none());
    }

    #[test]
    fn socket_families_outside_the_allow_list_are_refused() {
        let set = seccomp_deny_set();
        let refused = |af: u64| {
            set.iter().any(|r| {
                r.syscall == "socket"
                    && r.arg
                        .as_ref()
                        .is_some_and(|a| a.index == 0 && af & a.mask == a.value)
            })
        };
        for af in 0..64u64 {
            let allowed = SOCKET_FAMILIES_ALLOWED.contains(&af) || af == 0;
            assert_eq!(refused(af), !allowed, "family {af}");
        }
        assert!(set.iter().any(|r| r.syscall == "io_uring_setup"));
    }

    #[test]
    fn version_is_checked() {
        let plan = LinuxPlan {
            version: 99,
            program: LaunchProgram::default(),
            self_path: "/x".into(),
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
            binds: vec![],
            masks: vec![],
            landlock: LandlockPlan::default(),
            seccomp: vec![],
            fidelity: vec![],
            proc_shown: vec![],
            environment: crate::environment::Environment::policy(),
            refused: vec![],
        };
        assert!(LinuxPlan::from_json(&plan.to_json()).is_err());
        let ok = LinuxPlan {
            version: LINUX_PLAN_VERSION,
            ..plan
        };
        assert_eq!(LinuxPlan::from_json(&ok.to_json()), Ok(ok));
    }
}
