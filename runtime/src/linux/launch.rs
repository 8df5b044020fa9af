//! The launch: pin this executable (`/proc/self/exe`) and bwrap at start; open every bind
//! target by handle with no symlink followed; build the Landlock ruleset, the seccomp
//! programs, the warrant and bwrap's options on sealed memfds at the slot table's
//! descriptors; spawn bwrap (by its pin) whose payload is `/proc/self/fd/<pin> --warrant`;
//! propagate the exit status. It never runs a program less confined than the plan asks:
//! anything it cannot establish is a `Refusal` (exit 126).

use super::bwrap::{self, Op};
use super::handle::{self, Kind, Opened};
use super::landlock::{self, Ruleset};
use super::memfd;
use super::placeholders::Placeholders;
use super::private_temp::PrivateTemp;
use super::refusal::Refusal;
use super::seccomp;
use super::supervise::{Observed, Supervisor, Watch};
use super::warrant::{slot, Confinement, Warrant};
use crate::plan::{within, Access, BindWhy, ExecAdmits, Layer, LinuxPlan, LINUX_PLAN_VERSION};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, OnceLock};

/// Exit code when nothing ran.
pub const EXIT_REFUSED: i32 = 126;
/// Exit code when the program does not exist.
pub const EXIT_MISSING: i32 = 127;

/// Loader-injection variables removed from the child's environment.
pub use crate::environment::LOADER_VARS;

/// The executables pinned at start.
#[derive(Debug)]
pub struct Pins {
    /// This executable, the trampoline.
    pub own: OwnedFd,
    /// bwrap, found once in `BWRAP_DIRS` (`None`: not found).
    pub bwrap: Option<(OwnedFd, String)>,
    /// What the pinned bwrap can do, asked once.
    abilities: OnceLock<Result<bwrap::Abilities, String>>,
}

impl Pins {
    /// Pin this executable beside a given bwrap pin (`find_bwrap`'s result).
    pub fn with_bwrap(bwrap: Option<(OwnedFd, String)>) -> Result<Pins, String> {
        let own =
            open_path_following("/proc/self/exe").map_err(|e| format!("/proc/self/exe: {e}"))?;
        Ok(Pins {
            own,
            bwrap,
            abilities: OnceLock::new(),
        })
    }
    /// The bwrap pin's current name, if bwrap was found.
    pub fn bwrap_name(&self) -> Option<&str> {
        self.bwrap.as_ref().map(|(_, n)| n.as_str())
    }
}

static PINS: OnceLock<Result<Pins, String>> = OnceLock::new();

/// Pin this executable and bwrap (idempotent; the first call wins).
pub fn pin_at_start() -> &'static Result<Pins, String> {
    PINS.get_or_init(pin)
}

fn pin() -> Result<Pins, String> {
    Pins::with_bwrap(find_bwrap(BWRAP_DIRS))
}

/// Where bwrap is looked for (`plan::BWRAP_DIRS`: beside the plan, so a refusal can name
/// it without importing the launch).
pub use crate::plan::BWRAP_DIRS;

#[allow(
    clippy::disallowed_methods,
    reason = "the launch reads the caller's session-agent variables to decide which cross"
)]
fn caller_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Find `bwrap` in the `:`-separated directories `path` (absolute entries only; the launch
/// passes `BWRAP_DIRS`) and pin it.
pub fn find_bwrap(path: &str) -> Option<(OwnedFd, String)> {
    for dir in path.split(':') {
        if !dir.starts_with('/') {
            continue;
        }
        let cand = format!("{}/bwrap", dir.trim_end_matches('/'));
        #[allow(
            clippy::disallowed_methods,
            reason = "launch site: bwrap is found in the system's install directories, once, at start"
        )]
        let Ok(md) = std::fs::metadata(&cand) else {
            continue;
        };
        if !md.is_file() {
            continue;
        }
        if let Ok(fd) = open_path_following(&cand) {
            let name = handle::name_of(&fd).unwrap_or(cand);
            return Some((fd, name));
        }
    }
    None
}

fn open_path_following(path: &str) -> std::io::Result<OwnedFd> {
    let c = std::ffi::CString::new(path)?;
    // SAFETY: a valid C string; O_PATH opens nothing for I/O.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The host facts a launch depends on, probed once per launch (tests may construct
/// their own to exercise refusals).
#[derive(Clone, Debug)]
pub struct Host {
    pub landlock_abi: u32,
    /// The inode of this process's network namespace.
    pub netns: Option<u64>,
    /// The inode of this process's mount namespace (the trampoline refuses to run in it).
    pub mntns: Option<u64>,
}

impl Host {
    pub fn probe() -> Host {
        Host {
            landlock_abi: landlock::abi(),
            netns: ns_inode("/proc/self/ns/net"),
            mntns: ns_inode("/proc/self/ns/mnt"),
        }
    }
}

/// The inode a namespace link names (`net:[4026531840]`).
pub fn ns_inode(link: &str) -> Option<u64> {
    let t = std::fs::read_link(link).ok()?;
    let t = t.to_str()?;
    let (_, rest) = t.split_once(":[")?;
    rest.strip_suffix(']')?.parse().ok()
}

/// A launch prepared to the last step: every handle opened, every carrier sealed.
#[derive(Debug)]
pub struct Prepared {
    /// bwrap's options (carried on `--args`).
    pub options: Vec<String>,
    /// Notes the launcher made (dropped binds, unmaskable denies), for the report.
    pub notes: Vec<String>,
    landlock: Option<PendingLandlock>,
    handoff: Vec<(OwnedFd, RawFd)>,
    reach: Option<OwnedFd>,
    bwrap: RawFd,
    /// Session-agent variables removed from the program's environment (`environment`).
    pub env_remove: Vec<String>,
    /// The host's mount table, read once per launch (the alias checks, the cgroup).
    mountinfo: MountInfo,
    /// Supervised (`supervise`): the trampoline hands a listener back over the reach
    /// socket; the rules name the kill calls, the write roots (when Landlock handles the
    /// file rights) tell a write Landlock refuses from one it admits.
    supervise: Option<(Watch, Vec<crate::plan::SeccompRule>, Option<Vec<String>>)>,
    /// The run's private temp dir: removed when the launch is dropped, after the wait.
    private_temp: Option<PrivateTemp>,
    /// The write exclusions' placeholders and this run's locks: removed after the wait
    /// (before `git_state`, whose placeholders the locks hold too).
    placeholders: Placeholders,
    /// The git-state placeholders: removed after the wait, as the temp dir.
    git_state: Option<super::git_state::GitState>,
}

/// `/proc/self/mountinfo`, read at most once per launch, when first needed.
#[derive(Debug, Default)]
struct MountInfo(OnceLock<Result<String, String>>);

impl MountInfo {
    fn text(&self) -> Result<&str, Refusal> {
        self.0
            .get_or_init(|| {
                std::fs::read_to_string("/proc/self/mountinfo").map_err(|e| e.to_string())
            })
            .as_deref()
            .map_err(|e| Refusal::Other(format!("/proc/self/mountinfo: {e}")))
    }
}

impl Prepared {
    /// The bwrap command line, one argument per line as `render --argv` prints it (the
    /// options inline; at launch they travel on `--args 98`).
    pub fn argv(&self, bwrap_name: &str) -> Vec<String> {
        let mut v = vec![bwrap_name.to_string()];
        v.extend(self.options.iter().cloned());
        v.push("--".into());
        v.push(format!("/proc/self/fd/{}", slot::PIN));
        v.push("--warrant".into());
        v
    }
}

/// The Landlock ruleset still to build: what it handles, the exec admits, and the
/// handles of the fs rules.
#[derive(Debug)]
struct PendingLandlock {
    handled: u64,
    /// Landlock's scopes (abstract unix sockets and signals), where the ABI has them.
    scoped: u64,
    exec: Option<ExecAdmits>,
    program: String,
    own: OwnedFd,
    fs_rules: Vec<(OwnedFd, Kind, u64)>,
    /// Allowed directories whose vetoed entries are all masked in the envelope: admitted
    /// whole, with no name veto to expand around.
    whole: Vec<String>,
}

impl PendingLandlock {
    fn build(&self) -> Result<Ruleset, Refusal> {
        let mut rs = Ruleset::new_scoped(self.handled, self.scoped)?;
        if let Some(ex) = &self.exec {
            rs.allow(self.own.as_fd(), Kind::File, landlock::EXECUTE)?;
            rs.admit_file(&self.program)?;
            for l in loaders() {
                rs.admit_file(&l)?;
            }
            for f in &ex.files {
                rs.admit_file(f)?;
            }
            let masked_names = ExecAdmits {
                deny_names: Vec::new(),
                ..ex.clone()
            };
            for d in &ex.dirs {
                if self.whole.contains(d) {
                    rs.admit_dir(d, &masked_names)?;
                } else {
                    rs.admit_dir(d, ex)?;
                }
            }
        }
        for (fd, kind, rights) in &self.fs_rules {
            rs.allow(fd.as_fd(), *kind, *rights)?;
        }
        Ok(rs)
    }
}

struct Kept {
    path: String,
    access: Access,
    layer: Layer,
    fd: OwnedFd,
    kind: Kind,
}

/// Launch the plan; returns the exit code (refusals print their reason and give 126).
pub fn launch(plan: &LinuxPlan) -> i32 {
    launch_watched(plan, None).0
}

/// What a supervised launch saw, beside the exit code.
#[derive(Debug, Default)]
pub struct Watched {
    /// The attempts and killed calls the supervisor recorded.
    pub observed: Observed,
    /// Why nothing was supervised (this kernel cannot notify), when asked and not done.
    pub unsupervised: Option<String>,
}

/// `launch`, supervised for denial hints when `watch` asks and the kernel can notify.
pub fn launch_watched(plan: &LinuxPlan, watch: Option<Watch>) -> (i32, Watched) {
    let host = Host::probe();
    let mut watched = Watched::default();
    let watch = match watch {
        Some(w) if super::supervise::available() => Some(w),
        Some(_) => {
            watched.unsupervised = Some(
                "this kernel has no seccomp user notification: no hints are gathered".to_string(),
            );
            None
        }
        None => None,
    };
    let pins = match pin_at_start().as_ref() {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "ralc: refused: {}",
                Refusal::NoSelfPin(e.clone()).for_terminal()
            );
            return (EXIT_REFUSED, watched);
        }
    };
    // The relay (a socket stream under `offline) lives until the program is waited for.
    let out = super::streams::check(plan.offline).and_then(|relay| {
        let out =
            prepare_watched(plan, &host, pins, watch).and_then(|p| spawn_with(p, pins, false));
        drop(relay);
        out
    });
    match out {
        Ok((code, _, _, observed)) => {
            watched.observed = observed;
            (code, watched)
        }
        Err(r) => {
            eprintln!("ralc: refused: {}", r.for_terminal());
            (EXIT_REFUSED, watched)
        }
    }
}

