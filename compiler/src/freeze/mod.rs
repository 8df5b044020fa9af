//! The freeze (spec §3): places, selectors and toolchains expanded, every path frozen
//! once against one `FreezeCtx`, turning a typed profile into `Capabilities`. The only
//! disk consultation before a launch, and only through its file-system trait.

use crate::diag::codes::CodeInfo;

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[];
