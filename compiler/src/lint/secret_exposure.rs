//! `secret-exposure`: a well-known secret store readable under a restricted fs while the
//! network is not `` `offline `` (one table, below). Judged on real paths against the home
//! and `xdg:config` the freeze resolved.

use super::judge::at;
use super::{Finding, Level, Lint, LintInfo, LintInput};

/// The well-known secret stores: `(base, sub-path)`, base `~` or `xdg:config`.
pub const SECRET_STORES: &[(&str, &str)] = &[
    ("~", ".ssh"),
    ("~", ".gnupg"),
    ("~", ".aws"),
    ("~", ".azure"),
    ("~", ".kube/config"),
    ("~", ".docker/config.json"),
    ("~", ".netrc"),
    ("~", ".git-credentials"),
    ("~", ".npmrc"),
    ("~", ".pypirc"),
    ("~", ".cargo/credentials.toml"),
    ("~", ".cargo/credentials"),
    ("~", ".password-store"),
    ("~", ".vault-token"),
    ("xdg:config", "gh"),
    ("xdg:config", "gcloud"),
    ("xdg:config", "hub"),
];

pub static INFO: LintInfo = LintInfo {
    name: "secret-exposure",
    default_level: Level::Warn,
    authoring: false,
    summary: "a well-known secret store is readable while the network is available",
    what: "Reports each well-known secret store (`~/.ssh`, `~/.gnupg`, `~/.aws`, `~/.azure`, `~/.kube/config`, `~/.docker/config.json`, `~/.netrc`, `~/.git-credentials`, `~/.npmrc`, `~/.pypirc`, `~/.cargo/credentials.toml`, `~/.cargo/credentials`, `~/.password-store`, `~/.vault-token`, `xdg:config/gh`, `xdg:config/gcloud`, `xdg:config/hub`) that a restricted fs leaves readable while no layer is `` `offline ``, naming the read entry that reaches it. A stack that does not restrict the file system is not judged here (it reads everything by choice).",
    why: "A program that can read a credential and reach the network can send it anywhere.",
    example: "[\n  fs: [read: ['~']],\n]",
    fix: "Exclude the stores (`deny: ['~/.ssh', …]`, as `std:reasonable` does), read narrower directories, or add ``net: `offline``.",
};

pub struct SecretExposure;

impl Lint for SecretExposure {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        if input.layers.iter().any(|l| l.net.is_some()) {
            return;
        }
        let s = input.index();
        if !s.fs_restricted() {
            return;
        }
        for (base, sub) in SECRET_STORES {
            let root = match *base {
                "~" => input.places.home.as_ref(),
                _ => input.places.xdg_config.as_ref(),
            };
            let Some(root) = root else { continue };
            let path = format!("{}/{}", root.as_str().trim_end_matches('/'), sub);
            if let Some(Some(e)) = s.readable(&path) {
                out.push(
                    super::finding(
                        format!(
                            "the secret store `{base}/{sub}` is readable through `{}` ({}) while the network is not offline",
                            e.written,
                            at(&e)
                        ),
                        Some(e.span),
                    )
                    .with_note(format!("judged on `{path}`"))
                    .with_help(format!("add `'{base}/{sub}'` to `deny`, or ``net: `offline``")),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::{check_with, LayerBuilder};
    use crate::lint::Places;

    fn places() -> Places {
        crate::lint::testkit::test_places()
    }

    #[test]
    fn fires_on_a_readable_store_while_online() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .read_real("~", "/home/u")
            .deny("/home/u/.ssh")
            .deny("/home/u/.gnupg")
            .build(&mut sm)];
        let f = check_with(&SecretExposure, &layers, &sm, &places());
        assert!(f.iter().any(|f| f.message.contains("`~/.aws`")));
        assert!(f.iter().any(|f| f.message.contains("`xdg:config/gh`")));
        assert!(!f.iter().any(|f| f.message.contains("`~/.ssh`")));
        assert!(!f.iter().any(|f| f.message.contains("`~/.gnupg`")));
    }

    #[test]
    fn is_silent_offline_or_when_stores_are_out_of_reach() {
        let mut sm = SourceMap::new();
        let offline = vec![LayerBuilder::new("a.ral")
            .read("/home/u")
            .offline()
            .build(&mut sm)];
        assert!(check_with(&SecretExposure, &offline, &sm, &places()).is_empty());
        let narrow = vec![LayerBuilder::new("b.ral")
            .read("/home/u/src")
            .build(&mut sm)];
        assert!(check_with(&SecretExposure, &narrow, &sm, &places()).is_empty());
    }
}
