//! Compile a stack: the layers of a request (`-p`, `--restrict`, `--extend`, `std:NAME` on
//! a command line) loaded through a [`Loader`], parsed, typechecked and frozen into
//! `Capabilities`, then composed into a `GrantStack` (spec §4.4). It reads only through
//! the loader, exactly the layers it is given; every problem becomes a diagnostic, and the
//! stack is built only when there is no error.

use super::front_end::front_end;
use super::load::Loader;
use crate::capability::layer::{Capabilities, LayerRole, LayerSource};
use crate::capability::stack::GrantStack;
use crate::diag::{self, Diagnostic, SourceMap};
use crate::freeze::{self, FreezeCtx};
use crate::path::frozen::FrozenPath;
use crate::typecheck::profile::TypedProfile;
use std::sync::Arc;

/// One layer as named by the caller (a file path, `std:NAME`, a loader's own name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerInput {
    /// What the loader supplies it by: a file path, or `std:NAME`.
    pub name: String,
    pub role: LayerRole,
}

/// What to compile: the layers in stack order and the anchor to freeze them at.
#[derive(Debug)]
pub struct StackRequest {
    pub layers: Vec<LayerInput>,
    pub ctx: FreezeCtx,
}

impl StackRequest {
    /// Layers in the command line's order: `policies` first, then `extend` and
    /// `restrict`, each in the order given.
    pub fn new(
        policies: &[String],
        extend: &[String],
        restrict: &[String],
        ctx: FreezeCtx,
    ) -> Self {
        let mut layers = Vec::new();
        let mut push = |names: &[String], role| {
            for name in names {
                layers.push(LayerInput {
                    name: name.clone(),
                    role,
                });
            }
        };
        push(policies, LayerRole::Policy);
        push(extend, LayerRole::Extension);
        push(restrict, LayerRole::Restrict);
        StackRequest { layers, ctx }
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

    /// Every diagnostic as a `miette::Diagnostic` with its source (`diag::report`): what
    /// an embedding program renders.
    pub fn reports(&self) -> Vec<diag::report::Report> {
        diag::report::reports(&self.diagnostics, &self.sources)
    }
}

/// Compile every layer of the request, each supplied by `loader`, and compose the stack.
pub fn compile(req: StackRequest, loader: &dyn Loader) -> Compiled {
    let StackRequest {
        layers: inputs,
        ctx,
    } = req;
    let mut sources = SourceMap::new();
    let mut diagnostics = Vec::new();
    let mut typed = Vec::new();
    let mut layers = Vec::new();
    for input in &inputs {
        let (_id, t, mut d) = front_end(&mut sources, loader, &input.name);
        diagnostics.append(&mut d);
        let Some(t) = t else { continue };
        let source = LayerSource {
            name: Arc::from(input.name.as_str()),
            role: input.role,
            path: own_path(loader, &input.name, &ctx),
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

/// The layer file's own path, frozen (none for `std:` profiles and texts a loader holds
/// in memory): what `--restrict` protects and the `self-writable` lint looks at.
fn own_path(loader: &dyn Loader, name: &str, ctx: &FreezeCtx) -> Option<FrozenPath> {
    let abs = loader.own_file(name)?;
    ctx.freeze_path(abs.to_str()?).ok()
}
