//! Supervision, for the denial hints of `ralc run` (diagnosis only; the kernel plan stays
//! the authority). In the trampoline: one seccomp filter with a user-notification listener
//! on `execve`/`execveat`, on the deny-set's kill calls (which the bwrap-loaded programs then
//! answer with `USER_NOTIF` instead of a kill, `seccomp::programs`) and, under `--explain`,
//! on the path calls; the listener goes back to the parent over the reach socket and is
//! closed before the program is exec'd. In the parent: the loop that receives each
//! notification, reads the path the call names from `/proc/TID/mem` (re-checked valid
//! after the read), records it, and answers: `CONTINUE` for an exec or a path call (the
//! kernel then judges it as if unsupervised: Landlock, the mounts), never for a kill call,
//! which is never run: the caller's process is killed with `SIGSYS` as the kernel would
//! (then `SIGKILL` if it survives a handler). If the listener closes, a notified call fails
//! with `ENOSYS`: it still never runs. Only one listener can exist on a filter chain, so
//! the program cannot install its own and answer `CONTINUE` to a kill call. One exec is
//! refused here rather than continued: under an exec list (`plan::restricts_exec`), an
//! exec whose target is a dynamic loader (by device and inode, the name resolved as the
//! caller sees it by `exec_target`, so any name, link or `/proc/self/fd` of it; a name that
//! cannot be read or resolved is refused too) is answered `EACCES` — the loader run directly would map any readable program past
//! Landlock's Execute right. It never grants, widens or runs anything, and never answers
//! `CONTINUE` to a kill call.

use crate::denial::{Denial, Refused};
use crate::plan::{SeccompRule, SeccompVerdict};
use std::collections::BTreeSet;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// What is watched: exec and the kill calls always; the path calls under `--explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watch {
    /// Exec and the deny-set's kill calls.
    /// Exec, the deny-set's kill calls and the path calls that write (a refused write is
    /// named when the program fails).
    Default,
    /// Also every path call (open, stat, mkdir, unlink, rename, …).
    Explain,
}

use crate::denial::MAX_KEPT;

/// `SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP` (linux/seccomp.h; not in libc).
const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;

const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JSET_K: u16 = 0x45;
const BPF_RET_K: u16 = 0x06;

/// This architecture's audit number (`seccomp_data.arch`).
pub fn native_arch() -> u32 {
    if cfg!(target_arch = "x86_64") {
        0xC000_003E
    } else if cfg!(target_arch = "aarch64") {
        0xC000_00B7
    } else if cfg!(target_arch = "riscv64") {
        0xC000_00F3
    } else {
        0
    }
}

/// The path calls watched (all under `--explain`, the writing ones by default): (number, index of the path argument, index
/// of the directory descriptor or -1, the call's kind).
fn path_calls() -> Vec<(i64, usize, i32, PathCall)> {
    let mut v = vec![
        (libc::SYS_openat, 1, 0, PathCall::Open(2)),
        (libc::SYS_openat2, 1, 0, PathCall::Open2),
        (libc::SYS_newfstatat, 1, 0, PathCall::Read),
        (libc::SYS_statx, 1, 0, PathCall::Read),
        (libc::SYS_faccessat, 1, 0, PathCall::Read),
        (libc::SYS_faccessat2, 1, 0, PathCall::Read),
        (libc::SYS_readlinkat, 1, 0, PathCall::Read),
        (libc::SYS_mkdirat, 1, 0, PathCall::Write),
        (libc::SYS_mknodat, 1, 0, PathCall::Write),
        (libc::SYS_unlinkat, 1, 0, PathCall::Write),
        (libc::SYS_renameat, 1, 0, PathCall::Write),
        (libc::SYS_renameat2, 1, 0, PathCall::Write),
        (libc::SYS_linkat, 3, 2, PathCall::Write),
        (libc::SYS_symlinkat, 2, 1, PathCall::Write),
        (libc::SYS_truncate, 0, -1, PathCall::Write),
        (libc::SYS_fchmodat, 1, 0, PathCall::Write),
        (libc::SYS_fchownat, 1, 0, PathCall::Write),
        (libc::SYS_utimensat, 1, 0, PathCall::Write),
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        (libc::SYS_open, 0, -1, PathCall::Open(1)),
        (libc::SYS_creat, 0, -1, PathCall::Write),
        (libc::SYS_stat, 0, -1, PathCall::Read),
        (libc::SYS_lstat, 0, -1, PathCall::Read),
        (libc::SYS_access, 0, -1, PathCall::Read),
        (libc::SYS_readlink, 0, -1, PathCall::Read),
        (libc::SYS_mkdir, 0, -1, PathCall::Write),
        (libc::SYS_unlink, 0, -1, PathCall::Write),
        (libc::SYS_rmdir, 0, -1, PathCall::Write),
        (libc::SYS_rename, 0, -1, PathCall::Write),
        (libc::SYS_chmod, 0, -1, PathCall::Write),
    ]);
    v
}

