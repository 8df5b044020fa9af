//! Back ends: pure renderers from a `SandboxProjection` to a kernel plan.

pub mod linux;
pub mod macos;
