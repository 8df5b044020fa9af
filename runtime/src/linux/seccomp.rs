//! The seccomp deny-set as classic BPF: one seccompiler program per verdict (kill, EPERM,
//! ENOSYS) and ralc's own x32 guard (seccompiler's program checks the architecture but
//! not x32 numbers), each exported as raw `sock_filter` bytes for bwrap's
//! `--add-seccomp-fd`. It never loads a filter into this process.

use crate::plan::{SeccompRule, SeccompVerdict};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule as Rule, TargetArch,
};
use std::collections::BTreeMap;

/// The syscall number of a deny-set name on this architecture.
pub fn number(name: &str) -> Option<i64> {
    let n = match name {
        "ptrace" => libc::SYS_ptrace,
        "process_vm_readv" => libc::SYS_process_vm_readv,
        "process_vm_writev" => libc::SYS_process_vm_writev,
        "perf_event_open" => libc::SYS_perf_event_open,
        "bpf" => libc::SYS_bpf,
        "userfaultfd" => libc::SYS_userfaultfd,
        "kexec_load" => libc::SYS_kexec_load,
        "kexec_file_load" => libc::SYS_kexec_file_load,
        "reboot" => libc::SYS_reboot,
        "swapon" => libc::SYS_swapon,
        "swapoff" => libc::SYS_swapoff,
        "init_module" => libc::SYS_init_module,
        "finit_module" => libc::SYS_finit_module,
        "delete_module" => libc::SYS_delete_module,
        "keyctl" => libc::SYS_keyctl,
        "add_key" => libc::SYS_add_key,
        "request_key" => libc::SYS_request_key,
        "open_by_handle_at" => libc::SYS_open_by_handle_at,
        "mount" => libc::SYS_mount,
        "umount2" => libc::SYS_umount2,
        "pivot_root" => libc::SYS_pivot_root,
        "move_mount" => libc::SYS_move_mount,
        "open_tree" => libc::SYS_open_tree,
        "fsopen" => libc::SYS_fsopen,
        "fsmount" => libc::SYS_fsmount,
        "fsconfig" => libc::SYS_fsconfig,
        "fspick" => libc::SYS_fspick,
        "mount_setattr" => libc::SYS_mount_setattr,
        "unshare" => libc::SYS_unshare,
        "clone" => libc::SYS_clone,
        "clone3" => libc::SYS_clone3,
        "setns" => libc::SYS_setns,
        "ioctl" => libc::SYS_ioctl,
        "fchmod" => libc::SYS_fchmod,
        "fchmodat" => libc::SYS_fchmodat,
        "fchmodat2" => libc::SYS_fchmodat2,
        "openat" => libc::SYS_openat,
        "openat2" => libc::SYS_openat2,
        "mknodat" => libc::SYS_mknodat,
        "socket" => libc::SYS_socket,
        "memfd_create" => libc::SYS_memfd_create,
        "io_uring_setup" => libc::SYS_io_uring_setup,
        _ => return legacy(name),
    };
    Some(n)
}

