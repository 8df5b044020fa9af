//! The lint pages: `ralc explain LINT` and the generated `docs/lints.md`. Pure text from
//! the registry; never edit `docs/lints.md` by hand (regenerate: `RALC_BLESS=1 cargo test
//! -p ralc-tests --test lints`).

use super::{registry, LintInfo};
use crate::diag::page::{capitalised, Page, Section, Shown};

/// A lint's page, laid out by the one page renderer (`diag::page`) as codes' pages are.
pub fn lint_page(i: &LintInfo) -> Page {
    Page {
        name: i.name.to_string(),
        head: format!(
            "{name} (default: {level}{scope}): {summary}",
            name = i.name,
            level = i.default_level.as_str(),
            scope = if i.authoring {
                "; not reported inside std: profiles"
            } else {
                ""
            },
            summary = i.summary,
        ),
        sections: vec![
            Section::prose(
                None,
                None,
                &format!(
                    "Default level: `{lv}`.{scope} {sm}.",
                    lv = i.default_level.as_str(),
                    scope = if i.authoring {
                        " An authoring lint: not reported inside embedded standard profiles (`std:NAME`)."
                    } else {
                        ""
                    },
                    sm = capitalised(i.summary),
                ),
            )
            .only(Shown::MarkdownOnly),
            Section::prose(Some("What it finds"), Some("What"), i.what),
            Section::prose(Some("Why"), Some("Why"), i.why),
            Section::example(
                Some("Example that fires"),
                Some("Example that fires"),
                i.example,
            ),
            Section::prose(Some("Fix"), Some("Fix"), i.fix),
        ],
    }
}

/// The page `ralc explain LINT` prints.
pub fn page(i: &LintInfo) -> String {
    lint_page(i).text()
}

/// `docs/lints.md`, generated.
pub fn markdown() -> String {
    let mut s = String::from(
        "<!-- GENERATED from compiler/src/lint/registry.rs: do not edit. Regenerate with `RALC_BLESS=1 cargo test -p ralc-tests --test lints`. -->\n\n# Lints\n\nEach lint reports, never denies. Set a level with `-A LINT` (allow), `-W LINT` (warn) or `-D LINT` (deny: its findings are errors and `ralc check` exits 1), or in a profile with a comment directive: `# ralc: allow(LINT) reason` on the line before an entry (for findings on that entry) or in the file's leading comment block (for the whole file). A directive without a reason is itself a warning (`lint-directive`). A directive wins over the command line for its scope.\n\n| lint | default | summary |\n|---|---|---|\n",
    );
    for l in registry::all() {
        let i = l.info();
        s.push_str(&format!(
            "| [`{n}`](#{n}) | {lv} | {sm} |\n",
            n = i.name,
            lv = i.default_level.as_str(),
            sm = i.summary
        ));
    }
    for l in registry::all() {
        s.push_str(&lint_page(l.info()).markdown("##"));
    }
    s
}
