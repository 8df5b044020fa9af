//! Name identity and containment (spec §3.6): allowances match as stored; exclusions
//! match under the Collision identity. `path_within` is the one containment kernel.
//!
//! PLACEHOLDER INTERNALS (owned by the paths work): the signatures are the interface.

/// Which identity a rule's polarity uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Identity {
    /// Bytes as stored (allowances).
    Stored,
    /// Per component, compatibility caseless matching of the uppercase image (exclusions).
    Collision,
}

/// Whether `path` is `prefix` or lies beneath it, component-wise, under `identity`.
/// Both are absolute POSIX-style real paths.
pub fn path_within(identity: Identity, prefix: &str, path: &str) -> bool {
    let p: Vec<&str> = prefix.split('/').filter(|c| !c.is_empty()).collect();
    let q: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    if p.len() > q.len() {
        return false;
    }
    p.iter().zip(q.iter()).all(|(a, b)| match identity {
        Identity::Stored => a == b,
        Identity::Collision => collision_key(a) == collision_key(b),
    })
}

/// The Collision key of one component.
pub fn collision_key(component: &str) -> String {
    component.to_uppercase().to_lowercase()
}

/// The name key of a command (`sh`, `SH`, `ſh` are one name): the Collision key of its
/// final component.
pub fn command_name_key(name: &str) -> String {
    let last = name.rsplit(['/']).next().unwrap_or(name);
    collision_key(last)
}
