//! The program's environment: what crosses into the envelope. Every variable passes
//! unchanged except the loader-injection variables (always removed) and the session-agent
//! variables (`SSH_AUTH_SOCK`, `TMUX`, …), removed unless the socket or file each names is
//! shown in the envelope by the plan. Pure: it reads no environment and no disk itself.

use crate::plan::{within, Layer, LinuxPlan};
use serde::{Deserialize, Serialize};

/// Loader-injection variables: removed from every launch.
pub const LOADER_VARS: [&str; 3] = ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"];

/// Variables that point a program at the user's session agents and terminal
/// multiplexers (each names a socket or file on the host).
pub const AGENT_VARS: [&str; 8] = [
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "TMUX",
    "STY",
];

/// The environment handling, as the plan shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// What happens to every variable not listed below.
    pub passed: String,
    /// Removed from every launch.
    pub removed: Vec<String>,
    /// Removed unless the socket or file the value names is shown in the envelope.
    pub agents: Vec<String>,
}

impl Default for Environment {
    fn default() -> Environment {
        Environment::policy()
    }
}

impl Environment {
    /// The one policy.
    pub fn policy() -> Environment {
        Environment {
            passed: "every other variable, unchanged".to_string(),
            removed: LOADER_VARS.iter().map(|s| s.to_string()).collect(),
            agents: AGENT_VARS.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// The socket or file an agent variable's value names (`None`: nothing the envelope could
/// show, such as an abstract socket: the variable is removed).
pub fn agent_target(var: &str, value: &str, runtime_dir: Option<&str>) -> Option<String> {
    let abs = |p: &str| p.starts_with('/').then(|| p.to_string());
    match var {
        "SSH_AUTH_SOCK" | "XAUTHORITY" => abs(value),
        // path:pid:protocol
        "GPG_AGENT_INFO" => abs(value.split(':').next()?),
        // socket,pid,session
        "TMUX" => abs(value.split(',').next()?),
        // unix:path=/run/user/1000/bus[,guid=…]; abstract and tcp addresses name nothing.
        "DBUS_SESSION_BUS_ADDRESS" => value
            .split(';')
            .next()?
            .strip_prefix("unix:")?
            .split(',')
            .find_map(|kv| kv.strip_prefix("path="))
            .and_then(abs),
        // [host]:N[.screen] — a local display is the X socket /tmp/.X11-unix/XN.
        "DISPLAY" => {
            let (host, rest) = value.rsplit_once(':')?;
            if !(host.is_empty() || host == "unix") {
                return None;
            }
            let n = rest.split('.').next()?;
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .then(|| format!("/tmp/.X11-unix/X{n}"))
        }
        "WAYLAND_DISPLAY" => abs(value).or_else(|| {
            let dir = runtime_dir?.trim_end_matches('/');
            (!value.contains('/') && dir.starts_with('/')).then(|| format!("{dir}/{value}"))
        }),
        // screen's sockets live in its own directory (/run/screen/S-USER).
        "STY" => Some("/run/screen".to_string()),
        _ => None,
    }
}

/// Is `path` shown in the envelope: beneath a shown bind, and beneath no mask of the plan
/// nor of the launch (`masked`)?
pub fn shown(plan: &LinuxPlan, masked: &[String], path: &str) -> bool {
    let bound = plan
        .binds
        .iter()
        .any(|b| b.layer == Layer::Shown && !b.path.is_empty() && within(path, &b.path));
    let hidden = plan
        .masks
        .iter()
        .map(|m| m.path.as_str())
        .chain(masked.iter().map(String::as_str))
        .any(|m| within(path, m));
    bound && !hidden
}

/// The agent variables to remove from a launch, given the caller's values.
pub fn agents_to_remove(
    plan: &LinuxPlan,
    masked: &[String],
    get: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let runtime_dir = get("XDG_RUNTIME_DIR");
    AGENT_VARS
        .iter()
        .filter(|v| match get(v) {
            None => false,
            Some(value) => match agent_target(v, &value, runtime_dir.as_deref()) {
                Some(t) => !shown(plan, masked, &t),
                None => true,
            },
        })
        .map(|v| v.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_variable_names_its_socket() {
        assert_eq!(
            agent_target("TMUX", "/tmp/tmux-0/default,12,0", None).as_deref(),
            Some("/tmp/tmux-0/default")
        );
        assert_eq!(
            agent_target(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/run/user/1/bus,guid=x",
                None
            )
            .as_deref(),
            Some("/run/user/1/bus")
        );
        assert_eq!(
            agent_target(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:abstract=/tmp/dbus-x",
                None
            ),
            None
        );
        assert_eq!(
            agent_target("DISPLAY", ":0.0", None).as_deref(),
            Some("/tmp/.X11-unix/X0")
        );
        assert_eq!(agent_target("DISPLAY", "remote:10", None), None);
        assert_eq!(
            agent_target("WAYLAND_DISPLAY", "wayland-0", Some("/run/user/1")).as_deref(),
            Some("/run/user/1/wayland-0")
        );
        assert_eq!(agent_target("WAYLAND_DISPLAY", "wayland-0", None), None);
        assert_eq!(
            agent_target("GPG_AGENT_INFO", "/g/S.gpg-agent:1:1", None).as_deref(),
            Some("/g/S.gpg-agent")
        );
        assert_eq!(agent_target("SSH_AUTH_SOCK", "relative", None), None);
    }
}
