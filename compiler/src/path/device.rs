//! Device names: the discard device (`/dev/null`; on Windows exactly `\\.\NUL`) that is
//! always permitted, and the DOS reserved device names that are refused as file-system
//! entries (NUL, CON, PRN, AUX, COM0–9, LPT0–9 and the superscript forms, any case, any
//! extension, trailing dots and blanks trimmed). Pure; both take the family as a
//! parameter so neither table is dark on the other host. It must never excuse a path
//! other than the discard device.

use super::lex::{parse_bytes, HeadKind, PathRules};

/// Whether `path` is the discard device under `rules`.
pub fn is_discard_device(path: &str, rules: PathRules) -> bool {
    match rules {
        PathRules::Posix => path == "/dev/null",
        PathRules::Windows => {
            let p = parse_bytes(path.as_bytes(), PathRules::Windows);
            p.kind == HeadKind::Device
                && p.namespace_tail()
                    .is_some_and(|t| t.eq_ignore_ascii_case(b"NUL"))
        }
    }
}

/// A final component with the trailing dots and blanks Win32 drops.
pub fn win32_trimmed(component: &str) -> &str {
    component.trim_end_matches(['.', ' '])
}

/// The reserved device name a final component names, if any (upper-case, e.g. `NUL`).
pub fn reserved_device_name(component: &str) -> Option<String> {
    let trimmed = win32_trimmed(component);
    let stem = trimmed.split('.').next().unwrap_or(trimmed);
    let stem = stem.trim_end_matches([' ']);
    let upper = stem.to_ascii_uppercase();
    let reserved = match upper.as_str() {
        "NUL" | "CON" | "PRN" | "AUX" => true,
        _ => {
            let (pre, num) = if let Some(n) = upper.strip_prefix("COM") {
                ("COM", n)
            } else if let Some(n) = upper.strip_prefix("LPT") {
                ("LPT", n)
            } else {
                ("", "")
            };
            !pre.is_empty()
                && matches!(
                    num,
                    "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
                )
        }
    };
    reserved.then_some(upper)
}

/// The refusal for a path whose last component is a reserved device name (under Windows
/// rules, unless it is the discard device itself): the message, and a hint for NUL.
pub fn reserved_device_refusal(path: &str) -> Option<(String, Option<String>)> {
    if is_discard_device(path, PathRules::Windows) {
        return None;
    }
    let last = path
        .rsplit(['/', '\\'])
        .find(|c| !c.is_empty())
        .unwrap_or(path);
    let name = reserved_device_name(last)?;
    let message = format!("`{path}` names the Windows reserved device `{name}`, not a file");
    let hint = (name == "NUL").then(|| "did you mean the discard device `\\\\.\\NUL`?".to_string());
    Some((message, hint))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names() {
        for n in [
            "NUL", "nul", "Con.txt", "aux. ", "COM0", "lpt9.log", "COM¹", "lpt³", "nul .x",
        ] {
            assert!(reserved_device_name(n).is_some(), "{n}");
        }
        for n in ["NULL", "CONSOLE", "COM10", "LPT", "x.nul", "readme"] {
            assert!(reserved_device_name(n).is_none(), "{n}");
        }
        let (_, hint) = reserved_device_refusal("C:\\tmp\\nul.txt").unwrap();
        assert!(hint.unwrap().contains("\\\\.\\NUL"));
        assert!(reserved_device_refusal("\\\\.\\NUL").is_none());
    }

    #[test]
    fn discard_device() {
        assert!(is_discard_device("/dev/null", PathRules::Posix));
        assert!(!is_discard_device("/dev/zero", PathRules::Posix));
        assert!(is_discard_device("\\\\.\\nul", PathRules::Windows));
        assert!(is_discard_device("//./NUL", PathRules::Windows));
        assert!(!is_discard_device("C:\\NUL", PathRules::Windows));
    }
}
