//! Bounded resources: a cgroup per launch capping the number of processes (`PIDS_MAX`) and
//! memory (`MEMORY_MAX`), made where the launching user can make one (root, or a delegated
//! subtree) — cgroup v2 beside ralc's own cgroup, or the v1 `pids` and `memory`
//! hierarchies — joined by bwrap's child before it execs, and removed (its stragglers
//! killed) after. Where none can be made, the launch is uncapped but for `RLIMIT_NPROC`
//! (`nproc_fallback`), and `probe` says why. It never moves any process but the launch's own.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

pub use crate::plan::{MEMORY_MAX, PIDS_MAX};

/// A launch's cgroup, in one or two hierarchies; removed on drop.
#[derive(Debug)]
pub struct Cap {
    dirs: Vec<(PathBuf, bool)>,
    procs: Vec<OwnedFd>,
}

/// `/proc/self/cgroup`: (controllers, path) per hierarchy (`""` for v2).
fn own_cgroups() -> Vec<(String, String)> {
    std::fs::read_to_string("/proc/self/cgroup")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ':');
            let _id = f.next()?;
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect()
}

/// `/proc/self/mountinfo`: (fstype, mount point, super options) of cgroup mounts.
fn cgroup_mounts() -> Vec<(String, String, String)> {
    cgroup_mounts_in(&std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default())
}

/// The cgroup mounts of a mount table already read (`/proc/self/mountinfo`'s text).
fn cgroup_mounts_in(mountinfo: &str) -> Vec<(String, String, String)> {
    mountinfo
        .lines()
        .filter_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            let point = pre.split(' ').nth(4)?.to_string();
            let mut p = post.split(' ');
            let fstype = p.next()?.to_string();
            let _src = p.next()?;
            let opts = p.next().unwrap_or("").to_string();
            fstype
                .starts_with("cgroup")
                .then_some((fstype, point, opts))
        })
        .collect()
}

fn join(mount: &str, path: &str) -> PathBuf {
    Path::new(mount).join(path.trim_start_matches('/'))
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value).map_err(|e| format!("{}: {e}", path.display()))
}

/// The file bwrap's child writes `0` to, to join: v2's `cgroup.procs`; v1's `tasks`.
/// The forked child is single-threaded, so moving its one thread (`tasks`) moves the
/// process; and a write of `0` to `tasks` moves the writing thread itself, for which the
/// kernel skips the global `cgroup_threadgroup_rwsem` that a `cgroup.procs` write takes
/// (its `synchronize_rcu` cost 10–14 ms per launch on this machine:
/// docs/performance-linux.md).
fn join_file(v2: bool) -> &'static str {
    if v2 {
        "cgroup.procs"
    } else {
        "tasks"
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: the cgroup's join file, opened to move bwrap's child into it"
)]
fn open_procs(dir: &Path, v2: bool) -> Result<OwnedFd, String> {
    let name = join_file(v2);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(name))
        .map_err(|e| format!("{}/{name}: {e}", dir.display()))?;
    Ok(OwnedFd::from(f))
}

fn unique_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("ralc-launch-{}-{nanos}", std::process::id())
}

impl Cap {
    /// Make the launch's cgroup (v2 first, then v1), or say why none can be made.
    pub fn create() -> Result<Cap, String> {
        Cap::create_in(&std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default())
    }

    /// As `create`, from the mount table the launch already read (one read of
    /// `/proc/self/mountinfo` per launch: rendering it costs ~0.4 ms of CPU here).
    pub fn create_in(mountinfo: &str) -> Result<Cap, String> {
        let name = unique_name();
        let mounts = cgroup_mounts_in(mountinfo);
        let own = own_cgroups();
        let v2 = Cap::create_v2(&name, &mounts, &own);
        if v2.is_ok() {
            return v2;
        }
        let v1 = Cap::create_v1(&name, &mounts, &own);
        match (v2, v1) {
            (_, Ok(c)) => Ok(c),
            (Err(a), Err(b)) => Err(format!("cgroup v2: {a}; cgroup v1: {b}")),
            (Ok(c), _) => Ok(c),
        }
    }

