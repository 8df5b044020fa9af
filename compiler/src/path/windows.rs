//! Windows path identity for the Windows back end: the canonical spelling a stamp is
//! keyed and hashed by (`\` separators, a `\\?\` verbatim prefix folded, `.`/`..` folded,
//! trailing dots and blanks trimmed from every name, the drive letter upper-cased), the
//! collision key that names a lock and a witness (every name by `identity::collision_key`,
//! coarser than NTFS's own upcase, so a lock merges every spelling NTFS equates), and the
//! refusals: not absolute, network (UNC) paths, device and NT object paths, reserved
//! device names, and the universal prefix (a drive or volume root).
//!
//! Pure: no I/O. It must never accept a path whose object it cannot name exactly, and
//! never fold case in the canonical spelling (capability names hash it as written).

use super::device::{reserved_device_name, win32_trimmed};
use super::identity::collision_key;
use super::lex::{fold_dots_under, parse_bytes, HeadKind, PathRules};

/// Why a path cannot be a Windows grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowsPathRefusal {
    /// Not an absolute drive or volume path.
    NotAbsolute,
    /// A network (UNC) path: a remote share's ACLs are not this machine's to stamp.
    Network,
    /// A `\\.\` device path or a `\??\` NT object path.
    Device,
    /// A name that is a DOS reserved device name (`NUL`, `CON`, `COM1`, …).
    ReservedDevice(String),
    /// A drive or volume root: the universal prefix under Windows rules.
    Universal,
}

impl WindowsPathRefusal {
    /// The refusal in words, naming `path`.
    pub fn message(&self, path: &str) -> String {
        match self {
            WindowsPathRefusal::NotAbsolute => {
                format!("`{path}` is not an absolute Windows drive or volume path")
            }
            WindowsPathRefusal::Network => format!(
                "`{path}` is a network (UNC) path: a share's ACLs cannot be stamped from here, \
                 so a network grant path is refused"
            ),
            WindowsPathRefusal::Device => {
                format!("`{path}` is a device or NT object path, not a file-system grant")
            }
            WindowsPathRefusal::ReservedDevice(n) => {
                format!("`{path}` holds `{n}`, a reserved device name, not a file or directory")
            }
            WindowsPathRefusal::Universal => format!(
                "`{path}` is a drive or volume root, the universal prefix under Windows rules: \
                 stamping it would grant the whole volume"
            ),
        }
    }
}

/// The canonical spelling of an absolute Windows path, or why it is refused.
pub fn canonical(path: &str) -> Result<String, WindowsPathRefusal> {
    let parsed = parse_bytes(path.as_bytes(), PathRules::Windows);
    if parsed.is_nt_object() {
        return Err(WindowsPathRefusal::Device);
    }
    match parsed.kind {
        HeadKind::Unc { volume: false } => return Err(WindowsPathRefusal::Network),
        HeadKind::Device => return Err(WindowsPathRefusal::Device),
        HeadKind::Drive { .. } | HeadKind::Unc { volume: true } => {}
        _ => return Err(WindowsPathRefusal::NotAbsolute),
    }
    let plain = String::from_utf8(parsed.without_verbatim_prefix())
        .map_err(|_| WindowsPathRefusal::NotAbsolute)?;
    let (head, rest) = match parsed.kind {
        HeadKind::Drive { letter } => {
            // `C:` and what follows it
            let rest = plain.get(2..).ok_or(WindowsPathRefusal::NotAbsolute)?;
            (format!("{}:", (letter as char).to_ascii_uppercase()), rest)
        }
        _ => {
            // `\\?\Volume{GUID}` and what follows it (the GUID is one name)
            let after = plain.get(4..).ok_or(WindowsPathRefusal::NotAbsolute)?;
            let end = after.find(['\\', '/']).unwrap_or(after.len());
            (format!("\\\\?\\{}", &after[..end]), &after[end..])
        }
    };
    // `.` and `..` folded under the head, then every name trimmed as Win32 trims it
    let folded = fold_dots_under(
        &format!("C:\\{}", rest.trim_start_matches(['\\', '/'])),
        PathRules::Windows,
    );
    let mut out = head;
    let mut names = 0;
    for name in folded[2..].split(['\\', '/']).filter(|n| !n.is_empty()) {
        let name = win32_trimmed(name);
        if name.is_empty() {
            // a name of dots and blanks only names its parent under Win32
            continue;
        }
        if let Some(dev) = reserved_device_name(name) {
            return Err(WindowsPathRefusal::ReservedDevice(dev));
        }
        out.push('\\');
        out.push_str(name);
        names += 1;
    }
    if names == 0 {
        return Err(WindowsPathRefusal::Universal);
    }
    Ok(out)
}

