//! The front end's syntax: the lexer (logos) and the recovering parser (chumsky) of
//! spec §1.1, producing an AST with byte spans. It never panics, whatever the bytes.

use crate::diag::codes::CodeInfo;

/// Codes this stage reports.
pub const CODES: &[CodeInfo] = &[];
