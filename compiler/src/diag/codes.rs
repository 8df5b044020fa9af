//! The registry of diagnostic codes: every `E…` code the program can report, with the
//! page `ralc explain CODE` prints. Each stage owns its own table (`CODES` in its module);
//! this file only gathers them. It must never invent a code that no stage reports: a test
//! in `tests/` checks that every code here has at least one case producing it.

/// One registered code and its explain page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// `E0201`.
    pub code: &'static str,
    /// One line: what went wrong, as a title.
    pub title: &'static str,
    /// What it means, in a paragraph.
    pub meaning: &'static str,
    /// A profile that triggers it (checked by a test to produce exactly this code).
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

/// Every registered code, in code order.
pub fn all() -> Vec<&'static CodeInfo> {
    let mut v: Vec<&'static CodeInfo> = crate::syntax::CODES
        .iter()
        .chain(crate::eval::CODES)
        .chain(crate::typecheck::CODES)
        .chain(crate::freeze::CODES)
        .chain(crate::capability::CODES)
        .collect();
    v.sort_by_key(|c| c.code);
    v
}

/// The registered code with this name, if any (case-insensitive).
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    all()
        .into_iter()
        .find(|c| c.code.eq_ignore_ascii_case(code))
}

/// The page `ralc explain CODE` prints.
pub fn explain_page(info: &CodeInfo) -> String {
    format!(
        "{code}: {title}\n\n{meaning}\n\nExample that triggers it:\n\n{example}\n\nFix:\n\n{fix}\n",
        code = info.code,
        title = info.title,
        meaning = info.meaning,
        example = indent(info.example),
        fix = info.fix,
    )
}

/// `docs/codes.md`: every code's page, one `## e0201` heading each (the anchor SARIF help
/// URIs link to). Generated; a test in `tests/` keeps the file equal to it.
pub fn markdown() -> String {
    let mut s = String::from(
        "<!-- GENERATED from the code registry (compiler/src/diag/codes.rs): do not edit. Regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test codes`. -->\n\n# Diagnostic codes\n\nEvery code ralc reports; `ralc explain CODE` prints the same page.\n\n| code | title |\n|---|---|\n",
    );
    for c in all() {
        s.push_str(&format!(
            "| [`{code}`](#{anchor}) | {title} |\n",
            code = c.code,
            anchor = c.code.to_ascii_lowercase(),
            title = c.title
        ));
    }
    for c in all() {
        s.push_str(&format!(
            "\n## {anchor}\n\n**{code}: {title}.** {meaning}\n\n**Example that triggers it.**\n\n```ral\n{example}\n```\n\n**Fix.** {fix}\n",
            anchor = c.code.to_ascii_lowercase(),
            code = c.code,
            title = c.title,
            meaning = c.meaning,
            example = c.example,
            fix = c.fix
        ));
    }
    s
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_unique_and_well_formed() {
        let all = super::all();
        let mut seen = std::collections::BTreeSet::new();
        for c in &all {
            assert!(seen.insert(c.code), "duplicate code {}", c.code);
            assert!(
                c.code.starts_with('E') && c.code.len() == 5,
                "bad code {}",
                c.code
            );
            assert!(!c.title.is_empty() && !c.meaning.is_empty() && !c.fix.is_empty());
        }
    }
}
