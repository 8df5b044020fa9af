//! `WindowsPlan`: what the Windows back end renders from a `SandboxProjection` and the
//! launch applies — one capability per (canonical path, kind) grant, its SIDs, the ACE
//! and the Low integrity label it stamps, the exclusions checked at each launch, whether
//! the network capabilities are granted, and the Job Object's process cap. Versioned
//! serde data; also the `Lister` seam the carve planner reads directories through.
//!
//! Pure data: it must never touch the disk or the OS. The stamps are sorted by path, then
//! kind, so the same projection renders the same bytes.

use super::sid::{derive_capability_sids, fs_capability_name};
use serde::{Deserialize, Serialize};

pub const WINDOWS_PLAN_VERSION: u32 = 1;

/// The Job Object's cap on the confined tree's live processes.
pub const JOB_PROCESS_CAP: u32 = 512;

/// What a stamp grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GrantKind {
    /// Read, write, create, delete: an inheritable ACE and the Low label.
    Rw,
    /// Read and execute: an inheritable ACE.
    Ro,
    /// The directory's own listing only: an ACE nothing inherits.
    Ls,
}

impl GrantKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantKind::Rw => "rw",
            GrantKind::Ro => "ro",
            GrantKind::Ls => "ls",
        }
    }
    /// The ACE's access mask. `rw`: FILE_GENERIC_READ | FILE_GENERIC_WRITE |
    /// FILE_GENERIC_EXECUTE | DELETE | FILE_DELETE_CHILD (Explorer's "Modify" plus
    /// delete-child); `ro`: FILE_GENERIC_READ | FILE_GENERIC_EXECUTE; `ls`:
    /// FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE.
    pub fn access_mask(self) -> u32 {
        match self {
            GrantKind::Rw => 0x0012_01bf | 0x0001_0000 | 0x40,
            GrantKind::Ro => 0x0012_00a9,
            GrantKind::Ls => 0x0010_00a1,
        }
    }
    /// Whether the ACE is inherited by what lies beneath (OBJECT_INHERIT | CONTAINER_INHERIT).
    pub fn inherits(self) -> bool {
        !matches!(self, GrantKind::Ls)
    }
    /// Whether the object needs the Low mandatory label: a Low-integrity child may not
    /// write up to an unlabelled (Medium) object whatever its DACL says.
    pub fn needs_low_label(self) -> bool {
        matches!(self, GrantKind::Rw)
    }
}

/// The Low mandatory label a writable grant stamps (SDDL, for the reader: the launch
/// builds the ACE itself): `S:(ML;OICI;NW;;;LW)`.
pub const LOW_LABEL_SDDL: &str = "S:(ML;OICI;NW;;;LW)";

/// One (canonical path, kind) grant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Stamp {
    /// The canonical Windows path (`C:\…`).
    pub path: String,
    pub kind: GrantKind,
    /// `ral.fs.<kind>.<32 hex>`.
    pub capability: String,
    pub sid: String,
    pub group_sid: String,
    /// The ACE is inheritable (`rw`, `ro`) or the directory's own (`ls`).
    pub inherit: bool,
    /// The ACE's access mask.
    pub access: u32,
    /// The Low integrity label is stamped too (`rw`).
    pub low_label: bool,
    /// The collision key of the path (spec §3.6), which names its lock and its witness.
    pub lock: String,
}

impl Stamp {
    /// The stamp of `kind` on `path`, its capability derived from the path as written.
    pub fn new(path: &str, kind: GrantKind, lock: String) -> Stamp {
        let capability = fs_capability_name(kind.as_str(), path);
        let sids = derive_capability_sids(&capability);
        Stamp {
            path: path.to_string(),
            kind,
            capability,
            sid: sids.sid,
            group_sid: sids.group_sid,
            inherit: kind.inherits(),
            access: kind.access_mask(),
            low_label: kind.needs_low_label(),
            lock,
        }
    }
}

/// Whether the network capability SIDs go into the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// `` `offline ``: no network capability, so the child cannot open a socket.
    Withheld,
    Granted,
}

/// The legacy network capability SIDs a non-offline launch carries: internetClient,
/// internetClientServer, privateNetworkClientServer.
pub const NETWORK_CAPABILITY_SIDS: [&str; 3] = ["S-1-15-3-1", "S-1-15-3-2", "S-1-15-3-3"];

/// An allowance the carve replaced by its entries, for the reader and the launch.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Carve {
    /// The allowance as the projection held it.
    pub allowance: String,
    pub kind: GrantKind,
    /// The exclusions carved out of it.
    pub exclusions: Vec<String>,
    /// Whether its directories were listed where the plan was rendered (a plan rendered
    /// off Windows lists nothing: the launch carves again over the real disk).
    pub listed: bool,
}