/// What a path call does with its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PathCall {
    /// Reads (or only looks at) it.
    Read,
    /// Changes it.
    Write,
    /// An open: a write when its flags (argument N) ask to write or create.
    Open(usize),
    /// openat2: the flags are in the `open_how` the third argument points to.
    Open2,
}

/// The numbers of the deny-set's kill calls on this architecture.
pub fn kill_numbers(rules: &[SeccompRule]) -> Vec<i64> {
    let mut v: Vec<i64> = rules
        .iter()
        .filter(|r| r.verdict == SeccompVerdict::Kill)
        .filter_map(|r| super::seccomp::number(&r.syscall))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The open flags a default watch notifies on (tested in the filter with `JSET` on the
/// flags argument's low word): an open that may write. `O_TMPFILE` is left to
/// `open_writes` (it shares a bit with `O_DIRECTORY`, which every directory listing sets).
const OPEN_WRITE_MASK: u32 = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;

/// The supervision filter as raw cBPF bytes: a foreign architecture and the kill calls
/// notify (the supervisor kills), exec notifies (the supervisor answers `CONTINUE`), and
/// so do the path calls: under `Explain` every one, by default only those that write (the
/// calls that change a path, and `open`/`openat` whose flags ask to write, so a refused
/// write is named by default without a notification per read); everything else is
/// allowed (the other filters still decide it).
pub fn filter(rules: &[SeccompRule], watch: Watch) -> Vec<u8> {
    let mut watched: Vec<u32> = kill_numbers(rules).iter().map(|n| *n as u32).collect();
    watched.push(libc::SYS_execve as u32);
    watched.push(libc::SYS_execveat as u32);
    // (number, index of the flags argument): an open notified only when it may write
    let mut opens: Vec<(u32, usize)> = Vec::new();
    for (n, _, _, kind) in path_calls() {
        match (watch, kind) {
            (Watch::Explain, _) | (Watch::Default, PathCall::Write) => watched.push(n as u32),
            (Watch::Default, PathCall::Open(i)) => opens.push((n as u32, i)),
            (Watch::Default, PathCall::Read | PathCall::Open2) => {}
        }
    }
    watched.sort();
    watched.dedup();
    opens.retain(|(n, _)| !watched.contains(n));
    let notify = libc::SECCOMP_RET_USER_NOTIF;
    let mut prog: Vec<(u16, u8, u8, u32)> = vec![
        (BPF_LD_W_ABS, 0, 0, 4), // seccomp_data.arch
        (BPF_JEQ_K, 1, 0, native_arch()),
        (BPF_RET_K, 0, 0, notify),
        (BPF_LD_W_ABS, 0, 0, 0), // seccomp_data.nr
    ];
    // One compare per watched number, each jumping to the closing `notify` on a match
    // (over the remaining compares, the open blocks and the `allow`).
    let n = watched.len();
    let k = opens.len();
    for (i, nr) in watched.iter().enumerate() {
        let to_notify = (n - i - 1) + 3 * k + 1;
        prog.push((BPF_JEQ_K, to_notify as u8, 0, *nr));
    }
    // One block per open call: its number, then its flags' low word against the mask
    // (to `notify` when set, else to `allow`: the number matched no other compare).
    for (j, (nr, arg)) in opens.iter().enumerate() {
        let after = 3 * (k - j - 1);
        prog.push((BPF_JEQ_K, 0, 2, *nr));
        prog.push((BPF_LD_W_ABS, 0, 0, 16 + 8 * *arg as u32)); // seccomp_data.args[arg]
        prog.push((BPF_JSET_K, (after + 1) as u8, after as u8, OPEN_WRITE_MASK));
    }
    prog.push((BPF_RET_K, 0, 0, libc::SECCOMP_RET_ALLOW));
    prog.push((BPF_RET_K, 0, 0, notify));
    prog.iter()
        .flat_map(|&(c, t, f, k)| {
            let mut v = Vec::with_capacity(8);
            v.extend_from_slice(&c.to_le_bytes());
            v.push(t);
            v.push(f);
            v.extend_from_slice(&k.to_le_bytes());
            v
        })
        .collect()
}

/// Can this kernel notify (`SECCOMP_RET_USER_NOTIF`)? Asked in the parent before a
/// supervised launch is prepared; `false` launches with the plain kill action.
pub fn available() -> bool {
    let action: u32 = libc::SECCOMP_RET_USER_NOTIF;
    // SAFETY: SECCOMP_GET_ACTION_AVAIL reads one u32 from the pointer.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_GET_ACTION_AVAIL,
            0,
            &action as *const u32,
        )
    };
    rc == 0
}

