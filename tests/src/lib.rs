//! Helpers the suites in `tests/` share.

pub mod sbpl;
