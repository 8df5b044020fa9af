//! Grant eligibility (spec §3.2): which family a written absolute path can take effect
//! on, read with `lex::parse_bytes` under both rule sets. Device and malformed heads,
//! mixed-separator openings and NT object paths are refused under every tag. Pure.

use crate::path::lex::{parse_bytes, HeadKind, Namespace, PathRules};

/// Where a grant payload can take effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EligibleOn {
    Posix,
    Windows,
    Both,
}

impl EligibleOn {
    pub fn includes(self, rules: PathRules) -> bool {
        matches!(
            (self, rules),
            (EligibleOn::Both, _)
                | (EligibleOn::Posix, PathRules::Posix)
                | (EligibleOn::Windows, PathRules::Windows)
        )
    }
}

/// Why a payload is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrantRefusal {
    /// `/\x` or `\/x`.
    MixedHead,
    /// `\\.\…`.
    Device,
    /// A two-separator or `\\?\` head that is no drive, share or device.
    Malformed,
    /// `\??\…`.
    NtObject,
    /// Absolute under neither family.
    Relative,
}

/// Classify a written path.
pub fn grant_eligibility(text: &str) -> Result<EligibleOn, GrantRefusal> {
    let w = parse_bytes(text.as_bytes(), PathRules::Windows);
    if w.is_mixed_head() {
        return Err(GrantRefusal::MixedHead);
    }
    match w.kind {
        HeadKind::Device => return Err(GrantRefusal::Device),
        HeadKind::Malformed => return Err(GrantRefusal::Malformed),
        _ => {}
    }
    if w.is_nt_object() {
        return Err(GrantRefusal::NtObject);
    }
    let p = parse_bytes(text.as_bytes(), PathRules::Posix);
    let verbatim = matches!(w.spelling.namespace, Some(Namespace::Verbatim { .. }));
    match w.kind {
        HeadKind::Unc { .. } if !verbatim && p.kind == HeadKind::Posix => Ok(EligibleOn::Both),
        HeadKind::Drive { .. } | HeadKind::Unc { .. } => Ok(EligibleOn::Windows),
        _ if p.kind == HeadKind::Posix => Ok(EligibleOn::Posix),
        _ => Err(GrantRefusal::Relative),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        use EligibleOn::*;
        use GrantRefusal::*;
        let cases: &[(&str, Result<EligibleOn, GrantRefusal>)] = &[
            ("/usr/bin", Ok(Posix)),
            ("//srv/share/x", Ok(Both)),
            ("\\\\srv\\share\\x", Ok(Windows)),
            ("C:\\Tools", Ok(Windows)),
            ("C:/Tools", Ok(Windows)),
            ("\\\\?\\C:\\x", Ok(Windows)),
            ("//?/C:/x", Ok(Windows)),
            ("\\\\.\\NUL", Err(Device)),
            ("//./pipe/x", Err(Device)),
            ("\\\\srv", Err(Malformed)),
            ("//", Err(Malformed)),
            ("\\??\\C:\\x", Err(NtObject)),
            ("/\\x", Err(MixedHead)),
            ("\\/x", Err(MixedHead)),
            ("bin", Err(Relative)),
            ("C:x", Err(Relative)),
            ("\\x", Err(Relative)),
        ];
        for (text, want) in cases {
            assert_eq!(grant_eligibility(text), *want, "{text}");
        }
    }
}
