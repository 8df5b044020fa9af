//! The evaluator of the data subset (spec §1.2): `let`, `$name`, interpolation, spread,
//! `return`. It runs nothing and reads nothing; every other construct is refused.

use crate::diag::codes::CodeInfo;

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[];
