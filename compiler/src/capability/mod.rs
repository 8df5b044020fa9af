//! The capability model (spec §4): frozen layers, evidence tables, the `GrantStack` and
//! its judgments, and the `SandboxProjection` the back ends read. Pure: no I/O.

pub mod layer;
pub mod projection;
pub mod resolve;

use crate::diag::codes::CodeInfo;

/// Codes this stage reports (composition errors).
pub const CODES: &[CodeInfo] = &[];
