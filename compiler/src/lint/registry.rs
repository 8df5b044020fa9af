//! The registry: every lint, in name order. Adding a lint is one line here and one file
//! beside it; `docs/lints.md` is generated from this list.

use super::Lint;

static ALL: &[&dyn Lint] = &[
    &super::broad_write::BroadWrite,
    &super::dead_grant::DeadGrantLint,
    &super::deputy::DeputyPrefix,
    &super::envelope_replaced::EnvelopeReplaced,
    &super::exclusion_without_allowance::ExclusionWithoutAllowance,
    &super::host_run_writable::HostRunWritable,
    &super::legacy_form::LegacyFormLint,
    &super::lint_directive::LintDirective,
    &super::redundant_entry::RedundantEntry,
    &super::seatbelt_size::SeatbeltSize,
    &super::secret_exposure::SecretExposure,
    &super::self_writable::SelfWritable,
];

/// Every registered lint, sorted by name.
pub fn all() -> &'static [&'static dyn Lint] {
    ALL
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_sorted_unique_and_kebab_case() {
        let names: Vec<_> = super::all().iter().map(|l| l.info().name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
        for n in names {
            assert!(
                n.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{n}"
            );
        }
    }
}