/// Prepare and spawn under the given host facts.
pub fn run(plan: &LinuxPlan, host: &Host) -> Result<i32, Refusal> {
    let pins = pin_at_start()
        .as_ref()
        .map_err(|e| Refusal::NoSelfPin(e.clone()))?;
    let _relay = super::streams::check(plan.offline)?;
    let prepared = prepare(plan, host, pins)?;
    spawn(prepared, pins)
}

/// Ask the pinned bwrap (once) whether it builds our envelope: descriptor binds,
/// `--add-seccomp-fd`, `--args`.
pub fn check_bwrap(pins: &Pins) -> Result<(), Refusal> {
    let Some((bwrap_fd, bwrap_name)) = &pins.bwrap else {
        return Err(Refusal::NoBwrap);
    };
    super::helper::check_trusted(bwrap_fd, bwrap_name)?;
    let ab = bwrap::probe(bwrap_fd, bwrap_name, &pins.abilities)?;
    if !ab.fd_binds {
        return Err(Refusal::BwrapWithoutFdBinds {
            bwrap: bwrap_name.clone(),
        });
    }
    if !ab.add_seccomp_fd || !ab.args {
        return Err(Refusal::BwrapUnusable {
            bwrap: bwrap_name.clone(),
            why: "it has no --add-seccomp-fd or --args".to_string(),
        });
    }
    Ok(())
}

/// Every check a launch makes, without launching: `prepare`, the bwrap probe, and the
/// Landlock ruleset built eagerly. Returns the number of Landlock rules.
pub fn check(plan: &LinuxPlan, host: &Host, pins: &Pins) -> Result<usize, Refusal> {
    let p = prepare(plan, host, pins)?;
    check_bwrap(pins)?;
    match &p.landlock {
        Some(l) => Ok(l.build()?.rules()),
        None => Ok(0),
    }
}

/// Everything before the spawn, phase by phase, each handing the next a typed result:
/// `admit` (the plan and the host allow a launch; the bwrap pin) → `open_binds` (`Binds`:
/// every bind target by handle) → `place_masks` (`Masked`: the exec, agent and plan masks
/// placed and checked) → `pend_landlock` (`Confined`: the Landlock ruleset still to build)
/// → `mount_table` (`MountTable`: bwrap's operations and the descriptors they name) →
/// `seal` (`Prepared`: the carriers sealed, every descriptor at its slot). bwrap is not
/// asked here: one that lacks an option fails before the trampoline is reached, and the
/// trampoline refuses to run outside an envelope; only then is bwrap asked, for the
/// reason (`spawn`).
pub fn prepare(plan: &LinuxPlan, host: &Host, pins: &Pins) -> Result<Prepared, Refusal> {
    prepare_with(plan, host, pins, None, false)
}

/// `prepare` with no effect on the host, for `ralc render --argv`: no placeholder is
/// made (a write exclusion or a git-state file absent at launch is left unbound and
/// named in the notes, as "the launch holds it with a placeholder") and no private temp
/// dir is made (the temp dir is shown as the host's in the argv). The argv is what the
/// launch would run but for those binds; the disk is left as it was. Never spawned.
pub fn prepare_dry(plan: &LinuxPlan, host: &Host, pins: &Pins) -> Result<Prepared, Refusal> {
    prepare_with(plan, host, pins, None, true)
}

/// `prepare`, for a supervised launch when `watch` is given: the kill program notifies
/// and the warrant asks the trampoline for the supervision listener.
pub fn prepare_watched(
    plan: &LinuxPlan,
    host: &Host,
    pins: &Pins,
    watch: Option<Watch>,
) -> Result<Prepared, Refusal> {
    prepare_with(plan, host, pins, watch, false)
}

fn prepare_with(
    plan: &LinuxPlan,
    host: &Host,
    pins: &Pins,
    watch: Option<Watch>,
    dry: bool,
) -> Result<Prepared, Refusal> {
    let bwrap_pin = admit(plan, host, pins)?;
    // The veto listing (mostly the kernel's directory reads) starts on a helper thread
    // now and is joined after the binds are open: a thread needs a while to be scheduled
    // on an idle core, so it is started before the work it overlaps.
    let listing = VetoListing::start(plan);
    // Every name held read-only for this run is locked (shared) for it: no other run
    // removes a placeholder while this one binds it. A placeholder another run removed
    // between this run's open and its lock (two launches in one project ending and
    // starting at once) is found by its name no longer naming the object held: the binds
    // are opened again (a few times, then refused).
    let mut tries = 0;
    let binds = loop {
        let mut binds = open_binds(plan, dry)?;
        protect_git_state(&mut binds, dry)?;
        guard_launchers(&mut binds, pins)?;
        let mut lost = None;
        for k in binds
            .kept
            .iter()
            .filter(|k| k.layer == Layer::Over && k.access == Access::ReadOnly)
        {
            if !binds.placeholders.hold(&k.path, &k.fd) {
                lost = Some(k.path.clone());
            }
        }
        match lost {
            None => break binds,
            Some(_) if tries < 3 => tries += 1,
            Some(path) => {
                return Err(Refusal::io(
                    &path,
                    std::io::Error::other("removed by another run while this one held it"),
                ))
            }
        }
    };
    let listing = listing.finish();
    let masked = place_masks(plan, binds, listing)?;
    let confined = pend_landlock(plan, host, pins, masked)?;
    let table = mount_table(confined, pins, bwrap_pin, &plan.proc_shown, &plan.cwd)?;
    seal(plan, host, pins, bwrap_pin, table, watch)
}

/// Phase 1: the plan and the host allow a launch at all. Returns the bwrap pin.
fn admit<'p>(plan: &LinuxPlan, host: &Host, pins: &'p Pins) -> Result<&'p OwnedFd, Refusal> {
    if plan.version != LINUX_PLAN_VERSION {
        return Err(Refusal::Version(plan.version));
    }
    if !plan.refused.is_empty() {
        return Err(Refusal::Plan(plan.refused.clone()));
    }
    if plan.offline && !plan.namespaces.net {
        return Err(Refusal::OfflineWithoutNetns);
    }
    if plan.offline && host.netns.is_none() {
        return Err(Refusal::OfflineWithoutNetns);
    }
    for m in &plan.masks {
        if within("/proc", &m.path) {
            return Err(Refusal::DenyHidesProc {
                path: m.path.clone(),
            });
        }
    }
    let Some((bwrap_fd, bwrap_name)) = &pins.bwrap else {
        return Err(Refusal::NoBwrap);
    };
    super::helper::check_trusted(bwrap_fd, bwrap_name)?;
    if plan.landlock.exec.is_some() && host.landlock_abi == 0 {
        return Err(Refusal::NoLandlock);
    }
    Ok(bwrap_fd)
}

/// `open_binds`' result: the bind targets opened by handle (Shown first, parents before
/// children), the system defaults that are symlinks mirrored, and the notes so far.
struct Binds {
    kept: Vec<Kept>,
    symlinks: Vec<Op>,
    notes: Vec<String>,
    /// The host's mount table, read when first needed and handed on to the spawn.
    mountinfo: MountInfo,
    /// The run's private temp dir, shown at the temp dir's path (`private_temp`).
    private_temp: Option<PrivateTemp>,
    /// The write exclusions absent at launch, held by placeholders, and this run's locks
    /// on every read-only name (`placeholders`); dropped before `git_state`, whose
    /// placeholders these locks hold too.
    placeholders: Placeholders,
    /// The git state kept read-only, with the placeholders to remove after (`git_state`).
    git_state: Option<super::git_state::GitState>,
}

impl Binds {
    /// Does a Shown bind show `p`?
    fn shows(&self, p: &str) -> bool {
        self.kept
            .iter()
            .any(|k| k.layer == Layer::Shown && within(p, &k.path))
    }

    /// The shown writable directories a run's host state lives in: every Shown writable
    /// directory but an unrestricted root and the private temp dir (fresh, gone with the
    /// run). The git state, the launchers' guards and the socket masks search these.
    fn writable_dirs(&self) -> Vec<String> {
        let private_at = self.private_temp.as_ref().map(|t| t.shown_at.as_str());
        self.kept
            .iter()
            .filter(|k| {
                k.layer == Layer::Shown
                    && k.access == Access::Writable
                    && k.kind == Kind::Dir
                    && k.path != "/"
                    && Some(k.path.as_str()) != private_at
            })
            .map(|k| k.path.clone())
            .collect()
    }
}

