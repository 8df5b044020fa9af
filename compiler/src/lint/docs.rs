//! The lint pages: `ralc explain LINT` and the generated `docs/lints.md`. Pure text from
//! the registry; never edit `docs/lints.md` by hand (regenerate: `RALC_BLESS=1 cargo test
//! -p ralc-tests --test lints`).

use super::{registry, LintInfo};

/// The page `ralc explain LINT` prints.
pub fn page(i: &LintInfo) -> String {
    format!(
        "{name} (default: {level}{scope}): {summary}\n\nWhat it finds:\n\n{what}\n\nWhy:\n\n{why}\n\nExample that fires:\n\n{example}\n\nFix:\n\n{fix}\n",
        name = i.name,
        level = i.default_level.as_str(),
        scope = if i.authoring { "; not reported inside std: profiles" } else { "" },
        summary = i.summary,
        what = i.what,
        why = i.why,
        example = indent(i.example),
        fix = i.fix,
    )
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
        let i = l.info();
        s.push_str(&format!(
            "\n## {n}\n\nDefault level: `{lv}`.{scope} {sm}.\n\n**What.** {what}\n\n**Why.** {why}\n\n**Example that fires.**\n\n```ral\n{ex}\n```\n\n**Fix.** {fix}\n",
            n = i.name,
            lv = i.default_level.as_str(),
            scope = if i.authoring {
                " An authoring lint: not reported inside embedded standard profiles (`std:NAME`)."
            } else {
                ""
            },
            sm = capitalised(i.summary),
            what = i.what,
            why = i.why,
            ex = i.example,
            fix = i.fix
        ));
    }
    s
}