/// In the trampoline (no_new_privs already set): load the filter with a new listener.
pub fn install(prog: &[u8]) -> Result<OwnedFd, String> {
    if prog.is_empty() || !prog.len().is_multiple_of(8) || prog.len() / 8 > u16::MAX as usize {
        return Err("the supervision filter is malformed".to_string());
    }
    let fprog = libc::sock_fprog {
        len: (prog.len() / 8) as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: a valid sock_fprog over `prog`, which outlives the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if fd < 0 {
        return Err(format!(
            "the supervision filter: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: the kernel returned a fresh listener descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
    // The caller is switched to the supervisor directly when it notifies (kernels since
    // 6.6; elsewhere the flag is refused and the wake-up is ordinary).
    // SAFETY: the ioctl reads its flag argument by value.
    unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS as _,
            SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
        )
    };
    // The listener must not reach the program: close-on-exec as well as close_range.
    // SAFETY: fcntl on our own descriptor.
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    Ok(fd)
}

/// What the supervisor saw: the denials to word (exec and path attempts, killed calls),
/// and whether the record was cut at `MAX_KEPT`.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    pub denials: Vec<Denial>,
    pub cut: bool,
}

/// The parent's end: a thread serving the listener until `stop`.
#[derive(Debug)]
pub struct Supervisor {
    stop: OwnedFd,
    thread: std::thread::JoinHandle<Observed>,
}

impl Supervisor {
    /// Serve `listener` on a thread. `rules` names the kill calls; `write_roots` (when
    /// Landlock handles the file rights) are the trees Landlock lets the program write.
    pub fn start(
        listener: OwnedFd,
        rules: Vec<SeccompRule>,
        write_roots: Option<Vec<String>>,
    ) -> std::io::Result<Supervisor> {
        let mut fds = [0i32; 2];
        // SAFETY: a valid out-array of two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: freshly returned by the kernel.
        let (rd, wr) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let thread = std::thread::Builder::new()
            .name("ralc-supervise".into())
            .spawn(move || serve(listener, rd, &rules, write_roots.as_deref()))?;
        Ok(Supervisor { stop: wr, thread })
    }

    /// Stop serving (the program has ended) and return what was seen.
    pub fn finish(self) -> Observed {
        drop(self.stop);
        self.thread.join().unwrap_or_default()
    }
}

fn serve(
    listener: OwnedFd,
    stop: OwnedFd,
    rules: &[SeccompRule],
    write_roots: Option<&[String]>,
) -> Observed {
    let kills = kill_numbers(rules);
    // Under an exec list, the dynamic loader run directly (`ld.so PROGRAM`) would map any
    // readable program past Landlock's Execute right: such an exec is refused here.
    let loaders = if crate::plan::restricts_exec(rules) {
        loader_idents()
    } else {
        Vec::new()
    };
    let calls = path_calls();
    // One per (what, on what): the first process to try it is the one named.
    let mut seen: std::collections::BTreeMap<(Refused, String), Denial> = Default::default();
    let mut cut = false;
    let mut sentenced: BTreeSet<i32> = BTreeSet::new();
    loop {
        let mut p = [
            libc::pollfd {
                fd: listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stop.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds.
        let n = unsafe { libc::poll(p.as_mut_ptr(), 2, -1) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if p[0].revents & libc::POLLIN != 0 {
            let known = |r: &Refused, t: &str| seen.contains_key(&(r.clone(), t.to_string()));
            let ctx = Ctx {
                kills: &kills,
                calls: &calls,
                rules,
                loaders: &loaders,
                write_roots,
            };
            if let Some(d) = one(&listener, &ctx, &mut sentenced, &known) {
                let key = (d.refused.clone(), d.target.clone());
                if !seen.contains_key(&key) {
                    if seen.len() < MAX_KEPT {
                        seen.insert(key, d);
                    } else {
                        cut = true;
                    }
                }
            }
            continue;
        }
        // The stop end closed, or every task of the filter is gone.
        if p[1].revents != 0 || p[0].revents & (libc::POLLHUP | libc::POLLERR) != 0 {
            break;
        }
    }
    Observed {
        denials: seen.into_values().collect(),
        cut,
    }
}

fn id_valid(listener: &OwnedFd, id: u64) -> bool {
    // SAFETY: the ioctl reads one u64.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID as _,
            &id as *const u64,
        ) == 0
    }
}

fn answer_continue(listener: &OwnedFd, id: u64) {
    let mut resp: libc::seccomp_notif_resp =
        // SAFETY: a zeroed response is valid.
        unsafe { std::mem::zeroed() };
    resp.id = id;
    resp.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
    // SAFETY: a valid response; a vanished caller just fails the ioctl.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND as _,
            &mut resp as *mut libc::seccomp_notif_resp,
        )
    };
}

