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
    match rules {
        // the common case borrows: no component is copied, and a component pair is folded
        // only when neither byte equality nor the pure-ASCII fast path decides it
        PathRules::Posix => within(identity, posix_components(prefix), posix_components(path)),
        PathRules::Windows => {
            let p = components(rules, prefix);
            let q = components(rules, path);
            within(
                identity,
                p.iter().map(String::as_str),
                q.iter().map(String::as_str),
            )
        }
    }
}

/// The stored components of a POSIX path, borrowed (empty components skipped). A byte
/// scan: components are short, so a search for `/` costs more than it saves.
pub fn posix_components(path: &str) -> impl Iterator<Item = &str> {
    let bytes = path.as_bytes();
    let mut at = 0usize;
    std::iter::from_fn(move || {
        while bytes.get(at) == Some(&b'/') {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && bytes[at] != b'/' {
            at += 1;
        }
        // `/` is ASCII, so both ends are char boundaries
        path.get(start..at)
    })
}

/// Every component of `prefix` matches the corresponding one of `path` under `identity`,
/// and `path` has at least as many.
fn within<'a>(
    identity: Identity,
    mut prefix: impl Iterator<Item = &'a str>,
    mut path: impl Iterator<Item = &'a str>,
) -> bool {
    prefix.all(|a| {
        path.next().is_some_and(|b| match identity {
            Identity::Stored => a == b,
            Identity::Collision => collide(a, b),
        })
    })
}

/// Whether two components have equal Collision keys. Pure-ASCII components on BOTH sides
/// need no folding: the key of ASCII text is its ASCII lowercase (see `collision_key`).
/// One non-ASCII side always takes the full key (`ſ` folds to `s`, the Kelvin sign to `k`).
pub fn collide(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    collision_key(a) == collision_key(b)
}

/// The Collision key of one component: the uppercase image (full mapping, root locale),
/// then compatibility caseless matching's normal form, NFKD(fold(NFKD(fold(NFD(x))))).
/// Two components collide when their keys are equal. Pure-ASCII text maps to its ASCII
/// lowercase (uppercase maps a–z to A–Z, folding maps A–Z back to a–z, and normalisation
/// leaves ASCII alone), so it skips ICU; the unit tests check this against the full chain.
pub fn collision_key(component: &str) -> String {
    if component.is_ascii() {
        return component.to_ascii_lowercase();
    }
    icu_collision_key(component)
}

/// The full ICU chain of `collision_key`, for any text.
fn icu_collision_key(component: &str) -> String {
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
    fn posix_components_skip_empty_ones() {
        fn c(p: &str) -> Vec<&str> {
            posix_components(p).collect()
        }
        assert_eq!(c("/a//b/"), vec!["a", "b"]);
        assert_eq!(c("//"), Vec::<&str>::new());
        assert_eq!(c(""), Vec::<&str>::new());
        assert_eq!(c("x/\u{e9}t\u{e9}/y"), vec!["x", "\u{e9}t\u{e9}", "y"]);
        for p in [
            "/",
            "/a",
            "a/b//c///",
            "//\u{17F}//x",
            "/usr/lib/x86_64-linux-gnu/",
        ] {
            let want: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
            assert_eq!(c(p), want, "{p:?}");
        }
    }

    #[test]
    fn ascii_fast_path_is_the_full_key() {
        // every ASCII character, alone and in a mixed word, keys as ICU keys it
        for b in 0u8..128 {
            let c = char::from(b).to_string();
            assert_eq!(collision_key(&c), icu_collision_key(&c), "{b}");
            let w = format!("Ab{c}zZ.{c}9");
            assert_eq!(collision_key(&w), icu_collision_key(&w), "{w:?}");
        }
        // non-ASCII text colliding with ASCII still collides
        assert!(collide("\u{17F}h", "SH"));
        assert!(collide("\u{212A}ey", "KEY"));
        assert!(collide("ke\u{212A}", "kek"));
        assert!(!collide("sh", "bash"));
        assert!(path_within(Identity::Collision, "/d/sh", "/D/\u{17F}H/x"));
        assert!(!path_within(Identity::Stored, "/d/sh", "/d/\u{17F}h/x"));
        assert!(path_within(Identity::Collision, "/d/\u{17F}h", "/d/SH"));
        assert!(!path_within(Identity::Collision, "/d/sh/x", "/d/sh"));
    }

    #[test]
    fn command_names_fold() {
        assert_eq!(command_name_key("/bin/SH"), command_name_key("ſh"));
        assert_eq!(command_name_key("sh"), collision_key("sh"));
    }
}