/// The collision key of a canonical path: its head upper-cased and each name by
/// `identity::collision_key`, joined with `\`. Two spellings NTFS takes for one object
/// always share it (it may merge more: a lock errs toward merging).
pub fn collision_key_of(canonical: &str) -> String {
    let mut parts = canonical.split('\\');
    // a volume head `\\?\Volume{…}` splits into "", "", "?", "Volume{…}"
    let mut out = String::new();
    if canonical.starts_with("\\\\?\\") {
        let _ = (parts.next(), parts.next(), parts.next());
        out.push_str("\\\\?\\");
        out.push_str(&parts.next().unwrap_or("").to_ascii_lowercase());
    } else {
        out.push_str(&parts.next().unwrap_or("").to_ascii_lowercase());
    }
    for name in parts {
        out.push('\\');
        out.push_str(&collision_key(name));
    }
    out
}

/// Whether `path` is `prefix` or lies beneath it, both canonical, names compared by
/// their collision keys (an exclusion holds under every spelling).
pub fn within_collision(prefix: &str, path: &str) -> bool {
    super::identity::path_within_under(
        super::identity::Identity::Collision,
        PathRules::Windows,
        prefix,
        path,
    )
}

/// Whether `path` is `prefix` or lies beneath it, both canonical, names as stored (an
/// allowance reaches only its own spelling).
pub fn within_stored(prefix: &str, path: &str) -> bool {
    super::identity::path_within_under(
        super::identity::Identity::Stored,
        PathRules::Windows,
        prefix,
        path,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_spelling() {
        let ok = |a: &str, b: &str| assert_eq!(canonical(a), Ok(b.to_string()), "{a}");
        ok("C:\\Users\\me\\proj", "C:\\Users\\me\\proj");
        ok("c:/Users/me/proj/", "C:\\Users\\me\\proj");
        ok("\\\\?\\C:\\Users\\me", "C:\\Users\\me");
        ok("C:\\Users\\me\\secret.txt. . ", "C:\\Users\\me\\secret.txt");
        ok("C:\\Users\\me.\\x", "C:\\Users\\me\\x");
        ok("C:\\a\\.\\b\\..\\c", "C:\\a\\c");
        ok("C:\\Users\\Me\\Proj", "C:\\Users\\Me\\Proj");
        ok(
            "\\\\?\\Volume{0b5d1c9e-1111-2222-3333-444455556666}\\data",
            "\\\\?\\Volume{0b5d1c9e-1111-2222-3333-444455556666}\\data",
        );
    }

    #[test]
    fn refusals() {
        let no = |a: &str, r: WindowsPathRefusal| assert_eq!(canonical(a), Err(r), "{a}");
        no("C:\\", WindowsPathRefusal::Universal);
        no("c:/", WindowsPathRefusal::Universal);
        no("C:\\..", WindowsPathRefusal::Universal);
        no("\\\\?\\C:\\", WindowsPathRefusal::Universal);
        no(
            "\\\\?\\Volume{0b5d1c9e-1111-2222-3333-444455556666}\\",
            WindowsPathRefusal::Universal,
        );
        no("\\\\srv\\share\\x", WindowsPathRefusal::Network);
        no("//srv/share/x", WindowsPathRefusal::Network);
        no("\\\\?\\UNC\\srv\\share\\x", WindowsPathRefusal::Network);
        no("\\\\.\\NUL", WindowsPathRefusal::Device);
        no("\\??\\C:\\x", WindowsPathRefusal::Device);
        no(
            "C:\\x\\NUL",
            WindowsPathRefusal::ReservedDevice("NUL".into()),
        );
        no(
            "C:\\x\\com1.txt",
            WindowsPathRefusal::ReservedDevice("COM1".into()),
        );
        no(
            "C:\\x\\Aux. .",
            WindowsPathRefusal::ReservedDevice("AUX".into()),
        );
        no("/home/me", WindowsPathRefusal::NotAbsolute);
        no("x\\y", WindowsPathRefusal::NotAbsolute);
        no("C:x", WindowsPathRefusal::NotAbsolute);
        for r in [
            WindowsPathRefusal::Universal,
            WindowsPathRefusal::Network,
            WindowsPathRefusal::NotAbsolute,
        ] {
            assert!(r.message("C:\\").contains("C:\\"));
        }
    }

    #[test]
    fn collision_keys_merge_what_ntfs_equates() {
        let k = |p: &str| collision_key_of(&canonical(p).expect("canonical"));
        assert_eq!(k("C:\\Users\\Me\\PROJ"), k("c:\\users\\me\\proj"));
        assert_eq!(k("C:\\x\\ÉTÉ"), k("C:\\x\\été"));
        assert_ne!(k("C:\\x\\a"), k("C:\\x\\b"));
        assert!(within_collision(
            "C:\\Users\\me\\.ssh",
            "C:\\USERS\\ME\\.SSH\\id"
        ));
        assert!(!within_stored(
            "C:\\Users\\me\\.ssh",
            "C:\\USERS\\ME\\.SSH\\id"
        ));
        assert!(within_stored("C:\\Users\\me", "C:\\Users\\me\\.ssh"));
        assert!(!within_stored("C:\\Users\\me", "C:\\Users\\meow"));
    }
}