/// Refuse the caller's call with `errno` (it never runs).
fn answer_error(listener: &OwnedFd, id: u64, errno: i32) {
    let mut resp: libc::seccomp_notif_resp =
        // SAFETY: a zeroed response is valid.
        unsafe { std::mem::zeroed() };
    resp.id = id;
    resp.error = -errno;
    // SAFETY: a valid response; a vanished caller just fails the ioctl.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND as _,
            &mut resp as *mut libc::seccomp_notif_resp,
        )
    };
}

/// The operation a refused direct exec of the dynamic loader is recorded under.
pub const LOADER_OPERATION: &str = "loader";

/// The identities (device, inode) of this architecture's dynamic loaders on the host;
/// the envelope binds them from the host, so the same inodes.
fn loader_idents() -> Vec<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut v: Vec<(u64, u64)> = super::launch::loaders()
        .iter()
        .filter_map(|p| {
            #[allow(
                clippy::disallowed_methods,
                reason = "supervision site: the dynamic loaders' identities, once per launch"
            )]
            let m = std::fs::metadata(p);
            m.ok().map(|m| (m.dev(), m.ino()))
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Is the file an exec names (as the caller sees the name: `exec_target`) one of the
/// loaders? A name that cannot be resolved counts as one (fail closed); one that does not
/// exist does not (the exec fails with `ENOENT` on its own).
fn is_loader(tid: i32, dirfd: i32, path: &str, empty: bool, loaders: &[(u64, u64)]) -> bool {
    if loaders.is_empty() {
        return false;
    }
    match super::exec_target::resolve(tid, dirfd, path, empty) {
        Ok(super::exec_target::Target::File(dev, ino)) => loaders.contains(&(dev, ino)),
        Ok(super::exec_target::Target::Absent) => false,
        Err(_) => true,
    }
}

/// What `one` judges by.
struct Ctx<'a> {
    kills: &'a [i64],
    calls: &'a [(i64, usize, i32, PathCall)],
    rules: &'a [SeccompRule],
    loaders: &'a [(u64, u64)],
    /// When Landlock handles the file rights: the write roots, to tell a write Landlock
    /// refuses from one it admits.
    write_roots: Option<&'a [String]>,
}

