//! Helpers the suites in `tests/` share.

// Test support, never linked into ralc: a helper whose precondition fails (a tool missing,
// a fixture unreadable) fails the suite that called it, which is what a test wants.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test support: a failed precondition fails the calling suite"
)]

pub mod bin;
pub mod golden;
pub mod multitool;
pub mod sbpl;
pub mod source;
