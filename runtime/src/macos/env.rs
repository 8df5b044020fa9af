//! The confined child's environment on macOS: inherited as on Linux, less the loader's
//! injection variables — the three the issue names (`DYLD_INSERT_LIBRARIES`,
//! `DYLD_LIBRARY_PATH`, `DYLD_FRAMEWORK_PATH`) and every other `DYLD_*` variable, each of
//! which changes what dyld loads or where it looks. Pure: it is given the names and reads
//! no environment itself.

use std::ffi::{OsStr, OsString};

/// Removed from every child, present or not.
pub const LOADER_VARS: [&str; 3] = [
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
];

/// Is `name` a loader variable the child must not inherit?
pub fn is_loader_var(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b"DYLD_")
}

/// The variables to remove from a child whose parent's environment holds `names`: the
/// named three always, and every other `DYLD_*` present; sorted, each once.
pub fn removals<I: IntoIterator<Item = OsString>>(names: I) -> Vec<OsString> {
    let mut out: Vec<OsString> = LOADER_VARS.iter().map(OsString::from).collect();
    out.extend(names.into_iter().filter(|n| is_loader_var(n)));
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_three_are_always_removed() {
        let r = removals(Vec::<OsString>::new());
        assert_eq!(
            r,
            vec![
                OsString::from("DYLD_FRAMEWORK_PATH"),
                OsString::from("DYLD_INSERT_LIBRARIES"),
                OsString::from("DYLD_LIBRARY_PATH"),
            ]
        );
    }

    #[test]
    fn every_dyld_variable_goes_and_nothing_else() {
        let names = [
            "PATH",
            "HOME",
            "DYLD_INSERT_LIBRARIES",
            "DYLD_FALLBACK_LIBRARY_PATH",
            "DYLD_IMAGE_SUFFIX",
            "LD_PRELOAD",
            "MY_DYLD_THING",
            "dyld_lower",
        ]
        .map(OsString::from);
        let r = removals(names);
        assert!(r.contains(&OsString::from("DYLD_FALLBACK_LIBRARY_PATH")));
        assert!(r.contains(&OsString::from("DYLD_IMAGE_SUFFIX")));
        for kept in ["PATH", "HOME", "LD_PRELOAD", "MY_DYLD_THING", "dyld_lower"] {
            assert!(!r.contains(&OsString::from(kept)), "{kept} removed");
        }
        assert_eq!(r.len(), 5, "{r:?}");
    }
}
