//! Helpers the suites in `tests/` share.

pub mod multitool;
pub mod sbpl;
