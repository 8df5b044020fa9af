//! The Windows launch: applies a `WindowsPlan` — the AppContainer profile of the
//! projection, each stamp's ACE and Low label set through a handle held on the very object
//! checked, the stamp store with its witnesses under a named mutex per collision key, the
//! per-launch `AuthzAccessCheck` of every exclusion, the Job Object (512 processes), and
//! the program started with the LowBox token carrying exactly the plan's capability SIDs.
//!
//! Windows only. Wine 8.0 lacks the AppContainer, capability-derivation and LowBox calls,
//! so every such call is looked up first (`ffi::api`) and a missing one refuses the
//! launch: it must never run a program with less confinement than the plan asks.

pub mod ffi;
pub mod guard;
pub mod launch;
pub mod lister;
pub mod stamp;
pub mod store;
