//! `FrozenPath` and `RealPath`: a path fixed once, at the freeze, by one disk
//! consultation. Authority is judged on the real form only; the surface leaves the type
//! only as a string, for display and rendering. Paths are Unicode by construction (a real
//! path that is not Unicode is refused at the freeze).
//!
//! Shared interface between the freeze (which mints these) and the model (which judges
//! on them). Never construct one from unresolved text outside `freeze/` (and tests).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// A real path: absolute, `.`/`..` folded, symlinks followed (for a path that does not
/// exist: its nearest existing ancestor resolved and the rest appended lexically).
///
/// Its text is shared (`Arc<str>`): the stack's tables, the lints and the renderers hold
/// the same path many times over, and a copy is a count, not an allocation. Compared,
/// ordered and hashed by its text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RealPath(Arc<str>);

impl Serialize for RealPath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // as the derive did for `RealPath(String)`
        s.serialize_newtype_struct("RealPath", &*self.0)
    }
}

impl<'de> Deserialize<'de> for RealPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "RealPath")]
        struct Text(String);
        Text::deserialize(d).map(|t| RealPath(t.0.into()))
    }
}

impl RealPath {
    /// Mint from text the freeze (or a test) has already resolved.
    pub fn from_resolved(real: impl AsRef<str>) -> Self {
        RealPath(Arc::from(real.as_ref()))
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
    #[serde(serialize_with = "shared_text", deserialize_with = "owned_text")]
    surface: Arc<str>,
}

fn shared_text<S: Serializer>(t: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t)
}

fn owned_text<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    String::deserialize(d).map(Arc::from)
}

impl FrozenPath {
    /// Mint from a surface and the real form the disk gave for it.
    pub fn from_parts(surface: impl AsRef<str>, real: RealPath) -> Self {
        FrozenPath {
            real,
            surface: Arc::from(surface.as_ref()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_spells_the_paths_as_their_text_and_reads_them_back() {
        let p = FrozenPath::from_parts("/home/u/l", RealPath::from_resolved("/data/u"));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"real":"/data/u","surface":"/home/u/l"}"#);
        assert_eq!(serde_json::from_str::<FrozenPath>(&json).unwrap(), p);
        let r = RealPath::from_resolved(String::from("/x \"y\""));
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#""/x \"y\"""#);
        assert_eq!(serde_json::from_str::<RealPath>(&json).unwrap(), r);
        // a copy shares the text
        let q = p.clone();
        assert!(std::ptr::eq(q.real().as_str(), p.real().as_str()));
        assert!(std::ptr::eq(q.surface_str(), p.surface_str()));
    }
}