/// Phase 2: open every bind target by handle, no symlink followed; a target renamed or
/// replaced by a link since the plan refuses.
fn open_binds(plan: &LinuxPlan, dry: bool) -> Result<Binds, Refusal> {
    let mut notes = Vec::new();
    let mut binds: Vec<&crate::plan::Bind> = plan
        .binds
        .iter()
        .filter(|b| b.why != BindWhy::SelfPin)
        .collect();
    binds.sort_by(|a, b| {
        (a.layer, &a.path, std::cmp::Reverse(a.access)).cmp(&(
            b.layer,
            &b.path,
            std::cmp::Reverse(b.access),
        ))
    });
    let mut kept: Vec<Kept> = Vec::new();
    let mut symlinks: Vec<Op> = Vec::new();
    // The temp dir is private unless it is the working directory, holds it or lies inside
    // it: then it is the project (a `TMPDIR` set there on purpose), shown as the host's.
    let temp = plan
        .fs_restricted
        .then(|| super::private_temp::private_for(&plan.cwd, caller_env("TMPDIR")))
        .flatten();
    let mut private_temp: Option<PrivateTemp> = None;
    let mut placeholders = if dry {
        Placeholders::dry()
    } else {
        Placeholders::default()
    };
    for b in binds {
        // A rename guard is a mount point on purpose, even within a writable bind; the
        // private temp dir covers nothing of the host's beneath its path.
        let private_at = private_temp.as_ref().map(|t| t.shown_at.as_str());
        if b.layer == Layer::Shown
            && b.why != BindWhy::RenameGuard
            && kept.iter().any(|k| {
                k.layer == Layer::Shown
                    && within(&b.path, &k.path)
                    && (Some(k.path.as_str()) != private_at || b.path == k.path)
                    && (b.access == Access::ReadOnly || k.access == Access::Writable)
            })
        {
            continue;
        }
        if dry
            && b.layer == Layer::Shown
            && b.access == Access::Writable
            && temp.as_deref() == Some(b.path.as_str())
        {
            notes.push(format!(
                "{} is shown as a private directory the launch makes (render makes none: the host's is named here)",
                b.path
            ));
        } else if b.layer == Layer::Shown
            && b.access == Access::Writable
            && private_temp.is_none()
            && temp.as_deref() == Some(b.path.as_str())
        {
            let t = PrivateTemp::create(&b.path).map_err(|e| Refusal::io(&b.path, e))?;
            let fd = handle::dup_above(t.fd.as_raw_fd(), 0).map_err(|e| Refusal::io(&t.path, e))?;
            notes.push(format!(
                "{} is shown as a private directory made for this run ({}), removed when it ends",
                b.path, t.path
            ));
            kept.push(Kept {
                path: b.path.clone(),
                access: b.access,
                layer: b.layer,
                fd,
                kind: Kind::Dir,
            });
            private_temp = Some(t);
            continue;
        }
        match handle::open_real(&b.path).map_err(|e| Refusal::io(&b.path, e))? {
            Opened::Absent
                if b.why == BindWhy::WriteDeny
                    && b.layer == Layer::Over
                    && kept.iter().any(|k| {
                        k.layer == Layer::Shown
                            && k.access == Access::Writable
                            && within(&b.path, &k.path)
                            && Some(k.path.as_str()) != private_at
                    }) =>
            {
                // A write exclusion absent at launch beneath a writable bind: a
                // placeholder holds its name, read-only, for the run.
                match placeholders.make(&b.path, super::placeholders::form_of(&b.path)) {
                    Ok(()) if placeholders.is_dry() => {
                        notes.push(format!(
                            "{} is absent: the launch holds it read-only by a placeholder (render makes none, and leaves it out)",
                            b.path
                        ));
                        continue;
                    }
                    Ok(()) => {}
                    Err(e) if super::placeholders::uncreatable(&e) => {
                        notes.push(format!(
                            "{} is absent and this user cannot create it: nor can the program",
                            b.path
                        ));
                        continue;
                    }
                    Err(e) => return Err(Refusal::io(&b.path, e)),
                }
                let Opened::Found(fd) =
                    handle::open_real(&b.path).map_err(|e| Refusal::io(&b.path, e))?
                else {
                    return Err(Refusal::SymlinkPlanted {
                        path: b.path.clone(),
                    });
                };
                let kind = handle::kind_of(&fd).map_err(|e| Refusal::io(&b.path, e))?;
                notes.push(format!(
                    "{} is absent: held read-only by a placeholder for the run",
                    b.path
                ));
                kept.push(Kept {
                    path: b.path.clone(),
                    access: b.access,
                    layer: b.layer,
                    fd,
                    kind,
                });
            }
            Opened::Absent => notes.push(format!("{} is absent: not bound", b.path)),
            Opened::Symlink if b.why == BindWhy::Link => {
                if let Some(op) = link_on_the_way(&b.path, &kept, &symlinks)? {
                    symlinks.push(op);
                }
            }
            Opened::Found(_) if b.why == BindWhy::Link => {}
            Opened::Symlink => {
                if b.why != BindWhy::SystemDefault {
                    return Err(Refusal::SymlinkPlanted {
                        path: b.path.clone(),
                    });
                }
                if handle::lkind(&b.path) == Some(Kind::Symlink) {
                    let t = std::fs::read_link(&b.path).map_err(|e| Refusal::io(&b.path, e))?;
                    let t = t
                        .to_str()
                        .ok_or_else(|| Refusal::BadName(b.path.clone()))?
                        .to_string();
                    symlinks.push(Op::Symlink {
                        target: t,
                        path: b.path.clone(),
                    });
                }
            }
            Opened::Found(fd) => {
                let now = handle::name_of(&fd).unwrap_or_default();
                if now != b.path {
                    return Err(Refusal::Redirected {
                        path: b.path.clone(),
                        now,
                    });
                }
                let kind = handle::kind_of(&fd).map_err(|e| Refusal::io(&b.path, e))?;
                kept.push(Kept {
                    path: b.path.clone(),
                    access: b.access,
                    layer: b.layer,
                    fd,
                    kind,
                });
            }
        }
    }
    Ok(Binds {
        kept,
        symlinks,
        notes,
        mountinfo: MountInfo::default(),
        private_temp,
        git_state: None,
        placeholders,
    })
}

/// The first symlink on the way to `path` (a grant's spelling), mirrored as a link
/// (`--symlink`), when nothing shown holds its directory and it is not mirrored already:
/// the program sees the link where the user named it. `None`: nothing to show.
fn link_on_the_way(path: &str, kept: &[Kept], symlinks: &[Op]) -> Result<Option<Op>, Refusal> {
    let mut prefix = String::new();
    for part in path.split('/').filter(|c| !c.is_empty()) {
        prefix.push('/');
        prefix.push_str(part);
        if handle::lkind(&prefix) != Some(Kind::Symlink) {
            continue;
        }
        let parent = prefix.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        let parent = if parent.is_empty() { "/" } else { parent };
        let held = kept
            .iter()
            .any(|k| k.layer == Layer::Shown && within(parent, &k.path) && k.path != "/");
        let mirrored = symlinks.iter().any(|op| match op {
            Op::Symlink { path, .. } => path == &prefix,
            _ => false,
        });
        if held || mirrored {
            return Ok(None);
        }
        let t = std::fs::read_link(&prefix).map_err(|e| Refusal::io(&prefix, e))?;
        let target = t
            .to_str()
            .ok_or_else(|| Refusal::BadName(prefix.clone()))?
            .to_string();
        return Ok(Some(Op::Symlink {
            target,
            path: prefix,
        }));
    }
    Ok(None)
}

/// Phase 2b: what git reads as configuration or runs, in every shown writable tree, bound
/// read-only over itself (a placeholder made where it is absent; `git_state`). The
/// private temp dir and an unrestricted root are not searched.
fn protect_git_state(binds: &mut Binds, dry: bool) -> Result<(), Refusal> {
    let writable = binds.writable_dirs();
    if writable.is_empty() {
        return Ok(());
    }
    let st = super::git_state::protect(&writable, dry)
        .map_err(|e| Refusal::Other(format!("the git state could not be kept read-only: {e}")))?;
    for p in st.made.would_make() {
        binds.notes.push(format!(
            "{p} is absent: the launch holds it read-only by a placeholder (render makes none, and leaves it out)"
        ));
    }
    for g in &st.guarded {
        guard_in_place(binds, g)?;
    }
    for p in &st.read_only {
        if binds
            .kept
            .iter()
            .any(|k| k.layer == Layer::Over && k.path == *p)
        {
            continue;
        }
        match handle::open_real(p).map_err(|e| Refusal::io(p, e))? {
            Opened::Found(fd) => {
                let kind = handle::kind_of(&fd).map_err(|e| Refusal::io(p, e))?;
                binds.kept.push(Kept {
                    path: p.clone(),
                    access: Access::ReadOnly,
                    layer: Layer::Over,
                    fd,
                    kind,
                });
            }
            Opened::Symlink => {
                return Err(Refusal::SymlinkPlanted { path: p.clone() });
            }
            Opened::Absent => {
                return Err(Refusal::Other(format!(
                    "{p} vanished while the launch was prepared; nothing ran"
                )))
            }
        }
    }
    if !st.read_only.is_empty() {
        binds.notes.push(format!(
            "git state kept read-only: {}",
            st.read_only.join(", ")
        ));
    }
    binds.git_state = Some(st);
    Ok(())
}

