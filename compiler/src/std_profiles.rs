//! The standard profiles, embedded in the binary and named `std:NAME` (`docs/profiles.md`):
//! the policies `minimal`, `read-only`, `edit-only`, `reasonable`, `confined`, `dangerous`,
//! and the `--extend` fragments `rust`, `node`, `python`, `go`, `java`, `secrets`. Data only: it
//! never reads a file at run time.

/// Every standard profile: (name, source text).
pub const ALL: &[(&str, &str)] = &[
    ("minimal", include_str!("../../std-profiles/minimal.ral")),
    (
        "read-only",
        include_str!("../../std-profiles/read-only.ral"),
    ),
    (
        "edit-only",
        include_str!("../../std-profiles/edit-only.ral"),
    ),
    (
        "reasonable",
        include_str!("../../std-profiles/reasonable.ral"),
    ),
    ("confined", include_str!("../../std-profiles/confined.ral")),
    (
        "dangerous",
        include_str!("../../std-profiles/dangerous.ral"),
    ),
    ("rust", include_str!("../../std-profiles/rust.ral")),
    ("node", include_str!("../../std-profiles/node.ral")),
    ("python", include_str!("../../std-profiles/python.ral")),
    ("go", include_str!("../../std-profiles/go.ral")),
    ("java", include_str!("../../std-profiles/java.ral")),
    ("secrets", include_str!("../../std-profiles/secrets.ral")),
];

/// The fragments among them: meant for `--extend` (an omitted axis adds nothing).
pub const FRAGMENTS: &[&str] = &["rust", "node", "python", "go", "java", "secrets"];

/// The source of `std:NAME`.
pub fn get(name: &str) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