/// Receive and answer one notification; the denial it records, if any.
fn one(
    listener: &OwnedFd,
    ctx: &Ctx<'_>,
    sentenced: &mut BTreeSet<i32>,
    known: &dyn Fn(&Refused, &str) -> bool,
) -> Option<Denial> {
    let (kills, calls, rules, write_roots) = (ctx.kills, ctx.calls, ctx.rules, ctx.write_roots);
    // SAFETY: the kernel requires a zeroed buffer.
    let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: a zeroed seccomp_notif the kernel fills.
    let rc = unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV as _,
            &mut req as *mut libc::seccomp_notif,
        )
    };
    if rc != 0 {
        return None;
    }
    let tid = req.pid as i32;
    let nr = req.data.nr as i64;
    let args = req.data.args;
    let native = req.data.arch == native_arch();
    if !native || kills.contains(&nr) {
        // Never answered with CONTINUE: the call does not run; the process dies as the
        // kernel's kill would have killed it.
        let (name, pid) = (kill_name(native, nr, rules), tgid(tid));
        kill(listener, req.id, tid, pid, sentenced);
        return Some(Denial {
            refused: Refused::Syscall,
            target: name,
            operation: "seccomp".to_string(),
            pid: pid.max(0) as u32,
            process: comm(tid),
        });
    }
    let out = if nr == libc::SYS_execve || nr == libc::SYS_execveat {
        let (dirfd, ptr, flags) = if nr == libc::SYS_execve {
            (libc::AT_FDCWD, args[0], 0)
        } else {
            (args[0] as i32, args[1], args[4] as i32)
        };
        let empty = flags & libc::AT_EMPTY_PATH != 0;
        let raw = read_path(tid, ptr).filter(|_| id_valid(listener, req.id));
        let path = raw.as_ref().and_then(|p| absolute(tid, dirfd, p, empty));
        // Under an exec list, a name that cannot be read is refused too (fail closed).
        let loader = !ctx.loaders.is_empty()
            && raw
                .as_ref()
                .is_none_or(|p| is_loader(tid, dirfd, p, empty, ctx.loaders));
        if loader {
            let d = Denial {
                refused: Refused::Exec,
                target: path.clone().or(raw).unwrap_or_default(),
                operation: LOADER_OPERATION.to_string(),
                pid: tgid(tid).max(0) as u32,
                process: comm(tid),
            };
            answer_error(listener, req.id, libc::EACCES);
            return Some(d);
        }
        path.filter(|p| !known(&Refused::Exec, p) && regular_in_envelope(tid, p))
            .map(|p| (Refused::Exec, p, "execve"))
    } else if let Some((_, pi, di, kind)) = calls.iter().find(|(n, ..)| *n == nr) {
        let dirfd = if *di < 0 {
            libc::AT_FDCWD
        } else {
            args[*di as usize] as i32
        };
        let write = match kind {
            PathCall::Read => false,
            PathCall::Write => true,
            PathCall::Open(i) => open_writes(args[*i] as i32),
            PathCall::Open2 => read_u64(tid, args[2])
                .map(|f| open_writes(f as i32))
                .unwrap_or(false),
        };
        read_path(tid, args[*pi])
            .filter(|_| id_valid(listener, req.id))
            .and_then(|p| absolute(tid, dirfd, &p, false))
            .filter(|p| {
                let r = if write { Refused::Write } else { Refused::Read };
                !known(&r, p)
            })
            .and_then(|p| {
                let how = refused_in_envelope(tid, &p, write)
                    .or_else(|| (write && outside_roots(&p, write_roots?)).then_some("landlock"))?;
                Some((if write { Refused::Write } else { Refused::Read }, p, how))
            })
    } else {
        None
    };
    // Named while the caller still waits (an exec would change its name).
    let d = out.map(|(refused, target, op)| Denial {
        refused,
        target,
        operation: op.to_string(),
        pid: tgid(tid).max(0) as u32,
        process: comm(tid),
    });
    answer_continue(listener, req.id);
    d
}

/// A write Landlock refuses: its path lies under none of the write roots (a writable
/// mount wider than the grant, as a `/tmp` holding the project). The compiler drops those
/// the stack grants (a device the floor opens, `/dev/null`).
fn outside_roots(path: &str, roots: &[String]) -> bool {
    !roots.iter().any(|r| {
        let r = r.trim_end_matches('/');
        r.is_empty() || path == r || path.strip_prefix(r).is_some_and(|t| t.starts_with('/'))
    })
}

fn open_writes(flags: i32) -> bool {
    let acc = flags & libc::O_ACCMODE;
    acc == libc::O_WRONLY
        || acc == libc::O_RDWR
        || flags & (libc::O_CREAT | libc::O_TRUNC | libc::O_TMPFILE) != 0
}