/// Bind the writable directory `dir` over itself (a rename guard: a mount point cannot be
/// renamed or removed), before any Shown bind at or beneath it so it covers none of them.
fn guard_in_place(binds: &mut Binds, dir: &str) -> Result<(), Refusal> {
    if binds
        .kept
        .iter()
        .any(|k| k.layer == Layer::Shown && k.path == dir)
    {
        return Ok(());
    }
    let Opened::Found(fd) = handle::open_real(dir).map_err(|e| Refusal::io(dir, e))? else {
        return Err(Refusal::SymlinkPlanted {
            path: dir.to_string(),
        });
    };
    let at = binds
        .kept
        .iter()
        .position(|k| k.layer == Layer::Over || within(&k.path, dir))
        .unwrap_or(binds.kept.len());
    binds.kept.insert(
        at,
        Kept {
            path: dir.to_string(),
            access: Access::Writable,
            layer: Layer::Shown,
            fd,
            kind: Kind::Dir,
        },
    );
    Ok(())
}

/// Phase 2c: the directories above ralc's own executable and bwrap, beneath a shown
/// writable directory, guarded in place: the program cannot rename one away and plant
/// another `ralc` or `bwrap` for the host's next launch (the render guards ralc's
/// ancestors too; bwrap is found only here).
fn guard_launchers(binds: &mut Binds, pins: &Pins) -> Result<(), Refusal> {
    let roots = binds.writable_dirs();
    let names: Vec<String> = std::iter::once(&pins.own)
        .chain(pins.bwrap.as_ref().map(|(fd, _)| fd))
        .filter_map(handle::name_of)
        .filter(|n| n.starts_with('/') && !n.ends_with(" (deleted)"))
        .collect();
    for name in &names {
        for root in roots.iter().filter(|r| within(name, r) && *r != name) {
            let mut a = name.as_str();
            while let Some(i) = a.rfind('/') {
                a = &a[..i];
                if a.is_empty() || a == root || !within(a, root) {
                    break;
                }
                guard_in_place(binds, a)?;
            }
        }
    }
    Ok(())
}

/// `place_masks`' result: the binds, the exec admits less the denied files now masked
/// (what the Landlock phase expands), bwrap's mask operations, the directories masked
/// whole, and the session-agent variables to remove.
struct Masked {
    binds: Binds,
    exec: Option<ExecAdmits>,
    /// Allowed directories admitted whole (`ExecMasking::whole`).
    whole: Vec<String>,
    masks: Vec<Op>,
    masked: Vec<String>,
    env_remove: Vec<String>,
}

/// Phase 3: every mask (the plan's, the denied and vetoed exec files, the host's session
/// agents) opened by handle where a Shown bind shows it, and no excluded object left
/// reachable by another name or mount.
fn place_masks(
    plan: &LinuxPlan,
    mut binds: Binds,
    listing: VetoListing,
) -> Result<Masked, Refusal> {
    let ExecMasking {
        exec,
        masks: exec_masks,
        whole,
    } = exec_masks(plan, &binds, listing);
    if !exec_masks.is_empty() {
        binds.notes.push(format!(
            "denied and vetoed exec files masked in the envelope (neither runnable nor readable there): {}",
            exec_masks.join(", ")
        ));
    }
    let agent_masks = agent_masks(plan, &mut binds);
    if !agent_masks.is_empty() {
        binds.notes.push(format!(
            "session agents and sockets masked in the envelope: {}",
            agent_masks.join(", ")
        ));
    }
    // The host's agents in the temp dir are not in the private one shown there: their
    // variables go too.
    let hidden: Vec<String> = agent_masks
        .iter()
        .cloned()
        .chain(binds.private_temp.as_ref().map(|t| t.shown_at.clone()))
        .collect();
    let env_remove = crate::environment::agents_to_remove(plan, &hidden, &caller_env);
    let mut mask_paths: Vec<&str> = plan
        .masks
        .iter()
        .map(|m| m.path.as_str())
        .chain(exec_masks.iter().map(String::as_str))
        .chain(agent_masks.iter().map(String::as_str))
        .collect();
    mask_paths.sort();
    mask_paths.dedup();
    let opened = open_masks(&mut binds, &mask_paths, &exec_masks)?;
    check_aliases(&binds, &opened)?;
    Ok(Masked {
        binds,
        exec,
        whole,
        masks: opened.masks,
        masked: opened.masked,
        env_remove,
    })
}

/// The vetoed names found on the host, listed before the masks are placed: each directory
/// searched (`vetoed_dirs`) with, for an allowed one, its whole tree's vetoed files
/// (`vetoed_tree`; `None` where the tree cannot be admitted whole).
struct VetoListing {
    dirs: Vec<VetoDir>,
}

#[derive(Debug, PartialEq)]
struct VetoDir {
    dir: String,
    /// An allowed directory's tree, when every vetoed entry in it can be masked.
    tree: Option<Vec<String>>,
    /// A system program directory that is not allowed: its vetoed files, listed.
    direct: Option<Vec<String>>,
}

/// A veto listing in progress: the directories still to list, taken from a shared
/// counter by this thread and one helper; the helper's results arrive on a channel.
struct VetoListingJob {
    work: Option<Arc<VetoWork>>,
    results: Option<mpsc::Receiver<(usize, VetoDir)>>,
}

/// The directories to list, the veto's name keys, which directories are allowed (listed
/// as whole trees), and the next index to take.
struct VetoWork {
    dirs: Vec<String>,
    keys: Vec<String>,
    allowed: Vec<String>,
    next: AtomicUsize,
}

impl VetoWork {
    /// Take the next directory and list it: `None` when none is left.
    fn take(&self) -> Option<(usize, VetoDir)> {
        let i = self.next.fetch_add(1, Ordering::SeqCst);
        Some((i, self.list(i)?))
    }

    /// List the `i`th directory: an allowed one as a whole tree, another directly.
    fn list(&self, i: usize) -> Option<VetoDir> {
        let dir = self.dirs.get(i)?;
        let (tree, direct) = if self.allowed.contains(dir) {
            (vetoed_tree(dir, &self.keys), None)
        } else {
            (None, Some(vetoed_files(dir, &self.keys)))
        };
        Some(VetoDir {
            dir: dir.clone(),
            tree,
            direct,
        })
    }
}

impl VetoListing {
    /// Start listing the directories the plan's name vetoes search (`vetoed_dirs`): a
    /// helper thread begins at once; `finish` lists the rest here and gathers all.
    fn start(plan: &LinuxPlan) -> VetoListingJob {
        let none = VetoListingJob {
            work: None,
            results: None,
        };
        let Some(ex) = &plan.landlock.exec else {
            return none;
        };
        if ex.deny_names.is_empty() {
            return none;
        }
        VetoListingJob::spawn(VetoWork {
            dirs: vetoed_dirs(&ex.dirs),
            keys: ex
                .deny_names
                .iter()
                .map(|n| landlock::name_key(n))
                .collect(),
            allowed: ex.dirs.clone(),
            next: AtomicUsize::new(0),
        })
    }
}

impl VetoListingJob {
    /// Start the helper thread on `work`.
    fn spawn(work: VetoWork) -> VetoListingJob {
        let work = Arc::new(work);
        let (tx, rx) = mpsc::channel();
        let helper = Arc::clone(&work);
        let spawned = std::thread::Builder::new()
            .name("ralc-veto-walk".into())
            .spawn(move || {
                while let Some(listed) = helper.take() {
                    if tx.send(listed).is_err() {
                        return;
                    }
                }
            })
            .is_ok();
        VetoListingJob {
            work: Some(work),
            results: spawned.then_some(rx),
        }
    }

    /// List what the helper has not taken, then wait for what it has (a helper that
    /// never got a core took nothing, and is not waited for); a directory it took and
    /// never delivered (gone mid-way) is listed here.
    fn finish(self) -> VetoListing {
        let Some(work) = self.work else {
            return VetoListing { dirs: Vec::new() };
        };
        let mut out: Vec<Option<VetoDir>> = work.dirs.iter().map(|_| None).collect();
        while let Some((i, d)) = work.take() {
            out[i] = Some(d);
        }
        if let Some(rx) = self.results {
            while out.iter().any(Option::is_none) {
                let Ok((i, d)) = rx.recv() else { break };
                out[i] = Some(d);
            }
        }
        let dirs = out
            .into_iter()
            .enumerate()
            .filter_map(|(i, d)| d.or_else(|| work.list(i)))
            .collect();
        VetoListing { dirs }
    }
}

/// `exec_masks`' result.
struct ExecMasking {
    /// The exec admits left to the Landlock expansion.
    exec: Option<ExecAdmits>,
    /// The files to mask, sorted.
    masks: Vec<String>,
    /// Allowed directories whose every vetoed entry is among `masks`: admitted whole by
    /// Landlock, not expanded entry by entry around the vetoed names (`vetoed_tree`).
    whole: Vec<String>,
}

/// A denied exec file that is a regular file now is masked by name in the envelope
/// (`/dev/null` bound over it: a mount point cannot be removed, renamed or replaced, and
/// no loader can map what cannot be read); one beneath an allowed directory then need
/// not be expanded around. One that is absent or not a regular file stays with the
/// expansion (`landlock`). Each regular file whose name a veto names, in the allowed
/// directories (at any depth) and the system's program directories, is masked alike; an
/// allowed read-only directory whose vetoed entries are all so masked is admitted whole.
fn exec_masks(plan: &LinuxPlan, binds: &Binds, mut listing: VetoListing) -> ExecMasking {
    let mut exec = plan.landlock.exec.clone();
    let mut masks: Vec<String> = Vec::new();
    let mut whole: Vec<String> = Vec::new();
    let Some(ex) = exec.as_mut() else {
        return ExecMasking { exec, masks, whole };
    };
    let dirs = ex.dirs.clone();
    ex.deny_files.retain(|f| {
        let maskable = handle::lkind(f) == Some(Kind::File) && binds.shows(f);
        if maskable {
            masks.push(f.clone());
        }
        !(maskable && dirs.iter().any(|d| within(f, d)))
    });
    let keys: Vec<String> = ex
        .deny_names
        .iter()
        .map(|n| landlock::name_key(n))
        .collect();
    if !keys.is_empty() {
        // A directory the program may write to keeps the expansion: what it writes there
        // later was never listed.
        let writable = |d: &str| {
            binds
                .kept
                .iter()
                .any(|k| k.access == Access::Writable && (within(d, &k.path) || within(&k.path, d)))
        };
        for VetoDir { dir, tree, direct } in listing.dirs.drain(..) {
            if !binds.shows(&dir) {
                continue;
            }
            match (tree, direct) {
                (Some(found), _) if dirs.contains(&dir) && !writable(&dir) => {
                    masks.extend(found);
                    whole.push(dir);
                }
                (_, Some(direct)) => masks.extend(direct),
                _ => masks.extend(vetoed_files(&dir, &keys)),
            }
        }
    }
    if !whole.is_empty() {
        let aliased = dir_aliases(&whole, binds);
        whole.retain(|d| !aliased.contains(d));
    }
    masks.sort();
    masks.dedup();
    ExecMasking { exec, masks, whole }
}

