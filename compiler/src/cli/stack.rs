//! The shared stack options (`-p`, `--extend`, `--restrict`, the anchor) turned into the
//! library's request and loader, and a stack compiled for a command that needs one, its
//! diagnostics printed. The process's environment and working directory are read here,
//! once, for the library (`pipeline` never reads them).

use super::args::{AnchorArgs, StackArgs};
use crate::capability::stack::GrantStack;
use crate::freeze::{Anchor, FreezeCtx};
use crate::pipeline::{self, Compiled, Files, StackRequest};

impl AnchorArgs {
    /// The library's anchor these options describe.
    pub fn anchor(&self) -> Anchor {
        Anchor {
            home: self.home.clone(),
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            env_clear: self.env_clear,
        }
    }
}

impl StackArgs {
    /// The request: `positional` files first, as policies, then `-p`, `--extend` and
    /// `--restrict` files in the order given, frozen as this process would re-anchored
    /// by the anchor options.
    pub fn request(&self, positional: &[String]) -> Result<StackRequest, String> {
        let ctx = FreezeCtx::from_process()?.with_anchor(&self.anchor.anchor())?;
        Ok(self.request_at(positional, ctx))
    }

    /// The same, frozen at a given anchor.
    pub fn request_at(&self, positional: &[String], ctx: FreezeCtx) -> StackRequest {
        let policies: Vec<String> = positional.iter().chain(&self.profiles).cloned().collect();
        StackRequest::new(&policies, &self.extend, &self.restrict, ctx)
    }

    /// The loader of the named layers: files named from this process's working
    /// directory (`--allow-outside-links` as given), and `std:NAME`.
    pub fn loader(&self) -> Files {
        loader(self.allow_outside_links)
    }

    /// Request and compile in one step (what the test suites and the fuzzers do).
    pub fn compile(&self, positional: &[String]) -> Result<Compiled, String> {
        Ok(pipeline::compile(self.request(positional)?, &self.loader()))
    }
}

/// Files named from this process's working directory, and `std:NAME`.
pub fn loader(outside_ok: bool) -> Files {
    let cwd = crate::reader::working_dir().map_err(|e| e.to_string());
    Files::new(cwd, outside_ok)
}

/// The compiled stack, or the exit code and message of why there is none.
pub fn compile_stack(
    stack: &StackArgs,
    positional: &[String],
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let req = stack
        .request(positional)
        .map_err(|e| (super::EXIT_USAGE, format!("{who}: {e}")))?;
    compile_request(req, &stack.loader(), who)
}

/// `compile_stack` for a request already anchored (another OS's anchor, say): the
/// warnings printed on stderr, the errors returned with the refusal.
pub fn compile_request(
    req: StackRequest,
    loader: &Files,
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let mut compiled =
        super::progress::during("compiling the profiles", || pipeline::compile(req, loader));
    let text = super::check::render(
        super::args::Format::Human,
        &super::for_humans(&compiled.diagnostics),
        &compiled.sources,
        false,
        None,
    );
    match compiled.stack.take() {
        Some(s) if !compiled.has_errors() => {
            if !text.is_empty() {
                eprint!("{text}");
            }
            Ok((compiled, s))
        }
        _ => Err((
            super::EXIT_REFUSED,
            format!("{text}{who}: refused: the profiles have errors; nothing ran"),
        )),
    }
}
