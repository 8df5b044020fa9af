//! The registry of diagnostic codes: every `E…` code the program can report, with the
//! page `ralc explain CODE` prints. Each stage owns its own table (`CODES` in its module);
//! this file only gathers them (and renders `docs/codes.md` from them, [`markdown`]). It
//! must never invent a code that no stage reports: a test in `tests/` checks that every
//! code here has at least one case producing it.

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

/// The stages, in pipeline order, with the table each owns.
fn stages() -> [(&'static str, &'static str, &'static [CodeInfo]); 5] {
    [
        (
            "Input and syntax",
            "Reading the file and parsing it (`compiler/src/syntax/`).",
            crate::syntax::CODES,
        ),
        (
            "Evaluation",
            "The data subset: nothing runs, nothing is read (`compiler/src/eval.rs`).",
            crate::eval::CODES,
        ),
        (
            "Type check",
            "The value against grant's declared table (`compiler/src/typecheck/`).",
            crate::typecheck::CODES,
        ),
        (
            "Freeze",
            "Places, selectors and paths against the anchor: `HOME`, the working directory, `PATH`, the disk (`compiler/src/freeze/`).",
            crate::freeze::CODES,
        ),
        (
            "Composition",
            "Layers into a stack (`compiler/src/capability/`).",
            crate::capability::CODES,
        ),
    ]
}

/// `docs/codes.md`, generated from the stage tables: never edit it by hand (regenerate
/// with `RALC_BLESS=1 cargo test -p ralc-tests --test codes`).
pub fn markdown() -> String {
    let mut s = String::from(
        "<!-- GENERATED from the code tables (compiler/src/diag/codes.rs gathers them): do not edit. Regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test codes`. -->\n\n# Diagnostic codes\n\nEvery error the language and the freeze can report has an `E…` code; `ralc explain CODE` prints its page. Lints are named, not numbered: see `docs/lints.md`. A profile with any of these errors grants nothing: `ralc check` answers no (exit 1), every other command answers nothing (exit 2, `docs/cli.md`), and `ralc run` runs nothing (exit 126).\n\n| code | stage | title |\n|---|---|---|\n",
    );
    for (stage, _, table) in stages() {
        let mut codes: Vec<&CodeInfo> = table.iter().collect();
        codes.sort_by_key(|c| c.code);
        for c in codes {
            s.push_str(&format!(
                "| [`{code}`](#{anchor}) | {stage} | {title} |\n",
                code = c.code,
                anchor = c.code.to_ascii_lowercase(),
                title = c.title
            ));
        }
    }
    for (stage, what, table) in stages() {
        if table.is_empty() {
            continue;
        }
        s.push_str(&format!("\n## {stage}\n\n{what}\n"));
        let mut codes: Vec<&CodeInfo> = table.iter().collect();
        codes.sort_by_key(|c| c.code);
        for c in codes {
            s.push_str(&format!(
                "\n### {code}\n\n**{title}.** {meaning}\n\n```ral\n{example}\n```\n",
                code = c.code,
                title = capitalised(c.title),
                meaning = c.meaning,
                example = c.example,
            ));
            if let Some((_, under)) = crate::freeze::NEEDS_ANCHOR
                .iter()
                .find(|(k, _)| *k == c.code)
            {
                s.push_str(&format!("\nThe example triggers it under: {under}.\n"));
            }
            s.push_str(&format!("\n**Fix.** {}\n", c.fix));
        }
    }
    s
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
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
    fn the_page_lists_every_code_once() {
        let md = super::markdown();
        for c in super::all() {
            assert_eq!(
                md.matches(&format!("\n### {}\n", c.code)).count(),
                1,
                "{}",
                c.code
            );
        }
    }

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
