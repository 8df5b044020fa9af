//! ralc: a policy compiler and linter for `.ral` capability profiles.
//!
//! The pipeline (see `ARCHITECTURE.md`): `syntax` (lex, parse) → `eval` (the data subset)
//! → `typecheck` (grant's declared table) → `freeze` (paths, against one `FreezeCtx`) →
//! `capability` (the model: tables, `GrantStack`, judgments) → `lint`, `render`, and the
//! `cli`; `format` prints a parsed profile back in its canonical layout (`ralc fmt`).
//! Everything but `freeze`'s disk trait implementation, `reader` and `cli` is pure.

#![forbid(unsafe_code)]

pub mod capability;
pub mod cli;
pub mod compile;
pub mod diag;
pub mod eval;
pub mod format;
pub mod freeze;
pub mod guard;
pub mod lint;
pub mod path;
pub mod reader;
pub mod render;
pub mod std_profiles;
pub mod syntax;
pub mod typecheck;