/// The directories of `dirs` that the envelope would show again elsewhere: a shown mount
/// point of the host whose root is the directory or one of its ancestors (a bind mount of
/// `/usr` at `/srv/usr`). A Landlock rule on a directory admits it under every name, and
/// a mask covers one, so such a directory is expanded around its vetoed names instead of
/// admitted whole. An unreadable mount table counts every directory as aliased.
fn dir_aliases(dirs: &[String], binds: &Binds) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(info) = binds.mountinfo.text() else {
        return dirs.to_vec();
    };
    #[allow(
        clippy::disallowed_methods,
        reason = "launch site: an allowed directory's ancestors and the shown mount points, by device and inode, to find the directory mounted again"
    )]
    let stat = |p: &str| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let points: Vec<(String, (u64, u64))> = super::alias::mount_points(info)
        .into_iter()
        .filter(|mp| binds.shows(mp))
        .filter_map(|mp| stat(&mp).map(|id| (mp, id)))
        .collect();
    let mut out = Vec::new();
    for d in dirs {
        let mut anc = Some(d.as_str());
        while let Some(a) = anc {
            let Some(id) = stat(a) else {
                out.push(d.clone());
                break;
            };
            if points.iter().any(|(mp, pid)| *pid == id && mp != a) {
                out.push(d.clone());
                break;
            }
            anc = match a.rfind('/') {
                Some(0) if a.len() > 1 => Some("/"),
                Some(i) if i > 0 => Some(&a[..i]),
                _ => None,
            };
        }
    }
    out
}

/// The host's session agents (tmux, ssh-agent, X) directly inside a shown writable
/// directory, and every unix socket at any depth of one (`agents::sockets_below`), unless
/// the plan binds them itself. The private temp dir is fresh and not searched; the host's
/// root (an unrestricted file system) is not searched either. A tree the budget did not
/// finish is named in a note.
fn agent_masks(plan: &LinuxPlan, binds: &mut Binds) -> Vec<String> {
    let mut out = Vec::new();
    let mut budget = super::agents::SOCKET_BUDGET;
    let mut found = super::agents::SocketSearch::default();
    for dir in binds.writable_dirs() {
        out.extend(super::agents::in_dir(&dir));
        super::agents::sockets_below(&dir, &mut budget, &mut found);
    }
    let mut read_budget = super::agents::READ_SOCKET_BUDGET;
    let mut read_found = super::agents::SocketSearch::default();
    for k in binds.kept.iter().filter(|k| {
        k.layer == Layer::Shown
            && k.access == Access::ReadOnly
            && k.kind == Kind::Dir
            && k.path != "/"
            && !super::agents::INSTALL_TREES
                .iter()
                .any(|t| within(&k.path, t))
    }) {
        super::agents::sockets_below(&k.path, &mut read_budget, &mut read_found);
    }
    // A session agent's socket the caller's variables name (`SSH_AUTH_SOCK`) in a
    // read-only grant is granted on purpose: kept, and its variable crosses.
    let runtime_dir = caller_env("XDG_RUNTIME_DIR");
    let named: Vec<String> = crate::environment::AGENT_VARS
        .iter()
        .filter_map(|v| {
            crate::environment::agent_target(v, &caller_env(v)?, runtime_dir.as_deref())
        })
        .collect();
    read_found.sockets.retain(|s| !named.contains(s));
    found.sockets.extend(read_found.sockets);
    if !read_found.unfinished.is_empty() {
        binds.notes.push(format!(
            "the socket search of read-only grants stopped after {} entries: sockets below {} were not looked for",
            super::agents::READ_SOCKET_BUDGET,
            read_found.unfinished.join(", ")
        ));
    }
    if !found.unfinished.is_empty() {
        binds.notes.push(format!(
            "the socket search stopped after {} entries: sockets below {} were not looked for",
            super::agents::SOCKET_BUDGET,
            found.unfinished.join(", ")
        ));
    }
    out.extend(found.sockets);
    out.retain(|a| !plan.binds.iter().any(|b| within(&b.path, a)));
    out.sort();
    out.dedup();
    out
}

/// `open_masks`' result.
struct OpenedMasks {
    masks: Vec<Op>,
    /// Directories masked whole.
    masked: Vec<String>,
    /// The excluded objects (not the exec masks), for the alias check.
    excluded: Vec<(String, super::alias::Ident)>,
}

/// Open each mask path (sorted) a Shown bind shows, by handle, and turn it into bwrap's
/// mask operation; a denied program that vanished meanwhile refuses.
fn open_masks(
    binds: &mut Binds,
    mask_paths: &[&str],
    exec_masks: &[String],
) -> Result<OpenedMasks, Refusal> {
    let mut out = OpenedMasks {
        masks: Vec::new(),
        masked: Vec::new(),
        excluded: Vec::new(),
    };
    for &m in mask_paths {
        // Within a directory already masked: hidden already (and the empty read-only
        // tmpfs there has no mount point to offer).
        if out.masked.iter().any(|d| within(m, d)) {
            continue;
        }
        let shown = binds
            .kept
            .iter()
            .filter(|k| k.layer == Layer::Shown)
            .any(|k| within(m, &k.path) || within(&k.path, m));
        if !shown {
            continue;
        }
        let is_exec_mask = exec_masks.iter().any(|e| e == m);
        match handle::open_real(m).map_err(|e| Refusal::io(m, e))? {
            // A denied exec file seen a moment ago, gone now: no longer masked, and no
            // longer subtracted by the expansion either, so nothing runs.
            Opened::Absent if is_exec_mask => {
                return Err(Refusal::Other(format!(
                    "the denied program {m} vanished while the launch was prepared; nothing ran"
                )));
            }
            Opened::Absent => {
                if binds
                    .kept
                    .iter()
                    .any(|k| k.access == Access::Writable && within(m, &k.path))
                {
                    binds.notes.push(format!(
                        "{m} does not exist under a writable bind: bwrap cannot mask it (the guard still refuses it)"
                    ));
                }
            }
            Opened::Symlink => {
                return Err(Refusal::SymlinkPlanted {
                    path: m.to_string(),
                })
            }
            Opened::Found(fd) => {
                let now = handle::name_of(&fd).unwrap_or_default();
                if now != m {
                    return Err(Refusal::Redirected {
                        path: m.to_string(),
                        now,
                    });
                }
                if !is_exec_mask {
                    use std::os::fd::AsFd;
                    let id = super::alias::ident(fd.as_fd()).map_err(|e| Refusal::io(m, e))?;
                    super::alias::check_links(m, id)?;
                    out.excluded.push((m.to_string(), id));
                }
                let path = m.to_string();
                match handle::kind_of(&fd).map_err(|e| Refusal::io(m, e))? {
                    Kind::Dir => {
                        out.masked.push(path.clone());
                        out.masks.push(Op::MaskDir { path })
                    }
                    _ => out.masks.push(Op::MaskFile { path }),
                }
            }
        }
    }
    Ok(out)
}

/// An excluded object mounted again elsewhere in what the envelope shows: another name
/// the masks do not cover. Refuses.
fn check_aliases(binds: &Binds, opened: &OpenedMasks) -> Result<(), Refusal> {
    if opened.excluded.is_empty() {
        return Ok(());
    }
    use std::os::unix::fs::MetadataExt;
    let info = binds.mountinfo.text()?;
    let shown = |p: &str| binds.shows(p) && !opened.masked.iter().any(|d| within(p, d));
    #[allow(
        clippy::disallowed_methods,
        reason = "launch site: each excluded path's device and inode, to find its alias mounts"
    )]
    let stat = |p: &str| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    super::alias::check_mounts(
        &opened.excluded,
        &super::alias::mount_points(info),
        shown,
        stat,
    )
}

/// `pend_landlock`'s result: the masked binds and the Landlock ruleset still to build.
struct Confined {
    masked: Masked,
    landlock: Option<PendingLandlock>,
}

