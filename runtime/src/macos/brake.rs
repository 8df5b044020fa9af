//! The fork brake's arithmetic: the confined child's `RLIMIT_NPROC` is the user's process
//! count at launch plus a headroom of 512, bounded by the system's per-user ceiling
//! (`kern.maxprocperuid`) and the hard limit the launch inherited — never raised above
//! either. And the wording of an exit status 128, which may be a refused fork and may not.
//! Pure: the counts come from the caller.

/// New processes the confined tree may add to the user's count at launch.
pub const HEADROOM: u64 = 512;

/// The limit for the child: `user_processes + HEADROOM`, at most the system ceiling (when
/// known) and the inherited hard limit. It is set as both the soft and the hard limit, so
/// the program cannot raise it again.
pub fn nproc_limit(user_processes: u64, system_ceiling: Option<u64>, inherited_hard: u64) -> u64 {
    let wanted = user_processes.saturating_add(HEADROOM);
    wanted
        .min(system_ceiling.unwrap_or(u64::MAX))
        .min(inherited_hard)
}

/// What `ralc run` adds when the program exits 128: a possible reason, never a verdict.
pub fn exit_note(code: i32, limit: u64, user_processes: u64) -> Option<String> {
    (code == 128).then(|| {
        format!(
            "the program exited 128, which shells and some runtimes use when a fork is \
             refused; the fork brake allowed this user {limit} processes ({user_processes} \
             at launch + {HEADROOM}), so a refused fork is possible — or 128 is the \
             program's own status"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_plus_headroom_when_nothing_bounds_it() {
        assert_eq!(nproc_limit(300, Some(2666), u64::MAX), 812);
        assert_eq!(nproc_limit(0, None, u64::MAX), 512);
    }

    #[test]
    fn bounded_by_the_system_ceiling_and_the_inherited_hard_limit() {
        assert_eq!(nproc_limit(2500, Some(2666), u64::MAX), 2666);
        assert_eq!(nproc_limit(300, Some(2666), 700), 700);
        assert_eq!(nproc_limit(300, None, 400), 400);
    }

    #[test]
    fn no_overflow_at_the_top() {
        assert_eq!(nproc_limit(u64::MAX, None, u64::MAX), u64::MAX);
    }

    #[test]
    fn exit_128_is_explained_without_asserting() {
        let n = exit_note(128, 812, 300).unwrap();
        assert!(n.contains("812 processes"), "{n}");
        assert!(n.contains("possible"), "{n}");
        assert!(n.contains("program's own status"), "{n}");
        assert_eq!(exit_note(0, 812, 300), None);
        assert_eq!(exit_note(1, 812, 300), None);
        assert_eq!(exit_note(129, 812, 300), None);
    }
}
