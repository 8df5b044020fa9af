//! Carriers (spec §4.1): the `#!` interpreters the kernel opens to start an admitted
//! script, as the host vouches for them. The `#!` line is parsed purely; what is on the
//! disk comes through the `Disk` trait. A carrier is kept only when it is a regular file
//! the system vouches for (owned by root, writable by no one else, in a directory likewise),
//! so a script cannot name a file the confined program could rewrite. It never follows
//! `env` to its target: `#!/usr/bin/env python3` carries `env`, and `python3` must be
//! granted as itself.

use super::disk::Disk;
use crate::path::frozen::RealPath;

/// The kernel follows at most this many `#!` levels (`BINPRM_MAX_RECURSION`).
pub const MAX_LEVELS: usize = 4;

/// How many leading bytes of a file the `#!` line is read from (the kernel's own buffer
/// for it is 256 bytes).
pub const HEAD_BYTES: usize = 256;

/// The interpreter a `#!` line names: the first word after `#!` (spaces and tabs skipped),
/// when it is an absolute path. `None` for a file that does not open with `#!`, a line
/// without an interpreter, or a relative one (the kernel resolves that against the
/// caller's working directory, which no grant can vouch for).
pub fn interpreter_of(head: &[u8]) -> Option<String> {
    let rest = head.strip_prefix(b"#!")?;
    let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
    let start = line.iter().position(|&b| b != b' ' && b != b'\t')?;
    let word = &line[start..];
    let end = word
        .iter()
        .position(|&b| b == b' ' || b == b'\t' || b == b'\r' || b == 0)
        .unwrap_or(word.len());
    let word = std::str::from_utf8(&word[..end]).ok()?;
    word.starts_with('/').then(|| word.to_string())
}

/// The carriers of the file at `real`: its interpreter, that interpreter's own, and so on
/// (at most [`MAX_LEVELS`]), each as its real path, while each is vouched for. `real_of`
/// resolves a path as the freeze does.
pub fn carriers_of(
    disk: &dyn Disk,
    real: &RealPath,
    real_of: impl Fn(&str) -> Option<RealPath>,
) -> Vec<RealPath> {
    let mut out: Vec<RealPath> = Vec::new();
    let mut at = real.clone();
    for _ in 0..MAX_LEVELS {
        let Some(head) = disk.head(at.as_str(), HEAD_BYTES) else {
            break;
        };
        let Some(interp) = interpreter_of(&head) else {
            break;
        };
        let Some(interp_real) = real_of(&interp) else {
            break;
        };
        if !disk.vouched(interp_real.as_str()) || out.contains(&interp_real) {
            break;
        }
        out.push(interp_real.clone());
        at = interp_real;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freeze::disk::MemDisk;

    #[test]
    fn the_hash_bang_line_names_an_absolute_interpreter() {
        assert_eq!(interpreter_of(b"#!/bin/sh\necho"), Some("/bin/sh".into()));
        assert_eq!(
            interpreter_of(b"#! \t/usr/bin/env python3 -u\n"),
            Some("/usr/bin/env".into())
        );
        assert_eq!(interpreter_of(b"#!/bin/sh\r\n"), Some("/bin/sh".into()));
        assert_eq!(interpreter_of(b"#!/bin/sh"), Some("/bin/sh".into()));
        assert_eq!(interpreter_of(b"#!sh\n"), None);
        assert_eq!(interpreter_of(b"#!\n/bin/sh"), None);
        assert_eq!(interpreter_of(b"\x7fELF..."), None);
        assert_eq!(interpreter_of(b""), None);
    }

    fn real(p: &str) -> Option<RealPath> {
        Some(RealPath::from_resolved(p))
    }

    #[test]
    fn carriers_follow_vouched_interpreters_only() {
        let disk = MemDisk::new()
            .file("/p/script", "#!/usr/bin/perlish -w\n")
            .file("/usr/bin/perlish", "#!/usr/bin/base\n")
            .exe("/usr/bin/base")
            .file("/p/mine", "#!/p/interp\n")
            .file("/p/interp", "")
            .vouch("/usr/bin/perlish")
            .vouch("/usr/bin/base");
        let got = carriers_of(&disk, &RealPath::from_resolved("/p/script"), real);
        assert_eq!(
            got,
            vec![
                RealPath::from_resolved("/usr/bin/perlish"),
                RealPath::from_resolved("/usr/bin/base")
            ]
        );
        // An interpreter the system does not vouch for carries nothing.
        assert!(carriers_of(&disk, &RealPath::from_resolved("/p/mine"), real).is_empty());
        // A binary has no carrier.
        assert!(carriers_of(&disk, &RealPath::from_resolved("/usr/bin/base"), real).is_empty());
    }

    #[test]
    fn a_loop_of_interpreters_ends() {
        let disk = MemDisk::new()
            .file("/usr/bin/a", "#!/usr/bin/b\n")
            .file("/usr/bin/b", "#!/usr/bin/a\n")
            .vouch("/usr/bin/a")
            .vouch("/usr/bin/b");
        let got = carriers_of(&disk, &RealPath::from_resolved("/usr/bin/a"), real);
        assert_eq!(got.len(), 2);
    }
}
