//! The pipeline as a library: load → compile → admit → project → render, callable by any
//! program that embeds ralc, the CLI being one of them.
//!
//! - [`load`]: the [`Loader`] trait, the one way profile texts come in (`std:NAME`
//!   embedded, files through the reviewed reader, texts held in memory);
//! - [`front_end`](mod@front_end): one layer parsed, evaluated and typechecked;
//! - [`compile`](mod@compile): a [`StackRequest`] frozen and composed into a `GrantStack`;
//! - [`launch`]: a program admitted, the projection folded, the plan rendered.
//!
//! It never reads the process (arguments, environment, working directory), never prints
//! and never decides an exit status: the caller supplies the anchor and the loader, and
//! words the result.

pub mod compile;
pub mod front_end;
pub mod launch;
pub mod load;
pub mod moving_home;

pub use compile::{compile, compose, Compiled, LayerInput, StackRequest};
pub use front_end::{check_files, front_end, FrontEnd};
pub use launch::{admit_and_project, plan_for, seatbelt_launch, Refusal, RefusalKind};
pub use load::{Embedded, Files, Loader, Memory};

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::freeze::{FreezeCtx, MemDisk};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    /// The whole pipeline from a text in memory to a Linux plan, touching nothing.
    #[test]
    fn a_profile_in_memory_compiles_admits_and_renders() {
        let ctx = FreezeCtx::from_parts(
            BTreeMap::from([("HOME".to_string(), "/home/u".to_string())]),
            "/home/u/work".to_string(),
            Arc::new(MemDisk::default()),
        );
        let loader = Memory::new().with("p.ral", "[ fs: [ read: ['cwd:'] ] ]");
        let req = StackRequest::new(&["p.ral".to_string()], &[], &[], ctx);
        let compiled = compile(req, &loader);
        assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
        let Some(stack) = &compiled.stack else {
            panic!("no stack");
        };
        let refused = plan_for(stack, &compiled.ctx, &["/bin/true".to_string()], "/r", &[]);
        assert!(refused.is_err(), "exec was never granted");
        let broken = compile(
            StackRequest::new(&["q.ral".to_string()], &[], &[], compiled.ctx.clone()),
            &loader,
        );
        assert!(broken.stack.is_none());
        assert_eq!(broken.diagnostics[0].code.as_str(), "E0100");
        let reports = broken.reports();
        let code = miette::Diagnostic::code(&reports[0]).map(|c| c.to_string());
        assert_eq!(code.as_deref(), Some("E0100"));
    }
}
