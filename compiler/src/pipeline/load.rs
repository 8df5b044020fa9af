//! Where profile texts come from: the [`Loader`] trait supplies the bytes of a layer by the
//! name it was given (`std:NAME`, a file path, or whatever an embedding program names), the
//! way typst's `World` supplies every input. [`Embedded`] knows only the standard
//! profiles, [`Memory`] a fixed set of texts besides them, [`Files`] the files of this
//! host through the reviewed reader (`crate::reader`).
//!
//! A loader never parses, judges or freezes; only [`Files`] touches the disk, and only
//! through `crate::reader`. An `Err` is a message for the unreadable-layer diagnostic
//! (E0100) and never holds a file's bytes.

use crate::std_profiles;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The supplier of every profile text the pipeline compiles.
pub trait Loader {
    /// The bytes of the layer named `name`, or why there are none.
    fn load(&self, name: &str) -> Result<Vec<u8>, String>;

    /// The layer's own file, absolute, where it has one on this host (none for `std:`
    /// profiles and texts held in memory): what `--restrict` protects and the
    /// `self-writable` lint looks at.
    fn own_file(&self, name: &str) -> Option<PathBuf> {
        let _ = name;
        None
    }
}

/// `std:NAME`: the embedded standard profile, or why there is none; `None` when the name
/// does not start `std:`.
pub fn standard(name: &str) -> Option<Result<Vec<u8>, String>> {
    let std_name = name.strip_prefix("std:")?;
    Some(
        std_profiles::get(std_name)
            .map(|s| s.as_bytes().to_vec())
            .ok_or_else(|| {
                let names: Vec<String> = std_profiles::ALL
                    .iter()
                    .map(|(n, _)| format!("std:{n}"))
                    .collect();
                format!(
                    "there is no standard profile `{name}` (the standard profiles are {})",
                    names.join(", ")
                )
            }),
    )
}

/// The standard profiles and nothing else.
#[derive(Clone, Copy, Debug, Default)]
pub struct Embedded;

impl Loader for Embedded {
    fn load(&self, name: &str) -> Result<Vec<u8>, String> {
        standard(name).unwrap_or_else(|| {
            Err(format!(
                "cannot read `{name}`: this loader supplies only the standard profiles (std:NAME)"
            ))
        })
    }
}

/// Texts held in memory by name, and the standard profiles.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    texts: BTreeMap<String, Vec<u8>>,
}

impl Memory {
    pub fn new() -> Self {
        Self::default()
    }

    /// This loader with `name` supplying `text`.
    pub fn with(mut self, name: &str, text: impl Into<Vec<u8>>) -> Self {
        self.texts.insert(name.to_string(), text.into());
        self
    }
}

impl Loader for Memory {
    fn load(&self, name: &str) -> Result<Vec<u8>, String> {
        if let Some(std) = standard(name) {
            return std;
        }
        self.texts
            .get(name)
            .cloned()
            .ok_or_else(|| format!("cannot read `{name}`: no such profile"))
    }
}

/// The files of this host, named relative to a working directory, and the standard
/// profiles. A file is read through the reviewed reader: a regular file of at most
/// [`crate::reader::PROFILE_LIMIT`] bytes and — unless `outside_ok` — one whose real path
/// stays in the tree it was named from.
#[derive(Clone, Debug)]
pub struct Files {
    /// The directory relative names are taken from, or why it is unknown.
    cwd: Result<PathBuf, String>,
    /// `--allow-outside-links`: a relative name may resolve outside the tree.
    outside_ok: bool,
}

impl Files {
    /// Files named from `cwd` (the caller's working directory, or why it has none).
    pub fn new(cwd: Result<PathBuf, String>, outside_ok: bool) -> Self {
        Files { cwd, outside_ok }
    }
}

impl Loader for Files {
    fn load(&self, name: &str) -> Result<Vec<u8>, String> {
        if let Some(std) = standard(name) {
            return std;
        }
        let refused = |e: crate::reader::Refusal| format!("cannot read `{name}`: {e}");
        if !self.outside_ok {
            let cwd = self
                .cwd
                .as_ref()
                .map_err(|e| format!("cannot read `{name}`: {e}"))?;
            crate::reader::check_contained(name, cwd).map_err(refused)?;
        }
        let path = match &self.cwd {
            Ok(cwd) => cwd.join(name),
            Err(_) => PathBuf::from(name),
        };
        crate::reader::read_reviewed(&path, crate::reader::PROFILE_LIMIT).map_err(refused)
    }

    #[allow(
        clippy::disallowed_methods,
        reason = "a named profile file's absolute path, lexically, against the working directory"
    )]
    fn own_file(&self, name: &str) -> Option<PathBuf> {
        if name.starts_with("std:") {
            return None;
        }
        let cwd = self.cwd.as_ref().ok()?;
        std::path::absolute(cwd.join(Path::new(name))).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_names_come_from_every_loader() {
        let minimal = std_profiles::get("minimal").map(|s| s.as_bytes().to_vec());
        assert_eq!(Embedded.load("std:minimal").ok(), minimal);
        assert_eq!(Memory::new().load("std:minimal").ok(), minimal);
        let e = Embedded.load("std:nope").unwrap_err();
        assert!(e.contains("std:minimal, std:read-only"), "{e}");
        assert!(Embedded
            .load("a.ral")
            .unwrap_err()
            .contains("only the standard"));
    }

    #[test]
    fn memory_supplies_its_texts_and_no_file() {
        let m = Memory::new().with("a.ral", "grant {}");
        assert_eq!(m.load("a.ral").unwrap(), b"grant {}");
        assert!(m.load("b.ral").is_err());
        assert_eq!(m.own_file("a.ral"), None);
    }

    #[cfg(unix)]
    #[test]
    fn files_name_their_own_file_absolute_and_std_none() {
        let f = Files::new(Ok(PathBuf::from("/work/x")), false);
        assert_eq!(f.own_file("p.ral"), Some(PathBuf::from("/work/x/p.ral")));
        assert_eq!(f.own_file("/abs/p.ral"), Some(PathBuf::from("/abs/p.ral")));
        assert_eq!(f.own_file("std:minimal"), None);
        let lost = Files::new(Err("gone".into()), false);
        assert!(lost.load("p.ral").unwrap_err().contains("gone"));
    }
}