/// Phase 4: what the Landlock ruleset will hold, built in the parent from these handles;
/// the expansion runs while bwrap builds the envelope (`spawn`), and the ruleset reaches
/// the trampoline over the reach socket before it may exec anything.
fn pend_landlock(
    plan: &LinuxPlan,
    host: &Host,
    pins: &Pins,
    mut masked: Masked,
) -> Result<Confined, Refusal> {
    let abi = host.landlock_abi;
    let wants_fs = plan.landlock.fs_rights && abi > 0;
    // No host daemon through an abstract socket, no signal to a host process: Landlock's
    // scopes wherever the kernel has them, whatever the profile.
    let scoped = if abi >= landlock::SCOPES_ABI {
        landlock::SCOPE_ABSTRACT_UNIX_SOCKET | landlock::SCOPE_SIGNAL
    } else {
        masked.binds.notes.push(format!(
            "this kernel's Landlock (ABI {abi}) has no scopes: abstract unix sockets and signals of the host are withheld only by the namespaces"
        ));
        0
    };
    let exec = masked.exec.take();
    if exec.is_none() && !wants_fs && scoped == 0 {
        return Ok(Confined {
            masked,
            landlock: None,
        });
    }
    let mut handled = 0;
    if plan.landlock.exec.is_some() {
        handled |= landlock::EXECUTE;
    }
    if wants_fs {
        handled |= landlock::read_rights() | landlock::write_rights(abi);
    }
    if abi >= 2 {
        handled |= landlock::REFER;
    }
    let mut fs_rules = Vec::new();
    if wants_fs {
        for k in &masked.binds.kept {
            let r = match k.access {
                Access::ReadOnly => landlock::read_rights(),
                Access::Writable => landlock::read_rights() | landlock::write_rights(abi),
            };
            let fd = handle::dup_above(k.fd.as_raw_fd(), 0).map_err(|e| Refusal::io(&k.path, e))?;
            fs_rules.push((fd, k.kind, r));
        }
    }
    let landlock = Some(PendingLandlock {
        handled,
        scoped,
        exec,
        program: plan.program.real.clone(),
        own: handle::dup_above(pins.own.as_raw_fd(), 0).map_err(|e| Refusal::io("pin", e))?,
        fs_rules,
        whole: std::mem::take(&mut masked.whole),
    });
    Ok(Confined { masked, landlock })
}

/// `mount_table`'s result: bwrap's operations in order, the descriptors they name (each
/// beside its slot), and what the later phases still carry.
struct MountTable {
    ops: Vec<Op>,
    handoff: Vec<(OwnedFd, RawFd)>,
    landlock: Option<PendingLandlock>,
    notes: Vec<String>,
    env_remove: Vec<String>,
    mountinfo: MountInfo,
    private_temp: Option<PrivateTemp>,
    placeholders: Placeholders,
    git_state: Option<super::git_state::GitState>,
}

/// Phase 5: bwrap's operations — the Shown binds, the mirrored symlinks, the masks,
/// `--dev`, `--proc`, the Over binds, the pins, and the masks an Over bind would cover
/// applied again — with a descriptor slot for each bind.
fn mount_table(
    c: Confined,
    pins: &Pins,
    bwrap_pin: &OwnedFd,
    proc_shown: &[String],
    cwd: &str,
) -> Result<MountTable, Refusal> {
    let Masked {
        binds,
        masks,
        masked,
        env_remove,
        ..
    } = c.masked;
    let mut handoff: Vec<(OwnedFd, RawFd)> = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    // The working directory nothing shown holds: an empty read-only directory, so the
    // program starts where it was asked to (issue #27), never in `/` silently.
    let cwd_shown = cwd == "/"
        || binds
            .kept
            .iter()
            .any(|k| k.layer == Layer::Shown && k.kind == Kind::Dir && within(cwd, &k.path));
    let empty_cwd = (!cwd_shown && cwd.starts_with('/')).then(|| cwd.to_string());
    if let Some(path) = &empty_cwd {
        ops.push(Op::EmptyDir { path: path.clone() });
    }
    let mut next_mount = slot::MOUNT;
    let mut over: Vec<Op> = Vec::new();
    for k in &binds.kept {
        if k.layer == Layer::Over && masked.iter().any(|d| within(&k.path, d)) {
            continue;
        }
        let fd = handle::dup_above(k.fd.as_raw_fd(), 0).map_err(|e| Refusal::io(&k.path, e))?;
        let op = Op::BindFd {
            slot: next_mount,
            path: k.path.clone(),
            access: k.access,
        };
        handoff.push((fd, next_mount));
        next_mount += 1;
        match k.layer {
            Layer::Shown => ops.push(op),
            Layer::Over => over.push(op),
        }
    }
    // The pins, read-only at the names their inodes hold now, after every projection bind.
    for fd in [&pins.own, bwrap_pin] {
        let Some(name) = handle::name_of(fd) else {
            continue;
        };
        if name.ends_with(" (deleted)") || !name.starts_with('/') {
            continue;
        }
        if shown_as_pinned(&name, fd, &binds.kept, &masks, &binds.symlinks) {
            // Already visible, read-only, as this very inode: a bind would add nothing.
            continue;
        }
        let d = handle::dup_above(fd.as_raw_fd(), 0).map_err(|e| Refusal::io(&name, e))?;
        over.push(Op::BindFd {
            slot: next_mount,
            path: name,
            access: Access::ReadOnly,
        });
        handoff.push((d, next_mount));
        next_mount += 1;
    }
    // A mask at or beneath an Over bind (a write exclusion's directory bound read-only over
    // itself from the host) would be covered by it: it is applied again after.
    let over_paths: Vec<&str> = over
        .iter()
        .filter_map(|op| match op {
            Op::BindFd { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let remask: Vec<Op> = masks
        .iter()
        .filter(|op| match op {
            Op::MaskDir { path } | Op::MaskFile { path } => {
                over_paths.iter().any(|o| within(path, o))
            }
            _ => false,
        })
        .cloned()
        .collect();
    ops.extend(binds.symlinks);
    if let Some(path) = empty_cwd {
        ops.push(Op::EmptyDirSeal { path });
    }
    ops.extend(masks);
    ops.push(Op::Dev);
    let sys_writable = binds.kept.iter().any(|k| {
        k.layer == Layer::Shown && k.access == Access::Writable && within("/sys", &k.path)
    });
    ops.push(Op::Proc {
        after: super::procfs::ops(
            &super::procfs::host_entries().map_err(Refusal::Other)?,
            proc_shown,
            sys_writable,
        ),
    });
    ops.extend(over);
    ops.extend(remask);
    Ok(MountTable {
        ops,
        handoff,
        landlock: c.landlock,
        notes: binds.notes,
        env_remove,
        mountinfo: binds.mountinfo,
        private_temp: binds.private_temp,
        git_state: binds.git_state,
        placeholders: binds.placeholders,
    })
}

/// Phase 6: the seccomp programs, bwrap's options and the warrant on sealed memfds, the
/// pin and the reach socket, every descriptor lifted above every slot.
fn seal(
    plan: &LinuxPlan,
    host: &Host,
    pins: &Pins,
    bwrap_pin: &OwnedFd,
    t: MountTable,
    watch: Option<Watch>,
) -> Result<Prepared, Refusal> {
    let mut handoff = t.handoff;
    let progs = seccomp::programs_for(&plan.seccomp, watch.is_some()).map_err(Refusal::Other)?;
    if progs.len() > slot::SECCOMP_MAX {
        return Err(Refusal::Other("too many seccomp programs".to_string()));
    }
    let mut seccomp_slots = Vec::new();
    for (i, p) in progs.iter().enumerate() {
        let fd = memfd::sealed("ralc-seccomp", p).map_err(|e| Refusal::io("seccomp memfd", e))?;
        let s = slot::SECCOMP + i as i32;
        handoff.push((fd, s));
        seccomp_slots.push(s);
    }
    let options = bwrap::options(plan, &t.ops, &seccomp_slots)?;
    let args = memfd::sealed("ralc-bwrap-args", &bwrap::args_payload(&options))
        .map_err(|e| Refusal::io("bwrap args memfd", e))?;
    handoff.push((args, slot::ARGS));

    let confinement = match &t.landlock {
        None => Confinement::Unconfined,
        Some(p) => Confinement::Landlock { handled: p.handled },
    };
    let warrant = Warrant {
        confinement,
        host_netns: if plan.offline { host.netns } else { None },
        host_mntns: host.mntns,
        real: plan.program.real.clone(),
        argv0: plan.program.argv0.clone(),
        supervise: watch,
        args: plan.program.args.clone(),
    };
    let bytes = warrant.encode();
    if bytes.len() > super::warrant::MAX_BYTES {
        return Err(Refusal::Other(
            "the warrant exceeds its size cap".to_string(),
        ));
    }
    let w = memfd::sealed("ralc-warrant", &bytes).map_err(|e| Refusal::io("warrant memfd", e))?;
    handoff.push((w, slot::WARRANT));
    let own = handle::dup_above(pins.own.as_raw_fd(), 0).map_err(|e| Refusal::io("pin", e))?;
    handoff.push((own, slot::PIN));
    let (reach_parent, reach_child) = socketpair().map_err(|e| Refusal::io("socketpair", e))?;
    handoff.push((reach_child, slot::REACH));

    // Lift every source above every target.
    let top = handoff.iter().map(|(_, t)| *t).max().unwrap_or(slot::MOUNT);
    let mut lifted = Vec::with_capacity(handoff.len());
    for (fd, t) in handoff {
        let l = handle::dup_above(fd.as_raw_fd(), top + 1).map_err(|e| Refusal::io("lift", e))?;
        lifted.push((l, t));
    }
    let bwrap_raw = bwrap_pin.as_raw_fd();
    if (slot::FIRST..=top).contains(&bwrap_raw) {
        return Err(Refusal::SlotCollision { fd: bwrap_raw });
    }
    Ok(Prepared {
        options,
        notes: t.notes,
        landlock: t.landlock,
        handoff: lifted,
        reach: Some(reach_parent),
        bwrap: bwrap_raw,
        env_remove: t.env_remove,
        mountinfo: t.mountinfo,
        supervise: watch.map(|w| {
            let roots = plan.landlock.fs_rights.then(|| plan.landlock.write.clone());
            (w, plan.seccomp.clone(), roots)
        }),
        private_temp: t.private_temp,
        git_state: t.git_state,
        placeholders: t.placeholders,
    })
}

/// Does the envelope already show `name` read-only as the pinned inode? True when a Shown
/// read-only bind holds it, no writable or Over bind, mask or mirrored symlink sits at or
/// above it, and the host's object at the name is the pin itself.
fn shown_as_pinned(name: &str, pin: &OwnedFd, kept: &[Kept], masks: &[Op], links: &[Op]) -> bool {
    let shown = kept
        .iter()
        .any(|k| k.layer == Layer::Shown && k.access == Access::ReadOnly && within(name, &k.path));
    let covered = kept
        .iter()
        .any(|k| (k.access == Access::Writable || k.layer == Layer::Over) && within(name, &k.path));
    let hidden = masks.iter().chain(links).any(|op| match op {
        Op::MaskDir { path } | Op::MaskFile { path } | Op::Symlink { path, .. } => {
            within(name, path)
        }
        _ => true,
    });
    if !shown || covered || hidden {
        return false;
    }
    use std::os::unix::fs::MetadataExt;
    let Ok(md) = std::fs::symlink_metadata(name) else {
        return false;
    };
    // SAFETY: a zeroed stat is a valid out-parameter; fstat on an open handle.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(pin.as_raw_fd(), &mut st) } != 0 {
        return false;
    }
    md.file_type().is_file() && md.dev() == st.st_dev && md.ino() == st.st_ino
}

/// The system's program directories, as real paths, where a vetoed name is looked for
/// besides the allowed directories: the loader can run a readable program from any of
/// them, admitted or not.
const PROGRAM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
];

/// The directories searched for vetoed names: the allowed ones and the system's program
/// directories, each by its real path, once.
fn vetoed_dirs(allowed: &[String]) -> Vec<String> {
    let mut v: Vec<String> = allowed.to_vec();
    #[allow(
        clippy::disallowed_methods,
        reason = "launch site: the host's program directories, each by its real path, once"
    )]
    v.extend(
        PROGRAM_DIRS
            .iter()
            .filter_map(|d| std::fs::canonicalize(d).ok())
            .filter_map(|p| p.to_str().map(str::to_string)),
    );
    v.sort();
    v.dedup();
    v
}

