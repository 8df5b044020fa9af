//! Path rules (spec §3): structural lexing under POSIX and Windows rules, folding,
//! identity and containment, device names, basedirs, `PATH` search. Pure: no I/O.

pub mod basedir;
pub mod device;
pub mod frozen;
pub mod identity;
pub mod lex;
pub mod which;
pub mod windows;
