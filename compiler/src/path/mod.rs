//! Path rules (spec §3): structural lexing under POSIX and Windows rules, folding,
//! identity and containment, device names, basedirs. Pure: no I/O.

pub mod frozen;
pub mod identity;