/// The regular files directly in `dir` whose name key a veto names (symlinks are judged
/// where they point).
fn vetoed_files(dir: &str, keys: &[String]) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !keys.contains(&landlock::name_key(&name)) {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_file()) {
            out.push(format!("{}/{name}", dir.trim_end_matches('/')));
        }
    }
    out
}

/// Every regular file at any depth beneath `dir` whose name key a veto names, when each
/// can be masked in its place: `None` (the caller expands around the names instead) when
/// a vetoed name is a directory or another non-file, a vetoed file has another hard link
/// (a mask hides one name, not the inode), a name is not Unicode (the expansion never
/// admits it), a directory repeats (a bind loop), or the tree is deeper than 64 or larger
/// than the expansion's budget. Symlinks are judged where they point, as by the expansion.
fn vetoed_tree(dir: &str, keys: &[String]) -> Option<Vec<String>> {
    let mut walk = VetoWalk {
        keys,
        found: Vec::new(),
        seen: std::collections::HashSet::new(),
        budget: landlock::EXPANSION_BUDGET,
    };
    // The top directory by its path, no symlink followed anywhere in it (the allowed and
    // program directories are real paths); every directory below by handle, beneath its
    // parent's.
    let Ok(Opened::Found(fd)) = handle::open_dir(libc::AT_FDCWD, dir) else {
        return None;
    };
    walk.dir(dir, &fd, 0).then_some(walk.found)
}

struct VetoWalk<'k> {
    keys: &'k [String],
    found: Vec<String>,
    seen: std::collections::HashSet<(u64, u64)>,
    budget: usize,
}

impl VetoWalk<'_> {
    fn vetoed(&self, name: &str) -> bool {
        if name.is_ascii() {
            self.keys.iter().any(|k| k.eq_ignore_ascii_case(name))
        } else {
            self.keys.contains(&landlock::name_key(name))
        }
    }

    /// Walk the directory `fd` (opened for listing) at `path`: false when the tree cannot
    /// be admitted whole (`vetoed_tree`).
    fn dir(&mut self, path: &str, fd: &OwnedFd, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        let Ok((dev, ino)) = handle::dev_ino(fd) else {
            return false;
        };
        if !self.seen.insert((dev, ino)) {
            return false;
        }
        let mut entries = super::dirents::Dirents::new(fd.as_raw_fd(), 32 * 1024);
        loop {
            let e = match entries.next_entry() {
                Ok(Some(e)) => e,
                Ok(None) => return true,
                Err(_) => return false,
            };
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            let Ok(name) = std::str::from_utf8(e.raw) else {
                return false;
            };
            let kind = match e.dtype {
                libc::DT_DIR => Some(Kind::Dir),
                libc::DT_REG => Some(Kind::File),
                libc::DT_LNK => Some(Kind::Symlink),
                libc::DT_UNKNOWN => super::dirents::lstat_at(fd.as_raw_fd(), e.raw).map(|k| k.0),
                _ => Some(Kind::Other),
            };
            if self.vetoed(name) {
                if kind == Some(Kind::Symlink) {
                    continue;
                }
                // A vetoed name is masked in its place: a regular file with no other
                // hard link (a mask hides one name, not the inode).
                match super::dirents::lstat_at(fd.as_raw_fd(), e.raw) {
                    Some((Kind::File, 1)) => self
                        .found
                        .push(format!("{}/{name}", path.trim_end_matches('/'))),
                    _ => return false,
                }
            } else if kind == Some(Kind::Dir) {
                let child = format!("{}/{name}", path.trim_end_matches('/'));
                let Ok(Opened::Found(cfd)) = handle::open_dir(fd.as_raw_fd(), name) else {
                    return false;
                };
                if !self.dir(&child, &cfd, depth + 1) {
                    return false;
                }
            }
        }
    }
}

/// The dynamic loaders of this architecture (their real paths, where they exist): the
/// kernel opens the loader for `Execute` when it starts any dynamic program.
pub(super) fn loaders() -> Vec<String> {
    let names: &[&str] = if cfg!(target_arch = "x86_64") {
        &["/lib64/ld-linux-x86-64.so.2", "/lib/ld-musl-x86_64.so.1"]
    } else if cfg!(target_arch = "aarch64") {
        &["/lib/ld-linux-aarch64.so.1", "/lib/ld-musl-aarch64.so.1"]
    } else {
        &[]
    };
    #[allow(
        clippy::disallowed_methods,
        reason = "launch site: the dynamic loader's real path on this host"
    )]
    let mut v: Vec<String> = names
        .iter()
        .filter_map(|n| std::fs::canonicalize(n).ok())
        .filter_map(|p| p.to_str().map(str::to_string))
        .collect();
    v.sort();
    v.dedup();
    v
}

fn socketpair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0i32; 2];
    // SAFETY: a valid out-array of two descriptors.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Spawn bwrap from its pin and wait: the program's own status, a signal as 128+N, 126
/// when the envelope never reached the trampoline.
pub fn spawn(p: Prepared, pins: &Pins) -> Result<i32, Refusal> {
    spawn_with(p, pins, false).map(|(c, _, _, _)| c)
}

/// As `spawn`, with stdout and stderr captured (stdin closed): for tests and tools.
pub fn spawn_captured(p: Prepared, pins: &Pins) -> Result<(i32, Vec<u8>, Vec<u8>), Refusal> {
    spawn_with(p, pins, true).map(|(c, o, e, _)| (c, o, e))
}

/// As `spawn_captured`, with what the supervisor saw (a launch prepared with a watch).
pub fn spawn_captured_watched(
    p: Prepared,
    pins: &Pins,
) -> Result<(i32, Vec<u8>, Vec<u8>, Observed), Refusal> {
    spawn_with(p, pins, true)
}

