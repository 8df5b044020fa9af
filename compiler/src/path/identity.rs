//! Name identity and containment (spec §3.6): allowances match as stored; exclusions
//! match under the Collision identity — per component, compatibility caseless matching of
//! the uppercase image (ICU4X case mapping and normalisation), the coarsest identity any
//! file system gives a name. `path_within` is the one containment kernel.
//!
//! Pure: no I/O. It must never widen a Stored match (an allowance matches only its own
//! bytes) nor narrow a Collision one (a deny holds under every spelling).

use super::lex::{parse_bytes, PathRules};
use icu_casemap::CaseMapper;
use icu_normalizer::DecomposingNormalizerBorrowed;

/// Which identity a rule's polarity uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Identity {
    /// Bytes as stored (allowances).
    Stored,
    /// Per component, compatibility caseless matching of the uppercase image (exclusions).
    Collision,
}

/// Whether `path` is `prefix` or lies beneath it, component-wise, under `identity`.
/// Both are absolute real paths of this host (`path_within_under` with the host's rules).
pub fn path_within(identity: Identity, prefix: &str, path: &str) -> bool {
    path_within_under(identity, PathRules::host(), prefix, path)
}

/// The stored components of a path under `rules`: `/`-separated (POSIX), or with `/` and
/// `\` unified and a `\\?\` verbatim prefix folded (Windows).
fn components(rules: PathRules, path: &str) -> Vec<String> {
    match rules {
        PathRules::Posix => path
            .split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect(),
        PathRules::Windows => {
            let p = parse_bytes(path.as_bytes(), PathRules::Windows);
            let plain =
                String::from_utf8(p.without_verbatim_prefix()).unwrap_or_else(|_| path.to_string());
            plain
                .split(['/', '\\'])
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        }
    }
}

/// `path_within` under explicit rules (so neither family's table is dark on the other).
pub fn path_within_under(identity: Identity, rules: PathRules, prefix: &str, path: &str) -> bool {
    let p = components(rules, prefix);
    let q = components(rules, path);
    if p.len() > q.len() {
        return false;
    }
    p.iter().zip(q.iter()).all(|(a, b)| match identity {
        Identity::Stored => a == b,
        Identity::Collision => a == b || collision_key(a) == collision_key(b),
    })
}

/// The Collision key of one component: the uppercase image (full mapping, root locale),
/// then compatibility caseless matching's normal form, NFKD(fold(NFKD(fold(NFD(x))))).
/// Two components collide when their keys are equal.
pub fn collision_key(component: &str) -> String {
    let cm = CaseMapper::new();
    let nfd = DecomposingNormalizerBorrowed::new_nfd();
    let nfkd = DecomposingNormalizerBorrowed::new_nfkd();
    let root = icu_locale_core::LanguageIdentifier::UNKNOWN;
    let upper = cm.uppercase_to_string(component, &root);
    let x = nfd.normalize(&upper);
    let x = cm.fold_string(&x);
    let x = nfkd.normalize(&x);
    let x = cm.fold_string(&x);
    nfkd.normalize(&x).into_owned()
}

/// The name key of a command (`sh`, `SH`, `ſh` are one name): the Collision key of its
/// final component.
pub fn command_name_key(name: &str) -> String {
    let last = name.rsplit(['/']).next().unwrap_or(name);
    collision_key(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_unicode_variants_collide() {
        assert_eq!(collision_key("Secrets"), collision_key("secrets"));
        assert_eq!(collision_key("ſh"), collision_key("SH"));
        assert_eq!(collision_key("\u{212A}ey"), collision_key("key"));
        assert_eq!(collision_key("straße"), collision_key("STRASSE"));
        // compatibility: the ﬁ ligature is "fi"; fullwidth A is A
        assert_eq!(collision_key("\u{FB01}le"), collision_key("file"));
        assert_eq!(collision_key("\u{FF21}"), collision_key("a"));
        // composed and decomposed é
        assert_eq!(collision_key("caf\u{e9}"), collision_key("cafe\u{301}"));
        assert_ne!(collision_key("sh"), collision_key("bash"));
        assert_ne!(collision_key("a"), collision_key("b"));
    }

    #[test]
    fn deny_holds_under_every_spelling_allow_only_its_own() {
        assert!(path_within(
            Identity::Collision,
            "/d/Secrets",
            "/d/secrets/f"
        ));
        assert!(path_within(Identity::Collision, "/d/secrets", "/D/SECRETS"));
        assert!(!path_within(Identity::Stored, "/d/Secrets", "/d/secrets/f"));
        assert!(path_within(Identity::Stored, "/d/Secrets", "/d/Secrets/f"));
        assert!(!path_within(Identity::Collision, "/d/secret", "/d/secrets"));
        assert!(!path_within(Identity::Stored, "/a/b/c", "/a/b"));
        assert!(path_within(Identity::Stored, "/", "/anything"));
    }

    #[test]
    fn windows_components_unify_separators_and_verbatim() {
        let w = PathRules::Windows;
        assert!(path_within_under(
            Identity::Stored,
            w,
            "C:\\Users\\a",
            "C:/Users/a/x"
        ));
        assert!(path_within_under(
            Identity::Stored,
            w,
            "\\\\?\\C:\\Users",
            "C:\\Users\\b"
        ));
        assert!(!path_within_under(
            Identity::Stored,
            w,
            "C:\\Users\\A",
            "C:\\Users\\a"
        ));
        assert!(path_within_under(
            Identity::Collision,
            w,
            "C:\\Users\\A",
            "c:\\users\\a\\f"
        ));
    }

    #[test]
    fn command_names_fold() {
        assert_eq!(command_name_key("/bin/SH"), command_name_key("ſh"));
        assert_eq!(command_name_key("sh"), collision_key("sh"));
    }
}