/// The Windows plan: the JSON `ralc render --target windows` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowsPlan {
    pub version: u32,
    pub stamps: Vec<Stamp>,
    /// Why the plan cannot be applied (empty: it can).
    pub refused: Vec<String>,
    pub network: Network,
    /// Whether the launch runs the program in an AppContainer (false: the stack leaves
    /// the file system unrestricted, and the child runs in the Job Object only).
    pub confined: bool,
    /// The capability SIDs of the network, when granted.
    pub network_sids: Vec<String>,
    /// The exclusions: no ACE is stamped for them, and each launch checks with
    /// `AuthzAccessCheck` that the child's token is granted no right on any of them.
    pub exclusions: Vec<String>,
    /// The write exclusions (`deny_write`, `--restrict` files): they may be stamped
    /// read-only, and each launch checks that the child's token is granted no right that
    /// writes, deletes or re-permissions them.
    #[serde(default)]
    pub write_exclusions: Vec<String>,
    pub carves: Vec<Carve>,
    /// The program image, granted read-only (empty when the plan launches nothing).
    pub program: String,
    /// The Job Object's cap on live processes.
    pub job_process_cap: u32,
    /// Where the plan is broader or narrower than the grant, in words.
    pub fidelity: Vec<String>,
}

impl WindowsPlan {
    /// An empty plan of this version (nothing stamped, network granted).
    pub fn empty() -> WindowsPlan {
        WindowsPlan {
            version: WINDOWS_PLAN_VERSION,
            stamps: vec![],
            refused: vec![],
            network: Network::Granted,
            confined: false,
            network_sids: vec![],
            exclusions: vec![],
            write_exclusions: vec![],
            carves: vec![],
            program: String::new(),
            job_process_cap: JOB_PROCESS_CAP,
            fidelity: vec![],
        }
    }
    /// The capability SIDs the child's token carries: each stamp's, then the network's.
    pub fn token_capabilities(&self) -> Vec<String> {
        let mut v: Vec<String> = self.stamps.iter().map(|s| s.sid.clone()).collect();
        v.extend(self.network_sids.iter().cloned());
        v
    }
    pub fn to_json(&self) -> String {
        // A plan of strings, numbers and enums always serialises.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
    /// Parse a plan, refusing another version.
    pub fn from_json(text: &str) -> Result<WindowsPlan, String> {
        let plan: WindowsPlan =
            serde_json::from_str(text).map_err(|e| format!("not a Windows plan: {e}"))?;
        if plan.version != WINDOWS_PLAN_VERSION {
            return Err(format!(
                "Windows plan version {} (this ralc reads version {WINDOWS_PLAN_VERSION})",
                plan.version
            ));
        }
        Ok(plan)
    }
}

/// What a directory entry is, as seen without following it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    Dir,
    File,
    /// A reparse point (symlink, junction, mount point): neither granted nor followed.
    Link,
}

/// A directory lister, injected into the carve planner: the live disk at a launch, an
/// in-memory tree in tests, nothing off Windows.
pub trait Lister {
    /// The entries of the directory `dir` (names only), or why it cannot be listed.
    fn list(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, ListError>;
}

/// The lister of a host that cannot see the target's disk (a plan rendered off Windows).
#[derive(Clone, Copy, Debug, Default)]
pub struct OffHost;

impl Lister for OffHost {
    fn list(&self, _dir: &str) -> Result<Vec<(String, EntryKind)>, ListError> {
        Err(ListError::Unavailable)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListError {
    /// This host cannot list that disk (a plan rendered off Windows).
    Unavailable,
    /// The directory is missing.
    Missing,
    /// It exists and cannot be read: the carve refuses (fail closed).
    Unreadable(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_their_ace_shape() {
        assert!(GrantKind::Rw.inherits() && GrantKind::Ro.inherits());
        assert!(!GrantKind::Ls.inherits());
        assert!(GrantKind::Rw.needs_low_label() && !GrantKind::Ro.needs_low_label());
        // ls grants no read of file data (FILE_READ_DATA is FILE_LIST_DIRECTORY on a
        // directory only) and no write
        assert_eq!(GrantKind::Ls.access_mask() & 0x2, 0);
        assert_eq!(GrantKind::Ro.access_mask() & 0x2, 0, "ro grants no write");
        assert_eq!(GrantKind::Rw.access_mask() & 0x2, 0x2);
    }

    #[test]
    fn stamps_derive_their_capability() {
        let s = Stamp::new(
            "C:\\Users\\me\\proj",
            GrantKind::Rw,
            "c:\\users\\me\\proj".into(),
        );
        assert!(s.capability.starts_with("ral.fs.rw."));
        assert!(s.sid.starts_with("S-1-15-3-1024-"));
        assert!(s.group_sid.starts_with("S-1-5-32-"));
        assert_eq!(
            derive_capability_sids(&s.capability).sid,
            s.sid,
            "the SID is the capability name's"
        );
    }

    #[test]
    fn version_is_checked() {
        let mut plan = WindowsPlan::empty();
        plan.stamps
            .push(Stamp::new("C:\\x", GrantKind::Ro, "c:\\x".into()));
        let back = WindowsPlan::from_json(&plan.to_json());
        assert_eq!(back, Ok(plan.clone()));
        plan.version = 2;
        assert!(WindowsPlan::from_json(&plan.to_json()).is_err());
    }

    #[test]
    fn the_token_carries_stamps_then_network() {
        let mut plan = WindowsPlan::empty();
        plan.stamps
            .push(Stamp::new("C:\\x", GrantKind::Ro, "c:\\x".into()));
        plan.network_sids = NETWORK_CAPABILITY_SIDS
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(plan.token_capabilities().len(), 4);
    }
}
