//! The host's session agents in a directory the envelope shows writable (the temp dir
//! above all): the user's tmux, screen, ssh-agent, gpg-agent and X directories and any
//! socket directly inside are masked, so a program cannot reach them by guessing the path.
//! It only lists one directory level; it never opens, connects to or changes anything.

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
}
