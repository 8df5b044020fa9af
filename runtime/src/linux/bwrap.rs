//! bwrap: asking the pinned bwrap once whether it can bind by descriptor, and turning the
//! resolved launch operations into its options (NUL-separated, for `--args`). The argv
//! builder is pure in descriptors. It never looks bwrap up by name after the pin, and never
//! passes a name it would have to mangle.

use super::refusal::Refusal;
use crate::plan::{Access, LinuxPlan};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::sync::OnceLock;

/// One filesystem operation of the envelope, in argv order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `--ro-bind-fd SLOT PATH` / `--bind-fd SLOT PATH`.
    BindFd {
        slot: i32,
        path: String,
        access: Access,
    },
    /// A system default that is a symlink on the host, mirrored (`--symlink`).
    Symlink {
        target: String,
        path: String,
    },
    /// An excluded directory: an empty read-only tmpfs.
    MaskDir {
        path: String,
    },
    /// An excluded file: `/dev/null`, bound read-only (opens fail with EACCES).
    MaskFile {
        path: String,
    },
    /// A path of the new root bound read-only over itself (`--ro-bind P P`).
    ReadOnlyOver {
        path: String,
    },
    /// The working directory when nothing shown holds it: an empty tmpfs made before the
    /// binds (so a grant beneath it is bound on top), made read-only after them
    /// (`EmptyDirSeal`).
    EmptyDir {
        path: String,
    },
    /// `--remount-ro` of an `EmptyDir`, after every bind beneath it.
    EmptyDirSeal {
        path: String,
    },
    Dev,
    /// The envelope's own `/proc`, then what `procfs` puts over it.
    Proc {
        after: Vec<Op>,
    },
}

/// What `bwrap --help` showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abilities {
    pub fd_binds: bool,
    pub add_seccomp_fd: bool,
    pub args: bool,
}

/// Ask the pinned bwrap for its options, once per pin (`once` is the pin's cache).
pub fn probe(
    bwrap: &OwnedFd,
    name: &str,
    once: &OnceLock<Result<Abilities, String>>,
) -> Result<Abilities, Refusal> {
    let got = once.get_or_init(|| ask(bwrap.as_raw_fd()));
    match got {
        Ok(a) => Ok(a.clone()),
        Err(why) => Err(Refusal::BwrapUnusable {
            bwrap: name.to_string(),
            why: why.clone(),
        }),
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "launch site: bwrap --help, through its pinned descriptor"
)]
fn ask(fd: i32) -> Result<Abilities, String> {
    let out = std::process::Command::new(format!("/proc/self/fd/{fd}"))
        .arg0("bwrap")
        .arg("--help")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Ok(abilities(&text))
}

/// The abilities a `bwrap --help` text shows.
pub fn abilities(help: &str) -> Abilities {
    let has = |o: &str| help.split_whitespace().any(|w| w == o);
    Abilities {
        fd_binds: has("--ro-bind-fd") && has("--bind-fd"),
        add_seccomp_fd: has("--add-seccomp-fd"),
        args: has("--args"),
    }
}

fn name(s: &str) -> Result<String, Refusal> {
    if s.is_empty() || s.contains('\0') || !s.starts_with('/') {
        return Err(Refusal::BadName(s.to_string()));
    }
    Ok(s.to_string())
}

/// bwrap's options for the plan and the resolved operations.
pub fn options(
    plan: &LinuxPlan,
    ops: &[Op],
    seccomp_slots: &[i32],
) -> Result<Vec<String>, Refusal> {
    let mut a: Vec<String> = Vec::new();
    let mut push = |s: &str| a.push(s.to_string());
    if plan.options.new_session {
        push("--new-session");
    }
    if plan.options.die_with_parent {
        push("--die-with-parent");
    }
    let ns = &plan.namespaces;
    if ns.ipc {
        push("--unshare-ipc");
    }
    if ns.uts {
        push("--unshare-uts");
    }
    if ns.pid {
        push("--unshare-pid");
    }
    if ns.cgroup_try {
        push("--unshare-cgroup-try");
    }
    if ns.net {
        push("--unshare-net");
    }
    for op in ops {
        match op {
            Op::BindFd { slot, path, access } => {
                a.push(
                    match access {
                        Access::ReadOnly => "--ro-bind-fd",
                        Access::Writable => "--bind-fd",
                    }
                    .to_string(),
                );
                a.push(slot.to_string());
                a.push(name(path)?);
            }
            Op::Symlink { target, path } => {
                if target.is_empty() || target.contains('\0') {
                    return Err(Refusal::BadName(target.clone()));
                }
                a.push("--symlink".into());
                a.push(target.clone());
                a.push(name(path)?);
            }
            Op::MaskDir { path } => {
                let p = name(path)?;
                a.extend(["--tmpfs".to_string(), p.clone(), "--remount-ro".into(), p]);
            }
            Op::MaskFile { path } => {
                a.extend(["--ro-bind".to_string(), "/dev/null".into(), name(path)?]);
            }
            Op::EmptyDir { path } => a.extend(["--tmpfs".to_string(), name(path)?]),
            Op::EmptyDirSeal { path } => a.extend(["--remount-ro".to_string(), name(path)?]),
            Op::Dev => a.extend(["--dev".to_string(), "/dev".into()]),
            Op::ReadOnlyOver { path } => {
                let p = name(path)?;
                a.extend(["--ro-bind".to_string(), p.clone(), p]);
            }
            // The envelope's own /proc, its kernel-wide entries read-only or hidden
            // (`procfs`), each cover after the mount it covers.
            Op::Proc { after } => {
                a.extend(["--proc".to_string(), "/proc".into()]);
                for o in after {
                    match o {
                        Op::ReadOnlyOver { path } => {
                            let p = name(path)?;
                            a.extend(["--ro-bind".to_string(), p.clone(), p]);
                        }
                        Op::MaskFile { path } => {
                            a.extend(["--ro-bind".to_string(), "/dev/null".into(), name(path)?]);
                        }
                        _ => return Err(Refusal::BadName("/proc".to_string())),
                    }
                }
            }
        }
    }
    for s in seccomp_slots {
        a.push("--add-seccomp-fd".into());
        a.push(s.to_string());
    }
    a.push("--chdir".into());
    a.push(name(&plan.cwd)?);
    Ok(a)
}

/// The options as bwrap's `--args` payload (NUL-separated).
pub fn args_payload(options: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for o in options {
        out.extend_from_slice(o.as_bytes());
        out.push(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_text_is_read_word_by_word() {
        let a = abilities(
            "  --ro-bind-fd FD DEST  x\n --bind-fd FD DEST\n --add-seccomp-fd FD\n --args FD",
        );
        assert!(a.fd_binds && a.add_seccomp_fd && a.args);
        let b = abilities("  --ro-bind SRC DEST\n --bind SRC DEST\n --args FD");
        assert!(!b.fd_binds);
    }
}