    fn create_v2(
        name: &str,
        mounts: &[(String, String, String)],
        own: &[(String, String)],
    ) -> Result<Cap, String> {
        let (_, mount, _) = mounts
            .iter()
            .find(|(t, _, _)| t == "cgroup2")
            .ok_or("no cgroup2 mount")?;
        let (_, path) = own
            .iter()
            .find(|(c, _)| c.is_empty())
            .ok_or("no v2 cgroup of ralc's own")?;
        // Beside ralc's own cgroup (a v2 cgroup with processes cannot enable controllers
        // for children); beneath the root, where it can.
        let parent = match Path::new(path).parent() {
            Some(p) => join(mount, p.to_str().unwrap_or("/")),
            None => join(mount, "/"),
        };
        let subtree = parent.join("cgroup.subtree_control");
        let has = |t: &str| t.split_whitespace().any(|c| c == "pids") && t.contains("memory");
        if !has(&std::fs::read_to_string(&subtree).unwrap_or_default()) {
            let _ = write(&subtree, "+pids +memory");
        }
        if !has(&std::fs::read_to_string(&subtree).unwrap_or_default()) {
            return Err(format!(
                "{} does not offer the pids and memory controllers",
                parent.display()
            ));
        }
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut cap = Cap {
            dirs: vec![(dir.clone(), true)],
            procs: Vec::new(),
        };
        write(&dir.join("pids.max"), &PIDS_MAX.to_string())?;
        write(&dir.join("memory.max"), &MEMORY_MAX.to_string())?;
        let _ = write(&dir.join("memory.swap.max"), "0");
        cap.procs.push(open_procs(&dir, true)?);
        Ok(cap)
    }

    fn create_v1(
        name: &str,
        mounts: &[(String, String, String)],
        own: &[(String, String)],
    ) -> Result<Cap, String> {
        let mut cap = Cap {
            dirs: Vec::new(),
            procs: Vec::new(),
        };
        for (ctrl, file, value) in [
            ("pids", "pids.max", PIDS_MAX),
            ("memory", "memory.limit_in_bytes", MEMORY_MAX),
        ] {
            let (_, mount, _) = mounts
                .iter()
                .find(|(t, _, o)| t == "cgroup" && o.split(',').any(|x| x == ctrl))
                .ok_or_else(|| format!("no v1 {ctrl} hierarchy"))?;
            let (_, path) = own
                .iter()
                .find(|(c, _)| c.split(',').any(|x| x == ctrl))
                .ok_or_else(|| format!("no v1 {ctrl} cgroup of ralc's own"))?;
            let dir = join(mount, path).join(name);
            std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            cap.dirs.push((dir.clone(), false));
            write(&dir.join(file), &value.to_string())?;
            cap.procs.push(open_procs(&dir, false)?);
        }
        Ok(cap)
    }

    /// The join files (`join_file`) bwrap's child writes `0` to before it execs.
    pub fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// The cgroup directories (for tests and reports).
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|(d, _)| d.clone()).collect()
    }
}

