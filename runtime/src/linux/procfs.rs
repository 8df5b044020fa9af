//! The envelope's `/proc` as a host root would meet it: what bwrap mounts after `--proc`
//! so that the kernel's `euid == 0` checks buy nothing inside. Every kernel-wide entry of
//! `/proc` (all but the process directories and the `self`/`thread-self`/`net` links) is
//! bound read-only over itself — `/proc/sys` (with `fs/binfmt_misc`), `/proc/sysrq-trigger`,
//! `/proc/irq`, `/proc/bus`, `/proc/mtrr`, … — explicitly, because bubblewrap 0.8 skips its
//! own cover of `sys`, `sysrq-trigger`, `irq` and `bus` whenever `access(W_OK)` fails,
//! which is exactly when a capability-less root could still write them as their owner.
//! The kernel-wide files that show the kernel's memory, its build or other users' keys are
//! hidden (`/dev/null` bound over them) unless a grant names them or `/proc`. After setup
//! the trampoline checks (`check_read_only`) that `/proc/sys` really is read-only, failing
//! closed. Where a writable bind holds `/sys` (the unrestricted plan's `/`), the host's
//! `/sys` is bound read-only over itself; elsewhere `/sys` is absent unless granted, and a
//! write grant there is refused by the renderer (`plan::envelope_replaced`). It lists the
//! host's `/proc` top level once and never writes anything.

use super::bwrap::Op;
use crate::plan::within;

/// Kernel-wide files hidden unless a grant names them (or `/proc`): kernel addresses and
/// timers (`kallsyms`, `timer_list`, `vmallocinfo`, `sched_debug`, `iomem`), the kernel
/// heap (`slabinfo`), physical pages (`kpageflags`, `kpagecount`, `kpagecgroup`,
/// `kcore`), the build (`config.gz`), the keyrings of every user (`keys`, `key-users`)
/// and the kernel log (`kmsg`).
pub const HIDDEN: &[&str] = &[
    "config.gz",
    "iomem",
    "kallsyms",
    "kcore",
    "key-users",
    "keys",
    "kmsg",
    "kpagecgroup",
    "kpagecount",
    "kpageflags",
    "sched_debug",
    "slabinfo",
    "timer_list",
    "vmallocinfo",
];

/// The kernel-wide entries the program may write: its own process only.
pub const WRITABLE: &[&str] = &["/proc/self", "/proc/thread-self"];

/// One top-level entry of the host's `/proc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub dir: bool,
    pub symlink: bool,
}

/// The operations after `--proc /proc`, from the host's `/proc` top level and the grants
/// that name `/proc` or a path beneath it (`shown`); with `sys_writable` (a writable bind
/// of an ancestor of `/sys`, the unrestricted plan's `/`), the host's `/sys` bound
/// read-only over itself too. Pure.
pub fn ops(entries: &[Entry], shown: &[String], sys_writable: bool) -> Vec<Op> {
    let mut out = Vec::new();
    if sys_writable {
        out.push(Op::ReadOnlyOver {
            path: "/sys".to_string(),
        });
    }
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for e in &sorted {
        if e.symlink || e.name.is_empty() || e.name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if e.name.contains('/') || e.name.contains('\0') || e.name.starts_with('.') {
            continue;
        }
        let path = format!("/proc/{}", e.name);
        let granted = shown.iter().any(|s| within(&path, s));
        if !e.dir && HIDDEN.contains(&e.name.as_str()) && !granted {
            out.push(Op::MaskFile { path });
        } else {
            out.push(Op::ReadOnlyOver { path });
        }
    }
    out
}

/// The host's `/proc` top level (names, kinds; no link followed).
pub fn host_entries() -> Result<Vec<Entry>, String> {
    let dir = std::fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?;
    let mut out = Vec::new();
    for ent in dir {
        let ent = ent.map_err(|e| format!("/proc: {e}"))?;
        let Ok(name) = ent.file_name().into_string() else {
            continue;
        };
        if name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // A process that exits while listed: its entry is gone, nothing to cover.
        let Ok(kind) = ent.file_type() else {
            continue;
        };
        out.push(Entry {
            name,
            dir: kind.is_dir(),
            symlink: kind.is_symlink(),
        });
    }
    Ok(out)
}

/// In the trampoline, after bwrap's setup: `/proc/sys` and `/proc/sysrq-trigger` must sit
/// on read-only mounts. Anything else (a writable mount, an unreadable path) refuses.
pub fn check_read_only() -> Result<(), String> {
    for p in ["/proc/sys", "/proc/sysrq-trigger"] {
        let c = std::ffi::CString::new(p).map_err(|e| e.to_string())?;
        // SAFETY: a zeroed statvfs the kernel fills; a valid C string.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers valid for the call.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            let e = std::io::Error::last_os_error();
            if p == "/proc/sysrq-trigger" && e.raw_os_error() == Some(libc::ENOENT) {
                continue;
            }
            return Err(format!("{p}: {e}"));
        }
        if st.f_flag & libc::ST_RDONLY == 0 {
            return Err(format!(
                "{p} is writable in the envelope (a root inside could set the host's kernel)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(name: &str, dir: bool, symlink: bool) -> Entry {
        Entry {
            name: name.into(),
            dir,
            symlink,
        }
    }

    #[test]
    fn kernel_wide_entries_are_read_only_and_secrets_hidden() {
        let got = ops(
            &[
                e("sys", true, false),
                e("sysrq-trigger", false, false),
                e("self", false, true),
                e("thread-self", false, true),
                e("net", false, true),
                e("timer_list", false, false),
                e("1234", true, false),
                e("irq", true, false),
            ],
            &[],
            false,
        );
        assert_eq!(
            got,
            vec![
                Op::ReadOnlyOver {
                    path: "/proc/irq".into()
                },
                Op::ReadOnlyOver {
                    path: "/proc/sys".into()
                },
                Op::ReadOnlyOver {
                    path: "/proc/sysrq-trigger".into()
                },
                Op::MaskFile {
                    path: "/proc/timer_list".into()
                },
            ]
        );
    }

    #[test]
    fn a_proc_grant_shows_the_hidden_files_read_only() {
        let got = ops(&[e("keys", false, false)], &["/proc".to_string()], false);
        assert_eq!(
            got,
            vec![Op::ReadOnlyOver {
                path: "/proc/keys".into()
            }]
        );
        let got = ops(
            &[e("keys", false, false)],
            &["/proc/kallsyms".to_string()],
            false,
        );
        assert_eq!(
            got,
            vec![Op::MaskFile {
                path: "/proc/keys".into()
            }]
        );
    }

    #[test]
    fn a_writable_root_keeps_sys_read_only() {
        let got = ops(&[], &[], true);
        assert_eq!(
            got,
            vec![Op::ReadOnlyOver {
                path: "/sys".into()
            }]
        );
    }

    #[test]
    fn this_host_lists_sys_and_not_processes() {
        let got = host_entries().unwrap();
        assert!(got.iter().any(|x| x.name == "sys" && x.dir));
        assert!(got.iter().any(|x| x.name == "self" && x.symlink));
        assert!(!got.iter().any(|x| x.name == "1"));
    }
}
