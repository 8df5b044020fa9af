//! The registry of everything ralc reports by name, gathered above the stages: each
//! stage declares its own codes (`syntax::codes`, `eval::codes`, `typecheck::codes`,
//! `freeze::codes`, `capability::CODES`: a named constant per code and its page), the
//! lints theirs (`lint::registry`); this module only gathers them, finds a page by name
//! for `ralc explain`, and renders `docs/codes.md` ([`markdown`]). It must never invent a
//! code that no stage reports: a test in `tests/` checks that every code here has at least
//! one case producing it.

use crate::diag::codes::CodeInfo;
use crate::diag::page::{capitalised, Page, Section, Shown};

/// Every registered code, in code order.
pub fn all() -> Vec<&'static CodeInfo> {
    let mut v: Vec<&'static CodeInfo> = stages()
        .into_iter()
        .flat_map(|(_, _, table)| table.iter())
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

/// The page `ralc explain NAME` prints for a code or a lint, or `None` when nothing has
/// that name.
pub fn explain(name: &str) -> Option<String> {
    lookup(name)
        .map(explain_page)
        .or_else(|| crate::lint::explain_page(name))
}

/// A code's page.
pub fn page(info: &CodeInfo) -> Page {
    let mut sections = vec![
        Section::prose(None, Some(&capitalised(info.title)), info.meaning),
        Section::example(Some("Example that triggers it"), None, info.example),
    ];
    if let Some((_, under)) = crate::freeze::NEEDS_ANCHOR
        .iter()
        .find(|(k, _)| *k == info.code)
    {
        sections.push(
            Section::prose(
                None,
                None,
                &format!("The example triggers it under: {under}."),
            )
            .only(Shown::MarkdownOnly),
        );
    }
    sections.push(Section::prose(Some("Fix"), Some("Fix"), info.fix));
    Page {
        name: info.code.to_string(),
        head: format!("{}: {}", info.code, info.title),
        sections,
    }
}

/// The page `ralc explain CODE` prints.
pub fn explain_page(info: &CodeInfo) -> String {
    page(info).text()
}

/// The stages, in pipeline order, with the table each owns.
fn stages() -> [(&'static str, &'static str, &'static [CodeInfo]); 5] {
    [
        (
            "Input and syntax",
            "Reading the file and parsing it (`compiler/src/syntax/`).",
            crate::syntax::codes::CODES,
        ),
        (
            "Evaluation",
            "The data subset: nothing runs, nothing is read (`compiler/src/eval.rs`).",
            crate::eval::codes::CODES,
        ),
        (
            "Type check",
            "The value against grant's declared table (`compiler/src/typecheck/`).",
            crate::typecheck::codes::CODES,
        ),
        (
            "Freeze",
            "Places, selectors and paths against the anchor: `HOME`, the working directory, `PATH`, the disk (`compiler/src/freeze/`).",
            crate::freeze::codes::CODES,
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
        "<!-- GENERATED from the code tables (compiler/src/registry.rs gathers them): do not edit. Regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test codes`. -->\n\n# Diagnostic codes\n\nEvery error the language and the freeze can report has an `E…` code; `ralc explain CODE` prints its page. Lints are named, not numbered: see `docs/lints.md`. A profile with any of these errors grants nothing: `ralc check` answers no (exit 1), every other command answers nothing (exit 2, `docs/cli.md`), and `ralc run` runs nothing (exit 126).\n\n| code | stage | title |\n|---|---|---|\n",
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
            s.push_str(&page(c).markdown("###"));
        }
    }
    s
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

    #[test]
    fn explain_finds_codes_and_lints() {
        assert!(super::explain("e0201").is_some_and(|p| p.starts_with("E0201: ")));
        assert!(super::explain("deputy-prefix").is_some());
        assert!(super::explain("E9999").is_none());
    }
}