/// The name a killed call is worded by.
fn kill_name(native: bool, nr: i64, rules: &[SeccompRule]) -> String {
    if !native {
        return "(a foreign architecture's call)".to_string();
    }
    super::seccomp::explain(rules, nr)
        .map(|r| r.syscall.clone())
        .unwrap_or_else(|| format!("#{nr}"))
}

/// Kill the caller's process: `SIGSYS`, as the kernel's kill, when its disposition is
/// the default (it then dies as the kernel's kill would have killed it: 128+SIGSYS);
/// `SIGKILL` at once when the process catches or ignores `SIGSYS` (a handler would let it
/// run on), when it calls a kill call again, or when it is still alive 200 ms after
/// `SIGSYS`. The notification is never answered: the call never runs.
fn kill(listener: &OwnedFd, id: u64, tid: i32, pid: i32, sentenced: &mut BTreeSet<i32>) {
    if pid <= 0 || !id_valid(listener, id) {
        return;
    }
    // SAFETY: pidfd_open of a process whose thread is blocked in our notification.
    let pfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pfd < 0 {
        // No pidfd (the process is going): the caller must not be left blocked for ever.
        if id_valid(listener, id) {
            // SAFETY: the pid names the caller while its notification is pending.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        return;
    }
    // SAFETY: fresh descriptor.
    let pfd = unsafe { OwnedFd::from_raw_fd(pfd as RawFd) };
    // The pid still names the caller's process only while the notification is pending.
    if !id_valid(listener, id) {
        return;
    }
    let signal = |sig: i32| {
        // SAFETY: pidfd_send_signal on our own pidfd, no siginfo.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pfd.as_raw_fd(),
                sig,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        }
    };
    if sentenced.contains(&pid) {
        signal(libc::SIGKILL);
        return;
    }
    sentenced.insert(pid);
    if !sigsys_default(tid) {
        signal(libc::SIGKILL);
        return;
    }
    signal(libc::SIGSYS);
    // A handler installed in the meantime by another thread: no time to run on.
    if !sigsys_default(tid) {
        signal(libc::SIGKILL);
        return;
    }
    let mut p = libc::pollfd {
        fd: pfd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the pidfd turns readable when the process exits.
    let n = unsafe { libc::poll(&mut p, 1, 200) };
    if n == 0 {
        signal(libc::SIGKILL);
    }
}

/// Is `SIGSYS`'s disposition in the caller's process the default (neither caught nor
/// ignored)? Unknown counts as not.
fn sigsys_default(tid: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return false;
    };
    let bit = 1u64 << (libc::SIGSYS - 1);
    let mask = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
    };
    match (mask("SigCgt:"), mask("SigIgn:")) {
        (Some(c), Some(i)) => (c | i) & bit == 0,
        _ => false,
    }
}

fn tgid(tid: i32) -> i32 {
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Tgid:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(tid)
}

fn comm(tid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{tid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_default()
}

#[allow(
    clippy::disallowed_methods,
    reason = "supervision site: /proc/TID/mem of a task blocked in a notification, read only"
)]
fn mem(tid: i32) -> Option<std::fs::File> {
    std::fs::File::open(format!("/proc/{tid}/mem")).ok()
}

/// A NUL-terminated path at `ptr` in the caller's memory (at most PATH_MAX bytes).
fn read_path(tid: i32, ptr: u64) -> Option<String> {
    use std::os::unix::fs::FileExt;
    if ptr == 0 {
        return None;
    }
    let f = mem(tid)?;
    let mut out: Vec<u8> = Vec::new();
    let mut at = ptr;
    while out.len() < libc::PATH_MAX as usize {
        // Up to the page's end: the next page may be unmapped.
        let room = 4096 - (at % 4096) as usize;
        let mut buf = vec![0u8; room];
        let n = f.read_at(&mut buf, at).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(z) = buf[..n].iter().position(|b| *b == 0) {
            out.extend_from_slice(&buf[..z]);
            return String::from_utf8(out).ok();
        }
        out.extend_from_slice(&buf[..n]);
        at += n as u64;
    }
    None
}

fn read_u64(tid: i32, ptr: u64) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let f = mem(tid)?;
    let mut b = [0u8; 8];
    f.read_exact_at(&mut b, ptr).ok()?;
    Some(u64::from_ne_bytes(b))
}