type Spawned = (i32, Vec<u8>, Vec<u8>, Observed);

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: bwrap, exec'd by its pinned descriptor"
)]
fn spawn_with(mut p: Prepared, pins: &Pins, capture: bool) -> Result<Spawned, Refusal> {
    let pairs: Vec<(RawFd, RawFd)> = p.handoff.iter().map(|(f, t)| (f.as_raw_fd(), *t)).collect();
    let mut cmd = std::process::Command::new(format!("/proc/self/fd/{}", p.bwrap));
    cmd.arg0("bwrap").args([
        "--args".to_string(),
        slot::ARGS.to_string(),
        "--".to_string(),
        format!("/proc/self/fd/{}", slot::PIN),
        "--warrant".to_string(),
    ]);
    for v in LOADER_VARS
        .iter()
        .copied()
        .chain(p.env_remove.iter().map(String::as_str))
    {
        cmd.env_remove(v);
    }
    // Bounded resources: the launch's cgroup where one can be made (removed when `cap`
    // drops, after the wait), else RLIMIT_NPROC alone.
    let cap = super::cgroup::Cap::create_in(p.mountinfo.text().unwrap_or_default());
    let procs: Vec<RawFd> = cap.as_ref().map(|c| c.procs_fds()).unwrap_or_default();
    let nproc = cap.is_err().then(super::cgroup::nproc_fallback);
    // SAFETY: the closure only calls write, setrlimit and dup2, which are
    // async-signal-safe, over vectors allocated before the fork.
    unsafe {
        cmd.pre_exec(move || {
            super::cgroup::join_self(&procs)?;
            if let Some(n) = nproc {
                super::cgroup::limit_nproc(n)?;
            }
            for &(src, dst) in &pairs {
                if libc::dup2(src, dst) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    if capture {
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
    }
    let child = cmd.spawn();
    // The parent's copies of the hand-off go now: only the child holds them.
    p.handoff.clear();
    let child = child.map_err(|e| Refusal::io("spawn bwrap", e))?;
    // While bwrap builds the envelope: the Landlock ruleset, sent to the trampoline, which
    // waits for it before it may exec anything. A failure sends nothing: the trampoline
    // refuses, and so does the launch.
    let mut refused: Option<Refusal> = None;
    if let (Some(pending), Some(reach)) = (p.landlock.take(), p.reach.as_ref()) {
        refused = hand_over_ruleset(&pending, reach).err();
    }
    // Supervised: the trampoline reports it was reached, then hands the listener over
    // before it execs the program (which waits for the supervisor's answer). A
    // trampoline that refuses sends no listener: nothing of the program ran.
    let mut was_reached = false;
    let mut supervisor: Option<Supervisor> = None;
    if let (Some((_, rules, roots)), Some(reach), None) =
        (p.supervise.take(), p.reach.as_ref(), refused.as_ref())
    {
        while let Ok(Some((b, fd))) = receive_msg(reach.as_raw_fd()) {
            match (b, fd) {
                (b'T', None) => was_reached = true,
                (b'N', Some(fd)) => {
                    match Supervisor::start(fd, rules, roots) {
                        Ok(s) => supervisor = Some(s),
                        Err(e) => refused = Some(Refusal::io("start the supervisor", e)),
                    }
                    break;
                }
                _ => break,
            }
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Refusal::io("wait for bwrap", e));
    let observed = supervisor.map(Supervisor::finish).unwrap_or_default();
    let out = out?;
    drop(cap);
    // The run is over (bwrap and its pid namespace are gone): its private temp dir goes.
    drop(p.private_temp.take());
    drop(std::mem::take(&mut p.placeholders));
    drop(p.git_state.take());
    if let Some(r) = refused {
        return Err(r);
    }
    let status = out.status;
    let mut stderr = out.stderr;
    let reached = was_reached || p.reach.take().map(|r| reached(&r)).unwrap_or(false);
    if !reached {
        // bwrap never started the trampoline: say why, if bwrap lacks what we need.
        check_bwrap(pins)?;
        let msg =
            "ralc: refused: bwrap could not build the sandbox (its reason above); nothing ran\n";
        if capture {
            stderr.extend_from_slice(msg.as_bytes());
        } else {
            eprint!("{msg}");
        }
        return Ok((EXIT_REFUSED, out.stdout, stderr, observed));
    }
    if let Some(sig) = status.signal() {
        return Ok((128 + sig, out.stdout, stderr, observed));
    }
    Ok((
        status.code().unwrap_or(EXIT_REFUSED),
        out.stdout,
        stderr,
        observed,
    ))
}

/// Build the pending ruleset and send it to the trampoline (a peer already gone is no
/// error: the trampoline refused first). A build that fails sends `X` instead.
fn hand_over_ruleset(pending: &PendingLandlock, reach: &OwnedFd) -> Result<(), Refusal> {
    match pending.build().and_then(Ruleset::into_fd) {
        Ok(fd) => match send_fd(reach, fd.as_raw_fd()) {
            Err(e)
                if e.raw_os_error() != Some(libc::EPIPE)
                    && e.raw_os_error() != Some(libc::ECONNRESET) =>
            {
                Err(Refusal::io("hand the Landlock ruleset over", e))
            }
            _ => Ok(()),
        },
        Err(r) => {
            let _ = send_bytes(reach, b"X");
            Err(r)
        }
    }
}

fn send_bytes(fd: &OwnedFd, b: &[u8]) -> std::io::Result<()> {
    // SAFETY: a valid buffer; MSG_NOSIGNAL keeps a closed peer from raising SIGPIPE.
    let n = unsafe {
        libc::send(
            fd.as_raw_fd(),
            b.as_ptr().cast(),
            b.len(),
            libc::MSG_NOSIGNAL,
        )
    };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Send one descriptor with the byte `R` (SCM_RIGHTS).
fn send_fd(sock: &OwnedFd, fd: RawFd) -> std::io::Result<()> {
    send_fd_with(sock.as_raw_fd(), b'R', fd)
}

/// One tag byte and room for one descriptor (SCM_RIGHTS): the message both ends of the
/// reach socket use. `f` gets the header, every pointer in it valid for the call.
fn with_one_fd_msg<R>(byte: &mut [u8; 1], f: impl FnOnce(&mut libc::msghdr) -> R) -> R {
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let mut cbuf = vec![0u8; space];
    // SAFETY: a zeroed msghdr is valid; every pointer set below outlives `f`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    f(&mut msg)
}

/// Send one descriptor with a tag byte (SCM_RIGHTS).
pub fn send_fd_with(sock: RawFd, tag: u8, fd: RawFd) -> std::io::Result<()> {
    let mut byte = [tag];
    let n = with_one_fd_msg(&mut byte, |msg| {
        // SAFETY: the control buffer holds one header of CMSG_SPACE(sizeof fd) bytes.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<RawFd>(), fd);
        }
        // SAFETY: msg is fully initialised.
        unsafe { libc::sendmsg(sock, msg, libc::MSG_NOSIGNAL) }
    });
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// In the trampoline: receive the ruleset sent with `R` on `sock` (blocking).
pub fn receive_fd(sock: RawFd) -> Result<OwnedFd, String> {
    match receive_msg(sock) {
        Ok(Some((b'R', Some(fd)))) => Ok(fd),
        _ => Err("the promised Landlock ruleset never arrived".to_string()),
    }
}

/// One message on the reach socket (its tag byte and the descriptor it carries, if any);
/// `None` once the other end is closed.
fn receive_msg(sock: RawFd) -> std::io::Result<Option<(u8, Option<OwnedFd>)>> {
    let mut byte = [0u8];
    let got = with_one_fd_msg(&mut byte, |msg| {
        let n = loop {
            // SAFETY: msg is fully initialised.
            let n = unsafe { libc::recvmsg(sock, msg, libc::MSG_CMSG_CLOEXEC) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break n;
        };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if n == 0 {
            return Ok(None);
        }
        // SAFETY: the kernel filled the control buffer; CMSG_FIRSTHDR checks its length.
        let fd = unsafe {
            let c = libc::CMSG_FIRSTHDR(msg);
            if c.is_null()
                || (*c).cmsg_level != libc::SOL_SOCKET
                || (*c).cmsg_type != libc::SCM_RIGHTS
            {
                None
            } else {
                Some(OwnedFd::from_raw_fd(std::ptr::read_unaligned(
                    libc::CMSG_DATA(c).cast::<RawFd>(),
                )))
            }
        };
        Ok(Some(fd))
    })?;
    Ok(got.map(|fd| (byte[0], fd)))
}

fn reached(fd: &OwnedFd) -> bool {
    let mut b = [0u8; 1];
    // SAFETY: a one-byte buffer; non-blocking receive.
    let n = unsafe { libc::recv(fd.as_raw_fd(), b.as_mut_ptr().cast(), 1, libc::MSG_DONTWAIT) };
    n == 1 && b[0] == b'T'
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "test: a temporary directory's real path, to build the tree under test"
)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap().to_string();
        std::fs::create_dir_all(format!("{root}/sub/deeper")).unwrap();
        for f in ["a", "Bash", "sub/x", "sub/deeper/bash"] {
            std::fs::write(format!("{root}/{f}"), "").unwrap();
        }
        std::os::unix::fs::symlink("a", format!("{root}/zsh")).unwrap();
        (dir, root)
    }

    fn keys() -> Vec<String> {
        vec!["bash".to_string(), "zsh".to_string()]
    }

    /// Every vetoed regular file at any depth is found (caseless); a vetoed symlink is
    /// judged at its target, so it is not among them.
    #[test]
    fn the_walk_finds_every_vetoed_file_at_any_depth() {
        let (_d, root) = tree();
        let mut found = vetoed_tree(&root, &keys()).expect("maskable");
        found.sort();
        assert_eq!(
            found,
            vec![format!("{root}/Bash"), format!("{root}/sub/deeper/bash")]
        );
    }

    /// The listing shared with the helper thread gives every directory once, in order,
    /// as listing them one by one here does.
    #[test]
    fn the_shared_listing_gives_every_directory_as_a_serial_one() {
        let trees: Vec<_> = (0..6).map(|_| tree()).collect();
        let mut dirs: Vec<String> = trees.iter().map(|(_, r)| r.clone()).collect();
        let plain = tempfile::tempdir().unwrap();
        let plain = std::fs::canonicalize(plain.path()).unwrap();
        std::fs::write(plain.join("BASH"), "").unwrap();
        dirs.push(plain.to_str().unwrap().to_string());
        let work = || VetoWork {
            dirs: dirs.clone(),
            keys: keys(),
            allowed: dirs[..6].to_vec(),
            next: AtomicUsize::new(0),
        };
        let serial = work();
        let want: Vec<VetoDir> = (0..dirs.len()).filter_map(|i| serial.list(i)).collect();
        assert_eq!(want.len(), 7);
        assert!(want[..6]
            .iter()
            .all(|d| d.tree.as_ref().is_some_and(|t| t.len() == 2)));
        assert_eq!(want[6].direct.as_ref().map(Vec::len), Some(1));
        for _ in 0..20 {
            assert_eq!(VetoListingJob::spawn(work()).finish().dirs, want);
        }
    }

    /// A second hard link of a vetoed file, or a directory of a vetoed name, keeps the
    /// expansion: a mask would hide one name only.
    #[test]
    fn a_hard_link_or_a_vetoed_directory_keeps_the_expansion() {
        let (_d, root) = tree();
        std::fs::hard_link(format!("{root}/Bash"), format!("{root}/sub/other")).unwrap();
        assert_eq!(vetoed_tree(&root, &keys()), None);
        let (_e, root) = tree();
        std::fs::create_dir(format!("{root}/sub/ZSH")).unwrap();
        assert_eq!(vetoed_tree(&root, &keys()), None);
    }
}
