//! The typecheck against grant's declared table (spec §1.3, §2): the six keys and every
//! value shape, producing a [`profile::TypedProfile`].

pub mod profile;

use crate::diag::codes::CodeInfo;

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[];
