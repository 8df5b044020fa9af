//! The capability model (spec §4): frozen layers, evidence tables, the `GrantStack` and
//! its judgments, and the `SandboxProjection` the back ends read. Pure: no I/O.

pub mod exec;
pub mod fs;
pub mod index;
pub mod lattice;
pub mod layer;
pub mod projection;
pub mod residual;
pub mod resolve;
pub mod stack;
pub mod table;
pub mod vocab;

use crate::diag::codes::CodeInfo;

/// Codes this stage reports (composition errors).
pub const CODES: &[CodeInfo] = &[];

#[cfg(test)]
mod laws;
#[doc(hidden)]
pub mod testkit;
#[cfg(test)]
mod tests;
