//! The SIDs Windows derives from names, computed in pure Rust so a plan can be rendered
//! and tested on any host (Wine does not export `DeriveCapabilitySidsFromName`):
//! a capability's SID and group SID (`DeriveCapabilitySidsFromName`) and an
//! AppContainer's SID (`DeriveAppContainerSidFromAppContainerName`).
//!
//! Pure: no I/O, no OS call. It must never case-fold beyond Windows' own 1:1 upper-casing
//! (a full mapping such as ß → SS would name a different capability).

use sha2::{Digest, Sha256};

/// A capability's two SIDs as `DeriveCapabilitySidsFromName` returns them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapabilitySids {
    /// `S-1-15-3-1024-r1-…-r8` (APP_PACKAGE authority, capability RIDs).
    pub sid: String,
    /// `S-1-5-32-r1-…-r8` (NT authority, BUILTIN, the same RIDs).
    pub group_sid: String,
}

/// Windows' upper-casing of a name for the derivation: one UTF-16 unit to one unit
/// (`RtlUpcaseUnicodeString`); a character whose upper case is not a single BMP character
/// (ß, ŉ, ligatures) and every supplementary-plane character stays as it is.
pub fn upcase_1to1(name: &str) -> String {
    name.chars()
        .map(|c| {
            if (c as u32) > 0xFFFF {
                return c;
            }
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) if (u as u32) <= 0xFFFF => u,
                _ => c,
            }
        })
        .collect()
}

/// The little-endian u32 words of SHA-256 over the UTF-16LE bytes of `text` (no
/// terminator).
fn digest_words(text: &str) -> [u32; 8] {
    let mut h = Sha256::new();
    for unit in text.encode_utf16() {
        h.update(unit.to_le_bytes());
    }
    let d = h.finalize();
    let mut words = [0u32; 8];
    for (i, w) in words.iter_mut().enumerate() {
        *w = u32::from_le_bytes([d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]]);
    }
    words
}

fn join(prefix: &str, words: &[u32]) -> String {
    let mut s = prefix.to_string();
    for w in words {
        s.push('-');
        s.push_str(&w.to_string());
    }
    s
}

/// The derivation of `DeriveCapabilitySidsFromName` for a name that is not one of the
/// twelve legacy capabilities with fixed SIDs (`S-1-15-3-1` … `-12`); ralc's own names
/// (`ral.fs.…`) never are.
pub fn derive_capability_sids(name: &str) -> CapabilitySids {
    let words = digest_words(&upcase_1to1(name));
    CapabilitySids {
        sid: join("S-1-15-3-1024", &words),
        group_sid: join("S-1-5-32", &words),
    }
}

/// The AppContainer SID of a profile name: `S-1-15-2-` and the first seven words of
/// SHA-256 over the UTF-16LE lower-cased name.
pub fn derive_appcontainer_sid(name: &str) -> String {
    let lower: String = name
        .chars()
        .map(|c| {
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(u), None) if (c as u32) <= 0xFFFF && (u as u32) <= 0xFFFF => u,
                _ => c,
            }
        })
        .collect();
    join("S-1-15-2", &digest_words(&lower)[..7])
}