/// The absolute, lexically normalised path a call names, as the caller sees it.
fn absolute(tid: i32, dirfd: i32, path: &str, empty_ok: bool) -> Option<String> {
    let base = |fd: i32| -> Option<String> {
        let link = if fd == libc::AT_FDCWD {
            format!("/proc/{tid}/cwd")
        } else {
            format!("/proc/{tid}/fd/{fd}")
        };
        std::fs::read_link(link)
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
    };
    let joined = if path.starts_with('/') {
        path.to_string()
    } else if path.is_empty() {
        if !empty_ok {
            return None;
        }
        base(dirfd)?
    } else {
        format!("{}/{path}", base(dirfd)?.trim_end_matches('/'))
    };
    normalise(&joined)
}

/// `.` and `..` folded lexically, repeated slashes removed.
pub fn normalise(path: &str) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// How the envelope refuses a path access, seen from outside before the call continues:
/// `hidden` (the host has it, the envelope does not: ENOENT), `masked` (a file shown as
/// `/dev/null`, a directory as an empty one), `read-only` (a write into a read-only mount:
/// EROFS). `None`: the envelope does not refuse it this way (or the host has nothing there).
fn refused_in_envelope(tid: i32, path: &str, write: bool) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    let inside = |p: &str| format!("/proc/{tid}/root{p}");
    let host = std::fs::symlink_metadata(path);
    let env = std::fs::symlink_metadata(inside(path));
    if write {
        // The object, or for a creation its parent directory.
        let obj = if env.is_ok() {
            path.to_string()
        } else {
            let parent = match path.rfind('/') {
                Some(0) | None => "/".to_string(),
                Some(i) => path[..i].to_string(),
            };
            if std::fs::symlink_metadata(inside(&parent)).is_err() {
                return std::fs::symlink_metadata(&parent)
                    .is_ok()
                    .then_some("hidden");
            }
            parent
        };
        return read_only_mount(&inside(&obj)).then_some("read-only");
    }
    let host = host.ok()?;
    match env {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("hidden"),
        Err(_) => None,
        Ok(env) => {
            let null = env.file_type().is_char_device_null(&env);
            if host.is_file() && null && (host.dev(), host.ino()) != (env.dev(), env.ino()) {
                return Some("masked");
            }
            if host.is_dir() && env.is_dir() && (host.dev(), host.ino()) != (env.dev(), env.ino()) {
                let empty = std::fs::read_dir(inside(path)).is_ok_and(|mut d| d.next().is_none());
                let full = std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_some());
                if empty && full {
                    return Some("masked");
                }
            }
            None
        }
    }
}

trait NullDevice {
    fn is_char_device_null(&self, md: &std::fs::Metadata) -> bool;
}

impl NullDevice for std::fs::FileType {
    fn is_char_device_null(&self, md: &std::fs::Metadata) -> bool {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        self.is_char_device() && md.rdev() == libc::makedev(1, 3)
    }
}

/// Does `path` lie on a read-only mount?
fn read_only_mount(path: &str) -> bool {
    let Ok(c) = std::ffi::CString::new(path) else {
        return false;
    };
    // SAFETY: a zeroed statvfs is a valid out-parameter.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and out-parameter.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    rc == 0 && st.f_flag & libc::ST_RDONLY != 0
}

/// Is `path` a program in the caller's mount namespace (through `/proc/TID/root`): a
/// regular file, or a vetoed one masked by a device (`/dev/null` bound over it)? A name
/// that does not exist there (a PATH search's misses) is no refusal.
#[allow(
    clippy::disallowed_methods,
    reason = "supervision site: what an exec names, looked up in the caller's own mount namespace"
)]
fn regular_in_envelope(tid: i32, path: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(format!("/proc/{tid}/root{path}"))
        .is_ok_and(|m| m.is_file() || m.file_type().is_char_device())
}

