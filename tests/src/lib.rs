//! Helpers the suites in `tests/` share.

pub mod golden;
pub mod multitool;
pub mod sbpl;
