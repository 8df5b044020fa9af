//! The standard profiles, embedded in the binary and named `std:NAME`.

/// Every standard profile: (name, source text).
pub const ALL: &[(&str, &str)] = &[
    ("minimal", include_str!("../../std-profiles/minimal.ral")),
    (
        "reasonable",
        include_str!("../../std-profiles/reasonable.ral"),
    ),
    (
        "dangerous",
        include_str!("../../std-profiles/dangerous.ral"),
    ),
];

/// The source of `std:NAME`.
pub fn get(name: &str) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
