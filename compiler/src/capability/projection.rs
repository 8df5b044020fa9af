//! `SandboxProjection`: what every back end reads (spec §6), folded once from a
//! `GrantStack` (and the `Admitted` of a launch). Pure data, all paths real (resolved)
//! and sorted; the renderers turn it into a kernel plan. It never consults the disk.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SandboxProjection {
    /// `None`: the stack does not restrict the file system.
    pub fs: Option<FsProjection>,
    pub exec: ExecProjection,
    /// `true` when some layer is `` `offline ``.
    pub net_offline: bool,
}

/// The fs regions, real paths, sorted and deduplicated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FsProjection {
    /// Live positives of the read region (read ∪ write prefixes, run places).
    pub read: Vec<String>,
    /// Write prefixes.
    pub write: Vec<String>,
    /// The floor (spec §3.5) that exists on this host.
    pub floor: Vec<String>,
    /// Exclusions for reading and writing, re-resolved at projection time.
    pub deny: Vec<String>,
    /// Exclusions of writing only (a `--restrict` file's own path).
    pub write_deny: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ExecProjection {
    #[default]
    Unrestricted,
    Restricted(KernelExecRules),
}

/// The exec table as the kernel receives it (`ExecRules::for_kernel`): subcommand lists
/// are allows (the kernel cannot see arguments; the in-process guard checks them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KernelExecRules {
    pub allow_dirs: Vec<String>,
    pub allow_files: Vec<String>,
    pub deny_dirs: Vec<String>,
    pub deny_files: Vec<String>,
    /// Name vetoes, as name keys (Collision-folded).
    pub deny_names: Vec<String>,
}
