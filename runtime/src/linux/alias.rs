//! Aliases of an exclusion: another name under which the envelope would show an object it
//! masks — a regular file with more than one hard link, or a mount of it (a bind mount) at
//! another mount point. A mask hides one name; the launch refuses when another exists
//! (fail closed). It only looks (fstat on the mask's handle, the host's mount table, a
//! stat per mount point); it never changes anything.

use super::refusal::Refusal;
use std::os::fd::{AsRawFd, BorrowedFd};

/// The identity of an open object: device and inode, and its hard-link count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ident {
    pub dev: u64,
    pub ino: u64,
    pub nlink: u64,
    pub regular: bool,
}

/// The identity of the object behind an open handle.
pub fn ident(fd: BorrowedFd<'_>) -> std::io::Result<Ident> {
    // SAFETY: a zeroed stat is a valid out-parameter; fstat on an open handle (O_PATH
    // handles are accepted since Linux 3.6).
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Ident {
        dev: st.st_dev,
        ino: st.st_ino,
        nlink: st.st_nlink,
        regular: st.st_mode & libc::S_IFMT == libc::S_IFREG,
    })
}

/// A regular file masked by name that has other hard links: each is a name the mask does
/// not cover.
pub fn check_links(path: &str, id: Ident) -> Result<(), Refusal> {
    if id.regular && id.nlink > 1 {
        return Err(Refusal::AliasedExclusion {
            path: path.to_string(),
            why: format!(
                "it is a file with {} hard links; remove the others, or exclude their directory",
                id.nlink
            ),
        });
    }
    Ok(())
}

/// The mount points of this process's mount namespace, unescaped (`\040` → space).
pub fn mount_points(mountinfo: &str) -> Vec<String> {
    mountinfo
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(unescape)
        .collect()
}

fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A mount at another mount point, shown by the envelope (`shown`), whose root is a masked
/// object or one of its ancestor directories: the object is reachable there (at the mount
/// point itself, or beneath it at the masked path's remainder). `masked` pairs each masked path with its
/// identity; `stat` gives the identity at a mount point (`None`: unreachable).
pub fn check_mounts(
    masked: &[(String, Ident)],
    points: &[String],
    shown: impl Fn(&str) -> bool,
    stat: impl Fn(&str) -> Option<(u64, u64)>,
) -> Result<(), Refusal> {
    if masked.is_empty() {
        return Ok(());
    }
    // Each masked object's ancestors, by identity, with the remainder below each.
    let mut ancestors: Vec<(&str, String, (u64, u64))> = Vec::new();
    for (m, _) in masked {
        let mut a = m.as_str();
        while let Some(i) = a.rfind('/') {
            a = if i == 0 { "/" } else { &a[..i] };
            if let Some(id) = stat(a) {
                let rest = if a == "/" { &m[1..] } else { &m[a.len() + 1..] };
                ancestors.push((m.as_str(), rest.to_string(), id));
            }
            if a == "/" {
                break;
            }
        }
    }
    for mp in points {
        if masked.iter().any(|(m, _)| m == mp) {
            continue;
        }
        let Some((dev, ino)) = stat(mp) else { continue };
        if shown(mp) {
            if let Some((m, _)) = masked.iter().find(|(_, id)| id.dev == dev && id.ino == ino) {
                return Err(Refusal::AliasedExclusion {
                    path: m.clone(),
                    why: format!("it is mounted again at {mp}"),
                });
            }
        }
        for (m, rest, id) in &ancestors {
            if *id != (dev, ino) {
                continue;
            }
            let alias = if mp == "/" {
                format!("/{rest}")
            } else {
                format!("{mp}/{rest}")
            };
            if alias == *m || !shown(&alias) {
                continue;
            }
            return Err(Refusal::AliasedExclusion {
                path: m.to_string(),
                why: format!(
                    "a directory above it is mounted again at {mp}, which shows it as {alias}; exclude {alias} too, or leave {mp} ungranted"
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(ino: u64, nlink: u64) -> Ident {
        Ident {
            dev: 7,
            ino,
            nlink,
            regular: true,
        }
    }

    #[test]
    fn a_second_hard_link_refuses() {
        assert!(check_links("/w/secret", id(1, 1)).is_ok());
        let e = check_links("/w/secret", id(1, 2)).unwrap_err().to_string();
        assert!(e.contains("/w/secret") && e.contains("2 hard links"), "{e}");
        // A directory's link count is its subdirectories: never an alias.
        let dir = Ident {
            regular: false,
            ..id(1, 5)
        };
        assert!(check_links("/w/d", dir).is_ok());
    }

    #[test]
    fn mount_points_are_unescaped() {
        let mi = "36 35 98:0 /mnt1 /mnt/a\\040b rw,noatime master:1 - ext3 /dev/root rw\n\
                  37 35 98:0 / / rw - ext4 /dev/sda rw\n";
        assert_eq!(mount_points(mi), vec!["/mnt/a b", "/"]);
    }

    #[test]
    fn a_mount_of_a_masked_object_elsewhere_refuses() {
        let masked = vec![("/w/secret".to_string(), id(42, 1))];
        let points = vec![
            "/".to_string(),
            "/w/secret".to_string(),
            "/w/alias".to_string(),
        ];
        let stat = |p: &str| match p {
            "/w/alias" | "/w/secret" => Some((7, 42)),
            "/" => Some((7, 1)),
            "/w" => Some((7, 3)),
            _ => Some((7, 2)),
        };
        let e = check_mounts(&masked, &points, |_| true, stat)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/w/secret") && e.contains("/w/alias"), "{e}");
        // Not shown in the envelope: no alias there.
        assert!(check_mounts(&masked, &points, |p| p != "/w/alias", stat).is_ok());
    }

    #[test]
    fn a_mount_of_an_ancestor_of_a_masked_object_refuses() {
        let masked = vec![("/home/u/.ssh".to_string(), id(42, 1))];
        let points = vec!["/".to_string(), "/mnt/home".to_string()];
        // /mnt/home is /home mounted again.
        let stat = |p: &str| match p {
            "/" => Some((7, 2)),
            "/home" | "/mnt/home" => Some((7, 10)),
            "/home/u" => Some((7, 11)),
            "/home/u/.ssh" => Some((7, 42)),
            _ => None,
        };
        let e = check_mounts(&masked, &points, |_| true, stat)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/mnt/home/u/.ssh"), "{e}");
        // The alias not shown (its region masked or ungranted): nothing to refuse.
        assert!(check_mounts(&masked, &points, |p| !p.starts_with("/mnt"), stat).is_ok());
        // No other mount of an ancestor: the root's own mount is no alias.
        assert!(check_mounts(&masked, &points[..1], |_| true, stat).is_ok());
    }
}
