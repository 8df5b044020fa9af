//! `secret-exposure`: a well-known secret store readable under a restricted fs while the
//! network is not `` `offline `` (one table, below). Judged on real paths against the home
//! and `xdg:config` the freeze resolved.

use super::judge::at;
use super::{Finding, Level, Lint, LintInfo, LintInput};

/// The source of `std:secrets`, the one list of secrets (`std-profiles/secrets.ral`).
const STD_SECRETS: &str = include_str!("../../../std-profiles/secrets.ral");

/// The well-known secret stores this lint judges: the home (`~`) and `xdg:config`
/// entries of `std:secrets`' `let secrets` list, as `(base, sub-path)`. The list's
/// project and system entries are not judged here: a project's `.env` is the user's own
/// file in the tree they granted, and `/etc/shadow` is readable by root alone.
pub fn secret_stores() -> &'static [(String, String)] {
    static STORES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    STORES.get_or_init(|| {
        std_secrets()
            .into_iter()
            .filter_map(|s| {
                if let Some(sub) = s.strip_prefix("~/") {
                    Some(("~".to_string(), sub.to_string()))
                } else {
                    s.strip_prefix("xdg:config/")
                        .map(|sub| ("xdg:config".to_string(), sub.to_string()))
                }
            })
            .collect()
    })
}

/// Every entry of `std:secrets`' `let secrets` list, as written.
pub fn std_secrets() -> Vec<String> {
    use crate::syntax::ast::{ExprKind, Item, StrPart};
    let (program, _) = crate::syntax::parse(crate::diag::FileId(0), STD_SECRETS.as_bytes());
    let mut out = Vec::new();
    for item in &program.items {
        let Item::Let { name, value, .. } = item else {
            continue;
        };
        let ExprKind::List(items) = &value.kind else {
            continue;
        };
        if name != "secrets" {
            continue;
        }
        for e in items {
            if let ExprKind::Str(lit) = &e.kind {
                if let [StrPart::Text(t)] = &lit.parts[..] {
                    out.push(t.clone());
                }
            }
        }
    }
    out
}

pub static INFO: LintInfo = LintInfo {
    name: "secret-exposure",
    default_level: Level::Warn,
    authoring: false,
    summary: "a well-known secret store is readable while the network is available",
    what: "Reports each well-known secret store (the home and `xdg:config` entries of `std:secrets`, the one list the std profiles exclude: `~/.ssh`, `~/.gnupg`, cloud and registry credentials, password stores, shell histories; `std-profiles/secrets.ral` says why each is there) that a restricted fs leaves readable while no layer is `` `offline ``, naming the read entry that reaches it. A stack that does not restrict the file system is not judged here (it reads everything by choice).",
    why: "A program that can read a credential and reach the network can send it anywhere.",
    example: "[\n  fs: [read: ['~']],\n]",
    fix: "Exclude the stores (`deny: ['~/.ssh', …]`, or `--extend std:secrets`, as every std profile does), read narrower directories, or add ``net: `offline``.",
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
        for (base, sub) in secret_stores() {
            let root = match base.as_str() {
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
    fn judges_the_std_secrets_list() {
        let all = std_secrets();
        for want in [
            "~/.ssh",
            "~/.kube",
            "xdg:config/gcloud",
            "~/.bash_history",
            "cwd:.env",
            "/etc/shadow",
        ] {
            assert!(
                all.iter().any(|s| s == want),
                "{want} missing from std:secrets"
            );
        }
        let stores = secret_stores();
        assert!(stores.iter().any(|(b, s)| b == "~" && s == ".vault-token"));
        assert!(stores.iter().any(|(b, s)| b == "xdg:config" && s == "op"));
        assert!(!stores
            .iter()
            .any(|(_, s)| s.contains("shadow") || s.contains(".env")));
        assert_eq!(
            stores.len(),
            all.iter()
                .filter(|s| s.starts_with("~/") || s.starts_with("xdg:config/"))
                .count()
        );
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