/// The capability name of a file-system grant: `ral.fs.<kind>.<hex of the first 16 bytes
/// of SHA-256 over the UTF-8 canonical path>`, the path hashed as written, never folded.
pub fn fs_capability_name(kind: &str, canonical_path: &str) -> String {
    let d = Sha256::digest(canonical_path.as_bytes());
    let mut s = format!("ral.fs.{kind}.");
    for b in &d[..16] {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The SID string's sub-authorities, for building a binary SID (`S-1-<authority>-…`).
/// `None` when the text is not a SID of this shape.
pub fn parse_sid(text: &str) -> Option<(u64, Vec<u32>)> {
    let mut parts = text.strip_prefix("S-1-")?.split('-');
    let authority: u64 = parts.next()?.parse().ok()?;
    let subs: Option<Vec<u32>> = parts.map(|p| p.parse().ok()).collect();
    let subs = subs?;
    (!subs.is_empty() && subs.len() <= 15 && authority < (1 << 48)).then_some((authority, subs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published name → SID pairs, each read from a real Windows machine:
    /// - `registryRead`, `lpacAppExperience`: Chromium's
    ///   `chrome/browser/resources/sandbox_internals/sandbox_internals_win.ts`
    ///   (WELL_KNOWN_SIDS); `registryRead` also appears in the DISA STIG for Windows 11
    ///   (HKLM permissions, "currently not a finding") and in `accesschk -k hklm\software`
    ///   dumps.
    /// - `lpacCom`: the LPAC capability list of Microsoft's `LaunchAppContainer` sample
    ///   README (`S-1-15-3-1024-2405443489-…-991631256;<registryRead>`), and
    ///   `../shared/design/cross-targets.md` §4.
    const PUBLISHED: &[(&str, &str)] = &[
        (
            "registryRead",
            "S-1-15-3-1024-1065365936-1281604716-3511738428-1654721687-432734479-3232135806-4053264122-3456934681",
        ),
        (
            "lpacAppExperience",
            "S-1-15-3-1024-1502825166-1963708345-2616377461-2562897074-4192028372-3968301570-1997628692-1435953622",
        ),
        (
            "lpacCom",
            "S-1-15-3-1024-2405443489-874036122-4286035555-1823921565-1746547431-2453885448-3625952902-991631256",
        ),
    ];

    #[test]
    fn published_capability_sids_reproduce() {
        for (name, sid) in PUBLISHED {
            assert_eq!(derive_capability_sids(name).sid, *sid, "{name}");
        }
    }

    #[test]
    fn group_sid_shares_the_rids_under_builtin() {
        for (name, sid) in PUBLISHED {
            let g = derive_capability_sids(name).group_sid;
            let rids = sid
                .strip_prefix("S-1-15-3-1024")
                .expect("capability prefix");
            assert_eq!(g, format!("S-1-5-32{rids}"));
        }
    }

    #[test]
    fn the_derivation_ignores_case_one_to_one() {
        assert_eq!(
            derive_capability_sids("registryread"),
            derive_capability_sids("REGISTRYREAD")
        );
        // ß has no single-character upper case: it is kept, so it differs from SS.
        assert_ne!(
            derive_capability_sids("straße"),
            derive_capability_sids("STRASSE")
        );
        assert_eq!(upcase_1to1("straße"), "STRAßE");
        assert_eq!(upcase_1to1("é𐐨"), "É𐐨");
    }

    /// The AppContainer SID of Microsoft Edge's package family name, as published in
    /// public ACL dumps and `../shared/design/cross-targets.md` §4.
    #[test]
    fn published_appcontainer_sid_reproduces() {
        assert_eq!(
            derive_appcontainer_sid("Microsoft.MicrosoftEdge_8wekyb3d8bbwe"),
            "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-737981194"
        );
    }

    #[test]
    fn capability_names_hash_the_path_as_written() {
        let a = fs_capability_name("rw", "C:\\Users\\me\\proj");
        let b = fs_capability_name("rw", "C:\\Users\\me\\PROJ");
        assert_ne!(a, b);
        assert!(a.starts_with("ral.fs.rw."));
        assert_eq!(a.len(), "ral.fs.rw.".len() + 32);
        assert!(a["ral.fs.rw.".len()..]
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        // SHA-256("") begins e3b0c442 98fc1c14 9afbf4c8 996fb924
        assert_eq!(
            fs_capability_name("ls", ""),
            "ral.fs.ls.e3b0c44298fc1c149afbf4c8996fb924"
        );
    }

    #[test]
    fn sid_text_parses() {
        assert_eq!(parse_sid("S-1-15-3-1"), Some((15, vec![3, 1])));
        assert_eq!(parse_sid("S-1-16-4096"), Some((16, vec![4096])));
        assert_eq!(parse_sid("S-1-15"), None);
        assert_eq!(parse_sid("S-2-15-3"), None);
        assert_eq!(parse_sid("S-1-15-x"), None);
    }
}
