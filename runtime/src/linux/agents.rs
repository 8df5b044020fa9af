//! The host's session agents and daemons in a tree the envelope shows: the user's tmux,
//! screen, ssh-agent, gpg-agent and X directories directly inside a shown writable
//! directory, and every unix socket at any depth of a shown tree (`sockets_below`), are
//! masked, so a program cannot reach a host daemon by guessing the path. It only lists
//! directories (no symlink followed, within a budget of entries); it never opens,
//! connects to or changes anything.

use std::os::unix::fs::FileTypeExt;

/// Directory names (prefixes) the session agents make in a temp dir.
const AGENT_DIRS: [&str; 7] = [
    "tmux-",
    "ssh-",
    "gpg-",
    "screen",
    ".X11-unix",
    ".ICE-unix",
    "dbus-",
];

/// Is a child of a shown writable directory an agent's place: a directory named as the
/// agents name theirs, or a socket?
pub fn is_agent_entry(name: &str, is_dir: bool, is_socket: bool) -> bool {
    is_socket || (is_dir && AGENT_DIRS.iter().any(|p| name.starts_with(p)))
}

/// The agent places directly inside `dir` (real paths, sorted).
pub fn in_dir(dir: &str) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = rd
        .flatten()
        .filter_map(|e| {
            let t = e.file_type().ok()?;
            let name = e.file_name().into_string().ok()?;
            is_agent_entry(&name, t.is_dir(), t.is_socket())
                .then(|| format!("{}/{name}", dir.trim_end_matches('/')))
        })
        .collect();
    out.sort();
    out
}

/// How many directory entries one launch lists in search of sockets, over every
/// writable tree.
pub const SOCKET_BUDGET: usize = 200_000;
/// ... and over every read-only tree the profile grants (a socket there is reachable
/// too: `connect` needs no write access to a read-only mount).
pub const READ_SOCKET_BUDGET: usize = 60_000;

/// Where the system's installed files live: read-only trees never searched for sockets
/// (no daemon listens there; they are large).
pub const INSTALL_TREES: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/nix",
    "/snap", "/boot",
];

/// What `sockets_below` found: the sockets (real paths, sorted), and the directories it
/// could not finish (budget spent or unreadable), for the launch's note.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SocketSearch {
    pub sockets: Vec<String>,
    pub unfinished: Vec<String>,
}

/// Every unix socket at any depth below `dir`, no symlink followed, breadth first (a
/// daemon's socket is seldom deep), stopping when `budget` entries have been listed (it
/// is decremented by what this call lists).
pub fn sockets_below(dir: &str, budget: &mut usize, out: &mut SocketSearch) {
    let mut stack = std::collections::VecDeque::from([dir.trim_end_matches('/').to_string()]);
    while let Some(d) = stack.pop_front() {
        if *budget == 0 {
            out.unfinished.push(d);
            continue;
        }
        let Ok(rd) = std::fs::read_dir(if d.is_empty() { "/" } else { &d }) else {
            continue;
        };
        for e in rd.flatten() {
            if *budget == 0 {
                out.unfinished.push(d.clone());
                break;
            }
            *budget -= 1;
            let (Ok(t), Some(name)) = (e.file_type(), e.file_name().to_str().map(str::to_string))
            else {
                continue;
            };
            let path = format!("{d}/{name}");
            if t.is_socket() {
                out.sockets.push(path);
            } else if t.is_dir() {
                stack.push_back(path);
            }
        }
    }
    out.sockets.sort();
    out.sockets.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_dirs_and_sockets_are_found_and_nothing_else() {
        assert!(is_agent_entry("tmux-1000", true, false));
        assert!(is_agent_entry("ssh-XXXXabcd", true, false));
        assert!(is_agent_entry(".s.PGSQL.5432", false, true));
        assert!(!is_agent_entry("tmux-notes.txt", false, false));
        assert!(!is_agent_entry("build", true, false));
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap();
        std::fs::create_dir(format!("{root}/tmux-0")).unwrap();
        std::fs::create_dir(format!("{root}/work")).unwrap();
        let _l = std::os::unix::net::UnixListener::bind(format!("{root}/daemon.sock")).unwrap();
        assert_eq!(
            in_dir(root),
            vec![format!("{root}/daemon.sock"), format!("{root}/tmux-0")]
        );
    }

    #[test]
    fn sockets_are_found_at_any_depth_and_the_budget_is_reported() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/build/run/deeper")).unwrap();
        std::fs::write(format!("{root}/build/run/plain"), "x").unwrap();
        let _a =
            std::os::unix::net::UnixListener::bind(format!("{root}/build/run/d.sock")).unwrap();
        let _b =
            std::os::unix::net::UnixListener::bind(format!("{root}/build/run/deeper/e")).unwrap();
        let mut budget = 1000;
        let mut found = SocketSearch::default();
        sockets_below(root, &mut budget, &mut found);
        assert_eq!(
            found.sockets,
            vec![
                format!("{root}/build/run/d.sock"),
                format!("{root}/build/run/deeper/e")
            ]
        );
        assert!(found.unfinished.is_empty());
        let mut tiny = 2;
        let mut partial = SocketSearch::default();
        sockets_below(root, &mut tiny, &mut partial);
        assert_eq!(tiny, 0);
        assert!(!partial.unfinished.is_empty(), "{partial:?}");
    }
}