/// In the trampoline: send the listener with the byte `N` over the reach socket.
pub fn send_listener(sock: RawFd, fd: &OwnedFd) -> Result<(), String> {
    super::launch::send_fd_with(sock, b'N', fd.as_raw_fd())
        .map_err(|e| format!("handing the supervision listener over: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::seccomp_deny_set;

    /// Run a cBPF program (the four opcodes `filter` emits) over one `seccomp_data`.
    fn run_bpf(prog: &[u8], nr: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as i32).to_le_bytes());
        data[4..8].copy_from_slice(&native_arch().to_le_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_le_bytes());
        }
        let ins: Vec<(u16, u8, u8, u32)> = prog
            .chunks(8)
            .map(|c| {
                (
                    u16::from_le_bytes([c[0], c[1]]),
                    c[2],
                    c[3],
                    u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                )
            })
            .collect();
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let (code, jt, jf, k) = ins[pc];
            pc += 1;
            match code {
                BPF_LD_W_ABS => {
                    let o = k as usize;
                    acc = u32::from_le_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
                }
                BPF_JEQ_K => pc += if acc == k { jt } else { jf } as usize,
                BPF_JSET_K => pc += if acc & k != 0 { jt } else { jf } as usize,
                BPF_RET_K => return k,
                other => panic!("opcode {other:#x}"),
            }
        }
    }

    #[test]
    fn the_filter_watches_exec_the_kill_calls_and_writes_by_default() {
        let set = seccomp_deny_set();
        let f = filter(&set, Watch::Default);
        assert_eq!(f.len() % 8, 0);
        let e = filter(&set, Watch::Explain);
        assert!(e.len() > f.len());
        assert!(!kill_numbers(&set).contains(&libc::SYS_execve));
        assert!(kill_numbers(&set).contains(&libc::SYS_keyctl));
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        let at = |nr: i64, a: [u64; 6]| run_bpf(&f, nr as u32, a);
        assert_eq!(at(libc::SYS_execve, [0; 6]), notify);
        assert_eq!(at(libc::SYS_keyctl, [0; 6]), notify);
        assert_eq!(at(libc::SYS_mkdirat, [0; 6]), notify);
        assert_eq!(at(libc::SYS_getpid, [0; 6]), allow);
        // reads pass unwatched; an open that writes notifies
        assert_eq!(at(libc::SYS_newfstatat, [0; 6]), allow);
        let ro = libc::O_RDONLY as u64;
        let dir = (libc::O_RDONLY | libc::O_DIRECTORY) as u64;
        let wr = (libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC) as u64;
        assert_eq!(at(libc::SYS_openat, [0, 0, ro, 0, 0, 0]), allow);
        assert_eq!(at(libc::SYS_openat, [0, 0, dir, 0, 0, 0]), allow);
        assert_eq!(at(libc::SYS_openat, [0, 0, wr, 0, 0, 0]), notify);
        assert_eq!(
            at(libc::SYS_openat, [0, 0, libc::O_RDWR as u64, 0, 0, 0]),
            notify
        );
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(at(libc::SYS_open, [0, ro, 0, 0, 0, 0]), allow);
            assert_eq!(at(libc::SYS_open, [0, wr, 0, 0, 0, 0]), notify);
            assert_eq!(at(libc::SYS_creat, [0; 6]), notify);
        }
        // under --explain every path call notifies
        assert_eq!(run_bpf(&e, libc::SYS_newfstatat as u32, [0; 6]), notify);
        assert_eq!(
            run_bpf(&e, libc::SYS_openat as u32, [0, 0, ro, 0, 0, 0]),
            notify
        );
        assert_eq!(run_bpf(&e, libc::SYS_getpid as u32, [0; 6]), allow);
    }

    #[test]
    fn normalise_folds_dots() {
        assert_eq!(normalise("/a/./b/../c//d").as_deref(), Some("/a/c/d"));
        assert_eq!(normalise("/..").as_deref(), Some("/"));
        assert_eq!(normalise("a"), None);
    }

    #[test]
    fn a_write_outside_every_root_is_landlocks_refusal() {
        let roots = vec!["/home/u/proj".to_string(), "/tmp/x/".to_string()];
        assert!(!outside_roots("/home/u/proj", &roots));
        assert!(!outside_roots("/home/u/proj/a/b", &roots));
        assert!(!outside_roots("/tmp/x/f", &roots));
        assert!(outside_roots("/home/u/project", &roots));
        assert!(outside_roots("/tmp/other", &roots));
        assert!(!outside_roots("/anything", &["/".to_string()]));
    }

    #[test]
    fn open_flags_that_write() {
        assert!(!open_writes(libc::O_RDONLY));
        assert!(open_writes(libc::O_WRONLY));
        assert!(open_writes(libc::O_RDONLY | libc::O_CREAT));
        assert!(open_writes(libc::O_RDWR));
    }
}
