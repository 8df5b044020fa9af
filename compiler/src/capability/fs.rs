//! The fs instance of the model: `FsScope::{Prefix, Place}` and the two regions of a
//! layer (`FsOp::Read`: read ∪ write prefixes, run places, the floor; `FsOp::Write`: write
//! prefixes), each a `Table<FsScope>` whose exclusions beat every allowance.
//! Containment is `path_within` only (allowances Stored, exclusions Collision); this
//! module never compares paths itself.

use super::index::{depth, within, Indexed};
use super::layer::{Capabilities, FsEntry, Origin};
use super::table::{Cited, Filed, Own, Scope, Table};
use crate::path::frozen::{FrozenPath, RealPath};
use crate::path::identity::Identity;

/// Which region a question is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FsOp {
    Read,
    Write,
}

/// An fs scope: a written prefix (frozen), or a place (a run place or the floor) that
/// reads as a prefix.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FsScope {
    Prefix(FrozenPath),
    Place(RealPath),
}

/// Rank of any exclusion: above every allowance.
pub const EXCLUSION: u32 = u32::MAX;

impl FsScope {
    pub fn real(&self) -> &str {
        match self {
            FsScope::Prefix(p) => p.real().as_str(),
            FsScope::Place(r) => r.as_str(),
        }
    }
    /// How a user reads the scope: the surface of a prefix, the real path of a place.
    pub fn display(&self) -> &str {
        match self {
            FsScope::Prefix(p) => p.surface_str(),
            FsScope::Place(r) => r.as_str(),
        }
    }
}

impl Scope for FsScope {
    type Subject = str;
    fn speaks(&self, negative: bool, s: &str) -> Option<u32> {
        let real = self.real();
        if negative {
            within(Identity::Collision, real, s).then_some(EXCLUSION)
        } else {
            within(Identity::Stored, real, s).then(|| depth(real).min(EXCLUSION - 1))
        }
    }
    fn bound(&self, negative: bool) -> u32 {
        self.rank_bound(negative)
    }
}

impl FsScope {
    fn rank_bound(&self, negative: bool) -> u32 {
        if negative {
            EXCLUSION
        } else {
            depth(self.real()).min(EXCLUSION - 1)
        }
    }
}

impl Own for FsScope {
    fn own(&self) -> Box<str> {
        self.real().into()
    }
}

impl Indexed for FsScope {
    fn index_path(&self) -> Option<&str> {
        Some(self.real())
    }
}

fn cite(layer: usize, origin: &Origin) -> Cited {
    Cited {
        layer,
        origin: origin.clone().into(),
    }
}

/// A synthetic origin for an entry no file wrote (a run place, the floor, a discard device).
pub fn synthetic(file: &str, written: &str) -> Origin {
    Origin {
        file: file.into(),
        line: 0,
        column: 0,
        span: Default::default(),
        written: written.into(),
    }
}

/// A run place: a positive exec `File` or `Dir` of some layer at or below this one, with
/// the layer and entry that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunPlace {
    pub real: RealPath,
    pub by: Cited,
}

/// A run place a bare-name allowance is: the file its name lands on on the host's `PATH`,
/// found at judgment time (the name is live per question, as the exec judgment resolves
/// it), read as a prefix like a `RunPlace`. `by` is the exec entry (and its layer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPlace {
    pub name: String,
    pub by: Cited,
}

/// One layer's region for `op`, or `None` when the layer says nothing about fs.
pub fn region(
    layer: usize,
    caps: &Capabilities,
    op: FsOp,
    places: &[RunPlace],
    floor: &[RealPath],
) -> Option<Table<FsScope>> {
    let fs = caps.fs.as_ref()?;
    let mut ev: Vec<(FsScope, Filed)> = Vec::new();
    let prefix = |ev: &mut Vec<(FsScope, Filed)>, e: &FsEntry| {
        ev.push((
            FsScope::Prefix(e.path.clone()),
            Filed::Allow(cite(layer, &e.origin), None),
        ))
    };
    for e in &fs.write {
        prefix(&mut ev, e);
    }
    for e in &fs.deny {
        ev.push((
            FsScope::Prefix(e.path.clone()),
            Filed::Deny(cite(layer, &e.origin)),
        ));
    }
    match op {
        FsOp::Read => {
            for e in &fs.read {
                prefix(&mut ev, e);
            }
            for p in places {
                ev.push((
                    FsScope::Place(p.real.clone()),
                    Filed::Allow(p.by.clone(), None),
                ));
            }
            for f in floor {
                let origin = synthetic("the floor", f.as_str());
                ev.push((
                    FsScope::Place(f.clone()),
                    Filed::Allow(cite(layer, &origin), None),
                ));
            }
        }
        FsOp::Write => {
            for e in &fs.write_deny {
                ev.push((
                    FsScope::Prefix(e.path.clone()),
                    Filed::Deny(cite(layer, &e.origin)),
                ));
            }
        }
    }
    Some(Table::from_evidence(layer, ev))
}