/// The calls only older architectures have (x86-64's `chmod`, `open`, …; aarch64 and
/// riscv64 have only their `*at` forms).
#[cfg(target_arch = "x86_64")]
fn legacy(name: &str) -> Option<i64> {
    Some(match name {
        "chmod" => libc::SYS_chmod,
        "creat" => libc::SYS_creat,
        "open" => libc::SYS_open,
        "mknod" => libc::SYS_mknod,
        _ => return None,
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn legacy(_name: &str) -> Option<i64> {
    None
}

/// A call of the deny-set this architecture does not have: nothing to filter.
const LEGACY: &[&str] = &["chmod", "creat", "open", "mknod"];

/// The rule that explains a denied syscall number, for a denial hint.
pub fn explain(rules: &[SeccompRule], nr: i64) -> Option<&SeccompRule> {
    rules.iter().find(|r| number(&r.syscall) == Some(nr))
}

fn arch() -> Result<TargetArch, String> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Ok(TargetArch::riscv64)
    } else {
        Err("seccomp: this architecture has no deny-set".to_string())
    }
}

/// The programs, as raw cBPF bytes, in load order: the x32 guard (on x86-64), then one
/// per verdict present in `rules`.
pub fn programs(rules: &[SeccompRule]) -> Result<Vec<Vec<u8>>, String> {
    programs_for(rules, false)
}

/// As `programs`; with `notify_kills`, the kill program answers `USER_NOTIF` where it
/// would kill, for a supervised launch (`supervise`): the call still never runs (no
/// listener on this filter: `ENOSYS`; the supervision filter's listener: the supervisor
/// kills the process and never continues the call). The x32 guard and the other verdicts
/// are unchanged.
pub fn programs_for(rules: &[SeccompRule], notify_kills: bool) -> Result<Vec<Vec<u8>>, String> {
    let arch = arch()?;
    let mut out = Vec::new();
    if cfg!(target_arch = "x86_64") {
        out.push(to_bytes(&x32_guard()));
    }
    for verdict in [
        SeccompVerdict::Kill,
        SeccompVerdict::Eperm,
        SeccompVerdict::Enosys,
    ] {
        let mut map: BTreeMap<i64, Vec<Rule>> = BTreeMap::new();
        for r in rules.iter().filter(|r| r.verdict == verdict) {
            let Some(nr) = number(&r.syscall) else {
                if LEGACY.contains(&r.syscall.as_str()) {
                    continue;
                }
                return Err(format!("seccomp: unknown syscall `{}`", r.syscall));
            };
            let entry = map.entry(nr).or_default();
            if let Some(m) = &r.arg {
                let len = if m.dword {
                    SeccompCmpArgLen::Dword
                } else {
                    SeccompCmpArgLen::Qword
                };
                let cond =
                    SeccompCondition::new(m.index, len, SeccompCmpOp::MaskedEq(m.mask), m.value)
                        .map_err(|e| format!("seccomp: {e}"))?;
                entry.push(Rule::new(vec![cond]).map_err(|e| format!("seccomp: {e}"))?);
            }
        }
        if map.is_empty() {
            continue;
        }
        // An unconditional rule must stay unconditional: seccompiler reads an empty
        // vector as "whatever the arguments".
        for r in rules
            .iter()
            .filter(|r| r.verdict == verdict && r.arg.is_none())
        {
            if let Some(nr) = number(&r.syscall) {
                map.insert(nr, Vec::new());
            }
        }
        let action = match verdict {
            SeccompVerdict::Kill => SeccompAction::KillProcess,
            SeccompVerdict::Eperm => SeccompAction::Errno(libc::EPERM as u32),
            SeccompVerdict::Enosys => SeccompAction::Errno(libc::ENOSYS as u32),
        };
        let filter = SeccompFilter::new(map, SeccompAction::Allow, action, arch)
            .map_err(|e| format!("seccomp: {e}"))?;
        let prog: BpfProgram = filter.try_into().map_err(|e| format!("seccomp: {e}"))?;
        let notify = notify_kills && verdict == SeccompVerdict::Kill;
        out.push(
            prog.iter()
                .flat_map(|f| {
                    let k = if notify && f.code == BPF_RET_K && f.k == RET_KILL_PROCESS {
                        RET_USER_NOTIF
                    } else {
                        f.k
                    };
                    ins(f.code, f.jt, f.jf, k)
                })
                .collect(),
        );
    }
    Ok(out)
}

const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JSET_K: u16 = 0x45;
const BPF_RET_K: u16 = 0x06;
const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
const X32_BIT: u32 = 0x4000_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_USER_NOTIF: u32 = 0x7fc0_0000;

/// The x32 guard: a foreign architecture or an x32 syscall number kills the process.
pub fn x32_guard() -> Vec<(u16, u8, u8, u32)> {
    vec![
        (BPF_LD_W_ABS, 0, 0, 4), // seccomp_data.arch
        (BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (BPF_RET_K, 0, 0, RET_KILL_PROCESS),
        (BPF_LD_W_ABS, 0, 0, 0), // seccomp_data.nr
        (BPF_JSET_K, 0, 1, X32_BIT),
        (BPF_RET_K, 0, 0, RET_KILL_PROCESS),
        (BPF_RET_K, 0, 0, RET_ALLOW),
    ]
}

fn ins(code: u16, jt: u8, jf: u8, k: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(8);
    v.extend_from_slice(&code.to_le_bytes());
    v.push(jt);
    v.push(jf);
    v.extend_from_slice(&k.to_le_bytes());
    v
}

fn to_bytes(prog: &[(u16, u8, u8, u32)]) -> Vec<u8> {
    prog.iter()
        .flat_map(|&(c, t, f, k)| ins(c, t, f, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::seccomp_deny_set;

    #[test]
    fn every_deny_set_rule_has_a_number_and_compiles() {
        let set = seccomp_deny_set();
        for r in &set {
            assert!(number(&r.syscall).is_some(), "{}", r.syscall);
        }
        let progs = programs(&set).unwrap();
        assert_eq!(progs.len(), 4);
        assert!(progs.iter().all(|p| !p.is_empty() && p.len() % 8 == 0));
        assert_eq!(
            explain(&set, libc::SYS_keyctl).map(|r| r.syscall.as_str()),
            Some("keyctl")
        );
    }

    #[test]
    fn a_supervised_kill_program_notifies_and_nothing_else_changes() {
        let set = seccomp_deny_set();
        let plain = programs(&set).unwrap();
        let sup = programs_for(&set, true).unwrap();
        assert_eq!(plain.len(), sup.len());
        let rets = |p: &[u8], k: u32| {
            p.chunks(8)
                .filter(|c| {
                    u16::from_le_bytes([c[0], c[1]]) == BPF_RET_K
                        && u32::from_le_bytes([c[4], c[5], c[6], c[7]]) == k
                })
                .count()
        };
        // The x32 guard (on x86-64), then kill, EPERM, ENOSYS.
        let k = usize::from(cfg!(target_arch = "x86_64"));
        assert_eq!(plain[..k], sup[..k]);
        assert!(rets(&plain[k], RET_KILL_PROCESS) > 0);
        assert_eq!(rets(&sup[k], RET_KILL_PROCESS), 0);
        assert_eq!(
            rets(&sup[k], RET_USER_NOTIF),
            rets(&plain[k], RET_KILL_PROCESS)
        );
        assert_eq!(plain[k + 1..], sup[k + 1..]);
    }

    #[test]
    fn unknown_syscall_is_refused() {
        let rules = vec![SeccompRule {
            syscall: "nosuch".into(),
            verdict: SeccompVerdict::Kill,
            arg: None,
            reason: "x".into(),
        }];
        assert!(programs(&rules).is_err());
    }
}