/// In the forked child (async-signal-safe, single-threaded): move this process into each
/// join file.
pub fn join_self(fds: &[RawFd]) -> std::io::Result<()> {
    for &fd in fds {
        // SAFETY: write(2) of a one-byte buffer to an open descriptor.
        if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } != 1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

impl Drop for Cap {
    fn drop(&mut self) {
        self.procs.clear();
        for (dir, v2) in &self.dirs {
            remove(dir, *v2);
        }
    }
}

/// The longest `remove` keeps trying before it leaves a cgroup behind.
const REMOVE_PATIENCE: std::time::Duration = std::time::Duration::from_millis(1500);

/// Remove a launch's cgroup, its stragglers killed between attempts. Right after the
/// wait the kernel often still counts the last task for a moment (`EBUSY`): the pauses
/// start at 50 µs and double up to 50 ms, for at most `REMOVE_PATIENCE` (a fixed first
/// pause of 2 ms was a tenth of a launch).
fn remove(dir: &Path, v2: bool) {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(50);
    while std::fs::remove_dir(dir).is_err() && start.elapsed() < REMOVE_PATIENCE {
        if v2 {
            let _ = write(&dir.join("cgroup.kill"), "1");
        } else {
            let pids = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            for p in pids.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                // SAFETY: kill(2) of a process inside the launch's own cgroup.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

/// Where no cgroup can be made: `RLIMIT_NPROC` for bwrap's child at the user's current
/// process count plus `PIDS_MAX` (no bound for root, whom the kernel exempts).
pub fn nproc_fallback() -> u64 {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let count = std::fs::read_dir("/proc")
        .map(|rd| {
            rd.flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                })
                .filter(|e| e.metadata().map(|m| m.uid() == uid).unwrap_or(false))
                .count() as u64
        })
        .unwrap_or(0);
    count + PIDS_MAX
}

/// In the forked child (async-signal-safe): lower `RLIMIT_NPROC` to `limit`.
pub fn limit_nproc(limit: u64) -> std::io::Result<()> {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit into a valid struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut cur) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let soft = limit.min(cur.rlim_max);
    let new = libc::rlimit {
        rlim_cur: soft,
        rlim_max: cur.rlim_max,
    };
    // SAFETY: setrlimit from a valid struct.
    if unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &new) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Can this user cap a launch? `Err` says why not (the fidelity report's "uncapped").
/// It makes nothing: it asks whether the directory a launch's cgroup would go in is
/// writable and offers the controllers.
pub fn probe() -> Result<(), String> {
    let mounts = cgroup_mounts();
    let own = own_cgroups();
    let writable = |d: &Path| {
        std::ffi::CString::new(d.as_os_str().as_encoded_bytes())
            .map(|c| {
                // SAFETY: access(2) on a valid C string.
                unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
            })
            .unwrap_or(false)
    };
    let v2 = mounts
        .iter()
        .find(|(t, _, _)| t == "cgroup2")
        .and_then(|(_, m, _)| {
            let (_, path) = own.iter().find(|(c, _)| c.is_empty())?;
            let parent = match Path::new(path).parent() {
                Some(p) => join(m, p.to_str().unwrap_or("/")),
                None => join(m, "/"),
            };
            let ctl =
                std::fs::read_to_string(parent.join("cgroup.controllers")).unwrap_or_default();
            let offers = ctl.split_whitespace().any(|c| c == "pids")
                && ctl.split_whitespace().any(|c| c == "memory");
            (offers && writable(&parent)).then_some(())
        });
    if v2.is_some() {
        return Ok(());
    }
    for ctrl in ["pids", "memory"] {
        let dir = mounts
            .iter()
            .find(|(t, _, o)| t == "cgroup" && o.split(',').any(|x| x == ctrl))
            .and_then(|(_, m, _)| {
                let (_, path) = own.iter().find(|(c, _)| c.split(',').any(|x| x == ctrl))?;
                Some(join(m, path))
            })
            .ok_or_else(|| format!("no cgroup offers the {ctrl} controller here"))?;
        if !writable(&dir) {
            return Err(format!(
                "this user cannot make a cgroup in {}",
                dir.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "test: runs a straggler in the cgroup"
    )]
    fn a_cap_is_made_and_removed_or_the_reason_is_given() {
        match Cap::create() {
            Ok(cap) => {
                let dirs = cap.dirs();
                assert!(!dirs.is_empty());
                let mut caps = Vec::new();
                for d in &dirs {
                    assert!(d.is_dir(), "{}", d.display());
                    for f in ["pids.max", "memory.max", "memory.limit_in_bytes"] {
                        if let Ok(v) = std::fs::read_to_string(d.join(f)) {
                            caps.push((f, v.trim().to_string()));
                        }
                    }
                }
                assert!(caps.contains(&("pids.max", "512".to_string())), "{caps:?}");
                assert!(
                    caps.iter()
                        .any(|(f, v)| f.starts_with("memory") && v == "4294967296"),
                    "{caps:?}"
                );
                // A process that joins is in it, and a straggler is killed on drop.
                let fds = cap.procs_fds();
                let mut cmd = std::process::Command::new("/bin/sleep");
                cmd.arg("30");
                // SAFETY: join_self only calls write(2).
                unsafe {
                    std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || join_self(&fds));
                }
                let mut child = cmd.spawn().unwrap();
                let procs = std::fs::read_to_string(dirs[0].join("cgroup.procs")).unwrap();
                assert!(
                    procs.lines().any(|l| l.trim() == child.id().to_string()),
                    "{procs}"
                );
                drop(cap);
                assert!(
                    child.try_wait().map(|s| s.is_some()).unwrap_or(true) || {
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        child.try_wait().unwrap().is_some()
                    }
                );
                for d in &dirs {
                    assert!(!d.exists(), "{} was not removed", d.display());
                }
            }
            Err(why) => assert!(why.contains("cgroup"), "{why}"),
        }
    }
}
