//! ralc: a policy compiler and linter for `.ral` capability profiles.
//!
//! The pipeline (see `ARCHITECTURE.md`): `syntax` (lex, parse) → `eval` (the data subset)
//! → `typecheck` (grant's declared table) → `freeze` (paths, against one `FreezeCtx`) →
//! `capability` (the model: tables, `GrantStack`, judgments) → `lint`, `render`; the
//! `pipeline` runs them as a library (its `Loader` supplies the profile texts), and the
//! `cli` is one caller of it; `format` prints a parsed profile back in its canonical layout
//! (`ralc fmt`). Everything but `freeze`'s disk trait implementation,
//! `reader`, the pipeline's file loader and `cli` is pure.

#![forbid(unsafe_code)]

pub mod capability;
pub mod cli;
pub mod diag;
pub mod eval;
pub mod format;
pub mod freeze;
pub mod guard;
pub mod lint;
pub mod path;
pub mod pipeline;
pub mod reader;
pub mod registry;
pub mod render;
pub mod std_profiles;
pub mod syntax;
pub mod typecheck;
