//! The one XDG base-directory resolver (spec §3.1): an absolute `XDG_<KIND>_HOME`
//! override, else the Linux default under home, on every OS; `runtime` has no home
//! default. Pure over an injected lookup; it answers `None` rather than fabricate a home.

use super::lex::{absolute_under, join_under, PathRules};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum XdgKind {
    Config,
    Data,
    Cache,
    State,
    Bin,
    Runtime,
}

impl XdgKind {
    pub const ALL: [XdgKind; 6] = [
        XdgKind::Config,
        XdgKind::Data,
        XdgKind::Cache,
        XdgKind::State,
        XdgKind::Bin,
        XdgKind::Runtime,
    ];
    pub fn parse(name: &str) -> Option<XdgKind> {
        XdgKind::ALL.into_iter().find(|k| k.name() == name)
    }
    pub fn name(self) -> &'static str {
        match self {
            XdgKind::Config => "config",
            XdgKind::Data => "data",
            XdgKind::Cache => "cache",
            XdgKind::State => "state",
            XdgKind::Bin => "bin",
            XdgKind::Runtime => "runtime",
        }
    }
    /// The overriding environment variable.
    pub fn var(self) -> &'static str {
        match self {
            XdgKind::Config => "XDG_CONFIG_HOME",
            XdgKind::Data => "XDG_DATA_HOME",
            XdgKind::Cache => "XDG_CACHE_HOME",
            XdgKind::State => "XDG_STATE_HOME",
            XdgKind::Bin => "XDG_BIN_HOME",
            XdgKind::Runtime => "XDG_RUNTIME_DIR",
        }
    }
    /// The default under home (`None` for `runtime`).
    pub fn home_default(self) -> Option<&'static str> {
        match self {
            XdgKind::Config => Some(".config"),
            XdgKind::Data => Some(".local/share"),
            XdgKind::Cache => Some(".cache"),
            XdgKind::State => Some(".local/state"),
            XdgKind::Bin => Some(".local/bin"),
            XdgKind::Runtime => None,
        }
    }
}

/// Where a base directory came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XdgSource {
    Override(&'static str),
    HomeDefault,
}

/// The base directory of `kind`: the override if set and absolute under `rules`, else the
/// default joined under `home` (when there is a home), else `None`.
pub fn resolve_xdg_in(
    kind: XdgKind,
    get: impl Fn(&str) -> Option<String>,
    home: Option<&str>,
    rules: PathRules,
) -> Option<(String, XdgSource)> {
    if let Some(v) = get(kind.var()).filter(|v| absolute_under(v, rules)) {
        return Some((v, XdgSource::Override(kind.var())));
    }
    let home = home.filter(|h| absolute_under(h, rules))?;
    let sub = kind.home_default()?;
    join_under(home, sub, rules)
        .ok()
        .map(|p| (p, XdgSource::HomeDefault))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_then_default() {
        let env = |k: &str| (k == "XDG_CONFIG_HOME").then(|| "/x/cfg".to_string());
        let r = resolve_xdg_in(XdgKind::Config, env, Some("/h"), PathRules::Posix).unwrap();
        assert_eq!(r.0, "/x/cfg");
        let rel = |k: &str| (k == "XDG_DATA_HOME").then(|| "rel".to_string());
        let r = resolve_xdg_in(XdgKind::Data, rel, Some("/h"), PathRules::Posix).unwrap();
        assert_eq!(r.0, "/h/.local/share");
        assert!(resolve_xdg_in(XdgKind::Runtime, |_| None, Some("/h"), PathRules::Posix).is_none());
        assert!(resolve_xdg_in(XdgKind::Cache, |_| None, None, PathRules::Posix).is_none());
    }
}
