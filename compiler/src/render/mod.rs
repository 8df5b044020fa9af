//! Back ends: pure renderers from a `SandboxProjection` to a kernel plan.

pub mod linux;
pub mod macos;
pub mod windows;
pub mod windows_carve;
