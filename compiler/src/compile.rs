//! The pipeline glue: the layers named on a command line (`-p`, `--restrict`, `--extend`,
//! `std:NAME`) read, parsed, typechecked and frozen into `Capabilities`, then composed into
//! a `GrantStack` (spec §4.4). It reads exactly the files it is given and nothing else;
//! every problem becomes a diagnostic, and the stack is built only when there is no error.

use crate::capability::layer::{Capabilities, LayerRole, LayerSource};
use crate::capability::stack::GrantStack;
use crate::cli::args::StackArgs;
use crate::diag::{self, Diagnostic, SourceMap};
use crate::freeze::{self, FreezeCtx};
use crate::path::frozen::FrozenPath;
use crate::typecheck::profile::TypedProfile;
use std::sync::Arc;

/// One layer as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerInput {
    /// A file path, or `std:NAME`.
    pub name: String,
    pub role: LayerRole,
}

/// What to compile: the layers in stack order and the anchor to freeze them at.
#[derive(Debug)]
pub struct StackRequest {
    pub layers: Vec<LayerInput>,
    pub ctx: FreezeCtx,
    /// `--allow-outside-links`: a relative layer name may resolve outside the tree it
    /// was named from (refused by default: `crate::reader::check_contained`).
    pub allow_outside_links: bool,
}

impl StackRequest {
    /// From the shared CLI options; `positional` files come first, as policies, then
    /// `-p`, `--extend` and `--restrict` files in the order given.
    pub fn from_args(args: &StackArgs, positional: &[String]) -> Result<Self, String> {
        let ctx = FreezeCtx::from_process()?.with_anchor(&args.anchor)?;
        Ok(Self::with_ctx(args, positional, ctx))
    }

    /// The same, frozen at a given anchor.
    pub fn with_ctx(args: &StackArgs, positional: &[String], ctx: FreezeCtx) -> Self {
        let mut layers = Vec::new();
        let mut push = |names: &[String], role| {
            for name in names {
                layers.push(LayerInput {
                    name: name.clone(),
                    role,
                });
            }
        };
        push(positional, LayerRole::Policy);
        push(&args.profiles, LayerRole::Policy);
        push(&args.extend, LayerRole::Extension);
        push(&args.restrict, LayerRole::Restrict);
        StackRequest {
            layers,
            ctx,
            allow_outside_links: args.allow_outside_links,
        }
    }
}

/// Everything a compile produced.
#[derive(Debug)]
pub struct Compiled {
    pub sources: SourceMap,
    /// Every diagnostic of every layer, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The typed profile of each layer that passed the front end, in request order.
    pub typed: Vec<TypedProfile>,
    /// Each layer that passed the front end, frozen, in request order.
    pub layers: Vec<Capabilities>,
    /// The composed stack; `None` when any layer has an error.
    pub stack: Option<GrantStack>,
    pub ctx: FreezeCtx,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compile every layer of the request and compose the stack.
pub fn compile(req: StackRequest) -> Compiled {
    let StackRequest {
        layers: inputs,
        ctx,
        allow_outside_links,
    } = req;
    let mut sources = SourceMap::new();
    let mut diagnostics = Vec::new();
    let mut typed = Vec::new();
    let mut layers = Vec::new();
    for input in &inputs {
        let (_id, t, mut d) =
            crate::cli::check::front_end(&mut sources, &input.name, allow_outside_links);
        diagnostics.append(&mut d);
        let Some(t) = t else { continue };
        let source = LayerSource {
            name: Arc::from(input.name.as_str()),
            role: input.role,
            path: own_path(&input.name, &ctx),
        };
        let (caps, mut d) = freeze::freeze(&t, source, &ctx, &sources);
        diagnostics.append(&mut d);
        typed.push(t);
        layers.push(caps);
    }
    diag::sort(&mut diagnostics);
    let failed = diagnostics.iter().any(Diagnostic::is_error) || layers.len() != inputs.len();
    let stack = (!failed).then(|| compose(&layers, &ctx));
    Compiled {
        sources,
        diagnostics,
        typed,
        layers,
        stack,
        ctx,
    }
}

impl Compiled {
    /// The files this stack was read from (every `-p`, `--extend` and `--restrict` layer
    /// that is a file, not `std:`), as real paths: what a launch keeps read-only and
    /// rename-proof in its envelope.
    pub fn profile_files(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .layers
            .iter()
            .filter_map(|l| l.source.path.as_ref())
            .map(|p| p.real().as_str().to_owned())
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Compose frozen layers by role: `(base ∨ extension…) ∧ restrict…`, with the floor.
pub fn compose(layers: &[Capabilities], ctx: &FreezeCtx) -> GrantStack {
    let of_role = |role| {
        layers
            .iter()
            .filter(|l| l.source.role == role)
            .cloned()
            .collect()
    };
    GrantStack::compose_with_floor(
        of_role(LayerRole::Policy),
        of_role(LayerRole::Extension),
        of_role(LayerRole::Restrict),
        freeze::floor(ctx),
    )
}

/// The layer file's own path, frozen (none for `std:` profiles): what `--restrict`
/// protects and the `self-writable` lint looks at. Relative names are taken from the
/// process's working directory, where the shell that named them stands.
#[allow(
    clippy::disallowed_methods,
    reason = "a named profile file's absolute path, lexically, against the working directory"
)]
fn own_path(name: &str, ctx: &FreezeCtx) -> Option<FrozenPath> {
    if name.starts_with("std:") {
        return None;
    }
    let abs = std::path::absolute(name).ok()?;
    ctx.freeze_path(abs.to_str()?).ok()
}
