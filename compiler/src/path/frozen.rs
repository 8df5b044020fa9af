//! `FrozenPath` and `RealPath`: a path fixed once, at the freeze, by one disk
//! consultation. Authority is judged on the real form only; the surface leaves the type
//! only as a string, for display and rendering. Paths are Unicode by construction (a real
//! path that is not Unicode is refused at the freeze).
//!
//! Shared interface between the freeze (which mints these) and the model (which judges
//! on them). Never construct one from unresolved text outside `freeze/` (and tests).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A real path: absolute, `.`/`..` folded, symlinks followed (for a path that does not
/// exist: its nearest existing ancestor resolved and the rest appended lexically).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RealPath(String);

impl RealPath {
    /// Mint from text the freeze (or a test) has already resolved.
    pub fn from_resolved(real: impl Into<String>) -> Self {
        RealPath(real.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RealPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A path as the author wrote it (expanded and folded: the surface) and as the disk
/// resolves it (the real form), fixed together at the freeze.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FrozenPath {
    real: RealPath,
    surface: String,
}

impl FrozenPath {
    /// Mint from a surface and the real form the disk gave for it.
    pub fn from_parts(surface: impl Into<String>, real: RealPath) -> Self {
        FrozenPath {
            real,
            surface: surface.into(),
        }
    }
    /// The form every authority is judged on.
    pub fn real(&self) -> &RealPath {
        &self.real
    }
    /// The surface, for display and rendering only.
    pub fn surface_str(&self) -> &str {
        &self.surface
    }
}

impl fmt::Display for FrozenPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.surface)
    }
}
