//! Helpers the suites in `tests/` share.

pub mod bin;
pub mod multitool;
pub mod sbpl;
